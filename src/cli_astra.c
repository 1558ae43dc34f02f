/* `themis import-astra`: convert ASTRA-sim 2.x network YAML (+ system JSON) to a system file. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "themis/astra.h"

static void usage(FILE *out) {
    fputs("usage: themis import-astra NETWORK.yml [SYSTEM.json] [-o OUT.json] [--force]\n"
          "       themis import-astra --workload FILE.txt [-s SYSTEM.json] [-o OUT.json]\n"
          "\n"
          "Convert an ASTRA-sim 2.x analytical network file (topology, npus_count, bandwidth,\n"
          "latency) and, if given, its system JSON (endpoint-delay, local-mem-bw,\n"
          "preferred-dataset-splits, inter-/intra-dimension-scheduling, ...) into a themis\n"
          "system file under the astra-sim preset, whose numbers match ASTRA-sim's analytical\n"
          "backend. Settings themis does not model (active-chunks-per-dimension > 1,\n"
          "implementations other than ring, halvingDoubling and direct) are errors.\n"
          "\n"
          "options:\n"
          "      --workload FILE convert an ASTRA-sim 1.0 text workload instead (its options:\n"
          "                      themis import-astra --workload FILE --help)\n"
          "  -o, --output FILE   write the system file here ('-' = stdout, the default)\n"
          "      --force         overwrite an existing OUT.json\n"
          "  -h, --help          this text\n"
          "  -V, --version       print the version\n"
          "\n"
          "example:\n"
          "  themis import-astra network.yml system.json -o astra.json && themis run -s "
          "astra.json\n" CLI_HELP_EXIT,
          out);
}

int cli_import_astra(int argc, char **argv) {
    for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
        if (!strcmp(argv[i], "--workload") || !strncmp(argv[i], "--workload=", 11))
            return cli_import_astra_workload(argc, argv);
    static const struct option longs[] = {
        {"output", required_argument, 0, 'o'},
        {"force", no_argument, 0, 'F'},
        {"help", no_argument, 0, 'h'},
        {"version", no_argument, 0, 'V'},
        {0, 0, 0, 0},
    };
    const char *out_path = "-";
    int force = 0, c;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":o:hV", longs, NULL)) != -1) {
        switch (c) {
        case 'o': out_path = optarg; break;
        case 'F': force = 1; break;
        case 'h': usage(stdout); return CLI_OK;
        case 'V': cli_version(); return CLI_OK;
        case ':':
            return cli_usage_error("import-astra", "option '%s' needs a value", argv[optind - 1]);
        default: return cli_usage_error("import-astra", "unknown option '%s'", argv[optind - 1]);
        }
    }
    int n = argc - optind;
    if (n < 1 || n > 2)
        return cli_usage_error("import-astra", "expected NETWORK.yml and optionally SYSTEM.json");
    th_error err = {0};
    const char *inputs[] = {argv[optind], n == 2 ? argv[optind + 1] : NULL};
    if (th_output_check(inputs, 2, &out_path, 1, &err)) return cli_fail(&err);
    char *text;
    const char *note;
    if (th_astra_import(argv[optind], n == 2 ? argv[optind + 1] : NULL, &text, &note, &err))
        return cli_fail(&err);
    th_output out;
    int rc = cli_out_open(&out, out_path, force ? TH_OUTPUT_FORCE : 0, &err);
    if (rc == TH_OK) {
        fputs(text, out.f);
        fputc('\n', out.f);
        rc = cli_out_close(&out, rc, &err);
    }
    free(text);
    if (rc) return cli_fail(&err);
    if (note) fprintf(stderr, "themis: note: %s\n", note);
    return CLI_OK;
}

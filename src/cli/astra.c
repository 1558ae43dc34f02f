/* `themis import-astra`: convert ASTRA-sim configurations to a system file: 2.x network YAML
 * (+ system JSON), or 1.0 network JSON + system text (told apart by content). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "themis/astra.h"
#include "themis/astra1.h"

static void usage(FILE *out) {
    fputs("usage: themis import-astra NETWORK.yml [SYSTEM.json] [-o OUT.json] [--force]\n"
          "       themis import-astra --workload FILE.txt [-s SYSTEM.json] [-o OUT.json]\n"
          "       themis import-astra NETWORK.json SYSTEM.txt [--astra-version V] [-o OUT.json]\n"
          "\n"
          "Convert an ASTRA-sim 2.x analytical network file (topology, npus_count, bandwidth,\n"
          "latency) and, if given, its system JSON (endpoint-delay, local-mem-bw,\n"
          "preferred-dataset-splits, inter-/intra-dimension-scheduling, ...) into a themis\n"
          "system file under the astra-sim preset, whose numbers match ASTRA-sim's analytical\n"
          "backend. Settings themis does not model (active-chunks-per-dimension > 1,\n"
          "implementations other than ring, halvingDoubling and direct) are errors.\n"
          "\n"
          "An ASTRA-sim 1.0 analytical network JSON (dimensions-count, topologies-per-dim,\n"
          "units-count, links-count, link-latency, link-bandwidth; the long form's nic,\n"
          "router and hbm keys) with its system text file (scheduling-policy: LIFO, ...)\n"
          "becomes a system file under the astra-sim-1.0 preset (docs/VALIDATION.md).\n"
          "\n"
          "options:\n"
          "      --workload FILE convert an ASTRA-sim 1.0 text workload instead (its options:\n"
          "                      themis import-astra --workload FILE --help)\n"
          "      --astra-version V   1.0 (the ASTRA-sim-1.0 branch, the default) or\n"
          "                          tutorial-asplos2023 (the tag: its SCF and gap-denominator)\n"
          "  -o, --output FILE   write the system file here ('-' = stdout, the default)\n"
          "      --force         overwrite an existing OUT.json\n"
          "  -h, --help          this text\n"
          "  -V, --version       print the version\n"
          "\n"
          "example:\n"
          "  themis import-astra network.yml system.json -o astra.json && themis run -s "
          "astra.json\n"
          "  themis import-astra 3d_switch.json 3d_switch_themis.txt --astra-version "
          "tutorial-asplos2023 -o t.json\n" CLI_HELP_EXIT,
          out);
}

int cli_import_astra(int argc, char **argv) {
    for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
        if (!strcmp(argv[i], "--workload") || !strncmp(argv[i], "--workload=", 11))
            return cli_import_astra_workload(argc, argv);
    static const struct option longs[] = {
        {"output", required_argument, 0, 'o'},
        {"force", no_argument, 0, 'F'},
        {"astra-version", required_argument, 0, 'A'},
        {"help", no_argument, 0, 'h'},
        {"version", no_argument, 0, 'V'},
        {0, 0, 0, 0},
    };
    const char *out_path = "-";
    int force = 0, c;
    const char *version = NULL;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":o:hV", longs, NULL)) != -1) {
        switch (c) {
        case 'o': out_path = optarg; break;
        case 'F': force = 1; break;
        case 'A': version = optarg; break;
        case 'h': usage(stdout); return CLI_OK;
        case 'V': cli_version(); return CLI_OK;
        case ':':
            return cli_usage_error("import-astra", "option '%s' needs a value", argv[optind - 1]);
        default: return cli_usage_error("import-astra", "unknown option '%s'", argv[optind - 1]);
        }
    }
    int n = argc - optind;
    if (n < 1 || n > 2)
        return cli_usage_error("import-astra",
                               "expected NETWORK.yml [SYSTEM.json] or NETWORK.json SYSTEM.txt");
    th_error err = {0};
    const char *inputs[] = {argv[optind], n == 2 ? argv[optind + 1] : NULL};
    if (th_output_check(inputs, 2, &out_path, 1, &err)) return cli_fail(&err);
    char *text;
    const char *note = NULL;
    static const char *const versions[] = {"1.0", "tutorial-asplos2023", NULL};
    int v = version ? th_name_find(versions, version) : 0;
    if (v < 0)
        return cli_usage_error("import-astra",
                               "--astra-version: expected 1.0 or tutorial-asplos2023, got '%s'",
                               version);
    int which = th_astra_detect(argv[optind], &err);
    if (which < 0) return cli_fail(&err);
    if (which == 1) { /* 1.0: a JSON network, and its system text is required */
        if (n != 2)
            return cli_usage_error("import-astra",
                                   "%s is an ASTRA-sim 1.0 network (JSON): give its system "
                                   "text file too",
                                   argv[optind]);
        int sys_kind = th_astra_detect(argv[optind + 1], &err);
        if (sys_kind < 0) return cli_fail(&err);
        if (sys_kind == 1)
            return cli_usage_error("import-astra",
                                   "%s is a JSON system file (ASTRA-sim 2.x), but %s is a 1.0 "
                                   "network: 1.0 takes a `key: value` system text file",
                                   argv[optind + 1], argv[optind]);
        if (th_astra1_import(argv[optind], argv[optind + 1], (th_a1_version)v, &text, &err))
            return cli_fail(&err);
    } else {
        if (version)
            return cli_usage_error("import-astra",
                                   "--astra-version applies to ASTRA-sim 1.0 inputs (a JSON "
                                   "network), and %s is a 2.x network (YAML)",
                                   argv[optind]);
        if (th_astra_import(argv[optind], n == 2 ? argv[optind + 1] : NULL, &text, &note, &err))
            return cli_fail(&err);
    }
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

/* `themis import-astra`: convert ASTRA-sim configurations to a system file: 2.x network YAML
 * (+ system JSON), or 1.0 network JSON + system text (told apart by content). */
#include <stddef.h>
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
          "options:\n",
          out);
    cli_help_options(out, &cli_import_astra_def);
    fputs("\n"
          "example:\n"
          "  themis import-astra network.yml system.json -o astra.json && themis run -s "
          "astra.json\n"
          "  themis import-astra 3d_switch.json 3d_switch_themis.txt --astra-version "
          "tutorial-asplos2023 -o t.json\n" CLI_HELP_EXIT,
          out);
}

/* import-astra's options: the command line's only (no API command). */
typedef struct import_request {
    const char *workload, *output;
    int version; /* versions[version], when given */
    int force;
    uint64_t given;
} import_request;

#define I(field) offsetof(import_request, field)
static const char *const versions[] = {"1.0", "tutorial-asplos2023", NULL};
static const th_option opts[] = {
    {0, "workload", NULL, TH_ARG_STRING, I(workload), "FILE",
     .help = "convert an ASTRA-sim 1.0 text workload instead (its options:\nthemis import-astra "
             "--workload FILE --help)"},
    {0, "astra-version", NULL, TH_ARG_CHOICE, I(version), "V",
     .help = "1.0 (the ASTRA-sim-1.0 branch, the default) or\ntutorial-asplos2023 (the tag: its "
             "SCF and gap-denominator)",
     .noun = "ASTRA-sim version", .choices = versions},
    {'o', "output", NULL, TH_ARG_STRING, I(output), "FILE",
     .help = "write the system file here ('-' = stdout, the default)"},
    {0, "force", NULL, TH_ARG_FLAG, I(force), .help = "overwrite an existing OUT.json"},
    TH_ARG_HELP_OPTS,
};

const th_cmd_def cli_import_astra_def = {"import-astra", opts, sizeof opts / sizeof opts[0],
                                         I(given),       22,   NULL};

int cli_import_astra(int argc, char **argv) {
    for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
        if (!strcmp(argv[i], "--workload") || !strncmp(argv[i], "--workload=", 11))
            return cli_import_astra_workload(argc, argv);
    import_request q = {0};
    char *ops[3];
    int n = 0;
    int rc = cli_args(&cli_import_astra_def, argc, argv, &q, usage, ops, 3, &n);
    if (rc) return rc < 0 ? CLI_OK : rc;
    if (q.workload) return cli_import_astra_workload(argc, argv); /* --work, shortened */
    const char *out_path = q.output ? q.output : "-";
    int force = q.force, version = th_option_given(&cli_import_astra_def, &q, "astra-version");
    if (n < 1 || n > 2)
        return cli_usage_error("import-astra",
                               "expected NETWORK.yml [SYSTEM.json] or NETWORK.json SYSTEM.txt");
    th_error err = {0};
    const char *inputs[] = {ops[0], n == 2 ? ops[1] : NULL};
    if (th_output_check(inputs, 2, &out_path, 1, &err)) return cli_fail(&err);
    char *text;
    const char *note = NULL;
    int v = version ? q.version : 0;
    int which = th_astra_detect(ops[0], &err);
    if (which < 0) return cli_fail(&err);
    if (which == 1) { /* 1.0: a JSON network, and its system text is required */
        if (n != 2)
            return cli_usage_error("import-astra",
                                   "%s is an ASTRA-sim 1.0 network (JSON): give its system "
                                   "text file too",
                                   ops[0]);
        int sys_kind = th_astra_detect(ops[1], &err);
        if (sys_kind < 0) return cli_fail(&err);
        if (sys_kind == 1)
            return cli_usage_error("import-astra",
                                   "%s is a JSON system file (ASTRA-sim 2.x), but %s is a 1.0 "
                                   "network: 1.0 takes a `key: value` system text file",
                                   ops[1], ops[0]);
        if (th_astra1_import(ops[0], ops[1], (th_a1_version)v, &text, &err)) return cli_fail(&err);
    } else {
        if (version)
            return cli_usage_error("import-astra",
                                   "--astra-version applies to ASTRA-sim 1.0 inputs (a JSON "
                                   "network), and %s is a 2.x network (YAML)",
                                   ops[0]);
        if (th_astra_import(ops[0], n == 2 ? ops[1] : NULL, &text, &note, &err))
            return cli_fail(&err);
    }
    th_output out;
    rc = cli_out_open(&out, out_path, force ? TH_OUTPUT_FORCE : 0, &err);
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

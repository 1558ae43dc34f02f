/* `themis import-astra --workload FILE.txt`: an ASTRA-sim 1.0 text workload converted to our
 * workload JSON, with what our format cannot say printed as notes. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static void usage(FILE *out) {
    fputs("usage: themis import-astra --workload FILE.txt [-s SYSTEM.json] [-o OUT.json]\n"
          "                           [--comm-scale X] [--compute-scale X] [--force]\n"
          "\n"
          "Convert an ASTRA-sim 1.0 text workload (DATA, MODEL, HYBRID_DATA_MODEL,\n"
          "HYBRID_MODEL_DATA, HYBRID_TRANSFORMER, HYBRID_DLRM, HYBRID_DLRM_ENHANCED,\n"
          "DISTRIBUTED_INFERENCE, HYBRID_CUSTOMIZED, MICRO) into a themis workload file, as\n"
          "`themis train` replays it on our model (docs/WORKLOADS.md). What our format cannot\n"
          "say (update delays, where ASTRA-sim waits for a collective) is printed as notes on\n"
          "stderr; a Transformer model group that splits a dim is an error.\n"
          "\n"
          "options:\n"
          "      --workload FILE     the text workload ('-' = stdin)\n"
          "  -s, --system FILE       the system it runs on: needed by HYBRID_MODEL_DATA,\n"
          "                          HYBRID_TRANSFORMER and HYBRID_CUSTOMIZED (which dims are\n"
          "                          model-parallel) and by ALLGATHER (ASTRA-sim's size is\n"
          "                          each NPU's input, ours the output); drops the collectives\n"
          "                          that span no dim of 2+ NPUs there\n"
          "      --comm-scale X      multiply collective sizes (truncated, as ASTRA-sim)\n"
          "      --compute-scale X   multiply compute times (truncated, as ASTRA-sim)\n"
          "  -o, --output FILE       write the workload here ('-' = stdout, the default)\n"
          "      --force             overwrite an existing OUT.json\n"
          "  -h, --help              this text\n"
          "  -V, --version           print the version\n"
          "\n"
          "example:\n"
          "  themis import-astra --workload resnet50.txt -o resnet50.json\n" CLI_HELP_EXIT,
          out);
}

int cli_import_astra_workload(int argc, char **argv) {
    enum { O_WORKLOAD = 256, O_FORCE, O_COMM, O_COMPUTE };
    static const struct option longs[] = {
        {"workload", required_argument, 0, O_WORKLOAD},
        {"system", required_argument, 0, 's'},
        {"output", required_argument, 0, 'o'},
        {"comm-scale", required_argument, 0, O_COMM},
        {"compute-scale", required_argument, 0, O_COMPUTE},
        {"force", no_argument, 0, O_FORCE},
        {"help", no_argument, 0, 'h'},
        {"version", no_argument, 0, 'V'},
        {0, 0, 0, 0},
    };
    const char *path = "-", *sys_path = NULL, *out_path = "-";
    cli_a1_opts a = {{1, 1, 0}, 0, 0};
    int force = 0, c;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":s:o:hV", longs, NULL)) != -1) {
        switch (c) {
        case O_WORKLOAD: path = optarg; break;
        case 's': sys_path = optarg; break;
        case 'o': out_path = optarg; break;
        case O_COMM:
        case O_COMPUTE:
            if (cli_a1_option("import-astra", c - O_COMM, optarg, &a)) return CLI_USAGE;
            break;
        case O_FORCE: force = 1; break;
        case 'h': usage(stdout); return CLI_OK;
        case 'V': cli_version(); return CLI_OK;
        case ':':
            return cli_usage_error("import-astra", "option '%s' needs a value", argv[optind - 1]);
        default: return cli_usage_error("import-astra", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind < argc)
        return cli_usage_error("import-astra", "unexpected argument '%s' (with --workload)",
                               argv[optind]);
    th_error err = {0};
    const char *inputs[] = {path, sys_path};
    if (th_output_check(inputs, 2, &out_path, 1, &err)) return cli_fail(&err);
    th_system sys;
    th_run_defaults def;
    if (sys_path && cli_load_system(sys_path, &sys, &def, &err)) return cli_fail(&err);
    th_a1_workload *a1;
    th_workload *json;
    if (th_a1_load(path, &a1, &json, &err)) return cli_fail(&err);
    if (json) {
        th_workload_free(json);
        th_error_set(&err, TH_EINPUT,
                     "%s: already a themis workload (JSON), not an ASTRA-sim 1.0 text workload",
                     path);
        return cli_fail(&err);
    }
    th_buf notes = {0};
    th_workload *wl = NULL;
    char *text = NULL;
    int rc = th_a1_convert(a1, sys_path ? &sys : NULL, &a.scale, path, &wl, &notes, &err);
    if (rc == TH_OK) rc = th_a1_workload_json(wl, &text, &err);
    th_output out;
    if (rc == TH_OK &&
        (rc = cli_out_open(&out, out_path, force ? TH_OUTPUT_FORCE : 0, &err)) == TH_OK) {
        fputs(text, out.f);
        fputc('\n', out.f);
        rc = cli_out_close(&out, rc, &err);
    }
    if (rc == TH_OK) cli_print_notes(&notes);
    free(text);
    th_buf_free(&notes);
    th_workload_free(wl);
    th_a1_free(a1);
    return rc ? cli_fail(&err) : CLI_OK;
}

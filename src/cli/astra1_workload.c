/* `themis import-astra --workload FILE.txt`: an ASTRA-sim 1.0 text workload converted to our
 * workload JSON, with what our format cannot say printed as notes. */
#include <stddef.h>
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
          "options:\n",
          out);
    cli_help_options(out, &cli_import_astra_workload_def);
    fputs("\n"
          "example:\n"
          "  themis import-astra --workload resnet50.txt -o resnet50.json\n" CLI_HELP_EXIT,
          out);
}

/* import-astra --workload's options: the command line's only (no API command). */
typedef struct workload_request {
    const char *workload, *system, *output;
    double comm_scale, compute_scale;
    int force;
    uint64_t given;
} workload_request;

#define W(field) offsetof(workload_request, field)
static const th_option opts[] = {
    {0, "workload", NULL, TH_ARG_STRING, W(workload), "FILE",
     .help = "the text workload ('-' = stdin)"},
    {'s', "system", NULL, TH_ARG_STRING, W(system), "FILE",
     .help = "the system it runs on: needed by HYBRID_MODEL_DATA,\nHYBRID_TRANSFORMER and "
             "HYBRID_CUSTOMIZED (which dims are\nmodel-parallel) and by ALLGATHER (ASTRA-sim's "
             "size is\neach NPU's input, ours the output); drops the collectives\nthat span no "
             "dim of 2+ NPUs there"},
    {0, "comm-scale", NULL, TH_ARG_NUMBER, W(comm_scale), "X",
     .help = "multiply collective sizes (truncated, as ASTRA-sim)", .lo = 0, .hi = 1e9},
    {0, "compute-scale", NULL, TH_ARG_NUMBER, W(compute_scale), "X",
     .help = "multiply compute times (truncated, as ASTRA-sim)", .lo = 0, .hi = 1e9},
    {'o', "output", NULL, TH_ARG_STRING, W(output), "FILE",
     .help = "write the workload here ('-' = stdout, the default)"},
    {0, "force", NULL, TH_ARG_FLAG, W(force), .help = "overwrite an existing OUT.json"},
    TH_ARG_HELP_OPTS,
};

const th_cmd_def cli_import_astra_workload_def = {
    "import-astra", opts, sizeof opts / sizeof opts[0], W(given), 26, NULL};

int cli_import_astra_workload(int argc, char **argv) {
    workload_request q = {.comm_scale = 1, .compute_scale = 1};
    char *ops[1];
    int n = 0;
    int rc = cli_args(&cli_import_astra_workload_def, argc, argv, &q, usage, ops, 1, &n);
    if (rc) return rc < 0 ? CLI_OK : rc;
    if (n)
        return cli_usage_error("import-astra", "unexpected argument '%s' (with --workload)",
                               ops[0]);
    const char *path = q.workload ? q.workload : "-", *sys_path = q.system;
    const char *out_path = q.output ? q.output : "-";
    int force = q.force;
    th_a1_scale scale = {q.comm_scale, q.compute_scale, 0};
    th_error err = {0};
    const char *inputs[] = {path, sys_path};
    if (th_output_check(inputs, 2, &out_path, 1, &err)) return cli_fail(&err);
    th_system sys;
    th_run_defaults def;
    th_arg_src sys_src = {sys_path, NULL, NULL};
    const char *who;
    if (sys_path && th_cmd_load_system(&sys_src, &sys, &def, &who, &err)) return cli_fail(&err);
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
    rc = th_a1_convert(a1, sys_path ? &sys : NULL, &scale, path, &wl, &notes, &err);
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

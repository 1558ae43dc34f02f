/* `themis export-chakra`: its --help and argv; the command is the library's
 * (src/cmd/cmd_export_chakra.c). */
#include <stdio.h>

#include "cli.h"

static void usage(FILE *out) {
    fputs("usage: themis export-chakra WORKLOAD -s SYSTEM.json -o PREFIX [OPTIONS]\n"
          "\n"
          "Write a workload (our JSON, an ASTRA-sim 1.0 text workload, or an LLM workload of one\n"
          "pipeline stage) on a system as a Chakra execution trace, one file per NPU, PREFIX.0.et\n"
          ".. PREFIX.<NPUs-1>.et, that ASTRA-sim 2.x reads as its --workload-configuration=PREFIX\n"
          "(docs/CHAKRA.md): a compute node per phase (its time in whole microseconds) and a\n"
          "collective node per collective (type, size and involved dims), with the dependencies\n"
          "of themis train's order. Prints what it wrote.\n"
          "\n"
          "options:\n",
          out);
    cli_help_options(out, &th_cmd_export_chakra_def);
    fputs("\n"
          "examples:\n"
          "  themis export-chakra models/workloads/resnet50.json -s models/systems/default-3d.json "
          "\\\n"
          "      -o traces/resnet50\n"
          "  themis export-chakra models/workloads/astra/gnmt.txt -s sys.json -o gnmt "
          "--iterations 2\n" CLI_HELP_EXIT,
          out);
}

int cli_export_chakra(int argc, char **argv) {
    th_export_chakra_request r;
    th_export_chakra_request_init(&r);
    char *ops[1];
    int nops = 0;
    int rc = cli_args(&th_cmd_export_chakra_def, argc, argv, &r, usage, ops, 1, &nops);
    if (rc) return rc < 0 ? CLI_OK : rc;
    if (!nops) return cli_usage_error("export-chakra", "missing the workload file");
    r.workload.path = ops[0];
    const char *paths[] = {r.workload.path, r.system.path}, *names[] = {"the workload", "-s"};
    if ((rc = cli_stdin_once("export-chakra", paths, names, 2))) return rc;
    th_error err = {0};
    th_cmd_io io = cli_io();
    if (th_cmd_export_chakra(&r, &io, &err)) return cli_fail(&err);
    return CLI_OK;
}

/* `themis optimize`: its --help and argv; the command is the library's (src/cmd/cmd_optimize.c). */
#include <stdio.h>
#include <unistd.h>

#include "cli.h"

static void usage(FILE *out) {
    fputs("usage: themis optimize [OPTIONS]\n"
          "\n"
          "Split a bandwidth budget over the dims (each dim's bw_GBps) so that one collective\n"
          "runs fastest under a policy pair: NLopt's COBYLA over the emulator, from three\n"
          "deterministic starts (equal split, the system's split, the baseline's bytes).\n"
          "The constraint: sum of cost x bw_GBps over the varied dims <= budget.\n"
          "\n"
          "options:\n",
          out);
    cli_help_options(out, &th_cmd_optimize_def);
    fputs("\n"
          "examples:\n"
          "  themis optimize -s models/systems/default-3d.json -b 1GiB -n 64 -p themis -q scf\n"
          "  themis optimize -p all --budget 600 -f csv\n"
          "  themis optimize -b 256MiB -p all --chunks auto\n"
          "  themis optimize -l models/collectives/llm-step.json -p all\n" CLI_HELP_EXIT,
          out);
}

int cli_optimize(int argc, char **argv) {
    th_optimize_request r;
    th_optimize_request_init(&r);
    int rc = cli_args(&th_cmd_optimize_def, argc, argv, &r, usage, NULL, 0, NULL);
    if (rc) return rc < 0 ? CLI_OK : rc;
    th_cmd_io io = cli_io();
    if (!isatty(STDERR_FILENO)) io.progress = NULL;
    th_error err = {0};
    if (th_cmd_optimize(&r, &io, &err)) return cli_fail(&err);
    return CLI_OK;
}

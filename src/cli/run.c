/* `themis run`: its --help and argv; the command itself is the library's (src/cmd/cmd_run.c). */
#include <stdio.h>
#include <string.h>

#include "cli.h"

static void usage(FILE *out) {
    fputs("usage: themis run [OPTIONS]\n"
          "\n"
          "Evaluate one collective under each inter-dimension policy (baseline, themis,\n"
          "roundrobin, lp) and intra-dimension policy (fifo, scf); speedups are against\n"
          "baseline+fifo on the same system, collective and chunk count (none where a\n"
          "preset refuses baseline+fifo there and it was not asked).\n"
          "\n"
          "options:\n",
          out);
    cli_help_options(out, &th_cmd_run_def);
    fputs("\n"
          "examples:\n"
          "  themis run\n"
          "  themis run -s models/systems/default-3d.json -b 64MiB -n 16 -p themis -q scf\n"
          "  themis run -c reducescatter --dims 0,2 -f csv -o out.csv --trace trace.csv\n"
          "  themis run -s models/systems/hetero-4d.json -n 256 --bound\n" CLI_HELP_EXIT,
          out);
}

int cli_run(int argc, char **argv) {
    th_run_request r;
    th_run_request_init(&r);
    int rc = cli_args(&th_cmd_run_def, argc, argv, &r, usage, NULL, 0, NULL);
    if (rc) return rc < 0 ? CLI_OK : rc;
    /* the API has no standard output to share */
    if (r.trace && !strcmp(r.trace, "-") && (!r.output || !strcmp(r.output, "-")))
        return cli_usage_error("run", "--trace - needs -o FILE (results and trace cannot both "
                                      "go to stdout)");
    th_error err = {0};
    th_cmd_io io = cli_io();
    if (th_cmd_run(&r, &io, &err)) return cli_fail(&err);
    return CLI_OK;
}

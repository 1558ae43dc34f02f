/* `themis calibrate`: its --help and argv; the command is the library's
 * (src/cmd/cmd_calibrate.c). */
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"

static void usage(FILE *out) {
    fputs(
        "usage: themis calibrate LOG... --topology T [--npus N] [-o OUT.json]\n"
        "       themis calibrate LOG... -s SYSTEM.json --dim K [-o OUT.json]\n"
        "       themis calibrate NODE.log NODES.log --topology T --npus-per-node N [-o OUT.json]\n"
        "\n"
        "Fit the latency_ns and bw_GBps (or the efficiency) of one dim to the times that\n"
        "nccl-tests or rccl-tests measured (their text output, or nccl-tests -J JSON), by\n"
        "least squares over the sizes, weighted by relative error. The collective comes from\n"
        "the log (all_reduce_perf, reduce_scatter_perf, all_gather_perf, alltoall_perf) or -c.\n"
        "Writes a new one-dim system, or the system of -s with dim K updated (a log over the\n"
        "NPUs of dims 0..K, N nodes x G GPUs, holds the dims before K at the file's values),\n"
        "with \"run\": {\"chunks\": 1}, and prints the fit, R^2, the error on held-out sizes\n"
        "and the residual of every size, marking the sizes the model does not fit.\n"
        "--npus-per-node N writes a system of two dims, a node of N NPUs and the network\n"
        "across the nodes: a single-node log (N ranks) fits the node, then a multi-node log\n"
        "(a multiple of N) the network with the node held at that fit; a multi-node log\n"
        "alone measures only the sums of the two dims' terms, so the node is then held at\n"
        "--node-bw (and --node-latency), an assumption the report names.\n"
        "\n"
        "options:\n",
        out);
    cli_help_options(out, &th_cmd_calibrate_def);
    fputs("\n"
          "examples:\n"
          "  themis calibrate nccl-allreduce.log --topology switch --npus 8 -o measured.json\n"
          "  themis calibrate --dim 1 -s hgx.json rccl-ar.log rccl-ag.log -o hgx-fitted.json\n"
          "  themis calibrate node-8.log two-nodes-16.log --topology switch --npus-per-node 8\n"
          "      --min-size 64MiB -o hgx-2x8.json\n"
          "  themis run -s measured.json -b 1GiB   (one chunk, as the file's \"run\" "
          "says)\n" CLI_HELP_EXIT,
          out);
}

int cli_calibrate(int argc, char **argv) {
    th_calibrate_request r;
    th_calibrate_request_init(&r);
    char **logs = calloc((size_t)argc, sizeof *logs);
    if (!logs) return cli_fail(&(th_error){TH_EINTERNAL, "out of memory"});
    int rc = cli_args(&th_cmd_calibrate_def, argc, argv, &r, usage, logs, argc, &r.logs.n);
    r.logs.v = (const char *const *)logs;
    if (!r.output) r.output = "-"; /* the system file: the command line's stdout */
    th_error err = {0};
    th_cmd_io io = cli_io();
    if (rc == CLI_OK && th_cmd_calibrate(&r, &io, &err)) rc = cli_fail(&err);
    free(logs);
    return rc < 0 ? CLI_OK : rc;
}

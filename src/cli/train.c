/* `themis train`: its --help and argv; the command is the library's (src/cmd/cmd_train.c). */
#include <stdio.h>
#include <string.h>

#include "cli.h"

static void usage(FILE *out) {
    fputs("usage: themis train WORKLOAD.json|WORKLOAD.txt [OPTIONS]\n"
          "\n"
          "Replay training iterations of a workload (docs/WORKLOADS.md): compute overlapped\n"
          "with its collectives, several collectives in flight sharing the network. Prints the\n"
          "steady-state iteration time, compute, exposed communication and speedups against\n"
          "baseline+fifo and against the ideal network (every collective at the summed\n"
          "bandwidth of its dims).\n"
          "\n"
          "options:\n",
          out);
    cli_help_options(out, &th_cmd_train_def);
    fputs("\n"
          "A WORKLOAD.txt in ASTRA-sim 1.0's text format (told by content) replays with our\n"
          "semantics on our model, converted as `import-astra --workload` does; under the\n"
          "astra-sim-1.0 preset, ASTRA-sim 1.0's state machine gives total_us, compute_us and\n"
          "exposed_comm_us as ASTRA-sim reports them (-n: the system's run.chunks by default).\n"
          "A Chakra execution trace (PREFIX of PREFIX.<rank>.et, or one of its files) replays\n"
          "as a graph on any system, as ASTRA-sim 2.x does under the astra-sim preset: its\n"
          "iteration_us is the simulator's finish time (-n: the system's run.chunks, else 64).\n"
          "\n"
          "An LLM workload (the key \"llm\": a transformer model and its TP, PP, DP, EP\n"
          "execution, docs/LLM.md) runs on a system with an \"npu\": per policy pair the\n"
          "iteration and its parts (forward, backward, recompute, exposed TP, EP, PP and DP\n"
          "communication, bubble, optimizer), MFU, TFLOP/s per NPU, and the memory per NPU\n"
          "(a warning when it exceeds the NPU's). -n, --bucket, --micro-batch and --schedule\n"
          "override the file.\n"
          "\n"
          "examples:\n"
          "  themis train models/workloads/resnet50.json\n"
          "  themis train models/workloads/dlrm.json -s models/systems/hetero-4d.json -f "
          "json\n" CLI_HELP_EXIT,
          out);
}

int cli_train(int argc, char **argv) {
    th_train_request r;
    th_train_request_init(&r);
    char *ops[1];
    int nops = 0;
    int rc = cli_args(&th_cmd_train_def, argc, argv, &r, usage, ops, 1, &nops);
    if (rc) return rc < 0 ? CLI_OK : rc;
    if (!nops) return cli_usage_error("train", "missing the workload file");
    r.workload.path = ops[0];
    const char *paths[] = {r.workload.path, r.system.path}, *names[] = {"the workload", "-s"};
    if ((rc = cli_stdin_once("train", paths, names, 2))) return rc;
    /* the API has no standard output to share */
    if (r.trace && !strcmp(r.trace, "-") && (!r.output || !strcmp(r.output, "-")))
        return cli_usage_error("train", "--trace - needs -o FILE");
    th_error err = {0};
    th_cmd_io io = cli_io();
    if (th_cmd_train(&r, &io, &err)) return cli_fail(&err);
    return CLI_OK;
}

/* `themis search`: its --help and argv; the command is the library's (src/cmd/cmd_search.c). */
#include <stdio.h>

#include "cli.h"

static void usage(FILE *out) {
    fputs("usage: themis search MODEL.json -s SYSTEM.json [OPTIONS]\n"
          "\n"
          "Find the fastest ways to train an LLM on every NPU of a system (docs/LLM.md, The\n"
          "search): every valid execution (TP, PP, DP, EP for experts, micro-batch, schedule\n"
          "with every interleaving, sequence parallelism, recomputation, optimizer sharding,\n"
          "mapping of the groups onto the dims), those that fit in the NPU's memory, and the\n"
          "best K by iteration time under each policy pair, with their breakdown, MFU and\n"
          "memory. MODEL is a model file (models/llm/) or an LLM workload, whose execution\n"
          "gives the global batch, the settings the search does not vary (overlap, buckets,\n"
          "optimizer and gradient bytes, chunks) and the keys --fix keeps.\n"
          "\n"
          "options:\n",
          out);
    cli_help_options(out, &th_cmd_search_def);
    fputs("\n"
          "examples:\n"
          "  themis search models/llm/megatron-1t.json -s models/systems/dgx-a100.json \\\n"
          "      --global-batch 3072\n"
          "  themis search models/workloads/llm/megatron-175b-selective.json \\\n"
          "      -s models/systems/dgx-a100.json --fix tp,pp -p all -f csv\n" CLI_HELP_EXIT,
          out);
}

int cli_search(int argc, char **argv) {
    th_search_request r;
    th_search_request_init(&r);
    char *ops[1];
    int nops = 0;
    int rc = cli_args(&th_cmd_search_def, argc, argv, &r, usage, ops, 1, &nops);
    if (rc) return rc < 0 ? CLI_OK : rc;
    if (!nops) return cli_usage_error("search", "missing the model or workload file");
    r.model.path = ops[0];
    const char *paths[] = {r.model.path, r.system.path}, *names[] = {"the model", "-s"};
    if ((rc = cli_stdin_once("search", paths, names, 2))) return rc;
    th_error err = {0};
    th_cmd_io io = cli_io();
    if (th_cmd_search(&r, &io, &err)) return cli_fail(&err);
    return CLI_OK;
}

/* themis entry point: the subcommand dispatch, `themis help`, and the global --help and
 * --version. The commands live in the other files of this folder. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "themis/str.h"

static void usage(FILE *out) {
    fputs("usage: themis [COMMAND] [OPTIONS]\n"
          "\n"
          "How fast does a hierarchical collective run on a multi-dimensional network, and how\n"
          "much does the chunk schedule (baseline, Themis, round-robin; FIFO or SCF) matter?\n"
          "\n"
          "commands:\n"
          "  run        evaluate one collective under each scheduling policy (the default)\n"
          "  train      replay training iterations of a workload (compute + collectives)\n"
          "  sweep      evaluate every point of a sweep spec into a CSV\n"
          "  merge      join the shard files of a sweep\n"
          "  import-astra  convert ASTRA-sim network/system files to a system file\n"
          "  summarize  mean, geometric mean, min and max of a CSV column, grouped\n"
          "  optimize   the split of a bandwidth budget over the dims that runs fastest\n"
          "  plot       draw any two columns of a CSV, grouped, into PNG, PDF or SVG (gnuplot)\n"
          "  calibrate  fit a dim's latency and bandwidth to nccl-tests / rccl-tests logs\n"
          "  export-chakra  write a workload as a Chakra trace (one file per NPU) for ASTRA-sim\n"
          "\n"
          "options:\n"
          "  -h, --help     this text; 'themis help COMMAND' or 'themis COMMAND --help' for a\n"
          "                 command's options\n"
          "  -V, --version  print the version and those of the libraries it is built with\n"
          "\n"
          "example:\n"
          "  themis run -s models/systems/default-3d.json -b 1GiB -n 64 -f csv\n" CLI_HELP_EXIT,
          out);
}

/* Each command, in `themis --help` order, with its option table (for the bash completion). */
static const struct {
    const char *name;
    int (*fn)(int, char **);
    const th_cmd_def *def;
} commands[] = {
    {"run", cli_run, &th_cmd_run_def},
    {"train", cli_train, &th_cmd_train_def},
    {"sweep", cli_sweep, &th_cmd_sweep_def},
    {"merge", cli_merge, &cli_merge_def},
    {"import-astra", cli_import_astra, &cli_import_astra_def},
    {"summarize", cli_summarize, &cli_summarize_def},
    {"optimize", cli_optimize, &th_cmd_optimize_def},
    {"plot", cli_plot, &th_cmd_plot_def},
    {"calibrate", cli_calibrate, &th_cmd_calibrate_def},
    {"export-chakra", cli_export_chakra, &th_cmd_export_chakra_def},
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

/* The function of a command name; NULL when there is none. */
static int (*command(const char *name))(int, char **) {
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (!strcmp(name, commands[i].name)) return commands[i].fn;
    return NULL;
}

/* "unknown command", with the nearest command when one is near (as for options and keys). */
static int unknown(const char *what, const char *name) {
    const char *names[NCOMMANDS + 1];
    for (size_t i = 0; i < NCOMMANDS; i++)
        names[i] = commands[i].name;
    names[NCOMMANDS] = NULL;
    int i = th_name_near(names, name);
    if (i >= 0)
        fprintf(stderr,
                "themis: %sunknown command '%s'; did you mean '%s'? (see 'themis --help')\n", what,
                name, names[i]);
    else
        fprintf(stderr, "themis: %sunknown command '%s' (see 'themis --help')\n", what, name);
    return CLI_USAGE;
}

/* The option table of a command name; NULL when it has none. */
static const th_cmd_def *table(const char *name) {
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (!strcmp(name, commands[i].name)) return commands[i].def;
    return NULL;
}

int main(int argc, char **argv) {
    if (argc == 2 && !strcmp(argv[1], "--complete-commands")) {
        for (size_t i = 0; i < NCOMMANDS; i++)
            puts(commands[i].name);
        return CLI_OK;
    }
    if (argc >= 3 &&
        (!strcmp(argv[1], "--complete-options") || !strcmp(argv[1], "--complete-values")))
        return cli_complete(argc, argv, table(argv[2]));
    if (argc < 2 || argv[1][0] == '-') {
        if (argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
            usage(stdout);
            return CLI_OK;
        }
        if (argc >= 2 && (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version"))) {
            cli_version();
            return CLI_OK;
        }
        return cli_run(argc, argv); /* bare options mean `themis run OPTIONS` */
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "help")) { /* `themis help`: this text; `themis help CMD`: CMD --help */
        if (argc == 2) {
            usage(stdout);
            return CLI_OK;
        }
        if (argc > 3) {
            fprintf(stderr, "themis: help: expected one command, got %d words\n", argc - 2);
            return CLI_USAGE;
        }
        int (*fn)(int, char **) = command(argv[2]);
        if (!fn) return unknown("help: ", argv[2]);
        char *args[] = {argv[0], argv[2], "--help", NULL}; /* as `themis CMD --help` */
        return fn(2, args + 1);
    }
    int (*fn)(int, char **) = command(cmd);
    if (fn) return fn(argc - 1, argv + 1);
    return unknown("", cmd);
}

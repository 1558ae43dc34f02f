/* The command-line front end: the only code that prints to the user or chooses an exit
 * status. main.c dispatches, cli.c holds the shared helpers, each other file one command. */
#ifndef THEMIS_CLI_H
#define THEMIS_CLI_H

#include <stdio.h>

#include "../cmd/cmd.h"
#include "themis/themis.h"

/* Exit statuses, the same for every command (README.md, "Exit status"). */
enum { CLI_OK = 0, CLI_INTERNAL = 1, CLI_USAGE = 2, CLI_IO = 3 };

/* The exit-status table at the end of every command's --help. */
#define CLI_HELP_EXIT                                                                              \
    "\n"                                                                                           \
    "exit status: 0 success; 1 internal error; 2 bad input or usage (an option, an input file\n"   \
    "that does not open or holds bad content, an output that exists or is an input); 3 I/O\n"      \
    "failure (reading or writing a file failed: unwritable folder, disk full)\n"
/* The same for sweep, which can be interrupted. */
#define CLI_HELP_EXIT_SWEEP                                                                        \
    CLI_HELP_EXIT "128+N: interrupted by signal N (SIGINT: 130, SIGTERM: 143); the finished rows " \
                  "are kept\nand --resume finishes the file\n"

/* argv (argv[0] the command's name) into req by def's option table; the operands, in order,
 * into ops[0 .. *nops - 1] (more than maxops: "unexpected argument"). Returns CLI_OK, the exit
 * status of the usage error printed, or -1 when --help (usage) or --version was printed. */
int cli_args(const th_cmd_def *def, int argc, char **argv, void *req, void (*usage)(FILE *),
             char **ops, int maxops, int *nops);
/* `themis --complete-options CMD` and `--complete-values CMD OPT` for the bash completion, from
 * def (NULL: CMD has no table; exit 2). */
int cli_complete(int argc, char **argv, const th_cmd_def *def);
/* The option lines of a command's --help, from its table. */
void cli_help_options(FILE *out, const th_cmd_def *def);
/* The command layer's outputs opened by cli_out_open and closed by cli_out_close, options named
 * by their flags, progress lines on stderr (a command clears .progress unless stderr is a
 * terminal). */
th_cmd_io cli_io(void);

/* Prints "themis: <msg>" on stderr and returns the exit status for err->code. */
int cli_fail(const th_error *err);

/* Prefixes err's message with "PATH: " (stdin for "-"; nothing when path is NULL, the built-in
 * default), for an error a file caused that the library could not name; returns err->code. */
int cli_blame(th_error *err, const char *path);

/* Prints the version of themis and of the libraries it is built with (--version, -V). */
void cli_version(void);

/* Prints "themis <cmd>: <msg> (see 'themis <cmd> --help')" and returns CLI_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Parses a whole decimal integer in [lo, hi]; 0 on success. */
int cli_parse_int(const char *s, long long lo, long long hi, long long *out);
/* --batch B (train, optimize): a number in (0, 1e9]; else a usage error naming cmd. */
int cli_parse_batch(const char *cmd, const char *arg, double *batch);

/* -f NAME into a th_format: one of those whose bit (1 << TH_FORMAT_*) is set in `allowed`; a
 * usage error naming them otherwise. */
int cli_parse_format(const char *cmd, const char *arg, unsigned allowed, th_format *format);
/* Every format: table, json, csv, jsonl. */
#define CLI_FORMATS_ALL 0xfu
/* -p NAME|all into th_policy, -1 for all: the first n policies (enum order) are taken; a usage
 * error naming them otherwise (a later one "applies to training only"). */
int cli_parse_policy(const char *cmd, const char *arg, int n, int *policy);
/* -q fifo|scf|all into th_intra, -1 for all; a usage error otherwise. */
int cli_parse_intra(const char *cmd, const char *arg, int *intra);

/* Opens an output through th_output_open (flags TH_OUTPUT_*) and registers it so that
 * SIGINT, SIGTERM, SIGHUP or SIGPIPE remove its temporary file before the process dies. */
int cli_out_open(th_output *o, const char *path, int flags, th_error *err);
/* Commits the output when rc is TH_OK (returning the commit's status), otherwise removes it
 * and returns rc unchanged (err keeps the first error). */
int cli_out_close(th_output *o, int rc, th_error *err);

/* The system of -s PATH with its "run" defaults, or the built-in default (no defaults) when
 * path is NULL. */
int cli_load_system(const char *path, th_system *sys, th_run_defaults *def, th_error *err);

int cli_run(int argc, char **argv);
int cli_sweep(int argc, char **argv);
int cli_merge(int argc, char **argv);
int cli_import_astra(int argc, char **argv);
int cli_train(int argc, char **argv);

/* `import-astra --workload` on ASTRA-sim 1.0 text workloads (train_astra1.c,
 * astra1_workload.c). */
typedef struct cli_a1_opts {
    th_a1_scale scale; /* --comm-scale, --compute-scale (1 when not given) */
    int passes;        /* --passes; 0 = not given */
    int given;         /* one of them was given */
} cli_a1_opts;
/* Parses --comm-scale (which 0), --compute-scale (1) or --passes (2); a usage error if bad. */
int cli_a1_option(const char *cmd, int which, const char *arg, cli_a1_opts *a);
/* Prints each line of notes as "themis: note: LINE" on stderr. */
void cli_print_notes(const th_buf *notes);
/* `themis import-astra --workload FILE.txt`. */
int cli_import_astra_workload(int argc, char **argv);
int cli_summarize(int argc, char **argv);
int cli_optimize(int argc, char **argv);
int cli_plot(int argc, char **argv);
/* The outputs of a command's plot (themis plot, calibrate --plot) opened and closed by
 * cli_out_open and cli_out_close, so a signal removes their temporary files. */
extern const th_plot_outputs cli_plot_outputs;
int cli_calibrate(int argc, char **argv);

#endif

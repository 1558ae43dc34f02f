/* The command-line front end: the only code that prints to the user or chooses an exit
 * status. main.c dispatches, cli.c holds the shared helpers, each other file one command. */
#ifndef THEMIS_CLI_H
#define THEMIS_CLI_H

#include <stdio.h>

#include "../cmd/cmd.h"
#include "themis/astra.h"
#include "themis/astra1.h"
#include "themis/astra1_workload.h"
#include "themis/buf.h"
#include "themis/collist.h"
#include "themis/csv.h"
#include "themis/num.h"
#include "themis/output.h"
#include "themis/plot.h"
#include "themis/sha256.h"
#include "themis/str.h"
#include "themis/text.h"
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

/* Prints the version of themis and of the libraries it is built with (--version, -V). */
void cli_version(void);

/* Prints "themis <cmd>: <msg> (see 'themis <cmd> --help')" and returns CLI_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Opens an output through th_output_open (flags TH_OUTPUT_*) and registers it so that
 * SIGINT, SIGTERM, SIGHUP or SIGPIPE remove its temporary file before the process dies. */
int cli_out_open(th_output *o, const char *path, int flags, th_error *err);
/* Commits the output when rc is TH_OK (returning the commit's status), otherwise removes it
 * and returns rc unchanged (err keeps the first error). */
int cli_out_close(th_output *o, int rc, th_error *err);

int cli_run(int argc, char **argv);
int cli_sweep(int argc, char **argv);
int cli_merge(int argc, char **argv);
/* The option tables of the commands the API lacks (their requests are the front end's). */
extern const th_cmd_def cli_merge_def, cli_summarize_def, cli_import_astra_def,
    cli_import_astra_workload_def;
int cli_import_astra(int argc, char **argv);
int cli_train(int argc, char **argv);
int cli_export_chakra(int argc, char **argv);

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

/* CLI_OK, or a usage error when two of the n file arguments are both "-": standard input can
 * be read only once (names: how the message names each, such as "the workload" or "-s"). */
int cli_stdin_once(const char *cmd, const char *const *paths, const char *const *names, int n);

#endif

/* The command layer: for each command, the request value both front ends fill (the command
 * line from argv, the API from JSON, through the same option table) and the one function that
 * does the command's defaults, checks, work and report. Whatever a front end gives, the same
 * request makes the same bytes. */
#ifndef THEMIS_CMD_H
#define THEMIS_CMD_H

#include <stdint.h>
#include <stdio.h>

#include "cmd_option.h"
#include "themis/buf.h"
#include "themis/output.h"
#include "themis/plot.h"
#include "themis/report.h"
#include "themis/run.h"
#include "themis/sweep.h"

/* Options several commands share, so that they read and print the same everywhere (off: the
 * field's offset in the request). */
/* clang-format off */
#define TH_ARG_SYSTEM_OPT(off, text) \
    {'s', "system", "system", TH_ARG_SOURCE, off, "FILE", .help = text, .noun = "system"}
#define TH_ARG_COLLECTIVE_OPT(off, text) \
    {'c', "collective", "collective", TH_ARG_CHOICE, off, "TYPE", .help = text, \
     .noun = "collective", .choices = th_coll_type_names}
#define TH_ARG_POLICY_OPT(off, text) \
    {'p', "policy", "policy", TH_ARG_CHOICE, off, "P", .help = text, .noun = "policy", \
     .choices = th_policy_names, .allowed = (1u << (TH_POLICY_LAST_SINGLE + 1)) - 1, \
     .flags = TH_ARG_ALL, .beyond = "applies to training only (themis train); expected {}"}
#define TH_ARG_FORMAT_OPT(off, allowed_, text) \
    {'f', "format", NULL, TH_ARG_CHOICE, off, "F", .help = text, .noun = "format", \
     .choices = th_format_names, .allowed = allowed_, \
     .beyond = "does not apply here (expected {})"}
#define TH_ARG_OUTPUT_OPT(off) \
    {'o', "output", NULL, TH_ARG_STRING, off, "FILE", \
     .help = "write results to FILE ('-' = stdout, the default)"}
#define TH_ARG_HELP_OPTS \
    {'h', "help", .kind = TH_ARG_HELP, .help = "this text"}, \
    {'V', "version", .kind = TH_ARG_VERSION, .help = "print the version"}
/* clang-format on */

/* The commands' option tables, in `themis --help` order. */
extern const th_cmd_def th_cmd_run_def;
extern const th_cmd_def th_cmd_optimize_def;
extern const th_cmd_def th_cmd_train_def;
extern const th_cmd_def th_cmd_calibrate_def;
extern const th_cmd_def th_cmd_plot_def;
extern const th_cmd_def th_cmd_sweep_def;
extern const th_cmd_def th_cmd_search_def;
extern const th_cmd_def th_cmd_export_chakra_def;

/* Where a command's reports go: `stream` takes the report when the request names no output
 * (the API's result); otherwise outputs are opened and closed through `files` (the command
 * line's keep a list for its signal handler; NULL: th_output_open and commit as they are). */
typedef struct th_cmd_io {
    FILE *stream;
    const th_plot_outputs *files;
    int argv; /* messages name options as the command line does (-c, --cost), else by key */
    /* a line of progress (the command line shows it on a terminal); NULL: the line is done */
    void (*progress)(const char *line);
    /* notes ("note") and warnings ("warning") on what a command did with its input, one per
     * line (NULL: dropped) */
    void (*notes)(const char *kind, const th_buf *lines);
    /* where a report goes when the output it comes with is on stdout (the command line's
     * stderr); NULL: nowhere */
    FILE *aside;
    /* asked now and then while train and optimize compute (th_train_opts.poll); non-zero ends
     * them ("interrupted"). The API's caller's callback, for an embedder that sees Ctrl-C only
     * while its own code runs (Python); NULL: none */
    int (*poll)(void *ctx);
    void *poll_ctx;
} th_cmd_io;

/* How messages name an option of def (its key or long name): "-c" or "--cost" for the command
 * line (io->argv), "collective" or "cost" for the API; into buf (n bytes), returned. */
const char *th_cmd_name(const th_cmd_def *def, const th_cmd_io *io, const char *name, char *buf,
                        size_t n);

/* A request whose options do not go together: TH_EINPUT "<cmd>: <message>", and on the command
 * line " (see 'themis <cmd> --help')" after it, as its other usage errors. */
int th_cmd_usage(th_error *err, const th_cmd_def *def, const th_cmd_io *io, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Opens a report's destination: io->stream when path is NULL and there is one, else path
 * (NULL: "-", stdout) through io->files; force replaces an existing file. */
int th_cmd_out_open(const th_cmd_io *io, const char *path, int force, th_output *o, th_error *err);
/* Commits (rc TH_OK) or removes what th_cmd_out_open opened; returns rc or the commit's error. */
int th_cmd_out_close(const th_cmd_io *io, th_output *o, int rc, th_error *err);

/* A system from a file, an object's text (from JSON), or the built-in default (neither);
 * *who is what an error the system causes later is blamed on (NULL for the default). */
int th_cmd_load_system(const th_arg_src *s, th_system *sys, th_run_defaults *def, const char **who,
                       th_error *err);
/* Prefixes err's message with "WHO: " ("<stdin>" for "-"; nothing when who is NULL); returns
 * err->code. */
int th_cmd_blame(th_error *err, const char *who);

/* `themis run`: one collective on one system under each asked policy pair. */
typedef struct th_run_request {
    th_arg_src system;  /* -s: a system file (or, from JSON, object); none: default-3d */
    int collective;     /* -c: a th_coll_type */
    double size;        /* -b: bytes */
    int64_t chunks;     /* -n */
    int policy, intra;  /* -p, -q: -1 = all */
    th_arg_src dims;    /* --dims "0,2"; none: every dim */
    int load_model;     /* --load-model: a th_load_model */
    int format;         /* -f: a th_format */
    const char *output; /* -o; NULL: io->stream, or stdout */
    const char *trace;  /* --trace: the per-stage trace CSV; NULL: none */
    int force, bound, ideal_lat;
    uint64_t given; /* the options given (th_cmd_run_def order) */
} th_run_request;

/* Zero, then the defaults of every option not given: a system file's "run" object stands in
 * for an absent chunks, policy or intra (th_cmd_run applies that part). */
void th_run_request_init(th_run_request *r);
int th_cmd_run(const th_run_request *r, const th_cmd_io *io, th_error *err);

/* `themis optimize`: the split of a bandwidth budget over the dims that makes one collective, a
 * weighted list of collectives or a workload's iteration fastest, per policy pair; or, with a
 * list of chunk counts, the best count per pair. */
typedef struct th_optimize_request {
    th_arg_src system, workload, collectives; /* -s, -w, -l */
    int collective;                           /* -c */
    double size;                              /* -b */
    int64_t chunks;                           /* -n */
    th_arg_counts counts;                     /* --chunks: one count (-n) or a list */
    int policy, intra;                        /* -p (-1 = all), -q */
    double budget, min_GBps, max_GBps;        /* 0: the defaults */
    th_arg_src cost, dims;                    /* "1,1,2", "0,2" */
    int64_t max_evals;                        /* 0: the default */
    int objective;                            /* a th_opt_objective */
    double batch;                             /* -w: samples per NPU; 0: the workload's */
    int priority;                             /* -w: a th_priority */
    int format;                               /* table, json or csv */
    const char *output, *trace;
    int force;
    uint64_t given;
} th_optimize_request;

void th_optimize_request_init(th_optimize_request *r);
int th_cmd_optimize(const th_optimize_request *r, const th_cmd_io *io, th_error *err);

/* `themis train`: a training workload replayed on a system under each asked policy pair (and
 * the ideal network); a workload of another format (told by content, workload_format.h)
 * converted for that replay, or replayed by the format's own under the model that has one. */
typedef struct th_train_request {
    th_arg_src workload, system; /* the operand (required), -s */
    int policy, intra;           /* -1 = all */
    int priority;                /* a th_priority */
    int64_t iterations, chunks;  /* chunks 0: the workload's */
    double batch;                /* 0: the workload's */
    int chunking;                /* a th_chunking, when given */
    double bucket;               /* DDP buckets: bytes; -1 none; 0 the workload's */
    int load_model, ideal_lat;
    double comm_scale, compute_scale; /* other formats' (th_wl_scale) */
    int64_t passes;                   /* their own replay's (th_wl_replay); 0: 1 */
    int64_t micro_batch;              /* LLM workloads: 0 the file's */
    int schedule;                     /* LLM workloads: a th_llm_schedule, when given */
    th_arg_src remote_memory;         /* Chakra traces: ASTRA-sim's remote memory JSON */
    const char *comm_group;           /* Chakra traces: a communicator group file, or NULL */
    int format;
    const char *output, *trace;
    int force;
    uint64_t given;
} th_train_request;

void th_train_request_init(th_train_request *r);
int th_cmd_train(const th_train_request *r, const th_cmd_io *io, th_error *err);

/* `themis calibrate`: one dim's latency and bandwidth fitted to nccl-tests / rccl-tests logs,
 * the system file written, the fit reported (and plotted on request). */
typedef struct th_calibrate_request {
    th_arg_list logs;          /* the operands; JSON "logs" */
    int collective, topology;  /* -1: the log's; none (with -s) */
    int algorithm;             /* -1: the topology's */
    int64_t npus, dim;         /* 0: the log's ranks; -1: 0 when -s has one dim */
    const char *name, *system; /* a new system's name; -s: the system to update */
    int efficiency, in_place, allow_wrong;
    double bw, min_size, max_size, tolerance;
    const char *plot, *output;    /* output NULL: no system file (the API's) */
    int force, format;            /* the report: table or json */
    int64_t npus_per_node;        /* > 0: a node dim and a network dim (th_cal_run_nodes) */
    double node_bw, node_latency; /* the node dim held at these without a single-node log */
    uint64_t given;
} th_calibrate_request;

void th_calibrate_request_init(th_calibrate_request *r);
int th_cmd_calibrate(const th_calibrate_request *r, const th_cmd_io *io, th_error *err);

/* `themis plot`: two columns of a CSV as lines grouped by other columns, drawn by gnuplot. */
typedef struct th_plot_request {
    const char *csv;           /* the operand; JSON "csv" (required) */
    const char *x, *y, *title; /* x and y required */
    th_arg_src by;             /* "a,b" */
    th_arg_pairs where;        /* COLUMN=VALUE filters */
    int logx, logy, force;
    const char *output; /* the image (required, a file) */
    uint64_t given;
} th_plot_request;

void th_plot_request_init(th_plot_request *r);
/* Draws the plot; with io->stream (the API), writes {"output", "rows", "series"} there. */
int th_cmd_plot(const th_plot_request *r, const th_cmd_io *io, th_error *err);

/* `themis sweep`: every point of a spec. The command line writes the rows to a file (resume,
 * sidecar, progress: src/cli/sweep.c); th_cmd_sweep_rows hands them to a callback. */
typedef struct th_sweep_request {
    th_arg_src spec;      /* the operand: a file (or, from JSON, an object) */
    const char *output;   /* -o; NULL: the spec's "output" */
    int format;           /* csv or jsonl */
    int64_t jobs;         /* threads; 0: every core */
    const char *shard;    /* "K/N"; NULL: every point */
    const char *base_dir; /* where an object spec's relative paths start; NULL: "." */
    int resume, force, dry_run, quiet;
    uint64_t given;
} th_sweep_request;

void th_sweep_request_init(th_sweep_request *r);
/* The spec of r loaded (a file or an object) with its format set, and its shard. */
int th_cmd_sweep_load(const th_sweep_request *r, th_sweep **sw, th_shard *shard, th_error *err);
/* Every point of r's spec: the header then each row to row(ctx, nfields, fields) as the CSV
 * records' fields (returning non-zero stops), then {"name", "points", "rows"} to out. */
typedef int (*th_cmd_row_fn)(void *ctx, size_t nfields, const char *const *fields);
int th_cmd_sweep_rows(const th_sweep_request *r, th_cmd_row_fn row, void *ctx, FILE *out,
                      th_error *err);

/* `themis search`: every valid execution of an LLM (a model file, or an LLM workload whose
 * execution gives the settings the search does not vary and the keys --fix keeps) on all NPUs
 * of a system, the ones that fit in memory, and the best K by iteration time per policy pair. */
typedef struct th_search_request {
    th_arg_src model, system; /* the operand (required), -s (required) */
    int policy, intra;        /* -1 = all */
    int64_t global_batch;     /* 0: the workload's */
    int64_t top;              /* K */
    int64_t npus;             /* tp * pp * dp; 0: all the system's */
    th_arg_src fix;           /* "tp,pp" */
    int format;
    const char *output;
    int force;
    uint64_t given;
} th_search_request;

void th_search_request_init(th_search_request *r);
int th_cmd_search(const th_search_request *r, const th_cmd_io *io, th_error *err);
/* `themis export-chakra`: a workload on a system written as a Chakra execution trace, one file
 * per NPU, and what was written reported. */
typedef struct th_export_chakra_request {
    th_arg_src workload, system;      /* the operand (required), -s */
    const char *output;               /* -o PREFIX (required): PREFIX.<rank>.et */
    int64_t iterations;               /* iterations in the trace (1) */
    double batch;                     /* 0: the workload's */
    double bucket;                    /* DDP buckets: bytes; -1 none; 0 the workload's */
    double comm_scale, compute_scale; /* other formats' (th_wl_scale) */
    int format;                       /* the report: table or json */
    int force;
    uint64_t given;
} th_export_chakra_request;

void th_export_chakra_request_init(th_export_chakra_request *r);
int th_cmd_export_chakra(const th_export_chakra_request *r, const th_cmd_io *io, th_error *err);

#endif

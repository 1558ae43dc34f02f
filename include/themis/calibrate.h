/* Calibration from measured runs: reading the results of nccl-tests and rccl-tests (their text
 * output, and the JSON file of nccl-tests -J), fitting the alpha-beta parameters of one dim
 * (latency_ns, bw_GBps, optionally efficiency; SPEC §3) to the measured times by weighted least
 * squares, and writing them into a system file (docs/CALIBRATE.md). */
#ifndef THEMIS_CALIBRATE_H
#define THEMIS_CALIBRATE_H

#include <stddef.h>
#include <stdio.h>

#include "themis/error.h"
#include "themis/export.h"
#include "themis/schedule.h"
#include "themis/system.h"

/* One result row of a log: one message size. */
typedef struct th_cal_row {
    int line;          /* line of the log (text), or index in "results" (JSON) */
    double size;       /* the size column, bytes: SPEC §4's S (AR buffer, RS input, AG output) */
    double time_us[2]; /* [0] out-of-place, [1] in-place, microseconds; < 0 when absent */
    double wrong[2];   /* #wrong of each (old logs: the max error); < 0 when not checked */
    double algbw;      /* out-of-place (else in-place) algbw, GB/s */
    double busbw;      /* the same row's busbw, GB/s */
} th_cal_row;

/* A parsed log. */
typedef struct th_cal_log {
    char source[256];  /* file name used in messages */
    char program[64];  /* e.g. "all_reduce_perf"; "" when the log does not name it */
    int coll;          /* th_coll_type named by the program, -1 when unknown */
    int json;          /* 1: read from nccl-tests -J JSON; 0: text output */
    int max_error;     /* 1: rows' wrong[] is the old `error` column (the largest numerical
                        * error), checked against th_cal_error_bound; 0: a count (#wrong) */
    char prefix[32];   /* the launcher's line prefix stripped ("[1,0]<stdout>:", "0: "), or "" */
    int nranks;        /* ranks of the first group listed under "# Using devices"; 0 if none */
    int nrows;         /* rows below */
    th_cal_row *rows;  /* in log order */
    int cycles;        /* size sweeps in the log (nccl-tests -N, rccl-tests stress cycles) */
    int rows_zero;     /* rows of size 0 (sizes trimmed to nothing): kept out of rows */
    int has_time[2];   /* out-of-place / in-place times present */
    char type[16];     /* data type of every row, e.g. "float" */
    char redop[16];    /* reduction op of every row, "none" for all_gather and alltoall */
    double first_size; /* size of the first row (0 included), bytes: where a cycle starts */
    double last_size;  /* size of the last row read, bytes */
    int below;         /* set by the caller: the run spans the fitted dim and this many held dims
                        * below it (th_cal_opts.below), e.g. 1 for a 2-node x 8-GPU log */
    size_t cap;        /* rows allocated */
} th_cal_log;

/* Reads a log file ("-" = stdin) or text; the format (text or JSON) is told by the first byte
 * that is not white space ('{' = JSON). Errors name the source and line: a foreign file (no
 * results table header), a truncated table (a row cut short, or no footer after the rows), no
 * result rows, a size that goes backwards other than to start a new cycle, several data types
 * or reduction ops in one log. */
TH_API int th_cal_log_read(const char *path, th_cal_log *log, th_error *err);
TH_API int th_cal_log_parse(const char *text, size_t len, const char *source, th_cal_log *log,
                            th_error *err);
TH_API void th_cal_log_free(th_cal_log *log);

/* The largest numerical error an old log's `error` column may show for a data type and still
 * count as correct: 1e-2 for the 16-bit floats, 1e-5 for float, 1e-12 for double, 0 for the
 * integers (exact); 1e-5 for a type not named here. */
TH_API double th_cal_error_bound(const char *type);

/* Maps a test program's name (all_reduce_perf, reduce_scatter_perf_mpi, ...) to a collective;
 * -1 for one themis does not model (broadcast_perf, sendrecv_perf, ...) or an unknown name. */
TH_API int th_cal_program_coll(const char *program);

/* The collective of the log: `given` (a th_coll_type, or -1) must agree with the program the
 * log names; without either, it is told from the busbw / algbw ratio of the row with the
 * largest busbw (2(n-1)/n for All-Reduce, (n-1)/n otherwise; n = npus) and the redop column
 * (none for All-Gather and All-to-All, which then stay ambiguous: an error asking for -c). */
TH_API int th_cal_collective(const th_cal_log *log, int given, int npus, th_coll_type *coll,
                             th_error *err);

/* What to fit and how. */
typedef struct th_cal_opts {
    int in_place;        /* 1: fit the in-place times; 0: out-of-place (the default) */
    double min_size;     /* rows below this size (bytes) are not fitted; 0 = none */
    double max_size;     /* rows above this size are not fitted; 0 = no limit */
    double tolerance;    /* a fitted row whose |relative residual| exceeds this is flagged */
    int allow_wrong;     /* 1: rows with #wrong > 0 are fitted (a warning); 0: an error */
    double reduce_bw;    /* the system's reduction throughput, bytes per ns; 0 = free */
    const th_dim *below; /* the dims below the fitted one, held at their values (latency, bw):
                          * a log with below = n ran over below[0 .. n-1] and the fitted dim */
} th_cal_opts;

/* One row after the fit. */
typedef struct th_cal_point {
    int log;         /* index of its log */
    int line;        /* the log's line (JSON: index in "results") */
    double size;     /* bytes */
    double time_ns;  /* measured */
    double fit_ns;   /* the fitted model's time */
    double below_ns; /* of which the held dims below take (0 for a run on the fitted dim alone) */
    double scale;    /* the share of the size the fitted dim sees: 1 / (NPUs of the held dims) */
    double rel;      /* (measured - fitted) / measured */
    int used;        /* 1: in the fit; 0: outside min_size .. max_size */
    int flagged;     /* 1: used and |rel| > tolerance */
    int held_out;    /* 1: left out of the hold-out fit (th_cal_held) */
    double held_ns;  /* held_out: the time the hold-out fit predicts */
} th_cal_point;

/* How well the fit predicts sizes it did not see, per log: every other fitted row (the 2nd,
 * 4th, ... of the log) held out, the line refitted to the others, and its relative error
 * (measured - predicted) / measured on the held-out rows. n = 0: too few rows to hold any out. */
typedef struct th_cal_held {
    int n;          /* rows held out */
    double max_rel; /* the largest |relative error| among them */
    double rms_rel; /* their root mean square */
} th_cal_held;

/* The fit. For a collective c of size m on one dim of p NPUs (one chunk, SPEC §3-§4):
 *   time = k_c L alpha + k_c m (p-1)/p / B + [c = RS, AR] m (p-1)/p / reduce_bw,
 * k_c = 2 for All-Reduce (an RS and an AG stage), 1 otherwise; L the dim's hops (SPEC §3). A
 * log over held dims below the fitted one (log->below) adds their known time and shrinks m by
 * their NPUs, as one chunk in the baseline order runs (dim i sees m / (NPUs of dims < i)). This
 * is linear in alpha and 1/B, fitted over the used rows of every log by least squares weighted
 * by 1 / time^2: relative errors count alike at every size (sizes span decades, so plain least
 * squares would fit the largest sizes only and leave the latency to their noise). */
typedef struct th_cal_fit {
    double alpha_ns;           /* latency of one link hop, ns (>= 0; 0 when clamped) */
    double bw;                 /* effective bandwidth B, bytes per ns (= GB/s) */
    double alpha_sd;           /* standard error of alpha, ns (0 with two rows) */
    double bw_sd;              /* standard error of B, bytes per ns (first order) */
    int clamped;               /* 1: the free fit gave alpha < 0, so alpha = 0 and B was refitted */
    double r2;                 /* weighted R^2 (1 = every used row on the model) */
    double rms_rel;            /* root mean square of the used rows' relative residuals */
    int nused, nflagged;       /* used and flagged rows */
    int nwrong;                /* rows with #wrong > 0 (fitted only with allow_wrong) */
    int wrong_log, wrong_line; /* the first such row */
    double min_used, max_used; /* the fitted size range (the used rows' sizes), bytes */
    int npoints;               /* every point below */
    th_cal_point *points;      /* one per row with the chosen time, logs in order */
    th_cal_held *held;         /* one per log: the error on held-out sizes */
} th_cal_fit;

/* Fits alpha and B of `dim` (topology, algorithm and npus are read) to the rows of nlogs logs,
 * log i measuring collective colls[i]. Errors: the chosen time column absent, #wrong > 0
 * without allow_wrong (naming the line), fewer than two distinct used sizes, L = 0 (p = 1), a
 * time that does not grow with size (1/B <= 0). */
TH_API int th_cal_fit_logs(const th_cal_log *logs, const th_coll_type *colls, int nlogs,
                           const th_dim *dim, const th_cal_opts *opts, th_cal_fit *fit,
                           th_error *err);
TH_API void th_cal_fit_free(th_cal_fit *fit);

/* Writes the fit into dim: latency = alpha; with fit_efficiency, dim->bw_GBps is kept (the
 * nominal bandwidth, > 0) and efficiency = B / bw_GBps, which must be <= 1; otherwise
 * bw_GBps = B and efficiency = 1. */
TH_API int th_cal_dim_apply(const th_cal_fit *fit, int fit_efficiency, th_dim *dim, th_error *err);

/* The text of a new system file with the one dim `dim` (its name, topology, algorithm, npus,
 * latency, bw_GBps, and efficiency when not 1); "name" only when name is not NULL (a system
 * without one is named after its file), "description" when not NULL. The caller frees *out. */
TH_API int th_cal_system_new(const char *name, const char *description, const th_dim *dim,
                             char **out, th_error *err);

/* Reads a system file once ("-" = stdin): its text (*text, caller frees; *len) and the
 * validated system. */
TH_API int th_cal_system_read(const char *path, char **text, size_t *len, th_system *sys,
                              th_error *err);

/* The text of the system file `json` (from `source`) with dims[k]'s latency_ns, bw_GBps and
 * efficiency replaced by those of `dim` (efficiency written only when it is not 1, and removed
 * when it is 1), every other key kept. The result is loaded back and validated. */
TH_API int th_cal_system_update(const char *json, size_t len, const char *source, int k,
                                const th_dim *dim, char **out, th_error *err);

/* One calibration, as `themis calibrate` asks for it. */
#define TH_CAL_MAX_LOGS 64
typedef struct th_cal_request {
    const char *const *logs; /* nlogs log files ("-" = stdin) */
    int nlogs;
    int coll;           /* a th_coll_type, or -1: the one each log names */
    const char *system; /* -s: update a dim of this system file; NULL: a new one-dim system */
    int dim;            /* -s's dim, -1: 0 when the system has one dim */
    int topology;       /* a new system's th_topology (-1 with -s) */
    int algorithm;      /* its th_algorithm, -1: the topology's default */
    long long npus;     /* its NPUs, 0: the ranks the first log lists */
    const char *name;   /* its name, NULL: none (named after its file) */
    int efficiency;     /* fit the efficiency against the nominal bandwidth */
    double bw;          /* a new system's nominal bandwidth, GB/s (with efficiency), else 0 */
    th_cal_opts fit;
    const char *system_text; /* -s's content when not NULL (system then only names it) */
    long long npus_per_node; /* > 0: a node dim and a network dim (th_cal_run_nodes) */
    double node_bw;          /* the node dim's bandwidth to hold it at without a single-node
                              * log, GB/s (0: none) */
    double node_latency;     /* and its latency, ns */
} th_cal_request;

/* What it found. */
typedef struct th_cal_result {
    th_cal_log *logs;    /* nlogs logs read */
    th_coll_type *colls; /* the collective of each */
    int nlogs;
    int dim;                   /* the dim of -s updated */
    th_dim before;             /* the dim as it was (a new one: its NPUs filled in) */
    th_dim fitted;             /* the dim with the fit applied */
    th_dim below[TH_MAX_DIMS]; /* -s's dims before the fitted one, held at the file's values
                                * for logs run over them too (th_cal_log.below) */
    int nbelow;                /* those dims (the fitted dim's index with -s, else 0) */
    th_cal_fit fit;
    char *text; /* -s's text */
    size_t len;
    char *out; /* the system file written (new, or -s updated), NUL-terminated */
} th_cal_result;

/* calibrate --npus-per-node N: a system of two dims, dim 0 "node" (N NPUs) and dim 1
 * "network" (one NPU per node), both of q->topology. Logs on N ranks are single-node logs: they
 * fit dim 0 (stage 0). Logs on a multiple of N ranks are multi-node logs: they fit dim 1 with
 * dim 0 held at stage 0's fit, or without a single-node log at node_bw and node_latency, which
 * are then assumed, not measured (stage 1). Each stage is an ordinary th_cal_run of -s and
 * --dim on the system made so far. */
typedef struct th_cal_nodes {
    th_cal_request q[2]; /* the stages' requests */
    th_cal_result r[2];  /* their results; ran[k] = 0: stage k did not run */
    int ran[2];
    const char *inner[TH_CAL_MAX_LOGS], *outer[TH_CAL_MAX_LOGS]; /* the logs of each stage */
    int ninner, nouter;
    long long nodes; /* the network dim's NPUs: the multi-node logs' ranks / N */
    char *text;      /* the two-dim system the stages start from; r[1].out is the one written */
} th_cal_nodes;
TH_API int th_cal_run_nodes(const th_cal_request *q, th_cal_nodes *n, th_error *err);
TH_API void th_cal_nodes_free(th_cal_nodes *n);
/* Its report as JSON: npus_per_node, nodes, stages (each stage's th_cal_report_json document),
 * determined (node, network: "measured", or "assumed" and "given the node's assumed values"
 * without a single-node log) and the system written. */
TH_API int th_cal_nodes_report_json(FILE *out, long long per, const th_cal_nodes *n, th_error *err);

/* The report's JSON document (th_cal_report_json's), NULL when memory ran out. */
struct cJSON;
struct cJSON *th_cal_report_tree(const th_cal_request *q, const th_cal_result *r);

/* The combinations of options a request may not make (as messages naming the options). */
TH_API int th_cal_request_check(const th_cal_request *q, th_error *err);

/* th_output_check of the outputs (the system written, the plot: NULL or "-" skipped) against
 * q's inputs (its logs and its system); q has passed th_cal_request_check (at most
 * TH_CAL_MAX_LOGS logs). */
TH_API int th_cal_output_check(const th_cal_request *q, const char *const *outputs, int noutputs,
                               th_error *err);

/* Checks q, reads the system and the logs, fits and makes the system file's text. The
 * result is filled as far as it got: free it with th_cal_result_free either way. */
TH_API int th_cal_run(const th_cal_request *q, th_cal_result *r, th_error *err);
TH_API void th_cal_result_free(th_cal_result *r);

/* The report as JSON (calibrate -f json): dim, logs, fit, was (with -s), points (every row:
 * log, line, size, measured_us, fitted_us, residual, fitted, flagged) and the system. */
TH_API int th_cal_report_json(FILE *out, const th_cal_request *q, const th_cal_result *r,
                              th_error *err);

/* calibrate --plot: each log's measured times (the fitted rows, the others) and the model's at
 * every row against the size, log-log, drawn into output (.png, .pdf, .svg) by th_plot_draw. */
struct th_plot_outputs;
TH_API int th_cal_plot(const char *output, int force, const th_cal_result *r,
                       const struct th_plot_outputs *io, th_error *err);

#endif

/* ASTRA-sim 1.0 text workloads: the parser (told from our JSON workloads by content), the
 * conversion to our workload format, and the replay of ASTRA-sim 1.0's workload state machine
 * (workload/Workload.cc, Layer.cc) over the emulator, several collectives in flight sharing
 * the dims' queues (docs/WORKLOADS.md, "ASTRA-sim 1.0 text workloads"). */
#ifndef THEMIS_ASTRA1_WORKLOAD_H
#define THEMIS_ASTRA1_WORKLOAD_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "themis/buf.h"
#include "themis/emulate.h"
#include "themis/report.h"
#include "themis/run.h"
#include "themis/workload.h"

/* The parallelisms themis replays (the header line's keyword). */
typedef enum {
    TH_A1_DATA,                  /* weight-gradient collectives over every dim */
    TH_A1_MODEL,                 /* forward and input-gradient collectives over every dim */
    TH_A1_HYBRID_DATA_MODEL,     /* model: dim 0; data: the other dims */
    TH_A1_HYBRID_MODEL_DATA,     /* data: dim 0; model: the other dims */
    TH_A1_HYBRID_TRANSFORMER,    /* model: the inner dims holding model_parallel_NPU_group NPUs */
    TH_A1_HYBRID_DLRM,           /* DATA, and layer 0's All-to-Alls over every dim first */
    TH_A1_MICRO,                 /* layer 0's weight-gradient collective, once per pass */
    TH_A1_HYBRID_DLRM_ENHANCED,  /* HYBRID_DLRM whose weight gradients wait for no All-to-All */
    TH_A1_DISTRIBUTED_INFERENCE, /* forwards only, their collectives over every dim */
    TH_A1_HYBRID_CUSTOMIZED,     /* the hybrids' loop, each layer's dims by its own keyword */
    TH_A1_HYBRID_TRANSFORMER_FWD_IN_BCKWD, /* HYBRID_TRANSFORMER recomputing forwards from
                                              checkpoints in the backward pass */
} th_a1_parallelism;
#define TH_A1_PARALLELISMS 11

extern const char *const th_a1_parallelism_names[]; /* the keywords, NULL-terminated */

#define TH_A1_NONE (-1) /* th_a1_phase.type of a phase without a collective */

typedef struct th_a1_phase {
    double cycles; /* compute, cycles (1 cycle = 1 ns); an integer */
    int type;      /* th_coll_type, or TH_A1_NONE */
    double size;   /* collective bytes, an integer */
} th_a1_phase;

typedef struct th_a1_layer {
    char name[TH_NAME_MAX];
    int line;                   /* its line in the file */
    double update;              /* cycles a finished collective of the layer still takes */
    th_a1_parallelism par;      /* HYBRID_CUSTOMIZED: the layer's own (13th field) */
    int checkpoint, initiates;  /* FWD_IN_BCKWD: a checkpoint; its IG starts a recomputation */
    th_a1_phase ph[TH_NPHASES]; /* forward, input gradient, weight gradient (th_phase) */
} th_a1_layer;

typedef struct th_a1_workload {
    char name[TH_NAME_MAX]; /* the file's base name */
    th_a1_parallelism par;
    int line;        /* the parallelism line's number */
    int64_t group;   /* HYBRID_TRANSFORMER(_FWD_IN_BCKWD): model_parallel_NPU_group (>= 1) */
    int last_bottom; /* HYBRID_DLRM(_ENHANCED): the last bottom-MLP layer K (0 .. nlayers-1) */
    th_a1_layer *layers;
    int nlayers;
} th_a1_workload;

/* Is this a 1.0 text workload rather than our JSON (whose first non-blank byte is '{')? */
int th_a1_is_text(const char *text, size_t len);

/* Parses a text workload; every error names source:line, the field and what was expected. */
int th_a1_parse(const char *text, size_t len, const char *source, th_a1_workload **out,
                th_error *err);
void th_a1_free(th_a1_workload *wl);

/* Reads a workload file ("-" = stdin) and parses it by content: our JSON into *json, a 1.0
 * text workload into *text; the other is NULL. */
int th_a1_load(const char *path, th_a1_workload **text, th_workload **json, th_error *err);

/* ASTRA-sim's --comm-scale and --compute-scale, and whose behaviour to follow. */
typedef struct th_a1_scale {
    double comm;    /* multiplies every collective size (> 0) */
    double compute; /* multiplies every compute time (> 0) */
    int tag;        /* 1: the tutorial-asplos2023 tag (scales held as float), 0: the branch */
} th_a1_scale;

/* A scaled size or compute time as ASTRA-sim computes it: the product truncated to an integer,
 * in double on the branch, in float on the tag. */
double th_a1_scaled(double v, double scale, int tag);

/* Does the state machine issue layer `layer`'s collective of `phase` (when it has a type)?
 * The others are read and never issued. */
int th_a1_issues(const th_a1_workload *wl, int layer, th_phase phase);

/* Is the parallelism one of HYBRID_TRANSFORMER's two? */
static inline int th_a1_transformer(th_a1_parallelism p) {
    return p == TH_A1_HYBRID_TRANSFORMER || p == TH_A1_HYBRID_TRANSFORMER_FWD_IN_BCKWD;
}

/* Is the parallelism one of HYBRID_DLRM's two? */
static inline int th_a1_dlrm(th_a1_parallelism p) {
    return p == TH_A1_HYBRID_DLRM || p == TH_A1_HYBRID_DLRM_ENHANCED;
}

/* The dims (bit mask over sys's dims) of `phase`'s collective of layer `layer` under the
 * workload's parallelism; HYBRID_TRANSFORMER needs the split system of th_a1_split. */
uint32_t th_a1_dims(const th_a1_workload *wl, const th_system *sys, int layer, th_phase phase);

/* HYBRID_TRANSFORMER: the system ASTRA-sim 1.0 builds (Sys::break_dimension): walking the dims
 * with a running product, a dim the model group G splits becomes two dims of G / product and
 * p / (G / product) NPUs with the same links. *split = the index of the split dim (-1 none);
 * *boundary = the last model-parallel dim of the result (-1: none). A group that does not
 * divide the system, or a split Ring dim, is an error naming the file's header. */
int th_a1_split(const th_a1_workload *wl, const th_system *sys, const char *source, th_system *out,
                int *split, int *boundary, th_error *err);

/* Converts to our workload format, our semantics (docs/WORKLOADS.md): what the format cannot
 * say (update delays, DLRM's wait at layer K, a split dim, ...) is dropped or approximated and
 * said in *notes (one sentence per line). sys (may be NULL) gives the dim count that
 * HYBRID_MODEL_DATA and HYBRID_TRANSFORMER need; without it they are errors. */
int th_a1_convert(const th_a1_workload *wl, const th_system *sys, const th_a1_scale *scale,
                  const char *source, th_workload **out, th_buf *notes, th_error *err);

/* The JSON text of a converted workload (our format; caller frees). */
int th_a1_workload_json(const th_workload *wl, char **out, th_error *err);

/* ---- the replay of ASTRA-sim 1.0's state machine ---- */

typedef struct th_a1_replay_opts {
    th_policy policy; /* baseline or themis (the planner's policies) */
    th_intra intra;
    th_load_model model;    /* for the planner */
    int64_t chunks;         /* preferred-dataset-splits: chunks per collective */
    int passes;             /* num-passes, >= 1 */
    int lifo;               /* other models: collectives in flight LIFO (1) or FIFO (0); the
                               1.0 preset follows the system's scheduling_policy */
    th_a1_scale scale;      /* sizes and compute times, the tag's behaviour */
    const atomic_int *stop; /* the replay ends ("interrupted") once non-zero; may be NULL */
} th_a1_replay_opts;

typedef struct th_a1_replay_result {
    double total;     /* the tick NPU 0 reports: every pass done, every collective finished, ns */
    double compute;   /* compute cycles spent, ns */
    double exposed;   /* total - compute, ns */
    double *pass_end; /* the tick each pass ended ("pass: p finished at time"), passes entries */
    int passes;
    int64_t collectives; /* collectives issued on the network */
} th_a1_replay_result;

/* Replays the workload on sys (under the 1.0 preset: ASTRA-sim 1.0's numbers; on another
 * model, the same state machine over that model's costs). Errors name the source's line. */
int th_a1_replay(const th_system *sys, const th_a1_workload *wl, const char *source,
                 const th_a1_replay_opts *opts, th_a1_replay_result *res, th_error *err);
/* The same, calling trace (may be NULL) for every compute as it starts (iteration = pass;
 * recomputed forwards too) and every collective as it ends on the network (start = issue). */
int th_a1_replay_trace(const th_system *sys, const th_a1_workload *wl, const char *source,
                       const th_a1_replay_opts *opts, th_train_trace_fn trace, void *trace_ctx,
                       th_a1_replay_result *res, th_error *err);
void th_a1_replay_result_free(th_a1_replay_result *res);

/* One replayed configuration, as the reports list it. */
typedef struct th_a1_row {
    th_policy policy; /* baseline or themis */
    th_intra intra;
    th_a1_replay_result res;
    double iteration; /* the last pass: its end minus the end of the pass before, ns; NaN
                       * (undefined) with one pass, or under MICRO (every pass ends at 0) */
    double speedup;   /* baseline + fifo total / this total */
} th_a1_row;

typedef struct th_a1_report {
    const th_system *sys;
    const th_a1_workload *wl;
    const th_a1_replay_opts *opts; /* chunks, passes, scales */
    const th_a1_row *rows;
    int nrows;
} th_a1_report;

/* The replay's options as `themis train` and the API set them: chunks (0: the system's
 * run.chunks, TH_EINPUT when it has none), passes (0: 1), the scales (the tag's behaviour from
 * the system's version), the system's LIFO, the alpha-beta load model. */
int th_a1_replay_opts_for(const th_system *sys, const th_run_defaults *def, int64_t chunks,
                          int passes, const th_a1_scale *scale, th_a1_replay_opts *opts,
                          th_error *err);

/* What th_a1_replay_pairs tells as it goes: row(ctx, pair) before each row asked for, then
 * that row's events to trace(ctx, ...) (trace NULL: none). */
typedef struct th_a1_pairs_hooks {
    void (*row)(void *ctx, th_policy policy, th_intra intra);
    th_train_trace_fn trace;
    void *ctx;
} th_a1_pairs_hooks;

/* Replays wl for every pair asked (policy baseline or themis, intra fifo or scf; -1: each)
 * in the order baseline-fifo, baseline-scf, themis-fifo, themis-scf, and baseline + fifo for
 * the speedups when it was not asked: rows[0 .. *nshown) the asked ones, rows[*nshown] the
 * reference when not asked; *nrows rows to free with th_a1_rows_free, whatever the result.
 * opts gives chunks, passes, model, lifo, scales and stop (its pair is overwritten); h may be
 * NULL. TH_EINPUT for a policy the replay does not have. */
int th_a1_replay_pairs(const th_system *sys, const th_a1_workload *wl, const char *source,
                       th_a1_replay_opts *opts, int policy, int intra, const th_a1_pairs_hooks *h,
                       th_a1_row rows[4], int *nrows, int *nshown, th_error *err);
void th_a1_rows_free(th_a1_row *rows, int n);

/* The rows as a table, JSON, CSV or JSON lines (docs/WORKLOADS.md). */
int th_a1_report_write(FILE *out, th_format format, const th_a1_report *rep, th_error *err);

/* One row of the training trace CSV (th_report_train_trace_header's columns), layer names from
 * the text workload; -1 when memory ran out (nothing written). */
int th_a1_report_trace_row(FILE *out, const th_a1_workload *wl, th_policy policy, th_intra intra,
                           const th_train_event *ev);

#endif

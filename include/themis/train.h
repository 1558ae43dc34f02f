/* End-to-end training iterations: a workload's compute stream on one NPU, overlapped with its
 * collectives on the network (the emulator with several collectives in flight, or the ideal
 * network), replayed for a few iterations to reach the steady state. */
#ifndef THEMIS_TRAIN_H
#define THEMIS_TRAIN_H

#include "themis/emulate.h"
#include "themis/export.h"
#include "themis/workload.h"

typedef struct th_train_opts {
    th_policy policy; /* any policy; themis-global shares one tracker, ideal is the ideal network */
    th_intra intra;   /* ignored by the ideal network */
    th_priority priority; /* between collectives in flight */
    th_load_model model;
    int iterations;         /* iterations replayed, >= 2; the last two give the period */
    double batch;           /* samples per NPU; 0 = the workload's */
    int64_t chunks;         /* chunks per collective; 0 = the workload's */
    int chunking_set;       /* 1: `chunking` below; 0: the workload's rule (astra when chunks) */
    th_chunking chunking;   /* the chunking rule when chunking_set */
    double bucket;          /* DDP bucket bytes; 0 = the workload's bucket_bytes, < 0 = none */
    int ideal_latency;      /* the ideal network adds each collective's latency floor */
    const atomic_int *stop; /* the replay ends ("interrupted") once it is non-zero; may be NULL */
    /* When not NULL, asked every few thousand replay events from the calling thread: non-zero
     * ends the replay as stop does. For an embedder whose interrupts are seen only while its own
     * code runs (Python's Ctrl-C, through th_api_call's callback). */
    int (*poll)(void *ctx);
    void *poll_ctx;
} th_train_opts;

/* One collective of the measured iteration. */
typedef struct th_train_coll {
    int layer;       /* a bucket: the layer whose gradient completed it (the lowest) */
    int first_layer; /* a bucket: the layer whose gradient opened it; else = layer */
    int fused;       /* weight gradients fused into it (1 unless a bucket) */
    th_phase phase;
    th_coll_type type;
    double size;   /* bytes */
    uint32_t mask; /* involved dims */
    int blocking;
    double issue, end; /* ns from the measured iteration's start */
} th_train_coll;

typedef struct th_train_result {
    double iteration;     /* steady-state iteration time, ns */
    double compute;       /* compute time of one iteration, ns */
    double exposed;       /* iteration - compute: communication not hidden by compute, ns */
    th_train_coll *colls; /* the measured iteration's collectives, in issue order */
    int ncolls;
} th_train_result;

/* One event of the replay, for the timeline trace. */
typedef struct th_train_event {
    int collective; /* 0: compute, 1: a collective */
    int iteration, layer;
    th_phase phase;
    double start, end; /* ns (collective: issue and end) */
} th_train_event;

typedef void (*th_train_trace_fn)(void *ctx, const th_train_event *ev);

/* The chunking rule and the bucket size (bytes, 0 = none) a replay uses. */
TH_API th_chunking th_train_chunking(const th_workload *wl, const th_train_opts *opts);
TH_API double th_train_bucket(const th_workload *wl, const th_train_opts *opts);

/* Can training run on this system? TH_EINPUT naming the system field ("model: ...") when not
 * (the astra-sim preset models single All-Reduces only); th_train_run checks it too. */
TH_API int th_train_check_system(const th_system *sys, th_error *err);

/* Replays `opts->iterations` iterations. The measured iteration is the one before last: its
 * period runs from the start of its first forward to the start of the next iteration's. */
TH_API int th_train_run(const th_system *sys, const th_workload *wl, const th_train_opts *opts,
                        th_train_trace_fn trace, void *trace_ctx, th_train_result *res,
                        th_error *err);
TH_API void th_train_result_free(th_train_result *res);

/* One evaluated training configuration, as the reports list it. */
typedef struct th_train_row {
    th_policy policy; /* any policy, ideal included */
    th_intra intra;   /* ignored by the ideal network */
    th_train_result res;
    double speedup;      /* baseline+fifo iteration / this iteration */
    double vs_ideal;     /* ideal iteration / this iteration */
    double vs_ideal_lat; /* ideal-with-latency-floors iteration / this one (when computed) */
} th_train_row;

/* The intra column of a training row: the intra policy's name, or "-" for the ideal network
 * (which has no queues). */
TH_API const char *th_train_intra_name(th_policy policy, th_intra intra);

/* The comparison `themis train` prints, in report order: policy (a th_policy, or -1 = every
 * policy, lp only where its program applies, and the ideal network) and intra (a th_intra, or
 * -1 = both; the ideal network runs once), into rows (room for TH_TRAIN_MAX_ROWS), with
 * speedup against baseline+fifo and vs_ideal against the ideal network (each replayed once
 * more, untraced, when not one of the rows). Before each row is replayed, *cur (when not NULL)
 * is set to its index and its policy and intra are filled in, so the trace callback knows whose
 * events it sees. *nrows rows to free with th_train_rows_free; none on failure. */
#define TH_TRAIN_MAX_ROWS (2 * TH_POLICY_COUNT)
TH_API int th_train_compare(const th_system *sys, const th_workload *wl, const th_train_opts *opts,
                            int policy, int intra, th_train_trace_fn trace, void *trace_ctx,
                            int *cur, th_train_row *rows, int *nrows, th_error *err);
TH_API void th_train_rows_free(th_train_row *rows, int n);

/* train --ideal-lat: the iteration of the ideal network with every latency floor (opts with
 * policy ideal and ideal_latency) into *iteration, ns, and each row's vs_ideal_lat (it over the
 * row's iteration). */
TH_API int th_train_ideal_lat(const th_system *sys, const th_workload *wl,
                              const th_train_opts *opts, th_train_row *rows, int nrows,
                              double *iteration, th_error *err);

#endif

/* The scheduler emulator (SPEC §6, §7): each dimension is one server with a queue of ready
 * stages; chunks flow through their planned dims; it reports the collective's time, the
 * per-dimension bytes and busy time, and an optional per-stage trace. */
#ifndef THEMIS_EMULATE_H
#define THEMIS_EMULATE_H

#include "themis/schedule.h"

typedef enum { TH_INTRA_FIFO, TH_INTRA_SCF } th_intra;

const char *th_intra_name(th_intra q);
int th_intra_from_name(const char *s, th_intra *out);

/* One executed stage, handed to the trace callback when the stage starts. */
typedef struct th_stage_rec {
    int64_t chunk; /* chunk index */
    int stage;     /* stage index within the chunk */
    th_op op;      /* RS, AG or A2A */
    int dim;       /* system dim index */
    double m;      /* full-vector size, bytes */
    double bytes;  /* bytes one NPU sends, m (p-1)/p */
    double ready;  /* ns */
    double start;  /* ns */
    double end;    /* ns */
} th_stage_rec;

typedef void (*th_trace_fn)(void *ctx, const th_stage_rec *rec);

typedef struct th_result {
    double time;                  /* end of the last stage - issue time, ns */
    double ideal;                 /* total bytes / sum of active B, ns */
    double bw_util;               /* ideal / time */
    double algbw;                 /* S / time, bytes per ns (= GB/s) */
    double busbw;                 /* algbw scaled by the nccl-tests factor, bytes per ns */
    double speedup;               /* time(baseline+fifo) / time; set by th_run_compare */
    int ndims;                    /* the system's dim count */
    double bytes[TH_MAX_DIMS];    /* bytes one NPU sends on each dim */
    double busy[TH_MAX_DIMS];     /* sum of stage times on each dim, ns */
    double dim_util[TH_MAX_DIMS]; /* bytes / (B * time) */
    int64_t stages;               /* stage events executed */
} th_result;

/* Reusable workspace (queues, per-chunk state); one per thread. */
typedef struct th_emu th_emu;

th_emu *th_emu_create(void);
void th_emu_free(th_emu *emu);

/* Runs one planned collective issued at time 0. `trace` may be NULL. */
int th_emu_run(th_emu *emu, const th_system *sys, const th_plan *plan, th_intra intra,
               th_trace_fn trace, void *trace_ctx, th_result *res, th_error *err);

#endif

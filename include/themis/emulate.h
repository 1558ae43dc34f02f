/* The scheduler emulator (SPEC §6, §7): each dimension is one server with a queue of ready
 * stages; chunks flow through their planned dims; it reports the collective's time, the
 * per-dimension bytes and busy time, and an optional per-stage trace. */
#ifndef THEMIS_EMULATE_H
#define THEMIS_EMULATE_H

#include <stdatomic.h>

#include "themis/export.h"
#include "themis/schedule.h"

typedef enum { TH_INTRA_FIFO, TH_INTRA_SCF } th_intra;

TH_API extern const char *const th_intra_names[]; /* fifo, scf (NULL-terminated) */

TH_API const char *th_intra_name(th_intra q);
TH_API int th_intra_from_name(const char *s, th_intra *out);

/* One executed stage, handed to the trace callback when the stage starts. */
typedef struct th_stage_rec {
    int64_t chunk; /* chunk index */
    int stage;     /* stage index within the chunk */
    th_op op;      /* RS, AG, A2A (or AR under the astra-sim preset) */
    int dim;       /* system dim index */
    double m;      /* full-vector size, bytes */
    double bytes;  /* bytes one NPU sends, m (p-1)/p */
    double ready;  /* ns */
    double start;  /* ns */
    double end;    /* ns */
    int coll;      /* collective id (issue order since the last reset) */
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

TH_API th_emu *th_emu_create(void);
TH_API void th_emu_free(th_emu *emu);

/* Priority between collectives in flight: older first (fifo), newer first (lifo), or the
 * smaller key first, then the older (layer: training gives earliest layer first, as the
 * tensor-priority schedulers ByteScheduler and P3 do). */
typedef enum { TH_PRIO_FIFO, TH_PRIO_LIFO, TH_PRIO_LAYER } th_priority;

TH_API extern const char *const th_priority_names[]; /* fifo, lifo, layer (NULL-terminated) */

TH_API const char *th_priority_name(th_priority p);
TH_API int th_priority_from_name(const char *s, th_priority *out);

/* Incremental use, several collectives in flight sharing the dims' queues:
 * reset, then issue collectives at non-decreasing times, interleaved with steps. */
TH_API void th_emu_reset(th_emu *emu, const th_system *sys, th_intra intra, th_priority prio,
                         th_trace_fn trace, void *trace_ctx);
/* Issues a planned collective at time t (finite, >= now); the plan must stay alive and
 * unchanged until the collective finishes. *id = its id (0, 1, ... in issue order). Misuse
 * (before a reset, t before now) is TH_EINTERNAL. */
TH_API int th_emu_issue(th_emu *emu, const th_plan *plan, double t, int *id, th_error *err);
/* th_emu_issue with a priority key (0 to INT32_MAX; the layer priority orders by it, the others
 * ignore it); th_emu_issue is key 0. */
TH_API int th_emu_issue_key(th_emu *emu, const th_plan *plan, double t, int64_t key, int *id,
                            th_error *err);
/* Time of the next stage completion; INFINITY when nothing runs. */
TH_API double th_emu_next(const th_emu *emu);
/* Processes every stage ending at th_emu_next(): they end, their chunks move on, idle dims
 * pick. With no stage running (th_emu_next() is INFINITY) it is TH_EINTERNAL. */
TH_API int th_emu_step(th_emu *emu, th_error *err);
/* The collectives that finished in the last step (ids; valid until the next step). */
TH_API int th_emu_finished(const th_emu *emu, const int **ids);
TH_API double th_emu_now(const th_emu *emu);
/* A finished collective's result (time from its issue to its end); an id never issued since
 * the reset, or a collective still running, is TH_EINTERNAL. */
TH_API int th_emu_result(const th_emu *emu, int id, th_result *res, th_error *err);
/* Forgets a finished collective: its record is reused by the next issue, so memory stays flat
 * over many collectives (ids still count up); th_emu_result on it is then TH_EINTERNAL, as is
 * releasing one that runs or was released. */
TH_API int th_emu_release(th_emu *emu, int id, th_error *err);

/* A flag that ends th_emu_run early: once *stop is non-zero (set from a signal handler or
 * another thread) it returns TH_EINTERNAL, "interrupted". NULL (the default): never. */
TH_API void th_emu_set_stop(th_emu *emu, const atomic_int *stop);

/* Runs one planned collective issued at time 0. `trace` may be NULL. */
TH_API int th_emu_run(th_emu *emu, const th_system *sys, const th_plan *plan, th_intra intra,
                      th_trace_fn trace, void *trace_ctx, th_result *res, th_error *err);

#endif

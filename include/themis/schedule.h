/* Inter-dimension policies (SPEC §5): which dimensions each chunk of a collective visits, in
 * which order, with which stage sizes. Knows nothing of queues or time. */
#ifndef THEMIS_SCHEDULE_H
#define THEMIS_SCHEDULE_H

#include <stddef.h>
#include <stdint.h>

#include "themis/collective.h"
#include "themis/cost.h"
#include "themis/export.h"
#include "themis/system.h"

/* The scheduling policies, one enum for run, train, sweep and reports. The first four plan
 * any collective on its own (lp: the analytical model only, at most TH_BOUND_MAX_DIMS active
 * dims); themis-global and ideal exist only while training (several
 * collectives in flight), and the layers that cannot use them refuse them. */
typedef enum {
    TH_POLICY_BASELINE,      /* every chunk visits the dims in index order */
    TH_POLICY_THEMIS,        /* the greedy load-balancing order, one tracker per collective */
    TH_POLICY_ROUNDROBIN,    /* chunk i starts at active dim i mod n */
    TH_POLICY_LP,            /* the bound's optimal mix of orders, in integer counts */
    TH_POLICY_THEMIS_GLOBAL, /* themis with one tracker shared by the collectives in flight */
    TH_POLICY_IDEAL,         /* training: the ideal network instead of chunks and queues */
} th_policy;
#define TH_POLICY_COUNT 6
/* The last policy that plans one collective on its own (baseline .. lp). */
#define TH_POLICY_LAST_SINGLE TH_POLICY_LP
typedef enum { TH_LOAD_ALPHA_BETA, TH_LOAD_BANDWIDTH } th_load_model;

/* A model's planner (chunk size, stages, Themis, stage sizes), chosen from the system. */
typedef struct th_plan_model th_plan_model;

/* The chunk plan of one collective under one inter-dimension policy. Create/free in pairs;
 * th_sched_plan reuses the buffers of an existing plan. */
typedef struct th_plan {
    th_coll_type type;
    th_model model;           /* the system's model (astra-sim: integer phases) */
    const th_plan_model *ops; /* that model's planner */
    th_policy policy;         /* the inter-dimension policy of the plan */
    double size;              /* S, bytes */
    int64_t chunks;           /* C (astra-sim: the chunks it runs, see SPEC §9) */
    double chunk;             /* c = S / C, bytes (astra-sim: floor(S / C)) */
    double last_chunk;        /* the last chunk's size, bytes (astra-sim's Themis: the rest) */
    int n;                    /* number of active dims */
    int active[TH_MAX_DIMS];  /* active dims, ascending index */
    double active_npus;       /* P_a: product of the active dims' npus */
    int nstages;              /* stages per chunk: 2n for allreduce, n otherwise; astra-sim
                                 baseline 2n - 1 (the last dim's halves as one AR phase) */
    double npus[TH_MAX_DIMS]; /* p of each system dim (copied for speed) */
    uint8_t *order;           /* chunks x n: RS order (AR, RS) or AG order (AG, A2A) */
    size_t capacity;          /* bytes allocated for order */
    double load[TH_MAX_DIMS]; /* themis: the tracker's final load per dim, ns */
    /* The astra-sim preset's Themis keeps its records of the dims in a list that persists from
     * chunk to chunk: when `carry` is set before planning, the list starts as `list` (dims by
     * position) instead of index order; after planning `list` holds where it ended. */
    int carry;
    uint8_t list[TH_MAX_DIMS];
} th_plan;

TH_API th_plan *th_plan_create(void);
TH_API void th_plan_free(th_plan *plan);

/* Fills plan with the order of every chunk under `policy` (SPEC §5); themis-global plans as
 * themis (its tracker is th_sched_plan_from's init_load); ideal has no plan and is refused. */
TH_API int th_sched_plan(th_plan *plan, const th_system *sys, const th_collective *coll,
                         th_policy policy, th_load_model model, th_error *err);

/* The same, with the Themis tracker starting from init_load[d] (per system dim, ns) instead of
 * zero: one tracker shared across collectives (themis-global). */
TH_API int th_sched_plan_from(th_plan *plan, const th_system *sys, const th_collective *coll,
                              th_policy policy, th_load_model model, const double *init_load,
                              th_error *err);

/* Policy lp in one of its sequences of the program's integer chunk counts (th_sched_plan uses
 * sequence 0; th_run_eval tries each and keeps the fastest, see run.h). */
#define TH_LP_SEQUENCES 2
TH_API int th_sched_plan_lp(th_plan *plan, const th_system *sys, const th_collective *coll, int seq,
                            th_error *err);

/* Stage j (0 .. nstages-1) of chunk i: its dim, operation and full-vector size m (under the
 * astra-sim preset: the phase's integer input size). */
static inline const uint8_t *th_plan_order(const th_plan *plan, int64_t chunk) {
    return plan->order + (size_t)chunk * (size_t)plan->n;
}
TH_API void th_plan_stage(const th_plan *plan, int64_t chunk, int j, int *dim, th_op *op,
                          double *m);

/* Parses a dim list "0,2" (indices, each < ndims, no repeats) into a bit mask. */
TH_API int th_sched_parse_dims(const char *list, int ndims, uint32_t *mask, th_error *err);

/* Names in enum order, NULL-terminated (for parsers and messages). */
TH_API extern const char *const th_policy_names[];     /* baseline, ..., themis-global, ideal */
TH_API extern const char *const th_load_model_names[]; /* alpha_beta, bandwidth */

TH_API const char *th_policy_name(th_policy p);
TH_API const char *th_load_model_name(th_load_model m);
TH_API int th_policy_from_name(const char *s, th_policy *out);
/* names[0 .. n-1] = the first n policy names, names[n] = NULL (n <= TH_POLICY_COUNT): the
 * policies a layer takes, for its parsers and messages (one collective: the first 4; sweeps:
 * 5, with themis-global). */
TH_API void th_policy_names_first(int n, const char **names);
TH_API int th_load_model_from_name(const char *s, th_load_model *out);

#endif

/* Bandwidth what-if: the split of a bandwidth budget over the dims that makes one collective
 * fastest under one (policy, intra) pair, searched with NLopt's COBYLA over the emulator. */
#ifndef THEMIS_OPTIMIZE_H
#define THEMIS_OPTIMIZE_H

#include "themis/export.h"
#include "themis/run.h"
#include "themis/train.h"

/* A list of collectives (collist.h, internal: the command reads it from JSON). */
typedef struct th_collist th_collist;

/* What is minimised: the time, or time x spent (the most performance per cost, as LIBRA). */
typedef enum { TH_OPT_TIME, TH_OPT_PERF_PER_COST } th_opt_objective;
/* The objectives' names by th_opt_objective ("time", "perf-per-cost"), NULL-terminated. */
TH_API extern const char *const th_opt_objective_names[];

typedef struct th_opt_opts {
    th_opt_objective objective; /* time (default) or perf-per-cost */
    th_pair pair;               /* the schedule whose time is minimised */
    th_load_model model;        /* Themis load model */
    uint32_t vary;              /* dims whose bw_GBps varies (bit d); 0 = every active dim */
    double budget;              /* sum of cost_d x bw_GBps_d over the varied dims, at most;
                                   0 = the system's own sum */
    double cost[TH_MAX_DIMS];   /* cost per GB/s of each dim; 0 = 1 */
    double min_GBps, max_GBps;  /* bounds of each varied bw_GBps; 0 = 1e-3 and the budget */
    int max_evals;              /* evaluations per start; 0 = 2000 */
    /* Called after every evaluated point (may be NULL): the start (0-2), every system dim's
     * bw_GBps at that point, its time (ns) and what it spends. */
    void (*point)(void *ctx, int start, const double *bw_GBps, double time, double spent);
    void *point_ctx;
    /* When not NULL, the objective is this workload's steady-state iteration under
     * themis train's semantics (train: its options; policy and intra come from pair) instead of
     * the collective's time; the collective still gives the baseline-bytes start. */
    const th_workload *wl;
    th_train_opts train; /* its stop and poll also end the search, between evaluations */
    /* When not NULL (and wl is NULL), the objective is the weighted sum of the times of these
     * collectives (checked against the system: chunks set); the dims that can vary are those
     * any of them involves, and the third start weighs the baseline's bytes the same way. */
    const th_collist *list;
} th_opt_opts;

typedef struct th_opt_result {
    double bw_GBps[TH_MAX_DIMS]; /* the best allocation (unvaried dims as in the system) */
    double time;                 /* its time, ns */
    double start_time;           /* the system as given, ns */
    double spent;                /* sum of cost x bw_GBps over the varied dims */
    int evals;                   /* emulator evaluations, all starts */
    int start;                   /* which start found it: 0 equal split, 1 the system's split
                                    scaled to the budget, 2 proportional to baseline bytes */
} th_opt_result;

/* Minimises the time of coll (or of opts->list or opts->wl) on sys over the varied dims' bw_GBps,
 * subject to the budget and the bounds, from three deterministic starts (COBYLA; the same input
 * gives the same output). An infeasible budget or bounds is TH_EINPUT with the numbers named. */
TH_API int th_opt_bandwidth(const th_system *sys, const th_collective *coll,
                            const th_opt_opts *opts, th_opt_result *res, th_error *err);

/* The chunk count, among list[0 .. n-1], that makes coll (its size; its chunks ignored)
 * fastest under pair: *best_chunks and its *best_time (ns; ties: the smaller count). */
TH_API int th_opt_chunks(const th_system *sys, const th_collective *coll, th_pair pair,
                         th_load_model model, const int64_t *list, int n, int64_t *best_chunks,
                         double *best_time, th_error *err);

/* The pairs searched for policy (a th_policy up to TH_POLICY_LAST_SINGLE, or -1 = every one; lp
 * then only where its program applies to coll, or to every collective of list when not NULL)
 * with intra, in order, into pairs (room for TH_POLICY_LAST_SINGLE + 1); returns how many. */
TH_API int th_opt_pairs(const th_system *sys, const th_collective *coll, const th_collist *list,
                        int policy, th_intra intra, th_pair *pairs);

#endif

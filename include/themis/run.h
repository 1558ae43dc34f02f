/* One evaluation = plan + emulate; a comparison = several (policy, intra) pairs plus the
 * baseline+fifo reference that every speedup is measured against. */
#ifndef THEMIS_RUN_H
#define THEMIS_RUN_H

#include "themis/emulate.h"
#include "themis/export.h"

typedef struct th_pair {
    th_policy policy;
    th_intra intra;
} th_pair;

/* What a system file's optional "run" object sets for `themis run` when -n, -p or -q is not
 * given (import-astra writes one from an ASTRA-sim system JSON). */
typedef struct th_run_defaults {
    int64_t chunks;   /* chunks per collective; 0 = not set */
    int has_policy;   /* policy is set */
    th_policy policy; /* baseline .. TH_POLICY_LAST_SINGLE (lp) */
    int has_intra;    /* intra is set */
    th_intra intra;
} th_run_defaults;

/* th_system_load and th_system_parse that also read and check the "run" object into *def
 * (all unset when the file has none). */
TH_API int th_run_load_system(const char *path, th_system *sys, th_run_defaults *def,
                              th_error *err);
TH_API int th_run_parse_system(const char *json, size_t len, const char *source, th_system *sys,
                               th_run_defaults *def, th_error *err);

/* Reusable state for evaluations: a plan and an emulator workspace. One per thread. */
typedef struct th_runner th_runner;

TH_API th_runner *th_runner_create(void);
TH_API void th_runner_free(th_runner *r);

/* Evaluations end early, with TH_EINTERNAL "interrupted", once *stop is non-zero (NULL:
 * never); see th_emu_set_stop. */
TH_API void th_runner_set_stop(th_runner *r, const atomic_int *stop);

/* Evaluates one pair; speedup is left at 0. `trace` may be NULL. Refuses themis-global and
 * ideal, which need several collectives in flight (th_train_run). */
TH_API int th_run_eval(th_runner *r, const th_system *sys, const th_collective *coll, th_pair pair,
                       th_load_model model, th_trace_fn trace, void *trace_ctx, th_result *res,
                       th_error *err);

/* The pairs a comparison evaluates for policy (a th_policy up to TH_POLICY_LAST_SINGLE, or -1 =
 * all) and intra (a th_intra, or -1 = both), in report order: with every policy, lp only where
 * its program applies (th_bound_supported on dims_mask). Fills pairs (room for
 * TH_RUN_MAX_PAIRS) and returns how many. */
#define TH_RUN_MAX_PAIRS (2 * (TH_POLICY_LAST_SINGLE + 1))
TH_API int th_run_pairs(const th_system *sys, uint32_t dims_mask, int policy, int intra,
                        th_pair *pairs);

/* The speedups' reference: baseline+fifo's time into *time, or NaN (and TH_OK) where the
 * model refuses that pair on this input (TH_EINPUT), so that the pairs asked still stand;
 * other errors as th_run_eval. */
int th_run_reference(th_runner *r, const th_system *sys, const th_collective *coll,
                     th_load_model model, double *time, th_error *err);

/* Evaluates npairs pairs into out[0 .. npairs-1], with speedup against baseline+fifo
 * (evaluated once, reused when it is one of the pairs; NaN where the model refuses it and it
 * is not one of them, th_run_reference). Before each pair runs, *cur_pair
 * (when not NULL) is set to its index, so the trace callback knows whose stages it sees;
 * the reference run is not traced unless it is one of the pairs. */
TH_API int th_run_compare(th_runner *r, const th_system *sys, const th_collective *coll,
                          const th_pair *pairs, int npairs, th_load_model model, th_trace_fn trace,
                          void *trace_ctx, int *cur_pair, th_result *out, th_error *err);

/* Whether run --ideal-lat applies to sys: its latency floor is the analytical model's stage
 * latency (SPEC §3), so a preset is TH_EINPUT naming it. */
TH_API int th_run_check_ideal_lat(const th_system *sys, th_error *err);

#endif

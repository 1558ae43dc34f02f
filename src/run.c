/* Evaluations: plan + emulate for one (policy, intra) pair, and comparisons of several pairs
 * with every speedup measured against baseline+fifo on the same collective. */
#include <math.h>
#include <stdlib.h>

#include "model.h"
#include "themis/bound.h"
#include "themis/run.h"

struct th_runner {
    th_plan *plan;
    th_emu *emu;
};

th_runner *th_runner_create(void) {
    th_runner *r = calloc(1, sizeof *r);
    if (!r) return NULL;
    r->plan = th_plan_create();
    r->emu = th_emu_create();
    if (!r->plan || !r->emu) {
        th_runner_free(r);
        return NULL;
    }
    return r;
}

void th_runner_free(th_runner *r) {
    if (!r) return;
    th_plan_free(r->plan);
    th_emu_free(r->emu);
    free(r);
}

void th_runner_set_stop(th_runner *r, const atomic_int *stop) {
    th_emu_set_stop(r->emu, stop);
}

/* Policy lp: each sequence of the program's mix, then the baseline and Themis orders, through
 * the emulator; the fastest plan wins (ties: the earlier candidate) and is traced. */
static int eval_lp(th_runner *r, const th_system *sys, const th_collective *coll, th_intra intra,
                   th_trace_fn trace, void *trace_ctx, th_result *res, th_error *err) {
    int best = -1, ncand = TH_LP_SEQUENCES + 2;
    for (int k = 0; k < ncand; k++) {
        int rc = k < TH_LP_SEQUENCES
                     ? th_sched_plan_lp(r->plan, sys, coll, k, err)
                     : th_sched_plan(r->plan, sys, coll,
                                     k == TH_LP_SEQUENCES ? TH_POLICY_BASELINE : TH_POLICY_THEMIS,
                                     TH_LOAD_ALPHA_BETA, err);
        th_result cur;
        if (rc || th_emu_run(r->emu, sys, r->plan, intra, NULL, NULL, &cur, err)) return err->code;
        if (best < 0 || cur.time < res->time) best = k, *res = cur;
    }
    if (!trace && best == ncand - 1) return TH_OK; /* the plan in r->plan is the winner's */
    int rc = best < TH_LP_SEQUENCES
                 ? th_sched_plan_lp(r->plan, sys, coll, best, err)
                 : th_sched_plan(r->plan, sys, coll,
                                 best == TH_LP_SEQUENCES ? TH_POLICY_BASELINE : TH_POLICY_THEMIS,
                                 TH_LOAD_ALPHA_BETA, err);
    if (rc) return rc;
    return th_emu_run(r->emu, sys, r->plan, intra, trace, trace_ctx, res, err);
}

int th_run_eval(th_runner *r, const th_system *sys, const th_collective *coll, th_pair pair,
                th_load_model model, th_trace_fn trace, void *trace_ctx, th_result *res,
                th_error *err) {
    if ((unsigned)pair.intra > TH_INTRA_SCF)
        return th_error_set(err, TH_EINPUT, "unknown intra-dimension policy %d", (int)pair.intra);
    if (pair.policy == TH_POLICY_THEMIS_GLOBAL || pair.policy == TH_POLICY_IDEAL)
        return th_error_set(err, TH_EINPUT,
                            "policy %s: applies to training only (themis train, workload "
                            "sweeps), not to one collective",
                            th_policy_name(pair.policy));
    if (pair.policy == TH_POLICY_LP && coll->type != TH_COLL_ALLTOALL)
        return eval_lp(r, sys, coll, pair.intra, trace, trace_ctx, res, err);
    if (th_sched_plan(r->plan, sys, coll, pair.policy, model, err)) return err->code;
    if (th_emu_run(r->emu, sys, r->plan, pair.intra, trace, trace_ctx, res, err)) return err->code;
    /* a preset reports a single collective as the simulator it reproduces does */
    const th_model_ops *m = th_model_of(sys);
    if (m->finish) m->finish(sys, coll->type, coll->size, res);
    return TH_OK;
}

int th_run_pairs(const th_system *sys, uint32_t dims_mask, int policy, int intra, th_pair *pairs) {
    const th_model_ops *m = th_model_of(sys);
    int n = 0;
    for (int p = 0; p <= TH_POLICY_LAST_SINGLE; p++)
        for (int q = 0; q < 2; q++) {
            if (p == TH_POLICY_LP && policy < 0 && !th_bound_supported(sys, dims_mask)) continue;
            /* all: the policies the model reproduces on these dims */
            if (policy < 0 && m->lists && !m->lists(sys, p, dims_mask)) continue;
            if ((policy < 0 || policy == p) && (intra < 0 || intra == q))
                pairs[n++] = (th_pair){(th_policy)p, (th_intra)q};
        }
    return n;
}

int th_run_reference(th_runner *r, const th_system *sys, const th_collective *coll,
                     th_load_model model, double *time, th_error *err) {
    const th_pair ref = {TH_POLICY_BASELINE, TH_INTRA_FIFO};
    th_result base;
    th_error e;
    *time = NAN;
    int rc = th_run_eval(r, sys, coll, ref, model, NULL, NULL, &base, &e);
    if (rc == TH_OK) *time = base.time;
    if (rc == TH_EINPUT) return TH_OK;
    if (rc) *err = e;
    return rc;
}

int th_run_compare(th_runner *r, const th_system *sys, const th_collective *coll,
                   const th_pair *pairs, int npairs, th_load_model model, th_trace_fn trace,
                   void *trace_ctx, int *cur_pair, th_result *out, th_error *err) {
    const th_pair ref = {TH_POLICY_BASELINE, TH_INTRA_FIFO};
    int ref_index = -1;
    for (int i = 0; i < npairs; i++) {
        if (cur_pair) *cur_pair = i;
        if (th_run_eval(r, sys, coll, pairs[i], model, trace, trace_ctx, &out[i], err)) {
            if (err->code != TH_EINPUT) return err->code;
            th_error e = *err; /* which of the pairs the preset refuses */
            return th_error_set(err, e.code, "%s + %s: %s", th_policy_name(pairs[i].policy),
                                th_intra_name(pairs[i].intra), e.msg);
        }
        if (ref_index < 0 && pairs[i].policy == ref.policy && pairs[i].intra == ref.intra)
            ref_index = i;
    }
    double ref_time;
    if (ref_index >= 0) {
        ref_time = out[ref_index].time;
    } else {
        if (th_run_reference(r, sys, coll, model, &ref_time, err)) return err->code;
    }
    for (int i = 0; i < npairs; i++)
        out[i].speedup = ref_time / out[i].time;
    return TH_OK;
}

int th_run_check_ideal_lat(const th_system *sys, th_error *err) {
    return th_model_require(sys, TH_CAP_IDEAL_LAT, NULL, err);
}

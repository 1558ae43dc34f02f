/* The training comparison of `themis train`: every requested (policy, intra) replayed, with
 * speedups against baseline+fifo and against the ideal network. */
#include <string.h>

#include "themis/bound.h"
#include "themis/train.h"

static int run_one(const th_system *sys, const th_workload *wl, const th_train_opts *opts,
                   th_policy p, th_intra q, th_train_trace_fn trace, void *trace_ctx,
                   th_train_row *row, th_error *err) {
    th_train_opts t = *opts;
    t.policy = p;
    t.intra = q;
    row->policy = p;
    row->intra = q;
    return th_train_run(sys, wl, &t, trace, trace_ctx, &row->res, err);
}

int th_train_compare(const th_system *sys, const th_workload *wl, const th_train_opts *opts,
                     int policy, int intra, th_train_trace_fn trace, void *trace_ctx, int *cur,
                     th_train_row *rows, int *nrows, th_error *err) {
    th_train_row base, ideal;
    memset(&base, 0, sizeof base);
    memset(&ideal, 0, sizeof ideal);
    int n = 0, rc = TH_OK;
    for (int p = 0; p < TH_POLICY_COUNT && rc == TH_OK; p++) {
        if (policy >= 0 && policy != p) continue;
        /* every policy: lp where its program applies (analytical model, <= 12 active dims) */
        if (policy < 0 && p == TH_POLICY_LP && !th_bound_supported(sys, 0)) continue;
        int is_ideal = p == TH_POLICY_IDEAL;
        for (int q = 0; q < 2 && rc == TH_OK; q++) {
            if (is_ideal && q > 0) break; /* the ideal network has no queues */
            if (!is_ideal && intra >= 0 && intra != q) continue;
            if (cur) *cur = n;
            memset(&rows[n], 0, sizeof rows[n]);
            rc = run_one(sys, wl, opts, (th_policy)p, (th_intra)q, trace, trace_ctx, &rows[n], err);
            if (rc == TH_OK) n++;
        }
    }
    /* The references every speedup is measured against. */
    int bi = -1, ii = -1;
    for (int i = 0; i < n; i++) {
        if (rows[i].policy == TH_POLICY_BASELINE && rows[i].intra == TH_INTRA_FIFO) bi = i;
        if (rows[i].policy == TH_POLICY_IDEAL) ii = i;
    }
    if (rc == TH_OK && bi < 0)
        rc = run_one(sys, wl, opts, TH_POLICY_BASELINE, TH_INTRA_FIFO, NULL, NULL, &base, err);
    if (rc == TH_OK && ii < 0)
        rc = run_one(sys, wl, opts, TH_POLICY_IDEAL, TH_INTRA_FIFO, NULL, NULL, &ideal, err);
    if (rc == TH_OK) {
        double tb = bi >= 0 ? rows[bi].res.iteration : base.res.iteration;
        double ti = ii >= 0 ? rows[ii].res.iteration : ideal.res.iteration;
        for (int i = 0; i < n; i++) {
            rows[i].speedup = tb / rows[i].res.iteration;
            rows[i].vs_ideal = ti / rows[i].res.iteration;
        }
    }
    th_train_result_free(&base.res);
    th_train_result_free(&ideal.res);
    if (rc) {
        th_train_rows_free(rows, n);
        n = 0;
    }
    *nrows = n;
    return rc;
}

void th_train_rows_free(th_train_row *rows, int n) {
    for (int i = 0; i < n; i++)
        th_train_result_free(&rows[i].res);
}

int th_train_ideal_lat(const th_system *sys, const th_workload *wl, const th_train_opts *opts,
                       th_train_row *rows, int nrows, double *iteration, th_error *err) {
    th_train_opts t = *opts;
    t.policy = TH_POLICY_IDEAL;
    t.ideal_latency = 1;
    th_train_result lat;
    int rc = th_train_run(sys, wl, &t, NULL, NULL, &lat, err);
    if (rc == TH_OK) {
        *iteration = lat.iteration;
        for (int i = 0; i < nrows; i++)
            rows[i].vs_ideal_lat = lat.iteration / rows[i].res.iteration;
    }
    th_train_result_free(&lat);
    return rc;
}

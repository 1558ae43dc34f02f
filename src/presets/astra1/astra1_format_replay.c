/* The ASTRA-sim 1.0 text format's native replay (workload_format.h's replay hook): under the
 * astra-sim-1.0 preset, `themis train` runs ASTRA-sim 1.0's state machine for every asked pair
 * (--passes, --comm-scale, --compute-scale) and writes its own report and trace. */
#include "themis/astra1_workload.h"
#include "themis/report.h"
#include "workload_format.h"

/* The trace rows of the pair being replayed. */
typedef struct a1_trace {
    FILE *out;
    const th_a1_workload *wl;
    th_policy policy;
    th_intra intra;
    int oom; /* a row could not be built */
} a1_trace;

static void trace_pair(void *ctx, th_policy policy, th_intra intra) {
    a1_trace *t = ctx;
    t->policy = policy, t->intra = intra;
}

static void trace_row(void *ctx, const th_train_event *ev) {
    a1_trace *t = ctx;
    if (th_a1_report_trace_row(t->out, t->wl, t->policy, t->intra, ev)) t->oom = 1;
}

/* Every requested pair (and baseline + fifo, the speedups' reference), written as the report
 * asks, with the timeline of the requested pairs in the trace. */
int astra1_format_replay(const void *native, const th_system *sys, const char *src,
                         const th_wl_replay *req, th_wl_open_fn open, void *ctx, th_error *err) {
    const th_a1_workload *a1 = native;
    th_a1_replay_opts o = {0};
    th_a1_scale scale = {req->scale.comm, req->scale.compute, 0};
    int rc = th_a1_replay_opts_for(sys, req->def, req->chunks, req->passes, &scale, &o, err);
    if (rc) return rc;
    FILE *out;
    a1_trace tc = {NULL, a1, TH_POLICY_BASELINE, TH_INTRA_FIFO, 0};
    if ((rc = open(ctx, &out, &tc.out, err))) return rc;
    if (tc.out) th_report_train_trace_header(tc.out);
    th_a1_pairs_hooks hooks = {trace_pair, tc.out ? trace_row : NULL, &tc};
    th_a1_row rows[4];
    int n, shown;
    rc = th_a1_replay_pairs(sys, a1, src, &o, req->policy, req->intra, &hooks, rows, &n, &shown,
                            err);
    if (rc == TH_OK && tc.oom) rc = th_error_set(err, TH_EINTERNAL, "out of memory");
    if (rc == TH_OK) {
        th_a1_report rep = {sys, a1, &o, rows, shown};
        rc = th_a1_report_write(out, (th_format)req->format, &rep, err);
    }
    th_a1_rows_free(rows, n);
    return rc;
}

/* `train` on an ASTRA-sim 1.0 text workload: under the astra-sim-1.0 preset, ASTRA-sim 1.0's
 * state machine for every asked pair (--passes, --comm-scale, --compute-scale); under another
 * model, the workload converted to our format for our replay (our semantics). */
#include <stdio.h>

#include "cmd_train.h"
#include "themis/report.h"

/* The names of the text workloads' options, as the front end says them. */
static void names(const th_cmd_io *io, char a[][32]) {
    const char *keys[] = {"comm_scale", "compute_scale", "passes"};
    for (int i = 0; i < 3; i++)
        th_cmd_name(&th_cmd_train_def, io, keys[i], a[i], 32);
}

int th_cmd_train_astra1_check(const th_train_request *r, const char *source, const th_cmd_io *io,
                              th_error *err) {
    const th_cmd_def *d = &th_cmd_train_def;
    if (!th_option_given(d, r, "comm_scale") && !th_option_given(d, r, "compute_scale") &&
        !th_option_given(d, r, "passes"))
        return TH_OK;
    char n[3][32];
    names(io, n);
    return th_cmd_usage(err, d, io,
                        "%s, %s and %s are for ASTRA-sim 1.0 text workloads; %s is our JSON", n[0],
                        n[1], n[2], source);
}

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

/* ASTRA-sim 1.0's state machine under the 1.0 preset: every requested pair (and baseline +
 * fifo, the speedups' reference), written as the report asks, with the timeline of the
 * requested pairs in the trace. */
static int replay_all(const th_train_request *r, const th_train_opts *t, const th_run_defaults *def,
                      const char *path, const th_a1_workload *a1, const th_system *sys,
                      const th_cmd_io *io, th_error *err) {
    th_a1_replay_opts o = {0};
    th_a1_scale scale = {r->comm_scale, r->compute_scale, 0};
    int rc = th_a1_replay_opts_for(sys, def, t->chunks, (int)r->passes, &scale, &o, err);
    if (rc) return rc;
    /* both outputs are opened before the work and replace their files only if all went well */
    th_output out, trace;
    th_cmd_io files = {NULL, io->files, io->argv, NULL, NULL, NULL, NULL, NULL};
    a1_trace tc = {NULL, a1, TH_POLICY_BASELINE, TH_INTRA_FIFO, 0};
    if ((rc = th_cmd_out_open(io, r->output, r->force, &out, err))) return rc;
    if (r->trace) {
        if ((rc = th_cmd_out_open(&files, r->trace, r->force, &trace, err)))
            return th_cmd_out_close(io, &out, rc, err);
        tc.out = trace.f;
        th_report_train_trace_header(tc.out);
    }
    th_a1_pairs_hooks hooks = {trace_pair, tc.out ? trace_row : NULL, &tc};
    th_a1_row rows[4];
    int n, shown;
    rc = th_a1_replay_pairs(sys, a1, path, &o, r->policy, r->intra, &hooks, rows, &n, &shown, err);
    if (rc == TH_OK && tc.oom) rc = th_error_set(err, TH_EINTERNAL, "out of memory");
    if (rc == TH_OK) {
        th_a1_report rep = {sys, a1, &o, rows, shown};
        rc = th_a1_report_write(out.f, (th_format)r->format, &rep, err);
    }
    if (r->trace) rc = th_cmd_out_close(&files, &trace, rc, err);
    rc = th_cmd_out_close(io, &out, rc, err);
    th_a1_rows_free(rows, n);
    return rc;
}

int th_cmd_train_astra1(const th_train_request *r, const th_train_opts *t,
                        const th_run_defaults *def, const char *path, const th_a1_workload *a1,
                        const th_system *sys, const th_cmd_io *io, th_workload **wl,
                        th_error *err) {
    const th_cmd_def *d = &th_cmd_train_def;
    char a[32], b[32], c[32];
    *wl = NULL;
    if (sys->model == TH_MODEL_ASTRA1) {
        if (t->bucket || t->chunking_set || r->ideal_lat)
            return th_cmd_usage(err, d, io,
                                "%s, %s and %s are for our replay; under the "
                                "astra-sim-1.0 preset %s runs ASTRA-sim 1.0's state machine",
                                th_cmd_name(d, io, "bucket", a, sizeof a),
                                th_cmd_name(d, io, "chunking", b, sizeof b),
                                th_cmd_name(d, io, "ideal_lat", c, sizeof c), path);
        return replay_all(r, t, def, path, a1, sys, io, err);
    }
    if (r->passes)
        return th_error_set(err, TH_EINPUT,
                            "train: %s: ASTRA-sim 1.0's passes replay under the astra-sim-1.0 "
                            "preset; on system \"%s\" (%s model) the workload replays with our "
                            "semantics, whose steady state %s sets",
                            th_cmd_name(d, io, "passes", a, sizeof a), sys->name,
                            th_model_name(sys->model),
                            th_cmd_name(d, io, "iterations", b, sizeof b));
    th_buf notes = {0};
    th_a1_scale scale = {r->comm_scale, r->compute_scale, 0};
    int rc = th_a1_convert(a1, sys, &scale, path, wl, &notes, err);
    if (rc == TH_OK && io->notes) io->notes("note", &notes);
    th_buf_free(&notes);
    return rc;
}

/* `themis train` on an ASTRA-sim 1.0 text workload: --comm-scale, --compute-scale and
 * --passes, and the workload converted to our format for our replay (our semantics). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

int cli_a1_option(const char *cmd, int which, const char *arg, cli_a1_opts *a) {
    static const char *const names[] = {"--comm-scale", "--compute-scale", "--passes"};
    a->given = 1;
    if (which == 2) {
        long long v;
        if (cli_parse_int(arg, 1, 100000, &v))
            return cli_usage_error(cmd, "--passes: expected 1 to 100000, got '%s'", arg);
        a->passes = (int)v;
        return CLI_OK;
    }
    char *end;
    errno = 0;
    double v = strtod(arg, &end);
    if (end == arg || *end || errno || !(v > 0) || v > 1e9)
        return cli_usage_error(cmd, "%s: expected a number > 0, got '%s'", names[which], arg);
    if (which == 0)
        a->scale.comm = v;
    else
        a->scale.compute = v;
    return CLI_OK;
}

void cli_print_notes(const th_buf *notes) {
    for (const char *p = notes->p; p && *p;) {
        const char *e = strchr(p, '\n');
        int n = e ? (int)(e - p) : (int)strlen(p);
        fprintf(stderr, "themis: note: %.*s\n", n, p);
        p += n + (e != NULL);
    }
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
static int replay_all(const cli_a1_opts *a, const cli_a1_run *run, const char *path,
                      const th_a1_workload *a1, const th_system *sys, th_error *err) {
    th_a1_replay_opts o = {0};
    int rc = th_a1_replay_opts_for(sys, run->def, run->chunks, a->passes, &a->scale, &o, err);
    if (rc) return rc;
    /* both outputs are opened before the work and replace their files only if all went well */
    int flags = run->force ? TH_OUTPUT_FORCE : 0;
    th_output out, trace;
    a1_trace tc = {NULL, a1, TH_POLICY_BASELINE, TH_INTRA_FIFO, 0};
    if ((rc = cli_out_open(&out, run->output ? run->output : "-", flags, err))) return rc;
    if (run->trace) {
        if ((rc = cli_out_open(&trace, run->trace, flags, err)))
            return cli_out_close(&out, rc, err);
        tc.out = trace.f;
        th_report_train_trace_header(tc.out);
    }
    th_a1_pairs_hooks hooks = {trace_pair, tc.out ? trace_row : NULL, &tc};
    th_a1_row rows[4];
    int n, shown;
    rc = th_a1_replay_pairs(sys, a1, path, &o, run->policy, run->intra, &hooks, rows, &n, &shown,
                            err);
    if (rc == TH_OK && tc.oom) rc = th_error_set(err, TH_EINTERNAL, "out of memory");
    if (rc == TH_OK) {
        th_a1_report rep = {sys, a1, &o, rows, shown};
        rc = th_a1_report_write(out.f, run->format, &rep, err);
    }
    if (run->trace) rc = cli_out_close(&trace, rc, err);
    rc = cli_out_close(&out, rc, err);
    th_a1_rows_free(rows, n);
    return rc;
}

int cli_a1_train(const cli_a1_opts *a, const cli_a1_run *run, const char *path,
                 const th_a1_workload *a1, const th_system *sys, th_workload **wl, th_error *err) {
    *wl = NULL;
    if (sys->model == TH_MODEL_ASTRA1) return replay_all(a, run, path, a1, sys, err);
    if (a->passes)
        return th_error_set(err, TH_EINPUT,
                            "--passes: ASTRA-sim 1.0's passes replay under the astra-sim-1.0 "
                            "preset; on system \"%s\" (%s model) the workload replays with our "
                            "semantics, whose steady state --iterations sets",
                            sys->name, th_model_name(sys->model));
    th_buf notes = {0};
    int rc = th_a1_convert(a1, sys, &a->scale, path, wl, &notes, err);
    if (rc == TH_OK) cli_print_notes(&notes);
    th_buf_free(&notes);
    return rc;
}

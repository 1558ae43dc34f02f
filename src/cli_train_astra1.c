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

static void trace_row(void *ctx, const th_train_event *ev) {
    a1_trace *t = ctx;
    if (th_a1_report_trace_row(t->out, t->wl, t->policy, t->intra, ev)) t->oom = 1;
}

/* ASTRA-sim 1.0's state machine under the 1.0 preset: every requested pair (and baseline +
 * fifo, the speedups' reference), written as the report asks, with the timeline of the
 * requested pairs in the trace. */
static int replay_all(const cli_a1_opts *a, const cli_a1_run *run, const char *path,
                      const th_a1_workload *a1, const th_system *sys, th_error *err) {
    int64_t chunks = run->chunks ? run->chunks : run->def->chunks;
    if (!chunks)
        return th_error_set(err, TH_EINPUT,
                            "chunks: system \"%s\" has no run.chunks (preferred-dataset-splits): "
                            "give -n N",
                            sys->name);
    if (run->policy >= 0 && run->policy != TH_POLICY_BASELINE && run->policy != TH_POLICY_THEMIS)
        return th_error_set(err, TH_EINPUT,
                            "-p %s: ASTRA-sim 1.0's replay takes baseline or themis (its "
                            "localBWAware and OfflineGreedy)",
                            th_policy_name((th_policy)run->policy));
    th_a1_replay_opts o = {0};
    o.model = TH_LOAD_ALPHA_BETA;
    o.chunks = chunks;
    o.passes = a->passes ? a->passes : 1;
    o.lifo = sys->a1.lifo;
    o.scale = a->scale;
    o.scale.tag = sys->a1.version == TH_A1_TUTORIAL;
    th_a1_row rows[5] = {0};
    int n = 0, ref = -1, rc = TH_OK;
    const th_policy pols[] = {TH_POLICY_BASELINE, TH_POLICY_THEMIS};
    for (int p = 0; p < 2; p++)
        for (int q = 0; q < 2; q++) {
            int asked = (run->policy < 0 || run->policy == (int)pols[p]) &&
                        (run->intra < 0 || run->intra == q);
            int base = p == 0 && q == 0;
            if (!asked && !base) continue;
            rows[n].policy = pols[p], rows[n].intra = (th_intra)q;
            if (base) ref = n;
            n++;
        }
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
    int asked_ref = (run->policy < 0 || run->policy == TH_POLICY_BASELINE) &&
                    (run->intra < 0 || run->intra == TH_INTRA_FIFO);
    for (int i = 0; i < n && rc == TH_OK; i++) {
        o.policy = rows[i].policy, o.intra = rows[i].intra;
        tc.policy = rows[i].policy, tc.intra = rows[i].intra;
        int traced = tc.out && (i != ref || asked_ref);
        rc = th_a1_replay_trace(sys, a1, path, &o, traced ? trace_row : NULL, &tc, &rows[i].res,
                                err);
        if (rc == TH_OK) {
            const double *e = rows[i].res.pass_end;
            int P = rows[i].res.passes;
            /* a steady-state pass needs one before it; MICRO's passes all end at tick 0 */
            rows[i].iteration = P >= 2 && a1->par != TH_A1_MICRO ? e[P - 1] - e[P - 2] : NAN;
        }
    }
    for (int i = 0; i < n && rc == TH_OK; i++)
        rows[i].speedup = rows[ref].res.total / rows[i].res.total;
    /* baseline + fifo ran for the speedups; listed only when asked for */
    th_a1_row shown[5];
    int k = 0;
    for (int i = 0; i < n; i++)
        if (i != ref || asked_ref) shown[k++] = rows[i];
    if (rc == TH_OK && tc.oom) rc = th_error_set(err, TH_EINTERNAL, "out of memory");
    if (rc == TH_OK) {
        th_a1_report rep = {sys, a1, &o, shown, k};
        rc = th_a1_report_write(out.f, run->format, &rep, err);
    }
    if (run->trace) rc = cli_out_close(&trace, rc, err);
    rc = cli_out_close(&out, rc, err);
    for (int i = 0; i < n; i++)
        th_a1_replay_result_free(&rows[i].res);
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

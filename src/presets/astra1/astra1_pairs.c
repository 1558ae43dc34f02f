/* ASTRA-sim 1.0's replay of a text workload for every policy pair asked, with baseline + fifo
 * (the speedups' reference) run too: the rows `themis train` and the API's train report. */
#include <math.h>

#include "astra1_preset.h"
#include "themis/astra1_workload.h"

int th_a1_replay_opts_for(const th_system *sys, const th_run_defaults *def, int64_t chunks,
                          int passes, const th_a1_scale *scale, th_a1_replay_opts *o,
                          th_error *err) {
    if (!chunks) chunks = def->chunks;
    if (!chunks)
        return th_error_set(err, TH_EINPUT,
                            "chunks: system \"%s\" has no run.chunks (preferred-dataset-splits): "
                            "give -n N (the API: \"chunks\")",
                            sys->name);
    *o = (th_a1_replay_opts){0};
    o->model = TH_LOAD_ALPHA_BETA;
    o->chunks = chunks;
    o->passes = passes ? passes : 1;
    o->lifo = astra1_of(sys)->lifo;
    o->scale = *scale;
    o->scale.tag = astra1_of(sys)->version == TH_A1_TUTORIAL;
    return TH_OK;
}

int th_a1_replay_pairs(const th_system *sys, const th_a1_workload *wl, const char *source,
                       th_a1_replay_opts *o, int policy, int intra, const th_a1_pairs_hooks *h,
                       th_a1_row rows[4], int *nrows, int *nshown, th_error *err) {
    *nrows = *nshown = 0;
    if (policy >= 0 && policy != TH_POLICY_BASELINE && policy != TH_POLICY_THEMIS)
        return th_error_set(err, TH_EINPUT,
                            "policy %s: ASTRA-sim 1.0's replay takes baseline or themis (its "
                            "localBWAware and OfflineGreedy)",
                            th_policy_name((th_policy)policy));
    /* the asked pairs in order, then baseline + fifo when it was not asked */
    static const th_policy pols[] = {TH_POLICY_BASELINE, TH_POLICY_THEMIS};
    int n = 0, asked_ref = 0;
    for (int p = 0; p < 2; p++)
        for (int q = 0; q < 2; q++)
            if ((policy < 0 || policy == (int)pols[p]) && (intra < 0 || intra == q)) {
                rows[n] = (th_a1_row){.policy = pols[p], .intra = (th_intra)q};
                asked_ref |= p == 0 && q == 0;
                n++;
            }
    *nshown = n;
    if (!asked_ref) rows[n++] = (th_a1_row){.policy = TH_POLICY_BASELINE, .intra = TH_INTRA_FIFO};
    *nrows = n; /* rows not run keep empty results: th_a1_rows_free frees them all */
    int ref = asked_ref ? 0 : n - 1, rc = TH_OK;
    /* the reference first, then the others in order */
    for (int k = 0; k < n && rc == TH_OK; k++) {
        int i = k == 0 ? ref : k - (k <= ref);
        o->policy = rows[i].policy, o->intra = rows[i].intra;
        int shown = h && i < *nshown; /* the reference, when not asked, is not told */
        if (shown && h->row) h->row(h->ctx, rows[i].policy, rows[i].intra);
        rc = th_a1_replay_trace(sys, wl, source, o, shown ? h->trace : NULL, shown ? h->ctx : NULL,
                                &rows[i].res, err);
        if (rc == TH_OK) {
            const double *e = rows[i].res.pass_end;
            int P = rows[i].res.passes;
            /* a steady-state pass needs one before it; MICRO's passes all end at tick 0 */
            rows[i].iteration = P >= 2 && wl->par != TH_A1_MICRO ? e[P - 1] - e[P - 2] : NAN;
        }
    }
    for (int i = 0; i < n && rc == TH_OK; i++)
        rows[i].speedup = rows[ref].res.total / rows[i].res.total;
    return rc;
}

void th_a1_rows_free(th_a1_row *rows, int n) {
    for (int i = 0; i < n; i++)
        th_a1_replay_result_free(&rows[i].res);
}

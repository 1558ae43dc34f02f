/* The comparison of policy pairs on one LLM execution, with the speedups against
 * baseline+fifo and against the ideal network, as train_compare.c does for layer workloads. */
#include <string.h>

#include "themis/bound.h"
#include "themis/llm.h"

int th_llm_compare(th_llm_ctx *c, const th_system *sys, const th_llm_model *m, const th_llm_exec *x,
                   int policy, int intra, th_llm_row *rows, int *nrows, th_error *err) {
    int n = 0;
    *nrows = 0;
    for (int p = 0; p < TH_POLICY_COUNT; p++) {
        if (policy >= 0 && policy != p) continue;
        if (policy < 0 && p == TH_POLICY_LP && !th_bound_supported(sys, 0)) continue;
        int ideal = p == TH_POLICY_IDEAL;
        for (int q = 0; q < 2; q++) {
            if (ideal && q > 0) break; /* the ideal network has no queues */
            if (!ideal && intra >= 0 && intra != q) continue;
            memset(&rows[n], 0, sizeof rows[n]);
            rows[n].policy = (th_policy)p;
            rows[n].intra = (th_intra)q;
            if (th_llm_eval(c, sys, m, x, (th_policy)p, (th_intra)q, &rows[n].res, err))
                return err->code;
            n++;
        }
    }
    double tb = -1, ti = -1;
    for (int i = 0; i < n; i++) {
        if (rows[i].policy == TH_POLICY_BASELINE && rows[i].intra == TH_INTRA_FIFO)
            tb = rows[i].res.iteration;
        if (rows[i].policy == TH_POLICY_IDEAL) ti = rows[i].res.iteration;
    }
    th_llm_result r;
    if (tb < 0) {
        if (th_llm_eval(c, sys, m, x, TH_POLICY_BASELINE, TH_INTRA_FIFO, &r, err)) return err->code;
        tb = r.iteration;
    }
    if (ti < 0) {
        if (th_llm_eval(c, sys, m, x, TH_POLICY_IDEAL, TH_INTRA_FIFO, &r, err)) return err->code;
        ti = r.iteration;
    }
    for (int i = 0; i < n; i++) {
        rows[i].speedup = tb / rows[i].res.iteration;
        rows[i].vs_ideal = ti / rows[i].res.iteration;
    }
    *nrows = n;
    return TH_OK;
}

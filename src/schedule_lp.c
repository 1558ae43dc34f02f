/* Policy lp: integer chunk counts per order from the bound's linear program, sequenced by a
 * greedy that keeps the dims' running loads balanced (the Themis idea, restricted to the
 * multiset of orders the program chose). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "schedule_internal.h"
#include "themis/bound.h"

/* Integer counts summing to C: floor(frac C) each, then one more to the largest remainders.
 * The floors sum to at most C and the remainders are below 1 each, so at most norders - 1
 * extra chunks are handed out and the sum is exactly C. */
static void counts_of(const th_bound_mix *mix, int64_t chunks, int64_t *cnt, double *rem) {
    int64_t sum = 0;
    for (int i = 0; i < mix->norders; i++) {
        double want = mix->frac[i] * (double)chunks;
        cnt[i] = (int64_t)floor(want);
        if (cnt[i] > chunks) cnt[i] = chunks;
        rem[i] = want - (double)cnt[i];
        sum += cnt[i];
    }
    while (sum < chunks) {
        int best = 0;
        for (int i = 1; i < mix->norders; i++)
            if (rem[i] > rem[best]) best = i;
        cnt[best]++;
        rem[best] = -1.0;
        sum++;
    }
    while (sum > chunks) { /* rounding of frac above 1 in total: take back from the largest */
        int best = 0;
        for (int i = 1; i < mix->norders; i++)
            if (cnt[i] > cnt[best]) best = i;
        cnt[best]--;
        sum--;
    }
}

int sched_plan_lp(th_plan *plan, const th_system *sys, const th_collective *coll, int mode,
                  th_error *err) {
    th_bound_mix mix;
    if (th_bound_mix_solve(sys, coll, &mix, err)) return th_bound_mix_free(&mix), err->code;
    int n = plan->n, no = mix.norders, ag = plan->type == TH_COLL_ALLGATHER;
    int64_t *cnt = malloc((size_t)no * sizeof *cnt);
    double *rem = malloc((size_t)no * sizeof *rem);
    double *add = malloc((size_t)no * TH_MAX_DIMS * sizeof *add); /* per order: time per dim */
    if (!cnt || !rem || !add) {
        free(cnt), free(rem), free(add), th_bound_mix_free(&mix);
        return th_error_set(err, TH_EINTERNAL, "out of memory");
    }
    counts_of(&mix, plan->chunks, cnt, rem);
    for (int o = 0; o < no; o++) {
        double *a = add + (size_t)o * TH_MAX_DIMS;
        memset(a, 0, TH_MAX_DIMS * sizeof *a);
        for (int j = 0; j < plan->nstages; j++) {
            int dim;
            th_op op;
            double m;
            plan->ops->stage(plan, mix.orders + (size_t)o * (size_t)n, j, &dim, &op, &m);
            a[dim] += th_cost_time(&sys->dims[dim], sys->reduce_bw, op, m);
        }
    }
    /* Each chunk takes, among the orders with chunks left, (sequence 0) the one whose stages
     * leave the largest running load smallest (ties: the smaller load sum, then list order), or
     * (sequence 1) the one closest to the Themis order: dims by running load ascending, compared
     * position by position (ties: list order). */
    double load[TH_MAX_DIMS] = {0};
    for (int64_t i = 0; i < plan->chunks; i++) {
        int best = -1;
        double best_max = INFINITY, best_sum = INFINITY;
        int rank[TH_MAX_DIMS];
        if (mode == 1) {
            int ord[TH_MAX_DIMS];
            memcpy(ord, plan->active, sizeof(int) * (size_t)n);
            for (int a = 1; a < n; a++) {
                int d = ord[a], j = a - 1;
                while (j >= 0 && load[ord[j]] > load[d])
                    ord[j + 1] = ord[j], j--;
                ord[j + 1] = d;
            }
            for (int a = 0; a < n; a++)
                rank[ord[a]] = a;
        }
        for (int o = 0; o < no; o++) {
            if (!cnt[o]) continue;
            const double *a = add + (size_t)o * TH_MAX_DIMS;
            double mx = 0, sum = 0;
            if (mode == 1) {
                const uint8_t *od = mix.orders + (size_t)o * (size_t)n;
                for (int k = 0; k < n; k++)
                    mx = mx * 32 + rank[od[ag ? n - 1 - k : k]];
            } else
                for (int k = 0; k < n; k++) {
                    int d = plan->active[k];
                    mx = fmax(mx, load[d] + a[d]);
                    sum += a[d];
                }
            if (mx < best_max || (mx == best_max && sum < best_sum)) {
                best = o, best_max = mx, best_sum = sum;
            }
        }
        cnt[best]--;
        const double *a = add + (size_t)best * TH_MAX_DIMS;
        for (int k = 0; k < n; k++)
            load[plan->active[k]] += a[plan->active[k]];
        memcpy(plan->order + (size_t)i * (size_t)n, mix.orders + (size_t)best * (size_t)n,
               (size_t)n);
    }
    for (int k = 0; k < n; k++)
        plan->load[plan->active[k]] = load[plan->active[k]];
    free(cnt), free(rem), free(add);
    th_bound_mix_free(&mix);
    return TH_OK;
}

/* `optimize`'s reports: the best split per pair and the best chunk count per pair (--chunks
 * LIST), as a table here or through the report's rows (JSON, JSONL, CSV), for cmd_optimize.c. */
#include <stdio.h>

#include "cmd_optimize.h"
#include "themis/buf.h"
#include "themis/csv.h"
#include "themis/num.h"

/* The best chunk count per pair, as a table, JSON, JSONL or CSV. */
int th_cmd_optimize_write_best(FILE *out, int format, const th_system *sys,
                               const th_collective *coll, const th_pair *pairs, const int64_t *best,
                               const double *t, int npairs, th_error *err) {
    if (format != TH_FORMAT_TABLE)
        return th_report_best_chunks_write(out, (th_format)format, sys, coll, pairs, best, t,
                                           npairs, err);
    char a[32];
    fprintf(out, "best chunk count per policy on %s (%s of %.15g bytes)\n", sys->name,
            th_coll_type_name(coll->type), coll->size);
    for (int i = 0; i < npairs; i++)
        fprintf(out, "  %-11s %-5s %8lld chunks  %s us\n", th_policy_name(pairs[i].policy),
                th_intra_name(pairs[i].intra), (long long)best[i], th_num_format(a, t[i] / 1000.0));
    return TH_OK;
}

int th_cmd_optimize_write(FILE *out, const th_optimize_request *r, const th_collective *coll,
                          const th_system *sys, const th_pair *pairs, const th_opt_result *res,
                          int n, th_error *err) {
    if (r->format != TH_FORMAT_TABLE) /* a list of collectives has no one size */
        return th_report_optimize_write(out, (th_format)r->format, sys,
                                        r->collectives.path || r->collectives.text ? NULL : coll,
                                        pairs, res, n, err);
    char a[32], b[32];
    const char *wl = r->workload.path ? r->workload.path : "workload";
    const char *list = r->collectives.path ? r->collectives.path : "collectives";
    if (r->workload.path || r->workload.text)
        fprintf(out, "steady-state iteration of %s on %s: best split of the bandwidth budget\n\n",
                wl, sys->name);
    else if (r->collectives.path || r->collectives.text)
        fprintf(out,
                "weighted sum of the times of the collectives in %s on %s: best split of the "
                "bandwidth budget\n\n",
                list, sys->name);
    else
        fprintf(out, "%s of %s bytes in %lld chunks on %s: best split of the bandwidth budget\n\n",
                th_coll_type_name(coll->type), th_num_format(a, coll->size),
                (long long)coll->chunks, sys->name);
    for (int i = 0; i < n; i++) {
        fprintf(out, "%s + %s: %s us (was %s us, %.4gx), %d evaluations, spent %.10g\n",
                th_policy_name(pairs[i].policy), th_intra_name(pairs[i].intra),
                th_num_format(a, res[i].time / 1000.0),
                th_num_format(b, res[i].start_time / 1000.0), res[i].start_time / res[i].time,
                res[i].evals, res[i].spent);
        for (int d = 0; d < sys->ndims; d++)
            fprintf(out, "  dim %d %-10s %14.10g GB/s (was %.10g)\n", d, sys->dims[d].name,
                    res[i].bw_GBps[d], sys->dims[d].bw_GBps);
    }
    return TH_OK;
}

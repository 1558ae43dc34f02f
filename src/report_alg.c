/* Which algorithm a dim runs for each collective type, named as the system file spells it
 * (the reports' "algorithm" and "algorithms"), under every model. */
#include <stdio.h>
#include <string.h>

#include "model.h"
#include "report_internal.h"

const char *th_report_dim_algorithm(const th_system *sys, int k, th_coll_type type, char *buf,
                                    size_t n) {
    const th_model_ops *m = th_model_of(sys);
    if (m->alg_name)
        m->alg_name(sys, k, type, buf, n);
    else
        snprintf(buf, n, "%s", th_algorithm_name(sys->dims[k].algorithm));
    return buf;
}

int th_report_dim_algorithms(cJSON *dim, const th_system *sys, int k, int type) {
    static const char *const keys[] = {"allreduce", "reducescatter", "allgather", "alltoall"};
    char a[TH_ALG_NAME], b[TH_ALG_NAME];
    th_coll_type main = type >= 0 ? (th_coll_type)type : TH_COLL_ALLREDUCE;
    if (!cJSON_AddStringToObject(dim, "algorithm",
                                 th_report_dim_algorithm(sys, k, main, a, sizeof a)))
        return -1;
    int nt = th_model_of(sys)->alg_types, same = 1;
    th_report_dim_algorithm(sys, k, TH_COLL_ALLREDUCE, a, sizeof a);
    for (int t = 1; t < nt; t++)
        same &= !strcmp(a, th_report_dim_algorithm(sys, k, (th_coll_type)t, b, sizeof b));
    if (same) return 0;
    cJSON *all = cJSON_AddObjectToObject(dim, "algorithms");
    if (!all) return -1;
    for (int t = 0; t < nt; t++)
        if (!cJSON_AddStringToObject(all, keys[t],
                                     th_report_dim_algorithm(sys, k, (th_coll_type)t, b, sizeof b)))
            return -1;
    return 0;
}

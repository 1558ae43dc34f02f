/* Which algorithm a dim runs for each collective type, named as the system file spells it
 * (the reports' "algorithm" and "algorithms"), under every model. */
#include <stdio.h>
#include <string.h>

#include "report_internal.h"
#include "themis/astra.h"
#include "themis/astra1.h"

const char *th_report_dim_algorithm(const th_system *sys, int k, th_coll_type type, char *buf,
                                    size_t n) {
    if (sys->model == TH_MODEL_ASTRA1) {
        int t = (unsigned)type < 4 ? (int)type : 0;
        th_a1_impl im = sys->a1.impl[t][k];
        int w = sys->a1.window[t][k];
        if (im == TH_A1_DIRECT && w > 0)
            snprintf(buf, n, "direct%d", w);
        else
            snprintf(buf, n, "%s", (unsigned)im < 3 ? th_a1_impl_names[im] : "?");
    } else if (sys->model == TH_MODEL_ASTRA) {
        snprintf(buf, n, "%s", th_algorithm_name(th_astra_algorithm(sys, type, k)));
    } else {
        snprintf(buf, n, "%s", th_algorithm_name(sys->dims[k].algorithm));
    }
    return buf;
}

/* The collective types whose algorithm a model lets differ per dim (the 2.x preset runs no
 * All-to-All, so it has none of its own). */
static int types_of(const th_system *sys) {
    return sys->model == TH_MODEL_ASTRA1 ? 4 : sys->model == TH_MODEL_ASTRA ? 3 : 1;
}

int th_report_dim_algorithms(cJSON *dim, const th_system *sys, int k, int type) {
    static const char *const keys[] = {"allreduce", "reducescatter", "allgather", "alltoall"};
    char a[TH_ALG_NAME], b[TH_ALG_NAME];
    th_coll_type main = type >= 0 ? (th_coll_type)type : TH_COLL_ALLREDUCE;
    if (!cJSON_AddStringToObject(dim, "algorithm",
                                 th_report_dim_algorithm(sys, k, main, a, sizeof a)))
        return -1;
    int nt = types_of(sys), same = 1;
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

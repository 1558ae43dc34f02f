/* `themis optimize` out: the best bandwidth split, or the best chunk count, per policy pair as
 * JSON (the table and CSV are the command's). */
#include "report_internal.h"

int th_report_optimize_json(FILE *out, const th_system *sys, const th_pair *pairs,
                            const th_opt_result *res, int n, th_error *err) {
    cJSON *root = cJSON_CreateObject();
    if (!root) return th_error_set(err, TH_EINTERNAL, "out of memory");
    cJSON_AddStringToObject(root, "system", sys->name);
    cJSON *arr = cJSON_AddArrayToObject(root, "results");
    for (int i = 0; i < n; i++) {
        cJSON *j = cJSON_CreateObject();
        cJSON_AddStringToObject(j, "policy", th_policy_name(pairs[i].policy));
        cJSON_AddStringToObject(j, "intra", th_intra_name(pairs[i].intra));
        cJSON_AddNumberToObject(j, "time_us", res[i].time / 1000.0);
        cJSON_AddNumberToObject(j, "start_time_us", res[i].start_time / 1000.0);
        cJSON_AddNumberToObject(j, "speedup", res[i].start_time / res[i].time);
        cJSON_AddNumberToObject(j, "spent", res[i].spent);
        cJSON_AddNumberToObject(j, "evaluations", res[i].evals);
        cJSON *bw = cJSON_AddArrayToObject(j, "bw_GBps");
        for (int d = 0; d < sys->ndims; d++)
            cJSON_AddItemToArray(bw, cJSON_CreateNumber(res[i].bw_GBps[d]));
        cJSON_AddItemToArray(arr, j);
    }
    return th_report_write_json(out, root, err);
}

int th_report_best_chunks_json(FILE *out, const th_pair *pairs, const int64_t *best,
                               const double *time, int n, th_error *err) {
    char a[32];
    for (int i = 0; i < n; i++)
        fprintf(out,
                "%s{\"policy\": \"%s\", \"intra\": \"%s\", \"best_chunks\": %lld, "
                "\"time_us\": %s}",
                i ? ", " : "[", th_policy_name(pairs[i].policy), th_intra_name(pairs[i].intra),
                (long long)best[i], th_num_format(a, time[i] / 1000.0));
    fputs(n ? "]\n" : "[]\n", out);
    return th_report_done(out, err);
}

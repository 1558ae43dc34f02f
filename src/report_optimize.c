/* `themis optimize` out: the best bandwidth split, or the best chunk count, per policy pair as
 * JSON, JSON lines or CSV, one row schema (docs/SCHEMA.md); the table is the command's. */
#include "report_internal.h"

int th_report_optimize_write(FILE *out, th_format format, const th_system *sys,
                             const th_collective *coll, const th_pair *pairs,
                             const th_opt_result *res, int n, th_error *err) {
    cJSON *root = cJSON_CreateObject();
    if (!root) return th_error_set(err, TH_EINTERNAL, "out of memory");
    cJSON_AddStringToObject(root, "system", sys->name);
    cJSON *arr = cJSON_AddArrayToObject(root, "results");
    for (int i = 0; i < n; i++) {
        cJSON *j = cJSON_CreateObject();
        cJSON_AddStringToObject(j, "system", sys->name);
        cJSON_AddStringToObject(j, "policy", th_policy_name(pairs[i].policy));
        cJSON_AddStringToObject(j, "intra", th_intra_name(pairs[i].intra));
        if (coll) {
            cJSON_AddNumberToObject(j, "size_bytes", coll->size);
            cJSON_AddNumberToObject(j, "chunks", (double)coll->chunks);
        } else { /* a list of collectives: no one size */
            cJSON_AddNullToObject(j, "size_bytes");
            cJSON_AddNullToObject(j, "chunks");
        }
        cJSON_AddNumberToObject(j, "time_us", res[i].time / 1000.0);
        cJSON_AddNumberToObject(j, "start_time_us", res[i].start_time / 1000.0);
        cJSON_AddNumberToObject(j, "speedup", res[i].start_time / res[i].time);
        cJSON_AddNumberToObject(j, "spent", res[i].spent);
        cJSON_AddNumberToObject(j, "evaluations", res[i].evals);
        cJSON *bw = cJSON_AddArrayToObject(j, "per_dim");
        for (int d = 0; d < sys->ndims; d++) {
            cJSON *x = cJSON_CreateObject();
            cJSON_AddNumberToObject(x, "bw_GBps", res[i].bw_GBps[d]);
            cJSON_AddItemToArray(bw, x);
        }
        cJSON_AddItemToArray(arr, j);
    }
    if (format == TH_FORMAT_CSV) return th_report_write_csv(out, root, "results", err);
    if (format == TH_FORMAT_JSONL) return th_report_write_jsonl(out, root, "results", err);
    return th_report_write_json(out, root, err);
}

int th_report_best_chunks_write(FILE *out, th_format format, const th_system *sys,
                                const th_collective *coll, const th_pair *pairs,
                                const int64_t *best, const double *time, int n, th_error *err) {
    cJSON *root = cJSON_CreateObject();
    if (!root) return th_error_set(err, TH_EINTERNAL, "out of memory");
    cJSON *arr = cJSON_AddArrayToObject(root, "results");
    for (int i = 0; i < n; i++) {
        cJSON *j = cJSON_CreateObject();
        cJSON_AddStringToObject(j, "system", sys->name);
        cJSON_AddStringToObject(j, "policy", th_policy_name(pairs[i].policy));
        cJSON_AddStringToObject(j, "intra", th_intra_name(pairs[i].intra));
        cJSON_AddNumberToObject(j, "size_bytes", coll->size);
        cJSON_AddNumberToObject(j, "best_chunks", (double)best[i]);
        cJSON_AddNumberToObject(j, "time_us", time[i] / 1000.0);
        cJSON_AddItemToArray(arr, j);
    }
    if (format == TH_FORMAT_CSV) return th_report_write_csv(out, root, "results", err);
    if (format == TH_FORMAT_JSONL) return th_report_write_jsonl(out, root, "results", err);
    /* JSON: the list of rows itself, as it always was */
    cJSON *list = cJSON_DetachItemFromObjectCaseSensitive(root, "results");
    cJSON_Delete(root);
    return th_report_write_json(out, list, err);
}

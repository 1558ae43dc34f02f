/* Reading the JSON file of nccl-tests -J: "args" (the program), "config.devices" (the ranks)
 * and "results" (one object per size, out_of_place and in_place times). */
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "calibrate_internal.h"
#include "json.h"
#include "themis/str.h"

/* One side of a result: {"time": us, "alg_bw": ..., "bus_bw": ..., "nwrong": n | null}; null
 * when that side was not run. */
static int side(const cJSON *res, const char *key, int k, th_cal_row *r, const char *src,
                const char *path, th_error *err) {
    const cJSON *o = cJSON_GetObjectItemCaseSensitive(res, key);
    if (!o || cJSON_IsNull(o)) return TH_OK;
    char p[96];
    th_json_path(p, sizeof p, path, key);
    if (!cJSON_IsObject(o)) return th_json_bad(err, src, p, "an object or null", o);
    if (cJSON_GetObjectItemCaseSensitive(o, "cpu_time"))
        return th_error_set(err, TH_EINPUT,
                            "%s: %s.cpu_time: the file reports CPU time (nccl-tests -C 1), not "
                            "the collective's time: run the test without -C",
                            src, p);
    double algbw = 0, busbw = 0;
    if (th_json_number(o, "time", 1, &r->time_us[k], src, p, err) ||
        th_json_number(o, "alg_bw", 0, &algbw, src, p, err) ||
        th_json_number(o, "bus_bw", 0, &busbw, src, p, err))
        return err->code;
    if (r->time_us[k] < 0) /* below 0 is how a row says "no time": not the log's to say */
        return th_error_set(err, TH_EINPUT, "%s: %s.time: expected a time > 0 us, got %g", src, p,
                            r->time_us[k]);
    const cJSON *w = cJSON_GetObjectItemCaseSensitive(o, "nwrong");
    if (w && !cJSON_IsNull(w) && th_json_number(o, "nwrong", 0, &r->wrong[k], src, p, err))
        return err->code;
    if (r->algbw == 0) r->algbw = algbw, r->busbw = busbw;
    return TH_OK;
}

int cal_parse_json(const char *text, size_t len, th_cal_log *log, th_error *err) {
    const char *src = log->source;
    cJSON *root;
    if (th_json_parse(text, len, src, &root, err)) return err->code;
    int rc = TH_OK;
    const cJSON *results = cJSON_GetObjectItemCaseSensitive(root, "results");
    if (!cJSON_IsObject(root) || !cJSON_IsArray(results)) {
        rc = th_error_set(err, TH_EINPUT,
                          "%s: not an nccl-tests JSON file (-J): no \"results\" list", src);
        goto out;
    }
    const cJSON *args = cJSON_GetObjectItemCaseSensitive(root, "args");
    const cJSON *arg0 = cJSON_IsArray(args) ? cJSON_GetArrayItem(args, 0) : NULL;
    if (cJSON_IsString(arg0))
        th_base_name(arg0->valuestring, "", log->program, sizeof log->program);
    const cJSON *config = cJSON_GetObjectItemCaseSensitive(root, "config");
    const cJSON *devices = cJSON_GetObjectItemCaseSensitive(config, "devices");
    const cJSON *d;
    int group = -1;
    cJSON_ArrayForEach(d, devices) {
        const cJSON *g = cJSON_GetObjectItemCaseSensitive(d, "group");
        int gi = cJSON_IsNumber(g) ? g->valueint : 0;
        if (group < 0) group = gi;
        if (gi == group) log->nranks++;
    }
    int i = 0;
    const cJSON *res;
    cJSON_ArrayForEach(res, results) {
        char path[32];
        snprintf(path, sizeof path, "results[%d]", i);
        th_cal_row r;
        memset(&r, 0, sizeof r);
        r.line = i++;
        r.time_us[0] = r.time_us[1] = -1;
        r.wrong[0] = r.wrong[1] = -1;
        char type[16] = "", redop[16] = "";
        if (!cJSON_IsObject(res)) {
            rc = th_json_bad(err, src, path, "an object", res);
            goto out;
        }
        if (th_json_number(res, "size", 1, &r.size, src, path, err) ||
            th_json_string(res, "type", type, sizeof type, src, path, err) ||
            th_json_string(res, "redop", redop, sizeof redop, src, path, err) ||
            side(res, "out_of_place", 0, &r, src, path, err) ||
            side(res, "in_place", 1, &r, src, path, err)) {
            rc = err->code;
            goto out;
        }
        for (int k = 0; k < 2; k++)
            if (r.time_us[k] >= 0) log->has_time[k] = 1;
        if ((rc = cal_add_row(log, &r, type, redop, err))) goto out;
    }
    if (log->nrows == 0)
        rc = th_error_set(err, TH_EINPUT, "%s: results: no result of size > 0", src);
out:
    cJSON_Delete(root);
    return rc;
}

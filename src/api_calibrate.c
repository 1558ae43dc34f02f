/* The embedding entry point's "calibrate": `themis calibrate -f json` (th_cal_run, --plot,
 * then its JSON report), its options as request keys. */
#include <string.h>

#include "api_internal.h"
#include "json.h"
#include "themis/calibrate.h"
#include "themis/plot.h"

/* "logs": one file name or a list of them. */
static int logs(const th_api_req *q, const char **paths, int *n, th_error *err) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(q->root, "logs");
    const char *expected = "a log file name or a list of them";
    *n = 0;
    if (!v || cJSON_IsNull(v))
        return th_error_set(err, TH_EINPUT, "%s: logs: missing (a file or a list of files)",
                            q->cmd);
    if (cJSON_IsString(v)) {
        paths[(*n)++] = v->valuestring;
        return TH_OK;
    }
    if (!cJSON_IsArray(v)) return th_json_bad(err, q->cmd, "logs", expected, v);
    const cJSON *f;
    cJSON_ArrayForEach(f, v) {
        if (!cJSON_IsString(f)) return th_json_bad(err, q->cmd, "logs", expected, v);
        if (*n == TH_CAL_MAX_LOGS)
            return th_error_set(err, TH_EINPUT, "%s: logs: at most %d logs", q->cmd,
                                TH_CAL_MAX_LOGS);
        paths[(*n)++] = f->valuestring;
    }
    return TH_OK;
}

int th_api_calibrate(const th_api_req *q, FILE *out, th_error *err) {
    static const char *const keys[] = {
        "logs",     "collective", "topology",    "npus", "algorithm", "name",
        "system",   "dim",        "efficiency",  "bw",   "in_place",  "min_size",
        "max_size", "tolerance",  "allow_wrong", "plot", "force",     NULL};
    const char *paths[TH_CAL_MAX_LOGS];
    th_cal_request r;
    memset(&r, 0, sizeof r);
    r.coll = r.topology = r.algorithm = r.dim = -1;
    r.fit.tolerance = 0.1;
    int64_t npus = 0, dim = -1;
    const char *plot = NULL;
    int force = 0;
    if (th_api_keys(q, keys, err) || logs(q, paths, &r.nlogs, err) ||
        th_json_enum(q->root, "collective", th_coll_type_names, &r.coll, q->cmd, "", err) ||
        th_json_enum(q->root, "topology", th_topology_names, &r.topology, q->cmd, "", err) ||
        th_json_enum(q->root, "algorithm", th_algorithm_names, &r.algorithm, q->cmd, "", err) ||
        th_api_int(q, "npus", 2, 1LL << 40, &npus, NULL, err) ||
        th_api_int(q, "dim", 0, TH_MAX_DIMS - 1, &dim, NULL, err) ||
        th_api_string(q, "name", &r.name, err) || th_api_string(q, "system", &r.system, err) ||
        th_api_bool(q, "efficiency", &r.efficiency, err) ||
        th_api_number(q, "bw", 0, 1e12, &r.bw, err) ||
        th_api_bool(q, "in_place", &r.fit.in_place, err) ||
        th_api_size(q, "min_size", &r.fit.min_size, err) ||
        th_api_size(q, "max_size", &r.fit.max_size, err) ||
        th_api_number(q, "tolerance", 0, 1e300, &r.fit.tolerance, err) ||
        th_api_bool(q, "allow_wrong", &r.fit.allow_wrong, err) ||
        th_api_string(q, "plot", &plot, err) || th_api_bool(q, "force", &force, err))
        return err->code;
    r.logs = paths;
    r.npus = npus;
    r.dim = (int)dim;
    if (th_cal_request_check(&r, err)) return th_api_blame(err, q->cmd);
    th_plot_format format;
    if (plot && th_plot_format_of(plot, &format, err)) {
        th_error e = *err;
        return th_error_set(err, e.code, "%s: plot: %s", q->cmd, e.msg);
    }
    const char *outputs[] = {plot};
    if (th_cal_output_check(&r, outputs, 1, err)) return err->code;
    th_cal_result res;
    int rc = th_cal_run(&r, &res, err);
    if (rc == TH_OK && plot) rc = th_cal_plot(plot, force, &res, NULL, err);
    if (rc == TH_OK) rc = th_cal_report_json(out, &r, &res, err);
    th_cal_result_free(&res);
    return rc;
}

/* Calibrated system files: a new one-dim system, or an existing system file with one dim's
 * latency_ns, bw_GBps and efficiency replaced and everything else kept. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "json.h"
#include "themis/calibrate.h"
#include "themis/run.h"

/* A fitted value to 6 significant digits: the fit is never that precise, and the file stays
 * readable (28.672, not 28.671999999999997). */
static double round6(double v) {
    char buf[32];
    snprintf(buf, sizeof buf, "%.6g", v);
    return strtod(buf, NULL);
}

static int set_number(cJSON *obj, const char *key, double v) {
    cJSON *n = cJSON_CreateNumber(round6(v));
    if (!n) return -1;
    if (cJSON_GetObjectItemCaseSensitive(obj, key))
        return cJSON_ReplaceItemInObjectCaseSensitive(obj, key, n) ? 0 : -1;
    return cJSON_AddItemToObject(obj, key, n) ? 0 : -1;
}

static int fitted(cJSON *d, const th_dim *dim) {
    if (set_number(d, "bw_GBps", dim->bw_GBps) || set_number(d, "latency_ns", dim->latency))
        return -1;
    if (dim->efficiency != 1.0) return set_number(d, "efficiency", dim->efficiency);
    cJSON_DeleteItemFromObjectCaseSensitive(d, "efficiency");
    return 0;
}

/* Prints root into *out and checks that it loads as a system. */
/* The fit is of one chunk (the logs time one call of the collective, which NCCL pipelines
 * itself): "run": {"chunks": 1} makes `themis run` on the file reproduce the measured times by
 * default. A "run" object that names its own chunks is kept. */
static int one_chunk(cJSON *root) {
    cJSON *run = cJSON_GetObjectItemCaseSensitive(root, "run");
    if (!run) run = cJSON_AddObjectToObject(root, "run");
    if (!cJSON_IsObject(run)) return run ? 0 : -1; /* the loader names the wrong "run" */
    if (cJSON_GetObjectItemCaseSensitive(run, "chunks")) return 0;
    return cJSON_AddNumberToObject(run, "chunks", 1) ? 0 : -1;
}

static int finish(cJSON *root, const char *source, char **out, th_error *err) {
    char *text = root ? cJSON_Print(root) : NULL;
    cJSON_Delete(root);
    if (!text) return th_error_set(err, TH_EINTERNAL, "%s: out of memory", source);
    th_system sys;
    th_run_defaults def;
    if (th_run_parse_system(text, strlen(text), source, &sys, &def, err)) {
        free(text);
        return err->code;
    }
    *out = text;
    return TH_OK;
}

int th_cal_system_new(const char *name, const char *description, const th_dim *dim, char **out,
                      th_error *err) {
    cJSON *root = cJSON_CreateObject(), *dims = NULL, *d = NULL;
    int bad = !root || (name && !cJSON_AddStringToObject(root, "name", name)) ||
              (description && !cJSON_AddStringToObject(root, "description", description)) ||
              !(dims = cJSON_AddArrayToObject(root, "dims")) || !(d = cJSON_CreateObject());
    if (!bad && !cJSON_AddItemToArray(dims, d)) {
        cJSON_Delete(d);
        bad = 1;
    }
    if (!bad)
        bad = !cJSON_AddStringToObject(d, "name", dim->name) ||
              !cJSON_AddStringToObject(d, "topology", th_topology_name(dim->topology)) ||
              !cJSON_AddStringToObject(d, "algorithm", th_algorithm_name(dim->algorithm)) ||
              !cJSON_AddNumberToObject(d, "npus", (double)dim->npus) || fitted(d, dim) ||
              one_chunk(root);
    if (bad) {
        cJSON_Delete(root);
        return th_error_set(err, TH_EINTERNAL, "calibrate: out of memory");
    }
    return finish(root, "the calibrated system", out, err);
}

int th_cal_system_update(const char *json, size_t len, const char *source, int k, const th_dim *dim,
                         char **out, th_error *err) {
    cJSON *root;
    if (th_json_parse(json, len, source, &root, err)) return err->code;
    cJSON *dims = cJSON_GetObjectItemCaseSensitive(root, "dims");
    cJSON *d = cJSON_IsArray(dims) ? cJSON_GetArrayItem(dims, k) : NULL;
    if (!cJSON_IsObject(d)) {
        int n = cJSON_IsArray(dims) ? cJSON_GetArraySize(dims) : 0;
        cJSON_Delete(root);
        return th_error_set(err, TH_EINPUT, "%s: dims[%d]: no such dim (the system has %d)", source,
                            k, n);
    }
    if (fitted(d, dim) || one_chunk(root)) {
        cJSON_Delete(root);
        return th_error_set(err, TH_EINTERNAL, "calibrate: out of memory");
    }
    return finish(root, source, out, err);
}

int th_cal_system_read(const char *path, char **text, size_t *len, th_system *sys, th_error *err) {
    if (th_json_read_file(path, text, len, err)) return err->code;
    th_run_defaults def;
    if (th_run_parse_system(*text, *len, strcmp(path, "-") ? path : "<stdin>", sys, &def, err)) {
        free(*text);
        *text = NULL;
        return err->code;
    }
    return TH_OK;
}

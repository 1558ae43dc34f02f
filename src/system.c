/* System files (SPEC §2): reading JSON with cJSON, validating every field, and the built-in
 * default system. Every error names the source, the JSON path, what was expected and what
 * was found. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "json.h"
#include "model.h"
#include "system_internal.h"
#include "themis/str.h"

/* "sources": where the values come from (any JSON, unread); "npu": the NPU (system_npu.c) */
static const char *const top_keys[] = {"name",  "description", "dims",    "reduce_GBps",
                                       "model", "npu",         "sources", NULL};
static const char *const run_key[] = {"run", NULL};
/* Appends the NULL-ended list `more` to `base` into out (at most n - 1 names), NULL-ended. */
static const char *const *join_keys(const char *const *base, const char *const *more,
                                    const char **out, int n) {
    int k = 0;
    for (; *base && k < n - 1; base++)
        out[k++] = *base;
    for (; *more && k < n - 1; more++)
        out[k++] = *more;
    out[k] = NULL;
    return out;
}
static const char *const dim_keys[] = {"name",       "topology",   "npus",
                                       "bw_GBps",    "latency_ns", "algorithm",
                                       "efficiency", "sources",    NULL};
const char *const th_topology_names[] = {"ring", "fc", "switch", NULL};
const char *const th_algorithm_names[] = {"ring", "direct", "rhd", NULL};

const char *th_topology_name(th_topology t) {
    return (unsigned)t < 3 ? th_topology_names[t] : "?";
}

const char *th_algorithm_name(th_algorithm a) {
    return (unsigned)a < 3 ? th_algorithm_names[a] : "?";
}

int th_topology_from_name(const char *s, th_topology *out) {
    int i = th_name_find(th_topology_names, s);
    if (i < 0) return -1;
    *out = (th_topology)i;
    return 0;
}

int th_algorithm_from_name(const char *s, th_algorithm *out) {
    int i = th_name_find(th_algorithm_names, s);
    if (i < 0) return -1;
    *out = (th_algorithm)i;
    return 0;
}

static int parse_dim(const cJSON *d, int k, th_dim *dim, const sys_model *model, const char *src,
                     th_error *err) {
    char path[32];
    snprintf(path, sizeof path, "dims[%d]", k);
    if (!cJSON_IsObject(d)) return th_json_bad(err, src, path, "an object", d);
    const char *keys[40];
    const char *const *known = join_keys(dim_keys, model->dim_keys, keys, 40);
    if (th_json_check_keys(d, known, src, path, err)) return err->code;
    memset(dim, 0, sizeof *dim);
    snprintf(dim->name, sizeof dim->name, "dim%d", k);
    if (th_json_string(d, "name", dim->name, sizeof dim->name, src, path, err)) return err->code;
    if (!cJSON_GetObjectItemCaseSensitive(d, "topology"))
        return th_error_set(err, TH_EINPUT,
                            "%s: %s.topology: missing (expected one of ring, fc, switch)", src,
                            path);
    int topo = 0, alg = -1;
    if (th_json_enum(d, "topology", th_topology_names, &topo, src, path, err)) return err->code;
    if (th_json_enum(d, "algorithm", th_algorithm_names, &alg, src, path, err)) return err->code;
    dim->topology = (th_topology)topo;
    dim->algorithm = alg >= 0 ? (th_algorithm)alg : model->algorithm[topo];

    double npus = 0;
    if (th_json_number(d, "npus", 1, &npus, src, path, err)) return err->code;
    if (npus < 1 || npus > TH_MAX_NPUS || npus != floor(npus)) {
        char p[64];
        snprintf(p, sizeof p, "%s.npus", path);
        return th_json_bad(err, src, p, "an integer from 1 to 2^40",
                           cJSON_GetObjectItemCaseSensitive(d, "npus"));
    }
    dim->npus = (int64_t)npus;
    if (th_json_number(d, "bw_GBps", 1, &dim->bw_GBps, src, path, err)) return err->code;
    if (th_json_number(d, "latency_ns", 1, &dim->latency, src, path, err)) return err->code;
    dim->efficiency = 1.0;
    if (th_json_number(d, "efficiency", 0, &dim->efficiency, src, path, err)) return err->code;
    return TH_OK;
}

static int parse_tree(const cJSON *root, const char *src, th_system *sys, sys_run_fn read_run,
                      void *ctx, th_error *err) {
    if (!cJSON_IsObject(root)) return th_json_bad(err, src, "(top level)", "an object", root);
    /* a model with fields of its own names them in "model"; the others' files never meet them */
    const cJSON *named = cJSON_GetObjectItemCaseSensitive(root, "model");
    int named_model = cJSON_IsString(named) ? th_name_find(th_model_names, named->valuestring) : -1;
    const th_model_ops *ext = th_model_get(named_model);
    /* known: the common fields, every model's own (another model's is refused below, by name)
     * and those the named model shares */
    const char *keys[2][40];
    const char *const *known = top_keys;
    const th_model_ops *m;
    int b = 0;
    for (int i = 0; (m = th_model_get(i)) != NULL; i++, b ^= 1)
        known = join_keys(known, m->sys->keys, keys[b], 40);
    known = join_keys(known, run_key, keys[b], 40), b ^= 1;
    if (ext) known = join_keys(known, ext->sys->shared_keys, keys[b], 40);
    if (th_json_expect_kind(root, "a system file", src, err) ||
        th_json_check_keys(root, known, src, "", err))
        return err->code;
    if (th_json_string(root, "name", sys->name, sizeof sys->name, src, "", err)) return err->code;
    if (th_json_string(root, "description", sys->description, sizeof sys->description, src, "",
                       err))
        return err->code;
    double reduce = 0;
    const cJSON *r = cJSON_GetObjectItemCaseSensitive(root, "reduce_GBps");
    if (r) {
        if (!cJSON_IsNumber(r) || !isfinite(r->valuedouble) || r->valuedouble <= 0)
            return th_json_bad(err, src, "reduce_GBps", "a number > 0", r);
        reduce = r->valuedouble;
    }
    sys->reduce_bw = reduce;
    const cJSON *npu = cJSON_GetObjectItemCaseSensitive(root, "npu");
    if (npu && sys_npu_parse(npu, src, &sys->npu, err)) return err->code;
    int model = 0; /* th_model's first: the analytical model */
    if (th_json_enum(root, "model", th_model_names, &model, src, "", err)) return err->code;
    sys->model = (th_model)model;
    const sys_model *own = th_model_of(sys)->sys;
    /* Another model's fields are an error; the model reads its own. */
    const th_model_ops *other;
    for (int m = 0; (other = th_model_get(m)) != NULL; m++)
        for (const char *const *key = other->sys->keys; m != model && *key; key++)
            if (cJSON_GetObjectItemCaseSensitive(root, *key) &&
                !(ext && th_name_find(ext->sys->shared_keys, *key) >= 0))
                return th_error_set(err, TH_EINPUT, "%s: %s: only used with \"model\": \"%s\"", src,
                                    *key, other->name);
    if (own->parse(root, sys, src, err)) return err->code;
    /* "run" holds defaults for `themis run`: the run layer's to read. */
    const cJSON *run = cJSON_GetObjectItemCaseSensitive(root, "run");
    if (run && read_run && read_run(run, ctx, src, err)) return err->code;
    const cJSON *dims = cJSON_GetObjectItemCaseSensitive(root, "dims");
    if (!dims)
        return th_error_set(err, TH_EINPUT,
                            "%s: dims: missing (expected an array of 1 to %d "
                            "dimension objects)",
                            src, TH_MAX_DIMS);
    if (!cJSON_IsArray(dims))
        return th_json_bad(err, src, "dims", "an array of dimension objects", dims);
    int n = cJSON_GetArraySize(dims);
    if (n < 1 || n > TH_MAX_DIMS)
        return th_error_set(err, TH_EINPUT, "%s: dims: expected 1 to %d dimensions, got %d", src,
                            TH_MAX_DIMS, n);
    sys->ndims = n;
    int k = 0;
    for (const cJSON *d = dims->child; d; d = d->next, k++) {
        if (parse_dim(d, k, &sys->dims[k], own, src, err)) return err->code;
        if (own->parse_dim && own->parse_dim(d, k, sys, src, err)) return err->code;
    }
    return th_system_validate(sys, src, err);
}

int sys_parse(const char *json, size_t len, const char *source, th_system *sys, sys_run_fn read_run,
              void *ctx, th_error *err) {
    memset(sys, 0, sizeof *sys);
    th_base_name(source, ".json", sys->name, sizeof sys->name);
    cJSON *root;
    if (th_json_parse(json, len, source, &root, err)) return err->code;
    int rc = parse_tree(root, source, sys, read_run, ctx, err);
    cJSON_Delete(root);
    return rc;
}

int sys_load(const char *path, th_system *sys, sys_run_fn read_run, void *ctx, th_error *err) {
    char *text;
    size_t len;
    if (th_json_read_file(path, &text, &len, err)) return err->code;
    int rc = sys_parse(text, len, strcmp(path, "-") ? path : "<stdin>", sys, read_run, ctx, err);
    free(text);
    return rc;
}

int th_system_parse(const char *json, size_t len, const char *source, th_system *sys,
                    th_error *err) {
    return sys_parse(json, len, source, sys, NULL, NULL, err);
}

int th_system_load(const char *path, th_system *sys, th_error *err) {
    return sys_load(path, sys, NULL, NULL, err);
}

/* Ours: reduce_GBps is a common field, and nothing else is added. */
static int analytical_parse(const cJSON *root, th_system *sys, const char *src, th_error *err) {
    (void)root, (void)sys, (void)src, (void)err;
    return TH_OK;
}

static int analytical_validate(const th_system *sys, const char *src, th_error *err) {
    (void)sys, (void)src, (void)err;
    return TH_OK;
}

/* B = bw_GBps * efficiency (GB/s = bytes per ns). */
static int analytical_dim(th_system *sys, int k, const char *src, th_error *err) {
    th_dim *d = &sys->dims[k];
    if (d->topology == TH_TOPO_RING && d->algorithm != TH_ALG_RING)
        return th_error_set(err, TH_EINPUT,
                            "%s: dims[%d].algorithm: expected ring on a ring topology, got %s "
                            "(not bandwidth-optimal on a ring)",
                            src, k, th_algorithm_name(d->algorithm));
    d->bw = d->bw_GBps * d->efficiency;
    if (!(d->bw >= TH_BW_MIN))
        return th_error_set(err, TH_EINPUT,
                            "%s: dims[%d].efficiency: the effective bandwidth bw_GBps * "
                            "efficiency = %.17g GB/s is below %g GB/s",
                            src, k, d->bw, TH_BW_MIN);
    return TH_OK;
}

static const char *const no_keys[] = {NULL};
/* A dim's default algorithm: bandwidth-optimal for its topology (SPEC §2). */
static const th_algorithm best[] = {TH_ALG_RING, TH_ALG_DIRECT, TH_ALG_RHD};
const sys_model sys_clean_model = {.keys = no_keys,
                                   .shared_keys = no_keys,
                                   .dim_keys = no_keys,
                                   .algorithm = best,
                                   .parse = analytical_parse,
                                   .validate = analytical_validate,
                                   .dim = analytical_dim};

int th_system_validate(th_system *sys, const char *src, th_error *err) {
    if (sys->ndims < 1 || sys->ndims > TH_MAX_DIMS)
        return th_error_set(err, TH_EINPUT, "%s: dims: expected 1 to %d dimensions, got %d", src,
                            TH_MAX_DIMS, sys->ndims);
    /* reduce_bw is bytes per ns = GB/s; 0 means reductions are free. */
    if (sys->reduce_bw != 0 && !(sys->reduce_bw >= TH_BW_MIN && sys->reduce_bw <= TH_BW_MAX))
        return th_error_set(err, TH_EINPUT,
                            "%s: reduce_GBps: expected a number > 0 (from %g to %g), got %.17g",
                            src, TH_BW_MIN, TH_BW_MAX, sys->reduce_bw);
    if (!th_model_get(sys->model))
        return th_error_set(err, TH_EINPUT, "%s: model: unknown model %d", src, (int)sys->model);
    const sys_model *model = th_model_get(sys->model)->sys;
    if (model->validate(sys, src, err)) return err->code;
    double total = 1;
    for (int k = 0; k < sys->ndims; k++) {
        th_dim *d = &sys->dims[k];
        if (d->npus < 1 || (double)d->npus > TH_MAX_NPUS)
            return th_error_set(err, TH_EINPUT,
                                "%s: dims[%d].npus: expected an integer from 1 to 2^40, got %lld",
                                src, k, (long long)d->npus);
        if (!(d->bw_GBps >= TH_BW_MIN && d->bw_GBps <= TH_BW_MAX))
            return th_error_set(err, TH_EINPUT,
                                "%s: dims[%d].bw_GBps: expected a number > 0 (from %g to %g), "
                                "got %.17g",
                                src, k, TH_BW_MIN, TH_BW_MAX, d->bw_GBps);
        if (!(d->latency >= 0 && d->latency <= TH_LATENCY_MAX))
            return th_error_set(err, TH_EINPUT,
                                "%s: dims[%d].latency_ns: expected a number >= 0 (at most %g), "
                                "got %.17g",
                                src, k, TH_LATENCY_MAX, d->latency);
        if (!(d->efficiency > 0 && d->efficiency <= 1))
            return th_error_set(err, TH_EINPUT,
                                "%s: dims[%d].efficiency: expected a number in (0, 1], got %.17g",
                                src, k, d->efficiency);
        if ((unsigned)d->topology > TH_TOPO_SWITCH || (unsigned)d->algorithm > TH_ALG_RHD)
            return th_error_set(err, TH_EINPUT, "%s: dims[%d]: invalid topology or algorithm", src,
                                k);
        if (model->dim(sys, k, src, err)) return err->code;
        total *= (double)d->npus;
        if (total > TH_MAX_NPUS)
            return th_error_set(err, TH_EINPUT,
                                "%s: dims[%d].npus: total NPUs over dims 0..%d exceed 2^40", src, k,
                                k);
    }
    sys->npus = total;
    return TH_OK;
}

void th_system_default(th_system *sys) {
    static const th_dim dims[3] = {
        {"package", TH_TOPO_RING, TH_ALG_RING, 4, 250, 1, 250, 20},
        {"node", TH_TOPO_FC, TH_ALG_DIRECT, 8, 200, 1, 200, 100},
        {"pod", TH_TOPO_SWITCH, TH_ALG_RHD, 16, 50, 1, 50, 1000},
    };
    memset(sys, 0, sizeof *sys);
    snprintf(sys->name, sizeof sys->name, "default-3d");
    snprintf(sys->description, sizeof sys->description,
             "SPEC default: package ring 4 x node fc 8 x pod switch 16 (512 NPUs)");
    sys->ndims = 3;
    memcpy(sys->dims, dims, sizeof dims);
    sys->npus = 512;
}

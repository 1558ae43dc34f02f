/* A system's NPU (key "npu"): its matrix and vector throughput, memory bandwidth and capacity
 * and efficiency curves, inline or in a file of its own next to the system file. Only LLM
 * workloads read it; every error names the file and the key. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "system_internal.h"
#include "themis/str.h"

static const char *const npu_keys[] = {
    "name",        "description", "sources",           "matrix_tflops",     "vector_tflops",
    "memory_GBps", "memory_gib",  "matrix_efficiency", "vector_efficiency", "memory_efficiency",
    NULL};
static const char *const file_keys[] = {"name", "description", "sources", "npu", NULL};

/* A required number > 0 (and at most max). */
static int positive(const cJSON *o, const char *key, double max, double *out, const char *src,
                    const char *path, th_error *err) {
    char p[128];
    th_json_path(p, sizeof p, path, key);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!v) return th_error_set(err, TH_EINPUT, "%s: %s: missing (a number > 0)", src, p);
    if (!cJSON_IsNumber(v) || !(v->valuedouble > 0) || v->valuedouble > max) {
        char what[64];
        snprintf(what, sizeof what, "a number > 0 (at most %g)", max);
        return th_json_bad(err, src, p, what, v);
    }
    *out = v->valuedouble;
    return TH_OK;
}

/* An optional fraction in (0, 1], default 1. */
static int fraction(const cJSON *o, const char *key, double *out, const char *src, const char *path,
                    th_error *err) {
    *out = 1;
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!v) return TH_OK;
    char p[128];
    th_json_path(p, sizeof p, path, key);
    if (!cJSON_IsNumber(v) || !(v->valuedouble > 0 && v->valuedouble <= 1))
        return th_json_bad(err, src, p, "a fraction in (0, 1]", v);
    *out = v->valuedouble;
    return TH_OK;
}

/* "matrix_efficiency": [[flops, fraction], ...], flops increasing. */
static int curve(const cJSON *o, th_npu *npu, const char *src, const char *path, th_error *err) {
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(o, "matrix_efficiency");
    npu->neff = 0;
    if (!c) return TH_OK;
    char p[128], q[160];
    th_json_path(p, sizeof p, path, "matrix_efficiency");
    int n = cJSON_GetArraySize(c);
    if (!cJSON_IsArray(c) || n < 1 || n > TH_NPU_EFF_MAX) {
        char what[96];
        snprintf(what, sizeof what, "a list of 1 to %d [flops, fraction] points", TH_NPU_EFF_MAX);
        return th_json_bad(err, src, p, what, c);
    }
    int k = 0;
    for (const cJSON *pt = c->child; pt; pt = pt->next, k++) {
        snprintf(q, sizeof q, "%s[%d]", p, k);
        const cJSON *f = cJSON_GetArrayItem(pt, 0), *e = cJSON_GetArrayItem(pt, 1);
        if (!cJSON_IsArray(pt) || cJSON_GetArraySize(pt) != 2 || !cJSON_IsNumber(f) ||
            !cJSON_IsNumber(e))
            return th_json_bad(err, src, q, "a point [flops, fraction]", pt);
        if (!(f->valuedouble > 0) || !isfinite(f->valuedouble) ||
            (k > 0 && !(f->valuedouble > npu->eff_flops[k - 1])))
            return th_error_set(err, TH_EINPUT,
                                "%s: %s[0]: expected flops > 0 and above the point before, got %g",
                                src, q, f->valuedouble);
        if (!(e->valuedouble > 0 && e->valuedouble <= 1))
            return th_error_set(err, TH_EINPUT, "%s: %s[1]: expected a fraction in (0, 1], got %g",
                                src, q, e->valuedouble);
        npu->eff_flops[k] = f->valuedouble;
        npu->eff[k] = e->valuedouble;
    }
    npu->neff = n;
    return TH_OK;
}

static int parse_fields(const cJSON *o, th_npu *npu, const char *src, const char *path,
                        th_error *err) {
    if (!cJSON_IsObject(o)) return th_json_bad(err, src, path, "an NPU object", o);
    if (th_json_check_keys(o, npu_keys, src, path, err)) return err->code;
    if (th_json_string(o, "name", npu->name, sizeof npu->name, src, path, err) ||
        positive(o, "matrix_tflops", 1e9, &npu->matrix_tflops, src, path, err) ||
        positive(o, "vector_tflops", 1e9, &npu->vector_tflops, src, path, err) ||
        positive(o, "memory_GBps", 1e9, &npu->memory_GBps, src, path, err) ||
        positive(o, "memory_gib", 1e9, &npu->memory_gib, src, path, err) ||
        curve(o, npu, src, path, err) ||
        fraction(o, "vector_efficiency", &npu->vector_efficiency, src, path, err) ||
        fraction(o, "memory_efficiency", &npu->memory_efficiency, src, path, err))
        return err->code;
    char buf[512];
    if (th_json_string(o, "description", buf, sizeof buf, src, path, err)) return err->code;
    npu->present = 1;
    return TH_OK;
}

/* An NPU file: {"name", "description", "npu": {...}, "sources"}. */
static int parse_file(const char *file, th_npu *npu, th_error *err) {
    char *text;
    size_t len;
    if (th_json_read_file(file, &text, &len, err)) return err->code;
    cJSON *root;
    int rc = th_json_parse(text, len, file, &root, err);
    free(text);
    if (rc) return rc;
    if (!cJSON_IsObject(root)) {
        rc = th_json_bad(err, file, "(top level)", "an NPU file object", root);
    } else if (!th_json_check_keys(root, file_keys, file, "", err)) {
        const cJSON *o = cJSON_GetObjectItemCaseSensitive(root, "npu");
        rc = o ? parse_fields(o, npu, file, "npu", err)
               : th_error_set(err, TH_EINPUT, "%s: npu: missing (the NPU's fields)", file);
        if (rc == TH_OK && !npu->name[0])
            rc = th_json_string(root, "name", npu->name, sizeof npu->name, file, "", err);
        if (rc == TH_OK && !npu->name[0]) th_base_name(file, ".json", npu->name, sizeof npu->name);
    } else {
        rc = err->code;
    }
    cJSON_Delete(root);
    return rc;
}

int sys_npu_parse(const cJSON *v, const char *src, th_npu *npu, th_error *err) {
    memset(npu, 0, sizeof *npu);
    if (cJSON_IsObject(v)) return parse_fields(v, npu, src, "npu", err);
    if (!cJSON_IsString(v) || !v->valuestring[0])
        return th_json_bad(err, src, "npu", "an NPU object or the path of an NPU file", v);
    /* a path relative to the system file's folder (stdin: the working directory) */
    const char *slash = strrchr(src, '/');
    const char *rel = v->valuestring;
    size_t dlen = rel[0] != '/' && slash && strcmp(src, "<stdin>") ? (size_t)(slash - src) + 1 : 0;
    size_t n = dlen + strlen(rel) + 1;
    char *file = malloc(n);
    if (!file) return th_error_set(err, TH_EINTERNAL, "out of memory");
    snprintf(file, n, "%.*s%s", (int)dlen, src, rel);
    th_error e;
    int rc = parse_file(file, npu, &e);
    if (rc) th_error_set(err, rc, "%s: npu: %s", src, e.msg);
    free(file);
    return rc;
}

double th_npu_memory_bytes(const th_npu *npu) {
    return npu->memory_gib * 1073741824.0;
}

/* System files (SPEC §2): reading JSON with cJSON, validating every field, and the built-in
 * default system. Every error names the source, the JSON path, what was expected and what
 * was found. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cjson/cJSON.h>

#include "themis/system.h"

#define FILE_MAX (16 << 20)
#define BW_MIN 1e-6      /* GB/s: below this every time overflows into nonsense */
#define BW_MAX 1e9       /* GB/s */
#define LATENCY_MAX 1e12 /* ns (1000 s) */

static const char *const top_keys[] = {"name", "description", "dims", "reduce_GBps", NULL};
static const char *const dim_keys[] = {"name",       "topology",  "npus",       "bw_GBps",
                                       "latency_ns", "algorithm", "efficiency", NULL};
static const char *const topo_names[] = {"ring", "fc", "switch", NULL};
static const char *const alg_names[] = {"ring", "direct", "rhd", NULL};

const char *th_topology_name(th_topology t) {
    return (unsigned)t < 3 ? topo_names[t] : "?";
}

const char *th_algorithm_name(th_algorithm a) {
    return (unsigned)a < 3 ? alg_names[a] : "?";
}

static int index_of(const char *const *names, const char *s) {
    for (int i = 0; names[i]; i++)
        if (strcmp(names[i], s) == 0) return i;
    return -1;
}

int th_topology_from_name(const char *s, th_topology *out) {
    int i = index_of(topo_names, s);
    if (i < 0) return -1;
    *out = (th_topology)i;
    return 0;
}

int th_algorithm_from_name(const char *s, th_algorithm *out) {
    int i = index_of(alg_names, s);
    if (i < 0) return -1;
    *out = (th_algorithm)i;
    return 0;
}

/* Case-insensitive edit distance, for "did you mean" on unknown keys. */
static int distance(const char *a, const char *b) {
    size_t la = strlen(a), lb = strlen(b);
    if (la > 63 || lb > 63) return 99;
    int row[64];
    for (size_t j = 0; j <= lb; j++) row[j] = (int)j;
    for (size_t i = 1; i <= la; i++) {
        int diag = row[0];
        row[0] = (int)i;
        for (size_t j = 1; j <= lb; j++) {
            int up = row[j];
            int cost = tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]);
            int best = diag + cost;
            if (up + 1 < best) best = up + 1;
            if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

static void join_names(const char *const *names, char *buf, size_t n) {
    buf[0] = '\0';
    for (int i = 0; names[i]; i++) {
        size_t len = strlen(buf);
        snprintf(buf + len, n - len, "%s%s", i ? ", " : "", names[i]);
    }
}

/* "; did you mean \"x\"?" when a known name is close, else the list of known names. */
static void suggest(const char *const *names, const char *got, char *buf, size_t n) {
    int best = -1, bestd = 99;
    for (int i = 0; names[i]; i++) {
        int d = distance(got, names[i]);
        if (d < bestd) bestd = d, best = i;
    }
    if (best >= 0 && bestd <= 3 && bestd < (int)strlen(names[best])) {
        snprintf(buf, n, "did you mean \"%s\"?", names[best]);
    } else {
        char list[200];
        join_names(names, list, sizeof list);
        snprintf(buf, n, "expected one of: %s", list);
    }
}

/* What a JSON value is, for "got ..." in messages. */
static void describe(const cJSON *v, char *buf, size_t n) {
    if (cJSON_IsNumber(v)) {
        snprintf(buf, n, "%.17g", v->valuedouble);
    } else if (cJSON_IsString(v)) {
        snprintf(buf, n, "the string \"%.60s\"", v->valuestring);
    } else if (cJSON_IsBool(v)) {
        snprintf(buf, n, "%s", cJSON_IsTrue(v) ? "true" : "false");
    } else if (cJSON_IsNull(v)) {
        snprintf(buf, n, "null");
    } else if (cJSON_IsArray(v)) {
        snprintf(buf, n, "an array");
    } else {
        snprintf(buf, n, "an object");
    }
}

static int bad(th_error *err, const char *src, const char *path, const char *expected,
               const cJSON *got) {
    char what[128];
    describe(got, what, sizeof what);
    return th_error_set(err, TH_EINPUT, "%s: %s: expected %s, got %s", src, path, expected,
                        what);
}

/* Rejects unknown and duplicate keys of an object. */
static int check_keys(const cJSON *obj, const char *const *known, const char *src,
                      const char *path, th_error *err) {
    for (const cJSON *a = obj->child; a; a = a->next) {
        if (index_of(known, a->string) < 0) {
            char hint[256];
            suggest(known, a->string, hint, sizeof hint);
            return th_error_set(err, TH_EINPUT, "%s: %s%s%s: unknown key; %s", src, path,
                                *path ? "." : "", a->string, hint);
        }
        for (const cJSON *b = obj->child; b != a; b = b->next)
            if (strcmp(a->string, b->string) == 0)
                return th_error_set(err, TH_EINPUT, "%s: %s%s%s: duplicate key", src, path,
                                    *path ? "." : "", a->string);
    }
    return TH_OK;
}

static int get_number(const cJSON *obj, const char *key, int required, double *out,
                      const char *src, const char *path, th_error *err) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    char p[96];
    snprintf(p, sizeof p, "%s.%s", path, key);
    if (!v) {
        if (required)
            return th_error_set(err, TH_EINPUT, "%s: %s: missing (a number is required)", src,
                                *path ? p : key);
        return TH_OK;
    }
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble))
        return bad(err, src, *path ? p : key, "a finite number", v);
    *out = v->valuedouble;
    return TH_OK;
}

static int get_string(const cJSON *obj, const char *key, char *out, size_t n,
                      const char *src, const char *path, th_error *err) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    char p[96];
    snprintf(p, sizeof p, "%s%s%s", path, *path ? "." : "", key);
    if (!v) return TH_OK;
    if (!cJSON_IsString(v)) return bad(err, src, p, "a string", v);
    if (strlen(v->valuestring) >= n) {
        return th_error_set(err, TH_EINPUT, "%s: %s: expected at most %zu characters, got %zu",
                            src, p, n - 1, strlen(v->valuestring));
    }
    memcpy(out, v->valuestring, strlen(v->valuestring) + 1);
    return TH_OK;
}

static int get_enum(const cJSON *obj, const char *key, const char *const *names, int *out,
                    const char *src, const char *path, th_error *err) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    char p[96];
    snprintf(p, sizeof p, "%s.%s", path, key);
    if (!v) return TH_OK;
    char list[128];
    join_names(names, list, sizeof list);
    char expected[160];
    snprintf(expected, sizeof expected, "one of %s", list);
    if (!cJSON_IsString(v)) return bad(err, src, p, expected, v);
    int i = index_of(names, v->valuestring);
    if (i < 0) {
        char hint[256];
        suggest(names, v->valuestring, hint, sizeof hint);
        return th_error_set(err, TH_EINPUT, "%s: %s: unknown value \"%.60s\"; %s", src, p,
                            v->valuestring, hint);
    }
    *out = i;
    return TH_OK;
}

static int parse_dim(const cJSON *d, int k, th_dim *dim, const char *src, th_error *err) {
    char path[32];
    snprintf(path, sizeof path, "dims[%d]", k);
    if (!cJSON_IsObject(d)) return bad(err, src, path, "an object", d);
    if (check_keys(d, dim_keys, src, path, err)) return err->code;
    memset(dim, 0, sizeof *dim);
    snprintf(dim->name, sizeof dim->name, "dim%d", k);
    if (get_string(d, "name", dim->name, sizeof dim->name, src, path, err)) return err->code;
    if (!cJSON_GetObjectItemCaseSensitive(d, "topology"))
        return th_error_set(err, TH_EINPUT,
                            "%s: %s.topology: missing (expected one of ring, fc, switch)", src,
                            path);
    int topo = 0, alg = -1;
    if (get_enum(d, "topology", topo_names, &topo, src, path, err)) return err->code;
    if (get_enum(d, "algorithm", alg_names, &alg, src, path, err)) return err->code;
    dim->topology = (th_topology)topo;
    static const th_algorithm defaults[] = {TH_ALG_RING, TH_ALG_DIRECT, TH_ALG_RHD};
    dim->algorithm = alg < 0 ? defaults[topo] : (th_algorithm)alg;

    double npus = 0;
    if (get_number(d, "npus", 1, &npus, src, path, err)) return err->code;
    if (npus < 1 || npus > TH_MAX_NPUS || npus != floor(npus)) {
        char p[64];
        snprintf(p, sizeof p, "%s.npus", path);
        return bad(err, src, p, "an integer from 1 to 2^40",
                   cJSON_GetObjectItemCaseSensitive(d, "npus"));
    }
    dim->npus = (int64_t)npus;
    if (get_number(d, "bw_GBps", 1, &dim->bw_GBps, src, path, err)) return err->code;
    if (get_number(d, "latency_ns", 1, &dim->latency, src, path, err)) return err->code;
    dim->efficiency = 1.0;
    if (get_number(d, "efficiency", 0, &dim->efficiency, src, path, err)) return err->code;
    return TH_OK;
}

static int parse_tree(const cJSON *root, const char *src, th_system *sys, th_error *err) {
    if (!cJSON_IsObject(root)) return bad(err, src, "(top level)", "an object", root);
    if (check_keys(root, top_keys, src, "", err)) return err->code;
    if (get_string(root, "name", sys->name, sizeof sys->name, src, "", err)) return err->code;
    if (get_string(root, "description", sys->description, sizeof sys->description, src, "",
                   err))
        return err->code;
    double reduce = 0;
    const cJSON *r = cJSON_GetObjectItemCaseSensitive(root, "reduce_GBps");
    if (r) {
        if (!cJSON_IsNumber(r) || !isfinite(r->valuedouble) || r->valuedouble <= 0)
            return bad(err, src, "reduce_GBps", "a number > 0", r);
        reduce = r->valuedouble;
    }
    sys->reduce_bw = reduce;
    const cJSON *dims = cJSON_GetObjectItemCaseSensitive(root, "dims");
    if (!dims)
        return th_error_set(err, TH_EINPUT, "%s: dims: missing (expected an array of 1 to %d "
                            "dimension objects)", src, TH_MAX_DIMS);
    if (!cJSON_IsArray(dims)) return bad(err, src, "dims", "an array of dimension objects", dims);
    int n = cJSON_GetArraySize(dims);
    if (n < 1 || n > TH_MAX_DIMS)
        return th_error_set(err, TH_EINPUT, "%s: dims: expected 1 to %d dimensions, got %d", src,
                            TH_MAX_DIMS, n);
    sys->ndims = n;
    int k = 0;
    for (const cJSON *d = dims->child; d; d = d->next, k++)
        if (parse_dim(d, k, &sys->dims[k], src, err)) return err->code;
    return th_system_validate(sys, src, err);
}

/* "dir/x.json" -> "x". */
static void base_name(const char *src, char *out, size_t n) {
    const char *b = strrchr(src, '/');
    b = b ? b + 1 : src;
    size_t len = strlen(b);
    if (len > 5 && strcmp(b + len - 5, ".json") == 0) len -= 5;
    if (len >= n) len = n - 1;
    memcpy(out, b, len);
    out[len] = '\0';
}

int th_system_parse(const char *json, size_t len, const char *source, th_system *sys,
                    th_error *err) {
    memset(sys, 0, sizeof *sys);
    base_name(source, sys->name, sizeof sys->name);
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(json, len, &end, 0);
    if (!root) {
        size_t off = end && end >= json ? (size_t)(end - json) : 0;
        if (off > len) off = len;
        int line = 1, col = 1;
        for (size_t i = 0; i < off; i++) {
            if (json[i] == '\n') line++, col = 1;
            else col++;
        }
        size_t first = off;
        while (first < len && isspace((unsigned char)json[first])) first++;
        if (first >= len)
            return th_error_set(err, TH_EINPUT,
                                "%s:%d:%d: invalid JSON: unexpected end of file", source, line,
                                col);
        char near[24];
        size_t m = 0;
        for (size_t i = off; i < len && m < 20 && json[i] != '\n'; i++)
            near[m++] = isprint((unsigned char)json[i]) ? json[i] : '?';
        near[m] = '\0';
        size_t rest = off + m;
        while (rest < len && isspace((unsigned char)json[rest])) rest++;
        return th_error_set(err, TH_EINPUT, "%s:%d:%d: invalid JSON near \"%s\"%s", source,
                            line, col, near, rest >= len ? " (the file ends there)" : "");
    }
    /* Trailing text after the value is almost always a mistake (two objects, a stray brace). */
    const char *p = end;
    while (p && p < json + len && isspace((unsigned char)*p)) p++;
    int rc = TH_OK;
    if (p && p < json + len && *p != '\0')
        rc = th_error_set(err, TH_EINPUT, "%s: invalid JSON: unexpected text after the top-level "
                          "object", source);
    else
        rc = parse_tree(root, source, sys, err);
    cJSON_Delete(root);
    return rc;
}

int th_system_load(const char *path, th_system *sys, th_error *err) {
    int is_stdin = strcmp(path, "-") == 0;
    FILE *f = is_stdin ? stdin : fopen(path, "rb");
    const char *src = is_stdin ? "<stdin>" : path;
    if (!f) return th_error_set(err, TH_EINPUT, "%s: cannot open: %s", path, strerror(errno));
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    int rc = TH_OK;
    while (buf) {
        if (len + 1 >= cap) {
            if (cap >= FILE_MAX) {
                rc = th_error_set(err, TH_EINPUT, "%s: file larger than %d MiB", src,
                                  FILE_MAX >> 20);
                break;
            }
            char *nb = realloc(buf, cap * 2);
            if (!nb) break;
            buf = nb, cap *= 2;
        }
        size_t got = fread(buf + len, 1, cap - len - 1, f);
        len += got;
        if (got == 0) {
            if (ferror(f)) rc = th_error_set(err, TH_EINPUT, "%s: read error", src);
            break;
        }
    }
    if (!is_stdin) fclose(f);
    if (!buf) return th_error_set(err, TH_EINTERNAL, "%s: out of memory", src);
    if (rc == TH_OK) {
        buf[len] = '\0';
        rc = th_system_parse(buf, len, src, sys, err);
    }
    free(buf);
    return rc;
}

int th_system_validate(th_system *sys, const char *src, th_error *err) {
    if (sys->ndims < 1 || sys->ndims > TH_MAX_DIMS)
        return th_error_set(err, TH_EINPUT, "%s: dims: expected 1 to %d dimensions, got %d", src,
                            TH_MAX_DIMS, sys->ndims);
    if (!isfinite(sys->reduce_bw) || sys->reduce_bw < 0)
        return th_error_set(err, TH_EINPUT, "%s: reduce_GBps: expected a number > 0, got %g",
                            src, sys->reduce_bw);
    double total = 1;
    for (int k = 0; k < sys->ndims; k++) {
        th_dim *d = &sys->dims[k];
        if (d->npus < 1 || (double)d->npus > TH_MAX_NPUS)
            return th_error_set(err, TH_EINPUT,
                                "%s: dims[%d].npus: expected an integer from 1 to 2^40, got %lld",
                                src, k, (long long)d->npus);
        if (!(d->bw_GBps >= BW_MIN && d->bw_GBps <= BW_MAX))
            return th_error_set(err, TH_EINPUT,
                                "%s: dims[%d].bw_GBps: expected a number > 0 (from %g to %g), "
                                "got %.17g", src, k, BW_MIN, BW_MAX, d->bw_GBps);
        if (!(d->latency >= 0 && d->latency <= LATENCY_MAX))
            return th_error_set(err, TH_EINPUT,
                                "%s: dims[%d].latency_ns: expected a number >= 0 (at most %g), "
                                "got %.17g", src, k, LATENCY_MAX, d->latency);
        if (!(d->efficiency > 0 && d->efficiency <= 1))
            return th_error_set(err, TH_EINPUT,
                                "%s: dims[%d].efficiency: expected a number in (0, 1], got %.17g",
                                src, k, d->efficiency);
        if ((unsigned)d->topology > TH_TOPO_SWITCH || (unsigned)d->algorithm > TH_ALG_RHD)
            return th_error_set(err, TH_EINPUT, "%s: dims[%d]: invalid topology or algorithm",
                                src, k);
        if (d->topology == TH_TOPO_RING && d->algorithm != TH_ALG_RING)
            return th_error_set(err, TH_EINPUT,
                                "%s: dims[%d].algorithm: expected ring on a ring topology, got %s "
                                "(not bandwidth-optimal on a ring)",
                                src, k, th_algorithm_name(d->algorithm));
        d->bw = d->bw_GBps * d->efficiency;
        total *= (double)d->npus;
        if (total > TH_MAX_NPUS)
            return th_error_set(err, TH_EINPUT,
                                "%s: dims[%d].npus: total NPUs over dims 0..%d exceed 2^40", src,
                                k, k);
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

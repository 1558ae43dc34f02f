/* Process groups of a Chakra trace: ASTRA-sim 2.x's communicator group file (a JSON object,
 * group id -> the ranks in it), read and checked, and a group placed on a system's dims (a
 * collective whose pg_name names the group runs on the dims the group takes whole). */
#include <stdlib.h>
#include <string.h>

#include "../json.h"
#include "chakra.h"
#include "themis/buf.h"

static int cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* A group id as ASTRA-sim reads a key (a whole number > 0; 0 is every NPU). */
static int group_id(const char *key, int32_t *id) {
    long long v = 0;
    if (!key[0]) return -1;
    for (const char *p = key; *p; p++) {
        if (*p < '0' || *p > '9' || v > INT32_MAX) return -1;
        v = v * 10 + (*p - '0');
    }
    if (v < 1 || v > INT32_MAX) return -1;
    *id = (int32_t)v;
    return 0;
}

int th_ck_groups_parse(const char *text, size_t len, const char *src, th_ck_groups **out,
                       th_error *err) {
    *out = NULL;
    cJSON *root;
    if (th_json_parse(text, len, src, &root, err)) return err->code;
    int rc = TH_OK;
    th_ck_groups *g = calloc(1, sizeof *g);
    if (!g) {
        cJSON_Delete(root);
        return th_error_set(err, TH_EINTERNAL, "out of memory");
    }
    snprintf(g->src, sizeof g->src, "%s", src);
    size_t rcap = 0, gcap = 0;
    if (!cJSON_IsObject(root)) {
        rc = th_json_bad(err, src, "(top level)", "an object of process groups (\"1\": [0, 1])",
                         root);
        goto done;
    }
    const cJSON *grp;
    cJSON_ArrayForEach(grp, root) {
        int32_t id;
        if (group_id(grp->string, &id)) {
            rc = th_error_set(err, TH_EINPUT,
                              "%s: \"%s\": expected a process group's id, a whole number from 1 "
                              "(0 is every NPU)",
                              src, grp->string);
            goto done;
        }
        for (int k = 0; k < g->n; k++)
            if (g->id[k] == id) {
                rc = th_error_set(err, TH_EINPUT, "%s: \"%s\": group %d given twice", src,
                                  grp->string, (int)id);
                goto done;
            }
        if (!cJSON_IsArray(grp) || cJSON_GetArraySize(grp) == 0) {
            rc = th_json_bad(err, src, grp->string, "a non-empty list of ranks", grp);
            goto done;
        }
        size_t first = g->nranks;
        const cJSON *v;
        int at = 0;
        cJSON_ArrayForEach(v, grp) {
            char path[96];
            snprintf(path, sizeof path, "%s[%d]", grp->string, at++);
            if (!cJSON_IsNumber(v) || v->valuedouble < 0 || v->valuedouble > INT32_MAX ||
                v->valuedouble != (double)(int64_t)v->valuedouble) {
                rc = th_json_bad(err, src, path, "a rank (a whole number >= 0)", v);
                goto done;
            }
            if (g->nranks == rcap && th_grow(&g->rank, &rcap, g->nranks + 1, sizeof *g->rank)) {
                rc = th_error_set(err, TH_EINTERNAL, "out of memory");
                goto done;
            }
            g->rank[g->nranks++] = (int64_t)v->valuedouble;
        }
        qsort(g->rank + first, g->nranks - first, sizeof *g->rank, cmp_i64);
        for (size_t k = first + 1; k < g->nranks; k++)
            if (g->rank[k] == g->rank[k - 1]) {
                rc = th_error_set(err, TH_EINPUT, "%s: %s: rank %lld listed twice", src,
                                  grp->string, (long long)g->rank[k]);
                goto done;
            }
        size_t cap2 = gcap;
        if ((size_t)g->n + 2 > gcap &&
            (th_grow(&g->id, &gcap, (size_t)g->n + 1, sizeof *g->id) ||
             th_grow(&g->off, &cap2, (size_t)g->n + 2, sizeof *g->off))) {
            rc = th_error_set(err, TH_EINTERNAL, "out of memory");
            goto done;
        }
        g->id[g->n] = id;
        g->off[g->n] = first;
        g->off[++g->n] = g->nranks;
    }
    if (g->n == 0)
        rc =
            th_error_set(err, TH_EINPUT, "%s: no process group (expected \"1\": [0, 1], ...)", src);
done:
    cJSON_Delete(root);
    if (rc) {
        th_ck_groups_free(g);
        return rc;
    }
    *out = g;
    return TH_OK;
}

int th_ck_groups_load(const char *path, th_ck_groups **out, th_error *err) {
    char *text;
    size_t len;
    *out = NULL;
    if (th_json_read_file(path, &text, &len, err)) return err->code;
    int rc = th_ck_groups_parse(text, len, strcmp(path, "-") ? path : "<stdin>", out, err);
    free(text);
    return rc;
}

void th_ck_groups_free(th_ck_groups *g) {
    if (!g) return;
    free(g->id);
    free(g->off);
    free(g->rank);
    free(g);
}

int th_ck_group_find(const th_ck_groups *g, int32_t id) {
    for (int k = 0; g && k < g->n; k++)
        if (g->id[k] == id) return k;
    return -1;
}

int th_ck_group_dims(const th_ck_groups *g, int k, const th_system *sys, uint32_t *mask,
                     th_error *err) {
    const int64_t *r = g->rank + g->off[k];
    size_t n = g->off[k + 1] - g->off[k];
    *mask = 0;
    if ((double)r[n - 1] >= sys->npus)
        return th_error_set(err, TH_EINPUT,
                            "%s: group %d: rank %lld, and system \"%s\" has %.17g NPUs", g->src,
                            (int)g->id[k], (long long)r[n - 1], sys->name, sys->npus);
    /* the dims in which some rank's coordinate differs from the first one's */
    uint8_t seen[TH_MAX_DIMS][64] = {{0}};
    int distinct[TH_MAX_DIMS] = {0};
    for (size_t j = 0; j < n; j++) {
        int64_t a = r[0], b = r[j];
        for (int d = 0; d < sys->ndims; d++) {
            int64_t p = sys->dims[d].npus, ca = a % p, cb = b % p;
            a /= p, b /= p;
            if (ca != cb) *mask |= 1u << d;
            if (cb < 64 * 8 && !(seen[d][cb / 8] >> (cb % 8) & 1)) {
                seen[d][cb / 8] |= (uint8_t)(1u << (cb % 8));
                distinct[d]++;
            }
        }
    }
    double whole = 1;
    for (int d = 0; d < sys->ndims; d++)
        if ((*mask >> d) & 1u) whole *= (double)sys->dims[d].npus;
    if (*mask == 0)
        return th_error_set(err, TH_EINPUT,
                            "%s: group %d: one NPU (%lld): a collective on it moves nothing, and "
                            "ASTRA-sim 2.x never finishes it",
                            g->src, (int)g->id[k], (long long)r[0]);
    if ((double)n == whole) return TH_OK;
    for (int d = 0; d < sys->ndims; d++)
        if ((*mask >> d) & 1u && distinct[d] < sys->dims[d].npus)
            return th_error_set(
                err, TH_EINPUT,
                "%s: group %d takes %d of the %lld NPUs of dim %d of system \"%s\": "
                "themis runs a group's collective on the dims it takes whole",
                g->src, (int)g->id[k], distinct[d], (long long)sys->dims[d].npus, d, sys->name);
    return th_error_set(err, TH_EINPUT,
                        "%s: group %d: %zu ranks, not every NPU of the dims it spans (%.17g): "
                        "themis runs a group's collective on the dims it takes whole",
                        g->src, (int)g->id[k], n, whole);
}

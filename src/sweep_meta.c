/* The provenance sidecar of a sweep file (OUT.meta.json): which themis and which spec wrote it,
 * by which commands, when, on how many threads, and whether the file is complete. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "json.h"
#include "report_internal.h"
#include "themis/sha256.h"
#include "themis/str.h"
#include "themis/sweep.h"
#include "themis/version.h"

char *th_sweep_meta_path(const char *out) {
    size_t n = strlen(out) + sizeof ".meta.json";
    char *p = malloc(n);
    if (p) snprintf(p, n, "%s.meta.json", out);
    return p;
}

char *th_sweep_meta_read(const char *path) {
    char *text;
    size_t len;
    th_error ignore; /* a missing or unreadable sidecar is one that says nothing */
    return th_json_read_file(path, &text, &len, &ignore) == TH_OK ? text : NULL;
}

int th_sweep_meta_is(const char *text) {
    cJSON *j = text ? cJSON_Parse(text) : NULL;
    int is = cJSON_IsObject(j) &&
             cJSON_IsString(cJSON_GetObjectItemCaseSensitive(j, "themis_version")) &&
             cJSON_IsString(cJSON_GetObjectItemCaseSensitive(j, "file")) &&
             cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(j, "runs"));
    cJSON_Delete(j);
    return is;
}

/* "2026-12-03T08:30:00Z"; null for 0 (not yet). */
static cJSON *when(int64_t t) {
    if (!t) return cJSON_CreateNull();
    time_t s = (time_t)t;
    struct tm tm;
    char buf[32];
    if (!gmtime_r(&s, &tm) || !strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm))
        return cJSON_CreateNull();
    return cJSON_CreateString(buf);
}

static cJSON *count(int64_t v) {
    return v < 0 ? cJSON_CreateNull() : cJSON_CreateNumber((double)v);
}

static cJSON *command(const th_sweep_meta *m) {
    cJSON *a = cJSON_CreateArray();
    for (int i = 0; a && i < m->argc; i++)
        cJSON_AddItemToArray(a, cJSON_CreateString(m->argv[i]));
    return a;
}

/* This run, as an entry of "runs". */
static cJSON *this_run(const th_sweep_meta *m) {
    cJSON *r = cJSON_CreateObject();
    cJSON_AddItemToObject(r, "command", command(m));
    if (m->threads > 0) cJSON_AddNumberToObject(r, "threads", m->threads);
    cJSON_AddItemToObject(r, "started", when(m->started));
    cJSON_AddItemToObject(r, "finished", when(m->finished));
    cJSON_AddNumberToObject(r, "points", (double)m->points);
    if (m->stopped) cJSON_AddStringToObject(r, "stopped", m->stopped);
    return r;
}

static const char *string_of(const cJSON *o, const char *key) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static int same(const char *a, const char *b) {
    return a && b && !strcmp(a, b);
}

int th_sweep_meta_write(FILE *out, const th_sweep_meta *m, const char *prev, th_error *err) {
    char sha[65] = "", shard[64];
    if (m->spec_sha256)
        snprintf(sha, sizeof sha, "%s", m->spec_sha256);
    else if (m->spec)
        th_sha256_hex(m->spec, m->spec_len, sha);
    snprintf(shard, sizeof shard, "%lld/%lld", (long long)m->shard.k, (long long)m->shard.n);
    cJSON *old = prev ? cJSON_Parse(prev) : NULL;
    /* the history of earlier runs on this file, when they wrote the same spec, shard, format */
    cJSON *runs = NULL;
    const char *first = NULL;
    if (old && sha[0] && same(string_of(old, "spec_sha256"), sha) &&
        same(string_of(old, "shard"), shard) && same(string_of(old, "format"), m->format)) {
        runs = cJSON_DetachItemFromObjectCaseSensitive(old, "runs");
        if (!cJSON_IsArray(runs)) cJSON_Delete(runs), runs = NULL;
        first = string_of(old, "started");
    }
    if (!runs) runs = cJSON_CreateArray();
    cJSON_AddItemToArray(runs, this_run(m));

    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "themis_version", TH_VERSION);
    cJSON_AddStringToObject(root, "file", m->file);
    cJSON_AddStringToObject(root, "format", m->format);
    cJSON_AddBoolToObject(root, "complete", m->expected >= 0 && m->points == m->expected);
    cJSON_AddNumberToObject(root, "points", (double)m->points);
    cJSON_AddItemToObject(root, "expected_points", count(m->expected));
    cJSON_AddItemToObject(root, "sweep_points", count(m->sweep_points));
    cJSON_AddStringToObject(root, "shard", shard);
    if (m->spec_file)
        cJSON_AddStringToObject(root, "spec_file", m->spec_file);
    else
        cJSON_AddNullToObject(root, "spec_file");
    if (sha[0])
        cJSON_AddStringToObject(root, "spec_sha256", sha);
    else
        cJSON_AddNullToObject(root, "spec_sha256");
    if (first)
        cJSON_AddStringToObject(root, "started", first);
    else
        cJSON_AddItemToObject(root, "started", when(m->started));
    cJSON_AddItemToObject(root, "finished", when(m->finished));
    cJSON_AddItemToObject(root, "command", command(m));
    if (m->threads > 0) cJSON_AddNumberToObject(root, "threads", m->threads);
    cJSON_AddItemToObject(root, "runs", runs);
    cJSON *inputs = cJSON_AddArrayToObject(root, "inputs");
    for (int i = 0; inputs && i < m->ninputs; i++) {
        cJSON *in = cJSON_CreateObject();
        cJSON_AddStringToObject(in, "file", m->inputs[i]);
        if (m->input_sha256[i][0])
            cJSON_AddStringToObject(in, "sha256", m->input_sha256[i]);
        else
            cJSON_AddNullToObject(in, "sha256");
        cJSON_AddItemToArray(inputs, in);
    }
    cJSON *spec = m->spec ? cJSON_ParseWithLength(m->spec, m->spec_len) : NULL;
    cJSON_AddItemToObject(root, "spec", spec ? spec : cJSON_CreateNull());
    cJSON_Delete(old);
    return th_report_write_json(out, root, err);
}

int th_sweep_meta_common(const char *const *texts, int n, char **spec, char sha[65],
                         int64_t *sweep_points, char **spec_file, th_error *err) {
    *spec = NULL;
    *spec_file = NULL;
    sha[0] = '\0';
    *sweep_points = -1;
    cJSON *first = NULL;
    int agree = n > 0;
    for (int i = 0; i < n && agree; i++) {
        cJSON *j = texts[i] ? cJSON_Parse(texts[i]) : NULL;
        const char *h = string_of(j, "spec_sha256");
        const cJSON *pts = cJSON_GetObjectItemCaseSensitive(j, "sweep_points");
        agree =
            h && strlen(h) == 64 && cJSON_IsNumber(pts) &&
            cJSON_GetObjectItemCaseSensitive(j, "spec") &&
            (!first || (same(h, string_of(first, "spec_sha256")) &&
                        pts->valuedouble ==
                            cJSON_GetObjectItemCaseSensitive(first, "sweep_points")->valuedouble));
        if (!first && agree)
            first = j;
        else
            cJSON_Delete(j);
    }
    if (agree) {
        char *text = cJSON_Print(cJSON_GetObjectItemCaseSensitive(first, "spec"));
        *spec = text ? th_strdup(text) : NULL;
        if (text) cJSON_free(text);
        if (!*spec) {
            cJSON_Delete(first);
            return th_error_set(err, TH_EINTERNAL, "out of memory");
        }
        snprintf(sha, 65, "%s", string_of(first, "spec_sha256"));
        const char *file = string_of(first, "spec_file");
        if (file && !(*spec_file = th_strdup(file))) {
            free(*spec);
            *spec = NULL;
            cJSON_Delete(first);
            return th_error_set(err, TH_EINTERNAL, "out of memory");
        }
        *sweep_points =
            (int64_t)cJSON_GetObjectItemCaseSensitive(first, "sweep_points")->valuedouble;
    }
    cJSON_Delete(first);
    return TH_OK;
}

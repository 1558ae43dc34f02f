/* JSON input helpers shared by the system loader and the sweep spec: file reading, parsing
 * with positions, and key/value checks whose messages name source, path, expected and got. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "themis/str.h"

#define FILE_MAX (16 << 20)

int th_json_read_file(const char *path, char **text, size_t *len_out, th_error *err) {
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
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb, cap *= 2;
        }
        size_t got = fread(buf + len, 1, cap - len - 1, f);
        len += got;
        if (got == 0) {
            if (ferror(f))
                rc = th_error_set(err, TH_EIO, "%s: read error: %s", src, strerror(errno));
            break;
        }
    }
    if (!is_stdin) fclose(f);
    if (!buf) return th_error_set(err, TH_EINTERNAL, "%s: out of memory", src);
    if (rc != TH_OK) {
        free(buf);
        return rc;
    }
    buf[len] = '\0';
    *text = buf;
    *len_out = len;
    return TH_OK;
}

int th_json_parse(const char *json, size_t len, const char *source, cJSON **root, th_error *err) {
    const char *end = NULL;
    *root = cJSON_ParseWithLengthOpts(json, len, &end, 0);
    if (!*root) {
        size_t off = end && end >= json ? (size_t)(end - json) : 0;
        if (off > len) off = len;
        int line = 1, col = 1;
        for (size_t i = 0; i < off; i++) {
            if (json[i] == '\n')
                line++, col = 1;
            else
                col++;
        }
        size_t first = off;
        while (first < len && isspace((unsigned char)json[first]))
            first++;
        if (first >= len)
            return th_error_set(err, TH_EINPUT, "%s:%d:%d: invalid JSON: unexpected end of file",
                                source, line, col);
        char near[24];
        size_t m = 0;
        for (size_t i = off; i < len && m < 20 && json[i] != '\n'; i++)
            near[m++] = isprint((unsigned char)json[i]) ? json[i] : '?';
        near[m] = '\0';
        size_t rest = off + m;
        while (rest < len && isspace((unsigned char)json[rest]))
            rest++;
        return th_error_set(err, TH_EINPUT, "%s:%d:%d: invalid JSON near \"%s\"%s", source, line,
                            col, near, rest >= len ? " (the file ends there)" : "");
    }
    /* Trailing text after the value is almost always a mistake (two objects, a stray brace). */
    const char *p = end;
    while (p && p < json + len && isspace((unsigned char)*p))
        p++;
    if (p && p < json + len) { /* a NUL byte too: the length says the text goes on */
        cJSON_Delete(*root);
        *root = NULL;
        return th_error_set(err, TH_EINPUT,
                            "%s: invalid JSON: unexpected text after the top-level object", source);
    }
    if (th_json_strict(json, len, source, err)) {
        cJSON_Delete(*root);
        *root = NULL;
        return err->code;
    }
    return TH_OK;
}

void th_json_join(const char *const *names, char *buf, size_t n) {
    buf[0] = '\0';
    for (int i = 0; names[i]; i++) {
        size_t len = strlen(buf);
        snprintf(buf + len, n - len, "%s%s", i ? ", " : "", names[i]);
    }
}

void th_json_suggest(const char *const *names, const char *got, char *buf, size_t n) {
    int best = th_name_near(names, got);
    if (best >= 0) {
        snprintf(buf, n, "did you mean \"%s\"?", names[best]);
    } else {
        char list[200];
        th_json_join(names, list, sizeof list);
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
        snprintf(buf, n, cJSON_GetArraySize(v) ? "an array" : "an empty array");
    } else {
        snprintf(buf, n, "an object");
    }
}

int th_json_bad(th_error *err, const char *src, const char *path, const char *expected,
                const cJSON *got) {
    char what[128];
    describe(got, what, sizeof what);
    return th_error_set(err, TH_EINPUT, "%s: %s: expected %s, got %s", src, path, expected, what);
}

void th_json_path(char *buf, size_t n, const char *path, const char *key) {
    snprintf(buf, n, "%s%s%s", path, *path ? "." : "", key);
}

int th_json_check_keys(const cJSON *obj, const char *const *known, const char *src,
                       const char *path, th_error *err) {
    for (const cJSON *a = obj->child; a; a = a->next) {
        char p[160];
        th_json_path(p, sizeof p, path, a->string);
        if (th_name_find(known, a->string) < 0) {
            char hint[256];
            th_json_suggest(known, a->string, hint, sizeof hint);
            return th_error_set(err, TH_EINPUT, "%s: %s: unknown key; %s", src, p, hint);
        }
        for (const cJSON *b = obj->child; b != a; b = b->next)
            if (strcmp(a->string, b->string) == 0)
                return th_error_set(err, TH_EINPUT, "%s: %s: duplicate key", src, p);
    }
    return TH_OK;
}

int th_json_number(const cJSON *obj, const char *key, int required, double *out, const char *src,
                   const char *path, th_error *err) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    char p[160];
    th_json_path(p, sizeof p, path, key);
    if (!v) {
        if (required)
            return th_error_set(err, TH_EINPUT, "%s: %s: missing (a number is required)", src, p);
        return TH_OK;
    }
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble))
        return th_json_bad(err, src, p, "a finite number", v);
    *out = v->valuedouble;
    return TH_OK;
}

int th_json_string(const cJSON *obj, const char *key, char *out, size_t n, const char *src,
                   const char *path, th_error *err) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    char p[160];
    th_json_path(p, sizeof p, path, key);
    if (!v) return TH_OK;
    if (!cJSON_IsString(v)) return th_json_bad(err, src, p, "a string", v);
    size_t len = strlen(v->valuestring);
    if (len >= n)
        return th_error_set(err, TH_EINPUT, "%s: %s: expected at most %zu characters, got %zu", src,
                            p, n - 1, len);
    memcpy(out, v->valuestring, len + 1);
    return TH_OK;
}

int th_json_enum_value(const cJSON *v, const char *const *names, int *out, const char *src,
                       const char *path, th_error *err) {
    char list[128], expected[160];
    th_json_join(names, list, sizeof list);
    snprintf(expected, sizeof expected, "one of %s", list);
    if (!cJSON_IsString(v)) return th_json_bad(err, src, path, expected, v);
    int i = th_name_find(names, v->valuestring);
    if (i < 0) {
        char hint[256];
        th_json_suggest(names, v->valuestring, hint, sizeof hint);
        return th_error_set(err, TH_EINPUT, "%s: %s: unknown value \"%.60s\"; %s", src, path,
                            v->valuestring, hint);
    }
    *out = i;
    return TH_OK;
}

int th_json_enum(const cJSON *obj, const char *key, const char *const *names, int *out,
                 const char *src, const char *path, th_error *err) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!v) return TH_OK;
    char p[160];
    th_json_path(p, sizeof p, path, key);
    return th_json_enum_value(v, names, out, src, p, err);
}

const char *th_json_kind(const cJSON *root) {
    static const char *const kinds[][2] = {{"axes", "a sweep spec"}, /* first: it names others */
                                           {"dims", "a system file"},
                                           {"layers", "a workload"},
                                           {"collectives", "a list of collectives"}};
    if (!cJSON_IsObject(root)) return NULL;
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
        if (cJSON_GetObjectItemCaseSensitive(root, kinds[i][0])) return kinds[i][1];
    return NULL;
}

int th_json_expect_kind(const cJSON *root, const char *want, const char *src, th_error *err) {
    const char *kind = th_json_kind(root);
    if (!kind || !strcmp(kind, want)) return TH_OK;
    return th_error_set(err, TH_EINPUT, "%s: is %s, expected %s here", src, kind, want);
}

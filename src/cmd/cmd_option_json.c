/* A JSON request read into a command's request value through its option table: the keys
 * checked (an unknown one names the nearest), each value checked by its option's kind with
 * messages "<cmd>: <key>: expected ..., got ...", and the text it made freed. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../json.h"
#include "cmd_option.h"
#include "themis/schedule.h"
#include "themis/str.h"
#include "themis/system.h"
#include "themis/units.h"

static int taken(const th_option *o, int i) {
    return !o->allowed || ((o->allowed >> i) & 1u);
}

static void *field(void *req, const th_option *o) {
    return (char *)req + o->off;
}

/* A choice from JSON: one of the taken names (or "all"), else "unknown value; did you mean". */
static int json_choice(const char *cmd, const th_option *o, const cJSON *v, void *req,
                       th_error *err) {
    const char *names[34];
    int index[34], n = 0;
    for (int i = 0; o->choices[i] && n < 32; i++)
        if (taken(o, i)) names[n] = o->choices[i], index[n++] = i;
    if (o->flags & TH_ARG_ALL) names[n] = "all", index[n++] = -1;
    names[n] = NULL;
    int k;
    if (th_json_enum_value(v, names, &k, cmd, o->key, err)) return err->code;
    *(int *)field(req, o) = index[k];
    return TH_OK;
}

/* A dim list from JSON: "0,2" as is, [0, 2] joined into that text. */
static int json_dims(const char *cmd, const th_option *o, const cJSON *v, th_arg_src *s,
                     th_error *err) {
    if (cJSON_IsString(v)) {
        s->path = v->valuestring;
        return TH_OK;
    }
    const char *expected = "a list of dim indices such as [0, 2], or \"0,2\"";
    if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) == 0 || cJSON_GetArraySize(v) > TH_MAX_DIMS)
        return th_json_bad(err, cmd, o->key, expected, v);
    char list[TH_MAX_DIMS * 12] = "";
    size_t len = 0;
    const cJSON *d;
    cJSON_ArrayForEach(d, v) {
        if (!cJSON_IsNumber(d) || d->valuedouble < 0 || d->valuedouble > 1e6 ||
            d->valuedouble != floor(d->valuedouble))
            return th_json_bad(err, cmd, o->key, expected, v);
        len += (size_t)snprintf(list + len, sizeof list - len, "%s%d", len ? "," : "",
                                (int)d->valuedouble);
    }
    if (!(s->own = th_strdup(list))) return th_error_set(err, TH_EINTERNAL, "out of memory");
    s->path = s->own;
    return TH_OK;
}

/* A file name, or an object printed back to text (its messages name the key). */
static int json_source(const char *cmd, const th_option *o, const cJSON *v, th_arg_src *s,
                       th_error *err) {
    if (cJSON_IsString(v)) {
        s->path = v->valuestring;
        return TH_OK;
    }
    char expected[64];
    snprintf(expected, sizeof expected, "a file name or a %s object", o->noun ? o->noun : o->key);
    if (!cJSON_IsObject(v)) return th_json_bad(err, cmd, o->key, expected, v);
    char *text = cJSON_PrintUnformatted(v);
    s->own = text ? th_strdup(text) : NULL;
    cJSON_free(text);
    if (!s->own) return th_error_set(err, TH_EINTERNAL, "out of memory");
    s->text = s->own;
    return TH_OK;
}

static int json_size(const char *cmd, const th_option *o, const cJSON *v, double *out,
                     th_error *err) {
    if (o->flags & TH_ARG_ONOFF) {
        int on = cJSON_IsString(v) && !strcmp(v->valuestring, "on");
        if (on || (cJSON_IsString(v) && !strcmp(v->valuestring, "off")) ||
            (cJSON_IsNumber(v) && v->valuedouble == 0)) {
            *out = on ? o->lo : -1;
            return TH_OK;
        }
    }
    char what[64];
    snprintf(what, sizeof what, "%s: %s", cmd, o->key);
    if (cJSON_IsString(v)) return th_units_parse_size(v->valuestring, what, out, err);
    if (!cJSON_IsNumber(v))
        return th_json_bad(err, cmd, o->key, "a size (bytes, or a string such as \"64MiB\")", v);
    if (th_units_check_size(v->valuedouble, what, err)) return err->code;
    *out = v->valuedouble;
    return TH_OK;
}

/* Numbers [1, 1, 2] joined into "1,1,2" (exact: %.17g), checked later as the command line's. */
static int json_numbers(const char *cmd, const th_option *o, const cJSON *v, th_arg_src *s,
                        th_error *err) {
    if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) > 64)
        return th_json_bad(err, cmd, o->key, "a list of numbers", v);
    char list[64 * 26] = "";
    size_t len = 0;
    const cJSON *d;
    cJSON_ArrayForEach(d, v) {
        if (!cJSON_IsNumber(d)) return th_json_bad(err, cmd, o->key, "a list of numbers", v);
        len += (size_t)snprintf(list + len, sizeof list - len, "%s%.17g", len ? "," : "",
                                d->valuedouble);
    }
    if (!(s->own = th_strdup(list))) return th_error_set(err, TH_EINTERNAL, "out of memory");
    s->path = s->own;
    return TH_OK;
}

/* A count (an integer, as "chunks" elsewhere), "auto" or a list of counts. */
static int json_counts(const char *cmd, const th_option *o, const cJSON *v, th_arg_counts *c,
                       th_error *err) {
    char what[96];
    if (cJSON_IsNumber(v)) {
        if (v->valuedouble < 1 || v->valuedouble > TH_MAX_CHUNKS ||
            v->valuedouble != floor(v->valuedouble)) {
            snprintf(what, sizeof what, "an integer from 1 to %d", TH_MAX_CHUNKS);
            return th_json_bad(err, cmd, o->key, what, v);
        }
        c->one = (int64_t)v->valuedouble, c->n = 0;
        return TH_OK;
    }
    if (cJSON_IsString(v) && !strcmp(v->valuestring, "auto"))
        return th_arg_counts_parse("auto", c), TH_OK;
    snprintf(what, sizeof what, "a count, \"auto\" or a list of 1 to %d counts from 1 to %d",
             TH_ARG_MAX_COUNTS, TH_MAX_CHUNKS);
    if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) < 1 || cJSON_GetArraySize(v) > TH_ARG_MAX_COUNTS)
        return th_json_bad(err, cmd, o->key, what, v);
    c->n = 0;
    const cJSON *d;
    cJSON_ArrayForEach(d, v) {
        if (!cJSON_IsNumber(d) || d->valuedouble < 1 || d->valuedouble > TH_MAX_CHUNKS ||
            d->valuedouble != floor(d->valuedouble))
            return th_json_bad(err, cmd, o->key, what, v);
        c->v[c->n++] = (int64_t)d->valuedouble;
    }
    return TH_OK;
}

/* One string or a list of them ("a log file name or a list of them"), at most o->hi. */
static int json_list(const char *cmd, const th_option *o, const cJSON *v, th_arg_list *l,
                     th_error *err) {
    char expected[96];
    snprintf(expected, sizeof expected, "a %s file name or a list of them", o->noun);
    int n = cJSON_IsArray(v) ? cJSON_GetArraySize(v) : 1;
    if (!cJSON_IsArray(v) && !cJSON_IsString(v)) return th_json_bad(err, cmd, o->key, expected, v);
    if (n > o->hi)
        return th_error_set(err, TH_EINPUT, "%s: %s: at most %d %ss", cmd, o->key, (int)o->hi,
                            o->noun);
    if (!(l->own = calloc((size_t)n + 1, sizeof *l->own)))
        return th_error_set(err, TH_EINTERNAL, "out of memory");
    l->v = l->own, l->n = 0;
    if (cJSON_IsString(v)) {
        l->own[l->n++] = v->valuestring;
        return TH_OK;
    }
    const cJSON *f;
    cJSON_ArrayForEach(f, v) {
        if (!cJSON_IsString(f)) return th_json_bad(err, cmd, o->key, expected, v);
        l->own[l->n++] = f->valuestring;
    }
    return TH_OK;
}

/* Names: "a,b" as it is, or ["a", "b"] joined; each name non-empty (and without a comma in a
 * list), at most o->hi of them. */
static int json_names(const char *cmd, const th_option *o, const cJSON *v, th_arg_src *s,
                      th_error *err) {
    char expected[96], text[1024];
    snprintf(expected, sizeof expected, "a list of %s names, or \"%.3s1,%.3s2\"", o->noun, o->noun,
             o->noun);
    size_t len = 0;
    int n = 0;
    if (cJSON_IsString(v)) {
        const char *p = v->valuestring;
        if (strlen(p) >= sizeof text) return th_json_bad(err, cmd, o->key, expected, v);
        for (const char *t = p;; t++, n++) {
            const char *c = strchr(t, ',');
            if ((c ? c : t + strlen(t)) == t || n == (int)o->hi)
                return th_json_bad(err, cmd, o->key, expected, v);
            if (!c) break;
            t = c;
        }
        s->path = p;
        return TH_OK;
    }
    if (!cJSON_IsArray(v)) return th_json_bad(err, cmd, o->key, expected, v);
    const cJSON *c;
    cJSON_ArrayForEach(c, v) {
        if (!cJSON_IsString(c) || !*c->valuestring || strchr(c->valuestring, ',') ||
            n++ == (int)o->hi || len + strlen(c->valuestring) + 2 > sizeof text)
            return th_json_bad(err, cmd, o->key, expected, v);
        len +=
            (size_t)snprintf(text + len, sizeof text - len, "%s%s", len ? "," : "", c->valuestring);
    }
    if (!n) return th_json_bad(err, cmd, o->key, expected, v);
    if (!(s->own = th_strdup(text))) return th_error_set(err, TH_EINTERNAL, "out of memory");
    s->path = s->own;
    return TH_OK;
}

/* Pairs: an object {"key": "value", ...}, at most TH_ARG_MAX_PAIRS. */
static int json_pairs(const char *cmd, const th_option *o, const cJSON *v, th_arg_pairs *p,
                      th_error *err) {
    char expected[96];
    snprintf(expected, sizeof expected, "an object of %s: value (strings)", o->noun);
    if (!cJSON_IsObject(v)) return th_json_bad(err, cmd, o->key, expected, v);
    const cJSON *c;
    cJSON_ArrayForEach(c, v) {
        if (!cJSON_IsString(c) || !*c->string || p->n == TH_ARG_MAX_PAIRS)
            return th_json_bad(err, cmd, o->key, expected, v);
        p->key[p->n] = c->string;
        p->value[p->n++] = c->valuestring;
    }
    return TH_OK;
}

/* One value by its option's kind. */
static int json_value(const char *cmd, const th_option *o, const cJSON *v, void *req,
                      th_error *err) {
    char what[96];
    switch (o->kind) {
    case TH_ARG_STRING:
        if (!cJSON_IsString(v)) return th_json_bad(err, cmd, o->key, "a string", v);
        *(const char **)field(req, o) = v->valuestring;
        return TH_OK;
    case TH_ARG_SOURCE: return json_source(cmd, o, v, field(req, o), err);
    case TH_ARG_DIMS: return json_dims(cmd, o, v, field(req, o), err);
    case TH_ARG_INT:
        if (!cJSON_IsNumber(v) || v->valuedouble < o->lo || v->valuedouble > o->hi ||
            v->valuedouble != floor(v->valuedouble)) {
            snprintf(what, sizeof what, "an integer from %lld to %lld", (long long)o->lo,
                     (long long)o->hi);
            return th_json_bad(err, cmd, o->key, what, v);
        }
        *(int64_t *)field(req, o) = (int64_t)v->valuedouble;
        return TH_OK;
    case TH_ARG_SIZE: return json_size(cmd, o, v, field(req, o), err);
    case TH_ARG_NUMBER:
        if (!cJSON_IsNumber(v) || !(v->valuedouble > o->lo) || v->valuedouble > o->hi) {
            snprintf(what, sizeof what, "a number > %g and <= %g", o->lo, o->hi);
            return th_json_bad(err, cmd, o->key, what, v);
        }
        *(double *)field(req, o) = v->valuedouble;
        return TH_OK;
    case TH_ARG_CHOICE: return json_choice(cmd, o, v, req, err);
    case TH_ARG_FLAG:
        if (!cJSON_IsBool(v)) return th_json_bad(err, cmd, o->key, "true or false", v);
        *(int *)field(req, o) = cJSON_IsTrue(v);
        return TH_OK;
    case TH_ARG_NUMBERS: return json_numbers(cmd, o, v, field(req, o), err);
    case TH_ARG_COUNTS: return json_counts(cmd, o, v, field(req, o), err);
    case TH_ARG_LIST: return json_list(cmd, o, v, field(req, o), err);
    case TH_ARG_NAMES: return json_names(cmd, o, v, field(req, o), err);
    case TH_ARG_PAIRS: return json_pairs(cmd, o, v, field(req, o), err);
    case TH_ARG_HELP:
    case TH_ARG_VERSION: break;
    }
    return th_error_set(err, TH_EINTERNAL, "%s: %s: no JSON form", cmd, o->key);
}

int th_option_from_json(const th_cmd_def *def, const cJSON *root, void *req, th_error *err) {
    const char *known[72];
    int n = 0;
    for (int i = 0; i < def->nopts && n < 64; i++)
        if (def->opts[i].key) known[n++] = def->opts[i].key;
    for (int i = 0; def->keys && def->keys[i] && n < 71; i++)
        known[n++] = def->keys[i];
    known[n] = NULL;
    if (th_json_check_keys(root, known, def->name, "", err)) return err->code;
    for (int i = 0; i < def->nopts; i++) {
        const th_option *o = &def->opts[i];
        const cJSON *v = o->key ? cJSON_GetObjectItemCaseSensitive(root, o->key) : NULL;
        if (!v || cJSON_IsNull(v)) continue; /* null = not given */
        if (json_value(def->name, o, v, req, err)) return err->code;
        th_option_set_given(def, req, i);
    }
    return TH_OK;
}

void th_option_free(const th_cmd_def *def, void *req) {
    for (int i = 0; i < def->nopts; i++) {
        const th_option *o = &def->opts[i];
        if (o->kind == TH_ARG_PAIRS) {
            th_arg_pairs *p = field(req, o);
            for (int k = 0; k < p->n; k++)
                free(p->own[k]), p->own[k] = NULL;
        }
        if (o->kind == TH_ARG_LIST) {
            th_arg_list *l = field(req, o);
            free(l->own);
            l->own = NULL;
        }
        if (o->kind != TH_ARG_SOURCE && o->kind != TH_ARG_DIMS && o->kind != TH_ARG_NUMBERS &&
            o->kind != TH_ARG_NAMES)
            continue;
        th_arg_src *s = field(req, o);
        free(s->own);
        s->own = NULL;
    }
}

/* The embedding entry point: th_api_call's dispatch and result capture, and the checks of a
 * request's values (shared by the commands in api_run.c and api_sweep.c). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api_internal.h"
#include "json.h"
#include "report_internal.h"
#include "themis/str.h"
#include "themis/units.h"
#include "themis/version.h"

int th_api_keys(const th_api_req *q, const char *const *known, th_error *err) {
    return th_json_check_keys(q->root, known, q->cmd, "", err);
}

static const cJSON *item(const th_api_req *q, const char *key) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(q->root, key);
    return v && !cJSON_IsNull(v) ? v : NULL; /* null = not given */
}

int th_api_int(const th_api_req *q, const char *key, long long lo, long long hi, int64_t *out,
               int *set, th_error *err) {
    const cJSON *v = item(q, key);
    if (!v) return TH_OK;
    if (!cJSON_IsNumber(v) || v->valuedouble < (double)lo || v->valuedouble > (double)hi ||
        v->valuedouble != floor(v->valuedouble)) {
        char what[96];
        snprintf(what, sizeof what, "an integer from %lld to %lld", lo, hi);
        return th_json_bad(err, q->cmd, key, what, v);
    }
    *out = (int64_t)v->valuedouble;
    if (set) *set = 1;
    return TH_OK;
}

int th_api_number(const th_api_req *q, const char *key, double lo, double hi, double *out,
                  th_error *err) {
    const cJSON *v = item(q, key);
    if (!v) return TH_OK;
    if (!cJSON_IsNumber(v) || !(v->valuedouble > lo) || v->valuedouble > hi) {
        char what[96];
        snprintf(what, sizeof what, "a number > %g and <= %g", lo, hi);
        return th_json_bad(err, q->cmd, key, what, v);
    }
    *out = v->valuedouble;
    return TH_OK;
}

int th_api_bool(const th_api_req *q, const char *key, int *out, th_error *err) {
    const cJSON *v = item(q, key);
    if (!v) return TH_OK;
    if (!cJSON_IsBool(v)) return th_json_bad(err, q->cmd, key, "true or false", v);
    *out = cJSON_IsTrue(v);
    return TH_OK;
}

int th_api_string(const th_api_req *q, const char *key, const char **out, th_error *err) {
    const cJSON *v = item(q, key);
    if (!v) return TH_OK;
    if (!cJSON_IsString(v)) return th_json_bad(err, q->cmd, key, "a string", v);
    *out = v->valuestring;
    return TH_OK;
}

int th_api_choice(const th_api_req *q, const char *key, const char *const *names, int n, int *out,
                  int *set, th_error *err) {
    const cJSON *v = item(q, key);
    if (!v) return TH_OK;
    const char *list[16 + 2];
    if (n > 16) return th_error_set(err, TH_EINTERNAL, "%s: too many names", key);
    for (int i = 0; i < n; i++)
        list[i] = names[i];
    list[n] = "all";
    list[n + 1] = NULL;
    int i = -1;
    if (th_json_enum_value(v, list, &i, q->cmd, key, err)) return err->code;
    *out = i == n ? -1 : i;
    if (set) *set = 1;
    return TH_OK;
}

int th_api_size(const th_api_req *q, const char *key, double *out, th_error *err) {
    const cJSON *v = item(q, key);
    if (!v) return TH_OK;
    char what[64];
    snprintf(what, sizeof what, "%s: %s", q->cmd, key);
    if (cJSON_IsString(v)) return th_units_parse_size(v->valuestring, what, out, err);
    if (!cJSON_IsNumber(v))
        return th_json_bad(err, q->cmd, key, "a size (bytes, or a string such as \"64MiB\")", v);
    if (th_units_check_size(v->valuedouble, what, err)) return err->code;
    *out = v->valuedouble;
    return TH_OK;
}

int th_api_dims(const th_api_req *q, int ndims, uint32_t *mask, th_error *err) {
    const cJSON *v = item(q, "dims");
    if (!v) return TH_OK;
    if (cJSON_IsString(v)) return th_sched_parse_dims(v->valuestring, ndims, mask, err);
    const char *expected = "a list of dim indices such as [0, 2], or \"0,2\"";
    if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) == 0 || cJSON_GetArraySize(v) > TH_MAX_DIMS)
        return th_json_bad(err, q->cmd, "dims", expected, v);
    char list[TH_MAX_DIMS * 12] = "";
    size_t len = 0;
    const cJSON *d;
    cJSON_ArrayForEach(d, v) {
        if (!cJSON_IsNumber(d) || d->valuedouble < 0 || d->valuedouble > 1e6 ||
            d->valuedouble != floor(d->valuedouble))
            return th_json_bad(err, q->cmd, "dims", expected, v);
        len += (size_t)snprintf(list + len, sizeof list - len, "%s%d", len ? "," : "",
                                (int)d->valuedouble);
    }
    return th_sched_parse_dims(list, ndims, mask, err);
}

int th_api_blame(th_error *err, const char *who) {
    if (who) {
        th_error e = *err;
        th_error_set(err, e.code, "%s: %s", who, e.msg);
    }
    return err->code;
}

int th_api_object_text(const th_api_req *q, const cJSON *v, char **text, th_error *err) {
    (void)q;
    *text = cJSON_PrintUnformatted(v);
    return *text ? TH_OK : th_error_set(err, TH_EINTERNAL, "out of memory");
}

int th_api_load_system(const th_api_req *q, th_system *sys, th_run_defaults *def,
                       const char **blame, th_error *err) {
    const cJSON *v = item(q, "system");
    *blame = NULL;
    if (!v) {
        th_system_default(sys);
        memset(def, 0, sizeof *def);
        return TH_OK;
    }
    if (cJSON_IsString(v)) {
        *blame = v->valuestring;
        return th_run_load_system(v->valuestring, sys, def, err);
    }
    if (!cJSON_IsObject(v))
        return th_json_bad(err, q->cmd, "system", "a file name or a system object", v);
    char *text;
    if (th_api_object_text(q, v, &text, err)) return err->code;
    *blame = "system";
    int rc = th_run_parse_system(text, strlen(text), "system", sys, def, err);
    cJSON_free(text);
    return rc;
}

int th_api_load_workload(const th_api_req *q, th_workload **wl, const char **source,
                         th_error *err) {
    const cJSON *v = item(q, "workload");
    *wl = NULL;
    if (!v)
        return th_error_set(err, TH_EINPUT, "%s: workload: missing (a file or an object)", q->cmd);
    if (cJSON_IsString(v)) {
        *source = v->valuestring;
        return th_workload_load(v->valuestring, wl, err);
    }
    if (!cJSON_IsObject(v))
        return th_json_bad(err, q->cmd, "workload", "a file name or a workload object", v);
    char *text;
    if (th_api_object_text(q, v, &text, err)) return err->code;
    *source = "workload";
    int rc = th_workload_parse(text, strlen(text), "workload", wl, err);
    cJSON_free(text);
    return rc;
}

static int version(const th_api_req *q, FILE *out, th_error *err) {
    static const char *const keys[] = {NULL};
    if (th_api_keys(q, keys, err)) return err->code;
    cJSON *o = cJSON_CreateObject();
    if (!o || !cJSON_AddStringToObject(o, "version", TH_VERSION) ||
        !cJSON_AddNumberToObject(o, "api", TH_API_VERSION)) {
        cJSON_Delete(o);
        return th_error_set(err, TH_EINTERNAL, "out of memory");
    }
    return th_report_write_json(out, o, err);
}

static const struct {
    const char *name;
    int (*fn)(const th_api_req *q, FILE *out, th_error *err);
} commands[] = {
    {"run", th_api_run},
    {"train", th_api_train},
    {"sweep", th_api_sweep},
    {"optimize", th_api_optimize},
    {"calibrate", th_api_calibrate},
    {"plot", th_api_plot},
    {"system", th_api_system},
    {"version", version},
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

static int dispatch(const char *command, const char *request, th_api_row_fn row, void *row_ctx,
                    FILE *out, th_error *err) {
    size_t k = 0;
    while (k < NCOMMANDS && (!command || strcmp(commands[k].name, command)))
        k++;
    if (k == NCOMMANDS) {
        const char *names[NCOMMANDS + 1];
        for (size_t i = 0; i < NCOMMANDS; i++)
            names[i] = commands[i].name;
        names[NCOMMANDS] = NULL;
        char list[128];
        th_json_join(names, list, sizeof list);
        return th_error_set(err, TH_EINPUT, "unknown command '%s' (expected %s)",
                            command ? command : "(null)", list);
    }
    cJSON *root = NULL;
    const char *text = request && *request ? request : "{}";
    if (th_json_parse(text, strlen(text), command, &root, err)) return err->code;
    int rc;
    if (!cJSON_IsObject(root)) {
        rc = th_json_bad(err, command, "request", "an object", root);
    } else {
        th_api_req q = {command, root, row, row_ctx};
        rc = commands[k].fn(&q, out, err);
    }
    cJSON_Delete(root);
    return rc;
}

int th_api_poll(void *ctx) {
    th_api_poller *p = ctx;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    double now = (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
    if (p->last > 0 && now - p->last < 10) return 0;
    p->last = now;
    return p->q->row(p->q->row_ctx, 0, NULL) != 0;
}

void th_api_poll_train(const th_api_req *q, th_api_poller *p, th_train_opts *t) {
    p->q = q;
    p->last = 0;
    if (q->row) t->poll = th_api_poll, t->poll_ctx = p;
}

int th_api_call(const char *command, const char *request, th_api_row_fn row, void *row_ctx,
                char **result) {
    th_error err = {0};
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    int rc = out ? dispatch(command, request, row, row_ctx, out, &err)
                 : th_error_set(&err, TH_EINTERNAL, "out of memory");
    if (out && fclose(out) && rc == TH_OK) rc = th_error_set(&err, TH_EINTERNAL, "out of memory");
    if (rc != TH_OK) {
        free(text);
        text = th_strdup(err.msg);
    }
    *result = text;
    return rc;
}

void th_api_free(char *s) {
    free(s);
}

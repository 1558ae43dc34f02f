/* The embedding entry point's "plot": `themis plot` (th_plot_file), its options as request
 * keys; the result names the image and the series drawn. */
#include <string.h>

#include "api_internal.h"
#include "json.h"
#include "report_internal.h"
#include "themis/plot.h"

#define MAX_NAMES 32 /* --by columns, --where filters */

/* A required string key. */
static int required(const th_api_req *q, const char *key, const char *what, const char **out,
                    th_error *err) {
    if (th_api_string(q, key, out, err)) return err->code;
    if (!*out) return th_error_set(err, TH_EINPUT, "%s: %s: missing (%s)", q->cmd, key, what);
    return TH_OK;
}

/* "by": a list of column names, or one string "a,b" (split into buf). */
static int by(const th_api_req *q, char *buf, size_t size, const char **cols, size_t *n,
              th_error *err) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(q->root, "by");
    const char *expected = "a list of column names, or \"col1,col2\"";
    *n = 0;
    if (!v || cJSON_IsNull(v)) return TH_OK;
    if (cJSON_IsString(v)) {
        if (strlen(v->valuestring) >= size) return th_json_bad(err, q->cmd, "by", expected, v);
        strcpy(buf, v->valuestring);
        if (th_plot_by_parse(buf, cols, MAX_NAMES, n, err))
            return th_json_bad(err, q->cmd, "by", expected, v);
        return TH_OK;
    }
    const cJSON *c;
    if (!cJSON_IsArray(v)) return th_json_bad(err, q->cmd, "by", expected, v);
    cJSON_ArrayForEach(c, v) {
        if (!cJSON_IsString(c) || !*c->valuestring || *n == MAX_NAMES)
            return th_json_bad(err, q->cmd, "by", expected, v);
        cols[(*n)++] = c->valuestring;
    }
    return TH_OK;
}

/* "where": an object {"column": "value", ...}, every row must hold each. */
static int where(const th_api_req *q, th_plot_where *w, size_t *n, th_error *err) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(q->root, "where");
    const char *expected = "an object of column: value (strings)";
    *n = 0;
    if (!v || cJSON_IsNull(v)) return TH_OK;
    if (!cJSON_IsObject(v)) return th_json_bad(err, q->cmd, "where", expected, v);
    const cJSON *c;
    cJSON_ArrayForEach(c, v) {
        if (!cJSON_IsString(c) || !*c->string || *n == MAX_NAMES)
            return th_json_bad(err, q->cmd, "where", expected, v);
        w[*n].col = c->string;
        w[(*n)++].value = c->valuestring;
    }
    return TH_OK;
}

static int result(FILE *out, const char *output, const th_plot_data *d, th_error *err) {
    cJSON *o = cJSON_CreateObject(), *names = NULL;
    if (o && cJSON_AddStringToObject(o, "output", output) &&
        cJSON_AddNumberToObject(o, "rows", (double)d->rows))
        names = cJSON_AddArrayToObject(o, "series");
    for (size_t i = 0; names && i < d->nseries; i++)
        if (!cJSON_AddItemToArray(names, cJSON_CreateString(d->series[i].name))) names = NULL;
    if (!names) {
        cJSON_Delete(o);
        return th_error_set(err, TH_EINTERNAL, "out of memory");
    }
    return th_report_write_json(out, o, err);
}

int th_api_plot(const th_api_req *q, FILE *out, th_error *err) {
    static const char *const keys[] = {"csv",  "x",     "y",      "by",    "where", "logx",
                                       "logy", "title", "output", "force", NULL};
    const char *csv, *output, *cols[MAX_NAMES];
    char buf[1024];
    th_plot_where w[MAX_NAMES];
    th_plot_opts p;
    memset(&p, 0, sizeof p);
    int force = 0;
    if (th_api_keys(q, keys, err) || required(q, "csv", "a CSV file", &csv, err) ||
        required(q, "x", "a column", &p.x, err) || required(q, "y", "a column", &p.y, err) ||
        by(q, buf, sizeof buf, cols, &p.nby, err) || where(q, w, &p.nwhere, err) ||
        th_api_bool(q, "logx", &p.logx, err) || th_api_bool(q, "logy", &p.logy, err) ||
        th_api_string(q, "title", &p.title, err) ||
        required(q, "output", "the image: .png, .pdf or .svg", &output, err) ||
        th_api_bool(q, "force", &force, err))
        return err->code;
    if (!strcmp(output, "-"))
        return th_error_set(err, TH_EINPUT,
                            "%s: output: the image goes to a file (.png, .pdf or .svg)", q->cmd);
    p.by = cols;
    p.where = w;
    th_plot_data d;
    int rc = th_plot_file(csv, output, force, &p, NULL, &d, err);
    if (rc == TH_OK) rc = result(out, output, &d, err);
    th_plot_free(&d);
    return rc;
}

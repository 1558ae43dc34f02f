/* Summaries out (`themis summarize`): the grouped statistics as a table, JSON or CSV. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report_internal.h"
#include "themis/csv.h"
#include "themis/text.h"

static const char *const stat_names[] = {"count", "mean", "gmean", "min", "max"};

/* A key or column name as a table shows it: escaped (th_text_escape), so that a line break or
 * a control byte from the CSV breaks no row, and shortened to a cell. */
static const char *text(char *buf, const char *s) {
    return th_text_escape(buf, TH_TABLE_CELL, s);
}

/* Table cells: 10 significant digits; '-' for a statistic with no value. */
static const char *cell(char *buf, double v) {
    if (isnan(v)) return "-";
    snprintf(buf, 32, "%.10g", v);
    return buf;
}

int th_report_summary_table(FILE *out, const th_summary *s, th_error *err) {
    size_t ncols = s->nby + 5;
    int *w = calloc(ncols, sizeof *w);
    if (!w) return th_error_set(err, TH_EINTERNAL, "out of memory");
    char b[32], t[TH_TABLE_CELL];
    for (size_t i = 0; i < ncols; i++)
        w[i] = (int)strlen(i < s->nby ? text(t, s->by[i]) : stat_names[i - s->nby]);
    for (size_t g = 0; g < s->ngroups; g++) {
        const th_summary_group *gr = &s->groups[g];
        double st[4] = {gr->mean, gr->gmean, gr->min, gr->max};
        for (size_t i = 0; i < s->nby; i++) {
            int l = (int)strlen(text(t, gr->keys[i]));
            if (l > w[i]) w[i] = l;
        }
        int l = snprintf(b, sizeof b, "%zu", gr->count);
        if (l > w[s->nby]) w[s->nby] = l;
        for (int k = 0; k < 4; k++) {
            l = (int)strlen(cell(b, st[k]));
            if (l > w[s->nby + 1 + k]) w[s->nby + 1 + k] = l;
        }
    }
    fprintf(out, "# %s over %zu rows\n", text(t, s->metric), s->rows);
    for (size_t i = 0; i < ncols; i++) {
        const char *h = i < s->nby ? text(t, s->by[i]) : stat_names[i - s->nby];
        fprintf(out, i < s->nby ? "%-*s" : "%*s", w[i], h);
        fputs(i + 1 < ncols ? "  " : "\n", out);
    }
    for (size_t g = 0; g < s->ngroups; g++) {
        const th_summary_group *gr = &s->groups[g];
        double st[4] = {gr->mean, gr->gmean, gr->min, gr->max};
        for (size_t i = 0; i < s->nby; i++)
            fprintf(out, "%-*s  ", w[i], text(t, gr->keys[i]));
        fprintf(out, "%*zu", w[s->nby], gr->count);
        for (int k = 0; k < 4; k++)
            fprintf(out, "  %*s", w[s->nby + 1 + k], cell(b, st[k]));
        fputc('\n', out);
    }
    free(w);
    return th_report_done(out, err);
}

static void add_stat(cJSON *o, const char *name, double v) {
    if (isnan(v))
        cJSON_AddNullToObject(o, name);
    else
        cJSON_AddNumberToObject(o, name, v);
}

cJSON *th_report_summary_head(const th_summary *s, const char *best, cJSON **groups) {
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "metric", s->metric);
    if (best) cJSON_AddStringToObject(root, "best", best);
    cJSON *by = cJSON_AddArrayToObject(root, "by");
    for (size_t i = 0; i < s->nby; i++)
        cJSON_AddItemToArray(by, cJSON_CreateString(s->by[i]));
    cJSON_AddNumberToObject(root, "rows", (double)s->rows);
    *groups = cJSON_AddArrayToObject(root, "groups");
    return root;
}

cJSON *th_report_summary_group(cJSON *groups, const th_summary *s, const th_summary_group *gr) {
    cJSON *o = cJSON_CreateObject();
    cJSON *keys = cJSON_AddObjectToObject(o, "keys");
    for (size_t i = 0; i < s->nby; i++)
        cJSON_AddStringToObject(keys, s->by[i], gr->keys[i]);
    cJSON_AddItemToArray(groups, o);
    return o;
}

/* The JSON document of a summary; its "groups" are also the lines of JSONL. */
static cJSON *summary_json(const th_summary *s) {
    cJSON *groups;
    cJSON *root = th_report_summary_head(s, NULL, &groups);
    for (size_t g = 0; g < s->ngroups; g++) {
        const th_summary_group *gr = &s->groups[g];
        cJSON *o = th_report_summary_group(groups, s, gr);
        cJSON_AddNumberToObject(o, "count", (double)gr->count);
        add_stat(o, "mean", gr->mean);
        add_stat(o, "gmean", gr->gmean);
        add_stat(o, "min", gr->min);
        add_stat(o, "max", gr->max);
    }
    return root;
}

int th_report_summary_json(FILE *out, const th_summary *s, th_error *err) {
    return th_report_write_json(out, summary_json(s), err);
}

int th_report_summary_jsonl(FILE *out, const th_summary *s, th_error *err) {
    return th_report_write_jsonl(out, summary_json(s), "groups", err);
}

/* A statistic as a CSV field: empty when it has no value. */
static int stat_field(th_buf *b, double v) {
    return isnan(v) ? th_csv_field(b, "") : th_csv_num(b, v);
}

int th_report_summary_csv(FILE *out, const th_summary *s, th_error *err) {
    th_buf b = {0};
    int bad = 0;
    for (size_t i = 0; i < s->nby; i++)
        bad |= th_csv_field(&b, s->by[i]);
    for (int k = 0; k < 5; k++)
        bad |= th_csv_field(&b, stat_names[k]);
    bad |= th_csv_end(&b);
    if (!bad) th_csv_write(out, &b); /* write errors: th_report_done sees them on the stream */
    for (size_t g = 0; g < s->ngroups && !bad; g++) {
        const th_summary_group *gr = &s->groups[g];
        for (size_t i = 0; i < s->nby; i++)
            bad |= th_csv_field(&b, gr->keys[i]);
        bad |= th_csv_int(&b, (long long)gr->count);
        bad |= stat_field(&b, gr->mean) | stat_field(&b, gr->gmean);
        bad |= stat_field(&b, gr->min) | stat_field(&b, gr->max);
        bad |= th_csv_end(&b);
        if (!bad) th_csv_write(out, &b);
    }
    th_buf_free(&b);
    if (bad) return th_error_set(err, TH_EINTERNAL, "out of memory");
    return th_report_done(out, err);
}

int th_report_summary_write(FILE *out, th_format format, const th_summary *s, th_error *err) {
    switch (format) {
    case TH_FORMAT_TABLE: return th_report_summary_table(out, s, err);
    case TH_FORMAT_JSON: return th_report_summary_json(out, s, err);
    case TH_FORMAT_CSV: return th_report_summary_csv(out, s, err);
    case TH_FORMAT_JSONL: return th_report_summary_jsonl(out, s, err);
    }
    return th_error_set(err, TH_EINTERNAL, "unknown output format %d", (int)format);
}

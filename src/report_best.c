/* Best rows out (`themis summarize --best`): each group's winning row as a table, JSON or CSV. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report_internal.h"
#include "themis/csv.h"
#include "themis/text.h"

static const char *mode_name(th_best mode) {
    return mode == TH_BEST_MIN ? "min" : "max";
}

int th_report_best_table(FILE *out, const th_summary *s, th_best mode, th_error *err) {
    int *w = calloc(s->ncols ? s->ncols : 1, sizeof *w);
    if (!w) return th_error_set(err, TH_EINTERNAL, "out of memory");
    char t[TH_TABLE_CELL];
    size_t shown = 0;
    for (size_t i = 0; i < s->ncols; i++)
        w[i] = (int)strlen(th_text_escape(t, sizeof t, s->columns[i]));
    for (size_t g = 0; g < s->ngroups; g++) {
        if (!s->groups[g].best) continue;
        shown++;
        for (size_t i = 0; i < s->ncols; i++) {
            int l = (int)strlen(th_text_escape(t, sizeof t, s->groups[g].best[i]));
            if (l > w[i]) w[i] = l;
        }
    }
    fprintf(out, "# the row with the %s %s of each group (%zu of %zu groups, %zu rows)\n",
            mode == TH_BEST_MIN ? "least" : "greatest", th_text_escape(t, sizeof t, s->metric),
            shown, s->ngroups, s->rows);
    for (size_t i = 0; i < s->ncols; i++)
        fprintf(out, "%-*s%s", i + 1 < s->ncols ? w[i] : 0,
                th_text_escape(t, sizeof t, s->columns[i]), i + 1 < s->ncols ? "  " : "\n");
    for (size_t g = 0; g < s->ngroups; g++) {
        char **row = s->groups[g].best;
        for (size_t i = 0; row && i < s->ncols; i++)
            fprintf(out, "%-*s%s", i + 1 < s->ncols ? w[i] : 0, th_text_escape(t, sizeof t, row[i]),
                    i + 1 < s->ncols ? "  " : "\n");
    }
    free(w);
    return th_report_done(out, err);
}

/* A CSV field as JSON: a number when all of it reads as a finite one, else the text. */
static cJSON *value(const char *f) {
    char *end;
    errno = 0;
    double v = strtod(f, &end);
    if (*f && *end == '\0' && isfinite(v) && !strchr(f, 'x') && !strchr(f, 'X'))
        return cJSON_CreateNumber(v);
    return cJSON_CreateString(f);
}

/* The JSON document of the best rows; its "groups" are also the lines of JSONL. */
static cJSON *best_json(const th_summary *s, th_best mode) {
    cJSON *groups;
    cJSON *root = th_report_summary_head(s, mode_name(mode), &groups);
    for (size_t g = 0; g < s->ngroups; g++) {
        const th_summary_group *gr = &s->groups[g];
        if (!gr->best) continue;
        cJSON *o = th_report_summary_group(groups, s, gr);
        cJSON_AddNumberToObject(o, "line", (double)gr->best_line);
        cJSON *row = cJSON_AddObjectToObject(o, "row");
        for (size_t i = 0; i < s->ncols; i++)
            cJSON_AddItemToObject(row, s->columns[i], value(gr->best[i]));
    }
    return root;
}

int th_report_best_json(FILE *out, const th_summary *s, th_best mode, th_error *err) {
    return th_report_write_json(out, best_json(s, mode), err);
}

int th_report_best_jsonl(FILE *out, const th_summary *s, th_best mode, th_error *err) {
    return th_report_write_jsonl(out, best_json(s, mode), "groups", err);
}

int th_report_best_csv(FILE *out, const th_summary *s, th_error *err) {
    th_buf b = {0};
    int bad = th_csv_field(&b, "line"); /* the JSON's keys, flattened: line, then the row's */
    for (size_t i = 0; i < s->ncols; i++)
        bad |= th_csv_field(&b, s->columns[i]);
    bad |= th_csv_end(&b);
    if (!bad) th_csv_write(out, &b); /* write errors: th_report_done sees them on the stream */
    for (size_t g = 0; g < s->ngroups && !bad; g++) {
        char **row = s->groups[g].best;
        if (!row) continue;
        bad |= th_csv_int(&b, (long long)s->groups[g].best_line);
        for (size_t i = 0; i < s->ncols; i++)
            bad |= th_csv_field(&b, row[i]);
        bad |= th_csv_end(&b);
        if (!bad) th_csv_write(out, &b);
    }
    th_buf_free(&b);
    if (bad) return th_error_set(err, TH_EINTERNAL, "out of memory");
    return th_report_done(out, err);
}

int th_report_best_write(FILE *out, th_format format, const th_summary *s, th_best mode,
                         th_error *err) {
    switch (format) {
    case TH_FORMAT_TABLE: return th_report_best_table(out, s, mode, err);
    case TH_FORMAT_JSON: return th_report_best_json(out, s, mode, err);
    case TH_FORMAT_CSV: return th_report_best_csv(out, s, err);
    case TH_FORMAT_JSONL: return th_report_best_jsonl(out, s, mode, err);
    }
    return th_error_set(err, TH_EINTERNAL, "unknown output format %d", (int)format);
}

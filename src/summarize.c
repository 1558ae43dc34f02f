/* Grouped summary statistics of a CSV column, streamed: one running accumulator per group
 * (count, running means of the values and of their logs, min, max), so memory grows with the
 * number of groups, never with the number of rows. */
#include <errno.h>
#include <math.h>
#include <search.h>
#include <stdlib.h>
#include <string.h>

#include "themis/buf.h"
#include "themis/csv.h"
#include "themis/str.h"
#include "themis/summarize.h"
#include "themis/text.h"

/* A group while rows are read. The means use GSL's recurrence, mean += (x - mean) / n in long
 * double, so the results are the bits gsl_stats_mean gave when every value was kept. */
typedef struct acc {
    char *key;    /* the group's keys as one CSV record: the search tree's key */
    size_t index; /* in th_summary.groups */
    size_t n;
    long double mean, logmean; /* running means of the values and of their logs */
    double min, max;
    int nonpos;       /* a value <= 0 was seen: no geometric mean */
    char **best;      /* best mode: the fields of the best row so far (one block), or NULL */
    double bestv;     /* its metric */
    long long bestln; /* its line */
} acc;

typedef struct state {
    th_summary *s;
    int mode;   /* -1 none, else a th_best */
    acc **accs; /* one per group, in s->groups order */
    size_t cap; /* capacity of s->groups and accs */
    void *tree; /* tsearch tree of acc, by key */
    th_buf key; /* the current row's key */
} state;

static int by_key(const void *a, const void *b) {
    return strcmp(((const acc *)a)->key, ((const acc *)b)->key);
}

static int oom(th_error *err) {
    return th_error_set(err, TH_EINTERNAL, "out of memory");
}

/* Adds a group for the row's keys (a copy of each); NULL when memory runs out. */
static acc *new_group(state *st, char *const *keys) {
    th_summary *s = st->s;
    if (s->ngroups == st->cap) {
        size_t cg = st->cap, ca = st->cap; /* two arrays, one capacity */
        if (th_grow(&s->groups, &cg, st->cap + 1, sizeof *s->groups) ||
            th_grow(&st->accs, &ca, st->cap + 1, sizeof *st->accs))
            return NULL;
        st->cap = cg;
    }
    acc *a = calloc(1, sizeof *a);
    th_summary_group *g = &s->groups[s->ngroups];
    memset(g, 0, sizeof *g);
    g->keys = calloc(s->nby ? s->nby : 1, sizeof *g->keys);
    if (a) a->key = th_strdup(st->key.p);
    int bad = !a || !g->keys || !a->key;
    for (size_t i = 0; i < s->nby && !bad; i++)
        bad = !(g->keys[i] = th_strdup(keys[i]));
    if (bad || !tsearch(a, &st->tree, by_key)) {
        for (size_t i = 0; g->keys && i < s->nby; i++)
            free(g->keys[i]);
        free(g->keys);
        if (a) free(a->key);
        free(a);
        return NULL;
    }
    a->index = s->ngroups;
    a->min = INFINITY;
    a->max = -INFINITY;
    st->accs[s->ngroups++] = a;
    return a;
}

/* The group of the row's keys, created when it is new. */
static acc *find_group(state *st, char *const *keys, th_error *err) {
    st->key.len = 0;
    int bad = 0;
    for (size_t i = 0; i < st->s->nby; i++)
        bad |= th_csv_field(&st->key, keys[i]);
    bad |= th_csv_end(&st->key); /* never empty, even without --by */
    acc probe = {.key = st->key.p};
    void *found = bad ? NULL : tfind(&probe, &st->tree, by_key);
    acc *a = found ? *(acc **)found : bad ? NULL : new_group(st, keys);
    if (!a) oom(err);
    return a;
}

static void acc_add(acc *a, double v) {
    a->n++;
    a->mean += (v - a->mean) / a->n;
    if (v > 0)
        a->logmean += (log(v) - a->logmean) / a->n;
    else
        a->nonpos = 1;
    if (v < a->min) a->min = v;
    if (v > a->max) a->max = v;
}

/* Best mode: keeps a copy of the row's fields when v beats the group's best (ties keep the
 * first). 0, or -1 when memory runs out. */
static int keep_best(const state *st, acc *a, const th_csv_reader *r, double v) {
    if (st->mode < 0) return 0;
    if (a->best && (st->mode == TH_BEST_MIN ? !(v < a->bestv) : !(v > a->bestv))) return 0;
    size_t chars = 0;
    for (size_t i = 0; i < r->nfields; i++)
        chars += strlen(r->fields[i]) + 1;
    char **row = malloc(r->nfields * sizeof *row + chars);
    if (!row) return -1;
    char *p = (char *)(row + r->nfields);
    for (size_t i = 0; i < r->nfields; i++) {
        size_t len = strlen(r->fields[i]) + 1;
        memcpy(p, r->fields[i], len);
        row[i] = p;
        p += len;
    }
    free(a->best);
    a->best = row;
    a->bestv = v;
    a->bestln = (long long)r->line;
    return 0;
}

/* Lists the header's columns into buf for an error message, shortened if long. */
static const char *list_columns(char *const *hdr, size_t ncols, char *buf, size_t size) {
    size_t len = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < ncols && len + 1 < size; i++) {
        char e[128];
        int w = snprintf(buf + len, size - len, "%s%s", i ? "," : "",
                         th_text_escape(e, sizeof e, hdr[i]));
        if (w < 0) break;
        len += (size_t)w;
    }
    if (len >= size && size > 4) strcpy(buf + size - 4, "...");
    return buf;
}

static void finish(state *st) {
    th_summary *s = st->s;
    for (size_t g = 0; g < s->ngroups; g++) {
        th_summary_group *gr = &s->groups[g];
        acc *a = st->accs[g];
        gr->count = a->n;
        gr->best = a->best; /* the group owns the row now */
        gr->best_line = a->bestln;
        a->best = NULL;
        if (a->n == 0) {
            gr->mean = gr->gmean = gr->min = gr->max = NAN;
            continue;
        }
        gr->mean = (double)a->mean;
        gr->min = a->min;
        gr->max = a->max;
        gr->gmean = a->nonpos ? NAN : exp((double)a->logmean);
    }
}

/* Reads the next record that is not an empty line: 1, 0 at the end, -1 on error. */
static int next_record(th_csv_reader *r, th_error *err) {
    int st;
    while ((st = th_csv_read(r, err)) == 1 && r->blank)
        ;
    if (st == 1 && r->open_quote) {
        th_error_set(err, TH_EINPUT, "%s: line %lld: a quoted field is not closed", r->name,
                     (long long)r->line);
        return -1;
    }
    return st;
}

static int summarize(FILE *in, const char *name, const char *const *by, size_t nby,
                     const char *metric, int mode, th_summary *out, th_error *err) {
    memset(out, 0, sizeof *out);
    state st = {.s = out, .mode = mode};
    th_csv_reader r;
    th_csv_open_file(&r, in, name);
    char **hdr = NULL, **keys = NULL;
    int *bycol = NULL;
    int rc = TH_OK;
    size_t ncols = 0;

    /* The header: the first record that is not an empty line. */
    int got = next_record(&r, err);
    if (got < 0) {
        rc = err->code;
        goto done;
    }
    if (got == 0) {
        rc = th_error_set(err, TH_EINPUT,
                          "%s: empty file (expected a CSV header row and data rows)", name);
        goto done;
    }
    if (th_csv_header_check(&r, err)) {
        rc = err->code;
        goto done;
    }
    ncols = r.nfields;
    hdr = calloc(ncols + 1, sizeof *hdr); /* NULL-terminated: a name table for th_name_find */
    keys = calloc(nby ? nby : 1, sizeof *keys);
    bycol = calloc(nby ? nby : 1, sizeof *bycol);
    out->by = calloc(nby ? nby : 1, sizeof *out->by);
    out->metric = th_strdup(metric);
    if (!hdr || !keys || !bycol || !out->by || !out->metric) goto nomem;
    for (size_t i = 0; i < ncols; i++)
        if (!(hdr[i] = th_strdup(r.fields[i]))) goto nomem;
    out->nby = nby;
    for (size_t i = 0; i < nby; i++) {
        out->by[i] = th_strdup(by[i]);
        if (!out->by[i]) goto nomem;
    }
    char cols[200], shown[128]; /* what a message shows of the file: escaped (th_text_escape) */
    for (size_t i = 0; i < nby + 1; i++) {
        const char *want = i < nby ? by[i] : metric;
        int c = th_name_find((const char *const *)hdr, want);
        if (c < 0) {
            rc = th_error_set(err, TH_EINPUT, "%s: no column '%s' (columns: %s)", name,
                              th_text_escape(shown, sizeof shown, want),
                              list_columns(hdr, ncols, cols, sizeof cols));
            goto done;
        }
        if (i < nby) bycol[i] = c;
    }
    int mcol = th_name_find((const char *const *)hdr, metric);

    while ((got = next_record(&r, err)) == 1) {
        if (r.nfields != ncols) {
            rc = th_error_set(err, TH_EINPUT, "%s: line %lld: %zu fields, the header has %zu", name,
                              (long long)r.line, r.nfields, ncols);
            goto done;
        }
        out->rows++;
        for (size_t i = 0; i < nby; i++)
            keys[i] = r.fields[bycol[i]];
        acc *a = find_group(&st, keys, err);
        if (!a) {
            rc = TH_EINTERNAL;
            goto done;
        }
        const char *f = r.fields[mcol];
        if (f[0] == '\0') continue; /* not applicable here (a dim the system lacks) */
        char *end;
        errno = 0;
        double v = strtod(f, &end);
        if (end == f || *end != '\0' || !isfinite(v)) {
            rc = th_error_set(
                err, TH_EINPUT, "%s: line %lld: column '%s': expected a finite number, got '%s'",
                name, (long long)r.line, metric, th_text_escape(shown, sizeof shown, f));
            goto done;
        }
        acc_add(a, v);
        if (keep_best(&st, a, &r, v)) goto nomem;
    }
    if (got < 0) {
        rc = err->code;
        goto done;
    }
    if (out->rows == 0) {
        rc = th_error_set(err, TH_EINPUT, "%s: no data rows after the header", name);
        goto done;
    }
    finish(&st);
    if (mode >= 0) { /* the header goes with the rows */
        out->columns = hdr;
        out->ncols = ncols;
        hdr = NULL;
    }
    goto done;
nomem:
    rc = oom(err);
done:
    for (size_t g = 0; g < out->ngroups && st.accs; g++) {
        tdelete(st.accs[g], &st.tree, by_key);
        free(st.accs[g]->best);
        free(st.accs[g]->key);
        free(st.accs[g]);
    }
    free(st.accs);
    th_buf_free(&st.key);
    th_csv_close(&r);
    for (size_t i = 0; hdr && i < ncols; i++)
        free(hdr[i]);
    free(hdr);
    free(keys);
    free(bycol);
    if (rc != TH_OK) th_summary_free(out);
    return rc;
}

int th_summarize(FILE *in, const char *name, const char *const *by, size_t nby, const char *metric,
                 th_summary *out, th_error *err) {
    return summarize(in, name, by, nby, metric, -1, out, err);
}

int th_summarize_best(FILE *in, const char *name, const char *const *by, size_t nby,
                      const char *metric, th_best mode, th_summary *out, th_error *err) {
    return summarize(in, name, by, nby, metric, (int)mode, out, err);
}

void th_summary_free(th_summary *s) {
    for (size_t i = 0; s->columns && i < s->ncols; i++)
        free(s->columns[i]);
    free(s->columns);
    for (size_t g = 0; g < s->ngroups; g++) {
        free(s->groups[g].best);
        for (size_t i = 0; i < s->nby; i++)
            free(s->groups[g].keys[i]);
        free(s->groups[g].keys);
    }
    free(s->groups);
    if (s->by) {
        for (size_t i = 0; i < s->nby; i++)
            free(s->by[i]);
    }
    free(s->by);
    free(s->metric);
    memset(s, 0, sizeof *s);
}

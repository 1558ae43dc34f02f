/* Grouped summary statistics of a CSV column (count, mean, geometric mean, min, max; GSL). */
#include <errno.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "themis/summarize.h"

/* A group while rows are read: its values of the metric and their logs. */
typedef struct acc {
    double *vals; /* metric values */
    double *logs; /* log of each value, while every value is > 0 */
    size_t n, cap;
    int nonpos; /* a value <= 0 was seen: no geometric mean */
} acc;

typedef struct state {
    th_summary *s;
    acc *accs;        /* one per group, parallel to s->groups */
    size_t cap;       /* capacity of s->groups and accs */
    size_t *table;    /* hash table of group index + 1 (0 = empty slot) */
    size_t tcap;      /* slots, a power of two */
    uint64_t *hashes; /* hash of each group's keys */
} state;

static uint64_t hash_keys(char *const *keys, size_t n) {
    uint64_t h = 1469598103934665603ULL; /* FNV-1a */
    for (size_t i = 0; i < n; i++) {
        for (const unsigned char *p = (const unsigned char *)keys[i]; *p; p++) {
            h = (h ^ *p) * 1099511628211ULL;
        }
        h = (h ^ 0x1f) * 1099511628211ULL; /* separator: ("a","bc") differs from ("ab","c") */
    }
    return h;
}

static int same_keys(char *const *a, char *const *b, size_t n) {
    for (size_t i = 0; i < n; i++) {
        if (strcmp(a[i], b[i]) != 0) return 0;
    }
    return 1;
}

static char *dup_str(const char *s) {
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d) memcpy(d, s, n);
    return d;
}

static int oom(th_error *err) {
    return th_error_set(err, TH_EINTERNAL, "out of memory");
}

/* Rebuilds the hash table with twice the slots. */
static int grow_table(state *st) {
    size_t ncap = st->tcap ? st->tcap * 2 : 64;
    size_t *t = calloc(ncap, sizeof *t);
    if (!t) return -1;
    for (size_t g = 0; g < st->s->ngroups; g++) {
        size_t i = st->hashes[g] & (ncap - 1);
        while (t[i])
            i = (i + 1) & (ncap - 1);
        t[i] = g + 1;
    }
    free(st->table);
    st->table = t;
    st->tcap = ncap;
    return 0;
}

/* The group of keys, created (with copies of the keys) when it is new. */
static acc *find_group(state *st, char *const *keys, th_error *err) {
    th_summary *s = st->s;
    uint64_t h = hash_keys(keys, s->nby);
    if (st->tcap) {
        for (size_t i = h & (st->tcap - 1); st->table[i]; i = (i + 1) & (st->tcap - 1)) {
            size_t g = st->table[i] - 1;
            if (st->hashes[g] == h && same_keys(s->groups[g].keys, keys, s->nby)) {
                return &st->accs[g];
            }
        }
    }
    if (s->ngroups == st->cap) {
        size_t ncap = st->cap ? st->cap * 2 : 16;
        th_summary_group *g = realloc(s->groups, ncap * sizeof *g);
        if (g) s->groups = g;
        acc *a = realloc(st->accs, ncap * sizeof *a);
        if (a) st->accs = a;
        uint64_t *hs = realloc(st->hashes, ncap * sizeof *hs);
        if (hs) st->hashes = hs;
        if (!g || !a || !hs) {
            oom(err);
            return NULL;
        }
        st->cap = ncap;
    }
    if ((s->ngroups + 1) * 2 > st->tcap && grow_table(st) != 0) {
        oom(err);
        return NULL;
    }
    th_summary_group *g = &s->groups[s->ngroups];
    memset(g, 0, sizeof *g);
    g->keys = calloc(s->nby ? s->nby : 1, sizeof *g->keys);
    if (!g->keys) {
        oom(err);
        return NULL;
    }
    for (size_t i = 0; i < s->nby; i++) {
        g->keys[i] = dup_str(keys[i]);
        if (!g->keys[i]) {
            for (size_t j = 0; j < i; j++)
                free(g->keys[j]);
            free(g->keys);
            oom(err);
            return NULL;
        }
    }
    acc *a = &st->accs[s->ngroups];
    memset(a, 0, sizeof *a);
    st->hashes[s->ngroups] = h;
    size_t i = h & (st->tcap - 1);
    while (st->table[i])
        i = (i + 1) & (st->tcap - 1);
    st->table[i] = ++s->ngroups;
    return a;
}

static int acc_add(acc *a, double v) {
    if (a->n == a->cap) {
        size_t ncap = a->cap ? a->cap * 2 : 16;
        double *vals = realloc(a->vals, ncap * sizeof *vals);
        if (vals) a->vals = vals;
        double *logs = realloc(a->logs, ncap * sizeof *logs);
        if (logs) a->logs = logs;
        if (!vals || !logs) return -1;
        a->cap = ncap;
    }
    if (v <= 0) a->nonpos = 1;
    a->logs[a->n] = v > 0 ? log(v) : 0.0;
    a->vals[a->n++] = v;
    return 0;
}

/* Splits line in place at commas into at most max fields; returns the field count (which
 * may exceed max: the extra fields are counted, not stored). */
static size_t split(char *line, char **fields, size_t max) {
    size_t n = 0;
    char *p = line;
    for (;;) {
        char *c = strchr(p, ',');
        if (n < max) fields[n] = p;
        n++;
        if (!c) break;
        *c = '\0';
        p = c + 1;
    }
    return n;
}

static void chomp(char *line) {
    size_t n = strlen(line);
    while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
        line[--n] = '\0';
}

static int column_of(char **hdr, size_t ncols, const char *name) {
    for (size_t i = 0; i < ncols; i++) {
        if (strcmp(hdr[i], name) == 0) return (int)i;
    }
    return -1;
}

/* Lists the header's columns into buf for an error message, shortened if long. */
static const char *list_columns(char **hdr, size_t ncols, char *buf, size_t size) {
    size_t len = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < ncols && len + 1 < size; i++) {
        int w = snprintf(buf + len, size - len, "%s%s", i ? "," : "", hdr[i]);
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
        acc *a = &st->accs[g];
        gr->count = a->n;
        if (a->n == 0) {
            gr->mean = gr->gmean = gr->min = gr->max = NAN;
            continue;
        }
        gr->mean = gsl_stats_mean(a->vals, 1, a->n);
        gr->min = gsl_stats_min(a->vals, 1, a->n);
        gr->max = gsl_stats_max(a->vals, 1, a->n);
        gr->gmean = a->nonpos ? NAN : exp(gsl_stats_mean(a->logs, 1, a->n));
    }
}

int th_summarize(FILE *in, const char *name, const char *const *by, size_t nby, const char *metric,
                 th_summary *out, th_error *err) {
    memset(out, 0, sizeof *out);
    state st = {.s = out};
    char *line = NULL, *hline = NULL;
    size_t lcap = 0;
    char **hdr = NULL, **fields = NULL, **keys = NULL;
    int *bycol = NULL;
    int rc = TH_OK;
    size_t ncols = 0;
    long lineno = 0;
    ssize_t got;

    /* The header: the first line that is not empty. */
    while ((got = getline(&line, &lcap, in)) >= 0) {
        lineno++;
        chomp(line);
        if (line[0] != '\0') break;
    }
    if (got < 0) {
        rc = ferror(in)
                 ? th_error_set(err, TH_EINTERNAL, "%s: read error: %s", name, strerror(errno))
                 : th_error_set(err, TH_EINPUT,
                                "%s: empty file (expected a CSV header "
                                "row and data rows)",
                                name);
        goto done;
    }
    hline = dup_str(line);
    if (!hline) goto nomem;
    ncols = 1;
    for (const char *p = hline; *p; p++)
        ncols += *p == ',';
    hdr = calloc(ncols, sizeof *hdr);
    fields = calloc(ncols, sizeof *fields);
    keys = calloc(nby ? nby : 1, sizeof *keys);
    bycol = calloc(nby ? nby : 1, sizeof *bycol);
    out->by = calloc(nby ? nby : 1, sizeof *out->by);
    out->metric = dup_str(metric);
    if (!hdr || !fields || !keys || !bycol || !out->by || !out->metric) goto nomem;
    split(hline, hdr, ncols);
    out->nby = nby;
    for (size_t i = 0; i < nby; i++) {
        out->by[i] = dup_str(by[i]);
        if (!out->by[i]) goto nomem;
    }
    char cols[200];
    for (size_t i = 0; i < nby + 1; i++) {
        const char *want = i < nby ? by[i] : metric;
        int c = column_of(hdr, ncols, want);
        if (c < 0) {
            rc = th_error_set(err, TH_EINPUT, "%s: no column '%s' (columns: %s)", name, want,
                              list_columns(hdr, ncols, cols, sizeof cols));
            goto done;
        }
        if (i < nby) bycol[i] = c;
    }
    int mcol = column_of(hdr, ncols, metric);

    while ((got = getline(&line, &lcap, in)) >= 0) {
        lineno++;
        chomp(line);
        if (line[0] == '\0') continue;
        size_t n = split(line, fields, ncols);
        if (n != ncols) {
            rc = th_error_set(err, TH_EINPUT, "%s: line %ld: %zu fields, the header has %zu", name,
                              lineno, n, ncols);
            goto done;
        }
        out->rows++;
        for (size_t i = 0; i < nby; i++)
            keys[i] = fields[bycol[i]];
        acc *a = find_group(&st, keys, err);
        if (!a) {
            rc = TH_EINTERNAL;
            goto done;
        }
        const char *f = fields[mcol];
        if (f[0] == '\0') continue; /* not applicable here (a dim the system lacks) */
        char *end;
        errno = 0;
        double v = strtod(f, &end);
        if (end == f || *end != '\0' || !isfinite(v)) {
            rc = th_error_set(err, TH_EINPUT,
                              "%s: line %ld: column '%s': expected a finite number, got '%s'", name,
                              lineno, metric, f);
            goto done;
        }
        if (acc_add(a, v) != 0) goto nomem;
    }
    if (ferror(in)) {
        rc = th_error_set(err, TH_EINTERNAL, "%s: read error: %s", name, strerror(errno));
        goto done;
    }
    if (out->rows == 0) {
        rc = th_error_set(err, TH_EINPUT, "%s: no data rows after the header", name);
        goto done;
    }
    finish(&st);
    goto done;
nomem:
    rc = oom(err);
done:
    for (size_t g = 0; g < out->ngroups && st.accs; g++) {
        free(st.accs[g].vals);
        free(st.accs[g].logs);
    }
    free(st.accs);
    free(st.table);
    free(st.hashes);
    free(line);
    free(hline);
    free(hdr);
    free(fields);
    free(keys);
    free(bycol);
    if (rc != TH_OK) th_summary_free(out);
    return rc;
}

void th_summary_free(th_summary *s) {
    for (size_t g = 0; g < s->ngroups; g++) {
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

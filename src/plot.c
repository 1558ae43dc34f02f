/* `themis plot` without gnuplot: columns, filters, series, labels, the terminal, and the data
 * file and script gnuplot draws from. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "themis/buf.h"
#include "themis/csv.h"
#include "themis/num.h"
#include "themis/plot.h"
#include "themis/report.h"
#include "themis/str.h"

int th_plot_format_of(const char *path, th_plot_format *format, th_error *err) {
    static const char *const ext[] = {".png", ".pdf", ".svg"};
    size_t n = strlen(path);
    for (int i = 0; i < 3; i++)
        if (n > 4 && !strcasecmp(path + n - 4, ext[i])) {
            *format = (th_plot_format)i;
            return TH_OK;
        }
    return th_error_set(err, TH_EINPUT,
                        "%s: the extension names the format: expected .png, .pdf or .svg", path);
}

int th_plot_where_parse(char *text, th_plot_where *w, th_error *err) {
    char *eq = strchr(text, '=');
    if (!eq || eq == text)
        return th_error_set(err, TH_EINPUT, "--where: expected COLUMN=VALUE, got '%s'", text);
    *eq = '\0';
    w->col = text;
    w->value = eq + 1;
    return TH_OK;
}

int th_plot_by_parse(char *text, const char **cols, size_t max, size_t *n, th_error *err) {
    *n = 0;
    for (char *tok = text;; tok++) {
        char *c = strchr(tok, ',');
        if (c) *c = '\0';
        if (!*tok) return th_error_set(err, TH_EINPUT, "empty column name in the list");
        if (*n == max) return th_error_set(err, TH_EINPUT, "more than %zu columns", max);
        cols[(*n)++] = tok;
        if (!c) return TH_OK;
        tok = c;
    }
}

/* Suffixes and the units they carry. */
static const struct {
    const char *suffix, *unit;
} units[] = {{"_us", "µs"},     {"_ns", "ns"},       {"_ms", "ms"},
             {"_GBps", "GB/s"}, {"_bytes", "bytes"}, {"_GB", "GB"}};

void th_plot_label(const char *col, char *buf, size_t n) {
    size_t len = strlen(col);
    const char *unit = NULL;
    for (size_t i = 0; i < sizeof units / sizeof units[0] && !unit; i++) {
        size_t k = strlen(units[i].suffix);
        if (len > k && !strcmp(col + len - k, units[i].suffix)) {
            unit = units[i].unit;
            len -= k;
        }
    }
    if (!unit && !strcmp(col, "size")) unit = "bytes";
    if (!unit && (strstr(col, "speedup") || !strcmp(col, "vs_bound"))) unit = "x";
    char base[256];
    snprintf(base, sizeof base, "%.*s", (int)(len < sizeof base ? len : sizeof base - 1), col);
    for (char *p = base; *p; p++)
        if (*p == '_') *p = ' ';
    if (unit)
        snprintf(buf, n, "%s (%s)", base, unit);
    else
        snprintf(buf, n, "%s", base);
}

void th_plot_free(th_plot_data *d) {
    for (size_t i = 0; i < d->nseries; i++) {
        free(d->series[i].name);
        free(d->series[i].x);
        free(d->series[i].y);
    }
    free(d->series);
    memset(d, 0, sizeof *d);
}

/* "a, b, c" of the header into buf, cut with "..." when long. */
static void list_columns(const th_csv_reader *h, char *buf, size_t n) {
    size_t len = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < h->nfields && len + 4 < n; i++) {
        int w = snprintf(buf + len, n - len, "%s%s", i ? ", " : "", h->fields[i]);
        len = w < 0 || (size_t)w >= n - len ? n - 1 : len + (size_t)w;
    }
    if (len >= n - 1 && n > 4) strcpy(buf + n - 4, "...");
}

/* The index of column col in the header, or an error naming it and the columns there are. */
static int column(const th_csv_reader *h, char **cols, const char *col, const char *what,
                  const char *name, size_t *out, th_error *err) {
    int i = th_name_find((const char *const *)cols, col);
    if (i >= 0) {
        *out = (size_t)i;
        return TH_OK;
    }
    char list[300];
    list_columns(h, list, sizeof list);
    return th_error_set(err, TH_EINPUT, "%s: no column '%s' (for %s); the columns are: %s", name,
                        col, what, list);
}

/* A finite number from a whole field; 1 when it is one, 0 for an empty field, -1 otherwise. */
static int number(const char *f, double *v) {
    if (!*f) return 0;
    char *end;
    errno = 0;
    *v = strtod(f, &end);
    return *end || end == f || !isfinite(*v) ? -1 : 1;
}

static int add_point(th_plot_series *s, double x, double y) {
    if (s->n == s->cap) {
        size_t cx = s->cap, cy = s->cap; /* two arrays, one capacity */
        if (th_grow(&s->x, &cx, s->cap + 1, sizeof *s->x) ||
            th_grow(&s->y, &cy, s->cap + 1, sizeof *s->y))
            return -1;
        s->cap = cx;
    }
    s->x[s->n] = x;
    s->y[s->n++] = y;
    return 0;
}

/* The series of the row's --by values (new when none has them); NULL when memory runs out
 * (*too_many when the limit is reached). */
static th_plot_series *series_of(th_plot_data *d, const th_buf *key, int *too_many) {
    for (size_t i = 0; i < d->nseries; i++)
        if (!strcmp(d->series[i].name, key->p)) return &d->series[i];
    if (d->nseries == TH_PLOT_MAX_SERIES) {
        *too_many = 1;
        return NULL;
    }
    th_plot_series *s = realloc(d->series, (d->nseries + 1) * sizeof *s);
    if (!s) return NULL;
    d->series = s;
    s = &d->series[d->nseries];
    memset(s, 0, sizeof *s);
    if (!(s->name = th_strdup(key->p))) return NULL;
    d->nseries++;
    return s;
}

/* Sorts a series by x, rows of equal x in their order (insertion sort from the sorted runs a
 * sweep writes; a merge of two arrays would do no better on the few points of a line). */
static void sort_series(th_plot_series *s) {
    for (size_t i = 1; i < s->n; i++) {
        double x = s->x[i], y = s->y[i];
        size_t j = i;
        for (; j > 0 && s->x[j - 1] > x; j--) {
            s->x[j] = s->x[j - 1];
            s->y[j] = s->y[j - 1];
        }
        s->x[j] = x;
        s->y[j] = y;
    }
}

typedef struct cols {
    size_t x, y, *by, *where;
} cols;

static int read_rows(th_csv_reader *r, const char *name, const th_plot_opts *o, const cols *c,
                     size_t ncols, th_plot_data *d, th_error *err) {
    th_buf key = {0};
    int st, rc = TH_OK;
    while (rc == TH_OK && (st = th_csv_read(r, err)) == 1) {
        if (r->blank) continue;
        if (r->nfields != ncols) {
            rc = th_error_set(err, TH_EINPUT, "%s: line %lld: %zu fields, the header has %zu", name,
                              (long long)r->line, r->nfields, ncols);
            break;
        }
        int keep = 1;
        for (size_t k = 0; k < o->nwhere && keep; k++)
            keep = !strcmp(r->fields[c->where[k]], o->where[k].value);
        if (!keep) continue;
        double v[2];
        const size_t at[2] = {c->x, c->y};
        const char *axis[2] = {o->x, o->y};
        int empty = 0;
        for (int a = 0; a < 2 && rc == TH_OK; a++) {
            int got = number(r->fields[at[a]], &v[a]);
            if (got < 0)
                rc = th_error_set(err, TH_EINPUT,
                                  "%s: line %lld: column %s: expected a number, got '%s'", name,
                                  (long long)r->line, axis[a], r->fields[at[a]]);
            else if (got == 0)
                empty = 1;
            else if ((a ? o->logy : o->logx) && !(v[a] > 0))
                rc = th_error_set(
                    err, TH_EINPUT, "%s: line %lld: column %s: %s needs values > 0, got '%s'", name,
                    (long long)r->line, axis[a], a ? "--logy" : "--logx", r->fields[at[a]]);
        }
        if (rc || empty) continue;
        key.len = 0;
        int bad = th_buf_add(&key, "", 0);
        for (size_t k = 0; k < o->nby && !bad; k++) {
            const char *f = r->fields[c->by[k]];
            bad = (k && th_buf_add(&key, ", ", 2)) || th_buf_add(&key, f, strlen(f));
        }
        if (!o->nby && !bad) bad = th_buf_add(&key, o->y, strlen(o->y));
        int too_many = 0;
        th_plot_series *s = bad ? NULL : series_of(d, &key, &too_many);
        if (too_many)
            rc = th_error_set(err, TH_EINPUT,
                              "%s: --by %s gives more than %d series; narrow it with --where", name,
                              o->by[0], TH_PLOT_MAX_SERIES);
        else if (!s || add_point(s, v[0], v[1]))
            rc = th_error_set(err, TH_EINTERNAL, "out of memory");
        else
            d->rows++;
    }
    if (rc == TH_OK && st < 0) rc = err->code;
    th_buf_free(&key);
    return rc;
}

int th_plot_read(FILE *in, const char *name, const th_plot_opts *o, th_plot_data *d,
                 th_error *err) {
    memset(d, 0, sizeof *d);
    th_csv_reader r;
    th_csv_open_file(&r, in, name);
    int st = th_csv_read(&r, err);
    if (st <= 0) {
        th_csv_close(&r);
        return st < 0 ? err->code
                      : th_error_set(err, TH_EINPUT, "%s: empty file (expected a CSV header row)",
                                     name);
    }
    if (th_csv_header_check(&r, err)) {
        th_csv_close(&r);
        return err->code;
    }
    size_t ncols = r.nfields;
    char **head = calloc(ncols + 1, sizeof *head); /* NULL-terminated, for th_name_find */
    cols c = {0, 0, calloc(o->nby + 1, sizeof *c.by), calloc(o->nwhere + 1, sizeof *c.where)};
    int rc = head && c.by && c.where ? TH_OK : th_error_set(err, TH_EINTERNAL, "out of memory");
    for (size_t i = 0; rc == TH_OK && i < ncols; i++)
        if (!(head[i] = th_strdup(r.fields[i])))
            rc = th_error_set(err, TH_EINTERNAL, "out of memory");
    if (rc == TH_OK) rc = column(&r, head, o->x, "--x", name, &c.x, err);
    if (rc == TH_OK) rc = column(&r, head, o->y, "--y", name, &c.y, err);
    for (size_t k = 0; rc == TH_OK && k < o->nby; k++)
        rc = column(&r, head, o->by[k], "--by", name, &c.by[k], err);
    for (size_t k = 0; rc == TH_OK && k < o->nwhere; k++)
        rc = column(&r, head, o->where[k].col, "--where", name, &c.where[k], err);
    if (rc == TH_OK) rc = read_rows(&r, name, o, &c, ncols, d, err);
    if (rc == TH_OK && d->rows == 0)
        rc = th_error_set(err, TH_EINPUT, "%s: no row to draw%s", name,
                          o->nwhere ? " (none matches every --where)" : "");
    for (size_t i = 0; rc == TH_OK && i < d->nseries; i++)
        sort_series(&d->series[i]);
    for (size_t i = 0; head && i < ncols; i++)
        free(head[i]);
    free(head);
    free(c.by);
    free(c.where);
    th_csv_close(&r);
    if (rc) th_plot_free(d);
    return rc;
}

int th_plot_write_data(FILE *out, const th_plot_data *d, th_error *err) {
    char a[32], b[32];
    for (size_t i = 0; i < d->nseries; i++) {
        const th_plot_series *s = &d->series[i];
        if (i) fputs("\n\n", out);
        for (size_t k = 0; k < s->n; k++)
            fprintf(out, "%s %s\n", th_num_format(a, s->x[k]), th_num_format(b, s->y[k]));
    }
    if (fflush(out) || ferror(out))
        return th_error_set(err, TH_EIO, "write error: %s", strerror(errno ? errno : EIO));
    return TH_OK;
}

/* s as a gnuplot single-quoted string: quotes doubled, line breaks and tabs as spaces. */
static void quoted(FILE *out, const char *s) {
    fputc('\'', out);
    for (; *s; s++) {
        if (*s == '\'')
            fputs("''", out);
        else
            fputc(*s == '\n' || *s == '\r' || *s == '\t' ? ' ' : *s, out);
    }
    fputc('\'', out);
}

int th_plot_write_script(FILE *out, const th_plot_opts *o, th_plot_format format,
                         const th_plot_data *d, const char *data_path, const char *out_path,
                         th_error *err) {
    static const char *const terminal[] = {
        "pngcairo noenhanced font 'Sans,11' size 1000,600 linewidth 1.5",
        "pdfcairo noenhanced font 'Sans,9' size 6in,3.6in linewidth 1.5",
        "svg noenhanced font 'Sans,11' size 1000,600 linewidth 1.5 background '#ffffff'"};
    char xl[300], yl[300];
    th_plot_label(o->x, xl, sizeof xl);
    th_plot_label(o->y, yl, sizeof yl);
    fputs("set encoding utf8\n", out);
    fprintf(out, "set terminal %s\n", terminal[format]);
    fputs("set output ", out);
    quoted(out, out_path);
    fputs("\nset title ", out);
    if (o->title) {
        quoted(out, o->title);
    } else {
        th_buf t = {0};
        int bad = th_buf_add(&t, yl, strlen(yl)) || th_buf_add(&t, " vs ", 4) ||
                  th_buf_add(&t, xl, strlen(xl));
        for (size_t k = 0; k < o->nwhere && !bad; k++) {
            const th_plot_where *w = &o->where[k];
            bad = th_buf_add(&t, k ? ", " : " (", 2) || th_buf_add(&t, w->col, strlen(w->col)) ||
                  th_buf_add(&t, "=", 1) || th_buf_add(&t, w->value, strlen(w->value));
        }
        if (o->nwhere && !bad) bad = th_buf_add(&t, ")", 1);
        if (bad) {
            th_buf_free(&t);
            return th_error_set(err, TH_EINTERNAL, "out of memory");
        }
        quoted(out, t.p);
        th_buf_free(&t);
    }
    fputs("\nset xlabel ", out);
    quoted(out, xl);
    fputs("\nset ylabel ", out);
    quoted(out, yl);
    fputs("\nset grid lc rgb '#dddddd' lt 1\nset border 3\nset tics nomirror\n", out);
    /* bytes read best in binary units (1 MiB, 1 GiB), on a log axis at powers of 2 */
    const char *axis[2] = {"x", "y"}, *label[2] = {xl, yl};
    int logs[2] = {o->logx, o->logy};
    for (int a = 0; a < 2; a++) {
        int bytes = strstr(label[a], " (bytes)") != NULL;
        if (logs[a]) fprintf(out, "set logscale %s%s\n", axis[a], bytes ? " 2" : "");
        if (bytes) fprintf(out, "set format %s '%%.0b %%BB'\n", axis[a]);
    }
    if (o->nby) {
        th_buf k = {0};
        int bad = 0;
        for (size_t i = 0; i < o->nby && !bad; i++)
            bad = (i && th_buf_add(&k, ", ", 2)) || th_buf_add(&k, o->by[i], strlen(o->by[i]));
        if (bad) {
            th_buf_free(&k);
            return th_error_set(err, TH_EINTERNAL, "out of memory");
        }
        fputs("set key outside right top vertical title ", out);
        quoted(out, k.p);
        fputc('\n', out);
        th_buf_free(&k);
    } else {
        fputs("set key off\n", out);
    }
    fputs("plot ", out);
    for (size_t i = 0; i < d->nseries; i++) {
        if (i) fputs(", \\\n     ", out);
        if (i == 0)
            quoted(out, data_path);
        else
            fputs("''", out);
        fprintf(out, " index %zu using 1:2 with linespoints lw 2 pt 7 ps 0.7 title ", i);
        quoted(out, d->series[i].name);
    }
    fputs("\nunset output\n", out);
    if (fflush(out) || ferror(out))
        return th_error_set(err, TH_EIO, "write error: %s", strerror(errno ? errno : EIO));
    return TH_OK;
}

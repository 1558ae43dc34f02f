/* calibrate --plot: the measured times (fitted rows and the others) and the model's against
 * the size, log-log, drawn through themis plot's drawing (th_plot_draw). */
#include <stdlib.h>
#include <string.h>

#include "themis/calibrate.h"
#include "themis/plot.h"

/* Appends a series named "<log> <what>" with the points of log l that pass `keep` (0: fitted
 * rows' measured times, 1: other rows' measured times, 2: the model at every row); an empty
 * one is not added. */
static int add_series(th_plot_data *d, const th_cal_log *log, int l, int keep,
                      const th_cal_fit *fit) {
    static const char *const what[] = {"measured", "measured, not fitted", "model"};
    th_plot_series *s = &d->series[d->nseries];
    memset(s, 0, sizeof *s);
    const char *b = strrchr(log->source, '/');
    size_t n = strlen(b ? b + 1 : log->source) + 32;
    s->name = malloc(n);
    s->x = malloc((size_t)fit->npoints * sizeof *s->x);
    s->y = malloc((size_t)fit->npoints * sizeof *s->y);
    if (!s->name || !s->x || !s->y) {
        free(s->name), free(s->x), free(s->y);
        return -1;
    }
    snprintf(s->name, n, "%s %s", b ? b + 1 : log->source, what[keep]);
    for (int i = 0; i < fit->npoints; i++) {
        const th_cal_point *p = &fit->points[i];
        if (p->log != l || (keep == 0 && !p->used) || (keep == 1 && p->used)) continue;
        s->x[s->n] = p->size;
        s->y[s->n++] = (keep == 2 ? p->fit_ns : p->time_ns) / 1e3;
    }
    s->cap = (size_t)fit->npoints;
    for (size_t i = 1; i < s->n; i++) /* by size: a log of several cycles goes back */
        for (size_t j = i; j > 0 && s->x[j - 1] > s->x[j]; j--) {
            double x = s->x[j], y = s->y[j];
            s->x[j] = s->x[j - 1], s->y[j] = s->y[j - 1];
            s->x[j - 1] = x, s->y[j - 1] = y;
        }
    if (s->n == 0) {
        free(s->name), free(s->x), free(s->y);
        return 0;
    }
    d->nseries++, d->rows += s->n;
    return 0;
}

int th_cal_plot(const char *output, int force, const th_cal_result *r, const th_plot_outputs *io,
                th_error *err) {
    const th_cal_log *logs = r->logs;
    const th_cal_fit *fit = &r->fit;
    int nlogs = r->nlogs;
    th_plot_format format;
    if (th_plot_format_of(output, &format, err)) return err->code;
    th_plot_data d = {0};
    int rc = TH_OK;
    d.series = calloc((size_t)nlogs * 3, sizeof *d.series);
    for (int l = 0; d.series && rc == TH_OK && l < nlogs; l++)
        for (int k = 0; rc == TH_OK && k < 3; k++)
            if (add_series(&d, &logs[l], l, k, fit)) rc = TH_EINTERNAL;
    if (!d.series || rc) {
        th_plot_free(&d);
        return th_error_set(err, TH_EINTERNAL, "out of memory");
    }
    static const char *const by[] = {"series"};
    th_plot_opts o;
    memset(&o, 0, sizeof o);
    o.x = "size", o.y = "time_us", o.by = by, o.nby = 1, o.logx = o.logy = 1;
    o.title = "themis calibrate: measured and fitted time";
    rc = th_plot_draw(output, force, &o, format, &d, io, err);
    th_plot_free(&d);
    return rc;
}

/* The calibration fit: a dim's alpha and B from measured times by weighted least squares (GSL),
 * under the model of SPEC §3-§4 (include/themis/calibrate.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_multifit.h>

#include "calibrate_internal.h"
#include "themis/cost.h"

/* Weighted least squares of y on x (n rows of ncol regressors, row-major), weights w; c[] the
 * coefficients, sd[] their standard errors scaled by the residual variance (GSL's covariance
 * takes the weights for exact 1/sigma^2, ours are only relative). */
static int wls(const double *x, const double *y, const double *w, int n, int ncol, double *c,
               double *sd, th_error *err) {
    /* GSL's default handler aborts the process; the library reports errors instead. */
    gsl_set_error_handler_off();
    gsl_matrix *X = gsl_matrix_alloc((size_t)n, (size_t)ncol);
    gsl_vector *Y = gsl_vector_alloc((size_t)n), *W = gsl_vector_alloc((size_t)n);
    gsl_vector *C = gsl_vector_alloc((size_t)ncol);
    gsl_matrix *cov = gsl_matrix_alloc((size_t)ncol, (size_t)ncol);
    gsl_multifit_linear_workspace *ws = gsl_multifit_linear_alloc((size_t)n, (size_t)ncol);
    int rc = TH_OK;
    if (!X || !Y || !W || !C || !cov || !ws) {
        rc = th_error_set(err, TH_EINTERNAL, "calibrate: out of memory");
        goto out;
    }
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < ncol; j++)
            gsl_matrix_set(X, (size_t)i, (size_t)j, x[i * ncol + j]);
        gsl_vector_set(Y, (size_t)i, y[i]);
        gsl_vector_set(W, (size_t)i, w[i]);
    }
    double chisq;
    int st = gsl_multifit_wlinear(X, W, Y, C, cov, &chisq, ws);
    if (st) {
        rc = th_error_set(err, TH_EINTERNAL, "calibrate: least squares failed: %s",
                          gsl_strerror(st));
        goto out;
    }
    double s2 = n > ncol ? chisq / (n - ncol) : 0.0;
    for (int j = 0; j < ncol; j++) {
        c[j] = gsl_vector_get(C, (size_t)j);
        sd[j] = sqrt(gsl_matrix_get(cov, (size_t)j, (size_t)j) * s2);
    }
out:
    gsl_multifit_linear_free(ws);
    gsl_matrix_free(cov);
    gsl_vector_free(C);
    gsl_vector_free(W);
    gsl_vector_free(Y);
    gsl_matrix_free(X);
    return rc;
}

/* The regressors of one row: time - reduction = alpha * x1 + (1/B) * x2. */
typedef struct model {
    double x1;  /* k L */
    double x2k; /* k (p-1)/p, times m */
    double red; /* reduction ns per byte: (p-1)/p / reduce_bw for RS and AR, else 0 */
} model;

static model model_of(th_coll_type c, const th_dim *dim, double hops, double reduce_bw,
                      const th_cal_point *p) {
    double k = c == TH_COLL_ALLREDUCE ? 2.0 : 1.0, q = (dim->npus - 1.0) / (double)dim->npus;
    /* a run over the held dims below too: the fitted dim sees S / (their NPUs) */
    model m = {k * hops, k * q * p->scale, 0.0};
    if ((c == TH_COLL_ALLREDUCE || c == TH_COLL_REDUCESCATTER) && reduce_bw > 0)
        m.red = q / reduce_bw * p->scale;
    return m;
}

/* The time the held dims below take in a run over them and the fitted dim, one chunk in the
 * baseline order (SPEC §3-§4): dim i moves S / (NPUs of the dims before it), k times. */
static double below_ns(th_coll_type c, const th_dim *below, int n, double size, double reduce_bw,
                       double *scale) {
    double k = c == TH_COLL_ALLREDUCE ? 2.0 : 1.0, t = 0, s = 1;
    for (int i = 0; i < n; i++) {
        const th_dim *d = &below[i];
        double q = (d->npus - 1.0) / (double)d->npus;
        t += k *
             (th_cost_hops(d->topology, d->algorithm, d->npus) * d->latency + size * s * q / d->bw);
        if ((c == TH_COLL_ALLREDUCE || c == TH_COLL_REDUCESCATTER) && reduce_bw > 0)
            t += size * s * q / reduce_bw;
        s /= (double)d->npus;
    }
    *scale = s;
    return t;
}

static int points(const th_cal_log *logs, const th_coll_type *colls, int nlogs,
                  const th_cal_opts *o, th_cal_fit *fit, th_error *err) {
    int k = o->in_place ? 1 : 0, total = 0;
    const char *side = k ? "in-place" : "out-of-place";
    for (int l = 0; l < nlogs; l++) {
        if (!logs[l].has_time[k])
            return th_error_set(err, TH_EINPUT, "%s: no %s times in the log%s", logs[l].source,
                                side,
                                k ? "" : " (rccl-tests -O 0 runs in-place only: use --in-place)");
        total += logs[l].nrows;
    }
    fit->points = calloc((size_t)total, sizeof *fit->points);
    if (!fit->points) return th_error_set(err, TH_EINTERNAL, "calibrate: out of memory");
    for (int l = 0; l < nlogs; l++)
        for (int i = 0; i < logs[l].nrows; i++) {
            const th_cal_row *r = &logs[l].rows[i];
            char at[300];
            cal_where(&logs[l], r->line, at, sizeof at);
            if (r->time_us[k] < 0)
                return th_error_set(err, TH_EINPUT, "%s: no %s time for size %.0f", at, side,
                                    r->size);
            /* old logs print the largest numerical error, checked against the type's bound */
            double bound = logs[l].max_error ? th_cal_error_bound(logs[l].type) : 0;
            if (r->wrong[k] > bound) {
                if (!o->allow_wrong && logs[l].max_error)
                    return th_error_set(err, TH_EINPUT,
                                        "%s: error = %g exceeds %g, the largest error a %s "
                                        "result may have: the test's results are wrong at size "
                                        "%.0f, so its times are suspect (--allow-wrong fits "
                                        "them anyway)",
                                        at, r->wrong[k], bound, logs[l].type, r->size);
                if (!o->allow_wrong)
                    return th_error_set(err, TH_EINPUT,
                                        "%s: #wrong = %.0f: the test found wrong results at "
                                        "size %.0f, so its times are suspect (--allow-wrong "
                                        "fits them anyway)",
                                        at, r->wrong[k], r->size);
                if (fit->nwrong++ == 0) fit->wrong_log = l, fit->wrong_line = r->line;
            }
            th_cal_point *p = &fit->points[fit->npoints++];
            p->log = l;
            p->line = r->line;
            p->size = r->size;
            p->time_ns = r->time_us[k] * 1e3;
            p->below_ns =
                below_ns(colls[l], o->below, logs[l].below, r->size, o->reduce_bw, &p->scale);
            p->used = r->size >= o->min_size && (o->max_size <= 0 || r->size <= o->max_size);
            fit->nused += p->used;
        }
    return TH_OK;
}

/* Fits alpha and 1/B (c[0], c[1], standard errors sd[]) to the points where use[i] is set; a
 * negative free latency is clamped to 0 and 1/B refitted alone (*clamped). */
static int solve(const th_cal_fit *fit, const char *use, const th_coll_type *colls,
                 const th_dim *dim, double hops, const th_cal_opts *o, double c[2], double sd[2],
                 int *clamped, th_error *err) {
    int n = 0;
    for (int i = 0; i < fit->npoints; i++)
        n += use[i] != 0;
    double *x = calloc((size_t)n * 2 + 2, sizeof *x), *y = calloc((size_t)n + 1, sizeof *y);
    double *w = calloc((size_t)n + 1, sizeof *w);
    int rc = TH_OK;
    *clamped = 0;
    if (!x || !y || !w) {
        rc = th_error_set(err, TH_EINTERNAL, "calibrate: out of memory");
        goto out;
    }
    for (int i = 0, j = 0; i < fit->npoints; i++) {
        const th_cal_point *p = &fit->points[i];
        if (!use[i]) continue;
        model m = model_of(colls[p->log], dim, hops, o->reduce_bw, p);
        x[2 * j] = m.x1;
        x[2 * j + 1] = m.x2k * p->size;
        y[j] = p->time_ns - p->below_ns - m.red * p->size;
        w[j] = 1.0 / (p->time_ns * p->time_ns); /* relative errors count alike at every size */
        j++;
    }
    if ((rc = wls(x, y, w, n, 2, c, sd, err))) goto out;
    if (c[0] < 0) { /* a latency below zero means nothing: fit 1/B alone */
        *clamped = 1;
        for (int j = 0; j < n; j++)
            x[j] = x[2 * j + 1];
        if ((rc = wls(x, y, w, n, 1, &c[1], &sd[1], err))) goto out;
        c[0] = sd[0] = 0;
    }
out:
    free(x);
    free(y);
    free(w);
    return rc;
}

/* The fit's error on sizes it did not see: per log, every other fitted row (the 2nd, 4th, ...)
 * is held out, the line refitted to the others and its relative error on the held-out rows
 * recorded (held[l].n = 0 when too few rows are left to fit). */
static int holdout(th_cal_fit *fit, int nlogs, const th_coll_type *colls, const th_dim *dim,
                   double hops, const th_cal_opts *o, th_error *err) {
    char *use = calloc((size_t)fit->npoints + 1, 1);
    fit->held = calloc((size_t)nlogs, sizeof *fit->held);
    if (!use || !fit->held) {
        free(use);
        return th_error_set(err, TH_EINTERNAL, "calibrate: out of memory");
    }
    int rc = TH_OK, kept = 0;
    double lo = INFINITY, hi = 0;
    for (int l = 0; l < nlogs; l++)
        for (int i = 0, k = 0; i < fit->npoints; i++)
            if (fit->points[i].log == l && fit->points[i].used) {
                fit->points[i].held_out = k++ % 2 == 1;
                use[i] = !fit->points[i].held_out;
                if (use[i]) {
                    kept++;
                    lo = fmin(lo, fit->points[i].size), hi = fmax(hi, fit->points[i].size);
                }
            }
    double c[2], sd[2];
    int clamped;
    if (kept < 2 || lo == hi || solve(fit, use, colls, dim, hops, o, c, sd, &clamped, err) ||
        !(c[1] > 0) || !isfinite(c[0]) || !isfinite(c[1])) {
        for (int i = 0; i < fit->npoints; i++) /* nothing to predict from */
            fit->points[i].held_out = 0;
        goto out;
    }
    for (int i = 0; i < fit->npoints; i++) {
        th_cal_point *p = &fit->points[i];
        if (!p->held_out) continue;
        model m = model_of(colls[p->log], dim, hops, o->reduce_bw, p);
        p->held_ns = p->below_ns + m.x1 * c[0] + (m.x2k * c[1] + m.red) * p->size;
        double rel = (p->time_ns - p->held_ns) / p->time_ns;
        th_cal_held *h = &fit->held[p->log];
        h->n++;
        h->max_rel = fmax(h->max_rel, fabs(rel));
        h->rms_rel += rel * rel;
    }
    for (int l = 0; l < nlogs; l++)
        if (fit->held[l].n) fit->held[l].rms_rel = sqrt(fit->held[l].rms_rel / fit->held[l].n);
out:
    free(use);
    return rc;
}

int th_cal_fit_logs(const th_cal_log *logs, const th_coll_type *colls, int nlogs, const th_dim *dim,
                    const th_cal_opts *o, th_cal_fit *fit, th_error *err) {
    memset(fit, 0, sizeof *fit);
    double hops = th_cost_hops(dim->topology, dim->algorithm, dim->npus);
    if (!(hops > 0))
        return th_error_set(err, TH_EINPUT,
                            "a %s dim of %lld NPU(s) under the %s algorithm has no link hop "
                            "(L = %g): nothing to calibrate",
                            th_topology_name(dim->topology), (long long)dim->npus,
                            th_algorithm_name(dim->algorithm), hops);
    int rc = points(logs, colls, nlogs, o, fit, err);
    char *use = NULL;
    if (rc) goto out;
    double lo = INFINITY, hi = 0;
    for (int i = 0; i < fit->npoints; i++)
        if (fit->points[i].used) {
            if (fit->points[i].size < lo) lo = fit->points[i].size;
            if (fit->points[i].size > hi) hi = fit->points[i].size;
        }
    if (fit->nused < 2 || lo == hi) {
        rc = th_error_set(err, TH_EINPUT,
                          "%s: %d row(s) of %d in the fitted size range, %s: a line needs two "
                          "different sizes",
                          logs[0].source, fit->nused, fit->npoints,
                          fit->nused ? "all of one size" : "none");
        goto out;
    }
    fit->min_used = lo, fit->max_used = hi;
    int n = fit->nused;
    use = calloc((size_t)fit->npoints + 1, 1);
    if (!use) {
        rc = th_error_set(err, TH_EINTERNAL, "calibrate: out of memory");
        goto out;
    }
    for (int i = 0; i < fit->npoints; i++)
        use[i] = (char)fit->points[i].used;
    double c[2], sd[2];
    if ((rc = solve(fit, use, colls, dim, hops, o, c, sd, &fit->clamped, err))) goto out;
    if (fit->clamped) c[0] = sd[0] = 0;
    if (!isfinite(c[0]) || !isfinite(c[1]) || !isfinite(1.0 / c[1])) {
        rc = th_error_set(err, TH_EINPUT,
                          "%s: the fit gives no finite latency and bandwidth (times or sizes out "
                          "of range)",
                          logs[0].source);
        goto out;
    }
    int spans = 0;
    for (int l = 0; l < nlogs; l++)
        spans |= logs[l].below > 0;
    if (!(c[1] > 0)) {
        rc = th_error_set(err, TH_EINPUT,
                          "%s: the time does not grow with the size over the fitted rows%s "
                          "(1/B = %g ns per byte): no bandwidth to fit (%s)",
                          logs[0].source,
                          spans              ? " beyond the held dims'"
                          : o->reduce_bw > 0 ? " beyond the reduction's"
                                             : "",
                          c[1],
                          spans ? "the held dims below take most of the measured time: are "
                                  "their bandwidths too low?"
                                : "try --min-size");
        goto out;
    }
    fit->alpha_ns = c[0], fit->alpha_sd = sd[0];
    fit->bw = 1.0 / c[1], fit->bw_sd = sd[1] / (c[1] * c[1]);
    double sw = 0, swy = 0, ss_res = 0, ss_tot = 0, rel2 = 0;
    for (int i = 0; i < fit->npoints; i++) {
        th_cal_point *p = &fit->points[i];
        model m = model_of(colls[p->log], dim, hops, o->reduce_bw, p);
        p->fit_ns = p->below_ns + m.x1 * fit->alpha_ns + (m.x2k / fit->bw + m.red) * p->size;
        p->rel = (p->time_ns - p->fit_ns) / p->time_ns;
        if (!p->used) continue;
        double wi = 1.0 / (p->time_ns * p->time_ns);
        sw += wi, swy += wi * p->time_ns;
    }
    double mean = swy / sw;
    for (int i = 0; i < fit->npoints; i++) {
        th_cal_point *p = &fit->points[i];
        if (!p->used) continue;
        double wi = 1.0 / (p->time_ns * p->time_ns);
        ss_res += wi * (p->time_ns - p->fit_ns) * (p->time_ns - p->fit_ns);
        ss_tot += wi * (p->time_ns - mean) * (p->time_ns - mean);
        rel2 += p->rel * p->rel;
        p->flagged = fabs(p->rel) > o->tolerance;
        fit->nflagged += p->flagged;
    }
    fit->r2 = ss_tot > 0 ? 1.0 - ss_res / ss_tot : 1.0;
    fit->rms_rel = sqrt(rel2 / n);
    rc = holdout(fit, nlogs, colls, dim, hops, o, err);
out:
    free(use);
    if (rc) th_cal_fit_free(fit);
    return rc;
}

void th_cal_fit_free(th_cal_fit *fit) {
    free(fit->points);
    free(fit->held);
    fit->points = NULL;
    fit->held = NULL;
    fit->npoints = 0;
}

int th_cal_dim_apply(const th_cal_fit *fit, int fit_efficiency, th_dim *dim, th_error *err) {
    dim->latency = fit->alpha_ns;
    if (fit_efficiency) {
        if (!(dim->bw_GBps > 0))
            return th_error_set(err, TH_EINPUT,
                                "fitting the efficiency needs the nominal bw_GBps, got %g",
                                dim->bw_GBps);
        double e = fit->bw / dim->bw_GBps;
        if (e > 1)
            return th_error_set(err, TH_EINPUT,
                                "the measured bandwidth %.6g GB/s exceeds the nominal bw_GBps "
                                "%g: efficiency %.6g > 1",
                                fit->bw, dim->bw_GBps, e);
        dim->efficiency = e;
    } else {
        dim->bw_GBps = fit->bw;
        dim->efficiency = 1.0;
    }
    dim->bw = dim->bw_GBps * dim->efficiency;
    return TH_OK;
}

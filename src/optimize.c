/* Bandwidth what-if: COBYLA (NLopt) over the varied dims' bw_GBps, each point one emulator run,
 * subject to a budget on sum cost x bw_GBps; three deterministic starts, the best point kept. */
#include <math.h>
#include <nlopt.h>
#include <string.h>

#include "system_internal.h"
#include "themis/collist.h"
#include "themis/optimize.h"

const char *const th_opt_objective_names[] = {"time", "perf-per-cost", NULL};

typedef struct search {
    const th_collective *coll;
    const th_opt_opts *o;
    th_system sys; /* the system being evaluated (bw of the varied dims set) */
    th_runner *runner;
    int n;                /* varied dims */
    int dim[TH_MAX_DIMS]; /* their system indices */
    double cost[TH_MAX_DIMS];
    double budget;
    double scale; /* the starting time, ns: objectives are time / scale */
    int evals;
    int start;     /* the start being searched from */
    int failed;    /* an evaluation failed (or was interrupted): err holds why */
    nlopt_opt opt; /* the search running, stopped at once by a failure */
    th_error *err;
    double best, best_time, best_x[TH_MAX_DIMS]; /* best objective, its time (ns), point */
} search;

/* The objective's time for sys: the collective's, or the workload's iteration. */
static int measure(search *s, const th_system *sys, double *time) {
    if (s->o->wl) {
        th_train_opts t = s->o->train;
        t.policy = s->o->pair.policy;
        t.intra = s->o->pair.intra;
        th_train_result tr;
        if (th_train_run(sys, s->o->wl, &t, NULL, NULL, &tr, s->err)) return s->err->code;
        *time = tr.iteration;
        th_train_result_free(&tr);
        return TH_OK;
    }
    th_result r;
    if (s->o->list) { /* summed in list order: the same bits every run */
        double sum = 0;
        for (int i = 0; i < s->o->list->n; i++) {
            const th_collist_item *it = &s->o->list->items[i];
            if (th_run_eval(s->runner, sys, &it->coll, s->o->pair, s->o->model, NULL, NULL, &r,
                            s->err))
                return s->err->code;
            sum += it->weight * r.time;
        }
        *time = sum;
        return TH_OK;
    }
    if (th_run_eval(s->runner, sys, s->coll, s->o->pair, s->o->model, NULL, NULL, &r, s->err))
        return s->err->code;
    *time = r.time;
    return TH_OK;
}

/* The baseline+fifo bytes per dim of the collective, or the weighted sum over the list. */
static int baseline_bytes(search *s, const th_system *sys, double *bytes) {
    th_pair base = {TH_POLICY_BASELINE, TH_INTRA_FIFO};
    const th_collist *l = s->o->wl ? NULL : s->o->list;
    int n = l ? l->n : 1;
    memset(bytes, 0, sizeof(double) * TH_MAX_DIMS);
    for (int i = 0; i < n; i++) {
        th_result r;
        const th_collective *c = l ? &l->items[i].coll : s->coll;
        if (th_run_eval(s->runner, sys, c, base, s->o->model, NULL, NULL, &r, s->err))
            return s->err->code;
        for (int d = 0; d < sys->ndims; d++)
            bytes[d] += (l ? l->items[i].weight : 1.0) * r.bytes[d];
    }
    return TH_OK;
}

static int evaluate(search *s, const double *x, double *time) {
    for (int k = 0; k < s->n; k++) {
        th_dim *d = &s->sys.dims[s->dim[k]];
        d->bw_GBps = x[k];
        d->bw = x[k] * d->efficiency;
    }
    s->evals++;
    return measure(s, &s->sys, time);
}

static double spent(const search *s, const double *x) {
    double sum = 0;
    for (int k = 0; k < s->n; k++)
        sum += s->cost[k] * x[k];
    return sum;
}

static double objective(unsigned n, const double *x, double *grad, void *data) {
    (void)n, (void)grad; /* COBYLA uses no gradient */
    search *s = data;
    double t = 0;
    const th_train_opts *tr = &s->o->train; /* its stop and poll end the search too */
    if (!s->failed && ((tr->stop && atomic_load(tr->stop)) || (tr->poll && tr->poll(tr->poll_ctx))))
        s->failed = 1, th_error_set(s->err, TH_EINTERNAL, "interrupted");
    if (s->failed || evaluate(s, x, &t)) {
        s->failed = 1;
        nlopt_force_stop(s->opt);
        return HUGE_VAL;
    }
    if (s->o->point) {
        double bw[TH_MAX_DIMS];
        for (int d = 0; d < s->sys.ndims; d++)
            bw[d] = s->sys.dims[d].bw_GBps;
        s->o->point(s->o->point_ctx, s->start, bw, t, spent(s, x));
    }
    /* perf-per-cost: (1 / time) / spent is largest where time x spent is least */
    double v = s->o->objective == TH_OPT_PERF_PER_COST ? t * spent(s, x) / s->budget : t;
    if (spent(s, x) <= s->budget * (1 + 1e-12) && v < s->best) {
        s->best = v;
        s->best_time = t;
        memcpy(s->best_x, x, sizeof(double) * (size_t)s->n);
    }
    return v / s->scale;
}

static double budget_constraint(unsigned n, const double *x, double *grad, void *data) {
    (void)n, (void)grad;
    search *s = data;
    return (spent(s, x) - s->budget) / s->budget;
}

int th_opt_bandwidth(const th_system *sys, const th_collective *coll, const th_opt_opts *o,
                     th_opt_result *res, th_error *err) {
    memset(res, 0, sizeof *res);
    const th_collist *l = o->wl ? NULL : o->list;
    if (l && l->n < 1) return th_error_set(err, TH_EINPUT, "optimize: an empty collective list");
    for (int i = 0; i < (l ? l->n : 1); i++)
        if (th_collective_validate(sys, l ? &l->items[i].coll : coll, err)) return err->code;
    search s;
    memset(&s, 0, sizeof s);
    s.coll = coll, s.o = o, s.sys = *sys, s.err = err;
    uint32_t involved = 0;
    for (int i = 0; i < (l ? l->n : 1); i++) {
        uint32_t m = (l ? l->items[i].coll : *coll).dims_mask;
        involved |= m ? m : 0xffffffffu;
    }
    for (int d = 0; d < sys->ndims; d++) {
        int active = ((involved >> d) & 1u) && sys->dims[d].npus > 1;
        if (o->vary ? (int)((o->vary >> d) & 1u) : active) {
            if (!active)
                return th_error_set(err, TH_EINPUT,
                                    "--dims: dim %d carries no stage of this collective (npus "
                                    "1 or not involved): its bandwidth cannot matter",
                                    d);
            s.cost[s.n] = o->cost[d] > 0 ? o->cost[d] : 1.0;
            s.dim[s.n++] = d;
        }
    }
    if (s.n == 0) return th_error_set(err, TH_EINPUT, "optimize: no dim to vary");
    s.budget = o->budget > 0 ? o->budget : 0;
    if (s.budget == 0)
        for (int k = 0; k < s.n; k++)
            s.budget += s.cost[k] * sys->dims[s.dim[k]].bw_GBps;
    double lo = o->min_GBps > 0 ? o->min_GBps : 1e-3, hi[TH_MAX_DIMS], lb[TH_MAX_DIMS];
    double floor_spend = 0;
    for (int k = 0; k < s.n; k++) {
        lb[k] = lo;
        hi[k] = o->max_GBps > 0 ? o->max_GBps : s.budget / s.cost[k];
        /* the answer must be writable back as a system file: no dim above its limit (a budget
         * larger than the dims can take is then left partly unspent) */
        if (o->max_GBps > TH_BW_MAX)
            return th_error_set(err, TH_EINPUT,
                                "optimize: --max %.17g GB/s is above a system file's limit of %g "
                                "GB/s per dim",
                                o->max_GBps, TH_BW_MAX);
        if (hi[k] > TH_BW_MAX) hi[k] = TH_BW_MAX;
        floor_spend += s.cost[k] * lo;
        if (hi[k] < lo)
            return th_error_set(err, TH_EINPUT,
                                "optimize: --max %.17g GB/s is below --min %.17g GB/s (dim %d)",
                                hi[k], lo, s.dim[k]);
    }
    if (floor_spend > s.budget)
        return th_error_set(err, TH_EINPUT,
                            "optimize: the budget %.17g cannot pay the minimum of %d dims: "
                            "sum of cost x --min = %.17g",
                            s.budget, s.n, floor_spend);
    if (!(s.runner = th_runner_create())) return th_error_set(err, TH_EINTERNAL, "out of memory");
    int rc = measure(&s, sys, &res->start_time);
    if (rc) return th_runner_free(s.runner), rc;
    s.scale = res->start_time;
    /* the baseline's bytes per dim for the third start */
    double base_bytes[TH_MAX_DIMS];
    if ((rc = baseline_bytes(&s, sys, base_bytes))) return th_runner_free(s.runner), rc;
    s.best = INFINITY;
    int best_start = 0;
    int max_evals = o->max_evals > 0 ? o->max_evals : 2000;
    for (int start = 0; start < 3 && rc == TH_OK; start++) {
        double x[TH_MAX_DIMS], w[TH_MAX_DIMS], wsum = 0, step[TH_MAX_DIMS];
        for (int k = 0; k < s.n; k++) {
            int d = s.dim[k];
            w[k] = start == 0 ? 1.0 : start == 1 ? sys->dims[d].bw_GBps : base_bytes[d];
            wsum += s.cost[k] * w[k];
        }
        for (int k = 0; k < s.n; k++) {
            x[k] = fmin(hi[k], fmax(lb[k], w[k] * s.budget / wsum));
            step[k] = 0.1 * x[k];
        }
        double before = s.best;
        s.start = start;
        nlopt_opt opt = nlopt_create(NLOPT_LN_COBYLA, (unsigned)s.n);
        if (!opt) {
            rc = th_error_set(err, TH_EINTERNAL, "out of memory");
            break;
        }
        nlopt_set_lower_bounds(opt, lb);
        nlopt_set_upper_bounds(opt, hi);
        s.opt = opt;
        nlopt_set_min_objective(opt, objective, &s);
        nlopt_add_inequality_constraint(opt, budget_constraint, &s, 1e-12);
        nlopt_set_xtol_rel(opt, 1e-7);
        nlopt_set_ftol_rel(opt, 1e-10);
        nlopt_set_maxeval(opt, max_evals);
        nlopt_set_initial_step(opt, step);
        double f;
        nlopt_optimize(opt, x, &f); /* its status matters less than the best point seen */
        nlopt_destroy(opt);
        if (s.failed) rc = err->code;
        if (s.best < before) best_start = start;
    }
    th_runner_free(s.runner);
    if (rc) return rc;
    if (!isfinite(s.best))
        return th_error_set(err, TH_EINTERNAL, "optimize: no point within the budget was found");
    for (int d = 0; d < sys->ndims; d++)
        res->bw_GBps[d] = sys->dims[d].bw_GBps;
    for (int k = 0; k < s.n; k++)
        res->bw_GBps[s.dim[k]] = s.best_x[k];
    res->time = s.best_time;
    res->spent = spent(&s, s.best_x);
    res->evals = s.evals;
    res->start = best_start;
    return TH_OK;
}

int th_opt_chunks(const th_system *sys, const th_collective *coll, th_pair pair,
                  th_load_model model, const int64_t *list, int n, int64_t *best_chunks,
                  double *best_time, th_error *err) {
    th_runner *runner = th_runner_create();
    if (!runner) return th_error_set(err, TH_EINTERNAL, "out of memory");
    *best_time = INFINITY;
    *best_chunks = 0;
    int rc = TH_OK;
    for (int i = 0; i < n && rc == TH_OK; i++) {
        th_collective c = *coll;
        c.chunks = list[i];
        th_result r;
        rc = th_run_eval(runner, sys, &c, pair, model, NULL, NULL, &r, err);
        if (rc == TH_OK &&
            (r.time < *best_time || (r.time == *best_time && list[i] < *best_chunks))) {
            *best_time = r.time;
            *best_chunks = list[i];
        }
    }
    th_runner_free(runner);
    return rc;
}

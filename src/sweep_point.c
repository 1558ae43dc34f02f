/* Sweep points: decoding a point index into axis values, building its system and collective,
 * and formatting the CSV header and rows (with the baseline+fifo reference per point). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "sweep_internal.h"
#include "themis/bound.h"
#include "themis/cost.h"
#include "themis/csv.h"
#include "themis/report.h"

void sw_digits(const th_sweep *sw, int64_t point, int64_t *digits) {
    for (int g = sw->ngroups - 1; g >= 0; g--) {
        digits[g] = point % sw->groups[g].len;
        point /= sw->groups[g].len;
    }
}

/* "axis=value, ..." of the axes that shape the system, for error messages. */
static void describe_point(const th_sweep *sw, const int64_t *digits, char *buf, size_t n) {
    buf[0] = '\0';
    for (int a = 0; a < sw->naxes; a++) {
        const ax *x = &sw->axes[a];
        if (!sw->groups[x->group].structural) continue;
        size_t len = strlen(buf);
        snprintf(buf + len, n - len, "%s%s=%s", len ? ", " : "", x->name,
                 x->v[digits[x->group]].text);
    }
}

static void set_field(th_dim *d, dim_field f, const ax_value *v) {
    switch (f) {
    case F_NPUS: d->npus = v->i; break;
    case F_BW: d->bw_GBps = v->num; break;
    case F_LATENCY: d->latency = v->num; break;
    case F_TOPOLOGY: d->topology = (th_topology)v->i; break;
    case F_ALGORITHM: d->algorithm = (th_algorithm)v->i; break;
    case F_EFFICIENCY: d->efficiency = v->num; break;
    }
}

int sw_apply(const th_sweep *sw, const int64_t *digits, int64_t point, sw_point *pt,
             th_error *err) {
    const th_system *sys = &sw->base;
    pt->run_chunks = sw->base_chunks;
    for (int a = 0; a < sw->naxes; a++)
        if (sw->axes[a].kind == AX_SYSTEM) {
            int64_t i = sw->axes[a].v[digits[sw->axes[a].group]].i;
            sys = &sw->systems[i];
            pt->run_chunks = sw->sys_chunks[i];
        }
    pt->sys = *sys;
    pt->coll = sw->coll;
    pt->pair = sw->pair;
    pt->model = sw->model;
    pt->wl = sw->workload >= 0 ? sw->workloads[sw->workload] : NULL;
    pt->nat = sw->workload >= 0 && !pt->wl && sw->natives[sw->workload].format
                  ? &sw->natives[sw->workload]
                  : NULL;
    pt->priority = sw->priority;
    pt->batch = 0;
    pt->chunking_set = sw->chunking_set;
    pt->chunking = sw->chunking;
    pt->bucket = sw->bucket;
    int structural = 0;
    for (int a = 0; a < sw->naxes; a++) {
        const ax *x = &sw->axes[a];
        const ax_value *v = &x->v[digits[x->group]];
        switch (x->kind) {
        case AX_CHUNKS: pt->coll.chunks = v->i; break;
        case AX_SIZE: pt->coll.size = v->num; break;
        case AX_TYPE: pt->coll.type = (th_coll_type)v->i; break;
        case AX_POLICY: pt->pair.policy = (th_policy)v->i; break;
        case AX_INTRA: pt->pair.intra = (th_intra)v->i; break;
        case AX_LOAD_MODEL: pt->model = (th_load_model)v->i; break;
        case AX_DIMS: pt->coll.dims_mask = v->mask; break;
        case AX_SYSTEM: break;
        case AX_WORKLOAD:
            pt->wl = sw->workloads[v->i];
            pt->nat = !pt->wl && sw->natives[v->i].format ? &sw->natives[v->i] : NULL;
            break;
        case AX_PRIORITY: pt->priority = (th_priority)v->i; break;
        case AX_BATCH: pt->batch = v->num; break;
        case AX_CHUNKING:
            pt->chunking_set = 1;
            pt->chunking = (th_chunking)v->i;
            break;
        case AX_BUCKET: pt->bucket = v->num > 0 ? v->num : -1; break;
        case AX_LLM: break; /* below */
        case AX_REDUCE:
            pt->sys.reduce_bw = v->num;
            structural = 1;
            break;
        case AX_DIM_FIELD:
            if (x->dim >= pt->sys.ndims) {
                char where[512];
                describe_point(sw, digits, where, sizeof where);
                return th_error_set(err, TH_EINPUT,
                                    "%s: axes.%s: system \"%s\" has no dim %d (it has %d) at "
                                    "point %lld (%s)",
                                    sw->source, x->name, pt->sys.name, x->dim, pt->sys.ndims,
                                    (long long)point, where);
            }
            set_field(&pt->sys.dims[x->dim], x->field, v);
            structural = 1;
            break;
        }
    }
    th_error e;
    int rc = structural ? th_system_validate(&pt->sys, pt->sys.name, &e) : TH_OK;
    int ours = sw->train && !pt->nat; /* a trace replays on any model and checks itself */
    if (rc == TH_OK && ours) rc = th_model_require(&pt->sys, TH_CAP_TRAIN, NULL, &e);
    if (rc == TH_OK && sw->llm) {
        sw_llm_apply(sw, digits, pt);
        rc = sw_llm_check(sw, pt, &e);
    } else if (rc == TH_OK && ours)
        rc = th_workload_check(pt->wl, &pt->sys, pt->wl->name, &e);
    else if (rc == TH_OK && !sw->train)
        rc = th_collective_validate(&pt->sys, &pt->coll, &e);
    if (rc != TH_OK) {
        char where[512];
        describe_point(sw, digits, where, sizeof where);
        return th_error_set(err, rc, "%s: point %lld%s%s%s: %s", sw->source, (long long)point,
                            where[0] ? " (" : "", where, where[0] ? ")" : "", e.msg);
    }
    return TH_OK;
}

int th_sweep_prefix_header(const th_sweep *sw, th_buf *out, th_error *err) {
    int bad = th_csv_field(out, "point");
    for (int a = 0; a < sw->naxes; a++) {
        bad |= th_csv_field(out, sw->axes[a].name);
        if (SW_HAS_FILE(&sw->axes[a])) {
            char col[256];
            snprintf(col, sizeof col, "%s_file", sw->axes[a].name);
            bad |= th_csv_field(out, col);
        }
    }
    return bad ? th_error_set(err, TH_EINTERNAL, "out of memory") : TH_OK;
}

int th_sweep_header(const th_sweep *sw, th_buf *out, th_error *err) {
    static const char *const train_cols[] = {"iteration_us", "compute_us",    "exposed_comm_us",
                                             "speedup",      "ideal_speedup", "speedup_vs_ideal"};
    static const char *const run_cols[] = {"time_us", "ideal_us",   "bw_util",
                                           "speedup", "algbw_GBps", "busbw_GBps"};
    if (sw->jsonl) return TH_OK;
    int bad = th_sweep_prefix_header(sw, out, err);
    if (sw->llm) {
        bad |= sw_llm_header(out) | th_csv_field(out, "npus") | th_csv_end(out);
        return bad ? th_error_set(err, TH_EINTERNAL, "out of memory") : TH_OK;
    }
    for (int k = 0; k < 6; k++)
        bad |= th_csv_field(out, sw->train ? train_cols[k] : run_cols[k]);
    if (sw->ideal_lat && sw->train)
        bad |= th_csv_field(out, "ideal_lat_speedup") | th_csv_field(out, "speedup_vs_ideal_lat");
    if (sw->issued) bad |= th_csv_field(out, "collectives");
    if (sw->bound) bad |= th_csv_field(out, "bound_us") | th_csv_field(out, "vs_bound");
    if (sw->ideal_lat && !sw->train)
        bad |= th_csv_field(out, "ideal_lat_us") | th_csv_field(out, "vs_ideal_lat");
    for (int d = 0; d < (sw->train ? 0 : sw->maxdims); d++) {
        char col[2][32];
        snprintf(col[0], sizeof col[0], "dim%d_bw_util", d);
        snprintf(col[1], sizeof col[1], "dim%d_busy_us", d);
        bad |= th_csv_field(out, col[0]) | th_csv_field(out, col[1]);
    }
    bad |= th_csv_field(out, "npus") | th_csv_end(out);
    return bad ? th_error_set(err, TH_EINTERNAL, "out of memory") : TH_OK;
}

static int prefix(const th_sweep *sw, int64_t point, const int64_t *digits, th_buf *out) {
    int bad = th_csv_int(out, (long long)point);
    for (int a = 0; a < sw->naxes; a++) {
        const ax_value *v = &sw->axes[a].v[digits[sw->axes[a].group]];
        bad |= th_csv_field(out, v->text);
        if (SW_HAS_FILE(&sw->axes[a])) bad |= th_csv_field(out, v->file);
    }
    return bad;
}

int th_sweep_prefix(const th_sweep *sw, int64_t point, th_buf *out, th_error *err) {
    int64_t *digits = calloc((size_t)(sw->ngroups ? sw->ngroups : 1), sizeof *digits);
    if (!digits) return th_error_set(err, TH_EINTERNAL, "out of memory");
    sw_digits(sw, point, digits);
    int bad = prefix(sw, point, digits, out);
    free(digits);
    return bad ? th_error_set(err, TH_EINTERNAL, "out of memory") : TH_OK;
}

struct th_sweep_worker {
    const th_sweep *sw;
    th_runner *runner;
    int64_t *digits;        /* this point's */
    sw_refs *refs;          /* the reference runs, this worker's or the run's */
    int own_refs;           /* refs are this worker's to free */
    const atomic_int *stop; /* evaluations end early once it is non-zero; may be NULL */
    th_llm_ctx *llm;        /* LLM sweeps: the evaluations' state */
};

th_sweep_worker *sw_worker_create_shared(const th_sweep *sw, sw_refs *refs) {
    th_sweep_worker *w = calloc(1, sizeof *w);
    if (!w) return NULL;
    w->sw = sw;
    w->runner = th_runner_create();
    w->digits = calloc((size_t)(sw->ngroups ? sw->ngroups : 1), sizeof *w->digits);
    w->refs = refs ? refs : sw_refs_create(sw);
    w->own_refs = !refs;
    if (sw->llm) w->llm = th_llm_ctx_create();
    if (!w->runner || !w->digits || !w->refs || (sw->llm && !w->llm)) {
        th_sweep_worker_free(w);
        return NULL;
    }
    return w;
}

th_sweep_worker *th_sweep_worker_create(const th_sweep *sw) {
    return sw_worker_create_shared(sw, NULL);
}

void th_sweep_worker_set_stop(th_sweep_worker *w, const atomic_int *stop) {
    w->stop = stop;
    th_runner_set_stop(w->runner, stop);
}

void th_sweep_worker_free(th_sweep_worker *w) {
    if (!w) return;
    th_runner_free(w->runner);
    th_llm_ctx_free(w->llm);
    free(w->digits);
    if (w->own_refs) sw_refs_free(w->refs);
    free(w);
}

/* The baseline+fifo time at this point. */
static int reference(th_sweep_worker *w, const sw_point *pt, const th_result *res, double *time,
                     th_error *err) {
    sw_ref v = {0};
    if (pt->pair.policy == TH_POLICY_BASELINE && pt->pair.intra == TH_INTRA_FIFO) {
        v.base_time = *time = res->time; /* this point is the reference */
        sw_refs_offer(w->refs, w->digits, &v);
        return TH_OK;
    }
    int slot;
    if (!sw_refs_find(w->refs, w->digits, &v, &slot)) {
        if (th_run_reference(w->runner, &pt->sys, &pt->coll, pt->model, &v.base_time, err)) {
            sw_refs_keep(w->refs, slot, NULL);
            return err->code;
        }
        sw_refs_keep(w->refs, slot, &v);
    }
    *time = v.base_time;
    return TH_OK;
}

/* One training replay at this point under `policy`. */
static int train_time(const th_sweep_worker *w, const sw_point *pt, th_policy policy, int lat,
                      double *iter, double *compute, int *ncolls, th_error *err) {
    const th_sweep *sw = w->sw;
    th_train_opts o = {0};
    o.stop = w->stop;
    o.policy = policy;
    o.intra = pt->pair.intra;
    o.priority = pt->priority;
    o.model = pt->model;
    o.iterations = sw->iterations;
    o.chunks = sw->chunks_axis ? pt->coll.chunks : 0;
    o.batch = pt->batch;
    o.chunking_set = pt->chunking_set;
    o.chunking = pt->chunking;
    o.bucket = pt->bucket;
    o.ideal_latency = lat;
    if (pt->nat) { /* a trace: its own replay; no ideal network (NaN: an empty field) */
        int64_t n = 0;
        th_wl_point q = {(int)policy,
                         (int)pt->pair.intra,
                         (int)pt->model,
                         (int)pt->priority,
                         o.chunks ? o.chunks : pt->run_chunks,
                         w->stop,
                         sw->comm_group,
                         sw->memory,
                         sw->memory_src};
        *iter = NAN;
        if (compute) *compute = NAN;
        if (policy == TH_POLICY_IDEAL) return TH_OK;
        double c = 0;
        if (pt->nat->format->point(pt->nat->native, &pt->sys, &q, iter, &c, &n, err))
            return err->code;
        if (compute) *compute = c;
        if (ncolls) *ncolls = (int)n;
        return TH_OK;
    }
    th_train_result r;
    if (th_train_run(&pt->sys, pt->wl, &o, NULL, NULL, &r, err)) return err->code;
    *iter = r.iteration;
    if (compute) *compute = r.compute;
    if (ncolls) *ncolls = r.ncolls;
    th_train_result_free(&r);
    return TH_OK;
}

/* A number, or an empty field for NaN (a trace has no ideal-network replay). */
static int num_or_empty(th_buf *out, double v) {
    return isnan(v) ? th_csv_field(out, "") : th_csv_num(out, v);
}

/* A workload point: iteration, compute, exposed communication, and the speedups against
 * baseline+fifo and of the ideal network (both cached while only the pair changes). */
static int train_row(th_sweep_worker *w, const sw_point *pt, th_buf *out, th_error *err) {
    double iter = 0, compute = 0;
    int ncolls = 0;
    th_policy pol = pt->pair.policy;
    if (train_time(w, pt, pol, 0, &iter, &compute, &ncolls, err)) return err->code;
    sw_ref v;
    int slot;
    if (!sw_refs_find(w->refs, w->digits, &v, &slot)) {
        sw_point ref = *pt;
        ref.pair = (th_pair){TH_POLICY_BASELINE, TH_INTRA_FIFO};
        int rc = TH_OK;
        if (pol == TH_POLICY_BASELINE && pt->pair.intra == TH_INTRA_FIFO)
            v.base_time = iter;
        else
            rc = train_time(w, &ref, TH_POLICY_BASELINE, 0, &v.base_time, NULL, NULL, err);
        if (rc == TH_OK)
            rc = train_time(w, &ref, TH_POLICY_IDEAL, 0, &v.ideal_time, NULL, NULL, err);
        v.ideal_lat = 0;
        if (rc == TH_OK && w->sw->ideal_lat)
            rc = train_time(w, &ref, TH_POLICY_IDEAL, 1, &v.ideal_lat, NULL, NULL, err);
        sw_refs_keep(w->refs, slot, rc == TH_OK ? &v : NULL);
        if (rc) return rc;
    }
    int bad = th_csv_num(out, iter / 1000.0);
    bad |= th_csv_num(out, compute / 1000.0);
    bad |= th_csv_num(out, (iter - compute) / 1000.0);
    bad |= th_csv_num(out, v.base_time / iter);
    bad |= num_or_empty(out, v.base_time / v.ideal_time);
    bad |= num_or_empty(out, v.ideal_time / iter);
    if (w->sw->ideal_lat)
        bad |= num_or_empty(out, v.base_time / v.ideal_lat) | num_or_empty(out, v.ideal_lat / iter);
    if (w->sw->issued) bad |= th_csv_int(out, ncolls);
    bad |= th_csv_num(out, pt->sys.npus) | th_csv_end(out);
    return bad ? th_error_set(err, TH_EINTERNAL, "out of memory") : TH_OK;
}

static int row(th_sweep_worker *w, int64_t point, th_buf *out, th_error *err) {
    const th_sweep *sw = w->sw;
    sw_point pt;
    sw_digits(sw, point, w->digits);
    if (sw_apply(sw, w->digits, point, &pt, err)) return err->code;
    if (sw->train) {
        th_error fail;
        if (prefix(sw, point, w->digits, out))
            return th_error_set(err, TH_EINTERNAL, "out of memory");
        if (sw->llm ? sw_llm_row(w->llm, w->refs, w->digits, &pt, out, &fail)
                    : train_row(w, &pt, out, &fail)) {
            char where[512];
            describe_point(sw, w->digits, where, sizeof where);
            return th_error_set(err, fail.code, "%s: point %lld%s%s%s: %s", sw->source,
                                (long long)point, where[0] ? " (" : "", where, where[0] ? ")" : "",
                                fail.msg);
        }
        return TH_OK;
    }
    th_result res;
    double base = 0;
    th_error fail;
    th_bound bound = {0};
    if (th_run_eval(w->runner, &pt.sys, &pt.coll, pt.pair, pt.model, NULL, NULL, &res, &fail) ||
        reference(w, &pt, &res, &base, &fail) ||
        (sw->bound && th_bound_eval(&pt.sys, &pt.coll, TH_BOUND_AUTO, &bound, &fail))) {
        char where[512];
        describe_point(sw, w->digits, where, sizeof where);
        return th_error_set(err, fail.code, "%s: point %lld%s%s%s: %s", sw->source,
                            (long long)point, where[0] ? " (" : "", where, where[0] ? ")" : "",
                            fail.msg);
    }
    res.speedup = base / res.time;
    int bad = prefix(sw, point, w->digits, out);
    bad |= th_csv_num(out, res.time / 1000.0);
    bad |= th_csv_num(out, res.ideal / 1000.0);
    bad |= th_csv_num(out, res.bw_util);
    bad |= isnan(res.speedup) ? th_csv_field(out, "") : th_csv_num(out, res.speedup);
    bad |= th_csv_num(out, res.algbw);
    bad |= th_csv_num(out, res.busbw);
    if (sw->bound) {
        bad |= th_csv_num(out, bound.time / 1000.0);
        bad |= th_csv_num(out, bound.time / res.time);
    }
    if (sw->ideal_lat) {
        double lat = res.ideal + th_cost_latency_floor(&pt.sys, pt.coll.type == TH_COLL_ALLREDUCE,
                                                       pt.coll.dims_mask);
        bad |= th_csv_num(out, lat / 1000.0);
        bad |= th_csv_num(out, lat / res.time);
    }
    for (int k = 0; k < sw->maxdims; k++) {
        if (k < pt.sys.ndims) {
            bad |= th_csv_num(out, res.dim_util[k]);
            bad |= th_csv_num(out, res.busy[k] / 1000.0);
        } else { /* the system has no dim k */
            bad |= th_csv_field(out, "") | th_csv_field(out, "");
        }
    }
    bad |= th_csv_num(out, pt.sys.npus) | th_csv_end(out);
    return bad ? th_error_set(err, TH_EINTERNAL, "out of memory") : TH_OK;
}

int th_sweep_row(th_sweep_worker *w, int64_t point, th_buf *out, th_error *err) {
    size_t len = out->len;
    int rc = row(w, point, out, err);
    if (rc == TH_OK && w->sw->jsonl) rc = sw_jsonl_row(w->sw, out, len, err);
    if (rc) th_buf_truncate(out, len); /* no partial row */
    return rc;
}

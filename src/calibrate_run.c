/* `themis calibrate`'s steps after its options: the system or new dim, the logs read and
 * checked against it, the fit, the system file's text; and the report as JSON (-f json, and
 * th_api_call's "calibrate"). */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "model.h"
#include "report_internal.h"
#include "themis/calibrate.h"
#include "themis/cost.h"
#include "themis/output.h"
#include "themis/run.h"
#include "themis/str.h"

/* SPEC §2: each topology's default algorithm. */
static const th_algorithm default_alg[] = {TH_ALG_RING, TH_ALG_DIRECT, TH_ALG_RHD};

int th_cal_output_check(const th_cal_request *q, const char *const *outputs, int noutputs,
                        th_error *err) {
    const char *inputs[TH_CAL_MAX_LOGS + 1];
    int n = q->nlogs < TH_CAL_MAX_LOGS ? q->nlogs : TH_CAL_MAX_LOGS;
    for (int i = 0; i < n; i++)
        inputs[i] = q->logs[i];
    inputs[n] = q->system;
    return th_output_check(inputs, n + 1, outputs, noutputs, err);
}

int th_cal_request_check(const th_cal_request *q, th_error *err) {
    if (q->nlogs < 1) return th_error_set(err, TH_EINPUT, "expected at least one LOG");
    if (q->nlogs > TH_CAL_MAX_LOGS)
        return th_error_set(err, TH_EINPUT, "at most %d logs", TH_CAL_MAX_LOGS);
    for (int i = 1; i < q->nlogs; i++) /* its rows would count twice in the fit */
        for (int j = 0; j < i; j++)
            if (!strcmp(q->logs[i], q->logs[j]))
                return th_error_set(err, TH_EINPUT, "%s: given twice", q->logs[i]);
    if (q->system && q->topology >= 0)
        return th_error_set(err, TH_EINPUT,
                            "--topology makes a new system, -s updates one: not both");
    if (!q->system && q->topology < 0)
        return th_error_set(err, TH_EINPUT,
                            "expected --topology (a new system) or -s (update a dim)");
    if (q->system && (q->npus || q->algorithm >= 0 || q->name || q->bw > 0))
        return th_error_set(err, TH_EINPUT,
                            "--npus, --algorithm, --name and --bw describe a new system: the "
                            "dim of -s has its own");
    if (!q->system && q->dim >= 0) return th_error_set(err, TH_EINPUT, "--dim selects a dim of -s");
    if (!q->system && q->efficiency && !(q->bw > 0))
        return th_error_set(err, TH_EINPUT, "--efficiency on a new system needs its nominal --bw");
    if (!q->system && q->bw > 0 && !q->efficiency)
        return th_error_set(err, TH_EINPUT, "--bw is the nominal bandwidth of --efficiency");
    if (q->fit.max_size > 0 && q->fit.max_size < q->fit.min_size)
        return th_error_set(err, TH_EINPUT, "--max-size is below --min-size");
    return TH_OK;
}

/* The dim to fit: dim K of -s (read into r->text), or the new system's one dim. */
static int the_dim(const th_cal_request *q, th_cal_result *r, th_cal_opts *fit, th_error *err) {
    th_dim *dim = &r->before;
    if (!q->system) {
        snprintf(dim->name, sizeof dim->name, "dim0");
        dim->topology = (th_topology)q->topology;
        dim->algorithm = q->algorithm >= 0 ? (th_algorithm)q->algorithm : default_alg[q->topology];
        dim->npus = q->npus;
        dim->bw_GBps = q->bw;
        dim->efficiency = 1;
        return TH_OK;
    }
    th_system sys;
    if (q->system_text) { /* a system made in memory (th_cal_run_nodes) */
        th_run_defaults def;
        r->len = strlen(q->system_text);
        if (!(r->text = th_strdup(q->system_text)))
            return th_error_set(err, TH_EINTERNAL, "out of memory");
        if (th_run_parse_system(r->text, r->len, q->system, &sys, &def, err)) return err->code;
    } else if (th_cal_system_read(q->system, &r->text, &r->len, &sys, err))
        return err->code;
    if (th_model_require(&sys, TH_CAP_CALIBRATE, q->system, err)) return err->code;
    if (r->dim < 0 && sys.ndims > 1)
        return th_error_set(err, TH_EINPUT, "%s has %d dims: give the one to update with --dim",
                            q->system, sys.ndims);
    if (r->dim >= sys.ndims)
        return th_error_set(err, TH_EINPUT, "--dim %d: %s has dims 0 .. %d", r->dim, q->system,
                            sys.ndims - 1);
    if (r->dim < 0) r->dim = 0;
    *dim = sys.dims[r->dim];
    r->nbelow = r->dim;
    for (int i = 0; i < r->dim; i++)
        r->below[i] = sys.dims[i];
    fit->reduce_bw = sys.reduce_bw;
    return TH_OK;
}

/* Reads log i and checks it against the dim (its NPUs taken from the first log when not given). */
static int read_log(const th_cal_request *q, th_cal_result *r, int i, th_error *err) {
    th_cal_log *lg = &r->logs[i];
    th_dim *dim = &r->before;
    int rc = th_cal_log_read(q->logs[i], lg, err);
    if (rc) return rc;
    if (!dim->npus && lg->nranks < 2)
        rc = th_error_set(err, TH_EINPUT,
                          "%s: the log lists %d rank(s) under '# Using devices': give the "
                          "dim's NPUs with --npus",
                          lg->source, lg->nranks);
    else if (!dim->npus)
        dim->npus = lg->nranks;
    else if (lg->nranks && lg->nranks != dim->npus) {
        /* a run over the dims before this one too (N nodes x G GPUs for the inter-node dim):
         * those dims are held at the file's values */
        double all = (double)dim->npus;
        for (int k = 0; k < r->nbelow; k++)
            all *= (double)r->below[k].npus;
        if (r->nbelow && lg->nranks == all)
            lg->below = r->nbelow;
        else
            rc =
                th_error_set(err, TH_EINPUT,
                             "%s: the test ran on %d ranks (its '# Using devices' lines), the "
                             "dim has %lld NPUs%s%.0f: calibrate one dim from a run on that "
                             "dim's NPUs, or on them and the dims before it",
                             lg->source, lg->nranks, (long long)dim->npus,
                             r->nbelow ? " and with the dims before it " : "", r->nbelow ? all : 0);
    }
    if (rc == TH_OK) /* the ratio is of the ranks the test ran on */
        rc = th_cal_collective(lg, q->coll, lg->below ? lg->nranks : (int)dim->npus, &r->colls[i],
                               err);
    if (rc)
        th_cal_log_free(lg);
    else
        r->nlogs++;
    return rc;
}

int th_cal_run(const th_cal_request *q, th_cal_result *r, th_error *err) {
    memset(r, 0, sizeof *r);
    r->dim = q->dim;
    if (th_cal_request_check(q, err)) return err->code;
    th_cal_opts fit = q->fit;
    if (the_dim(q, r, &fit, err)) return err->code;
    r->logs = calloc((size_t)q->nlogs, sizeof *r->logs);
    r->colls = calloc((size_t)q->nlogs, sizeof *r->colls);
    if (!r->logs || !r->colls) return th_error_set(err, TH_EINTERNAL, "out of memory");
    int rc = TH_OK;
    for (int i = 0; rc == TH_OK && i < q->nlogs; i++)
        rc = read_log(q, r, i, err);
    th_dim *dim = &r->before;
    if (rc == TH_OK && !q->system) { /* the standard check of topology, algorithm and npus */
        th_system one;
        memset(&one, 0, sizeof one);
        one.ndims = 1;
        one.dims[0] = *dim;
        one.dims[0].bw_GBps = 1;
        rc = th_system_validate(&one, "the new system", err);
    }
    r->fitted = *dim;
    fit.below = r->below;
    if (rc == TH_OK) rc = th_cal_fit_logs(r->logs, r->colls, r->nlogs, dim, &fit, &r->fit, err);
    if (rc == TH_OK) rc = th_cal_dim_apply(&r->fit, q->efficiency, &r->fitted, err);
    if (rc == TH_OK && q->system) {
        rc = th_cal_system_update(r->text, r->len, q->system, r->dim, &r->fitted, &r->out, err);
    } else if (rc == TH_OK) {
        char desc[256];
        snprintf(desc, sizeof desc, "fitted by themis calibrate to %.160s (%s), %d sizes, R^2 %.6f",
                 r->logs[0].source, th_coll_type_name(r->colls[0]), r->fit.nused, r->fit.r2);
        rc = th_cal_system_new(q->name, desc, &r->fitted, &r->out, err);
    }
    return rc;
}

void th_cal_result_free(th_cal_result *r) {
    th_cal_fit_free(&r->fit);
    for (int l = 0; r->logs && l < r->nlogs; l++)
        th_cal_log_free(&r->logs[l]);
    free(r->logs);
    free(r->colls);
    free(r->text);
    free(r->out);
    memset(r, 0, sizeof *r);
}

static cJSON *dim_json(const th_cal_request *q, const th_cal_result *r) {
    const th_dim *d = &r->fitted;
    cJSON *o = cJSON_CreateObject();
    if (!o) return NULL;
    if (q->system) cJSON_AddStringToObject(o, "system", q->system);
    if (q->system) cJSON_AddNumberToObject(o, "index", r->dim);
    cJSON_AddStringToObject(o, "name", d->name);
    cJSON_AddStringToObject(o, "topology", th_topology_name(d->topology));
    cJSON_AddStringToObject(o, "algorithm", th_algorithm_name(d->algorithm));
    cJSON_AddNumberToObject(o, "npus", (double)d->npus);
    cJSON_AddNumberToObject(o, "hops", th_cost_hops(d->topology, d->algorithm, d->npus));
    /* the dims before it that logs run over too, held at the file's values */
    int spans = 0;
    for (int l = 0; l < r->nlogs; l++)
        spans |= r->logs[l].below > 0;
    cJSON *held = cJSON_AddArrayToObject(o, "held");
    for (int i = 0; held && spans && i < r->nbelow; i++) {
        cJSON *h = cJSON_CreateObject();
        if (!h || !cJSON_AddItemToArray(held, h)) {
            cJSON_Delete(h);
            break;
        }
        cJSON_AddNumberToObject(h, "index", i);
        cJSON_AddStringToObject(h, "name", r->below[i].name);
        cJSON_AddNumberToObject(h, "npus", (double)r->below[i].npus);
        cJSON_AddNumberToObject(h, "latency_ns", r->below[i].latency);
        cJSON_AddNumberToObject(h, "bw_GBps", r->below[i].bw);
    }
    return o;
}

static cJSON *fit_json(const th_cal_request *q, const th_cal_result *r) {
    const th_cal_fit *f = &r->fit;
    cJSON *o = cJSON_CreateObject();
    if (!o) return NULL;
    cJSON_AddNumberToObject(o, "latency_ns", f->alpha_ns);
    cJSON_AddNumberToObject(o, "latency_sd_ns", f->alpha_sd);
    cJSON_AddNumberToObject(o, "bw_GBps", f->bw);
    cJSON_AddNumberToObject(o, "bw_sd_GBps", f->bw_sd);
    if (q->efficiency) {
        cJSON_AddNumberToObject(o, "efficiency", r->fitted.efficiency);
        cJSON_AddNumberToObject(o, "nominal_bw_GBps", r->fitted.bw_GBps);
    }
    cJSON_AddBoolToObject(o, "clamped", f->clamped);
    cJSON_AddNumberToObject(o, "r2", f->r2);
    cJSON_AddNumberToObject(o, "rms_rel", f->rms_rel);
    cJSON_AddNumberToObject(o, "rows", f->npoints);
    cJSON_AddNumberToObject(o, "fitted", f->nused);
    cJSON_AddNumberToObject(o, "flagged", f->nflagged);
    cJSON_AddNumberToObject(o, "wrong", f->nwrong);
    cJSON_AddNumberToObject(o, "min_size", f->min_used);
    cJSON_AddNumberToObject(o, "max_size", f->max_used);
    cJSON_AddStringToObject(o, "times", q->fit.in_place ? "in-place" : "out-of-place");
    cJSON_AddNumberToObject(o, "tolerance", q->fit.tolerance);
    return o;
}

static cJSON *logs_json(const th_cal_result *r) {
    cJSON *a = cJSON_CreateArray();
    for (int l = 0; a && l < r->nlogs; l++) {
        const th_cal_log *lg = &r->logs[l];
        cJSON *o = cJSON_CreateObject();
        if (!o || !cJSON_AddItemToArray(a, o)) {
            cJSON_Delete(o);
            break;
        }
        cJSON_AddStringToObject(o, "source", lg->source);
        cJSON_AddStringToObject(o, "collective", th_coll_type_name(r->colls[l]));
        cJSON_AddStringToObject(o, "program", lg->program);
        cJSON_AddNumberToObject(o, "rows", lg->nrows);
        cJSON_AddNumberToObject(o, "zero_rows", lg->rows_zero);
        cJSON_AddNumberToObject(o, "ranks", lg->nranks);
        cJSON_AddNumberToObject(o, "held_dims", lg->below);
        if (lg->prefix[0]) cJSON_AddStringToObject(o, "prefix", lg->prefix);
        cJSON *h = cJSON_AddObjectToObject(o, "held_out");
        if (h) {
            cJSON_AddNumberToObject(h, "rows", r->fit.held[l].n);
            cJSON_AddNumberToObject(h, "max_residual", r->fit.held[l].max_rel);
            cJSON_AddNumberToObject(h, "rms_residual", r->fit.held[l].rms_rel);
        }
    }
    return a;
}

static cJSON *points_json(const th_cal_fit *f) {
    cJSON *a = cJSON_CreateArray();
    for (int i = 0; a && i < f->npoints; i++) {
        const th_cal_point *p = &f->points[i];
        cJSON *o = cJSON_CreateObject();
        if (!o || !cJSON_AddItemToArray(a, o)) {
            cJSON_Delete(o);
            break;
        }
        cJSON_AddNumberToObject(o, "log", p->log + 1);
        cJSON_AddNumberToObject(o, "line", p->line);
        cJSON_AddNumberToObject(o, "size", p->size);
        cJSON_AddNumberToObject(o, "measured_us", p->time_ns / 1e3);
        cJSON_AddNumberToObject(o, "fitted_us", p->fit_ns / 1e3);
        cJSON_AddNumberToObject(o, "residual", p->rel);
        cJSON_AddBoolToObject(o, "fitted", p->used);
        cJSON_AddBoolToObject(o, "flagged", p->flagged);
        cJSON_AddBoolToObject(o, "held_out", p->held_out);
        if (p->held_out) cJSON_AddNumberToObject(o, "held_out_us", p->held_ns / 1e3);
    }
    return a;
}

cJSON *th_cal_report_tree(const th_cal_request *q, const th_cal_result *r) {
    cJSON *root = cJSON_CreateObject();
    cJSON *sys = cJSON_Parse(r->out);
    if (!root || !sys || !cJSON_AddItemToObject(root, "dim", dim_json(q, r)) ||
        !cJSON_AddItemToObject(root, "logs", logs_json(r)) ||
        !cJSON_AddItemToObject(root, "fit", fit_json(q, r))) {
        cJSON_Delete(root);
        cJSON_Delete(sys);
        return NULL;
    }
    if (q->system) {
        cJSON *was = cJSON_AddObjectToObject(root, "was");
        if (was) {
            cJSON_AddNumberToObject(was, "latency_ns", r->before.latency);
            cJSON_AddNumberToObject(was, "bw_GBps", r->before.bw_GBps);
            cJSON_AddNumberToObject(was, "efficiency", r->before.efficiency);
        }
    }
    if (!cJSON_AddItemToObject(root, "points", points_json(&r->fit)) ||
        !cJSON_AddItemToObject(root, "system", sys)) {
        cJSON_Delete(root);
        return NULL;
    }
    return root;
}

int th_cal_report_json(FILE *out, const th_cal_request *q, const th_cal_result *r, th_error *err) {
    return th_report_write_json(out, th_cal_report_tree(q, r), err);
}

/* Training results out: the iteration breakdown per policy as a table, JSON, JSONL or CSV (one
 * row schema, docs/SCHEMA.md), and the timeline trace CSV. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_internal.h"
#include "themis/csv.h"
#include "themis/text.h"

static double batch(const th_train_report *rep) {
    return rep->opts->batch > 0 ? rep->opts->batch : rep->wl->batch;
}

/* Named in the outputs only when asked for (or the workload's own), so that the outputs of
 * workloads without them stay as they were. */
static int shows_chunking(const th_train_report *rep) {
    return rep->opts->chunking_set || rep->wl->chunking != TH_CHUNKING_CAPPED;
}

int th_report_train_table(FILE *out, const th_train_report *rep, th_error *err) {
    const th_workload *wl = rep->wl;
    char a[32], b[32], c[32], d[32], e[32], wname[TH_TABLE_CELL], sname[TH_TABLE_CELL];
    fprintf(out,
            "%s on %s (%s NPUs): %d layers, %s, batch %s per NPU, priority %s, "
            "%d iterations\n",
            th_text_escape(wname, sizeof wname, wl->name),
            th_text_escape(sname, sizeof sname, rep->sys->name), th_num_format(a, rep->sys->npus),
            wl->nlayers, wl->hybrid ? "hybrid" : "data-parallel", th_num_format(b, batch(rep)),
            th_priority_name(rep->opts->priority), rep->opts->iterations);
    if (shows_chunking(rep) || th_train_bucket(wl, rep->opts) > 0) {
        fprintf(out, "chunking %s", th_chunking_names[th_train_chunking(wl, rep->opts)]);
        if (th_train_bucket(wl, rep->opts) > 0)
            fprintf(out, ", weight gradients in DDP buckets of %s bytes",
                    th_num_format(a, th_train_bucket(wl, rep->opts)));
        fputc('\n', out);
    }
    int lat = rep->ideal_lat > 0, ncol = 7 + lat;
    if (lat)
        fprintf(out, "ideal network with latency floors: %.10g us per iteration\n",
                rep->ideal_lat / 1000.0);
    th_table *t = calloc(1, sizeof *t);
    if (!t) return th_error_set(err, TH_EINTERNAL, "out of memory");
    static const char *const head[] = {"policy",     "intra",           "iteration_us",
                                       "compute_us", "exposed_comm_us", "speedup",
                                       "vs_ideal",   "vs_ideal_lat"};
    static const int width[] = {13, 5, 14, 14, 15, 12, 12, 13};
    for (int k = 0; k < ncol; k++) {
        th_table_col(t, width[k], k < 2);
        th_table_cell(t, head[k]);
    }
    for (int i = 0; i < rep->nrows; i++) {
        const th_train_row *r = &rep->rows[i];
        snprintf(a, sizeof a, "%.10g", r->res.iteration / 1000.0);
        snprintf(b, sizeof b, "%.10g", r->res.compute / 1000.0);
        snprintf(c, sizeof c, "%.10g", r->res.exposed / 1000.0);
        snprintf(d, sizeof d, "%.6g", r->speedup);
        snprintf(e, sizeof e, "%.6g", r->vs_ideal);
        char f[32];
        snprintf(f, sizeof f, "%.6g", r->vs_ideal_lat);
        const char *cells[] = {
            th_policy_name(r->policy), th_train_intra_name(r->policy, r->intra), a, b, c, d, e, f};
        for (int k = 0; k < ncol; k++)
            th_table_cell(t, cells[k]);
    }
    fputc('\n', out);
    th_table_print(out, t);
    free(t);
    return th_report_done(out, err);
}

/* A training replay's result row of row i: the same keys in JSON, JSONL and CSV. */
static cJSON *train_row(const th_train_report *rep, int i) {
    const th_train_row *r = &rep->rows[i];
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "workload", rep->wl->name);
    cJSON_AddStringToObject(o, "system", rep->sys->name);
    cJSON_AddStringToObject(o, "policy", th_policy_name(r->policy));
    cJSON_AddStringToObject(o, "intra", th_train_intra_name(r->policy, r->intra));
    cJSON_AddStringToObject(o, "priority", th_priority_name(rep->opts->priority));
    cJSON_AddNumberToObject(o, "iterations", rep->opts->iterations);
    cJSON_AddNumberToObject(o, "batch", batch(rep));
    cJSON_AddNumberToObject(o, "iteration_us", r->res.iteration / 1000.0);
    cJSON_AddNumberToObject(o, "compute_us", r->res.compute / 1000.0);
    cJSON_AddNumberToObject(o, "exposed_comm_us", r->res.exposed / 1000.0);
    cJSON_AddNumberToObject(o, "speedup", r->speedup);
    cJSON_AddNumberToObject(o, "speedup_vs_ideal", r->vs_ideal);
    cJSON_AddNumberToObject(o, "collectives", r->res.ncolls); /* how many; each in per_collective */
    if (rep->ideal_lat > 0) cJSON_AddNumberToObject(o, "speedup_vs_ideal_lat", r->vs_ideal_lat);
    return o;
}

/* Row i's collectives of the measured iteration, each tagged with its pair, added to cs. */
static void train_collectives(cJSON *cs, const th_train_report *rep, int i) {
    const th_workload *wl = rep->wl;
    const th_train_row *r = &rep->rows[i];
    double bucket = th_train_bucket(wl, rep->opts);
    for (int k = 0; k < r->res.ncolls; k++) {
        const th_train_coll *x = &r->res.colls[k];
        cJSON *j = cJSON_CreateObject();
        cJSON_AddStringToObject(j, "policy", th_policy_name(r->policy));
        cJSON_AddStringToObject(j, "intra", th_train_intra_name(r->policy, r->intra));
        cJSON_AddStringToObject(j, "layer", wl->layers[x->layer].name);
        if (bucket > 0 && x->phase == TH_PHASE_WG) { /* a bucket: from which layer, how many */
            cJSON_AddStringToObject(j, "first_layer", wl->layers[x->first_layer].name);
            cJSON_AddNumberToObject(j, "fused", x->fused);
        }
        cJSON_AddStringToObject(j, "phase", th_phase_name(x->phase));
        cJSON_AddStringToObject(j, "type", th_coll_type_name(x->type));
        cJSON_AddNumberToObject(j, "size_bytes", x->size);
        cJSON *dims = cJSON_AddArrayToObject(j, "dims");
        for (int dd = 0; dd < rep->sys->ndims; dd++)
            if ((x->mask >> dd) & 1u) cJSON_AddItemToArray(dims, cJSON_CreateNumber(dd));
        cJSON_AddBoolToObject(j, "blocking", x->blocking);
        cJSON_AddNumberToObject(j, "issue_us", x->issue / 1000.0);
        cJSON_AddNumberToObject(j, "end_us", x->end / 1000.0);
        cJSON_AddNumberToObject(j, "time_us", (x->end - x->issue) / 1000.0);
        cJSON_AddItemToArray(cs, j);
    }
}

/* The JSON document of a training replay: the system and the workload in full, the result rows
 * (also the lines of JSONL and, flattened, the records of CSV) and, with `collectives`, every
 * collective of each row's measured iteration (JSON only: not a row's key). */
static cJSON *train_json(const th_train_report *rep, int collectives) {
    const th_workload *wl = rep->wl;
    cJSON *root = cJSON_CreateObject();
    cJSON_AddItemToObject(root, "system", th_report_system_json(rep->sys, -1));
    cJSON *w = cJSON_AddObjectToObject(root, "workload");
    cJSON_AddStringToObject(w, "name", wl->name);
    cJSON_AddNumberToObject(w, "layers", wl->nlayers);
    cJSON_AddStringToObject(w, "parallelism", wl->hybrid ? "hybrid" : "data");
    if (wl->hybrid) cJSON_AddNumberToObject(w, "mp_dims", wl->mp_dims);
    cJSON_AddNumberToObject(w, "batch", batch(rep));
    cJSON_AddNumberToObject(w, "iterations", rep->opts->iterations);
    cJSON_AddStringToObject(w, "priority", th_priority_name(rep->opts->priority));
    double bucket = th_train_bucket(wl, rep->opts);
    if (shows_chunking(rep) || bucket > 0)
        cJSON_AddStringToObject(w, "chunking", th_chunking_names[th_train_chunking(wl, rep->opts)]);
    if (bucket > 0) cJSON_AddNumberToObject(w, "bucket_bytes", bucket);
    if (rep->ideal_lat > 0)
        cJSON_AddNumberToObject(w, "ideal_lat_iteration_us", rep->ideal_lat / 1000.0);
    cJSON *results = cJSON_AddArrayToObject(root, "results");
    for (int i = 0; i < rep->nrows; i++)
        cJSON_AddItemToArray(results, train_row(rep, i));
    if (collectives) {
        cJSON *cs = cJSON_AddArrayToObject(root, "per_collective");
        for (int i = 0; i < rep->nrows; i++)
            train_collectives(cs, rep, i);
    }
    return root;
}

int th_report_train_json(FILE *out, const th_train_report *rep, th_error *err) {
    return th_report_write_json(out, train_json(rep, 1), err);
}

int th_report_train_jsonl(FILE *out, const th_train_report *rep, th_error *err) {
    return th_report_write_jsonl(out, train_json(rep, 0), "results", err);
}

int th_report_train_write(FILE *out, th_format format, const th_train_report *rep, th_error *err) {
    switch (format) {
    case TH_FORMAT_TABLE: return th_report_train_table(out, rep, err);
    case TH_FORMAT_JSON: return th_report_train_json(out, rep, err);
    case TH_FORMAT_CSV: return th_report_train_csv(out, rep, err);
    case TH_FORMAT_JSONL: return th_report_train_jsonl(out, rep, err);
    }
    return th_error_set(err, TH_EINTERNAL, "unknown output format %d", (int)format);
}

int th_report_train_csv(FILE *out, const th_train_report *rep, th_error *err) {
    return th_report_write_csv(out, train_json(rep, 0), "results", err);
}

void th_report_train_trace_header(FILE *out) {
    fputs("policy,intra,kind,iteration,layer,phase,start_us,end_us\n", out);
}

int th_report_train_trace_row(FILE *out, const th_workload *wl, th_policy policy, th_intra intra,
                              const th_train_event *ev) {
    th_buf b = {0};
    int bad = th_csv_field(&b, th_policy_name(policy));
    bad |= th_csv_field(&b, th_train_intra_name(policy, intra));
    bad |= th_csv_field(&b, ev->collective ? "collective" : "compute");
    bad |= th_csv_int(&b, ev->iteration);
    bad |= th_csv_field(&b, wl->layers[ev->layer].name);
    bad |= th_csv_field(&b, th_phase_name(ev->phase));
    bad |= th_csv_num(&b, ev->start / 1000.0);
    bad |= th_csv_num(&b, ev->end / 1000.0);
    bad |= th_csv_end(&b);
    if (!bad) th_csv_write(out, &b);
    th_buf_free(&b);
    return bad ? -1 : 0;
}

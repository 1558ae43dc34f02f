/* The ASTRA-sim 1.0 replay's results out: per policy and intra policy the total, compute and
 * exposed communication as ASTRA-sim reports them, the last pass ('-', empty or null when
 * undefined) and the speedup, as a table, JSON, CSV or JSON lines (one row schema,
 * docs/SCHEMA.md). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "report_internal.h"
#include "themis/astra1_workload.h"
#include "themis/csv.h"
#include "themis/text.h"

static const char *version(const th_a1_report *rep) {
    return rep->opts->scale.tag ? "tutorial-asplos2023" : "1.0";
}

static int table(FILE *out, const th_a1_report *rep, th_error *err) {
    const th_a1_workload *wl = rep->wl;
    char a[32], wname[TH_TABLE_CELL], sname[TH_TABLE_CELL];
    fprintf(out,
            "%s on %s (%s NPUs): %d layers, %s, %d passes, %lld chunks per collective, "
            "ASTRA-sim %s's state machine\n",
            th_text_escape(wname, sizeof wname, wl->name),
            th_text_escape(sname, sizeof sname, rep->sys->name), th_num_format(a, rep->sys->npus),
            wl->nlayers, th_a1_parallelism_names[wl->par], rep->opts->passes,
            (long long)rep->opts->chunks, version(rep));
    th_table *t = calloc(1, sizeof *t);
    if (!t) return th_error_set(err, TH_EINTERNAL, "out of memory");
    static const char *const head[] = {"policy",          "intra",        "total_us", "compute_us",
                                       "exposed_comm_us", "iteration_us", "speedup"};
    static const int width[] = {10, 5, 14, 14, 15, 14, 12};
    for (int k = 0; k < 7; k++) {
        th_table_col(t, width[k], k < 2);
        th_table_cell(t, head[k]);
    }
    for (int i = 0; i < rep->nrows; i++) {
        const th_a1_row *r = &rep->rows[i];
        char c[5][32];
        snprintf(c[0], 32, "%.10g", r->res.total / 1000.0);
        snprintf(c[1], 32, "%.10g", r->res.compute / 1000.0);
        snprintf(c[2], 32, "%.10g", r->res.exposed / 1000.0);
        snprintf(c[3], 32, isnan(r->iteration) ? "-" : "%.10g", r->iteration / 1000.0);
        snprintf(c[4], 32, "%.6g", r->speedup);
        th_table_cell(t, th_policy_name(r->policy));
        th_table_cell(t, th_intra_name(r->intra));
        for (int k = 0; k < 5; k++)
            th_table_cell(t, c[k]);
    }
    fputc('\n', out);
    th_table_print(out, t);
    free(t);
    return th_report_done(out, err);
}

static cJSON *json(const th_a1_report *rep) {
    const th_a1_workload *wl = rep->wl;
    cJSON *root = cJSON_CreateObject();
    cJSON_AddItemToObject(root, "system", th_report_system_json(rep->sys, -1));
    cJSON *w = cJSON_AddObjectToObject(root, "workload");
    cJSON_AddStringToObject(w, "name", wl->name);
    cJSON_AddStringToObject(w, "format", "astra-sim-1.0-text");
    cJSON_AddStringToObject(w, "parallelism", th_a1_parallelism_names[wl->par]);
    cJSON_AddNumberToObject(w, "layers", wl->nlayers);
    cJSON_AddNumberToObject(w, "passes", rep->opts->passes);
    cJSON_AddNumberToObject(w, "chunks", (double)rep->opts->chunks);
    cJSON_AddNumberToObject(w, "comm_scale", rep->opts->scale.comm);
    cJSON_AddNumberToObject(w, "compute_scale", rep->opts->scale.compute);
    cJSON_AddStringToObject(w, "astra_version", version(rep));
    cJSON *results = cJSON_AddArrayToObject(root, "results");
    for (int i = 0; i < rep->nrows; i++) {
        const th_a1_row *r = &rep->rows[i];
        cJSON *o = cJSON_CreateObject(); /* a row: the same keys in JSON, JSONL and CSV */
        cJSON_AddStringToObject(o, "workload", wl->name);
        cJSON_AddStringToObject(o, "system", rep->sys->name);
        cJSON_AddStringToObject(o, "policy", th_policy_name(r->policy));
        cJSON_AddStringToObject(o, "intra", th_intra_name(r->intra));
        cJSON_AddNumberToObject(o, "passes", rep->opts->passes);
        cJSON_AddNumberToObject(o, "chunks", (double)rep->opts->chunks);
        cJSON_AddNumberToObject(o, "total_us", r->res.total / 1000.0);
        cJSON_AddNumberToObject(o, "compute_us", r->res.compute / 1000.0);
        cJSON_AddNumberToObject(o, "exposed_comm_us", r->res.exposed / 1000.0);
        cJSON_AddNumberToObject(o, "iteration_us", r->iteration / 1000.0);
        cJSON_AddNumberToObject(o, "speedup", r->speedup);
        cJSON_AddNumberToObject(o, "collectives", (double)r->res.collectives);
        cJSON *pe = cJSON_AddArrayToObject(o, "pass_end_us");
        for (int k = 0; k < r->res.passes; k++)
            cJSON_AddItemToArray(pe, cJSON_CreateNumber(r->res.pass_end[k] / 1000.0));
        cJSON_AddItemToArray(results, o);
    }
    return root;
}

int th_a1_report_write(FILE *out, th_format format, const th_a1_report *rep, th_error *err) {
    switch (format) {
    case TH_FORMAT_TABLE: return table(out, rep, err);
    case TH_FORMAT_JSON: return th_report_write_json(out, json(rep), err);
    case TH_FORMAT_CSV: return th_report_write_csv(out, json(rep), "results", err);
    case TH_FORMAT_JSONL: return th_report_write_jsonl(out, json(rep), "results", err);
    }
    return th_error_set(err, TH_EINTERNAL, "unknown output format %d", (int)format);
}

int th_a1_report_trace_row(FILE *out, const th_a1_workload *wl, th_policy policy, th_intra intra,
                           const th_train_event *ev) {
    th_buf b = {0};
    int bad = th_csv_field(&b, th_policy_name(policy));
    bad |= th_csv_field(&b, th_intra_name(intra));
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

/* Training results out: the iteration breakdown per policy as a table, JSON or CSV. */
#include <stdio.h>
#include <string.h>

#include "report_internal.h"

static double batch(const th_train_report *rep) {
    return rep->opts->batch > 0 ? rep->opts->batch : rep->wl->batch;
}

int th_report_train_table(FILE *out, const th_train_report *rep, th_error *err) {
    const th_workload *wl = rep->wl;
    char a[32], b[32], c[32], d[32], e[32];
    fprintf(out,
            "%s on %s (%s NPUs): %d layers, %s, batch %s per NPU, priority %s, "
            "%d iterations\n",
            wl->name, rep->sys->name, th_report_num(a, rep->sys->npus), wl->nlayers,
            wl->hybrid ? "hybrid" : "data-parallel", th_report_num(b, batch(rep)),
            th_priority_name(rep->opts->priority), rep->opts->iterations);
    fprintf(out, "\n%-13s %-5s %14s %14s %15s %12s %12s\n", "policy", "intra", "iteration_us",
            "compute_us", "exposed_comm_us", "speedup", "vs_ideal");
    for (int i = 0; i < rep->nrows; i++) {
        const th_train_row *r = &rep->rows[i];
        snprintf(a, sizeof a, "%.10g", r->res.iteration / 1000.0);
        snprintf(b, sizeof b, "%.10g", r->res.compute / 1000.0);
        snprintf(c, sizeof c, "%.10g", r->res.exposed / 1000.0);
        snprintf(d, sizeof d, "%.6g", r->speedup);
        snprintf(e, sizeof e, "%.6g", r->vs_ideal);
        fprintf(out, "%-13s %-5s %14s %14s %15s %12s %12s\n", th_policy_name(r->policy),
                th_train_intra_name(r->policy, r->intra), a, b, c, d, e);
    }
    return th_report_done(out, err);
}

int th_report_train_json(FILE *out, const th_train_report *rep, th_error *err) {
    const th_workload *wl = rep->wl;
    cJSON *root = cJSON_CreateObject();
    cJSON_AddItemToObject(root, "system", th_report_system_json(rep->sys));
    cJSON *w = cJSON_AddObjectToObject(root, "workload");
    cJSON_AddStringToObject(w, "name", wl->name);
    cJSON_AddNumberToObject(w, "layers", wl->nlayers);
    cJSON_AddStringToObject(w, "parallelism", wl->hybrid ? "hybrid" : "data");
    if (wl->hybrid) cJSON_AddNumberToObject(w, "mp_dims", wl->mp_dims);
    cJSON_AddNumberToObject(w, "batch", batch(rep));
    cJSON_AddNumberToObject(w, "iterations", rep->opts->iterations);
    cJSON_AddStringToObject(w, "priority", th_priority_name(rep->opts->priority));
    cJSON *results = cJSON_AddArrayToObject(root, "results");
    for (int i = 0; i < rep->nrows; i++) {
        const th_train_row *r = &rep->rows[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "policy", th_policy_name(r->policy));
        cJSON_AddStringToObject(o, "intra", th_train_intra_name(r->policy, r->intra));
        cJSON_AddNumberToObject(o, "iteration_us", r->res.iteration / 1000.0);
        cJSON_AddNumberToObject(o, "compute_us", r->res.compute / 1000.0);
        cJSON_AddNumberToObject(o, "exposed_comm_us", r->res.exposed / 1000.0);
        cJSON_AddNumberToObject(o, "speedup", r->speedup);
        cJSON_AddNumberToObject(o, "speedup_vs_ideal", r->vs_ideal);
        cJSON *cs = cJSON_AddArrayToObject(o, "collectives");
        for (int k = 0; k < r->res.ncolls; k++) {
            const th_train_coll *x = &r->res.colls[k];
            cJSON *j = cJSON_CreateObject();
            cJSON_AddStringToObject(j, "layer", wl->layers[x->layer].name);
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
        cJSON_AddItemToArray(results, o);
    }
    return th_report_write_json(out, root, err);
}

int th_report_train_csv(FILE *out, const th_train_report *rep, th_error *err) {
    fputs("workload,system,policy,intra,priority,iterations,batch,iteration_us,compute_us,"
          "exposed_comm_us,speedup,speedup_vs_ideal,collectives\n",
          out);
    char a[32], b[32], c[32], d[32], e[32], f[32];
    for (int i = 0; i < rep->nrows; i++) {
        const th_train_row *r = &rep->rows[i];
        fprintf(out, "%s,%s,%s,%s,%s,%d,%s,%s,%s,%s,%s,%s,%d\n", rep->wl->name, rep->sys->name,
                th_policy_name(r->policy), th_train_intra_name(r->policy, r->intra),
                th_priority_name(rep->opts->priority), rep->opts->iterations,
                th_report_num(a, batch(rep)), th_report_num(b, r->res.iteration / 1000.0),
                th_report_num(c, r->res.compute / 1000.0),
                th_report_num(d, r->res.exposed / 1000.0), th_report_num(e, r->speedup),
                th_report_num(f, r->vs_ideal), r->res.ncolls);
    }
    return th_report_done(out, err);
}

/* The embedding entry point's commands that answer with one report: "run" and "train" (the
 * steps of `themis run` and `themis train`, their -f json report) and "system". */
#include <stdlib.h>
#include <string.h>

#include "api_internal.h"
#include "json.h"
#include "report_internal.h"
#include "themis/bound.h"
#include "themis/cost.h"
#include "themis/report.h"

int th_api_run(const th_api_req *q, FILE *out, th_error *err) {
    static const char *const keys[] = {"system", "collective", "size",  "chunks",
                                       "policy", "intra",      "dims",  "load_model",
                                       "bound",  "ideal_lat",  NULL};
    th_collective coll = {TH_COLL_ALLREDUCE, 1073741824.0, 64, 0};
    int policy = -1, intra = -1, type = TH_COLL_ALLREDUCE, model = TH_LOAD_ALPHA_BETA, bound = 0;
    int ideal_lat = 0, set_chunks = 0, set_policy = 0, set_intra = 0;
    if (th_api_keys(q, keys, err) ||
        th_json_enum(q->root, "collective", th_coll_type_names, &type, q->cmd, "", err) ||
        th_api_size(q, "size", &coll.size, err) ||
        th_api_int(q, "chunks", 1, TH_MAX_CHUNKS, &coll.chunks, &set_chunks, err) ||
        th_api_choice(q, "policy", th_policy_names, TH_POLICY_LAST_SINGLE + 1, &policy, &set_policy,
                      err) ||
        th_api_choice(q, "intra", th_intra_names, 2, &intra, &set_intra, err) ||
        th_json_enum(q->root, "load_model", th_load_model_names, &model, q->cmd, "", err) ||
        th_api_bool(q, "bound", &bound, err) || th_api_bool(q, "ideal_lat", &ideal_lat, err))
        return err->code;
    coll.type = (th_coll_type)type;
    th_system sys;
    th_run_defaults def;
    const char *who;
    if (th_api_load_system(q, &sys, &def, &who, err)) return err->code;
    /* A system file's "run" defaults stand in for absent options, as for `themis run`. */
    if (!set_chunks && def.chunks) coll.chunks = def.chunks;
    if (!set_policy && def.has_policy) policy = (int)def.policy;
    if (!set_intra && def.has_intra) intra = (int)def.intra;
    if (th_api_dims(q, sys.ndims, &coll.dims_mask, err)) return err->code;
    if (th_collective_validate(&sys, &coll, err)) return th_api_blame(err, who);
    th_bound b = {0};
    if ((bound || (policy == TH_POLICY_LP && !th_bound_supported(&sys, coll.dims_mask))) &&
        th_bound_eval(&sys, &coll, TH_BOUND_AUTO, &b, err))
        return th_api_blame(err, who);
    if (ideal_lat && th_run_check_ideal_lat(&sys, err)) return th_api_blame(err, who);
    th_pair pairs[TH_RUN_MAX_PAIRS];
    th_result results[TH_RUN_MAX_PAIRS];
    int npairs = th_run_pairs(&sys, coll.dims_mask, policy, intra, pairs);
    th_runner *runner = th_runner_create();
    int rc = runner ? th_run_compare(runner, &sys, &coll, pairs, npairs, (th_load_model)model, NULL,
                                     NULL, NULL, results, err)
                    : th_error_set(err, TH_EINTERNAL, "out of memory");
    th_runner_free(runner);
    if (rc) return rc;
    th_report rep = {&sys,    &coll,  (th_load_model)model, pairs, results, npairs,
                     b.time,  ideal_lat,
                     th_cost_latency_floor(&sys, coll.type == TH_COLL_ALLREDUCE, coll.dims_mask)};
    return th_report_json(out, &rep, err);
}

/* "bucket": DDP buckets of a size (bytes or "25MiB"), "on" (TH_BUCKET_DEFAULT), "off" or 0
 * (none), as train's --bucket; absent: the workload's. */
static int bucket(const th_api_req *q, double *out, th_error *err) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(q->root, "bucket");
    if (!v || cJSON_IsNull(v)) return TH_OK;
    double b = 0;
    if (cJSON_IsString(v) && !strcmp(v->valuestring, "on"))
        b = TH_BUCKET_DEFAULT;
    else if (!(cJSON_IsString(v) && !strcmp(v->valuestring, "off")) &&
             !(cJSON_IsNumber(v) && v->valuedouble == 0) && th_api_size(q, "bucket", &b, err))
        return err->code;
    *out = b > 0 ? b : -1;
    return TH_OK;
}

int th_api_train(const th_api_req *q, FILE *out, th_error *err) {
    static const char *const keys[] = {"workload", "system",     "policy",     "intra",
                                       "priority", "iterations", "batch",      "chunks",
                                       "chunking", "bucket",     "load_model", "ideal_lat",
                                       NULL};
    th_train_opts t = {0};
    t.priority = TH_PRIO_LIFO;
    t.iterations = 3;
    t.model = TH_LOAD_ALPHA_BETA;
    int policy = -1, intra = -1, prio = TH_PRIO_LIFO, model = TH_LOAD_ALPHA_BETA, chunking = -1;
    int64_t iterations = 3;
    int ideal_lat = 0;
    if (th_api_keys(q, keys, err) ||
        th_api_choice(q, "policy", th_policy_names, TH_POLICY_COUNT, &policy, NULL, err) ||
        th_api_choice(q, "intra", th_intra_names, 2, &intra, NULL, err) ||
        th_json_enum(q->root, "priority", th_priority_names, &prio, q->cmd, "", err) ||
        th_api_int(q, "iterations", 2, 1000, &iterations, NULL, err) ||
        th_api_number(q, "batch", 0, 1e9, &t.batch, err) ||
        th_api_int(q, "chunks", 1, TH_MAX_CHUNKS, &t.chunks, NULL, err) ||
        th_json_enum(q->root, "chunking", th_chunking_names, &chunking, q->cmd, "", err) ||
        bucket(q, &t.bucket, err) ||
        th_json_enum(q->root, "load_model", th_load_model_names, &model, q->cmd, "", err) ||
        th_api_bool(q, "ideal_lat", &ideal_lat, err))
        return err->code;
    if (chunking >= 0) t.chunking_set = 1, t.chunking = (th_chunking)chunking;
    t.priority = (th_priority)prio;
    t.iterations = (int)iterations;
    t.model = (th_load_model)model;
    th_system sys;
    th_run_defaults def; /* checked, not used: they are run's */
    const char *who, *source;
    if (th_api_load_system(q, &sys, &def, &who, err)) return err->code;
    th_workload *wl;
    if (th_api_load_workload(q, &wl, &source, err)) return err->code;
    int rc = th_train_check_system(&sys, err) ? th_api_blame(err, who)
                                              : th_workload_check(wl, &sys, source, err);
    th_train_row rows[TH_TRAIN_MAX_ROWS];
    int nrows = 0;
    if (rc == TH_OK)
        rc = th_train_compare(&sys, wl, &t, policy, intra, NULL, NULL, NULL, rows, &nrows, err);
    double tl = 0; /* ideal_lat: the ideal network with every latency floor */
    if (rc == TH_OK && ideal_lat) rc = th_train_ideal_lat(&sys, wl, &t, rows, nrows, &tl, err);
    if (rc == TH_OK) {
        th_train_report rep = {&sys, wl, &t, rows, nrows, tl};
        rc = th_report_train_json(out, &rep, err);
    }
    th_train_rows_free(rows, nrows);
    th_workload_free(wl);
    return rc;
}

int th_api_system(const th_api_req *q, FILE *out, th_error *err) {
    static const char *const keys[] = {"system", NULL};
    th_system sys;
    th_run_defaults def;
    const char *who;
    if (th_api_keys(q, keys, err) || th_api_load_system(q, &sys, &def, &who, err)) return err->code;
    cJSON *o = th_report_system_json(&sys, -1);
    if (!o) return th_error_set(err, TH_EINTERNAL, "out of memory");
    return th_report_write_json(out, o, err);
}

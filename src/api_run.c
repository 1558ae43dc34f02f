/* The embedding entry point's commands that answer with one report: "run" and "train" (the
 * steps of `themis run` and `themis train`, their -f json report) and "system". */
#include <stdlib.h>
#include <string.h>

#include "api_internal.h"
#include "json.h"
#include "report_internal.h"
#include "themis/astra1_workload.h"
#include "themis/bound.h"
#include "themis/cost.h"
#include "themis/report.h"

int th_api_run(const th_api_req *q, FILE *out, th_error *err) {
    static const char *const keys[] = {"system", "collective", "size", "chunks",
                                       "policy", "intra",      "dims", "load_model",
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
    th_report rep = {&sys,
                     &coll,
                     (th_load_model)model,
                     pairs,
                     results,
                     npairs,
                     b.time,
                     ideal_lat,
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

/* An ASTRA-sim 1.0 text workload's options: its --comm-scale, --compute-scale and --passes. */
typedef struct text_opts {
    th_a1_scale scale;
    int64_t passes; /* 0: not given */
    int given;      /* one of them was given */
} text_opts;

static int a1_options(const th_api_req *q, text_opts *a, th_error *err) {
    static const char *const keys[] = {"comm_scale", "compute_scale", "passes"};
    for (int k = 0; k < 3; k++)
        a->given |= cJSON_GetObjectItemCaseSensitive(q->root, keys[k]) != NULL;
    if (th_api_number(q, "comm_scale", 0, 1e9, &a->scale.comm, err) ||
        th_api_number(q, "compute_scale", 0, 1e9, &a->scale.compute, err))
        return err->code;
    return th_api_int(q, "passes", 1, 100000, &a->passes, NULL, err);
}

/* A text workload: under the astra-sim-1.0 preset, ASTRA-sim 1.0's state machine for the
 * pairs asked, written as train's JSON report of that replay (*done set); under another model,
 * converted for our replay into *wl (the conversion's notes are themis train's, on stderr). */
static int a1_train(const th_api_req *q, const th_system *sys, const th_run_defaults *def,
                    const th_a1_workload *a1, const char *path, const text_opts *a,
                    const th_train_opts *t, int policy, int intra, int ideal_lat, FILE *out,
                    th_workload **wl, int *done, th_error *err) {
    if (sys->model != TH_MODEL_ASTRA1) {
        if (a->passes)
            return th_error_set(err, TH_EINPUT,
                                "%s: passes: ASTRA-sim 1.0's passes replay under the "
                                "astra-sim-1.0 preset; on system \"%s\" (%s model) the "
                                "workload replays with our semantics, whose steady state "
                                "iterations sets",
                                q->cmd, sys->name, th_model_name(sys->model));
        th_buf notes = {0};
        int rc = th_a1_convert(a1, sys, &a->scale, path, wl, &notes, err);
        th_buf_free(&notes);
        return rc;
    }
    if (t->bucket || t->chunking_set || ideal_lat)
        return th_error_set(err, TH_EINPUT,
                            "%s: bucket, chunking and ideal_lat are for our replay; under the "
                            "astra-sim-1.0 preset %s runs ASTRA-sim 1.0's state machine",
                            q->cmd, path);
    th_a1_replay_opts o;
    int rc = th_a1_replay_opts_for(sys, def, t->chunks, (int)a->passes, &a->scale, &o, err);
    if (rc) return rc;
    th_a1_row rows[4];
    int n, shown;
    rc = th_a1_replay_pairs(sys, a1, path, &o, policy, intra, NULL, rows, &n, &shown, err);
    if (rc == TH_OK) {
        th_a1_report rep = {sys, a1, &o, rows, shown};
        rc = th_a1_report_write(out, TH_FORMAT_JSON, &rep, err);
    }
    th_a1_rows_free(rows, n);
    *done = 1;
    return rc;
}

int th_api_train(const th_api_req *q, FILE *out, th_error *err) {
    static const char *const keys[] = {"workload",   "system",     "policy",        "intra",
                                       "priority",   "iterations", "batch",         "chunks",
                                       "chunking",   "bucket",     "load_model",    "ideal_lat",
                                       "comm_scale", "passes",     "compute_scale", NULL};
    th_train_opts t = {0};
    th_api_poller poller; /* Ctrl-C in the caller ends the replay */
    th_api_poll_train(q, &poller, &t);
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
    th_run_defaults def; /* run's; the ASTRA-sim 1.0 replay takes its chunks */
    const char *who, *source;
    if (th_api_load_system(q, &sys, &def, &who, err)) return err->code;
    text_opts a1o = {{1, 1, 0}, 0, 0};
    if (a1_options(q, &a1o, err)) return err->code;
    th_workload *wl = NULL;
    th_a1_workload *a1 = NULL;
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(q->root, "workload");
    if (cJSON_IsString(v)) { /* a file: our JSON or an ASTRA-sim 1.0 text workload, by content */
        source = v->valuestring;
        if (th_a1_load(source, &a1, &wl, err)) return err->code;
    } else if (th_api_load_workload(q, &wl, &source, err)) {
        return err->code;
    }
    if (!a1 && a1o.given) {
        th_workload_free(wl);
        return th_error_set(err, TH_EINPUT,
                            "%s: comm_scale, compute_scale and passes are for ASTRA-sim 1.0 "
                            "text workloads; %s is our JSON",
                            q->cmd, source);
    }
    if (a1) {
        int done = 0, rc = a1_train(q, &sys, &def, a1, source, &a1o, &t, policy, intra, ideal_lat,
                                    out, &wl, &done, err);
        th_a1_free(a1);
        if (rc || done) return rc;
    }
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

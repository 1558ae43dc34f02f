/* The embedding entry point's "optimize": the split of a bandwidth budget over the dims that
 * makes a collective, a weighted list of collectives or a workload's iteration fastest (the
 * steps of `themis optimize`, its -f json report). */
#include <math.h>
#include <string.h>

#include "api_internal.h"
#include "json.h"
#include "themis/collist.h"
#include "themis/optimize.h"
#include "themis/report.h"

/* "cost": one number > 0 (at most 1e12) per dim of the system. */
static int costs(const th_api_req *q, int ndims, double *cost, th_error *err) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(q->root, "cost");
    if (!v || cJSON_IsNull(v)) return TH_OK;
    char what[96];
    snprintf(what, sizeof what, "a list of %d numbers > 0 (one per dim)", ndims);
    if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != ndims)
        return th_json_bad(err, q->cmd, "cost", what, v);
    int d = 0;
    const cJSON *c;
    cJSON_ArrayForEach(c, v) {
        if (!cJSON_IsNumber(c) || !(c->valuedouble > 0) || c->valuedouble > 1e12)
            return th_json_bad(err, q->cmd, "cost", what, v);
        cost[d++] = c->valuedouble;
    }
    return TH_OK;
}

#define TH_API_MAX_COUNTS 64

/* "chunks": a count (of the collective), or a list of counts or "auto" (1, 2, 4, ..., 1024):
 * the best of them per pair, as --chunks LIST. */
static int chunk_list(const th_api_req *q, int64_t *chunks, int64_t *counts, int *n,
                      th_error *err) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(q->root, "chunks");
    if (!v || cJSON_IsNumber(v) || cJSON_IsNull(v))
        return th_api_int(q, "chunks", 1, TH_MAX_CHUNKS, chunks, NULL, err);
    if (cJSON_IsString(v) && !strcmp(v->valuestring, "auto")) {
        for (int64_t c = 1; c <= 1024; c *= 2)
            counts[(*n)++] = c;
        return TH_OK;
    }
    char what[96];
    snprintf(what, sizeof what, "a count, \"auto\" or a list of 1 to %d counts from 1 to %d",
             TH_API_MAX_COUNTS, TH_MAX_CHUNKS);
    if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) < 1 || cJSON_GetArraySize(v) > TH_API_MAX_COUNTS)
        return th_json_bad(err, q->cmd, "chunks", what, v);
    const cJSON *c;
    cJSON_ArrayForEach(c, v) {
        if (!cJSON_IsNumber(c) || c->valuedouble < 1 || c->valuedouble > TH_MAX_CHUNKS ||
            c->valuedouble != floor(c->valuedouble))
            return th_json_bad(err, q->cmd, "chunks", what, v);
        counts[(*n)++] = (int64_t)c->valuedouble;
    }
    return TH_OK;
}

/* "collectives": a list file or its content (named "collectives" in messages). */
static int load_list(const th_api_req *q, const cJSON *v, th_collist *list, const char **src,
                     th_error *err) {
    if (cJSON_IsString(v)) {
        *src = v->valuestring;
        return th_collist_load(v->valuestring, list, err);
    }
    if (!cJSON_IsObject(v))
        return th_json_bad(err, q->cmd, "collectives", "a file name or a list object", v);
    char *text;
    if (th_api_object_text(q, v, &text, err)) return err->code;
    *src = "collectives";
    int rc = th_collist_parse(text, strlen(text), "collectives", list, err);
    cJSON_free(text);
    return rc;
}

int th_api_optimize(const th_api_req *q, FILE *out, th_error *err) {
    static const char *const keys[] = {
        "system",    "collective", "size",        "chunks",   "policy",   "intra",
        "budget",    "cost",       "dims",        "min_GBps", "max_GBps", "max_evals",
        "objective", "workload",   "collectives", "batch",    "priority", NULL};
    th_collective coll = {TH_COLL_ALLREDUCE, 1073741824.0, 64, 0};
    th_opt_opts opt;
    memset(&opt, 0, sizeof opt);
    th_api_poller poller; /* Ctrl-C in the caller ends the search */
    th_api_poll_train(q, &poller, &opt.train);
    int type = TH_COLL_ALLREDUCE, policy = TH_POLICY_THEMIS, intra = TH_INTRA_SCF;
    int objective = TH_OPT_TIME, prio = TH_PRIO_LIFO;
    int64_t evals = 0, counts[TH_API_MAX_COUNTS];
    int ncounts = 0;
    if (th_api_keys(q, keys, err) ||
        th_json_enum(q->root, "collective", th_coll_type_names, &type, q->cmd, "", err) ||
        th_api_size(q, "size", &coll.size, err) ||
        chunk_list(q, &coll.chunks, counts, &ncounts, err) ||
        th_api_choice(q, "policy", th_policy_names, TH_POLICY_LAST_SINGLE + 1, &policy, NULL,
                      err) ||
        th_json_enum(q->root, "intra", th_intra_names, &intra, q->cmd, "", err) ||
        th_api_number(q, "budget", 0, 1e12, &opt.budget, err) ||
        th_api_number(q, "min_GBps", 0, 1e12, &opt.min_GBps, err) ||
        th_api_number(q, "max_GBps", 0, 1e12, &opt.max_GBps, err) ||
        th_api_int(q, "max_evals", 1, 1000000, &evals, NULL, err) ||
        th_json_enum(q->root, "objective", th_opt_objective_names, &objective, q->cmd, "", err) ||
        th_api_number(q, "batch", 0, 1e9, &opt.train.batch, err) ||
        th_json_enum(q->root, "priority", th_priority_names, &prio, q->cmd, "", err))
        return err->code;
    coll.type = (th_coll_type)type;
    opt.max_evals = (int)evals;
    opt.objective = (th_opt_objective)objective;
    opt.train.priority = (th_priority)prio;
    const cJSON *wv = cJSON_GetObjectItemCaseSensitive(q->root, "workload");
    const cJSON *lv = cJSON_GetObjectItemCaseSensitive(q->root, "collectives");
    if (wv && cJSON_IsNull(wv)) wv = NULL;
    if (lv && cJSON_IsNull(lv)) lv = NULL;
    if (wv && lv)
        return th_error_set(err, TH_EINPUT, "%s: collectives and workload: one objective at a time",
                            q->cmd);
    if (!wv && (opt.train.batch > 0 || cJSON_GetObjectItemCaseSensitive(q->root, "priority")))
        return th_error_set(err, TH_EINPUT, "%s: batch and priority apply to a workload", q->cmd);
    th_system sys;
    th_run_defaults def;
    const char *who;
    if (th_api_load_system(q, &sys, &def, &who, err) || th_api_dims(q, sys.ndims, &opt.vary, err) ||
        costs(q, sys.ndims, opt.cost, err))
        return err->code;
    if (th_collective_validate(&sys, &coll, err)) return th_api_blame(err, who);
    if (ncounts > 0) { /* the best chunk count per pair */
        if (wv || lv)
            return th_error_set(err, TH_EINPUT,
                                "%s: chunks: a list is for one collective, not with workload or "
                                "collectives",
                                q->cmd);
        th_pair pairs[TH_POLICY_LAST_SINGLE + 1];
        int64_t best[TH_POLICY_LAST_SINGLE + 1];
        double t[TH_POLICY_LAST_SINGLE + 1];
        int n = th_opt_pairs(&sys, &coll, NULL, policy, (th_intra)intra, pairs);
        for (int i = 0; i < n; i++)
            if (th_opt_chunks(&sys, &coll, pairs[i], TH_LOAD_ALPHA_BETA, counts, ncounts, &best[i],
                              &t[i], err))
                return err->code;
        return th_report_best_chunks_json(out, pairs, best, t, n, err);
    }
    th_collist list = {0};
    th_workload *wl = NULL;
    const char *src;
    int rc = TH_OK;
    if (lv && (rc = load_list(q, lv, &list, &src, err)) == TH_OK &&
        (rc = th_collist_check(&list, &sys, coll.chunks, src, err)) == TH_OK)
        opt.list = &list;
    if (rc == TH_OK && wv && (rc = th_api_load_workload(q, &wl, &src, err)) == TH_OK) {
        if (sys.model != TH_MODEL_ANALYTICAL)
            rc = th_error_set(err, TH_EINPUT,
                              "%s: model: workloads run on the analytical model only",
                              who ? who : sys.name);
        else
            rc = th_workload_check(wl, &sys, src, err);
        opt.wl = wl;
        opt.train.iterations = 3;
        opt.train.model = TH_LOAD_ALPHA_BETA;
    }
    th_pair pairs[TH_POLICY_LAST_SINGLE + 1];
    th_opt_result res[TH_POLICY_LAST_SINGLE + 1];
    int n = rc ? 0 : th_opt_pairs(&sys, &coll, opt.list, policy, (th_intra)intra, pairs);
    for (int i = 0; i < n && rc == TH_OK; i++) {
        opt.pair = pairs[i];
        opt.model = TH_LOAD_ALPHA_BETA;
        rc = th_opt_bandwidth(&sys, &coll, &opt, &res[i], err);
    }
    if (rc == TH_OK) rc = th_report_optimize_json(out, &sys, pairs, res, n, err);
    th_workload_free(wl);
    th_collist_free(&list);
    return rc;
}

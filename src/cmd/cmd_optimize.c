/* `optimize`: the split of a bandwidth budget over the dims that makes one collective, a
 * weighted list of collectives or a workload's iteration fastest, per policy pair (table,
 * JSON or CSV, with every evaluated point as CSV on request); with a list of chunk counts, the
 * best count per pair. The command line's `themis optimize` and the API's "optimize". */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../model.h"
#include "cmd.h"
#include "cmd_optimize.h"
#include "themis/buf.h"
#include "themis/collist.h"
#include "themis/csv.h"
#include "themis/optimize.h"
#include "themis/report.h"
#include "themis/workload.h"

#define R(field) offsetof(th_optimize_request, field)

static const th_option opts[] = {
    TH_ARG_SYSTEM_OPT(R(system), "system JSON (default: built-in default-3d)"),
    TH_ARG_COLLECTIVE_OPT(R(collective), "{}\n(default allreduce)"),
    {'b', "size", "size", TH_ARG_SIZE, R(size), "SIZE", .help = "collective size (default 1GiB)"},
    {'n', NULL, NULL, TH_ARG_INT, R(chunks), "N", .help = "chunks (default 64)", .lo = 1,
     .hi = TH_MAX_CHUNKS},
    {'w', "workload", "workload", TH_ARG_SOURCE, R(workload), "FILE",
     .help = "instead of one collective: minimise the workload's\nsteady-state iteration (themis "
             "train's semantics:\n3 iterations, priority lifo, the workload's batch)",
     .noun = "workload"},
    {0, "batch", "batch", TH_ARG_NUMBER, R(batch), "B",
     .help = "with -w: samples per NPU (default: the workload's)", .lo = 0, .hi = 1e9},
    {0, "priority", "priority", TH_ARG_CHOICE, R(priority), "R",
     .help = "with -w: between collectives in flight (as themis\ntrain --priority; default lifo)",
     .noun = "priority", .choices = th_priority_names},
    {'l', "collectives", "collectives", TH_ARG_SOURCE, R(collectives), "FILE",
     .help = "instead of one collective: minimise the weighted sum of\nthe times of a list of "
             "collectives (JSON: {\"collectives\":\n[{\"type\", \"size\", \"weight\", \"chunks\", "
             "\"dims\"}]};\nchunks default to -n)",
     .noun = "list"},
    TH_ARG_POLICY_OPT(R(policy), "{} (default themis)"),
    {'q', "intra", "intra", TH_ARG_CHOICE, R(intra), "Q", .help = "{} (default scf)",
     .noun = "intra-dimension policy", .choices = th_intra_names},
    {0, "budget", "budget", TH_ARG_NUMBER, R(budget), "X",
     .help = "budget in cost units (default: the system's own sum, so\nwith unit costs its total "
             "injection bandwidth, GB/s)",
     .lo = 0, .hi = 1e12},
    {0, "cost", "cost", TH_ARG_NUMBERS, R(cost), "LIST",
     .help = "cost per GB/s of each dim, e.g. 1,1,2 (default all 1)"},
    {0, "dims", "dims", TH_ARG_DIMS, R(dims), "LIST",
     .help = "the dims whose bandwidth varies (default: every active)"},
    {0, "min", "min_GBps", TH_ARG_NUMBER, R(min_GBps), "X",
     .help = "least bw_GBps of each varied dim (default 0.001)", .lo = 0, .hi = 1e12},
    {0, "max", "max_GBps", TH_ARG_NUMBER, R(max_GBps), "X",
     .help = "most bw_GBps of each varied dim (default: the budget)", .lo = 0, .hi = 1e12},
    {0, "max-evals", "max_evals", TH_ARG_INT, R(max_evals), "N",
     .help = "evaluations per start (default 2000)", .lo = 1, .hi = 1000000},
    {0, "objective", "objective", TH_ARG_CHOICE, R(objective), "O",
     .help = "{} (default time; perf-per-cost:\nleast time x spent)", .noun = "objective",
     .choices = th_opt_objective_names},
    {0, "chunks", "chunks", TH_ARG_COUNTS, R(counts), "LIST",
     .help = "instead: the best chunk count per policy among LIST\n(e.g. 1,4,16,64; auto = powers "
             "of two 1 to 1024; one\nnumber is -n)"},
    TH_ARG_FORMAT_OPT(R(format), 0xFu,
                      "{} (default table)\n(progress goes to stderr when it is a terminal)"),
    TH_ARG_OUTPUT_OPT(R(output)),
    {0, "trace", NULL, TH_ARG_STRING, R(trace), "FILE",
     .help = "write every evaluated point as CSV (policy, start, eval,\ndimK_bw_GBps, spent, "
             "time_us)"},
    {0, "force", NULL, TH_ARG_FLAG, R(force), .help = "replace an existing output or trace file"},
    TH_ARG_HELP_OPTS,
};

const th_cmd_def th_cmd_optimize_def = {"optimize", opts, sizeof opts / sizeof opts[0],
                                        R(given),   26,   NULL};

void th_optimize_request_init(th_optimize_request *r) {
    memset(r, 0, sizeof *r);
    r->collective = TH_COLL_ALLREDUCE;
    r->size = 1073741824.0;
    r->chunks = 64;
    r->policy = TH_POLICY_THEMIS;
    r->intra = TH_INTRA_SCF;
    r->objective = TH_OPT_TIME;
    r->priority = TH_PRIO_LIFO;
    r->format = TH_FORMAT_TABLE;
}

/* "1,1,2": one cost > 0 per dim of the system. */
static int parse_cost(const th_cmd_io *io, const char *list, int ndims, double *cost,
                      th_error *err) {
    const char *s = list;
    for (int d = 0; d < ndims; d++) {
        char *end;
        cost[d] = strtod(s, &end);
        if (end == s || !(cost[d] > 0) || cost[d] > 1e12 || (*end != ',' && *end != '\0') ||
            (*end == '\0' && d != ndims - 1) || (*end == ',' && d == ndims - 1)) {
            char name[32];
            return th_cmd_usage(err, &th_cmd_optimize_def, io,
                                "%s: expected a list of %d numbers > 0 (one per dim), got '%s'",
                                th_cmd_name(&th_cmd_optimize_def, io, "cost", name, sizeof name),
                                ndims, list);
        }
        s = end + 1;
    }
    return TH_OK;
}

/* --chunks LIST: one row per pair, the best chunk count and its time. */
static int best_chunks(const th_optimize_request *r, const th_system *sys,
                       const th_collective *coll, const th_cmd_io *io, th_error *err) {
    th_pair pairs[TH_POLICY_LAST_SINGLE + 1];
    int64_t best[TH_POLICY_LAST_SINGLE + 1];
    double t[TH_POLICY_LAST_SINGLE + 1];
    int npairs = th_opt_pairs(sys, coll, NULL, r->policy, (th_intra)r->intra, pairs);
    for (int i = 0; i < npairs; i++)
        if (th_opt_chunks(sys, coll, pairs[i], TH_LOAD_ALPHA_BETA, r->counts.v, r->counts.n,
                          &best[i], &t[i], err))
            return err->code;
    th_output out;
    int rc = th_cmd_out_open(io, r->output, r->force, &out, err);
    if (rc) return rc;
    rc = th_cmd_optimize_write_best(out.f, r->format, sys, coll, pairs, best, t, npairs, err);
    return th_cmd_out_close(io, &out, rc, err);
}

/* --trace: one CSV row per evaluated point; the progress line every 100 points. */
typedef struct trace_ctx {
    FILE *out;
    int ndims;
    const char *policy;
    long long evals;
    int oom;
    void (*progress)(const char *line);
} trace_ctx;

static void trace_point(void *ctx, int start, const double *bw, double time, double spent) {
    trace_ctx *t = ctx;
    if (t->progress && t->evals % 100 == 0) {
        char line[160];
        snprintf(line, sizeof line, "optimize: %s, start %d of 3, %lld evaluations ", t->policy,
                 start + 1, t->evals);
        t->progress(line);
    }
    if (!t->out) {
        t->evals++;
        return;
    }
    th_buf b = {0};
    int bad = th_csv_field(&b, t->policy);
    bad |= th_csv_int(&b, start);
    bad |= th_csv_int(&b, t->evals++);
    for (int d = 0; d < t->ndims; d++)
        bad |= th_csv_num(&b, bw[d]);
    bad |= th_csv_num(&b, spent);
    bad |= th_csv_num(&b, time / 1000.0);
    bad |= th_csv_end(&b);
    if (!bad) th_csv_write(t->out, &b);
    t->oom |= bad;
    th_buf_free(&b);
}

/* The list (-l) or the workload (-w), loaded and checked against sys into opt. */
static int load_objective(const th_optimize_request *r, const th_system *sys, const char *who,
                          int64_t chunks, th_collist *list, th_workload **wl, th_opt_opts *opt,
                          th_error *err) {
    const th_arg_src *l = &r->collectives, *w = &r->workload;
    if (l->path || l->text) {
        const char *src = l->path ? l->path : "collectives";
        int rc = l->path ? th_collist_load(l->path, list, err)
                         : th_collist_parse(l->text, strlen(l->text), src, list, err);
        if (rc || th_collist_check(list, sys, chunks, src, err)) return err->code;
        opt->list = list;
    }
    if (w->path || w->text) {
        const char *src = w->path ? w->path : "workload";
        int rc = w->path ? th_workload_load(w->path, wl, err)
                         : th_workload_parse(w->text, strlen(w->text), src, wl, err);
        if (rc) return rc;
        if (th_model_require(sys, TH_CAP_TRAIN, who ? who : sys->name, err)) return err->code;
        if (th_workload_check(*wl, sys, src, err)) return err->code;
        opt->wl = *wl;
        opt->train.iterations = 3;
        opt->train.model = TH_LOAD_ALPHA_BETA;
    }
    return TH_OK;
}

/* What the options say together, before any file is read. */
static int check_options(const th_optimize_request *r, const th_cmd_io *io, th_error *err) {
    const th_cmd_def *d = &th_cmd_optimize_def;
    char a[32], b[32], c[32];
    int wl = r->workload.path || r->workload.text,
        list = r->collectives.path || r->collectives.text;
    if (wl && list)
        return th_cmd_usage(err, d, io, "%s and %s: one objective at a time",
                            th_cmd_name(d, io, "collectives", a, sizeof a),
                            th_cmd_name(d, io, "workload", b, sizeof b));
    if (!wl && (th_option_given(d, r, "batch") || th_option_given(d, r, "priority")))
        return th_cmd_usage(err, d, io, "%s and %s apply to a workload",
                            th_cmd_name(d, io, "batch", a, sizeof a),
                            th_cmd_name(d, io, "priority", b, sizeof b));
    if ((wl || list) && (th_option_given(d, r, "collective") || th_option_given(d, r, "size")))
        return th_cmd_usage(err, d, io, "%s and %s describe one collective: not with %s",
                            th_cmd_name(d, io, "collective", a, sizeof a),
                            th_cmd_name(d, io, "size", b, sizeof b),
                            wl ? (io->argv ? "-w (the workload names its collectives)"
                                           : "workload (it names its collectives)")
                               : (io->argv ? "-l (the list gives each type and size)"
                                           : "collectives (the list gives each type and size)"));
    if (r->counts.n > 0 && (wl || list))
        return th_cmd_usage(err, d, io, "%s: a list is for one collective, not with %s or %s",
                            th_cmd_name(d, io, "chunks", a, sizeof a),
                            th_cmd_name(d, io, "workload", b, sizeof b),
                            th_cmd_name(d, io, "collectives", c, sizeof c));
    if (r->counts.n > 0 && r->trace)
        return th_cmd_usage(err, d, io, "--trace: no points to trace with --chunks");
    return TH_OK;
}

int th_cmd_optimize(const th_optimize_request *r, const th_cmd_io *io, th_error *err) {
    const char *inputs[] = {r->system.path, r->workload.path, r->collectives.path};
    const char *outputs[] = {r->output, r->trace};
    if (th_output_check(inputs, 3, outputs, 2, err) || check_options(r, io, err)) return err->code;
    th_system sys;
    th_run_defaults def;
    const char *who;
    if (th_cmd_load_system(&r->system, &sys, &def, &who, err)) return err->code;
    th_collective coll = {(th_coll_type)r->collective, r->size, r->chunks, 0};
    if (r->counts.one) coll.chunks = r->counts.one;
    th_opt_opts opt;
    memset(&opt, 0, sizeof opt);
    opt.train.poll = io->poll, opt.train.poll_ctx = io->poll_ctx; /* ends the search too */
    opt.budget = r->budget;
    opt.min_GBps = r->min_GBps;
    opt.max_GBps = r->max_GBps;
    opt.max_evals = (int)r->max_evals;
    opt.objective = (th_opt_objective)r->objective;
    opt.train.batch = r->batch;
    opt.train.priority = (th_priority)r->priority;
    if (r->dims.path && th_sched_parse_dims(r->dims.path, sys.ndims, &opt.vary, err))
        return err->code;
    if (r->cost.path && parse_cost(io, r->cost.path, sys.ndims, opt.cost, err)) return err->code;
    if (th_collective_validate(&sys, &coll, err)) return th_cmd_blame(err, who);
    if (r->counts.n > 0) return best_chunks(r, &sys, &coll, io, err);
    th_collist list = {0};
    th_workload *wl = NULL;
    int rc = load_objective(r, &sys, who, coll.chunks, &list, &wl, &opt, err);
    th_output trace;
    trace_ctx tc = {NULL, sys.ndims, NULL, 0, 0, io->progress};
    if (tc.progress) {
        opt.point = trace_point;
        opt.point_ctx = &tc;
    }
    th_cmd_io files = {NULL, io->files, io->argv, NULL, NULL, NULL, NULL, NULL};
    int traced = 0;
    if (rc == TH_OK && r->trace &&
        (rc = th_cmd_out_open(&files, r->trace, r->force, &trace, err)) == TH_OK) {
        traced = 1;
        tc.out = trace.f;
        fputs("policy,start,eval", tc.out);
        for (int d = 0; d < sys.ndims; d++)
            fprintf(tc.out, ",dim%d_bw_GBps", d);
        fputs(",spent,time_us\n", tc.out);
        opt.point = trace_point;
        opt.point_ctx = &tc;
    }
    th_pair pairs[TH_POLICY_LAST_SINGLE + 1];
    th_opt_result res[TH_POLICY_LAST_SINGLE + 1];
    int npairs = rc ? 0 : th_opt_pairs(&sys, &coll, opt.list, r->policy, (th_intra)r->intra, pairs);
    int n = 0;
    for (; n < npairs && rc == TH_OK; n++) {
        opt.pair = pairs[n];
        opt.model = TH_LOAD_ALPHA_BETA;
        tc.policy = th_policy_name(pairs[n].policy);
        tc.evals = 0;
        if ((rc = th_opt_bandwidth(&sys, &coll, &opt, &res[n], err))) break;
    }
    if (tc.progress) tc.progress(NULL); /* clear the progress line */
    if (rc == TH_OK && tc.oom) rc = th_error_set(err, TH_EINTERNAL, "out of memory");
    th_workload_free(wl);
    th_collist_free(&list);
    if (traced) rc = th_cmd_out_close(&files, &trace, rc, err);
    if (rc) return rc;
    th_output out;
    if ((rc = th_cmd_out_open(io, r->output, r->force, &out, err))) return rc;
    rc = th_cmd_optimize_write(out.f, r, &coll, &sys, pairs, res, n, err);
    return th_cmd_out_close(io, &out, rc, err);
}

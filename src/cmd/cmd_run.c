/* `run`: one collective on one system under each asked policy pair, compared (table, JSON,
 * CSV or JSONL), with the per-stage trace on request. The command line's `themis run` and the
 * API's "run" are this file. */
#include <stddef.h>
#include <string.h>

#include "cmd.h"
#include "themis/bound.h"
#include "themis/cost.h"
#include "themis/report.h"

#define R(field) offsetof(th_run_request, field)
#define STR_(x)  #x
#define STR(x)   STR_(x)
#define MAXD     STR(TH_BOUND_MAX_DIMS) /* "12" in --help */

static const th_option opts[] = {
    TH_ARG_SYSTEM_OPT(R(system), "system JSON (default: built-in default-3d, 512 NPUs)"),
    TH_ARG_COLLECTIVE_OPT(R(collective), "{}\n(default allreduce)"),
    {'b', "size", "size", TH_ARG_SIZE, R(size), "SIZE",
     .help = "collective size: 4096, 1e9, 64MiB, 1GB (default 1GiB)"},
    {'n', "chunks", "chunks", TH_ARG_INT, R(chunks), "N",
     .help = "chunks, 1 to 1000000 (default 64)", .lo = 1, .hi = TH_MAX_CHUNKS},
    TH_ARG_POLICY_OPT(R(policy), "{} (default all;\nall has lp on the analytical model, <= " MAXD
                                 " active dims)"),
    {'q', "intra", "intra", TH_ARG_CHOICE, R(intra), "Q", .help = "{} (default all)",
     .noun = "intra-dimension policy", .choices = th_intra_names, .flags = TH_ARG_ALL},
    {0, "dims", "dims", TH_ARG_DIMS, R(dims), "LIST",
     .help = "involved dims, e.g. 0,2 (default: all)"},
    {0, "load-model", "load_model", TH_ARG_CHOICE, R(load_model), "M",
     .help = "themis load model: {}\n(default alpha_beta)", .noun = "model",
     .choices = th_load_model_names},
    TH_ARG_FORMAT_OPT(R(format), 0,
                      "{} (default table; jsonl: one\nresult object per line, as in json's "
                      "results)"),
    TH_ARG_OUTPUT_OPT(R(output)),
    {0, "trace", NULL, TH_ARG_STRING, R(trace), "FILE",
     .help = "write the per-stage trace CSV to FILE ('-' = stdout)"},
    {0, "force", NULL, TH_ARG_FLAG, R(force), .help = "replace an existing output or trace file"},
    {0, "bound", "bound", TH_ARG_FLAG, R(bound),
     .help = "add bound_us, the least time any mix of chunk orders can\nreach (a linear "
             "program; analytical model, <= " MAXD " active\ndims), and vs_bound = bound / "
             "time for each result"},
    {0, "ideal-lat", "ideal_lat", TH_ARG_FLAG, R(ideal_lat),
     .help = "add ideal_lat_us, the ideal plus the collective's latency\nfloor (one chunk's "
             "link latencies on its critical path;\nanalytical model), and vs_ideal_lat = it / "
             "time"},
    TH_ARG_HELP_OPTS,
};

const th_cmd_def th_cmd_run_def = {"run", opts, sizeof opts / sizeof opts[0], R(given), 26, NULL};

void th_run_request_init(th_run_request *r) {
    memset(r, 0, sizeof *r);
    r->collective = TH_COLL_ALLREDUCE;
    r->size = 1073741824.0;
    r->chunks = 64;
    r->policy = r->intra = -1;
    r->load_model = TH_LOAD_ALPHA_BETA;
    r->format = TH_FORMAT_TABLE;
}

typedef struct trace_ctx {
    FILE *out;
    const th_pair *pairs;
    int cur;
    int oom; /* a trace row could not be built */
} trace_ctx;

static void trace_row(void *ctx, const th_stage_rec *rec) {
    trace_ctx *t = ctx;
    if (th_report_trace_row(t->out, t->pairs[t->cur], rec)) t->oom = 1;
}

static int evaluate(const th_run_request *r, const th_collective *coll, const th_system *sys,
                    int policy, int intra, double bound, const th_cmd_io *io, th_error *err) {
    th_pair pairs[TH_RUN_MAX_PAIRS];
    int npairs = th_run_pairs(sys, coll->dims_mask, policy, intra, pairs);
    th_result results[TH_RUN_MAX_PAIRS];
    /* Both outputs are opened before the work and replace their files only if all went well. */
    th_output out, trace;
    int rc = th_cmd_out_open(io, r->output, r->force, &out, err);
    if (rc) return rc;
    trace_ctx tc = {NULL, pairs, 0, 0};
    if (r->trace) {
        th_cmd_io files = {NULL, io->files, io->argv, NULL, NULL, NULL, NULL, NULL};
        if ((rc = th_cmd_out_open(&files, r->trace, r->force, &trace, err)))
            return th_cmd_out_close(io, &out, rc, err);
        tc.out = trace.f;
        th_report_trace_header(tc.out);
    }
    th_runner *runner = th_runner_create();
    if (!runner) rc = th_error_set(err, TH_EINTERNAL, "out of memory");
    if (rc == TH_OK)
        rc = th_run_compare(runner, sys, coll, pairs, npairs, (th_load_model)r->load_model,
                            tc.out ? trace_row : NULL, &tc, &tc.cur, results, err);
    th_runner_free(runner);
    if (rc == TH_OK && tc.oom) rc = th_error_set(err, TH_EINTERNAL, "out of memory");
    if (rc == TH_OK) {
        th_report rep = {
            sys,
            coll,
            (th_load_model)r->load_model,
            pairs,
            results,
            npairs,
            bound,
            r->ideal_lat,
            th_cost_latency_floor(sys, coll->type == TH_COLL_ALLREDUCE, coll->dims_mask)};
        rc = th_report_write(out.f, (th_format)r->format, &rep, err);
    }
    if (r->trace) {
        th_cmd_io files = {NULL, io->files, io->argv, NULL, NULL, NULL, NULL, NULL};
        rc = th_cmd_out_close(&files, &trace, rc, err);
    }
    return th_cmd_out_close(io, &out, rc, err);
}

int th_cmd_run(const th_run_request *r, const th_cmd_io *io, th_error *err) {
    const th_cmd_def *d = &th_cmd_run_def;
    const char *inputs[] = {r->system.path}, *outputs[] = {r->output, r->trace};
    if (th_output_check(inputs, 1, outputs, 2, err)) return err->code;
    th_system sys;
    th_run_defaults def;
    const char *who;
    if (th_cmd_load_system(&r->system, &sys, &def, &who, err)) return err->code;
    th_collective coll = {(th_coll_type)r->collective, r->size, r->chunks, 0};
    int policy = r->policy, intra = r->intra;
    /* A system file's "run" defaults (e.g. an imported one's) stand in for absent options. */
    if (!th_option_given(d, r, "chunks") && def.chunks) coll.chunks = def.chunks;
    if (!th_option_given(d, r, "policy") && def.has_policy) policy = (int)def.policy;
    if (!th_option_given(d, r, "intra") && def.has_intra) intra = (int)def.intra;
    if (r->dims.path && th_sched_parse_dims(r->dims.path, sys.ndims, &coll.dims_mask, err))
        return err->code;
    /* What the options ask of this system (no active dim, a collective the preset does not
     * model): the system file is named. */
    if (th_collective_validate(&sys, &coll, err)) return th_cmd_blame(err, who);
    th_bound bound = {0};
    /* -p lp, or --bound, where the program does not apply: the reason, naming the file */
    if ((r->bound || (policy == TH_POLICY_LP && !th_bound_supported(&sys, coll.dims_mask))) &&
        th_bound_eval(&sys, &coll, TH_BOUND_AUTO, &bound, err))
        return th_cmd_blame(err, who);
    if (r->ideal_lat && th_run_check_ideal_lat(&sys, err)) return th_cmd_blame(err, who);
    return evaluate(r, &coll, &sys, policy, intra, bound.time, io, err);
}

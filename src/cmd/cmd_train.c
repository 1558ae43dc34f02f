/* `train`: a training workload replayed on a system under each asked policy pair and the ideal
 * network, as a table, JSON, CSV or JSONL, with its timeline on request. The command line's
 * `themis train` and the API's "train". A workload of another format (workload_format.h) goes
 * through cmd_train_format.c. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "cmd_train.h"
#include "themis/llm.h"
#include "themis/report.h"
#include "themis/train.h"
#include "themis/workload.h"

#define R(field) offsetof(th_train_request, field)

static const th_option opts[] = {
    {0, NULL, "workload", TH_ARG_SOURCE, R(workload), .noun = "workload"}, /* the operand */
    TH_ARG_SYSTEM_OPT(R(system), "system JSON (default: built-in default-3d)"),
    {'p', "policy", "policy", TH_ARG_CHOICE, R(policy), "P",
     .help = "{}\n(default all: every policy and the ideal network)", .noun = "policy",
     .choices = th_policy_names, .flags = TH_ARG_ALL},
    {'q', "intra", "intra", TH_ARG_CHOICE, R(intra), "Q", .help = "{} (default all)",
     .noun = "intra-dimension policy", .choices = th_intra_names, .flags = TH_ARG_ALL},
    {0, "priority", "priority", TH_ARG_CHOICE, R(priority), "R",
     .help = "{}: between collectives in flight, the\nolder first, the newer first (default, as "
             "ASTRA-sim), or\nthe earliest layer first (blocking ones before all)",
     .noun = "priority", .choices = th_priority_names},
    {0, "iterations", "iterations", TH_ARG_INT, R(iterations), "N",
     .help = "iterations replayed, 2 to 1000 (default 3)", .lo = 2, .hi = 1000},
    {0, "batch", "batch", TH_ARG_NUMBER, R(batch), "B",
     .help = "samples per NPU (default: the workload's); scales compute\nand "
             "forward/input-gradient collectives",
     .lo = 0, .hi = 1e9},
    {'n', "chunks", "chunks", TH_ARG_INT, R(chunks), "N",
     .help = "chunks per collective (default: the workload's)", .lo = 1, .hi = TH_MAX_CHUNKS},
    {0, "chunking", "chunking", TH_ARG_CHOICE, R(chunking), "R",
     .help = "{}: at most N chunks of at least the\nworkload's min_chunk_bytes, or every "
             "collective in N\nchunks (default the workload's rule; astra with -n)",
     .noun = "chunking rule", .choices = th_chunking_names},
    {0, "bucket", "bucket", TH_ARG_SIZE, R(bucket), "SIZE",
     .help = "fuse weight-gradient All-Reduces into DDP buckets of SIZE\nbytes (on = 25MiB, off "
             "or 0 = none; default the workload's)",
     .flags = TH_ARG_ONOFF, .lo = TH_BUCKET_DEFAULT},
    {0, "load-model", "load_model", TH_ARG_CHOICE, R(load_model), "M",
     .help = "themis load model: {}", .noun = "model", .choices = th_load_model_names},
    {0, "ideal-lat", "ideal_lat", TH_ARG_FLAG, R(ideal_lat),
     .help = "add vs_ideal_lat: against the ideal network plus each\ncollective's latency floor "
             "(the latencies of one chunk's\nstages on its critical path)"},
    TH_ARG_FORMAT_OPT(R(format), 0,
                      "{} (default table; jsonl: one\nresult object per line, as in json's "
                      "results)"),
    {'o', "output", NULL, TH_ARG_STRING, R(output), "FILE",
     .help = "results file ('-' = stdout, the default)"},
    {0, "trace", NULL, TH_ARG_STRING, R(trace), "FILE",
     .help = "timeline CSV of compute and collectives"},
    {0, "force", NULL, TH_ARG_FLAG, R(force), .help = "replace an existing output or trace file"},
    {0, "comm-scale", "comm_scale", TH_ARG_NUMBER, R(comm_scale), "X",
     .help = "ASTRA-sim 1.0 text workloads: multiply collective sizes", .lo = 0, .hi = 1e9},
    {0, "compute-scale", "compute_scale", TH_ARG_NUMBER, R(compute_scale), "X",
     .help = "... and compute times (as ASTRA-sim, truncated)", .lo = 0, .hi = 1e9},
    {0, "passes", "passes", TH_ARG_INT, R(passes), "P",
     .help = "... passes under the astra-sim-1.0 preset (default 1)", .lo = 1, .hi = 100000},
    {0, "micro-batch", "micro_batch", TH_ARG_INT, R(micro_batch), "N",
     .help = "LLM workloads: sequences per micro-batch (default the file's)", .lo = 1,
     .hi = 1000000000},
    {0, "schedule", "schedule", TH_ARG_CHOICE, R(schedule), "S",
     .help = "... pipeline schedule: {} (default the file's)", .noun = "schedule",
     .choices = th_llm_schedule_names},
    {0, "remote-memory", "remote_memory", TH_ARG_SOURCE, R(remote_memory), "FILE",
     .help = "Chakra traces: ASTRA-sim 2.x's remote memory JSON for\nmemory nodes (its "
             "--remote-memory-configuration)"},
    {0, "comm-group", "comm_group", TH_ARG_STRING, R(comm_group), "FILE",
     .help = "Chakra traces: ASTRA-sim 2.x's communicator group file\n(group id -> ranks) "
             "that pg_name names"},
    TH_ARG_HELP_OPTS,
};

const th_cmd_def th_cmd_train_def = {"train",  opts, sizeof opts / sizeof opts[0],
                                     R(given), 26,   NULL};

void th_train_request_init(th_train_request *r) {
    memset(r, 0, sizeof *r);
    r->policy = r->intra = -1;
    r->priority = TH_PRIO_LIFO;
    r->iterations = 3;
    r->load_model = TH_LOAD_ALPHA_BETA;
    r->comm_scale = r->compute_scale = 1;
    r->format = TH_FORMAT_TABLE;
}

typedef struct tctx {
    FILE *out;
    const th_workload *wl;
    const th_train_row *rows; /* rows[cur] is being replayed */
    int cur;
    int oom; /* a trace row could not be built */
} tctx;

static void trace_row(void *ctx, const th_train_event *ev) {
    tctx *t = ctx;
    const th_train_row *r = &t->rows[t->cur];
    if (th_report_train_trace_row(t->out, t->wl, r->policy, r->intra, ev)) t->oom = 1;
}

static int evaluate(const th_train_request *r, const th_train_opts *t, const th_system *sys,
                    const th_workload *wl, const th_cmd_io *io, th_error *err) {
    th_train_row rows[TH_TRAIN_MAX_ROWS];
    int nrows = 0, rc = TH_OK;
    /* Both outputs are opened before the work and replace their files only if all went well. */
    th_output out, trace;
    th_cmd_io files = {NULL, io->files, io->argv, NULL, NULL, NULL, NULL, NULL};
    if ((rc = th_cmd_out_open(io, r->output, r->force, &out, err))) return rc;
    tctx tc = {NULL, wl, rows, 0, 0};
    if (r->trace) {
        if ((rc = th_cmd_out_open(&files, r->trace, r->force, &trace, err)))
            return th_cmd_out_close(io, &out, rc, err);
        tc.out = trace.f;
        th_report_train_trace_header(tc.out);
    }
    rc = th_train_compare(sys, wl, t, r->policy, r->intra, tc.out ? trace_row : NULL, &tc, &tc.cur,
                          rows, &nrows, err);
    double tl = 0; /* --ideal-lat: the ideal network with every latency floor */
    if (rc == TH_OK && r->ideal_lat) rc = th_train_ideal_lat(sys, wl, t, rows, nrows, &tl, err);
    if (rc == TH_OK && tc.oom) rc = th_error_set(err, TH_EINTERNAL, "out of memory");
    if (rc == TH_OK) {
        th_train_report rep = {sys, wl, t, rows, nrows, tl};
        rc = th_report_train_write(out.f, (th_format)r->format, &rep, err);
    }
    if (r->trace) rc = th_cmd_out_close(&files, &trace, rc, err);
    rc = th_cmd_out_close(io, &out, rc, err);
    th_train_rows_free(rows, nrows);
    return rc;
}

/* The replay's options from the request. */
static void train_opts(const th_train_request *r, th_train_opts *t) {
    memset(t, 0, sizeof *t);
    t->priority = (th_priority)r->priority;
    t->iterations = (int)r->iterations;
    t->batch = r->batch;
    t->chunks = r->chunks;
    t->bucket = r->bucket;
    t->model = (th_load_model)r->load_model;
    if (th_option_given(&th_cmd_train_def, r, "chunking"))
        t->chunking_set = 1, t->chunking = (th_chunking)r->chunking;
}

int th_cmd_train(const th_train_request *r, const th_cmd_io *io, th_error *err) {
    const th_arg_src *w = &r->workload;
    if (!w->path && !w->text)
        return th_error_set(err, TH_EINPUT, "train: workload: missing (a file or an object)");
    const char *inputs[] = {w->path, r->system.path, r->remote_memory.path},
               *outputs[] = {r->output, r->trace};
    if (th_output_check(inputs, 3, outputs, 2, err)) return err->code;
    th_train_opts t;
    train_opts(r, &t);
    t.poll = io->poll, t.poll_ctx = io->poll_ctx;
    th_system sys;
    th_run_defaults def; /* run's; a format's own replay takes its chunks */
    const char *who;
    if (th_cmd_load_system(&r->system, &sys, &def, &who, err)) return err->code;
    th_workload *wl = NULL;
    th_wl_file f = {0}; /* a file's format, told by content */
    const char *source = w->path ? w->path : "workload";
    if (!w->path && th_llm_detect(w->text, strlen(w->text))) { /* an LLM workload object */
        th_llm_workload llm;
        if (th_llm_parse(w->text, strlen(w->text), source, &llm, err)) return err->code;
        return th_cmd_train_llm(r, io, &sys, who, source, &llm, err);
    }
    int rc = w->path ? th_workload_open(w->path, &f, err)
                     : th_workload_parse(w->text, strlen(w->text), source, &wl, err);
    if (rc) return rc;
    if (f.format == &th_llm_wl_format) {
        rc = th_cmd_train_llm(r, io, &sys, who, source, f.native, err);
        th_workload_close(&f);
        return rc;
    }
    if (th_cmd_train_llm_check(r, source, io, err)) {
        th_workload_close(&f);
        th_workload_free(wl);
        return err->code;
    }
    if (f.format) {
        rc = th_cmd_train_format(r, &t, &def, source, &f, &sys, io, &wl, err);
        th_workload_close(&f);
        if (rc || !wl) return rc; /* !wl: the format's own replay, written */
    } else {
        if (w->path) wl = f.wl, f.wl = NULL;
        if ((rc = th_cmd_train_format_check(r, source, io, err))) {
            th_workload_free(wl);
            return rc;
        }
    }
    if (th_train_check_system(&sys, err)) rc = th_cmd_blame(err, who);
    if (rc == TH_OK && th_workload_check(wl, &sys, source, err)) rc = err->code;
    if (rc == TH_OK) rc = evaluate(r, &t, &sys, wl, io, err);
    th_workload_free(wl);
    return rc;
}

/* `train` on an LLM workload (themis/llm.h): the execution as the file gives it, with the
 * options that override it (-n, --bucket, --micro-batch, --schedule), evaluated under every
 * asked policy pair, its report with the breakdown and the memory per NPU (a warning note when
 * it exceeds the NPU's). The options of layer workloads' replay do not apply. */
#include <stdio.h>
#include <string.h>

#include "cmd_train.h"
#include "themis/report_llm.h"

/* The options only a replay of layers reads. */
static const char *const replay_only[] = {"iterations", "priority",  "batch",      "chunking",
                                          "load_model", "ideal_lat", "comm_scale", "compute_scale",
                                          "passes",     "comm_group"};

int th_cmd_train_llm_check(const th_train_request *r, const char *source, const th_cmd_io *io,
                           th_error *err) {
    const th_cmd_def *d = &th_cmd_train_def;
    char a[32];
    for (int i = 0; i < 2; i++) {
        const char *key = i ? "schedule" : "micro_batch";
        if (th_option_given(d, r, key))
            return th_cmd_usage(err, d, io, "%s is for LLM workloads; %s has layers",
                                th_cmd_name(d, io, key, a, sizeof a), source);
    }
    return TH_OK;
}

static int options(const th_train_request *r, const char *source, const th_cmd_io *io,
                   th_llm_exec *x, th_error *err) {
    const th_cmd_def *d = &th_cmd_train_def;
    char a[32];
    for (size_t i = 0; i < sizeof replay_only / sizeof *replay_only; i++)
        if (th_option_given(d, r, replay_only[i]))
            return th_cmd_usage(err, d, io, "%s is for workloads of layers; %s is an LLM workload",
                                th_cmd_name(d, io, replay_only[i], a, sizeof a), source);
    if (th_option_given(d, r, "remote_memory"))
        return th_cmd_usage(err, d, io, "%s is for %s; %s is an LLM workload",
                            th_cmd_name(d, io, "remote_memory", a, sizeof a),
                            th_cmd_memory_formats(), source);
    if (r->trace)
        return th_cmd_usage(err, d, io, "%s is for workloads of layers; %s is an LLM workload",
                            th_cmd_name(d, io, "trace", a, sizeof a), source);
    if (r->chunks) x->chunks = r->chunks;
    if (r->bucket > 0) x->bucket_bytes = r->bucket;
    if (r->bucket < 0) x->bucket_bytes = 0; /* off: the whole gradient in one collective */
    if (r->micro_batch) x->micro_batch = r->micro_batch;
    if (th_option_given(d, r, "schedule")) {
        x->schedule = (th_llm_schedule)r->schedule;
        if (x->schedule != TH_LLM_INTERLEAVED) x->virtual_stages = 1;
    }
    return TH_OK;
}

/* The note when the memory per NPU exceeds the NPU's. */
static void warn_memory(const th_cmd_io *io, const th_system *sys, const th_llm_result *res) {
    if (res->fits || !io->notes) return;
    th_buf b = {0};
    char line[256];
    snprintf(line, sizeof line,
             "memory per NPU %.4g GiB (weights, gradients, optimizer state, activations) exceeds "
             "the %.4g GiB of NPU \"%s\"\n",
             res->mem.total / 1073741824.0, sys->npu.memory_gib, sys->npu.name);
    if (th_buf_add(&b, line, strlen(line)) == 0) io->notes("warning", &b);
    th_buf_free(&b);
}

int th_cmd_train_llm(const th_train_request *r, const th_cmd_io *io, const th_system *sys,
                     const char *who, const char *source, const th_llm_workload *wl,
                     th_error *err) {
    th_llm_exec x = wl->exec;
    if (options(r, source, io, &x, err) || th_llm_check(&wl->model, &x, source, err))
        return err->code;
    if (!sys->npu.present) {
        th_error_set(err, TH_EINPUT,
                     "npu: missing in system \"%s\" (%s is an LLM workload: the system needs "
                     "the NPU's matrix_tflops, vector_tflops, memory_GBps and memory_gib)",
                     sys->name, source);
        return th_cmd_blame(err, who);
    }
    if (th_train_check_system(sys, err)) return th_cmd_blame(err, who);
    th_llm_map map;
    th_error e;
    if (th_llm_map_groups(sys, &x, &map, &e))
        return th_error_set(err, e.code, "%s: %s", source, e.msg);
    th_llm_ctx *c = th_llm_ctx_create();
    if (!c) return th_error_set(err, TH_EINTERNAL, "out of memory");
    th_llm_row rows[TH_LLM_MAX_ROWS];
    int nrows = 0;
    int rc = th_llm_compare(c, sys, &wl->model, &x, r->policy, r->intra, rows, &nrows, &e);
    th_llm_ctx_free(c);
    if (rc) return th_error_set(err, rc, "%s: %s", source, e.msg);
    th_output out;
    if ((rc = th_cmd_out_open(io, r->output, r->force, &out, err))) return rc;
    th_llm_report rep = {sys, wl, &x, &map, rows, nrows};
    rc = th_report_llm_write(out.f, (th_format)r->format, &rep, err);
    rc = th_cmd_out_close(io, &out, rc, err);
    if (rc == TH_OK) warn_memory(io, sys, &rows[0].res);
    return rc;
}

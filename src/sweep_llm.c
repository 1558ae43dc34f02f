/* LLM workload sweeps: the llm.* axes (the execution's keys, and llm.model.* for the model's),
 * a point's execution with them applied and checked, and its row: the iteration and its
 * parts, MFU, TFLOP/s per NPU, the speedups and the memory per NPU, the columns of
 * `themis train -f csv` on an LLM workload. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "json.h"
#include "sweep_internal.h"
#include "themis/csv.h"
#include "themis/report_llm.h"
#include "themis/str.h"

typedef enum { F_INT, F_BYTES, F_ENUM, F_BOOL } field_kind;

static const struct {
    const char *name; /* after "llm." */
    field_kind kind;
} fields[] = {
    {"tp", F_INT},
    {"pp", F_INT},
    {"dp", F_INT},
    {"ep", F_INT},
    {"micro_batch", F_INT},
    {"global_batch", F_INT},
    {"virtual_stages", F_INT},
    {"chunks", F_INT},
    {"bucket_bytes", F_BYTES},
    {"optimizer_bytes_per_param", F_BYTES},
    {"grad_bytes", F_BYTES},
    {"schedule", F_ENUM},
    {"recompute", F_ENUM},
    {"sharding", F_ENUM},
    {"sequence_parallel", F_BOOL},
    {"dp_overlap", F_BOOL},
    {"model.layers", F_INT},
    {"model.hidden", F_INT},
    {"model.heads", F_INT},
    {"model.kv_heads", F_INT},
    {"model.ffn", F_INT},
    {"model.seq", F_INT},
    {"model.vocab", F_INT},
    {"model.param_bytes", F_BYTES},
    {"model.act_bytes", F_BYTES},
    {"model.moe.experts", F_INT},
    {"model.moe.top_k", F_INT},
    {"model.moe.expert_ffn", F_INT},
};
#define NFIELDS ((int)(sizeof fields / sizeof *fields))

static const char *const bool_names[] = {"false", "true", NULL};

int sw_llm_field(const char *name, char *hint, size_t n) {
    const char *names[NFIELDS + 1];
    for (int i = 0; i < NFIELDS; i++) {
        names[i] = fields[i].name;
        if (!strcmp(name, fields[i].name)) return i;
    }
    names[NFIELDS] = NULL;
    th_json_suggest(names, name, hint, n);
    return -1;
}

int sw_llm_numeric(int f) {
    return fields[f].kind == F_INT || fields[f].kind == F_BYTES;
}

int sw_llm_integer(int f) {
    return fields[f].kind == F_INT;
}

const char *const *sw_llm_names(int f) {
    if (fields[f].kind == F_BOOL) return bool_names;
    if (fields[f].kind != F_ENUM) return NULL;
    const char *n = fields[f].name;
    return !strcmp(n, "schedule")    ? th_llm_schedule_names
           : !strcmp(n, "recompute") ? th_llm_recompute_names
                                     : th_llm_sharding_names;
}

static void set(th_llm_model *m, th_llm_exec *x, int f, const ax_value *v) {
    const char *n = fields[f].name;
    double d = v->num;
    int64_t i = fields[f].kind == F_INT ? (int64_t)d : v->i;
    if (!strcmp(n, "tp"))
        x->tp = i;
    else if (!strcmp(n, "pp"))
        x->pp = i;
    else if (!strcmp(n, "dp"))
        x->dp = i;
    else if (!strcmp(n, "ep"))
        x->ep = i;
    else if (!strcmp(n, "micro_batch"))
        x->micro_batch = i;
    else if (!strcmp(n, "global_batch"))
        x->global_batch = i;
    else if (!strcmp(n, "virtual_stages"))
        x->virtual_stages = i;
    else if (!strcmp(n, "chunks"))
        x->chunks = i;
    else if (!strcmp(n, "bucket_bytes"))
        x->bucket_bytes = d;
    else if (!strcmp(n, "optimizer_bytes_per_param"))
        x->optimizer_bytes = d;
    else if (!strcmp(n, "grad_bytes"))
        x->grad_bytes = d;
    else if (!strcmp(n, "schedule")) {
        x->schedule = (th_llm_schedule)i;
        if (x->schedule != TH_LLM_INTERLEAVED) x->virtual_stages = 1;
    } else if (!strcmp(n, "recompute"))
        x->recompute = (th_llm_recompute)i;
    else if (!strcmp(n, "sharding"))
        x->sharding = (th_llm_sharding)i;
    else if (!strcmp(n, "sequence_parallel"))
        x->sequence_parallel = (int)i;
    else if (!strcmp(n, "dp_overlap"))
        x->dp_overlap = (int)i;
    else if (!strcmp(n, "model.layers"))
        m->layers = i;
    else if (!strcmp(n, "model.hidden"))
        m->hidden = d;
    else if (!strcmp(n, "model.heads"))
        m->heads = d;
    else if (!strcmp(n, "model.kv_heads"))
        m->kv_heads = d;
    else if (!strcmp(n, "model.ffn"))
        m->ffn = d;
    else if (!strcmp(n, "model.seq"))
        m->seq = d;
    else if (!strcmp(n, "model.vocab"))
        m->vocab = d;
    else if (!strcmp(n, "model.param_bytes"))
        m->param_bytes = d;
    else if (!strcmp(n, "model.act_bytes"))
        m->act_bytes = d;
    else if (!strcmp(n, "model.moe.experts"))
        m->experts = d;
    else if (!strcmp(n, "model.moe.top_k"))
        m->top_k = d;
    else if (!strcmp(n, "model.moe.expert_ffn"))
        m->expert_ffn = d;
}

void sw_llm_apply(const th_sweep *sw, const int64_t *digits, sw_point *pt) {
    pt->llm_model = sw->llm->model;
    pt->llm_exec = sw->llm->exec;
    for (int a = 0; a < sw->naxes; a++) {
        const ax *x = &sw->axes[a];
        if (x->kind == AX_LLM) set(&pt->llm_model, &pt->llm_exec, x->dim, &x->v[digits[x->group]]);
    }
    /* Experts given to a dense model: the rest of its "moe" object as the file's defaults. */
    th_llm_model *m = &pt->llm_model;
    if (sw->llm->model.experts == 0 && m->experts > 0) {
        if (m->top_k == 0) m->top_k = 1;
        if (m->expert_ffn == 0) m->expert_ffn = m->ffn;
        if (m->moe_every == 0) m->moe_every = 1;
    }
}

int sw_llm_check(const th_sweep *sw, const sw_point *pt, th_error *err) {
    th_llm_map map;
    if (!pt->sys.npu.present)
        return th_error_set(err, TH_EINPUT,
                            "npu: missing in system \"%s\" (an LLM workload needs the NPU's "
                            "matrix_tflops, vector_tflops, memory_GBps and memory_gib)",
                            pt->sys.name);
    if (th_llm_check(&pt->llm_model, &pt->llm_exec, sw->llm->name, err)) return err->code;
    return th_llm_map_groups(&pt->sys, &pt->llm_exec, &map, err);
}

static const char *const tail_cols[] = {"mfu",
                                        "tflops_per_npu",
                                        "speedup",
                                        "speedup_vs_ideal",
                                        "memory_weights",
                                        "memory_gradients",
                                        "memory_optimizer",
                                        "memory_activations",
                                        "memory_total",
                                        "memory_capacity",
                                        "memory_fits"};

int sw_llm_header(th_buf *out) {
    int bad = th_csv_field(out, "iteration_us");
    for (int k = 0; k < TH_LLM_PARTS; k++)
        bad |= th_csv_field(out, th_report_llm_parts[k]);
    for (size_t k = 0; k < sizeof tail_cols / sizeof *tail_cols; k++)
        bad |= th_csv_field(out, tail_cols[k]);
    return bad;
}

int sw_llm_row(th_llm_ctx *c, sw_refs *refs, const int64_t *digits, const sw_point *pt, th_buf *out,
               th_error *err) {
    th_llm_result r;
    if (th_llm_eval(c, &pt->sys, &pt->llm_model, &pt->llm_exec, pt->pair.policy, pt->pair.intra, &r,
                    err))
        return err->code;
    sw_ref v;
    int slot;
    if (!sw_refs_find(refs, digits, &v, &slot)) {
        th_llm_result b;
        int rc = th_llm_eval(c, &pt->sys, &pt->llm_model, &pt->llm_exec, TH_POLICY_BASELINE,
                             TH_INTRA_FIFO, &b, err);
        v.base_time = b.iteration;
        if (rc == TH_OK)
            rc = th_llm_eval(c, &pt->sys, &pt->llm_model, &pt->llm_exec, TH_POLICY_IDEAL,
                             TH_INTRA_FIFO, &b, err);
        v.ideal_time = b.iteration;
        v.ideal_lat = 0;
        sw_refs_keep(refs, slot, rc == TH_OK ? &v : NULL);
        if (rc) return rc;
    }
    int bad = th_csv_num(out, r.iteration / 1000.0);
    double ns[TH_LLM_PARTS];
    th_report_llm_part_values(&r.b, ns);
    for (int k = 0; k < TH_LLM_PARTS; k++)
        bad |= th_csv_num(out, ns[k] / 1000.0);
    bad |= th_csv_num(out, r.mfu) | th_csv_num(out, r.tflops_per_npu);
    bad |= th_csv_num(out, v.base_time / r.iteration) | th_csv_num(out, v.ideal_time / r.iteration);
    double mem[5] = {r.mem.weights, r.mem.gradients, r.mem.optimizer, r.mem.activations,
                     r.mem.total};
    for (int k = 0; k < 5; k++)
        bad |= th_csv_num(out, mem[k]);
    bad |= th_csv_num(out, th_npu_memory_bytes(&pt->sys.npu)); /* as train's rows */
    bad |= th_csv_int(out, r.fits);
    bad |= th_csv_num(out,
                      (double)pt->llm_exec.tp * (double)pt->llm_exec.pp * (double)pt->llm_exec.dp);
    bad |= th_csv_end(out);
    return bad ? th_error_set(err, TH_EINTERNAL, "out of memory") : TH_OK;
}

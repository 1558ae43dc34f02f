/* LLM workloads' results out: per policy pair the iteration, its breakdown, MFU and TFLOP/s per
 * NPU, and the memory per NPU (also a top-level object in JSON); one row schema in JSON, JSONL
 * and CSV (docs/SCHEMA.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_internal.h"
#include "themis/report_llm.h"
#include "themis/text.h"
#include "themis/train.h"

const char *const th_report_llm_parts[] = {
    "forward_us", "backward_us",   "recompute_us",  "tp_exposed_us", "ep_exposed_us",
    "bubble_us",  "pp_exposed_us", "dp_exposed_us", "optimizer_us",  NULL};

void th_report_llm_part_values(const th_llm_breakdown *b, double *ns) {
    double v[TH_LLM_PARTS] = {b->forward,    b->backward,   b->recompute,
                              b->tp_exposed, b->ep_exposed, b->bubble,
                              b->pp_exposed, b->dp_exposed, b->optimizer};
    memcpy(ns, v, sizeof v);
}

static double npus_used(const th_llm_exec *x) {
    return (double)x->tp * (double)x->pp * (double)x->dp;
}

static double capacity(const th_llm_report *rep) {
    return th_npu_memory_bytes(&rep->sys->npu);
}

/* The memory is the execution's, the same in every row. */
static const th_llm_result *first(const th_llm_report *rep) {
    return &rep->rows[0].res;
}

static int table(FILE *out, const th_llm_report *rep, th_error *err) {
    const th_llm_exec *x = rep->exec;
    const th_llm_model *m = &rep->wl->model;
    char a[32], b[32], c[32], d[32], wname[TH_TABLE_CELL], sname[TH_TABLE_CELL],
        mname[TH_TABLE_CELL];
    fprintf(out, "%s on %s (%s of %s NPUs): model %s, %s parameters\n",
            th_text_escape(wname, sizeof wname, rep->wl->name),
            th_text_escape(sname, sizeof sname, rep->sys->name), th_num_format(a, npus_used(x)),
            th_num_format(b, rep->sys->npus), th_text_escape(mname, sizeof mname, m->name),
            th_num_format(c, th_llm_params(m)));
    fprintf(out,
            "tp %lld, pp %lld, dp %lld, ep %lld; micro-batch %lld, global batch %lld (%s "
            "micro-batches per pipeline), %s",
            (long long)x->tp, (long long)x->pp, (long long)x->dp, (long long)x->ep,
            (long long)x->micro_batch, (long long)x->global_batch,
            th_num_format(a, first(rep)->microbatches), th_llm_schedule_names[x->schedule]);
    if (x->schedule == TH_LLM_INTERLEAVED) fprintf(out, " (v %lld)", (long long)x->virtual_stages);
    fprintf(out, ", %srecompute %s, sharding %s\n",
            x->sequence_parallel ? "sequence parallel, " : "", th_llm_recompute_names[x->recompute],
            th_llm_sharding_names[x->sharding]);
    const th_llm_mem *mem = &first(rep)->mem;
    double gib = 1073741824.0;
    snprintf(a, sizeof a, "%.4g", mem->weights / gib);
    snprintf(b, sizeof b, "%.4g", mem->gradients / gib);
    snprintf(c, sizeof c, "%.4g", mem->optimizer / gib);
    snprintf(d, sizeof d, "%.4g", mem->activations / gib);
    fprintf(out, "memory per NPU: weights %s GiB, gradients %s, optimizer %s, activations %s; ", a,
            b, c, d);
    snprintf(a, sizeof a, "%.4g", mem->total / gib);
    fprintf(out, "total %s GiB %s the NPU's %s GiB\n", a, first(rep)->fits ? "within" : "EXCEEDS",
            th_num_format(b, rep->sys->npu.memory_gib));
    th_table *t = calloc(1, sizeof *t);
    if (!t) return th_error_set(err, TH_EINTERNAL, "out of memory");
    th_table_col(t, 13, 1), th_table_cell(t, "policy");
    th_table_col(t, 5, 1), th_table_cell(t, "intra");
    th_table_col(t, 12, 0), th_table_cell(t, "iteration_us");
    for (int k = 0; k < TH_LLM_PARTS; k++)
        th_table_col(t, 8, 0), th_table_cell(t, th_report_llm_parts[k]);
    static const char *const tail[] = {"mfu", "tflops_per_npu", "speedup", "speedup_vs_ideal"};
    for (int k = 0; k < 4; k++)
        th_table_col(t, 6, 0), th_table_cell(t, tail[k]);
    for (int i = 0; i < rep->nrows; i++) {
        const th_llm_row *r = &rep->rows[i];
        th_table_cell(t, th_policy_name(r->policy));
        th_table_cell(t, th_train_intra_name(r->policy, r->intra));
        snprintf(a, sizeof a, "%.10g", r->res.iteration / 1000.0);
        th_table_cell(t, a);
        double ns[TH_LLM_PARTS];
        th_report_llm_part_values(&r->res.b, ns);
        for (int k = 0; k < TH_LLM_PARTS; k++) {
            snprintf(a, sizeof a, "%.8g", ns[k] / 1000.0);
            th_table_cell(t, a);
        }
        double v[4] = {r->res.mfu, r->res.tflops_per_npu, r->speedup, r->vs_ideal};
        for (int k = 0; k < 4; k++) {
            snprintf(a, sizeof a, "%.6g", v[k]);
            th_table_cell(t, a);
        }
    }
    fputc('\n', out);
    th_table_print(out, t);
    free(t);
    return th_report_done(out, err);
}

cJSON *th_report_llm_memory_json(const th_llm_mem *m, double capacity, int fits) {
    cJSON *o = cJSON_CreateObject();
    if (!o) return NULL;
    cJSON_AddNumberToObject(o, "weights", m->weights);
    cJSON_AddNumberToObject(o, "gradients", m->gradients);
    cJSON_AddNumberToObject(o, "optimizer", m->optimizer);
    cJSON_AddNumberToObject(o, "activations", m->activations);
    cJSON_AddNumberToObject(o, "total", m->total);
    cJSON_AddNumberToObject(o, "capacity", capacity);
    cJSON_AddBoolToObject(o, "fits", fits);
    return o;
}

static cJSON *memory_json(const th_llm_report *rep) {
    return th_report_llm_memory_json(&first(rep)->mem, capacity(rep), first(rep)->fits);
}

cJSON *th_report_llm_system_json(const th_system *sys) {
    cJSON *o = th_report_system_json(sys, -1);
    cJSON *npu = cJSON_AddObjectToObject(o, "npu");
    const th_npu *n = &sys->npu;
    cJSON_AddStringToObject(npu, "name", n->name);
    cJSON_AddNumberToObject(npu, "matrix_tflops", n->matrix_tflops);
    cJSON_AddNumberToObject(npu, "vector_tflops", n->vector_tflops);
    cJSON_AddNumberToObject(npu, "memory_GBps", n->memory_GBps);
    cJSON_AddNumberToObject(npu, "memory_gib", n->memory_gib);
    return o;
}

static cJSON *workload_json(const th_llm_report *rep) {
    const th_llm_exec *x = rep->exec;
    const th_llm_model *m = &rep->wl->model;
    cJSON *w = cJSON_CreateObject();
    cJSON_AddStringToObject(w, "name", rep->wl->name);
    cJSON_AddStringToObject(w, "kind", "llm");
    cJSON *mo = cJSON_AddObjectToObject(w, "model");
    cJSON_AddStringToObject(mo, "name", m->name);
    cJSON_AddNumberToObject(mo, "params", th_llm_params(m));
    cJSON_AddNumberToObject(mo, "flops_per_sequence", 3 * th_llm_flops_fwd(m));
    cJSON_AddNumberToObject(mo, "layers", (double)m->layers);
    cJSON_AddNumberToObject(mo, "hidden", m->hidden);
    cJSON_AddNumberToObject(mo, "heads", m->heads);
    cJSON_AddNumberToObject(mo, "kv_heads", m->kv_heads);
    cJSON_AddNumberToObject(mo, "ffn", m->ffn);
    cJSON_AddBoolToObject(mo, "gated_ffn", m->gated);
    cJSON_AddNumberToObject(mo, "seq", m->seq);
    cJSON_AddNumberToObject(mo, "vocab", m->vocab);
    if (m->experts > 0) {
        cJSON *moe = cJSON_AddObjectToObject(mo, "moe");
        cJSON_AddNumberToObject(moe, "experts", m->experts);
        cJSON_AddNumberToObject(moe, "top_k", m->top_k);
        cJSON_AddNumberToObject(moe, "expert_ffn", m->expert_ffn);
        cJSON_AddNumberToObject(moe, "every", (double)m->moe_every);
    }
    cJSON *e = cJSON_AddObjectToObject(w, "execution");
    cJSON_AddNumberToObject(e, "npus", npus_used(x));
    cJSON_AddNumberToObject(e, "tp", (double)x->tp);
    cJSON_AddNumberToObject(e, "pp", (double)x->pp);
    cJSON_AddNumberToObject(e, "dp", (double)x->dp);
    cJSON_AddNumberToObject(e, "ep", (double)x->ep);
    cJSON_AddNumberToObject(e, "micro_batch", (double)x->micro_batch);
    cJSON_AddNumberToObject(e, "global_batch", (double)x->global_batch);
    cJSON_AddNumberToObject(e, "microbatches", first(rep)->microbatches);
    cJSON_AddStringToObject(e, "schedule", th_llm_schedule_names[x->schedule]);
    cJSON_AddNumberToObject(e, "virtual_stages", (double)x->virtual_stages);
    cJSON_AddBoolToObject(e, "sequence_parallel", x->sequence_parallel);
    cJSON_AddStringToObject(e, "recompute", th_llm_recompute_names[x->recompute]);
    cJSON_AddStringToObject(e, "sharding", th_llm_sharding_names[x->sharding]);
    cJSON_AddBoolToObject(e, "dp_overlap", x->dp_overlap);
    cJSON_AddNumberToObject(e, "bucket_bytes", x->bucket_bytes);
    cJSON_AddNumberToObject(e, "chunks", (double)x->chunks);
    cJSON *mp = cJSON_AddArrayToObject(e, "mapping");
    for (int k = 0; k < TH_LLM_GROUPS; k++)
        cJSON_AddItemToArray(mp, cJSON_CreateString(th_llm_group_names[x->mapping[k]]));
    cJSON *g = cJSON_AddObjectToObject(e, "groups"); /* each group's pieces of dims */
    for (int k = 0; k < TH_LLM_GROUPS; k++) {
        cJSON *pieces = cJSON_AddArrayToObject(g, th_llm_group_names[k]);
        for (int i = 0; i < rep->map->n[k]; i++) {
            cJSON *p = cJSON_CreateObject();
            cJSON_AddNumberToObject(p, "dim", rep->map->dim[k][i]);
            cJSON_AddNumberToObject(p, "npus", (double)rep->map->npus[k][i]);
            cJSON_AddItemToArray(pieces, p);
        }
    }
    return w;
}

/* A result row: the same keys in JSON, JSONL and (flattened, memory.total as memory_total)
 * CSV, docs/SCHEMA.md. */
static cJSON *row_json(const th_llm_report *rep, const th_llm_row *r) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "workload", rep->wl->name);
    cJSON_AddStringToObject(o, "system", rep->sys->name);
    cJSON_AddStringToObject(o, "policy", th_policy_name(r->policy));
    cJSON_AddStringToObject(o, "intra", th_train_intra_name(r->policy, r->intra));
    cJSON_AddNumberToObject(o, "iteration_us", r->res.iteration / 1000.0);
    double ns[TH_LLM_PARTS];
    th_report_llm_part_values(&r->res.b, ns);
    for (int k = 0; k < TH_LLM_PARTS; k++)
        cJSON_AddNumberToObject(o, th_report_llm_parts[k], ns[k] / 1000.0);
    cJSON_AddNumberToObject(o, "mfu", r->res.mfu);
    cJSON_AddNumberToObject(o, "tflops_per_npu", r->res.tflops_per_npu);
    cJSON_AddNumberToObject(o, "speedup", r->speedup);
    cJSON_AddNumberToObject(o, "speedup_vs_ideal", r->vs_ideal);
    cJSON_AddItemToObject(o, "memory", memory_json(rep));
    return o;
}

/* JSON: the system (with its NPU), the workload, the memory per NPU, the result rows (each
 * with the memory in it), which are also JSONL's lines and, flattened, CSV's records. */
static cJSON *llm_json(const th_llm_report *rep, int lines) {
    cJSON *root = cJSON_CreateObject();
    cJSON_AddItemToObject(root, "system", th_report_llm_system_json(rep->sys));
    cJSON_AddItemToObject(root, "workload", workload_json(rep));
    if (!lines) cJSON_AddItemToObject(root, "memory", memory_json(rep));
    cJSON *results = cJSON_AddArrayToObject(root, "results");
    for (int i = 0; i < rep->nrows; i++)
        cJSON_AddItemToArray(results, row_json(rep, &rep->rows[i]));
    return root;
}

int th_report_llm_write(FILE *out, th_format format, const th_llm_report *rep, th_error *err) {
    if (rep->nrows < 1) return th_error_set(err, TH_EINTERNAL, "an LLM report without rows");
    switch (format) {
    case TH_FORMAT_TABLE: return table(out, rep, err);
    case TH_FORMAT_JSON: return th_report_write_json(out, llm_json(rep, 0), err);
    case TH_FORMAT_CSV: return th_report_write_csv(out, llm_json(rep, 1), "results", err);
    case TH_FORMAT_JSONL: return th_report_write_jsonl(out, llm_json(rep, 1), "results", err);
    }
    return th_error_set(err, TH_EINTERNAL, "unknown output format %d", (int)format);
}

/* The LLM's counts (docs/LLM.md, The model): parameters, FLOPs per layer, the compute time of
 * one pipeline stage per micro-batch on an NPU, and the memory per NPU (weights, gradients,
 * optimizer state, and activations after Korthikanti et al. 2022 for every recomputation
 * mode, with and without sequence parallelism, times the micro-batches in flight of each
 * schedule), with ZeRO sharding over the data-parallel group. */
#include <math.h>
#include <string.h>

#include "llm_internal.h"

double llm_moe_layers(const th_llm_model *m) {
    return m->experts > 0 ? floor((double)m->layers / (double)m->moe_every) : 0;
}

/* Matrix multiply widths of one layer: attention projections h x (h + 2 kv) and h x h;
 * feed-forward h x f twice (three times gated). */
static double kv_width(const th_llm_model *m) {
    return m->kv_heads * (m->hidden / m->heads);
}
static double attn_params(const th_llm_model *m) {
    double h = m->hidden;
    return 2 * h * h + 2 * h * kv_width(m);
}
static double mlp_mats(const th_llm_model *m) {
    return m->gated ? 3 : 2;
}
static double norm_params(const th_llm_model *m) {
    return 4 * m->hidden; /* two layer norms, gain and bias */
}
static double expert_params(const th_llm_model *m) {
    return m->experts * mlp_mats(m) * m->hidden * m->expert_ffn;
}
static double router_params(const th_llm_model *m) {
    return m->hidden * m->experts;
}

double th_llm_params(const th_llm_model *m) {
    double moe = llm_moe_layers(m), dense = (double)m->layers - moe;
    double common = attn_params(m) + norm_params(m);
    return dense * (common + mlp_mats(m) * m->hidden * m->ffn) +
           moe * (common + expert_params(m) + router_params(m)) + m->vocab * m->hidden +
           2 * m->hidden; /* tied embedding and logits; the final norm */
}

double llm_layer_flops(const th_llm_model *m, int moe) {
    double s = m->seq, h = m->hidden;
    double f = 2 * s * attn_params(m) + 4 * s * s * h; /* projections; scores and A.V */
    if (moe)
        f += 2 * s * (m->top_k * mlp_mats(m) * h * m->expert_ffn + router_params(m));
    else
        f += 2 * s * mlp_mats(m) * h * m->ffn;
    return f;
}

double llm_logits_flops(const th_llm_model *m) {
    return 2 * m->seq * m->hidden * m->vocab;
}

double llm_recompute_flops(const th_llm_model *m, th_llm_recompute r, int moe) {
    if (r == TH_LLM_RECOMPUTE_FULL) return llm_layer_flops(m, moe);
    if (r == TH_LLM_RECOMPUTE_SELECTIVE) return 4 * m->seq * m->seq * m->hidden;
    return 0;
}

double th_llm_flops_fwd(const th_llm_model *m) {
    double moe = llm_moe_layers(m);
    return ((double)m->layers - moe) * llm_layer_flops(m, 0) + moe * llm_layer_flops(m, 1) +
           llm_logits_flops(m);
}

double llm_matmul_ns(const th_npu *npu, double flops) {
    if (flops <= 0) return 0;
    double e = 1;
    int n = npu->neff;
    if (n > 0) {
        if (flops <= npu->eff_flops[0]) {
            e = npu->eff[0];
        } else if (flops >= npu->eff_flops[n - 1]) {
            e = npu->eff[n - 1];
        } else {
            int i = 0;
            while (flops > npu->eff_flops[i + 1])
                i++;
            double t =
                log(flops / npu->eff_flops[i]) / log(npu->eff_flops[i + 1] / npu->eff_flops[i]);
            e = npu->eff[i] + t * (npu->eff[i + 1] - npu->eff[i]);
        }
    }
    return flops / (npu->matrix_tflops * 1e3 * e); /* TFLOP/s = 1e3 FLOPs per ns */
}

double llm_vector_ns(const th_npu *npu, double elems, double flops, double bytes) {
    double v = elems * flops / (npu->vector_tflops * 1e3 * npu->vector_efficiency);
    double mem = elems * bytes / (npu->memory_GBps * npu->memory_efficiency);
    return v > mem ? v : mem;
}

/* One layer's forward on one NPU for a micro-batch of b sequences: its matrix multiplies (each
 * at the efficiency of its own size) and element-wise work; *core: the attention core's part
 * (what selective recomputation redoes). */
static double layer_fwd_ns(const th_llm_model *m, const th_llm_exec *x, const th_npu *npu, int moe,
                           double *core) {
    double b = (double)x->micro_batch, s = m->seq, h = m->hidden, t = (double)x->tp;
    double A = m->act_bytes, tok = b * s;
    double rep = x->sequence_parallel ? t : 1; /* replicated work is split with SP */
    double ns = 0;
    ns += llm_matmul_ns(npu, 2 * tok * h * (h + 2 * kv_width(m)) / t); /* QKV */
    double c = 2 * llm_matmul_ns(npu, 2 * b * s * s * h / t);          /* scores, A.V */
    /* the scores, memory-bound without fused attention (Megatron-LM of 2022): written by
     * their multiply, read and written by the fused scale-mask-softmax, read and written by
     * dropout with its one-byte mask, read by the product with V: 6A + 1 bytes each */
    c += llm_vector_ns(npu, b * m->heads * s * s / t, 5, 6 * A + 1);
    ns += c;
    ns += llm_matmul_ns(npu, 2 * tok * h * h / t); /* output projection */
    if (moe) {
        double per_npu = m->top_k * tok; /* token copies an NPU's experts take, balanced */
        double local = m->experts / (double)x->ep;
        double one = 2 * per_npu / local * h * m->expert_ffn / t; /* one expert's matrix */
        ns += local * mlp_mats(m) * llm_matmul_ns(npu, one);
        ns += llm_matmul_ns(npu, 2 * tok * router_params(m) / rep);
        ns += llm_vector_ns(npu, per_npu * m->expert_ffn / t, 8, (m->gated ? 3 : 2) * A);
    } else {
        double up = 2 * tok * h * m->ffn / t;
        ns += mlp_mats(m) * llm_matmul_ns(npu, up); /* up (and gate), down: equal sizes */
        ns += llm_vector_ns(npu, tok * m->ffn / t, 8, (m->gated ? 3 : 2) * A); /* activation */
    }
    ns += 2 * llm_vector_ns(npu, tok * h / rep, 8, 2 * A); /* layer norms */
    ns += 2 * llm_vector_ns(npu, tok * h / rep, 1, 3 * A); /* residual adds */
    *core = c;
    return ns;
}

void llm_layer_params(const th_llm_model *m, const th_llm_exec *x, llm_params *out) {
    double t = (double)x->tp;
    double common = (attn_params(m) + norm_params(m)) / t;
    out->dense = common + mlp_mats(m) * m->hidden * m->ffn / t;
    out->moe = common + router_params(m) / t;
    out->expert = expert_params(m) / ((double)x->ep * t);
    out->embedding = m->vocab * m->hidden / t;
    out->norm = 2 * m->hidden / t;
}

/* The stage's layers and its parameters per NPU: its layers split by TP (the norms too: they
 * are tiny), the experts by EP and TP, and the embedding (tied with the logits: a copy on the
 * first and on the last stage) split by TP. */
static void stage_params(const th_llm_model *m, const th_llm_exec *x, llm_stage *out) {
    llm_params lp;
    llm_layer_params(m, x, &lp);
    out->layers = (double)m->layers / (double)x->pp;
    out->moe_layers = llm_moe_layers(m) / (double)x->pp;
    double dense = out->layers - out->moe_layers;
    out->dense_params = dense * lp.dense + out->moe_layers * lp.moe + lp.embedding + lp.norm;
    out->expert_params = out->moe_layers * expert_params(m) / ((double)x->ep * (double)x->tp);
}

void llm_layer_times(const th_llm_model *m, const th_llm_exec *x, const th_npu *npu,
                     llm_layer_ns *out) {
    double t = (double)x->tp;
    out->core_moe = out->fwd_moe = 0;
    out->fwd_dense = layer_fwd_ns(m, x, npu, 0, &out->core_dense);
    if (llm_moe_layers(m) / (double)x->pp > 0)
        out->fwd_moe = layer_fwd_ns(m, x, npu, 1, &out->core_moe);
    /* the last stage's logits (the busiest: the first stage's embedding is a lookup) */
    out->logits =
        llm_matmul_ns(npu, llm_logits_flops(m) * (double)x->micro_batch / t) +
        llm_vector_ns(npu, (double)x->micro_batch * m->seq * m->vocab / t, 5, 2 * 4); /* loss */
}

void llm_stage_work(const th_llm_model *m, const th_llm_exec *x, const th_npu *npu,
                    llm_stage *out) {
    memset(out, 0, sizeof *out);
    stage_params(m, x, out);
    llm_layer_ns ln;
    llm_layer_times(m, x, npu, &ln);
    double dense = out->layers - out->moe_layers, core_d = ln.core_dense, core_m = ln.core_moe;
    double fd = ln.fwd_dense, fm = ln.fwd_moe, logits = ln.logits;
    out->fwd = dense * fd + out->moe_layers * fm + logits;
    out->bwd = 2 * out->fwd; /* input and weight gradients: two multiplies per forward one */
    if (x->recompute == TH_LLM_RECOMPUTE_FULL)
        out->recompute = dense * fd + out->moe_layers * fm;
    else if (x->recompute == TH_LLM_RECOMPUTE_SELECTIVE)
        out->recompute = dense * core_d + out->moe_layers * core_m;
    stage_params(m, x, out);
}

/* Activation bytes one layer keeps for one micro-batch on one NPU (Korthikanti et al. 2022,
 * section 4, generalised to any width: A bytes per element, 1 per dropout mask). */
static double layer_act(const th_llm_model *m, const th_llm_exec *x, int moe) {
    double b = (double)x->micro_batch, s = m->seq, h = m->hidden, t = (double)x->tp;
    double A = m->act_bytes, sbh = s * b * h, r = m->kv_heads / m->heads;
    double rep = x->sequence_parallel ? t : 1;
    if (x->recompute == TH_LLM_RECOMPUTE_FULL) return A * sbh / rep; /* the layer's input */
    double f = moe ? m->top_k * m->expert_ffn : m->ffn, acts = m->gated ? 3 : 2;
    /* replicated without SP: two norm inputs (2A), QKV and FC1 inputs (A each), two masks */
    double replicated = (4 * A + 2) * sbh;
    /* split by TP: Q, K, V, the output projection's input; the feed-forward's activations */
    double split = A * (2 + 2 * r) * sbh + acts * A * s * b * f;
    double core = (2 * A + 1) * m->heads * s * s * b; /* softmax output, its mask, dropout */
    double act = replicated / rep + split / t;
    if (x->recompute == TH_LLM_RECOMPUTE_NONE) act += core / t;
    return act;
}

/* Micro-batches whose activations the first stage holds at once. */
static double in_flight(const th_llm_exec *x) {
    double p = (double)x->pp, m = (double)(x->global_batch / (x->micro_batch * x->dp));
    if (p == 1) return 1; /* gradient accumulation frees each micro-batch's activations */
    switch (x->schedule) {
    case TH_LLM_GPIPE: return m;
    case TH_LLM_1F1B: return m < p ? m : p;
    case TH_LLM_INTERLEAVED: {
        double v = (double)x->virtual_stages, k = p + (p - 1) / v;
        return m < k ? m : k;
    }
    }
    return p;
}

void th_llm_memory(const th_llm_model *m, const th_llm_exec *x, th_llm_mem *out) {
    llm_stage st;
    stage_params(m, x, &st);
    double dp = (double)x->dp, edp = dp / (double)x->ep; /* expert replicas */
    double d = st.dense_params, e = st.expert_params;
    th_llm_sharding z = x->sharding;
    out->weights = (z >= TH_LLM_SHARD_WEIGHTS ? d / dp + e / edp : d + e) * m->param_bytes;
    out->gradients = (z >= TH_LLM_SHARD_GRADIENTS ? d / dp + e / edp : d + e) * x->grad_bytes;
    out->optimizer = (z >= TH_LLM_SHARD_OPTIMIZER ? d / dp + e / edp : d + e) * x->optimizer_bytes;
    double dense = st.layers - st.moe_layers;
    out->activations =
        (dense * layer_act(m, x, 0) + st.moe_layers * layer_act(m, x, 1)) * in_flight(x);
    out->total = out->weights + out->gradients + out->optimizer + out->activations;
}

/* What the LLM model's files share (llm_model.c computes, llm_eval.c times): one pipeline
 * stage's work per micro-batch and its parameters per NPU. */
#ifndef THEMIS_LLM_INTERNAL_H
#define THEMIS_LLM_INTERNAL_H

#include "themis/llm.h"

/* One NPU of the busiest pipeline stage (its layers, and the logits). */
typedef struct llm_stage {
    double layers;        /* transformer layers on the device (all its model chunks) */
    double moe_layers;    /* of which mixture-of-experts */
    double fwd, bwd;      /* compute of one micro-batch, ns */
    double recompute;     /* recomputed forward work of one micro-batch, ns */
    double dense_params;  /* parameters on the NPU reduced over the whole DP group */
    double expert_params; /* expert parameters on the NPU, reduced over dp / ep */
} llm_stage;

/* The compute of one micro-batch on one NPU, ns: what llm_stage_work sums over a stage. */
typedef struct llm_layer_ns {
    double fwd_dense, fwd_moe;   /* one layer's forward (fwd_moe 0 without MoE layers) */
    double core_dense, core_moe; /* its attention core: what selective recomputation redoes */
    double logits;               /* the logits and the loss (the last stage's) */
} llm_layer_ns;
void llm_layer_times(const th_llm_model *m, const th_llm_exec *x, const th_npu *npu,
                     llm_layer_ns *out);

/* Parameters per NPU of one layer and of the parts outside the layers, as a stage counts
 * them (split by tp; experts by ep * tp). */
typedef struct llm_params {
    double dense;     /* a dense layer */
    double moe;       /* an MoE layer's parameters outside its experts (attention, router) */
    double expert;    /* an MoE layer's expert parameters */
    double embedding; /* the embedding (tied with the logits) */
    double norm;      /* the final norm (the last stage's) */
} llm_params;
void llm_layer_params(const th_llm_model *m, const th_llm_exec *x, llm_params *out);

/* The busiest stage's work for m, x on npu. */
void llm_stage_work(const th_llm_model *m, const th_llm_exec *x, const th_npu *npu, llm_stage *out);

/* Time of a matrix multiply of `flops` FLOPs on npu, ns (peak times the efficiency curve). */
double llm_matmul_ns(const th_npu *npu, double flops);
/* Time of element-wise work: `elems` elements of `flops` FLOPs each, moving `bytes` bytes per
 * element, ns: the vector time or the memory time, whichever binds. */
double llm_vector_ns(const th_npu *npu, double elems, double flops, double bytes);

/* Model FLOPs of one sequence's forward pass through one dense / MoE layer, and the logits;
 * the FLOPs one forward recomputation adds per layer (by recompute mode). */
double llm_layer_flops(const th_llm_model *m, int moe);
double llm_logits_flops(const th_llm_model *m);
double llm_recompute_flops(const th_llm_model *m, th_llm_recompute r, int moe);
/* MoE layers of the whole model. */
double llm_moe_layers(const th_llm_model *m);

/* Gradient streams of at most `buckets` buckets run through the emulator as they are (16 by
 * default; longer ones follow the fitted queue); for tests that compare the two. */
void llm_ctx_exact(th_llm_ctx *c, int buckets);

#endif

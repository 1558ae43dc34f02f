/* LLM training as architects plan it (docs/LLM.md): a parametric transformer model, its
 * parallel execution (tensor, pipeline, data and expert parallelism, micro-batches, pipeline
 * schedule, sequence parallelism, recomputation, optimizer sharding, the mapping of the groups
 * onto the system's dims), its memory per NPU, and its iteration time on a system with an NPU
 * description, every collective timed through the emulator under a policy pair. */
#ifndef THEMIS_LLM_H
#define THEMIS_LLM_H

#include <stddef.h>
#include <stdint.h>

#include "themis/emulate.h"
#include "themis/error.h"
#include "themis/system.h"

/* The model: a stack of identical transformer layers, some of them mixture-of-experts. */
typedef struct th_llm_model {
    char name[TH_NAME_MAX];
    int64_t layers;
    double hidden;      /* h */
    double heads;       /* a: attention heads */
    double kv_heads;    /* key/value heads (grouped-query attention); = heads without GQA */
    double ffn;         /* feed-forward inner size (default 4h) */
    int gated;          /* gated feed-forward (SwiGLU): three matrices instead of two */
    double seq;         /* s: sequence length, tokens */
    double vocab;       /* V */
    double param_bytes; /* bytes per parameter (2: bf16) */
    double act_bytes;   /* bytes per activation element (2: bf16) */
    double experts;     /* 0: dense; else experts per MoE layer */
    double top_k;       /* experts per token */
    double expert_ffn;  /* an expert's feed-forward inner size */
    int64_t moe_every;  /* every k-th layer is an MoE layer (1: all) */
} th_llm_model;

typedef enum { TH_LLM_GPIPE, TH_LLM_1F1B, TH_LLM_INTERLEAVED } th_llm_schedule;
typedef enum {
    TH_LLM_RECOMPUTE_NONE,
    TH_LLM_RECOMPUTE_SELECTIVE, /* the attention core (Korthikanti et al. 2022) */
    TH_LLM_RECOMPUTE_FULL       /* every layer from its input */
} th_llm_recompute;
typedef enum {
    TH_LLM_SHARD_NONE,
    TH_LLM_SHARD_OPTIMIZER, /* ZeRO-1: optimizer states over DP */
    TH_LLM_SHARD_GRADIENTS, /* ZeRO-2: and gradients */
    TH_LLM_SHARD_WEIGHTS    /* ZeRO-3: and weights */
} th_llm_sharding;
typedef enum { TH_LLM_TP, TH_LLM_EP, TH_LLM_PP, TH_LLM_DP } th_llm_group;
#define TH_LLM_GROUPS 4

extern const char *const th_llm_schedule_names[];  /* gpipe, 1f1b, interleaved */
extern const char *const th_llm_recompute_names[]; /* none, selective, full */
extern const char *const th_llm_sharding_names[];  /* none, optimizer, gradients, weights */
extern const char *const th_llm_group_names[];     /* tp, ep, pp, dp */

/* How the model runs. NPUs = tp * pp * dp; ep divides dp (the experts are sharded over part
 * of the data-parallel group, as Megatron does). */
typedef struct th_llm_exec {
    int64_t tp, pp, dp, ep;
    int64_t micro_batch;  /* sequences per micro-batch */
    int64_t global_batch; /* sequences per iteration, a multiple of micro_batch * dp */
    th_llm_schedule schedule;
    int64_t virtual_stages; /* v: model chunks per device (interleaved), else 1 */
    int sequence_parallel;
    th_llm_recompute recompute;
    th_llm_sharding sharding;
    int dp_overlap;             /* gradient reduction overlaps the last backward pass */
    double bucket_bytes;        /* gradient buckets, bytes (0: one collective) */
    double optimizer_bytes;     /* optimizer state per parameter, bytes (Adam: 12) */
    double grad_bytes;          /* gradient per parameter, bytes (default param_bytes) */
    int64_t chunks;             /* chunks per collective on several dims (on one: 1) */
    int mapping[TH_LLM_GROUPS]; /* th_llm_group, innermost first */
} th_llm_exec;

/* An LLM workload file (key "llm"). */
typedef struct th_llm_workload {
    char name[64];
    char description[512];
    th_llm_model model;
    th_llm_exec exec;
} th_llm_workload;

/* 1 when text (NUL-terminated) is an LLM workload (a JSON object with the key "llm"). */
int th_llm_detect(const char *text, size_t len);
/* Parses an LLM workload; a model given by path is read relative to source's folder. Every
 * error names the file and the key. */
int th_llm_parse(const char *text, size_t len, const char *source, th_llm_workload *out,
                 th_error *err);
int th_llm_load(const char *path, th_llm_workload *out, th_error *err);
/* The rules an execution must follow for its model (divisibility, ranges); errors name
 * src's key (llm.tp, ...). */
int th_llm_check(const th_llm_model *m, const th_llm_exec *x, const char *src, th_error *err);

/* Counts of the whole model (docs/LLM.md, The model). */
double th_llm_params(const th_llm_model *m);
/* Model FLOPs of one sequence's forward pass (matrix multiplies; the logits included). */
double th_llm_flops_fwd(const th_llm_model *m);

/* Memory of the busiest NPU (the first pipeline stage, or the last when larger), bytes. */
typedef struct th_llm_mem {
    double weights, gradients, optimizer, activations, total;
} th_llm_mem;
void th_llm_memory(const th_llm_model *m, const th_llm_exec *x, th_llm_mem *out);

/* One iteration's time, ns, in parts that add up to it (docs/LLM.md, The iteration). */
typedef struct th_llm_breakdown {
    double forward;    /* forward compute of every micro-batch */
    double backward;   /* backward compute */
    double recompute;  /* recomputed forward work */
    double tp_exposed; /* tensor-parallel collectives (blocking) */
    double ep_exposed; /* expert-parallel All-to-All (blocking) */
    double bubble;     /* pipeline fill and drain */
    double pp_exposed; /* pipeline sends */
    double dp_exposed; /* data-parallel gradient (and weight) collectives not hidden */
    double optimizer;  /* the optimizer step */
} th_llm_breakdown;

typedef struct th_llm_result {
    double iteration; /* ns */
    th_llm_breakdown b;
    double microbatches;   /* m: micro-batches per pipeline per iteration */
    double model_flops;    /* per iteration over all NPUs (no recomputation) */
    double hw_flops;       /* the same with recomputed work */
    double mfu;            /* model_flops / (iteration * NPUs * matrix peak) */
    double tflops_per_npu; /* hw_flops / (iteration * NPUs), TFLOP/s */
    th_llm_mem mem;
    int fits; /* mem.total <= the NPU's memory */
} th_llm_result;

/* Where each group runs: pieces of dims, innermost first (a piece is a dim or a factor of
 * one, with that dim's links). */
typedef struct th_llm_map {
    int n[TH_LLM_GROUPS];                     /* pieces of each group (0: size 1) */
    int dim[TH_LLM_GROUPS][TH_MAX_DIMS];      /* system dim of each piece */
    int64_t npus[TH_LLM_GROUPS][TH_MAX_DIMS]; /* NPUs of each piece */
} th_llm_map;
/* Lays the groups of x onto sys's dims in x->mapping's order, innermost first; a group that
 * does not fit is TH_EINPUT naming it and the dims. */
int th_llm_map_groups(const th_system *sys, const th_llm_exec *x, th_llm_map *out, th_error *err);

/* Reusable state of evaluations (emulator, plans, a cache of collective times); one per
 * thread. */
typedef struct th_llm_ctx th_llm_ctx;
th_llm_ctx *th_llm_ctx_create(void);
void th_llm_ctx_free(th_llm_ctx *c);

/* One iteration of m run as x on sys (which needs an NPU) under a policy pair (any policy,
 * themis-global and ideal included; ideal ignores intra). Checks x (th_llm_check), maps the
 * groups, times every collective; res->fits says whether the memory fits (not an error). */
int th_llm_eval(th_llm_ctx *c, const th_system *sys, const th_llm_model *m, const th_llm_exec *x,
                th_policy policy, th_intra intra, th_llm_result *res, th_error *err);

/* One evaluated policy pair, as the reports list it. */
typedef struct th_llm_row {
    th_policy policy; /* any policy, ideal included */
    th_intra intra;   /* ignored by the ideal network */
    th_llm_result res;
    double speedup;  /* baseline+fifo iteration / this iteration */
    double vs_ideal; /* ideal-network iteration / this iteration */
} th_llm_row;
#define TH_LLM_MAX_ROWS (2 * TH_POLICY_COUNT)

/* The comparison `themis train` prints for an LLM workload, in train's order: policy (a
 * th_policy, or -1 = every policy, lp where its program applies, and the ideal network) and
 * intra (a th_intra, or -1 = both), into rows (room for TH_LLM_MAX_ROWS), with the speedups
 * against baseline+fifo and the ideal network (evaluated once more when not among them). */
int th_llm_compare(th_llm_ctx *c, const th_system *sys, const th_llm_model *m, const th_llm_exec *x,
                   int policy, int intra, th_llm_row *rows, int *nrows, th_error *err);

#endif

/* The search over LLM executions (docs/LLM.md, The search): every valid way to run a model on
 * all NPUs of a system (TP, PP, DP, EP, micro-batch, schedule, sequence parallelism,
 * recomputation, sharding, mapping of the groups onto the dims), those that fit in memory, and
 * the best by iteration time under a policy pair, found by branch and bound over th_llm_eval. */
#ifndef THEMIS_LLM_SEARCH_H
#define THEMIS_LLM_SEARCH_H

#include "themis/llm.h"

/* Keys of the execution a search can hold fixed (bit i: th_llm_search_key_names[i]). */
typedef enum {
    TH_LLM_KEY_TP,
    TH_LLM_KEY_PP,
    TH_LLM_KEY_DP,
    TH_LLM_KEY_EP,
    TH_LLM_KEY_MICRO_BATCH,
    TH_LLM_KEY_SCHEDULE, /* with virtual_stages */
    TH_LLM_KEY_SEQUENCE_PARALLEL,
    TH_LLM_KEY_RECOMPUTE,
    TH_LLM_KEY_SHARDING,
    TH_LLM_KEY_MAPPING,
    TH_LLM_KEYS
} th_llm_search_key;
extern const char *const th_llm_search_key_names[]; /* tp, pp, dp, ep, micro_batch, ... */

typedef struct th_llm_search_opts {
    /* the fields the search does not vary (global_batch, dp_overlap, bucket_bytes,
     * optimizer_bytes, grad_bytes, chunks), and the keys of `fixed` */
    th_llm_exec base;
    unsigned fixed; /* bit TH_LLM_KEY_*: that key as in base */
    double npus;    /* tp * pp * dp of every execution: 0 = all the system's; else fewer, the
                       groups filling its dims innermost first (th_llm_map_groups) */
    th_policy policy;
    th_intra intra;
    int top; /* K: the best K executions are kept, >= 1 */
    /* asked now and then; non-zero ends the search ("interrupted"); NULL: never */
    int (*poll)(void *ctx);
    void *poll_ctx;
} th_llm_search_opts;

/* One execution found, and its iteration. */
typedef struct th_llm_found {
    th_llm_exec x;
    th_llm_result r;
} th_llm_found;

typedef struct th_llm_search_result {
    double enumerated;  /* valid executions (equivalent ones once: docs/LLM.md) */
    double feasible;    /* of which fit in the NPU's memory */
    double bounded;     /* of which the lower bound was not enough to drop before timing */
    double evaluated;   /* of which were timed (th_llm_eval) */
    int n;              /* executions in best, <= top */
    th_llm_found *best; /* fastest first; ties in th_llm_exec_cmp's order */
} th_llm_search_result;

/* The search of m on the NPUs of sys (which needs an NPU) under o; out->best is freed by
 * th_llm_search_result_free. No feasible execution is not an error (out->n = 0). */
int th_llm_search(const th_system *sys, const th_llm_model *m, const th_llm_search_opts *o,
                  th_llm_search_result *out, th_error *err);
void th_llm_search_result_free(th_llm_search_result *r);

/* The fixed order of executions that breaks ties of iteration time: tp, pp, dp, ep,
 * micro_batch, schedule, virtual_stages, sequence_parallel, recompute, sharding, then the
 * mapping (as the groups' indices, innermost first); <0, 0, >0. */
int th_llm_exec_cmp(const th_llm_exec *a, const th_llm_exec *b);

/* A model file (key "llm_model") or an LLM workload (key "llm"), told by content: *is_workload
 * says which; a model file gives the format's default execution (global_batch 0: none). */
int th_llm_parse_any(const char *text, size_t len, const char *source, th_llm_workload *out,
                     int *is_workload, th_error *err);
int th_llm_load_any(const char *path, th_llm_workload *out, int *is_workload, th_error *err);

#endif

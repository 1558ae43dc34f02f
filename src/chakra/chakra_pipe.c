/* A pipeline's layout (docs/CHAKRA.md, LLM workloads): Megatron-LM's order of one device's
 * forward and backward steps under GPipe, 1F1B and interleaved 1F1B, and the stage of each
 * rank as the LLM model lays the PP group onto the system's dims. */
#include <stdlib.h>

#include "chakra_pipe.h"

/* Device s's steps in the order of the schedule (Megatron-LM's): GPipe every forward, then
 * every backward; 1F1B min(p - s - 1, m) forwards, then a forward and a backward in turn, then
 * the backwards left; interleaved the same over m v chunk steps with (p - s - 1) 2 + (v - 1) p
 * warm-up forwards (all of them when m = p), forward step k running micro-batch
 * (k / (p v)) p + k mod p through chunk (k / p) mod v, backward step k through chunk
 * v - 1 - (k / p) mod v. One stage: each micro-batch's forward, then its backward. */
int th_pipe_steps(const th_pipe *q, int64_t s, th_pipe_step **out, size_t *n) {
    int64_t total = q->mb * q->v, warm;
    if (q->p == 1)
        warm = 0;
    else if (q->sched == TH_LLM_GPIPE)
        warm = total;
    else if (q->sched == TH_LLM_INTERLEAVED && q->mb == q->p)
        warm = total;
    else if (q->sched == TH_LLM_INTERLEAVED)
        warm = (q->p - s - 1) * 2 + (q->v - 1) * q->p;
    else
        warm = q->p - s - 1;
    if (warm > total) warm = total;
    *n = 0;
    if (!(*out = malloc(sizeof **out * (size_t)(2 * total)))) return -1;
    for (int64_t i = 0; i < 2 * total; i++) { /* warm-up, steady state, cool-down */
        int64_t k = i < warm ? i : i >= 2 * total - warm ? i - total : warm + (i - warm) / 2;
        int bwd = i >= 2 * total - warm || (i >= warm && (i - warm) % 2 == 1);
        if (bwd && i < 2 * total - warm) k = (i - warm) / 2;
        int64_t u = k, c = 0;
        if (q->v > 1) u = (k / (q->p * q->v)) * q->p + k % q->p, c = (k / q->p) % q->v;
        (*out)[(*n)++] = (th_pipe_step){bwd, u, bwd ? q->v - 1 - c : c};
    }
    return 0;
}

/* Which stage each rank is in, and each stage's rank offset: the PP group's pieces of dims as
 * th_llm_map_groups lays them (in mapping order, each piece of a dim inside the ones before
 * it), a rank's stage the mixed-radix number of its coordinates in them. */
int th_pipe_layout(const th_llm_map *map, const th_llm_exec *x, const th_system *sys,
                   th_chakra_graph *g, th_error *err) {
    int64_t dimbase[TH_MAX_DIMS], used[TH_MAX_DIMS], stride[TH_MAX_DIMS], take[TH_MAX_DIMS];
    int64_t base = 1;
    int np = 0;
    for (int d = 0; d < sys->ndims; d++)
        dimbase[d] = base, used[d] = 1, base *= sys->dims[d].npus;
    for (int k = 0; k < TH_LLM_GROUPS; k++) {
        int gr = x->mapping[k];
        for (int i = 0; i < map->n[gr]; i++) {
            int d = map->dim[gr][i];
            if (gr == TH_LLM_PP) stride[np] = dimbase[d] * used[d], take[np++] = map->npus[gr][i];
            used[d] *= map->npus[gr][i];
            /* the NPUs past the groups run copies of the pipeline, as with one stage: each
             * copy whole, so that every NPU's peers are NPUs of the system */
            if (gr == TH_LLM_PP && sys->dims[d].npus % used[d])
                return th_error_set(err, TH_EINPUT,
                                    "%s: llm.pp: the pipeline takes %lld of the %lld NPUs of dim "
                                    "%d (\"%s\") left to it, not a factor: the NPUs past it "
                                    "would hold a part of a pipeline",
                                    g->name, (long long)map->npus[gr][i],
                                    (long long)(sys->dims[d].npus / (used[d] / map->npus[gr][i])),
                                    d, sys->dims[d].name);
        }
    }
    g->stage_of = malloc(sizeof *g->stage_of * (size_t)g->npus);
    g->stage_off = malloc(sizeof *g->stage_off * (size_t)x->pp);
    if (!g->stage_of || !g->stage_off) return th_error_set(err, TH_EINTERNAL, "out of memory");
    for (int64_t r = 0; r < g->npus; r++) {
        int64_t st = 0, radix = 1;
        for (int i = 0; i < np; i++)
            st += (r / stride[i]) % take[i] * radix, radix *= take[i];
        g->stage_of[r] = (int32_t)st;
    }
    for (int64_t s = 0; s < x->pp; s++) {
        int64_t off = 0, radix = 1;
        for (int i = 0; i < np; i++)
            off += (s / radix) % take[i] * stride[i], radix *= take[i];
        g->stage_off[s] = off;
    }
    return TH_OK;
}

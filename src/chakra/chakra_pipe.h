/* A pipeline's layout for the Chakra writer (docs/CHAKRA.md, LLM workloads): the order of one
 * device's steps under a schedule, and which stage each rank of the system holds. */
#ifndef THEMIS_CHAKRA_PIPE_H
#define THEMIS_CHAKRA_PIPE_H

#include <stddef.h>
#include <stdint.h>

#include "chakra_export.h"
#include "themis/llm.h"

/* A step of one device: a micro-batch's forward or backward through one of its model chunks. */
typedef struct th_pipe_step {
    int bwd;      /* 1: the backward */
    int64_t u, c; /* micro-batch, chunk (virtual stage c p + s on stage s) */
} th_pipe_step;

/* The pipeline: stages, model chunks per device, micro-batches, layers per virtual stage. */
typedef struct th_pipe {
    int64_t p, v, mb, per;
    th_llm_schedule sched;
    double send; /* bytes of one send: a micro-batch's activations (or their gradient) / tp */
} th_pipe;

/* Stage s's steps in the schedule's order into *out (malloc'd, 2 m v of them); -1 when out
 * of memory. */
int th_pipe_steps(const th_pipe *q, int64_t s, th_pipe_step **out, size_t *n);

/* Each rank's stage (g->stage_of) and each stage's rank offset (g->stage_off) for the PP group
 * of x laid on sys as map says; TH_EINPUT when the pipeline's copies do not tile a dim. */
int th_pipe_layout(const th_llm_map *map, const th_llm_exec *x, const th_system *sys,
                   th_chakra_graph *g, th_error *err);

#endif

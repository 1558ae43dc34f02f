/* The planner's model interface: what differs between our model (SPEC §4, §5) and a preset
 * (§9) when a collective is planned, as one const table per model (model.h's planner). */
#ifndef THEMIS_SCHEDULE_INTERNAL_H
#define THEMIS_SCHEDULE_INTERNAL_H

#include "themis/schedule.h"

struct th_plan_model {
    /* Rejects what the model cannot run (beyond th_collective_validate's common checks). */
    int (*check)(const th_system *sys, const th_collective *coll, th_error *err);
    /* Sets plan->chunk, plan->last_chunk and plan->nstages from the plan's type, policy, size,
     * chunks and n (a model may run another number of chunks: it sets plan->chunks); refuses a
     * plan the model cannot run under that policy. */
    int (*shape)(th_plan *plan, const th_system *sys, th_error *err);
    /* The Themis order of every chunk (RS-first collectives and AG) into plan->order, loads
     * from plan->load; base is the fixed order its fallback uses. */
    void (*themis)(th_plan *plan, const th_system *sys, th_load_model model, const int *base);
    /* Stage j of the chunk whose order is o: its dim, operation and size (th_plan_stage). */
    void (*stage)(const th_plan *plan, const uint8_t *o, int j, int *dim, th_op *op, double *m);
};

/* Policy lp (schedule_lp.c): the bound's mix of orders in integer counts, in sequence `seq`
 * (th_sched_plan_lp); the plan's shape and active dims are set. */
int sched_plan_lp(th_plan *plan, const th_system *sys, const th_collective *coll, int seq,
                  th_error *err);

/* The analytical model's planner (schedule.c). */
extern const th_plan_model sched_clean_model;

#endif

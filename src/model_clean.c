/* The analytical model (SPEC §3-§6) as one model (model.h): every capability, and its system
 * rules, planner and emulator from the core's own files. */
#include "emulate_internal.h"
#include "model.h"
#include "schedule_internal.h"
#include "system_internal.h"

static const th_plan_model *planner(const th_system *sys) {
    (void)sys;
    return &sched_clean_model;
}

const th_model_ops th_model_clean = {
    .name = "analytical",
    .caps = TH_CAP_BOUND | TH_CAP_LP | TH_CAP_IDEAL_LAT | TH_CAP_TRAIN | TH_CAP_CALIBRATE |
            TH_CAP_ANY_COLL,
    .sys = &sys_clean_model,
    .planner = planner,
    .emu = &emu_clean_model,
    .alg_types = 1,
};

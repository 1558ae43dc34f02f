/* The registry of plug-ins: one model.h table per th_model (the analytical model's here) and
 * their names, the capability questions answered from them in one message form, the workload
 * formats besides our JSON (workload_format.h), and the names of the chunking rules (one is
 * spelled after the simulator whose rule it is). The only core file that names a preset;
 * everything else asks the tables. It sits above every module it lists (system, schedule,
 * emulate, the presets), which model.h lets use it without including them. */
#include <stdio.h>

#include "emulate_internal.h"
#include "model.h"
#include "schedule_internal.h"
#include "system_internal.h"
#include "themis/workload.h"
#include "workload_format.h"

static const th_plan_model *clean_planner(const th_system *sys) {
    (void)sys;
    return &sched_clean_model;
}

/* The analytical model (SPEC §3-§6): every capability; its system rules, planner and emulator
 * are the core's own. */
const th_model_ops th_model_clean = {
    .name = "analytical",
    .caps = TH_CAP_BOUND | TH_CAP_LP | TH_CAP_IDEAL_LAT | TH_CAP_TRAIN | TH_CAP_CALIBRATE |
            TH_CAP_ANY_COLL | TH_CAP_AG_OUTPUT,
    .sys = &sys_clean_model,
    .planner = clean_planner,
    .emu = &emu_clean_model,
    .alg_types = 1,
};

/* The presets' tables (src/presets/NAME/NAME_ops.c). */
extern const th_model_ops astra_model_ops;
extern const th_model_ops astra1_model_ops;
extern const th_wl_format astra1_text_format; /* src/presets/astra1/astra1_format.c */
extern const th_wl_format th_ck_format;       /* src/chakra/chakra_format.c */

const th_model_ops *const th_model_table[] = {
    [TH_MODEL_ANALYTICAL] = &th_model_clean,
    [TH_MODEL_ASTRA] = &astra_model_ops,
    [TH_MODEL_ASTRA1] = &astra1_model_ops,
};
_Static_assert(sizeof th_model_table / sizeof *th_model_table == TH_MODEL_COUNT,
               "a table per th_model");
const unsigned th_model_count = TH_MODEL_COUNT;

const char *const th_model_names[] = {"analytical", "astra-sim", "astra-sim-1.0", NULL};

const th_model_ops *th_model_get(int m) {
    return (unsigned)m < TH_MODEL_COUNT ? th_model_table[m] : NULL;
}

int th_model_has(const th_system *sys, unsigned cap) {
    return (th_model_of(sys)->caps & cap) == cap;
}

/* Why a model without the capability cannot do it; %s is the model's name. */
static const struct {
    unsigned cap;
    const char *why;
} lacks[] = {
    {TH_CAP_BOUND, "the bound holds for the analytical model only, not the %s preset (its "
                   "integer sizes and queue rules are not in the program)"},
    {TH_CAP_LP, "policy lp: the analytical model only, not the %s preset"},
    {TH_CAP_IDEAL_LAT, "--ideal-lat: the latency floor is the analytical model's stage latency "
                       "(SPEC §3), and this system uses the %s preset"},
    {TH_CAP_TRAIN, "model: the %s preset runs single collectives here; train workloads on the "
                   "analytical model"},
    {TH_CAP_CALIBRATE, "a system under the %s preset: calibrate fits the analytical model "
                       "(SPEC §3)"},
    {TH_CAP_ANY_COLL, "the %s preset does not run every collective"},
};

int th_model_require(const th_system *sys, unsigned cap, const char *who, th_error *err) {
    const th_model_ops *m = th_model_of(sys);
    unsigned missing = cap & ~m->caps;
    if (!missing) return TH_OK;
    const char *why = "the %s preset cannot do this";
    for (size_t i = 0; i < sizeof lacks / sizeof *lacks; i++)
        if (missing & lacks[i].cap) {
            why = lacks[i].why;
            break;
        }
    char msg[TH_ERROR_MAX];
    snprintf(msg, sizeof msg, why, m->name);
    if (who) return th_error_set(err, TH_EINPUT, "%s: %s", who, msg);
    return th_error_set(err, TH_EINPUT, "%s", msg);
}

/* Chakra first: the 1.0 text format takes anything that is not JSON, binary included. */
static const th_wl_format *const formats[] = {&th_ck_format, &astra1_text_format,
                                              &th_llm_wl_format};

const th_wl_format *th_wl_format_get(int i) {
    return i >= 0 && (size_t)i < sizeof formats / sizeof *formats ? formats[i] : NULL;
}

/* th_chunking in enum order: ours, and every collective in N chunks as ASTRA-sim cuts them. */
const char *const th_chunking_names[] = {"capped", "astra", NULL};

const char *th_model_name(th_model m) {
    return (unsigned)m < TH_MODEL_COUNT ? th_model_names[m] : "?";
}

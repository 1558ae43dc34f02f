/* The model interface: everything a model (the analytical one of SPEC §3-§6, or a preset that
 * reproduces another simulator) brings to the core, as one const table per model: its name,
 * what it can do (capability flags), its system-file hooks, its planner, its emulator and the
 * few hooks where the core reports a result the model's way. The registry
 * (model_registry.c) holds one table per th_model and is the only core file that names a
 * preset; the rest of the core asks through these tables and th_model_require.
 *
 * A new model: a folder src/presets/NAME/ whose files carry the prefix NAME_ (its system
 * hooks, planner, emulator rules, its settings struct in a private header, checked to fit
 * th_system.model_data, and NAME_ops.c with its th_model_ops), a value in th_model, and one
 * line in model_registry.c. */
#ifndef THEMIS_MODEL_H
#define THEMIS_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "themis/emulate.h"
#include "themis/schedule.h"
#include "themis/system.h"

/* What a model can do beyond running single collectives (th_model_require's `cap`). */
enum {
    TH_CAP_BOUND = 1u << 0,     /* the lower bound's program (th_bound_eval) */
    TH_CAP_LP = 1u << 1,        /* policy lp: the bound's mix of orders as a plan */
    TH_CAP_IDEAL_LAT = 1u << 2, /* the latency floor (--ideal-lat, "ideal_latency") */
    TH_CAP_TRAIN = 1u << 3,     /* training workloads (train, workload sweeps, optimize) */
    TH_CAP_CALIBRATE = 1u << 4, /* fitting its parameters to measurements */
    TH_CAP_ANY_COLL = 1u << 5,  /* every type, size and chunk count th_collective_validate
                                   accepts (else its planner refuses some: a sweep re-checks) */
};

struct sys_model;     /* system_internal.h */
struct emu_model;     /* emulate_internal.h */
struct th_plan_model; /* schedule_internal.h */

typedef struct th_model_ops {
    const char *name;            /* as a system file's "model" spells it */
    unsigned caps;               /* TH_CAP_* */
    const struct sys_model *sys; /* its system-file fields and checks */
    /* Its planner for sys (a model may pick one by its settings). */
    const struct th_plan_model *(*planner)(const th_system *sys);
    const struct emu_model *emu; /* its emulator rules */
    /* Optional (NULL: as emulated): finishes the result of one collective run alone as the
     * simulator it reproduces reports it. */
    void (*finish)(const th_system *sys, th_coll_type type, double size, th_result *res);
    /* Optional (NULL: dims[k].algorithm): names the algorithm dim k runs for type, as the
     * system file spells it, into buf of n bytes. */
    void (*alg_name)(const th_system *sys, int k, th_coll_type type, char *buf, size_t n);
    /* Collective types, in th_coll_type order, whose algorithm may differ per dim (1: one for
     * every type). */
    int alg_types;
    /* Optional (NULL: every policy): whether a run of every policy (`themis run` without -p)
     * includes policy p on the dims of dims_mask (0: all). */
    int (*lists)(const th_system *sys, th_policy p, uint32_t dims_mask);
} th_model_ops;

/* Model m, or NULL when m is not a th_model (the registry). */
const th_model_ops *th_model_get(th_model m);

/* The analytical model (model_clean.c). */
extern const th_model_ops th_model_clean;

/* The registry's tables by th_model, and how many there are (model_registry.c). */
extern const th_model_ops *const th_model_table[];
extern const unsigned th_model_count;

/* The model of sys (the analytical one for an unknown th_model, which
 * th_collective_validate and th_system_validate refuse). Inline: every run asks it. */
static inline const th_model_ops *th_model_of(const th_system *sys) {
    return (unsigned)sys->model < th_model_count ? th_model_table[sys->model] : &th_model_clean;
}

/* 1 when the model of sys has every capability of cap, else 0. */
int th_model_has(const th_system *sys, unsigned cap);
/* TH_OK when the model of sys has every capability of cap; else TH_EINPUT with err saying
 * which model lacks what, after "who: " when who is not NULL (a file, a system). */
int th_model_require(const th_system *sys, unsigned cap, const char *who, th_error *err);

/* The names of every th_model in enum order, NULL-terminated (the registry). */
extern const char *const th_model_names[];

#endif

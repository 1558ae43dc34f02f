/* The ASTRA-sim 1.0 preset's parts behind the model interface (model.h): its system-file
 * hooks, its planner and its emulator rules, gathered in astra1_ops.c. */
#ifndef THEMIS_ASTRA1_PRESET_H
#define THEMIS_ASTRA1_PRESET_H

#include <stddef.h>

#include "model.h"
#include "themis/astra1.h"
#include "themis/system.h"

/* The preset's settings, kept in th_system.model_data (zero under any other model). */
typedef struct astra1_settings {
    double endpoint;                 /* endpoint delay per message, ns */
    th_a1_version version;           /* whose ASTRA-sim 1.0 */
    int local_bw_aware;              /* collective-optimization localBWAware (else baseline) */
    int lifo;                        /* scheduling-policy LIFO (else FIFO) */
    int boost;                       /* boost-mode (0: some same-ns phase orders refused) */
    int gap_denominator;             /* Themis fallback: gap < chunk / this (16 on the branch) */
    int links[TH_MAX_DIMS];          /* links-count per dim */
    double scalar[TH_MAX_DIMS];      /* bandwidth multiplier from the links-count rules */
    double greedy_bw[TH_MAX_DIMS];   /* Themis's dim bandwidth: usable links * bw_GBps */
    double nic[TH_MAX_DIMS];         /* nic latency, ns (twice per message) */
    double router[TH_MAX_DIMS];      /* router latency, ns (once per switch message) */
    th_a1_impl impl[4][TH_MAX_DIMS]; /* by th_coll_type order: AR, RS, AG, A2A */
    int window[4][TH_MAX_DIMS];      /* direct: messages at once ("directN": N; 0: p - 1) */
} astra1_settings;
_Static_assert(sizeof(astra1_settings) <= TH_MODEL_DATA_MAX, "the settings fit model_data");
_Static_assert(_Alignof(astra1_settings) <= _Alignof(max_align_t), "model_data aligns them");

/* The settings of sys, read-only and writable. */
static inline const astra1_settings *astra1_of(const th_system *sys) {
    return (const astra1_settings *)(const void *)sys->model_data;
}
static inline astra1_settings *astra1_set(th_system *sys) {
    return (astra1_settings *)(void *)sys->model_data;
}

extern const struct sys_model astra1_sys; /* astra1_system.c */
/* Its planner for sys (astra1_model.c): the collective-optimization picks the phase list. */
const struct th_plan_model *astra1_planner(const th_system *sys);
/* The delays of one NPU's events in a phase, in order (astra1_model.c); -1: not one line. */
int astra1_phase_chain(const th_system *sys, int d, th_coll_type type, th_op op, double in,
                       double *dl, int max);
extern const struct emu_model astra1_emu;   /* astra1_emulate.c */
extern const th_model_ops astra1_model_ops; /* astra1_ops.c */

#endif

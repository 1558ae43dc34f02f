/* The ASTRA-sim 2.x preset's parts behind the model interface (model.h): its system-file
 * hooks, its planner and its emulator rules, gathered in astra_ops.c. */
#ifndef THEMIS_ASTRA_PRESET_H
#define THEMIS_ASTRA_PRESET_H

#include <stddef.h>

#include "model.h"
#include "themis/cost.h"
#include "themis/system.h"

/* The preset's settings, kept in th_system.model_data (zero under any other model). */
typedef struct astra_settings {
    double endpoint;       /* endpoint delay per message, ns */
    double local_mem_GBps; /* local memory bandwidth for reductions, GB/s */
    /* a Reduce-Scatter's [0], an All-Gather's [1] and an All-to-All's [2] algorithm on dim k,
     * as 1 + th_algorithm; 0 = dims[k].algorithm, which an All-Reduce uses
     * (th_astra_algorithm) */
    unsigned char alg[3][TH_MAX_DIMS];
    int flat; /* collective-optimization baseline (an All-Reduce is one AR phase on every
               * dim); 0: localBWAware */
    double roofline_TFLOPS; /* roofline-enabled: the peak of a trace's compute nodes; 0: off */
} astra_settings;
_Static_assert(sizeof(astra_settings) <= TH_MODEL_DATA_MAX, "the settings fit model_data");
_Static_assert(_Alignof(astra_settings) <= _Alignof(max_align_t), "model_data aligns them");

/* The settings of sys, read-only and writable. */
static inline const astra_settings *astra_of(const th_system *sys) {
    return (const astra_settings *)(const void *)sys->model_data;
}
static inline astra_settings *astra_set(th_system *sys) {
    return (astra_settings *)(void *)sys->model_data;
}

extern const struct sys_model astra_sys;         /* astra_system.c */
extern const struct th_plan_model astra_planner; /* astra_model.c */
extern const struct emu_model astra_emu;         /* astra_emulate.c */
extern const th_model_ops astra_model_ops;       /* astra_ops.c */

/* The messages of a halvingDoubling phase of op on dim d with input s, in the order each NPU
 * sends them (HalvingDoubling.cc): each one's network time nt[k] (ns), the reduction that
 * follows its hand-over back red[k] (ns, 0: none) and the offset off[k] of the partner it
 * exchanges it with; the phase's time is ep + the sum of nt + ep + red (th_cost_astra_phase).
 * Returns how many (at most max), or -1 when the phase is not one (not a power of 2 NPUs, an
 * All-to-All) or they do not fit (astra_model.c). */
int astra_rhd_steps(const th_system *sys, const th_dim *d, th_op op, double s, double *nt,
                    double *red, int64_t *off, int max);

/* The same for a direct phase where every peer's message arrives at one tick (a switch, fully
 * connected, a ring of 2 or 3 NPUs, rings being bidirectional; AllToAll.cc): one round of
 * messages, an All-Reduce's two (the second leaving once the first is reduced); -1 on a ring of
 * more NPUs. */
int astra_direct_steps(const th_system *sys, const th_dim *d, th_op op, double s, double *nt,
                       double *red, int max);

/* The same on a ring of an even p > 2 NPUs, a Reduce-Scatter, All-Gather or All-to-All: the
 * messages of the peers h = 1 .. p / 2 hops away (both ways) arrive together, each nt[h - 1]
 * after they all left, their reductions red[h - 1]; -1 otherwise. */
int astra_direct_ring_steps(const th_system *sys, const th_dim *d, th_op op, double s, double *nt,
                            double *red, int max);

/* The NPUs' order of events at one instant (the graph rules' hooks, astra_emulate.c). */
int astra_issue_first(struct th_emu *emu, int64_t first);
int64_t astra_first_npu(const struct th_emu *emu, int id);
int64_t astra_timed_end(struct th_emu *emu, double t, double reg, int64_t first);
int astra_refused_hang(const struct th_emu *emu);

/* A trace replayed NPU by NPU (astra_npus.c, th_graph_rules.npus). */
struct th_ck_trace;
struct th_ck_opts;
struct th_ck_result;
struct th_ck_event;
int astra_npus_replay(const th_system *sys, const struct th_ck_trace *tr,
                      const struct th_ck_opts *o,
                      void (*trace)(void *ctx, const struct th_ck_event *ev), void *trace_ctx,
                      struct th_ck_result *res, int *handled, th_error *err);

#endif

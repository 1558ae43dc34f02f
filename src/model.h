/* The model interface: everything a model (the analytical one of SPEC §3-§6, or a preset that
 * reproduces another simulator) brings to the core, as one const table per model: its name,
 * what it can do (capability flags), its system-file hooks, its planner, its emulator and the
 * few hooks where the core reports a result the model's way. The registry
 * (model_registry.c) holds one table per th_model and is the only core file that names a
 * preset; the rest of the core asks through these tables and th_model_require.
 *
 * The modules below and above it (system, schedule, emulate, the presets) all use this
 * interface, so it takes their types as incomplete structs, and a th_model, a th_coll_type or
 * a th_policy as an int: an include of their headers would close a cycle.
 *
 * A new model: a folder src/presets/NAME/ whose files carry the prefix NAME_ (its system
 * hooks, planner, emulator rules, its settings struct in a private header, checked to fit
 * th_system.model_data, and NAME_ops.c with its th_model_ops), a value in th_model, and one
 * line in model_registry.c. */
#ifndef THEMIS_MODEL_H
#define THEMIS_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "themis/error.h"

/* What a model can do beyond running single collectives (th_model_require's `cap`). */
enum {
    TH_CAP_BOUND = 1u << 0,     /* the lower bound's program (th_bound_eval) */
    TH_CAP_LP = 1u << 1,        /* policy lp: the bound's mix of orders as a plan */
    TH_CAP_IDEAL_LAT = 1u << 2, /* the latency floor (--ideal-lat, "ideal_latency") */
    TH_CAP_TRAIN = 1u << 3,     /* training workloads (train, workload sweeps, optimize) */
    TH_CAP_CALIBRATE = 1u << 4, /* fitting its parameters to measurements */
    TH_CAP_ANY_COLL = 1u << 5,  /* every type, size and chunk count th_collective_validate
                                   accepts (else its planner refuses some: a sweep re-checks) */
    TH_CAP_AG_OUTPUT = 1u << 6, /* an All-Gather's size is its gathered output (SPEC §4);
                                   without it, what each NPU holds before, as ASTRA-sim counts */
};

struct th_system;     /* themis/system.h */
struct th_result;     /* themis/emulate.h */
struct sys_model;     /* system_internal.h */
struct emu_model;     /* emulate_internal.h */
struct th_plan_model; /* schedule_internal.h */
struct th_emu;        /* themis/emulate.h */

/* How a model replays an execution graph (a Chakra trace, src/chakra/): the analytical model's
 * rules when th_model_ops.graph is NULL (several collectives in flight, compute as written). */
struct th_ck_trace;
struct th_ck_opts;
struct th_ck_result;
struct th_ck_event;
typedef struct th_graph_rules {
    int serial_comm;    /* 1: one collective (or broadcast) in flight per NPU at a time */
    double min_compute; /* a compute node's least time, ns (a duration of 0 costs this) */
    /* 1: Themis's state carries across collectives as ASTRA-sim's rank 0 scheduler keeps it
     * (docs/CHAKRA.md): the first NPU to generate a collective schedules it with rank 0's
     * scheduler, from the loads rank 0's last schedule left when that NPU is not rank 0; 0:
     * every collective plans from fresh loads. */
    int themis_carry;
    /* Optional (NULL: rank 0 always acts first). The order in which the simulator takes the
     * NPUs' events at one instant, named by the NPU whose event it takes first (-1: not
     * known): issue_first tells emu the order of the event that issues its next collective
     * (th_emu_issue follows; -1 when out of memory), first_npu gives the order in which the
     * NPUs see collective id end (before it is released). */
    int (*issue_first)(struct th_emu *emu, int64_t first);
    int64_t (*first_npu)(const struct th_emu *emu, int id);
    /* Optional (NULL: its own order): a compute node registered at reg (ns) ends at t in the
     * order first; returns the order its end goes on in (-1: not known), where an event of a
     * collective at the same tick was registered before it, and makes that collective follow
     * the node's order where the node's end was registered first. */
    int64_t (*timed_end)(struct th_emu *emu, double t, double reg, int64_t first);
    /* Optional (NULL: never): 1 when sys costs a GPU compute node by a roofline, its memory
     * bandwidth (bytes/s) and peak (FLOP/s) in *bw and *peak; 0 to replay durations. */
    int (*roofline)(const struct th_system *sys, double *bw, double *peak);
    /* Optional (NULL: point-to-point nodes are refused): the time of a message of `bytes` from
     * NPU src to NPU dst, ns; < 0 when there is no such pair. */
    double (*message)(const struct th_system *sys, int64_t src, int64_t dst, double bytes);
    /* Optional (NULL: a group on any whole dims runs on them): 1 when a collective of
     * th_coll_type type on a process group of part of the system, the NPUs of dim alone, runs
     * as the same collective on that dim, else 0 (the group is refused). */
    int (*group_dim)(const struct th_system *sys, int type, int dim);
    /* Optional (NULL: none): replays a trace NPU by NPU, every event of every NPU in the
     * simulator's own order, where the replay refused it for an order of the NPUs' events it
     * does not follow (a plan that depends on it, or a tie it takes as one the simulator would
     * not finish). Sets *handled to 0, returning TH_OK, for a trace it does not replay so;
     * else to 1 with its result in res (rank 0's node events to trace when not NULL) or an
     * error, 2 when the simulator would not finish it (err says why). */
    int (*npus)(const struct th_system *sys, const struct th_ck_trace *tr,
                const struct th_ck_opts *o, void (*trace)(void *ctx, const struct th_ck_event *ev),
                void *trace_ctx, struct th_ck_result *res, int *handled, th_error *err);
    /* Optional (NULL: never): 1 when emu refused its run as one the simulator would not
     * finish (a tie of ends whose order it does not follow). */
    int (*refused_hang)(const struct th_emu *emu);
} th_graph_rules;

typedef struct th_model_ops {
    const char *name;            /* as a system file's "model" spells it */
    unsigned caps;               /* TH_CAP_* */
    const struct sys_model *sys; /* its system-file fields and checks */
    /* Its planner for sys (a model may pick one by its settings). */
    const struct th_plan_model *(*planner)(const struct th_system *sys);
    const struct emu_model *emu; /* its emulator rules */
    /* Optional (NULL: as emulated): finishes the result of one collective (of th_coll_type
     * type, size bytes) run alone as the simulator it reproduces reports it. */
    void (*finish)(const struct th_system *sys, int type, double size, struct th_result *res);
    /* Optional (NULL: dims[k].algorithm): names the algorithm dim k runs for th_coll_type
     * type, as the system file spells it, into buf of n bytes. */
    void (*alg_name)(const struct th_system *sys, int k, int type, char *buf, size_t n);
    /* Collective types, in th_coll_type order, whose algorithm may differ per dim (1: one for
     * every type). */
    int alg_types;
    /* Optional (NULL: every policy): whether a run of every policy (`themis run` without -p)
     * includes th_policy p on the dims of dims_mask (0: all). */
    int (*lists)(const struct th_system *sys, int p, uint32_t dims_mask);
    /* Optional (NULL: the analytical model's): how it replays execution graphs. */
    const th_graph_rules *graph;
} th_model_ops;

/* The registry (model_registry.c): the analytical model, the table by th_model and its
 * length, and the names in enum order (NULL-terminated). */
extern const th_model_ops th_model_clean;
extern const th_model_ops *const th_model_table[];
extern const unsigned th_model_count;
extern const char *const th_model_names[];

/* Model m (a th_model), or NULL when m is none. */
const th_model_ops *th_model_get(int m);

/* The model of th_model m: the analytical one for a value that is not a th_model (which
 * th_collective_validate and th_system_validate refuse). Inline: every run asks it. */
static inline const th_model_ops *th_model_at(int m) {
    return (unsigned)m < th_model_count ? th_model_table[m] : &th_model_clean;
}
/* The model of system sys (a const th_system *, its type complete where this is used). */
#define th_model_of(sys) th_model_at((int)(sys)->model)

/* 1 when the model of sys has every capability of cap, else 0. */
int th_model_has(const struct th_system *sys, unsigned cap);
/* TH_OK when the model of sys has every capability of cap; else TH_EINPUT with err saying
 * which model lacks what, after "who: " when who is not NULL (a file, a system). */
int th_model_require(const struct th_system *sys, unsigned cap, const char *who, th_error *err);

#endif

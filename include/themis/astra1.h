/* The ASTRA-sim 1.0 preset ("model": "astra-sim-1.0", docs/VALIDATION.md): the integer-ns cost
 * of one collective phase on one dim as ASTRA-sim 1.0's analytical backend computes it, the
 * single-collective (MICRO) report, and importing its network JSON and system text files. */
#ifndef THEMIS_ASTRA1_H
#define THEMIS_ASTRA1_H

#include "themis/cost.h"
#include "themis/emulate.h"
#include "themis/error.h"
#include "themis/schedule.h"

/* ASTRA-sim 1.0's collective implementations of one dim (its *-implementation lists). */
typedef enum { TH_A1_RING, TH_A1_HD, TH_A1_DIRECT } th_a1_impl;

/* Whose ASTRA-sim 1.0 the preset reproduces: the ASTRA-sim-1.0 branch or the
 * tutorial-asplos2023 tag (they differ in SCF and the Themis gap denominator). */
typedef enum { TH_A1_BRANCH, TH_A1_TUTORIAL } th_a1_version;

/* ASTRA-sim's names of th_a1_impl, in enum order: ring, halvingDoubling, direct (NULL-ended). */
extern const char *const th_a1_impl_names[];

/* One phase: op (RS, AG, AR or A2A) on dim d of a collective of type `type` (which picks the
 * dim's implementation: an All-Reduce's RS and AG phases use its allreduce implementation), on
 * an input of `in` bytes (an integer). Returns the phase's time in ns (an integer), and sets
 * *bytes (what one NPU sends) and *out (the phase's output size). Returns -1 when the phase
 * cannot be costed (a message over 2^31 ns or a reduction over 2^31 bytes, which overflow
 * ASTRA-sim's int fields); th_astra1_check finds those first. */
double th_astra1_phase(const th_system *sys, int d, th_coll_type type, th_op op, double in,
                       double *bytes, double *out);

/* How long before a phase's end ASTRA-sim 1.0 registers the event that ends it (its events of
 * one ns run in registration order): the local reduction of its last step when that step
 * reduces (PacketBundle), else the endpoint delay (MemBus); 0 means at the end itself. Same
 * arguments as th_astra1_phase; a reduction over 2^31 bytes gives -1. */
double th_astra1_phase_lag(const th_system *sys, int d, th_coll_type type, th_op op, double in);

/* The least and greatest th_astra1_phase_lag of the phases ending at th_emu_next(emu) on a 1.0
 * system's emulator; returns how many end then (0: none, *lo and *hi untouched). */
int th_astra1_ending_lags(const th_emu *emu, double *lo, double *hi);

/* ASTRA-sim 1.0's Themis state (OfflineGreedy's list): positions -> dims and their loads. It
 * persists across collectives generated at the same tick and is reset (index order, zero
 * loads) when a collective is generated at a later tick. */
typedef struct th_a1_tracker {
    int dim[TH_MAX_DIMS];     /* the dim at each position of the list */
    double load[TH_MAX_DIMS]; /* that entry's load, MiB scaled by relative bandwidth */
} th_a1_tracker;

void th_astra1_tracker_reset(th_a1_tracker *t, const th_system *sys);

/* th_sched_plan for a 1.0 system whose Themis starts from tracker t and leaves its state there
 * (any other policy plans as th_sched_plan does and leaves t alone). */
int th_astra1_plan(th_plan *plan, const th_system *sys, const th_collective *coll, th_policy policy,
                   th_a1_tracker *t, th_error *err);

/* Priorities of ASTRA-sim 1.0's Sys::get_priority: the system's scheduling-policy (None), an
 * explicit LIFO or FIFO request (the branch honours it; the tutorial tag uses the system's),
 * or HIGHEST (above every other, leaving the counter alone). */
typedef enum { TH_A1_PRIO_NONE, TH_A1_PRIO_LIFO, TH_A1_PRIO_FIFO, TH_A1_PRIO_HIGHEST } th_a1_prio;

/* th_emu_issue on a 1.0 system with a priority request (th_emu_issue uses TH_A1_PRIO_NONE). */
int th_astra1_issue(th_emu *emu, const th_plan *plan, double t, th_a1_prio prio, int *id,
                    th_error *err);

/* Whether policy roundrobin is ASTRA-sim 1.0's for a collective on dims_mask (0: all): always
 * for the other models; under astra-sim-1.0 only when every dim is active (ASTRA-sim rotates
 * over all dims). */
int th_astra1_roundrobin_ok(const th_system *sys, uint32_t dims_mask);

/* ASTRA-sim 1.0 reports a single collective (its MICRO workload, whose one layer's update time
 * is 1 cycle) 1 ns after the collective ends: adds that ns to a result of th_emu_result and
 * rescales what depends on the time. `size` is the collective's size. */
void th_astra1_micro(const th_system *sys, th_coll_type type, double size, th_result *res);

/* Which ASTRA-sim a file set comes from, judged by content: 1 for 1.0 (a JSON network with
 * "topologies-per-dim", or a `key: value` system text), 2 for 2.x (a YAML network). Reads the
 * first bytes of `network`; -1 (err set) when it cannot be read. */
int th_astra_detect(const char *network, th_error *err);

/* Converts an ASTRA-sim 1.0 network JSON (short or long form) and system text file into the
 * text of a themis system file under the 1.0 preset (*out, NUL-terminated, caller frees), with
 * the system's run defaults (chunks, policy, intra). version: TH_A1_BRANCH or TH_A1_TUTORIAL.
 * Unknown keys, bad values and settings the preset cannot reproduce are errors naming the file,
 * the line and the key. */
int th_astra1_import(const char *network_json, const char *system_txt, th_a1_version version,
                     char **out, th_error *err);

#endif

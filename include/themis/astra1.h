/* The ASTRA-sim 1.0 preset ("model": "astra-sim-1.0", docs/VALIDATION.md): the integer-ns cost
 * of one collective phase on one dim as ASTRA-sim 1.0's analytical backend computes it, the
 * single-collective (MICRO) report, and importing its network JSON and system text files. */
#ifndef THEMIS_ASTRA1_H
#define THEMIS_ASTRA1_H

#include "themis/cost.h"
#include "themis/emulate.h"
#include "themis/error.h"
#include "themis/schedule.h"

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

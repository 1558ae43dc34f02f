/* ASTRA-sim compatibility: importing an ASTRA-sim 2.x analytical network file (YAML) and,
 * optionally, its system JSON into a themis system file under the astra-sim preset (SPEC §9),
 * with the run defaults (chunks, policy, intra) that the system JSON sets; and the preset's
 * phase costs. */
#ifndef THEMIS_ASTRA_H
#define THEMIS_ASTRA_H

#include "themis/cost.h"
#include "themis/error.h"
#include "themis/schedule.h"

/* Converts network_yml (+ system_json, may be NULL) into the text of a themis system file
 * (*out, NUL-terminated, caller frees). Unmodelled settings (more than one active chunk per
 * dimension, implementations other than ring, ...) are errors, not approximations. When
 * system_json is NULL, *note is set to a sentence about the defaults used (else NULL). */
int th_astra_import(const char *network_yml, const char *system_json, char **out, const char **note,
                    th_error *err);

/* The algorithm dim k runs for a collective of this type under the preset: an All-Reduce (and an
 * All-to-All) its dims[k].algorithm, a Reduce-Scatter or an All-Gather its own when the system
 * gives one (dims[k].reducescatter, .allgather). */
th_algorithm th_astra_algorithm(const th_system *sys, th_coll_type type, int k);

/* Time (ns) of one message of `bytes` from NPU src to NPU dst (ranks, dim 0 fastest), as
 * ASTRA-sim's analytical backend sends a point-to-point message: on the first dim in which
 * their coordinates differ only, floor(hops latency + bytes / B); -1 when src = dst or either
 * is no NPU of sys. */
double th_astra_message(const th_system *sys, int64_t src, int64_t dst, double bytes);

/* Time (ns) and bytes one NPU sends of a phase of algorithm alg on dim d whose input is s bytes
 * (an integer); both -1 for A2A. */
void th_cost_astra_phase(const th_system *sys, const th_dim *d, th_algorithm alg, th_op op,
                         double s, double *time, double *bytes);

/* The preset's stage cost (SPEC §9): integer-ns time of a phase (RS, AG or AR) of d's algorithm
 * (ring, rhd = ASTRA-sim's halvingDoubling, direct) whose input is s bytes (an integer), with
 * the system's endpoint delay and local-memory bandwidth; -1 for A2A. */
double th_cost_astra_time(const th_system *sys, const th_dim *d, th_op op, double s);

/* Bytes one NPU sends in that phase (ring: (p-1) floor(s/p) for RS, (p-1) s for AG, twice the
 * RS amount for AR); -1 for A2A. */
double th_cost_astra_bytes(const th_system *sys, const th_dim *d, th_op op, double s);

#endif

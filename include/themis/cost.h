/* The closed-form cost of one stage on one dimension (SPEC §3): time and bytes. */
#ifndef THEMIS_COST_H
#define THEMIS_COST_H

#include "themis/system.h"

/* Stage operations; AR (a whole All-Reduce on one dim) exists only under the astra-sim
 * preset, whose baseline runs the last dim's two halves as one phase. */
typedef enum { TH_OP_RS, TH_OP_AG, TH_OP_A2A, TH_OP_AR } th_op;

const char *th_op_name(th_op op); /* "RS", "AG", "A2A", "AR" */

/* L: link hops on the stage's critical path for p NPUs (SPEC §3 table). Returns -1 for
 * a combination the spec rejects (direct or rhd on a ring). */
double th_cost_hops(th_topology topo, th_algorithm alg, int64_t p);

/* s(p) = floor(log2 p), plus 2 when p is not a power of two. */
int th_cost_log_steps(int64_t p);

/* Time in ns of a stage of full-vector size m bytes on dim d:
 * alpha L + m (p-1)/(p B) [+ m (p-1)/p / reduce_bw for RS when reduce_bw > 0]. */
double th_cost_time(const th_dim *d, double reduce_bw, th_op op, double m);

/* Bytes one NPU sends in that stage: m (p-1)/p. */
double th_cost_bytes(const th_dim *d, double m);

/* The astra-sim preset (SPEC §9): integer-ns time of a ring phase (RS, AG or AR) whose input
 * is s bytes (an integer), with the system's endpoint delay and local-memory bandwidth. */
double th_cost_astra_time(const th_system *sys, const th_dim *d, th_op op, double s);

/* Bytes one NPU sends in that phase: (p-1) floor(s/p) for RS, (p-1) s for AG, twice the RS
 * amount for AR. */
double th_cost_astra_bytes(const th_dim *d, th_op op, double s);

#endif

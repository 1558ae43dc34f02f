/* The closed-form costs of the analytical model (SPEC §3): one stage on one dimension, time and
 * bytes, and one point-to-point message between two NPUs. */
#ifndef THEMIS_COST_H
#define THEMIS_COST_H

#include "themis/export.h"
#include "themis/system.h"

/* Stage operations; AR (a whole All-Reduce on one dim) exists only under the astra-sim
 * preset, whose baseline runs the last dim's two halves as one phase (its costs: astra.h). */
typedef enum { TH_OP_RS, TH_OP_AG, TH_OP_A2A, TH_OP_AR } th_op;

TH_API const char *th_op_name(th_op op); /* "RS", "AG", "A2A", "AR" */

/* L: link hops on the stage's critical path for p NPUs (SPEC §3 table). Returns -1 for
 * a combination the spec rejects (direct or rhd on a ring). */
TH_API double th_cost_hops(th_topology topo, th_algorithm alg, int64_t p);

/* s(p) = floor(log2 p), plus 2 when p is not a power of two. */
TH_API int th_cost_log_steps(int64_t p);

/* Time in ns of a stage of full-vector size m bytes on dim d:
 * alpha L + m (p-1)/(p B) [+ m (p-1)/p / reduce_bw for RS when reduce_bw > 0]. */
TH_API double th_cost_time(const th_dim *d, double reduce_bw, th_op op, double m);

/* Bytes one NPU sends in that stage: m (p-1)/p. */
TH_API double th_cost_bytes(const th_dim *d, double m);

/* A collective's latency floor, ns: the latencies alpha_d L_d of one chunk's stages on its
 * critical path, summed over the active dims of dims_mask (0 = all; dims with p > 1), twice
 * for an All-Reduce (its RS and AG stages). No schedule ends a collective sooner than its
 * bytes at the summed bandwidth plus this. */
TH_API double th_cost_latency_floor(const th_system *sys, int allreduce, uint32_t dims_mask);

/* Time in ns of a point-to-point message of `bytes` from NPU src to NPU dst (SPEC §3), cut
 * through the dims in which their coordinates differ: the sum of each such dim's alpha times its
 * hops (ring: the shorter way round, fc 1, switch 2), plus bytes at the least B among them.
 * Returns -1 when src or dst is not an NPU of sys, or src == dst. */
TH_API double th_cost_message(const th_system *sys, int64_t src, int64_t dst, double bytes);

#endif

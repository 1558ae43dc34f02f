/* The optimal bound (clean model): the least time any choice of per-chunk dim orders can give
 * one collective, as a linear program solved with GLPK, and the program's mix of orders.
 *
 * Every dim serves one stage at a time, so a collective takes at least the busy time of its
 * busiest dim. The latency part of a dim's busy time is the same for every order (each chunk
 * visits each active dim once per phase); the bandwidth part depends only on the set of dims a
 * chunk visited before it (its stage size is c over their product). The least maximum busy
 * time over fractional mixes of orders is a linear program; it is written either over the K!
 * orders or as a flow on the lattice of dim subsets (K 2^(K-1) variables), the same optimum.
 * A collective also takes at least the time of one chunk alone (its stages in sequence), which
 * makes the bound exact at one chunk. The bound is the larger of the two, computed from the
 * program's dual weights (so it is a true lower bound whatever the solver's rounding), less a
 * relative margin of (stages + 64) x DBL_EPSILON for the emulator's own summation rounding.
 *
 * The solver's per-thread environment is freed after each call (glp_free_env): do not keep
 * GLPK problems of your own alive across these calls in the same thread. */
#ifndef THEMIS_BOUND_H
#define THEMIS_BOUND_H

#include <stdint.h>

#include "themis/collective.h"
#include "themis/export.h"
#include "themis/system.h"

/* Active dims beyond which the bound is refused (the flow program has K 2^(K-1) columns:
 * 24576 at 12, solved in well under a second). */
#define TH_BOUND_MAX_DIMS 12

/* Which program: the flow on the subset lattice above 4 active dims, the orders up to 4. */
typedef enum { TH_BOUND_AUTO, TH_BOUND_ORDERS, TH_BOUND_FLOW } th_bound_form;

typedef struct th_bound {
    double time;                /* the lower bound, ns */
    double busy;                /* least maximum busy time over mixes of orders, ns */
    double chain;               /* the shortest one chunk alone (stages in sequence), ns */
    double weight[TH_MAX_DIMS]; /* the program's dual weight of each system dim (sum 1) */
} th_bound;

/* The bound of one collective (AR, RS, AG, or A2A, whose orders are fixed). Refuses the
 * astra-sim preset and more than TH_BOUND_MAX_DIMS active dims (TH_EINPUT). */
TH_API int th_bound_eval(const th_system *sys, const th_collective *coll, th_bound_form form,
                         th_bound *b, th_error *err);

/* 1 when the bound (and policy lp) can be computed for this system and set of involved dims
 * (0 = all): the analytical model and at most TH_BOUND_MAX_DIMS active dims. */
TH_API int th_bound_supported(const th_system *sys, uint32_t dims_mask);

/* The program's mix of orders: norders orders (RS order for AR and RS, AG order for AG, as
 * in th_plan) with the fraction of chunks each gets (sum 1). */
typedef struct th_bound_mix {
    int n;           /* active dims per order */
    int norders;     /* orders with a positive fraction */
    uint8_t *orders; /* norders x n system dim indices */
    double *frac;    /* norders fractions */
} th_bound_mix;

/* Solves the flow program of coll and decomposes its optimum into orders. AR, RS, AG only.
 * Free with th_bound_mix_free (also after a failure). */
TH_API int th_bound_mix_solve(const th_system *sys, const th_collective *coll, th_bound_mix *mix,
                              th_error *err);
TH_API void th_bound_mix_free(th_bound_mix *mix);

#endif

/* The optimal bound of one collective (clean model) and the mix of orders that reaches it: a
 * linear program over the K! orders or over the flow on the lattice of dim subsets (GLPK). */
#include <float.h>
#include <glpk.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "themis/bound.h"
#include "themis/cost.h"

/* One collective reduced to what the program needs, over the active dims 0 .. k-1. */
typedef struct problem {
    int k;                    /* active dims */
    int dim[TH_MAX_DIMS];     /* system dim of each active dim */
    double npus[TH_MAX_DIMS]; /* p */
    double lat[TH_MAX_DIMS];  /* per-chunk latency on the dim (both halves for AR), ns */
    double coef[TH_MAX_DIMS]; /* ns per byte of stage size m (both halves for AR) */
    double *prod;             /* 2^k: product of p over each subset */
    double chunks, size;      /* C and S */
    int a2a;                  /* All-to-All: m = c on every dim, no order matters */
    int stages;               /* stages per chunk */
} problem;

static int setup(problem *pr, const th_system *sys, const th_collective *coll, th_error *err) {
    memset(pr, 0, sizeof *pr);
    if (th_collective_validate(sys, coll, err)) return err->code;
    if (sys->model != TH_MODEL_ANALYTICAL)
        return th_error_set(err, TH_EINPUT,
                            "system \"%s\": the bound holds for the analytical model only, not "
                            "the %s preset (its integer sizes and queue rules are not in the "
                            "program)",
                            sys->name, th_model_name(sys->model));
    uint32_t mask = coll->dims_mask ? coll->dims_mask : 0xffffffffu;
    for (int d = 0; d < sys->ndims; d++)
        if (((mask >> d) & 1u) && sys->dims[d].npus > 1) {
            if (pr->k == TH_BOUND_MAX_DIMS)
                return th_error_set(err, TH_EINPUT,
                                    "system \"%s\": the bound is exact up to %d active dims; "
                                    "this collective has more (use --dims to involve fewer)",
                                    sys->name, TH_BOUND_MAX_DIMS);
            pr->dim[pr->k++] = d;
        }
    int ar = coll->type == TH_COLL_ALLREDUCE;
    th_op op = coll->type == TH_COLL_ALLGATHER  ? TH_OP_AG
               : coll->type == TH_COLL_ALLTOALL ? TH_OP_A2A
                                                : TH_OP_RS;
    double gamma = sys->reduce_bw > 0 ? 1.0 / sys->reduce_bw : 0.0;
    for (int i = 0; i < pr->k; i++) {
        const th_dim *d = &sys->dims[pr->dim[i]];
        double p = (double)d->npus, f = (p - 1.0) / p;
        pr->npus[i] = p;
        pr->lat[i] = th_cost_time(d, sys->reduce_bw, op, 0.0) * (ar ? 2.0 : 1.0);
        if (ar)
            pr->coef[i] = f * (2.0 / d->bw + gamma);
        else
            pr->coef[i] = f * (1.0 / d->bw + (op == TH_OP_RS ? gamma : 0.0));
    }
    pr->chunks = (double)coll->chunks;
    pr->size = coll->size;
    pr->a2a = coll->type == TH_COLL_ALLTOALL;
    pr->stages = ar ? 2 * pr->k : pr->k;
    size_t nsub = (size_t)1 << pr->k;
    pr->prod = malloc(nsub * sizeof(double));
    if (!pr->prod) return th_error_set(err, TH_EINTERNAL, "out of memory");
    pr->prod[0] = 1;
    for (size_t q = 1; q < nsub; q++) {
        int low = __builtin_ctz((unsigned)q);
        pr->prod[q] = pr->prod[q & (q - 1)] * pr->npus[low];
    }
    return TH_OK;
}

/* Divisor of dim i's stage size when the dims of set q came before it (1 for All-to-All). */
static double divisor(const problem *pr, unsigned q) {
    return pr->a2a ? 1.0 : pr->prod[q];
}

/* The least, over orders, of sum_i w_i coef_i / divisor(dims before i): a shortest path from
 * the empty set to all dims on the subset lattice. g is 2^k scratch. */
static double cheapest_order(const problem *pr, const double *w, double *g) {
    size_t nsub = (size_t)1 << pr->k;
    g[0] = 0;
    for (size_t q = 1; q < nsub; q++) {
        double best = INFINITY;
        for (int i = 0; i < pr->k; i++)
            if ((q >> i) & 1u) {
                unsigned from = (unsigned)q & ~(1u << i);
                double v = g[from] + w[i] * pr->coef[i] / divisor(pr, from);
                if (v < best) best = v;
            }
        g[q] = best;
    }
    return g[nsub - 1];
}

/* Column of flow variable f(q, i) (dim i with set q before it, i not in q), 1-based, after T. */
static int flow_col(int k, unsigned q, int i) {
    unsigned low = q & ((1u << i) - 1u), high = (q >> (i + 1)) << i; /* q without bit i */
    return 2 + i * (1 << (k - 1)) + (int)(low | high);
}

/* Builds and solves the program; fills y (dual weight per active dim) and, when flow is not
 * NULL, the optimal flow f(q, i) at flow[i << k | q]. */
static int solve(const problem *pr, th_bound_form form, double *y, double *flow, th_error *err) {
    int k = pr->k;
    double scale = 0; /* keeps the program's numbers near 1 */
    for (int i = 0; i < k; i++)
        scale = fmax(scale, pr->chunks * pr->lat[i] + pr->size * pr->coef[i]);
    int norders = 1;
    for (int i = 2; i <= k; i++)
        norders *= i;
    int orders = form == TH_BOUND_ORDERS || (form == TH_BOUND_AUTO && k <= 4);
    if (flow) orders = 0;
    int ncols = 1 + (orders ? norders : k << (k - 1));
    int nrows = k + (orders ? 1 : (1 << k) - 1); /* busy rows, then conservation */
    size_t nz_max = (size_t)(ncols - 1) * (orders ? (size_t)k + 1 : 3) + (size_t)k + 1;
    int *ia = malloc((nz_max + 1) * sizeof(int)), *ja = malloc((nz_max + 1) * sizeof(int));
    double *ar = malloc((nz_max + 1) * sizeof(double));
    if (!ia || !ja || !ar) {
        free(ia), free(ja), free(ar);
        return th_error_set(err, TH_EINTERNAL, "out of memory");
    }
    int nz = 0;
#define PUT(r, c, v) (ia[++nz] = (r), ja[nz] = (c), ar[nz] = (v))
    for (int i = 0; i < k; i++)
        PUT(i + 1, 1, 1.0); /* T - bandwidth part >= latency part */
    if (orders) {
        int perm[TH_MAX_DIMS];
        for (int i = 0; i < k; i++)
            perm[i] = i;
        for (int col = 2; col <= ncols; col++) {
            unsigned before = 0;
            for (int j = 0; j < k; j++) {
                int i = perm[j];
                PUT(i + 1, col, -pr->size * pr->coef[i] / divisor(pr, before) / scale);
                before |= 1u << i;
            }
            PUT(k + 1, col, 1.0);
            /* next permutation in lexicographic order */
            int a = k - 2;
            while (a >= 0 && perm[a] > perm[a + 1])
                a--;
            if (a < 0) break;
            int b = k - 1;
            while (perm[b] < perm[a])
                b--;
            int t = perm[a];
            perm[a] = perm[b], perm[b] = t;
            for (int l = a + 1, r = k - 1; l < r; l++, r--)
                t = perm[l], perm[l] = perm[r], perm[r] = t;
        }
    } else {
        unsigned full = (1u << k) - 1u;
        for (int i = 0; i < k; i++)
            for (unsigned q = 0; q <= full; q++) {
                if ((q >> i) & 1u) continue;
                int col = flow_col(k, q, i);
                PUT(i + 1, col, -pr->size * pr->coef[i] / divisor(pr, q) / scale);
                /* conservation at set q (outflow) and at q + i (inflow); row k + 1 is the
                 * source (q = 0: total outflow 1), rows k + q for 0 < q < full */
                PUT(k + 1 + (q ? (int)q : 0), col, q ? -1.0 : 1.0);
                unsigned to = q | (1u << i);
                if (to != full) PUT(k + 1 + (int)to, col, 1.0);
            }
    }
#undef PUT
    glp_term_out(GLP_OFF);
    glp_prob *lp = glp_create_prob();
    glp_set_obj_dir(lp, GLP_MIN);
    glp_add_rows(lp, nrows);
    glp_add_cols(lp, ncols);
    for (int i = 0; i < k; i++)
        glp_set_row_bnds(lp, i + 1, GLP_LO, pr->chunks * pr->lat[i] / scale, 0.0);
    glp_set_row_bnds(lp, k + 1, GLP_FX, 1.0, 1.0);
    for (int r = k + 2; r <= nrows; r++)
        glp_set_row_bnds(lp, r, GLP_FX, 0.0, 0.0);
    glp_set_col_bnds(lp, 1, GLP_FR, 0.0, 0.0);
    glp_set_obj_coef(lp, 1, 1.0);
    for (int c = 2; c <= ncols; c++)
        glp_set_col_bnds(lp, c, GLP_LO, 0.0, 0.0);
    glp_load_matrix(lp, nz, ia, ja, ar);
    free(ia), free(ja), free(ar);
    glp_smcp parm;
    glp_init_smcp(&parm);
    parm.msg_lev = GLP_MSG_OFF;
    parm.presolve = GLP_ON;
    int rc = glp_simplex(lp, &parm);
    int status = glp_get_status(lp);
    if (rc != 0 || status != GLP_OPT) {
        glp_delete_prob(lp);
        glp_free_env();
        return th_error_set(err, TH_EINTERNAL,
                            "bound: the linear program was not solved (GLPK status %d, code %d)",
                            status, rc);
    }
    double sum = 0;
    for (int i = 0; i < k; i++)
        sum += y[i] = fmax(0.0, glp_get_row_dual(lp, i + 1));
    for (int i = 0; i < k; i++)
        y[i] = sum > 0 ? y[i] / sum : 1.0 / k;
    if (flow) {
        unsigned full = (1u << k) - 1u;
        for (int i = 0; i < k; i++)
            for (unsigned q = 0; q <= full; q++)
                flow[((size_t)i << k) | q] =
                    (q >> i) & 1u ? 0.0 : fmax(0.0, glp_get_col_prim(lp, flow_col(k, q, i)));
    }
    glp_delete_prob(lp);
    glp_free_env();
    return TH_OK;
}

int th_bound_eval(const th_system *sys, const th_collective *coll, th_bound_form form, th_bound *b,
                  th_error *err) {
    problem pr;
    memset(b, 0, sizeof *b);
    if (setup(&pr, sys, coll, err)) return free(pr.prod), err->code;
    int k = pr.k;
    double y[TH_MAX_DIMS], ones[TH_MAX_DIMS];
    double *g = malloc(((size_t)1 << k) * sizeof(double));
    if (!g) return free(pr.prod), th_error_set(err, TH_EINTERNAL, "out of memory");
    for (int i = 0; i < k; i++)
        ones[i] = 1.0;
    if (pr.a2a || k == 1) { /* one order: the busiest dim's weight is 1 */
        int top = 0;
        for (int i = 0; i < k; i++) {
            y[i] = 0;
            double busy = pr.chunks * pr.lat[i] + pr.size * pr.coef[i];
            if (busy > pr.chunks * pr.lat[top] + pr.size * pr.coef[top]) top = i;
        }
        y[top] = 1;
    } else if (solve(&pr, form, y, NULL, err)) {
        return free(g), free(pr.prod), err->code;
    }
    /* Weak duality: for weights y >= 0 summing to 1, max_i busy_i >= sum_i y_i busy_i, and
     * each chunk adds at least the cheapest order's weighted bandwidth part. */
    double lat = 0, chain_lat = 0;
    for (int i = 0; i < k; i++) {
        lat += y[i] * pr.chunks * pr.lat[i];
        chain_lat += pr.lat[i];
    }
    b->busy = lat + pr.size * cheapest_order(&pr, y, g);
    b->chain = chain_lat + pr.size / pr.chunks * cheapest_order(&pr, ones, g);
    double margin = (pr.chunks * pr.stages + 64.0) * DBL_EPSILON;
    b->time = fmax(b->busy, b->chain) * (1.0 - margin);
    for (int i = 0; i < k; i++)
        b->weight[pr.dim[i]] = y[i];
    free(g);
    free(pr.prod);
    return TH_OK;
}

int th_bound_supported(const th_system *sys, uint32_t dims_mask) {
    uint32_t mask = dims_mask ? dims_mask : 0xffffffffu;
    int k = 0;
    for (int d = 0; d < sys->ndims; d++)
        k += ((mask >> d) & 1u) && sys->dims[d].npus > 1;
    return sys->model == TH_MODEL_ANALYTICAL && k <= TH_BOUND_MAX_DIMS;
}

void th_bound_mix_free(th_bound_mix *mix) {
    free(mix->orders);
    free(mix->frac);
    memset(mix, 0, sizeof *mix);
}

int th_bound_mix_solve(const th_system *sys, const th_collective *coll, th_bound_mix *mix,
                       th_error *err) {
    problem pr;
    memset(mix, 0, sizeof *mix);
    if (setup(&pr, sys, coll, err)) return free(pr.prod), err->code;
    if (pr.a2a)
        return free(pr.prod),
               th_error_set(err, TH_EINPUT, "bound: an All-to-All has no orders to mix");
    int k = pr.k, ag = coll->type == TH_COLL_ALLGATHER;
    size_t nflow = (size_t)k << k;
    double y[TH_MAX_DIMS], *flow = calloc(nflow, sizeof(double));
    /* every path zeroes at least one edge: at most k 2^(k-1) orders */
    size_t cap = ((size_t)k << (k - 1)) + 1;
    mix->orders = malloc(cap * (size_t)k);
    mix->frac = malloc(cap * sizeof(double));
    if (!flow || !mix->orders || !mix->frac) {
        free(flow), free(pr.prod);
        return th_error_set(err, TH_EINTERNAL, "out of memory");
    }
    mix->n = k;
    if (k == 1) {
        flow[0] = 1.0;
    } else if (solve(&pr, TH_BOUND_FLOW, y, flow, err)) {
        return free(flow), free(pr.prod), err->code;
    }
    /* Path decomposition: follow the largest outflow from the empty set, take the path's
     * smallest edge, subtract; stop when what is left is rounding noise. */
    double left = 1.0;
    while (left > 1e-9 && (size_t)mix->norders < cap) {
        unsigned q = 0;
        int path[TH_MAX_DIMS];
        double amount = INFINITY;
        for (int j = 0; j < k; j++) {
            int best = -1;
            for (int i = 0; i < k; i++)
                if (!((q >> i) & 1u) &&
                    (best < 0 || flow[((size_t)i << k) | q] > flow[((size_t)best << k) | q]))
                    best = i;
            amount = fmin(amount, flow[((size_t)best << k) | q]);
            path[j] = best;
            q |= 1u << best;
        }
        if (!(amount > 1e-12)) break;
        q = 0;
        uint8_t *o = mix->orders + (size_t)mix->norders * (size_t)k;
        for (int j = 0; j < k; j++) {
            flow[((size_t)path[j] << k) | q] -= amount;
            q |= 1u << path[j];
            /* the AG order lists the dims whose sizes divide a stage after it */
            o[ag ? k - 1 - j : j] = (uint8_t)pr.dim[path[j]];
        }
        mix->frac[mix->norders++] = amount;
        left -= amount;
    }
    double sum = 0;
    for (int i = 0; i < mix->norders; i++)
        sum += mix->frac[i];
    for (int i = 0; i < mix->norders; i++)
        mix->frac[i] /= sum;
    free(flow);
    free(pr.prod);
    if (mix->norders == 0) return th_error_set(err, TH_EINTERNAL, "bound: empty mix of orders");
    return TH_OK;
}

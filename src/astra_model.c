/* The ASTRA-sim preset's model (SPEC §9): integer-ns ring phases and their bytes, and its
 * planner (All-Reduce only, whole-byte chunks, the baseline's last dim as one AR phase, its
 * own Themis). The emulator rules are in astra_emulate.c. */
#include <math.h>
#include <string.h>

#include "schedule_internal.h"
#include "themis/astra.h"

/* One message of b bytes: floor(hops * latency + b / B); a switch is two hops. */
static double net(const th_dim *d, double b) {
    double hops = d->topology == TH_TOPO_SWITCH ? 2.0 : 1.0;
    return floor(hops * d->latency + b / d->bw);
}

/* Reducing b bytes: three local-memory passes, each truncated to whole ns. */
static double proc(const th_system *sys, double b) {
    return 3.0 * floor(b / (sys->local_mem_GBps * 1e9) * 1e9);
}

double th_cost_astra_time(const th_system *sys, const th_dim *d, th_op op, double s) {
    double p = (double)d->npus, ep = sys->endpoint;
    double part = floor(s / p);
    switch (op) {
    case TH_OP_RS: return ep + (p - 1) * (net(d, part) + ep) + (p - 1) * proc(sys, part);
    case TH_OP_AG: return ep + (p - 1) * (net(d, s) + ep);
    case TH_OP_AR: return ep + 2 * (p - 1) * (net(d, part) + ep) + (p - 1) * proc(sys, part);
    case TH_OP_A2A: break;
    }
    return -1;
}

double th_cost_astra_bytes(const th_dim *d, th_op op, double s) {
    double p = (double)d->npus;
    switch (op) {
    case TH_OP_RS: return (p - 1) * floor(s / p);
    case TH_OP_AG: return (p - 1) * s;
    case TH_OP_AR: return 2 * (p - 1) * floor(s / p);
    case TH_OP_A2A: break;
    }
    return -1;
}

static int check(const th_system *sys, const th_collective *coll, th_error *err) {
    (void)sys;
    if (coll->type != TH_COLL_ALLREDUCE)
        return th_error_set(err, TH_EINPUT,
                            "collective: the astra-sim preset models allreduce only, got %s",
                            th_coll_type_name(coll->type));
    if (floor(coll->size / (double)coll->chunks) < 1)
        return th_error_set(err, TH_EINPUT,
                            "chunks: the astra-sim preset needs whole-byte chunks, and %.17g "
                            "bytes in %lld chunks is less than 1 byte each",
                            coll->size, (long long)coll->chunks);
    return TH_OK;
}

/* c = floor(S / C); the baseline merges the last dim's RS and AG into one AR phase. */
static void shape(th_plan *plan) {
    plan->chunk = floor(plan->size / (double)plan->chunks);
    plan->nstages = plan->policy == TH_POLICY_BASELINE ? 2 * plan->n - 1 : 2 * plan->n;
}

/* The astra-sim preset's Themis (SPEC §9): loads in MiB scaled by dim 0's bandwidth, a
 * persistent dim list stably re-sorted per chunk, reset to index order on a fallback. */
static void themis(th_plan *plan, const th_system *sys, th_load_model model, const int *base) {
    (void)model; /* the preset has one load model */
    int n = plan->n, list[TH_MAX_DIMS];
    memcpy(list, base, sizeof(int) * (size_t)n);
    double *load = plan->load, b0 = sys->dims[0].bw, c = plan->chunk;
    for (int64_t i = 0; i < plan->chunks; i++) {
        for (int a = 1; a < n; a++) { /* stable: equal loads keep their places */
            int d = list[a], j = a - 1;
            while (j >= 0 && load[list[j]] > load[d]) {
                list[j + 1] = list[j];
                j--;
            }
            list[j + 1] = d;
        }
        int lo = list[0], hi = list[n - 1];
        double plo = plan->npus[lo];
        double gap =
            floor((load[hi] - load[lo]) * (sys->dims[lo].bw / b0) / ((plo - 1) / plo) * 1048576.0);
        if (gap < floor(c / 16)) memcpy(list, base, sizeof(int) * (size_t)n);
        uint8_t *o = plan->order + (size_t)i * (size_t)n;
        double s = c;
        for (int j = 0; j < n; j++) {
            int d = list[j];
            double p = plan->npus[d];
            o[j] = (uint8_t)d;
            load[d] += s / 1048576.0 * ((p - 1) / p) / (sys->dims[d].bw / b0);
            s = floor(s / p);
        }
    }
}

/* Phases: RS over the order with integer sizes s_0 = c, s_{j+1} = floor(s_j / p),
 * then AG back with input s_{k+1}; the baseline runs the last dim as one AR phase. */
static void stage(const th_plan *plan, const uint8_t *o, int j, int *dim, th_op *op, double *m) {
    int n = plan->n, k;
    if (plan->policy == TH_POLICY_BASELINE) {
        k = j < n ? j : 2 * n - 2 - j;
        *op = j < n - 1 ? TH_OP_RS : j == n - 1 ? TH_OP_AR : TH_OP_AG;
    } else {
        k = j < n ? j : 2 * n - 1 - j;
        *op = j < n ? TH_OP_RS : TH_OP_AG;
    }
    *dim = o[k];
    int upto = *op == TH_OP_AG ? k + 1 : k; /* an AG takes the size after its dim's RS */
    double s = plan->chunk;
    for (int l = 0; l < upto; l++)
        s = floor(s / plan->npus[o[l]]);
    *m = s;
}

const th_plan_model sched_astra_model = {check, shape, themis, stage};

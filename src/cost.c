/* The closed-form alpha-beta(-gamma) cost of one stage on one dimension (SPEC §3), and the
 * ASTRA-sim preset's integer-ns ring phases (SPEC §9). */
#include <math.h>

#include "themis/cost.h"

const char *th_op_name(th_op op) {
    switch (op) {
    case TH_OP_RS: return "RS";
    case TH_OP_AG: return "AG";
    case TH_OP_A2A: return "A2A";
    case TH_OP_AR: return "AR";
    }
    return "?";
}

int th_cost_log_steps(int64_t p) {
    int s = 0;
    while (s < 62 && ((int64_t)1 << (s + 1)) <= p)
        s++;
    return (p & (p - 1)) == 0 ? s : s + 2;
}

double th_cost_hops(th_topology topo, th_algorithm alg, int64_t p) {
    double ring = (double)(p - 1);
    switch (topo) {
    case TH_TOPO_RING: return alg == TH_ALG_RING ? ring : -1.0;
    case TH_TOPO_FC:
        if (alg == TH_ALG_RING) return ring;
        if (alg == TH_ALG_DIRECT) return 1.0;
        return (double)th_cost_log_steps(p);
    case TH_TOPO_SWITCH:
        if (alg == TH_ALG_RING) return 2.0 * ring;
        if (alg == TH_ALG_DIRECT) return 2.0;
        return 2.0 * th_cost_log_steps(p);
    }
    return -1.0;
}

double th_cost_bytes(const th_dim *d, double m) {
    double p = (double)d->npus;
    return m * (p - 1.0) / p;
}

double th_cost_time(const th_dim *d, double reduce_bw, th_op op, double m) {
    double p = (double)d->npus;
    double t =
        d->latency * th_cost_hops(d->topology, d->algorithm, d->npus) + m * (p - 1.0) / (p * d->bw);
    if (op == TH_OP_RS && reduce_bw > 0.0) t += m * (p - 1.0) / p / reduce_bw;
    return t;
}

/* One message of b bytes: floor(hops * latency + b / B); a switch is two hops. */
static double astra_net(const th_dim *d, double b) {
    double hops = d->topology == TH_TOPO_SWITCH ? 2.0 : 1.0;
    return floor(hops * d->latency + b / d->bw);
}

/* Reducing b bytes: three local-memory passes, each truncated to whole ns. */
static double astra_proc(const th_system *sys, double b) {
    return 3.0 * floor(b / (sys->local_mem_GBps * 1e9) * 1e9);
}

double th_cost_astra_time(const th_system *sys, const th_dim *d, th_op op, double s) {
    double p = (double)d->npus, ep = sys->endpoint;
    double part = floor(s / p);
    switch (op) {
    case TH_OP_RS:
        return ep + (p - 1) * (astra_net(d, part) + ep) + (p - 1) * astra_proc(sys, part);
    case TH_OP_AG: return ep + (p - 1) * (astra_net(d, s) + ep);
    case TH_OP_AR:
        return ep + 2 * (p - 1) * (astra_net(d, part) + ep) + (p - 1) * astra_proc(sys, part);
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

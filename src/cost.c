/* The closed-form alpha-beta(-gamma) costs (SPEC §3): one stage on one dimension, one
 * point-to-point message. */
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

double th_cost_latency_floor(const th_system *sys, int allreduce, uint32_t dims_mask) {
    double f = 0;
    for (int d = 0; d < sys->ndims; d++) {
        const th_dim *dd = &sys->dims[d];
        if ((dims_mask && !((dims_mask >> d) & 1u)) || dd->npus < 2) continue;
        f += dd->latency * th_cost_hops(dd->topology, dd->algorithm, dd->npus);
    }
    return allreduce ? 2 * f : f;
}

double th_cost_message(const th_system *sys, int64_t src, int64_t dst, double bytes) {
    if (src == dst || src < 0 || dst < 0 || (double)src >= sys->npus || (double)dst >= sys->npus)
        return -1;
    double lat = 0, bw = 0;
    for (int d = 0; d < sys->ndims; d++) {
        const th_dim *dd = &sys->dims[d];
        int64_t p = dd->npus, a = src % p, b = dst % p;
        src /= p, dst /= p;
        if (a == b) continue;
        int64_t k = (b - a + p) % p;
        double hops = dd->topology == TH_TOPO_RING ? (double)(k < p - k ? k : p - k)
                      : dd->topology == TH_TOPO_FC ? 1.0
                                                   : 2.0;
        lat += dd->latency * hops;
        if (bw == 0 || dd->bw < bw) bw = dd->bw;
    }
    return lat + bytes / bw;
}

/* The ASTRA-sim 2.x preset's model (SPEC §9): integer-ns phases of its ring, halvingDoubling
 * and direct algorithms and their bytes, and its planner (All-Reduce, Reduce-Scatter and
 * All-Gather; its chunk count and sizes; the baseline's last dim as one AR phase; its Themis).
 * The emulator rules are in astra_emulate.c. */
#include <math.h>
#include <string.h>

#include "astra_preset.h"
#include "schedule_internal.h"
#include "themis/astra.h"

/* Link hops from an NPU to the one `off` places further along its dim: the shorter way round
 * a (bidirectional) ring, one hop on a fully connected dim, two through a switch. */
static double hops(const th_dim *d, double off) {
    if (d->topology == TH_TOPO_SWITCH) return 2.0;
    if (d->topology == TH_TOPO_FC) return 1.0;
    double p = (double)d->npus;
    off = fmod(off, p);
    return off < p - off ? off : p - off;
}

/* One message of b bytes over h hops: floor(h * latency + b / B). */
static double net(const th_dim *d, double h, double b) {
    return floor(h * d->latency + b / d->bw);
}

/* Reducing b bytes: three local-memory passes, each truncated to whole ns. */
static double proc(const th_system *sys, double b) {
    return 3.0 * floor(b / (astra_of(sys)->local_mem_GBps * 1e9) * 1e9);
}

/* log2 p for a power of two p (halvingDoubling's steps). */
static int steps(double p) {
    int l = 0;
    for (double q = 1; q < p; q *= 2)
        l++;
    return l;
}

/* direct, window p - 1 (every peer at once; on a ring the peer j places on is min(j, p - j)
 * hops away), after the phase's first ep: an AG sends s to every peer and ends ep after the
 * last arrives; an RS sends s/p and ends when the last arrival is reduced. An AR then sends
 * its second round: the j-th reduced message (in arrival order, from ceil(j/2) hops on a ring)
 * goes to the NPU j places on, leaving when it is reduced but not before the first reduction
 * that ends after every first-round message arrived; the phase ends ep after the last arrival. */
static double direct(const th_system *sys, const th_dim *d, th_op op, double s, double *bytes) {
    double p = (double)d->npus, ep = astra_of(sys)->endpoint, part = floor(s / p);
    double far = hops(d, floor(p / 2)), pr = proc(sys, part);
    if (op == TH_OP_AG) {
        *bytes = (p - 1) * s;
        return net(d, far, s) + ep;
    }
    double last = net(d, far, part); /* the last first-round arrival */
    *bytes = (op == TH_OP_AR ? 2 : 1) * (p - 1) * part;
    if (op == TH_OP_RS) return last + ep + pr;
    if (d->topology != TH_TOPO_RING) return last + ep + pr + net(d, far, part) + ep;
    /* reduced(j) grows with j: go is the first reduction ending once all have arrived */
    double go = 0, finish = 0;
    for (int64_t j = 1; j < d->npus && go < last; j++)
        go = net(d, (double)((j + 1) / 2), part) + ep + pr;
    for (int64_t j = 1; j < d->npus; j++) {
        double reduced = net(d, (double)((j + 1) / 2), part) + ep + pr;
        double arrive = (reduced > go ? reduced : go) + net(d, hops(d, (double)j), part);
        if (arrive > finish) finish = arrive;
    }
    return finish + ep;
}

int astra_rhd_steps(const th_system *sys, const th_dim *d, th_op op, double s, double *nt,
                    double *red, int64_t *off, int max) {
    double p = (double)d->npus, m = s, o = 1;
    int l = steps(p), n = 0;
    if (p < 2 || ((int64_t)p & ((int64_t)p - 1)) || op == TH_OP_A2A ||
        (op == TH_OP_AR ? 2 * l : l) > max)
        return -1;
    if (op == TH_OP_AG) { /* offsets p/2, .., 1, the message doubling from s */
        for (int k = 0; k < l; k++, m *= 2, o *= 2, n++) {
            nt[n] = net(d, hops(d, p / 2 / o), m), red[n] = 0;
            off[n] = (int64_t)(p / 2 / o);
        }
        return n;
    }
    for (int k = 1; k <= l; k++, o *= 2, n++) { /* the k-th message, s / 2^k, is reduced at */
        m = floor(m / 2);                       /* the next one's size after its hand-over */
        nt[n] = net(d, hops(d, o), m), red[n] = 0, off[n] = (int64_t)o;
        if (k > 1) red[n - 1] = proc(sys, m);
    }
    if (op == TH_OP_AR) /* the doubling half from 2 floor(m / 2), unreduced */
        for (int k = 0; k < l; k++, n++) {
            m = k == 0 ? 2 * floor(m / 2) : m * 2;
            o /= 2;
            nt[n] = net(d, hops(d, o), m), red[n] = 0, off[n] = (int64_t)o;
        }
    return n;
}

int astra_direct_steps(const th_system *sys, const th_dim *d, th_op op, double s, double *nt,
                       double *red, int max) {
    double p = (double)d->npus, part = floor(s / p), far = hops(d, floor(p / 2));
    int n = op == TH_OP_AR ? 2 : 1;
    /* on a ring of more than 3 NPUs the peers' messages arrive at several ticks (on a ring of
     * 3, bidirectional, every peer is one hop away) */
    if (p < 2 || n > max || (d->topology == TH_TOPO_RING && p > 3)) return -1;
    nt[0] = net(d, far, op == TH_OP_AG ? s : part);
    red[0] = op == TH_OP_RS || op == TH_OP_AR ? proc(sys, part) : 0;
    if (n == 2) nt[1] = net(d, far, part), red[1] = 0;
    return n;
}

int astra_direct_ring_steps(const th_system *sys, const th_dim *d, th_op op, double s, double *nt,
                            double *red, int max) {
    double p = (double)d->npus, part = floor(s / p);
    int n = (int)(p / 2);
    if (d->topology != TH_TOPO_RING || p < 4 || (int64_t)p % 2 || op == TH_OP_AR || n > max)
        return -1;
    for (int h = 1; h <= n; h++) {
        nt[h - 1] = net(d, (double)h, op == TH_OP_AG ? s : part);
        red[h - 1] = op == TH_OP_RS ? proc(sys, part) : 0;
    }
    return n;
}

/* One phase of input s (an integer), its time (ns) and the bytes one NPU sends. Every message
 * waits for the endpoint delay ep when it is handed over (and for its reduction, when it is
 * reduced) before the next one leaves; a phase starts and ends with one more ep. */
void th_cost_astra_phase(const th_system *sys, const th_dim *d, th_algorithm alg, th_op op,
                         double s, double *time, double *bytes) {
    double p = (double)d->npus, ep = astra_of(sys)->endpoint, part = floor(s / p);
    double t = ep, b = 0;
    if (op == TH_OP_A2A) { /* ring: p (p-1) / 2 messages of s/p to the next NPU, one at a
                            * time, unreduced; direct: s/p to every peer at once, the phase
                            * waiting for the farthest; halvingDoubling: none (refused) */
        double n = p * (p - 1) / 2;
        if (alg == TH_ALG_RING) {
            *time = ep + n * (net(d, hops(d, 1), part) + ep);
            *bytes = n * part;
        } else if (alg == TH_ALG_DIRECT) {
            *time = ep + net(d, hops(d, floor(p / 2)), part) + ep;
            *bytes = (p - 1) * part;
        } else {
            *time = *bytes = -1;
        }
        return;
    }
    switch (alg) {
    case TH_ALG_RING: { /* p - 1 steps to the next NPU (2 (p - 1) for AR), one at a time */
        double one = net(d, hops(d, 1), op == TH_OP_AG ? s : part) + ep;
        double n = op == TH_OP_AR ? 2 * (p - 1) : p - 1;
        t += n * one + (op == TH_OP_AG ? 0 : (p - 1) * proc(sys, part));
        b = n * (op == TH_OP_AG ? s : part);
        break;
    }
    case TH_ALG_RHD: { /* log2 p exchanges at distance 1, 2, .. (RS) or p/2, .., 1 (AG) */
        int l = steps(p);
        double m = s, off = 1;
        if (op == TH_OP_AG) {
            for (int k = 0; k < l; k++, m *= 2) {
                t += net(d, hops(d, p / 2 / off), m) + ep;
                b += m, off *= 2;
            }
            break;
        }
        for (int k = 1; k <= l; k++, off *= 2) { /* the halving half: the k-th message is */
            m = floor(m / 2);                    /* s / 2^k, reduced at size s / 2^(k+1) */
            t += net(d, hops(d, off), m) + (k > 1 ? ep + proc(sys, m) : 0);
            b += m;
        }
        if (op == TH_OP_AR) { /* the doubling half starts from 2 floor(m / 2), unreduced */
            m = 2 * floor(m / 2);
            for (int k = 0; k < l; k++, m *= 2) {
                off /= 2;
                t += ep + net(d, hops(d, off), m);
                b += m;
            }
        }
        t += ep;
        break;
    }
    case TH_ALG_DIRECT: /* every peer at once: the phase waits for the farthest */
        t += direct(sys, d, op, s, &b);
        break;
    }
    *time = t;
    *bytes = b;
}

double th_cost_astra_time(const th_system *sys, const th_dim *d, th_op op, double s) {
    double t, b;
    th_cost_astra_phase(sys, d, d->algorithm, op, s, &t, &b);
    return t;
}

double th_cost_astra_bytes(const th_system *sys, const th_dim *d, th_op op, double s) {
    double t, b;
    th_cost_astra_phase(sys, d, d->algorithm, op, s, &t, &b);
    return b;
}

double th_astra_message(const th_system *sys, int64_t src, int64_t dst, double bytes) {
    if (src == dst || src < 0 || dst < 0 || (double)src >= sys->npus || (double)dst >= sys->npus)
        return -1;
    for (int d = 0; d < sys->ndims; d++) {
        int64_t p = sys->dims[d].npus, a = src % p, b = dst % p;
        src /= p, dst /= p;
        if (a != b)
            return net(&sys->dims[d], hops(&sys->dims[d], (double)((b - a + p) % p)), bytes);
    }
    return -1;
}

th_algorithm th_astra_algorithm(const th_system *sys, th_coll_type type, int k) {
    int c = type == TH_COLL_REDUCESCATTER ? 0
            : type == TH_COLL_ALLGATHER   ? 1
            : type == TH_COLL_ALLTOALL    ? 2
                                          : -1;
    return c >= 0 && astra_of(sys)->alg[c][k] ? (th_algorithm)(astra_of(sys)->alg[c][k] - 1)
                                              : sys->dims[k].algorithm;
}

/* floor(a / b) for integers a >= 0, b > 0, exactly: an integer division up to 2^53 (byte
 * counts, several per phase, where fmod cost more than the rest of the phase), fmod beyond
 * (a Themis load gap can pass 2^63, which no integer holds). */
static double idiv(double a, double b) {
    if (a <= 9007199254740992.0) return (double)((int64_t)a / (int64_t)b);
    return (a - fmod(a, b)) / b;
}

static int check(const th_system *sys, const th_collective *coll, th_error *err) {
    uint32_t mask = coll->dims_mask ? coll->dims_mask : 0xffffffffu;
    for (int k = 0; coll->type == TH_COLL_ALLTOALL && k < sys->ndims; k++)
        if (((mask >> k) & 1u) && sys->dims[k].npus > 1 &&
            th_astra_algorithm(sys, TH_COLL_ALLTOALL, k) == TH_ALG_RHD)
            return th_error_set(err, TH_EINPUT,
                                "collective: the astra-sim preset runs an All-to-All with the ring "
                                "or direct algorithm (ASTRA-sim stops on halvingDoubling), and "
                                "dim %d runs %s (dims[%d].alltoall)",
                                k, th_algorithm_name(th_astra_algorithm(sys, TH_COLL_ALLTOALL, k)),
                                k);
    if (coll->size != floor(coll->size) || coll->size > 9007199254740992.0)
        return th_error_set(err, TH_EINPUT,
                            "size: the astra-sim preset takes a whole number of bytes up to 2^53, "
                            "got %.17g",
                            coll->size);
    if (floor(coll->size / (double)coll->chunks) < 1)
        return th_error_set(err, TH_EINPUT,
                            "chunks: the astra-sim preset needs whole-byte chunks, and %.17g "
                            "bytes in %lld chunks is less than 1 byte each",
                            coll->size, (long long)coll->chunks);
    (void)sys;
    return TH_OK;
}

/* ASTRA-sim's chunks: c = floor(S / C), raised to P (every NPU of the system) for an AR or
 * RS when smaller, the collective then being C chunks of P bytes; otherwise ceil(S / c)
 * chunks, the last of which is c bytes too (the whole rest under its Themis, which takes
 * min(rest, c) each time). The baseline runs the last dim's RS and AG as one AR phase. */
static int shape(th_plan *plan, const th_system *sys, th_error *err) {
    double c = idiv(plan->size, (double)plan->chunks), s = plan->size;
    if (plan->type != TH_COLL_ALLGATHER && c < sys->npus) c = sys->npus, s = c * plan->chunks;
    double n = idiv(s, c) + (fmod(s, c) > 0);
    plan->chunk = plan->last_chunk = c;
    /* its Themis takes min(rest, c) each time; an All-to-All is cut as under the baseline */
    int themis = (plan->policy == TH_POLICY_THEMIS || plan->policy == TH_POLICY_THEMIS_GLOBAL) &&
                 plan->type != TH_COLL_ALLTOALL;
    if (themis) plan->last_chunk = s - (n - 1) * c;
    plan->chunks = (int64_t)n;
    int ar = plan->type == TH_COLL_ALLREDUCE;
    plan->nstages = !ar || astra_of(sys)->flat           ? plan->n
                    : plan->policy == TH_POLICY_BASELINE ? 2 * plan->n - 1
                                                         : 2 * plan->n;
    if (ar && astra_of(sys)->flat) { /* an AR phase of the whole chunk on every dim */
        for (int j = 0; j < plan->n; j++) {
            const th_dim *d = &sys->dims[plan->active[j]];
            double part = idiv(plan->last_chunk, (double)d->npus);
            if (part < 1 || (d->algorithm == TH_ALG_RHD && part < 2))
                return th_error_set(err, TH_EINPUT,
                                    "size: under the astra-sim preset %s chunk of %.17g B sends "
                                    "%s messages in its AR phase on dim %d, and ASTRA-sim stops "
                                    "on a message of 0 bytes",
                                    themis && plan->last_chunk != c ? "the last" : "a",
                                    plan->last_chunk, part < 1 ? "0-byte" : "0-byte doubling",
                                    plan->active[j]);
        }
        return TH_OK;
    }
    /* what each NPU keeps after the RS half (the same in any order): a message of 0 bytes
     * stops ASTRA-sim on an assertion */
    if (plan->type == TH_COLL_ALLGATHER || plan->type == TH_COLL_ALLTOALL) return TH_OK;
    double keep = idiv(plan->last_chunk, plan->active_npus);
    int last = plan->active[plan->n - 1];
    int hd = ar && plan->policy == TH_POLICY_BASELINE && sys->dims[last].algorithm == TH_ALG_RHD;
    if (keep < 1 || (hd && keep < 2))
        return th_error_set(err, TH_EINPUT,
                            "size: under the astra-sim preset %s chunk of %.17g B leaves %.17g B "
                            "per NPU after its %s on %.17g NPUs, and ASTRA-sim stops on a "
                            "message of 0 bytes%s",
                            themis && plan->last_chunk != c ? "the last" : "a", plan->last_chunk,
                            keep, ar ? "reduce-scatter half" : "reduce-scatter", plan->active_npus,
                            hd && keep >= 1 ? " (halvingDoubling's AR phase sends 2 floor(x/2))"
                                            : "");
    return TH_OK;
}

/* The Themis of ASTRA-sim 2.x (its offline greedy scheduler, SPEC §9): one record per system
 * dim, kept in a list that is sorted by load each chunk (an insertion sort: equal loads keep
 * their places), reversed for an All-Gather; loads in MiB scaled by dim 0's GB/s. */
static void themis(th_plan *plan, const th_system *sys, th_load_model model, const int *base) {
    (void)model, (void)base; /* the preset has one load model and its own fallback order */
    int nd = sys->ndims, ag = plan->type == TH_COLL_ALLGATHER, list[TH_MAX_DIMS];
    int involved[TH_MAX_DIMS] = {0};
    for (int j = 0; j < plan->n; j++)
        involved[plan->active[j]] = 1;
    for (int d = 0; d < nd; d++)
        list[d] = plan->carry ? plan->list[d] : d;
    double *load = plan->load, b0 = sys->dims[0].bw_GBps, c = plan->chunk;
    double threshold = floor(c / 16);
    for (int64_t i = 0; i < plan->chunks; i++) {
        for (int a = 1; a < nd; a++) { /* stable: equal loads keep their places */
            int d = list[a], j = a - 1;
            while (j >= 0 && load[list[j]] > load[d]) {
                list[j + 1] = list[j];
                j--;
            }
            list[j + 1] = d;
        }
        if (ag)
            for (int a = 0, z = nd - 1; a < z; a++, z--) {
                int t = list[a];
                list[a] = list[z], list[z] = t;
            }
        int first = 0;
        while (!involved[list[first]])
            first++;
        /* the load gap in bytes: for AG from the last involved dim of the list, divided by
         * the npus of every involved dim between them */
        int lo = list[first], hi = list[nd - 1];
        double gap;
        if (!ag) {
            double p = (double)sys->dims[lo].npus;
            gap = floor(fabs(load[hi] - load[lo]) * (sys->dims[lo].bw_GBps / b0) / ((p - 1) / p) *
                        1048576.0);
        } else {
            int k = nd - 1;
            while (!involved[list[k]])
                k--;
            hi = list[k];
            double p = (double)sys->dims[hi].npus;
            gap = floor(fabs(load[hi] - load[lo]) * (sys->dims[hi].bw_GBps / b0) / (p - 1) *
                        1048576.0);
            for (k--; k >= first; k--)
                if (involved[list[k]]) gap = idiv(gap, (double)sys->dims[list[k]].npus);
        }
        uint8_t *o = plan->order + (size_t)i * (size_t)plan->n;
        double s = c;
        int at = 0;
        /* fallback: the chunk visits its dims in index order (an AG too), and the list
         * returns to index order (reversed for an AG) while the loads are added in index
         * order: for an AG, dim k's load lands on the record of dim nd-1-k */
        int fallback = gap < threshold;
        for (int d = 0; fallback && d < nd; d++)
            list[d] = ag ? nd - 1 - d : d;
        for (int j = 0; j < nd; j++) {
            int d = fallback ? j : list[j], rec = fallback ? list[j] : d;
            if (!involved[d]) continue;
            double p = (double)sys->dims[d].npus, r = sys->dims[d].bw_GBps / b0;
            o[at++] = (uint8_t)d;
            if (ag) {
                load[rec] += s / 1048576.0 * (p - 1) / r;
                s *= p;
            } else {
                load[rec] += s / 1048576.0 * ((p - 1) / p) / r;
                s = idiv(s, p);
            }
        }
    }
    for (int d = 0; d < nd; d++) /* where the list ends, for a schedule that carries it on */
        plan->list[d] = (uint8_t)list[d];
}

/* Phase j of a chunk visiting the dims in order o. An AR: RS over the order, each output
 * floor(in / p); then AG back, each output in * p, from what the last RS (or the baseline's
 * AR phase on the last dim) left; under collective-optimization baseline an AR phase of the
 * whole chunk on each dim in turn. An RS: the RS half alone; an AG: AG over the order from the
 * chunk (its size is what each NPU holds before). */
static void stage(const th_plan *plan, const uint8_t *o, int j, int *dim, th_op *op, double *m) {
    int n = plan->n, base = plan->policy == TH_POLICY_BASELINE;
    int64_t i = (int64_t)((size_t)(o - plan->order) / (size_t)n);
    double s = i == plan->chunks - 1 ? plan->last_chunk : plan->chunk;
    if (plan->type == TH_COLL_ALLGATHER) {
        for (int l = 0; l < j; l++)
            s *= plan->npus[o[l]];
        *dim = o[j], *op = TH_OP_AG, *m = s;
        return;
    }
    if (plan->type == TH_COLL_ALLTOALL) { /* each phase leaves its input's size */
        *dim = o[j], *op = TH_OP_A2A, *m = s;
        return;
    }
    if (plan->type == TH_COLL_ALLREDUCE && plan->nstages == n) {
        *dim = o[j], *op = TH_OP_AR, *m = s; /* collective-optimization baseline */
        return;
    }
    int down = plan->type == TH_COLL_ALLREDUCE && base ? n - 1 : n; /* RS phases */
    int k = j < down ? j : j == n - 1 && base ? n - 1 : 2 * n - 1 - j - base;
    for (int l = 0; l < (j < n ? j : down); l++)
        s = idiv(s, plan->npus[o[l]]);
    if (j < down) {
        *op = TH_OP_RS;
    } else if (base && j == n - 1) {
        *op = TH_OP_AR;
    } else {
        *op = TH_OP_AG;
        for (int l = down - 1; l > k; l--) /* the AG phases before this one */
            s *= plan->npus[o[l]];
    }
    *dim = o[k];
    *m = s;
}

const th_plan_model astra_planner = {check, shape, themis, stage};

/* The ASTRA-sim 1.0 preset's model: integer-ns phase costs of its ring, halvingDoubling and
 * direct implementations over its analytical network, and its planner (whole-byte chunks, the
 * localBWAware or flat phase lists, its Themis greedy with the quirks of its code). The queue
 * rules are in astra1_emulate.c. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "astra1_preset.h"
#include "schedule_internal.h"
#include "themis/astra1.h"
#include "themis/astra1_workload.h"

#define INT_LIMIT 2147483647.0 /* ASTRA-sim holds message times and reduction sizes in int */

/* One message of m bytes over `hops` hops of dim d: the backend adds, in an int, the link
 * latency, the serialisation m / B, twice the nic latency and (Switch) the router latency,
 * truncating at each step. -1 when it does not fit in an int. */
static double net(const th_system *sys, int d, double hops, double m) {
    const th_dim *dd = &sys->dims[d];
    double t = floor(hops * dd->latency);
    t = floor(t + m / dd->bw);
    t = floor(t + 2 * astra1_of(sys)->nic[d]);
    if (dd->topology == TH_TOPO_SWITCH) t = floor(t + astra1_of(sys)->router[d]);
    return t <= INT_LIMIT ? t : -1;
}

/* Reducing m bytes: one write and two reads of local memory at 500000 bytes per ns, each
 * truncated to whole ns. -1 when m overflows the int that carries it. */
static double proc(double m) {
    return m <= INT_LIMIT ? 3 * floor(m / 500000.0) : -1;
}

double astra1_message(const th_system *sys, int64_t src, int64_t dst, double m) {
    int64_t a[TH_MAX_DIMS], b[TH_MAX_DIMS];
    for (int d = 0; d < sys->ndims; d++) {
        int64_t p = (int64_t)sys->dims[d].npus;
        a[d] = src % p, b[d] = dst % p;
        src /= p, dst /= p;
    }
    int d = sys->ndims - 1;
    while (d >= 0 && a[d] == b[d])
        d--;
    if (d < 0) return -1;
    double r = (double)(a[d] > b[d] ? a[d] - b[d] : b[d] - a[d]), p = (double)sys->dims[d].npus;
    double h = sys->dims[d].topology == TH_TOPO_RING ? (r < p - r ? r : p - r)
               : sys->dims[d].topology == TH_TOPO_FC ? 1
                                                     : 2;
    return net(sys, d, h, m);
}

/* Hops to the partner `r` positions along the dim's ring order. */
static double hops(const th_dim *d, double r) {
    double p = (double)d->npus;
    switch (d->topology) {
    case TH_TOPO_RING: return r < p - r ? r : p - r;
    case TH_TOPO_FC: return 1;
    case TH_TOPO_SWITCH: return 2;
    }
    return 1;
}

/* Adds a step: one message of m bytes to the partner r away, reduced afterwards when `red`
 * (the reduction is costed on `rm` bytes). Returns -1 once something overflowed. */
static int step(const th_system *sys, int d, double r, double m, int red, double rm, double *t,
                double *bytes) {
    double n = net(sys, d, hops(&sys->dims[d], r), m);
    double c = red ? proc(rm) : 0;
    if (n < 0 || c < 0) return -1;
    *t += n + c + astra1_of(sys)->endpoint;
    *bytes += m;
    return 0;
}

/* ring: k identical steps to the next NPU (1 hop); RS reduces after every step, AR after the
 * first p - 1. The same sums as step() would make, in closed form (A2A has p (p - 1) / 2). */
static double ring(const th_system *sys, int d, th_op op, double in, double *bytes, double *out) {
    double p = (double)sys->dims[d].npus, m = floor(in / p), k, reduced = 0;
    switch (op) {
    case TH_OP_RS: k = p - 1, reduced = k, *out = m; break;
    case TH_OP_AG: k = p - 1, m = in, *out = in * p; break;
    case TH_OP_AR: k = 2 * (p - 1), reduced = p - 1, *out = in; break;
    case TH_OP_A2A: k = p * (p - 1) / 2, *out = in; break;
    default: return -1;
    }
    double n = net(sys, d, hops(&sys->dims[d], 1), m), c = reduced > 0 ? proc(m) : 0;
    if (n < 0 || c < 0) return -1;
    *bytes = k * m;
    return astra1_of(sys)->endpoint + k * (n + astra1_of(sys)->endpoint) + reduced * c;
}

/* halvingDoubling (p a power of two, K = log2 p steps): RS sends halves to partners 1, 2, 4,
 * ... away, reducing after every step but the first; AG mirrors it; AR is RS then AG, its AG
 * half starting from 2 floor(m_K / 2) (the code halves and doubles the size). */
static double hd(const th_system *sys, int d, th_op op, double in, double *bytes, double *out) {
    double p = (double)sys->dims[d].npus, t = astra1_of(sys)->endpoint, m, r;
    int K = 0;
    while ((double)((int64_t)1 << K) < p)
        K++;
    switch (op) {
    case TH_OP_RS:
    case TH_OP_AR:
        m = floor(in / 2), r = 1;
        for (int i = 1; i <= K; i++, m = floor(m / 2), r *= 2)
            if (step(sys, d, r, m, i > 1, m, &t, bytes)) return -1;
        *out = op == TH_OP_RS ? floor(in / p) : in;
        if (op == TH_OP_RS) return t;
        m = 2 * floor(floor(in / pow(2, K)) / 2), r = p / 2;
        for (int i = 1; i <= K; i++, m *= 2, r /= 2)
            if (step(sys, d, r, m, 0, 0, &t, bytes)) return -1;
        return t;
    case TH_OP_AG:
        m = in, r = p / 2;
        for (int i = 1; i <= K; i++, m *= 2, r /= 2)
            if (step(sys, d, r, m, 0, 0, &t, bytes)) return -1;
        *out = in * p;
        return t;
    default: return -1;
    }
}

/* direct: p - 1 messages at once, one to each peer, so the farthest sets the time; RS reduces
 * once after them, and AR runs an RS round then an AG round. directN sends N at once: each
 * arrival's follow-up (E, and a reduction after the odd rounds) sends the next, so the messages
 * go in ceil((p - 1) / N) rounds. */
static double direct(const th_system *sys, int d, th_coll_type type, th_op op, double in,
                     double *bytes, double *out) {
    const th_dim *dd = &sys->dims[d];
    double p = (double)dd->npus, m = floor(in / p), far = hops(dd, floor(p / 2));
    double t = astra1_of(sys)->endpoint, one = 0, w = astra1_of(sys)->window[type][d];
    if (w > 0 && w < p - 1 && op != TH_OP_AR) { /* a window: rounds of w messages */
        double rounds = ceil((p - 1) / w), e = astra1_of(sys)->endpoint;
        if (op == TH_OP_AG) m = in;
        double n = net(sys, d, far, m), c = op == TH_OP_RS ? proc(m) : 0;
        if (n < 0 || c < 0) return -1;
        *bytes = (p - 1) * m;
        *out = op == TH_OP_RS ? m : op == TH_OP_AG ? in * p : in;
        /* arrivals of odd rounds are reduced, of even rounds not (the packet counters) */
        return e + rounds * (n + e) + ceil(rounds / 2) * c;
    }
    int rounds = op == TH_OP_AR ? 2 : 1;
    if (op == TH_OP_AG) m = in;
    for (int i = 0; i < rounds; i++)
        if (step(sys, d, far, m, (op == TH_OP_RS || op == TH_OP_AR) && i == 0, m, &t, &one))
            return -1;
    *bytes += (p - 1) * one;
    *out = op == TH_OP_RS ? m : op == TH_OP_AG ? in * p : in;
    return t;
}

/* direct All-Reduce on a Ring of more than 3 NPUs, where the peers are 1 .. p/2 hops away: the
 * RS round's p - 1 messages leave at E; each arrival is followed by E and a reduction, and the
 * AG round waits (AllToAll::run) until every message has arrived: the first of those follow-ups
 * at or after the last arrival sends as many AG messages as follow-ups have come, each later one
 * one more; the q-th AG message goes to the peer q away (the receivers rotate). The phase ends
 * E after the last AG message arrives. */
static double direct_ring_ar(const th_system *sys, int d, double in, double *bytes, double *out) {
    const th_dim *dd = &sys->dims[d];
    int p = (int)dd->npus;
    double e = astra1_of(sys)->endpoint, m = floor(in / p), c = proc(m), last = 0, g[4096], t = 0;
    if (p < 2 || p - 1 > 4096 || c < 0) return -1;
    g[0] = 0;
    for (int k = 1; k < p; k++) {
        double n = net(sys, d, hops(dd, k), m);
        if (n < 0) return -1;
        g[k - 1] = e + n + e + c;
        if (e + n > last) last = e + n;
    }
    for (int a = 1; a < p - 1; a++) /* the follow-ups in time order */
        for (int b = a; b > 0 && g[b - 1] > g[b]; b--) {
            double x = g[b];
            g[b] = g[b - 1], g[b - 1] = x;
        }
    int first = 0;
    while (g[first] < last)
        first++;
    for (int q = 1; q < p; q++) {
        double sent = q - 1 <= first ? g[first] : g[q - 1];
        double arrive = sent + net(sys, d, hops(dd, q), m);
        if (arrive > t) t = arrive;
    }
    *bytes = 2 * (p - 1) * m;
    *out = in;
    return t + e;
}

double th_astra1_phase(const th_system *sys, int d, th_coll_type type, th_op op, double in,
                       double *bytes, double *out) {
    *bytes = 0;
    *out = in;
    if ((unsigned)type > TH_COLL_ALLTOALL) return -1;
    switch (astra1_of(sys)->impl[type][d]) {
    case TH_A1_RING: return ring(sys, d, op, in, bytes, out);
    case TH_A1_HD: return hd(sys, d, op, in, bytes, out);
    case TH_A1_DIRECT:
        if (op == TH_OP_AR && sys->dims[d].topology == TH_TOPO_RING && sys->dims[d].npus > 3)
            return direct_ring_ar(sys, d, in, bytes, out);
        return direct(sys, d, type, op, in, bytes, out);
    }
    return -1;
}

/* The delays of the events one NPU runs in a phase, in order, summing to th_astra1_phase's
 * time: E (the zero-latency bundle), then per step the message, E and, on a reducing step, its
 * reduction (an event of its own even when 0 ns). Writes at most max; returns how many, or -1
 * when the chain is not one line (direct windows, a direct All-Reduce on a Ring of more than 3
 * NPUs, a direct All-to-All) or longer than max. */
/* astra1_phase_chain, and with `msg` which delays are messages (the event after one is the
 * network's arrival, not an event of the NPU's own lists). */
static int chain(const th_system *sys, int d, th_coll_type type, th_op op, double in, double *dl,
                 unsigned char *msg, int max) {
    const th_dim *dd = &sys->dims[d];
    double p = (double)dd->npus, e = astra1_of(sys)->endpoint;
    int n = 0;
#define PUT_AS(x, m)                                                                               \
    do {                                                                                           \
        if (n >= max) return -1;                                                                   \
        if (msg) msg[n] = (m);                                                                     \
        dl[n++] = (x);                                                                             \
    } while (0)
#define PUT(x)  PUT_AS(x, 0)
#define SEND(x) PUT_AS(x, 1)
    if ((unsigned)type > TH_COLL_ALLTOALL) return -1;
    PUT(e);
    switch (astra1_of(sys)->impl[type][d]) {
    case TH_A1_RING: {
        double m = floor(in / p), k, red = 0;
        if (op == TH_OP_RS)
            k = p - 1, red = p - 1;
        else if (op == TH_OP_AG)
            k = p - 1, m = in;
        else if (op == TH_OP_AR)
            k = 2 * (p - 1), red = p - 1;
        else
            k = p * (p - 1) / 2;
        if (k + 1 > max) return -1;
        double nt = net(sys, d, hops(dd, 1), m), c = proc(m);
        for (int i = 0; i < (int)k; i++) {
            SEND(nt);
            PUT(e);
            if (i < (int)red) PUT(c);
        }
        return n;
    }
    case TH_A1_HD: {
        int K = 0;
        while ((double)((int64_t)1 << K) < p)
            K++;
        double m, r;
        if (op == TH_OP_RS || op == TH_OP_AR) {
            m = floor(in / 2), r = 1;
            for (int i = 1; i <= K; i++, m = floor(m / 2), r *= 2) {
                SEND(net(sys, d, hops(dd, r), m));
                PUT(e);
                if (i > 1) PUT(proc(m));
            }
            if (op == TH_OP_RS) return n;
            m = 2 * floor(floor(in / pow(2, K)) / 2), r = p / 2;
        } else {
            m = in, r = p / 2;
        }
        for (int i = 1; i <= K; i++, m *= 2, r /= 2) {
            SEND(net(sys, d, hops(dd, r), m));
            PUT(e);
        }
        return n;
    }
    case TH_A1_DIRECT: {
        double w = astra1_of(sys)->window[type][d];
        if (w > 0 && w < p - 1 && op != TH_OP_AR) return -1;
        if (op == TH_OP_AR && dd->topology == TH_TOPO_RING && dd->npus > 3) return -1;
        if (op == TH_OP_A2A) return -1;
        double far = hops(dd, floor(p / 2)), m = op == TH_OP_AG ? in : floor(in / p);
        SEND(net(sys, d, far, m));
        PUT(e);
        if (op == TH_OP_RS || op == TH_OP_AR) PUT(proc(m));
        if (op == TH_OP_AR) {
            SEND(net(sys, d, far, m));
            PUT(e);
        }
        return n;
    }
    }
    return -1;
#undef PUT
#undef SEND
#undef PUT_AS
}

int astra1_phase_chain(const th_system *sys, int d, th_coll_type type, th_op op, double in,
                       double *dl, int max) {
    return chain(sys, d, type, op, in, dl, NULL, max);
}

int astra1_phase_events(const th_system *sys, int d, th_coll_type type, th_op op, double in,
                        double *dl, unsigned char *msg, int max) {
    int k = chain(sys, d, type, op, in, dl, msg, max);
    const th_dim *dd = &sys->dims[d];
    if (k >= 0 || op != TH_OP_A2A || astra1_of(sys)->impl[type][d] != TH_A1_DIRECT ||
        dd->topology == TH_TOPO_RING || max < 3)
        return k;
    double p = (double)dd->npus, w = astra1_of(sys)->window[type][d];
    if (w > 0 && w < p - 1) return -1;
    double n = net(sys, d, hops(dd, floor(p / 2)), floor(in / p));
    if (n < 0) return -1;
    dl[0] = dl[2] = astra1_of(sys)->endpoint, dl[1] = n;
    msg[0] = msg[2] = 0, msg[1] = 1;
    return 3;
}

double th_astra1_phase_lag(const th_system *sys, int d, th_coll_type type, th_op op, double in) {
    const th_dim *dd = &sys->dims[d];
    double p = (double)dd->npus, e = astra1_of(sys)->endpoint;
    if ((unsigned)type > TH_COLL_ALLTOALL || op != TH_OP_RS) return e; /* no reducing last step */
    switch (astra1_of(sys)->impl[type][d]) {
    case TH_A1_RING: return proc(floor(in / p));
    case TH_A1_HD: {
        if (p <= 2) return e; /* its one step is the first, which does not reduce */
        double m = floor(in / 2);
        for (double r = 2; r < p; r *= 2)
            m = floor(m / 2);
        return proc(m);
    }
    case TH_A1_DIRECT: {
        double w = astra1_of(sys)->window[type][d], m = floor(in / p);
        if (w > 0 && w < p - 1 && fmod(ceil((p - 1) / w), 2) == 0) return e; /* even last round */
        return proc(m);
    }
    }
    return e;
}

void th_astra1_micro(const th_system *sys, th_coll_type type, double size, th_result *res) {
    double old = res->time;
    res->time = old + 1;
    res->bw_util = res->ideal / res->time;
    res->algbw = size / res->time;
    res->busbw *= old / res->time;
    for (int d = 0; d < sys->ndims; d++)
        res->dim_util[d] *= old / res->time;
    (void)type;
}

/* ---- the planner ---- */

static int check(const th_system *sys, const th_collective *coll, th_error *err);
static int shape_lbw(th_plan *plan, const th_system *sys, th_error *err);
static void themis(th_plan *plan, const th_system *sys, th_load_model model, const int *base);
static void stage_lbw(const th_plan *plan, const uint8_t *o, int j, int *dim, th_op *op, double *m);
static const th_plan_model lbw_model = {check, shape_lbw, themis, stage_lbw};

static int check(const th_system *sys, const th_collective *coll, th_error *err) {
    (void)sys;
    double c = floor(coll->size / (double)coll->chunks);
    if (coll->size != floor(coll->size))
        return th_error_set(err, TH_EINPUT,
                            "size: the astra-sim-1.0 preset needs a whole number of bytes, got "
                            "%.17g",
                            coll->size);
    if (c < 1)
        return th_error_set(err, TH_EINPUT,
                            "chunks: the astra-sim-1.0 preset needs whole-byte chunks, and %.17g "
                            "bytes in %lld chunks is less than 1 byte each",
                            coll->size, (long long)coll->chunks);
    return TH_OK;
}

/* The phase lists: localBWAware All-Reduce (baseline and round-robin: RS, one AR phase on the
 * last dim, AG back; Themis: RS then AG back), or one phase of the collective's own type per
 * dim (collective-optimization baseline, RS, AG, A2A). */
static int themis_shape(const th_plan *plan) {
    return plan->policy == TH_POLICY_THEMIS || plan->policy == TH_POLICY_THEMIS_GLOBAL;
}

/* Chunks of floor(S / C) bytes, and when S is not a multiple of C one more of the rest
 * (Sys::generate_collective takes min(chunk, rest) until nothing is left). The tutorial tag
 * multiplies every collective's size by its float comm-scale, so S passes through a float
 * there (1000000007 runs as 1000000000); the plan keeps the size asked. */
static void chunks(th_plan *plan, const th_system *sys) {
    double size =
        astra1_of(sys)->version == TH_A1_TUTORIAL ? th_a1_scaled(plan->size, 1, 1) : plan->size;
    double c = floor(size / (double)plan->chunks), rest = size - c * plan->chunks;
    plan->chunk = plan->last_chunk = c;
    if (rest > 0) plan->chunks++, plan->last_chunk = rest;
}

/* ASTRA-sim's roundRobin rotates the list of every dim (a counter over all of them, kept from
 * one collective to the next) and then skips the inactive ones: ours rotates the active dims,
 * the same when every dim is active in a single collective. */
static int roundrobin_ok(const th_plan *plan, const th_system *sys, th_error *err) {
    if (plan->policy != TH_POLICY_ROUNDROBIN || plan->n == sys->ndims) return TH_OK;
    return th_error_set(err, TH_EINPUT,
                        "policy roundrobin: under the astra-sim-1.0 preset only when every dim "
                        "is active (ASTRA-sim rotates over all %d dims, %d of which are active "
                        "here)",
                        sys->ndims, plan->n);
}

int th_astra1_roundrobin_ok(const th_system *sys, uint32_t dims_mask) {
    if (sys->model != TH_MODEL_ASTRA1) return 1;
    for (int d = 0; d < sys->ndims; d++)
        if (sys->dims[d].npus < 2 || (dims_mask && !((dims_mask >> d) & 1u))) return 0;
    return 1;
}

static int shape_lbw(th_plan *plan, const th_system *sys, th_error *err) {
    if (roundrobin_ok(plan, sys, err)) return err->code;
    chunks(plan, sys);
    if (plan->type != TH_COLL_ALLREDUCE)
        plan->nstages = plan->n;
    else
        plan->nstages = themis_shape(plan) ? 2 * plan->n : 2 * plan->n - 1;
    return TH_OK;
}

static int shape_flat(th_plan *plan, const th_system *sys, th_error *err) {
    if (roundrobin_ok(plan, sys, err)) return err->code;
    chunks(plan, sys);
    plan->nstages = plan->n;
    return TH_OK;
}

/* The size of the chunk whose order is o. */
static double chunk_of(const th_plan *plan, const uint8_t *o) {
    int64_t i = (int64_t)((size_t)(o - plan->order) / (size_t)plan->n);
    return i == plan->chunks - 1 ? plan->last_chunk : plan->chunk;
}

/* The output size of a phase of op on dim d of input s (whole bytes). */
static double grow(const th_plan *plan, th_op op, int d, double s) {
    double p = plan->npus[d];
    return op == TH_OP_RS ? floor(s / p) : op == TH_OP_AG ? s * p : s;
}

static void stage_flat(const th_plan *plan, const uint8_t *o, int j, int *dim, th_op *op,
                       double *m) {
    static const th_op ops[] = {TH_OP_AR, TH_OP_RS, TH_OP_AG, TH_OP_A2A};
    *op = ops[plan->type];
    *dim = o[j];
    if (plan->type == TH_COLL_ALLTOALL && plan->policy == TH_POLICY_ROUNDROBIN) {
        /* ASTRA-sim rotates an All-to-All's dims too (the planner leaves its order alone) */
        int64_t i = (int64_t)((size_t)(o - plan->order) / (size_t)plan->n);
        *dim = o[(j + i) % plan->n];
    }
    double s = chunk_of(plan, o);
    for (int l = 0; l < j; l++)
        s = grow(plan, *op, o[l], s);
    *m = s;
}

/* A localBWAware All-Reduce's phase j. Sys::generate_collective makes every phase from what
 * the phase before it left (RS floor(s / p), AR s, AG s p), so an All-Gather carries the last
 * RS's output times the dims gathered since. */
static void stage_lbw(const th_plan *plan, const uint8_t *o, int j, int *dim, th_op *op,
                      double *m) {
    if (plan->type != TH_COLL_ALLREDUCE) {
        stage_flat(plan, o, j, dim, op, m);
        return;
    }
    int n = plan->n, k;
    if (!themis_shape(plan)) {
        k = j < n ? j : 2 * n - 2 - j;
        *op = j < n - 1 ? TH_OP_RS : j == n - 1 ? TH_OP_AR : TH_OP_AG;
    } else {
        k = j < n ? j : 2 * n - 1 - j;
        *op = j < n ? TH_OP_RS : TH_OP_AG;
    }
    *dim = o[k];
    int nrs = themis_shape(plan) ? n : n - 1; /* the RS phases */
    int upto = *op != TH_OP_AG ? k : nrs;
    double s = chunk_of(plan, o);
    for (int l = 0; l < upto; l++)
        s = floor(s / plan->npus[o[l]]);
    if (*op == TH_OP_AG)
        for (int l = nrs - 1; l > k; l--)
            s *= plan->npus[o[l]];
    *m = s;
}

/* Adds one phase of a chunk of c bytes on a dim of p NPUs to its entry's load (MiB over the
 * dim's relative bandwidth: (p - 1) / p of it for a Reduce-Scatter, (p - 1) times it for an
 * All-Gather) and returns the chunk's size after the phase. */
static uint64_t add_load(double *load, uint64_t c, double p, double rel, int ag) {
    if (!ag) {
        *load += (((double)c / 1048576) * ((double)(p - 1) / p)) / rel;
        return c / (uint64_t)p;
    }
    *load += (((double)c / 1048576) * ((double)(p - 1))) / rel;
    return c * (uint64_t)p;
}

/* ASTRA-sim 1.0's Themis (OfflineGreedy): a persistent list of (dim, load) entries, loads in
 * MiB scaled by the dims' bandwidths relative to dim 0, stably sorted per chunk (descending for
 * an All-Gather); the gap between the first active entry and the last (an All-Gather: the last
 * active one, divided down by the active dims between) in bytes; below chunk / gap denominator
 * the chunk takes the dims in index order, the list is put back in index order (reversed for an
 * All-Gather) and each position gets the load of the dim of that index. */
static void greedy(th_plan *plan, const th_system *sys, th_a1_tracker *t) {
    int N = sys->ndims, n = plan->n, ag = plan->type == TH_COLL_ALLGATHER;
    int act[TH_MAX_DIMS] = {0}, *edim = t->dim;
    double *eload = t->load, p[TH_MAX_DIMS], rel[TH_MAX_DIMS];
    for (int j = 0; j < n; j++)
        act[plan->active[j]] = 1;
    for (int d = 0; d < N; d++) {
        p[d] = plan->npus[d];
        rel[d] = astra1_of(sys)->greedy_bw[d] / astra1_of(sys)->greedy_bw[0];
    }
    uint64_t rec = (uint64_t)plan->chunk, gap = (uint64_t)astra1_of(sys)->gap_denominator;
    for (int64_t i = 0; i < plan->chunks; i++) {
        for (int a = 1; a < N; a++) { /* stable: equal loads keep their places */
            int dd = edim[a], j = a - 1;
            double l = eload[a];
            while (j >= 0 && l < eload[j]) {
                edim[j + 1] = edim[j], eload[j + 1] = eload[j];
                j--;
            }
            edim[j + 1] = dd, eload[j + 1] = l;
        }
        if (ag)
            for (int a = 0, b = N - 1; a < b; a++, b--) {
                int td = edim[a];
                double tl = eload[a];
                edim[a] = edim[b], eload[a] = eload[b];
                edim[b] = td, eload[b] = tl;
            }
        int first = 0;
        while (!act[edim[first]])
            first++;
        double diff;
        uint64_t size;
        if (!ag) {
            int d = edim[first];
            diff = fabs(eload[N - 1] - eload[first]);
            size = (uint64_t)(((diff * rel[d]) / ((double)(p[d] - 1) / p[d])) * 1048576);
        } else {
            int last = N - 1;
            while (!act[edim[last]])
                last--;
            int d = edim[last];
            diff = fabs(eload[last] - eload[first]);
            size = (uint64_t)(((diff * rel[d]) / ((double)(p[d] - 1) / 1)) * 1048576);
            for (last--; first <= last; last--)
                if (act[edim[last]]) size /= (uint64_t)p[edim[last]];
        }
        uint64_t c = rec;
        uint8_t *o = plan->order + (size_t)i * (size_t)n;
        int k = 0;
        if (size < rec / gap) { /* the index order, the list re-sorted by dim */
            double byd[TH_MAX_DIMS];
            for (int a = 0; a < N; a++)
                byd[edim[a]] = eload[a];
            for (int a = 0; a < N; a++)
                edim[a] = a, eload[a] = byd[a];
            if (ag)
                for (int a = 0, b = N - 1; a < b; a++, b--) {
                    int td = edim[a];
                    double tl = eload[a];
                    edim[a] = edim[b], eload[a] = eload[b];
                    edim[b] = td, eload[b] = tl;
                }
            for (int d = 0; d < N; d++) {
                if (!act[d]) continue;
                o[k++] = (uint8_t)d;
                c = add_load(&eload[d], c, p[d], rel[d], ag);
            }
        } else {
            for (int a = 0; a < N; a++) {
                int d = edim[a];
                if (!act[d]) continue;
                o[k++] = (uint8_t)d;
                c = add_load(&eload[a], c, p[d], rel[d], ag);
            }
        }
    }
    for (int a = 0; a < N; a++)
        plan->load[edim[a]] = eload[a];
}

/* th_sched_plan's Themis: a tracker in index order with the plan's initial loads. */
static void themis(th_plan *plan, const th_system *sys, th_load_model model, const int *base) {
    (void)model, (void)base;
    th_a1_tracker t;
    for (int d = 0; d < sys->ndims; d++)
        t.dim[d] = d, t.load[d] = plan->load[d];
    greedy(plan, sys, &t);
}

void th_astra1_tracker_reset(th_a1_tracker *t, const th_system *sys) {
    for (int d = 0; d < TH_MAX_DIMS; d++)
        t->dim[d] = d < sys->ndims ? d : 0, t->load[d] = 0;
}

int th_astra1_plan(th_plan *plan, const th_system *sys, const th_collective *coll, th_policy policy,
                   th_a1_tracker *t, th_error *err) {
    if (sys->model != TH_MODEL_ASTRA1)
        return th_error_set(err, TH_EINTERNAL, "th_astra1_plan on a %s system",
                            th_model_name(sys->model));
    if (th_sched_plan(plan, sys, coll, policy, TH_LOAD_ALPHA_BETA, err)) return err->code;
    int themis = policy == TH_POLICY_THEMIS || policy == TH_POLICY_THEMIS_GLOBAL;
    if (themis && coll->type != TH_COLL_ALLTOALL) greedy(plan, sys, t);
    return TH_OK;
}

static const th_plan_model flat_model = {check, shape_flat, themis, stage_flat};

const th_plan_model *astra1_planner(const th_system *sys) {
    return astra1_of(sys)->local_bw_aware ? &lbw_model : &flat_model;
}

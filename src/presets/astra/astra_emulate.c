/* The ASTRA-sim preset's emulator rules (SPEC §9): list queues, phases that start as soon as
 * they are queued on an idle dim (but for the dim a collective issued as the last one ends is
 * held on), stages ending at one instant completed in the order they started, one collective at
 * a time, the preset's integer-ns phase costs, and the order in which the NPUs see each phase
 * end (the "lead", docs/CHAKRA.md), with the order of ring phases' ends at one tick (end_keys)
 * and the refusal of the ties of ends that hang ASTRA-sim (check_hang). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "astra_preset.h"
#include "emulate_internal.h"
#include "themis/astra.h"
#include "themis/buf.h"

/* The phase costs met since the reset on one dim: a phase's time and bytes depend only on its
 * dim, algorithm, operation and input size. */
#define PHASE_COSTS 8
typedef struct phase_entry {
    double m, time, bytes;
    int alg, op;
} phase_entry;

enum { KIND_RING = 1, KIND_RHD = 2, KIND_DIRECT = 3, KIND_DRING = 4 };
enum { RHD_MAX = 64 }; /* a halvingDoubling phase's messages: 2 log2 p, p <= 2^32 */

/* The preset's state behind th_emu.state, made at its first issue after a reset. */
typedef struct astra_emu_state {
    emu_queue q[TH_MAX_DIMS]; /* the waiting phases per dim, in the preset's order */
    phase_entry cost[TH_MAX_DIMS][PHASE_COSTS];
    int ncost[TH_MAX_DIMS]; /* entries of cost[d] in use, since the reset */
    int held;               /* 1 + the dim whose stage ended the last collective, 0: none */
    double held_at;         /* when it ended, ns */
    /* The NPUs' order at an instant, named by the NPU that acts first (-1: not known): of the
     * event that issues the next collective, of the end of each dim's running phase, and of
     * the end of the last collective that finished. */
    int64_t issue_first;
    int64_t end_first[TH_MAX_DIMS];
    double end_wait[TH_MAX_DIMS]; /* how long before its end each phase registered it, ns */
    /* each running ring phase's start (ns), operation, input size and time (ns), to find the
     * ticks of its events */
    double start_at[TH_MAX_DIMS], size[TH_MAX_DIMS], time[TH_MAX_DIMS];
    th_op op[TH_MAX_DIMS];
    int64_t start_first[TH_MAX_DIMS]; /* the order it started in */
    /* the order it goes on in from its step base_step on, where it follows another phase or a
     * node's end from there (base_first: the first NPU at that step; step 0: start_first) */
    int64_t base_first[TH_MAX_DIMS];
    int base_step[TH_MAX_DIMS];
    double start_reg[TH_MAX_DIMS]; /* when the event that started it was registered (-1) */
    double trigger_reg;            /* the same for the phases starting now */
    int dir[TH_MAX_DIMS];          /* 1: its messages go clockwise, -1: anticlockwise */
    int kind[TH_MAX_DIMS];         /* its phase's algorithm, as far as its events' ticks are known:
                                    * KIND_RING, KIND_RHD, KIND_DIRECT, KIND_DRING (direct on a
                                    * ring), 0 (not known) */
    /* a halvingDoubling phase's partner offsets XORed over its first k messages (xors[d][k]) */
    int64_t xors[TH_MAX_DIMS][RHD_MAX + 1];
    int freed;                    /* 1 while a dim a phase left takes its next one */
    int start_freed[TH_MAX_DIMS]; /* freed when each running phase started */
    int parted;                   /* 1 once a tie that cannot block was replayed (cannot_block) */
    double parted_at;             /* when, ns */
    int parted_dim;               /* the dim both its chunks went on to */
    int64_t coll_first;
    uint64_t *touch_out; /* the hang check's two outcomes of a dim's queue (check_hang) */
    double *touch_key;   /* and their keys */
    size_t touch_cap;    /* entries each holds room for (touch_out twice) */
    int hang;            /* 1 once a run was refused as one ASTRA-sim would not finish */
} astra_emu_state;

static emu_queue *queue(th_emu *r, int d) {
    return &((astra_emu_state *)r->state)->q[d];
}

/* FIFO appends; SCF inserts before the first waiting stage whose key max(in, out) is >= its
 * own, but appends a stage with one phase left after it and an AR phase. */
static int list_insert(emu_queue *h, emu_entry x, int append) {
    if (h->n == h->cap) {
        if (h->head > 0) {
            memmove(h->e, h->e + h->head, (h->n - h->head) * sizeof *h->e);
            h->n -= h->head, h->head = 0;
        } else if (th_grow(&h->e, &h->cap, h->cap + 1, sizeof *h->e)) {
            return -1;
        }
    }
    size_t at = h->n;
    if (!append)
        for (at = h->head; at < h->n && h->e[at].m < x.m; at++) {
        }
    memmove(h->e + at + 1, h->e + at, (h->n - at) * sizeof *h->e);
    h->e[at] = x;
    h->n++;
    return 0;
}

/* Queues a chunk's phase (ready now) at its dim; returns the dim, or -1 when out of memory. */
static int enqueue(th_emu *r, uint32_t id, uint32_t c, int stage) {
    const th_plan *plan = emu_rec(r, id)->plan;

    int dim;
    th_op op;
    double m;
    th_plan_stage(plan, c, stage, &dim, &op, &m);
    double key = op == TH_OP_AG ? m * plan->npus[dim] : m;
    int append = !r->scf || op == TH_OP_AR || op == TH_OP_A2A || stage == plan->nstages - 2;
    return list_insert(queue(r, dim), (emu_entry){.ready = r->t, .m = key, .coll = id, .chunk = c},
                       append)
               ? -1
               : dim;
}

/* th_cost_astra_phase on dim d, remembered for the phases met since the reset (a collective
 * meets a few distinct ones per dim; fmod-heavy integer arithmetic each time otherwise). */
static void phase_cost(th_emu *r, int d, th_algorithm alg, th_op op, double m, double *time,
                       double *bytes) {
    astra_emu_state *st = r->state;
    phase_entry *c = st->cost[d];
    int n = st->ncost[d];
    for (int i = 0; i < n; i++)
        if (c[i].m == m && c[i].op == (int)op && c[i].alg == (int)alg) {
            *time = c[i].time, *bytes = c[i].bytes;
            return;
        }
    th_cost_astra_phase(r->sys, &r->sys->dims[d], alg, op, m, time, bytes);
    if (n < PHASE_COSTS) {
        c[n] = (phase_entry){m, *time, *bytes, (int)alg, (int)op};
        st->ncost[d] = n + 1;
    }
}

/* The order `first` after every NPU's ring on dim d (p NPUs) passed a message `steps` times
 * along it: each NPU hears from its predecessor on the ring, so the coordinate of the first NPU
 * on d moves by steps (mod p); -1 stays unknown. */
static int64_t lead_shift(const th_system *sys, int64_t first, int d, int64_t steps) {
    if (first < 0) return -1;
    int64_t stride = 1, p = (int64_t)sys->dims[d].npus;
    for (int k = 0; k < d; k++)
        stride *= (int64_t)sys->dims[k].npus;
    int64_t c = first / stride % p, c2 = ((c + steps) % p + p) % p;
    return first + (c2 - c) * stride;
}

/* The order `first` after a halvingDoubling phase on dim d (p NPUs, a power of 2): at each
 * step every NPU exchanges one message with the NPU whose coordinate on d differs from its own
 * by the step's offset in one bit, and the NPU whose message was sent first receives first, so
 * the first NPU's coordinate is XORed with each offset in turn (HalvingDoubling.cc): a
 * Reduce-Scatter's offsets 1, 2, ..., p / 2 and an All-Gather's p / 2, ..., 1 give p - 1, an
 * All-Reduce's both ways 0. */
static int64_t halving_lead(const th_system *sys, int64_t first, int d, th_op op) {
    int64_t stride = 1, p = (int64_t)sys->dims[d].npus;
    if (first < 0 || p < 2 || (p & (p - 1)) || op == TH_OP_A2A) return -1;
    for (int k = 0; k < d; k++)
        stride *= (int64_t)sys->dims[k].npus;
    int64_t c = first / stride % p, c2 = op == TH_OP_AR ? c : c ^ (p - 1);
    return first + (c2 - c) * stride;
}

/* The order `lead` at the tick after `from` messages of the phase running on dim d, moved to
 * the tick after `to` of them: a ring's chain of messages shifts it along its direction
 * (lead_shift), a halvingDoubling phase's exchanges XOR its coordinate with their offsets
 * (halving_lead); -1 stays unknown. */
static int64_t lead_move(const th_emu *r, int d, int64_t lead, int from, int to) {
    const astra_emu_state *st = r->state;
    if (st->kind[d] != KIND_RHD)
        return lead_shift(r->sys, lead, d, st->dir[d] * (int64_t)(to - from));
    if (lead < 0) return -1;
    int64_t stride = 1, p = (int64_t)r->sys->dims[d].npus;
    for (int k = 0; k < d; k++)
        stride *= (int64_t)r->sys->dims[k].npus;
    int64_t c = lead / stride % p, c2 = c ^ st->xors[d][from] ^ st->xors[d][to];
    return lead + (c2 - c) * stride;
}

/* The phase on dim d goes on in order `lead` (-1: not known) from its step `step` on. */
static void follow_from(th_emu *r, int d, int64_t lead, int step) {
    astra_emu_state *st = r->state;
    st->base_first[d] = lead, st->base_step[d] = step;
}

/* The first NPU of the phase on dim d at the tick after its s-th message: from the order it
 * goes on in from a later step back to the one it started in before that step. */
static int64_t lead_at(const th_emu *r, int d, int s) {
    const astra_emu_state *st = r->state;
    if (s >= st->base_step[d]) return lead_move(r, d, st->base_first[d], st->base_step[d], s);
    return lead_move(r, d, st->start_first[d], 0, s);
}

/* The order after a phase that started in order `first`: the chains of messages of ASTRA-sim's
 * Ring.cc, one per step: an All-Reduce phase 2 (p - 1) steps, an All-to-All p (p - 1) / 2, a
 * Reduce-Scatter or All-Gather p - 1, all clockwise, but an All-Reduce's All-Gather phases,
 * which take the anticlockwise queues (Sys::generate_collective, QueueLevelHandler); the
 * exchanges of halvingDoubling (halving_lead). The direct algorithm (AllToAll.cc) sends to
 * every peer at once, to the NPU 1, 2, .. places on along the phase's direction in turn; the
 * messages from peers as far away arrive at one tick, where each NPU takes its place by the
 * first of them to reach it. Where every peer is one hop away (a switch, fully connected, a
 * ring of 3: rings are bidirectional) that makes the NPU after the first one first, as one ring
 * step (an All-Reduce two); on a larger ring of an even p the last to arrive comes from the
 * peer p / 2 hops away, which moves it by p / 2 (an All-Reduce there leaves the NPUs in no
 * rotation, and an odd ring was measured off: not known). */
static int64_t phase_lead(const th_emu *r, const th_plan *plan, int d, th_op op, int64_t first) {
    th_algorithm alg = th_astra_algorithm(r->sys, plan->type, d);
    int64_t p = (int64_t)r->sys->dims[d].npus, steps = p - 1;
    if (alg == TH_ALG_RHD) return halving_lead(r->sys, first, d, op);
    if (alg == TH_ALG_DIRECT) {
        if (r->sys->dims[d].topology == TH_TOPO_RING && p > 3)
            return op == TH_OP_AR || p % 2 ? -1 : lead_shift(r->sys, first, d, p / 2);
        steps = op == TH_OP_AR ? 2 : op == TH_OP_AG && plan->type == TH_COLL_ALLREDUCE ? -1 : 1;
        return lead_shift(r->sys, first, d, steps);
    }
    if (alg != TH_ALG_RING) return -1;
    if (op == TH_OP_AR) steps = 2 * (p - 1);
    if (op == TH_OP_A2A) steps = p * (p - 1) / 2;
    if (op == TH_OP_AG && plan->type == TH_COLL_ALLREDUCE) steps = -(p - 1);
    return lead_shift(r->sys, first, d, steps);
}

/* The reduction of a phase of input m on dim d: three local-memory passes over its part. */
static double proc_time(const th_emu *r, int d, double m) {
    double part = floor(m / (double)r->sys->dims[d].npus);
    return 3.0 * floor(part / (astra_of(r->sys)->local_mem_GBps * 1e9) * 1e9);
}

/* How long before its end the phase on dim d (its kind set) registers its last event: a
 * Reduce-Scatter's last message is reduced (PacketBundle::call registers the reduction's end,
 * at the tick itself when the reduction takes 0 ns), any other phase's is handed over (MemBus,
 * the endpoint delay), a halvingDoubling Reduce-Scatter's too (it reduces each message but the
 * last before it sends the next, astra_rhd_steps); a direct Reduce-Scatter whose reduction
 * takes 0 ns is placed as its hand-over back, the endpoint delay before (measured:
 * tests/test_chakra.c, chakra_themis_direct_rs_end). */
static double end_wait(const th_emu *r, int d, th_op op, double m) {
    const astra_emu_state *st = r->state;
    double ep = astra_of(r->sys)->endpoint;
    if (op != TH_OP_RS || st->kind[d] == KIND_RHD) return ep;
    double proc = proc_time(r, d, m);
    int direct = st->kind[d] == KIND_DIRECT || st->kind[d] == KIND_DRING;
    return proc > 0 || !direct ? proc : ep;
}

/* The same for the halvingDoubling or direct phase on dim d: its messages (rounds of them,
 * direct) one after the other (astra_rhd_steps, astra_direct_steps), each handed back ep after
 * it arrived and then, when it is reduced, the reduction's end; 0 when they do not add up to
 * the phase's time. */
static int step_ticks(const th_emu *r, int d, double *t, int *steps, double *reg, int max) {
    const astra_emu_state *st = r->state;
    double nt[RHD_MAX], red[RHD_MAX], ep = astra_of(r->sys)->endpoint;
    int64_t off[RHD_MAX];
    const th_dim *dim = &r->sys->dims[d];
    int n = st->kind[d] == KIND_RHD
                ? astra_rhd_steps(r->sys, dim, st->op[d], st->size[d], nt, red, off, RHD_MAX)
                : astra_direct_steps(r->sys, dim, st->op[d], st->size[d], nt, red, RHD_MAX);
    if (n <= 0 || 2 * n + 1 > max) return 0;
    double x = st->start_at[d] + ep;
    int k = 0;
    steps[k] = 0, reg[2 * k] = st->start_at[d], reg[2 * k + 1] = st->start_reg[d], t[k++] = x;
    for (int i = 0; i < n; i++) {
        x += nt[i] + ep;
        steps[k] = i + 1, reg[2 * k] = x - ep, reg[2 * k + 1] = x - ep - nt[i], t[k++] = x;
        if (red[i] > 0)
            steps[k] = i + 1, reg[2 * k] = x, reg[2 * k + 1] = x - ep, t[k++] = x += red[i];
    }
    return x == st->start_at[d] + st->time[d] ? k : 0;
}

/* The same for a direct phase on a ring of an even p > 2 NPUs (astra_direct_ring_steps): its
 * first hand-over, then for each distance h the hand-over back of the messages of the peers h
 * hops away (the first NPU there h places after the one that sent first) and their reduction's
 * end, in time order; 0 when they do not end at the phase's end. */
static int ring_direct_ticks(const th_emu *r, int d, double *t, int *steps, double *reg, int max) {
    const astra_emu_state *st = r->state;
    double nt[RHD_MAX], red[RHD_MAX], ep = astra_of(r->sys)->endpoint;
    int n =
        astra_direct_ring_steps(r->sys, &r->sys->dims[d], st->op[d], st->size[d], nt, red, RHD_MAX);
    if (n <= 0 || 2 * n + 1 > max) return 0;
    double x0 = st->start_at[d] + ep, last = x0;
    int k = 0;
    steps[k] = 0, reg[2 * k] = st->start_at[d], reg[2 * k + 1] = st->start_reg[d], t[k++] = x0;
    for (int h = 1; h <= n; h++) {
        double x = x0 + nt[h - 1] + ep;
        for (int e = 0; e < 1 + (red[h - 1] > 0); e++, x += red[h - 1]) {
            int at = k++; /* insertion in time order, later steps after earlier ones */
            for (; at > 0 && t[at - 1] > x; at--) {
                t[at] = t[at - 1], steps[at] = steps[at - 1];
                reg[2 * at] = reg[2 * at - 2], reg[2 * at + 1] = reg[2 * at - 1];
            }
            t[at] = x, steps[at] = h;
            reg[2 * at] = e ? x - red[h - 1] : x - ep;
            reg[2 * at + 1] = e ? x - red[h - 1] - ep : x0;
            if (x > last) last = x;
        }
    }
    return last == st->start_at[d] + st->time[d] ? k : 0;
}

/* The ticks (ns) at which every NPU runs an event of the ring phase on dim d (into t, at most
 * max; returns how many, 0 when it is not a ring phase): its first hand-over to the network,
 * then per message its hand-over back from the network and, when it is reduced (every message
 * of a Reduce-Scatter, the first p - 1 of an All-Reduce), the reduction's end
 * (Sys::try_register_event through MemBus and PacketBundle; the step time less these is the
 * message's). */
static int phase_ticks(const th_emu *r, int d, double *t, int *steps, double *reg, int max) {
    const astra_emu_state *st = r->state;
    if (st->kind[d] == KIND_DRING) return ring_direct_ticks(r, d, t, steps, reg, max);
    if (st->kind[d] == KIND_RHD || st->kind[d] == KIND_DIRECT)
        return step_ticks(r, d, t, steps, reg, max);
    if (st->kind[d] != KIND_RING) return 0;
    th_op op = st->op[d];
    double p = (double)r->sys->dims[d].npus, ep = astra_of(r->sys)->endpoint;
    double n = op == TH_OP_AR ? 2 * (p - 1) : op == TH_OP_A2A ? p * (p - 1) / 2 : p - 1;
    double nproc = op == TH_OP_AR || op == TH_OP_RS ? p - 1 : 0;
    double proc = nproc > 0 ? proc_time(r, d, st->size[d]) : 0;
    double net = (st->time[d] - ep - nproc * proc) / n - ep, x = st->start_at[d] + ep;
    if (n + 1 > max || n * (1 + (proc > 0)) + 1 > max) return 0;
    int k = 0;
    /* when each was registered, and when what registered it was: the first hand-over at the
     * start; a hand-over back as its message arrived, sent net before; a reduction's end as the
     * hand-over before it ran */
    steps[k] = 0, reg[2 * k] = st->start_at[d], reg[2 * k + 1] = st->start_reg[d], t[k++] = x;
    for (int i = 0; i < (int)n; i++) {
        x += net + ep;
        steps[k] = i + 1, reg[2 * k] = x - ep, reg[2 * k + 1] = x - ep - net, t[k++] = x;
        if (i < nproc && proc > 0)
            steps[k] = i + 1, reg[2 * k] = x, reg[2 * k + 1] = x - ep, t[k++] = x += proc;
    }
    return k;
}

/* The three ticks (ns) that order the end of the ring phase on dim d among the ends of its
 * tick on every NPU (into key): when its end was registered, when the event that registered it
 * was, and when its last message was sent (phase_ticks' last event: a Reduce-Scatter's last
 * reduction, registered by its hand-over back, which its message's arrival registered; any
 * other phase's last hand-over back, registered as its message arrived, sent net before).
 * Returns 0 where they are not derived: not a ring's phase, or no endpoint delay. */
static int end_keys(const th_emu *r, int d, double key[3]) {
    const astra_emu_state *st = r->state;
    double ep = astra_of(r->sys)->endpoint;
    if (st->kind[d] != KIND_RING || ep <= 0) return 0;
    th_op op = st->op[d];
    double p = (double)r->sys->dims[d].npus;
    double n = op == TH_OP_AR ? 2 * (p - 1) : op == TH_OP_A2A ? p * (p - 1) / 2 : p - 1;
    double nproc = op == TH_OP_AR || op == TH_OP_RS ? p - 1 : 0;
    double proc = nproc > 0 ? proc_time(r, d, st->size[d]) : 0;
    double net = (st->time[d] - ep - nproc * proc) / n - ep, t = st->start_at[d] + st->time[d];
    if (op == TH_OP_RS) { /* the reduction's end, at the hand-over's tick when it takes 0 ns */
        key[0] = t - proc, key[1] = t - proc - ep, key[2] = t - proc - ep - net;
    } else {
        key[0] = t - ep, key[1] = key[2] = t - ep - net;
    }
    return 1;
}

/* 1 when every message of the ring phase on dim d is reduced in no time (a Reduce-Scatter
 * whose reduction takes 0 ns: PacketBundle still runs it as an event of the same tick). */
static int reduced_at_once(const th_emu *r, int d) {
    const astra_emu_state *st = r->state;
    return st->op[d] == TH_OP_RS && proc_time(r, d, st->size[d]) == 0;
}

/* The three ticks that order the end of the phase on dim d (one whose ticks are derived:
 * phase_ticks) among the ends of its tick on each NPU, as end_keys for a ring's, for the hang
 * check: when its end was registered, when the event that registered it was, and when its
 * last message was sent. A reduced last message (a Reduce-Scatter's, but halvingDoubling's
 * last) registers the end as it is handed back, at the tick itself when the reduction takes
 * 0 ns; any other end is registered as its message arrives. Returns 0 where not derived. */
static int tie_keys(th_emu *r, int d, double key[3]) {
    enum { MAX_TICKS = 512 };
    const astra_emu_state *st = r->state;
    double t[MAX_TICKS], reg[2 * MAX_TICKS];
    int steps[MAX_TICKS];
    if (st->kind[d] == KIND_RING) return end_keys(r, d, key);
    int n = phase_ticks(r, d, t, steps, reg, MAX_TICKS), k = n - 1;
    if (n == 0 || astra_of(r->sys)->endpoint <= 0) return 0;
    if (k > 0 && steps[k] == steps[k - 1]) /* its reduction's end, after the hand-over back */
        key[0] = reg[2 * k], key[1] = reg[2 * k + 1], key[2] = reg[2 * k - 1];
    else if (st->op[d] == TH_OP_RS && st->kind[d] != KIND_RHD) /* reduced in 0 ns */
        key[0] = t[k], key[1] = reg[2 * k], key[2] = reg[2 * k + 1];
    else
        key[0] = reg[2 * k], key[1] = key[2] = reg[2 * k + 1];
    return 1;
}

/* After two ring phases parted at a meeting (a[i] == b[j]) where the NPUs ran the leader's
 * (bundle) events first: when the leader's messages are reduced in no time and the other's are
 * not reduced at all, each NPU registers the other's next hand-over first (the leader's waits
 * for its reduction's event of the same tick), so while the two keep meeting the other's
 * messages lead, and the leader goes on from the other's end in its order. */
static void behind_unreduced(th_emu *r, int d, int e, int bundle, const double *a, const double *b,
                             const int *sa, const int *sb, int i, int j, int na, int nb) {
    astra_emu_state *st = r->state;
    int lead = bundle == 1 ? d : e, other = bundle == 1 ? e : d;
    if (!reduced_at_once(r, lead) || st->op[other] == TH_OP_RS || st->op[other] == TH_OP_AR) return;
    while (i + 1 < na && j + 1 < nb && a[i + 1] == b[j + 1])
        i++, j++;
    int last = other == e ? j == nb - 1 && i < na - 1 : i == na - 1 && j < nb - 1;
    if (!last || st->end_first[other] < 0) return;
    int from = lead == d ? sa[i] : sb[j], to = lead == d ? sa[na - 1] : sb[nb - 1];
    follow_from(r, lead, st->end_first[other], from);
    st->end_first[lead] = lead_move(r, lead, st->end_first[other], from, to);
}

/* One side of a meeting of two phases: the ticks of a phase's events (phase_ticks: t, reg,
 * step; n of them) and the index `at` of the one where the two meet. */
typedef struct {
    const double *t, *reg;
    const int *step;
    int n, at;
} meet_side;

/* After the phase f parted from the leader's l at their meeting (x0 the leader's first NPU
 * there): when the leader's event there is the hand-over back of a message reduced in no time
 * (its next message leaves in the reduction's event, which every NPU runs after the
 * follower's) and the follower's is its first hand-over (its messages leave at once), and the
 * messages both sent there arrive at one tick, each NPU's place at that tick is set by the
 * first message to reach it: the follower's first NPU there leads the leader (on dim ld) too,
 * which goes on in its order. */
static void overtaken(th_emu *r, int ld, int fd, int64_t x0, const meet_side *l,
                      const meet_side *f) {
    astra_emu_state *st = r->state;
    if (x0 < 0 || !reduced_at_once(r, ld) || l->step[l->at] == 0 || f->step[f->at] != 0) return;
    double at = l->t[l->at];
    int i = l->at + 1, j = f->at + 1; /* their next meeting */
    while (i < l->n && j < f->n && l->t[i] != f->t[j]) {
        if (l->t[i] < f->t[j])
            i++;
        else
            j++;
    }
    if (i == l->n || j == f->n || l->reg[2 * i + 1] != at || f->reg[2 * j + 1] != at ||
        l->reg[2 * i] != f->reg[2 * j])
        return;
    int64_t y = lead_move(r, fd, x0, f->step[f->at], f->step[j]);
    follow_from(r, ld, y, l->step[i]);
    st->end_first[ld] = lead_move(r, ld, y, l->step[i], l->step[l->n - 1]);
}

/* 1 when a phase running on a third dim (not d or e) has an event at tick x registered before
 * the ones of d and e there (at reg, by an event at reg2): it sets the NPUs' place at x, so the
 * tie of d and e settles nothing; each follows it (its own meeting with that phase). */
static int led_by_third(th_emu *r, int d, int e, double x, double reg, double reg2) {
    enum { MAX_TICKS = 512 };
    double t[MAX_TICKS], rt[2 * MAX_TICKS];
    int s[MAX_TICKS];
    for (int f = 0; f < r->sys->ndims; f++) {
        if (f == d || f == e || !r->srv[f].busy) continue;
        int n = phase_ticks(r, f, t, s, rt, MAX_TICKS);
        for (int k = 0; k < n && t[k] <= x; k++)
            if (t[k] == x && (rt[2 * k] < reg || (rt[2 * k] == reg && rt[2 * k + 1] >= 0 &&
                                                  reg2 >= 0 && rt[2 * k + 1] < reg2)))
                return 1;
    }
    return 0;
}

/* When the phase that starts on dim d and one running on another dim (ring phases, and the
 * halvingDoubling and direct ones whose ticks are derived: phase_ticks), in other orders,
 * have events at one tick on every NPU (not both their ends, which step orders), ASTRA-sim
 * runs both in each NPU's place of that tick, set by the first of them registered
 * (Sys::try_register_event): from there both phases go in the order of the one registered
 * first (at one tick, of the one whose registering event was); not known when that is not.
 * A direct phase on a ring that would follow past its first tick keeps its order: it sent all
 * its messages at that tick (AllToAll.cc), and they arrive by distance in that order. */
static void check_meet(th_emu *r, int d) {
    astra_emu_state *st = r->state;
    enum { MAX_TICKS = 512 };
    double a[MAX_TICKS], b[MAX_TICKS];
    int sa[MAX_TICKS], sb[MAX_TICKS];
    double ra[2 * MAX_TICKS], rb[2 * MAX_TICKS];
    /* without an endpoint delay the hand-overs fall on the phases' own boundaries, which the
     * order of phase ends (step) already settles */
    if (astra_of(r->sys)->endpoint <= 0) return;
    int na = phase_ticks(r, d, a, sa, ra, MAX_TICKS);
    if (na == 0) return;
    for (int e = 0; e < r->sys->ndims; e++) {
        if (e == d || !r->srv[e].busy) continue;
        int nb = phase_ticks(r, e, b, sb, rb, MAX_TICKS);
        int bundle = 0; /* whose events the NPUs run first where both met in one order */
        int parted = 0;
        for (int i = 0, j = 0; i < na && j < nb;) {
            if (a[i] < b[j]) {
                i++;
            } else if (b[j] < a[i]) {
                j++;
            } else {
                int64_t la = lead_at(r, d, sa[i]), lb = lead_at(r, e, sb[j]);
                if (la < 0 && lb < 0) break; /* neither order known: nothing to follow */
                double a1 = ra[2 * i], a2 = ra[2 * i + 1], b1 = rb[2 * j], b2 = rb[2 * j + 1];
                if (la == lb && !(i == na - 1 && j == nb - 1)) {
                    /* one order here: each NPU runs both events together, first the one
                     * registered first; at one registration the phase that took a freed dim
                     * (Sys::proceed_to_next_vnet_baseline starts it before the stream that
                     * left moves on) unless the other took one too, else the one started
                     * first (of two that took dims freed at one instant, the one freed
                     * first). Where their orders part at a later tick both registered at
                     * once, that one's messages lead. */
                    if (parted)
                        ; /* the leader of their parting still leads */
                    else if (a1 != b1)
                        bundle = a1 < b1 ? 1 : 2;
                    else if (a2 != b2 && a2 >= 0 && b2 >= 0)
                        bundle = a2 < b2 ? 1 : 2;
                    else if (sa[i] == 0 && sb[j] == 0 && st->start_at[e] == r->t)
                        bundle = st->freed && !st->start_freed[e] ? 1 : 2;
                    else
                        bundle = 0;
                    i++, j++;
                    continue;
                }
                if (la != lb && !(i == na - 1 && j == nb - 1)) {
                    int nd = sa[na - 1], ne = sb[nb - 1];
                    /* a third phase's event there registered before both sets the NPUs'
                     * place: each of the two follows it (its own meeting with it) */
                    int early = a1 < b1 || (a1 == b1 && a2 >= 0 && (b2 < 0 || a2 <= b2));
                    if (led_by_third(r, d, e, a[i], early ? a1 : b1, early ? a2 : b2)) break;
                    /* the one that follows: -1 both (not known) */
                    int fol = a1 == b1 && (a2 == b2 || a2 < 0 || b2 < 0) ? (bundle == 1   ? e
                                                                            : bundle == 2 ? d
                                                                                          : -1)
                              : a1 < b1 || (a1 == b1 && a2 < b2)         ? e
                                                                         : d;
                    if (st->kind[d] == KIND_RHD && st->kind[e] == KIND_RHD && sa[i] > 0 &&
                        sb[j] > 0 && la >= 0 && lb >= 0) {
                        /* two halvingDoubling phases part after messages of both: the NPUs'
                         * orders there are no rotations the first NPU stands for, and
                         * following the one registered first was measured off: not known */
                        follow_from(r, d, -1, sa[i]), follow_from(r, e, -1, sb[j]);
                        st->end_first[d] = st->end_first[e] = -1;
                        break;
                    }
                    if (la < 0 || lb < 0) {
                        /* one order not known: the other phase's is not known from here where
                         * it follows (or ties), and it keeps its own where it leads, the one
                         * not known staying so (its NPUs' order need not be a rotation); that
                         * one may lead it at a later meeting */
                        if (la >= 0 && fol != e)
                            follow_from(r, d, -1, sa[i]), st->end_first[d] = -1;
                        if (lb >= 0 && fol != d)
                            follow_from(r, e, -1, sb[j]), st->end_first[e] = -1;
                        i++, j++;
                        continue;
                    }
                    if (fol >= 0 && st->kind[fol] == KIND_DRING && (fol == d ? sa[i] : sb[j]) > 0)
                        break; /* a direct phase on a ring past its first hand-over: its
                                * later messages were all sent then, in its own order */
                    if (a1 == b1 && (a2 == b2 || a2 < 0 || b2 < 0) && bundle > 0) {
                        if (bundle == 1)
                            follow_from(r, e, la, sb[j]),
                                st->end_first[e] = lead_move(r, e, la, sb[j], ne);
                        else
                            follow_from(r, d, lb, sa[i]),
                                st->end_first[d] = lead_move(r, d, lb, sa[i], nd);
                        int64_t ed = st->end_first[d], ee = st->end_first[e];
                        behind_unreduced(r, d, e, bundle, a, b, sa, sb, i, j, na, nb);
                        if (r->sys->dims[d].npus == r->sys->dims[e].npus &&
                            ed == st->end_first[d] && ee == st->end_first[e]) {
                            /* on dims of as many NPUs the two go on meeting at each message
                             * (the order turns diagonal): every NPU runs its events of both
                             * in the order they were registered, so the first NPU keeps
                             * running the leader's first and the other phase follows the
                             * leader's order at each later tick both registered at once */
                            i++, j++, parted = 1;
                            continue;
                        }
                    } else if (a1 == b1 && (a2 == b2 || a2 < 0 || b2 < 0)) {
                        follow_from(r, d, -1, sa[i]), follow_from(r, e, -1, sb[j]);
                        st->end_first[d] = st->end_first[e] = -1;
                    } else {
                        meet_side sd = {a, ra, sa, na, i}, se = {b, rb, sb, nb, j};
                        if (fol == e) { /* e follows d from here */
                            follow_from(r, e, la, sb[j]);
                            st->end_first[e] = lead_move(r, e, la, sb[j], ne);
                            overtaken(r, d, e, la, &sd, &se);
                        } else {
                            follow_from(r, d, lb, sa[i]);
                            st->end_first[d] = lead_move(r, d, lb, sa[i], nd);
                            overtaken(r, e, d, lb, &se, &sd);
                        }
                    }
                }
                break;
            }
        }
    }
}

/* What is known of the ticks of the phase of op, input m, starting on dim d under alg: a
 * ring's, a halvingDoubling one's with its partners' offsets XORed message by message, a
 * direct one's whose peers' messages arrive together (astra_direct_steps) or, on an even ring,
 * arrive by distance (astra_direct_ring_steps). */
static void set_kind(th_emu *r, int d, th_algorithm alg, th_op op, double m) {
    astra_emu_state *st = r->state;
    double nt[RHD_MAX], red[RHD_MAX];
    int64_t off[RHD_MAX];
    int n;
    st->kind[d] = 0;
    if (alg == TH_ALG_RING) {
        st->kind[d] = KIND_RING;
    } else if (alg == TH_ALG_RHD &&
               (n = astra_rhd_steps(r->sys, &r->sys->dims[d], op, m, nt, red, off, RHD_MAX)) > 0) {
        st->kind[d] = KIND_RHD;
        st->xors[d][0] = 0;
        for (int k = 0; k < n; k++)
            st->xors[d][k + 1] = st->xors[d][k] ^ off[k];
    } else if (alg == TH_ALG_DIRECT &&
               astra_direct_steps(r->sys, &r->sys->dims[d], op, m, nt, red, RHD_MAX) > 0) {
        st->kind[d] = KIND_DIRECT;
    } else if (alg == TH_ALG_DIRECT &&
               astra_direct_ring_steps(r->sys, &r->sys->dims[d], op, m, nt, red, RHD_MAX) > 0) {
        st->kind[d] = KIND_DRING;
    }
}

/* Dim d takes the phase at the head of its list and runs it from now, started in the NPUs'
 * order `first`; -1 when its time is refused (emu_begin). */
static int start(th_emu *r, int d, int64_t first) {
    emu_entry e = emu_run_pop(queue(r, d)); /* the preset's lists are never heaps: the head */
    const emu_coll *cr = emu_rec(r, e.coll);
    int stage = cr->next[e.chunk], dim;
    th_op op;
    double m;
    th_plan_stage(cr->plan, e.chunk, stage, &dim, &op, &m);
    double time, bytes;
    phase_cost(r, d, th_astra_algorithm(r->sys, cr->plan->type, d), op, m, &time, &bytes);
    astra_emu_state *st = r->state;
    st->end_first[d] = phase_lead(r, cr->plan, d, op, first);
    st->start_at[d] = r->t, st->size[d] = m, st->time[d] = time, st->op[d] = op;
    st->start_first[d] = first;
    st->start_freed[d] = st->freed;
    follow_from(r, d, first, 0);
    set_kind(r, d, th_astra_algorithm(r->sys, cr->plan->type, d), op, m);
    st->end_wait[d] = end_wait(r, d, op, m);
    st->start_reg[d] = st->trigger_reg;
    st->dir[d] = op == TH_OP_AG && cr->plan->type == TH_COLL_ALLREDUCE ? -1 : 1;
    int rc = emu_begin(r, d, e, stage, op, m, time, bytes);
    if (rc == 0) check_meet(r, d);
    return rc;
}

/* The preset's state, made at its first use after a reset; NULL when out of memory. */
static astra_emu_state *made(th_emu *emu) {
    if (!emu->state) {
        if (!(emu->state = calloc(1, sizeof(astra_emu_state)))) return NULL;
        emu->state_model = &astra_emu;
    }
    return emu->state;
}

static int issue(th_emu *emu, const th_plan *plan, double t, int *id, th_error *err) {
    /* ASTRA-sim's workload layer issues a collective once the last one ended (a graph replay
     * releases each before the next): the last id issued must be released */
    if (emu->nbusy > 0 || (emu->ncolls > 0 && emu->rec_of[emu->ncolls - 1] >= 0))
        return th_error_set(err, TH_EINPUT, "the astra-sim preset runs one collective at a time");
    if (!made(emu)) return th_error_set(err, TH_EINTERNAL, "out of memory");
    /* ASTRA-sim generates a collective issued as the last one ends inside that one's last
     * stream's end, before the stream leaves its dim: there the new chunks all queue (in the
     * preset's order) and the head starts once every chunk is queued, at the same instant. */
    astra_emu_state *st = emu->state;
    int held = st->held && st->held_at == t ? st->held - 1 : -1, k;
    if (held < 0) st->trigger_reg = -1; /* issued by a compute node: not known */
    st->held = 0;
    if (st->parted) {
        st->hang = 1;
        return th_error_set(
            err, TH_EINPUT,
            "ASTRA-sim 2.x would not finish: at %.17g ns two chunks of the first collective ended "
            "phases at one tick with nothing to order them and went on to dim %d; themis "
            "replays that collective, but the NPUs take the two ends in orders that differ from "
            "ring to ring, which themis does not follow, and a later collective can wait for "
            "ever (docs/CHAKRA.md, Limits)",
            st->parted_at, st->parted_dim);
    }
    if (emu_admit(emu, plan, t, &k, err)) return err->code;
    for (uint32_t i = 0; i < (uint32_t)plan->chunks; i++) {
        int dim = enqueue(emu, (uint32_t)k, i, 0);
        if (dim < 0) return th_error_set(err, TH_EINTERNAL, "out of memory in a queue");
        if (dim != held && !emu->srv[dim].busy && start(emu, dim, st->issue_first))
            return emu_bad_stage(emu, err);
    }
    if (held >= 0 && !emu->srv[held].busy && emu_waiting(queue(emu, held)) &&
        start(emu, held, st->issue_first))
        return emu_bad_stage(emu, err);
    if (id) *id = k;
    return TH_OK;
}

/* What one phase ending now does to dim f's queue (the hang check below): its stream leaves
 * f, whose head then starts, or it queues its chunk's next phase x on f (or both: its next
 * phase is on f too, queued before f takes its head, Sys::proceed_to_next_vnet_baseline). */
typedef struct touch {
    int free;     /* 1: leaves f; 0: queues x on f */
    int requeue;  /* with free: it also queues x on f */
    int append;   /* x goes to the tail (enqueue's rule) */
    emu_entry x;  /* the phase it queues */
    double reg;   /* when its end was registered, ns */
    double start; /* when the phase that ends started, ns */
    int dim;      /* the dim it ends on */
    int keyed;    /* 1: key holds end_keys' three ticks */
    double key[3];
} touch;

/* Dim f's running phase and then its waiting ones, as (collective, chunk) + 1 into out (room
 * for the queue's entries, the touches and one more; key as much), after the touches in order
 * ord (the preset's insertion, list_insert; a free dim takes its head at once,
 * SchedulerUnit::notify_stream_added and notify_stream_removed); returns how many. */
static size_t touch_outcome(th_emu *emu, int f, const touch *tc, const int *ord, int n,
                            uint64_t *out, double *key) {
    const emu_queue *q = queue(emu, f);
    uint64_t *w = out + 1;
    size_t nw = 0;
    int run = emu->srv[f].busy;
    uint64_t running = (uint64_t)emu->srv[f].coll << 24 | emu->srv[f].chunk;
    for (size_t k = q->head; k < q->n; k++, nw++)
        w[nw] = (uint64_t)q->e[k].coll << 24 | q->e[k].chunk, key[nw] = q->e[k].m;
    for (int i = 0; i < n; i++) {
        const touch *t = &tc[ord[i]];
        if (t->free && !t->requeue) {
            run = 0;
        } else {
            size_t at = nw;
            if (!t->append)
                for (at = 0; at < nw && key[at] < t->x.m; at++) {
                }
            memmove(w + at + 1, w + at, sizeof *w * (nw - at));
            memmove(key + at + 1, key + at, sizeof *key * (nw - at));
            w[at] = (uint64_t)t->x.coll << 24 | t->x.chunk, key[at] = t->x.m, nw++;
            if (t->free) run = 0;
        }
        if (!run && nw > 0) {
            running = w[0], run = 1, nw--;
            memmove(w, w + 1, sizeof *w * nw);
            memmove(key, key + 1, sizeof *key * nw);
        }
    }
    out[0] = run ? running + 1 : 0;
    return 1 + nw;
}

/* 1 when the tie of the ends u and v on dim f cannot block ASTRA-sim, measured (docs/CHAKRA.md,
 * Limits): in the first collective since the reset, with no tie replayed before, two ring
 * phases end on two other dims and queue their chunks' next phases on f, these are the
 * collective's last two chunks, and after f their phases take dims that neither f nor the
 * other's take. The NPUs may still take the two in orders that part from ring to ring: the
 * tie is replayed, and every later collective refused (issue). */
static int cannot_block(const th_emu *emu, int f, const touch *u, const touch *v) {
    const astra_emu_state *st = emu->state;
    if (st->parted || u->free || v->free || !u->keyed || !v->keyed || u->dim == v->dim ||
        u->x.coll != 0 || v->x.coll != 0)
        return 0;
    const emu_coll *cr = emu_rec(emu, 0);
    if (cr->left != 2) return 0;
    unsigned used = 0;
    for (int w = 0; w < 2; w++) {
        uint32_t c = (w ? v : u)->x.chunk;
        unsigned mask = 0;
        for (int s = cr->next[c] + 2; s < cr->plan->nstages; s++) { /* its phases after f */
            int dim;
            th_op op;
            double m;
            th_plan_stage(cr->plan, c, s, &dim, &op, &m);
            if (dim == f) return 0;
            mask |= 1u << dim;
        }
        if (mask & used) return 0;
        used |= mask;
    }
    return 1;
}

/* Refuses what ASTRA-sim 2.x would never finish (docs/CHAKRA.md, Limits). Each NPU runs the
 * ends of phases at one tick in its own order (Sys::try_register_event: its events of a tick
 * in the order they were registered), and as it runs one it takes the phase's stream out of
 * its dim or puts it into its next dim's queue (Sys::proceed_to_next_vnet_baseline,
 * insert_stream), a free dim starting its head at once (SchedulerUnit). Where two such ends
 * touch one dim f and which phase f runs next, or the order of its queue, depends on which
 * comes first, NPUs of one ring of f that take them in other orders run different chunks on
 * f, each waiting for the message of its own chunk that its predecessor holds back: the run
 * stops with unreleased nodes. Two ends registered at different ticks come in one order on
 * every NPU, and so do two whose registering events or last messages' sends fall at different
 * ticks (tie_keys; step replays the order of ring phases' ends); where all three tie, each NPU
 * takes first the end whose message reached it first, which follows the whole order of the
 * NPUs' sends, not only the first NPU that themis follows. So the check takes the ends whose
 * three ticks tie, and of phases whose ticks are not derived those registered at one tick by
 * phases that also started at one tick, the conditions measured to catch the orders that part
 * (docs/CHAKRA.md). An end whose chunk goes on to the dim it leaves queues it there before
 * the dim takes its next phase (Sys::proceed_to_next_vnet_baseline). */
static int check_hang(th_emu *emu, const int *ending, int nend, th_error *err) {
    astra_emu_state *st = emu->state;
    double keys[TH_MAX_DIMS][3];
    int keyed[TH_MAX_DIMS];
    for (int k = 0; k < nend && nend > 1; k++)
        keyed[k] = tie_keys(emu, ending[k], keys[k]);
    for (int f = 0; f < emu->sys->ndims && nend > 1; f++) {
        touch tc[TH_MAX_DIMS];
        int n = 0;
        for (int k = 0; k < nend; k++) {
            int d = ending[k], stage, dim;
            const emu_coll *cr = emu_rec(emu, emu->srv[d].coll);
            uint32_t c = emu->srv[d].chunk;
            touch t = {.reg = emu->t - st->end_wait[d], .start = st->start_at[d], .dim = d};
            t.free = d == f;
            t.keyed = keyed[k];
            memcpy(t.key, keys[k], sizeof t.key);
            dim = -1;
            th_op op = TH_OP_RS;
            double m = 0;
            if ((stage = cr->next[c] + 1) < cr->plan->nstages)
                th_plan_stage(cr->plan, c, stage, &dim, &op, &m);
            if (dim == f) { /* its chunk's next phase is queued on f */
                t.requeue = t.free;
                t.x = (emu_entry){.m = op == TH_OP_AG ? m * cr->plan->npus[dim] : m,
                                  .coll = emu->srv[d].coll,
                                  .chunk = c};
                t.append = !emu->scf || op == TH_OP_AR || op == TH_OP_A2A ||
                           stage == cr->plan->nstages - 2;
            } else if (!t.free) {
                continue;
            }
            tc[n++] = t;
        }
        for (int i = 0; i < n; i++)
            for (int j = i + 1; j < n; j++) {
                if (tc[i].keyed && tc[j].keyed
                        ? memcmp(tc[i].key, tc[j].key, sizeof tc[i].key)
                        : tc[i].reg != tc[j].reg || tc[i].start != tc[j].start)
                    continue;
                int ord[TH_MAX_DIMS], m = 2; /* the two in either order, then the others */
                for (int k = 0; k < n; k++)
                    if (k != i && k != j) ord[m++] = k;
                size_t room = queue(emu, f)->n - queue(emu, f)->head + (size_t)n + 1;
                if (room > st->touch_cap) { /* kept across steps: grown, never shrunk */
                    uint64_t *a = realloc(st->touch_out, 2 * room * sizeof *a);
                    if (a) st->touch_out = a;
                    double *key = a ? realloc(st->touch_key, room * sizeof *key) : NULL;
                    if (key) st->touch_key = key;
                    if (!a || !key) return th_error_set(err, TH_EINTERNAL, "out of memory");
                    st->touch_cap = room;
                }
                uint64_t *a = st->touch_out;
                ord[0] = i, ord[1] = j;
                size_t na = touch_outcome(emu, f, tc, ord, n, a, st->touch_key);
                ord[0] = j, ord[1] = i;
                if (na == touch_outcome(emu, f, tc, ord, n, a + room, st->touch_key) &&
                    !memcmp(a, a + room, sizeof *a * na))
                    continue;
                if (cannot_block(emu, f, &tc[i], &tc[j])) {
                    st->parted = 1, st->parted_at = emu->t, st->parted_dim = f;
                    continue;
                }
                const touch *x = tc[i].free ? &tc[j] : &tc[i], *y = x == &tc[i] ? &tc[j] : &tc[i];
                char other[96], by[160];
                if (x->keyed && y->keyed)
                    snprintf(by, sizeof by,
                             "by events registered at %.17g ns, their last messages sent at "
                             "%.17g ns",
                             x->key[1], x->key[2]);
                else
                    snprintf(by, sizeof by, "by phases started at %.17g ns", x->start);
                if (y->free)
                    snprintf(other, sizeof other, "the phase running on dim %d leaves it", f);
                else
                    snprintf(other, sizeof other, "so does chunk %u's on dim %d",
                             (unsigned)y->x.chunk, y->dim);
                st->hang = 1;
                return th_error_set(
                    err, TH_EINPUT,
                    "ASTRA-sim 2.x would not finish: at %.17g ns chunk %u's phase on dim %d ends "
                    "and goes on to dim %d, and %s, both ends registered at %.17g ns %s; what "
                    "dim %d runs next depends on which end an NPU takes "
                    "first, the NPUs take them in orders that themis does not follow (they differ "
                    "from ring to ring), and NPUs of one ring of dim %d that run different chunks "
                    "there wait for each other for ever (docs/CHAKRA.md, Limits)",
                    emu->t, (unsigned)x->x.chunk, x->dim, f, other, x->reg, by, f, f);
            }
    }
    return TH_OK;
}

/* Of the phases ending now (ending[0 .. n - 1], win the one whose end was registered first),
 * the one whose first NPU leads: each NPU's place at a tick is set by the first event it
 * registered for it (Sys::try_register_event), a phase's end or the hand-over back that a
 * Reduce-Scatter's 0 ns reduction ends it in (phase_ticks' last tick, then when the event that
 * registered it was); win where a phase's ticks are not derived or they tie. */
static int placed_first(th_emu *emu, const int *ending, int n, int win) {
    enum { MAX_TICKS = 512 };
    double t[MAX_TICKS], reg[2 * MAX_TICKS], x[TH_MAX_DIMS], y[TH_MAX_DIMS];
    int steps[MAX_TICKS], place = win;
    if (n < 2) return win;
    for (int k = 0; k < n; k++) { /* when its event at this tick was registered, and by what */
        int m = phase_ticks(emu, ending[k], t, steps, reg, MAX_TICKS);
        if (m == 0 || t[m - 1] != emu->t) return win;
        x[k] = reg[2 * (m - 1)], y[k] = reg[2 * (m - 1) + 1];
    }
    for (int k = 0; k < n; k++)
        if (x[k] < x[place] || (x[k] == x[place] && y[k] >= 0 && y[k] < y[place])) place = k;
    return place;
}

/* The phases ending now complete in the order they started; each in turn queues its chunk's
 * next phase (starting it if that dim is idle), then its freed dim takes its next waiting
 * phase. All that follows now follows in the order of the phase whose event at this tick was
 * registered first (placed_first): ASTRA-sim runs every event an NPU registered for one tick
 * together, where the first of them puts it in the instant's order (Sys::try_register_event);
 * at one registration tick, the phase that started first (docs/CHAKRA.md). */
static int step(th_emu *emu, th_error *err) {
    astra_emu_state *st = emu->state;
    int ending[TH_MAX_DIMS], nend = emu_ending(emu, ending);
    for (int k = 1; k < nend; k++) { /* insertion sort by start order */
        int d = ending[k], j = k;
        for (; j > 0 && emu->srv[ending[j - 1]].seq > emu->srv[d].seq; j--)
            ending[j] = ending[j - 1];
        ending[j] = d;
    }
    int win = 0; /* registered first: the longest wait, then the first started */
    for (int k = 1; k < nend; k++)
        if (st->end_wait[ending[k]] > st->end_wait[ending[win]]) win = k;
    double key[TH_MAX_DIMS][3];
    int keyed = nend > 1;
    for (int k = 0; k < nend && keyed; k++)
        keyed = end_keys(emu, ending[k], key[k]);
    if (keyed) { /* every end a ring phase's: in end_keys' order, then started (SPEC §9) */
        for (int k = 1; k < nend; k++) {
            int d = ending[k], j = k;
            double x[3] = {key[k][0], key[k][1], key[k][2]};
            for (; j > 0 && (key[j - 1][0] != x[0]   ? key[j - 1][0] > x[0]
                             : key[j - 1][1] != x[1] ? key[j - 1][1] > x[1]
                                                     : key[j - 1][2] > x[2]);
                 j--) {
                ending[j] = ending[j - 1];
                memcpy(key[j], key[j - 1], sizeof key[j]);
            }
            ending[j] = d;
            memcpy(key[j], x, sizeof x);
        }
        win = 0;
    }
    if (check_hang(emu, ending, nend, err)) return err->code;
    int64_t first = nend ? st->end_first[ending[placed_first(emu, ending, nend, win)]] : -1;
    st->trigger_reg = nend ? emu->t - st->end_wait[ending[win]] : -1;
    for (int k = 0; k < nend; k++) {
        int d = ending[k];
        uint32_t c, id;
        int done = emu->ndone, stage = emu_end(emu, d, &c, &id, err);
        if (stage == -2) return err->code;
        if (emu->ndone > done) { /* this stage ended its collective: remember where */
            st->held = d + 1, st->held_at = emu->t;
            st->coll_first = first;
        }
        int next = stage >= 0 ? enqueue(emu, id, c, stage) : -1;
        if (stage >= 0 && next < 0)
            return th_error_set(err, TH_EINTERNAL, "out of memory in a queue");
        st->freed = 1;
        if (!emu->srv[d].busy && emu_waiting(queue(emu, d)) && start(emu, d, first))
            return emu_bad_stage(emu, err);
        st->freed = 0;
        if (next >= 0 && !emu->srv[next].busy && emu_waiting(queue(emu, next)) &&
            start(emu, next, first))
            return emu_bad_stage(emu, err);
    }
    return TH_OK;
}

/* The system's dims start empty, with no phase cost met. */
static void reset(th_emu *emu) {
    astra_emu_state *st = emu->state;
    for (int d = 0; d < emu->sys->ndims; d++) {
        st->q[d].n = st->q[d].head = 0;
        st->ncost[d] = 0;
    }
    st->held = 0;
    st->parted = 0;
    st->hang = 0;
    /* the order is followed only once a graph replay names it (astra_issue_first): a
     * collective run alone needs none, and its phases' ticks are not searched for meetings */
    st->issue_first = -1;
    st->coll_first = 0;
}

static void free_state(void *state) {
    astra_emu_state *st = state;
    for (int d = 0; d < TH_MAX_DIMS; d++)
        free(st->q[d].e);
    free(st->touch_out), free(st->touch_key);
    free(st);
}

/* The graph rules' hooks (astra_ops.c). */
int astra_issue_first(th_emu *emu, int64_t first) {
    astra_emu_state *st = made(emu);
    if (!st) return -1;
    st->issue_first = first;
    return 0;
}

/* 1 when the order after a compute node's end while the phase on dim d runs is not known: the
 * ticks of its events are not derived (a direct All-Reduce phase on a ring of more than 3
 * NPUs, a direct phase on an odd ring of more than 3). */
static int not_known(const th_emu *r, int d) {
    return r->srv[d].busy && !((const astra_emu_state *)r->state)->kind[d];
}

/* A compute node's end, registered at reg, at a tick t of a running phase's events (its end
 * too; a ring's, halvingDoubling's or direct one's, phase_ticks): every NPU runs both in its
 * place for the one registered first (Sys::try_register_event), so the phase goes on in the
 * node's order, or the node's end (and what it issues) takes the phase's order there; not known
 * when both were registered at one tick, nor at a tick where each NPU hands several messages
 * of a direct phase over (on a ring, its first; at its peers' before the last, the phase keeps
 * its order where the node's end was registered first, else not known). A node that ends between
 * two ticks leaves the phase's order as it was. A phase not_known names: its order is not known
 * once a node ends while it runs. */
int64_t astra_timed_end(th_emu *emu, double t, double reg, int64_t first) {
    astra_emu_state *st = emu->state;
    enum { MAX_TICKS = 512 };
    double a[MAX_TICKS], ra[2 * MAX_TICKS];
    int sa[MAX_TICKS];
    if (!st || astra_of(emu->sys)->endpoint <= 0) return first;
    for (int d = 0; d < emu->sys->ndims; d++) {
        if (!emu->srv[d].busy || t <= st->start_at[d] || t > st->start_at[d] + st->time[d])
            continue;
        if (not_known(emu, d)) {
            st->end_first[d] = -1;
            continue;
        }
        int n = phase_ticks(emu, d, a, sa, ra, MAX_TICKS), k = 0;
        while (k < n && a[k] != t)
            k++;
        if (k == n) continue;
        if (st->kind[d] == KIND_DRING && sa[k] > 0 && sa[k] < sa[n - 1]) {
            /* a direct phase on a ring, at the peers h < p / 2 hops away: each NPU takes their
             * two messages here in the senders' order (no rotation), and the later peers'
             * messages were all sent at its first tick: its order stays where the node's end
             * was registered first (at this tick alone), else it is not known */
            int one = 1;
            for (int j = 0; j < n; j++)
                if (a[j] == t && sa[j] != sa[k]) one = 0;
            if (!one || reg >= ra[2 * k])
                st->end_first[d] = st->start_first[d] = st->base_first[d] = first = -1;
            continue;
        }
        if ((st->kind[d] == KIND_DIRECT && emu->sys->dims[d].npus > 2) ||
            (st->kind[d] == KIND_DRING && sa[k] == 0)) {
            /* each NPU hands several messages over at this tick: the order of the node's end
             * and the phase's there was measured both ways (not known); a direct phase on a
             * ring hands them all over at its first */
            st->end_first[d] = st->start_first[d] = st->base_first[d] = first = -1;
            continue;
        }
        /* the order here, from the one it ends in */
        int64_t lp = lead_move(emu, d, st->end_first[d], sa[n - 1], sa[k]);
        if (lp == first && first >= 0) continue;
        if (reg < ra[2 * k]) { /* the phase follows the node's order from here (one not
                                * known stays so: its NPUs' order need not be a rotation) */
            if (lp >= 0) {
                st->end_first[d] = lead_move(emu, d, first, sa[k], sa[n - 1]);
                follow_from(emu, d, first, sa[k]);
            }
        } else if (ra[2 * k] < reg) {
            first = lp;
        } else {
            st->end_first[d] = st->start_first[d] = st->base_first[d] = first = -1;
        }
    }
    return first;
}

/* The NPU that ends the last collective first. */
int64_t astra_first_npu(const th_emu *emu, int id) {
    (void)id; /* one collective at a time: the last one that finished */
    const astra_emu_state *st = emu->state;
    return st ? st->coll_first : 0;
}

int astra_refused_hang(const th_emu *emu) {
    const astra_emu_state *st = emu->state;
    return st && st->hang;
}

const emu_model astra_emu = {.issue = issue, .step = step, .reset = reset, .free = free_state};

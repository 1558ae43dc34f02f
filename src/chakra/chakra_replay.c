/* The replay of a trace's execution graphs (docs/CHAKRA.md), one rank per class of ranks that
 * hold one graph: per NPU a compute stream, a CPU stream and a communication stream; a node is
 * ready once every parent ended, and each time a node ends the ready nodes are issued in id
 * order to the streams that are free, as ASTRA-sim 2.x's workload layer does. Collectives run
 * on each class's emulator under the chosen policy, one whose ranks span classes once every
 * class issued it; messages go between the classes' ranks. The system model's graph rules
 * (model.h) say whether the communication stream holds a collective until it ends, the least
 * compute time, a roofline for compute nodes, the time of a point-to-point message, how
 * Themis's loads carry from one collective to the next (by the NPU that generates each
 * collective first, from the order of the NPUs' events that the emulator follows), and which
 * process groups run as a collective on their dims. Memory nodes take the remote memory's time
 * on their stream; ranks that share a memory replay together (chakra_memshare.c). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../model.h"
#include "chakra.h"
#include "chakra_mem.h"
#include "themis/buf.h"
#include "themis/collective.h"
#include "themis/cost.h"

/* The analytical model's rules: collectives overlap, compute takes what the trace says, a
 * message takes its closed-form time (SPEC §3) and holds no stream. */
static const th_graph_rules clean_rules = {.message = th_cost_message};

/* A min-heap of node indices (the nodes are sorted by id: the smallest index is the smallest
 * id). */
typedef struct heap {
    int32_t *v;
    size_t n, cap;
} heap;

static int heap_push(heap *h, int32_t x) {
    if (h->n == h->cap && th_grow(&h->v, &h->cap, h->n + 1, sizeof *h->v)) return -1;
    size_t i = h->n++;
    while (i > 0 && h->v[(i - 1) / 2] > x) {
        h->v[i] = h->v[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h->v[i] = x;
    return 0;
}

static int32_t heap_pop(heap *h) {
    int32_t top = h->v[0], x = h->v[--h->n];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= h->n) break;
        if (c + 1 < h->n && h->v[c + 1] < h->v[c]) c++;
        if (h->v[c] >= x) break;
        h->v[i] = h->v[c];
        i = c;
    }
    if (h->n) h->v[i] = x;
    return top;
}

/* The streams a node waits for (a receive waits for none). */
enum { S_GPU, S_CPU, S_COMM, S_FREE, S_COUNT };

/* A node that ends at a known time (compute, broadcast, send, receive). */
typedef struct timed {
    double end;
    uint64_t seq; /* issue order: at one instant the earlier issued ends first */
    int32_t node;
    int64_t first; /* the NPU that acts first in the event that issued it (-1: not known) */
} timed;

/* Rank 0's Themis state across collectives (th_graph_rules.themis_carry): none, the loads and
 * list of its last schedule, or either of the two (the first NPU to generate the last
 * collective was not known). */
enum { CARRY_NONE, CARRY_LOADS, CARRY_EITHER };

struct world;

/* A collective whose ranks span classes: one copy per class, started once every class issued
 * it, ended in every class once every copy ended. */
typedef struct rendezvous {
    uint64_t span;                   /* its classes */
    int64_t ord;                     /* its place among each class's collectives of this span */
    uint64_t joined;                 /* the classes that issued it */
    uint64_t ended;                  /* the classes whose copy ended */
    double first;                    /* when the first class issued it, ns */
    double end;                      /* when the first copy ended, ns */
    int32_t node[TH_CK_MAX_CLASSES]; /* per class its node */
} rendezvous;

/* Per class, how many collectives of a span it issued. */
typedef struct span_count {
    uint64_t span;
    int64_t n;
} span_count;

typedef struct replayer {
    struct world *w;
    int cls;       /* its class */
    int64_t rank0; /* the class's first rank, which it replays */
    const th_system *sys;
    const th_ck_graph *g;
    const char *src; /* its file (rank0's), for messages */
    char *file;      /* src when built here */
    const th_ck_opts *o;
    const th_graph_rules *rules;
    th_ck_trace_fn trace;
    void *trace_ctx;
    int32_t *left; /* parents not ended yet */
    double *start; /* when each node was issued, ns */
    heap ready[S_COUNT];
    int busy[S_COUNT]; /* the stream holds a node (the communication stream only when serial) */
    timed *tm;
    size_t ntm, tm_cap;
    uint64_t seq;
    th_emu *emu;
    int32_t *of_id;    /* emulator id -> node */
    th_plan **plan_of; /* emulator id -> its plan */
    size_t id_cap;
    th_plan **pool;
    size_t npool, pool_cap;
    int32_t *ended;       /* the collectives one emulator step finished */
    int64_t *ended_first; /* and the NPU that sees each end first (-1: not known) */
    size_t ended_cap, ended_first_cap;
    int32_t *deferred; /* nodes made ready inside an issue call (they wait for the next one) */
    size_t ndef, def_cap;
    double load[TH_MAX_DIMS];  /* Themis loads left by the last schedule rank 0 made */
    uint8_t list[TH_MAX_DIMS]; /* and its list of the dims' records (th_plan.list) */
    int carry;                 /* CARRY_*: what load and list hold */
    /* themis-global under the analytical model, as themis train keeps it: the loads of the
     * collectives in flight, and per emulator id the loads its plan added */
    double tracker[TH_MAX_DIMS];
    double (*contrib)[TH_MAX_DIMS];
    int roofline;    /* GPU compute by the roofline below (graph rules) */
    double bw, peak; /* its memory bandwidth, bytes/s, and peak, FLOP/s */
    int32_t *match;  /* per receive: the send of its tag, in the graph of class matchc */
    int32_t *matchc;
    uint8_t *several; /* per receive: more sends than one of its tag and size to its class */
    int32_t *peer;    /* per send and receive: its peer on the class's first rank */
    uint32_t *cdims;  /* per collective: the dims it runs on (0: every dim) */
    uint64_t *span;   /* per collective: the classes its ranks hold */
    int32_t *rv_of;   /* emulator id -> its rendezvous, -1 when of this class alone */
    span_count *sc;   /* per span the collectives issued */
    size_t nsc, sc_cap;
    int32_t done;
    int32_t coll;   /* the last collective node issued (-1: none yet) */
    double compute; /* its GPU compute nodes' time, ns */
    double last;    /* when its last node ended, ns */
    th_ck_result *res;
} replayer;

/* Every class's replayer and what couples them. */
typedef struct world {
    const th_system *sys;
    const th_ck_trace *tr;
    const th_ck_opts *o;
    const th_graph_rules *rules;
    replayer *r;
    int n; /* classes */
    rendezvous *rv;
    size_t nrv, rv_cap;
    struct pend {
        int32_t cls, node;
    } * pending; /* receives issued before their send */
    size_t npending, pending_cap;
    unsigned events;
    int order_unknown; /* 1 once a plan was refused for an order not known (plan_carry) */
    /* what one replayed rank per class does not model, and a replay of every NPU does: a
     * collective issued (or ended) with a skew across classes (skew), and, found while
     * checking, classes that Themis plans together or a collective spanning other classes
     * around ranks of one class (soft, the first of them in soft_err; checking goes on) */
    int skew, soft;
    th_error soft_err;
} world;

static int stream_of(const th_ck_node *x) {
    if (x->kind == TH_CK_RECV) return S_FREE;
    if (x->cpu) return S_CPU;
    return x->kind == TH_CK_COMPUTE ? S_GPU : S_COMM;
}

/* A compute node's time, ns: its duration (at least the rules' least), or under a roofline
 * (a GPU node) num_ops at min(bw * num_ops / tensor_size, peak), truncated to whole ns as
 * ASTRA-sim's issue_comp does. */
static double compute_ns(const th_graph_rules *rules, int roofline, double bw, double peak,
                         const th_ck_node *x) {
    if (roofline && x->kind == TH_CK_COMPUTE && !x->cpu) {
        double oi = x->ops / x->tensor, perf = bw * oi < peak ? bw * oi : peak;
        return floor(x->ops / perf * 1e9);
    }
    double ns = (double)x->micros * 1000.0;
    return ns > rules->min_compute ? ns : rules->min_compute;
}

static double cost(const replayer *r, const th_ck_node *x) {
    return compute_ns(r->rules, r->roofline, r->bw, r->peak, x);
}

static const th_graph_rules *rules_of(const th_system *sys) {
    return th_model_of(sys)->graph ? th_model_of(sys)->graph : &clean_rules;
}

double th_ck_compute_ns(const th_system *sys, const th_ck_node *x) {
    const th_graph_rules *rules = rules_of(sys);
    double bw = 0, peak = 0;
    int roofline = rules->roofline && rules->roofline(sys, &bw, &peak);
    if (roofline && x->kind == TH_CK_COMPUTE && !x->cpu && x->tensor == 0) return -1;
    return compute_ns(rules, roofline, bw, peak, x);
}

int th_ck_serial_comm(const th_system *sys) {
    return rules_of(sys)->serial_comm;
}

static int oom(th_error *err) {
    return th_error_set(err, TH_EINTERNAL, "out of memory");
}

/* Node i ended at t: its children whose parents all ended become ready (or wait for the next
 * issue call when it ended inside one). */
static int finish(replayer *r, int32_t i, double t, int inside, th_error *err) {
    const th_ck_graph *g = r->g;
    r->done++;
    r->last = t;
    if (r->trace) {
        th_ck_event ev = {i, r->start[i], t, r->cls};
        r->trace(r->trace_ctx, &ev);
    }
    for (int32_t c = g->child_off[i]; c < g->child_off[i + 1]; c++) {
        int32_t k = g->child[c];
        if (--r->left[k]) continue;
        if (inside) {
            if (r->ndef == r->def_cap &&
                th_grow(&r->deferred, &r->def_cap, r->ndef + 1, sizeof *r->deferred))
                return oom(err);
            r->deferred[r->ndef++] = k;
        } else if (heap_push(&r->ready[stream_of(&g->nodes[k])], k)) {
            return oom(err);
        }
    }
    return TH_OK;
}

/* Collective node x as the emulator's collective. A trace's All-Gather comm_size is what each
 * NPU holds before (ASTRA-sim's convention); a model that sizes an All-Gather by its gathered
 * output (TH_CAP_AG_OUTPUT, SPEC §4) gets it multiplied by the NPUs of the involved dims. */
static void coll_of(const replayer *r, int32_t i, th_collective *c) {
    const th_ck_node *x = &r->g->nodes[i];
    uint32_t all = (1u << r->sys->ndims) - 1u;
    c->type = (th_coll_type)x->coll;
    c->size = x->size;
    c->chunks = r->o->chunks;
    c->dims_mask = r->cdims[i];
    if (c->type == TH_COLL_ALLGATHER && th_model_has(r->sys, TH_CAP_AG_OUTPUT)) {
        uint32_t m = c->dims_mask ? c->dims_mask : all;
        for (int d = 0; d < r->sys->ndims; d++)
            if ((m >> d) & 1u) c->size *= (double)r->sys->dims[d].npus;
    }
}

/* 1 when plans a and b (of one collective) give every chunk the same size and dims. */
static int same_plan(const th_plan *a, const th_plan *b) {
    return a->chunks == b->chunks && a->n == b->n && a->chunk == b->chunk &&
           a->last_chunk == b->last_chunk &&
           !memcmp(a->order, b->order, (size_t)a->chunks * (size_t)a->n);
}

/* Under themis_carry, plans c into *plan as the NPU that generates it first does with rank 0's
 * scheduler: from fresh loads when that NPU is rank 0 (first 0), else from the loads and list
 * rank 0's last schedule left, when it made one since its last reset (rank 0 then resets them
 * as it generates the collective in turn). When first is not known (-1) or rank 0's state is
 * either, every plan possible is made: when they differ the collective is refused; when they
 * agree, rank 0's state after it is either. */
static int plan_carry(replayer *r, const th_collective *c, int64_t first, th_plan *plan,
                      th_error *err) {
    int rank0 = first <= 0, other = first != 0;
    int fresh = rank0 || (other && r->carry != CARRY_LOADS);
    int loads = other && r->carry != CARRY_NONE;
    th_plan *alt = NULL;
    int rc = TH_OK;
    if (loads) {
        plan->carry = 1;
        memcpy(plan->list, r->list, sizeof plan->list);
        rc = th_sched_plan_from(plan, r->sys, c, r->o->policy, r->o->model, r->load, err);
    }
    if (rc == TH_OK && fresh && loads) {
        alt = plan;
        if (!(plan = th_plan_create())) return oom(err);
    }
    if (rc == TH_OK && fresh) {
        plan->carry = 0;
        rc = th_sched_plan_from(plan, r->sys, c, r->o->policy, r->o->model, NULL, err);
    }
    if (rc == TH_OK && alt && !same_plan(plan, alt)) {
        r->w->order_unknown = 1;
        rc = th_error_set(err, TH_EINPUT,
                          "under Themis, ASTRA-sim 2.x plans this %s from rank 0's last loads or "
                          "from fresh ones as the NPU that generates it first is another one or "
                          "rank 0, and the order of the NPUs' events that decides it is not known "
                          "here (docs/CHAKRA.md, Limits): the two plans differ, so themis refuses "
                          "rather than guess",
                          th_coll_type_name(c->type));
    }
    if (alt) { /* keep the fresh plan's loads and list: rank 0's state when it went first */
        memcpy(alt->load, plan->load, sizeof alt->load);
        memcpy(alt->list, plan->list, sizeof alt->list);
        th_plan_free(plan);
        plan = alt;
    }
    if (rc) return rc;
    /* an All-to-All: rank 0 resets its loads but makes no schedule */
    int keep = rank0 && c->type != TH_COLL_ALLTOALL;
    r->carry = !keep ? CARRY_NONE : other ? CARRY_EITHER : CARRY_LOADS;
    if (keep) {
        memcpy(r->load, plan->load, sizeof r->load);
        memcpy(r->list, plan->list, sizeof r->list);
    }
    return TH_OK;
}

/* Plans and issues collective node i at t (of rendezvous rv, -1 when of this class alone), in
 * an event whose first NPU is `first` (-1: not known). */
static int start_coll(replayer *r, int32_t i, double t, int64_t first, int32_t rv, th_error *err) {
    const th_ck_node *x = &r->g->nodes[i];
    th_collective c;
    coll_of(r, i, &c);
    th_plan *plan = r->npool ? r->pool[--r->npool] : th_plan_create();
    if (!plan) return oom(err);
    int themis = r->o->policy == TH_POLICY_THEMIS || r->o->policy == TH_POLICY_THEMIS_GLOBAL;
    int global = !r->rules->themis_carry && r->o->policy == TH_POLICY_THEMIS_GLOBAL;
    double added[TH_MAX_DIMS] = {0};
    int rc;
    plan->carry = 0;
    if (r->rules->themis_carry && themis) {
        rc = plan_carry(r, &c, first, plan, err);
    } else {
        rc = th_sched_plan_from(plan, r->sys, &c, r->o->policy, r->o->model,
                                global ? r->tracker : NULL, err);
    }
    if (rc == TH_OK && global)
        for (int d = 0; d < r->sys->ndims; d++) {
            added[d] = plan->load[d] - r->tracker[d];
            r->tracker[d] = plan->load[d];
        }
    if (rc == TH_OK && r->rules->issue_first && r->rules->issue_first(r->emu, first)) {
        th_plan_free(plan);
        return oom(err);
    }
    int id = -1;
    th_error e;
    if (rc == TH_OK)
        rc = th_emu_issue(r->emu, plan, t, &id, &e);
    else
        e = *err;
    if (rc != TH_OK) {
        th_plan_free(plan);
        return th_error_set(err, rc, "%s: node %llu: %s", r->src, (unsigned long long)x->id, e.msg);
    }
    if ((size_t)id >= r->id_cap) {
        size_t cap = r->id_cap, cap2 = r->id_cap, cap3 = r->id_cap, old = r->id_cap;
        if (th_grow(&r->of_id, &cap, (size_t)id + 1, sizeof *r->of_id) ||
            th_grow(&r->contrib, &cap2, cap, sizeof *r->contrib) ||
            th_grow(&r->rv_of, &cap3, cap, sizeof *r->rv_of) ||
            th_grow(&r->plan_of, &r->id_cap, cap, sizeof *r->plan_of)) {
            th_plan_free(plan);
            return oom(err);
        }
        memset(r->plan_of + old, 0, sizeof *r->plan_of * (r->id_cap - old));
    }
    r->of_id[id] = i;
    r->coll = i;
    r->rv_of[id] = rv;
    r->plan_of[id] = plan;
    memcpy(r->contrib[id], added, sizeof added);
    r->res->collectives++;
    return TH_OK;
}

static int lowest(uint64_t m) {
    int c = 0;
    while (!((m >> c) & 1u))
        c++;
    return c;
}

/* Collective node i of a span of classes, issued at t: joins the same collective of the other
 * classes (the one at the same place among each class's collectives of that span), and starts
 * every class's copy once the last class issued it. Under the simulator's rules every class
 * must issue it at one instant: ASTRA-sim would run it with a skew per rank that one rank per
 * class does not replay. */
static int join(replayer *r, int32_t i, double t, int64_t first, th_error *err) {
    world *w = r->w;
    uint64_t span = r->span[i];
    size_t k = 0;
    while (k < r->nsc && r->sc[k].span != span)
        k++;
    if (k == r->nsc) {
        if (r->nsc == r->sc_cap && th_grow(&r->sc, &r->sc_cap, r->nsc + 1, sizeof *r->sc))
            return oom(err);
        r->sc[r->nsc++] = (span_count){span, 0};
    }
    int64_t ord = r->sc[k].n++;
    size_t e = 0;
    while (e < w->nrv && (w->rv[e].span != span || w->rv[e].ord != ord))
        e++;
    if (e == w->nrv) {
        if (w->nrv == w->rv_cap && th_grow(&w->rv, &w->rv_cap, w->nrv + 1, sizeof *w->rv))
            return oom(err);
        rendezvous *n = &w->rv[w->nrv++];
        memset(n, 0, sizeof *n);
        n->span = span, n->ord = ord, n->first = t;
    }
    rendezvous *v = &w->rv[e];
    const th_ck_node *x = &r->g->nodes[i];
    if (v->joined) { /* the same collective as the first class's */
        const replayer *q = &w->r[lowest(v->joined)];
        const th_ck_node *y = &q->g->nodes[v->node[q->cls]];
        const char *what = x->coll != y->coll                         ? "comm_type"
                           : x->size != y->size                       ? "comm_size"
                           : r->cdims[i] != q->cdims[v->node[q->cls]] ? "involved_dim/pg_name"
                                                                      : NULL;
        if (what)
            return th_error_set(
                err, TH_EINPUT,
                "%s: node %llu: attr %s: %s of %.17g bytes on dims 0x%x, and "
                "rank %lld's collective at the same place among those of the same "
                "ranks (%s node %llu) is %s of %.17g bytes on dims 0x%x (0x0: "
                "every dim): ranks that disagree on a collective",
                r->src, (unsigned long long)x->id, what, th_coll_type_name((th_coll_type)x->coll),
                x->size, r->cdims[i], (long long)q->rank0, q->src, (unsigned long long)y->id,
                th_coll_type_name((th_coll_type)y->coll), y->size, q->cdims[v->node[q->cls]]);
        if (r->rules->serial_comm && t != v->first) {
            w->skew = 1;
            return th_error_set(
                err, TH_EINPUT,
                "%s: node %llu: a collective (%s) whose ranks span classes of ranks (rank %lld's "
                "and rank "
                "%lld's graphs differ), issued at %.17g ns here and at %.17g ns on rank %lld: "
                "under the astra-sim preset such a collective must start at one instant on "
                "every rank (ASTRA-sim 2.x runs it with a skew per rank that one replayed rank "
                "per class does not model)",
                r->src, (unsigned long long)x->id, th_coll_type_name((th_coll_type)x->coll),
                (long long)r->rank0, (long long)q->rank0, t, v->first, (long long)q->rank0);
        }
    }
    v->joined |= 1ull << r->cls;
    v->node[r->cls] = i;
    if (v->joined != span) return TH_OK;
    for (int c = 0; c < w->n; c++)
        if ((span >> c) & 1u) {
            int rc = start_coll(&w->r[c], w->rv[e].node[c], t, first, (int32_t)e, err);
            if (rc) return rc;
        }
    return TH_OK;
}

static int issue_coll(replayer *r, int32_t i, double t, int64_t first, th_error *err) {
    if (r->span[i] == 1ull << r->cls) return start_coll(r, i, t, first, -1, err);
    return join(r, i, t, first, err);
}

static int add_timed(replayer *r, int32_t i, double end, int64_t first, th_error *err) {
    if (r->ntm == r->tm_cap && th_grow(&r->tm, &r->tm_cap, r->ntm + 1, sizeof *r->tm))
        return oom(err);
    r->tm[r->ntm++] = (timed){end, r->seq++, i, first};
    return TH_OK;
}

/* Receive i ends when the message of its send (the same place in the sending rank's graph, so
 * issued when the sending class's send was) has come from its source, or at once when it came
 * before the receive was issued. The NPUs' order of its end is not followed (-1). */
static int recv_end(replayer *r, int32_t i, th_error *err) {
    const th_ck_node *x = &r->g->nodes[i];
    double sent = r->w->r[r->matchc[i]].start[r->match[i]];
    double arrive = sent + r->rules->message(r->sys, r->peer[i], r->rank0, x->size);
    return add_timed(r, i, arrive > r->start[i] ? arrive : r->start[i], -1, err);
}

/* Send i of class r was issued: the receives that waited for it get their end. */
static int sent(replayer *r, int32_t i, th_error *err) {
    world *w = r->w;
    for (size_t k = 0; k < w->npending; k++) {
        replayer *q = &w->r[w->pending[k].cls];
        int32_t j = w->pending[k].node;
        if (q->matchc[j] != r->cls || q->match[j] != i) continue;
        int rc = recv_end(q, j, err);
        if (rc) return rc;
        w->pending[k--] = w->pending[--w->npending];
    }
    return TH_OK;
}

/* One issue call at t (ASTRA-sim's issue_dep_free_nodes): the ready nodes in id order, each to
 * its stream when that stream is free; an invalid node ends at once, and what it makes ready
 * waits for the next call. */
static int issue_call(replayer *r, double t, int64_t first, th_error *err) {
    const th_ck_graph *g = r->g;
    world *w = r->w;
    for (;;) {
        int best = -1;
        for (int s = 0; s < S_COUNT; s++)
            if (!r->busy[s] && r->ready[s].n &&
                (best < 0 || r->ready[s].v[0] < r->ready[best].v[0]))
                best = s;
        if (best < 0) break;
        int32_t i = heap_pop(&r->ready[best]);
        const th_ck_node *x = &g->nodes[i];
        r->start[i] = t;
        int rc = TH_OK;
        if (x->kind == TH_CK_COMPUTE && r->roofline && !x->cpu && x->tensor == 0) {
            if ((rc = finish(r, i, t, 1, err))) return rc; /* ASTRA-sim skips it as invalid */
            continue;
        }
        switch (x->kind) {
        case TH_CK_COMPUTE:
            r->busy[best] = 1;
            if (!x->cpu) r->compute += cost(r, x);
            rc = add_timed(r, i, t + cost(r, x), first, err);
            break;
        case TH_CK_BCAST: /* ASTRA-sim replays its duration on the communication stream */
            r->busy[best] = r->rules->serial_comm;
            rc = add_timed(r, i, t + cost(r, x), first, err);
            break;
        case TH_CK_COLL:
            r->busy[best] = r->rules->serial_comm;
            rc = issue_coll(r, i, t, first, err);
            break;
        case TH_CK_MEM: /* an access of the remote memory, on its stream (chakra_mem.h); ASTRA-sim
                         * registers its end as a compute node's, so it keeps that order */
            r->busy[best] = x->cpu || r->rules->serial_comm;
            if (t == 0 && r->rules->serial_comm) rc = th_ck_mem_at_start(r->o->mem, x, r->src, err);
            if (rc == TH_OK)
                rc = add_timed(r, i, t + th_ck_mem_ns(r->o->mem, x->tensor), first, err);
            break;
        case TH_CK_SEND: /* ends when its message arrives (the NPUs' order then: not followed) */
            r->busy[best] = r->rules->serial_comm;
            rc = add_timed(r, i, t + r->rules->message(r->sys, r->rank0, r->peer[i], x->size), -1,
                           err);
            if (rc == TH_OK) rc = sent(r, i, err);
            break;
        case TH_CK_RECV: /* ends when its message arrived: at once when it already did */
            if (w->r[r->matchc[i]].start[r->match[i]] >= 0) {
                rc = recv_end(r, i, err);
            } else if (w->npending == w->pending_cap &&
                       th_grow(&w->pending, &w->pending_cap, w->npending + 1, sizeof *w->pending)) {
                rc = oom(err);
            } else {
                w->pending[w->npending++] = (struct pend){r->cls, i};
            }
            break;
        default: /* invalid nodes */ rc = finish(r, i, t, 1, err); break;
        }
        if (rc) return rc;
    }
    return TH_OK;
}

/* Moves the nodes an issue call made ready into their queues. */
static int release_deferred(replayer *r, th_error *err) {
    for (size_t k = 0; k < r->ndef; k++)
        if (heap_push(&r->ready[stream_of(&r->g->nodes[r->deferred[k]])], r->deferred[k]))
            return oom(err);
    r->ndef = 0;
    return TH_OK;
}

/* 1 when no class has an event to come. */
static int quiet(const world *w) {
    for (int c = 0; c < w->n; c++)
        if (w->r[c].ntm || th_emu_next(w->r[c].emu) != INFINITY || w->r[c].busy[S_COMM]) return 0;
    return 1;
}

/* A call, then what it made ready: under the simulator's rules it waits for the next event;
 * otherwise further calls at the same instant issue it. */
static int issue_all(replayer *r, double t, int64_t first, th_error *err) {
    for (;;) {
        if (issue_call(r, t, first, err)) return err->code;
        if (!r->ndef) return TH_OK;
        int32_t first = r->deferred[0];
        if (release_deferred(r, err)) return err->code;
        if (r->rules->serial_comm && quiet(r->w))
            return th_error_set(err, TH_EINPUT,
                                "%s: node %llu: ready only once an invalid node ended, and no "
                                "event follows that would issue it: ASTRA-sim 2.x would wait for "
                                "ever",
                                r->src, (unsigned long long)r->g->nodes[first].id);
        if (r->rules->serial_comm) return TH_OK;
    }
}

/* Whether the caller asked to stop: its stop flag at once, its poll hook every 4096 steps. */
static int interrupted(world *w) {
    const th_ck_opts *o = w->o;
    if (o->stop && atomic_load_explicit(o->stop, memory_order_relaxed)) return 1;
    return o->poll && (++w->events & 4095u) == 0 && o->poll(o->poll_ctx);
}

/* The ranks a class stands for: the ranks of the set in it, or every NPU of the system when
 * the set is one class (one rank, or every rank alike, stands for all). */
static int in_class(const world *w, int c, int64_t rank) {
    return w->n == 1 || th_ck_class_of(w->tr, rank) == c;
}

/* The classes the NPUs of the dims of mask (0: all) around rank hold. */
static uint64_t classes_around(const world *w, int64_t rank, uint32_t mask) {
    const th_system *sys = w->sys;
    int64_t coord[TH_MAX_DIMS], stride[TH_MAX_DIMS], s = 1, base = 0;
    for (int d = 0; d < sys->ndims; d++) {
        stride[d] = s;
        coord[d] = (rank / s) % sys->dims[d].npus;
        if (mask && !((mask >> d) & 1u)) base += coord[d] * s;
        coord[d] = 0;
        s *= sys->dims[d].npus;
    }
    uint64_t out = 0;
    for (;;) { /* every rank of the sub-grid, an odometer over the dims of mask */
        int64_t at = base;
        for (int d = 0; d < sys->ndims; d++)
            at += coord[d] * stride[d];
        out |= 1ull << th_ck_class_of(w->tr, at);
        int d = 0;
        for (; d < sys->ndims; d++) {
            if (mask && !((mask >> d) & 1u)) continue;
            if (++coord[d] < sys->dims[d].npus) break;
            coord[d] = 0;
        }
        if (d == sys->ndims) return out;
    }
}

/* Collective i of class r: the dims it runs on (its process group's, or involved_dim's) and
 * the classes its ranks hold. */
static int place(replayer *r, int32_t i, th_error *err) {
    world *w = r->w;
    const th_ck_node *x = &r->g->nodes[i];
    unsigned long long id = (unsigned long long)x->id;
    uint32_t all = (1u << r->sys->ndims) - 1u;
    r->cdims[i] = x->ndims < 0 ? 0 : x->dims & all;
    r->span[i] = 1ull << r->cls;
    if (x->group) {
        int k = th_ck_group_find(r->o->groups, x->group);
        if (k < 0)
            return th_error_set(err, TH_EINPUT,
                                "%s: node %llu: attr pg_name: process group %d: %s (ASTRA-sim "
                                "2.x stops: \"communicator group not found\")",
                                r->src, id, (int)x->group,
                                r->o->groups ? "not in the communicator group file"
                                             : "no communicator group file given (--comm-group)");
        const th_ck_groups *g = r->o->groups;
        uint32_t m;
        th_error e;
        if (th_ck_group_dims(g, k, r->sys, &m, &e))
            return th_error_set(err, e.code, "%s: node %llu: attr pg_name: %s", r->src, id, e.msg);
        const int64_t *rk = g->rank + g->off[k];
        size_t n = g->off[k + 1] - g->off[k];
        if (m != all) {
            int d = lowest(m);
            if (r->rules->group_dim &&
                (m != 1u << d || !r->rules->group_dim(r->sys, x->coll, d) ||
                 r->o->policy == TH_POLICY_THEMIS || r->o->policy == TH_POLICY_THEMIS_GLOBAL))
                return th_error_set(
                    err, TH_EINPUT,
                    "%s: node %llu: attr pg_name: group %d takes dims 0x%x of system \"%s\" (dim "
                    "%d first): under the astra-sim preset a group of part of the system replays "
                    "when it is the NPUs of one dim that runs a ring for the %s, under baseline "
                    "scheduling (ASTRA-sim 2.x runs such a group as a ring over its NPUs, with "
                    "no inter-dimension schedule)",
                    r->src, id, (int)x->group, m, r->sys->name, d,
                    th_coll_type_name((th_coll_type)x->coll));
        }
        r->cdims[i] = m == all ? 0 : m;
        /* every rank of the class is in the group */
        int64_t lim = w->n == 1 ? (int64_t)r->sys->npus : w->tr->ranks;
        for (int64_t q = 0, j = 0; q < lim; q++) {
            if (!in_class(w, r->cls, q)) continue;
            while (j < (int64_t)n && rk[j] < q)
                j++;
            if (j == (int64_t)n || rk[j] != q)
                return th_error_set(
                    err, TH_EINPUT,
                    "%s: node %llu: attr pg_name: rank %lld issues this collective of group %d "
                    "%s, and is not in it (ASTRA-sim 2.x needs every rank that issues it in it)",
                    r->src, id, (long long)q, (int)x->group,
                    w->n == 1 ? "(every rank holds the same graph)" : "(it holds this graph)");
        }
        if (w->n > 1) {
            uint64_t s = 0;
            for (size_t j = 0; j < n; j++)
                s |= 1ull << th_ck_class_of(w->tr, rk[j]);
            r->span[i] = s;
        }
        return TH_OK;
    }
    if (w->n == 1) return TH_OK;
    /* the classes around each rank of the class, the same for all of them */
    uint64_t s = 0;
    int64_t at = -1;
    for (int64_t q = 0; q < w->tr->ranks; q++) {
        if (!in_class(w, r->cls, q)) continue;
        uint64_t sq = classes_around(w, q, r->cdims[i]);
        if (at >= 0 && sq != s) {
            if (!w->soft++)
                th_error_set(&w->soft_err, TH_EINPUT,
                             "%s: node %llu: ranks %lld and %lld hold this graph, and the "
                             "ranks this collective spans around them hold other graphs (%s "
                             "against %s): themis replays one rank per class of ranks",
                             r->src, id, (long long)at, (long long)q,
                             __builtin_popcountll(s) > 1 ? "several classes" : "one class",
                             __builtin_popcountll(sq) > 1 ? "several" : "one");
            break;
        }
        s = sq, at = q;
    }
    r->span[i] = s;
    if (r->rules->themis_carry && r->sys->ndims > 1 && x->coll != TH_COLL_ALLTOALL &&
        (r->o->policy == TH_POLICY_THEMIS || r->o->policy == TH_POLICY_THEMIS_GLOBAL) && !w->soft++)
        th_error_set(&w->soft_err, TH_EINPUT,
                     "%s: node %llu: policy %s on system \"%s\" of %d dims with ranks whose "
                     "graphs differ: ASTRA-sim 2.x plans every NPU's collective with rank 0's "
                     "scheduler in the order the NPUs issue them, which themis does not replay "
                     "(baseline, or an All-to-All, replays)",
                     r->src, id, th_policy_name(r->o->policy), r->sys->name, r->sys->ndims);
    return TH_OK;
}

/* The nodes themis does not replay, and every collective checked against the system, before
 * the replay starts. */
static int check(replayer *r, th_error *err) {
    const th_ck_graph *g = r->g;
    world *w = r->w;
    int32_t work = 0;
    for (int32_t i = 0; i < g->n; i++)
        work += g->nodes[i].kind != TH_CK_SKIP;
    const th_ck_graph *gs[TH_CK_MAX_CLASSES];
    const int32_t *ps[TH_CK_MAX_CLASSES];
    for (int c = 0; c < w->n; c++)
        gs[c] = w->r[c].g, ps[c] = w->r[c].peer;
    if (th_ck_match_receives(w->tr, r->cls, gs, ps, r->match, r->matchc, r->several))
        return oom(err);
    if (work == 0)
        return th_error_set(err, TH_EINPUT,
                            "%s: no node after the global metadata but invalid ones (ASTRA-sim 2.x "
                            "stops on a trace with nothing to issue)",
                            r->src);
    for (int32_t i = 0; i < g->n; i++) {
        const th_ck_node *x = &g->nodes[i];
        unsigned long long id = (unsigned long long)x->id;
        int p2p = x->kind == TH_CK_SEND || x->kind == TH_CK_RECV;
        if (p2p && !r->rules->message)
            return th_error_set(err, TH_EINPUT,
                                "%s: node %llu: type: %s: themis replays compute, collective, "
                                "memory and invalid nodes, not point-to-point nodes (except "
                                "under the astra-sim preset)",
                                r->src, id, th_ck_type_name(x->type));
        if (p2p && r->rules->message(r->sys, x->kind == TH_CK_SEND ? r->rank0 : r->peer[i],
                                     x->kind == TH_CK_SEND ? r->peer[i] : r->rank0, x->size) < 0)
            return th_error_set(err, TH_EINPUT,
                                "%s: node %llu: attr %s: %d, expected another NPU of system "
                                "\"%s\" than rank %lld (0..%.17g)",
                                r->src, id, x->kind == TH_CK_SEND ? "comm_dst" : "comm_src",
                                (int)r->peer[i], r->sys->name, (long long)r->rank0,
                                r->sys->npus - 1);
        if (x->kind == TH_CK_RECV && r->match[i] < 0) /* its send (th_ck_match_receives) */
            return th_error_set(err, TH_EINPUT,
                                "%s: node %llu: attr comm_tag: no send of tag %d and %.17g "
                                "bytes to this rank's graph in the graph of rank %d (%s) for "
                                "receive %d of them: a receive replays with the send that "
                                "matches it",
                                r->src, id, (int)x->tag, x->size, (int)r->peer[i],
                                w->r[r->matchc[i]].src, (int)(-r->match[i]));
        /* ASTRA-sim pairs the sends and receives of one key in the order each NPU issues
         * them, which the node order gives only where they follow each other */
        if (x->kind == TH_CK_RECV && r->several[i] && r->rules->npus && !w->soft++)
            th_error_set(&w->soft_err, TH_EINPUT,
                         "%s: node %llu: attr comm_tag: several sends of tag %d and %.17g bytes "
                         "to this rank's graph in the graph of rank %d (%s): ASTRA-sim 2.x "
                         "pairs them with their receives in the order it issues them, which one "
                         "replayed rank per class does not follow",
                         r->src, id, (int)x->tag, x->size, (int)r->peer[i], w->r[r->matchc[i]].src);
        if (x->type == 1) /* METADATA_NODE */
            return th_error_set(err, TH_EINPUT,
                                "%s: node %llu: type: METADATA_NODE: ASTRA-sim 2.x stops on it "
                                "(\"Invalid node_type\" in its statistics)",
                                r->src, id);
        if (x->kind == TH_CK_COMPUTE && r->roofline && !x->cpu && (x->ops <= 0 || x->tensor < 0))
            return th_error_set(err, TH_EINPUT,
                                "%s: node %llu: attr %s: %s under the system's roofline (a GPU "
                                "compute node costs num_ops at min(bandwidth x num_ops / "
                                "tensor_size, peak))",
                                r->src, id, x->tensor < 0 ? "tensor_size" : "num_ops",
                                x->tensor < 0 || x->ops < 0 ? "missing" : "0");
        if (x->kind != TH_CK_COLL) continue;
        if (x->ndims >= 0 && x->ndims < r->sys->ndims && !x->group)
            return th_error_set(err, TH_EINPUT,
                                "%s: node %llu: attr involved_dim: %d entries for the %d dims of "
                                "system \"%s\": ASTRA-sim 2.x reads one per dim, past the list's "
                                "end",
                                r->src, id, (int)x->ndims, r->sys->ndims, r->sys->name);
        if (x->ndims >= 0 && !x->group && !(x->dims & ((1u << r->sys->ndims) - 1u)))
            return th_error_set(err, TH_EINPUT,
                                "%s: node %llu: attr involved_dim: selects no dim of system \"%s\" "
                                "(dims 0..%d): ASTRA-sim 2.x never finishes such a collective",
                                r->src, id, r->sys->name, r->sys->ndims - 1);
        int rc = place(r, i, err);
        if (rc) return rc;
        th_collective c;
        coll_of(r, i, &c);
        th_error e;
        if (th_collective_validate(r->sys, &c, &e))
            return th_error_set(err, e.code,
                                "%s: node %llu: attr comm_type %s, comm_size %.17g%s: %s", r->src,
                                id, th_coll_type_name(c.type), x->size,
                                x->group        ? ", pg_name"
                                : x->ndims >= 0 ? ", involved_dim"
                                                : "",
                                e.msg);
    }
    return TH_OK;
}

/* The earliest timed node (at one instant, the one issued first). */
static size_t earliest(const replayer *r) {
    size_t b = 0;
    for (size_t k = 1; k < r->ntm; k++)
        if (r->tm[k].end < r->tm[b].end ||
            (r->tm[k].end == r->tm[b].end && r->tm[k].seq < r->tm[b].seq))
            b = k;
    return b;
}

/* The copy of a collective of rendezvous v ended in class r at t: once every copy ended, the
 * collective ends in every class of its span. */
static int copy_ended(replayer *r, int32_t v, double t, int64_t first, th_error *err) {
    world *w = r->w;
    rendezvous *x = &w->rv[v];
    if (!x->ended) x->end = t;
    x->ended |= 1ull << r->cls;
    if (r->rules->serial_comm && t != x->end) {
        w->skew = 1;
        const replayer *q = &w->r[lowest(x->ended & ~(1ull << r->cls))];
        return th_error_set(err, TH_EINPUT,
                            "%s: node %llu: a collective whose ranks span classes of ranks ends "
                            "at %.17g ns here and at %.17g ns on rank %lld: under the astra-sim "
                            "preset it must end at one instant on every rank (ASTRA-sim 2.x runs "
                            "it with a skew per rank that one replayed rank per class does not "
                            "model)",
                            r->src, (unsigned long long)r->g->nodes[x->node[r->cls]].id, t, x->end,
                            (long long)q->rank0);
    }
    if (x->ended != x->span) return TH_OK;
    /* copied: the issues below may add rendezvous (and move the list) */
    uint64_t span = x->span;
    int32_t node[TH_CK_MAX_CLASSES];
    memcpy(node, x->node, sizeof node);
    for (int c = 0; c < w->n; c++)
        if ((span >> c) & 1u) {
            replayer *q = &w->r[c];
            q->busy[S_COMM] = 0;
            if (finish(q, node[c], t, 0, err) || issue_all(q, t, first, err)) return err->code;
        }
    return TH_OK;
}

/* One event of class r: its earliest timed node, or its emulator's next step. */
static int step(replayer *r, int timed_first, th_error *err) {
    const th_ck_graph *g = r->g;
    double t;
    if (timed_first) { /* a compute event was registered when it began: first at a tie */
        size_t k = earliest(r);
        timed x = r->tm[k];
        r->tm[k] = r->tm[--r->ntm];
        t = x.end;
        r->busy[stream_of(&g->nodes[x.node])] = 0;
        if (r->rules->timed_end &&
            (g->nodes[x.node].kind == TH_CK_COMPUTE || g->nodes[x.node].kind == TH_CK_MEM))
            x.first = r->rules->timed_end(r->emu, t, r->start[x.node], x.first);
        if (finish(r, x.node, t, 0, err) || issue_all(r, t, x.first, err)) return err->code;
        return TH_OK;
    }
    if (th_emu_step(r->emu, err)) {
        if (r->coll < 0) return err->code;
        th_error e = *err; /* the collective in flight (the last issued, under serial_comm) */
        const th_ck_node *x = &g->nodes[r->coll];
        return th_error_set(err, e.code, "%s: node %llu (%s%s): %s", r->src,
                            (unsigned long long)x->id, th_coll_type_name((th_coll_type)x->coll),
                            r->rules->serial_comm ? "" : ", the last collective issued", e.msg);
    }
    t = th_emu_now(r->emu);
    const int *ids;
    int n = th_emu_finished(r->emu, &ids);
    if ((size_t)n > r->ended_cap && th_grow(&r->ended, &r->ended_cap, (size_t)n, sizeof *r->ended))
        return oom(err);
    if ((size_t)n > r->ended_first_cap &&
        th_grow(&r->ended_first, &r->ended_first_cap, (size_t)n, sizeof *r->ended_first))
        return oom(err);
    int32_t *rv = n ? malloc(sizeof *rv * (size_t)n) : NULL;
    if (n && !rv) return oom(err);
    for (int j = 0; j < n; j++) { /* copied first: a release reuses the list */
        int id = ids[j];
        r->ended[j] = r->of_id[id];
        r->ended_first[j] = r->rules->first_npu ? r->rules->first_npu(r->emu, id) : 0;
        rv[j] = r->rv_of[id];
        for (int d = 0; d < r->sys->ndims; d++)
            r->tracker[d] -= r->contrib[id][d];
        if (r->npool == r->pool_cap &&
            th_grow(&r->pool, &r->pool_cap, r->npool + 1, sizeof *r->pool)) {
            free(rv);
            return oom(err);
        }
        r->pool[r->npool++] = r->plan_of[id];
        r->plan_of[id] = NULL;
    }
    int rc = TH_OK;
    for (int j = 0; j < n && rc == TH_OK; j++)
        rc = th_emu_release(r->emu, ids[j], err);
    for (int j = 0; j < n && rc == TH_OK; j++) {
        int32_t i = r->ended[j];
        if (rv[j] >= 0) { /* the order across classes is not followed */
            rc = copy_ended(r, rv[j], t, -1, err);
            continue;
        }
        r->busy[S_COMM] = 0;
        if (finish(r, i, t, 0, err) || issue_all(r, t, r->ended_first[j], err)) rc = err->code;
    }
    free(rv);
    return rc;
}

/* Why the replay stopped with nodes left: a receive whose send never comes, a collective some
 * class never issues, else a stall. */
static int stalled(world *w, th_error *err) {
    if (w->npending) { /* a receive whose send waits for it (or for what waits for it) */
        const replayer *q = &w->r[w->pending[0].cls];
        return th_error_set(err, TH_EINPUT,
                            "%s: node %llu: attr comm_tag: its send never starts, as it waits "
                            "for this receive: ASTRA-sim 2.x would wait for ever",
                            q->src, (unsigned long long)q->g->nodes[w->pending[0].node].id);
    }
    for (size_t k = 0; k < w->nrv; k++) {
        const rendezvous *v = &w->rv[k];
        if (v->joined == v->span) continue;
        const replayer *q = &w->r[lowest(v->joined)];
        const replayer *m = &w->r[lowest(v->span & ~v->joined)];
        return th_error_set(err, TH_EINPUT,
                            "%s: node %llu: a collective (%s) whose ranks span classes of ranks, "
                            "which rank "
                            "%lld (%s) never issues: ASTRA-sim 2.x would wait for ever",
                            q->src, (unsigned long long)q->g->nodes[v->node[q->cls]].id,
                            th_coll_type_name((th_coll_type)q->g->nodes[v->node[q->cls]].coll),
                            (long long)m->rank0, m->src);
    }
    for (int c = 0; c < w->n; c++) {
        const replayer *r = &w->r[c];
        if (r->done == r->g->n) continue;
        for (int s = 0; s < S_COUNT; s++) /* made ready by an invalid node, after the last event */
            if (r->ready[s].n)
                return th_error_set(err, TH_EINPUT,
                                    "%s: node %llu: ready only once an invalid node ended, and no "
                                    "event of rank %lld follows that would issue it: ASTRA-sim "
                                    "2.x would wait for ever",
                                    r->src, (unsigned long long)r->g->nodes[r->ready[s].v[0]].id,
                                    (long long)r->rank0);
        int32_t i = 0;
        while (i < r->g->n && r->left[i] == 0)
            i++;
        return th_error_set(err, TH_EINTERNAL, "%s: node %llu: never issued (replay stalled)",
                            r->src, (unsigned long long)r->g->nodes[i < r->g->n ? i : 0].id);
    }
    return TH_OK;
}

static int run(world *w, th_error *err) {
    for (int c = 0; c < w->n; c++) {
        replayer *r = &w->r[c];
        const th_ck_graph *g = r->g;
        for (int32_t i = 0; i < g->n; i++) {
            r->left[i] = (int32_t)g->nodes[i].ndeps;
            if (!r->left[i] && heap_push(&r->ready[stream_of(&g->nodes[i])], i)) return oom(err);
        }
    }
    for (int c = 0; c < w->n; c++)
        if (issue_all(&w->r[c], 0, 0, err)) return err->code;
    for (;;) {
        if (interrupted(w)) return th_error_set(err, TH_EINTERNAL, "interrupted");
        /* the class of the earliest event (the first class at a tie) */
        int best = -1, timed_first = 0;
        double tb = INFINITY;
        for (int c = 0; c < w->n; c++) {
            replayer *r = &w->r[c];
            double tn = th_emu_next(r->emu), tt = r->ntm ? r->tm[earliest(r)].end : INFINITY;
            double tc = tt <= tn ? tt : tn;
            if (tc < tb) best = c, tb = tc, timed_first = tt <= tn;
        }
        if (best < 0) break;
        if (step(&w->r[best], timed_first, err)) return err->code;
    }
    int left = 0;
    for (int c = 0; c < w->n; c++)
        left |= w->r[c].done < w->r[c].g->n;
    return left ? stalled(w, err) : TH_OK;
}

static void replayer_free(replayer *r) {
    for (size_t k = 0; k < r->id_cap; k++)
        th_plan_free(r->plan_of ? r->plan_of[k] : NULL);
    for (size_t k = 0; k < r->npool; k++)
        th_plan_free(r->pool[k]);
    for (int s = 0; s < S_COUNT; s++)
        free(r->ready[s].v);
    free(r->pool);
    free(r->plan_of);
    free(r->contrib);
    free(r->of_id);
    free(r->rv_of);
    free(r->tm);
    free(r->deferred);
    free(r->match);
    free(r->matchc);
    free(r->several);
    free(r->cdims);
    free(r->peer);
    free(r->span);
    free(r->sc);
    free(r->ended);
    free(r->ended_first);
    free(r->left);
    free(r->start);
    free(r->file);
    th_emu_free(r->emu);
}

/* Node events held back until the replay's result stands (a refused replay that the model
 * replays NPU by NPU gives its own). */
typedef struct held_events {
    th_ck_event *v;
    size_t n, cap;
    int oom;
} held_events;

static void hold_event(void *ctx, const th_ck_event *ev) {
    held_events *h = ctx;
    if (h->n == h->cap && th_grow(&h->v, &h->cap, h->n + 1, sizeof *h->v))
        h->oom = 1;
    else
        h->v[h->n++] = *ev;
}

int th_ck_replay(const th_system *sys, const th_ck_trace *tr, const th_ck_opts *o,
                 th_ck_trace_fn trace, void *trace_ctx, th_ck_result *res, th_error *err) {
    memset(res, 0, sizeof *res);
    if ((unsigned)o->policy >= TH_POLICY_COUNT || o->policy == TH_POLICY_IDEAL)
        return th_error_set(err, TH_EINPUT, "policy: %s has no chunk plan to replay a trace with",
                            th_policy_name(o->policy));
    int nmem = 0; /* memory nodes: each class's checked against the remote memory */
    for (int c = 0; c < th_ck_classes(tr); c++) {
        const th_ck_graph *g = th_ck_class_graph(tr, c);
        char file[4200]; /* class c's first rank's file */
        snprintf(file, sizeof file, "%s.%lld.et", tr->prefix, (long long)th_ck_first_rank(tr, c));
        int rc = th_ck_mem_check(o->mem, g, c ? file : tr->file0, err);
        if (rc) return rc;
        nmem += th_ck_mem_nodes(g) > 0;
    }
    world w = {0};
    held_events held = {0};
    w.sys = sys, w.tr = tr, w.o = o, w.n = th_ck_classes(tr);
    w.rules = rules_of(sys);
    if (w.n > 1 && (double)tr->ranks != sys->npus)
        return th_error_set(err, TH_EINPUT,
                            "%s: %d rank files whose graphs differ (%d classes of ranks), and "
                            "system \"%s\" has %.17g NPUs: with ranks that differ themis needs "
                            "one file per NPU",
                            tr->prefix, tr->ranks, w.n, sys->name, sys->npus);
    w.r = calloc((size_t)w.n, sizeof *w.r);
    if (!w.r) return oom(err);
    int rc = TH_OK;
    for (int c = 0; c < w.n && rc == TH_OK; c++) {
        replayer *r = &w.r[c];
        r->w = &w, r->cls = c, r->rank0 = th_ck_first_rank(tr, c), r->coll = -1;
        r->sys = sys, r->g = th_ck_class_graph(tr, c), r->o = o, r->res = res;
        r->trace = trace ? hold_event : NULL, r->trace_ctx = &held, r->rules = w.rules;
        r->roofline = w.rules->roofline && w.rules->roofline(sys, &r->bw, &r->peak);
        r->src = tr->file0;
        if (c > 0) {
            size_t len = strlen(tr->prefix) + 32;
            r->file = malloc(len);
            if (!r->file) {
                rc = oom(err);
                break;
            }
            snprintf(r->file, len, "%s.%lld.et", tr->prefix, (long long)r->rank0);
            r->src = r->file;
        }
        size_t n = (size_t)r->g->n ? (size_t)r->g->n : 1;
        r->match = malloc(sizeof *r->match * n);
        r->matchc = malloc(sizeof *r->matchc * n);
        r->several = malloc(n);
        r->cdims = calloc(n, sizeof *r->cdims);
        r->peer = malloc(sizeof *r->peer * n);
        r->span = calloc(n, sizeof *r->span);
        r->left = malloc(sizeof *r->left * n);
        r->start = malloc(sizeof *r->start * n);
        r->emu = th_emu_create();
        if (!r->match || !r->matchc || !r->several || !r->cdims || !r->span || !r->left ||
            !r->start || !r->emu || !r->peer)
            rc = oom(err);
        size_t p = tr->peer_off ? tr->peer_off[c] : 0;
        for (int32_t i = 0; rc == TH_OK && i < r->g->n; i++) { /* the first rank's peers */
            const th_ck_node *x = &r->g->nodes[i];
            int p2p = x->kind == TH_CK_SEND || x->kind == TH_CK_RECV;
            r->peer[i] = p2p && tr->peer ? tr->peer[p++] : x->peer;
        }
        for (size_t k = 0; rc == TH_OK && k < n; k++)
            r->start[k] = -1; /* not issued */
    }
    for (int c = 0; c < w.n && rc == TH_OK; c++)
        rc = check(&w.r[c], err);
    int soft = rc == TH_OK && w.soft; /* refused for what a replay of every NPU models */
    if (soft) rc = TH_EINPUT, *err = w.soft_err;
    /* ranks that share a memory wait for each other: every rank replays */
    int shared = rc == TH_OK && nmem && o->mem && th_ck_mem_shared(o->mem);
    if (shared) rc = th_ck_memshare_replay(sys, tr, o, trace, trace_ctx, res, err);
    int npus = 0, ran = 0; /* replayed NPU by NPU; the replay ran (check passed) */
    if (rc == TH_OK && !shared) {
        for (int c = 0; c < w.n; c++)
            th_emu_reset(w.r[c].emu, sys, o->intra, o->priority, NULL, NULL);
        ran = 1;
        rc = run(&w, err);
    }
    /* what the replay refused for an order of the NPUs' events it does not follow, the model
     * may replay NPU by NPU in the simulator's own order: its result stands, or its refusal
     * (a trace it does not replay so keeps the replay's; so does one that both refuse as one
     * the simulator would not finish, the replay naming the tie) */
    int hang = 0;
    for (int c = 0; ran && w.rules->refused_hang && c < w.n; c++)
        hang |= w.rules->refused_hang(w.r[c].emu);
    if (rc == TH_EINPUT && ((ran && (w.order_unknown || hang)) || soft || w.skew) &&
        w.rules->npus) {
        th_error e2 = {0};
        int rc2 = w.rules->npus(sys, tr, o, trace, trace_ctx, res, &npus, &e2);
        if (npus && !(npus == 2 && hang)) rc = rc2, *err = e2;
        if (npus == 2 && hang) npus = 0;
    }
    if (rc == TH_OK && held.oom) rc = oom(err);
    for (size_t k = 0; rc == TH_OK && !npus && k < held.n; k++)
        trace(trace_ctx, &held.v[k]);
    free(held.v);
    if (rc == TH_OK && !shared && !npus) {
        res->classes = w.n;
        int last = 0;
        for (int c = 0; c < w.n; c++) {
            res->class_end[c] = w.r[c].last;
            res->class_compute[c] = w.r[c].compute;
            if (w.r[c].last > w.r[last].last) last = c;
        }
        res->finish = w.r[last].last;
        res->compute = w.r[last].compute;
        res->exposed = res->finish - res->compute;
    }
    for (int c = 0; c < w.n; c++)
        replayer_free(&w.r[c]);
    free(w.r);
    free(w.rv);
    free(w.pending);
    if (rc) memset(res, 0, sizeof *res);
    return rc;
}

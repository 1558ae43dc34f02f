/* The replay of one rank's execution graph (docs/CHAKRA.md): per NPU a compute stream, a CPU
 * stream and a communication stream; a node is ready once every parent ended, and each time
 * a node ends the ready nodes are issued in id order to the streams that are free, as
 * ASTRA-sim 2.x's workload layer does. Collectives run on the emulator under the chosen
 * policy; the system model's graph rules (model.h) say whether the communication stream holds
 * a collective until it ends, the least compute time, a roofline for compute nodes, the time
 * of a point-to-point message, and how Themis's loads carry from one collective to the next.
 * Memory nodes take the remote memory's time on their stream; ranks that share a memory replay
 * together (chakra_memshare.c). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../model.h"
#include "chakra.h"
#include "chakra_mem.h"
#include "themis/buf.h"
#include "themis/collective.h"

/* The analytical model's rules: collectives overlap, compute takes what the trace says. */
static const th_graph_rules clean_rules = {0, 0, 0, NULL, NULL};

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
    int other; /* issued in the chain of events of a collective's end that an NPU other than
                * rank 0 sees first (th_graph_rules.themis_carry) */
} timed;

typedef struct replayer {
    const th_system *sys;
    const th_ck_graph *g;
    const char *src;
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
    int32_t *ended; /* the collectives one emulator step finished */
    size_t ended_cap;
    int32_t *deferred; /* nodes made ready inside an issue call (they wait for the next one) */
    size_t ndef, def_cap;
    double load[TH_MAX_DIMS];  /* Themis loads left by the last schedule rank 0 made */
    uint8_t list[TH_MAX_DIMS]; /* and its list of the dims' records (th_plan.list) */
    int carry;                 /* 1: load holds them */
    /* themis-global under the analytical model, as themis train keeps it: the loads of the
     * collectives in flight, and per emulator id the loads its plan added */
    double tracker[TH_MAX_DIMS];
    double (*contrib)[TH_MAX_DIMS];
    int roofline;     /* GPU compute by the roofline below (graph rules) */
    double bw, peak;  /* its memory bandwidth, bytes/s, and peak, FLOP/s */
    int32_t *match;   /* per receive: the send of its tag in this graph (every rank alike) */
    int32_t *pending; /* receives issued before their send */
    size_t npending, pending_cap;
    int32_t done;
    unsigned events;
    th_ck_result *res;
} replayer;

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
    if (r->trace) {
        th_ck_event ev = {i, r->start[i], t};
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
static void coll_of(const replayer *r, const th_ck_node *x, th_collective *c) {
    uint32_t all = (1u << r->sys->ndims) - 1u;
    c->type = (th_coll_type)x->coll;
    c->size = x->size;
    c->chunks = r->o->chunks;
    c->dims_mask = x->ndims < 0 ? 0 : x->dims & all;
    if (c->type == TH_COLL_ALLGATHER && th_model_has(r->sys, TH_CAP_AG_OUTPUT)) {
        uint32_t m = c->dims_mask ? c->dims_mask : all;
        for (int d = 0; d < r->sys->ndims; d++)
            if ((m >> d) & 1u) c->size *= (double)r->sys->dims[d].npus;
    }
}

/* Plans and issues collective node i at t. Under themis_carry the schedule starts from the
 * state rank 0's scheduler holds: reset when rank 0 is the first NPU to issue it (other 0),
 * else the loads and list its last schedule left, when rank 0 made one since its last reset
 * (rank 0 then resets them as it issues the collective in turn). */
static int issue_coll(replayer *r, int32_t i, double t, int other, th_error *err) {
    const th_ck_node *x = &r->g->nodes[i];
    th_collective c;
    coll_of(r, x, &c);
    th_plan *plan = r->npool ? r->pool[--r->npool] : th_plan_create();
    if (!plan) return oom(err);
    const double *init = NULL;
    int themis = r->o->policy == TH_POLICY_THEMIS || r->o->policy == TH_POLICY_THEMIS_GLOBAL;
    plan->carry = 0;
    if (r->rules->themis_carry && themis && other && r->carry) {
        init = r->load;
        plan->carry = 1;
        memcpy(plan->list, r->list, sizeof plan->list);
    }
    int global = !r->rules->themis_carry && r->o->policy == TH_POLICY_THEMIS_GLOBAL;
    double added[TH_MAX_DIMS] = {0};
    if (global) init = r->tracker;
    int rc = th_sched_plan_from(plan, r->sys, &c, r->o->policy, r->o->model, init, err);
    if (rc == TH_OK && global)
        for (int d = 0; d < r->sys->ndims; d++) {
            added[d] = plan->load[d] - r->tracker[d];
            r->tracker[d] = plan->load[d];
        }
    if (rc == TH_OK && r->rules->themis_carry && themis) {
        /* an All-to-All: rank 0 resets its loads but makes no schedule */
        r->carry = !other && c.type != TH_COLL_ALLTOALL;
        if (r->carry) {
            memcpy(r->load, plan->load, sizeof r->load);
            memcpy(r->list, plan->list, sizeof r->list);
        }
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
        size_t cap = r->id_cap, cap2 = r->id_cap, old = r->id_cap;
        if (th_grow(&r->of_id, &cap, (size_t)id + 1, sizeof *r->of_id) ||
            th_grow(&r->contrib, &cap2, cap, sizeof *r->contrib) ||
            th_grow(&r->plan_of, &r->id_cap, cap, sizeof *r->plan_of)) {
            th_plan_free(plan);
            return oom(err);
        }
        memset(r->plan_of + old, 0, sizeof *r->plan_of * (r->id_cap - old));
    }
    r->of_id[id] = i;
    r->plan_of[id] = plan;
    memcpy(r->contrib[id], added, sizeof added);
    r->res->collectives++;
    return TH_OK;
}

static int add_timed(replayer *r, int32_t i, double end, int other, th_error *err) {
    if (r->ntm == r->tm_cap && th_grow(&r->tm, &r->tm_cap, r->ntm + 1, sizeof *r->tm))
        return oom(err);
    r->tm[r->ntm++] = (timed){end, r->seq++, i, other};
    return TH_OK;
}

/* Receive i ends when the message of its send (the same place in the sending rank's graph, so
 * issued when this rank's send was) has come from its source, or at once when it came before
 * the receive was issued. */
static int recv_end(replayer *r, int32_t i, int other, th_error *err) {
    const th_ck_node *x = &r->g->nodes[i];
    double arrive = r->start[r->match[i]] + r->rules->message(r->sys, x->peer, 0, x->size);
    return add_timed(r, i, arrive > r->start[i] ? arrive : r->start[i], other, err);
}

/* One issue call at t (ASTRA-sim's issue_dep_free_nodes): the ready nodes in id order, each to
 * its stream when that stream is free; an invalid node ends at once, and what it makes ready
 * waits for the next call. */
static int issue_call(replayer *r, double t, int other, th_error *err) {
    const th_ck_graph *g = r->g;
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
            if (!x->cpu) r->res->compute += cost(r, x);
            rc = add_timed(r, i, t + cost(r, x), other, err);
            break;
        case TH_CK_BCAST: /* ASTRA-sim replays its duration on the communication stream */
            r->busy[best] = r->rules->serial_comm;
            rc = add_timed(r, i, t + cost(r, x), other, err);
            break;
        case TH_CK_COLL:
            r->busy[best] = r->rules->serial_comm;
            rc = issue_coll(r, i, t, other, err);
            break;
        case TH_CK_MEM: /* an access of the remote memory, on its stream (chakra_mem.h) */
            r->busy[best] = x->cpu || r->rules->serial_comm;
            if (t == 0 && r->rules->serial_comm) rc = th_ck_mem_at_start(r->o->mem, x, r->src, err);
            if (rc == TH_OK)
                rc = add_timed(r, i, t + th_ck_mem_ns(r->o->mem, x->tensor), other, err);
            break;
        case TH_CK_SEND: /* ends when its message arrives */
            r->busy[best] = r->rules->serial_comm;
            rc = add_timed(r, i, t + r->rules->message(r->sys, 0, x->peer, x->size), other, err);
            for (size_t k = 0; rc == TH_OK && k < r->npending; k++)
                if (r->match[r->pending[k]] == i) { /* a receive waiting for this send */
                    rc = recv_end(r, r->pending[k], other, err);
                    r->pending[k--] = r->pending[--r->npending];
                }
            break;
        case TH_CK_RECV: /* ends when its message arrived: at once when it already did */
            if (r->start[r->match[i]] >= 0) {
                rc = recv_end(r, i, other, err);
            } else if (r->npending == r->pending_cap &&
                       th_grow(&r->pending, &r->pending_cap, r->npending + 1, sizeof *r->pending)) {
                rc = oom(err);
            } else {
                r->pending[r->npending++] = i;
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

/* A call, then what it made ready: under the simulator's rules it waits for the next event;
 * otherwise further calls at the same instant issue it. */
static int issue_all(replayer *r, double t, int other, th_error *err) {
    for (;;) {
        if (issue_call(r, t, other, err)) return err->code;
        if (!r->ndef) return TH_OK;
        int32_t first = r->deferred[0];
        if (release_deferred(r, err)) return err->code;
        if (r->rules->serial_comm && r->ntm == 0 && th_emu_next(r->emu) == INFINITY &&
            !r->busy[S_COMM])
            return th_error_set(err, TH_EINPUT,
                                "%s: node %llu: ready only once an invalid node ended, and no "
                                "event follows that would issue it: ASTRA-sim 2.x would wait for "
                                "ever",
                                r->src, (unsigned long long)r->g->nodes[first].id);
        if (r->rules->serial_comm) return TH_OK;
    }
}

/* Whether the caller asked to stop: its stop flag at once, its poll hook every 4096 steps. */
static int interrupted(replayer *r) {
    const th_ck_opts *o = r->o;
    if (o->stop && atomic_load_explicit(o->stop, memory_order_relaxed)) return 1;
    return o->poll && (++r->events & 4095u) == 0 && o->poll(o->poll_ctx);
}

/* The nodes themis does not replay, and every collective checked against the system, before
 * the replay starts. */
static int check(replayer *r, th_error *err) {
    const th_ck_graph *g = r->g;
    int32_t work = 0;
    for (int32_t i = 0; i < g->n; i++)
        work += g->nodes[i].kind != TH_CK_SKIP;
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
        if (p2p && r->rules->message(r->sys, x->kind == TH_CK_SEND ? 0 : x->peer,
                                     x->kind == TH_CK_SEND ? x->peer : 0, x->size) < 0)
            return th_error_set(err, TH_EINPUT,
                                "%s: node %llu: attr %s: %d, expected another NPU of system "
                                "\"%s\" than rank 0 (0..%.17g)",
                                r->src, id, x->kind == TH_CK_SEND ? "comm_dst" : "comm_src",
                                (int)x->peer, r->sys->name, r->sys->npus - 1);
        if (x->kind == TH_CK_RECV) { /* its send: the one of its tag (and size) */
            r->match[i] = -1;
            for (int32_t j = 0; j < g->n && r->match[i] < 0; j++) {
                if (interrupted(r)) /* receives x nodes: long on a large trace */
                    return th_error_set(err, TH_EINTERNAL, "interrupted");
                if (g->nodes[j].kind == TH_CK_SEND && g->nodes[j].tag == x->tag &&
                    g->nodes[j].size == x->size)
                    r->match[i] = j;
            }
            if (r->match[i] < 0)
                return th_error_set(err, TH_EINPUT,
                                    "%s: node %llu: attr comm_tag: no send of tag %d and %.17g "
                                    "bytes in the graph: a receive replays when every rank sends "
                                    "as it receives (the same graph on every rank)",
                                    r->src, id, (int)x->tag, x->size);
        }
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
        if (x->ndims >= 0 && x->ndims < r->sys->ndims)
            return th_error_set(err, TH_EINPUT,
                                "%s: node %llu: attr involved_dim: %d entries for the %d dims of "
                                "system \"%s\": ASTRA-sim 2.x reads one per dim, past the list's "
                                "end",
                                r->src, id, (int)x->ndims, r->sys->ndims, r->sys->name);
        if (x->ndims >= 0 && !(x->dims & ((1u << r->sys->ndims) - 1u)))
            return th_error_set(err, TH_EINPUT,
                                "%s: node %llu: attr involved_dim: selects no dim of system \"%s\" "
                                "(dims 0..%d): ASTRA-sim 2.x never finishes such a collective",
                                r->src, id, r->sys->name, r->sys->ndims - 1);
        th_collective c;
        coll_of(r, x, &c);
        th_error e;
        if (th_collective_validate(r->sys, &c, &e))
            return th_error_set(
                err, e.code, "%s: node %llu: attr comm_type %s, comm_size %.17g%s: %s", r->src, id,
                th_coll_type_name(c.type), x->size, x->ndims >= 0 ? ", involved_dim" : "", e.msg);
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

static int run(replayer *r, th_error *err) {
    const th_ck_graph *g = r->g;
    for (int32_t i = 0; i < g->n; i++) {
        r->left[i] = (int32_t)g->nodes[i].ndeps;
        if (!r->left[i] && heap_push(&r->ready[stream_of(&g->nodes[i])], i)) return oom(err);
    }
    double t = 0;
    if (issue_all(r, 0, 0, err)) return err->code;
    for (;;) {
        if (interrupted(r)) return th_error_set(err, TH_EINTERNAL, "interrupted");
        double tn = th_emu_next(r->emu), tt = INFINITY;
        size_t k = 0;
        if (r->ntm) k = earliest(r), tt = r->tm[k].end;
        if (tt == INFINITY && tn == INFINITY) break;
        if (tt <= tn) { /* a compute event was registered when it began: first at a tie */
            timed x = r->tm[k];
            r->tm[k] = r->tm[--r->ntm];
            t = x.end;
            r->busy[stream_of(&g->nodes[x.node])] = 0;
            if (finish(r, x.node, t, 0, err) || issue_all(r, t, x.other, err)) return err->code;
            continue;
        }
        if (th_emu_step(r->emu, err)) return err->code;
        t = th_emu_now(r->emu);
        const int *ids;
        int n = th_emu_finished(r->emu, &ids);
        if ((size_t)n > r->ended_cap &&
            th_grow(&r->ended, &r->ended_cap, (size_t)n, sizeof *r->ended))
            return oom(err);
        for (int j = 0; j < n; j++) { /* copied first: a release reuses the list */
            int id = ids[j];
            r->ended[j] = r->of_id[id];
            for (int d = 0; d < r->sys->ndims; d++)
                r->tracker[d] -= r->contrib[id][d];
            if (r->npool == r->pool_cap &&
                th_grow(&r->pool, &r->pool_cap, r->npool + 1, sizeof *r->pool))
                return oom(err);
            r->pool[r->npool++] = r->plan_of[id];
            r->plan_of[id] = NULL;
        }
        for (int j = 0; j < n; j++)
            if (th_emu_release(r->emu, ids[j], err)) return err->code;
        for (int j = 0; j < n; j++) {
            int32_t i = r->ended[j];
            r->busy[S_COMM] = 0;
            /* whether rank 0 is not the first NPU to see it end (the model's rules) */
            int other = (r->rules->themis_carry >> g->nodes[i].coll) & 1;
            if (finish(r, i, t, 0, err) || issue_all(r, t, other, err)) return err->code;
        }
    }
    if (r->done < g->n) {
        if (r->npending) /* a receive whose send waits for it (or for what waits for it) */
            return th_error_set(err, TH_EINPUT,
                                "%s: node %llu: attr comm_tag: its send never starts, as it waits "
                                "for this receive: ASTRA-sim 2.x would wait for ever",
                                r->src, (unsigned long long)g->nodes[r->pending[0]].id);
        int32_t i = 0;
        while (i < g->n && r->left[i] == 0)
            i++;
        return th_error_set(err, TH_EINTERNAL, "%s: node %llu: never issued (replay stalled)",
                            r->src, (unsigned long long)g->nodes[i < g->n ? i : 0].id);
    }
    r->res->finish = t;
    r->res->exposed = t - r->res->compute;
    return TH_OK;
}

int th_ck_replay(const th_system *sys, const th_ck_trace *tr, const th_ck_opts *o,
                 th_ck_trace_fn trace, void *trace_ctx, th_ck_result *res, th_error *err) {
    memset(res, 0, sizeof *res);
    if ((unsigned)o->policy >= TH_POLICY_COUNT || o->policy == TH_POLICY_IDEAL)
        return th_error_set(err, TH_EINPUT, "policy: %s has no chunk plan to replay a trace with",
                            th_policy_name(o->policy));
    int rc = th_ck_mem_check(o->mem, &tr->g, tr->file0, err);
    if (rc) return rc;
    replayer r = {0};
    r.sys = sys, r.g = &tr->g, r.src = tr->file0, r.o = o, r.res = res;
    r.trace = trace, r.trace_ctx = trace_ctx;
    r.rules = rules_of(sys);
    r.roofline = r.rules->roofline && r.rules->roofline(sys, &r.bw, &r.peak);
    size_t n = (size_t)tr->g.n ? (size_t)tr->g.n : 1;
    r.match = malloc(sizeof *r.match * n);
    if (!r.match) return oom(err);
    rc = check(&r, err);
    /* ranks that share a memory wait for each other: every rank replays */
    int shared = rc == TH_OK && o->mem && th_ck_mem_shared(o->mem) && th_ck_mem_nodes(&tr->g);
    if (shared) rc = th_ck_memshare_replay(sys, tr, o, trace, trace_ctx, res, err);
    if (rc || shared) {
        free(r.match);
        return rc;
    }
    r.left = malloc(sizeof *r.left * n);
    r.start = malloc(sizeof *r.start * n);
    r.emu = th_emu_create();
    if (!r.left || !r.start || !r.emu) {
        rc = oom(err);
    } else {
        for (size_t k = 0; k < n; k++)
            r.start[k] = -1; /* not issued */
        th_emu_reset(r.emu, sys, o->intra, o->priority, NULL, NULL);
        rc = run(&r, err);
    }
    for (size_t k = 0; k < r.id_cap; k++)
        th_plan_free(r.plan_of ? r.plan_of[k] : NULL);
    for (size_t k = 0; k < r.npool; k++)
        th_plan_free(r.pool[k]);
    for (int s = 0; s < S_COUNT; s++)
        free(r.ready[s].v);
    free(r.pool);
    free(r.plan_of);
    free(r.contrib);
    free(r.of_id);
    free(r.tm);
    free(r.deferred);
    free(r.match);
    free(r.pending);
    free(r.ended);
    free(r.left);
    free(r.start);
    th_emu_free(r.emu);
    if (rc) memset(res, 0, sizeof *res);
    return rc;
}

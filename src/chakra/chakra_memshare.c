/* Memory nodes on a shared remote memory (a memory per node of NPUs, or one pool): every rank
 * waits for the accesses of the others, so every NPU of the system replays its graph (its class's,
 * chakra.h) together, in the order ASTRA-sim 2.x's event queues give their events:
 *
 * - each NPU keeps its events per instant in the order they were registered, and the network's
 *   queue calls an NPU's events of an instant in the order in which that NPU first registered
 *   an event at that instant; an event registered at an instant being called joins it;
 * - at the start every NPU, rank 0 first, issues its ready nodes;
 * - a memory that is free serves an access at once: it registers the end of the node, then its
 *   own call, on the NPU that asked, both after latency + floor(bytes / bw) ns; a busy one
 *   queues the access (first come, first served), and its call serves the next one.
 *
 * Only graphs of compute, memory and invalid nodes replay this way (collectives would need
 * every NPU's network events too). */
#include <stdlib.h>
#include <string.h>

#include "chakra_mem.h"
#include "themis/buf.h"

/* Past this many nodes over all ranks a replay of every rank is refused (memory, time). */
#define MAX_RANK_NODES (1 << 25)

enum { S_GPU, S_CPU, S_COMM, S_COUNT };
enum { EV_END, EV_MEM }; /* a node's end on its NPU; the memory's call */

/* An event an NPU registered (at most a few per NPU are pending). */
typedef struct sev {
    double t;
    uint64_t seq; /* registration order */
    int kind;     /* EV_END, EV_MEM */
    int32_t node; /* EV_END: the node that ends */
} sev;

/* The network's queue: which NPU's events to call at an instant (time, then first
 * registration). */
typedef struct call {
    double t;
    uint64_t seq;
    int32_t rank;
} call;

/* A queued access. */
typedef struct access {
    int32_t rank, node;
} access;

typedef struct npu {
    sev *ev;
    size_t nev, ev_cap;
    int32_t *ready[S_COUNT]; /* min-heaps of node indices (id order) */
    size_t nready[S_COUNT], ready_cap[S_COUNT];
    int busy[S_COUNT];
    int32_t inflight; /* nodes issued and not ended */
    int finished;
    double end; /* when it finished, ns */
} npu;

typedef struct unit {
    int busy;
    access *q;
    size_t head, n, cap;
} unit;

typedef struct sharer {
    const th_system *sys;
    const th_ck_trace *tr;
    const th_ck_mem *m;
    const th_ck_opts *o;
    char **src; /* per class its first rank's file, for messages */
    int nclasses;
    th_ck_trace_fn trace;
    void *trace_ctx;
    int serial; /* the communication stream holds one node at a time */
    int64_t nranks;
    npu *p;
    int32_t *left;  /* per rank and node: parents not ended yet, from left[off[rank]] */
    int64_t *off;   /* per rank, where its nodes start in left */
    double **start; /* per class, its first rank's issue times (the timeline) */
    unit *units;
    call *calls; /* a min-heap */
    size_t ncalls, calls_cap;
    uint64_t seq;
    int32_t cur_rank; /* the NPU whose events are being called, at cur_t; -1 none */
    double cur_t;
    int32_t *deferred; /* nodes an issue call made ready (they wait for its end) */
    size_t ndef, def_cap;
    double compute[TH_CK_MAX_CLASSES]; /* per class, its first rank's GPU compute, ns */
    unsigned events;
} sharer;

static int class_of(const sharer *s, int32_t r) {
    return th_ck_class_of(s->tr, r);
}

static const th_ck_graph *graph_of(const sharer *s, int32_t r) {
    return th_ck_class_graph(s->tr, class_of(s, r));
}

/* Whether rank r's times are its class's timeline. */
static int first_of_class(const sharer *s, int32_t r) {
    return th_ck_first_rank(s->tr, class_of(s, r)) == r;
}

static int oom(th_error *err) {
    return th_error_set(err, TH_EINTERNAL, "out of memory");
}

static int stream_of(const th_ck_node *x) {
    if (x->cpu) return S_CPU;
    return x->kind == TH_CK_COMPUTE ? S_GPU : S_COMM;
}

static int heap_push(int32_t **v, size_t *n, size_t *cap, int32_t x) {
    if (*n == *cap && th_grow(v, cap, *n + 1, sizeof **v)) return -1;
    size_t i = (*n)++;
    while (i > 0 && (*v)[(i - 1) / 2] > x) {
        (*v)[i] = (*v)[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    (*v)[i] = x;
    return 0;
}

static int32_t heap_pop(int32_t *v, size_t *n) {
    int32_t top = v[0], x = v[--*n];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= *n) break;
        if (c + 1 < *n && v[c + 1] < v[c]) c++;
        if (v[c] >= x) break;
        v[i] = v[c];
        i = c;
    }
    if (*n) v[i] = x;
    return top;
}

static int call_less(const call *a, const call *b) {
    return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

static int calls_push(sharer *s, call c) {
    if (s->ncalls == s->calls_cap && th_grow(&s->calls, &s->calls_cap, s->ncalls + 1, sizeof c))
        return -1;
    size_t i = s->ncalls++;
    while (i > 0 && call_less(&c, &s->calls[(i - 1) / 2])) {
        s->calls[i] = s->calls[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    s->calls[i] = c;
    return 0;
}

static call calls_pop(sharer *s) {
    call top = s->calls[0], x = s->calls[--s->ncalls];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= s->ncalls) break;
        if (c + 1 < s->ncalls && call_less(&s->calls[c + 1], &s->calls[c])) c++;
        if (!call_less(&s->calls[c], &x)) break;
        s->calls[i] = s->calls[c];
        i = c;
    }
    if (s->ncalls) s->calls[i] = x;
    return top;
}

/* Registers an event on NPU r at t: the network calls r at t once, when r first registers an
 * event there (while r's events of t are being called, a new one joins them). */
static int reg(sharer *s, int32_t r, double t, int kind, int32_t node, th_error *err) {
    npu *p = &s->p[r];
    int known = s->cur_rank == r && s->cur_t == t;
    for (size_t k = 0; k < p->nev && !known; k++)
        known = p->ev[k].t == t;
    if (p->nev == p->ev_cap && th_grow(&p->ev, &p->ev_cap, p->nev + 1, sizeof *p->ev))
        return oom(err);
    p->ev[p->nev++] = (sev){t, s->seq++, kind, node};
    if (!known && calls_push(s, (call){t, s->seq++, r})) return oom(err);
    return TH_OK;
}

static int64_t unit_of(const sharer *s, int32_t r) {
    return s->m->type == TH_CK_MEM_PER_NODE ? r / s->m->npus_per_node : 0;
}

/* Memory unit u serves rank r's access to node i at t: the node's end, then the memory's
 * call, both on r. */
static int serve(sharer *s, int32_t r, int32_t i, double t, th_error *err) {
    const th_ck_node *x = &graph_of(s, r)->nodes[i];
    if (t == 0 && s->serial && th_ck_mem_at_start(s->m, x, s->src[class_of(s, r)], err))
        return err->code;
    double end = t + th_ck_mem_ns(s->m, x->tensor);
    if (reg(s, r, end, EV_END, i, err) || reg(s, r, end, EV_MEM, i, err)) return err->code;
    return TH_OK;
}

static int finish(sharer *s, int32_t r, int32_t i, double t, int inside, th_error *err) {
    const th_ck_graph *g = graph_of(s, r);
    npu *p = &s->p[r];
    if (s->trace && first_of_class(s, r)) {
        int c = class_of(s, r);
        th_ck_event ev = {i, s->start[c][i], t, c};
        s->trace(s->trace_ctx, &ev);
    }
    int32_t *left = s->left + s->off[r];
    for (int32_t c = g->child_off[i]; c < g->child_off[i + 1]; c++) {
        int32_t k = g->child[c];
        if (--left[k]) continue;
        if (inside) {
            if (s->ndef == s->def_cap &&
                th_grow(&s->deferred, &s->def_cap, s->ndef + 1, sizeof *s->deferred))
                return oom(err);
            s->deferred[s->ndef++] = k;
        } else {
            int st = stream_of(&g->nodes[k]);
            if (heap_push(&p->ready[st], &p->nready[st], &p->ready_cap[st], k)) return oom(err);
        }
    }
    return TH_OK;
}

/* One issue call of rank r at t: its ready nodes in id order, each to its stream when free. */
static int issue_call(sharer *s, int32_t r, double t, th_error *err) {
    const th_ck_graph *g = graph_of(s, r);
    npu *p = &s->p[r];
    int first = first_of_class(s, r), c = class_of(s, r);
    for (;;) {
        int best = -1;
        for (int st = 0; st < S_COUNT; st++)
            if (!p->busy[st] && p->nready[st] && (best < 0 || p->ready[st][0] < p->ready[best][0]))
                best = st;
        if (best < 0) break;
        int32_t i = heap_pop(p->ready[best], &p->nready[best]);
        const th_ck_node *x = &g->nodes[i];
        if (first) s->start[c][i] = t;
        int rc = TH_OK;
        if (x->kind == TH_CK_SKIP) {
            rc = finish(s, r, i, t, 1, err); /* ends at once */
        } else if (x->kind == TH_CK_COMPUTE) {
            double ns = th_ck_compute_ns(s->sys, x);
            if (ns < 0) { /* a roofline node of tensor_size 0: ASTRA-sim skips it */
                rc = finish(s, r, i, t, 1, err);
            } else {
                p->busy[best] = 1;
                p->inflight++;
                if (first && !x->cpu) s->compute[c] += ns;
                rc = reg(s, r, t + ns, EV_END, i, err);
            }
        } else { /* a memory node */
            p->busy[best] = x->cpu || s->serial;
            p->inflight++;
            unit *u = &s->units[unit_of(s, r)];
            if (!u->busy) {
                u->busy = 1;
                rc = serve(s, r, i, t, err);
            } else {
                if (u->head + u->n == u->cap &&
                    th_grow(&u->q, &u->cap, u->head + u->n + 1, sizeof *u->q))
                    return oom(err);
                u->q[u->head + u->n++] = (access){r, i};
            }
        }
        if (rc) return rc;
    }
    return TH_OK;
}

/* Issue calls at t: the nodes a call made ready wait for rank r's next event under the
 * simulator's rules, else are issued at once. Then whether r has finished. */
static int issue_all(sharer *s, int32_t r, double t, th_error *err) {
    npu *p = &s->p[r];
    for (;;) {
        if (issue_call(s, r, t, err)) return err->code;
        for (size_t k = 0; k < s->ndef; k++) {
            int32_t i = s->deferred[k];
            int st = stream_of(&graph_of(s, r)->nodes[i]);
            if (heap_push(&p->ready[st], &p->nready[st], &p->ready_cap[st], i)) return oom(err);
        }
        int again = s->ndef && !s->serial;
        s->ndef = 0;
        if (!again) break;
    }
    int empty = !p->inflight;
    for (int st = 0; st < S_COUNT; st++)
        empty &= p->nready[st] == 0;
    if (empty && !p->finished) p->finished = 1, p->end = t;
    return TH_OK;
}

/* Calls rank r's events at t, in the order they were registered (new ones of t join). */
static int call_events(sharer *s, int32_t r, double t, th_error *err) {
    npu *p = &s->p[r];
    s->cur_rank = r, s->cur_t = t;
    for (;;) {
        size_t b = p->nev;
        for (size_t k = 0; k < p->nev; k++)
            if (p->ev[k].t == t && (b == p->nev || p->ev[k].seq < p->ev[b].seq)) b = k;
        if (b == p->nev) break;
        sev e = p->ev[b];
        p->ev[b] = p->ev[--p->nev];
        if (e.kind == EV_END) {
            const th_ck_node *x = &graph_of(s, r)->nodes[e.node];
            p->busy[stream_of(x)] = 0;
            p->inflight--;
            if (finish(s, r, e.node, t, 0, err) || issue_all(s, r, t, err)) return err->code;
        } else { /* the memory r's access used serves the next one, or is free */
            unit *u = &s->units[unit_of(s, r)];
            if (u->n) {
                access a = u->q[u->head++];
                u->n--;
                if (!u->n) u->head = 0;
                if (serve(s, a.rank, a.node, t, err)) return err->code;
            } else {
                u->busy = 0;
            }
        }
    }
    s->cur_rank = -1;
    return TH_OK;
}

static int interrupted(sharer *s) {
    const th_ck_opts *o = s->o;
    if (o->stop && atomic_load_explicit(o->stop, memory_order_relaxed)) return 1;
    return o->poll && (++s->events & 4095u) == 0 && o->poll(o->poll_ctx);
}

/* Graphs of compute, memory and invalid nodes only; a node memory for every NPU. */
static int check(const sharer *s, th_error *err) {
    const char *type = th_ck_mem_type_names[s->m->type];
    double total = 0;
    for (int64_t r = 0; r < s->nranks; r++)
        total += graph_of(s, (int32_t)r)->n;
    for (int c = 0; c < s->nclasses; c++) {
        const th_ck_graph *g = th_ck_class_graph(s->tr, c);
        for (int32_t i = 0; i < g->n; i++) {
            const th_ck_node *x = &g->nodes[i];
            if (x->kind != TH_CK_COMPUTE && x->kind != TH_CK_MEM && x->kind != TH_CK_SKIP)
                return th_error_set(err, TH_EINPUT,
                                    "%s: node %llu: type: %s: with memory-type %s (%s) the NPUs "
                                    "wait for each other's memory nodes, so every NPU replays; "
                                    "themis does that for graphs of compute, memory and invalid "
                                    "nodes only",
                                    s->src[c], (unsigned long long)x->id, th_ck_type_name(x->type),
                                    type, s->m->src);
        }
    }
    if (s->m->type == TH_CK_MEM_PER_NODE && (s->nranks - 1) / s->m->npus_per_node >= s->m->nodes)
        return th_error_set(err, TH_EINPUT,
                            "%s: num-nodes: %lld nodes of %lld NPUs hold %lld NPUs, fewer than "
                            "the %lld of system \"%s\" (ASTRA-sim indexes past its nodes)",
                            s->m->src, (long long)s->m->nodes, (long long)s->m->npus_per_node,
                            (long long)(s->m->nodes * s->m->npus_per_node), (long long)s->nranks,
                            s->sys->name);
    if (total > MAX_RANK_NODES)
        return th_error_set(err, TH_EINPUT,
                            "%s: %lld NPUs, %.17g nodes in all: more than %d nodes to replay with "
                            "every rank (memory-type %s)",
                            s->src[0], (long long)s->nranks, total, MAX_RANK_NODES, type);
    return TH_OK;
}

static int run(sharer *s, th_error *err) {
    for (int32_t r = 0; r < s->nranks; r++) {
        const th_ck_graph *g = graph_of(s, r);
        npu *p = &s->p[r];
        int32_t *left = s->left + s->off[r];
        for (int32_t i = 0; i < g->n; i++) {
            left[i] = (int32_t)g->nodes[i].ndeps;
            int st = stream_of(&g->nodes[i]);
            if (!left[i] && heap_push(&p->ready[st], &p->nready[st], &p->ready_cap[st], i))
                return oom(err);
        }
    }
    for (int32_t r = 0; r < s->nranks; r++) /* as each NPU's workload fires, rank 0 first */
        if (issue_all(s, r, 0, err)) return err->code;
    while (s->ncalls) {
        if (interrupted(s)) return th_error_set(err, TH_EINTERNAL, "interrupted");
        call c = calls_pop(s);
        if (call_events(s, c.rank, c.t, err)) return err->code;
    }
    for (int32_t r = 0; r < s->nranks; r++) {
        const npu *p = &s->p[r];
        const th_ck_graph *g = graph_of(s, r);
        if (p->finished) continue;
        for (int st = 0; st < S_COUNT; st++)
            if (p->nready[st])
                return th_error_set(err, TH_EINPUT,
                                    "%s: node %llu: ready only once an invalid node ended, and "
                                    "no event of rank %d follows that would issue it: ASTRA-sim "
                                    "2.x would wait for ever",
                                    s->src[class_of(s, r)],
                                    (unsigned long long)g->nodes[p->ready[st][0]].id, (int)r);
        return th_error_set(err, TH_EINTERNAL, "%s: rank %d never finished (replay stalled)",
                            s->src[class_of(s, r)], (int)r);
    }
    return TH_OK;
}

int th_ck_memshare_replay(const th_system *sys, const th_ck_trace *tr, const th_ck_opts *o,
                          th_ck_trace_fn trace, void *trace_ctx, th_ck_result *res, th_error *err) {
    memset(res, 0, sizeof *res);
    sharer s = {0};
    s.sys = sys, s.tr = tr, s.m = o->mem, s.o = o;
    s.trace = trace, s.trace_ctx = trace_ctx;
    s.serial = th_ck_serial_comm(sys);
    s.nranks = (int64_t)sys->npus;
    s.nclasses = th_ck_classes(tr);
    s.cur_rank = -1;
    int64_t nunits = s.m->type == TH_CK_MEM_PER_NODE ? s.m->nodes : 1;
    s.src = calloc((size_t)s.nclasses, sizeof *s.src);
    s.start = calloc((size_t)s.nclasses, sizeof *s.start);
    int rc = s.src && s.start ? TH_OK : oom(err);
    for (int c = 0; rc == TH_OK && c < s.nclasses; c++) {
        size_t len = strlen(tr->prefix) + 32, n = (size_t)th_ck_class_graph(tr, c)->n;
        if (!(s.src[c] = malloc(c ? len : strlen(tr->file0) + 1)) ||
            !(s.start[c] = malloc(sizeof **s.start * (n ? n : 1)))) {
            rc = oom(err);
            break;
        }
        if (c)
            snprintf(s.src[c], len, "%s.%lld.et", tr->prefix, (long long)th_ck_first_rank(tr, c));
        else
            strcpy(s.src[c], tr->file0);
    }
    if (rc == TH_OK) rc = check(&s, err);
    if (rc == TH_OK) {
        s.p = calloc((size_t)s.nranks, sizeof *s.p);
        s.off = malloc(sizeof *s.off * (size_t)(s.nranks + 1));
        s.units = calloc((size_t)nunits, sizeof *s.units);
        if (s.off) {
            s.off[0] = 0;
            for (int64_t r = 0; r < s.nranks; r++)
                s.off[r + 1] = s.off[r] + graph_of(&s, (int32_t)r)->n;
            s.left = malloc(sizeof *s.left * (size_t)(s.off[s.nranks] ? s.off[s.nranks] : 1));
        }
        rc = s.p && s.off && s.units && s.left ? run(&s, err) : oom(err);
    }
    if (rc == TH_OK) {
        res->classes = s.nclasses;
        for (int64_t r = 0; r < s.nranks; r++) {
            int c = class_of(&s, (int32_t)r);
            if (s.p[r].end > res->class_end[c]) res->class_end[c] = s.p[r].end;
        }
        int last = 0;
        for (int c = 0; c < s.nclasses; c++) {
            res->class_compute[c] = s.compute[c];
            if (res->class_end[c] > res->class_end[last]) last = c;
        }
        res->finish = res->class_end[last];
        res->compute = s.compute[last];
        res->exposed = res->finish - res->compute;
    }
    for (int64_t r = 0; s.p && r < s.nranks; r++) {
        free(s.p[r].ev);
        for (int st = 0; st < S_COUNT; st++)
            free(s.p[r].ready[st]);
    }
    for (int64_t u = 0; s.units && u < nunits; u++)
        free(s.units[u].q);
    for (int c = 0; c < s.nclasses; c++) {
        free(s.src ? s.src[c] : NULL);
        free(s.start ? s.start[c] : NULL);
    }
    free(s.src);
    free(s.start);
    free(s.p);
    free(s.off);
    free(s.left);
    free(s.units);
    free(s.calls);
    free(s.deferred);
    if (rc) memset(res, 0, sizeof *res);
    return rc;
}

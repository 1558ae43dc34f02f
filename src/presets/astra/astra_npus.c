/* The ASTRA-sim 2.x preset's replay of a Chakra trace NPU by NPU (docs/CHAKRA.md, "Every NPU
 * in its order"): the workload layer (Workload.cc, HardwareResource.cc: nodes issued once their
 * parents end, in id order, one compute, one CPU and one communication node in flight; each
 * NPU its class's graph with its own peers; sends, receives, accesses of a memory per NPU) over
 * the system layer of src/npus/ as ASTRA-sim 2.x runs it. The replay falls back on it where it
 * does not know the order of the NPUs' events, or where one rank per class does not stand for
 * its ranks (a collective issued at different instants, Themis across classes); it refuses a
 * trace ASTRA-sim would not finish. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "astra_preset.h"
#include "chakra/chakra.h"
#include "chakra/chakra_mem.h"
#include "npus/npus.h"
#include "themis/astra.h"

typedef struct ckg { /* a class's graph, as each NPU of the class runs it */
    const th_ck_graph *g;
    uint32_t *cdims; /* per node, the dims it involves */
    int32_t *p2p;    /* per node, its place among the graph's send and receive nodes */
} ckg;

typedef struct ckw_npu { /* one NPU's Workload and HardwareResource */
    const ckg *k;        /* its class's graph */
    const int32_t *peer; /* its own peers of those send and receive nodes, in node order */
    int32_t *left;       /* per node, its parents not yet ended */
    int32_t *free;       /* the nodes whose parents ended, not issued, by id */
    int nfree, free_cap, ongoing, cpu, comp, comm, finished;
    int32_t coll;   /* the collective node in flight (-1: none) */
    int32_t recvs;  /* receive nodes in flight */
    int32_t recv;   /* the last one posted, while in flight (-1: none) */
    int64_t finish; /* when it finished */
    double gpu_ns;
} ckw_npu;

typedef struct ckw { /* the workload layer of every NPU */
    ckg cls[TH_CK_MAX_CLASSES];
    int ncls;
    ckw_npu *w;
    const th_ck_mem *mem;   /* the remote memory of memory nodes (one per NPU) */
    int32_t mem0, mem0_npu; /* a memory node of 0 ns issued at 0 and its NPU (-1: none) */
    th_ck_trace_fn trace;   /* rank 0's node events, when not NULL */
    void *trace_ctx;
    int64_t *start0; /* rank 0's nodes' issue times */
} ckw;

static ckw *W(const npus *s) {
    return s->c.user;
}

static int is_comm(const th_ck_node *x) {
    return x->kind != TH_CK_COMPUTE;
}

static int available(const ckw_npu *u, const th_ck_node *x) {
    if (x->cpu) return u->cpu == 0;
    if (!is_comm(x)) return u->comp == 0;
    return u->comm == 0 || x->kind == TH_CK_RECV;
}

static void occupy(ckw_npu *u, const th_ck_node *x, int delta) {
    if (x->cpu)
        u->cpu += delta;
    else if (!is_comm(x))
        u->comp += delta;
    else if (x->kind != TH_CK_RECV)
        u->comm += delta;
}

/* DependancyResolver::finish_node: node k ended on NPU n; its children may be free. */
static void finish_node(npus *s, int32_t n, int32_t k) {
    ckw *c = W(s);
    ckw_npu *u = &c->w[n];
    if (n == 0 && c->trace) {
        th_ck_event ev = {k, (double)c->start0[k], (double)s->now, 0};
        c->trace(c->trace_ctx, &ev);
    }
    u->ongoing--;
    const th_ck_graph *g = u->k->g;
    for (int32_t c = g->child_off[k]; c < g->child_off[k + 1]; c++) {
        int32_t ch = g->child[c];
        if (--u->left[ch]) continue;
        if (npus_growi(s, (void **)&u->free, u->nfree, &u->free_cap, sizeof *u->free)) return;
        int at = u->nfree;
        while (at > 0 && u->free[at - 1] > ch)
            at--;
        memmove(u->free + at + 1, u->free + at, sizeof *u->free * (size_t)(u->nfree - at));
        u->free[at] = ch;
        u->nfree++;
    }
}

static void issue(npus *s, int32_t n, int32_t k);

/* Workload::issue_dep_free_nodes: the free nodes in id order, each as the hardware allows. */
static void issue_free(npus *s, int32_t n) {
    ckw *c = W(s);
    ckw_npu *u = &c->w[n];
    int m = u->nfree;
    if (!m) return;
    int32_t *snap = malloc(sizeof *snap * (size_t)m);
    if (!snap) {
        s->oom = 1;
        return;
    }
    memcpy(snap, u->free, sizeof *snap * (size_t)m);
    for (int i = 0; i < m && !s->oom; i++)
        if (available(&c->w[n], &u->k->g->nodes[snap[i]])) issue(s, n, snap[i]);
    free(snap);
}

static void check_finished(npus *s, int32_t n) {
    ckw_npu *u = &W(s)->w[n];
    if (!u->finished && !u->nfree && !u->ongoing && !u->cpu && !u->comp && !u->comm) {
        u->finished = 1;
        u->finish = s->now;
    }
}

/* A node that ends at `ns` from now through the NPU's events (a compute node's
 * issue_replay, a memory access's end): the workload's General event. */
static void timed(npus *s, int32_t n, int32_t k, double ns) {
    npus_register(s, n, C_WORK, E_GENERAL, n, k, npus_ns(s, ns));
}

static void issue(npus *s, int32_t n, int32_t k) {
    ckw *c = W(s);
    ckw_npu *u = &c->w[n];
    const th_ck_node *x = &u->k->g->nodes[k];
    int at = 0;
    while (at < u->nfree && u->free[at] != k)
        at++;
    if (at < u->nfree) {
        memmove(u->free + at, u->free + at + 1, sizeof *u->free * (size_t)(u->nfree - at - 1));
        u->nfree--;
    }
    u->ongoing++;
    occupy(u, x, 1);
    if (n == 0 && c->start0) c->start0[k] = s->now;
    if (x->kind == TH_CK_COMPUTE) {
        double ns = th_ck_compute_ns(s->sys, x);
        if (ns < 0) { /* a roofline node of no tensor: skipped as invalid */
            finish_node(s, n, k);
            occupy(u, x, -1);
            return;
        }
        if (!x->cpu) u->gpu_ns += ns;
        timed(s, n, k, ns);
    } else if (x->kind == TH_CK_COLL) {
        u->coll = k;
        int op = x->coll == TH_COLL_ALLREDUCE       ? OP_AR
                 : x->coll == TH_COLL_REDUCESCATTER ? OP_RS
                 : x->coll == TH_COLL_ALLGATHER     ? OP_AG
                                                    : OP_A2A;
        npus_generate(s, n, op, (uint64_t)x->size, u->k->cdims[k], NPUS_PRIO_NONE, k);
    } else if (x->kind == TH_CK_BCAST) {
        int32_t di = npus_dataset(s, n, k, 1);
        if (di < 0) return;
        int64_t ns = npus_ns(s, x->micros ? (double)x->micros * 1000 : 1);
        npus_register(s, n, C_DATASET, E_GENERAL, di, 0, ns);
    } else if (x->kind == TH_CK_MEM) { /* the NPU's own memory: at once, never waited for */
        double ns = th_ck_mem_ns(c->mem, x->tensor);
        if (ns == 0 && s->now == 0 && c->mem0 < 0) { /* ASTRA-sim's queue stops on it */
            c->mem0 = k, c->mem0_npu = n;
            s->stop_at = 0;
        }
        timed(s, n, k, ns);
    } else if (x->kind == TH_CK_SEND) {
        npus_p2p_send(s, x->tag, n, u->peer[u->k->p2p[k]], (uint64_t)x->size, k);
    } else if (x->kind == TH_CK_RECV) {
        u->recv = k, u->recvs++;
        npus_p2p_recv(s, x->tag, u->peer[u->k->p2p[k]], n, (uint64_t)x->size, k);
    } else { /* an invalid node: finished as issued */
        finish_node(s, n, k);
        occupy(u, x, -1);
    }
}

/* Workload::call. */
static void work_call(npus *s, int32_t n, int ev, int32_t k) {
    ckw *c = W(s);
    ckw_npu *u = &c->w[n];
    if (u->finished) return;
    if (ev == E_COLL_DONE || k >= 0) {
        if (ev == E_COLL_DONE) u->coll = -1;
        if (u->k->g->nodes[k].kind == TH_CK_RECV) u->recvs--;
        if (k == u->recv) u->recv = -1;
        occupy(u, &u->k->g->nodes[k], -1);
        finish_node(s, n, k);
    }
    issue_free(s, n);
    check_finished(s, n);
}

static void on_work(npus *s, int32_t n, int ev, int32_t obj, int32_t data) {
    (void)obj;
    work_call(s, n, ev, data);
}

/* DataSet's notifier: the collective (or broadcast) node ended. */
static void on_done(npus *s, int32_t di) {
    work_call(s, s->ds[di].npu, E_COLL_DONE, s->ds[di].owner);
}

/* Why graph g is not replayed NPU by NPU here (NULL: it is). */
static const char *unsupported_graph(const th_system *sys, const th_ck_graph *g,
                                     const th_ck_trace *tr, const th_ck_opts *o) {
    for (int32_t i = 0; i < g->n; i++) {
        const th_ck_node *x = &g->nodes[i];
        if (x->group || x->type == 1) return "metadata nodes and process groups";
        if ((x->kind == TH_CK_SEND || x->kind == TH_CK_RECV) &&
            (!tr->rank_peer || tr->ranks != sys->npus))
            return "point-to-point nodes without every NPU's file";
        if (x->kind == TH_CK_MEM && (!o->mem || o->mem->type != TH_CK_MEM_PER_NPU))
            return "memory nodes on a shared memory, or none";
        if (x->kind == TH_CK_COLL &&
            (x->size != floor(x->size) || x->size < 1 || x->size > 9007199254740992.0 ||
             (x->coll == TH_COLL_ALLGATHER && x->size < (double)o->chunks)))
            return "a size of no whole chunk";
        for (int d = 0; x->kind == TH_CK_COLL && d < sys->ndims; d++) {
            int64_t p = (int64_t)sys->dims[d].npus;
            if (th_astra_algorithm(sys, (th_coll_type)x->coll, d) == TH_ALG_RHD &&
                (p & (p - 1) || x->coll == TH_COLL_ALLTOALL))
                return "halvingDoubling off a power of 2 or on an All-to-All";
        }
    }
    return NULL;
}

/* Whether each rank's sends and receives (its own peers) name another NPU of sys. */
static int peers_ok(const th_system *sys, const th_ck_trace *tr) {
    for (int r = 0; tr->rank_peer && r < tr->ranks; r++) {
        const th_ck_graph *g = th_ck_class_graph(tr, th_ck_class_of(tr, r));
        size_t j = tr->rank_peer_off[r], end = tr->rank_peer_off[r + 1];
        for (int32_t i = 0; i < g->n; i++) {
            const th_ck_node *x = &g->nodes[i];
            if (x->kind != TH_CK_SEND && x->kind != TH_CK_RECV) continue;
            if (j == end) return 0;
            int32_t q = tr->rank_peer[j++];
            if (th_astra_message(sys, x->kind == TH_CK_SEND ? r : q, x->kind == TH_CK_SEND ? q : r,
                                 x->size) < 0)
                return 0;
        }
        if (j != end) return 0;
    }
    return 1;
}

/* Why tr is not replayed NPU by NPU here (NULL: it is): what the port leaves out. */
static const char *unsupported(const th_system *sys, const th_ck_trace *tr, const th_ck_opts *o) {
    if (th_ck_classes(tr) > 1 && tr->ranks != sys->npus)
        return "ranks that differ without every NPU's file";
    if (o->policy != TH_POLICY_THEMIS && o->policy != TH_POLICY_BASELINE) return "the policy";
    if (o->chunks < 1 || o->chunks > 1048576) return "the chunks";
    int32_t most = 1;
    for (int c = 0; c < th_ck_classes(tr); c++) {
        const th_ck_graph *g = th_ck_class_graph(tr, c);
        const char *why = unsupported_graph(sys, g, tr, o);
        if (why) return why;
        if (g->n > most) most = g->n;
    }
    if (sys->npus * (double)most > 268435456.0) return "its size";
    if (!peers_ok(sys, tr)) return "a send or receive of an NPU to itself";
    return NULL;
}

/* The file of NPU r's graph as the replay holds it: its class's first rank's, whose node ids
 * the messages give (ranks of one class may number their nodes apart). */
static const char *file_of(const th_ck_trace *tr, int r, char *buf, size_t n) {
    int first = th_ck_first_rank(tr, th_ck_class_of(tr, r));
    if (tr->ranks <= 1 || first == 0) return tr->file0;
    snprintf(buf, n, "%s.%d.et", tr->prefix, first);
    return buf;
}

static void ckw_free(ckw *c, int n) {
    for (int i = 0; c->w && i < n; i++)
        free(c->w[i].left), free(c->w[i].free);
    free(c->w);
    for (int k = 0; k < c->ncls; k++)
        free(c->cls[k].cdims), free(c->cls[k].p2p);
    free(c->start0);
}

/* Class k's graph g as its NPUs run it: each node's dims and place among the sends and
 * receives (-1 when out of memory). */
static int class_init(ckg *k, const th_ck_graph *g, const th_system *sys) {
    size_t nn = (size_t)(g->n ? g->n : 1);
    k->g = g;
    k->cdims = malloc(sizeof *k->cdims * nn);
    k->p2p = malloc(sizeof *k->p2p * nn);
    if (!k->cdims || !k->p2p) return -1;
    uint32_t all = (1u << sys->ndims) - 1u;
    int32_t j = 0;
    for (int32_t i = 0; i < g->n; i++) {
        const th_ck_node *x = &g->nodes[i];
        k->cdims[i] = x->ndims < 0 ? all : x->dims & all;
        k->p2p[i] = j;
        j += x->kind == TH_CK_SEND || x->kind == TH_CK_RECV;
    }
    return 0;
}

/* NPU r's workload: its class's graph, its own peers, its nodes without parents free. */
static int npu_init(ckw *c, int r, const th_ck_trace *tr) {
    ckw_npu *u = &c->w[r];
    u->k = &c->cls[th_ck_class_of(tr, r)];
    u->peer = tr->rank_peer ? tr->rank_peer + tr->rank_peer_off[r] : NULL;
    u->coll = u->recv = -1;
    const th_ck_graph *g = u->k->g;
    size_t nn = (size_t)(g->n ? g->n : 1);
    if (!(u->left = malloc(sizeof *u->left * nn)) || !(u->free = malloc(sizeof *u->free * nn)))
        return -1;
    u->free_cap = (int)nn;
    for (int32_t i = 0; i < g->n; i++) {
        u->left[i] = (int32_t)g->nodes[i].ndeps;
        if (!u->left[i]) u->free[u->nfree++] = i;
    }
    return 0;
}

int astra_npus_replay(const th_system *sys, const th_ck_trace *tr, const th_ck_opts *o,
                      th_ck_trace_fn trace, void *trace_ctx, th_ck_result *res, int *handled,
                      th_error *err) {
    *handled = 0;
    if (unsupported(sys, tr, o)) return TH_OK;
    *handled = 1;
    const th_ck_graph *g = &tr->g;
    int n = (int)sys->npus;
    ckw C = {0}, *c = &C;
    c->mem = o->mem, c->mem0 = -1, c->trace = trace, c->trace_ctx = trace_ctx;
    c->w = calloc((size_t)n, sizeof *c->w);
    if (trace) c->start0 = calloc((size_t)(g->n ? g->n : 1), sizeof *c->start0);
    int bad = !c->w || (trace && !c->start0);
    for (int k = 0; !bad && k < th_ck_classes(tr); k++, c->ncls++)
        bad = class_init(&c->cls[k], th_ck_class_graph(tr, k), sys);
    for (int r = 0; !bad && r < n; r++)
        bad = npu_init(c, r, tr);
    npus_cfg cfg = {0};
    cfg.sys = sys, cfg.version = NPUS_V2;
    cfg.themis = o->policy == TH_POLICY_THEMIS;
    cfg.scf = o->intra == TH_INTRA_SCF;
    cfg.flat = astra_of(sys)->flat;
    cfg.lifo = 1;
    cfg.gap_den = 16;
    cfg.splits = o->chunks;
    cfg.ep = astra_of(sys)->endpoint;
    cfg.mem_bw = astra_of(sys)->local_mem_GBps * 1e9;
    for (int d = 0; d < sys->ndims; d++) {
        cfg.greedy_bw[d] = sys->dims[d].bw_GBps;
        for (int t = 0; t < 4; t++) {
            th_algorithm al = th_astra_algorithm(sys, (th_coll_type)t, d);
            cfg.alg[t][d] = al == TH_ALG_RHD ? A_HD : al == TH_ALG_DIRECT ? A_DIRECT : A_RING;
        }
    }
    cfg.message = th_astra_message;
    cfg.work = on_work, cfg.done = on_done, cfg.user = c;
    cfg.stop = o->stop, cfg.poll = o->poll, cfg.poll_ctx = o->poll_ctx;
    npus S, *s = &S;
    if (bad || npus_init(s, &cfg)) {
        if (!bad) npus_free(s);
        ckw_free(c, n);
        return th_error_set(err, TH_EINTERNAL, "out of memory");
    }
    /* Workload::fire on every NPU in turn at 0, then the backend's events in order */
    for (int r = 0; r < n && !s->oom; r++)
        work_call(s, r, E_GENERAL, -1);
    int rc = TH_OK;
    if (!s->oom && npus_run(s) && s->interrupted)
        rc = th_error_set(err, TH_EINTERNAL, "interrupted");
    if (rc == TH_OK && s->oom) rc = th_error_set(err, TH_EINTERNAL, "out of memory");
    char file[sizeof tr->file0 + 32];
    if (rc == TH_OK && c->mem0 >= 0)
        rc = th_ck_mem_at_start(o->mem, &c->w[c->mem0_npu].k->g->nodes[c->mem0],
                                file_of(tr, c->mem0_npu, file, sizeof file), err);
    if (rc == TH_OK && s->wrap_id >= 0) {
        const ckw_npu *u = &c->w[s->wrap_npu];
        const th_ck_node *x = &u->k->g->nodes[u->coll];
        rc = th_error_set(err, TH_EINPUT,
                          "%s: node %llu (%s of %.17g bytes): ASTRA-sim 2.x would not finish: "
                          "at %lld ns NPU %d takes Themis's shared schedule of chunk %lld, which "
                          "another collective's chunk of that number made larger than what is "
                          "left of this one, and the simulator's remaining size wraps around "
                          "below 0 (it generates chunks without end; every NPU replayed event by "
                          "event, docs/CHAKRA.md)",
                          file_of(tr, s->wrap_npu, file, sizeof file), (unsigned long long)x->id,
                          th_coll_type_name((th_coll_type)x->coll), x->size, (long long)s->now,
                          (int)s->wrap_npu, (long long)s->wrap_id);
        *handled = 2;
    }
    if (rc == TH_OK && s->zero_at >= 0)
        rc = th_error_set(err, TH_EINPUT,
                          "%s: at %lld ns a phase or a send sends a message of 0 bytes, on "
                          "which ASTRA-sim 2.x stops (replayed NPU by NPU)",
                          tr->file0, (long long)s->zero_at);
    int64_t end = 0;
    int last = 0, hang = 0;
    for (int r = 0; rc == TH_OK && r < n; r++) {
        ckw_npu *u = &c->w[r];
        if (u->finished) {
            if (u->finish > end) end = u->finish, last = r;
            continue;
        }
        hang = 1;
        const th_ck_graph *ug = u->k->g;
        const char *f = file_of(tr, r, file, sizeof file);
        long long at = (long long)s->npus[r].last;
        if (u->coll >= 0)
            rc = th_error_set(err, TH_EINPUT,
                              "%s: node %llu (%s): ASTRA-sim 2.x would not finish: NPU %d's "
                              "collective waits from %lld ns on for messages no NPU sends "
                              "(every NPU replayed event by event, docs/CHAKRA.md)",
                              f, (unsigned long long)ug->nodes[u->coll].id,
                              th_coll_type_name((th_coll_type)ug->nodes[u->coll].coll), r, at);
        else if (u->recvs)
            rc = th_error_set(err, TH_EINPUT,
                              "%s: node %llu (COMM_RECV_NODE): ASTRA-sim 2.x would not finish: "
                              "NPU %d waits for a message no NPU sends (every NPU replayed event "
                              "by event, docs/CHAKRA.md)",
                              f, (unsigned long long)(u->recv >= 0 ? ug->nodes[u->recv].id : 0), r);
        else
            rc = th_error_set(err, TH_EINPUT,
                              "%s: ASTRA-sim 2.x would not finish: NPU %d stops at %lld ns "
                              "with nodes not issued (every NPU replayed event by event, "
                              "docs/CHAKRA.md)",
                              f, r, at);
    }
    if (rc == TH_EINPUT && hang) *handled = 2;
    if (s->too_long && !s->oom && rc != TH_EINTERNAL) { /* past its times: the refusal stands */
        *handled = 0;
        rc = TH_OK;
    }
    if (rc == TH_OK && *handled) { /* the classes' ends, the last of their ranks' */
        memset(res, 0, sizeof *res);
        res->finish = (double)end;
        res->compute = c->w[last].gpu_ns;
        res->exposed = res->finish - res->compute;
        res->classes = c->ncls;
        for (int r = 0; r < n; r++) {
            int k = th_ck_class_of(tr, r);
            if ((double)c->w[r].finish > res->class_end[k]) res->class_end[k] = c->w[r].finish;
            if (r == th_ck_first_rank(tr, k)) res->class_compute[k] = c->w[r].gpu_ns;
        }
        for (int k = 0; k < c->ncls; k++)
            for (int32_t i = 0; i < c->cls[k].g->n; i++)
                res->collectives += c->cls[k].g->nodes[i].kind == TH_CK_COLL;
    }
    npus_free(s);
    ckw_free(c, n);
    return rc;
}

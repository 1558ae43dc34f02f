/* The ASTRA-sim 2.x preset's replay of a Chakra trace NPU by NPU (docs/CHAKRA.md, "Every NPU
 * in its order"): the workload layer (Workload.cc, HardwareResource.cc: nodes issued once their
 * parents end, in id order, one compute, one CPU and one communication node in flight) over
 * the system layer of src/npus/ as ASTRA-sim 2.x runs it. The replay falls back on it where it
 * does not know the order of the NPUs' events; it refuses a trace ASTRA-sim would not
 * finish. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "astra_preset.h"
#include "chakra/chakra.h"
#include "chakra/chakra_mem.h"
#include "npus/npus.h"
#include "themis/astra.h"

typedef struct ckw_npu { /* one NPU's Workload and HardwareResource */
    int32_t *left;       /* per node, its parents not yet ended */
    int32_t *free;       /* the nodes whose parents ended, not issued, by id */
    int nfree, free_cap, ongoing, cpu, comp, comm, finished;
    int32_t coll;   /* the collective node in flight (-1: none) */
    int64_t finish; /* when it finished */
    double gpu_ns;
} ckw_npu;

typedef struct ckw { /* the workload layer of every NPU */
    const th_ck_graph *g;
    ckw_npu *w;
    uint32_t *cdims;      /* per node, the dims it involves */
    th_ck_trace_fn trace; /* rank 0's node events, when not NULL */
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
    const th_ck_graph *g = c->g;
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
        if (available(&c->w[n], &c->g->nodes[snap[i]])) issue(s, n, snap[i]);
    free(snap);
}

static void check_finished(npus *s, int32_t n) {
    ckw_npu *u = &W(s)->w[n];
    if (!u->finished && !u->nfree && !u->ongoing && !u->cpu && !u->comp && !u->comm) {
        u->finished = 1;
        u->finish = s->now;
    }
}

static void issue(npus *s, int32_t n, int32_t k) {
    ckw *c = W(s);
    ckw_npu *u = &c->w[n];
    const th_ck_node *x = &c->g->nodes[k];
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
        npus_register(s, n, C_WORK, E_GENERAL, n, k, npus_ns(s, ns));
    } else if (x->kind == TH_CK_COLL) {
        u->coll = k;
        int op = x->coll == TH_COLL_ALLREDUCE       ? OP_AR
                 : x->coll == TH_COLL_REDUCESCATTER ? OP_RS
                 : x->coll == TH_COLL_ALLGATHER     ? OP_AG
                                                    : OP_A2A;
        npus_generate(s, n, op, (uint64_t)x->size, c->cdims[k], NPUS_PRIO_NONE, k);
    } else if (x->kind == TH_CK_BCAST) {
        int32_t di = npus_dataset(s, n, k, 1);
        if (di < 0) return;
        int64_t ns = npus_ns(s, x->micros ? (double)x->micros * 1000 : 1);
        npus_register(s, n, C_DATASET, E_GENERAL, di, 0, ns);
    } else { /* an invalid node: finished as issued */
        finish_node(s, n, k);
        occupy(u, x, -1);
    }
}

/* Workload::call. */
static void work_call(npus *s, int32_t n, int ev, int32_t k) {
    ckw *c = W(s);
    if (c->w[n].finished) return;
    if (ev == E_COLL_DONE || k >= 0) {
        if (ev == E_COLL_DONE) c->w[n].coll = -1;
        occupy(&c->w[n], &c->g->nodes[k], -1);
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

/* Why tr is not replayed NPU by NPU here (NULL: it is): what the port leaves out. */
static const char *unsupported(const th_system *sys, const th_ck_trace *tr, const th_ck_opts *o) {
    if (th_ck_classes(tr) > 1) return "ranks that differ";
    if (o->policy != TH_POLICY_THEMIS && o->policy != TH_POLICY_BASELINE) return "the policy";
    if (o->chunks < 1 || o->chunks > 1048576) return "the chunks";
    if (sys->npus * (double)(tr->g.n ? tr->g.n : 1) > 268435456.0) return "its size";
    const th_ck_graph *g = &tr->g;
    for (int32_t i = 0; i < g->n; i++) {
        const th_ck_node *x = &g->nodes[i];
        if (x->kind == TH_CK_SEND || x->kind == TH_CK_RECV || x->kind == TH_CK_MEM || x->group ||
            x->type == 1)
            return "point-to-point, memory and metadata nodes and process groups";
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

static void ckw_free(ckw *c, int n) {
    for (int i = 0; c->w && i < n; i++)
        free(c->w[i].left), free(c->w[i].free);
    free(c->w);
    free(c->cdims);
    free(c->start0);
}

int astra_npus_replay(const th_system *sys, const th_ck_trace *tr, const th_ck_opts *o,
                      th_ck_trace_fn trace, void *trace_ctx, th_ck_result *res, int *handled,
                      th_error *err) {
    *handled = 0;
    if (unsupported(sys, tr, o)) return TH_OK;
    *handled = 1;
    const th_ck_graph *g = &tr->g;
    int n = (int)sys->npus;
    size_t nn = (size_t)(g->n ? g->n : 1);
    ckw C = {g, NULL, NULL, trace, trace_ctx, NULL}, *c = &C;
    c->w = calloc((size_t)n, sizeof *c->w);
    c->cdims = malloc(sizeof *c->cdims * nn);
    if (trace) c->start0 = calloc(nn, sizeof *c->start0);
    int bad = !c->w || !c->cdims || (trace && !c->start0);
    uint32_t all = (1u << sys->ndims) - 1u;
    for (int32_t i = 0; !bad && i < g->n; i++)
        c->cdims[i] = g->nodes[i].ndims < 0 ? all : g->nodes[i].dims & all;
    for (int r = 0; !bad && r < n; r++) {
        ckw_npu *u = &c->w[r];
        u->coll = -1;
        if (!(u->left = malloc(sizeof *u->left * nn)) ||
            !(u->free = malloc(sizeof *u->free * nn))) {
            bad = 1;
            break;
        }
        u->free_cap = (int)nn;
        for (int32_t i = 0; i < g->n; i++) {
            u->left[i] = (int32_t)g->nodes[i].ndeps;
            if (!u->left[i]) u->free[u->nfree++] = i;
        }
    }
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
    if (rc == TH_OK && s->zero_at >= 0)
        rc = th_error_set(err, TH_EINPUT,
                          "%s: at %lld ns a collective's phase sends a message of 0 bytes, on "
                          "which ASTRA-sim 2.x stops (replayed NPU by NPU)",
                          tr->file0, (long long)s->zero_at);
    int64_t end = 0;
    int last = 0, hang = 0;
    for (int r = 0; rc == TH_OK && r < n; r++) {
        ckw_npu *u = &c->w[r];
        if (!u->finished) {
            hang = 1;
            if (u->coll >= 0)
                rc = th_error_set(err, TH_EINPUT,
                                  "%s: node %llu (%s): ASTRA-sim 2.x would not finish: NPU %d's "
                                  "collective waits from %lld ns on for messages no NPU sends "
                                  "(every NPU replayed event by event, docs/CHAKRA.md)",
                                  tr->file0, (unsigned long long)g->nodes[u->coll].id,
                                  th_coll_type_name((th_coll_type)g->nodes[u->coll].coll), r,
                                  (long long)s->npus[r].last);
            else
                rc = th_error_set(err, TH_EINPUT,
                                  "%s: ASTRA-sim 2.x would not finish: NPU %d stops at %lld ns "
                                  "with nodes not issued (every NPU replayed event by event, "
                                  "docs/CHAKRA.md)",
                                  tr->file0, r, (long long)s->npus[r].last);
            break;
        }
        if (u->finish > end) end = u->finish, last = r;
    }
    if (rc == TH_EINPUT && hang) *handled = 2;
    if (s->too_long && !s->oom && rc != TH_EINTERNAL) { /* past its times: the refusal stands */
        *handled = 0;
        rc = TH_OK;
    }
    if (rc == TH_OK && *handled) {
        memset(res, 0, sizeof *res);
        res->finish = (double)end;
        res->compute = c->w[last].gpu_ns;
        res->exposed = res->finish - res->compute;
        res->classes = 1;
        res->class_end[0] = res->finish;
        res->class_compute[0] = res->compute;
        for (int32_t i = 0; i < g->n; i++)
            res->collectives += g->nodes[i].kind == TH_CK_COLL;
    }
    npus_free(s);
    ckw_free(c, n);
    return rc;
}

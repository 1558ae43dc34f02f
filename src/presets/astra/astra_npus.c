/* The ASTRA-sim 2.x preset's replay of a Chakra trace NPU by NPU (docs/CHAKRA.md, "Every NPU
 * in its order"): the workload layer (Workload.cc, HardwareResource.cc: nodes issued once their
 * parents end, in id order, one compute, one CPU and one communication node in flight) and the
 * run, every NPU's events in the backend's order. The replay falls back on it where it does
 * not know the order of the NPUs' events; it refuses a trace ASTRA-sim would not finish. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "astra_npus.h"
#include "chakra/chakra_mem.h"
#include "themis/astra.h"

static int is_comm(const th_ck_node *x) {
    return x->kind != TH_CK_COMPUTE;
}

static int available(const npu *u, const th_ck_node *x) {
    if (x->cpu) return u->cpu == 0;
    if (!is_comm(x)) return u->comp == 0;
    return u->comm == 0 || x->kind == TH_CK_RECV;
}

static void occupy(npu *u, const th_ck_node *x, int delta) {
    if (x->cpu)
        u->cpu += delta;
    else if (!is_comm(x))
        u->comp += delta;
    else if (x->kind != TH_CK_RECV)
        u->comm += delta;
}

/* DependancyResolver::finish_node: node k ended on NPU n; its children may be free. */
static void finish_node(sim *s, int32_t n, int32_t k) {
    npu *u = &s->npus[n];
    if (n == 0 && s->trace) {
        th_ck_event ev = {k, (double)s->start0[k], (double)s->now, 0};
        s->trace(s->trace_ctx, &ev);
    }
    u->ongoing--;
    const th_ck_graph *g = s->g;
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

static void issue(sim *s, int32_t n, int32_t k);

/* Workload::issue_dep_free_nodes: the free nodes in id order, each as the hardware allows. */
static void issue_free(sim *s, int32_t n) {
    npu *u = &s->npus[n];
    int m = u->nfree;
    if (!m) return;
    int32_t *snap = malloc(sizeof *snap * (size_t)m);
    if (!snap) {
        s->oom = 1;
        return;
    }
    memcpy(snap, u->free, sizeof *snap * (size_t)m);
    for (int i = 0; i < m && !s->oom; i++)
        if (available(&s->npus[n], &s->g->nodes[snap[i]])) issue(s, n, snap[i]);
    free(snap);
}

static void check_finished(sim *s, int32_t n) {
    npu *u = &s->npus[n];
    if (!u->finished && !u->nfree && !u->ongoing && !u->cpu && !u->comp && !u->comm) {
        u->finished = 1;
        u->finish = s->now;
    }
}

static void issue(sim *s, int32_t n, int32_t k) {
    npu *u = &s->npus[n];
    const th_ck_node *x = &s->g->nodes[k];
    int at = 0;
    while (at < u->nfree && u->free[at] != k)
        at++;
    if (at < u->nfree) {
        memmove(u->free + at, u->free + at + 1, sizeof *u->free * (size_t)(u->nfree - at - 1));
        u->nfree--;
    }
    u->ongoing++;
    occupy(u, x, 1);
    if (n == 0 && s->start0) s->start0[k] = s->now;
    if (x->kind == TH_CK_COMPUTE) {
        double ns = th_ck_compute_ns(s->sys, x);
        if (ns < 0) { /* a roofline node of no tensor: skipped as invalid */
            finish_node(s, n, k);
            occupy(&s->npus[n], x, -1);
            return;
        }
        if (!x->cpu) u->gpu_ns += ns;
        npus_register(s, n, C_WORK, E_GENERAL, n, k, npus_ns(s, ns));
    } else if (x->kind == TH_CK_COLL) {
        u->coll = k;
        npus_generate(s, n, k);
    } else if (x->kind == TH_CK_BCAST) {
        if (npus_grow32(s, (void **)&s->ds, s->nds, &s->ds_cap, sizeof *s->ds)) return;
        int32_t di = s->nds++;
        s->ds[di] = (dataset){n, k, 1, 0, 1};
        int64_t ns = npus_ns(s, x->micros ? (double)x->micros * 1000 : 1);
        npus_register(s, n, C_DATASET, E_GENERAL, di, 0, ns);
    } else { /* an invalid node: finished as issued */
        finish_node(s, n, k);
        occupy(&s->npus[n], x, -1);
    }
}

/* Workload::call. */
static void work_call(sim *s, int32_t n, int ev, int32_t k) {
    if (s->npus[n].finished) return;
    if (ev == E_COLL_DONE || k >= 0) {
        if (ev == E_COLL_DONE) s->npus[n].coll = -1;
        occupy(&s->npus[n], &s->g->nodes[k], -1);
        finish_node(s, n, k);
    }
    issue_free(s, n);
    check_finished(s, n);
}

/* DataSet::notify_stream_finished. */
void npus_dataset_done(sim *s, int32_t di) {
    dataset *d = &s->ds[di];
    if (++d->finished == d->total) work_call(s, d->npu, E_COLL_DONE, d->node);
}

void npus_call(sim *s, int32_t n, int callee, int ev, int32_t obj, int32_t data) {
    switch (callee) {
    case C_WORK: work_call(s, n, ev, data); break;
    case C_BUNDLE: npus_bundle_call(s, obj); break;
    case C_DATASET: npus_dataset_done(s, obj); break;
    default: npus_stream_run(s, obj, ev);
    }
}

static void sim_free(sim *s) {
    free(s->gq);
    free(s->bk);
    free(s->times);
    free(s->bmap);
    free(s->ev);
    for (int32_t i = 0; i < s->stp.n; i++)
        free(s->st[i].a.q);
    free(s->st);
    free(s->ds);
    free(s->bd);
    free(s->tab);
    free(s->msgs);
    free(s->waits);
    npool *pools[] = {&s->gqp, &s->bkp, &s->evp, &s->stp, &s->bdp, &s->waitp, &s->msgp};
    for (size_t i = 0; i < sizeof pools / sizeof *pools; i++)
        free(pools[i]->next);
    free(s->gr);
    for (int n = 0; s->npus && n < s->n; n++) {
        npu *u = &s->npus[n];
        free(u->slots);
        free(u->left);
        free(u->free);
        for (int d = 0; d < TH_MAX_DIMS; d++)
            free(u->act[d]);
    }
    free(s->npus);
    free(s->cdims);
    free(s->start0);
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

int astra_npus_replay(const th_system *sys, const th_ck_trace *tr, const th_ck_opts *o,
                      th_ck_trace_fn trace, void *trace_ctx, th_ck_result *res, int *handled,
                      th_error *err) {
    *handled = 0;
    if (unsupported(sys, tr, o)) return TH_OK;
    *handled = 1;
    const th_ck_graph *g = &tr->g;
    sim S = {0}, *s = &S;
    s->sys = sys, s->g = g, s->o = o, s->trace = trace, s->trace_ctx = trace_ctx;
    if (trace && !(s->start0 = calloc((size_t)(g->n ? g->n : 1), sizeof *s->start0)))
        return th_error_set(err, TH_EINTERNAL, "out of memory");
    uint32_t all = (1u << sys->ndims) - 1u;
    s->cdims = malloc(sizeof *s->cdims * (size_t)(g->n ? g->n : 1));
    if (!s->cdims) {
        free(s->start0);
        return th_error_set(err, TH_EINTERNAL, "out of memory");
    }
    for (int32_t i = 0; i < g->n; i++)
        s->cdims[i] = g->nodes[i].ndims < 0 ? all : g->nodes[i].dims & all;
    s->n = (int)sys->npus, s->nd = sys->ndims;
    s->themis = o->policy == TH_POLICY_THEMIS;
    s->scf = o->intra == TH_INTRA_SCF;
    s->flat = astra_of(sys)->flat;
    s->ep = astra_of(sys)->endpoint;
    s->mem_bw = astra_of(sys)->local_mem_GBps * 1e9;
    s->zero_at = -1;
    int64_t stride = 1;
    for (int d = 0; d < s->nd; d++) {
        s->p[d] = (int)sys->dims[d].npus;
        s->stride[d] = stride;
        stride *= s->p[d];
    }
    npus_greedy_reset(s);
    s->npus = calloc((size_t)s->n, sizeof *s->npus);
    if (!s->npus) {
        sim_free(s);
        return th_error_set(err, TH_EINTERNAL, "out of memory");
    }
    for (int n = 0; n < s->n && !s->oom; n++) {
        npu *u = &s->npus[n];
        u->coll = -1;
        u->left = malloc(sizeof *u->left * (size_t)(g->n ? g->n : 1));
        if (!u->left) {
            s->oom = 1;
            break;
        }
        for (int32_t i = 0; i < g->n; i++) {
            u->left[i] = (int32_t)g->nodes[i].ndeps;
            if (!u->left[i] &&
                !npus_growi(s, (void **)&u->free, u->nfree, &u->free_cap, sizeof *u->free))
                u->free[u->nfree++] = i;
        }
    }
    /* Workload::fire on every NPU in turn at 0, then the backend's events in order */
    for (int n = 0; n < s->n && !s->oom; n++)
        work_call(s, n, E_GENERAL, -1);
    uint64_t steps = 0;
    int rc = TH_OK;
    gev e;
    while (!s->oom && s->zero_at < 0 && !s->too_long && npus_pop_event(s, &e)) {
        if (e.kind == G_CALL)
            npus_call_events(s, e.a);
        else if (e.kind == G_ARRIVE)
            npus_arrive(s, e.a);
        else
            npus_stream_run(s, e.a, -1);
        if (!(++steps & 0xffff) &&
            ((o->stop && atomic_load(o->stop)) || (o->poll && o->poll(o->poll_ctx)))) {
            rc = th_error_set(err, TH_EINTERNAL, "interrupted");
            break;
        }
    }
    if (rc == TH_OK && s->oom) rc = th_error_set(err, TH_EINTERNAL, "out of memory");
    if (rc == TH_OK && s->zero_at >= 0)
        rc = th_error_set(err, TH_EINPUT,
                          "%s: at %lld ns a collective's phase sends a message of 0 bytes, on "
                          "which ASTRA-sim 2.x stops (replayed NPU by NPU)",
                          tr->file0, (long long)s->zero_at);
    int64_t end = 0;
    int last = 0, hang = 0;
    for (int n = 0; rc == TH_OK && n < s->n; n++) {
        npu *u = &s->npus[n];
        if (!u->finished) {
            hang = 1;
            if (u->coll >= 0)
                rc = th_error_set(err, TH_EINPUT,
                                  "%s: node %llu (%s): ASTRA-sim 2.x would not finish: NPU %d's "
                                  "collective waits from %lld ns on for messages no NPU sends "
                                  "(every NPU replayed event by event, docs/CHAKRA.md)",
                                  tr->file0, (unsigned long long)g->nodes[u->coll].id,
                                  th_coll_type_name((th_coll_type)g->nodes[u->coll].coll), n,
                                  (long long)u->last);
            else
                rc = th_error_set(err, TH_EINPUT,
                                  "%s: ASTRA-sim 2.x would not finish: NPU %d stops at %lld ns "
                                  "with nodes not issued (every NPU replayed event by event, "
                                  "docs/CHAKRA.md)",
                                  tr->file0, n, (long long)u->last);
            break;
        }
        if (u->finish > end) end = u->finish, last = n;
    }
    if (rc == TH_EINPUT && hang) *handled = 2;
    if (s->too_long && !s->oom && rc != TH_EINTERNAL) { /* past its times: the refusal stands */
        *handled = 0;
        rc = TH_OK;
    }
    if (rc == TH_OK && *handled) {
        memset(res, 0, sizeof *res);
        res->finish = (double)end;
        res->compute = s->npus[last].gpu_ns;
        res->exposed = res->finish - res->compute;
        res->classes = 1;
        res->class_end[0] = res->finish;
        res->class_compute[0] = res->compute;
        for (int32_t i = 0; i < g->n; i++)
            res->collectives += g->nodes[i].kind == TH_CK_COLL;
    }
    sim_free(s);
    return rc;
}

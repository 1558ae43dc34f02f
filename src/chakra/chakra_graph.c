/* The Chakra graph of a workload: one NPU's iterations as compute and collective nodes whose
 * dependencies reproduce themis train's ordering (docs/WORKLOADS.md, How an iteration is
 * replayed), so that a replay that issues each node when its dependencies have ended runs the
 * iteration as themis train does. Every NPU runs the same graph; the writer offsets its ids. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../train_internal.h"
#include "chakra_export.h"
#include "themis/buf.h"
#include "themis/train.h"
#include "themis/units.h"

/* What a (layer, phase) issues in every iteration. */
typedef struct task_info {
    uint64_t micros; /* duration_micros; 0: no compute node */
    int coll;        /* 1: a collective node follows the compute */
    int blocking;
    int type;
    uint64_t size;
    uint32_t mask;
} task_info;

/* A set of node indices (small: what ends a task). */
typedef struct set {
    size_t *v;
    size_t n, cap;
} set;

static int set_add(set *s, size_t x) {
    for (size_t i = 0; i < s->n; i++)
        if (s->v[i] == x) return 0;
    if (th_grow(&s->v, &s->cap, s->n + 1, sizeof *s->v)) return -1;
    s->v[s->n++] = x;
    return 0;
}

static int set_union(set *s, const set *t) {
    for (size_t i = 0; i < t->n; i++)
        if (set_add(s, t->v[i])) return -1;
    return 0;
}

/* Task j of an iteration: forwards 0..L-1, then per layer from the last: input, weight (as the
 * training replay orders them). */
static void task(int L, int j, int *layer, th_phase *phase) {
    if (j < L) {
        *layer = j, *phase = TH_PHASE_FWD;
        return;
    }
    int k = j - L;
    *layer = L - 1 - k / 2;
    *phase = k % 2 ? TH_PHASE_WG : TH_PHASE_IG;
}

static int task_of(int L, int layer, th_phase phase) {
    return phase == TH_PHASE_FWD ? layer : L + 2 * (L - 1 - layer) + (phase == TH_PHASE_WG);
}

static int oom(th_error *err) {
    return th_error_set(err, TH_EINTERNAL, "out of memory");
}

/* Is the edge from node s to a node of (it, layer, phase) only the compute stream's order? The
 * two backward edges that carry no tensor: input gradient -> weight gradient of a layer, and
 * weight gradient of layer l + 1 -> input gradient of layer l. */
static int ctrl_edge(const th_chakra_node *s, int it, int layer, th_phase phase) {
    if (s->type != TH_CHAKRA_COMP_NODE || s->it != it) return 0;
    return (s->phase == TH_PHASE_IG && phase == TH_PHASE_WG && s->layer == layer) ||
           (s->phase == TH_PHASE_WG && phase == TH_PHASE_IG && s->layer == layer + 1);
}

/* Appends a node depending on every node of `on` (data, or ctrl where ctrl_edge says so). */
static int add_node(th_chakra_graph *g, const th_chakra_node *proto, const set *on, size_t *idx,
                    th_error *err) {
    if (th_grow(&g->nodes, &g->cap, g->n + 1, sizeof *g->nodes) ||
        th_grow(&g->deps, &g->deps_cap, g->ndeps + on->n, sizeof *g->deps))
        return oom(err);
    th_chakra_node *x = &g->nodes[g->n];
    *x = *proto;
    x->dep = g->ndeps, x->ndata = x->nctrl = 0;
    for (int ctrl = 0; ctrl < 2; ctrl++)
        for (size_t i = 0; i < on->n; i++) {
            const th_chakra_node *s = &g->nodes[on->v[i]];
            int c = x->type == TH_CHAKRA_COMP_NODE && ctrl_edge(s, x->it, x->layer, x->phase);
            if (c != ctrl) continue;
            g->deps[g->ndeps++] = on->v[i];
            if (ctrl)
                x->nctrl++;
            else
                x->ndata++;
        }
    *idx = g->n++;
    return TH_OK;
}

/* The collective of (layer l, phase p) as ASTRA-sim gets it: its dims checked, its size in
 * whole bytes (an All-Gather's: each NPU's input, ours the gathered output). */
static int coll_info(const th_workload *wl, const th_system *sys, const th_train_buckets *b,
                     double scale, int l, th_phase p, task_info *t, th_chakra_graph *g,
                     th_error *err) {
    const th_wl_coll *c = &wl->layers[l].ph[p].coll;
    if (!c->present || (p == TH_PHASE_WG && b->carrier[l] != l)) return TH_OK;
    char where[256];
    snprintf(where, sizeof where, "%s: layers[%d].%s.collective", wl->name, l, th_phase_name(p));
    uint32_t mask;
    if (th_workload_mask(wl, c, sys, where, &mask, err)) return err->code;
    double size = p == TH_PHASE_WG ? b->bsize[l] : c->size * scale, per = 1;
    int active = 0;
    for (int d = 0; d < sys->ndims; d++)
        if ((mask >> d) & 1u) {
            per *= (double)sys->dims[d].npus;
            active |= sys->dims[d].npus > 1;
        }
    th_error e;
    if (th_units_check_size(size, "size", &e))
        return th_error_set(err, TH_EINPUT, "%s: %s", where, e.msg);
    if (!active)
        return th_error_set(err, TH_EINPUT,
                            "%s: dims: no dim of system \"%s\" it spans has more than one NPU "
                            "(ASTRA-sim never finishes such a collective)",
                            where, sys->name);
    if (c->type == TH_COLL_ALLGATHER) size /= per;
    double bytes = floor(size + 0.5);
    if (bytes < 1)
        return th_error_set(err, TH_EINPUT,
                            "%s: %g bytes per NPU: a Chakra collective has whole bytes, and "
                            "ASTRA-sim never finishes one of 0 bytes",
                            where, size);
    if (bytes >= 9223372036854775808.0)
        return th_error_set(err, TH_EINPUT, "%s: %g bytes: more than comm_size holds (2^63 - 1)",
                            where, size);
    if (bytes != size) g->sizes_rounded++;
    t->coll = 1;
    t->blocking = c->blocking;
    t->type = th_chakra_comm_type(c->type);
    t->size = (uint64_t)bytes;
    t->mask = mask;
    return TH_OK;
}

/* Every (layer, phase)'s compute time in whole microseconds and collective, once. */
static int tasks(const th_workload *wl, const th_system *sys, const th_train_buckets *b,
                 double scale, task_info *info, th_chakra_graph *g, th_error *err) {
    for (int l = 0; l < wl->nlayers; l++)
        for (int p = 0; p < TH_NPHASES; p++) {
            task_info *t = &info[l * TH_NPHASES + p];
            double ns = wl->layers[l].ph[p].ns * scale, us = floor(ns / 1000 + 0.5);
            if (!isfinite(ns) || us >= 18446744073709551616.0)
                return th_error_set(err, TH_EINPUT,
                                    "%s: layers[%d].%s: %g ns is more than duration_micros holds "
                                    "(2^64 - 1 us)",
                                    wl->name, l, th_phase_name((th_phase)p), ns);
            t->micros = (uint64_t)us;
            g->compute_ns += ns;
            g->compute_us += t->micros;
            double change = fabs(us * 1000 - ns);
            if (change > 0) g->rounded++;
            if (change > g->worst_ns) g->worst_ns = change;
            if (us == 0 && ns > 0) g->dropped++;
            if (coll_info(wl, sys, b, scale, l, (th_phase)p, t, g, err)) return err->code;
        }
    return TH_OK;
}

typedef struct builder {
    th_chakra_graph *g;
    const th_workload *wl;
    const th_train_buckets *b;
    const task_info *info;
    int L;
    set *end;      /* per task of the iteration being built: the nodes whose end ends it */
    set last;      /* the previous iteration's last task's */
    int64_t *coll; /* per (layer, phase): its collective node in this iteration, or -1 */
    int64_t *prev; /* ... in the previous iteration */
    int64_t *comp; /* per (layer, phase): its compute node in this iteration, or -1 */
    set on, done;  /* scratch: a node's dependencies; what ends a task's compute */
} builder;

/* The nodes of task j of iteration it. */
static int build_task(builder *s, int it, int j, th_error *err) {
    int L = s->L, l;
    th_phase p;
    task(L, j, &l, &p);
    const task_info *t = &s->info[l * TH_NPHASES + p];
    set *on = &s->on, *end = &s->end[j];
    on->n = end->n = 0;
    /* the phase before it in the stream (its blocking collective, if any) */
    if (j > 0 ? set_union(on, &s->end[j - 1]) : set_union(on, &s->last)) return oom(err);
    /* a forward waits for its layer's non-blocking collectives of the iteration before */
    if (p == TH_PHASE_FWD && it > 0)
        for (int q = 0; q < TH_NPHASES; q++) {
            int owner = q == TH_PHASE_WG ? s->b->carrier[l] : l;
            int64_t k = s->prev[owner * TH_NPHASES + q];
            if (k >= 0 && !s->info[owner * TH_NPHASES + q].blocking && set_add(on, (size_t)k))
                return oom(err);
        }
    /* the tensor it reads, for the backward phases (the stream order implies it; recorded as
     * the data dependency it is) */
    if (p != TH_PHASE_FWD) {
        int from = l == L - 1 ? task_of(L, L - 1, TH_PHASE_FWD) : task_of(L, l + 1, TH_PHASE_IG);
        if (from != j - 1 && set_union(on, &s->end[from])) return oom(err);
    }
    th_chakra_node x = {0};
    x.it = it, x.layer = l, x.phase = p, x.first = l, x.fused = 1;
    size_t k;
    set *done = &s->done; /* what ends the compute: its node, or (none) what it waited for */
    done->n = 0;
    if (t->micros) {
        x.type = TH_CHAKRA_COMP_NODE;
        x.micros = t->micros;
        if (add_node(s->g, &x, on, &k, err)) return err->code;
        s->comp[l * TH_NPHASES + p] = (int64_t)k;
        if (set_add(done, k)) return oom(err);
    } else if (set_union(done, on)) {
        return oom(err);
    }
    if (!t->coll) return set_union(end, done) ? oom(err) : TH_OK;
    on->n = 0;
    if (set_union(on, done)) return oom(err);
    if (p == TH_PHASE_WG) /* a bucket: every gradient in it */
        for (int m = L - 1; m > l; m--)
            if (s->b->carrier[m] == l && s->comp[m * TH_NPHASES + p] >= 0 &&
                set_add(on, (size_t)s->comp[m * TH_NPHASES + p]))
                return oom(err);
    x.type = TH_CHAKRA_COMM_COLL_NODE;
    x.micros = 0;
    x.comm_type = t->type, x.comm_size = t->size, x.mask = t->mask;
    if (p == TH_PHASE_WG) x.first = s->b->first[l], x.fused = s->b->fused[l];
    if (add_node(s->g, &x, on, &k, err)) return err->code;
    s->coll[l * TH_NPHASES + p] = (int64_t)k;
    /* a blocking collective holds the stream; past a non-blocking one it goes on from the
     * compute */
    if (t->blocking) return set_add(end, k) ? oom(err) : TH_OK;
    return set_union(end, done) ? oom(err) : TH_OK;
}

int th_chakra_build(const th_workload *wl, const th_system *sys, const th_chakra_opts *o,
                    th_chakra_graph *g, th_error *err) {
    memset(g, 0, sizeof *g);
    g->wl = wl, g->ndims = sys->ndims, g->iterations = o->iterations;
    g->name = wl->name, g->phases = wl->nlayers * TH_NPHASES;
    if (o->iterations < 1 || o->iterations > 1000)
        return th_error_set(err, TH_EINPUT, "iterations: expected 1 to 1000, got %d",
                            o->iterations);
    if (!(o->batch >= 0) || !isfinite(o->batch))
        return th_error_set(err, TH_EINPUT, "batch: expected a number > 0");
    g->npus = 1;
    for (int d = 0; d < sys->ndims; d++)
        g->npus *= sys->dims[d].npus;
    int L = wl->nlayers, n = L * TH_NPHASES;
    double scale = o->batch > 0 ? o->batch / wl->batch : 1.0;
    builder s = {g, wl, NULL, NULL, L, NULL, {0}, NULL, NULL, NULL, {0}, {0}};
    int *ints = malloc(sizeof(int) * 3 * (size_t)L);
    double *bsize = malloc(sizeof(double) * (size_t)L);
    task_info *info = calloc((size_t)n, sizeof *info);
    int64_t *ids = malloc(sizeof(int64_t) * 3 * (size_t)n);
    s.end = calloc((size_t)n, sizeof *s.end);
    int rc = ints && bsize && info && ids && s.end ? TH_OK : oom(err);
    th_train_buckets b = {ints, ints + L, ints + 2 * L, bsize};
    s.b = &b, s.info = info;
    if (rc == TH_OK) rc = th_train_assign_buckets(wl, sys, o->bucket, &b, err);
    if (rc == TH_OK) rc = tasks(wl, sys, &b, scale, info, g, err);
    if (rc == TH_OK) {
        s.coll = ids, s.prev = ids + n, s.comp = ids + 2 * n;
        for (int i = 0; i < n; i++)
            s.coll[i] = -1;
    }
    for (int it = 0; rc == TH_OK && it < o->iterations; it++) {
        int64_t *swap = s.prev;
        s.prev = s.coll, s.coll = swap;
        for (int i = 0; i < n; i++)
            s.coll[i] = s.comp[i] = -1;
        for (int j = 0; rc == TH_OK && j < n; j++)
            rc = build_task(&s, it, j, err);
        s.last.n = 0;
        if (rc == TH_OK && set_union(&s.last, &s.end[n - 1])) rc = oom(err);
    }
    if (rc == TH_OK && g->n == 0)
        rc = th_error_set(err, TH_EINPUT,
                          "%s: no node to write: no collective, and every phase under 0.5 us "
                          "(ASTRA-sim stops on a trace without nodes)",
                          wl->name);
    for (int j = 0; s.end && j < n; j++)
        free(s.end[j].v);
    free(s.end);
    free(s.last.v);
    free(s.on.v);
    free(s.done.v);
    free(ints);
    free(bsize);
    free(info);
    free(ids);
    return rc;
}

void th_chakra_graph_free(th_chakra_graph *g) {
    for (int k = 0; g->stage && k < g->stages - 1; k++)
        th_chakra_graph_free(&g->stage[k]);
    free(g->stage);
    free(g->stage_of);
    free(g->stage_off);
    free(g->nodes);
    free(g->deps);
    th_buf_free(&g->names);
    memset(g, 0, sizeof *g);
}

const char *th_chakra_node_name(const th_chakra_graph *g, size_t k, char *buf, size_t n) {
    const th_chakra_node *x = &g->nodes[k];
    const th_workload *wl = g->wl;
    if (!wl) return g->names.p ? g->names.p + x->name : "";
    char it[24] = "";
    if (g->iterations > 1) snprintf(it, sizeof it, "i%d.", x->it);
    const char *name = wl->layers[x->layer].name, *phase = th_phase_name(x->phase);
    if (x->type == TH_CHAKRA_COMP_NODE) {
        snprintf(buf, n, "%s%s.%s", it, name, phase);
        return buf;
    }
    static const char *const types[] = {[TH_CHAKRA_ALL_REDUCE] = "allreduce",
                                        [TH_CHAKRA_ALL_GATHER] = "allgather",
                                        [TH_CHAKRA_ALL_TO_ALL] = "alltoall",
                                        [TH_CHAKRA_REDUCE_SCATTER] = "reducescatter"};
    if (x->fused > 1)
        snprintf(buf, n, "%s%s..%s.%s.%s", it, wl->layers[x->first].name, name, phase,
                 types[x->comm_type]);
    else
        snprintf(buf, n, "%s%s.%s.%s", it, name, phase, types[x->comm_type]);
    return buf;
}

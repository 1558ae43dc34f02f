/* The Chakra graph of an LLM workload (docs/CHAKRA.md, Writing traces): one NPU's iteration
 * as the LLM model (docs/LLM.md, The iteration) evaluates it, laid out node by node, so that a
 * replay that issues each node when its dependencies have ended runs the model's iteration:
 * per micro-batch a chain of compute nodes (each layer's forward, recomputation and backward,
 * the logits) and their blocking tensor- and expert-parallel collectives, the data-parallel
 * gradient buckets made over the last micro-batch's backward pass beside the chain, then the
 * optimizer step (and with a sharded optimizer the weights gathered back). With pipeline
 * stages, one graph per stage: its layers' steps in the order of the schedule, with a receive
 * before and a send after each step that crosses a stage boundary, and where each rank's stage
 * is. Groups that take whole dims only: what involved_dim can say. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../llm_internal.h"
#include "chakra_export.h"
#include "chakra_pipe.h"
#include "themis/units.h"

/* A list of node indices: what the next node of the chain waits for. */
typedef struct ends {
    size_t *v;
    size_t n, cap;
} ends;

typedef struct lb {
    th_chakra_graph *g;
    const th_system *sys;
    const char *src; /* the workload, in messages */
    ends end;        /* the chain's end: the next node waits for these */
    ends extra;      /* the collectives issued beside the chain (gradient buckets, gathers) */
    int it;
} lb;

static int oom(th_error *err) {
    return th_error_set(err, TH_EINTERNAL, "out of memory");
}

static int ends_set(ends *e, const size_t *v, size_t n) {
    if (th_grow(&e->v, &e->cap, n ? n : 1, sizeof *e->v)) return -1;
    if (n) memcpy(e->v, v, sizeof *v * n);
    e->n = n;
    return 0;
}

static int ends_add(ends *e, size_t x) {
    if (th_grow(&e->v, &e->cap, e->n + 1, sizeof *e->v)) return -1;
    e->v[e->n++] = x;
    return 0;
}

/* Appends node *x named `name`, waiting for the chain's end and `extra` (all data
 * dependencies: each carries a tensor or the stream's order), as index *k. */
static int add(lb *b, th_chakra_node *x, const char *name, const ends *extra, size_t *k,
               th_error *err) {
    th_chakra_graph *g = b->g;
    size_t nd = b->end.n + (extra ? extra->n : 0);
    if (th_grow(&g->nodes, &g->cap, g->n + 1, sizeof *g->nodes) ||
        th_grow(&g->deps, &g->deps_cap, g->ndeps + nd, sizeof *g->deps))
        return oom(err);
    char full[256];
    if (g->iterations > 1)
        snprintf(full, sizeof full, "i%d.%s", b->it, name);
    else
        snprintf(full, sizeof full, "%s", name);
    if (g->names.len > UINT32_MAX - sizeof full)
        return th_error_set(err, TH_EINPUT, "%s: more node names than a trace of themis holds",
                            b->src);
    x->name = (uint32_t)g->names.len;
    if (th_buf_add(&g->names, full, strlen(full) + 1)) return oom(err);
    x->dep = g->ndeps, x->ndata = nd, x->nctrl = 0;
    for (size_t i = 0; i < b->end.n; i++)
        g->deps[g->ndeps++] = b->end.v[i];
    for (size_t i = 0; extra && i < extra->n; i++)
        g->deps[g->ndeps++] = extra->v[i];
    g->nodes[g->n] = *x;
    *k = g->n++;
    return TH_OK;
}

/* A collective of `size` bytes (ours: an All-Gather's is the output) over the dims of mask,
 * waiting for the chain's end and `extra`; on the chain (blocking) when chain is 1. */
static int coll(lb *b, const char *name, th_coll_type type, double size, uint32_t mask, int chain,
                const ends *extra, th_error *err) {
    th_chakra_graph *g = b->g;
    double per = 1;
    for (int d = 0; d < b->sys->ndims; d++)
        if ((mask >> d) & 1u) per *= (double)b->sys->dims[d].npus;
    if (type == TH_COLL_ALLGATHER) size /= per;
    double bytes = floor(size + 0.5);
    char full[192];
    snprintf(full, sizeof full, "%s.%s", name, th_coll_type_name(type));
    if (bytes < 1)
        return th_error_set(err, TH_EINPUT,
                            "%s: %s: %g bytes per NPU: a Chakra collective has whole bytes, and "
                            "ASTRA-sim never finishes one of 0 bytes",
                            b->src, full, size);
    if (bytes >= 9223372036854775808.0)
        return th_error_set(err, TH_EINPUT,
                            "%s: %s: %g bytes: more than comm_size holds (2^63 - 1)", b->src, full,
                            size);
    if (b->it == 0 && bytes != size) g->sizes_rounded++;
    th_chakra_node x = {0};
    x.type = TH_CHAKRA_COMM_COLL_NODE, x.fused = 1;
    x.comm_type = th_chakra_comm_type(type), x.comm_size = (uint64_t)bytes, x.mask = mask;
    size_t k;
    if (add(b, &x, full, extra, &k, err)) return err->code;
    if (chain && ends_set(&b->end, &k, 1)) return oom(err);
    if (!chain && ends_add(&b->extra, k)) return oom(err);
    return TH_OK;
}

/* A gradient bucket: made when fraction t of the backward compute is done (1: at its end). */
typedef struct bucket {
    double t, size;
    uint32_t mask;
} bucket;

/* The gradient buckets of the last micro-batch's backward pass, issued beside the chain as
 * its compute passes each one's share (the model makes them uniformly over the pass). */
typedef struct dpq {
    const bucket *v;
    size_t n, next;
    double done, total; /* backward compute done, and the pass's, ns */
    th_coll_type type;
} dpq;

/* Issues the next bucket of q, then those due by its compute done (with `end`, those due at
 * the pass's end); `force`: the next one whatever its time. */
static int due(lb *b, dpq *q, int end, int force, th_error *err) {
    for (; q->next < q->n; q->next++, force = 0) {
        const bucket *x = &q->v[q->next];
        if (!force && (x->t >= 1 ? !end : x->t * q->total > q->done * (1 + 1e-12))) break;
        char name[64];
        snprintf(name, sizeof name, "dp.bucket%zu", q->next);
        if (coll(b, name, q->type, x->size, x->mask, 0, NULL, err)) return err->code;
    }
    return TH_OK;
}

/* Compute of ns on the chain, as one node of its time in whole microseconds (none when that
 * is 0: the chain passes through). With q, the node is cut where a bucket of q falls due and
 * the bucket issued there; the pieces' microseconds are the differences of the rounded cut
 * points, so they add up to the node's. */
static int comp(lb *b, const char *name, double ns, dpq *q, th_error *err) {
    th_chakra_graph *g = b->g;
    double us = floor(ns / 1000 + 0.5);
    if (!isfinite(ns) || us >= 18446744073709551616.0)
        return th_error_set(err, TH_EINPUT,
                            "%s: %s: %g ns is more than duration_micros holds (2^64 - 1 us)",
                            b->src, name, ns);
    if (b->it == 0) {
        double change = fabs(us * 1000 - ns);
        g->compute_ns += ns;
        g->compute_us += (uint64_t)us;
        g->phases++;
        if (change > 0) g->rounded++;
        if (change > g->worst_ns) g->worst_ns = change;
        if (us == 0 && ns > 0) g->dropped++;
    }
    double from = 0; /* ns into the node */
    for (int piece = 0;; piece++) {
        double to = ns;
        int cut = 0;
        if (q && q->next < q->n && q->v[q->next].t < 1) {
            double at = q->v[q->next].t * q->total - q->done;
            if (at <= ns * (1 + 1e-12)) to = at < from ? from : at > ns ? ns : at, cut = 1;
        }
        double micros = floor(to / 1000 + 0.5) - floor(from / 1000 + 0.5);
        if (micros > 0) {
            char full[128];
            if (piece || cut)
                snprintf(full, sizeof full, "%s.%d", name, piece);
            else
                snprintf(full, sizeof full, "%s", name);
            th_chakra_node x = {0};
            x.type = TH_CHAKRA_COMP_NODE, x.micros = (uint64_t)micros, x.fused = 1;
            size_t k;
            if (add(b, &x, full, NULL, &k, err)) return err->code;
            if (ends_set(&b->end, &k, 1)) return oom(err);
        }
        if (!cut) break;
        q->done += to - from;
        from = to;
        if (due(b, q, 0, 1, err)) return err->code;
    }
    if (q) q->done += ns - from;
    return TH_OK;
}

/* Issue order: by time, then the dense buckets (more dims) first (as the model's). */
static int by_time(const void *a, const void *b) {
    const bucket *x = a, *y = b;
    if (x->t != y->t) return (x->t > y->t) - (x->t < y->t);
    if (x->mask != y->mask) return (x->mask < y->mask) - (x->mask > y->mask);
    return (x->size < y->size) - (x->size > y->size);
}

/* Buckets of `bytes` (at most `size` each; 0: one) made uniformly over the pass (all at its
 * end when not overlapped), appended to *v. */
static int add_buckets(bucket **v, size_t *n, size_t *cap, double bytes, double size, uint32_t mask,
                       int overlap, const char *src, th_error *err) {
    if (bytes <= 0 || !mask) return TH_OK;
    if (size <= 0) size = bytes;
    double nb = ceil(bytes / size);
    if (nb > 1e6)
        return th_error_set(err, TH_EINPUT,
                            "%s: llm.bucket_bytes: %g gradient buckets, at most 1e6 in a trace "
                            "(larger buckets)",
                            src, nb);
    if (th_grow(v, cap, *n + (size_t)nb, sizeof **v)) return oom(err);
    for (int k = 0; k < (int)nb; k++) {
        double left = bytes - size * k;
        (*v)[(*n)++] = (bucket){overlap ? (k + 1) / nb : 1, left < size ? left : size, mask};
    }
    return TH_OK;
}

/* The dims of group gr as a mask of the system's dims; TH_EINPUT when it takes part of one. */
static int group_mask(const th_llm_map *map, const th_system *sys, int gr, const char *src,
                      uint32_t *mask, th_error *err) {
    *mask = 0;
    for (int i = 0; i < map->n[gr]; i++) {
        int d = map->dim[gr][i];
        if (map->npus[gr][i] != sys->dims[d].npus)
            return th_error_set(
                err, TH_EINPUT,
                "%s: group %s takes %lld of the %lld NPUs of dim %d (\"%s\"): a Chakra "
                "collective's involved_dim selects whole dims (a part of one needs ASTRA-sim's "
                "communicator groups, which the writer does not write)",
                src, th_llm_group_names[gr], (long long)map->npus[gr][i],
                (long long)sys->dims[d].npus, d, sys->dims[d].name);
        *mask |= 1u << d;
    }
    return TH_OK;
}

/* What one micro-batch's layers do, for the builder. */
typedef struct plan {
    const th_llm_model *m;
    const th_llm_exec *x;
    llm_layer_ns t;
    int64_t L, every;  /* layers; every k-th is MoE (0: none) */
    double act, a2a;   /* a TP collective's bytes; an EP All-to-All's */
    uint32_t tp, ep;   /* their dims (0: no such collectives) */
    int sp, full, sel; /* sequence parallelism; full, selective recomputation */
} plan;

static int is_moe(const plan *p, int64_t l) {
    return p->every > 0 && (l + 1) % p->every == 0;
}

/* A layer's blocking collectives of one pass: TP (backward: with SP two more All-Gathers) and
 * EP. */
static int layer_colls(lb *b, const plan *p, const char *name, int64_t l, int backward,
                       th_error *err) {
    if (p->tp) {
        if (p->sp) {
            for (int k = 0; k < 2; k++)
                if (coll(b, name, TH_COLL_ALLGATHER, p->act, p->tp, 1, NULL, err) ||
                    coll(b, name, TH_COLL_REDUCESCATTER, p->act, p->tp, 1, NULL, err))
                    return err->code;
            for (int k = 0; backward && k < 2; k++)
                if (coll(b, name, TH_COLL_ALLGATHER, p->act, p->tp, 1, NULL, err)) return err->code;
        } else {
            for (int k = 0; k < 2; k++)
                if (coll(b, name, TH_COLL_ALLREDUCE, p->act, p->tp, 1, NULL, err)) return err->code;
        }
    }
    if (p->ep && is_moe(p, l))
        for (int k = 0; k < 2; k++)
            if (coll(b, name, TH_COLL_ALLTOALL, p->a2a, p->ep, 1, NULL, err)) return err->code;
    return TH_OK;
}

/* A send of q->send bytes to stage `to`, waiting for the chain's end (off the chain), or a
 * receive from stage `from` that waits for nothing and that the chain's next node waits for. */
static int p2p(lb *b, const th_pipe *q, const char *name, int send, int peer, uint64_t tag,
               th_error *err) {
    double bytes = floor(q->send + 0.5);
    if (bytes < 1)
        return th_error_set(err, TH_EINPUT, "%s: %s: %g bytes: a send of less than a byte", b->src,
                            name, q->send);
    if (tag > INT32_MAX)
        return th_error_set(err, TH_EINPUT,
                            "%s: %s: comm_tag %llu: more sends than a trace's tags number "
                            "(fewer iterations or micro-batches)",
                            b->src, name, (unsigned long long)tag);
    if (b->it == 0 && send && bytes != q->send) b->g->sizes_rounded++;
    th_chakra_node x = {0};
    x.type = send ? TH_CHAKRA_COMM_SEND_NODE : TH_CHAKRA_COMM_RECV_NODE;
    x.fused = 1, x.comm_size = (uint64_t)bytes, x.peer = peer, x.tag = (uint32_t)tag;
    size_t k;
    if (send) return add(b, &x, name, NULL, &k, err);
    ends chain = b->end;
    b->end = (ends){0};
    int rc = add(b, &x, name, NULL, &k, err);
    b->end = chain;
    if (rc == TH_OK && ends_add(&b->end, k)) rc = oom(err);
    return rc;
}

/* What every stage's builder shares. */
typedef struct shared {
    const th_llm_workload *w;
    const th_system *sys;
    const th_chakra_opts *o;
    th_llm_exec x;
    plan p;
    th_pipe q;
    llm_stage st;  /* the model's busiest stage (one stage: the graph's) */
    llm_params lp; /* parameters per layer */
    uint32_t mep, mdp;
} shared;

/* Stage s's parameters per NPU reduced over the whole data-parallel group (*dense) and over
 * its dp / ep part (*expert): its layers, the embedding on the first and the last stage, the
 * final norm on the last; one stage: the model's. */
static void stage_params(const shared *sh, int64_t s, double *dense, double *expert) {
    *dense = sh->st.dense_params, *expert = sh->st.expert_params;
    if (sh->q.p == 1) return;
    double nd = 0, nm = 0;
    for (int64_t c = 0; c < sh->q.v; c++)
        for (int64_t l = (c * sh->q.p + s) * sh->q.per, e = l + sh->q.per; l < e; l++)
            is_moe(&sh->p, l) ? nm++ : nd++;
    *dense = nd * sh->lp.dense + nm * sh->lp.moe;
    if (s == 0) *dense += sh->lp.embedding;
    if (s == sh->q.p - 1) *dense += sh->lp.embedding + sh->lp.norm;
    *expert = nm * sh->lp.expert;
}

/* The gradient buckets of stage s, and the weights gathered back when sharded. */
static int stage_buckets(const shared *sh, int64_t s, bucket **grad, size_t *ngrad, bucket **wts,
                         size_t *nw, th_error *err) {
    const th_llm_exec *x = &sh->x;
    const th_llm_model *m = &sh->w->model;
    double dense, expert;
    stage_params(sh, s, &dense, &expert);
    size_t gcap = 0, wcap = 0, nd;
    int sharded = x->sharding >= TH_LLM_SHARD_OPTIMIZER;
    int rc = add_buckets(grad, ngrad, &gcap, dense * x->grad_bytes, x->bucket_bytes,
                         sh->mep | sh->mdp, x->dp_overlap, sh->w->name, err);
    nd = *ngrad;
    if (rc == TH_OK)
        rc = add_buckets(grad, ngrad, &gcap, expert * x->grad_bytes, x->bucket_bytes, sh->mdp,
                         x->dp_overlap, sh->w->name, err);
    if (rc == TH_OK && nd > 0 && *ngrad > nd) qsort(*grad, *ngrad, sizeof **grad, by_time);
    if (rc == TH_OK && sharded) {
        rc = add_buckets(wts, nw, &wcap, dense * m->param_bytes, x->bucket_bytes, sh->mep | sh->mdp,
                         0, sh->w->name, err);
        size_t ndw = *nw;
        if (rc == TH_OK)
            rc = add_buckets(wts, nw, &wcap, expert * m->param_bytes, x->bucket_bytes, sh->mdp, 0,
                             sh->w->name, err);
        if (rc == TH_OK && ndw > 0 && *nw > ndw) qsort(*wts, *nw, sizeof **wts, by_time);
    }
    return rc;
}

/* The graph of stage s into g (its counts zeroed first). */
static int build_stage(const shared *sh, int64_t s, th_chakra_graph *g, th_error *err) {
    const th_llm_exec *x = &sh->x;
    const plan *p = &sh->p;
    const th_pipe *q = &sh->q;
    const char *src = sh->w->name;
    int64_t K = q->p * q->v - 1; /* the last virtual stage: the logits */
    bucket *grad = NULL, *wts = NULL;
    size_t ngrad = 0, nw = 0, nsteps = 0;
    th_pipe_step *sv = NULL;
    lb b = {g, sh->sys, src, {0}, {0}, 0};
    int rc = stage_buckets(sh, s, &grad, &ngrad, &wts, &nw, err);
    if (rc == TH_OK && th_pipe_steps(q, s, &sv, &nsteps)) rc = oom(err);
    /* the backward compute of the last micro-batch, over which its gradients are made */
    double total = sh->st.bwd + sh->st.recompute;
    if (q->p > 1) {
        total = s == q->p - 1 ? 2 * p->t.logits : 0;
        for (int64_t c = 0; c < q->v; c++)
            for (int64_t l = (c * q->p + s) * q->per, e = l + q->per; l < e; l++) {
                int moe = is_moe(p, l);
                double f = moe ? p->t.fwd_moe : p->t.fwd_dense;
                total += 2 * f + (p->full  ? f
                                  : p->sel ? (moe ? p->t.core_moe : p->t.core_dense)
                                           : 0);
            }
    }
    th_coll_type gtype =
        x->sharding >= TH_LLM_SHARD_OPTIMIZER ? TH_COLL_REDUCESCATTER : TH_COLL_ALLREDUCE;
    int64_t bounds = K > 0 ? K : 1; /* stage boundaries, for the tags */
    char name[96];
    for (int it = 0; rc == TH_OK && it < sh->o->iterations; it++) {
        b.it = it;
        dpq dq = {grad, ngrad, 0, 0, total, gtype};
        for (size_t i = 0; rc == TH_OK && i < nsteps; i++) {
            const th_pipe_step *t = &sv[i];
            int64_t u = t->u, k = t->c * q->p + s, l0 = k * q->per, l1 = l0 + q->per;
            dpq *lq = t->bwd && u == q->mb - 1 ? &dq : NULL;
            uint64_t tag = (((uint64_t)it * 2 + (uint64_t)t->bwd) * (uint64_t)q->mb + (uint64_t)u) *
                           (uint64_t)bounds;
            if (!t->bwd) {
                if (k > 0) {
                    snprintf(name, sizeof name, "mb%lld.v%lld.recv_activation", (long long)u,
                             (long long)k);
                    rc = p2p(&b, q, name, 0, (int)((k - 1) % q->p), tag + (uint64_t)(k - 1), err);
                }
                for (int64_t l = l0; rc == TH_OK && l < l1; l++) {
                    snprintf(name, sizeof name, "mb%lld.l%lld.forward", (long long)u, (long long)l);
                    rc = comp(&b, name, is_moe(p, l) ? p->t.fwd_moe : p->t.fwd_dense, NULL, err);
                    if (rc == TH_OK) rc = layer_colls(&b, p, name, l, 0, err);
                }
                if (rc == TH_OK && k == K) {
                    snprintf(name, sizeof name, "mb%lld.logits.forward", (long long)u);
                    rc = comp(&b, name, p->t.logits, NULL, err);
                }
                if (rc == TH_OK && k < K) {
                    snprintf(name, sizeof name, "mb%lld.v%lld.send_activation", (long long)u,
                             (long long)k);
                    rc = p2p(&b, q, name, 1, (int)((k + 1) % q->p), tag + (uint64_t)k, err);
                }
                continue;
            }
            if (k == K) {
                snprintf(name, sizeof name, "mb%lld.logits.backward", (long long)u);
                rc = comp(&b, name, 2 * p->t.logits, lq, err);
            } else {
                snprintf(name, sizeof name, "mb%lld.v%lld.recv_gradient", (long long)u,
                         (long long)k);
                rc = p2p(&b, q, name, 0, (int)((k + 1) % q->p), tag + (uint64_t)k, err);
            }
            for (int64_t l = l1 - 1; rc == TH_OK && l >= l0; l--) {
                int moe = is_moe(p, l);
                double f = moe ? p->t.fwd_moe : p->t.fwd_dense;
                if (p->full || p->sel) {
                    snprintf(name, sizeof name, "mb%lld.l%lld.recompute", (long long)u,
                             (long long)l);
                    rc = comp(&b, name,
                              p->full ? f
                              : moe   ? p->t.core_moe
                                      : p->t.core_dense,
                              lq, err);
                    if (rc == TH_OK && p->full) rc = layer_colls(&b, p, name, l, 0, err);
                    if (rc) break;
                }
                snprintf(name, sizeof name, "mb%lld.l%lld.backward", (long long)u, (long long)l);
                rc = comp(&b, name, 2 * f, lq, err);
                if (rc == TH_OK) rc = layer_colls(&b, p, name, l, 1, err);
            }
            if (rc == TH_OK && k > 0) {
                snprintf(name, sizeof name, "mb%lld.v%lld.send_gradient", (long long)u,
                         (long long)k);
                rc = p2p(&b, q, name, 1, (int)((k - 1) % q->p), tag + (uint64_t)(k - 1), err);
            }
        }
        /* the last step is the last micro-batch's backward: the buckets due at its end */
        if (rc == TH_OK) rc = due(&b, &dq, 1, 0, err);
        if (rc) break;
        /* the optimizer step waits for the pass and every gradient bucket */
        ends buckets = b.extra;
        b.extra = (ends){0};
        for (size_t i = 0; rc == TH_OK && i < buckets.n; i++)
            if (ends_add(&b.end, buckets.v[i])) rc = oom(err);
        free(buckets.v);
        const th_llm_model *m = &sh->w->model;
        int sharded = x->sharding >= TH_LLM_SHARD_OPTIMIZER;
        double dp = (double)x->dp, edp = dp / (double)x->ep, dense_p, expert_p;
        stage_params(sh, s, &dense_p, &expert_p);
        double shard = sharded ? dense_p / dp + expert_p / edp : dense_p + expert_p;
        double opt = llm_vector_ns(&sh->sys->npu, shard, 10,
                                   x->grad_bytes + 2 * x->optimizer_bytes + m->param_bytes);
        if (rc == TH_OK) rc = comp(&b, "optimizer", opt, NULL, err);
        /* sharded: the updated weights gathered back, together, before the next forward */
        for (size_t i = 0; rc == TH_OK && i < nw; i++) {
            snprintf(name, sizeof name, "dp.weights%zu", i);
            rc = coll(&b, name, TH_COLL_ALLGATHER, wts[i].size, wts[i].mask, 0, NULL, err);
        }
        if (rc == TH_OK && nw) {
            ends gathers = b.extra;
            b.extra = (ends){0};
            if (ends_set(&b.end, gathers.v, gathers.n)) rc = oom(err);
            free(gathers.v);
        }
    }
    if (rc == TH_OK && g->n == 0)
        rc = th_error_set(err, TH_EINPUT,
                          "%s: no node to write: no collective, and every compute under 0.5 us "
                          "(ASTRA-sim stops on a trace without nodes)",
                          src);
    free(b.end.v);
    free(b.extra.v);
    free(grad);
    free(wts);
    free(sv);
    return rc;
}

int th_chakra_build_llm(const th_llm_workload *w, const th_system *sys, const th_chakra_opts *o,
                        th_chakra_graph *g, th_error *err) {
    memset(g, 0, sizeof *g);
    shared sh;
    memset(&sh, 0, sizeof sh);
    sh.w = w, sh.sys = sys, sh.o = o, sh.x = w->exec;
    const th_llm_model *m = &w->model;
    th_llm_exec *x = &sh.x;
    const char *src = w->name;
    g->ndims = sys->ndims, g->iterations = o->iterations, g->name = w->name;
    g->npus = 1;
    for (int d = 0; d < sys->ndims; d++)
        g->npus *= sys->dims[d].npus;
    if (o->iterations < 1 || o->iterations > 1000)
        return th_error_set(err, TH_EINPUT, "iterations: expected 1 to 1000, got %d",
                            o->iterations);
    if (o->bucket > 0) x->bucket_bytes = o->bucket;
    if (o->bucket < 0) x->bucket_bytes = 0;
    if (!sys->npu.present)
        return th_error_set(err, TH_EINPUT,
                            "npu: missing in system \"%s\" (an LLM workload's compute times come "
                            "from the NPU's matrix_tflops, vector_tflops and memory_GBps)",
                            sys->name);
    if (th_llm_check(m, x, src, err)) return err->code;
    if (x->sharding == TH_LLM_SHARD_WEIGHTS)
        return th_error_set(err, TH_EINPUT,
                            "%s: llm.sharding: weights (ZeRO-3) gathers the weights before each "
                            "pass, hidden behind the pass before it, which the writer does not "
                            "lay out; optimizer and gradients are written",
                            src);
    th_llm_map map;
    if (th_llm_map_groups(sys, x, &map, err)) return err->code;
    uint32_t mtp;
    if (group_mask(&map, sys, TH_LLM_TP, src, &mtp, err) ||
        group_mask(&map, sys, TH_LLM_EP, src, &sh.mep, err) ||
        group_mask(&map, sys, TH_LLM_DP, src, &sh.mdp, err))
        return err->code;

    llm_stage_work(m, x, &sys->npu, &sh.st);
    llm_layer_params(m, x, &sh.lp);
    plan *p = &sh.p;
    p->m = m, p->x = x, p->L = m->layers, p->tp = mtp;
    llm_layer_times(m, x, &sys->npu, &p->t);
    p->every = m->experts > 0 ? m->moe_every : 0;
    double tok = (double)x->micro_batch * m->seq, sp = x->sequence_parallel ? (double)x->tp : 1;
    p->act = tok * m->hidden * m->act_bytes;
    p->a2a = tok * m->top_k * m->hidden * m->act_bytes / sp;
    p->ep = sh.st.moe_layers > 0 && x->ep > 1 ? sh.mep : 0;
    p->sp = x->sequence_parallel;
    p->full = x->recompute == TH_LLM_RECOMPUTE_FULL;
    p->sel = x->recompute == TH_LLM_RECOMPUTE_SELECTIVE;
    th_pipe *q = &sh.q;
    q->p = x->pp, q->v = x->schedule == TH_LLM_INTERLEAVED ? x->virtual_stages : 1;
    q->mb = x->global_batch / (x->micro_batch * x->dp);
    q->per = m->layers / (q->p * q->v);
    q->sched = x->schedule;
    q->send = p->act / (double)x->tp;

    int rc = build_stage(&sh, 0, g, err);
    if (rc || q->p == 1) return rc;
    g->stages = (int)q->p;
    g->stage_us = g->compute_us;
    if (!(g->stage = calloc((size_t)q->p - 1, sizeof *g->stage))) return oom(err);
    if ((rc = th_pipe_layout(&map, x, sys, g, err))) return rc;
    uint64_t most = g->n;
    for (int64_t s = 1; rc == TH_OK && s < q->p; s++) {
        th_chakra_graph *gs = &g->stage[s - 1];
        gs->ndims = g->ndims, gs->iterations = g->iterations, gs->name = g->name;
        gs->npus = g->npus;
        rc = build_stage(&sh, s, gs, err);
        gs->stage_us = gs->compute_us;
        if (gs->n > most) most = gs->n;
        g->phases += gs->phases, g->rounded += gs->rounded, g->dropped += gs->dropped;
        g->sizes_rounded += gs->sizes_rounded;
        if (gs->worst_ns > g->worst_ns) g->worst_ns = gs->worst_ns;
        g->compute_ns = gs->compute_ns, g->compute_us = gs->compute_us; /* the last stage's */
    }
    g->id_stride = most;
    return rc;
}

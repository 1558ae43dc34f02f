/* The search over LLM executions (docs/LLM.md, The search): the valid executions of a model on
 * every NPU of a system enumerated in a fixed order, equivalent ones once; those that do not fit
 * in memory dropped (th_llm_memory, no network); the rest timed best-first by a lower bound of
 * the iteration (the compute and pipeline bubble of the busiest stage, llm_stage_work), and
 * dropped unseen once their bound exceeds the K-th best time found (branch and bound). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "llm_internal.h"
#include "themis/buf.h"
#include "themis/llm_search.h"

const char *const th_llm_search_key_names[] = {
    "tp",        "pp",       "dp",      "ep", "micro_batch", "schedule", "sequence_parallel",
    "recompute", "sharding", "mapping", NULL};

/* An execution to time, packed (a 1T model on 4096 NPUs has some 10^5 to 10^6 of them). */
typedef struct cand {
    double lb;              /* lower bound of its iteration, ns */
    int32_t tp, pp, dp, ep; /* int32: NPUs of one system fit (TH_MAX_NPUS is checked) */
    int64_t micro_batch;
    int16_t v;
    uint8_t schedule, sp, recompute, sharding;
    uint8_t mapping[TH_LLM_GROUPS];
} cand;

typedef struct cands {
    cand *v;
    size_t n, cap;
} cands;

int th_llm_exec_cmp(const th_llm_exec *a, const th_llm_exec *b) {
    int64_t ka[] = {a->tp,
                    a->pp,
                    a->dp,
                    a->ep,
                    a->micro_batch,
                    a->schedule,
                    a->virtual_stages,
                    a->sequence_parallel,
                    a->recompute,
                    a->sharding,
                    a->mapping[0],
                    a->mapping[1],
                    a->mapping[2],
                    a->mapping[3]};
    int64_t kb[] = {b->tp,
                    b->pp,
                    b->dp,
                    b->ep,
                    b->micro_batch,
                    b->schedule,
                    b->virtual_stages,
                    b->sequence_parallel,
                    b->recompute,
                    b->sharding,
                    b->mapping[0],
                    b->mapping[1],
                    b->mapping[2],
                    b->mapping[3]};
    for (size_t i = 0; i < sizeof ka / sizeof *ka; i++)
        if (ka[i] != kb[i]) return ka[i] < kb[i] ? -1 : 1;
    return 0;
}

static void unpack(const cand *c, const th_llm_exec *base, th_llm_exec *x) {
    *x = *base;
    x->tp = c->tp, x->pp = c->pp, x->dp = c->dp, x->ep = c->ep;
    x->micro_batch = c->micro_batch;
    x->schedule = (th_llm_schedule)c->schedule;
    x->virtual_stages = c->v;
    x->sequence_parallel = c->sp;
    x->recompute = (th_llm_recompute)c->recompute;
    x->sharding = (th_llm_sharding)c->sharding;
    for (int k = 0; k < TH_LLM_GROUPS; k++)
        x->mapping[k] = c->mapping[k];
}

/* Divisors of a number up to 1e12, at most (963761198400 has 6720). */
#define MAX_DIVISORS 8192

/* The divisors of n (1 to 1e12) in increasing order into d (room for MAX_DIVISORS), their
 * count: those up to sqrt(n), then their cofactors. */
static int divisors(int64_t n, int64_t *d) {
    int lo = 0;
    for (int64_t k = 1; k * k <= n; k++)
        if (n % k == 0) d[lo++] = k;
    int all = lo;
    for (int i = lo - 1; i >= 0; i--)
        if (d[i] * d[i] != n) d[all++] = n / d[i];
    return all;
}

/* The 24 orders of the four groups, lexicographic (the first is the default: tp, ep, pp, dp). */
static void orders(int out[24][TH_LLM_GROUPS]) {
    int n = 0;
    for (int a = 0; a < 4; a++)
        for (int b = 0; b < 4; b++)
            for (int c = 0; c < 4; c++) {
                int d = 6 - a - b - c;
                if (b == a || c == a || c == b) continue;
                out[n][0] = a, out[n][1] = b, out[n][2] = c, out[n][3] = d;
                n++;
            }
}

/* The orders of the groups of x that fit sys and give distinct placements (the first order of
 * each placement), into ord; their count. */
static int mappings(const th_system *sys, const th_llm_exec *x, const th_llm_search_opts *o,
                    int ord[24][TH_LLM_GROUPS]) {
    int all[24][TH_LLM_GROUPS], n = 0;
    th_llm_map maps[24];
    orders(all);
    th_llm_exec y = *x;
    for (int i = 0; i < 24; i++) {
        if (o->fixed & (1u << TH_LLM_KEY_MAPPING) && memcmp(all[i], o->base.mapping, sizeof all[i]))
            continue;
        memcpy(y.mapping, all[i], sizeof y.mapping);
        th_error e;
        if (th_llm_map_groups(sys, &y, &maps[n], &e)) continue;
        int same = 0;
        for (int j = 0; j < n && !same; j++)
            same = !memcmp(&maps[j], &maps[n], sizeof maps[n]);
        if (same) continue;
        memcpy(ord[n], all[i], sizeof ord[n]);
        n++;
    }
    return n;
}

static int push(cands *cs, const cand *c) {
    if (th_grow(&cs->v, &cs->cap, cs->n + 1, sizeof *cs->v)) return -1;
    cs->v[cs->n++] = *c;
    return 0;
}

typedef struct walk {
    const th_system *sys;
    const th_llm_model *m;
    const th_llm_search_opts *o;
    th_llm_search_result *res;
    cands cs;
    double capacity; /* bytes */
    double npus;     /* tp * pp * dp */
    long steps;      /* for the poll */
    int64_t *div;    /* room for the divisors of tp, pp, ep and the micro-batch */
    th_error *err;
} walk;

static int fixed(const walk *w, th_llm_search_key k) {
    return (w->o->fixed >> k) & 1u;
}

/* Asks the poll once per 1024 steps of work (a memory check is 1, a timing more). */
static int poll_now(walk *w, long steps) {
    if (!w->o->poll || (w->steps += steps) < 1024) return TH_OK;
    w->steps = 0;
    if (w->o->poll(w->o->poll_ctx)) return th_error_set(w->err, TH_EINTERNAL, "interrupted");
    return TH_OK;
}

/* Every sharding and mapping of x (its other keys set), and its schedules: counted, checked for
 * memory, and the feasible ones kept with their bound. `work`: the busiest stage's compute. */
static int add_shardings(walk *w, th_llm_exec *x, const llm_stage *work, int nmap,
                         int ord[24][TH_LLM_GROUPS]) {
    const th_llm_exec *b = &w->o->base;
    int zmax = x->dp > 1 ? TH_LLM_SHARD_WEIGHTS : TH_LLM_SHARD_NONE; /* dp 1: all the same */
    for (int z = TH_LLM_SHARD_NONE; z <= zmax; z++) {
        if (fixed(w, TH_LLM_KEY_SHARDING) && z != (int)b->sharding) continue;
        x->sharding = (th_llm_sharding)z;
        th_error e;
        if (th_llm_check(w->m, x, "", &e)) continue;
        w->res->enumerated += nmap;
        th_llm_mem mem;
        th_llm_memory(w->m, x, &mem);
        if (poll_now(w, 1)) return w->err->code;
        if (!(mem.total <= w->capacity)) continue;
        w->res->feasible += nmap;
        double p = (double)x->pp, v = (double)x->virtual_stages;
        double mb = (double)(x->global_batch / (x->micro_batch * x->dp));
        /* the compute and the bubble's compute, parts of th_llm_eval's sum of non-negative
         * parts; a hair below, against rounding */
        double lb = (mb + (p - 1) / v) * (work->fwd + work->bwd + work->recompute) * (1 - 1e-12);
        cand c = {lb,
                  (int32_t)x->tp,
                  (int32_t)x->pp,
                  (int32_t)x->dp,
                  (int32_t)x->ep,
                  x->micro_batch,
                  (int16_t)x->virtual_stages,
                  (uint8_t)x->schedule,
                  (uint8_t)x->sequence_parallel,
                  (uint8_t)x->recompute,
                  (uint8_t)z,
                  {0}};
        for (int i = 0; i < nmap; i++) {
            for (int k = 0; k < TH_LLM_GROUPS; k++)
                c.mapping[k] = (uint8_t)ord[i][k];
            if (push(&w->cs, &c)) return th_error_set(w->err, TH_EINTERNAL, "out of memory");
        }
    }
    return TH_OK;
}

/* The schedules of x: one when pp is 1 (they do not differ: GPipe, the first in the order of
 * ties); else GPipe, 1F1B and interleaved with every v >= 2 that splits the layers (v = 1 is
 * 1F1B with more memory in flight). */
static int add_schedules(walk *w, th_llm_exec *x, const llm_stage *work, int nmap,
                         int ord[24][TH_LLM_GROUPS]) {
    const th_llm_exec *b = &w->o->base;
    int fix = fixed(w, TH_LLM_KEY_SCHEDULE);
    if (x->pp == 1) { /* no pipeline: every schedule is GPipe's, whatever is fixed */
        x->schedule = TH_LLM_GPIPE, x->virtual_stages = 1;
        return add_shardings(w, x, work, nmap, ord);
    }
    for (int s = TH_LLM_GPIPE; s <= TH_LLM_INTERLEAVED; s++) {
        if (fix && s != (int)b->schedule) continue;
        x->schedule = (th_llm_schedule)s;
        if (s != TH_LLM_INTERLEAVED) {
            x->virtual_stages = 1;
            if (add_shardings(w, x, work, nmap, ord)) return w->err->code;
            continue;
        }
        int64_t per = w->m->layers / x->pp;
        for (int64_t v = 2; v <= per && v <= 32767; v++) {
            if (per % v || (fix && v != b->virtual_stages)) continue;
            x->virtual_stages = v;
            if (add_shardings(w, x, work, nmap, ord)) return w->err->code;
        }
    }
    return TH_OK;
}

/* Every micro-batch, sequence parallelism and recomputation of x (its groups set). */
static int add_micro(walk *w, th_llm_exec *x, int nmap, int ord[24][TH_LLM_GROUPS]) {
    const th_llm_exec *b = &w->o->base;
    int64_t *mbs = w->div + 3 * MAX_DIVISORS;
    int n = divisors(x->global_batch / x->dp, mbs);
    for (int i = 0; i < n; i++) {
        if (fixed(w, TH_LLM_KEY_MICRO_BATCH) && mbs[i] != b->micro_batch) continue;
        x->micro_batch = mbs[i];
        for (int sp = 0; sp <= (x->tp > 1); sp++) { /* tp 1: nothing to split */
            if (fixed(w, TH_LLM_KEY_SEQUENCE_PARALLEL) && sp != !!b->sequence_parallel && x->tp > 1)
                continue;
            x->sequence_parallel = sp;
            for (int r = TH_LLM_RECOMPUTE_NONE; r <= TH_LLM_RECOMPUTE_FULL; r++) {
                if (fixed(w, TH_LLM_KEY_RECOMPUTE) && r != (int)b->recompute) continue;
                x->recompute = (th_llm_recompute)r;
                llm_stage work; /* the same for every schedule, sharding and mapping */
                llm_stage_work(w->m, x, &w->sys->npu, &work);
                if (add_schedules(w, x, &work, nmap, ord)) return w->err->code;
            }
        }
    }
    return TH_OK;
}

/* Every TP, PP (DP the rest) and EP. */
static int enumerate(walk *w) {
    const th_llm_exec *b = &w->o->base;
    int64_t npus = (int64_t)w->npus, *tps = w->div, *pps = w->div + MAX_DIVISORS,
            *eps = w->div + 2 * MAX_DIVISORS;
    th_llm_exec x = *b;
    int ntp = divisors(npus, tps);
    for (int i = 0; i < ntp; i++) {
        x.tp = tps[i];
        if (fmod(w->m->heads, (double)x.tp) != 0) continue;
        if (fixed(w, TH_LLM_KEY_TP) && x.tp != b->tp) continue;
        int npp = divisors(npus / x.tp, pps);
        for (int j = 0; j < npp; j++) {
            x.pp = pps[j];
            x.dp = npus / x.tp / x.pp;
            if ((fixed(w, TH_LLM_KEY_PP) && x.pp != b->pp) ||
                (fixed(w, TH_LLM_KEY_DP) && x.dp != b->dp) || w->m->layers % x.pp ||
                x.global_batch % x.dp)
                continue;
            int nep = 1;
            eps[0] = 1;
            if (w->m->experts > 0) nep = divisors(x.dp, eps);
            for (int k = 0; k < nep; k++) {
                x.ep = eps[k];
                if (fmod(w->m->experts, (double)x.ep) != 0) continue;
                if (fixed(w, TH_LLM_KEY_EP) && x.ep != b->ep) continue;
                int ord[24][TH_LLM_GROUPS];
                int nmap = mappings(w->sys, &x, w->o, ord);
                if (nmap && add_micro(w, &x, nmap, ord)) return w->err->code;
            }
        }
    }
    return TH_OK;
}

static int by_bound(const void *a, const void *b) {
    const cand *x = a, *y = b;
    if (x->lb != y->lb) return x->lb < y->lb ? -1 : 1;
    return 0;
}

/* Whether (r, x) goes before (s, y): the faster, then th_llm_exec_cmp's order. */
static int before(const th_llm_result *r, const th_llm_exec *x, const th_llm_found *f) {
    if (r->iteration != f->r.iteration) return r->iteration < f->r.iteration;
    return th_llm_exec_cmp(x, &f->x) < 0;
}

/* A min-heap of candidates whose bound was refined (the ideal network's iteration). */
typedef struct refined {
    double lb;
    size_t i; /* index into the candidates */
} refined;

static void heap_push(refined *h, size_t *n, refined e) {
    size_t k = (*n)++;
    while (k > 0 && h[(k - 1) / 2].lb > e.lb) {
        h[k] = h[(k - 1) / 2];
        k = (k - 1) / 2;
    }
    h[k] = e;
}

static refined heap_pop(refined *h, size_t *n) {
    refined top = h[0], e = h[--*n];
    size_t k = 0;
    for (;;) {
        size_t c = 2 * k + 1;
        if (c >= *n) break;
        if (c + 1 < *n && h[c + 1].lb < h[c].lb) c++;
        if (h[c].lb >= e.lb) break;
        h[k] = h[c];
        k = c;
    }
    if (*n) h[k] = e;
    return top;
}

/* A lower bound of x's iteration under o's pair, exact but for the data-parallel collectives
 * and the optimizer step: th_llm_eval's parts but those two, timed on x without its gradients
 * (none to reduce) and unsharded (no weights to gather); they are the parts that depend on the
 * gradients and the sharding, and the others are the same (docs/LLM.md, The search). */
static int bound(walk *w, th_llm_ctx *ctx, const th_llm_exec *x, double *lb) {
    th_llm_exec y = *x;
    y.grad_bytes = 0;
    y.sharding = TH_LLM_SHARD_NONE;
    th_llm_result r;
    if (th_llm_eval(ctx, w->sys, w->m, &y, w->o->policy, w->o->intra, &r, w->err))
        return w->err->code;
    const th_llm_breakdown *b = &r.b;
    *lb = (b->forward + b->backward + b->recompute + b->tp_exposed + b->ep_exposed + b->bubble +
           b->pp_exposed) *
          (1 - 1e-12);
    return TH_OK;
}

/* Keeps (x, r) among the K best. */
static void keep(const th_llm_search_opts *o, th_llm_search_result *res, const th_llm_exec *x,
                 const th_llm_result *r) {
    int at = res->n;
    while (at > 0 && before(r, x, &res->best[at - 1]))
        at--;
    if (at >= o->top) return;
    int last = res->n < o->top ? res->n : o->top - 1;
    memmove(&res->best[at + 1], &res->best[at], (size_t)(last - at) * sizeof *res->best);
    res->best[at] = (th_llm_found){*x, *r};
    if (res->n < o->top) res->n++;
}

/* Times the candidates in the order of their bounds, lazily refined: the candidate of least
 * bound is either refined (its cheap bound replaced by the ideal network's iteration, an
 * evaluation without the emulator) or, refined already, timed; a bound above the K-th best
 * time so far ends the search (each bound is below the iteration th_llm_eval gives). */
static int best_first(walk *w, th_llm_ctx *ctx) {
    const th_llm_search_opts *o = w->o;
    th_llm_search_result *res = w->res;
    qsort(w->cs.v, w->cs.n, sizeof *w->cs.v, by_bound);
    refined *heap = malloc(w->cs.n * sizeof *heap);
    if (!heap) return th_error_set(w->err, TH_EINTERNAL, "out of memory");
    size_t nh = 0, i = 0;
    int rc = TH_OK;
    while (rc == TH_OK) {
        double kth = res->n == o->top ? res->best[res->n - 1].r.iteration : INFINITY;
        if (i == w->cs.n && !nh) break; /* every candidate timed */
        int fresh = i < w->cs.n && (!nh || w->cs.v[i].lb < heap[0].lb);
        double lb = fresh ? w->cs.v[i].lb : nh ? heap[0].lb : INFINITY;
        if (!(lb <= kth)) break;
        size_t k = fresh ? i++ : heap_pop(heap, &nh).i;
        th_llm_exec x;
        unpack(&w->cs.v[k], &o->base, &x);
        th_llm_result r;
        if (fresh) {
            if (bound(w, ctx, &x, &lb)) {
                rc = w->err->code;
                break;
            }
            res->bounded++;
            heap_push(heap, &nh, (refined){lb, k});
        } else {
            if (th_llm_eval(ctx, w->sys, w->m, &x, o->policy, o->intra, &r, w->err)) {
                rc = w->err->code;
                break;
            }
            res->evaluated++;
            keep(o, res, &x, &r);
        }
        if (poll_now(w, fresh ? 16 : 1024)) rc = w->err->code;
    }
    free(heap);
    return rc;
}

int th_llm_search(const th_system *sys, const th_llm_model *m, const th_llm_search_opts *o,
                  th_llm_search_result *out, th_error *err) {
    memset(out, 0, sizeof *out);
    if (!sys->npu.present)
        return th_error_set(err, TH_EINPUT,
                            "npu: missing in system \"%s\" (a search needs the NPU's "
                            "matrix_tflops, vector_tflops, memory_GBps and memory_gib)",
                            sys->name);
    if (o->top < 1)
        return th_error_set(err, TH_EINPUT, "llm search: top: expected >= 1, got %d", o->top);
    if (o->base.global_batch < 1 || o->base.global_batch > 1000000000000)
        return th_error_set(err, TH_EINPUT,
                            "llm search: global_batch: expected an integer from 1 to 1e12, got "
                            "%lld",
                            (long long)o->base.global_batch);
    double npus = o->npus > 0 ? o->npus : sys->npus;
    if (npus != floor(npus) || npus > sys->npus)
        return th_error_set(err, TH_EINPUT,
                            "llm search: npus: expected an integer from 1 to %.15g (the NPUs of "
                            "system \"%s\"), got %.15g",
                            sys->npus, sys->name, npus);
    if (npus > 2147483647.0)
        return th_error_set(err, TH_EINPUT, "llm search: npus: %.15g, at most 2^31 - 1", npus);
    out->best = calloc((size_t)o->top, sizeof *out->best);
    if (!out->best) return th_error_set(err, TH_EINTERNAL, "out of memory");
    walk w = {sys, m, o, out, {NULL, 0, 0}, th_npu_memory_bytes(&sys->npu), npus, 0, NULL, err};
    w.div = malloc(4 * MAX_DIVISORS * sizeof *w.div);
    int rc = w.div ? enumerate(&w) : th_error_set(err, TH_EINTERNAL, "out of memory");
    free(w.div);
    th_llm_ctx *ctx = NULL;
    if (rc == TH_OK && w.cs.n) {
        ctx = th_llm_ctx_create();
        rc = ctx ? best_first(&w, ctx) : th_error_set(err, TH_EINTERNAL, "out of memory");
    }
    th_llm_ctx_free(ctx);
    free(w.cs.v);
    if (rc) th_llm_search_result_free(out);
    return rc;
}

void th_llm_search_result_free(th_llm_search_result *r) {
    free(r->best);
    r->best = NULL;
    r->n = 0;
}

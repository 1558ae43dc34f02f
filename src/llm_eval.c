/* One LLM training iteration (docs/LLM.md, The iteration): the groups laid onto the system's
 * dims, every collective timed through the emulator on its group's dims (a cache keeps the
 * times, so that a search can call this often), the pipeline schedule's bubble, the pipeline
 * sends, and the data-parallel gradient buckets in flight together under the policy pair. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "llm_internal.h"
#include "model.h"
#include "themis/buf.h"
#include "themis/run.h"

#define CACHE_SIZE 4096 /* entries, a power of two */
/* Streams of at most this many buckets run through the emulator as they are; longer ones
 * follow a queue recurrence fitted to the emulator (stream_fit_ns). */
#define STREAM_EXACT 16
#define STREAM_FIT   8 /* buckets issued together to measure the steady period */

/* A gradient bucket: issued at t (ns), size bytes over the group dims of mask. */
typedef struct bucket {
    double t, size;
    uint32_t mask;
} bucket;

typedef struct cache_entry {
    uint64_t key; /* 0: empty */
    double value;
} cache_entry;

struct th_llm_ctx {
    th_runner *runner;
    th_emu *emu;
    th_plan **plans; /* one per collective in flight */
    size_t nplans;
    int *of_id; /* emulator id -> bucket */
    size_t id_cap;
    double (*contrib)[TH_MAX_DIMS]; /* themis-global: each bucket's loads */
    size_t contrib_cap;
    cache_entry *cache;
    struct bucket *buckets; /* the gradient buckets of an evaluation, reused */
    int bucket_cap;
    int exact; /* streams of at most this many buckets run through the emulator as they are */
};

th_llm_ctx *th_llm_ctx_create(void) {
    th_llm_ctx *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    c->runner = th_runner_create();
    c->emu = th_emu_create();
    c->cache = calloc(CACHE_SIZE, sizeof *c->cache);
    c->exact = STREAM_EXACT;
    if (!c->runner || !c->emu || !c->cache) {
        th_llm_ctx_free(c);
        return NULL;
    }
    return c;
}

void th_llm_ctx_free(th_llm_ctx *c) {
    if (!c) return;
    th_runner_free(c->runner);
    th_emu_free(c->emu);
    for (size_t i = 0; i < c->nplans; i++)
        th_plan_free(c->plans[i]);
    free(c->plans);
    free(c->of_id);
    free(c->contrib);
    free(c->cache);
    free(c->buckets);
    free(c);
}

/* FNV-1a over the bytes of a key; never 0 (the empty slot). */
static uint64_t hash(uint64_t h, const void *p, size_t n) {
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 1099511628211ull;
    return h;
}
#define HASH_INIT 14695981039346656037ull

static int cache_get(const th_llm_ctx *c, uint64_t key, double *v) {
    key |= 1;
    for (size_t i = key & (CACHE_SIZE - 1), n = 0; n < 8; i = (i + 1) & (CACHE_SIZE - 1), n++) {
        if (c->cache[i].key == key) {
            *v = c->cache[i].value;
            return 1;
        }
        if (!c->cache[i].key) return 0;
    }
    return 0;
}

static void cache_put(th_llm_ctx *c, uint64_t key, double v) {
    key |= 1;
    size_t i = key & (CACHE_SIZE - 1);
    for (size_t n = 0; n < 8 && c->cache[i].key && c->cache[i].key != key; n++)
        i = (i + 1) & (CACHE_SIZE - 1);
    c->cache[i] = (cache_entry){key, v}; /* a full probe run overwrites its last slot */
}

static int64_t group_size(const th_llm_exec *x, int g) {
    switch (g) {
    case TH_LLM_TP: return x->tp;
    case TH_LLM_EP: return x->ep;
    case TH_LLM_PP: return x->pp;
    case TH_LLM_DP: return x->dp / x->ep; /* the rest of the data-parallel group */
    }
    return 1;
}

void llm_ctx_exact(th_llm_ctx *c, int buckets) {
    c->exact = buckets;
    memset(c->cache, 0, sizeof *c->cache * CACHE_SIZE); /* its times were the other way's */
}

int th_llm_map_groups(const th_system *sys, const th_llm_exec *x, th_llm_map *out, th_error *err) {
    memset(out, 0, sizeof *out);
    double need_all = (double)x->tp * (double)x->pp * (double)x->dp;
    if (need_all > sys->npus)
        return th_error_set(err, TH_EINPUT,
                            "llm: tp * pp * dp = %.15g NPUs, but system \"%s\" has %.15g", need_all,
                            sys->name, sys->npus);
    int d = 0;
    int64_t rem = sys->dims[0].npus;
    for (int k = 0; k < TH_LLM_GROUPS; k++) {
        int g = x->mapping[k];
        int64_t need = group_size(x, g);
        while (need > 1) {
            while (rem == 1 && d + 1 < sys->ndims)
                rem = sys->dims[++d].npus;
            if (rem == 1)
                return th_error_set(err, TH_EINPUT,
                                    "llm.mapping: group %s (%lld NPUs) finds no dims left of "
                                    "system \"%s\" (dims 0..%d used by the groups before it)",
                                    th_llm_group_names[g], (long long)group_size(x, g), sys->name,
                                    sys->ndims - 1);
            /* a group takes a factor of what is left of the dim, or all of it when that divides
             * the group; a group smaller than what is left takes that many NPUs of it (the
             * groups after it get whole copies of it: floor(rem / need); the rest idle) */
            int64_t take;
            if (rem % need == 0 || need < rem)
                take = need;
            else if (need % rem == 0)
                take = rem;
            else
                return th_error_set(err, TH_EINPUT,
                                    "llm.mapping: group %s (%lld NPUs, %lld still to place) does "
                                    "not fit dim %d (\"%s\", %lld NPUs, %lld free): more than "
                                    "is free, and not a multiple of it",
                                    th_llm_group_names[g], (long long)group_size(x, g),
                                    (long long)need, d, sys->dims[d].name,
                                    (long long)sys->dims[d].npus, (long long)rem);
            out->dim[g][out->n[g]] = d;
            out->npus[g][out->n[g]++] = take;
            need /= take;
            rem /= take;
        }
    }
    return TH_OK;
}

/* The system a group's collectives run on: a dim per piece, with its dim's links. */
static void group_system(const th_system *sys, const th_llm_map *map, const int *groups, int ng,
                         th_system *out, uint32_t *masks) {
    memcpy(out->name, sys->name, sizeof out->name);
    out->description[0] = '\0';
    out->reduce_bw = sys->reduce_bw;
    out->model = sys->model;
    memcpy(out->model_data, sys->model_data, sizeof out->model_data);
    out->npu = sys->npu;
    out->ndims = 0;
    out->npus = 1;
    /* pieces in the order of the system's dims (inner first), each tagged with its group */
    for (int d = 0; d < sys->ndims; d++)
        for (int k = 0; k < ng; k++) {
            int g = groups[k];
            for (int i = 0; i < map->n[g]; i++) {
                if (map->dim[g][i] != d) continue;
                th_dim *o = &out->dims[out->ndims];
                *o = sys->dims[d];
                o->npus = map->npus[g][i];
                out->npus *= (double)o->npus;
                masks[k] |= 1u << out->ndims;
                out->ndims++;
            }
        }
}

/* A key naming a group system's links. */
static uint64_t sys_key(const th_system *g) {
    uint64_t h = hash(HASH_INIT, &g->ndims, sizeof g->ndims);
    h = hash(h, &g->reduce_bw, sizeof g->reduce_bw);
    h = hash(h, &g->model, sizeof g->model);
    for (int d = 0; d < g->ndims; d++) {
        const th_dim *x = &g->dims[d];
        double v[4] = {(double)x->npus, x->bw, x->latency, x->topology * 4.0 + x->algorithm};
        h = hash(h, v, sizeof v);
    }
    return h;
}

/* Bytes one NPU sends in a collective, and the summed bandwidth of its dims (train.c's ideal
 * network). */
static double ideal_ns(const th_system *g, th_coll_type type, double size, uint32_t mask) {
    double pa = 1, a2a = 0, bw = 0;
    for (int d = 0; d < g->ndims; d++) {
        if (!((mask >> d) & 1u) || g->dims[d].npus < 2) continue;
        double p = (double)g->dims[d].npus;
        pa *= p;
        a2a += (p - 1) / p;
        bw += g->dims[d].bw;
    }
    if (bw == 0) return 0;
    double bytes = type == TH_COLL_ALLREDUCE  ? 2 * size * (1 - 1 / pa)
                   : type == TH_COLL_ALLTOALL ? size * a2a
                                              : size * (1 - 1 / pa);
    return bytes / bw;
}

/* One collective alone on a group system, ns (0 on a group of one NPU). */
static int coll_ns(th_llm_ctx *c, const th_system *g, uint64_t gkey, th_coll_type type, double size,
                   int64_t chunks, th_policy policy, th_intra intra, double *ns, th_error *err) {
    *ns = 0;
    if (g->ndims == 0 || size <= 0) return TH_OK;
    if (policy == TH_POLICY_IDEAL) {
        *ns = ideal_ns(g, type, size, 0);
        return TH_OK;
    }
    if (policy == TH_POLICY_THEMIS_GLOBAL) policy = TH_POLICY_THEMIS; /* alone: the same */
    double k[5] = {1, (double)type, size, (double)chunks, policy * 2.0 + intra};
    uint64_t key = hash(gkey, k, sizeof k);
    if (cache_get(c, key, ns)) return TH_OK;
    /* on one dim the stages of chunks cannot overlap: more chunks would only add latencies */
    th_collective coll = {type, size, g->ndims == 1 ? 1 : chunks, 0};
    th_result r;
    th_pair pair = {policy, intra};
    if (th_run_eval(c->runner, g, &coll, pair, TH_LOAD_ALPHA_BETA, NULL, NULL, &r, err))
        return err->code;
    *ns = r.time;
    cache_put(c, key, r.time);
    return TH_OK;
}

static int plan_for(th_llm_ctx *c, size_t k, th_error *err) {
    if (k < c->nplans) return TH_OK;
    th_plan **p = realloc(c->plans, sizeof *p * (k + 1));
    if (!p) return th_error_set(err, TH_EINTERNAL, "out of memory");
    c->plans = p;
    if (!(c->plans[k] = th_plan_create())) return th_error_set(err, TH_EINTERNAL, "out of memory");
    c->nplans = k + 1;
    return TH_OK;
}

/* The emulator's finished collectives: their ends, the themis-global tracker released. */
static int collect(th_llm_ctx *c, th_policy policy, double *tracker, int ndims, double *end,
                   th_error *err) {
    if (th_emu_step(c->emu, err)) return err->code;
    const int *ids;
    int n = th_emu_finished(c->emu, &ids);
    for (int i = 0; i < n; i++) {
        int k = c->of_id[ids[i]];
        if (policy == TH_POLICY_THEMIS_GLOBAL)
            for (int d = 0; d < ndims; d++)
                tracker[d] -= c->contrib[k][d];
        if (th_emu_release(c->emu, ids[i], err)) return err->code;
        double t = th_emu_now(c->emu);
        if (t > *end) *end = t;
    }
    return TH_OK;
}

/* Buckets b[0..n-1] (issue times non-decreasing) in flight together on group system g: the end
 * of the last, ns. */
static int stream_ns(th_llm_ctx *c, const th_system *g, uint64_t gkey, th_coll_type type,
                     const bucket *b, int n, int64_t chunks, th_policy policy, th_intra intra,
                     double *end, th_error *err) {
    *end = 0;
    if (n == 0 || g->ndims == 0) return TH_OK;
    if (policy == TH_POLICY_IDEAL) { /* the pooled links, one bucket after another */
        for (int k = 0; k < n; k++)
            *end = (b[k].t > *end ? b[k].t : *end) + ideal_ns(g, type, b[k].size, b[k].mask);
        return TH_OK;
    }
    double kk[4] = {2, (double)type, (double)chunks, policy * 2.0 + intra};
    uint64_t key = hash(gkey, kk, sizeof kk);
    for (int k = 0; k < n; k++) { /* field by field: the struct's padding is not a key */
        double v[3] = {b[k].t, b[k].size, (double)b[k].mask};
        key = hash(key, v, sizeof v);
    }
    if (cache_get(c, key, end)) return TH_OK;
    if ((size_t)n > c->contrib_cap) {
        void *p = realloc(c->contrib, sizeof *c->contrib * (size_t)n);
        if (!p) return th_error_set(err, TH_EINTERNAL, "out of memory");
        c->contrib = p;
        c->contrib_cap = (size_t)n;
    }
    double tracker[TH_MAX_DIMS] = {0};
    th_emu_reset(c->emu, g, intra, TH_PRIO_FIFO, NULL, NULL);
    for (int k = 0; k < n; k++) {
        while (th_emu_next(c->emu) <= b[k].t)
            if (collect(c, policy, tracker, g->ndims, end, err)) return err->code;
        if (plan_for(c, (size_t)k, err)) return err->code;
        th_plan *plan = c->plans[k];
        th_collective coll = {type, b[k].size, g->ndims == 1 ? 1 : chunks, b[k].mask};
        int global = policy == TH_POLICY_THEMIS_GLOBAL;
        double before[TH_MAX_DIMS];
        memcpy(before, tracker, sizeof before);
        int rc = policy == TH_POLICY_LP
                     ? th_sched_plan_lp(plan, g, &coll, 0, err)
                     : th_sched_plan_from(plan, g, &coll, policy, TH_LOAD_ALPHA_BETA,
                                          global ? tracker : NULL, err);
        if (rc) return rc;
        if (global)
            for (int d = 0; d < g->ndims; d++) {
                c->contrib[k][d] = plan->load[d] - before[d];
                tracker[d] = plan->load[d];
            }
        int id;
        if (th_emu_issue(c->emu, plan, b[k].t, &id, err)) return err->code;
        if ((size_t)id >= c->id_cap &&
            th_grow(&c->of_id, &c->id_cap, (size_t)id + 1, sizeof *c->of_id))
            return th_error_set(err, TH_EINTERNAL, "out of memory");
        c->of_id[id] = k;
    }
    while (th_emu_next(c->emu) < INFINITY)
        if (collect(c, policy, tracker, g->ndims, end, err)) return err->code;
    cache_put(c, key, *end);
    return TH_OK;
}

/* Buckets of `bytes` (at most `size` each) made uniformly over [0, window] (all at window
 * when not overlapped), appended to the context's list (*n of them so far). */
static int add_buckets(th_llm_ctx *c, int *n, double bytes, double size, uint32_t mask,
                       double window, int overlap, th_error *err) {
    if (bytes <= 0 || !mask) return TH_OK;
    if (size <= 0) size = bytes; /* no buckets: the whole gradient in one collective */
    double nb = ceil(bytes / size);
    if (!(nb <= 1e7)) /* NaN too: (int)nb below would be undefined */
        return th_error_set(err, TH_EINPUT,
                            "llm.bucket_bytes: %g gradient buckets, at most 1e7 (larger buckets)",
                            nb);
    if (*n + (int)nb > c->bucket_cap) {
        int want = *n + (int)nb;
        bucket *p = realloc(c->buckets, sizeof *p * (size_t)want);
        if (!p) return th_error_set(err, TH_EINTERNAL, "out of memory");
        c->buckets = p, c->bucket_cap = want;
    }
    for (int k = 0; k < (int)nb; k++) {
        double left = bytes - size * k;
        c->buckets[(*n)++] =
            (bucket){overlap ? window * (k + 1) / nb : window, left < size ? left : size, mask};
    }
    return TH_OK;
}

/* Issue order: by time, then the dense buckets (more dims) first. */
static int by_time(const void *a, const void *b) {
    const bucket *x = a, *y = b;
    if (x->t != y->t) return (x->t > y->t) - (x->t < y->t);
    if (x->mask != y->mask) return (x->mask < y->mask) - (x->mask > y->mask);
    return (x->size < y->size) - (x->size > y->size);
}

/* A full bucket of `size` bytes over mask: alone (*one, ns) and the period at which a
 * saturated stream of them ends one after another (*period, ns), both from the emulator. */
static int bucket_fit(th_llm_ctx *c, const th_system *g, uint64_t gkey, th_coll_type type,
                      double size, uint32_t mask, int64_t chunks, th_policy policy, th_intra intra,
                      double *one, double *period, th_error *err) {
    bucket b[STREAM_FIT];
    for (int k = 0; k < STREAM_FIT; k++)
        b[k] = (bucket){0, size, mask};
    double all;
    if (stream_ns(c, g, gkey, type, b, 1, chunks, policy, intra, one, err) ||
        stream_ns(c, g, gkey, type, b, STREAM_FIT, chunks, policy, intra, &all, err))
        return err->code;
    *period = (all - *one) / (STREAM_FIT - 1);
    return TH_OK;
}

/* The end of a long stream of buckets, ns: each ends when it has run alone after its issue,
 * or one period after the bucket before it, whichever is later (the queue of the busiest dim
 * as the emulator measured it, the policy pair's balance included); a partial bucket scales
 * its full one's times by its bytes. */
static int stream_fit_ns(th_llm_ctx *c, const th_system *g, uint64_t gkey, th_coll_type type,
                         const bucket *b, int n, double full, int64_t chunks, th_policy policy,
                         th_intra intra, double *end, th_error *err) {
    uint32_t masks[2] = {0, 0};
    double one[2] = {0, 0}, period[2] = {0, 0};
    double finish = -INFINITY;
    for (int k = 0; k < n; k++) {
        int i = masks[0] == b[k].mask ? 0 : masks[1] == b[k].mask ? 1 : masks[0] ? 1 : 0;
        if (masks[i] != b[k].mask) {
            masks[i] = b[k].mask;
            if (bucket_fit(c, g, gkey, type, full, b[k].mask, chunks, policy, intra, &one[i],
                           &period[i], err))
                return err->code;
        }
        double f = b[k].size / full;
        double a = b[k].t + one[i] * f, q = finish + period[i] * f;
        finish = a > q ? a : q;
    }
    *end = finish;
    return TH_OK;
}

/* Dense gradients over the whole data-parallel group, expert ones over its dp / ep part, in
 * buckets made over the window: the end of the last, ns. */
static int dp_ns(th_llm_ctx *c, const th_system *g, uint64_t gkey, uint32_t all, uint32_t dponly,
                 th_coll_type type, double dense, double expert, const th_llm_exec *x,
                 double window, int overlap, th_policy policy, th_intra intra, double *end,
                 th_error *err) {
    int n = 0, nd;
    *end = 0;
    if (add_buckets(c, &n, dense, x->bucket_bytes, all, window, overlap, err)) return err->code;
    nd = n;
    if (add_buckets(c, &n, expert, x->bucket_bytes, dponly, window, overlap, err)) return err->code;
    if (n == 0 || g->ndims == 0) return TH_OK;
    if (nd > 0 && n > nd) /* each kind is in order already; both: interleave them */
        qsort(c->buckets, (size_t)n, sizeof *c->buckets, by_time);
    if (n <= c->exact || policy == TH_POLICY_IDEAL)
        return stream_ns(c, g, gkey, type, c->buckets, n, x->chunks, policy, intra, end, err);
    return stream_fit_ns(c, g, gkey, type, c->buckets, n, x->bucket_bytes, x->chunks, policy, intra,
                         end, err);
}

int th_llm_eval(th_llm_ctx *c, const th_system *sys, const th_llm_model *m, const th_llm_exec *x,
                th_policy policy, th_intra intra, th_llm_result *res, th_error *err) {
    memset(res, 0, sizeof *res);
    if (!sys->npu.present)
        return th_error_set(err, TH_EINPUT,
                            "npu: missing in system \"%s\" (an LLM workload needs the NPU's "
                            "matrix_tflops, vector_tflops, memory_GBps and memory_gib)",
                            sys->name);
    if (th_model_require(sys, TH_CAP_TRAIN, "model", err)) return err->code;
    if ((unsigned)policy >= TH_POLICY_COUNT || (unsigned)intra > TH_INTRA_SCF)
        return th_error_set(err, TH_EINPUT, "llm: unknown policy %d or intra %d", (int)policy,
                            (int)intra);
    if (th_llm_check(m, x, m->name, err)) return err->code;
    th_llm_map map;
    if (th_llm_map_groups(sys, x, &map, err)) return err->code;
    const th_npu *npu = &sys->npu;
    llm_stage st;
    llm_stage_work(m, x, npu, &st);
    th_llm_memory(m, x, &res->mem);
    res->fits = res->mem.total <= th_npu_memory_bytes(npu);

    double mb = (double)(x->global_batch / (x->micro_batch * x->dp)), p = (double)x->pp;
    double v = x->schedule == TH_LLM_INTERLEAVED ? (double)x->virtual_stages : 1;
    double tok = (double)x->micro_batch * m->seq, act = tok * m->hidden * m->act_bytes;
    double sp = x->sequence_parallel ? (double)x->tp : 1;
    int full = x->recompute == TH_LLM_RECOMPUTE_FULL;
    th_system g;
    uint32_t masks[2] = {0, 0};
    uint64_t gkey;

    /* TP: two All-Reduces per layer forward and two backward (Megatron), or with sequence
     * parallelism an All-Gather and a Reduce-Scatter in place of each, and in the backward
     * pass two more All-Gathers: Megatron keeps the sequence-split inputs of the QKV and first
     * feed-forward multiplies and gathers them again for their weight gradients (Korthikanti
     * et al. 2022, section 4.2.2); full recomputation repeats the forward's */
    int tpg[1] = {TH_LLM_TP};
    group_system(sys, &map, tpg, 1, &g, masks);
    gkey = sys_key(&g);
    double a, r2, tp_layer, regather = 0;
    if (x->sequence_parallel) {
        if (coll_ns(c, &g, gkey, TH_COLL_ALLGATHER, act, x->chunks, policy, intra, &a, err) ||
            coll_ns(c, &g, gkey, TH_COLL_REDUCESCATTER, act, x->chunks, policy, intra, &r2, err))
            return err->code;
        tp_layer = 2 * (a + r2);
        regather = 2 * a;
    } else {
        if (coll_ns(c, &g, gkey, TH_COLL_ALLREDUCE, act, x->chunks, policy, intra, &a, err))
            return err->code;
        tp_layer = 2 * a;
    }
    double tp_fwd = st.layers * tp_layer, tp_bwd = st.layers * (tp_layer + regather);
    double tp_rec = full ? tp_fwd : 0;

    /* EP: an All-to-All before and after each expert layer, each way */
    double ep_fwd = 0;
    if (st.moe_layers > 0 && x->ep > 1) {
        int epg[1] = {TH_LLM_EP};
        masks[0] = 0;
        group_system(sys, &map, epg, 1, &g, masks);
        double bytes = tok * m->top_k * m->hidden * m->act_bytes / sp;
        if (coll_ns(c, &g, sys_key(&g), TH_COLL_ALLTOALL, bytes, x->chunks, policy, intra, &a, err))
            return err->code;
        ep_fwd = st.moe_layers * 2 * a;
    }
    double ep_bwd = ep_fwd, ep_rec = full ? ep_fwd : 0;

    /* PP: one send of a micro-batch's activations per stage boundary, each way, on the
     * slowest dim the group crosses; each NPU of a TP group sends 1/tp of them, with or
     * without SP (Megatron's scatter/gather: Narayanan et al. 2021, section 4.1; the
     * receivers' All-Gather inside the TP group is left out) */
    double t_pp = 0;
    for (int i = 0; i < map.n[TH_LLM_PP]; i++) {
        const th_dim *d = &sys->dims[map.dim[TH_LLM_PP][i]];
        double t = d->latency + act / (double)x->tp / d->bw;
        if (t > t_pp) t_pp = t;
    }

    th_llm_breakdown *b = &res->b;
    double per_mb =
        st.fwd + st.bwd + st.recompute + tp_fwd + tp_bwd + tp_rec + ep_fwd + ep_bwd + ep_rec;
    b->forward = mb * st.fwd;
    b->backward = mb * st.bwd;
    b->recompute = mb * st.recompute;
    b->tp_exposed = mb * (tp_fwd + tp_bwd + tp_rec);
    b->ep_exposed = mb * (ep_fwd + ep_bwd + ep_rec);
    b->bubble = (p - 1) / v * per_mb;
    b->pp_exposed = p > 1 ? 2 * (mb * v + p - 1) * t_pp : 0;

    /* DP: the stage's gradients, made during the last micro-batch's backward pass */
    int dpg[2] = {TH_LLM_EP, TH_LLM_DP};
    masks[0] = masks[1] = 0;
    group_system(sys, &map, dpg, 2, &g, masks);
    gkey = sys_key(&g);
    uint32_t all = masks[0] | masks[1], dponly = masks[1];
    double window = st.bwd + st.recompute + tp_bwd + tp_rec + ep_bwd + ep_rec;
    int sharded = x->sharding >= TH_LLM_SHARD_OPTIMIZER;
    double end = 0, dp_exposed = 0;
    if (dp_ns(c, &g, gkey, all, dponly, sharded ? TH_COLL_REDUCESCATTER : TH_COLL_ALLREDUCE,
              st.dense_params * x->grad_bytes, st.expert_params * x->grad_bytes, x, window,
              x->dp_overlap, policy, intra, &end, err))
        return err->code;
    dp_exposed = end > window ? end - window : 0;
    double dp = (double)x->dp, edp = dp / (double)x->ep;
    double shard = sharded ? st.dense_params / dp + st.expert_params / edp
                           : st.dense_params + st.expert_params;
    /* Adam: reads the gradient, reads and writes its state, writes the weight */
    b->optimizer =
        llm_vector_ns(npu, shard, 10, x->grad_bytes + 2 * x->optimizer_bytes + m->param_bytes);
    if (sharded) { /* the updated weights gathered back, before the next forward pass */
        if (dp_ns(c, &g, gkey, all, dponly, TH_COLL_ALLGATHER, st.dense_params * m->param_bytes,
                  st.expert_params * m->param_bytes, x, 0, 0, policy, intra, &end, err))
            return err->code;
        dp_exposed += end;
        if (x->sharding == TH_LLM_SHARD_WEIGHTS) { /* ZeRO-3: gathered again before each pass,
                                                      hidden behind the pass before it */
            double hf = end > st.fwd ? end - st.fwd : 0, hb = end > st.bwd ? end - st.bwd : 0;
            dp_exposed += mb * (hf + hb);
        }
    }
    b->dp_exposed = dp_exposed;
    res->iteration = b->forward + b->backward + b->recompute + b->tp_exposed + b->ep_exposed +
                     b->bubble + b->pp_exposed + b->dp_exposed + b->optimizer;
    res->microbatches = mb;
    double gb = (double)x->global_batch, moe = llm_moe_layers(m);
    res->model_flops = 3 * gb * th_llm_flops_fwd(m);
    res->hw_flops = res->model_flops +
                    gb * (((double)m->layers - moe) * llm_recompute_flops(m, x->recompute, 0) +
                          moe * llm_recompute_flops(m, x->recompute, 1));
    double npus = (double)x->tp * (double)x->pp * dp;
    res->mfu = res->model_flops / (res->iteration * npus * npu->matrix_tflops * 1e3);
    res->tflops_per_npu = res->hw_flops / (res->iteration * npus) / 1e3;
    return TH_OK;
}

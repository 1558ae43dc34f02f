/* Training iterations: the compute stream of one NPU (forward, then backward layer by layer)
 * and its collectives, co-simulated with the emulator (several collectives in flight) or the
 * ideal network (each collective at the summed bandwidth of its dims). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "themis/buf.h"
#include "themis/cost.h"
#include "themis/train.h"
#include "train_internal.h"

/* One collective instance: (iteration, layer, phase). */
typedef struct inst {
    int present;
    int it, layer;
    th_phase phase;
    th_collective coll;
    int blocking;
    double issue, end;      /* ns; < 0 until issued / finished */
    th_plan *plan;          /* emulator: while in flight */
    double remaining, rate; /* ideal network: bytes left, bytes per ns over its dims */
    int run;                /* ideal network: holds its dims now */
    double lat;             /* ideal network: the latency floor it adds, ns (0: none) */
    double lat_end;         /* ideal network: bytes done, ends then (pending), ns */
} inst;

typedef struct trainer {
    const th_system *sys;
    const th_workload *wl;
    const th_train_opts *o;
    th_train_trace_fn trace;
    void *trace_ctx;
    int L, N;
    int S;    /* iterations kept: min(N, KEPT) */
    int top;  /* the last iteration whose instances are set up */
    inst *in; /* S * L * 3: iteration it in slot it % S */
    th_emu *emu;
    int *of_id; /* emulator id -> instance */
    int nid;
    size_t id_cap;
    int *carrier;   /* per layer: the layer whose weight-gradient instance issues its gradient */
    int *first;     /* per carrier layer: the layer whose gradient opened its bucket */
    int *fused;     /* per carrier layer: gradients in its bucket */
    double *bsize;  /* per carrier layer: its bucket's bytes */
    th_plan **pool; /* free plans */
    int npool;
    size_t pool_cap;
    double tracker[TH_MAX_DIMS]; /* themis-global */
    /* themis-global, per instance: the loads it added to the tracker; apart from the
     * instances, which every replay sets up and which stay small that way */
    double (*contrib)[TH_MAX_DIMS];
    /* ideal network: a fluid model with preemptive priority */
    int *live, nlive; /* instances in flight, in issue order */
    int *pend, npend; /* bytes done, waiting out their latency floor (ideal_latency) */
    double tl;        /* when `remaining` was last brought up to date, ns */
    unsigned events;  /* replay steps, counted for opts->poll */
    int blocked;      /* the next task is not ready, and no collective has finished since */
} trainer;

/* Iterations whose collectives are kept. When iteration it begins, every collective of it - 2
 * has ended (iteration it - 1's forwards waited for its non-blocking ones, its next tasks for
 * its blocking ones): three slots suffice, and memory stays flat in the iteration count. */
#define KEPT 3

static inst *at(trainer *tr, int it, int layer, int phase) {
    size_t slot = (size_t)(it % tr->S);
    return &tr->in[(slot * (size_t)tr->L + (size_t)layer) * TH_NPHASES + (size_t)phase];
}

/* Iteration it takes over the slot of it - S (ended): the same collectives, not yet issued. */
static void begin_iteration(trainer *tr, int it) {
    for (int l = 0; l < tr->L; l++)
        for (int p = 0; p < TH_NPHASES; p++) {
            inst *x = at(tr, it, l, p);
            x->it = it;
            x->issue = x->end = -1;
            x->run = 0;
        }
    tr->top = it;
}

/* Task j of an iteration: forwards 0..L-1, then per layer from the last: input, weight. */
static void task(const trainer *tr, int j, int *layer, th_phase *phase) {
    if (j < tr->L) {
        *layer = j, *phase = TH_PHASE_FWD;
        return;
    }
    int k = j - tr->L;
    *layer = tr->L - 1 - k / 2;
    *phase = k % 2 ? TH_PHASE_WG : TH_PHASE_IG;
}

static double scale(const trainer *tr) {
    return tr->o->batch > 0 ? tr->o->batch / tr->wl->batch : 1.0;
}

static double duration(const trainer *tr, int layer, th_phase p) {
    return tr->wl->layers[layer].ph[p].ns * scale(tr);
}

/* Bytes one NPU sends for a collective, whatever the order (SPEC §4). */
static double coll_bytes(const th_system *sys, const th_collective *c, double *bw_sum) {
    double pa = 1, a2a = 0;
    *bw_sum = 0;
    for (int d = 0; d < sys->ndims; d++) {
        if (!((c->dims_mask >> d) & 1u) || sys->dims[d].npus < 2) continue;
        double p = (double)sys->dims[d].npus;
        pa *= p;
        a2a += (p - 1) / p;
        *bw_sum += sys->dims[d].bw;
    }
    switch (c->type) {
    case TH_COLL_ALLREDUCE: return 2 * c->size * (1 - 1 / pa);
    case TH_COLL_REDUCESCATTER:
    case TH_COLL_ALLGATHER: return c->size * (1 - 1 / pa);
    case TH_COLL_ALLTOALL: return c->size * a2a;
    }
    return 0;
}

/* The ideal network: every collective moves its bytes at the summed bandwidth of its dims
 * (all of them pooled, 100% utilization). In priority order, each collective in flight takes
 * its dims when no higher-priority one holds any of them; the others wait (preempted). */
static void ideal_advance(trainer *tr, double t) {
    for (int i = 0; i < tr->nlive; i++) {
        inst *x = &tr->in[tr->live[i]];
        if (x->run) x->remaining -= x->rate * (t - tr->tl);
    }
    tr->tl = t;
}

/* The priority key of a collective (th_emu_issue_key): under the layer priority (earliest
 * layer first) a blocking collective, which the compute stream waits for now, goes first (0),
 * then the others by layer (layer + 1; a bucket's layer is its lowest), older first. */
static int64_t prio_key(const inst *x) {
    return x->blocking ? 0 : (int64_t)x->layer + 1;
}

static void ideal_assign(trainer *tr) {
    int lifo = tr->o->priority == TH_PRIO_LIFO;
    uint32_t taken = 0;
    for (int i = 0; i < tr->nlive; i++) {
        inst *x = &tr->in[tr->live[lifo ? tr->nlive - 1 - i : i]];
        x->run = !(x->coll.dims_mask & taken);
        if (x->run) taken |= x->coll.dims_mask;
    }
}

static int net_issue(trainer *tr, int k, double t, th_error *err) {
    inst *x = &tr->in[k];
    x->issue = t;
    if (tr->o->policy == TH_POLICY_IDEAL) {
        ideal_advance(tr, t);
        x->remaining = coll_bytes(tr->sys, &x->coll, &x->rate);
        x->lat = tr->o->ideal_latency
                     ? th_cost_latency_floor(tr->sys, x->coll.type == TH_COLL_ALLREDUCE,
                                             x->coll.dims_mask)
                     : 0;
        int at_pos = tr->nlive;
        if (tr->o->priority == TH_PRIO_LAYER) /* live stays in (key, issue) order */
            while (at_pos > 0 && prio_key(&tr->in[tr->live[at_pos - 1]]) > prio_key(x))
                at_pos--;
        memmove(tr->live + at_pos + 1, tr->live + at_pos,
                sizeof *tr->live * (size_t)(tr->nlive - at_pos));
        tr->live[at_pos] = k;
        tr->nlive++;
        ideal_assign(tr);
        return TH_OK;
    }
    th_plan *plan = tr->npool ? tr->pool[--tr->npool] : th_plan_create();
    if (!plan) return th_error_set(err, TH_EINTERNAL, "out of memory");
    x->plan = plan;
    double before[TH_MAX_DIMS];
    memcpy(before, tr->tracker, sizeof before);
    int global = tr->o->policy == TH_POLICY_THEMIS_GLOBAL;
    if (th_sched_plan_from(plan, tr->sys, &x->coll, tr->o->policy, tr->o->model,
                           global ? tr->tracker : NULL, err))
        return err->code;
    if (global)
        for (int d = 0; d < tr->sys->ndims; d++) {
            tr->contrib[k][d] = plan->load[d] - before[d];
            tr->tracker[d] = plan->load[d];
        }
    int id;
    if (th_emu_issue_key(tr->emu, plan, t, prio_key(x), &id, err)) return err->code;
    if ((size_t)id >= tr->id_cap &&
        th_grow(&tr->of_id, &tr->id_cap, (size_t)id + 1, sizeof *tr->of_id))
        return th_error_set(err, TH_EINTERNAL, "out of memory");
    tr->of_id[id] = k;
    return TH_OK;
}

static double net_next(const trainer *tr) {
    if (tr->o->policy != TH_POLICY_IDEAL) return th_emu_next(tr->emu);
    double t = INFINITY;
    for (int i = 0; i < tr->nlive; i++) {
        const inst *x = &tr->in[tr->live[i]];
        if (x->run && tr->tl + x->remaining / x->rate < t) t = tr->tl + x->remaining / x->rate;
    }
    for (int i = 0; i < tr->npend; i++)
        if (tr->in[tr->pend[i]].lat_end < t) t = tr->in[tr->pend[i]].lat_end;
    return t;
}

static void finished(trainer *tr, int k, double t) {
    inst *x = &tr->in[k];
    x->end = t;
    tr->blocked = 0; /* what the next task waits for may have ended */
    if (tr->trace) {
        th_train_event ev = {1, x->it, x->layer, x->phase, x->issue, t};
        tr->trace(tr->trace_ctx, &ev);
    }
}

static int net_step(trainer *tr, th_error *err) {
    if (tr->o->policy == TH_POLICY_IDEAL) {
        double t = net_next(tr);
        int kept = 0, ndone = 0, *done = tr->live + tr->nlive; /* spare room after live */
        for (int i = 0; i < tr->nlive; i++) {
            int k = tr->live[i];
            inst *x = &tr->in[k];
            if (x->run && tr->tl + x->remaining / x->rate == t) done[ndone++] = k;
        }
        ideal_advance(tr, t);
        for (int i = 0; i < tr->nlive; i++) {
            int k = tr->live[i], gone = 0;
            for (int j = 0; j < ndone; j++)
                gone |= done[j] == k;
            if (!gone) tr->live[kept++] = k;
        }
        tr->nlive = kept;
        int waiting = 0; /* the latency floors ending now end first, in the order they began */
        for (int i = 0; i < tr->npend; i++) {
            int k = tr->pend[i];
            if (tr->in[k].lat_end == t)
                finished(tr, k, t);
            else
                tr->pend[waiting++] = k;
        }
        tr->npend = waiting;
        for (int j = 0; j < ndone; j++) {
            inst *x = &tr->in[done[j]];
            x->run = 0;
            if (x->lat > 0) { /* its bytes are through; its dims are free for the others */
                x->lat_end = t + x->lat;
                tr->pend[tr->npend++] = done[j];
            } else {
                finished(tr, done[j], t);
            }
        }
        ideal_assign(tr);
        return TH_OK;
    }
    if (th_emu_step(tr->emu, err)) return err->code;
    const int *ids;
    int n = th_emu_finished(tr->emu, &ids);
    for (int i = 0; i < n; i++) {
        int k = tr->of_id[ids[i]];
        inst *x = &tr->in[k];
        if (tr->o->policy == TH_POLICY_THEMIS_GLOBAL)
            for (int d = 0; d < tr->sys->ndims; d++)
                tr->tracker[d] -= tr->contrib[k][d];
        if ((size_t)tr->npool == tr->pool_cap &&
            th_grow(&tr->pool, &tr->pool_cap, tr->pool_cap + 1, sizeof *tr->pool))
            return th_error_set(err, TH_EINTERNAL, "out of memory");
        tr->pool[tr->npool++] = x->plan;
        x->plan = NULL;
        if (th_emu_release(tr->emu, ids[i], err)) return err->code;
        finished(tr, k, th_emu_now(tr->emu));
    }
    return TH_OK;
}

/* Can task j (over all iterations) start? The previous task's blocking collective, and for a
 * forward the previous iteration's non-blocking collectives of the same layer, must be done. */
static int ready(trainer *tr, int j) {
    int per = TH_NPHASES * tr->L, it = j / per, layer;
    th_phase phase;
    if (j > 0) {
        int pit = (j - 1) / per, pl;
        th_phase pp;
        task(tr, (j - 1) % per, &pl, &pp);
        inst *x = at(tr, pit, pl, pp);
        if (x->present && x->blocking && x->end < 0) return 0;
    }
    task(tr, j % per, &layer, &phase);
    if (phase == TH_PHASE_FWD && it > 0)
        for (int p = 0; p < TH_NPHASES; p++) {
            inst *x = at(tr, it - 1, p == TH_PHASE_WG ? tr->carrier[layer] : layer, p);
            if (x->present && !x->blocking && x->end < 0) return 0;
        }
    return 1;
}

th_chunking th_train_chunking(const th_workload *wl, const th_train_opts *opts) {
    if (opts->chunking_set) return opts->chunking;
    return opts->chunks ? TH_CHUNKING_FIXED : wl->chunking;
}

double th_train_bucket(const th_workload *wl, const th_train_opts *opts) {
    return opts->bucket > 0 ? opts->bucket : opts->bucket < 0 ? 0 : wl->bucket_bytes;
}

/* Can layer l's weight gradient join a bucket? A non-blocking All-Reduce (DDP's gradient
 * All-Reduce). */
static int bucketable(const th_wl_coll *c) {
    return c->present && !c->blocking && c->type == TH_COLL_ALLREDUCE;
}

/* Closes bucket `id` (open from layer first down to layer last): `last`, whose gradient is the
 * last one ready, issues it. */
static void close_bucket(const th_train_buckets *b, const int *bucket_of, int id, int first,
                         int last, int count, double size) {
    for (int l = first; l >= last; l--)
        if (bucket_of[l] == id) b->carrier[l] = last;
    b->first[last] = first, b->fused[last] = count, b->bsize[last] = size;
}

/* PyTorch DDP's bucket assignment (docs/WORKLOADS.md, Buckets): the bucketable gradients in
 * the order the backward pass makes them (layer L-1 first), one open bucket per dims mask; a
 * gradient joins its mask's bucket, and the bucket closes once it holds at least its limit
 * (the first of each mask min(1 MiB, bucket), the others `bucket`), so a gradient larger than
 * the limit fills a bucket alone or closes the one it joins. The last buckets close with the
 * backward pass. */
static int assign_buckets(const th_workload *wl, const th_system *sys, double bucket,
                          const th_train_buckets *b, th_error *err) {
    int L = wl->nlayers;
    int *bucket_of = malloc(sizeof(int) * (size_t)L);
    /* open buckets, at most one per layer: mask, first layer, gradients, bytes, closed count */
    typedef struct open_b {
        uint32_t mask;
        int id, first, last, count, closed;
        double size;
    } open_b;
    open_b *ob = calloc((size_t)L, sizeof *ob);
    if (!bucket_of || !ob) {
        free(bucket_of);
        free(ob);
        return th_error_set(err, TH_EINTERNAL, "out of memory");
    }
    int nob = 0, ids = 0, rc = TH_OK;
    for (int l = L - 1; l >= 0 && rc == TH_OK; l--) {
        bucket_of[l] = -1;
        const th_wl_coll *c = &wl->layers[l].ph[TH_PHASE_WG].coll;
        if (!bucketable(c)) continue;
        uint32_t mask;
        if ((rc = th_workload_mask(wl, c, sys, wl->name, &mask, err))) break;
        int k = 0;
        while (k < nob && ob[k].mask != mask)
            k++;
        if (k == nob) ob[nob++] = (open_b){mask, -1, 0, 0, 0, 0, 0};
        open_b *o = &ob[k];
        if (o->id < 0) *o = (open_b){mask, ids++, l, l, 0, o->closed, 0};
        bucket_of[l] = o->id;
        o->last = l;
        o->count++;
        o->size += c->size;
        double limit = o->closed ? bucket : (bucket < TH_BUCKET_FIRST ? bucket : TH_BUCKET_FIRST);
        if (o->size >= limit) {
            close_bucket(b, bucket_of, o->id, o->first, l, o->count, o->size);
            o->id = -1;
            o->closed++;
        }
    }
    for (int k = 0; k < nob && rc == TH_OK; k++)
        if (ob[k].id >= 0)
            close_bucket(b, bucket_of, ob[k].id, ob[k].first, ob[k].last, ob[k].count, ob[k].size);
    free(bucket_of);
    free(ob);
    return rc;
}

int th_train_assign_buckets(const th_workload *wl, const th_system *sys, double bucket,
                            const th_train_buckets *b, th_error *err) {
    for (int l = 0; l < wl->nlayers; l++) {
        b->carrier[l] = b->first[l] = l;
        b->fused[l] = 1;
        b->bsize[l] = wl->layers[l].ph[TH_PHASE_WG].coll.size;
    }
    return bucket > 0 ? assign_buckets(wl, sys, bucket, b, err) : TH_OK;
}

static int setup(trainer *tr, th_error *err) {
    const th_workload *wl = tr->wl;
    size_t n = (size_t)tr->S * (size_t)tr->L * TH_NPHASES;
    tr->in = calloc(n, sizeof *tr->in);
    tr->live = calloc(2 * n, sizeof(int));
    tr->pend = calloc(n, sizeof(int));
    if (tr->o->policy == TH_POLICY_THEMIS_GLOBAL && !(tr->contrib = calloc(n, sizeof *tr->contrib)))
        return th_error_set(err, TH_EINTERNAL, "out of memory");
    size_t L = (size_t)tr->L;
    tr->carrier = malloc(sizeof(int) * L);
    tr->first = malloc(sizeof(int) * L);
    tr->fused = malloc(sizeof(int) * L);
    tr->bsize = malloc(sizeof(double) * L);
    if (!tr->in || !tr->live || !tr->pend || !tr->carrier || !tr->first || !tr->fused || !tr->bsize)
        return th_error_set(err, TH_EINTERNAL, "out of memory");
    th_train_buckets b = {tr->carrier, tr->first, tr->fused, tr->bsize};
    if (th_train_assign_buckets(wl, tr->sys, th_train_bucket(wl, tr->o), &b, err)) return err->code;
    th_chunking rule = th_train_chunking(wl, tr->o);
    tr->top = tr->S - 1;
    for (int it = 0; it < tr->S; it++)
        for (int l = 0; l < tr->L; l++)
            for (int p = 0; p < TH_NPHASES; p++) {
                const th_wl_coll *c = &wl->layers[l].ph[p].coll;
                inst *x = at(tr, it, l, p);
                x->it = it, x->layer = l, x->phase = (th_phase)p;
                x->issue = x->end = -1;
                if (!c->present) continue;
                int wg = p == TH_PHASE_WG;
                if (wg && tr->carrier[l] != l) continue; /* a later layer's bucket carries it */
                x->present = 1;
                x->blocking = c->blocking;
                x->coll.type = c->type;
                x->coll.size = wg ? tr->bsize[l] : c->size * scale(tr);
                x->coll.chunks = th_workload_chunks(wl, c, x->coll.size, tr->o->chunks, rule);
                if (th_workload_mask(wl, c, tr->sys, wl->name, &x->coll.dims_mask, err))
                    return err->code;
                th_error e;
                if (th_collective_validate(tr->sys, &x->coll, &e))
                    return th_error_set(err, TH_EINPUT, "%s: layers[%d].%s.collective: %s",
                                        wl->name, l, th_phase_name((th_phase)p), e.msg);
            }
    if (tr->o->policy != TH_POLICY_IDEAL) {
        if (!(tr->emu = th_emu_create())) return th_error_set(err, TH_EINTERNAL, "out of memory");
        th_emu_reset(tr->emu, tr->sys, tr->o->intra, tr->o->priority, NULL, NULL);
    }
    return TH_OK;
}

static void teardown(trainer *tr) {
    if (tr->in) {
        size_t n = (size_t)tr->S * (size_t)tr->L * TH_NPHASES;
        for (size_t i = 0; i < n; i++)
            th_plan_free(tr->in[i].plan);
    }
    for (int i = 0; i < tr->npool; i++)
        th_plan_free(tr->pool[i]);
    free(tr->pool);
    free(tr->in);
    free(tr->live);
    free(tr->pend);
    free(tr->contrib);
    free(tr->of_id);
    free(tr->carrier);
    free(tr->first);
    free(tr->fused);
    free(tr->bsize);
    th_emu_free(tr->emu);
}

/* The poll may be a call into another language: every 4096 steps keeps its cost out of sight
 * while a step takes microseconds at most, so an interrupt is seen within milliseconds. */
static int interrupted(trainer *tr) {
    const th_train_opts *o = tr->o;
    if (o->stop && atomic_load_explicit(o->stop, memory_order_relaxed)) return 1;
    return o->poll && (++tr->events & 4095u) == 0 && o->poll(o->poll_ctx);
}

static int replay(trainer *tr, double *starts, th_error *err) {
    int per = TH_NPHASES * tr->L, total = per * tr->N, cur = 0, running = 0;
    double t = 0, tc = INFINITY;
    for (;;) {
        if (interrupted(tr)) return th_error_set(err, TH_EINTERNAL, "interrupted");
        if (cur < total && cur / per > tr->top) begin_iteration(tr, cur / per);
        /* a task found not ready stays so until a collective finishes (ready() reads the
         * ends, which only finished() sets): waiting costs no check per network step */
        if (!running && cur < total && !tr->blocked && !(tr->blocked = !ready(tr, cur))) {
            int layer;
            th_phase phase;
            task(tr, cur % per, &layer, &phase);
            if (phase == TH_PHASE_FWD && layer == 0) starts[cur / per] = t;
            tc = t + duration(tr, layer, phase);
            if (!isfinite(tc))
                return th_error_set(err, TH_EINPUT,
                                    "%s: layers[%d].%s: compute ends at %g ns, not a finite time "
                                    "(compute time %g ns at batch scale %g)",
                                    tr->wl->name, layer, th_phase_name(phase), tc,
                                    duration(tr, layer, phase), scale(tr));
            running = 1;
        }
        double tn = net_next(tr);
        if (!running && tn == INFINITY) {
            if (cur >= total) return TH_OK;
            return th_error_set(err, TH_EINTERNAL, "training replay stalled at task %d", cur);
        }
        if (running && tc <= tn) {
            if (tn == tc && net_step(tr, err)) return err->code; /* completions first */
            t = tc;
            int it = cur / per, layer;
            th_phase phase;
            task(tr, cur % per, &layer, &phase);
            if (tr->trace) {
                th_train_event ev = {0, it, layer, phase, t - duration(tr, layer, phase), t};
                tr->trace(tr->trace_ctx, &ev);
            }
            inst *x = at(tr, it, layer, phase);
            if (x->present && net_issue(tr, (int)(x - tr->in), t, err)) return err->code;
            running = 0;
            tc = INFINITY;
            cur++;
            tr->blocked = 0;
        } else {
            t = tn;
            if (net_step(tr, err)) return err->code;
        }
    }
}

int th_train_check_system(const th_system *sys, th_error *err) {
    return th_model_require(sys, TH_CAP_TRAIN, NULL, err);
}

int th_train_run(const th_system *sys, const th_workload *wl, const th_train_opts *opts,
                 th_train_trace_fn trace, void *trace_ctx, th_train_result *res, th_error *err) {
    memset(res, 0, sizeof *res);
    if (opts->iterations < 2 || opts->iterations > 1000)
        return th_error_set(err, TH_EINPUT, "iterations: expected 2 to 1000, got %d",
                            opts->iterations);
    if (!(opts->batch >= 0) || !isfinite(opts->batch))
        return th_error_set(err, TH_EINPUT, "batch: expected a number > 0");
    th_error e;
    if (th_train_check_system(sys, &e))
        return th_error_set(err, e.code, "system \"%s\": %s", sys->name, e.msg);
    if ((unsigned)opts->policy >= TH_POLICY_COUNT)
        return th_error_set(err, TH_EINPUT, "policy: unknown policy %d", (int)opts->policy);
    trainer tr = {0};
    tr.sys = sys, tr.wl = wl, tr.o = opts, tr.trace = trace, tr.trace_ctx = trace_ctx;
    tr.L = wl->nlayers, tr.N = opts->iterations;
    tr.S = tr.N < KEPT ? tr.N : KEPT;
    double *starts = calloc((size_t)tr.N, sizeof *starts);
    int rc = starts ? setup(&tr, err) : th_error_set(err, TH_EINTERNAL, "out of memory");
    if (rc == TH_OK) rc = replay(&tr, starts, err);
    if (rc == TH_OK) {
        int m = tr.N - 2;
        res->iteration = starts[m + 1] - starts[m];
        for (int l = 0; l < tr.L; l++)
            for (int p = 0; p < TH_NPHASES; p++)
                res->compute += duration(&tr, l, (th_phase)p);
        res->exposed = res->iteration - res->compute;
        res->colls = calloc((size_t)(unsigned)tr.L * TH_NPHASES, sizeof *res->colls);
        if (!res->colls) rc = th_error_set(err, TH_EINTERNAL, "out of memory");
        for (int j = 0; rc == TH_OK && j < TH_NPHASES * tr.L; j++) {
            int layer;
            th_phase phase;
            task(&tr, j, &layer, &phase);
            inst *x = at(&tr, m, layer, phase);
            if (!x->present) continue;
            int wg = phase == TH_PHASE_WG;
            res->colls[res->ncolls++] = (th_train_coll){layer,
                                                        wg ? tr.first[layer] : layer,
                                                        wg ? tr.fused[layer] : 1,
                                                        phase,
                                                        x->coll.type,
                                                        x->coll.size,
                                                        x->coll.dims_mask,
                                                        x->blocking,
                                                        x->issue - starts[m],
                                                        x->end - starts[m]};
        }
    }
    teardown(&tr);
    free(starts);
    if (rc != TH_OK) th_train_result_free(res);
    return rc;
}

void th_train_result_free(th_train_result *res) {
    free(res->colls);
    res->colls = NULL;
    res->ncolls = 0;
}

const char *th_train_intra_name(th_policy policy, th_intra intra) {
    return policy == TH_POLICY_IDEAL ? "-" : th_intra_name(intra);
}

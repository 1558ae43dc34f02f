/* The replay NPU by NPU: streams (one chunk of a collective each), the dims' queues and the
 * generation of a collective's chunks and phases (Sys.cc: generate_collective,
 * insert_stream, proceed_to_next_vnet_baseline; StreamBaseline.cc; the scheduler unit). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "astra_npus.h"
#include "themis/astra.h"

static uint64_t phase_key(const stream *x) {
    const phase *ph = &x->ph[x->cur];
    return ph->size > ph->final ? ph->size : ph->final;
}

/* Sys::insert_stream into queue list (*l, *n), ready_list when ready is set. */
static void insert_stream(sim *s, int32_t **l, int *n, int *cap, int32_t si, int ready_list) {
    stream *x = &s->st[si];
    int at = 0;
    int op = x->ph[x->cur].op;
    if (!s->scf || ready_list || op == OP_A2A || op == OP_AR) {
        while (at < *n && (s->st[(*l)[at]].init || s->st[(*l)[at]].priority >= x->priority))
            at++;
    } else if (x->nph - x->cur - 1 == 1) {
        at = *n;
    } else {
        while (at < *n && (s->st[(*l)[at]].init || phase_key(&s->st[(*l)[at]]) < phase_key(x)))
            at++;
    }
    if (npus_growi(s, (void **)l, *n, cap, sizeof **l)) return;
    memmove(*l + at + 1, *l + at, sizeof **l * (size_t)(*n - at));
    (*l)[at] = si;
    (*n)++;
}

static void init_stream(sim *s, int32_t si) {
    s->st[si].init = 1;
    npus_stream_run(s, si, 99);
}

/* SchedulerUnit::notify_stream_added: starts the first waiting streams of queue q. */
static void stream_added(sim *s, int32_t n, int q) {
    npu *u = &s->npus[n];
    for (int k = u->running[q]; k < u->nact[q] && u->running[q] < 1 && !s->oom; k++) {
        u->running[q]++;
        init_stream(s, s->npus[n].act[q][k]);
        u = &s->npus[n];
    }
}

static void stream_removed(sim *s, int32_t n, int q) {
    s->npus[n].running[q]--;
    stream_added(s, n, q);
}

static void free_stream(sim *s, int32_t si) {
    s->st[si].npu = -1;
    npus_put(&s->stp, si);
}

/* Sys::proceed_to_next_vnet_baseline. */
void npus_proceed(sim *s, int32_t si) {
    stream *x = &s->st[si];
    int32_t n = x->npu;
    int prev = x->queue;
    if (x->steps == 1) s->npus[n].first_phase--;
    int left = x->nph - x->cur - 1;
    if (!left) {
        npus_dataset_done(s, x->dataset);
        x = &s->st[si];
    }
    npu *u = &s->npus[n];
    if (prev >= 0) {
        int q = prev;
        for (int k = 0; k < u->nact[q]; k++)
            if (u->act[q][k] == si) {
                memmove(u->act[q] + k, u->act[q] + k + 1,
                        sizeof *u->act[q] * (size_t)(u->nact[q] - k - 1));
                u->nact[q]--;
                break;
            }
    }
    if (!left) {
        u->total_running--;
        free_stream(s, si);
        if (prev >= 0) stream_removed(s, n, prev);
        return;
    }
    x->steps++;
    x->cur++;
    x->queue = x->ph[x->cur].dim;
    x->init = 0;
    npus_algo_init(s, x, &x->ph[x->cur], n);
    int q = x->queue;
    insert_stream(s, &u->act[q], &u->nact[q], &u->act_cap[q], si, 0);
    if (prev >= 0) stream_removed(s, n, prev);
    stream_added(s, n, q);
}

static int32_t new_stream(sim *s) {
    int32_t n = s->stp.n, si = npus_take(s, (void **)&s->st, &s->stp, sizeof *s->st);
    if (si == n) memset(&s->st[si], 0, sizeof s->st[si]); /* a new one: no buffer yet */
    return si;
}

/* Sys::generate_collective for node k on NPU n; returns its dataset. */
int32_t npus_generate(sim *s, int32_t n, int32_t k) {
    const th_ck_node *x = &s->g->nodes[k];
    int op = x->coll == TH_COLL_ALLREDUCE       ? OP_AR
             : x->coll == TH_COLL_REDUCESCATTER ? OP_RS
             : x->coll == TH_COLL_ALLGATHER     ? OP_AG
                                                : OP_A2A;
    uint32_t inv = s->cdims[k];
    uint64_t size = (uint64_t)x->size, splits = (uint64_t)s->o->chunks;
    uint64_t chunk = size / splits, total = (uint64_t)s->n;
    if (op != OP_AG && total > chunk) chunk = total, size = splits * chunk;
    uint64_t recommended = chunk;
    if (npus_grow32(s, (void **)&s->ds, s->nds, &s->ds_cap, sizeof *s->ds)) return -1;
    int32_t di = s->nds++;
    s->ds[di] = (dataset){n, k, (int32_t)ceil((double)size / (double)chunk), 0, 1};
    npu *u = &s->npus[n];
    int64_t pri = u->priority++;
    if (n == 0 && s->themis && u->last_sched != s->now) {
        npus_greedy_reset(s);
        u->last_sched = s->now;
    }
    int count = 0, nd = s->nd;
    th_coll_type ct = (th_coll_type)x->coll;
    while (size > 0 && !s->oom) {
        count++;
        int map[TH_MAX_DIMS];
        for (int i = 0; i < nd; i++)
            map[i] = op == OP_AG ? nd - 1 - i : i;
        if (s->themis && op != OP_A2A) {
            uint64_t prev = size;
            npus_greedy(s, s->npus[n].num_streams, &size, recommended, inv, op, map);
            chunk = prev - size;
        } else {
            size = chunk > size ? 0 : size - chunk;
        }
        uint64_t remain = chunk;
        phase ph[2 * TH_MAX_DIMS];
        int nph = 0;
#define ON(i) (s->p[map[i]] > 1 && ((inv >> map[i]) & 1u))
#define ADD(i, o, dr)                                                                              \
    do {                                                                                           \
        int d_ = map[i];                                                                           \
        th_algorithm al_ = th_astra_algorithm(s->sys, ct, d_);                                     \
        uint64_t p_ = (uint64_t)s->p[d_], f_;                                                      \
        int o_ = (o);                                                                              \
        f_ = o_ == OP_RS ? remain / p_ : o_ == OP_AG ? remain * p_ : remain;                       \
        ph[nph++] = (phase){(int8_t)d_,                                                            \
                            (int8_t)o_,                                                            \
                            (int8_t)(al_ == TH_ALG_RHD      ? A_HD                                 \
                                     : al_ == TH_ALG_DIRECT ? A_DIRECT                             \
                                                            : A_RING),                             \
                            (int8_t)(dr),                                                          \
                            remain,                                                                \
                            f_};                                                                   \
        remain = f_;                                                                               \
    } while (0)
        if (op != OP_AR || s->flat) {
            for (int i = 0; i < nd; i++)
                if (ON(i)) ADD(i, op, 1);
        } else if (s->themis) {
            int i = 0;
            for (; i < nd; i++)
                if (ON(i)) ADD(i, OP_RS, 1);
            for (i--; i >= 0; i--)
                if (ON(i)) ADD(i, OP_AG, -1);
        } else {
            int i = 0, last = 0;
            for (i = 0; i < nd; i++)
                if (ON(i)) last = i;
            for (i = 0; i < last; i++)
                if (ON(i)) ADD(i, OP_RS, 1);
            while (i > 0 && !ON(i))
                i--;
            if (ON(i)) ADD(i, OP_AR, 1);
            for (i--; i >= 0; i--)
                if (ON(i)) ADD(i, OP_AG, -1);
        }
#undef ON
#undef ADD
        if (!nph) {
            s->ds[di].active = 0;
            break;
        }
        int32_t si = new_stream(s);
        if (si < 0) return -1;
        stream *st = &s->st[si];
        pkt *q = st->a.q;
        int qcap = st->a.qcap;
        memset(st, 0, sizeof *st);
        st->a.q = q, st->a.qcap = qcap;
        st->npu = n, st->dataset = di, st->tag = s->npus[n].num_streams++, st->priority = pri;
        memcpy(st->ph, ph, sizeof ph[0] * (size_t)nph);
        st->nph = nph, st->cur = -1, st->queue = -1;
        /* insert_into_ready_list, then schedule(): the ready list is empty but for it */
        st->steps = 1;
        st->cur = 0;
        st->queue = st->ph[0].dim;
        npus_algo_init(s, st, &st->ph[0], n);
        u = &s->npus[n];
        u->first_phase++, u->total_running++;
        int q0 = st->queue;
        insert_stream(s, &u->act[q0], &u->nact[q0], &u->act_cap[q0], si, 0);
        stream_added(s, n, q0);
    }
    if (s->ds[di].active) s->ds[di].total = count;
    return di;
}

/* The replay NPU by NPU: streams (one chunk of a collective each), the dims' queues and the
 * generation of a collective's chunks and phases (Sys.cc: generate_collective,
 * insert_stream, proceed_to_next_vnet_baseline, get_priority; StreamBaseline.cc; the
 * scheduler unit). On 1.0 a stream moves on from a phase once every NPU ended it: the last
 * one to end it takes the others on, in the order they ended it (BaseStream's synchronizer);
 * boost mode disables the phases of the rings that do not hold NPU 0. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "npus.h"
#include "themis/collective.h"

static uint64_t phase_key(const npus *s, const stream *x) {
    const phase *ph = &x->ph[x->cur];
    if (s->c.tag) return ph->size; /* the tag compares the initial size alone */
    return ph->size > ph->final ? ph->size : ph->final;
}

/* Sys::insert_stream into queue list (*l, *n), ready_list when ready is set. */
static void insert_stream(npus *s, int32_t **l, int *n, int *cap, int32_t si, int ready_list) {
    stream *x = &s->st[si];
    int at = 0;
    int op = x->ph[x->cur].op;
    if (!s->c.scf || ready_list || op == OP_A2A || op == OP_AR) {
        while (at < *n && (s->st[(*l)[at]].init || s->st[(*l)[at]].priority >= x->priority))
            at++;
    } else if (!s->c.tag && x->nph - x->cur - 1 == 1) {
        at = *n;
    } else {
        uint64_t key = phase_key(s, x);
        while (at < *n && (s->st[(*l)[at]].init || phase_key(s, &s->st[(*l)[at]]) < key))
            at++;
    }
    if (npus_growi(s, (void **)l, *n, cap, sizeof **l)) return;
    memmove(*l + at + 1, *l + at, sizeof **l * (size_t)(*n - at));
    (*l)[at] = si;
    (*n)++;
}

/* StreamBaseline::init: a disabled phase (1.0's boost mode) runs nothing. */
static void init_stream(npus *s, int32_t si) {
    s->st[si].init = 1;
    if (s->st[si].ph[s->st[si].cur].enabled) npus_stream_run(s, si, 99);
}

/* SchedulerUnit::notify_stream_added: starts the first waiting streams of queue q. */
static void stream_added(npus *s, int32_t n, int q) {
    npu *u = &s->npus[n];
    /* a queue that boost mode disables holds no stream, and the removals of its phases count
     * its running streams below 0: std::advance from begin() then lands on end() */
    if (u->running[q] < 0) return;
    for (int k = u->running[q]; k < u->nact[q] && u->running[q] < 1 && !s->oom; k++) {
        u->running[q]++;
        init_stream(s, s->npus[n].act[q][k]);
        u = &s->npus[n];
    }
}

static void stream_removed(npus *s, int32_t n, int q) {
    s->npus[n].running[q]--;
    stream_added(s, n, q);
}

static void free_stream(npus *s, int32_t si) {
    s->st[si].npu = -1;
    npus_put(&s->stp, si);
}

/* ---- 1.0's synchronizer (BaseStream.cc) ---- */

/* The synchronizer of stream number num (stream numbers count from 0 on every NPU alike: an
 * array by number); made when absent and make is set, else NULL. */
static sync_entry *sync_of(npus *s, int64_t num, int make) {
    if (num < s->nsy && s->sy[num].live) return &s->sy[num];
    if (!make || num >= INT32_MAX) return NULL;
    if (num >= s->nsy) {
        int old = s->sy_cap;
        if (npus_growi(s, (void **)&s->sy, (int)num, &s->sy_cap, sizeof *s->sy)) return NULL;
        memset(s->sy + old, 0, sizeof *s->sy * (size_t)(s->sy_cap - old));
        s->nsy = (int)num + 1;
    }
    sync_entry *e = &s->sy[num];
    memset(e, 0, sizeof *e);
    e->num = num, e->live = 1;
    return e;
}

/* BaseStream's constructor: one more NPU made stream number num. */
static void sync_made(npus *s, int64_t num) {
    sync_entry *e = sync_of(s, num, 1);
    if (e) e->sync++;
}

void npus_declare_ready(npus *s, int32_t si) {
    sync_entry *e = sync_of(s, s->st[si].tag, 1);
    if (!e) return;
    if (++e->ready == s->n) e->sync = s->n, e->ready = 0;
}

static void suspend(npus *s, int32_t si) {
    sync_entry *e = sync_of(s, s->st[si].tag, 1);
    if (!e || npus_growi(s, (void **)&e->susp, e->nsusp, &e->susp_cap, sizeof *e->susp)) return;
    e->susp[e->nsusp++] = si;
}

static void proceed_now(npus *s, int32_t si);

/* BaseStream::consume_ready and resume_ready: once every other NPU's stream waits, they all
 * move on, in the order they came; the stream number is dropped after its last phase. */
static void consume_ready(npus *s, int32_t si) {
    int64_t num = s->st[si].tag;
    sync_entry *e = sync_of(s, num, 0);
    if (!e) return;
    e->sync--;
    if (e->nsusp != s->n - 1) return;
    int32_t *list = e->susp;
    int cnt = e->nsusp;
    e->susp = NULL, e->nsusp = 0, e->susp_cap = 0;
    for (int i = 0; i < cnt && !s->oom; i++)
        npus_proceed(s, list[i]);
    free(list);
    if (s->st[si].nph - s->st[si].cur - 1 == 0 && (e = sync_of(s, num, 0))) {
        free(e->susp);
        memset(e, 0, sizeof *e);
    }
}

/* Sys::proceed_to_next_vnet_baseline. */
void npus_proceed(npus *s, int32_t si) {
    if (s->c.version == NPUS_V1) {
        sync_entry *e = sync_of(s, s->st[si].tag, 0);
        if (!e || e->sync <= 0) {
            suspend(s, si);
            return;
        }
        consume_ready(s, si);
    }
    proceed_now(s, si);
}

static void proceed_now(npus *s, int32_t si) {
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
    if (prev >= 0 && (x->cur < 0 || x->ph[x->cur].enabled)) {
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
    int q = x->queue, enabled = x->ph[x->cur].enabled;
    if (enabled) insert_stream(s, &u->act[q], &u->nact[q], &u->act_cap[q], si, 0);
    if (!enabled) { /* 1.0's boost mode: ready at once, waiting for the others */
        npus_declare_ready(s, si);
        suspend(s, si);
    }
    if (prev >= 0) stream_removed(s, n, prev);
    stream_added(s, n, q);
}

static int32_t new_stream(npus *s) {
    int32_t n = s->stp.n, si = npus_take(s, (void **)&s->st, &s->stp, sizeof *s->st);
    if (si == n) memset(&s->st[si], 0, sizeof s->st[si]); /* a new one: no buffer yet */
    return si;
}

/* Sys::get_priority: 2.x's one collective at a time makes it LIFO's counter (LIFO and FIFO
 * give one order); 1.0 by the collective's SchedulingPolicy, the tag's without LIFO/FIFO. */
static int64_t priority(npus *s, npu *u, int prio) {
    if (s->c.version == NPUS_V2) return u->priority++;
    if (prio == NPUS_PRIO_HIGHEST) return 100000000;
    int lifo = s->c.lifo;
    if (!s->c.tag && prio == NPUS_PRIO_LIFO) lifo = 1;
    if (!s->c.tag && prio == NPUS_PRIO_FIFO) lifo = 0;
    return lifo ? u->priority++ : u->priority--;
}

/* 1.0's boost mode: the phase on dim d runs only on the ring of that dim through NPU 0 (every
 * other coordinate 0; RingTopology::is_enabled). */
static int enabled_on(const npus *s, int32_t n, int d) {
    if (s->c.version != NPUS_V1 || !s->c.boost) return 1;
    int64_t c = n / s->stride[d] % s->p[d];
    return n - c * s->stride[d] == 0;
}

/* A phase of operation o on dim d for a chunk of `remain` bytes; its output in *remain. */
static phase make_phase(const npus *s, int32_t n, int type, int d, int o, int dir,
                        uint64_t *remain) {
    uint64_t p = (uint64_t)s->p[d], in = *remain;
    uint64_t f = o == OP_RS ? in / p : o == OP_AG ? in * p : in;
    phase ph = {(int8_t)d,
                (int8_t)o,
                (int8_t)s->c.alg[type][d],
                (int8_t)dir,
                (int8_t)enabled_on(s, n, d),
                s->c.window[type][d],
                in,
                f};
    *remain = f;
    return ph;
}

int32_t npus_dataset(npus *s, int32_t n, int32_t owner, int32_t total) {
    if (npus_grow32(s, (void **)&s->ds, s->nds, &s->ds_cap, sizeof *s->ds)) return -1;
    s->ds[s->nds] = (dataset){n, owner, total, 0, 1};
    return s->nds++;
}

/* Sys::generate_collective for NPU n; returns its dataset. */
int32_t npus_generate(npus *s, int32_t n, int op, uint64_t size, uint32_t inv, int prio,
                      int32_t owner) {
    int v1 = s->c.version == NPUS_V1;
    uint64_t splits = (uint64_t)s->c.splits;
    uint64_t chunk = size / splits, total = (uint64_t)s->n;
    if (!v1 && op != OP_AG && total > chunk) chunk = total, size = splits * chunk;
    uint64_t recommended = chunk;
    int32_t di = npus_dataset(s, n, owner, (int32_t)ceil((double)size / (double)chunk));
    if (di < 0) return -1;
    npu *u = &s->npus[n];
    int64_t pri = priority(s, u, prio);
    if (n == 0 && s->c.themis && u->last_sched != s->now) {
        npus_greedy_reset(s);
        u->last_sched = s->now;
    }
    int type = op == OP_AR   ? TH_COLL_ALLREDUCE
               : op == OP_RS ? TH_COLL_REDUCESCATTER
               : op == OP_AG ? TH_COLL_ALLGATHER
                             : TH_COLL_ALLTOALL;
    int count = 0, nd = s->nd;
    int ag_dir = v1 ? 1 : -1; /* 2.x's All-Gather phases of an All-Reduce take the
                               * anticlockwise queues; 1.0 has one direction per level */
    while (size > 0 && !s->oom) {
        count++;
        if (v1 && chunk > size) chunk = size;
        int map[TH_MAX_DIMS];
        for (int i = 0; i < nd; i++)
            map[i] = op == OP_AG ? nd - 1 - i : i;
        if (s->c.themis && op != OP_A2A) {
            uint64_t prev = size;
            npus_greedy(s, s->npus[n].num_streams, &size, recommended, inv, op, map);
            if (s->wrap_id >= 0) { /* the simulator generates chunks without end */
                if (s->wrap_npu < 0) s->wrap_npu = n;
                break;
            }
            chunk = prev - size;
        } else {
            size = chunk > size ? 0 : size - chunk;
        }
        uint64_t remain = chunk;
        phase ph[2 * TH_MAX_DIMS];
        int nph = 0;
#define ON(i) (s->p[map[i]] > 1 && ((inv >> map[i]) & 1u))
        if (op != OP_AR || s->c.flat) {
            for (int i = 0; i < nd; i++)
                if (ON(i)) ph[nph++] = make_phase(s, n, type, map[i], op, 1, &remain);
        } else if (s->c.themis) {
            int i = 0;
            for (; i < nd; i++)
                if (ON(i)) ph[nph++] = make_phase(s, n, type, map[i], OP_RS, 1, &remain);
            for (i--; i >= 0; i--)
                if (ON(i)) ph[nph++] = make_phase(s, n, type, map[i], OP_AG, ag_dir, &remain);
        } else {
            int i = 0, last = 0;
            for (i = 0; i < nd; i++)
                if (ON(i)) last = i;
            for (i = 0; i < last; i++)
                if (ON(i)) ph[nph++] = make_phase(s, n, type, map[i], OP_RS, 1, &remain);
            while (i > 0 && !ON(i))
                i--;
            if (ON(i)) ph[nph++] = make_phase(s, n, type, map[i], OP_AR, 1, &remain);
            for (i--; i >= 0; i--)
                if (ON(i)) ph[nph++] = make_phase(s, n, type, map[i], OP_AG, ag_dir, &remain);
        }
#undef ON
        if (!nph) {
            s->ds[di].active = 0;
            break;
        }
        int32_t si = new_stream(s);
        if (si < 0) return -1;
        stream *st = &s->st[si];
        pkt *q = st->a.q;
        phase *keep = st->ph;
        int qcap = st->a.qcap, pcap = st->ph_cap;
        memset(st, 0, sizeof *st);
        st->a.q = q, st->a.qcap = qcap, st->ph = keep, st->ph_cap = pcap;
        if (npus_growi(s, (void **)&st->ph, nph - 1, &st->ph_cap, sizeof *st->ph)) return -1;
        st->npu = n, st->dataset = di, st->tag = s->npus[n].num_streams++, st->priority = pri;
        memcpy(st->ph, ph, sizeof ph[0] * (size_t)nph);
        st->nph = nph, st->cur = -1, st->queue = -1;
        if (v1) sync_made(s, st->tag);
        /* insert_into_ready_list, then schedule(): the ready list is empty but for it, and its
         * first phase is ready (its own making counted) */
        if (v1) consume_ready(s, si);
        st = &s->st[si];
        st->steps = 1;
        st->cur = 0;
        st->queue = st->ph[0].dim;
        npus_algo_init(s, st, &st->ph[0], n);
        u = &s->npus[n];
        u->first_phase++, u->total_running++;
        int q0 = st->queue;
        if (st->ph[0].enabled) {
            insert_stream(s, &u->act[q0], &u->nact[q0], &u->act_cap[q0], si, 0);
        } else {
            npus_declare_ready(s, si);
            suspend(s, si);
        }
        stream_added(s, n, q0);
    }
    if (s->ds[di].active) s->ds[di].total = count, u->injected += count;
    return di;
}

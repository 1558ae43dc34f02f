/* The clean model's run of one collective alone (th_emu_run without a trace): the same events
 * in the same order as issue/step (SPEC §6), without their multi-collective bookkeeping.
 * A chunk's stages depend only on its order of dims, so each distinct order (a class) is
 * planned once into a table of (dim, queue bucket, time, bytes); a chunk carries its place in
 * that table. A dim's queue is one ring per bucket: under FIFO one bucket, under SCF one per
 * distinct m on that dim, by ascending m, the non-empty ones in a bit mask. Within a bucket
 * the order is (ready, chunk), which is arrival order but for stages queued at the same
 * instant, put in chunk order by a walk back over the tail's equal ready times. */
#include <math.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#include <stdlib.h>
#include <string.h>

#include "emulate_internal.h"
#include "themis/buf.h"

/* Bounds of the tables; a plan beyond them runs the general path (issue/step). */
#define MAX_CLASSES 1024 /* distinct orders */
#define MAX_BUCKETS 32   /* distinct m on one dim (SCF), one bit each */
#define HASH_SIZE   2048 /* 2 MAX_CLASSES, a power of two */

/* A waiting stage: its chunk and its index in the stage tables. */
typedef struct waiting_stage {
    uint32_t chunk, p;
} waiting_stage;

/* A FIFO e[head], e[(head + 1) & mask] .. up to e[tail] excluded; head == tail when empty,
 * and a slot is always free (mask + 1, a power of two, or 0 before the first push). */
typedef struct ring {
    waiting_stage *e;
    uint32_t head, tail, mask;
} ring;

/* Stage j of a class: where it queues and what it costs. */
typedef struct fast_stage {
    double dur;   /* ns: lh + m (p-1) / (p B) (+ m (p-1) / p / reduce_bw for RS) */
    double bytes; /* one NPU sends, m (p-1) / p */
    uint32_t bit; /* 1 << its bucket on its dim (SCF: the rank of m; the found index first) */
    uint16_t q;   /* its ring: dim * MAX_BUCKETS + bucket */
    uint8_t dim;  /* system dim */
    uint8_t last; /* the chunk's last stage */
} fast_stage;

typedef struct hash_slot {
    uint64_t key; /* the order, 4 bits per dim */
    uint32_t gen; /* the run that filled the slot (empty otherwise) */
    uint32_t cls;
} hash_slot;

struct emu_fast {
    uint32_t *pos; /* per chunk: its class's stage table index of the stage it is at */
    size_t pos_cap;
    fast_stage *st; /* classes x nstages */
    size_t st_cap;
    hash_slot hash[HASH_SIZE];
    uint32_t gen;
    double bm[TH_MAX_DIMS][MAX_BUCKETS]; /* SCF: the distinct m of each dim, found order */
    int nbm[TH_MAX_DIMS];
    ring q[TH_MAX_DIMS * MAX_BUCKETS];
    int dirty; /* the last run did not end: stages may be left in the rings */
};

void emu_fast_free(emu_fast *f) {
    if (!f) return;
    for (int i = 0; i < TH_MAX_DIMS * MAX_BUCKETS; i++)
        free(f->q[i].e);
    free(f->pos);
    free(f->st);
    free(f);
}

static int ring_grow(ring *r) {
    uint32_t cap = r->e ? 2 * (r->mask + 1) : 16, n = 0;
    waiting_stage *e = malloc(sizeof *e * cap);
    if (!e) return -1;
    for (uint32_t i = r->head; i != r->tail; i = (i + 1) & r->mask) /* unwrapped */
        e[n++] = r->e[i];
    free(r->e);
    r->e = e, r->mask = cap - 1, r->head = 0, r->tail = n;
    return 0;
}

/* Queues stage p of chunk c last; -1 when out of memory. */
static inline int ring_push(ring *r, uint32_t c, uint32_t p) {
    if (((r->tail + 1) & r->mask) == r->head && ring_grow(r)) return -1;
    r->e[r->tail] = (waiting_stage){c, p};
    r->tail = (r->tail + 1) & r->mask;
    return 0;
}

/* The class of the order o (n dims): found, or made with its stage table from chunk i's
 * stages; -1 past MAX_CLASSES or MAX_BUCKETS, out of memory, or at a stage time the general
 * path refuses (it makes the error, at the stage it meets first). */
static int class_of(emu_fast *f, const th_emu *emu, const th_plan *plan, int64_t i, int scf,
                    uint32_t *ncls) {
    const uint8_t *o = th_plan_order(plan, i);
    uint64_t key = 0;
    for (int j = 0; j < plan->n; j++)
        key = key << 4 | o[j];
    uint32_t h = (uint32_t)((key * 0x9e3779b97f4a7c15u) >> 53) & (HASH_SIZE - 1);
    while (f->hash[h].gen == f->gen) {
        if (f->hash[h].key == key) return (int)f->hash[h].cls;
        h = (h + 1) & (HASH_SIZE - 1);
    }
    if (*ncls == MAX_CLASSES) return -1;
    uint32_t cls = (*ncls)++, ns = (uint32_t)plan->nstages;
    size_t need = (size_t)(cls + 1) * ns;
    if (f->st_cap < need && th_grow(&f->st, &f->st_cap, need, sizeof *f->st)) return -1;
    f->hash[h] = (hash_slot){key, f->gen, cls};
    for (uint32_t j = 0; j < ns; j++) {
        int d;
        th_op op;
        double m;
        th_plan_stage(plan, i, (int)j, &d, &op, &m);
        double bytes, dur = emu_stage_time(emu, d, op, m, &bytes); /* start()'s doubles */
        if (!(dur >= 0) || !isfinite(dur)) return -1;
        int b = 0;
        if (scf) { /* the index of m among the dim's m found so far; ranked below */
            while (b < f->nbm[d] && f->bm[d][b] != m)
                b++;
            if (b == MAX_BUCKETS) return -1;
            if (b == f->nbm[d]) f->bm[d][f->nbm[d]++] = m;
        }
        f->st[cls * ns + j] = (fast_stage){dur, bytes, (uint32_t)b, 0, (uint8_t)d, j + 1 == ns};
    }
    return (int)cls;
}

/* Each stage's ring; under SCF its bucket from found order to ascending m (each dim's m are
 * distinct). */
static void place(emu_fast *f, int nd, uint32_t nst, int scf) {
    uint8_t rank[TH_MAX_DIMS][MAX_BUCKETS];
    for (int d = 0; scf && d < nd; d++)
        for (int b = 0; b < f->nbm[d]; b++) {
            int r = 0;
            for (int k = 0; k < f->nbm[d]; k++)
                r += f->bm[d][k] < f->bm[d][b];
            rank[d][b] = (uint8_t)r;
        }
    for (uint32_t s = 0; s < nst; s++) {
        fast_stage *x = &f->st[s];
        uint32_t b = scf ? rank[x->dim][x->bit] : 0;
        x->q = (uint16_t)(x->dim * MAX_BUCKETS + b);
        x->bit = 1u << b;
    }
}

/* A run that did not end left stages queued: every ring emptied. */
static void clear(emu_fast *f) {
    for (int i = 0; i < TH_MAX_DIMS * MAX_BUCKETS; i++)
        f->q[i].head = f->q[i].tail = 0;
    f->dirty = 0;
}

static int run(emu_fast *f, th_emu *emu, emu_coll *cr, th_error *err);

int emu_fast_run(th_emu *emu, emu_coll *cr, th_error *err) {
    emu_fast *f = emu->fast;
    if (!f && !(f = emu->fast = calloc(1, sizeof *f))) return EMU_DECLINED;
    if (f->dirty) clear(f);
    int rc = run(f, emu, cr, err);
    f->dirty = rc != TH_OK;
    return rc;
}

/* The earliest of w ends (w a multiple of 2) into *now, and the mask of the ends equal to it:
 * with SSE2 two at a time, branch-free. */
static inline __attribute__((always_inline)) uint32_t earliest(const double *end, const int w,
                                                               double *now) {
#ifdef __SSE2__
    __m128d m = _mm_load_pd(end);
    for (int i = 2; i < w; i += 2)
        m = _mm_min_pd(m, _mm_load_pd(end + i));
    m = _mm_min_sd(m, _mm_unpackhi_pd(m, m));
    *now = _mm_cvtsd_f64(m);
    m = _mm_unpacklo_pd(m, m);
    uint32_t mask = 0;
    for (int i = 0; i < w; i += 2)
        mask |= (uint32_t)_mm_movemask_pd(_mm_cmpeq_pd(_mm_load_pd(end + i), m)) << i;
    return mask;
#else
    double t = end[0];
    for (int i = 1; i < w; i++)
        t = end[i] < t ? end[i] : t;
    uint32_t mask = 0;
    for (int i = 0; i < w; i++)
        mask |= (uint32_t)(end[i] == t) << i;
    *now = t;
    return mask;
#endif
}

/* The events (SPEC §6) from the queued first stages: the dims' arrays w wide (dims nd and up
 * never busy), scf and w constants in each copy (under FIFO a dim has one ring). */

/* The time of the first stage of dim d's queue (the head of its lowest non-empty bucket). */
static inline __attribute__((always_inline)) double
head_dur(const fast_stage *st, const ring *q, const uint32_t *nonempty, uint32_t d, const int scf) {
    const ring *r = &q[d * MAX_BUCKETS + (uint32_t)(scf ? __builtin_ctz(nonempty[d]) : 0)];
    return st[r->e[r->head].p].dur;
}

/* Dim d starts the first stage of its queue (its lowest non-empty bucket's ring) at t. Its
 * time is next[d], kept as the queue changes, so that the end does not wait on the ring. */
static inline __attribute__((always_inline)) void start(const fast_stage *st, ring *q, emu_coll *cr,
                                                        uint32_t *nonempty, uint32_t *waiting,
                                                        double *end, double *next, uint32_t *chunk,
                                                        uint32_t *pos, uint32_t d, double t,
                                                        const int scf) {
    end[d] = t + next[d];
    int b = scf ? __builtin_ctz(nonempty[d]) : 0;
    ring *r = &q[d * MAX_BUCKETS + (uint32_t)b];
    const waiting_stage *x = &r->e[r->head];
    chunk[d] = x->chunk, pos[d] = x->p;
    r->head = (r->head + 1) & r->mask;
    if (r->head == r->tail && (!scf || !(nonempty[d] &= nonempty[d] - 1)))
        *waiting &= ~(1u << d);
    else
        next[d] = head_dur(st, q, nonempty, d, scf);
    const fast_stage *s = &st[pos[d]];
    cr->busy[d] += s->dur; /* one base register for both */
    cr->bytes[d] += s->bytes;
}

/* Stage p (table entry s) of chunk c queues; -1 when out of memory. */
static inline __attribute__((always_inline)) int queue(ring *q, uint32_t *nonempty,
                                                       uint32_t *waiting, double *next,
                                                       const fast_stage *s, uint32_t c, uint32_t p,
                                                       const int scf) {
    if (ring_push(&q[s->q], c, p)) return -1;
    uint32_t d = s->dim;
    /* the queue's first stage when it was empty, or (SCF) when its bucket is below the
     * lowest waiting one */
    if (!(*waiting & 1u << d) || (scf && s->bit < (nonempty[d] & -nonempty[d]))) next[d] = s->dur;
    if (scf) nonempty[d] |= s->bit;
    *waiting |= 1u << d;
    return 0;
}

/* Chunk c's stage p ended: its next stage, if any, queues; -1 when out of memory. */
static inline __attribute__((always_inline)) int next_stage(const fast_stage *st, ring *q,
                                                            uint32_t *nonempty, uint32_t *waiting,
                                                            double *next, uint32_t c, uint32_t p,
                                                            const int scf) {
    if (st[p].last) return 0;
    return queue(q, nonempty, waiting, next, &st[p + 1], c, p + 1, scf);
}

static inline __attribute__((always_inline)) int events(emu_fast *f, th_emu *emu, emu_coll *cr,
                                                        uint32_t *nonempty, uint32_t waiting,
                                                        const int scf, const int w, th_error *err) {
    const fast_stage *st = f->st;
    ring *q = f->q;
    const atomic_int *stop = emu->stop;
    double t = 0.0;
    uint32_t idle = ~0u;                  /* bit d: dim d idle; the bits of dims past nd stay set */
    _Alignas(16) double end[TH_MAX_DIMS]; /* of the stage each dim runs; INFINITY when idle */
    uint32_t chunk[TH_MAX_DIMS], pos[TH_MAX_DIMS]; /* what each dim runs */
    double next[TH_MAX_DIMS]; /* a waiting dim's first queued stage's time, ns */
    for (uint32_t go = waiting; go; go &= go - 1)
        next[__builtin_ctz(go)] = head_dur(st, q, nonempty, (uint32_t)__builtin_ctz(go), scf);
    for (int d = 0; d < w; d++)
        end[d] = INFINITY;
    for (;;) {
        /* every idle dim with a waiting stage starts one, in dim-index order */
        uint32_t go = idle & waiting;
        idle &= ~go;
        for (; go; go &= go - 1)
            start(st, q, cr, nonempty, &waiting, end, next, chunk, pos, (uint32_t)__builtin_ctz(go),
                  t, scf);
        if (idle == ~0u) break;
        if (stop && atomic_load_explicit(stop, memory_order_relaxed))
            return th_error_set(err, TH_EINTERNAL, "interrupted");
        /* the earliest end and the dims ending then (an idle dim's INFINITY is never below a
         * busy one's; an end overflowing to INFINITY is refused after the loop) */
        double now;
        uint32_t ending = earliest(end, w, &now) & ~idle;
        /* Stages queued at one instant wait in chunk order. A second step at the same instant
         * would queue after stages of the first that may have larger chunk indices: the
         * general path orders those (zero or absorbed stage times only). */
        if (now == t) return EMU_DECLINED;
        t = now;
        idle |= ending; /* never 0: a busy dim's end (finite or INFINITY) is the minimum */
        int d0 = __builtin_ctz(ending);
        end[d0] = INFINITY;
        if (!(ending & (ending - 1))) { /* one stage ends: its chunk's next stage queues */
            uint32_t c = chunk[d0], p = pos[d0];
            if (st[p].last) continue;
            const fast_stage *s = &st[p + 1];
            /* The usual case: the next stage queues on another dim, a busy one. Every other
             * idle dim's queue is empty (each took a stage when it could), so the only start
             * now is d0's, from its own queue, which that queueing does not touch: start it
             * first, so that the next end does not wait on the queueing. */
            if (s->dim != (uint32_t)d0 && !(idle & 1u << s->dim) && (waiting & 1u << d0)) {
                start(st, q, cr, nonempty, &waiting, end, next, chunk, pos, (uint32_t)d0, t, scf);
                idle &= ~(1u << d0);
            }
            if (queue(q, nonempty, &waiting, next, s, c, p + 1, scf)) return EMU_DECLINED;
            continue;
        }
        /* several: their chunks' next stages queue in chunk order (each queue's order for
         * stages queued at one instant) */
        int dims[TH_MAX_DIMS], n = 1;
        dims[0] = d0;
        for (ending &= ending - 1; ending; ending &= ending - 1) {
            int d = __builtin_ctz(ending), k = n++;
            end[d] = INFINITY;
            for (; k > 0 && chunk[dims[k - 1]] > chunk[d]; k--)
                dims[k] = dims[k - 1];
            dims[k] = d;
        }
        for (int i = 0; i < n; i++)
            if (next_stage(st, q, nonempty, &waiting, next, chunk[dims[i]], pos[dims[i]], scf))
                return EMU_DECLINED;
    }
    /* a stage end that overflowed: the general path's error, at the stage it meets first */
    if (!isfinite(t)) return EMU_DECLINED;
    cr->end = t;
    return TH_OK;
}

/* One chunk: no stage ever waits, so each starts when the one before it ends, and the
 * events reduce to the stages' times added in order (the same additions as the events). */
static int lone_chunk(th_emu *emu, emu_coll *cr, th_error *err) {
    const th_plan *plan = cr->plan;
    double t = 0.0;
    for (int j = 0; j < plan->nstages; j++) {
        int d;
        th_op op;
        double m;
        th_plan_stage(plan, 0, j, &d, &op, &m);
        double bytes, dur = emu_stage_time(emu, d, op, m, &bytes);
        if (!(dur >= 0) || !isfinite(t + dur)) return EMU_DECLINED;
        /* issue and step look at the stop flag once the first stage runs */
        if (j == 0 && emu->stop && atomic_load_explicit(emu->stop, memory_order_relaxed))
            return th_error_set(err, TH_EINTERNAL, "interrupted");
        t += dur;
        cr->busy[d] += dur;
        cr->bytes[d] += bytes;
    }
    cr->end = t;
    cr->stages = plan->nstages;
    return TH_OK;
}

static int run(emu_fast *f, th_emu *emu, emu_coll *cr, th_error *err) {
    const th_plan *plan = cr->plan;
    size_t chunks = (size_t)plan->chunks;
    if (chunks == 1) return lone_chunk(emu, cr, err);
    if (f->pos_cap < chunks) {
        uint32_t *p = realloc(f->pos, sizeof *p * chunks);
        if (!p) return EMU_DECLINED;
        f->pos = p, f->pos_cap = chunks;
    }
    int nd = emu->sys->ndims, scf = emu->scf;
    uint32_t ns = (uint32_t)plan->nstages, ncls = 0;
    if (++f->gen == 0) { /* the stamps wrapped: every slot empty again */
        memset(f->hash, 0, sizeof f->hash);
        f->gen = 1;
    }
    for (int d = 0; d < nd; d++)
        f->nbm[d] = 0;
    uint32_t *pos = f->pos;
    for (size_t i = 0; i < chunks; i++) { /* every chunk at its stage 0 */
        int cls = class_of(f, emu, plan, (int64_t)i, scf, &ncls);
        if (cls < 0) return EMU_DECLINED;
        pos[i] = (uint32_t)cls * ns;
    }
    place(f, nd, ncls * ns, scf);
    uint32_t nonempty[TH_MAX_DIMS] = {0}; /* per dim, bit b: its bucket b waits */
    uint32_t waiting = 0;                 /* bit d: dim d has a stage waiting */
    for (size_t i = 0; i < chunks; i++) { /* issued at 0 in chunk order */
        const fast_stage *s = &f->st[pos[i]];
        if (ring_push(&f->q[s->q], (uint32_t)i, pos[i])) return EMU_DECLINED;
        nonempty[s->dim] |= s->bit;
        waiting |= 1u << s->dim;
    }
    cr->stages = (int64_t)chunks * ns;
    if (nd <= 4)
        return scf ? events(f, emu, cr, nonempty, waiting, 1, 4, err)
                   : events(f, emu, cr, nonempty, waiting, 0, 4, err);
    return scf ? events(f, emu, cr, nonempty, waiting, 1, TH_MAX_DIMS, err)
               : events(f, emu, cr, nonempty, waiting, 0, TH_MAX_DIMS, err);
}

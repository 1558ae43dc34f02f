/* The clean model's per-dimension queue of ready stages: buckets of equal key, (collective)
 * under FIFO or (collective, m) under SCF, kept in queue order; within a bucket a sorted run
 * by (ready, chunk) popped from its head, which a new stage joins by a short walk back from
 * the tail (stages arrive nearly in order), turned into a binary heap when that walk would be
 * long, until it empties. SCF keys take few values per collective (D/N over products of p),
 * so buckets are few per collective and both operations are O(1) in the usual case; a stage
 * whose bucket is not the last (training keeps hundreds in flight) finds it by binary search. */
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "emulate_internal.h"
#include "themis/buf.h"

/* The longest walk back from a run's tail before the run becomes a heap. */
#define WALK_MAX 8

/* Order within a bucket (same collective, and same m under SCF): (ready, chunk). One
 * collective's chunk waits in at most one entry at a time, so the order is strict. */
static inline int before(const emu_entry *a, const emu_entry *b) {
    if (a->ready != b->ready) return a->ready < b->ready;
    return a->chunk < b->chunk;
}

/* Bucket order: the collective priority (the lower rank: emu_rank), then the smaller m under
 * SCF. */
static inline int bucket_before(uint32_t coll, uint64_t rank, double m, const emu_bucket *b,
                                int scf) {
    if (coll != b->coll) return rank < b->rank;
    return scf && m < b->m;
}

static void heap_push(emu_queue *h, emu_entry x) {
    size_t i = h->n++;
    while (i > 0) {
        size_t parent = (i - 1) / 2;
        if (!before(&x, &h->e[parent])) break;
        h->e[i] = h->e[parent];
        i = parent;
    }
    h->e[i] = x;
}

static emu_entry heap_pop(emu_queue *h) {
    emu_entry top = h->e[0], x = h->e[--h->n];
    size_t i = 0, n = h->n;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n) break;
        if (c + 1 < n && before(&h->e[c + 1], &h->e[c])) c++;
        if (!before(&h->e[c], &x)) break;
        h->e[i] = h->e[c];
        i = c;
    }
    if (n > 0) h->e[i] = x;
    if (n == 0) h->heap = 0;
    return top;
}

int emu_run_push(emu_queue *q, emu_entry x) {
    if (q->n == q->cap) {
        if (q->head > 0) { /* the popped front is free room: slide the run down */
            memmove(q->e, q->e + q->head, (q->n - q->head) * sizeof *q->e);
            q->n -= q->head, q->head = 0;
        } else {
            if (th_grow(&q->e, &q->cap, q->cap + 1, sizeof *q->e)) return -1;
        }
    }
    if (q->heap) {
        heap_push(q, x);
        return 0;
    }
    size_t at = q->n, stop = q->n - q->head > WALK_MAX ? q->n - WALK_MAX : q->head;
    while (at > stop && before(&x, &q->e[at - 1]))
        at--;
    if (at == stop && at > q->head && before(&x, &q->e[at - 1])) {
        /* a sorted run is a valid heap: from here on, heap operations */
        memmove(q->e, q->e + q->head, (q->n - q->head) * sizeof *q->e);
        q->n -= q->head, q->head = 0, q->heap = 1;
        heap_push(q, x);
        return 0;
    }
    if (at < q->n) memmove(q->e + at + 1, q->e + at, (q->n - at) * sizeof *q->e);
    q->e[at] = x;
    q->n++;
    return 0;
}

emu_entry emu_run_pop(emu_queue *q) {
    if (q->heap) return heap_pop(q);
    emu_entry e = q->e[q->head++];
    if (q->head == q->n) q->head = q->n = 0;
    return e;
}

/* Reverses buckets [lo, hi). */
static void reverse(emu_bucket *b, int lo, int hi) {
    for (hi--; lo < hi; lo++, hi--) {
        emu_bucket t = b[lo];
        b[lo] = b[hi], b[hi] = t;
    }
}

/* Makes room for cap + 8 buckets before b, empty runs, so that the next insertions near the
 * front cost the buckets before them: a copy of the queue per that many insertions. */
static int grow_front(emu_squeue *s) {
    size_t room = s->cap + 8;
    if (room > INT_MAX) return -1;
    emu_bucket *nb = calloc(room + s->cap, sizeof *nb);
    if (!nb) return -1;
    memcpy(nb + room, s->b, sizeof *nb * s->cap);
    free(s->b);
    s->b = nb + room, s->gap = (int)room;
    return 0;
}

int emu_queue_push(emu_squeue *s, emu_entry x, uint64_t rank, int scf) {
    /* The place after every bucket the new stage does not go before: most often the end; the
     * buckets are in strict order (ranks are distinct, then m), so a binary search finds it. */
    int i = s->nb;
    if (i > 0 && bucket_before(x.coll, rank, x.m, &s->b[i - 1], scf)) {
        /* the answer is the first of b[0 .. nb - 1] that x goes before (they form a suffix):
         * galloping out from the first waiting bucket, where the stages of the collective
         * served now go (lifo keeps the newest in front), narrows [lo, hi] in O(log) of the
         * distance, then a binary search */
        int lo = 0, hi = i - 1, h = s->len > 0 && s->first < hi ? s->first : hi;
        if (bucket_before(x.coll, rank, x.m, &s->b[h], scf)) {
            for (int step = 1; h - step >= lo; step *= 2) {
                if (!bucket_before(x.coll, rank, x.m, &s->b[h - step], scf)) {
                    lo = h - step + 1;
                    break;
                }
                hi = h - step;
            }
            if (hi > h) hi = h;
        } else {
            lo = h + 1;
            for (int step = 1; h + step < hi; step *= 2) {
                if (bucket_before(x.coll, rank, x.m, &s->b[h + step], scf)) {
                    hi = h + step;
                    break;
                }
                lo = h + step + 1;
            }
        }
        while (lo < hi) {
            int mid = lo + (hi - lo) / 2;
            if (bucket_before(x.coll, rank, x.m, &s->b[mid], scf))
                hi = mid;
            else
                lo = mid + 1;
        }
        i = lo;
    }
    if (i > 0 && s->b[i - 1].coll == x.coll && (!scf || s->b[i - 1].m == x.m)) {
        i--;                       /* the key's bucket, maybe empty */
    } else {                       /* a new bucket at i */
        int front = i < s->nb - i; /* fewer buckets before i than after */
        if (front && s->gap == 0 && s->nb >= 8 && grow_front(s)) return -1;
        emu_queue spare;
        if (front && s->gap > 0) { /* the buckets before i move one place towards the front */
            spare = s->b[-1].q;    /* an empty run whose buffer is reused */
            memmove(s->b - 1, s->b, sizeof *s->b * (size_t)i);
            s->b--, s->gap--, s->cap++;
        } else {
            if ((size_t)s->nb == s->cap) {
                size_t cap = s->cap ? 2 * s->cap : 8;
                emu_bucket *base = s->b ? s->b - s->gap : NULL; /* NULL - 0 is undefined */
                emu_bucket *nb = realloc(base, sizeof *nb * ((size_t)s->gap + cap));
                if (!nb) return -1;
                memset(nb + s->gap + s->cap, 0, sizeof *nb * (cap - s->cap));
                s->b = nb + s->gap, s->cap = cap;
            }
            spare = s->b[s->nb].q; /* an empty run whose buffer is reused */
            if (i < s->nb) memmove(s->b + i + 1, s->b + i, sizeof *s->b * (size_t)(s->nb - i));
        }
        s->b[i] = (emu_bucket){x.coll, rank, x.m, spare};
        s->nb++;
        if (s->first >= i && s->len > 0) s->first++;
    }
    emu_queue *q = &s->b[i].q;
    if (q->cap == 0 && s->nspare > 0) { /* a buffer of an emptied run */
        emu_queue *sp = &s->spare[--s->nspare];
        q->e = sp->e, q->cap = sp->cap;
    }
    if (emu_run_push(q, x)) return -1;
    if (i < s->first || s->len == 0) s->first = i;
    s->len++;
    return 0;
}

emu_entry emu_queue_pop(emu_squeue *s) {
    emu_queue *q = &s->b[s->first].q;
    emu_entry e = emu_run_pop(q);
    s->len--;
    if (q->n > 0) return e;
    if (q->cap > EMU_SPARE_MAX) { /* freed: peak memory is the peak of the live entries */
        free(q->e);
        q->e = NULL, q->cap = 0;
    }
    if (s->len == 0) { /* every bucket is empty: all are spares again */
        s->nb = s->first = 0;
        return e;
    }
    if (q->cap > 0 && (s->nspare < s->spare_cap ||
                       th_grow(&s->spare, &s->spare_cap, s->nspare + 1, sizeof *s->spare) == 0)) {
        s->spare[s->nspare++] = *q; /* its buffer serves the next new bucket */
        q->e = NULL, q->cap = 0;
    }
    /* the emptied bucket stays, for its key's next stages; the first waiting one is further */
    while (s->b[s->first].q.n == 0)
        s->first++;
    if (s->first >= 8 && 2 * s->first >= s->nb) { /* the empty front moves to the spares */
        reverse(s->b, 0, s->first);
        reverse(s->b, s->first, s->nb);
        reverse(s->b, 0, s->nb);
        s->nb -= s->first;
        s->first = 0;
    }
    return e;
}

void emu_queue_clear(emu_squeue *s) {
    for (int i = 0; i < s->nb; i++)
        s->b[i].q.n = s->b[i].q.head = 0, s->b[i].q.heap = 0;
    s->nb = s->first = 0;
    s->len = 0;
}

void emu_queue_free(emu_squeue *s) {
    for (ptrdiff_t i = -(ptrdiff_t)s->gap; i < (ptrdiff_t)s->cap; i++)
        free(s->b[i].q.e);
    free(s->b ? s->b - s->gap : NULL);
    s->b = NULL;
    for (size_t i = 0; i < s->nspare; i++)
        free(s->spare[i].e);
    free(s->spare);
    s->spare = NULL, s->nspare = s->spare_cap = 0;
    s->nb = s->gap = 0, s->cap = 0;
}

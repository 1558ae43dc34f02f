/* The replay NPU by NPU: the analytical backend's event queue (EventQueue.cpp of either
 * backend: a list of events per time, each in the order scheduled; one due at the current ns
 * joins the list being run) and each NPU's events by tick (Sys::try_register_event,
 * Sys::call_events: the first registration for a tick schedules the NPU's call of them all, in
 * registration order); the pools behind them. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "npus.h"
#include "themis/buf.h"

/* An entry of a pool's array: a free one, else a new one at its end (the array and its free
 * links grown); -1 when out of memory. */
int32_t npus_take(npus *s, void **arr, npool *p, size_t elem) {
    if (p->free1) {
        int32_t i = p->free1 - 1;
        p->free1 = p->next[i];
        return i;
    }
    int32_t cap = p->cap;
    if (npus_grow32(s, arr, p->n, &p->cap, elem)) return -1;
    if (p->cap != cap) {
        int32_t *nx = realloc(p->next, sizeof *nx * (size_t)p->cap);
        if (!nx) {
            s->oom = 1;
            return -1;
        }
        p->next = nx;
    }
    return p->n++;
}

void npus_put(npool *p, int32_t i) {
    p->next[i] = p->free1, p->free1 = i + 1;
}

/* A delay of ns (whole) as a tick count; 0 and too_long set when the replay's time would pass
 * NPUS_MAX_NS with it. */
int64_t npus_ns(npus *s, double ns) {
    if (!(ns >= 0 && (double)s->now + ns < NPUS_MAX_NS)) {
        s->too_long = 1;
        return 0;
    }
    return (int64_t)ns;
}

/* th_grow wants size_t capacities; the pools keep int32_t ones. */
int npus_grow32(npus *s, void **arr, int32_t n, int32_t *cap, size_t elem) {
    if (n < *cap) return 0;
    size_t c = (size_t)*cap;
    if (th_grow(arr, &c, (size_t)n + 1, elem)) return s->oom = 1;
    *cap = (int32_t)c;
    return 0;
}
int npus_growi(npus *s, void **arr, int n, int *cap, size_t elem) {
    if (n < *cap) return 0;
    size_t c = (size_t)*cap;
    if (th_grow(arr, &c, (size_t)n + 1, elem)) return s->oom = 1;
    *cap = (int)c;
    return 0;
}

/* The bucket of time t (its index), made and put on the heap of times when make is set; -1
 * when absent (or out of memory). The times' table is open addressing on t. */
static int32_t bucket_of(npus *s, int64_t t, int make) {
    if (make && 2 * (s->nbk + 1) > (int32_t)s->bmap_cap) {
        size_t cap = s->bmap_cap ? 2 * s->bmap_cap : 256;
        int32_t *m = malloc(sizeof *m * cap);
        if (!m) {
            s->oom = 1;
            return -1;
        }
        for (size_t i = 0; i < cap; i++)
            m[i] = -1;
        for (size_t i = 0; i < s->bmap_cap; i++)
            if (s->bmap[i] >= 0) {
                size_t j =
                    ((uint64_t)s->bk[s->bmap[i]].t * 0x9e3779b97f4a7c15ull >> 17) & (cap - 1);
                while (m[j] >= 0)
                    j = (j + 1) & (cap - 1);
                m[j] = s->bmap[i];
            }
        free(s->bmap);
        s->bmap = m, s->bmap_cap = cap;
    }
    if (!s->bmap_cap) return -1;
    size_t mask = s->bmap_cap - 1, j = ((uint64_t)t * 0x9e3779b97f4a7c15ull >> 17) & mask;
    for (; s->bmap[j] >= 0; j = (j + 1) & mask)
        if (s->bk[s->bmap[j]].t == t) return s->bmap[j];
    if (!make) return -1;
    int32_t b = npus_take(s, (void **)&s->bk, &s->bkp, sizeof *s->bk);
    if (b < 0) return -1;
    s->bk[b] = (tbucket){t, -1, -1};
    s->bmap[j] = b;
    s->nbk++;
    if (s->ntimes == s->times_cap &&
        th_grow(&s->times, &s->times_cap, s->ntimes + 1, sizeof *s->times)) {
        s->oom = 1;
        return -1;
    }
    size_t i = s->ntimes++; /* sift the new time up the heap */
    while (i > 0 && s->bk[s->times[(i - 1) / 2]].t > t) {
        s->times[i] = s->times[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    s->times[i] = b;
    return b;
}

/* Drops the earliest time (its bucket empty) from the heap and the table. */
static void drop_earliest(npus *s) {
    int32_t b = s->times[0], x = s->times[--s->ntimes];
    size_t i = 0, n = s->ntimes;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n) break;
        if (c + 1 < n && s->bk[s->times[c + 1]].t < s->bk[s->times[c]].t) c++;
        if (s->bk[s->times[c]].t >= s->bk[x].t) break;
        s->times[i] = s->times[c];
        i = c;
    }
    if (n) s->times[i] = x;
    size_t mask = s->bmap_cap - 1, j = ((uint64_t)s->bk[b].t * 0x9e3779b97f4a7c15ull >> 17) & mask;
    while (s->bmap[j] != b)
        j = (j + 1) & mask;
    s->bmap[j] = -1; /* backward-shift deletion */
    for (size_t k = (j + 1) & mask; s->bmap[k] >= 0; k = (k + 1) & mask) {
        size_t h = ((uint64_t)s->bk[s->bmap[k]].t * 0x9e3779b97f4a7c15ull >> 17) & mask;
        if ((k > j && (h <= j || h > k)) || (k < j && h <= j && h > k)) {
            s->bmap[j] = s->bmap[k];
            s->bmap[k] = -1;
            j = k;
        }
    }
    npus_put(&s->bkp, b);
    s->nbk--;
}

void npus_schedule(npus *s, int64_t t, int kind, int32_t a) {
    int32_t b = bucket_of(s, t, 1);
    if (b < 0) return;
    int32_t e = npus_take(s, (void **)&s->gq, &s->gqp, sizeof *s->gq);
    if (e < 0) return;
    s->gq[e] = (gev){-1, kind, a};
    if (s->bk[b].tail >= 0)
        s->gq[s->bk[b].tail].next = e;
    else
        s->bk[b].head = e;
    s->bk[b].tail = e;
}

/* The next event into *x (its time in s->now); 0 when none is left. */
int npus_pop_event(npus *s, gev *x) {
    while (s->ntimes) {
        tbucket *b = &s->bk[s->times[0]];
        if (b->head < 0) {
            drop_earliest(s);
            continue;
        }
        int32_t e = b->head;
        *x = s->gq[e];
        s->now = b->t;
        b->head = s->gq[e].next;
        if (b->head < 0) b->tail = -1;
        npus_put(&s->gqp, e);
        return 1;
    }
    return 0;
}

void npus_register(npus *s, int32_t n, int callee, int ev, int32_t obj, int32_t data,
                   int64_t delay) {
    npu *u = &s->npus[n];
    int64_t t = s->now + delay;
    int k = 0;
    while (k < u->nslots && u->slots[k].t != t)
        k++;
    if (k == u->nslots) {
        if (npus_growi(s, (void **)&u->slots, u->nslots, &u->slots_cap, sizeof *u->slots)) return;
        u->slots[u->nslots++] = (slot){t, -1, -1};
        npus_schedule(s, t, G_CALL, n);
    }
    int32_t e = npus_take(s, (void **)&s->ev, &s->evp, sizeof *s->ev);
    if (e < 0) return;
    s->ev[e] = (lev){-1, (uint8_t)callee, (uint8_t)ev, obj, data};
    slot *sl = &u->slots[k];
    if (sl->tail >= 0)
        s->ev[sl->tail].next = e;
    else
        sl->head = e;
    sl->tail = e;
}

void npus_call_events(npus *s, int32_t n) {
    npu *u = &s->npus[n];
    u->last = s->now;
    int k = 0;
    while (k < u->nslots && u->slots[k].t != s->now)
        k++;
    if (k == u->nslots) return;
    /* slot k stays where it is: registrations meanwhile append slots or events to it */
    for (int32_t e = u->slots[k].head; e >= 0 && !s->oom;) {
        lev x = s->ev[e];
        npus_dispatch(s, n, x.callee, x.ev, x.obj, x.data);
        int32_t next = s->ev[e].next;
        npus_put(&s->evp, e);
        e = next;
    }
    u->slots[k] = u->slots[--u->nslots];
}

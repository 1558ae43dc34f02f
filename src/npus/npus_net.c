/* The replay NPU by NPU: messages through the analytical backend (2.x's
 * CongestionUnawareNetworkApi, CommonNetworkApi, CallbackTracker, ChunkIdGenerator; 1.0's
 * AnalyticalNetwork, SendRecvTrackingMap): a send's arrival after its time on the network (the
 * preset's message time), matched with its receive. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "npus.h"

/* The callback tracker (CallbackTracker.cc, ChunkIdGenerator.cc).
 *
 * ASTRA-sim numbers the sends and the receives of each (tag, src, dst, bytes) from 1 and
 * matches send k with receive k. Messages of one key take the same time, so they arrive in the
 * order they were sent: send k is the k-th to arrive. One entry per key counts the sends, the
 * arrivals and the receives posted, and queues the receives posted before their message
 * arrived; it is dropped once every send found its receive (both numberings then restart from
 * 1 alike, which matches the same pairs). */

static uint64_t mhash(const mkey *k) { /* splitmix64's finalizer over the key's words */
    uint64_t h = (uint64_t)k->tag * 0x9e3779b97f4a7c15ull ^ k->count;
    h ^= ((uint64_t)(uint32_t)k->src << 32 | (uint32_t)k->dst) * 0xd6e8feb86659fd93ull;
    h ^= h >> 30;
    h *= 0xbf58476d1ce4e5b9ull;
    h ^= h >> 27;
    h *= 0x94d049bb133111ebull;
    return h ^ (h >> 31);
}

static int mkey_eq(const mkey *a, const mkey *b) {
    return a->tag == b->tag && a->count == b->count && a->src == b->src && a->dst == b->dst;
}

static int tab_rehash(npus *s, size_t cap) {
    mentry *old = s->tab;
    size_t oc = s->tab_cap;
    s->tab = calloc(cap, sizeof *s->tab);
    if (!s->tab) {
        s->tab = old;
        return s->oom = 1;
    }
    s->tab_cap = cap;
    for (size_t i = 0; i < oc; i++)
        if (old[i].used) {
            size_t j = mhash(&old[i].k) & (cap - 1);
            while (s->tab[j].used)
                j = (j + 1) & (cap - 1);
            s->tab[j] = old[i];
        }
    free(old);
    return 0;
}

/* The entry of key k; made (zeroed) when absent and make is set; NULL when absent. */
static mentry *tab_get(npus *s, const mkey *k, int make) {
    if (make && 2 * (s->tab_n + 1) > s->tab_cap &&
        tab_rehash(s, s->tab_cap ? 2 * s->tab_cap : 1024))
        return NULL;
    if (!s->tab_cap) return NULL;
    size_t j = mhash(k) & (s->tab_cap - 1);
    while (s->tab[j].used) {
        if (mkey_eq(&s->tab[j].k, k)) return &s->tab[j];
        j = (j + 1) & (s->tab_cap - 1);
    }
    if (!make) return NULL;
    memset(&s->tab[j], 0, sizeof s->tab[j]);
    s->tab[j].used = 1, s->tab[j].k = *k, s->tab[j].head = s->tab[j].tail = -1;
    s->tab_n++;
    return &s->tab[j];
}

/* Drops entry e (backward-shift deletion). */
static void tab_del(npus *s, mentry *e) {
    size_t m = s->tab_cap - 1, i = (size_t)(e - s->tab), j = i;
    s->tab[i].used = 0;
    s->tab_n--;
    for (;;) {
        j = (j + 1) & m;
        if (!s->tab[j].used) return;
        size_t h = mhash(&s->tab[j].k) & m;
        if ((j > i && (h <= i || h > j)) || (j < i && (h <= i && h > j))) {
            s->tab[i] = s->tab[j];
            s->tab[j].used = 0;
            i = j;
        }
    }
}

/* Drops entry e when every send found its receive. */
static void tab_settle(npus *s, mentry *e) {
    if (e->sends == e->recvs && e->arrived == e->sends) tab_del(s, e);
}

/* 1.0's analytical backend (AnalyticalNetwork.cc, SendRecvTrackingMap.cc): one entry per key,
 * a send or a receive waiting for its other half (a second one of a key while the first waits
 * is lost: std::map::emplace keeps the first). A send whose receive waits schedules the
 * receive's callback at its arrival; a receive whose send went first schedules it at that
 * send's arrival, or at once. */
static void send_v1(npus *s, const mkey *k, int64_t t) {
    mentry *e = tab_get(s, k, 1);
    if (!e) return;
    if (e->recvs) {
        int32_t si = e->head;
        tab_del(s, e);
        npus_schedule(s, t, G_RECV, si);
        return;
    }
    if (!e->sends) e->sends = 1, e->sent_at = t;
}

static void recv_v1(npus *s, const mkey *k, int32_t si) {
    mentry *e = tab_get(s, k, 1);
    if (!e) return;
    if (e->sends) {
        int64_t t = e->sent_at;
        tab_del(s, e);
        npus_schedule(s, t > s->now ? t : s->now, G_RECV, si);
        return;
    }
    if (!e->recvs) e->recvs = 1, e->head = si;
}

/* CongestionUnawareNetworkApi::sim_send: a collective's message from src (its stream's tag). */
void npus_send(npus *s, int64_t tag, int32_t src, int32_t dst, uint64_t count) {
    if (!count && s->c.version == NPUS_V2 && s->zero_at < 0) s->zero_at = s->now;
    mkey k = {tag, count, src, dst};
    double ns = s->c.message(s->c.net ? s->c.net : s->sys, src, dst, (double)count);
    if (s->c.version == NPUS_V1) {
        send_v1(s, &k, s->now + npus_ns(s, ns));
        return;
    }
    mentry *e = tab_get(s, &k, 1);
    if (!e) return;
    e->sends++;
    int32_t m = npus_take(s, (void **)&s->msgs, &s->msgp, sizeof *s->msgs);
    if (m < 0) return;
    s->msgs[m] = k;
    npus_schedule(s, s->now + npus_ns(s, ns), G_ARRIVE, m);
}

/* CommonNetworkApi::sim_recv: stream si of NPU dst waits for a message from src. */
void npus_recv(npus *s, int64_t tag, int32_t src, int32_t dst, uint64_t count, int32_t si) {
    mkey k = {tag, count, src, dst};
    if (s->c.version == NPUS_V1) {
        recv_v1(s, &k, si);
        return;
    }
    mentry *e = tab_get(s, &k, 1);
    if (!e) return;
    e->recvs++;
    if (e->recvs <= e->arrived) { /* arrived before: its callback runs at once, scheduled */
        tab_settle(s, e);
        npus_schedule(s, s->now, G_RECV, si);
        return;
    }
    int32_t w = npus_take(s, (void **)&s->waits, &s->waitp, sizeof *s->waits);
    if (w < 0) return;
    s->waits[w] = (waiter){si, -1};
    if (e->tail >= 0)
        s->waits[e->tail].next = w;
    else
        e->head = w;
    e->tail = w;
}

/* CommonNetworkApi::process_chunk_arrival: the message's receive runs when posted, else the
 * message waits for it. */
void npus_arrive(npus *s, int32_t m) {
    mkey k = s->msgs[m];
    npus_put(&s->msgp, m);
    mentry *e = tab_get(s, &k, 0);
    if (!e) {
        s->oom = 1; /* a broken invariant: every message has its entry */
        return;
    }
    e->arrived++;
    if (e->head < 0) return;
    int32_t w = e->head, si = s->waits[w].stream;
    e->head = s->waits[w].next;
    if (e->head < 0) e->tail = -1;
    npus_put(&s->waitp, w);
    tab_settle(s, e);
    npus_stream_run(s, si, -1);
}

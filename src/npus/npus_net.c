/* The replay NPU by NPU: messages through the analytical backend (2.x's
 * CongestionUnawareNetworkApi, CommonNetworkApi, CallbackTracker, ChunkIdGenerator; 1.0's
 * AnalyticalNetwork, SendRecvTrackingMap): a send's arrival after its time on the network (the
 * preset's message time), matched with its receive; on 2.x the workload's point-to-point
 * sends and receives too (Sys::front_end_sim_send, NATIVE tags), whose ends it reports to the
 * workload layer. */
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

/* CongestionUnawareNetworkApi::sim_send: a message of key k (the send node `node` of the
 * workload's point-to-point message, -1: a collective's) arrives after its time. */
static void send_v2(npus *s, const mkey *k, int32_t node) {
    if (!k->count && s->zero_at < 0) s->zero_at = s->now;
    double ns = s->c.message(s->c.net ? s->c.net : s->sys, k->src, k->dst, (double)k->count);
    mentry *e = tab_get(s, k, 1);
    if (!e) return;
    e->sends++;
    int32_t m = npus_take(s, (void **)&s->msgs, &s->msgp, sizeof *s->msgs);
    if (m < 0) return;
    s->msgs[m] = (nmsg){*k, node};
    npus_schedule(s, s->now + npus_ns(s, ns), G_ARRIVE, m);
}

/* CommonNetworkApi::sim_recv: waiter w (a stream, or -2 - node: the workload's receive node)
 * waits for a message of key k; one that arrived before runs its callback at once, scheduled
 * (G_RECV with a stream, G_P2P with the message's record). */
static void recv_v2(npus *s, const mkey *k, int32_t w) {
    mentry *e = tab_get(s, k, 1);
    if (!e) return;
    e->recvs++;
    if (e->recvs <= e->arrived) {
        tab_settle(s, e);
        if (w >= 0) {
            npus_schedule(s, s->now, G_RECV, w);
            return;
        }
        int32_t m = npus_take(s, (void **)&s->msgs, &s->msgp, sizeof *s->msgs);
        if (m < 0) return;
        s->msgs[m] = (nmsg){*k, -2 - w};
        npus_schedule(s, s->now, G_P2P, m);
        return;
    }
    int32_t q = npus_take(s, (void **)&s->waits, &s->waitp, sizeof *s->waits);
    if (q < 0) return;
    s->waits[q] = (waiter){w, -1};
    if (e->tail >= 0)
        s->waits[e->tail].next = q;
    else
        e->head = q;
    e->tail = q;
}

/* A collective's message from src, its stream's tag. */
void npus_send(npus *s, int64_t tag, int32_t src, int32_t dst, uint64_t count) {
    mkey k = {tag, count, src, dst};
    if (s->c.version == NPUS_V1) {
        double ns = s->c.message(s->c.net ? s->c.net : s->sys, src, dst, (double)count);
        send_v1(s, &k, s->now + npus_ns(s, ns));
        return;
    }
    send_v2(s, &k, -1);
}

/* Stream si of NPU dst waits for a collective's message from src. */
void npus_recv(npus *s, int64_t tag, int32_t src, int32_t dst, uint64_t count, int32_t si) {
    mkey k = {tag, count, src, dst};
    if (s->c.version == NPUS_V1) {
        recv_v1(s, &k, si);
        return;
    }
    recv_v2(s, &k, si);
}

/* Sys::front_end_sim_send's NATIVE tag, tag % 500000000 (C's remainder, as C++'s): a key below
 * every collective's (their stream numbers, from 0), as ASTRA-sim's ranges keep them apart. */
static int64_t native(int64_t tag) {
    return (int64_t)(int32_t)(uint32_t)tag % 500000000 - 1000000000;
}

void npus_p2p_send(npus *s, int64_t tag, int32_t src, int32_t dst, uint64_t count, int32_t node) {
    mkey k = {native(tag), count, src, dst};
    send_v2(s, &k, node);
}

void npus_p2p_recv(npus *s, int64_t tag, int32_t src, int32_t dst, uint64_t count, int32_t node) {
    mkey k = {native(tag), count, src, dst};
    recv_v2(s, &k, -2 - node);
}

/* A receive node's callback scheduled at once (its message had arrived). */
void npus_p2p_received(npus *s, int32_t m) {
    nmsg x = s->msgs[m];
    npus_put(&s->msgp, m);
    s->c.work(s, x.k.dst, E_GENERAL, -1, x.node);
}

/* CommonNetworkApi::process_chunk_arrival: the send's callback (a point-to-point send node's
 * end; a collective's does nothing), then the receive's when posted, else the message waits
 * for it. The tracker is settled first: the callbacks may post messages of the same key. */
void npus_arrive(npus *s, int32_t m) {
    nmsg x = s->msgs[m];
    npus_put(&s->msgp, m);
    mentry *e = tab_get(s, &x.k, 0);
    if (!e) {
        s->oom = 1; /* a broken invariant: every message has its entry */
        return;
    }
    e->arrived++;
    int32_t w = -1;
    if (e->head >= 0) {
        int32_t q = e->head;
        w = s->waits[q].stream;
        e->head = s->waits[q].next;
        if (e->head < 0) e->tail = -1;
        npus_put(&s->waitp, q);
        tab_settle(s, e);
    }
    if (x.node >= 0) s->c.work(s, x.k.src, E_GENERAL, -1, x.node);
    if (w >= 0)
        npus_stream_run(s, w, -1);
    else if (w < -1)
        s->c.work(s, x.k.dst, E_GENERAL, -1, -2 - w);
}

/* The replay NPU by NPU: the collective algorithms each phase runs (Ring.cc, AllToAll.cc for
 * direct, HalvingDoubling.cc) with their packets handed to and from the network through the
 * memory bus (PacketBundle.cc, MemBus.cc: the endpoint delay; reductions at local-mem-bw on
 * 2.x, 500000 bytes per ns on 1.0). On 1.0 a phase that boost mode disables sends nothing,
 * and every phase's end declares its stream ready (Algorithm::exit, BaseStream). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "npus.h"

/* The NPU `steps` places from NPU x along its ring on dim d. */
static int32_t ring_step(const npus *s, int d, int32_t x, int steps) {
    int64_t st = s->stride[d], p = s->p[d], c = x / st % p;
    int64_t c2 = ((c + steps) % p + p) % p;
    return (int32_t)(x + (c2 - c) * st);
}

static int log2i(int p) {
    int l = 0;
    while ((1 << l) < p)
        l++;
    return l;
}

void npus_algo_init(npus *s, stream *x, const phase *ph, int32_t id) {
    algo *a = &x->a;
    pkt *q = a->q;
    int qcap = a->qcap;
    memset(a, 0, sizeof *a);
    a->q = q, a->qcap = qcap;
    int d = ph->dim, p = s->p[d];
    a->kind = ph->alg, a->op = ph->op, a->p = p, a->id = id, a->dir = ph->dir;
    a->enabled = ph->enabled;
    a->stride = s->stride[d], a->idx = (int)(id / s->stride[d] % p);
    a->rem_msg = a->rem_max = 1;
    uint64_t size = ph->size;
    if (a->kind == A_HD) {
        int l = log2i(p);
        a->parallel = 1;
        a->stream_count = ph->op == OP_AR ? 2 * l : l;
        a->max_count = ph->op == OP_AG ? 0 : l;
        if (ph->op == OP_AG)
            a->msg = size, a->rank_offset = p / 2, a->mult = 0.5;
        else
            a->msg = size / 2, a->rank_offset = 1, a->mult = 2;
        int dir = a->rank_offset == 0 || (a->idx / a->rank_offset) % 2 == 0 ? 1 : -1;
        a->recv_to = ring_step(s, d, id, dir * a->rank_offset);
        a->send_from = a->recv_to;
        return;
    }
    a->recv_to = ring_step(s, d, id, a->dir);
    a->send_from = ring_step(s, d, id, -a->dir);
    a->parallel = 1;
    a->stream_count = ph->op == OP_AR ? 2 * (p - 1) : ph->op == OP_A2A ? (p - 1) * p / 2 : p - 1;
    a->max_count = ph->op == OP_A2A || ph->op == OP_AG ? 0 : p - 1;
    a->msg = ph->op == OP_AG ? size : size / (uint64_t)p;
    if (a->kind == A_DIRECT) {
        a->middle = p - 1;
        a->parallel = ph->window > 0 && ph->window < p - 1 ? ph->window : p - 1;
        if (ph->op == OP_A2A) a->stream_count = p - 1;
    }
}

static int nonzero_packets(const algo *a) {
    if (a->kind == A_HD) return log2i(a->p) - a->parallel;
    if (a->kind == A_DIRECT) return a->parallel;
    return (a->p - 1) * a->parallel;
}

/* Ring::release_packets: one PacketBundle to the memory side (NPU_to_MA) or back. */
static void release_packets(npus *s, int32_t si) {
    stream *x = &s->st[si];
    algo *a = &x->a;
    int32_t b = npus_take(s, (void **)&s->bd, &s->bdp, sizeof *s->bd);
    if (b < 0) return;
    s->bd[b] = (bundle){x->npu, si, a->processed, a->msg};
    npus_register(s, x->npu, C_BUNDLE, a->to_ma ? E_TO_MA : E_TO_NPU, b, 0, npus_ns(s, s->c.ep));
}

static void process_max_count(npus *s, int32_t si) {
    algo *a = &s->st[si].a;
    if (a->rem_max > 0) a->rem_max--;
    if (a->rem_max) return;
    a->max_count--;
    release_packets(s, si);
    a = &s->st[si].a;
    a->rem_max = 1;
    if (a->kind == A_DIRECT) {
        int d = s->st[si].ph[s->st[si].cur].dim;
        a->recv_to = ring_step(s, d, a->recv_to, a->dir);
        if (a->recv_to == a->id) a->recv_to = ring_step(s, d, a->recv_to, a->dir);
        a->send_from = ring_step(s, d, a->send_from, -a->dir);
        if (a->send_from == a->id) a->send_from = ring_step(s, d, a->send_from, -a->dir);
    } else if (a->kind == A_HD) {
        int d = s->st[si].ph[s->st[si].cur].dim;
        a->rank_offset = (int)(a->rank_offset * a->mult);
        a->msg = (uint64_t)((double)a->msg / a->mult);
        if (a->rank_offset == a->p && a->op == OP_AR) {
            a->mult = 0.5;
            a->rank_offset = (int)(a->rank_offset * a->mult);
            a->msg = (uint64_t)((double)a->msg / a->mult);
        }
        int dir = a->rank_offset == 0 || (a->idx / a->rank_offset) % 2 == 0 ? 1 : -1;
        a->recv_to = ring_step(s, d, a->id, dir * a->rank_offset);
        a->send_from = a->recv_to;
    }
}

static void insert_packet(npus *s, int32_t si) {
    algo *a = &s->st[si].a;
    if (!a->enabled) return;
    if (!a->zero && !a->nonzero) {
        a->zero = a->parallel;
        a->nonzero = nonzero_packets(a);
        a->toggle = !a->toggle;
    }
    if (!a->zero && !a->nonzero) {
        s->oom = 1; /* ASTRA-sim panics: "should not inject nothing!" */
        return;
    }
    if (a->qh + a->qn == a->qcap) {
        if (a->qh) {
            memmove(a->q, a->q + a->qh, sizeof *a->q * (size_t)a->qn);
            a->qh = 0;
        } else if (npus_growi(s, (void **)&a->q, a->qn, &a->qcap, sizeof *a->q)) {
            return;
        }
    }
    a->q[a->qh + a->qn++] = (pkt){a->recv_to, a->send_from, a->msg};
    if (a->zero > 0) {
        a->processed = 0, a->send_back = 0, a->to_ma = 1;
        process_max_count(s, si);
        s->st[si].a.zero--;
        return;
    }
    a->processed = a->op == OP_RS || (a->op == OP_AR && a->toggle);
    a->send_back = a->nonzero > a->parallel;
    a->to_ma = 0;
    process_max_count(s, si);
    s->st[si].a.nonzero--;
}

/* Ring::ready: sends the first packet and waits for the one from its sender. */
static int ready(npus *s, int32_t si) {
    stream *x = &s->st[si];
    algo *a = &x->a;
    if (!a->enabled || !a->qn || !a->stream_count || !a->free_packets) return 0;
    pkt k = a->q[a->qh];
    uint64_t size = a->kind == A_HD ? k.size : a->msg;
    npus_send(s, x->tag, x->npu, k.dest, size);
    npus_recv(s, x->tag, k.src, x->npu, size, si);
    a = &s->st[si].a;
    if (a->rem_msg > 0) a->rem_msg--;
    if (!a->rem_msg && a->stream_count > 0) {
        a->stream_count--;
        if (a->stream_count > 0) a->rem_msg = 1;
    }
    a->qh++, a->qn--;
    a->free_packets--;
    a->sent++;
    return 1;
}

/* Ring::iteratable: 1 while the phase goes on; else it leaves (the stream may be gone). */
static int iteratable(npus *s, int32_t si) {
    algo *a = &s->st[si].a;
    if (a->stream_count == 0 && a->free_packets == a->parallel) {
        a->qh = a->qn = 0;
        if (s->c.version == NPUS_V1) npus_declare_ready(s, si);
        npus_proceed(s, si);
        return 0;
    }
    return 1;
}

/* Algorithm::run: ev -1 PacketReceived, E_GENERAL, or 99 StreamInit. */
void npus_stream_run(npus *s, int32_t si, int ev) {
    algo *a = &s->st[si].a;
    if (ev == 99) {
        for (int i = 0, n = a->parallel; i < n && !s->oom; i++)
            insert_packet(s, si);
        return;
    }
    if (ev < 0) {
        a->received++;
        insert_packet(s, si);
        return;
    }
    a->free_packets++;
    if (a->kind == A_DIRECT && a->op == OP_AR && a->stream_count <= a->middle) {
        if (a->received < a->middle) return;
        for (int i = 0, n = a->parallel; i < n; i++)
            ready(s, si);
        iteratable(s, si);
        return;
    }
    ready(s, si);
    iteratable(s, si);
}

/* PacketBundle::call. */
void npus_bundle_call(npus *s, int32_t b) {
    bundle *x = &s->bd[b];
    if (x->processing) {
        x->processing = 0;
        double part = s->c.version == NPUS_V1 ? floor((double)x->size / 500000.0)
                                              : floor((double)x->size / s->c.mem_bw * 1e9);
        npus_register(s, x->npu, C_BUNDLE, E_PROC, b, 0, npus_ns(s, 3 * part));
        return;
    }
    int32_t si = x->stream;
    npus_put(&s->bdp, b);
    npus_stream_run(s, si, E_GENERAL);
}

/* The replay NPU by NPU: Themis's scheduler (OfflineGreedy.cc), rank 0's dim loads, the
 * schedule the first NPU to generate a chunk makes with them and the others take. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "npus.h"

void npus_greedy_reset(npus *s) {
    for (int i = 0; i < s->nd; i++)
        s->load[i].dim = i, s->load[i].t = 0;
}

/* Entry k's load grows by a chunk's phase on dim d; the chunk's size goes on to the next
 * (64-bit unsigned arithmetic, as ASTRA-sim's). */
static void load_add(npus *s, int k, int d, int rs, uint64_t *chunk) {
    double p = s->p[d], bw = s->c.greedy_bw[d] / s->c.greedy_bw[0];
    if (rs) {
        s->load[k].t += (((double)*chunk / 1048576) * ((p - 1) / p)) / bw;
        *chunk /= (uint64_t)s->p[d];
    } else {
        s->load[k].t += (((double)*chunk / 1048576) * (p - 1)) / bw;
        *chunk *= (uint64_t)s->p[d];
    }
}

/* A load gap as bytes, converted as ASTRA-sim converts it; one past 2^64 has no such value:
 * the replay gives up (too_long). */
static uint64_t gap_bytes(npus *s, double v) {
    if (!(v < 18446744073709551616.0)) {
        s->too_long = 1;
        return 0;
    }
    return (uint64_t)v;
}

static void reverse(dimload *l, int n) {
    for (int i = 0; i < n / 2; i++) {
        dimload v = l[i];
        l[i] = l[n - 1 - i], l[n - 1 - i] = v;
    }
}

void npus_greedy(npus *s, int64_t id, uint64_t *remaining, uint64_t recommended, uint32_t inv,
                 int op, int *out) {
    for (int i = 0; i < s->ngr; i++)
        if (s->gr[i].id == id) {
            greedy_entry *e = &s->gr[i];
            if (e->size > *remaining) { /* 64-bit unsigned: the simulator would never end */
                if (s->wrap_id < 0) s->wrap_id = id, s->stop_at = s->now;
                *remaining = 0;
                return;
            }
            memcpy(out, e->order, sizeof e->order);
            *remaining -= e->size;
            if (++e->consumers == s->n) s->gr[i] = s->gr[--s->ngr];
            return;
        }
    if (npus_growi(s, (void **)&s->gr, s->ngr, &s->gr_cap, sizeof *s->gr)) return;
    greedy_entry *e = &s->gr[s->ngr++];
    e->id = id, e->consumers = 1;
    int rs = op != OP_AG, nd = s->nd;
    for (int i = 1; i < nd; i++) { /* std::sort of a few: insertion, stable */
        dimload v = s->load[i];
        int j = i;
        for (; j > 0 && v.t < s->load[j - 1].t; j--)
            s->load[j] = s->load[j - 1];
        s->load[j] = v;
    }
    if (!rs) reverse(s->load, nd);
    uint64_t chunk = recommended;
    e->size = *remaining < chunk ? *remaining : chunk;
    *remaining -= e->size;
    int nres = 0, calculated = 0;
#define INVOLVED(d) (((inv >> (d)) & 1u) && s->p[d] > 1)
    for (int ptr = 0; ptr < nd; ptr++) {
        int d = s->load[ptr].dim;
        if (!INVOLVED(d)) {
            e->order[nres++] = d;
            continue;
        }
        if (!calculated) {
            calculated = 1;
            uint64_t diff;
            double b0 = s->c.greedy_bw[0];
            if (rs) {
                double gap = fabs(s->load[nd - 1].t - s->load[ptr].t), p = s->p[d];
                diff = gap_bytes(s, (gap * (s->c.greedy_bw[d] / b0)) / ((p - 1) / p) * 1048576);
            } else {
                int last = nd - 1;
                while (!INVOLVED(s->load[last].dim))
                    last--;
                int hd = s->load[last].dim;
                double gap = fabs(s->load[last].t - s->load[ptr].t), p = s->p[hd];
                diff = gap_bytes(s, (gap * (s->c.greedy_bw[hd] / b0)) / (p - 1) * 1048576);
                for (last--; ptr <= last; last--)
                    if (INVOLVED(s->load[last].dim)) diff /= (uint64_t)s->p[s->load[last].dim];
            }
            if (diff < recommended / (uint64_t)s->c.gap_den) {
                for (int i = 0; i < nd; i++)
                    e->order[i] = i;
                dimload re[TH_MAX_DIMS];
                for (int i = 0; i < nd; i++)
                    for (int j = 0; j < nd; j++)
                        if (s->load[j].dim == i) {
                            re[i] = s->load[j];
                            break;
                        }
                memcpy(s->load, re, sizeof re[0] * (size_t)nd);
                if (!rs) reverse(s->load, nd);
                for (int i = 0; i < nd; i++)
                    if (INVOLVED(i)) load_add(s, i, i, rs, &chunk);
                memcpy(out, e->order, sizeof e->order);
                return;
            }
        }
        e->order[nres++] = d;
        load_add(s, ptr, d, rs, &chunk);
    }
#undef INVOLVED
    memcpy(out, e->order, sizeof e->order);
}

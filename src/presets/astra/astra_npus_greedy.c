/* The replay NPU by NPU: Themis's scheduler (OfflineGreedy.cc), rank 0's dim loads, the
 * schedule the first NPU to generate a chunk makes with them and the others take. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "astra_npus.h"

void npus_greedy_reset(sim *s) {
    for (int i = 0; i < s->nd; i++)
        s->load[i].dim = i, s->load[i].t = 0;
}

static void load_add(sim *s, int k, int d, int rs, double *chunk) {
    double p = s->p[d], bw = s->sys->dims[d].bw_GBps / s->sys->dims[0].bw_GBps;
    if (rs) {
        s->load[k].t += ((*chunk / 1048576) * ((p - 1) / p)) / bw;
        *chunk = (double)((uint64_t)*chunk / (uint64_t)p);
    } else {
        s->load[k].t += ((*chunk / 1048576) * (p - 1)) / bw;
        *chunk = (double)((uint64_t)*chunk * (uint64_t)p);
    }
}

void npus_greedy(sim *s, int64_t id, uint64_t *remaining, uint64_t recommended, uint32_t inv,
                 int op, int *out) {
    for (int i = 0; i < s->ngr; i++)
        if (s->gr[i].id == id) {
            greedy_entry *e = &s->gr[i];
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
        __typeof__(s->load[0]) v = s->load[i];
        int j = i;
        for (; j > 0 && v.t < s->load[j - 1].t; j--)
            s->load[j] = s->load[j - 1];
        s->load[j] = v;
    }
    if (!rs)
        for (int i = 0; i < nd / 2; i++) {
            __typeof__(s->load[0]) v = s->load[i];
            s->load[i] = s->load[nd - 1 - i], s->load[nd - 1 - i] = v;
        }
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
            double b0 = s->sys->dims[0].bw_GBps;
            if (rs) {
                double gap = fabs(s->load[nd - 1].t - s->load[ptr].t), p = s->p[d];
                diff = (uint64_t)((gap * (s->sys->dims[d].bw_GBps / b0)) / ((p - 1) / p) * 1048576);
            } else {
                int last = nd - 1;
                while (!INVOLVED(s->load[last].dim))
                    last--;
                int hd = s->load[last].dim;
                double gap = fabs(s->load[last].t - s->load[ptr].t), p = s->p[hd];
                diff = (uint64_t)((gap * (s->sys->dims[hd].bw_GBps / b0)) / (p - 1) * 1048576);
                for (last--; ptr <= last; last--)
                    if (INVOLVED(s->load[last].dim)) diff /= (uint64_t)s->p[s->load[last].dim];
            }
            if (diff < recommended / 16) {
                for (int i = 0; i < nd; i++)
                    e->order[i] = i;
                __typeof__(s->load[0]) re[TH_MAX_DIMS];
                for (int i = 0; i < nd; i++)
                    for (int j = 0; j < nd; j++)
                        if (s->load[j].dim == i) {
                            re[i] = s->load[j];
                            break;
                        }
                memcpy(s->load, re, sizeof re[0] * (size_t)nd);
                if (!rs)
                    for (int i = 0; i < nd / 2; i++) {
                        __typeof__(s->load[0]) v = s->load[i];
                        s->load[i] = s->load[nd - 1 - i], s->load[nd - 1 - i] = v;
                    }
                double c = (double)chunk;
                for (int i = 0; i < nd; i++)
                    if (INVOLVED(i)) load_add(s, i, i, rs, &c);
                memcpy(out, e->order, sizeof e->order);
                return;
            }
        }
        e->order[nres++] = d;
        double c = (double)chunk;
        load_add(s, ptr, d, rs, &c);
        chunk = (uint64_t)c;
    }
#undef INVOLVED
    memcpy(out, e->order, sizeof e->order);
}

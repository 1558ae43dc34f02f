/* The scheduler emulator (SPEC §6, §7): one server per dimension, each with a priority queue
 * of ready stages (FIFO or smallest-chunk-first), driven by stage-completion events. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "themis/emulate.h"

static const char *const intra_names[] = {"fifo", "scf", NULL};

const char *th_intra_name(th_intra q) {
    return (unsigned)q < 2 ? intra_names[q] : "?";
}

int th_intra_from_name(const char *s, th_intra *out) {
    for (int i = 0; intra_names[i]; i++)
        if (strcmp(intra_names[i], s) == 0) {
            *out = (th_intra)i;
            return 0;
        }
    return -1;
}

/* A stage waiting in a dimension's queue. */
typedef struct entry {
    double ready;   /* ns */
    double m;       /* full-vector size, bytes */
    uint32_t chunk; /* chunk index; the stage is that chunk's next one */
} entry;

typedef struct heap {
    entry *e;
    size_t n, cap;
} heap;

struct th_emu {
    heap q[TH_MAX_DIMS]; /* ready stages per dim */
    uint8_t *next;       /* per chunk: index of its next stage */
    size_t next_cap;     /* chunks `next` can hold */
};

th_emu *th_emu_create(void) {
    return calloc(1, sizeof(th_emu));
}

void th_emu_free(th_emu *emu) {
    if (!emu) return;
    for (int d = 0; d < TH_MAX_DIMS; d++)
        free(emu->q[d].e);
    free(emu->next);
    free(emu);
}

/* Queue order: FIFO by (ready, chunk); SCF by (m, ready, chunk). */
static inline int before(const entry *a, const entry *b, int scf) {
    if (scf && a->m != b->m) return a->m < b->m;
    if (a->ready != b->ready) return a->ready < b->ready;
    return a->chunk < b->chunk;
}

static int heap_push(heap *h, entry x, int scf) {
    if (h->n == h->cap) {
        size_t cap = h->cap ? h->cap * 2 : 64;
        entry *e = realloc(h->e, cap * sizeof *e);
        if (!e) return -1;
        h->e = e, h->cap = cap;
    }
    size_t i = h->n++;
    while (i > 0) {
        size_t parent = (i - 1) / 2;
        if (!before(&x, &h->e[parent], scf)) break;
        h->e[i] = h->e[parent];
        i = parent;
    }
    h->e[i] = x;
    return 0;
}

static entry heap_pop(heap *h, int scf) {
    entry top = h->e[0], x = h->e[--h->n];
    size_t i = 0, n = h->n;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n) break;
        if (c + 1 < n && before(&h->e[c + 1], &h->e[c], scf)) c++;
        if (!before(&h->e[c], &x, scf)) break;
        h->e[i] = h->e[c];
        i = c;
    }
    if (n > 0) h->e[i] = x;
    return top;
}

/* What a dimension is running now. */
typedef struct server {
    int busy;
    uint32_t chunk;
    double end; /* ns */
} server;

static void finish_result(const th_system *sys, const th_plan *plan, double end, th_result *res) {
    double total = 0, bw_sum = 0;
    res->time = end;
    res->ndims = sys->ndims;
    for (int j = 0; j < plan->n; j++) {
        int d = plan->active[j];
        total += res->bytes[d];
        bw_sum += sys->dims[d].bw;
        res->dim_util[d] = res->bytes[d] / (sys->dims[d].bw * end);
    }
    double pa = plan->active_npus;
    res->ideal = total / bw_sum;
    res->bw_util = res->ideal / end;
    res->algbw = plan->size / end;
    double factor = (pa - 1.0) / pa;
    if (plan->type == TH_COLL_ALLREDUCE) factor *= 2.0;
    res->busbw = res->algbw * factor;
}

int th_emu_run(th_emu *emu, const th_system *sys, const th_plan *plan, th_intra intra,
               th_trace_fn trace, void *trace_ctx, th_result *res, th_error *err) {
    memset(res, 0, sizeof *res);
    int scf = intra == TH_INTRA_SCF;
    size_t chunks = (size_t)plan->chunks;
    if (emu->next_cap < chunks) {
        uint8_t *nx = realloc(emu->next, chunks);
        if (!nx) return th_error_set(err, TH_EINTERNAL, "out of memory for %zu chunks", chunks);
        emu->next = nx, emu->next_cap = chunks;
    }
    for (int d = 0; d < TH_MAX_DIMS; d++)
        emu->q[d].n = 0;
    memset(emu->next, 0, chunks);
    for (size_t i = 0; i < chunks; i++) {
        int dim;
        th_op op;
        double m;
        th_plan_stage(plan, (int64_t)i, 0, &dim, &op, &m);
        entry e = {0.0, m, (uint32_t)i};
        if (heap_push(&emu->q[dim], e, scf))
            return th_error_set(err, TH_EINTERNAL, "out of memory queueing %zu chunks", chunks);
    }

    server srv[TH_MAX_DIMS] = {{0}};
    double t = 0, last = 0;
    int nbusy = 0, n = plan->n;
    for (;;) {
        /* Every idle dimension with ready stages starts one, in dim-index order. */
        for (int j = 0; j < n; j++) {
            int d = plan->active[j];
            if (srv[d].busy || emu->q[d].n == 0) continue;
            entry e = heap_pop(&emu->q[d], scf);
            int stage = emu->next[e.chunk], dim;
            th_op op;
            double m;
            th_plan_stage(plan, e.chunk, stage, &dim, &op, &m);
            const th_dim *dd = &sys->dims[d];
            double dur = th_cost_time(dd, sys->reduce_bw, op, m);
            srv[d] = (server){1, e.chunk, t + dur};
            nbusy++;
            res->busy[d] += dur;
            res->bytes[d] += th_cost_bytes(dd, m);
            res->stages++;
            if (trace) {
                th_stage_rec rec = {e.chunk, stage, op,     d, m, th_cost_bytes(dd, m),
                                    e.ready, t,     t + dur};
                trace(trace_ctx, &rec);
            }
        }
        if (nbusy == 0) break;
        /* Advance to the earliest completion; every stage ending then ends first. */
        t = INFINITY;
        for (int j = 0; j < n; j++) {
            int d = plan->active[j];
            if (srv[d].busy && srv[d].end < t) t = srv[d].end;
        }
        for (int j = 0; j < n; j++) {
            int d = plan->active[j];
            if (!srv[d].busy || srv[d].end != t) continue;
            srv[d].busy = 0;
            nbusy--;
            uint32_t c = srv[d].chunk;
            int stage = ++emu->next[c];
            if (stage >= plan->nstages) {
                last = t;
                continue;
            }
            int dim;
            th_op op;
            double m;
            th_plan_stage(plan, c, stage, &dim, &op, &m);
            if (heap_push(&emu->q[dim], (entry){t, m, c}, scf))
                return th_error_set(err, TH_EINTERNAL, "out of memory in a dimension queue");
        }
    }
    if (!(isfinite(last) && last > 0))
        return th_error_set(err, TH_EINPUT,
                            "the collective's time is not a finite positive number (%g ns): "
                            "sizes, bandwidths or latencies are out of range",
                            last);
    finish_result(sys, plan, last, res);
    return TH_OK;
}

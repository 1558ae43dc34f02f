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
    size_t head; /* astra-sim lists: index of the first waiting entry (heaps: 0) */
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
    double end;   /* ns */
    uint64_t seq; /* start order, for the astra-sim completion order */
} server;

/* One run's state, so the helpers below share it. */
typedef struct run {
    th_emu *emu;
    const th_system *sys;
    const th_plan *plan;
    int scf, astra;
    th_trace_fn trace;
    void *trace_ctx;
    th_result *res;
    server srv[TH_MAX_DIMS];
    int nbusy;
    uint64_t seq;
    double t; /* now, ns */
} run;

/* Astra-sim queues are lists: FIFO appends; SCF inserts before the first waiting stage whose
 * key max(in, out) is >= its own, but appends a stage with one phase left after it and an AR
 * phase (SPEC §9). Waiting entries are e[head .. n). */
static int list_insert(heap *h, entry x, int append) {
    if (h->n == h->cap) {
        if (h->head > 0) {
            memmove(h->e, h->e + h->head, (h->n - h->head) * sizeof *h->e);
            h->n -= h->head, h->head = 0;
        } else {
            size_t cap = h->cap ? h->cap * 2 : 64;
            entry *e = realloc(h->e, cap * sizeof *e);
            if (!e) return -1;
            h->e = e, h->cap = cap;
        }
    }
    size_t at = h->n;
    if (!append)
        for (at = h->head; at < h->n && h->e[at].m < x.m; at++) {
        }
    memmove(h->e + at + 1, h->e + at, (h->n - at) * sizeof *h->e);
    h->e[at] = x;
    h->n++;
    return 0;
}

/* Queues chunk c's stage `stage` (ready at r->t) at its dim; returns the dim, or -1 when out of
 * memory. */
static int enqueue(run *r, uint32_t c, int stage) {
    int dim;
    th_op op;
    double m;
    th_plan_stage(r->plan, c, stage, &dim, &op, &m);
    heap *q = &r->emu->q[dim];
    if (!r->astra) return heap_push(q, (entry){r->t, m, c}, r->scf) ? -1 : dim;
    double key = op == TH_OP_AG ? m * r->plan->npus[dim] : m;
    int append = !r->scf || op == TH_OP_AR || stage == r->plan->nstages - 2;
    return list_insert(q, (entry){r->t, key, c}, append) ? -1 : dim;
}

static int waiting(const heap *q) { return q->n > q->head; }

/* Dim d takes its next waiting stage and runs it from now. */
static void start(run *r, int d) {
    heap *q = &r->emu->q[d];
    entry e = r->astra ? q->e[q->head++] : heap_pop(q, r->scf);
    if (r->astra && q->head == q->n) q->head = q->n = 0;
    int stage = r->emu->next[e.chunk], dim;
    th_op op;
    double m;
    th_plan_stage(r->plan, e.chunk, stage, &dim, &op, &m);
    const th_dim *dd = &r->sys->dims[d];
    double dur = r->astra ? th_cost_astra_time(r->sys, dd, op, m)
                          : th_cost_time(dd, r->sys->reduce_bw, op, m);
    double bytes = r->astra ? th_cost_astra_bytes(dd, op, m) : th_cost_bytes(dd, m);
    r->srv[d] = (server){1, e.chunk, r->t + dur, r->seq++};
    r->nbusy++;
    r->res->busy[d] += dur;
    r->res->bytes[d] += bytes;
    r->res->stages++;
    if (r->trace) {
        th_stage_rec rec = {e.chunk, stage, op, d, m, bytes, e.ready, r->t, r->t + dur};
        r->trace(r->trace_ctx, &rec);
    }
}

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
    size_t chunks = (size_t)plan->chunks;
    if (emu->next_cap < chunks) {
        uint8_t *nx = realloc(emu->next, chunks);
        if (!nx) return th_error_set(err, TH_EINTERNAL, "out of memory for %zu chunks", chunks);
        emu->next = nx, emu->next_cap = chunks;
    }
    for (int d = 0; d < TH_MAX_DIMS; d++)
        emu->q[d].n = emu->q[d].head = 0;
    memset(emu->next, 0, chunks);
    run r = {0};
    r.emu = emu, r.sys = sys, r.plan = plan, r.res = res;
    r.scf = intra == TH_INTRA_SCF;
    r.astra = plan->model == TH_MODEL_ASTRA;
    r.trace = trace, r.trace_ctx = trace_ctx;
    for (size_t i = 0; i < chunks; i++) {
        int dim = enqueue(&r, (uint32_t)i, 0);
        if (dim < 0) return th_error_set(err, TH_EINTERNAL, "out of memory queueing %zu chunks", chunks);
        if (r.astra && !r.srv[dim].busy) start(&r, dim);
    }
    double last = 0;
    int n = plan->n;
    for (;;) {
        /* Ours: every idle dimension with ready stages starts one, in dim-index order. */
        for (int j = 0; j < n && !r.astra; j++) {
            int d = plan->active[j];
            if (!r.srv[d].busy && waiting(&emu->q[d])) start(&r, d);
        }
        if (r.nbusy == 0) break;
        /* The stages ending first: ours by dim index; astra-sim's in the order they started. */
        r.t = INFINITY;
        for (int j = 0; j < n; j++) {
            int d = plan->active[j];
            if (r.srv[d].busy && r.srv[d].end < r.t) r.t = r.srv[d].end;
        }
        int ending[TH_MAX_DIMS], nend = 0;
        for (int j = 0; j < n; j++) {
            int d = plan->active[j], k = nend++;
            if (!r.srv[d].busy || r.srv[d].end != r.t) {
                nend--;
                continue;
            }
            while (r.astra && k > 0 && r.srv[ending[k - 1]].seq > r.srv[d].seq) {
                ending[k] = ending[k - 1];
                k--;
            }
            ending[k] = d;
        }
        /* Ours: all of them end, then the idle dims pick (above). Astra-sim: each in turn
         * queues its chunk's next phase (starting it if that dim is idle), then frees its
         * dim, which takes its next waiting phase. */
        for (int k = 0; k < nend; k++) {
            int d = ending[k];
            uint32_t c = r.srv[d].chunk;
            int stage = ++emu->next[c];
            if (stage < plan->nstages) {
                int dim = enqueue(&r, c, stage);
                if (dim < 0) return th_error_set(err, TH_EINTERNAL, "out of memory in a queue");
                if (r.astra && !r.srv[dim].busy) start(&r, dim);
            } else {
                last = r.t;
            }
            r.srv[d].busy = 0;
            r.nbusy--;
            if (r.astra && waiting(&emu->q[d])) start(&r, d);
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

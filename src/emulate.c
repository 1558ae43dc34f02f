/* The scheduler emulator (SPEC §6, §7): one server per dimension, each with a priority queue
 * of ready stages (FIFO or smallest-chunk-first), driven by stage-completion events. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "themis/emulate.h"

const char *const th_intra_names[] = {"fifo", "scf", NULL};

const char *th_intra_name(th_intra q) {
    return (unsigned)q < 2 ? th_intra_names[q] : "?";
}

int th_intra_from_name(const char *s, th_intra *out) {
    for (int i = 0; th_intra_names[i]; i++)
        if (strcmp(th_intra_names[i], s) == 0) {
            *out = (th_intra)i;
            return 0;
        }
    return -1;
}

/* A stage waiting in a dimension's queue. */
typedef struct entry {
    double ready;   /* ns */
    double m;       /* full-vector size, bytes (astra-sim lists: the insertion key) */
    uint32_t chunk; /* chunk index; the stage is that chunk's next one */
    uint32_t coll;  /* collective id (issue order) */
} entry;

typedef struct heap {
    entry *e;
    size_t n, cap;
    size_t head; /* astra-sim lists: index of the first waiting entry (heaps: 0) */
} heap;

/* One collective in flight (or finished) since the last reset. */
typedef struct coll_rec {
    const th_plan *plan;
    double issue, end; /* ns; end < 0 while running */
    int64_t left;      /* chunks not finished */
    uint8_t *next;     /* per chunk: index of its next stage */
    size_t next_cap;
    double bytes[TH_MAX_DIMS]; /* bytes one NPU sent per dim */
    double busy[TH_MAX_DIMS];  /* stage time per dim, ns */
    int64_t stages;
} coll_rec;

/* What a dimension is running now. */
typedef struct server {
    int busy;
    uint32_t chunk, coll;
    double end;   /* ns */
    uint64_t seq; /* start order, for the astra-sim completion order */
} server;

struct th_emu {
    heap q[TH_MAX_DIMS]; /* ready stages per dim */
    coll_rec *colls;     /* by id; records (and their buffers) are reused across resets */
    int ncolls, cap;
    const th_system *sys;
    int scf, lifo, astra;
    th_trace_fn trace;
    void *trace_ctx;
    server srv[TH_MAX_DIMS];
    int nbusy;
    uint64_t seq;
    double t;  /* now, ns */
    int *done; /* collectives that finished in the last step */
    int ndone, done_cap;
    int bad_dim;    /* the dim whose stage time was refused (start() returned -1) */
    double bad_dur; /* that stage time, ns */
};

th_emu *th_emu_create(void) {
    return calloc(1, sizeof(th_emu));
}

void th_emu_free(th_emu *emu) {
    if (!emu) return;
    for (int d = 0; d < TH_MAX_DIMS; d++)
        free(emu->q[d].e);
    for (int i = 0; i < emu->cap; i++)
        free(emu->colls[i].next);
    free(emu->colls);
    free(emu->done);
    free(emu);
}

const char *const th_priority_names[] = {"fifo", "lifo", NULL};

const char *th_priority_name(th_priority p) {
    return (unsigned)p < 2 ? th_priority_names[p] : "?";
}

int th_priority_from_name(const char *s, th_priority *out) {
    for (int i = 0; th_priority_names[i]; i++)
        if (strcmp(th_priority_names[i], s) == 0) {
            *out = (th_priority)i;
            return 0;
        }
    return -1;
}

/* Queue order: the collective priority (older first, or newer first under lifo), then
 * FIFO by (ready, chunk) or SCF by (m, ready, chunk). */
static inline int before(const entry *a, const entry *b, int scf, int lifo) {
    if (a->coll != b->coll) return lifo ? a->coll > b->coll : a->coll < b->coll;
    if (scf && a->m != b->m) return a->m < b->m;
    if (a->ready != b->ready) return a->ready < b->ready;
    return a->chunk < b->chunk;
}

static int heap_push(heap *h, entry x, int scf, int lifo) {
    if (h->n == h->cap) {
        size_t cap = h->cap ? h->cap * 2 : 64;
        entry *e = realloc(h->e, cap * sizeof *e);
        if (!e) return -1;
        h->e = e, h->cap = cap;
    }
    size_t i = h->n++;
    while (i > 0) {
        size_t parent = (i - 1) / 2;
        if (!before(&x, &h->e[parent], scf, lifo)) break;
        h->e[i] = h->e[parent];
        i = parent;
    }
    h->e[i] = x;
    return 0;
}

static entry heap_pop(heap *h, int scf, int lifo) {
    entry top = h->e[0], x = h->e[--h->n];
    size_t i = 0, n = h->n;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n) break;
        if (c + 1 < n && before(&h->e[c + 1], &h->e[c], scf, lifo)) c++;
        if (!before(&h->e[c], &x, scf, lifo)) break;
        h->e[i] = h->e[c];
        i = c;
    }
    if (n > 0) h->e[i] = x;
    return top;
}

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

/* Queues a chunk's stage (ready now) at its dim; returns the dim, or -1 when out of memory. */
static int enqueue(th_emu *r, uint32_t id, uint32_t c, int stage) {
    const th_plan *plan = r->colls[id].plan;
    int dim;
    th_op op;
    double m;
    th_plan_stage(plan, c, stage, &dim, &op, &m);
    heap *q = &r->q[dim];
    if (!r->astra) return heap_push(q, (entry){r->t, m, c, id}, r->scf, r->lifo) ? -1 : dim;
    double key = op == TH_OP_AG ? m * plan->npus[dim] : m;
    int append = !r->scf || op == TH_OP_AR || stage == plan->nstages - 2;
    return list_insert(q, (entry){r->t, key, c, id}, append) ? -1 : dim;
}

static int waiting(const heap *q) {
    return q->n > q->head;
}

/* Dim d takes its next waiting stage and runs it from now; -1 when its time is not a finite
 * number >= 0 (a server that never ends would loop the caller forever). */
static int start(th_emu *r, int d) {
    heap *q = &r->q[d];
    entry e = r->astra ? q->e[q->head++] : heap_pop(q, r->scf, r->lifo);
    if (r->astra && q->head == q->n) q->head = q->n = 0;
    coll_rec *cr = &r->colls[e.coll];
    int stage = cr->next[e.chunk], dim;
    th_op op;
    double m;
    th_plan_stage(cr->plan, e.chunk, stage, &dim, &op, &m);
    const th_dim *dd = &r->sys->dims[d];
    double dur = r->astra ? th_cost_astra_time(r->sys, dd, op, m)
                          : th_cost_time(dd, r->sys->reduce_bw, op, m);
    if (!(dur >= 0) || !isfinite(r->t + dur)) {
        r->bad_dim = d, r->bad_dur = dur;
        return -1;
    }
    double bytes = r->astra ? th_cost_astra_bytes(dd, op, m) : th_cost_bytes(dd, m);
    r->srv[d] = (server){1, e.chunk, e.coll, r->t + dur, r->seq++};
    r->nbusy++;
    cr->busy[d] += dur;
    cr->bytes[d] += bytes;
    cr->stages++;
    if (r->trace) {
        th_stage_rec rec = {e.chunk, stage, op, d, m, bytes, e.ready, r->t, r->t + dur, e.coll};
        r->trace(r->trace_ctx, &rec);
    }
    return 0;
}

/* The error for a stage time start() refused. */
static int bad_stage(const th_emu *r, th_error *err) {
    return th_error_set(err, TH_EINPUT,
                        "dims[%d] (%s): a stage time is not a finite number >= 0 (%g ns at "
                        "%g ns): sizes, bandwidths or latencies are out of range",
                        r->bad_dim, r->sys->dims[r->bad_dim].name, r->bad_dur, r->t);
}

/* Ours: every idle dimension with ready stages starts one, in dim-index order. */
static int pick(th_emu *r) {
    if (r->astra) return 0; /* astra-sim starts phases as they are queued and freed */
    for (int d = 0; d < r->sys->ndims; d++)
        if (!r->srv[d].busy && waiting(&r->q[d]) && start(r, d)) return -1;
    return 0;
}

void th_emu_reset(th_emu *emu, const th_system *sys, th_intra intra, th_priority prio,
                  th_trace_fn trace, void *trace_ctx) {
    for (int d = 0; d < TH_MAX_DIMS; d++) {
        emu->q[d].n = emu->q[d].head = 0;
        emu->srv[d].busy = 0;
    }
    emu->ncolls = 0;
    emu->sys = sys;
    emu->scf = intra == TH_INTRA_SCF;
    emu->lifo = prio == TH_PRIO_LIFO;
    emu->astra = sys->model == TH_MODEL_ASTRA;
    emu->trace = trace, emu->trace_ctx = trace_ctx;
    emu->nbusy = 0;
    emu->seq = 0;
    emu->t = 0;
    emu->ndone = 0;
}

int th_emu_issue(th_emu *emu, const th_plan *plan, double t, int *id, th_error *err) {
    if (t < emu->t)
        return th_error_set(err, TH_EINTERNAL, "collective issued at %g ns, before now (%g ns)", t,
                            emu->t);
    if (emu->astra && (emu->nbusy > 0 || emu->ncolls > 0))
        return th_error_set(err, TH_EINPUT, "the astra-sim preset runs one collective at a time");
    if (emu->ncolls == emu->cap) {
        int cap = emu->cap ? 2 * emu->cap : 16;
        coll_rec *c = realloc(emu->colls, sizeof *c * (size_t)cap);
        if (!c) return th_error_set(err, TH_EINTERNAL, "out of memory");
        memset(c + emu->cap, 0, sizeof *c * (size_t)(cap - emu->cap));
        emu->colls = c, emu->cap = cap;
    }
    int k = emu->ncolls;
    coll_rec *cr = &emu->colls[k];
    size_t chunks = (size_t)plan->chunks;
    if (cr->next_cap < chunks) {
        uint8_t *nx = realloc(cr->next, chunks);
        if (!nx) return th_error_set(err, TH_EINTERNAL, "out of memory for %zu chunks", chunks);
        cr->next = nx, cr->next_cap = chunks;
    }
    memset(cr->next, 0, chunks);
    cr->plan = plan;
    cr->issue = t;
    cr->end = -1;
    cr->left = plan->chunks;
    memset(cr->bytes, 0, sizeof cr->bytes);
    memset(cr->busy, 0, sizeof cr->busy);
    cr->stages = 0;
    emu->ncolls++;
    emu->t = t;
    for (size_t i = 0; i < chunks; i++) {
        int dim = enqueue(emu, (uint32_t)k, (uint32_t)i, 0);
        if (dim < 0)
            return th_error_set(err, TH_EINTERNAL, "out of memory queueing %zu chunks", chunks);
        if (emu->astra && !emu->srv[dim].busy && start(emu, dim)) return bad_stage(emu, err);
    }
    if (pick(emu)) return bad_stage(emu, err);
    if (id) *id = k;
    return TH_OK;
}

double th_emu_next(const th_emu *emu) {
    double t = INFINITY;
    for (int d = 0; d < emu->sys->ndims; d++)
        if (emu->srv[d].busy && emu->srv[d].end < t) t = emu->srv[d].end;
    return t;
}

int th_emu_step(th_emu *emu, th_error *err) {
    emu->ndone = 0;
    double t = th_emu_next(emu);
    if (t == INFINITY) return TH_OK;
    emu->t = t;
    /* The stages ending now: ours by dim index; astra-sim's in the order they started. */
    int ending[TH_MAX_DIMS], nend = 0;
    for (int d = 0; d < emu->sys->ndims; d++) {
        if (!emu->srv[d].busy || emu->srv[d].end != t) continue;
        int k = nend++;
        while (emu->astra && k > 0 && emu->srv[ending[k - 1]].seq > emu->srv[d].seq) {
            ending[k] = ending[k - 1];
            k--;
        }
        ending[k] = d;
    }
    /* Ours: all of them end, then the idle dims pick. Astra-sim: each in turn queues its
     * chunk's next phase (starting it if that dim is idle), then frees its dim, which takes
     * its next waiting phase. */
    for (int k = 0; k < nend; k++) {
        int d = ending[k];
        uint32_t c = emu->srv[d].chunk, id = emu->srv[d].coll;
        coll_rec *cr = &emu->colls[id];
        int stage = ++cr->next[c];
        if (stage < cr->plan->nstages) {
            int dim = enqueue(emu, id, c, stage);
            if (dim < 0) return th_error_set(err, TH_EINTERNAL, "out of memory in a queue");
            if (emu->astra && !emu->srv[dim].busy && start(emu, dim)) return bad_stage(emu, err);
        } else if (--cr->left == 0) {
            cr->end = t;
            if (emu->ndone == emu->done_cap) {
                int cap = emu->done_cap ? 2 * emu->done_cap : 16;
                int *dn = realloc(emu->done, sizeof *dn * (size_t)cap);
                if (!dn) return th_error_set(err, TH_EINTERNAL, "out of memory");
                emu->done = dn, emu->done_cap = cap;
            }
            emu->done[emu->ndone++] = (int)id;
        }
        emu->srv[d].busy = 0;
        emu->nbusy--;
        if (emu->astra && waiting(&emu->q[d]) && start(emu, d)) return bad_stage(emu, err);
    }
    if (pick(emu)) return bad_stage(emu, err);
    return TH_OK;
}

int th_emu_finished(const th_emu *emu, const int **ids) {
    *ids = emu->done;
    return emu->ndone;
}

double th_emu_now(const th_emu *emu) {
    return emu->t;
}

int th_emu_result(const th_emu *emu, int id, th_result *res, th_error *err) {
    const coll_rec *cr = &emu->colls[id];
    const th_plan *plan = cr->plan;
    const th_system *sys = emu->sys;
    memset(res, 0, sizeof *res);
    double time = cr->end - cr->issue;
    if (!(cr->end >= 0 && isfinite(time) && time > 0))
        return th_error_set(err, TH_EINPUT,
                            "the collective's time is not a finite positive number (%g ns): "
                            "sizes, bandwidths or latencies are out of range",
                            time);
    double total = 0, bw_sum = 0;
    res->time = time;
    res->ndims = sys->ndims;
    res->stages = cr->stages;
    memcpy(res->bytes, cr->bytes, sizeof res->bytes);
    memcpy(res->busy, cr->busy, sizeof res->busy);
    for (int j = 0; j < plan->n; j++) {
        int d = plan->active[j];
        total += res->bytes[d];
        bw_sum += sys->dims[d].bw;
        res->dim_util[d] = res->bytes[d] / (sys->dims[d].bw * time);
    }
    double pa = plan->active_npus;
    res->ideal = total / bw_sum;
    res->bw_util = res->ideal / time;
    res->algbw = plan->size / time;
    double factor = (pa - 1.0) / pa;
    if (plan->type == TH_COLL_ALLREDUCE) factor *= 2.0;
    res->busbw = res->algbw * factor;
    return TH_OK;
}

int th_emu_run(th_emu *emu, const th_system *sys, const th_plan *plan, th_intra intra,
               th_trace_fn trace, void *trace_ctx, th_result *res, th_error *err) {
    memset(res, 0, sizeof *res);
    th_emu_reset(emu, sys, intra, TH_PRIO_FIFO, trace, trace_ctx);
    int id;
    if (th_emu_issue(emu, plan, 0.0, &id, err)) return err->code;
    while (emu->nbusy > 0)
        if (th_emu_step(emu, err)) return err->code;
    return th_emu_result(emu, id, res, err);
}

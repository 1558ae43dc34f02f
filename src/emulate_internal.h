/* The emulator's state and its model interface (model.h's emu), shared by the clean model's
 * rules (emulate.c) and a preset's (its NAME_emulate.c), which keeps its own state behind
 * th_emu.state. */
#ifndef THEMIS_EMULATE_INTERNAL_H
#define THEMIS_EMULATE_INTERNAL_H

#include <stdint.h>

#include "themis/emulate.h"

_Static_assert(TH_MAX_CHUNKS <= (1 << 24), "emu_entry.chunk holds 24 bits");
_Static_assert(2 * TH_MAX_DIMS <= 64, "emu_entry.stage holds 6 bits");

/* A stage waiting in a dimension's queue. */
typedef struct emu_entry {
    double ready;        /* ns */
    double m;            /* the model's queue key: full-vector size for ours, bytes */
    uint32_t coll;       /* collective id (issue order) */
    uint32_t chunk : 24; /* chunk index (< TH_MAX_CHUNKS <= 2^24); the stage is its next one */
    uint32_t stage : 6;  /* ours: the stage's index in its chunk (< 2 TH_MAX_DIMS), planned
                            when queued */
    uint32_t op : 2;     /* ours: its th_op */
} emu_entry;             /* 24 bytes: a million chunks queue in 24 MB */

/* A dimension's queue in e[head .. n): ours a sorted run or a heap (emu_queue.c), a
 * preset's a list in its own order. */
typedef struct emu_queue {
    emu_entry *e;
    size_t n, cap;
    size_t head; /* first waiting entry; always 0 for a heap */
    int heap;    /* ours: e[0 .. n) is a binary heap, not a sorted run */
} emu_queue;

/* Ours: the waiting stages of one key, (collective) under FIFO or (collective, m) under
 * SCF. */
typedef struct emu_bucket {
    uint32_t coll;
    uint64_t rank; /* the collective's priority rank: lower goes first (emu_rank) */
    double m;      /* bytes; SCF only */
    emu_queue q;
} emu_bucket;

/* Ours: a dim's queue, b[0 .. nb) the non-empty buckets in queue order; b[nb .. cap) and
 * b[-gap .. 0) hold empty runs whose buffers are reused. The room before b lets a bucket
 * that goes near the front (a newer collective under lifo) move the buckets before it, not
 * every bucket after it. */
typedef struct emu_squeue {
    emu_bucket *b;
    int nb;
    size_t cap;
    int gap;
    int first;  /* the first non-empty bucket when len > 0 */
    size_t len; /* waiting entries */
    /* buffers of runs emptied while others wait, for the next new bucket: a bucket that
     * empties stays in place for its key, so without them every new bucket would allocate */
    emu_queue *spare;
    size_t nspare, spare_cap;
} emu_squeue;

/* A dim's stage cost terms, computed once at reset so that th_cost_time(d, reduce_bw, op, m)
 * = lh + m * pm1 / pbw (+ m * pm1 / p / reduce_bw for RS), with the same roundings. */
typedef struct emu_cost {
    double lh;  /* latency * hops, ns */
    double pm1; /* p - 1 */
    double pbw; /* p * bw, bytes per ns */
    double p;   /* npus */
} emu_cost;

/* One collective in flight (or finished) since the last reset. */
typedef struct emu_coll {
    const th_plan *plan;
    double issue, end; /* ns; end < 0 while running */
    uint64_t rank;     /* priority among collectives in flight, lower first (emu_rank) */
    int64_t left;      /* chunks not finished */
    uint8_t *next;     /* per chunk: index of its next stage */
    size_t next_cap;
    double bytes[TH_MAX_DIMS]; /* bytes one NPU sent per dim */
    double busy[TH_MAX_DIMS];  /* stage time per dim, ns */
    int64_t stages;
} emu_coll;

/* What a dimension is running now. */
typedef struct emu_server {
    int busy;
    uint32_t chunk, coll;
    double end;   /* ns */
    uint64_t seq; /* start order since the last reset */
} emu_server;

/* What differs between models inside the emulator: which queue position a ready stage takes,
 * which waiting stage a free dim takes, when stages start, their cost, and in which order the
 * stages ending at one instant complete. One const table per model, chosen at reset. */
typedef struct emu_model {
    /* Issues a planned collective at time t (>= now, checked): emu_admit, then queue the
     * first stage of every chunk. */
    int (*issue)(th_emu *emu, const th_plan *plan, double t, int *id, th_error *err);
    /* Completes every stage ending now (emu->t, already advanced): each chunk moves on
     * (emu_end), and the freed dims take new stages. */
    int (*step)(th_emu *emu, th_error *err);
    /* Optional (NULL: none): runs one collective alone, issued at 0 with no trace, after
     * th_emu_reset, with the same results as issue and step: fills cr's end, stages, bytes
     * and busy (cr->plan set, the rest zero). EMU_DECLINED when it cannot (th_emu_run then
     * issues and steps), else TH_OK or an error. */
    int (*run)(th_emu *emu, emu_coll *cr, th_error *err);
    /* Optional (NULL: the model keeps no state): clears the model's state emu->state, when it
     * has one, for the reset of emu (emu->sys set); the model makes it when it first needs it,
     * where it can report running out of memory (its issue). */
    void (*reset)(th_emu *emu);
    /* Optional: frees a state the model made (when th_emu_reset meets another model, and in
     * th_emu_free). */
    void (*free)(void *state);
} emu_model;

#define EMU_DECLINED (-1)

/* The clean model's run of one collective alone (emu_fast.c), and its buffers. */
typedef struct emu_fast emu_fast;
int emu_fast_run(th_emu *emu, emu_coll *cr, th_error *err);
void emu_fast_free(emu_fast *f);

struct th_emu {
    emu_squeue sq[TH_MAX_DIMS]; /* ours */
    emu_coll *colls;            /* records (and their buffers), reused across resets and releases */
    int nrecs;                  /* records in use or free */
    size_t cap;                 /* records allocated */
    int ncolls;                 /* ids issued since the reset */
    int *rec_of;                /* by id: its record in colls, -1 once released */
    size_t rec_of_cap;
    int *free_recs; /* records of released collectives, to reuse */
    int nfree;
    size_t free_cap;
    const th_system *sys;
    const emu_model *model; /* the system's model, chosen at reset */
    int scf;
    th_priority prio; /* between collectives in flight */
    int64_t key;      /* the priority key of the collective being issued (th_emu_issue_key) */
    th_trace_fn trace;
    void *trace_ctx;
    emu_server srv[TH_MAX_DIMS];
    emu_cost cost[TH_MAX_DIMS]; /* the system's dims, at reset */
    int nbusy;
    uint64_t seq;
    double t;                /* now, ns */
    int ending[TH_MAX_DIMS]; /* the dims whose stage ends now, by index (th_emu_step) */
    int nending;
    int *done; /* collectives that finished in the last step */
    int ndone;
    size_t done_cap;
    const atomic_int *stop; /* th_emu_run ends when it becomes non-zero; may be NULL */
    int bad_dim;            /* the dim whose stage time emu_begin refused */
    double bad_dur;         /* that stage time, ns */
    emu_fast *fast;         /* the clean model's run buffers, made at its first run */
    void *state;            /* a preset's own state (its queues, ...), opaque here; NULL: none */
    const emu_model *state_model; /* the model that made `state` (frees it) */
};

/* The analytical model's rules (emulate.c). */
extern const emu_model emu_clean_model;

/* Adds collective `plan` issued at t as the next id (*k), every chunk at its stage 0, and
 * moves now to t; its stages are the caller's to queue. */
int emu_admit(th_emu *emu, const th_plan *plan, double t, int *k, th_error *err);

/* Dim d starts running entry e (its chunk's stage `stage`: op on m bytes) from now, for dur ns
 * while one NPU sends `bytes`: the server, the collective's accounts and the trace. Returns -1
 * (nothing started) when dur is not a finite number >= 0, since a server that never ends
 * would loop the caller forever: emu_bad_stage makes the error. */
int emu_begin(th_emu *emu, int d, emu_entry e, int stage, th_op op, double m, double dur,
              double bytes);

/* The error for the stage time emu_begin refused last. */
int emu_bad_stage(const th_emu *emu, th_error *err);

/* Fills ending[] with the dims whose stage ends now, in index order; returns how many (found
 * by th_emu_step, with the time). */
int emu_ending(const th_emu *emu, int *ending);

/* Ends the stage dim d runs and frees d. Returns the index of its chunk's next stage (chunk
 * and collective in *chunk, *coll), or -1 when that was the chunk's last stage (a collective
 * whose chunks are all done is listed as finished), or -2 when out of memory (err filled). */
int emu_end(th_emu *emu, int d, uint32_t *chunk, uint32_t *coll, th_error *err);

/* The clean model's time (ns) of a stage of m bytes on dim d, th_cost_time's from the terms of
 * reset (the same operations in the same order), and the bytes one NPU sends, into *bytes. */
static inline double emu_stage_time(const th_emu *emu, int d, th_op op, double m, double *bytes) {
    const emu_cost *k = &emu->cost[d];
    double mp = m * k->pm1;
    double dur = k->lh + mp / k->pbw;
    if (op == TH_OP_RS && emu->sys->reduce_bw > 0.0) dur += mp / k->p / emu->sys->reduce_bw;
    *bytes = mp / k->p;
    return dur;
}

/* The rank of collective id issued with key under prio: lower ranks go first. fifo: older
 * first; lifo: newer first; layer: the smaller key first, then older first. */
static inline uint64_t emu_rank(th_priority prio, uint32_t id, int64_t key) {
    switch (prio) {
    case TH_PRIO_LIFO: return (uint64_t)(UINT32_MAX - id);
    case TH_PRIO_LAYER: return ((uint64_t)key << 32) | id;
    default: return id;
    }
}

/* Ours (emu_queue.c). A run: entries of one bucket by (ready, chunk); -1 when out of memory. */
int emu_run_push(emu_queue *q, emu_entry x);
emu_entry emu_run_pop(emu_queue *q); /* the first entry; the run must hold one */
/* A dim's queue: queues x (of a collective of priority rank `rank`) in order; -1 when out of
 * memory. */
int emu_queue_push(emu_squeue *s, emu_entry x, uint64_t rank, int scf);
/* Takes the first waiting entry (the queue must hold one). */
emu_entry emu_queue_pop(emu_squeue *s);
void emu_queue_clear(emu_squeue *s); /* empty, buffers kept */

/* The largest buffer (entries) an emptied bucket keeps for reuse: larger ones are freed, so
 * peak memory is the peak of the live entries, not the sum of every bucket's peak. */
#define EMU_SPARE_MAX 4096

/* The same as emu_queue_push and emu_queue_pop, inline where the queue is empty before the
 * push or after the pop, as it mostly is with few chunks. */
static inline int emu_queue_put(emu_squeue *s, emu_entry x, uint64_t rank, int scf) {
    if (s->nb == 0 && s->cap > 0 && s->b[0].q.cap > 0) { /* b[0] is an empty spare */
        emu_bucket *b = &s->b[0];
        b->coll = x.coll, b->rank = rank, b->m = x.m;
        b->q.e[0] = x;
        b->q.n = 1, b->q.head = 0;
        s->nb = 1, s->first = 0, s->len = 1;
        return 0;
    }
    return emu_queue_push(s, x, rank, scf);
}

static inline emu_entry emu_queue_take(emu_squeue *s) {
    emu_queue *q = &s->b[s->first].q;
    if (s->len == 1 && !q->heap && q->cap <= EMU_SPARE_MAX) { /* the last: all are spares */
        emu_entry e = q->e[q->head];
        q->n = q->head = 0;
        s->nb = s->first = 0, s->len = 0;
        return e;
    }
    return emu_queue_pop(s);
}
void emu_queue_free(emu_squeue *s);

/* The record of collective id (issued, not released). */
static inline emu_coll *emu_rec(const th_emu *emu, uint32_t id) {
    return &emu->colls[emu->rec_of[id]];
}

static inline int emu_waiting(const emu_queue *q) {
    return q->n > q->head;
}

#endif

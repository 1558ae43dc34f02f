/* The scheduler emulator (SPEC §6, §7): one server per dimension, each with a priority queue
 * of ready stages (FIFO or smallest-chunk-first), driven by stage-completion events; and the
 * bookkeeping every model's rules share (emulate_internal.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "emulate_internal.h"
#include "model.h"
#include "themis/buf.h"
#include "themis/str.h"

const char *const th_intra_names[] = {"fifo", "scf", NULL};

const char *th_intra_name(th_intra q) {
    return (unsigned)q < 2 ? th_intra_names[q] : "?";
}

int th_intra_from_name(const char *s, th_intra *out) {
    int i = th_name_find(th_intra_names, s);
    if (i >= 0) *out = (th_intra)i;
    return i < 0 ? -1 : 0;
}

th_emu *th_emu_create(void) {
    return calloc(1, sizeof(th_emu));
}

void th_emu_free(th_emu *emu) {
    if (!emu) return;
    for (int d = 0; d < TH_MAX_DIMS; d++)
        emu_queue_free(&emu->sq[d]);
    if (emu->state) emu->state_model->free(emu->state);
    emu_fast_free(emu->fast);
    for (size_t i = 0; i < emu->cap; i++)
        free(emu->colls[i].next);
    free(emu->colls);
    free(emu->rec_of);
    free(emu->free_recs);
    free(emu->done);
    free(emu);
}

const char *const th_priority_names[] = {"fifo", "lifo", "layer", NULL};

const char *th_priority_name(th_priority p) {
    return (unsigned)p < 3 ? th_priority_names[p] : "?";
}

int th_priority_from_name(const char *s, th_priority *out) {
    int i = th_name_find(th_priority_names, s);
    if (i >= 0) *out = (th_priority)i;
    return i < 0 ? -1 : 0;
}

/* Queues a chunk's stage (ready now) at its dim, planned once here; returns the dim, or -1
 * when out of memory. */
static int enqueue(th_emu *r, uint32_t id, uint32_t c, int stage) {
    int dim;
    th_op op;
    double m;
    th_plan_stage(emu_rec(r, id)->plan, c, stage, &dim, &op, &m);
    emu_entry x = {.ready = r->t,
                   .m = m,
                   .coll = id,
                   .chunk = c,
                   .stage = (uint32_t)stage,
                   .op = (uint32_t)op};
    return emu_queue_put(&r->sq[dim], x, emu_rec(r, id)->rank, r->scf) ? -1 : dim;
}

/* Dim d takes its next waiting stage and runs it from now; -1 when its time is refused.
 * The time and bytes are th_cost_time's and th_cost_bytes's, from the terms of reset. */
static int start(th_emu *r, int d) {
    emu_entry e = emu_queue_take(&r->sq[d]);
    double bytes, dur = emu_stage_time(r, d, (th_op)e.op, e.m, &bytes);
    return emu_begin(r, d, e, e.stage, (th_op)e.op, e.m, dur, bytes);
}

/* Every idle dimension with ready stages starts one, in dim-index order; -1 as start(). */
static int pick(th_emu *r) {
    for (int d = 0, nd = r->sys->ndims; d < nd; d++)
        if (!r->srv[d].busy && r->sq[d].len > 0 && start(r, d)) return -1;
    return 0;
}

static int issue(th_emu *emu, const th_plan *plan, double t, int *id, th_error *err) {
    int k;
    if (emu_admit(emu, plan, t, &k, err)) return err->code;
    for (uint32_t i = 0; i < (uint32_t)plan->chunks; i++)
        if (enqueue(emu, (uint32_t)k, i, 0) < 0)
            return th_error_set(err, TH_EINTERNAL, "out of memory queueing %lld chunks",
                                (long long)plan->chunks);
    if (pick(emu)) return emu_bad_stage(emu, err);
    if (id) *id = k;
    return TH_OK;
}

/* The stages ending now all end, by dim index, each chunk queueing its next stage; then the
 * idle dims pick. */
static int step(th_emu *emu, th_error *err) {
    /* emu->ending as th_emu_step found it: ending stages and queueing change it not */
    const int *ending = emu->ending;
    for (int k = 0, nend = emu->nending; k < nend; k++) {
        uint32_t c, id;
        int stage = emu_end(emu, ending[k], &c, &id, err);
        if (stage == -2) return err->code;
        if (stage >= 0 && enqueue(emu, id, c, stage) < 0)
            return th_error_set(err, TH_EINTERNAL, "out of memory in a queue");
    }
    if (pick(emu)) return emu_bad_stage(emu, err);
    return TH_OK;
}

/* Ours (SPEC §6). */
const emu_model emu_clean_model = {.issue = issue, .step = step, .run = emu_fast_run};

int emu_begin(th_emu *r, int d, emu_entry e, int stage, th_op op, double m, double dur,
              double bytes) {
    if (!(dur >= 0) || !isfinite(r->t + dur)) {
        r->bad_dim = d, r->bad_dur = dur;
        return -1;
    }
    emu_coll *cr = emu_rec(r, e.coll);
    r->srv[d] = (emu_server){1, e.chunk, e.coll, r->t + dur, r->seq++};
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

int emu_bad_stage(const th_emu *r, th_error *err) {
    return th_error_set(err, TH_EINPUT,
                        "dims[%d] (%s): a stage time is not a finite number >= 0 (%g ns at "
                        "%g ns): sizes, bandwidths or latencies are out of range",
                        r->bad_dim, r->sys->dims[r->bad_dim].name, r->bad_dur, r->t);
}

int emu_ending(const th_emu *emu, int *ending) {
    memcpy(ending, emu->ending, sizeof *ending * (size_t)emu->nending);
    return emu->nending;
}

int emu_end(th_emu *emu, int d, uint32_t *chunk, uint32_t *coll, th_error *err) {
    uint32_t c = emu->srv[d].chunk, id = emu->srv[d].coll;
    emu_coll *cr = emu_rec(emu, id);
    emu->srv[d].busy = 0;
    emu->nbusy--;
    *chunk = c, *coll = id;
    int stage = ++cr->next[c];
    if (stage < cr->plan->nstages) return stage;
    if (--cr->left == 0) {
        cr->end = emu->t;
        if ((size_t)emu->ndone == emu->done_cap &&
            th_grow(&emu->done, &emu->done_cap, emu->done_cap + 1, sizeof *emu->done)) {
            th_error_set(err, TH_EINTERNAL, "out of memory");
            return -2;
        }
        emu->done[emu->ndone++] = (int)id;
    }
    return -1;
}

void th_emu_reset(th_emu *emu, const th_system *sys, th_intra intra, th_priority prio,
                  th_trace_fn trace, void *trace_ctx) {
    /* only the system's dims: every use of a dim follows a reset with that dim in it */
    for (int d = 0; d < sys->ndims; d++) {
        if (emu->sq[d].nb) emu_queue_clear(&emu->sq[d]);
        emu->srv[d].busy = 0;
        const th_dim *dd = &sys->dims[d];
        double p = (double)dd->npus;
        emu->cost[d] = (emu_cost){dd->latency * th_cost_hops(dd->topology, dd->algorithm, dd->npus),
                                  p - 1.0, p * dd->bw, p};
    }
    emu->ncolls = emu->nrecs = emu->nfree = 0;
    emu->sys = sys;
    /* chosen once per reset; an unknown model gets no plan (th_collective_validate), so the
     * analytical model th_model_of gives it never runs one */
    emu->model = th_model_of(sys)->emu;
    if (emu->state && emu->state_model != emu->model) { /* another model's: its owner frees it */
        emu->state_model->free(emu->state);
        emu->state = NULL;
    }
    if (emu->state && emu->model->reset) emu->model->reset(emu);
    emu->scf = intra == TH_INTRA_SCF;
    emu->prio = prio;
    emu->key = 0;
    emu->trace = trace, emu->trace_ctx = trace_ctx;
    emu->nbusy = 0;
    emu->seq = 0;
    emu->t = 0;
    emu->ndone = 0;
}

int emu_admit(th_emu *emu, const th_plan *plan, double t, int *k, th_error *err) {
    if ((size_t)emu->ncolls == emu->rec_of_cap &&
        th_grow(&emu->rec_of, &emu->rec_of_cap, emu->rec_of_cap + 1, sizeof *emu->rec_of))
        return th_error_set(err, TH_EINTERNAL, "out of memory");
    if (emu->nfree == 0 && (size_t)emu->nrecs == emu->cap) {
        size_t old = emu->cap; /* the new records start empty: their buffers are grown later */
        if (th_grow(&emu->colls, &emu->cap, old + 1, sizeof *emu->colls))
            return th_error_set(err, TH_EINTERNAL, "out of memory");
        memset(emu->colls + old, 0, sizeof *emu->colls * (emu->cap - old));
    }
    int rec = emu->nfree > 0 ? emu->free_recs[--emu->nfree] : emu->nrecs++;
    emu->rec_of[emu->ncolls] = rec;
    emu_coll *cr = &emu->colls[rec];
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
    cr->rank = emu_rank(emu->prio, (uint32_t)emu->ncolls, emu->key);
    cr->left = plan->chunks;
    memset(cr->bytes, 0, sizeof cr->bytes);
    memset(cr->busy, 0, sizeof cr->busy);
    cr->stages = 0;
    *k = emu->ncolls++;
    emu->t = t;
    return TH_OK;
}

int th_emu_issue(th_emu *emu, const th_plan *plan, double t, int *id, th_error *err) {
    if (!emu->sys) return th_error_set(err, TH_EINTERNAL, "collective issued before th_emu_reset");
    if (!(t >= emu->t) || !isfinite(t))
        return th_error_set(err, TH_EINTERNAL, "collective issued at %g ns, before now (%g ns)", t,
                            emu->t);
    if (plan->model != emu->sys->model)
        return th_error_set(err, TH_EINTERNAL, "a plan made for the %s model issued on a %s system",
                            th_model_name(plan->model), th_model_name(emu->sys->model));
    return emu->model->issue(emu, plan, t, id, err);
}

int th_emu_issue_key(th_emu *emu, const th_plan *plan, double t, int64_t key, int *id,
                     th_error *err) {
    if (key < 0 || key > INT32_MAX)
        return th_error_set(err, TH_EINTERNAL, "priority key %lld out of range", (long long)key);
    emu->key = key;
    int rc = th_emu_issue(emu, plan, t, id, err);
    emu->key = 0;
    return rc;
}

double th_emu_next(const th_emu *emu) {
    double t = INFINITY;
    for (int d = 0; emu->sys && d < emu->sys->ndims; d++)
        if (emu->srv[d].busy && emu->srv[d].end < t) t = emu->srv[d].end;
    return t;
}

int th_emu_step(th_emu *emu, th_error *err) {
    emu->ndone = 0;
    /* the earliest end, and the dims ending then in index order, in one scan */
    double t = INFINITY;
    int n = 0, nd = emu->sys ? emu->sys->ndims : 0;
    for (int d = 0; d < nd; d++) {
        if (!emu->srv[d].busy || emu->srv[d].end > t) continue;
        if (emu->srv[d].end < t) t = emu->srv[d].end, n = 0;
        emu->ending[n++] = d;
    }
    emu->nending = n;
    /* a caller that steps until something finishes would otherwise loop forever */
    if (t == INFINITY) return th_error_set(err, TH_EINTERNAL, "step with no stage running");
    emu->t = t;
    return emu->model->step(emu, err);
}

int th_emu_finished(const th_emu *emu, const int **ids) {
    *ids = emu->done;
    return emu->ndone;
}

double th_emu_now(const th_emu *emu) {
    return emu->t;
}

/* The result of a finished collective's record (SPEC §7). */
static int result_of(const th_emu *emu, const emu_coll *cr, th_result *res, th_error *err) {
    const th_plan *plan = cr->plan;
    const th_system *sys = emu->sys;
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

int th_emu_result(const th_emu *emu, int id, th_result *res, th_error *err) {
    memset(res, 0, sizeof *res);
    if (id < 0 || id >= emu->ncolls)
        return th_error_set(err, TH_EINTERNAL, "no collective %d (%d issued since the reset)", id,
                            emu->ncolls);
    if (emu->rec_of[id] < 0)
        return th_error_set(err, TH_EINTERNAL, "collective %d was released", id);
    const emu_coll *cr = emu_rec(emu, (uint32_t)id);
    if (cr->end < 0) return th_error_set(err, TH_EINTERNAL, "collective %d has not finished", id);
    return result_of(emu, cr, res, err);
}

int th_emu_release(th_emu *emu, int id, th_error *err) {
    if (id < 0 || id >= emu->ncolls || emu->rec_of[id] < 0)
        return th_error_set(err, TH_EINTERNAL, "no collective %d to release", id);
    if (emu_rec(emu, (uint32_t)id)->end < 0)
        return th_error_set(err, TH_EINTERNAL, "collective %d has not finished", id);
    if ((size_t)emu->nfree == emu->free_cap &&
        th_grow(&emu->free_recs, &emu->free_cap, emu->free_cap + 1, sizeof *emu->free_recs))
        return th_error_set(err, TH_EINTERNAL, "out of memory");
    emu->free_recs[emu->nfree++] = emu->rec_of[id];
    emu->rec_of[id] = -1;
    return TH_OK;
}

void th_emu_set_stop(th_emu *emu, const atomic_int *stop) {
    emu->stop = stop;
}

int th_emu_run(th_emu *emu, const th_system *sys, const th_plan *plan, th_intra intra,
               th_trace_fn trace, void *trace_ctx, th_result *res, th_error *err) {
    memset(res, 0, sizeof *res);
    th_emu_reset(emu, sys, intra, TH_PRIO_FIFO, trace, trace_ctx);
    if (!trace && emu->model->run && plan->model == sys->model) {
        emu_coll cr = {.plan = plan};
        int rc = emu->model->run(emu, &cr, err);
        if (rc == TH_OK) {
            emu->t = cr.end; /* now, as after issue and step */
            return result_of(emu, &cr, res, err);
        }
        if (rc != EMU_DECLINED) return rc;
    }
    int id;
    if (th_emu_issue(emu, plan, 0.0, &id, err)) return err->code;
    while (emu->nbusy > 0) {
        if (emu->stop && atomic_load_explicit(emu->stop, memory_order_relaxed))
            return th_error_set(err, TH_EINTERNAL, "interrupted");
        if (th_emu_step(emu, err)) return err->code;
    }
    return th_emu_result(emu, id, res, err);
}

/* The replay NPU by NPU: its state made and freed, each NPU's events handed to what registered
 * them, a collective's end to the workload layer, and the run of the backend's events in order
 * until none is left, the way the simulator's main loop runs them. */
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "npus.h"

int npus_init(npus *s, const npus_cfg *c) {
    memset(s, 0, sizeof *s);
    s->c = *c;
    s->sys = c->sys;
    s->n = c->npus > 0 ? c->npus : (int)c->sys->npus, s->nd = c->sys->ndims;
    s->zero_at = s->stop_at = s->wrap_id = -1;
    s->wrap_npu = -1;
    int64_t stride = 1;
    for (int d = 0; d < s->nd; d++) {
        s->p[d] = (int)c->sys->dims[d].npus;
        s->stride[d] = stride;
        stride *= s->p[d];
    }
    npus_greedy_reset(s);
    s->npus = calloc((size_t)s->n, sizeof *s->npus);
    return s->npus ? 0 : -1;
}

/* DataSet::notify_stream_finished: its last stream tells the workload layer. */
void npus_dataset_done(npus *s, int32_t di) {
    dataset *d = &s->ds[di];
    if (++d->finished == d->total) s->c.done(s, di);
}

/* Sys::call_events' callables: the workload's, a packet bundle, a dataset (a broadcast's), a
 * stream. */
void npus_dispatch(npus *s, int32_t n, int callee, int ev, int32_t obj, int32_t data) {
    switch (callee) {
    case C_WORK: s->c.work(s, n, ev, obj, data); break;
    case C_BUNDLE: npus_bundle_call(s, obj); break;
    case C_DATASET: npus_dataset_done(s, obj); break;
    default: npus_stream_run(s, obj, ev);
    }
}

int npus_run(npus *s) {
    uint64_t steps = 0;
    gev e;
    while (!s->oom && s->zero_at < 0 && s->stop_at < 0 && !s->too_long && npus_pop_event(s, &e)) {
        if (e.kind == G_CALL)
            npus_call_events(s, e.a);
        else if (e.kind == G_ARRIVE)
            npus_arrive(s, e.a);
        else if (e.kind == G_P2P)
            npus_p2p_received(s, e.a);
        else
            npus_stream_run(s, e.a, -1);
        if (!(++steps & 0xffff) &&
            ((s->c.stop && atomic_load(s->c.stop)) || (s->c.poll && s->c.poll(s->c.poll_ctx)))) {
            s->interrupted = 1;
            return -1;
        }
    }
    return s->oom ? -1 : 0;
}

void npus_free(npus *s) {
    free(s->gq);
    free(s->bk);
    free(s->times);
    free(s->bmap);
    free(s->ev);
    for (int32_t i = 0; i < s->stp.n; i++)
        free(s->st[i].a.q), free(s->st[i].ph);
    free(s->st);
    free(s->ds);
    free(s->bd);
    free(s->tab);
    free(s->msgs);
    free(s->waits);
    npool *pools[] = {&s->gqp, &s->bkp, &s->evp, &s->stp, &s->bdp, &s->waitp, &s->msgp};
    for (size_t i = 0; i < sizeof pools / sizeof *pools; i++)
        free(pools[i]->next);
    free(s->gr);
    for (int i = 0; i < s->nsy; i++)
        if (s->sy[i].live) free(s->sy[i].susp);
    free(s->sy);
    for (int n = 0; s->npus && n < s->n; n++) {
        npu *u = &s->npus[n];
        free(u->slots);
        for (int d = 0; d < TH_MAX_DIMS; d++)
            free(u->act[d]);
    }
    free(s->npus);
}

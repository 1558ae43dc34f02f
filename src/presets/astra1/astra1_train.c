/* The replay of ASTRA-sim 1.0's workload state machine (workload/Workload.cc, Layer.cc) on the
 * emulator: NPU 0's loop of states, one tick per state change, compute waits, the blocking
 * rules of each parallelism, update delays, passes, and its collectives sharing the dims'
 * queues. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "astra1_preset.h"
#include "themis/astra1.h"
#include "themis/astra1_workload.h"
#include "themis/buf.h"

/* Workload::LoopState */
enum { ST_FWD, ST_WG, ST_IG, ST_WAIT, ST_FIB /* Forward_In_BackPass */ };

#define MAX_PASSES 100000

/* A pending event: a call of the workload (a compute wait or the tick of a state change
 * ending) or a layer's collective done after its update delay. */
typedef struct event {
    double t;
    uint64_t seq; /* events of one tick run in the order they were registered */
    double reg;   /* the tick it was registered at */
    int kind;     /* EV_CALL or EV_DONE */
    int k;        /* EV_DONE: layer * 3 + phase */
} event;
enum { EV_CALL, EV_DONE };

typedef struct replay {
    const th_system *sys; /* the (split) system */
    const th_a1_workload *wl;
    const th_a1_replay_opts *o;
    const char *src;
    th_error *err;
    int L;
    /* per layer and phase (layer * 3 + phase) */
    double *cyc, *size;
    uint32_t *mask;
    int *out;     /* datasets in flight (issued, not done after the delay) */
    int *waiting; /* the workload waits for them (Layer::started_waiting_for_*) */
    int *barrier; /* the last issue was blocking */
    /* Workload's state */
    int state, index, delay_loaded, issued, pass, registered, done;
    int recomputing; /* FWD_IN_BCKWD: checkpoint_initiated */
    double counter;
    double t;
    double compute;
    double *pass_end;
    int64_t injected, finished;
    th_a1_tracker tracker; /* 1.0: the Themis list, shared by the collectives of one tick */
    double last_plan_t;    /* the tick of the last collective generated */
    int npu0_behind;       /* a completion woke the workload: NPU 0 no longer generates first */
    int woken;             /* a completion has woken the workload (any boost-mode) */
    int reset_pending;     /* NPU 0's reset of the last tick, due after that tick's plans */
    int reverse;           /* order the ties NPU 0's place leaves open the other way */
    /* Before the first wake NPU 0 generates first (it resets the loads, then plans) as long as
     * each NPU's workload event of a tick makes its list for that tick, in the order the NPUs
     * ran the tick before. A workload tick that meets an event the NPUs registered earlier may
     * change which NPU is first (docs/VALIDATION.md, "The NPU that plans first"); another NPU
     * first plans with the loads the last tick left, and NPU 0 resets them after, so it plans
     * differently only at a tick where it takes over from NPU 0. There, when the two
     * candidates' loads differ, `alt` follows the other one and every plan is made both
     * ways. */
    int may_lose;    /* since the last tick with a collective, NPU 0 may have fallen behind */
    int may_regain;  /* or come first again */
    int other;       /* another NPU generates first (in a run that follows `dev`) */
    int shuffled;    /* such a tick has been met: the NPUs after the first may no longer
                      * generate in index order (astra1_emu_behind) */
    int tick_unsure; /* this tick's loads depend on which NPU generates first */
    int lose_unsure; /* since the last tick with a collective, NPU 0 may have fallen behind
                      * where the NPUs' order is not known (else another NPU surely took over) */
    int no_sure;     /* never take another NPU as surely first (the guard's run) */
    int sure_made;   /* ticks where another NPU was taken as surely first */
    int sure_woken;  /* and a collective was generated after a completion woke the workload */
    /* Such ticks, numbered in the order met: the run has the other NPU take over at those in
     * `dev` (ascending) and notes at which its plans differed (`diff`, `npoint` of them). */
    const int *dev;
    int ndev, npoint;
    unsigned char *diff;
    size_t diff_cap;
    double done_t;      /* the tick of the last completion after its update delay */
    double done_reg;    /* and the earliest tick one of those was registered at */
    th_a1_tracker alt;  /* the other candidate's loads at this tick */
    th_plan *alt_plan;  /* scratch for the other candidate's plan */
    int unsure_n;       /* ticks where the two candidates plan a collective differently */
    int unsure_line;    /* the workload line of the first such collective */
    int unsure_phase;   /* and its phase */
    double unsure_t[4]; /* the first few such ticks */
    double unsure_last; /* the last one */
    /* the network */
    th_emu *emu;
    int *k_of_id;     /* emulator id -> layer * 3 + phase */
    int *pass_of;     /* emulator id -> the pass that issued it (for the trace) */
    double *issue_of; /* emulator id -> its issue tick (for the trace) */
    th_train_trace_fn trace;
    void *trace_ctx;
    size_t id_cap;
    th_plan **plan_of; /* emulator id -> its plan, while in flight */
    th_plan **pool;
    int npool;
    size_t pool_cap;
    event *ev;
    int nev;
    size_t ev_cap;
    uint64_t seq;
} replay;

static int call(replay *r);

static const char *const phase_field[TH_NPHASES] = {"forward", "input-grad", "weight-grad"};

static int push(replay *r, int kind, double t, int k) {
    if (th_grow(&r->ev, &r->ev_cap, (size_t)r->nev + 1, sizeof *r->ev))
        return th_error_set(r->err, TH_EINTERNAL, "out of memory");
    r->ev[r->nev++] = (event){t, r->seq++, r->t, kind, k};
    return TH_OK;
}

/* The earliest event (by time, then registration), or -1. */
static int earliest(const replay *r) {
    int best = -1;
    for (int i = 0; i < r->nev; i++)
        if (best < 0 || r->ev[i].t < r->ev[best].t ||
            (r->ev[i].t == r->ev[best].t && r->ev[i].seq < r->ev[best].seq))
            best = i;
    return best;
}

static int kk(int layer, th_phase p) {
    return layer * TH_NPHASES + (int)p;
}

/* Layer::is_*_comm_finished_blocking: done, or the workload now waits for it. */
static int done_blocking(replay *r, int layer, th_phase p) {
    int k = kk(layer, p);
    if (r->out[k] == 0) return 1;
    r->waiting[k] = 1;
    return 0;
}

/* How many dims of more than one NPU mask spans. */
static int active_dims(const replay *r, uint32_t mask) {
    int n = 0;
    for (int d = 0; d < r->sys->ndims; d++)
        n += (mask >> d) & 1u && r->sys->dims[d].npus > 1;
    return n;
}

static int active(const replay *r, uint32_t mask) {
    for (int d = 0; d < r->sys->ndims; d++)
        if ((mask >> d) & 1u && r->sys->dims[d].npus > 1) return 1;
    return 0;
}

/* th_astra1_plan for the replay. While the tick's loads depend on which NPU generates first
 * (new_tick), the other candidate plans too, and a different order is noted. */
static int a1_plan(replay *r, th_plan *plan, const th_collective *c, int line, th_phase p) {
    if (th_astra1_plan(plan, r->sys, c, r->o->policy, &r->tracker, r->err)) return r->err->code;
    if (!r->tick_unsure) return TH_OK;
    if (!r->alt_plan && !(r->alt_plan = th_plan_create()))
        return th_error_set(r->err, TH_EINTERNAL, "out of memory");
    th_plan *q = r->alt_plan;
    if (th_astra1_plan(q, r->sys, c, r->o->policy, &r->alt, r->err)) return r->err->code;
    size_t n = (size_t)plan->chunks * (size_t)plan->n;
    if (q->chunks == plan->chunks && q->n == plan->n && !memcmp(q->order, plan->order, n))
        return TH_OK;
    r->diff[r->npoint - 1] = 1;
    if (r->unsure_n == 0) r->unsure_line = line, r->unsure_phase = (int)p;
    if (r->unsure_n == 0 || r->unsure_last != r->t) {
        if (r->unsure_n < 4) r->unsure_t[r->unsure_n] = r->t;
        r->unsure_n++;
        r->unsure_last = r->t;
    }
    return TH_OK;
}

static int same_loads(const th_a1_tracker *a, const th_a1_tracker *b, int ndims) {
    for (int d = 0; d < ndims; d++)
        if (a->dim[d] != b->dim[d] || a->load[d] != b->load[d]) return 0;
    return 1;
}

/* NPU 0's reset of the Themis loads at a new tick t (Sys::generate_collective resets them in
 * NPU 0's call only, when the tick changed). Before the first wake NPU 0 generates first,
 * resetting before it plans, until a workload tick meets an event that the NPUs registered
 * before their workload events (may_lose, run): from the next tick with a collective on,
 * another NPU may generate first, planning with the loads the last tick left. That tick is a
 * point where the two candidates may plan differently (at the ticks after it, NPU 0's reset
 * having come after the other NPU's plans, both plan from reset loads), so both plan its
 * collectives (a1_plan) when their loads differ; a run following `dev` has the other NPU take
 * over there. Once a completion has woken the workload, NPU 0 resumes after other NPUs
 * (boost-mode 1: those outside the last phase's ring come first), so a collective is planned
 * with the loads as the last one left them and NPU 0's reset comes after its plans. */
static int new_tick(replay *r) {
    if (r->reset_pending) th_astra1_tracker_reset(&r->tracker, r->sys);
    r->reset_pending = 0;
    r->tick_unsure = 0;
    r->last_plan_t = r->t;
    if (r->npu0_behind) {
        r->reset_pending = 1;
        return TH_OK;
    }
    th_a1_tracker left = r->tracker;
    th_astra1_tracker_reset(&r->tracker, r->sys);
    int themis = r->o->policy == TH_POLICY_THEMIS || r->o->policy == TH_POLICY_THEMIS_GLOBAL;
    int lose = r->may_lose, regain = r->may_regain, sure = lose && !r->lose_unsure && !regain;
    r->may_lose = r->may_regain = r->lose_unsure = 0;
    if (r->other && regain) r->other = 0;             /* NPU 0 first again (it may as well be) */
    if (!r->other && sure && themis && !r->no_sure) { /* another NPU surely first from here */
        r->sure_made++;
        r->alt = r->tracker;
        r->tracker = left;
        r->reset_pending = 1;
        r->other = 1;
        return TH_OK;
    }
    if (r->other) { /* the other NPU still first: it plans from the loads NPU 0 reset */
        r->alt = r->tracker;
        r->tracker = left;
        r->reset_pending = 1;
        return TH_OK;
    }
    if (!themis || !lose || same_loads(&left, &r->tracker, r->sys->ndims)) return TH_OK;
    if (th_grow(&r->diff, &r->diff_cap, (size_t)r->npoint + 1, sizeof *r->diff))
        return th_error_set(r->err, TH_EINTERNAL, "out of memory");
    r->diff[r->npoint] = 0;
    r->tick_unsure = 1;
    r->alt = left;
    int i = 0;
    while (i < r->ndev && r->dev[i] < r->npoint)
        i++;
    r->npoint++;
    if (i < r->ndev && r->dev[i] == r->npoint - 1) { /* the other NPU takes over */
        r->alt = r->tracker;
        r->tracker = left;
        r->reset_pending = 1;
        r->other = 1;
    }
    return TH_OK;
}

/* Layer::issue_*_comm with the priority request `pref` (Sys::get_priority, which the 1.0
 * preset's th_astra1_issue follows; our model orders collectives by --priority): a collective
 * that is NONE or spans no dim of more than one NPU is not issued, and a blocking one lets the
 * workload go on at once. */
static int issue(replay *r, int layer, th_phase p, th_a1_prio pref, int blocking) {
    int k = kk(layer, p);
    r->barrier[k] = blocking;
    const th_a1_phase *ph = &r->wl->layers[layer].ph[p];
    if (ph->type == TH_A1_NONE) return blocking ? call(r) : TH_OK;
    /* Sys::generate_collective: the first NPU to ask plans each chunk for all (new_tick) */
    int a1 = r->sys->model == TH_MODEL_ASTRA1;
    if (a1 && r->last_plan_t != r->t && new_tick(r)) return r->err->code;
    if (r->sure_made && r->npu0_behind) r->sure_woken = 1;
    if (!active(r, r->mask[k])) return blocking ? call(r) : TH_OK;
    if (a1 && r->woken && !astra1_of(r->sys)->boost && r->o->policy == TH_POLICY_THEMIS &&
        active_dims(r, r->mask[k]) > 1)
        return th_error_set(r->err, TH_EINPUT,
                            "%s:%d: the %s collective is generated after a completion woke the "
                            "workload, with boost_mode 0 and Themis: every NPU then simulates and "
                            "the order in which they generate it, which decides the loads Themis "
                            "plans it with, is not followed by the astra-sim-1.0 preset "
                            "(docs/VALIDATION.md, \"Refused, and why\"; boost_mode 1 "
                            "is followed)",
                            r->src, r->wl->layers[layer].line, phase_field[p]);
    th_plan *plan = r->npool ? r->pool[--r->npool] : th_plan_create();
    if (!plan) return th_error_set(r->err, TH_EINTERNAL, "out of memory");
    th_collective c = {(th_coll_type)ph->type, r->size[k], r->o->chunks, r->mask[k]};
    int id;
    if (a1) astra1_emu_behind(r->emu, r->npu0_behind || r->shuffled, r->reverse);
    if (a1 ? a1_plan(r, plan, &c, r->wl->layers[layer].line, p) ||
                 th_astra1_issue(r->emu, plan, r->t, pref, &id, r->err)
           : th_sched_plan(plan, r->sys, &c, r->o->policy, r->o->model, r->err) ||
                 th_emu_issue(r->emu, plan, r->t, &id, r->err)) {
        th_plan_free(plan);
        return r->err->code;
    }
    if ((size_t)id >= r->id_cap) {
        /* four arrays by id, grown alike: each from the old capacity to the same new one */
        size_t need = (size_t)id + 1, c0 = r->id_cap, c1 = c0, c2 = c0, c3 = c0;
        if (th_grow(&r->k_of_id, &c0, need, sizeof *r->k_of_id) ||
            th_grow(&r->pass_of, &c1, need, sizeof *r->pass_of) ||
            th_grow(&r->issue_of, &c2, need, sizeof *r->issue_of) ||
            th_grow(&r->plan_of, &c3, need, sizeof *r->plan_of)) {
            th_plan_free(plan);
            return th_error_set(r->err, TH_EINTERNAL, "out of memory");
        }
        memset(r->plan_of + r->id_cap, 0, sizeof *r->plan_of * (c3 - r->id_cap));
        r->id_cap = c3;
    }
    r->k_of_id[id] = k;
    r->pass_of[id] = r->pass;
    r->issue_of[id] = r->t;
    r->plan_of[id] = plan;
    r->out[k]++;
    r->injected++;
    return TH_OK;
}

/* Loads the compute of the current layer's phase once; 1 when the workload now waits for it. */
static int compute(replay *r, th_phase p, int *rc) {
    if (!r->delay_loaded) {
        r->counter = r->cyc[kk(r->index, p)];
        r->compute += r->counter;
        r->delay_loaded = 1;
        if (r->trace) {
            th_train_event ev = {0, r->pass, r->index, p, r->t, r->t + r->counter};
            r->trace(r->trace_ctx, &ev);
        }
    }
    *rc = TH_OK;
    if (r->counter > 0) {
        *rc = push(r, EV_CALL, r->t + r->counter, 0);
        r->counter = 0;
        return 1;
    }
    return 0;
}

/* A state change: the workload is called again one tick later. */
static int tick(replay *r) {
    return push(r, EV_CALL, r->t + 1, 0);
}

static void pass_done(replay *r) {
    r->pass_end[r->pass++] = r->t;
}

/* Workload::check_for_sim_end */
static void check_end(replay *r) {
    if (r->pass != r->o->passes) return;
    r->state = ST_WAIT;
    if (r->finished != r->injected && !r->registered) {
        r->registered = 1;
        done_blocking(r, 0, TH_PHASE_WG);
        return;
    }
    if (r->finished == r->injected) r->done = 1;
}

/* One forward with a blocking comm (MODEL-like passes, FWD_IN_BCKWD, inference): wait for the
 * layer's WG comm, compute, issue the forward comm and wait for it, then move to the next layer.
 * Returns 1 with *rc set when the caller must return *rc now, 0 once the layer is done. */
static int forward_step(replay *r, int *rc) {
    *rc = TH_OK;
    if (!done_blocking(r, r->index, TH_PHASE_WG)) return 1;
    if (compute(r, TH_PHASE_FWD, rc)) return 1;
    if (!r->issued) {
        r->issued = 1;
        *rc = issue(r, r->index, TH_PHASE_FWD, TH_A1_PRIO_NONE, 1);
        return 1;
    }
    r->index++;
    r->delay_loaded = 0;
    r->issued = 0;
    return 0;
}

/* DATA (and the state machine's shape of HYBRID_DLRM): backward is WG compute, WG comm, then
 * the IG compute of the layer before (layer 0 has none). */
static int iterate_data(replay *r) {
    int rc;
    check_end(r);
    if (r->state == ST_FWD) {
        if (!done_blocking(r, r->index, TH_PHASE_WG)) return TH_OK;
        if (compute(r, TH_PHASE_FWD, &rc)) return rc;
        r->index++;
        r->delay_loaded = 0;
        if (r->index >= r->L) r->state = ST_WG, r->index--;
        return tick(r);
    }
    if (r->state == ST_WG) {
        if (compute(r, TH_PHASE_WG, &rc)) return rc;
        r->delay_loaded = 0;
        if ((rc = issue(r, r->index, TH_PHASE_WG, TH_A1_PRIO_NONE, 0))) return rc;
        if (r->index == 0) {
            pass_done(r);
            r->state = ST_FWD;
        } else {
            r->state = ST_IG;
        }
        return tick(r);
    }
    if (r->state == ST_IG) {
        if (compute(r, TH_PHASE_IG, &rc)) return rc;
        r->delay_loaded = 0;
        r->index--;
        r->state = ST_WG;
        return tick(r);
    }
    return TH_OK;
}

/* MODEL, HYBRID_DATA_MODEL, HYBRID_MODEL_DATA and HYBRID_TRANSFORMER: blocking forward comm;
 * backward is IG compute, IG comm, WG compute, WG comm (not MODEL), then the wait for the
 * layer's IG comm. */
static int iterate_hybrid(replay *r) {
    int rc, par = r->wl->par, transformer = th_a1_transformer(r->wl->par);
    check_end(r);
    if (r->state == ST_FWD) {
        if (forward_step(r, &rc)) return rc;
        if (r->index >= r->L) r->state = ST_IG, r->index--;
        return tick(r);
    }
    if (r->state == ST_WG) {
        if (compute(r, TH_PHASE_WG, &rc)) return rc;
        if (par != TH_A1_MODEL && !r->issued) {
            r->issued = 1;
            if ((rc = issue(r, r->index, TH_PHASE_WG, TH_A1_PRIO_FIFO, 0))) return rc;
        }
        if (!done_blocking(r, r->index, TH_PHASE_IG)) return TH_OK;
        r->issued = 0;
        r->delay_loaded = 0;
        r->index--;
        if (r->index == -1) {
            r->index = 0;
            pass_done(r);
            r->state = ST_FWD;
        } else {
            r->state = ST_IG;
        }
        return tick(r);
    }
    if (r->state == ST_IG) {
        /* FWD_IN_BCKWD: first recompute the forwards from the checkpoint below */
        if (r->wl->layers[r->index].initiates && !r->recomputing) {
            while (!r->wl->layers[r->index].checkpoint)
                r->index--;
            r->state = ST_FIB;
            r->recomputing = 1;
            return tick(r);
        }
        if (compute(r, TH_PHASE_IG, &rc)) return rc;
        if (!r->issued && (r->index > 0 || transformer)) {
            r->issued = 1;
            /* the tag's Transformer waits for its input-gradient comm */
            int blocking = transformer && r->o->scale.tag;
            if ((rc = issue(r, r->index, TH_PHASE_IG, TH_A1_PRIO_LIFO, blocking))) return rc;
            if (blocking) return TH_OK;
        }
        r->recomputing = 0;
        r->issued = 0;
        r->delay_loaded = 0;
        r->state = ST_WG;
        return tick(r);
    }
    if (r->state == ST_FIB) { /* a forward again, up to the layer that started it */
        if (forward_step(r, &rc)) return rc;
        if (r->wl->layers[r->index].initiates) r->state = ST_IG;
        return tick(r);
    }
    return TH_OK;
}

/* HYBRID_DLRM K: layer 0's forward All-to-All (highest priority, not blocking) is waited for at
 * layer K; its input-gradient All-to-All is issued after layer K+1's IG compute, and layer 0's
 * WG waits for it. */
static int iterate_dlrm(replay *r) {
    int rc, K = r->wl->last_bottom;
    check_end(r);
    if (r->state == ST_FWD) {
        if (!done_blocking(r, r->index, TH_PHASE_WG)) return TH_OK;
        if (compute(r, TH_PHASE_FWD, &rc)) return rc;
        if (!r->issued && r->wl->layers[r->index].ph[TH_PHASE_FWD].type == TH_COLL_ALLTOALL) {
            r->issued = 1;
            if ((rc = issue(r, r->index, TH_PHASE_FWD, TH_A1_PRIO_HIGHEST, 0))) return rc;
        } else if (r->index == K) {
            if (!done_blocking(r, 0, TH_PHASE_FWD)) return TH_OK;
        }
        r->index++;
        r->delay_loaded = 0;
        r->issued = 0;
        if (r->index >= r->L) r->state = ST_WG, r->index--;
        return tick(r);
    }
    if (r->state == ST_WG) {
        if (compute(r, TH_PHASE_WG, &rc)) return rc;
        if (!r->issued) {
            r->issued = 1;
            if ((rc = issue(r, r->index, TH_PHASE_WG, TH_A1_PRIO_NONE, 0))) return rc;
        }
        /* HYBRID_DLRM_ENHANCED does not wait for the input-gradient All-to-All */
        if (r->wl->par == TH_A1_HYBRID_DLRM && !done_blocking(r, r->index, TH_PHASE_IG))
            return TH_OK;
        if (r->index == 0) {
            pass_done(r);
            r->state = ST_FWD;
        } else {
            r->state = ST_IG;
        }
        r->delay_loaded = 0;
        r->issued = 0;
        return tick(r);
    }
    if (r->state == ST_IG) {
        if (compute(r, TH_PHASE_IG, &rc)) return rc;
        if (r->index == K + 1 && (rc = issue(r, 0, TH_PHASE_IG, TH_A1_PRIO_HIGHEST, 0))) return rc;
        r->index--;
        r->state = ST_WG;
        r->issued = 0;
        r->delay_loaded = 0;
        return tick(r);
    }
    return TH_OK;
}

/* DISTRIBUTED_INFERENCE: forwards only, each waiting for its collective; the last one ends
 * the pass. */
static int iterate_inference(replay *r) {
    int rc;
    check_end(r);
    if (r->state != ST_FWD) return TH_OK;
    if (forward_step(r, &rc)) return rc;
    if (r->index >= r->L) {
        r->index = 0;
        pass_done(r);
    }
    return tick(r);
}

/* MICRO: layer 0's weight-gradient collective once per pass, all at the first call. */
static int iterate_micro(replay *r) {
    if (r->state != ST_WAIT) {
        for (r->pass = 0; r->pass < r->o->passes; r->pass++) {
            int rc = issue(r, 0, TH_PHASE_WG, TH_A1_PRIO_NONE, 0);
            if (rc) return rc;
            r->pass_end[r->pass] = r->t;
        }
    }
    check_end(r);
    return TH_OK;
}

/* Workload::call */
static int call(replay *r) {
    if (r->counter > 0) {
        int rc = push(r, EV_CALL, r->t + r->counter, 0);
        r->counter = 0;
        return rc;
    }
    switch (r->wl->par) {
    case TH_A1_DATA: return iterate_data(r);
    case TH_A1_HYBRID_DLRM:
    case TH_A1_HYBRID_DLRM_ENHANCED: return iterate_dlrm(r);
    case TH_A1_MICRO: return iterate_micro(r);
    case TH_A1_DISTRIBUTED_INFERENCE: return iterate_inference(r);
    default: return iterate_hybrid(r);
    }
}

/* Layer::call for *_Comm_Finished_After_Delay: the dataset is gone; the workload is called if
 * it blocks on it (the only one left of a blocking issue) or waits for it; then the finished
 * streams count up, and a workload waiting for the end is called. */
static int comm_done(replay *r, int k) {
    int rc = TH_OK;
    int wake = (r->out[k] == 1 && r->barrier[k]) || r->waiting[k];
    if (!(r->out[k] == 1 && r->barrier[k])) r->waiting[k] = 0;
    r->out[k]--;
    if (wake) {
        r->woken = 1;
        if (r->sys->model == TH_MODEL_ASTRA1 && astra1_of(r->sys)->boost)
            r->npu0_behind = 1; /* boost-mode 0: every NPU runs every phase */
        rc = call(r);
    }
    r->finished++;
    if (rc == TH_OK && r->registered) rc = call(r);
    return rc;
}

static int net_step(replay *r) {
    if (th_emu_step(r->emu, r->err)) return r->err->code;
    r->t = th_emu_now(r->emu);
    const int *ids;
    int n = th_emu_finished(r->emu, &ids);
    for (int i = 0; i < n; i++) {
        int id = ids[i], k = r->k_of_id[id];
        if (th_emu_release(r->emu, id, r->err)) return r->err->code;
        if (th_grow(&r->pool, &r->pool_cap, (size_t)r->npool + 1, sizeof *r->pool))
            return th_error_set(r->err, TH_EINTERNAL, "out of memory");
        r->pool[r->npool++] = r->plan_of[id];
        r->plan_of[id] = NULL;
        if (r->trace) {
            th_train_event ev = {
                1,   r->pass_of[id], k / TH_NPHASES, (th_phase)(k % TH_NPHASES), r->issue_of[id],
                r->t};
            r->trace(r->trace_ctx, &ev);
        }
        double u = r->wl->layers[k / TH_NPHASES].update;
        int rc = u > 0 ? push(r, EV_DONE, r->t + u, k) : comm_done(r, k);
        if (rc) return rc;
    }
    return TH_OK;
}

static int setup(replay *r) {
    const th_a1_workload *wl = r->wl;
    const th_a1_replay_opts *o = r->o;
    size_t n = (size_t)r->L * TH_NPHASES;
    r->cyc = calloc(n, sizeof *r->cyc);
    r->size = calloc(n, sizeof *r->size);
    r->mask = calloc(n, sizeof *r->mask);
    r->out = calloc(n, sizeof *r->out);
    r->waiting = calloc(n, sizeof *r->waiting);
    r->barrier = calloc(n, sizeof *r->barrier);
    r->pass_end = calloc((size_t)o->passes, sizeof *r->pass_end);
    if (!r->cyc || !r->size || !r->mask || !r->out || !r->waiting || !r->barrier || !r->pass_end ||
        !(r->emu = th_emu_create()))
        return th_error_set(r->err, TH_EINTERNAL, "out of memory");
    for (int l = 0; l < r->L; l++)
        for (int p = 0; p < TH_NPHASES; p++) {
            const th_a1_phase *ph = &wl->layers[l].ph[p];
            int k = kk(l, (th_phase)p), line = wl->layers[l].line;
            r->cyc[k] = th_a1_scaled(ph->cycles, o->scale.compute, o->scale.tag);
            r->size[k] = th_a1_scaled(ph->size, o->scale.comm, o->scale.tag);
            r->mask[k] = th_a1_dims(wl, r->sys, l, (th_phase)p);
            if (ph->type == TH_A1_NONE || !th_a1_issues(wl, l, (th_phase)p)) continue;
            if (r->size[k] == 0)
                return th_error_set(r->err, TH_EINPUT,
                                    "%s:%d: field %d (%s comm size): ASTRA-sim 1.0 never finishes "
                                    "a collective of 0 bytes (%s issues this one)%s",
                                    r->src, line, 5 + 3 * p, phase_field[p],
                                    th_a1_parallelism_names[wl->par],
                                    ph->size > 0 ? ", here after --comm-scale" : "");
            if (!active(r, r->mask[k])) continue;
            if (r->size[k] < (double)o->chunks)
                return th_error_set(r->err, TH_EINPUT,
                                    "%s:%d: field %d (%s comm size): %.0f bytes in %lld chunks "
                                    "(preferred-dataset-splits) makes chunks of 0 bytes, which "
                                    "ASTRA-sim 1.0 cuts forever",
                                    r->src, line, 5 + 3 * p, phase_field[p], r->size[k],
                                    (long long)o->chunks);
            th_collective c = {(th_coll_type)ph->type, r->size[k], o->chunks, r->mask[k]};
            th_error e;
            if (th_collective_validate(r->sys, &c, &e))
                return th_error_set(r->err, TH_EINPUT, "%s:%d: %s collective: %s", r->src, line,
                                    phase_field[p], e.msg);
        }
    th_emu_reset(r->emu, r->sys, o->intra, o->lifo ? TH_PRIO_LIFO : TH_PRIO_FIFO, NULL, NULL);
    r->state = ST_FWD;
    r->last_plan_t = -1;
    th_astra1_tracker_reset(&r->tracker, r->sys);
    r->npu0_behind = r->reset_pending = r->woken = 0;
    r->done_t = -1;
    return TH_OK;
}

/* At a tick where phases end and event x is due: ASTRA-sim runs an NPU's events of one tick in
 * the order they were registered, so x goes first when it was registered before the events
 * that end every one of those phases (th_astra1_ending_lags; a collective x issues then joins
 * the lists before the phases end). Otherwise, and always under our model, the phases end
 * first (when x was registered between them, or at the same tick as one, ASTRA-sim's order is
 * not followed: docs/WORKLOADS.md). */
static int event_first(const replay *r, const event *x) {
    double lo, hi;
    if (r->sys->model != TH_MODEL_ASTRA1 || !th_astra1_ending_lags(r->emu, &lo, &hi)) return 0;
    return lo >= 0 && x->reg < x->t - hi;
}

/* Whether a layer's completion after its update delay is due at the tick of call x (pending,
 * or run already) and was registered before x: ASTRA-sim registers it on every NPU when the
 * collective ends there, in the order the NPUs move on, NPU 0 not necessarily first. */
static int done_before(const replay *r, const event *x) {
    if (r->done_t == x->t && r->done_reg < x->reg) return 1;
    for (int i = 0; i < r->nev; i++)
        if (r->ev[i].kind == EV_DONE && r->ev[i].t == x->t && r->ev[i].reg < x->reg) return 1;
    return 0;
}

static int run(replay *r) {
    r->t = 0;
    int rc = call(r); /* Workload::fire */
    while (rc == TH_OK && !r->done) {
        if (r->o->stop && atomic_load_explicit(r->o->stop, memory_order_relaxed))
            return th_error_set(r->err, TH_EINTERNAL, "interrupted");
        double tn = th_emu_next(r->emu);
        int e = earliest(r);
        double te = e < 0 ? INFINITY : r->ev[e].t;
        if (tn == INFINITY && te == INFINITY)
            return th_error_set(r->err, TH_EINPUT,
                                "%s: the replay waits forever at %.0f ns (pass %d, layer %d): "
                                "ASTRA-sim 1.0 would end without a report",
                                r->src, r->t, r->pass, r->index);
        if (tn < te || (tn == te && !event_first(r, &r->ev[e]))) {
            rc = net_step(r);
            continue;
        }
        event x = r->ev[e];
        r->ev[e] = r->ev[--r->nev];
        r->t = x.t;
        /* a workload call meets an event of its tick that the NPUs registered before NPU 0
         * registered the call: the NPUs holding it made their lists for the tick first, and
         * the NPU that generates first may change (new_tick). NPU 0 first at the tick it
         * registered the call did so before any NPU registered an event then; another NPU first
         * may, ending a phase, have started NPU 0's next one then, so that tick counts too for
         * NPU 0 coming first again. */
        if (x.kind == EV_CALL && r->sys->model == TH_MODEL_ASTRA1 && !r->npu0_behind) {
            int ev = astra1_emu_events_before(r->emu, x.t, x.reg), done = done_before(r, &x);
            r->may_lose |= (ev & 1) || done;
            /* bit 4: the ring orders say another NPU made its list for the tick first */
            if (((ev & 1) || done) && (done || !(ev & 4))) r->lose_unsure = 1;
            r->shuffled |= (ev & 1) || done;
            r->may_regain |= (astra1_emu_events_before(r->emu, x.t, x.reg + 1) & 2) || done;
        }
        /* a workload event made every NPU's list for its tick when it was registered: the
         * phases' events of that tick registered later run in that NPU order */
        if (r->sys->model == TH_MODEL_ASTRA1) astra1_emu_mark_after(r->emu, x.t, x.reg);
        if (x.kind == EV_DONE) {
            if (r->done_t != x.t || x.reg < r->done_reg) r->done_reg = x.reg;
            r->done_t = x.t;
        }
        rc = x.kind == EV_CALL ? call(r) : comm_done(r, x.k);
    }
    return rc;
}

static void teardown(replay *r) {
    if (r->alt_plan) th_plan_free(r->alt_plan);
    free(r->diff);
    for (size_t i = 0; i < r->id_cap && r->plan_of; i++)
        if (r->plan_of[i]) th_plan_free(r->plan_of[i]);
    for (int i = 0; i < r->npool; i++)
        th_plan_free(r->pool[i]);
    free(r->pool);
    free(r->plan_of);
    free(r->k_of_id);
    free(r->pass_of);
    free(r->issue_of);
    free(r->ev);
    free(r->cyc);
    free(r->size);
    free(r->mask);
    free(r->out);
    free(r->waiting);
    free(r->barrier);
    th_emu_free(r->emu);
}

/* Replays r's run again with the ties reversed (reverse) and the other candidate followed at
 * the ticks in dev (new_tick); *same says whether the end of the run and of each pass stayed,
 * *other is the other end. With `o`, the run is kept there for the caller to tear down. */
static int rerun(const replay *r, int reverse, const int *dev, int ndev, int *same, double *other,
                 replay *keep) {
    replay o = {0};
    o.sys = r->sys, o.wl = r->wl, o.o = r->o, o.src = r->src, o.err = r->err, o.L = r->L;
    o.reverse = reverse;
    o.dev = dev, o.ndev = ndev;
    o.no_sure = r->no_sure;
    int rc = setup(&o);
    if (rc == TH_OK) rc = run(&o);
    *same = rc == TH_OK && o.t == r->t;
    for (int p = 0; *same && p < r->o->passes; p++)
        *same = o.pass_end[p] == r->pass_end[p];
    *other = o.t;
    free(o.pass_end);
    o.pass_end = NULL;
    if (keep) {
        *keep = o;
    } else {
        teardown(&o);
    }
    return rc;
}

/* Phases that one collective issued after a completion woke the workload (or after a workload
 * tick met events some NPUs registered early, `shuffled`) started together and that end at one
 * ns with identical chains move on in the order the NPUs generated it, which the preset does
 * not follow (it keeps the dim order); so do phases whose events of an ns ran in the order of a
 * workload event registered before them (astra1_emu_mark_after). When the replay met such ties, it
 * runs again with their order reversed and refuses the run if what it reports (the end of the run
 * and of each pass) changes. */
static int check_resume_order(replay *r) {
    if (r->sys->model != TH_MODEL_ASTRA1 || astra1_emu_unsure(r->emu) == 0) return TH_OK;
    int same;
    double other;
    int rc = rerun(r, 1, NULL, 0, &same, &other, NULL);
    if (rc != TH_OK || same) return rc;
    return th_error_set(r->err, TH_EINPUT,
                        "%s: phases that one collective started together end at the same ns "
                        "with identical event chains after a completion woke the workload (or "
                        "after NPUs made their lists for a workload tick early, or after a "
                        "workload event made their lists for an ns of those phases' events), "
                        "and their order changes the result (%.0f or %.0f ns): ASTRA-sim 1.0 "
                        "orders them by the order in which its NPUs resumed (or generated the "
                        "collective, or registered that workload event), "
                        "which the astra-sim-1.0 preset does not follow (docs/VALIDATION.md, "
                        "\"Refused, and why\")",
                        r->src, r->t, other);
}

#define MAX_ORDERS 64 /* runs tried with other NPUs first before the replay gives up */
#define MAX_DEV    16 /* ticks of one such run where another NPU plans first */

/* The ticks where another NPU may plan first (new_tick): at each, NPU 0 or another NPU comes
 * first; they plan alike unless the loads the last tick left change a plan there. The replay
 * runs again with the other NPU first at every set of such ticks whose plans differ (a tick
 * reached in a run with those before it taken), depth first, and refuses the run if what it
 * reports changes in any, or when more than MAX_ORDERS runs would be needed. */
static int check_tick_order(replay *r) {
    if (r->unsure_n == 0) return TH_OK;
    int stack[MAX_ORDERS][MAX_DEV], depth[MAX_ORDERS], top = 0, runs = 0, rc = TH_OK, same = 1;
    double other = r->t;
    /* the children of the first run: every tick whose plans differed */
    for (int i = r->npoint - 1; i >= 0 && top < MAX_ORDERS; i--)
        if (r->diff[i]) stack[top][0] = i, depth[top++] = 1;
    int over = top == MAX_ORDERS;
    while (top > 0 && same && rc == TH_OK && !over) {
        top--;
        int dev[MAX_DEV], n = depth[top];
        memcpy(dev, stack[top], sizeof dev);
        replay o;
        if (++runs > MAX_ORDERS) {
            over = 1;
            break;
        }
        rc = rerun(r, 0, dev, n, &same, &other, &o);
        if (rc == TH_OK && same)
            for (int i = o.npoint - 1; i > dev[n - 1]; i--) {
                if (!o.diff[i]) continue;
                if (top == MAX_ORDERS || n == MAX_DEV) {
                    over = 1;
                    break;
                }
                memcpy(stack[top], dev, sizeof dev);
                stack[top][n] = i;
                depth[top++] = n + 1;
            }
        teardown(&o);
    }
    if (same && rc == TH_OK && !over) return TH_OK;
    char ticks[160];
    int len = 0, shown = r->unsure_n < 4 ? r->unsure_n : 4;
    for (int i = 0; i < shown; i++)
        len += snprintf(ticks + len, sizeof ticks - (size_t)len, "%s%.0f", i ? ", " : "",
                        r->unsure_t[i]);
    if (r->unsure_n > shown)
        snprintf(ticks + len, sizeof ticks - (size_t)len, ", ... (%d ticks)", r->unsure_n);
    /* the three refusals share what is unsure: where, and why */
    char what[TH_ERROR_MAX];
    snprintf(what, sizeof what,
             "%s:%d: the %s collective is planned by Themis at ns %s with loads that depend on "
             "which NPU generates it first (NPU 0 resetting them or another NPU planning with the "
             "loads the last tick left), which the astra-sim-1.0 preset does not model",
             r->src, r->unsure_line, phase_field[r->unsure_phase], ticks);
    if (rc != TH_OK)
        return th_error_set(r->err, TH_EINPUT,
                            "%s, and the other order fails: %s (docs/VALIDATION.md, \"Refused, "
                            "and why\")",
                            what, r->err->msg);
    if (over)
        return th_error_set(r->err, TH_EINPUT,
                            "%s, and more than %d orders would have to be tried "
                            "(docs/VALIDATION.md, \"Refused, and why\")",
                            what, MAX_ORDERS);
    return th_error_set(r->err, TH_EINPUT,
                        "%s, and NPU 0 first gives %.0f ns, another NPU taking over at some of "
                        "those ticks %.0f ns (docs/VALIDATION.md, \"Refused, and why\")",
                        what, r->t, other);
}

/* Trace events held until the replay's result stands (a refused replay that is replayed NPU by
 * NPU gives its own). */
typedef struct held_events {
    th_train_event *v;
    size_t n, cap;
    int oom;
} held_events;

static void hold_event(void *ctx, const th_train_event *ev) {
    held_events *h = ctx;
    if (h->n == h->cap && th_grow(&h->v, &h->cap, h->n + 1, sizeof *h->v))
        h->oom = 1;
    else
        h->v[h->n++] = *ev;
}

int th_a1_replay(const th_system *sys, const th_a1_workload *wl, const char *source,
                 const th_a1_replay_opts *opts, th_a1_replay_result *res, th_error *err) {
    return th_a1_replay_trace(sys, wl, source, opts, NULL, NULL, res, err);
}

int th_a1_replay_trace(const th_system *sys, const th_a1_workload *wl, const char *source,
                       const th_a1_replay_opts *opts, th_train_trace_fn trace, void *trace_ctx,
                       th_a1_replay_result *res, th_error *err) {
    memset(res, 0, sizeof *res);
    if (opts->passes < 1 || opts->passes > MAX_PASSES)
        return th_error_set(err, TH_EINPUT, "passes: expected 1 to %d, got %d", MAX_PASSES,
                            opts->passes);
    if (opts->chunks < 1 || opts->chunks > TH_MAX_CHUNKS)
        return th_error_set(err, TH_EINPUT, "chunks: expected 1 to %d, got %lld", TH_MAX_CHUNKS,
                            (long long)opts->chunks);
    if (!(opts->scale.comm > 0) || !(opts->scale.compute > 0) || !isfinite(opts->scale.comm) ||
        !isfinite(opts->scale.compute))
        return th_error_set(err, TH_EINPUT, "comm and compute scales: expected numbers > 0");
    th_system split;
    int at, boundary;
    int npus = sys->model == TH_MODEL_ASTRA1; /* the preset replays NPU by NPU where it must */
    if (th_a1_split(wl, sys, source, &split, &at, &boundary, err)) {
        /* a group that breaks a dim as the preset does not model: ASTRA-sim's own breaking,
         * NPU by NPU (docs/VALIDATION.md, "Every NPU in its order") */
        th_error e = *err;
        int h = 0,
            rc0 = npus ? astra1_npus_replay(sys, wl, opts, trace, trace_ctx, res, &h, &e) : TH_OK;
        if (h) *err = e;
        return h ? rc0 : err->code;
    }
    held_events held = {0};
    /* A run that took another NPU as surely first and then generated collectives after a
     * completion woke the workload is replayed without such calls (docs/VALIDATION.md, "The NPU
     * that plans first"); the trace is written by the run that is kept. */
    replay r;
    int rc, no_sure = 0, ran = 0;
    for (int pass = 0;; pass++) {
        memset(&r, 0, sizeof r);
        r.sys = &split, r.wl = wl, r.o = opts, r.src = source, r.err = err, r.L = wl->nlayers;
        r.no_sure = no_sure;
        int last = pass > 0 || !trace;
        if (last && trace) r.trace = hold_event, r.trace_ctx = &held;
        rc = setup(&r);
        ran = rc == TH_OK;
        if (rc == TH_OK) rc = run(&r);
        if (rc == TH_OK && r.sure_woken && !no_sure) {
            no_sure = 1;
        } else if (last || rc != TH_OK) {
            break;
        }
        free(r.pass_end);
        teardown(&r);
    }
    if (rc == TH_OK) rc = check_resume_order(&r);
    if (rc == TH_OK) rc = check_tick_order(&r);
    if (rc == TH_OK && held.oom) rc = th_error_set(err, TH_EINTERNAL, "out of memory");
    if (rc == TH_EINPUT && ran && npus) {
        /* refused for an order of the NPUs' events the preset does not follow: every NPU's
         * events in ASTRA-sim's order decide it; its result stands, or its refusal (one it does
         * not replay keeps this one) */
        th_error e = {0};
        int h = 0, rc0 = astra1_npus_replay(sys, wl, opts, trace, trace_ctx, res, &h, &e);
        if (h) {
            free(held.v);
            free(r.pass_end);
            teardown(&r);
            if (rc0) *err = e;
            return rc0;
        }
    }
    for (size_t i = 0; rc == TH_OK && i < held.n; i++)
        trace(trace_ctx, &held.v[i]);
    free(held.v);
    if (rc == TH_OK) {
        res->total = r.t;
        res->compute = r.compute;
        res->exposed = r.t - r.compute;
        res->pass_end = r.pass_end;
        res->passes = opts->passes;
        res->collectives = r.injected;
        r.pass_end = NULL;
    }
    free(r.pass_end);
    teardown(&r);
    return rc;
}

void th_a1_replay_result_free(th_a1_replay_result *res) {
    free(res->pass_end);
    res->pass_end = NULL;
}

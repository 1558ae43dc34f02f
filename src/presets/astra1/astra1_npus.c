/* The ASTRA-sim 1.0 preset's replay of a text workload NPU by NPU (docs/VALIDATION.md, "Every
 * NPU in its order"): every NPU's workload state machine (Workload.cc: its iterate_* loops and
 * check_for_sim_end; Layer.cc: each layer's collectives, their barriers, update delays and the
 * waits on them) over the system layer of src/npus/ as ASTRA-sim 1.0 runs it. The preset falls
 * back on it where it does not know the order of the NPUs' events. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "astra1_preset.h"
#include "npus/npus.h"
#include "themis/astra1.h"
#include "themis/astra1_workload.h"

enum { W_CALL = 16, W_AFTER };                  /* the workload's events (C_WORK) */
enum { ST_FWD, ST_WG, ST_IG, ST_FIB, ST_WAIT }; /* LoopState */
enum { NONBLOCKING, BLOCKING };                 /* CollectiveBarrier */

typedef struct a1npu { /* one NPU's Workload and its Layers */
    int state, index, delay_loaded, issued, ckpt, pass, registered;
    int64_t counter;          /* cycles to wait before the state machine goes on */
    int64_t streams_finished; /* Sys::streams_finished */
    int32_t *out;             /* per layer and phase: its datasets in flight */
    uint8_t *wait, *barrier;  /* started_waiting_for_* not empty; the last issue's barrier */
    double compute;           /* the compute cycles its layers handed out */
} a1npu;

typedef struct a1ctx {
    const th_a1_workload *wl;
    int L, passes, tag;
    int64_t *cyc;   /* per layer and phase (l * 3 + phase): compute cycles, scaled */
    uint64_t *size; /* collective bytes, scaled */
    uint32_t *mask; /* the dims of the collective */
    a1npu *w;
    int64_t total;    /* NPU 0's last report ("all passes finished at time") */
    int reported;     /* 1 once it reported */
    double *pass_end; /* NPU 0's pass ends */
    int npass_end;
    th_train_trace_fn trace; /* NPU 0's computes and collectives, when not NULL */
    void *trace_ctx;
    double *ds_t; /* per dataset: when NPU 0 issued it, and in which pass */
    int *ds_pass;
    int32_t ds_cap;
} a1ctx;

static a1ctx *A(const npus *s) {
    return s->c.user;
}

static int kk(int l, int p) {
    return l * TH_NPHASES + p;
}

static void workload_call(npus *s, int32_t n);

/* Layer::issue_*_comm: generates the collective of layer l's phase p; one of no type, or of
 * no dim to run on (an inactive dataset), is none, and a blocking one wakes the workload. */
static void issue_comm(npus *s, int32_t n, int l, int p, int prio, int barrier) {
    a1ctx *c = A(s);
    int k = kk(l, p), type = c->wl->layers[l].ph[p].type;
    c->w[n].barrier[k] = (uint8_t)barrier;
    if (type != TH_A1_NONE) {
        int op = type == TH_COLL_ALLREDUCE       ? OP_AR
                 : type == TH_COLL_REDUCESCATTER ? OP_RS
                 : type == TH_COLL_ALLGATHER     ? OP_AG
                                                 : OP_A2A;
        int32_t di = npus_generate(s, n, op, c->size[k], c->mask[k], prio, k);
        if (di < 0) return;
        if (n == 0 && c->trace) {
            int32_t cap = c->ds_cap;
            if (npus_grow32(s, (void **)&c->ds_t, di, &c->ds_cap, sizeof *c->ds_t)) return;
            if (c->ds_cap != cap) {
                int *np = realloc(c->ds_pass, sizeof *np * (size_t)c->ds_cap);
                if (!np) {
                    s->oom = 1;
                    return;
                }
                c->ds_pass = np;
            }
            c->ds_t[di] = (double)s->now, c->ds_pass[di] = c->w[0].pass;
        }
        if (s->ds[di].active) {
            c->w[n].out[k]++;
            return;
        }
    }
    if (barrier == BLOCKING) workload_call(s, n);
}

/* Layer::is_*_comm_finished_blocking. */
static int finished_blocking(npus *s, int32_t n, int l, int p) {
    a1npu *u = &A(s)->w[n];
    int k = kk(l, p);
    if (!u->out[k]) return 1;
    u->wait[k] = 1;
    return 0;
}

/* Layer::get_*_compute. */
static int64_t compute(npus *s, int32_t n, int l, int p) {
    a1ctx *c = A(s);
    int64_t t = c->cyc[kk(l, p)];
    c->w[n].compute += (double)t;
    if (n == 0 && c->trace) {
        th_train_event ev = {0, c->w[0].pass, l, (th_phase)p, (double)s->now, (double)(s->now + t)};
        c->trace(c->trace_ctx, &ev);
    }
    return t;
}

/* Sys::increase_finished_streams: the workload, once registered, hears of each. */
static void finished_streams(npus *s, int32_t n, int32_t amount) {
    a1npu *u = &A(s)->w[n];
    u->streams_finished += amount;
    if (u->registered) workload_call(s, n);
}

/* Layer::call(*_Comm_Finished_After_Delay): the dataset is gone; a blocking issue alone in
 * flight, or one the workload waits for, wakes it. */
static void after_delay(npus *s, int32_t n, int k, int32_t di) {
    a1npu *u = &A(s)->w[n];
    int wake = (u->out[k] == 1 && u->barrier[k] == BLOCKING) || u->wait[k];
    if (!(u->out[k] == 1 && u->barrier[k] == BLOCKING) && u->wait[k]) u->wait[k] = 0;
    u->out[k]--;
    if (wake) workload_call(s, n);
    finished_streams(s, n, s->ds[di].total);
}

/* Workload::check_for_sim_end. */
static void check_end(npus *s, int32_t n) {
    a1ctx *c = A(s);
    a1npu *u = &c->w[n];
    if (u->pass != c->passes) return;
    u->state = ST_WAIT;
    if (u->streams_finished != s->npus[n].injected && !u->registered) {
        u->registered = 1;
        finished_blocking(s, n, 0, TH_PHASE_WG);
        return;
    }
    if (u->streams_finished == s->npus[n].injected && n == 0) c->total = s->now, c->reported = 1;
}

/* A pass ends ("pass: p finished at time", NPU 0). */
static void pass_done(npus *s, int32_t n) {
    a1ctx *c = A(s);
    if (n == 0 && c->npass_end < c->passes) c->pass_end[c->npass_end++] = (double)s->now;
    c->w[n].pass++;
}

/* try_register_event(Workload_Wait, counter): 1 when the workload waits out its counter. */
static int wait_counter(npus *s, int32_t n) {
    a1npu *u = &A(s)->w[n];
    if (u->counter <= 0) return 0;
    npus_register(s, n, C_WORK, W_CALL, 0, 0, u->counter);
    u->counter = 0;
    return 1;
}

/* The current layer's compute of phase p, loaded once; 1 while the workload waits it out. */
static int compute_wait(npus *s, int32_t n, int p) {
    a1npu *u = &A(s)->w[n];
    if (!u->delay_loaded) u->counter = compute(s, n, u->index, p), u->delay_loaded = 1;
    return wait_counter(s, n);
}

/* After layer index's weight gradient: layer 0's ends the pass, another goes on to its input
 * gradient (DATA, HYBRID_DLRM). */
static void weight_grad_done(npus *s, int32_t n) {
    a1npu *u = &A(s)->w[n];
    if (u->index == 0) {
        pass_done(s, n);
        u->state = ST_FWD;
    } else {
        u->state = ST_IG;
    }
}

static void next_tick(npus *s, int32_t n) {
    npus_register(s, n, C_WORK, W_CALL, 0, 0, 1);
}

static void iterate_data(npus *s, int32_t n) {
    a1ctx *c = A(s);
    a1npu *u = &c->w[n];
    check_end(s, n);
    if (u->state == ST_FWD) {
        if (!finished_blocking(s, n, u->index, TH_PHASE_WG)) return;
        if (compute_wait(s, n, TH_PHASE_FWD)) return;
        u->index++;
        u->delay_loaded = 0;
        if (u->index >= c->L) u->state = ST_WG, u->index--;
        next_tick(s, n);
    } else if (u->state == ST_WG) {
        if (compute_wait(s, n, TH_PHASE_WG)) return;
        u->delay_loaded = 0;
        issue_comm(s, n, u->index, TH_PHASE_WG, NPUS_PRIO_NONE, NONBLOCKING);
        weight_grad_done(s, n);
        next_tick(s, n);
    } else if (u->state == ST_IG) {
        if (compute_wait(s, n, TH_PHASE_IG)) return;
        u->delay_loaded = 0;
        u->index--;
        u->state = ST_WG;
        next_tick(s, n);
    }
}

/* The forward pass of the hybrid loops (and FWD_IN_BCKWD's recomputation): returns 1 when it
 * moved to the next layer. */
static int forward_blocking(npus *s, int32_t n) {
    a1npu *u = &A(s)->w[n];
    if (!finished_blocking(s, n, u->index, TH_PHASE_WG)) return 0;
    if (compute_wait(s, n, TH_PHASE_FWD)) return 0;
    if (!u->issued) {
        u->issued = 1;
        issue_comm(s, n, u->index, TH_PHASE_FWD, NPUS_PRIO_NONE, BLOCKING);
        return 0;
    }
    u->index++;
    u->delay_loaded = 0;
    u->issued = 0;
    return 1;
}

/* HYBRID_CUSTOMIZED, _DATA_MODEL, _MODEL_DATA, MODEL, TRANSFORMER(_FWD_IN_BCKWD). */
static void iterate_hybrid(npus *s, int32_t n) {
    a1ctx *c = A(s);
    a1npu *u = &c->w[n];
    th_a1_parallelism par = c->wl->par;
    int transformer = th_a1_transformer(par), fib = par == TH_A1_HYBRID_TRANSFORMER_FWD_IN_BCKWD;
    check_end(s, n);
    if (u->state == ST_FWD) {
        if (!forward_blocking(s, n)) return;
        if (u->index >= c->L) u->state = ST_IG, u->index--;
        next_tick(s, n);
    } else if (u->state == ST_WG) {
        if (compute_wait(s, n, TH_PHASE_WG)) return;
        if (!u->issued && par != TH_A1_MODEL) {
            u->issued = 1;
            issue_comm(s, n, u->index, TH_PHASE_WG, NPUS_PRIO_FIFO, NONBLOCKING);
        }
        if (!finished_blocking(s, n, u->index, TH_PHASE_IG)) return;
        u->issued = 0;
        u->delay_loaded = 0;
        if (u->index >= 0) u->index--;
        if (u->index == -1) {
            u->index = 0;
            pass_done(s, n);
            u->state = ST_FWD;
        } else {
            u->state = ST_IG;
        }
        next_tick(s, n);
    } else if (u->state == ST_IG) {
        if (fib && c->wl->layers[u->index].initiates && !u->ckpt) {
            while (!c->wl->layers[u->index--].checkpoint) {
            }
            u->index++;
            u->state = ST_FIB;
            u->ckpt = 1;
            next_tick(s, n);
            return;
        }
        if (compute_wait(s, n, TH_PHASE_IG)) return;
        if (!u->issued && (transformer || u->index > 0)) {
            u->issued = 1;
            if (transformer && c->tag) { /* the tag waits for the input gradient */
                issue_comm(s, n, u->index, TH_PHASE_IG, NPUS_PRIO_LIFO, BLOCKING);
                return;
            }
            issue_comm(s, n, u->index, TH_PHASE_IG, NPUS_PRIO_LIFO, NONBLOCKING);
        }
        u->ckpt = 0;
        u->issued = 0;
        u->delay_loaded = 0;
        u->state = ST_WG;
        next_tick(s, n);
    } else if (u->state == ST_FIB) {
        if (!forward_blocking(s, n)) return;
        if (c->wl->layers[u->index].initiates) u->state = ST_IG;
        next_tick(s, n);
    }
}

static void iterate_inference(npus *s, int32_t n) {
    a1ctx *c = A(s);
    a1npu *u = &c->w[n];
    check_end(s, n);
    if (u->state != ST_FWD || !forward_blocking(s, n)) return;
    if (u->index >= c->L) u->index = 0, u->pass++; /* no pass line printed */
    next_tick(s, n);
}

static void iterate_micro(npus *s, int32_t n) {
    a1ctx *c = A(s);
    a1npu *u = &c->w[n];
    if (u->state != ST_WAIT)
        for (u->pass = 0; u->pass < c->passes;) {
            issue_comm(s, n, u->index, TH_PHASE_WG, NPUS_PRIO_NONE, NONBLOCKING);
            pass_done(s, n);
        }
    check_end(s, n);
}

static void iterate_dlrm(npus *s, int32_t n) {
    a1ctx *c = A(s);
    a1npu *u = &c->w[n];
    int K = c->wl->last_bottom;
    check_end(s, n);
    if (u->state == ST_FWD) {
        if (!finished_blocking(s, n, u->index, TH_PHASE_WG)) return;
        if (compute_wait(s, n, TH_PHASE_FWD)) return;
        if (!u->issued && c->wl->layers[u->index].ph[TH_PHASE_FWD].type == TH_COLL_ALLTOALL) {
            u->issued = 1;
            issue_comm(s, n, u->index, TH_PHASE_FWD, NPUS_PRIO_HIGHEST, NONBLOCKING);
        } else if (u->index == K) {
            if (!finished_blocking(s, n, 0, TH_PHASE_FWD)) return;
        }
        u->index++;
        u->delay_loaded = 0;
        u->issued = 0;
        if (u->index >= c->L) u->state = ST_WG, u->index--;
        next_tick(s, n);
    } else if (u->state == ST_WG) {
        if (compute_wait(s, n, TH_PHASE_WG)) return;
        if (!u->issued) {
            u->issued = 1;
            issue_comm(s, n, u->index, TH_PHASE_WG, NPUS_PRIO_NONE, NONBLOCKING);
        }
        if (c->wl->par == TH_A1_HYBRID_DLRM && !finished_blocking(s, n, u->index, TH_PHASE_IG))
            return;
        weight_grad_done(s, n);
        u->delay_loaded = 0;
        u->issued = 0;
        next_tick(s, n);
    } else if (u->state == ST_IG) {
        if (compute_wait(s, n, TH_PHASE_IG)) return;
        if (u->index == K + 1) issue_comm(s, n, 0, TH_PHASE_IG, NPUS_PRIO_HIGHEST, NONBLOCKING);
        u->index--;
        u->state = ST_WG;
        u->issued = 0;
        u->delay_loaded = 0;
        next_tick(s, n);
    }
}

/* Workload::call: a wait still to run first, then the parallelism's loop. */
static void workload_call(npus *s, int32_t n) {
    if (wait_counter(s, n)) return;
    switch (A(s)->wl->par) {
    case TH_A1_DATA: iterate_data(s, n); break;
    case TH_A1_MICRO: iterate_micro(s, n); break;
    case TH_A1_HYBRID_DLRM:
    case TH_A1_HYBRID_DLRM_ENHANCED: iterate_dlrm(s, n); break;
    case TH_A1_DISTRIBUTED_INFERENCE: iterate_inference(s, n); break;
    default: iterate_hybrid(s, n);
    }
}

static void on_work(npus *s, int32_t n, int ev, int32_t obj, int32_t data) {
    if (ev == W_AFTER)
        after_delay(s, n, obj, data);
    else
        workload_call(s, n);
}

/* Layer::call(*_Comm_Finished): the layer's update delay, then the dataset is done. */
static void on_done(npus *s, int32_t di) {
    const dataset *d = &s->ds[di];
    a1ctx *c = A(s);
    if (d->npu == 0 && c->trace) {
        th_train_event ev = {
            1,           c->ds_pass[di], d->owner / TH_NPHASES, (th_phase)(d->owner % TH_NPHASES),
            c->ds_t[di], (double)s->now};
        c->trace(c->trace_ctx, &ev);
    }
    double u = c->wl->layers[d->owner / TH_NPHASES].update;
    npus_register(s, d->npu, C_WORK, W_AFTER, d->owner, di, npus_ns(s, u));
}

static void ctx_free(a1ctx *c, int n) {
    for (int i = 0; c->w && i < n; i++)
        free(c->w[i].out), free(c->w[i].wait), free(c->w[i].barrier);
    free(c->w);
    free(c->cyc);
    free(c->size);
    free(c->mask);
    free(c->ds_t);
    free(c->ds_pass);
}

/* Sys::break_dimension: a Transformer's model group G splits the dim where the running product
 * of the dims passes it into G / product and p / (G / product) NPUs (integer divisions: a group
 * that does not divide the dim leaves NPUs outside the logical system), both halves with the
 * dim's implementation; the physical network stays. 0 when the logical system is sys's. */
static int logical_dims(const th_a1_workload *wl, const th_system *sys, th_system *out) {
    *out = *sys;
    if (!th_a1_transformer(wl->par) || wl->group == 1) return 0;
    int64_t all = 1;
    for (int d = 0; d < sys->ndims; d++) {
        int64_t p = (int64_t)sys->dims[d].npus;
        if (all * p < wl->group) {
            all *= p;
            continue;
        }
        if (all * p == wl->group || sys->ndims == TH_MAX_DIMS) return all * p == wl->group ? 0 : -1;
        int64_t first = wl->group / all, second = p / first;
        size_t tail = (size_t)(sys->ndims - d);
        memmove(&out->dims[d + 1], &out->dims[d], sizeof out->dims[0] * tail);
        astra1_settings *a = astra1_set(out);
        memmove(&a->greedy_bw[d + 1], &a->greedy_bw[d], sizeof a->greedy_bw[0] * tail);
        for (int t = 0; t < 4; t++) {
            memmove(&a->impl[t][d + 1], &a->impl[t][d], sizeof a->impl[t][0] * tail);
            memmove(&a->window[t][d + 1], &a->window[t][d], sizeof a->window[t][0] * tail);
        }
        out->ndims = sys->ndims + 1;
        out->dims[d].npus = (double)first;
        out->dims[d + 1].npus = (double)second;
        return 1;
    }
    return -1; /* a group of more NPUs than the system */
}

int astra1_npus_replay(const th_system *phys, const th_a1_workload *wl, const th_a1_replay_opts *o,
                       th_train_trace_fn trace, void *trace_ctx, th_a1_replay_result *res,
                       int *handled, th_error *err) {
    *handled = 0;
    memset(res, 0, sizeof *res);
    if (o->policy != TH_POLICY_THEMIS && o->policy != TH_POLICY_BASELINE) return TH_OK;
    if (phys->npus * (double)wl->nlayers > 268435456.0) return TH_OK;
    th_system logical, *sys = &logical;
    if (logical_dims(wl, phys, &logical) < 0) return TH_OK;
    const astra1_settings *a = astra1_of(sys);
    int L = wl->nlayers, n = (int)phys->npus;
    size_t nk = (size_t)L * TH_NPHASES;
    a1ctx C = {0}, *c = &C;
    c->wl = wl, c->L = L, c->passes = o->passes, c->tag = o->scale.tag;
    c->trace = trace, c->trace_ctx = trace_ctx;
    c->cyc = calloc(nk, sizeof *c->cyc);
    c->size = calloc(nk, sizeof *c->size);
    c->mask = calloc(nk, sizeof *c->mask);
    c->w = calloc((size_t)n, sizeof *c->w);
    res->pass_end = calloc((size_t)o->passes, sizeof *res->pass_end);
    c->pass_end = res->pass_end;
    int bad = !c->cyc || !c->size || !c->mask || !c->w || !c->pass_end;
    for (int l = 0; !bad && l < L; l++)
        for (int p = 0; p < TH_NPHASES; p++) {
            const th_a1_phase *ph = &wl->layers[l].ph[p];
            int k = kk(l, p);
            c->cyc[k] = (int64_t)th_a1_scaled(ph->cycles, o->scale.compute, o->scale.tag);
            double sz = th_a1_scaled(ph->size, o->scale.comm, o->scale.tag);
            c->size[k] = (uint64_t)sz;
            c->mask[k] = th_a1_dims(wl, sys, l, (th_phase)p);
            /* ASTRA-sim carries a chunk's phase sizes in an int: the largest, a chunk or an
             * All-Gather's gathered output, must fit */
            double most = floor(sz / (double)o->chunks);
            for (int d = 0; ph->type == TH_COLL_ALLGATHER && d < sys->ndims; d++)
                if ((c->mask[k] >> d) & 1u) most *= (double)sys->dims[d].npus;
            int issued = ph->type != TH_A1_NONE && th_a1_issues(wl, l, (th_phase)p);
            if (issued && (most > 2147483647.0 || !(most >= 1))) {
                ctx_free(c, n);
                th_a1_replay_result_free(res);
                return TH_OK;
            }
        }
    for (int r = 0; !bad && r < n; r++) {
        a1npu *u = &c->w[r];
        u->out = calloc(nk, sizeof *u->out);
        u->wait = calloc(nk, 1);
        u->barrier = calloc(nk, 1);
        bad = !u->out || !u->wait || !u->barrier;
    }
    npus_cfg cfg = {0};
    cfg.sys = sys, cfg.net = phys, cfg.npus = n, cfg.version = NPUS_V1;
    cfg.themis = o->policy == TH_POLICY_THEMIS;
    cfg.scf = o->intra == TH_INTRA_SCF;
    cfg.flat = !a->local_bw_aware;
    cfg.lifo = a->lifo;
    cfg.boost = a->boost;
    cfg.tag = a->version == TH_A1_TUTORIAL;
    cfg.gap_den = a->gap_denominator > 0 ? a->gap_denominator : 16;
    cfg.splits = o->chunks;
    cfg.ep = a->endpoint;
    for (int d = 0; d < sys->ndims; d++) {
        cfg.greedy_bw[d] = a->greedy_bw[d];
        for (int t = 0; t < 4; t++) {
            cfg.alg[t][d] = a->impl[t][d] == TH_A1_HD       ? A_HD
                            : a->impl[t][d] == TH_A1_DIRECT ? A_DIRECT
                                                            : A_RING;
            cfg.window[t][d] = a->window[t][d];
        }
    }
    cfg.message = astra1_message;
    cfg.work = on_work, cfg.done = on_done, cfg.user = c;
    cfg.stop = o->stop;
    *handled = 1;
    npus S, *s = &S;
    if (bad || npus_init(s, &cfg)) {
        if (!bad) npus_free(s);
        ctx_free(c, n);
        th_a1_replay_result_free(res);
        return th_error_set(err, TH_EINTERNAL, "out of memory");
    }
    /* Workload::fire on every NPU in turn at 0, then the backend's events in order */
    for (int r = 0; r < n && !s->oom; r++)
        workload_call(s, r);
    int rc = TH_OK;
    if (!s->oom && npus_run(s) && s->interrupted)
        rc = th_error_set(err, TH_EINTERNAL, "interrupted");
    if (rc == TH_OK && s->oom) rc = th_error_set(err, TH_EINTERNAL, "out of memory");
    if (rc == TH_OK && s->too_long) *handled = 0;
    if (rc == TH_OK && *handled && !c->reported) {
        *handled = 2;
        rc = th_error_set(err, TH_EINPUT,
                          "ASTRA-sim 1.0 would not finish: NPU 0 reports no end, its last event "
                          "at %lld ns (every NPU replayed event by event, docs/VALIDATION.md)",
                          (long long)s->npus[0].last);
    }
    if (rc == TH_OK && *handled) {
        res->total = (double)c->total;
        res->compute = c->w[0].compute;
        res->exposed = res->total - res->compute;
        res->passes = o->passes;
        res->collectives = s->npus[0].injected;
    } else {
        th_a1_replay_result_free(res);
    }
    npus_free(s);
    ctx_free(c, n);
    return rc;
}

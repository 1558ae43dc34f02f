/* The ASTRA-sim 1.0 preset's emulator rules (docs/VALIDATION.md): one list per dim holding the
 * waiting phases in the order Sys::insert_stream gives them (by collective priority, or SCF by
 * size in either build's variant), one running phase per dim, a phase starting as soon as it
 * heads the list of an idle dim, and the phases ending at one instant moving on in the order
 * ASTRA-sim registered their last events; several collectives share the lists. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "astra1_preset.h"
#include "emulate_internal.h"
#include "themis/astra1.h"
#include "themis/buf.h"

#define KEY_MAX   64   /* registration levels kept per end: deeper ties fall back to dim order */
#define CHAIN_MAX 4096 /* events of one phase's chain; a longer one is ordered by dim */
#define ORDER_MAX 64   /* NPUs of a ring whose order is followed; a larger ring's is unknown */

/* The preset's state behind th_emu.state, made at its first issue after a reset. */
typedef struct astra1_emu_state {
    emu_queue q[TH_MAX_DIMS]; /* the waiting phases per dim, in Sys::insert_stream's order */
    double counter;           /* the next collective's priority (Sys::get_priority) */
    double *prio;             /* by collective id since the reset: its priority (higher first) */
    size_t prio_cap;
    /* The key of the end of each dim's running phase (order_of): the registration times of
     * its events back from the first at the end tick, then those of the phase that started
     * it; sib: which of the phases started by one event it is (0 for the phase's own). */
    double key[TH_MAX_DIMS][KEY_MAX], sib[TH_MAX_DIMS][KEY_MAX];
    int nkey[TH_MAX_DIMS], keyed[TH_MAX_DIMS]; /* keyed: 0 when no chain (dim order) */
    double cause[KEY_MAX], cause_sib[KEY_MAX]; /* the key of the phase whose end starts one */
    int ncause, sibling, at_issue;
    /* unsure: the sibling index at that level orders phases an issue made after NPU 0 fell
     * behind started together (astra1_emu_behind); their order is the NPUs' resume order */
    unsigned char unsure[TH_MAX_DIMS][KEY_MAX], cause_unsure[KEY_MAX];
    int behind, reverse;
    long nunsure; /* ends such a level has ordered since the reset */
    /* A workload event due at an ns where running phases have events registered after it
     * made the NPUs' lists for that ns in the order they registered it, and those phases' events
     * run in that order from then on (astra1_emu_mark_after): the dim order of their ties is
     * then unsure too. cause_late: the phase whose end starts one was so. */
    int late[TH_MAX_DIMS], cause_late;
    /* A phase an issue started runs its events NPU 0 first (NPU 0 generated the collective
     * first); one that another phase's end started may run them in another NPU's order. */
    int by_issue[TH_MAX_DIMS];      /* each dim's running phase was started by an issue */
    int resumed[TH_MAX_DIMS];       /* or as the next phase of a chunk whose phase ended */
    int resuming;                   /* the phase starting now is such a next phase */
    double begin[TH_MAX_DIMS];      /* ns: when each dim's running phase started */
    double last_end[TH_MAX_DIMS];   /* ns: the last end of a phase (-1: none) */
    double last_reg[TH_MAX_DIMS];   /* ns: when the first of that end's events was registered */
    int last_by_issue[TH_MAX_DIMS]; /* that phase was started by an issue */
    /* The order in which the NPUs of NPU 0's ring along each dim run its phase's events, as
     * ring positions (NPU 0 is position 0), where it is known: `pre` before the first message
     * (the order they started it), `post` after it (the order their receive handlers first
     * ran: a direct phase on a FullyConnected or Switch dim, one message round,
     * astra1_handler_order). */
    unsigned char pre[TH_MAX_DIMS][ORDER_MAX], post[TH_MAX_DIMS][ORDER_MAX];
    int pre_known[TH_MAX_DIMS], post_known[TH_MAX_DIMS];
    int last_first[TH_MAX_DIMS]; /* the last end's NPU 0 position: 2 first, 1 not, 3 unknown */
} astra1_emu_state;

static emu_queue *queue(const th_emu *r, int d) {
    return &((astra1_emu_state *)r->state)->q[d];
}

static double prio_of(const th_emu *r, uint32_t id) {
    return ((const astra1_emu_state *)r->state)->prio[id];
}

/* Inserts x before position `at` of list h; -1 when out of memory. */
static int list_put(emu_queue *h, size_t at, emu_entry x) {
    if (h->n == h->cap) {
        if (h->head > 0) {
            memmove(h->e, h->e + h->head, (h->n - h->head) * sizeof *h->e);
            at -= h->head;
            h->n -= h->head, h->head = 0;
        } else if (th_grow(&h->e, &h->cap, h->n + 1, sizeof *h->e)) {
            return -1;
        }
    }
    memmove(h->e + at + 1, h->e + at, (h->n - at) * sizeof *h->e);
    h->e[at] = x;
    h->n++;
    return 0;
}

/* Where Sys::insert_stream puts a phase: FIFO (and any AR or A2A phase) after every waiting
 * phase of a collective of equal or higher priority; SCF before the first waiting phase with a
 * larger key (the branch: key max(input, output), a phase with one more after it appended; the
 * tutorial tag: key input). */
static size_t where(const th_emu *r, const emu_queue *h, emu_entry x, th_op op, int last_but_one) {
    size_t at = h->head;
    const astra1_settings *a = astra1_of(r->sys);
    if (!r->scf || op == TH_OP_AR || op == TH_OP_A2A) {
        double pri = prio_of(r, x.coll);
        while (at < h->n && prio_of(r, h->e[at].coll) >= pri)
            at++;
        return at;
    }
    if (a->version == TH_A1_BRANCH && last_but_one) return h->n;
    while (at < h->n && h->e[at].m < x.m)
        at++;
    return at;
}

/* Queues a chunk's next phase at its dim; returns the dim, or -1 when out of memory. */
static int enqueue(th_emu *r, uint32_t id, uint32_t c, int stage) {
    const th_plan *plan = emu_rec(r, id)->plan;
    int dim;
    th_op op;
    double m, bytes, out;
    th_plan_stage(plan, c, stage, &dim, &op, &m);
    th_astra1_phase(r->sys, dim, plan->type, op, m, &bytes, &out);
    double key = astra1_of(r->sys)->version == TH_A1_BRANCH && out > m ? out : m;
    emu_entry x = {.ready = r->t, .m = key, .coll = id, .chunk = c};
    emu_queue *h = queue(r, dim);
    return list_put(h, where(r, h, x, op, stage == plan->nstages - 2), x) ? -1 : dim;
}

/* Records the key of the end of the phase dim d starts now (Sys::try_register_event appends
 * to the list of its tick, so events of one tick run in the order they were registered): the
 * registration times of its events from the first one due at its end tick back to its start
 * (a trailing 0-ns reduction is skipped: the last NPU of the dim's ring, which moves the phase
 * on, has nothing else in that tick's list), then the key of the phase whose end started it.
 * A direct All-to-All on a Switch or FullyConnected dim keys as its one line E, message, E:
 * its p - 1 messages leave at one ns and arrive at one ns. */
static void key_phase(th_emu *r, int d, th_coll_type type, th_op op, double m, double dur) {
    astra1_emu_state *st = r->state;
    double dl[CHAIN_MAX];
    unsigned char msg[CHAIN_MAX];
    int k = astra1_phase_events(r->sys, d, type, op, m, dl, msg, CHAIN_MAX);
    st->keyed[d] = 0;
    if (k > 0) {
        double sum = 0, end = r->t;
        for (int j = 0; j < k; j++)
            sum += dl[j];
        end += sum;
        if (sum == dur) {
            /* ev(j) = t + dl[0] + ... + dl[j - 1]: the tick event j runs at */
            int f = k, n = 0;
            double at = end;
            while (f > 1 && at - dl[f - 1] == end)
                at -= dl[--f];
            at -= dl[f - 1]; /* ev(f - 1): when the first event at the end tick was registered */
            for (int j = f - 1; j >= 0 && n < KEY_MAX; j--, n++) {
                st->key[d][n] = at;
                /* phases an issue starts together end in dim order (every NPU generates the
                 * collective, NPU 0 first; the ring's last NPU along a higher dim later) */
                st->sib[d][n] = j > 0 ? 0 : st->at_issue ? d : st->sibling;
                st->unsure[d][n] = j == 0 && st->at_issue && st->behind;
                if (j > 0) at -= dl[j - 1];
            }
            for (int j = 0; j < st->ncause && n < KEY_MAX; j++, n++) {
                st->key[d][n] = st->cause[j], st->sib[d][n] = st->cause_sib[j];
                st->unsure[d][n] = st->cause_unsure[j];
            }
            st->nkey[d] = n;
            st->keyed[d] = 1;
        }
    }
}

/* The order of the ends of dims a and b at one tick: their keys' registration times, earlier
 * first; equal times by the sibling index from the oldest level up; then dim index. A sibling
 * level of an issue made after NPU 0 fell behind is counted, and reversed when asked. */
static int order_of(astra1_emu_state *st, int a, int b) {
    if (!st->keyed[a] || !st->keyed[b]) return a - b;
    int L = st->nkey[a] < st->nkey[b] ? st->nkey[a] : st->nkey[b];
    for (int j = 0; j < L; j++)
        if (st->key[a][j] != st->key[b][j]) return st->key[a][j] < st->key[b][j] ? -1 : 1;
    for (int j = L - 1; j >= 0; j--)
        if (st->sib[a][j] != st->sib[b][j]) {
            int o = st->sib[a][j] < st->sib[b][j] ? -1 : 1;
            if (!st->unsure[a][j] && !(st->late[a] && st->late[b])) return o;
            st->nunsure++;
            return st->reverse ? -o : o;
        }
    return a - b;
}

/* The order in which the receive handlers of a direct phase first run on the p NPUs of a ring
 * (positions), when they start it in the order `pre` at one ns and every message arrives at one
 * ns: each NPU in turn posts, for i = 1 .. p - 1, a send to the NPU i places on and a receive
 * from the one i places back (AllToAll's rotating receiver and sender); the analytical backend
 * schedules a receive's handler when the later of the pair is posted, and runs handlers of one
 * ns in the order scheduled. */
static void astra1_handler_order(int p, const unsigned char *pre, unsigned char *post) {
    unsigned char sent[ORDER_MAX][ORDER_MAX] = {{0}}, posted[ORDER_MAX][ORDER_MAX] = {{0}};
    unsigned char seen[ORDER_MAX] = {0};
    int n = 0;
    for (int k = 0; k < p; k++) {
        int a = pre[k];
        for (int i = 1; i < p; i++) {
            int to = (a + i) % p, from = (a - i + p) % p;
            if (posted[to][a]) {
                if (!seen[to]) seen[to] = 1, post[n++] = (unsigned char)to;
            } else {
                sent[a][to] = 1;
            }
            if (sent[from][a]) {
                if (!seen[a]) seen[a] = 1, post[n++] = (unsigned char)a;
            } else {
                posted[a][from] = 1;
            }
        }
    }
}

/* The NPU order of the phase dim d starts now (see astra1_emu_state.pre): an issue starts it
 * in index order, NPU 0 first (unless NPU 0 fell behind); a phase a freed dim starts next runs
 * in the order its NPUs ended the phase before (that phase's `post`); one a chunk moves on to
 * is unknown (NPU 0 last, the rule of astra1_emu_events_before). */
static void order_phase(th_emu *r, int d, th_coll_type type, th_op op) {
    astra1_emu_state *st = r->state;
    int p = r->sys->dims[d].npus, was = st->post_known[d];
    st->pre_known[d] = st->post_known[d] = 0;
    if (p > ORDER_MAX) return;
    if (st->at_issue && !st->behind) {
        for (int i = 0; i < p; i++)
            st->pre[d][i] = (unsigned char)i;
        st->pre_known[d] = 1;
    } else if (!st->at_issue && !st->resuming && was) {
        memcpy(st->pre[d], st->post[d], sizeof st->pre[d]);
        st->pre_known[d] = 1;
    }
    const astra1_settings *a = astra1_of(r->sys);
    if (!st->pre_known[d] || r->sys->dims[d].topology == TH_TOPO_RING ||
        a->impl[type][d] != TH_A1_DIRECT || op == TH_OP_AR ||
        (a->window[type][d] > 0 && a->window[type][d] < p - 1))
        return;
    astra1_handler_order(p, st->pre[d], st->post[d]);
    st->post_known[d] = 1;
}

/* Dim d starts the phase heading its list; -1 when its time is refused (emu_begin). */
static int start(th_emu *r, int d) {
    emu_entry e = emu_run_pop(queue(r, d)); /* a list is never a heap: its head */
    const emu_coll *cr = emu_rec(r, e.coll);
    int stage = cr->next[e.chunk], dim;
    th_op op;
    double m, bytes, out;
    th_plan_stage(cr->plan, e.chunk, stage, &dim, &op, &m);
    double dur = th_astra1_phase(r->sys, d, cr->plan->type, op, m, &bytes, &out);
    int rc = emu_begin(r, d, e, stage, op, m, dur, bytes);
    if (rc == 0) key_phase(r, d, cr->plan->type, op, m, dur);
    order_phase(r, d, cr->plan->type, op);
    ((astra1_emu_state *)r->state)->by_issue[d] = ((astra1_emu_state *)r->state)->at_issue;
    ((astra1_emu_state *)r->state)->begin[d] = r->t;
    ((astra1_emu_state *)r->state)->resumed[d] = ((astra1_emu_state *)r->state)->resuming;
    ((astra1_emu_state *)r->state)->late[d] =
        !((astra1_emu_state *)r->state)->at_issue && ((astra1_emu_state *)r->state)->cause_late;
    return rc;
}

/* A dim with nothing running starts the head of its list. */
static int kick(th_emu *r, int d, th_error *err) {
    if (!r->srv[d].busy && emu_waiting(queue(r, d)) && start(r, d)) {
        if (r->bad_dur != -1) return emu_bad_stage(r, err);
        return th_error_set(err, TH_EINPUT,
                            "dims[%d] (%s): a message of more than 2^31 ns or a reduction of more "
                            "than 2^31 bytes, which overflow ASTRA-sim 1.0's int fields: use more "
                            "chunks or a smaller size",
                            d, r->sys->dims[d].name);
    }
    return TH_OK;
}

/* Sys::get_priority: the counter goes up under LIFO, down under FIFO; HIGHEST is 1e8. */
static int issue_prio(th_emu *emu, const th_plan *plan, double t, th_a1_prio prio, int *id,
                      th_error *err) {
    if (!emu->state) {
        if (!(emu->state = calloc(1, sizeof(astra1_emu_state))))
            return th_error_set(err, TH_EINTERNAL, "out of memory");
        emu->state_model = &astra1_emu;
    }
    astra1_emu_state *st = emu->state;
    if (th_grow(&st->prio, &st->prio_cap, (size_t)emu->ncolls + 1, sizeof *st->prio))
        return th_error_set(err, TH_EINTERNAL, "out of memory");
    int k;
    if (emu->ncolls == 0) st->counter = 0;
    if (emu_admit(emu, plan, t, &k, err)) return err->code;
    /* Sys::get_priority: LIFO counts up, FIFO down, HIGHEST above all */
    int lifo = astra1_of(emu->sys)->lifo;
    if (astra1_of(emu->sys)->version == TH_A1_BRANCH && prio == TH_A1_PRIO_LIFO) lifo = 1;
    if (astra1_of(emu->sys)->version == TH_A1_BRANCH && prio == TH_A1_PRIO_FIFO) lifo = 0;
    if (prio == TH_A1_PRIO_HIGHEST) {
        st->prio[k] = 100000000;
    } else {
        st->prio[k] = st->counter;
        st->counter += lifo ? 1 : -1;
    }
    st->at_issue = 1, st->ncause = 0;
    for (uint32_t i = 0; i < (uint32_t)plan->chunks; i++) {
        int dim = enqueue(emu, (uint32_t)k, i, 0);
        if (dim < 0) return th_error_set(err, TH_EINTERNAL, "out of memory in a queue");
        if (kick(emu, dim, err)) return st->at_issue = 0, err->code;
    }
    st->at_issue = 0;
    if (id) *id = k;
    return TH_OK;
}

static int issue(th_emu *emu, const th_plan *plan, double t, int *id, th_error *err) {
    return issue_prio(emu, plan, t, TH_A1_PRIO_NONE, id, err);
}

int th_astra1_issue(th_emu *emu, const th_plan *plan, double t, th_a1_prio prio, int *id,
                    th_error *err) {
    if (!emu->sys || emu->sys->model != TH_MODEL_ASTRA1 || plan->model != TH_MODEL_ASTRA1)
        return th_error_set(err, TH_EINTERNAL, "th_astra1_issue: not an astra-sim-1.0 system");
    if (!(t >= emu->t) || !isfinite(t))
        return th_error_set(err, TH_EINTERNAL, "collective issued at %g ns, before now (%g ns)", t,
                            emu->t);
    return issue_prio(emu, plan, t, prio, id, err);
}

/* The phases ending now move on in the order their ends were registered (key_phase; with
 * boost-mode 1 a phase moves on when the last NPU of its dim's ring with NPU 0 finishes): each
 * queues its next phase, its freed dim starts its next waiting phase, then the next phase's dim
 * starts if idle (Sys::proceed_to_next_vnet_baseline). */
/* The dim of the phase after the one dim d runs, or -1 when that is its chunk's last. */
static int next_dim(const th_emu *r, int d) {
    const emu_coll *cr = emu_rec(r, r->srv[d].coll);
    int stage = cr->next[r->srv[d].chunk] + 1, dim;
    if (stage >= cr->plan->nstages) return -1;
    th_op op;
    double m;
    th_plan_stage(cr->plan, r->srv[d].chunk, stage, &dim, &op, &m);
    return dim;
}

/* With boost-mode 0 ASTRA-sim moves phases ending at the same ns on in the order it registered
 * their last events, which the preset does not follow: that order changes nothing when the
 * phases and the phases they move on to touch different dims, and is refused otherwise. */
static int check_order(const th_emu *r, const int *ending, int nend, th_error *err) {
    int next[TH_MAX_DIMS];
    for (int k = 0; k < nend; k++)
        next[k] = next_dim(r, ending[k]);
    for (int a = 0; a < nend; a++)
        for (int b = a + 1; b < nend; b++)
            if (next[a] == ending[b] || next[b] == ending[a] ||
                (next[a] >= 0 && next[a] == next[b]))
                return th_error_set(
                    err, TH_EINPUT,
                    "boost_mode: 0, and phases on dims %d and %d end at the same "
                    "ns (%.0f) and move on into the same dim: ASTRA-sim then orders "
                    "them by the registration of their last events, which the "
                    "astra-sim-1.0 preset does not follow (boost_mode 1: dim order)",
                    ending[a], ending[b], r->t);
    return TH_OK;
}

static int step(th_emu *emu, th_error *err) {
    int ending[TH_MAX_DIMS], nend = emu_ending(emu, ending);
    if (nend > 1 && !astra1_of(emu->sys)->boost && check_order(emu, ending, nend, err))
        return err->code;
    astra1_emu_state *st = emu->state;
    for (int a = 1; a < nend; a++)
        for (int b = a; b > 0 && order_of(st, ending[b - 1], ending[b]) > 0; b--) {
            int x = ending[b];
            ending[b] = ending[b - 1], ending[b - 1] = x;
        }
    for (int k = 0; k < nend; k++) {
        int d = ending[k], next = -1;
        /* the phases this end starts descend from its key (kick(d) overwrites it) */
        st->ncause = st->keyed[d] ? st->nkey[d] : 0;
        memcpy(st->cause, st->key[d], sizeof st->cause);
        memcpy(st->cause_sib, st->sib[d], sizeof st->cause_sib);
        memcpy(st->cause_unsure, st->unsure[d], sizeof st->cause_unsure);
        st->cause_late = st->late[d];
        uint32_t c, id;
        /* the first event due now was registered at key level 0; without a chain, any event
         * since the start may be due now */
        st->last_end[d] = emu->t;
        st->last_reg[d] = st->keyed[d] ? st->key[d][0] : st->begin[d];
        st->last_by_issue[d] = st->by_issue[d];
        st->last_first[d] = st->post_known[d] ? (st->post[d][0] == 0 ? 2 : 1) : 3;
        int stage = emu_end(emu, d, &c, &id, err);
        if (stage == -2) return err->code;
        if (stage >= 0 && (next = enqueue(emu, id, c, stage)) < 0)
            return th_error_set(err, TH_EINTERNAL, "out of memory in a queue");
        /* of the two phases one end starts, the moved chunk's next comes first */
        st->sibling = 1;
        if (kick(emu, d, err)) return err->code;
        st->sibling = 0;
        st->resuming = 1;
        if (next >= 0 && kick(emu, next, err)) return st->resuming = 0, err->code;
        st->resuming = 0;
    }
    return TH_OK;
}

int th_astra1_ending_lags(const th_emu *emu, double *lo, double *hi) {
    double t = th_emu_next(emu);
    int n = 0;
    for (int d = 0; t < INFINITY && d < emu->sys->ndims; d++) {
        if (!emu->srv[d].busy || emu->srv[d].end != t) continue;
        const emu_coll *cr = emu_rec(emu, emu->srv[d].coll);
        int dim;
        th_op op;
        double m;
        th_plan_stage(cr->plan, emu->srv[d].chunk, cr->next[emu->srv[d].chunk], &dim, &op, &m);
        double x = th_astra1_phase_lag(emu->sys, dim, cr->plan->type, op, m);
        if (n == 0 || x < *lo) *lo = x;
        if (n == 0 || x > *hi) *hi = x;
        n++;
    }
    return n;
}

/* The system's dims start with empty lists. */
static void reset(th_emu *emu) {
    astra1_emu_state *st = emu->state;
    for (int d = 0; d < emu->sys->ndims; d++)
        st->q[d].n = st->q[d].head = 0;
    st->behind = st->reverse = 0, st->nunsure = 0, st->cause_late = 0;
    for (int d = 0; d < TH_MAX_DIMS; d++)
        st->last_end[d] = -1, st->late[d] = 0, st->last_first[d] = 3;
    memset(st->pre_known, 0, sizeof st->pre_known);
    memset(st->post_known, 0, sizeof st->post_known);
}

/* The events of the phase running on dim d as one line (astra1_phase_events: their delays
 * into dl, whether each is a message's arrival into msg) and its start into *at; -1 when its
 * events are not one line whose delays add up to the phase's time. */
static int running_events(const th_emu *emu, int d, double *dl, unsigned char *msg, double *at) {
    const emu_coll *cr = emu_rec(emu, emu->srv[d].coll);
    int dim;
    th_op op;
    double m, bytes, out, sum = 0;
    th_plan_stage(cr->plan, emu->srv[d].chunk, cr->next[emu->srv[d].chunk], &dim, &op, &m);
    double dur = th_astra1_phase(emu->sys, d, cr->plan->type, op, m, &bytes, &out);
    *at = emu->srv[d].end - dur;
    int k = astra1_phase_events(emu->sys, d, cr->plan->type, op, m, dl, msg, CHAIN_MAX);
    for (int j = 0; j < k; j++)
        sum += dl[j];
    return k < 0 || sum != dur ? -1 : k;
}

int astra1_emu_events_before(const th_emu *emu, double t, double before) {
    const astra1_emu_state *st = emu->state;
    /* sure: one of the events registered first for t (at rmin) has a known ring order with
     * NPU 0 not first, so that ring's first NPU made its list for t before NPU 0 */
    int found = 0, sure = 0, opaque = 0;
    double rmin = INFINITY;
    if (!st) return 0;
    for (int d = 0; d < emu->sys->ndims; d++) {
        if (st->last_end[d] == t && st->last_reg[d] < before) {
            found |= st->last_first[d];
            if (st->last_reg[d] < rmin) {
                rmin = st->last_reg[d], sure = st->last_first[d] == 1;
            } else if (st->last_reg[d] == rmin) {
                sure |= st->last_first[d] == 1;
            }
        }
        if (!emu->srv[d].busy) continue;
        double dl[CHAIN_MAX], at, end = emu->srv[d].end;
        unsigned char msg[CHAIN_MAX];
        int k = running_events(emu, d, dl, msg, &at);
        if (k < 0) { /* not one line: any ns of the phase may hold its events */
            if (at <= t && t <= end && at < before) found |= 3, opaque = 1;
            continue;
        }
        /* event j + 1 runs at `at` and, unless a message's arrival (the network's event), was
         * registered in the NPU's list for that ns when event j ran (event 0, the start, is the
         * end of the phase that started it, counted there). Before the first message the ring's
         * NPUs register in the order the phase started on them: NPU 0 first after an issue
         * (Sys::ask_for_schedule), last as a chunk's next phase with boost-mode 1 (the others,
         * idle in the phase before, resume first); after a message, in the order of arrival. */
        int sent = 0, behind = st->resumed[d] && astra1_of(emu->sys)->boost;
        for (int j = 0; at <= t && j < k; j++) {
            double reg = at;
            at += dl[j];
            if (at == t && !msg[j] && reg < before) {
                /* where the ring's order is known, whether NPU 0 registered it first */
                int code = sent == 0 && st->pre_known[d]    ? (st->pre[d][0] == 0 ? 2 : 1)
                           : sent == 1 && st->post_known[d] ? (st->post[d][0] == 0 ? 2 : 1)
                           : sent                           ? 3
                           : st->by_issue[d]                ? 2
                           : behind                         ? 1
                                                            : 3;
                found |= code;
                if (reg < rmin) {
                    rmin = reg, sure = code == 1;
                } else if (reg == rmin) {
                    sure |= code == 1;
                }
            }
            sent += msg[j];
        }
    }
    /* bit 4: another NPU surely made its list for t first (and NPU 0 did not) */
    /* (measured with boost-mode 1 only: with 0 the bits stay as they were) */
    return sure && !opaque && astra1_of(emu->sys)->boost ? (found & ~2) | 1 | 4 : found;
}

int astra1_emu_mark_after(th_emu *emu, double t, double after) {
    astra1_emu_state *st = emu->state;
    int hit[TH_MAX_DIMS], n = 0;
    if (!st) return 0;
    for (int d = 0; d < emu->sys->ndims; d++) {
        if (!emu->srv[d].busy || emu->srv[d].end < t) continue;
        double dl[CHAIN_MAX], at;
        unsigned char msg[CHAIN_MAX];
        int k = running_events(emu, d, dl, msg, &at);
        if (k < 0) continue; /* keyed by dim index */
        for (int j = 0; at <= t && j < k; j++) {
            double reg = at;
            at += dl[j];
            if (at == t && !msg[j] && reg > after) {
                hit[n++] = d;
                break;
            }
        }
    }
    if (n > 1)
        for (int i = 0; i < n; i++)
            st->late[hit[i]] = 1;
    return n > 1 ? n : 0;
}

/* The state is made at the first issue: until then nothing is ordered. */
void astra1_emu_behind(th_emu *emu, int behind, int reverse) {
    astra1_emu_state *st = emu->state;
    if (st) st->behind = behind, st->reverse = reverse;
}

long astra1_emu_unsure(const th_emu *emu) {
    const astra1_emu_state *st = emu->state;
    return st ? st->nunsure : 0;
}

static void free_state(void *state) {
    astra1_emu_state *st = state;
    for (int d = 0; d < TH_MAX_DIMS; d++)
        free(st->q[d].e);
    free(st->prio);
    free(st);
}

const emu_model astra1_emu = {.issue = issue, .step = step, .reset = reset, .free = free_state};

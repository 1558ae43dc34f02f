/* Inter-dimension policies (SPEC §5): the order in which every chunk of a collective visits the
 * active dims, and the full-vector size of each of its stages; and the checks of a collective
 * against a system, which end with the system's model's own (its planner's). */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "schedule_internal.h"
#include "themis/str.h"
#include "themis/units.h"

const char *const th_policy_names[] = {"baseline",      "themis", "roundrobin", "lp",
                                       "themis-global", "ideal",  NULL};
const char *const th_load_model_names[] = {"alpha_beta", "bandwidth", NULL};

const char *th_policy_name(th_policy p) {
    return (unsigned)p < TH_POLICY_COUNT ? th_policy_names[p] : "?";
}
const char *th_load_model_name(th_load_model m) {
    return (unsigned)m < 2 ? th_load_model_names[m] : "?";
}

int th_policy_from_name(const char *s, th_policy *out) {
    int i = th_name_find(th_policy_names, s);
    if (i >= 0) *out = (th_policy)i;
    return i < 0 ? -1 : 0;
}

void th_policy_names_first(int n, const char **names) {
    for (int i = 0; i < n; i++)
        names[i] = th_policy_names[i];
    names[n] = NULL;
}

int th_load_model_from_name(const char *s, th_load_model *out) {
    int i = th_name_find(th_load_model_names, s);
    if (i >= 0) *out = (th_load_model)i;
    return i < 0 ? -1 : 0;
}

th_plan *th_plan_create(void) {
    return calloc(1, sizeof(th_plan));
}

void th_plan_free(th_plan *plan) {
    if (!plan) return;
    free(plan->order);
    free(plan);
}

static const th_plan_model *model_of(const th_system *sys);

int th_collective_validate(const th_system *sys, const th_collective *coll, th_error *err) {
    if ((unsigned)sys->model >= TH_MODEL_COUNT)
        return th_error_set(err, TH_EINPUT, "system \"%s\": unknown model %d", sys->name,
                            (int)sys->model);
    if ((unsigned)coll->type > TH_COLL_ALLTOALL)
        return th_error_set(err, TH_EINPUT, "collective: unknown type %d", (int)coll->type);
    if (th_units_check_size(coll->size, "size", err)) return err->code;
    if (coll->chunks < 1 || coll->chunks > TH_MAX_CHUNKS)
        return th_error_set(err, TH_EINPUT, "chunks: expected an integer from 1 to %d, got %lld",
                            TH_MAX_CHUNKS, (long long)coll->chunks);
    uint32_t all = sys->ndims >= 32 ? 0xffffffffu : (1u << sys->ndims) - 1u;
    if (coll->dims_mask & ~all) {
        int bad = 0;
        while (!((coll->dims_mask >> bad) & 1u) || bad < sys->ndims)
            bad++;
        return th_error_set(err, TH_EINPUT,
                            "dims: dim %d does not exist (system \"%s\" has dims 0..%d)", bad,
                            sys->name, sys->ndims - 1);
    }
    if (model_of(sys)->check(sys, coll, err)) return err->code;
    uint32_t mask = coll->dims_mask ? coll->dims_mask : all;
    for (int d = 0; d < sys->ndims; d++)
        if (((mask >> d) & 1u) && sys->dims[d].npus > 1) return TH_OK;
    return th_error_set(err, TH_EINPUT,
                        "dims: no active dimension (every involved dim has npus = 1)");
}

/* Sorts dims by load (ascending, or descending when `desc`), ties lower index first. */
static inline __attribute__((always_inline)) void sort_by_load(int *dims, int n, const double *load,
                                                               int desc) {
    for (int i = 1; i < n; i++) {
        int d = dims[i], j = i - 1;
        while (j >= 0) {
            double a = load[dims[j]], b = load[d];
            int after = desc ? a < b : a > b;
            if (!after && !(a == b && dims[j] > d)) break;
            dims[j + 1] = dims[j];
            j--;
        }
        dims[j + 1] = d;
    }
}

/* A dim's terms of the load model's estimate, computed once per plan: the estimate of a stage
 * of m bytes is lh + m * pm1 / pbw (+ m * pm1 / p / reduce_bw for RS), the same operations in
 * the same order as th_cost_time (alpha_beta) or the bandwidth model's m (p-1) / (p B). */
typedef struct est_terms {
    double lh, pm1, pbw, p, reduce; /* reduce: reduce_bw for RS under alpha_beta, else 0 */
} est_terms;

static double estimate_fast(const est_terms *k, double m) {
    double t = k->lh + m * k->pm1 / k->pbw;
    if (k->reduce > 0.0) t += m * k->pm1 / k->p / k->reduce;
    return t;
}

/* The load a chunk adds to each dim of its order depends only on that order: the increments
 * of the first MEMO_MAX distinct orders of a plan are kept, found by the order packed 4 bits
 * a dim (n <= 16 dims, indices < 16). */
#define MEMO_SLOTS 64 /* a power of two */
#define MEMO_MAX   32

typedef struct order_memo {
    uint64_t key[MEMO_SLOTS];
    int8_t slot[MEMO_SLOTS];            /* -1: empty, else the index into inc */
    double inc[MEMO_MAX][TH_MAX_DIMS];  /* est of stage j (RS or AG half) of the order */
    uint8_t dim[MEMO_MAX][TH_MAX_DIMS]; /* the dim of stage j */
    int n;
} order_memo;

/* Themis greedy (SPEC §5) for RS-first collectives (AR, RS) and for AG. */
static void plan_themis(th_plan *plan, const th_system *sys, th_load_model model, const int *base) {
    int n = plan->n, ag = plan->type == TH_COLL_ALLGATHER;
    th_op op = ag ? TH_OP_AG : TH_OP_RS;
    double c = plan->chunk, *load = plan->load;
    est_terms k[TH_MAX_DIMS];
    double threshold[TH_MAX_DIMS]; /* est(lo or last, c/16), step 2 */
    for (int j = 0; j < n; j++) {
        int d = plan->active[j];
        const th_dim *dim = &sys->dims[d];
        double p = (double)dim->npus;
        int ab = model != TH_LOAD_BANDWIDTH;
        /* th_cost_time adds alpha L first: 0 + x is x, so the bandwidth model takes lh = 0 */
        k[d] = (est_terms){
            ab ? dim->latency * th_cost_hops(dim->topology, dim->algorithm, dim->npus) : 0.0,
            p - 1.0, p * dim->bw, p,
            ab && op == TH_OP_RS && sys->reduce_bw > 0.0 ? sys->reduce_bw : 0.0};
        threshold[d] = estimate_fast(&k[d], c / 16.0);
    }
    order_memo memo;
    memset(memo.slot, -1, sizeof memo.slot);
    memo.n = 0;
    for (int64_t i = 0; i < plan->chunks; i++) {
        int ord[TH_MAX_DIMS];
        memcpy(ord, plan->active, sizeof ord); /* a constant size: no call */
        /* each direction compiled apart */
        if (ag)
            sort_by_load(ord, n, load, 1);
        else
            sort_by_load(ord, n, load, 0);
        int first = ord[0], last = ord[n - 1];
        double gap = fabs(load[last] - load[first]);
        if (gap < threshold[ag ? last : first]) memcpy(ord, base, sizeof ord);
        uint8_t *o = plan->order + (size_t)i * (size_t)n;
        uint64_t key = 0;
        for (int j = 0; j < n; j++) {
            o[j] = (uint8_t)ord[j];
            key = key << 4 | (uint64_t)ord[j];
        }
        unsigned h = (unsigned)((key * 0x9e3779b97f4a7c15u) >> 58) & (MEMO_SLOTS - 1);
        while (memo.slot[h] >= 0 && memo.key[h] != key)
            h = (h + 1) & (MEMO_SLOTS - 1);
        if (memo.slot[h] >= 0) { /* the same increments in the same order: the same loads */
            int cls = memo.slot[h];
            for (int j = 0; j < n; j++)
                load[memo.dim[cls][j]] += memo.inc[cls][j];
            continue;
        }
        int cls = memo.n < MEMO_MAX ? memo.n++ : -1;
        if (cls >= 0) memo.key[h] = key, memo.slot[h] = (int8_t)cls;
        for (int j = 0; j < n; j++) {
            double m;
            int dim;
            th_op sop;
            th_plan_stage(plan, i, j, &dim, &sop, &m);
            double e = estimate_fast(&k[dim], m);
            load[dim] += e;
            if (cls >= 0) memo.inc[cls][j] = e, memo.dim[cls][j] = (uint8_t)dim;
        }
    }
}

static int plan_with(th_plan *plan, const th_system *sys, const th_collective *coll,
                     th_policy policy, th_load_model model, const double *init_load, int seq,
                     th_error *err);

int th_sched_plan(th_plan *plan, const th_system *sys, const th_collective *coll, th_policy policy,
                  th_load_model model, th_error *err) {
    return th_sched_plan_from(plan, sys, coll, policy, model, NULL, err);
}

int th_sched_plan_from(th_plan *plan, const th_system *sys, const th_collective *coll,
                       th_policy policy, th_load_model model, const double *init_load,
                       th_error *err) {
    return plan_with(plan, sys, coll, policy, model, init_load, 0, err);
}

int th_sched_plan_lp(th_plan *plan, const th_system *sys, const th_collective *coll, int seq,
                     th_error *err) {
    if (seq < 0 || seq >= TH_LP_SEQUENCES)
        return th_error_set(err, TH_EINPUT, "policy lp: no sequence %d", seq);
    return plan_with(plan, sys, coll, TH_POLICY_LP, TH_LOAD_ALPHA_BETA, NULL, seq, err);
}

static int plan_with(th_plan *plan, const th_system *sys, const th_collective *coll,
                     th_policy policy, th_load_model model, const double *init_load, int seq,
                     th_error *err) {
    if (th_collective_validate(sys, coll, err)) return err->code;
    if ((unsigned)policy >= TH_POLICY_COUNT || (unsigned)model > TH_LOAD_BANDWIDTH)
        return th_error_set(err, TH_EINPUT, "unknown policy or load model");
    if (policy == TH_POLICY_IDEAL)
        return th_error_set(err, TH_EINPUT,
                            "policy ideal: the ideal network has no chunk plan (it models "
                            "training only)");
    uint32_t mask = coll->dims_mask ? coll->dims_mask : 0xffffffffu;
    plan->type = coll->type;
    plan->model = sys->model;
    plan->ops = model_of(sys);
    plan->policy = policy;
    plan->size = coll->size;
    plan->chunks = coll->chunks;
    plan->n = 0;
    plan->active_npus = 1;
    for (int d = 0; d < sys->ndims; d++) {
        plan->npus[d] = (double)sys->dims[d].npus;
        plan->load[d] = init_load ? init_load[d] : 0;
        if (((mask >> d) & 1u) && sys->dims[d].npus > 1) {
            plan->active[plan->n++] = d;
            plan->active_npus *= (double)sys->dims[d].npus;
        }
    }
    int n = plan->n;
    if (plan->ops->shape(plan, sys, err)) return err->code;
    size_t need = (size_t)plan->chunks * (size_t)n;
    if (plan->capacity < need) {
        uint8_t *o = realloc(plan->order, need);
        if (!o)
            return th_error_set(err, TH_EINTERNAL, "out of memory planning %lld chunks",
                                (long long)plan->chunks);
        plan->order = o;
        plan->capacity = need;
    }
    int base[TH_MAX_DIMS];
    int desc = coll->type == TH_COLL_ALLGATHER;
    for (int j = 0; j < n; j++)
        base[j] = plan->active[desc ? n - 1 - j : j];

    if (policy == TH_POLICY_LP && coll->type != TH_COLL_ALLTOALL) {
        if (sys->model != TH_MODEL_ANALYTICAL)
            return th_error_set(err, TH_EINPUT,
                                "policy lp: the analytical model only, not the %s preset",
                                th_model_name(sys->model));
        return sched_plan_lp(plan, sys, coll, seq, err);
    }
    int themis = policy == TH_POLICY_THEMIS || policy == TH_POLICY_THEMIS_GLOBAL;
    if (themis && coll->type != TH_COLL_ALLTOALL) { /* an All-to-All is not reordered */
        plan->ops->themis(plan, sys, model, base);
        return TH_OK;
    }
    for (int64_t i = 0; i < plan->chunks; i++) {
        uint8_t *o = plan->order + (size_t)i * (size_t)n;
        int shift =
            policy == TH_POLICY_ROUNDROBIN && coll->type != TH_COLL_ALLTOALL ? (int)(i % n) : 0;
        for (int j = 0; j < n; j++)
            o[j] = (uint8_t)base[(j + shift) % n];
    }
    return TH_OK;
}

/* Ours: RS over the order then AG back (AR), RS only, AG in reverse size order, or A2A. */
static void stage(const th_plan *plan, const uint8_t *o, int j, int *dim, th_op *op, double *m) {
    int n = plan->n;
    double div = 1;
    switch (plan->type) {
    case TH_COLL_ALLREDUCE:
    case TH_COLL_REDUCESCATTER: {
        int k = j < n ? j : 2 * n - 1 - j;
        *op = j < n ? TH_OP_RS : TH_OP_AG;
        *dim = o[k];
        for (int l = 0; l < k; l++)
            div *= plan->npus[o[l]];
        break;
    }
    case TH_COLL_ALLGATHER:
        *op = TH_OP_AG;
        *dim = o[j];
        for (int l = j + 1; l < n; l++)
            div *= plan->npus[o[l]];
        break;
    case TH_COLL_ALLTOALL:
        *op = TH_OP_A2A;
        *dim = o[j];
        break;
    }
    *m = plan->chunk / div;
}

/* Ours: c = S / C; an All-Reduce is an RS half and an AG half. */
static int shape(th_plan *plan, const th_system *sys, th_error *err) {
    (void)sys, (void)err;
    plan->chunk = plan->last_chunk = plan->size / (double)plan->chunks;
    plan->nstages = plan->type == TH_COLL_ALLREDUCE ? 2 * plan->n : plan->n;
    return TH_OK;
}

static int check(const th_system *sys, const th_collective *coll, th_error *err) {
    (void)sys, (void)coll, (void)err;
    return TH_OK;
}

static const th_plan_model clean_model = {check, shape, plan_themis, stage};

/* The planner of each th_model. */
static const th_plan_model *const models[] = {
    [TH_MODEL_ANALYTICAL] = &clean_model,
    [TH_MODEL_ASTRA] = &sched_astra_model,
};

static const th_plan_model *model_of(const th_system *sys) {
    if (sys->model == TH_MODEL_ASTRA1) return sched_astra1_model(sys); /* two phase lists */
    return models[sys->model];
}

void th_plan_stage(const th_plan *plan, int64_t chunk, int j, int *dim, th_op *op, double *m) {
    plan->ops->stage(plan, th_plan_order(plan, chunk), j, dim, op, m);
}

int th_sched_parse_dims(const char *list, int ndims, uint32_t *mask, th_error *err) {
    uint32_t out = 0;
    const char *s = list;
    if (strcmp(list, "all") == 0) {
        *mask = 0;
        return TH_OK;
    }
    for (;;) {
        while (*s == ' ')
            s++;
        if (!isdigit((unsigned char)*s))
            return th_error_set(err, TH_EINPUT,
                                "--dims: expected a list of dim indices such as 0,2, got \"%s\"",
                                list);
        long v = 0;
        while (isdigit((unsigned char)*s) && v < 1000)
            v = v * 10 + (*s++ - '0');
        while (*s == ' ')
            s++;
        if (v >= ndims)
            return th_error_set(err, TH_EINPUT,
                                "--dims: dim %ld does not exist (the system has dims 0..%d)", v,
                                ndims - 1);
        if (out & (1u << v))
            return th_error_set(err, TH_EINPUT, "--dims: dim %ld is listed twice in \"%s\"", v,
                                list);
        out |= 1u << v;
        if (*s == '\0') break;
        if (*s++ != ',')
            return th_error_set(err, TH_EINPUT,
                                "--dims: expected a list of dim indices such as 0,2, got \"%s\"",
                                list);
    }
    *mask = out;
    return TH_OK;
}

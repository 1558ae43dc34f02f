/* Chakra execution traces as a workload format (workload_format.h): told by content (a binary
 * file) or by name (a prefix as ASTRA-sim's --workload-configuration gives it, or one file of
 * the set), and always replayed as a graph (chakra_replay.c) for every pair `themis train`
 * asks, with its own report (table, JSON, CSV, JSON lines) and timeline. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../report_internal.h"
#include "../workload_format.h"
#include "chakra.h"
#include "chakra_mem.h"
#include "themis/csv.h"
#include "themis/report.h"
#include "themis/run.h"
#include "themis/text.h"
#include "themis/train.h"

/* Chunks per collective when neither -n nor the system's run.chunks gives them. */
#define CHUNKS_DEFAULT 64

static int parse(const char *text, size_t len, const char *src, void **out, th_error *err) {
    th_ck_trace *tr = NULL;
    int rc = th_ck_from_bytes(text, len, src, &tr, err);
    *out = tr;
    return rc;
}

static int open_path(const char *path, void **out, th_error *err) {
    th_ck_trace *tr = NULL;
    int r = th_ck_open(path, &tr, err);
    *out = tr;
    return r;
}

static void free_native(void *native) {
    th_ck_trace_free(native);
}

static int convert(const void *native, const th_system *sys, const th_wl_scale *scale,
                   const char *src, th_workload **out, th_buf *notes, th_error *err) {
    (void)native, (void)sys, (void)scale, (void)notes;
    *out = NULL;
    return th_error_set(err, TH_EINPUT,
                        "%s: a Chakra execution trace is a graph, not a list of layers: themis "
                        "train replays it as it is",
                        src);
}

static int native_on(const th_system *sys) {
    (void)sys;
    return 1;
}

/* One replayed pair. */
typedef struct ck_row {
    th_policy policy;
    th_intra intra;
    th_ck_result res;
    double speedup; /* baseline + fifo finish / this finish */
} ck_row;

typedef struct ck_report {
    const th_system *sys;
    const th_ck_trace *tr;
    int64_t chunks;
    const ck_row *rows;
    int nrows;
} ck_report;

/* The ranks of class c. */
static int class_ranks(const th_ck_trace *tr, int c) {
    int n = 0;
    for (int k = 0; k < tr->ranks; k++)
        n += th_ck_class_of(tr, k) == c;
    return n;
}

/* Per pair, each class's end and exposed communication (ranks whose graphs differ). */
static void classes_table(FILE *out, const ck_report *rep) {
    fprintf(out,
            "\nranks in %d classes of one graph each (one rank replayed per class: the first):\n",
            rep->tr->nclasses);
    th_table *t = calloc(1, sizeof *t);
    if (!t) return;
    static const char *const head[] = {"policy", "intra",  "class",          "first_rank",
                                       "ranks",  "end_us", "exposed_comm_us"};
    static const int width[] = {10, 5, 5, 10, 5, 14, 15};
    for (int k = 0; k < 7; k++) {
        th_table_col(t, width[k], k < 2);
        th_table_cell(t, head[k]);
    }
    for (int i = 0; i < rep->nrows; i++) {
        const ck_row *r = &rep->rows[i];
        for (int c = 0; c < r->res.classes; c++) {
            char v[5][32];
            snprintf(v[0], 32, "%d", c);
            snprintf(v[1], 32, "%d", th_ck_first_rank(rep->tr, c));
            snprintf(v[2], 32, "%d", class_ranks(rep->tr, c));
            snprintf(v[3], 32, "%.10g", r->res.class_end[c] / 1000.0);
            snprintf(v[4], 32, "%.10g", (r->res.class_end[c] - r->res.class_compute[c]) / 1000.0);
            th_table_cell(t, th_policy_name(r->policy));
            th_table_cell(t, th_intra_name(r->intra));
            for (int k = 0; k < 5; k++)
                th_table_cell(t, v[k]);
        }
    }
    th_table_print(out, t);
    free(t);
}

static int table(FILE *out, const ck_report *rep, th_error *err) {
    char a[32], wname[TH_TABLE_CELL], sname[TH_TABLE_CELL], classes[48] = "";
    if (rep->tr->nclasses > 1) /* the nodes are then rank 0's */
        snprintf(classes, sizeof classes, " in %d classes", rep->tr->nclasses);
    fprintf(out,
            "%s on %s (%s NPUs): Chakra trace of %d rank%s%s, %d nodes, %lld chunks per "
            "collective, %s model\n",
            th_text_escape(wname, sizeof wname, rep->tr->name),
            th_text_escape(sname, sizeof sname, rep->sys->name), th_num_format(a, rep->sys->npus),
            rep->tr->ranks, rep->tr->ranks == 1 ? "" : "s", classes, (int)rep->tr->g.n,
            (long long)rep->chunks, th_model_name(rep->sys->model));
    th_table *t = calloc(1, sizeof *t);
    if (!t) return th_error_set(err, TH_EINTERNAL, "out of memory");
    static const char *const head[] = {"policy",          "intra",   "iteration_us", "compute_us",
                                       "exposed_comm_us", "speedup", "collectives"};
    static const int width[] = {10, 5, 14, 14, 15, 10, 11};
    for (int k = 0; k < 7; k++) {
        th_table_col(t, width[k], k < 2);
        th_table_cell(t, head[k]);
    }
    for (int i = 0; i < rep->nrows; i++) {
        const ck_row *r = &rep->rows[i];
        char c[5][32];
        snprintf(c[0], 32, "%.10g", r->res.finish / 1000.0);
        snprintf(c[1], 32, "%.10g", r->res.compute / 1000.0);
        snprintf(c[2], 32, "%.10g", r->res.exposed / 1000.0);
        snprintf(c[3], 32, isnan(r->speedup) ? "-" : "%.6g", r->speedup);
        snprintf(c[4], 32, "%lld", (long long)r->res.collectives);
        th_table_cell(t, th_policy_name(r->policy));
        th_table_cell(t, th_intra_name(r->intra));
        for (int k = 0; k < 5; k++)
            th_table_cell(t, c[k]);
    }
    fputc('\n', out);
    th_table_print(out, t);
    free(t);
    if (rep->tr->nclasses > 1) classes_table(out, rep);
    return th_report_done(out, err);
}

static cJSON *json(const ck_report *rep) {
    cJSON *root = cJSON_CreateObject();
    cJSON_AddItemToObject(root, "system", th_report_system_json(rep->sys, -1));
    cJSON *w = cJSON_AddObjectToObject(root, "workload");
    cJSON_AddStringToObject(w, "name", rep->tr->name);
    cJSON_AddStringToObject(w, "format", "chakra");
    cJSON_AddStringToObject(w, "version", rep->tr->g.version);
    cJSON_AddNumberToObject(w, "ranks", rep->tr->ranks);
    cJSON_AddNumberToObject(w, "nodes", rep->tr->g.n);
    cJSON_AddNumberToObject(w, "chunks", (double)rep->chunks);
    int nc = th_ck_classes(rep->tr);
    cJSON_AddNumberToObject(w, "classes", nc);
    cJSON *first = cJSON_AddArrayToObject(w, "class_first_rank");
    cJSON *ranks = cJSON_AddArrayToObject(w, "class_ranks");
    for (int c = 0; c < nc; c++) {
        cJSON_AddItemToArray(first, cJSON_CreateNumber(th_ck_first_rank(rep->tr, c)));
        cJSON *list = cJSON_CreateArray();
        cJSON_AddItemToArray(ranks, list);
        for (int k = 0; k < rep->tr->ranks; k++)
            if (th_ck_class_of(rep->tr, k) == c) cJSON_AddItemToArray(list, cJSON_CreateNumber(k));
    }
    cJSON *results = cJSON_AddArrayToObject(root, "results");
    for (int i = 0; i < rep->nrows; i++) {
        const ck_row *r = &rep->rows[i];
        cJSON *o = cJSON_CreateObject(); /* a row: the same keys in JSON, JSONL and CSV */
        cJSON_AddStringToObject(o, "workload", rep->tr->name);
        cJSON_AddStringToObject(o, "system", rep->sys->name);
        cJSON_AddStringToObject(o, "policy", th_policy_name(r->policy));
        cJSON_AddStringToObject(o, "intra", th_intra_name(r->intra));
        cJSON_AddNumberToObject(o, "chunks", (double)rep->chunks);
        cJSON_AddNumberToObject(o, "iteration_us", r->res.finish / 1000.0);
        cJSON_AddNumberToObject(o, "compute_us", r->res.compute / 1000.0);
        cJSON_AddNumberToObject(o, "exposed_comm_us", r->res.exposed / 1000.0);
        cJSON_AddNumberToObject(o, "speedup", r->speedup);
        cJSON_AddNumberToObject(o, "collectives", (double)r->res.collectives);
        cJSON *end = cJSON_AddArrayToObject(o, "class_end_us");
        cJSON *exp = cJSON_AddArrayToObject(o, "class_exposed_comm_us");
        for (int c = 0; c < r->res.classes; c++) {
            cJSON_AddItemToArray(end, cJSON_CreateNumber(r->res.class_end[c] / 1000.0));
            cJSON_AddItemToArray(
                exp, cJSON_CreateNumber((r->res.class_end[c] - r->res.class_compute[c]) / 1000.0));
        }
        cJSON_AddItemToArray(results, o);
    }
    return root;
}

static int report(FILE *out, th_format format, const ck_report *rep, th_error *err) {
    switch (format) {
    case TH_FORMAT_TABLE: return table(out, rep, err);
    case TH_FORMAT_JSON: return th_report_write_json(out, json(rep), err);
    case TH_FORMAT_CSV: return th_report_write_csv(out, json(rep), "results", err);
    case TH_FORMAT_JSONL: return th_report_write_jsonl(out, json(rep), "results", err);
    }
    return th_error_set(err, TH_EINTERNAL, "unknown output format %d", (int)format);
}

/* The timeline rows of the pair being replayed (train's trace columns: the node's name, or
 * its id when it has none, as the layer; its node type as the phase). */
typedef struct ck_trace_ctx {
    FILE *out;
    const th_ck_trace *tr;
    th_policy policy;
    th_intra intra;
    int oom;
} ck_trace_ctx;

static void trace_row(void *ctx, const th_ck_event *ev) {
    ck_trace_ctx *t = ctx;
    const th_ck_graph *g = th_ck_class_graph(t->tr, ev->cls);
    const th_ck_node *x = &g->nodes[ev->node];
    char id[32], *full = NULL;
    const char *name = th_ck_name(g, ev->node);
    if (!name[0]) snprintf(id, sizeof id, "%llu", (unsigned long long)x->id), name = id;
    if (t->tr->nclasses > 1) { /* "rank R: name", R the class's replayed rank */
        size_t n = strlen(name) + 32;
        if (!(full = malloc(n))) {
            t->oom = 1;
            return;
        }
        snprintf(full, n, "rank %d: %s", th_ck_first_rank(t->tr, ev->cls), name);
        name = full;
    }
    th_buf b = {0};
    int bad = th_csv_field(&b, th_policy_name(t->policy));
    bad |= th_csv_field(&b, th_intra_name(t->intra));
    bad |= th_csv_field(&b, x->kind == TH_CK_COLL || x->kind == TH_CK_BCAST ? "collective"
                            : x->kind == TH_CK_MEM                          ? "memory"
                                                                            : "compute");
    bad |= th_csv_int(&b, 0);
    bad |= th_csv_field(&b, name);
    bad |= th_csv_field(&b, x->kind == TH_CK_COLL ? th_coll_type_name((th_coll_type)x->coll)
                                                  : th_ck_type_name(x->type));
    bad |= th_csv_num(&b, ev->start / 1000.0);
    bad |= th_csv_num(&b, ev->end / 1000.0);
    bad |= th_csv_end(&b);
    if (!bad) th_csv_write(t->out, &b);
    th_buf_free(&b);
    free(full);
    if (bad) t->oom = 1;
}

/* Every asked pair (policy -1: the system's run.policy, else baseline and themis; intra -1:
 * its run.intra, else fifo and scf: an imported ASTRA-sim system replays as its
 * inter-/intra-dimension-scheduling says), then baseline + fifo for the speedups when it was not
 * asked. */
static int replay(const void *native, const th_system *sys, const char *src,
                  const th_wl_replay *req, th_wl_open_fn open, void *ctx, th_error *err) {
    const th_ck_trace *tr = native;
    (void)src;
    if (req->passes || req->scale.comm != 1 || req->scale.compute != 1)
        return th_error_set(err, TH_EINPUT,
                            "train: --passes, --comm-scale and --compute-scale are for ASTRA-sim "
                            "1.0 text workloads; %s is a Chakra trace",
                            tr->prefix);
    if (req->policy == TH_POLICY_IDEAL)
        return th_error_set(err, TH_EINPUT,
                            "policy ideal: a Chakra trace replays on the emulator (policies "
                            "baseline, themis, roundrobin, themis-global)");
    th_ck_mem mem;
    th_ck_opts o = {0};
    if (req->memory) {
        if (th_ck_mem_parse(req->memory, strlen(req->memory), req->memory_src, &mem, err))
            return err->code;
        o.mem = &mem;
    }
    o.chunks = req->chunks                    ? req->chunks
               : req->def && req->def->chunks ? req->def->chunks
                                              : CHUNKS_DEFAULT;
    o.model = (th_load_model)req->load_model;
    o.priority = (th_priority)req->priority;
    o.poll = req->poll, o.poll_ctx = req->poll_ctx;
    th_policy pols[2] = {TH_POLICY_BASELINE, TH_POLICY_THEMIS};
    th_intra intras[2] = {TH_INTRA_FIFO, TH_INTRA_SCF};
    int np = req->policy < 0 ? 2 : 1, nq = req->intra < 0 ? 2 : 1;
    const th_run_defaults *def = req->def;
    if (req->policy < 0 && def && def->has_policy) np = 1, pols[0] = def->policy;
    if (req->intra < 0 && def && def->has_intra) nq = 1, intras[0] = def->intra;
    if (req->policy >= 0) pols[0] = (th_policy)req->policy;
    if (req->intra >= 0) intras[0] = (th_intra)req->intra;
    th_ck_groups *groups = NULL;
    if (req->comm_group && th_ck_groups_load(req->comm_group, &groups, err)) return err->code;
    o.groups = groups;
    FILE *out;
    ck_trace_ctx tc = {NULL, tr, TH_POLICY_BASELINE, TH_INTRA_FIFO, 0};
    int rc = open(ctx, &out, &tc.out, err);
    if (rc) {
        th_ck_groups_free(groups);
        return rc;
    }
    if (tc.out) th_report_train_trace_header(tc.out);
    ck_row rows[5];
    int n = 0;
    double base = NAN;
    for (int p = 0; p < np && rc == TH_OK; p++)
        for (int q = 0; q < nq && rc == TH_OK; q++) {
            ck_row *r = &rows[n++];
            r->policy = o.policy = pols[p];
            r->intra = o.intra = intras[q];
            tc.policy = o.policy, tc.intra = o.intra;
            rc = th_ck_replay(sys, tr, &o, tc.out ? trace_row : NULL, &tc, &r->res, err);
            if (rc == TH_EINPUT && np * nq > 1) { /* which of the pairs the preset refuses */
                th_error e = *err;
                th_error_set(err, e.code, "%s + %s: %s", th_policy_name(o.policy),
                             th_intra_name(o.intra), e.msg);
            }
            if (o.policy == TH_POLICY_BASELINE && o.intra == TH_INTRA_FIFO) base = r->res.finish;
        }
    if (rc == TH_OK && isnan(base)) {
        /* the reference was not asked: where the preset refuses it (a chunk the baseline's
         * plan cannot cut, say) the rows asked stand, without a speedup */
        th_ck_result ref;
        th_error ref_err;
        o.policy = TH_POLICY_BASELINE, o.intra = TH_INTRA_FIFO;
        rc = th_ck_replay(sys, tr, &o, NULL, NULL, &ref, &ref_err);
        if (rc == TH_OK) base = ref.finish;
        if (rc == TH_EINPUT) rc = TH_OK;
        if (rc) *err = ref_err;
    }
    if (rc == TH_OK && tc.oom) rc = th_error_set(err, TH_EINTERNAL, "out of memory");
    for (int i = 0; i < n; i++)
        rows[i].speedup = rows[i].res.finish > 0 ? base / rows[i].res.finish : 1;
    if (rc == TH_OK) {
        ck_report rep = {sys, tr, o.chunks, rows, n};
        rc = report(out, (th_format)req->format, &rep, err);
    }
    th_ck_groups_free(groups);
    return rc;
}

/* One sweep point: the replay under the point's pair. */
static int point(const void *native, const th_system *sys, const th_wl_point *pt, double *iteration,
                 double *compute, int64_t *collectives, th_error *err) {
    th_ck_mem mem;
    th_ck_opts o = {0};
    if (pt->memory) {
        if (th_ck_mem_parse(pt->memory, strlen(pt->memory), pt->memory_src, &mem, err))
            return err->code;
        o.mem = &mem;
    }
    o.policy = (th_policy)pt->policy, o.intra = (th_intra)pt->intra;
    o.model = (th_load_model)pt->load_model, o.priority = (th_priority)pt->priority;
    o.chunks = pt->chunks ? pt->chunks : CHUNKS_DEFAULT;
    o.stop = pt->stop;
    th_ck_groups *groups = NULL;
    if (pt->comm_group && th_ck_groups_load(pt->comm_group, &groups, err)) return err->code;
    o.groups = groups;
    th_ck_result r;
    int rc = th_ck_replay(sys, native, &o, NULL, NULL, &r, err);
    th_ck_groups_free(groups);
    if (rc) return rc;
    *iteration = r.finish, *compute = r.compute, *collectives = r.collectives;
    return TH_OK;
}

static const char *name_of(const void *native) {
    return ((const th_ck_trace *)native)->name;
}

const th_wl_format th_ck_format = {
    .name = "a Chakra execution trace",
    .hint = "the command themis train replays it (its prefix, or one file of the set)",
    .plural = "Chakra execution traces",
    .sim = "ASTRA-sim 2.x",
    .model = "astra-sim",
    .memory = 1,
    .groups = 1,
    .detect = th_ck_detect,
    .open_path = open_path,
    .parse = parse,
    .free_native = free_native,
    .convert = convert,
    .native_on = native_on,
    .replay = replay,
    .point = point,
    .name_of = name_of,
};

/* A Chakra trace set: the files <prefix>.0.et, <prefix>.1.et, ... that ASTRA-sim 2.x's
 * --workload-configuration=<prefix> names, found from the prefix or from any one of them, each
 * read and compared with rank 0's. When every rank holds the same graph (node ids may be offset
 * per rank; positions, kinds, durations, collectives and dependencies must agree) one rank
 * stands for all; ranks that differ are refused, naming the file, node and field. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../json.h"
#include "chakra.h"
#include "themis/str.h"

/* The longest prefix + ".<rank>.et" we build. */
#define PATH_MAX_LEN 4096

static int is_file(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* When path ends in .<digits>.et: its prefix into prefix (room n), 1; else 0. */
static int split_rank(const char *path, char *prefix, size_t n) {
    size_t len = strlen(path);
    if (len < 5 || strcmp(path + len - 3, ".et")) return 0;
    size_t e = len - 3, d = e;
    while (d > 0 && path[d - 1] >= '0' && path[d - 1] <= '9')
        d--;
    if (d == e || d == 0 || path[d - 1] != '.' || d - 1 >= n) return 0;
    memcpy(prefix, path, d - 1);
    prefix[d - 1] = '\0';
    return 1;
}

static int read_graph(const char *path, th_ck_graph *g, th_error *err) {
    char *data;
    size_t len;
    if (th_json_read_file(path, &data, &len, err)) return err->code;
    int rc = th_ck_parse(data, len, path, g, err);
    free(data);
    return rc;
}

static const char *const kinds[] = {"compute", "collective", "broadcast", "send",
                                    "receive", "memory",     "metadata"};

/* Compares rank graph b (file fb) with rank 0's a (file fa): TH_EINPUT naming the first
 * difference. Node ids may differ by a rank's offset; dependencies compare by position. */
static int compare(const th_ck_graph *a, const char *fa, const th_ck_graph *b, const char *fb,
                   th_error *err) {
    const char *tail = "ranks that differ are not combined: themis replays one rank for all "
                       "when every rank holds the same graph";
    if (a->n != b->n)
        return th_error_set(err, TH_EINPUT, "%s: %d nodes, rank 0 (%s) has %d: %s", fb, (int)b->n,
                            fa, (int)a->n, tail);
    for (int32_t i = 0; i < a->n; i++) {
        const th_ck_node *x = &a->nodes[i], *y = &b->nodes[i];
        char what[160] = "";
        if (x->kind != y->kind)
            snprintf(what, sizeof what, "type: %s (%s), rank 0 has %s (%s)",
                     th_ck_type_name(y->type), kinds[y->kind], th_ck_type_name(x->type),
                     kinds[x->kind]);
        else if (x->cpu != y->cpu)
            snprintf(what, sizeof what, "attr is_cpu_op: %d, rank 0 has %d", y->cpu, x->cpu);
        else if (x->micros != y->micros)
            snprintf(what, sizeof what, "duration_micros: %llu, rank 0 has %llu",
                     (unsigned long long)y->micros, (unsigned long long)x->micros);
        else if (x->kind == TH_CK_COLL && x->coll != y->coll)
            snprintf(what, sizeof what, "attr comm_type: %s, rank 0 has %s",
                     th_coll_type_name((th_coll_type)y->coll),
                     th_coll_type_name((th_coll_type)x->coll));
        else if (x->size != y->size)
            snprintf(what, sizeof what, "attr comm_size: %.17g, rank 0 has %.17g", y->size,
                     x->size);
        else if (x->ndims != y->ndims || x->dims != y->dims)
            snprintf(what, sizeof what, "attr involved_dim: differs from rank 0's");
        else if (x->ndeps != y->ndeps)
            snprintf(what, sizeof what, "data_deps/ctrl_deps: %u dependencies, rank 0 has %u",
                     y->ndeps, x->ndeps);
        for (uint32_t k = 0; !what[0] && k < x->ndeps; k++)
            if (a->nodes[a->deps[x->dep0 + k]].pos != b->nodes[b->deps[y->dep0 + k]].pos)
                snprintf(what, sizeof what,
                         "data_deps/ctrl_deps: depends on node %llu, rank 0's node depends on "
                         "node %llu (not the same place in the file)",
                         (unsigned long long)b->nodes[b->deps[y->dep0 + k]].id,
                         (unsigned long long)a->nodes[a->deps[x->dep0 + k]].id);
        if (what[0])
            return th_error_set(err, TH_EINPUT, "%s: node %llu: %s (%s node %llu): %s", fb,
                                (unsigned long long)y->id, what, fa, (unsigned long long)x->id,
                                tail);
    }
    return TH_OK;
}

static th_ck_trace *trace_new(const char *prefix, const char *file0) {
    th_ck_trace *tr = calloc(1, sizeof *tr);
    if (!tr) return NULL;
    snprintf(tr->prefix, sizeof tr->prefix, "%s", prefix);
    snprintf(tr->file0, sizeof tr->file0, "%s", file0);
    th_base_name(prefix, ".et", tr->name, sizeof tr->name);
    return tr;
}

int th_ck_from_bytes(const char *data, size_t len, const char *src, th_ck_trace **out,
                     th_error *err) {
    *out = NULL;
    th_ck_trace *tr = trace_new(src, src);
    if (!tr) return th_error_set(err, TH_EINTERNAL, "out of memory");
    tr->ranks = 1;
    int rc = th_ck_parse(data, len, src, &tr->g, err);
    if (rc) {
        free(tr);
        return rc;
    }
    *out = tr;
    return TH_OK;
}

int th_ck_open(const char *path, th_ck_trace **out, th_error *err) {
    char prefix[PATH_MAX_LEN], file[PATH_MAX_LEN + 32];
    int named = split_rank(path, prefix, sizeof prefix);
    if (!named) {
        if (strlen(path) >= sizeof prefix) return 0;
        snprintf(file, sizeof file, "%s.0.et", path);
        if (is_file(path) || !is_file(file)) return 0; /* a file: told by its content */
        snprintf(prefix, sizeof prefix, "%s", path);
    } else {
        snprintf(file, sizeof file, "%s.0.et", prefix);
        if (!is_file(file)) {
            if (!is_file(path)) return 0;
            th_error_set(err, TH_EINPUT,
                         "%s: a trace file of rank > 0, and %s (rank 0's) does not exist "
                         "(ASTRA-sim reads <prefix>.<rank>.et for every rank from 0)",
                         path, file);
            return -TH_EINPUT;
        }
    }
    th_ck_trace *tr = trace_new(prefix, file);
    if (!tr) {
        th_error_set(err, TH_EINTERNAL, "out of memory");
        return -TH_EINTERNAL;
    }
    int rc = read_graph(file, &tr->g, err);
    tr->ranks = 1;
    for (int k = 1; rc == TH_OK; k++) {
        snprintf(file, sizeof file, "%s.%d.et", prefix, k);
        if (!is_file(file)) break;
        th_ck_graph g;
        rc = read_graph(file, &g, err);
        if (rc == TH_OK) {
            rc = compare(&tr->g, tr->file0, &g, file, err);
            th_ck_graph_free(&g);
        }
        tr->ranks = k + 1;
    }
    if (rc != TH_OK) {
        th_ck_trace_free(tr);
        return -rc;
    }
    *out = tr;
    return 1;
}

void th_ck_trace_free(th_ck_trace *tr) {
    if (!tr) return;
    th_ck_graph_free(&tr->g);
    free(tr);
}

/* A Chakra trace set: the files <prefix>.0.et, <prefix>.1.et, ... that ASTRA-sim 2.x's
 * --workload-configuration=<prefix> names, found from the prefix or from any one of them, each
 * read and compared with the graphs read before. Ranks that hold the same graph (node ids may
 * be offset per rank; positions, kinds, durations, collectives and dependencies must agree)
 * and whose messages go to and come from ranks of the same classes form a class, whose first
 * rank's graph stands for all of them. */
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

/* Compares rank graph b with graph a: 0 when they are the same graph (node ids may differ by
 * a rank's offset; dependencies compare by position), else 1 with the first difference in
 * what (room n) and the node of b in *node. */
static int differ(const th_ck_graph *a, const th_ck_graph *b, char *what, size_t n,
                  uint64_t *node) {
    what[0] = '\0';
    *node = 0;
    if (a->n != b->n) {
        snprintf(what, n, "%d nodes, against %d", (int)b->n, (int)a->n);
        return 1;
    }
    for (int32_t i = 0; i < a->n; i++) {
        const th_ck_node *x = &a->nodes[i], *y = &b->nodes[i];
        *node = y->id;
        if (x->kind != y->kind)
            snprintf(what, n, "type: %s (%s), against %s (%s)", th_ck_type_name(y->type),
                     kinds[y->kind], th_ck_type_name(x->type), kinds[x->kind]);
        else if (x->cpu != y->cpu)
            snprintf(what, n, "attr is_cpu_op: %d, against %d", y->cpu, x->cpu);
        else if (x->micros != y->micros)
            snprintf(what, n, "duration_micros: %llu, against %llu", (unsigned long long)y->micros,
                     (unsigned long long)x->micros);
        else if (x->kind == TH_CK_COLL && x->coll != y->coll)
            snprintf(what, n, "attr comm_type: %s, against %s",
                     th_coll_type_name((th_coll_type)y->coll),
                     th_coll_type_name((th_coll_type)x->coll));
        else if (x->size != y->size)
            snprintf(what, n, "attr comm_size: %.17g, against %.17g", y->size, x->size);
        else if (x->ndims != y->ndims || x->dims != y->dims)
            snprintf(what, n, "attr involved_dim: differs");
        else if ((x->kind == TH_CK_SEND || x->kind == TH_CK_RECV) && x->tag != y->tag)
            snprintf(what, n, "attr comm_tag: %d, against %d", (int)y->tag, (int)x->tag);
        else if (x->group != y->group)
            snprintf(what, n, "attr pg_name: %d, against %d", (int)y->group, (int)x->group);
        else if (x->ndeps != y->ndeps)
            snprintf(what, n, "data_deps/ctrl_deps: %u dependencies, against %u", y->ndeps,
                     x->ndeps);
        for (uint32_t k = 0; !what[0] && k < x->ndeps; k++)
            if (a->nodes[a->deps[x->dep0 + k]].pos != b->nodes[b->deps[y->dep0 + k]].pos)
                snprintf(what, n,
                         "data_deps/ctrl_deps: depends on node %llu, against node %llu (not the "
                         "same place in the file)",
                         (unsigned long long)b->nodes[b->deps[y->dep0 + k]].id,
                         (unsigned long long)a->nodes[a->deps[x->dep0 + k]].id);
        if (what[0]) return 1;
    }
    return 0;
}

static th_ck_trace *trace_new(const char *prefix, const char *file0) {
    th_ck_trace *tr = calloc(1, sizeof *tr);
    if (!tr) return NULL;
    snprintf(tr->prefix, sizeof tr->prefix, "%s", prefix);
    snprintf(tr->file0, sizeof tr->file0, "%s", file0);
    th_base_name(prefix, ".et", tr->name, sizeof tr->name);
    return tr;
}

/* What reading a set gathers before its classes: per rank its graph and the peers of its
 * point-to-point nodes, in node order. */
typedef struct set_build {
    int32_t *graph; /* per rank its graph: 0 tr->g, j > 0 tr->cg[j - 1] */
    int32_t *peer;  /* rank k's peers: peer[off[k] .. off[k + 1]) */
    size_t *off;
    size_t npeer, peer_cap, graph_cap, off_cap;
} set_build;

static const th_ck_graph *graph_at(const th_ck_trace *tr, int j) {
    return j ? &tr->cg[j - 1] : &tr->g;
}

/* Records rank k's graph j (g) and its peers. */
static int note_rank(set_build *b, int k, int j, const th_ck_graph *g) {
    if (th_grow(&b->graph, &b->graph_cap, (size_t)k + 1, sizeof *b->graph) ||
        th_grow(&b->off, &b->off_cap, (size_t)k + 2, sizeof *b->off))
        return -1;
    b->graph[k] = j;
    b->off[k] = b->npeer;
    for (int32_t i = 0; i < g->n; i++) {
        const th_ck_node *x = &g->nodes[i];
        if (x->kind != TH_CK_SEND && x->kind != TH_CK_RECV) continue;
        if (b->npeer == b->peer_cap &&
            th_grow(&b->peer, &b->peer_cap, b->npeer + 1, sizeof *b->peer))
            return -1;
        b->peer[b->npeer++] = x->peer;
    }
    b->off[k + 1] = b->npeer;
    return 0;
}

/* Rank k's graph g (taken over): the first graph read before that it equals, else a graph of
 * its own. */
static int add_rank(th_ck_trace *tr, set_build *b, th_ck_graph *g, int k, th_error *err) {
    char what[160];
    uint64_t node = 0;
    int ng = tr->ngraphs ? tr->ngraphs : 1, j = 0;
    while (j < ng && differ(graph_at(tr, j), g, what, sizeof what, &node))
        j++;
    if (note_rank(b, k, j, g)) { /* its own peers */
        th_ck_graph_free(g);
        return th_error_set(err, TH_EINTERNAL, "out of memory");
    }
    if (j == ng && ng == TH_CK_MAX_CLASSES) {
        th_ck_graph_free(g);
        return th_error_set(err, TH_EINPUT,
                            "%s.%d.et: node %llu: %s (rank 0's graph): a %dth graph among the "
                            "ranks; themis replays up to %d classes of ranks with one graph",
                            tr->prefix, k, (unsigned long long)node, what, j + 1,
                            TH_CK_MAX_CLASSES);
    }
    if (j == ng) {
        size_t cap = (size_t)ng - 1;
        if (th_grow(&tr->cg, &cap, (size_t)ng, sizeof *tr->cg)) {
            th_ck_graph_free(g);
            return th_error_set(err, TH_EINTERNAL, "out of memory");
        }
        tr->cg[ng - 1] = *g;
        tr->ngraphs = ng + 1;
    } else {
        th_ck_graph_free(g);
    }
    return TH_OK;
}

/* Whether ranks a and b, of one graph, send to and receive from ranks of the same classes. */
static int same_peers(const th_ck_trace *tr, const set_build *b, const int32_t *cls, int a, int c) {
    for (size_t j = 0; j < b->off[a + 1] - b->off[a]; j++) {
        int32_t p = b->peer[b->off[a] + j], q = b->peer[b->off[c] + j];
        int x = p >= 0 && p < tr->ranks ? cls[p] : -1, y = q >= 0 && q < tr->ranks ? cls[q] : -1;
        if (x != y) return 0;
    }
    return 1;
}

/* The classes: ranks of one graph whose messages go to and come from ranks of the same
 * classes, refined from the graphs until no class splits (one replayed rank then stands for
 * each of its ranks, its messages included). Classes are numbered by their first rank. */
static int make_classes(th_ck_trace *tr, const set_build *b, th_error *err) {
    int n = tr->ranks, nc = 0;
    int32_t *cls = malloc(sizeof *cls * (size_t)n), *next = malloc(sizeof *next * (size_t)n);
    int32_t rep[TH_CK_MAX_CLASSES];
    if (!cls || !next) {
        free(cls), free(next);
        return th_error_set(err, TH_EINTERNAL, "out of memory");
    }
    for (int k = 0; k < n; k++)
        cls[k] = b->graph[k];
    /* each pass splits classes (numbered anew by first rank); a pass that splits none ends */
    for (int before = tr->ngraphs ? tr->ngraphs : 1;; before = nc) {
        nc = 0;
        for (int k = 0; k < n; k++) {
            int j = 0;
            while (j < nc && !(cls[rep[j]] == cls[k] && same_peers(tr, b, cls, rep[j], k)))
                j++;
            if (j == nc && nc == TH_CK_MAX_CLASSES) {
                free(cls), free(next);
                return th_error_set(err, TH_EINPUT,
                                    "%s.%d.et: more than %d classes of ranks (ranks of one graph "
                                    "whose messages go to and come from ranks of the same "
                                    "classes): themis replays up to %d",
                                    tr->prefix, k, TH_CK_MAX_CLASSES, TH_CK_MAX_CLASSES);
            }
            if (j == nc) rep[nc++] = k;
            next[k] = j;
        }
        int32_t *t = cls;
        cls = next, next = t;
        if (nc == before) break;
    }
    free(next);
    tr->class_of = cls;
    tr->nclasses = nc;
    tr->first = malloc(sizeof *tr->first * (size_t)nc);
    tr->graph_of = malloc(sizeof *tr->graph_of * (size_t)nc);
    tr->peer_off = malloc(sizeof *tr->peer_off * (size_t)(nc + 1));
    size_t np = 0;
    for (int c = 0; c < nc; c++)
        np += b->off[rep[c] + 1] - b->off[rep[c]];
    tr->peer = malloc(sizeof *tr->peer * (np ? np : 1));
    if (!tr->first || !tr->graph_of || !tr->peer_off || !tr->peer)
        return th_error_set(err, TH_EINTERNAL, "out of memory");
    np = 0;
    for (int c = 0; c < nc; c++) { /* the class's graph, with its first rank's peers */
        tr->first[c] = rep[c], tr->graph_of[c] = b->graph[rep[c]];
        tr->peer_off[c] = np;
        for (size_t j = b->off[rep[c]]; j < b->off[rep[c] + 1]; j++)
            tr->peer[np++] = b->peer[j];
    }
    tr->peer_off[nc] = np;
    return TH_OK;
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
    set_build b = {0};
    int rc = read_graph(file, &tr->g, err);
    tr->ranks = 1;
    if (rc == TH_OK && note_rank(&b, 0, 0, &tr->g))
        rc = th_error_set(err, TH_EINTERNAL, "out of memory");
    for (int k = 1; rc == TH_OK; k++) {
        snprintf(file, sizeof file, "%s.%d.et", prefix, k);
        if (!is_file(file)) break;
        th_ck_graph g;
        rc = read_graph(file, &g, err);
        if (rc == TH_OK) rc = add_rank(tr, &b, &g, k, err);
        tr->ranks = k + 1;
    }
    if (rc == TH_OK) rc = make_classes(tr, &b, err);
    if (rc == TH_OK) { /* each rank's peers, for a replay of every NPU */
        tr->rank_peer = b.peer, tr->rank_peer_off = b.off;
        b.peer = NULL, b.off = NULL;
    }
    free(b.graph), free(b.peer), free(b.off);
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
    for (int j = 1; j < tr->ngraphs; j++)
        th_ck_graph_free(&tr->cg[j - 1]);
    free(tr->cg);
    free(tr->class_of);
    free(tr->first);
    free(tr->graph_of);
    free(tr->peer);
    free(tr->peer_off);
    free(tr->rank_peer);
    free(tr->rank_peer_off);
    free(tr);
}

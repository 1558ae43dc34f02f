/* A Chakra trace's receives paired with their sends, one class of ranks at a time
 * (docs/CHAKRA.md, Ranks whose graphs differ): the k-th receive of a tag and size from a class
 * takes the k-th send of that tag and size to this class in that class's graph, node order.
 * Sorted lists of both make it O(n log n) where a search per receive was quadratic. */
#include <stdlib.h>

#include "chakra.h"

typedef struct pnode { /* a send or receive as the lists sort it: key, then node order */
    int32_t cls;       /* a receive: the class of its comm_src (sends: 0) */
    int32_t tag;
    double size;
    int32_t node;
} pnode;

/* The class of rank p, -1 for no rank (a peer the replay's checks refuse). */
static int class_of(const th_ck_trace *tr, int32_t p) {
    return p < 0 ? -1 : th_ck_class_of(tr, p);
}

static int pcmp(const void *a, const void *b) {
    const pnode *x = a, *y = b;
    if (x->cls != y->cls) return x->cls < y->cls ? -1 : 1;
    if (x->tag != y->tag) return x->tag < y->tag ? -1 : 1;
    if (x->size != y->size) return x->size < y->size ? -1 : 1;
    return (x->node > y->node) - (x->node < y->node);
}

/* Class c's sends to class cls, sorted (NULL with *n 0 when none; *oom on failure). */
static pnode *sends_to(const th_ck_trace *tr, const th_ck_graph *g, const int32_t *peer, int cls,
                       int32_t *n, int *oom) {
    int32_t m = 0;
    for (int32_t j = 0; j < g->n; j++)
        m += g->nodes[j].kind == TH_CK_SEND && class_of(tr, peer[j]) == cls;
    *n = m;
    if (!m) return NULL;
    pnode *v = malloc(sizeof *v * (size_t)m);
    if (!v) {
        *oom = 1;
        return NULL;
    }
    m = 0;
    for (int32_t j = 0; j < g->n; j++) {
        const th_ck_node *y = &g->nodes[j];
        if (y->kind == TH_CK_SEND && class_of(tr, peer[j]) == cls)
            v[m++] = (pnode){0, y->tag, y->size, j};
    }
    qsort(v, (size_t)m, sizeof *v, pcmp);
    return v;
}

static int same_key(const pnode *a, const pnode *b) {
    return a->cls == b->cls && a->tag == b->tag && a->size == b->size;
}

/* The first entry of v[0 .. n) whose tag and size are not below (tag, size), or with `past`
 * not below nor equal to them. */
static int32_t bound(const pnode *v, int32_t n, int32_t tag, double size, int past) {
    int32_t lo = 0, hi = n;
    while (lo < hi) {
        int32_t mid = lo + (hi - lo) / 2;
        int below = v[mid].tag < tag || (v[mid].tag == tag && v[mid].size < size);
        int equal = v[mid].tag == tag && v[mid].size == size;
        if (below || (past && equal))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

int th_ck_match_receives(const th_ck_trace *tr, int cls, const th_ck_graph *const *graph,
                         const int32_t *const *peer, int32_t *match, int32_t *matchc,
                         uint8_t *several) {
    const th_ck_graph *g = graph[cls];
    int32_t nr = 0;
    for (int32_t i = 0; i < g->n; i++)
        nr += g->nodes[i].kind == TH_CK_RECV;
    if (!nr) return TH_OK;
    pnode *rv = malloc(sizeof *rv * (size_t)nr);
    pnode *sv[TH_CK_MAX_CLASSES] = {0};
    int32_t ns[TH_CK_MAX_CLASSES];
    uint64_t made = 0; /* the classes whose list of sends is made */
    int oom = !rv;
    nr = 0;
    for (int32_t i = 0; !oom && i < g->n; i++) {
        const th_ck_node *x = &g->nodes[i];
        if (x->kind != TH_CK_RECV) continue;
        match[i] = -1, matchc[i] = 0, several[i] = 0;
        if (class_of(tr, peer[cls][i]) >= 0)
            rv[nr++] = (pnode){class_of(tr, peer[cls][i]), x->tag, x->size, i};
    }
    if (!oom) qsort(rv, (size_t)nr, sizeof *rv, pcmp);
    for (int32_t a = 0, k = 0; !oom && a < nr; a++) { /* k: its place among its key's */
        const pnode *x = &rv[a];
        k = a && same_key(&rv[a - 1], x) ? k + 1 : 0;
        int c = x->cls;
        if (!((made >> c) & 1u)) {
            sv[c] = sends_to(tr, graph[c], peer[c], cls, &ns[c], &oom);
            made |= 1ull << c;
        }
        int32_t lo = bound(sv[c], ns[c], x->tag, x->size, 0);
        int32_t run = bound(sv[c], ns[c], x->tag, x->size, 1) - lo;
        match[x->node] = k < run ? sv[c][lo + k].node : -1 - k;
        matchc[x->node] = c;
        several[x->node] = run > 1;
    }
    free(rv);
    for (int c = 0; c < TH_CK_MAX_CLASSES; c++)
        free(sv[c]);
    return oom ? TH_EINTERNAL : TH_OK;
}

/* One Chakra trace file: the length-delimited GlobalMetadata and Nodes (protobuf-c), the
 * attributes that matter for timing, then the graph sorted by id with its dependencies
 * resolved and checked (a duplicate id, a dependency on a missing node or a cycle would make
 * ASTRA-sim stop or wait forever: each is refused, naming the node and the field). */
#include <stdlib.h>
#include <string.h>

#include "chakra.h"
#include "chakra/et_def.pb-c.h"
#include "themis/collective.h"

/* Node types as the format numbers them. */
enum { T_INVALID, T_METADATA, T_MEM_LOAD, T_MEM_STORE, T_COMP, T_SEND, T_RECV, T_COLL };
/* comm_type values the simulator runs (CollectiveCommType). */
enum { C_ALL_REDUCE = 0, C_BROADCAST = 5, C_ALL_GATHER = 2, C_ALL_TO_ALL = 6, C_RS = 7 };

static const char *const type_names[] = {"INVALID_NODE",   "METADATA_NODE", "MEM_LOAD_NODE",
                                         "MEM_STORE_NODE", "COMP_NODE",     "COMM_SEND_NODE",
                                         "COMM_RECV_NODE", "COMM_COLL_NODE"};
static const char *const comm_names[] = {
    "ALL_REDUCE", "REDUCE",         "ALL_GATHER",           "GATHER", "SCATTER", "BROADCAST",
    "ALL_TO_ALL", "REDUCE_SCATTER", "REDUCE_SCATTER_BLOCK", "BARRIER"};

const char *th_ck_type_name(int type) {
    return (unsigned)type < 8 ? type_names[type] : "?";
}

/* A base-128 varint at p[0 .. n): its value and length, or 0 when it is cut or too long. */
static size_t varint(const unsigned char *p, size_t n, uint64_t *v) {
    *v = 0;
    for (size_t i = 0; i < n && i < 10; i++) {
        *v |= (uint64_t)(p[i] & 0x7f) << (7 * i);
        if (!(p[i] & 0x80)) return i + 1;
    }
    return 0;
}

int th_ck_detect(const char *text, size_t len) {
    const unsigned char *p = (const unsigned char *)text;
    uint64_t v;
    size_t k = varint(p, len, &v);
    if (!k || v > len - k) return 0;
    size_t n = len < 4096 ? len : 4096; /* binary: a control byte that no text has */
    for (size_t i = 0; i < n; i++)
        if (p[i] < 9 || (p[i] > 13 && p[i] < 32) || p[i] == 127) return 1;
    return 0;
}

/* An attribute's integer value (any integer or bool field, as the simulator converts them);
 * -1 when it holds no integer. */
static int attr_int(const ChakraProtoMsg__AttributeProto *a, int64_t *out) {
    switch (a->value_case) {
    case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT32_VAL: *out = a->int32_val; return 0;
    case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT64_VAL: *out = a->int64_val; return 0;
    case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_UINT32_VAL: *out = a->uint32_val; return 0;
    case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_UINT64_VAL:
        if (a->uint64_val > (uint64_t)INT64_MAX) return -1;
        *out = (int64_t)a->uint64_val;
        return 0;
    case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_SINT32_VAL: *out = a->sint32_val; return 0;
    case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_SINT64_VAL: *out = a->sint64_val; return 0;
    case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_FIXED32_VAL: *out = a->fixed32_val; return 0;
    case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_FIXED64_VAL:
        if (a->fixed64_val > (uint64_t)INT64_MAX) return -1;
        *out = (int64_t)a->fixed64_val;
        return 0;
    case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_SFIXED32_VAL: *out = a->sfixed32_val; return 0;
    case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_SFIXED64_VAL: *out = a->sfixed64_val; return 0;
    case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_BOOL_VAL: *out = a->bool_val != 0; return 0;
    default: return -1;
    }
}

static const ChakraProtoMsg__AttributeProto *attr(const ChakraProtoMsg__Node *m, const char *name) {
    for (size_t i = 0; i < m->n_attr; i++)
        if (m->attr[i]->name && !strcmp(m->attr[i]->name, name)) return m->attr[i];
    return NULL;
}

/* The integer attribute `name`: *out, 1 when present, 0 when absent, -1 (err set) when it
 * holds no integer or one outside [lo, hi]. */
static int get_int(const ChakraProtoMsg__Node *m, const char *name, int64_t lo, int64_t hi,
                   const char *src, int64_t *out, th_error *err) {
    const ChakraProtoMsg__AttributeProto *a = attr(m, name);
    if (!a) return 0;
    if (attr_int(a, out) || *out < lo || *out > hi) {
        th_error_set(err, TH_EINPUT,
                     "%s: node %llu: attr %s: expected an integer from %lld to %lld (value case "
                     "%d)",
                     src, (unsigned long long)m->id, name, (long long)lo, (long long)hi,
                     (int)a->value_case);
        return -1;
    }
    return 1;
}

/* The collective of comm_type v, or -1 for the types ASTRA-sim 2.x stops on. */
static int coll_of(int64_t v, int *kind) {
    *kind = TH_CK_COLL;
    switch (v) {
    case C_ALL_REDUCE: return TH_COLL_ALLREDUCE;
    case C_ALL_GATHER: return TH_COLL_ALLGATHER;
    case C_RS: return TH_COLL_REDUCESCATTER;
    case C_ALL_TO_ALL: return TH_COLL_ALLTOALL;
    case C_BROADCAST: *kind = TH_CK_BCAST; return 0;
    default: return -1;
    }
}

/* The attributes of node m (at file position pos) into x. */
static int node_attrs(const ChakraProtoMsg__Node *m, th_ck_node *x, const char *src,
                      th_error *err) {
    unsigned long long id = (unsigned long long)m->id;
    int type = (int)m->type;
    int64_t v = 0;
    int r = get_int(m, "is_cpu_op", 0, 1, src, &v, err);
    if (r < 0) return err->code;
    x->cpu = r && v;
    x->ops = x->tensor = -1;
    if ((r = get_int(m, "tensor_size", 0, INT64_MAX, src, &v, err)) < 0) return err->code;
    if (r) x->tensor = (double)v;
    if (type == T_COMP) { /* num_ops and tensor_size: a roofline's operands */
        x->kind = TH_CK_COMPUTE;
        if ((r = get_int(m, "num_ops", 0, INT64_MAX, src, &v, err)) < 0) return err->code;
        if (r) x->ops = (double)v;
        return TH_OK;
    }
    if (type == T_METADATA || type == T_INVALID) {
        x->kind = TH_CK_SKIP;
        return TH_OK;
    }
    if (type == T_MEM_LOAD || type == T_MEM_STORE) {
        x->kind = TH_CK_MEM;
        x->size = x->tensor > 0 ? x->tensor : 0;
        return TH_OK;
    }
    if (x->cpu)
        return th_error_set(err, TH_EINPUT,
                            "%s: node %llu: attr is_cpu_op: a %s on the CPU (ASTRA-sim 2.x runs "
                            "communication on the GPU only)",
                            src, id, th_ck_type_name((int)type));
    if ((r = get_int(m, "comm_size", 0, INT64_MAX, src, &v, err)) < 0) return err->code;
    if (!r)
        return th_error_set(err, TH_EINPUT, "%s: node %llu: attr comm_size: missing (bytes)", src,
                            id);
    x->size = r ? (double)v : 0;
    if (type == T_SEND || type == T_RECV) {
        x->kind = type == T_SEND ? TH_CK_SEND : TH_CK_RECV;
        const char *peer = type == T_SEND ? "comm_dst" : "comm_src";
        if ((r = get_int(m, peer, 0, INT32_MAX, src, &v, err)) < 0) return err->code;
        x->peer = r ? (int32_t)v : -1;
        if ((r = get_int(m, "comm_tag", 0, INT32_MAX, src, &v, err)) < 0) return err->code;
        x->tag = r ? (int32_t)v : -1;
        return TH_OK;
    }
    if ((r = get_int(m, "comm_type", INT64_MIN, INT64_MAX, src, &v, err)) < 0) return err->code;
    if (!r)
        return th_error_set(err, TH_EINPUT,
                            "%s: node %llu: attr comm_type: missing (ALL_REDUCE = 0, ALL_GATHER = "
                            "2, BROADCAST = 5, ALL_TO_ALL = 6, REDUCE_SCATTER = 7)",
                            src, id);
    int kind, c = coll_of(v, &kind);
    if (c < 0)
        return th_error_set(err, TH_EINPUT,
                            "%s: node %llu: attr comm_type: %lld%s%s%s is not a collective "
                            "ASTRA-sim 2.x runs (ALL_REDUCE = 0, ALL_GATHER = 2, BROADCAST = 5, "
                            "ALL_TO_ALL = 6, REDUCE_SCATTER = 7)",
                            src, id, (long long)v, v >= 0 && v < 10 ? " (" : "",
                            v >= 0 && v < 10 ? comm_names[v] : "", v >= 0 && v < 10 ? ")" : "");
    x->kind = (uint8_t)kind;
    x->coll = (uint8_t)c;
    if (kind == TH_CK_COLL && x->size < 1)
        return th_error_set(err, TH_EINPUT,
                            "%s: node %llu: attr comm_size: expected at least 1 byte, got 0 "
                            "(ASTRA-sim never ends an All-Gather of 0 bytes, and runs the others "
                            "as a collective of a few bytes a chunk, which the astra-sim preset "
                            "refuses as it refuses chunks under 1 byte)",
                            src, id);
    const ChakraProtoMsg__AttributeProto *pg = attr(m, "pg_name");
    if (pg && pg->value_case == CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_STRING_VAL) {
        /* "" and "0": every NPU; else a group of the communicator group file, by its id */
        const char *p = pg->string_val;
        long long g = 0;
        for (; *p >= '0' && *p <= '9' && g <= INT32_MAX; p++)
            g = g * 10 + (*p - '0');
        if (*p || g > INT32_MAX || (g == 0 && pg->string_val[0] && strcmp(pg->string_val, "0")))
            return th_error_set(err, TH_EINPUT,
                                "%s: node %llu: attr pg_name: \"%s\": expected a process group's "
                                "id (a whole number, \"\" or \"0\" for every NPU)",
                                src, id, pg->string_val);
        x->group = (int32_t)g;
    }
    const ChakraProtoMsg__AttributeProto *d = attr(m, "involved_dim");
    x->ndims = -1;
    if (d) {
        if (d->value_case != CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_BOOL_LIST)
            return th_error_set(err, TH_EINPUT,
                                "%s: node %llu: attr involved_dim: expected a bool_list (value "
                                "case %d)",
                                src, id, (int)d->value_case);
        size_t n = d->bool_list ? d->bool_list->n_values : 0;
        x->ndims = (int16_t)(n > 1000 ? 1000 : n);
        for (size_t k = 0; k < n && k < TH_MAX_DIMS; k++)
            if (d->bool_list->values[k]) x->dims |= 1u << k;
    }
    return TH_OK;
}

void th_ck_graph_free(th_ck_graph *g) {
    free(g->nodes);
    free(g->deps);
    free(g->child_off);
    free(g->child);
    th_buf_free(&g->names);
    memset(g, 0, sizeof *g);
}

static int by_id(const void *a, const void *b) {
    uint64_t x = ((const th_ck_node *)a)->id, y = ((const th_ck_node *)b)->id;
    return x < y ? -1 : x > y;
}

/* The node whose id is id, or -1 (a binary search of the sorted nodes). */
static int32_t find(const th_ck_graph *g, uint64_t id) {
    int32_t lo = 0, hi = g->n - 1;
    while (lo <= hi) {
        int32_t mid = lo + (hi - lo) / 2;
        if (g->nodes[mid].id == id) return mid;
        if (g->nodes[mid].id < id)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -1;
}

/* Sorts the nodes by id, turns the dependency ids (in deps, by file position) into indices and
 * builds the children lists; then Kahn's algorithm finds a cycle, if any. */
static int link(th_ck_graph *g, uint64_t *dep_ids, const char *src, th_error *err) {
    int32_t n = g->n;
    if (n > 1) qsort(g->nodes, (size_t)n, sizeof *g->nodes, by_id); /* NULL when empty */
    for (int32_t i = 1; i < n; i++)
        if (g->nodes[i].id == g->nodes[i - 1].id)
            return th_error_set(err, TH_EINPUT, "%s: node %llu: id: also the id of an earlier node",
                                src, (unsigned long long)g->nodes[i].id);
    g->deps = malloc(sizeof *g->deps * (g->ndeps ? g->ndeps : 1));
    g->child_off = calloc((size_t)n + 1, sizeof *g->child_off);
    g->child = malloc(sizeof *g->child * (g->ndeps ? g->ndeps : 1));
    int32_t *left = malloc(sizeof *left * ((size_t)n ? (size_t)n : 1));
    int32_t *queue = malloc(sizeof *queue * ((size_t)n ? (size_t)n : 1));
    int rc = TH_OK;
    if (!g->deps || !g->child_off || !g->child || !left || !queue) {
        rc = th_error_set(err, TH_EINTERNAL, "out of memory");
        goto done;
    }
    for (int32_t i = 0; i < n && rc == TH_OK; i++) {
        th_ck_node *x = &g->nodes[i];
        for (uint32_t k = 0; k < x->ndeps; k++) {
            uint64_t id = dep_ids[x->dep0 + k];
            int32_t j = find(g, id);
            if (j < 0 || j == i) {
                rc = th_error_set(err, TH_EINPUT, "%s: node %llu: %s: %s %llu%s", src,
                                  (unsigned long long)x->id, "data_deps/ctrl_deps",
                                  j < 0 ? "no node has the id" : "itself,", (unsigned long long)id,
                                  j < 0 ? " (ASTRA-sim stops on a dependency it cannot find)"
                                        : " (a node that waits for itself never starts)");
                break;
            }
            g->deps[x->dep0 + k] = j;
            g->child_off[j + 1]++;
        }
    }
    if (rc) goto done;
    for (int32_t i = 0; i < n; i++)
        g->child_off[i + 1] += g->child_off[i];
    int32_t *fill = queue; /* reused as the fill pointer of each child list */
    for (int32_t i = 0; i < n; i++)
        fill[i] = g->child_off[i];
    for (int32_t i = 0; i < n; i++) {
        const th_ck_node *x = &g->nodes[i];
        left[i] = (int32_t)x->ndeps;
        for (uint32_t k = 0; k < x->ndeps; k++)
            g->child[fill[g->deps[x->dep0 + k]]++] = i;
    }
    int32_t head = 0, tail = 0;
    for (int32_t i = 0; i < n; i++)
        if (!left[i]) queue[tail++] = i;
    while (head < tail) {
        int32_t i = queue[head++];
        for (int32_t c = g->child_off[i]; c < g->child_off[i + 1]; c++)
            if (--left[g->child[c]] == 0) queue[tail++] = g->child[c];
    }
    if (tail < n) { /* a node on a cycle: one left whose parents are all left too */
        int32_t at = -1;
        for (int32_t i = 0; i < n && at < 0; i++)
            if (left[i]) at = i;
        rc = th_error_set(err, TH_EINPUT,
                          "%s: node %llu: data_deps/ctrl_deps: on a dependency cycle (%d nodes "
                          "never become ready; ASTRA-sim would wait for them forever)",
                          src, (unsigned long long)g->nodes[at].id, (int)(n - tail));
    }
done:
    free(left);
    free(queue);
    return rc;
}

/* Adds node m's dependencies (data then control, each once) to the id list. */
static int add_deps(const ChakraProtoMsg__Node *m, th_ck_node *x, uint64_t **ids, size_t *cap,
                    size_t *n) {
    x->dep0 = (uint32_t)*n;
    for (int pass = 0; pass < 2; pass++) {
        size_t cnt = pass ? m->n_ctrl_deps : m->n_data_deps;
        const uint64_t *d = pass ? m->ctrl_deps : m->data_deps;
        for (size_t k = 0; k < cnt; k++) {
            int dup = 0;
            for (size_t j = x->dep0; j < *n && !dup; j++)
                dup = (*ids)[j] == d[k];
            if (dup) continue;
            if (*n == *cap && th_grow(ids, cap, *n + 1, sizeof **ids)) return -1;
            (*ids)[(*n)++] = d[k];
        }
    }
    if (*n - x->dep0 > UINT32_MAX) return -1;
    x->ndeps = (uint32_t)(*n - x->dep0);
    return 0;
}

int th_ck_parse(const char *data, size_t len, const char *src, th_ck_graph *g, th_error *err) {
    memset(g, 0, sizeof *g);
    const unsigned char *p = (const unsigned char *)data;
    size_t at = 0, cap = 0, ids_cap = 0, nids = 0;
    uint64_t *ids = NULL, v;
    int rc = TH_OK;
    unsigned long long last = 0; /* the last node read, for messages */
    int have_last = 0;
    for (int k = 0; at < len && rc == TH_OK; k++) {
        size_t h = varint(p + at, len - at, &v);
        if (!h || v > len - at - h) {
            char after[48] = "", need[96];
            if (have_last) snprintf(after, sizeof after, ", after node %llu", last);
            if (h)
                snprintf(need, sizeof need, "the message needs %llu bytes, %zu are left",
                         (unsigned long long)v, len - at - h);
            else
                snprintf(need, sizeof need, "its length is cut off");
            rc = th_error_set(err, TH_EINPUT, "%s: byte %zu%s: %s: truncated (%s)", src, at, after,
                              k ? "node" : "global metadata", need);
            break;
        }
        const uint8_t *msg = p + at + h;
        if (k == 0) {
            ChakraProtoMsg__GlobalMetadata *md =
                chakra_proto_msg__global_metadata__unpack(NULL, (size_t)v, msg);
            if (!md) {
                rc = th_error_set(err, TH_EINPUT,
                                  "%s: byte %zu: global metadata: not a GlobalMetadata message "
                                  "(is this a Chakra execution trace?)",
                                  src, at);
                break;
            }
            snprintf(g->version, sizeof g->version, "%s", md->version ? md->version : "");
            chakra_proto_msg__global_metadata__free_unpacked(md, NULL);
            at += h + (size_t)v;
            continue;
        }
        ChakraProtoMsg__Node *m = chakra_proto_msg__node__unpack(NULL, (size_t)v, msg);
        if (!m) {
            char after[48] = "";
            if (have_last) snprintf(after, sizeof after, ", after node %llu", last);
            rc = th_error_set(err, TH_EINPUT, "%s: byte %zu%s: node: not a valid Node message", src,
                              at, after);
            break;
        }
        if ((size_t)g->n == cap &&
            (g->n == INT32_MAX || th_grow(&g->nodes, &cap, (size_t)g->n + 1, sizeof *g->nodes))) {
            chakra_proto_msg__node__free_unpacked(m, NULL);
            rc = th_error_set(err, TH_EINTERNAL, "out of memory");
            break;
        }
        th_ck_node *x = &g->nodes[g->n];
        memset(x, 0, sizeof *x);
        x->id = m->id;
        x->pos = g->n;
        x->type = (uint8_t)(m->type < 256 ? m->type : 255);
        x->micros = m->duration_micros;
        x->peer = x->tag = -1;
        last = (unsigned long long)m->id, have_last = 1;
        if ((unsigned)m->type > (unsigned)T_COLL)
            rc = th_error_set(err, TH_EINPUT,
                              "%s: node %llu: type: unknown node type %d (0 to 7: INVALID_NODE .. "
                              "COMM_COLL_NODE)",
                              src, last, (int)m->type);
        if (rc == TH_OK) rc = node_attrs(m, x, src, err);
        size_t off = g->names.len;
        if (rc == TH_OK &&
            (off > UINT32_MAX ||
             th_buf_add(&g->names, m->name ? m->name : "", strlen(m->name ? m->name : "") + 1) ||
             add_deps(m, x, &ids, &ids_cap, &nids)))
            rc = th_error_set(err, TH_EINTERNAL, "out of memory");
        x->name = (uint32_t)off;
        chakra_proto_msg__node__free_unpacked(m, NULL);
        if (rc == TH_OK) g->n++;
        at += h + (size_t)v;
    }
    if (rc == TH_OK && len == 0)
        rc = th_error_set(err, TH_EINPUT, "%s: empty (no global metadata)", src);
    g->ndeps = nids;
    if (rc == TH_OK) rc = link(g, ids, src, err);
    free(ids);
    if (rc != TH_OK) th_ck_graph_free(g);
    return rc;
}

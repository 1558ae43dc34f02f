/* The Chakra writer: one NPU's file of a graph, packed by protobuf-c from the format's schema
 * (et_def.proto) and framed as Chakra's own tools frame it, each message after its byte count
 * as a base-128 varint: the GlobalMetadata first, then every node in id order. */
#include <stdlib.h>
#include <string.h>

#include "chakra/et_def.pb-c.h"
#include "chakra_export.h"
#include "themis/buf.h"
#include "themis/version.h"

/* ASTRA-sim 2.x's example traces say this version; its feeder reads the nodes whatever it is. */
#define CHAKRA_VERSION "0.0.4"

typedef struct writer {
    FILE *f;
    const char *path;
    uint8_t *buf; /* one packed message */
    size_t cap;
} writer;

static int put(writer *w, const ProtobufCMessage *m, th_error *err) {
    size_t n = protobuf_c_message_get_packed_size(m);
    if (th_grow(&w->buf, &w->cap, n + 10, 1))
        return th_error_set(err, TH_EINTERNAL, "out of memory");
    size_t k = 0;
    for (size_t v = n; k == 0 || v; v >>= 7) /* the varint: 7 bits a byte, low first */
        w->buf[k++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
    if (protobuf_c_message_pack(m, w->buf + k) != n)
        return th_error_set(err, TH_EINTERNAL, "%s: protobuf-c packed a message of another size",
                            w->path);
    if (fwrite(w->buf, 1, k + n, w->f) != k + n)
        return th_error_set(err, TH_EIO, "%s: write error", w->path);
    return TH_OK;
}

static void attr_string(ChakraProtoMsg__AttributeProto *a, const char *name, const char *v) {
    chakra_proto_msg__attribute_proto__init(a);
    a->name = (char *)name;
    a->value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_STRING_VAL;
    a->string_val = (char *)v;
}

static void attr_int(ChakraProtoMsg__AttributeProto *a, const char *name, int64_t v) {
    chakra_proto_msg__attribute_proto__init(a);
    a->name = (char *)name;
    a->value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT64_VAL;
    a->int64_val = v;
}

static void attr_bool(ChakraProtoMsg__AttributeProto *a, const char *name, int v) {
    chakra_proto_msg__attribute_proto__init(a);
    a->name = (char *)name;
    a->value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_BOOL_VAL;
    a->bool_val = v;
}

static int metadata(writer *w, const th_chakra_graph *g, const char *system, th_error *err) {
    ChakraProtoMsg__AttributeProto a[5], *pa[5];
    attr_string(&a[0], "generator", "themis " TH_VERSION " export-chakra");
    attr_string(&a[1], "workload", g->name);
    attr_string(&a[2], "system", system);
    attr_int(&a[3], "npus", g->npus);
    attr_int(&a[4], "iterations", g->iterations);
    for (int i = 0; i < 5; i++)
        pa[i] = &a[i];
    ChakraProtoMsg__GlobalMetadata m = CHAKRA_PROTO_MSG__GLOBAL_METADATA__INIT;
    m.version = CHAKRA_VERSION;
    m.n_attr = 5, m.attr = pa;
    return put(w, &m.base, err);
}

int th_chakra_write(FILE *f, const char *path, const th_chakra_graph *all, const char *system,
                    int64_t rank, th_error *err) {
    writer w = {f, path, NULL, 0};
    const th_chakra_graph *g = th_chakra_graph_of(all, rank);
    uint64_t base = (uint64_t)rank * (all->id_stride ? all->id_stride : g->n), *ids = NULL;
    protobuf_c_boolean *dims = malloc(sizeof *dims * (size_t)(g->ndims ? g->ndims : 1));
    size_t most = 0; /* the longest dependency list */
    for (size_t k = 0; k < g->n; k++)
        if (g->nodes[k].ndata + g->nodes[k].nctrl > most)
            most = g->nodes[k].ndata + g->nodes[k].nctrl;
    ids = malloc(sizeof *ids * (most ? most : 1));
    int rc = dims && ids ? metadata(&w, g, system, err)
                         : th_error_set(err, TH_EINTERNAL, "out of memory");
    for (size_t k = 0; rc == TH_OK && k < g->n; k++) {
        const th_chakra_node *x = &g->nodes[k];
        char name[256];
        ChakraProtoMsg__Node n = CHAKRA_PROTO_MSG__NODE__INIT;
        n.id = base + k;
        n.name = (char *)th_chakra_node_name(g, k, name, sizeof name);
        n.type = (ChakraProtoMsg__NodeType)x->type;
        for (size_t i = 0; i < x->ndata + x->nctrl; i++)
            ids[i] = base + g->deps[x->dep + i];
        n.n_data_deps = x->ndata, n.data_deps = ids;
        n.n_ctrl_deps = x->nctrl, n.ctrl_deps = ids + x->ndata;
        ChakraProtoMsg__AttributeProto a[5], *pa[5];
        ChakraProtoMsg__BoolList involved = CHAKRA_PROTO_MSG__BOOL_LIST__INIT;
        attr_bool(&a[0], "is_cpu_op", 0);
        n.n_attr = 1;
        if (x->type == TH_CHAKRA_COMP_NODE) {
            n.duration_micros = x->micros;
        } else if (x->type == TH_CHAKRA_COMM_SEND_NODE || x->type == TH_CHAKRA_COMM_RECV_NODE) {
            /* the peer: the NPU of its stage with this one's other coordinates */
            int64_t peer = rank - all->stage_off[all->stage_of[rank]] + all->stage_off[x->peer];
            int send = x->type == TH_CHAKRA_COMM_SEND_NODE;
            attr_int(&a[1], "comm_src", send ? rank : peer);
            attr_int(&a[2], "comm_dst", send ? peer : rank);
            attr_int(&a[3], "comm_size", (int64_t)x->comm_size);
            attr_int(&a[4], "comm_tag", x->tag);
            n.n_attr = 5;
        } else {
            attr_int(&a[1], "comm_type", x->comm_type);
            attr_int(&a[2], "comm_size", (int64_t)x->comm_size);
            /* one entry per dim of the system: ASTRA-sim indexes it by dim (and takes four dims
             * when it is absent) */
            for (int d = 0; d < g->ndims; d++)
                dims[d] = (x->mask >> d) & 1u;
            involved.n_values = (size_t)g->ndims, involved.values = dims;
            chakra_proto_msg__attribute_proto__init(&a[3]);
            a[3].name = "involved_dim";
            a[3].value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_BOOL_LIST;
            a[3].bool_list = &involved;
            n.n_attr = 4;
        }
        for (size_t i = 0; i < n.n_attr; i++)
            pa[i] = &a[i];
        n.attr = pa;
        rc = put(&w, &n.base, err);
    }
    if (rc == TH_OK && fflush(f)) rc = th_error_set(err, TH_EIO, "%s: write error", path);
    free(w.buf);
    free(ids);
    free(dims);
    return rc;
}

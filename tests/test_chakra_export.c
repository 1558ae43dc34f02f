/* The Chakra writer (src/chakra/chakra_graph.c, chakra_write.c): the bytes of a tiny trace
 * encoded by hand from the protobuf wire format (a field's key is (number << 3) | wire type;
 * varints 7 bits a byte, low first; proto3 leaves fields at 0 out and packs repeated scalars)
 * and from et_def.proto's field numbers, the graph's dependencies against the order of themis
 * train (docs/WORKLOADS.md), and every error. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chakra/chakra.h"
#include "chakra/chakra_export.h"
#include "chakra/et_def.pb-c.h"
#include "check_themis.h"
#include "themis/llm.h"

static th_workload *parse_wl(const char *json) {
    char *text = test_dq(json);
    th_workload *wl = NULL;
    th_error err = {0};
    ck_assert_msg(th_workload_parse(text, strlen(text), "wl", &wl, &err) == 0, "%s", err.msg);
    free(text);
    return wl;
}

/* One ring dim per entry of p (100 GB/s, 10 ns). */
static th_system ring_system(int n, const int64_t *p) {
    th_system s;
    memset(&s, 0, sizeof s);
    for (int i = 0; i < n; i++)
        test_add_dim(&s, TH_TOPO_RING, p[i], 100, 10);
    test_finish(&s);
    return s;
}

static void build(const th_workload *wl, const th_system *s, int iterations, double bucket,
                  th_chakra_graph *g) {
    th_chakra_opts o = {iterations, 0, bucket};
    th_error err = {0};
    ck_assert_msg(th_chakra_build(wl, s, &o, g, &err) == 0, "%s", err.msg);
}

/* Rank `rank`'s file of g in memory. */
static unsigned char *write_rank(const th_chakra_graph *g, int64_t rank, size_t *len) {
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    ck_assert_ptr_nonnull(f);
    th_error err = {0};
    ck_assert_msg(th_chakra_write(f, "mem", g, "test", rank, &err) == 0, "%s", err.msg);
    fclose(f);
    return (unsigned char *)buf;
}

/* The varint at *pos (advanced past it). */
static uint64_t varint(const unsigned char *b, size_t *pos) {
    uint64_t v = 0;
    for (int shift = 0;; shift += 7) {
        unsigned char c = b[(*pos)++];
        v |= (uint64_t)(c & 0x7f) << shift;
        if (!(c & 0x80)) return v;
    }
}

static const char *const one_layer =
    "{'name': 'tiny', 'parallelism': 'data', 'layers': [{'name': 'a',"
    " 'forward': {'ns': 2000}, 'input_grad': {'ns': 0},"
    " 'weight_grad': {'ns': 3000, 'collective': {'type': 'allreduce', 'size': 1024}}}]}";

/* One layer a: forward 2 us, input gradient 0 (no node), weight gradient 3 us and a
 * non-blocking All-Reduce of 1024 bytes over the one dim of 2 NPUs. Rank 1's ids are
 * 1 * 3 + (0, 1, 2) = 3, 4, 5. Its nodes, by hand:
 *
 * node 3 "a.forward": 08 03 (id), 12 09 "a.forward" (name), 18 04 (type COMP_NODE), 38 02
 *   (duration_micros, field 7), 52 0e attr{0a 09 "is_cpu_op", d8 01 00 (bool_val, field 27 =
 *   (27 << 3) | 0 = 216 = d8 01, false)}: 2 + 11 + 2 + 2 + 16 = 33 bytes, prefix 21.
 * node 4 "a.weight_grad": 08 04, 12 0d "a.weight_grad", 18 04, 2a 01 03 (data_deps, field 5,
 *   packed: length 1, id 3), 38 03, 52 0e is_cpu_op: 2 + 15 + 2 + 3 + 2 + 16 = 40, prefix 28.
 * node 5 "a.weight_grad.allreduce": 08 05, 12 17 name (23), 18 07 (COMM_COLL_NODE), 2a 01 04,
 *   52 0e is_cpu_op, 52 0d {0a 09 "comm_type", 48 00 (int64_val, field 9)},
 *   52 0e {0a 09 "comm_size", 48 80 08 (1024)}, 52 14 {0a 0c "involved_dim", e2 01 03
 *   (bool_list, field 28) {0a 01 01 (values, packed: true)}}:
 *   2 + 25 + 2 + 3 + 16 + 15 + 16 + 22 = 101 bytes, prefix 65. */
START_TEST(bytes_by_hand) {
    static const unsigned char want[] = {
        0x21, 0x08, 0x03, 0x12, 0x09, 'a', '.', 'f', 'o', 'r', 'w', 'a', 'r', 'd', 0x18, 0x04, 0x38,
        0x02, 0x52, 0x0e, 0x0a, 0x09, 'i', 's', '_', 'c', 'p', 'u', '_', 'o', 'p', 0xd8, 0x01, 0x00,
        /* node 4 */
        0x28, 0x08, 0x04, 0x12, 0x0d, 'a', '.', 'w', 'e', 'i', 'g', 'h', 't', '_', 'g', 'r', 'a',
        'd', 0x18, 0x04, 0x2a, 0x01, 0x03, 0x38, 0x03, 0x52, 0x0e, 0x0a, 0x09, 'i', 's', '_', 'c',
        'p', 'u', '_', 'o', 'p', 0xd8, 0x01, 0x00,
        /* node 5 */
        0x65, 0x08, 0x05, 0x12, 0x17, 'a', '.', 'w', 'e', 'i', 'g', 'h', 't', '_', 'g', 'r', 'a',
        'd', '.', 'a', 'l', 'l', 'r', 'e', 'd', 'u', 'c', 'e', 0x18, 0x07, 0x2a, 0x01, 0x04, 0x52,
        0x0e, 0x0a, 0x09, 'i', 's', '_', 'c', 'p', 'u', '_', 'o', 'p', 0xd8, 0x01, 0x00, 0x52, 0x0d,
        0x0a, 0x09, 'c', 'o', 'm', 'm', '_', 't', 'y', 'p', 'e', 0x48, 0x00, 0x52, 0x0e, 0x0a, 0x09,
        'c', 'o', 'm', 'm', '_', 's', 'i', 'z', 'e', 0x48, 0x80, 0x08, 0x52, 0x14, 0x0a, 0x0c, 'i',
        'n', 'v', 'o', 'l', 'v', 'e', 'd', '_', 'd', 'i', 'm', 0xe2, 0x01, 0x03, 0x0a, 0x01, 0x01};
    th_workload *wl = parse_wl(one_layer);
    int64_t p[] = {2};
    th_system s = ring_system(1, p);
    th_chakra_graph g;
    build(wl, &s, 1, 0, &g);
    ck_assert_uint_eq(g.n, 3);
    ck_assert_int_eq(g.npus, 2);
    size_t len;
    unsigned char *b = write_rank(&g, 1, &len);
    /* the metadata first: its length, then the message, read back by protobuf-c */
    size_t pos = 0;
    uint64_t mlen = varint(b, &pos);
    ChakraProtoMsg__GlobalMetadata *m =
        chakra_proto_msg__global_metadata__unpack(NULL, (size_t)mlen, b + pos);
    ck_assert_ptr_nonnull(m);
    ck_assert_str_eq(m->version, "0.0.4");
    ck_assert_uint_eq(m->n_attr, 5);
    ck_assert_str_eq(m->attr[0]->name, "generator");
    ck_assert_str_eq(m->attr[0]->string_val, "themis " TH_VERSION " export-chakra");
    ck_assert_str_eq(m->attr[1]->string_val, "tiny");
    ck_assert_str_eq(m->attr[2]->string_val, "test");
    ck_assert_str_eq(m->attr[3]->name, "npus");
    ck_assert_int_eq(m->attr[3]->value_case, CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT64_VAL);
    ck_assert_int_eq(m->attr[3]->int64_val, 2);
    ck_assert_int_eq(m->attr[4]->int64_val, 1);
    chakra_proto_msg__global_metadata__free_unpacked(m, NULL);
    pos += (size_t)mlen;
    ck_assert_uint_eq(len - pos, sizeof want);
    for (size_t i = 0; i < sizeof want; i++)
        ck_assert_msg(b[pos + i] == want[i], "byte %zu of the nodes: %02x, expected %02x", i,
                      b[pos + i], want[i]);
    /* and protobuf-c's unpacker agrees, field by field */
    uint64_t nlen = varint(b, &pos);
    pos += (size_t)nlen;
    nlen = varint(b, &pos);
    pos += (size_t)nlen;
    nlen = varint(b, &pos);
    ChakraProtoMsg__Node *n = chakra_proto_msg__node__unpack(NULL, (size_t)nlen, b + pos);
    ck_assert_ptr_nonnull(n);
    ck_assert_uint_eq(n->id, 5);
    ck_assert_int_eq(n->type, CHAKRA_PROTO_MSG__NODE_TYPE__COMM_COLL_NODE);
    ck_assert_uint_eq(n->n_data_deps, 1);
    ck_assert_uint_eq(n->data_deps[0], 4);
    ck_assert_uint_eq(n->n_attr, 4);
    ck_assert_str_eq(n->attr[2]->name, "comm_size");
    ck_assert_int_eq(n->attr[2]->int64_val, 1024);
    ck_assert_uint_eq(n->attr[3]->bool_list->n_values, 1);
    ck_assert(n->attr[3]->bool_list->values[0]);
    chakra_proto_msg__node__free_unpacked(n, NULL);
    free(b);
    th_chakra_graph_free(&g);
    th_workload_free(wl);
}
END_TEST

/* The dependencies of node k: data then ctrl, as node indices. */
static void deps(const th_chakra_graph *g, size_t k, size_t nd, const uint64_t *d, size_t nc,
                 const uint64_t *c) {
    const th_chakra_node *x = &g->nodes[k];
    ck_assert_msg(x->ndata == nd && x->nctrl == nc, "node %zu: %zu data, %zu ctrl deps", k,
                  x->ndata, x->nctrl);
    for (size_t i = 0; i < nd; i++)
        ck_assert_msg(g->deps[x->dep + i] == d[i], "node %zu data dep %zu: %llu", k, i,
                      (unsigned long long)g->deps[x->dep + i]);
    for (size_t i = 0; i < nc; i++)
        ck_assert_msg(g->deps[x->dep + nd + i] == c[i], "node %zu ctrl dep %zu: %llu", k, i,
                      (unsigned long long)g->deps[x->dep + nd + i]);
}

/* Two layers, hybrid over dims (2, 2): a blocking model-parallel All-Reduce after each forward,
 * a non-blocking data-parallel one after each weight gradient, two iterations. The stream is
 * fwd a, fwd b, ig b, wg b, ig a, wg a (train's order), so the nodes of one iteration are
 *   0 a.fwd  1 a.fwd.AR(mp)  2 b.fwd  3 b.fwd.AR(mp)  4 b.ig  5 b.wg  6 b.wg.AR(dp)  7 a.ig
 *   8 a.wg  9 a.wg.AR(dp)
 * and the next iteration's are 10 .. 19. Each forward waits for the blocking All-Reduce before
 * it (2 on 1, 4 on 3); ig b reads the output of fwd b's All-Reduce (data 3); wg b follows ig b
 * in the stream only (ctrl 4) and reads the gradient of the loss, fwd b's output (data 3);
 * ig a follows wg b (ctrl 5) and reads ig b's output (data 4); wg a follows ig a (ctrl 7) and
 * reads ig b's (data 4). Iteration 1's a.fwd (10) follows a.wg (8) and waits for a's gradient
 * All-Reduce of iteration 0 (9); b.fwd (12) for 11 and b's (6). */
START_TEST(graph_order) {
    th_workload *wl = parse_wl(
        "{'name': 'h', 'parallelism': 'hybrid', 'mp_dims': 1, 'layers': ["
        "{'name': 'a', 'forward': {'ns': 1000, 'collective': {'type': 'allreduce', 'size': 64,"
        " 'dims': 'mp'}}, 'input_grad': {'ns': 2000}, 'weight_grad': {'ns': 3000,"
        " 'collective': {'type': 'allreduce', 'size': 128}}},"
        "{'name': 'b', 'forward': {'ns': 4000, 'collective': {'type': 'allreduce', 'size': 256,"
        " 'dims': 'mp'}}, 'input_grad': {'ns': 5000}, 'weight_grad': {'ns': 6000,"
        " 'collective': {'type': 'allreduce', 'size': 512}}}]}");
    int64_t p[] = {2, 2};
    th_system s = ring_system(2, p);
    th_chakra_graph g;
    build(wl, &s, 2, 0, &g);
    ck_assert_uint_eq(g.n, 20);
    static const int types[] = {4, 7, 4, 7, 4, 4, 7, 4, 4, 7};
    static const uint64_t micros[] = {1, 0, 4, 0, 5, 6, 0, 2, 3, 0};
    for (int k = 0; k < 10; k++) {
        ck_assert_int_eq(g.nodes[k].type, types[k]);
        ck_assert_uint_eq(g.nodes[k].micros, micros[k]);
        ck_assert_int_eq(g.nodes[k + 10].type, types[k]);
        ck_assert_int_eq(g.nodes[k + 10].it, 1);
    }
    ck_assert_uint_eq(g.nodes[1].mask, 1u); /* mp: dim 0 */
    ck_assert_uint_eq(g.nodes[6].mask, 2u); /* dp: dim 1 */
    ck_assert_uint_eq(g.nodes[6].comm_size, 512);
    deps(&g, 0, 0, NULL, 0, NULL);
    deps(&g, 1, 1, (uint64_t[]){0}, 0, NULL);
    deps(&g, 2, 1, (uint64_t[]){1}, 0, NULL);
    deps(&g, 3, 1, (uint64_t[]){2}, 0, NULL);
    deps(&g, 4, 1, (uint64_t[]){3}, 0, NULL);
    deps(&g, 5, 1, (uint64_t[]){3}, 1, (uint64_t[]){4});
    deps(&g, 6, 1, (uint64_t[]){5}, 0, NULL);
    deps(&g, 7, 1, (uint64_t[]){4}, 1, (uint64_t[]){5});
    deps(&g, 8, 1, (uint64_t[]){4}, 1, (uint64_t[]){7});
    deps(&g, 9, 1, (uint64_t[]){8}, 0, NULL);
    deps(&g, 10, 2, (uint64_t[]){8, 9}, 0, NULL);
    deps(&g, 12, 2, (uint64_t[]){11, 6}, 0, NULL);
    char name[128];
    ck_assert_str_eq(th_chakra_node_name(&g, 13, name, sizeof name), "i1.b.forward.allreduce");
    th_chakra_graph_free(&g);
    th_workload_free(wl);
}
END_TEST

/* DDP buckets: three layers with weight gradients of 600 KiB each and buckets of 1 MiB: the
 * first bucket (limit 1 MiB) takes c's and b's (1200 KiB >= 1 MiB, closed at b), a's opens the
 * next, closed with the backward pass. The stream: 0 a.fwd 1 b.fwd 2 c.fwd 3 c.ig 4 c.wg 5 b.ig
 * 6 b.wg 7 (c..b bucket: data on b.wg 6 and c.wg 4) 8 a.ig 9 a.wg 10 a's bucket alone. */
START_TEST(graph_buckets) {
    th_workload *wl =
        parse_wl("{'name': 'k', 'parallelism': 'data', 'layers': ["
                 "{'name': 'a', 'forward': {'ns': 1000}, 'input_grad': {'ns': 1000}, 'weight_grad':"
                 " {'ns': 1000, 'collective': {'type': 'allreduce', 'size': '600KiB'}}},"
                 "{'name': 'b', 'forward': {'ns': 1000}, 'input_grad': {'ns': 1000}, 'weight_grad':"
                 " {'ns': 1000, 'collective': {'type': 'allreduce', 'size': '600KiB'}}},"
                 "{'name': 'c', 'forward': {'ns': 1000}, 'input_grad': {'ns': 1000}, 'weight_grad':"
                 " {'ns': 1000, 'collective': {'type': 'allreduce', 'size': '600KiB'}}}]}");
    int64_t p[] = {4};
    th_system s = ring_system(1, p);
    th_chakra_graph g;
    build(wl, &s, 2, 26214400, &g);
    ck_assert_uint_eq(g.n, 22);
    ck_assert_int_eq(g.nodes[7].type, TH_CHAKRA_COMM_COLL_NODE);
    ck_assert_uint_eq(g.nodes[7].comm_size, 1228800); /* 2 * 614400 */
    ck_assert_int_eq(g.nodes[7].fused, 2);
    deps(&g, 7, 2, (uint64_t[]){6, 4}, 0, NULL);
    ck_assert_uint_eq(g.nodes[10].comm_size, 614400);
    char name[128];
    ck_assert_str_eq(th_chakra_node_name(&g, 7, name, sizeof name),
                     "i0.c..b.weight_grad.allreduce");
    /* iteration 1: a.fwd (11) waits for a.wg (9) and a's bucket (10); b.fwd (12) for a.fwd
     * and the c..b bucket (7); c.fwd (13) for b.fwd and the same bucket */
    deps(&g, 11, 2, (uint64_t[]){9, 10}, 0, NULL);
    deps(&g, 12, 2, (uint64_t[]){11, 7}, 0, NULL);
    deps(&g, 13, 2, (uint64_t[]){12, 7}, 0, NULL);
    th_chakra_graph_free(&g);
    th_workload_free(wl);
}
END_TEST

/* Whole microseconds: 1499.9 ns -> 1 us, 1500 ns -> 2 us (halves up), 400 ns -> no node (its
 * dependencies pass through), 0 ns -> no node. An All-Gather of an 8000-byte output over dims
 * of 2 and 4 NPUs is 1000 bytes per NPU in ASTRA-sim's convention; one of 6 bytes over 4 NPUs
 * is 1.5 -> 2 bytes (rounded, counted). */
START_TEST(graph_rounding) {
    th_workload *wl = parse_wl(
        "{'name': 'r', 'parallelism': 'data', 'layers': ["
        "{'name': 'a', 'forward': {'ns': 1499.9}, 'input_grad': {'ns': 1500}, 'weight_grad':"
        " {'ns': 400, 'collective': {'type': 'allgather', 'size': 8000}}},"
        "{'name': 'b', 'forward': {'ns': 0, 'collective': {'type': 'allgather', 'size': 6,"
        " 'dims': [1], 'blocking': false}}, 'input_grad': {'ns': 2000}, 'weight_grad':"
        " {'ns': 0}}]}");
    int64_t p[] = {2, 4};
    th_system s = ring_system(2, p);
    th_chakra_graph g;
    build(wl, &s, 1, 0, &g);
    /* 0 a.fwd (1 us), 1 b.fwd's All-Gather (after a.fwd), 2 b.ig (2 us; its forward had no
     * node: it waits for a.fwd), 3 a.ig (2 us, data on b.ig), 4 a.wg's All-Gather: its weight
     * gradient has no node, so it waits for what that waited for, a.ig (the stream) and b.ig
     * (the gradient it reads) */
    ck_assert_uint_eq(g.n, 5);
    ck_assert_uint_eq(g.nodes[0].micros, 1);
    ck_assert_uint_eq(g.nodes[1].comm_size, 2);
    ck_assert_uint_eq(g.nodes[1].mask, 2u);
    deps(&g, 1, 1, (uint64_t[]){0}, 0, NULL);
    ck_assert_uint_eq(g.nodes[2].micros, 2);
    deps(&g, 2, 1, (uint64_t[]){0}, 0, NULL);
    ck_assert_uint_eq(g.nodes[3].micros, 2);
    ck_assert_uint_eq(g.nodes[4].comm_type, TH_CHAKRA_ALL_GATHER);
    ck_assert_uint_eq(g.nodes[4].comm_size, 1000);
    deps(&g, 4, 2, (uint64_t[]){3, 2}, 0, NULL);
    ck_assert_int_eq(g.rounded, 3); /* 0.1, 500 and 400 ns off */
    ck_assert_int_eq(g.dropped, 1);
    ck_assert_rel(g.worst_ns, 500);
    ck_assert_int_eq(g.sizes_rounded, 1);
    ck_assert_rel(g.compute_ns, 1499.9 + 1500 + 400 + 2000);
    ck_assert_uint_eq(g.compute_us, 1 + 2 + 0 + 2);
    th_chakra_graph_free(&g);
    th_workload_free(wl);
}
END_TEST

static void build_fails(const th_workload *wl, const th_system *s, int iterations, double batch,
                        const char *needle) {
    th_chakra_opts o = {iterations, batch, 0};
    th_chakra_graph g;
    th_error err = {0};
    ck_assert_int_eq(th_chakra_build(wl, s, &o, &g, &err), TH_EINPUT);
    ck_assert_msg(strstr(err.msg, needle), "message: %s (expected %s)", err.msg, needle);
    th_chakra_graph_free(&g);
}

/* What a trace cannot hold, or ASTRA-sim cannot finish, is refused naming the collective. */
START_TEST(graph_errors) {
    int64_t p[] = {1, 4};
    th_system s = ring_system(2, p);
    th_workload *wl = parse_wl(
        "{'name': 'e', 'parallelism': 'data', 'layers': [{'name': 'a', 'forward': {'ns': 1e21},"
        " 'input_grad': {'ns': 0}, 'weight_grad': {'ns': 0, 'collective': {'type': 'allgather',"
        " 'size': 2, 'dims': [1]}}}]}");
    /* a collective only on a dim of one NPU */
    th_workload *one = parse_wl(
        "{'name': 'o', 'parallelism': 'data', 'layers': [{'name': 'a', 'forward': {'ns': 1},"
        " 'input_grad': {'ns': 0}, 'weight_grad': {'ns': 0, 'collective': {'type': 'allreduce',"
        " 'size': 64, 'dims': [0]}}}]}");
    build_fails(one, &s, 1, 0, "layers[0].weight_grad.collective: dims: no dim");
    /* 1e21 ns at batch 1e9 is 1e30 ns, past 2^64 us */
    build_fails(wl, &s, 1, 1e9, "layers[0].forward: 1e+30 ns");
    build_fails(wl, &s, 0, 0, "iterations: expected 1 to 1000");
    build_fails(wl, &s, 1001, 0, "iterations: expected 1 to 1000");
    th_workload_free(wl);
    wl = parse_wl("{'name': 'z', 'parallelism': 'data', 'layers': [{'name': 'a', 'forward':"
                  " {'ns': 1}, 'input_grad': {'ns': 0}, 'weight_grad': {'ns': 0, 'collective':"
                  " {'type': 'allgather', 'size': 1, 'dims': [1]}}}]}");
    build_fails(wl, &s, 1, 0, "0.25 bytes per NPU");
    th_workload_free(wl);
    /* nothing to write: ASTRA-sim stops on a trace without nodes */
    wl = parse_wl("{'name': 'n', 'parallelism': 'data', 'layers': [{'name': 'a', 'forward':"
                  " {'ns': 499}, 'input_grad': {'ns': 0}, 'weight_grad': {'ns': 0}}]}");
    build_fails(wl, &s, 2, 0, "n: no node to write");
    th_workload_free(wl);
    th_workload_free(one);
}
END_TEST

/* A small deterministic generator for the random round trips. */
static uint64_t rng_next(uint64_t *x) {
    *x = *x * 6364136223846793005ull + 1442695040888963407ull;
    return *x >> 33;
}

static int rng(uint64_t *x, int n) {
    return (int)(rng_next(x) % (uint64_t)n);
}

/* The last event end of a training replay (its trace callback). */
static void last_end(void *ctx, const th_train_event *ev) {
    double *end = ctx;
    if (ev->end > *end) *end = ev->end;
}

/* A random workload of whole-microsecond phases on a random system of two or three dims. */
static th_workload *random_workload(uint64_t *x, th_system *s, int *iterations, double *bucket) {
    static const th_topology topo[] = {TH_TOPO_RING, TH_TOPO_FC, TH_TOPO_SWITCH};
    static const int64_t npus[] = {2, 3, 4};
    memset(s, 0, sizeof *s);
    int ndims = 2 + rng(x, 2);
    for (int d = 0; d < ndims; d++)
        test_add_dim(s, topo[rng(x, 3)], npus[rng(x, 3)], 25.0 * (1 + rng(x, 8)),
                     (double)(10 * (1 + rng(x, 50))));
    test_finish(s);
    th_workload *wl = calloc(1, sizeof *wl);
    ck_assert_ptr_nonnull(wl);
    snprintf(wl->name, sizeof wl->name, "random");
    wl->hybrid = rng(x, 2);
    wl->mp_dims = 1;
    wl->batch = 1;
    wl->chunks = 1 + rng(x, 4);
    wl->chunking = TH_CHUNKING_FIXED;
    wl->nlayers = 1 + rng(x, 5);
    wl->layers = calloc((size_t)wl->nlayers, sizeof *wl->layers);
    ck_assert_ptr_nonnull(wl->layers);
    static const th_coll_type types[] = {TH_COLL_ALLREDUCE, TH_COLL_REDUCESCATTER, TH_COLL_ALLTOALL,
                                         TH_COLL_ALLGATHER};
    for (int l = 0; l < wl->nlayers; l++) {
        th_wl_layer *y = &wl->layers[l];
        snprintf(y->name, sizeof y->name, "l%d", l);
        for (int p = 0; p < TH_NPHASES; p++) {
            y->ph[p].ns = 1000.0 * rng(x, 6); /* 0 .. 5 us */
            th_wl_coll *c = &y->ph[p].coll;
            c->present = rng(x, 3) > 0;
            if (!c->present) continue;
            int wg = p == TH_PHASE_WG;
            c->type = wg && rng(x, 2) ? TH_COLL_ALLREDUCE : types[rng(x, 4)];
            c->size = 4096.0 * (1 + rng(x, 400));
            /* an All-Gather is written as size / its NPUs (at most 4 x 4 x 4 or 3 x 3 x 3):
             * a multiple of both leaves no byte to round */
            if (c->type == TH_COLL_ALLGATHER) c->size = 64.0 * 27 * (1 + rng(x, 30));
            c->sel = wg ? TH_SEL_DP : wl->hybrid ? TH_SEL_MP : TH_SEL_ALL;
            c->blocking = wg ? rng(x, 4) == 0 : rng(x, 4) > 0;
        }
    }
    *iterations = 2 + rng(x, 2);
    *bucket = rng(x, 2) ? 0 : 4096.0 * (100 + rng(x, 400));
    return wl;
}

/* Whatever the workload, its trace replays under our model as the workload does: the whole
 * graph of N iterations ends when the last event of train's N iterations ends, for the policy
 * pairs and priorities (random workloads: layers, phases of 0 to 5 us, collectives of
 * each type and blocking or not, data-parallel or hybrid, DDP buckets or none, on random
 * systems). */
START_TEST(round_trip_random) {
    static const th_policy pol[] = {TH_POLICY_BASELINE, TH_POLICY_THEMIS, TH_POLICY_ROUNDROBIN,
                                    TH_POLICY_THEMIS_GLOBAL};
    static const th_priority prio[] = {TH_PRIO_LIFO, TH_PRIO_FIFO};
    uint64_t x = 12345;
    int compared = 0;
    for (int trial = 0; trial < 300; trial++) {
        th_system s;
        int n;
        double bucket;
        th_workload *wl = random_workload(&x, &s, &n, &bucket);
        th_chakra_opts co = {n, 0, bucket};
        th_chakra_graph g;
        th_error err = {0};
        if (th_chakra_build(wl, &s, &co, &g, &err)) { /* a collective on dims of one NPU */
            ck_assert_msg(strstr(err.msg, "no dim of system"), "%s", err.msg);
            th_chakra_graph_free(&g);
            th_workload_free(wl);
            continue;
        }
        size_t len;
        unsigned char *b = write_rank(&g, 0, &len);
        th_ck_trace tr;
        memset(&tr, 0, sizeof tr);
        tr.ranks = 1;
        ck_assert_msg(th_ck_parse((const char *)b, len, "random", &tr.g, &err) == 0, "%s", err.msg);
        th_train_opts to = {0};
        to.policy = pol[rng(&x, 4)];
        to.intra = rng(&x, 2) ? TH_INTRA_SCF : TH_INTRA_FIFO;
        to.priority = prio[rng(&x, 2)];
        to.model = TH_LOAD_ALPHA_BETA;
        to.iterations = n;
        to.chunks = wl->chunks;
        to.bucket = bucket > 0 ? bucket : -1;
        th_train_result res;
        double want = 0;
        ck_assert_msg(th_train_run(&s, wl, &to, last_end, &want, &res, &err) == 0, "%s", err.msg);
        th_train_result_free(&res);
        th_ck_opts o = {.policy = to.policy,
                        .intra = to.intra,
                        .model = to.model,
                        .priority = to.priority,
                        .chunks = wl->chunks};
        th_ck_result got;
        ck_assert_msg(th_ck_replay(&s, &tr, &o, NULL, NULL, &got, &err) == 0, "%s", err.msg);
        ck_assert_msg(got.finish == want,
                      "trial %d (%d layers, %d iterations, %s, %s): trace %.17g ns, workload "
                      "%.17g ns",
                      trial, wl->nlayers, n, th_policy_name(to.policy),
                      wl->hybrid ? "hybrid" : "data", got.finish, want);
        compared++;
        th_ck_graph_free(&tr.g);
        free(b);
        th_chakra_graph_free(&g);
        th_workload_free(wl);
    }
    ck_assert_int_ge(compared, 200);
}
END_TEST

/* An All-Gather's round trip: the workload's size is the gathered output (SPEC §4), the
 * trace's comm_size each NPU's input, and the reader under our model multiplies it back. On a
 * ring of 4 (100 GB/s, 10 ns), one chunk, a forward of 2 us then a blocking All-Gather of
 * 4096 bytes: written as comm_size 4096 / 4 = 1024; replayed as a ring AG of output 4096,
 * (p - 1) alpha + S (p - 1) / (p B) = 3 x 10 + 4096 x 3 / (4 x 100) = 30 + 30.72 = 60.72 ns
 * after the compute: 2060.72 ns (taken as 1024 bytes of output it would be 30 + 7.68). */
START_TEST(round_trip_allgather) {
    th_workload *wl =
        parse_wl("{'name': 'ag', 'parallelism': 'data', 'chunks': 1, 'layers': [{'name': 'a',"
                 " 'forward': {'ns': 2000, 'collective': {'type': 'allgather', 'size': 4096}},"
                 " 'input_grad': {'ns': 0}, 'weight_grad': {'ns': 0}}]}");
    int64_t p[] = {4};
    th_system s = ring_system(1, p);
    th_chakra_graph g;
    build(wl, &s, 1, 0, &g);
    ck_assert_uint_eq(g.n, 2);
    ck_assert_uint_eq(g.nodes[1].comm_type, TH_CHAKRA_ALL_GATHER);
    ck_assert_uint_eq(g.nodes[1].comm_size, 1024);
    size_t len;
    unsigned char *b = write_rank(&g, 0, &len);
    th_ck_trace tr;
    memset(&tr, 0, sizeof tr);
    tr.ranks = 1;
    th_error err = {0};
    ck_assert_msg(th_ck_parse((const char *)b, len, "ag", &tr.g, &err) == 0, "%s", err.msg);
    th_ck_opts o = {.policy = TH_POLICY_BASELINE,
                    .intra = TH_INTRA_FIFO,
                    .model = TH_LOAD_ALPHA_BETA,
                    .priority = TH_PRIO_LIFO,
                    .chunks = 1};
    th_ck_result got;
    ck_assert_msg(th_ck_replay(&s, &tr, &o, NULL, NULL, &got, &err) == 0, "%s", err.msg);
    ck_assert_double_eq_tol(got.finish, 2060.72, 1e-9);
    th_ck_graph_free(&tr.g);
    free(b);
    th_chakra_graph_free(&g);
    th_workload_free(wl);
}
END_TEST

/* An LLM workload of one stage on tests/data/llm_sys_2d.json (dim 0 a ring of 4, dim 1 a switch
 * of 4, test NPU): 4 layers of h 1024, s 256, V 32000, micro-batches of 1, no recomputation,
 * the execution `exec`. */
static const char *const llm_wl =
    "{'name': 'llm', 'llm': {'model': {'layers': 4, 'hidden': 1024, 'heads': 16, 'seq': 256,"
    " 'vocab': 32000}, 'micro_batch': 1, %s}}";

/* The graph of exec, the trace's replay under baseline + FIFO with `chunks` per collective,
 * and the model's iteration, ns. */
static void llm_round_trip(const char *exec, int64_t chunks, th_chakra_graph *g, double *trace,
                           double *model) {
    char json[512];
    snprintf(json, sizeof json, llm_wl, exec);
    char *text = test_dq(json);
    th_llm_workload w;
    th_error err = {0};
    ck_assert_msg(th_llm_parse(text, strlen(text), "llm", &w, &err) == 0, "%s", err.msg);
    free(text);
    th_system s;
    ck_assert_msg(th_system_load(test_data("llm_sys_2d.json"), &s, &err) == 0, "%s", err.msg);
    th_chakra_opts o = {1, 0, 0};
    ck_assert_msg(th_chakra_build_llm(&w, &s, &o, g, &err) == 0, "%s", err.msg);
    size_t len;
    unsigned char *b = write_rank(g, 0, &len);
    th_ck_trace tr;
    memset(&tr, 0, sizeof tr);
    tr.ranks = 1;
    ck_assert_msg(th_ck_parse((const char *)b, len, "llm", &tr.g, &err) == 0, "%s", err.msg);
    /* the model's gradient stream is FIFO */
    th_ck_opts co = {.policy = TH_POLICY_BASELINE,
                     .intra = TH_INTRA_FIFO,
                     .model = TH_LOAD_ALPHA_BETA,
                     .priority = TH_PRIO_FIFO,
                     .chunks = chunks};
    th_ck_result got;
    ck_assert_msg(th_ck_replay(&s, &tr, &co, NULL, NULL, &got, &err) == 0, "%s", err.msg);
    *trace = got.finish;
    th_llm_ctx *c = th_llm_ctx_create();
    th_llm_result r;
    ck_assert_msg(
        th_llm_eval(c, &s, &w.model, &w.exec, TH_POLICY_BASELINE, TH_INTRA_FIFO, &r, &err) == 0,
        "%s", err.msg);
    *model = r.iteration;
    th_llm_ctx_free(c);
    th_ck_graph_free(&tr.g);
    free(b);
}

/* TP 4 on the ring, DP 4 on the switch, 2 micro-batches: every group is one dim, where the
 * model cuts no collective into chunks (read with 1). The graph by hand: per micro-batch 4 forwards
 * each followed by its two TP All-Reduces (12 nodes), the logits forward and backward (2), 4
 * backwards with two All-Reduces each (12): 26; two micro-batches 52, then the one gradient
 * All-Reduce (bucket_bytes 0) and the optimizer: 54 nodes. A TP All-Reduce: b s h A = 256 x 1024 x
 * 2 = 524288 bytes on the ring (dim 0). The gradient: per layer 4h^2 (attention) + 4h (norms) + 2h
 * x 4h (feed-forward) = 12 x 1048576 + 4096 = 12587008 parameters, / TP 4 = 3146752, x 4 layers =
 * 12587008, plus the embedding 32000 x 1024 / 4 = 8192000 and the final norm 2 x 1024 / 4 = 512:
 * 20779520 parameters of 2 bytes, 41559040 bytes on the switch (dim 1).
 *
 * The round trip: with one bucket at the end of the pass everything is one chain, as in the
 * model's sum (forward, backward, TP, exposed DP, optimizer), so the trace's time is the
 * model's plus what rounding did to the compute: written us x 1000 - the model's ns.
 *
 * DP 16 over both dims (chunks 16, read with 16), one micro-batch: the gradient, 4 x 12587008
 * + 32768000 + 2048 = 83118080 parameters of 2 bytes (as above with TP 1), in 16 MiB buckets:
 * ceil(166236160 / 16777216) = 10, made over the backward pass. The pass has no collective, so
 * the model's share of its time is the compute's share, where the writer cuts a compute node
 * and issues the bucket; each cut point is rounded to the microsecond from the node's start,
 * so a bucket is issued within 0.5 us per compute node before it of the model's time, and the
 * stream (10 buckets: the model runs them through the emulator, as the replay does) ends
 * within the same: at most 0.5 us per compute node. */
START_TEST(llm_graph) {
    th_chakra_graph g;
    double trace, model;
    llm_round_trip("'tp': 4, 'dp': 4, 'global_batch': 8, 'bucket_bytes': 0", 1, &g, &trace, &model);
    ck_assert_uint_eq(g.n, 54);
    char name[256];
    ck_assert_str_eq(th_chakra_node_name(&g, 0, name, sizeof name), "mb0.l0.forward");
    ck_assert_int_eq(g.nodes[0].type, TH_CHAKRA_COMP_NODE);
    ck_assert_str_eq(th_chakra_node_name(&g, 1, name, sizeof name), "mb0.l0.forward.allreduce");
    ck_assert_int_eq(g.nodes[1].comm_type, TH_CHAKRA_ALL_REDUCE);
    ck_assert_uint_eq(g.nodes[1].comm_size, 524288);
    ck_assert_uint_eq(g.nodes[1].mask, 1);
    ck_assert_str_eq(th_chakra_node_name(&g, 12, name, sizeof name), "mb0.logits.forward");
    ck_assert_str_eq(th_chakra_node_name(&g, 14, name, sizeof name), "mb0.l3.backward");
    ck_assert_str_eq(th_chakra_node_name(&g, 52, name, sizeof name), "dp.bucket0.allreduce");
    ck_assert_uint_eq(g.nodes[52].comm_size, 41559040);
    ck_assert_uint_eq(g.nodes[52].mask, 2);
    ck_assert_uint_eq(g.nodes[52].ndata, 1); /* after the last backward All-Reduce */
    ck_assert_uint_eq(g.deps[g.nodes[52].dep], 51);
    ck_assert_str_eq(th_chakra_node_name(&g, 53, name, sizeof name), "optimizer");
    ck_assert_uint_eq(g.nodes[53].ndata, 2);
    ck_assert_int_eq(g.phases, 21); /* 2 x 10 compute phases and the optimizer */
    double rounding = (double)g.compute_us * 1000 - g.compute_ns;
    ck_assert_msg(fabs(trace - (model + rounding)) < 1e-9 * model,
                  "trace %.17g ns, model %.17g + rounding %.17g", trace, model, rounding);
    th_chakra_graph_free(&g);

    llm_round_trip("'dp': 16, 'global_batch': 16, 'chunks': 16, 'bucket_bytes': 16777216", 16, &g,
                   &trace, &model);
    int buckets = 0, comp = 0;
    for (size_t k = 0; k < g.n; k++) {
        char nm[256];
        buckets += !strncmp(th_chakra_node_name(&g, k, nm, sizeof nm), "dp.bucket", 9);
        comp += g.nodes[k].type == TH_CHAKRA_COMP_NODE;
    }
    ck_assert_int_eq(buckets, 10);   /* ceil(166236160 / 16777216) */
    ck_assert_int_le(comp, 11 + 10); /* 10 phases and the optimizer, a piece more per cut */
    ck_assert_msg(fabs(trace - model) <= 500.0 * comp, "trace %.17g ns, model %.17g, %d nodes",
                  trace, model, comp);
    th_chakra_graph_free(&g);
}
END_TEST

/* Checks node k of g: its name, type and dependencies (node indices, data then control). */
static void node_is(const th_chakra_graph *g, size_t k, const char *name, int type, size_t ndeps,
                    const size_t *deps) {
    char buf[256];
    ck_assert_str_eq(th_chakra_node_name(g, k, buf, sizeof buf), name);
    ck_assert_int_eq(g->nodes[k].type, type);
    ck_assert_uint_eq(g->nodes[k].ndata + g->nodes[k].nctrl, ndeps);
    for (size_t i = 0; i < ndeps; i++)
        ck_assert_uint_eq(g->deps[g->nodes[k].dep + i], deps[i]);
}

/* Two pipeline stages, by hand: tests/data/llm_sys_pp2.json (dim 0 a ring of 2, dim 1 a switch
 * of 2), the 4-layer model with pp 2 (dim 0) and dp 2 (dim 1), micro-batches of 1, global batch
 * 4: m = 4 / (1 x 2) = 2 micro-batches, 1F1B, one gradient bucket. Rank r = pp + 2 dp: ranks 0
 * and 2 are stage 0 (layers 0-1), 1 and 3 stage 1 (layers 2-3 and the logits).
 *
 * Stage 0 warms up with p - s - 1 = 1 forward: F0 F1 B0 B1. F0: l0, l1 forward, the send of
 * mb0's activations (3 nodes); F1 the same (3); B0: the receive of mb0's gradient, l1, l0
 * backward (3); B1 (3); the gradient All-Reduce and the optimizer: 14 nodes, 2 sends, 2
 * receives. Stage 1 has no warm-up: F0 B0 F1 B1. F: the receive, l2, l3 and logits forward (4);
 * B: logits, l3, l2 backward, the send of the gradient (4); x 2 micro-batches, the All-Reduce
 * and the optimizer: 18 nodes.
 *
 * A send: b s h A / tp = 256 x 1024 x 2 = 524288 bytes. The gradient (2 bytes each): a layer
 * 4h^2 + 4h + 8h^2 = 12587008 parameters (llm_graph), two layers 25174016; stage 0 holds the
 * embedding, 32000 x 1024 = 32768000: 57942016 parameters, 115884032 bytes; stage 1 the
 * embedding tied to its logits and the final norm 2h = 2048: 57944064, 115888128 bytes. Both
 * over the switch (dim 1, mask 2).
 *
 * Tags: ((iteration x 2 + backward) x m + micro-batch) x (stage boundaries, 1) + boundary:
 * activations 0 and 1, gradients 2 and 3. Peers: rank 3 (stage 1) receives from rank 2 and
 * sends to rank 2; rank 0 sends to rank 1. */
START_TEST(llm_pipeline_graph) {
    char json[512];
    snprintf(json, sizeof json, llm_wl,
             "'pp': 2, 'dp': 2, 'global_batch': 4, 'bucket_bytes': 0, 'schedule': '1f1b'");
    char *text = test_dq(json);
    th_llm_workload w;
    th_error err = {0};
    ck_assert_msg(th_llm_parse(text, strlen(text), "llm", &w, &err) == 0, "%s", err.msg);
    free(text);
    th_system s;
    ck_assert_msg(th_system_load(test_data("llm_sys_pp2.json"), &s, &err) == 0, "%s", err.msg);
    th_chakra_opts o = {1, 0, 0};
    th_chakra_graph g;
    ck_assert_msg(th_chakra_build_llm(&w, &s, &o, &g, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(g.stages, 2);
    ck_assert_int_eq(g.stage_of[0], 0);
    ck_assert_int_eq(g.stage_of[1], 1);
    ck_assert_int_eq(g.stage_of[2], 0);
    ck_assert_int_eq(g.stage_of[3], 1);
    ck_assert_ptr_eq(th_chakra_graph_of(&g, 2), &g);
    const th_chakra_graph *g1 = th_chakra_graph_of(&g, 3);
    ck_assert_ptr_eq(g1, &g.stage[0]);
    ck_assert_uint_eq(g.n, 14);
    ck_assert_uint_eq(g1->n, 18);
    ck_assert_uint_eq(g.id_stride, 18);
    enum { C = TH_CHAKRA_COMP_NODE, S = TH_CHAKRA_COMM_SEND_NODE, R = TH_CHAKRA_COMM_RECV_NODE };
    enum { A = TH_CHAKRA_COMM_COLL_NODE };
#define D(...) (const size_t[]){__VA_ARGS__}
    node_is(&g, 0, "mb0.l0.forward", C, 0, NULL);
    node_is(&g, 1, "mb0.l1.forward", C, 1, D(0));
    node_is(&g, 2, "mb0.v0.send_activation", S, 1, D(1));
    node_is(&g, 3, "mb1.l0.forward", C, 1, D(1));
    node_is(&g, 4, "mb1.l1.forward", C, 1, D(3));
    node_is(&g, 5, "mb1.v0.send_activation", S, 1, D(4));
    node_is(&g, 6, "mb0.v0.recv_gradient", R, 0, NULL);
    node_is(&g, 7, "mb0.l1.backward", C, 2, D(4, 6));
    node_is(&g, 8, "mb0.l0.backward", C, 1, D(7));
    node_is(&g, 9, "mb1.v0.recv_gradient", R, 0, NULL);
    node_is(&g, 10, "mb1.l1.backward", C, 2, D(8, 9));
    node_is(&g, 11, "mb1.l0.backward", C, 1, D(10));
    node_is(&g, 12, "dp.bucket0.allreduce", A, 1, D(11));
    node_is(&g, 13, "optimizer", C, 2, D(11, 12));
    ck_assert_uint_eq(g.nodes[2].comm_size, 524288);
    ck_assert_int_eq(g.nodes[2].peer, 1);
    ck_assert_uint_eq(g.nodes[2].tag, 0);
    ck_assert_uint_eq(g.nodes[5].tag, 1);
    ck_assert_uint_eq(g.nodes[6].tag, 2);
    ck_assert_uint_eq(g.nodes[9].tag, 3);
    ck_assert_uint_eq(g.nodes[12].comm_size, 115884032);
    ck_assert_uint_eq(g.nodes[12].mask, 2);
    node_is(g1, 0, "mb0.v1.recv_activation", R, 0, NULL);
    node_is(g1, 1, "mb0.l2.forward", C, 1, D(0));
    node_is(g1, 2, "mb0.l3.forward", C, 1, D(1));
    node_is(g1, 3, "mb0.logits.forward", C, 1, D(2));
    node_is(g1, 4, "mb0.logits.backward", C, 1, D(3));
    node_is(g1, 5, "mb0.l3.backward", C, 1, D(4));
    node_is(g1, 6, "mb0.l2.backward", C, 1, D(5));
    node_is(g1, 7, "mb0.v1.send_gradient", S, 1, D(6));
    node_is(g1, 8, "mb1.v1.recv_activation", R, 0, NULL);
    node_is(g1, 9, "mb1.l2.forward", C, 2, D(6, 8));
    node_is(g1, 10, "mb1.l3.forward", C, 1, D(9));
    node_is(g1, 11, "mb1.logits.forward", C, 1, D(10));
    node_is(g1, 12, "mb1.logits.backward", C, 1, D(11));
    node_is(g1, 13, "mb1.l3.backward", C, 1, D(12));
    node_is(g1, 14, "mb1.l2.backward", C, 1, D(13));
    node_is(g1, 15, "mb1.v1.send_gradient", S, 1, D(14));
    node_is(g1, 16, "dp.bucket0.allreduce", A, 1, D(14));
    node_is(g1, 17, "optimizer", C, 2, D(14, 16));
#undef D
    ck_assert_uint_eq(g1->nodes[0].tag, 0);
    ck_assert_uint_eq(g1->nodes[7].tag, 2);
    ck_assert_uint_eq(g1->nodes[7].comm_size, 524288);
    ck_assert_uint_eq(g1->nodes[16].comm_size, 115888128);

    /* rank 3's file: ids from 3 x 18, its peer rank 2 */
    size_t len;
    unsigned char *b = write_rank(&g, 3, &len);
    th_ck_graph rg;
    ck_assert_msg(th_ck_parse((const char *)b, len, "r3", &rg, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(rg.n, 18);
    ck_assert_uint_eq(rg.nodes[0].id, 54);
    ck_assert_int_eq(rg.nodes[0].kind, TH_CK_RECV);
    ck_assert_int_eq(rg.nodes[0].peer, 2); /* comm_src */
    ck_assert_int_eq(rg.nodes[7].kind, TH_CK_SEND);
    ck_assert_int_eq(rg.nodes[7].peer, 2); /* comm_dst */
    ck_assert_int_eq(rg.nodes[7].tag, 2);
    ck_assert_double_eq(rg.nodes[7].size, 524288);
    th_ck_graph_free(&rg);
    free(b);
    b = write_rank(&g, 0, &len);
    ck_assert_msg(th_ck_parse((const char *)b, len, "r0", &rg, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(rg.n, 14);
    ck_assert_int_eq(rg.nodes[2].peer, 1);
    th_ck_graph_free(&rg);
    free(b);
    th_chakra_graph_free(&g);
}
END_TEST

/* Where the stages are, as th_llm_map_groups lays the groups (innermost first):
 * - DP before PP on llm_sys_pp2.json (ring 2, switch 2): DP takes the ring, PP the switch, so
 *   rank r = dp + 2 pp: ranks 0, 1 stage 0 and 2, 3 stage 1, a stage's offset 2 pp;
 * - PP 2 first on llm_sys_2d.json (ring 4, switch 4) with nothing else: PP takes 2 of the
 *   ring, the other 14 NPUs run copies (the ring's other half and every switch position):
 *   rank r is stage r mod 2, offsets 0 and 1, so rank 7 sends to rank 6 and back. */
START_TEST(llm_pipeline_layout) {
    static const struct {
        const char *sys, *exec;
        int npus;
        int32_t stage[16];
        int64_t off[2];
    } cases[] = {
        {"llm_sys_pp2.json",
         "'dp': 2, 'mapping': ['tp', 'ep', 'dp', 'pp']",
         4,
         {0, 0, 1, 1},
         {0, 2}},
        {"llm_sys_2d.json",
         "'mapping': ['pp', 'tp', 'ep', 'dp']",
         16,
         {0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1},
         {0, 1}},
    };
    th_error err = {0};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        th_system s;
        ck_assert_msg(th_system_load(test_data(cases[i].sys), &s, &err) == 0, "%s", err.msg);
        char json[512];
        snprintf(json, sizeof json,
                 "{'name': 'x', 'llm': {'model': {'layers': 4, 'hidden': 1024, 'heads': 16,"
                 " 'seq': 256, 'vocab': 32000}, 'pp': 2, 'global_batch': 4, %s}}",
                 cases[i].exec);
        char *text = test_dq(json);
        th_llm_workload w;
        ck_assert_msg(th_llm_parse(text, strlen(text), "x", &w, &err) == 0, "%s", err.msg);
        free(text);
        th_chakra_opts o = {1, 0, 0};
        th_chakra_graph g;
        ck_assert_msg(th_chakra_build_llm(&w, &s, &o, &g, &err) == 0, "%s", err.msg);
        ck_assert_int_eq(g.npus, cases[i].npus);
        for (int r = 0; r < cases[i].npus; r++)
            ck_assert_int_eq(g.stage_of[r], cases[i].stage[r]);
        ck_assert_int_eq(g.stage_off[0], cases[i].off[0]);
        ck_assert_int_eq(g.stage_off[1], cases[i].off[1]);
        th_chakra_graph_free(&g);
    }
}
END_TEST

/* The schedules' orders on a device, by hand (Megatron-LM's): 4 stages, 8 micro-batches, one
 * layer per virtual stage. GPipe: every forward, then every backward. 1F1B on stage 1:
 * p - s - 1 = 2 forwards, then forward and backward in turn, then 2 backwards. Interleaved, v
 * 2 (8 layers), stage 1: (p - s - 1) 2 + (v - 1) p = 8 warm-up forwards; forward step k is
 * micro-batch (k / 8) 4 + k mod 4 through chunk (k / 4) mod 2 (virtual stage 4 chunk + 1, its
 * layer the same number), backward step k chunk 1 - (k / 4) mod 2. */
START_TEST(llm_pipeline_schedules) {
    static const struct {
        int layers;
        const char *schedule;
        const char *want; /* stage 1's forward and backward nodes: micro-batch, f/b, layer */
    } cases[] = {
        {4, "'gpipe'", "0f1 1f1 2f1 3f1 4f1 5f1 6f1 7f1 0b1 1b1 2b1 3b1 4b1 5b1 6b1 7b1"},
        {4, "'1f1b'", "0f1 1f1 2f1 0b1 3f1 1b1 4f1 2b1 5f1 3b1 6f1 4b1 7f1 5b1 6b1 7b1"},
        {8, "'interleaved', 'virtual_stages': 2",
         "0f1 1f1 2f1 3f1 0f5 1f5 2f5 3f5 4f1 0b5 5f1 1b5 6f1 2b5 7f1 3b5 4f5 0b1 5f5 1b1 6f5 "
         "2b1 7f5 3b1 4b5 5b5 6b5 7b5 4b1 5b1 6b1 7b1"},
    };
    th_error err = {0};
    th_system s;
    ck_assert_msg(th_system_load(test_data("llm_sys_2d.json"), &s, &err) == 0, "%s", err.msg);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char json[512];
        snprintf(json, sizeof json,
                 "{'name': 'x', 'llm': {'model': {'layers': %d, 'hidden': 1024, 'heads': 16,"
                 " 'seq': 256, 'vocab': 32000}, 'pp': 4, 'dp': 4, 'global_batch': 32,"
                 " 'bucket_bytes': 0, 'schedule': %s}}",
                 cases[i].layers, cases[i].schedule);
        char *text = test_dq(json);
        th_llm_workload w;
        ck_assert_msg(th_llm_parse(text, strlen(text), "x", &w, &err) == 0, "%s", err.msg);
        free(text);
        th_chakra_opts o = {1, 0, 0};
        th_chakra_graph g;
        ck_assert_msg(th_chakra_build_llm(&w, &s, &o, &g, &err) == 0, "%s", err.msg);
        /* pp on the ring (dim 0), dp on the switch: rank 1 is stage 1 */
        const th_chakra_graph *g1 = th_chakra_graph_of(&g, 1);
        char got[1024] = "", buf[256];
        for (size_t k = 0; k < g1->n; k++) {
            const char *name = th_chakra_node_name(g1, k, buf, sizeof buf);
            int u, l;
            char ph[32];
            if (g1->nodes[k].type != TH_CHAKRA_COMP_NODE ||
                sscanf(name, "mb%d.l%d.%31s", &u, &l, ph) != 3)
                continue;
            snprintf(got + strlen(got), sizeof got - strlen(got), "%s%d%c%d", *got ? " " : "", u,
                     ph[0], l);
        }
        ck_assert_str_eq(got, cases[i].want);
        th_chakra_graph_free(&g);
    }
}
END_TEST

/* What the writer refuses of an LLM workload: ZeRO-3, a group on part of a dim (TP 2 on the ring
 * of 4), a pipeline whose copies do not tile its dim (3 stages on the ring of 4). */
START_TEST(llm_refused) {
    static const char *const cases[][2] = {
        {"'tp': 4, 'dp': 4, 'sharding': 'weights'", "llm.sharding: weights"},
        {"'tp': 2, 'dp': 8", "group tp takes 2 of the 4 NPUs of dim 0 (\"ring\")"},
    };
    th_system s;
    th_error err = {0};
    ck_assert_msg(th_system_load(test_data("llm_sys_2d.json"), &s, &err) == 0, "%s", err.msg);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char json[512];
        snprintf(json, sizeof json,
                 "{'name': 'x', 'llm': {'model': {'layers': 4, 'hidden': 1024, 'heads': 16,"
                 " 'seq': 256, 'vocab': 32000}, %s, 'global_batch': 8}}",
                 cases[i][0]);
        char *text = test_dq(json);
        th_llm_workload w;
        ck_assert_msg(th_llm_parse(text, strlen(text), "x", &w, &err) == 0, "%s", err.msg);
        free(text);
        th_chakra_opts o = {1, 0, 0};
        th_chakra_graph g;
        ck_assert_int_eq(th_chakra_build_llm(&w, &s, &o, &g, &err), TH_EINPUT);
        ck_assert_msg(strstr(err.msg, cases[i][1]), "%s", err.msg);
        th_chakra_graph_free(&g);
    }
    char *text = test_dq("{'name': 'x', 'llm': {'model': {'layers': 6, 'hidden': 1024, 'heads': 16,"
                         " 'seq': 256, 'vocab': 32000}, 'pp': 3, 'global_batch': 8}}");
    th_llm_workload w;
    ck_assert_msg(th_llm_parse(text, strlen(text), "x", &w, &err) == 0, "%s", err.msg);
    free(text);
    th_chakra_opts o = {1, 0, 0};
    th_chakra_graph g;
    ck_assert_int_eq(th_chakra_build_llm(&w, &s, &o, &g, &err), TH_EINPUT);
    ck_assert_msg(strstr(err.msg, "llm.pp: the pipeline takes 3 of the 4 NPUs of dim 0"), "%s",
                  err.msg);
    th_chakra_graph_free(&g);
}
END_TEST

Suite *chakra_export_suite(void) {
    Suite *s = suite_create("chakra_export");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, bytes_by_hand);
    tcase_add_test(tc, graph_order);
    tcase_add_test(tc, graph_buckets);
    tcase_add_test(tc, graph_rounding);
    tcase_add_test(tc, graph_errors);
    tcase_add_test(tc, round_trip_random);
    tcase_add_test(tc, round_trip_allgather);
    tcase_add_test(tc, llm_graph);
    tcase_add_test(tc, llm_pipeline_graph);
    tcase_add_test(tc, llm_pipeline_layout);
    tcase_add_test(tc, llm_pipeline_schedules);
    tcase_add_test(tc, llm_refused);
    suite_add_tcase(s, tc);
    return s;
}

/* Check suite for the astra-sim preset's replay NPU by NPU (astra_npus.c, docs/CHAKRA.md):
 * graphs of one node or two replayed on small systems, each time derived by hand from
 * ASTRA-sim 2.x's code (Ring.cc, AllToAll.cc, HalvingDoubling.cc, PacketBundle.cc, MemBus.cc,
 * the analytical backend's message time floor(hops x latency + bytes / B) with B = GB/s x 2^30
 * / 10^9 bytes per ns), its hang and its refusals. */
#include <stdlib.h>
#include <string.h>

#include "astra_preset.h"
#include "chakra/chakra.h"
#include "chakra/chakra_mem.h"
#include "check_themis.h"

/* An astra-sim system of one dim (endpoint delay 10 ns, local memory 1600 GB/s). */
static th_system one_dim(const char *topo, int npus, double bw, double lat, const char *alg) {
    char json[512];
    snprintf(json, sizeof json,
             "{\"name\": \"d\", \"model\": \"astra-sim\", \"endpoint_ns\": 10, "
             "\"local_mem_GBps\": 1600, \"dims\": [{\"topology\": \"%s\", \"npus\": %d, "
             "\"bw_GBps\": %g, \"latency_ns\": %g, \"algorithm\": \"%s\"}]}",
             topo, npus, bw, lat, alg);
    th_system s;
    th_error err = {0};
    ck_assert_msg(th_system_parse(json, strlen(json), "d.json", &s, &err) == TH_OK, "%s", err.msg);
    return s;
}

/* A trace of one graph: nodes n (ids 1..), node k depending on node dep[k] (-1: none). */
typedef struct one_graph {
    th_ck_trace tr;
    th_ck_node nodes[4];
    int32_t deps[4], child_off[5], child[4];
} one_graph;

static void graph_init(one_graph *g, const th_ck_node *nodes, const int *dep, int n) {
    memset(g, 0, sizeof *g);
    int nd = 0;
    for (int k = 0; k < n; k++) {
        g->nodes[k] = nodes[k];
        g->nodes[k].id = (uint64_t)k + 1;
        g->nodes[k].dep0 = (uint32_t)nd;
        g->nodes[k].ndeps = dep[k] >= 0;
        if (dep[k] >= 0) g->deps[nd++] = dep[k];
    }
    int at = 0;
    for (int k = 0; k < n; k++) {
        g->child_off[k] = at;
        for (int j = 0; j < n; j++)
            if (dep[j] == k) g->child[at++] = j;
    }
    g->child_off[n] = at;
    g->tr.ranks = 1;
    snprintf(g->tr.prefix, sizeof g->tr.prefix, "t");
    snprintf(g->tr.file0, sizeof g->tr.file0, "t.0.et");
    g->tr.g.nodes = g->nodes, g->tr.g.n = n;
    g->tr.g.deps = g->deps, g->tr.g.ndeps = (size_t)nd;
    g->tr.g.child_off = g->child_off, g->tr.g.child = g->child;
}

static th_ck_node coll(th_coll_type type, double size) {
    th_ck_node x = {0};
    x.kind = TH_CK_COLL, x.type = 7, x.coll = (uint8_t)type, x.size = size, x.ndims = -1;
    return x;
}

static th_ck_node compute(uint64_t micros) {
    th_ck_node x = {0};
    x.kind = TH_CK_COMPUTE, x.type = 4, x.micros = micros, x.ndims = -1, x.ops = -1;
    x.tensor = -1;
    return x;
}

static int replay(const th_system *sys, one_graph *g, th_policy p, int64_t chunks,
                  th_ck_result *res, th_error *err) {
    th_ck_opts o = {0};
    o.policy = p, o.intra = TH_INTRA_FIFO, o.chunks = chunks;
    int handled = -1;
    int rc = astra_npus_replay(sys, &g->tr, &o, NULL, NULL, res, &handled, err);
    ck_assert_int_ne(handled, 0);
    return rc;
}

static double finish(const th_system *sys, one_graph *g, th_policy p, int64_t chunks) {
    th_ck_result res;
    th_error err = {0};
    ck_assert_msg(replay(sys, g, p, chunks, &res, &err) == TH_OK, "%s", err.msg);
    return res.finish;
}

/* A graph of collective x alone. */
static void alone(one_graph *g, th_ck_node x) {
    int dep = -1;
    graph_init(g, &x, &dep, 1);
}

/* ASTRA-sim 2.x's microbenchmark, a 1 MiB collective on Ring 4 @ 50 GB/s, 500 ns, 4 chunks of
 * s = 262144 bytes one after the other (one queue per dim, one chunk at a time), with
 * net(b) = floor(500 + b / 53.687091) per hop:
 *   All-Reduce: each chunk's ring phase sends 2 (p - 1) = 6 messages of s / 4 = 65536 bytes
 *     (net 1720), each handed to the network ep = 10 after the one before came back, the first
 *     3 reduced on arrival for 3 floor(65536 / 1600e9 x 1e9) = 3 x 40 = 120 ns: 10 + 6 (1720 +
 *     10) + 3 x 120 = 10750 a chunk, 43000 in all.
 *   Reduce-Scatter: 10 + 3 (1720 + 10 + 120) = 5560 a chunk, 22240.
 *   All-Gather (each NPU's 1 MiB, chunks of 262144 gathered): 10 + 3 (net(262144) = 5382 +
 *     10) = 16186 a chunk, 64744.
 *   All-to-All (ASTRA-sim's ring: p (p - 1) / 2 = 6 messages of s / 4): 10 + 6 x 1730 =
 *     10390 a chunk, 41560. */
START_TEST(npus_ring_microbenchmark) {
    th_system sys = one_dim("ring", 4, 50, 500, "ring");
    static const struct {
        th_coll_type type;
        double want;
    } cases[] = {{TH_COLL_ALLREDUCE, 43000},
                 {TH_COLL_REDUCESCATTER, 22240},
                 {TH_COLL_ALLGATHER, 64744},
                 {TH_COLL_ALLTOALL, 41560}};
    for (int k = 0; k < 4; k++) {
        one_graph g;
        alone(&g, coll(cases[k].type, 1048576));
        ck_assert_double_eq(finish(&sys, &g, TH_POLICY_BASELINE, 4), cases[k].want);
    }
}
END_TEST

/* A direct All-Gather on an odd ring, Ring 5 @ 50 GB/s, 500 ns, one chunk of 262144 bytes:
 * at StreamInit each NPU queues a message to each of its 4 peers, handed to the network
 * together ep = 10 later; the peers 1 hop away get theirs floor(500 + 4882.8125) = 5382 later,
 * at 5392, those 2 hops away (both ways round the ring) floor(1000 + 4882.8125) = 5882 later,
 * at 5892; each arrival is handed back ep later, the last at 5902, when the phase ends. Then a
 * compute node of 3 us after it: 8902. */
START_TEST(npus_direct_odd_ring) {
    th_system sys = one_dim("ring", 5, 50, 500, "direct");
    one_graph g;
    th_ck_node x[2] = {coll(TH_COLL_ALLGATHER, 262144), compute(3)};
    int dep[2] = {-1, 0};
    graph_init(&g, x, dep, 2);
    ck_assert_double_eq(finish(&sys, &g, TH_POLICY_BASELINE, 1), 8902);
}
END_TEST

/* halvingDoubling All-Reduce on Switch 4 @ 50 GB/s, 500 ns (2 hops a message), one chunk of
 * s = 1048576: the halving half sends s / 2, then s / 4 (partners 1 then 2 apart), the first
 * reduced at the size of the next message (the second is the first of a new round of packets,
 * which HalvingDoubling::insert_packet hands back unprocessed), the doubling half s / 4, then
 * s / 2, unreduced: net(s / 2) = floor(1000 + 9765.625) = 10765, net(s / 4) = floor(1000 +
 * 4882.8125) = 5882; the reduction 3 floor(262144 / 1600) = 3 x 163 = 489. 10 + (10765 + 10 +
 * 489) + (5882 + 10) + (5882 + 10) + (10765 + 10) = 33833. */
START_TEST(npus_halving_doubling) {
    th_system sys = one_dim("switch", 4, 50, 500, "rhd");
    one_graph g;
    alone(&g, coll(TH_COLL_ALLREDUCE, 1048576));
    ck_assert_double_eq(finish(&sys, &g, TH_POLICY_BASELINE, 1), 33833);
}
END_TEST

/* A collective whose involved dims select none of the system's: ASTRA-sim's generate makes no
 * stream and marks the dataset inactive, which never ends, so the workload never finishes:
 * refused as a run ASTRA-sim would not finish, naming the node. */
START_TEST(npus_hang) {
    th_system sys = one_dim("ring", 4, 50, 500, "ring");
    one_graph g;
    th_ck_node x = coll(TH_COLL_ALLREDUCE, 1048576);
    x.ndims = 1, x.dims = 0;
    alone(&g, x);
    th_ck_result res;
    th_error err = {0};
    ck_assert_int_eq(replay(&sys, &g, TH_POLICY_BASELINE, 4, &res, &err), TH_EINPUT);
    ck_assert_msg(strstr(err.msg, "t.0.et: node 1 (allreduce): ASTRA-sim 2.x would not finish"),
                  "%s", err.msg);
}
END_TEST

/* What the replay NPU by NPU leaves to the replay's refusals: an All-Gather of less than a
 * byte per chunk (ASTRA-sim loops for ever), point-to-point nodes of a trace that is not one
 * file per NPU (whose peers are every NPU's), times past 2^62 ns. */
START_TEST(npus_not_handled) {
    th_system sys = one_dim("ring", 4, 50, 500, "ring");
    one_graph g;
    alone(&g, coll(TH_COLL_ALLGATHER, 3));
    th_ck_opts o = {0};
    o.policy = TH_POLICY_BASELINE, o.chunks = 4;
    th_ck_result res;
    th_error err = {0};
    int handled = -1;
    ck_assert_int_eq(astra_npus_replay(&sys, &g.tr, &o, NULL, NULL, &res, &handled, &err), TH_OK);
    ck_assert_int_eq(handled, 0);
    g.nodes[0].kind = TH_CK_SEND, g.nodes[0].type = 5, g.nodes[0].peer = 1;
    handled = -1;
    ck_assert_int_eq(astra_npus_replay(&sys, &g.tr, &o, NULL, NULL, &res, &handled, &err), TH_OK);
    ck_assert_int_eq(handled, 0);
    /* a compute node of 2^53 us runs past 2^62 ns, where the replay gives up */
    alone(&g, compute((uint64_t)1 << 53));
    handled = -1;
    ck_assert_int_eq(astra_npus_replay(&sys, &g.tr, &o, NULL, NULL, &res, &handled, &err), TH_OK);
    ck_assert_int_eq(handled, 0);
}
END_TEST

/* A load of 1 MiB from a memory per NPU (latency 100 ns, 50 GB/s taken as 50 bytes per ns),
 * then a 1 MiB All-Reduce on Ring 4 @ 50 GB/s, 500 ns: the load holds the communication
 * stream for 100 + floor(1048576 / 50) = 21071 ns, the All-Reduce then 43000 (above): 64071.
 * An access of 10 bytes at latency 0 takes floor(10 / 50) = 0 ns from time 0, on which
 * ASTRA-sim's event queue stops: refused, naming the node and its field. */
START_TEST(npus_memory) {
    th_system sys = one_dim("ring", 4, 50, 500, "ring");
    th_ck_node x[2] = {{0}, coll(TH_COLL_ALLREDUCE, 1048576)};
    x[0].kind = TH_CK_MEM, x[0].type = 2, x[0].tensor = 1048576, x[0].ndims = -1, x[0].ops = -1;
    int dep[2] = {-1, 0};
    one_graph g;
    graph_init(&g, x, dep, 2);
    th_ck_mem mem = {TH_CK_MEM_PER_NPU, 100, 50, 0, 0, "m.json"};
    th_ck_opts o = {0};
    o.policy = TH_POLICY_BASELINE, o.chunks = 4, o.mem = &mem;
    th_ck_result res;
    th_error err = {0};
    int handled = -1;
    ck_assert_int_eq(astra_npus_replay(&sys, &g.tr, &o, NULL, NULL, &res, &handled, &err), TH_OK);
    ck_assert_int_eq(handled, 1);
    ck_assert_double_eq(res.finish, 64071);
    ck_assert_double_eq(res.exposed, 64071);
    mem.latency = 0, g.nodes[0].tensor = 10;
    ck_assert_int_eq(astra_npus_replay(&sys, &g.tr, &o, NULL, NULL, &res, &handled, &err),
                     TH_EINPUT);
    ck_assert_msg(strstr(err.msg, "t.0.et: node 1: attr tensor_size: 10 bytes"), "%s", err.msg);
    /* a memory shared by NPUs makes them wait for each other: left to its own replay */
    mem.type = TH_CK_MEM_POOL;
    handled = -1;
    ck_assert_int_eq(astra_npus_replay(&sys, &g.tr, &o, NULL, NULL, &res, &handled, &err), TH_OK);
    ck_assert_int_eq(handled, 0);
}
END_TEST

/* Four ranks in two classes, each rank's file its own: rank r holds graph a when cls[r] is 0,
 * else graph b; their sends and receives go to peer r + off[r][j] (j-th of its nodes). */
typedef struct two_sets {
    one_graph a, b;
    th_ck_graph cg[1];
    int32_t class_of[4], first[2], graph_of[2], rank_peer[16];
    size_t rank_peer_off[5];
} two_sets;

static void sets_init(two_sets *t, const int cls[4], const int off[4][2], int np) {
    th_ck_trace *tr = &t->a.tr;
    tr->ranks = 4, tr->nclasses = 2, tr->ngraphs = 2;
    t->cg[0] = t->b.tr.g;
    tr->cg = t->cg;
    tr->class_of = t->class_of, tr->first = t->first, tr->graph_of = t->graph_of;
    t->first[0] = t->first[1] = -1;
    for (int r = 0; r < 4; r++) {
        t->class_of[r] = cls[r];
        if (t->first[cls[r]] < 0) t->first[cls[r]] = r;
        t->rank_peer_off[r] = (size_t)(r * np);
        for (int j = 0; j < np; j++)
            t->rank_peer[r * np + j] = (r + off[r][j] + 4) % 4;
    }
    t->rank_peer_off[4] = (size_t)(4 * np);
    t->graph_of[0] = 0, t->graph_of[1] = 1;
    tr->rank_peer = t->rank_peer, tr->rank_peer_off = t->rank_peer_off;
}

static th_ck_node p2p(th_ck_kind kind, double size) {
    th_ck_node x = {0};
    x.kind = kind, x.type = kind == TH_CK_SEND ? 5 : 6, x.size = size, x.ndims = -1;
    x.ops = x.tensor = -1;
    return x;
}

/* Two stages on Ring 4 @ 50 GB/s, 500 ns, every NPU replayed: ranks 0 and 1 compute 5 us and
 * send 1 MiB to rank r + 2, 2 hops: floor(2 x 500 + 1048576 / 53.687091) = 20531 ns, so they
 * end at 5000 + 20531 = 25531 when the message arrives; ranks 2 and 3 receive it then and
 * compute 3 us: 28531 (ASTRA-sim 2.x, measured: sys[0..1] 25531, sys[2..3] 28531). Without
 * the send (rank 0's graph a compute node alone), the receive waits for ever: refused, naming
 * it. */
START_TEST(npus_send_recv) {
    th_system sys = one_dim("ring", 4, 50, 500, "ring");
    two_sets t;
    th_ck_node a[2] = {compute(5), p2p(TH_CK_SEND, 1048576)};
    th_ck_node b[2] = {p2p(TH_CK_RECV, 1048576), compute(3)};
    int dep[2] = {-1, 0};
    graph_init(&t.a, a, dep, 2);
    graph_init(&t.b, b, dep, 2);
    const int cls[4] = {0, 0, 1, 1}, off[4][2] = {{2}, {2}, {-2}, {-2}};
    sets_init(&t, cls, off, 1);
    th_ck_result res;
    th_error err = {0};
    ck_assert_msg(replay(&sys, &t.a, TH_POLICY_BASELINE, 4, &res, &err) == TH_OK, "%s", err.msg);
    ck_assert_double_eq(res.finish, 28531);
    ck_assert_double_eq(res.compute, 3000);
    ck_assert_int_eq(res.classes, 2);
    ck_assert_double_eq(res.class_end[0], 25531);
    ck_assert_double_eq(res.class_end[1], 28531);
    ck_assert_double_eq(res.class_compute[0], 5000);
    graph_init(&t.a, a, dep, 1); /* the send gone */
    sets_init(&t, cls, off, 0);
    t.rank_peer_off[2] = 0, t.rank_peer_off[3] = 1, t.rank_peer_off[4] = 2;
    t.rank_peer[0] = 0, t.rank_peer[1] = 1;
    ck_assert_int_eq(replay(&sys, &t.a, TH_POLICY_BASELINE, 4, &res, &err), TH_EINPUT);
    ck_assert_msg(strstr(err.msg, "t.2.et: node 1 (COMM_RECV_NODE): ASTRA-sim 2.x would not "
                                  "finish: NPU 2 waits for a message no NPU sends"),
                  "%s", err.msg);
}
END_TEST

/* A stop request ends the replay as interrupted (4 All-Reduces of 64 chunks on 8 NPUs). */
static atomic_int stop_now = 1;
START_TEST(npus_interrupted) {
    th_system sys = one_dim("ring", 8, 50, 500, "ring");
    enum { N = 4 };
    one_graph g;
    th_ck_node x[N];
    int dep[N];
    for (int k = 0; k < N; k++)
        x[k] = coll(TH_COLL_ALLREDUCE, 1 << 26), dep[k] = k - 1;
    graph_init(&g, x, dep, N);
    th_ck_opts o = {0};
    o.policy = TH_POLICY_BASELINE, o.chunks = 64, o.stop = &stop_now;
    th_ck_result res;
    th_error err = {0};
    int handled = -1;
    ck_assert_int_eq(astra_npus_replay(&sys, &g.tr, &o, NULL, NULL, &res, &handled, &err),
                     TH_EINTERNAL);
    ck_assert_str_eq(err.msg, "interrupted");
}
END_TEST

Suite *astra_npus_suite(void) {
    Suite *s = suite_create("astra_npus");
    TCase *tc = tcase_create("replay");
    tcase_add_test(tc, npus_ring_microbenchmark);
    tcase_add_test(tc, npus_direct_odd_ring);
    tcase_add_test(tc, npus_halving_doubling);
    tcase_add_test(tc, npus_hang);
    tcase_add_test(tc, npus_not_handled);
    tcase_add_test(tc, npus_interrupted);
    tcase_add_test(tc, npus_memory);
    tcase_add_test(tc, npus_send_recv);
    suite_add_tcase(s, tc);
    return s;
}

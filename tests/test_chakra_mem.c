/* Memory nodes of Chakra traces on a remote memory (`themis train --remote-memory`, the API's
 * and sweeps' remote_memory): traces written here with protobuf-c, times derived by hand from
 * ASTRA-sim 2.x's rules (docs/CHAKRA.md, Memory nodes) and measured on ASTRA-sim 2.x (astra-sim
 * 518bd51, astra-memory-analytical 641cce8, analytical congestion-unaware backend) with the same
 * traces, network and system files and remote memory configurations; and every refusal.
 *
 * The system is ASTRA-sim's Ring_4npus network with its Ring_4chunks system (tests/data/chakra/,
 * imported with `themis import-astra`): a 1 MiB All-Reduce alone takes 43000 ns there
 * (tests/test_chakra.c). The remote memories have latency 100 ns and bandwidth 50 GB/s, so an
 * access of b bytes takes 100 + floor(b / 50) ns: 1 MiB (1048576) 100 + 20971 = 21071 ns,
 * 512 KiB 100 + 10485 = 10585 ns. A memory node holds the communication stream (the CPU stream
 * when is_cpu_op) until its access ends. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chakra/et_def.pb-c.h"
#include "check_chakra.h"
#include "check_themis.h"

enum { INVALID = 0, LOAD = 2, STORE = 3, COMP = 4, COLL = 7 };

/* One node as these tests write it (ids from 1; deps as ids). */
typedef struct mnode {
    uint64_t id;
    int type;
    uint64_t micros; /* COMP: duration_micros */
    uint64_t
        bytes; /* LOAD, STORE: tensor_size (absent when notensor); COLL: an All-Reduce's size */
    int cpu;   /* is_cpu_op */
    uint64_t deps[2];
    int ndeps;
    int notensor;
} mnode;

#define MLOAD(i, b)                                                                                \
    { .id = (i), .type = LOAD, .bytes = (b) }
#define MCOMP(i, us)                                                                               \
    { .id = (i), .type = COMP, .micros = (us) }

static ChakraProtoMsg__AttributeProto attr_u64(const char *name, uint64_t v) {
    ChakraProtoMsg__AttributeProto a = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__INIT;
    a.name = (char *)name;
    a.value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_UINT64_VAL;
    a.uint64_val = v;
    return a;
}

/* dir/name.<k>.et for k < ranks, the same graph in each. */
static void write_set(const char *dir, const char *name, const mnode *w, int n, int ranks) {
    for (int k = 0; k < ranks; k++) {
        char path[4200];
        snprintf(path, sizeof path, "%s/%s.%d.et", dir, name, k);
        FILE *f = fopen(path, "wb");
        ck_assert_ptr_nonnull(f);
        ChakraProtoMsg__GlobalMetadata md = CHAKRA_PROTO_MSG__GLOBAL_METADATA__INIT;
        md.version = "0.0.4";
        test_put_msg(f, &md.base);
        for (int i = 0; i < n; i++) {
            ChakraProtoMsg__Node x = CHAKRA_PROTO_MSG__NODE__INIT;
            ChakraProtoMsg__AttributeProto a[3], *ap[3];
            uint64_t deps[2] = {w[i].deps[0], w[i].deps[1]};
            x.id = w[i].id;
            x.name = "";
            x.type = (ChakraProtoMsg__NodeType)w[i].type;
            x.duration_micros = w[i].micros;
            x.n_data_deps = (size_t)w[i].ndeps, x.data_deps = deps;
            int na = 0;
            if (w[i].cpu) {
                ChakraProtoMsg__AttributeProto c = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__INIT;
                c.name = "is_cpu_op";
                c.value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_BOOL_VAL;
                c.bool_val = 1;
                a[na++] = c;
            }
            if ((w[i].type == LOAD || w[i].type == STORE) && !w[i].notensor)
                a[na++] = attr_u64("tensor_size", w[i].bytes);
            if (w[i].type == COLL) {
                a[na++] = attr_u64("comm_type", 0); /* ALL_REDUCE */
                a[na++] = attr_u64("comm_size", w[i].bytes);
            }
            for (int k2 = 0; k2 < na; k2++)
                ap[k2] = &a[k2];
            x.n_attr = (size_t)na, x.attr = ap;
            test_put_msg(f, &x.base);
        }
        ck_assert_int_eq(fclose(f), 0);
    }
}

/* dir/name.<k>.et of 4 ranks: graph a for ranks below split, graph b for the others. */
static void write_classes(const char *dir, const char *name, const mnode *a, int na, const mnode *b,
                          int nb, int split) {
    for (int k = 0; k < 4; k++) {
        char from[4200], to[4200];
        write_set(dir, "tmp", k < split ? a : b, k < split ? na : nb, 1);
        snprintf(from, sizeof from, "%s/tmp.0.et", dir);
        snprintf(to, sizeof to, "%s/%s.%d.et", dir, name, k);
        ck_assert_int_eq(rename(from, to), 0);
    }
}

/* A remote memory configuration dir/name.json of memory-type type (latency 100 ns, 50 GB/s;
 * a memory per node: 2 nodes of 2 NPUs), more keys after. */
static const char *memory(const char *dir, const char *name, const char *type, const char *more) {
    static char path[4200];
    char text[512];
    snprintf(path, sizeof path, "%s/%s.json", dir, name);
    snprintf(text, sizeof text,
             "{'memory-type': '%s', 'remote-mem-latency': 100, 'remote-mem-bw': 50%s%s}", type,
             strcmp(type, "PER_NODE_MEMORY_EXPANSION") ? ""
                                                       : ", 'num-nodes': 2, "
                                                         "'num-npus-per-node': 2",
             more);
    test_spit_dq(path, text);
    return path;
}

/* The astra-sim system of a ring of 4 NPUs (tests/data/chakra/) in dir. */
static const char *ring4(const char *dir) {
    static char out[4200];
    snprintf(out, sizeof out, "%s/ring4.json", dir);
    test_cli_out r;
    test_cli(&r, "import-astra '%s' '%s' -o '%s' --force", test_dpath("chakra/Ring_4npus.yml"),
             test_dpath("chakra/Ring_4chunks.json"), out);
    test_expect_ok(&r, "import-astra");
    test_cli_free(&r);
    return out;
}

/* train's iteration and exposed communication, ns. */
static void train(const char *dir, const char *trace, const char *sys, const char *mem,
                  double *iter, double *exposed) {
    test_cli_out r;
    test_cli(&r, "train '%s/%s' -s '%s' --remote-memory '%s' -p baseline -q fifo -f csv", dir,
             trace, sys, mem);
    test_expect_quiet(&r, trace);
    test_csv c;
    test_csv_parse(&c, r.out);
    ck_assert_int_eq(c.nrows, 1);
    *iter = test_csv_d(&c, 0, "iteration_us") * 1000;
    *exposed = test_csv_d(&c, 0, "exposed_comm_us") * 1000;
    test_csv_free(&c);
    test_cli_free(&r);
}

#define EXPECT(trace, mem, want_iter, want_exposed)                                                \
    do {                                                                                           \
        double it_, ex_;                                                                           \
        train(dir, trace, sys, mem, &it_, &ex_);                                                   \
        ck_assert_rel(it_, want_iter);                                                             \
        ck_assert_rel(ex_, want_exposed);                                                          \
    } while (0)

/* One memory per NPU: an access never waits for another NPU's, so one rank stands for all.
 * Measured on ASTRA-sim 2.x: every time below. */
START_TEST(chakra_mem_per_npu) {
    char *dir = test_tmp_dir();
    const char *sys = ring4(dir);
    const char *mem = memory(dir, "npu", "PER_NPU_MEMORY_EXPANSION", "");
    mnode one[] = {MLOAD(1, 1048576)};
    write_set(dir, "one", one, 1, 4);
    EXPECT("one", mem, 21071, 21071); /* 100 + floor(1048576 / 50) */
    mnode store[] = {{.id = 1, .type = STORE, .bytes = 1000001}};
    write_set(dir, "store", store, 1, 4);
    EXPECT("store", mem, 20100, 20100); /* 100 + floor(20000.02) */
    /* a 5 us compute beside the load (compute stream, communication stream): the load ends
     * last, 21071, of which 21071 - 5000 exposed */
    mnode comp[] = {MCOMP(1, 5), MLOAD(2, 1048576)};
    write_set(dir, "comp", comp, 2, 4);
    EXPECT("comp", mem, 21071, 16071);
    /* two loads hold the one communication stream one after the other: 21071 + 10585 */
    mnode two[] = {MLOAD(1, 1048576), MLOAD(2, 524288)};
    write_set(dir, "two", two, 2, 4);
    EXPECT("two", mem, 31656, 31656);
    /* on the CPU stream and the communication stream side by side: max(21071, 10585) */
    mnode cpu[] = {MLOAD(1, 1048576), MLOAD(2, 524288)};
    cpu[0].cpu = 1;
    write_set(dir, "cpu", cpu, 2, 4);
    EXPECT("cpu", mem, 21071, 21071);
    /* a chain: compute 3 us, load 64 KiB (100 + 1310 = 1410), compute 2 us, store 4 KiB
     * (100 + 81 = 181): 3000 + 1410 + 2000 + 181 = 6591, compute 5000 */
    mnode chain[] = {MCOMP(1, 3), MLOAD(2, 65536), MCOMP(3, 2), MLOAD(4, 4096)};
    chain[1].deps[0] = 1, chain[2].deps[0] = 2, chain[3].deps[0] = 3;
    chain[1].ndeps = chain[2].ndeps = chain[3].ndeps = 1;
    chain[3].type = STORE;
    write_set(dir, "chain", chain, 4, 4);
    EXPECT("chain", mem, 6591, 1591);
    /* a load and an independent 1 MiB All-Reduce share the communication stream: the load
     * (id 1) first, then the All-Reduce alone (43000): 21071 + 43000 */
    mnode coll[] = {MLOAD(1, 1048576), {.id = 2, .type = COLL, .bytes = 1048576}};
    write_set(dir, "coll", coll, 2, 4);
    EXPECT("coll", mem, 64071, 64071);
    /* an access of 0 ns after time 0 (latency 0, 49 bytes at 50 GB/s): the compute's 1000,
     * the loads 0 and 1 ns (51 bytes), the last compute 1000: 2000 ns, 0 exposed */
    const char *lat0 = memory(dir, "lat0", "PER_NPU_MEMORY_EXPANSION", "");
    test_spit_dq(lat0, "{'memory-type': 'PER_NPU_MEMORY_EXPANSION', 'remote-mem-latency': 0, "
                       "'remote-mem-bw': 50}");
    mnode late[] = {MCOMP(1, 1), MLOAD(2, 49), MLOAD(3, 51), MCOMP(4, 1)};
    late[1].deps[0] = 1, late[2].deps[0] = 2, late[3].deps[0] = 2;
    late[1].ndeps = late[2].ndeps = late[3].ndeps = 1;
    write_set(dir, "late", late, 4, 4);
    EXPECT("late", lat0, 2000, 0);
    test_rm_dir(dir);
}
END_TEST

/* Shared memories: the NPUs' accesses queue, first come first served, every rank replayed.
 * Each time below is also what ASTRA-sim 2.x printed for the last NPU to finish. */
START_TEST(chakra_mem_shared) {
    char *dir = test_tmp_dir();
    const char *sys = ring4(dir);
    char pool[4200];
    snprintf(pool, sizeof pool, "%s", memory(dir, "pool", "MEMORY_POOL", ""));
    /* one 1 MiB load per NPU: the pool serves rank 0, 1, 2, 3 in turn: 4 x 21071 */
    mnode one[] = {MLOAD(1, 1048576)};
    write_set(dir, "one", one, 1, 4);
    EXPECT("one", pool, 84284, 84284);
    /* two loads per NPU, one after the other on its communication stream: rank 0's second
     * (issued at 21071, when its first ends) queues behind ranks 1-3's first loads, so the
     * pool serves the four first loads, then the four second ones: 4 x 21071 + 4 x 10585 */
    mnode two[] = {MLOAD(1, 1048576), MLOAD(2, 524288)};
    write_set(dir, "two", two, 2, 4);
    EXPECT("two", pool, 126624, 126624);
    /* a chain, compute 3 us, load 64 KiB (1410), compute 2 us, store 4 KiB (181): the loads
     * queue at 3000 and end at 4410, 5820, 7230, 8640; the stores of ranks 0 and 1 (issued
     * at 6410 and 7820) wait for rank 3's load, then run 8640-8821 and 8821-9002, rank 2's
     * 9230-9411, rank 3's at 8640 + 2000: 10640 + 181 */
    mnode chain[] = {MCOMP(1, 3), MLOAD(2, 65536), MCOMP(3, 2), MLOAD(4, 4096)};
    chain[1].deps[0] = 1, chain[2].deps[0] = 2, chain[3].deps[0] = 3;
    chain[1].ndeps = chain[2].ndeps = chain[3].ndeps = 1;
    chain[3].type = STORE;
    write_set(dir, "chain", chain, 4, 4);
    EXPECT("chain", pool, 10821, 5821);
    /* a memory per node of 2 NPUs: ranks 0 and 1 share one, 2 and 3 the other. With a 5 us
     * compute beside: rank 1's load waits for rank 0's: 2 x 21071 */
    const char *node = memory(dir, "node", "PER_NODE_MEMORY_EXPANSION", "");
    mnode comp[] = {MCOMP(1, 5), MLOAD(2, 1048576)};
    write_set(dir, "comp", comp, 2, 4);
    EXPECT("comp", node, 42142, 37142);
    /* two loads per NPU on the node memories: 2 x 21071 + 2 x 10585 */
    EXPECT("two", node, 63312, 63312);
    /* ranks of two graphs: ranks 0 and 1 load 1 MiB at once, ranks 2 and 3 after a 5 us
     * compute. The pool serves rank 0 (0-21071), then rank 1 (-42142), rank 2 (-63213), rank 3
     * (-84284): the classes end at 42142 and 84284 (exposed 84284 - 5000). The node memories:
     * ranks 0 and 1 end at 21071 and 42142, ranks 2 and 3 at 5000 + 21071 = 26071 and 47142 */
    mnode after[] = {MCOMP(1, 5), MLOAD(2, 1048576)};
    after[1].deps[0] = 1, after[1].ndeps = 1;
    write_classes(dir, "cls", one, 1, after, 2, 2);
    EXPECT("cls", pool, 84284, 79284);
    EXPECT("cls", node, 47142, 42142);
    test_cli_out r;
    test_cli(&r, "train '%s/cls' -s '%s' --remote-memory '%s' -p baseline -q fifo -f json", dir,
             sys, pool);
    test_expect_quiet(&r, "cls");
    ck_assert_ptr_nonnull(strstr(r.out, "\"class_end_us\":\t[42.142, 84.284]"));
    test_cli_free(&r);
    test_rm_dir(dir);
}
END_TEST

/* Under the analytical model a memory node does not hold the communication stream (as
 * collectives do not there): two loads on one memory per NPU overlap, max(21071, 10585). */
START_TEST(chakra_mem_analytical) {
    char *dir = test_tmp_dir();
    const char *mem = memory(dir, "npu", "PER_NPU_MEMORY_EXPANSION", "");
    mnode two[] = {MLOAD(1, 1048576), MLOAD(2, 524288)};
    write_set(dir, "two", two, 2, 4);
    double it, ex;
    const char *sys = test_dpath("cli_ring4.json");
    train(dir, "two", sys, mem, &it, &ex);
    ck_assert_rel(it, 21071);
    ck_assert_rel(ex, 21071);
    test_rm_dir(dir);
}
END_TEST

/* The key in sweeps and the option's JSON form (the API's). */
START_TEST(chakra_mem_sweep) {
    char *dir = test_tmp_dir();
    const char *sys = ring4(dir);
    memory(dir, "pool", "MEMORY_POOL", "");
    mnode one[] = {MLOAD(1, 1048576)};
    write_set(dir, "one", one, 1, 4);
    char text[8192];
    snprintf(text, sizeof text,
             "{'name': 'mem', 'system': '%s', 'workload': 'one', 'remote_memory': 'pool.json', "
             "'axes': {'intra': ['fifo', 'scf']}}",
             sys);
    test_csv c;
    test_sweep_csv(&c, dir, text);
    ck_assert_int_eq(c.nrows, 2);
    for (int i = 0; i < 2; i++)
        ck_assert_rel(test_csv_d(&c, i, "iteration_us") * 1000, 84284); /* as above */
    test_csv_free(&c);
    /* without a trace the key is refused */
    snprintf(text, sizeof text, "{'name': 'mem', 'workload': '%s', 'remote_memory': 'pool.json'}",
             test_dpath("../../models/workloads/resnet50.json"));
    TEST_DIR_PATH(spec, dir, "spec.json");
    test_spit_dq(spec, text);
    test_bad("remote_memory: for workloads that have memory nodes", "sweep '%s' -o -", spec);
    test_rm_dir(dir);
}
END_TEST

/* Every refusal: exit 2 naming the file, the node or key, and why. */
START_TEST(chakra_mem_refused) {
    char *dir = test_tmp_dir();
    const char *sys = ring4(dir);
    mnode one[] = {MLOAD(1, 1048576)};
    write_set(dir, "one", one, 1, 4);
    test_bad("node 1: type: MEM_LOAD_NODE: a memory node needs a remote memory (--remote-memory",
             "train '%s/one' -s '%s'", dir, sys);
    const char *none = memory(dir, "none", "NO_MEMORY_EXPANSION", "");
    test_bad("memory-type NO_MEMORY_EXPANSION has no remote memory",
             "train '%s/one' -s '%s' "
             "--remote-memory '%s'",
             dir, sys, none);
    mnode bare[] = {{.id = 7, .type = LOAD, .notensor = 1}};
    write_set(dir, "bare", bare, 1, 4);
    const char *npu = memory(dir, "npu", "PER_NPU_MEMORY_EXPANSION", "");
    test_bad("node 7: attr tensor_size: missing", "train '%s/bare' -s '%s' --remote-memory '%s'",
             dir, sys, npu);
    write_classes(dir, "bare2", one, 1, bare, 1, 2); /* named by the first rank of its class */
    test_bad("bare2.2.et: node 7: attr tensor_size: missing",
             "train '%s/bare2' -s '%s' --remote-memory '%s'", dir, sys, npu);
    /* shared memories replay every rank: graphs of compute, memory and invalid nodes only */
    mnode coll[] = {MLOAD(1, 1048576), {.id = 2, .type = COLL, .bytes = 1048576}};
    write_set(dir, "coll", coll, 2, 4);
    const char *pool = memory(dir, "pool", "MEMORY_POOL", "");
    test_bad("node 2: type: COMM_COLL_NODE: with memory-type MEMORY_POOL",
             "train '%s/coll' -s '%s' --remote-memory '%s'", dir, sys, pool);
    /* an access of 0 ns at time 0 stops ASTRA-sim (an assertion of its event queue) */
    const char *zero = memory(dir, "zero", "MEMORY_POOL", "");
    test_spit_dq(zero, "{'memory-type': 'MEMORY_POOL', 'remote-mem-bw': 50}");
    mnode small[] = {MLOAD(3, 49)};
    write_set(dir, "small", small, 1, 4);
    test_bad("node 3: attr tensor_size: 49 bytes at remote-mem-latency 0 and remote-mem-bw 50",
             "train '%s/small' -s '%s' --remote-memory '%s'", dir, sys, zero);
    /* rank 3's load is ready once its invalid node ended, at time 0, and rank 3 has no event
     * after that would issue it (the other ranks' compute is theirs): ASTRA-sim leaves rank 3
     * unfinished */
    mnode c1[] = {MCOMP(1, 1)}, inv[] = {{.id = 1, .type = INVALID}, MLOAD(2, 64)};
    inv[1].deps[0] = 1, inv[1].ndeps = 1;
    write_classes(dir, "stall", c1, 1, inv, 2, 3);
    test_bad("stall.3.et: node 2: ready only once an invalid node ended, and no event of rank 3",
             "train '%s/stall' -s '%s' --remote-memory '%s'", dir, sys, npu);
    /* the configuration file */
    static const char *const bad[][2] = {
        {"{'memory-type': 'POOL'}", "memory-type"},
        {"{'remote-mem-bw': 5}", "memory-type: missing"},
        {"{'memory-type': 'MEMORY_POOL', 'remote-mem-bw': 0}", "remote-mem-bw: 0, expected"},
        {"{'memory-type': 'MEMORY_POOL'}", "remote-mem-bw: missing"},
        {"{'memory-type': 'MEMORY_POOL', 'remote-mem-bw': 1.5}", "remote-mem-bw: expected a whole"},
        {"{'memory-type': 'MEMORY_POOL', 'remote-mem-bw': 5, 'remote-mem-latency': -1}",
         "remote-mem-latency: expected a whole number >= 0"},
        {"{'memory-type': 'MEMORY_POOL', 'remote-mem-bw': 5, 'latency': 1}", "latency"},
        {"{'memory-type': 'PER_NODE_MEMORY_EXPANSION', 'remote-mem-bw': 5, 'num-nodes': 2}",
         "num-npus-per-node: missing"},
        {"{'memory-type': 'PER_NODE_MEMORY_EXPANSION', 'remote-mem-bw': 5, 'num-nodes': 1, "
         "'num-npus-per-node': 2}",
         "num-nodes: 1 nodes of 2 NPUs hold 2 NPUs, fewer than the 4 of system"},
        {"[1]", "expected an object"},
    };
    TEST_DIR_PATH(cfg, dir, "bad.json");
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        test_spit_dq(cfg, bad[i][0]);
        test_bad(bad[i][1], "train '%s/one' -s '%s' --remote-memory '%s'", dir, sys, cfg);
    }
    /* the option is for Chakra traces */
    test_bad("--remote-memory is for Chakra execution traces", "train '%s' --remote-memory '%s'",
             test_dpath("../../models/workloads/resnet50.json"), npu);
    test_rm_dir(dir);
}
END_TEST

Suite *chakra_mem_suite(void) {
    Suite *s = suite_create("chakra_mem");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, chakra_mem_per_npu);
    tcase_add_test(tc, chakra_mem_shared);
    tcase_add_test(tc, chakra_mem_analytical);
    tcase_add_test(tc, chakra_mem_sweep);
    tcase_add_test(tc, chakra_mem_refused);
    suite_add_tcase(s, tc);
    return s;
}

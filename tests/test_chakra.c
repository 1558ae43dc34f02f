/* Chakra execution traces: traces written here with protobuf-c (a small writer below), read
 * and replayed by `themis train`, with times derived by hand from ASTRA-sim 2.x's rules
 * (docs/CHAKRA.md, SPEC §9) and from SPEC §3 for the analytical model, and every kind of bad
 * trace refused with exit 2 naming the file, the node and the field.
 *
 * The astra-sim systems are imported from tests/data/chakra/ (ASTRA-sim 2.x's Ring_<N>npus
 * network and Ring_4chunks system, written out here): one ring of N NPUs at 50 GB/s
 * (B = 50 * 2^30 / 1e9 = 53.687091 bytes/ns) and 500 ns, endpoint delay ep = 10 ns, local
 * memory 1600 GB/s (proc(b) = 3 floor(b / 1600)), 4 chunks, baseline + FIFO. A 1 MiB
 * collective runs 4 chunks of c = 262144 bytes one after the other on the one dim. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "chakra/chakra.h"
#include "chakra/et_def.pb-c.h"
#include "check_chakra.h"
#include "check_themis.h"

/* ---- a small trace writer ---- */

enum { COMP = 4, SEND = 5, RECV = 6, COLL = 7, META = 1, AR = 0, AG = 2, A2A = 6, RS = 7 };

/* One node as the tests write it. */
typedef struct wnode {
    uint64_t id;
    int type;        /* NodeType */
    uint64_t micros; /* duration_micros */
    int comm;        /* comm_type, or -1 for none */
    uint64_t size;   /* comm_size (COLL) */
    uint64_t data[4], ctrl[4];
    int ndata, nctrl;
    int ndims; /* involved_dim length (0: absent, -1: an empty list) */
    int dims[4];
    uint64_t ops, tensor; /* num_ops, tensor_size (0: absent) */
    int peer;             /* SEND, RECV: comm_dst, comm_src as an offset from the rank */
    const char *pg;       /* pg_name (NULL: absent) */
} wnode;

/* The rank being written and the ranks of its trace (write_trace's peers). */
static int w_rank, w_ranks = 1;

/* Writes the nodes (ids offset by `off`, as the ranks of one trace are) to path. */
static void write_trace(const char *path, const wnode *w, int n, uint64_t off) {
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ChakraProtoMsg__GlobalMetadata md = CHAKRA_PROTO_MSG__GLOBAL_METADATA__INIT;
    md.version = "0.0.4";
    test_put_msg(f, &md.base);
    for (int i = 0; i < n; i++) {
        ChakraProtoMsg__Node x = CHAKRA_PROTO_MSG__NODE__INIT;
        ChakraProtoMsg__AttributeProto a[8], *ap[8];
        ChakraProtoMsg__BoolList bl = CHAKRA_PROTO_MSG__BOOL_LIST__INIT;
        protobuf_c_boolean bv[4];
        uint64_t data[4], ctrl[4];
        char name[32];
        snprintf(name, sizeof name, "n%llu", (unsigned long long)w[i].id);
        x.id = w[i].id + off;
        x.name = name;
        x.type = (ChakraProtoMsg__NodeType)w[i].type;
        x.duration_micros = w[i].micros;
        for (int k = 0; k < w[i].ndata; k++)
            data[k] = w[i].data[k] + off;
        for (int k = 0; k < w[i].nctrl; k++)
            ctrl[k] = w[i].ctrl[k] + off;
        x.n_data_deps = (size_t)w[i].ndata, x.data_deps = data;
        x.n_ctrl_deps = (size_t)w[i].nctrl, x.ctrl_deps = ctrl;
        int na = 0;
        if (w[i].type == SEND || w[i].type == RECV) { /* peer, tag 0, size */
            const char *names[3] = {w[i].type == SEND ? "comm_dst" : "comm_src", "comm_tag",
                                    "comm_size"};
            int64_t vals[3] = {((w_rank + w[i].peer) % w_ranks + w_ranks) % w_ranks, 0,
                               (int64_t)w[i].size};
            for (int k = 0; k < 3; k++) {
                ChakraProtoMsg__AttributeProto v = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__INIT;
                v.name = (char *)names[k];
                v.value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT64_VAL;
                v.int64_val = vals[k];
                a[na++] = v;
            }
        }
        if (w[i].comm >= 0) {
            ChakraProtoMsg__AttributeProto t = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__INIT;
            t.name = "comm_type";
            t.value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT64_VAL;
            t.int64_val = w[i].comm;
            a[na++] = t;
            ChakraProtoMsg__AttributeProto s = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__INIT;
            s.name = "comm_size";
            s.value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_UINT64_VAL;
            s.uint64_val = w[i].size;
            a[na++] = s;
        }
        if (w[i].ndims) {
            ChakraProtoMsg__AttributeProto d = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__INIT;
            int nd = w[i].ndims < 0 ? 0 : w[i].ndims;
            for (int k = 0; k < nd; k++)
                bv[k] = w[i].dims[k];
            bl.n_values = (size_t)nd, bl.values = nd ? bv : NULL;
            d.name = "involved_dim";
            d.value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_BOOL_LIST;
            d.bool_list = &bl;
            a[na++] = d;
        }
        if (w[i].pg) {
            ChakraProtoMsg__AttributeProto v = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__INIT;
            v.name = "pg_name";
            v.value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_STRING_VAL;
            v.string_val = (char *)w[i].pg;
            a[na++] = v;
        }
        const char *names[2] = {"num_ops", "tensor_size"};
        uint64_t vals[2] = {w[i].ops, w[i].tensor};
        for (int k = 0; k < 2; k++) {
            if (!vals[k]) continue;
            ChakraProtoMsg__AttributeProto v = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__INIT;
            v.name = (char *)names[k];
            v.value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_UINT64_VAL;
            v.uint64_val = vals[k];
            a[na++] = v;
        }
        for (int k = 0; k < na; k++)
            ap[k] = &a[k];
        x.n_attr = (size_t)na, x.attr = ap;
        test_put_msg(f, &x.base);
    }
    ck_assert_int_eq(fclose(f), 0);
}

/* Writes `ranks` files dir/name.<k>.et of the same graph (ids offset by 1000 k). */
static void write_set(const char *dir, const char *name, const wnode *w, int n, int ranks) {
    for (int k = 0; k < ranks; k++) {
        char path[4200];
        snprintf(path, sizeof path, "%s/%s.%d.et", dir, name, k);
        w_rank = k, w_ranks = ranks;
        write_trace(path, w, n, 1000u * (uint64_t)k);
    }
}

#define COMPUTE(i, us)                                                                             \
    { .id = (i), .type = COMP, .micros = (us), .comm = -1 }
#define COLLECTIVE(i, t, s)                                                                        \
    { .id = (i), .type = COLL, .comm = (t), .size = (s) }

/* The astra-sim system of ASTRA-sim network and system files of tests/data/ written to out. */
static void import_astra(const char *net, const char *sys, const char *out) {
    test_cli_out r;
    test_cli(&r, "import-astra '%s' '%s' -o '%s' --force", test_dpath(net), test_dpath(sys), out);
    test_expect_ok(&r, "import-astra");
    test_cli_free(&r);
}

/* The astra-sim system of net and sys (as import_astra) into sys_out, and on it the workload at
 * path wl of the source tree written by export-chakra as trace. */
static void export_on_astra(const char *net, const char *sys, const char *wl, const char *sys_out,
                            const char *trace) {
    import_astra(net, sys, sys_out);
    const char *src = getenv("THEMIS_SRCDIR");
    test_cli_out r;
    test_cli(&r, "export-chakra '%s/%s' -s '%s' -o '%s' --force", src ? src : ".", wl, sys_out,
             trace);
    test_expect_ok(&r, "export-chakra");
    test_cli_free(&r);
}

/* An astra-sim system of one ring of n NPUs imported from tests/data/chakra/ into dir. */
static const char *astra_system(const char *dir, int n) {
    static char out[4200];
    char net[64];
    snprintf(out, sizeof out, "%s/ring%d.json", dir, n);
    snprintf(net, sizeof net, "chakra/Ring_%dnpus.yml", n);
    import_astra(net, "chakra/Ring_4chunks.json", out);
    return out;
}

/* Runs train on the trace (prefix or file) and returns its CSV. */
static void train(test_csv *c, const char *trace, const char *sys, const char *more) {
    test_cli_out r;
    test_cli(&r, "train '%s' -s '%s' -f csv %s", trace, sys, more);
    test_expect_quiet(&r, trace);
    test_csv_parse(c, r.out);
    test_cli_free(&r);
}

/* The trace's one row: its iteration and exposed communication, in ns. */
static void expect_times(const char *trace, const char *sys, const char *more, double iteration,
                         double exposed) {
    test_csv c;
    train(&c, trace, sys, more);
    ck_assert_int_eq(c.nrows, 1);
    ck_assert_rel(test_csv_d(&c, 0, "iteration_us") * 1000.0, iteration);
    ck_assert_rel(test_csv_d(&c, 0, "exposed_comm_us") * 1000.0, exposed);
    test_csv_free(&c);
}

static double iteration(const char *trace, const char *sys, const char *more) {
    test_csv c;
    train(&c, trace, sys, more);
    ck_assert_int_eq(c.nrows, 1);
    double v = test_csv_d(&c, 0, "iteration_us") * 1000.0;
    test_csv_free(&c);
    return v;
}

/* One measured export: the workload wl (source tree) written on the astra-sim system of net and
 * sys into dir (files named by k), replayed with its iteration and exposed communication. */
static void expect_exported(const char *dir, int k, const char *net, const char *sys,
                            const char *wl, double iteration, double exposed) {
    char sys_out[4200], trace[4200];
    snprintf(sys_out, sizeof sys_out, "%s/s%d.json", dir, k);
    snprintf(trace, sizeof trace, "%s/t%d", dir, k);
    export_on_astra(net, sys, wl, sys_out, trace);
    expect_times(trace, sys_out, "", iteration, exposed);
}

/* expect_exported in a directory of its own, removed after. */
static void expect_measured(const char *net, const char *sys, const char *wl, double iteration,
                            double exposed) {
    char *dir = test_tmp_dir();
    expect_exported(dir, 0, net, sys, wl, iteration, exposed);
    test_rm_dir(dir);
}

/* A trace written by export-chakra on an imported ASTRA-sim system, in a directory of its own:
 * train refuses it, the message naming rank 0's file and then `message`. */
static void expect_refused(const char *net, const char *sys_in, const char *wl,
                           const char *message) {
    char *dir = test_tmp_dir();
    TEST_DIR_PATH(sys, dir, "sys.json");
    TEST_DIR_PATH(trace, dir, "t");
    export_on_astra(net, sys_in, wl, sys, trace);
    char need[4400];
    snprintf(need, sizeof need, "%s.0.et: %s", trace, message);
    test_bad(need, "train '%s' -s '%s'", trace, sys);
    test_rm_dir(dir);
}

/* ---- ASTRA-sim 2.x's microbenchmarks: one 1 MiB collective per NPU ----
 *
 * Baseline, one dim: every chunk is one phase of s = c = 262144 bytes, the chunks one after
 * the other (one queue, one active chunk), so the time is 4 phases (SPEC §9):
 *   AR phase: ep + 2 (p-1) (net(s/p) + ep) + (p-1) proc(s/p)
 *   RS phase: ep + (p-1) (net(s/p) + ep + proc(s/p))
 *   AG phase: ep + (p-1) (net(s) + ep)     (the size is what each NPU holds before)
 *   A2A phase: ep + p (p-1) / 2 (net(s/p) + ep)   (ASTRA-sim's Ring for All_to_All)
 * with net(b) = floor(500 + b / 53.687091):
 *   p = 4:  s/p = 65536: net 1720, proc 3 floor(40.96) = 120; net(s) = floor(500 + 4882.8125)
 *           = 5382. AR 10 + 6 * 1730 + 3 * 120 = 10750 (x4 = 43000); RS 10 + 3 * 1850 = 5560
 *           (x4 = 22240); AG 10 + 3 * 5392 = 16186 (x4 = 64744).
 *   p = 8:  s/p = 32768: net floor(500 + 610.35) = 1110, proc 3 * 20 = 60. AR 10 + 14 * 1120 +
 *           7 * 60 = 16110 (x4 = 64440); RS 10 + 7 * 1180 = 8270 (x4 = 33080); AG 10 + 7 * 5392
 *           = 37754 (x4 = 151016).
 *   p = 16: s/p = 16384: net floor(500 + 305.18) = 805, proc 3 * 10 = 30. AR 10 + 30 * 815 +
 *           15 * 30 = 24910 (x4 = 99640); RS 10 + 15 * 845 = 12685 (x4 = 50740); AG 10 + 15 *
 *           5392 = 80890 (x4 = 323560).
 *   A2A: p = 4: 10 + 6 * 1730 = 10390 (x4 = 41560); p = 8: 10 + 28 * 1120 = 31370 (x4 =
 *           125480); p = 16: 10 + 120 * 815 = 97810 (x4 = 391240).
 * These are the times ASTRA-sim 2.x prints for its own microbenchmark traces on these files. */
START_TEST(chakra_microbenchmarks) {
    static const struct {
        int comm, npus;
        double ns;
    } v[] = {{AR, 4, 43000},   {AR, 8, 64440},  {AR, 16, 99640},  {RS, 4, 22240},
             {RS, 8, 33080},   {RS, 16, 50740}, {AG, 4, 64744},   {AG, 8, 151016},
             {AG, 16, 323560}, {A2A, 4, 41560}, {A2A, 8, 125480}, {A2A, 16, 391240}};
    char *dir = test_tmp_dir();
    for (size_t i = 0; i < sizeof v / sizeof *v; i++) {
        wnode w[] = {COLLECTIVE(0, v[i].comm, 1048576)};
        char name[32], prefix[4200];
        snprintf(name, sizeof name, "mb%zu", i);
        write_set(dir, name, w, 1, v[i].npus);
        snprintf(prefix, sizeof prefix, "%s/%s", dir, name);
        const char *sys = astra_system(dir, v[i].npus);
        test_csv c;
        train(&c, prefix, sys, "-p baseline -q fifo");
        ck_assert_int_eq(c.nrows, 1);
        ck_assert_rel(test_csv_d(&c, 0, "iteration_us") * 1000, v[i].ns);
        ck_assert_rel(test_csv_d(&c, 0, "compute_us"), 0);
        ck_assert_rel(test_csv_d(&c, 0, "exposed_comm_us") * 1000, v[i].ns);
        ck_assert_int_eq((int)test_csv_d(&c, 0, "collectives"), 1);
        test_csv_free(&c);
        /* one file of the set names the same trace */
        char file[4300];
        snprintf(file, sizeof file, "%s.%d.et", prefix, v[i].npus - 1);
        ck_assert_rel(iteration(file, sys, "-p baseline -q fifo"), v[i].ns);
    }
    test_rm_dir(dir);
}
END_TEST

/* ---- graphs with compute and dependencies, under the astra-sim preset (ring of 4) ---- */

/* A compute node costs 1000 x duration_micros ns, 1 ns when that is 0; a collective starts
 * when its parents end; an All-Reduce of 1 MiB takes 43000 ns (above).
 *   chain: C(5 us) -> AR -> C(0 us): 5000 + 43000 + 1 = 48001 ns; compute 5001, exposed 43000.
 *   join: roots C1 (10 us, id 1) and AR (id 2) start at 0; C3 (2 us) waits for AR (data) and
 *   C1 (ctrl): max(10000, 43000) + 2000 = 45000; compute 12000, exposed 33000.
 *   serial: two root All-Reduces (ids 1, 2): one collective in flight per NPU: 86000.
 *   id order: roots C5 (2 us, id 5) and C3 (1 us, id 3) share the compute stream; the smaller
 *   id goes first: C3 0-1000, C5 1000-3000, then AR (id 7, after C5) 3000-46000. */
START_TEST(chakra_graphs_astra) {
    char *dir = test_tmp_dir();
    const char *sys = astra_system(dir, 4);
    wnode chain[] = {COMPUTE(0, 5), COLLECTIVE(1, AR, 1048576), COMPUTE(2, 0)};
    chain[1].data[0] = 0, chain[1].ndata = 1;
    chain[2].data[0] = 1, chain[2].ndata = 1;
    wnode join[] = {COMPUTE(1, 10), COLLECTIVE(2, AR, 1048576), COMPUTE(3, 2)};
    join[2].data[0] = 2, join[2].ndata = 1;
    join[2].ctrl[0] = 1, join[2].nctrl = 1;
    wnode serial[] = {COLLECTIVE(1, AR, 1048576), COLLECTIVE(2, AR, 1048576)};
    wnode order[] = {COMPUTE(5, 2), COMPUTE(3, 1), COLLECTIVE(7, AR, 1048576)};
    order[2].data[0] = 5, order[2].ndata = 1;
    static const struct {
        const char *name;
        double ns, compute;
    } want[] = {{"chain", 48001, 5001},
                {"join", 45000, 12000},
                {"serial", 86000, 0},
                {"order", 46000, 3000}};
    const wnode *g[] = {chain, join, serial, order};
    const int n[] = {3, 3, 2, 3};
    for (int i = 0; i < 4; i++) {
        write_set(dir, want[i].name, g[i], n[i], 4);
        TEST_DIR_PATH(prefix, dir, want[i].name);
        test_csv c;
        train(&c, prefix, sys, "-p baseline -q fifo");
        ck_assert_rel(test_csv_d(&c, 0, "iteration_us") * 1000, want[i].ns);
        ck_assert_rel(test_csv_d(&c, 0, "compute_us") * 1000, want[i].compute);
        ck_assert_rel(test_csv_d(&c, 0, "exposed_comm_us") * 1000, want[i].ns - want[i].compute);
        test_csv_free(&c);
    }
    test_rm_dir(dir);
}
END_TEST

/* An invalid node ends as soon as it is issued; what it makes ready waits for the next event
 * (ASTRA-sim issues from the ready set as it was when the call began). Roots I (id 1) and
 * C2 (1 us); C3 (2 us) after I: C2 0-1000, C3 1000-3000. Without C2 nothing would follow I and
 * ASTRA-sim would never issue C3: refused. A metadata node stops ASTRA-sim: refused. */
START_TEST(chakra_metadata) {
    char *dir = test_tmp_dir();
    const char *sys = astra_system(dir, 4);
    wnode w[] = {{.id = 1, .type = 0, .comm = -1}, COMPUTE(2, 1), COMPUTE(3, 2)};
    w[2].data[0] = 1, w[2].ndata = 1;
    write_set(dir, "inv", w, 3, 4);
    TEST_DIR_PATH(prefix, dir, "inv");
    ck_assert_rel(iteration(prefix, sys, "-p baseline -q fifo"), 3000);
    wnode lone[] = {{.id = 1, .type = 0, .comm = -1}, COMPUTE(3, 2)};
    lone[1].data[0] = 1, lone[1].ndata = 1;
    write_set(dir, "lone", lone, 2, 4);
    TEST_DIR_PATH(p2, dir, "lone");
    test_bad("node 3: ready only once an invalid node ended", "train '%s' -s '%s'", p2, sys);
    wnode meta[] = {{.id = 1, .type = META, .comm = -1}, COMPUTE(2, 1)};
    write_set(dir, "meta", meta, 2, 4);
    test_bad("node 1: type: METADATA_NODE", "train '%s/meta' -s '%s'", dir, sys);
    test_rm_dir(dir);
}
END_TEST

/* roofline-enabled (tests/data/chakra/Ring_4chunks_roofline.json: peak-perf 900 TFLOPS,
 * local-mem-bw 1600 GB/s): a GPU compute node costs num_ops / min(1.6e12 * num_ops /
 * tensor_size, 9e14) s, truncated to ns. C1: num_ops 1e9, tensor_size 1e6: intensity 1000,
 * 1.6e15 > 9e14, so 1e9 / 9e14 s = 1111.1 ns -> 1111 (its duration, 50 us, is not used);
 * then the All-Reduce (43000): 44111 ns, compute 1111. A GPU compute node without num_ops is
 * refused. */
START_TEST(chakra_roofline) {
    char *dir = test_tmp_dir();
    TEST_DIR_PATH(sys, dir, "roof.json");
    import_astra("chakra/Ring_4npus.yml", "chakra/Ring_4chunks_roofline.json", sys);
    char *text = test_slurp(sys, NULL);
    ck_assert_ptr_nonnull(strstr(text, "\"roofline_TFLOPS\":\t900"));
    free(text);
    wnode w[] = {COMPUTE(1, 50), COLLECTIVE(2, AR, 1048576)};
    w[0].ops = 1000000000, w[0].tensor = 1000000;
    w[1].data[0] = 1, w[1].ndata = 1;
    write_set(dir, "roof", w, 2, 4);
    TEST_DIR_PATH(prefix, dir, "roof");
    test_csv c;
    train(&c, prefix, sys, "-p baseline -q fifo");
    ck_assert_rel(test_csv_d(&c, 0, "iteration_us") * 1000, 44111);
    ck_assert_rel(test_csv_d(&c, 0, "compute_us") * 1000, 1111);
    test_csv_free(&c);
    wnode bare[] = {COMPUTE(1, 50)};
    write_set(dir, "bare", bare, 1, 1);
    test_bad("node 1: attr tensor_size: missing under the system's roofline",
             "train '%s/bare' -s '%s'", dir, sys);
    test_rm_dir(dir);
}
END_TEST

/* Several collectives on a 3-D system under Themis: rank 0's scheduler makes every schedule,
 * made by the NPU that generates the collective first: when that is another NPU than rank 0,
 * from the loads and list the last schedule left (rank 0 resets them only as it generates the
 * collective in turn). Here every All-Reduce ends first on another NPU (28 after the first
 * one, docs/CHAKRA.md), whose generation comes first. Vectors measured with ASTRA-sim 2.x
 * (astra-sim 518bd51, astra-network-analytical 599a047, chakra f37c2bb, congestion-unaware backend,
 * its Sys.cc made to read the inter-/intra-dimension-scheduling keys that 518bd51 leaves unread) on
 * tests/data/chakra/r4_fc4_s4.yml (Ring 4 @ 200/50, FC 4 @ 100/100, Switch 4 @ 50/100) with
 * themis_SCF_3d_s4.json (4 splits), traces of the same graph on its 64 NPUs:
 *   four independent 1 MiB All-Reduces (one after the other): Themis + SCF 55833 ns (each
 *   planned from fresh loads: 56888), baseline + FIFO 44912;
 *   AR -> AG -> RS -> A2A, 1 MiB each: Themis + SCF 565945 (fresh: 606979), baseline + FIFO
 *   339803. */
START_TEST(chakra_themis_across_collectives) {
    char *dir = test_tmp_dir();
    TEST_DIR_PATH(sys, dir, "t3.json");
    import_astra("chakra/r4_fc4_s4.yml", "chakra/themis_SCF_3d_s4.json", sys);
    wnode four[] = {COLLECTIVE(0, AR, 1048576), COLLECTIVE(1, AR, 1048576),
                    COLLECTIVE(2, AR, 1048576), COLLECTIVE(3, AR, 1048576)};
    wnode chain[] = {COLLECTIVE(0, AR, 1048576), COLLECTIVE(1, AG, 1048576),
                     COLLECTIVE(2, RS, 1048576), COLLECTIVE(3, A2A, 1048576)};
    for (int k = 1; k < 4; k++)
        chain[k].data[0] = (uint64_t)k - 1, chain[k].ndata = 1;
    write_set(dir, "four", four, 4, 64);
    write_set(dir, "chain", chain, 4, 64);
    TEST_DIR_PATH(p4, dir, "four");
    TEST_DIR_PATH(pc, dir, "chain");
    ck_assert_rel(iteration(p4, sys, "-p themis -q scf"), 55833);
    ck_assert_rel(iteration(p4, sys, ""), 55833); /* the system's run.policy and run.intra */
    ck_assert_rel(iteration(p4, sys, "-p baseline -q fifo"), 44912);
    ck_assert_rel(iteration(pc, sys, "-p themis -q scf"), 565945);
    ck_assert_rel(iteration(pc, sys, "-p baseline -q fifo"), 339803);
    test_rm_dir(dir);
}
END_TEST

/* The NPU that generates a collective first, as the order of the NPUs' events gives it
 * (docs/CHAKRA.md: each ring phase moves the first NPU along its dim by its chain of messages).
 * Measured with ASTRA-sim 2.x (the same build as above) on r4_fc4_s4.yml:
 *   a 64 MiB All-Reduce, then a 1 MiB one that depends on it (themis_SCF_3d_s4.json):
 *   603958 ns: the 64 MiB one ends first on rank 0, which plans the second from fresh loads
 *   (from the loads the first left, as the rule "another NPU after an All-Reduce" had it:
 *   601004);
 *   models/workloads/dlrm.json written by export-chakra on the system of themis_SCF_3d_s16.json
 *   (16 splits; 10 collectives between its compute nodes): Themis + FIFO 1170449 ns, exposed
 *   926449; Themis + SCF 1162162, exposed 918162 (with the rule "another NPU after an
 *   All-Reduce, rank 0 after any other collective": 1169788 and 1162256);
 *   on r2_s8_r4.yml (Ring 2 @ 150/200, Switch 8 @ 400/100, Ring 4 @ 100/20) with
 *   themis_FIFO_3d_s32.json, a 64 MiB Reduce-Scatter then a 356954-byte All-Gather that
 *   depends on it: 296575 ns. Phases of its chunks on two dims hand messages over at one
 *   tick in other orders; every NPU runs both there in its place for the one registered
 *   first, whose order the other follows from then on, so NPU 12 generates the All-Gather
 *   first (logged on an ASTRA-sim build that prints it); following each chain alone names
 *   rank 0 and gives 295301. */
START_TEST(chakra_themis_first_npu) {
    char *dir = test_tmp_dir();
    TEST_DIR_PATH(s4, dir, "s4.json");
    TEST_DIR_PATH(s16, dir, "s16.json");
    import_astra("chakra/r4_fc4_s4.yml", "chakra/themis_SCF_3d_s4.json", s4);
    import_astra("chakra/r4_fc4_s4.yml", "chakra/themis_SCF_3d_s16.json", s16);
    wnode two[] = {COLLECTIVE(0, AR, 67108864), COLLECTIVE(1, AR, 1048576)};
    two[1].data[0] = 0, two[1].ndata = 1;
    write_set(dir, "two", two, 2, 64);
    TEST_DIR_PATH(p2, dir, "two");
    ck_assert_rel(iteration(p2, s4, "-p themis -q scf"), 603958);
    TEST_DIR_PATH(s32, dir, "s32.json");
    import_astra("chakra/r2_s8_r4.yml", "chakra/themis_FIFO_3d_s32.json", s32);
    wnode rs_ag[] = {COLLECTIVE(0, RS, 67108864), COLLECTIVE(1, AG, 356954)};
    rs_ag[1].data[0] = 0, rs_ag[1].ndata = 1;
    write_set(dir, "rs_ag", rs_ag, 2, 64);
    TEST_DIR_PATH(prs, dir, "rs_ag");
    ck_assert_rel(iteration(prs, s32, "-p themis -q fifo"), 296575);
    TEST_DIR_PATH(dlrm, dir, "dlrm");
    const char *src = getenv("THEMIS_SRCDIR");
    test_cli_out r;
    test_cli(&r, "export-chakra '%s/models/workloads/dlrm.json' -s '%s' -o '%s'", src ? src : ".",
             s16, dlrm);
    test_expect_ok(&r, "export-chakra");
    test_cli_free(&r);
    static const struct {
        const char *q;
        double iteration, exposed;
    } want[] = {{"-p themis -q fifo", 1170449, 926449}, {"-p themis -q scf", 1162162, 918162}};
    for (int k = 0; k < 2; k++) {
        expect_times(dlrm, s16, want[k].q, want[k].iteration, want[k].exposed);
    }
    test_rm_dir(dir);
}
END_TEST

/* After a halvingDoubling phase, the first NPU is its partner of each step in turn: its
 * coordinate on the dim XORed with the offsets (docs/CHAKRA.md). Measured with ASTRA-sim 2.x (the
 * same build as above, and one that logs the NPU that generates each collective first) on
 * r4_fc2_s2.yml (Ring 4 @ 100/100, FC 2 @ 50/100, Switch 2 @ 25/100) with
 * themis_FIFO_3d_hd_s1.json (halvingDoubling on every dim, Themis + FIFO, 1 split), a trace of
 * a 55606-byte Reduce-Scatter, a 54685-byte All-Gather that depends on it and a 189757-byte
 * Reduce-Scatter that depends on that, on its 16 NPUs: 26870 ns, all exposed. NPU 15 generates
 * the All-Gather first (each coordinate XORed with p - 1 by the Reduce-Scatter), so it is
 * planned from the loads rank 0's schedule left; NPU 0 generates the last one (the All-Gather
 * XORs them back), planned from fresh loads. */
START_TEST(chakra_themis_halving_doubling_lead) {
    char *dir = test_tmp_dir();
    TEST_DIR_PATH(sys, dir, "hd.json");
    import_astra("chakra/r4_fc2_s2.yml", "chakra/themis_FIFO_3d_hd_s1.json", sys);
    wnode chain[] = {COLLECTIVE(0, RS, 55606), COLLECTIVE(1, AG, 54685), COLLECTIVE(2, RS, 189757)};
    for (int k = 1; k < 3; k++)
        chain[k].data[0] = (uint64_t)k - 1, chain[k].ndata = 1;
    write_set(dir, "chain", chain, 3, 16);
    TEST_DIR_PATH(p, dir, "chain");
    expect_times(p, sys, "-p themis -q fifo", 26870, 26870);
    test_rm_dir(dir);
}
END_TEST

/* The direct algorithm sends to every peer at once, the next one along the phase's direction
 * last: where every peer is one hop away each NPU's last message comes from its predecessor, as
 * in one ring step; on a ring dim from the peer p / 2 hops away (docs/CHAKRA.md). Measured with
 * ASTRA-sim 2.x (the same builds as above), direct on every dim, Themis + FIFO:
 *   r2_r2.yml (Ring 2 @ 200/500, Ring 2 @ 150/50) with themis_FIFO_2d_direct_s2.json (2
 *   splits), an 8196000-byte All-Gather on dim 0 (involved_dim [true, false]) and a
 *   823595-byte All-Gather on both dims that depends on it, on 4 NPUs: 52077 ns, all exposed
 *   (each of the first one's two chunks passes the order along dim 0 once: NPU 0 generates the
 *   second first, as logged);
 *   r8_fc4_fc2.yml (Ring 8 @ 400/50, FC 4 @ 12.5/500, FC 2 @ 150/50) with
 *   themis_FIFO_3d_direct_s8.json (8 splits), a 4194304-byte All-Gather and a 65536-byte
 *   Reduce-Scatter that depends on it, on 64 NPUs: 698857 ns, all exposed (NPU 32 generates
 *   the Reduce-Scatter first, as logged). */
START_TEST(chakra_themis_direct_lead) {
    char *dir = test_tmp_dir();
    TEST_DIR_PATH(sys, dir, "direct.json");
    import_astra("chakra/r2_r2.yml", "chakra/themis_FIFO_2d_direct_s2.json", sys);
    wnode two[] = {COLLECTIVE(0, AG, 8196000), COLLECTIVE(1, AG, 823595)};
    two[0].ndims = 2, two[0].dims[0] = 1, two[0].dims[1] = 0;
    two[1].data[0] = 0, two[1].ndata = 1;
    write_set(dir, "two", two, 2, 4);
    TEST_DIR_PATH(p, dir, "two");
    expect_times(p, sys, "-p themis -q fifo", 52077, 52077);
    TEST_DIR_PATH(s8, dir, "direct8.json");
    import_astra("chakra/r8_fc4_fc2.yml", "chakra/themis_FIFO_3d_direct_s8.json", s8);
    wnode ag_rs[] = {COLLECTIVE(0, AG, 4194304), COLLECTIVE(1, RS, 65536)};
    ag_rs[1].data[0] = 0, ag_rs[1].ndata = 1;
    write_set(dir, "ag_rs", ag_rs, 2, 64);
    TEST_DIR_PATH(p8, dir, "ag_rs");
    expect_times(p8, s8, "-p themis -q fifo", 698857, 698857);
    test_rm_dir(dir);
}
END_TEST

/* Compute nodes that end while a halvingDoubling or direct phase runs: the ticks of those
 * phases' events are derived (docs/CHAKRA.md), so an end between two of them leaves the
 * phase's order as it was, where it was unknown before and both plans were tried (here they
 * differ: refused). Measured with ASTRA-sim 2.x (astra-sim 518bd51 with chakra f37c2bb, its
 * analytical congestion-unaware backend, Sys.cc made to read inter-/intra-dimension-scheduling;
 * the max of its "sys[K] finished, T cycles, exposed communication E cycles" over the NPUs;
 * no_memory_expansion.json) on models/workloads/dlrm.json written by export-chakra, Themis +
 * FIFO:
 *   fc2_s2_s2.yml (FC 2 @ 12.5/1000, Switch 2 @ 150/200, Switch 2 @ 150/1000) with
 *   themis_FIFO_3d_rhd_s2.json (halvingDoubling on the two switches, 2 splits), 8 NPUs:
 *   1501973 ns, exposed 1257973 (compute nodes end inside halvingDoubling phases);
 *   fc3_fc4.yml (FC 3 @ 50/1000, FC 4 @ 200/500) with themis_FIFO_2d_direct_rhd_s1.json
 *   (All-Reduce and Reduce-Scatter direct on the FC 3, halvingDoubling on the FC 4, 1 split),
 *   12 NPUs: 818314 ns, exposed 574314 (compute nodes end inside direct phases). */
START_TEST(chakra_themis_ends_inside_rhd_direct) {
    char *dir = test_tmp_dir();
    static const struct {
        const char *net, *sys;
        double iteration, exposed;
    } want[] = {{"chakra/fc2_s2_s2.yml", "chakra/themis_FIFO_3d_rhd_s2.json", 1501973, 1257973},
                {"chakra/fc3_fc4.yml", "chakra/themis_FIFO_2d_direct_rhd_s1.json", 818314, 574314}};
    for (int k = 0; k < 2; k++)
        expect_exported(dir, k, want[k].net, want[k].sys, "models/workloads/dlrm.json",
                        want[k].iteration, want[k].exposed);
    test_rm_dir(dir);
}
END_TEST

/* Direct and halvingDoubling phases that meet other phases at one tick, their ticks derived
 * (docs/CHAKRA.md) and the meetings ordered as ring phases' are. Measured with ASTRA-sim 2.x
 * (the same build as chakra_themis_ends_inside_rhd_direct), Themis, on traces written by
 * export-chakra:
 *   tests/data/wl_chakra_direct_chain.json (a Reduce-Scatter, two All-Reduces, an All-Gather
 *   and an All-to-All with compute between them) on r2_s4.yml (Ring 2 @ 400/200, Switch 4 @
 *   12.5/200) with themis_SCF_2d_direct_s32.json (direct on both dims, SCF, 32 splits):
 *   746377 ns, exposed 571377 (without checking the direct phases' meetings, and so before
 *   their ticks were derived: 742297);
 *   models/workloads/astra/resnet50.txt on s4_r2_s2.yml (Switch 4 @ 50/200, Ring 2 @
 *   200/1000, Switch 2 @ 12.5/100) with themis_FIFO_3d_rhd_direct_s64.json (halvingDoubling
 *   on the Switch 4, direct on the others, FIFO, 64 splits): 9572794 ns, exposed 3107794
 *   (without the meetings of either kind the order differs; before, refused);
 *   models/workloads/dlrm.json on fc4_r8_fc2.yml (FC 4 @ 12.5/1000, Ring 8 @ 150/20, FC 2 @
 *   150/100) with themis_FIFO_3d_hd_direct_s64.json (halvingDoubling on the FC 4, direct on
 *   the others, FIFO, 64 splits), 64 NPUs: 2841986 ns, exposed 2597986; the direct phases on
 *   the Ring 8 meet others at the ticks where the messages of the peers h hops away arrive (the
 *   first NPU h places on; without those meetings: 2841001). */
START_TEST(chakra_themis_meetings_rhd_direct) {
    char *dir = test_tmp_dir();
    const char *chain = "tests/data/wl_chakra_direct_chain.json";
    const char *resnet = "models/workloads/astra/resnet50.txt",
               *dlrm = "models/workloads/dlrm.json";
    const struct {
        const char *net, *sys, *workload;
        double iteration, exposed;
    } want[] = {
        {"chakra/r2_s4.yml", "chakra/themis_SCF_2d_direct_s32.json", chain, 746377, 571377},
        {"chakra/s4_r2_s2.yml", "chakra/themis_FIFO_3d_rhd_direct_s64.json", resnet, 9572794,
         3107794},
        {"chakra/fc4_r8_fc2.yml", "chakra/themis_FIFO_3d_hd_direct_s64.json", dlrm, 2841986,
         2597986},
    };
    for (int k = 0; k < 3; k++)
        expect_exported(dir, k, want[k].net, want[k].sys, want[k].workload, want[k].iteration,
                        want[k].exposed);
    test_rm_dir(dir);
}
END_TEST

/* Two halvingDoubling phases in other orders that meet after messages of both: the NPUs'
 * orders there are no rotations the first NPU stands for, so the replay does not know the
 * order, and the Themis collective whose plan depends on it is replayed NPU by NPU, every
 * event of every NPU in ASTRA-sim's order (docs/CHAKRA.md). Measured with ASTRA-sim 2.x (the
 * same build as chakra_themis_ends_inside_rhd_direct): models/workloads/resnet50.json written
 * by export-chakra on r2_r4_s8.yml (Ring 2 @ 50/1000, Ring 4 @ 50/200, Switch 8 @ 200/500) with
 * themis_SCF_3d_hd_s16.json (halvingDoubling on every dim, Themis + SCF, 16 splits), 64 NPUs:
 * 7758944 ns, of which the 6465000 ns of compute nodes (whole microseconds) leave 1293944
 * exposed; following the phase registered first there, as for ring phases, gives 7759826,
 * and the replay refused it before. */
START_TEST(chakra_themis_rhd_parting_npus) {
    expect_measured("chakra/r2_r4_s8.yml", "chakra/themis_SCF_3d_hd_s16.json",
                    "models/workloads/resnet50.json", 7758944, 1293944);
}
END_TEST

/* Two phase ends at one tick where one is a direct Reduce-Scatter whose reduction takes 0 ns:
 * its end is placed as its last messages' hand-over back is, ep before the tick (as an
 * All-Gather's), not at the tick itself as a ring Reduce-Scatter's is; of two such ends the one
 * started first leads (docs/CHAKRA.md). Measured with ASTRA-sim 2.x (astra-sim 518bd51,
 * analytical congestion-unaware backend, a build that logs which NPU generates each collective
 * first): chakra/wl_a2a_3ar.json (an All-to-All of 13631488 bytes, then All-Reduces of 514,
 * 262656 and 1049600 bytes) written by export-chakra on r6_fc3_s2.yml (Ring 6 @ 12.5/1000,
 * FullyConnected 3 @ 100/500, Switch 2 @ 400/100) with themis_FIFO_3d_direct_ar_s16.json
 * (direct All-Reduce on the ring and the FullyConnected dim, Themis + FIFO, 16 splits), 36 NPUs:
 * 527022 ns, exposed 517022. The 514-byte All-Reduce runs 16 chunks of 36 bytes; at 237019 a
 * chunk's direct Reduce-Scatter on the ring (1-byte messages, reduced in 0 ns, started at
 * 233999) and another's direct All-Gather on the FullyConnected dim (started at 236499) end
 * together, and ASTRA-sim's NPUs take the ring's end first (NPU 27 leads, logged), so rank 0
 * generates the next All-Reduce first and the third is planned from its loads. Taking the
 * Reduce-Scatter's end as registered at the tick itself put the All-Gather first, named NPU
 * 21 for the second All-Reduce, and gave 527460. */
START_TEST(chakra_themis_direct_rs_end) {
    expect_measured("chakra/r6_fc3_s2.yml", "chakra/themis_FIFO_3d_direct_ar_s16.json",
                    "tests/data/chakra/wl_a2a_3ar.json", 527022, 517022);
}
END_TEST

/* A phase that follows another from their meeting, where the leader's messages are reduced in
 * 0 ns and the follower starts there: every NPU sends the follower's messages before the
 * leader's next one (its reduction's event runs after the follower's hand-over), and when both
 * arrive at one tick each NPU's place there is set by the first to reach it, so the follower's
 * first NPU leads the leader too (docs/CHAKRA.md). Measured with ASTRA-sim 2.x (astra-sim
 * 518bd51, analytical congestion-unaware backend, a build that logs each NPU's phase starts):
 * models/workloads/dlrm.json written by export-chakra on r6_fc4.yml (Ring 6 @ 25/200,
 * FullyConnected 4 @ 100/200) with themis_FIFO_2d_ring_direct_s64.json (ring on the ring,
 * direct on the FullyConnected dim, Themis + FIFO, 64 splits), 24 NPUs: 4188256 ns, exposed
 * 3944256 on every NPU. In the first weight-gradient All-Reduce (514 bytes) a chunk's direct
 * Reduce-Scatter on the FullyConnected dim starts at 1559795 and meets, at its first hand-over
 * at 1559805, the ring Reduce-Scatter of 1-byte messages started at 1559375 at its second
 * message, whose order it takes (NPU 3.1, as ring.fc coordinates, first); both send messages
 * there that arrive at 1560005, and ASTRA-sim's NPUs hand them back at 1560015 in the order
 * 3.2 3.3 3.0 4.1 2.3 ..., NPU 3.2 first (logged), where the ring's own order has 4.1 first.
 * The ring then ends at 1560435 with NPU 5.2 first, not 0.1, and the next All-Reduce is
 * planned from fresh loads. Letting the ring keep its order gave 4187573. */
START_TEST(chakra_themis_meeting_overtaken) {
    expect_measured("chakra/r6_fc4.yml", "chakra/themis_FIFO_2d_ring_direct_s64.json",
                    "models/workloads/dlrm.json", 4188256, 3944256);
}
END_TEST

/* A direct phase on a Ring of 3 NPUs: the ring is bidirectional, so every peer is one hop
 * away and, as on a FullyConnected dim, each NPU hands its first message (to the NPU one place
 * on) over first; the messages arrive together and each NPU's place at their tick is its first
 * message's, so the NPU after the first one leads the next phase (docs/CHAKRA.md). Measured
 * with ASTRA-sim 2.x (the same build as chakra_themis_meeting_overtaken):
 * models/workloads/dlrm.json written by export-chakra on r3_r4.yml (Ring 3 @ 12.5/200, Ring 4
 * @ 25/200) with themis_SCF_2d_direct_ring_s64.json (direct on the Ring 3, ring on the Ring 4,
 * Themis + SCF, 64 splits), 12 NPUs: 2652756 ns, exposed 2408756 on every NPU, the first NPU
 * of every phase start as themis names it (logged). Refused before, the order after a direct
 * phase on a ring of an odd number of NPUs being not known. */
START_TEST(chakra_themis_direct_ring3) {
    expect_measured("chakra/r3_r4.yml", "chakra/themis_SCF_2d_direct_ring_s64.json",
                    "models/workloads/dlrm.json", 2652756, 2408756);
}
END_TEST

/* A phase that follows another from a meeting goes on in that order at its later meetings.
 * Measured with ASTRA-sim 2.x (the same build as chakra_themis_meeting_overtaken):
 * models/workloads/dlrm.json written by export-chakra on s4_fc4_r4.yml (Switch 4 @ 100/500,
 * FullyConnected 4 @ 200/50, Ring 4 @ 200/1000) with themis_FIFO_3d_ring_hd_s16.json (ring on
 * the first two dims, halvingDoubling on the Ring 4, Themis + FIFO, 16 splits), 64 NPUs:
 * 985698 ns, exposed 741698 on every NPU, the first NPU of every phase start as themis names
 * it (logged). In the first weight-gradient All-Reduce the Switch's ring phase and the Ring's
 * halvingDoubling one start at 134240 in one order and meet at 135260, the Ring's following
 * the Switch's (started first); the FullyConnected dim's ring phase started at 135190 meets
 * both there. Taking the Ring's order from its start rather than from that meeting named NPU
 * 1.3.1 (as switch.fc.ring coordinates) first where the FullyConnected phase ends, at 135380,
 * not 2.3.0: 985722. */
START_TEST(chakra_themis_follows_at_later_meetings) {
    expect_measured("chakra/s4_fc4_r4.yml", "chakra/themis_FIFO_3d_ring_hd_s16.json",
                    "models/workloads/dlrm.json", 985698, 741698);
}
END_TEST

/* Three phases with events at one tick: each NPU's place there is set by the event registered
 * first, and both other phases follow that one's order, not each other's; and where phases
 * end at one tick, each NPU's place is set by the first event registered for it, which for a
 * Reduce-Scatter whose reductions take 0 ns is its last message's hand-over back, ep before
 * its end's registration (docs/CHAKRA.md). Measured with ASTRA-sim 2.x (the same build as
 * chakra_themis_meeting_overtaken): models/workloads/astra/resnet50.txt written by
 * export-chakra on r2_s3_r2.yml (Ring 2 @ 100/1000, Switch 3 @ 25/200, Ring 2 @ 400/200) with
 * themis_FIFO_3d_ring_direct_s64.json (ring on the first two dims, direct on the last, Themis
 * + FIFO, 64 splits), 12 NPUs: 9565937 ns, exposed 3100937 on every NPU, the first NPU of
 * every phase start as themis names it (logged). At 2350697 the last Ring's direct
 * Reduce-Scatter hands its messages back (registered at 2350687 by its hand-over at 2350449),
 * the first Ring's phase hands its first one over (registered at 2350687 by the end at
 * 2350672) and the Switch's ring phase ends a reduction (registered at 2350694): the Switch's
 * phase follows the last Ring's, not the first's. At 5902043 a ring Reduce-Scatter on the
 * Switch whose reductions take 0 ns and one on the first Ring end; the Ring's end is
 * registered first (6 ns before), but the Switch's hand-over back at that tick was registered
 * at 5902033, and the next phases start in its order. Either rule left out gives 9565739. */
START_TEST(chakra_themis_place_set_first) {
    expect_measured("chakra/r2_s3_r2.yml", "chakra/themis_FIFO_3d_ring_direct_s64.json",
                    "models/workloads/astra/resnet50.txt", 9565937, 3100937);
}
END_TEST

/* Phases ending at one tick where the one whose event there was registered first has an order
 * that is not known (a halvingDoubling phase that parted from another after messages of
 * both): the NPUs' order after the tick is not known to the replay, and the trace is replayed
 * NPU by NPU (docs/CHAKRA.md). Measured with ASTRA-sim 2.x (the same build as
 * chakra_themis_meeting_overtaken): models/workloads/dlrm.json written by export-chakra on
 * r3_fc2_fc8.yml (Ring 3 @ 25/200, FullyConnected 2 @ 100/1000, FullyConnected 8 @ 50/200)
 * with themis_FIFO_3d_direct_hd_s16.json (direct on the Ring 3, halvingDoubling All-Reduces on
 * the FullyConnected dims, Themis + FIFO, 16 splits), 48 NPUs: 2434281 ns, 2190281 of them
 * exposed (244000 ns of compute nodes). At 1113208 the FullyConnected 2's phase (its last
 * message's hand-over back registered first) and the Ring 3's end; ASTRA-sim's next phases
 * start with NPU 0 first (logged), where taking the Ring's end named NPU 5. */
START_TEST(chakra_themis_unknown_order_leads_npus) {
    expect_measured("chakra/r3_fc2_fc8.yml", "chakra/themis_FIFO_3d_direct_hd_s16.json",
                    "models/workloads/dlrm.json", 2434281, 2190281);
}
END_TEST

/* A halvingDoubling Reduce-Scatter reduces each message but the last before it sends the next,
 * so its end is registered as its last message's hand-over back, the endpoint delay before it
 * (docs/CHAKRA.md). Measured with ASTRA-sim 2.x (the same build as
 * chakra_themis_meeting_overtaken): models/workloads/dlrm.json written by export-chakra on
 * fc6_s2_r3.yml (FullyConnected 6 @ 12.5/200, Switch 2 @ 400/200, Ring 3 @ 25/1000) with
 * themis_SCF_3d_direct_hd_s32.json (halvingDoubling on the Switch, direct elsewhere, Themis +
 * SCF, 32 splits), 36 NPUs: 1085439 ns, exposed 841439 on every NPU. Taking it registered at
 * the start of a last reduction put the Switch's end at 427214 ns at one registration with the
 * FullyConnected dim's, and the run was refused as one that would not finish. */
START_TEST(chakra_themis_rhd_rs_end) {
    expect_measured("chakra/fc6_s2_r3.yml", "chakra/themis_SCF_3d_direct_hd_s32.json",
                    "models/workloads/dlrm.json", 1085439, 841439);
}
END_TEST

/* A direct phase on an odd ring of more than 3 NPUs: its messages of one distance arrive
 * together and its NPUs' order is no rotation that the replay follows, so a Themis plan that
 * depends on it is replayed NPU by NPU (docs/CHAKRA.md). Measured with ASTRA-sim 2.x (the same
 * build as chakra_themis_meeting_overtaken): models/workloads/dlrm.json written by
 * export-chakra on r5_r3.yml (Ring 5 @ 200/500, Ring 3 @ 50/1000) with
 * themis_SCF_2d_direct_mix_s2.json (direct All-Reduces on both rings, Themis + SCF, 2
 * splits), 15 NPUs: 793374 ns, 549374 of them exposed (244000 ns of compute nodes); the
 * replay refused it before, the plan of node 14 depending on which NPU generates it first. */
START_TEST(chakra_npus_odd_ring) {
    expect_measured("chakra/r5_r3.yml", "chakra/themis_SCF_2d_direct_mix_s2.json",
                    "models/workloads/dlrm.json", 793374, 549374);
}
END_TEST

/* A tie of two ends that the replay takes as one ASTRA-sim would not finish (the two ends
 * registered at one tick, each going on where the other leaves), which ASTRA-sim finishes:
 * every NPU takes the ends in one order there. Replayed NPU by NPU, the run is exact.
 * Measured with ASTRA-sim 2.x (the same build): models/workloads/astra/dlrm.txt written by
 * export-chakra on s2_s3_s2.yml (Switch 2 @ 50/100, Switch 3 @ 400/100, Switch 2 @ 50/100)
 * with baseline_SCF_3d_ring_direct_s8.json (ring, direct, ring; the baseline + SCF, 8
 * splits), 12 NPUs: 577105 ns, 333105 of them exposed; refused before, at 229663 ns. */
START_TEST(chakra_npus_false_hang) {
    expect_measured("chakra/s2_s3_s2.yml", "chakra/baseline_SCF_3d_ring_direct_s8.json",
                    "models/workloads/astra/dlrm.txt", 577105, 333105);
}
END_TEST

/* Two ends at one tick, each the hand-over back of one message: each NPU takes first the one
 * whose message reached it first, so NPUs of one ring take them in other orders. Where a
 * phase's chunk goes on to the dim it leaves (a Reduce-Scatter, then the All-Gather on the
 * same dim) it is queued there before the dim takes its next phase, and which chunk the dim
 * runs next depends on that order: the run is refused (docs/CHAKRA.md, Limits). Measured with
 * ASTRA-sim 2.x (the same build as chakra_themis_meeting_overtaken, logging every message):
 * models/workloads/astra/resnet50.txt written by export-chakra on s2_s2.yml (Switch 2 @
 * 25/100, Switch 2 @ 12.5/100) with themis_FIFO_2d_hd_s64.json (halvingDoubling All-Reduces,
 * Themis + FIFO, 64 splits), 4 NPUs: at 2180824 ns chunk 1's Reduce-Scatter on the first dim
 * and chunk 0's on the second end, both messages having arrived at 2180814 (they left NPUs 1,
 * 0, 3 and 2 in that order, each sending its first dim's first); NPUs 0 and 1 take chunk 1's
 * end first and run it on the second dim, NPUs 2 and 3 take chunk 0's and run its All-Gather
 * there, and ASTRA-sim stops with unreleased nodes. Replayed before as 6494250 ns. */
START_TEST(chakra_themis_hang_same_dim) {
    expect_refused("chakra/s2_s2.yml", "chakra/themis_FIFO_2d_hd_s64.json",
                   "models/workloads/astra/resnet50.txt",
                   "node 56 (allreduce): ASTRA-sim 2.x would not finish: at 2180824 ns");
}
END_TEST

/* The same tie between a ring phase's end and a direct one's: both last messages were sent at
 * one tick and arrived at one tick, so each NPU takes first the end whose message reached it
 * first; the check compares every phase's three ticks (its end's registration, the event that
 * registered it, its last message's send), not only a ring's. Measured with ASTRA-sim 2.x (as
 * chakra_themis_hang_same_dim): models/workloads/astra/resnet50.txt written by export-chakra
 * on r3_fc2.yml (Ring 3 @ 400/100, FullyConnected 2 @ 50/100) with
 * themis_FIFO_2d_ring_direct_s64.json, 6 NPUs: at 6420430 ns chunk 12's ring Reduce-Scatter
 * on the Ring and chunk 11's direct one on the FullyConnected dim end, both sent at 6420320;
 * NPU 5 takes chunk 12's end first, the others chunk 11's (whose All-Gather follows on the same
 * dim), and ASTRA-sim stops with unreleased nodes. Replayed before as 6494440 ns. */
START_TEST(chakra_themis_hang_ring_direct) {
    expect_refused("chakra/r3_fc2.yml", "chakra/themis_FIFO_2d_ring_direct_s64.json",
                   "models/workloads/astra/resnet50.txt",
                   "node 212 (allreduce): ASTRA-sim 2.x would not finish: at 6420430 ns");
}
END_TEST

/* Compute nodes that end while a direct phase runs on a ring of more than 2 NPUs: between its
 * ticks, or first at the tick of the peers h < p / 2 hops away, they leave its order as it
 * was, and such a phase that meets another past its first tick keeps its own order: it sent
 * all its messages there (docs/CHAKRA.md). Measured with ASTRA-sim 2.x (the same build as
 * chakra_themis_ends_inside_rhd_direct), Themis + FIFO, on traces written by export-chakra:
 *   models/workloads/dlrm.json on r6_s2_s4.yml (Ring 6 @ 100/200, Switch 2 @ 25/100, Switch 4
 *   @ 12.5/50) with themis_FIFO_3d_direct_mix_s64.json (direct Reduce-Scatter and All-Gather
 *   on the Ring 6, 64 splits), 48 NPUs: 1788005 ns, exposed 1544005 on every NPU; compute
 *   nodes end between the ticks of direct phases on the Ring 6 (moving such a phase's order
 *   where another phase's event was registered first at one of its later ticks: 1787996);
 *   models/workloads/astra/dlrm.txt on r8_s2_s2.yml (Ring 8 @ 400/200, Switch 2 @ 25/1000,
 *   Switch 2 @ 150/500) with themis_FIFO_3d_direct_ring_s32.json (direct on the Ring 8, ring
 *   on the switches, 32 splits), 32 NPUs: 1841879 ns, exposed 1597879 on every NPU. Both were
 *   refused before, the order being not known. */
START_TEST(chakra_themis_direct_ring_node) {
    char *dir = test_tmp_dir();
    static const struct {
        const char *net, *sys, *workload;
        double iteration, exposed;
    } want[] = {
        {"chakra/r6_s2_s4.yml", "chakra/themis_FIFO_3d_direct_mix_s64.json",
         "models/workloads/dlrm.json", 1788005, 1544005},
        {"chakra/r8_s2_s2.yml", "chakra/themis_FIFO_3d_direct_ring_s32.json",
         "models/workloads/astra/dlrm.txt", 1841879, 1597879},
    };
    for (int k = 0; k < 2; k++)
        expect_exported(dir, k, want[k].net, want[k].sys, want[k].workload, want[k].iteration,
                        want[k].exposed);
    test_rm_dir(dir);
}
END_TEST

/* Where the first NPU's order meets other events at one tick. Measured with ASTRA-sim 2.x (the
 * same build as above, and one that logs the first NPU to end each ring phase and to generate
 * each collective), on traces written by export-chakra:
 *   models/workloads/dlrm.json on r2_r4.yml (Ring 2 x Ring 4, 100 GB/s, 100 ns) with
 *   themis_FIFO_2d_s2.json (Themis + FIFO, 2 splits): 703491 ns, exposed 459491. A compute
 *   node registered when it began ends at the tick where an All-Gather phase on dim 1 hands a
 *   message back (467626 ns): every NPU runs both in its place for the compute node, whose
 *   order the phase follows from there, so NPU 6 generates the next All-Reduce first (the
 *   phase's own chain names NPU 0: 703337, 459337);
 *   models/workloads/astra/resnet50.txt on r4_r8.yml (Ring 4 @ 150/1000, Ring 8 @ 150/500)
 *   with themis_FIFO_2d_s16.json (16 splits): 8714548 ns, exposed 2249548. Two phases start
 *   on both dims in one order at one instant, the dim a phase left taking its next one before
 *   the chunk that left it; where their orders part at a tick both registered at once, every
 *   NPU runs that first phase's event first, and the other follows its order (ruled unknown,
 *   or each chain alone: 8721963, 2256963);
 *   models/workloads/astra/dlrm.txt on r8_r4_slow.yml (Ring 8 @ 25/1000, Ring 4 @ 50/1000)
 *   with themis_FIFO_2d_s64.json (64 splits): 14669340 ns, exposed 14425340. An All-Reduce's
 *   Reduce-Scatter phase on dim 0 (whose reductions take 0 ns) starts with an All-Gather phase
 *   on dim 1 in one order and leads at their first step; from the next step on each NPU hands
 *   the All-Gather's message over first (the Reduce-Scatter's waits for its reduction, an event
 *   of the same tick), so the All-Gather's chain leads to its end and the Reduce-Scatter goes
 *   on from there: NPU 0 ends it first where its own chain names NPU 18, and NPU 10 generates
 *   the collective after it first (the Reduce-Scatter's own order: 14667702, 14423702). */
START_TEST(chakra_themis_order_meetings) {
    char *dir = test_tmp_dir();
    static const struct {
        const char *net, *sys, *workload;
        double iteration, exposed;
    } want[] = {
        {"chakra/r2_r4.yml", "chakra/themis_FIFO_2d_s2.json", "models/workloads/dlrm.json", 703491,
         459491},
        {"chakra/r4_r8.yml", "chakra/themis_FIFO_2d_s16.json",
         "models/workloads/astra/resnet50.txt", 8714548, 2249548},
        {"chakra/r8_r4_slow.yml", "chakra/themis_FIFO_2d_s64.json",
         "models/workloads/astra/dlrm.txt", 14669340, 14425340},
    };
    for (int k = 0; k < 3; k++)
        expect_exported(dir, k, want[k].net, want[k].sys, want[k].workload, want[k].iteration,
                        want[k].exposed);
    test_rm_dir(dir);
}
END_TEST

/* Where two ring phases on dims of as many NPUs start in one order and part at a tick both
 * registered at once, the NPUs' order turns diagonal and the leader's order goes on leading at
 * each message. Measured with ASTRA-sim 2.x (the same build as above, and one that logs each
 * NPU's stream starts and ends and each collective's generation) on tests/data/chakra/r4_r4.yml
 * (Ring 4 x Ring 4, 100 GB/s, 100 ns) with themis_FIFO_2d_s2.json (Themis + FIFO), a chain of
 * an All-Reduce of 379040 bytes, an All-Gather of 300080 and an All-Reduce of 621120 on every
 * one of the 16 NPUs: with 2, 4 and 8 splits 51053, 52320 and 58031 ns; with 5 splits 57593
 * ns, where the first phases of both dims (started at 0, dim 0's leading) end at 967 ns in the
 * order 3 6 9 12 0 7 10 13 1 4 11 14 2 5 8 15 (grouped by the sum of the NPUs' coordinates,
 * mod 4; NPU 0 moved 3 steps along dim 0), the next ones (both dims freed at 967 ns, dim 0's
 * first) at 1934 ns as 2 5 8 15 3 6 9 12 ..., and the All-Reduce at 7429 ns as 0 7 10 13 ...:
 * rank 0 generates the All-Gather, and NPU 15 plans the second All-Reduce from rank 0's loads.
 * Following the leader only up to the parting named NPU 7 and replayed 54719 ns. On
 * tests/data/chakra/r8_r8.yml (Ring 8 x Ring 8, the same links), same system file: a chain of
 * an All-Reduce of 971200 bytes and All-Gathers of 701440 and 1605760 with 5 splits, 946932 ns,
 * and three independent All-Reduces of 4455168, 1358784 and 413184 bytes with 3 splits, 93035
 * ns (the second ends at 83154 ns in the order 0 57 50 43 ...); all communication exposed. */
START_TEST(chakra_themis_diagonal_order) {
    char *dir = test_tmp_dir();
    TEST_DIR_PATH(sys, dir, "r44.json");
    import_astra("chakra/r4_r4.yml", "chakra/themis_FIFO_2d_s2.json", sys);
    wnode chain[] = {COLLECTIVE(0, AR, 379040), COLLECTIVE(1, AG, 300080),
                     COLLECTIVE(2, AR, 621120)};
    chain[1].data[0] = 0, chain[1].ndata = 1;
    chain[2].data[0] = 1, chain[2].ndata = 1;
    write_set(dir, "chain", chain, 3, 16);
    TEST_DIR_PATH(p, dir, "chain");
    expect_times(p, sys, "-p themis -q fifo -n 2", 51053, 51053);
    expect_times(p, sys, "-p themis -q fifo -n 4", 52320, 52320);
    expect_times(p, sys, "-p themis -q fifo -n 5", 57593, 57593);
    expect_times(p, sys, "-p themis -q fifo -n 8", 58031, 58031);

    TEST_DIR_PATH(sys8, dir, "r88.json");
    import_astra("chakra/r8_r8.yml", "chakra/themis_FIFO_2d_s2.json", sys8);
    wnode chain8[] = {COLLECTIVE(0, AR, 971200), COLLECTIVE(1, AG, 701440),
                      COLLECTIVE(2, AG, 1605760)};
    chain8[1].data[0] = 0, chain8[1].ndata = 1;
    chain8[2].data[0] = 1, chain8[2].ndata = 1;
    write_set(dir, "chain8", chain8, 3, 64);
    TEST_DIR_PATH(p8, dir, "chain8");
    expect_times(p8, sys8, "-p themis -q fifo -n 5", 946932, 946932);
    wnode indep[] = {COLLECTIVE(0, AR, 4455168), COLLECTIVE(1, AR, 1358784),
                     COLLECTIVE(2, AR, 413184)};
    write_set(dir, "indep8", indep, 3, 64);
    TEST_DIR_PATH(i8, dir, "indep8");
    expect_times(i8, sys8, "-p themis -q fifo -n 3", 93035, 93035);
    test_rm_dir(dir);
}
END_TEST

/* A collective issued as the last one ends starts inside that one's last stream's end, while
 * the stream still holds its dim: there every chunk of the new collective queues first (SCF
 * puts a chunk of equal size before the waiting ones, so the last chunk heads the queue), and
 * the head starts when the old stream leaves, at the same instant; elsewhere the first chunk
 * starts at once. Measured with ASTRA-sim 2.x (the same build as above) on
 * tests/data/chakra/r4_fc4_s4_slow.yml (Ring 4 @ 20/500, FC 4 @ 10/1000, Switch 4 @ 5/1000)
 * with themis_SCF_3d_s16.json (16 splits), two independent All-Reduces of 8196000 and 4194304
 * bytes on every one of the 64 NPUs (the first two of a ResNet-50 backward pass):
 *   Themis + SCF 1058062 ns (every first chunk started at once: 1068755);
 *   Themis + FIFO 1246836 (FIFO appends: the queued order is the order of issue, nothing
 *   changes). */
START_TEST(chakra_held_dim) {
    char *dir = test_tmp_dir();
    TEST_DIR_PATH(sys, dir, "slow.json");
    import_astra("chakra/r4_fc4_s4_slow.yml", "chakra/themis_SCF_3d_s16.json", sys);
    wnode two[] = {COLLECTIVE(0, AR, 8196000), COLLECTIVE(1, AR, 4194304)};
    write_set(dir, "two", two, 2, 64);
    TEST_DIR_PATH(p2, dir, "two");
    ck_assert_rel(iteration(p2, sys, "-p themis -q scf"), 1058062);
    ck_assert_rel(iteration(p2, sys, "-p themis -q fifo"), 1246836);
    test_rm_dir(dir);
}
END_TEST

/* A trace that ASTRA-sim 2.x never finishes is refused. Measured with ASTRA-sim 2.x (the same
 * build as above) on tests/data/chakra/r4_r4_r4.yml (three rings of 4 NPUs, 100 GB/s, 100 ns)
 * with themis_SCF_3d_s4.json under Themis + FIFO, one All-Gather of 2871927 bytes on every one
 * of the 64 NPUs: with 4 splits every rank stops with "unreleased nodes" (chunks 2 and 3 end
 * their phases on dims 2 and 1 at one tick, 20398 ns, both ends registered at 20388, and both
 * go on to dim 0: NPUs take the two in orders that part, so the rings of dim 0 run them in
 * different orders); with 3 splits it finishes, 990991 ns on every rank (no two ends meet
 * there), as themis replays it. */
START_TEST(chakra_astra_hang) {
    char *dir = test_tmp_dir();
    TEST_DIR_PATH(sys, dir, "r444.json");
    import_astra("chakra/r4_r4_r4.yml", "chakra/themis_SCF_3d_s4.json", sys);
    wnode ag[] = {COLLECTIVE(0, AG, 2871927)};
    write_set(dir, "ag", ag, 1, 64);
    TEST_DIR_PATH(p, dir, "ag");
    char need[4400];
    snprintf(need, sizeof need,
             "%s.0.et: node 0 (allgather): ASTRA-sim 2.x would not finish: at 20398 ns chunk 2's "
             "phase on dim 2 ends and goes on to dim 0, and so does chunk 3's on dim 1, both ends "
             "registered at 20388 ns",
             p);
    test_bad(need, "train '%s' -s '%s' -p themis -q fifo -n 4", p, sys);
    /* the same collective on its own: themis run names the policy pair it refuses */
    test_bad("themis + fifo: ASTRA-sim 2.x would not finish: at 20398 ns chunk 2's phase on dim 2",
             "run -s '%s' -c allgather -b 2871927 -n 4 -p themis -q fifo", sys);
    expect_times(p, sys, "-p themis -q fifo -n 3", 990991, 990991);
    test_rm_dir(dir);
}
END_TEST

/* Ends at one tick registered at one tick by phases that started at different ticks: the
 * NPUs take them in the order of the events that registered them and of their last messages,
 * and where those tie too, in orders that part. Measured with ASTRA-sim 2.x (the same build as
 * above) on tests/data/chakra/r4_fc2_s2.yml (Ring 4 @ 100/100, FC 2 @ 50/100, Switch 2 @
 * 25/100) with themis_SCF_3d_s64.json (64 splits), models/workloads/astra/dlrm.txt written by
 * export-chakra on its 16 NPUs: under Themis + SCF every rank stops with "unreleased nodes"
 * (at 375091 ns chunk 59's All-Reduce phase on dim 1 ends, both it and the phase on dim 0
 * registered at 375081 ns by hand-overs back registered at 374981 ns, as their last messages
 * arrived); under Themis + FIFO it finishes, 1027541 ns, exposed 783541, on every rank. */
START_TEST(chakra_astra_hang_later_start) {
    char *dir = test_tmp_dir();
    TEST_DIR_PATH(sys, dir, "r4fc2s2.json");
    TEST_DIR_PATH(p, dir, "dlrm");
    export_on_astra("chakra/r4_fc2_s2.yml", "chakra/themis_SCF_3d_s64.json",
                    "models/workloads/astra/dlrm.txt", sys, p);
    char need[4700];
    snprintf(need, sizeof need,
             "%s.0.et: node 8 (allreduce): ASTRA-sim 2.x would not finish: at 375091 ns chunk "
             "59's phase on dim 1 ends and goes on to dim 0, and the phase running on dim 0 "
             "leaves it, both ends registered at 375081 ns by events registered at 374981 ns",
             p);
    test_bad(need, "train '%s' -s '%s' -p themis -q scf", p, sys);
    expect_times(p, sys, "-p themis -q fifo", 1027541, 783541);
    test_rm_dir(dir);
}
END_TEST

/* The first tie that cannot block is replayed, and every later collective refused. Measured
 * with ASTRA-sim 2.x (the same build as above) on tests/data/chakra/r4_r4_r4.yml with
 * themis_FIFO_3d_s2.json (Themis + FIFO, 2 splits), on every one of the 64 NPUs: a
 * Reduce-Scatter of 65536 bytes, whose chunks 0 and 1 end their phases on dims 0 and 2 at
 * 613 ns with nothing to order them and both go on to dim 1, then to dims 2 and 0: 1777 ns;
 * one of 765056 bytes, 6337 ns (the same under SCF); a chain of a Reduce-Scatter of 225792
 * bytes, an All-Gather of 14464 and a Reduce-Scatter of 14080: every rank stops with
 * "unreleased nodes" in the third. */
START_TEST(chakra_astra_tie_replayed) {
    char *dir = test_tmp_dir();
    TEST_DIR_PATH(sys, dir, "r444.json");
    import_astra("chakra/r4_r4_r4.yml", "chakra/themis_FIFO_3d_s2.json", sys);
    wnode a[] = {COLLECTIVE(0, RS, 65536)}, b[] = {COLLECTIVE(0, RS, 765056)};
    wnode chain[] = {COLLECTIVE(0, RS, 225792), COLLECTIVE(1, AG, 14464), COLLECTIVE(2, RS, 14080)};
    chain[1].data[0] = 0, chain[1].ndata = 1;
    chain[2].data[0] = 1, chain[2].ndata = 1;
    write_set(dir, "a", a, 1, 64);
    write_set(dir, "b", b, 1, 64);
    write_set(dir, "chain", chain, 3, 64);
    TEST_DIR_PATH(pa, dir, "a");
    TEST_DIR_PATH(pb, dir, "b");
    TEST_DIR_PATH(pc, dir, "chain");
    expect_times(pa, sys, "", 1777, 1777);
    expect_times(pb, sys, "", 6337, 6337);
    expect_times(pb, sys, "-q scf", 6337, 6337);
    char need[4700];
    snprintf(need, sizeof need,
             "%s.0.et: node 1: ASTRA-sim 2.x would not finish: at 1279 ns two chunks of the first "
             "collective ended phases at one tick with nothing to order them and went on to dim 1",
             pc);
    test_bad(need, "train '%s' -s '%s'", pc, sys);
    test_rm_dir(dir);
}
END_TEST

/* Point-to-point under the astra-sim preset, when every rank sends as it receives: each rank r
 * sends 1 MiB to r + 1 and receives from r - 1 (both ready at once). A message goes on the first
 * dim in which the two NPUs differ, floor(hops latency + bytes / B) (measured on ASTRA-sim 2.x,
 * the same versions as above: b_graphs sr_shift and sr_shift_after_comp):
 *   Ring 8 @ 50 GB/s, 500 ns, 1 hop: floor(500 + 1048576 / 53.687091) = floor(500 + 19531.25)
 *   = 20031 ns; after a 4 us compute node, 24031;
 *   Ring 4 @ 200 GB/s, 50 ns x Switch 4 (r4_s4.yml): ranks r and r + 1 differ in dim 0 (or, from
 *   3 to 4, in both: dim 0 is charged): floor(50 + 1048576 / 214.7483648) = 4932. */
START_TEST(chakra_send_recv) {
    char *dir = test_tmp_dir();
    const char *ring8 = astra_system(dir, 8);
    wnode w[] = {{.id = 1, .type = SEND, .comm = -1, .size = 1048576, .peer = 1},
                 {.id = 2, .type = RECV, .comm = -1, .size = 1048576, .peer = -1}};
    write_set(dir, "sr", w, 2, 8);
    TEST_DIR_PATH(p8, dir, "sr");
    ck_assert_rel(iteration(p8, ring8, "-p baseline -q fifo"), 20031);
    wnode after[] = {COMPUTE(1, 4),
                     {.id = 2, .type = SEND, .comm = -1, .size = 1048576, .peer = 1},
                     {.id = 3, .type = RECV, .comm = -1, .size = 1048576, .peer = -1}};
    after[1].data[0] = 1, after[1].ndata = 1;
    after[2].data[0] = 1, after[2].ndata = 1;
    write_set(dir, "sra", after, 3, 8);
    TEST_DIR_PATH(pa, dir, "sra");
    ck_assert_rel(iteration(pa, ring8, "-p baseline -q fifo"), 24031);
    TEST_DIR_PATH(sys2, dir, "r4s4.json");
    import_astra("chakra/r4_s4.yml", "chakra/Ring_4chunks_2d.json", sys2);
    write_set(dir, "sr16", w, 2, 16);
    TEST_DIR_PATH(p16, dir, "sr16");
    ck_assert_rel(iteration(p16, sys2, "-p baseline -q fifo"), 4932);
    /* a receive without a send of its tag in the graph; the analytical model has no messages */
    wnode lone[] = {{.id = 2, .type = RECV, .comm = -1, .size = 1048576, .peer = -1}};
    write_set(dir, "lone", lone, 1, 8);
    test_bad("node 2: attr comm_tag: no send of tag 0", "train '%s/lone' -s '%s'", dir, ring8);
    test_rm_dir(dir);
}
END_TEST

/* Point-to-point under the analytical model (SPEC §3): a message cuts through the dims in which
 * the two NPUs differ, sum(alpha hops) + bytes / (the least B of them), ring hops the shorter
 * way round, fc 1, switch 2; it holds no stream. Each rank r sends 1 MiB to r + k and receives
 * from r - k; rank 0 stands for the class, so its receive from -k ends the trace:
 *   cli_ring4.json (ring 4, 100 GB/s, 10 ns), k = 1: 10 + 1048576 / 100 = 10495.76 ns;
 *   k = 2: two hops, 20 + 10485.76 = 10505.76; after a 4 us compute node, k = 1: 14495.76;
 *   cli_3d.json (ring 4 @ 100 GB/s, 10 ns; fc 2 @ 50, 100 ns; switch 8 @ 25, 1000 ns), k = 4:
 *   rank 0 receives from 60 = (0, 1, 7), differing in dims 1 and 2: 100 + 2 x 1000 +
 *   1048576 / 25 = 44043.04 (its own send to 4 = (0, 1, 0): 100 + 1048576 / 50 = 21071.52). */
START_TEST(chakra_send_recv_analytical) {
    char *dir = test_tmp_dir();
    const char *ring4 = test_dpath("cli_ring4.json");
    wnode w[] = {{.id = 1, .type = SEND, .comm = -1, .size = 1048576, .peer = 1},
                 {.id = 2, .type = RECV, .comm = -1, .size = 1048576, .peer = -1}};
    write_set(dir, "k1", w, 2, 4);
    TEST_DIR_PATH(k1, dir, "k1");
    ck_assert_rel(iteration(k1, ring4, "-p baseline -q fifo"), 10495.76);
    w[0].peer = 2, w[1].peer = -2;
    write_set(dir, "k2", w, 2, 4);
    TEST_DIR_PATH(k2, dir, "k2");
    ck_assert_rel(iteration(k2, ring4, "-p baseline -q fifo"), 10505.76);
    wnode after[] = {COMPUTE(1, 4),
                     {.id = 2, .type = SEND, .comm = -1, .size = 1048576, .peer = 1},
                     {.id = 3, .type = RECV, .comm = -1, .size = 1048576, .peer = -1}};
    after[1].data[0] = 1, after[1].ndata = 1;
    after[2].data[0] = 1, after[2].ndata = 1;
    write_set(dir, "after", after, 3, 4);
    TEST_DIR_PATH(pa, dir, "after");
    ck_assert_rel(iteration(pa, ring4, "-p themis -q scf"), 14495.76);
    w[0].peer = 4, w[1].peer = -4;
    write_set(dir, "k4", w, 2, 64);
    TEST_DIR_PATH(k4, dir, "k4");
    ck_assert_rel(iteration(k4, test_dpath("cli_3d.json"), "-p baseline -q fifo"), 44043.04);
    /* a trace of 64 ranks on a system of 4 NPUs */
    test_bad("attr comm_dst", "train '%s' -s '%s'", k4, ring4);
    test_rm_dir(dir);
}
END_TEST

/* ---- ranks whose graphs differ: classes of ranks with one graph, one replayed per class ----
 *
 * Writes ranks files dir/name.<k>.et, rank k's graph g[k < half ? 0 : 1] (ids offset by
 * 1000 k); cls picks the graph per rank instead when not NULL. */
static void write_classes(const char *dir, const char *name, const wnode *const g[2],
                          const int n[2], int ranks, const int *cls) {
    for (int k = 0; k < ranks; k++) {
        char path[4200];
        snprintf(path, sizeof path, "%s/%s.%d.et", dir, name, k);
        int c = cls ? cls[k] : k >= ranks / 2;
        w_rank = k, w_ranks = ranks;
        write_trace(path, g[c], n[c], 1000u * (uint64_t)k);
    }
}

/* Values of a ';'-joined list cell. */
static double list_at(const char *cell, int i) {
    const char *p = cell;
    for (int k = 0; k < i; k++) {
        p = strchr(p, ';');
        ck_assert_ptr_nonnull(p);
        p++;
    }
    return strtod(p, NULL);
}

/* Two stages on the ring of 4 (50 GB/s, 500 ns; B = 53.687091 bytes/ns): ranks 0 and 1 compute
 * 5 us and send 1 MiB to rank r + 2, ranks 2 and 3 receive it and compute 3 us. A message on a
 * ring of 4 from r to r + 2 is 2 hops: floor(2 x 500 + 1048576 / 53.687091) = floor(1000 +
 * 19531.25) = 20531 ns. Stage 0 ends when its send's message arrives, 5000 + 20531 = 25531
 * (exposed 20531); stage 1's receive ends then, and its compute at 28531 (exposed 25531).
 * The iteration is the last class's end, its compute that class's.
 * Forward and backward: stage 0 computes 4 us, sends (tag 1), receives (tag 2), computes 6 us;
 * stage 1 receives, computes 7 us, sends back: 4000 + 20531 = 24531, + 7000 = 31531, + 20531
 * = 52062 (stage 1 ends, exposed 45062), + 6000 = 58062 (stage 0, exposed 48062).
 * Measured with ASTRA-sim 2.x (astra-sim 518bd51, the build of the tests above) on the same
 * files: sys[0..1] finished 25531 / 58062, sys[2..3] 28531 / 52062, exposed as above. */
START_TEST(chakra_classes_send_recv) {
    char *dir = test_tmp_dir();
    const char *sys = astra_system(dir, 4);
    wnode s0[] = {COMPUTE(1, 5), {.id = 2, .type = SEND, .comm = -1, .size = 1048576, .peer = 2}};
    wnode s1[] = {{.id = 1, .type = RECV, .comm = -1, .size = 1048576, .peer = -2}, COMPUTE(2, 3)};
    s0[1].data[0] = 1, s0[1].ndata = 1;
    s1[1].data[0] = 1, s1[1].ndata = 1;
    const wnode *g[2] = {s0, s1};
    const int n[2] = {2, 2};
    write_classes(dir, "pp", g, n, 4, NULL);
    TEST_DIR_PATH(pp, dir, "pp");
    test_csv c;
    train(&c, pp, sys, "-p baseline -q fifo");
    ck_assert_rel(test_csv_d(&c, 0, "iteration_us") * 1000, 28531);
    ck_assert_rel(test_csv_d(&c, 0, "compute_us") * 1000, 3000);
    ck_assert_rel(list_at(test_csv_s(&c, 0, "class_end_us"), 0) * 1000, 25531);
    ck_assert_rel(list_at(test_csv_s(&c, 0, "class_end_us"), 1) * 1000, 28531);
    ck_assert_rel(list_at(test_csv_s(&c, 0, "class_exposed_comm_us"), 0) * 1000, 20531);
    ck_assert_rel(list_at(test_csv_s(&c, 0, "class_exposed_comm_us"), 1) * 1000, 25531);
    test_csv_free(&c);
    wnode f0[] = {COMPUTE(1, 4),
                  {.id = 2, .type = SEND, .comm = -1, .size = 1048576, .peer = 2},
                  {.id = 3, .type = RECV, .comm = -1, .size = 1048576, .peer = 2},
                  COMPUTE(4, 6)};
    wnode f1[] = {{.id = 1, .type = RECV, .comm = -1, .size = 1048576, .peer = -2},
                  COMPUTE(2, 7),
                  {.id = 3, .type = SEND, .comm = -1, .size = 1048576, .peer = -2}};
    f0[1].data[0] = 1, f0[1].ndata = 1;
    f0[3].data[0] = 3, f0[3].ndata = 1;
    f1[1].data[0] = 1, f1[1].ndata = 1;
    f1[2].data[0] = 2, f1[2].ndata = 1;
    const wnode *fb[2] = {f0, f1};
    const int nfb[2] = {4, 3};
    write_classes(dir, "fb", fb, nfb, 4, NULL);
    TEST_DIR_PATH(pfb, dir, "fb");
    train(&c, pfb, sys, "-p baseline -q fifo");
    ck_assert_rel(test_csv_d(&c, 0, "iteration_us") * 1000, 58062);
    ck_assert_rel(list_at(test_csv_s(&c, 0, "class_end_us"), 1) * 1000, 52062);
    ck_assert_rel(list_at(test_csv_s(&c, 0, "class_exposed_comm_us"), 0) * 1000, 48062);
    ck_assert_rel(list_at(test_csv_s(&c, 0, "class_exposed_comm_us"), 1) * 1000, 45062);
    test_csv_free(&c);
    /* two micro-batches under one tag: stage 0 computes 5 us, sends, computes 5 us, sends
     * again; stage 1 receives, computes 3 us, receives, computes 3 us. ASTRA-sim pairs the
     * sends and receives of one key in the order they are issued (the second receive takes
     * the second message, not the first one that already arrived): stage 0 ends at 5000 +
     * 20531 + 5000 + 20531 = 51062 (exposed 41062), stage 1's second receive at 51062 and its
     * compute at 54062 (exposed 48062); measured with ASTRA-sim 2.x, the same ends */
    wnode m0[] = {COMPUTE(1, 5),
                  {.id = 2, .type = SEND, .comm = -1, .size = 1048576, .peer = 2},
                  COMPUTE(3, 5),
                  {.id = 4, .type = SEND, .comm = -1, .size = 1048576, .peer = 2}};
    wnode m1[] = {{.id = 1, .type = RECV, .comm = -1, .size = 1048576, .peer = -2},
                  COMPUTE(2, 3),
                  {.id = 3, .type = RECV, .comm = -1, .size = 1048576, .peer = -2},
                  COMPUTE(4, 3)};
    for (int k = 1; k < 4; k++) {
        m0[k].data[0] = m1[k].data[0] = (uint64_t)k, m0[k].ndata = m1[k].ndata = 1;
    }
    const wnode *mb[2] = {m0, m1};
    const int nmb[2] = {4, 4};
    write_classes(dir, "mb", mb, nmb, 4, NULL);
    TEST_DIR_PATH(pmb, dir, "mb");
    train(&c, pmb, sys, "-p baseline -q fifo");
    ck_assert_rel(test_csv_d(&c, 0, "iteration_us") * 1000, 54062);
    ck_assert_rel(list_at(test_csv_s(&c, 0, "class_end_us"), 0) * 1000, 51062);
    ck_assert_rel(list_at(test_csv_s(&c, 0, "class_exposed_comm_us"), 0) * 1000, 41062);
    ck_assert_rel(list_at(test_csv_s(&c, 0, "class_exposed_comm_us"), 1) * 1000, 48062);
    test_csv_free(&c);
    /* the same pairing under the analytical model (cli_ring4.json, r to r + 2: 20 + 1048576 /
     * 100 = 10505.76 ns; a send holds no stream): 5000 + 10505.76 + 5000 + 10505.76 =
     * 31011.52, then stage 1's compute: 34011.52 */
    ck_assert_rel(iteration(pmb, test_dpath("cli_ring4.json"), "-p baseline -q fifo"), 34011.52);
    /* a chain of 4 stages, one rank each (rank r receives from r - 1, computes 2 us, sends
     * to r + 1): ranks 1 and 2 hold one graph but send to and receive from ranks of other
     * classes, so they are classes of their own. One hop on the ring, floor(500 + 19531.25)
     * = 20031 ns: 2000 + 20031 = 22031, + 2000 + 20031 = 44062, 66093, and rank 3 ends at
     * 66093 + 2000 = 68093 (measured on ASTRA-sim 2.x: the same four ends) */
    wnode c0[] = {COMPUTE(1, 2), {.id = 2, .type = SEND, .comm = -1, .size = 1048576, .peer = 1}};
    wnode c1[] = {{.id = 1, .type = RECV, .comm = -1, .size = 1048576, .peer = -1},
                  COMPUTE(2, 2),
                  {.id = 3, .type = SEND, .comm = -1, .size = 1048576, .peer = 1}};
    wnode c3[] = {{.id = 1, .type = RECV, .comm = -1, .size = 1048576, .peer = -1}, COMPUTE(2, 2)};
    c0[1].data[0] = 1, c0[1].ndata = 1;
    c1[1].data[0] = 1, c1[1].ndata = 1;
    c1[2].data[0] = 2, c1[2].ndata = 1;
    c3[1].data[0] = 1, c3[1].ndata = 1;
    for (int k = 0; k < 4; k++) {
        char path[4200];
        snprintf(path, sizeof path, "%s/chain.%d.et", dir, k);
        w_rank = k, w_ranks = 4;
        write_trace(path,
                    k == 0   ? c0
                    : k == 3 ? c3
                             : c1,
                    k == 0 || k == 3 ? 2 : 3, 1000u * (uint64_t)k);
    }
    TEST_DIR_PATH(chain, dir, "chain");
    train(&c, chain, sys, "-p baseline -q fifo");
    ck_assert_str_eq(test_csv_s(&c, 0, "class_end_us"), "22.031;44.062;66.093;68.093");
    ck_assert_str_eq(test_csv_s(&c, 0, "class_exposed_comm_us"), "20.031;42.062;64.093;66.093");
    test_csv_free(&c);
    /* the report names the classes: their first ranks and ranks */
    test_cli_out r;
    test_cli(&r, "train '%s' -s '%s' -f json -p baseline -q fifo", pp, sys);
    test_expect_quiet(&r, "json");
    ck_assert_ptr_nonnull(strstr(r.out, "\"classes\":\t2"));
    ck_assert_ptr_nonnull(strstr(r.out, "\"class_first_rank\":\t[0, 2]"));
    ck_assert_ptr_nonnull(strstr(r.out, "\"class_ranks\":\t[[0, 1], [2, 3]]"));
    test_cli_free(&r);
    test_cli(&r, "train '%s' -s '%s' -p baseline -q fifo", pp, sys);
    test_expect_quiet(&r, "table");
    ck_assert_ptr_nonnull(strstr(r.out, "Chakra trace of 4 ranks in 2 classes"));
    ck_assert_ptr_nonnull(strstr(r.out, "ranks in 2 classes"));
    test_cli_free(&r);
    /* the timeline names each node with its class's replayed rank */
    test_cli(&r, "train '%s' -s '%s' -p baseline -q fifo -o /dev/null --trace -", pp, sys);
    test_expect_quiet(&r, "trace");
    ck_assert_ptr_nonnull(
        strstr(r.out, "baseline,fifo,compute,0,rank 2: n2,COMP_NODE,25.531,28.531"));
    test_cli_free(&r);
    test_rm_dir(dir);
}
END_TEST

/* A collective whose ranks span classes. Every rank computes 4 us, then a 1 MiB All-Reduce on
 * the ring of 4 (43000 ns, above), then 1 us on even ranks and 2 us on odd ones: two classes,
 * the All-Reduce issued at 4000 in both: 48000 and 49000 ns, 43000 exposed in each (ASTRA-sim
 * 2.x, measured: sys[0, 2] 48000, sys[1, 3] 49000, exposed 43000). When rank 0 computes 5 us
 * before it, the All-Reduce is issued at 5000 there and 4000 elsewhere: ASTRA-sim runs each
 * NPU's part from when that NPU issues it, which one rank per class does not replay, so the
 * preset replays the trace NPU by NPU. A chunk's ring messages form chains: NPU r sends its
 * k-th message once NPU r - 1's (k - 1)-th arrived, 1730 ns a step (1720 + 10, above), more
 * than the 1000 ns rank 0 starts late, so only the chain from rank 0's first message runs
 * late; it ends 6 steps on, on rank 2, whose next chunk's late chain ends on rank 0 (2 + 6 =
 * 0 mod 4), and so on: after 4 chunks rank 0 ends at 5000 + 43000 = 48000, ranks 1..3 at
 * 4000 + 43000 = 47000, 43000 exposed in both classes (measured, ASTRA-sim 2.x: sys[0] 48000,
 * sys[1..3] 47000, exposed 43000). Under the analytical model (tests/data/cli_ring4.json,
 * -n 4: the All-Reduce 15968.64 ns, as above) it starts when the last class issues it: 5000
 * + 15968.64 = 20968.64 ns in both classes. */
START_TEST(chakra_classes_collective) {
    char *dir = test_tmp_dir();
    const char *sys = astra_system(dir, 4);
    wnode e[] = {COMPUTE(1, 4), COLLECTIVE(2, AR, 1048576), COMPUTE(3, 1)};
    wnode o[] = {COMPUTE(1, 4), COLLECTIVE(2, AR, 1048576), COMPUTE(3, 2)};
    e[1].data[0] = o[1].data[0] = 1, e[1].ndata = o[1].ndata = 1;
    e[2].data[0] = o[2].data[0] = 2, e[2].ndata = o[2].ndata = 1;
    const wnode *g[2] = {e, o};
    const int n[2] = {3, 3}, alt[4] = {0, 1, 0, 1};
    write_classes(dir, "eo", g, n, 4, alt);
    TEST_DIR_PATH(eo, dir, "eo");
    test_csv c;
    train(&c, eo, sys, "-p baseline -q fifo");
    ck_assert_rel(test_csv_d(&c, 0, "iteration_us") * 1000, 49000);
    ck_assert_rel(list_at(test_csv_s(&c, 0, "class_end_us"), 0) * 1000, 48000);
    ck_assert_rel(list_at(test_csv_s(&c, 0, "class_exposed_comm_us"), 0) * 1000, 43000);
    ck_assert_rel(list_at(test_csv_s(&c, 0, "class_exposed_comm_us"), 1) * 1000, 43000);
    ck_assert_int_eq((int)test_csv_d(&c, 0, "collectives"), 2); /* one copy per class */
    test_csv_free(&c);
    wnode late[] = {COMPUTE(1, 5), COLLECTIVE(2, AR, 1048576)},
          on[] = {COMPUTE(1, 4), COLLECTIVE(2, AR, 1048576)};
    late[1].data[0] = on[1].data[0] = 1, late[1].ndata = on[1].ndata = 1;
    const wnode *sk[2] = {late, on};
    const int nsk[2] = {2, 2}, first[4] = {0, 1, 1, 1};
    write_classes(dir, "skew", sk, nsk, 4, first);
    TEST_DIR_PATH(skew, dir, "skew");
    train(&c, skew, sys, "-p baseline -q fifo");
    ck_assert_rel(test_csv_d(&c, 0, "iteration_us") * 1000, 48000);
    ck_assert_rel(list_at(test_csv_s(&c, 0, "class_end_us"), 0) * 1000, 48000);
    ck_assert_rel(list_at(test_csv_s(&c, 0, "class_end_us"), 1) * 1000, 47000);
    ck_assert_rel(list_at(test_csv_s(&c, 0, "class_exposed_comm_us"), 0) * 1000, 43000);
    ck_assert_rel(list_at(test_csv_s(&c, 0, "class_exposed_comm_us"), 1) * 1000, 43000);
    test_csv_free(&c);
    ck_assert_rel(iteration(skew, test_dpath("cli_ring4.json"), "-p baseline -q fifo -n 4"),
                  20968.64);
    test_rm_dir(dir);
}
END_TEST

/* th_ck_match_receives on one graph whose ranks are all of one class: sends j0, j1 of tag 1
 * and 8 bytes and j2 of tag 2; receives of tag 1 (8 bytes) at 3, 5 and 6, of tag 2 at 4, of
 * tag 1 and 16 bytes at 7. The k-th receive of a tag and size takes the k-th send of them:
 * 3 -> j0 and 5 -> j1 (two such sends: several), 4 -> j2 (one), 6 is the third of tag 1 and
 * has none (-1 - 2), nor has 7 (-1 - 0). */
START_TEST(chakra_match_receives) {
    th_ck_node x[8] = {{0}};
    const int kind[8] = {TH_CK_SEND, TH_CK_SEND, TH_CK_SEND, TH_CK_RECV,
                         TH_CK_RECV, TH_CK_RECV, TH_CK_RECV, TH_CK_RECV};
    const int tag[8] = {1, 1, 2, 1, 2, 1, 1, 1};
    for (int i = 0; i < 8; i++)
        x[i].kind = (uint8_t)kind[i], x[i].tag = tag[i], x[i].size = i == 7 ? 16 : 8;
    th_ck_graph g = {0};
    g.nodes = x, g.n = 8;
    th_ck_trace tr = {0};
    tr.ranks = 1;
    const th_ck_graph *gs[1] = {&g};
    const int32_t peer[8] = {0}, *ps[1] = {peer};
    int32_t match[8], matchc[8];
    uint8_t several[8];
    ck_assert_int_eq(th_ck_match_receives(&tr, 0, gs, ps, match, matchc, several), TH_OK);
    const int32_t want[8] = {0, 0, 0, 0, 2, 1, -3, -1};
    const uint8_t many[8] = {0, 0, 0, 1, 0, 1, 1, 0};
    for (int i = 3; i < 8; i++) {
        ck_assert_int_eq(match[i], want[i]);
        ck_assert_int_eq(matchc[i], 0);
        ck_assert_int_eq(several[i], many[i]);
    }
}
END_TEST

/* Classes under Themis on several dims, which the preset replays NPU by NPU (every NPU's
 * collectives planned by rank 0's scheduler in the order the NPUs generate them), on
 * tests/data/chakra/r2_r2.yml (Ring 2 @ 200 GB/s, 500 ns x Ring 2 @ 150 GB/s, 50 ns; rank r =
 * d0 + 2 d1) with themis_FIFO_2d_s2.json, even ranks one class and odd ranks another.
 *
 * Even ranks compute 2 us and odd ranks 3 us, then every rank runs a 1 MiB All-Reduce on
 * both dims, issued 1 us apart: measured on ASTRA-sim 2.x (astra-sim 518bd51, its Sys.cc made
 * to read the two scheduling keys): sys[0, 2] 9429, exposed 7429; sys[1, 3] 9472, exposed
 * 6472.
 *
 * An All-Reduce on dim 1 alone, 8192 bytes on even ranks and 4096 on odd ones, one chunk: at 0
 * the NPUs start in rank order, so rank 0 plans Themis's shared chunk 0 with its 8192 bytes;
 * rank 1 takes that chunk with 4096 bytes left, and ASTRA-sim's 64-bit remaining size wraps
 * around below 0: it generates chunks without end (measured: no NPU finishes). Refused,
 * naming NPU 1's file and node. Under the baseline each ring of 2 runs its own: 2 messages
 * of s / 2, B = 161.06127 bytes/ns, 10 + 2 (floor(50 + 4096 / B) + 10) + 3 floor(4096 /
 * 1600) = 10 + 2 x 85 + 6 = 186 ns on even ranks, 10 + 2 (floor(50 + 2048 / B) + 10) + 3 = 157
 * on odd ones. */
START_TEST(chakra_classes_themis) {
    char *dir = test_tmp_dir();
    TEST_DIR_PATH(sys, dir, "r2r2.json");
    import_astra("chakra/r2_r2.yml", "chakra/themis_FIFO_2d_s2.json", sys);
    const int alt[4] = {0, 1, 0, 1}, n[2] = {2, 2};
    wnode e[] = {COMPUTE(1, 2), COLLECTIVE(2, AR, 1048576)};
    wnode o[] = {COMPUTE(1, 3), COLLECTIVE(2, AR, 1048576)};
    e[1].data[0] = o[1].data[0] = 1, e[1].ndata = o[1].ndata = 1;
    const wnode *g[2] = {e, o};
    write_classes(dir, "skew", g, n, 4, alt);
    TEST_DIR_PATH(skew, dir, "skew");
    test_csv c;
    train(&c, skew, sys, "-p themis -q fifo");
    ck_assert_rel(test_csv_d(&c, 0, "iteration_us") * 1000, 9472);
    ck_assert_rel(list_at(test_csv_s(&c, 0, "class_end_us"), 0) * 1000, 9429);
    ck_assert_rel(list_at(test_csv_s(&c, 0, "class_end_us"), 1) * 1000, 9472);
    ck_assert_rel(list_at(test_csv_s(&c, 0, "class_exposed_comm_us"), 0) * 1000, 7429);
    ck_assert_rel(list_at(test_csv_s(&c, 0, "class_exposed_comm_us"), 1) * 1000, 6472);
    test_csv_free(&c);
    wnode big[] = {COLLECTIVE(1, AR, 8192)}, small[] = {COLLECTIVE(1, AR, 4096)};
    big[0].ndims = small[0].ndims = 2;
    big[0].dims[1] = small[0].dims[1] = 1;
    const wnode *w[2] = {big, small};
    const int one[2] = {1, 1};
    write_classes(dir, "wrap", w, one, 4, alt);
    TEST_DIR_PATH(wrap, dir, "wrap");
    test_bad("wrap.1.et: node 1001 (allreduce of 4096 bytes): ASTRA-sim 2.x would not finish: "
             "at 0 ns NPU 1 takes Themis's shared schedule of chunk 0",
             "train '%s' -s '%s' -p themis -q fifo -n 1", wrap, sys);
    train(&c, wrap, sys, "-p baseline -q fifo -n 1");
    ck_assert_rel(list_at(test_csv_s(&c, 0, "class_end_us"), 0) * 1000, 186);
    ck_assert_rel(list_at(test_csv_s(&c, 0, "class_end_us"), 1) * 1000, 157);
    test_csv_free(&c);
    test_rm_dir(dir);
}
END_TEST

/* ---- process groups (pg_name and a communicator group file) ----
 *
 * tests/data/chakra/r4_s4.yml (Ring 4 @ 200 GB/s, 50 ns; Switch 4 @ 50 GB/s, 100 ns; 16 NPUs)
 * with Ring_4chunks_2d.json (4 splits, ring on both dims, baseline): a group per row of dim 0
 * ({0..3}, {4..7}, ...; rank r's pg_name its row's id), each rank C(2 us) -> All-Reduce of
 * 1 MiB on its group -> C(1 us). ASTRA-sim runs a group of part of the system as a ring over
 * its NPUs: on a row, dim 0's ring. Its chunk of 262144 bytes is one AR phase on p = 4: s/p =
 * 65536, B = 214.7483648 bytes/ns, net = floor(50 + 305.18) = 355, proc = 3 floor(65536 /
 * 1600) = 120: 10 + 6 (355 + 10) + 3 x 120 = 2560; 4 chunks 10240; with the compute 13240 ns,
 * exposed 10240 (four classes, one per group). On a column of dim 1 (Switch, 2 link hops:
 * net = floor(2 x 100 + 65536 / 53.687091) = 1420): 10 + 6 x 1430 + 360 = 8950, x 4 = 35800,
 * 38800 ns. The group of every NPU runs as the collective on every dim, whatever involved_dim
 * says: 15330 ns for the 1 MiB All-Reduce alone. Measured with ASTRA-sim 2.x
 * (--comm-group-configuration, the build above): 13240 / 10240, 38800 / 35800, 15330. */
START_TEST(chakra_groups) {
    char *dir = test_tmp_dir();
    TEST_DIR_PATH(sys, dir, "r4s4.json");
    import_astra("chakra/r4_s4.yml", "chakra/Ring_4chunks_2d.json", sys);
    TEST_DIR_PATH(rows, dir, "rows.json");
    test_spit_dq(rows, "{'1': [0, 1, 2, 3], '2': [4, 5, 6, 7], '3': [8, 9, 10, 11], "
                       "'4': [12, 13, 14, 15]}");
    TEST_DIR_PATH(cols, dir, "cols.json");
    test_spit_dq(cols, "{'1': [0, 4, 8, 12], '2': [1, 5, 9, 13], '3': [2, 6, 10, 14], "
                       "'4': [3, 7, 11, 15]}");
    static const char *const ids[] = {"1", "2", "3", "4"};
    for (int dim = 0; dim < 2; dim++) {
        char name[16];
        snprintf(name, sizeof name, "g%d", dim);
        for (int k = 0; k < 16; k++) {
            wnode w[] = {COMPUTE(1, 2), COLLECTIVE(2, AR, 1048576), COMPUTE(3, 1)};
            w[1].data[0] = 1, w[1].ndata = 1;
            w[2].data[0] = 2, w[2].ndata = 1;
            w[1].pg = ids[dim ? k % 4 : k / 4];
            char path[4200];
            snprintf(path, sizeof path, "%s/%s.%d.et", dir, name, k);
            w_rank = k, w_ranks = 16;
            write_trace(path, w, 3, 1000u * (uint64_t)k);
        }
        char prefix[4200], more[4400];
        snprintf(prefix, sizeof prefix, "%s/%s", dir, name);
        snprintf(more, sizeof more, "-p baseline -q fifo --comm-group '%s'", dim ? cols : rows);
        test_csv c;
        train(&c, prefix, sys, more);
        ck_assert_rel(test_csv_d(&c, 0, "iteration_us") * 1000, dim ? 38800 : 13240);
        ck_assert_rel(test_csv_d(&c, 0, "exposed_comm_us") * 1000, dim ? 35800 : 10240);
        ck_assert_str_eq(test_csv_s(&c, 0, "class_end_us"),
                         dim ? "38.8;38.8;38.8;38.8" : "13.24;13.24;13.24;13.24");
        test_csv_free(&c);
    }
    /* the group of every NPU; involved_dim is not read */
    TEST_DIR_PATH(all, dir, "all.json");
    test_spit_dq(all, "{'1': [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]}");
    wnode w[] = {COLLECTIVE(1, AR, 1048576)};
    w[0].pg = "1", w[0].ndims = 2, w[0].dims[0] = 1, w[0].dims[1] = 0;
    write_set(dir, "every", w, 1, 16);
    TEST_DIR_PATH(every, dir, "every");
    char more[4400];
    snprintf(more, sizeof more, "-p baseline -q fifo --comm-group '%s'", all);
    ck_assert_rel(iteration(every, sys, more), 15330);
    /* refused: no group file, a group it lacks, a rank outside its group, part of a dim,
     * Themis under the preset */
    TEST_DIR_PATH(g0, dir, "g0");
    test_bad("node 2: attr pg_name: process group 1: no communicator group file given",
             "train '%s' -s '%s' -p baseline -q fifo", g0, sys);
    TEST_DIR_PATH(other, dir, "other.json");
    test_spit_dq(other, "{'7': [0, 1, 2, 3]}");
    test_bad("node 2: attr pg_name: process group 1: not in the communicator group file",
             "train '%s' -s '%s' -p baseline -q fifo --comm-group '%s'", g0, sys, other);
    test_bad("attr pg_name: rank 4 issues this collective of group 1 (every rank holds the same "
             "graph), and is not in it",
             "train '%s' -s '%s' -p baseline -q fifo --comm-group '%s'", every, sys, rows);
    TEST_DIR_PATH(part, dir, "part.json");
    test_spit_dq(part, "{'1': [0, 1], '2': [2, 3], '3': [4, 5, 6, 7], '4': [8, 9, 10, 11, 12, "
                       "13, 14, 15]}");
    test_bad("group 1 takes 2 of the 4 NPUs of dim 0 of system \"r4_s4\"",
             "train '%s' -s '%s' -p baseline -q fifo --comm-group '%s'", g0, sys, part);
    test_bad("under the astra-sim preset a group of part of the system replays when it is the "
             "NPUs of one dim that runs a ring for the allreduce, under baseline scheduling",
             "train '%s' -s '%s' -p themis -q fifo --comm-group '%s'", g0, sys, rows);
    /* a sweep takes the group file as its comm_group key (beside the spec: its directory) */
    char text[8192];
    snprintf(text, sizeof text,
             "{'name': 'pg', 'system': '%s', 'workload': 'g0', 'comm_group': 'rows.json', "
             "'axes': {'policy': ['baseline'], 'intra': ['fifo']}}",
             sys);
    test_csv c;
    test_sweep_csv(&c, dir, text);
    ck_assert_int_eq(c.nrows, 1);
    ck_assert_rel(test_csv_d(&c, 0, "iteration_us") * 1000, 13240);
    test_csv_free(&c);
    snprintf(text, sizeof text, "{'workload': '%s', 'comm_group': 'rows.json'}",
             test_dpath("wl_chakra_rt.json"));
    TEST_DIR_PATH(spec, dir, "spec.json");
    test_spit_dq(spec, text);
    test_bad("comm_group: for Chakra execution traces", "sweep '%s' -o -", spec);
    /* bad group files, and a group file for a workload that has no process groups */
    static const struct {
        const char *text, *need;
    } bad[] = {{"{'x': [0]}", "\"x\": expected a process group's id, a whole number from 1"},
               {"{'0': [0]}", "\"0\": expected a process group's id"},
               {"{'1': [0, 1.5]}", "1[1]: expected a rank (a whole number >= 0), got 1.5"},
               {"{'1': [3, 3]}", "1: rank 3 listed twice"},
               {"{'1': []}", "1: expected a non-empty list of ranks"},
               {"{'1': [0], '1': [1]}", "group 1 given twice"},
               {"[1]", "expected an object of process groups"}};
    TEST_DIR_PATH(bg, dir, "bad.json");
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        test_spit_dq(bg, bad[i].text);
        test_bad(bad[i].need, "train '%s' -s '%s' --comm-group '%s'", g0, sys, bg);
    }
    test_bad("--comm-group is for Chakra execution traces; ", "train '%s' --comm-group '%s'",
             test_dpath("wl_chakra_rt.json"), rows);
    /* under the analytical model a group of whole dims runs on them: on
     * tests/data/chakra_rt_2d.json (a ring of 4 in a switch of 4), the rows' group collective
     * takes what the collective with involved_dim [1, 0] takes, the columns' what [0, 1]
     * takes, and Themis replays them too */
    const char *rt = test_dpath("chakra_rt_2d.json");
    for (int dim = 0; dim < 2; dim++) {
        wnode d[] = {COMPUTE(1, 2), COLLECTIVE(2, AR, 1048576), COMPUTE(3, 1)};
        d[1].data[0] = 1, d[1].ndata = 1;
        d[2].data[0] = 2, d[2].ndata = 1;
        d[1].ndims = 2, d[1].dims[dim] = 1;
        write_set(dir, "dims", d, 3, 16);
        TEST_DIR_PATH(pd, dir, "dims");
        char prefix[4200];
        snprintf(prefix, sizeof prefix, "%s/g%d", dir, dim);
        for (int p = 0; p < 2; p++) {
            snprintf(more, sizeof more, "-p %s -q fifo -n 4 --comm-group '%s'",
                     p ? "themis" : "baseline", dim ? cols : rows);
            ck_assert_rel(iteration(prefix, rt, more), iteration(pd, rt, more));
        }
    }
    test_rm_dir(dir);
}
END_TEST

/* ---- the analytical model: collectives overlap ----
 *
 * tests/data/cli_ring4.json: an All-Reduce of S bytes in C chunks is 2C stages on the one
 * dim, 60 C + 0.015 S ns (tests/test_cli_train.c); S = 1 MiB, -n 4: 240 + 15728.64 =
 * 15968.64 ns. Two root All-Reduces are in flight together and keep the dim busy until both
 * end: 2 * 15968.64 = 31937.28 ns. A compute node takes exactly its duration (0 is 0): C(3 us)
 * then the All-Reduce then C(0 us): 3000 + 15968.64 = 18968.64 ns. */
START_TEST(chakra_graphs_analytical) {
    char *dir = test_tmp_dir();
    const char *sys = test_dpath("cli_ring4.json");
    wnode two[] = {COLLECTIVE(1, AR, 1048576), COLLECTIVE(2, AR, 1048576)};
    write_set(dir, "two", two, 2, 4);
    TEST_DIR_PATH(p1, dir, "two");
    ck_assert_rel(iteration(p1, sys, "-p baseline -q fifo -n 4"), 31937.28);
    wnode chain[] = {COMPUTE(0, 3), COLLECTIVE(1, AR, 1048576), COMPUTE(2, 0)};
    chain[1].data[0] = 0, chain[1].ndata = 1;
    chain[2].data[0] = 1, chain[2].ndata = 1;
    write_set(dir, "chain", chain, 3, 4);
    TEST_DIR_PATH(p2, dir, "chain");
    ck_assert_rel(iteration(p2, sys, "-p baseline -q fifo -n 4"), 18968.64);
    test_rm_dir(dir);
}
END_TEST

/* Every pair by default (baseline and themis, fifo and scf), the speedup against baseline +
 * fifo; JSON names the format. */
START_TEST(chakra_pairs_and_formats) {
    char *dir = test_tmp_dir();
    wnode w[] = {COLLECTIVE(0, AR, 1048576)};
    write_set(dir, "one", w, 1, 4);
    TEST_DIR_PATH(prefix, dir, "one");
    test_csv c;
    train(&c, prefix, test_dpath("cli_ring4.json"), "-n 4");
    ck_assert_int_eq(c.nrows, 4);
    ck_assert_str_eq(test_csv_s(&c, 0, "policy"), "baseline");
    ck_assert_str_eq(test_csv_s(&c, 0, "intra"), "fifo");
    ck_assert_rel(test_csv_d(&c, 0, "speedup"), 1);
    ck_assert_str_eq(test_csv_s(&c, 3, "policy"), "themis");
    ck_assert_str_eq(test_csv_s(&c, 3, "intra"), "scf");
    test_csv_free(&c);
    test_cli_out r;
    test_cli(&r, "train '%s' -s '%s' -f json -p baseline -q fifo", prefix,
             test_dpath("cli_ring4.json"));
    test_expect_quiet(&r, "json");
    ck_assert_ptr_nonnull(strstr(r.out, "\"format\":\t\"chakra\""));
    ck_assert_ptr_nonnull(strstr(r.out, "\"ranks\":\t4"));
    test_cli_free(&r);
    test_rm_dir(dir);
}
END_TEST

/* A sweep takes a trace as its workload (by prefix or by file), with the system's chunks
 * (run.chunks, ASTRA-sim's preferred-dataset-splits): the 1 MiB All-Reduce of ring 4 takes
 * 43000 ns (above) under the baseline; under Themis the chunk's RS and AG are separate phases:
 * RS 10 + 3 (1720 + 10 + 120) = 5560, AG of 65536: 10 + 3 (1720 + 10) = 5200, 10760 per chunk,
 * 43040 ns. A trace has no ideal-network replay: those columns are empty. */
START_TEST(chakra_sweep) {
    char *dir = test_tmp_dir();
    const char *sys = astra_system(dir, 4);
    wnode w[] = {COLLECTIVE(0, AR, 1048576)};
    write_set(dir, "ar", w, 1, 4);
    char text[8192];
    snprintf(text, sizeof text,
             "{'name': 'ck', 'system': '%s', 'axes': {'workload': ['ar', 'ar.1.et'], "
             "'policy': ['baseline', 'themis'], 'intra': ['fifo']}}",
             sys);
    test_csv c;
    test_sweep_csv(&c, dir, text);
    ck_assert_int_eq(c.nrows, 4);
    static const double ns[4] = {43000, 43040, 43000, 43040};
    for (int i = 0; i < 4; i++) {
        ck_assert_str_eq(test_csv_s(&c, i, "workload"), "ar");
        ck_assert_rel(test_csv_d(&c, i, "iteration_us") * 1000, ns[i]);
        ck_assert_str_eq(test_csv_s(&c, i, "ideal_speedup"), "");
    }
    ck_assert_rel(test_csv_d(&c, 1, "speedup"), 43000.0 / 43040.0);
    test_csv_free(&c);
    test_rm_dir(dir);
}
END_TEST

/* ---- bad traces: exit 2, the file, the node id and the field ---- */

START_TEST(chakra_bad_traces) {
    char *dir = test_tmp_dir();
    const char *sys = astra_system(dir, 4);
    char path[4300], need[4400];
    /* a dependency on a missing node */
    wnode missing[] = {COMPUTE(1, 1), COMPUTE(2, 1)};
    missing[1].data[0] = 99, missing[1].ndata = 1;
    write_set(dir, "missing", missing, 2, 1);
    snprintf(path, sizeof path, "%s/missing.0.et", dir);
    snprintf(need, sizeof need, "%s: node 2: data_deps/ctrl_deps: no node has the id 99", path);
    test_bad(need, "train '%s/missing' -s '%s'", dir, sys);
    /* a cycle: 1 -> 2 -> 1 (through a control dependency) */
    wnode cycle[] = {COMPUTE(1, 1), COMPUTE(2, 1), COMPUTE(3, 1)};
    cycle[1].data[0] = 1, cycle[1].ndata = 1;
    cycle[0].ctrl[0] = 2, cycle[0].nctrl = 1;
    write_set(dir, "cycle", cycle, 3, 1);
    test_bad("node 1: data_deps/ctrl_deps: on a dependency cycle", "train '%s/cycle' -s '%s'", dir,
             sys);
    /* an unknown collective type: REDUCE (1) */
    wnode reduce[] = {COLLECTIVE(4, 1, 1024)};
    write_set(dir, "reduce", reduce, 1, 1);
    test_bad("node 4: attr comm_type: 1 (REDUCE)", "train '%s/reduce' -s '%s'", dir, sys);
    /* involved_dim selecting no dim of a 1-D system */
    wnode nodim[] = {COLLECTIVE(5, AR, 1048576)};
    nodim[0].ndims = 2, nodim[0].dims[0] = 0, nodim[0].dims[1] = 1;
    write_set(dir, "nodim", nodim, 1, 1);
    test_bad("node 5: attr involved_dim: selects no dim", "train '%s/nodim' -s '%s'", dir, sys);
    /* involved_dim shorter than the system's dims (here none on a 1-D system) */
    wnode nolist[] = {COLLECTIVE(6, AR, 1048576)};
    nolist[0].ndims = -1;
    write_set(dir, "nolist", nolist, 1, 1);
    test_bad("node 6: attr involved_dim: 0 entries for the 1 dims", "train '%s/nolist' -s '%s'",
             dir, sys);
    /* ranks that disagree on a collective's size (rank 1 alone holds the larger one) */
    wnode a[] = {COLLECTIVE(0, AR, 1048576)}, b[] = {COLLECTIVE(0, AR, 2097152)};
    for (int k = 0; k < 4; k++) {
        snprintf(path, sizeof path, "%s/dis.%d.et", dir, k);
        write_trace(path, k == 1 ? b : a, 1, 1000u * (uint64_t)k);
    }
    snprintf(path, sizeof path, "%s/dis.1.et", dir);
    snprintf(need, sizeof need, "%s: node 1000: attr comm_size: allreduce of 2097152 bytes", path);
    test_bad(need, "train '%s/dis' -s '%s'", dir, sys);
    test_bad("ranks that disagree on a collective", "train '%s/dis' -s '%s'", dir, sys);
    /* ranks that differ, fewer files than NPUs: which NPU runs which graph is unknown */
    snprintf(path, sizeof path, "%s/two.0.et", dir);
    write_trace(path, a, 1, 0);
    snprintf(path, sizeof path, "%s/two.1.et", dir);
    write_trace(path, b, 1, 1000);
    test_bad("2 rank files whose graphs differ (2 classes of ranks), and system \"Ring_4npus\" "
             "has 4 NPUs",
             "train '%s/two' -s '%s'", dir, sys);
    /* a truncated file: the last node cut short */
    wnode ok[] = {COMPUTE(1, 1), COMPUTE(2, 1)};
    write_set(dir, "cut", ok, 2, 1);
    snprintf(path, sizeof path, "%s/cut.0.et", dir);
    size_t len;
    char *data = test_slurp(path, &len);
    test_spit(path, data, len - 3);
    free(data);
    snprintf(need, sizeof need, "%s: byte", path);
    test_bad(need, "train '%s/cut' -s '%s'", dir, sys);
    test_bad("after node 1: node: truncated", "train '%s/cut' -s '%s'", dir, sys);
    /* a rank > 0 alone */
    snprintf(path, sizeof path, "%s/only.3.et", dir);
    write_trace(path, ok, 2, 0);
    test_bad("rank 0's", "train '%s' -s '%s'", path, sys);
    test_rm_dir(dir);
}
END_TEST

/* The reader alone: ids sorted, dependencies resolved (data and control, each once), the
 * attributes kept. */
START_TEST(chakra_reader) {
    char *dir = test_tmp_dir();
    wnode w[] = {COMPUTE(9, 7), COLLECTIVE(4, AG, 4096), COMPUTE(6, 0)};
    w[2].data[0] = 4, w[2].ctrl[0] = 4, w[2].ctrl[1] = 9, w[2].ndata = 1, w[2].nctrl = 2;
    w[1].ndims = 2, w[1].dims[0] = 0, w[1].dims[1] = 1;
    TEST_DIR_PATH(path, dir, "r.0.et");
    write_trace(path, w, 3, 0);
    size_t len;
    char *data = test_slurp(path, &len);
    ck_assert(th_ck_detect(data, len));
    ck_assert(!th_ck_detect("{\"name\": 1}", 11));
    th_ck_graph g;
    th_error err;
    ck_assert_msg(th_ck_parse(data, len, path, &g, &err) == TH_OK, "%s", err.msg);
    ck_assert_int_eq(g.n, 3);
    ck_assert_str_eq(g.version, "0.0.4");
    ck_assert_uint_eq(g.nodes[0].id, 4);
    ck_assert_uint_eq(g.nodes[1].id, 6);
    ck_assert_uint_eq(g.nodes[2].id, 9);
    ck_assert_int_eq(g.nodes[0].kind, TH_CK_COLL);
    ck_assert_int_eq(g.nodes[0].coll, TH_COLL_ALLGATHER);
    ck_assert_rel(g.nodes[0].size, 4096);
    ck_assert_int_eq(g.nodes[0].ndims, 2);
    ck_assert_uint_eq(g.nodes[0].dims, 2u);
    ck_assert_uint_eq(g.nodes[1].ndeps, 2); /* 4 once, 9 */
    ck_assert_int_eq(g.child_off[1] - g.child_off[0], 1);
    ck_assert_str_eq(th_ck_name(&g, 2), "n9");
    ck_assert_uint_eq(g.nodes[2].micros, 7);
    th_ck_graph_free(&g);
    /* a file cut anywhere is refused, never read past its end, unless the cut falls between
     * two messages (the metadata and then whole nodes: a shorter, valid trace) */
    int whole = 0;
    for (size_t cut = 0; cut < len; cut++) {
        th_ck_graph h;
        int rc = th_ck_parse(data, cut, path, &h, &err);
        ck_assert_msg(rc == TH_EINPUT || rc == TH_OK, "cut at %zu: %d", cut, rc);
        if (rc == TH_OK) whole++, th_ck_graph_free(&h);
    }
    ck_assert_int_eq(whole, 3); /* after the metadata, after node 9, after node 4 */
    free(data);
    test_rm_dir(dir);
}
END_TEST

Suite *chakra_suite(void) {
    Suite *s = suite_create("chakra");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, chakra_reader);
    tcase_add_test(tc, chakra_microbenchmarks);
    tcase_add_test(tc, chakra_graphs_astra);
    tcase_add_test(tc, chakra_metadata);
    tcase_add_test(tc, chakra_roofline);
    tcase_add_test(tc, chakra_send_recv);
    tcase_add_test(tc, chakra_send_recv_analytical);
    tcase_add_test(tc, chakra_classes_send_recv);
    tcase_add_test(tc, chakra_classes_collective);
    tcase_add_test(tc, chakra_classes_themis);
    tcase_add_test(tc, chakra_match_receives);
    tcase_add_test(tc, chakra_groups);
    tcase_add_test(tc, chakra_themis_across_collectives);
    tcase_add_test(tc, chakra_themis_first_npu);
    tcase_add_test(tc, chakra_themis_halving_doubling_lead);
    tcase_add_test(tc, chakra_themis_direct_lead);
    tcase_add_test(tc, chakra_themis_ends_inside_rhd_direct);
    tcase_add_test(tc, chakra_themis_meetings_rhd_direct);
    tcase_add_test(tc, chakra_themis_rhd_parting_npus);
    tcase_add_test(tc, chakra_themis_direct_ring_node);
    tcase_add_test(tc, chakra_themis_direct_rs_end);
    tcase_add_test(tc, chakra_themis_meeting_overtaken);
    tcase_add_test(tc, chakra_themis_follows_at_later_meetings);
    tcase_add_test(tc, chakra_themis_place_set_first);
    tcase_add_test(tc, chakra_themis_unknown_order_leads_npus);
    tcase_add_test(tc, chakra_npus_odd_ring);
    tcase_add_test(tc, chakra_npus_false_hang);
    tcase_add_test(tc, chakra_themis_rhd_rs_end);
    tcase_add_test(tc, chakra_themis_hang_same_dim);
    tcase_add_test(tc, chakra_themis_hang_ring_direct);
    tcase_add_test(tc, chakra_themis_direct_ring3);
    tcase_add_test(tc, chakra_themis_order_meetings);
    tcase_add_test(tc, chakra_themis_diagonal_order);
    tcase_add_test(tc, chakra_held_dim);
    tcase_add_test(tc, chakra_astra_hang);
    tcase_add_test(tc, chakra_astra_hang_later_start);
    tcase_add_test(tc, chakra_astra_tie_replayed);
    tcase_add_test(tc, chakra_graphs_analytical);
    tcase_add_test(tc, chakra_pairs_and_formats);
    tcase_add_test(tc, chakra_sweep);
    tcase_add_test(tc, chakra_bad_traces);
    suite_add_tcase(s, tc);
    return s;
}

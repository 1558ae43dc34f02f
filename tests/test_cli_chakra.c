/* CLI tests of `themis export-chakra`: the files it writes (one per NPU, rank r's node ids
 * offset by r times the nodes of a file), what it prints, its refusals, and round trips (the
 * trace read back by `themis train PREFIX`). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check_themis.h"

static double trace_time(const char *prefix, const char *sys, const char *more);

/* tests/data/wl_chakra_tiny.json on cli_ring4.json (one ring of 4 NPUs): three nodes a file
 * (a.forward 2 us; the input gradient of 0 ns has none; a.weight_grad 3 us; its All-Reduce), so
 * rank 3's first node is id 3 * 3 = 9: after the metadata, 08 09. */
START_TEST(cli_export) {
    char *dir = test_tmp_dir();
    TEST_DIR_PATH(prefix, dir, "t/tiny");
    test_cli_out r;
    test_cli(&r, "export-chakra '%s' -s '%s' -o '%s'", test_dpath("wl_chakra_tiny.json"),
             test_dpath("cli_ring4.json"), prefix);
    test_expect_quiet(&r, "export-chakra");
    char want[10000];
    snprintf(want, sizeof want,
             "chakra-tiny on cli-ring4: 4 files %s.0.et .. %s.3.et\n"
             "nodes per file  3 (2 compute, 1 collectives), 1 iteration\n"
             "compute         5.000 us per iteration in the workload, 5 us written\n",
             prefix, prefix);
    ck_assert_str_eq(r.out, want);
    test_cli_free(&r);
    for (int k = 0; k < 5; k++) {
        char path[4300];
        snprintf(path, sizeof path, "%s.%d.et", prefix, k);
        ck_assert_msg(test_exists(path) == (k < 4), "%s", path);
    }
    char path[4300];
    snprintf(path, sizeof path, "%s.3.et", prefix);
    size_t len;
    unsigned char *b = (unsigned char *)test_slurp(path, &len);
    size_t meta = b[0]; /* the metadata is shorter than 128 bytes: a one-byte length */
    ck_assert_uint_lt(meta, 128);
    ck_assert_uint_gt(len, meta + 3);
    ck_assert_int_eq(b[1 + meta + 1], 0x08); /* the first node's id field */
    ck_assert_int_eq(b[1 + meta + 2], 9);
    free(b);
    /* the files exist: refused without --force, before anything is written */
    test_bad("already exists; --force replaces it", "export-chakra '%s' -s '%s' -o '%s'",
             test_dpath("wl_chakra_tiny.json"), test_dpath("cli_ring4.json"), prefix);
    test_cli(&r, "export-chakra '%s' -s '%s' -o '%s' --force -f json --iterations 2",
             test_dpath("wl_chakra_tiny.json"), test_dpath("cli_ring4.json"), prefix);
    test_expect_quiet(&r, "export-chakra --force");
    ck_assert_ptr_nonnull(strstr(r.out, "\"files\":\t4"));
    ck_assert_ptr_nonnull(strstr(r.out, "\"nodes\":\t6"));
    test_cli_free(&r);
    test_rm_dir(dir);
}
END_TEST

/* A larger set left at the prefix: its ranks past the new system's NPUs would join the new set
 * when it is read back (up to the first missing rank), so they are refused, and removed with
 * --force. */
START_TEST(cli_export_stale_ranks) {
    char *dir = test_tmp_dir();
    TEST_DIR_PATH(sys8, dir, "ring8.json");
    test_spit_dq(sys8, "{'name': 'ring8', 'dims': [{'name': 'r', 'topology': 'ring', 'npus': 8, "
                       "'bw_GBps': 100, 'latency_ns': 10}]}");
    TEST_DIR_PATH(prefix, dir, "p");
    const char *wl = test_dpath("wl_chakra_tiny.json"), *sys4 = test_dpath("cli_ring4.json");
    test_cli_out r;
    test_cli(&r, "export-chakra '%s' -s '%s' -o '%s'", wl, sys8, prefix);
    test_expect_quiet(&r, "export-chakra on 8 NPUs");
    test_cli_free(&r);
    for (int k = 0; k < 4; k++) { /* as if ranks 0..3 had been moved away */
        char path[4300];
        snprintf(path, sizeof path, "%s.%d.et", prefix, k);
        ck_assert_int_eq(unlink(path), 0);
    }
    test_bad("p.4.et: already exists, a rank past the 4 NPUs of system \"cli-ring4\"",
             "export-chakra '%s' -s '%s' -o '%s'", wl, sys4, prefix);
    test_cli(&r, "export-chakra '%s' -s '%s' -o '%s' --force", wl, sys4, prefix);
    test_expect_quiet(&r, "export-chakra --force");
    test_cli_free(&r);
    for (int k = 0; k < 9; k++) {
        char path[4300];
        snprintf(path, sizeof path, "%s.%d.et", prefix, k);
        ck_assert_msg(test_exists(path) == (k < 4), "%s", path);
    }
    /* the set reads back as 4 ranks: 8855.36 ns, derived in round_trip_by_hand */
    ck_assert_rel(trace_time(prefix, sys4, "-p baseline -q fifo -n 64"), 8.85536);
    test_rm_dir(dir);
}
END_TEST

/* Sub-microsecond compute is rounded, and said so on stderr; an ASTRA-sim 1.0 text workload is
 * converted first. */
START_TEST(cli_export_notes) {
    char *dir = test_tmp_dir();
    TEST_DIR_PATH(prefix, dir, "r");
    test_cli_out r;
    test_cli(&r, "export-chakra '%s/models/workloads/astra/resnet50.txt' -s '%s' -o '%s'",
             getenv("THEMIS_SRCDIR") ? getenv("THEMIS_SRCDIR") : ".", test_dpath("cli_ring4.json"),
             prefix);
    test_expect_ok(&r, "export-chakra resnet50.txt");
    ck_assert_ptr_nonnull(strstr(r.err, "themis: note: Chakra's compute times are whole "
                                        "microseconds"));
    ck_assert_ptr_nonnull(strstr(r.out, "resnet50 on cli-ring4: 4 files"));
    test_cli_free(&r);
    test_rm_dir(dir);
}
END_TEST

START_TEST(cli_export_errors) {
    const char *wl = test_dpath("wl_chakra_tiny.json");
    test_bad("-o PREFIX is required", "export-chakra '%s'", wl);
    test_bad("not standard output", "export-chakra '%s' -o -", wl);
    test_bad("missing the workload file", "export-chakra -o x");
    test_bad("--comm-scale and --compute-scale are for other formats",
             "export-chakra '%s' -o x --comm-scale 2", wl);
    test_bad("--iterations", "export-chakra '%s' -o x --iterations 0", wl);
    /* an LLM workload's compute times need the system's NPU; a group on part of a dim is not an
     * involved_dim */
    const char *src = getenv("THEMIS_SRCDIR") ? getenv("THEMIS_SRCDIR") : ".";
    test_bad("npu: missing in system \"default-3d\"",
             "export-chakra '%s/models/workloads/llm/llama3-8b-dp4096.json' -o x", src);
    test_bad("group tp takes 8 of the 16 NPUs of dim 0",
             "export-chakra '%s/models/workloads/llm/gpt3-13b-dp512.json' -s "
             "'%s/models/systems/torus-3d-llm.json' -o x",
             src, src);
    /* a file named like one of the outputs is an input: never written over */
    char *dir = test_tmp_dir();
    TEST_DIR_PATH(in, dir, "w.0.et");
    TEST_DIR_PATH(prefix, dir, "w");
    size_t len;
    char *text = test_slurp(wl, &len);
    test_spit(in, text, len);
    test_bad("w.0.et", "export-chakra '%s' -o '%s' --force", in, prefix);
    char *after = test_slurp(in, NULL);
    ck_assert_str_eq(after, text);
    free(after);
    free(text);
    /* a collective on dims of one NPU never ends in ASTRA-sim: refused */
    TEST_DIR_PATH(sys, dir, "s.json");
    test_spit_dq(sys, "{'name': 'one', 'dims': [{'name': 'x', 'topology': 'ring', 'npus': 1, "
                      "'bw_GBps': 10, 'latency_ns': 1}, {'name': 'y', 'topology': 'ring', "
                      "'npus': 2, 'bw_GBps': 10, 'latency_ns': 1}]}");
    TEST_DIR_PATH(w2, dir, "wl.json");
    test_spit_dq(w2, "{'name': 'd0', 'parallelism': 'data', 'layers': [{'name': 'a', "
                     "'forward': {'ns': 1}, 'input_grad': {'ns': 0}, 'weight_grad': {'ns': 0, "
                     "'collective': {'type': 'allreduce', 'size': 8, 'dims': [0]}}}]}");
    test_bad("layers[0].weight_grad.collective: dims: no dim of system \"one\"",
             "export-chakra '%s' -s '%s' -o '%s/out'", w2, sys, dir);
    TEST_DIR_PATH(out0, dir, "out.0.et");
    ck_assert(!test_exists(out0));
    /* a file that cannot be written (rank 2's name is a folder) fails the command, and the
     * files it had written before are removed again */
    TEST_DIR_PATH(p2, dir, "q.2.et");
    ck_assert_int_eq(mkdir(p2, 0777), 0);
    test_fails(3, "q.2.et: is a folder", "export-chakra '%s' -s '%s' -o '%s/q' --force", wl,
               test_dpath("cli_ring4.json"), dir);
    TEST_DIR_PATH(q0, dir, "q.0.et");
    TEST_DIR_PATH(q1, dir, "q.1.et");
    ck_assert(!test_exists(q0) && !test_exists(q1));
    test_rm_dir(dir);
}
END_TEST

/* The time `themis train` gives a trace: under our model, when the whole graph has ended. */
static double trace_time(const char *prefix, const char *sys, const char *more) {
    test_cli_out r;
    test_cli(&r, "train '%s' -s '%s' %s -f csv", prefix, sys, more);
    test_expect_quiet(&r, "train PREFIX");
    test_csv c;
    test_csv_parse(&c, r.out);
    ck_assert_int_eq(c.nrows, 1);
    double t = test_csv_d(&c, 0, "iteration_us");
    test_csv_free(&c);
    test_cli_free(&r);
    return t;
}

/* When the last compute or collective of `train WORKLOAD --iterations N` ended (its --trace). */
static double workload_end(const char *wl, const char *sys, const char *more, const char *dir) {
    char trace[4300];
    snprintf(trace, sizeof trace, "%s/trace.csv", dir);
    test_cli_out r;
    test_cli(&r, "train '%s' -s '%s' %s --trace '%s' --force -f csv", wl, sys, more, trace);
    test_expect_quiet(&r, "train --trace");
    test_cli_free(&r);
    test_csv c;
    test_csv_read(&c, trace);
    double end = 0;
    for (int i = 0; i < c.nrows; i++)
        if (test_csv_d(&c, i, "end_us") > end) end = test_csv_d(&c, i, "end_us");
    test_csv_free(&c);
    return end;
}

/* A trace whose speedups' reference (baseline + fifo) the preset refuses, where the pair asked
 * runs: it stands, without a speedup. The tiny workload (2 + 3 us of compute, then an
 * All-Reduce of 1024 bytes) on a switch of 2 NPUs under halvingDoubling (50 bytes/ns, 100 ns,
 * endpoint 10) in -n 512 chunks of 2 bytes: the baseline's AR phase would send 2 floor(1 / 2)
 * = 0 bytes (ASTRA-sim stops). Themis runs each chunk as a reduce-scatter and an all-gather
 * phase of 1-byte messages, 10 + floor(2 x 100 + 1 / 50) + 10 = 220 ns each, one after the
 * other on the one dim: 1024 x 220 = 225280 ns after 5 us of compute, 230.28 us. */
START_TEST(train_without_reference) {
    char *dir = test_tmp_dir();
    const char *sys = test_dpath("astra_sw2_rhd.json");
    TEST_DIR_PATH(prefix, dir, "tiny");
    test_cli_out r;
    test_cli(&r, "export-chakra '%s' -s '%s' -o '%s'", test_dpath("wl_chakra_tiny.json"), sys,
             prefix);
    test_expect_quiet(&r, "export-chakra");
    test_cli_free(&r);
    test_cli(&r, "train '%s' -s '%s' -p themis -q fifo -n 512 -f csv", prefix, sys);
    test_expect_quiet(&r, "train");
    test_csv c;
    test_csv_parse(&c, r.out);
    ck_assert_int_eq(c.nrows, 1);
    ck_assert_str_eq(test_csv_s(&c, 0, "iteration_us"), "230.28");
    ck_assert_str_eq(test_csv_s(&c, 0, "speedup"), "");
    test_csv_free(&c);
    test_cli_free(&r);
    /* both policies asked: the baseline is refused, naming its pair */
    test_bad("baseline + fifo: ", "train '%s' -s '%s' -n 512", prefix, sys);
    test_rm_dir(dir);
}
END_TEST

/* A round trip: the tiny workload's trace replays as its one iteration does by hand. On
 * cli_ring4 (p = 4, B = 100 bytes/ns, alpha = 10 ns, 3 hops) a stage of m bytes takes
 * 30 + 0.0075 m ns (SPEC §3); the All-Reduce of 1024 bytes in -n 64 chunks is 128 stages on
 * the one dim: 128 * 30 + 2 * 0.0075 * 1024 = 3840 + 15.36 = 3855.36 ns after the 2 + 3 us of
 * compute: 8855.36 ns. */
START_TEST(round_trip_by_hand) {
    char *dir = test_tmp_dir();
    TEST_DIR_PATH(prefix, dir, "tiny");
    test_cli_out r;
    test_cli(&r, "export-chakra '%s' -s '%s' -o '%s'", test_dpath("wl_chakra_tiny.json"),
             test_dpath("cli_ring4.json"), prefix);
    test_expect_quiet(&r, "export-chakra");
    test_cli_free(&r);
    ck_assert_rel(trace_time(prefix, test_dpath("cli_ring4.json"), "-p baseline -q fifo -n 64"),
                  8.85536);
    test_rm_dir(dir);
}
END_TEST

/* Whole microseconds go through unchanged: the trace of N iterations of a hybrid workload on two
 * dims (blocking model-parallel All-Reduce, All-to-All and Reduce-Scatter; data-parallel
 * All-Reduces overlapping the backward pass and the next forwards; one over both dims) ends,
 * replayed under every policy and intra policy, exactly when the workload's N iterations end. */
START_TEST(round_trip_whole) {
    char *dir = test_tmp_dir();
    const char *wl = test_dpath("wl_chakra_rt.json"), *sys = test_dpath("chakra_rt_2d.json");
    static const char *const pol[] = {"baseline", "themis", "roundrobin", "themis-global"};
    for (int n = 2; n <= 3; n++) {
        char prefix[4300];
        snprintf(prefix, sizeof prefix, "%s/rt%d", dir, n);
        test_cli_out r;
        test_cli(&r, "export-chakra '%s' -s '%s' -o '%s' --iterations %d", wl, sys, prefix, n);
        test_expect_quiet(&r, "export-chakra");
        test_cli_free(&r);
        for (int p = 0; p < 4; p++)
            for (int q = 0; q < 2; q++) {
                char a[128], b[128];
                snprintf(a, sizeof a, "-p %s -q %s --iterations %d", pol[p], q ? "scf" : "fifo", n);
                snprintf(b, sizeof b, "-p %s -q %s -n 4", pol[p], q ? "scf" : "fifo");
                double want = workload_end(wl, sys, a, dir), got = trace_time(prefix, sys, b);
                ck_assert_msg(got == want, "%d iterations, %s: trace %.17g, workload %.17g", n, a,
                              got, want);
            }
    }
    test_rm_dir(dir);
}
END_TEST

/* Other times come back rounded: the trace of wl_chakra_sub.json (1499.9, 400, 2600.25, 2500,
 * 999.5 and 350 ns) replays as wl_chakra_sub_rounded.json (1, 0, 3, 3, 1 and 0 us), not as
 * itself. */
START_TEST(round_trip_rounded) {
    char *dir = test_tmp_dir();
    TEST_DIR_PATH(prefix, dir, "sub");
    const char *sys = test_dpath("cli_ring4.json");
    test_cli_out r;
    test_cli(&r, "export-chakra '%s' -s '%s' -o '%s' --iterations 2",
             test_dpath("wl_chakra_sub.json"), sys, prefix);
    test_expect_ok(&r, "export-chakra");
    test_cli_free(&r);
    double got = trace_time(prefix, sys, "-p baseline -q fifo -n 2");
    double rounded = workload_end(test_dpath("wl_chakra_sub_rounded.json"), sys,
                                  "-p baseline -q fifo --iterations 2", dir);
    double exact = workload_end(test_dpath("wl_chakra_sub.json"), sys,
                                "-p baseline -q fifo --iterations 2", dir);
    ck_assert_msg(got == rounded, "trace %.17g, rounded workload %.17g", got, rounded);
    ck_assert_msg(got != exact, "trace %.17g, exact workload %.17g", got, exact);
    test_rm_dir(dir);
}
END_TEST

/* An LLM workload's round trip through the binary: tests/data/llm_dp16.json (DP 16 over both
 * dims of llm_sys_2d.json, chunks 16) with one gradient collective (--bucket off) is one chain
 * in the graph, as in the model's sum, so `train PREFIX -n 16` gives the model's iteration plus
 * what rounding did to the compute: the report's written minus the workload's compute. */
START_TEST(round_trip_llm) {
    char *dir = test_tmp_dir();
    TEST_DIR_PATH(prefix, dir, "llm");
    const char *wl = test_dpath("llm_dp16.json"), *sys = test_dpath("llm_sys_2d.json");
    test_cli_out r;
    test_cli(&r, "export-chakra '%s' -s '%s' -o '%s' --bucket off -f json", wl, sys, prefix);
    test_expect_ok(&r, "export-chakra");
    const char *a = strstr(r.out, "\"compute_us\":"), *b = strstr(r.out, "\"written_compute_us\":");
    ck_assert_msg(a && b, "%s", r.out);
    double workload = strtod(a + strlen("\"compute_us\":"), NULL);
    double written = strtod(b + strlen("\"written_compute_us\":"), NULL);
    test_cli_free(&r);
    test_cli(&r, "train '%s' -s '%s' -p baseline -q fifo --bucket off -f csv", wl, sys);
    test_expect_ok(&r, "train LLM");
    test_csv c;
    test_csv_parse(&c, r.out);
    double model = test_csv_d(&c, 0, "iteration_us");
    test_csv_free(&c);
    test_cli_free(&r);
    double got = trace_time(prefix, sys, "-p baseline -q fifo -n 16 --priority fifo");
    ck_assert_msg(fabs(got - (model + written - workload)) < 1e-9 * model,
                  "trace %.17g us, model %.17g + rounding %.17g", got, model, written - workload);
    test_rm_dir(dir);
}
END_TEST

/* The traces ASTRA-sim 2.x runs. Measured on ASTRA-sim 2.x (astra-sim 518bd51, analytical
 * congestion-unaware backend) with tests/data/chakra_astra_net2d.yml (a ring of 4 at 200 GB/s,
 * 20 ns in a switch of 4 at 25 GB/s, 500 ns) and chakra_astra_sys2d.json (its example
 * Ring_4chunks.json, ring on both dims): `sys[0] finished, T cycles` for the traces this
 * command writes on the system themis import-astra makes of those files; themis train PREFIX
 * on that system (the astra-sim preset, baseline + FIFO: ASTRA-sim's defaults) gives the same
 * T. Cases: the tiny workload; the hybrid round-trip workload (model-parallel All-Reduce,
 * All-to-All and Reduce-Scatter, data-parallel All-Reduces, one over both dims) over 1 and 2
 * iterations; DLRM (All-to-All, compute rounded to whole microseconds, 5 phases without a
 * node); ResNet-50 in ASTRA-sim 1.0's text format, converted. */
START_TEST(astra_sim_times) {
    static const struct {
        const char *wl;
        int iterations;
        double ns;
    } cases[] = {
        {"tests/data/wl_chakra_tiny.json", 1, 29480},
        {"tests/data/wl_chakra_rt.json", 1, 817234},
        {"tests/data/wl_chakra_rt.json", 2, 1634468},
        {"models/workloads/dlrm.json", 1, 1996426},
        {"models/workloads/astra/resnet50.txt", 1, 6489774},
    };
    const char *src = getenv("THEMIS_SRCDIR") ? getenv("THEMIS_SRCDIR") : ".";
    char *dir = test_tmp_dir();
    TEST_DIR_PATH(sys, dir, "sys.json");
    test_cli_out r;
    test_cli(&r, "import-astra '%s' '%s' -o '%s'", test_dpath("chakra_astra_net2d.yml"),
             test_dpath("chakra_astra_sys2d.json"), sys);
    test_expect_quiet(&r, "import-astra");
    test_cli_free(&r);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char prefix[4300];
        snprintf(prefix, sizeof prefix, "%s/t%zu", dir, i);
        test_cli(&r, "export-chakra '%s/%s' -s '%s' -o '%s' --iterations %d", src, cases[i].wl, sys,
                 prefix, cases[i].iterations);
        test_expect_ok(&r, cases[i].wl);
        test_cli_free(&r);
        ck_assert_rel(trace_time(prefix, sys, "-p baseline -q fifo") * 1000, cases[i].ns);
    }
    test_rm_dir(dir);
}
END_TEST

/* A pipeline by hand under the astra-sim preset: PP 2 on a ring of 2 (50 GB/s, 500 ns), the
 * 4-layer model (h 1024, s 256, V 32000) on the test NPU, 4 micro-batches of 1, 1F1B, no TP or
 * DP. Stage 0's file: per micro-batch 2 forwards, a send, a receive, 2 backwards (6), x 4 and the
 * optimizer step: 25 nodes, 17 compute; stage 1's: a receive, 2 forwards, the logits' forward
 * and backward, 2 backwards, a send (8), x 4 and the optimizer: 33, 25 compute. The writer's
 * nodes (the model's times to the microsecond): a layer's forward 90 us and
 * backward 180 us, the logits 233 and 467 us, stage 0's optimizer step 1622 us. A send of
 * b s h A = 524288 bytes: floor(500 + 524288 / (50 x 2^30 / 10^9)) = floor(500 + 9765.625) =
 * 10265 ns (one hop). Stage 1 takes 90 + 90 + 233 = 413 us forward and 467 + 180 + 180 = 827
 * backward a micro-batch; stage 0 sends micro-batch u + 1's activations long before stage 1
 * needs them, so stage 1 runs from the first one's arrival without a gap, and stage 0 ends with
 * the last gradient's backward (360 us) and its optimizer step: 180 + 10.265 + 4 x 1240 +
 * 10.265 + 360 + 1622 = 7142.530 us. ASTRA-sim 2.x (astra-sim 518bd51) prints 7142530 cycles
 * for this trace. The same trace on the analytical system of the same ring: a send is
 * 500 + 524288 / 50 = 10985.76 ns (SPEC §3), so 180 + 4 x 1240 + 360 + 1622 + 2 x 10.98576 =
 * 7143.97152 us. */
START_TEST(pipeline_by_hand) {
    char *dir = test_tmp_dir();
    TEST_DIR_PATH(sys, dir, "sys.json");
    TEST_DIR_PATH(wl, dir, "wl.json");
    TEST_DIR_PATH(prefix, dir, "pp");
    char json[1024];
    snprintf(json, sizeof json,
             "{'name': 'r2', 'model': 'astra-sim', 'endpoint_ns': 10, 'local_mem_GBps': 1600,"
             " 'npu': '%s', 'dims': [{'topology': 'ring', 'npus': 2, 'bw_GBps': 50,"
             " 'latency_ns': 500}], 'run': {'chunks': 4}}",
             test_dpath("llm_npu.json"));
    test_spit_dq(sys, json);
    test_spit_dq(wl, "{'name': 'pp', 'llm': {'model': {'layers': 4, 'hidden': 1024, 'heads': 16,"
                     " 'seq': 256, 'vocab': 32000}, 'pp': 2, 'micro_batch': 1, 'global_batch': 4,"
                     " 'schedule': '1f1b'}}");
    test_cli_out r;
    test_cli(&r, "export-chakra '%s' -s '%s' -o '%s'", wl, sys, prefix);
    test_expect_ok(&r, "export-chakra");
    ck_assert_ptr_nonnull(strstr(r.out, "stage 0         1 file of 25 nodes (17 compute, 0 "
                                        "collectives, 4 sends, 4 receives)"));
    ck_assert_ptr_nonnull(strstr(r.out, "stage 1         1 file of 33 nodes (25 compute, 0 "
                                        "collectives, 4 sends, 4 receives)"));
    test_cli_free(&r);
    ck_assert_rel(trace_time(prefix, sys, "-p baseline -q fifo"), 7142.530);
    TEST_DIR_PATH(clean, dir, "clean.json");
    test_spit_dq(clean, "{'name': 'r2', 'dims': [{'topology': 'ring', 'npus': 2, 'bw_GBps': 50,"
                        " 'latency_ns': 500}]}");
    ck_assert_rel(trace_time(prefix, clean, "-p baseline -q fifo"), 7143.97152);
    test_rm_dir(dir);
}
END_TEST

/* LLM workloads with pipeline stages, one graph per stage, read back as a class of ranks per
 * stage. Measured on ASTRA-sim 2.x (astra-sim 518bd51, analytical congestion-unaware backend):
 * the largest `sys[K] finished, T cycles` for the trace this command writes of the 4-layer
 * model (h 1024, s 256, V 32000, micro-batches of 1; the test NPU) on the system themis
 * import-astra makes of ASTRA-sim's files, with the NPU added; themis train PREFIX gives the
 * same T under the astra-sim preset, baseline + FIFO (each rank's time and exposed
 * communication are equal too). Three dims: tests/data/chakra_astra_net3d.yml (a ring of 4 at
 * 200 GB/s, 20 ns; a ring of 2 at 100 GB/s, 100 ns; a switch of 2 at 25 GB/s, 500 ns) and
 * chakra_astra_sys3d.json (its example Ring_4chunks.json, a ring on each dim), TP 4, PP 2, DP 2,
 * 4 MiB gradient buckets. Two dims: chakra_astra_net2d.yml and chakra_astra_sys2d.json (above),
 * TP 4 on the ring, PP 4 on the switch, no DP: the two middle stages of GPipe hold the same
 * nodes but for their messages' tags. */
START_TEST(astra_sim_pipeline) {
    static const struct {
        int dims;
        const char *exec;
        int iterations;
        double ns;
    } cases[] = {
        {3, "'layers': 4}, 'global_batch': 4, 'schedule': '1f1b'", 1, 3352652},
        {3, "'layers': 4}, 'global_batch': 4, 'schedule': '1f1b'", 2, 6705304},
        {3, "'layers': 4}, 'global_batch': 8, 'schedule': 'gpipe'", 1, 4100700},
        {3, "'layers': 8}, 'global_batch': 8, 'schedule': 'interleaved', 'virtual_stages': 2", 1,
         6006980},
        {3, "'layers': 4}, 'global_batch': 4, 'sequence_parallel': true, 'recompute': 'selective'",
         1, 3344300},
        {3, "'layers': 4}, 'global_batch': 4, 'recompute': 'full', 'sharding': 'optimizer'", 1,
         2845484},
        {2, "'layers': 4}, 'pp': 4, 'global_batch': 8, 'schedule': 'gpipe'", 1, 2846924},
        {2,
         "'layers': 8}, 'pp': 4, 'global_batch': 8, 'schedule': 'interleaved', "
         "'virtual_stages': 2",
         1, 3779076},
    };
    char *dir = test_tmp_dir();
    TEST_DIR_PATH(wl, dir, "wl.json");
    char sys[2][4300];
    for (int k = 0; k < 2; k++) {
        snprintf(sys[k], sizeof sys[k], "%s/sys%dd.json", dir, k + 2);
        test_cli_out r;
        test_cli(&r, "import-astra '%s' '%s' -o '%s'",
                 test_dpath(k ? "chakra_astra_net3d.yml" : "chakra_astra_net2d.yml"),
                 test_dpath(k ? "chakra_astra_sys3d.json" : "chakra_astra_sys2d.json"), sys[k]);
        test_expect_quiet(&r, "import-astra");
        test_cli_free(&r);
        /* the LLM workload's compute times come from the system's NPU */
        size_t len;
        char *text = test_slurp(sys[k], &len);
        char *brace = strchr(text, '{');
        ck_assert_ptr_nonnull(brace);
        char with[8192];
        snprintf(with, sizeof with, "{\"npu\": \"%s\",%s", test_dpath("llm_npu.json"), brace + 1);
        test_spit(sys[k], with, strlen(with));
        free(text);
    }
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char json[1024];
        snprintf(json, sizeof json,
                 "{'name': 'pp', 'llm': {'tp': 4, %s 'micro_batch': 1, 'model': {'hidden': 1024,"
                 " 'heads': 16, 'seq': 256, 'vocab': 32000, %s}}",
                 cases[i].dims == 3 ? "'pp': 2, 'dp': 2, 'bucket_bytes': '4MiB'," : "",
                 cases[i].exec);
        test_spit_dq(wl, json);
        char prefix[4300];
        snprintf(prefix, sizeof prefix, "%s/p%zu", dir, i);
        const char *s = sys[cases[i].dims - 2];
        test_cli_out r;
        test_cli(&r, "export-chakra '%s' -s '%s' -o '%s' --iterations %d", wl, s, prefix,
                 cases[i].iterations);
        test_expect_ok(&r, cases[i].exec);
        test_cli_free(&r);
        ck_assert_rel(trace_time(prefix, s, "-p baseline -q fifo") * 1000, cases[i].ns);
    }
    test_rm_dir(dir);
}
END_TEST

/* The API's "export-chakra": the same command, its workload and system as objects, its report
 * as JSON. */
START_TEST(api_export) {
    char *dir = test_tmp_dir();
    char req[8192];
    char *q = test_dq("{'workload': {'name': 'w', 'parallelism': 'data', 'layers': [{'name': 'a',"
                      " 'forward': {'ns': 1000}, 'input_grad': {'ns': 0}, 'weight_grad': {'ns':"
                      " 0, 'collective': {'type': 'allreduce', 'size': 8}}}]}, 'system': {'name':"
                      " 's', 'dims': [{'name': 'x', 'topology': 'ring', 'npus': 2, 'bw_GBps': 10,"
                      " 'latency_ns': 1}]}, 'output': '%s/api', 'iterations': 2}");
    snprintf(req, sizeof req, q, dir);
    free(q);
    char *out = NULL;
    ck_assert_int_eq(th_api_call("export-chakra", req, NULL, NULL, &out), TH_OK);
    /* per iteration a.forward and its All-Reduce (the weight gradient of 0 ns has no node) */
    ck_assert_ptr_nonnull(strstr(out, "\"files\":\t2"));
    ck_assert_ptr_nonnull(strstr(out, "\"nodes\":\t4"));
    th_api_free(out);
    TEST_DIR_PATH(f1, dir, "api.1.et");
    ck_assert(test_exists(f1));
    ck_assert_int_eq(th_api_call("export-chakra", "{\"workload\": {}}", NULL, NULL, &out),
                     TH_EINPUT);
    th_api_free(out);
    test_rm_dir(dir);
}
END_TEST

Suite *cli_chakra_suite(void) {
    Suite *s = suite_create("cli_chakra");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, cli_export);
    tcase_add_test(tc, cli_export_notes);
    tcase_add_test(tc, cli_export_errors);
    tcase_add_test(tc, cli_export_stale_ranks);
    tcase_add_test(tc, api_export);
    tcase_add_test(tc, round_trip_by_hand);
    tcase_add_test(tc, train_without_reference);
    tcase_add_test(tc, round_trip_whole);
    tcase_add_test(tc, round_trip_rounded);
    tcase_add_test(tc, round_trip_llm);
    tcase_add_test(tc, astra_sim_times);
    tcase_add_test(tc, pipeline_by_hand);
    tcase_add_test(tc, astra_sim_pipeline);
    suite_add_tcase(s, tc);
    return s;
}

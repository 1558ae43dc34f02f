/* CLI tests of `themis train` options (--trace, -n, --batch, --load-model, -o, --help) and of
 * `import-astra -o`, with expected numbers derived by hand from docs/SPEC.md and docs/WORKLOADS.md.
 *
 * On tests/data/cli_ring4.json (one ring of p = 4, B = 100 bytes/ns, alpha = 10 ns, L = p - 1
 * = 3 hops, free reduction) a stage of size m takes 10 * 3 + m * 3 / (4 * 100) = 30 + 0.0075 m
 * ns (SPEC §3). An All-Reduce of S bytes in C chunks is 2C stages of m = S / C on the one dim,
 * which is never idle: 2C * 30 + 2 * 0.0075 S = 60 C + 0.015 S ns. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_themis.h"

/* Runs `train ARGS -f csv` (ARGS must not set -f) and parses stdout into c. */
static void train_csv(test_csv *c, const char *args) {
    test_cli_out r;
    test_cli(&r, "train %s -f csv", args);
    test_expect_quiet(&r, args);
    test_csv_parse(c, r.out);
    test_cli_free(&r);
}

static char *args_of(const char *wl, const char *sys, const char *more) {
    static char buf[8192];
    char w[4096];
    snprintf(w, sizeof w, "%s", test_dpath(wl));
    snprintf(buf, sizeof buf, "'%s' -s '%s' %s", w, test_dpath(sys), more);
    return buf;
}

/* -n overrides every collective's chunks. wl_single_ar.json: one 0-ns forward with a blocking
 * 1 GiB All-Reduce (S = 1073741824), no other compute, so an iteration is that All-Reduce:
 * -n 1: 60 + 0.015 S = 60 + 16106127.36 = 16106187.36 ns;
 * -n 8: 480 + 16106127.36 = 16106607.36 ns;
 * the file's 64 chunks: 3840 + 16106127.36 = 16109967.36 ns. */
START_TEST(train_chunks) {
    const double ns[3] = {16106187.36, 16106607.36, 16109967.36};
    const char *opt[3] = {"-n 1", "--chunks 8", ""};
    for (int i = 0; i < 3; i++) {
        char more[64];
        snprintf(more, sizeof more, "-p baseline -q fifo %s", opt[i]);
        test_csv c;
        train_csv(&c, args_of("wl_single_ar.json", "cli_ring4.json", more));
        ck_assert_int_eq(c.nrows, 1);
        ck_assert_rel(test_csv_d(&c, 0, "iteration_us"), ns[i] / 1000.0);
        ck_assert_rel(test_csv_d(&c, 0, "compute_us"), 0.0);
        ck_assert_rel(test_csv_d(&c, 0, "exposed_comm_us"), ns[i] / 1000.0);
        test_csv_free(&c);
    }
    test_bad("-n", "train '%s' -n 0", test_dpath("wl_single_ar.json"));
    test_bad("-n", "train '%s' -n 1000001", test_dpath("wl_single_ar.json"));
}
END_TEST

/* --batch B scales compute and forward/input-gradient collectives by B / batch (the file's
 * batch; 1 when absent), not weight-gradient collectives.
 *
 * wl_single_ar.json at --batch 0.5, -n 1: the forward All-Reduce is S/2 = 536870912 bytes:
 * 60 + 0.015 * 536870912 = 60 + 8053063.68 = 8053123.68 ns.
 *
 * wl_two_layer.json at --batch 2 (baseline, fifo, lifo priority, 1 chunk): compute doubles
 * (fwd a 2000, fwd b 4000, ig b 2000, wg b 3000, ig a 1000, wg a 1600: 13600 ns) while the
 * weight-gradient All-Reduces stay 1e6 and 2e6 bytes: AR_a = 60 + 15000 = 15060 ns (RS and AG
 * stages of 7530), AR_b = 60 + 30000 = 30060 ns (stages of 15030).
 * Iteration 0: fwd a 0-2000, fwd b 2000-6000, ig b 6000-8000, wg b 8000-11000, AR_b issued at
 * 11000 (RS 11000-26030); ig a 11000-12000, wg a 12000-13600, AR_a issued at 13600. At 26030
 * the newer AR_a goes first (lifo): RS 26030-33560, AG 33560-41090; then AR_b's AG
 * 41090-56120.
 * Iteration 1 (the measured one): fwd a waits for AR_a: 41090-43090; fwd b waits for AR_b:
 * 56120-60120; ig b 60120-62120; wg b 62120-65120, AR_b' RS 65120-80150; ig a 65120-66120,
 * wg a 66120-67720, AR_a' issued at 67720: RS 80150-87680, AG 87680-95210; AR_b' AG
 * 95210-110240. Iteration 2's fwd a starts when AR_a' ends, at 95210.
 * Iteration: 95210 - 41090 = 54120 ns; exposed 54120 - 13600 = 40520 ns. */
START_TEST(train_batch) {
    test_csv c;
    train_csv(
        &c, args_of("wl_single_ar.json", "cli_ring4.json", "-p baseline -q fifo -n 1 --batch 0.5"));
    ck_assert_rel(test_csv_d(&c, 0, "iteration_us"), 8053.12368);
    ck_assert_rel(test_csv_d(&c, 0, "batch"), 0.5);
    test_csv_free(&c);
    train_csv(&c, args_of("wl_two_layer.json", "cli_ring4.json", "-p baseline -q fifo --batch 2"));
    ck_assert_rel(test_csv_d(&c, 0, "iteration_us"), 54.12);
    ck_assert_rel(test_csv_d(&c, 0, "compute_us"), 13.6);
    ck_assert_rel(test_csv_d(&c, 0, "exposed_comm_us"), 40.52);
    ck_assert_rel(test_csv_d(&c, 0, "batch"), 2.0);
    test_csv_free(&c);
    const char *bad[] = {"0", "-1", "nan", "inf", "2x", "", "1e10"};
    for (int i = 0; i < 7; i++)
        test_bad("--batch", "train '%s' --batch '%s'", test_dpath("wl_two_layer.json"), bad[i]);
}
END_TEST

/* --load-model changes Themis's chunk orders. tests/data/cli_lm_2d.json: dim 0 ring p = 2,
 * B = 100, alpha 0: t0(m) = m / 200; dim 1 ring p = 2, B = 200, alpha 2e6: t1(m) = 2e6 + m/400.
 * The 1 GiB All-Reduce of wl_single_ar.json in 2 chunks: c = 536870912.
 * Chunk 0 takes the baseline order (0, 1); its RS loads are, alpha_beta: t0(c) = 2684354.56 and
 * t1(c/2) = 2671088.64; bandwidth (no alpha): 2684354.56 and 671088.64. Chunk 1: dim 1 is the
 * lighter; alpha_beta: the gap 13265.92 is under est(RS, dim 1, c/16) = 2083886.08, so the
 * baseline order again; bandwidth: the gap 2013265.92 exceeds 83886.08: order (1, 0).
 * alpha_beta, both chunks (0, 1), fifo (stages: RS0/AG0 of c 2684354.56, RS1/AG1 of c/2
 * 2671088.64): dim 0 runs ch0 RS0 0-2684354.56, ch1 RS0 -5368709.12; dim 1 ch0 RS1
 * 2684354.56-5355443.2, ch0 AG1 -8026531.84, ch1 RS1 -10697620.48, ch1 AG1 -13368709.12; dim 0
 * ch0 AG0 8026531.84-10710886.4, ch1 AG0 13368709.12-16053063.68: 16053063.68 ns.
 * bandwidth, chunk 1 (1, 0) (RS1/AG1 of c 3342177.28, RS0/AG0 of c/2 1342177.28): dim 0 ch0
 * RS0 0-2684354.56; dim 1 ch1 RS1 0-3342177.28, ch0 RS1 -6013265.92; dim 0 ch1 RS0
 * 3342177.28-4684354.56, ch1 AG0 -6026531.84; dim 1 ch0 AG1 6013265.92-8684354.56, ch1 AG1
 * -12026531.84; dim 0 ch0 AG0 8684354.56-11368709.12: 12026531.84 ns. */
START_TEST(train_load_model) {
    const char *model[2] = {"", "--load-model bandwidth"};
    const double us[2] = {16053.06368, 12026.53184};
    for (int i = 0; i < 2; i++) {
        char more[128];
        snprintf(more, sizeof more, "-p themis -q fifo -n 2 %s", model[i]);
        test_csv c;
        train_csv(&c, args_of("wl_single_ar.json", "cli_lm_2d.json", more));
        ck_assert_int_eq(c.nrows, 1);
        ck_assert_rel(test_csv_d(&c, 0, "iteration_us"), us[i]);
        test_csv_free(&c);
    }
    test_bad("--load-model", "train '%s' --load-model fast", test_dpath("wl_single_ar.json"));
}
END_TEST

/* --trace: every compute phase and collective of the 3 iterations of wl_two_layer.json on
 * cli_ring4.json, baseline fifo lifo, 1 chunk (times in us). Iteration 0 as in train_batch at
 * batch 1: fwd a 0-1, fwd b 1-3, ig b 3-4, wg b 4-5.5 (AR_b issued at 5.5: RS 5.5-20.53),
 * ig a 5.5-6, wg a 6-6.8 (AR_a issued at 6.8: RS 20.53-28.06, AG 28.06-35.59), AR_b's AG
 * 35.59-50.62. Iteration 1: fwd a 35.59-36.59, fwd b 50.62-52.62. 3 iterations x (6 phases + 2
 * collectives) = 24 rows. */
START_TEST(train_trace) {
    char *dir = test_tmp_dir();
    TEST_DIR_PATH(trace, dir, "t/trace.csv");
    TEST_DIR_PATH(out, dir, "out.csv");
    test_cli_out r;
    test_cli(&r, "train '%s' -s '%s' -p baseline -q fifo -f csv -o '%s' --trace '%s'",
             test_dpath("wl_two_layer.json"), test_dpath("cli_ring4.json"), out, trace);
    test_expect_quiet(&r, "train --trace");
    ck_assert_int_eq((int)r.out_len, 0); /* -o: nothing on stdout */
    test_cli_free(&r);
    char *text = test_slurp(trace, NULL);
    const char *want[] = {
        "policy,intra,kind,iteration,layer,phase,start_us,end_us\n",
        "\nbaseline,fifo,compute,0,a,forward,0,1\n",
        "\nbaseline,fifo,compute,0,b,forward,1,3\n",
        "\nbaseline,fifo,compute,0,b,input_grad,3,4\n",
        "\nbaseline,fifo,compute,0,b,weight_grad,4,5.5\n",
        "\nbaseline,fifo,compute,0,a,input_grad,5.5,6\n",
        "\nbaseline,fifo,compute,0,a,weight_grad,6,6.8\n",
        "\nbaseline,fifo,collective,0,a,weight_grad,6.8,35.59\n",
        "\nbaseline,fifo,collective,0,b,weight_grad,5.5,50.62\n",
        "\nbaseline,fifo,compute,1,a,forward,35.59,36.59\n",
        "\nbaseline,fifo,compute,1,b,forward,50.62,52.62\n",
    };
    ck_assert_msg(!strncmp(text, want[0], strlen(want[0])), "%s", text);
    for (size_t i = 1; i < sizeof want / sizeof want[0]; i++)
        ck_assert_msg(strstr(text, want[i]) != NULL, "no row %s in:\n%s", want[i] + 1, text);
    int lines = 0;
    for (const char *p = text; *p; p++)
        lines += *p == '\n';
    ck_assert_int_eq(lines, 1 + 24);
    free(text);
    /* the results went to -o: iteration 1 from 35.59 to 85.21 (test_cli.c's train_cli) */
    test_csv c;
    char *res = test_slurp(out, NULL);
    test_csv_parse(&c, res);
    ck_assert_rel(test_csv_d(&c, 0, "iteration_us"), 49.62);
    test_csv_free(&c);
    free(res);
    /* --trace - with results on stdout is refused; with -o FILE it goes to stdout */
    test_bad("--trace -", "train '%s' --trace -", test_dpath("wl_two_layer.json"));
    test_cli(&r, "train '%s' -s '%s' -p baseline -q fifo -o /dev/null --trace -",
             test_dpath("wl_two_layer.json"), test_dpath("cli_ring4.json"));
    test_expect_quiet(&r, "--trace -");
    ck_assert_msg(!strncmp(r.out, want[0], strlen(want[0])), "%s", r.out);
    test_cli_free(&r);
    test_rm_dir(dir);
}
END_TEST

/* -o writes what stdout would show, byte for byte, in every format. */
START_TEST(train_output) {
    char *dir = test_tmp_dir();
    const char *fmts[] = {"table", "json", "csv"};
    for (int i = 0; i < 3; i++) {
        TEST_DIR_PATH(out, dir, fmts[i]);
        test_cli_out a, b;
        test_cli(&a, "train '%s' -s '%s' -f %s", test_dpath("wl_two_layer.json"),
                 test_dpath("cli_ring4.json"), fmts[i]);
        test_cli(&b, "train '%s' -s '%s' -f %s --output '%s'", test_dpath("wl_two_layer.json"),
                 test_dpath("cli_ring4.json"), fmts[i], out);
        test_expect_quiet(&a, fmts[i]);
        test_expect_quiet(&b, fmts[i]);
        ck_assert_int_eq((int)b.out_len, 0);
        char *got = test_slurp(out, NULL);
        ck_assert_str_eq(got, a.out);
        free(got);
        test_cli_free(&a);
        test_cli_free(&b);
    }
    test_rm_dir(dir);
}
END_TEST

START_TEST(train_help) {
    const char *forms[] = {"train --help", "train -h"};
    for (int i = 0; i < 2; i++) {
        test_cli_out r;
        test_cli(&r, "%s", forms[i]);
        test_expect_quiet(&r, forms[i]);
        const char *want[] = {"usage: themis train WORKLOAD.json",
                              "--trace FILE",
                              "-n, --chunks N",
                              "--batch B",
                              "--load-model M",
                              "-o, --output FILE",
                              "--force",
                              "--iterations N",
                              "--priority R",
                              "examples:\n  themis train",
                              "exit status: 0 success"};
        for (size_t k = 0; k < sizeof want / sizeof want[0]; k++)
            ck_assert_msg(strstr(r.out, want[k]) != NULL, "%s lacks '%s'", forms[i], want[k]);
        test_cli_free(&r);
    }
}
END_TEST

/* A system under the astra-sim preset is refused before any output is opened, naming its file
 * and field (the library's check, blamed on -s). */
START_TEST(train_astra_system) {
    test_bad("astra_2d.json: model: the astra-sim preset runs single All-Reduces",
             "train '%s' -s '%s'", test_dpath("wl_two_layer.json"), test_dpath("astra_2d.json"));
}
END_TEST

/* import-astra -o: the file holds exactly what stdout shows, its folder is created, '-o -' is
 * stdout, and --force replaces it. */
START_TEST(import_astra_output) {
    char *dir = test_tmp_dir();
    TEST_DIR_PATH(out, dir, "new/astra.json");
    const char *net = test_dpath("astra_net_3d.yml");
    char sys[4096];
    snprintf(sys, sizeof sys, "%s", test_dpath("astra_sys_3d.json"));
    test_cli_out a, b, c;
    test_cli(&a, "import-astra '%s' '%s'", net, sys);
    test_cli(&b, "import-astra '%s' '%s' -o '%s'", net, sys, out);
    test_cli(&c, "import-astra '%s' '%s' -o -", net, sys);
    test_expect_quiet(&a, "import-astra");
    test_expect_quiet(&b, "import-astra -o");
    test_expect_quiet(&c, "import-astra -o -");
    ck_assert_int_eq((int)b.out_len, 0);
    char *got = test_slurp(out, NULL);
    ck_assert_str_eq(got, a.out);
    ck_assert_str_eq(c.out, a.out);
    free(got);
    test_cli_free(&a);
    test_cli_free(&b);
    test_cli_free(&c);
    /* refused without --force, untouched; replaced with it (here by the file without the
     * system JSON, which has no "run" defaults) */
    test_bad("--force", "import-astra '%s' -o '%s'", net, out);
    got = test_slurp(out, NULL);
    ck_assert_ptr_nonnull(strstr(got, "\"run\""));
    free(got);
    test_cli(&a, "import-astra '%s' -o '%s' --force", net, out);
    test_expect_ok(&a, "import-astra --force");
    test_cli_free(&a);
    got = test_slurp(out, NULL);
    ck_assert_ptr_null(strstr(got, "\"run\""));
    free(got);
    test_rm_dir(dir);
}
END_TEST

/* --bucket and --chunking. wl_bucket.json (test_train.c ddp_buckets): in 2 MB buckets an
 * iteration is 74180 ns with 3 collectives; unbucketed 4; "on" is 25 MiB: {l3, l2} in the
 * 1 MiB first bucket, then {l1, l0} (3.4e6 < 25 MiB, closed by the end of the pass): 2. */
START_TEST(train_bucket_chunking) {
    static const char *opt[4] = {"--bucket 2MB", "--bucket off", "--bucket on", "--bucket 0"};
    static const int colls[4] = {3, 4, 2, 4};
    for (int i = 0; i < 4; i++) {
        char more[64];
        snprintf(more, sizeof more, "-p baseline -q fifo %s", opt[i]);
        test_csv c;
        train_csv(&c, args_of("wl_bucket.json", "cli_ring4.json", more));
        ck_assert_int_eq(c.nrows, 1);
        ck_assert_int_eq((int)test_csv_d(&c, 0, "collectives"), colls[i]);
        if (i == 0) ck_assert_rel(test_csv_d(&c, 0, "iteration_us"), 74.18);
        test_csv_free(&c);
    }
    test_cli_out r;
    test_cli(&r, "train '%s' -s '%s' -p baseline -q fifo --bucket 2MB --chunking astra",
             test_dpath("wl_bucket.json"), test_dpath("cli_ring4.json"));
    test_expect_ok(&r, "table");
    ck_assert_msg(strstr(r.out, "chunking astra, weight gradients in DDP buckets of 2000000 bytes"),
                  "%s", r.out);
    test_cli_free(&r);
    test_cli(&r, "train '%s' -s '%s' -p baseline -q fifo --bucket 2MB -f json",
             test_dpath("wl_bucket.json"), test_dpath("cli_ring4.json"));
    test_expect_ok(&r, "json");
    ck_assert_msg(strstr(r.out, "\"bucket_bytes\":\t2000000") &&
                      strstr(r.out, "\"first_layer\":\t\"l3\"") && strstr(r.out, "\"fused\":\t2"),
                  "%s", r.out);
    test_cli_free(&r);
    /* --ideal-lat: wl_two_layer against the ideal network with latency floors, 49560 ns
     * (test_train.c ideal_latency_floor); baseline + fifo takes 49620 ns */
    test_csv c;
    train_csv(&c,
              args_of("wl_two_layer.json", "cli_ring4.json", "-p baseline -q fifo --ideal-lat"));
    ck_assert_rel(test_csv_d(&c, 0, "speedup_vs_ideal_lat"), 49560.0 / 49620.0);
    ck_assert_rel(test_csv_d(&c, 0, "speedup_vs_ideal"), 49500.0 / 49620.0);
    test_csv_free(&c);
    test_cli(&r, "train '%s' -s '%s' -p ideal --ideal-lat", test_dpath("wl_two_layer.json"),
             test_dpath("cli_ring4.json"));
    test_expect_ok(&r, "table");
    ck_assert_msg(strstr(r.out, "ideal network with latency floors: 49.56 us per iteration") &&
                      strstr(r.out, "vs_ideal_lat"),
                  "%s", r.out);
    test_cli_free(&r);
    /* the same from the workload's keys (wl_bucket_keys.json: "chunking": "astra",
     * "bucket_bytes": "2MB"), and --bucket off over them: 4 */
    test_csv k;
    train_csv(&k, args_of("wl_bucket_keys.json", "cli_ring4.json", "-p baseline -q fifo"));
    ck_assert_rel(test_csv_d(&k, 0, "iteration_us"), 74.18);
    ck_assert_int_eq((int)test_csv_d(&k, 0, "collectives"), 3);
    test_csv_free(&k);
    train_csv(&k,
              args_of("wl_bucket_keys.json", "cli_ring4.json", "-p baseline -q fifo --bucket off"));
    ck_assert_int_eq((int)test_csv_d(&k, 0, "collectives"), 4);
    test_csv_free(&k);
    test_bad("--bucket", "train '%s' --bucket lots", test_dpath("wl_bucket.json"));
    /* ASTRA-sim 1.0's own replay (a text workload under the astra-sim-1.0 preset) has none */
    test_bad("are for our replay", "train '%s' -s '%s' --bucket on", test_dpath("astra1/data1.txt"),
             test_dpath("astra1/sw4.json"));
    test_bad("astra-sim-1.0 preset", "train '%s' -s '%s' --ideal-lat",
             test_dpath("astra1/data1.txt"), test_dpath("astra1/sw4.json"));
    test_bad("--chunking", "train '%s' --chunking ring", test_dpath("wl_bucket.json"));
}
END_TEST

Suite *cli_train_suite(void) {
    Suite *s = suite_create("cli_train");
    TCase *tc = tcase_create("cli_train");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, train_chunks);
    tcase_add_test(tc, train_bucket_chunking);
    tcase_add_test(tc, train_batch);
    tcase_add_test(tc, train_load_model);
    tcase_add_test(tc, train_trace);
    tcase_add_test(tc, train_output);
    tcase_add_test(tc, train_help);
    tcase_add_test(tc, train_astra_system);
    tcase_add_test(tc, import_astra_output);
    suite_add_tcase(s, tc);
    return s;
}

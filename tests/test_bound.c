/* Check suite for the optimal bound: hand-derived optima, the two programs agree, it bounds every
 * policy on random systems, it is above the ideal, and what it refuses. */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "check_themis.h"

#define MIB 1048576.0

static th_bound bound_of(const th_system *s, th_collective c, th_bound_form form) {
    th_bound b;
    th_error err = {0};
    ck_assert_msg(th_bound_eval(s, &c, form, &b, &err) == 0, "bound: %s", err.msg);
    return b;
}

/* One dim, ring 8 @ 100 GB/s, alpha 10 ns, All-Reduce of 1 MiB in 4 chunks. Only one order, so
 * the bound is the dim's busy time: per chunk RS + AG latency 2 x 10 x (8-1) = 140 ns, 4 chunks
 * 560 ns; bandwidth 2 x S (7/8) / 100 = 1048576 x 0.0175 = 18350.08 ns; total 18910.08 ns. The
 * one-chunk chain (140 + 18350.08 / 4 = 4727.52) is smaller. The emulator gives the same. */
START_TEST(test_one_dim) {
    th_system s;
    memset(&s, 0, sizeof s);
    test_add_dim(&s, TH_TOPO_RING, 8, 100, 10);
    test_finish(&s);
    th_bound b = bound_of(&s, test_coll(TH_COLL_ALLREDUCE, MIB, 4, 0), TH_BOUND_AUTO);
    ck_assert_rel(b.time, 18910.08);
    ck_assert_rel(b.busy, 18910.08);
    ck_assert_rel(b.chain, 4727.52);
    ck_assert(b.time <= b.busy);
    /* one chunk: the chain is the whole time, 140 + 18350.08 */
    b = bound_of(&s, test_coll(TH_COLL_ALLREDUCE, MIB, 1, 0), TH_BOUND_AUTO);
    ck_assert_rel(b.time, 18490.08);
}
END_TEST

/* Two dims, a = ring 4 @ 100 GB/s alpha 10, b = ring 2 @ 50 GB/s alpha 100; All-Reduce of
 * S = 1 MiB in C = 4 chunks. Per chunk and per dim (RS + AG): latency la = 2 x 10 x 3 = 60,
 * lb = 2 x 100 x 1 = 200 ns; bytes-to-time wa = (3/4) 2/100 = 0.015, wb = (1/2) 2/50 = 0.02 ns
 * per byte of stage size. A fraction x of the chunks takes a first (a sees c, b sees c/4), the
 * rest b first (b sees c, a sees c/2):
 *   busy_a = C la + S wa (x + (1-x)/2) = 240 + S 0.0075 (1 + x)
 *   busy_b = C lb + S wb (x/4 + 1 - x) = 800 + S (0.02 - 0.015 x)
 * busy_a rises and busy_b falls with x, so the best mix equalises them:
 *   x = (S 0.0125 + 560) / (0.0225 S) = 13667.2 / 23592.96 = 0.57929...
 *   T = 240 + 7864.32 (1 + x) = 12660.18... ns
 * (the one-chunk chain, 260 + 262144 x min(0.015 + 0.02/4, 0.02 + 0.015/2) = 5502.88, is smaller).
 * With zero latency: x = 5/9 and T = S 0.0075 x 14/9 = S 7/600 = 12233.386... ns. */
START_TEST(test_two_dims_closed_form) {
    th_system s;
    memset(&s, 0, sizeof s);
    test_add_dim(&s, TH_TOPO_RING, 4, 100, 10);
    test_add_dim(&s, TH_TOPO_RING, 2, 50, 100);
    test_finish(&s);
    double x = (MIB * 0.0125 + 560.0) / (0.0225 * MIB);
    double want = 240.0 + MIB * 0.0075 * (1.0 + x);
    for (int form = TH_BOUND_AUTO; form <= TH_BOUND_FLOW; form++) {
        th_bound b = bound_of(&s, test_coll(TH_COLL_ALLREDUCE, MIB, 4, 0), (th_bound_form)form);
        ck_assert_rel(b.busy, want);
        ck_assert_rel(b.time, want);
        ck_assert_rel(b.chain, 5502.88);
    }
    s.dims[0].latency = s.dims[1].latency = 0;
    th_bound b = bound_of(&s, test_coll(TH_COLL_ALLREDUCE, MIB, 4, 0), TH_BOUND_AUTO);
    ck_assert_rel(b.time, MIB * 7.0 / 600.0);
    /* the dual weights equalise the two dims' marginal gain: wa/2 ya = 0.015 yb ... both > 0 */
    ck_assert(b.weight[0] > 0 && b.weight[1] > 0);
    ck_assert_rel(b.weight[0] + b.weight[1], 1.0);
}
END_TEST

static unsigned rnd(unsigned *seed) {
    *seed = *seed * 1103515245u + 12345u;
    return (*seed >> 8) & 0xffffffu;
}

static double urand(unsigned *seed) {
    return rnd(seed) / 16777216.0;
}

/* A random clean system of 1 to 5 dims: any topology, p 1 to 16, 10 to 1000 GB/s, 0 to 1000 ns,
 * sometimes an efficiency and a reduction cost. */
static th_system random_system(unsigned *seed) {
    th_system s;
    memset(&s, 0, sizeof s);
    int n = 1 + (int)(rnd(seed) % 5);
    for (int d = 0; d < n; d++) {
        th_topology t = (th_topology)(rnd(seed) % 3);
        int64_t p = 1 + (int64_t)(rnd(seed) % 16);
        double bw = 10.0 * pow(100.0, urand(seed));
        double lat = rnd(seed) % 4 == 0 ? 0.0 : 1000.0 * urand(seed);
        test_add_dim(&s, t, p, bw, lat);
        if (rnd(seed) % 4 == 0) s.dims[d].efficiency = 0.5 + 0.5 * urand(seed);
    }
    if (s.dims[0].npus == 1) s.dims[0].npus = 2; /* at least one active dim */
    if (rnd(seed) % 3 == 0) s.reduce_bw = 100.0 + 1000.0 * urand(seed);
    test_finish(&s);
    return s;
}

/* The bound is at most the time of every policy under FIFO and SCF, at least the ideal, and
 * both programs give it, on 300 seeded random systems, collectives, sizes and chunk counts. */
START_TEST(test_random_systems) {
    unsigned seed = 20221;
    th_runner *runner = th_runner_create();
    th_error err = {0};
    for (int trial = 0; trial < 300; trial++) {
        th_system s = random_system(&seed);
        th_collective c = {(th_coll_type)(rnd(&seed) % 4), 1024.0 * pow(4.0, rnd(&seed) % 11),
                           (int64_t)1 << (rnd(&seed) % 9), 0};
        th_bound b = bound_of(&s, c, TH_BOUND_AUTO);
        if (c.type != TH_COLL_ALLTOALL) {
            th_bound f = bound_of(&s, c, TH_BOUND_FLOW), o = bound_of(&s, c, TH_BOUND_ORDERS);
            ck_assert_msg(fabs(f.busy - o.busy) <= 1e-7 * o.busy,
                          "trial %d: flow %.17g orders "
                          "%.17g",
                          trial, f.busy, o.busy);
        }
        double best[2] = {INFINITY, INFINITY}; /* fastest of baseline and themis per intra */
        for (int pol = 0; pol <= TH_POLICY_LAST_SINGLE; pol++)
            for (int q = 0; q < 2; q++) {
                th_result r;
                th_pair pr = {(th_policy)pol, (th_intra)q};
                ck_assert_msg(
                    th_run_eval(runner, &s, &c, pr, TH_LOAD_ALPHA_BETA, NULL, NULL, &r, &err) == 0,
                    "trial %d: %s", trial, err.msg);
                if (pol <= TH_POLICY_THEMIS) best[q] = fmin(best[q], r.time);
                /* lp keeps the fastest of its sequences, the baseline and Themis */
                if (pol == TH_POLICY_LP)
                    ck_assert_msg(r.time <= best[q], "trial %d: lp %.17g > %.17g", trial, r.time,
                                  best[q]);
                ck_assert_msg(b.time <= r.time,
                              "trial %d policy %d intra %d: bound %.17g > time "
                              "%.17g",
                              trial, pol, q, b.time, r.time);
                ck_assert_msg(b.time >= r.ideal * (1 - 1e-12),
                              "trial %d: bound %.17g < ideal "
                              "%.17g",
                              trial, b.time, r.ideal);
            }
    }
    th_runner_free(runner);
}
END_TEST

/* Policy lp's plan holds the program's mix in integer counts: every chunk a permutation of the
 * active dims, and with many chunks the busiest dim's busy time is the program's optimum within
 * the rounding of the counts (at most one chunk per order: orders / C relative). flat-3d-like
 * system: ring 8, fc 8, switch 16, all 100 GB/s, zero latency, All-Reduce 1 GiB, 4096 chunks. */
START_TEST(test_lp_plan) {
    th_system s;
    memset(&s, 0, sizeof s);
    test_add_dim(&s, TH_TOPO_RING, 8, 100, 0);
    test_add_dim(&s, TH_TOPO_FC, 8, 100, 0);
    test_add_dim(&s, TH_TOPO_SWITCH, 16, 100, 0);
    test_finish(&s);
    th_collective c = test_coll(TH_COLL_ALLREDUCE, 1073741824.0, 4096, 0);
    th_error err = {0};
    th_plan *plan = th_plan_create();
    th_emu *emu = th_emu_create();
    ck_assert_msg(th_sched_plan(plan, &s, &c, TH_POLICY_LP, TH_LOAD_ALPHA_BETA, &err) == 0, "%s",
                  err.msg);
    ck_assert_int_eq(plan->policy, TH_POLICY_LP);
    for (int64_t i = 0; i < c.chunks; i++) {
        unsigned seen = 0;
        for (int j = 0; j < 3; j++)
            seen |= 1u << th_plan_order(plan, i)[j];
        ck_assert_uint_eq(seen, 7u);
    }
    th_result r;
    ck_assert(th_emu_run(emu, &s, plan, TH_INTRA_SCF, NULL, NULL, &r, &err) == 0);
    th_bound b = bound_of(&s, c, TH_BOUND_AUTO);
    double busiest = fmax(r.busy[0], fmax(r.busy[1], r.busy[2]));
    ck_assert_msg(busiest <= b.busy * (1 + 6.0 / 4096), "busiest %.17g, program %.17g", busiest,
                  b.busy);
    /* lp on the preset is refused; th_bound_supported says so */
    th_system a;
    ck_assert(th_system_load(test_data("astra_3d.json"), &a, &err) == 0);
    ck_assert(!th_bound_supported(&a, 0) && th_bound_supported(&s, 0));
    c.chunks = 4;
    ck_assert_int_eq(th_sched_plan(plan, &a, &c, TH_POLICY_LP, TH_LOAD_ALPHA_BETA, &err),
                     TH_EINPUT);
    ck_assert_ptr_nonnull(strstr(err.msg, "policy lp: the analytical model only"));
    th_plan_free(plan);
    th_emu_free(emu);
}
END_TEST

/* 13 active dims (p = 2 each, 8192 NPUs) are refused with the limit named; 12 are solved. */
START_TEST(test_too_many_dims) {
    th_system s;
    memset(&s, 0, sizeof s);
    for (int d = 0; d < 13; d++)
        test_add_dim(&s, TH_TOPO_RING, 2, 100.0 * (d + 1), 10);
    test_finish(&s);
    th_bound b;
    th_error err = {0};
    th_collective c = test_coll(TH_COLL_ALLREDUCE, MIB, 16, 0);
    ck_assert_int_eq(th_bound_eval(&s, &c, TH_BOUND_AUTO, &b, &err), TH_EINPUT);
    ck_assert_ptr_nonnull(strstr(err.msg, "up to 12 active dims"));
    c.dims_mask = 0xfff; /* dims 0..11 */
    ck_assert_msg(th_bound_eval(&s, &c, TH_BOUND_AUTO, &b, &err) == 0, "%s", err.msg);
    ck_assert(b.time > 0 && b.time >= b.chain * (1 - 1e-9));
}
END_TEST

START_TEST(test_astra_refused) {
    th_system s;
    th_error err = {0};
    ck_assert_msg(th_system_load(test_data("astra_3d.json"), &s, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(s.model, TH_MODEL_ASTRA);
    th_bound b;
    th_collective c = test_coll(TH_COLL_ALLREDUCE, MIB, 4, 0);
    ck_assert_int_eq(th_bound_eval(&s, &c, TH_BOUND_AUTO, &b, &err), TH_EINPUT);
    ck_assert_ptr_nonnull(strstr(err.msg, "analytical model only"));
}
END_TEST

/* `themis run --bound`: ring 4 @ 100 GB/s, alpha 10, All-Reduce of 1e6 bytes in 4 chunks. One
 * dim, so the bound is its busy time: 4 chunks x 2 x 10 x 3 = 240 ns of latency plus
 * 2 x 1e6 x 3/4 / 100 = 15000 ns, 15.24 us, which baseline + FIFO reaches (vs_bound 1). */
START_TEST(test_cli_run_bound) {
    test_cli_out r;
    test_cli(&r, "run -f csv -s '%s' -b 1e6 -n 4 -p baseline -q fifo --bound",
             test_dpath("cli_ring4.json"));
    test_csv c;
    test_expect_quiet(&r, r.args);
    test_csv_parse(&c, r.out);
    test_cli_free(&r);
    ck_assert_rel(test_csv_d(&c, 0, "bound_us"), 15.24);
    ck_assert_rel(test_csv_d(&c, 0, "time_us"), 15.24);
    ck_assert_rel(test_csv_d(&c, 0, "vs_bound"), 1.0);
    test_csv_free(&c);
    /* without --bound the columns are absent */
    test_cli(&r, "run -f csv -s '%s' -b 1e6 -n 4", test_dpath("cli_ring4.json"));
    test_expect_quiet(&r, r.args);
    ck_assert_ptr_null(strstr(r.out, "bound"));
    test_cli_free(&r);
    /* JSON: bound_us at the top level, vs_bound in each result */
    test_cli(&r, "run -f json -s '%s' -b 1e6 -n 4 --bound", test_dpath("cli_ring4.json"));
    test_expect_quiet(&r, r.args);
    cJSON *root = cJSON_Parse(r.out);
    ck_assert_ptr_nonnull(root);
    ck_assert_rel(cJSON_GetObjectItem(root, "bound_us")->valuedouble, 15.24);
    cJSON *res = cJSON_GetObjectItem(root, "results");
    ck_assert_int_eq(cJSON_GetArraySize(res), 8);
    for (int i = 0; i < 8; i++) {
        cJSON *o = cJSON_GetArrayItem(res, i);
        double t = cJSON_GetObjectItem(o, "time_us")->valuedouble;
        ck_assert_rel(cJSON_GetObjectItem(o, "vs_bound")->valuedouble, 15.24 / t);
    }
    cJSON_Delete(root);
    test_cli_free(&r);
    /* the table: a line and a column */
    test_cli(&r, "run -s '%s' -b 1e6 -n 4 -p baseline -q fifo --bound",
             test_dpath("cli_ring4.json"));
    test_expect_quiet(&r, r.args);
    ck_assert_ptr_nonnull(strstr(r.out, "bound (no mix of chunk orders is faster): 15.24 us\n"));
    ck_assert_ptr_nonnull(strstr(r.out, "vs_bound"));
    test_cli_free(&r);
    /* the preset is refused, naming the file, and so are 13 active dims */
    test_bad("astra_3d.json: system \"astra-3d\": the bound holds for the analytical model only",
             "run -s '%s' --bound", test_dpath("astra_3d.json"));
    char *dir = test_tmp_dir();
    TEST_DIR_PATH(path, dir, "d13.json");
    char json[4096];
    size_t n = (size_t)snprintf(json, sizeof json, "{\"dims\": [");
    for (int d = 0; d < 13; d++)
        n += (size_t)snprintf(json + n, sizeof json - n,
                              "%s{\"topology\": \"ring\", \"npus\": 2, \"bw_GBps\": 100, "
                              "\"latency_ns\": 1}",
                              d ? ", " : "");
    snprintf(json + n, sizeof json - n, "]}");
    test_spit(path, json, strlen(json));
    test_bad("exact up to 12 active dims", "run -s '%s' --bound", path);
    test_bad("d13.json: system \"d13\": the bound is exact up to 12 active dims",
             "run -s '%s' -p lp", path);
    test_cli(&r, "run -s '%s' --bound --dims 0,1,2,3,4,5,6,7,8,9,10,11 -p themis -q scf", path);
    test_expect_quiet(&r, r.args);
    test_cli_free(&r);
    test_rm_dir(dir);
}
END_TEST

/* A sweep with "bound": true: ring 4 of cli_ring4.json, All-Reduce of 1e6 bytes; the bound at C
 * chunks is C x 60 ns + 15000 ns (one dim: its busy time), in every row, with vs_bound =
 * bound / time; 1 and 2 threads give the same bytes. "bound" must be a boolean and is refused
 * in workload sweeps. */
START_TEST(test_sweep_bound) {
    char *dir = test_tmp_dir();
    TEST_DIR_PATH(spec, dir, "s.json");
    TEST_DIR_PATH(out1, dir, "1.csv");
    TEST_DIR_PATH(out2, dir, "2.csv");
    char json[8192];
    snprintf(json, sizeof json,
             "{\"system\": \"%s\", \"collective\": {\"size\": 1e6}, \"bound\": true, "
             "\"axes\": {\"chunks\": [1, 4, 16], \"policy\": [\"baseline\", \"themis\"], "
             "\"intra\": [\"fifo\", \"scf\"]}}",
             test_dpath("cli_ring4.json"));
    test_spit(spec, json, strlen(json));
    test_cli_out r;
    test_cli(&r, "sweep '%s' -o '%s' -j 1 --quiet", spec, out1);
    test_expect_quiet(&r, r.args);
    test_cli_free(&r);
    test_cli(&r, "sweep '%s' -o '%s' -j 2 --quiet", spec, out2);
    test_expect_quiet(&r, r.args);
    test_cli_free(&r);
    char *a = test_slurp(out1, NULL), *b = test_slurp(out2, NULL);
    ck_assert_str_eq(a, b);
    free(a), free(b);
    test_csv c;
    test_csv_read(&c, out1);
    ck_assert_int_eq(c.nrows, 12);
    for (int i = 0; i < 12; i++) {
        double chunks = test_csv_d(&c, i, "chunks");
        ck_assert_rel(test_csv_d(&c, i, "bound_us"), (chunks * 60.0 + 15000.0) / 1000.0);
        ck_assert_rel(test_csv_d(&c, i, "vs_bound"),
                      test_csv_d(&c, i, "bound_us") / test_csv_d(&c, i, "time_us"));
    }
    test_csv_free(&c);
    snprintf(json, sizeof json, "{\"system\": \"%s\", \"bound\": 1}", test_dpath("cli_ring4.json"));
    test_spit(spec, json, strlen(json));
    test_bad("bound: expected true or false", "sweep '%s' -o '%s' --force", spec, out1);
    snprintf(json, sizeof json, "{\"workload\": \"%s\", \"bound\": true}",
             test_dpath("../../models/workloads/gnmt.json"));
    test_spit(spec, json, strlen(json));
    test_bad("bound: only for collective sweeps", "sweep '%s' -o '%s' --force", spec, out1);
    test_rm_dir(dir);
}
END_TEST

Suite *bound_suite(void) {
    Suite *s = suite_create("bound");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_one_dim);
    tcase_add_test(tc, test_two_dims_closed_form);
    tcase_add_test(tc, test_random_systems);
    tcase_add_test(tc, test_too_many_dims);
    tcase_add_test(tc, test_lp_plan);
    tcase_add_test(tc, test_astra_refused);
    suite_add_tcase(s, tc);
    tc = tcase_create("cli");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_cli_run_bound);
    tcase_add_test(tc, test_sweep_bound);
    suite_add_tcase(s, tc);
    return s;
}

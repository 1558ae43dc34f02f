/* Check suite for the bandwidth what-if: the closed-form optimum of the baseline, a brute-force
 * grid over two dims, infeasible budgets and bounds, and the CLI's determinism. */
#include <stdlib.h>
#include <string.h>

#include "check_themis.h"

#define MIB 1048576.0

/* Baseline + FIFO, zero latency, free reduction, 1024 chunks: each dim's busy time is its bytes
 * over its bandwidth, whatever the split, and the pipeline's fill and drain are a few chunks'
 * stages (< 0.5%). The least maximum of bytes_d / B_d with sum B_d = budget has every dim
 * equally busy: B_d = budget x bytes_d / total, time = total / budget. Ring 8 and switch 16,
 * All-Reduce of S = 1 GiB: bytes_0 = 2 S 7/8 = 1879048192, bytes_1 = 2 (S/8) 15/16 =
 * 251658240, total 2130706432; budget 300 GB/s: time = 7102354.77 ns, B_0 = 264.57 GB/s. */
START_TEST(test_closed_form_baseline) {
    th_system s;
    memset(&s, 0, sizeof s);
    test_add_dim(&s, TH_TOPO_RING, 8, 100, 0);
    test_add_dim(&s, TH_TOPO_SWITCH, 16, 100, 0);
    test_finish(&s);
    th_collective c = test_coll(TH_COLL_ALLREDUCE, 1024 * MIB, 1024, 0);
    th_opt_opts o;
    memset(&o, 0, sizeof o);
    o.pair = (th_pair){TH_POLICY_BASELINE, TH_INTRA_FIFO};
    o.budget = 300;
    th_opt_result r;
    th_error err = {0};
    ck_assert_msg(th_opt_bandwidth(&s, &c, &o, &r, &err) == 0, "%s", err.msg);
    double want = 2130706432.0 / 300.0;
    ck_assert_msg(fabs(r.time - want) <= 0.005 * want, "time %.17g, closed form %.17g", r.time,
                  want);
    ck_assert_msg(fabs(r.bw_GBps[0] - 300.0 * 1879048192.0 / 2130706432.0) <= 0.005 * 300,
                  "B_0 %.17g", r.bw_GBps[0]);
    ck_assert(r.spent <= 300 * (1 + 1e-9));
    ck_assert(r.evals > 3);
}
END_TEST

/* Two dims with latency under Themis + SCF: the best split on a grid of 0.5 GB/s steps (every
 * point spending the whole budget) and optimize agree within 1%. */
START_TEST(test_grid_two_dims) {
    th_system s;
    memset(&s, 0, sizeof s);
    test_add_dim(&s, TH_TOPO_RING, 4, 100, 10);
    test_add_dim(&s, TH_TOPO_SWITCH, 8, 100, 500);
    test_finish(&s);
    th_collective c = test_coll(TH_COLL_ALLREDUCE, 64 * MIB, 32, 0);
    th_pair pair = {TH_POLICY_THEMIS, TH_INTRA_SCF};
    th_runner *runner = th_runner_create();
    th_error err = {0};
    double grid = INFINITY;
    for (double b0 = 0.5; b0 < 300; b0 += 0.5) {
        th_system g = s;
        g.dims[0].bw_GBps = g.dims[0].bw = b0;
        g.dims[1].bw_GBps = g.dims[1].bw = 300 - b0;
        th_result r;
        ck_assert(th_run_eval(runner, &g, &c, pair, TH_LOAD_ALPHA_BETA, NULL, NULL, &r, &err) == 0);
        grid = fmin(grid, r.time);
    }
    th_runner_free(runner);
    th_opt_opts o;
    memset(&o, 0, sizeof o);
    o.pair = pair;
    o.budget = 300;
    th_opt_result r;
    ck_assert_msg(th_opt_bandwidth(&s, &c, &o, &r, &err) == 0, "%s", err.msg);
    ck_assert_msg(fabs(r.time - grid) <= 0.01 * grid, "optimize %.17g, grid %.17g", r.time, grid);
}
END_TEST

START_TEST(test_infeasible) {
    th_system s;
    th_system_default(&s);
    th_collective c = test_coll(TH_COLL_ALLREDUCE, MIB, 4, 0);
    th_opt_opts o;
    memset(&o, 0, sizeof o);
    o.pair = (th_pair){TH_POLICY_THEMIS, TH_INTRA_SCF};
    o.budget = 10;
    o.min_GBps = 5; /* 3 dims x 5 = 15 > 10 */
    th_opt_result r;
    th_error err = {0};
    ck_assert_int_eq(th_opt_bandwidth(&s, &c, &o, &r, &err), TH_EINPUT);
    ck_assert_ptr_nonnull(strstr(err.msg, "the budget 10 cannot pay the minimum of 3 dims"));
    ck_assert_ptr_nonnull(strstr(err.msg, "= 15"));
    o.budget = 100;
    o.max_GBps = 2;
    ck_assert_int_eq(th_opt_bandwidth(&s, &c, &o, &r, &err), TH_EINPUT);
    ck_assert_ptr_nonnull(strstr(err.msg, "--max 2 GB/s is below --min 5 GB/s"));
}
END_TEST

/* The CLI: the same run twice gives the same bytes; -p all has one row per policy of one
 * collective, lp included; bad options exit 2. */
START_TEST(test_cli_optimize) {
    test_cli_out a, b;
    test_cli(&a, "optimize -b 64MiB -n 16 -p all -f csv");
    test_cli(&b, "optimize -b 64MiB -n 16 -p all -f csv");
    test_expect_quiet(&a, a.args);
    ck_assert_str_eq(a.out, b.out);
    test_csv c;
    test_csv_parse(&c, a.out);
    ck_assert_int_eq(c.nrows, 4);
    ck_assert_str_eq(test_csv_s(&c, 3, "policy"), "lp");
    for (int i = 0; i < 4; i++) {
        ck_assert(test_csv_d(&c, i, "spent") <= 500 * (1 + 1e-9)); /* 250 + 200 + 50 */
        ck_assert(test_csv_d(&c, i, "time_us") <= test_csv_d(&c, i, "start_time_us"));
    }
    test_csv_free(&c);
    test_cli_free(&a);
    test_cli_free(&b);
    /* --trace: one row per evaluated point, as many as the results count */
    char *dir = test_tmp_dir();
    TEST_DIR_PATH(tr, dir, "trace.csv");
    test_cli(&a, "optimize -b 64MiB -n 16 -p all -f csv --trace '%s'", tr);
    test_expect_quiet(&a, a.args);
    test_csv_parse(&c, a.out);
    test_csv t;
    test_csv_read(&t, tr);
    int total = 0;
    for (int i = 0; i < c.nrows; i++)
        total += (int)test_csv_d(&c, i, "evaluations");
    ck_assert_int_eq(t.nrows, total);
    ck_assert_str_eq(test_csv_s(&t, 0, "policy"), "baseline");
    ck_assert_str_eq(test_csv_s(&t, 0, "start"), "0");
    ck_assert_rel(test_csv_d(&t, 0, "spent"), 500.0); /* the equal split spends the budget */
    test_csv_free(&t);
    test_csv_free(&c);
    test_cli_free(&a);
    test_bad("--trace: no points to trace with --chunks",
             "optimize --chunks auto --trace '%s' --force", tr);
    test_rm_dir(dir);
    test_bad("--budget: expected a number > 0", "optimize --budget -3");
    test_bad("--cost: expected a list of 3 numbers > 0", "optimize --cost 1,2");
    test_bad("cannot pay the minimum", "optimize --budget 1 --min 1");
}
END_TEST

/* --chunks: on one ring of 4 (100 GB/s, 10 ns) an All-Reduce of 1e6 bytes in C chunks takes
 * 2 C (30 + (1e6 / C) 3/400) = 60 C + 15000 ns under baseline + FIFO (the one server never
 * idles), so 1 chunk is best: 15.06 us. On the default system the best count of each policy
 * is the one whose `themis run -n` time is least. */
START_TEST(test_cli_best_chunks) {
    test_csv c;
    test_cli_out r;
    test_cli(&r, "optimize -s '%s' -b 1e6 -p baseline -q fifo --chunks 4,1,2,8 -f csv",
             test_dpath("cli_ring4.json"));
    test_expect_quiet(&r, r.args);
    test_csv_parse(&c, r.out);
    test_cli_free(&r);
    ck_assert_int_eq(c.nrows, 1);
    ck_assert_str_eq(test_csv_s(&c, 0, "best_chunks"), "1");
    ck_assert_rel(test_csv_d(&c, 0, "time_us"), 15.06);
    test_csv_free(&c);
    test_cli(&r, "optimize -b 256MiB -p all -q scf --chunks 1,4,16,64 -f csv");
    test_expect_quiet(&r, r.args);
    test_csv_parse(&c, r.out);
    test_cli_free(&r);
    ck_assert_int_eq(c.nrows, 4);
    static const int counts[] = {1, 4, 16, 64};
    for (int i = 0; i < 4; i++) {
        double least = INFINITY;
        int arg = 0;
        for (int k = 0; k < 4; k++) {
            test_csv run;
            test_cli_out rr;
            test_cli(&rr, "run -b 256MiB -q scf -n %d -p %s -f csv", counts[k],
                     test_csv_s(&c, i, "policy"));
            test_expect_quiet(&rr, rr.args);
            test_csv_parse(&run, rr.out);
            test_cli_free(&rr);
            double t = test_csv_d(&run, 0, "time_us");
            if (t < least) least = t, arg = counts[k];
            test_csv_free(&run);
        }
        ck_assert_int_eq((int)test_csv_d(&c, i, "best_chunks"), arg);
        ck_assert(test_csv_d(&c, i, "time_us") == least);
    }
    test_csv_free(&c);
    test_bad("--chunks: expected auto or up to 64 integers", "optimize --chunks 0,3");
}
END_TEST

/* --objective perf-per-cost on one ring of 4 (alpha 10 ns), All-Reduce of 1e6 bytes in 1
 * chunk: time(B) = 60 + 1.5e6 / B ns, so time x B = 60 B + 1.5e6 grows with B and the most
 * performance per cost is at --min (10 GB/s: 150060 ns); the time alone is least at the whole
 * budget (100 GB/s: 15060 ns). */
START_TEST(test_perf_per_cost) {
    test_csv c;
    test_cli_out r;
    test_cli(&r,
             "optimize -s '%s' -b 1e6 -n 1 -p baseline -q fifo --min 10 -f csv "
             "--objective perf-per-cost",
             test_dpath("cli_ring4.json"));
    test_expect_quiet(&r, r.args);
    test_csv_parse(&c, r.out);
    test_cli_free(&r);
    ck_assert(fabs(test_csv_d(&c, 0, "dim0_bw_GBps") - 10.0) <= 0.01 * 10.0);
    ck_assert(fabs(test_csv_d(&c, 0, "time_us") - 150.06) <= 0.01 * 150.06);
    test_csv_free(&c);
    for (int explicit = 0; explicit < 2; explicit ++) { /* time is the default objective */
        test_cli(&r, "optimize -s '%s' -b 1e6 -n 1 -p baseline -q fifo --min 10 -f csv%s",
                 test_dpath("cli_ring4.json"), explicit ? " --objective time" : "");
        test_expect_quiet(&r, r.args);
        test_csv_parse(&c, r.out);
        test_cli_free(&r);
        ck_assert(fabs(test_csv_d(&c, 0, "dim0_bw_GBps") - 100.0) <= 0.001 * 100.0);
        ck_assert(fabs(test_csv_d(&c, 0, "time_us") - 15.06) <= 0.001 * 15.06);
        test_csv_free(&c);
    }
    test_bad("--objective: unknown objective 'speed' (expected time or perf-per-cost)",
             "optimize --objective speed");
}
END_TEST

/* -w: the objective is the workload's steady-state iteration: the starting time is what
 * `themis train` prints for the same pair, the best is no slower, and the answer repeats. */
START_TEST(test_cli_workload) {
    const char *wl = test_dpath("../../models/workloads/gnmt.json");
    test_cli_out a, b, t;
    test_cli(&a, "optimize -w '%s' -p themis -q scf -f csv --max-evals 200", wl);
    test_cli(&b, "optimize -w '%s' -p themis -q scf -f csv --max-evals 200", wl);
    test_cli(&t, "train '%s' -p themis -q scf -f csv", wl);
    test_expect_quiet(&a, a.args);
    test_expect_quiet(&t, t.args);
    ck_assert_str_eq(a.out, b.out);
    test_csv c, tc;
    test_csv_parse(&c, a.out);
    test_csv_parse(&tc, t.out);
    ck_assert(test_csv_d(&c, 0, "start_time_us") == test_csv_d(&tc, 0, "iteration_us"));
    ck_assert(test_csv_d(&c, 0, "time_us") <= test_csv_d(&c, 0, "start_time_us"));
    test_csv_free(&c);
    test_csv_free(&tc);
    test_cli_free(&a);
    test_cli_free(&b);
    test_cli_free(&t);
    test_bad("model: the astra-sim preset runs single collectives here; train workloads on the "
             "analytical model",
             "optimize -w '%s' -s '%s'", wl, test_dpath("astra_3d.json"));
    /* --batch and --priority reach the replay: the starting time is train's with the same */
    test_cli(&a,
             "optimize -w '%s' -p baseline -q fifo -f csv --max-evals 20 --batch 2 "
             "--priority fifo",
             wl);
    test_cli(&t, "train '%s' -p baseline -q fifo -f csv --batch 2 --priority fifo", wl);
    test_expect_quiet(&a, a.args);
    test_csv_parse(&c, a.out);
    test_csv_parse(&tc, t.out);
    ck_assert(test_csv_d(&c, 0, "start_time_us") == test_csv_d(&tc, 0, "iteration_us"));
    test_csv_free(&c);
    test_csv_free(&tc);
    test_cli_free(&a);
    test_cli_free(&t);
    test_bad("--batch and --priority apply to a workload", "optimize --batch 2");
    test_bad("--priority: unknown priority 'x'", "optimize -w '%s' --priority x", wl);
    /* --batch is read by the one parser train uses (cli_parse_batch): the same bounds (0, 1e9] */
    const char *bad[] = {"0", "-1", "nan", "inf", "2x", "", "1e10", "1e-400"};
    for (int i = 0; i < 8; i++)
        test_bad("--batch: expected a number > 0 and at most 1e9", "optimize -w '%s' --batch '%s'",
                 wl, bad[i]);
}
END_TEST

/* A weighted list whose collectives all put their bytes on the dims in the same proportion
 * has the single collective's optimum: on the closed-form system above, 1 GiB (weight 1) and
 * 256 MiB (weight 4) All-Reduces weigh 2130706432 + 4 x 532676608 = 4261412864 bytes, so the
 * weighted time is 4261412864 / 300 ns with B_0 = 300 x 1879048192 / 2130706432 again. */
START_TEST(test_list_closed_form) {
    th_system s;
    memset(&s, 0, sizeof s);
    test_add_dim(&s, TH_TOPO_RING, 8, 100, 0);
    test_add_dim(&s, TH_TOPO_SWITCH, 16, 100, 0);
    test_finish(&s);
    const char *text = "{\"collectives\": [{\"type\": \"allreduce\", \"size\": \"1GiB\"},"
                       " {\"type\": \"allreduce\", \"size\": 268435456, \"weight\": 4}]}";
    th_collist l;
    th_error err = {0};
    ck_assert_msg(th_collist_parse(text, strlen(text), "l.json", &l, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(l.n, 2);
    ck_assert(l.items[0].weight == 1 && l.items[1].weight == 4);
    ck_assert(l.items[1].coll.size == 268435456.0);
    ck_assert_msg(th_collist_check(&l, &s, 1024, "l.json", &err) == 0, "%s", err.msg);
    ck_assert_int_eq(l.items[0].coll.chunks, 1024);
    th_collective c = test_coll(TH_COLL_ALLREDUCE, 1024 * MIB, 1024, 0);
    th_opt_opts o;
    memset(&o, 0, sizeof o);
    o.pair = (th_pair){TH_POLICY_BASELINE, TH_INTRA_FIFO};
    o.budget = 300;
    o.list = &l;
    th_opt_result r;
    ck_assert_msg(th_opt_bandwidth(&s, &c, &o, &r, &err) == 0, "%s", err.msg);
    double want = 4261412864.0 / 300.0;
    ck_assert_msg(fabs(r.time - want) <= 0.005 * want, "time %.17g, closed form %.17g", r.time,
                  want);
    ck_assert_msg(fabs(r.bw_GBps[0] - 300.0 * 1879048192.0 / 2130706432.0) <= 0.005 * 300,
                  "B_0 %.17g", r.bw_GBps[0]);
    th_collist_free(&l);
}
END_TEST

/* A list of one collective of weight 2 is that collective counted twice: every objective
 * value doubles exactly (a power of two), the normalised search is the same, so the split is
 * bit-identical and the time exactly twice. A list of dims 0-1 only never varies dim 2. */
START_TEST(test_list_weight_and_dims) {
    th_system s;
    th_system_default(&s);
    th_collective c = test_coll(TH_COLL_ALLREDUCE, 64 * MIB, 16, 0);
    th_opt_opts o;
    memset(&o, 0, sizeof o);
    o.pair = (th_pair){TH_POLICY_THEMIS, TH_INTRA_SCF};
    o.max_evals = 300;
    th_opt_result one, two;
    th_error err = {0};
    ck_assert_msg(th_opt_bandwidth(&s, &c, &o, &one, &err) == 0, "%s", err.msg);
    th_collist_item it = {c, 2.0};
    th_collist l = {&it, 1};
    o.list = &l;
    ck_assert_msg(th_opt_bandwidth(&s, &c, &o, &two, &err) == 0, "%s", err.msg);
    ck_assert(two.time == 2 * one.time);
    for (int d = 0; d < s.ndims; d++)
        ck_assert(two.bw_GBps[d] == one.bw_GBps[d]);
    it.coll.dims_mask = 3;
    ck_assert_msg(th_opt_bandwidth(&s, &c, &o, &two, &err) == 0, "%s", err.msg);
    ck_assert(two.bw_GBps[2] == s.dims[2].bw_GBps);
    ck_assert(two.spent <= s.dims[0].bw_GBps + s.dims[1].bw_GBps + 1e-6);
}
END_TEST

/* Every bad list is an error naming the file and the JSON path. */
START_TEST(test_list_errors) {
    static const struct {
        const char *text, *needle;
    } bad[] = {
        {"[]", "l.json: (top level): expected an object"},
        {"{}", "l.json: collectives: missing"},
        {"{\"collectives\": []}", "l.json: collectives: expected a list of 1 to 4096"},
        {"{\"colectives\": []}", "did you mean \"collectives\""},
        {"{\"collectives\": [{\"size\": 1}]}", "l.json: collectives[0].type: missing"},
        {"{\"collectives\": [{\"type\": \"allreduce\"}]}", "collectives[0].size: missing"},
        {"{\"collectives\": [{\"type\": \"bcast\", \"size\": 1}]}", "collectives[0].type"},
        {"{\"collectives\": [{\"type\": \"allreduce\", \"size\": \"1XB\"}]}",
         "collectives[0].size"},
        {"{\"collectives\": [{\"type\": \"allreduce\", \"size\": 1, \"weight\": 0}]}",
         "collectives[0].weight: expected a number > 0"},
        {"{\"collectives\": [{\"type\": \"allreduce\", \"size\": 1, \"weight\": \"2\"}]}",
         "collectives[0].weight"},
        {"{\"collectives\": [{\"type\": \"allreduce\", \"size\": 1, \"chunks\": 0.5}]}",
         "collectives[0].chunks: expected an integer"},
        {"{\"collectives\": [{\"type\": \"allreduce\", \"size\": 1, \"dims\": [1, 1]}]}",
         "collectives[0].dims: dim 1 listed twice"},
        {"{\"collectives\": [{\"type\": \"allreduce\", \"size\": 1, \"dims\": []}]}",
         "collectives[0].dims: expected a non-empty list"},
        {"{\"collectives\": [{\"type\": \"allreduce\", \"size\": 1, \"prio\": 1}]}",
         "collectives[0]"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        th_collist l;
        th_error err = {0};
        ck_assert_msg(th_collist_parse(bad[i].text, strlen(bad[i].text), "l.json", &l, &err) ==
                          TH_EINPUT,
                      "accepted %s", bad[i].text);
        ck_assert_msg(strstr(err.msg, bad[i].needle), "%s: got '%s'", bad[i].text, err.msg);
        ck_assert(l.items == NULL && l.n == 0);
    }
    /* valid JSON, but a dim the system lacks */
    const char *text = "{\"collectives\": [{\"type\": \"allreduce\", \"size\": 1},"
                       " {\"type\": \"allgather\", \"size\": 1024, \"dims\": [5]}]}";
    th_collist l;
    th_error err = {0};
    ck_assert(th_collist_parse(text, strlen(text), "l.json", &l, &err) == 0);
    th_system s;
    th_system_default(&s);
    ck_assert(th_collist_check(&l, &s, 4, "l.json", &err) == TH_EINPUT);
    ck_assert_msg(strstr(err.msg, "l.json: collectives[1]: "), "%s", err.msg);
    th_collist_free(&l);
}
END_TEST

/* themis optimize -l: the shipped example list runs, is deterministic, and its CSV leaves
 * size_bytes and chunks empty (several sizes); -l with -w or --chunks is a usage error. */
START_TEST(test_cli_list) {
    const char *l = test_dpath("../../models/collectives/llm-step.json");
    test_cli_out a, b;
    test_cli(&a, "optimize -l '%s' -p baseline -q fifo -f csv --max-evals 100", l);
    test_cli(&b, "optimize -l '%s' -p baseline -q fifo -f csv --max-evals 100", l);
    test_expect_quiet(&a, a.args);
    ck_assert_str_eq(a.out, b.out);
    test_csv c;
    test_csv_parse(&c, a.out);
    ck_assert_int_eq(c.nrows, 1);
    ck_assert_str_eq(test_csv_s(&c, 0, "size_bytes"), "");
    ck_assert_str_eq(test_csv_s(&c, 0, "chunks"), "");
    ck_assert(test_csv_d(&c, 0, "time_us") <= test_csv_d(&c, 0, "start_time_us"));
    test_csv_free(&c);
    test_cli_free(&a);
    test_cli_free(&b);
    test_bad("-l and -w: one objective at a time", "optimize -l '%s' -w '%s'", l,
             test_dpath("../../models/workloads/gnmt.json"));
    test_bad("--chunks: a list is for one collective, not with -w or -l",
             "optimize -l '%s' --chunks 1,2", l);
    char *dir = test_tmp_dir();
    TEST_DIR_PATH(bad, dir, "bad.json");
    const char *json = "{\"collectives\": [{\"type\": \"allreduce\", \"size\": 1, \"dims\": [3]}]}";
    test_spit(bad, json, strlen(json));
    test_bad("bad.json: collectives[0]: ", "optimize -l '%s'", bad);
    test_rm_dir(dir);
}
END_TEST

Suite *optimize_suite(void) {
    Suite *s = suite_create("optimize");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_closed_form_baseline);
    tcase_add_test(tc, test_grid_two_dims);
    tcase_add_test(tc, test_infeasible);
    tcase_add_test(tc, test_cli_optimize);
    tcase_add_test(tc, test_cli_best_chunks);
    tcase_add_test(tc, test_perf_per_cost);
    tcase_add_test(tc, test_cli_workload);
    tcase_add_test(tc, test_list_closed_form);
    tcase_add_test(tc, test_list_weight_and_dims);
    tcase_add_test(tc, test_list_errors);
    tcase_add_test(tc, test_cli_list);
    suite_add_tcase(s, tc);
    return s;
}

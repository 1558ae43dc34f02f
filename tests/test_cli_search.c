/* CLI tests of `themis search` (docs/LLM.md, The search): its outputs on the small model and
 * the 16-NPU system of tests/test_llm_search.c (1692 executions at global batch 16, counted
 * there by hand; with search_fixed.json's --fix, 12 of which 5 fit), --fix, -p all, and every
 * bad input: exit 2 naming the file and the key or option. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_themis.h"

static char model[4096], sys[4096], fixed[4096];

static void paths(void) {
    snprintf(model, sizeof model, "%s", test_dpath("llm_model_small.json"));
    snprintf(sys, sizeof sys, "%s", test_dpath("search_sys_2d.json"));
    snprintf(fixed, sizeof fixed, "%s", test_dpath("search_fixed.json"));
}

START_TEST(search_table_csv) {
    paths();
    test_cli_out r;
    test_cli(&r, "search '%s' -s '%s' --global-batch 16 -k 3", model, sys);
    test_expect_quiet(&r, "search");
    ck_assert_msg(strstr(r.out, "search: small on 16 NPUs of search-2d (16 NPUs") &&
                      strstr(r.out, "themis + scf: 1692 executions, ") &&
                      strstr(r.out, "\n   3 ") && !strstr(r.out, "\n   4 ") &&
                      strstr(r.out, "breakdown, s:"),
                  "%s", r.out);
    test_cli_free(&r);

    test_cli(&r, "search '%s' -s '%s' --global-batch 16 -k 4 -f csv", model, sys);
    test_expect_quiet(&r, "search -f csv");
    test_csv c;
    test_csv_parse(&c, r.out);
    ck_assert_int_eq(c.nrows, 4);
    for (int i = 0; i < c.nrows; i++) {
        ck_assert_str_eq(test_csv_s(&c, i, "model"), "small");
        ck_assert_str_eq(test_csv_s(&c, i, "policy"), "themis");
        ck_assert_double_eq(test_csv_d(&c, i, "rank"), i + 1);
        double t = test_csv_d(&c, i, "iteration_us"), sum = 0;
        const char *parts[] = {"forward_us",    "backward_us",   "recompute_us",
                               "tp_exposed_us", "ep_exposed_us", "bubble_us",
                               "pp_exposed_us", "dp_exposed_us", "optimizer_us"};
        for (int k = 0; k < 9; k++)
            sum += test_csv_d(&c, i, parts[k]);
        ck_assert_rel(sum, t); /* the breakdown adds up to the iteration */
        /* tp pp dp = 16 NPUs; the memory fits 0.001 GiB */
        ck_assert_double_eq(
            test_csv_d(&c, i, "tp") * test_csv_d(&c, i, "pp") * test_csv_d(&c, i, "dp"), 16);
        ck_assert(test_csv_d(&c, i, "memory_total") <= 1073741.824);
        if (i) ck_assert(test_csv_d(&c, i - 1, "iteration_us") <= t);
    }
    test_csv_free(&c);
    test_cli_free(&r);

    /* jsonl: one result per line; json: the counts and the results */
    test_cli(&r, "search '%s' -s '%s' --global-batch 16 -k 2 -f jsonl", model, sys);
    test_expect_quiet(&r, "search -f jsonl");
    int lines = 0;
    for (const char *p = r.out; *p; p++)
        lines += *p == '\n';
    ck_assert_int_eq(lines, 2);
    ck_assert_msg(strstr(r.out, "\"rank\":1,") && strstr(r.out, "\"memory\":{\"weights\":"), "%s",
                  r.out);
    test_cli_free(&r);
    test_cli(&r, "search '%s' -s '%s' --global-batch 16 -k 2 -f json", model, sys);
    test_expect_quiet(&r, "search -f json");
    ck_assert_msg(strstr(r.out, "\"enumerated\":") && strstr(r.out, "1692") &&
                      strstr(r.out, "\"results\":"),
                  "%s", r.out);
    test_cli_free(&r);
}
END_TEST

/* A workload with --fix: 12 executions, 5 fit (tests/test_llm_search.c derives them); -p all:
 * a search per pair (5 policies x 2 queues, and the ideal network once). */
START_TEST(search_fix_and_pairs) {
    paths();
    test_cli_out r;
    test_cli(&r,
             "search '%s' -s '%s' --fix tp,pp,dp,ep,micro_batch,schedule,sequence_parallel,"
             "mapping -k 20 -f csv",
             fixed, sys);
    test_expect_quiet(&r, "search --fix");
    test_csv c;
    test_csv_parse(&c, r.out);
    ck_assert_int_eq(c.nrows, 5);
    test_csv_free(&c);
    test_cli_free(&r);
    test_cli(&r, "search '%s' -s '%s' --fix tp,pp,dp,micro_batch,mapping -k 1 -p all -q all", fixed,
             sys);
    test_expect_quiet(&r, "search -p all");
    ck_assert_msg(strstr(r.out, "baseline + fifo: 12 executions, 5 fit in memory") &&
                      strstr(r.out, "themis-global + scf: 12") && strstr(r.out, "ideal + -: 12"),
                  "%s", r.out);
    test_cli_free(&r);
    /* a global batch no dp divides (16, 8, 4, 2): nothing to search, said so */
    test_cli(&r, "search '%s' -s '%s' --global-batch 3", model, sys);
    test_expect_quiet(&r, "search --global-batch 3");
    ck_assert_msg(strstr(r.out, "themis + scf: 0 executions") &&
                      strstr(r.out, "no valid execution: tp x pp x dp"),
                  "%s", r.out);
    test_cli_free(&r);
}
END_TEST

START_TEST(search_bad_inputs) {
    paths();
    test_bad("missing the model", "search -s '%s' --global-batch 16", sys);
    test_bad("search: -s: missing", "search '%s' --global-batch 16", model);
    test_bad("llm_sys_nonpu.json: npu: missing", "search '%s' -s '%s' --global-batch 16", model,
             test_dpath("llm_sys_nonpu.json"));
    test_bad("--global-batch: missing", "search '%s' -s '%s'", model, sys);
    test_bad("--fix: ", "search '%s' -s '%s' --global-batch 16 --fix tp", model, sys);
    test_bad("unknown key 'tq'; did you mean 'tp'?", "search '%s' -s '%s' --fix tq", fixed, sys);
    test_bad("-k", "search '%s' -s '%s' --global-batch 16 -k 0", model, sys);
    test_bad("search: --npus: 32 NPUs, but system \"search-2d\" has 16",
             "search '%s' -s '%s' --global-batch 16 --npus 32", model, sys);
    test_bad("--global-batch", "search '%s' -s '%s' --global-batch 0", model, sys);
    test_bad("policy", "search '%s' -s '%s' --global-batch 16 -p fastest", model, sys);
    char *dir = test_tmp_dir();
    TEST_DIR_PATH(bad, dir, "bad.json");
    test_spit_dq(bad, "{'llm_model': {'layers': 2, 'hidden': 64, 'heads': 3, 'seq': 8, "
                      "'vocab': 10}}");
    test_bad("bad.json: llm_model.heads: 3 heads do not divide hidden 64",
             "search '%s' -s '%s' --global-batch 16", bad, sys);
    test_spit_dq(bad, "{'llm': {'model': 'nowhere.json'}}");
    test_bad("bad.json: llm.model: ", "search '%s' -s '%s' --global-batch 16", bad, sys);
    test_spit_dq(bad, "{'layers': []}");
    test_bad("bad.json: (top level): expected a model file",
             "search '%s' -s '%s' --global-batch 16", bad, sys);
    test_rm_dir(dir);
}
END_TEST

Suite *cli_search_suite(void) {
    Suite *s = suite_create("cli_search");
    TCase *tc = tcase_create("cli_search");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, search_table_csv);
    tcase_add_test(tc, search_fix_and_pairs);
    tcase_add_test(tc, search_bad_inputs);
    suite_add_tcase(s, tc);
    return s;
}

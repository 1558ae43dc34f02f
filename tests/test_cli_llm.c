/* CLI tests of `themis train` on LLM workloads: the report's keys in every format, the memory
 * per NPU (the numbers of test_llm.c's llm_memory_recompute, derived there by hand), the
 * options that override the file, and every bad input a clear error (exit 2) naming the file
 * and the key. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "check_themis.h"

static char *args(const char *wl, const char *sys, const char *more) {
    static char buf[8192];
    char w[4096];
    snprintf(w, sizeof w, "%s", test_dpath(wl));
    snprintf(buf, sizeof buf, "train '%s' -s '%s' %s", w, test_dpath(sys), more);
    return buf;
}

/* llm_small.json (tp 2, pp 2, dp 2, global batch 8, 1F1B): weights and gradients 113536
 * bytes, optimizer 681216, activations 2 * 344064 = 688128; total 1596416. */
START_TEST(cli_llm_json) {
    test_cli_out r;
    test_cli(&r, "%s", args("llm_small.json", "llm_sys_2d.json", "-f json"));
    test_expect_quiet(&r, "train llm -f json");
    cJSON *root = cJSON_Parse(r.out);
    ck_assert_ptr_nonnull(root);
    const cJSON *mem = cJSON_GetObjectItem(root, "memory");
    ck_assert_rel(cJSON_GetObjectItem(mem, "weights")->valuedouble, 113536);
    ck_assert_rel(cJSON_GetObjectItem(mem, "gradients")->valuedouble, 113536);
    ck_assert_rel(cJSON_GetObjectItem(mem, "optimizer")->valuedouble, 681216);
    ck_assert_rel(cJSON_GetObjectItem(mem, "activations")->valuedouble, 688128);
    ck_assert_rel(cJSON_GetObjectItem(mem, "total")->valuedouble, 1596416);
    ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(mem, "fits")));
    const cJSON *res = cJSON_GetObjectItem(root, "results");
    /* every policy pair (lp included: two dims) and the ideal network */
    ck_assert_int_eq(cJSON_GetArraySize(res), 11);
    static const char *const keys[] = {
        "policy",      "intra",          "iteration_us",  "forward_us",
        "backward_us", "recompute_us",   "tp_exposed_us", "ep_exposed_us",
        "bubble_us",   "pp_exposed_us",  "dp_exposed_us", "optimizer_us",
        "mfu",         "tflops_per_npu", "speedup",       "speedup_vs_ideal"};
    for (int i = 0; i < cJSON_GetArraySize(res); i++) {
        const cJSON *o = cJSON_GetArrayItem(res, i);
        for (size_t k = 0; k < sizeof keys / sizeof *keys; k++)
            ck_assert_msg(cJSON_GetObjectItem(o, keys[k]), "results[%d] lacks %s", i, keys[k]);
        double sum = 0; /* the parts add up to the iteration */
        for (size_t k = 3; k < 12; k++)
            sum += cJSON_GetObjectItem(o, keys[k])->valuedouble;
        ck_assert(fabs(sum - cJSON_GetObjectItem(o, "iteration_us")->valuedouble) < 1e-6);
    }
    const cJSON *wl = cJSON_GetObjectItem(root, "workload");
    ck_assert_str_eq(cJSON_GetObjectItem(wl, "kind")->valuestring, "llm");
    ck_assert_rel(cJSON_GetObjectItem(cJSON_GetObjectItem(wl, "model"), "params")->valuedouble,
                  162944);
    cJSON_Delete(root);
    test_cli_free(&r);
}
END_TEST

/* CSV and JSONL carry the same keys: the memory in columns memory_* and in each line. */
START_TEST(cli_llm_csv_jsonl) {
    test_cli_out r;
    test_cli(&r, "%s", args("llm_small.json", "llm_sys_2d.json", "-p themis -q scf -f csv"));
    test_expect_quiet(&r, "train llm -f csv");
    test_csv c;
    test_csv_parse(&c, r.out);
    ck_assert_int_eq(c.nrows, 1);
    ck_assert_str_eq(test_csv_s(&c, 0, "policy"), "themis");
    ck_assert_rel(test_csv_d(&c, 0, "memory_weights"), 113536);
    ck_assert_rel(test_csv_d(&c, 0, "memory_activations"), 688128);
    ck_assert_rel(test_csv_d(&c, 0, "memory_total"), 1596416);
    ck_assert_str_eq(test_csv_s(&c, 0, "memory_fits"), "1");
    ck_assert(test_csv_d(&c, 0, "bubble_us") > 0);
    test_csv_free(&c);
    test_cli_free(&r);
    test_cli(&r, "%s", args("llm_small.json", "llm_sys_2d.json", "-p baseline -f jsonl"));
    test_expect_quiet(&r, "train llm -f jsonl");
    char *nl = strchr(r.out, '\n');
    ck_assert_ptr_nonnull(nl);
    *nl = '\0';
    cJSON *line = cJSON_Parse(r.out);
    ck_assert_ptr_nonnull(line);
    ck_assert_rel(cJSON_GetObjectItem(cJSON_GetObjectItem(line, "memory"), "total")->valuedouble,
                  1596416);
    ck_assert(cJSON_GetObjectItem(line, "dp_exposed_us"));
    cJSON_Delete(line);
    test_cli_free(&r);
    /* the table names the memory and the parts */
    test_cli(&r, "%s", args("llm_small.json", "llm_sys_2d.json", "-p baseline -q fifo"));
    test_expect_quiet(&r, "train llm");
    ck_assert(strstr(r.out, "memory per NPU"));
    ck_assert(strstr(r.out, "bubble_us"));
    test_cli_free(&r);
}
END_TEST

/* --schedule gpipe keeps all m = 4 micro-batches: 4 * 344064 = 1376256 bytes of
 * activations; --micro-batch 2 makes m = 8 / (2 * 2) = 2 micro-batches per pipeline. */
START_TEST(cli_llm_options) {
    test_cli_out r;
    test_cli(
        &r, "%s",
        args("llm_small.json", "llm_sys_2d.json", "-p baseline -q fifo --schedule gpipe -f csv"));
    test_expect_quiet(&r, "--schedule");
    test_csv c;
    test_csv_parse(&c, r.out);
    ck_assert_rel(test_csv_d(&c, 0, "memory_activations"), 1376256);
    test_csv_free(&c);
    test_cli_free(&r);
    test_cli(
        &r, "%s",
        args("llm_small.json", "llm_sys_2d.json", "-p baseline -q fifo --micro-batch 2 -f json"));
    test_expect_quiet(&r, "--micro-batch");
    cJSON *root = cJSON_Parse(r.out);
    const cJSON *x = cJSON_GetObjectItem(cJSON_GetObjectItem(root, "workload"), "execution");
    ck_assert_rel(cJSON_GetObjectItem(x, "microbatches")->valuedouble, 2);
    ck_assert_rel(cJSON_GetObjectItem(x, "micro_batch")->valuedouble, 2);
    cJSON_Delete(root);
    test_cli_free(&r);
    /* -n and --bucket set the execution's chunks and bucket bytes; --bucket off makes one */
    test_cli(
        &r, "%s",
        args("llm_dp16.json", "llm_sys_2d.json", "-p themis -q scf -n 4 --bucket 1MiB -f json"));
    test_expect_ok(&r, "-n --bucket");
    root = cJSON_Parse(r.out);
    x = cJSON_GetObjectItem(cJSON_GetObjectItem(root, "workload"), "execution");
    ck_assert_rel(cJSON_GetObjectItem(x, "chunks")->valuedouble, 4);
    ck_assert_rel(cJSON_GetObjectItem(x, "bucket_bytes")->valuedouble, 1048576);
    cJSON_Delete(root);
    test_cli_free(&r);
    test_cli(&r, "%s",
             args("llm_dp16.json", "llm_sys_2d.json", "-p themis -q scf --bucket off -f json"));
    test_expect_ok(&r, "--bucket off");
    root = cJSON_Parse(r.out);
    x = cJSON_GetObjectItem(cJSON_GetObjectItem(root, "workload"), "execution");
    ck_assert_rel(cJSON_GetObjectItem(x, "bucket_bytes")->valuedouble, 0);
    cJSON_Delete(root);
    test_cli_free(&r);
}
END_TEST

START_TEST(cli_llm_errors) {
    /* a system without an NPU: its file and the key */
    test_bad("llm_sys_nonpu.json: npu: missing", "%s",
             args("llm_small.json", "llm_sys_nonpu.json", ""));
    /* the options of layer workloads, and the LLM options on a layer workload */
    test_bad("--iterations is for workloads of layers", "%s",
             args("llm_small.json", "llm_sys_2d.json", "--iterations 4"));
    test_bad("--trace is for workloads of layers", "%s",
             args("llm_small.json", "llm_sys_2d.json", "--trace /dev/null"));
    test_bad("--micro-batch is for LLM workloads", "%s",
             args("wl_single_ar.json", "cli_ring4.json", "--micro-batch 2"));
    test_bad("--schedule", "%s", args("llm_small.json", "llm_sys_2d.json", "--schedule zb"));
    /* an override the file's batch does not divide */
    test_bad("llm.global_batch", "%s",
             args("llm_small.json", "llm_sys_2d.json", "--micro-batch 3"));
    /* bad files: the file and the key */
    char *dir = test_tmp_dir();
    TEST_DIR_PATH(wl, dir, "wl.json");
    test_spit_dq(wl, "{'llm': {'model': {'layers': 2, 'hidden': 64, 'heads': 4, 'seq': 8, "
                     "'vocab': 10}, 'dp': 32}}");
    test_bad("llm: tp * pp * dp = 32 NPUs", "train '%s' -s '%s'", wl,
             test_dpath("llm_sys_2d.json"));
    test_spit_dq(wl, "{'llm': {'model': {'layers': 2, 'hidden': 64, 'heads': 4, 'seq': 8, "
                     "'vocab': 10}, 'recompute': 'some'}}");
    test_bad("wl.json: llm.recompute", "train '%s' -s '%s'", wl, test_dpath("llm_sys_2d.json"));
    test_spit_dq(wl, "{'llm': {'model': {'layers': 2, 'hidden': 64, 'heads': 4, 'seq': 8, "
                     "'vocab': 10}, 'mapping': ['tp', 'pp', 'dp']}}");
    test_bad("wl.json: llm.mapping", "train '%s' -s '%s'", wl, test_dpath("llm_sys_2d.json"));
    test_spit_dq(wl, "{'llm': {'model': 'none.json'}}");
    test_bad("wl.json: llm.model: ", "train '%s' -s '%s'", wl, test_dpath("llm_sys_2d.json"));
    test_rm_dir(dir);
}
END_TEST

/* DP 16 over both dims: Themis's iteration is shorter than the baseline's; the memory (1.29
 * GiB of the test NPU's 1 GiB) is a warning, not an error. */
START_TEST(cli_llm_themis) {
    test_cli_out r;
    test_cli(&r, "%s", args("llm_dp16.json", "llm_sys_2d.json", "-f csv"));
    test_expect_ok(&r, "train dp16");
    ck_assert_msg(strstr(r.err, "warning: memory per NPU"), "%s", r.err);
    test_csv c;
    test_csv_parse(&c, r.out);
    double base = -1, themis = -1;
    for (int i = 0; i < c.nrows; i++) {
        if (!strcmp(test_csv_s(&c, i, "policy"), "baseline") &&
            !strcmp(test_csv_s(&c, i, "intra"), "fifo"))
            base = test_csv_d(&c, i, "iteration_us");
        if (!strcmp(test_csv_s(&c, i, "policy"), "themis") &&
            !strcmp(test_csv_s(&c, i, "intra"), "scf"))
            themis = test_csv_d(&c, i, "iteration_us");
    }
    ck_assert_msg(themis > 0 && themis < base, "themis %g, baseline %g", themis, base);
    ck_assert_str_eq(test_csv_s(&c, 0, "memory_fits"), "0");
    test_csv_free(&c);
    test_cli_free(&r);
}
END_TEST

/* A sweep over llm.* axes: the same columns as train's CSV, and at each point the same
 * numbers as `themis train` with the point's values in the file. tests/data/llm_sweep.json:
 * llm_small.json at tp 1, 2, 4, recompute none and full, SP off and on, baseline and themis. */
START_TEST(cli_llm_sweep) {
    test_cli_out r;
    test_cli(&r, "sweep '%s' -o -", test_dpath("llm_sweep.json"));
    test_expect_quiet(&r, "sweep llm");
    test_csv c;
    test_csv_parse(&c, r.out);
    ck_assert_int_eq(c.nrows, 24);
    /* point 8: tp 2, none, SP off, baseline: llm_small.json as it is (its memory: 1596416) */
    ck_assert_str_eq(test_csv_s(&c, 8, "llm.tp"), "2");
    ck_assert_str_eq(test_csv_s(&c, 8, "llm.sequence_parallel"), "false");
    ck_assert_rel(test_csv_d(&c, 8, "memory_total"), 1596416);
    ck_assert_rel(test_csv_d(&c, 8, "npus"), 8);
    test_csv t;
    test_cli_out tr;
    test_cli(&tr, "%s", args("llm_small.json", "llm_sys_2d.json", "-p baseline -q scf -f csv"));
    test_expect_quiet(&tr, "train llm_small");
    test_csv_parse(&t, tr.out);
    ck_assert_str_eq(test_csv_s(&c, 8, "iteration_us"), test_csv_s(&t, 0, "iteration_us"));
    ck_assert_str_eq(test_csv_s(&c, 8, "bubble_us"), test_csv_s(&t, 0, "bubble_us"));
    test_csv_free(&t);
    test_cli_free(&tr);
    /* full recomputation: 2 sbh = 16384 bytes per layer and micro-batch, 2 in flight */
    ck_assert_str_eq(test_csv_s(&c, 12, "llm.recompute"), "full");
    ck_assert_rel(test_csv_d(&c, 12, "memory_activations"), 32768);
    test_csv_free(&c);
    test_cli_free(&r);
    /* bad axes: named with the spec */
    char *dir = test_tmp_dir();
    TEST_DIR_PATH(spec, dir, "s.json");
    char json[1024];
    snprintf(json, sizeof json, "{'system': '%s', 'workload': '%s', 'axes': {'llm.tpp': [1]}}",
             test_dpath("llm_sys_2d.json"), test_dpath("llm_small.json"));
    test_spit_dq(spec, json);
    test_bad("axes.llm.tpp: unknown LLM axis; did you mean \"tp\"", "sweep '%s' -o -", spec);
    snprintf(json, sizeof json, "{'system': '%s', 'workload': '%s', 'axes': {'llm.tp': [1, 3]}}",
             test_dpath("llm_sys_2d.json"), test_dpath("llm_small.json"));
    test_spit_dq(spec, json);
    test_bad("point 1 (llm.tp=3): small-tp2-pp2-dp2: llm.tp: 3 does not divide", "sweep '%s' -o -",
             spec);
    snprintf(json, sizeof json, "{'system': '%s', 'workload': '%s', 'axes': {'llm.tp': [1]}}",
             test_dpath("llm_sys_2d.json"), test_dpath("wl_single_ar.json"));
    test_spit_dq(spec, json);
    test_bad("axes.llm.tp: only with an LLM workload", "sweep '%s' -o -", spec);
    snprintf(json, sizeof json, "{'system': '%s', 'workload': '%s'}",
             test_dpath("llm_sys_nonpu.json"), test_dpath("llm_small.json"));
    test_spit_dq(spec, json);
    test_bad("npu: missing", "sweep '%s' -o -", spec);
    test_rm_dir(dir);
}
END_TEST

/* Experts swept onto a dense model: the point is the model with a "moe" object of those experts
 * and the file's defaults for the rest (top_k 1, expert_ffn = ffn, every layer). */
START_TEST(cli_llm_sweep_moe) {
    char *dir = test_tmp_dir();
    TEST_DIR_PATH(model, dir, "m.json");
    TEST_DIR_PATH(wl, dir, "w.json");
    TEST_DIR_PATH(spec, dir, "s.json");
    test_spit_dq(model,
                 "{'name': 'small-moe', 'llm_model': {'layers': 2, 'hidden': 64, 'heads': 4, "
                 "'seq': 128, 'vocab': 1000, 'moe': {'experts': 2}}}");
    test_spit_dq(wl, "{'name': 'w', 'llm': {'model': 'm.json', 'tp': 2, 'pp': 2, 'dp': 2, "
                     "'micro_batch': 1, 'global_batch': 8, 'schedule': '1f1b'}}");
    char json[1024];
    snprintf(json, sizeof json,
             "{'system': '%s', 'workload': '%s', 'policy': 'baseline', 'intra': 'scf', "
             "'axes': {'llm.model.moe.experts': [2]}}",
             test_dpath("llm_sys_2d.json"), test_dpath("llm_small.json"));
    test_spit_dq(spec, json);
    test_cli_out r, t, d;
    test_cli(&r, "sweep '%s' -o -", spec);
    test_expect_quiet(&r, "sweep moe.experts");
    test_cli(&t, "train '%s' -s '%s' -p baseline -q scf -f csv", wl, test_dpath("llm_sys_2d.json"));
    test_expect_quiet(&t, "train moe");
    test_cli(&d, "%s", args("llm_small.json", "llm_sys_2d.json", "-p baseline -q scf -f csv"));
    test_expect_quiet(&d, "train dense");
    test_csv c, m, n;
    test_csv_parse(&c, r.out);
    test_csv_parse(&m, t.out);
    test_csv_parse(&n, d.out);
    ck_assert_int_eq(c.nrows, 1);
    const char *cols[] = {"iteration_us", "memory_weights", "memory_total"};
    for (int i = 0; i < 3; i++) {
        ck_assert_str_eq(test_csv_s(&c, 0, cols[i]), test_csv_s(&m, 0, cols[i]));
        ck_assert_str_ne(test_csv_s(&c, 0, cols[i]), test_csv_s(&n, 0, cols[i]));
    }
    test_csv_free(&c);
    test_csv_free(&m);
    test_csv_free(&n);
    test_cli_free(&r);
    test_cli_free(&t);
    test_cli_free(&d);
    snprintf(json, sizeof json,
             "{'system': '%s', 'workload': '%s', 'axes': {'llm.model.moe.top_k': [2]}}",
             test_dpath("llm_sys_2d.json"), test_dpath("llm_small.json"));
    test_spit_dq(spec, json);
    test_bad("llm.model.moe: top_k or expert_ffn set, but the model has no experts",
             "sweep '%s' -o -", spec);
    snprintf(json, sizeof json,
             "{'system': '%s', 'workload': '%s', 'axes': {'llm.model.moe.experts': [2], "
             "'llm.model.moe.top_k': [3]}}",
             test_dpath("llm_sys_2d.json"), test_dpath("llm_small.json"));
    test_spit_dq(spec, json);
    test_bad("llm.model.moe.top_k: 3 experts per token, but only 2 experts", "sweep '%s' -o -",
             spec);
    test_rm_dir(dir);
}
END_TEST

Suite *cli_llm_suite(void) {
    Suite *s = suite_create("cli_llm");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, cli_llm_json);
    tcase_add_test(tc, cli_llm_csv_jsonl);
    tcase_add_test(tc, cli_llm_options);
    tcase_add_test(tc, cli_llm_errors);
    tcase_add_test(tc, cli_llm_themis);
    tcase_add_test(tc, cli_llm_sweep);
    tcase_add_test(tc, cli_llm_sweep_moe);
    suite_add_tcase(s, tc);
    return s;
}

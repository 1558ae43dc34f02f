/* Check suite for run.c: one evaluation = plan + emulate; comparisons and their speedups. */
#include <stdio.h>
#include <string.h>

#include "check_themis.h"
#include "themis/run.h"

#define MIB 1048576.0

static th_pair pair(th_policy p, th_intra q) {
    th_pair x = {p, q};
    return x;
}

static th_result eval(th_runner *r, const th_system *s, th_collective c, th_pair p,
                      th_load_model lm) {
    th_result res;
    th_error err = {0};
    ck_assert_msg(th_run_eval(r, s, &c, p, lm, NULL, NULL, &res, &err) == 0, "%s", err.msg);
    return res;
}

/* Counts traced stages per pair index, read through the runner's cur_pair. */
typedef struct counter {
    const int *cur;
    int64_t count[8];
    int64_t bad;
} counter;

static void count_cb(void *ctx, const th_stage_rec *rec) {
    counter *k = ctx;
    (void)rec;
    if (*k->cur >= 0 && *k->cur < 8)
        k->count[*k->cur]++;
    else
        k->bad++;
}

/* Reduce-Scatter of the worked example: baseline + FIFO = 174817.28 (8 x 20971.52 on dim0,
 * then 4587.52 + 2457.6 for the last chunk); Themis + FIFO = 95846.4 (SPEC §5's worked example).
 * speedup = 174817.28 / 95846.4. */
START_TEST(test_compare_reference) {
    th_system s = test_ref_system();
    th_runner *r = th_runner_create();
    ck_assert_ptr_nonnull(r);
    th_collective c = test_coll(TH_COLL_REDUCESCATTER, 64 * MIB, 8, 0);
    th_pair pairs[2] = {pair(TH_POLICY_BASELINE, TH_INTRA_FIFO),
                        pair(TH_POLICY_THEMIS, TH_INTRA_FIFO)};
    th_result out[2];
    th_error err = {0};
    ck_assert_int_eq(
        th_run_compare(r, &s, &c, pairs, 2, TH_LOAD_BANDWIDTH, NULL, NULL, NULL, out, &err), 0);
    ck_assert_rel(out[0].time, 174817.28);
    ck_assert(out[0].speedup == 1.0);
    ck_assert_rel(out[1].time, 95846.4);
    ck_assert_rel(out[1].speedup, 174817.28 / 95846.4);

    /* All-Reduce: 335544.32 / 254279.68 */
    c = test_coll(TH_COLL_ALLREDUCE, 64 * MIB, 8, 0);
    ck_assert_int_eq(
        th_run_compare(r, &s, &c, pairs, 2, TH_LOAD_BANDWIDTH, NULL, NULL, NULL, out, &err), 0);
    ck_assert_rel(out[0].time, 335544.32);
    ck_assert(out[0].speedup == 1.0);
    ck_assert_rel(out[1].time, 254279.68);
    ck_assert_rel(out[1].speedup, 335544.32 / 254279.68);
    th_runner_free(r);
}
END_TEST

START_TEST(test_compare_speedup_definition) {
    th_system s;
    th_system_default(&s);
    th_runner *r = th_runner_create();
    th_collective c = test_coll(TH_COLL_ALLREDUCE, 1024 * MIB, 64, 0);
    th_pair pairs[2] = {pair(TH_POLICY_BASELINE, TH_INTRA_FIFO),
                        pair(TH_POLICY_THEMIS, TH_INTRA_SCF)};
    th_result out[2];
    th_error err = {0};
    ck_assert_int_eq(
        th_run_compare(r, &s, &c, pairs, 2, TH_LOAD_ALPHA_BETA, NULL, NULL, NULL, out, &err), 0);
    ck_assert(out[0].speedup == 1.0); /* t_base / t_base, exactly */
    ck_assert_rel(out[1].speedup, out[0].time / out[1].time);
    /* each pair equals its own evaluation */
    th_result base = eval(r, &s, c, pairs[0], TH_LOAD_ALPHA_BETA);
    th_result them = eval(r, &s, c, pairs[1], TH_LOAD_ALPHA_BETA);
    ck_assert(base.speedup == 0.0); /* th_run_eval leaves speedup at 0 */
    base.speedup = out[0].speedup;
    them.speedup = out[1].speedup;
    test_same_result(&out[0], &base);
    test_same_result(&out[1], &them);
    th_runner_free(r);
}
END_TEST

START_TEST(test_compare_without_baseline_pair) {
    /* the reference is still baseline + fifo even when it is not among the pairs */
    th_system s;
    th_system_default(&s);
    th_runner *r = th_runner_create();
    th_collective c = test_coll(TH_COLL_REDUCESCATTER, 256 * MIB, 16, 0);
    th_pair pairs[3] = {pair(TH_POLICY_THEMIS, TH_INTRA_FIFO),
                        pair(TH_POLICY_ROUNDROBIN, TH_INTRA_SCF),
                        pair(TH_POLICY_BASELINE, TH_INTRA_SCF)};
    th_result out[3];
    th_error err = {0};
    ck_assert_int_eq(
        th_run_compare(r, &s, &c, pairs, 3, TH_LOAD_ALPHA_BETA, NULL, NULL, NULL, out, &err), 0);
    th_result base = eval(r, &s, c, pair(TH_POLICY_BASELINE, TH_INTRA_FIFO), TH_LOAD_ALPHA_BETA);
    for (int k = 0; k < 3; k++) {
        th_result one = eval(r, &s, c, pairs[k], TH_LOAD_ALPHA_BETA);
        ck_assert(out[k].time == one.time);
        ck_assert_rel(out[k].speedup, base.time / out[k].time);
    }

    /* the reference worked example with only themis/fifo: 174817.28 / 95846.4 */
    th_system ref = test_ref_system();
    c = test_coll(TH_COLL_REDUCESCATTER, 64 * MIB, 8, 0);
    th_pair only = pair(TH_POLICY_THEMIS, TH_INTRA_FIFO);
    ck_assert_int_eq(
        th_run_compare(r, &ref, &c, &only, 1, TH_LOAD_BANDWIDTH, NULL, NULL, NULL, out, &err), 0);
    ck_assert_rel(out[0].time, 95846.4);
    ck_assert_rel(out[0].speedup, 174817.28 / 95846.4);
    th_runner_free(r);
}
END_TEST

START_TEST(test_eval_equals_plan_and_emulate) {
    th_system s;
    th_system_default(&s);
    th_runner *r = th_runner_create();
    th_plan *plan = th_plan_create();
    th_emu *emu = th_emu_create();
    th_error err = {0};
    const th_coll_type types[3] = {TH_COLL_ALLREDUCE, TH_COLL_REDUCESCATTER, TH_COLL_ALLGATHER};
    for (int t = 0; t < 3; t++)
        for (int p = 0; p < 3; p++)
            for (int q = 0; q < 2; q++)
                for (int lm = 0; lm < 2; lm++) {
                    th_collective c = test_coll(types[t], 100e6, 24, t == 2 ? 6 : 0);
                    th_result a =
                        eval(r, &s, c, pair((th_policy)p, (th_intra)q), (th_load_model)lm);
                    th_result b;
                    ck_assert_int_eq(
                        th_sched_plan(plan, &s, &c, (th_policy)p, (th_load_model)lm, &err), 0);
                    ck_assert_int_eq(th_emu_run(emu, &s, plan, (th_intra)q, NULL, NULL, &b, &err),
                                     0);
                    test_same_result(&a, &b);
                    ck_assert(a.speedup == 0.0);
                }
    th_plan_free(plan);
    th_emu_free(emu);
    th_runner_free(r);
}
END_TEST

START_TEST(test_compare_trace_cur_pair) {
    th_system s;
    th_system_default(&s);
    th_runner *r = th_runner_create();
    th_collective c = test_coll(TH_COLL_ALLREDUCE, 64 * MIB, 8, 0); /* 8 x 6 = 48 stages a run */
    th_error err = {0};
    th_result out[3];
    int cur = -1;
    counter k = {&cur, {0}, 0};

    /* baseline/fifo is pair 1: traced once, as pair 1 */
    th_pair pairs[3] = {pair(TH_POLICY_THEMIS, TH_INTRA_SCF),
                        pair(TH_POLICY_BASELINE, TH_INTRA_FIFO),
                        pair(TH_POLICY_ROUNDROBIN, TH_INTRA_FIFO)};
    ck_assert_int_eq(
        th_run_compare(r, &s, &c, pairs, 3, TH_LOAD_ALPHA_BETA, count_cb, &k, &cur, out, &err), 0);
    ck_assert_int_eq(k.bad, 0);
    for (int i = 0; i < 3; i++) {
        ck_assert_int_eq(out[i].stages, 48);
        ck_assert_int_eq(k.count[i], 48);
    }
    ck_assert(out[1].speedup == 1.0);

    /* without baseline/fifo among the pairs the reference run is not traced */
    memset(k.count, 0, sizeof k.count);
    cur = -1;
    th_pair two[2] = {pair(TH_POLICY_THEMIS, TH_INTRA_FIFO), pair(TH_POLICY_THEMIS, TH_INTRA_SCF)};
    ck_assert_int_eq(
        th_run_compare(r, &s, &c, two, 2, TH_LOAD_ALPHA_BETA, count_cb, &k, &cur, out, &err), 0);
    ck_assert_int_eq(k.bad, 0);
    ck_assert_int_eq(k.count[0], 48);
    ck_assert_int_eq(k.count[1], 48);
    ck_assert_int_eq(k.count[2], 0);
    th_runner_free(r);
}
END_TEST

START_TEST(test_run_errors) {
    th_system s;
    th_system_default(&s);
    th_runner *r = th_runner_create();
    th_result res, out[1];
    th_error err = {0};
    th_collective bad = test_coll(TH_COLL_ALLREDUCE, 1024, 0, 0);
    ck_assert_int_ne(th_run_eval(r, &s, &bad, pair(TH_POLICY_THEMIS, TH_INTRA_SCF),
                                 TH_LOAD_ALPHA_BETA, NULL, NULL, &res, &err),
                     0);
    ck_assert_int_eq(err.code, TH_EINPUT);
    bad = test_coll(TH_COLL_ALLREDUCE, 1024, 4, 1u << 9);
    th_pair p = pair(TH_POLICY_BASELINE, TH_INTRA_FIFO);
    err.code = 0;
    ck_assert_int_ne(
        th_run_compare(r, &s, &bad, &p, 1, TH_LOAD_ALPHA_BETA, NULL, NULL, NULL, out, &err), 0);
    ck_assert_int_eq(err.code, TH_EINPUT);
    /* themis-global and ideal need collectives in flight: th_train_run, never one evaluation */
    th_collective one = test_coll(TH_COLL_ALLREDUCE, MIB, 4, 0);
    for (th_policy q = TH_POLICY_THEMIS_GLOBAL; q <= TH_POLICY_IDEAL; q++) {
        err.code = 0;
        ck_assert_int_eq(th_run_eval(r, &s, &one, pair(q, TH_INTRA_FIFO), TH_LOAD_ALPHA_BETA, NULL,
                                     NULL, &res, &err),
                         TH_EINPUT);
        ck_assert_ptr_nonnull(strstr(err.msg, th_policy_name(q)));
        ck_assert_ptr_nonnull(strstr(err.msg, "training only"));
    }
    /* the runner still works after an error */
    th_collective ok = test_coll(TH_COLL_ALLREDUCE, MIB, 1, 0);
    res = eval(r, &s, ok, p, TH_LOAD_ALPHA_BETA);
    ck_assert_rel(res.time, 26134.016); /* see test_emulate.c: test_one_chunk_default */
    th_runner_free(r);
}
END_TEST

/* A system file's "run" object is the run layer's: th_run_parse_system reads and checks it,
 * th_system_parse leaves it unread, and th_system holds no run defaults. */
START_TEST(test_run_defaults) {
    static const char *const ok = "{\"run\": {\"chunks\": 8, \"policy\": \"roundrobin\"}, "
                                  "\"dims\": [{\"topology\": \"ring\", \"npus\": 4, "
                                  "\"bw_GBps\": 50, \"latency_ns\": 5}]}";
    th_system s;
    th_run_defaults def;
    th_error err = {0};
    ck_assert_msg(th_run_parse_system(ok, strlen(ok), "ok.json", &s, &def, &err) == TH_OK, "%s",
                  err.msg);
    ck_assert_int_eq(def.chunks, 8);
    ck_assert(def.has_policy && def.policy == TH_POLICY_ROUNDROBIN);
    ck_assert(!def.has_intra);
    ck_assert_int_eq(s.ndims, 1);
    /* no "run": nothing set */
    static const char *const none = "{\"dims\": [{\"topology\": \"ring\", \"npus\": 4, "
                                    "\"bw_GBps\": 50, \"latency_ns\": 5}]}";
    ck_assert_int_eq(th_run_parse_system(none, strlen(none), "none.json", &s, &def, &err), TH_OK);
    ck_assert(def.chunks == 0 && !def.has_policy && !def.has_intra);
    /* a training-only policy is no run default; the path names it */
    static const char *const bad = "{\"run\": {\"policy\": \"themis-global\"}, "
                                   "\"dims\": [{\"topology\": \"ring\", \"npus\": 4, "
                                   "\"bw_GBps\": 50, \"latency_ns\": 5}]}";
    ck_assert_int_eq(th_run_parse_system(bad, strlen(bad), "bad.json", &s, &def, &err), TH_EINPUT);
    ck_assert_ptr_nonnull(strstr(err.msg, "bad.json: run.policy"));
    ck_assert_ptr_nonnull(strstr(err.msg, "baseline, themis, roundrobin"));
    /* the system layer alone does not read it */
    ck_assert_int_eq(th_system_parse(bad, strlen(bad), "bad.json", &s, &err), TH_OK);
}
END_TEST

START_TEST(test_runner_reuse) {
    /* a runner reused across sizes and systems gives what a fresh one gives */
    th_system s;
    th_system_default(&s);
    th_system ref = test_ref_system();
    th_collective c = test_coll(TH_COLL_ALLREDUCE, 1024 * MIB, 64, 0);
    th_pair p = pair(TH_POLICY_THEMIS, TH_INTRA_SCF);
    th_runner *fresh = th_runner_create();
    th_result want = eval(fresh, &s, c, p, TH_LOAD_ALPHA_BETA);
    th_runner_free(fresh);
    th_runner *r = th_runner_create();
    eval(r, &ref, test_coll(TH_COLL_ALLGATHER, 1e9, 30000, 0), p, TH_LOAD_BANDWIDTH);
    eval(r, &ref, test_coll(TH_COLL_REDUCESCATTER, 1e3, 1, 1), p, TH_LOAD_BANDWIDTH);
    th_result got = eval(r, &s, c, p, TH_LOAD_ALPHA_BETA);
    test_same_result(&got, &want);
    th_runner_free(r);
}
END_TEST

Suite *run_suite(void) {
    Suite *s = suite_create("run");
    TCase *tc = tcase_create("run");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_compare_reference);
    tcase_add_test(tc, test_compare_speedup_definition);
    tcase_add_test(tc, test_compare_without_baseline_pair);
    tcase_add_test(tc, test_eval_equals_plan_and_emulate);
    tcase_add_test(tc, test_compare_trace_cur_pair);
    tcase_add_test(tc, test_run_errors);
    tcase_add_test(tc, test_runner_reuse);
    tcase_add_test(tc, test_run_defaults);
    suite_add_tcase(s, tc);
    return s;
}

/* Check suite for the scheduler (SPEC §4-§5): collective checks, dim lists, stage orders. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check_themis.h"
#include "themis/schedule.h"

#define MIB 1048576.0

static th_plan *make_plan(const th_system *s, th_collective c, th_policy pol, th_load_model lm) {
    th_plan *plan = th_plan_create();
    th_error err = {0};
    ck_assert_ptr_nonnull(plan);
    ck_assert_msg(th_sched_plan(plan, s, &c, pol, lm, &err) == 0, "plan: %s", err.msg);
    return plan;
}

static void check_order(const th_plan *plan, int64_t chunk, const int *want, int n) {
    const uint8_t *o = th_plan_order(plan, chunk);
    ck_assert_int_eq(plan->n, n);
    for (int j = 0; j < n; j++)
        ck_assert_msg(o[j] == want[j], "chunk %lld position %d: dim %d, expected %d",
                      (long long)chunk, j, o[j], want[j]);
}

static void check_stage(const th_plan *plan, int64_t chunk, int j, int dim, th_op op, double m) {
    int got_dim = -1;
    th_op got_op = TH_OP_A2A;
    double got_m = -1;
    th_plan_stage(plan, chunk, j, &got_dim, &got_op, &got_m);
    ck_assert_msg(got_dim == dim, "chunk %lld stage %d: dim %d, expected %d", (long long)chunk, j,
                  got_dim, dim);
    ck_assert_msg(got_op == op, "chunk %lld stage %d: op %d, expected %d", (long long)chunk, j,
                  (int)got_op, (int)op);
    ck_assert_rel(got_m, m);
}

static void expect_invalid(const th_system *s, th_collective c) {
    th_error err = {0};
    ck_assert_int_ne(th_collective_validate(s, &c, &err), 0);
    ck_assert_int_eq(err.code, TH_EINPUT);
    ck_assert_msg(err.msg[0] != '\0', "empty error message");
}

/* ---- collective validation ---- */

START_TEST(test_validate_ok) {
    th_system s;
    th_error err = {0};
    th_system_default(&s);
    th_collective c = test_coll(TH_COLL_ALLREDUCE, 1024, 1, 0);
    ck_assert_int_eq(th_collective_validate(&s, &c, &err), 0);
    c = test_coll(TH_COLL_ALLGATHER, 1e9, TH_MAX_CHUNKS, 5); /* 1,000,000 chunks is the top */
    ck_assert_int_eq(th_collective_validate(&s, &c, &err), 0);
    c = test_coll(TH_COLL_REDUCESCATTER, 1e9, 64, 4);
    ck_assert_int_eq(th_collective_validate(&s, &c, &err), 0);
}
END_TEST

START_TEST(test_validate_chunks) {
    th_system s;
    th_system_default(&s);
    expect_invalid(&s, test_coll(TH_COLL_ALLREDUCE, 1024, 0, 0));
    expect_invalid(&s, test_coll(TH_COLL_ALLREDUCE, 1024, -3, 0));
    expect_invalid(&s, test_coll(TH_COLL_ALLREDUCE, 1024, 1000001, 0));
}
END_TEST

START_TEST(test_validate_size) {
    th_system s;
    th_system_default(&s);
    expect_invalid(&s, test_coll(TH_COLL_ALLREDUCE, 0, 4, 0));
    expect_invalid(&s, test_coll(TH_COLL_REDUCESCATTER, -1024, 4, 0));
    expect_invalid(&s, test_coll(TH_COLL_ALLGATHER, NAN, 4, 0));
    expect_invalid(&s, test_coll(TH_COLL_ALLGATHER, INFINITY, 4, 0));
}
END_TEST

START_TEST(test_validate_dims_mask) {
    th_system s;
    th_system_default(&s); /* 3 dims: bit 3 names a dim that does not exist */
    expect_invalid(&s, test_coll(TH_COLL_ALLREDUCE, 1024, 4, 1u << 3));
    expect_invalid(&s, test_coll(TH_COLL_ALLREDUCE, 1024, 4, 1u | (1u << 5)));
    expect_invalid(&s, test_coll(TH_COLL_ALLREDUCE, 1024, 4, 1u << 31));
}
END_TEST

START_TEST(test_validate_no_active_dim) {
    th_system s;
    memset(&s, 0, sizeof s);
    test_add_dim(&s, TH_TOPO_RING, 4, 100, 10);
    test_add_dim(&s, TH_TOPO_FC, 1, 100, 10);
    test_add_dim(&s, TH_TOPO_SWITCH, 1, 100, 10);
    test_finish(&s);
    /* dims 1 and 2 have p = 1: involving only them leaves no stage at all */
    expect_invalid(&s, test_coll(TH_COLL_ALLREDUCE, 1024, 4, 2));
    expect_invalid(&s, test_coll(TH_COLL_ALLGATHER, 1024, 4, 6));
    th_error err = {0};
    th_collective c = test_coll(TH_COLL_ALLREDUCE, 1024, 4, 3); /* dim 0 is active */
    ck_assert_int_eq(th_collective_validate(&s, &c, &err), 0);

    /* a 1-dim system with p = 1 has no active dim either */
    th_system one;
    memset(&one, 0, sizeof one);
    test_add_dim(&one, TH_TOPO_RING, 1, 100, 10);
    test_finish(&one);
    expect_invalid(&one, test_coll(TH_COLL_ALLREDUCE, 1024, 4, 0));
}
END_TEST

START_TEST(test_plan_rejects_invalid) {
    th_system s;
    th_system_default(&s);
    th_plan *plan = th_plan_create();
    th_error err = {0};
    th_collective c = test_coll(TH_COLL_ALLREDUCE, 1024, 0, 0);
    ck_assert_int_ne(th_sched_plan(plan, &s, &c, TH_POLICY_THEMIS, TH_LOAD_ALPHA_BETA, &err), 0);
    ck_assert_int_eq(err.code, TH_EINPUT);
    c = test_coll(TH_COLL_ALLREDUCE, 1024, 4, 1u << 7);
    ck_assert_int_ne(th_sched_plan(plan, &s, &c, TH_POLICY_BASELINE, TH_LOAD_BANDWIDTH, &err), 0);
    th_plan_free(plan);
}
END_TEST

/* ---- active dims ---- */

START_TEST(test_active_skips_p1) {
    th_system s;
    memset(&s, 0, sizeof s);
    test_add_dim(&s, TH_TOPO_RING, 4, 100, 0);
    test_add_dim(&s, TH_TOPO_FC, 1, 100, 0);
    test_add_dim(&s, TH_TOPO_SWITCH, 8, 50, 0);
    test_finish(&s);
    th_plan *plan = make_plan(&s, test_coll(TH_COLL_ALLREDUCE, 3200, 2, 0), TH_POLICY_BASELINE,
                              TH_LOAD_ALPHA_BETA);
    ck_assert_int_eq(plan->n, 2);
    ck_assert_int_eq(plan->active[0], 0);
    ck_assert_int_eq(plan->active[1], 2);
    ck_assert_rel(plan->active_npus, 32.0); /* 4 * 8; dim 1 (p = 1) is not counted */
    ck_assert_int_eq(plan->nstages, 4);     /* 2n for All-Reduce */
    ck_assert_rel(plan->chunk, 1600.0);     /* 3200 / 2 */
    int want[] = {0, 2};
    check_order(plan, 0, want, 2);
    check_order(plan, 1, want, 2);
    /* RS dim 0 m = c = 1600; RS dim 2 m = c / 4 = 400; AG mirrors */
    check_stage(plan, 1, 0, 0, TH_OP_RS, 1600);
    check_stage(plan, 1, 1, 2, TH_OP_RS, 400);
    check_stage(plan, 1, 2, 2, TH_OP_AG, 400);
    check_stage(plan, 1, 3, 0, TH_OP_AG, 1600);
    th_plan_free(plan);
}
END_TEST

START_TEST(test_active_mask_subset) {
    th_system s;
    th_system_default(&s); /* p = 4, 8, 16 */
    th_plan *plan = make_plan(&s, test_coll(TH_COLL_REDUCESCATTER, 6400, 1, 5), TH_POLICY_BASELINE,
                              TH_LOAD_ALPHA_BETA);
    ck_assert_int_eq(plan->n, 2);
    ck_assert_int_eq(plan->active[0], 0);
    ck_assert_int_eq(plan->active[1], 2);
    ck_assert_rel(plan->active_npus, 64.0); /* 4 * 16 */
    ck_assert_int_eq(plan->nstages, 2);
    check_stage(plan, 0, 0, 0, TH_OP_RS, 6400); /* m_0 = c */
    check_stage(plan, 0, 1, 2, TH_OP_RS, 1600); /* m_1 = c / p_0 = 6400 / 4 */
    th_plan_free(plan);

    /* mask 0 means all dims */
    plan = make_plan(&s, test_coll(TH_COLL_REDUCESCATTER, 6400, 1, 0), TH_POLICY_BASELINE,
                     TH_LOAD_ALPHA_BETA);
    ck_assert_int_eq(plan->n, 3);
    ck_assert_rel(plan->active_npus, 512.0);
    th_plan_free(plan);
}
END_TEST

/* ---- --dims lists ---- */

START_TEST(test_parse_dims_ok) {
    uint32_t mask = 0;
    th_error err = {0};
    ck_assert_int_eq(th_sched_parse_dims("0,2", 3, &mask, &err), 0);
    ck_assert_uint_eq(mask, 5u); /* bits 0 and 2 */
    ck_assert_int_eq(th_sched_parse_dims("1", 3, &mask, &err), 0);
    ck_assert_uint_eq(mask, 2u);
    ck_assert_int_eq(th_sched_parse_dims("2,0,1", 3, &mask, &err), 0);
    ck_assert_uint_eq(mask, 7u);
    ck_assert_int_eq(th_sched_parse_dims("15", 16, &mask, &err), 0);
    ck_assert_uint_eq(mask, 1u << 15);
}
END_TEST

START_TEST(test_parse_dims_errors) {
    const char *bad[] = {"3", "", "0,0", "a", "-1", "0,", ",1", "0,,1", "1.5", "0;1"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        uint32_t mask = 0;
        th_error err = {0};
        ck_assert_msg(th_sched_parse_dims(bad[i], 3, &mask, &err) != 0, "accepted \"%s\"", bad[i]);
        ck_assert_int_eq(err.code, TH_EINPUT);
        ck_assert_msg(err.msg[0] != '\0', "no message for \"%s\"", bad[i]);
    }
}
END_TEST

/* ---- stage sizes, baseline ---- */

START_TEST(test_stages_allreduce_baseline) {
    th_system s = test_ref_system();
    /* S = 64 MiB, C = 8: c = 8388608 */
    th_plan *plan = make_plan(&s, test_coll(TH_COLL_ALLREDUCE, 64 * MIB, 8, 0), TH_POLICY_BASELINE,
                              TH_LOAD_ALPHA_BETA);
    double c = 8388608.0;
    ck_assert_rel(plan->chunk, c);
    ck_assert_int_eq(plan->nstages, 6);
    ck_assert_int_eq(plan->type, TH_COLL_ALLREDUCE);
    ck_assert_int_eq(plan->chunks, 8);
    ck_assert_rel(plan->size, 64 * MIB);
    ck_assert_rel(plan->active_npus, 512.0);
    int want[] = {0, 1, 2};
    for (int64_t i = 0; i < 8; i++) {
        check_order(plan, i, want, 3);
        check_stage(plan, i, 0, 0, TH_OP_RS, c);      /* m_0 = c */
        check_stage(plan, i, 1, 1, TH_OP_RS, c / 4);  /* / p_0 */
        check_stage(plan, i, 2, 2, TH_OP_RS, c / 32); /* / (p_0 p_1) = 4 * 8 */
        check_stage(plan, i, 3, 2, TH_OP_AG, c / 32); /* AG mirrors in reverse */
        check_stage(plan, i, 4, 1, TH_OP_AG, c / 4);
        check_stage(plan, i, 5, 0, TH_OP_AG, c);
    }
    th_plan_free(plan);
}
END_TEST

START_TEST(test_stages_reducescatter_baseline) {
    th_system s = test_ref_system();
    /* S = 1000, C = 3: c = 333.33..., not an integer (no rounding, SPEC §1) */
    th_plan *plan = make_plan(&s, test_coll(TH_COLL_REDUCESCATTER, 1000, 3, 0), TH_POLICY_BASELINE,
                              TH_LOAD_BANDWIDTH);
    double c = 1000.0 / 3.0;
    ck_assert_rel(plan->chunk, c);
    ck_assert_int_eq(plan->nstages, 3);
    for (int64_t i = 0; i < 3; i++) {
        check_stage(plan, i, 0, 0, TH_OP_RS, c);
        check_stage(plan, i, 1, 1, TH_OP_RS, c / 4);
        check_stage(plan, i, 2, 2, TH_OP_RS, c / 32);
    }
    th_plan_free(plan);
}
END_TEST

START_TEST(test_stages_allgather_baseline) {
    th_system s = test_ref_system();
    th_plan *plan = make_plan(&s, test_coll(TH_COLL_ALLGATHER, 64 * MIB, 8, 0), TH_POLICY_BASELINE,
                              TH_LOAD_ALPHA_BETA);
    double c = 8388608.0;
    ck_assert_int_eq(plan->nstages, 3);
    int want[] = {2, 1, 0}; /* standalone AG: descending */
    for (int64_t i = 0; i < 8; i++) {
        check_order(plan, i, want, 3);
        /* sigma = (2, 1, 0): m_j = c / prod_{l > j} p_{sigma_l} */
        check_stage(plan, i, 0, 2, TH_OP_AG, c / 32); /* c / (p_1 p_0) = c / 32 */
        check_stage(plan, i, 1, 1, TH_OP_AG, c / 4);  /* c / p_0 */
        check_stage(plan, i, 2, 0, TH_OP_AG, c);      /* output = c */
    }
    th_plan_free(plan);
}
END_TEST

START_TEST(test_stages_alltoall_baseline) {
    th_system s = test_ref_system();
    th_plan *plan = make_plan(&s, test_coll(TH_COLL_ALLTOALL, 4096, 4, 0), TH_POLICY_BASELINE,
                              TH_LOAD_ALPHA_BETA);
    ck_assert_int_eq(plan->nstages, 3);
    int want[] = {0, 1, 2};
    for (int64_t i = 0; i < 4; i++) {
        check_order(plan, i, want, 3);
        for (int j = 0; j < 3; j++)
            check_stage(plan, i, j, j, TH_OP_A2A, 1024); /* m = c = 4096 / 4 on every dim */
    }
    th_plan_free(plan);

    /* Themis does not reorder an All-to-All */
    plan =
        make_plan(&s, test_coll(TH_COLL_ALLTOALL, 4096, 4, 0), TH_POLICY_THEMIS, TH_LOAD_BANDWIDTH);
    for (int64_t i = 0; i < 4; i++)
        check_order(plan, i, want, 3);
    th_plan_free(plan);
}
END_TEST

/* ---- roundrobin ---- */

START_TEST(test_roundrobin_allreduce) {
    th_system s = test_ref_system();
    th_plan *plan = make_plan(&s, test_coll(TH_COLL_ALLREDUCE, 64 * MIB, 5, 0),
                              TH_POLICY_ROUNDROBIN, TH_LOAD_ALPHA_BETA);
    /* baseline (0,1,2) rotated left by i mod 3 */
    int o0[] = {0, 1, 2}, o1[] = {1, 2, 0}, o2[] = {2, 0, 1};
    check_order(plan, 0, o0, 3);
    check_order(plan, 1, o1, 3);
    check_order(plan, 2, o2, 3);
    check_order(plan, 3, o0, 3);
    check_order(plan, 4, o1, 3);
    double c = 64 * MIB / 5;
    /* chunk 1, pi = (1,2,0): m = c, c / p_1 = c / 8, c / (p_1 p_2) = c / 128; AG mirrors */
    check_stage(plan, 1, 0, 1, TH_OP_RS, c);
    check_stage(plan, 1, 1, 2, TH_OP_RS, c / 8);
    check_stage(plan, 1, 2, 0, TH_OP_RS, c / 128);
    check_stage(plan, 1, 3, 0, TH_OP_AG, c / 128);
    check_stage(plan, 1, 4, 2, TH_OP_AG, c / 8);
    check_stage(plan, 1, 5, 1, TH_OP_AG, c);
    /* chunk 2, pi = (2,0,1): m = c, c / 16, c / 64 */
    check_stage(plan, 2, 0, 2, TH_OP_RS, c);
    check_stage(plan, 2, 1, 0, TH_OP_RS, c / 16);
    check_stage(plan, 2, 2, 1, TH_OP_RS, c / 64);
    th_plan_free(plan);
}
END_TEST

START_TEST(test_roundrobin_allgather_and_mask) {
    th_system s = test_ref_system();
    th_plan *plan = make_plan(&s, test_coll(TH_COLL_ALLGATHER, 6400, 4, 0), TH_POLICY_ROUNDROBIN,
                              TH_LOAD_ALPHA_BETA);
    /* AG baseline (2,1,0) rotated left by i mod 3 */
    int o0[] = {2, 1, 0}, o1[] = {1, 0, 2}, o2[] = {0, 2, 1};
    check_order(plan, 0, o0, 3);
    check_order(plan, 1, o1, 3);
    check_order(plan, 2, o2, 3);
    check_order(plan, 3, o0, 3);
    /* chunk 1, sigma = (1,0,2), c = 1600: m = c / (p_0 p_2) = 1600 / 64, c / p_2, c */
    check_stage(plan, 1, 0, 1, TH_OP_AG, 25);
    check_stage(plan, 1, 1, 0, TH_OP_AG, 100);
    check_stage(plan, 1, 2, 2, TH_OP_AG, 1600);
    th_plan_free(plan);

    /* over dims {0, 2} only: baseline (0,2), rotated: (2,0) for odd chunks */
    plan = make_plan(&s, test_coll(TH_COLL_REDUCESCATTER, 6400, 3, 5), TH_POLICY_ROUNDROBIN,
                     TH_LOAD_ALPHA_BETA);
    int m0[] = {0, 2}, m1[] = {2, 0};
    check_order(plan, 0, m0, 2);
    check_order(plan, 1, m1, 2);
    check_order(plan, 2, m0, 2);
    /* c = 6400 / 3; chunk 1: dim 2 m = c, dim 0 m = c / 16 */
    check_stage(plan, 1, 0, 2, TH_OP_RS, 6400.0 / 3);
    check_stage(plan, 1, 1, 0, TH_OP_RS, 6400.0 / 3 / 16);
    th_plan_free(plan);
}
END_TEST

/* ---- themis ---- */

/* Orders of SPEC §5's worked example. Derivation (bandwidth model,
 * est = m (p-1) / (p B); c = 64 MiB / 8 = 8388608):
 *  chunk 0: baseline (0,1,2): dim0 m=c: 8388608*3/4/300 = 20971.52; dim1 m=c/4:
 *     2097152*7/8/400 = 4587.52; dim2 m=c/32: 262144*15/16/100 = 2457.6.
 *     load = (20971.52, 4587.52, 2457.6)
 *  chunk 1: ascending (2,1,0); gap 20971.52-2457.6 = 18513.92 >= est(RS,2,c/16) =
 *     524288*15/16/100 = 4915.2, so (2,1,0): dim2 m=c: 78643.2; dim1 m=c/16: 1146.88;
 *     dim0 m=c/128: 163.84. load = (21135.36, 5734.4, 81100.8)
 *  chunk 2: ascending (1,0,2); gap 75366.4 >= est(RS,1,c/16) = 1146.88: dim1 m=c: 18350.08;
 *     dim0 m=c/8: 2621.44; dim2 m=c/32: 2457.6. load = (23756.8, 24084.48, 83558.4)
 *  chunk 3: (0,1,2): +20971.52, +4587.52, +2457.6 -> (44728.32, 28672, 86016)
 *  chunk 4: (1,0,2): +2621.44, +18350.08, +2457.6 -> (47349.76, 47022.08, 88473.6)
 *  chunk 5: (1,0,2): -> (49971.2, 65372.16, 90931.2)
 *  chunk 6: (0,1,2): -> (70942.72, 69959.68, 93388.8)
 *  chunk 7: (1,0,2): -> (73564.16, 88309.76, 95846.4) */
static void check_worked_example(th_load_model lm) {
    th_system s = test_ref_system();
    th_plan *plan =
        make_plan(&s, test_coll(TH_COLL_REDUCESCATTER, 64 * MIB, 8, 0), TH_POLICY_THEMIS, lm);
    static const int want[8][3] = {{0, 1, 2}, {2, 1, 0}, {1, 0, 2}, {0, 1, 2},
                                   {1, 0, 2}, {1, 0, 2}, {0, 1, 2}, {1, 0, 2}};
    for (int64_t i = 0; i < 8; i++)
        check_order(plan, i, want[i], 3);
    ck_assert_rel(plan->load[0], 73564.16);
    ck_assert_rel(plan->load[1], 88309.76);
    ck_assert_rel(plan->load[2], 95846.4);
    double c = 8388608.0;
    /* chunk 1 (2,1,0): m = c, c / 16, c / 128 */
    check_stage(plan, 1, 0, 2, TH_OP_RS, c);
    check_stage(plan, 1, 1, 1, TH_OP_RS, c / 16);
    check_stage(plan, 1, 2, 0, TH_OP_RS, c / 128);
    /* chunk 2 (1,0,2): m = c, c / 8, c / 32 */
    check_stage(plan, 2, 0, 1, TH_OP_RS, c);
    check_stage(plan, 2, 1, 0, TH_OP_RS, c / 8);
    check_stage(plan, 2, 2, 2, TH_OP_RS, c / 32);
    th_plan_free(plan);

    /* All-Reduce: same RS orders (only the RS half is counted in the load) */
    plan = make_plan(&s, test_coll(TH_COLL_ALLREDUCE, 64 * MIB, 8, 0), TH_POLICY_THEMIS, lm);
    for (int64_t i = 0; i < 8; i++)
        check_order(plan, i, want[i], 3);
    ck_assert_rel(plan->load[0], 73564.16);
    ck_assert_rel(plan->load[1], 88309.76);
    ck_assert_rel(plan->load[2], 95846.4);
    /* chunk 2 AG half mirrors (1,0,2) in reverse */
    check_stage(plan, 2, 3, 2, TH_OP_AG, c / 32);
    check_stage(plan, 2, 4, 0, TH_OP_AG, c / 8);
    check_stage(plan, 2, 5, 1, TH_OP_AG, c);
    th_plan_free(plan);
}

START_TEST(test_themis_worked_bandwidth) {
    check_worked_example(TH_LOAD_BANDWIDTH);
}
END_TEST

START_TEST(test_themis_worked_alpha_beta) {
    /* latency 0: time() of §3 equals the bandwidth model, so everything is the same */
    check_worked_example(TH_LOAD_ALPHA_BETA);
}
END_TEST

/* themis-global plans one collective exactly as themis (its tracker is only shared across
 * collectives by the trainer, through init_load); ideal has no plan. */
START_TEST(test_policy_global_and_ideal) {
    th_system s = test_ref_system();
    th_collective c = test_coll(TH_COLL_REDUCESCATTER, 64 * MIB, 8, 0);
    th_plan *plan = make_plan(&s, c, TH_POLICY_THEMIS_GLOBAL, TH_LOAD_BANDWIDTH);
    static const int want[8][3] = {{0, 1, 2}, {2, 1, 0}, {1, 0, 2}, {0, 1, 2},
                                   {1, 0, 2}, {1, 0, 2}, {0, 1, 2}, {1, 0, 2}};
    for (int64_t i = 0; i < 8; i++)
        check_order(plan, i, want[i], 3);
    ck_assert_rel(plan->load[2], 95846.4); /* SPEC §5's worked example, as for themis */
    th_error err = {0};
    ck_assert_int_eq(th_sched_plan(plan, &s, &c, TH_POLICY_IDEAL, TH_LOAD_BANDWIDTH, &err),
                     TH_EINPUT);
    ck_assert_ptr_nonnull(strstr(err.msg, "ideal"));
    th_plan_free(plan);
}
END_TEST

START_TEST(test_themis_first_chunk_baseline) {
    /* all loads are 0 for chunk 0: gap 0 < est(c/16) > 0, so the baseline order */
    th_system s;
    memset(&s, 0, sizeof s);
    test_add_dim(&s, TH_TOPO_SWITCH, 8, 10, 0); /* slow: would sort anywhere under ties */
    test_add_dim(&s, TH_TOPO_FC, 4, 500, 0);
    test_add_dim(&s, TH_TOPO_RING, 2, 50, 0);
    test_finish(&s);
    int asc[] = {0, 1, 2}, desc[] = {2, 1, 0};
    for (int lm = 0; lm < 2; lm++) {
        th_plan *plan = make_plan(&s, test_coll(TH_COLL_REDUCESCATTER, 1e6, 1, 0), TH_POLICY_THEMIS,
                                  (th_load_model)lm);
        check_order(plan, 0, asc, 3);
        th_plan_free(plan);
        plan = make_plan(&s, test_coll(TH_COLL_ALLREDUCE, 1e6, 1, 0), TH_POLICY_THEMIS,
                         (th_load_model)lm);
        check_order(plan, 0, asc, 3);
        th_plan_free(plan);
        plan = make_plan(&s, test_coll(TH_COLL_ALLGATHER, 1e6, 1, 0), TH_POLICY_THEMIS,
                         (th_load_model)lm);
        check_order(plan, 0, desc, 3);
        th_plan_free(plan);
    }
}
END_TEST

/* p = (2, 2), ring (L = p - 1 = 1), B = (1, 1), alpha = (0, 200); RS of 2048 in 2 chunks,
 * c = 1024. chunk 0 is baseline (0,1): dim0 m = 1024: 1024/2/1 = 512; dim1 m = 512: 256.
 *  bandwidth:  load = (512, 256); ascending (1,0); gap 256 >= est(RS,1,64) = 64/2 = 32
 *              -> (1,0): dim1 m = 1024: +512; dim0 m = 512: +256 -> load (768, 768).
 *  alpha_beta: load = (512, 256 + 200 = 456); ascending (1,0); gap 56 < est(RS,1,64) =
 *              200 + 32 = 232 -> baseline (0,1): load (1024, 912). */
START_TEST(test_themis_threshold_latency) {
    th_system s;
    memset(&s, 0, sizeof s);
    test_add_dim(&s, TH_TOPO_RING, 2, 1, 0);
    test_add_dim(&s, TH_TOPO_RING, 2, 1, 200);
    test_finish(&s);
    int o01[] = {0, 1}, o10[] = {1, 0};
    th_plan *plan = make_plan(&s, test_coll(TH_COLL_REDUCESCATTER, 2048, 2, 0), TH_POLICY_THEMIS,
                              TH_LOAD_BANDWIDTH);
    check_order(plan, 0, o01, 2);
    check_order(plan, 1, o10, 2);
    ck_assert_rel(plan->load[0], 768.0);
    ck_assert_rel(plan->load[1], 768.0);
    th_plan_free(plan);

    plan = make_plan(&s, test_coll(TH_COLL_REDUCESCATTER, 2048, 2, 0), TH_POLICY_THEMIS,
                     TH_LOAD_ALPHA_BETA);
    check_order(plan, 0, o01, 2);
    check_order(plan, 1, o01, 2);
    ck_assert_rel(plan->load[0], 1024.0);
    ck_assert_rel(plan->load[1], 912.0);
    th_plan_free(plan);
}
END_TEST

/* Ties in the ascending sort go to the lower dim index. p = (2, 2, 2), B = (1, 1, 0.5),
 * alpha 0, RS of 2048 in 2 chunks, c = 1024, est = m / (2 B):
 *  chunk 0 (0,1,2): dim0 m=1024: 512; dim1 m=512: 256; dim2 m=256: 256/1 = 256.
 *  chunk 1: ascending with ties by index = (1,2,0) (not (2,1,0)); gap 512 - 256 = 256 >=
 *     est(RS,1,64) = 32 -> (1,2,0): dim1 m=1024: +512; dim2 m=512: +512; dim0 m=256: +128.
 *  load = (640, 768, 768). */
START_TEST(test_themis_tie_break_rs) {
    th_system s;
    memset(&s, 0, sizeof s);
    test_add_dim(&s, TH_TOPO_RING, 2, 1, 0);
    test_add_dim(&s, TH_TOPO_RING, 2, 1, 0);
    test_add_dim(&s, TH_TOPO_RING, 2, 0.5, 0);
    test_finish(&s);
    for (int lm = 0; lm < 2; lm++) {
        th_plan *plan = make_plan(&s, test_coll(TH_COLL_REDUCESCATTER, 2048, 2, 0),
                                  TH_POLICY_THEMIS, (th_load_model)lm);
        int o0[] = {0, 1, 2}, o1[] = {1, 2, 0};
        check_order(plan, 0, o0, 3);
        check_order(plan, 1, o1, 3);
        ck_assert_rel(plan->load[0], 640.0);
        ck_assert_rel(plan->load[1], 768.0);
        ck_assert_rel(plan->load[2], 768.0);
        th_plan_free(plan);
    }
}
END_TEST

/* Standalone AG on the worked-example system: load descending, ties lower index first.
 * chunk 0 baseline (2,1,0): dim2 m=c/32: 2457.6; dim1 m=c/4: 4587.52; dim0 m=c: 20971.52.
 * chunk 1: descending (0,1,2); |20971.52 - 2457.6| >= est(AG,2,c/16) = 4915.2 -> (0,1,2):
 *   dim0 m=c/128: 163.84; dim1 m=c/16: 1146.88; dim2 m=c: 78643.2 -> (21135.36, 5734.4,
 *   81100.8). Every later step is the RS example mirrored (no ties): sigma_i =
 *   reverse(pi_i) and the same loads, 73564.16, 88309.76, 95846.4. */
START_TEST(test_themis_allgather) {
    th_system s = test_ref_system();
    th_plan *plan = make_plan(&s, test_coll(TH_COLL_ALLGATHER, 64 * MIB, 8, 0), TH_POLICY_THEMIS,
                              TH_LOAD_BANDWIDTH);
    static const int want[8][3] = {{2, 1, 0}, {0, 1, 2}, {2, 0, 1}, {2, 1, 0},
                                   {2, 0, 1}, {2, 0, 1}, {2, 1, 0}, {2, 0, 1}};
    for (int64_t i = 0; i < 8; i++)
        check_order(plan, i, want[i], 3);
    ck_assert_rel(plan->load[0], 73564.16);
    ck_assert_rel(plan->load[1], 88309.76);
    ck_assert_rel(plan->load[2], 95846.4);
    double c = 8388608.0;
    check_stage(plan, 1, 0, 0, TH_OP_AG, c / 128); /* c / (p_1 p_2) */
    check_stage(plan, 1, 1, 1, TH_OP_AG, c / 16);
    check_stage(plan, 1, 2, 2, TH_OP_AG, c);
    check_stage(plan, 2, 0, 2, TH_OP_AG, c / 32); /* (2,0,1): c / (p_0 p_1) */
    check_stage(plan, 2, 1, 0, TH_OP_AG, c / 8);
    check_stage(plan, 2, 2, 1, TH_OP_AG, c);
    th_plan_free(plan);
}
END_TEST

/* AG tie: p = (2, 2, 2), B = (2, 1, 1), alpha 0, AG of 2048 in 2 chunks, c = 1024:
 *  chunk 0 baseline (2,1,0): dim2 m=256: 256/2/1 = 128; dim1 m=512: 256; dim0 m=1024:
 *     1024/2/2 = 256. load = (256, 256, 128).
 *  chunk 1: descending, ties lower index first: (0,1,2) (not (1,0,2)); |256 - 128| = 128
 *     >= est(AG,2,64) = 32 -> (0,1,2): dim0 m=256: +64; dim1 m=512: +256; dim2 m=1024: +512.
 *  load = (320, 512, 640). */
START_TEST(test_themis_tie_break_ag) {
    th_system s;
    memset(&s, 0, sizeof s);
    test_add_dim(&s, TH_TOPO_RING, 2, 2, 0);
    test_add_dim(&s, TH_TOPO_RING, 2, 1, 0);
    test_add_dim(&s, TH_TOPO_RING, 2, 1, 0);
    test_finish(&s);
    th_plan *plan = make_plan(&s, test_coll(TH_COLL_ALLGATHER, 2048, 2, 0), TH_POLICY_THEMIS,
                              TH_LOAD_BANDWIDTH);
    int o0[] = {2, 1, 0}, o1[] = {0, 1, 2};
    check_order(plan, 0, o0, 3);
    check_order(plan, 1, o1, 3);
    ck_assert_rel(plan->load[0], 320.0);
    ck_assert_rel(plan->load[1], 512.0);
    ck_assert_rel(plan->load[2], 640.0);
    th_plan_free(plan);
}
END_TEST

START_TEST(test_themis_plan_reuse_resets_load) {
    /* the load tracker is reset for every collective, and a reused plan grows and shrinks */
    th_system s = test_ref_system();
    th_plan *plan = th_plan_create();
    th_error err = {0};
    th_collective small = test_coll(TH_COLL_REDUCESCATTER, 64 * MIB, 8, 0);
    th_collective big = test_coll(TH_COLL_ALLREDUCE, 64 * MIB, 5000, 0);
    static const int want[8][3] = {{0, 1, 2}, {2, 1, 0}, {1, 0, 2}, {0, 1, 2},
                                   {1, 0, 2}, {1, 0, 2}, {0, 1, 2}, {1, 0, 2}};
    for (int rep = 0; rep < 2; rep++) {
        ck_assert_int_eq(th_sched_plan(plan, &s, &small, TH_POLICY_THEMIS, TH_LOAD_BANDWIDTH, &err),
                         0);
        for (int64_t i = 0; i < 8; i++)
            check_order(plan, i, want[i], 3);
        ck_assert_rel(plan->load[2], 95846.4);
        ck_assert_int_eq(th_sched_plan(plan, &s, &big, TH_POLICY_THEMIS, TH_LOAD_BANDWIDTH, &err),
                         0);
        ck_assert_int_eq(plan->chunks, 5000);
        ck_assert(plan->capacity >= 5000);
    }
    th_plan_free(plan);
}
END_TEST

/* The Themis greedy replayed from SPEC §5 on systems of up to 6 dims (hundreds of distinct
 * orders, more than the planner keeps increments for), every RS-first and AG collective and
 * both load models: every chunk's order, and the final loads to the bit (the same additions
 * in the same order). */
static double est(const th_system *s, int d, th_op op, double m, th_load_model lm) {
    const th_dim *dim = &s->dims[d];
    double p = (double)dim->npus;
    if (lm == TH_LOAD_BANDWIDTH) return m * (p - 1) / (p * dim->bw);
    return th_cost_time(dim, s->reduce_bw, op, m);
}

START_TEST(test_themis_greedy_replayed) {
    static const int64_t ps[] = {2, 3, 4, 8, 16};
    static const double bws[] = {25, 50, 100, 300};
    static const th_coll_type types[] = {TH_COLL_ALLREDUCE, TH_COLL_REDUCESCATTER,
                                         TH_COLL_ALLGATHER};
    uint64_t x = 99;
    th_plan *plan = th_plan_create();
    th_error err = {0};
    for (int k = 0; k < 60; k++) {
        th_system s;
        memset(&s, 0, sizeof s);
        int nd = 2 + k % 5;
        for (int d = 0; d < nd; d++) {
            x = x * 6364136223846793005u + 1442695040888963407u;
            test_add_dim(&s, (th_topology)(x >> 40) % 3, ps[(x >> 33) % 5], bws[(x >> 50) % 4],
                         (double)((x >> 20) % 3) * 100);
        }
        s.reduce_bw = k % 3 ? 0 : 400;
        test_finish(&s);
        th_coll_type type = types[k % 3];
        th_load_model lm = k % 2 ? TH_LOAD_BANDWIDTH : TH_LOAD_ALPHA_BETA;
        int ag = type == TH_COLL_ALLGATHER;
        th_op op = ag ? TH_OP_AG : TH_OP_RS;
        th_collective c = test_coll(type, 256 * MIB, 300, 0);
        ck_assert_int_eq(th_sched_plan(plan, &s, &c, TH_POLICY_THEMIS, lm, &err), 0);
        double load[TH_MAX_DIMS] = {0}, cs = 256 * MIB / 300;
        for (int64_t i = 0; i < 300; i++) {
            int ord[TH_MAX_DIMS];
            for (int j = 0; j < nd; j++) /* sorted by load (AG: descending), ties lower dim */
                ord[j] = j;
            for (int a = 0; a < nd; a++)
                for (int b = a + 1; b < nd; b++) {
                    double la = load[ord[a]], lb = load[ord[b]];
                    int swap = ag ? lb > la : lb < la;
                    if (swap || (la == lb && ord[b] < ord[a])) {
                        int t = ord[a];
                        ord[a] = ord[b], ord[b] = t;
                    }
                }
            int lo = ord[0], hi = ord[nd - 1];
            double gap = ag ? fabs(load[lo] - load[hi]) : load[hi] - load[lo];
            if (gap < est(&s, ag ? hi : lo, op, cs / 16, lm))
                for (int j = 0; j < nd; j++) /* baseline: ascending, AG descending */
                    ord[j] = ag ? nd - 1 - j : j;
            check_order(plan, i, ord, nd);
            for (int j = 0; j < nd; j++) { /* RS: c / p of the dims before; AG: after */
                double div = 1;
                for (int l = 0; l < nd; l++)
                    if (ag ? l > j : l < j) div *= (double)s.dims[ord[l]].npus;
                load[ord[j]] += est(&s, ord[j], op, cs / div, lm);
            }
        }
        for (int d = 0; d < nd; d++)
            ck_assert_msg(plan->load[d] == load[d], "system %d dim %d: load %.17g, replayed %.17g",
                          k, d, plan->load[d], load[d]);
    }
    th_plan_free(plan);
}
END_TEST

/* ---- names ---- */

START_TEST(test_names) {
    th_policy p;
    th_coll_type t;
    th_load_model m;
    ck_assert_int_eq(th_policy_from_name("baseline", &p), 0);
    ck_assert_int_eq(p, TH_POLICY_BASELINE);
    ck_assert_int_eq(th_policy_from_name("themis", &p), 0);
    ck_assert_int_eq(p, TH_POLICY_THEMIS);
    ck_assert_int_eq(th_policy_from_name("roundrobin", &p), 0);
    ck_assert_int_eq(p, TH_POLICY_ROUNDROBIN);
    ck_assert_int_eq(th_policy_from_name("fifo", &p), -1);
    ck_assert_int_eq(th_coll_type_from_name("allreduce", &t), 0);
    ck_assert_int_eq(t, TH_COLL_ALLREDUCE);
    ck_assert_int_eq(th_coll_type_from_name("reducescatter", &t), 0);
    ck_assert_int_eq(t, TH_COLL_REDUCESCATTER);
    ck_assert_int_eq(th_coll_type_from_name("allgather", &t), 0);
    ck_assert_int_eq(t, TH_COLL_ALLGATHER);
    ck_assert_int_eq(th_coll_type_from_name("allreduse", &t), -1);
    ck_assert_int_eq(th_load_model_from_name("alpha_beta", &m), 0);
    ck_assert_int_eq(m, TH_LOAD_ALPHA_BETA);
    ck_assert_int_eq(th_load_model_from_name("bandwidth", &m), 0);
    ck_assert_int_eq(m, TH_LOAD_BANDWIDTH);
    ck_assert_int_eq(th_load_model_from_name("", &m), -1);
    for (int i = 0; i <= TH_COLL_ALLTOALL; i++) {
        ck_assert_int_eq(th_coll_type_from_name(th_coll_type_name((th_coll_type)i), &t), 0);
        ck_assert_int_eq(t, i);
    }
    /* one table for every policy, in the order `themis train -p all` lists them */
    static const char *const policies[] = {"baseline", "themis",        "roundrobin",
                                           "lp",       "themis-global", "ideal"};
    for (int i = 0; i < TH_POLICY_COUNT; i++) {
        ck_assert_str_eq(th_policy_name((th_policy)i), policies[i]);
        ck_assert_int_eq(th_policy_from_name(policies[i], &p), 0);
        ck_assert_int_eq(p, i);
    }
    ck_assert_str_eq(th_policy_name((th_policy)TH_POLICY_COUNT), "?");
    for (int i = 0; i <= TH_LOAD_BANDWIDTH; i++) {
        ck_assert_int_eq(th_load_model_from_name(th_load_model_name((th_load_model)i), &m), 0);
        ck_assert_int_eq(m, i);
    }
}
END_TEST

Suite *schedule_suite(void) {
    Suite *s = suite_create("schedule");
    TCase *tc = tcase_create("validate");
    tcase_add_test(tc, test_validate_ok);
    tcase_add_test(tc, test_validate_chunks);
    tcase_add_test(tc, test_validate_size);
    tcase_add_test(tc, test_validate_dims_mask);
    tcase_add_test(tc, test_validate_no_active_dim);
    tcase_add_test(tc, test_plan_rejects_invalid);
    tcase_add_test(tc, test_parse_dims_ok);
    tcase_add_test(tc, test_parse_dims_errors);
    tcase_add_test(tc, test_names);
    suite_add_tcase(s, tc);

    tc = tcase_create("stages");
    tcase_add_test(tc, test_active_skips_p1);
    tcase_add_test(tc, test_active_mask_subset);
    tcase_add_test(tc, test_stages_allreduce_baseline);
    tcase_add_test(tc, test_stages_reducescatter_baseline);
    tcase_add_test(tc, test_stages_allgather_baseline);
    tcase_add_test(tc, test_stages_alltoall_baseline);
    tcase_add_test(tc, test_roundrobin_allreduce);
    tcase_add_test(tc, test_roundrobin_allgather_and_mask);
    suite_add_tcase(s, tc);

    tc = tcase_create("themis");
    tcase_add_test(tc, test_themis_worked_bandwidth);
    tcase_add_test(tc, test_themis_worked_alpha_beta);
    tcase_add_test(tc, test_policy_global_and_ideal);
    tcase_add_test(tc, test_themis_first_chunk_baseline);
    tcase_add_test(tc, test_themis_threshold_latency);
    tcase_add_test(tc, test_themis_tie_break_rs);
    tcase_add_test(tc, test_themis_allgather);
    tcase_add_test(tc, test_themis_tie_break_ag);
    tcase_add_test(tc, test_themis_plan_reuse_resets_load);
    tcase_add_test(tc, test_themis_greedy_replayed);
    suite_add_tcase(s, tc);
    return s;
}

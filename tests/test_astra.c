/* Check suite for the astra-sim preset (SPEC §9): phase costs, the reference vectors to the
 * nanosecond, equal-bandwidth systems, and importing ASTRA-sim configuration files. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_themis.h"
#include "themis/astra.h"

static th_system load(const char *name) {
    th_system s;
    th_error err = {0};
    ck_assert_msg(th_system_load(test_data(name), &s, &err) == TH_OK, "%s", err.msg);
    return s;
}

/* Time in ns of an All-Reduce of `size` bytes in `chunks` under one pair. */
static double ar_time(const th_system *s, double size, int64_t chunks, th_policy p, th_intra q) {
    th_runner *r = th_runner_create();
    th_collective c = {TH_COLL_ALLREDUCE, size, chunks, 0};
    th_result res;
    th_error err = {0};
    ck_assert_msg(
        th_run_eval(r, s, &c, (th_pair){p, q}, TH_LOAD_ALPHA_BETA, NULL, NULL, &res, &err) == TH_OK,
        "%s", err.msg);
    th_runner_free(r);
    return res.time;
}

START_TEST(phase_costs) {
    th_system s = load("astra_2d.json");
    /* B0 = 200 * 2^30 / 1e9 = 214.748364800 bytes/ns; chunk 1 MiB = 1048576, p = 4.
     * RS: s/p = 262144; net = floor(50 + 262144 / 214.7483648) = floor(50 + 1220.703125)
     * = 1270; proc = 3 floor(262144 / 1.6e12 * 1e9) = 3 floor(163.84) = 489;
     * RS = 10 + 3 (1270 + 10) + 3 * 489 = 10 + 3840 + 1467 = 5317. */
    ck_assert_double_eq(th_cost_astra_time(&s, &s.dims[0], TH_OP_RS, 1048576), 5317);
    /* AG of input 262144 on dim 0: 10 + 3 (1270 + 10) = 3850. */
    ck_assert_double_eq(th_cost_astra_time(&s, &s.dims[0], TH_OP_AG, 262144), 3850);
    /* AR of 262144 on the switch (2 hops, 100 ns, B1 = 53.6870912): s/p = 65536;
     * net = floor(200 + 1220.703125) = 1420; proc = 3 floor(40.96) = 120;
     * AR = 10 + 2 * 3 (1420 + 10) + 3 * 120 = 10 + 8580 + 360 = 8950. */
    ck_assert_double_eq(th_cost_astra_time(&s, &s.dims[1], TH_OP_AR, 262144), 8950);
    /* Bytes one NPU sends: RS (p-1) floor(s/p) = 3 * 262144; AG (p-1) s; AR twice the RS. */
    ck_assert_double_eq(th_cost_astra_bytes(&s.dims[0], TH_OP_RS, 1048576), 786432);
    ck_assert_double_eq(th_cost_astra_bytes(&s.dims[0], TH_OP_AG, 262144), 786432);
    ck_assert_double_eq(th_cost_astra_bytes(&s.dims[1], TH_OP_AR, 262144), 2 * 3 * 65536);
}
END_TEST

START_TEST(rt_template) {
    th_system s = load("astra_rt_template.json");
    /* 1 MiB in 4 chunks of 262144 on a ring of 8: one AR phase each, s/p = 32768;
     * B = 50 * 2^30 / 1e9 = 53.6870912; net = floor(500 + 610.3515625) = 1110;
     * proc = 3 floor(32768 / 50e9 * 1e9) = 3 * 655 = 1965;
     * AR = 10 + 2 * 7 (1110 + 10) + 7 * 1965 = 10 + 15680 + 13755 = 29445; the four chunks
     * queue on the one dim: 4 * 29445 = 117780, ASTRA-sim's regression value. */
    ck_assert_double_eq(ar_time(&s, 1048576, 4, TH_POLICY_BASELINE, TH_INTRA_FIFO), 117780);
    ck_assert_double_eq(ar_time(&s, 1048576, 4, TH_POLICY_BASELINE, TH_INTRA_SCF), 117780);
}
END_TEST

START_TEST(single_chunk_2d) {
    th_system s = load("astra_2d.json");
    /* Baseline: RS dim 0 (5317) + AR dim 1 (8950) + AG dim 0 (3850) = 18117 (phase_costs). */
    ck_assert_double_eq(ar_time(&s, 1048576, 1, TH_POLICY_BASELINE, TH_INTRA_FIFO), 18117);
}
END_TEST

/* Measured with ASTRA-sim 2.x (reference facts): 1 GiB, 64 chunks on the 2-D system. */
START_TEST(vectors_2d) {
    th_system s = load("astra_2d.json");
    double g = 1073741824.0;
    ck_assert_double_eq(ar_time(&s, g, 64, TH_POLICY_BASELINE, TH_INTRA_FIFO), 9033920);
    ck_assert_double_eq(ar_time(&s, g, 64, TH_POLICY_BASELINE, TH_INTRA_SCF), 9099488);
    ck_assert_double_eq(ar_time(&s, g, 64, TH_POLICY_THEMIS, TH_INTRA_FIFO), 9033920);
    ck_assert_double_eq(ar_time(&s, g, 64, TH_POLICY_THEMIS, TH_INTRA_SCF), 9099498);
}
END_TEST

/* Measured with ASTRA-sim 2.x: 1 GiB, 16 chunks on the 3-D system. */
START_TEST(vectors_3d) {
    th_system s = load("astra_3d.json");
    double g = 1073741824.0;
    ck_assert_double_eq(ar_time(&s, g, 16, TH_POLICY_BASELINE, TH_INTRA_FIFO), 9015920);
    ck_assert_double_eq(ar_time(&s, g, 16, TH_POLICY_BASELINE, TH_INTRA_SCF), 9164347);
    ck_assert_double_eq(ar_time(&s, g, 16, TH_POLICY_THEMIS, TH_INTRA_FIFO), 8585928);
    ck_assert_double_eq(ar_time(&s, g, 16, TH_POLICY_THEMIS, TH_INTRA_SCF), 8518008);
}
END_TEST

START_TEST(astra_themis_orders) {
    th_system s = load("astra_3d.json");
    th_plan *p = th_plan_create();
    th_collective c = {TH_COLL_ALLREDUCE, 1073741824.0, 16, 0};
    th_error err = {0};
    ck_assert_int_eq(th_sched_plan(p, &s, &c, TH_POLICY_THEMIS, TH_LOAD_ALPHA_BETA, &err), TH_OK);
    /* Chunk 0: loads all 0, gap 0 < floor(67108864 / 16): fallback, index order. Then
     * load[0] = 64 * 3/4 / 1 = 48; load[1] = 16 * 3/4 / 0.5 = 24; load[2] = 4 * 3/4 / 0.25 = 12
     * (MiB scaled by B0 / Bd). Chunk 1: sorted (2, 1, 0); gap = 48 - 12 = 36;
     * floor(36 * 0.25 / 0.75 * 2^20) = 12582912 >= 4194304: order (2, 1, 0). */
    const uint8_t *o0 = th_plan_order(p, 0), *o1 = th_plan_order(p, 1);
    ck_assert_int_eq(o0[0], 0);
    ck_assert_int_eq(o0[1], 1);
    ck_assert_int_eq(o0[2], 2);
    ck_assert_int_eq(o1[0], 2);
    ck_assert_int_eq(o1[1], 1);
    ck_assert_int_eq(o1[2], 0);
    /* Phases: RS over the order (separate phases), then AG back: 6 per chunk; the chunk of 1
     * GiB / 16 = 67108864 becomes 16777216 and 4194304 bytes; the first AG (on the last dim
     * of the order) takes 1048576. */
    ck_assert_int_eq(p->nstages, 6);
    int dim;
    th_op op;
    double m;
    th_plan_stage(p, 0, 2, &dim, &op, &m);
    ck_assert_int_eq(dim, 2);
    ck_assert_int_eq(op, TH_OP_RS);
    ck_assert_double_eq(m, 4194304);
    th_plan_stage(p, 0, 3, &dim, &op, &m);
    ck_assert_int_eq(dim, 2);
    ck_assert_int_eq(op, TH_OP_AG);
    ck_assert_double_eq(m, 1048576);
    /* The baseline runs the last dim as one AR phase: 5 phases. */
    ck_assert_int_eq(th_sched_plan(p, &s, &c, TH_POLICY_BASELINE, TH_LOAD_ALPHA_BETA, &err), TH_OK);
    ck_assert_int_eq(p->nstages, 5);
    th_plan_stage(p, 0, 2, &dim, &op, &m);
    ck_assert_int_eq(op, TH_OP_AR);
    ck_assert_double_eq(m, 4194304);
    th_plan_free(p);
}
END_TEST

START_TEST(equal_bandwidth_finishes) {
    th_system s = load("astra_equal_2d.json");
    for (int p = 0; p < 3; p++)
        for (int q = 0; q < 2; q++) {
            double t = ar_time(&s, 1073741824.0, 64, (th_policy)p, (th_intra)q);
            ck_assert_msg(t > 0 && t < 1e12, "policy %d intra %d: %g", p, q, t);
        }
}
END_TEST

START_TEST(preset_errors) {
    static const char *const bad[][2] = {
        {"{\"model\": \"astra-sim\", \"local_mem_GBps\": 50, \"dims\": [{\"topology\": \"ring\", "
         "\"npus\": 4, \"bw_GBps\": 50, \"latency_ns\": 5}]}",
         "endpoint_ns: missing"},
        {"{\"endpoint_ns\": 10, \"dims\": [{\"topology\": \"ring\", \"npus\": 4, \"bw_GBps\": 50, "
         "\"latency_ns\": 5}]}",
         "endpoint_ns: only used with"},
        {"{\"model\": \"astra-sim\", \"endpoint_ns\": 10, \"local_mem_GBps\": 50, \"reduce_GBps\": "
         "5, \"dims\": [{\"topology\": \"ring\", \"npus\": 4, \"bw_GBps\": 50, \"latency_ns\": "
         "5}]}",
         "reduce_GBps"},
        {"{\"model\": \"astra-sim\", \"endpoint_ns\": 10, \"local_mem_GBps\": 50, \"dims\": "
         "[{\"topology\": \"fc\", \"algorithm\": \"direct\", \"npus\": 4, \"bw_GBps\": 50, "
         "\"latency_ns\": 5}]}",
         "dims[0].algorithm"},
        {"{\"model\": \"astra\", \"dims\": []}", "model: unknown value"},
        {"{\"model\": \"astra-sim\", \"endpoint_ns\": 10, \"local_mem_GBps\": 0, \"dims\": "
         "[{\"topology\": \"ring\", \"npus\": 4, \"bw_GBps\": 50, \"latency_ns\": 5}]}",
         "local_mem_GBps"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        th_system s;
        th_error err = {0};
        ck_assert_int_eq(th_system_parse(bad[i][0], strlen(bad[i][0]), "x.json", &s, &err),
                         TH_EINPUT);
        ck_assert_msg(strstr(err.msg, bad[i][1]) && strstr(err.msg, "x.json"), "case %zu: %s", i,
                      err.msg);
    }
    /* Only All-Reduce is modelled under the preset. */
    th_system s = load("astra_2d.json");
    th_plan *p = th_plan_create();
    th_collective c = {TH_COLL_ALLGATHER, 1048576, 4, 0};
    th_error err = {0};
    ck_assert_int_eq(th_sched_plan(p, &s, &c, TH_POLICY_BASELINE, TH_LOAD_ALPHA_BETA, &err),
                     TH_EINPUT);
    ck_assert_ptr_nonnull(strstr(err.msg, "allreduce only"));
    th_plan_free(p);
}
END_TEST

START_TEST(import_runs) {
    char net[4096], sys[4096];
    snprintf(net, sizeof net, "%s", test_data("astra_net_3d.yml"));
    snprintf(sys, sizeof sys, "%s", test_data("astra_sys_3d.json"));
    char *text;
    const char *note;
    th_error err = {0};
    ck_assert_msg(th_astra_import(net, sys, &text, &note, &err) == TH_OK, "%s", err.msg);
    ck_assert_ptr_null(note);
    th_system s;
    th_run_defaults def;
    ck_assert_msg(th_run_parse_system(text, strlen(text), "imported", &s, &def, &err) == TH_OK,
                  "%s", err.msg);
    free(text);
    ck_assert_int_eq(s.model, TH_MODEL_ASTRA);
    ck_assert_int_eq(s.ndims, 3);
    ck_assert_int_eq(s.dims[1].topology, TH_TOPO_FC);
    ck_assert_int_eq(s.dims[2].topology, TH_TOPO_SWITCH);
    ck_assert_int_eq(s.dims[0].algorithm, TH_ALG_RING);
    ck_assert_double_eq(s.endpoint, 10);
    ck_assert_double_eq(s.local_mem_GBps, 1600);
    ck_assert_int_eq(def.chunks, 16);
    ck_assert(def.has_policy && def.policy == TH_POLICY_THEMIS);
    ck_assert(def.has_intra && def.intra == TH_INTRA_SCF);
    /* The imported system reproduces the 3-D vector. */
    ck_assert_double_eq(ar_time(&s, 1073741824.0, 16, TH_POLICY_THEMIS, TH_INTRA_SCF), 8518008);
    /* Without a system JSON: defaults, and a note saying so. */
    ck_assert_int_eq(th_astra_import(net, NULL, &text, &note, &err), TH_OK);
    ck_assert_str_eq(note, "no system JSON given: endpoint_ns 10 and local_mem_GBps 50 (the values "
                           "of ASTRA-sim's sample system files); edit them or give SYSTEM.json");
    th_system d;
    ck_assert_msg(th_system_parse(text, strlen(text), "d.json", &d, &err) == TH_OK, "%s", err.msg);
    ck_assert_double_eq(d.endpoint, 10);
    ck_assert_double_eq(d.local_mem_GBps, 50);
    free(text);
}
END_TEST

/* !!float and !!int tags name numbers: the import equals the untagged file's. */
START_TEST(import_tagged_numbers) {
    char *a = NULL, *b = NULL;
    const char *note;
    th_error err = {0};
    ck_assert_msg(th_astra_import(test_data("astra_net_3d.yml"), NULL, &a, &note, &err) == TH_OK,
                  "%s", err.msg);
    ck_assert_msg(th_astra_import(test_data("astra_net_tagged.yml"), NULL, &b, &note, &err) ==
                      TH_OK,
                  "%s", err.msg);
    /* the same dims; only the name (the file's base name) and description differ */
    ck_assert_str_eq(strstr(a, "\"dims\""), strstr(b, "\"dims\""));
    free(a);
    free(b);
}
END_TEST

START_TEST(import_errors) {
    static const char *const cases[][3] = {
        {"astra_net_mismatch.yml", NULL, "npus_count has 3 values but topology has 2"},
        {"astra_net_npus1.yml", NULL, "npus_count[0]"},
        {"astra_net_bw0.yml", NULL, "bandwidth[1]"},
        {"astra_net_topo.yml", NULL, "unknown topology \"Torus\""},
        {"astra_net_syntax.yml", NULL, "YAML syntax error"},
        {"astra_net_missing.yml", NULL, "cannot open"},
        {"astra_net_3d.yml", "astra_sys_chunks2.json", "active-chunks-per-dimension"},
        {"astra_net_3d.yml", "astra_sys_direct.json", "all-reduce-implementation"},
        /* ASTRA-sim knows LIFO, FIFO and EXPLICIT only */
        {"astra_net_3d.yml", "astra_sys_policy.json", "scheduling-policy: unknown value \"XYZ\""},
        /* a number is a plain scalar, untagged or !!int / !!float: not a string that reads
         * like one, nor a hexadecimal */
        {"astra_net_strbw.yml", NULL,
         "bandwidth[0]: expected a number, got the string \"200.0\" "
         "(!!str)"},
        {"astra_net_quotedbw.yml", NULL,
         "bandwidth[0]: expected a number, got the string "
         "\"200.0\" (quoted)"},
        {"astra_net_hexlat.yml", NULL, "latency[0]: expected a number, got \"0x32\""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char net[4096], sys[4096];
        snprintf(net, sizeof net, "%s", test_data(cases[i][0]));
        if (cases[i][1]) snprintf(sys, sizeof sys, "%s", test_data(cases[i][1]));
        char *text = NULL;
        const char *note;
        th_error err = {0};
        ck_assert_int_eq(th_astra_import(net, cases[i][1] ? sys : NULL, &text, &note, &err),
                         TH_EINPUT);
        ck_assert_ptr_null(text);
        const char *file = cases[i][1] ? cases[i][1] : cases[i][0];
        ck_assert_msg(strstr(err.msg, cases[i][2]) && strstr(err.msg, file), "case %zu: %s", i,
                      err.msg);
    }
}
END_TEST

/* Records the start of every traced phase: chunk, stage, dim and start time. */
typedef struct starts {
    int n;
    th_stage_rec rec[16];
} starts;

static void record_start(void *ctx, const th_stage_rec *rec) {
    starts *s = ctx;
    if (s->n < 16) s->rec[s->n] = *rec;
    s->n++;
}

/* Phases ending at the same instant complete in the order they started (SPEC §9), not in dim
 * order. Two ring dims of p = 2, endpoint 0, bandwidths so high that every phase of this
 * 1 MiB collective costs just its latency (part/B < 0.001 ns, reductions floor to 0 ns):
 * 100 ns on dim 0, 200 ns on dim 1. Round-robin, 2 chunks: chunk 0 visits (0, 1), chunk 1
 * (1, 0); each runs RS, RS, AG, AG (4 phases), FIFO. By hand:
 *   t=0:   c0 RS@0 [0,100] (started 1st); c1 RS@1 [0,200] (2nd)
 *   t=100: c0's RS@1 waits for dim 1
 *   t=200: dim 1 ends c1 RS: c1 RS@0 [200,300] (3rd); dim 1 takes c0 RS@1 [200,400] (4th)
 *   t=300: c1 AG@0 [300,400] (5th)
 *   t=400: dim 1 (started 4th) and dim 0 (5th) end together. In start order: dim 1 first,
 *          c0 AG@1 [400,600]; then dim 0: c1 AG@1 waits behind it.
 *   t=600: c0 AG@0 [600,700]; c1 AG@1 [600,800]. Time 800 ns.
 * In dim order dim 0 would end first and queue c1 AG@1 ahead of c0 AG@1: c1 AG@1 [400,600],
 * c0 AG@1 [600,800], c0 AG@0 [800,900], 900 ns. */
START_TEST(same_instant_start_order) {
    static const char *const json =
        "{\"model\": \"astra-sim\", \"endpoint_ns\": 0, \"local_mem_GBps\": 1e9, \"dims\": ["
        "{\"topology\": \"ring\", \"npus\": 2, \"bw_GBps\": 1e9, \"latency_ns\": 100},"
        "{\"topology\": \"ring\", \"npus\": 2, \"bw_GBps\": 1e9, \"latency_ns\": 200}]}";
    th_system s;
    th_error err = {0};
    ck_assert_msg(th_system_parse(json, strlen(json), "order.json", &s, &err) == TH_OK, "%s",
                  err.msg);
    th_collective c = {TH_COLL_ALLREDUCE, 1048576, 2, 0};
    th_plan *plan = th_plan_create();
    th_emu *emu = th_emu_create();
    ck_assert_int_eq(th_sched_plan(plan, &s, &c, TH_POLICY_ROUNDROBIN, TH_LOAD_ALPHA_BETA, &err),
                     TH_OK);
    starts st = {0};
    th_result res;
    ck_assert_msg(th_emu_run(emu, &s, plan, TH_INTRA_FIFO, record_start, &st, &res, &err) == TH_OK,
                  "%s", err.msg);
    ck_assert_double_eq(res.time, 800);
    /* chunk, stage, dim, start: in the order the phases started */
    static const double want[8][4] = {{0, 0, 0, 0},   {1, 0, 1, 0},   {1, 1, 0, 200},
                                      {0, 1, 1, 200}, {1, 2, 0, 300}, {0, 2, 1, 400},
                                      {0, 3, 0, 600}, {1, 3, 1, 600}};
    ck_assert_int_eq(st.n, 8);
    for (int i = 0; i < 8; i++) {
        const th_stage_rec *r = &st.rec[i];
        ck_assert_msg(r->chunk == want[i][0] && r->stage == want[i][1] && r->dim == want[i][2] &&
                          r->start == want[i][3],
                      "start %d: chunk %lld stage %d dim %d at %g", i, (long long)r->chunk,
                      r->stage, r->dim, r->start);
    }
    th_emu_free(emu);
    th_plan_free(plan);
}
END_TEST

Suite *astra_suite(void) {
    Suite *s = suite_create("astra");
    TCase *tc = tcase_create("preset");
    tcase_add_test(tc, phase_costs);
    tcase_add_test(tc, rt_template);
    tcase_add_test(tc, single_chunk_2d);
    tcase_add_test(tc, vectors_2d);
    tcase_add_test(tc, vectors_3d);
    tcase_add_test(tc, astra_themis_orders);
    tcase_add_test(tc, equal_bandwidth_finishes);
    tcase_add_test(tc, same_instant_start_order);
    tcase_add_test(tc, preset_errors);
    suite_add_tcase(s, tc);
    tc = tcase_create("import");
    tcase_add_test(tc, import_runs);
    tcase_add_test(tc, import_errors);
    tcase_add_test(tc, import_tagged_numbers);
    suite_add_tcase(s, tc);
    return s;
}

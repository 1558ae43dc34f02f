/* Check suite for the astra-sim preset (SPEC §9): phase costs, the reference vectors to the
 * nanosecond, equal-bandwidth systems, and importing ASTRA-sim configuration files. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "astra_preset.h"
#include "check_themis.h"
#include "themis/astra.h"

static th_system load(const char *name) {
    th_system s;
    th_error err = {0};
    ck_assert_msg(th_system_load(test_data(name), &s, &err) == TH_OK, "%s", err.msg);
    return s;
}

/* Time in ns of a collective of `size` bytes in `chunks` under one pair. */
static double coll_time(const th_system *s, th_coll_type type, double size, int64_t chunks,
                        th_policy p, th_intra q) {
    th_runner *r = th_runner_create();
    th_collective c = {type, size, chunks, 0};
    th_result res;
    th_error err = {0};
    ck_assert_msg(
        th_run_eval(r, s, &c, (th_pair){p, q}, TH_LOAD_ALPHA_BETA, NULL, NULL, &res, &err) == TH_OK,
        "%s", err.msg);
    th_runner_free(r);
    return res.time;
}

static double ar_time(const th_system *s, double size, int64_t chunks, th_policy p, th_intra q) {
    return coll_time(s, TH_COLL_ALLREDUCE, size, chunks, p, q);
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
    ck_assert_double_eq(th_cost_astra_bytes(&s, &s.dims[0], TH_OP_RS, 1048576), 786432);
    ck_assert_double_eq(th_cost_astra_bytes(&s, &s.dims[0], TH_OP_AG, 262144), 786432);
    ck_assert_double_eq(th_cost_astra_bytes(&s, &s.dims[1], TH_OP_AR, 262144), 2 * 3 * 65536);
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

/* A Themis load gap past 2^63 (no integer holds it) still compares as the large number it is.
 * All-Gather of 2^53 bytes in 2 chunks (2^52 each) on three switches of 2 NPUs at 1, 1000 and
 * 1 GB/s (B0 = 1). Chunk 0: loads 0, gap 0: fallback, index order; its loads land reversed
 * (AG): load[2] += 2^52 / 2^20 = 2^32, s = 2^53; load[1] += 2^33 / 1000; s = 2^54; load[0] +=
 * 2^34. Chunk 1: sorted (1, 2, 0), reversed (0, 2, 1); gap = floor((2^34 - 2^33 / 1000) x
 * 1000 / 1 x 2^20) ~ 1.8e19, halved twice ~ 4.5e18 >= floor(2^52 / 16): order (0, 2, 1), not
 * the fallback's (0, 1, 2). */
START_TEST(astra_themis_huge_gap) {
    const char *json =
        "{\"name\": \"gap\", \"model\": \"astra-sim\", \"endpoint_ns\": 10, "
        "\"local_mem_GBps\": 1600, \"dims\": ["
        "{\"topology\": \"switch\", \"npus\": 2, \"bw_GBps\": 1, \"latency_ns\": 1},"
        "{\"topology\": \"switch\", \"npus\": 2, \"bw_GBps\": 1000, \"latency_ns\": 1},"
        "{\"topology\": \"switch\", \"npus\": 2, \"bw_GBps\": 1, \"latency_ns\": 1}]}";
    th_system s;
    th_error err = {0};
    ck_assert_int_eq(th_system_parse(json, strlen(json), "gap", &s, &err), TH_OK);
    th_plan *p = th_plan_create();
    th_collective c = {TH_COLL_ALLGATHER, 9007199254740992.0, 2, 0};
    ck_assert_int_eq(th_sched_plan(p, &s, &c, TH_POLICY_THEMIS, TH_LOAD_ALPHA_BETA, &err), TH_OK);
    const uint8_t *o0 = th_plan_order(p, 0), *o1 = th_plan_order(p, 1);
    ck_assert(o0[0] == 0 && o0[1] == 1 && o0[2] == 2);
    ck_assert(o1[0] == 0 && o1[1] == 2 && o1[2] == 1);
    th_plan_free(p);
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
         "[{\"topology\": \"ring\", \"algorithm\": \"direct\", \"npus\": 4097, \"bw_GBps\": "
         "50, \"latency_ns\": 5}]}",
         "dims[0].algorithm: direct on a ring topology of more than 4096 NPUs is not modelled"},
        {"{\"model\": \"astra-sim\", \"endpoint_ns\": 10, \"local_mem_GBps\": 50, \"dims\": "
         "[{\"topology\": \"switch\", \"algorithm\": \"rhd\", \"npus\": 6, \"bw_GBps\": 50, "
         "\"latency_ns\": 5}]}",
         "dims[0].algorithm: rhd (ASTRA-sim's halvingDoubling) needs a power-of-two npus"},
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
    /* An All-to-All runs the ring only; sizes are whole bytes (ASTRA-sim's are integers). */
    th_system s = load("astra_2d_a2a_rhd.json");
    th_plan *p = th_plan_create();
    th_collective c = {TH_COLL_ALLTOALL, 1048576, 4, 0};
    th_error err = {0};
    ck_assert_int_eq(th_sched_plan(p, &s, &c, TH_POLICY_BASELINE, TH_LOAD_ALPHA_BETA, &err),
                     TH_EINPUT);
    ck_assert_ptr_nonnull(strstr(err.msg, "and dim 1 runs rhd"));
    s = load("astra_2d.json");
    c = (th_collective){TH_COLL_ALLREDUCE, 1048576.5, 4, 0};
    ck_assert_int_eq(th_sched_plan(p, &s, &c, TH_POLICY_BASELINE, TH_LOAD_ALPHA_BETA, &err),
                     TH_EINPUT);
    /* every model takes whole bytes now (SPEC §1): refused before the preset is asked */
    ck_assert_ptr_nonnull(strstr(err.msg, "size: expected a whole number of bytes"));
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
    ck_assert_double_eq(astra_of(&s)->endpoint, 10);
    ck_assert_double_eq(astra_of(&s)->local_mem_GBps, 1600);
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
    ck_assert_double_eq(astra_of(&d)->endpoint, 10);
    ck_assert_double_eq(astra_of(&d)->local_mem_GBps, 50);
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

/* The per-dim implementation lists: all-reduce-implementation sets each dim's algorithm
 * (direct, halvingDoubling = rhd, ring), and the system runs the 3-D reference vector. */
START_TEST(import_implementations) {
    char net[4096], sys[4096];
    snprintf(net, sizeof net, "%s", test_data("astra_net_impl.yml"));
    snprintf(sys, sizeof sys, "%s", test_data("astra_sys_impl.json"));
    char *text;
    const char *note;
    th_error err = {0};
    ck_assert_msg(th_astra_import(net, sys, &text, &note, &err) == TH_OK, "%s", err.msg);
    th_system s;
    th_run_defaults def;
    ck_assert_msg(th_run_parse_system(text, strlen(text), "imported", &s, &def, &err) == TH_OK,
                  "%s", err.msg);
    free(text);
    ck_assert_int_eq(s.dims[0].algorithm, TH_ALG_DIRECT);
    ck_assert_int_eq(s.dims[1].algorithm, TH_ALG_RHD);
    ck_assert_int_eq(s.dims[2].algorithm, TH_ALG_RING);
    ck_assert(def.has_policy && def.policy == TH_POLICY_BASELINE);
    ck_assert_double_eq(ar_time(&s, 1048576, def.chunks, def.policy, def.intra), 12206);
    /* direct on a fully connected dim; the other lists absent */
    snprintf(net, sizeof net, "%s", test_data("astra_net_3d.yml"));
    snprintf(sys, sizeof sys, "%s", test_data("astra_sys_direct.json"));
    ck_assert_msg(th_astra_import(net, sys, &text, &note, &err) == TH_OK, "%s", err.msg);
    ck_assert_msg(th_run_parse_system(text, strlen(text), "imported", &s, &def, &err) == TH_OK,
                  "%s", err.msg);
    free(text);
    ck_assert_int_eq(s.dims[0].algorithm, TH_ALG_RING);
    ck_assert_int_eq(s.dims[1].algorithm, TH_ALG_DIRECT);
    /* direct on a Ring dim (dim 0 of astra_net_3d.yml) */
    snprintf(sys, sizeof sys, "%s", test_data("astra_sys_direct_ring.json"));
    ck_assert_msg(th_astra_import(net, sys, &text, &note, &err) == TH_OK, "%s", err.msg);
    ck_assert_msg(th_run_parse_system(text, strlen(text), "imported", &s, &def, &err) == TH_OK,
                  "%s", err.msg);
    free(text);
    ck_assert_int_eq(s.dims[0].algorithm, TH_ALG_DIRECT);
    ck_assert_int_eq(s.dims[0].topology, TH_TOPO_RING);
    /* the reduce-scatter and all-gather lists where they differ from the all-reduce list */
    snprintf(sys, sizeof sys, "%s", test_data("astra_sys_lists.json"));
    ck_assert_msg(th_astra_import(net, sys, &text, &note, &err) == TH_OK, "%s", err.msg);
    ck_assert_msg(th_run_parse_system(text, strlen(text), "imported", &s, &def, &err) == TH_OK,
                  "%s", err.msg);
    free(text);
    static const th_algorithm want[3][3] = {{TH_ALG_RING, TH_ALG_DIRECT, TH_ALG_RING},
                                            {TH_ALG_RING, TH_ALG_RHD, TH_ALG_DIRECT},
                                            {TH_ALG_RING, TH_ALG_DIRECT, TH_ALG_RHD}};
    static const th_coll_type types[3] = {TH_COLL_ALLREDUCE, TH_COLL_REDUCESCATTER,
                                          TH_COLL_ALLGATHER};
    for (int t = 0; t < 3; t++)
        for (int k = 0; k < 3; k++)
            ck_assert_msg(th_astra_algorithm(&s, types[t], k) == want[t][k], "type %d dim %d", t,
                          k);
    /* collective-optimization baseline */
    snprintf(sys, sizeof sys, "%s", test_data("astra_sys_collopt.json"));
    ck_assert_msg(th_astra_import(net, sys, &text, &note, &err) == TH_OK, "%s", err.msg);
    ck_assert_msg(th_run_parse_system(text, strlen(text), "imported", &s, &def, &err) == TH_OK,
                  "%s", err.msg);
    free(text);
    ck_assert_int_eq(astra_of(&s)->flat, 1);
    /* astra_sys_differs.json: its all-gather list differs from the all-reduce list on dim 1 */
    snprintf(sys, sizeof sys, "%s", test_data("astra_sys_differs.json"));
    ck_assert_msg(th_astra_import(net, sys, &text, &note, &err) == TH_OK, "%s", err.msg);
    ck_assert_msg(th_run_parse_system(text, strlen(text), "imported", &s, &def, &err) == TH_OK,
                  "%s", err.msg);
    free(text);
    ck_assert_int_eq(th_astra_algorithm(&s, TH_COLL_ALLGATHER, 1), TH_ALG_RING);
    ck_assert_int_eq(th_astra_algorithm(&s, TH_COLL_REDUCESCATTER, 1), TH_ALG_DIRECT);
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
        {"astra_net_3d.yml", "astra_sys_window.json",
         "all-reduce-implementation[1]: \"direct4\": a direct window"},
        {"astra_net_3d.yml", "astra_sys_dbt.json",
         "all-reduce-implementation[1]: \"doubleBinaryTree\": not modelled"},
        {"astra_net_3d.yml", "astra_sys_impl_count.json",
         "reduce-scatter-implementation: 2 entries for 3 dimensions"},
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

/* Two rings of 2 NPUs without endpoint delay or bandwidth cost: 100 and 200 ns a step. */
static void order_system(th_system *s) {
    static const char *const json =
        "{\"model\": \"astra-sim\", \"endpoint_ns\": 0, \"local_mem_GBps\": 1e9, \"dims\": ["
        "{\"topology\": \"ring\", \"npus\": 2, \"bw_GBps\": 1e9, \"latency_ns\": 100},"
        "{\"topology\": \"ring\", \"npus\": 2, \"bw_GBps\": 1e9, \"latency_ns\": 200}]}";
    th_error err = {0};
    ck_assert_msg(th_system_parse(json, strlen(json), "order.json", s, &err) == TH_OK, "%s",
                  err.msg);
}

/* Phases ending at the same instant complete in the order they started (SPEC §9), not in dim
 * order. Two ring dims of p = 2, endpoint 0, bandwidths so high that every phase of this
 * 1 MiB collective costs just its latency (part/B < 0.001 ns, reductions floor to 0 ns):
 * 100 ns on dim 0, 200 ns on dim 1. Round-robin, 2 chunks: chunk 0 visits (0, 1), chunk 1
 * (1, 0); each runs RS, RS, AG, AG (4 phases), FIFO. By hand:
 *   t=0:   c0 RS@0 [0,100] (started 1st); c1 RS@1 [0,200] (2nd)
 *   t=100: c0's RS@1 waits for dim 1
 *   t=200: dim 1 ends c1 RS: the dim it left takes its next phase first, c0 RS@1 [200,400]
 *          (3rd), then the chunk goes on, c1 RS@0 [200,300] (4th)
 *   t=300: c1 AG@0 [300,400] (5th)
 *   t=400: dim 1 (started 3rd) and dim 0 (5th) end together. In start order: dim 1 first,
 *          c0 AG@1 [400,600]; then dim 0: c1 AG@1 waits behind it.
 *   t=600: dim 1 takes c1 AG@1 [600,800], then c0 goes on, AG@0 [600,700]. Time 800 ns.
 * In dim order dim 0 would end first and queue c1 AG@1 ahead of c0 AG@1: c1 AG@1 [400,600],
 * c0 AG@1 [600,800], c0 AG@0 [800,900], 900 ns. */
START_TEST(same_instant_start_order) {
    th_system s;
    order_system(&s);
    th_error err = {0};
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
    static const double want[8][4] = {{0, 0, 0, 0},   {1, 0, 1, 0},   {0, 1, 1, 200},
                                      {1, 1, 0, 200}, {1, 2, 0, 300}, {0, 2, 1, 400},
                                      {1, 3, 1, 600}, {0, 3, 0, 600}};
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

/* The NPU that sees collective `type` (`chunks` chunks under policy p, FIFO) end first, as the
 * preset follows ASTRA-sim's order of the NPUs' events (docs/CHAKRA.md): started in index
 * order (rank 0 first). */
static int64_t first_npu(const th_system *s, th_coll_type type, int64_t chunks, th_policy p) {
    th_collective c = {type, 1048576, chunks, 0};
    th_plan *plan = th_plan_create();
    th_emu *emu = th_emu_create();
    th_error err = {0};
    th_result res;
    ck_assert_msg(th_sched_plan(plan, s, &c, p, TH_LOAD_ALPHA_BETA, &err) == TH_OK, "%s", err.msg);
    ck_assert_msg(th_emu_run(emu, s, plan, TH_INTRA_FIFO, NULL, NULL, &res, &err) == TH_OK, "%s",
                  err.msg);
    int64_t first = astra_first_npu(emu, 0);
    th_emu_free(emu);
    th_plan_free(plan);
    return first;
}

/* The order of the NPUs' events: every step of a ring phase hands each NPU's message to its
 * successor (Ring.cc, clockwise), so the NPU that acts first moves by one on that dim per step:
 * an All-Reduce phase 2 (p - 1) steps, a Reduce-Scatter or All-Gather p - 1, an All-to-All
 * p (p - 1) / 2, and an All-Reduce's All-Gather phases -(p - 1) (its anticlockwise queues).
 * By hand, NPU index = x0 + 4 x1 on 4 x 4:
 *   ring of 7, All-Reduce (one AR phase): 12 mod 7 = 5; 2 chunks (the second starts as the
 *   first ends, in its order): 24 mod 7 = 3; Reduce-Scatter, All-Gather: 6; All-to-All:
 *   21 mod 7 = 0;
 *   astra_2d (ring 4, switch 4, both rings of messages), baseline All-Reduce: RS on dim 0
 *   (x0 + 3), AR on dim 1 (x1 + 6 = 2 mod 4), AG on dim 0 (x0 - 3): (0, 2) = NPU 8; an
 *   All-Gather (3, 3) = 15; Themis's All-Reduce (RS, RS, AG, AG): (0, 0) = 0;
 *   the two p = 2 rings of same_instant_start_order (round-robin, 2 chunks; one step per phase
 *   flips a coordinate): c0 RS@0 ends at 100 in order (1, 0), c1 RS@1 at 200 in (0, 1), which
 *   starts c1 RS@0 (ends at 300 in (1, 1)) and c0 RS@1 (ends at 400 in (0, 0)); c1 AG@0
 *   starts at 300 and ends at 400 in (0, 1). At 400 both end: what follows takes the order of
 *   the phase whose end was registered first, here (both 0 ns before it: endpoint 0, the
 *   reduction floors to 0) the one that started first (c0 RS@1, (0, 0)), so c0 AG@1 ends at
 *   600 in (0, 1), and c1
 *   AG@1, started then, ends the collective at 800 in (0, 0): NPU 0 (NPU 2 in the other
 *   phase's order). */
START_TEST(first_npu_order) {
    th_system r7 = load("astra_ring7.json"), s2 = load("astra_2d.json");
    ck_assert_int_eq(first_npu(&r7, TH_COLL_ALLREDUCE, 1, TH_POLICY_BASELINE), 5);
    ck_assert_int_eq(first_npu(&r7, TH_COLL_ALLREDUCE, 2, TH_POLICY_BASELINE), 3);
    ck_assert_int_eq(first_npu(&r7, TH_COLL_REDUCESCATTER, 1, TH_POLICY_BASELINE), 6);
    ck_assert_int_eq(first_npu(&r7, TH_COLL_ALLGATHER, 1, TH_POLICY_BASELINE), 6);
    ck_assert_int_eq(first_npu(&r7, TH_COLL_ALLTOALL, 1, TH_POLICY_BASELINE), 0);
    ck_assert_int_eq(first_npu(&s2, TH_COLL_ALLREDUCE, 1, TH_POLICY_BASELINE), 8);
    ck_assert_int_eq(first_npu(&s2, TH_COLL_ALLGATHER, 1, TH_POLICY_BASELINE), 15);
    ck_assert_int_eq(first_npu(&s2, TH_COLL_ALLREDUCE, 1, TH_POLICY_THEMIS), 0);
    th_system s;
    order_system(&s);
    ck_assert_int_eq(first_npu(&s, TH_COLL_ALLREDUCE, 2, TH_POLICY_ROUNDROBIN), 0);
}
END_TEST

/* Stage j of chunk i of a plan: its dim, operation and input size. */
static void want_stage(const th_plan *p, int64_t i, int j, int dim, th_op op, double m) {
    int d;
    th_op o;
    double x;
    th_plan_stage(p, i, j, &d, &o, &x);
    ck_assert_msg(d == dim && o == op && x == m, "chunk %lld stage %d: dim %d op %s m %.17g",
                  (long long)i, j, d, th_op_name(o), x);
}

/* halvingDoubling and direct phases, from ASTRA-sim 2.x's code (docs/VALIDATION.md). */
START_TEST(phase_costs_hd_direct) {
    th_system s = load("astra_hd_3d.json");
    /* dim 0: switch 4, direct, 200 GB/s (B = 214.7483648 bytes/ns), 20 ns (2 hops: 40).
     * RS of 1048576: every peer gets s/p = 262144 at once: net = floor(40 + 1220.703125) =
     * 1260; proc = 3 floor(163.84) = 489; RS = ep + net + ep + proc = 10 + 1260 + 10 + 489 =
     * 1769. AG of 262144: ep + floor(40 + 1220.703125) + ep = 1280. AR of 1048576: the RS
     * round, then one more exchange of 262144 and ep: 1769 + 1260 + 10 = 3039. */
    ck_assert_double_eq(th_cost_astra_time(&s, &s.dims[0], TH_OP_RS, 1048576), 1769);
    ck_assert_double_eq(th_cost_astra_time(&s, &s.dims[0], TH_OP_AG, 262144), 1280);
    ck_assert_double_eq(th_cost_astra_time(&s, &s.dims[0], TH_OP_AR, 1048576), 3039);
    ck_assert_double_eq(th_cost_astra_bytes(&s, &s.dims[0], TH_OP_RS, 1048576), 3 * 262144);
    ck_assert_double_eq(th_cost_astra_bytes(&s, &s.dims[0], TH_OP_AR, 1048576), 6 * 262144);
    /* dim 1: fc 8, halvingDoubling, 100 GB/s (B = 107.3741824), 100 ns, log2 8 = 3 steps.
     * RS of 262144: messages 131072, 65536, 32768: nets floor(100 + 1220.703125) = 1320,
     * floor(100 + 610.3515625) = 710, floor(100 + 305.17578125) = 405; the 2nd and 3rd
     * messages are reduced at sizes 65536 and 32768: proc 3 floor(40.96) = 120, 3 floor(20.48)
     * = 60; RS = 10 + 1320 + (10 + 120) + 710 + (10 + 60) + 405 + 10 = 2655. */
    ck_assert_double_eq(th_cost_astra_time(&s, &s.dims[1], TH_OP_RS, 262144), 2655);
    ck_assert_double_eq(th_cost_astra_bytes(&s, &s.dims[1], TH_OP_RS, 262144), 229376);
    /* AG of 32768: messages 32768, 65536, 131072, each followed by ep:
     * 10 + (405 + 10) + (710 + 10) + (1320 + 10) = 2475. */
    ck_assert_double_eq(th_cost_astra_time(&s, &s.dims[1], TH_OP_AG, 32768), 2475);
    /* AR of 262144: the RS half without its last ep (2645), then from 2 floor(32768 / 2) =
     * 32768 the doubling half, ep before each message: (10 + 405) + (10 + 710) + (10 + 1320),
     * then ep: 2645 + 2465 + 10 = 5120. */
    ck_assert_double_eq(th_cost_astra_time(&s, &s.dims[1], TH_OP_AR, 262144), 5120);
    /* the ring on dim 2 as before: AR of 32768 on ring 4 @ 50 / 500: s/p = 8192, net =
     * floor(500 + 152.587890625) = 652, proc = 3 floor(5.12) = 15:
     * 10 + 6 (652 + 10) + 3 * 15 = 4027 */
    ck_assert_double_eq(th_cost_astra_time(&s, &s.dims[2], TH_OP_AR, 32768), 4027);
    /* an All-to-All on the ring: p (p-1) / 2 = 6 messages of s/p = 8192, each followed by ep:
     * 10 + 6 (652 + 10) = 3982; halvingDoubling has none (ASTRA-sim stops on it); direct sends
     * s/p to every peer at once and waits for the farthest (2 hops on a ring of 4): 10 +
     * floor(2 x 500 + 152.587890625) + 10 = 1172 (ASTRA-sim 2.x measures 2630 ns a chunk of
     * 262144 on Ring 8 @ 50 / 500: 10 + floor(4 x 500 + 610.3515625) + 10) */
    ck_assert_double_eq(th_cost_astra_time(&s, &s.dims[2], TH_OP_A2A, 32768), 3982);
    ck_assert_double_eq(th_cost_astra_time(&s, &s.dims[1], TH_OP_A2A, 32768), -1);
    double t, b;
    th_cost_astra_phase(&s, &s.dims[2], TH_ALG_DIRECT, TH_OP_A2A, 32768, &t, &b);
    ck_assert_double_eq(t, 1172);
    ck_assert_double_eq(b, 3 * 8192);
}
END_TEST

/* halvingDoubling on a ring topology: exchanges at distance 1, 2, 4 cost that many hops
 * (the shorter way round a bidirectional ring). Ring 8 @ 1e9 GB/s (b / B under a ns), 100 ns,
 * endpoint 10, reductions free (local memory 1e9 GB/s): RS = 10 + 100 + (10 + 200) + (10 +
 * 400) + 10 = 740; AG: distances 4, 2, 1: 10 + (400 + 10) + (200 + 10) + (100 + 10) = 740. */
START_TEST(hd_on_a_ring) {
    static const char *const json =
        "{\"model\": \"astra-sim\", \"endpoint_ns\": 10, \"local_mem_GBps\": 1e9, \"dims\": ["
        "{\"topology\": \"ring\", \"algorithm\": \"rhd\", \"npus\": 8, \"bw_GBps\": 1e9, "
        "\"latency_ns\": 100}]}";
    th_system s;
    th_error err = {0};
    ck_assert_msg(th_system_parse(json, strlen(json), "hd.json", &s, &err) == TH_OK, "%s", err.msg);
    ck_assert_double_eq(th_cost_astra_time(&s, &s.dims[0], TH_OP_RS, 1024), 740);
    ck_assert_double_eq(th_cost_astra_time(&s, &s.dims[0], TH_OP_AG, 128), 740);
    /* and the analytical model still refuses rhd on a ring */
    static const char *const ours =
        "{\"dims\": [{\"topology\": \"ring\", \"algorithm\": \"rhd\", \"npus\": 8, "
        "\"bw_GBps\": 1, \"latency_ns\": 1}]}";
    ck_assert_int_eq(th_system_parse(ours, strlen(ours), "o.json", &s, &err), TH_EINPUT);
    ck_assert_ptr_nonnull(strstr(err.msg, "dims[0].algorithm: expected ring on a ring topology"));
}
END_TEST

/* direct on a ring: the peer j places on is min(j, p - j) hops away. Ring 4, 100 ns per hop,
 * 1e9 GB/s (b / B under a ns), endpoint 10, reductions free: a message costs 100 h.
 * RS: ep + 200 (the farthest, 2 hops) + ep + 0 = 220; AG the same, 220.
 * AR: first-round arrivals at 100, 100, 200 (hops 1, 1, 2 in arrival order), reduced at 110,
 * 110, 210; every arrival is in by 200, so nothing leaves before 210, the first reduction
 * after it. The second round leaves at 210 for the NPUs 1, 2, 3 places on (1, 2, 1 hops):
 * arrivals 310, 410, 310; the phase ends ep after the last: 10 + 410 + 10 = 430 (a fully
 * connected dim of 4 would take 3 ep + 2 * 100 = 230). */
START_TEST(direct_on_a_ring) {
    static const char *const json =
        "{\"model\": \"astra-sim\", \"endpoint_ns\": 10, \"local_mem_GBps\": 1e9, \"dims\": ["
        "{\"topology\": \"ring\", \"algorithm\": \"direct\", \"npus\": 4, \"bw_GBps\": 1e9, "
        "\"latency_ns\": 100},"
        "{\"topology\": \"fc\", \"algorithm\": \"direct\", \"npus\": 4, \"bw_GBps\": 1e9, "
        "\"latency_ns\": 100}]}";
    th_system s;
    th_error err = {0};
    ck_assert_msg(th_system_parse(json, strlen(json), "dr.json", &s, &err) == TH_OK, "%s", err.msg);
    ck_assert_double_eq(th_cost_astra_time(&s, &s.dims[0], TH_OP_RS, 4096), 220);
    ck_assert_double_eq(th_cost_astra_time(&s, &s.dims[0], TH_OP_AG, 1024), 220);
    ck_assert_double_eq(th_cost_astra_time(&s, &s.dims[0], TH_OP_AR, 4096), 430);
    ck_assert_double_eq(th_cost_astra_time(&s, &s.dims[1], TH_OP_AR, 4096), 230);
    ck_assert_double_eq(th_cost_astra_bytes(&s, &s.dims[0], TH_OP_AR, 4096), 2 * 3 * 1024);
}
END_TEST

/* A Reduce-Scatter and an All-Gather run their own algorithm on a dim when the system gives one
 * (ASTRA-sim's per-collective lists). The 4-D system with RS: ring, rhd, direct, ring; 1 MiB
 * in 4 chunks, baseline FIFO. dim 0: RS(262144) = 618 (vectors_rs_ag). dim 1 fc 4 rhd, input
 * 131072: messages 65536 (net floor(100 + 305.17..) = 405) and 32768 (floor(100 + 152.58..) =
 * 252), the second reduced at 32768 (proc 60): 10 + 405 + (10 + 60) + 252 + 10 = 747. dim 2
 * switch 4 direct, input 32768: s/p = 8192, net floor(400 + 76.29..) = 476, proc 15: 20 + 476 +
 * 15 = 511. dim 3: 602. Chunks leave dim 0 at 618 k; dim 1 paces (747): chunk 3 on dim 1
 * [2859, 3606], dim 2 [3606, 4117], dim 3 [4117, 4719]. */
START_TEST(per_collective_algorithms) {
    static const char *const json =
        "{\"model\": \"astra-sim\", \"endpoint_ns\": 10, \"local_mem_GBps\": 1600, \"dims\": ["
        "{\"topology\": \"ring\", \"npus\": 2, \"bw_GBps\": 400, \"latency_ns\": 50},"
        "{\"topology\": \"fc\", \"npus\": 4, \"bw_GBps\": 200, \"latency_ns\": 100, "
        "\"reducescatter\": \"rhd\"},"
        "{\"topology\": \"switch\", \"npus\": 4, \"bw_GBps\": 100, \"latency_ns\": 200, "
        "\"reducescatter\": \"direct\", \"allgather\": \"ring\"},"
        "{\"topology\": \"ring\", \"npus\": 2, \"bw_GBps\": 50, \"latency_ns\": 500}]}";
    th_system s, ring = load("astra_4d.json");
    th_error err = {0};
    ck_assert_msg(th_system_parse(json, strlen(json), "lists.json", &s, &err) == TH_OK, "%s",
                  err.msg);
    ck_assert_int_eq(th_astra_algorithm(&s, TH_COLL_REDUCESCATTER, 1), TH_ALG_RHD);
    ck_assert_int_eq(th_astra_algorithm(&s, TH_COLL_ALLREDUCE, 1), TH_ALG_RING);
    ck_assert_int_eq(th_astra_algorithm(&s, TH_COLL_ALLGATHER, 2), TH_ALG_RING);
    ck_assert_double_eq(
        coll_time(&s, TH_COLL_REDUCESCATTER, 1048576, 4, TH_POLICY_BASELINE, TH_INTRA_FIFO), 4719);
    /* the All-Reduce and the All-Gather run ring everywhere, as on astra_4d.json */
    ck_assert_double_eq(ar_time(&s, 1048576, 4, TH_POLICY_THEMIS, TH_INTRA_SCF),
                        ar_time(&ring, 1048576, 4, TH_POLICY_THEMIS, TH_INTRA_SCF));
    ck_assert_double_eq(
        coll_time(&s, TH_COLL_ALLGATHER, 1048576, 4, TH_POLICY_BASELINE, TH_INTRA_FIFO), 159429);
    /* their checks, and the keys belong to the preset */
    static const char *const bad[][2] = {
        {"{\"model\": \"astra-sim\", \"endpoint_ns\": 10, \"local_mem_GBps\": 50, \"dims\": ["
         "{\"topology\": \"fc\", \"npus\": 6, \"bw_GBps\": 50, \"latency_ns\": 5, "
         "\"allgather\": \"rhd\"}]}",
         "dims[0].allgather: rhd (ASTRA-sim's halvingDoubling) needs a power-of-two npus"},
        {"{\"model\": \"astra-sim\", \"endpoint_ns\": 10, \"local_mem_GBps\": 50, \"dims\": ["
         "{\"topology\": \"fc\", \"npus\": 4, \"bw_GBps\": 50, \"latency_ns\": 5, "
         "\"reducescatter\": \"tree\"}]}",
         "dims[0].reducescatter: unknown value \"tree\""},
        {"{\"dims\": [{\"topology\": \"fc\", \"npus\": 4, \"bw_GBps\": 50, \"latency_ns\": 5, "
         "\"reducescatter\": \"rhd\"}]}",
         "dims[0].reducescatter: unknown key"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ck_assert_int_eq(th_system_parse(bad[i][0], strlen(bad[i][0]), "x.json", &s, &err),
                         TH_EINPUT);
        ck_assert_msg(strstr(err.msg, bad[i][1]) && strstr(err.msg, "x.json"), "case %zu: %s", i,
                      err.msg);
    }
}
END_TEST

/* collective-optimization baseline: an All-Reduce is one AR phase of the whole chunk on every
 * dim in turn. 2-D system, 1 MiB, 1 chunk: AR on dim 0 (ring 4 @ 200/50): s/p = 262144, net
 * 1270, proc 489 (phase_costs): 10 + 6 * 1280 + 3 * 489 = 9157; AR on dim 1 (switch 4 @ 50/100,
 * B = 53.6870912) of the same 1048576: net floor(200 + 4882.8125) = 5082: 10 + 6 * 5092 +
 * 3 * 489 = 32029; 9157 + 32029 = 41186 under every policy. */
START_TEST(collective_optimization_baseline) {
    th_system s = load("astra_2d.json");
    astra_set(&s)->flat = 1;
    th_error err = {0};
    ck_assert_int_eq(th_system_validate(&s, "flat", &err), TH_OK);
    for (int p = 0; p < 2; p++)
        ck_assert_double_eq(ar_time(&s, 1048576, 1, (th_policy)p, TH_INTRA_SCF), 41186);
    th_plan *plan = th_plan_create();
    th_collective c = {TH_COLL_ALLREDUCE, 1048576, 4, 0};
    ck_assert_int_eq(th_sched_plan(plan, &s, &c, TH_POLICY_BASELINE, TH_LOAD_ALPHA_BETA, &err),
                     TH_OK);
    ck_assert_int_eq(plan->nstages, 2);
    want_stage(plan, 3, 0, 0, TH_OP_AR, 262144);
    want_stage(plan, 3, 1, 1, TH_OP_AR, 262144);
    th_plan_free(plan);
    /* from a system file, and refused elsewhere */
    static const char *const json =
        "{\"model\": \"astra-sim\", \"endpoint_ns\": 10, \"local_mem_GBps\": 50, "
        "\"collective_optimization\": \"baseline\", \"dims\": [{\"topology\": \"ring\", "
        "\"npus\": 4, \"bw_GBps\": 50, \"latency_ns\": 5}]}";
    ck_assert_msg(th_system_parse(json, strlen(json), "f.json", &s, &err) == TH_OK, "%s", err.msg);
    ck_assert_int_eq(astra_of(&s)->flat, 1);
    static const char *const bad[][2] = {
        {"{\"model\": \"astra-sim\", \"endpoint_ns\": 10, \"local_mem_GBps\": 50, "
         "\"collective_optimization\": \"flat\", \"dims\": [{\"topology\": \"ring\", \"npus\": 4, "
         "\"bw_GBps\": 50, \"latency_ns\": 5}]}",
         "collective_optimization: unknown value \"flat\""},
        {"{\"collective_optimization\": \"baseline\", \"dims\": [{\"topology\": \"ring\", "
         "\"npus\": 4, \"bw_GBps\": 50, \"latency_ns\": 5}]}",
         "collective_optimization: unknown key"},
        /* a 16-byte chunk on a halvingDoubling dim of 8: 2 bytes each, then 2 floor(2/2) = 2;
         * 8 bytes: 1 byte each, a 0-byte doubling message */
        {"{\"model\": \"astra-sim\", \"endpoint_ns\": 10, \"local_mem_GBps\": 50, "
         "\"collective_optimization\": \"baseline\", \"dims\": [{\"topology\": \"switch\", "
         "\"algorithm\": \"rhd\", \"npus\": 8, \"bw_GBps\": 50, \"latency_ns\": 5}]}",
         NULL},
    };
    for (size_t i = 0; i < 2; i++) {
        ck_assert_int_eq(th_system_parse(bad[i][0], strlen(bad[i][0]), "x.json", &s, &err),
                         TH_EINPUT);
        ck_assert_msg(strstr(err.msg, bad[i][1]) && strstr(err.msg, "x.json"), "case %zu: %s", i,
                      err.msg);
    }
    ck_assert_msg(th_system_parse(bad[2][0], strlen(bad[2][0]), "h.json", &s, &err) == TH_OK, "%s",
                  err.msg);
    plan = th_plan_create();
    c = (th_collective){TH_COLL_ALLREDUCE, 16, 1, 0};
    ck_assert_int_eq(th_sched_plan(plan, &s, &c, TH_POLICY_BASELINE, TH_LOAD_ALPHA_BETA, &err),
                     TH_OK);
    c.size = 8;
    ck_assert_int_eq(th_sched_plan(plan, &s, &c, TH_POLICY_BASELINE, TH_LOAD_ALPHA_BETA, &err),
                     TH_EINPUT);
    ck_assert_msg(strstr(err.msg, "0-byte doubling messages in its AR phase on dim 0"), "%s",
                  err.msg);
    th_plan_free(plan);
}
END_TEST

/* Measured with ASTRA-sim 2.x (reference facts), 1 MiB, 1 chunk, baseline FIFO. */
START_TEST(vectors_hd_direct) {
    /* RS dim 0 (hd) + AR dim 1 (ring) + AG dim 0 (hd) = 5343 + 6910 + 4611 */
    th_system a = load("astra_hd_2d.json");
    ck_assert_double_eq(th_cost_astra_time(&a, &a.dims[0], TH_OP_RS, 1048576), 5343);
    ck_assert_double_eq(th_cost_astra_time(&a, &a.dims[1], TH_OP_AR, 131072), 6910);
    ck_assert_double_eq(th_cost_astra_time(&a, &a.dims[0], TH_OP_AG, 131072), 4611);
    ck_assert_double_eq(ar_time(&a, 1048576, 1, TH_POLICY_BASELINE, TH_INTRA_FIFO), 16864);
    /* RS direct 1769 + RS hd 2655 + AR ring 4027 + AG hd 2475 + AG direct 1280
     * (phase_costs_hd_direct) = 12206 */
    th_system b = load("astra_hd_3d.json");
    ck_assert_double_eq(ar_time(&b, 1048576, 1, TH_POLICY_BASELINE, TH_INTRA_FIFO), 12206);
}
END_TEST

/* Sizes that are not a multiple of the chunk count: ring 7 @ 50 / 500 (B = 53.6870912). */
START_TEST(chunk_rest) {
    th_system s = load("astra_ring7.json");
    /* 1000003 B, 1 chunk: one AR phase, s/p = 142857: net = floor(500 + 2660.92..) = 3160,
     * proc = 3 floor(89.28..) = 267: 10 + 12 (3160 + 10) + 6 * 267 = 39652 (measured). */
    ck_assert_double_eq(ar_time(&s, 1000003, 1, TH_POLICY_BASELINE, TH_INTRA_FIFO), 39652);
    /* 7 chunks: c = floor(1000003 / 7) = 142857 and 7 c = 999999 < S, so 8 chunks of c; s/p =
     * 20408: net = floor(500 + 380.13..) = 880, proc = 3 floor(12.755) = 36: AR = 10 + 12 *
     * 890 + 6 * 36 = 10906, queued on the one dim: 8 * 10906 = 87248 (measured). */
    ck_assert_double_eq(ar_time(&s, 1000003, 7, TH_POLICY_BASELINE, TH_INTRA_FIFO), 87248);
    th_plan *p = th_plan_create();
    th_collective c = {TH_COLL_ALLREDUCE, 1000003, 7, 0};
    th_error err = {0};
    ck_assert_int_eq(th_sched_plan(p, &s, &c, TH_POLICY_BASELINE, TH_LOAD_ALPHA_BETA, &err), TH_OK);
    ck_assert_int_eq(p->chunks, 8);
    want_stage(p, 7, 0, 0, TH_OP_AR, 142857);
    /* Themis takes min(rest, c) each time: its 8th chunk is 1000003 - 7 c = 4 bytes, which
     * leaves floor(4 / 7) = 0 bytes per NPU: ASTRA-sim stops on a 0-byte message. */
    ck_assert_int_eq(th_sched_plan(p, &s, &c, TH_POLICY_THEMIS, TH_LOAD_ALPHA_BETA, &err),
                     TH_EINPUT);
    ck_assert_msg(strstr(err.msg, "the last chunk of 4 B leaves 0 B per NPU"), "%s", err.msg);
    /* 1000009 B in 10 chunks: c = 100000, 11 chunks, Themis's last one 9 bytes. On one dim
     * Themis runs RS then AG as two phases. RS(100000): s/p = 14285, net = floor(500 +
     * 266.08..) = 766, proc = 3 floor(8.93) = 24: 10 + 6 * 776 + 6 * 24 = 4810; AG(14285):
     * 10 + 6 * 776 = 4666; RS(9): s/p = 1, net 500, proc 0: 10 + 6 * 510 = 3070; AG(1): 3070.
     * One dim always busy: 10 (4810 + 4666) + 3070 + 3070 = 100900. The baseline runs 11 AR
     * phases of 100000: 10 + 12 * 776 + 6 * 24 = 9466, 11 * 9466 = 104126. */
    c.size = 1000009, c.chunks = 10;
    ck_assert_int_eq(th_sched_plan(p, &s, &c, TH_POLICY_THEMIS, TH_LOAD_ALPHA_BETA, &err), TH_OK);
    ck_assert_int_eq(p->chunks, 11);
    want_stage(p, 10, 0, 0, TH_OP_RS, 9);
    want_stage(p, 10, 1, 0, TH_OP_AG, 1);
    ck_assert_double_eq(ar_time(&s, 1000009, 10, TH_POLICY_THEMIS, TH_INTRA_FIFO), 100900);
    ck_assert_double_eq(ar_time(&s, 1000009, 10, TH_POLICY_BASELINE, TH_INTRA_FIFO), 104126);
    /* A chunk smaller than the system's NPUs becomes P bytes (C chunks of P): 20 B in 4
     * chunks is 4 chunks of 7; AR(7): s/p = 1, net 500, proc 0: 10 + 12 * 510 = 6130, 4 of
     * them 24520. An All-Gather keeps its chunk. */
    c.size = 20, c.chunks = 4;
    ck_assert_int_eq(th_sched_plan(p, &s, &c, TH_POLICY_BASELINE, TH_LOAD_ALPHA_BETA, &err), TH_OK);
    ck_assert_int_eq(p->chunks, 4);
    ck_assert_double_eq(p->chunk, 7);
    ck_assert_double_eq(ar_time(&s, 20, 4, TH_POLICY_BASELINE, TH_INTRA_FIFO), 24520);
    c.type = TH_COLL_ALLGATHER;
    ck_assert_int_eq(th_sched_plan(p, &s, &c, TH_POLICY_BASELINE, TH_LOAD_ALPHA_BETA, &err), TH_OK);
    ck_assert_int_eq(p->chunks, 4);
    ck_assert_double_eq(p->chunk, 5);
    th_plan_free(p);
}
END_TEST

/* halvingDoubling's AR phase sends 2 floor(x / 2) in its doubling half: with one byte per
 * NPU left that is a 0-byte message, on which ASTRA-sim stops. Switch 8, hd, 8 B, 1 chunk:
 * c = 8 = P, 1 byte per NPU after the halving half. */
START_TEST(hd_zero_message) {
    static const char *const json =
        "{\"model\": \"astra-sim\", \"endpoint_ns\": 10, \"local_mem_GBps\": 50, \"dims\": ["
        "{\"topology\": \"switch\", \"algorithm\": \"rhd\", \"npus\": 8, \"bw_GBps\": 50, "
        "\"latency_ns\": 5}]}";
    th_system s;
    th_error err = {0};
    ck_assert_msg(th_system_parse(json, strlen(json), "hd.json", &s, &err) == TH_OK, "%s", err.msg);
    th_plan *p = th_plan_create();
    th_collective c = {TH_COLL_ALLREDUCE, 8, 1, 0};
    ck_assert_int_eq(th_sched_plan(p, &s, &c, TH_POLICY_BASELINE, TH_LOAD_ALPHA_BETA, &err),
                     TH_EINPUT);
    ck_assert_msg(strstr(err.msg, "halvingDoubling's AR phase sends 2 floor(x/2)"), "%s", err.msg);
    c.size = 16; /* 2 bytes per NPU: runs */
    ck_assert_int_eq(th_sched_plan(p, &s, &c, TH_POLICY_BASELINE, TH_LOAD_ALPHA_BETA, &err), TH_OK);
    th_plan_free(p);
}
END_TEST

/* Measured with ASTRA-sim 2.x: the 4-D system with a 3-NPU dim, 1 GiB, 16 chunks. */
START_TEST(vectors_3npu) {
    th_system s = load("astra_4d3.json");
    double g = 1073741824.0;
    ck_assert_double_eq(ar_time(&s, g, 16, TH_POLICY_BASELINE, TH_INTRA_FIFO), 3229776);
    ck_assert_double_eq(ar_time(&s, g, 16, TH_POLICY_THEMIS, TH_INTRA_FIFO), 3711760);
    ck_assert_double_eq(ar_time(&s, g, 16, TH_POLICY_THEMIS, TH_INTRA_SCF), 3192389);
    /* The rule behind them: each AG phase takes what the phase before it left, not the size
     * its dim's RS phase took. Baseline chunk of 67108864: RS dim 0 -> 33554432, RS dim 1
     * (p = 3) -> floor(33554432 / 3) = 11184810, RS dim 2 -> 5592405, AR dim 3 keeps
     * 5592405; AG dim 2 takes 5592405 (-> 11184810), AG dim 1 takes 11184810 (-> 33554430),
     * AG dim 0 takes 33554430, 2 bytes less than its RS took. */
    th_plan *p = th_plan_create();
    th_collective c = {TH_COLL_ALLREDUCE, g, 16, 0};
    th_error err = {0};
    ck_assert_int_eq(th_sched_plan(p, &s, &c, TH_POLICY_BASELINE, TH_LOAD_ALPHA_BETA, &err), TH_OK);
    want_stage(p, 0, 1, 1, TH_OP_RS, 33554432);
    want_stage(p, 0, 3, 3, TH_OP_AR, 5592405);
    want_stage(p, 0, 4, 2, TH_OP_AG, 5592405);
    want_stage(p, 0, 5, 1, TH_OP_AG, 11184810);
    want_stage(p, 0, 6, 0, TH_OP_AG, 33554430);
    th_plan_free(p);
}
END_TEST

/* Reduce-Scatter and All-Gather on the 4-D system, 1 MiB in 4 chunks (measured). */
START_TEST(vectors_rs_ag) {
    th_system s = load("astra_4d.json");
    /* RS, baseline: dims in index order, chunk 262144. dim 0 ring 2 @ 400 (B = 429.4967296):
     * s/p = 131072, net = floor(50 + 305.17..) = 355, proc = 3 floor(81.92) = 243: 10 + 365 +
     * 243 = 618. dim 1 fc 4 @ 200: s/p = 32768, net = floor(100 + 152.58..) = 252, proc = 60:
     * 10 + 3 * 262 + 3 * 20 = 976. dim 2 switch 4 @ 100: s/p = 8192, net = floor(400 +
     * 76.29..) = 476, proc = 15: 10 + 3 * 486 + 3 * 5 = 1513. dim 3 ring 2 @ 50: s/p = 4096,
     * net = floor(500 + 76.29..) = 576, proc = 6: 10 + 586 + 6 = 602. Dim 2 paces the four
     * chunks: chunk 3's RS on dim 2 starts at 1594 + 3 * 1513 = 6133, ends 7646, its dim-3
     * phase 7646 + 602 = 8248. */
    ck_assert_double_eq(
        coll_time(&s, TH_COLL_REDUCESCATTER, 1048576, 4, TH_POLICY_BASELINE, TH_INTRA_FIFO), 8248);
    ck_assert_double_eq(
        coll_time(&s, TH_COLL_REDUCESCATTER, 1048576, 4, TH_POLICY_THEMIS, TH_INTRA_SCF), 9070);
    /* AG: the size is what each NPU holds before (262144 per chunk), dims in reverse order.
     * dim 3: 10 + floor(500 + 4882.8125) + 10 = 5402; dim 2 (input 524288): 10 + 3 *
     * (floor(400 + 4882.8125) + 10) = 15886; dim 1 (2097152): 10 + 3 * (floor(100 +
     * 9765.625) + 10) = 29635; dim 0 (8388608): 10 + floor(50 + 19531.25) + 10 = 19601.
     * Dim 1 paces: chunk 0 reaches it at 5402 + 15886 = 21288, chunk 3 leaves it at 21288 + 4
     * * 29635 = 139828, then dim 0: 159429. */
    ck_assert_double_eq(
        coll_time(&s, TH_COLL_ALLGATHER, 1048576, 4, TH_POLICY_BASELINE, TH_INTRA_FIFO), 159429);
    ck_assert_double_eq(
        coll_time(&s, TH_COLL_ALLGATHER, 1048576, 4, TH_POLICY_THEMIS, TH_INTRA_SCF), 410600);
}
END_TEST

/* ASTRA-sim's Themis on an All-Gather: its fallback order is the dims' index order (smallest
 * piece on dim 0, the largest on the last dim), and its loads land on the records of the
 * reversed list. 4-D system (p 2, 4, 4, 2; 400, 200, 100, 50 GB/s), chunk 262144 = 0.25 MiB,
 * threshold floor(262144 / 16) = 16384.
 * Chunk 0: loads 0, gap 0: fallback, order (0, 1, 2, 3); the list becomes (3, 2, 1, 0) and
 * the k-th dim's AG load goes to list[k]: dim 3 += 0.25 * 1 / 1 = 0.25, dim 2 += 0.5 * 3 /
 * 0.5 = 3, dim 1 += 2 * 3 / 0.25 = 24, dim 0 += 8 * 1 / 0.125 = 64.
 * Chunk 1: ascending (3, 2, 1, 0), reversed (0, 1, 2, 3); gap from the last (dim 3):
 * (64 - 0.25) * (50 / 400) / 1 * 2^20 = 8355840, / 4 / 4 / 2 = 261120 >= 16384: order
 * (0, 1, 2, 3); loads dim 0 64.25, dim 1 27, dim 2 27, dim 3 64.25.
 * Chunk 2: ascending (1, 2, 0, 3) (ties keep their places), reversed (3, 0, 2, 1); gap from
 * dim 1: 37.25 * 0.5 / 3 * 2^20 = 6509909.3 -> 6509909, / 4 / 2 / 2 = 406869: order
 * (3, 0, 2, 1). */
START_TEST(themis_allgather_orders) {
    th_system s = load("astra_4d.json");
    th_plan *p = th_plan_create();
    th_collective c = {TH_COLL_ALLGATHER, 1048576, 4, 0};
    th_error err = {0};
    ck_assert_int_eq(th_sched_plan(p, &s, &c, TH_POLICY_THEMIS, TH_LOAD_ALPHA_BETA, &err), TH_OK);
    static const int want[3][4] = {{0, 1, 2, 3}, {0, 1, 2, 3}, {3, 0, 2, 1}};
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 4; j++)
            ck_assert_msg(th_plan_order(p, i)[j] == want[i][j], "chunk %d [%d] = %d", i, j,
                          th_plan_order(p, i)[j]);
    /* chunk 2's phases grow from the chunk: 262144 on dim 3, then 524288 on dim 0 */
    want_stage(p, 2, 0, 3, TH_OP_AG, 262144);
    want_stage(p, 2, 1, 0, TH_OP_AG, 524288);
    want_stage(p, 2, 3, 1, TH_OP_AG, 4194304);
    th_plan_free(p);
}
END_TEST

/* `themis run -f json` names each dim's algorithm for the collective run, and every type's
 * when they differ: dim 0 runs rhd (halvingDoubling) for All-Reduce and Reduce-Scatter and
 * ring for All-Gather; dim 1 direct for all three (the preset runs no All-to-All). */
START_TEST(report_algorithms) {
    char *dir = test_tmp_dir();
    TEST_DIR_PATH(sys, dir, "s.json");
    const char *text = "{\"model\": \"astra-sim\", \"endpoint_ns\": 10, \"local_mem_GBps\": 50, "
                       "\"dims\": [{\"topology\": \"switch\", \"algorithm\": \"rhd\", "
                       "\"allgather\": \"ring\", \"npus\": 4, \"bw_GBps\": 50, \"latency_ns\": 0}, "
                       "{\"topology\": \"switch\", \"algorithm\": \"direct\", \"npus\": 4, "
                       "\"bw_GBps\": 50, \"latency_ns\": 0}]}";
    test_spit(sys, text, strlen(text));
    static const char *const types[] = {"allreduce", "reducescatter", "allgather"};
    static const char *const dim0[] = {"rhd", "rhd", "ring"};
    for (int t = 0; t < 3; t++) {
        test_cli_out r;
        test_cli(&r, "run -s %s -c %s -b 1MiB -n 1 -p baseline -q fifo -f json", sys, types[t]);
        test_expect_ok(&r, "run");
        cJSON *root = cJSON_Parse(r.out);
        test_cli_free(&r);
        ck_assert_ptr_nonnull(root);
        cJSON *dims = cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(root, "system"), "dims");
        cJSON *d0 = cJSON_GetArrayItem(dims, 0), *d1 = cJSON_GetArrayItem(dims, 1);
        ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(d0, "algorithm")->valuestring, dim0[t]);
        cJSON *all = cJSON_GetObjectItemCaseSensitive(d0, "algorithms");
        ck_assert_int_eq(cJSON_GetArraySize(all), 3);
        for (int u = 0; u < 3; u++)
            ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(all, types[u])->valuestring, dim0[u]);
        ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(d1, "algorithm")->valuestring, "direct");
        ck_assert_ptr_null(cJSON_GetObjectItemCaseSensitive(d1, "algorithms"));
        cJSON_Delete(root);
    }
    test_rm_dir(dir);
}
END_TEST

Suite *astra_suite(void) {
    Suite *s = suite_create("astra");
    TCase *tc = tcase_create("preset");
    tcase_add_test(tc, phase_costs);
    tcase_add_test(tc, astra_themis_huge_gap);
    tcase_add_test(tc, rt_template);
    tcase_add_test(tc, single_chunk_2d);
    tcase_add_test(tc, vectors_2d);
    tcase_add_test(tc, vectors_3d);
    tcase_add_test(tc, astra_themis_orders);
    tcase_add_test(tc, equal_bandwidth_finishes);
    tcase_add_test(tc, same_instant_start_order);
    tcase_add_test(tc, first_npu_order);
    tcase_add_test(tc, preset_errors);
    tcase_add_test(tc, phase_costs_hd_direct);
    tcase_add_test(tc, hd_on_a_ring);
    tcase_add_test(tc, direct_on_a_ring);
    tcase_add_test(tc, per_collective_algorithms);
    tcase_add_test(tc, collective_optimization_baseline);
    tcase_add_test(tc, vectors_hd_direct);
    tcase_add_test(tc, chunk_rest);
    tcase_add_test(tc, hd_zero_message);
    tcase_add_test(tc, vectors_3npu);
    tcase_add_test(tc, vectors_rs_ag);
    tcase_add_test(tc, themis_allgather_orders);
    suite_add_tcase(s, tc);
    tc = tcase_create("import");
    tcase_add_test(tc, import_runs);
    tcase_add_test(tc, import_errors);
    tcase_add_test(tc, import_implementations);
    tcase_add_test(tc, report_algorithms);
    tcase_add_test(tc, import_tagged_numbers);
    suite_add_tcase(s, tc);
    return s;
}

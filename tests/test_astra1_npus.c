/* Check suite for the astra-sim-1.0 preset's replay NPU by NPU (astra1_npus.c, src/npus/,
 * docs/VALIDATION.md "Every NPU in its order"): the reference checks of ASTRA-sim 1.0's workload
 * layer on one Switch of 4 (50 GB/s, no latency, halvingDoubling, endpoint 0), each derived by
 * hand from its code: a halvingDoubling All-Reduce of 1 MiB sends 524288 and 262144 bytes, then
 * 262144 and 524288 (floor(bytes / 53.687091): 9765 + 4882 + 4882 + 9765 = 29294 ns; reductions
 * of 262144 bytes take 3 floor(262144 / 500000) = 0), every state change of the workload one
 * tick. */
#include <stdlib.h>
#include <string.h>

#include "astra1_preset.h"
#include "check_themis.h"
#include "themis/astra1_workload.h"

static th_system sw4(void) {
    const char *json =
        "{\"model\": \"astra-sim-1.0\", \"endpoint_ns\": 0, \"dims\": [{\"topology\": "
        "\"switch\", \"npus\": 4, \"bw_GBps\": 50, \"latency_ns\": 0, \"links\": 1, "
        "\"allreduce\": \"halvingDoubling\"}]}";
    th_system s;
    th_error err = {0};
    ck_assert_msg(th_system_parse(json, strlen(json), "a1.json", &s, &err) == TH_OK, "%s", err.msg);
    return s;
}

static double npus_total(const char *text, int passes, th_a1_replay_result *keep) {
    th_system s = sw4();
    th_a1_workload *wl = NULL;
    th_error err = {0};
    ck_assert_msg(th_a1_parse(text, strlen(text), "w.txt", &wl, &err) == TH_OK, "%s", err.msg);
    th_a1_replay_opts o = {0};
    o.policy = TH_POLICY_BASELINE, o.intra = TH_INTRA_FIFO, o.model = TH_LOAD_ALPHA_BETA;
    o.chunks = 1, o.passes = passes, o.lifo = 1, o.scale = (th_a1_scale){1, 1, 0};
    th_a1_replay_result r;
    int handled = -1;
    ck_assert_msg(astra1_npus_replay(&s, wl, &o, NULL, NULL, &r, &handled, &err) == TH_OK, "%s",
                  err.msg);
    ck_assert_int_eq(handled, 1);
    th_a1_free(wl);
    double t = r.total;
    if (keep)
        *keep = r;
    else
        th_a1_replay_result_free(&r);
    return t;
}

#define L1 "l1 -1 1000 NONE 0 1000 NONE 0 1000 NONE 0 0\n"

/* DATA: F0 0-1000, +1; F1 1001-2001, +1; WG1 2002-3002, +1; IG1 3003-4003, +1; WG0 4004-5004
 * (the pass ends, layer 0's weight-grad All-Reduce issued), +1; the workload waits for the
 * All-Reduce: 5004 + 29294 = 34298. Two passes: the second forward of layer 0 waits for it to
 * 34298, then 34298 + 5004 + 29294 = 68596. An update delay of 500 after the All-Reduce: 34798,
 * two passes 69596. */
START_TEST(npus1_data) {
    th_a1_replay_result r;
    ck_assert_double_eq(
        npus_total("DATA\n2\nl0 -1 1000 NONE 0 1000 NONE 0 1000 NONE 0 0\n" L1, 1, NULL), 5005);
    const char *ar = "DATA\n2\nl0 -1 1000 NONE 0 1000 NONE 0 1000 ALLREDUCE 1048576 0\n" L1;
    ck_assert_double_eq(npus_total(ar, 1, &r), 34298);
    ck_assert_double_eq(r.compute, 5000);
    ck_assert_double_eq(r.pass_end[0], 5004);
    th_a1_replay_result_free(&r);
    ck_assert_double_eq(npus_total(ar, 2, &r), 68596);
    ck_assert_double_eq(r.pass_end[1], 34298 + 5004);
    th_a1_replay_result_free(&r);
    const char *upd = "DATA\n2\nl0 -1 1000 NONE 0 1000 NONE 0 1000 ALLREDUCE 1048576 500\n" L1;
    ck_assert_double_eq(npus_total(upd, 1, NULL), 34798);
    ck_assert_double_eq(npus_total(upd, 2, NULL), 69596);
}
END_TEST

/* MODEL, forward and input-gradient All-Reduces on both layers (c = 29294): F0 0-1000, its AR
 * (blocking) to 30294, +1; F1 30295-31295, AR to 60589, +1; IG1 60590-61590, its AR (not
 * blocking) to 90884, +1; WG1 61591-62591, waits for IG1's AR to 90884, +1; IG0 90885-91885
 * (layer 0 issues none), +1; WG0 91886-92886, +1: 92887 = 5 x 1000 + 3 c + 5. */
START_TEST(npus1_model) {
    ck_assert_double_eq(
        npus_total("MODEL\n2\n"
                   "l0 -1 1000 ALLREDUCE 1048576 1000 ALLREDUCE 1048576 1000 NONE 0 0\n"
                   "l1 -1 1000 ALLREDUCE 1048576 1000 ALLREDUCE 1048576 1000 NONE 0 0\n",
                   1, NULL),
        92887);
}
END_TEST

/* MICRO: the All-Reduce issued at 0 ends at 29294 and its update of 1 cycle ends at 29295,
 * where NPU 0 reports. An All-Reduce of 2 bytes sends 1, 0, 0 and 1 bytes, which ASTRA-sim 1.0
 * sends like any other message: each takes floor(b / 53.687091) = 0 ns, so it ends at 0 and
 * NPU 0 reports at 1. */
START_TEST(npus1_micro) {
    ck_assert_double_eq(
        npus_total("MICRO\n1\nl -1 5 NONE 0 5 NONE 0 5 ALLREDUCE 1048576 1\n", 1, NULL), 29295);
    ck_assert_double_eq(npus_total("MICRO\n1\nl -1 5 NONE 0 5 NONE 0 5 ALLREDUCE 2 1\n", 1, NULL),
                        1);
}
END_TEST

Suite *astra1_npus_suite(void) {
    Suite *s = suite_create("astra1_npus");
    TCase *tc = tcase_create("replay");
    tcase_add_test(tc, npus1_data);
    tcase_add_test(tc, npus1_model);
    tcase_add_test(tc, npus1_micro);
    suite_add_tcase(s, tc);
    return s;
}

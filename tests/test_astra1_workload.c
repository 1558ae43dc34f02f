/* Check suite for ASTRA-sim 1.0 text workloads: the parser and every error it names, the
 * conversion to our format, and the state-machine replay, hand-traced from ASTRA-sim 1.0's
 * Workload.cc and Layer.cc (one tick per state change, compute waits, blocking rules, update
 * delays, passes). */
#include <stdlib.h>
#include <string.h>

#include "check_themis.h"
#include "themis/astra1_workload.h"
#include "workload_format.h"

static th_a1_workload *parse_ok(const char *text) {
    th_a1_workload *wl = NULL;
    th_error err = {0};
    ck_assert_msg(th_a1_parse(text, strlen(text), "w.txt", &wl, &err) == TH_OK, "%s", err.msg);
    return wl;
}

/* Parsing fails with exit-2 input error whose message holds every needle. */
static void parse_bad(const char *text, const char *n1, const char *n2) {
    th_a1_workload *wl = (th_a1_workload *)1;
    th_error err = {0};
    ck_assert_int_eq(th_a1_parse(text, strlen(text), "w.txt", &wl, &err), TH_EINPUT);
    ck_assert_ptr_null(wl);
    ck_assert_msg(strstr(err.msg, n1), "'%s' lacks '%s'", err.msg, n1);
    if (n2) ck_assert_msg(strstr(err.msg, n2), "'%s' lacks '%s'", err.msg, n2);
}

/* One switch dim per entry of npus, 1 GB/s (1 byte per ns), no latency, rhd: a stage of m
 * bytes on p NPUs takes m (p-1)/p ns (SPEC §3). */
static th_system switches(int n, const int64_t *npus, const double *bw) {
    th_system s = {0};
    for (int d = 0; d < n; d++)
        test_add_dim(&s, TH_TOPO_SWITCH, npus[d], bw ? bw[d] : 1, 0);
    test_finish(&s);
    return s;
}

static th_a1_replay_opts ropts(int passes, int lifo) {
    th_a1_replay_opts o = {0};
    o.policy = TH_POLICY_BASELINE;
    o.intra = TH_INTRA_FIFO;
    o.model = TH_LOAD_ALPHA_BETA;
    o.chunks = 1;
    o.passes = passes;
    o.lifo = lifo;
    o.scale = (th_a1_scale){1, 1, 0};
    return o;
}

static th_a1_replay_result replay(const th_system *s, const char *text, th_a1_replay_opts o) {
    th_a1_workload *wl = parse_ok(text);
    th_a1_replay_result r;
    th_error err = {0};
    ck_assert_msg(th_a1_replay(s, wl, "w.txt", &o, &r, &err) == TH_OK, "%s", err.msg);
    th_a1_free(wl);
    return r;
}

static void replay_bad(const th_system *s, const char *text, th_a1_replay_opts o, const char *n1,
                       const char *n2) {
    th_a1_workload *wl = parse_ok(text);
    th_a1_replay_result r;
    th_error err = {0};
    ck_assert_int_eq(th_a1_replay(s, wl, "w.txt", &o, &r, &err), TH_EINPUT);
    ck_assert_msg(strstr(err.msg, n1), "'%s' lacks '%s'", err.msg, n1);
    if (n2) ck_assert_msg(strstr(err.msg, n2), "'%s' lacks '%s'", err.msg, n2);
    th_a1_free(wl);
}

/* ---- the parser ---- */

START_TEST(parse_fields) {
    /* CRLF, tabs, trailing tabs and blank lines, as ASTRA-sim's own files have */
    th_a1_workload *wl = parse_ok("\r\nHYBRID_DLRM\t1\t\t\r\n2\t\t\r\n\r\n"
                                  "emb\t-1\t300\tALLTOALL\t98304\t301\tALLTOALL\t98305\t302\tNONE\t"
                                  "0\t98\r\n"
                                  "mlp 7 1 NONE 0 2 REDUCESCATTER 4 3 ALLGATHER 5 0\n");
    ck_assert_int_eq(wl->par, TH_A1_HYBRID_DLRM);
    ck_assert_int_eq(wl->last_bottom, 1);
    ck_assert_int_eq(wl->line, 2);
    ck_assert_int_eq(wl->nlayers, 2);
    ck_assert_str_eq(wl->name, "w");
    const th_a1_layer *a = &wl->layers[0], *b = &wl->layers[1];
    ck_assert_str_eq(a->name, "emb");
    ck_assert_int_eq(a->line, 5);
    ck_assert_rel(a->ph[TH_PHASE_FWD].cycles, 300);
    ck_assert_int_eq(a->ph[TH_PHASE_FWD].type, TH_COLL_ALLTOALL);
    ck_assert_rel(a->ph[TH_PHASE_FWD].size, 98304);
    ck_assert_rel(a->ph[TH_PHASE_IG].cycles, 301);
    ck_assert_rel(a->ph[TH_PHASE_IG].size, 98305);
    ck_assert_rel(a->ph[TH_PHASE_WG].cycles, 302);
    ck_assert_int_eq(a->ph[TH_PHASE_WG].type, TH_A1_NONE);
    ck_assert_rel(a->update, 98);
    ck_assert_int_eq(b->line, 6);
    ck_assert_int_eq(b->ph[TH_PHASE_IG].type, TH_COLL_REDUCESCATTER);
    ck_assert_int_eq(b->ph[TH_PHASE_WG].type, TH_COLL_ALLGATHER);
    ck_assert_rel(b->ph[TH_PHASE_WG].size, 5);
    th_a1_free(wl);
    wl = parse_ok("HYBRID_TRANSFORMER model_parallel_NPU_group: 4\n1\n"
                  "l -1 1 ALLREDUCE 2 3 NONE 0 4 ALLREDUCE 5 6\n");
    ck_assert_int_eq(wl->par, TH_A1_HYBRID_TRANSFORMER);
    ck_assert_int_eq(wl->group, 4);
    th_a1_free(wl);
    const char *const pars[] = {"DATA", "MODEL", "HYBRID_DATA_MODEL", "HYBRID_MODEL_DATA", "MICRO"};
    const int want[] = {TH_A1_DATA, TH_A1_MODEL, TH_A1_HYBRID_DATA_MODEL, TH_A1_HYBRID_MODEL_DATA,
                        TH_A1_MICRO};
    for (int i = 0; i < 5; i++) {
        char text[200];
        snprintf(text, sizeof text, "%s\n1\nl -1 1 NONE 0 1 NONE 0 1 NONE 0 0", pars[i]);
        wl = parse_ok(text);
        ck_assert_int_eq(wl->par, want[i]);
        th_a1_free(wl);
    }
}
END_TEST

START_TEST(detect) {
    ck_assert(th_a1_is_text("DATA\n1\n", 7));
    ck_assert(!th_a1_is_text(" \n\t{\"name\": 1}", 14));
    ck_assert(!th_a1_is_text("\xEF\xBB\xBF{}", 5));
    ck_assert(!th_a1_is_text("  \n", 3)); /* blank: neither; the JSON loader says "empty" */
}
END_TEST

#define L1       "l -1 1 NONE 0 1 NONE 0 1 NONE 0 0\n"
#define L1C(par) "l -1 1 NONE 0 1 NONE 0 1 NONE 0 0 " par "\n"

START_TEST(parse_errors) {
    parse_bad("", "w.txt: empty", NULL);
    parse_bad("\n\n", "empty", NULL);
    parse_bad("DATTA\n1\n" L1, "w.txt:1: parallelism: expected DATA", "'DATTA'");
    parse_bad("HYBRID_CUSTOMIZED\n1\n" L1, "w.txt:3: expected 13 fields",
              "and the layer's parallelism), got 12: a field is missing");
    parse_bad("HYBRID_CUSTOMIZED\n1\n" L1C("DATTA"),
              "w.txt:3: field 13 (layer parallelism): "
              "expected DATA, MODEL",
              "'DATTA'");
    parse_bad("HYBRID_CUSTOMIZED\n1\n" L1C("HYBRID_TRANSFORMER"),
              "field 13 (layer parallelism): expected a parallelism without a model group", NULL);
    parse_bad("DATA\n1\n" L1C("DATA"), "w.txt:3: expected 12 fields", "got 13: an extra field");
    parse_bad("DATA 3\n1\n" L1, "w.txt:1: DATA takes no field after it", "'3'");
    parse_bad("HYBRID_TRANSFORMER\n1\n" L1,
              "w.txt:1: HYBRID_TRANSFORMER: expected "
              "'model_parallel_NPU_group: G'",
              NULL);
    parse_bad("HYBRID_TRANSFORMER group: 4\n1\n" L1,
              "HYBRID_TRANSFORMER: expected 'model_parallel_NPU_group:'", "'group:'");
    parse_bad("HYBRID_TRANSFORMER model_parallel_NPU_group: four\n1\n" L1,
              "model_parallel_NPU_group: expected a whole number of NPUs >= 1", "'four'");
    parse_bad("HYBRID_TRANSFORMER model_parallel_NPU_group: 0\n1\n" L1, ">= 1", "'0'");
    parse_bad("HYBRID_DLRM\n1\n" L1, "HYBRID_DLRM: expected the last bottom-MLP layer", NULL);
    parse_bad("HYBRID_DLRM_ENHANCED x\n1\n" L1, "HYBRID_DLRM_ENHANCED: the last bottom-MLP layer",
              "'x'");
    parse_bad("DISTRIBUTED_INFERENCE 2\n1\n" L1, "DISTRIBUTED_INFERENCE takes no field", NULL);
    parse_bad("HYBRID_DLRM -1\n1\n" L1, "the last bottom-MLP layer: expected a layer index",
              "'-1'");
    parse_bad("HYBRID_DLRM 1\n1\n" L1,
              "w.txt:1: HYBRID_DLRM: the last bottom-MLP layer 1 is not "
              "a layer (the workload has 1: 0 .. 0)",
              NULL);
    parse_bad("DATA\n", "w.txt:1: expected the layer count", NULL);
    parse_bad("DATA\ntwo\n" L1, "w.txt:2: layer count: expected one whole number", "'two'");
    parse_bad("DATA\n0\n" L1, "w.txt:2: layer count", "'0'");
    parse_bad("DATA\n1 2\n" L1, "w.txt:2: layer count", "and more");
    /* a wrong layer count, both ways */
    parse_bad("DATA\n2\n" L1, "w.txt: the layer count (line 2) says 2 layers, the file has 1",
              NULL);
    parse_bad("DATA\n1\n" L1 L1,
              "w.txt:4: a line after the 1 layers the layer count (line 2) "
              "says",
              NULL);
    /* missing and extra fields */
    parse_bad("DATA\n1\nl -1 1 NONE 0 1 NONE 0 1 NONE 0\n", "w.txt:3: expected 12 fields",
              "got 11: a field is missing");
    parse_bad("DATA\n1\nl -1 1 NONE 0 1 NONE 0 1 NONE 0 0 7\n", "got 13: an extra field", NULL);
    /* every kind of bad value, each naming its field */
    parse_bad("DATA\n1\nl x 1 NONE 0 1 NONE 0 1 NONE 0 0\n",
              "w.txt:3: field 2 (reserved): "
              "expected an integer, got 'x'",
              NULL);
    parse_bad("DATA\n1\nl -1 -5 NONE 0 1 NONE 0 1 NONE 0 0\n",
              "w.txt:3: field 3 (forward compute): expected a whole number of cycles >= 0", "'-5'");
    parse_bad("DATA\n1\nl -1 1 NONE 0 1.5 NONE 0 1 NONE 0 0\n", "field 6 (input-grad compute)",
              "'1.5'");
    parse_bad("DATA\n1\nl -1 1 NONE 0 1 NONE 0 abc NONE 0 0\n", "field 9 (weight-grad compute)",
              "'abc'");
    parse_bad("DATA\n1\nl -1 1 NONE 0 1 NONE 0 1 ALLRDUCE 0 0\n",
              "field 10 (weight-grad comm type): expected ALLREDUCE, REDUCESCATTER, ALLGATHER, "
              "ALLTOALL or NONE",
              "'ALLRDUCE'");
    parse_bad("DATA\n1\nl -1 1 ALLREDUCEALLTOALL 8 1 NONE 0 1 NONE 0 0\n",
              "field 4 (forward comm type): ALLREDUCEALLTOALL is read by ASTRA-sim 1.0 but aborts",
              NULL);
    parse_bad("DATA\n1\nl -1 1 NONE -8 1 NONE 0 1 NONE 0 0\n",
              "field 5 (forward comm size): "
              "expected a whole number of bytes",
              "'-8'");
    parse_bad("DATA\n1\nl -1 1 NONE 0 1 NONE 1e6 1 NONE 0 0\n", "field 8 (input-grad comm size)",
              "'1e6'");
    parse_bad("DATA\n1\nl -1 1 NONE 0 1 NONE 0 1 ALLREDUCE 99999999999999999999 0\n",
              "field 11 (weight-grad comm size)", "at most 2^53");
    parse_bad("DATA\n1\nl -1 1 NONE 0 1 NONE 0 1 NONE 0 -1\n", "field 12 (update delay)", "'-1'");
    parse_bad("DATA\n1\n"
              "a_name_that_is_longer_than_sixty_three_characters_which_is_too_long -1 1 NONE 0 1 "
              "NONE 0 1 NONE 0 0\n",
              "field 1 (name): at most 63 characters", NULL);
    parse_bad("DATA\n1\nl\x01 -1 1 NONE 0 1 NONE 0 1 NONE 0 0 7\n", "extra field", NULL);
    parse_bad("DATA\n1\nl -1 1 N\x01ONE 0 1 NONE 0 1 NONE 0 0\n", "'N\\x01ONE'", NULL);
    const char nul[] = "DATA\n1\nl -1 1 NONE 0\0 1 NONE 0 1 NONE 0 0\n";
    th_a1_workload *wl;
    th_error err = {0};
    ck_assert_int_eq(th_a1_parse(nul, sizeof nul - 1, "w.txt", &wl, &err), TH_EINPUT);
    ck_assert_ptr_nonnull(strstr(err.msg, "a NUL byte"));
}
END_TEST

/* ---- dims, the Transformer split, scales ---- */

START_TEST(dims_and_split) {
    int64_t n3[] = {2, 4, 8};
    th_system s = switches(3, n3, NULL);
    th_a1_workload *wl = parse_ok("HYBRID_DATA_MODEL\n1\n" L1);
    ck_assert_uint_eq(th_a1_dims(wl, &s, 0, TH_PHASE_FWD), 1u);
    ck_assert_uint_eq(th_a1_dims(wl, &s, 0, TH_PHASE_WG), 6u);
    wl->par = TH_A1_HYBRID_MODEL_DATA;
    ck_assert_uint_eq(th_a1_dims(wl, &s, 0, TH_PHASE_IG), 6u);
    ck_assert_uint_eq(th_a1_dims(wl, &s, 0, TH_PHASE_WG), 1u);
    wl->par = TH_A1_MODEL;
    ck_assert_uint_eq(th_a1_dims(wl, &s, 0, TH_PHASE_FWD), 7u);
    ck_assert_uint_eq(th_a1_dims(wl, &s, 0, TH_PHASE_WG), 0u);
    wl->par = TH_A1_DATA;
    ck_assert_uint_eq(th_a1_dims(wl, &s, 0, TH_PHASE_FWD), 0u);
    ck_assert_uint_eq(th_a1_dims(wl, &s, 0, TH_PHASE_WG), 7u);
    wl->par = TH_A1_HYBRID_DLRM;
    ck_assert_uint_eq(th_a1_dims(wl, &s, 0, TH_PHASE_FWD), 7u); /* layer 0: every dim */
    th_a1_free(wl);

    /* G = 8 = 2 * 4: the first two dims, no split */
    wl = parse_ok("HYBRID_TRANSFORMER model_parallel_NPU_group: 8\n1\n" L1);
    th_system out;
    int at, b;
    th_error err = {0};
    ck_assert_int_eq(th_a1_split(wl, &s, "w.txt", &out, &at, &b, &err), TH_OK);
    ck_assert_int_eq(at, -1);
    ck_assert_int_eq(b, 1);
    ck_assert_uint_eq(th_a1_dims(wl, &out, 0, TH_PHASE_FWD), 3u);
    ck_assert_uint_eq(th_a1_dims(wl, &out, 0, TH_PHASE_WG), 4u);
    /* G = 16 = 2 * 4 * 2: dim 2 (8) becomes 2 x 4 */
    wl->group = 16;
    ck_assert_int_eq(th_a1_split(wl, &s, "w.txt", &out, &at, &b, &err), TH_OK);
    ck_assert_int_eq(at, 2);
    ck_assert_int_eq(b, 2);
    ck_assert_int_eq(out.ndims, 4);
    ck_assert_int_eq(out.dims[2].npus, 2);
    ck_assert_int_eq(out.dims[3].npus, 4);
    ck_assert_rel(out.npus, 64);
    ck_assert_uint_eq(th_a1_dims(wl, &out, 0, TH_PHASE_IG), 7u);
    ck_assert_uint_eq(th_a1_dims(wl, &out, 0, TH_PHASE_WG), 8u);
    /* G = 1: no model-parallel dim */
    wl->group = 1;
    ck_assert_int_eq(th_a1_split(wl, &s, "w.txt", &out, &at, &b, &err), TH_OK);
    ck_assert_int_eq(b, -1);
    ck_assert_uint_eq(th_a1_dims(wl, &out, 0, TH_PHASE_FWD), 0u);
    /* G = 6 is no block of (2, 4, 8): 2 NPUs below dims[1], 6 / 2 = 3 does not divide 4 */
    wl->group = 6;
    ck_assert_int_eq(th_a1_split(wl, &s, "w.txt", &out, &at, &b, &err), TH_EINPUT);
    ck_assert_ptr_nonnull(strstr(err.msg, "w.txt:1: model_parallel_NPU_group 6 does not divide"));
    wl->group = 128;
    ck_assert_int_eq(th_a1_split(wl, &s, "w.txt", &out, &at, &b, &err), TH_EINPUT);
    ck_assert_ptr_nonnull(strstr(err.msg, "128 is more NPUs than system"));
    /* a ring cut in two is refused */
    th_system r = {0};
    test_add_dim(&r, TH_TOPO_RING, 8, 1, 0);
    test_finish(&r);
    wl->group = 2;
    ck_assert_int_eq(th_a1_split(wl, &r, "w.txt", &out, &at, &b, &err), TH_EINPUT);
    ck_assert_ptr_nonnull(strstr(err.msg, "a ring, into rings of 2 and 4 NPUs"));
    th_a1_free(wl);

    /* scales: the branch truncates a double product, the tag a float product:
     * 16777217 = 2^24 + 1 is no float (it rounds to 2^24); 1000 * 1.5 = 1500 both ways;
     * 3 * 0.7 = 2.0999999999999996 -> 2 */
    ck_assert_rel(th_a1_scaled(16777217, 1, 0), 16777217);
    ck_assert_rel(th_a1_scaled(16777217, 1, 1), 16777216);
    ck_assert_rel(th_a1_scaled(1000, 1.5, 1), 1500);
    ck_assert_rel(th_a1_scaled(3, 0.7, 0), 2);
}
END_TEST

/* ---- the replay: no communication (any model) ---- */

#define DATA2                                                                                      \
    "DATA\n2\n"                                                                                    \
    "l0 -1 1000 NONE 0 1000 NONE 0 1000 NONE 0 0\n"                                                \
    "l1 -1 1000 NONE 0 1000 NONE 0 1000 NONE 0 0\n"

START_TEST(no_comm) {
    int64_t n1[] = {4};
    th_system s = switches(1, n1, NULL);
    /* DATA: F0 0-1000, +1; F1 1001-2001, +1; WG1 2002-3002, +1; IG1 3003-4003, +1;
     * WG0 4004-5004 (pass ends), +1: 5005 the end. Layer 0 has no IG compute. */
    th_a1_replay_result r = replay(&s, DATA2, ropts(1, 1));
    ck_assert_rel(r.total, 5005);
    ck_assert_rel(r.compute, 5000);
    ck_assert_rel(r.exposed, 5);
    ck_assert_rel(r.pass_end[0], 5004);
    ck_assert_int_eq(r.collectives, 0);
    th_a1_replay_result_free(&r);
    /* two passes: the second starts at 5005 and ends at 5005 + 5004, +1 */
    r = replay(&s, DATA2, ropts(2, 1));
    ck_assert_rel(r.pass_end[1], 10009);
    ck_assert_rel(r.total, 10010);
    ck_assert_rel(r.compute, 10000);
    th_a1_replay_result_free(&r);
    /* HYBRID_DLRM has DATA's shape */
    r = replay(&s,
               "HYBRID_DLRM 0\n2\n"
               "l0 -1 1000 NONE 0 1000 NONE 0 1000 NONE 0 0\n"
               "l1 -1 1000 NONE 0 1000 NONE 0 1000 NONE 0 0\n",
               ropts(1, 1));
    ck_assert_rel(r.total, 5005);
    th_a1_replay_result_free(&r);
    /* MODEL: F0 0-1000 (a NONE blocking comm goes on at once), +1; F1 1001-2001, +1;
     * IG1 2002-3002, +1; WG1 3003-4003, +1; IG0 4004-5004, +1; WG0 5005-6005, +1: 6006.
     * Layer 0's IG compute runs here. */
    r = replay(&s,
               "MODEL\n2\n"
               "l0 -1 1000 NONE 0 1000 NONE 0 1000 NONE 0 0\n"
               "l1 -1 1000 NONE 0 1000 NONE 0 1000 NONE 0 0\n",
               ropts(1, 1));
    ck_assert_rel(r.total, 6006);
    ck_assert_rel(r.compute, 6000);
    th_a1_replay_result_free(&r);
    /* zero compute takes no tick, each state change one: F0 at 0, F1 at 1, WG1 at 2, IG1 at 3,
     * WG0 at 4 (pass ends), the end at 5 */
    r = replay(&s,
               "DATA\n2\nl0 -1 0 NONE 0 0 NONE 0 0 NONE 0 0\nl1 -1 0 NONE 0 0 NONE 0 0 NONE 0 0\n",
               ropts(1, 1));
    ck_assert_rel(r.total, 5);
    ck_assert_rel(r.compute, 0);
    th_a1_replay_result_free(&r);
    /* MICRO with no collective ends where it starts */
    r = replay(&s, "MICRO\n1\nl -1 5 NONE 0 5 NONE 0 5 NONE 0 5\n", ropts(3, 1));
    ck_assert_rel(r.total, 0);
    th_a1_replay_result_free(&r);
    /* --compute-scale 2: every compute doubles, the 5 ticks stay */
    th_a1_replay_opts o = ropts(1, 1);
    o.scale.compute = 2;
    r = replay(&s, DATA2, o);
    ck_assert_rel(r.total, 10005);
    th_a1_replay_result_free(&r);
    /* the tag's float scale: F0 of 2^24 + 1 cycles takes 2^24 on the tag; F0, +1, WG0 (0),
     * +1: 2^24 + 1 + 1 on the branch, one less on the tag */
    const char *big = "DATA\n1\nl -1 16777217 NONE 0 0 NONE 0 0 NONE 0 0\n";
    r = replay(&s, big, ropts(1, 1));
    ck_assert_rel(r.total, 16777219);
    th_a1_replay_result_free(&r);
    o = ropts(1, 1);
    o.scale.tag = 1;
    r = replay(&s, big, o);
    ck_assert_rel(r.total, 16777218);
    th_a1_replay_result_free(&r);
}
END_TEST

/* ---- the replay with collectives, on our analytical model (1 GB/s switches, latency 0, one
 * chunk): an All-Reduce of m bytes over one dim of p NPUs is RS + AG of m (p-1)/p ns each ---- */

START_TEST(data_comm) {
    int64_t n1[] = {4};
    th_system s = switches(1, n1, NULL);
    /* AR(1000) on 4 NPUs = 2 * 750 = 1500. WG0 issued at 5004 (the pass's end) ends 6504,
     * after the end tick 5005: the report waits for it. */
    const char *ar = "DATA\n2\n"
                     "l0 -1 1000 NONE 0 1000 NONE 0 1000 ALLREDUCE 1000 0\n"
                     "l1 -1 1000 NONE 0 1000 NONE 0 1000 NONE 0 0\n";
    th_a1_replay_result r = replay(&s, ar, ropts(1, 1));
    ck_assert_rel(r.total, 6504);
    ck_assert_rel(r.exposed, 1504);
    ck_assert_int_eq(r.collectives, 1);
    th_a1_replay_result_free(&r);
    /* two passes: F0 of pass 2 waits for WG0 (6504), then 5004 more to its WG0, + 1500 */
    r = replay(&s, ar, ropts(2, 1));
    ck_assert_rel(r.pass_end[1], 6504 + 5004);
    ck_assert_rel(r.total, 6504 + 5004 + 1500);
    th_a1_replay_result_free(&r);
    /* update delay 500 on layer 0: its WG counts as done at 7004; two passes: 7004 + 5004 +
     * 1500 + 500 */
    const char *upd = "DATA\n2\n"
                      "l0 -1 1000 NONE 0 1000 NONE 0 1000 ALLREDUCE 1000 500\n"
                      "l1 -1 1000 NONE 0 1000 NONE 0 1000 NONE 0 0\n";
    r = replay(&s, upd, ropts(1, 1));
    ck_assert_rel(r.total, 7004);
    th_a1_replay_result_free(&r);
    r = replay(&s, upd, ropts(2, 1));
    ck_assert_rel(r.total, 7004 + 5004 + 2000);
    th_a1_replay_result_free(&r);
    /* DATA issues no forward or input-gradient collective */
    r = replay(&s, "DATA\n1\nl0 -1 1000 ALLREDUCE 1000 1000 ALLTOALL 1000 1000 NONE 0 0\n",
               ropts(1, 1));
    ck_assert_rel(r.total, 2002); /* F0 0-1000, +1, WG0 1001-2001, +1 */
    ck_assert_int_eq(r.collectives, 0);
    th_a1_replay_result_free(&r);
}
END_TEST

START_TEST(model_comm) {
    int64_t n1[] = {4};
    th_system s = switches(1, n1, NULL);
    /* c = AR(1000) = 1500. F0 0-1000, AR 1000-2500 (blocking), +1; F1 2501-3501, AR -5001,
     * +1; IG1 5002-6002, AR (not blocking) 6002-7502, +1; WG1 6003-7003, waits for IG1's AR
     * to 7502, +1; IG0 7503-8503 (no AR for layer 0), +1; WG0 8504-9504, +1: 9505
     * = 5 * 1000 + 3 c + 5 (with ASTRA-sim's c = 29294: 92887). */
    th_a1_replay_result r = replay(&s,
                                   "MODEL\n2\n"
                                   "l0 -1 1000 ALLREDUCE 1000 1000 ALLREDUCE 1000 1000 NONE 0 0\n"
                                   "l1 -1 1000 ALLREDUCE 1000 1000 ALLREDUCE 1000 1000 NONE 0 0\n",
                                   ropts(1, 1));
    ck_assert_rel(r.total, 9505);
    ck_assert_rel(r.compute, 6000);
    ck_assert_int_eq(r.collectives, 3);
    th_a1_replay_result_free(&r);
}
END_TEST

/* Two dims: dim 0 at 1 GB/s, dim 1 at 2 GB/s, 4 NPUs each. Forward and IG All-Reduces of 1000
 * bytes, WG All-Reduces of 2000. */
#define HYB2                                                                                       \
    "\n2\n"                                                                                        \
    "l0 -1 1000 ALLREDUCE 1000 1000 ALLREDUCE 1000 1000 ALLREDUCE 2000 0\n"                        \
    "l1 -1 1000 ALLREDUCE 1000 1000 ALLREDUCE 1000 1000 ALLREDUCE 2000 0\n"

START_TEST(hybrid_comm) {
    int64_t n2[] = {4, 4};
    double bw[] = {1, 2};
    th_system s = switches(2, n2, bw);
    /* HYBRID_DATA_MODEL: model dim 0 (AR 1000: 1500), data dim 1 (AR 2000: 2 * 750 = 1500).
     * F0 -1000, AR -2500, +1; F1 2501-3501, AR -5001, +1; IG1 5002-6002, AR -7502, +1;
     * WG1 6003-7003, AR 7003-8503 on dim 1, waits IG1 to 7502, +1; IG0 7503-8503, +1;
     * WG0 8504-9504, AR 9504-11004 (dim 1 is free since 8503); pass ends 9504; the end at
     * 11004. */
    th_a1_replay_result r = replay(&s, "HYBRID_DATA_MODEL" HYB2, ropts(1, 1));
    ck_assert_rel(r.pass_end[0], 9504);
    ck_assert_rel(r.total, 11004);
    ck_assert_int_eq(r.collectives, 5);
    th_a1_replay_result_free(&r);
    /* HYBRID_MODEL_DATA: model dim 1 (AR 1000: 2 * 375 = 750), data dim 0 (AR 2000: 3000).
     * F0 -1000, AR -1750, +1; F1 1751-2751, AR -3501, +1; IG1 3502-4502, AR -5252, +1;
     * WG1 4503-5503, AR 5503: RS -7003, AG -8503; IG1 done, +1; IG0 5504-6504, +1;
     * WG0 6505-7505, AR queued behind WG1's AG: RS 8503-10003, AG -11503; pass ends 7505. */
    r = replay(&s, "HYBRID_MODEL_DATA" HYB2, ropts(1, 1));
    ck_assert_rel(r.pass_end[0], 7505);
    ck_assert_rel(r.total, 11503);
    th_a1_replay_result_free(&r);
}
END_TEST

START_TEST(transformer_comm) {
    /* one switch of 8 NPUs; group 2 splits it into 2 (model) x 4 (data). AR(1000) on 2 NPUs:
     * 2 * 500 = 1000; on 4: 1500. */
    int64_t n1[] = {8};
    th_system s = switches(1, n1, NULL);
    const char *t = "HYBRID_TRANSFORMER model_parallel_NPU_group: 2\n1\n"
                    "l0 -1 1000 ALLREDUCE 1000 1000 ALLREDUCE 1000 1000 ALLREDUCE 1000 0\n";
    /* branch: F0 -1000, AR -2000, +1; IG0 2001-3001, AR (layer 0 too, not blocking) -4001,
     * +1; WG0 3002-4002, AR (data dim) -5502, IG0 done, pass ends 4002, +1; the end 5502 */
    th_a1_replay_result r = replay(&s, t, ropts(1, 1));
    ck_assert_rel(r.pass_end[0], 4002);
    ck_assert_rel(r.total, 5502);
    ck_assert_int_eq(r.collectives, 3);
    th_a1_replay_result_free(&r);
    /* tag: IG0's AR blocks: resumes at 4001, +1; WG0 4002-5002, AR -6502 */
    th_a1_replay_opts o = ropts(1, 1);
    o.scale.tag = 1;
    r = replay(&s, t, o);
    ck_assert_rel(r.pass_end[0], 5002);
    ck_assert_rel(r.total, 6502);
    th_a1_replay_result_free(&r);
    /* group 8 = the whole system: every dim is model-parallel, the WG AR is not issued */
    r = replay(&s,
               "HYBRID_TRANSFORMER model_parallel_NPU_group: 8\n1\n"
               "l0 -1 1000 NONE 0 1000 NONE 0 1000 ALLREDUCE 1000 0\n",
               ropts(1, 1));
    ck_assert_int_eq(r.collectives, 0);
    ck_assert_rel(r.total, 3003); /* F0, +1, IG0, +1, WG0, +1 */
    th_a1_replay_result_free(&r);
}
END_TEST

START_TEST(dlrm_comm) {
    /* one switch of 4 NPUs: A2A(1000) = 750, AR(1000) = 1500 (RS 750 + AG 750). K = 1. */
    int64_t n1[] = {4};
    th_system s = switches(1, n1, NULL);
    const char *d = "HYBRID_DLRM 1\n3\n"
                    "emb -1 100 ALLTOALL 1000 100 ALLTOALL 1000 100 NONE 0 0\n"
                    "b1 -1 100 NONE 0 100 NONE 0 100 ALLREDUCE 1000 0\n"
                    "t2 -1 100 NONE 0 100 NONE 0 100 ALLREDUCE 1000 0\n";
    /* F0 -100, A2A0 100-850 (not blocking), +1; F1 101-201 waits for A2A0 (layer K = 1) to
     * 850, +1; F2 851-951, +1; WG2 952-1052, AR2 RS 1052-1802, +1; IG2 1053-1153, the IG A2A
     * of layer 0 (after layer K + 1's IG), +1; WG1 1154-1254, AR1, +1; IG1 1255-1355, +1;
     * WG0 1356-1456 waits for the IG A2A.
     * lifo (newest first): at 1802 AR1's RS 1802-2552, its AG 2552-3302, the A2A 3302-4052,
     * AR2's AG 4052-4802: WG0 resumes at 4052, the pass ends there; the end 4802. */
    th_a1_replay_result r = replay(&s, d, ropts(1, 1));
    ck_assert_rel(r.pass_end[0], 4052);
    ck_assert_rel(r.total, 4802);
    ck_assert_rel(r.compute, 800); /* no IG compute for layer 0 */
    ck_assert_int_eq(r.collectives, 4);
    th_a1_replay_result_free(&r);
    /* fifo (oldest first): AR2's AG 1802-2552, the A2A 2552-3302, AR1 3302-4802 */
    r = replay(&s, d, ropts(1, 0));
    ck_assert_rel(r.pass_end[0], 3302);
    ck_assert_rel(r.total, 4802);
    th_a1_replay_result_free(&r);
}
END_TEST

START_TEST(micro_comm) {
    int64_t n1[] = {4};
    th_system s = switches(1, n1, NULL);
    /* three passes: three AR(1000) issued at 0; fifo: one after the other, 4500 */
    th_a1_replay_result r =
        replay(&s, "MICRO\n1\nl -1 5 NONE 0 5 NONE 0 5 ALLREDUCE 1000 0\n", ropts(3, 0));
    ck_assert_rel(r.total, 4500);
    ck_assert_rel(r.compute, 0);
    ck_assert_int_eq(r.collectives, 3);
    th_a1_replay_result_free(&r);
}
END_TEST

START_TEST(replay_errors) {
    int64_t n1[] = {4};
    th_system s = switches(1, n1, NULL);
    /* a collective of 0 bytes that the state machine issues */
    replay_bad(&s, "DATA\n1\nl0 -1 1 NONE 0 1 NONE 0 1 ALLREDUCE 0 0\n", ropts(1, 1),
               "w.txt:3: field 11 (weight-grad comm size): ASTRA-sim 1.0 never finishes a "
               "collective of 0 bytes (DATA issues this one)",
               NULL);
    /* ... after --comm-scale */
    th_a1_replay_opts o = ropts(1, 1);
    o.scale.comm = 0.1;
    replay_bad(&s, "DATA\n1\nl0 -1 1 NONE 0 1 NONE 0 1 ALLREDUCE 5 0\n", o, "0 bytes",
               "after --comm-scale");
    /* DATA never issues the forward collective: its 0 bytes are harmless */
    th_a1_replay_result r =
        replay(&s, "DATA\n1\nl0 -1 1 ALLREDUCE 0 1 NONE 0 1 NONE 0 0\n", ropts(1, 1));
    th_a1_replay_result_free(&r);
    /* fewer bytes than chunks */
    o = ropts(1, 1);
    o.chunks = 64;
    replay_bad(&s, "DATA\n1\nl0 -1 1 NONE 0 1 NONE 0 1 ALLREDUCE 63 0\n", o,
               "w.txt:3: field 11 (weight-grad comm size): 63 bytes in 64 chunks", NULL);
    /* a group that does not divide the system */
    replay_bad(&s, "HYBRID_TRANSFORMER model_parallel_NPU_group: 3\n1\n" L1, ropts(1, 1),
               "model_parallel_NPU_group 3 does not divide", NULL);
    /* options */
    th_a1_workload *wl = parse_ok(DATA2);
    th_error err = {0};
    o = ropts(0, 1);
    ck_assert_int_eq(th_a1_replay(&s, wl, "w.txt", &o, &r, &err), TH_EINPUT);
    ck_assert_ptr_nonnull(strstr(err.msg, "passes: expected 1 to"));
    o = ropts(1, 1);
    o.chunks = 0;
    ck_assert_int_eq(th_a1_replay(&s, wl, "w.txt", &o, &r, &err), TH_EINPUT);
    o = ropts(1, 1);
    o.scale.comm = -1;
    ck_assert_int_eq(th_a1_replay(&s, wl, "w.txt", &o, &r, &err), TH_EINPUT);
    ck_assert_ptr_nonnull(strstr(err.msg, "scales"));
    atomic_int stop = 1;
    o = ropts(1, 1);
    o.stop = &stop;
    ck_assert_int_eq(th_a1_replay(&s, wl, "w.txt", &o, &r, &err), TH_EINTERNAL);
    ck_assert_str_eq(err.msg, "interrupted");
    th_a1_free(wl);
}
END_TEST

/* ---- conversion to our format ---- */

START_TEST(convert) {
    th_a1_scale sc = {1, 1, 0};
    th_buf notes = {0};
    th_error err = {0};
    th_workload *w;
    th_a1_workload *wl = parse_ok("DATA\n2\n"
                                  "l -1 10 ALLREDUCE 8 20 NONE 0 30 ALLREDUCE 4096 5\n"
                                  "l -1 11 NONE 0 21 NONE 0 31 REDUCESCATTER 64 0\n");
    ck_assert_int_eq(th_a1_convert(wl, NULL, &sc, "w.txt", &w, &notes, &err), TH_OK);
    ck_assert_int_eq(w->nlayers, 2);
    ck_assert_int_eq(w->hybrid, 0);
    ck_assert_str_eq(w->layers[0].name, "l");
    ck_assert_str_eq(w->layers[1].name, "l.2");
    ck_assert_rel(w->layers[0].ph[TH_PHASE_FWD].ns, 10);
    ck_assert_rel(w->layers[0].ph[TH_PHASE_IG].ns, 0); /* DATA skips layer 0's IG */
    ck_assert_rel(w->layers[1].ph[TH_PHASE_IG].ns, 21);
    ck_assert(!w->layers[0].ph[TH_PHASE_FWD].coll.present); /* DATA never issues it */
    const th_wl_coll *c = &w->layers[0].ph[TH_PHASE_WG].coll;
    ck_assert(c->present && !c->blocking);
    ck_assert_int_eq(c->type, TH_COLL_ALLREDUCE);
    ck_assert_rel(c->size, 4096);
    ck_assert_int_eq(c->sel, TH_SEL_ALL);
    ck_assert_ptr_nonnull(strstr(notes.p, "1 layer names repeat"));
    ck_assert_ptr_nonnull(strstr(notes.p, "1 layers have an update delay"));
    /* the JSON reads back as the same workload */
    char *json;
    ck_assert_int_eq(th_a1_workload_json(w, &json, &err), TH_OK);
    th_workload *back;
    ck_assert_msg(th_workload_parse(json, strlen(json), "back.json", &back, &err) == TH_OK, "%s",
                  err.msg);
    ck_assert_int_eq(back->nlayers, 2);
    ck_assert_str_eq(back->layers[1].name, "l.2");
    ck_assert_rel(back->layers[1].ph[TH_PHASE_WG].coll.size, 64);
    ck_assert_int_eq(back->layers[1].ph[TH_PHASE_WG].coll.type, TH_COLL_REDUCESCATTER);
    ck_assert(!back->layers[1].ph[TH_PHASE_WG].coll.blocking);
    free(json);
    th_workload_free(back);
    th_workload_free(w);
    th_a1_free(wl);
    th_buf_free(&notes);

    /* hybrids: model dims in forward and IG (blocking), data dims in WG */
    int64_t n3[] = {2, 4, 8};
    th_system s = switches(3, n3, NULL);
    notes = (th_buf){0};
    wl = parse_ok("HYBRID_DATA_MODEL" HYB2);
    ck_assert_int_eq(th_a1_convert(wl, &s, &sc, "w.txt", &w, &notes, &err), TH_OK);
    ck_assert_int_eq(w->hybrid, 1);
    ck_assert_int_eq(w->mp_dims, 1);
    ck_assert_int_eq(w->layers[1].ph[TH_PHASE_IG].coll.sel, TH_SEL_MP);
    ck_assert(w->layers[1].ph[TH_PHASE_IG].coll.blocking);
    ck_assert(!w->layers[0].ph[TH_PHASE_IG].coll.present); /* layer 0 has none */
    ck_assert_int_eq(w->layers[0].ph[TH_PHASE_WG].coll.sel, TH_SEL_DP);
    ck_assert_ptr_nonnull(strstr(notes.p, "input-gradient collectives block"));
    th_workload_free(w);
    th_a1_free(wl);
    wl = parse_ok("HYBRID_MODEL_DATA" HYB2);
    ck_assert_int_eq(th_a1_convert(wl, &s, &sc, "w.txt", &w, &notes, &err), TH_OK);
    ck_assert_int_eq(w->layers[0].ph[TH_PHASE_FWD].coll.sel, TH_SEL_LIST);
    ck_assert_uint_eq(w->layers[0].ph[TH_PHASE_FWD].coll.mask, 6u);
    ck_assert_uint_eq(w->layers[0].ph[TH_PHASE_WG].coll.mask, 1u);
    th_workload_free(w);
    /* without the system it cannot say which dims */
    ck_assert_int_eq(th_a1_convert(wl, NULL, &sc, "w.txt", &w, &notes, &err), TH_EINPUT);
    ck_assert_ptr_nonnull(strstr(err.msg, "w.txt:1: HYBRID_MODEL_DATA: its model-parallel dims "
                                          "depend on the system's dims"));
    th_a1_free(wl);
    /* a Transformer group on whole dims converts; one that splits a dim cannot */
    wl = parse_ok("HYBRID_TRANSFORMER model_parallel_NPU_group: 8\n1\n"
                  "l0 -1 1 ALLREDUCE 100 1 ALLREDUCE 100 1 ALLREDUCE 100 0\n");
    ck_assert_int_eq(th_a1_convert(wl, &s, &sc, "w.txt", &w, &notes, &err), TH_OK);
    ck_assert_int_eq(w->hybrid, 1);
    ck_assert_int_eq(w->mp_dims, 2);
    ck_assert(w->layers[0].ph[TH_PHASE_IG].coll.present); /* layer 0's IG too */
    th_workload_free(w);
    wl->group = 4;
    ck_assert_int_eq(th_a1_convert(wl, &s, &sc, "w.txt", &w, &notes, &err), TH_EINPUT);
    ck_assert_ptr_nonnull(strstr(err.msg, "splits dims[1] (dim1) of system \"test\" into two "
                                          "logical dims"));
    th_a1_free(wl);
    /* DLRM: layer 0's collectives over every dim, the note on its waits */
    wl = parse_ok("HYBRID_DLRM 0\n2\n"
                  "emb -1 1 ALLTOALL 100 1 ALLTOALL 100 1 NONE 0 0\n"
                  "m -1 1 ALLTOALL 100 1 NONE 0 1 ALLREDUCE 100 0\n");
    ck_assert_int_eq(th_a1_convert(wl, NULL, &sc, "w.txt", &w, &notes, &err), TH_OK);
    ck_assert(w->layers[0].ph[TH_PHASE_FWD].coll.present);
    ck_assert(w->layers[0].ph[TH_PHASE_IG].coll.present);
    ck_assert(!w->layers[1].ph[TH_PHASE_FWD].coll.present);
    ck_assert_ptr_nonnull(strstr(notes.p, "HYBRID_DLRM: layer 0's forward All-to-All"));
    th_workload_free(w);
    th_a1_free(wl);
    /* an All-Gather: ASTRA-sim's size is each NPU's input, ours the output: 100 bytes from
     * each of the 64 NPUs (2 * 4 * 8) of a MODEL forward are 6400; without the system, an
     * error */
    wl = parse_ok("MODEL\n1\nl0 -1 1 ALLGATHER 100 1 NONE 0 1 NONE 0 0\n");
    ck_assert_int_eq(th_a1_convert(wl, &s, &sc, "w.txt", &w, &notes, &err), TH_OK);
    ck_assert_rel(w->layers[0].ph[TH_PHASE_FWD].coll.size, 6400);
    th_workload_free(w);
    ck_assert_int_eq(th_a1_convert(wl, NULL, &sc, "w.txt", &w, &notes, &err), TH_EINPUT);
    ck_assert_ptr_nonnull(strstr(err.msg, "w.txt:3: field 4 (forward comm type): an ALLGATHER's "
                                          "size is each NPU's input"));
    th_a1_free(wl);
    /* a collective of 0 bytes that would be issued */
    wl = parse_ok("DATA\n1\nl0 -1 1 NONE 0 1 NONE 0 1 ALLGATHER 0 0\n");
    ck_assert_int_eq(th_a1_convert(wl, NULL, &sc, "w.txt", &w, &notes, &err), TH_EINPUT);
    ck_assert_ptr_nonnull(strstr(err.msg, "w.txt:3: field 11 (weight-grad comm size)"));
    th_a1_free(wl);
    th_buf_free(&notes);
}
END_TEST

/* ---- under the astra-sim-1.0 preset: ASTRA-sim 1.0's numbers ---- */

/* Switch dims of n NPUs, 50 GB/s (B = 50 * 2^30 / 1e9 bytes/ns), latency 0, endpoint 0, one
 * link, halvingDoubling: an All-Reduce of C = 1 MiB in one chunk is one AR phase of messages
 * C/2, C/4 then C/4, C/2 on 4 NPUs: floor(9765.625) + 2 floor(4882.8125) + 9765 = 29294 ns
 * (no reduction: 3 floor(262144 / 500000) = 0); on 2 NPUs C/2 and C/2: 2 * 9765 = 19530. A
 * direct All-to-All of C on 4 NPUs: net(C / 4) = floor(4882.8125) = 4882. */
static th_system preset(const char *npus, int tag) {
    char json[1024];
    snprintf(json, sizeof json,
             "{\"model\": \"astra-sim-1.0\", \"endpoint_ns\": 0%s, \"dims\": [%s]}",
             tag ? ", \"astra_version\": \"tutorial-asplos2023\"" : "", npus);
    th_system s;
    th_error err = {0};
    ck_assert_msg(th_system_parse(json, strlen(json), "a1.json", &s, &err) == TH_OK, "%s", err.msg);
    return s;
}

#define SW(n)                                                                                      \
    "{\"topology\": \"switch\", \"npus\": " #n ", \"bw_GBps\": 50, \"latency_ns\": 0, \"links\": " \
    "1, \"allreduce\": \"halvingDoubling\"}"

START_TEST(preset_reference) {
    th_system s = preset(SW(4), 0);
    /* the reference checks: no comm 5005; layer 0's WG AR issued at 5004: 5004 + 29294; two
     * passes: the second F0 waits to 34298, its WG0 at 34298 + 5004, + 29294 */
    th_a1_replay_result r = replay(&s, DATA2, ropts(1, 1));
    ck_assert_rel(r.total, 5005);
    th_a1_replay_result_free(&r);
    const char *ar = "DATA\n2\n"
                     "l0 -1 1000 NONE 0 1000 NONE 0 1000 ALLREDUCE 1048576 0\n"
                     "l1 -1 1000 NONE 0 1000 NONE 0 1000 NONE 0 0\n";
    r = replay(&s, ar, ropts(1, 1));
    ck_assert_rel(r.total, 34298);
    ck_assert_rel(r.compute, 5000);
    ck_assert_rel(r.exposed, 29298);
    th_a1_replay_result_free(&r);
    r = replay(&s, ar, ropts(2, 1));
    ck_assert_rel(r.total, 68596);
    ck_assert_rel(r.pass_end[1], 34298 + 5004);
    th_a1_replay_result_free(&r);
    /* update delay 500: done at 34798; two passes 34798 + 5004 + 29294 + 500 = 69596 */
    const char *upd = "DATA\n2\n"
                      "l0 -1 1000 NONE 0 1000 NONE 0 1000 ALLREDUCE 1048576 500\n"
                      "l1 -1 1000 NONE 0 1000 NONE 0 1000 NONE 0 0\n";
    r = replay(&s, upd, ropts(1, 1));
    ck_assert_rel(r.total, 34798);
    th_a1_replay_result_free(&r);
    r = replay(&s, upd, ropts(2, 1));
    ck_assert_rel(r.total, 69596);
    th_a1_replay_result_free(&r);
    /* MODEL, forward and IG ARs on both layers: 5 * 1000 + 3 * 29294 + 5 ticks (model_comm) */
    r = replay(&s,
               "MODEL\n2\n"
               "l0 -1 1000 ALLREDUCE 1048576 1000 ALLREDUCE 1048576 1000 NONE 0 0\n"
               "l1 -1 1000 ALLREDUCE 1048576 1000 ALLREDUCE 1048576 1000 NONE 0 0\n",
               ropts(1, 1));
    ck_assert_rel(r.total, 92887);
    th_a1_replay_result_free(&r);
    /* MICRO: the AR ends at 29294, its update time of 1 cycle: 29295 (themis run's MICRO) */
    r = replay(&s, "MICRO\n1\nl -1 5 NONE 0 5 NONE 0 5 ALLREDUCE 1048576 1\n", ropts(1, 1));
    ck_assert_rel(r.total, 29295);
    th_a1_replay_result_free(&r);
}
END_TEST

/* A 1.0 system of one Switch of 4 (50 GB/s, L 0, halvingDoubling) with endpoint delay e and
 * scheduling policy `policy`. */
static th_system sw4_e(int e, const char *policy) {
    char json[512];
    snprintf(json, sizeof json,
             "{\"model\": \"astra-sim-1.0\", \"endpoint_ns\": %d, \"scheduling_policy\": \"%s\", "
             "\"dims\": [" SW(4) "]}",
             e, policy);
    th_system s;
    th_error err = {0};
    ck_assert_msg(th_system_parse(json, strlen(json), "a1.json", &s, &err) == TH_OK, "%s", err.msg);
    return s;
}

/* A phase ending at the very ns the workload issues a collective onto its dim. ASTRA-sim runs
 * one ns's events in registration order: the workload's call that ends WG0's compute of 10
 * cycles was registered 10 ns before; the event ending an All-Reduce phase E ns before (its
 * last step, an all-gather one, does not reduce). DATA, 3 layers, computes of 10 but IG1 of
 * 29260 (E = 0): F0 0-10, F1 11-21, F2 22-32, WG2 33-43, AR2 43-29337 (29294), IG2 44-54,
 * WG1 55-65, AR1 issued at 65 waits (update delay 1000), IG1 66-29326, WG0 29327-29337, AR0
 * issued at 29337, when AR2 ends.
 * - E = 0 < 10, LIFO: AR0 is issued first and, newer, goes ahead of AR1: AR0 29337-58631, AR1
 *   58631-87925, + 1000: 88925 (ending AR2 first would give AR1 first and 87925).
 * - E = 0, FIFO: AR0 goes behind AR1 either way: AR1 29337-58631 (+ 1000 = 59631), AR0
 *   58631-87925: 87925.
 * - E = 20 > 10, LIFO: the phase ends first. Each AR costs 29294 + (4 + 1) 20 = 29394, the
 *   timeline is the same up to AR2 43-29437, so IG1 of 29360 (66-29426, WG0 29427-29437) puts
 *   AR0's issue at AR2's end: AR1 starts, 29437-58831 (+ 1000 = 59831), AR0 58831-88225. */
START_TEST(preset_same_tick) {
    const char *fmt = "DATA\n3\n"
                      "l0 -1 10 NONE 0 10 NONE 0 10 ALLREDUCE 1048576 0\n"
                      "l1 -1 10 NONE 0 %d NONE 0 10 ALLREDUCE 1048576 1000\n"
                      "l2 -1 10 NONE 0 10 NONE 0 10 ALLREDUCE 1048576 0\n";
    char text[512];
    snprintf(text, sizeof text, fmt, 29260);
    th_system s = sw4_e(0, "LIFO");
    th_a1_replay_result r = replay(&s, text, ropts(1, 1));
    ck_assert_rel(r.total, 88925);
    th_a1_replay_result_free(&r);
    s = sw4_e(0, "FIFO");
    r = replay(&s, text, ropts(1, 0));
    ck_assert_rel(r.total, 87925);
    th_a1_replay_result_free(&r);
    snprintf(text, sizeof text, fmt, 29360);
    s = sw4_e(20, "LIFO");
    r = replay(&s, text, ropts(1, 1));
    ck_assert_rel(r.total, 88225);
    th_a1_replay_result_free(&r);
}
END_TEST

START_TEST(preset_dlrm) {
    /* HYBRID_DLRM 1 on Switch 4: A2A(1 MiB) = 4882, AR(1 MiB) = 29294, computes 100.
     * F0 0-100, A2A0 (highest priority) 100-4982, +1; F1 101-201 waits for it (K = 1) to
     * 4982, +1; F2 4983-5083, +1; WG2 5084-5184, AR2 (LIFO priority 0) 5184-34478, +1; IG2
     * 5185-5285, the IG A2A of layer 0 (highest) queued, +1; WG1 5286-5386, AR1 (priority 1)
     * queued after the A2A (1e8 >= 1), +1; IG1 5387-5487, +1; WG0 5488-5588 waits for the IG
     * A2A: 34478-39360; the pass ends at 39360; AR1 39360-68654, the end. */
    th_system s = preset(SW(4), 0);
    const char *d = "HYBRID_DLRM 1\n3\n"
                    "emb -1 100 ALLTOALL 1048576 100 ALLTOALL 1048576 100 NONE 0 0\n"
                    "b1 -1 100 NONE 0 100 NONE 0 100 ALLREDUCE 1048576 0\n"
                    "t2 -1 100 NONE 0 100 NONE 0 100 ALLREDUCE 1048576 0\n";
    th_a1_replay_result r = replay(&s, d, ropts(1, 1));
    ck_assert_rel(r.pass_end[0], 39360);
    ck_assert_rel(r.total, 68654);
    ck_assert_rel(r.compute, 800);
    th_a1_replay_result_free(&r);
}
END_TEST

START_TEST(preset_enhanced_inference) {
    /* HYBRID_DLRM_ENHANCED: preset_dlrm's workload, but WG0 (5488-5588) does not wait for the
     * IG All-to-All: the pass ends at 5588; the lists are the same (the A2A 34478-39360, AR1
     * 39360-68654): the end 68654 */
    th_system s = preset(SW(4), 0);
    th_a1_replay_result r = replay(&s,
                                   "HYBRID_DLRM_ENHANCED 1\n3\n"
                                   "emb -1 100 ALLTOALL 1048576 100 ALLTOALL 1048576 100 NONE 0 0\n"
                                   "b1 -1 100 NONE 0 100 NONE 0 100 ALLREDUCE 1048576 0\n"
                                   "t2 -1 100 NONE 0 100 NONE 0 100 ALLREDUCE 1048576 0\n",
                                   ropts(1, 1));
    ck_assert_rel(r.pass_end[0], 5588);
    ck_assert_rel(r.total, 68654);
    th_a1_replay_result_free(&r);
    /* DISTRIBUTED_INFERENCE: forwards only. F0 0-1000, AR 1000-30294 (blocking), +1; F1
     * 30295-31295, AR -60589, the pass ends, +1: 60590; two passes: 60590 + 60589 + 1 */
    const char *inf = "DISTRIBUTED_INFERENCE\n2\n"
                      "l0 -1 1000 ALLREDUCE 1048576 1000 ALLREDUCE 8 1000 ALLREDUCE 8 0\n"
                      "l1 -1 1000 ALLREDUCE 1048576 1000 NONE 0 1000 NONE 0 0\n";
    r = replay(&s, inf, ropts(1, 1));
    ck_assert_rel(r.pass_end[0], 60589);
    ck_assert_rel(r.total, 60590);
    ck_assert_rel(r.compute, 2000);
    ck_assert_int_eq(r.collectives, 2);
    th_a1_replay_result_free(&r);
    r = replay(&s, inf, ropts(2, 1));
    ck_assert_rel(r.total, 60590 + 60590);
    th_a1_replay_result_free(&r);
    /* converted: forwards only, blocking; ENHANCED's IG All-to-All does not block */
    th_a1_scale sc = {1, 1, 0};
    th_buf notes = {0};
    th_error err = {0};
    th_workload *w;
    th_a1_workload *wl = parse_ok(inf);
    ck_assert_int_eq(th_a1_convert(wl, &s, &sc, "w.txt", &w, &notes, &err), TH_OK);
    ck_assert_rel(w->layers[0].ph[TH_PHASE_IG].ns, 0);
    ck_assert_rel(w->layers[0].ph[TH_PHASE_WG].ns, 0);
    ck_assert(!w->layers[0].ph[TH_PHASE_WG].coll.present);
    ck_assert(w->layers[1].ph[TH_PHASE_FWD].coll.blocking);
    ck_assert_ptr_nonnull(strstr(notes.p, "DISTRIBUTED_INFERENCE: forwards only"));
    th_workload_free(w);
    th_a1_free(wl);
    wl = parse_ok("HYBRID_DLRM_ENHANCED 0\n2\n"
                  "emb -1 1 ALLTOALL 100 1 ALLTOALL 100 1 NONE 0 0\n"
                  "m -1 1 NONE 0 1 NONE 0 1 ALLREDUCE 100 0\n");
    ck_assert_int_eq(th_a1_convert(wl, NULL, &sc, "w.txt", &w, &notes, &err), TH_OK);
    ck_assert(w->layers[0].ph[TH_PHASE_FWD].coll.blocking);
    ck_assert(!w->layers[0].ph[TH_PHASE_IG].coll.blocking);
    th_workload_free(w);
    th_a1_free(wl);
    th_buf_free(&notes);
}
END_TEST

START_TEST(preset_customized) {
    /* HYBRID_CUSTOMIZED, a layer's own dims: l0 HYBRID_DATA_MODEL (forward dim 0, WG dim 1),
     * l1 HYBRID_MODEL_DATA (forward and IG dim 1, WG dim 0). Dim 0 at 50 GB/s (AR of 1 MiB
     * 29294), dim 1 at 100 GB/s (messages 4882, 2441, 2441, 4882: 14646).
     * F0 0-1000, AR dim 0 1000-30294, +1; F1 30295-31295, AR dim 1 -45941, +1; IG1
     * 45942-46942, AR dim 1 46942-61588, +1; WG1 46943-47943, AR dim 0 47943-77237, waits IG1
     * to 61588, +1; IG0 61589-62589, +1; WG0 62590-63590 (the pass's end), AR dim 1
     * 63590-78236: the end. */
    th_system s = preset(SW(4) ", {\"topology\": \"switch\", \"npus\": 4, \"bw_GBps\": 100, "
                               "\"latency_ns\": 0, \"links\": 1, \"allreduce\": "
                               "\"halvingDoubling\"}",
                         0);
    const char *c = "HYBRID_CUSTOMIZED\n2\n"
                    "l0 -1 1000 ALLREDUCE 1048576 1000 ALLREDUCE 1048576 1000 ALLREDUCE 1048576 0 "
                    "HYBRID_DATA_MODEL\n"
                    "l1 -1 1000 ALLREDUCE 1048576 1000 ALLREDUCE 1048576 1000 ALLREDUCE 1048576 0 "
                    "HYBRID_MODEL_DATA\n";
    th_a1_replay_result r = replay(&s, c, ropts(1, 1));
    ck_assert_rel(r.pass_end[0], 63590);
    ck_assert_rel(r.total, 78236);
    ck_assert_int_eq(r.collectives, 5);
    th_a1_replay_result_free(&r);
    /* the dims of each layer's own keyword; a DLRM layer 0 is no embedding layer here */
    th_a1_workload *wl = parse_ok("HYBRID_CUSTOMIZED\n2\n" L1C("HYBRID_DLRM") L1C("MODEL"));
    ck_assert_int_eq(wl->layers[0].par, TH_A1_HYBRID_DLRM);
    ck_assert_uint_eq(th_a1_dims(wl, &s, 0, TH_PHASE_FWD), 0u);
    ck_assert_uint_eq(th_a1_dims(wl, &s, 0, TH_PHASE_WG), 3u);
    ck_assert_uint_eq(th_a1_dims(wl, &s, 1, TH_PHASE_FWD), 3u);
    ck_assert_uint_eq(th_a1_dims(wl, &s, 1, TH_PHASE_WG), 0u);
    /* converted: lists of dims, which need the system */
    th_a1_scale sc = {1, 1, 0};
    th_buf notes = {0};
    th_error err = {0};
    th_workload *w;
    ck_assert_int_eq(th_a1_convert(wl, NULL, &sc, "w.txt", &w, &notes, &err), TH_EINPUT);
    ck_assert_ptr_nonnull(strstr(err.msg, "HYBRID_CUSTOMIZED: its model-parallel dims depend"));
    th_a1_free(wl);
    wl = parse_ok(c);
    ck_assert_int_eq(th_a1_convert(wl, &s, &sc, "w.txt", &w, &notes, &err), TH_OK);
    ck_assert_int_eq(w->layers[1].ph[TH_PHASE_FWD].coll.sel, TH_SEL_LIST);
    ck_assert_uint_eq(w->layers[1].ph[TH_PHASE_FWD].coll.mask, 2u);
    ck_assert_uint_eq(w->layers[1].ph[TH_PHASE_WG].coll.mask, 1u);
    ck_assert_uint_eq(w->layers[0].ph[TH_PHASE_WG].coll.mask, 2u);
    th_workload_free(w);
    th_a1_free(wl);
    th_buf_free(&notes);
}
END_TEST

START_TEST(preset_fwd_in_bckwd) {
    /* HYBRID_TRANSFORMER_FWD_IN_BCKWD on Switch 4, group 4 (every dim model-parallel): layer
     * 0 a checkpoint, layer 2 starts the recomputation. AR(1 MiB) = 29294.
     * F0 0-1000 (NONE), +1; F1 1001-2001, AR 2001-31295, +1; F2 31296-32296, +1; at IG2 (32297)
     * back to layer 0, +1; again F0 32298-33298, +1; F1 33299-34299, AR 34299-63593, up to
     * layer 2, +1; IG2 63594-64594, AR 64594-93888 (not blocking), +1; WG2 64595-65595 waits
     * for it to 93888, +1; IG1 93889-94889, +1; WG1 94890-95890, +1; IG0 95891-96891, +1; WG0
     * 96892-97892 (the pass's end), +1: 97893. Compute 5 forwards, 3 IG, 3 WG. */
    th_system s = preset(SW(4), 0);
    const char *f = "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 4 checkpoints: 1 0 "
                    "checkpoint_initiates: 1 2\n3\n"
                    "l0 -1 1000 NONE 0 1000 NONE 0 1000 NONE 0 0\n"
                    "l1 -1 1000 ALLREDUCE 1048576 1000 NONE 0 1000 NONE 0 0\n"
                    "l2 -1 1000 NONE 0 1000 ALLREDUCE 1048576 1000 NONE 0 0\n";
    th_a1_workload *wl = parse_ok(f);
    ck_assert(wl->layers[0].checkpoint && !wl->layers[0].initiates);
    ck_assert(wl->layers[2].initiates && !wl->layers[1].checkpoint);
    ck_assert_int_eq(wl->group, 4);
    th_a1_free(wl);
    th_a1_replay_result r = replay(&s, f, ropts(1, 1));
    ck_assert_rel(r.pass_end[0], 97892);
    ck_assert_rel(r.total, 97893);
    ck_assert_rel(r.compute, 11000);
    ck_assert_int_eq(r.collectives, 3);
    th_a1_replay_result_free(&r);
    /* our format cannot say it */
    wl = parse_ok(f);
    th_a1_scale sc = {1, 1, 0};
    th_buf notes = {0};
    th_error err = {0};
    th_workload *w;
    ck_assert_int_eq(th_a1_convert(wl, &s, &sc, "w.txt", &w, &notes, &err), TH_EINPUT);
    ck_assert_ptr_nonnull(strstr(err.msg, "recomputes forwards in the backward pass"));
    th_a1_free(wl);
    th_buf_free(&notes);
    /* the header's errors */
#define FIB "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 4 "
#define L3  "3\n" L1 L1 L1
    parse_bad(FIB "checkpoints: 1 0\n" L3, "expected 'checkpoint_initiates: N' and N layers", NULL);
    parse_bad(FIB "checkpoints: 2 0\n" L3, "checkpoints: expected a count and that many layers",
              NULL);
    parse_bad(FIB "checkpoints: 1 x checkpoint_initiates: 0\n" L3,
              "checkpoints: expected layer indices >= 0, got 'x'", NULL);
    parse_bad(FIB "checkpoints: 1 0 checkpoint_initiates: 1 2 9\n" L3,
              "a field after checkpoint_initiates' layers", NULL);
    parse_bad(FIB "checkpoints: 1 5 checkpoint_initiates: 0\n" L3,
              "w.txt:1: checkpoints: layer 5 is not a layer (the workload has 3: 0 .. 2)", NULL);
    parse_bad(FIB "checkpoints: 1 1 checkpoint_initiates: 1 0\n" L3,
              "checkpoint_initiates layer 0: no checkpoint at or below it", NULL);
    parse_bad(FIB "checkpoints: 1 2 checkpoint_initiates: 1 2\n" L3,
              "checkpoint_initiates layer 2: is a checkpoint itself", NULL);
    parse_bad("HYBRID_TRANSFORMER_FWD_IN_BCKWD\n" L3, "expected 'model_parallel_NPU_group: G'",
              NULL);
#undef FIB
#undef L3
}
END_TEST

START_TEST(preset_transformer) {
    /* Switch 8 split by group 2 into 2 x 4: AR(1 MiB) 19530 on the model dim, 29294 on the
     * data dim. Branch: F0 0-1000, AR 1000-20530, +1; IG0 20531-21531, AR 21531-41061, +1;
     * WG0 21532-22532, AR (data) 22532-51826, waits IG0 to 41061 (the pass's end), +1; the
     * end 51826. */
    th_system s = preset(SW(8), 0);
    const char *t =
        "HYBRID_TRANSFORMER model_parallel_NPU_group: 2\n1\n"
        "l0 -1 1000 ALLREDUCE 1048576 1000 ALLREDUCE 1048576 1000 ALLREDUCE 1048576 0\n";
    th_a1_replay_result r = replay(&s, t, ropts(1, 1));
    ck_assert_rel(r.pass_end[0], 41061);
    ck_assert_rel(r.total, 51826);
    th_a1_replay_result_free(&r);
    /* the tag: IG0's AR blocks to 41061, +1; WG0 41062-42062 (the pass's end), AR 42062-71356 */
    s = preset(SW(8), 1);
    th_a1_replay_opts o = ropts(1, 1);
    o.scale.tag = 1;
    r = replay(&s, t, o);
    ck_assert_rel(r.pass_end[0], 42062);
    ck_assert_rel(r.total, 71356);
    th_a1_replay_result_free(&r);
}
END_TEST

START_TEST(preset_hybrid) {
    /* HYBRID_DATA_MODEL on Switch 4 x Switch 4: every AR of 1 MiB 29294 on its one dim.
     * F0 0-1000, AR (dim 0) -30294, +1; F1 30295-31295, AR -60589, +1; IG1 60590-61590, AR
     * 61590-90884, +1; WG1 61591-62591, AR (dim 1) 62591-91885, waits IG1 to 90884, +1; IG0
     * 90885-91885, +1; WG0 91886-92886 (the pass's end), AR (dim 1, free) -122180. */
    th_system s = preset(SW(4) ", " SW(4), 0);
    const char *h =
        "HYBRID_DATA_MODEL\n2\n"
        "l0 -1 1000 ALLREDUCE 1048576 1000 ALLREDUCE 1048576 1000 ALLREDUCE 1048576 0\n"
        "l1 -1 1000 ALLREDUCE 1048576 1000 ALLREDUCE 1048576 1000 ALLREDUCE 1048576 0\n";
    th_a1_replay_result r = replay(&s, h, ropts(1, 1));
    ck_assert_rel(r.pass_end[0], 92886);
    ck_assert_rel(r.total, 122180);
    th_a1_replay_result_free(&r);
    /* priorities: three WG ARs on dim 1 (30 ns of compute between them, no forward or IG
     * comm). F0 0-10, +1; F1 11-21, +1; F2 22-32, +1; IG2 33-43, +1; WG2 44-54, AR2 54-29348;
     * +1; IG1 55-65, +1; WG1 66-76, AR1 queued; +1; IG0 77-87, +1; WG0 88-98, AR0 queued.
     * The branch issues hybrid WGs FIFO (priority 0, -1, -2): AR1 29348-58642, its update
     * delay 1000 to 59642, AR0 58642-87936: the end 87936. The tag issues them by
     * scheduling-policy LIFO (0, 1, 2): AR0 29348-58642, AR1 58642-87936 + 1000 = 88936. */
    const char *w3 = "HYBRID_DATA_MODEL\n3\n"
                     "l0 -1 10 NONE 0 10 NONE 0 10 ALLREDUCE 1048576 0\n"
                     "l1 -1 10 NONE 0 10 NONE 0 10 ALLREDUCE 1048576 1000\n"
                     "l2 -1 10 NONE 0 10 NONE 0 10 ALLREDUCE 1048576 0\n";
    r = replay(&s, w3, ropts(1, 1));
    ck_assert_rel(r.pass_end[0], 98);
    ck_assert_rel(r.total, 87936);
    th_a1_replay_result_free(&r);
    th_system tag = preset(SW(4) ", " SW(4), 1);
    th_a1_replay_opts o = ropts(1, 1);
    o.scale.tag = 1;
    r = replay(&tag, w3, o);
    ck_assert_rel(r.total, 88936);
    th_a1_replay_result_free(&r);
    /* HYBRID_MODEL_DATA on the same symmetric system: the same times */
    r = replay(&s,
               "HYBRID_MODEL_DATA\n2\n"
               "l0 -1 1000 ALLREDUCE 1048576 1000 ALLREDUCE 1048576 1000 ALLREDUCE 1048576 0\n"
               "l1 -1 1000 ALLREDUCE 1048576 1000 ALLREDUCE 1048576 1000 ALLREDUCE 1048576 0\n",
               ropts(1, 1));
    ck_assert_rel(r.total, 122180);
    th_a1_replay_result_free(&r);
}
END_TEST

/* ---- the shipped workloads in ASTRA-sim's format, and the CLI ---- */

START_TEST(shipped) {
    /* the files of scripts/gen-workloads --format astra-text all parse */
    const char *names[] = {"resnet50", "resnet152", "gnmt", "dlrm", "transformer-1t"};
    const int par[] = {TH_A1_DATA, TH_A1_DATA, TH_A1_DATA, TH_A1_HYBRID_DLRM,
                       TH_A1_HYBRID_TRANSFORMER};
    const char *dir = getenv("THEMIS_SRCDIR");
    for (int i = 0; i < 5; i++) {
        char path[4200];
        snprintf(path, sizeof path, "%s/models/workloads/astra/%s.txt", dir ? dir : ".", names[i]);
        th_a1_workload *wl;
        th_workload *json;
        th_error err = {0};
        ck_assert_msg(th_a1_load(path, &wl, &json, &err) == TH_OK, "%s", err.msg);
        ck_assert_ptr_null(json);
        ck_assert_int_eq(wl->par, par[i]);
        th_a1_free(wl);
    }
    /* and our JSON goes to the JSON loader */
    th_a1_workload *wl;
    th_workload *json;
    th_error err = {0};
    char path[4200];
    snprintf(path, sizeof path, "%s/models/workloads/resnet50.json", dir ? dir : ".");
    ck_assert_int_eq(th_a1_load(path, &wl, &json, &err), TH_OK);
    ck_assert_ptr_null(wl);
    ck_assert_int_eq(json->nlayers, 54);
    th_workload_free(json);
}
END_TEST

/* The one workload loader tells the two formats by content: the text workload comes back as
 * its format's parse, which that format converts to our workload; our JSON as a workload. */
START_TEST(workload_open) {
    th_wl_file f;
    th_error err = {0};
    ck_assert_msg(th_workload_open(test_dpath("astra1/data1.txt"), &f, &err) == TH_OK, "%s",
                  err.msg);
    ck_assert_ptr_nonnull(f.format);
    ck_assert_ptr_null(f.wl);
    ck_assert_int_eq(((th_a1_workload *)f.native)->par, TH_A1_DATA);
    ck_assert_ptr_nonnull(strstr(f.format->name, "ASTRA-sim 1.0"));
    th_system ring, a1;
    ck_assert_int_eq(th_system_load(test_dpath("cli_ring4.json"), &ring, &err), TH_OK);
    ck_assert_int_eq(th_system_load(test_dpath("astra1_3d.json"), &a1, &err), TH_OK);
    ck_assert(!f.format->native_on(&ring) && f.format->native_on(&a1));
    th_workload *wl = NULL;
    th_buf notes = {0};
    ck_assert_msg(f.format->convert(f.native, NULL, NULL, "data1.txt", &wl, &notes, &err) == TH_OK,
                  "%s", err.msg);
    ck_assert_int_eq(wl->nlayers, 1);
    th_workload_free(wl);
    th_buf_free(&notes);
    th_workload_close(&f);
    ck_assert_ptr_null(f.native);
    char path[4200];
    const char *dir = getenv("THEMIS_SRCDIR");
    snprintf(path, sizeof path, "%s/models/workloads/resnet50.json", dir ? dir : ".");
    ck_assert_msg(th_workload_open(path, &f, &err) == TH_OK, "%s", err.msg);
    ck_assert_ptr_null(f.format);
    ck_assert_int_eq(f.wl->nlayers, 54);
    th_workload_close(&f);
    ck_assert_int_eq(th_workload_open(test_dpath("no-such-workload.json"), &f, &err), TH_EINPUT);
    ck_assert(!f.format && !f.wl && !f.native);
}
END_TEST

START_TEST(cli_train_text) {
    /* DATA, one layer: F0 1000, IG0 (none for layer 0), WG0 1000, then its AR of 1e6 bytes in
     * one chunk on the ring of 4 (100 GB/s, 10 ns): 2 (3 * 10 + 1e6 * 3 / 400) = 15060 ns.
     * Our replay (no ticks): the next F0 waits for the AR, so the period is 2000 + 15060. */
    test_cli_out r;
    test_cli(&r, "train %s -s %s -p baseline -q fifo -n 1 -f csv", test_dpath("astra1/data1.txt"),
             test_dpath("cli_ring4.json"));
    test_expect_quiet(&r, "train text");
    test_csv c;
    test_csv_parse(&c, r.out);
    ck_assert_int_eq(c.nrows, 1);
    ck_assert_rel(test_csv_d(&c, 0, "iteration_us"), 17.06);
    ck_assert_rel(test_csv_d(&c, 0, "compute_us"), 2);
    ck_assert_str_eq(test_csv_s(&c, 0, "workload"), "data1");
    test_csv_free(&c);
    test_cli_free(&r);
    /* --compute-scale 2: computes of 2000; the period is 4000 + 15060 */
    test_cli(&r, "train %s -s %s -p baseline -q fifo -n 1 -f csv --compute-scale 2",
             test_dpath("astra1/data1.txt"), test_dpath("cli_ring4.json"));
    test_expect_quiet(&r, "train text scaled");
    test_csv_parse(&c, r.out);
    ck_assert_rel(test_csv_d(&c, 0, "iteration_us"), 19.06);
    test_csv_free(&c);
    test_cli_free(&r);
    /* the notes of the conversion go to stderr */
    test_cli(&r, "train %s -s %s -p baseline -q fifo", test_dpath("astra1/model_data.txt"),
             test_dpath("cli_3d.json"));
    test_expect_ok(&r, "train hybrid text");
    ck_assert_ptr_nonnull(strstr(r.err, "themis: note: 1 layers have an update delay"));
    test_cli_free(&r);
    /* errors */
    test_bad("short.txt: the layer count (line 2) says 2 layers, the file has 1", "train %s",
             test_dpath("astra1/short.txt"));
    test_bad("--passes: ASTRA-sim 1.0's passes replay under the astra-sim-1.0 preset",
             "train %s --passes 2", test_dpath("astra1/data1.txt"));
    test_bad("are for ASTRA-sim 1.0 text workloads", "train %s --comm-scale 2",
             test_dpath("wl_two_layer.json"));
    test_bad("--comm-scale: expected a number > 0 and at most 1e9, got '0'",
             "train %s --comm-scale 0", test_dpath("astra1/data1.txt"));
    test_bad("--passes: expected an integer from 1 to 100000", "train %s --passes x",
             test_dpath("astra1/data1.txt"));
    /* group 2 would cut the ring of 4 in two */
    test_bad("transformer2.txt:1: model_parallel_NPU_group 2 splits dims[0] (a), a ring",
             "train %s -s %s", test_dpath("astra1/transformer2.txt"), test_dpath("cli_3d.json"));
}
END_TEST

START_TEST(cli_import_workload) {
    char *dir = test_tmp_dir();
    TEST_DIR_PATH(out, dir, "w.json");
    test_cli_out r;
    test_cli(&r, "import-astra --workload %s -o %s", test_dpath("astra1/data1.txt"), out);
    test_expect_quiet(&r, "import workload");
    th_workload *wl;
    th_error err = {0};
    ck_assert_msg(th_workload_load(out, &wl, &err) == TH_OK, "%s", err.msg);
    ck_assert_int_eq(wl->nlayers, 1);
    ck_assert_rel(wl->layers[0].ph[TH_PHASE_WG].coll.size, 1e6);
    ck_assert_rel(wl->layers[0].ph[TH_PHASE_IG].ns, 0);
    th_workload_free(wl);
    test_cli_free(&r);
    /* an existing output needs --force; the notes come after a successful write */
    test_bad("exists", "import-astra --workload %s -o %s", test_dpath("astra1/data1.txt"), out);
    test_cli(&r, "import-astra --workload %s -s %s -o %s --force --comm-scale 0.5",
             test_dpath("astra1/model_data.txt"), test_dpath("cli_3d.json"), out);
    test_expect_ok(&r, "import hybrid");
    ck_assert_ptr_nonnull(strstr(r.err, "themis: note: HYBRID_MODEL_DATA: input-gradient"));
    ck_assert_msg(th_workload_load(out, &wl, &err) == TH_OK, "%s", err.msg);
    /* 8192 * 0.5 over dim 0; forward and IG over dims 1 and 2 */
    ck_assert_rel(wl->layers[0].ph[TH_PHASE_WG].coll.size, 4096);
    ck_assert_uint_eq(wl->layers[0].ph[TH_PHASE_WG].coll.mask, 1u);
    ck_assert_uint_eq(wl->layers[0].ph[TH_PHASE_FWD].coll.mask, 6u);
    th_workload_free(wl);
    test_cli_free(&r);
    test_bad("HYBRID_MODEL_DATA: its model-parallel dims depend on the system's dims",
             "import-astra --workload %s", test_dpath("astra1/model_data.txt"));
    test_bad("already a themis workload (JSON)", "import-astra --workload %s",
             test_dpath("wl_two_layer.json"));
    test_bad("option '--workload' needs a value", "import-astra -o %s --workload", out);
    test_bad("unexpected argument", "import-astra --workload %s extra",
             test_dpath("astra1/data1.txt"));
    test_bad("--compute-scale: expected a number > 0",
             "import-astra --workload %s "
             "--compute-scale -1",
             test_dpath("astra1/data1.txt"));
    test_rm_dir(dir);
}
END_TEST

START_TEST(cli_train_preset) {
    /* the reference check through the binary: layer 0's WG AR of 1 MiB (29294 ns, one chunk
     * from the system's run.chunks) issued at 5004: 34298; two passes 68596 */
    test_cli_out r;
    test_cli(&r, "train %s -s %s -f csv", test_dpath("astra1/data2_ar.txt"),
             test_dpath("astra1/sw4.json"));
    test_expect_quiet(&r, "train 1.0");
    test_csv c;
    test_csv_parse(&c, r.out);
    ck_assert_int_eq(c.nrows, 4); /* baseline, themis x fifo, scf */
    for (int i = 0; i < 4; i++) {
        ck_assert_rel(test_csv_d(&c, i, "total_us"), 34.298);
        ck_assert_rel(test_csv_d(&c, i, "compute_us"), 5);
        ck_assert_rel(test_csv_d(&c, i, "exposed_comm_us"), 29.298);
        /* one pass: no steady-state pass (the pass ends at 5004, before its All-Reduce) */
        ck_assert_str_eq(test_csv_s(&c, i, "iteration_us"), "");
        ck_assert_rel(test_csv_d(&c, i, "speedup"), 1);
    }
    ck_assert_str_eq(test_csv_s(&c, 3, "policy"), "themis");
    ck_assert_str_eq(test_csv_s(&c, 3, "intra"), "scf");
    test_csv_free(&c);
    test_cli_free(&r);
    /* two passes, one pair, -n over run.chunks (1 MiB in 1 chunk either way) */
    test_cli(&r, "train %s -s %s -f csv --passes 2 -p themis -q scf -n 1",
             test_dpath("astra1/data2_ar.txt"), test_dpath("astra1/sw4.json"));
    test_expect_quiet(&r, "train 1.0 two passes");
    test_csv_parse(&c, r.out);
    ck_assert_int_eq(c.nrows, 1);
    ck_assert_rel(test_csv_d(&c, 0, "total_us"), 68.596);
    ck_assert_rel(test_csv_d(&c, 0, "iteration_us"), 34.298); /* 39302 - 5004 */
    ck_assert_rel(test_csv_d(&c, 0, "passes"), 2);
    test_csv_free(&c);
    test_cli_free(&r);
    /* MICRO, two passes: both All-Reduces (29294 ns each, one chunk) are issued at tick 0 and
     * keep the one dim busy back to back, 2 * 29294 = 58588, + the update cycle: 58589. Every
     * pass ends at tick 0, so no pass is an iteration: iteration_us is empty (null in JSON) */
    char *mdir = test_tmp_dir();
    TEST_DIR_PATH(micro, mdir, "micro.txt");
    const char *mtext = "MICRO\n1\nallreduce -1 1 NONE 0 1 NONE 0 1 ALLREDUCE 1048576 1\n";
    test_spit(micro, mtext, strlen(mtext));
    test_cli(&r, "train %s -s %s -f csv --passes 2 -p baseline -q fifo", micro,
             test_dpath("astra1/sw4.json"));
    test_expect_quiet(&r, "train 1.0 micro");
    test_csv_parse(&c, r.out);
    ck_assert_rel(test_csv_d(&c, 0, "total_us"), 58.589);
    ck_assert_str_eq(test_csv_s(&c, 0, "iteration_us"), "");
    test_csv_free(&c);
    test_cli_free(&r);
    test_cli(&r, "train %s -s %s -f json --passes 2 -p baseline -q fifo", micro,
             test_dpath("astra1/sw4.json"));
    test_expect_quiet(&r, "train 1.0 micro json");
    ck_assert_ptr_nonnull(strstr(r.out, "\"iteration_us\":\tnull,"));
    ck_assert_ptr_nonnull(strstr(r.out, "\"pass_end_us\":\t[0, 0]"));
    test_cli_free(&r);
    test_rm_dir(mdir);
    /* JSON: the passes' ends */
    test_cli(&r, "train %s -s %s -f json --passes 2 -p baseline -q fifo",
             test_dpath("astra1/data2_ar.txt"), test_dpath("astra1/sw4.json"));
    test_expect_quiet(&r, "train 1.0 json");
    ck_assert_ptr_nonnull(strstr(r.out, "\"pass_end_us\":\t[5.004, 39.302]"));
    ck_assert_ptr_nonnull(strstr(r.out, "\"total_us\":\t68.596"));
    test_cli_free(&r);
    /* a recomputation from a checkpoint (preset_fwd_in_bckwd's workload): 97893 */
    test_cli(&r, "train %s -s %s -f csv -p baseline -q fifo", test_dpath("astra1/fib.txt"),
             test_dpath("astra1/sw4.json"));
    test_expect_quiet(&r, "train 1.0 fwd_in_bckwd");
    test_csv_parse(&c, r.out);
    ck_assert_rel(test_csv_d(&c, 0, "total_us"), 97.893);
    ck_assert_rel(test_csv_d(&c, 0, "compute_us"), 11);
    test_csv_free(&c);
    test_cli_free(&r);
    /* the table and JSON lines */
    test_cli(&r, "train %s -s %s -p baseline -q scf", test_dpath("astra1/data2_ar.txt"),
             test_dpath("astra1/sw4.json"));
    test_expect_quiet(&r, "train 1.0 table");
    ck_assert_ptr_nonnull(strstr(r.out, "data2_ar on a1-switch4 (4 NPUs): 2 layers, DATA, 1 "
                                        "passes, 1 chunks per collective, ASTRA-sim 1.0's state "
                                        "machine\n"));
    ck_assert_ptr_nonnull(strstr(r.out, "baseline   scf           34.298              5          "
                                        "29.298              -            1\n"));
    test_cli_free(&r);
    test_cli(&r, "train %s -s %s -p themis -f jsonl", test_dpath("astra1/data2_ar.txt"),
             test_dpath("astra1/sw4.json"));
    test_expect_quiet(&r, "train 1.0 jsonl");
    ck_assert_str_eq(r.out, "{\"workload\":\"data2_ar\",\"system\":\"a1-switch4\","
                            "\"policy\":\"themis\",\"intra\":\"fifo\",\"passes\":1,\"chunks\":1,"
                            "\"total_us\":34.298,"
                            "\"compute_us\":5,\"exposed_comm_us\":29.298,\"iteration_us\":null,"
                            "\"speedup\":1,\"collectives\":1,\"pass_end_us\":[5.004]}\n"
                            "{\"workload\":\"data2_ar\",\"system\":\"a1-switch4\","
                            "\"policy\":\"themis\",\"intra\":\"scf\",\"passes\":1,\"chunks\":1,"
                            "\"total_us\":34.298,"
                            "\"compute_us\":5,\"exposed_comm_us\":29.298,\"iteration_us\":null,"
                            "\"speedup\":1,\"collectives\":1,\"pass_end_us\":[5.004]}\n");
    test_cli_free(&r);
    /* the system's scheduling-policy orders DATA's weight-gradient ARs (1 MiB, 29294 ns):
     * AR2 issued at 43 runs 43-29337 while AR1 (55-65 + 0) and AR0 (87) wait. LIFO: AR0
     * 29337-58631, then AR1 58631-87925 and its update delay of 1000: 88925. FIFO: AR1
     * 29337-58631 (+ 1000), AR0 58631-87925: 87925. */
    test_cli(&r, "train %s -s %s -f csv -p baseline -q fifo", test_dpath("astra1/data3_ar.txt"),
             test_dpath("astra1/sw4.json"));
    test_expect_quiet(&r, "train 1.0 lifo");
    test_csv_parse(&c, r.out);
    ck_assert_rel(test_csv_d(&c, 0, "total_us"), 88.925);
    ck_assert_str_eq(test_csv_s(&c, 0, "iteration_us"), "");
    test_csv_free(&c);
    test_cli_free(&r);
    test_cli(&r, "train %s -s %s -f csv -p baseline -q fifo", test_dpath("astra1/data3_ar.txt"),
             test_dpath("astra1/sw4_fifo.json"));
    test_expect_quiet(&r, "train 1.0 fifo");
    test_csv_parse(&c, r.out);
    ck_assert_rel(test_csv_d(&c, 0, "total_us"), 87.925);
    test_csv_free(&c);
    test_cli_free(&r);
    /* errors */
    /* the timeline: F0 0-1000, F1 1001-2001, WG1 2002-3002, IG1 3003-4003, WG0 4004-5004,
     * then layer 0's AR 5004-34298 */
    char *dir = test_tmp_dir();
    TEST_DIR_PATH(tpath, dir, "t.csv");
    TEST_DIR_PATH(opath, dir, "o.csv");
    test_cli(&r, "train %s -s %s -p baseline -q fifo -f csv --trace %s -o %s",
             test_dpath("astra1/data2_ar.txt"), test_dpath("astra1/sw4.json"), tpath, opath);
    test_expect_quiet(&r, "train 1.0 trace");
    test_cli_free(&r);
    test_csv_read(&c, tpath);
    ck_assert_int_eq(c.nrows, 6);
    const char *kind[] = {"compute", "compute", "compute", "compute", "compute", "collective"};
    const char *layer[] = {"l0", "l1", "l1", "l1", "l0", "l0"};
    const char *phase[] = {"forward",    "forward",     "weight_grad",
                           "input_grad", "weight_grad", "weight_grad"};
    const double start[] = {0, 1.001, 2.002, 3.003, 4.004, 5.004};
    const double end[] = {1, 2.001, 3.002, 4.003, 5.004, 34.298};
    for (int i = 0; i < 6; i++) {
        ck_assert_str_eq(test_csv_s(&c, i, "policy"), "baseline");
        ck_assert_str_eq(test_csv_s(&c, i, "kind"), kind[i]);
        ck_assert_str_eq(test_csv_s(&c, i, "layer"), layer[i]);
        ck_assert_str_eq(test_csv_s(&c, i, "phase"), phase[i]);
        ck_assert_rel(test_csv_d(&c, i, "iteration"), 0);
        ck_assert_rel(test_csv_d(&c, i, "start_us"), start[i]);
        ck_assert_rel(test_csv_d(&c, i, "end_us"), end[i]);
    }
    test_csv_free(&c);
    test_rm_dir(dir);
    test_bad("policy roundrobin: ASTRA-sim 1.0's replay takes baseline or themis",
             "train %s -s %s -p roundrobin", test_dpath("astra1/data2_ar.txt"),
             test_dpath("astra1/sw4.json"));
    test_bad("has no run.chunks (preferred-dataset-splits): give -n N", "train %s -s %s",
             test_dpath("astra1/data2_ar.txt"), test_dpath("astra1/sw4_norun.json"));
    test_bad("tiny.txt:3: field 11 (weight-grad comm size): 8 bytes in 64 chunks",
             "train %s -s %s -n 64", test_dpath("astra1/tiny.txt"), test_dpath("astra1/sw4.json"));
}
END_TEST

Suite *astra1_workload_suite(void) {
    Suite *s = suite_create("astra1_workload");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, parse_fields);
    tcase_add_test(tc, detect);
    tcase_add_test(tc, workload_open);
    tcase_add_test(tc, parse_errors);
    tcase_add_test(tc, dims_and_split);
    tcase_add_test(tc, no_comm);
    tcase_add_test(tc, data_comm);
    tcase_add_test(tc, model_comm);
    tcase_add_test(tc, hybrid_comm);
    tcase_add_test(tc, transformer_comm);
    tcase_add_test(tc, dlrm_comm);
    tcase_add_test(tc, micro_comm);
    tcase_add_test(tc, replay_errors);
    tcase_add_test(tc, convert);
    tcase_add_test(tc, shipped);
    tcase_add_test(tc, preset_reference);
    tcase_add_test(tc, preset_same_tick);
    tcase_add_test(tc, preset_dlrm);
    tcase_add_test(tc, preset_transformer);
    tcase_add_test(tc, preset_enhanced_inference);
    tcase_add_test(tc, preset_customized);
    tcase_add_test(tc, preset_fwd_in_bckwd);
    tcase_add_test(tc, preset_hybrid);
    suite_add_tcase(s, tc);
    TCase *cli = tcase_create("cli");
    tcase_set_timeout(cli, 60);
    tcase_add_test(cli, cli_train_text);
    tcase_add_test(cli, cli_import_workload);
    tcase_add_test(cli, cli_train_preset);
    suite_add_tcase(s, cli);
    return s;
}

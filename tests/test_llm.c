/* The LLM workload (docs/LLM.md): its reader, parameter and FLOP counts, memory per NPU per
 * recomputation mode and sharding stage, the pipeline schedules' bubbles, the bytes of each
 * parallelism's collectives and the mapping of groups onto dims, every number derived by hand
 * in the comment next to it.
 *
 * The small model (tests/data/llm_model_small.json): L = 2 layers, h = 64, a = 4 heads (as
 * many key/value heads), f = 4h = 256, s = 128, V = 1000, 2 bytes per parameter and
 * activation. Per layer: attention 2h^2 + 2h*h = 16384 parameters, feed-forward 2hf = 32768,
 * two layer norms 4h = 256: 49408. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_themis.h"
#include "llm_internal.h"
#include "themis/llm.h"

/* An LLM workload from JSON written with ' quotes; its model file paths are tests/data's. */
static void parse(const char *json, th_llm_workload *w) {
    char *text = test_dq(json);
    th_error err;
    int rc = th_llm_parse(text, strlen(text), test_data("inline.json"), w, &err);
    ck_assert_msg(rc == TH_OK, "%s", err.msg);
    free(text);
}

/* The same, expecting an error that holds needle. */
static void parse_bad(const char *json, const char *needle) {
    char *text = test_dq(json);
    th_error err;
    th_llm_workload w;
    int rc = th_llm_parse(text, strlen(text), test_data("wl.json"), &w, &err);
    ck_assert_int_eq(rc, TH_EINPUT);
    ck_assert_msg(strstr(err.msg, needle), "'%s' not in: %s", needle, err.msg);
    free(text);
}

#define SMALL "'model': 'llm_model_small.json'"

START_TEST(llm_reader) {
    th_llm_workload w;
    th_error err;
    ck_assert_int_eq(th_llm_load(test_data("llm_small.json"), &w, &err), TH_OK);
    ck_assert_str_eq(w.name, "small-tp2-pp2-dp2");
    ck_assert_str_eq(w.model.name, "small");
    ck_assert_int_eq(w.model.layers, 2);
    ck_assert_rel(w.model.ffn, 256);     /* default 4h */
    ck_assert_rel(w.model.kv_heads, 4);  /* default: heads */
    ck_assert_rel(w.exec.grad_bytes, 2); /* default: param_bytes */
    ck_assert_rel(w.exec.optimizer_bytes, 12);
    ck_assert_rel(w.exec.bucket_bytes, 26214400);
    ck_assert_int_eq(w.exec.schedule, TH_LLM_1F1B);
    ck_assert_int_eq(w.exec.mapping[0], TH_LLM_TP);
    ck_assert_int_eq(w.exec.mapping[3], TH_LLM_DP);
    /* global_batch defaults to micro_batch * dp */
    parse("{'llm': {" SMALL ", 'dp': 4, 'micro_batch': 2}}", &w);
    ck_assert_int_eq(w.exec.global_batch, 8);
    const char *text = "{\"llm\": {}}";
    ck_assert(th_llm_detect(text, strlen(text)));
    text = "{\"layers\": [], \"name\": \"llm\"}";
    ck_assert(!th_llm_detect(text, strlen(text)));
}
END_TEST

START_TEST(llm_reader_errors) {
    parse_bad("{'llm': {" SMALL ", 'tp': 3}}", "llm.tp: 3 does not divide");
    parse_bad("{'llm': {" SMALL ", 'pp': 4}}", "llm.pp");
    parse_bad("{'llm': {" SMALL ", 'dp': 2, 'global_batch': 3}}", "llm.global_batch");
    parse_bad("{'llm': {" SMALL ", 'schedule': 'zb'}}", "llm.schedule");
    parse_bad("{'llm': {" SMALL ", 'virtual_stages': 2}}", "llm.virtual_stages");
    parse_bad("{'llm': {" SMALL ", 'ep': 2, 'dp': 2}}", "no experts");
    parse_bad("{'llm': {" SMALL ", 'tpp': 2}}", "did you mean");
    parse_bad("{'llm': {" SMALL ", 'mapping': ['tp', 'tp', 'pp', 'dp']}}", "listed twice");
    parse_bad("{'llm': {'model': 'nothere.json'}}", "llm.model");
    parse_bad("{'llm': {'model': {'layers': 2, 'hidden': 64, 'heads': 3, 'seq': 8, "
              "'vocab': 10}}}",
              "llm.model.heads");
    parse_bad("{'llm': {'model': {'layers': 2, 'hidden': 64, 'heads': 4, 'seq': 8}}}",
              "llm.model.vocab: missing");
    parse_bad("{'name': 'x'}", "llm: missing");
}
END_TEST

/* Parameters: L * 49408 + embedding V h = 64000 + final norm 2h = 128:
 * 98816 + 64000 + 128 = 162944.
 * Forward FLOPs of one sequence, per layer: projections 2s(2h^2 + 2h^2) = 2*128*16384 =
 * 4194304; scores and A.V 4 s^2 h = 4*16384*64 = 4194304; feed-forward 2s*2hf = 8388608;
 * 16777216 per layer, 33554432 for two; logits 2 s h V = 16384000: 49938432. */
START_TEST(llm_counts_dense) {
    th_llm_workload w;
    parse("{'llm': {" SMALL "}}", &w);
    ck_assert_rel(th_llm_params(&w.model), 162944);
    ck_assert_rel(th_llm_flops_fwd(&w.model), 49938432);
}
END_TEST

/* Grouped-query attention (2 key/value heads of h/a = 16) and a gated feed-forward of 128:
 * attention 2h^2 + 2h*32 = 8192 + 4096 = 12288, feed-forward 3*64*128 = 24576, norms 256:
 * 37120 per layer; 74240 + 64000 + 128 = 138368.
 * FLOPs per layer: 2*128*12288 = 3145728, 4194304, 2*128*24576 = 6291456: 13631488; two
 * layers 27262976 + logits 16384000 = 43646976. */
START_TEST(llm_counts_gqa_gated) {
    th_llm_workload w;
    parse("{'llm': {'model': {'layers': 2, 'hidden': 64, 'heads': 4, 'kv_heads': 2, 'ffn': 128, "
          "'gated_ffn': true, 'seq': 128, 'vocab': 1000}}}",
          &w);
    ck_assert_rel(th_llm_params(&w.model), 138368);
    ck_assert_rel(th_llm_flops_fwd(&w.model), 43646976);
}
END_TEST

/* Mixture of experts every 2nd layer (layer 1 of 2): 4 experts of 128, top 2. The expert
 * layer: attention 16384, norms 256, experts 4 * 2 * 64 * 128 = 65536, router 64 * 4 = 256:
 * 82432; with the dense layer 49408, embedding and norm: 195968.
 * Its FLOPs: 4194304 + 4194304 + 2s (top_k * 2 h f_e + router) = 256 * (32768 + 256) =
 * 8454144: 16842752; + 16777216 + 16384000 = 50003968. */
START_TEST(llm_counts_moe) {
    th_llm_workload w;
    parse("{'llm': {'model': {'layers': 2, 'hidden': 64, 'heads': 4, 'seq': 128, 'vocab': 1000, "
          "'moe': {'experts': 4, 'top_k': 2, 'expert_ffn': 128, 'every': 2}}}}",
          &w);
    ck_assert_rel(th_llm_params(&w.model), 195968);
    ck_assert_rel(th_llm_flops_fwd(&w.model), 50003968);
}
END_TEST

/* Memory of the small model at tp 2, pp 2, dp 2, micro-batch 1, global batch 8 (m = 4
 * micro-batches per pipeline). One layer per stage; per NPU: attention and norms
 * (16384 + 256) / 2 = 8320, feed-forward 32768 / 2 = 16384, embedding 64000 / 2 = 32000, final
 * norm 128 / 2 = 64: 56768 parameters. Weights and gradients 2 bytes each: 113536; Adam 12:
 * 681216.
 * Activations of a layer (Korthikanti et al. 2022), sbh = 128 * 64 = 8192:
 *   none:            sbh (10 + 24/t + 5as/(ht)) = 8192 (10 + 12 + 20) = 344064
 *   none + SP:       sbh (34/t + 5as/(ht))      = 8192 (17 + 20)      = 303104
 *   selective:       sbh (10 + 24/t)            = 8192 * 22           = 180224
 *   selective + SP:  sbh 34/t                   = 8192 * 17           = 139264
 *   full:            2 sbh = 16384; with SP / t = 8192
 * 1F1B holds min(m, p) = 2 micro-batches on the first stage. */
START_TEST(llm_memory_recompute) {
    static const struct {
        const char *keys;
        double act;
    } cases[] = {
        {"'recompute': 'none'", 2 * 344064},
        {"'recompute': 'none', 'sequence_parallel': true", 2 * 303104},
        {"'recompute': 'selective'", 2 * 180224},
        {"'recompute': 'selective', 'sequence_parallel': true", 2 * 139264},
        {"'recompute': 'full'", 2 * 16384},
        {"'recompute': 'full', 'sequence_parallel': true", 2 * 8192},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char json[512];
        snprintf(json, sizeof json,
                 "{'llm': {" SMALL ", 'tp': 2, 'pp': 2, 'dp': 2, 'global_batch': 8, %s}}",
                 cases[i].keys);
        th_llm_workload w;
        parse(json, &w);
        th_llm_mem m;
        th_llm_memory(&w.model, &w.exec, &m);
        ck_assert_rel(m.weights, 113536);
        ck_assert_rel(m.gradients, 113536);
        ck_assert_rel(m.optimizer, 681216);
        ck_assert_msg(fabs(m.activations - cases[i].act) < 1e-6, "%s: %.17g, expected %.17g",
                      cases[i].keys, m.activations, cases[i].act);
        ck_assert_rel(m.total, 113536 * 2 + 681216 + cases[i].act);
    }
}
END_TEST

/* ZeRO over dp = 2: optimizer states halved (681216 / 2 = 340608), then the gradients
 * (113536 / 2 = 56768), then the weights (56768). */
START_TEST(llm_memory_sharding) {
    static const char *const stage[] = {"none", "optimizer", "gradients", "weights"};
    static const double want[4][3] = {{113536, 113536, 681216},
                                      {113536, 113536, 340608},
                                      {113536, 56768, 340608},
                                      {56768, 56768, 340608}};
    for (int i = 0; i < 4; i++) {
        char json[512];
        snprintf(json, sizeof json,
                 "{'llm': {" SMALL ", 'tp': 2, 'pp': 2, 'dp': 2, 'global_batch': 8, "
                 "'sharding': '%s'}}",
                 stage[i]);
        th_llm_workload w;
        parse(json, &w);
        th_llm_mem m;
        th_llm_memory(&w.model, &w.exec, &m);
        ck_assert_rel(m.weights, want[i][0]);
        ck_assert_rel(m.gradients, want[i][1]);
        ck_assert_rel(m.optimizer, want[i][2]);
    }
}
END_TEST

/* Micro-batches in flight on the first stage: GPipe all m = 4 (4 * 344064 = 1376256);
 * interleaved with 4 layers, pp 2, v 2: p + (p - 1)/v = 2.5 micro-batches of the stage's 2
 * layers: 2.5 * 2 * 344064 = 1720320. */
START_TEST(llm_memory_schedules) {
    th_llm_workload w;
    th_llm_mem m;
    parse("{'llm': {" SMALL ", 'tp': 2, 'pp': 2, 'dp': 2, 'global_batch': 8, "
          "'schedule': 'gpipe'}}",
          &w);
    th_llm_memory(&w.model, &w.exec, &m);
    ck_assert_rel(m.activations, 1376256);
    parse("{'llm': {'model': {'layers': 4, 'hidden': 64, 'heads': 4, 'seq': 128, 'vocab': 1000}, "
          "'tp': 2, 'pp': 2, 'dp': 2, 'global_batch': 8, 'schedule': 'interleaved', "
          "'virtual_stages': 2}}",
          &w);
    th_llm_memory(&w.model, &w.exec, &m);
    ck_assert_rel(m.activations, 1720320);
}
END_TEST

/* A system's "npu": a path next to the system file, or an object; every field checked. */
START_TEST(llm_system_npu) {
    th_system sys;
    th_error err;
    ck_assert_int_eq(th_system_load(test_data("llm_sys_2d.json"), &sys, &err), TH_OK);
    ck_assert(sys.npu.present);
    ck_assert_str_eq(sys.npu.name, "test-npu");
    ck_assert_rel(sys.npu.matrix_tflops, 100);
    ck_assert_rel(sys.npu.memory_gib, 1);
    ck_assert_rel(sys.npu.vector_efficiency, 1);
    ck_assert_int_eq(sys.npu.neff, 0);
    ck_assert_int_eq(th_system_load(test_data("llm_sys_nonpu.json"), &sys, &err), TH_OK);
    ck_assert(!sys.npu.present);
    static const struct {
        const char *npu, *needle;
    } bad[] = {
        {"{'matrix_tflops': 1, 'vector_tflops': 1, 'memory_GBps': 1}", "npu.memory_gib: missing"},
        {"{'matrix_tflops': -1, 'vector_tflops': 1, 'memory_GBps': 1, 'memory_gib': 1}",
         "npu.matrix_tflops"},
        {"{'matrix_tflops': 1, 'vector_tflops': 1, 'memory_GBps': 1, 'memory_gib': 1, "
         "'matrix_efficiency': [[1e9, 0.5], [1e8, 0.6]]}",
         "npu.matrix_efficiency[1][0]"},
        {"{'matrix_tflops': 1, 'vector_tflops': 1, 'memory_GBps': 1, 'memory_gib': 1, "
         "'memory_efficiency': 2}",
         "npu.memory_efficiency"},
        {"{'matrix_tflop': 1}", "did you mean"},
        {"'nothere.json'", "npu: nothere.json"},
        {"3", "npu: expected an NPU object"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char json[512];
        snprintf(json, sizeof json,
                 "{'npu': %s, 'dims': [{'topology': 'ring', 'npus': 2, 'bw_GBps': 1, "
                 "'latency_ns': 1}]}",
                 bad[i].npu);
        char *text = test_dq(json);
        int rc = th_system_parse(text, strlen(text), "s.json", &sys, &err);
        ck_assert_int_eq(rc, TH_EINPUT);
        ck_assert_msg(strstr(err.msg, bad[i].needle), "'%s' not in: %s", bad[i].needle, err.msg);
        ck_assert_msg(!strncmp(err.msg, "s.json: ", 8), "%s", err.msg);
        free(text);
    }
}
END_TEST

/* The efficiency curve: log-linear in FLOPs between its points, clamped outside. With points
 * (1e9, 0.2) and (1e11, 0.6) at 100 TFLOP/s (1e5 FLOPs per ns): 1e8 FLOPs at 0.2 take
 * 1e8 / 2e4 = 5000 ns; 1e10 FLOPs (half way in log) at 0.4: 1e10 / 4e4 = 250000 ns; 1e12 at
 * 0.6: 1e12 / 6e4 ns. */
START_TEST(llm_efficiency_curve) {
    th_system sys;
    th_error err;
    char *text = test_dq("{'npu': {'matrix_tflops': 100, 'vector_tflops': 1, 'memory_GBps': 1, "
                         "'memory_gib': 1, 'matrix_efficiency': [[1e9, 0.2], [1e11, 0.6]]}, "
                         "'dims': [{'topology': 'ring', 'npus': 2, 'bw_GBps': 1, "
                         "'latency_ns': 1}]}");
    ck_assert_int_eq(th_system_parse(text, strlen(text), "s.json", &sys, &err), TH_OK);
    free(text);
    ck_assert_int_eq(sys.npu.neff, 2);
    ck_assert_rel(llm_matmul_ns(&sys.npu, 1e8), 5000);
    ck_assert_rel(llm_matmul_ns(&sys.npu, 1e10), 250000);
    ck_assert_rel(llm_matmul_ns(&sys.npu, 1e12), 1e12 / 6e4);
}
END_TEST

Suite *llm_suite(void) {
    Suite *s = suite_create("llm");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, llm_reader);
    tcase_add_test(tc, llm_reader_errors);
    tcase_add_test(tc, llm_counts_dense);
    tcase_add_test(tc, llm_counts_gqa_gated);
    tcase_add_test(tc, llm_counts_moe);
    tcase_add_test(tc, llm_memory_recompute);
    tcase_add_test(tc, llm_memory_sharding);
    tcase_add_test(tc, llm_memory_schedules);
    tcase_add_test(tc, llm_system_npu);
    tcase_add_test(tc, llm_efficiency_curve);
    suite_add_tcase(s, tc);
    return s;
}

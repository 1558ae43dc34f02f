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

/* Evaluates w on tests/data/llm_sys_2d.json (dim 0: a ring of 4, 100 GB/s, 10 ns; dim 1: a
 * switch of 4, 100 GB/s, 100 ns; the NPU: 100 matrix and 10 vector TFLOP/s, 1000 GB/s, every
 * efficiency 1) under baseline + FIFO. */
static void eval(const th_llm_workload *w, th_llm_result *r) {
    th_system sys;
    th_error err;
    ck_assert_int_eq(th_system_load(test_data("llm_sys_2d.json"), &sys, &err), TH_OK);
    th_llm_ctx *c = th_llm_ctx_create();
    int rc = th_llm_eval(c, &sys, &w->model, &w->exec, TH_POLICY_BASELINE, TH_INTRA_FIFO, r, &err);
    ck_assert_msg(rc == TH_OK, "%s", err.msg);
    th_llm_ctx_free(c);
}

/* The small model's layer forward at tp 1 on the test NPU (1e5 matrix and 1e4 vector FLOPs
 * per ns, 1000 bytes per ns), micro-batch 1:
 *   QKV 2*128*64*192 = 3145728 FLOPs: 31.45728 ns; scores and A.V 2 * 2097152: 41.94304;
 *   softmax and dropout over 4*128^2 = 65536 scores, memory-bound at 6A + 1 = 13 bytes each:
 *   851.968;
 *   output projection 1048576: 10.48576; feed-forward 2 * 4194304: 83.88608;
 *   activation 128*256 = 32768 elements * 4 bytes: 131.072; two norms 2 * 8192 * 4 bytes:
 *   65.536; two residual adds 2 * 8192 * 6 bytes: 98.304;
 * in all 1314.65216 ns. The last stage's logits: 16384000 FLOPs, 163.84 ns, and the loss over
 * 128*1000 elements of 8 bytes, 1024 ns: 1187.84 ns. */
#define LAYER_NS  1314.65216
#define LOGITS_NS 1187.84

/* pp 2, micro-batch 1, global batch 4: m = 4 micro-batches; each stage one layer, the last
 * with the logits: F = 2502.49216, B = 2F = 5004.98432 per micro-batch.
 * GPipe and 1F1B: bubble (p - 1)/(v m) of the ideal m(F + B): (F + B) = 7507.47648 ns.
 * The pipeline send: 128*64*2 = 16384 bytes on the ring piece, 10 + 163.84 = 173.84 ns, each
 * way per micro-batch and stage boundary: 2 (m v + p - 1) * 173.84 = 1738.4 ns.
 * The optimizer step: 113536 parameters per NPU (one layer 49408 and the embedding and norm
 * 64128), 2 + 2*12 + 2 = 28 bytes each at 1000 bytes per ns: 3179.008 ns.
 * Iteration: 4 * 7507.47648 + 7507.47648 + 1738.4 + 3179.008 = 42454.7904 ns.
 * With tp 2 (no SP) each NPU of the TP group sends half: 10 + 8192 / 100 = 91.92 ns, and
 * 2 * 5 * 91.92 = 919.2 ns. */
START_TEST(llm_pipeline_gpipe_1f1b) {
    static const char *const sched[] = {"gpipe", "1f1b"};
    for (int i = 0; i < 2; i++) {
        char json[256];
        snprintf(json, sizeof json,
                 "{'llm': {" SMALL ", 'pp': 2, 'global_batch': 4, 'schedule': '%s'}}", sched[i]);
        th_llm_workload w;
        parse(json, &w);
        th_llm_result r;
        eval(&w, &r);
        double F = LAYER_NS + LOGITS_NS;
        ck_assert_rel(r.microbatches, 4);
        ck_assert_rel(r.b.forward, 4 * F);
        ck_assert_rel(r.b.backward, 8 * F);
        ck_assert_rel(r.b.recompute, 0);
        ck_assert_rel(r.b.tp_exposed, 0);
        ck_assert_rel(r.b.bubble, 7507.47648);
        ck_assert_rel(r.b.pp_exposed, 1738.4);
        ck_assert_rel(r.b.dp_exposed, 0);
        ck_assert_rel(r.b.optimizer, 3179.008);
        ck_assert_rel(r.iteration, 42454.7904);
        /* MFU: 3 * 4 sequences * 49938432 FLOPs over 2 NPUs at 1e5 FLOPs per ns */
        ck_assert_rel(r.mfu, 3 * 4 * 49938432.0 / (42454.7904 * 2 * 1e5));
        ck_assert_rel(r.tflops_per_npu, 3 * 4 * 49938432.0 / (42454.7904 * 2) / 1e3);
    }
    th_llm_workload w;
    parse("{'llm': {" SMALL ", 'tp': 2, 'pp': 2, 'global_batch': 4}}", &w);
    th_llm_result r;
    eval(&w, &r);
    ck_assert_rel(r.b.pp_exposed, 919.2);
}
END_TEST

/* Interleaved, 4 layers on pp 2 with v 2: each device holds 2 layers, F = 2 * 1314.65216 +
 * 1187.84 = 3817.14432, per micro-batch 3F = 11451.43296; bubble (p - 1)/v of it =
 * 5725.71648 ns; sends 2 (m v + p - 1) * 173.84 = 18 * 173.84 = 3129.12 ns. */
START_TEST(llm_pipeline_interleaved) {
    th_llm_workload w;
    parse("{'llm': {'model': {'layers': 4, 'hidden': 64, 'heads': 4, 'seq': 128, 'vocab': 1000}, "
          "'pp': 2, 'global_batch': 4, 'schedule': 'interleaved', 'virtual_stages': 2}}",
          &w);
    th_llm_result r;
    eval(&w, &r);
    ck_assert_rel(r.b.forward, 4 * (2 * LAYER_NS + LOGITS_NS));
    ck_assert_rel(r.b.bubble, 5725.71648);
    ck_assert_rel(r.b.pp_exposed, 3129.12);
}
END_TEST

/* Recomputation: full redoes each layer's forward (1 layer per micro-batch here, 4 of them);
 * selective redoes the attention core: scores and A.V 41.94304 + softmax and dropout 851.968
 * = 893.91104 ns per layer. */
START_TEST(llm_recompute_time) {
    th_llm_workload w;
    th_llm_result r;
    parse("{'llm': {" SMALL ", 'pp': 2, 'global_batch': 4, 'recompute': 'full'}}", &w);
    eval(&w, &r);
    ck_assert_rel(r.b.recompute, 4 * LAYER_NS);
    parse("{'llm': {" SMALL ", 'pp': 2, 'global_batch': 4, 'recompute': 'selective'}}", &w);
    eval(&w, &r);
    ck_assert_rel(r.b.recompute, 4 * 893.91104);
}
END_TEST

/* TP 2 on a piece of 2 of the ring (L = 1 hop): an All-Reduce of a micro-batch's activations
 * (128*64*2 = 16384 bytes) in 1 chunk is a Reduce-Scatter and an All-Gather stage of
 * 10 + 16384 / 2 / 100 = 91.92 ns each: 183.84 ns. Two per layer forward, two backward, over 2
 * layers: 8 * 183.84 = 1470.72 ns. With sequence parallelism each All-Reduce is an
 * All-Gather and a Reduce-Scatter of the same bytes, the same time, and the backward pass
 * gathers the two multiplies' inputs again: 2 more All-Gathers of 91.92 ns per layer,
 * 1470.72 + 2 * 2 * 91.92 = 1838.4 ns. Full recomputation repeats the forward's:
 * 12 * 183.84 = 2206.08 ns. */
START_TEST(llm_tp_bytes) {
    static const struct {
        const char *keys;
        double ns;
    } cases[] = {{"", 1470.72},
                 {", 'sequence_parallel': true", 1838.4},
                 {", 'recompute': 'full'", 2206.08},
                 {", 'recompute': 'selective', 'sequence_parallel': true", 1838.4}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char json[256];
        snprintf(json, sizeof json, "{'llm': {" SMALL ", 'tp': 2, 'chunks': 1%s}}", cases[i].keys);
        th_llm_workload w;
        parse(json, &w);
        th_llm_result r;
        eval(&w, &r);
        ck_assert_rel(r.b.tp_exposed, cases[i].ns);
    }
}
END_TEST

/* DP 2 on a piece of the ring: the gradients of all 162944 parameters, 2 bytes each: 325888
 * bytes. One bucket after the backward pass: an All-Reduce of 2 (10 + 325888 / 2 / 100) =
 * 3278.88 ns, all exposed. Sharded (the distributed optimizer): a Reduce-Scatter of 1639.44
 * ns and, after the step, an All-Gather of the 2-byte weights, 1639.44 ns: the same.
 * Two buckets of 162944 bytes overlapped with the backward pass (W = 2 * (2 * 1314.65216 +
 * 1187.84) = 7634.28864 ns): the first, issued at W/2, ends 2 (10 + 814.72) = 1649.44 ns
 * later, before W; the second runs from W: 1649.44 ns exposed. */
START_TEST(llm_dp_bytes) {
    static const struct {
        const char *keys;
        double ns;
    } cases[] = {{"'dp_overlap': false, 'bucket_bytes': 1e9", 3278.88},
                 {"'dp_overlap': false, 'bucket_bytes': 1e9, 'sharding': 'optimizer'", 3278.88},
                 {"'dp_overlap': true, 'bucket_bytes': 162944", 1649.44}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char json[256];
        snprintf(json, sizeof json, "{'llm': {" SMALL ", 'dp': 2, 'chunks': 1, %s}}",
                 cases[i].keys);
        th_llm_workload w;
        parse(json, &w);
        th_llm_result r;
        eval(&w, &r);
        ck_assert_rel(r.b.dp_exposed, cases[i].ns);
    }
}
END_TEST

/* EP 2 (of dp 2) on a piece of the ring: the expert layer (1 of 2) sends each token to its
 * top 2 experts, 128 * 2 * 64 * 2 = 32768 bytes, in an All-to-All before and after it, each
 * way: 4 All-to-Alls of one stage (SPEC §3) per micro-batch, m = 1. */
START_TEST(llm_ep_bytes) {
    th_llm_workload w;
    parse("{'llm': {'model': {'layers': 2, 'hidden': 64, 'heads': 4, 'seq': 128, 'vocab': 1000, "
          "'moe': {'experts': 4, 'top_k': 2, 'expert_ffn': 128, 'every': 2}}, 'dp': 2, 'ep': 2, "
          "'chunks': 1}}",
          &w);
    th_llm_result r;
    eval(&w, &r);
    th_dim d = {"ring", TH_TOPO_RING, TH_ALG_RING, 2, 100, 1, 100, 10};
    ck_assert_rel(r.b.ep_exposed, 4 * th_cost_time(&d, 0, TH_OP_A2A, 32768));
}
END_TEST

/* The groups fill the dims innermost first: tp 2 and pp 2 share the ring of 4, dp 4 takes
 * the switch. A group larger than what is left of a dim and not a multiple of it is an error
 * naming it and the dim; so is a workload larger than the system. */
START_TEST(llm_mapping) {
    th_system sys;
    th_error err;
    ck_assert_int_eq(th_system_load(test_data("llm_sys_2d.json"), &sys, &err), TH_OK);
    th_llm_workload w;
    parse("{'llm': {" SMALL ", 'tp': 2, 'pp': 2, 'dp': 4, 'global_batch': 4}}", &w);
    th_llm_map m;
    ck_assert_int_eq(th_llm_map_groups(&sys, &w.exec, &m, &err), TH_OK);
    ck_assert_int_eq(m.n[TH_LLM_TP], 1);
    ck_assert_int_eq(m.dim[TH_LLM_TP][0], 0);
    ck_assert_int_eq(m.npus[TH_LLM_TP][0], 2);
    ck_assert_int_eq(m.dim[TH_LLM_PP][0], 0);
    ck_assert_int_eq(m.n[TH_LLM_DP], 1);
    ck_assert_int_eq(m.dim[TH_LLM_DP][0], 1);
    ck_assert_int_eq(m.npus[TH_LLM_DP][0], 4);
    ck_assert_int_eq(m.n[TH_LLM_EP], 0);
    /* dp 8 first: the ring's 4 and 2 of the switch */
    parse("{'llm': {" SMALL ", 'dp': 8, 'mapping': ['dp', 'tp', 'ep', 'pp']}}", &w);
    ck_assert_int_eq(th_llm_map_groups(&sys, &w.exec, &m, &err), TH_OK);
    ck_assert_int_eq(m.n[TH_LLM_DP], 2);
    ck_assert_int_eq(m.npus[TH_LLM_DP][1], 2);
    /* pp 3 takes 3 of the ring's 4 (the fourth idles); dp 4 the switch */
    parse("{'llm': {'model': {'layers': 3, 'hidden': 48, 'heads': 3, 'seq': 8, 'vocab': 10}, "
          "'pp': 3, 'dp': 4}}",
          &w);
    ck_assert_int_eq(th_llm_map_groups(&sys, &w.exec, &m, &err), TH_OK);
    ck_assert_int_eq(m.npus[TH_LLM_PP][0], 3);
    ck_assert_int_eq(m.dim[TH_LLM_DP][0], 1);
    ck_assert_int_eq(m.npus[TH_LLM_DP][0], 4);
    /* tp 6: more than the ring's 4, and not a multiple of them */
    parse("{'llm': {'model': {'layers': 2, 'hidden': 48, 'heads': 6, 'seq': 8, 'vocab': 10}, "
          "'tp': 6}}",
          &w);
    ck_assert_int_eq(th_llm_map_groups(&sys, &w.exec, &m, &err), TH_EINPUT);
    ck_assert_msg(strstr(err.msg, "group tp (6 NPUs") && strstr(err.msg, "dim 0 (\"ring\""), "%s",
                  err.msg);
    parse("{'llm': {" SMALL ", 'dp': 32}}", &w);
    ck_assert_int_eq(th_llm_map_groups(&sys, &w.exec, &m, &err), TH_EINPUT);
    ck_assert_msg(strstr(err.msg, "32 NPUs, but system \"llm-2d\" has 16"), "%s", err.msg);
    /* no NPU in the system */
    ck_assert_int_eq(th_system_load(test_data("llm_sys_nonpu.json"), &sys, &err), TH_OK);
    th_llm_ctx *c = th_llm_ctx_create();
    th_llm_result r;
    ck_assert_int_eq(
        th_llm_eval(c, &sys, &w.model, &w.exec, TH_POLICY_BASELINE, TH_INTRA_FIFO, &r, &err),
        TH_EINPUT);
    ck_assert_msg(strstr(err.msg, "npu: missing"), "%s", err.msg);
    th_llm_ctx_free(c);
}
END_TEST

/* Data parallelism over both dims (a ring of 4 inside a switch of 4, both 100 GB/s), buckets
 * overlapped with the backward pass: the baseline reduces each chunk on the ring first, whole
 * (2 S 3/4 / 100 per byte there, four times the switch's share); Themis balances the chunks'
 * orders over the two dims; the iteration shows it. Every part but dp_exposed is the same. */
START_TEST(llm_themis_beats_baseline) {
    th_llm_workload w;
    th_error err;
    ck_assert_int_eq(th_llm_load(test_data("llm_dp16.json"), &w, &err), TH_OK);
    th_system sys;
    ck_assert_int_eq(th_system_load(test_data("llm_sys_2d.json"), &sys, &err), TH_OK);
    th_llm_ctx *c = th_llm_ctx_create();
    th_llm_result base, themis, ideal;
    ck_assert_int_eq(
        th_llm_eval(c, &sys, &w.model, &w.exec, TH_POLICY_BASELINE, TH_INTRA_FIFO, &base, &err),
        TH_OK);
    ck_assert_int_eq(
        th_llm_eval(c, &sys, &w.model, &w.exec, TH_POLICY_THEMIS, TH_INTRA_SCF, &themis, &err),
        TH_OK);
    ck_assert_int_eq(
        th_llm_eval(c, &sys, &w.model, &w.exec, TH_POLICY_IDEAL, TH_INTRA_FIFO, &ideal, &err),
        TH_OK);
    ck_assert_msg(themis.iteration < 0.95 * base.iteration, "themis %g, baseline %g",
                  themis.iteration, base.iteration);
    ck_assert(ideal.iteration <= themis.iteration);
    ck_assert_rel(themis.b.forward, base.b.forward);
    ck_assert_rel(themis.iteration - themis.b.dp_exposed, base.iteration - base.b.dp_exposed);
    /* the cache answers the same evaluation with the same numbers */
    th_llm_result again;
    ck_assert_int_eq(
        th_llm_eval(c, &sys, &w.model, &w.exec, TH_POLICY_THEMIS, TH_INTRA_SCF, &again, &err),
        TH_OK);
    ck_assert(again.iteration == themis.iteration);
    /* 39 buckets of 4 MiB (83118080 parameters, 2 bytes each): the fitted queue is within 1%
     * of the emulator's own run of every bucket, for either policy */
    th_llm_result exact;
    llm_ctx_exact(c, 1000);
    ck_assert_int_eq(
        th_llm_eval(c, &sys, &w.model, &w.exec, TH_POLICY_THEMIS, TH_INTRA_SCF, &exact, &err),
        TH_OK);
    ck_assert(fabs(exact.b.dp_exposed - themis.b.dp_exposed) < 0.01 * exact.b.dp_exposed);
    ck_assert(exact.iteration != themis.iteration); /* a different way, not the cache */
    ck_assert_int_eq(
        th_llm_eval(c, &sys, &w.model, &w.exec, TH_POLICY_BASELINE, TH_INTRA_FIFO, &exact, &err),
        TH_OK);
    ck_assert(fabs(exact.b.dp_exposed - base.b.dp_exposed) < 0.01 * exact.b.dp_exposed);
    th_llm_ctx_free(c);
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
    tcase_add_test(tc, llm_pipeline_gpipe_1f1b);
    tcase_add_test(tc, llm_pipeline_interleaved);
    tcase_add_test(tc, llm_recompute_time);
    tcase_add_test(tc, llm_tp_bytes);
    tcase_add_test(tc, llm_dp_bytes);
    tcase_add_test(tc, llm_ep_bytes);
    tcase_add_test(tc, llm_mapping);
    tcase_add_test(tc, llm_themis_beats_baseline);
    suite_add_tcase(s, tc);
    return s;
}

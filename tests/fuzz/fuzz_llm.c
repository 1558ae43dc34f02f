/* Fuzz target: LLM workloads (th_llm_parse), then their memory and one iteration on the
 * default system with an NPU: the parts add up to the iteration, the memory's to its total. */
#include <math.h>
#include <stdlib.h>

#include "fuzz.h"
#include "themis/llm.h"

int th_fuzz_llm(const uint8_t *data, size_t size) {
    char *text = fuzz_text(data, size);
    th_llm_workload w;
    th_error err = {0};
    int rc = th_llm_parse(text, size, "fuzz.json", &w, &err);
    if (rc != TH_OK) {
        fuzz_check_error(rc, err.msg, "fuzz.json");
    } else {
        th_llm_mem m;
        th_llm_memory(&w.model, &w.exec, &m);
        FUZZ_CHECK(m.weights >= 0 && m.gradients >= 0 && m.optimizer >= 0 && m.activations >= 0);
        FUZZ_CHECK(m.total == m.weights + m.gradients + m.optimizer + m.activations);
        th_system sys;
        th_system_default(&sys);
        sys.npu = (th_npu){.present = 1,
                           .name = "fuzz",
                           .matrix_tflops = 100,
                           .vector_tflops = 10,
                           .memory_GBps = 1000,
                           .memory_gib = 80,
                           .vector_efficiency = 1,
                           .memory_efficiency = 1};
        th_llm_ctx *c = th_llm_ctx_create();
        FUZZ_CHECK(c != NULL);
        th_llm_result r;
        rc = th_llm_eval(c, &sys, &w.model, &w.exec, TH_POLICY_THEMIS, TH_INTRA_SCF, &r, &err);
        if (rc != TH_OK) {
            fuzz_check_error(rc, err.msg, NULL);
        } else {
            const th_llm_breakdown *b = &r.b;
            double sum = b->forward + b->backward + b->recompute + b->tp_exposed + b->ep_exposed +
                         b->bubble + b->pp_exposed + b->dp_exposed + b->optimizer;
            FUZZ_CHECK(r.iteration > 0);
            FUZZ_CHECK(fabs(sum - r.iteration) <= 1e-9 * r.iteration || !isfinite(r.iteration));
        }
        th_llm_ctx_free(c);
    }
    free(text);
    return 0;
}

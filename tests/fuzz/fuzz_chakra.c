/* Fuzz target: the Chakra execution trace reader (th_ck_parse: the length-delimited protobuf
 * messages, the attributes, the graph's checks), then, for small graphs, the replay on the
 * default system, and with memory nodes on a memory per NPU and on a pool, and the astra-sim
 * preset's replay NPU by NPU on a small system of its own. */
#include <stdlib.h>
#include <string.h>

#include "../../src/chakra/chakra.h"
#include "../../src/chakra/chakra_mem.h"
#include "../../src/model.h"
#include "fuzz.h"

int th_fuzz_chakra(const uint8_t *data, size_t size) {
    th_ck_trace *tr = NULL;
    th_error err = {0};
    int rc = th_ck_from_bytes((const char *)data, size, "fuzz.0.et", &tr, &err);
    if (rc != TH_OK) {
        fuzz_check_error(rc, err.msg, "fuzz.0.et");
        FUZZ_CHECK(tr == NULL);
        return 0;
    }
    const th_ck_graph *g = &tr->g;
    FUZZ_CHECK(tr->ranks == 1 && g->n >= 0);
    for (int32_t i = 0; i < g->n; i++) { /* sorted by id, dependencies inside the graph */
        FUZZ_CHECK(i == 0 || g->nodes[i - 1].id < g->nodes[i].id);
        for (uint32_t k = 0; k < g->nodes[i].ndeps; k++)
            FUZZ_CHECK(g->deps[g->nodes[i].dep0 + k] >= 0 && g->deps[g->nodes[i].dep0 + k] < g->n);
    }
    if (g->n <= 64) { /* the replay's work grows with the graph */
        th_system sys;
        th_system_default(&sys);
        th_ck_opts o = {0};
        o.policy = TH_POLICY_THEMIS, o.intra = TH_INTRA_SCF, o.chunks = 4;
        th_ck_result r;
        rc = th_ck_replay(&sys, tr, &o, NULL, NULL, &r, &err);
        if (rc != TH_OK) {
            fuzz_check_error(rc, err.msg, NULL);
        } else {
            FUZZ_CHECK(r.finish >= r.compute && r.compute >= 0);
            FUZZ_CHECK(r.exposed == r.finish - r.compute);
        }
        /* memory nodes on a memory per NPU, then on a pool (every NPU replayed) */
        static const char *const mems[] = {
            "{\"memory-type\": \"PER_NPU_MEMORY_EXPANSION\", \"remote-mem-bw\": 7}",
            "{\"memory-type\": \"MEMORY_POOL\", \"remote-mem-latency\": 10, "
            "\"remote-mem-bw\": 50}"};
        for (int k = 0; k < 2 && th_ck_mem_nodes(g); k++) {
            th_ck_mem m;
            FUZZ_CHECK(th_ck_mem_parse(mems[k], strlen(mems[k]), "mem.json", &m, &err) == TH_OK);
            o.mem = &m;
            rc = th_ck_replay(&sys, tr, &o, NULL, NULL, &r, &err);
            if (rc != TH_OK)
                fuzz_check_error(rc, err.msg, NULL);
            else
                FUZZ_CHECK(r.finish >= r.compute && r.exposed == r.finish - r.compute);
        }
    }
    if (g->n <= 16) { /* NPU by NPU: every message of every NPU */
        static const char *const astra =
            "{\"name\": \"a\", \"model\": \"astra-sim\", \"endpoint_ns\": 10, "
            "\"local_mem_GBps\": 1600, \"dims\": [{\"topology\": \"ring\", \"npus\": 3, "
            "\"bw_GBps\": 50, \"latency_ns\": 500, \"algorithm\": \"direct\"}, "
            "{\"topology\": \"switch\", \"npus\": 2, \"bw_GBps\": 25, \"latency_ns\": 100, "
            "\"algorithm\": \"rhd\"}]}";
        th_system sys;
        FUZZ_CHECK(th_system_parse(astra, strlen(astra), "a.json", &sys, &err) == TH_OK);
        th_ck_opts o = {0};
        o.policy = TH_POLICY_THEMIS, o.intra = TH_INTRA_SCF, o.chunks = 2;
        th_ck_result r;
        int handled = -1;
        rc = th_model_of(&sys)->graph->npus(&sys, tr, &o, NULL, NULL, &r, &handled, &err);
        FUZZ_CHECK(handled >= 0 && handled <= 2);
        if (rc != TH_OK)
            fuzz_check_error(rc, err.msg, rc == TH_EINPUT ? "fuzz.0.et" : NULL);
        else if (handled)
            FUZZ_CHECK(r.finish >= r.compute && r.compute >= 0 &&
                       r.exposed == r.finish - r.compute);
    }
    th_ck_trace_free(tr);
    return 0;
}

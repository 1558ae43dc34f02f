/* Fuzz target: the Chakra execution trace reader (th_ck_parse: the length-delimited protobuf
 * messages, the attributes, the graph's checks), then, for small graphs, the replay on the
 * default system, and with memory nodes on a memory per NPU and on a pool, and the astra-sim
 * preset's replay NPU by NPU on a small system of its own, as one file and as one file per NPU
 * in two classes with sends, receives and memory nodes. */
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
        /* the same graph as 6 rank files in two classes (even and odd ranks), each rank's
         * sends and receives to its own peers (1 to 5 places on, from the node's peer), its
         * memory nodes on a memory per NPU: every NPU with its own peers */
        int32_t np = 0, cls[6] = {0, 1, 0, 1, 0, 1}, first[2] = {0, 1}, graph[2] = {0, 0};
        for (int32_t i = 0; i < g->n; i++)
            np += g->nodes[i].kind == TH_CK_SEND || g->nodes[i].kind == TH_CK_RECV;
        int32_t peer[6 * 16], none[1] = {0};
        size_t off[7];
        for (int k = 0, j = 0; k < 6; k++) {
            off[k] = (size_t)j;
            for (int32_t i = 0; i < g->n; i++)
                if (g->nodes[i].kind == TH_CK_SEND || g->nodes[i].kind == TH_CK_RECV)
                    peer[j++] = (k + 1 + (int32_t)((uint32_t)g->nodes[i].peer % 5u)) % 6;
            off[k + 1] = (size_t)j;
        }
        th_ck_trace six = *tr;
        six.ranks = 6, six.nclasses = 2, six.class_of = cls, six.first = first;
        six.graph_of = graph, six.peer = none, six.peer_off = off;
        six.rank_peer = np ? peer : NULL, six.rank_peer_off = off;
        th_ck_mem m;
        static const char per_npu[] = "{\"memory-type\": \"PER_NPU_MEMORY_EXPANSION\", "
                                      "\"remote-mem-latency\": 5, \"remote-mem-bw\": 3}";
        FUZZ_CHECK(th_ck_mem_parse(per_npu, strlen(per_npu), "mem.json", &m, &err) == TH_OK);
        o.mem = &m, o.policy = TH_POLICY_BASELINE;
        handled = -1;
        rc = th_model_of(&sys)->graph->npus(&sys, &six, &o, NULL, NULL, &r, &handled, &err);
        FUZZ_CHECK(handled >= 0 && handled <= 2);
        if (rc != TH_OK)
            fuzz_check_error(rc, err.msg, NULL);
        else if (handled)
            FUZZ_CHECK(r.classes == 2 && r.finish >= r.class_end[0] && r.finish >= r.class_end[1] &&
                       r.exposed == r.finish - r.compute);
    }
    th_ck_trace_free(tr);
    return 0;
}

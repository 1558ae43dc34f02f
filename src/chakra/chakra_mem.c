/* ASTRA-sim 2.x's remote memory configuration (its --remote-memory-configuration JSON) read
 * for a Chakra trace's memory nodes, the time of one access, and the checks of a graph's
 * memory nodes against it (docs/CHAKRA.md, Memory nodes). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../json.h"
#include "chakra_mem.h"

const char *const th_ck_mem_type_names[] = {"NO_MEMORY_EXPANSION", "PER_NODE_MEMORY_EXPANSION",
                                            "PER_NPU_MEMORY_EXPANSION", "MEMORY_POOL", NULL};

/* Optional whole number obj[key] in lo..2^53 into *out (ASTRA-sim reads each into a uint64). */
static int whole(const cJSON *obj, const char *key, double lo, double *out, const char *src,
                 th_error *err) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!v) return TH_OK;
    if (!cJSON_IsNumber(v) || v->valuedouble != floor(v->valuedouble) || v->valuedouble < lo ||
        v->valuedouble > 9007199254740992.0) {
        char what[64];
        snprintf(what, sizeof what, "a whole number >= %.17g", lo);
        return th_json_bad(err, src, key, what, v);
    }
    *out = v->valuedouble;
    return TH_OK;
}

int th_ck_mem_parse(const char *text, size_t len, const char *src, th_ck_mem *m, th_error *err) {
    static const char *const keys[] = {"memory-type", "remote-mem-latency", "remote-mem-bw",
                                       "num-nodes",   "num-npus-per-node",  NULL};
    memset(m, 0, sizeof *m);
    snprintf(m->src, sizeof m->src, "%s", src);
    cJSON *root;
    if (th_json_parse(text, len, src, &root, err)) return err->code;
    int rc = TH_OK, type = -1;
    double nodes = 0, per = 0;
    if (!cJSON_IsObject(root))
        rc = th_json_bad(err, src, "(root)", "an object (ASTRA-sim's remote memory configuration)",
                         root);
    if (rc == TH_OK) rc = th_json_check_keys(root, keys, src, "", err);
    if (rc == TH_OK && !cJSON_GetObjectItemCaseSensitive(root, "memory-type"))
        rc = th_error_set(err, TH_EINPUT,
                          "%s: memory-type: missing (one of NO_MEMORY_EXPANSION, "
                          "PER_NPU_MEMORY_EXPANSION, PER_NODE_MEMORY_EXPANSION, MEMORY_POOL; "
                          "ASTRA-sim leaves it unset)",
                          src);
    if (rc == TH_OK)
        rc = th_json_enum(root, "memory-type", th_ck_mem_type_names, &type, src, "", err);
    if (rc == TH_OK) rc = whole(root, "remote-mem-latency", 0, &m->latency, src, err);
    if (rc == TH_OK) rc = whole(root, "remote-mem-bw", 0, &m->bw, src, err);
    if (rc == TH_OK) rc = whole(root, "num-nodes", 0, &nodes, src, err);
    if (rc == TH_OK) rc = whole(root, "num-npus-per-node", 0, &per, src, err);
    if (rc == TH_OK) {
        m->type = (th_ck_mem_type)type;
        m->nodes = (int64_t)nodes, m->npus_per_node = (int64_t)per;
    }
    /* a memory that expands divides by its bandwidth, and a node memory by its NPUs per node */
    if (rc == TH_OK && m->type != TH_CK_MEM_NONE && m->bw <= 0)
        rc = th_error_set(err, TH_EINPUT,
                          "%s: remote-mem-bw: %s, expected a whole number of GB/s > 0 for %s "
                          "(ASTRA-sim divides by it)",
                          src,
                          cJSON_GetObjectItemCaseSensitive(root, "remote-mem-bw") ? "0" : "missing",
                          th_ck_mem_type_names[m->type]);
    if (rc == TH_OK && m->type == TH_CK_MEM_PER_NODE && (m->nodes <= 0 || m->npus_per_node <= 0))
        rc = th_error_set(err, TH_EINPUT,
                          "%s: %s: %s, expected a whole number > 0 for PER_NODE_MEMORY_EXPANSION",
                          src, m->nodes <= 0 ? "num-nodes" : "num-npus-per-node",
                          cJSON_GetObjectItemCaseSensitive(
                              root, m->nodes <= 0 ? "num-nodes" : "num-npus-per-node")
                              ? "0"
                              : "missing");
    cJSON_Delete(root);
    return rc;
}

double th_ck_mem_ns(const th_ck_mem *m, double bytes) {
    return m->latency + floor(bytes / m->bw);
}

int th_ck_mem_check(const th_ck_mem *m, const th_ck_graph *g, const char *src, th_error *err) {
    for (int32_t i = 0; i < g->n; i++) {
        const th_ck_node *x = &g->nodes[i];
        if (x->kind != TH_CK_MEM) continue;
        unsigned long long id = (unsigned long long)x->id;
        if (!m)
            return th_error_set(err, TH_EINPUT,
                                "%s: node %llu: type: %s: a memory node needs a remote memory "
                                "(--remote-memory FILE, ASTRA-sim's remote memory configuration)",
                                src, id, th_ck_type_name(x->type));
        if (m->type == TH_CK_MEM_NONE)
            return th_error_set(err, TH_EINPUT,
                                "%s: node %llu: type: %s: %s: memory-type NO_MEMORY_EXPANSION has "
                                "no remote memory (ASTRA-sim 2.x stops on a memory node)",
                                src, id, th_ck_type_name(x->type), m->src);
        if (x->tensor < 0)
            return th_error_set(err, TH_EINPUT,
                                "%s: node %llu: attr tensor_size: missing (the bytes a memory node "
                                "moves; ASTRA-sim 2.x stops without it)",
                                src, id);
    }
    return TH_OK;
}

int32_t th_ck_mem_nodes(const th_ck_graph *g) {
    int32_t k = 0;
    for (int32_t i = 0; i < g->n; i++)
        k += g->nodes[i].kind == TH_CK_MEM;
    return k;
}

int th_ck_mem_at_start(const th_ck_mem *m, const th_ck_node *x, const char *src, th_error *err) {
    if (th_ck_mem_ns(m, x->tensor) > 0) return TH_OK;
    return th_error_set(err, TH_EINPUT,
                        "%s: node %llu: attr tensor_size: %.17g bytes at remote-mem-latency %.17g "
                        "and remote-mem-bw %.17g (%s) take 0 ns from time 0: ASTRA-sim 2.x's event "
                        "queue stops on an event at the instant it starts (an assertion)",
                        src, (unsigned long long)x->id, x->tensor, m->latency, m->bw, m->src);
}

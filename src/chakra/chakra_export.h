/* Chakra execution traces written from a themis workload: the graph of one NPU's iteration(s)
 * (compute and collective nodes with their dependencies, the same on every NPU) and the writer
 * of its files, one per NPU, as ASTRA-sim 2.x reads them (docs/CHAKRA.md, Writing traces). */
#ifndef THEMIS_CHAKRA_EXPORT_H
#define THEMIS_CHAKRA_EXPORT_H

#include <stdint.h>
#include <stdio.h>

#include "themis/buf.h"
#include "themis/collective.h"
#include "themis/llm.h"
#include "themis/system.h"
#include "themis/workload.h"

/* Chakra's NodeType and CollectiveCommType values (et_def.proto). */
enum {
    TH_CHAKRA_COMP_NODE = 4,
    TH_CHAKRA_COMM_SEND_NODE = 5,
    TH_CHAKRA_COMM_RECV_NODE = 6,
    TH_CHAKRA_COMM_COLL_NODE = 7
};
enum {
    TH_CHAKRA_ALL_REDUCE = 0,
    TH_CHAKRA_ALL_GATHER = 2,
    TH_CHAKRA_ALL_TO_ALL = 6,
    TH_CHAKRA_REDUCE_SCATTER = 7
};

/* Chakra's CollectiveCommType of collective type t. */
static inline int th_chakra_comm_type(th_coll_type t) {
    static const int v[] = {TH_CHAKRA_ALL_REDUCE, TH_CHAKRA_REDUCE_SCATTER, TH_CHAKRA_ALL_GATHER,
                            TH_CHAKRA_ALL_TO_ALL};
    return v[t];
}

/* One node of rank 0's file (of its stage's with pipeline stages); rank r's is the same with
 * every id (its own and its dependencies') plus r * th_chakra_graph.id_stride. */
typedef struct th_chakra_node {
    int type;           /* TH_CHAKRA_COMP_NODE, _COMM_COLL_NODE, _COMM_SEND_NODE, _COMM_RECV_NODE */
    int it, layer;      /* the iteration and layer it comes from */
    th_phase phase;     /* ... and the phase */
    int first, fused;   /* a bucket: the layer that opened it, gradients in it (else layer, 1) */
    uint64_t micros;    /* compute: duration_micros */
    int comm_type;      /* a collective: TH_CHAKRA_ALL_REDUCE, ... */
    uint64_t comm_size; /* a collective: bytes, as ASTRA-sim counts them */
    uint32_t mask;      /* a collective: its involved dims */
    int peer;           /* a send, a receive: the stage it sends to, receives from */
    uint32_t tag;       /* a send, a receive: comm_tag (one per message of the iteration) */
    size_t dep, ndata, nctrl; /* deps[dep ..]: ndata data_deps then nctrl ctrl_deps */
    uint32_t name;            /* with th_chakra_graph.names: its name's offset there */
} th_chakra_node;

typedef struct th_chakra_graph {
    th_chakra_node *nodes;
    size_t n, cap;
    uint64_t *deps; /* node indices, the nodes' lists one after another */
    size_t ndeps, deps_cap;
    const th_workload *wl; /* names the nodes (not owned); NULL: names does */
    th_buf names;          /* the nodes' names, each NUL-terminated, when wl is NULL */
    const char *name;      /* the workload's name (not owned) */
    int phases;            /* phase times considered for the rounding below (one iteration) */
    int ndims;             /* the system's: every involved_dim list has this many entries */
    int64_t npus;          /* files: one per NPU of the system */
    int iterations;
    /* what whole microseconds did to the compute times (one iteration) */
    double compute_ns;   /* the workload's compute, ns */
    uint64_t compute_us; /* the written nodes' duration_micros */
    int rounded;         /* phases whose time is not a whole microsecond */
    int dropped;         /* phases of less than 0.5 us (> 0), written as no node */
    double worst_ns;     /* the largest change of one phase, ns */
    int sizes_rounded;   /* collectives whose size is not a whole byte count (All-Gather: / NPUs) */
    /* Pipeline stages (an LLM workload with pp > 1): this graph is stage 0's, and holds the
     * rounding counts above summed over the stages (compute_ns and compute_us: the last
     * stage's, the busiest) */
    int stages;                    /* 1 (or 0): every rank runs this graph */
    struct th_chakra_graph *stage; /* stages 1 .. stages - 1 */
    int32_t *stage_of;             /* rank -> its stage */
    int64_t
        *stage_off; /* stage -> rank offset: rank r's peer in stage t is r - off[own] + off[t] */
    uint64_t id_stride; /* rank r's ids start at r * id_stride (0: n, the nodes per file) */
    uint64_t stage_us;  /* with stages: this stage's written compute of one iteration, us */
} th_chakra_graph;

/* The graph rank `rank` runs (its stage's). */
static inline const th_chakra_graph *th_chakra_graph_of(const th_chakra_graph *g, int64_t rank) {
    if (g->stages <= 1 || !g->stage_of || g->stage_of[rank] == 0) return g;
    return &g->stage[g->stage_of[rank] - 1];
}

typedef struct th_chakra_opts {
    int iterations; /* >= 1 */
    double batch;   /* samples per NPU; 0: the workload's (scales as themis train does) */
    double bucket;  /* DDP bucket bytes; 0: none */
} th_chakra_opts;

/* The graph of wl on sys (both checked: every collective's dims, size and active dims) into g
 * (zeroed first; th_chakra_graph_free frees it, also after an error). */
int th_chakra_build(const th_workload *wl, const th_system *sys, const th_chakra_opts *o,
                    th_chakra_graph *g, th_error *err);
void th_chakra_graph_free(th_chakra_graph *g);

/* The graph of one NPU's iteration(s) of LLM workload w on sys (docs/CHAKRA.md, Writing
 * traces): per micro-batch and layer the forward, recomputation and backward compute and the
 * blocking tensor- and expert-parallel collectives, the data-parallel gradient buckets made
 * over the last backward pass, the optimizer step; with pipeline stages one graph per stage,
 * its micro-batches in the order of the workload's schedule, with the sends and receives of
 * activations and gradients between stages (the NPUs past the groups run copies). Refused
 * (TH_EINPUT): ZeRO-3, a tensor-, expert- or data-parallel group that takes part of a dim, a
 * pipeline whose copies do not tile its dims. */
int th_chakra_build_llm(const th_llm_workload *w, const th_system *sys, const th_chakra_opts *o,
                        th_chakra_graph *g, th_error *err);

/* The name of node k: "[iI.]LAYER.PHASE" for compute, then ".TYPE" for a collective (a bucket:
 * "FIRST..LAST.weight_grad.allreduce"), into buf. */
const char *th_chakra_node_name(const th_chakra_graph *g, size_t k, char *buf, size_t n);

/* Rank `rank`'s file to f (the graph of its stage): the GlobalMetadata (version 0.0.4 and who
 * wrote it for which workload and system), then every node, each a varint byte count and the
 * message. TH_EIO naming `path` on a write error. */
int th_chakra_write(FILE *f, const char *path, const th_chakra_graph *g, const char *system,
                    int64_t rank, th_error *err);

#endif

/* Remote memory for a Chakra trace's memory nodes, as ASTRA-sim 2.x's analytical remote memory
 * models it (docs/CHAKRA.md, Memory nodes): its configuration file (ASTRA-sim's
 * --remote-memory-configuration JSON), the time of one access, and the replay of every rank
 * together when the ranks share a memory (chakra_memshare.c). */
#ifndef THEMIS_CHAKRA_MEM_H
#define THEMIS_CHAKRA_MEM_H

#include <stddef.h>
#include <stdint.h>

#include "chakra.h"

/* ASTRA-sim's memory-type, in the order of its names (th_ck_mem_type_names). */
typedef enum {
    TH_CK_MEM_NONE,     /* NO_MEMORY_EXPANSION: a memory node stops ASTRA-sim */
    TH_CK_MEM_PER_NODE, /* PER_NODE_MEMORY_EXPANSION: one memory per node of NPUs, shared */
    TH_CK_MEM_PER_NPU,  /* PER_NPU_MEMORY_EXPANSION: one memory per NPU, never waited for */
    TH_CK_MEM_POOL,     /* MEMORY_POOL: one memory for every NPU, shared */
} th_ck_mem_type;

extern const char *const th_ck_mem_type_names[]; /* "NO_MEMORY_EXPANSION", ..., NULL */

/* A remote memory configuration as read. */
typedef struct th_ck_mem {
    th_ck_mem_type type;
    double latency;        /* remote-mem-latency: ns per access, a whole number */
    double bw;             /* remote-mem-bw: GB/s, taken as bytes per ns, a whole number */
    int64_t nodes;         /* PER_NODE: num-nodes */
    int64_t npus_per_node; /* PER_NODE: num-npus-per-node */
    char src[256];         /* the file, for messages */
} th_ck_mem;

/* Reads ASTRA-sim's remote memory JSON text (keys memory-type, remote-mem-latency,
 * remote-mem-bw, num-nodes, num-npus-per-node); errors name src, the key, what was expected
 * and what was found. */
int th_ck_mem_parse(const char *text, size_t len, const char *src, th_ck_mem *m, th_error *err);

/* The time of one access of `bytes`, ns: latency + floor(bytes / bw), as ASTRA-sim's
 * get_remote_mem_runtime. */
double th_ck_mem_ns(const th_ck_mem *m, double bytes);

/* 1 when ranks wait for each other's accesses (a memory per node, a pool). */
static inline int th_ck_mem_shared(const th_ck_mem *m) {
    return m->type == TH_CK_MEM_PER_NODE || m->type == TH_CK_MEM_POOL;
}

/* TH_OK when the memory nodes of g can replay on m (a memory that expands, each node with a
 * tensor_size); else TH_EINPUT naming src, the node and the field. */
int th_ck_mem_check(const th_ck_mem *m, const th_ck_graph *g, const char *src, th_error *err);

/* Under the simulator's rules, memory node x served at time 0: TH_EINPUT when its access
 * takes 0 ns (ASTRA-sim 2.x stops on an event at time 0), naming src, the node and the field. */
int th_ck_mem_at_start(const th_ck_mem *m, const th_ck_node *x, const char *src, th_error *err);

/* The memory nodes of g. */
int32_t th_ck_mem_nodes(const th_ck_graph *g);

/* From the replay (chakra_replay.c): a compute node's time on sys under its model's rules, ns
 * (its duration, at least the least compute time, or the roofline's; -1 for a roofline node
 * of tensor_size 0, which ends at once), and whether the
 * communication stream holds one node at a time (the astra-sim preset). */
double th_ck_compute_ns(const th_system *sys, const th_ck_node *x);
int th_ck_serial_comm(const th_system *sys);

/* Replays tr on every one of the system's NPUs together (each its class's graph), their
 * memory nodes sharing m's memories as ASTRA-sim's event queues order them (m shared; graphs
 * of compute, memory and invalid nodes only, else TH_EINPUT; checked by th_ck_replay first).
 * res: the classes' ends (the last of their ranks) and compute (their first rank's). */
int th_ck_memshare_replay(const th_system *sys, const th_ck_trace *tr, const th_ck_opts *o,
                          th_ck_trace_fn trace, void *trace_ctx, th_ck_result *res, th_error *err);

#endif

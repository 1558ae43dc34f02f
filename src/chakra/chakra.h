/* Chakra execution traces (docs/CHAKRA.md): one protobuf file per NPU, <prefix>.<rank>.et,
 * each a graph of compute, collective, point-to-point and memory nodes with their
 * dependencies. This module reads a trace set into one rank's graph (chakra_read.c: a file;
 * chakra_set.c: the set, its ranks compared), replays that graph on a system
 * (chakra_replay.c; its memory nodes on a remote memory, chakra_mem.c) and plugs both into the
 * workload loader and `themis train` (chakra_format.c, chakra_report.c). */
#ifndef THEMIS_CHAKRA_H
#define THEMIS_CHAKRA_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "themis/buf.h"
#include "themis/emulate.h"
#include "themis/error.h"
#include "themis/schedule.h"
#include "themis/system.h"

/* What a node is to the replay (its NodeType and, for a collective, its comm_type). */
typedef enum {
    TH_CK_COMPUTE, /* COMP_NODE: its duration on the compute (or CPU) stream */
    TH_CK_COLL,    /* COMM_COLL_NODE of All-Reduce, All-Gather, Reduce-Scatter, All-to-All */
    TH_CK_BCAST,   /* COMM_COLL_NODE BROADCAST: its duration on the communication stream */
    TH_CK_SEND,    /* COMM_SEND_NODE */
    TH_CK_RECV,    /* COMM_RECV_NODE */
    TH_CK_MEM,     /* MEM_LOAD_NODE, MEM_STORE_NODE */
    TH_CK_SKIP,    /* INVALID_NODE: finished as soon as issued; METADATA_NODE (refused) */
} th_ck_kind;

typedef struct th_ck_node {
    uint64_t id;     /* as the file numbers it */
    int32_t pos;     /* its place in the file (0 = the first node after the metadata) */
    uint8_t kind;    /* th_ck_kind */
    uint8_t type;    /* NodeType as written */
    uint8_t cpu;     /* is_cpu_op */
    uint8_t coll;    /* TH_CK_COLL: th_coll_type */
    uint64_t micros; /* duration_micros */
    double size;     /* comm_size, bytes (collectives, send, receive; 0 when absent) */
    double ops;      /* num_ops (compute); -1 when absent */
    double tensor;   /* tensor_size, bytes (compute, memory); -1 when absent */
    uint32_t dims;   /* involved_dim: the dims it lists as true (below TH_MAX_DIMS) */
    int16_t ndims;   /* involved_dim's length; -1 when absent (every dim) */
    int32_t peer;    /* send: comm_dst, receive: comm_src; -1 when absent */
    int32_t tag;     /* send, receive: comm_tag; -1 when absent */
    int32_t group;   /* collective: pg_name's process group id (0: every NPU) */
    uint32_t name;   /* offset of its name in th_ck_graph.names */
    uint32_t dep0;   /* its parents (data_deps then ctrl_deps, each once) in deps[dep0 ..] */
    uint32_t ndeps;
} th_ck_node;

/* One rank's graph, its nodes sorted by id (the order ASTRA-sim issues ready nodes in). */
typedef struct th_ck_graph {
    th_ck_node *nodes;
    int32_t n;
    int32_t *deps; /* parents as node indices */
    size_t ndeps;
    int32_t *child_off; /* children of node i: child[child_off[i] .. child_off[i+1]) */
    int32_t *child;
    th_buf names;     /* every node's name, each NUL-terminated */
    char version[64]; /* the global metadata's version ("" when none) */
} th_ck_graph;

/* The most classes of ranks (ranks holding one graph) a trace set may have. */
#define TH_CK_MAX_CLASSES 64

/* A trace set as read: its ranks in classes of one graph each whose messages go to and come
 * from ranks of the same classes (class 0 the one of rank 0), and where it came from. A trace
 * zeroed but for ranks and g is a set of one class. */
typedef struct th_ck_trace {
    char name[64];     /* the prefix's base name */
    char prefix[4096]; /* <prefix> of <prefix>.<rank>.et, or the one file read */
    char file0[4096];  /* the file whose graph g is */
    int ranks;         /* files in the set (1 for a file not named <prefix>.<rank>.et) */
    th_ck_graph g;     /* rank 0's graph: class 0's */
    int ngraphs;       /* distinct graphs (0 or 1: g alone) */
    th_ck_graph *cg;   /* graph j >= 1 in cg[j - 1] */
    int nclasses;      /* classes (0 or 1: every rank holds g) */
    int32_t *class_of; /* per rank its class (NULL: every rank of class 0) */
    int32_t *first;    /* per class its first rank (NULL with class_of) */
    int32_t *graph_of; /* per class its graph (NULL with class_of) */
    /* per class, the peers (comm_dst, comm_src) of its first rank's send and receive nodes
     * in node order, peer[peer_off[c] .. peer_off[c + 1]) (NULL with class_of): a graph
     * holds the peers of the rank it was read from */
    int32_t *peer;
    size_t *peer_off;
    /* per rank, its own peers in the same order, rank_peer[rank_peer_off[k] ..
     * rank_peer_off[k + 1]) (NULL for a trace read from one file or bytes: g's) */
    int32_t *rank_peer;
    size_t *rank_peer_off;
} th_ck_trace;

static inline int th_ck_classes(const th_ck_trace *tr) {
    return tr->nclasses > 1 ? tr->nclasses : 1;
}
static inline const th_ck_graph *th_ck_class_graph(const th_ck_trace *tr, int c) {
    int j = tr->graph_of ? tr->graph_of[c] : 0;
    return j ? &tr->cg[j - 1] : &tr->g;
}
static inline int th_ck_class_of(const th_ck_trace *tr, int64_t rank) {
    return tr->class_of && rank < tr->ranks ? tr->class_of[rank] : 0;
}
static inline int th_ck_first_rank(const th_ck_trace *tr, int c) {
    return tr->first ? tr->first[c] : 0;
}

/* 1 when text looks like a Chakra trace: binary (a control byte early on), the first message
 * a length-delimited one. */
int th_ck_detect(const char *text, size_t len);

/* Parses one trace file's bytes into g (sorted by id, dependencies resolved and checked: no
 * duplicate id, no dependency on a missing node, no cycle); errors name src, the node id and
 * the field. */
int th_ck_parse(const char *data, size_t len, const char *src, th_ck_graph *g, th_error *err);
void th_ck_graph_free(th_ck_graph *g);

/* The name of node i ("" when it has none). */
static inline const char *th_ck_name(const th_ck_graph *g, int32_t i) {
    return g->names.p ? g->names.p + g->nodes[i].name : "";
}

/* Reads the trace set path names: a prefix (<prefix>.0.et exists), one file of a set
 * (<prefix>.<rank>.et), or one file alone. Every rank's file is read and compared with the
 * classes' graphs read before: a rank that holds none of them starts a class (at most
 * TH_CK_MAX_CLASSES). 0 when path names no
 * trace (a missing file that is no prefix either: *tr untouched), 1 when read, < 0 on error
 * (err set; -TH_EINPUT, -TH_EIO). */
int th_ck_open(const char *path, th_ck_trace **tr, th_error *err);
/* One file's bytes as a set of one rank (a trace from stdin or detected by content). */
int th_ck_from_bytes(const char *data, size_t len, const char *src, th_ck_trace **tr,
                     th_error *err);
void th_ck_trace_free(th_ck_trace *tr);

struct th_ck_mem; /* chakra_mem.h: a remote memory configuration */
/* ASTRA-sim 2.x's communicator group file: process group id -> its ranks. */
typedef struct th_ck_groups {
    int n;          /* groups */
    int32_t *id;    /* group k's id (> 0; pg_name names it) */
    size_t *off;    /* its ranks: rank[off[k] .. off[k + 1]), sorted */
    int64_t *rank;  /* every group's ranks */
    size_t nranks;  /* entries of rank */
    char src[4096]; /* the file, for messages */
} th_ck_groups;

/* Reads a group file's text (a JSON object, "1": [0, 1, ...]); errors name src and the key. */
int th_ck_groups_parse(const char *text, size_t len, const char *src, th_ck_groups **out,
                       th_error *err);
int th_ck_groups_load(const char *path, th_ck_groups **out, th_error *err);
void th_ck_groups_free(th_ck_groups *g);
/* The index of group id in g, -1 when it has none. */
int th_ck_group_find(const th_ck_groups *g, int32_t id);
/* The dims of sys group k takes whole into *mask; TH_EINPUT naming the group and the dim when
 * it takes part of one (or one NPU, or ranks the system lacks). */
int th_ck_group_dims(const th_ck_groups *g, int k, const th_system *sys, uint32_t *mask,
                     th_error *err);

/* How the replay goes. */
typedef struct th_ck_opts {
    th_policy policy; /* baseline, themis, ... (not ideal) */
    th_intra intra;
    th_load_model model;
    th_priority priority; /* between collectives in flight (the analytical model) */
    int64_t chunks;       /* chunks per collective, >= 1 */
    const atomic_int *stop;
    int (*poll)(void *ctx); /* as th_train_opts.poll */
    void *poll_ctx;
    const th_ck_groups *groups;  /* process groups pg_name names (NULL: none) */
    const struct th_ck_mem *mem; /* the remote memory of memory nodes; NULL: they are refused */
} th_ck_opts;

typedef struct th_ck_result {
    double finish;       /* when the last node ends, ns (ASTRA-sim's "finished, T cycles") */
    double compute;      /* the GPU compute nodes' time of the class that ends last, ns */
    double exposed;      /* finish - compute: communication not hidden by compute, ns */
    int64_t collectives; /* collective nodes replayed (every class's) */
    int classes;         /* classes of ranks replayed (th_ck_trace) */
    double class_end[TH_CK_MAX_CLASSES];     /* per class, when its last node ends, ns */
    double class_compute[TH_CK_MAX_CLASSES]; /* per class, its GPU compute nodes' time, ns */
} th_ck_result;

/* One node of the replay, for the timeline. */
typedef struct th_ck_event {
    int32_t node;      /* index in its class's graph */
    double start, end; /* ns */
    int32_t cls;       /* the class of ranks (0: rank 0's) */
} th_ck_event;
typedef void (*th_ck_trace_fn)(void *ctx, const th_ck_event *ev);

/* chakra_match.c: the sends of class cls's receives (graph[c] and peer[c], class c's graph
 * and its first rank's peers, for every class): per receive i of graph[cls], matchc[i] the
 * class of its comm_src and match[i] the k-th send of its tag and size to class cls in that
 * class's graph (node order), k its place among graph[cls]'s receives of that tag, size and
 * class, or -1 - k when there is no such send; several[i] 1 when there are more such sends
 * than one. TH_EINTERNAL when out of memory. */
int th_ck_match_receives(const th_ck_trace *tr, int cls, const th_ck_graph *const *graph,
                         const int32_t *const *peer, int32_t *match, int32_t *matchc,
                         uint8_t *several);

/* Replays tr's graphs on sys (one rank per class of ranks; every rank of a class alike): per
 * NPU a compute stream, a CPU stream and a communication stream; a node is issued once its
 * parents ended, ready nodes in id order; collectives through the emulator under the system
 * model's graph rules (model.h), a collective whose ranks span classes once every class issued
 * it; point-to-point messages between the classes' ranks. */
int th_ck_replay(const th_system *sys, const th_ck_trace *tr, const th_ck_opts *o,
                 th_ck_trace_fn trace, void *trace_ctx, th_ck_result *res, th_error *err);

/* "COMP_NODE", ... for messages. */
const char *th_ck_type_name(int type);

#endif

/* The ASTRA-sim 2.x preset's replay of a Chakra trace NPU by NPU (docs/CHAKRA.md, "Every NPU
 * in its order"), its state and the parts its files share: the backend's event queue and each
 * NPU's events by tick (astra_npus_queue.c), the callback tracker (astra_npus_net.c), the
 * collective algorithms (astra_npus_coll.c), streams, dim queues and collectives
 * (astra_npus_sys.c), Themis's scheduler (astra_npus_greedy.c) and the workload layer with the
 * run (astra_npus.c). Each follows ASTRA-sim 2.x's own source, named there. */
#ifndef THEMIS_ASTRA_NPUS_H
#define THEMIS_ASTRA_NPUS_H

#include <stdint.h>

#include "astra_preset.h"
#include "chakra/chakra.h"

enum { G_CALL, G_ARRIVE, G_RECV };                          /* backend events */
enum { C_WORK, C_BUNDLE, C_STREAM, C_DATASET };             /* callables of an NPU's events */
enum { E_GENERAL, E_COLL_DONE, E_TO_MA, E_TO_NPU, E_PROC }; /* their event types */
enum { A_RING, A_DIRECT, A_HD };
enum { OP_RS, OP_AG, OP_AR, OP_A2A };

typedef struct gev { /* one event of the backend's queue, in its time's list */
    int32_t next, kind, a;
} gev;

typedef struct tbucket { /* the backend's events of one time, in schedule order */
    int64_t t;
    int32_t head, tail;
} tbucket;

typedef struct lev { /* one event an NPU registered for a tick (Sys::try_register_event) */
    int32_t next;
    uint8_t callee, ev;
    int32_t obj, data;
} lev;

typedef struct slot { /* an NPU's events of one tick, in registration order */
    int64_t t;
    int32_t head, tail;
} slot;

typedef struct phase { /* a CollectivePhase */
    int8_t dim, op, alg, dir;
    uint64_t size, final;
} phase;

typedef struct pkt {
    int32_t dest, src;
    uint64_t size;
} pkt;

typedef struct algo { /* the running phase's Ring, AllToAll or HalvingDoubling */
    int kind, op, p, idx, dir, id;
    int64_t stride;
    int parallel, stream_count, max_count, rem_msg, rem_max;
    int free_packets, sent, received, zero, nonzero, toggle;
    int processed, send_back, to_ma, middle, rank_offset;
    double mult;
    uint64_t msg;
    int32_t recv_to, send_from;
    pkt *q;
    int qh, qn, qcap;
} algo;

typedef struct stream { /* a StreamBaseline: one chunk of a collective on one NPU */
    int32_t npu, dataset;
    int64_t tag, priority;
    phase ph[2 * TH_MAX_DIMS];
    int nph, cur, queue, init, steps;
    algo a;
} stream;

typedef struct dataset {
    int32_t npu, node, total, finished, active;
} dataset;

typedef struct bundle {
    int32_t npu, stream;
    int processing;
    uint64_t size;
} bundle;

typedef struct npu { /* one Sys and its Workload */
    slot *slots;
    int nslots, slots_cap;
    int32_t *act[TH_MAX_DIMS]; /* active_Streams per queue (one queue per dim) */
    int nact[TH_MAX_DIMS], act_cap[TH_MAX_DIMS], running[TH_MAX_DIMS];
    int first_phase, total_running;
    int64_t num_streams, priority, last_sched;
    int32_t *left; /* per node, its parents not yet ended */
    int32_t *free; /* the nodes whose parents ended, not issued, by id */
    int nfree, free_cap, ongoing, cpu, comp, comm, finished;
    int32_t coll;         /* the collective node in flight (-1: none) */
    int64_t finish, last; /* when it finished; when it ran its last event */
    double gpu_ns;
} npu;

typedef struct mkey { /* a message's key in the callback tracker */
    int64_t tag;
    uint64_t count;
    int32_t src, dst;
} mkey;

typedef struct mentry { /* the messages of one key (CallbackTracker's entries of it) */
    mkey k;
    int32_t used, sends, arrived, recvs;
    int32_t head, tail; /* the receives posted before their message arrived, in order */
} mentry;

typedef struct waiter {
    int32_t stream, next;
} waiter;

typedef struct greedy_entry { /* OfflineGreedy's shared schedule of one chunk id */
    int64_t id;
    int order[TH_MAX_DIMS], consumers;
    uint64_t size;
} greedy_entry;

/* The latest time the replay runs to, ns (ASTRA-sim's ticks are 64-bit; beyond 2^62 the sums
 * of times could wrap): past it, it gives up. */
#define NPUS_MAX_NS 4611686018427387904.0

typedef struct dimload { /* OfflineGreedy's DimElapsedTime: a dim and its load */
    int dim;
    double t;
} dimload;

typedef struct npool {     /* a pool's use of its array: entries made, room, and free ones */
    int32_t n, cap, free1; /* free1: 1 + the first free entry, 0: none */
    int32_t *next;         /* each free entry's next free one, + 1 */
} npool;

typedef struct sim {
    const th_system *sys;
    const th_ck_graph *g;
    const th_ck_opts *o;
    int n, nd, themis, scf, flat;
    int p[TH_MAX_DIMS];
    int64_t stride[TH_MAX_DIMS];
    double ep, mem_bw;
    int64_t now;
    gev *gq; /* the backend's events, each in its time's list */
    npool gqp;
    tbucket *bk; /* the times with events */
    int32_t nbk; /* buckets in use */
    npool bkp;
    int32_t *times; /* their min-heap by time */
    size_t ntimes, times_cap;
    int32_t *bmap; /* time -> bucket, open addressing */
    size_t bmap_cap;
    lev *ev;
    npool evp;
    npu *npus;
    stream *st;
    npool stp;
    dataset *ds;
    int32_t nds, ds_cap;
    bundle *bd;
    npool bdp;
    mentry *tab;
    size_t tab_cap, tab_n;
    waiter *waits;
    npool waitp;
    mkey *msgs;
    npool msgp;
    dimload load[TH_MAX_DIMS]; /* rank 0's OfflineGreedy dim_elapsed_time, in its order */
    greedy_entry *gr;
    int ngr, gr_cap;
    uint32_t *cdims; /* per node, the dims it involves */
    int oom;
    int64_t zero_at;      /* when a message of 0 bytes was sent (ASTRA-sim stops), -1: none */
    int too_long;         /* 1 once a time passed NPUS_MAX_NS (the replay gives up) */
    th_ck_trace_fn trace; /* rank 0's node events, when not NULL */
    void *trace_ctx;
    int64_t *start0; /* rank 0's nodes' issue times */
} sim;

/* astra_npus_queue.c */
int npus_grow32(sim *s, void **arr, int32_t n, int32_t *cap, size_t elem);
int32_t npus_take(sim *s, void **arr, npool *p, size_t elem);
int64_t npus_ns(sim *s, double ns);
void npus_put(npool *p, int32_t i);
int npus_growi(sim *s, void **arr, int n, int *cap, size_t elem);
void npus_schedule(sim *s, int64_t t, int kind, int32_t a);
int npus_pop_event(sim *s, gev *x);
void npus_register(sim *s, int32_t n, int callee, int ev, int32_t obj, int32_t data, int64_t delay);
void npus_call_events(sim *s, int32_t n);
/* astra_npus_net.c */
void npus_send(sim *s, int64_t tag, int32_t src, int32_t dst, uint64_t count);
void npus_recv(sim *s, int64_t tag, int32_t src, int32_t dst, uint64_t count, int32_t si);
void npus_arrive(sim *s, int32_t m);
/* astra_npus_coll.c */
void npus_algo_init(sim *s, stream *x, const phase *ph, int32_t id);
void npus_stream_run(sim *s, int32_t si, int ev);
void npus_bundle_call(sim *s, int32_t b);
/* astra_npus_sys.c */
void npus_proceed(sim *s, int32_t si);
int32_t npus_generate(sim *s, int32_t n, int32_t k);
/* astra_npus_greedy.c */
void npus_greedy_reset(sim *s);
void npus_greedy(sim *s, int64_t id, uint64_t *remaining, uint64_t recommended, uint32_t inv,
                 int op, int *out);
/* astra_npus.c */
void npus_call(sim *s, int32_t n, int callee, int ev, int32_t obj, int32_t data);
void npus_dataset_done(sim *s, int32_t di);

#endif

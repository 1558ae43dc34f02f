/* Replaying a workload NPU by NPU, every event of every NPU in the order ASTRA-sim's event
 * queue takes them (docs/CHAKRA.md, "Every NPU in its order"; docs/VALIDATION.md): the system
 * layer that ASTRA-sim 2.x (astra-sim 518bd51) and ASTRA-sim 1.0 (the ASTRA-sim-1.0 branch and
 * the tutorial-asplos2023 tag) run on their analytical congestion-unaware backends, which the
 * astra-sim and astra-sim-1.0 presets drive with their workload layers. Its parts: the
 * backend's event queue and each NPU's events by tick (npus_queue.c), messages and their
 * matching (npus_net.c), the collective algorithms (npus_coll.c), streams, dim queues and the
 * generation of collectives (npus_sys.c), Themis's scheduler (npus_greedy.c), the run
 * (npus_run.c). Each follows the simulator's own source, named there; where 1.0 and 2.x part,
 * npus_cfg.version says whose. */
#ifndef THEMIS_NPUS_H
#define THEMIS_NPUS_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "themis/system.h"

enum { NPUS_V2, NPUS_V1 };                      /* whose system layer */
enum { G_CALL, G_ARRIVE, G_RECV, G_P2P };       /* backend events */
enum { C_WORK, C_BUNDLE, C_STREAM, C_DATASET }; /* callables of an NPU's events */
enum {
    E_GENERAL,
    E_COLL_DONE,
    E_TO_MA,
    E_TO_NPU,
    E_PROC
}; /* their event types (C_WORK: the
      workload's own, from 16 on) */
enum { A_RING, A_DIRECT, A_HD };
enum { OP_RS, OP_AG, OP_AR, OP_A2A };
/* 1.0's SchedulingPolicy of a collective (Sys::get_priority) */
enum { NPUS_PRIO_NONE, NPUS_PRIO_LIFO, NPUS_PRIO_FIFO, NPUS_PRIO_HIGHEST };

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
    int8_t dim, op, alg, dir, enabled;
    int32_t window; /* direct: messages at once (0: every peer) */
    uint64_t size, final;
} phase;

typedef struct pkt {
    int32_t dest, src;
    uint64_t size;
} pkt;

typedef struct algo { /* the running phase's Ring, AllToAll or HalvingDoubling */
    int kind, op, p, idx, dir, id, enabled;
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
    phase *ph; /* its phases (room for ph_cap, kept when the stream is reused) */
    int nph, ph_cap, cur, queue, init, steps;
    algo a;
} stream;

typedef struct dataset { /* a DataSet: one collective on one NPU, its streams */
    int32_t npu, owner, total, finished, active;
} dataset;

typedef struct bundle {
    int32_t npu, stream;
    int processing;
    uint64_t size;
} bundle;

typedef struct npu { /* one Sys */
    slot *slots;
    int nslots, slots_cap;
    int32_t *act[TH_MAX_DIMS]; /* active_Streams per queue (one queue per dim) */
    int nact[TH_MAX_DIMS], act_cap[TH_MAX_DIMS], running[TH_MAX_DIMS];
    int first_phase, total_running;
    int64_t num_streams, priority, last_sched;
    int64_t injected; /* 1.0: streams_injected, the streams of the collectives generated */
    int64_t last;     /* when it ran its last event */
} npu;

typedef struct mkey { /* a message's key in the callback tracker */
    int64_t tag;
    uint64_t count;
    int32_t src, dst;
} mkey;

typedef struct nmsg { /* a message on the network: its key, and the workload's send or receive
                       * node of a point-to-point message (-1: a collective's) */
    mkey k;
    int32_t node;
} nmsg;

typedef struct mentry { /* the messages of one key (CallbackTracker's entries of it) */
    mkey k;
    int32_t used, sends, arrived, recvs;
    int32_t head, tail; /* the receives posted before their message arrived, in order */
    int64_t sent_at;    /* 1.0: when its pending send arrives */
} mentry;

typedef struct waiter { /* a receive posted before its message: a stream's, or (-2 - node) the
                         * workload's receive node */
    int32_t stream, next;
} waiter;

typedef struct greedy_entry { /* OfflineGreedy's shared schedule of one chunk id */
    int64_t id;
    int order[TH_MAX_DIMS], consumers;
    uint64_t size;
} greedy_entry;

typedef struct sync_entry { /* 1.0's BaseStream synchronizer of one stream number */
    int64_t num;
    int32_t live;
    int32_t sync, ready, nsusp, susp_cap;
    int32_t *susp; /* the streams suspended on it, in order */
} sync_entry;

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

struct npus;

/* What the preset gives the replay: the system layer's settings and its workload layer. */
typedef struct npus_cfg {
    const th_system *sys; /* the logical dims the collectives run on */
    const th_system *net; /* the physical network messages cross (NULL: sys) */
    int npus;             /* the NPUs that run (0: sys's; 1.0 breaks a dim into fewer) */
    int version;          /* NPUS_V2 or NPUS_V1 */
    int themis;           /* inter-dimension-scheduling themis (OfflineGreedy), else baseline */
    int scf;              /* intra-dimension-scheduling SCF, else FIFO */
    int flat;             /* collective-optimization baseline, else localBWAware */
    int lifo;             /* scheduling-policy LIFO, else FIFO */
    int boost;            /* 1.0: boost-mode 1 (only the rings through NPU 0 send) */
    int tag;              /* 1.0: the tutorial-asplos2023 tag's SCF and priorities */
    int gap_den;          /* OfflineGreedy's threshold, chunk / gap_den (16) */
    int64_t splits;       /* preferred-dataset-splits */
    double ep;            /* endpoint delay, ns */
    double mem_bw;        /* 2.x: local-mem-bw, bytes/s (1.0: 500000 bytes/ns) */
    double greedy_bw[TH_MAX_DIMS]; /* OfflineGreedy's dim_BW */
    int alg[4][TH_MAX_DIMS];       /* per th_coll_type and dim: A_RING, A_DIRECT, A_HD */
    int window[4][TH_MAX_DIMS];    /* 1.0 direct: messages at once (0: every peer) */
    /* one message's time, ns (< 0: no such pair) */
    double (*message)(const th_system *sys, int64_t src, int64_t dst, double bytes);
    /* the workload layer: an event it registered (callee C_WORK), and a collective's dataset
     * that ended on its NPU (DataSet::notify_stream_finished's notifier) */
    void (*work)(struct npus *s, int32_t n, int ev, int32_t obj, int32_t data);
    void (*done)(struct npus *s, int32_t dataset);
    void *user; /* the workload layer's state */
    const atomic_int *stop;
    int (*poll)(void *ctx);
    void *poll_ctx;
} npus_cfg;

typedef struct npus {
    npus_cfg c;
    const th_system *sys;
    int n, nd;
    int p[TH_MAX_DIMS];
    int64_t stride[TH_MAX_DIMS];
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
    nmsg *msgs;
    npool msgp;
    dimload load[TH_MAX_DIMS]; /* rank 0's OfflineGreedy dim_elapsed_time, in its order */
    greedy_entry *gr;
    int ngr, gr_cap;
    sync_entry *sy;  /* 1.0: the synchronizers of the streams in flight */
    int nsy, sy_cap; /* entries by stream number, in use up to nsy */
    int oom;
    int64_t zero_at; /* when a message of 0 bytes was sent (ASTRA-sim stops), -1: none */
    int64_t stop_at; /* when the simulator would stop (its panics), -1: none */
    /* a chunk whose shared Themis schedule is larger than what is left of the collective
     * that takes it (another collective's chunk of that number: ASTRA-sim's remaining size
     * wraps around below 0 and it generates chunks without end): its number and the NPU,
     * -1: none */
    int64_t wrap_id;
    int32_t wrap_npu;
    int too_long; /* 1 once a time passed NPUS_MAX_NS (the replay gives up) */
    int interrupted;
} npus;

/* npus_run.c: the replay's state for c (its arrays per NPU made), the run of every event
 * until none is left (0; -1 when out of memory or interrupted, s->interrupted set), and its
 * release. */
int npus_init(npus *s, const npus_cfg *c);
int npus_run(npus *s);
void npus_dispatch(npus *s, int32_t n, int callee, int ev, int32_t obj, int32_t data);
void npus_free(npus *s);
/* npus_queue.c */
int npus_grow32(npus *s, void **arr, int32_t n, int32_t *cap, size_t elem);
int32_t npus_take(npus *s, void **arr, npool *p, size_t elem);
int64_t npus_ns(npus *s, double ns);
void npus_put(npool *p, int32_t i);
int npus_growi(npus *s, void **arr, int n, int *cap, size_t elem);
void npus_schedule(npus *s, int64_t t, int kind, int32_t a);
int npus_pop_event(npus *s, gev *x);
void npus_register(npus *s, int32_t n, int callee, int ev, int32_t obj, int32_t data,
                   int64_t delay);
void npus_call_events(npus *s, int32_t n);
/* npus_net.c */
void npus_send(npus *s, int64_t tag, int32_t src, int32_t dst, uint64_t count);
void npus_recv(npus *s, int64_t tag, int32_t src, int32_t dst, uint64_t count, int32_t si);
void npus_arrive(npus *s, int32_t m);
/* 2.x's point-to-point messages of the workload (Workload::issue_send_comm and
 * issue_recv_comm, a NATIVE tag): send node `node` of NPU src, receive node `node` of NPU dst.
 * Each ends through the workload layer's work(s, npu, E_GENERAL, -1, node): the send when its
 * message arrives, the receive then too when posted, else when posted (scheduled at once). */
void npus_p2p_send(npus *s, int64_t tag, int32_t src, int32_t dst, uint64_t count, int32_t node);
void npus_p2p_recv(npus *s, int64_t tag, int32_t src, int32_t dst, uint64_t count, int32_t node);
void npus_p2p_received(npus *s, int32_t m);
/* npus_coll.c */
void npus_algo_init(npus *s, stream *x, const phase *ph, int32_t id);
void npus_stream_run(npus *s, int32_t si, int ev);
void npus_bundle_call(npus *s, int32_t b);
/* npus_sys.c: Sys::generate_collective on NPU n (op OP_*, size bytes, over the dims of the mask
 * dims, 1.0's SchedulingPolicy prio); returns its dataset, -1 when out of memory */
void npus_proceed(npus *s, int32_t si);
void npus_declare_ready(npus *s, int32_t si);
int32_t npus_generate(npus *s, int32_t n, int op, uint64_t size, uint32_t dims, int prio,
                      int32_t owner);
void npus_dataset_done(npus *s, int32_t di);
/* A DataSet of `total` streams of NPU n for the workload's `owner` (-1 when out of memory). */
int32_t npus_dataset(npus *s, int32_t n, int32_t owner, int32_t total);
/* npus_greedy.c */
void npus_greedy_reset(npus *s);
void npus_greedy(npus *s, int64_t id, uint64_t *remaining, uint64_t recommended, uint32_t inv,
                 int op, int *out);

#endif

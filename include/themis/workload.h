/* Training workloads: layers with forward, input-gradient and weight-gradient compute, each
 * phase with an optional collective; data-parallel or hybrid (model-parallel inner dims,
 * data-parallel outer dims). Loaded from validated JSON (docs/WORKLOADS.md). */
#ifndef THEMIS_WORKLOAD_H
#define THEMIS_WORKLOAD_H

#include "themis/export.h"
#include "themis/schedule.h"

typedef enum { TH_PHASE_FWD, TH_PHASE_IG, TH_PHASE_WG } th_phase;
#define TH_NPHASES 3

/* Which dims a workload collective spans. */
typedef enum { TH_SEL_DP, TH_SEL_MP, TH_SEL_ALL, TH_SEL_LIST } th_dim_sel;

typedef struct th_wl_coll {
    int present; /* 0: the phase has no collective */
    th_coll_type type;
    double size; /* bytes at the workload's batch */
    th_dim_sel sel;
    uint32_t mask;  /* TH_SEL_LIST: the dims */
    int blocking;   /* the next compute waits for it */
    int64_t chunks; /* 0: the workload's default */
} th_wl_coll;

typedef struct th_wl_phase {
    double ns;    /* compute time at the workload's batch, ns */
    double flops; /* as written (0 when given in ns) */
    th_wl_coll coll;
} th_wl_phase;

typedef struct th_wl_layer {
    char name[64];
    double params; /* parameters (informational; totals are tested) */
    th_wl_phase ph[TH_NPHASES];
} th_wl_layer;

/* How a collective is cut into chunks (docs/WORKLOADS.md, Chunks). */
typedef enum {
    TH_CHUNKING_CAPPED, /* ours: at most N chunks of at least min_chunk_bytes (at least one) */
    TH_CHUNKING_ASTRA   /* ASTRA-sim's: every collective in N chunks, whatever its size */
} th_chunking;

TH_API extern const char *const th_chunking_names[]; /* capped, astra (NULL-terminated) */

/* PyTorch DDP's bucket_cap_mb default (25 MiB), and its first, smaller bucket (1 MiB). */
#define TH_BUCKET_DEFAULT 26214400.0
#define TH_BUCKET_FIRST   1048576.0

typedef struct th_workload {
    char name[64];
    char description[512];
    int hybrid;             /* 0: data-parallel over every dim; 1: hybrid */
    int mp_dims;            /* hybrid: dims 0 .. mp_dims-1 are model-parallel */
    double batch;           /* samples per NPU the numbers are for */
    double npu_tflops;      /* converts flops to ns; 0 when every phase gives ns */
    int64_t chunks;         /* default chunks per collective (64) */
    double min_chunk_bytes; /* default split: at most `chunks` chunks of at least this; 0 off */
    th_chunking chunking;   /* the rule (default capped) */
    double bucket_bytes;    /* DDP gradient buckets of this many bytes; 0 = none */
    th_wl_layer *layers;
    int nlayers;
} th_workload;

TH_API int th_workload_load(const char *path, th_workload **out, th_error *err);
TH_API int th_workload_parse(const char *json, size_t len, const char *source, th_workload **out,
                             th_error *err);
TH_API void th_workload_free(th_workload *wl);

/* The involved-dims mask of a workload collective on a system (checks the DP/MP split);
 * `where` names the collective in errors. */
TH_API int th_workload_mask(const th_workload *wl, const th_wl_coll *c, const th_system *sys,
                            const char *where, uint32_t *mask, th_error *err);

/* Checks every collective of the workload against a system. */
TH_API int th_workload_check(const th_workload *wl, const th_system *sys, const char *source,
                             th_error *err);

/* Chunks of a collective of `size` bytes. N = `n` (e.g. --chunks) if set, else the
 * collective's own (used as it is: no rule applies to it), else the workload's `chunks`.
 * TH_CHUNKING_ASTRA: N; TH_CHUNKING_CAPPED: at most N chunks of at least min_chunk_bytes
 * (at least one). */
TH_API int64_t th_workload_chunks(const th_workload *wl, const th_wl_coll *c, double size,
                                  int64_t n, th_chunking rule);

TH_API const char *th_phase_name(th_phase p); /* "forward", "input_grad", "weight_grad" */

#endif

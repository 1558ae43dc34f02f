/* The multi-dimensional network of SPEC §2: one struct, loaded from a validated JSON file
 * or built in (the default system of §8). A th_system is a plain value: copy it freely. */
#ifndef THEMIS_SYSTEM_H
#define THEMIS_SYSTEM_H

#include <stddef.h>
#include <stdint.h>

#include "themis/error.h"
#include "themis/export.h"

#define TH_MAX_DIMS 16
#define TH_NAME_MAX 64
#define TH_MAX_NPUS 1099511627776.0 /* 2^40: cap on the product of all npus */

typedef enum { TH_TOPO_RING, TH_TOPO_FC, TH_TOPO_SWITCH } th_topology;
typedef enum { TH_ALG_RING, TH_ALG_DIRECT, TH_ALG_RHD } th_algorithm;

/* Which cost model and queue rules: ours (SPEC §3-§6), the ASTRA-sim 2.x preset (§9), or the
 * ASTRA-sim 1.0 preset (docs/VALIDATION.md). */
typedef enum { TH_MODEL_ANALYTICAL, TH_MODEL_ASTRA, TH_MODEL_ASTRA1 } th_model;
#define TH_MODEL_COUNT 3

/* The largest settings a model keeps in a system (th_system.model_data), bytes. */
#define TH_MODEL_DATA_MAX 1152

typedef struct th_dim {
    char name[TH_NAME_MAX]; /* label, e.g. "node"; default "dimK" */
    th_topology topology;   /* ring, fully connected or switch */
    th_algorithm algorithm; /* collective algorithm used on this dim */
    int64_t npus;           /* p: NPUs along this dim, >= 1 */
    double bw_GBps;         /* bandwidth as written in the file, GB/s */
    double efficiency;      /* in (0, 1]; default 1 */
    double bw;              /* effective B = bw_GBps * efficiency, bytes per ns */
    double latency;         /* alpha: one link hop, ns */
} th_dim;

/* The compute of one NPU (docs/LLM.md, The model), for LLM workloads: optional in a system file
 * (key "npu", an object or a path to an NPU file). */
#define TH_NPU_EFF_MAX 16 /* points of the matrix efficiency curve, at most */
typedef struct th_npu {
    int present;                      /* 0: the system file has no "npu" */
    char name[TH_NAME_MAX];           /* e.g. "a100-sxm4-80gb" */
    double matrix_tflops;             /* dense matrix (tensor-core) peak, TFLOP/s */
    double vector_tflops;             /* element-wise peak, TFLOP/s */
    double memory_GBps;               /* memory bandwidth, GB/s (bytes per ns) */
    double memory_gib;                /* memory capacity, GiB */
    int neff;                         /* points of the matrix efficiency curve (0: always 1) */
    double eff_flops[TH_NPU_EFF_MAX]; /* FLOPs of one matrix multiply, increasing */
    double eff[TH_NPU_EFF_MAX];       /* fraction of matrix peak there, in (0, 1] */
    double vector_efficiency;         /* fraction of vector peak reached, in (0, 1] */
    double memory_efficiency;         /* fraction of memory bandwidth reached, in (0, 1] */
} th_npu;

/* The NPU's memory capacity in bytes (memory_gib GiB): what an LLM execution must fit in. */
double th_npu_memory_bytes(const th_npu *npu);

typedef struct th_system {
    char name[TH_NAME_MAX]; /* system name; default: the file's base name */
    char description[256];  /* free text, may be empty */
    int ndims;              /* 1 .. TH_MAX_DIMS, dim 0 innermost */
    th_dim dims[TH_MAX_DIMS];
    double reduce_bw; /* reduction throughput, bytes per ns; 0 = reduction is free */
    th_model model;   /* analytical (default) or a preset */
    double npus;      /* P = product of all npus (exact: <= 2^40) */
    th_npu npu;       /* the NPU's compute and memory (LLM workloads); npu.present 0: none */
    /* The model's own settings, opaque here: each preset reads them through its own struct
     * (no pointers, so a th_system stays a plain value); zero for the analytical model. */
    _Alignas(max_align_t) unsigned char model_data[TH_MODEL_DATA_MAX];
} th_system;

/* Reads and validates a system file. `path` "-" reads stdin. The optional "run" object
 * (defaults for `themis run`) belongs to the run layer: th_run_load_system reads and checks it,
 * these functions leave it unread. */
TH_API int th_system_load(const char *path, th_system *sys, th_error *err);

/* Parses and validates a system from JSON text; `source` names it in errors. */
TH_API int th_system_parse(const char *json, size_t len, const char *source, th_system *sys,
                           th_error *err);

/* Fills the built-in default system of SPEC §2 (package ring 4, node fc 8, pod switch 16). */
TH_API void th_system_default(th_system *sys);

/* Checks the fields of an already-built system (the loaders call it; so should anyone who
 * edits a th_system by hand). Recomputes bw and npus. */
TH_API int th_system_validate(th_system *sys, const char *source, th_error *err);

/* Names in enum order, NULL-terminated (for parsers and messages). */
TH_API extern const char *const th_topology_names[];  /* ring, fc, switch */
TH_API extern const char *const th_algorithm_names[]; /* ring, direct, rhd */

TH_API const char *th_model_name(th_model m); /* "analytical", "astra-sim", "astra-sim-1.0" */
TH_API const char *th_topology_name(th_topology t);
TH_API const char *th_algorithm_name(th_algorithm a);
/* Name lookups: return 0 and set *out, or -1 when the name is unknown. */
TH_API int th_topology_from_name(const char *s, th_topology *out);
TH_API int th_algorithm_from_name(const char *s, th_algorithm *out);

#endif

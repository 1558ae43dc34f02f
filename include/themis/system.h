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

/* ASTRA-sim 1.0's collective implementations of one dim (its *-implementation lists). */
typedef enum { TH_A1_RING, TH_A1_HD, TH_A1_DIRECT } th_a1_impl;

/* Whose ASTRA-sim 1.0 the preset reproduces: the ASTRA-sim-1.0 branch or the
 * tutorial-asplos2023 tag (they differ in SCF and the Themis gap denominator). */
typedef enum { TH_A1_BRANCH, TH_A1_TUTORIAL } th_a1_version;

/* The ASTRA-sim 1.0 preset's settings (model astra-sim-1.0 only; zero otherwise). */
typedef struct th_astra1 {
    th_a1_version version;
    int local_bw_aware;              /* collective-optimization localBWAware (else baseline) */
    int lifo;                        /* scheduling-policy LIFO (else FIFO) */
    int boost;                       /* boost-mode (0: some same-ns phase orders refused) */
    int gap_denominator;             /* Themis fallback: gap < chunk / this (16 on the branch) */
    int links[TH_MAX_DIMS];          /* links-count per dim */
    double scalar[TH_MAX_DIMS];      /* bandwidth multiplier from the links-count rules */
    double greedy_bw[TH_MAX_DIMS];   /* Themis's dim bandwidth: usable links * bw_GBps */
    double nic[TH_MAX_DIMS];         /* nic latency, ns (twice per message) */
    double router[TH_MAX_DIMS];      /* router latency, ns (once per switch message) */
    th_a1_impl impl[4][TH_MAX_DIMS]; /* by th_coll_type order: AR, RS, AG, A2A */
    int window[4][TH_MAX_DIMS];      /* direct: messages at once ("directN": N; 0: p - 1) */
} th_astra1;

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

typedef struct th_system {
    char name[TH_NAME_MAX]; /* system name; default: the file's base name */
    char description[256];  /* free text, may be empty */
    int ndims;              /* 1 .. TH_MAX_DIMS, dim 0 innermost */
    th_dim dims[TH_MAX_DIMS];
    double reduce_bw;      /* reduction throughput, bytes per ns; 0 = reduction is free */
    th_model model;        /* analytical (default) or the astra-sim preset */
    double endpoint;       /* astra-sim: endpoint delay per message, ns */
    double local_mem_GBps; /* astra-sim: local memory bandwidth for reductions, GB/s */
    double npus;           /* P = product of all npus (exact: <= 2^40) */
    th_astra1 a1;          /* astra-sim-1.0: its settings (endpoint is `endpoint`) */
    /* astra-sim: a Reduce-Scatter's [0] and an All-Gather's [1] algorithm on dim k, as
     * 1 + th_algorithm; 0 = dims[k].algorithm, which an All-Reduce uses (th_astra_algorithm) */
    unsigned char astra_alg[2][TH_MAX_DIMS];
    int astra_flat; /* astra-sim: collective-optimization baseline (an All-Reduce is one AR
                     * phase on every dim); 0: localBWAware */
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

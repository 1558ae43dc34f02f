/* The multi-dimensional network of SPEC §2: one struct, loaded from a validated JSON file
 * or built in (the default system of §8). A th_system is a plain value: copy it freely. */
#ifndef THEMIS_SYSTEM_H
#define THEMIS_SYSTEM_H

#include <stddef.h>
#include <stdint.h>

#include "themis/error.h"

#define TH_MAX_DIMS 16
#define TH_NAME_MAX 64
#define TH_MAX_NPUS 1099511627776.0 /* 2^40: cap on the product of all npus */

typedef enum { TH_TOPO_RING, TH_TOPO_FC, TH_TOPO_SWITCH } th_topology;
typedef enum { TH_ALG_RING, TH_ALG_DIRECT, TH_ALG_RHD } th_algorithm;

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
    double reduce_bw; /* reduction throughput, bytes per ns; 0 = reduction is free */
    double npus;      /* P = product of all npus (exact: <= 2^40) */
} th_system;

/* Reads and validates a system file. `path` "-" reads stdin. */
int th_system_load(const char *path, th_system *sys, th_error *err);

/* Parses and validates a system from JSON text; `source` names it in errors. */
int th_system_parse(const char *json, size_t len, const char *source, th_system *sys,
                    th_error *err);

/* Fills the built-in default system of SPEC §2 (package ring 4, node fc 8, pod switch 16). */
void th_system_default(th_system *sys);

/* Checks the fields of an already-built system (the loaders call it; so should anyone who
 * edits a th_system by hand). Recomputes bw and npus. */
int th_system_validate(th_system *sys, const char *source, th_error *err);

const char *th_topology_name(th_topology t);
const char *th_algorithm_name(th_algorithm a);
/* Name lookups: return 0 and set *out, or -1 when the name is unknown. */
int th_topology_from_name(const char *s, th_topology *out);
int th_algorithm_from_name(const char *s, th_algorithm *out);

#endif

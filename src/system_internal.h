/* The system loader's model interface: what a model adds to a system file (its own
 * top-level fields, the default algorithm of a dim, its checks and the effective bandwidth of a
 * dim), as one const table per model. */
#ifndef THEMIS_SYSTEM_INTERNAL_H
#define THEMIS_SYSTEM_INTERNAL_H

#include <cjson/cJSON.h>

#include "themis/system.h"

#define TH_BW_MIN      1e-6 /* GB/s: below this every time overflows into nonsense */
#define TH_BW_MAX      1e9  /* GB/s */
#define TH_LATENCY_MAX 1e12 /* ns (1000 s) */

typedef struct sys_model {
    const char *const *keys;       /* top-level fields only this model takes (NULL-ended) */
    const th_algorithm *algorithm; /* a dim's default algorithm, by topology */
    /* Reads the model's own top-level fields from root (every one of `keys` is present). */
    int (*parse)(const cJSON *root, th_system *sys, const char *src, th_error *err);
    /* Checks the model's own fields of a built system. */
    int (*validate)(const th_system *sys, const char *src, th_error *err);
    /* Checks dims[k] beyond the common rules and sets its effective bandwidth bw. */
    int (*dim)(th_system *sys, int k, const char *src, th_error *err);
} sys_model;

/* Reads a system file's optional "run" object (defaults for `themis run`, the run layer's),
 * called where the loader meets it. */
typedef int (*sys_run_fn)(const cJSON *run, void *ctx, const char *src, th_error *err);

/* th_system_parse and th_system_load, handing the "run" object to read_run (NULL: unread). */
int sys_parse(const char *json, size_t len, const char *source, th_system *sys, sys_run_fn read_run,
              void *ctx, th_error *err);
int sys_load(const char *path, th_system *sys, sys_run_fn read_run, void *ctx, th_error *err);

/* The ASTRA-sim preset's system fields and rules (astra_system.c). */
extern const sys_model sys_astra_model;

/* A model's own fields beyond sys_model's: top-level names it shares with another model (known
 * only in files that name this model), dim fields, and their reader, called after the common
 * ones of each dim. */
typedef struct sys_ext {
    const char *const *top_keys; /* NULL-ended */
    const char *const *dim_keys; /* NULL-ended */
    int (*parse_dim)(const cJSON *d, int k, th_system *sys, const char *src, th_error *err);
} sys_ext;

/* The ASTRA-sim 2.x preset's dim fields (astra_system.c): a dim's Reduce-Scatter and All-Gather
 * algorithms. */
extern const sys_ext sys_astra_ext;

/* The ASTRA-sim 1.0 preset's system fields, dim fields and rules (astra1_system.c). */
extern const sys_model sys_astra1_model;
extern const sys_ext sys_astra1_ext;

#endif

/* The system loader's model interface: what a model adds to a system file (its own
 * top-level and dim fields, the default algorithm of a dim, its checks and the effective
 * bandwidth of a dim), as one const table per model (model.h's sys). */
#ifndef THEMIS_SYSTEM_INTERNAL_H
#define THEMIS_SYSTEM_INTERNAL_H

#include <cjson/cJSON.h>

#include "themis/system.h"

#define TH_BW_MIN      1e-6 /* GB/s: below this every time overflows into nonsense */
#define TH_BW_MAX      1e9  /* GB/s */
#define TH_LATENCY_MAX 1e12 /* ns (1000 s) */

typedef struct sys_model {
    const char *const *keys;        /* top-level fields only this model takes (NULL-ended) */
    const char *const *shared_keys; /* top-level fields it shares with another model, known
                                       only in files that name this model (NULL-ended) */
    const char *const *dim_keys;    /* its own dim fields (NULL-ended) */
    const th_algorithm *algorithm;  /* a dim's default algorithm, by topology */
    /* Reads the model's own top-level fields from root (every one of `keys` is present). */
    int (*parse)(const cJSON *root, th_system *sys, const char *src, th_error *err);
    /* Checks the model's own fields of a built system. */
    int (*validate)(const th_system *sys, const char *src, th_error *err);
    /* Checks dims[k] beyond the common rules and sets its effective bandwidth bw. */
    int (*dim)(th_system *sys, int k, const char *src, th_error *err);
    /* Optional (NULL: none): reads dims[k]'s own fields, after the common ones. */
    int (*parse_dim)(const cJSON *d, int k, th_system *sys, const char *src, th_error *err);
} sys_model;

/* Reads a system file's optional "run" object (defaults for `themis run`, the run layer's),
 * called where the loader meets it. */
typedef int (*sys_run_fn)(const cJSON *run, void *ctx, const char *src, th_error *err);

/* th_system_parse and th_system_load, handing the "run" object to read_run (NULL: unread). */
int sys_parse(const char *json, size_t len, const char *source, th_system *sys, sys_run_fn read_run,
              void *ctx, th_error *err);
int sys_load(const char *path, th_system *sys, sys_run_fn read_run, void *ctx, th_error *err);

/* A system file's "npu" value v (an object, or a path relative to the file src) into *npu
 * (system_npu.c). */
int sys_npu_parse(const cJSON *v, const char *src, th_npu *npu, th_error *err);

/* The analytical model's (system.c). */
extern const sys_model sys_clean_model;

#endif

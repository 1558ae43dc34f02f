/* Workload files in formats other than our JSON (docs/WORKLOADS.md), behind one loader:
 * th_workload_open tells a file's format by its content and hands it to that format's parser,
 * whose table (one per format) says how to detect, parse, free and convert it. The registry
 * (model_registry.c) lists the formats; the core names none of them. */
#ifndef THEMIS_WORKLOAD_FORMAT_H
#define THEMIS_WORKLOAD_FORMAT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "themis/buf.h"
#include "themis/system.h"
#include "themis/workload.h"

struct th_run_defaults; /* themis/run.h: run's defaults, above this module */

/* A format's own scales (train's --comm-scale and --compute-scale), each > 0. */
typedef struct th_wl_scale {
    double comm;    /* multiplies every collective size */
    double compute; /* multiplies every compute time */
} th_wl_scale;

/* What a native replay (th_wl_format.replay) is asked: train's request as the command layer
 * read it. */
typedef struct th_wl_replay {
    const struct th_run_defaults *def; /* the system file's run defaults (its chunks) */
    int64_t chunks;                    /* -n; 0: the defaults' or the format's */
    int passes;                        /* 0: one */
    th_wl_scale scale;
    int policy, intra;      /* th_policy, th_intra as train's request holds them */
    int format;             /* th_format of the report */
    int load_model;         /* th_load_model */
    int priority;           /* th_priority, between collectives in flight */
    const char *comm_group; /* a communicator group file (formats with groups), or NULL */
    int (*poll)(void *ctx); /* as th_train_opts.poll (may be NULL) */
    void *poll_ctx;
    const char *memory;     /* --remote-memory: the remote memory JSON text; NULL none */
    const char *memory_src; /* ... its file (or "remote_memory"), for messages */
} th_wl_replay;

/* Opens a native replay's outputs: *out always, *trace when a trace was asked (else NULL). */
typedef int (*th_wl_open_fn)(void *ctx, FILE **out, FILE **trace, th_error *err);

/* One point of a sweep that a format replays itself (th_wl_format.point). */
typedef struct th_wl_point {
    int policy, intra;      /* th_policy (not ideal), th_intra */
    int load_model;         /* th_load_model */
    int priority;           /* th_priority */
    int64_t chunks;         /* chunks per collective */
    const void *stop;       /* const atomic_int *: non-zero ends the replay ("interrupted") */
    const char *comm_group; /* a communicator group file (formats with groups), or NULL */
    const char *memory, *memory_src; /* as th_wl_replay's */
} th_wl_point;

typedef struct th_wl_format {
    const char *name;   /* in messages: what the file is, with its article */
    const char *hint;   /* what takes it where only our JSON is read */
    const char *plural; /* in messages: what its own options are for */
    const char *sim;    /* in messages: the simulator whose replay a native one is */
    const char *model;  /* in messages: the model that replays it natively */
    int scales;         /* 1: it takes train's --comm-scale, --compute-scale and --passes */
    int memory;         /* 1: it takes train's --remote-memory (th_wl_replay.memory) */
    int groups;         /* 1: it takes train's --comm-group (th_wl_replay.comm_group) */
    /* 1 when text is in this format (a cheap look at its first lines), else 0. */
    int (*detect)(const char *text, size_t len);
    /* Optional (NULL: none): parses the workload that path names when it is not one file read
     * whole (a set of files, such as a prefix): 1 with *out set when path is one of the
     * format's, 0 when it is not, -code on an error (err set). */
    int (*open_path)(const char *path, void **out, th_error *err);
    /* Parses text into the format's own value (*out, freed by free_native); every error
     * names src. */
    int (*parse)(const char *text, size_t len, const char *src, void **out, th_error *err);
    void (*free_native)(void *native);
    /* Converts a parse to our workload for sys (NULL: no system), with the format's scales
     * (NULL: its defaults); what the conversion changed goes to notes. */
    int (*convert)(const void *native, const th_system *sys, const th_wl_scale *scale,
                   const char *src, th_workload **out, th_buf *notes, th_error *err);
    /* Optional (NULL: never): 1 when the model of sys replays this format itself, with the
     * simulator's own state machine, instead of our replay of the converted workload. */
    int (*native_on)(const th_system *sys);
    /* With native_on: replays the parse on sys as the simulator does, every pair req asks
     * (and the reference of its speedups). It opens its outputs through open (once its own
     * options are checked; trace NULL when none was asked) and writes the report to *out and
     * the timeline of the asked pairs, its header first, to *trace; the caller closes them. */
    int (*replay)(const void *native, const th_system *sys, const char *src,
                  const th_wl_replay *req, th_wl_open_fn open, void *ctx, th_error *err);
    /* Optional (NULL: sweeps take only our JSON in its place): one replay of the parse on sys
     * for a sweep point, its iteration and compute times (ns) and the collectives it issued;
     * and the workload's name. */
    int (*point)(const void *native, const th_system *sys, const th_wl_point *pt, double *iteration,
                 double *compute, int64_t *collectives, th_error *err);
    const char *(*name_of)(const void *native);
} th_wl_format;

/* Format i of the registry, or NULL past the last. */
const th_wl_format *th_wl_format_get(int i);

/* The LLM workloads' format (src/llm_format.c): commands that take a workload of layers
 * evaluate it, or build its graph, by its own model. */
extern const th_wl_format th_llm_wl_format;

/* A workload file as th_workload_open read it: our JSON workload, or another format's parse. */
typedef struct th_wl_file {
    const th_wl_format *format; /* NULL: our JSON workload, in wl */
    th_workload *wl;            /* our workload (format NULL), else NULL */
    void *native;               /* the format's parse (format set), else NULL */
} th_wl_file;

/* The one workload loader: reads path ("-" = stdin), tells its format by content and parses
 * it into *out (zeroed on error). th_workload_close frees what it holds; a caller that keeps
 * out->wl sets it to NULL first. */
int th_workload_open(const char *path, th_wl_file *out, th_error *err);
void th_workload_close(th_wl_file *f);

#endif

/* The parsed sweep spec, shared by the sweep's source files (spec, point, run, merge). */
#ifndef THEMIS_SWEEP_INTERNAL_H
#define THEMIS_SWEEP_INTERNAL_H

#include "themis/buf.h"
#include "themis/llm.h"
#include "themis/sweep.h"
#include "themis/train.h"
#include "workload_format.h"

typedef enum {
    AX_CHUNKS,
    AX_POLICY,
    AX_INTRA,
    AX_SIZE,
    AX_TYPE,
    AX_DIMS,
    AX_LOAD_MODEL,
    AX_SYSTEM,
    AX_REDUCE,
    AX_DIM_FIELD,
    AX_WORKLOAD,
    AX_PRIORITY,
    AX_BATCH,
    AX_CHUNKING,
    AX_BUCKET,
    AX_LLM, /* llm.*: a field of the LLM workload (dim holds which, sweep_llm.c) */
} ax_kind;

typedef enum { F_NPUS, F_BW, F_LATENCY, F_TOPOLOGY, F_ALGORITHM, F_EFFICIENCY } dim_field;

/* One value of an axis, decoded for applying and pre-formatted for the CSV. */
typedef struct ax_value {
    double num;    /* numeric axes; sizes in bytes */
    int64_t i;     /* integers, enum values, system index */
    uint32_t mask; /* dims axis; 0 = all */
    char *text;    /* the CSV field (unquoted); system and workload axes: the name */
    char *file;    /* system and workload axes: the file as the spec names it (the
                      <axis>_file column); NULL otherwise */
} ax_value;

typedef struct ax {
    char *name; /* as written in the spec: the CSV column name */
    ax_kind kind;
    int dim;         /* AX_DIM_FIELD: which dim; AX_LLM: which field */
    dim_field field; /* AX_DIM_FIELD: which field */
    ax_value *v;
    int64_t n; /* number of values */
    int group; /* index into groups */
} ax;

typedef struct ax_group {
    int64_t len;      /* values (equal for every axis of a zip group) */
    int structural;   /* holds an axis that can make a point invalid */
    int baseline_key; /* holds an axis that changes the baseline+fifo time */
} ax_group;

struct th_sweep {
    char *name, *source, *dir, *output;
    char **inputs; /* every file the spec read (systems, workloads), resolved */
    int ninputs;
    th_system base;     /* the spec's system, before axes */
    th_collective coll; /* the spec's collective, before axes */
    th_pair pair;       /* the spec's policy and intra, before axes */
    th_load_model model;
    th_system *systems; /* values of the system axis */
    int nsystems;
    ax *axes;
    int naxes;
    ax_group *groups;
    int ngroups;
    int64_t points;
    int maxdims; /* most dims of any system: the dimK columns */
    /* Workload sweeps (themis train at every point) */
    int train;               /* the spec names a workload or has a workload axis */
    th_workload **workloads; /* NULL where natives[i] holds another format's workload */
    th_wl_file *natives;     /* per workload: a format that replays itself (a Chakra trace) */
    int nworkloads;
    int64_t base_chunks;  /* the spec's system's run.chunks (0: none) */
    int64_t *sys_chunks;  /* per system of the system axis: its run.chunks (0: none) */
    int workload;         /* the spec's workload (index), or -1 */
    th_llm_workload *llm; /* the spec's workload when it is an LLM workload, else NULL */
    th_priority priority; /* between collectives in flight */
    char *memory;         /* "remote_memory": its JSON text (Chakra traces' memory nodes) */
    char *memory_src;     /* ... its file, resolved */
    int iterations;
    int chunks_axis;      /* a chunks axis overrides the workload's chunks */
    int chunking_set;     /* "chunking" given: the rule below, else the workload's */
    th_chunking chunking; /* the spec's chunking rule */
    double bucket;        /* the spec's DDP bucket bytes: 0 the workload's, < 0 none */
    int issued;           /* a chunking or bucket key or axis: the collectives column */
    int ideal_lat;        /* "ideal_latency": true: the ideal network with latency floors too */
    int bound;            /* "bound": true: bound_us and vs_bound columns (collective sweeps) */
    char *comm_group;     /* "comm_group": a communicator group file, resolved, or NULL */
    char *text;           /* the spec as read (th_sweep_spec) */
    size_t text_len;      /* bytes */
    /* Rows as JSON lines (th_sweep_set_format): the columns of the CSV header, and which of
     * them hold numbers (1) rather than text (0). */
    int jsonl;
    char **cols;
    unsigned char *numeric;
    int ncols;
};

/* One point's inputs. */
typedef struct sw_point {
    th_system sys;
    th_collective coll;
    th_pair pair; /* policy themis-global only in workload sweeps */
    th_load_model model;
    const th_workload *wl; /* our workload, or NULL when nat holds the point's */
    const th_wl_file *nat; /* a workload another format replays (a Chakra trace) */
    int64_t run_chunks;    /* the point's system's run.chunks (0: none) */
    th_priority priority;
    double batch; /* workload sweeps: samples per NPU, 0 = the workload's */
    int chunking_set;
    th_chunking chunking;
    double bucket;          /* DDP bucket bytes: 0 the workload's, < 0 none */
    th_llm_model llm_model; /* LLM sweeps: the model and execution with the llm.* axes */
    th_llm_exec llm_exec;
} sw_point;

/* The axis adds an <axis>_file column after its own (system and workload axes). */
#define SW_HAS_FILE(x) ((x)->kind == AX_SYSTEM || (x)->kind == AX_WORKLOAD)

/* Whether the axis takes numbers (a CSV field with the shortest digits that read back). */
int sw_axis_numeric(const ax *a);

/* JSONL: replaces the CSV record at out[from..] (one row, line end included) by its JSON line:
 * an object of the columns in order, numbers as JSON numbers with the CSV's digits (an empty
 * field is null), text as JSON strings. */
int sw_jsonl_row(const th_sweep *sw, th_buf *out, size_t from, th_error *err);
/* A file being resumed holds count rows: TH_EINPUT naming it when this sweep (shard) has
 * fewer points. */
int sw_resume_count_check(const th_sweep *sw, th_shard shard, const char *path, int64_t count,
                          th_error *err);
/* th_sweep_resume_scan for JSONL files. */
int sw_jsonl_resume_scan(const th_sweep *sw, th_shard shard, const char *path, int64_t *rows,
                         off_t *keep, th_error *err);

/* Mixed-radix digits of a point, one per group (group 0 most significant). */
void sw_digits(const th_sweep *sw, int64_t point, int64_t *digits);
/* Builds and validates a point's inputs; errors name the point and its axis values. */
int sw_apply(const th_sweep *sw, const int64_t *digits, int64_t point, sw_point *pt, th_error *err);

/* The reference runs of a sweep's points, shared by the workers of a run (sweep_refs.c). */
typedef struct sw_ref {
    double base_time;  /* baseline+fifo time, ns */
    double ideal_time; /* workload sweeps: ideal-network iteration, ns */
    double ideal_lat;  /* workload sweeps: the same with latency floors, ns ("ideal_latency") */
} sw_ref;
typedef struct sw_refs sw_refs;
sw_refs *sw_refs_create(const th_sweep *sw);
void sw_refs_free(sw_refs *r);
/* The references of the point with these digits: 1 with *out filled when they are known
 * (waiting while another worker computes them); 0 when this worker is to compute them, then
 * sw_refs_keep(r, *slot, ...) with them (or NULL on a failure). */
int sw_refs_find(sw_refs *r, const int64_t *digits, sw_ref *out, int *slot);
void sw_refs_keep(sw_refs *r, int slot, const sw_ref *v);
/* A point that is its own reference (baseline+fifo) fills its key's slot. */
void sw_refs_offer(sw_refs *r, const int64_t *digits, const sw_ref *v);
/* A worker computing with the references of `refs` (not its own; it does not free them). */
th_sweep_worker *sw_worker_create_shared(const th_sweep *sw, sw_refs *refs);

/* LLM workload sweeps (sweep_llm.c). The field index of an axis "llm.NAME" (NAME given), or
 * -1 with a hint ("did you mean") in hint. */
int sw_llm_field(const char *name, char *hint, size_t n);
int sw_llm_numeric(int field);              /* numbers (else names) */
int sw_llm_integer(int field);              /* integers */
const char *const *sw_llm_names(int field); /* its value names (false/true for a flag) */
/* pt's model and execution: the workload's with the point's llm.* values. */
void sw_llm_apply(const th_sweep *sw, const int64_t *digits, sw_point *pt);
/* The point's execution checked against its model and system. */
int sw_llm_check(const th_sweep *sw, const sw_point *pt, th_error *err);
/* The result columns, and a point's (its references through refs). */
int sw_llm_header(th_buf *out);
int sw_llm_row(th_llm_ctx *c, sw_refs *refs, const int64_t *digits, const sw_point *pt, th_buf *out,
               th_error *err);

#endif

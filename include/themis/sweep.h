/* The sweep engine: a spec expands into a deterministic sequence of points (the cartesian
 * product of its axes, with zipped axes advancing together); each point is one evaluation
 * written as one CSV row. Runs in parallel threads with byte-identical output, resumes from
 * a partial CSV, splits into interleaved shards, and merges shard files back into one. */
#ifndef THEMIS_SWEEP_H
#define THEMIS_SWEEP_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "themis/export.h"
#include "themis/run.h"

/* The growable buffer (buf.h, internal) that the row writers below fill. */
typedef struct th_buf th_buf;

#define TH_SWEEP_MAX_POINTS 100000000LL /* 10^8 */
#define TH_SWEEP_MAX_VALUES 1000000     /* values of one axis */

typedef struct th_sweep th_sweep; /* a parsed, validated spec */

/* Reads a spec file; relative paths inside it resolve against the file's folder. */
TH_API int th_sweep_load(const char *path, th_sweep **out, th_error *err);
/* Parses spec text; `source` names it in errors, `base_dir` resolves relative paths. */
TH_API int th_sweep_parse(const char *json, size_t len, const char *source, const char *base_dir,
                          th_sweep **out, th_error *err);
TH_API void th_sweep_free(th_sweep *sw);

/* The file format of the rows: CSV (the default: a header line, then one record per point) or
 * JSONL (no header; one JSON object per point whose keys are the CSV's columns, numbers with
 * the CSV's digits, an empty field null). Set before running, resuming or scanning. */
typedef enum { TH_SWEEP_CSV, TH_SWEEP_JSONL } th_sweep_format;
TH_API int th_sweep_set_format(th_sweep *sw, th_sweep_format format, th_error *err);

/* The spec's text as it was read, *len bytes (NUL-terminated). */
TH_API const char *th_sweep_spec(const th_sweep *sw, size_t *len);

TH_API int64_t th_sweep_points(const th_sweep *sw); /* all points of the spec */
TH_API const char *th_sweep_name(const th_sweep *sw);
TH_API const char *th_sweep_output(const th_sweep *sw); /* resolved "output", or NULL */
/* The files the spec read (its systems and workloads, resolved); *n of them. Outputs must not
 * be one of these or the spec itself (th_output_check). */
TH_API const char *const *th_sweep_inputs(const th_sweep *sw, int *n);

/* Checks every point's system and collective (the product of the axes that can make a point
 * invalid), naming the point and axis of the first invalid one. th_sweep_load calls it. */
TH_API int th_sweep_validate(const th_sweep *sw, th_error *err);

/* A shard: the points i with i mod n == k (k from 0 to n - 1); {0, 1} is the whole sweep. */
typedef struct th_shard {
    int64_t k, n;
} th_shard;

/* Parses "K/N" (0 <= K < N). */
TH_API int th_shard_parse(const char *text, th_shard *out, th_error *err);
/* Points in the shard, and the global point index of its j-th point. */
TH_API int64_t th_shard_points(const th_sweep *sw, th_shard shard);
static inline int64_t th_shard_point(th_shard shard, int64_t j) {
    return shard.k + j * shard.n;
}

/* The CSV header line (with its newline): point, every axis, then the results; nothing for
 * JSONL. */
int th_sweep_header(const th_sweep *sw, th_buf *out, th_error *err);
/* The header's first columns, those of th_sweep_prefix: "point,axis names" (no newline). */
int th_sweep_prefix_header(const th_sweep *sw, th_buf *out, th_error *err);
/* The first columns of a point's row: "point,axis values" (no newline). */
int th_sweep_prefix(const th_sweep *sw, int64_t point, th_buf *out, th_error *err);

/* Per-thread evaluation state. */
typedef struct th_sweep_worker th_sweep_worker;
TH_API th_sweep_worker *th_sweep_worker_create(const th_sweep *sw);
TH_API void th_sweep_worker_free(th_sweep_worker *w);
/* Evaluations end early ("interrupted") once *stop is non-zero; NULL: never. */
TH_API void th_sweep_worker_set_stop(th_sweep_worker *w, const atomic_int *stop);
/* Evaluates one point and appends its row (with newline; a JSON line for JSONL); on an error
 * nothing is appended. */
int th_sweep_row(th_sweep_worker *w, int64_t point, th_buf *out, th_error *err);

typedef void (*th_progress_fn)(void *ctx, int64_t done, int64_t total);

typedef struct th_sweep_opts {
    int threads;    /* threads computing points, >= 1: the calling one and threads - 1 more */
    th_shard shard; /* which points */
    int64_t start;  /* shard-local index of the first point to compute (resume) */
    int fd;         /* rows are written here, in order, whole rows per write */
    const atomic_int *stop;  /* when it becomes non-zero: finish, write the prefix, return */
    th_progress_fn progress; /* may be NULL; called from the calling thread */
    void *progress_ctx;
} th_sweep_opts;

/* Computes the shard's points from opts->start on; *done = shard-local points written in
 * total (start included). Returns TH_OK when finished or stopped (check *done). */
TH_API int th_sweep_run(const th_sweep *sw, const th_sweep_opts *opts, int64_t *done,
                        th_error *err);

/* th_sweep_run with the rows going to write(ctx, rows, len) instead of opts->fd: whole rows, in
 * point order, from the calling thread; a non-zero return fails the sweep as a write error. */
typedef int (*th_sweep_write_fn)(void *ctx, const char *rows, size_t len);
TH_API int th_sweep_run_to(const th_sweep *sw, const th_sweep_opts *opts, th_sweep_write_fn write,
                           void *write_ctx, int64_t *done, th_error *err);

/* Scans an existing output for --resume: checks its header and that its last row is the
 * expected point; *rows = complete rows, *keep = bytes to keep (a partial last line is
 * dropped). A file without a complete header gives rows = 0, keep = 0. */
TH_API int th_sweep_resume_scan(const th_sweep *sw, th_shard shard, const char *path, int64_t *rows,
                                off_t *keep, th_error *err);

/* Merges shard files into the stream out (open it with th_output_open and commit only on
 * success): identical headers, rows ordered by point, no point twice, no point missing;
 * `expect` = total points or -1; *points (unless NULL) = the rows written; *jsonl (unless
 * NULL) = 1 when the parts are JSONL (the format of the first part that is not empty). */
TH_API int th_sweep_merge(FILE *out, const char *const *parts, int nparts, int64_t expect,
                          int64_t *points, int *jsonl, th_error *err);

/* ---- the provenance sidecar OUT.meta.json (themis sweep, themis merge) ---- */

/* What one command that wrote a sweep file knows about it. */
typedef struct th_sweep_meta {
    const char *file;        /* the sweep file as given */
    const char *format;      /* "csv" or "jsonl" */
    const char *spec_file;   /* the spec as given ("-": stdin); NULL: not known */
    const char *spec;        /* the spec's text (spec_len bytes); NULL: not known */
    size_t spec_len;         /* bytes */
    const char *spec_sha256; /* its digest when spec is not its original bytes (a merge copies
                              * a part's); NULL: th_sha256_hex of spec */
    int64_t sweep_points;    /* points of the whole spec; -1: not known */
    th_shard shard;          /* which points the file holds; {0, 1}: all */
    int64_t points;          /* rows in the file */
    int64_t expected;        /* rows of the complete file (the shard's points); -1: not known */
    int threads;             /* worker threads of this run; 0: none (a merge) */
    int argc;                /* the command line of this run */
    char *const *argv;
    int64_t started;     /* this run's start, seconds since 1970 (UTC) */
    int64_t finished;    /* this run's end; 0: still running */
    const char *stopped; /* why this run ended before the last point ("SIGINT"); NULL: it did not */
    const char *const *inputs;      /* the files the spec names (systems, workloads), as read */
    const char (*input_sha256)[65]; /* their digests; "": it could not be read */
    int ninputs;
} th_sweep_meta;

/* OUT.meta.json, malloc'd; NULL when memory runs out. */
TH_API char *th_sweep_meta_path(const char *out);

/* A sidecar's text, malloc'd, or NULL when the file does not exist or cannot be read. */
TH_API char *th_sweep_meta_read(const char *path);

/* 1 when text (NULL: 0) is a sidecar as th_sweep_meta_write writes it (a JSON object with
 * themis_version, file and runs): a file a sweep may replace without --force. */
TH_API int th_sweep_meta_is(const char *text);

/* Writes the sidecar as JSON: themis_version, file, format, complete (points == expected),
 * points, expected_points, sweep_points, shard, spec_file, spec_sha256, started (the first
 * run's), finished (this run's; null while it runs), command and threads (this run's), runs
 * (every command that wrote the file: command, threads, started, finished, points, stopped),
 * inputs (each file the spec names: file, sha256) and spec (the spec inline). `prev` is the sidecar
 * the file had before this run (NULL: none): its runs are kept when it names the same spec digest,
 * shard and format. */
TH_API int th_sweep_meta_write(FILE *out, const th_sweep_meta *m, const char *prev, th_error *err);

/* The spec the sidecars of a merge's parts agree on (texts[i] NULL: a part without one): its
 * inline JSON printed into *spec (malloc'd), its digest into sha, its sweep_points and the
 * first part's spec_file (malloc'd; NULL when it has none); *spec NULL when a part has no
 * sidecar, one cannot be read, or two name different specs. */
TH_API int th_sweep_meta_common(const char *const *texts, int n, char **spec, char sha[65],
                                int64_t *sweep_points, char **spec_file, th_error *err);

#endif

/* The command layer: for each command, the request value both front ends fill (the command
 * line from argv, the API from JSON, through the same option table) and the one function that
 * does the command's defaults, checks, work and report. Whatever a front end gives, the same
 * request makes the same bytes. */
#ifndef THEMIS_CMD_H
#define THEMIS_CMD_H

#include <stdint.h>
#include <stdio.h>

#include "cmd_option.h"
#include "themis/output.h"
#include "themis/plot.h"
#include "themis/run.h"

/* The commands' option tables, in `themis --help` order. */
extern const th_cmd_def th_cmd_run_def;

/* Where a command's reports go: `stream` takes the report when the request names no output
 * (the API's result); otherwise outputs are opened and closed through `files` (the command
 * line's keep a list for its signal handler; NULL: th_output_open and commit as they are). */
typedef struct th_cmd_io {
    FILE *stream;
    const th_plot_outputs *files;
} th_cmd_io;

/* Opens a report's destination: io->stream when path is NULL and there is one, else path
 * (NULL: "-", stdout) through io->files; force replaces an existing file. */
int th_cmd_out_open(const th_cmd_io *io, const char *path, int force, th_output *o, th_error *err);
/* Commits (rc TH_OK) or removes what th_cmd_out_open opened; returns rc or the commit's error. */
int th_cmd_out_close(const th_cmd_io *io, th_output *o, int rc, th_error *err);

/* A system from a file, an object's text (from JSON), or the built-in default (neither);
 * *who is what an error the system causes later is blamed on (NULL for the default). */
int th_cmd_load_system(const th_arg_src *s, th_system *sys, th_run_defaults *def, const char **who,
                       th_error *err);
/* Prefixes err's message with "WHO: " ("<stdin>" for "-"; nothing when who is NULL); returns
 * err->code. */
int th_cmd_blame(th_error *err, const char *who);

/* `themis run`: one collective on one system under each asked policy pair. */
typedef struct th_run_request {
    th_arg_src system;  /* -s: a system file (or, from JSON, object); none: default-3d */
    int collective;     /* -c: a th_coll_type */
    double size;        /* -b: bytes */
    int64_t chunks;     /* -n */
    int policy, intra;  /* -p, -q: -1 = all */
    th_arg_src dims;    /* --dims "0,2"; none: every dim */
    int load_model;     /* --load-model: a th_load_model */
    int format;         /* -f: a th_format */
    const char *output; /* -o; NULL: io->stream, or stdout */
    const char *trace;  /* --trace: the per-stage trace CSV; NULL: none */
    int force, bound, ideal_lat;
    uint64_t given; /* the options given (th_cmd_run_def order) */
} th_run_request;

/* Zero, then the defaults of every option not given: a system file's "run" object stands in
 * for an absent chunks, policy or intra (th_cmd_run applies that part). */
void th_run_request_init(th_run_request *r);
int th_cmd_run(const th_run_request *r, const th_cmd_io *io, th_error *err);

#endif

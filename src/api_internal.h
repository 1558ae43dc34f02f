/* Shared by the embedding entry point's files (api.c: dispatch and request helpers;
 * api_run.c: run, train, system; api_sweep.c: sweep; api_optimize.c: optimize;
 * api_calibrate.c: calibrate; api_plot.c: plot). */
#ifndef THEMIS_API_INTERNAL_H
#define THEMIS_API_INTERNAL_H

#include <stdint.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "themis/api.h"
#include "themis/run.h"
#include "themis/train.h"
#include "themis/workload.h"

/* One call: the command (it names the request in messages), its request, the row callback. */
typedef struct th_api_req {
    const char *cmd;
    const cJSON *root; /* an object */
    th_api_row_fn row;
    void *row_ctx;
} th_api_req;

/* A command writes its JSON result to out (a memory stream). */
int th_api_run(const th_api_req *q, FILE *out, th_error *err);
int th_api_train(const th_api_req *q, FILE *out, th_error *err);
int th_api_system(const th_api_req *q, FILE *out, th_error *err);
int th_api_sweep(const th_api_req *q, FILE *out, th_error *err);
int th_api_optimize(const th_api_req *q, FILE *out, th_error *err);
int th_api_calibrate(const th_api_req *q, FILE *out, th_error *err);
int th_api_plot(const th_api_req *q, FILE *out, th_error *err);

/* Request values: each returns TH_OK when the key is absent (leaving *out as it was) or valid,
 * and TH_EINPUT "<cmd>: <key>: expected ..., got ..." otherwise. */
int th_api_keys(const th_api_req *q, const char *const *known, th_error *err);
int th_api_int(const th_api_req *q, const char *key, long long lo, long long hi, int64_t *out,
               int *set, th_error *err);
int th_api_number(const th_api_req *q, const char *key, double lo, double hi, double *out,
                  th_error *err);
int th_api_bool(const th_api_req *q, const char *key, int *out, th_error *err);
/* One of names[0 .. n-1] (its index) or "all" (-1); *set tells whether the key was given. */
int th_api_choice(const th_api_req *q, const char *key, const char *const *names, int n, int *out,
                  int *set, th_error *err);
/* A size: bytes as a number, or a string such as "64MiB". */
int th_api_size(const th_api_req *q, const char *key, double *out, th_error *err);
/* "dims": a list of dim indices or a string "0,2", checked against ndims. */
int th_api_dims(const th_api_req *q, int ndims, uint32_t *mask, th_error *err);
/* A string value (NULL when absent). */
int th_api_string(const th_api_req *q, const char *key, const char **out, th_error *err);

/* "system": a file, an object (named "system" in messages) or the built-in default; *blame is
 * what to prefix to an error the system causes later (NULL for the default). */
int th_api_load_system(const th_api_req *q, th_system *sys, th_run_defaults *def,
                       const char **blame, th_error *err);
/* "workload" (required): a file or an object (named "workload"); *source names it. */
int th_api_load_workload(const th_api_req *q, th_workload **wl, const char **source, th_error *err);
/* Prefixes err's message with "<who>: " when who is not NULL (the system's name when the
 * system caused the error, as the command line does); returns err->code. */
int th_api_blame(th_error *err, const char *who);
/* train's and optimize's poll (th_train_opts.poll) when the caller gave a callback: the
 * callback with no fields, at most every 10 ms (it may be a call into another language, such
 * as Python, which sees Ctrl-C only then). ctx: a th_api_poller {q} (zero otherwise). */
typedef struct th_api_poller {
    const th_api_req *q;
    double last; /* ms, CLOCK_MONOTONIC, of the last call; 0: none yet */
} th_api_poller;
int th_api_poll(void *ctx);
/* Sets t's poll to th_api_poll on p when q has a callback. */
void th_api_poll_train(const th_api_req *q, th_api_poller *p, th_train_opts *t);

/* An object value printed back to JSON text (the caller frees it with cJSON_free). */
int th_api_object_text(const th_api_req *q, const cJSON *v, char **text, th_error *err);

#endif

/* Shared by the embedding entry point's files (api.c: dispatch; api_run.c: run, train, system;
 * api_sweep.c: sweep; api_optimize.c: optimize; api_calibrate.c: calibrate; api_plot.c: plot),
 * each a JSON request read through a command's option table into the command layer. */
#ifndef THEMIS_API_INTERNAL_H
#define THEMIS_API_INTERNAL_H

#include <stdio.h>

#include <cjson/cJSON.h>

#include "themis/api.h"
#include "themis/error.h"

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
int th_api_export_chakra(const th_api_req *q, FILE *out, th_error *err);
int th_api_system(const th_api_req *q, FILE *out, th_error *err);
int th_api_sweep(const th_api_req *q, FILE *out, th_error *err);
int th_api_optimize(const th_api_req *q, FILE *out, th_error *err);
int th_api_calibrate(const th_api_req *q, FILE *out, th_error *err);
int th_api_plot(const th_api_req *q, FILE *out, th_error *err);

/* train's and optimize's poll (th_cmd_io.poll) when the caller gave a callback: the callback
 * with no fields, at most every 10 ms (it may be a call into another language, such as
 * Python, which sees Ctrl-C only then). */
typedef struct th_api_poller {
    const th_api_req *q;
    double last; /* ms, CLOCK_MONOTONIC, of the last call; 0: none yet */
} th_api_poller;
struct th_cmd_io;
/* Sets io's poll to the callback's through p when q has one. */
void th_api_poll_io(const th_api_req *q, th_api_poller *p, struct th_cmd_io *io);

#endif

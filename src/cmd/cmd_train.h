/* `train` on a workload of another format than our JSON (cmd_train_format.c), for
 * cmd_train.c. */
#ifndef THEMIS_CMD_TRAIN_H
#define THEMIS_CMD_TRAIN_H

#include "../workload_format.h"
#include "cmd.h"
#include "themis/llm.h"
#include "themis/train.h"

/* Our JSON workload given the other formats' options (--comm-scale, --compute-scale,
 * --passes, --remote-memory): TH_EINPUT naming them. */
int th_cmd_train_format_check(const th_train_request *r, const char *source, const th_cmd_io *io,
                              th_error *err);

/* What --remote-memory is for, in messages: the formats that take it. */
const char *th_cmd_memory_formats(void);

/* A workload f of another format on sys: when the model of sys replays the format itself,
 * that replay runs and writes its results (*wl stays NULL); else it is converted for our
 * replay (its notes to io->notes) into *wl. */
int th_cmd_train_format(const th_train_request *r, const th_train_opts *t,
                        const th_run_defaults *def, const char *path, th_wl_file *f,
                        const th_system *sys, const th_cmd_io *io, th_workload **wl, th_error *err);

/* LLM workloads (the format th_llm_wl_format, cmd_train_llm.c): the comparison of policy
 * pairs with the breakdown and the memory per NPU; who names the system file in errors. */
int th_cmd_train_llm(const th_train_request *r, const th_cmd_io *io, const th_system *sys,
                     const char *who, const char *source, const th_llm_workload *wl, th_error *err);
/* A workload of layers given the LLM options (--micro-batch, --schedule): TH_EINPUT naming
 * them. */
int th_cmd_train_llm_check(const th_train_request *r, const char *source, const th_cmd_io *io,
                           th_error *err);

#endif

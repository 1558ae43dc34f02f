/* `train` on an ASTRA-sim 1.0 text workload (cmd_train_astra1.c), for cmd_train.c. */
#ifndef THEMIS_CMD_TRAIN_H
#define THEMIS_CMD_TRAIN_H

#include "cmd.h"
#include "themis/astra1_workload.h"
#include "themis/train.h"

/* A JSON workload given the text workloads' options (--comm-scale, --compute-scale, --passes):
 * TH_EINPUT naming them. */
int th_cmd_train_astra1_check(const th_train_request *r, const char *source, const th_cmd_io *io,
                              th_error *err);

/* A text workload on sys: under the astra-sim-1.0 preset, ASTRA-sim 1.0's state machine is
 * replayed and its results written (*wl stays NULL); under another model it is converted for
 * our replay (its notes to io->notes) into *wl. */
int th_cmd_train_astra1(const th_train_request *r, const th_train_opts *t,
                        const th_run_defaults *def, const char *path, const th_a1_workload *a1,
                        const th_system *sys, const th_cmd_io *io, th_workload **wl, th_error *err);

#endif

/* `optimize`'s reports (cmd_optimize_report.c), for cmd_optimize.c. */
#ifndef THEMIS_CMD_OPTIMIZE_H
#define THEMIS_CMD_OPTIMIZE_H

#include <stdio.h>

#include "cmd.h"
#include "themis/optimize.h"

/* The best chunk count of each pair and its time (ns), as r->format asks. */
int th_cmd_optimize_write_best(FILE *out, int format, const th_system *sys,
                               const th_collective *coll, const th_pair *pairs, const int64_t *best,
                               const double *t, int npairs, th_error *err);
/* The best split of each pair, as r->format asks (the table names the objective). */
int th_cmd_optimize_write(FILE *out, const th_optimize_request *r, const th_collective *coll,
                          const th_system *sys, const th_pair *pairs, const th_opt_result *res,
                          int n, th_error *err);

#endif

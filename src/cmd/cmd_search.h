/* `search`'s report (cmd_search_report.c), for cmd_search.c. */
#ifndef THEMIS_CMD_SEARCH_H
#define THEMIS_CMD_SEARCH_H

#include <stdio.h>

#include "cmd.h"
#include "themis/llm_search.h"

/* What a search found, per policy pair. */
typedef struct th_search_report {
    const th_system *sys;
    const th_llm_model *m;
    int64_t global_batch, top;
    double npus; /* tp * pp * dp */
    int npairs;
    const th_pair *pairs;
    const th_llm_search_result *res; /* one per pair */
} th_search_report;

/* The report as a table, JSON, CSV or JSONL (one result object per line). */
int th_cmd_search_write(FILE *out, int format, const th_search_report *rep, th_error *err);

#endif

/* The report of an LLM workload (`themis train` on a workload with "llm"): each policy pair's
 * iteration and its breakdown, MFU and TFLOP/s per NPU, and the memory per NPU, as a table,
 * JSON, CSV or JSONL with the same keys. */
#ifndef THEMIS_REPORT_LLM_H
#define THEMIS_REPORT_LLM_H

#include <stdio.h>

#include "themis/llm.h"
#include "themis/report.h"

typedef struct th_llm_report {
    const th_system *sys;
    const th_llm_workload *wl; /* its name and model */
    const th_llm_exec *exec;   /* the execution evaluated (the file's, with the options') */
    const th_llm_map *map;     /* where its groups run */
    const th_llm_row *rows;
    int nrows;
} th_llm_report;

int th_report_llm_write(FILE *out, th_format format, const th_llm_report *rep, th_error *err);

/* The keys of a row's breakdown, in report order, and its values (ns), for every format (and
 * sweeps' columns): forward_us, backward_us, ... optimizer_us. */
#define TH_LLM_PARTS 9
extern const char *const th_report_llm_parts[];
void th_report_llm_part_values(const th_llm_breakdown *b, double *ns);

#endif

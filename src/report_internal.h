/* Pieces shared by the report files (run and train reports). */
#ifndef THEMIS_REPORT_INTERNAL_H
#define THEMIS_REPORT_INTERNAL_H

#include <cjson/cJSON.h>

#include "themis/report.h"

/* The system as a JSON object: name, npus, reduce_GBps (when set), dims. */
cJSON *th_report_system_json(const th_system *sys);

/* Flushes `out`; TH_EINTERNAL when anything failed to be written. */
int th_report_done(FILE *out, th_error *err);

/* Prints root (and deletes it) to `out` with a final newline. */
int th_report_write_json(FILE *out, cJSON *root, th_error *err);

#endif

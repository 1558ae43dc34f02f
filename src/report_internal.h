/* Pieces shared by the report files (run and train reports). */
#ifndef THEMIS_REPORT_INTERNAL_H
#define THEMIS_REPORT_INTERNAL_H

#include <cjson/cJSON.h>

#include "themis/report.h"

/* The system as a JSON object: name, npus, reduce_GBps (when set), dims. */
cJSON *th_report_system_json(const th_system *sys);

#endif

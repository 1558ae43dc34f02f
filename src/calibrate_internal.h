/* Internal to the calibrate readers (text and JSON): the row checks both make, and where a
 * row is, for messages. */
#ifndef THEMIS_CALIBRATE_INTERNAL_H
#define THEMIS_CALIBRATE_INTERNAL_H

#include "themis/calibrate.h"

/* "FILE:LINE" for the text output, "FILE: results[K]" for JSON. */
const char *cal_where(const th_cal_log *log, int line, char *buf, size_t n);

/* Appends row to log after the checks of every format: a size >= 0; the same data type and
 * reduction op as the first row; sizes that never go backwards except to the first row's size
 * (a new cycle); rows of size 0 counted and dropped. */
int cal_add_row(th_cal_log *log, const th_cal_row *row, const char *type, const char *redop,
                th_error *err);

/* Parses nccl-tests -J JSON (calibrate_json.c). */
int cal_parse_json(const char *text, size_t len, th_cal_log *log, th_error *err);

#endif

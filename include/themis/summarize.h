/* Summary statistics of one CSV column grouped by others (count, mean, geometric mean, min,
 * max), read as a stream with one running accumulator per group: how the docs quote "average
 * and max speedup" from a sweep's CSV. */
#ifndef THEMIS_SUMMARIZE_H
#define THEMIS_SUMMARIZE_H

#include <stddef.h>
#include <stdio.h>

#include "themis/error.h"
#include "themis/export.h"

/* One group: the rows whose --by columns hold the same values. */
typedef struct th_summary_group {
    char **keys;         /* nby values of the --by columns, as written in the CSV */
    size_t count;        /* rows with a value of the metric (empty fields are skipped) */
    double mean;         /* arithmetic mean; NaN when count is 0 */
    double gmean;        /* geometric mean; NaN when count is 0 or a value is <= 0 */
    double min;          /* NaN when count is 0 */
    double max;          /* NaN when count is 0 */
    char **best;         /* th_summarize_best: the fields of the group's best row (ncols of them, as
                            written in the CSV; the first such row on ties); NULL when count is 0 */
    long long best_line; /* its line in the CSV (0 when best is NULL) */
} th_summary_group;

/* Which row th_summarize_best keeps per group. */
typedef enum { TH_BEST_MIN, TH_BEST_MAX } th_best;

/* The summary of a CSV: groups in the order their first row appears. */
typedef struct th_summary {
    char **by;    /* nby grouping column names */
    size_t nby;   /* 0 = one group of every row */
    char *metric; /* the summarized column */
    th_summary_group *groups;
    size_t ngroups;
    size_t rows;    /* data rows read */
    char **columns; /* th_summarize_best: the CSV's header (ncols names); else NULL */
    size_t ncols;
} th_summary;

/* Reads a CSV (RFC 4180: header row, then data rows; empty lines skipped) from in, named name
 * in error messages, and summarizes column metric grouped by the nby columns of by. Memory
 * grows with the number of groups, not of rows. Errors (TH_EINPUT): empty input, malformed
 * CSV, a missing column, a row with the wrong number of fields, a metric value that is not a
 * finite number; TH_EIO when reading fails. On success fills out; free with
 * th_summary_free. */
TH_API int th_summarize(FILE *in, const char *name, const char *const *by, size_t nby,
                        const char *metric, th_summary *out, th_error *err);

/* th_summarize, and per group the whole row whose metric is least (TH_BEST_MIN) or greatest
 * (TH_BEST_MAX): which chunk count, which bandwidth won. Memory grows with the number of groups
 * (one row each), not of rows. */
TH_API int th_summarize_best(FILE *in, const char *name, const char *const *by, size_t nby,
                             const char *metric, th_best mode, th_summary *out, th_error *err);

/* Frees what th_summarize allocated and zeroes s; safe on a zeroed summary. */
TH_API void th_summary_free(th_summary *s);

#endif

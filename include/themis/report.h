/* Results out: the comparison as a table, JSON, CSV or JSONL, and the per-stage trace CSV.
 * Writes to a stream the caller opened; returns TH_EIO when writing fails, TH_EINTERNAL when
 * memory runs out. */
#ifndef THEMIS_REPORT_H
#define THEMIS_REPORT_H

#include <stdio.h>

#include "themis/export.h"
#include "themis/optimize.h"
#include "themis/run.h"
#include "themis/summarize.h"
#include "themis/train.h"

/* The formats of a report (-f). JSONL is one JSON object per line: the objects of the JSON
 * document's results (groups for a summary), the same keys and values, so that line-oriented
 * readers (pandas read_json(lines=True), jq -c) load them as rows. */
typedef enum { TH_FORMAT_TABLE, TH_FORMAT_JSON, TH_FORMAT_CSV, TH_FORMAT_JSONL } th_format;
TH_API extern const char *const th_format_names[]; /* "table", "json", "csv", "jsonl", NULL */

typedef struct th_report {
    const th_system *sys;
    const th_collective *coll;
    th_load_model model;
    const th_pair *pairs;     /* npairs evaluated pairs */
    const th_result *results; /* one per pair */
    int npairs;
    double bound;  /* the optimal bound (th_bound_eval), ns; 0 = not asked: no bound_us, vs_bound */
    int ideal_lat; /* --ideal-lat: ideal_lat_us (ideal + lat_floor) and vs_ideal_lat */
    double lat_floor; /* the collective's latency floor (th_cost_latency_floor), ns */
} th_report;

TH_API int th_report_table(FILE *out, const th_report *rep, th_error *err);
TH_API int th_report_json(FILE *out, const th_report *rep, th_error *err);
TH_API int th_report_csv(FILE *out, const th_report *rep, th_error *err);
TH_API int th_report_jsonl(FILE *out, const th_report *rep, th_error *err);
/* The report in `format` (one of the four above). */
TH_API int th_report_write(FILE *out, th_format format, const th_report *rep, th_error *err);

/* Trace CSV: header policy,intra,chunk,stage,op,dim,bytes,ready_us,start_us,end_us. */
TH_API void th_report_trace_header(FILE *out);
/* One row; -1 when memory ran out (nothing written), write errors stay on the stream. */
TH_API int th_report_trace_row(FILE *out, th_pair pair, const th_stage_rec *rec);

typedef struct th_train_report {
    const th_system *sys;
    const th_workload *wl;
    const th_train_opts *opts; /* priority, iterations, batch, chunks */
    const th_train_row *rows;
    int nrows;
    double ideal_lat; /* the ideal network's iteration with latency floors, ns; 0 = not asked */
} th_train_report;

TH_API int th_report_train_table(FILE *out, const th_train_report *rep, th_error *err);
TH_API int th_report_train_json(FILE *out, const th_train_report *rep, th_error *err);
TH_API int th_report_train_csv(FILE *out, const th_train_report *rep, th_error *err);
TH_API int th_report_train_jsonl(FILE *out, const th_train_report *rep, th_error *err);
TH_API int th_report_train_write(FILE *out, th_format format, const th_train_report *rep,
                                 th_error *err);

/* Training trace CSV: header policy,intra,kind,iteration,layer,phase,start_us,end_us; a row
 * returns -1 when memory ran out (nothing written), write errors stay on the stream. */
TH_API void th_report_train_trace_header(FILE *out);
TH_API int th_report_train_trace_row(FILE *out, const th_workload *wl, th_policy policy,
                                     th_intra intra, const th_train_event *ev);

/* `themis summarize`: the groups of a summary as an aligned table ('-' for a statistic with
 * no value), JSON or JSONL (null) or CSV (an empty field). */
TH_API int th_report_summary_table(FILE *out, const th_summary *s, th_error *err);
TH_API int th_report_summary_json(FILE *out, const th_summary *s, th_error *err);
TH_API int th_report_summary_csv(FILE *out, const th_summary *s, th_error *err);
TH_API int th_report_summary_jsonl(FILE *out, const th_summary *s, th_error *err);
TH_API int th_report_summary_write(FILE *out, th_format format, const th_summary *s, th_error *err);

/* `themis summarize --best`: each group's best row (th_summarize_best) as an aligned table of
 * every column, JSON (groups with keys, line and row, numeric fields as numbers) or CSV (the
 * input's header, then one row per group, as read). Groups with no value are left out. */
TH_API int th_report_best_table(FILE *out, const th_summary *s, th_best mode, th_error *err);
TH_API int th_report_best_json(FILE *out, const th_summary *s, th_best mode, th_error *err);
TH_API int th_report_best_csv(FILE *out, const th_summary *s, th_error *err);
TH_API int th_report_best_jsonl(FILE *out, const th_summary *s, th_best mode, th_error *err);
TH_API int th_report_best_write(FILE *out, th_format format, const th_summary *s, th_best mode,
                                th_error *err);

/* `themis optimize -f json|jsonl|csv` (docs/SCHEMA.md): per pair a row with the system's name,
 * the collective's size_bytes and chunks (coll NULL, for a list of collectives: null, empty in
 * CSV), the best split found (time_us, start_time_us, speedup, spent, evaluations) and per_dim
 * bw_GBps; JSON is {"system", "results": [rows]}. */
TH_API int th_report_optimize_write(FILE *out, th_format format, const th_system *sys,
                                    const th_collective *coll, const th_pair *pairs,
                                    const th_opt_result *res, int n, th_error *err);
/* `themis optimize --chunks LIST`: per pair a row with system, policy, intra, size_bytes, the
 * best chunk count and its time (time_us, from ns in time); JSON is the list of rows. */
TH_API int th_report_best_chunks_write(FILE *out, th_format format, const th_system *sys,
                                       const th_collective *coll, const th_pair *pairs,
                                       const int64_t *best, const double *time, int n,
                                       th_error *err);

#endif

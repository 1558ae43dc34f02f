/* Pieces shared by the report files (run and train reports). */
#ifndef THEMIS_REPORT_INTERNAL_H
#define THEMIS_REPORT_INTERNAL_H

#include <cjson/cJSON.h>

#include "themis/buf.h"
#include "themis/llm.h"
#include "themis/num.h"
#include "themis/report.h"

/* The system as a JSON object: name, npus, reduce_GBps (when set), dims. `type` is the
 * collective reported (a th_coll_type: each dim's "algorithm" is the one it runs for it), or
 * -1 for none (the All-Reduce's). */
cJSON *th_report_system_json(const th_system *sys, int type);
/* An LLM report's system with its NPU (the keys of system files), and its memory per NPU
 * (bytes, the capacity and whether it fits): the same in `themis train` and `themis search`. */
cJSON *th_report_llm_system_json(const th_system *sys);
cJSON *th_report_llm_memory_json(const th_llm_mem *m, double capacity, int fits);

/* The name of the algorithm dim k runs for a collective of `type`, as the system file spells
 * it (the model's names, model.h's alg_name; else ring, direct, rhd), in buf. */
#define TH_ALG_NAME 24
const char *th_report_dim_algorithm(const th_system *sys, int k, th_coll_type type, char *buf,
                                    size_t n);
/* Adds dim k's "algorithm" (for `type`, as above) to `dim`, and "algorithms" (one per collective
 * type: allreduce, reducescatter, allgather, alltoall, as many as the model's alg_types) when
 * the dim's types differ. 0, or -1 when memory ran out. */
int th_report_dim_algorithms(cJSON *dim, const th_system *sys, int k, int type);

/* A text table whose columns are as wide as their widest cell (at least a given width), one
 * space apart, so that values of any length stay aligned and never run together. */
#define TH_TABLE_ROWS 24
#define TH_TABLE_COLS (TH_MAX_DIMS + 8)
#define TH_TABLE_CELL (4 * TH_NAME_MAX + 16) /* an escaped name (th_text_escape) and more */
typedef struct th_table {
    int ncols, nrows, next;   /* columns, rows begun, cells added */
    int width[TH_TABLE_COLS]; /* characters: the minimum, widened by th_table_cell */
    int left[TH_TABLE_COLS];  /* left-aligned (text) rather than right (numbers) */
    char cell[TH_TABLE_ROWS][TH_TABLE_COLS][TH_TABLE_CELL];
} th_table;

/* Adds a column (before any cell) of at least `width` characters. */
void th_table_col(th_table *t, int width, int left);
/* Adds the next cell, row by row; cells beyond TH_TABLE_ROWS rows are dropped. */
void th_table_cell(th_table *t, const char *text);
/* Prints the rows, each ending in a newline. */
void th_table_print(FILE *out, const th_table *t);

/* The JSON document of a summary or of its best rows, without its groups: "metric", "best"
 * (unless NULL), "by", "rows", and the empty "groups" array, returned in *groups. */
cJSON *th_report_summary_head(const th_summary *s, const char *best, cJSON **groups);
/* A group's object, added to groups, holding its "keys" (each --by column's value). */
cJSON *th_report_summary_group(cJSON *groups, const th_summary *s, const th_summary_group *gr);

/* Flushes `out`; TH_EIO when anything failed to be written. */
int th_report_done(FILE *out, th_error *err);

/* Prints root (and deletes it) to `out` with a final newline; root NULL: out of memory. */
int th_report_write_json(FILE *out, cJSON *root, th_error *err);

/* Replaces the bytes of node's key and string value that are not valid UTF-8 by U+FFFD (not its
 * children's): 0, or -1 when memory ran out. The JSON writers call it on every node. */
int th_report_json_utf8(cJSON *node);

/* Prepares a tree for cJSON_Print as every JSON output is printed: each number as the text
 * th_num_format gives (cJSON's own prints 8000000000000001 as 8e+15), a non-finite one as
 * null, strings repaired by th_report_json_utf8. 0, or -1 when memory ran out. */
int th_report_json_exact(cJSON *node);
/* JSONL: prints each element of root's array `key` on one line (no other whitespace), then
 * deletes root: the lines hold exactly the objects the JSON document holds there. */
int th_report_write_jsonl(FILE *out, cJSON *root, const char *key, th_error *err);

/* A result row (a JSON object) as one CSV record (docs/SCHEMA.md): each scalar member a
 * column of its name; a list of scalars one column, its values joined by ';' (dims "0;1"); a
 * list of objects a column per element and member, named after the list without "per_", the
 * index and the member (per_dim[1].busy_us: dim1_busy_us); an object's members name_member.
 * Numbers have th_num_format's digits, true and false are 1 and 0; null and non-finite
 * numbers are empty. Appends the
 * record of the column names (names != 0) or of the values to b; 0, or -1 when memory ran out. */
int th_report_flat(th_buf *b, const cJSON *row, int names);
/* CSV: the header of the first element of root's array `key`, then every element flattened by
 * th_report_flat (each must have the first one's columns), then deletes root. */
int th_report_write_csv(FILE *out, cJSON *root, const char *key, th_error *err);

#endif

/* Shared declarations for the Check test runner: one suite per module, plus the helpers. */
#ifndef CHECK_THEMIS_H
#define CHECK_THEMIS_H

#include <check.h>
#include <math.h>
#include <stddef.h>

#include "themis/astra.h"
#include "themis/astra1.h"
#include "themis/astra1_workload.h"
#include "themis/buf.h"
#include "themis/collist.h"
#include "themis/csv.h"
#include "themis/num.h"
#include "themis/output.h"
#include "themis/plot.h"
#include "themis/sha256.h"
#include "themis/str.h"
#include "themis/text.h"
#include "themis/themis.h"

Suite *units_suite(void);
Suite *str_suite(void);
Suite *buf_suite(void);
Suite *csv_suite(void);
Suite *system_suite(void);
Suite *cost_suite(void);
Suite *schedule_suite(void);
Suite *emulate_suite(void);
Suite *emu_queue_suite(void);
Suite *run_suite(void);
Suite *report_suite(void);
Suite *cli_suite(void);
Suite *sweep_suite(void);
Suite *sweep_refs_suite(void);
Suite *astra_suite(void);
Suite *astra_npus_suite(void);
Suite *astra1_suite(void);
Suite *astra1_npus_suite(void);
Suite *astra1_workload_suite(void);
Suite *bound_suite(void);
Suite *optimize_suite(void);
Suite *train_suite(void);
Suite *workloads_suite(void);
Suite *cli_sweep_suite(void);
Suite *summarize_suite(void);
Suite *output_suite(void);
Suite *text_suite(void);
Suite *cli_train_suite(void);
Suite *cli_csv_suite(void);
Suite *figures_suite(void);
Suite *install_suite(void);
Suite *cli_formats_suite(void);
Suite *sha256_suite(void);
Suite *cli_meta_suite(void);
Suite *api_suite(void);
Suite *plot_suite(void);
Suite *cli_plot_suite(void);
Suite *calibrate_suite(void);
Suite *cli_errors_suite(void);
Suite *llm_suite(void);
Suite *search_suite(void);
Suite *cli_search_suite(void);
Suite *cli_llm_suite(void);
Suite *chakra_export_suite(void);
Suite *cli_chakra_suite(void);
Suite *chakra_suite(void);
Suite *chakra_mem_suite(void);

/* Relative comparison for hand-derived values: |got - want| <= 1e-9 * max(1, |want|). */
#define ck_assert_rel(got, want)                                                                   \
    do {                                                                                           \
        double g_ = (got), w_ = (want);                                                            \
        double tol_ = 1e-9 * (fabs(w_) > 1.0 ? fabs(w_) : 1.0);                                    \
        ck_assert_msg(fabs(g_ - w_) <= tol_, "%s = %.17g, expected %.17g", #got, g_, w_);          \
    } while (0)

/* Path of a file under tests/data/ (THEMIS_SRCDIR or "."); static buffer, one at a time. */
const char *test_data(const char *name);

/* Appends a dim with its topology's default algorithm (SPEC §2) and efficiency 1. */
void test_add_dim(th_system *s, th_topology topo, int64_t p, double bw, double lat);
/* Names the system "test" and validates it (fills bw and npus); fails the test if invalid. */
void test_finish(th_system *s);
/* The worked example of the reference facts: p = (4, 8, 16), B = (300, 400, 100) GB/s,
 * alpha 0, topologies ring, fc, switch. */
th_system test_ref_system(void);
th_collective test_coll(th_coll_type t, double size, int64_t chunks, uint32_t mask);
/* Asserts two results are bit-identical. */
void test_same_result(const th_result *a, const th_result *b);

/* ---- files and folders ---- */

/* Absolute path of a tests/data file; four rotating buffers, so one command can name several. */
const char *test_dpath(const char *name);
/* A fresh empty folder under $TMPDIR (or /tmp); the caller removes it with test_rm_dir. */
char *test_tmp_dir(void);
/* A fresh empty file under $TMPDIR (or /tmp); the caller unlinks it and frees the path. */
char *test_tmp_file(void);
/* Removes the folder and all it holds (rm -rf), then frees the path. */
void test_rm_dir(char *dir);
/* Declares char var[] holding dir/name. */
#define TEST_DIR_PATH(var, dir, name)                                                              \
    char var[4200];                                                                                \
    snprintf(var, sizeof var, "%s/%s", dir, name)
/* Reads a whole file into a malloc'd NUL-terminated buffer (its length in *len unless NULL);
 * fails the test when the file cannot be read. */
char *test_slurp(const char *path, size_t *len);
/* Writes len bytes of data to path (created or truncated); fails the test on error. */
void test_spit(const char *path, const char *data, size_t len);
/* True when path exists. */
int test_exists(const char *path);
/* A malloc'd copy of json with every ' turned into " (for specs written in C strings). */
char *test_dq(const char *json);
/* Writes test_dq(json) to path (a spec written with ' quotes in C). */
void test_spit_dq(const char *path, const char *json);

/* ---- running the themis binary ---- */

/* One finished command: its ARGS, exit status (-1 when it did not exit normally), output. */
typedef struct test_cli_out {
    char *args; /* ARGS as run */
    int status;
    char *out; /* stdout, NUL-terminated */
    size_t out_len;
    char *err; /* stderr, NUL-terminated */
    size_t err_len;
} test_cli_out;

/* The binary ($THEMIS_BIN or build/themis) as an absolute path, so commands may cd first. */
const char *test_cli_bin(void);
/* Runs `cd DIR && themis ARGS` (DIR NULL: here); ARGS is a shell fragment; stdin is /dev/null
 * unless ARGS redirects it. Free r with test_cli_free. */
void test_cli_in(test_cli_out *r, const char *dir, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Runs `cd DIR && themis ARGS` and asserts it exited 0 with nothing on stderr. */
void test_ok_in(const char *dir, const char *args);
/* test_cli_in in the current folder. */
void test_cli(test_cli_out *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Frees the output of a command. */
void test_cli_free(test_cli_out *r);
/* Asserts the command exited 0; `what` names it in the message. */
void test_expect_ok(const test_cli_out *r, const char *what);
/* Asserts the command exited 0 with nothing on stderr. */
void test_expect_quiet(const test_cli_out *r, const char *what);
/* A failure: exit `status`, nothing on stdout, one line on stderr starting "themis: ". */
void test_expect_status(const test_cli_out *r, int status, const char *what);
/* Bad input: test_expect_status with exit 2. */
void test_expect_bad(const test_cli_out *r, const char *what);
/* Runs ARGS and expects a failure with exit `status`; the message holds `needle` (unless NULL). */
void test_fails(int status, const char *needle, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* test_fails with exit 2 (bad input or usage). */
void test_bad(const char *needle, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Runs a shell command in the source folder with THEMIS_BIN exported; returns its exit status
 * (-1 when it did not exit) and fills out (size bytes) with its stdout and stderr merged. */
int test_sh(char *out, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* ---- a small RFC 4180 CSV reader, independent of src/csv.c ---- */

/* A parsed CSV: every data row as wide as the header. */
typedef struct test_csv {
    char *buf; /* the text, split in place */
    char *raw; /* the text as parsed */
    int ncols; /* header columns */
    int nrows; /* data rows */
    char **head;
    char ***cell; /* nrows x ncols */
} test_csv;

/* Splits one record (RFC 4180; quoted fields are unquoted in place) into at most max fields;
 * returns the count. Fails the test unless line holds exactly one record. */
int test_split(char *line, char **f, int max);
/* Parses text (a header and records, each ending in a line break; fields may be quoted and
 * hold commas, quotes and line breaks); free c with test_csv_free. */
void test_csv_parse(test_csv *c, const char *text);
/* Reads and parses the CSV file at path. */
void test_csv_read(test_csv *c, const char *path);
/* Frees a parsed CSV. */
void test_csv_free(test_csv *c);
/* Writes spec (JSON with ' for ", test_spit_dq) as DIR/spec.json, runs `themis sweep` on it to
 * stdout, asserts it was quiet and parses its CSV into c (free it with test_csv_free). */
void test_sweep_csv(test_csv *c, const char *dir, const char *spec);
/* Index of the named column; fails the test when there is none. */
int test_csv_col(const test_csv *c, const char *name);
/* The field of data row `row` in the named column. */
const char *test_csv_s(const test_csv *c, int row, const char *name);
/* The same field as a number; fails the test unless it is one in full. */
double test_csv_d(const test_csv *c, int row, const char *name);

#endif

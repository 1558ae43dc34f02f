/* Check suite for CSV round trips: names holding commas, quotes, line breaks and UTF-8 through
 * run, train, sweep, merge, --resume and summarize, read back by Python's csv module (an
 * independent RFC 4180 reader; python3 is a test dependency: without it these tests fail). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_themis.h"

/* The awkward names, as JSON string bodies and as json.dumps (ensure_ascii) prints them. */
#define SYS_JSON   "s,1 \\\"q\\\"\\nline é"
#define SYS_PY     "\"s,1 \\\"q\\\"\\nline \\u00e9\""
#define WL_JSON    "w,\\\"x\\\"\\r\\n ü"
#define WL_PY      "\"w,\\\"x\\\"\\r\\n \\u00fc\""
#define LAYER_JSON "lay,er \\\"1\\\""
#define LAYER_PY   "\"lay,er \\\"1\\\"\""

/* Reads path with Python's csv module and fills out with one line per data row: json.dumps of
 * column col. Fails the test when python3 fails (missing, or a row not as wide as the header:
 * exit 3) or the file is not UTF-8. */
static void py_column(const char *path, const char *col, char *out, size_t size) {
    int st =
        test_sh(out, size,
                "python3 -c 'import csv, json, sys\n"
                "rows = list(csv.reader(open(sys.argv[1], newline=\"\", encoding=\"utf-8\")))\n"
                "head = rows[0]\n"
                "bad = [i for i, r in enumerate(rows) if len(r) != len(head)]\n"
                "if bad: print(\"rows\", bad, \"differ from the header width\", len(head)); "
                "sys.exit(3)\n"
                "k = head.index(sys.argv[2])\n"
                "for r in rows[1:]: print(json.dumps(r[k]))\n"
                "' '%s' '%s'",
                path, col);
    ck_assert_msg(st == 0, "python3 reading %s (column %s): exit %d: %s", path, col, st, out);
}

/* Writes the awkward system, a plain one and the awkward workload into dir. */
static void write_inputs(const char *dir) {
    TEST_DIR_PATH(sys, dir, "sys,1.json");
    TEST_DIR_PATH(plain, dir, "plain.json");
    TEST_DIR_PATH(wl, dir, "w \"1\".json");
    const char *s = "{\"name\": \"" SYS_JSON "\", \"dims\": [{\"name\": \"d,0 \\\"é\\\"\", "
                    "\"topology\": \"ring\", \"npus\": 4, \"bw_GBps\": 100, \"latency_ns\": 10}]}";
    test_spit(sys, s, strlen(s));
    const char *p = "{\"name\": \"plain\", \"dims\": [{\"topology\": \"ring\", \"npus\": 4, "
                    "\"bw_GBps\": 100, \"latency_ns\": 10}]}";
    test_spit(plain, p, strlen(p));
    const char *w =
        "{\"name\": \"" WL_JSON "\", \"parallelism\": \"data\", \"chunks\": 1, \"layers\": ["
        "{\"name\": \"" LAYER_JSON "\", \"params\": 500000, \"forward\": {\"ns\": 1000}, "
        "\"input_grad\": {\"ns\": 500}, \"weight_grad\": {\"ns\": 800, \"collective\": "
        "{\"type\": \"allreduce\", \"size\": 1000000}}}]}";
    test_spit(wl, w, strlen(w));
}

/* Defect: `train -f csv` wrote the workload and system names unquoted (a comma shifted every
 * column), and so did its trace with layer names. */
START_TEST(train_names) {
    char *dir = test_tmp_dir();
    write_inputs(dir);
    test_cli_out r;
    test_cli_in(&r, dir,
                "train 'w \"1\".json' -s 'sys,1.json' -p baseline -q fifo -f csv -o out.csv "
                "--trace tr.csv");
    test_expect_quiet(&r, "train -f csv");
    test_cli_free(&r);
    TEST_DIR_PATH(out, dir, "out.csv");
    TEST_DIR_PATH(tr, dir, "tr.csv");
    char py[4096];
    py_column(out, "system", py, sizeof py);
    ck_assert_str_eq(py, SYS_PY "\n"); /* one row: baseline+fifo */
    py_column(out, "workload", py, sizeof py);
    ck_assert_str_eq(py, WL_PY "\n");
    py_column(out, "collectives", py, sizeof py);
    ck_assert_str_eq(py, "\"1\"\n"); /* the one layer's one collective */
    py_column(tr, "layer", py, sizeof py);
    ck_assert_msg(strncmp(py, LAYER_PY "\n", strlen(LAYER_PY) + 1) == 0, "trace layers: %s", py);
    /* the tests' own reader agrees */
    test_csv t;
    test_csv_read(&t, out);
    ck_assert_str_eq(test_csv_s(&t, 0, "system"), "s,1 \"q\"\nline é");
    ck_assert_str_eq(test_csv_s(&t, 0, "workload"), "w,\"x\"\r\n ü");
    test_csv_free(&t);
    test_rm_dir(dir);
}
END_TEST

START_TEST(run_names) {
    char *dir = test_tmp_dir();
    write_inputs(dir);
    test_cli_out r;
    test_cli_in(&r, dir, "run -s 'sys,1.json' -b 1e6 -n 1 -p baseline -f csv -o out.csv");
    test_expect_quiet(&r, "run -f csv");
    test_cli_free(&r);
    TEST_DIR_PATH(out, dir, "out.csv");
    char py[4096];
    py_column(out, "system", py, sizeof py);
    ck_assert_str_eq(py, SYS_PY "\n" SYS_PY "\n"); /* baseline with fifo and scf */
    /* ring of 4, 1e6 bytes, 1 chunk: RS 3 steps of 10 + 2.5e5/100 ns = 7530 ns, AG the
     * same: 15060 ns = 15.06 us */
    py_column(out, "time_us", py, sizeof py);
    ck_assert_str_eq(py, "\"15.06\"\n\"15.06\"\n");
    test_rm_dir(dir);
}
END_TEST

/* A sweep over the awkward system (in a file whose name holds a comma) and a plain one. */
static const char *const SPEC =
    "{'collective': {'size': 1000000, 'chunks': 1}, 'axes': {'system': ['sys,1.json', "
    "'plain.json'], 'policy': ['baseline', 'themis'], 'chunks': [1, 2, 4]}}";

static void write_spec(const char *dir) {
    TEST_DIR_PATH(spec, dir, "spec.json");
    test_spit_dq(spec, SPEC);
}

static void sweep_ok(const char *dir, const char *args) {
    test_cli_out r;
    test_cli_in(&r, dir, "sweep spec.json --quiet %s", args);
    test_expect_ok(&r, args);
    test_cli_free(&r);
}

/* The sweep's rows by Python: the system column holds the name, system_file the file. */
static void check_sweep_csv(const char *path) {
    char py[8192], want[8192] = "";
    py_column(path, "system", py, sizeof py);
    for (int i = 0; i < 12; i++) /* 2 systems x 2 policies x 3 chunk counts */
        strcat(want, i < 6 ? SYS_PY "\n" : "\"plain\"\n");
    ck_assert_str_eq(py, want);
    py_column(path, "system_file", py, sizeof py);
    want[0] = '\0';
    for (int i = 0; i < 12; i++)
        strcat(want, i < 6 ? "\"sys,1.json\"\n" : "\"plain.json\"\n");
    ck_assert_str_eq(py, want);
    py_column(path, "point", py, sizeof py);
    ck_assert_str_eq(py, "\"0\"\n\"1\"\n\"2\"\n\"3\"\n\"4\"\n\"5\"\n\"6\"\n\"7\"\n\"8\"\n\"9\"\n"
                         "\"10\"\n\"11\"\n");
}

START_TEST(sweep_merge_resume) {
    char *dir = test_tmp_dir();
    write_inputs(dir);
    write_spec(dir);
    TEST_DIR_PATH(full, dir, "full.csv");
    sweep_ok(dir, "-o full.csv");
    check_sweep_csv(full);
    /* shards, merged: the same bytes */
    sweep_ok(dir, "-o p0.csv --shard 0/3");
    sweep_ok(dir, "-o p1.csv --shard 1/3");
    sweep_ok(dir, "-o p2.csv --shard 2/3");
    test_cli_out r;
    test_cli_in(&r, dir, "merge merged.csv p0.csv p1.csv p2.csv");
    test_expect_ok(&r, "merge");
    test_cli_free(&r);
    TEST_DIR_PATH(merged, dir, "merged.csv");
    check_sweep_csv(merged);
    size_t lf, lm;
    char *a = test_slurp(full, &lf), *b = test_slurp(merged, &lm);
    ck_assert_uint_eq(lf, lm);
    ck_assert_int_eq(memcmp(a, b, lf), 0);
    free(b);
    /* resume after a cut inside the quoted system name of the row of point 3 (its line
     * break inside the quotes must not count as the end of a row) */
    const char *row3 = strstr(a, "\n3,\"s,1");
    ck_assert_ptr_nonnull(row3);
    const char *cut = strchr(row3 + 3, '\n'); /* the line break inside the quotes */
    ck_assert_ptr_nonnull(cut);
    TEST_DIR_PATH(part, dir, "part.csv");
    test_spit(part, a, (size_t)(cut + 1 - a));
    sweep_ok(dir, "-o part.csv --resume");
    b = test_slurp(part, &lm);
    ck_assert_uint_eq(lf, lm);
    ck_assert_int_eq(memcmp(a, b, lf), 0);
    free(b);
    free(a);
    test_rm_dir(dir);
}
END_TEST

/* Defect: summarize split rows at every comma, so sweep's quoted fields gave "13 fields, the
 * header has 12". */
START_TEST(summarize_quoted) {
    char *dir = test_tmp_dir();
    write_inputs(dir);
    write_spec(dir);
    sweep_ok(dir, "-o full.csv");
    test_cli_out r;
    /* grouped by the name alone (the old reader failed here on the quoted fields) */
    test_cli_in(&r, dir, "summarize full.csv --by system --metric time_us -f csv");
    test_expect_quiet(&r, "summarize --by system");
    ck_assert_msg(strncmp(r.out, "system,count,", 13) == 0, "%s", r.out);
    test_cli_free(&r);
    test_cli_in(&r, dir, "summarize full.csv --by system,system_file --metric npus -f csv");
    test_expect_quiet(&r, "summarize");
    TEST_DIR_PATH(s, dir, "s.csv");
    test_spit(s, r.out, r.out_len);
    test_cli_free(&r);
    char py[4096];
    py_column(s, "system", py, sizeof py);
    ck_assert_str_eq(py, SYS_PY "\n\"plain\"\n");
    py_column(s, "system_file", py, sizeof py);
    ck_assert_str_eq(py, "\"sys,1.json\"\n\"plain.json\"\n");
    py_column(s, "count", py, sizeof py);
    ck_assert_str_eq(py, "\"6\"\n\"6\"\n"); /* 2 policies x 3 chunk counts each */
    py_column(s, "mean", py, sizeof py);
    ck_assert_str_eq(py, "\"4\"\n\"4\"\n"); /* both rings of 4 NPUs */
    test_rm_dir(dir);
}
END_TEST

Suite *cli_csv_suite(void) {
    Suite *s = suite_create("cli_csv");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, train_names);
    tcase_add_test(tc, run_names);
    tcase_add_test(tc, sweep_merge_resume);
    tcase_add_test(tc, summarize_quoted);
    suite_add_tcase(s, tc);
    return s;
}

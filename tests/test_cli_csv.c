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

Suite *cli_csv_suite(void) {
    Suite *s = suite_create("cli_csv");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, train_names);
    tcase_add_test(tc, run_names);
    suite_add_tcase(s, tc);
    return s;
}

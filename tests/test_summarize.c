/* Tests of th_summarize (grouped mean, geometric mean, min, max) and `themis summarize`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_themis.h"
#include "themis/summarize.h"

static int summarize_file(const char *name, const char *const *by, size_t nby, const char *metric,
                          th_summary *s, th_error *err) {
    FILE *f = fopen(test_data(name), "r");
    ck_assert_msg(f != NULL, "cannot open %s", test_data(name));
    int rc = th_summarize(f, name, by, nby, metric, s, err);
    fclose(f);
    return rc;
}

/* summarize_small.csv: system a has speedups 1, 4, 1; b has 2, 8; c has only an empty field. */
START_TEST(test_group_by_system) {
    const char *by[] = {"system"};
    th_summary s;
    th_error err = {0};
    ck_assert_int_eq(summarize_file("summarize_small.csv", by, 1, "speedup", &s, &err), 0);
    ck_assert_uint_eq(s.rows, 6);
    ck_assert_uint_eq(s.ngroups, 3);
    ck_assert_str_eq(s.groups[0].keys[0], "a");
    ck_assert_uint_eq(s.groups[0].count, 3);
    ck_assert_rel(s.groups[0].mean, 2.0);        /* (1 + 4 + 1) / 3 */
    ck_assert_rel(s.groups[0].gmean, cbrt(4.0)); /* (1 * 4 * 1)^(1/3) = 1.5874... */
    ck_assert_rel(s.groups[0].min, 1.0);
    ck_assert_rel(s.groups[0].max, 4.0);
    ck_assert_str_eq(s.groups[1].keys[0], "b");
    ck_assert_rel(s.groups[1].mean, 5.0);  /* (2 + 8) / 2 */
    ck_assert_rel(s.groups[1].gmean, 4.0); /* sqrt(16) */
    ck_assert_rel(s.groups[1].min, 2.0);
    ck_assert_rel(s.groups[1].max, 8.0);
    ck_assert_str_eq(s.groups[2].keys[0], "c"); /* empty field: skipped, no statistics */
    ck_assert_uint_eq(s.groups[2].count, 0);
    ck_assert(isnan(s.groups[2].mean) && isnan(s.groups[2].gmean));
    th_summary_free(&s);
}
END_TEST

START_TEST(test_group_by_two_and_none) {
    const char *by[] = {"system", "policy"};
    th_summary s;
    th_error err = {0};
    ck_assert_int_eq(summarize_file("summarize_small.csv", by, 2, "speedup", &s, &err), 0);
    ck_assert_uint_eq(s.ngroups, 4); /* (a,themis) (b,themis) (a,baseline) (c,themis) */
    ck_assert_str_eq(s.groups[0].keys[1], "themis");
    ck_assert_rel(s.groups[0].mean, 2.5);  /* (1 + 4) / 2 */
    ck_assert_rel(s.groups[0].gmean, 2.0); /* sqrt(4) */
    ck_assert_str_eq(s.groups[2].keys[0], "a");
    ck_assert_str_eq(s.groups[2].keys[1], "baseline");
    ck_assert_uint_eq(s.groups[2].count, 1);
    th_summary_free(&s);

    ck_assert_int_eq(summarize_file("summarize_small.csv", NULL, 0, "speedup", &s, &err), 0);
    ck_assert_uint_eq(s.ngroups, 1);
    ck_assert_uint_eq(s.groups[0].count, 5);
    ck_assert_rel(s.groups[0].mean, 3.2);             /* 16 / 5 */
    ck_assert_rel(s.groups[0].gmean, pow(64.0, 0.2)); /* (1*4*2*1*8)^(1/5) */
    ck_assert_rel(s.groups[0].max, 8.0);
    th_summary_free(&s);
}
END_TEST

START_TEST(test_nonpositive_has_no_gmean) {
    th_summary s;
    th_error err = {0};
    ck_assert_int_eq(summarize_file("summarize_negative.csv", NULL, 0, "speedup", &s, &err), 0);
    ck_assert_rel(s.groups[0].mean, 1.5); /* (-1 + 4) / 2 */
    ck_assert(isnan(s.groups[0].gmean));
    ck_assert_rel(s.groups[0].min, -1.0);
    th_summary_free(&s);
}
END_TEST

static void expect_error(const char *file, const char *by0, const char *metric, const char *msg) {
    const char *by[] = {by0};
    th_summary s;
    th_error err = {0};
    ck_assert_int_eq(summarize_file(file, by, by0 ? 1 : 0, metric, &s, &err), TH_EINPUT);
    ck_assert_msg(strstr(err.msg, msg) != NULL, "'%s' lacks '%s'", err.msg, msg);
    ck_assert_uint_eq(s.ngroups, 0);
}

START_TEST(test_errors) {
    expect_error("summarize_small.csv", "system", "nope", "no column 'nope'");
    expect_error("summarize_small.csv", "sytem", "speedup", "no column 'sytem' (columns: point,");
    expect_error("summarize_nonnumeric.csv", "system", "speedup",
                 "line 3: column 'speedup': expected a finite number, got 'fast'");
    expect_error("summarize_empty.csv", "system", "speedup", "summarize_empty.csv: empty file");
    expect_error("summarize_header_only.csv", NULL, "speedup", "no data rows");
    expect_error("summarize_ragged.csv", NULL, "speedup", "line 3: 2 fields, the header has 3");
}
END_TEST

/* Runs `themis ARGS` in the source folder; returns the exit status, fills out with stdout and
 * stderr (merged, or stdout only when merge is 0). */
static int run_cli(char *out, size_t size, int merge, const char *args) {
    return test_sh(out, size, "\"$THEMIS_BIN\" %s %s", args, merge ? "2>&1" : "2>/dev/null");
}

START_TEST(test_cli_csv_and_text) {
    char out[4096];
    ck_assert_int_eq(
        run_cli(out, sizeof out, 0, "summarize tests/data/summarize_small.csv --by system -f csv"),
        0);
    /* gmean of a = 4^(1/3) = 1.58740105196819947...: 15-17 digits, the last may vary with
     * libm's exp/log, so only its first 14 are pinned. */
    ck_assert_msg(strncmp(out, "system,count,mean,gmean,min,max\na,3,2,1.5874010519681", 48) == 0,
                  "%s", out);
    ck_assert_msg(strstr(out, ",1,4\nb,2,5,4,2,8\nc,0,,,,\n") != NULL, "%s", out);
    ck_assert_int_eq(run_cli(out, sizeof out, 0,
                             "summarize -g system,policy -m speedup "
                             "tests/data/summarize_small.csv"),
                     0);
    ck_assert_msg(strstr(out, "# speedup over 6 rows\n"
                              "system  policy    count  mean  gmean  min  max\n"
                              "a       themis        2   2.5      2    1    4\n") != NULL,
                  "text output:\n%s", out);
    ck_assert_msg(strstr(out, "c       themis        0     -      -    -    -\n") != NULL,
                  "text output:\n%s", out);
    ck_assert_int_eq(run_cli(out, sizeof out, 0,
                             "summarize - -f csv "
                             "< tests/data/summarize_negative.csv"),
                     0);
    ck_assert_str_eq(out, "count,mean,gmean,min,max\n2,1.5,,-1,4\n");
}
END_TEST

/* Quoted fields (commas and line breaks inside), CRLF line ends and blank lines, read from a
 * stream; an unclosed quote is an error naming the line. */
START_TEST(test_quoted_fields) {
    static const char text[] = "point,system,speedup\r\n0,\"a,b\",1\r\n\r\n1,\"a,b\",4\r\n"
                               "2,\"x\ny \"\"q\"\"\",2\r\n";
    FILE *f = fmemopen((void *)text, sizeof text - 1, "r");
    ck_assert_ptr_nonnull(f);
    const char *by[] = {"system"};
    th_summary s;
    th_error err = {0};
    ck_assert_int_eq(th_summarize(f, "q.csv", by, 1, "speedup", &s, &err), TH_OK);
    fclose(f);
    ck_assert_uint_eq(s.rows, 3);
    ck_assert_uint_eq(s.ngroups, 2);
    ck_assert_str_eq(s.groups[0].keys[0], "a,b");
    ck_assert_rel(s.groups[0].mean, 2.5);  /* (1 + 4) / 2 */
    ck_assert_rel(s.groups[0].gmean, 2.0); /* sqrt(1 * 4) */
    ck_assert_str_eq(s.groups[1].keys[0], "x\ny \"q\"");
    ck_assert_uint_eq(s.groups[1].count, 1);
    /* The table shows the line break escaped (th_text_escape), so each group stays one row;
     * columns as wide as their widest cell: x\ny "q" is 8 characters. */
    char *tab = NULL;
    size_t tlen = 0;
    FILE *t = open_memstream(&tab, &tlen);
    ck_assert_ptr_nonnull(t);
    ck_assert_int_eq(th_report_summary_table(t, &s, &err), TH_OK);
    fclose(t);
    ck_assert_str_eq(tab, "# speedup over 3 rows\n"
                          "system    count  mean  gmean  min  max\n"
                          "a,b           2   2.5      2    1    4\n"
                          "x\\ny \"q\"      1     2      2    2    2\n");
    free(tab);
    th_summary_free(&s);
    static const char open[] = "point,system,speedup\n0,a,1\n1,\"b,2\n";
    f = fmemopen((void *)open, sizeof open - 1, "r");
    ck_assert_int_eq(th_summarize(f, "o.csv", by, 1, "speedup", &s, &err), TH_EINPUT);
    fclose(f);
    ck_assert_str_eq(err.msg, "o.csv: line 3: a quoted field is not closed");
}
END_TEST

START_TEST(test_cli_json_and_text_alias) {
    char out[4096];
    /* summarize_small.csv by system: b's mean (2 + 8) / 2 = 5, c has no value (null) */
    ck_assert_int_eq(test_sh(out, sizeof out,
                             "\"$THEMIS_BIN\" summarize tests/data/summarize_small.csv --by system "
                             "-f json | python3 -c 'import json, sys; d = json.load(sys.stdin); "
                             "g = d[\"groups\"]; print(d[\"metric\"], d[\"by\"], d[\"rows\"], "
                             "g[1][\"keys\"], g[1][\"mean\"], g[1][\"count\"], g[2][\"gmean\"])'"),
                     0);
    ck_assert_str_eq(out, "speedup ['system'] 6 {'system': 'b'} 5 2 None\n");
    /* 'text' (the old name) is the table */
    char table[4096];
    ck_assert_int_eq(
        run_cli(out, sizeof out, 0, "summarize tests/data/summarize_small.csv -g system -f text"),
        0);
    ck_assert_int_eq(
        run_cli(table, sizeof table, 0, "summarize tests/data/summarize_small.csv -g system"), 0);
    ck_assert_str_eq(out, table);
    ck_assert_msg(strncmp(out, "# speedup over 6 rows\n", 22) == 0, "%s", out);
}
END_TEST

START_TEST(test_cli_errors) {
    char out[4096];
    ck_assert_int_eq(
        run_cli(out, sizeof out, 1, "summarize tests/data/summarize_small.csv --metric nope"), 2);
    ck_assert_msg(strstr(out, "themis: tests/data/summarize_small.csv: no column 'nope'"), "%s",
                  out);
    ck_assert_int_eq(run_cli(out, sizeof out, 1, "summarize tests/data/summarize_empty.csv"), 2);
    ck_assert_msg(strstr(out, "empty file"), "%s", out);
    ck_assert_int_eq(run_cli(out, sizeof out, 1, "summarize tests/data/no-such.csv"), 2);
    ck_assert_msg(strstr(out, "cannot open"), "%s", out);
    ck_assert_int_eq(run_cli(out, sizeof out, 1, "summarize"), 2);
    ck_assert_msg(strstr(out, "missing the CSV file"), "%s", out);
    ck_assert_int_eq(run_cli(out, sizeof out, 1, "summarize x.csv -f yaml"), 2);
    ck_assert_msg(strstr(out, "expected table, json, csv or jsonl"), "%s", out);
    ck_assert_int_eq(run_cli(out, sizeof out, 1, "summarize x.csv --by a,,b"), 2);
    ck_assert_msg(strstr(out, "empty column name"), "%s", out);
    ck_assert_int_eq(run_cli(out, sizeof out, 0, "summarize --help"), 0);
    ck_assert_msg(strstr(out, "usage: themis summarize CSV"), "%s", out);
}
END_TEST

/* --best: summarize_small.csv by system. Least speedup: a's values 1 (line 2), 4, 1 (line 5)
 * keep the first 1, point 0; b's 2 (point 2, line 4) and 8; c has no value and is left out.
 * Greatest: a's 4 (point 1, line 3), b's 8 (point 4, line 6). */
START_TEST(test_best_rows) {
    const char *by[] = {"system"};
    th_summary s;
    th_error err = {0};
    FILE *f = fopen(test_data("summarize_small.csv"), "r");
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(th_summarize_best(f, "s.csv", by, 1, "speedup", TH_BEST_MIN, &s, &err), 0);
    fclose(f);
    ck_assert_uint_eq(s.ncols, 5);
    ck_assert_str_eq(s.columns[3], "speedup");
    ck_assert_uint_eq(s.ngroups, 3);
    ck_assert_str_eq(s.groups[0].best[0], "0");
    ck_assert_int_eq(s.groups[0].best_line, 2);
    ck_assert_str_eq(s.groups[1].best[0], "2");
    ck_assert_int_eq(s.groups[1].best_line, 4);
    ck_assert_ptr_null(s.groups[2].best);
    ck_assert_rel(s.groups[0].mean, 2.0); /* the statistics are still there */
    th_summary_free(&s);
    char out[4096];
    ck_assert_int_eq(run_cli(out, sizeof out, 0,
                             "summarize tests/data/summarize_small.csv --by system --best speedup "
                             "-f csv"),
                     0);
    /* the JSON's line, then the row (lines 2 and 4 of the file: the header is line 1) */
    ck_assert_str_eq(out, "line,point,system,policy,speedup,note\n2,0,a,themis,1,x\n"
                          "4,2,b,themis,2,x\n");
    ck_assert_int_eq(run_cli(out, sizeof out, 0,
                             "summarize tests/data/summarize_small.csv --by system --best speedup "
                             "--max -f csv"),
                     0);
    ck_assert_str_eq(out, "line,point,system,policy,speedup,note\n3,1,a,themis,4,x\n"
                          "6,4,b,themis,8,x\n");
    ck_assert_int_eq(run_cli(out, sizeof out, 0,
                             "summarize tests/data/summarize_small.csv -g system,policy "
                             "--best speedup"),
                     0);
    ck_assert_str_eq(out, "# the row with the least speedup of each group (3 of 4 groups, 6 "
                          "rows)\n"
                          "point  system  policy    speedup  note\n"
                          "0      a       themis    1        x\n"
                          "2      b       themis    2        x\n"
                          "3      a       baseline  1        x\n");
    /* JSON, read by Python: numbers as numbers, text as strings */
    ck_assert_int_eq(test_sh(out, sizeof out,
                             "\"$THEMIS_BIN\" summarize tests/data/summarize_small.csv --by system "
                             "--best speedup --max -f json | python3 -c 'import json, sys; "
                             "d = json.load(sys.stdin); g = d[\"groups\"]; print(d[\"best\"], "
                             "len(g), g[1][\"keys\"], g[1][\"line\"], g[1][\"row\"])'"),
                     0);
    ck_assert_str_eq(out, "max 2 {'system': 'b'} 6 {'point': 4, 'system': 'b', 'policy': "
                          "'themis', 'speedup': 8, 'note': 'x'}\n");
}
END_TEST

/* A best row with quoted fields is written back quoted; the usage errors of --best. */
START_TEST(test_best_quoted_and_errors) {
    char *dir = test_tmp_dir();
    TEST_DIR_PATH(q, dir, "q.csv");
    const char *text = "n,name,time_us\n1,\"a,b\",5\n2,\"x \"\"y\"\"\",3\n";
    test_spit(q, text, strlen(text));
    char out[4096], args[4400];
#define ARGS(fmt) (snprintf(args, sizeof args, fmt, q), args)
    ck_assert_int_eq(run_cli(out, sizeof out, 0, ARGS("summarize '%s' --best time_us -f csv")), 0);
    ck_assert_str_eq(out, "line,n,name,time_us\n3,2,\"x \"\"y\"\"\",3\n");
    ck_assert_int_eq(run_cli(out, sizeof out, 1, ARGS("summarize '%s' --best nope")), 2);
    ck_assert_msg(strstr(out, "no column 'nope' (columns: n,name,time_us)"), "%s", out);
    ck_assert_int_eq(run_cli(out, sizeof out, 1, ARGS("summarize '%s' --best time_us -m n")), 2);
    ck_assert_msg(strstr(out, "--best NAME names the column: drop --metric"), "%s", out);
    ck_assert_int_eq(run_cli(out, sizeof out, 1, ARGS("summarize '%s' --max")), 2);
    ck_assert_msg(strstr(out, "--max needs --best NAME"), "%s", out);
#undef ARGS
    test_rm_dir(dir);
}
END_TEST

Suite *summarize_suite(void) {
    Suite *s = suite_create("summarize");
    TCase *tc = tcase_create("summarize");
    tcase_add_test(tc, test_group_by_system);
    tcase_add_test(tc, test_group_by_two_and_none);
    tcase_add_test(tc, test_nonpositive_has_no_gmean);
    tcase_add_test(tc, test_errors);
    tcase_add_test(tc, test_cli_csv_and_text);
    tcase_add_test(tc, test_quoted_fields);
    tcase_add_test(tc, test_cli_json_and_text_alias);
    tcase_add_test(tc, test_cli_errors);
    tcase_add_test(tc, test_best_rows);
    tcase_add_test(tc, test_best_quoted_and_errors);
    suite_add_tcase(s, tc);
    return s;
}

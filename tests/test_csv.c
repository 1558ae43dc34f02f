/* Tests of the CSV writer and reader (RFC 4180): quoting, line ends, errors with line numbers,
 * stream windows, and a randomized write-then-read round trip. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_themis.h"
#include "themis/csv.h"

/* The record of fields written with th_csv_field, as text. */
static char *write_record(const char *const *f, int n) {
    th_buf b = {0};
    for (int i = 0; i < n; i++)
        ck_assert_int_eq(th_csv_field(&b, f[i]), 0);
    ck_assert_int_eq(th_csv_end(&b), 0);
    return b.p;
}

START_TEST(test_write_quoting) {
    const char *plain[] = {"default-3d", "1.5", "x y"};
    char *s = write_record(plain, 3);
    ck_assert_str_eq(s, "default-3d,1.5,x y\n"); /* nothing to quote: as is */
    free(s);
    const char *hard[] = {"a,b", "say \"hi\"", "two\nlines", "cr\r", " lead", "trail\t", "é,ü"};
    s = write_record(hard, 7);
    ck_assert_str_eq(s, "\"a,b\",\"say \"\"hi\"\"\",\"two\nlines\",\"cr\r\",\" lead\",\"trail\t\","
                        "\"é,ü\"\n");
    free(s);
    const char *empty[] = {"", "x", ""};
    s = write_record(empty, 3);
    ck_assert_str_eq(s, "\"\",x,\n"); /* an empty first field is "" so no line is empty */
    free(s);
}
END_TEST

START_TEST(test_write_numbers_and_records) {
    th_buf b = {0};
    ck_assert_int_eq(th_csv_num(&b, 0.1), 0);
    ck_assert_int_eq(th_csv_num(&b, 1e300), 0);
    ck_assert_int_eq(th_csv_int(&b, -42), 0);
    ck_assert_int_eq(th_csv_end(&b), 0);
    ck_assert_int_eq(th_csv_field(&b, "next"), 0); /* a new record: no comma first */
    ck_assert_int_eq(th_csv_end(&b), 0);
    /* 0.1 reads back from 15 digits; 1e300 too */
    ck_assert_str_eq(b.p, "0.1,1e+300,-42\nnext\n");
    char *tmp = test_tmp_file();
    FILE *f = fopen(tmp, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(th_csv_write(f, &b), 0);
    ck_assert_uint_eq(b.len, 0);
    fclose(f);
    char *back = test_slurp(tmp, NULL);
    ck_assert_str_eq(back, "0.1,1e+300,-42\nnext\n");
    free(back);
    unlink(tmp);
    free(tmp);
    th_buf_free(&b);
}
END_TEST

/* Reads every record of text; fields joined by '|' and records by '/' into out. */
static int read_all(const char *text, size_t n, char *out, size_t size, th_error *err) {
    th_csv_reader r;
    th_csv_open_mem(&r, text, n, "t.csv");
    out[0] = '\0';
    int st;
    while ((st = th_csv_read(&r, err)) == 1) {
        size_t len = strlen(out);
        snprintf(out + len, size - len, "%s", len ? "/" : "");
        for (size_t i = 0; i < r.nfields; i++) {
            len = strlen(out);
            snprintf(out + len, size - len, "%s%s", i ? "|" : "", r.fields[i]);
        }
    }
    th_csv_close(&r);
    return st;
}

START_TEST(test_read_quoted) {
    char out[512];
    th_error err = {0};
    const char *t = "a,\"b,c\",\"d \"\"e\"\"\"\r\n\"multi\nline\",,\"\"\nlast,row";
    ck_assert_int_eq(read_all(t, strlen(t), out, sizeof out, &err), 0);
    ck_assert_str_eq(out, "a|b,c|d \"e\"/multi\nline||/last|row");
    /* a lone CR ends a record too; a CR inside quotes is data */
    t = "x\ry\r\n\"c\rr\"\n";
    ck_assert_int_eq(read_all(t, strlen(t), out, sizeof out, &err), 0);
    ck_assert_str_eq(out, "x/y/c\rr");
}
END_TEST

START_TEST(test_read_positions) {
    th_error err = {0};
    const char *t = "h1,h2\n\"a\nb\",1\r\n\nc,2";
    th_csv_reader r;
    th_csv_open_mem(&r, t, strlen(t), "t.csv");
    ck_assert_int_eq(th_csv_read(&r, &err), 1);
    ck_assert_int_eq(r.line, 1);
    ck_assert_int_eq(r.offset, 6); /* "h1,h2\n" */
    ck_assert_int_eq(th_csv_read(&r, &err), 1);
    ck_assert_int_eq(r.line, 2); /* starts on line 2, ends on line 3 */
    ck_assert_int_eq(r.record, 2);
    ck_assert_int_eq(r.complete, 1);
    ck_assert_int_eq(r.start, 6);
    ck_assert_int_eq(r.offset, 15); /* 6 + 9 */
    ck_assert_int_eq(th_csv_read(&r, &err), 1);
    ck_assert_int_eq(r.line, 4);
    ck_assert_int_eq(r.blank, 1);
    ck_assert_int_eq(th_csv_read(&r, &err), 1);
    ck_assert_int_eq(r.line, 5);
    ck_assert_int_eq(r.complete, 0); /* no final line break */
    ck_assert_int_eq(r.open_quote, 0);
    ck_assert_str_eq(r.fields[1], "2");
    ck_assert_int_eq(th_csv_read(&r, &err), 0);
    th_csv_close(&r);

    /* input that ends inside quotes: an incomplete record, not an error */
    t = "a,\"b\nc";
    th_csv_open_mem(&r, t, strlen(t), "t.csv");
    ck_assert_int_eq(th_csv_read(&r, &err), 1);
    ck_assert_int_eq(r.complete, 0);
    ck_assert_int_eq(r.open_quote, 1);
    th_csv_close(&r);
}
END_TEST

START_TEST(test_read_errors) {
    char out[512];
    th_error err = {0};
    const char *t = "a,b\n\"x\ny\",z\"q\n";
    ck_assert_int_eq(read_all(t, strlen(t), out, sizeof out, &err), -1);
    ck_assert_int_eq(err.code, TH_EINPUT);
    ck_assert_str_eq(err.msg, "t.csv: line 3: a quote inside an unquoted field (quote the whole "
                              "field)");
    t = "\"ab\"c\n";
    ck_assert_int_eq(read_all(t, strlen(t), out, sizeof out, &err), -1);
    ck_assert_str_eq(err.msg, "t.csv: line 1: expected a comma or a line end after a closing "
                              "quote");
    ck_assert_int_eq(read_all("ok\nn\0l\n", 7, out, sizeof out, &err), -1);
    ck_assert_str_eq(err.msg, "t.csv: line 2: a NUL byte (not a text CSV file?)");
}
END_TEST

/* A byte-order mark (a spreadsheet's "CSV UTF-8") is no part of the first field; a field that is
 * not valid UTF-8 is refused, naming the line and the field, since it would go into JSON. */
START_TEST(test_read_bom_and_utf8) {
    char out[512];
    th_error err = {0};
    const char *t = "\xef\xbb\xbf\"size\",x\n1,\xc3\xa9\n";
    ck_assert_int_eq(read_all(t, strlen(t), out, sizeof out, &err), 0);
    ck_assert_str_eq(out, "size|x/1|\xc3\xa9");
    t = "a,b\nok,n\xffo\n";
    ck_assert_int_eq(read_all(t, strlen(t), out, sizeof out, &err), -1);
    ck_assert_int_eq(err.code, TH_EINPUT);
    ck_assert_str_eq(err.msg, "t.csv: line 2: field 2 is not valid UTF-8 (byte 0xff)");
    /* a header naming a column twice: which of the two a reader takes would be a guess */
    th_csv_reader r;
    t = "size,x,size\n";
    th_csv_open_mem(&r, t, strlen(t), "t.csv");
    ck_assert_int_eq(th_csv_read(&r, &err), 1);
    ck_assert_int_eq(th_csv_header_check(&r, &err), TH_EINPUT);
    ck_assert_str_eq(err.msg, "t.csv: line 1: column 'size' appears twice (fields 1 and 3)");
    th_csv_close(&r);
}
END_TEST

/* Fields of random bytes from an alphabet of every byte that matters to CSV (and UTF-8),
 * written, then read back from a file through the reader's 64 KiB windows. */
START_TEST(test_round_trip_random) {
    static const char *alpha[] = {"a", ",", "\"", "\r", "\n", " ", "\t", "é", "ü", "9", "\r\n"};
    unsigned seed = 12345;
    enum { NREC = 3000, NF = 6 };
    char *want = calloc((size_t)NREC * NF, 64);
    ck_assert_ptr_nonnull(want);
    th_buf b = {0};
    for (int i = 0; i < NREC; i++) {
        for (int k = 0; k < NF; k++) {
            char *f = want + ((size_t)i * NF + k) * 64;
            seed = seed * 1103515245u + 12345u;
            int len = (int)((seed >> 16) % 10);
            for (int j = 0; j < len; j++) {
                seed = seed * 1103515245u + 12345u;
                strcat(f, alpha[(seed >> 16) % 11]);
            }
            ck_assert_int_eq(th_csv_field(&b, f), 0);
        }
        ck_assert_int_eq(th_csv_end(&b), 0);
    }
    ck_assert_uint_gt(b.len, 64 * 1024); /* records straddle the stream windows */
    char *tmp = test_tmp_file();
    test_spit(tmp, b.p, b.len);
    FILE *f = fopen(tmp, "rb");
    ck_assert_ptr_nonnull(f);
    th_csv_reader r;
    th_csv_open_file(&r, f, tmp);
    th_error err = {0};
    int64_t off = 0;
    for (int i = 0; i < NREC; i++) {
        ck_assert_msg(th_csv_read(&r, &err) == 1, "record %d: %s", i, err.msg);
        ck_assert_uint_eq(r.nfields, NF);
        ck_assert_int_eq(r.complete, 1);
        for (int k = 0; k < NF; k++)
            ck_assert_str_eq(r.fields[k], want + ((size_t)i * NF + k) * 64);
        ck_assert_int_eq(r.start, off);
        off = r.offset;
    }
    ck_assert_int_eq(th_csv_read(&r, &err), 0);
    ck_assert_int_eq(off, (int64_t)b.len);
    th_csv_close(&r);
    fclose(f);
    unlink(tmp);
    free(tmp);
    free(want);
    th_buf_free(&b);
}
END_TEST

Suite *csv_suite(void) {
    Suite *s = suite_create("csv");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_write_quoting);
    tcase_add_test(tc, test_write_numbers_and_records);
    tcase_add_test(tc, test_read_quoted);
    tcase_add_test(tc, test_read_positions);
    tcase_add_test(tc, test_read_errors);
    tcase_add_test(tc, test_round_trip_random);
    tcase_add_test(tc, test_read_bom_and_utf8);
    suite_add_tcase(s, tc);
    return s;
}

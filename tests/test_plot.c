/* Check suite for src/plot.c: labels and units from column names, the format from the output's
 * extension, --where parsing, reading a CSV into sorted series (filters, groups, empty fields)
 * with every error, and the data file and gnuplot script it writes. */
#define _GNU_SOURCE /* fmemopen, open_memstream */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_themis.h"
#include "themis/plot.h"

static const char *label(const char *col) {
    static char buf[256];
    th_plot_label(col, buf, sizeof buf);
    return buf;
}

START_TEST(labels) {
    ck_assert_str_eq(label("time_us"), "time (µs)");
    ck_assert_str_eq(label("dim0_busy_us"), "dim0 busy (µs)");
    ck_assert_str_eq(label("algbw_GBps"), "algbw (GB/s)");
    ck_assert_str_eq(label("dims[0].bw_GBps"), "dims[0].bw (GB/s)");
    ck_assert_str_eq(label("latency_ns"), "latency (ns)");
    ck_assert_str_eq(label("size"), "size (bytes)");
    ck_assert_str_eq(label("size_bytes"), "size (bytes)");
    ck_assert_str_eq(label("speedup"), "speedup (x)");
    ck_assert_str_eq(label("speedup_vs_ideal"), "speedup vs ideal (x)");
    ck_assert_str_eq(label("vs_bound"), "vs bound (x)");
    ck_assert_str_eq(label("bw_util"), "bw util");
    ck_assert_str_eq(label("chunks"), "chunks");
    ck_assert_str_eq(label("_us"), " us"); /* nothing before the suffix: no unit taken */
}
END_TEST

START_TEST(formats) {
    th_plot_format f;
    th_error err;
    ck_assert_int_eq(th_plot_format_of("a/b.png", &f, &err), TH_OK);
    ck_assert_int_eq(f, TH_PLOT_PNG);
    ck_assert_int_eq(th_plot_format_of("B.PDF", &f, &err), TH_OK);
    ck_assert_int_eq(f, TH_PLOT_PDF);
    ck_assert_int_eq(th_plot_format_of("x.svg", &f, &err), TH_OK);
    ck_assert_int_eq(f, TH_PLOT_SVG);
    ck_assert_int_eq(th_plot_format_of("x.jpg", &f, &err), TH_EINPUT);
    ck_assert_str_eq(err.msg, "x.jpg: the extension names the format: expected .png, .pdf or .svg");
    ck_assert_int_eq(th_plot_format_of(".png", &f, &err), TH_EINPUT); /* a name, not only .png */
    ck_assert_int_eq(th_plot_format_of("png", &f, &err), TH_EINPUT);
}
END_TEST

START_TEST(where_parse) {
    th_plot_where w;
    th_error err;
    char a[] = "intra=scf", b[] = "k=v=w", c[] = "k=", d[] = "=x", e[] = "novalue";
    ck_assert_int_eq(th_plot_where_parse(a, &w, &err), TH_OK);
    ck_assert_str_eq(w.col, "intra");
    ck_assert_str_eq(w.value, "scf");
    ck_assert_int_eq(th_plot_where_parse(b, &w, &err), TH_OK);
    ck_assert_str_eq(w.col, "k");
    ck_assert_str_eq(w.value, "v=w");
    ck_assert_int_eq(th_plot_where_parse(c, &w, &err), TH_OK);
    ck_assert_str_eq(w.value, "");
    ck_assert_int_eq(th_plot_where_parse(d, &w, &err), TH_EINPUT);
    ck_assert_str_eq(err.msg, "--where: expected COLUMN=VALUE, got '=x'");
    ck_assert_int_eq(th_plot_where_parse(e, &w, &err), TH_EINPUT);
}
END_TEST

/* --by and the request's "by": "a,b" is two names; an empty one or more than max is refused. */
START_TEST(by_parse) {
    const char *cols[2];
    size_t n;
    th_error err;
    char a[] = "policy,intra", b[] = "policy,,intra", c[] = "a,b,c", d[] = "", e[] = "x,";
    ck_assert_int_eq(th_plot_by_parse(a, cols, 2, &n, &err), TH_OK);
    ck_assert_uint_eq(n, 2);
    ck_assert_str_eq(cols[0], "policy");
    ck_assert_str_eq(cols[1], "intra");
    ck_assert_int_eq(th_plot_by_parse(b, cols, 2, &n, &err), TH_EINPUT);
    ck_assert_str_eq(err.msg, "empty column name in the list");
    ck_assert_int_eq(th_plot_by_parse(c, cols, 2, &n, &err), TH_EINPUT); /* 3 names, max 2 */
    ck_assert_str_eq(err.msg, "more than 2 columns");
    ck_assert_int_eq(th_plot_by_parse(d, cols, 2, &n, &err), TH_EINPUT);
    ck_assert_int_eq(th_plot_by_parse(e, cols, 2, &n, &err), TH_EINPUT); /* "x" then "" */
}
END_TEST

/* Reads csv with the options; returns the status (d filled on TH_OK). */
static int read_text(const char *csv, const th_plot_opts *o, th_plot_data *d, th_error *err) {
    FILE *f = fmemopen((void *)csv, strlen(csv), "r");
    ck_assert_ptr_nonnull(f);
    int rc = th_plot_read(f, "t.csv", o, d, err);
    fclose(f);
    return rc;
}

/* A sweep-like CSV: x = chunks (out of order), y = time_us, two policies and two intras; the
 * row with an empty time_us is skipped. */
static const char *const CSV = "point,chunks,policy,intra,time_us\n"
                               "0,4,themis,scf,2\n"
                               "1,1,baseline,fifo,10\n"
                               "2,1,themis,scf,5\n"
                               "3,4,baseline,fifo,8\n"
                               "4,2,themis,scf,3\n"
                               "5,2,themis,fifo,\n"
                               "6,2,themis,fifo,4\n";

START_TEST(read_groups_sorted) {
    const char *by[] = {"policy", "intra"};
    th_plot_opts o = {"chunks", "time_us", by, 2, NULL, 0, 0, 0, NULL};
    th_plot_data d;
    th_error err;
    ck_assert_int_eq(read_text(CSV, &o, &d, &err), TH_OK);
    /* series in the order of their first row; points by chunks */
    ck_assert_uint_eq(d.nseries, 3);
    ck_assert_uint_eq(d.rows, 6);
    ck_assert_str_eq(d.series[0].name, "themis, scf");
    ck_assert_uint_eq(d.series[0].n, 3);
    ck_assert(d.series[0].x[0] == 1 && d.series[0].x[1] == 2 && d.series[0].x[2] == 4);
    ck_assert(d.series[0].y[0] == 5 && d.series[0].y[1] == 3 && d.series[0].y[2] == 2);
    ck_assert_str_eq(d.series[1].name, "baseline, fifo");
    ck_assert(d.series[1].n == 2 && d.series[1].x[0] == 1 && d.series[1].y[1] == 8);
    ck_assert_str_eq(d.series[2].name, "themis, fifo");
    ck_assert(d.series[2].n == 1 && d.series[2].y[0] == 4);
    /* the data file: one block per series, two blank lines between */
    char *text;
    size_t len;
    FILE *m = open_memstream(&text, &len);
    ck_assert_int_eq(th_plot_write_data(m, &d, &err), TH_OK);
    fclose(m);
    ck_assert_str_eq(text, "1 5\n2 3\n4 2\n\n\n1 10\n4 8\n\n\n2 4\n");
    free(text);
    th_plot_free(&d);
    /* --where intra=scf, no --by: one series named after y */
    th_plot_where w = {"intra", "scf"};
    th_plot_opts o2 = {"chunks", "time_us", NULL, 0, &w, 1, 0, 0, NULL};
    ck_assert_int_eq(read_text(CSV, &o2, &d, &err), TH_OK);
    ck_assert_uint_eq(d.nseries, 1);
    ck_assert_str_eq(d.series[0].name, "time_us");
    ck_assert_uint_eq(d.series[0].n, 3);
    th_plot_free(&d);
}
END_TEST

/* Expects read_text to fail with TH_EINPUT and the message msg. */
static void read_fails(const char *csv, const th_plot_opts *o, const char *msg) {
    th_plot_data d;
    th_error err;
    ck_assert_int_eq(read_text(csv, o, &d, &err), TH_EINPUT);
    ck_assert_str_eq(err.msg, msg);
}

START_TEST(read_errors) {
    const char *by[] = {"policy"}, *bad_by[] = {"polcy"};
    th_plot_where w = {"intra", "nope"}, bad_w = {"intr", "scf"};
    th_plot_opts o = {"chunks", "time_us", NULL, 0, NULL, 0, 0, 0, NULL};
    read_fails("", &o, "t.csv: empty file (expected a CSV header row)");
    o.y = "speed";
    read_fails(CSV, &o,
               "t.csv: no column 'speed' (for --y); the columns are: point, chunks, policy, intra, "
               "time_us");
    o.y = "time_us";
    o.x = "chunk";
    read_fails(CSV, &o,
               "t.csv: no column 'chunk' (for --x); the columns are: point, chunks, policy, intra, "
               "time_us");
    o.x = "chunks";
    o.by = bad_by, o.nby = 1;
    read_fails(CSV, &o,
               "t.csv: no column 'polcy' (for --by); the columns are: point, chunks, policy, "
               "intra, time_us");
    o.by = by;
    o.where = &bad_w, o.nwhere = 1;
    read_fails(CSV, &o,
               "t.csv: no column 'intr' (for --where); the columns are: point, chunks, policy, "
               "intra, time_us");
    o.where = &w;
    read_fails(CSV, &o, "t.csv: no row to draw (none matches every --where)");
    o.nwhere = 0;
    read_fails("chunks,time_us\n", &o,
               "t.csv: no column 'policy' (for --by); the columns are: "
               "chunks, time_us");
    o.nby = 0;
    read_fails("chunks,time_us\n", &o, "t.csv: no row to draw");
    read_fails("chunks,time_us\n1,2\n2,fast\n", &o,
               "t.csv: line 3: column time_us: expected a number, got 'fast'");
    read_fails("chunks,time_us\n1,2\n2,inf\n", &o,
               "t.csv: line 3: column time_us: expected a number, got 'inf'");
    read_fails("chunks,time_us\n1,2\n2\n", &o, "t.csv: line 3: 1 fields, the header has 2");
    o.logx = 1;
    read_fails("chunks,time_us\n1,2\n0,3\n", &o,
               "t.csv: line 3: column chunks: --logx needs values > 0, got '0'");
    o.logx = 0, o.logy = 1;
    read_fails("chunks,time_us\n1,-2\n", &o,
               "t.csv: line 2: column time_us: --logy needs values > 0, got '-2'");
    /* more than TH_PLOT_MAX_SERIES (100) series: 101 distinct policies */
    char *many = malloc(20 * 110);
    strcpy(many, "chunks,time_us,policy\n");
    for (int i = 0; i <= TH_PLOT_MAX_SERIES; i++)
        sprintf(many + strlen(many), "1,1,p%d\n", i);
    o.logy = 0;
    o.by = by, o.nby = 1;
    read_fails(many, &o, "t.csv: --by policy gives more than 100 series; narrow it with --where");
    free(many);
}
END_TEST

/* The script for each format: terminal, output and data paths quoted for gnuplot (a quote
 * doubled), labels, log axes, the key titled by --by, one plot element per series. */
START_TEST(script) {
    const char *by[] = {"policy", "intra"};
    th_plot_where w = {"size", "1GiB"};
    th_plot_opts o = {"chunks", "time_us", by, 2, &w, 1, 1, 1, NULL};
    th_plot_data d;
    th_error err;
    ck_assert_int_eq(read_text("chunks,time_us,policy,intra,size\n1,2,it's,scf,1GiB\n"
                               "2,1,b,fifo,1GiB\n",
                               &o, &d, &err),
                     TH_OK);
    static const char *const terms[] = {"set terminal pngcairo ", "set terminal pdfcairo ",
                                        "set terminal svg "};
    for (int f = 0; f < 3; f++) {
        char *text;
        size_t len;
        FILE *m = open_memstream(&text, &len);
        ck_assert_int_eq(
            th_plot_write_script(m, &o, (th_plot_format)f, &d, "/t/d'at", "/t/o.tmp", &err), TH_OK);
        fclose(m);
        ck_assert_msg(strstr(text, terms[f]), "%s", text);
        ck_assert_msg(strstr(text, "\nset output '/t/o.tmp'\n"), "%s", text);
        ck_assert_msg(strstr(text, "\nset title 'time (µs) vs chunks (size=1GiB)'\n"), "%s", text);
        ck_assert_msg(strstr(text, "\nset xlabel 'chunks'\nset ylabel 'time (µs)'\n"), "%s", text);
        ck_assert_msg(strstr(text, "\nset logscale x\nset logscale y\n"), "%s", text);
        ck_assert_msg(strstr(text, "\nset key outside right top vertical title 'policy, intra'\n"),
                      "%s", text);
        ck_assert_msg(strstr(text, "\nplot '/t/d''at' index 0 using 1:2 with linespoints lw 2 "
                                   "lc rgb '#0072b2' dt 1 pt 7 ps 0.7 title 'it''s, scf', \\\n"
                                   "     '' index 1 using 1:2 with linespoints lw 2 "
                                   "lc rgb '#e69f00' dt 1 pt 7 ps 0.7 title 'b, fifo'\n"),
                      "%s", text);
        ck_assert_msg(strstr(text, "noenhanced"), "%s", text);
        free(text);
    }
    /* a size axis: binary units, tics at powers of 2 on a log axis, each in its unit */
    th_plot_opts o3 = {"size", "time_us", NULL, 0, NULL, 0, 1, 0, NULL};
    th_plot_data dz;
    ck_assert_int_eq(read_text("size,time_us\n32768,1\n1572864,2\n4294967296,3\n", &o3, &dz, &err),
                     TH_OK);
    char *sz;
    size_t szlen;
    FILE *ms = open_memstream(&sz, &szlen);
    ck_assert_int_eq(th_plot_write_script(ms, &o3, TH_PLOT_PNG, &dz, "d", "o", &err), TH_OK);
    fclose(ms);
    ck_assert_msg(strstr(sz, "\nset xlabel 'size'\n") &&
                      strstr(sz, "\nset logscale x 2\nset xtics ('16 KiB' 16384, '64 KiB' 65536, "
                                 "'256 KiB' 262144, '1 MiB' 1048576, '4 MiB' 4194304, '16 MiB' "
                                 "16777216, '64 MiB' 67108864, '256 MiB' 268435456, '1 GiB' "
                                 "1073741824, '4 GiB' 4294967296)\n") &&
                      strstr(sz, " using 1:2 ") && !strstr(sz, "logscale y") && !strstr(sz, "%B") &&
                      !strstr(sz, "bytes"),
                  "%s", sz);
    free(sz);
    /* linear: the column in the unit of its largest value, named in the label */
    o3.logx = 0;
    ms = open_memstream(&sz, &szlen);
    ck_assert_int_eq(th_plot_write_script(ms, &o3, TH_PLOT_PNG, &dz, "d", "o", &err), TH_OK);
    fclose(ms);
    ck_assert_msg(strstr(sz, "\nset xlabel 'size (GiB)'\n") &&
                      strstr(sz, " using ($1/1073741824):2 ") && !strstr(sz, "logscale"),
                  "%s", sz);
    free(sz);
    th_plot_free(&dz);
    /* a given title; no --by: no key */
    th_plot_opts o2 = {"chunks", "time_us", NULL, 0, NULL, 0, 0, 0, "my\ntitle"};
    char *text;
    size_t len;
    FILE *m = open_memstream(&text, &len);
    ck_assert_int_eq(th_plot_write_script(m, &o2, TH_PLOT_PNG, &d, "d", "o", &err), TH_OK);
    fclose(m);
    ck_assert_msg(strstr(text, "\nset title 'my title'\n") && strstr(text, "\nset key off\n") &&
                      !strstr(text, "logscale"),
                  "%s", text);
    free(text);
    th_plot_free(&d);
}
END_TEST

/* A text x: categories in the order they first appear, each series' x their index; the
 * script draws clustered bars with the categories as x tics. A text after a numeric x, or
 * --logx on a text x, is an error. */
START_TEST(categories) {
    const char *by[] = {"intra"};
    th_plot_opts o = {"policy", "time_us", by, 1, NULL, 0, 0, 0, NULL};
    th_plot_data d;
    th_error err;
    ck_assert_int_eq(read_text("policy,intra,time_us\nthemis,scf,3\nbaseline,scf,5\n"
                               ",scf,9\nthemis,fifo,4\nlp,fifo,2\nbaseline,fifo,6\n",
                               &o, &d, &err),
                     TH_OK);
    ck_assert_uint_eq(d.ncats, 3);
    ck_assert_str_eq(d.cats[0], "themis");
    ck_assert_str_eq(d.cats[1], "baseline");
    ck_assert_str_eq(d.cats[2], "lp");
    ck_assert_uint_eq(d.rows, 5); /* the empty policy skipped */
    ck_assert_uint_eq(d.nseries, 2);
    char *text;
    size_t len;
    FILE *m = open_memstream(&text, &len);
    ck_assert_int_eq(th_plot_write_data(m, &d, &err), TH_OK);
    fclose(m);
    ck_assert_str_eq(text, "0 3\n1 5\n\n\n0 4\n1 6\n2 2\n");
    free(text);
    m = open_memstream(&text, &len);
    ck_assert_int_eq(th_plot_write_script(m, &o, TH_PLOT_PNG, &d, "d", "o", &err), TH_OK);
    fclose(m);
    ck_assert_msg(strstr(text, "\nset xtics ('themis' 0, 'baseline' 1, 'lp' 2)\n"
                               "set xrange [-0.5:2.5]\nset yrange [*<0:*]\n"),
                  "%s", text);
    ck_assert_msg(strstr(text, "\nset boxwidth 0.4 absolute\nplot 'd' index 0 using ($1-0.2):2 "
                               "with boxes lc rgb '#0072b2' dt 1 fs solid 0.85 border title "
                               "'scf', \\\n     '' index 1 using ($1+0.2):2 with boxes "
                               "lc rgb '#e69f00' dt 1 fs solid 0.85 border title 'fifo'\n"),
                  "%s", text);
    free(text);
    th_plot_free(&d);
    o.nby = 0;
    read_fails("policy,time_us\n1,2\nlp,3\n", &o,
               "t.csv: line 3: column policy: expected a number, got 'lp'");
    o.logx = 1;
    read_fails("policy,time_us\nlp,3\n", &o,
               "t.csv: line 2: column policy: --logx needs numbers, got 'lp'");
}
END_TEST

/* More series than the palette has colours: no two share their colour and their dash and
 * point types, read back from the script's plot elements. */
START_TEST(styles_distinct) {
    th_plot_data d = {0};
    d.nseries = TH_PLOT_MAX_SERIES;
    d.series = calloc(d.nseries, sizeof *d.series);
    ck_assert_ptr_nonnull(d.series);
    char names[TH_PLOT_MAX_SERIES][24];
    for (size_t i = 0; i < d.nseries; i++) {
        snprintf(names[i], sizeof names[i], "s%zu", i);
        d.series[i].name = names[i];
    }
    th_plot_opts o = {"chunks", "time_us", NULL, 0, NULL, 0, 0, 0, NULL};
    th_error err;
    char *text;
    size_t len;
    FILE *m = open_memstream(&text, &len);
    ck_assert_int_eq(th_plot_write_script(m, &o, TH_PLOT_PNG, &d, "d", "o", &err), TH_OK);
    fclose(m);
    free(d.series);
    static char style[TH_PLOT_MAX_SERIES][64];
    size_t n = 0;
    const char *plot = strstr(text, "\nplot ");
    ck_assert_ptr_nonnull(plot);
    for (const char *p = strstr(plot, "lc rgb '"); p; p = strstr(p + 1, "lc rgb '")) {
        ck_assert_uint_lt(n, TH_PLOT_MAX_SERIES);
        const char *end = strstr(p, " ps ");
        ck_assert_ptr_nonnull(end);
        snprintf(style[n++], sizeof style[0], "%.*s", (int)(end - p), p);
    }
    ck_assert_uint_eq(n, TH_PLOT_MAX_SERIES);
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < i; j++)
            ck_assert_msg(strcmp(style[i], style[j]), "series %zu and %zu: %s", j, i, style[i]);
    /* the 9th series takes the first colour again, with another dash and point type */
    ck_assert_str_eq(style[8], "lc rgb '#0072b2' dt 2 pt 5");
    free(text);
}
END_TEST

Suite *plot_suite(void) {
    Suite *s = suite_create("plot");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, labels);
    tcase_add_test(tc, formats);
    tcase_add_test(tc, where_parse);
    tcase_add_test(tc, by_parse);
    tcase_add_test(tc, read_groups_sorted);
    tcase_add_test(tc, read_errors);
    tcase_add_test(tc, script);
    tcase_add_test(tc, styles_distinct);
    tcase_add_test(tc, categories);
    suite_add_tcase(s, tc);
    return s;
}

/* Check suite for `themis plot`: PNG, PDF and SVG from a small sweep (checked by their magic
 * bytes), the rules every output follows (never an input, --force, nothing left behind), and
 * every error: a missing column (naming those there are), a bad extension or option, gnuplot
 * missing (naming gnuplot-nox) or failing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check_themis.h"

/* A sweep of 2 policies x 2 intras x 3 chunk counts x 2 sizes on the 3-D cli_3d into dir/s.csv. */
static void sweep(const char *dir) {
    TEST_DIR_PATH(spec, dir, "spec.json");
    char s[2048];
    snprintf(s, sizeof s,
             "{\"system\": \"%s\", \"axes\": {\"policy\": [\"baseline\", \"themis\"], "
             "\"intra\": [\"fifo\", \"scf\"], \"chunks\": [1, 4, 16], "
             "\"size\": [\"1MiB\", \"64MiB\"]}}",
             test_dpath("cli_3d.json"));
    test_spit(spec, s, strlen(s));
    test_cli_out r;
    test_cli_in(&r, dir, "sweep spec.json -o s.csv --quiet");
    test_expect_quiet(&r, "the sweep to plot");
    test_cli_free(&r);
}

static void ok_in(const char *dir, const char *args) {
    test_cli_out r;
    test_cli_in(&r, dir, "%s", args);
    test_expect_quiet(&r, args);
    ck_assert_uint_eq(r.out_len, 0);
    test_cli_free(&r);
}

/* The first n bytes of dir/name equal magic. */
static void starts_with(const char *dir, const char *name, const char *magic, size_t n) {
    TEST_DIR_PATH(path, dir, name);
    size_t len;
    char *t = test_slurp(path, &len);
    ck_assert_msg(len > n && memcmp(t, magic, n) == 0, "%s does not start with its magic", name);
    free(t);
}

/* Nothing but the expected files in dir: no temporary, data or script file left. */
static void nothing_left(const char *dir) {
    char out[4096];
    ck_assert_int_eq(
        test_sh(out, sizeof out, "ls -a '%s' | grep -E 'tmp|\\.dat$|\\.gp$' || true", dir), 0);
    ck_assert_msg(out[0] == '\0', "left in %s: %s", dir, out);
}

START_TEST(png_pdf_svg) {
    char *dir = test_tmp_dir();
    sweep(dir);
    ok_in(dir, "plot s.csv --x size --y speedup --by policy,intra --logx -o speedup.png");
    starts_with(dir, "speedup.png", "\x89PNG\r\n\x1a\n", 8);
    ok_in(dir, "plot s.csv --x chunks --y time_us --by size --where intra=scf "
               "--where policy=themis --logx --logy -o t.pdf");
    starts_with(dir, "t.pdf", "%PDF-", 5);
    ok_in(dir, "plot s.csv -x chunks -y bw_util -g policy -w size=1048576 -t 'a \"title\"' "
               "-o sub/t.svg");
    TEST_DIR_PATH(svg, dir, "sub/t.svg");
    char *t = test_slurp(svg, NULL);
    ck_assert_msg(strstr(t, "<svg") && strstr(t, ">a \"title\"<"), "%.300s", t);
    free(t);
    /* from stdin, and replacing an existing image with --force */
    ok_in(dir, "plot - --x chunks --y time_us -o speedup.png --force < s.csv");
    starts_with(dir, "speedup.png", "\x89PNG\r\n\x1a\n", 8);
    nothing_left(dir);
    test_rm_dir(dir);
}
END_TEST

START_TEST(errors) {
    char *dir = test_tmp_dir();
    sweep(dir);
    test_cli_out r;
    /* a missing column: the ones there are */
    test_cli_in(&r, dir, "plot s.csv --x chunks --y speed -o a.png");
    test_expect_bad(&r, "a missing column");
    ck_assert_msg(strstr(r.err, "s.csv: no column 'speed' (for --y); the columns are: point, "
                                "policy, intra, chunks, size, time_us,"),
                  "%s", r.err);
    test_cli_free(&r);
    test_cli_in(&r, dir, "plot s.csv --x chunks --y time_us --where intra=none -o a.png");
    test_expect_bad(&r, "no row matches");
    ck_assert_msg(strstr(r.err, "no row to draw (none matches every --where)"), "%s", r.err);
    test_cli_free(&r);
    /* the extension, the options */
    static const char *const bad[][2] = {
        {"plot s.csv --x chunks --y time_us -o a.jpg", "a.jpg: the extension names the format"},
        {"plot s.csv --x chunks --y time_us", "-o: missing (the image"},
        {"plot s.csv --x chunks --y time_us -o -", "the image goes to a file"},
        {"plot s.csv --y time_us -o a.png", "-x: missing (a column)"},
        {"plot --x chunks --y time_us -o a.png", "missing the CSV file"},
        {"plot s.csv x.csv --x chunks --y time_us -o a.png", "unexpected argument 'x.csv'"},
        {"plot s.csv --x chunks --y time_us --where intra -o a.png",
         "-w: expected COLUMN=VALUE, got 'intra'"},
        {"plot s.csv --x chunks --y time_us --by policy,,intra -o a.png", "empty column name"},
        {"plot s.csv --x chunks --y time_us --bogus -o a.png", "unknown option '--bogus'"},
        {"plot s.csv --x chunks --y time_us -o", "option '-o' needs a value"},
        {"plot nosuch.csv --x chunks --y time_us -o a.png", "nosuch.csv: cannot open"},
        {"plot s.csv --x policy --y time_us --logx -o a.png",
         "s.csv: line 2: column policy: --logx needs numbers, got 'baseline'"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        test_cli_in(&r, dir, "%s", bad[i][0]);
        test_expect_bad(&r, bad[i][0]);
        ck_assert_msg(strstr(r.err, bad[i][1]), "%s: %s", bad[i][0], r.err);
        test_cli_free(&r);
    }
    /* an existing output needs --force; the input is never the output */
    ok_in(dir, "plot s.csv --x chunks --y time_us -o a.png");
    test_cli_in(&r, dir, "plot s.csv --x chunks --y time_us -o a.png");
    test_expect_bad(&r, "an existing image");
    ck_assert_msg(strstr(r.err, "a.png: already exists; --force replaces it"), "%s", r.err);
    test_cli_free(&r);
    TEST_DIR_PATH(link, dir, "s.png");
    TEST_DIR_PATH(csv, dir, "s.csv");
    ck_assert_int_eq(symlink(csv, link), 0);
    test_cli_in(&r, dir, "plot s.csv --x chunks --y time_us -o s.png --force");
    test_expect_bad(&r, "the input as the output");
    ck_assert_msg(strstr(r.err, "s.png: is also an input (s.csv)"), "%s", r.err);
    test_cli_free(&r);
    nothing_left(dir);
    test_rm_dir(dir);
}
END_TEST

/* A text x (policy): clustered bars, the policies as x tics in the order they first appear;
 * the script is read as gnuplot got it through a gnuplot that keeps a copy. */
START_TEST(categories) {
    char *dir = test_tmp_dir();
    sweep(dir);
    char real[1024];
    ck_assert_int_eq(test_sh(real, sizeof real, "command -v gnuplot"), 0);
    real[strcspn(real, "\n")] = '\0';
    TEST_DIR_PATH(bin, dir, "bin");
    ck_assert_int_eq(mkdir(bin, 0755), 0);
    TEST_DIR_PATH(fake, dir, "bin/gnuplot");
    char sh[8192];
    snprintf(sh, sizeof sh, "#!/bin/sh\ncp \"$1\" '%s/kept.gp'\nexec '%s' \"$@\"\n", bin, real);
    test_spit(fake, sh, strlen(sh));
    ck_assert_int_eq(chmod(fake, 0755), 0);
    char out[4096];
    int st = test_sh(out, sizeof out,
                     "cd '%s' && env PATH=\"$PWD/bin:$PATH\" '%s' plot s.csv --x policy "
                     "--y time_us --by intra --where size=1048576 --where chunks=4 -o bars.png",
                     dir, test_cli_bin());
    ck_assert_msg(st == 0, "exit %d: %s", st, out);
    starts_with(dir, "bars.png", "\x89PNG\r\n\x1a\n", 8);
    TEST_DIR_PATH(kept, dir, "bin/kept.gp");
    char *gp = test_slurp(kept, NULL);
    ck_assert_msg(strstr(gp, "\nset xtics ('baseline' 0, 'themis' 1)\n"), "%s", gp);
    ck_assert_msg(strstr(gp, " with boxes ") && !strstr(gp, "linespoints"), "%s", gp);
    free(gp);
    nothing_left(dir);
    test_rm_dir(dir);
}
END_TEST

/* gnuplot missing: exit 2 naming the Debian package, no image; gnuplot failing: exit 1, no
 * image, nothing left behind. */
START_TEST(gnuplot_missing_or_failing) {
    char *dir = test_tmp_dir();
    sweep(dir);
    TEST_DIR_PATH(a, dir, "a.png");
    char out[4096];
    int st = test_sh(out, sizeof out,
                     "cd '%s' && env PATH=/nonexistent '%s' plot s.csv --x chunks --y time_us "
                     "-o a.png",
                     dir, test_cli_bin());
    ck_assert_msg(st == 2, "exit %d: %s", st, out);
    ck_assert_msg(strstr(out, "themis: plot: gnuplot not found; install the Debian package "
                              "gnuplot-nox"),
                  "%s", out);
    ck_assert(!test_exists(a));
    TEST_DIR_PATH(bin, dir, "bin");
    ck_assert_int_eq(mkdir(bin, 0755), 0);
    TEST_DIR_PATH(fake, dir, "bin/gnuplot");
    test_spit(fake, "#!/bin/sh\nexit 3\n", 17);
    ck_assert_int_eq(chmod(fake, 0755), 0);
    st = test_sh(out, sizeof out,
                 "cd '%s' && env PATH=\"$PWD/bin:$PATH\" '%s' plot s.csv --x chunks --y time_us "
                 "-o a.png",
                 dir, test_cli_bin());
    ck_assert_msg(st == 1, "exit %d: %s", st, out);
    ck_assert_msg(strstr(out, "themis: plot: gnuplot failed (exit 3)"), "%s", out);
    ck_assert(!test_exists(a));
    nothing_left(dir);
    test_rm_dir(dir);
}
END_TEST

Suite *cli_plot_suite(void) {
    Suite *s = suite_create("cli_plot");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, png_pdf_svg);
    tcase_add_test(tc, errors);
    tcase_add_test(tc, categories);
    tcase_add_test(tc, gnuplot_missing_or_failing);
    suite_add_tcase(s, tc);
    return s;
}

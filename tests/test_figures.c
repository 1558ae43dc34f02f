/* Tests of the figure tooling: scripts/plot column checks and output, scripts/figures without
 * gnuplot, and that docs/REPRODUCTION.md's table is the one the sweeps give today. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_themis.h"

static int has_gnuplot(void) {
    return system("command -v gnuplot >/dev/null 2>&1") == 0;
}

START_TEST(test_plot_missing_columns) {
    char out[8192];
    ck_assert_int_eq(test_sh(out, sizeof out,
                             "scripts/plot plots/ar-speedup-chunks.gp "
                             "tests/data/plot_nospeedup.csv /tmp/never"),
                     2);
    ck_assert_msg(strstr(out, "plot: tests/data/plot_nospeedup.csv: missing column(s) intra "
                              "speedup needed by ar-speedup-chunks.gp"),
                  "%s", out);
    ck_assert_int_eq(test_sh(out, sizeof out,
                             "scripts/plot plots/timeline.gp "
                             "tests/data/summarize_empty.csv /tmp/never"),
                     2);
    ck_assert_msg(strstr(out, "empty file"), "%s", out);
    ck_assert_int_eq(access("/tmp/never.png", F_OK), -1);
}
END_TEST

/* A tiny two-system chunk sweep drawn to PNG and PDF (skipped without gnuplot). */
START_TEST(test_plot_tiny) {
    if (!has_gnuplot()) return;
    char out[8192];
    char *dir = test_tmp_dir();
    ck_assert_int_eq(test_sh(out, sizeof out,
                             "scripts/plot plots/ar-speedup-chunks.gp "
                             "tests/data/plot_tiny.csv %s/tiny && "
                             "head -c 8 %s/tiny.png | od -An -tx1 && "
                             "head -c 5 %s/tiny.pdf",
                             dir, dir, dir),
                     0);
    ck_assert_msg(strstr(out, "89 50 4e 47 0d 0a 1a 0a") && strstr(out, "%PDF-"), "%s", out);
    test_rm_dir(dir);
}
END_TEST

START_TEST(test_figures_without_gnuplot) {
    char out[8192];
    ck_assert_int_eq(test_sh(out, sizeof out, "env PATH=/nonexistent /bin/sh scripts/figures"), 2);
    ck_assert_msg(strstr(out, "gnuplot not found; install the Debian package gnuplot-nox"), "%s",
                  out);
}
END_TEST

/* The tables in docs/REPRODUCTION.md (single All-Reduce and end-to-end training) must be what
 * scripts/reproduction-table makes from the sweeps as they run now: they can be neither typed
 * by hand nor left stale. */
START_TEST(test_reproduction_table_current) {
    char out[16384];
    char *dir = test_tmp_dir();
    int rc = test_sh(out, sizeof out,
                     "for s in ar-bw-util ar-speedup-size ar-speedup-chunks e2e-speedup "
                     "e2e-regime-paper e2e-regime-ours e2e-regime-latency; do "
                     "\"$THEMIS_BIN\" sweep sweeps/$s.json -o '%s'/$s.csv --quiet -j 2 || exit 9; "
                     "done && scripts/reproduction-table --check docs/REPRODUCTION.md '%s'",
                     dir, dir);
    test_rm_dir(dir);
    ck_assert_msg(rc == 0, "status %d:\n%s", rc, out);
}
END_TEST

Suite *figures_suite(void) {
    Suite *s = suite_create("figures");
    TCase *tc = tcase_create("figures");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_plot_missing_columns);
    tcase_add_test(tc, test_plot_tiny);
    tcase_add_test(tc, test_figures_without_gnuplot);
    tcase_add_test(tc, test_reproduction_table_current);
    suite_add_tcase(s, tc);
    return s;
}

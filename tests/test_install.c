/* Install tests: `make install` into a DESTDIR, then a small C program built against it through
 * pkg-config (shared, then static), the man page, the links of the shared library; and the
 * bash completion script. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_themis.h"

/* A program using only the declared API: the system loader (cJSON) and the embedding entry
 * point (a run whose system file does not exist: TH_EINPUT). */
static const char prog_c[] =
    "#include <stdio.h>\n"
    "#include <string.h>\n"
    "#include \"themis/themis.h\"\n"
    "int main(void) {\n"
    "    const char *json = \"{\\\"name\\\": \\\"t\\\", \\\"dims\\\": [{\\\"topology\\\": "
    "\\\"ring\\\",\"\n"
    "        \" \\\"npus\\\": 4, \\\"bw_GBps\\\": 100, \\\"latency_ns\\\": 0}]}\";\n"
    "    th_system sys;\n"
    "    th_error err;\n"
    "    if (th_system_parse(json, strlen(json), \"prog\", &sys, &err)) return 1;\n"
    "    char *out = NULL;\n"
    "    const char *req = \"{\\\"system\\\": \\\"/nonexistent.json\\\"}\";\n"
    "    int rc = th_api_call(\"run\", req, NULL, NULL, &out);\n"
    "    th_api_free(out);\n"
    "    printf(\"%s %g %d\\n\", TH_VERSION, sys.npus, rc);\n"
    "    return 0;\n"
    "}\n";

/* The last 2000 bytes of a command's output (Check's messages have a size limit). */
static const char *tail(const char *out) {
    size_t n = strlen(out);
    return n > 2000 ? out + n - 2000 : out;
}

/* `make install` of the plain build (whatever variant runs the tests) into DESTDIR=dir. */
static void install_into(const char *dir) {
    static char out[65536];
    const char *make = getenv("THEMIS_MAKE");
    const char *cc = getenv("THEMIS_CC");
    /* MAKEFLAGS of an outer `make -j2 check` would hand this make a jobserver it cannot use */
    int rc = test_sh(out, sizeof out,
                     "env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL %s -s install DESTDIR='%s' "
                     "PREFIX=/usr/local SANITIZE= TSAN= COVERAGE= CC='%s' >/dev/null",
                     make && *make ? make : "make", dir, cc && *cc ? cc : "gcc");
    ck_assert_msg(rc == 0, "make install: status %d:\n%s", rc, tail(out));
}

START_TEST(test_install_pkgconfig) {
    char out[16384];
    char *dir = test_tmp_dir();
    install_into(dir);
    const char *files[] = {"bin/themis",
                           "lib/libthemis.a",
                           "lib/libthemis.so.0.1.0",
                           "lib/pkgconfig/themis.pc",
                           "include/themis/themis.h",
                           "include/themis/system.h",
                           "share/themis/plots/common.gpi",
                           "share/themis/plots/ar-bw-util.gp",
                           "share/man/man1/themis.1",
                           "share/bash-completion/completions/themis"};
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        TEST_DIR_PATH(p, dir, "usr/local/");
        strncat(p, files[i], sizeof p - strlen(p) - 1);
        ck_assert_msg(test_exists(p), "%s not installed", p);
    }
    /* the soname and its links: libthemis.so -> libthemis.so.0 -> libthemis.so.0.1.0 */
    int rc = test_sh(out, sizeof out,
                     "cd '%s/usr/local/lib' && readlink libthemis.so libthemis.so.0 && "
                     "readelf -d libthemis.so.0.1.0 | grep SONAME",
                     dir);
    ck_assert_msg(rc == 0, "status %d:\n%s", rc, tail(out));
    ck_assert_msg(strstr(out, "libthemis.so.0\nlibthemis.so.0.1.0\n") &&
                      strstr(out, "[libthemis.so.0]"),
                  "links or soname:\n%s", tail(out));
    /* the man page: help2man's, with the version and every command (import-astra --workload's
     * options too, and the commands of this release: optimize, plot, calibrate) */
    TEST_DIR_PATH(man, dir, "usr/local/share/man/man1/themis.1");
    char *page = test_slurp(man, NULL);
    ck_assert_msg(strstr(page, ".TH THEMIS \"1\"") && strstr(page, "themis " TH_VERSION) &&
                      strstr(page, "themis import-astra") && strstr(page, "themis summarize") &&
                      strstr(page, ".SS \"themis import-astra --workload\"") &&
                      strstr(page, "multiply compute times (truncated") &&
                      strstr(page, ".SS \"themis optimize\"") &&
                      strstr(page, ".SS \"themis plot\"") &&
                      strstr(page, ".SS \"themis calibrate\""),
                  "man page:\n%.2000s", page);
    free(page);

    TEST_DIR_PATH(src, dir, "prog.c");
    test_spit(src, prog_c, strlen(prog_c));
    const char *cc = getenv("THEMIS_CC");
    cc = cc && *cc ? cc : "gcc";
    /* a staged install: pkg-config reads the .pc there and prefixes its paths with the
     * DESTDIR (PKG_CONFIG_SYSROOT_DIR) */
    char pc[8192];
    snprintf(pc, sizeof pc,
             "PKG_CONFIG_PATH='%s/usr/local/lib/pkgconfig' PKG_CONFIG_SYSROOT_DIR='%s'", dir, dir);
    /* shared: needs libthemis.so.0 at run time */
    rc = test_sh(out, sizeof out,
                 "cd '%s' && %s -o prog prog.c $(env %s pkg-config --cflags --libs themis) && "
                 "readelf -d prog | grep -c 'NEEDED.*libthemis.so.0' && "
                 "LD_LIBRARY_PATH='%s/usr/local/lib' ./prog",
                 dir, cc, pc, dir);
    /* "1" NEEDED entry; the version, P = 4, the expected run failure (TH_EINPUT = 2) */
    ck_assert_msg(rc == 0 && !strcmp(out, "1\n" TH_VERSION " 4 2\n"), "shared: status %d:\n%s", rc,
                  tail(out));
    /* static: all of libthemis.a (--whole-archive) with --static's Libs.private and
     * Requires.private, so a library they miss fails the link (cJSON has no static library
     * in Debian, so only themis is linked statically) */
    rc = test_sh(out, sizeof out,
                 "cd '%s' && %s -o prog_static prog.c $(env %s pkg-config --cflags themis) "
                 "-Wl,--as-needed -Wl,-Bstatic -Wl,--whole-archive -lthemis -Wl,--no-whole-archive "
                 "-Wl,-Bdynamic "
                 "$(env %s pkg-config --static --libs themis) && "
                 "! readelf -d prog_static | grep libthemis && ./prog_static",
                 dir, cc, pc, pc);
    ck_assert_msg(rc == 0 && !strcmp(out, TH_VERSION " 4 2\n"), "static: status %d:\n%s", rc,
                  tail(out));
    test_rm_dir(dir);
}
END_TEST

/* The shared library exports exactly the declared API: the names the installed headers mark
 * TH_API (a function's or an array's name follows TH_API on its line), and only the public
 * headers are installed (no internal helper: strings, buffers, CSV, SHA-256, ...). */
START_TEST(test_install_api) {
    static char out[65536];
    char *dir = test_tmp_dir();
    install_into(dir);
    const char *internal[] = {"str.h",    "buf.h",     "csv.h", "sha256.h", "text.h",
                              "output.h", "collist.h", "num.h", "plot.h",   "astra.h"};
    for (size_t i = 0; i < sizeof internal / sizeof *internal; i++) {
        TEST_DIR_PATH(p, dir, "usr/local/include/themis/");
        strncat(p, internal[i], sizeof p - strlen(p) - 1);
        ck_assert_msg(!test_exists(p), "%s installed", p);
    }
    int rc =
        test_sh(out, sizeof out,
                "cd '%s/usr/local' && "
                "sed -n 's/^TH_API .*[ *]\\(th_[a-z0-9_]*\\) *[(\\[].*/\\1/p' "
                "include/themis/*.h | sort > want && "
                "nm -D --defined-only lib/libthemis.so.0.1.0 | awk '{print $3}' | sort > got && "
                "test $(wc -l < want) -gt 100 && diff want got",
                dir);
    ck_assert_msg(rc == 0, "exports differ from the declared API (< declared, > exported):\n%s",
                  tail(out));
    test_rm_dir(dir);
}
END_TEST

/* Completes the words of `line` (the cursor after its last word) with scripts/themis.bash. */
static int complete(char *out, size_t size, const char *line) {
    return test_sh(out, size,
                   "bash -c 'source scripts/themis.bash && COMP_WORDS=(%s) && "
                   "COMP_CWORD=$((${#COMP_WORDS[@]} - 1)) && _themis && "
                   "printf \"%%s\\n\" \"${COMPREPLY[@]}\"'",
                   line);
}

START_TEST(test_bash_completion) {
    char out[8192];
    /* commands */
    ck_assert_int_eq(complete(out, sizeof out, "\"$THEMIS_BIN\" s\"\""), 0);
    ck_assert_str_eq(out, "sweep\nsummarize\nsearch\n");
    /* a command's options, from its --help */
    ck_assert_int_eq(complete(out, sizeof out, "\"$THEMIS_BIN\" run --sy"), 0);
    ck_assert_str_eq(out, "--system\n");
    ck_assert_int_eq(complete(out, sizeof out, "\"$THEMIS_BIN\" sweep x.json --re"), 0);
    ck_assert_str_eq(out, "--resume\n");
    /* an option's listed values */
    ck_assert_int_eq(complete(out, sizeof out, "\"$THEMIS_BIN\" run -q \"\""), 0);
    ck_assert_str_eq(out, "fifo\nscf\nall\n");
    ck_assert_int_eq(complete(out, sizeof out, "\"$THEMIS_BIN\" run --collective all"), 0);
    ck_assert_str_eq(out, "allreduce\nallgather\nalltoall\n");
    /* file names, for options taking a FILE and for operands */
    ck_assert_int_eq(complete(out, sizeof out, "\"$THEMIS_BIN\" run -s models/systems/default-3"),
                     0);
    ck_assert_str_eq(out, "models/systems/default-3d.json\n");
    ck_assert_int_eq(complete(out, sizeof out, "\"$THEMIS_BIN\" train models/workloads/dl"), 0);
    ck_assert_str_eq(out, "models/workloads/dlrm.json\n");
    /* a number: nothing to offer */
    ck_assert_int_eq(complete(out, sizeof out, "\"$THEMIS_BIN\" run -n \"\""), 0);
    ck_assert_str_eq(out, "\n");
}
END_TEST

Suite *install_suite(void) {
    Suite *s = suite_create("install");
    TCase *tc = tcase_create("install");
    tcase_set_timeout(tc, 600); /* from a sanitizer build, the install builds the plain one */
    tcase_add_test(tc, test_install_pkgconfig);
    tcase_add_test(tc, test_install_api);
    tcase_add_test(tc, test_bash_completion);
    suite_add_tcase(s, tc);
    return s;
}

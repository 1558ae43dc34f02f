/* Check suite for the provenance sidecar OUT.meta.json of themis sweep and themis merge, read
 * by Python's json and hashlib modules (independent of the code that writes it): what a fresh,
 * interrupted (SIGINT, kill -9), resumed, failed, forced and merged sweep leaves in it, that
 * the sweep file itself is unchanged by it, and that it is never one of the inputs. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check_themis.h"

/* The sidecar argv[1] in one line: complete, points, expected_points, sweep_points, shard,
 * format, number of runs, the last run's "stopped", whether "finished" is null, whether the
 * first run's "finished" is null, and whether the first run's start is the file's. */
#define PY_META                                                                                    \
    "python3 -c 'import json, sys\n"                                                               \
    "m = json.load(open(sys.argv[1], encoding=\"utf-8\"))\n"                                       \
    "r = m[\"runs\"]\n"                                                                            \
    "print(m[\"complete\"], m[\"points\"], m[\"expected_points\"], m[\"sweep_points\"], "          \
    "m[\"shard\"], m[\"format\"], len(r), r[-1].get(\"stopped\"), m[\"finished\"] is None, "       \
    "r[0][\"finished\"] is None, r[0][\"started\"] == m[\"started\"])\n"                           \
    "' '%s'"

/* Runs PY_META on dir/name and compares its line with want. */
static void meta_is(const char *dir, const char *name, const char *want) {
    char out[4096];
    TEST_DIR_PATH(path, dir, name);
    int st = test_sh(out, sizeof out, PY_META, path);
    ck_assert_msg(st == 0, "python3 reading %s: exit %d: %s", path, st, out);
    ck_assert_msg(!strcmp(out, want), "%s: %s(want %s)", name, out, want);
}

static void write_spec(const char *dir, const char *name, const char *json) {
    TEST_DIR_PATH(path, dir, name);
    test_spit_dq(path, json);
}

/* 2 chunk counts x 2 policies x 2 bandwidths on the 1-D ring: 8 points. */
static void small_spec(const char *dir) {
    char s[2048];
    snprintf(s, sizeof s,
             "{'system': '%s', 'collective': {'size': 1000000},"
             " 'axes': {'chunks': [1, 4], 'policy': ['baseline', 'themis'],"
             " 'dims[0].bw_GBps': [100, 200]}}",
             test_dpath("cli_ring4.json"));
    write_spec(dir, "spec.json", s);
}

START_TEST(fresh_sweep) {
    char *dir = test_tmp_dir();
    small_spec(dir);
    test_ok_in(dir, "sweep spec.json -o s.csv -j 2 --quiet");
    meta_is(dir, "s.csv.meta.json", "True 8 8 8 0/1 csv 1 None False False True\n");
    /* the spec (its bytes' SHA-256 and its JSON), the version, the command line as typed,
     * the thread count and UTC times */
    char out[8192];
    int st =
        test_sh(out, sizeof out,
                "cd '%s' && python3 -c 'import hashlib, json, re, sys\n"
                "m = json.load(open(\"s.csv.meta.json\"))\n"
                "spec = open(\"spec.json\", \"rb\").read()\n"
                "assert m[\"spec_sha256\"] == hashlib.sha256(spec).hexdigest(), m\n"
                "assert m[\"spec\"] == json.loads(spec) and m[\"spec_file\"] == \"spec.json\"\n"
                "ins = m[\"inputs\"]\n" /* the system the spec names, by its bytes' digest */
                "assert [i[\"file\"] for i in ins] == [json.loads(spec)[\"system\"]], ins\n"
                "assert ins[0][\"sha256\"] == hashlib.sha256(open(ins[0][\"file\"], \"rb\")"
                ".read()).hexdigest(), ins\n"
                "assert m[\"themis_version\"] == sys.argv[1], m[\"themis_version\"]\n"
                "assert m[\"file\"] == \"s.csv\"\n"
                "assert m[\"command\"] == sys.argv[2:], (m[\"command\"], sys.argv[2:])\n"
                "r = m[\"runs\"][0]\n"
                "assert r[\"command\"] == m[\"command\"] and r[\"threads\"] == m[\"threads\"]"
                " == 2 and r[\"points\"] == 8\n"
                "iso = r\"\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ$\"\n"
                "assert re.match(iso, m[\"started\"]) and re.match(iso, m[\"finished\"])\n"
                "assert m[\"started\"] <= m[\"finished\"]\n"
                "' '%s' '%s' sweep spec.json -o s.csv -j 2 --quiet",
                dir, TH_VERSION, test_cli_bin());
    ck_assert_msg(st == 0, "%s", out);
    /* the sweep file is the one a run to stdout (no sidecar) writes, byte for byte */
    test_cli_out r;
    test_cli_in(&r, dir, "sweep spec.json -o -");
    test_expect_quiet(&r, "sweep to stdout");
    TEST_DIR_PATH(csv, dir, "s.csv");
    size_t len;
    char *text = test_slurp(csv, &len);
    ck_assert(len == r.out_len && memcmp(text, r.out, len) == 0);
    free(text);
    test_cli_free(&r);
    TEST_DIR_PATH(stdout_meta, dir, "-.meta.json");
    ck_assert(!test_exists(stdout_meta));
    /* JSONL: the same, format jsonl; a device has no sidecar */
    test_ok_in(dir, "sweep spec.json -f jsonl -o s.jsonl --quiet");
    meta_is(dir, "s.jsonl.meta.json", "True 8 8 8 0/1 jsonl 1 None False False True\n");
    test_ok_in(dir, "sweep spec.json -o /dev/null --quiet");
    ck_assert(!test_exists("/dev/null.meta.json"));
    /* a shard: its own points expected */
    test_ok_in(dir, "sweep spec.json --shard 1/3 -o p1.csv --quiet");
    meta_is(dir, "p1.csv.meta.json", "True 3 3 8 1/3 csv 1 None False False True\n");
    /* --force: a new file, a new history */
    test_ok_in(dir, "sweep spec.json -o s.csv --force --quiet");
    meta_is(dir, "s.csv.meta.json", "True 8 8 8 0/1 csv 1 None False False True\n");
    test_rm_dir(dir);
}
END_TEST

/* A spec whose point 2 fails while it runs (batch 1 scales the 1e21 ns forward of
 * wl_ns_big.json, given at batch 1e-300, by 1e300: past DBL_MAX; see cli_sweep). */
static void failing_spec(const char *dir) {
    char s[2048];
    snprintf(s, sizeof s,
             "{'system': '%s', 'workload': '%s', 'policy': 'baseline', 'intra': 'fifo',"
             " 'axes': {'batch': [1e-300, 2e-300, 1, 3e-300]}}",
             test_dpath("cli_ring4.json"), test_dpath("wl_ns_big.json"));
    write_spec(dir, "fail.json", s);
}

START_TEST(failed_sweep) {
    char *dir = test_tmp_dir();
    failing_spec(dir);
    test_cli_out r;
    test_cli_in(&r, dir, "sweep fail.json -o f.csv -j 1");
    test_expect_bad(&r, "a failing point");
    test_cli_free(&r);
    /* the rows of points 0 and 1 stay in the file: the sidecar says so */
    meta_is(dir, "f.csv.meta.json", "False 2 4 4 0/1 csv 1 error False False True\n");
    /* --force over an existing file and sidecar: the old ones stay as they were */
    TEST_DIR_PATH(old, dir, "old.csv");
    TEST_DIR_PATH(old_meta, dir, "old.csv.meta.json");
    test_spit(old, "old\n", 4);
    test_spit(old_meta, "{\"old\": 1}\n", 11);
    test_cli_in(&r, dir, "sweep fail.json -o old.csv --force");
    test_expect_bad(&r, "a failing point with --force");
    test_cli_free(&r);
    char *t = test_slurp(old_meta, NULL);
    ck_assert_str_eq(t, "{\"old\": 1}\n");
    free(t);
    test_rm_dir(dir);
}
END_TEST

/* The sidecar is never an input: a spec naming OUT.meta.json as its system is refused before
 * anything is written. A sidecar that cannot be written (a folder by that name) fails with
 * exit 3, naming it. */
START_TEST(sidecar_not_an_input) {
    char *dir = test_tmp_dir();
    TEST_DIR_PATH(sys, dir, "o.csv.meta.json");
    char *ring = test_slurp(test_dpath("cli_ring4.json"), NULL);
    test_spit(sys, ring, strlen(ring));
    free(ring);
    write_spec(dir, "spec.json", "{'system': 'o.csv.meta.json', 'axes': {'chunks': [1, 2]}}");
    test_cli_out r;
    test_cli_in(&r, dir, "sweep spec.json -o o.csv");
    test_expect_bad(&r, "the sidecar is the spec's system");
    ck_assert_msg(strstr(r.err, "o.csv.meta.json: is also an input"), "%s", r.err);
    test_cli_free(&r);
    TEST_DIR_PATH(out, dir, "o.csv");
    ck_assert(!test_exists(out));
    /* merge: a part's sidecar is read, so it is an input too */
    small_spec(dir);
    test_ok_in(dir, "sweep spec.json -o a.csv --quiet");
    test_cli_in(&r, dir, "merge a.csv.meta.json a.csv --force");
    test_expect_bad(&r, "merge over a part's sidecar");
    ck_assert_msg(strstr(r.err, "a.csv.meta.json: is also an input"), "%s", r.err);
    test_cli_free(&r);
    TEST_DIR_PATH(folder, dir, "d.csv.meta.json");
    ck_assert_int_eq(mkdir(folder, 0755), 0);
    test_cli_in(&r, dir, "sweep spec.json -o d.csv --quiet");
    test_expect_status(&r, 3, "a sidecar that cannot be written");
    ck_assert_msg(strstr(r.err, "d.csv.meta.json: is a folder"), "%s", r.err);
    test_cli_free(&r);
    test_rm_dir(dir);
}
END_TEST

static void sleep_s(double s) {
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

static off_t file_size(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 ? st.st_size : -1;
}

/* Starts `themis sweep sweep_big.json -o OUT -j 2` (300000 cheap points), waits until rows are
 * in the file, sends sig and waits; returns the exit status (-sig when it died of it). */
static int interrupt_big(const char *out, int sig) {
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        int nul = open("/dev/null", O_RDWR);
        if (nul < 0) _exit(127);
        dup2(nul, 0);
        dup2(nul, 1);
        dup2(nul, 2);
        char *argv[] = {(char *)test_cli_bin(),
                        "sweep",
                        (char *)test_dpath("sweep_big.json"),
                        "-o",
                        (char *)out,
                        "-j",
                        "2",
                        NULL};
        execv(argv[0], argv);
        _exit(127);
    }
    /* the header is about 130 bytes: past 4096, rows are being written */
    for (int i = 0; i < 1000 && file_size(out) < 4096; i++)
        sleep_s(0.005);
    ck_assert_int_eq(kill(pid, sig), 0);
    int st;
    ck_assert_int_eq(waitpid(pid, &st, 0), pid);
    return WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ? -WTERMSIG(st) : -1000;
}

/* Rows in a sweep CSV: lines minus the header. */
static long rows_of(const char *path) {
    size_t len;
    char *t = test_slurp(path, &len);
    long n = -1;
    for (size_t i = 0; i < len; i++)
        n += t[i] == '\n';
    free(t);
    return n;
}

START_TEST(interrupted_and_resumed) {
    char *dir = test_tmp_dir();
    TEST_DIR_PATH(out, dir, "big.csv");
    /* Ctrl-C: exit 130, the sidecar says incomplete, with the rows in the file */
    int st = interrupt_big(out, SIGINT);
    ck_assert_msg(st == 128 + SIGINT, "exit %d (the sweep finished before the signal?)", st);
    long rows = rows_of(out);
    char want[256];
    snprintf(want, sizeof want, "False %ld 300000 300000 0/1 csv 1 SIGINT False False True\n",
             rows);
    meta_is(dir, "big.csv.meta.json", want);
    /* --resume finishes it: complete, the history holds both runs, the first start kept */
    test_cli_out r;
    test_cli_in(&r, dir, "sweep '%s' -o big.csv --resume -j 2", test_dpath("sweep_big.json"));
    test_expect_quiet(&r, "--resume");
    test_cli_free(&r);
    meta_is(dir, "big.csv.meta.json",
            "True 300000 300000 300000 0/1 csv 2 None False False True\n");
    /* kill -9: no chance to write at the end; the sidecar written before the first row says
     * incomplete (points 0, finished null); --resume completes it */
    TEST_DIR_PATH(out9, dir, "k.csv");
    st = interrupt_big(out9, SIGKILL);
    ck_assert_int_eq(st, -SIGKILL);
    meta_is(dir, "k.csv.meta.json", "False 0 300000 300000 0/1 csv 1 None True True True\n");
    test_cli_in(&r, dir, "sweep '%s' -o k.csv --resume -j 2", test_dpath("sweep_big.json"));
    test_expect_quiet(&r, "--resume after kill -9");
    test_cli_free(&r);
    meta_is(dir, "k.csv.meta.json", "True 300000 300000 300000 0/1 csv 2 None False True True\n");
    test_rm_dir(dir);
}
END_TEST

START_TEST(merged) {
    char *dir = test_tmp_dir();
    small_spec(dir);
    test_ok_in(dir, "sweep spec.json --shard 0/2 -o p0.csv --quiet");
    test_ok_in(dir, "sweep spec.json --shard 1/2 -o p1.csv --quiet");
    /* with --spec, or the parts' sidecars naming one spec: complete, that spec's digest */
    test_ok_in(dir, "merge a.csv p0.csv p1.csv --spec spec.json");
    meta_is(dir, "a.csv.meta.json", "True 8 8 8 0/1 csv 1 None False False True\n");
    test_ok_in(dir, "merge b.csv p1.csv p0.csv");
    meta_is(dir, "b.csv.meta.json", "True 8 8 8 0/1 csv 1 None False False True\n");
    char out[4096];
    int st =
        test_sh(out, sizeof out,
                "cd '%s' && python3 -c 'import hashlib, json\n"
                "h = hashlib.sha256(open(\"spec.json\", \"rb\").read()).hexdigest()\n"
                "a, b = (json.load(open(f)) for f in (\"a.csv.meta.json\", \"b.csv.meta.json\"))\n"
                "assert a[\"spec_sha256\"] == b[\"spec_sha256\"] == h\n"
                "assert a[\"spec\"] == b[\"spec\"] == json.load(open(\"spec.json\"))\n"
                "assert \"threads\" not in a and a[\"command\"][1:3] == [\"merge\", \"a.csv\"]\n"
                "'",
                dir);
    ck_assert_msg(st == 0, "%s", out);
    /* a part without a sidecar: the spec is not known, nor is completeness */
    TEST_DIR_PATH(p1meta, dir, "p1.csv.meta.json");
    unlink(p1meta);
    test_ok_in(dir, "merge c.csv p0.csv p1.csv");
    meta_is(dir, "c.csv.meta.json", "False 8 None None 0/1 csv 1 None False False True\n");
    /* a part that misses the tail (the first 3 rows of the whole sweep, its sidecar kept):
     * merged, but not complete */
    test_ok_in(dir, "sweep spec.json -o whole.csv --quiet");
    st = test_sh(out, sizeof out,
                 "cd '%s' && head -n 4 whole.csv > head.csv && cp whole.csv.meta.json "
                 "head.csv.meta.json",
                 dir);
    ck_assert_int_eq(st, 0);
    test_ok_in(dir, "merge d.csv head.csv");
    meta_is(dir, "d.csv.meta.json", "False 3 8 8 0/1 csv 1 None False False True\n");
    /* JSONL parts: format jsonl */
    test_ok_in(dir, "sweep spec.json -f jsonl --shard 0/2 -o q0.jsonl --quiet");
    test_ok_in(dir, "sweep spec.json -f jsonl --shard 1/2 -o q1.jsonl --quiet");
    test_ok_in(dir, "merge e.jsonl q0.jsonl q1.jsonl");
    meta_is(dir, "e.jsonl.meta.json", "True 8 8 8 0/1 jsonl 1 None False False True\n");
    /* an empty part first (a JSONL shard without points) takes the others' format: the merge
     * writes JSONL, and its sidecar says so (it said csv when it looked at the first part only);
     * none.jsonl has no sidecar, so the spec and its point count are unknown: not complete */
    st = test_sh(out, sizeof out, "cd '%s' && : > none.jsonl", dir);
    ck_assert_int_eq(st, 0);
    test_ok_in(dir, "merge f.jsonl none.jsonl q0.jsonl q1.jsonl");
    meta_is(dir, "f.jsonl.meta.json", "False 8 None None 0/1 jsonl 1 None False False True\n");
    test_rm_dir(dir);
}
END_TEST

Suite *cli_meta_suite(void) {
    Suite *s = suite_create("cli_meta");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, fresh_sweep);
    tcase_add_test(tc, failed_sweep);
    tcase_add_test(tc, sidecar_not_an_input);
    tcase_add_test(tc, interrupted_and_resumed);
    tcase_add_test(tc, merged);
    suite_add_tcase(s, tc);
    return s;
}

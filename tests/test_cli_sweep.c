/* Check suite for `themis sweep` and `themis merge` run as a user would. */
#define _XOPEN_SOURCE 700 /* realpath */
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

/* Asserts two files hold the same bytes. */
static void same_file(const char *a, const char *b) {
    size_t la, lb;
    char *x = test_slurp(a, &la), *y = test_slurp(b, &lb);
    size_t i = 0;
    while (i < la && i < lb && x[i] == y[i]) {
        i++;
    }
    ck_assert_msg(la == lb && i == la, "%s (%zu bytes) and %s (%zu bytes) differ at byte %zu", a,
                  la, b, lb, i);
    free(x);
    free(y);
}

/* Asserts a file holds exactly the n bytes at want. */
static void same_file_text(const char *path, const char *want, size_t n) {
    size_t len;
    char *x = test_slurp(path, &len);
    ck_assert_msg(len == n && memcmp(x, want, n) == 0, "%s: %zu bytes, not the %zu expected", path,
                  len, n);
    free(x);
}

/* ---- the done-when sweep: default system, chunks x policy x intra x size ---- */

static const char *const DEFAULT_HEADER =
    "point,chunks,policy,intra,size,time_us,ideal_us,bw_util,speedup,algbw_GBps,busbw_GBps,"
    "dim0_bw_util,dim0_busy_us,dim1_bw_util,dim1_busy_us,dim2_bw_util,dim2_busy_us,npus\n";
static const char *const POLICY[2] = {"baseline", "themis"};
static const char *const INTRA[2] = {"fifo", "scf"};
static const double SIZE[3] = {1048576.0, 67108864.0, 1073741824.0};

/* Writes the single-run reference of tests/data/sweep_default.json into path. */
static void default_run(const char *path, const char *jobs) {
    test_cli_out r;
    test_cli(&r, "sweep '%s' -o '%s' %s", test_dpath("sweep_default.json"), path, jobs);
    test_expect_quiet(&r, "sweep sweep_default.json");
    ck_assert_uint_eq(r.out_len, 0);
    test_cli_free(&r);
}

START_TEST(help) {
    const char *forms[] = {"sweep --help", "sweep -h"};
    for (int i = 0; i < 2; i++) {
        test_cli_out r;
        test_cli(&r, "%s", forms[i]);
        test_expect_quiet(&r, forms[i]);
        ck_assert_msg(strstr(r.out, "usage: themis sweep") != NULL, "%s: %s", forms[i], r.out);
        const char *opts[] = {"--output", "--jobs",    "--shard", "--resume",
                              "--force",  "--dry-run", "--quiet", "xample"};
        for (size_t k = 0; k < sizeof opts / sizeof opts[0]; k++) {
            ck_assert_msg(strstr(r.out, opts[k]) != NULL, "%s lacks %s", forms[i], opts[k]);
        }
        test_cli_free(&r);
    }
    const char *mforms[] = {"merge --help", "merge -h"};
    for (int i = 0; i < 2; i++) {
        test_cli_out r;
        test_cli(&r, "%s", mforms[i]);
        test_expect_quiet(&r, mforms[i]);
        ck_assert_msg(strstr(r.out, "usage: themis merge") != NULL, "%s: %s", mforms[i], r.out);
        ck_assert_msg(strstr(r.out, "--spec") != NULL, "%s lacks --spec", mforms[i]);
        ck_assert_msg(strstr(r.out, "--force") != NULL, "%s lacks --force", mforms[i]);
        test_cli_free(&r);
    }
    /* the global help names both commands */
    test_cli_out r;
    test_cli(&r, "--help");
    test_expect_quiet(&r, "--help");
    ck_assert_ptr_nonnull(strstr(r.out, "sweep"));
    ck_assert_ptr_nonnull(strstr(r.out, "merge"));
    test_cli_free(&r);
}
END_TEST

START_TEST(dry_run) {
    char *dir = test_tmp_dir();
    test_cli_out r;
    /* run from an empty folder: nothing is written anywhere */
    test_cli_in(&r, dir, "sweep '%s' --dry-run", test_dpath("sweep_default.json"));
    test_expect_quiet(&r, "--dry-run");
    /* 9 chunks x 2 policies x 2 intras x 3 sizes = 108 points; the first five, then "..." */
    ck_assert_str_eq(r.out, "sweep-default: 108 points\n"
                            "point,chunks,policy,intra,size\n"
                            "0,1,baseline,fifo,1048576\n"
                            "1,1,baseline,fifo,67108864\n"
                            "2,1,baseline,fifo,1073741824\n"
                            "3,1,baseline,scf,1048576\n"
                            "4,1,baseline,scf,67108864\n"
                            "...\n");
    test_cli_free(&r);
    /* a shard: 108 points, shard 2/5 holds 2, 7, 12, ... 107: 22 points. Point
     * ((c * 2 + p) * 2 + i) * 3 + s: 2 = (1, baseline, fifo, 1GiB), 7 = 2 * 3 + 1 =
     * (1, themis, fifo, 64MiB). */
    test_cli(&r, "sweep '%s' --dry-run --shard 2/5", test_dpath("sweep_default.json"));
    test_expect_quiet(&r, "--dry-run --shard 2/5");
    ck_assert_msg(strstr(r.out, "108 points") != NULL, "%s", r.out);
    ck_assert_msg(strstr(r.out, "22") != NULL, "%s", r.out);
    ck_assert_msg(strstr(r.out, "\n2,1,baseline,fifo,1073741824\n7,1,themis,fifo,67108864\n") !=
                      NULL,
                  "shard rows: %s", r.out);
    test_cli_free(&r);
    /* few points: no "..." */
    test_cli(&r, "sweep '%s' --dry-run", test_dpath("sweep_ring4.json"));
    test_expect_quiet(&r, "--dry-run ring4");
    ck_assert_str_eq(r.out, "sweep-ring4: 4 points\n"
                            "point,dims[0].bw_GBps,type\n"
                            "0,100,allreduce\n"
                            "1,100,reducescatter\n"
                            "2,50,allreduce\n"
                            "3,50,reducescatter\n");
    test_cli_free(&r);
    /* the big spec: 3 x 25000 x 2 x 2 */
    test_cli(&r, "sweep '%s' --dry-run", test_dpath("sweep_big.json"));
    test_expect_quiet(&r, "--dry-run big");
    ck_assert_msg(strncmp(r.out, "sweep-big: 300000 points\n", 25) == 0, "%s", r.out);
    test_cli_free(&r);
    /* nothing was created in the folder */
    test_cli(&r, "sweep '%s' --dry-run -o '%s/x.csv'", test_dpath("sweep_ring4.json"), dir);
    test_expect_quiet(&r, "--dry-run -o");
    test_cli_free(&r);
    TEST_DIR_PATH(x, dir, "x.csv");
    ck_assert(!test_exists(x));
    test_rm_dir(dir);
}
END_TEST

START_TEST(done_when_csv) {
    char *dir = test_tmp_dir();
    TEST_DIR_PATH(a, dir, "j1.csv");
    TEST_DIR_PATH(b, dir, "j2.csv");
    TEST_DIR_PATH(c, dir, "jd.csv");
    default_run(a, "-j 1");
    default_run(b, "-j 2");
    default_run(c, "--quiet"); /* default -j: all cores */
    same_file(a, b);
    same_file(a, c);

    size_t len;
    char *text = test_slurp(a, &len);
    ck_assert_msg(strncmp(text, DEFAULT_HEADER, strlen(DEFAULT_HEADER)) == 0, "header: %.300s",
                  text);
    free(text);
    test_csv t;
    test_csv_read(&t, a);
    ck_assert_int_eq(t.nrows, 108);
    const double B[3] = {250, 200, 50};
    for (int ci = 0; ci < 9; ci++) {
        for (int pi = 0; pi < 2; pi++) {
            for (int ii = 0; ii < 2; ii++) {
                for (int si = 0; si < 3; si++) {
                    int p = ((ci * 2 + pi) * 2 + ii) * 3 + si;
                    int ref = ((ci * 2 + 0) * 2 + 0) * 3 + si; /* baseline+fifo, same point */
                    double C = (double)(1 << ci), S = SIZE[si];
                    char pt[32];
                    snprintf(pt, sizeof pt, "%d", p);
                    ck_assert_str_eq(test_csv_s(&t, p, "point"), pt);
                    ck_assert_int_eq((int)test_csv_d(&t, p, "chunks"), 1 << ci);
                    ck_assert_str_eq(test_csv_s(&t, p, "policy"), POLICY[pi]);
                    ck_assert_str_eq(test_csv_s(&t, p, "intra"), INTRA[ii]);
                    ck_assert_rel(test_csv_d(&t, p, "size"), S);
                    ck_assert_str_eq(test_csv_s(&t, p, "npus"), "512");
                    double tu = test_csv_d(&t, p, "time_us");
                    /* ideal = 2 S (1 - 1/512) / (250 + 200 + 50) ns */
                    double ideal = 2 * S * 511 / 512 / 500 / 1000;
                    ck_assert_rel(test_csv_d(&t, p, "ideal_us"), ideal);
                    ck_assert(tu >= ideal * (1 - 1e-12));
                    ck_assert_rel(test_csv_d(&t, p, "bw_util"), ideal / tu);
                    ck_assert_rel(test_csv_d(&t, p, "speedup"),
                                  test_csv_d(&t, ref, "time_us") / tu);
                    ck_assert_rel(test_csv_d(&t, p, "algbw_GBps"), S / (tu * 1000));
                    ck_assert_rel(test_csv_d(&t, p, "busbw_GBps"), S / (tu * 1000) * 2 * 511 / 512);
                    /* every order moves 2 S (1 - 1/512) bytes: sum of util_K B_K time */
                    double bytes = 0;
                    for (int k = 0; k < 3; k++) {
                        char name[32];
                        snprintf(name, sizeof name, "dim%d_bw_util", k);
                        bytes += test_csv_d(&t, p, name) * B[k] * tu * 1000;
                        snprintf(name, sizeof name, "dim%d_busy_us", k);
                        ck_assert(test_csv_d(&t, p, name) <= tu * (1 + 1e-12));
                    }
                    ck_assert_rel(bytes / (2 * S * 511 / 512), 1.0);
                    if (pi == 0) {
                        /* Baseline order 0, 1, 2 for every chunk (c = S / C), 2C stages a dim:
                         * dim0 ring 4, alpha 20, L 3:   60 + c 3/(4 250)
                         * dim1 fc 8, alpha 100, L 1:    100 + (c/4) 7/(8 200)
                         * dim2 switch 16 rhd, L 2 s(16) = 8, alpha 1000: 8000 + (c/32) 15/(16 50)
                         * bytes: 2 S 3/4, 2 (S/4) 7/8, 2 (S/32) 15/16. */
                        double busy[3] = {2 * (C * 60 + S * 3 / 1000),
                                          2 * (C * 100 + S / 4 * 7 / 1600),
                                          2 * (C * 8000 + S / 32 * 15 / 800)};
                        double by[3] = {2 * S * 3 / 4, 2 * S / 4 * 7 / 8, 2 * S / 32 * 15 / 16};
                        ck_assert_rel(test_csv_d(&t, p, "dim0_busy_us"), busy[0] / 1000);
                        ck_assert_rel(test_csv_d(&t, p, "dim1_busy_us"), busy[1] / 1000);
                        ck_assert_rel(test_csv_d(&t, p, "dim2_busy_us"), busy[2] / 1000);
                        ck_assert_rel(test_csv_d(&t, p, "dim0_bw_util"),
                                      by[0] / (B[0] * tu * 1000));
                        ck_assert_rel(test_csv_d(&t, p, "dim1_bw_util"),
                                      by[1] / (B[1] * tu * 1000));
                        ck_assert_rel(test_csv_d(&t, p, "dim2_bw_util"),
                                      by[2] / (B[2] * tu * 1000));
                    }
                    if (pi == 0 && ii == 0) {
                        ck_assert_str_eq(test_csv_s(&t, p, "speedup"), "1");
                    }
                    if (ci == 0) {
                        /* One chunk: every policy keeps the baseline order; the stages run
                         * one after another: 2 (RS0 + RS1 + RS2). S = 1 MiB: RS0 = 60 +
                         * 3145.728, RS1 = 100 + 1146.88, RS2 = 8000 + 614.4; total
                         * 2 x 13067.008 = 26134.016 ns. */
                        double rs =
                            60 + S * 3 / 1000 + 100 + S / 4 * 7 / 1600 + 8000 + S / 32 * 15 / 800;
                        ck_assert_rel(tu, 2 * rs / 1000);
                        ck_assert_rel(test_csv_d(&t, p, "speedup"), 1.0);
                        if (si == 0) {
                            ck_assert_rel(tu, 26.134016);
                        }
                        if (si == 2) {
                            ck_assert_rel(tu, 10065.872384);
                        }
                    }
                }
            }
        }
    }
    test_csv_free(&t);
    test_rm_dir(dir);
}
END_TEST

START_TEST(stdout_output) {
    char *dir = test_tmp_dir();
    TEST_DIR_PATH(a, dir, "ref.csv");
    default_run(a, "-j 2");
    size_t len;
    char *want = test_slurp(a, &len);
    test_cli_out r;
    test_cli(&r, "sweep '%s' -o - -j 2", test_dpath("sweep_default.json"));
    test_expect_quiet(&r, "-o -");
    ck_assert_uint_eq(r.out_len, len);
    ck_assert(memcmp(r.out, want, len) == 0);
    test_cli_free(&r);
    /* --output - and --quiet: the same */
    test_cli(&r, "sweep '%s' --output - --quiet", test_dpath("sweep_default.json"));
    test_expect_quiet(&r, "--output - --quiet");
    ck_assert(r.out_len == len && memcmp(r.out, want, len) == 0);
    test_cli_free(&r);
    /* --resume needs a file */
    test_bad(NULL, "sweep '%s' -o - --resume", test_dpath("sweep_default.json"));
    free(want);
    /* the ring4 spec: 4 hand-computed rows (15.06, 7.53, 30.06, 15.03 us) */
    test_cli(&r, "sweep '%s' -o -", test_dpath("sweep_ring4.json"));
    test_expect_quiet(&r, "ring4 -o -");
    TEST_DIR_PATH(rp, dir, "ring4.csv");
    test_spit(rp, r.out, r.out_len);
    test_cli_free(&r);
    test_csv t;
    test_csv_read(&t, rp);
    ck_assert_int_eq(t.nrows, 4);
    ck_assert_int_eq(t.ncols, 12);
    /* ring of 4, alpha 10, S = 1e6: RS = 30 + 1e6 3 / (4 B); All-Reduce twice that */
    const double want_t[4] = {15.06, 7.53, 30.06, 15.03}, want_i[4] = {15, 7.5, 30, 15};
    for (int p = 0; p < 4; p++) {
        ck_assert_rel(test_csv_d(&t, p, "time_us"), want_t[p]);
        ck_assert_rel(test_csv_d(&t, p, "ideal_us"), want_i[p]);
        ck_assert_str_eq(test_csv_s(&t, p, "speedup"), "1");
        ck_assert_str_eq(test_csv_s(&t, p, "npus"), "4");
    }
    test_csv_free(&t);
    test_rm_dir(dir);
}
END_TEST

START_TEST(shards_merge) {
    char *dir = test_tmp_dir();
    TEST_DIR_PATH(ref, dir, "ref.csv");
    default_run(ref, "-j 2");
    const char *spec = test_dpath("sweep_default.json");
    char parts[3][4200];
    for (int k = 0; k < 3; k++) {
        snprintf(parts[k], sizeof parts[k], "%s/part%d.csv", dir, k);
        test_cli_out r;
        test_cli(&r, "sweep '%s' --shard %d/3 -j 2 -o '%s'", spec, k, parts[k]);
        test_expect_quiet(&r, "--shard");
        test_cli_free(&r);
        /* 108 points: 36 in each shard, points k, k + 3, ... */
        test_csv t;
        test_csv_read(&t, parts[k]);
        ck_assert_int_eq(t.nrows, 36);
        for (int j = 0; j < 36; j++) {
            ck_assert_int_eq(atoi(test_csv_s(&t, j, "point")), k + 3 * j);
        }
        test_csv_free(&t);
    }
    TEST_DIR_PATH(all, dir, "all.csv");
    test_cli_out r;
    test_cli(&r, "merge '%s' '%s' '%s' '%s' --spec '%s'", all, parts[0], parts[1], parts[2], spec);
    test_expect_quiet(&r, "merge --spec");
    ck_assert_uint_eq(r.out_len, 0);
    test_cli_free(&r);
    same_file(all, ref);
    /* without --spec, parts in another order */
    TEST_DIR_PATH(all2, dir, "all2.csv");
    test_cli(&r, "merge '%s' '%s' '%s' '%s'", all2, parts[2], parts[1], parts[0]);
    test_expect_quiet(&r, "merge");
    test_cli_free(&r);
    same_file(all2, ref);
    /* more shards than some points: 5/7 of 108 */
    char p7[7][4200];
    char list[8 * 4200] = "";
    for (int k = 0; k < 7; k++) {
        snprintf(p7[k], sizeof p7[k], "%s/s7_%d.csv", dir, k);
        test_cli(&r, "sweep '%s' --shard %d/7 -j 1 -o '%s'", spec, k, p7[k]);
        test_expect_quiet(&r, "--shard K/7");
        test_cli_free(&r);
        size_t n = strlen(list);
        snprintf(list + n, sizeof list - n, " '%s'", p7[k]);
    }
    TEST_DIR_PATH(all7, dir, "all7.csv");
    test_cli(&r, "merge '%s' %s --spec '%s'", all7, list, spec);
    test_expect_quiet(&r, "merge 7");
    test_cli_free(&r);
    same_file(all7, ref);
    test_rm_dir(dir);
}
END_TEST

START_TEST(resume_truncated) {
    char *dir = test_tmp_dir();
    TEST_DIR_PATH(ref, dir, "ref.csv");
    default_run(ref, "-j 2");
    const char *spec = test_dpath("sweep_default.json");
    size_t len;
    char *text = test_slurp(ref, &len);
    TEST_DIR_PATH(cut, dir, "cut.csv");
    /* cut points: inside the header, right after it, in the middle of a row (several
     * places), at a row boundary, one byte short of the end, the whole file */
    size_t hlen = strlen(DEFAULT_HEADER);
    const char *mid = strchr(text + len / 2, '\n');
    size_t cuts[] = {0,       10, hlen, hlen + 5, len / 3, len / 2, (size_t)(mid - text) + 1,
                     len - 1, len};
    const char *jobs[] = {"-j 1", "-j 2"};
    for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
        test_spit(cut, text, cuts[i]);
        test_cli_out r;
        test_cli(&r, "sweep '%s' -o '%s' --resume %s", spec, cut, jobs[i % 2]);
        test_expect_quiet(&r, "--resume");
        test_cli_free(&r);
        same_file(cut, ref);
    }
    /* --resume with no file: a plain run */
    unlink(cut);
    test_cli_out r;
    test_cli(&r, "sweep '%s' -o '%s' --resume", spec, cut);
    test_expect_quiet(&r, "--resume, no file");
    test_cli_free(&r);
    same_file(cut, ref);
    /* a shard resumed */
    TEST_DIR_PATH(part, dir, "part1.csv");
    TEST_DIR_PATH(part_ref, dir, "part1_ref.csv");
    test_cli(&r, "sweep '%s' --shard 1/3 -o '%s'", spec, part_ref);
    test_expect_quiet(&r, "--shard 1/3");
    test_cli_free(&r);
    char *ptext = test_slurp(part_ref, &len);
    test_spit(part, ptext, len / 2 + 3);
    test_cli(&r, "sweep '%s' --shard 1/3 -o '%s' --resume", spec, part);
    test_expect_quiet(&r, "--shard 1/3 --resume");
    test_cli_free(&r);
    same_file(part, part_ref);
    /* a shard file is not another shard's, nor the whole sweep's: refused, untouched */
    test_spit(part, ptext, len / 2 + 3);
    test_bad(NULL, "sweep '%s' --shard 2/3 -o '%s' --resume", spec, part);
    test_bad(NULL, "sweep '%s' -o '%s' --resume", spec, part);
    size_t l2;
    char *now = test_slurp(part, &l2);
    ck_assert(l2 == len / 2 + 3 && memcmp(now, ptext, l2) == 0);
    free(now);
    free(ptext);
    /* a file of another spec (same header, other values): refused, untouched */
    TEST_DIR_PATH(other, dir, "other.json");
    char spec2[8192];
    snprintf(spec2, sizeof spec2,
             "{'system': '%s', 'collective': {'type': 'allreduce', 'size': '1GiB'},"
             " 'axes': {'chunks': [1, 2, 4, 8, 16, 32, 64, 128, 512], 'policy': ['baseline',"
             " 'themis'], 'intra': ['fifo', 'scf'], 'size': ['1MiB', '64MiB', '1GiB']}}",
             test_dpath("../../models/systems/default-3d.json"));
    test_spit_dq(other, spec2);
    /* rows 0..100 (the last has chunks 256 here, 512 there) */
    size_t r101 = 0;
    for (int l = 0, i = 0; l < 102; i++) {
        if (text[i] == '\n') {
            l++;
            r101 = (size_t)i + 1;
        }
    }
    test_spit(cut, text, r101);
    test_bad(NULL, "sweep '%s' -o '%s' --resume", other, cut);
    char *kept = test_slurp(cut, &l2);
    ck_assert(l2 == r101 && memcmp(kept, text, r101) == 0);
    free(kept);
    /* but its first rows are this spec's too: resuming after row 10 is accepted */
    size_t r10 = 0;
    for (int l = 0, i = 0; l < 11; i++) {
        if (text[i] == '\n') {
            l++;
            r10 = (size_t)i + 1;
        }
    }
    test_spit(cut, text, r10);
    test_cli(&r, "sweep '%s' -o '%s' --resume", other, cut);
    test_expect_quiet(&r, "--resume other spec, early rows");
    test_cli_free(&r);
    /* a header that is not this sweep's */
    test_spit(cut, "point,x\n0,1\n", 12);
    test_bad("header", "sweep '%s' -o '%s' --resume", spec, cut);
    kept = test_slurp(cut, &l2);
    ck_assert_str_eq(kept, "point,x\n0,1\n");
    free(kept);
    free(text);
    test_rm_dir(dir);
}
END_TEST

/* ---- interruption by a signal ---- */

static void sleep_s(double s) {
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

static off_t file_size(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 ? st.st_size : -1;
}

/* Starts `themis sweep SPEC -o OUT -j 2 [--resume]` with stderr to ERR; returns its pid. */
static pid_t spawn_sweep(const char *spec, const char *out, const char *err, int resume) {
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        int fd = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int nul = open("/dev/null", O_RDWR);
        if (fd < 0 || nul < 0) {
            _exit(127);
        }
        dup2(nul, 0);
        dup2(nul, 1);
        dup2(fd, 2);
        char *argv[] = {
            (char *)test_cli_bin(),     "sweep", (char *)spec, "-o", (char *)out, "-j", "2",
            resume ? "--resume" : NULL, NULL};
        execv(argv[0], argv);
        _exit(127);
    }
    return pid;
}

/* Interrupts a sweep of sweep_big.json with sig after ~0.3 s (once rows are being written);
 * checks the exit status and that the file is a prefix of `full` ending at a row. Returns
 * 1 when the sweep was interrupted, 0 when it had finished first. */
static int interrupt_run(int sig, const char *out, const char *err, const char *full_text,
                         size_t full_len, size_t header_len) {
    pid_t pid = spawn_sweep(test_dpath("sweep_big.json"), out, err, 0);
    sleep_s(0.3);
    /* make sure it is past its start (signal handlers set): rows are in the file */
    for (int i = 0; i < 500 && file_size(out) <= (off_t)header_len; i++) {
        sleep_s(0.01);
    }
    int st = 0;
    pid_t w = waitpid(pid, &st, WNOHANG);
    int finished = w == pid;
    if (!finished) {
        ck_assert_int_eq(kill(pid, sig), 0);
        ck_assert_int_eq(waitpid(pid, &st, 0), pid);
    }
    size_t len;
    char *text = test_slurp(out, &len);
    char *msg = test_slurp(err, NULL);
    int interrupted;
    if (sig == SIGKILL && !finished) {
        ck_assert_msg(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL, "kill -9: status %d", st);
        /* complete rows, at most a partial last line */
        interrupted = 1;
        size_t whole = len;
        while (whole > 0 && text[whole - 1] != '\n') {
            whole--;
        }
        ck_assert_msg(memchr(text + whole, '\n', len - whole) == NULL, "partial line");
        ck_assert(len <= full_len && memcmp(text, full_text, len) == 0);
    } else {
        ck_assert_msg(WIFEXITED(st), "the sweep died of signal %d", WTERMSIG(st));
        int code = WEXITSTATUS(st);
        ck_assert_msg(code == 128 + sig || code == 0, "exit %d after signal %d (want %d or 0)",
                      code, sig, 128 + sig);
        interrupted = code != 0;
        /* a valid CSV prefix: the header, then rows 0..n-1, every line complete */
        ck_assert_msg(len >= header_len && len <= full_len, "%zu bytes of %zu", len, full_len);
        ck_assert_msg(memcmp(text, full_text, len) == 0, "not a prefix of the full run");
        ck_assert_msg(text[len - 1] == '\n', "the interrupted file ends inside a line");
        if (interrupted) {
            ck_assert_msg(len < full_len, "exit %d but the file is complete", code);
            ck_assert_msg(strstr(msg, "--resume") != NULL, "stderr: '%s'", msg);
        } else {
            ck_assert_uint_eq(len, full_len);
        }
    }
    int64_t rows = 0;
    for (size_t i = 0; i < len; i++) {
        rows += text[i] == '\n';
    }
    free(text);
    free(msg);
    /* resume: the same bytes as the uninterrupted run */
    pid = spawn_sweep(test_dpath("sweep_big.json"), out, err, 1);
    ck_assert_int_eq(waitpid(pid, &st, 0), pid);
    msg = test_slurp(err, NULL);
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "--resume: status %d, '%s'", st, msg);
    ck_assert_msg(msg[0] == '\0', "--resume: stderr '%s'", msg);
    free(msg);
    text = test_slurp(out, &len);
    ck_assert_msg(len == full_len && memcmp(text, full_text, len) == 0,
                  "resumed after %lld lines: %zu bytes, want %zu", (long long)rows, len, full_len);
    free(text);
    return interrupted;
}

/* A signal ends a point that takes seconds (one million chunks of 1 GiB on a system of 12
 * dims, Themis + SCF, then its baseline + FIFO reference), not only the gaps between points:
 * exit 128 + SIGTERM well before the point could finish, the header alone in the file. */
/* --resume recomputes the last complete row and compares it byte for byte: a hand-edited
 * time_us there is refused (exit 2, naming the file, the row and the column), the file is left
 * untouched. sweep_ring4.json row 2 is point 1: bw 100, reducescatter of 1 MB in one chunk
 * on the ring of 4: 3 * 10 ns + 1e6 * 3/4 / 100 = 7530 ns = 7.53 us. */
START_TEST(resume_checks_last_row) {
    char *dir = test_tmp_dir();
    TEST_DIR_PATH(out, dir, "out.csv");
    const char *spec = test_dpath("sweep_ring4.json");
    test_cli_out r;
    test_cli(&r, "sweep '%s' -o '%s'", spec, out);
    test_expect_quiet(&r, "sweep_ring4");
    test_cli_free(&r);
    size_t len;
    char *text = test_slurp(out, &len);
    /* the header and rows 1 and 2 (points 0 and 1) */
    char *end = text;
    for (int l = 0; l < 3; l++)
        end = strchr(end, '\n') + 1;
    size_t keep = (size_t)(end - text);
    char *row2 = strstr(text, "\n1,100,reducescatter,7.53,");
    ck_assert_msg(row2 && row2 < end, "row 2 is not the hand-derived point 1: %s", text);
    /* unchanged: resumed to the full file */
    test_spit(out, text, keep);
    test_cli(&r, "sweep '%s' -o '%s' --resume", spec, out);
    test_expect_quiet(&r, "--resume");
    test_cli_free(&r);
    same_file_text(out, text, len);
    /* time_us 7.53 -> 7.54 in the last complete row: refused, untouched */
    char *edited = malloc(keep + 1);
    memcpy(edited, text, keep);
    edited[row2 - text + (long)strlen("\n1,100,reducescatter,7.5")] = '4';
    test_spit(out, edited, keep);
    test_cli(&r, "sweep '%s' -o '%s' --resume", spec, out);
    test_expect_bad(&r, "an edited last row");
    ck_assert_msg(strstr(r.err, out) && strstr(r.err, "row 2") && strstr(r.err, "time_us") &&
                      strstr(r.err, "7.54") && strstr(r.err, "7.53"),
                  "%s", r.err);
    test_cli_free(&r);
    same_file_text(out, edited, keep);
    /* a row cut short by an interrupted write is dropped, not compared: resumed in full */
    test_spit(out, edited, keep - 3);
    test_cli(&r, "sweep '%s' -o '%s' --resume", spec, out);
    test_expect_quiet(&r, "--resume after a partial row");
    test_cli_free(&r);
    same_file_text(out, text, len);
    free(edited);
    free(text);
    test_rm_dir(dir);
}
END_TEST

START_TEST(interrupt_long_point) {
    char *dir = test_tmp_dir();
    TEST_DIR_PATH(spec, dir, "spec.json");
    TEST_DIR_PATH(out, dir, "out.csv");
    TEST_DIR_PATH(err, dir, "err.txt");
    TEST_DIR_PATH(sys, dir, "sys12.json");
    /* 12 dims of 2 NPUs: 24 stages per chunk, 24 million per point */
    char json[2048] = "{'name': 'twelve', 'dims': [";
    for (int d = 0; d < 12; d++)
        strcat(json, d ? ", {'topology': 'switch', 'npus': 2, 'bw_GBps': 100, 'latency_ns': 10}"
                       : "{'topology': 'switch', 'npus': 2, 'bw_GBps': 100, 'latency_ns': 10}");
    strcat(json, "]}");
    test_spit_dq(sys, json);
    test_spit_dq(spec, "{'system': 'sys12.json', 'collective': {'size': '1GiB', 'chunks': 1000000},"
                       " 'policy': 'themis', 'intra': 'scf', 'axes': {'dims': ['all', 'all']}}");
    pid_t pid = spawn_sweep(spec, out, err, 0);
    /* the header is written just before the signal handlers are set: wait for it, then a
     * little more, so the signal lands inside the first point (seconds long) */
    for (int i = 0; i < 1000 && file_size(out) <= 0; i++)
        sleep_s(0.01);
    sleep_s(0.3);
    ck_assert_int_eq(kill(pid, SIGTERM), 0);
    int st = 0;
    ck_assert_int_eq(waitpid(pid, &st, 0), pid);
    char *msg = test_slurp(err, NULL);
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 128 + SIGTERM, "status %d: %s", st, msg);
    ck_assert_msg(strstr(msg, "0 of 2 points"), "%s", msg);
    free(msg);
    size_t len;
    char *text = test_slurp(out, &len);
    ck_assert_msg(len > 0 && memchr(text, '\n', len) == text + len - 1, "not the header alone: %s",
                  text);
    free(text);
    test_rm_dir(dir);
}
END_TEST

START_TEST(interrupt_resume) {
    char *dir = test_tmp_dir();
    TEST_DIR_PATH(full, dir, "full.csv");
    TEST_DIR_PATH(out, dir, "out.csv");
    TEST_DIR_PATH(err, dir, "err.txt");
    test_cli_out r;
    test_cli(&r, "sweep '%s' -o '%s' -j 2", test_dpath("sweep_big.json"), full);
    test_expect_quiet(&r, "sweep_big");
    test_cli_free(&r);
    size_t len;
    char *text = test_slurp(full, &len);
    /* 300000 rows numbered 0.. in order, every line complete */
    const char *line = strchr(text, '\n') + 1;
    size_t header_len = (size_t)(line - text);
    const char *want_header =
        "point,chunks,dims[0].bw_GBps,policy,intra,time_us,ideal_us,bw_util,speedup,algbw_GBps,"
        "busbw_GBps,dim0_bw_util,dim0_busy_us,npus\n";
    ck_assert_uint_eq(header_len, strlen(want_header));
    ck_assert(memcmp(text, want_header, header_len) == 0);
    for (long p = 0; p < 300000; p++) {
        char *end;
        ck_assert_int_eq(strtol(line, &end, 10), p);
        ck_assert(*end == ',');
        line = strchr(line, '\n');
        ck_assert_ptr_nonnull(line);
        line++;
    }
    ck_assert(*line == '\0');

    int n = interrupt_run(SIGINT, out, err, text, len, header_len);
    unlink(out);
    n += interrupt_run(SIGTERM, out, err, text, len, header_len);
    unlink(out);
    n += interrupt_run(SIGKILL, out, err, text, len, header_len);
    /* on this machine the sweep takes about a second: it should have been interrupted */
    ck_assert_msg(n > 0, "no run was interrupted: the sweep finished within 0.3 s");
    free(text);
    test_rm_dir(dir);
}
END_TEST

/* ---- the documented commands, as written ---- */

/* sweeps/README.md on a fresh clone (no out/ folder): the first block of commands as written,
 * and a workload sweep's dry run shows its header. */
START_TEST(sweeps_readme_fresh_clone) {
    char *dir = test_tmp_dir();
    const char *root = getenv("THEMIS_SRCDIR");
    char abs[4096];
    ck_assert_ptr_nonnull(realpath(root ? root : ".", abs));
    char cmd[20000];
    snprintf(cmd, sizeof cmd,
             "mkdir '%s/sweeps' && cp '%s'/sweeps/*.json '%s/sweeps/' && "
             "ln -s '%s/models' '%s/models'",
             dir, abs, dir, abs, dir);
    ck_assert_int_eq(system(cmd), 0);
    test_cli_out r;
    const char *cmds[] = {"sweep sweeps/chunks-vs-policy.json --dry-run",
                          "sweep sweeps/chunks-vs-policy.json",
                          "sweep sweeps/chunks-vs-policy.json --resume"};
    for (int i = 0; i < 3; i++) {
        test_cli_in(&r, dir, "%s", cmds[i]);
        test_expect_ok(&r, cmds[i]);
        test_cli_free(&r);
    }
    /* 9 chunks x 2 policies x 2 intras x 3 sizes = 108 rows after the header */
    TEST_DIR_PATH(csv, dir, "out/chunks-vs-policy.csv");
    char *text = test_slurp(csv, NULL);
    int lines = 0;
    for (const char *p = text; *p; p++)
        lines += *p == '\n';
    ck_assert_int_eq(lines, 109);
    free(text);
    /* The workload sweep's axes, in spec order, a workload or system axis followed by its
     * _file column: point, workload, workload_file, batch, system, system_file, policy,
     * intra. Point 0 is the first value of every axis. */
    test_cli_in(&r, dir, "sweep sweeps/e2e-speedup.json --dry-run");
    test_expect_quiet(&r, "e2e --dry-run");
    const char *want = "e2e-speedup: 48 points\n"
                       "point,workload,workload_file,batch,system,system_file,policy,intra\n"
                       "0,resnet152,../models/workloads/resnet152.json,4,flat-2d,"
                       "../models/systems/flat-2d.json,baseline,fifo\n";
    ck_assert_msg(!strncmp(r.out, want, strlen(want)), "%s", r.out);
    test_cli_free(&r);
    test_rm_dir(dir);
}
END_TEST

/* ---- GNU parallel ---- */

START_TEST(gnu_parallel) {
    char *dir = test_tmp_dir();
    TEST_DIR_PATH(ref, dir, "ref.csv");
    default_run(ref, "-j 2");
    const char *spec = test_dpath("sweep_default.json");
    char cmd[16384];
    TEST_DIR_PATH(log, dir, "parallel.log");
    /* the recipe of sweeps/README.md, on this machine */
    snprintf(cmd, sizeof cmd,
             "parallel --will-cite '%s' sweep '%s' --shard {}/3 -j 1 --quiet -o '%s'/part{}.csv "
             "::: 0 1 2 </dev/null >'%s' 2>&1",
             test_cli_bin(), spec, dir, log);
    int st = system(cmd);
    char *msg = test_slurp(log, NULL);
    ck_assert_msg(st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0, "parallel: status %d: %s", st,
                  msg ? msg : "");
    free(msg);
    TEST_DIR_PATH(all, dir, "all.csv");
    test_cli_out r;
    test_cli(&r, "merge '%s' '%s/part0.csv' '%s/part1.csv' '%s/part2.csv' --spec '%s'", all, dir,
             dir, dir, spec);
    test_expect_quiet(&r, "merge after parallel");
    test_cli_free(&r);
    same_file(all, ref);
    test_rm_dir(dir);
}
END_TEST

/* ---- the progress bar ---- */

START_TEST(progress_terminal) {
    /* `script` (util-linux) gives the sweep a terminal; without it there is nothing to do. */
    if (access("/usr/bin/script", X_OK) != 0) {
        return;
    }
    char *dir = test_tmp_dir();
    const char *quiet[2] = {"", "--quiet"};
    for (int q = 0; q < 2; q++) {
        TEST_DIR_PATH(out, dir, q ? "quiet.csv" : "bar.csv");
        TEST_DIR_PATH(tty, dir, "tty.txt");
        char cmd[16384];
        snprintf(cmd, sizeof cmd,
                 "/usr/bin/script -qec \"'%s' sweep '%s' -o '%s' %s\" /dev/null >'%s' 2>&1 "
                 "</dev/null",
                 test_cli_bin(), test_dpath("sweep_default.json"), out, quiet[q], tty);
        int st = system(cmd);
        ck_assert_msg(st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0, "script: status %d", st);
        char *text = test_slurp(tty, NULL);
        if (q == 0) {
            /* points done/total, rate, ETA */
            ck_assert_msg(strstr(text, "108/108") != NULL, "no progress on a terminal: '%s'", text);
            ck_assert_msg(strstr(text, "ETA") != NULL, "no ETA: '%s'", text);
        } else {
            ck_assert_msg(text[0] == '\0', "--quiet on a terminal printed '%s'", text);
        }
        free(text);
    }
    TEST_DIR_PATH(a, dir, "bar.csv");
    TEST_DIR_PATH(b, dir, "quiet.csv");
    same_file(a, b);
    test_rm_dir(dir);
}
END_TEST

/* ---- bad input ---- */

START_TEST(bad_specs) {
    char *dir = test_tmp_dir();
    TEST_DIR_PATH(spec, dir, "spec.json");
    TEST_DIR_PATH(out, dir, "out.csv");
    const char *sys = test_dpath("cli_3d.json");
    /* {spec body after the system, a word the message must hold} */
    static const char *const cases[][2] = {
        {"'axes': {'chunk': [1]}", "did you mean \"chunks\""},
        {"'axes': {'dims[5].npus': [2]}", "dims[5].npus"},
        {"'axes': {'chunks': []}", "axes.chunks"},
        {"'axes': {'chunks': {'from': 1, 'to': 4, 'step': 0}}", "axes.chunks"},
        {"'axes': {'chunks': {'from': 1, 'to': 4, 'step': -1}}", "axes.chunks"},
        {"'axes': {'dims[0].bw_GBps': {'from': 1, 'to': 4, 'times': 1}}", "dims[0].bw_GBps"},
        {"'axes': {'intra': {'from': 1, 'to': 4, 'step': 1}}", "axes.intra"},
        {"'axes': {'dims[0].npus': ['four']}", "dims[0].npus"},
        {"'axes': {'dims[0].npus': 'four'}", "dims[0].npus"},
        {"'axes': {'dims[0].topology': ['ring'], 'dims[0].algorithm': ['direct']}",
         "dims[0].algorithm"},
        {"'axes': {'dims[0].topology': ['fc', 'ring'], 'dims[0].algorithm': ['direct', 'direct']}"
         ", 'zip': [['dims[0].topology', 'dims[0].algorithm']]",
         "point 1"},
        {"'axes': {'dims[0].npus': [0]}", "dims[0].npus"},
        {"'axes': {'chunks': {'from': 1, 'to': 1000, 'step': 1}, 'size': {'from': 1, 'to': 1000,"
         " 'step': 1}, 'dims[0].latency_ns': {'from': 0, 'to': 100, 'step': 1}}",
         "100000000"},
        {"'axes': {'chunks': [1]}, 'outptu': 'x.csv'", "outptu"},
        {"'axes': {'chunks': [1, 2], 'size': [1]}, 'zip': [['chunks', 'size']]", "zip[0]"},
        {"'axes': {'chunks': [1, 2], 'size': [1, 2]}, 'zip': [['chunks', 'sizes']]", "sizes"},
        {"'axes': {'chunks': [1, 2]", "JSON"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[2048];
        snprintf(text, sizeof text, "{'system': '%s', %s}", sys, cases[i][0]);
        test_spit_dq(spec, text);
        test_bad(cases[i][1], "sweep '%s' -o '%s'", spec, out);
        ck_assert_msg(!test_exists(out), "%s: the output was created", text);
        test_bad(cases[i][1], "sweep '%s' --dry-run", spec);
        /* an existing output is left untouched, even with --force */
        test_spit(out, "keep\n", 5);
        test_bad(cases[i][1], "sweep '%s' -o '%s' --force", spec, out);
        char *kept = test_slurp(out, NULL);
        ck_assert_msg(strcmp(kept, "keep\n") == 0, "%s: the output was changed", text);
        free(kept);
        unlink(out);
    }
    /* a missing system file, relative to the spec's folder */
    test_spit_dq(spec, "{'system': 'nope.json'}");
    test_bad("nope.json", "sweep '%s' -o '%s'", spec, out);
    ck_assert(!test_exists(out));
    /* a missing spec */
    test_bad("none.json", "sweep '%s/none.json' -o '%s'", dir, out);
    ck_assert(!test_exists(out));
    /* A point that the run rejects through a run axis (the ASTRA-sim preset runs only
     * All-Reduce): either refused up front, naming the point, with no file created, or
     * computed like every other point. */
    char text[2048];
    snprintf(text, sizeof text,
             "{'system': '%s', 'collective': {'size': '1MiB', 'chunks': 4},"
             " 'axes': {'type': ['allreduce', 'alltoall']}}",
             test_dpath("sweep_astra.json"));
    test_spit_dq(spec, text);
    test_cli_out r;
    test_cli(&r, "sweep '%s' -o '%s'", spec, out);
    if (r.status == 0) {
        test_csv t;
        test_csv_read(&t, out);
        ck_assert_int_eq(t.nrows, 2);
        test_csv_free(&t);
    } else {
        ck_assert_msg(!test_exists(out), "an invalid point: the output was created (exit %d: %s)",
                      r.status, r.err);
        test_expect_bad(&r, "astra type axis");
        ck_assert_msg(strstr(r.err, "point 1") != NULL, "message '%s' lacks 'point 1'", r.err);
    }
    test_cli_free(&r);
    test_rm_dir(dir);
}
END_TEST

/* A reduce_GBps axis value whose stage times overflow is refused before any row, naming
 * the point, instead of hanging a worker (`timeout` turns a hang into exit 124). */
START_TEST(no_hang) {
    char *dir = test_tmp_dir();
    TEST_DIR_PATH(spec, dir, "spec.json");
    TEST_DIR_PATH(out, dir, "out.csv");
    char text[2048];
    snprintf(text, sizeof text, "{'system': '%s', 'axes': {'reduce_GBps': [1, 1e-300]}}",
             test_dpath("cli_ring4.json"));
    test_spit_dq(spec, text);
    char msg[4096];
    int st = test_sh(msg, sizeof msg, "timeout -k 5 60 \"$THEMIS_BIN\" sweep '%s' -o '%s' -j 1",
                     spec, out);
    ck_assert_msg(st == 2, "exit %d: %s", st, msg);
    ck_assert_msg(strstr(msg, "point 1") && strstr(msg, "reduce_GBps"), "%s", msg);
    ck_assert(!test_exists(out));
    test_rm_dir(dir);
}
END_TEST

/* A point that fails while it runs (batch 1 scales the 1e21 ns forward of wl_ns_big.json,
 * given at batch 1e-300, by 1e300: past DBL_MAX): exit 2 naming the point, and the file holds the
 * header and the rows before it, whole (no half-written row of the failing point), with 1 or 2
 * workers. */
START_TEST(failing_point) {
    char *dir = test_tmp_dir();
    TEST_DIR_PATH(spec, dir, "spec.json");
    TEST_DIR_PATH(out, dir, "out.csv");
    char text[2048];
    snprintf(text, sizeof text,
             "{'system': '%s', 'workload': '%s', 'policy': 'baseline', 'intra': 'fifo',"
             " 'axes': {'batch': [1e-300, 2e-300, 1, 3e-300]}}",
             test_dpath("cli_ring4.json"), test_dpath("wl_ns_big.json"));
    test_spit_dq(spec, text);
    for (int jobs = 1; jobs <= 2; jobs++) {
        unlink(out);
        test_cli_out r;
        test_cli(&r, "sweep '%s' -o '%s' -j %d", spec, out, jobs);
        test_expect_bad(&r, "a failing point");
        ck_assert_msg(strstr(r.err, "point 2") && strstr(r.err, "layers[0].forward"), "%s", r.err);
        test_cli_free(&r);
        size_t len;
        char *csv = test_slurp(out, &len);
        ck_assert_msg(len > 0 && csv[len - 1] == '\n', "a partial last line: %s", csv);
        test_csv c;
        test_csv_parse(&c, csv);
        ck_assert_int_eq(c.nrows, 2); /* points 0 and 1 */
        ck_assert_str_eq(test_csv_s(&c, 0, "point"), "0");
        ck_assert_str_eq(test_csv_s(&c, 1, "point"), "1");
        ck_assert_str_eq(test_csv_s(&c, 1, "batch"), "2e-300");
        test_csv_free(&c);
        free(csv);
    }
    /* --force over an existing file: a failing point leaves the old file as it was and no
     * temporary file beside it */
    test_spit(out, "old\n", 4);
    test_cli_out r;
    test_cli(&r, "sweep '%s' -o '%s' --force", spec, out);
    test_expect_bad(&r, "a failing point with --force");
    test_cli_free(&r);
    char *old = test_slurp(out, NULL);
    ck_assert_str_eq(old, "old\n");
    free(old);
    char cmd[8400];
    snprintf(cmd, sizeof cmd, "ls '%s' | grep -q tmp", dir);
    ck_assert_msg(system(cmd) != 0, "a temporary file was left in %s", dir);
    test_rm_dir(dir);
}
END_TEST

START_TEST(bad_outputs) {
    char *dir = test_tmp_dir();
    const char *spec = test_dpath("sweep_ring4.json");
    /* unwritable paths: an I/O failure (exit 3) naming the path, nothing created */
    TEST_DIR_PATH(file, dir, "file");
    test_spit(file, "f\n", 2);
    test_fails(3, "x.csv", "sweep '%s' -o '%s/x.csv'", spec, file);
    test_fails(3, dir, "sweep '%s' -o '%s' --force", spec, dir);
    struct stat st;
    ck_assert(stat(dir, &st) == 0 && S_ISDIR(st.st_mode));
    /* an existing output: refused without --resume or --force, left as it was */
    TEST_DIR_PATH(out, dir, "out.csv");
    test_spit(out, "precious\n", 9);
    test_bad(out, "sweep '%s' -o '%s'", spec, out);
    char *kept = test_slurp(out, NULL);
    ck_assert_str_eq(kept, "precious\n");
    free(kept);
    /* ... --force overwrites it */
    test_cli_out r;
    test_cli(&r, "sweep '%s' -o '%s' --force", spec, out);
    test_expect_quiet(&r, "--force");
    test_cli_free(&r);
    TEST_DIR_PATH(ref, dir, "ref.csv");
    test_cli(&r, "sweep '%s' -o '%s'", spec, ref);
    test_expect_quiet(&r, "ring4");
    test_cli_free(&r);
    same_file(out, ref);
    /* ... and a finished output resumed stays as it is */
    test_cli(&r, "sweep '%s' -o '%s' --resume", spec, out);
    test_expect_quiet(&r, "--resume, finished");
    test_cli_free(&r);
    same_file(out, ref);
    /* no output at all */
    test_bad("-o", "sweep '%s'", spec);
    /* the spec's own output resolves against its folder, wherever it runs from */
    TEST_DIR_PATH(sp, dir, "rel.json");
    char text[4096];
    snprintf(text, sizeof text,
             "{'system': '%s', 'collective': {'size': 1000000, 'chunks': 1},"
             " 'policy': 'baseline', 'intra': 'fifo', 'axes': {'dims[0].bw_GBps': [100, 50],"
             " 'type': ['allreduce', 'reducescatter']}, 'output': 'sub_out.csv'}",
             test_dpath("cli_ring4.json"));
    test_spit_dq(sp, text);
    char *other = test_tmp_dir();
    test_cli_in(&r, other, "sweep '%s'", sp);
    test_expect_quiet(&r, "spec output");
    test_cli_free(&r);
    TEST_DIR_PATH(made, dir, "sub_out.csv");
    TEST_DIR_PATH(notmade, other, "sub_out.csv");
    ck_assert(test_exists(made));
    ck_assert(!test_exists(notmade));
    same_file(made, ref); /* the same sweep as sweep_ring4.json */
    /* the system files of a system axis resolve against the spec's folder too */
    test_cli_in(&r, other, "sweep '%s' -o sys.csv", test_dpath("sweep_systems.json"));
    test_expect_quiet(&r, "system axis");
    test_cli_free(&r);
    TEST_DIR_PATH(sysout, other, "sys.csv");
    test_csv t;
    test_csv_read(&t, sysout);
    ck_assert_int_eq(t.nrows, 2);
    ck_assert_str_eq(test_csv_s(&t, 0, "system"), "cli-ring4"); /* the name, then the file */
    ck_assert_str_eq(test_csv_s(&t, 0, "system_file"), "cli_ring4.json");
    ck_assert_str_eq(test_csv_s(&t, 1, "system"), "cli-3d");
    ck_assert_str_eq(test_csv_s(&t, 1, "system_file"), "cli_3d.json");
    ck_assert_rel(test_csv_d(&t, 0, "time_us"), 15.06);
    ck_assert_str_eq(test_csv_s(&t, 0, "dim2_busy_us"), "");
    /* cli_3d, 1 chunk of 1e6: RS 7530 + 2600 + 10375 = 20505 ns, twice: 41.01 us */
    ck_assert_rel(test_csv_d(&t, 1, "time_us"), 41.01);
    ck_assert_str_eq(test_csv_s(&t, 1, "npus"), "64");
    test_csv_free(&t);
    test_rm_dir(other);
    test_rm_dir(dir);
}
END_TEST

START_TEST(bad_options) {
    const char *spec = test_dpath("sweep_ring4.json");
    test_bad(NULL, "sweep");
    test_bad(NULL, "sweep '%s' -o - -j 0", spec);
    test_bad(NULL, "sweep '%s' -o - -j many", spec);
    test_bad(NULL, "sweep '%s' -o - -j", spec);
    test_bad("--shard", "sweep '%s' -o - --shard 3/3", spec);
    test_bad("--shard", "sweep '%s' -o - --shard 1", spec);
    test_bad("--shard", "sweep '%s' -o - --shard -1/3", spec);
    test_bad(NULL, "sweep '%s' -o /tmp/never.csv --resume --force", spec);
    test_bad(NULL, "sweep '%s' '%s' -o -", spec, spec);
    test_bad(NULL, "sweep '%s' -o - --bogus", spec);
    test_bad(NULL, "merge");
    test_bad(NULL, "merge /tmp/only-out.csv");
    test_bad(NULL, "merge --bogus a b");
}
END_TEST

START_TEST(merge_errors) {
    char *dir = test_tmp_dir();
    const char *spec = test_dpath("sweep_default.json");
    char parts[3][4200];
    for (int k = 0; k < 3; k++) {
        snprintf(parts[k], sizeof parts[k], "%s/part%d.csv", dir, k);
        test_cli_out r;
        test_cli(&r, "sweep '%s' --shard %d/3 -j 2 -o '%s'", spec, k, parts[k]);
        test_expect_quiet(&r, "--shard");
        test_cli_free(&r);
    }
    TEST_DIR_PATH(ref, dir, "ref.csv");
    default_run(ref, "-j 2");
    TEST_DIR_PATH(out, dir, "out.csv");
    /* overlap, gap */
    test_bad("point 0", "merge '%s' '%s' '%s' '%s' '%s'", out, parts[0], parts[1], parts[2], ref);
    ck_assert(!test_exists(out));
    test_bad("point 1", "merge '%s' '%s' '%s'", out, parts[0], parts[2]);
    ck_assert(!test_exists(out));
    test_bad("point 1", "merge '%s' '%s' '%s' --spec '%s'", out, parts[0], parts[2], spec);
    ck_assert(!test_exists(out));
    /* a missing tail: the last point (107, in part 2) dropped; only --spec notices */
    size_t len;
    char *p2 = test_slurp(parts[2], &len);
    TEST_DIR_PATH(short2, dir, "short2.csv");
    size_t last = len - 1;
    while (p2[last - 1] != '\n') {
        last--;
    }
    ck_assert_int_eq(atoi(p2 + last), 107);
    test_spit(short2, p2, last);
    test_bad("108", "merge '%s' '%s' '%s' '%s' --spec '%s'", out, parts[0], parts[1], short2, spec);
    ck_assert(!test_exists(out));
    test_cli_out r;
    test_cli(&r, "merge '%s' '%s' '%s' '%s'", out, parts[0], parts[1], short2);
    test_expect_quiet(&r, "merge without --spec");
    test_cli_free(&r);
    test_csv t;
    test_csv_read(&t, out);
    ck_assert_int_eq(t.nrows, 107);
    test_csv_free(&t);
    /* an existing output: refused and untouched; --force replaces it */
    test_spit(out, "precious\n", 9);
    test_bad(out, "merge '%s' '%s' '%s' '%s'", out, parts[0], parts[1], parts[2]);
    char *kept = test_slurp(out, NULL);
    ck_assert_str_eq(kept, "precious\n");
    free(kept);
    test_cli(&r, "merge '%s' '%s' '%s' '%s' --force --spec '%s'", out, parts[0], parts[1], parts[2],
             spec);
    test_expect_quiet(&r, "merge --force");
    test_cli_free(&r);
    same_file(out, ref);
    unlink(out);
    /* an incomplete row (an interrupted shard) */
    test_spit(short2, p2, len - 2);
    test_bad("incomplete", "merge '%s' '%s' '%s' '%s'", out, parts[0], parts[1], short2);
    ck_assert(!test_exists(out));
    /* a part of another sweep: the headers differ */
    TEST_DIR_PATH(ring, dir, "ring.csv");
    test_cli(&r, "sweep '%s' -o '%s'", test_dpath("sweep_ring4.json"), ring);
    test_expect_quiet(&r, "ring4");
    test_cli_free(&r);
    test_bad("header", "merge '%s' '%s' '%s' '%s' '%s'", out, parts[0], parts[1], parts[2], ring);
    ck_assert(!test_exists(out));
    /* the output named as a part; a missing part; a bad spec */
    test_bad(NULL, "merge '%s' '%s' '%s'", parts[0], parts[0], parts[1]);
    test_bad("none.csv", "merge '%s' '%s' '%s/none.csv'", out, parts[0], dir);
    ck_assert(!test_exists(out));
    test_bad(NULL, "merge '%s' '%s' --spec '%s/none.json'", out, parts[0], dir);
    ck_assert(!test_exists(out));
    free(p2);
    test_rm_dir(dir);
}
END_TEST

Suite *cli_sweep_suite(void) {
    Suite *s = suite_create("cli_sweep");
    TCase *tc = tcase_create("cli_sweep");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, help);
    tcase_add_test(tc, dry_run);
    tcase_add_test(tc, done_when_csv);
    tcase_add_test(tc, stdout_output);
    tcase_add_test(tc, shards_merge);
    tcase_add_test(tc, resume_truncated);
    tcase_add_test(tc, interrupt_resume);
    tcase_add_test(tc, interrupt_long_point);
    tcase_add_test(tc, sweeps_readme_fresh_clone);
    tcase_add_test(tc, resume_checks_last_row);
    tcase_add_test(tc, gnu_parallel);
    tcase_add_test(tc, progress_terminal);
    tcase_add_test(tc, bad_specs);
    tcase_add_test(tc, no_hang);
    tcase_add_test(tc, failing_point);
    tcase_add_test(tc, bad_outputs);
    tcase_add_test(tc, bad_options);
    tcase_add_test(tc, merge_errors);
    suite_add_tcase(s, tc);
    return s;
}

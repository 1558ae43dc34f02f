/* Safe outputs: th_output (never an input or another output; temporary file renamed into place)
 * and every command that writes a file, run as the binary. */
#define _XOPEN_SOURCE 700 /* symlink, link */
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check_themis.h"
#include "themis/output.h"

/* Files in dir (. and .. excluded). */
static int files_in(const char *dir) {
    DIR *d = opendir(dir);
    ck_assert_ptr_nonnull(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    closedir(d);
    return n;
}

/* Asserts path holds exactly text. */
static void expect_text(const char *path, const char *text) {
    char *got = test_slurp(path, NULL);
    ck_assert_msg(!strcmp(got, text), "%s holds '%.200s', want '%.200s'", path, got, text);
    free(got);
}

/* Copies a shipped file (relative to the source folder) to dst. */
static void copy_file(const char *src, const char *dst) {
    char path[4200];
    const char *root = getenv("THEMIS_SRCDIR");
    snprintf(path, sizeof path, "%s/%s", root ? root : ".", src);
    size_t len;
    char *text = test_slurp(path, &len);
    test_spit(dst, text, len);
    free(text);
}

/* ---- the library ---- */

START_TEST(check_inputs_and_outputs) {
    char *dir = test_tmp_dir();
    TEST_DIR_PATH(in, dir, "in.json");
    TEST_DIR_PATH(hard, dir, "hard.json");
    TEST_DIR_PATH(soft, dir, "soft.json");
    TEST_DIR_PATH(other, dir, "other.csv");
    TEST_DIR_PATH(fresh, dir, "fresh.csv");
    TEST_DIR_PATH(fresh2, dir, "./fresh.csv");
    TEST_DIR_PATH(deep, dir, "a/b/c.csv");
    TEST_DIR_PATH(deep2, dir, "a/b/../b/c.csv");
    test_spit(in, "{}\n", 3);
    test_spit(other, "x\n", 2);
    ck_assert_int_eq(link(in, hard), 0);
    ck_assert_int_eq(symlink(in, soft), 0);
    th_error err = {0};
    const char *inputs[] = {in, NULL, "-"};
    /* an input named directly, through a hard link and through a symbolic link */
    const char *cases[] = {in, hard, soft};
    for (int i = 0; i < 3; i++) {
        ck_assert_int_eq(th_output_check(inputs, 3, &cases[i], 1, &err), TH_EINPUT);
        ck_assert_msg(strstr(err.msg, cases[i]) && strstr(err.msg, "input"), "%s", err.msg);
    }
    /* two outputs that do not exist yet, under two spellings */
    const char *twice[] = {fresh, "-", fresh2};
    ck_assert_int_eq(th_output_check(inputs, 3, twice, 3, &err), TH_EINPUT);
    ck_assert_msg(strstr(err.msg, "another output"), "%s", err.msg);
    /* the same, below folders that do not exist either */
    const char *deeps[] = {deep, deep2};
    ck_assert_int_eq(th_output_check(NULL, 0, deeps, 1, &err), TH_OK);
    const char *dd[] = {deep, deep};
    ck_assert_int_eq(th_output_check(NULL, 0, dd, 2, &err), TH_EINPUT);
    /* different files pass; stdout twice and absent outputs are not files */
    const char *fine[] = {other, fresh, deep, "-", "-", NULL};
    ck_assert_msg(th_output_check(inputs, 3, fine, 6, &err) == TH_OK, "%s", err.msg);
    test_rm_dir(dir);
}
END_TEST

START_TEST(commit_and_abort) {
    char *dir = test_tmp_dir();
    TEST_DIR_PATH(path, dir, "out.csv");
    test_spit(path, "old\n", 4);
    ck_assert_int_eq(chmod(path, 0640), 0);
    th_error err = {0};
    th_output o;
    /* an existing file needs TH_OUTPUT_FORCE */
    ck_assert_int_eq(th_output_open(&o, path, 0, &err), TH_EINPUT);
    ck_assert_msg(strstr(err.msg, path) && strstr(err.msg, "exists"), "%s", err.msg);
    /* written and aborted: the old file stays, no temporary file is left */
    ck_assert_int_eq(th_output_open(&o, path, TH_OUTPUT_FORCE, &err), TH_OK);
    fputs("new\n", o.f);
    fflush(o.f);
    expect_text(path, "old\n");
    ck_assert_int_eq(files_in(dir), 2); /* the file and its temporary */
    th_output_abort(&o);
    th_output_abort(&o); /* twice is harmless */
    expect_text(path, "old\n");
    ck_assert_int_eq(files_in(dir), 1);
    /* committed: replaced whole, with the old file's mode */
    ck_assert_int_eq(th_output_open(&o, path, TH_OUTPUT_FORCE, &err), TH_OK);
    fputs("new\n", o.f);
    ck_assert_int_eq(th_output_commit(&o, &err), TH_OK);
    expect_text(path, "new\n");
    struct stat st;
    ck_assert_int_eq(stat(path, &st), 0);
    ck_assert_int_eq(st.st_mode & 0777, 0640);
    ck_assert_int_eq(files_in(dir), 1);
    /* appending in place */
    ck_assert_int_eq(th_output_open(&o, path, TH_OUTPUT_APPEND, &err), TH_OK);
    fputs("more\n", o.f);
    ck_assert_int_eq(th_output_commit(&o, &err), TH_OK);
    expect_text(path, "new\nmore\n");
    /* missing parent folders are created */
    TEST_DIR_PATH(deep, dir, "x/y/z.csv");
    ck_assert_int_eq(th_output_open(&o, deep, 0, &err), TH_OK);
    fputs("z\n", o.f);
    ck_assert_int_eq(th_output_commit(&o, &err), TH_OK);
    expect_text(deep, "z\n");
    /* a folder under a regular file cannot be made: TH_EIO naming the path */
    TEST_DIR_PATH(under, dir, "out.csv/z.csv");
    ck_assert_int_eq(th_output_open(&o, under, 0, &err), TH_EIO);
    ck_assert_msg(strstr(err.msg, under), "%s", err.msg);
    /* a folder is not a file */
    ck_assert_int_eq(th_output_open(&o, dir, TH_OUTPUT_FORCE, &err), TH_EIO);
    test_rm_dir(dir);
}
END_TEST

/* A scratch file (plot's data and script beside the image) is a temporary file next to its
 * path, whatever is there: a pipe is not opened (that would wait for a reader), a folder is
 * not an error, and nothing at the path is touched. */
START_TEST(scratch_ignores_what_is_there) {
    char *dir = test_tmp_dir();
    TEST_DIR_PATH(fifo, dir, "out.png.dat");
    ck_assert_int_eq(mkfifo(fifo, 0600), 0);
    TEST_DIR_PATH(folder, dir, "out.png.gp");
    ck_assert_int_eq(mkdir(folder, 0700), 0);
    th_error err = {0};
    th_output a, b;
    ck_assert_int_eq(th_output_open(&a, fifo, TH_OUTPUT_SCRATCH, &err), TH_OK);
    ck_assert_int_eq(th_output_open(&b, folder, TH_OUTPUT_SCRATCH, &err), TH_OK);
    ck_assert_ptr_nonnull(a.tmp);
    ck_assert_ptr_nonnull(b.tmp);
    ck_assert(strncmp(a.tmp, fifo, strlen(fifo)) == 0 && a.tmp[strlen(fifo)] == '.');
    fputs("1 2\n", a.f);
    fflush(a.f);
    expect_text(a.tmp, "1 2\n");
    ck_assert_int_eq(files_in(dir), 4);
    th_output_abort(&a);
    th_output_abort(&b);
    ck_assert_int_eq(files_in(dir), 2);
    struct stat st;
    ck_assert_int_eq(stat(fifo, &st), 0);
    ck_assert(S_ISFIFO(st.st_mode));
    ck_assert_int_eq(stat(folder, &st), 0);
    ck_assert(S_ISDIR(st.st_mode));
    test_rm_dir(dir);
}
END_TEST

START_TEST(write_error) {
    /* A full device: TH_EIO at commit, naming the path and the reason. */
    th_error err = {0};
    th_output o;
    ck_assert_int_eq(th_output_open(&o, "/dev/full", 0, &err), TH_OK);
    fputs("x\n", o.f);
    ck_assert_int_eq(th_output_commit(&o, &err), TH_EIO);
    ck_assert_msg(strstr(err.msg, "/dev/full") && strstr(err.msg, "No space"), "%s", err.msg);
}
END_TEST

/* ---- every command ---- */

START_TEST(outputs_never_inputs) {
    char *dir = test_tmp_dir();
    TEST_DIR_PATH(sys, dir, "sys.json");
    TEST_DIR_PATH(wl, dir, "w.json");
    TEST_DIR_PATH(spec, dir, "spec.json");
    TEST_DIR_PATH(hard, dir, "hard.json");
    TEST_DIR_PATH(net, dir, "net.yml");
    copy_file("tests/data/cli_ring4.json", sys);
    copy_file("models/workloads/resnet50.json", wl);
    copy_file("tests/data/astra_net_3d.yml", net);
    const char *spec_text =
        "{\"name\": \"s\", \"system\": \"sys.json\", \"axes\": {\"chunks\": [1, 2]}}\n";
    test_spit(spec, spec_text, strlen(spec_text));
    ck_assert_int_eq(link(sys, hard), 0);
    char *sys_text = test_slurp(sys, NULL), *wl_text = test_slurp(wl, NULL);
    char *net_text = test_slurp(net, NULL);
    /* the reproductions, each with --force: refused, the input untouched */
    test_bad("input", "run -s '%s' -o '%s' --force", sys, sys);
    test_bad("input", "run --trace '%s' -s '%s' --force", sys, sys);
    test_bad("input", "run -s '%s' -o '%s' --force", sys, hard);
    test_bad("input", "train '%s' -o '%s' --force", wl, wl);
    test_bad("input", "train '%s' -s '%s' --trace '%s' --force", wl, sys, sys);
    test_bad("input", "sweep '%s' -o '%s' --force", spec, spec);
    test_bad("input", "sweep '%s' -o '%s' --force", spec, sys); /* a system the spec reads */
    test_bad("input", "import-astra '%s' -o '%s' --force", net, net);
    expect_text(sys, sys_text);
    expect_text(wl, wl_text);
    expect_text(spec, spec_text);
    expect_text(net, net_text);
    /* results and trace in one file: refused, nothing written */
    TEST_DIR_PATH(same, dir, "same.csv");
    test_bad("another output", "run -n 1 -o '%s' --trace '%s'", same, same);
    test_bad("another output", "train '%s' -o '%s' --trace '%s'", wl, same, same);
    ck_assert(!test_exists(same));
    ck_assert_int_eq(files_in(dir), 5);
    free(sys_text);
    free(wl_text);
    free(net_text);
    test_rm_dir(dir);
}
END_TEST

START_TEST(existing_outputs_need_force) {
    char *dir = test_tmp_dir();
    TEST_DIR_PATH(out, dir, "out.txt");
    TEST_DIR_PATH(trace, dir, "trace.csv");
    const char *wl = "models/workloads/resnet50.json";
    test_spit(out, "old\n", 4);
    test_spit(trace, "old trace\n", 10);
    test_bad("--force", "run -n 1 -o '%s'", out);
    test_bad("--force", "run -n 1 --trace '%s' -o -", trace);
    test_bad("--force", "train %s -o '%s'", wl, out);
    test_bad("--force", "train %s --trace '%s'", wl, trace);
    test_bad("--force", "import-astra '%s' -o '%s'", test_dpath("astra_net_3d.yml"), out);
    expect_text(out, "old\n");
    expect_text(trace, "old trace\n");
    /* with --force both are replaced */
    test_cli_out r;
    test_cli(&r, "run -n 1 -p baseline -q fifo -f csv -o '%s' --trace '%s' --force", out, trace);
    test_expect_quiet(&r, "run --force");
    test_cli_free(&r);
    char *text = test_slurp(out, NULL);
    ck_assert_msg(!strncmp(text, "system,", 7), "%s", text);
    free(text);
    text = test_slurp(trace, NULL);
    ck_assert_msg(!strncmp(text, "policy,intra,chunk,", 19), "%s", text);
    free(text);
    /* devices are written in place, without --force, and may be given twice */
    test_cli(&r, "run -n 1 -o /dev/null --trace /dev/null");
    test_expect_quiet(&r, "-o /dev/null");
    test_cli_free(&r);
    ck_assert_int_eq(files_in(dir), 2);
    test_rm_dir(dir);
}
END_TEST

START_TEST(failed_writes_keep_old_files) {
    char *dir = test_tmp_dir();
    TEST_DIR_PATH(trace, dir, "trace.csv");
    test_spit(trace, "old\n", 4);
    /* A file size limit of 1 KiB (SIGXFSZ ignored, so the write fails with EFBIG): the trace of
     * 64 chunks under six policy pairs is far longer. Exit 3 naming the file; the old file
     * stays and no temporary file is left. */
    char buf[4096];
    int st = test_sh(buf, sizeof buf,
                     "trap '' XFSZ; ulimit -f 1; \"$THEMIS_BIN\" run -n 64 -o /dev/null "
                     "--trace '%s' --force",
                     trace);
    ck_assert_msg(st == 3, "exit %d: %s", st, buf);
    ck_assert_msg(strstr(buf, trace) && strstr(buf, "write error"), "%s", buf);
    expect_text(trace, "old\n");
    ck_assert_int_eq(files_in(dir), 1);
    /* Killed by SIGPIPE (stdout is a pipe nobody reads) after the trace was written: the
     * temporary file is removed before dying. */
    int fds[2];
    ck_assert_int_eq(pipe(fds), 0);
    close(fds[0]);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        dup2(fds[1], 1);
        char *argv[] = {
            (char *)test_cli_bin(), "run", "-n", "64", "--trace", trace, "--force", NULL};
        execv(argv[0], argv);
        _exit(127);
    }
    close(fds[1]);
    ck_assert_int_eq(waitpid(pid, &st, 0), pid);
    ck_assert_msg(WIFSIGNALED(st) && WTERMSIG(st) == SIGPIPE, "status %d", st);
    expect_text(trace, "old\n");
    ck_assert_int_eq(files_in(dir), 1);
    /* A disk full: exit 3 naming the device. */
    test_fails(3, "/dev/full", "run -n 1 -o /dev/full");
    test_fails(3, "/dev/full", "train models/workloads/resnet50.json -o /dev/full");
    test_rm_dir(dir);
}
END_TEST

START_TEST(output_folders_created) {
    /* The commands of sweeps/README.md and README.md write into out/, which a fresh clone
     * lacks: the folder is created. */
    char *dir = test_tmp_dir();
    test_cli_out r;
    test_cli_in(&r, dir, "sweep '%s' -o out/a/ring4.csv", test_dpath("sweep_ring4.json"));
    test_expect_quiet(&r, "sweep into out/a/");
    test_cli_free(&r);
    TEST_DIR_PATH(csv, dir, "out/a/ring4.csv");
    ck_assert(test_exists(csv));
    test_cli_in(&r, dir, "run -n 1 -o out/b/run.txt --trace out/c/trace.csv");
    test_expect_quiet(&r, "run into out/b/");
    test_cli_free(&r);
    TEST_DIR_PATH(run, dir, "out/b/run.txt");
    TEST_DIR_PATH(tr, dir, "out/c/trace.csv");
    ck_assert(test_exists(run) && test_exists(tr));
    test_rm_dir(dir);
}
END_TEST

Suite *output_suite(void) {
    Suite *s = suite_create("output");
    TCase *tc = tcase_create("output");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, check_inputs_and_outputs);
    tcase_add_test(tc, commit_and_abort);
    tcase_add_test(tc, scratch_ignores_what_is_there);
    tcase_add_test(tc, write_error);
    tcase_add_test(tc, outputs_never_inputs);
    tcase_add_test(tc, existing_outputs_need_force);
    tcase_add_test(tc, failed_writes_keep_old_files);
    tcase_add_test(tc, output_folders_created);
    suite_add_tcase(s, tc);
    return s;
}

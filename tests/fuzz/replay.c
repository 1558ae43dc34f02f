/* Fuzz regression replay for `make check`: runs every seed of tests/fuzz/corpus/TARGET/ and
 * every saved crash of tests/fuzz/regressions/TARGET/ through the target's entry point, built
 * with the normal compiler (no libFuzzer), so the sanitizer builds catch a regression. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fuzz.h"

static const struct {
    const char *name;
    int (*fn)(const uint8_t *data, size_t size);
} targets[] = {
    {"system", th_fuzz_system},
    {"workload", th_fuzz_workload},
    {"sweep", th_fuzz_sweep},
    {"astra_net", th_fuzz_astra_net},
    {"astra_sys", th_fuzz_astra_sys},
    {"units", th_fuzz_units},
    {"csv", th_fuzz_csv},
    {"astra1_workload", th_fuzz_astra1_workload},
    {"astra1_net", th_fuzz_astra1_net},
    {"astra1_sys", th_fuzz_astra1_sys},
    {"calibrate", th_fuzz_calibrate},
    {"llm", th_fuzz_llm},
    {"chakra", th_fuzz_chakra},
    {"comm_group", th_fuzz_comm_group},
};

/* Reads a whole file; NULL on failure (errno set). */
static uint8_t *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 4096, n = 0;
    uint8_t *b = malloc(cap);
    while (b) {
        n += fread(b + n, 1, cap - n, f);
        if (n < cap) break;
        uint8_t *nb = realloc(b, cap *= 2);
        if (!nb) free(b);
        b = nb;
    }
    int bad = !b || ferror(f);
    fclose(f);
    if (bad) {
        free(b);
        return NULL;
    }
    *len = n;
    return b;
}

/* Runs one input in a child process, so a crash names its file and the others still run;
 * returns 0 when the child exited 0. */
static int replay_one(const char *path, int (*fn)(const uint8_t *, size_t)) {
    size_t len = 0;
    uint8_t *data = slurp(path, &len);
    if (!data) {
        fprintf(stderr, "fuzz_replay: %s: %s\n", path, strerror(errno));
        return -1;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        fn(data, len);
        _exit(0);
    }
    free(data);
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid) {
        fprintf(stderr, "fuzz_replay: %s: cannot run: %s\n", path, strerror(errno));
        return -1;
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return 0;
    if (WIFSIGNALED(status))
        fprintf(stderr, "fuzz_replay: %s: crashed (signal %d)\n", path, WTERMSIG(status));
    else
        fprintf(stderr, "fuzz_replay: %s: failed (exit %d)\n", path, WEXITSTATUS(status));
    return -1;
}

/* Replays every file of dir; returns how many, or -1 when one failed or dir cannot be read
 * (a missing dir is fine unless required). */
static int replay_dir(const char *dir, int required, int (*fn)(const uint8_t *, size_t)) {
    DIR *d = opendir(dir);
    if (!d) {
        if (!required && errno == ENOENT) return 0;
        fprintf(stderr, "fuzz_replay: %s: %s\n", dir, strerror(errno));
        return -1;
    }
    int n = 0, failed = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.') continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (replay_one(path, fn)) failed = 1;
        n++;
    }
    closedir(d);
    return failed ? -1 : n;
}

int main(void) {
    int total = 0, failed = 0;
    for (size_t t = 0; t < sizeof targets / sizeof *targets; t++) {
        char dir[4096];
        snprintf(dir, sizeof dir, "%s/tests/fuzz/corpus/%s", fuzz_srcdir(), targets[t].name);
        int seeds = replay_dir(dir, 1, targets[t].fn);
        snprintf(dir, sizeof dir, "%s/tests/fuzz/regressions/%s", fuzz_srcdir(), targets[t].name);
        int regs = replay_dir(dir, 0, targets[t].fn);
        if (seeds == 0) fprintf(stderr, "fuzz_replay: %s: no seed inputs\n", targets[t].name);
        if (seeds <= 0 || regs < 0) {
            failed = 1;
            continue;
        }
        total += seeds + regs;
    }
    if (failed) return EXIT_FAILURE;
    printf("fuzz replay: %d inputs, every target passed\n", total);
    return EXIT_SUCCESS;
}

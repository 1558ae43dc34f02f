/* Helpers shared by the fuzz targets: input copies, temporary files, invariant checks. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"
#include "themis/system.h"

const char *fuzz_srcdir(void) {
    const char *dir = getenv("THEMIS_SRCDIR");
    return dir && *dir ? dir : ".";
}

char *fuzz_text(const uint8_t *data, size_t size) {
    char *t = malloc(size + 1);
    FUZZ_CHECK(t != NULL);
    if (size) memcpy(t, data, size);
    t[size] = '\0';
    return t;
}

static char path[2][4096]; /* one file per slot and process, removed at exit */

static void remove_files(void) {
    for (int i = 0; i < 2; i++)
        if (path[i][0]) unlink(path[i]);
}

const char *fuzz_file(int slot, const uint8_t *data, size_t size) {
    FUZZ_CHECK(slot == 0 || slot == 1);
    if (!path[slot][0]) {
        const char *tmp = getenv("TMPDIR");
        snprintf(path[slot], sizeof path[slot], "%s/themis-fuzz-%ld-%d", tmp && *tmp ? tmp : "/tmp",
                 (long)getpid(), slot);
        if (!path[!slot][0]) atexit(remove_files);
    }
    FILE *f = fopen(path[slot], "wb");
    FUZZ_CHECK(f != NULL);
    FUZZ_CHECK(fwrite(data, 1, size, f) == size);
    FUZZ_CHECK(fclose(f) == 0);
    return path[slot];
}

void fuzz_fail(const char *file, int line, const char *what) {
    fprintf(stderr, "%s:%d: fuzz invariant broken: %s\n", file, line, what);
    abort();
}

void fuzz_check_error(int rc, const char *msg, const char *source) {
    if (rc != TH_EINPUT && rc != TH_EIO && rc != TH_EINTERNAL)
        fuzz_fail(__FILE__, __LINE__, "status");
    if (!msg[0] || strchr(msg, '\n')) {
        fprintf(stderr, "message: \"%s\"\n", msg);
        fuzz_fail(__FILE__, __LINE__, "a one-line message");
    }
    if (source && !strstr(msg, source)) {
        fprintf(stderr, "message: \"%s\"\n", msg);
        fuzz_fail(__FILE__, __LINE__, "the message names the input");
    }
}

void fuzz_check_import(int rc, char *out, const char *msg, const char *source) {
    if (rc != TH_OK) {
        fuzz_check_error(rc, msg, source);
        free(out);
        return;
    }
    th_system sys;
    th_error err = {0};
    FUZZ_CHECK(out != NULL);
    if (th_system_parse(out, strlen(out), "imported.json", &sys, &err) != TH_OK) {
        fprintf(stderr, "imported system rejected: %s\n%s\n", err.msg, out);
        fuzz_fail(__FILE__, __LINE__, "an import loads as a system");
    }
    free(out);
}

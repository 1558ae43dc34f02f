/* Safe output files: never an input or another output, written to a temporary file and renamed
 * into place when complete (the one way any command opens a file for writing). */
#define _XOPEN_SOURCE 700 /* realpath, fsync, fdopen */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "themis/output.h"
#include "themis/str.h"

/* What a path names: an existing file's device and inode (rest = ""), or, for a path that does
 * not exist yet, its nearest existing ancestor folder's and the rest of the path below it. */
typedef struct file_id {
    dev_t dev;
    ino_t ino;
    int special; /* an existing device, pipe or socket: it holds no content to lose */
    char rest[PATH_MAX];
} file_id;

/* 0 and *id on success; -1 with errno set otherwise. */
static int identify(const char *path, file_id *id) {
    char cur[PATH_MAX];
    if (snprintf(cur, sizeof cur, "%s", path) >= (int)sizeof cur) {
        errno = ENAMETOOLONG;
        return -1;
    }
    id->rest[0] = '\0';
    for (;;) {
        struct stat st;
        if (stat(cur, &st) == 0) {
            id->dev = st.st_dev;
            id->ino = st.st_ino;
            id->special = !id->rest[0] && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
            return 0;
        }
        if (errno != ENOENT) return -1;
        size_t n = strlen(cur);
        while (n > 1 && cur[n - 1] == '/')
            cur[--n] = '\0';
        char *slash = strrchr(cur, '/');
        const char *name = slash ? slash + 1 : cur;
        char rest[PATH_MAX];
        int w = id->rest[0] ? snprintf(rest, sizeof rest, "%s/%s", name, id->rest)
                            : snprintf(rest, sizeof rest, "%s", name);
        if (w >= (int)sizeof rest) {
            errno = ENAMETOOLONG;
            return -1;
        }
        memcpy(id->rest, rest, (size_t)w + 1);
        if (!slash)
            strcpy(cur, ".");
        else if (slash == cur)
            cur[1] = '\0';
        else
            *slash = '\0';
    }
}

static int same(const file_id *a, const file_id *b) {
    return a->dev == b->dev && a->ino == b->ino && !strcmp(a->rest, b->rest);
}

static int skipped(const char *path) {
    return !path || !strcmp(path, "-");
}

int th_output_check(const char *const *inputs, int ninputs, const char *const *outputs,
                    int noutputs, th_error *err) {
    file_id a, b;
    for (int i = 0; i < noutputs; i++) {
        if (skipped(outputs[i])) continue;
        if (identify(outputs[i], &a))
            return th_error_set(err, TH_EIO, "%s: cannot examine the output: %s", outputs[i],
                                strerror(errno));
        if (a.special) continue; /* /dev/null twice is fine */
        for (int k = 0; k < ninputs; k++) {
            if (skipped(inputs[k]) || identify(inputs[k], &b) || b.rest[0]) continue;
            if (same(&a, &b))
                return th_error_set(err, TH_EINPUT,
                                    "%s: is also an input (%s); writing it would destroy it: "
                                    "choose another output",
                                    outputs[i], inputs[k]);
        }
        for (int k = 0; k < i; k++) {
            if (skipped(outputs[k]) || identify(outputs[k], &b)) continue;
            if (same(&a, &b))
                return th_error_set(err, TH_EINPUT,
                                    "%s: is also another output (%s); choose two different files",
                                    outputs[i], outputs[k]);
        }
    }
    return TH_OK;
}

/* Creates the folders of path's parent that do not exist (like mkdir -p). */
static int make_parents(const char *path, th_error *err) {
    char dir[PATH_MAX];
    if (snprintf(dir, sizeof dir, "%s", path) >= (int)sizeof dir)
        return th_error_set(err, TH_EIO, "%s: path too long", path);
    char *slash = strrchr(dir, '/');
    if (!slash || slash == dir) return TH_OK;
    *slash = '\0';
    struct stat st;
    if (stat(dir, &st) == 0) return TH_OK;
    for (char *p = dir + 1;; p++) {
        if (*p != '/' && *p != '\0') continue;
        char c = *p;
        *p = '\0';
        if (mkdir(dir, 0777) && errno != EEXIST)
            return th_error_set(err, TH_EIO, "%s: cannot create the folder %s: %s", path, dir,
                                strerror(errno));
        *p = c;
        if (!c) return TH_OK;
    }
}

static int fail_open(th_output *o, th_error *err, const char *what) {
    int code = th_error_set(err, TH_EIO, "%s: cannot %s: %s", o->path, what, strerror(errno));
    th_output_abort(o);
    return code;
}

int th_output_open(th_output *o, const char *path, int flags, th_error *err) {
    memset(o, 0, sizeof *o);
    o->path = path;
    if (!strcmp(path, "-")) {
        o->f = stdout;
        return TH_OK;
    }
    struct stat st;
    int scratch = flags & TH_OUTPUT_SCRATCH;
    int exists = !scratch && stat(path, &st) == 0;
    if (!scratch && !exists && errno != ENOENT)
        return th_error_set(err, TH_EIO, "%s: cannot open for writing: %s", path, strerror(errno));
    if (!scratch && !exists && lstat(path, &st) == 0)
        return th_error_set(err, TH_EIO, "%s: a symbolic link to a file that does not exist", path);
    if (exists && S_ISDIR(st.st_mode))
        return th_error_set(err, TH_EIO, "%s: is a folder, not a file", path);
    int fd;
    if (exists && !S_ISREG(st.st_mode)) { /* a device or a pipe: nothing to replace */
        if (!(o->dest = th_strdup(path))) return th_error_set(err, TH_EINTERNAL, "out of memory");
        if ((fd = open(path, O_WRONLY | O_CLOEXEC)) < 0)
            return fail_open(o, err, "open for writing");
    } else if (exists && (flags & TH_OUTPUT_APPEND)) {
        if (!(o->dest = realpath(path, NULL))) return fail_open(o, err, "resolve the path");
        if ((fd = open(o->dest, O_WRONLY | O_CLOEXEC)) < 0 || lseek(fd, 0, SEEK_END) < 0)
            return fail_open(o, err, "open for appending");
    } else if (!exists && (flags & TH_OUTPUT_STREAM)) { /* nothing to protect: in place */
        if (!(o->dest = th_strdup(path))) return th_error_set(err, TH_EINTERNAL, "out of memory");
        int rc = make_parents(o->dest, err);
        if (rc) {
            th_output_abort(o);
            return rc;
        }
        if ((fd = open(o->dest, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666)) < 0)
            return fail_open(o, err, "create it");
    } else {
        if (exists && !(flags & TH_OUTPUT_FORCE))
            return th_error_set(err, TH_EINPUT, "%s: already exists; --force replaces it", path);
        o->dest = exists ? realpath(path, NULL) : th_strdup(path);
        if (!o->dest) return fail_open(o, err, "resolve the path");
        int rc = make_parents(o->dest, err);
        if (rc) {
            th_output_abort(o);
            return rc;
        }
        size_t n = strlen(o->dest) + 40;
        if (!(o->tmp = malloc(n))) {
            th_output_abort(o);
            return th_error_set(err, TH_EINTERNAL, "out of memory");
        }
        /* O_EXCL on a fresh name rather than mkstemp: the file gets 0666 minus the umask, as
         * a plain fopen would give it. */
        fd = -1;
        for (int k = 0; k < 1000 && fd < 0; k++) {
            snprintf(o->tmp, n, "%s.tmp-%ld-%d", o->dest, (long)getpid(), k);
            fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
            if (fd < 0 && errno != EEXIST) break;
        }
        if (fd < 0) {
            free(o->tmp);
            o->tmp = NULL;
            return fail_open(o, err, "create a file in its folder");
        }
        if (exists && fchmod(fd, st.st_mode & 07777)) {
            close(fd);
            return fail_open(o, err, "keep the mode of the file it replaces");
        }
    }
    if (!(o->f = fdopen(fd, "w"))) {
        close(fd);
        return fail_open(o, err, "open for writing");
    }
    return TH_OK;
}

int th_output_commit(th_output *o, th_error *err) {
    if (!o->f) return TH_OK;
    int e = 0;
    if (fflush(o->f))
        e = errno ? errno : EIO;
    else if (ferror(o->f))
        e = EIO;
    if (o->f == stdout) {
        o->f = NULL;
        if (e) return th_error_set(err, TH_EIO, "standard output: write error: %s", strerror(e));
        return TH_OK;
    }
    struct stat st;
    int regular = fstat(fileno(o->f), &st) == 0 && S_ISREG(st.st_mode);
    if (!e && regular && fsync(fileno(o->f))) e = errno;
    if (fclose(o->f) && !e) e = errno;
    o->f = NULL;
    if (!e && o->tmp && rename(o->tmp, o->dest)) {
        int code = th_error_set(err, TH_EIO, "%s: cannot rename %s into place: %s", o->path, o->tmp,
                                strerror(errno));
        th_output_abort(o);
        return code;
    }
    if (!e) {
        free(o->tmp);
        o->tmp = NULL;
        th_output_abort(o);
        return TH_OK;
    }
    th_output_abort(o);
    return th_error_set(err, TH_EIO, "%s: write error: %s", o->path, strerror(e));
}

void th_output_abort(th_output *o) {
    if (o->f && o->f != stdout) fclose(o->f);
    o->f = NULL;
    if (o->tmp) unlink(o->tmp);
    free(o->tmp);
    o->tmp = NULL;
    free(o->dest);
    o->dest = NULL;
}

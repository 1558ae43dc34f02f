/* Helpers shared by the Check suites: test data paths, hand-built systems, result equality,
 * temp files and folders, running the themis binary, and a small RFC 4180 CSV reader. */
#define _XOPEN_SOURCE 700 /* realpath */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check_themis.h"

/* Most fields a CSV line may hold. */
#define TEST_CSV_COLS 128

const char *test_data(const char *name) {
    static char buf[4096];
    const char *dir = getenv("THEMIS_SRCDIR");
    snprintf(buf, sizeof buf, "%s/tests/data/%s", dir ? dir : ".", name);
    return buf;
}

void test_add_dim(th_system *s, th_topology topo, int64_t p, double bw, double lat) {
    static const th_algorithm defaults[] = {TH_ALG_RING, TH_ALG_DIRECT, TH_ALG_RHD};
    th_dim *d = &s->dims[s->ndims];
    snprintf(d->name, sizeof d->name, "dim%d", s->ndims);
    d->topology = topo;
    d->algorithm = defaults[topo];
    d->npus = p;
    d->bw_GBps = bw;
    d->efficiency = 1.0;
    d->latency = lat;
    s->ndims++;
}

void test_finish(th_system *s) {
    th_error err = {0};
    snprintf(s->name, sizeof s->name, "test");
    ck_assert_msg(th_system_validate(s, "test", &err) == 0, "validate: %s", err.msg);
}

th_system test_ref_system(void) {
    th_system s;
    memset(&s, 0, sizeof s);
    test_add_dim(&s, TH_TOPO_RING, 4, 300, 0);
    test_add_dim(&s, TH_TOPO_FC, 8, 400, 0);
    test_add_dim(&s, TH_TOPO_SWITCH, 16, 100, 0);
    test_finish(&s);
    return s;
}

th_collective test_coll(th_coll_type t, double size, int64_t chunks, uint32_t mask) {
    th_collective c = {t, size, chunks, mask};
    return c;
}

void test_same_result(const th_result *a, const th_result *b) {
    ck_assert(a->time == b->time);
    ck_assert(a->ideal == b->ideal);
    ck_assert(a->bw_util == b->bw_util);
    ck_assert(a->algbw == b->algbw);
    ck_assert(a->busbw == b->busbw);
    ck_assert_int_eq(a->ndims, b->ndims);
    ck_assert_int_eq(a->stages, b->stages);
    for (int d = 0; d < a->ndims; d++) {
        ck_assert(a->bytes[d] == b->bytes[d]);
        ck_assert(a->busy[d] == b->busy[d]);
        ck_assert(a->dim_util[d] == b->dim_util[d]);
    }
}

/* ---- files and folders ---- */

const char *test_dpath(const char *name) {
    static char bufs[4][PATH_MAX];
    static int next;
    char *b = bufs[next];
    next = (next + 1) % 4;
    if (!realpath(test_data(name), b)) {
        snprintf(b, PATH_MAX, "%s", test_data(name));
    }
    return b;
}

/* $TMPDIR/themis-test-XXXXXX (or under /tmp) in buf, as a mkstemp/mkdtemp template. */
static void tmp_template(char *buf, size_t size) {
    const char *t = getenv("TMPDIR");
    snprintf(buf, size, "%s/themis-test-XXXXXX", t && *t ? t : "/tmp");
}

/* A malloc'd copy of s; fails the test when out of memory. */
static char *dup_str(const char *s) {
    char *d = malloc(strlen(s) + 1);
    ck_assert_ptr_nonnull(d);
    strcpy(d, s);
    return d;
}

char *test_tmp_dir(void) {
    char buf[4096];
    tmp_template(buf, sizeof buf);
    ck_assert_msg(mkdtemp(buf) != NULL, "mkdtemp failed in %s", buf);
    return dup_str(buf);
}

char *test_tmp_file(void) {
    char buf[4096];
    tmp_template(buf, sizeof buf);
    int fd = mkstemp(buf);
    ck_assert_msg(fd >= 0, "mkstemp failed in %s", buf);
    close(fd);
    return dup_str(buf);
}

void test_rm_dir(char *dir) {
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
    free(dir);
}

char *test_slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "cannot read %s", path);
    size_t cap = 1 << 16, n = 0, got;
    char *buf = malloc(cap);
    ck_assert_ptr_nonnull(buf);
    while ((got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
        n += got;
        if (cap - n - 1 == 0) {
            cap *= 2;
            buf = realloc(buf, cap);
            ck_assert_ptr_nonnull(buf);
        }
    }
    fclose(f);
    buf[n] = '\0';
    if (len) {
        *len = n;
    }
    return buf;
}

void test_spit(const char *path, const char *data, size_t len) {
    FILE *f = fopen(path, "wb");
    ck_assert_msg(f != NULL, "cannot create %s", path);
    ck_assert_uint_eq(fwrite(data, 1, len, f), len);
    ck_assert_int_eq(fclose(f), 0);
}

int test_exists(const char *path) {
    return access(path, F_OK) == 0;
}

char *test_dq(const char *json) {
    char *s = dup_str(json);
    for (char *p = s; *p; p++) {
        if (*p == '\'') {
            *p = '"';
        }
    }
    return s;
}

void test_spit_dq(const char *path, const char *json) {
    char *s = test_dq(json);
    test_spit(path, s, strlen(s));
    free(s);
}

/* ---- running the binary ---- */

const char *test_cli_bin(void) {
    static char abs[PATH_MAX];
    const char *b = getenv("THEMIS_BIN");
    b = b && *b ? b : "build/themis";
    if (!abs[0] && !realpath(b, abs)) {
        snprintf(abs, sizeof abs, "%s", b);
    }
    return abs;
}

/* test_cli_in with the arguments as a va_list. */
static void cli_v(test_cli_out *r, const char *dir, const char *fmt, va_list ap) {
    char args[8192], cmd[32768];
    vsnprintf(args, sizeof args, fmt, ap);
    r->args = dup_str(args);
    char *o = test_tmp_file(), *e = test_tmp_file();
    /* stdin first, so a redirection in ARGS still wins */
    if (dir) {
        snprintf(cmd, sizeof cmd, "cd '%s' && '%s' </dev/null %s >'%s' 2>'%s'", dir, test_cli_bin(),
                 args, o, e);
    } else {
        snprintf(cmd, sizeof cmd, "'%s' </dev/null %s >'%s' 2>'%s'", test_cli_bin(), args, o, e);
    }
    int st = system(cmd);
    r->status = (st != -1 && WIFEXITED(st)) ? WEXITSTATUS(st) : -1;
    r->out = test_slurp(o, &r->out_len);
    r->err = test_slurp(e, &r->err_len);
    unlink(o);
    unlink(e);
    free(o);
    free(e);
}

void test_cli_in(test_cli_out *r, const char *dir, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    cli_v(r, dir, fmt, ap);
    va_end(ap);
}

void test_ok_in(const char *dir, const char *args) {
    test_cli_out r;
    test_cli_in(&r, dir, "%s", args);
    test_expect_quiet(&r, args);
    test_cli_free(&r);
}

void test_cli(test_cli_out *r, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    cli_v(r, NULL, fmt, ap);
    va_end(ap);
}

void test_cli_free(test_cli_out *r) {
    free(r->args);
    free(r->out);
    free(r->err);
}

void test_expect_ok(const test_cli_out *r, const char *what) {
    ck_assert_msg(r->status == 0, "%s: exit %d, stderr: %s", what, r->status, r->err);
}

void test_expect_quiet(const test_cli_out *r, const char *what) {
    test_expect_ok(r, what);
    ck_assert_msg(r->err_len == 0, "%s: stderr not empty: '%s'", what, r->err);
}

void test_expect_status(const test_cli_out *r, int status, const char *what) {
    ck_assert_msg(r->status == status, "%s: exit %d (want %d), stderr: %s", what, r->status, status,
                  r->err);
    ck_assert_msg(r->out_len == 0, "%s: stdout not empty: %s", what, r->out);
    ck_assert_msg(strncmp(r->err, "themis: ", 8) == 0, "%s: stderr is '%s'", what, r->err);
    const char *nl = strchr(r->err, '\n');
    ck_assert_msg(nl != NULL && nl[1] == '\0', "%s: stderr is not one line: '%s'", what, r->err);
    ck_assert_msg(r->err_len > 9, "%s: empty message", what);
}

void test_expect_bad(const test_cli_out *r, const char *what) {
    test_expect_status(r, 2, what);
}

/* test_fails with the arguments as a va_list. */
static void fails_v(int status, const char *needle, const char *fmt, va_list ap) {
    test_cli_out r;
    cli_v(&r, NULL, fmt, ap);
    test_expect_status(&r, status, r.args);
    if (needle) {
        ck_assert_msg(strstr(r.err, needle) != NULL, "%s: message '%s' lacks '%s'", r.args, r.err,
                      needle);
    }
    test_cli_free(&r);
}

void test_fails(int status, const char *needle, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fails_v(status, needle, fmt, ap);
    va_end(ap);
}

void test_bad(const char *needle, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fails_v(2, needle, fmt, ap);
    va_end(ap);
}

int test_sh(char *out, size_t size, const char *fmt, ...) {
    const char *bin = getenv("THEMIS_BIN");
    const char *dir = getenv("THEMIS_SRCDIR");
    char body[4096], cmd[8192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(body, sizeof body, fmt, ap);
    va_end(ap);
    snprintf(cmd, sizeof cmd, "cd '%s' && THEMIS_BIN='%s' && export THEMIS_BIN && { %s; } 2>&1",
             dir ? dir : ".", bin && *bin ? bin : "build/themis", body);
    FILE *p = popen(cmd, "r");
    ck_assert_ptr_nonnull(p);
    size_t n = fread(out, 1, size - 1, p);
    out[n] = '\0';
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* ---- CSV ---- */

/* One RFC 4180 record at *pos, parsed in place (written independently of src/csv.c, so the
 * tests check the library's CSV against a second reader): quoted fields lose their quotes and
 * "" turns into ", commas and line breaks inside quotes are data; the record ends at an
 * unquoted LF, CRLF or the end of the text. Stores at most max field pointers; advances *pos
 * past the record. Returns the field count. */
static int parse_record(char **pos, char **f, int max) {
    char *r = *pos, *w = *pos;
    int n = 0;
    f[n++] = w;
    for (;;) {
        if (*r == '"') {
            for (r++;; r++) {
                ck_assert_msg(*r != '\0', "CSV: a quoted field is not closed");
                if (*r == '"' && r[1] == '"') {
                    *w++ = *r++;
                } else if (*r == '"') {
                    r++;
                    break;
                } else {
                    *w++ = *r;
                }
            }
            ck_assert_msg(*r == ',' || *r == '\n' || *r == '\r' || *r == '\0',
                          "CSV: '%c' after a closing quote", *r);
        }
        for (; *r && *r != ',' && *r != '\n' && *r != '\r'; r++) {
            ck_assert_msg(*r != '"', "CSV: a quote inside an unquoted field");
            *w++ = *r;
        }
        if (*r != ',') break;
        r++;
        *w++ = '\0';
        ck_assert_int_lt(n, max);
        f[n++] = w;
    }
    if (*r == '\r') r++;
    if (*r == '\n') r++;
    *w = '\0';
    *pos = r;
    return n;
}

int test_split(char *line, char **f, int max) {
    char *p = line;
    int n = parse_record(&p, f, max);
    ck_assert_msg(*p == '\0', "test_split: more than one record in '%s'", line);
    return n;
}

/* Parses text (len bytes; header + records, each ending in a line break) into c; `what` names
 * it in messages. Every row must be as wide as the header. */
static void csv_parse(test_csv *c, const char *text, size_t len, const char *what) {
    memset(c, 0, sizeof *c);
    ck_assert_msg(len > 0 && text[len - 1] == '\n', "%s does not end in a newline", what);
    ck_assert_msg(strlen(text) == len, "%s holds a NUL byte", what);
    c->buf = malloc(len + 1);
    c->raw = malloc(len + 1);
    ck_assert(c->buf && c->raw);
    memcpy(c->buf, text, len + 1);
    memcpy(c->raw, text, len + 1);
    c->head = calloc(TEST_CSV_COLS, sizeof *c->head);
    ck_assert_ptr_nonnull(c->head);
    char *p = c->buf;
    c->ncols = parse_record(&p, c->head, TEST_CSV_COLS);
    int cap = 0;
    while (*p) {
        if (c->nrows == cap) {
            cap = cap ? 2 * cap : 64;
            c->cell = realloc(c->cell, (size_t)cap * sizeof *c->cell);
            ck_assert_ptr_nonnull(c->cell);
        }
        char **row = calloc(TEST_CSV_COLS, sizeof(char *));
        ck_assert_ptr_nonnull(row);
        c->cell[c->nrows++] = row;
        int n = parse_record(&p, row, TEST_CSV_COLS);
        ck_assert_msg(n == c->ncols, "%s row %d has %d fields, header %d", what, c->nrows, n,
                      c->ncols);
    }
}

void test_csv_parse(test_csv *c, const char *text) {
    csv_parse(c, text, strlen(text), "CSV");
}

void test_csv_read(test_csv *c, const char *path) {
    size_t len;
    char *text = test_slurp(path, &len);
    csv_parse(c, text, len, path);
    free(text);
}

void test_csv_free(test_csv *c) {
    for (int i = 0; i < c->nrows; i++) {
        free(c->cell[i]);
    }
    free(c->cell);
    free(c->head);
    free(c->buf);
    free(c->raw);
}

void test_sweep_csv(test_csv *c, const char *dir, const char *spec) {
    TEST_DIR_PATH(path, dir, "spec.json");
    test_spit_dq(path, spec);
    test_cli_out r;
    test_cli(&r, "sweep '%s' -o -", path);
    test_expect_quiet(&r, "sweep");
    test_csv_parse(c, r.out);
    test_cli_free(&r);
}

int test_csv_col(const test_csv *c, const char *name) {
    for (int i = 0; i < c->ncols; i++) {
        if (strcmp(c->head[i], name) == 0) {
            return i;
        }
    }
    ck_abort_msg("CSV has no column %s", name);
    return -1;
}

const char *test_csv_s(const test_csv *c, int row, const char *name) {
    ck_assert_int_lt(row, c->nrows);
    return c->cell[row][test_csv_col(c, name)];
}

double test_csv_d(const test_csv *c, int row, const char *name) {
    const char *s = test_csv_s(c, row, name);
    char *end;
    double v = strtod(s, &end);
    ck_assert_msg(*s && *end == '\0', "column %s row %d is not a number: '%s'", name, row, s);
    return v;
}

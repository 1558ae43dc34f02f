/* CLI tests: run the real `themis` binary and check exit status, stdout, stderr and files. */
#include <cjson/cJSON.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check_themis.h"

/* One finished command: exit status (-1 when it did not exit normally) and its output. */
typedef struct cli_out {
    int status;
    char *out; /* stdout, NUL-terminated */
    size_t out_len;
    char *err; /* stderr, NUL-terminated */
    size_t err_len;
} cli_out;

/* Path of a shipped workload file (models/workloads/NAME). */
static const char *wl_path(const char *name) {
    static char buf[4096];
    const char *dir = getenv("THEMIS_SRCDIR");
    snprintf(buf, sizeof buf, "%s/models/workloads/%s", dir ? dir : ".", name);
    return buf;
}

static const char *cli_bin(void) {
    const char *b = getenv("THEMIS_BIN");
    return b && *b ? b : "build/themis";
}

/* Path of a tests/data file; four rotating buffers so one command can name several. */
static const char *dpath(const char *name) {
    static char bufs[4][4096];
    static int next;
    char *b = bufs[next];
    next = (next + 1) % 4;
    snprintf(b, sizeof bufs[0], "%s", test_data(name));
    return b;
}

/* A fresh empty temp file; the caller frees the returned path and unlinks the file. */
static char *tmp_file(void) {
    const char *dir = getenv("TMPDIR");
    char buf[4096];
    snprintf(buf, sizeof buf, "%s/themis-cli-XXXXXX", dir && *dir ? dir : "/tmp");
    int fd = mkstemp(buf);
    ck_assert_msg(fd >= 0, "mkstemp failed in %s", buf);
    close(fd);
    char *p = malloc(strlen(buf) + 1);
    ck_assert_ptr_nonnull(p);
    strcpy(p, buf);
    return p;
}

/* Reads a whole file into a NUL-terminated buffer; NULL when it cannot be opened. */
static char *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        return NULL;
    }
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    ck_assert_ptr_nonnull(buf);
    size_t got;
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

/* Runs `themis ARGS` (ARGS is a shell fragment, may hold redirections of stdin). */
static void cli(cli_out *r, const char *fmt, ...) {
    char args[8192], cmd[16384];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    char *o = tmp_file(), *e = tmp_file();
    snprintf(cmd, sizeof cmd, "'%s' %s >'%s' 2>'%s'", cli_bin(), args, o, e);
    int st = system(cmd);
    r->status = (st != -1 && WIFEXITED(st)) ? WEXITSTATUS(st) : -1;
    r->out = slurp(o, &r->out_len);
    r->err = slurp(e, &r->err_len);
    ck_assert_ptr_nonnull(r->out);
    ck_assert_ptr_nonnull(r->err);
    unlink(o);
    unlink(e);
    free(o);
    free(e);
}

static void cli_free(cli_out *r) {
    free(r->out);
    free(r->err);
}

static void expect_ok(const cli_out *r, const char *what) {
    ck_assert_msg(r->status == 0, "%s: exit %d, stderr: %s", what, r->status, r->err);
}

/* Bad input: exit 2, nothing on stdout, exactly one line on stderr starting "themis: ". */
static void expect_bad(const cli_out *r, const char *what) {
    ck_assert_msg(r->status == 2, "%s: exit %d (want 2), stderr: %s", what, r->status, r->err);
    ck_assert_msg(r->out_len == 0, "%s: stdout not empty: %s", what, r->out);
    ck_assert_msg(strncmp(r->err, "themis: ", 8) == 0, "%s: stderr is '%s'", what, r->err);
    const char *nl = strchr(r->err, '\n');
    ck_assert_msg(nl != NULL && nl[1] == '\0', "%s: stderr is not one line: '%s'", what, r->err);
    ck_assert_msg(r->err_len > 9, "%s: empty message", what);
}

/* Runs ARGS and expects the bad-input behaviour; `needle` (if not NULL) is in the message. */
static void bad(const char *needle, const char *fmt, ...) {
    char args[8192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    cli_out r;
    cli(&r, "%s", args);
    expect_bad(&r, args);
    if (needle) {
        ck_assert_msg(strstr(r.err, needle) != NULL, "%s: message '%s' lacks '%s'", args, r.err,
                      needle);
    }
    cli_free(&r);
}

/* ---- a small CSV reader (no quoting: the formats never need it) ---- */

#define CSV_ROWS 256
#define CSV_COLS 128

typedef struct csv_t {
    char *buf;
    char *raw; /* the text as parsed */
    int ncols; /* header columns */
    int nrows; /* data rows */
    char *head[CSV_COLS];
    char *cell[CSV_ROWS][CSV_COLS];
    int width[CSV_ROWS]; /* fields in each data row */
} csv_t;

static int csv_split(char *line, char **fields) {
    int n = 0;
    fields[n++] = line;
    for (char *p = line; *p; p++) {
        if (*p == ',') {
            *p = '\0';
            ck_assert_int_lt(n, CSV_COLS);
            fields[n++] = p + 1;
        }
    }
    return n;
}

/* Parses text (header + rows, each ending in '\n') into c; checks every row is as wide. */
static void csv_parse(csv_t *c, const char *text) {
    memset(c, 0, sizeof *c);
    size_t len = strlen(text);
    c->buf = malloc(len + 1);
    ck_assert_ptr_nonnull(c->buf);
    memcpy(c->buf, text, len + 1);
    c->raw = malloc(len + 1);
    ck_assert_ptr_nonnull(c->raw);
    memcpy(c->raw, text, len + 1);
    ck_assert_msg(len > 0 && text[len - 1] == '\n', "CSV does not end in a newline");
    char *line = c->buf;
    int idx = 0;
    while (*line) {
        char *nl = strchr(line, '\n');
        ck_assert_ptr_nonnull(nl);
        *nl = '\0';
        if (idx == 0) {
            c->ncols = csv_split(line, c->head);
        } else {
            ck_assert_int_le(idx, CSV_ROWS);
            c->width[idx - 1] = csv_split(line, c->cell[idx - 1]);
            ck_assert_msg(c->width[idx - 1] == c->ncols, "row %d has %d fields, header %d", idx,
                          c->width[idx - 1], c->ncols);
        }
        idx++;
        line = nl + 1;
    }
    c->nrows = idx - 1;
}

static void csv_free(csv_t *c) {
    free(c->buf);
    free(c->raw);
}

static int csv_col(const csv_t *c, const char *name) {
    for (int i = 0; i < c->ncols; i++) {
        if (strcmp(c->head[i], name) == 0) {
            return i;
        }
    }
    ck_abort_msg("CSV has no column %s", name);
    return -1;
}

static const char *csv_s(const csv_t *c, int row, const char *name) {
    ck_assert_int_lt(row, c->nrows);
    return c->cell[row][csv_col(c, name)];
}

static double csv_d(const csv_t *c, int row, const char *name) {
    const char *s = csv_s(c, row, name);
    char *end;
    double v = strtod(s, &end);
    ck_assert_msg(*s && *end == '\0', "column %s row %d is not a number: '%s'", name, row, s);
    return v;
}

/* Runs ARGS (which should not set -f) with `-f csv` and parses stdout. */
static void cli_csv(csv_t *c, const char *fmt, ...) {
    char args[8192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    cli_out r;
    cli(&r, "run -f csv %s", args);
    expect_ok(&r, args);
    csv_parse(c, r.out);
    cli_free(&r);
}

/* The result columns of /tmp/formats.md, before the per-dim ones. */
static const char *const CSV_HEAD =
    "system,type,size_bytes,chunks,dims,load_model,policy,intra,time_us,ideal_us,bw_util,"
    "speedup,algbw_GBps,busbw_GBps";

static void expect_header(const char *csv_text, int ndims) {
    char want[4096];
    size_t n = (size_t)snprintf(want, sizeof want, "%s", CSV_HEAD);
    for (int k = 0; k < ndims; k++) {
        n += (size_t)snprintf(want + n, sizeof want - n, ",dim%d_bytes,dim%d_busy_us,dim%d_bw_util",
                              k, k, k);
    }
    snprintf(want + n, sizeof want - n, "\n");
    ck_assert_msg(strncmp(csv_text, want, strlen(want)) == 0, "CSV header:\n%.*s\nwant:\n%s",
                  (int)(strchr(csv_text, '\n') ? strchr(csv_text, '\n') - csv_text + 1 : 0),
                  csv_text, want);
}

static const char *const POLICIES[3] = {"baseline", "themis", "roundrobin"};
static const char *const INTRAS[2] = {"fifo", "scf"};

/* ---- version and help ---- */

START_TEST(version) {
    const char *forms[] = {"--version", "-V", "run --version", "run -V"};
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
        cli_out r;
        cli(&r, "%s", forms[i]);
        expect_ok(&r, forms[i]);
        ck_assert_msg(strncmp(r.out, "themis 0.1.0", 12) == 0, "%s printed '%s'", forms[i], r.out);
        cli_free(&r);
    }
}
END_TEST

START_TEST(help) {
    const char *forms[] = {"run --help", "run -h", "--help"};
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
        cli_out r;
        cli(&r, "%s", forms[i]);
        expect_ok(&r, forms[i]);
        ck_assert_msg(strstr(r.out, "xample") != NULL, "%s has no example: %s", forms[i], r.out);
        ck_assert_msg(strstr(r.out, "themis run") != NULL, "%s lacks 'themis run'", forms[i]);
        cli_free(&r);
    }
    cli_out r;
    cli(&r, "run --help");
    const char *opts[] = {"--system", "--collective", "--size",   "--chunks", "--policy", "--intra",
                          "--dims",   "--load-model", "--format", "--output", "--trace"};
    for (size_t i = 0; i < sizeof opts / sizeof opts[0]; i++) {
        ck_assert_msg(strstr(r.out, opts[i]) != NULL, "run --help does not mention %s", opts[i]);
    }
    cli_free(&r);
}
END_TEST

/* ---- the default comparison ---- */

/* True when some line of text names this pair (and no other policy). */
static int has_pair_line(const char *text, const char *pol, const char *intra) {
    const char *line = text;
    while (*line) {
        const char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        char buf[1024];
        snprintf(buf, sizeof buf, "%.*s", (int)(len < 1023 ? len : 1023), line);
        int others = 0;
        for (int i = 0; i < 3; i++) {
            if (strcmp(POLICIES[i], pol) != 0 && strstr(buf, POLICIES[i])) {
                others = 1;
            }
        }
        if (!others && strstr(buf, pol) && strstr(buf, intra)) {
            return 1;
        }
        if (!nl) {
            break;
        }
        line = nl + 1;
    }
    return 0;
}

START_TEST(noargs_table) {
    cli_out r;
    cli(&r, "%s", "");
    expect_ok(&r, "themis");
    for (int p = 0; p < 3; p++) {
        for (int q = 0; q < 2; q++) {
            ck_assert_msg(has_pair_line(r.out, POLICIES[p], INTRAS[q]),
                          "no table row for %s/%s in:\n%s", POLICIES[p], INTRAS[q], r.out);
        }
    }
    /* `themis` = `themis run` = `themis run -f table`. */
    cli_out r2, r3;
    cli(&r2, "run");
    cli(&r3, "run -f table");
    expect_ok(&r2, "run");
    ck_assert_str_eq(r.out, r2.out);
    ck_assert_str_eq(r.out, r3.out);
    cli_free(&r);
    cli_free(&r2);
    cli_free(&r3);
}
END_TEST

START_TEST(default_csv) {
    cli_out r;
    cli(&r, "run -f csv");
    expect_ok(&r, "run -f csv");
    expect_header(r.out, 3);
    csv_t c;
    csv_parse(&c, r.out);
    ck_assert_int_eq(c.nrows, 6);
    ck_assert_int_eq(c.ncols, 14 + 3 * 3);
    /* S = 1 GiB = 1073741824, P = 4*8*16 = 512. Ideal: every order moves 2 S (1 - 1/512)
     * = 2143289344 bytes per NPU; sum of B = 250 + 200 + 50 = 500 bytes/ns, so
     * ideal = 2143289344 / 500 = 4286578.688 ns = 4286.578688 us. */
    const double S = 1073741824.0, total = 2143289344.0, ideal_us = 4286.578688;
    const double B[3] = {250, 200, 50};
    double t_ref = csv_d(&c, 0, "time_us");
    for (int i = 0; i < 6; i++) {
        ck_assert_str_eq(csv_s(&c, i, "system"), "default-3d");
        ck_assert_str_eq(csv_s(&c, i, "type"), "allreduce");
        ck_assert_str_eq(csv_s(&c, i, "size_bytes"), "1073741824");
        ck_assert_str_eq(csv_s(&c, i, "chunks"), "64");
        ck_assert_str_eq(csv_s(&c, i, "dims"), "0;1;2");
        ck_assert_str_eq(csv_s(&c, i, "load_model"), "alpha_beta");
        ck_assert_str_eq(csv_s(&c, i, "policy"), POLICIES[i / 2]);
        ck_assert_str_eq(csv_s(&c, i, "intra"), INTRAS[i % 2]);
        double t = csv_d(&c, i, "time_us");
        ck_assert_rel(csv_d(&c, i, "ideal_us"), ideal_us);
        ck_assert_msg(t >= ideal_us, "row %d: time %.17g < ideal", i, t);
        ck_assert_rel(csv_d(&c, i, "bw_util"), ideal_us / t);
        ck_assert_rel(csv_d(&c, i, "speedup"), t_ref / t);
        /* algbw = S / time (bytes/ns = GB/s); busbw = algbw * 2 (512-1)/512. */
        ck_assert_rel(csv_d(&c, i, "algbw_GBps"), S / (t * 1000.0));
        ck_assert_rel(csv_d(&c, i, "busbw_GBps"), S / (t * 1000.0) * 2.0 * 511.0 / 512.0);
        double sum = 0;
        for (int k = 0; k < 3; k++) {
            char name[64];
            snprintf(name, sizeof name, "dim%d_bytes", k);
            double bytes = csv_d(&c, i, name);
            sum += bytes;
            snprintf(name, sizeof name, "dim%d_busy_us", k);
            ck_assert_msg(csv_d(&c, i, name) <= t * (1 + 1e-12), "row %d dim %d busy > time", i, k);
            snprintf(name, sizeof name, "dim%d_bw_util", k);
            ck_assert_rel(csv_d(&c, i, name), bytes / (B[k] * t * 1000.0));
        }
        ck_assert_rel(sum, total);
    }
    ck_assert_str_eq(csv_s(&c, 0, "speedup"), "1");
    /* Baseline (rows 0, 1), c = S/64 = 16777216:
     * dim0 ring 4:   bytes 2*S*3/4 = 1610612736; stage 20*3 + c*3/(4*250) = 50391.648 ns,
     *                128 stages = 6450130.944 ns
     * dim1 fc 8:     m = c/4 = 4194304; bytes 2*(S/4)*7/8 = 469762048;
     *                stage 100*1 + 4194304*7/(8*200) = 18450.08 ns, x128 = 2361610.24 ns
     * dim2 switch16: m = c/32 = 524288 (rhd, s(16)=4, L=8); bytes 2*(S/32)*15/16 = 62914560;
     *                stage 1000*8 + 524288*15/(16*50) = 17830.4 ns, x128 = 2282291.2 ns */
    for (int i = 0; i < 2; i++) {
        ck_assert_rel(csv_d(&c, i, "dim0_bytes"), 1610612736.0);
        ck_assert_rel(csv_d(&c, i, "dim1_bytes"), 469762048.0);
        ck_assert_rel(csv_d(&c, i, "dim2_bytes"), 62914560.0);
        ck_assert_rel(csv_d(&c, i, "dim0_busy_us"), 6450.130944);
        ck_assert_rel(csv_d(&c, i, "dim1_busy_us"), 2361.61024);
        ck_assert_rel(csv_d(&c, i, "dim2_busy_us"), 2282.2912);
        ck_assert(csv_d(&c, i, "time_us") >= 6450.130944);
    }
    csv_free(&c);
    cli_free(&r);
}
END_TEST

START_TEST(pair_selection) {
    csv_t c;
    cli_csv(&c, "-p baseline -q fifo");
    ck_assert_int_eq(c.nrows, 1);
    ck_assert_str_eq(csv_s(&c, 0, "policy"), "baseline");
    ck_assert_str_eq(csv_s(&c, 0, "intra"), "fifo");
    ck_assert_str_eq(csv_s(&c, 0, "speedup"), "1");
    double t_ref = csv_d(&c, 0, "time_us");
    csv_free(&c);

    cli_csv(&c, "-p themis -q scf");
    ck_assert_int_eq(c.nrows, 1);
    ck_assert_str_eq(csv_s(&c, 0, "policy"), "themis");
    ck_assert_str_eq(csv_s(&c, 0, "intra"), "scf");
    /* The speedup is still measured against baseline+fifo, which is not printed. */
    ck_assert_rel(csv_d(&c, 0, "speedup"), t_ref / csv_d(&c, 0, "time_us"));
    csv_free(&c);

    cli_csv(&c, "--policy all --intra fifo");
    ck_assert_int_eq(c.nrows, 3);
    for (int i = 0; i < 3; i++) {
        ck_assert_str_eq(csv_s(&c, i, "policy"), POLICIES[i]);
        ck_assert_str_eq(csv_s(&c, i, "intra"), "fifo");
    }
    csv_free(&c);

    cli_csv(&c, "-p roundrobin -q all");
    ck_assert_int_eq(c.nrows, 2);
    ck_assert_str_eq(csv_s(&c, 0, "intra"), "fifo");
    ck_assert_str_eq(csv_s(&c, 1, "intra"), "scf");
    ck_assert_str_eq(csv_s(&c, 1, "policy"), "roundrobin");
    csv_free(&c);

    cli_csv(&c, "-p themis --load-model bandwidth");
    ck_assert_int_eq(c.nrows, 2);
    ck_assert_str_eq(csv_s(&c, 0, "load_model"), "bandwidth");
    csv_free(&c);
}
END_TEST

START_TEST(json_format) {
    cli_out r;
    cli(&r, "run -f json");
    expect_ok(&r, "run -f json");
    cJSON *root = cJSON_Parse(r.out);
    ck_assert_msg(root != NULL, "JSON does not parse:\n%s", r.out);
    cJSON *sys = cJSON_GetObjectItemCaseSensitive(root, "system");
    ck_assert_ptr_nonnull(sys);
    ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(sys, "name")->valuestring, "default-3d");
    ck_assert_rel(cJSON_GetObjectItemCaseSensitive(sys, "npus")->valuedouble, 512.0);
    ck_assert_ptr_null(cJSON_GetObjectItemCaseSensitive(sys, "reduce_GBps"));
    cJSON *sdims = cJSON_GetObjectItemCaseSensitive(sys, "dims");
    ck_assert_int_eq(cJSON_GetArraySize(sdims), 3);
    const char *topo[3] = {"ring", "fc", "switch"}, *alg[3] = {"ring", "direct", "rhd"};
    const char *dname[3] = {"package", "node", "pod"};
    const double npus[3] = {4, 8, 16}, bw[3] = {250, 200, 50}, lat[3] = {20, 100, 1000};
    for (int k = 0; k < 3; k++) {
        cJSON *d = cJSON_GetArrayItem(sdims, k);
        ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(d, "name")->valuestring, dname[k]);
        ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(d, "topology")->valuestring, topo[k]);
        ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(d, "algorithm")->valuestring, alg[k]);
        ck_assert_rel(cJSON_GetObjectItemCaseSensitive(d, "npus")->valuedouble, npus[k]);
        ck_assert_rel(cJSON_GetObjectItemCaseSensitive(d, "bw_GBps")->valuedouble, bw[k]);
        ck_assert_rel(cJSON_GetObjectItemCaseSensitive(d, "latency_ns")->valuedouble, lat[k]);
        ck_assert_rel(cJSON_GetObjectItemCaseSensitive(d, "efficiency")->valuedouble, 1.0);
    }
    cJSON *coll = cJSON_GetObjectItemCaseSensitive(root, "collective");
    ck_assert_ptr_nonnull(coll);
    ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(coll, "type")->valuestring, "allreduce");
    ck_assert_rel(cJSON_GetObjectItemCaseSensitive(coll, "size_bytes")->valuedouble, 1073741824.0);
    ck_assert_rel(cJSON_GetObjectItemCaseSensitive(coll, "chunks")->valuedouble, 64.0);
    cJSON *cdims = cJSON_GetObjectItemCaseSensitive(coll, "dims");
    ck_assert_int_eq(cJSON_GetArraySize(cdims), 3);
    for (int k = 0; k < 3; k++) {
        ck_assert_rel(cJSON_GetArrayItem(cdims, k)->valuedouble, (double)k);
    }
    ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(root, "load_model")->valuestring,
                     "alpha_beta");
    cJSON *results = cJSON_GetObjectItemCaseSensitive(root, "results");
    ck_assert_int_eq(cJSON_GetArraySize(results), 6);

    /* The same numbers as the CSV. */
    csv_t c;
    cli_csv(&c, "%s", "");
    const char *keys[] = {"time_us", "ideal_us", "bw_util", "speedup", "algbw_GBps", "busbw_GBps"};
    for (int i = 0; i < 6; i++) {
        cJSON *res = cJSON_GetArrayItem(results, i);
        ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(res, "policy")->valuestring,
                         POLICIES[i / 2]);
        ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(res, "intra")->valuestring,
                         INTRAS[i % 2]);
        for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
            cJSON *v = cJSON_GetObjectItemCaseSensitive(res, keys[k]);
            ck_assert_msg(cJSON_IsNumber(v), "results[%d].%s missing", i, keys[k]);
            ck_assert_rel(v->valuedouble, csv_d(&c, i, keys[k]));
        }
        cJSON *dims = cJSON_GetObjectItemCaseSensitive(res, "dims");
        ck_assert_int_eq(cJSON_GetArraySize(dims), 3);
        for (int k = 0; k < 3; k++) {
            cJSON *d = cJSON_GetArrayItem(dims, k);
            char name[64];
            ck_assert_rel(cJSON_GetObjectItemCaseSensitive(d, "dim")->valuedouble, (double)k);
            ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(d, "name")->valuestring, dname[k]);
            snprintf(name, sizeof name, "dim%d_bytes", k);
            ck_assert_rel(cJSON_GetObjectItemCaseSensitive(d, "bytes")->valuedouble,
                          csv_d(&c, i, name));
            snprintf(name, sizeof name, "dim%d_busy_us", k);
            ck_assert_rel(cJSON_GetObjectItemCaseSensitive(d, "busy_us")->valuedouble,
                          csv_d(&c, i, name));
            snprintf(name, sizeof name, "dim%d_bw_util", k);
            ck_assert_rel(cJSON_GetObjectItemCaseSensitive(d, "bw_util")->valuedouble,
                          csv_d(&c, i, name));
        }
    }
    csv_free(&c);
    cJSON_Delete(root);
    cli_free(&r);

    /* reduce_GBps appears when the system sets it; --dims shows in collective.dims. */
    cli(&r, "run -f json -s '%s' -b 1e6 -n 1", dpath("cli_eff.json"));
    expect_ok(&r, "json cli_eff");
    root = cJSON_Parse(r.out);
    ck_assert_ptr_nonnull(root);
    sys = cJSON_GetObjectItemCaseSensitive(root, "system");
    ck_assert_rel(cJSON_GetObjectItemCaseSensitive(sys, "reduce_GBps")->valuedouble, 200.0);
    cJSON_Delete(root);
    cli_free(&r);
    cli(&r, "run -f json -s '%s' --dims 0,2", dpath("cli_3d.json"));
    expect_ok(&r, "json --dims");
    root = cJSON_Parse(r.out);
    ck_assert_ptr_nonnull(root);
    cdims = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(root, "collective"),
                                             "dims");
    ck_assert_int_eq(cJSON_GetArraySize(cdims), 2);
    ck_assert_rel(cJSON_GetArrayItem(cdims, 0)->valuedouble, 0.0);
    ck_assert_rel(cJSON_GetArrayItem(cdims, 1)->valuedouble, 2.0);
    results = cJSON_GetObjectItemCaseSensitive(root, "results");
    ck_assert_int_eq(cJSON_GetArraySize(
                         cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(results, 0), "dims")),
                     3);
    cJSON_Delete(root);
    cli_free(&r);
}
END_TEST

/* ---- output files ---- */

START_TEST(output_file) {
    cli_out ref, r;
    cli(&ref, "run -f csv -n 8");
    expect_ok(&ref, "csv to stdout");
    char *path = tmp_file();
    cli(&r, "run -f csv -n 8 -o '%s'", path);
    expect_ok(&r, "-o FILE");
    ck_assert_msg(r.out_len == 0, "-o FILE printed on stdout: %s", r.out);
    char *got = slurp(path, NULL);
    ck_assert_ptr_nonnull(got);
    ck_assert_str_eq(got, ref.out);
    free(got);
    cli_free(&r);
    unlink(path);
    cli(&r, "run -f json --output '%s'", path);
    expect_ok(&r, "--output FILE");
    ck_assert_int_eq(r.out_len, 0);
    got = slurp(path, NULL);
    cJSON *root = cJSON_Parse(got);
    ck_assert_ptr_nonnull(root);
    cJSON_Delete(root);
    free(got);
    cli_free(&r);
    unlink(path);
    free(path);
    /* "-" is stdout. */
    cli(&r, "run -f csv -n 8 -o -");
    expect_ok(&r, "-o -");
    ck_assert_str_eq(r.out, ref.out);
    cli_free(&r);
    cli_free(&ref);
}
END_TEST

static const char *const TRACE_HEAD =
    "policy,intra,chunk,stage,op,dim,bytes,ready_us,start_us,end_us\n";

START_TEST(trace_one_chunk) {
    char *path = tmp_file();
    cli_out r;
    cli(&r, "run -s '%s' -b 1e6 -n 1 -p baseline -q fifo -f csv --trace '%s'", dpath("cli_3d.json"),
        path);
    expect_ok(&r, "--trace");
    csv_t res;
    csv_parse(&res, r.out);
    ck_assert_int_eq(res.nrows, 1);
    char *text = slurp(path, NULL);
    ck_assert_ptr_nonnull(text);
    ck_assert_msg(strncmp(text, TRACE_HEAD, strlen(TRACE_HEAD)) == 0, "trace header: %s", text);
    csv_t t;
    csv_parse(&t, text);
    ck_assert_int_eq(t.nrows, 6);
    /* cli_3d: ring 4 @100 GB/s 10 ns; fc 2 @50 100 ns (direct, L=1); switch 8 @25 1000 ns
     * (rhd, s(8)=3, L=6). c = 1e6, baseline RS order 0,1,2 then AG 2,1,0:
     *   RS dim0 m=1e6:    10*3 + 1e6*3/(4*100)        = 7530  [0, 7530]
     *   RS dim1 m=250000: 100 + 250000*1/(2*50)       = 2600  [7530, 10130]
     *   RS dim2 m=125000: 1000*6 + 125000*7/(8*25)    = 10375 [10130, 20505]
     *   AG dim2, dim1, dim0 mirror:                   [20505, 30880] [30880, 33480]
     *                                                 [33480, 41010] */
    const char *op[6] = {"RS", "RS", "RS", "AG", "AG", "AG"};
    const char *dim[6] = {"0", "1", "2", "2", "1", "0"};
    const double m[6] = {1e6, 250000, 125000, 125000, 250000, 1e6};
    const double ends[6] = {7530, 10130, 20505, 30880, 33480, 41010};
    for (int i = 0; i < 6; i++) {
        double start = i == 0 ? 0 : ends[i - 1];
        ck_assert_str_eq(csv_s(&t, i, "policy"), "baseline");
        ck_assert_str_eq(csv_s(&t, i, "intra"), "fifo");
        ck_assert_str_eq(csv_s(&t, i, "chunk"), "0");
        ck_assert_int_eq((int)csv_d(&t, i, "stage"), i);
        ck_assert_str_eq(csv_s(&t, i, "op"), op[i]);
        ck_assert_str_eq(csv_s(&t, i, "dim"), dim[i]);
        /* SPEC §7: the trace carries m, the stage's full-vector size (docs/MODEL.md). */
        ck_assert_rel(csv_d(&t, i, "bytes"), m[i]);
        ck_assert_rel(csv_d(&t, i, "ready_us"), start / 1000.0);
        ck_assert_rel(csv_d(&t, i, "start_us"), start / 1000.0);
        ck_assert_rel(csv_d(&t, i, "end_us"), ends[i] / 1000.0);
    }
    ck_assert_rel(csv_d(&res, 0, "time_us"), 41.01);
    csv_free(&t);
    csv_free(&res);
    free(text);
    cli_free(&r);
    unlink(path);
    free(path);
}
END_TEST

START_TEST(trace_all_pairs) {
    char *path = tmp_file();
    cli_out r;
    cli(&r, "run -n 4 -f csv --trace '%s'", path);
    expect_ok(&r, "--trace all pairs");
    csv_t res;
    csv_parse(&res, r.out);
    char *text = slurp(path, NULL);
    csv_t t;
    csv_parse(&t, text);
    /* 6 pairs x 4 chunks x 6 stages (3 RS + 3 AG) = 144 rows, pair by pair. */
    ck_assert_int_eq(t.nrows, 144);
    for (int pair = 0; pair < 6; pair++) {
        double last_start = 0, last_end = 0;
        int rs = 0, ag = 0;
        for (int i = pair * 24; i < pair * 24 + 24; i++) {
            ck_assert_str_eq(csv_s(&t, i, "policy"), POLICIES[pair / 2]);
            ck_assert_str_eq(csv_s(&t, i, "intra"), INTRAS[pair % 2]);
            double ready = csv_d(&t, i, "ready_us"), start = csv_d(&t, i, "start_us");
            double end = csv_d(&t, i, "end_us");
            ck_assert(ready <= start && start < end);
            ck_assert_msg(start >= last_start, "pair %d row %d: rows not in start order", pair, i);
            last_start = start;
            last_end = end > last_end ? end : last_end;
            rs += strcmp(csv_s(&t, i, "op"), "RS") == 0;
            ag += strcmp(csv_s(&t, i, "op"), "AG") == 0;
        }
        ck_assert_int_eq(rs, 12);
        ck_assert_int_eq(ag, 12);
        ck_assert_rel(last_end, csv_d(&res, pair, "time_us"));
    }
    csv_free(&t);
    csv_free(&res);
    free(text);
    cli_free(&r);
    unlink(path);
    free(path);
}
END_TEST

/* ---- hand-derived numbers through the CLI ---- */

START_TEST(ring4_allreduce) {
    csv_t c;
    cli_csv(&c, "-s '%s' -b 1e6 -n 1", dpath("cli_ring4.json"));
    expect_header(c.raw, 1);
    ck_assert_int_eq(c.nrows, 6);
    /* ring 4, B = 100 bytes/ns, alpha = 10: RS of m = 1e6 takes 10*3 + 1e6*3/(4*100) = 7530,
     * AG the same: 15060 ns = 15.06 us under every policy (one chunk, one dim).
     * bytes = 2 * 1e6 * 3/4 = 1.5e6; ideal = 1.5e6 / 100 = 15000 ns = 15 us. */
    for (int i = 0; i < 6; i++) {
        ck_assert_str_eq(csv_s(&c, i, "system"), "cli-ring4");
        ck_assert_str_eq(csv_s(&c, i, "size_bytes"), "1000000");
        ck_assert_str_eq(csv_s(&c, i, "chunks"), "1");
        ck_assert_str_eq(csv_s(&c, i, "dims"), "0");
        ck_assert_rel(csv_d(&c, i, "time_us"), 15.06);
        ck_assert_rel(csv_d(&c, i, "ideal_us"), 15.0);
        ck_assert_rel(csv_d(&c, i, "bw_util"), 15.0 / 15.06);
        ck_assert_rel(csv_d(&c, i, "speedup"), 1.0);
        ck_assert_rel(csv_d(&c, i, "algbw_GBps"), 1e6 / 15060.0);
        ck_assert_rel(csv_d(&c, i, "busbw_GBps"), 1e6 / 15060.0 * 2.0 * 3.0 / 4.0);
        ck_assert_rel(csv_d(&c, i, "dim0_bytes"), 1.5e6);
        ck_assert_rel(csv_d(&c, i, "dim0_busy_us"), 15.06);
        ck_assert_rel(csv_d(&c, i, "dim0_bw_util"), 1.5e6 / (100.0 * 15060.0));
    }
    csv_free(&c);
    /* The same size written with a unit, and the system read from stdin. */
    cli_csv(&c, "-s '%s' -b 1MB -n 1 -p baseline -q fifo", dpath("cli_ring4.json"));
    ck_assert_rel(csv_d(&c, 0, "time_us"), 15.06);
    csv_free(&c);
    cli_csv(&c, "-s - -b 1e6 -n 1 -p themis -q scf < '%s'", dpath("cli_ring4.json"));
    ck_assert_int_eq(c.nrows, 1);
    ck_assert_rel(csv_d(&c, 0, "time_us"), 15.06);
    csv_free(&c);
}
END_TEST

START_TEST(ring4_chunks) {
    csv_t c;
    /* One dim, FIFO: the server is never idle, so time = 2 C stage(c).
     * C = 4: c = 250000, stage = 30 + 250000*3/400 = 1905 ns; 8 stages = 15240 ns. */
    cli_csv(&c, "-s '%s' -b 1e6 -n 4 -p baseline -q fifo", dpath("cli_ring4.json"));
    ck_assert_rel(csv_d(&c, 0, "time_us"), 15.24);
    ck_assert_rel(csv_d(&c, 0, "dim0_busy_us"), 15.24);
    ck_assert_rel(csv_d(&c, 0, "dim0_bytes"), 1.5e6);
    csv_free(&c);
    /* C = 1,000,000 (the maximum): c = 1 byte, stage = 30 + 3/400 = 30.0075 ns;
     * 2e6 stages = 60015000 ns = 60015 us. */
    cli_csv(&c, "-s '%s' -b 1e6 -n 1000000 -p baseline -q fifo", dpath("cli_ring4.json"));
    ck_assert_str_eq(csv_s(&c, 0, "chunks"), "1000000");
    ck_assert_rel(csv_d(&c, 0, "time_us"), 60015.0);
    csv_free(&c);
}
END_TEST

START_TEST(efficiency_reduce) {
    csv_t c;
    /* cli_eff: ring 4, B = 100 * 0.5 = 50 bytes/ns, alpha 10, reduce 200 bytes/ns.
     * RS 1e6: 10*3 + 1e6*3/(4*50) + 1e6*(3/4)/200 = 30 + 15000 + 3750 = 18780 ns
     * AG 1e6: 30 + 15000 = 15030 ns; total 33810 ns = 33.81 us.
     * ideal = 1.5e6 / 50 = 30000 ns = 30 us. */
    cli_csv(&c, "-s '%s' -b 1e6 -n 1", dpath("cli_eff.json"));
    ck_assert_int_eq(c.nrows, 6);
    for (int i = 0; i < 6; i++) {
        ck_assert_rel(csv_d(&c, i, "time_us"), 33.81);
        ck_assert_rel(csv_d(&c, i, "ideal_us"), 30.0);
        ck_assert_rel(csv_d(&c, i, "dim0_bw_util"), 1.5e6 / (50.0 * 33810.0));
    }
    csv_free(&c);
}
END_TEST

START_TEST(dims_subset) {
    csv_t c;
    cli_csv(&c, "-s '%s' -b 1e6 -n 1 --dims 0,2", dpath("cli_3d.json"));
    expect_header(c.raw, 3);
    ck_assert_int_eq(c.nrows, 6);
    /* Active dims 0 and 2 (P_a = 4*8 = 32), c = 1e6:
     *   RS dim0 m=1e6:    10*3 + 1e6*3/(4*100)     = 7530
     *   RS dim2 m=250000: 1000*6 + 250000*7/(8*25) = 6000 + 8750 = 14750
     *   AG mirrors: total 2*(7530 + 14750) = 44560 ns = 44.56 us.
     * bytes: dim0 2*1e6*3/4 = 1.5e6; dim2 2*250000*7/8 = 437500; dim1 0.
     * ideal = 1937500 / (100 + 25) = 15500 ns = 15.5 us. */
    for (int i = 0; i < 6; i++) {
        ck_assert_str_eq(csv_s(&c, i, "dims"), "0;2");
        ck_assert_rel(csv_d(&c, i, "time_us"), 44.56);
        ck_assert_rel(csv_d(&c, i, "ideal_us"), 15.5);
        ck_assert_rel(csv_d(&c, i, "bw_util"), 15.5 / 44.56);
        ck_assert_rel(csv_d(&c, i, "busbw_GBps"), 1e6 / 44560.0 * 2.0 * 31.0 / 32.0);
        ck_assert_rel(csv_d(&c, i, "dim0_bytes"), 1.5e6);
        ck_assert_rel(csv_d(&c, i, "dim1_bytes"), 0.0);
        ck_assert_rel(csv_d(&c, i, "dim2_bytes"), 437500.0);
        ck_assert_rel(csv_d(&c, i, "dim0_busy_us"), 15.06);
        ck_assert_rel(csv_d(&c, i, "dim1_busy_us"), 0.0);
        ck_assert_rel(csv_d(&c, i, "dim2_busy_us"), 29.5);
        ck_assert_rel(csv_d(&c, i, "dim1_bw_util"), 0.0);
        ck_assert_rel(csv_d(&c, i, "dim2_bw_util"), 437500.0 / (25.0 * 44560.0));
    }
    csv_free(&c);
    /* A single dim: --dims 1 on cli_3d, fc 2 direct: 100 + 1e6/(2*50) = 10100 per stage. */
    cli_csv(&c, "-s '%s' -b 1e6 -n 1 --dims 1 -p baseline -q fifo", dpath("cli_3d.json"));
    ck_assert_str_eq(csv_s(&c, 0, "dims"), "1");
    ck_assert_rel(csv_d(&c, 0, "time_us"), 20.2);
    csv_free(&c);
}
END_TEST

START_TEST(rs_ag_a2a) {
    csv_t c;
    /* reducescatter of 1e6 over all of cli_3d (P_a = 64), baseline order 0,1,2:
     *   dim0 m=1e6 7530 + dim1 m=250000 2600 + dim2 m=125000 10375 = 20505 ns.
     * bytes 750000 + 125000 + 109375 = 984375 = 1e6 (1 - 1/64); ideal 984375/175 = 5625 ns. */
    cli_csv(&c, "-s '%s' -c reducescatter -b 1e6 -n 1", dpath("cli_3d.json"));
    ck_assert_int_eq(c.nrows, 6);
    for (int i = 0; i < 6; i++) {
        ck_assert_str_eq(csv_s(&c, i, "type"), "reducescatter");
        ck_assert_rel(csv_d(&c, i, "time_us"), 20.505);
        ck_assert_rel(csv_d(&c, i, "ideal_us"), 5.625);
        ck_assert_rel(csv_d(&c, i, "busbw_GBps"), 1e6 / 20505.0 * 63.0 / 64.0);
        ck_assert_rel(csv_d(&c, i, "dim0_bytes"), 750000.0);
        ck_assert_rel(csv_d(&c, i, "dim1_bytes"), 125000.0);
        ck_assert_rel(csv_d(&c, i, "dim2_bytes"), 109375.0);
    }
    csv_free(&c);
    /* allgather of output 1e6, baseline order 2,1,0: dim2 m = 1e6/(4*2) = 125000 (10375),
     * dim1 m = 1e6/4 = 250000 (2600), dim0 m = 1e6 (7530): 20505 ns, same bytes. */
    cli_csv(&c, "-s '%s' --collective allgather -b 1e6 -n 1", dpath("cli_3d.json"));
    ck_assert_int_eq(c.nrows, 6);
    for (int i = 0; i < 6; i++) {
        ck_assert_str_eq(csv_s(&c, i, "type"), "allgather");
        ck_assert_rel(csv_d(&c, i, "time_us"), 20.505);
        ck_assert_rel(csv_d(&c, i, "dim0_bytes"), 750000.0);
        ck_assert_rel(csv_d(&c, i, "dim1_bytes"), 125000.0);
        ck_assert_rel(csv_d(&c, i, "dim2_bytes"), 109375.0);
    }
    csv_free(&c);
    /* reducescatter and allgather with --dims 0,2: 7530 + 14750 = 22280 ns. */
    cli_csv(&c, "-s '%s' -c reducescatter -b 1e6 -n 1 --dims 0,2 -p baseline -q fifo",
            dpath("cli_3d.json"));
    ck_assert_rel(csv_d(&c, 0, "time_us"), 22.28);
    csv_free(&c);
    cli_csv(&c, "-s '%s' -c allgather -b 1e6 -n 1 --dims 2,0 -p themis -q scf",
            dpath("cli_3d.json"));
    ck_assert_str_eq(csv_s(&c, 0, "dims"), "0;2");
    ck_assert_rel(csv_d(&c, 0, "time_us"), 22.28);
    csv_free(&c);
    /* alltoall, m = c on every dim: dim0 30 + 1e6*3/400 = 7530; dim1 100 + 1e6/100 = 10100;
     * dim2 6000 + 1e6*7/200 = 41000; one chunk: 58630 ns. */
    cli_csv(&c, "-s '%s' -c alltoall -b 1e6 -n 1 -p baseline -q fifo", dpath("cli_3d.json"));
    ck_assert_str_eq(csv_s(&c, 0, "type"), "alltoall");
    ck_assert_rel(csv_d(&c, 0, "time_us"), 58.63);
    csv_free(&c);
}
END_TEST

START_TEST(shipped_systems) {
    const char *files[] = {"default-3d.json",        "torus-2d-homogeneous.json",
                           "homogeneous-4d.json",    "ring-switch-2d.json",
                           "fc-ring-switch-3d.json", "hetero-4d.json"};
    const char *dir = getenv("THEMIS_SRCDIR");
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        csv_t c;
        cli_csv(&c, "-s '%s/models/systems/%s' -n 16", dir ? dir : ".", files[i]);
        ck_assert_int_eq(c.nrows, 6);
        csv_free(&c);
    }
    /* models/systems/default-3d.json is the built-in default: identical output. */
    cli_out a, b;
    cli(&a, "run -f csv -n 16");
    cli(&b, "run -f csv -n 16 -s '%s/models/systems/default-3d.json'", dir ? dir : ".");
    expect_ok(&b, "default-3d.json");
    ck_assert_str_eq(a.out, b.out);
    cli_free(&a);
    cli_free(&b);
}
END_TEST

/* ---- determinism ---- */

START_TEST(deterministic) {
    const char *forms[] = {"", "run -f csv", "run -f json -p themis -n 100",
                           "run -f csv -s 'SYS' -n 37 -b 3MiB"};
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
        char args[4096];
        if (strstr(forms[i], "SYS")) {
            snprintf(args, sizeof args, "run -f csv -s '%s' -n 37 -b 3MiB", dpath("cli_3d.json"));
        } else {
            snprintf(args, sizeof args, "%s", forms[i]);
        }
        cli_out a, b;
        cli(&a, "%s", args);
        cli(&b, "%s", args);
        expect_ok(&a, args);
        ck_assert_int_eq(a.out_len, b.out_len);
        ck_assert_msg(memcmp(a.out, b.out, a.out_len) == 0, "'%s' differs between runs", args);
        cli_free(&a);
        cli_free(&b);
    }
    char *p1 = tmp_file(), *p2 = tmp_file();
    cli_out a, b;
    cli(&a, "run -n 16 --trace '%s'", p1);
    cli(&b, "run -n 16 --trace '%s'", p2);
    char *t1 = slurp(p1, NULL), *t2 = slurp(p2, NULL);
    ck_assert_str_eq(t1, t2);
    free(t1);
    free(t2);
    cli_free(&a);
    cli_free(&b);
    unlink(p1);
    unlink(p2);
    free(p1);
    free(p2);
}
END_TEST

/* ---- bad input: exit 2, one line on stderr, nothing on stdout ---- */

START_TEST(bad_system_files) {
    bad("/nonexistent/themis-missing.json", "run -s /nonexistent/themis-missing.json");
    bad("cli_broken.json", "run -s '%s'", dpath("cli_broken.json"));
    bad("cli_badtopo.json", "run -s '%s'", dpath("cli_badtopo.json"));
    bad("topology", "run -s '%s'", dpath("cli_badtopo.json"));
    bad("cli_ringdirect.json", "run -s '%s'", dpath("cli_ringdirect.json"));
    bad("dims[1].bw_GBps", "run -s '%s'", dpath("cli_badbw.json"));
    bad("bw_GBPS", "run -s '%s'", dpath("cli_typo.json"));
    bad(NULL, "run -s - < '%s'", dpath("cli_broken.json"));
    bad(NULL, "run -s - < /dev/null");
}
END_TEST

START_TEST(bad_options) {
    bad(NULL, "run -n 0");
    bad(NULL, "run -n 1000001");
    bad(NULL, "run -n -3");
    bad(NULL, "run -n abc");
    bad(NULL, "run --chunks 12x");
    bad(NULL, "run -b 0");
    bad(NULL, "run -b abc");
    bad(NULL, "run -b -5MB");
    bad(NULL, "run --size 1QB");
    bad(NULL, "run --dims 5");
    bad(NULL, "run --dims 3");
    bad(NULL, "run --dims 0,0");
    bad(NULL, "run --dims 0,x");
    bad(NULL, "run -s '%s' --dims 1", dpath("cli_ring4.json"));
    bad(NULL, "run -p bogus");
    bad(NULL, "run -q bogus");
    bad(NULL, "run -f bogus");
    bad(NULL, "run -c bogus");
    bad(NULL, "run --load-model bogus");
    bad(NULL, "run --bogus");
    bad(NULL, "--bogus");
    bad(NULL, "run -Z");
    bad(NULL, "run -n");
    bad(NULL, "run -s");
    bad(NULL, "frobnicate");
    bad(NULL, "run stray-argument");
}
END_TEST

START_TEST(bad_output_paths) {
    bad(NULL, "run -f csv -o /nonexistent/dir/x.csv");
    bad(NULL, "run -n 1 --trace /nonexistent/dir/t.csv");
}
END_TEST

/* The astra-sim preset through the CLI: import ASTRA-sim files, then run them. */
START_TEST(astra_import_and_run) {
    char *out = tmp_file();
    unlink(out);
    cli_out r;
    cli(&r, "import-astra '%s' '%s' -o '%s'", dpath("astra_net_3d.yml"),
        dpath("astra_sys_3d.json"), out);
    expect_ok(&r, "import-astra");
    ck_assert_int_eq((int)r.out_len, 0);
    cli_free(&r);
    /* The imported run defaults (16 chunks, themis, scf) give ASTRA-sim's 8518008 ns. */
    csv_t c;
    cli_csv(&c, "-s '%s' -b 1GiB -f csv", out);
    ck_assert_int_eq(c.nrows, 1);
    ck_assert_str_eq(csv_s(&c, 0, "policy"), "themis");
    ck_assert_str_eq(csv_s(&c, 0, "intra"), "scf");
    ck_assert_str_eq(csv_s(&c, 0, "chunks"), "16");
    ck_assert_str_eq(csv_s(&c, 0, "time_us"), "8518.008");
    csv_free(&c);
    /* Options still win over the imported defaults. */
    cli_csv(&c, "-s '%s' -b 1GiB -p baseline -q fifo -f csv", out);
    ck_assert_str_eq(csv_s(&c, 0, "time_us"), "9015.92");
    csv_free(&c);
    /* An existing output is not overwritten without --force. */
    bad(out, "import-astra '%s' -o '%s'", dpath("astra_net_3d.yml"), out);
    unlink(out);
    free(out);
    /* The public regression test: 4 * 29445 ns (see test_astra.c). */
    cli_csv(&c, "-s '%s' -b 1MiB -n 4 -p baseline -q fifo -f csv",
            dpath("astra_rt_template.json"));
    ck_assert_str_eq(csv_s(&c, 0, "time_us"), "117.78");
    csv_free(&c);
    bad("YAML syntax error", "import-astra '%s'", dpath("astra_net_syntax.yml"));
    bad("npus_count has 3 values", "import-astra '%s'", dpath("astra_net_mismatch.yml"));
    bad("allreduce only", "run -s '%s' -c allgather", dpath("astra_2d.json"));
}
END_TEST

/* themis train through the CLI: the hand-traced two-layer workload (see test_train.c). */
START_TEST(train_cli) {
    cli_out r;
    cli(&r, "train '%s' -s '%s' -p baseline -q fifo -f csv", dpath("wl_two_layer.json"),
        dpath("cli_ring4.json"));
    expect_ok(&r, "train csv");
    csv_t c;
    csv_parse(&c, r.out);
    cli_free(&r);
    /* baseline+fifo with lifo priority: 49620 ns; compute 6800; exposed 42820. The ideal
     * network is not listed (not requested) but still gives vs_ideal = 49500 / 49620. */
    ck_assert_int_eq(c.nrows, 1);
    ck_assert_str_eq(csv_s(&c, 0, "iteration_us"), "49.62");
    ck_assert_str_eq(csv_s(&c, 0, "compute_us"), "6.8");
    ck_assert_rel(csv_d(&c, 0, "exposed_comm_us"), 42.82);
    ck_assert_str_eq(csv_s(&c, 0, "speedup"), "1");
    ck_assert_rel(csv_d(&c, 0, "speedup_vs_ideal"), 49500.0 / 49620.0);
    ck_assert_str_eq(csv_s(&c, 0, "priority"), "lifo");
    csv_free(&c);
    /* -p all -q all: 4 policies x 2 intras + the ideal network. */
    cli(&r, "train '%s' -s '%s' -f csv --priority fifo", dpath("wl_two_layer.json"),
        dpath("cli_ring4.json"));
    expect_ok(&r, "train all");
    csv_parse(&c, r.out);
    ck_assert_int_eq(c.nrows, 9);
    ck_assert_str_eq(csv_s(&c, 8, "policy"), "ideal");
    ck_assert_str_eq(csv_s(&c, 0, "iteration_us"), "50.62");
    csv_free(&c);
    cli_free(&r);
    /* JSON: the shape of themis run's, with each collective of the measured iteration. */
    cli(&r, "train '%s' -s '%s' -p themis -q scf -f json", dpath("wl_two_layer.json"),
        dpath("cli_ring4.json"));
    expect_ok(&r, "train json");
    cJSON *root = cJSON_Parse(r.out);
    ck_assert_ptr_nonnull(root);
    cJSON *res = cJSON_GetObjectItem(root, "results");
    ck_assert_int_eq(cJSON_GetArraySize(res), 1);
    cJSON *row = cJSON_GetArrayItem(res, 0);
    ck_assert_str_eq(cJSON_GetObjectItem(row, "policy")->valuestring, "themis");
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(row, "collectives")), 2);
    ck_assert_ptr_nonnull(cJSON_GetObjectItem(row, "exposed_comm_us"));
    ck_assert_ptr_nonnull(cJSON_GetObjectItem(row, "speedup_vs_ideal"));
    ck_assert_str_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(root, "workload"), "name")
                         ->valuestring,
                     "two-layer");
    cJSON_Delete(root);
    cli_free(&r);
    /* The shipped workloads run on the default system. */
    cli(&r, "train '%s' -p baseline -q fifo", wl_path("resnet50.json"));
    expect_ok(&r, "train resnet50");
    ck_assert_ptr_nonnull(strstr(r.out, "iteration_us"));
    cli_free(&r);
    /* Bad input: exit 2, one line. */
    bad("mp_dims", "train '%s' -s '%s'", dpath("wl_hybrid.json"), dpath("cli_ring4.json"));
    bad("missing the workload", "train");
    bad("--iterations", "train '%s' --iterations 1", dpath("wl_two_layer.json"));
    bad("-p: unknown policy", "train '%s' -p best", dpath("wl_two_layer.json"));
    bad("cannot open", "train /nonexistent/w.json");
    bad("dims: unknown key", "train '%s'", dpath("cli_ring4.json"));
}
END_TEST

Suite *cli_suite(void) {
    Suite *s = suite_create("cli");
    TCase *tc = tcase_create("cli");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, version);
    tcase_add_test(tc, help);
    tcase_add_test(tc, noargs_table);
    tcase_add_test(tc, default_csv);
    tcase_add_test(tc, pair_selection);
    tcase_add_test(tc, json_format);
    tcase_add_test(tc, output_file);
    tcase_add_test(tc, trace_one_chunk);
    tcase_add_test(tc, trace_all_pairs);
    tcase_add_test(tc, ring4_allreduce);
    tcase_add_test(tc, ring4_chunks);
    tcase_add_test(tc, efficiency_reduce);
    tcase_add_test(tc, dims_subset);
    tcase_add_test(tc, rs_ag_a2a);
    tcase_add_test(tc, shipped_systems);
    tcase_add_test(tc, deterministic);
    tcase_add_test(tc, bad_system_files);
    tcase_add_test(tc, bad_options);
    tcase_add_test(tc, bad_output_paths);
    tcase_add_test(tc, astra_import_and_run);
    tcase_add_test(tc, train_cli);
    suite_add_tcase(s, tc);
    return s;
}

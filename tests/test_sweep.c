/* Check suite for the sweep engine (spec parsing, points, rows, runs, resume, merge). */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check_themis.h"
#include "themis/output.h"
#include "themis/sweep.h"

/* ---- helpers ---- */

/* tests/data without a trailing slash: the base folder of the specs parsed here. */
static const char *data_dir(void) {
    static char buf[4096];
    snprintf(buf, sizeof buf, "%s", test_data(""));
    size_t n = strlen(buf);
    while (n > 1 && buf[n - 1] == '/') {
        buf[--n] = '\0';
    }
    return buf;
}

/* Parses a spec (written with ' for ") that must be valid. */
static th_sweep *spec_ok(const char *json) {
    char *text = test_dq(json);
    th_sweep *sw = NULL;
    th_error err = {0};
    int rc = th_sweep_parse(text, strlen(text), "spec.json", data_dir(), &sw, &err);
    ck_assert_msg(rc == TH_OK, "spec %s rejected: %s", text, err.msg);
    ck_assert_ptr_nonnull(sw);
    free(text);
    return sw;
}

/* Parses a spec that must be rejected as bad input; the message holds both needles. */
static void spec_bad(const char *json, const char *needle1, const char *needle2) {
    char *text = test_dq(json);
    static char sentinel;
    th_sweep *sw = (th_sweep *)(void *)&sentinel; /* must be reset to NULL */
    th_error err = {0};
    int rc = th_sweep_parse(text, strlen(text), "spec.json", data_dir(), &sw, &err);
    ck_assert_msg(rc == TH_EINPUT, "spec %s: rc %d (want TH_EINPUT), msg '%s'", text, rc, err.msg);
    ck_assert_int_eq(err.code, TH_EINPUT);
    ck_assert_msg(sw == NULL, "spec %s: *out not NULL on error", text);
    ck_assert_msg(strncmp(err.msg, "spec.json", 9) == 0, "spec %s: message '%s' lacks the source",
                  text, err.msg);
    ck_assert_msg(strchr(err.msg, '\n') == NULL, "spec %s: message has a line break", text);
    if (needle1) {
        ck_assert_msg(strstr(err.msg, needle1) != NULL, "spec %s: message '%s' lacks '%s'", text,
                      err.msg, needle1);
    }
    if (needle2) {
        ck_assert_msg(strstr(err.msg, needle2) != NULL, "spec %s: message '%s' lacks '%s'", text,
                      err.msg, needle2);
    }
    free(text);
}

/* The "point,axis values" of a point, in a static buffer. */
static const char *prefix_of(const th_sweep *sw, int64_t point) {
    static char out[4096];
    th_buf b = {0};
    th_error err = {0};
    ck_assert_msg(th_sweep_prefix(sw, point, &b, &err) == TH_OK, "prefix: %s", err.msg);
    ck_assert_ptr_nonnull(b.p);
    ck_assert_uint_lt(b.len, sizeof out);
    memcpy(out, b.p, b.len + 1);
    th_buf_free(&b);
    return out;
}

static const char *header_of(const th_sweep *sw) {
    static char out[4096];
    th_buf b = {0};
    th_error err = {0};
    ck_assert_msg(th_sweep_header(sw, &b, &err) == TH_OK, "header: %s", err.msg);
    ck_assert_uint_lt(b.len, sizeof out);
    memcpy(out, b.p, b.len + 1);
    th_buf_free(&b);
    return out;
}

/* Every row of the sweep, computed point by point by one worker (no threads). */
static char *rows_by_worker(const th_sweep *sw, size_t *len) {
    th_sweep_worker *w = th_sweep_worker_create(sw);
    ck_assert_ptr_nonnull(w);
    th_buf b = {0};
    th_error err = {0};
    for (int64_t i = 0; i < th_sweep_points(sw); i++) {
        ck_assert_msg(th_sweep_row(w, i, &b, &err) == TH_OK, "row %lld: %s", (long long)i, err.msg);
    }
    th_sweep_worker_free(w);
    if (len) {
        *len = b.len;
    }
    return b.p;
}

/* One point's row, split into fields (at most 64); returns the field count. */
typedef struct row_t {
    char *text;
    char *f[64];
    int n;
} row_t;

static void row_get(const th_sweep *sw, int64_t point, row_t *r) {
    th_sweep_worker *w = th_sweep_worker_create(sw);
    ck_assert_ptr_nonnull(w);
    th_buf b = {0};
    th_error err = {0};
    ck_assert_msg(th_sweep_row(w, point, &b, &err) == TH_OK, "row %lld: %s", (long long)point,
                  err.msg);
    th_sweep_worker_free(w);
    ck_assert_msg(b.len > 0 && b.p[b.len - 1] == '\n', "row does not end in a newline");
    ck_assert_msg(strchr(b.p, '\n') == b.p + b.len - 1, "row holds more than one line");
    b.p[b.len - 1] = '\0';
    r->text = b.p;
    r->n = test_split(r->text, r->f, 64);
}

static double fnum(const row_t *r, int i) {
    ck_assert_int_lt(i, r->n);
    char *end;
    double v = strtod(r->f[i], &end);
    ck_assert_msg(r->f[i][0] && *end == '\0', "field %d is not a number: '%s'", i, r->f[i]);
    return v;
}

/* dir/name in one of four rotating buffers, for a path used at once. */
static const char *in_dir(const char *dir, const char *name) {
    static char bufs[4][4200];
    static int next;
    char *b = bufs[next];
    next = (next + 1) % 4;
    snprintf(b, sizeof bufs[0], "%s/%s", dir, name);
    return b;
}

/* Runs (a shard of) the sweep with th_sweep_run into path (created or truncated); writes the
 * header first when asked. Returns the points done. */
static int64_t run_into(const th_sweep *sw, int threads, th_shard shard, int64_t start, int header,
                        const char *path) {
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ck_assert_msg(fd >= 0, "cannot create %s", path);
    if (header) {
        const char *h = header_of(sw);
        ck_assert_int_eq(write(fd, h, strlen(h)), (ssize_t)strlen(h));
    }
    th_sweep_opts o = {threads, shard, start, fd, NULL, NULL, NULL};
    int64_t done = -1;
    th_error err = {0};
    ck_assert_msg(th_sweep_run(sw, &o, &done, &err) == TH_OK, "run: %s", err.msg);
    ck_assert_int_eq(close(fd), 0);
    return done;
}

/* Merges parts into the file out the way `themis merge --force` does: through th_output, committed
 * only when the merge succeeded. */
static int merge_file(const char *out, const char *const *parts, int n, int64_t expect,
                      th_error *err) {
    th_output o;
    int rc = th_output_open(&o, out, TH_OUTPUT_FORCE, err);
    if (rc) return rc;
    rc = th_sweep_merge(o.f, parts, n, expect, NULL, NULL, err);
    if (rc) {
        th_output_abort(&o);
        return rc;
    }
    return th_output_commit(&o, err);
}

static const th_shard WHOLE = {0, 1};

static void scan_ok(const th_sweep *sw, th_shard sh, const char *path, int64_t rows, off_t keep);
#define scan_ok_fwd scan_ok

/* Offset of the start of line `line` (0 = the header) in text. */
static size_t line_start(const char *text, int64_t line) {
    const char *p = text;
    for (int64_t i = 0; i < line; i++) {
        p = strchr(p, '\n');
        ck_assert_ptr_nonnull(p);
        p++;
    }
    return (size_t)(p - text);
}

/* ---- points, order, ranges, header ---- */

START_TEST(point_count) {
    /* No axes: one point; defaults: name "sweep", no output. */
    th_sweep *sw = spec_ok("{}");
    ck_assert_int_eq(th_sweep_points(sw), 1);
    ck_assert_str_eq(th_sweep_name(sw), "sweep");
    ck_assert_ptr_null(th_sweep_output(sw));
    ck_assert_str_eq(prefix_of(sw, 0), "0");
    th_sweep_free(sw);

    /* 3 x 2 x 2 = 12. */
    sw = spec_ok("{'name': 'n', 'axes': {'chunks': [1, 2, 3], 'policy': ['baseline', 'themis'],"
                 " 'intra': ['fifo', 'scf']}}");
    ck_assert_int_eq(th_sweep_points(sw), 12);
    ck_assert_str_eq(th_sweep_name(sw), "n");
    th_sweep_free(sw);

    /* A zip group of two 4-value axes counts once: 3 x 4 x 2 = 24 (not 3 x 4 x 4 x 2). */
    sw = spec_ok("{'axes': {'chunks': [1, 2, 3], 'dims[0].npus': [2, 4, 8, 16],"
                 " 'dims[0].bw_GBps': [10, 20, 30, 40], 'intra': ['fifo', 'scf']},"
                 " 'zip': [['dims[0].npus', 'dims[0].bw_GBps']]}");
    ck_assert_int_eq(th_sweep_points(sw), 24);
    th_sweep_free(sw);

    /* Two zip groups of three axes each (2 values), and a free axis of 3: 2 x 2 x 3 = 12. */
    sw = spec_ok("{'axes': {'chunks': [1, 2], 'size': [100, 200], 'type': ['allreduce', "
                 "'allgather'], 'policy': ['baseline', 'themis'], 'intra': ['fifo', 'scf'],"
                 " 'load_model': ['alpha_beta', 'bandwidth'], 'dims[1].npus': [2, 4, 8]},"
                 " 'zip': [['chunks', 'size', 'type'], ['policy', 'intra', 'load_model']]}");
    ck_assert_int_eq(th_sweep_points(sw), 12);
    ck_assert_str_eq(prefix_of(sw, 0), "0,1,100,allreduce,baseline,fifo,alpha_beta,2");
    ck_assert_str_eq(prefix_of(sw, 11), "11,2,200,allgather,themis,scf,bandwidth,8");
    th_sweep_free(sw);

    /* The output resolves against the spec's folder. */
    sw = spec_ok("{'output': 'out/x.csv'}");
    char want[4200];
    snprintf(want, sizeof want, "%s/out/x.csv", data_dir());
    ck_assert_str_eq(th_sweep_output(sw), want);
    th_sweep_free(sw);
    sw = spec_ok("{'output': '/abs/y.csv'}");
    ck_assert_str_eq(th_sweep_output(sw), "/abs/y.csv");
    th_sweep_free(sw);
}
END_TEST

START_TEST(point_order) {
    /* Groups: chunks (3) slowest, the zip (npus, bw) at npus' place (2), intra (2) fastest;
     * point = c * 4 + z * 2 + i, and the columns stay in the order of "axes". */
    static const char *const npus[] = {"2", "4"}, *const bw[] = {"10", "20"};
    static const char *const intra[] = {"fifo", "scf"};
    const char *specs[2] = {
        "{'axes': {'chunks': [1, 2, 3], 'dims[0].npus': [2, 4], 'intra': ['fifo', 'scf'],"
        " 'dims[0].bw_GBps': [10, 20]}, 'zip': [['dims[0].npus', 'dims[0].bw_GBps']]}",
        /* the zip list in the other order: still the place of the first axis in "axes" */
        "{'axes': {'chunks': [1, 2, 3], 'dims[0].npus': [2, 4], 'intra': ['fifo', 'scf'],"
        " 'dims[0].bw_GBps': [10, 20]}, 'zip': [['dims[0].bw_GBps', 'dims[0].npus']]}",
    };
    for (int s = 0; s < 2; s++) {
        th_sweep *sw = spec_ok(specs[s]);
        ck_assert_int_eq(th_sweep_points(sw), 12);
        ck_assert_str_eq(header_of(sw),
                         "point,chunks,dims[0].npus,intra,dims[0].bw_GBps,time_us,ideal_us,"
                         "bw_util,speedup,algbw_GBps,busbw_GBps,dim0_bw_util,dim0_busy_us,"
                         "dim1_bw_util,dim1_busy_us,dim2_bw_util,dim2_busy_us,npus\n");
        for (int c = 0; c < 3; c++) {
            for (int z = 0; z < 2; z++) {
                for (int i = 0; i < 2; i++) {
                    int p = c * 4 + z * 2 + i;
                    char want[128];
                    snprintf(want, sizeof want, "%d,%d,%s,%s,%s", p, c + 1, npus[z], intra[i],
                             bw[z]);
                    ck_assert_str_eq(prefix_of(sw, p), want);
                }
            }
        }
        th_sweep_free(sw);
    }
    /* A zip whose first axis comes last in "axes": the group is the fastest. */
    th_sweep *sw = spec_ok("{'axes': {'policy': ['baseline', 'themis'], 'chunks': [5, 6, 7],"
                           " 'intra': ['fifo', 'scf'], 'size': [1, 2, 3]},"
                           " 'zip': [['size', 'chunks']]}");
    /* groups: policy (2), then the zip at chunks' place (3), then intra (2):
     * point = p * 6 + z * 2 + i; point 9 = (1, 1, 1): themis, chunks 6, scf, size 2. */
    ck_assert_int_eq(th_sweep_points(sw), 12);
    ck_assert_str_eq(prefix_of(sw, 0), "0,baseline,5,fifo,1");
    ck_assert_str_eq(prefix_of(sw, 1), "1,baseline,5,scf,1");
    ck_assert_str_eq(prefix_of(sw, 2), "2,baseline,6,fifo,2");
    ck_assert_str_eq(prefix_of(sw, 9), "9,themis,6,scf,2");
    ck_assert_str_eq(prefix_of(sw, 11), "11,themis,7,scf,3");
    th_sweep_free(sw);
}
END_TEST

/* The values of a one-axis spec, joined by ';' (the prefixes without the point). */
static void expect_values(const char *json, const char *want) {
    th_sweep *sw = spec_ok(json);
    char got[4096] = "";
    for (int64_t i = 0; i < th_sweep_points(sw); i++) {
        const char *p = strchr(prefix_of(sw, i), ',');
        ck_assert_ptr_nonnull(p);
        size_t n = strlen(got);
        snprintf(got + n, sizeof got - n, "%s%s", i ? ";" : "", p + 1);
    }
    ck_assert_msg(strcmp(got, want) == 0, "%s: values %s, want %s", json, got, want);
    th_sweep_free(sw);
}

START_TEST(ranges) {
    const char *sys = "'system': 'cli_ring4.json', ";
    char spec[1024];
#define R(axis, range, want)                                                                       \
    do {                                                                                           \
        snprintf(spec, sizeof spec, "{%s'axes': {'%s': %s}}", sys, axis, range);                   \
        expect_values(spec, want);                                                                 \
    } while (0)
    /* arithmetic, up, landing on "to" */
    R("dims[0].bw_GBps", "{'from': 25, 'to': 100, 'step': 25}", "25;50;75;100");
    /* geometric: 25 * 2^k up to 400 = 25 * 2^4 */
    R("dims[0].bw_GBps", "{'from': 25, 'to': 400, 'times': 2}", "25;50;100;200;400");
    /* downwards, to 0 */
    R("dims[0].latency_ns", "{'from': 100, 'to': 0, 'step': -25}", "100;75;50;25;0");
    R("dims[0].bw_GBps", "{'from': 400, 'to': 25, 'times': 0.5}", "400;200;100;50;25");
    /* "to" not landed on: 1, 5, 9 (13 > 10) */
    R("chunks", "{'from': 1, 'to': 10, 'step': 4}", "1;5;9");
    R("chunks", "{'from': 100, 'to': 1, 'step': -40}", "100;60;20");
    R("dims[0].bw_GBps", "{'from': 1, 'to': 50, 'times': 3}", "1;3;9;27");
    /* landing within 1e-9 relative: 0.1 + 2 * 0.1 = 0.30000000000000004 is taken as 0.3 */
    R("dims[0].efficiency", "{'from': 0.1, 'to': 0.3, 'step': 0.1}", "0.1;0.2;0.3");
    R("dims[0].efficiency", "{'from': 0.3, 'to': 0.1, 'step': -0.1}", "0.3;0.2;0.1");
    /* from == to: one value */
    R("chunks", "{'from': 5, 'to': 5, 'step': 1}", "5");
    /* integer axes accept integral values given as fractions of a step */
    R("dims[0].npus", "{'from': 2, 'to': 8, 'step': 2}", "2;4;6;8");
    /* sizes: strings or numbers, printed in bytes */
    R("size", "{'from': '1KiB', 'to': '4KiB', 'times': 2}", "1024;2048;4096");
    R("size", "['1MiB', 1000, '2KB']", "1048576;1000;2000");
    R("dims", "['0', [0], 'all', '0']", "0;0;all;0");
    /* dims print ascending, however written */
    snprintf(spec, sizeof spec, "{'axes': {'dims': [[2, 0], '2,0', '1']}}");
    expect_values(spec, "0;2;0;2;1");
    /* a system axis: the system's name, then its file as the spec names it (system_file) */
    R("system", "['cli_ring4.json', 'sweep_ring2x2.json']",
      "cli-ring4,cli_ring4.json;sweep-ring2x2,sweep_ring2x2.json");
    /* a range of 1,000,000 values is the most allowed */
    snprintf(spec, sizeof spec, "{%s'axes': {'chunks': {'from': 1, 'to': 1000000, 'step': 1}}}",
             sys);
    th_sweep *sw = spec_ok(spec);
    ck_assert_int_eq(th_sweep_points(sw), 1000000);
    ck_assert_str_eq(prefix_of(sw, 999999), "999999,1000000");
    th_sweep_free(sw);
#undef R
}
END_TEST

START_TEST(range_errors) {
    /* integer axes reject fractional values, listed or reached by a range */
    spec_bad("{'axes': {'chunks': {'from': 1, 'to': 3, 'step': 0.5}}}", "axes.chunks", "1.5");
    spec_bad("{'axes': {'chunks': [2.5]}}", "axes.chunks[0]", "integer");
    spec_bad("{'axes': {'dims[0].npus': [4, 1.5]}}", "axes.dims[0].npus[1]", "integer");
    spec_bad("{'axes': {'dims[0].npus': {'from': 1.5, 'to': 4, 'step': 1}}}", "dims[0].npus", NULL);
    /* ranges that never end */
    spec_bad("{'axes': {'chunks': {'from': 1, 'to': 4, 'step': 0}}}", "axes.chunks", NULL);
    spec_bad("{'axes': {'chunks': {'from': 1, 'to': 4, 'step': -1}}}", "axes.chunks", NULL);
    spec_bad("{'axes': {'chunks': {'from': 4, 'to': 1, 'step': 1}}}", "axes.chunks", NULL);
    spec_bad("{'axes': {'dims[0].bw_GBps': {'from': 1, 'to': 4, 'times': 1}}}",
             "axes.dims[0].bw_GBps", NULL);
    spec_bad("{'axes': {'dims[0].bw_GBps': {'from': 1, 'to': 4, 'times': 0.5}}}",
             "axes.dims[0].bw_GBps", NULL);
    spec_bad("{'axes': {'dims[0].bw_GBps': {'from': 4, 'to': 1, 'times': 2}}}",
             "axes.dims[0].bw_GBps", NULL);
    spec_bad("{'axes': {'dims[0].bw_GBps': {'from': 1, 'to': 4, 'times': -2}}}",
             "axes.dims[0].bw_GBps", NULL);
    spec_bad("{'axes': {'dims[0].latency_ns': {'from': 0, 'to': 4, 'times': 2}}}",
             "axes.dims[0].latency_ns", NULL);
    /* malformed ranges */
    spec_bad("{'axes': {'chunks': {'from': 1, 'to': 4}}}", "axes.chunks", NULL);
    spec_bad("{'axes': {'chunks': {'from': 1, 'step': 1}}}", "axes.chunks", NULL);
    spec_bad("{'axes': {'chunks': {'from': 1, 'to': 4, 'step': 1, 'times': 2}}}", "axes.chunks",
             NULL);
    spec_bad("{'axes': {'chunks': {'from': 1, 'to': 4, 'stp': 1}}}", "stp", NULL);
    spec_bad("{'axes': {'chunks': {'from': 1, 'to': 'four', 'step': 1}}}", "axes.chunks", NULL);
    /* more than 1,000,000 values */
    spec_bad("{'axes': {'chunks': {'from': 1, 'to': 1000000, 'step': 0.5}}}", "axes.chunks", NULL);
    spec_bad("{'axes': {'dims[0].latency_ns': {'from': 0, 'to': 1000000, 'step': 1}}}",
             "axes.dims[0].latency_ns", "1000000");
    /* ranges on axes that are not numbers */
    const char *names[] = {
        "policy",           "intra", "type", "load_model", "dims", "system", "dims[0].topology",
        "dims[1].algorithm"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char spec[256], needle[64];
        snprintf(spec, sizeof spec, "{'axes': {'%s': {'from': 1, 'to': 3, 'step': 1}}}", names[i]);
        snprintf(needle, sizeof needle, "axes.%s", names[i]);
        spec_bad(spec, needle, NULL);
    }
}
END_TEST

START_TEST(header_text) {
    /* 1-dim system: one dim column pair. */
    th_sweep *sw = spec_ok("{'system': 'cli_ring4.json', 'axes': {'chunks': [1],"
                           " 'dims[0].bw_GBps': [100]}}");
    ck_assert_str_eq(header_of(sw), "point,chunks,dims[0].bw_GBps,time_us,ideal_us,bw_util,"
                                    "speedup,algbw_GBps,busbw_GBps,dim0_bw_util,dim0_busy_us,"
                                    "npus\n");
    th_sweep_free(sw);
    /* The built-in default system has 3 dims; no axes. */
    sw = spec_ok("{}");
    ck_assert_str_eq(header_of(sw), "point,time_us,ideal_us,bw_util,speedup,algbw_GBps,"
                                    "busbw_GBps,dim0_bw_util,dim0_busy_us,dim1_bw_util,"
                                    "dim1_busy_us,dim2_bw_util,dim2_busy_us,npus\n");
    th_sweep_free(sw);
    /* A system axis: as many pairs as the largest system (cli_3d: 3), whatever the base. */
    sw = spec_ok("{'system': 'cli_ring4.json', 'axes': {'system': ['cli_ring4.json',"
                 " 'cli_3d.json'], 'policy': ['themis']}}");
    ck_assert_str_eq(header_of(sw), "point,system,system_file,policy,time_us,ideal_us,bw_util,"
                                    "speedup,algbw_GBps,busbw_GBps,dim0_bw_util,dim0_busy_us,"
                                    "dim1_bw_util,dim1_busy_us,dim2_bw_util,dim2_busy_us,npus\n");
    th_sweep_free(sw);
}
END_TEST

/* ---- rows ---- */

/* Columns of a row with one axis before the results, on a 1-dim system. */
enum { C_TIME = 2, C_IDEAL, C_UTIL, C_SPEEDUP, C_ALGBW, C_BUSBW, C_D0UTIL, C_D0BUSY, C_NPUS };

/* The reduce_GBps axis on the ring of 4 (B = 100, alpha = 10 ns), S = 1e6 in one chunk: the
 * RS stage adds S (p-1)/p / reduce = 7.5e5 / reduce ns, the AG stage nothing.
 * reduce 50: RS 7530 + 15000 = 22530 ns; AR 22530 + 7530 = 30060 ns.
 * reduce 200: RS 7530 + 3750 = 11280 ns; AR 11280 + 7530 = 18810 ns.
 * The ideal time has no reduction: RS 7.5e5 / 100 = 7500 ns, AR 15000 ns. Each row is its own
 * baseline + fifo reference: speedup 1. */
START_TEST(reduce_axis_rows) {
    th_sweep *sw = spec_ok("{'system': 'cli_ring4.json', 'collective': {'size': 1000000, "
                           "'chunks': 1}, 'policy': 'baseline', 'intra': 'fifo', 'axes': "
                           "{'reduce_GBps': [50, 200], 'type': ['allreduce', 'reducescatter']}}");
    ck_assert_int_eq(th_sweep_points(sw), 4);
    static const struct {
        const char *reduce, *type;
        double t_ns, ideal_ns;
    } want[4] = {{"50", "allreduce", 30060, 15000},
                 {"50", "reducescatter", 22530, 7500},
                 {"200", "allreduce", 18810, 15000},
                 {"200", "reducescatter", 11280, 7500}};
    for (int p = 0; p < 4; p++) {
        row_t r;
        row_get(sw, p, &r);
        ck_assert_str_eq(r.f[1], want[p].reduce);
        ck_assert_str_eq(r.f[2], want[p].type);
        ck_assert_rel(fnum(&r, C_TIME + 1), want[p].t_ns / 1000);
        ck_assert_rel(fnum(&r, C_IDEAL + 1), want[p].ideal_ns / 1000);
        ck_assert_str_eq(r.f[C_SPEEDUP + 1], "1");
        free(r.text);
    }
    th_sweep_free(sw);
}
END_TEST

START_TEST(ring4_rows) {
    /* Ring of 4, B = 100 bytes/ns, alpha = 10 ns; All-Reduce of S = 1e6 bytes in one chunk:
     * RS = 10 * 3 + 1e6 * 3 / (4 * 100) = 30 + 7500 = 7530 ns, AG the same: 15060 ns =
     * 15.06 us. Bytes 2 * 1e6 * 3/4 = 1.5e6; ideal = 1.5e6 / 100 = 15000 ns = 15 us.
     * With B = 50: stages 30 + 15000 = 15030, time 30060 ns; ideal 30000 ns. */
    th_sweep *sw = spec_ok("{'system': 'cli_ring4.json', 'collective': {'type': 'allreduce',"
                           " 'size': 1000000, 'chunks': 1}, 'policy': 'baseline', 'intra': "
                           "'fifo', 'axes': {'dims[0].bw_GBps': [100, 50]}}");
    ck_assert_int_eq(th_sweep_points(sw), 2);
    const double bw[2] = {100, 50}, t_ns[2] = {15060, 30060}, ideal_ns[2] = {15000, 30000};
    for (int p = 0; p < 2; p++) {
        row_t r;
        row_get(sw, p, &r);
        ck_assert_int_eq(r.n, 11);
        ck_assert_int_eq((int)fnum(&r, 0), p);
        ck_assert_rel(fnum(&r, 1), bw[p]);
        ck_assert_rel(fnum(&r, C_TIME), t_ns[p] / 1000);
        ck_assert_rel(fnum(&r, C_IDEAL), ideal_ns[p] / 1000);
        ck_assert_rel(fnum(&r, C_UTIL), ideal_ns[p] / t_ns[p]);
        ck_assert_str_eq(r.f[C_SPEEDUP], "1");
        /* algbw = S / time (bytes/ns = GB/s); busbw = algbw * 2 (4 - 1) / 4 */
        ck_assert_rel(fnum(&r, C_ALGBW), 1e6 / t_ns[p]);
        ck_assert_rel(fnum(&r, C_BUSBW), 1e6 / t_ns[p] * 1.5);
        /* dim0: bytes / (B time) */
        ck_assert_rel(fnum(&r, C_D0UTIL), 1.5e6 / (bw[p] * t_ns[p]));
        ck_assert_rel(fnum(&r, C_D0BUSY), t_ns[p] / 1000);
        ck_assert_str_eq(r.f[C_NPUS], "4");
        free(r.text);
    }
    /* The shortest exact text: 15060 / 1000 reads back as 15.06. */
    row_t r;
    row_get(sw, 0, &r);
    ck_assert_str_eq(r.f[C_TIME], "15.06");
    ck_assert_str_eq(r.f[C_IDEAL], "15");
    ck_assert_str_eq(r.f[C_D0BUSY], "15.06");
    free(r.text);
    th_sweep_free(sw);

    /* Types, sizes and chunks as axes on the same ring (B = 100):
     * RS, AG, A2A of 1e6 in one chunk: 30 + 7500 = 7530 ns each; ideal 7.5e5 / 100 = 7500.
     * S = 2e6, All-Reduce: 2 * (30 + 15000) = 30060 ns; ideal 3e6 / 100 = 30000 ns.
     * 2 chunks of 5e5: four stages of 30 + 3750 = 3780 ns on the one dim, always busy:
     * 15120 ns; ideal still 15000 ns. S = 2e6 in 2 chunks: 4 * (30 + 7500) = 30120 ns. */
    sw = spec_ok("{'system': 'cli_ring4.json', 'collective': {'size': 1000000, 'chunks': 1},"
                 " 'axes': {'type': ['allreduce', 'reducescatter', 'allgather', 'alltoall']}}");
    const double tt[4] = {15060, 7530, 7530, 7530}, ti[4] = {15000, 7500, 7500, 7500};
    for (int p = 0; p < 4; p++) {
        row_get(sw, p, &r);
        ck_assert_rel(fnum(&r, C_TIME), tt[p] / 1000);
        ck_assert_rel(fnum(&r, C_IDEAL), ti[p] / 1000);
        ck_assert_rel(fnum(&r, C_SPEEDUP), 1.0);
        /* busbw: x 2 (P-1)/P for All-Reduce, x (P-1)/P otherwise */
        ck_assert_rel(fnum(&r, C_BUSBW), 1e6 / tt[p] * (p == 0 ? 1.5 : 0.75));
        free(r.text);
    }
    th_sweep_free(sw);
    sw = spec_ok("{'system': 'cli_ring4.json', 'collective': {'size': 1000000, 'chunks': 1},"
                 " 'axes': {'size': ['1MB', 2000000], 'chunks': [1, 2]}}");
    const double ts[4] = {15060, 15120, 30060, 4 * 30 + 30000};
    const double is[4] = {15000, 15000, 30000, 30000};
    for (int p = 0; p < 4; p++) {
        row_get(sw, p, &r);
        /* two axes: every result one column further right */
        ck_assert_rel(fnum(&r, C_TIME + 1), ts[p] / 1000);
        ck_assert_rel(fnum(&r, C_IDEAL + 1), is[p] / 1000);
        ck_assert_rel(fnum(&r, C_ALGBW + 1), (p < 2 ? 1e6 : 2e6) / ts[p]);
        free(r.text);
    }
    th_sweep_free(sw);
}
END_TEST

START_TEST(speedup_reference) {
    /* Two rings of 2 (B = 100, alpha 0), All-Reduce of S = 1e6 in C = 2 chunks of c = 5e5.
     * A stage of m on either dim takes m (2-1)/(2 * 100) = m / 200 ns; a = c / 200 = 2500.
     * baseline: every chunk RS0 (c), RS1 (c/2), AG1 (c/2), AG0 (c); dim 0 carries four
     *   stages of a and is busy without a gap: 4a = 10000 ns (FIFO and SCF alike).
     * themis: chunk 0 baseline (loads 2500, 1250); chunk 1: the gap 1250 >= est(c/16) =
     *   156.25, so it goes dim 1 first: RS1 (c), RS0 (c/2), AG0 (c/2), AG1 (c). Both dims
     *   run a, a/2, a/2, a back to back: 3a = 7500 ns. speedup = 10000 / 7500 = 4/3.
     * roundrobin: chunk 1 rotated left by 1 = the same order: 7500 ns.
     * One chunk: RS0 5000 + RS1 2500 + AG1 2500 + AG0 5000 = 15000 ns for every policy. */
    const char *base = "'system': 'sweep_ring2x2.json', 'collective': {'size': 1000000}";
    char spec[1024];
    /* policy never an axis, and not baseline */
    snprintf(spec, sizeof spec,
             "{%s, 'policy': 'themis', 'intra': 'scf',"
             " 'axes': {'chunks': [1, 2]}}",
             base);
    th_sweep *sw = spec_ok(spec);
    row_t r;
    row_get(sw, 0, &r);
    ck_assert_rel(fnum(&r, C_TIME), 15.0);
    ck_assert_rel(fnum(&r, C_SPEEDUP), 1.0);
    free(r.text);
    row_get(sw, 1, &r);
    ck_assert_rel(fnum(&r, C_TIME), 7.5);
    ck_assert_rel(fnum(&r, C_SPEEDUP), 4.0 / 3.0);
    ck_assert_rel(fnum(&r, C_UTIL), 1.0); /* ideal = 1.5e6 / 200 = 7500 ns */
    free(r.text);
    th_sweep_free(sw);

    /* a policy axis without baseline */
    snprintf(spec, sizeof spec,
             "{%s, 'axes': {'policy': ['themis', 'roundrobin'],"
             " 'intra': ['fifo', 'scf'], 'chunks': [2]}}",
             base);
    sw = spec_ok(spec);
    for (int p = 0; p < 4; p++) {
        row_get(sw, p, &r);
        ck_assert_rel(fnum(&r, 4), 7.5);
        ck_assert_rel(fnum(&r, 4 + 3), 4.0 / 3.0);
        free(r.text);
    }
    th_sweep_free(sw);

    /* policy slowest, chunks fastest: the reference follows the chunks at every point. */
    snprintf(spec, sizeof spec,
             "{%s, 'intra': 'fifo', 'axes': {'policy': ['themis',"
             " 'baseline'], 'load_model': ['alpha_beta', 'bandwidth'], 'chunks': [1, 2]}}",
             base);
    sw = spec_ok(spec);
    ck_assert_int_eq(th_sweep_points(sw), 8);
    const double t[8] = {15, 7.5, 15, 7.5, 15, 10, 15, 10};
    const double s[8] = {1, 4.0 / 3, 1, 4.0 / 3, 1, 1, 1, 1};
    for (int p = 0; p < 8; p++) {
        row_get(sw, p, &r);
        ck_assert_int_eq(r.n, 4 + 6 + 4 + 1);
        ck_assert_rel(fnum(&r, 4), t[p]);
        ck_assert_rel(fnum(&r, 4 + 3), s[p]);
        free(r.text);
    }
    /* The same numbers when a single worker computes the points in sequence. */
    size_t len;
    char *all = rows_by_worker(sw, &len);
    char *line = all;
    for (int p = 0; p < 8; p++) {
        char *end = strchr(line, '\n'), *f[64];
        ck_assert_ptr_nonnull(end);
        *end = '\0';
        ck_assert_int_eq(test_split(line, f, 64), 4 + 6 + 4 + 1);
        ck_assert_rel(strtod(f[4 + 3], NULL), s[p]);
        line = end + 1;
    }
    free(all);
    th_sweep_free(sw);
}
END_TEST

START_TEST(system_axis_row) {
    /* cli_ring4 (1 dim): its row leaves dim1 and dim2 empty. cli_3d, one chunk of 1e6:
     * RS dim0 30 + 7500 = 7530; dim1 fc p=2 B=50: m = 2.5e5, 100 + 2.5e5/(2*50) = 2600;
     * dim2 switch p=8 rhd L = 2 s(8) = 6: m = 1.25e5, 6000 + 1.25e5*7/(8*25) = 10375;
     * RS 20505, time 41010 ns. ideal = 2e6 (63/64) / 175 = 11250 ns; npus 64. */
    th_sweep *sw = spec_ok("{'collective': {'size': 1000000, 'chunks': 1}, 'axes': {'system':"
                           " ['cli_ring4.json', 'cli_3d.json']}}");
    row_t r;
    row_get(sw, 0, &r);
    ck_assert_int_eq(r.n, 3 + 6 + 6 + 1); /* point, system, system_file; 6; 3 dim pairs; npus */
    ck_assert_str_eq(r.f[1], "cli-ring4");
    ck_assert_str_eq(r.f[2], "cli_ring4.json");
    ck_assert_rel(fnum(&r, 3), 15.06);
    for (int k = 11; k < 15; k++) {
        ck_assert_msg(r.f[k][0] == '\0', "field %d of the 1-dim row is '%s'", k, r.f[k]);
    }
    ck_assert_str_eq(r.f[15], "4");
    free(r.text);
    row_get(sw, 1, &r);
    ck_assert_int_eq(r.n, 16);
    ck_assert_str_eq(r.f[1], "cli-3d");
    ck_assert_str_eq(r.f[2], "cli_3d.json");
    ck_assert_rel(fnum(&r, 3), 41.01);
    ck_assert_rel(fnum(&r, 4), 11.25);
    ck_assert_rel(fnum(&r, 10), 7.53 * 2);   /* dim0_busy_us */
    ck_assert_rel(fnum(&r, 12), 2.6 * 2);    /* dim1_busy_us */
    ck_assert_rel(fnum(&r, 14), 10.375 * 2); /* dim2_busy_us */
    ck_assert_str_eq(r.f[15], "64");
    free(r.text);
    th_sweep_free(sw);
}
END_TEST

START_TEST(system_axis_columns) {
    /* SWEEP.md: "With a system axis there are as many dimK_* column pairs as the largest
     * system has dims". Here the largest of the axis' systems has 2 dims; the built-in
     * default (3 dims) is never evaluated, as every point takes a system of the axis. */
    th_sweep *sw = spec_ok("{'collective': {'size': 1000000, 'chunks': 1}, 'axes': {'system':"
                           " ['cli_ring4.json', 'sweep_ring2x2.json']}}");
    ck_assert_str_eq(header_of(sw), "point,system,system_file,time_us,ideal_us,bw_util,speedup,"
                                    "algbw_GBps,busbw_GBps,dim0_bw_util,dim0_busy_us,"
                                    "dim1_bw_util,dim1_busy_us,npus\n");
    th_sweep_free(sw);
}
END_TEST

START_TEST(csv_quoting) {
    /* system_file values are printed as written, quoted when they hold a comma or a quote */
    char *dir = test_tmp_dir();
    size_t len;
    char *ring = test_slurp(test_data("cli_ring4.json"), &len);
    TEST_DIR_PATH(comma, dir, "ring,4.json");
    TEST_DIR_PATH(quote, dir, "ring\"4.json");
    test_spit(comma, ring, len);
    test_spit(quote, ring, len);
    free(ring);
    const char *json = "{\"system\": \"ring,4.json\", \"axes\": {\"system\": [\"ring,4.json\","
                       " \"ring\\\"4.json\"]}}";
    th_sweep *sw = NULL;
    th_error err = {0};
    ck_assert_msg(th_sweep_parse(json, strlen(json), "spec.json", dir, &sw, &err) == TH_OK, "%s",
                  err.msg);
    ck_assert_str_eq(prefix_of(sw, 0), "0,cli-ring4,\"ring,4.json\"");
    ck_assert_str_eq(prefix_of(sw, 1), "1,cli-ring4,\"ring\"\"4.json\"");
    /* 1 + 2 + 6 + 2 + 1 = 12 fields (the reader keeps the quoted comma inside its field) */
    row_t r;
    row_get(sw, 0, &r);
    ck_assert_int_eq(r.n, 12);
    ck_assert_str_eq(r.f[2], "ring,4.json");
    free(r.text);
    /* a run, a resume scan and a merge all read these rows */
    TEST_DIR_PATH(full, dir, "full.csv");
    run_into(sw, 2, WHOLE, 0, 1, full);
    char *text = test_slurp(full, &len);
    scan_ok_fwd(sw, WHOLE, full, 2, (off_t)len);
    TEST_DIR_PATH(out, dir, "all.csv");
    const char *parts[1] = {full};
    ck_assert_int_eq(merge_file(out, parts, 1, 2, &err), TH_OK);
    char *merged = test_slurp(out, NULL);
    ck_assert_str_eq(merged, text);
    free(merged);
    free(text);
    th_sweep_free(sw);
    test_rm_dir(dir);
}
END_TEST

/* ---- bad specs ---- */

START_TEST(bad_specs) {
    const char *d3 = "'system': 'cli_3d.json', ";
    char spec[1024];
#define BAD(body, n1, n2)                                                                          \
    do {                                                                                           \
        snprintf(spec, sizeof spec, "{%s%s}", d3, body);                                           \
        spec_bad(spec, n1, n2);                                                                    \
    } while (0)
    /* unknown axis, with a suggestion */
    BAD("'axes': {'chunk': [1]}", "axes.chunk", "did you mean \"chunks\"");
    BAD("'axes': {'polcy': ['themis']}", "axes.polcy", "policy");
    BAD("'axes': {'dims[0].bandwidth': [1]}", "axes.dims[0].bandwidth", "bw_GBps");
    BAD("'axes': {'dims[x].npus': [1]}", "axes.dims[x].npus", NULL);
    BAD("'axes': {'dims[16].npus': [1]}", "axes.dims[16].npus", NULL);
    /* a dim that does not exist */
    BAD("'axes': {'dims[5].npus': [2]}", "dims[5].npus", "5");
    BAD("'axes': {'dims': ['0,5']}", "dims", "5");
    /* empty axis */
    BAD("'axes': {'chunks': []}", "axes.chunks", NULL);
    BAD("'axes': {'dims[1].bw_GBps': []}", "axes.dims[1].bw_GBps", NULL);
    /* type mismatches */
    BAD("'axes': {'dims[0].npus': ['four']}", "axes.dims[0].npus", "four");
    BAD("'axes': {'dims[0].npus': 'four'}", "axes.dims[0].npus", "four");
    BAD("'axes': {'chunks': 4}", "axes.chunks", NULL);
    BAD("'axes': {'dims[0].bw_GBps': [true]}", "axes.dims[0].bw_GBps", NULL);
    BAD("'axes': {'policy': [1]}", "axes.policy", NULL);
    BAD("'axes': {'policy': ['fastest']}", "axes.policy", "fastest");
    BAD("'axes': {'intra': ['lifo']}", "axes.intra", "lifo");
    BAD("'axes': {'dims[0].topology': ['torus']}", "axes.dims[0].topology", "torus");
    BAD("'axes': {'size': ['64XB']}", "axes.size[0]", NULL);
    BAD("'axes': {'size': [0]}", "axes.size[0]", NULL);
    BAD("'axes': {'chunks': [0]}", "axes.chunks[0]", NULL);
    BAD("'axes': {'chunks': [1000001]}", "axes.chunks[0]", NULL);
    BAD("'axes': {'system': [3]}", "axes.system[0]", NULL);
    BAD("'axes': 'chunks'", "axes", NULL);
    /* points whose system is invalid: ring + direct, crossed or zipped */
    BAD("'axes': {'dims[0].topology': ['ring'], 'dims[0].algorithm': ['direct']}",
        "dims[0].algorithm", "point 0");
    BAD("'axes': {'dims[0].topology': ['fc', 'ring'], 'dims[0].algorithm': ['direct', 'direct']},"
        " 'zip': [['dims[0].topology', 'dims[0].algorithm']]",
        "dims[0].algorithm", "point 1");
    /* the first invalid point in point order: (topology ring, chunks 1) = point 2 */
    BAD("'axes': {'dims[0].topology': ['fc', 'ring'], 'chunks': [1, 2],"
        " 'dims[0].algorithm': ['direct']}",
        "point 2", "dims[0].topology=ring");
    BAD("'axes': {'dims[0].npus': [0]}", "axes.dims[0].npus[0]", NULL);
    BAD("'axes': {'dims[0].npus': [2, -1]}", "axes.dims[0].npus[1]", NULL);
    BAD("'axes': {'dims[1].bw_GBps': [0]}", "dims[1].bw_GBps", "point 0");
    BAD("'axes': {'dims[1].bw_GBps': [10, -1]}", "dims[1].bw_GBps", "point 1");
    BAD("'axes': {'dims[2].efficiency': [1.5]}", "dims[2].efficiency", "point 0");
    BAD("'axes': {'dims[2].latency_ns': [-1]}", "dims[2].latency_ns", "point 0");
    BAD("'axes': {'reduce_GBps': [0]}", "reduce_GBps", NULL);
    BAD("'axes': {'dims[0].npus': [1], 'dims[1].npus': [1], 'dims[2].npus': [1]}", "point 0", NULL);
    /* more than 100,000,000 points: 1000 x 1000 x 101 */
    BAD("'axes': {'chunks': {'from': 1, 'to': 1000, 'step': 1}, 'size': {'from': 1, 'to': 1000,"
        " 'step': 1}, 'dims[0].latency_ns': {'from': 0, 'to': 100, 'step': 1}}",
        "100000000", NULL);
    /* unknown keys */
    BAD("'axes': {'chunks': [1]}, 'outptu': 'x.csv'", "outptu", "did you mean \"output\"");
    BAD("'collective': {'sizes': 1}", "sizes", "size");
    BAD("'collective': {'type': 'broadcast'}", "broadcast", NULL);
    BAD("'policy': 'fastest'", "fastest", NULL);
    /* zip errors */
    BAD("'axes': {'chunks': [1, 2], 'size': [1]}, 'zip': [['chunks', 'size']]", "zip[0]", "size");
    BAD("'axes': {'chunks': [1, 2], 'size': [1, 2]}, 'zip': [['chunks', 'sizes']]", "zip[0]",
        "sizes");
    BAD("'axes': {'chunks': [1, 2], 'size': [1, 2]}, 'zip': [['chunks']]", "zip[0]", NULL);
    BAD("'axes': {'chunks': [1, 2], 'size': [1, 2]}, 'zip': [['chunks', 'size'], ['size',"
        " 'chunks']]",
        "zip[1]", NULL);
    BAD("'axes': {'chunks': [1, 2], 'size': [1, 2]}, 'zip': ['chunks', 'size']", "zip", NULL);
    /* duplicate axis */
    BAD("'axes': {'chunks': [1], 'chunks': [2]}", "chunks", NULL);
#undef BAD
    /* a system axis whose smaller system lacks the dim another axis sets */
    spec_bad("{'axes': {'system': ['cli_3d.json', 'cli_ring4.json'], 'dims[2].npus': [2]}}",
             "dims[2].npus", "point 1");
    spec_bad("{'axes': {'dims': [[0, 0]]}}", "axes.dims[0]", NULL);
    /* missing system files */
    spec_bad("{'system': 'nope.json'}", "nope.json", NULL);
    spec_bad("{'axes': {'system': ['cli_ring4.json', 'nope.json']}}", "axes.system[1]",
             "nope.json");
    spec_bad("{'system': 'cli_broken.json'}", "cli_broken.json", NULL);
    /* broken JSON */
    spec_bad("{'axes': {'chunks': [1, 2]}", "spec.json:", "JSON");
    spec_bad("{'axes': {'chunks': [1, 2,]}}", "spec.json:", "JSON");
    spec_bad("[]", "spec.json", NULL);
    spec_bad("{} {}", "spec.json", NULL);
}
END_TEST

/* A spec must be either rejected up front, naming the point, or computable at every point. */
static void checked_up_front(const char *json, const char *needle) {
    char *text = test_dq(json);
    th_sweep *sw = NULL;
    th_error err = {0};
    int rc = th_sweep_parse(text, strlen(text), "spec.json", data_dir(), &sw, &err);
    if (rc != TH_OK) {
        ck_assert_int_eq(rc, TH_EINPUT);
        ck_assert_msg(strstr(err.msg, needle) != NULL, "spec %s: message '%s' lacks '%s'", text,
                      err.msg, needle);
    } else {
        th_sweep_worker *w = th_sweep_worker_create(sw);
        ck_assert_ptr_nonnull(w);
        th_buf b = {0};
        for (int64_t i = 0; i < th_sweep_points(sw); i++) {
            ck_assert_msg(th_sweep_row(w, i, &b, &err) == TH_OK,
                          "spec %s was accepted, but point %lld fails as it runs: %s", text,
                          (long long)i, err.msg);
        }
        th_buf_free(&b);
        th_sweep_worker_free(w);
        th_sweep_free(sw);
    }
    free(text);
}

START_TEST(astra_points_checked) {
    /* SWEEP.md: "Every point is checked before any work starts". On the ASTRA-sim preset
     * (SPEC §9) the run rejects All-to-All and chunks under one byte, so there the
     * type, chunks and size axes can make a point invalid too. */
    th_sweep *sw = spec_ok("{'system': 'sweep_astra.json', 'collective': {'size': '1MiB'},"
                           " 'axes': {'chunks': [1, 4]}}");
    ck_assert_int_eq(th_sweep_points(sw), 2);
    th_sweep_free(sw);
    checked_up_front("{'system': 'sweep_astra.json', 'collective': {'size': '1MiB', 'chunks': 4},"
                     " 'axes': {'type': ['allreduce', 'alltoall']}}",
                     "point 1");
    /* 4 bytes in 8 chunks: half a byte each */
    checked_up_front("{'system': 'sweep_astra.json', 'collective': {'size': 4},"
                     " 'axes': {'chunks': [1, 8]}}",
                     "point 1");
    checked_up_front("{'system': 'sweep_astra.json', 'collective': {'chunks': 8},"
                     " 'axes': {'size': [1024, 4]}}",
                     "point 1");
}
END_TEST

START_TEST(max_points) {
    /* exactly 10^8 points (1000 x 1000 x 100) is allowed */
    th_sweep *sw = spec_ok("{'system': 'cli_ring4.json', 'axes': {'chunks': {'from': 1, 'to': "
                           "1000, 'step': 1}, 'size': {'from': 1, 'to': 1000, 'step': 1},"
                           " 'dims[0].latency_ns': {'from': 1, 'to': 100, 'step': 1}}}");
    ck_assert_int_eq(th_sweep_points(sw), 100000000);
    ck_assert_str_eq(prefix_of(sw, 99999999), "99999999,1000,1000,100");
    /* point 12345678 = 123 * 10^5 + 456 * 100 + 78 -> (124, 457, 79) */
    ck_assert_str_eq(prefix_of(sw, 12345678), "12345678,124,457,79");
    th_shard sh = {7, 10};
    ck_assert_int_eq(th_shard_points(sw, sh), 10000000);
    th_sweep_free(sw);
}
END_TEST

/* ---- shards and runs ---- */

START_TEST(shard_partition) {
    th_sweep *sw = spec_ok("{'system': 'cli_ring4.json', 'axes': {'chunks': {'from': 1,"
                           " 'to': 10, 'step': 1}}}");
    ck_assert_int_eq(th_sweep_points(sw), 10);
    for (int64_t n = 1; n <= 13; n++) {
        int seen[10] = {0};
        int64_t sum = 0;
        for (int64_t k = 0; k < n; k++) {
            th_shard sh = {k, n};
            int64_t m = th_shard_points(sw, sh);
            /* points k, k+n, ... below 10: ceil((10 - k) / n), 0 when k >= 10 */
            int64_t want = k >= 10 ? 0 : (10 - k + n - 1) / n;
            ck_assert_int_eq(m, want);
            sum += m;
            for (int64_t j = 0; j < m; j++) {
                int64_t p = th_shard_point(sh, j);
                ck_assert(p >= 0 && p < 10);
                ck_assert_int_eq(p % n, k);
                seen[p]++;
            }
        }
        ck_assert_int_eq(sum, 10);
        for (int p = 0; p < 10; p++) {
            ck_assert_msg(seen[p] == 1, "n = %lld: point %d in %d shards", (long long)n, p,
                          seen[p]);
        }
    }
    th_sweep_free(sw);

    th_shard sh;
    th_error err = {0};
    ck_assert_int_eq(th_shard_parse("2/3", &sh, &err), TH_OK);
    ck_assert_int_eq(sh.k, 2);
    ck_assert_int_eq(sh.n, 3);
    ck_assert_int_eq(th_shard_parse("0/1", &sh, &err), TH_OK);
    const char *bad[] = {"3/3", "-1/3", "1/0", "1", "a/b", "1/3x", "", "/3", "1/", "0/-2"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ck_assert_msg(th_shard_parse(bad[i], &sh, &err) == TH_EINPUT, "shard '%s' accepted",
                      bad[i]);
        ck_assert_ptr_nonnull(strstr(err.msg, "--shard"));
    }
}
END_TEST

/* 3 x 3 x 2 x 25 = 450 points on the default system: several blocks of rows. */
static const char *const MID_SPEC =
    "{'name': 'mid', 'collective': {'size': '64MiB'}, 'axes': {'policy': ['baseline', "
    "'themis', 'roundrobin'], 'size': ['1MiB', '64MiB', '1GiB'], 'intra': ['fifo', 'scf'], "
    "'chunks': {'from': 1, 'to': 49, 'step': 2}}}";

static int64_t progress_last, progress_total, progress_calls, progress_back;

static void on_progress(void *ctx, int64_t done, int64_t total) {
    (void)ctx;
    if (done < progress_last) {
        progress_back++;
    }
    progress_last = done;
    progress_total = total;
    progress_calls++;
}

/* A workload sweep whose points share references (baseline and ideal per workload and batch,
 * four points each): every thread count gives the rows computed one by one, with the
 * references computed once per run by whichever thread needs them first. */
START_TEST(workload_threads_identical) {
    th_sweep *sw = spec_ok("{'system': 'wl_2d_ring.json', 'axes': {'workload': "
                           "['wl_two_layer.json', 'wl_hybrid.json'], 'batch': [1, 2, 3], "
                           "'policy': ['themis', 'baseline', 'themis-global'], "
                           "'intra': ['scf', 'fifo']}}");
    ck_assert_int_eq(th_sweep_points(sw), 36);
    char *dir = test_tmp_dir();
    size_t want_len;
    char *rows = rows_by_worker(sw, &want_len);
    const int threads[4] = {1, 2, 3, 8};
    for (int i = 0; i < 4; i++) {
        TEST_DIR_PATH(path, dir, "run.csv");
        ck_assert_int_eq(run_into(sw, threads[i], WHOLE, 0, 0, path), 36);
        size_t len;
        char *got = test_slurp(path, &len);
        ck_assert_msg(len == want_len && memcmp(got, rows, want_len) == 0,
                      "-j %d differs from the rows computed one by one", threads[i]);
        free(got);
    }
    free(rows);
    test_rm_dir(dir);
    th_sweep_free(sw);
}
END_TEST

START_TEST(threads_identical) {
    th_sweep *sw = spec_ok(MID_SPEC);
    ck_assert_int_eq(th_sweep_points(sw), 450);
    char *dir = test_tmp_dir();
    size_t want_len;
    char *rows = rows_by_worker(sw, &want_len);
    char *files[4];
    size_t lens[4];
    const int threads[4] = {1, 2, 3, 8};
    for (int i = 0; i < 4; i++) {
        TEST_DIR_PATH(path, dir, "run.csv");
        ck_assert_int_eq(run_into(sw, threads[i], WHOLE, 0, 0, path), 450);
        files[i] = test_slurp(path, &lens[i]);
        ck_assert_msg(lens[i] == want_len && memcmp(files[i], rows, want_len) == 0,
                      "-j %d differs from the rows computed one by one", threads[i]);
    }
    for (int i = 0; i < 4; i++) {
        free(files[i]);
    }
    /* The rows are points 0..449 in order, each as wide as the header. */
    const char *h = header_of(sw);
    int cols = 1;
    for (const char *p = h; *p; p++) {
        cols += *p == ',';
    }
    const char *line = rows;
    for (int p = 0; p < 450; p++) {
        ck_assert_int_eq(atoi(line), p);
        const char *nl = strchr(line, '\n');
        ck_assert_ptr_nonnull(nl);
        int n = 1;
        for (const char *q = line; q < nl; q++) {
            n += *q == ',';
        }
        ck_assert_int_eq(n, cols);
        line = nl + 1;
    }
    ck_assert(*line == '\0');

    /* A resumed run (start = 300) writes exactly the rest. */
    TEST_DIR_PATH(path, dir, "rest.csv");
    ck_assert_int_eq(run_into(sw, 2, WHOLE, 300, 0, path), 450);
    size_t len;
    char *rest = test_slurp(path, &len);
    size_t off = line_start(rows, 300);
    ck_assert_uint_eq(len, want_len - off);
    ck_assert(memcmp(rest, rows + off, len) == 0);
    free(rest);
    /* start = total: nothing to do */
    ck_assert_int_eq(run_into(sw, 2, WHOLE, 450, 0, path), 450);
    rest = test_slurp(path, &len);
    ck_assert_uint_eq(len, 0);
    free(rest);

    /* A shard holds exactly the lines of its points, from any start. */
    th_shard sh = {1, 3};
    ck_assert_int_eq(th_shard_points(sw, sh), 150);
    ck_assert_int_eq(run_into(sw, 2, sh, 0, 0, path), 150);
    char *part = test_slurp(path, &len);
    const char *pl = part;
    for (int64_t j = 0; j < 150; j++) {
        size_t a = line_start(rows, th_shard_point(sh, j));
        size_t b = line_start(rows, th_shard_point(sh, j) + 1);
        ck_assert_msg(strncmp(pl, rows + a, b - a) == 0, "shard row %lld differs", (long long)j);
        pl += b - a;
    }
    ck_assert(*pl == '\0');
    free(part);
    ck_assert_int_eq(run_into(sw, 1, sh, 140, 0, path), 150);
    part = test_slurp(path, &len);
    ck_assert_int_eq(atoi(part), 1 + 140 * 3);
    free(part);

    /* The progress callback ends at total and never goes back. */
    int fd = open(path, O_WRONLY | O_TRUNC);
    ck_assert_int_ge(fd, 0);
    th_sweep_opts o = {2, WHOLE, 0, fd, NULL, on_progress, NULL};
    int64_t done = -1;
    th_error err = {0};
    ck_assert_int_eq(th_sweep_run(sw, &o, &done, &err), TH_OK);
    close(fd);
    ck_assert_int_eq(done, 450);
    ck_assert_int_gt(progress_calls, 0);
    ck_assert_int_eq(progress_last, 450);
    ck_assert_int_eq(progress_total, 450);
    ck_assert_int_eq(progress_back, 0);

    /* A stop flag raised before the run: nothing is written, done = start. */
    atomic_int stop = 1;
    fd = open(path, O_WRONLY | O_TRUNC);
    th_sweep_opts so = {2, WHOLE, 0, fd, &stop, NULL, NULL};
    ck_assert_int_eq(th_sweep_run(sw, &so, &done, &err), TH_OK);
    close(fd);
    ck_assert_int_eq(done, 0);
    rest = test_slurp(path, &len);
    ck_assert_uint_eq(len, 0);
    free(rest);

    free(rows);
    test_rm_dir(dir);
    th_sweep_free(sw);
}
END_TEST

/* ---- resume ---- */

static void scan_ok(const th_sweep *sw, th_shard sh, const char *path, int64_t rows, off_t keep) {
    int64_t r = -1;
    off_t k = -1;
    th_error err = {0};
    ck_assert_msg(th_sweep_resume_scan(sw, sh, path, &r, &k, &err) == TH_OK, "scan: %s", err.msg);
    ck_assert_int_eq(r, rows);
    ck_assert_int_eq((long long)k, (long long)keep);
}

static void scan_bad(const th_sweep *sw, th_shard sh, const char *path, const char *needle) {
    int64_t r;
    off_t k;
    th_error err = {0};
    ck_assert_int_eq(th_sweep_resume_scan(sw, sh, path, &r, &k, &err), TH_EINPUT);
    ck_assert_msg(strstr(err.msg, needle) != NULL, "scan message '%s' lacks '%s'", err.msg, needle);
}

START_TEST(resume_scan) {
    th_sweep *sw = spec_ok("{'system': 'cli_ring4.json', 'axes': {'chunks': {'from': 1, 'to':"
                           " 50, 'step': 1}, 'policy': ['baseline', 'themis']}}");
    ck_assert_int_eq(th_sweep_points(sw), 100);
    char *dir = test_tmp_dir();
    TEST_DIR_PATH(full, dir, "full.csv");
    run_into(sw, 2, WHOLE, 0, 1, full);
    size_t len;
    char *text = test_slurp(full, &len);
    TEST_DIR_PATH(cut, dir, "cut.csv");
    size_t hlen = line_start(text, 1);

    /* the whole file */
    scan_ok(sw, WHOLE, full, 100, (off_t)len);
    /* cut in the middle of row 37 (line 38): rows 0..36 kept, the partial line dropped */
    size_t r37 = line_start(text, 38), r38 = line_start(text, 39);
    ck_assert_uint_gt(r38 - r37, 4);
    test_spit(cut, text, r37 + 3);
    scan_ok(sw, WHOLE, cut, 37, (off_t)r37);
    /* cut just before row 37's newline */
    test_spit(cut, text, r38 - 1);
    scan_ok(sw, WHOLE, cut, 37, (off_t)r37);
    /* cut at a line boundary */
    test_spit(cut, text, r38);
    scan_ok(sw, WHOLE, cut, 38, (off_t)r38);
    /* only the header; part of the header; nothing */
    test_spit(cut, text, hlen);
    scan_ok(sw, WHOLE, cut, 0, (off_t)hlen);
    test_spit(cut, text, hlen - 5);
    scan_ok(sw, WHOLE, cut, 0, 0);
    test_spit(cut, text, 0);
    scan_ok(sw, WHOLE, cut, 0, 0);

    /* a wrong header */
    char *bad = malloc(len + 1);
    ck_assert_ptr_nonnull(bad);
    memcpy(bad, text, len + 1);
    memcpy(bad, "pxint", 5);
    test_spit(cut, bad, r37 + 3);
    scan_bad(sw, WHOLE, cut, cut);
    /* a header of another spec (another axis) */
    th_sweep *other = spec_ok("{'system': 'cli_ring4.json', 'axes': {'chunks': {'from': 1, 'to':"
                              " 50, 'step': 1}, 'intra': ['fifo', 'scf']}}");
    scan_bad(other, WHOLE, full, "header");
    th_sweep_free(other);
    /* same header, other values: row 37 is chunks 19 + themis here, chunks 38 there */
    other = spec_ok("{'system': 'cli_ring4.json', 'axes': {'chunks': {'from': 2, 'to': 100,"
                    " 'step': 2}, 'policy': ['baseline', 'themis']}}");
    ck_assert_str_eq(header_of(other), header_of(sw));
    test_spit(cut, text, r38);
    scan_bad(other, WHOLE, cut, "point 37");
    th_sweep_free(other);
    /* more rows than the spec has points */
    other = spec_ok("{'system': 'cli_ring4.json', 'axes': {'chunks': {'from': 1, 'to': 10,"
                    " 'step': 1}, 'policy': ['baseline', 'themis']}}");
    scan_bad(other, WHOLE, full, full);
    th_sweep_free(other);
    /* a missing file */
    scan_bad(sw, WHOLE, in_dir(dir, "none.csv"), "none.csv");
    /* a shard file is checked against the shard's points: 100 points, shard 1/3 holds 33 */
    th_shard sh = {1, 3};
    TEST_DIR_PATH(part, dir, "part.csv");
    run_into(sw, 1, sh, 0, 1, part);
    size_t plen;
    char *ptext = test_slurp(part, &plen);
    scan_ok(sw, sh, part, 33, (off_t)plen);
    size_t p10 = line_start(ptext, 11);
    test_spit(cut, ptext, p10 + 2);
    scan_ok(sw, sh, cut, 10, (off_t)p10);
    th_shard sh2 = {2, 3};
    scan_bad(sw, sh2, cut, "not point");
    /* the whole-sweep file is not shard 1/3's */
    test_spit(cut, text, r38);
    scan_bad(sw, sh, cut, cut);
    free(ptext);
    free(bad);
    free(text);
    test_rm_dir(dir);
    th_sweep_free(sw);
}
END_TEST

/* ---- merge ---- */

/* True when dir holds no file whose name contains ".tmp". */
static int no_tmp_left(const char *dir) {
    DIR *d = opendir(dir);
    ck_assert_ptr_nonnull(d);
    struct dirent *e;
    int clean = 1;
    while ((e = readdir(d)) != NULL) {
        if (strstr(e->d_name, ".tmp")) {
            clean = 0;
        }
    }
    closedir(d);
    return clean;
}

static void merge_bad(const char *dir, const char *const *parts, int n, int64_t expect,
                      const char *needle) {
    TEST_DIR_PATH(out, dir, "bad.csv");
    th_error err = {0};
    ck_assert_int_eq(merge_file(out, parts, n, expect, &err), TH_EINPUT);
    ck_assert_msg(strstr(err.msg, needle) != NULL, "merge message '%s' lacks '%s'", err.msg,
                  needle);
    ck_assert_msg(!test_exists(out), "a failed merge created %s", out);
    ck_assert_msg(no_tmp_left(dir), "a failed merge left a temporary file");
}

START_TEST(merge) {
    th_sweep *sw = spec_ok(MID_SPEC);
    char *dir = test_tmp_dir();
    TEST_DIR_PATH(full, dir, "full.csv");
    run_into(sw, 2, WHOLE, 0, 1, full);
    size_t len;
    char *text = test_slurp(full, &len);
    char names[3][4200];
    for (int k = 0; k < 3; k++) {
        char name[32];
        snprintf(name, sizeof name, "part%d.csv", k);
        snprintf(names[k], sizeof names[k], "%s", in_dir(dir, name));
        th_shard sh = {k, 3};
        ck_assert_int_eq(run_into(sw, 1, sh, 0, 1, names[k]), 150);
    }
    const char *parts[3] = {names[0], names[1], names[2]};
    const char *shuffled[3] = {names[2], names[0], names[1]};
    th_error err = {0};
    /* a good merge equals the single run, in any order of the parts, with or without expect */
    TEST_DIR_PATH(out, dir, "all.csv");
    ck_assert_msg(merge_file(out, parts, 3, 450, &err) == TH_OK, "merge: %s", err.msg);
    size_t mlen;
    char *merged = test_slurp(out, &mlen);
    ck_assert_uint_eq(mlen, len);
    ck_assert(memcmp(merged, text, len) == 0);
    free(merged);
    unlink(out);
    ck_assert_msg(merge_file(out, shuffled, 3, -1, &err) == TH_OK, "merge: %s", err.msg);
    merged = test_slurp(out, &mlen);
    ck_assert(mlen == len && memcmp(merged, text, len) == 0);
    free(merged);
    unlink(out);
    /* one part = the whole file */
    const char *one[1] = {full};
    ck_assert_msg(merge_file(out, one, 1, 450, &err) == TH_OK, "merge: %s", err.msg);
    merged = test_slurp(out, &mlen);
    ck_assert(mlen == len && memcmp(merged, text, len) == 0);
    free(merged);
    unlink(out);
    ck_assert(no_tmp_left(dir));

    /* overlap: part 0 again under another name; and the whole file with a part */
    TEST_DIR_PATH(copy, dir, "copy0.csv");
    char *p0 = test_slurp(names[0], &mlen);
    test_spit(copy, p0, mlen);
    const char *overlap[4] = {names[0], names[1], names[2], copy};
    merge_bad(dir, overlap, 4, -1, "point 0");
    const char *overlap2[2] = {full, names[1]};
    merge_bad(dir, overlap2, 2, -1, "point 1");
    const char *twice[2] = {names[0], names[0]};
    merge_bad(dir, twice, 2, -1, "twice");
    /* gap: part 1 missing */
    const char *gap[2] = {names[0], names[2]};
    merge_bad(dir, gap, 2, -1, "point 1");
    merge_bad(dir, gap, 2, 450, "point 1");
    /* header mismatch */
    TEST_DIR_PATH(odd, dir, "odd.csv");
    char *p1 = test_slurp(names[1], &mlen);
    char *nl = strchr(p1, '\n');
    ck_assert_ptr_nonnull(nl);
    nl[-1] = 'z'; /* "npus" -> "npuz" */
    test_spit(odd, p1, mlen);
    const char *hdr[3] = {names[0], odd, names[2]};
    merge_bad(dir, hdr, 3, -1, "header");
    free(p1);
    /* incomplete last row (an interrupted shard) */
    TEST_DIR_PATH(cutp, dir, "cut2.csv");
    char *p2 = test_slurp(names[2], &mlen);
    test_spit(cutp, p2, mlen - 3);
    const char *inc[3] = {names[0], names[1], cutp};
    merge_bad(dir, inc, 3, -1, "incomplete");
    /* expect mismatch: the last point (449 = 2 mod 3) dropped from part 2 */
    size_t last = line_start(p2, 150);
    test_spit(cutp, p2, last);
    const char *tail[3] = {names[0], names[1], cutp};
    merge_bad(dir, tail, 3, 450, "450");
    /* ... which without expect is a valid merge of points 0..448 */
    ck_assert_int_eq(merge_file(out, tail, 3, -1, &err), TH_OK);
    merged = test_slurp(out, &mlen);
    ck_assert_uint_eq(mlen, line_start(text, 450));
    free(merged);
    unlink(out);
    /* Rows out of order inside a part: with disjoint parts a swap shows as a gap, so
     * repeat a row instead (points 0, 3, 3, 6, ...). */
    size_t b = line_start(p0, 2), c = line_start(p0, 3);
    char *twice_row = malloc(strlen(p0) + (c - b) + 1);
    ck_assert_ptr_nonnull(twice_row);
    memcpy(twice_row, p0, c);
    memcpy(twice_row + c, p0 + b, c - b);
    strcpy(twice_row + c + (c - b), p0 + c);
    test_spit(copy, twice_row, strlen(twice_row));
    const char *order[3] = {copy, names[1], names[2]};
    merge_bad(dir, order, 3, -1, copy);
    merge_bad(dir, order, 3, -1, "point 3");
    /* not a sweep CSV; a missing part */
    test_spit(odd, "hello\n", 6);
    const char *junk[2] = {names[0], odd};
    merge_bad(dir, junk, 2, -1, odd);
    const char *missing[2] = {names[0], in_dir(dir, "none.csv")};
    merge_bad(dir, missing, 2, -1, "none.csv");
    /* a shard with no point (2 points, 3 shards): its file is the header alone */
    th_sweep *two = spec_ok("{'system': 'cli_ring4.json', 'axes': {'chunks': [1, 2]}}");
    char tn[3][4200];
    for (int k = 0; k < 3; k++) {
        snprintf(tn[k], sizeof tn[k], "%s/two%d.csv", dir, k);
        th_shard sh = {k, 3};
        ck_assert_int_eq(run_into(two, 1, sh, 0, 1, tn[k]), k < 2 ? 1 : 0);
    }
    char *h2 = test_slurp(tn[2], NULL);
    ck_assert_str_eq(h2, header_of(two));
    free(h2);
    TEST_DIR_PATH(two_all, dir, "two_all.csv");
    TEST_DIR_PATH(two_ref, dir, "two_ref.csv");
    run_into(two, 1, WHOLE, 0, 1, two_ref);
    ck_assert_int_eq(merge_file(two_all, (const char *const[]){tn[0], tn[1], tn[2]}, 3, 2, &err),
                     TH_OK);
    char *x = test_slurp(two_all, NULL), *y = test_slurp(two_ref, NULL);
    ck_assert_str_eq(x, y);
    free(x);
    free(y);
    th_sweep_free(two);
    /* no parts */
    ck_assert_int_eq(merge_file(out, parts, 0, -1, &err), TH_EINPUT);
    ck_assert(!test_exists(out));
    free(twice_row);
    free(p0);
    free(p2);
    free(text);
    test_rm_dir(dir);
    th_sweep_free(sw);
}
END_TEST

/* Workload sweeps replay training at every point: the two-layer workload of test_train.c on
 * one ring of 4, baseline+fifo, priority lifo then fifo: 49620 and 50620 ns per iteration,
 * compute 6800 ns; the ideal network 49500 ns under lifo (hand-traced there). */
START_TEST(workload_rows) {
    th_sweep *sw = spec_ok("{'system': 'cli_ring4.json', 'workload': 'wl_two_layer.json', "
                           "'policy': 'baseline', 'intra': 'fifo', "
                           "'axes': {'priority': ['lifo', 'fifo']}}");
    ck_assert_str_eq(header_of(sw), "point,priority,iteration_us,compute_us,exposed_comm_us,"
                                    "speedup,ideal_speedup,speedup_vs_ideal,npus\n");
    row_t r;
    row_get(sw, 0, &r);
    ck_assert_str_eq(r.f[1], "lifo");
    ck_assert_rel(fnum(&r, 2), 49.62);
    ck_assert_rel(fnum(&r, 3), 6.8);
    ck_assert_rel(fnum(&r, 4), 42.82);
    ck_assert_rel(fnum(&r, 5), 1);
    ck_assert_rel(fnum(&r, 6), 49620.0 / 49500.0);
    ck_assert_rel(fnum(&r, 7), 49500.0 / 49620.0);
    ck_assert_rel(fnum(&r, 8), 4);
    free(r.text);
    row_get(sw, 1, &r);
    ck_assert_str_eq(r.f[1], "fifo");
    ck_assert_rel(fnum(&r, 2), 50.62);
    free(r.text);
    th_sweep_free(sw);
    /* A workload axis with themis-global among the policies. */
    sw = spec_ok("{'system': 'wl_2d_ring.json', 'axes': {'workload': ['wl_two_layer.json', "
                 "'wl_hybrid.json'], 'policy': ['baseline', 'themis-global'], 'batch': [1, 2]}}");
    ck_assert_int_eq(th_sweep_points(sw), 8);
    /* The workload varies slowest: point 4 = (wl_hybrid, baseline, batch 1), whose period is
     * 21120 ns (test_train.c hybrid_blocking); point 5 = batch 2: 30120 ns (batch_scaling). */
    row_get(sw, 4, &r);
    ck_assert_str_eq(r.f[1], "hybrid-two"); /* the workload's name, then its file */
    ck_assert_str_eq(r.f[2], "wl_hybrid.json");
    ck_assert_rel(fnum(&r, 5), 21.12);
    free(r.text);
    row_get(sw, 5, &r);
    ck_assert_rel(fnum(&r, 5), 30.12);
    free(r.text);
    th_sweep_free(sw);
    spec_bad("{'workload': 'wl_two_layer.json', 'axes': {'size': [1, 2]}}", "axes.size",
             "workload sweep");
    spec_bad("{'axes': {'priority': ['fifo']}}", "axes.priority", "only for workload sweeps");
    spec_bad("{'axes': {'policy': ['themis-global']}}", "themis-global", NULL);
    spec_bad("{'workload': 'wl_two_layer.json', 'collective': {'type': 'allreduce'}}", "collective",
             NULL);
    spec_bad("{'system': 'cli_ring4.json', 'workload': 'wl_hybrid.json'}", "point 0", "mp_dims");
    /* Bucket and chunking axes add the collectives column: wl_bucket.json unbucketed issues 4
     * All-Reduces; in 2 MB buckets 3, an iteration of 74180 ns (test_train.c ddp_buckets). */
    sw = spec_ok("{'system': 'cli_ring4.json', 'workload': 'wl_bucket.json', 'policy': "
                 "'baseline', 'intra': 'fifo', 'axes': {'bucket': [0, '2MB'], 'chunking': "
                 "['capped', 'astra']}}");
    ck_assert_str_eq(header_of(sw), "point,bucket,chunking,iteration_us,compute_us,"
                                    "exposed_comm_us,speedup,ideal_speedup,speedup_vs_ideal,"
                                    "collectives,npus\n");
    row_get(sw, 0, &r);
    ck_assert_str_eq(r.f[1], "0");
    ck_assert_str_eq(r.f[9], "4");
    free(r.text);
    row_get(sw, 2, &r);
    ck_assert_str_eq(r.f[1], "2000000");
    ck_assert_rel(fnum(&r, 3), 74.18);
    ck_assert_str_eq(r.f[9], "3");
    free(r.text);
    th_sweep_free(sw);
    /* the keys: "bucket": true is 25 MiB (wl_bucket: {l3, l2} in the 1 MiB first bucket,
     * then {l1, l0}: 2 collectives) */
    sw = spec_ok("{'system': 'cli_ring4.json', 'workload': 'wl_bucket.json', 'bucket': true, "
                 "'chunking': 'astra', 'policy': 'baseline', 'intra': 'fifo'}");
    row_get(sw, 0, &r);
    ck_assert_str_eq(r.f[7], "2");
    free(r.text);
    th_sweep_free(sw);
    /* "ideal_latency": the ideal network with latency floors, 49560 ns on wl_two_layer
     * (test_train.c ideal_latency_floor); baseline + fifo 49620 */
    sw = spec_ok("{'system': 'cli_ring4.json', 'workload': 'wl_two_layer.json', 'policy': "
                 "'baseline', 'intra': 'fifo', 'ideal_latency': true}");
    ck_assert_str_eq(header_of(sw), "point,iteration_us,compute_us,exposed_comm_us,speedup,"
                                    "ideal_speedup,speedup_vs_ideal,ideal_lat_speedup,"
                                    "speedup_vs_ideal_lat,npus\n");
    row_get(sw, 0, &r);
    ck_assert_rel(fnum(&r, 7), 49620.0 / 49560.0);
    ck_assert_rel(fnum(&r, 8), 49560.0 / 49620.0);
    free(r.text);
    th_sweep_free(sw);
    /* collective sweeps: ideal_lat_us and vs_ideal_lat; one chunk of 1e6 on cli_ring4: ideal
     * 15000 ns + 2 * 10 * 3 = 15060 ns, the time itself (test_cli.c ideal_lat_column) */
    sw = spec_ok("{'system': 'cli_ring4.json', 'collective': {'size': 1e6, 'chunks': 1}, "
                 "'ideal_latency': true}");
    ck_assert_str_eq(header_of(sw), "point,time_us,ideal_us,bw_util,speedup,algbw_GBps,"
                                    "busbw_GBps,ideal_lat_us,vs_ideal_lat,dim0_bw_util,"
                                    "dim0_busy_us,npus\n");
    row_get(sw, 0, &r);
    ck_assert_rel(fnum(&r, 7), 15.06);
    ck_assert_rel(fnum(&r, 8), 1.0);
    free(r.text);
    th_sweep_free(sw);
    spec_bad("{'system': 'astra_2d.json', 'ideal_latency': true}", "ideal_latency",
             "astra-sim preset");
    spec_bad("{'workload': 'wl_two_layer.json', 'ideal_latency': 1}", "ideal_latency",
             "true or false");
    spec_bad("{'axes': {'bucket': [0, '1MB']}}", "axes.bucket", "only for workload sweeps");
    spec_bad("{'bucket': '1MB'}", "bucket", "only for workload sweeps");
    spec_bad("{'chunking': 'astra'}", "chunking", "only for workload sweeps");
    spec_bad("{'workload': 'wl_bucket.json', 'chunking': 'ring'}", "chunking", "ring");
    spec_bad("{'workload': 'wl_bucket.json', 'bucket': -3}", "bucket", NULL);
    spec_bad("{'workload': 'wl_bucket.json', 'axes': {'bucket': [-3]}}", "axes.bucket[0]", NULL);
    spec_bad("{'workload': 'no_such_workload.json'}", "workload", "cannot open");
    /* a batch past themis train's 1e9 (4.4e22 is also past 2^63: no integer conversion) */
    spec_bad("{'system': 'cli_ring4.json', 'workload': 'wl_two_layer.json', 'axes': {'batch': "
             "[4, 4.4e22]}}",
             "axes.batch[1]", "4.4e+22");
    spec_bad("{'system': 'cli_ring4.json', 'workload': 'wl_two_layer.json', 'axes': {'batch': "
             "{'from': 1e8, 'to': 1e10, 'times': 10}}}",
             "axes.batch[2]", "10000000000");
}
END_TEST

/* A point that fails leaves the buffer as it was: the rows before it, NUL-terminated (b.p is a
 * string of b.len bytes), no part of the failing row. Batch 1 scales wl_ns_big.json's 1e21 ns
 * forward, given at batch 1e-300, by 1e300: past DBL_MAX, so point 1 fails. */
START_TEST(failing_row_appends_nothing) {
    th_sweep *sw =
        spec_ok("{'system': 'cli_ring4.json', 'workload': 'wl_ns_big.json', "
                "'policy': 'baseline', 'intra': 'fifo', 'axes': {'batch': [1e-300, 1]}}");
    th_sweep_worker *w = th_sweep_worker_create(sw);
    ck_assert_ptr_nonnull(w);
    th_buf b = {0};
    th_error err = {0};
    ck_assert_msg(th_sweep_row(w, 0, &b, &err) == TH_OK, "%s", err.msg);
    size_t len = b.len;
    ck_assert_int_eq(th_sweep_row(w, 1, &b, &err), TH_EINPUT);
    ck_assert_uint_eq(b.len, len);
    ck_assert_uint_eq(strlen(b.p), len);
    ck_assert_msg(strncmp(b.p, "0,", 2) == 0 && b.p[len - 1] == '\n', "%s", b.p);
    th_buf_free(&b);
    th_sweep_worker_free(w);
    th_sweep_free(sw);
}
END_TEST

Suite *sweep_suite(void) {
    Suite *s = suite_create("sweep");
    TCase *tc = tcase_create("spec");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, point_count);
    tcase_add_test(tc, point_order);
    tcase_add_test(tc, ranges);
    tcase_add_test(tc, range_errors);
    tcase_add_test(tc, header_text);
    tcase_add_test(tc, bad_specs);
    tcase_add_test(tc, max_points);
    tcase_add_test(tc, astra_points_checked);
    suite_add_tcase(s, tc);
    tc = tcase_create("rows");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, ring4_rows);
    tcase_add_test(tc, reduce_axis_rows);
    tcase_add_test(tc, workload_rows);
    tcase_add_test(tc, speedup_reference);
    tcase_add_test(tc, system_axis_row);
    tcase_add_test(tc, csv_quoting);
    tcase_add_test(tc, system_axis_columns);
    suite_add_tcase(s, tc);
    tc = tcase_create("run");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, shard_partition);
    tcase_add_test(tc, threads_identical);
    tcase_add_test(tc, workload_threads_identical);
    tcase_add_test(tc, resume_scan);
    tcase_add_test(tc, merge);
    tcase_add_test(tc, failing_row_appends_nothing);
    suite_add_tcase(s, tc);
    return s;
}

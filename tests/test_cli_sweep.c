/* Check suite for `themis sweep` and `themis merge` run as a user would. */
#define _XOPEN_SOURCE 700 /* realpath */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check_themis.h"

/* ---- running the binary ---- */

/* One finished command: exit status (-1 when it did not exit normally) and its output. */
typedef struct cli_out {
    int status;
    char *out; /* stdout, NUL-terminated */
    size_t out_len;
    char *err; /* stderr, NUL-terminated */
    size_t err_len;
} cli_out;

/* The binary as an absolute path, so commands may change folder first. */
static const char *cli_bin(void) {
    static char abs[PATH_MAX];
    const char *b = getenv("THEMIS_BIN");
    b = b && *b ? b : "build/themis";
    if (!abs[0] && !realpath(b, abs)) {
        snprintf(abs, sizeof abs, "%s", b);
    }
    return abs;
}

/* Absolute path of a tests/data file; four rotating buffers. */
static const char *dpath(const char *name) {
    static char bufs[4][PATH_MAX];
    static int next;
    char *b = bufs[next];
    next = (next + 1) % 4;
    if (!realpath(test_data(name), b)) {
        snprintf(b, PATH_MAX, "%s", test_data(name));
    }
    return b;
}

static char *tmp_dir(void) {
    const char *t = getenv("TMPDIR");
    char buf[4096];
    snprintf(buf, sizeof buf, "%s/themis-clisweep-XXXXXX", t && *t ? t : "/tmp");
    ck_assert_ptr_nonnull(mkdtemp(buf));
    char *d = malloc(strlen(buf) + 1);
    ck_assert_ptr_nonnull(d);
    strcpy(d, buf);
    return d;
}

static void rm_dir(char *dir) {
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
    free(dir);
}

/* Declares char var[] = dir/name. */
#define DIR_PATH(var, dir, name)                                                                   \
    char var[4200];                                                                                \
    snprintf(var, sizeof var, "%s/%s", dir, name)

/* Reads a whole file into a NUL-terminated buffer; NULL when it cannot be opened. */
static char *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        return NULL;
    }
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

static char *must_slurp(const char *path, size_t *len) {
    char *s = slurp(path, len);
    ck_assert_msg(s != NULL, "cannot read %s", path);
    return s;
}

static void spit(const char *path, const char *data, size_t len) {
    FILE *f = fopen(path, "wb");
    ck_assert_msg(f != NULL, "cannot create %s", path);
    ck_assert_uint_eq(fwrite(data, 1, len, f), len);
    ck_assert_int_eq(fclose(f), 0);
}

static int exists(const char *path) {
    return access(path, F_OK) == 0;
}

/* Asserts two files hold the same bytes. */
static void same_file(const char *a, const char *b) {
    size_t la, lb;
    char *x = must_slurp(a, &la), *y = must_slurp(b, &lb);
    size_t i = 0;
    while (i < la && i < lb && x[i] == y[i]) {
        i++;
    }
    ck_assert_msg(la == lb && i == la, "%s (%zu bytes) and %s (%zu bytes) differ at byte %zu", a,
                  la, b, lb, i);
    free(x);
    free(y);
}

/* Runs `cd DIR && themis ARGS` (DIR may be NULL: the current folder); ARGS is a shell
 * fragment. */
static void cli_in(cli_out *r, const char *dir, const char *fmt, ...) {
    char args[8192], cmd[32768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    char *tmp = tmp_dir();
    DIR_PATH(o, tmp, "stdout");
    DIR_PATH(e, tmp, "stderr");
    if (dir) {
        snprintf(cmd, sizeof cmd, "cd '%s' && '%s' %s >'%s' 2>'%s' </dev/null", dir, cli_bin(),
                 args, o, e);
    } else {
        snprintf(cmd, sizeof cmd, "'%s' %s >'%s' 2>'%s' </dev/null", cli_bin(), args, o, e);
    }
    int st = system(cmd);
    r->status = (st != -1 && WIFEXITED(st)) ? WEXITSTATUS(st) : -1;
    r->out = must_slurp(o, &r->out_len);
    r->err = must_slurp(e, &r->err_len);
    rm_dir(tmp);
}

#define cli(r, ...) cli_in(r, NULL, __VA_ARGS__)

static void cli_free(cli_out *r) {
    free(r->out);
    free(r->err);
}

/* Success, and nothing on stderr (it is not a terminal: no progress bar). */
static void expect_ok(const cli_out *r, const char *what) {
    ck_assert_msg(r->status == 0, "%s: exit %d, stderr: %s", what, r->status, r->err);
    ck_assert_msg(r->err_len == 0, "%s: stderr not empty: '%s'", what, r->err);
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

/* Runs ARGS, expects the bad-input behaviour; the message holds `needle` (unless NULL). */
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

/* Writes a spec (' stands for ") into dir/name. */
static void write_spec(const char *path, const char *json) {
    size_t n = strlen(json);
    char *s = malloc(n + 1);
    ck_assert_ptr_nonnull(s);
    for (size_t i = 0; i <= n; i++) {
        s[i] = json[i] == '\'' ? '"' : json[i];
    }
    spit(path, s, n);
    free(s);
}

/* ---- a CSV reader (sweep rows need no quoting) ---- */

typedef struct csv_t {
    char *buf;
    int ncols, nrows;
    char **head;
    char ***cell; /* nrows x ncols */
} csv_t;

static int split(char *line, char **f, int max) {
    int n = 0;
    f[n++] = line;
    for (char *p = line; *p; p++) {
        if (*p == ',') {
            *p = '\0';
            ck_assert_int_lt(n, max);
            f[n++] = p + 1;
        }
    }
    return n;
}

static void csv_read(csv_t *c, const char *path) {
    size_t len;
    c->buf = must_slurp(path, &len);
    ck_assert_msg(len > 0 && c->buf[len - 1] == '\n', "%s does not end in a newline", path);
    int lines = 0;
    for (size_t i = 0; i < len; i++) {
        lines += c->buf[i] == '\n';
    }
    c->nrows = lines - 1;
    c->head = calloc(64, sizeof *c->head);
    c->cell = calloc((size_t)(lines + 1), sizeof *c->cell);
    ck_assert(c->head && c->cell);
    char *line = c->buf;
    for (int i = 0; i < lines; i++) {
        char *nl = strchr(line, '\n');
        *nl = '\0';
        if (i == 0) {
            c->ncols = split(line, c->head, 64);
        } else {
            c->cell[i - 1] = calloc(64, sizeof(char *));
            ck_assert_ptr_nonnull(c->cell[i - 1]);
            int n = split(line, c->cell[i - 1], 64);
            ck_assert_msg(n == c->ncols, "%s row %d has %d fields, header %d", path, i, n,
                          c->ncols);
        }
        line = nl + 1;
    }
}

static void csv_free(csv_t *c) {
    for (int i = 0; i < c->nrows; i++) {
        free(c->cell[i]);
    }
    free(c->cell);
    free(c->head);
    free(c->buf);
}

static int col(const csv_t *c, const char *name) {
    for (int i = 0; i < c->ncols; i++) {
        if (strcmp(c->head[i], name) == 0) {
            return i;
        }
    }
    ck_abort_msg("CSV has no column %s", name);
    return -1;
}

static const char *cs(const csv_t *c, int row, const char *name) {
    ck_assert_int_lt(row, c->nrows);
    return c->cell[row][col(c, name)];
}

static double cd(const csv_t *c, int row, const char *name) {
    const char *s = cs(c, row, name);
    char *end;
    double v = strtod(s, &end);
    ck_assert_msg(*s && *end == '\0', "column %s row %d is not a number: '%s'", name, row, s);
    return v;
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
    cli_out r;
    cli(&r, "sweep '%s' -o '%s' %s", dpath("sweep_default.json"), path, jobs);
    expect_ok(&r, "sweep sweep_default.json");
    ck_assert_uint_eq(r.out_len, 0);
    cli_free(&r);
}

START_TEST(help) {
    const char *forms[] = {"sweep --help", "sweep -h"};
    for (int i = 0; i < 2; i++) {
        cli_out r;
        cli(&r, "%s", forms[i]);
        expect_ok(&r, forms[i]);
        ck_assert_msg(strstr(r.out, "usage: themis sweep") != NULL, "%s: %s", forms[i], r.out);
        const char *opts[] = {"--output", "--jobs",    "--shard", "--resume",
                              "--force",  "--dry-run", "--quiet", "xample"};
        for (size_t k = 0; k < sizeof opts / sizeof opts[0]; k++) {
            ck_assert_msg(strstr(r.out, opts[k]) != NULL, "%s lacks %s", forms[i], opts[k]);
        }
        cli_free(&r);
    }
    const char *mforms[] = {"merge --help", "merge -h"};
    for (int i = 0; i < 2; i++) {
        cli_out r;
        cli(&r, "%s", mforms[i]);
        expect_ok(&r, mforms[i]);
        ck_assert_msg(strstr(r.out, "usage: themis merge") != NULL, "%s: %s", mforms[i], r.out);
        ck_assert_msg(strstr(r.out, "--spec") != NULL, "%s lacks --spec", mforms[i]);
        ck_assert_msg(strstr(r.out, "--force") != NULL, "%s lacks --force", mforms[i]);
        cli_free(&r);
    }
    /* the global help names both commands */
    cli_out r;
    cli(&r, "--help");
    expect_ok(&r, "--help");
    ck_assert_ptr_nonnull(strstr(r.out, "sweep"));
    ck_assert_ptr_nonnull(strstr(r.out, "merge"));
    cli_free(&r);
}
END_TEST

START_TEST(dry_run) {
    char *dir = tmp_dir();
    cli_out r;
    /* run from an empty folder: nothing is written anywhere */
    cli_in(&r, dir, "sweep '%s' --dry-run", dpath("sweep_default.json"));
    expect_ok(&r, "--dry-run");
    /* 9 chunks x 2 policies x 2 intras x 3 sizes = 108 points; the first five, then "..." */
    ck_assert_str_eq(r.out, "sweep-default: 108 points\n"
                            "point,chunks,policy,intra,size\n"
                            "0,1,baseline,fifo,1048576\n"
                            "1,1,baseline,fifo,67108864\n"
                            "2,1,baseline,fifo,1073741824\n"
                            "3,1,baseline,scf,1048576\n"
                            "4,1,baseline,scf,67108864\n"
                            "...\n");
    cli_free(&r);
    /* a shard: 108 points, shard 2/5 holds 2, 7, 12, ... 107: 22 points. Point
     * ((c * 2 + p) * 2 + i) * 3 + s: 2 = (1, baseline, fifo, 1GiB), 7 = 2 * 3 + 1 =
     * (1, themis, fifo, 64MiB). */
    cli(&r, "sweep '%s' --dry-run --shard 2/5", dpath("sweep_default.json"));
    expect_ok(&r, "--dry-run --shard 2/5");
    ck_assert_msg(strstr(r.out, "108 points") != NULL, "%s", r.out);
    ck_assert_msg(strstr(r.out, "22") != NULL, "%s", r.out);
    ck_assert_msg(strstr(r.out, "\n2,1,baseline,fifo,1073741824\n7,1,themis,fifo,67108864\n") !=
                      NULL,
                  "shard rows: %s", r.out);
    cli_free(&r);
    /* few points: no "..." */
    cli(&r, "sweep '%s' --dry-run", dpath("sweep_ring4.json"));
    expect_ok(&r, "--dry-run ring4");
    ck_assert_str_eq(r.out, "sweep-ring4: 4 points\n"
                            "point,dims[0].bw_GBps,type\n"
                            "0,100,allreduce\n"
                            "1,100,reducescatter\n"
                            "2,50,allreduce\n"
                            "3,50,reducescatter\n");
    cli_free(&r);
    /* the big spec: 3 x 25000 x 2 x 2 */
    cli(&r, "sweep '%s' --dry-run", dpath("sweep_big.json"));
    expect_ok(&r, "--dry-run big");
    ck_assert_msg(strncmp(r.out, "sweep-big: 300000 points\n", 25) == 0, "%s", r.out);
    cli_free(&r);
    /* nothing was created in the folder */
    cli(&r, "sweep '%s' --dry-run -o '%s/x.csv'", dpath("sweep_ring4.json"), dir);
    expect_ok(&r, "--dry-run -o");
    cli_free(&r);
    DIR_PATH(x, dir, "x.csv");
    ck_assert(!exists(x));
    rm_dir(dir);
}
END_TEST

START_TEST(done_when_csv) {
    char *dir = tmp_dir();
    DIR_PATH(a, dir, "j1.csv");
    DIR_PATH(b, dir, "j2.csv");
    DIR_PATH(c, dir, "jd.csv");
    default_run(a, "-j 1");
    default_run(b, "-j 2");
    default_run(c, "--quiet"); /* default -j: all cores */
    same_file(a, b);
    same_file(a, c);

    size_t len;
    char *text = must_slurp(a, &len);
    ck_assert_msg(strncmp(text, DEFAULT_HEADER, strlen(DEFAULT_HEADER)) == 0, "header: %.300s",
                  text);
    free(text);
    csv_t t;
    csv_read(&t, a);
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
                    ck_assert_str_eq(cs(&t, p, "point"), pt);
                    ck_assert_int_eq((int)cd(&t, p, "chunks"), 1 << ci);
                    ck_assert_str_eq(cs(&t, p, "policy"), POLICY[pi]);
                    ck_assert_str_eq(cs(&t, p, "intra"), INTRA[ii]);
                    ck_assert_rel(cd(&t, p, "size"), S);
                    ck_assert_str_eq(cs(&t, p, "npus"), "512");
                    double tu = cd(&t, p, "time_us");
                    /* ideal = 2 S (1 - 1/512) / (250 + 200 + 50) ns */
                    double ideal = 2 * S * 511 / 512 / 500 / 1000;
                    ck_assert_rel(cd(&t, p, "ideal_us"), ideal);
                    ck_assert(tu >= ideal * (1 - 1e-12));
                    ck_assert_rel(cd(&t, p, "bw_util"), ideal / tu);
                    ck_assert_rel(cd(&t, p, "speedup"), cd(&t, ref, "time_us") / tu);
                    ck_assert_rel(cd(&t, p, "algbw_GBps"), S / (tu * 1000));
                    ck_assert_rel(cd(&t, p, "busbw_GBps"), S / (tu * 1000) * 2 * 511 / 512);
                    /* every order moves 2 S (1 - 1/512) bytes: sum of util_K B_K time */
                    double bytes = 0;
                    for (int k = 0; k < 3; k++) {
                        char name[32];
                        snprintf(name, sizeof name, "dim%d_bw_util", k);
                        bytes += cd(&t, p, name) * B[k] * tu * 1000;
                        snprintf(name, sizeof name, "dim%d_busy_us", k);
                        ck_assert(cd(&t, p, name) <= tu * (1 + 1e-12));
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
                        ck_assert_rel(cd(&t, p, "dim0_busy_us"), busy[0] / 1000);
                        ck_assert_rel(cd(&t, p, "dim1_busy_us"), busy[1] / 1000);
                        ck_assert_rel(cd(&t, p, "dim2_busy_us"), busy[2] / 1000);
                        ck_assert_rel(cd(&t, p, "dim0_bw_util"), by[0] / (B[0] * tu * 1000));
                        ck_assert_rel(cd(&t, p, "dim1_bw_util"), by[1] / (B[1] * tu * 1000));
                        ck_assert_rel(cd(&t, p, "dim2_bw_util"), by[2] / (B[2] * tu * 1000));
                    }
                    if (pi == 0 && ii == 0) {
                        ck_assert_str_eq(cs(&t, p, "speedup"), "1");
                    }
                    if (ci == 0) {
                        /* One chunk: every policy keeps the baseline order; the stages run
                         * one after another: 2 (RS0 + RS1 + RS2). S = 1 MiB: RS0 = 60 +
                         * 3145.728, RS1 = 100 + 1146.88, RS2 = 8000 + 614.4; total
                         * 2 x 13067.008 = 26134.016 ns. */
                        double rs =
                            60 + S * 3 / 1000 + 100 + S / 4 * 7 / 1600 + 8000 + S / 32 * 15 / 800;
                        ck_assert_rel(tu, 2 * rs / 1000);
                        ck_assert_rel(cd(&t, p, "speedup"), 1.0);
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
    csv_free(&t);
    rm_dir(dir);
}
END_TEST

START_TEST(stdout_output) {
    char *dir = tmp_dir();
    DIR_PATH(a, dir, "ref.csv");
    default_run(a, "-j 2");
    size_t len;
    char *want = must_slurp(a, &len);
    cli_out r;
    cli(&r, "sweep '%s' -o - -j 2", dpath("sweep_default.json"));
    expect_ok(&r, "-o -");
    ck_assert_uint_eq(r.out_len, len);
    ck_assert(memcmp(r.out, want, len) == 0);
    cli_free(&r);
    /* --output - and --quiet: the same */
    cli(&r, "sweep '%s' --output - --quiet", dpath("sweep_default.json"));
    expect_ok(&r, "--output - --quiet");
    ck_assert(r.out_len == len && memcmp(r.out, want, len) == 0);
    cli_free(&r);
    /* --resume needs a file */
    bad(NULL, "sweep '%s' -o - --resume", dpath("sweep_default.json"));
    free(want);
    /* the ring4 spec: 4 hand-computed rows (15.06, 7.53, 30.06, 15.03 us) */
    cli(&r, "sweep '%s' -o -", dpath("sweep_ring4.json"));
    expect_ok(&r, "ring4 -o -");
    DIR_PATH(rp, dir, "ring4.csv");
    spit(rp, r.out, r.out_len);
    cli_free(&r);
    csv_t t;
    csv_read(&t, rp);
    ck_assert_int_eq(t.nrows, 4);
    ck_assert_int_eq(t.ncols, 12);
    /* ring of 4, alpha 10, S = 1e6: RS = 30 + 1e6 3 / (4 B); All-Reduce twice that */
    const double want_t[4] = {15.06, 7.53, 30.06, 15.03}, want_i[4] = {15, 7.5, 30, 15};
    for (int p = 0; p < 4; p++) {
        ck_assert_rel(cd(&t, p, "time_us"), want_t[p]);
        ck_assert_rel(cd(&t, p, "ideal_us"), want_i[p]);
        ck_assert_str_eq(cs(&t, p, "speedup"), "1");
        ck_assert_str_eq(cs(&t, p, "npus"), "4");
    }
    csv_free(&t);
    rm_dir(dir);
}
END_TEST

START_TEST(shards_merge) {
    char *dir = tmp_dir();
    DIR_PATH(ref, dir, "ref.csv");
    default_run(ref, "-j 2");
    const char *spec = dpath("sweep_default.json");
    char parts[3][4200];
    for (int k = 0; k < 3; k++) {
        snprintf(parts[k], sizeof parts[k], "%s/part%d.csv", dir, k);
        cli_out r;
        cli(&r, "sweep '%s' --shard %d/3 -j 2 -o '%s'", spec, k, parts[k]);
        expect_ok(&r, "--shard");
        cli_free(&r);
        /* 108 points: 36 in each shard, points k, k + 3, ... */
        csv_t t;
        csv_read(&t, parts[k]);
        ck_assert_int_eq(t.nrows, 36);
        for (int j = 0; j < 36; j++) {
            ck_assert_int_eq(atoi(cs(&t, j, "point")), k + 3 * j);
        }
        csv_free(&t);
    }
    DIR_PATH(all, dir, "all.csv");
    cli_out r;
    cli(&r, "merge '%s' '%s' '%s' '%s' --spec '%s'", all, parts[0], parts[1], parts[2], spec);
    expect_ok(&r, "merge --spec");
    ck_assert_uint_eq(r.out_len, 0);
    cli_free(&r);
    same_file(all, ref);
    /* without --spec, parts in another order */
    DIR_PATH(all2, dir, "all2.csv");
    cli(&r, "merge '%s' '%s' '%s' '%s'", all2, parts[2], parts[1], parts[0]);
    expect_ok(&r, "merge");
    cli_free(&r);
    same_file(all2, ref);
    /* more shards than some points: 5/7 of 108 */
    char p7[7][4200];
    char list[8 * 4200] = "";
    for (int k = 0; k < 7; k++) {
        snprintf(p7[k], sizeof p7[k], "%s/s7_%d.csv", dir, k);
        cli(&r, "sweep '%s' --shard %d/7 -j 1 -o '%s'", spec, k, p7[k]);
        expect_ok(&r, "--shard K/7");
        cli_free(&r);
        size_t n = strlen(list);
        snprintf(list + n, sizeof list - n, " '%s'", p7[k]);
    }
    DIR_PATH(all7, dir, "all7.csv");
    cli(&r, "merge '%s' %s --spec '%s'", all7, list, spec);
    expect_ok(&r, "merge 7");
    cli_free(&r);
    same_file(all7, ref);
    rm_dir(dir);
}
END_TEST

START_TEST(resume_truncated) {
    char *dir = tmp_dir();
    DIR_PATH(ref, dir, "ref.csv");
    default_run(ref, "-j 2");
    const char *spec = dpath("sweep_default.json");
    size_t len;
    char *text = must_slurp(ref, &len);
    DIR_PATH(cut, dir, "cut.csv");
    /* cut points: inside the header, right after it, in the middle of a row (several
     * places), at a row boundary, one byte short of the end, the whole file */
    size_t hlen = strlen(DEFAULT_HEADER);
    const char *mid = strchr(text + len / 2, '\n');
    size_t cuts[] = {0,       10, hlen, hlen + 5, len / 3, len / 2, (size_t)(mid - text) + 1,
                     len - 1, len};
    const char *jobs[] = {"-j 1", "-j 2"};
    for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
        spit(cut, text, cuts[i]);
        cli_out r;
        cli(&r, "sweep '%s' -o '%s' --resume %s", spec, cut, jobs[i % 2]);
        expect_ok(&r, "--resume");
        cli_free(&r);
        same_file(cut, ref);
    }
    /* --resume with no file: a plain run */
    unlink(cut);
    cli_out r;
    cli(&r, "sweep '%s' -o '%s' --resume", spec, cut);
    expect_ok(&r, "--resume, no file");
    cli_free(&r);
    same_file(cut, ref);
    /* a shard resumed */
    DIR_PATH(part, dir, "part1.csv");
    DIR_PATH(part_ref, dir, "part1_ref.csv");
    cli(&r, "sweep '%s' --shard 1/3 -o '%s'", spec, part_ref);
    expect_ok(&r, "--shard 1/3");
    cli_free(&r);
    char *ptext = must_slurp(part_ref, &len);
    spit(part, ptext, len / 2 + 3);
    cli(&r, "sweep '%s' --shard 1/3 -o '%s' --resume", spec, part);
    expect_ok(&r, "--shard 1/3 --resume");
    cli_free(&r);
    same_file(part, part_ref);
    /* a shard file is not another shard's, nor the whole sweep's: refused, untouched */
    spit(part, ptext, len / 2 + 3);
    bad(NULL, "sweep '%s' --shard 2/3 -o '%s' --resume", spec, part);
    bad(NULL, "sweep '%s' -o '%s' --resume", spec, part);
    size_t l2;
    char *now = must_slurp(part, &l2);
    ck_assert(l2 == len / 2 + 3 && memcmp(now, ptext, l2) == 0);
    free(now);
    free(ptext);
    /* a file of another spec (same header, other values): refused, untouched */
    DIR_PATH(other, dir, "other.json");
    char spec2[8192];
    snprintf(spec2, sizeof spec2,
             "{'system': '%s', 'collective': {'type': 'allreduce', 'size': '1GiB'},"
             " 'axes': {'chunks': [1, 2, 4, 8, 16, 32, 64, 128, 512], 'policy': ['baseline',"
             " 'themis'], 'intra': ['fifo', 'scf'], 'size': ['1MiB', '64MiB', '1GiB']}}",
             dpath("../../models/systems/default-3d.json"));
    write_spec(other, spec2);
    /* rows 0..100 (the last has chunks 256 here, 512 there) */
    size_t r101 = 0;
    for (int l = 0, i = 0; l < 102; i++) {
        if (text[i] == '\n') {
            l++;
            r101 = (size_t)i + 1;
        }
    }
    spit(cut, text, r101);
    bad(NULL, "sweep '%s' -o '%s' --resume", other, cut);
    char *kept = must_slurp(cut, &l2);
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
    spit(cut, text, r10);
    cli(&r, "sweep '%s' -o '%s' --resume", other, cut);
    expect_ok(&r, "--resume other spec, early rows");
    cli_free(&r);
    /* a header that is not this sweep's */
    spit(cut, "point,x\n0,1\n", 12);
    bad("header", "sweep '%s' -o '%s' --resume", spec, cut);
    kept = must_slurp(cut, &l2);
    ck_assert_str_eq(kept, "point,x\n0,1\n");
    free(kept);
    free(text);
    rm_dir(dir);
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
            (char *)cli_bin(),          "sweep", (char *)spec, "-o", (char *)out, "-j", "2",
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
    pid_t pid = spawn_sweep(dpath("sweep_big.json"), out, err, 0);
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
    char *text = must_slurp(out, &len);
    char *msg = must_slurp(err, NULL);
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
    pid = spawn_sweep(dpath("sweep_big.json"), out, err, 1);
    ck_assert_int_eq(waitpid(pid, &st, 0), pid);
    msg = must_slurp(err, NULL);
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "--resume: status %d, '%s'", st, msg);
    ck_assert_msg(msg[0] == '\0', "--resume: stderr '%s'", msg);
    free(msg);
    text = must_slurp(out, &len);
    ck_assert_msg(len == full_len && memcmp(text, full_text, len) == 0,
                  "resumed after %lld lines: %zu bytes, want %zu", (long long)rows, len, full_len);
    free(text);
    return interrupted;
}

START_TEST(interrupt_resume) {
    char *dir = tmp_dir();
    DIR_PATH(full, dir, "full.csv");
    DIR_PATH(out, dir, "out.csv");
    DIR_PATH(err, dir, "err.txt");
    cli_out r;
    cli(&r, "sweep '%s' -o '%s' -j 2", dpath("sweep_big.json"), full);
    expect_ok(&r, "sweep_big");
    cli_free(&r);
    size_t len;
    char *text = must_slurp(full, &len);
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
    rm_dir(dir);
}
END_TEST

/* ---- GNU parallel ---- */

START_TEST(gnu_parallel) {
    char *dir = tmp_dir();
    DIR_PATH(ref, dir, "ref.csv");
    default_run(ref, "-j 2");
    const char *spec = dpath("sweep_default.json");
    char cmd[16384];
    DIR_PATH(log, dir, "parallel.log");
    /* the recipe of sweeps/README.md, on this machine */
    snprintf(cmd, sizeof cmd,
             "parallel --will-cite '%s' sweep '%s' --shard {}/3 -j 1 --quiet -o '%s'/part{}.csv "
             "::: 0 1 2 </dev/null >'%s' 2>&1",
             cli_bin(), spec, dir, log);
    int st = system(cmd);
    char *msg = slurp(log, NULL);
    ck_assert_msg(st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0, "parallel: status %d: %s", st,
                  msg ? msg : "");
    free(msg);
    DIR_PATH(all, dir, "all.csv");
    cli_out r;
    cli(&r, "merge '%s' '%s/part0.csv' '%s/part1.csv' '%s/part2.csv' --spec '%s'", all, dir, dir,
        dir, spec);
    expect_ok(&r, "merge after parallel");
    cli_free(&r);
    same_file(all, ref);
    rm_dir(dir);
}
END_TEST

/* ---- the progress bar ---- */

START_TEST(progress_terminal) {
    /* `script` (util-linux) gives the sweep a terminal; without it there is nothing to do. */
    if (access("/usr/bin/script", X_OK) != 0) {
        return;
    }
    char *dir = tmp_dir();
    const char *quiet[2] = {"", "--quiet"};
    for (int q = 0; q < 2; q++) {
        DIR_PATH(out, dir, q ? "quiet.csv" : "bar.csv");
        DIR_PATH(tty, dir, "tty.txt");
        char cmd[16384];
        snprintf(cmd, sizeof cmd,
                 "/usr/bin/script -qec \"'%s' sweep '%s' -o '%s' %s\" /dev/null >'%s' 2>&1 "
                 "</dev/null",
                 cli_bin(), dpath("sweep_default.json"), out, quiet[q], tty);
        int st = system(cmd);
        ck_assert_msg(st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0, "script: status %d", st);
        char *text = must_slurp(tty, NULL);
        if (q == 0) {
            /* points done/total, rate, ETA */
            ck_assert_msg(strstr(text, "108/108") != NULL, "no progress on a terminal: '%s'", text);
            ck_assert_msg(strstr(text, "ETA") != NULL, "no ETA: '%s'", text);
        } else {
            ck_assert_msg(text[0] == '\0', "--quiet on a terminal printed '%s'", text);
        }
        free(text);
    }
    DIR_PATH(a, dir, "bar.csv");
    DIR_PATH(b, dir, "quiet.csv");
    same_file(a, b);
    rm_dir(dir);
}
END_TEST

/* ---- bad input ---- */

START_TEST(bad_specs) {
    char *dir = tmp_dir();
    DIR_PATH(spec, dir, "spec.json");
    DIR_PATH(out, dir, "out.csv");
    const char *sys = dpath("cli_3d.json");
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
        write_spec(spec, text);
        bad(cases[i][1], "sweep '%s' -o '%s'", spec, out);
        ck_assert_msg(!exists(out), "%s: the output was created", text);
        bad(cases[i][1], "sweep '%s' --dry-run", spec);
        /* an existing output is left untouched, even with --force */
        spit(out, "keep\n", 5);
        bad(cases[i][1], "sweep '%s' -o '%s' --force", spec, out);
        char *kept = must_slurp(out, NULL);
        ck_assert_msg(strcmp(kept, "keep\n") == 0, "%s: the output was changed", text);
        free(kept);
        unlink(out);
    }
    /* a missing system file, relative to the spec's folder */
    write_spec(spec, "{'system': 'nope.json'}");
    bad("nope.json", "sweep '%s' -o '%s'", spec, out);
    ck_assert(!exists(out));
    /* a missing spec */
    bad("none.json", "sweep '%s/none.json' -o '%s'", dir, out);
    ck_assert(!exists(out));
    /* A point that the run rejects through a run axis (the ASTRA-sim preset runs only
     * All-Reduce): either refused up front, naming the point, with no file created, or
     * computed like every other point. */
    char text[2048];
    snprintf(text, sizeof text,
             "{'system': '%s', 'collective': {'size': '1MiB', 'chunks': 4},"
             " 'axes': {'type': ['allreduce', 'alltoall']}}",
             dpath("sweep_astra.json"));
    write_spec(spec, text);
    cli_out r;
    cli(&r, "sweep '%s' -o '%s'", spec, out);
    if (r.status == 0) {
        csv_t t;
        csv_read(&t, out);
        ck_assert_int_eq(t.nrows, 2);
        csv_free(&t);
    } else {
        ck_assert_msg(!exists(out), "an invalid point: the output was created (exit %d: %s)",
                      r.status, r.err);
        expect_bad(&r, "astra type axis");
        ck_assert_msg(strstr(r.err, "point 1") != NULL, "message '%s' lacks 'point 1'", r.err);
    }
    cli_free(&r);
    rm_dir(dir);
}
END_TEST

START_TEST(bad_outputs) {
    char *dir = tmp_dir();
    const char *spec = dpath("sweep_ring4.json");
    /* unwritable paths: exit 2, nothing created */
    bad("/nonexistent/dir/x.csv", "sweep '%s' -o /nonexistent/dir/x.csv", spec);
    ck_assert(!exists("/nonexistent/dir/x.csv"));
    DIR_PATH(file, dir, "file");
    spit(file, "f\n", 2);
    bad("x.csv", "sweep '%s' -o '%s/x.csv'", spec, file);
    bad(NULL, "sweep '%s' -o '%s' --force", spec, dir);
    struct stat st;
    ck_assert(stat(dir, &st) == 0 && S_ISDIR(st.st_mode));
    /* an existing output: refused without --resume or --force, left as it was */
    DIR_PATH(out, dir, "out.csv");
    spit(out, "precious\n", 9);
    bad(out, "sweep '%s' -o '%s'", spec, out);
    char *kept = must_slurp(out, NULL);
    ck_assert_str_eq(kept, "precious\n");
    free(kept);
    /* ... --force overwrites it */
    cli_out r;
    cli(&r, "sweep '%s' -o '%s' --force", spec, out);
    expect_ok(&r, "--force");
    cli_free(&r);
    DIR_PATH(ref, dir, "ref.csv");
    cli(&r, "sweep '%s' -o '%s'", spec, ref);
    expect_ok(&r, "ring4");
    cli_free(&r);
    same_file(out, ref);
    /* ... and a finished output resumed stays as it is */
    cli(&r, "sweep '%s' -o '%s' --resume", spec, out);
    expect_ok(&r, "--resume, finished");
    cli_free(&r);
    same_file(out, ref);
    /* no output at all */
    bad("-o", "sweep '%s'", spec);
    /* the spec's own output resolves against its folder, wherever it runs from */
    DIR_PATH(sp, dir, "rel.json");
    char text[4096];
    snprintf(text, sizeof text,
             "{'system': '%s', 'collective': {'size': 1000000, 'chunks': 1},"
             " 'policy': 'baseline', 'intra': 'fifo', 'axes': {'dims[0].bw_GBps': [100, 50],"
             " 'type': ['allreduce', 'reducescatter']}, 'output': 'sub_out.csv'}",
             dpath("cli_ring4.json"));
    write_spec(sp, text);
    char *other = tmp_dir();
    cli_in(&r, other, "sweep '%s'", sp);
    expect_ok(&r, "spec output");
    cli_free(&r);
    DIR_PATH(made, dir, "sub_out.csv");
    DIR_PATH(notmade, other, "sub_out.csv");
    ck_assert(exists(made));
    ck_assert(!exists(notmade));
    same_file(made, ref); /* the same sweep as sweep_ring4.json */
    /* the system files of a system axis resolve against the spec's folder too */
    cli_in(&r, other, "sweep '%s' -o sys.csv", dpath("sweep_systems.json"));
    expect_ok(&r, "system axis");
    cli_free(&r);
    DIR_PATH(sysout, other, "sys.csv");
    csv_t t;
    csv_read(&t, sysout);
    ck_assert_int_eq(t.nrows, 2);
    ck_assert_str_eq(cs(&t, 0, "system"), "cli_ring4.json");
    ck_assert_str_eq(cs(&t, 1, "system"), "cli_3d.json");
    ck_assert_rel(cd(&t, 0, "time_us"), 15.06);
    ck_assert_str_eq(cs(&t, 0, "dim2_busy_us"), "");
    /* cli_3d, 1 chunk of 1e6: RS 7530 + 2600 + 10375 = 20505 ns, twice: 41.01 us */
    ck_assert_rel(cd(&t, 1, "time_us"), 41.01);
    ck_assert_str_eq(cs(&t, 1, "npus"), "64");
    csv_free(&t);
    rm_dir(other);
    rm_dir(dir);
}
END_TEST

START_TEST(bad_options) {
    const char *spec = dpath("sweep_ring4.json");
    bad(NULL, "sweep");
    bad(NULL, "sweep '%s' -o - -j 0", spec);
    bad(NULL, "sweep '%s' -o - -j many", spec);
    bad(NULL, "sweep '%s' -o - -j", spec);
    bad("--shard", "sweep '%s' -o - --shard 3/3", spec);
    bad("--shard", "sweep '%s' -o - --shard 1", spec);
    bad("--shard", "sweep '%s' -o - --shard -1/3", spec);
    bad(NULL, "sweep '%s' -o /tmp/never.csv --resume --force", spec);
    bad(NULL, "sweep '%s' '%s' -o -", spec, spec);
    bad(NULL, "sweep '%s' -o - --bogus", spec);
    bad(NULL, "merge");
    bad(NULL, "merge /tmp/only-out.csv");
    bad(NULL, "merge --bogus a b");
}
END_TEST

START_TEST(merge_errors) {
    char *dir = tmp_dir();
    const char *spec = dpath("sweep_default.json");
    char parts[3][4200];
    for (int k = 0; k < 3; k++) {
        snprintf(parts[k], sizeof parts[k], "%s/part%d.csv", dir, k);
        cli_out r;
        cli(&r, "sweep '%s' --shard %d/3 -j 2 -o '%s'", spec, k, parts[k]);
        expect_ok(&r, "--shard");
        cli_free(&r);
    }
    DIR_PATH(ref, dir, "ref.csv");
    default_run(ref, "-j 2");
    DIR_PATH(out, dir, "out.csv");
    /* overlap, gap */
    bad("point 0", "merge '%s' '%s' '%s' '%s' '%s'", out, parts[0], parts[1], parts[2], ref);
    ck_assert(!exists(out));
    bad("point 1", "merge '%s' '%s' '%s'", out, parts[0], parts[2]);
    ck_assert(!exists(out));
    bad("point 1", "merge '%s' '%s' '%s' --spec '%s'", out, parts[0], parts[2], spec);
    ck_assert(!exists(out));
    /* a missing tail: the last point (107, in part 2) dropped; only --spec notices */
    size_t len;
    char *p2 = must_slurp(parts[2], &len);
    DIR_PATH(short2, dir, "short2.csv");
    size_t last = len - 1;
    while (p2[last - 1] != '\n') {
        last--;
    }
    ck_assert_int_eq(atoi(p2 + last), 107);
    spit(short2, p2, last);
    bad("108", "merge '%s' '%s' '%s' '%s' --spec '%s'", out, parts[0], parts[1], short2, spec);
    ck_assert(!exists(out));
    cli_out r;
    cli(&r, "merge '%s' '%s' '%s' '%s'", out, parts[0], parts[1], short2);
    expect_ok(&r, "merge without --spec");
    cli_free(&r);
    csv_t t;
    csv_read(&t, out);
    ck_assert_int_eq(t.nrows, 107);
    csv_free(&t);
    /* an existing output: refused and untouched; --force replaces it */
    spit(out, "precious\n", 9);
    bad(out, "merge '%s' '%s' '%s' '%s'", out, parts[0], parts[1], parts[2]);
    char *kept = must_slurp(out, NULL);
    ck_assert_str_eq(kept, "precious\n");
    free(kept);
    cli(&r, "merge '%s' '%s' '%s' '%s' --force --spec '%s'", out, parts[0], parts[1], parts[2],
        spec);
    expect_ok(&r, "merge --force");
    cli_free(&r);
    same_file(out, ref);
    unlink(out);
    /* an incomplete row (an interrupted shard) */
    spit(short2, p2, len - 2);
    bad("incomplete", "merge '%s' '%s' '%s' '%s'", out, parts[0], parts[1], short2);
    ck_assert(!exists(out));
    /* a part of another sweep: the headers differ */
    DIR_PATH(ring, dir, "ring.csv");
    cli(&r, "sweep '%s' -o '%s'", dpath("sweep_ring4.json"), ring);
    expect_ok(&r, "ring4");
    cli_free(&r);
    bad("header", "merge '%s' '%s' '%s' '%s' '%s'", out, parts[0], parts[1], parts[2], ring);
    ck_assert(!exists(out));
    /* the output named as a part; a missing part; a bad spec */
    bad(NULL, "merge '%s' '%s' '%s'", parts[0], parts[0], parts[1]);
    bad("none.csv", "merge '%s' '%s' '%s/none.csv'", out, parts[0], dir);
    ck_assert(!exists(out));
    bad(NULL, "merge '%s' '%s' --spec '%s/none.json'", out, parts[0], dir);
    ck_assert(!exists(out));
    free(p2);
    rm_dir(dir);
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
    tcase_add_test(tc, gnu_parallel);
    tcase_add_test(tc, progress_terminal);
    tcase_add_test(tc, bad_specs);
    tcase_add_test(tc, bad_outputs);
    tcase_add_test(tc, bad_options);
    tcase_add_test(tc, merge_errors);
    suite_add_tcase(s, tc);
    return s;
}

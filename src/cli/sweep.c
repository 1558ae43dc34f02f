/* `themis sweep` (run a spec into a CSV: threads, progress, resume, shards, dry run) and
 * `themis merge` (join shard files). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "themis/sha256.h"
#include "themis/sweep.h"

/* Set from the signal handler, read by the worker threads: a lock-free atomic, so the store is
 * async-signal-safe and the reads race with nothing. */
static atomic_int stop_signal;
_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "the stop flag must be a lock-free atomic");

static void on_signal(int sig) {
    atomic_store(&stop_signal, sig);
}

static void sweep_usage(FILE *out) {
    fputs(
        "usage: themis sweep SPEC.json [OPTIONS]\n"
        "\n"
        "Evaluate every point of a sweep spec (the product of its axes) and write one CSV row\n"
        "per point, in order. Rows are written as they complete; an interrupted sweep leaves\n"
        "a valid CSV of the finished points, and --resume finishes it. Beside OUT, OUT.meta.json\n"
        "records the provenance: themis version, the spec (inline, with its SHA-256), the\n"
        "command line, threads, start and end times, points written and whether the file is\n"
        "complete (none for stdout or a device).\n"
        "\n"
        "options:\n",
        out);
    cli_help_options(out, &th_cmd_sweep_def);
    fputs("\n"
          "examples:\n"
          "  themis sweep sweeps/chunks-vs-policy.json -o out/chunks.csv\n"
          "  themis sweep sweeps/chunks-vs-policy.json --dry-run\n"
          "  themis sweep SPEC.json --shard 0/4 -o part0.csv && themis merge all.csv "
          "part*.csv\n" CLI_HELP_EXIT_SWEEP,
          out);
}

typedef struct progress {
    int on;
    double t0, last;
} progress;

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void show_progress(void *ctx, int64_t done, int64_t total) {
    progress *p = ctx;
    double t = now_s();
    if (!p->on || (t - p->last < 0.1 && done < total)) return;
    p->last = t;
    double rate = done / (t - p->t0 > 1e-9 ? t - p->t0 : 1e-9);
    double eta = rate > 0 ? (double)(total - done) / rate : 0;
    int width = 30, fill = total ? (int)((double)width * (double)done / (double)total) : width;
    fprintf(stderr, "\r[%.*s%*s] %lld/%lld points  %.0f/s  ETA %.0fs  ", fill,
            "##############################", width - fill, "", (long long)done, (long long)total,
            rate, eta);
    fflush(stderr);
}

typedef struct sweep_opts {
    th_sweep_request r;
    const char *spec; /* the spec file */
    int jobs;         /* threads */
    th_shard shard;
} sweep_opts;

static int parse_sweep(int argc, char **argv, sweep_opts *o) {
    char *ops[1];
    int nops = 0;
    int rc = cli_args(&th_cmd_sweep_def, argc, argv, &o->r, sweep_usage, ops, 1, &nops);
    if (rc) return rc;
    if (!nops) return cli_usage_error("sweep", "missing the spec file");
    o->spec = o->r.spec.path = ops[0];
    if (o->r.jobs) o->jobs = (int)o->r.jobs;
    if (o->r.resume && o->r.force)
        return cli_usage_error("sweep", "--resume and --force contradict each other");
    return CLI_OK;
}

static int dry_run(const th_sweep *sw, const sweep_opts *o) {
    int64_t n = th_shard_points(sw, o->shard);
    printf("%s: %lld points", th_sweep_name(sw), (long long)th_sweep_points(sw));
    if (o->shard.n > 1)
        printf(" (shard %lld/%lld: %lld)", (long long)o->shard.k, (long long)o->shard.n,
               (long long)n);
    printf("\n");
    th_buf b = {0};
    th_error err;
    int rc = th_sweep_prefix_header(sw, &b, &err);
    if (rc == TH_OK) printf("%s\n", b.p);
    for (int64_t j = 0; j < n && j < 5 && rc == TH_OK; j++) {
        b.len = 0;
        rc = th_sweep_prefix(sw, th_shard_point(o->shard, j), &b, &err);
        if (rc == TH_OK) printf("%s\n", b.p);
    }
    if (rc == TH_OK && n > 5) printf("...\n");
    th_buf_free(&b);
    return rc ? cli_fail(&err) : CLI_OK;
}

/* The no-overwrite rule for the sidecar: an existing OUT.meta.json is replaced without --force
 * only when it is a sidecar (it describes OUT, which this command rewrites); any other file
 * there is someone's data. Checked before OUT is started. */
static int sidecar_free(const char *meta, int force, th_error *err) {
    struct stat st;
    if (!meta || stat(meta, &st) != 0) return TH_OK;
    if (S_ISDIR(st.st_mode)) return th_error_set(err, TH_EIO, "%s: is a folder, not a file", meta);
    if (force || !S_ISREG(st.st_mode)) return TH_OK;
    char *text = th_sweep_meta_read(meta);
    int ours = th_sweep_meta_is(text);
    free(text);
    if (ours) return TH_OK;
    return th_error_set(err, TH_EINPUT,
                        "%s: already exists and is not a sweep's sidecar; --force replaces it",
                        meta);
}

/* Opens the output for a fresh run (a temporary file renamed into place at the end) or a
 * resume (appended in place: the complete rows already there are never rewritten, and a
 * partial last line, which no reader counts as a row, is cut); *start = shard-local points
 * already done. */
static int open_output(const th_sweep *sw, const sweep_opts *o, const char *path, const char *meta,
                       th_output *out, int64_t *start, int *in_place, th_error *err) {
    *start = 0;
    int nin;
    const char *const *in = th_sweep_inputs(sw, &nin);
    const char **inputs = malloc(sizeof *inputs * (size_t)(nin + 1));
    if (!inputs) return th_error_set(err, TH_EINTERNAL, "out of memory");
    inputs[0] = o->spec;
    if (nin > 0) memcpy(inputs + 1, in, sizeof *inputs * (size_t)nin); /* in is NULL at 0 */
    const char *outputs[] = {path, meta};
    int rc = th_output_check(inputs, nin + 1, outputs, 2, err);
    free(inputs);
    if (rc || (rc = sidecar_free(meta, o->r.force, err))) return rc;
    struct stat st;
    int exists = strcmp(path, "-") && stat(path, &st) == 0 && S_ISREG(st.st_mode);
    *in_place = !exists || o->r.resume; /* else a temporary file replaces it at the end */
    off_t keep = 0;
    if (o->r.resume && !strcmp(path, "-"))
        return th_error_set(err, TH_EINPUT, "--resume needs an output file");
    if (exists && o->r.resume) {
        if (th_sweep_resume_scan(sw, o->shard, path, start, &keep, err)) return err->code;
    } else if (exists && !o->r.force) {
        return th_error_set(err, TH_EINPUT,
                            "%s: already exists; --resume continues it, --force replaces it", path);
    }
    int flags = TH_OUTPUT_STREAM | (o->r.resume  ? TH_OUTPUT_APPEND
                                    : o->r.force ? TH_OUTPUT_FORCE
                                                 : 0);
    if ((rc = cli_out_open(out, path, flags, err))) return rc;
    int fd = fileno(out->f);
    if (exists && o->r.resume && (ftruncate(fd, keep) || lseek(fd, 0, SEEK_END) < 0))
        return cli_out_close(out,
                             th_error_set(err, TH_EIO,
                                          "%s: cannot cut it to its last complete row: %s", path,
                                          strerror(errno)),
                             err);
    if (keep > 0) return TH_OK;
    th_buf h = {0};
    rc = th_sweep_header(sw, &h, err);
    if (rc == TH_OK && h.len && (fwrite(h.p, 1, h.len, out->f) != h.len || fflush(out->f)))
        rc = th_error_set(err, TH_EIO, "%s: write error: %s", path, strerror(errno));
    th_buf_free(&h);
    return rc ? cli_out_close(out, rc, err) : TH_OK;
}

/* The sidecar of a sweep file: none for stdout or a device (/dev/null). */
static char *sidecar_of(const char *path) {
    struct stat st;
    if (!strcmp(path, "-") || (stat(path, &st) == 0 && !S_ISREG(st.st_mode))) return NULL;
    return th_sweep_meta_path(path);
}

/* Fills m's inputs with the files sw's spec names and their digests, taken before the first
 * point runs; returns the digests' memory for free (NULL: none, or out of memory). */
static void *hash_inputs(const th_sweep *sw, th_sweep_meta *m) {
    int n;
    const char *const *in = th_sweep_inputs(sw, &n);
    char(*sha)[65] = n > 0 ? calloc((size_t)n, sizeof *sha) : NULL;
    if (!sha) return NULL;
    for (int i = 0; i < n; i++)
        if (th_sha256_file(in[i], sha[i])) sha[i][0] = '\0';
    m->inputs = in;
    m->input_sha256 = (const char(*)[65])sha;
    m->ninputs = n;
    return sha;
}

/* Writes the sidecar through a temporary file renamed into place. */
static int write_sidecar(const char *meta, const th_sweep_meta *m, const char *prev,
                         th_error *err) {
    th_output o;
    int rc = cli_out_open(&o, meta, TH_OUTPUT_FORCE, err);
    if (rc) return rc;
    return cli_out_close(&o, th_sweep_meta_write(o.f, m, prev, err), err);
}

static const char *signal_name(int sig) {
    return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "a signal";
}

/* Runs cmd(argc, copy of argv, the command line as typed): the sidecar keeps the arguments in
 * the order typed ("themis" first), whatever the parser does with its copy. */
static int with_command_line(int (*cmd)(int, char **, char **), int argc, char **argv) {
    char **args = malloc(sizeof *args * (size_t)(argc + 1));
    if (!args) {
        fputs("themis: out of memory\n", stderr);
        return CLI_INTERNAL;
    }
    memcpy(args, argv, sizeof *args * (size_t)(argc + 1));
    int rc = cmd(argc, args, argv - 1);
    free(args);
    return rc;
}

static int sweep_cmd(int argc, char **argv, char **typed) {
    sweep_opts o = {0};
    th_sweep_request_init(&o.r);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    o.jobs = cores > 0 ? (int)cores : 1;
    int rc = parse_sweep(argc, argv, &o);
    if (rc) return rc < 0 ? CLI_OK : rc;

    th_error err = {0};
    th_sweep *sw;
    if (th_cmd_sweep_load(&o.r, &sw, &o.shard, &err)) return cli_fail(&err);
    if (o.r.dry_run) {
        rc = dry_run(sw, &o);
        th_sweep_free(sw);
        return rc;
    }
    const char *path = o.r.output ? o.r.output : th_sweep_output(sw);
    if (!path) {
        th_sweep_free(sw);
        return cli_usage_error("sweep", "no output: give -o FILE or \"output\" in the spec");
    }
    th_output out;
    int64_t start = 0, done = 0, total = th_shard_points(sw, o.shard);
    int in_place = 0;
    char *meta = sidecar_of(path), *prev = NULL;
    if (strcmp(path, "-") && !meta) { /* a device has no sidecar; anything else does */
        struct stat st;
        if (stat(path, &st) != 0 || S_ISREG(st.st_mode)) {
            th_sweep_free(sw);
            th_error_set(&err, TH_EINTERNAL, "out of memory");
            return cli_fail(&err);
        }
    }
    struct stat mst; /* a folder where the sidecar goes: refused before OUT is started */
    if (meta && stat(meta, &mst) == 0 && S_ISDIR(mst.st_mode))
        th_error_set(&err, TH_EIO, "%s: is a folder, not a file", meta);
    if (err.code || open_output(sw, &o, path, meta, &out, &start, &in_place, &err)) {
        free(meta);
        th_sweep_free(sw);
        return cli_fail(&err);
    }
    /* The sidecar says what is in the file: written before the first row when the rows go in
     * place (so that a killed sweep leaves one saying "incomplete"), and again at the end;
     * with --force over an existing file, only once the new file replaced the old. */
    size_t spec_len;
    const char *spec = th_sweep_spec(sw, &spec_len);
    th_sweep_meta m = {path,
                       o.r.format == TH_FORMAT_JSONL ? "jsonl" : "csv",
                       o.spec,
                       spec,
                       spec_len,
                       NULL,
                       th_sweep_points(sw),
                       o.shard,
                       start,
                       total,
                       o.jobs,
                       argc + 1,
                       typed,
                       (int64_t)time(NULL),
                       0,
                       NULL,
                       NULL,
                       NULL,
                       0};
    void *digests = meta ? hash_inputs(sw, &m) : NULL;
    if (meta && o.r.resume) prev = th_sweep_meta_read(meta);
    rc = meta && in_place ? write_sidecar(meta, &m, prev, &err) : TH_OK;
    if (rc) {
        cli_out_close(&out, rc, &err);
        free(meta);
        free(prev);
        free(digests);
        th_sweep_free(sw);
        return cli_fail(&err);
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    progress pr = {isatty(STDERR_FILENO) && !o.r.quiet, now_s(), 0};
    th_sweep_opts so = {o.jobs, o.shard, start, fileno(out.f), &stop_signal, show_progress, &pr};
    rc = th_sweep_run(sw, &so, &done, &err);
    if (rc == TH_EIO) { /* the output is the only file a running sweep writes */
        th_error e = err;
        th_error_set(&err, TH_EIO, "%s: %s", path, e.msg);
    }
    int sig = atomic_load(&stop_signal);
    m.points = done;
    m.finished = (int64_t)time(NULL);
    m.stopped = rc ? "error" : done < total ? signal_name(sig ? sig : SIGINT) : NULL;
    /* An interrupted sweep keeps its finished rows: its file is committed too. */
    int failed = rc != TH_OK;
    rc = cli_out_close(&out, rc, &err);
    /* the rows are in the file (in place, or committed): the sidecar follows them */
    if (meta && (in_place || !failed)) {
        th_error e;
        int mrc = write_sidecar(meta, &m, prev, &e);
        if (mrc && !rc) rc = mrc, err = e;
    }
    free(meta);
    free(prev);
    free(digests);
    th_sweep_free(sw);
    if (pr.on) fputc('\n', stderr);
    if (rc) return cli_fail(&err);
    if (done < total) {
        fprintf(stderr,
                "themis: interrupted: %lld of %lld points are in %s; run again with "
                "--resume to finish\n",
                (long long)done, (long long)total, path);
        return 128 + (sig ? sig : SIGINT);
    }
    return CLI_OK;
}

/* Merges the parts into out, then writes out's sidecar: the spec from --spec (sw), else the one
 * the parts' sidecars agree on (none: spec and expected points unknown, not complete). */
static int merge(const char *out, const char *const *parts, int nparts, const char *spec,
                 const th_sweep *sw, int force, int argc, char **argv, th_error *err) {
    char *meta = sidecar_of(out);
    char **texts = calloc((size_t)nparts, sizeof *texts);
    const char **inputs = calloc((size_t)(2 * nparts + 1), sizeof *inputs);
    char **part_meta = calloc((size_t)nparts, sizeof *part_meta);
    int rc =
        texts && inputs && part_meta ? TH_OK : th_error_set(err, TH_EINTERNAL, "out of memory");
    for (int i = 0; rc == TH_OK && i < nparts; i++) {
        if (!(part_meta[i] = th_sweep_meta_path(parts[i])))
            rc = th_error_set(err, TH_EINTERNAL, "out of memory");
        inputs[1 + i] = parts[i];
        inputs[1 + nparts + i] = part_meta[i];
    }
    const char *outputs[] = {out, meta};
    if (rc == TH_OK) {
        inputs[0] = spec;
        rc = th_output_check(inputs, 2 * nparts + 1, outputs, 2, err);
    }
    if (rc == TH_OK) rc = sidecar_free(meta, force, err);
    th_sweep_meta m = {out,    "csv", spec, NULL, 0,    NULL, -1,
                       {0, 1}, 0,     -1,   0,    argc, argv, (int64_t)time(NULL),
                       0,      NULL,  NULL, NULL, 0};
    void *digests = NULL;
    char *common = NULL, *common_file = NULL, sha[65] = "";
    if (sw) {
        m.spec = th_sweep_spec(sw, &m.spec_len);
        m.sweep_points = m.expected = th_sweep_points(sw);
        digests = hash_inputs(sw, &m);
    } else if (rc == TH_OK && meta) {
        for (int i = 0; i < nparts; i++)
            texts[i] = th_sweep_meta_read(part_meta[i]);
        rc = th_sweep_meta_common((const char *const *)texts, nparts, &common, sha, &m.sweep_points,
                                  &common_file, err);
        if (common) {
            m.spec = common, m.spec_len = strlen(common), m.spec_sha256 = sha;
            m.spec_file = common_file;
            m.expected = m.sweep_points;
        }
    }
    th_output o;
    int jsonl = 0;
    if (rc == TH_OK && (rc = cli_out_open(&o, out, force ? TH_OUTPUT_FORCE : 0, err)) == TH_OK) {
        rc = th_sweep_merge(o.f, parts, nparts, sw ? m.expected : -1, &m.points, &jsonl, err);
        rc = cli_out_close(&o, rc, err);
    }
    if (jsonl) m.format = "jsonl";
    m.finished = (int64_t)time(NULL);
    if (rc == TH_OK && meta) rc = write_sidecar(meta, &m, NULL, err);
    for (int i = 0; i < nparts; i++) {
        if (texts) free(texts[i]);
        if (part_meta) free(part_meta[i]);
    }
    free(texts);
    free(part_meta);
    free(digests);
    free(inputs);
    free(common);
    free(common_file);
    free(meta);
    return rc;
}

int cli_sweep(int argc, char **argv) {
    return with_command_line(sweep_cmd, argc, argv);
}

static void merge_usage(FILE *out) {
    fputs("usage: themis merge OUT.csv PART.csv... [--spec SPEC.json] [--force]\n"
          "\n"
          "Join the shard files of one sweep (themis sweep --shard K/N) into the file a single\n"
          "run would have written. Headers must match; every point must be in exactly one part.\n"
          "Parts are CSV, or JSONL (themis sweep -f jsonl), all of one format. OUT.meta.json\n"
          "records the merge; its spec comes from --spec or the parts' sidecars, and it is\n"
          "complete when every point of that spec is in OUT.\n"
          "\n"
          "options:\n",
          out);
    cli_help_options(out, &cli_merge_def);
    fputs("\n"
          "example:\n"
          "  themis merge out/all.csv out/part0.csv out/part1.csv --spec "
          "sweeps/x.json\n" CLI_HELP_EXIT,
          out);
}

/* merge's options: the command line's only (no API command). */
typedef struct merge_request {
    const char *spec;
    int force;
    uint64_t given;
} merge_request;

static const th_option merge_opts[] = {
    {0, "spec", NULL, TH_ARG_STRING, offsetof(merge_request, spec), "SPEC",
     .help = "also check that no point of the spec is missing at the end"},
    {0, "force", NULL, TH_ARG_FLAG, offsetof(merge_request, force),
     .help = "overwrite OUT.csv if it exists"},
    TH_ARG_HELP_OPTS,
};

const th_cmd_def cli_merge_def = {
    "merge", merge_opts, sizeof merge_opts / sizeof merge_opts[0], offsetof(merge_request, given),
    20,      NULL};

static int merge_cmd(int argc, char **argv, char **typed) {
    merge_request q = {0};
    char **ops = calloc((size_t)argc, sizeof *ops);
    int nops = 0;
    int rc = ops ? cli_args(&cli_merge_def, argc, argv, &q, merge_usage, ops, argc, &nops)
                 : cli_fail(&(th_error){TH_EINTERNAL, "out of memory"});
    if (rc == CLI_OK && nops < 2)
        rc = cli_usage_error("merge", "expected OUT.csv and at least one part");
    if (rc) {
        free(ops);
        return rc < 0 ? CLI_OK : rc;
    }
    const char *spec = q.spec, *out = ops[0];
    const char *const *parts = (const char *const *)ops + 1;
    int nparts = nops - 1, force = q.force;
    th_error err = {0};
    th_sweep *sw = NULL;
    if (spec && th_sweep_load(spec, &sw, &err)) rc = err.code;
    if (rc == TH_OK) rc = merge(out, parts, nparts, spec, sw, force, argc + 1, typed, &err);
    th_sweep_free(sw);
    free(ops);
    return rc ? cli_fail(&err) : CLI_OK;
}

int cli_merge(int argc, char **argv) {
    return with_command_line(merge_cmd, argc, argv);
}

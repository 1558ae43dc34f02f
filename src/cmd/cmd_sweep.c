/* `sweep`: its options (the command line's `themis sweep` writes the rows to a file with its
 * sidecar, src/cli/sweep.c) and the API's "sweep": every point of a spec, its CSV records handed
 * to the caller's row callback as they complete (nothing is kept), the counts as the result. */
#include <stdatomic.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>

#include "../report_internal.h"
#include "cmd.h"
#include "themis/csv.h"

#define R(field) offsetof(th_sweep_request, field)

static const th_option opts[] = {
    {0, NULL, "spec", TH_ARG_SOURCE, R(spec), .noun = "sweep spec"}, /* the operand */
    {'o', "output", NULL, TH_ARG_STRING, R(output), "FILE",
     .help = "CSV to write ('-' = stdout; default: the spec's \"output\")"},
    TH_ARG_FORMAT_OPT(R(format), 1u << TH_FORMAT_CSV | 1u << TH_FORMAT_JSONL,
                      "{} (default csv; jsonl: one JSON object per point,\nthe CSV's columns as "
                      "keys, no header)"),
    {'j', "jobs", "jobs", TH_ARG_INT, R(jobs), "N",
     .help = "worker threads (default: all cores); output is identical", .lo = 1, .hi = 1024},
    {0, "shard", "shard", TH_ARG_STRING, R(shard), "K/N",
     .help = "compute only points i with i mod N == K (0 <= K < N <= 100000000)"},
    {0, NULL, "base_dir", TH_ARG_STRING, R(base_dir), .noun = "folder"}, /* the API's */
    {0, "resume", NULL, TH_ARG_FLAG, R(resume),
     .help = "continue an interrupted output file from its last row"},
    {0, "force", NULL, TH_ARG_FLAG, R(force), .help = "overwrite an existing output file"},
    {0, "dry-run", NULL, TH_ARG_FLAG, R(dry_run),
     .help = "print the number of points and the first few, compute nothing"},
    {0, "quiet", NULL, TH_ARG_FLAG, R(quiet),
     .help = "no progress bar (it is shown only on a terminal anyway)"},
    TH_ARG_HELP_OPTS,
};

const th_cmd_def th_cmd_sweep_def = {"sweep",  opts, sizeof opts / sizeof opts[0],
                                     R(given), 22,   NULL};

void th_sweep_request_init(th_sweep_request *r) {
    memset(r, 0, sizeof *r);
    r->format = TH_FORMAT_CSV;
}

int th_cmd_sweep_load(const th_sweep_request *r, th_sweep **sw, th_shard *shard, th_error *err) {
    *sw = NULL;
    *shard = (th_shard){0, 1};
    if (r->shard && th_shard_parse(r->shard, shard, err)) return err->code;
    const th_arg_src *s = &r->spec;
    int rc = s->path ? th_sweep_load(s->path, sw, err)
             : s->text
                 ? th_sweep_parse(s->text, strlen(s->text), "spec", r->base_dir ? r->base_dir : ".",
                                  sw, err)
                 : th_error_set(err, TH_EINPUT,
                                "sweep: spec: expected a file name or a sweep spec object, got "
                                "nothing");
    if (rc == TH_OK)
        rc = th_sweep_set_format(*sw, r->format == TH_FORMAT_JSONL ? TH_SWEEP_JSONL : TH_SWEEP_CSV,
                                 err);
    if (rc) th_sweep_free(*sw), *sw = NULL;
    return rc;
}

typedef struct sink {
    th_cmd_row_fn row;
    void *ctx;
    atomic_int stop; /* the callback asked to stop, or a record could not be read */
    int64_t rows;    /* rows delivered, the header not counted */
    int header;      /* the header was delivered */
    int rc;          /* reading the records back failed */
    th_error err;
} sink;

/* th_sweep_opts.write: whole records, in order; each goes to the callback as its fields. */
static int deliver(void *ctx, const char *p, size_t n) {
    sink *s = ctx;
    if (atomic_load(&s->stop)) return 0; /* rows computed before the stop was seen */
    th_csv_reader r;
    th_csv_open_mem(&r, p, n, "sweep");
    int st;
    while ((st = th_csv_read(&r, &s->err)) == 1) {
        if (s->row && s->row(s->ctx, r.nfields, (const char *const *)r.fields)) {
            atomic_store(&s->stop, 1);
            break;
        }
        if (s->header)
            s->rows++;
        else
            s->header = 1;
    }
    if (st < 0) {
        s->rc = s->err.code;
        atomic_store(&s->stop, 1);
    }
    th_csv_close(&r);
    return 0;
}

int th_cmd_sweep_rows(const th_sweep_request *r, th_cmd_row_fn row, void *ctx, FILE *out,
                      th_error *err) {
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int jobs = r->jobs ? (int)r->jobs : cores > 0 ? (int)cores : 1;
    th_sweep *sw;
    th_shard shard;
    if (th_cmd_sweep_load(r, &sw, &shard, err)) return err->code;
    sink s = {.row = row, .ctx = ctx};
    atomic_init(&s.stop, 0);
    th_buf h = {0};
    int rc = th_sweep_header(sw, &h, err);
    if (rc == TH_OK) deliver(&s, h.p, h.len);
    th_buf_free(&h);
    int64_t done = 0;
    if (rc == TH_OK && !atomic_load(&s.stop)) {
        th_sweep_opts so = {jobs, shard, 0, -1, &s.stop, NULL, NULL};
        rc = th_sweep_run_to(sw, &so, deliver, &s, &done, err);
    }
    if (rc == TH_OK && s.rc) rc = s.rc, *err = s.err;
    if (rc == TH_OK) {
        cJSON *o = cJSON_CreateObject();
        if (!o || !cJSON_AddStringToObject(o, "name", th_sweep_name(sw)) ||
            !cJSON_AddNumberToObject(o, "points", (double)th_shard_points(sw, shard)) ||
            !cJSON_AddNumberToObject(o, "rows", (double)s.rows)) {
            cJSON_Delete(o);
            rc = th_error_set(err, TH_EINTERNAL, "out of memory");
        } else {
            rc = th_report_write_json(out, o, err);
        }
    }
    th_sweep_free(sw);
    return rc;
}

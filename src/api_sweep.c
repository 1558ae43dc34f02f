/* The embedding entry point's "sweep": every point of a spec, its CSV records handed to the
 * caller's row callback as they complete (nothing is kept), the counts as the result. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api_internal.h"
#include "json.h"
#include "report_internal.h"
#include "themis/csv.h"
#include "themis/sweep.h"

typedef struct sink {
    th_api_row_fn row;
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

int th_api_sweep(const th_api_req *q, FILE *out, th_error *err) {
    static const char *const keys[] = {"spec", "jobs", "shard", "base_dir", NULL};
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int64_t jobs = cores > 0 ? cores : 1;
    const char *shard_text = NULL, *base_dir = ".";
    th_shard shard = {0, 1};
    if (th_api_keys(q, keys, err) || th_api_int(q, "jobs", 1, 1024, &jobs, NULL, err) ||
        th_api_string(q, "shard", &shard_text, err) ||
        th_api_string(q, "base_dir", &base_dir, err) ||
        (shard_text && th_shard_parse(shard_text, &shard, err)))
        return err->code;
    const cJSON *spec = cJSON_GetObjectItemCaseSensitive(q->root, "spec");
    th_sweep *sw = NULL;
    if (cJSON_IsString(spec)) {
        if (th_sweep_load(spec->valuestring, &sw, err)) return err->code;
    } else if (cJSON_IsObject(spec)) {
        char *text;
        if (th_api_object_text(q, spec, &text, err)) return err->code;
        int rc = th_sweep_parse(text, strlen(text), "spec", base_dir, &sw, err);
        cJSON_free(text);
        if (rc) return rc;
    } else {
        return th_json_bad(err, q->cmd, "spec", "a file name or a sweep spec object", spec);
    }
    sink s = {.row = q->row, .ctx = q->row_ctx};
    atomic_init(&s.stop, 0);
    th_buf h = {0};
    int rc = th_sweep_header(sw, &h, err);
    if (rc == TH_OK) deliver(&s, h.p, h.len);
    th_buf_free(&h);
    int64_t done = 0;
    if (rc == TH_OK && !atomic_load(&s.stop)) {
        th_sweep_opts so = {(int)jobs, shard, 0, -1, &s.stop, NULL, NULL};
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

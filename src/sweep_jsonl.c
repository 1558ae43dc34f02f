/* Sweep rows as JSON lines (themis sweep -f jsonl): which columns hold numbers, each CSV row
 * turned into one JSON object with the same columns and digits, and the scan of a partial
 * JSONL file for --resume. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "report_internal.h"
#include "sweep_internal.h"
#include "themis/csv.h"
#include "themis/str.h"

/* The columns of the CSV header, and for each whether its fields are numbers: the point, the
 * numeric axes and every result column (empty for a dim a system lacks). */
static int columns(th_sweep *sw, th_error *err) {
    th_buf h = {0};
    th_csv_reader r;
    int rc = th_sweep_header(sw, &h, err);
    th_csv_open_mem(&r, h.p, h.len, sw->source);
    if (rc == TH_OK && th_csv_read(&r, err) != 1)
        rc = th_error_set(err, TH_EINTERNAL, "%s: cannot read back the sweep's header", sw->source);
    if (rc == TH_OK) {
        sw->cols = calloc(r.nfields, sizeof *sw->cols);
        sw->numeric = calloc(r.nfields, 1);
        if (!sw->cols || !sw->numeric) rc = th_error_set(err, TH_EINTERNAL, "out of memory");
    }
    for (size_t i = 0; rc == TH_OK && i < r.nfields; i++) {
        if (!(sw->cols[i] = th_strdup(r.fields[i])))
            rc = th_error_set(err, TH_EINTERNAL, "out of memory");
        sw->ncols++;
        sw->numeric[i] = 1; /* the point and the results */
    }
    for (int a = 0, c = 1; rc == TH_OK && a < sw->naxes; a++) {
        sw->numeric[c++] = (unsigned char)sw_axis_numeric(&sw->axes[a]);
        if (SW_HAS_FILE(&sw->axes[a])) sw->numeric[c++] = 0;
    }
    th_csv_close(&r);
    th_buf_free(&h);
    return rc;
}

int th_sweep_set_format(th_sweep *sw, th_sweep_format format, th_error *err) {
    sw->jsonl = 0;
    if (format == TH_SWEEP_JSONL && !sw->cols) {
        int rc = columns(sw, err);
        if (rc) return rc;
    }
    sw->jsonl = format == TH_SWEEP_JSONL;
    return TH_OK;
}

/* A numeric field as a JSON value: the CSV's digits, or null for an empty field (and for
 * anything JSON cannot hold as a number, such as inf). */
static cJSON *number(const char *f) {
    char *end;
    double v = *f ? strtod(f, &end) : NAN;
    return *f && !*end && isfinite(v) ? cJSON_CreateRaw(f) : cJSON_CreateNull();
}

int sw_jsonl_row(const th_sweep *sw, th_buf *out, size_t from, th_error *err) {
    th_csv_reader r; /* its fields are its own copies: the CSV row is dropped once read */
    th_csv_open_mem(&r, out->p + from, out->len - from, sw->source);
    int rc = TH_OK;
    if (th_csv_read(&r, err) != 1 || r.nfields != (size_t)sw->ncols)
        rc = th_error_set(err, TH_EINTERNAL, "%s: a row of %zu fields for %d columns", sw->source,
                          r.nfields, sw->ncols);
    th_buf_truncate(out, from);
    cJSON *o = rc ? NULL : cJSON_CreateObject();
    if (rc == TH_OK && !o) rc = th_error_set(err, TH_EINTERNAL, "out of memory");
    for (size_t i = 0; rc == TH_OK && i < r.nfields; i++) {
        const char *f = r.fields[i];
        cJSON *v = sw->numeric[i] ? number(f) : cJSON_CreateString(f);
        if (!v || th_report_json_utf8(v) || !cJSON_AddItemToObject(o, sw->cols[i], v)) {
            cJSON_Delete(v);
            rc = th_error_set(err, TH_EINTERNAL, "out of memory");
        }
    }
    char *text = rc ? NULL : cJSON_PrintUnformatted(o);
    if (rc == TH_OK && (!text || th_buf_add(out, text, strlen(text)) || th_buf_add(out, "\n", 1)))
        rc = th_error_set(err, TH_EINTERNAL, "out of memory");
    if (text) cJSON_free(text);
    cJSON_Delete(o);
    th_csv_close(&r);
    return rc;
}

/* How much of a line a message quotes: at most 60 bytes, without its line break. */
static int shown(const th_buf *b) {
    size_t n = b->len && b->p[b->len - 1] == '\n' ? b->len - 1 : b->len;
    return n < 60 ? (int)n : 60;
}

int sw_jsonl_resume_scan(const th_sweep *sw, th_shard shard, const char *path, int64_t *rows,
                         off_t *keep, th_error *err) {
    *rows = 0;
    *keep = 0;
    FILE *f = fopen(path, "rb");
    if (!f) return th_error_set(err, TH_EINPUT, "%s: cannot open: %s", path, strerror(errno));
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    th_buf last = {0}, want = {0};
    int64_t count = 0;
    off_t pos = 0;
    int rc = TH_OK;
    /* complete lines only: a partial last line (an interrupted write) is cut */
    while (rc == TH_OK && (n = getline(&line, &cap, f)) > 0 && line[n - 1] == '\n') {
        count++;
        pos += (off_t)n;
        last.len = 0;
        if (th_buf_add(&last, line, (size_t)n))
            rc = th_error_set(err, TH_EINTERNAL, "out of memory");
    }
    if (rc == TH_OK && ferror(f))
        rc = th_error_set(err, TH_EIO, "%s: read error: %s", path, strerror(errno));
    free(line);
    fclose(f);
    if (rc == TH_OK) rc = sw_resume_count_check(sw, shard, path, count, err);
    if (rc == TH_OK && count > 0) { /* its last row must be what this sweep computes there */
        int64_t point = th_shard_point(shard, count - 1);
        th_sweep_worker *w = th_sweep_worker_create(sw);
        th_error e;
        int wrc =
            w ? th_sweep_row(w, point, &want, &e) : th_error_set(&e, TH_EINTERNAL, "out of memory");
        th_sweep_worker_free(w);
        if (wrc)
            rc = th_error_set(err, wrc, "%s: recomputing its last row %" PRId64 ": %s", path, count,
                              e.msg);
        else if (want.len != last.len || memcmp(want.p, last.p, last.len))
            rc = th_error_set(err, TH_EINPUT,
                              "%s: row %" PRId64 " is not point %" PRId64 " of this sweep%s as "
                              "JSONL: the file has \"%.*s\", recomputing it gives \"%.*s\"; not "
                              "resuming: use --force to start over",
                              path, count, point, shard.n > 1 ? " shard" : "", shown(&last), last.p,
                              shown(&want), want.p);
    }
    if (rc == TH_OK) {
        *rows = count;
        *keep = pos;
    }
    th_buf_free(&last);
    th_buf_free(&want);
    return rc;
}

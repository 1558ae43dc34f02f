/* Merging shard files: a streaming k-way merge on the point column (same header, no overlap,
 * no gap) into a stream; the caller's th_output replaces the file only when all passed. CSV
 * parts, or JSONL parts (themis sweep -f jsonl: every line an object whose first key is the
 * point). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "themis/csv.h"
#include "themis/sweep.h"

typedef struct part {
    const char *path;
    FILE *f;
    int jsonl;       /* a JSONL part: line holds the current row */
    int empty;       /* no byte at all: a JSONL shard without points; of the others' format */
    char *line;      /* JSONL: the current line, line break included */
    size_t cap;      /* bytes allocated for line */
    size_t len;      /* bytes in line */
    th_csv_reader r; /* CSV: r.fields is the current row */
    int64_t point;   /* of the current row; -1 at end */
    int64_t row;     /* 1-based row number of the current row */
} part;

#define JSONL_POINT "{\"point\":"

/* JSONL: reads the next line into p->line; 1, 0 at the end, or -1 with err set. */
static int next_line(part *p, th_error *err) {
    errno = 0;
    ssize_t n = getline(&p->line, &p->cap, p->f);
    if (n < 0 && ferror(p->f))
        return th_error_set(err, TH_EIO, "%s: read error: %s", p->path, strerror(errno)), -1;
    p->len = n < 0 ? 0 : (size_t)n;
    return n > 0;
}

/* Reads the next row of p; sets p->point (-1 at the end). */
static int next_row(part *p, th_error *err) {
    int64_t prev = p->point;
    int st = p->jsonl ? next_line(p, err) : th_csv_read(&p->r, err);
    p->point = -1;
    if (st < 0) return err->code;
    if (st == 0) return TH_OK;
    p->row++;
    if (p->jsonl ? p->line[p->len - 1] != '\n' : !p->r.complete)
        return th_error_set(err, TH_EINPUT,
                            "%s: row %" PRId64 " is incomplete (an interrupted shard? finish it "
                            "with --resume)",
                            p->path, p->row);
    const char *f = p->jsonl ? p->line + strlen(JSONL_POINT) : p->r.fields[0];
    char *end;
    errno = 0;
    long long v = -1;
    if (!p->jsonl || !strncmp(p->line, JSONL_POINT, strlen(JSONL_POINT))) v = strtoll(f, &end, 10);
    if (v < 0 || end == f || (p->jsonl ? *end != ',' && *end != '}' : *end != '\0') || errno)
        return th_error_set(err, TH_EINPUT,
                            "%s: row %" PRId64 " (line %" PRId64 "): expected a point number first",
                            p->path, p->row, p->jsonl ? p->row : p->r.line);
    if (v <= prev)
        return th_error_set(err, TH_EINPUT,
                            "%s: row %" PRId64 ": point %lld after point %" PRId64
                            " (rows must be in point order)",
                            p->path, p->row, v, prev);
    p->point = v;
    return TH_OK;
}

static int merge_into(FILE *out, part *parts, int n, int64_t expect, int64_t *points,
                      th_error *err) {
    th_buf header = {0}, h = {0};
    int rc = TH_OK;
    for (int i = 0; i < n && rc == TH_OK; i++) {
        part *p = &parts[i];
        if (p->jsonl != parts[0].jsonl) {
            rc = th_error_set(err, TH_EINPUT, "%s: is %s but %s is %s; merge parts of one format",
                              p->path, p->jsonl ? "JSONL" : "CSV", parts[0].path,
                              parts[0].jsonl ? "JSONL" : "CSV");
            break;
        }
        if (p->jsonl) { /* no header */
            p->point = -1;
            rc = next_row(p, err);
            continue;
        }
        int st = th_csv_read(&p->r, err);
        h.len = 0;
        if (st < 0) {
            rc = err->code;
        } else if (st == 0 || !p->r.complete || strcmp(p->r.fields[0], "point")) {
            rc = th_error_set(err, TH_EINPUT, "%s: expected a sweep CSV header (point,...)",
                              p->path);
        } else if (th_csv_copy(i ? &h : &header, &p->r)) {
            rc = th_error_set(err, TH_EINTERNAL, "out of memory");
        } else if (i && (h.len != header.len || memcmp(h.p, header.p, h.len))) {
            rc = th_error_set(err, TH_EINPUT, "%s: its header differs from %s's", p->path,
                              parts[0].path);
        }
        p->point = -1;
        if (rc == TH_OK) rc = next_row(p, err);
    }
    th_buf_free(&h);
    /* write errors stay on out for the caller's close, which names the file */
    if (rc == TH_OK && !parts[0].jsonl) th_csv_write(out, &header);
    int64_t want = 0;
    while (rc == TH_OK) {
        int best = -1;
        for (int i = 0; i < n && rc == TH_OK; i++) {
            if (parts[i].point < 0) continue;
            if (best >= 0 && parts[i].point == parts[best].point)
                rc = th_error_set(err, TH_EINPUT, "point %" PRId64 " is in both %s and %s",
                                  parts[i].point, parts[best].path, parts[i].path);
            if (best < 0 || parts[i].point < parts[best].point) best = i;
        }
        if (rc != TH_OK || best < 0) break;
        if (parts[best].point != want) {
            rc = th_error_set(err, TH_EINPUT,
                              "point %" PRId64 " is in no part (the next one, "
                              "%" PRId64 ", is in %s)",
                              want, parts[best].point, parts[best].path);
            break;
        }
        if (parts[best].jsonl)
            fwrite(parts[best].line, 1, parts[best].len, out);
        else if (th_csv_copy(&header, &parts[best].r))
            rc = th_error_set(err, TH_EINTERNAL, "out of memory");
        else
            th_csv_write(out, &header);
        want++;
        if (rc == TH_OK) rc = next_row(&parts[best], err);
    }
    th_buf_free(&header);
    *points = want;
    if (rc == TH_OK && expect >= 0 && want != expect)
        rc = th_error_set(err, TH_EINPUT,
                          "the parts hold points 0 to %" PRId64 ", but the sweep "
                          "has %" PRId64 " points",
                          want - 1, expect);
    return rc;
}

int th_sweep_merge(FILE *out, const char *const *paths, int n, int64_t expect, int64_t *points,
                   int *is_jsonl, th_error *err) {
    int64_t written = 0;
    if (!points) points = &written;
    *points = 0;
    if (n < 1) return th_error_set(err, TH_EINPUT, "merge: no parts given");
    part *parts = calloc((size_t)n, sizeof *parts);
    if (!parts) return th_error_set(err, TH_EINTERNAL, "out of memory");
    int rc = TH_OK;
    for (int i = 0; i < n && rc == TH_OK; i++) {
        for (int j = 0; j < i; j++)
            if (!strcmp(paths[i], paths[j]))
                rc = th_error_set(err, TH_EINPUT, "%s: given twice", paths[i]);
        parts[i].path = paths[i];
        if (rc == TH_OK && !(parts[i].f = fopen(paths[i], "rb")))
            rc = th_error_set(err, TH_EINPUT, "%s: cannot open: %s", paths[i], strerror(errno));
        if (parts[i].f) { /* a JSONL part opens with an object */
            int c = getc(parts[i].f);
            parts[i].jsonl = c == '{';
            parts[i].empty = c == EOF;
            if (c != EOF) ungetc(c, parts[i].f);
            if (rc == TH_OK && ferror(parts[i].f)) /* a folder opens, then fails to read */
                rc = th_error_set(err, TH_EIO, "%s: read error: %s", paths[i], strerror(errno));
            th_csv_open_file(&parts[i].r, parts[i].f, paths[i]);
        }
    }
    int jsonl = 0; /* the format of the first part with content */
    for (int i = n - 1; i >= 0; i--)
        if (!parts[i].empty) jsonl = parts[i].jsonl;
    for (int i = 0; i < n; i++)
        if (parts[i].empty) parts[i].jsonl = jsonl;
    if (is_jsonl) *is_jsonl = jsonl;
    if (rc == TH_OK) rc = merge_into(out, parts, n, expect, points, err);
    for (int i = 0; i < n; i++) {
        if (parts[i].f) fclose(parts[i].f);
        th_csv_close(&parts[i].r);
        free(parts[i].line);
    }
    free(parts);
    return rc;
}

/* Merging shard files: a streaming k-way merge on the point column (same header, no overlap,
 * no gap) into a stream; the caller's th_output replaces the file only when all passed. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "themis/sweep.h"

typedef struct part {
    const char *path;
    FILE *f;
    char *line; /* current row */
    size_t cap;
    ssize_t len;
    int64_t point; /* of the current row; -1 at end */
    int64_t row;   /* 1-based row number of the current row */
} part;

/* Reads the next row of p; sets p->point (-1 at the end). */
static int next_row(part *p, th_error *err) {
    int64_t prev = p->point;
    p->len = getline(&p->line, &p->cap, p->f);
    if (p->len <= 0) {
        p->point = -1;
        if (ferror(p->f)) return th_error_set(err, TH_EINPUT, "%s: read error", p->path);
        return TH_OK;
    }
    p->row++;
    if (p->line[p->len - 1] != '\n')
        return th_error_set(err, TH_EINPUT,
                            "%s: row %" PRId64 " is incomplete (an interrupted shard? finish it "
                            "with --resume)",
                            p->path, p->row);
    char *end;
    errno = 0;
    long long v = strtoll(p->line, &end, 10);
    if (end == p->line || *end != ',' || v < 0 || errno)
        return th_error_set(err, TH_EINPUT, "%s: row %" PRId64 ": expected a point number first",
                            p->path, p->row);
    if (v <= prev)
        return th_error_set(err, TH_EINPUT,
                            "%s: row %" PRId64 ": point %lld after point %" PRId64
                            " (rows must be in point order)",
                            p->path, p->row, v, prev);
    p->point = v;
    return TH_OK;
}

static int merge_into(FILE *out, part *parts, int n, int64_t expect, th_error *err) {
    char *header = NULL;
    size_t hcap = 0;
    ssize_t hlen = 0;
    int rc = TH_OK;
    for (int i = 0; i < n && rc == TH_OK; i++) {
        part *p = &parts[i];
        char *h = NULL;
        size_t cap = 0;
        ssize_t len = getline(&h, &cap, p->f);
        if (len <= 0 || h[len - 1] != '\n' || strncmp(h, "point,", 6))
            rc = th_error_set(err, TH_EINPUT, "%s: expected a sweep CSV header (point,...)",
                              p->path);
        else if (!header)
            header = h, hcap = cap, hlen = len, h = NULL;
        else if (len != hlen || memcmp(h, header, (size_t)len))
            rc = th_error_set(err, TH_EINPUT, "%s: its header differs from %s's", p->path,
                              parts[0].path);
        free(h);
        p->point = -1;
        if (rc == TH_OK) rc = next_row(p, err);
    }
    (void)hcap;
    if (rc == TH_OK) fwrite(header, 1, (size_t)hlen, out);
    free(header);
    int64_t want = 0;
    while (rc == TH_OK) {
        int best = -1;
        for (int i = 0; i < n; i++) {
            if (parts[i].point < 0) continue;
            if (best >= 0 && parts[i].point == parts[best].point)
                return th_error_set(err, TH_EINPUT, "point %" PRId64 " is in both %s and %s",
                                    parts[i].point, parts[best].path, parts[i].path);
            if (best < 0 || parts[i].point < parts[best].point) best = i;
        }
        if (best < 0) break;
        if (parts[best].point != want)
            return th_error_set(err, TH_EINPUT,
                                "point %" PRId64 " is in no part (the next one, "
                                "%" PRId64 ", is in %s)",
                                want, parts[best].point, parts[best].path);
        fwrite(parts[best].line, 1, (size_t)parts[best].len, out);
        want++;
        rc = next_row(&parts[best], err);
    }
    if (rc == TH_OK && expect >= 0 && want != expect)
        rc = th_error_set(err, TH_EINPUT,
                          "the parts hold points 0 to %" PRId64 ", but the sweep "
                          "has %" PRId64 " points",
                          want - 1, expect);
    return rc;
}

int th_sweep_merge(FILE *out, const char *const *paths, int n, int64_t expect, th_error *err) {
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
    }
    if (rc == TH_OK) rc = merge_into(out, parts, n, expect, err);
    for (int i = 0; i < n; i++) {
        if (parts[i].f) fclose(parts[i].f);
        free(parts[i].line);
    }
    free(parts);
    return rc;
}

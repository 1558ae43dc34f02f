/* Running a sweep: worker threads compute blocks of points, the calling thread writes the
 * blocks in point order (whole rows per write, so an interrupted file holds a valid prefix);
 * shards, and the scan of a partial output for --resume. */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sweep_internal.h"
#include "themis/csv.h"

/* Points per block: at most BLOCK_MAX (few writes, few lock round trips), and as the points
 * left shrink, 1 / (BLOCKS_PER_THREAD x threads) of them ("guided" blocks): points can differ
 * in cost by orders of magnitude, and the last blocks, which end the run, are single points,
 * so no thread is left with a long block while the others have nothing to do. */
#define BLOCK_MAX         128
#define BLOCKS_PER_THREAD 2

int th_shard_parse(const char *text, th_shard *out, th_error *err) {
    long long k, n;
    char tail;
    if (sscanf(text, "%lld/%lld%c", &k, &n, &tail) != 2 || n < 1 || k < 0 || k >= n ||
        n > TH_SWEEP_MAX_POINTS)
        return th_error_set(err, TH_EINPUT,
                            "--shard: expected K/N with 0 <= K < N <= %lld (e.g. 0/4), got \"%s\"",
                            (long long)TH_SWEEP_MAX_POINTS, text);
    out->k = k;
    out->n = n;
    return TH_OK;
}

int64_t th_shard_points(const th_sweep *sw, th_shard shard) {
    if (shard.k >= sw->points) return 0;
    return (sw->points - shard.k + shard.n - 1) / shard.n;
}

typedef struct slot {
    int ready;      /* computed, waiting to be written */
    int64_t lo, hi; /* its points, [lo, hi) of the shard */
    th_buf rows;
    int64_t nrows; /* complete rows in rows (a quoted field may hold line breaks) */
    int rc;        /* error of the block, if any (rows hold the points before it) */
    th_error err;
    int cut; /* stopped inside the block: rows hold the points before; write nothing after */
} slot;

typedef struct shared {
    const th_sweep *sw;
    const th_sweep_opts *opts;
    sw_refs *refs;   /* the reference runs, shared by the workers */
    int threads;     /* computing threads, the calling one included */
    int64_t total;   /* points of the shard */
    int64_t next_lo; /* first point not yet claimed */
    int64_t claimed; /* blocks claimed */
    int64_t written; /* blocks written */
    int window;      /* blocks in flight at most */
    slot *slots;     /* window slots, block b in slots[b % window] */
    int failed;
    pthread_mutex_t mu;
    pthread_cond_t cv;
} shared;

/* The stop flag is set from a signal handler: an atomic, so workers see it without a race. */
static int stopped(const shared *s) {
    return s->opts->stop && atomic_load_explicit(s->opts->stop, memory_order_relaxed);
}

/* Whether a block can be claimed now (the lock held). */
static int can_claim(const shared *s) {
    return !s->failed && !stopped(s) && s->next_lo < s->total &&
           s->claimed < s->written + s->window;
}

/* Claims the next block (the lock held): its slot. */
static slot *claim(shared *s) {
    int64_t left = s->total - s->next_lo, per = (int64_t)s->threads * BLOCKS_PER_THREAD;
    int64_t n = (left + per - 1) / per;
    if (n > BLOCK_MAX) n = BLOCK_MAX;
    slot *sl = &s->slots[s->claimed++ % s->window];
    sl->lo = s->next_lo;
    sl->hi = s->next_lo += n;
    return sl;
}

/* Computes a claimed block's rows into `local` (the lock not held), then hands them to its
 * slot (the lock held on return); `local` gets the slot's old buffer. Returns non-zero when
 * this worker is to stop (an error, or stopped inside the block). */
static int compute(shared *s, th_sweep_worker *w, slot *sl, th_buf *local) {
    int rc = TH_OK, cut = 0;
    th_error err = {0};
    int64_t nrows = 0;
    local->len = 0;
    if (!w) rc = th_error_set(&err, TH_EINTERNAL, "out of memory");
    /* A point that takes long is ended by the stop flag too ("interrupted"): the block is cut
     * before it, and its error is not one. */
    for (int64_t j = sl->lo; j < sl->hi && rc == TH_OK && !cut; j++) {
        if (stopped(s)) {
            cut = 1;
            break;
        }
        rc = th_sweep_row(w, th_shard_point(s->opts->shard, s->opts->start + j), local, &err);
        if (rc == TH_OK) nrows++; /* on an error nothing was appended: no half-written row */
        if (rc && stopped(s)) rc = TH_OK, cut = 1;
    }
    pthread_mutex_lock(&s->mu);
    th_buf t = sl->rows;
    sl->rows = *local;
    *local = t;
    sl->nrows = nrows;
    sl->rc = rc;
    sl->err = err;
    sl->cut = cut;
    sl->ready = 1;
    if (rc) s->failed = 1;
    pthread_cond_broadcast(&s->cv);
    return rc || cut;
}

static th_sweep_worker *new_worker(const shared *s) {
    th_sweep_worker *w = sw_worker_create_shared(s->sw, s->refs);
    if (w) th_sweep_worker_set_stop(w, s->opts->stop);
    return w;
}

/* A worker thread: claims and computes blocks until none is left. */
static void *worker(void *arg) {
    shared *s = arg;
    th_sweep_worker *w = new_worker(s);
    th_buf local = {0};
    pthread_mutex_lock(&s->mu);
    for (;;) {
        while (!can_claim(s) && !s->failed && !stopped(s) && s->next_lo < s->total)
            pthread_cond_wait(&s->cv, &s->mu); /* the window is full */
        if (!can_claim(s)) break;
        slot *sl = claim(s);
        pthread_mutex_unlock(&s->mu);
        if (compute(s, w, sl, &local)) break;
    }
    pthread_mutex_unlock(&s->mu);
    th_buf_free(&local);
    th_sweep_worker_free(w);
    return NULL;
}

static int write_all(void *ctx, const char *p, size_t n) {
    int fd = *(const int *)ctx;
    while (n > 0) {
        ssize_t k = write(fd, p, n);
        if (k < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        p += k, n -= (size_t)k;
    }
    return 0;
}

int th_sweep_run(const th_sweep *sw, const th_sweep_opts *opts, int64_t *done, th_error *err) {
    return th_sweep_run_to(sw, opts, write_all, (void *)&opts->fd, done, err);
}

int th_sweep_run_to(const th_sweep *sw, const th_sweep_opts *opts, th_sweep_write_fn write,
                    void *write_ctx, int64_t *done, th_error *err) {
    shared s = {0};
    s.sw = sw;
    s.opts = opts;
    int64_t shard_total = th_shard_points(sw, opts->shard);
    *done = opts->start < shard_total ? opts->start : shard_total;
    if (opts->start >= shard_total) return TH_OK;
    s.total = shard_total - opts->start; /* points of this run, from opts->start on */
    s.threads = opts->threads < 1 ? 1 : opts->threads;
    if (s.threads > s.total) s.threads = (int)s.total;
    s.window = 8 * s.threads;
    s.slots = calloc((size_t)s.window, sizeof *s.slots);
    s.refs = sw_refs_create(sw);
    pthread_t *tid = calloc((size_t)s.threads, sizeof *tid);
    if (!s.slots || !tid || !s.refs) {
        free(s.slots);
        free(tid);
        sw_refs_free(s.refs);
        return th_error_set(err, TH_EINTERNAL, "out of memory");
    }
    pthread_mutex_init(&s.mu, NULL);
    pthread_cond_init(&s.cv, NULL);
    int started = 0, rc = TH_OK;
    /* The calling thread computes too; threads - 1 more are started. */
    for (; started < s.threads - 1; started++)
        if (pthread_create(&tid[started], NULL, worker, &s)) break;
    th_sweep_worker *w = new_worker(&s);
    th_buf local = {0};
    int mine_done = 0; /* the calling thread stopped computing (an error or a cut) */

    /* The calling thread writes the blocks in order, as soon as each is ready, and computes a
     * block whenever the next one to write is not ready and one can be claimed. */
    pthread_mutex_lock(&s.mu);
    while (rc == TH_OK) {
        slot *sl = &s.slots[s.written % s.window];
        if (s.written < s.claimed && sl->ready) {
            pthread_mutex_unlock(&s.mu);
            int wrc = write(write_ctx, sl->rows.p, sl->rows.len);
            int64_t rows = sl->nrows;
            pthread_mutex_lock(&s.mu);
            *done += rows;
            if (wrc) {
                rc = th_error_set(err, TH_EIO, "write error: %s", strerror(errno));
                s.failed = 1;
            } else if (sl->rc) {
                rc = sl->rc;
                *err = sl->err;
            }
            int cut = sl->cut;
            sl->ready = sl->cut = 0;
            s.written++;
            pthread_cond_broadcast(&s.cv);
            if (opts->progress) {
                pthread_mutex_unlock(&s.mu);
                opts->progress(opts->progress_ctx, *done, shard_total);
                pthread_mutex_lock(&s.mu);
            }
            if (cut) break; /* stopped inside this block: the rows after it are missing */
            continue;
        }
        if (s.written == s.claimed && (s.next_lo >= s.total || s.failed || stopped(&s)))
            break; /* everything claimed is written, and nothing more will be claimed */
        if (!mine_done && can_claim(&s)) {
            slot *mine = claim(&s);
            pthread_mutex_unlock(&s.mu);
            mine_done = compute(&s, w, mine, &local);
            continue;
        }
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += 100000000L;
        if (ts.tv_nsec >= 1000000000L) ts.tv_sec++, ts.tv_nsec -= 1000000000L;
        pthread_cond_timedwait(&s.cv, &s.mu, &ts);
        if (stopped(&s)) pthread_cond_broadcast(&s.cv);
    }
    s.failed |= rc != TH_OK;
    pthread_cond_broadcast(&s.cv);
    pthread_mutex_unlock(&s.mu);
    for (int t = 0; t < started; t++)
        pthread_join(tid[t], NULL);
    th_buf_free(&local);
    th_sweep_worker_free(w);
    for (int i = 0; i < s.window; i++)
        th_buf_free(&s.slots[i].rows);
    pthread_mutex_destroy(&s.mu);
    pthread_cond_destroy(&s.cv);
    sw_refs_free(s.refs);
    free(s.slots);
    free(tid);
    return rc;
}

/* Whether the fields of the record at b (a prefix: point and axis values) open record r. */
static int opens_with(const th_buf *b, const th_csv_reader *r, th_error *err) {
    th_csv_reader w;
    th_csv_open_mem(&w, b->p, b->len, "prefix");
    int st = th_csv_read(&w, err), same = st == 1 && w.nfields <= r->nfields;
    for (size_t i = 0; same && i < w.nfields; i++)
        same = !strcmp(w.fields[i], r->fields[i]);
    th_csv_close(&w);
    return same;
}

/* Recomputes `point` and compares its row byte for byte with `have`, row `row` of the file
 * (line break included); a difference names the first column that differs. */
static int check_row(const th_sweep *sw, int64_t point, const th_buf *have, const th_buf *header,
                     const char *path, int64_t row, th_error *err) {
    th_sweep_worker *w = th_sweep_worker_create(sw);
    th_buf want = {0};
    th_error e;
    int rc =
        w ? th_sweep_row(w, point, &want, &e) : th_error_set(&e, TH_EINTERNAL, "out of memory");
    th_sweep_worker_free(w);
    if (rc) {
        th_buf_free(&want);
        return th_error_set(err, rc, "%s: recomputing its last row %" PRId64 ": %s", path, row,
                            e.msg);
    }
    if (want.len == have->len && !memcmp(want.p, have->p, want.len)) {
        th_buf_free(&want);
        return TH_OK;
    }
    /* Name the first column that differs (or the line ending, when every field agrees). */
    th_csv_reader h, a, b;
    th_csv_open_mem(&h, header->p, header->len, path);
    th_csv_open_mem(&a, have->p, have->len, path);
    th_csv_open_mem(&b, want.p, want.len, path);
    const char *col = "(line ending)", *found = "", *expect = "";
    if (th_csv_read(&h, &e) == 1 && th_csv_read(&a, &e) == 1 && th_csv_read(&b, &e) == 1) {
        size_t n = a.nfields > b.nfields ? a.nfields : b.nfields;
        for (size_t i = 0; i < n; i++) {
            const char *x = i < a.nfields ? a.fields[i] : "(none)";
            const char *y = i < b.nfields ? b.fields[i] : "(none)";
            if (strcmp(x, y)) {
                col = i < h.nfields ? h.fields[i] : "(past the header)";
                found = x, expect = y;
                break;
            }
        }
    }
    rc = th_error_set(err, TH_EINPUT,
                      "%s: row %" PRId64 " (point %" PRId64 "), column %s: the file has \"%.80s\", "
                      "recomputing it gives \"%.80s\"; not resuming: use --force to start over",
                      path, row, point, col, found, expect);
    th_csv_close(&h);
    th_csv_close(&a);
    th_csv_close(&b);
    th_buf_free(&want);
    return rc;
}

int sw_resume_count_check(const th_sweep *sw, th_shard shard, const char *path, int64_t count,
                          th_error *err) {
    int64_t total = th_shard_points(sw, shard);
    if (count <= total) return TH_OK;
    return th_error_set(err, TH_EINPUT,
                        "%s: has %" PRId64 " rows, more than the %" PRId64
                        " points of this sweep%s",
                        path, count, total, shard.n > 1 ? " shard" : "");
}

int th_sweep_resume_scan(const th_sweep *sw, th_shard shard, const char *path, int64_t *rows,
                         off_t *keep, th_error *err) {
    if (sw->jsonl) return sw_jsonl_resume_scan(sw, shard, path, rows, keep, err);
    *rows = 0;
    *keep = 0;
    FILE *f = fopen(path, "rb");
    if (!f) return th_error_set(err, TH_EINPUT, "%s: cannot open: %s", path, strerror(errno));
    th_buf header = {0}, got = {0}, want = {0}, raw = {0};
    int rc = th_sweep_header(sw, &header, err);
    th_csv_reader r, last;
    th_csv_open_file(&r, f, path);
    th_csv_open_mem(&last, NULL, 0, path);
    off_t pos = 0;
    int64_t count = -1, last_start = 0; /* the header is record 0 */
    int st = 0;
    while (rc == TH_OK && (st = th_csv_read(&r, err)) == 1) {
        if (!r.complete) break; /* an incomplete last row (an interrupted write): dropped */
        if (count < 0) {
            got.len = 0;
            if (th_csv_copy(&got, &r)) {
                rc = th_error_set(err, TH_EINTERNAL, "out of memory");
            } else if (got.len != header.len || memcmp(got.p, header.p, header.len)) {
                rc = th_error_set(err, TH_EINPUT,
                                  "%s: its header is not this sweep's (another spec or "
                                  "version?); not resuming: use --force to start over",
                                  path);
            }
        }
        pos = (off_t)r.offset;
        count++;
        if (count > 0) { /* keep the last complete row, and where it is in the file */
            got.len = 0;
            if (th_csv_copy(&got, &r)) rc = th_error_set(err, TH_EINTERNAL, "out of memory");
            last_start = r.start;
        }
    }
    /* the last complete row as it is in the file, for the byte-for-byte comparison */
    if (rc == TH_OK && count > 0) {
        size_t n = (size_t)(pos - (off_t)last_start);
        if (th_buf_reserve(&raw, n + 1))
            rc = th_error_set(err, TH_EINTERNAL, "out of memory");
        else if (fseeko(f, (off_t)last_start, SEEK_SET) || fread(raw.p, 1, n, f) != n)
            rc = th_error_set(err, TH_EIO, "%s: cannot read back its last row: %s", path,
                              strerror(errno));
        else
            raw.len = n;
    }
    if (rc == TH_OK && st < 0) rc = err->code;
    fclose(f);
    th_csv_close(&r);
    if (rc == TH_OK) rc = sw_resume_count_check(sw, shard, path, count, err);
    if (rc == TH_OK && count > 0) {
        rc = th_sweep_prefix(sw, th_shard_point(shard, count - 1), &want, err);
        th_csv_open_mem(&last, got.p, got.len, path);
        if (rc == TH_OK && th_csv_read(&last, err) != 1)
            rc = th_error_set(err, TH_EINTERNAL, "%s: cannot read back its last row", path);
        if (rc == TH_OK && !opens_with(&want, &last, err))
            rc = th_error_set(err, TH_EINPUT,
                              "%s: row %" PRId64 " is not point %" PRId64 " of this sweep%s; not "
                              "resuming: use --force to start over",
                              path, count, th_shard_point(shard, count - 1),
                              shard.n > 1 ? " shard" : "");
        if (rc == TH_OK)
            rc = check_row(sw, th_shard_point(shard, count - 1), &raw, &header, path, count, err);
    }
    if (rc == TH_OK) {
        *rows = count > 0 ? count : 0;
        *keep = count >= 0 ? pos : 0;
    }
    th_csv_close(&last);
    th_buf_free(&header);
    th_buf_free(&got);
    th_buf_free(&want);
    th_buf_free(&raw);
    return rc;
}

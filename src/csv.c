/* CSV, RFC 4180: the one writer and the one reader (see include/themis/csv.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "themis/csv.h"
#include "themis/num.h"
#include "themis/text.h"

#define WINDOW (64 * 1024) /* bytes per stream read */

/* ---- writing ---- */

static int needs_quotes(const char *s) {
    size_t n = strlen(s);
    if (n == 0) return 0;
    if (strpbrk(s, ",\"\r\n")) return 1;
    /* a byte-order mark first: a reader strips one at the start of a file, not inside quotes */
    if (!strncmp(s, "\xef\xbb\xbf", 3)) return 1;
    return s[0] == ' ' || s[0] == '\t' || s[n - 1] == ' ' || s[n - 1] == '\t';
}

int th_csv_field(th_buf *b, const char *s) {
    int first = b->len == 0 || b->p[b->len - 1] == '\n';
    if (!first && th_buf_add(b, ",", 1)) return -1;
    if (!needs_quotes(s)) {
        if (first && !*s) return th_buf_add(b, "\"\"", 2);
        return th_buf_add(b, s, strlen(s));
    }
    size_t n = strlen(s), quotes = 0;
    for (const char *p = s; *p; p++)
        quotes += *p == '"';
    if (th_buf_reserve(b, n + quotes + 2)) return -1;
    char *o = b->p + b->len;
    *o++ = '"';
    for (; *s; s++) {
        if (*s == '"') *o++ = '"';
        *o++ = *s;
    }
    *o++ = '"';
    *o = '\0';
    b->len = (size_t)(o - b->p);
    return 0;
}

int th_csv_num(th_buf *b, double v) {
    char t[32];
    return th_csv_field(b, th_num_format(t, v));
}

int th_csv_int(th_buf *b, long long v) {
    char t[32];
    snprintf(t, sizeof t, "%lld", v);
    return th_csv_field(b, t);
}

int th_csv_end(th_buf *b) {
    return th_buf_add(b, "\n", 1);
}

int th_csv_write(FILE *out, th_buf *b) {
    size_t n = b->len;
    int rc = n && fwrite(b->p, 1, n, out) != n ? -1 : 0;
    th_buf_truncate(b, 0);
    return rc;
}

/* ---- reading ---- */

static void open_common(th_csv_reader *r, const char *name) {
    memset(r, 0, sizeof *r);
    r->name = name ? name : "CSV";
    r->next_line = 1;
}

void th_csv_open_file(th_csv_reader *r, FILE *f, const char *name) {
    open_common(r, name);
    r->f = f;
}

void th_csv_open_mem(th_csv_reader *r, const char *p, size_t n, const char *name) {
    open_common(r, name);
    r->src = p;
    r->len = n;
}

void th_csv_close(th_csv_reader *r) {
    free(r->window);
    free(r->fields);
    free(r->starts);
    th_buf_free(&r->data);
    r->window = NULL;
    r->fields = NULL;
    r->starts = NULL;
    r->cap = r->nfields = 0;
}

/* Makes a byte available at r->pos: 1, 0 at the end, -1 on a read error. */
static int fill(th_csv_reader *r) {
    if (r->pos < r->len) return 1;
    if (!r->f) return 0;
    if (!r->window && !(r->window = malloc(WINDOW))) return -2;
    size_t got = fread(r->window, 1, WINDOW, r->f);
    r->src = r->window;
    r->pos = 0;
    r->len = got;
    if (got > 0) return 1;
    return ferror(r->f) ? -1 : 0;
}

static int fill_error(th_csv_reader *r, int st, th_error *err) {
    if (st == -2) return th_error_set(err, TH_EINTERNAL, "out of memory"), -1;
    return th_error_set(err, TH_EIO, "%s: read error: %s", r->name, strerror(errno)), -1;
}

/* Starts a new field at the end of r->data. */
static int new_field(th_csv_reader *r) {
    if (r->nfields == r->cap) {
        size_t cs = r->cap, cf = r->cap; /* two arrays, one capacity */
        if (th_grow(&r->starts, &cs, r->cap + 1, sizeof *r->starts) ||
            th_grow(&r->fields, &cf, r->cap + 1, sizeof *r->fields))
            return -1;
        r->cap = cs;
    }
    r->starts[r->nfields++] = r->data.len;
    return 0;
}

/* Ends the field being read (its NUL). */
static int end_field(th_csv_reader *r) {
    return th_buf_add(&r->data, "", 1);
}

static int bad(th_csv_reader *r, th_error *err, const char *what) {
    th_error_set(err, TH_EINPUT, "%s: line %" PRId64 ": %s", r->name, r->next_line, what);
    return -1;
}

/* Length of the run of plain bytes at src[pos..len): none of the bytes that change the state
 * (quoted: '"', '\n', NUL; unquoted: ',', '"', '\r', '\n', NUL). */
static size_t plain_run(const th_csv_reader *r, int quoted) {
    size_t i = r->pos;
    if (quoted) {
        while (i < r->len && r->src[i] != '"' && r->src[i] != '\n' && r->src[i] != '\0')
            i++;
    } else {
        while (i < r->len && r->src[i] != ',' && r->src[i] != '"' && r->src[i] != '\r' &&
               r->src[i] != '\n' && r->src[i] != '\0')
            i++;
    }
    return i - r->pos;
}

int th_csv_read(th_csv_reader *r, th_error *err) {
    r->nfields = 0;
    r->data.len = 0;
    r->complete = 0;
    r->open_quote = 0;
    r->blank = 0;
    int st;
    if ((st = fill(r)) < 0) return fill_error(r, st, err);
    if (st == 0) return 0;
    r->line = r->next_line;
    r->start = r->offset;
    r->record++;
    /* A UTF-8 byte-order mark (spreadsheets write one) is no part of the first column's name. */
    if (r->offset == 0 && r->len - r->pos >= 3 && !memcmp(r->src + r->pos, "\xef\xbb\xbf", 3)) {
        r->pos += 3;
        r->offset += 3;
    }
    if (new_field(r)) goto nomem;
    /* States: 0 start of a field, 1 unquoted, 2 quoted, 3 a quote inside a quoted field
     * (closing, or the first of a doubled quote). */
    int state = 0;
    for (;;) {
        if ((st = fill(r)) < 0) return fill_error(r, st, err);
        if (st == 0) break;
        if (r->offset - r->start >= TH_CSV_MAX_RECORD) {
            th_error_set(err, TH_EINPUT, "%s: line %" PRId64 ": a record longer than %d bytes",
                         r->name, r->line, TH_CSV_MAX_RECORD);
            return -1;
        }
        if (state != 3) { /* the plain bytes at once */
            size_t n = plain_run(r, state == 2);
            if (n > 0) {
                if (th_buf_add(&r->data, r->src + r->pos, n)) goto nomem;
                r->pos += n;
                r->offset += (int64_t)n;
                if (state == 0) state = 1;
                continue;
            }
        }
        char c = r->src[r->pos];
        if (c == '\0') return bad(r, err, "a NUL byte (not a text CSV file?)");
        r->pos++;
        r->offset++;
        if (state == 2) {
            if (c == '"') {
                state = 3;
            } else { /* a line break inside quotes */
                r->next_line++;
                if (th_buf_add(&r->data, &c, 1)) goto nomem;
            }
            continue;
        }
        if (state == 3 && c == '"') { /* a doubled quote */
            if (th_buf_add(&r->data, &c, 1)) goto nomem;
            state = 2;
            continue;
        }
        if (c == ',') {
            if (end_field(r) || new_field(r)) goto nomem;
            state = 0;
        } else if (c == '\n' || c == '\r') {
            r->next_line++;
            r->complete = 1;
            r->blank = r->nfields == 1 && state == 0;
            if (c == '\r') { /* CRLF: the LF belongs to this record */
                if ((st = fill(r)) < 0) return fill_error(r, st, err);
                if (st > 0 && r->src[r->pos] == '\n') {
                    r->pos++, r->offset++;
                }
            }
            break;
        } else if (state == 3) {
            return bad(r, err, "expected a comma or a line end after a closing quote");
        } else if (state == 1) {
            return bad(r, err, "a quote inside an unquoted field (quote the whole field)");
        } else { /* c == '"' at the start of a field */
            state = 2;
        }
    }
    r->open_quote = state == 2;
    if (end_field(r)) goto nomem;
    size_t badat = th_text_utf8_bad(r->data.p, r->data.len);
    if (badat < r->data.len) { /* its text would go into JSON outputs as it is */
        size_t f = 0;
        while (f + 1 < r->nfields && r->starts[f + 1] <= badat)
            f++;
        th_error_set(err, TH_EINPUT,
                     "%s: line %" PRId64 ": field %zu is not valid UTF-8 (byte 0x%02x)", r->name,
                     r->line, f + 1, (unsigned char)r->data.p[badat]);
        return -1;
    }
    for (size_t i = 0; i < r->nfields; i++)
        r->fields[i] = r->data.p + r->starts[i];
    return 1;
nomem:
    th_error_set(err, TH_EINTERNAL, "out of memory");
    return -1;
}

int th_csv_copy(th_buf *b, const th_csv_reader *r) {
    int bad = 0;
    for (size_t i = 0; i < r->nfields; i++)
        bad |= th_csv_field(b, r->fields[i]);
    return bad | th_csv_end(b);
}

int th_csv_header_check(const th_csv_reader *r, th_error *err) {
    /* headers have tens of columns: the quadratic scan is cheaper than a hash */
    for (size_t i = 1; i < r->nfields; i++)
        for (size_t k = 0; k < i; k++)
            if (!strcmp(r->fields[i], r->fields[k]))
                return th_error_set(err, TH_EINPUT,
                                    "%s: line %" PRId64
                                    ": column '%s' appears twice (fields %zu and %zu)",
                                    r->name, r->line, r->fields[i], k + 1, i + 1);
    return TH_OK;
}

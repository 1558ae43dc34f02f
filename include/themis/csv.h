/* CSV, RFC 4180: the one writer (fields appended to a th_buf) and the one reader (records from
 * a FILE* or a buffer) of every command that writes or reads CSV.
 *
 * Writing: a field is quoted when it holds a comma, a quote, CR or LF, or starts or ends with a
 * space or tab; a quote inside is doubled. Records end in "\n". An empty first field of a
 * record is written "" so that a record is never an empty line.
 *
 * Reading: fields may be quoted (with "" for a quote, and commas and line breaks inside);
 * records end in LF, CRLF or CR, or at the end of the input. A quote inside an unquoted field,
 * anything but a comma or line end after a closing quote, and a NUL byte are errors that name
 * the input and the line. */
#ifndef THEMIS_CSV_H
#define THEMIS_CSV_H

#include <stdint.h>
#include <stdio.h>

#include "themis/buf.h"
#include "themis/error.h"

/* ---- writing ---- */

/* Appends s as the next field of the record being built at the end of b: after a comma unless
 * b is empty or its last record is complete. Returns 0, or -1 when memory runs out. */
int th_csv_field(th_buf *b, const char *s);
/* The next field: v with the fewest digits (15 or 17 significant) that read back to v. */
int th_csv_num(th_buf *b, double v);
/* The next field: a whole number. */
int th_csv_int(th_buf *b, long long v);
/* Ends the record being built. */
int th_csv_end(th_buf *b);
/* Writes b to out and empties it; -1 when fwrite fails (the caller reports it). */
int th_csv_write(FILE *out, th_buf *b);

/* ---- reading ---- */

#define TH_CSV_MAX_RECORD (16 << 20) /* bytes in one record at most */

typedef struct th_csv_reader {
    /* the input: a stream, or a buffer */
    FILE *f;
    const char *name; /* names the input in messages */
    const char *src;  /* bytes not yet parsed: the buffer, or a window of the stream */
    size_t pos, len;  /* parse position and end in src */
    char *window;     /* stream reads, 64 KiB */
    /* the record just read */
    char **fields; /* nfields NUL-terminated fields, valid until the next read */
    size_t nfields;
    int64_t line;   /* line (1-based) where the record starts */
    int64_t record; /* records read so far, this one included (the header is record 1) */
    int complete;   /* it ended with a line break (0: the input ended first) */
    int open_quote; /* the input ended inside a quoted field */
    int blank;      /* it is an empty line (one empty field) */
    int64_t start;  /* bytes of the input before this record */
    int64_t offset; /* bytes of the input up to the end of this record (line break included) */
    /* private */
    th_buf data;       /* the fields, each NUL-terminated */
    size_t *starts;    /* offset of each field in data */
    size_t cap;        /* slots in fields and starts */
    int64_t next_line; /* line of the next byte */
} th_csv_reader;

/* Reads from the stream f (not closed by the reader) / from the n bytes at p (not copied:
 * they must outlive the reader). name is used in messages. */
void th_csv_open_file(th_csv_reader *r, FILE *f, const char *name);
void th_csv_open_mem(th_csv_reader *r, const char *p, size_t n, const char *name);

/* Reads the next record: 1 when one was read (r->fields, r->nfields, r->line, ...), 0 at the
 * end of the input, or -1 with err set: TH_EINPUT for malformed CSV or a record longer than
 * TH_CSV_MAX_RECORD, TH_EIO when reading fails, TH_EINTERNAL when memory runs out. */
int th_csv_read(th_csv_reader *r, th_error *err);

/* Appends the record just read to b through the writer (a whole record, line end included):
 * the same bytes for anything the writer wrote. Returns 0, or -1 when memory runs out. */
int th_csv_copy(th_buf *b, const th_csv_reader *r);

/* The record just read as a header: TH_OK, or TH_EINPUT naming the first column name that
 * appears twice (a reader would take one of the two and ignore the other). */
int th_csv_header_check(const th_csv_reader *r, th_error *err);

/* Frees what the reader holds (not the stream); safe to call twice. */
void th_csv_close(th_csv_reader *r);

#endif

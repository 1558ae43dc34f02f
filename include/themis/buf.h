/* th_buf: the one growable, NUL-terminated byte buffer of the library. Zero-initialise it
 * (th_buf b = {0}), append, read b.p / b.len, and th_buf_free it. And th_grow, the one growth
 * of any array. */
#ifndef THEMIS_BUF_H
#define THEMIS_BUF_H

#include <stddef.h>

typedef struct th_buf {
    char *p;    /* the bytes, NUL-terminated once anything was added; NULL when empty */
    size_t len; /* bytes held, not counting the NUL */
    size_t cap; /* bytes allocated */
} th_buf;

/* Each returns 0, or -1 when memory runs out (the buffer is unchanged then). */
int th_buf_reserve(th_buf *b, size_t extra);
int th_buf_add(th_buf *b, const char *s, size_t n);
/* Keeps the first len bytes (len <= b->len), still NUL-terminated. */
void th_buf_truncate(th_buf *b, size_t len);
void th_buf_free(th_buf *b);

/* The one growth of an array: makes the array at *ptr (ptr is the address of a T * holding
 * *cap elements of elem bytes) hold at least need elements, doubling the capacity (from at
 * least 16) until it does. Returns 0, or -1 when memory runs out or need * elem overflows; the
 * array and *cap are unchanged then. */
int th_grow(void *ptr, size_t *cap, size_t need, size_t elem);

#endif

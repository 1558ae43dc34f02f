/* th_buf: the one growable byte buffer (CSV rows, headers, messages). */
#include <stdlib.h>
#include <string.h>

#include "themis/buf.h"

int th_buf_reserve(th_buf *b, size_t extra) {
    if (b->len + extra + 1 <= b->cap) return 0;
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < b->len + extra + 1)
        cap *= 2;
    char *p = realloc(b->p, cap);
    if (!p) return -1;
    b->p = p, b->cap = cap;
    return 0;
}

int th_buf_add(th_buf *b, const char *s, size_t n) {
    if (th_buf_reserve(b, n)) return -1;
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
    return 0;
}

void th_buf_truncate(th_buf *b, size_t len) {
    b->len = len;
    if (b->p) b->p[len] = '\0';
}

void th_buf_free(th_buf *b) {
    free(b->p);
    b->p = NULL;
    b->len = b->cap = 0;
}

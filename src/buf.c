/* th_buf: the one growable byte buffer (CSV rows, headers, messages); th_grow, the growth of
 * every array. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "themis/buf.h"

int th_grow(void *ptr, size_t *cap, size_t need, size_t elem) {
    if (need <= *cap) return 0;
    size_t n = *cap > 16 ? *cap : 16;
    while (n < need)
        n = n > SIZE_MAX / 2 ? need : 2 * n;
    if (elem && n > SIZE_MAX / elem) return -1;
    void *p; /* ptr holds a T *: read and written as bytes, whatever T is */
    memcpy(&p, ptr, sizeof p);
    p = realloc(p, n * elem);
    if (!p) return -1;
    memcpy(ptr, &p, sizeof p);
    *cap = n;
    return 0;
}

int th_buf_reserve(th_buf *b, size_t extra) {
    if (extra < b->cap - b->len) return 0; /* room for extra and the NUL (cap > len, or both 0) */
    if (extra > SIZE_MAX - 1 - b->len) return -1;
    return th_grow(&b->p, &b->cap, b->len + extra + 1, 1);
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

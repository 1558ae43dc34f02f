/* Printable text: control characters and invalid UTF-8 escaped for tables and messages; the
 * UTF-8 check and repair that keep every JSON output valid. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "themis/text.h"

/* Length of the valid UTF-8 sequence at s (2 to 4), or 0. */
static int utf8_len(const unsigned char *s) {
    int n = s[0] >= 0xf0 && s[0] <= 0xf4  ? 4
            : s[0] >= 0xe0                ? 3
            : s[0] >= 0xc2 && s[0] < 0xe0 ? 2
                                          : 0;
    if (s[0] >= 0xf5) n = 0;
    for (int k = 1; k < n; k++)
        if ((s[k] & 0xc0) != 0x80) return 0;
    /* overlong 3- and 4-byte forms, surrogates and code points above U+10FFFF */
    if (n == 3 && ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] >= 0xa0))) return 0;
    if (n == 4 && ((s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] >= 0x90))) return 0;
    return n;
}

const char *th_text_escape(char *out, size_t n, const char *s) {
    size_t o = 0;
    const unsigned char *p = (const unsigned char *)s;
    while (*p && n > 0) {
        char piece[8];
        size_t len;
        int u = *p >= 0x80 ? utf8_len(p) : 0;
        if (u) {
            memcpy(piece, p, (size_t)u);
            len = (size_t)u;
        } else if (*p == '\n' || *p == '\r' || *p == '\t') {
            piece[0] = '\\';
            piece[1] = *p == '\n' ? 'n' : *p == '\r' ? 'r' : 't';
            len = 2;
        } else if (*p < 0x20 || *p >= 0x7f) {
            len = (size_t)snprintf(piece, sizeof piece, "\\x%02x", *p);
        } else {
            piece[0] = (char)*p;
            len = 1;
        }
        if (o + len >= n) break;
        memcpy(out + o, piece, len);
        o += len;
        p += u ? (size_t)u : 1;
    }
    if (n > 0) out[o] = '\0';
    return out;
}

size_t th_text_utf8_bad(const char *s, size_t n) {
    const unsigned char *p = (const unsigned char *)s;
    for (size_t i = 0; i < n;) {
        if (p[i] < 0x80) {
            i++;
            continue;
        }
        /* utf8_len reads up to 4 bytes: never past n */
        unsigned char q[4] = {0};
        memcpy(q, p + i, n - i < 4 ? n - i : 4);
        int u = utf8_len(q);
        if (!u || (size_t)u > n - i) return i;
        i += (size_t)u;
    }
    return n;
}

char *th_text_utf8_repair(const char *s) {
    size_t n = strlen(s), o = 0;
    char *out = malloc(3 * n + 1); /* each bad byte becomes 3 */
    if (!out) return NULL;
    for (size_t i = 0; i < n;) {
        size_t good = th_text_utf8_bad(s + i, n - i);
        memcpy(out + o, s + i, good);
        o += good;
        i += good;
        if (i < n) {
            memcpy(out + o, "\xef\xbf\xbd", 3); /* U+FFFD, the replacement character */
            o += 3;
            i++;
        }
    }
    out[o] = '\0';
    return out;
}

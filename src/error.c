/* th_error: formatting a message into the caller's error value. */
#include <stdarg.h>
#include <stdio.h>

#include "themis/error.h"

int th_error_set(th_error *err, int code, const char *fmt, ...) {
    char raw[TH_ERROR_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(raw, sizeof raw, fmt, ap);
    va_end(ap);
    /* A message is one line: a control byte quoted from an input (a JSON key holding "\n")
     * is written as \n, \r, \t or \xHH, so it can neither break the line nor hide text. */
    size_t o = 0;
    for (const unsigned char *p = (const unsigned char *)raw; *p; p++) {
        char piece[5];
        int len = 1;
        piece[0] = (char)*p;
        if (*p == '\n' || *p == '\r' || *p == '\t')
            len = snprintf(piece, sizeof piece, "\\%c", *p == '\n' ? 'n' : *p == '\r' ? 'r' : 't');
        else if (*p < 0x20 || *p == 0x7f)
            len = snprintf(piece, sizeof piece, "\\x%02x", *p);
        if (o + (size_t)len >= sizeof err->msg) break;
        for (int k = 0; k < len; k++)
            err->msg[o++] = piece[k];
    }
    err->msg[o] = '\0';
    err->code = code;
    return code;
}

/* th_error: formatting a message into the caller's error value. */
#include <stdarg.h>
#include <stdio.h>

#include "themis/error.h"
#include "themis/text.h"

int th_error_set(th_error *err, int code, const char *fmt, ...) {
    char raw[TH_ERROR_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(raw, sizeof raw, fmt, ap);
    va_end(ap);
    /* A message is one line: a control byte quoted from an input (a JSON key holding "\n")
     * is written as \n or \xHH, so it can neither break the line nor hide text. */
    th_text_escape(err->msg, sizeof err->msg, raw);
    err->code = code;
    return code;
}

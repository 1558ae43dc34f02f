/* th_error: formatting a message into the caller's error value. */
#include <stdarg.h>
#include <stdio.h>

#include "themis/error.h"

int th_error_set(th_error *err, int code, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    err->code = code;
    return code;
}

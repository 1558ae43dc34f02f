/* Errors as values: every fallible library call fills a th_error (never NULL) and returns
 * non-zero. */
#ifndef THEMIS_ERROR_H
#define THEMIS_ERROR_H

#include "themis/export.h"

#define TH_ERROR_MAX 512

/* Status codes returned by library calls (0 = success). */
enum {
    TH_OK = 0,
    TH_EINTERNAL = 1, /* out of memory, a broken invariant; the CLI exits 1 */
    TH_EINPUT = 2,    /* bad input: file, JSON, option value; the CLI exits 2 */
    TH_EIO = 3,       /* reading or writing a file failed (disk full, unwritable); exits 3 */
};

typedef struct th_error {
    int code;               /* TH_OK, TH_EINTERNAL, TH_EINPUT or TH_EIO */
    char msg[TH_ERROR_MAX]; /* one line for the user, no trailing newline */
} th_error;

/* Sets err and returns code, so callers can `return th_error_set(...)`. Every fallible library
 * call takes a th_error *err that must not be NULL: on failure the call fills it, and callers
 * inside the library read err->code back. */
TH_API int th_error_set(th_error *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4), nonnull(1)));

#endif

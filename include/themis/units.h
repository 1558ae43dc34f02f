/* Units of SPEC §1: parsing sizes ("64MiB", "1GB", "1e9") into bytes. */
#ifndef THEMIS_UNITS_H
#define THEMIS_UNITS_H

#include <stddef.h>

#include "themis/error.h"
#include "themis/export.h"

/* Largest accepted size: 2^60 bytes (1 EiB). */
#define TH_SIZE_MAX 1152921504606846976.0

/* Parses a size: a decimal number (digits, '.', exponent) optionally followed by one of
 * B KB MB GB TB (powers of 10^3) or KiB MiB GiB TiB (powers of 2^10), case-insensitive,
 * with optional spaces between. The result must be >= 1 byte and <= TH_SIZE_MAX.
 * `what` names the value in the error message (e.g. "--size"). */
TH_API int th_units_parse_size(const char *text, const char *what, double *bytes, th_error *err);

/* Checks a size given as a JSON number (bytes): finite, >= 1, <= TH_SIZE_MAX. */
TH_API int th_units_check_size(double bytes, const char *what, th_error *err);

/* Writes a size as a whole number of the largest binary unit it is one of ("64 MiB", "3 KiB",
 * up to TiB) and returns 1; otherwise writes it in bytes ("1000 B") and returns 0. */
TH_API int th_units_size_text(double bytes, char *buf, size_t n);

#endif

/* Units of SPEC §1: sizes with decimal (KB, 10^3) and binary (KiB, 2^10) suffixes. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "themis/num.h"
#include "themis/units.h"

static const struct {
    const char *suffix;
    double scale;
} suffixes[] = {
    {"B", 1.0},         {"KB", 1e3},           {"MB", 1e6},
    {"GB", 1e9},        {"TB", 1e12},          {"KiB", 1024.0},
    {"MiB", 1048576.0}, {"GiB", 1073741824.0}, {"TiB", 1099511627776.0},
};

int th_units_check_size(double bytes, const char *what, th_error *err) {
    if (!isfinite(bytes) || bytes < 1.0)
        return th_error_set(err, TH_EINPUT, "%s: expected a size of at least 1 byte, got %g", what,
                            bytes);
    if (bytes > TH_SIZE_MAX)
        return th_error_set(err, TH_EINPUT, "%s: expected a size of at most 1 EiB, got %g", what,
                            bytes);
    if (bytes != floor(bytes)) /* a collective moves whole bytes */
        return th_error_set(err, TH_EINPUT, "%s: expected a whole number of bytes, got %.17g", what,
                            bytes);
    return TH_OK;
}

int th_units_parse_size(const char *text, const char *what, double *bytes, th_error *err) {
    const char *s = text;
    while (isspace((unsigned char)*s))
        s++;
    size_t n = th_num_span(s); /* JSON's grammar: no 01, 1., hex, inf or nan */
    if (n == 0)
        return th_error_set(err, TH_EINPUT,
                            "%s: expected a size such as 4096, 1e9, 64MiB or 1GB, got \"%s\"", what,
                            text);
    char num[64];
    if (n >= sizeof num)
        return th_error_set(err, TH_EINPUT, "%s: number too long in \"%s\"", what, text);
    memcpy(num, s, n);
    num[n] = '\0';
    double v = strtod(num, NULL);
    const char *rest = s + n;
    while (isspace((unsigned char)*rest))
        rest++;
    size_t rlen = strlen(rest);
    while (rlen > 0 && isspace((unsigned char)rest[rlen - 1]))
        rlen--;
    double scale = 1.0;
    if (rlen > 0) {
        int found = 0;
        for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++) {
            if (strlen(suffixes[i].suffix) == rlen &&
                strncasecmp(rest, suffixes[i].suffix, rlen) == 0) {
                scale = suffixes[i].scale;
                found = 1;
                break;
            }
        }
        if (!found)
            return th_error_set(err, TH_EINPUT,
                                "%s: unknown unit in \"%s\" (expected B, KB, MB, GB, TB, KiB, "
                                "MiB, GiB or TiB)",
                                what, text);
    }
    v *= scale;
    if (isfinite(v) && v >= 1.0 && v <= TH_SIZE_MAX && v != floor(v))
        return th_error_set(err, TH_EINPUT, "%s: expected a whole number of bytes, got \"%s\"",
                            what, text);
    if (th_units_check_size(v, what, err) != TH_OK) {
        return th_error_set(err, TH_EINPUT, "%s: expected a size from 1 byte to 1 EiB, got \"%s\"",
                            what, text);
    }
    *bytes = v;
    return TH_OK;
}

int th_units_size_text(double bytes, char *buf, size_t n) {
    static const char *const units[] = {"TiB", "GiB", "MiB", "KiB"};
    double scale = 1099511627776.0;
    for (int i = 0; i < 4; i++, scale /= 1024) {
        double k = bytes / scale; /* exact: scale is a power of two */
        if (bytes >= scale && k == floor(k)) {
            snprintf(buf, n, "%.15g %s", k, units[i]);
            return 1;
        }
    }
    snprintf(buf, n, "%.15g B", bytes);
    return 0;
}

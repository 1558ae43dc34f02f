/* Numbers as the outputs print them: "%.15g" when that reads back to the same double, else
 * "%.17g"; made from one "%.16e" conversion, without formatting twice and reading back with
 * strtod. The rare values this cannot decide take the long road, the definition itself. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "themis/report.h"

/* The definition: also the road for values exactly halfway at the 15th digit, exponents past
 * 10^±22 (no single exact rounding step), zero, infinities and NaN. */
static const char *slow(char *buf, double v) {
    snprintf(buf, 32, "%.15g", v);
    if (strtod(buf, NULL) != v) snprintf(buf, 32, "%.17g", v);
    return buf;
}

/* Writes "%.<prec>g" of the value with the prec significant digits dig[] (dig[0] != '0') and
 * decimal exponent x: exponent style when x < -4 or x >= prec, trailing fraction zeros
 * dropped, and the point with them when nothing follows it. */
static const char *style_g(char *buf, int neg, const char *dig, int prec, int x) {
    int n = prec;
    char *o = buf;
    while (n > 1 && dig[n - 1] == '0')
        n--;
    if (neg) *o++ = '-';
    if (x < -4 || x >= prec) {
        *o++ = dig[0];
        if (n > 1) {
            *o++ = '.';
            memcpy(o, dig + 1, (size_t)(n - 1));
            o += n - 1;
        }
        int ax = x < 0 ? -x : x;
        *o++ = 'e';
        *o++ = x < 0 ? '-' : '+';
        if (ax >= 100) *o++ = (char)('0' + ax / 100);
        *o++ = (char)('0' + ax / 10 % 10);
        *o++ = (char)('0' + ax % 10);
    } else if (x >= 0) {
        memcpy(o, dig, (size_t)(x + 1)); /* n <= prec and x < prec: the integer digits */
        o += x + 1;
        if (n > x + 1) {
            *o++ = '.';
            memcpy(o, dig + x + 1, (size_t)(n - x - 1));
            o += n - x - 1;
        }
    } else {
        *o++ = '0';
        *o++ = '.';
        for (int k = -1; k > x; k--)
            *o++ = '0';
        memcpy(o, dig, (size_t)n);
        o += n;
    }
    *o = '\0';
    return buf;
}

const char *th_report_num(char *buf, double v) {
    static const double p10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                 1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    if (!isfinite(v) || v == 0) return slow(buf, v);
    char e[40];
    /* "-d.dddddddddddddddde-xxx": the 17 significant digits correctly rounded */
    snprintf(e, sizeof e, "%.16e", v);
    int neg = e[0] == '-';
    const char *s = e + neg;
    char d17[17], d15[16];
    d17[0] = s[0];
    memcpy(d17 + 1, s + 2, 16);
    int x17 = atoi(s + 19);
    int tail = (d17[15] - '0') * 10 + (d17[16] - '0');
    /* Rounding the 17 digits to 15 rounds the value itself the same way unless the two
     * dropped digits are exactly 50 (the value may sit on either side of the halfway). */
    if (tail == 50) return slow(buf, v);
    int64_t m = 0;
    for (int k = 0; k < 15; k++)
        m = m * 10 + (d17[k] - '0');
    int x15 = x17;
    if (tail > 50 && ++m == 1000000000000000) m = 100000000000000, x15++;
    /* Does the 15-digit decimal m 10^(x15-14) read back as v? When the dropped digits are
     * 00 it is the 17-digit decimal, which always does; else m < 2^53 and 10^|k| <= 10^22
     * are exact doubles, so one multiplication or division rounds the decimal correctly,
     * as strtod does. */
    int k = x15 - 14, back;
    if (tail == 0)
        back = 1;
    else if (k >= -22 && k <= 22)
        back = (k >= 0 ? (double)m * p10[k] : (double)m / p10[-k]) == fabs(v);
    else
        return slow(buf, v);
    if (!back) return style_g(buf, neg, d17, 17, x17);
    for (int j = 14; j >= 0; j--, m /= 10)
        d15[j] = (char)('0' + m % 10);
    return style_g(buf, neg, d15, 15, x15);
}

/* Numbers as the outputs print them: "%.15g" when that reads back to the same double, else
 * "%.17g"; the digits from exact integer arithmetic (or one "%.16e" conversion outside its
 * range), without formatting twice and reading back with strtod. The rare values this cannot
 * decide take the long road, the definition itself. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "themis/num.h"

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

#ifdef __SIZEOF_INT128__
/* The 17 significant digits of v > 0 correctly rounded (half to even, as "%.16e" in the
 * default rounding mode) as an integer 10^16 <= *n < 10^17, and v's decimal exponent *x, by
 * exact integer arithmetic: v = f 2^e, and n = v / 10^(x-16) rounded, from a 128-bit product
 * or quotient and its exact remainder. 0 when done; -1 below about 10^-6 or from 2^128 up
 * and for subnormals, where "%.16e" gives the digits. */
static int digits17(double v, uint64_t *n, int *x) {
    typedef unsigned __int128 u128;
    static const uint64_t p10[20] = {1u,
                                     10u,
                                     100u,
                                     1000u,
                                     10000u,
                                     100000u,
                                     1000000u,
                                     10000000u,
                                     100000000u,
                                     1000000000u,
                                     10000000000u,
                                     100000000000u,
                                     1000000000000u,
                                     10000000000000u,
                                     100000000000000u,
                                     1000000000000000u,
                                     10000000000000000u,
                                     100000000000000000u,
                                     1000000000000000000u,
                                     10000000000000000000u};
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    int be = (int)(bits >> 52 & 0x7ff);
    if (be == 0 || be == 0x7ff) return -1;
    uint64_t f = (bits & ((1ull << 52) - 1)) | 1ull << 52;
    int e = be - 1075; /* v = f 2^e, 2^52 <= f < 2^53 */
    /* floor((e + 52) log10 2) (exact for |e| < 1650): 10^dx <= 2^(e+52) <= v < 10^(dx+2) */
    int dx = (int)(((int64_t)(e + 52) * 78913) >> 18);
    for (int tries = 0; tries < 2; tries++, dx++) {
        int q = dx - 16; /* the weight of the 17th digit is 10^q */
        u128 quo, rem, half;
        if (q <= 0) {               /* v 10^-q = f 10^-q 2^e */
            if (-q > 22) return -1; /* f 10^-q < 2^53 10^22 < 2^127 */
            u128 prod = (u128)f * (-q <= 19 ? (u128)p10[-q] : (u128)p10[19] * p10[-q - 19]);
            if (e >= 0) { /* an integer: v 10^-q < 10^(dx+2-q) <= 10^19 */
                quo = prod << e, rem = 0, half = 1;
            } else {
                if (-e >= 128) return -1;
                quo = prod >> -e, rem = prod & (((u128)1 << -e) - 1), half = (u128)1 << (-e - 1);
            }
        } else { /* f 2^e / 10^q */
            if (e + 53 > 128) return -1;
            u128 val = (u128)f << e, div = q <= 19 ? (u128)p10[q] : (u128)p10[19] * p10[q - 19];
            quo = val / div, rem = val % div, half = div / 2; /* 10^q is even */
        }
        if (rem > half || (rem == half && (quo & 1))) quo++;
        if (quo >= (u128)p10[17]) continue; /* x is dx + 1, or rounding reached 10^(dx+1) */
        *n = (uint64_t)quo;
        *x = dx;
        return 0;
    }
    return -1;
}
#else
static int digits17(double v, uint64_t *n, int *x) {
    (void)v, (void)n, (void)x;
    return -1;
}
#endif

/* The n decimal digits of u (< 10^n) into out, two at a time. */
static void decimal(char *out, uint64_t u, int n) {
    static const char pairs[] = "00010203040506070809101112131415161718192021222324252627282930"
                                "31323334353637383940414243444546474849505152535455565758596061"
                                "62636465666768697071727374757677787980818283848586878889909192"
                                "93949596979899";
    for (; n >= 2; n -= 2, u /= 100)
        memcpy(out + n - 2, pairs + 2 * (u % 100), 2);
    if (n) out[0] = (char)('0' + u);
}

const char *th_num_format(char *buf, double v) {
    static const double p10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                 1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    if (v == 0) return strcpy(buf, signbit(v) ? "-0" : "0"); /* "%.15g", which reads back */
    if (!isfinite(v)) return slow(buf, v);
    int neg = signbit(v) != 0, x17;
    char d[17];
    uint64_t n17;
    if (digits17(fabs(v), &n17, &x17)) {
        char e[40];
        /* "-d.dddddddddddddddde-xxx": the 17 significant digits correctly rounded */
        snprintf(e, sizeof e, "%.16e", v);
        const char *s = e + neg;
        n17 = (uint64_t)(s[0] - '0');
        for (int k = 2; k < 18; k++)
            n17 = n17 * 10 + (uint64_t)(s[k] - '0');
        x17 = atoi(s + 19);
    }
    int tail = (int)(n17 % 100);
    /* Two dropped digits of exactly 50: the value is 0.495 to 0.505 units u of the 15th
     * digit from both nearest 15-digit decimals, and for a normal double 2^e <= v < 2^(e+1)
     * u / ulp = 10^(x-14) / 2^(e-52) > 2^52 / 10^15 > 4.5 (as 10^x > v / 10 >= 2^e / 10):
     * more than 2 ulps, so "%.15g" never reads back and the text is "%.17g". */
    if (tail == 50 && fabs(v) < DBL_MIN) return slow(buf, v);
    uint64_t m = n17 / 100;
    int x15 = x17, back = 0;
    if (tail != 50) {
        /* otherwise rounding the 17 digits to 15 rounds the value itself the same way */
        if (tail > 50 && ++m == 1000000000000000) m = 100000000000000, x15++;
        /* Does the 15-digit decimal m 10^(x15-14) read back as v? When the dropped digits
         * are 00 it is the 17-digit decimal, which always does; else m < 2^53 and
         * 10^|k| <= 10^22 are exact doubles, so one multiplication or division rounds the
         * decimal correctly, as strtod does. */
        int k = x15 - 14;
        if (tail == 0)
            back = 1;
        else if (k >= -22 && k <= 22)
            back = (k >= 0 ? (double)m * p10[k] : (double)m / p10[-k]) == fabs(v);
        else
            return slow(buf, v);
    }
    if (!back) {
        decimal(d, n17, 17);
        return style_g(buf, neg, d, 17, x17);
    }
    decimal(d, m, 15);
    return style_g(buf, neg, d, 15, x15);
}

static int digit(char c) {
    return c >= '0' && c <= '9';
}

size_t th_num_span(const char *s) {
    size_t i = 0;
    if (s[i] == '-') i++;
    if (s[i] == '0')
        i++;
    else if (digit(s[i]))
        while (digit(s[i]))
            i++;
    else
        return 0;
    if (s[i] == '.') {
        if (!digit(s[++i])) return 0;
        while (digit(s[i]))
            i++;
    }
    if (s[i] == 'e' || s[i] == 'E') {
        i++;
        if (s[i] == '+' || s[i] == '-') i++;
        if (!digit(s[i])) return 0;
        while (digit(s[i]))
            i++;
    }
    /* 01, 1.2.3: a number that goes on is not one */
    return digit(s[i]) || s[i] == '.' ? 0 : i;
}

int th_num_parse(const char *s, double *out) {
    size_t n = th_num_span(s);
    if (n == 0 || s[n]) return -1;
    double v = strtod(s, NULL);
    if (!isfinite(v)) return -1;
    *out = v;
    return 0;
}

/* Units (SPEC §1): th_units_parse_size suffixes, limits and rejections; th_units_check_size. */
#include <math.h>
#include <string.h>

#include "check_themis.h"
#include "themis/units.h"

/* 2^10, 2^20, 2^30, 2^40, 2^60 written out so the expectations do not depend on the code. */
#define KI 1024.0
#define MI 1048576.0
#define GI 1073741824.0
#define TI 1099511627776.0
#define EI 1152921504606846976.0

typedef struct {
    const char *text;
    double want; /* bytes */
} size_case;

/* Each expectation is the suffix's power times the number, derived from SPEC §1. */
static const size_case good_sizes[] = {
    {"4096", 4096.0},            /* no suffix: bytes */
    {"1e9", 1e9},                /* exponent notation, bytes */
    {"64MiB", 64.0 * MI},        /* 64 * 2^20 = 67108864 */
    {"1GB", 1e9},                /* 1 * 10^9 */
    {"1 GiB", GI},               /* space allowed: 2^30 = 1073741824 */
    {"1.5KB", 1500.0},           /* 1.5 * 10^3 */
    {"2TiB", 2.0 * TI},          /* 2 * 2^40 = 2199023255552 */
    {"1B", 1.0},                 /* 1 byte, the smallest size */
    {"1gib", GI},                /* suffix is case-insensitive: 2^30 */
    {"1KiB", KI},                /* 2^10 = 1024 */
    {"3kb", 3000.0},             /* 3 * 10^3, lowercase */
    {"7MB", 7e6},                /* 7 * 10^6 */
    {"5TB", 5e12},               /* 5 * 10^12 */
    {"4096B", 4096.0},           /* explicit byte suffix */
    {"0.25KiB", 256.0},          /* 0.25 * 1024 = 256 */
    {"2.5e3 MB", 2.5e9},         /* 2500 * 10^6 = 2.5e9 */
    {"1048576TiB", EI},          /* 2^20 * 2^40 = 2^60 = TH_SIZE_MAX, still accepted */
    {"1152921504606846976", EI}, /* 2^60 written in bytes */
    {"1000000", 1e6},            /* plain integer */
    {"1e1", 10.0},               /* JSON's grammar: an exponent is fine */
};

START_TEST(test_parse_size_good) {
    const size_case *c = &good_sizes[_i];
    th_error err = {0};
    double got = -1.0;
    int rc = th_units_parse_size(c->text, "--size", &got, &err);
    ck_assert_msg(rc == 0, "\"%s\" rejected: %s", c->text, err.msg);
    ck_assert_msg(fabs(got - c->want) <= 1e-9 * c->want, "\"%s\" -> %.17g, expected %.17g", c->text,
                  got, c->want);
}
END_TEST

/* Every one of these must be rejected: not a number, not a known suffix, out of [1, 2^60],
 * not finite, or trailing garbage. */
static const char *const bad_sizes[] = {
    "",            /* empty */
    "0",           /* < 1 byte */
    "-1",          /* negative */
    "abc",         /* not a number */
    "12XB",        /* unknown suffix */
    "1e400",       /* overflows a double */
    "nan",         /* not a number */
    "inf",         /* not finite */
    "0x10",        /* hexadecimal is not a decimal number */
    "1e19TiB",     /* 1e19 * 2^40 ~ 1.1e31 > 2^60 */
    "0.5",         /* half a byte: < 1 */
    "5 MiB extra", /* trailing garbage */
    "MiB",         /* suffix without a number */
    "1048577TiB",  /* (2^20 + 1) * 2^40 > 2^60 */
    "2e18",        /* 2e18 > 2^60 ~ 1.153e18 */
    "-64MiB",      /* negative with a suffix */
    "64 MiB B",    /* two suffixes */
    "1KIB2",       /* garbage after the suffix */
    "infinity",    /* not finite */
    "0.0001KB",    /* 0.1 byte */
    "1.5",         /* a size is whole bytes (SPEC §1): refused, not rounded */
    "1.",          /* JSON's grammar: digits after the point */
    "01",          /* JSON's grammar: no leading zero */
    ".5KiB",       /* JSON's grammar: a digit before the point */
    "1.0001KiB",   /* 1024.1024 bytes */
};

START_TEST(test_parse_size_bad) {
    const char *text = bad_sizes[_i];
    th_error err = {0};
    double got = 0.0;
    int rc = th_units_parse_size(text, "--size", &got, &err);
    ck_assert_msg(rc != 0, "\"%s\" accepted as %.17g", text, got);
    ck_assert_int_eq(err.code, TH_EINPUT);
    ck_assert_msg(strstr(err.msg, "--size") != NULL, "\"%s\": message does not name --size: %s",
                  text, err.msg);
    /* The message shows what was found (STYLE: "expected ..., got ..."). */
    if (text[0] != '\0')
        ck_assert_msg(strstr(err.msg, text) != NULL, "\"%s\": message does not quote it: %s", text,
                      err.msg);
}
END_TEST

START_TEST(test_parse_size_what_named) {
    /* The `what` argument, whatever it is, appears in the message. */
    th_error err = {0};
    double got = 0.0;
    ck_assert_int_ne(th_units_parse_size("12XB", "collective.size", &got, &err), 0);
    ck_assert_int_eq(err.code, TH_EINPUT);
    ck_assert_ptr_nonnull(strstr(err.msg, "collective.size"));
    ck_assert_ptr_null(strchr(err.msg, '\n')); /* one line, no trailing newline */
}
END_TEST

typedef struct {
    double bytes;
    int ok;
} check_case;

static const check_case check_sizes[] = {
    {1.0, 1},      /* the lower bound itself */
    {1e9, 1},      /* ordinary */
    {1.5, 0},      /* a collective moves whole bytes (SPEC §1) */
    {EI, 1},       /* 2^60, the upper bound itself */
    {0.0, 0},      /* < 1 */
    {0.5, 0},      /* < 1 */
    {-1.0, 0},     /* negative */
    {2.0 * EI, 0}, /* 2^61 > 2^60 */
    {1e300, 0},    /* far too large */
};

START_TEST(test_check_size) {
    const check_case *c = &check_sizes[_i];
    th_error err = {0};
    int rc = th_units_check_size(c->bytes, "size_bytes", &err);
    if (c->ok) {
        ck_assert_msg(rc == 0, "%.17g rejected: %s", c->bytes, err.msg);
    } else {
        ck_assert_msg(rc != 0, "%.17g accepted", c->bytes);
        ck_assert_int_eq(err.code, TH_EINPUT);
        ck_assert_ptr_nonnull(strstr(err.msg, "size_bytes"));
    }
}
END_TEST

START_TEST(test_check_size_not_finite) {
    /* NaN and infinities are never sizes. */
    const double bad[] = {NAN, INFINITY, -INFINITY};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        th_error err = {0};
        ck_assert_msg(th_units_check_size(bad[i], "size_bytes", &err) != 0, "%g accepted", bad[i]);
        ck_assert_int_eq(err.code, TH_EINPUT);
        ck_assert_ptr_nonnull(strstr(err.msg, "size_bytes"));
    }
}
END_TEST

START_TEST(test_size_text) {
    /* The largest binary unit the size is a whole number of, else bytes: 64 x 2^20; 1.5 MiB
     * (not whole) = 1536 KiB; 3 x 2^10; 2^40; 2^50 (TiB is the largest unit); 1000 and 1.5 KiB
     * are not multiples of 1024. */
    static const struct {
        double bytes;
        const char *text;
        int unit;
    } cases[] = {
        {67108864.0, "64 MiB", 1},
        {1572864.0, "1536 KiB", 1},
        {3072.0, "3 KiB", 1},
        {1099511627776.0, "1 TiB", 1},
        {1125899906842624.0, "1024 TiB", 1},
        {1000.0, "1000 B", 0},
        {1.0, "1 B", 0},
        {1536.0, "1536 B", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char buf[40];
        ck_assert_int_eq(th_units_size_text(cases[i].bytes, buf, sizeof buf), cases[i].unit);
        ck_assert_str_eq(buf, cases[i].text);
    }
}
END_TEST

Suite *units_suite(void) {
    Suite *s = suite_create("units");
    TCase *tc = tcase_create("parse_size");
    tcase_add_loop_test(tc, test_parse_size_good, 0,
                        (int)(sizeof good_sizes / sizeof good_sizes[0]));
    tcase_add_loop_test(tc, test_parse_size_bad, 0, (int)(sizeof bad_sizes / sizeof bad_sizes[0]));
    tcase_add_test(tc, test_parse_size_what_named);
    suite_add_tcase(s, tc);
    tc = tcase_create("check_size");
    tcase_add_loop_test(tc, test_check_size, 0, (int)(sizeof check_sizes / sizeof check_sizes[0]));
    tcase_add_test(tc, test_check_size_not_finite);
    tcase_add_test(tc, test_size_text);
    suite_add_tcase(s, tc);
    return s;
}

/* Check suite for buf.c: the byte buffer and th_grow, the one growth of every array. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check_themis.h"

/* From nothing: 16, then doubling until need fits; the contents kept; no change when it fits. */
START_TEST(grow_doubles) {
    int *a = NULL;
    size_t cap = 0;
    ck_assert_int_eq(th_grow(&a, &cap, 1, sizeof *a), 0);
    ck_assert_uint_eq(cap, 16);
    for (int i = 0; i < 16; i++)
        a[i] = i;
    ck_assert_int_eq(th_grow(&a, &cap, 17, sizeof *a), 0);
    ck_assert_uint_eq(cap, 32);
    ck_assert_int_eq(th_grow(&a, &cap, 100, sizeof *a), 0); /* 32 -> 64 -> 128 */
    ck_assert_uint_eq(cap, 128);
    for (int i = 0; i < 16; i++)
        ck_assert_int_eq(a[i], i);
    int *before = a;
    ck_assert_int_eq(th_grow(&a, &cap, 128, sizeof *a), 0);
    ck_assert_ptr_eq(a, before);
    ck_assert_uint_eq(cap, 128);
    free(a);
}
END_TEST

/* A size that does not fit in size_t is refused, and the array is left as it was. */
START_TEST(grow_overflow) {
    double *a = NULL;
    size_t cap = 0;
    ck_assert_int_eq(th_grow(&a, &cap, 4, sizeof *a), 0);
    double *before = a;
    ck_assert_int_eq(th_grow(&a, &cap, SIZE_MAX / 4, sizeof *a), -1);
    ck_assert_ptr_eq(a, before);
    ck_assert_uint_eq(cap, 16);
    free(a);
}
END_TEST

/* The byte buffer: appends stay NUL-terminated; an impossible reserve fails, nothing changed. */
START_TEST(buf_add) {
    th_buf b = {0};
    for (int i = 0; i < 1000; i++)
        ck_assert_int_eq(th_buf_add(&b, "abc", 3), 0);
    ck_assert_uint_eq(b.len, 3000);
    ck_assert_uint_eq(strlen(b.p), 3000);
    ck_assert_uint_ge(b.cap, 3001);
    ck_assert_int_eq(th_buf_reserve(&b, SIZE_MAX - 10), -1);
    ck_assert_uint_eq(b.len, 3000);
    th_buf_truncate(&b, 2);
    ck_assert_str_eq(b.p, "ab");
    th_buf_free(&b);
    ck_assert_ptr_null(b.p);
}
END_TEST

Suite *buf_suite(void) {
    Suite *s = suite_create("buf");
    TCase *tc = tcase_create("buf");
    tcase_add_test(tc, grow_doubles);
    tcase_add_test(tc, grow_overflow);
    tcase_add_test(tc, buf_add);
    suite_add_tcase(s, tc);
    return s;
}

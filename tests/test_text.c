/* Check suite for th_text_escape: what a table or a message shows of a string from a file. */
#include <stdlib.h>
#include <string.h>

#include "check_themis.h"
#include "themis/error.h"
#include "themis/text.h"

START_TEST(escapes) {
    char buf[64];
    /* printable ASCII and valid UTF-8 (é = c3 a9, € = e2 82 ac, 😀 = f0 9f 98 80) are kept */
    ck_assert_str_eq(
        th_text_escape(buf, sizeof buf, "a,b \"q\" \xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80"),
        "a,b \"q\" \xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
    /* control characters; a backslash is kept, so escaping twice changes nothing */
    ck_assert_str_eq(th_text_escape(buf, sizeof buf, "a\nb\tc\rd\\e\x01\x7f"),
                     "a\\nb\\tc\\rd\\e\\x01\\x7f");
    char twice[64];
    ck_assert_str_eq(th_text_escape(twice, sizeof twice, buf), buf);
    /* invalid UTF-8: a lone continuation byte, a truncated sequence, an overlong form (c0 af),
     * a surrogate (ed a0 80), bytes that never occur (ff) */
    ck_assert_str_eq(th_text_escape(buf, sizeof buf, "\x80|\xc3|\xc0\xaf|\xed\xa0\x80|\xff"),
                     "\\x80|\\xc3|\\xc0\\xaf|\\xed\\xa0\\x80|\\xff");
    /* truncation keeps whole escapes and the terminating NUL */
    char small[6];
    ck_assert_str_eq(th_text_escape(small, sizeof small, "ab\x01zz"), "ab");
    ck_assert_str_eq(th_text_escape(small, sizeof small, "abcdefgh"), "abcde");
}
END_TEST

/* th_error_set escapes through th_text_escape: a message quoting a key with an invalid UTF-8
 * byte (ff) and a line break holds no raw byte of either, so any caller may print it. */
START_TEST(error_messages) {
    th_error e;
    ck_assert_int_eq(th_error_set(&e, TH_EINPUT, "f.json: %s: unknown key", "k\xff\n"), TH_EINPUT);
    ck_assert_str_eq(e.msg, "f.json: k\\xff\\n: unknown key");
    ck_assert_int_eq(e.code, TH_EINPUT);
}
END_TEST

/* th_text_utf8_bad finds the first byte outside valid UTF-8; th_text_utf8_repair replaces each
 * such byte by U+FFFD (ef bf bd) and keeps the rest. */
START_TEST(utf8_check_and_repair) {
    const char *ok = "a\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80";
    ck_assert_uint_eq(th_text_utf8_bad(ok, strlen(ok)), strlen(ok));
    ck_assert_uint_eq(th_text_utf8_bad("ab\xff", 3), 2);
    ck_assert_uint_eq(th_text_utf8_bad("a\xc3", 2), 1);        /* truncated */
    ck_assert_uint_eq(th_text_utf8_bad("\xed\xa0\x80", 3), 0); /* a surrogate */
    ck_assert_uint_eq(th_text_utf8_bad("\xc0\xaf", 2), 0);     /* overlong */
    char *r = th_text_utf8_repair("n\xff\xc3\xa9\x80");
    ck_assert_ptr_nonnull(r);
    ck_assert_str_eq(r, "n\xef\xbf\xbd\xc3\xa9\xef\xbf\xbd");
    free(r);
}
END_TEST

Suite *text_suite(void) {
    Suite *s = suite_create("text");
    TCase *tc = tcase_create("text");
    tcase_add_test(tc, escapes);
    tcase_add_test(tc, error_messages);
    tcase_add_test(tc, utf8_check_and_repair);
    suite_add_tcase(s, tc);
    return s;
}

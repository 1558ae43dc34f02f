/* Check suite for th_sha256_hex: the test vectors of FIPS 180-2 (appendix B) and the one-block
 * and two-block padding boundaries, checked against coreutils' sha256sum. */
#include <stdlib.h>
#include <string.h>

#include "check_themis.h"
#include "themis/sha256.h"

static const char *hash(const void *p, size_t n) {
    static char hex[65];
    th_sha256_hex(p, n, hex);
    return hex;
}

START_TEST(fips_vectors) {
    /* FIPS 180-2 B.1, B.2, B.3, and the empty string */
    ck_assert_str_eq(hash("abc", 3),
                     "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    ck_assert_str_eq(hash(two, strlen(two)),
                     "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    char *million = malloc(1000000);
    ck_assert_ptr_nonnull(million);
    memset(million, 'a', 1000000);
    ck_assert_str_eq(hash(million, 1000000),
                     "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
    free(million);
    ck_assert_str_eq(hash("", 0),
                     "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}
END_TEST

/* Lengths 55, 56, 63, 64 and 65 (the tail fits one block with its length, or needs two): the
 * digest sha256sum prints for the same bytes. */
START_TEST(padding_boundaries) {
    static const int lens[] = {55, 56, 63, 64, 65, 119, 120};
    for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
        char out[256], cmd[256], data[200];
        memset(data, 'x', (size_t)lens[i]);
        snprintf(cmd, sizeof cmd, "head -c %d /dev/zero | tr '\\0' x | sha256sum | cut -c1-64",
                 lens[i]);
        ck_assert_int_eq(test_sh(out, sizeof out, "%s", cmd), 0);
        ck_assert_uint_eq(strlen(out), 65);
        out[64] = '\0';
        ck_assert_str_eq(hash(data, (size_t)lens[i]), out);
    }
}
END_TEST

Suite *sha256_suite(void) {
    Suite *s = suite_create("sha256");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, fips_vectors);
    tcase_add_test(tc, padding_boundaries);
    suite_add_tcase(s, tc);
    return s;
}

/* Check suite for str.c: name lookup in enum tables, string copies, base names. */
#include <stdlib.h>
#include <string.h>

#include "check_themis.h"

START_TEST(name_find) {
    static const char *const names[] = {"ring", "fc", "switch", NULL};
    ck_assert_int_eq(th_name_find(names, "ring"), 0);
    ck_assert_int_eq(th_name_find(names, "switch"), 2);
    ck_assert_int_eq(th_name_find(names, "Ring"), -1); /* names are case-sensitive */
    ck_assert_int_eq(th_name_find(names, "sw"), -1);   /* no prefix matches */
    ck_assert_int_eq(th_name_find(names, ""), -1);
    /* every enum table of the library goes through it */
    ck_assert_int_eq(th_name_find(th_policy_names, "themis-global"), TH_POLICY_THEMIS_GLOBAL);
    ck_assert_int_eq(th_name_find(th_intra_names, "scf"), TH_INTRA_SCF);
    ck_assert_int_eq(th_name_find(th_algorithm_names, "rhd"), TH_ALG_RHD);
}
END_TEST

START_TEST(strdup_copy) {
    const char *s = "a,b \"c\"";
    char *d = th_strdup(s);
    ck_assert_ptr_nonnull(d);
    ck_assert_ptr_ne(d, s);
    ck_assert_str_eq(d, s);
    free(d);
    d = th_strdup("");
    ck_assert_str_eq(d, "");
    free(d);
}
END_TEST

START_TEST(base_name) {
    char b[8];
    th_base_name("models/systems/x.json", ".json", b, sizeof b);
    ck_assert_str_eq(b, "x");
    th_base_name("x.yml.json", ".json", b, sizeof b); /* only the suffix goes */
    ck_assert_str_eq(b, "x.yml");
    th_base_name("dir/x.yml", ".json", b, sizeof b); /* another suffix stays */
    ck_assert_str_eq(b, "x.yml");
    th_base_name(".json", ".json", b, sizeof b); /* nothing but the suffix: kept */
    ck_assert_str_eq(b, ".json");
    th_base_name("a/b/net.v2.yml", NULL, b, sizeof b); /* the last extension */
    ck_assert_str_eq(b, "net.v2");
    th_base_name("dir/.hidden", NULL, b, sizeof b); /* a leading dot is no extension */
    ck_assert_str_eq(b, ".hidden");
    th_base_name("dir/", NULL, b, sizeof b);
    ck_assert_str_eq(b, "");
    th_base_name("abcdefghijk.json", ".json", b, sizeof b); /* 8 bytes: 7 characters */
    ck_assert_str_eq(b, "abcdefg");
}
END_TEST

Suite *str_suite(void) {
    Suite *s = suite_create("str");
    TCase *tc = tcase_create("str");
    tcase_add_test(tc, name_find);
    tcase_add_test(tc, strdup_copy);
    tcase_add_test(tc, base_name);
    suite_add_tcase(s, tc);
    return s;
}

/* Check suite for hostile inputs across commands: folders given as input files, options that
 * do not belong together, each refused with its documented exit code and one clear line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_themis.h"

/* A folder opens like a file but cannot be read: ASTRA-sim 1.0's network and system text are
 * refused with a read error (exit 3) instead of being taken for empty or YAML files. */
START_TEST(import_astra_folder) {
    char *dir = test_tmp_dir();
    test_fails(3, "read error", "import-astra '%s' '%s'", test_dpath("astra1_net_2d.json"), dir);
    test_fails(3, "read error", "import-astra '%s' '%s'", dir, test_dpath("astra1_sys_2d.txt"));
    test_rm_dir(dir);
}
END_TEST

/* optimize: -c and -b describe one collective; with -l or -w they would be ignored. */
START_TEST(optimize_one_collective) {
    test_bad("-c and -b describe one collective", "optimize -l '%s' -c reducescatter",
             test_dpath("../../models/collectives/llm-step.json"));
    test_bad("-c and -b describe one collective", "optimize -w '%s' -b 1MiB",
             test_dpath("../../models/workloads/resnet50.json"));
}
END_TEST

/* -V prints the version in optimize and import-astra --workload, as in every other command. */
START_TEST(optimize_version) {
    const char *cmds[] = {"optimize -V", "import-astra --workload w.txt -V"};
    for (int i = 0; i < 2; i++) {
        test_cli_out r;
        test_cli(&r, "%s", cmds[i]);
        test_expect_quiet(&r, cmds[i]);
        ck_assert_msg(strncmp(r.out, "themis ", 7) == 0, "%s printed '%s'", cmds[i], r.out);
        test_cli_free(&r);
    }
}
END_TEST

Suite *cli_errors_suite(void) {
    Suite *s = suite_create("cli_errors");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, import_astra_folder);
    tcase_add_test(tc, optimize_one_collective);
    tcase_add_test(tc, optimize_version);
    suite_add_tcase(s, tc);
    return s;
}

/* Check suite for hostile inputs across commands: folders given as input files or where an
 * output goes, options that do not belong together, each refused with its documented exit
 * code and one clear line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check_themis.h"
#include "themis/text.h"

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

/* A folder where a sweep's OUT.meta.json goes: refused (exit 3, naming it) before OUT is
 * started, so no header-only OUT is left behind to need --force on the next run. */
START_TEST(sweep_sidecar_folder) {
    char *dir = test_tmp_dir();
    TEST_DIR_PATH(spec, dir, "spec.json");
    TEST_DIR_PATH(meta, dir, "s.csv.meta.json");
    TEST_DIR_PATH(out, dir, "s.csv");
    char s[1024];
    snprintf(s, sizeof s, "{\"system\": \"%s\", \"axes\": {\"chunks\": [1, 2]}}",
             test_dpath("cli_3d.json"));
    test_spit(spec, s, strlen(s));
    ck_assert_int_eq(mkdir(meta, 0777), 0);
    test_cli_out r;
    test_cli_in(&r, dir, "sweep spec.json -o s.csv --quiet");
    test_expect_status(&r, 3, "sweep with a folder as its sidecar");
    ck_assert_msg(strstr(r.err, "s.csv.meta.json: is a folder"), "%s", r.err);
    test_cli_free(&r);
    ck_assert_msg(!test_exists(out), "s.csv was started");
    test_rm_dir(dir);
}
END_TEST

/* calibrate: one log named twice would weigh its rows twice (and halve the error bars). */
START_TEST(calibrate_log_twice) {
    const char *log = test_dpath("calibrate/allreduce-8.log");
    test_bad("given twice", "calibrate '%s' '%s' --topology switch", log, log);
}
END_TEST

/* `themis help CMD` is `themis CMD --help`; an unknown CMD is a usage error, not the global
 * help with exit 0. */
START_TEST(help_command) {
    const char *cmds[] = {"plot", "calibrate", "optimize", "import-astra"};
    for (int i = 0; i < 4; i++) {
        test_cli_out a, b;
        test_cli(&a, "help %s", cmds[i]);
        test_cli(&b, "%s --help", cmds[i]);
        test_expect_quiet(&a, cmds[i]);
        ck_assert_msg(strncmp(a.out, "usage: themis ", 14) == 0 && strcmp(a.out, b.out) == 0,
                      "help %s printed '%.80s'", cmds[i], a.out);
        test_cli_free(&a);
        test_cli_free(&b);
    }
    test_bad("help: unknown command 'nope'", "help nope");
    test_bad("help: expected one command", "help plot run");
}
END_TEST

/* The readers of our JSON workloads (optimize -w, a sweep's workloads, the library's train) given
 * an ASTRA-sim 1.0 text workload says what it is and which commands take it, not "invalid
 * JSON near DATA"; a file that is neither keeps the JSON error. */
START_TEST(text_workload_where_json) {
    test_bad("an ASTRA-sim 1.0 text workload, where a JSON workload is expected",
             "optimize -w '%s' --max-evals 5", test_dpath("astra1/data1.txt"));
    test_bad("invalid JSON", "optimize -w '%s' --max-evals 5", test_dpath("astra1_sys_2d.txt"));
}
END_TEST

/* calibrate -o and --plot are kept together or not at all: a system file that cannot be
 * written (exit 3, naming it) leaves no plot, a plot that cannot be drawn (gnuplot missing,
 * exit 2) no system file. */
START_TEST(calibrate_outputs_together) {
    char *dir = test_tmp_dir();
    const char *log = test_dpath("calibrate/allreduce-8.log");
    TEST_DIR_PATH(svg, dir, "p.svg");
    TEST_DIR_PATH(json, dir, "m.json");
    test_cli_out r;
    test_cli_in(&r, dir, "calibrate '%s' --topology switch --plot p.svg -o /dev/full", log);
    test_expect_status(&r, 3, "calibrate -o /dev/full");
    ck_assert_msg(strstr(r.err, "/dev/full: write error"), "%s", r.err);
    test_cli_free(&r);
    ck_assert_msg(!test_exists(svg), "p.svg drawn though the system was not written");
    char out[4096];
    int st = test_sh(out, sizeof out,
                     "cd '%s' && env PATH=/nonexistent '%s' calibrate '%s' --topology switch "
                     "--plot p.svg -o m.json",
                     dir, test_cli_bin(), log);
    ck_assert_msg(st == 2 && strstr(out, "gnuplot not found"), "exit %d: %s", st, out);
    ck_assert_msg(!test_exists(json), "m.json written though the plot failed");
    ck_assert(!test_exists(svg));
    test_rm_dir(dir);
}
END_TEST

/* merge: a JSONL shard that got no point (more shards than points) is an empty file, which
 * merges as JSONL (it was taken for CSV and refused); a folder as a part is a read error. */
START_TEST(merge_empty_jsonl_shard) {
    char *dir = test_tmp_dir();
    TEST_DIR_PATH(spec, dir, "spec.json");
    char s[1024];
    snprintf(s, sizeof s, "{\"system\": \"%s\", \"axes\": {\"chunks\": [1, 2]}}",
             test_dpath("cli_3d.json"));
    test_spit(spec, s, strlen(s));
    test_cli_out r;
    /* 2 points in 3 shards: shard 2 has none (points i with i mod 3 == 2) */
    test_cli_in(&r, dir,
                "sweep spec.json -f jsonl -o all.jsonl --quiet && "
                "for k in 0 1 2; do '%s' sweep spec.json -f jsonl --shard $k/3 -o p$k.jsonl "
                "--quiet || exit 1; done && test ! -s p2.jsonl && "
                "'%s' merge m.jsonl p2.jsonl p0.jsonl p1.jsonl --spec spec.json && "
                "cmp m.jsonl all.jsonl",
                test_cli_bin(), test_cli_bin());
    test_expect_quiet(&r, "merge with an empty JSONL shard");
    test_cli_free(&r);
    test_cli_in(&r, dir, "merge m2.jsonl p0.jsonl '%s'", dir);
    test_expect_status(&r, 3, "merge with a folder as a part");
    ck_assert_msg(strstr(r.err, "read error"), "%s", r.err);
    test_cli_free(&r);
    test_rm_dir(dir);
}
END_TEST

/* An empty list where a JSON file needs one says so ("got an array" read as a wrong type). */
START_TEST(empty_json_list) {
    char *dir = test_tmp_dir();
    TEST_DIR_PATH(l, dir, "l.json");
    test_spit(l, "{\"collectives\": []}", 19);
    test_bad("collectives: expected a list of 1 to 4096 collectives, got an empty array",
             "optimize -l '%s'", l);
    test_rm_dir(dir);
}
END_TEST

/* A misspelled command or option names the nearest one, as a misspelled JSON key does (exit 2);
 * nothing near, the message stays without a guess. */
START_TEST(did_you_mean) {
    test_bad("themis: unknown command 'rnu'; did you mean 'run'? (see 'themis --help')", "rnu");
    test_bad("themis: help: unknown command 'optimise'; did you mean 'optimize'?", "help optimise");
    test_bad("themis: run: unknown option '--polcy'; did you mean '--policy'? "
             "(see 'themis run --help')",
             "run --polcy themis");
    test_bad("unknown option '--polcy=themis'; did you mean '--policy'?", "--polcy=themis");
    test_bad("themis: unknown command 'zzzzzzzz' (see 'themis --help')", "zzzzzzzz");
    test_bad("themis: run: unknown option '--zzzzzzzz' (see 'themis run --help')",
             "run --zzzzzzzz");
}
END_TEST

/* The forms getopt_long took are read alike by the table-driven parser: --name=value, -nVALUE,
 * a long name shortened to a unique prefix, options after operands, "--" ending the options;
 * an ambiguous prefix, a value given to a flag and a missing value are usage errors. */
START_TEST(argv_forms) {
    const char *same[] = {"run -f csv -n 8", "run -fcsv --chunks=8", "run --form=csv --ch 8",
                          "run -f csv -- -n 8"};
    test_cli_out a;
    test_cli(&a, "%s", same[0]);
    test_expect_quiet(&a, same[0]);
    for (int i = 1; i < 3; i++) {
        test_cli_out b;
        test_cli(&b, "%s", same[i]);
        test_expect_quiet(&b, same[i]);
        ck_assert_msg(strcmp(a.out, b.out) == 0, "%s printed other bytes", same[i]);
        test_cli_free(&b);
    }
    test_cli_free(&a);
    test_bad("unexpected argument '-n'", "%s", same[3]);
    test_bad("option '--i' is ambiguous (--intra, --ideal-lat)", "run --i 3");
    test_bad("option '--force' takes no value", "run --force=1");
    test_bad("option '--chunks' needs a value", "run --chunks");
    test_bad("train: -q: unknown intra-dimension policy 'x'", "train -q x '%s'",
             test_dpath("../../models/workloads/resnet50.json"));
}
END_TEST

/* A name that is not valid UTF-8 never reaches a JSON output raw: a system file's name is
 * refused at input (its file and key named), and a sweep spec whose own file name is not
 * (it goes into the sidecar's spec_file and command) gets a sidecar that is valid UTF-8. */
START_TEST(invalid_utf8_names) {
    char *dir = test_tmp_dir();
    TEST_DIR_PATH(sys, dir, "s.json");
    const char *bad = "{\"name\": \"n\xff\", \"dims\": [{\"topology\": \"ring\", \"npus\": 4, "
                      "\"bw_GBps\": 100, \"latency_ns\": 10}]}";
    test_spit(sys, bad, strlen(bad));
    test_bad("name: a string must be valid UTF-8", "run -s '%s' -f json", sys);
    char s[1024];
    snprintf(s, sizeof s, "{\"system\": \"%s\", \"axes\": {\"chunks\": [1, 2]}}",
             test_dpath("cli_3d.json"));
    TEST_DIR_PATH(spec, dir, "sp\xff.json");
    test_spit(spec, s, strlen(s));
    test_ok_in(dir, "sweep \"$(printf 'sp\\377.json')\" -o o.csv --quiet");
    TEST_DIR_PATH(meta, dir, "o.csv.meta.json");
    size_t n;
    char *text = test_slurp(meta, &n);
    ck_assert_uint_eq(th_text_utf8_bad(text, n), n);
    ck_assert_msg(strstr(text, "sp\xef\xbf\xbd.json"), "%s", text);
    free(text);
    test_rm_dir(dir);
}
END_TEST

/* An OUT.meta.json that is not a sidecar is someone's file: refused (exit 2, naming it) before
 * OUT is started, kept as it was; --force replaces it, and a sidecar is replaced as before. */
START_TEST(sweep_sidecar_not_ours) {
    char *dir = test_tmp_dir();
    TEST_DIR_PATH(spec, dir, "spec.json");
    TEST_DIR_PATH(meta, dir, "s.csv.meta.json");
    TEST_DIR_PATH(out, dir, "s.csv");
    char s[1024];
    snprintf(s, sizeof s, "{\"system\": \"%s\", \"axes\": {\"chunks\": [1, 2]}}",
             test_dpath("cli_3d.json"));
    test_spit(spec, s, strlen(s));
    test_spit(meta, "{\"mine\": 1}\n", 12);
    test_cli_out r;
    test_cli_in(&r, dir, "sweep spec.json -o s.csv --quiet");
    test_expect_status(&r, 2, "sweep over a file that is not a sidecar");
    ck_assert_msg(strstr(r.err, "s.csv.meta.json: already exists and is not a sweep's sidecar"),
                  "%s", r.err);
    test_cli_free(&r);
    ck_assert_msg(!test_exists(out), "s.csv was started");
    size_t n;
    char *kept = test_slurp(meta, &n);
    ck_assert_str_eq(kept, "{\"mine\": 1}\n");
    free(kept);
    test_ok_in(dir, "sweep spec.json -o s.csv --quiet --force");
    unlink(out); /* the sidecar left behind is a sidecar: a new sweep replaces it */
    test_ok_in(dir, "sweep spec.json -o s.csv --quiet");
    test_rm_dir(dir);
}
END_TEST

/* One number reader for argv and JSON (SPEC §1): 01 and 1. are refused as JSON refuses them,
 * a count is an integer (1e1 is ten, as in JSON), a size is whole bytes. */
START_TEST(argv_numbers) {
    const char *sys = test_dpath("cli_3d.json");
    test_bad("-n: expected an integer from 1", "run -s '%s' -n 01", sys);
    test_bad("-n: expected an integer from 1", "run -s '%s' -n 1.", sys);
    test_bad("--size: expected a size such as", "run -s '%s' -b 1.", sys);
    test_bad("--size: expected a whole number of bytes", "run -s '%s' -b 1.5", sys);
    test_bad("expected an integer from 1", "sweep '%s' -j 01 --dry-run",
             test_dpath("sweep_ring4.json"));
    test_cli_out a, b;
    test_cli(&a, "run -s '%s' -n 1e1 -b 1.5KiB -f csv", sys);
    test_cli(&b, "run -s '%s' -n 10 -b 1536 -f csv", sys);
    test_expect_quiet(&a, "-n 1e1 -b 1.5KiB");
    ck_assert_str_eq(a.out, b.out);
    test_cli_free(&a);
    test_cli_free(&b);
}
END_TEST

/* Errors that say the real reason: a negative time in a log (was "no out-of-place time"), the
 * upper limit of --shard, and stdin named twice (was "invalid JSON" on the second read). */
START_TEST(real_reasons) {
    char *dir = test_tmp_dir();
    TEST_DIR_PATH(log, dir, "neg.log");
    const char *text =
        "#       size         count      type   redop    root     time   algbw   busbw #wrong"
        "     time   algbw   busbw #wrong\n"
        "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)        "
        "    (us)  (GB/s)  (GB/s)\n"
        "     1048576        262144     float     sum      -1    -12.5   83.89  146.81      0"
        "    12.4   84.56  147.98      0\n";
    test_spit(log, text, strlen(text));
    test_bad("neg.log:3: column 6 (time): expected a time > 0 us, got -12.5",
             "calibrate '%s' --topology switch", log);
    test_bad("0 <= K < N <= 100000000", "sweep '%s' --shard 1/1000000000 --dry-run",
             test_dpath("sweep_ring4.json"));
    test_bad("the workload and -s are both '-': standard input can be read only once",
             "train - -s -");
    /* a workload's flops beyond the time limit are bounded as the time they make, and an
     * npu_tflops of 0 is named, not reported as missing */
    TEST_DIR_PATH(wl, dir, "wl.json");
    const char *w = "{\"parallelism\": \"data\", \"npu_tflops\": %s, \"layers\": [{\"name\": "
                    "\"a\", \"forward\": {\"flops\": 1e22}, \"input_grad\": {\"ns\": 1}, "
                    "\"weight_grad\": {\"ns\": 1}}]}";
    char wtext[512];
    snprintf(wtext, sizeof wtext, w, "0.001");
    test_spit(wl, wtext, strlen(wtext));
    test_bad("flops / (npu_tflops * 1e3) = 1e+22 ns, expected at most 1e+21 ns", "train '%s'", wl);
    snprintf(wtext, sizeof wtext, w, "0");
    test_spit(wl, wtext, strlen(wtext));
    test_bad("npu_tflops: expected > 0, got 0", "train '%s'", wl);
    /* a 1.0 network whose list is shorter than dimensions-count says how long it is */
    TEST_DIR_PATH(net, dir, "net.json");
    const char *n1 = "{\"dimensions-count\": 2, \"topologies-per-dim\": [\"Ring\"], "
                     "\"units-count\": [4, 8], \"links-count\": [2, 1], \"link-latency\": [20, "
                     "500], \"link-bandwidth\": [100, 25]}";
    test_spit(net, n1, strlen(n1));
    test_bad("per dimension (2, dimensions-count), found 1", "import-astra '%s' '%s'", net,
             test_dpath("astra1_sys_2d.txt"));
    /* a 1.0 text workload: 2^53 + 1 cycles is refused (a double would round it), and
     * 8000000000000001 cycles are converted to the cycle, not as 8e+15 */
    TEST_DIR_PATH(w1, dir, "w1.txt");
    const char *wt = "DATA\n1\nl0 -1 %s ALLREDUCE 4096 10 ALLREDUCE 4096 10 ALLREDUCE 4096 0\n";
    snprintf(wtext, sizeof wtext, wt, "9007199254740993");
    test_spit(w1, wtext, strlen(wtext));
    test_bad("at most 2^53), got '9007199254740993'", "import-astra --workload '%s'", w1);
    snprintf(wtext, sizeof wtext, wt, "8000000000000001");
    test_spit(w1, wtext, strlen(wtext));
    test_cli_out r;
    test_cli(&r, "import-astra --workload '%s'", w1);
    test_expect_quiet(&r, "import-astra --workload");
    ck_assert_msg(strstr(r.out, "\"ns\":\t8000000000000001"), "%s", r.out);
    test_cli_free(&r);
    /* a CSV with a column twice is refused; one with a byte-order mark is read */
    TEST_DIR_PATH(dup, dir, "dup.csv");
    test_spit(dup, "speedup,speedup\n1,2\n", 20);
    test_bad("dup.csv: line 1: column 'speedup' appears twice", "summarize '%s'", dup);
    test_bad("dup.csv: line 1: column 'speedup' appears twice",
             "plot '%s' -x speedup -y speedup -o '%s/p.svg'", dup, dir);
    TEST_DIR_PATH(bom, dir, "bom.csv");
    test_spit(bom, "\xef\xbb\xbfspeedup\n1\n", 13);
    test_ok_in(dir, "summarize bom.csv");
    test_rm_dir(dir);
}
END_TEST

/* A file of another kind where a system, workload or list of collectives is expected says
 * which kind it is and which was expected, rather than "unknown key". */
START_TEST(file_kinds) {
    const char *wl = test_dpath("../../models/workloads/resnet50.json");
    const char *sys = test_dpath("cli_3d.json");
    test_bad("resnet50.json: is a workload, expected a system file here", "run -s '%s'", wl);
    test_bad("cli_3d.json: is a system file, expected a workload here", "train '%s'", sys);
    test_bad("cli_3d.json: is a system file, expected a list of collectives here",
             "optimize -s '%s' -l '%s'", sys, sys);
}
END_TEST

/* optimize with a budget beyond what the dims can take: every bandwidth stays within a system
 * file's limit (1e9 GB/s), so the answer can be written back as a system; the rest of the
 * budget is reported unspent. A --max above the limit is refused, naming it. */
START_TEST(optimize_huge_budget) {
    const char *sys = test_dpath("cli_3d.json");
    test_cli_out r;
    test_cli(&r, "optimize -s '%s' --budget 1e12 -p themis -f json", sys);
    test_expect_quiet(&r, "optimize --budget 1e12");
    ck_assert_msg(strstr(r.out,
                         "\"per_dim\":\t[{\n\t\t\t\t\t\"bw_GBps\":\t1000000000\n\t\t\t\t}, {\n"
                         "\t\t\t\t\t\"bw_GBps\":\t1000000000\n\t\t\t\t}, {\n"
                         "\t\t\t\t\t\"bw_GBps\":\t1000000000\n\t\t\t\t}]"),
                  "%s", r.out);
    ck_assert_msg(strstr(r.out, "\"spent\":\t3000000000,"), "%s", r.out);
    test_cli_free(&r);
    test_bad("--max 2000000000 GB/s is above a system file's limit of 1e+09 GB/s",
             "optimize -s '%s' --max 2e9", sys);
}
END_TEST

/* --help states the limits a value is checked against: every number option's, --shard's. */
START_TEST(help_limits) {
    const char *cmds[][2] = {{"train --help", "(a number > 0, at most 1e9)"},
                             {"optimize --help", "(a number > 0, at most 1e12)"},
                             {"sweep --help", "(0 <= K < N <= 100000000)"}};
    for (int i = 0; i < 3; i++) {
        test_cli_out r;
        test_cli(&r, "%s", cmds[i][0]);
        test_expect_quiet(&r, cmds[i][0]);
        ck_assert_msg(strstr(r.out, cmds[i][1]), "%s lacks %s", cmds[i][0], cmds[i][1]);
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
    tcase_add_test(tc, sweep_sidecar_folder);
    tcase_add_test(tc, calibrate_log_twice);
    tcase_add_test(tc, help_command);
    tcase_add_test(tc, did_you_mean);
    tcase_add_test(tc, argv_forms);
    tcase_add_test(tc, text_workload_where_json);
    tcase_add_test(tc, calibrate_outputs_together);
    tcase_add_test(tc, merge_empty_jsonl_shard);
    tcase_add_test(tc, empty_json_list);
    tcase_add_test(tc, invalid_utf8_names);
    tcase_add_test(tc, sweep_sidecar_not_ours);
    tcase_add_test(tc, argv_numbers);
    tcase_add_test(tc, real_reasons);
    tcase_add_test(tc, file_kinds);
    tcase_add_test(tc, optimize_huge_budget);
    tcase_add_test(tc, help_limits);
    suite_add_tcase(s, tc);
    return s;
}

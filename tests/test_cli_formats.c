/* Check suite for -f jsonl: run, train, summarize and sweep write one JSON object per line,
 * read back by Python's json module (an independent reader) and compared with the JSON
 * format's results (or the sweep's CSV, read by Python's csv module); sweep JSONL resumes,
 * shards and merges like its CSV. python3 is a test dependency: without it these tests fail. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_themis.h"

/* JSON file argv[1], JSONL file argv[2]: every line one object, the lines equal (values and
 * key order) to the JSON document's array argv[3]; prints the number of lines. */
#define PY_SAME_AS_JSON                                                                            \
    "python3 -c 'import json, sys\n"                                                               \
    "doc = json.load(open(sys.argv[1], encoding=\"utf-8\"))\n"                                     \
    "text = open(sys.argv[2], encoding=\"utf-8\").read()\n"                                        \
    "assert text.endswith(\"\\n\"), \"no final line break\"\n"                                     \
    "objs = [json.loads(l) for l in text[:-1].split(\"\\n\")]\n"                                   \
    "want = doc[sys.argv[3]]\n"                                                                    \
    "assert all(isinstance(o, dict) for o in objs), \"a line is not an object\"\n"                 \
    "assert objs == want, (objs, want)\n"                                                          \
    "assert [list(o) for o in objs] == [list(w) for w in want], \"key order\"\n"                   \
    "print(len(objs))\n"                                                                           \
    "' '%s' '%s' '%s'"

/* CSV file argv[1], JSONL file argv[2]: as many lines as rows, each line's keys the header in
 * order; text fields equal strings, numbers equal the field read as a double, null only for an
 * empty field; prints the rows, the nulls and the Python types of argv[3..]. */
#define PY_SAME_AS_CSV                                                                             \
    "python3 -c 'import csv, json, sys\n"                                                          \
    "rows = list(csv.reader(open(sys.argv[1], newline=\"\", encoding=\"utf-8\")))\n"               \
    "head, rows = rows[0], rows[1:]\n"                                                             \
    "text = open(sys.argv[2], encoding=\"utf-8\").read()\n"                                        \
    "assert text.endswith(\"\\n\"), \"no final line break\"\n"                                     \
    "objs = [json.loads(l) for l in text[:-1].split(\"\\n\")]\n"                                   \
    "assert len(objs) == len(rows), (len(objs), len(rows))\n"                                      \
    "nulls = 0\n"                                                                                  \
    "for r, o in zip(rows, objs):\n"                                                               \
    "    assert list(o) == head, (list(o), head)\n"                                                \
    "    for k, f in zip(head, r):\n"                                                              \
    "        v = o[k]\n"                                                                           \
    "        if v is None:\n"                                                                      \
    "            assert f == \"\", (k, f); nulls += 1\n"                                           \
    "        elif isinstance(v, str):\n"                                                           \
    "            assert v == f, (k, v, f)\n"                                                       \
    "        else:\n"                                                                              \
    "            assert type(v) in (int, float) and v == float(f), (k, v, f)\n"                    \
    "print(len(objs), nulls, *[type(objs[0][k]).__name__ for k in sys.argv[3:]])\n"                \
    "' '%s' '%s' %s"

/* A system whose name needs JSON escapes (a quote, a backslash, a line break) and UTF-8. */
static void write_system(const char *dir) {
    TEST_DIR_PATH(sys, dir, "sys.json");
    const char *s = "{\"name\": \"s \\\"q\\\" \\\\ \\nline é\", \"dims\": [{\"name\": \"d\", "
                    "\"topology\": \"ring\", \"npus\": 4, \"bw_GBps\": 100, \"latency_ns\": 10}]}";
    test_spit(sys, s, strlen(s));
}

/* Runs ARGS in dir and saves its stdout as dir/name. */
static void ok_to(const char *dir, const char *name, const char *args) {
    test_cli_out r;
    test_cli_in(&r, dir, "%s", args);
    test_expect_quiet(&r, args);
    TEST_DIR_PATH(path, dir, name);
    test_spit(path, r.out, r.out_len);
    test_cli_free(&r);
}

/* Runs the Python check in dir and compares its output with want. */
static void py_expect(const char *dir, const char *want, const char *fmt, const char *a,
                      const char *b, const char *c) {
    char cmd[4096], out[8192];
    snprintf(cmd, sizeof cmd, "cd '%s' && ", dir);
    snprintf(cmd + strlen(cmd), sizeof cmd - strlen(cmd), fmt, a, b, c);
    int st = test_sh(out, sizeof out, "%s", cmd);
    ck_assert_msg(st == 0, "python3 check of %s: exit %d: %s", b, st, out);
    ck_assert_str_eq(out, want);
}

START_TEST(run_jsonl) {
    char *dir = test_tmp_dir();
    write_system(dir);
    test_ok_in(dir, "run -s sys.json -b 1e6 -n 2 -f json -o r.json");
    test_ok_in(dir, "run -s sys.json -b 1e6 -n 2 -f jsonl -o r.jsonl");
    /* 1 dim: baseline, themis, roundrobin and lp, each with fifo and scf: 8 lines */
    py_expect(dir, "8\n", PY_SAME_AS_JSON, "r.json", "r.jsonl", "results");
    test_ok_in(dir, "run -s sys.json -b 1e6 -n 2 -p themis -q scf --bound -f json -o b.json");
    test_ok_in(dir, "run -s sys.json -b 1e6 -n 2 -p themis -q scf --bound -f jsonl -o b.jsonl");
    py_expect(dir, "1\n", PY_SAME_AS_JSON, "b.json", "b.jsonl", "results");
    /* the one line of a single pair: ring of 4, 1e6 bytes, 1 chunk would be 15.06 us (see
     * cli_csv); here 2 chunks of 5e5 bytes, both through the single dim: RS and AG each 3 steps
     * of 10 + 1.25e5/100 ns = 3780 ns per chunk and phase, 4 stages back to back = 15120 ns */
    test_cli_out r;
    test_cli_in(&r, dir, "run -s sys.json -b 1e6 -n 2 -p baseline -q fifo -f jsonl");
    test_expect_quiet(&r, "run -f jsonl to stdout");
    ck_assert_msg(strstr(r.out, "\"load_model\":\"alpha_beta\",\"policy\":\"baseline\","
                                "\"intra\":\"fifo\",\"time_us\":15.12,") != NULL,
                  "%s", r.out);
    ck_assert_msg(strstr(r.out, "\"size_bytes\":1000000,\"chunks\":2,\"dims\":[0],") != NULL, "%s",
                  r.out);
    ck_assert_ptr_eq(strchr(r.out, '\n'), r.out + r.out_len - 1); /* one line */
    test_cli_free(&r);
    test_rm_dir(dir);
}
END_TEST

/* dir/w.json: one data-parallel layer (forward 1000 ns, input gradient 500, weight gradient 800
 * with a 1e6-byte All-Reduce), its names given as JSON string contents (escapes included). */
static void write_workload(const char *dir, const char *name, const char *layer) {
    TEST_DIR_PATH(wl, dir, "w.json");
    char w[1024];
    snprintf(w, sizeof w,
             "{\"name\": \"%s\", \"parallelism\": \"data\", \"chunks\": 1, \"layers\": ["
             "{\"name\": \"%s\", \"params\": 500000, \"forward\": {\"ns\": 1000}, "
             "\"input_grad\": {\"ns\": 500}, \"weight_grad\": {\"ns\": 800, \"collective\": "
             "{\"type\": \"allreduce\", \"size\": 1000000}}}]}",
             name, layer);
    test_spit(wl, w, strlen(w));
}

START_TEST(train_jsonl) {
    char *dir = test_tmp_dir();
    write_system(dir);
    write_workload(dir, "w \\\"1\\\"", "l,1 é");
    test_ok_in(dir, "train w.json -s sys.json -f json -o t.json");
    test_ok_in(dir, "train w.json -s sys.json -f jsonl -o t.jsonl");
    /* every policy (baseline, themis, themis-global, roundrobin, lp: 5 x fifo, scf) and the
     * ideal network (one row): 11 lines */
    py_expect(dir, "11\n", PY_SAME_AS_JSON, "t.json", "t.jsonl", "results");
    test_rm_dir(dir);
}
END_TEST

START_TEST(summarize_jsonl) {
    char *dir = test_tmp_dir();
    TEST_DIR_PATH(csv, dir, "in.csv");
    /* groups a (2, 8: mean 5, gmean 4), "b,\"x\"" (1: log 0, exp 0 = 1 exactly) and c (an
     * empty metric: no values) */
    const char *t = "k,v\na,2\n\"b,\"\"x\"\"\",1\na,8\nc,\n";
    test_spit(csv, t, strlen(t));
    ok_to(dir, "s.json", "summarize in.csv --by k --metric v -f json");
    ok_to(dir, "s.jsonl", "summarize in.csv --by k --metric v -f jsonl");
    py_expect(dir, "3\n", PY_SAME_AS_JSON, "s.json", "s.jsonl", "groups");
    TEST_DIR_PATH(out, dir, "s.jsonl");
    char *got = test_slurp(out, NULL);
    ck_assert_str_eq(got, "{\"keys\":{\"k\":\"a\"},\"count\":2,\"mean\":5,\"gmean\":4,\"min\":2,"
                          "\"max\":8}\n"
                          "{\"keys\":{\"k\":\"b,\\\"x\\\"\"},\"count\":1,\"mean\":1,\"gmean\":1,"
                          "\"min\":1,\"max\":1}\n"
                          "{\"keys\":{\"k\":\"c\"},\"count\":0,\"mean\":null,\"gmean\":null,"
                          "\"min\":null,\"max\":null}\n");
    free(got);
    /* --best: the groups with a value (a, b; c has none), one per line */
    ok_to(dir, "b.json", "summarize in.csv --by k --best v -f json");
    ok_to(dir, "b.jsonl", "summarize in.csv --by k --best v -f jsonl");
    py_expect(dir, "2\n", PY_SAME_AS_JSON, "b.json", "b.jsonl", "groups");
    test_rm_dir(dir);
}
END_TEST

/* Two systems (1 dim and 3 dims), 2 chunk counts, 2 policies: 8 points. */
static void write_spec(const char *dir) {
    TEST_DIR_PATH(spec, dir, "spec.json");
    char s[4096];
    snprintf(s, sizeof s,
             "{\"collective\": {\"size\": 1000000}, \"axes\": {\"system\": [\"%s\", \"%s\"], "
             "\"chunks\": [1, 4], \"policy\": [\"baseline\", \"themis\"]}}",
             test_dpath("cli_ring4.json"), test_dpath("cli_3d.json"));
    test_spit(spec, s, strlen(s));
}

START_TEST(sweep_jsonl) {
    char *dir = test_tmp_dir();
    write_spec(dir);
    test_ok_in(dir, "sweep spec.json --quiet -o s.csv");
    test_ok_in(dir, "sweep spec.json --quiet -f jsonl -j 1 -o s.jsonl");
    /* 8 rows; the 4 points on the 1-dim ring have no dim 1 and 2: 4 x 4 nulls */
    py_expect(dir, "8 16 int int str str str float\n", PY_SAME_AS_CSV, "s.csv", "s.jsonl",
              "point chunks policy system system_file time_us");
    /* the same bytes with any thread count */
    test_ok_in(dir, "sweep spec.json --quiet -f jsonl -j 3 -o s3.jsonl");
    char out[256];
    ck_assert_int_eq(test_sh(out, sizeof out, "cmp '%s/s.jsonl' '%s/s3.jsonl'", dir, dir), 0);
    /* to stdout */
    ok_to(dir, "o.jsonl", "sweep spec.json -f jsonl -o -");
    ck_assert_int_eq(test_sh(out, sizeof out, "cmp '%s/s.jsonl' '%s/o.jsonl'", dir, dir), 0);
    test_rm_dir(dir);
}
END_TEST

/* A workload sweep (its other result columns, a workload axis with its _file column, names that
 * need JSON escapes): 2 workloads x 2 batches = 4 rows, no empty field. */
START_TEST(sweep_jsonl_workloads) {
    char *dir = test_tmp_dir();
    write_system(dir);
    write_workload(dir, "w \\\"1\\\" é", "l");
    TEST_DIR_PATH(wl2, dir, "plain.json");
    const char *p = "{\"name\": \"plain\", \"parallelism\": \"data\", \"layers\": [{\"name\": "
                    "\"a\", \"forward\": {\"ns\": 100}, \"input_grad\": {\"ns\": 1}, "
                    "\"weight_grad\": {\"ns\": 1, \"collective\": {\"type\": \"allreduce\", "
                    "\"size\": 1000}}}]}";
    test_spit(wl2, p, strlen(p));
    TEST_DIR_PATH(spec, dir, "spec.json");
    const char *s = "{\"system\": \"sys.json\", \"axes\": {\"workload\": [\"w.json\", "
                    "\"plain.json\"], \"batch\": [0.5, 2]}}";
    test_spit(spec, s, strlen(s));
    test_ok_in(dir, "sweep spec.json --quiet -o s.csv");
    test_ok_in(dir, "sweep spec.json --quiet -f jsonl -o s.jsonl");
    py_expect(dir, "4 0 int str str float float\n", PY_SAME_AS_CSV, "s.csv", "s.jsonl",
              "point workload workload_file batch iteration_us");
    test_rm_dir(dir);
}
END_TEST

START_TEST(sweep_jsonl_resume) {
    char *dir = test_tmp_dir();
    write_spec(dir);
    test_ok_in(dir, "sweep spec.json --quiet -f jsonl -o full.jsonl");
    char out[512];
    /* cut inside line 4, and right after line 3: --resume finishes both to the same bytes */
    ck_assert_int_eq(test_sh(out, sizeof out,
                             "cd '%s' && head -n 3 full.jsonl > a.jsonl && "
                             "head -n 4 full.jsonl | head -c -20 >> a.jsonl.tmp && "
                             "tail -n 1 a.jsonl.tmp >> a.jsonl && rm a.jsonl.tmp && "
                             "head -n 3 full.jsonl > b.jsonl",
                             dir),
                     0);
    test_ok_in(dir, "sweep spec.json --quiet -f jsonl --resume -o a.jsonl");
    test_ok_in(dir, "sweep spec.json --quiet -f jsonl --resume -o b.jsonl");
    ck_assert_int_eq(test_sh(out, sizeof out, "cd '%s' && cmp full.jsonl a.jsonl", dir), 0);
    ck_assert_int_eq(test_sh(out, sizeof out, "cd '%s' && cmp full.jsonl b.jsonl", dir), 0);
    /* a finished file stays as it is */
    test_ok_in(dir, "sweep spec.json --quiet -f jsonl --resume -o b.jsonl");
    ck_assert_int_eq(test_sh(out, sizeof out, "cd '%s' && cmp full.jsonl b.jsonl", dir), 0);
    test_rm_dir(dir);
}
END_TEST

START_TEST(sweep_jsonl_resume_errors) {
    char *dir = test_tmp_dir();
    write_spec(dir);
    test_ok_in(dir, "sweep spec.json --quiet -f jsonl -o full.jsonl");
    test_ok_in(dir, "sweep spec.json --quiet -o full.csv");
    char out[512];
    ck_assert_int_eq(test_sh(out, sizeof out,
                             "cd '%s' && cat full.jsonl full.jsonl > twice.jsonl && "
                             "head -n 2 full.jsonl | sed '2s/\"chunks\":1/\"chunks\":2/' > "
                             "changed.jsonl",
                             dir),
                     0);
    test_cli_out r;
    test_cli_in(&r, dir, "sweep spec.json -f jsonl --resume -o twice.jsonl");
    test_expect_bad(&r, "resume a JSONL file with more rows than points");
    ck_assert_msg(strstr(r.err, "twice.jsonl: has 16 rows, more than the 8 points"), "%s", r.err);
    test_cli_free(&r);
    test_cli_in(&r, dir, "sweep spec.json -f jsonl --resume -o changed.jsonl");
    test_expect_bad(&r, "resume a JSONL file whose last row differs");
    ck_assert_msg(strstr(r.err, "changed.jsonl: row 2 is not point 1 of this sweep as JSONL"), "%s",
                  r.err);
    test_cli_free(&r);
    /* a CSV file resumed as JSONL: its header is not a point's line */
    test_ok_in(dir, "sweep spec.json --quiet --shard 0/2 -o half.csv");
    test_cli_in(&r, dir, "sweep spec.json -f jsonl --shard 0/2 --resume -o half.csv");
    test_expect_bad(&r, "resume a CSV file as JSONL");
    ck_assert_msg(strstr(r.err, "half.csv: has 5 rows, more than the 4 points of this sweep shard"),
                  "%s", r.err);
    test_cli_free(&r);
    test_rm_dir(dir);
}
END_TEST

START_TEST(merge_jsonl) {
    char *dir = test_tmp_dir();
    write_spec(dir);
    test_ok_in(dir, "sweep spec.json --quiet -f jsonl -o full.jsonl");
    test_ok_in(dir, "sweep spec.json --quiet -f jsonl --shard 0/3 -o p0.jsonl");
    test_ok_in(dir, "sweep spec.json --quiet -f jsonl --shard 1/3 -o p1.jsonl");
    test_ok_in(dir, "sweep spec.json --quiet -f jsonl --shard 2/3 -o p2.jsonl");
    test_ok_in(dir, "sweep spec.json --quiet --shard 1/3 -o p1.csv");
    test_ok_in(dir, "merge all.jsonl p2.jsonl p0.jsonl p1.jsonl --spec spec.json");
    char out[512];
    ck_assert_int_eq(test_sh(out, sizeof out, "cd '%s' && cmp full.jsonl all.jsonl", dir), 0);
    test_cli_out r;
    test_cli_in(&r, dir, "merge m.jsonl p0.jsonl p1.csv p2.jsonl");
    test_expect_bad(&r, "merge JSONL and CSV parts");
    ck_assert_msg(strstr(r.err, "p1.csv: is CSV but p0.jsonl is JSONL; merge parts of one format"),
                  "%s", r.err);
    test_cli_free(&r);
    test_cli_in(&r, dir, "merge m.jsonl p0.jsonl p2.jsonl --spec spec.json");
    test_expect_bad(&r, "merge JSONL parts with a gap");
    ck_assert_msg(strstr(r.err, "point 1 is in no part (the next one, 2, is in p2.jsonl)"), "%s",
                  r.err);
    test_cli_free(&r);
    /* an interrupted part (its last line cut), and a line that does not open with the point */
    ck_assert_int_eq(test_sh(out, sizeof out,
                             "cd '%s' && head -c -5 p1.jsonl > cut.jsonl && "
                             "sed '2s/^{\"point\":4,/{\"x\":4,/' p1.jsonl > nopoint.jsonl",
                             dir),
                     0);
    test_cli_in(&r, dir, "merge m.jsonl p0.jsonl cut.jsonl p2.jsonl");
    test_expect_bad(&r, "merge an interrupted JSONL part");
    ck_assert_msg(strstr(r.err, "cut.jsonl: row 3 is incomplete"), "%s", r.err);
    test_cli_free(&r);
    test_cli_in(&r, dir, "merge m.jsonl p0.jsonl nopoint.jsonl p2.jsonl");
    test_expect_bad(&r, "merge a JSONL part without the point first");
    ck_assert_msg(strstr(r.err, "nopoint.jsonl: row 2 (line 2): expected a point number first"),
                  "%s", r.err);
    test_cli_free(&r);
    TEST_DIR_PATH(m, dir, "m.jsonl");
    ck_assert(!test_exists(m));
    test_rm_dir(dir);
}
END_TEST

START_TEST(format_errors) {
    test_bad("run: -f: unknown format 'xml' (expected table, json, csv or jsonl)", "run -f xml");
    test_bad("train: -f: unknown format 'JSONL'", "train x.json -f JSONL");
    test_bad("summarize: -f: unknown format 'tsv'", "summarize x.csv -f tsv");
    test_bad("sweep: -f: format 'table' does not apply here (expected csv or jsonl)",
             "sweep x.json -f table");
    test_bad("sweep: -f: format 'json' does not apply here", "sweep x.json -f json");
    test_bad("calibrate: -f: format 'csv' does not apply here (expected table or json)",
             "calibrate x.log -f csv");
}
END_TEST

/* JSON numbers are the doubles themselves: the CSV's digits (the fewest that read back), not
 * cJSON's 15 digits that read back only within DBL_EPSILON (0.30000000000000004 printed as
 * 0.3; run's ideal_us 4.1861120000000005 as 4.186112). */
START_TEST(json_numbers_exact) {
    char *dir = test_tmp_dir();
    TEST_DIR_PATH(csv, dir, "in.csv");
    const char *t = "k,v\na,0.30000000000000004\n";
    test_spit(csv, t, strlen(t));
    ok_to(dir, "s.json", "summarize in.csv --by k --metric v -f json");
    ok_to(dir, "s.jsonl", "summarize in.csv --by k --metric v -f jsonl");
    char out[4096];
    int st = test_sh(out, sizeof out,
                     "cd '%s' && python3 -c 'import json\n"
                     "a = json.load(open(\"s.json\"))[\"groups\"][0]\n"
                     "b = json.loads(open(\"s.jsonl\").readline())\n"
                     "x = 0.1 + 0.2\n"
                     "assert x != 0.3 and a[\"max\"] == x and b[\"min\"] == x, (a, b)\n"
                     "'",
                     dir);
    ck_assert_msg(st == 0, "%s", out);
    /* every number of run's JSON equals the CSV's field, read as a double */
    test_ok_in(dir, "run -b 1MiB -n 4 -f json -o r.json");
    test_ok_in(dir, "run -b 1MiB -n 4 -f csv -o r.csv");
    st = test_sh(out, sizeof out,
                 "cd '%s' && python3 -c 'import csv, json\n"
                 "rows = list(csv.DictReader(open(\"r.csv\", newline=\"\")))\n"
                 "res = json.load(open(\"r.json\"))[\"results\"]\n"
                 "assert len(rows) == len(res) == 8\n"
                 "for r, j in zip(rows, res):\n"
                 "    for k in (\"time_us\", \"ideal_us\", \"bw_util\", \"speedup\", "
                 "\"algbw_GBps\", \"busbw_GBps\"):\n"
                 "        assert float(r[k]) == j[k], (k, r[k], j[k])\n"
                 "    for i, d in enumerate(j[\"per_dim\"]):\n"
                 "        assert float(r[\"dim%%d_busy_us\" %% i]) == d[\"busy_us\"]\n"
                 "'",
                 dir);
    ck_assert_msg(st == 0, "%s", out);
    test_rm_dir(dir);
}
END_TEST

/* --version: themis's version (from version.h, as the Makefile reads it) and the libraries',
 * as pkg-config and the GLPK header (through the preprocessor) give them: Debian's -dev
 * packages hold headers and library of one version, so nothing is marked "built with". */
START_TEST(version_libraries) {
    char out[2048];
    int st = test_sh(
        out, sizeof out,
        "v=$(sed -n 's/^#define TH_VERSION \"\\(.*\\)\"/\\1/p' include/themis/version.h) && "
        "glpk=$(printf '#include <glpk.h>\\nGLP_MAJOR_VERSION.GLP_MINOR_VERSION\\n' | "
        "${THEMIS_CC:-cc} -E -P - | tr -d ' ' | tail -n 1) && "
        "want=\"themis $v\nbuilt with cJSON $(pkg-config --modversion libcjson), "
        "GSL $(pkg-config --modversion gsl), libyaml $(pkg-config --modversion yaml-0.1), "
        "GLPK $glpk, NLopt $(pkg-config --modversion nlopt)\" && "
        "for a in --version -V 'run -V' 'sweep --version' 'train -V' 'summarize -V' "
        "'merge -V' 'import-astra -V'; do got=$(\"$THEMIS_BIN\" $a) && "
        "[ \"$got\" = \"$want\" ] || { echo \"$a: got '$got', want '$want'\"; exit 1; }; done");
    ck_assert_msg(st == 0, "%s", out);
}
END_TEST

/* Completes the words of `line` (the cursor after its last word) with scripts/themis.bash,
 * which reads the values and options from --help. */
static void completes(const char *line, const char *want) {
    char out[4096];
    int st = test_sh(out, sizeof out,
                     "bash -c 'source scripts/themis.bash && COMP_WORDS=(%s) && "
                     "COMP_CWORD=$((${#COMP_WORDS[@]} - 1)) && _themis && "
                     "printf \"%%s\\n\" \"${COMPREPLY[@]}\"'",
                     line);
    ck_assert_msg(st == 0, "%s: %s", line, out);
    ck_assert_msg(!strcmp(out, want), "%s: got '%s', want '%s'", line, out, want);
}

/* The formats and the plot command reach the bash completion through --help. */
START_TEST(completion) {
    completes("\"$THEMIS_BIN\" run -f \"\"", "table\njson\ncsv\njsonl\n");
    completes("\"$THEMIS_BIN\" sweep x.json --format \"\"", "csv\njsonl\n");
    completes("\"$THEMIS_BIN\" summarize x.csv -f js", "json\njsonl\n");
    completes("\"$THEMIS_BIN\" pl", "plot\n");
    completes("\"$THEMIS_BIN\" plot x.csv --lo", "--logx\n--logy\n");
    completes("\"$THEMIS_BIN\" plot x.csv --w", "--where\n");
}
END_TEST

Suite *cli_formats_suite(void) {
    Suite *s = suite_create("cli_formats");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, run_jsonl);
    tcase_add_test(tc, train_jsonl);
    tcase_add_test(tc, summarize_jsonl);
    tcase_add_test(tc, sweep_jsonl);
    tcase_add_test(tc, sweep_jsonl_workloads);
    tcase_add_test(tc, sweep_jsonl_resume);
    tcase_add_test(tc, sweep_jsonl_resume_errors);
    tcase_add_test(tc, merge_jsonl);
    tcase_add_test(tc, format_errors);
    tcase_add_test(tc, version_libraries);
    tcase_add_test(tc, json_numbers_exact);
    tcase_add_test(tc, completion);
    suite_add_tcase(s, tc);
    return s;
}

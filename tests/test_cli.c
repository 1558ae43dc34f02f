/* CLI tests: run the real `themis` binary and check exit status, stdout, stderr and files. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_themis.h"

/* Path of a shipped workload file (models/workloads/NAME). */
static const char *wl_path(const char *name) {
    static char buf[4096];
    const char *dir = getenv("THEMIS_SRCDIR");
    snprintf(buf, sizeof buf, "%s/models/workloads/%s", dir ? dir : ".", name);
    return buf;
}

/* Expects the command succeeded, parses its stdout into c and frees it. */
static void csv_of(test_csv *c, test_cli_out *r) {
    test_expect_ok(r, r->args);
    test_csv_parse(c, r->out);
    test_cli_free(r);
}

/* Runs `run -f csv ARGS` (a format string literal and its arguments; ARGS should not set -f)
 * and parses stdout into c. */
#define cli_csv(c, ...)                                                                            \
    do {                                                                                           \
        test_cli_out r_;                                                                           \
        test_cli(&r_, "run -f csv " __VA_ARGS__);                                                  \
        csv_of(c, &r_);                                                                            \
    } while (0)

/* The result columns of /tmp/formats.md, before the per-dim ones. */
static const char *const CSV_HEAD =
    "system,type,size_bytes,chunks,dims,load_model,policy,intra,time_us,ideal_us,bw_util,"
    "speedup,algbw_GBps,busbw_GBps";

static void expect_header(const char *csv_text, int ndims) {
    char want[4096];
    size_t n = (size_t)snprintf(want, sizeof want, "%s", CSV_HEAD);
    for (int k = 0; k < ndims; k++) {
        n += (size_t)snprintf(want + n, sizeof want - n,
                              ",dim%d_name,dim%d_bytes,dim%d_busy_us,dim%d_bw_util", k, k, k, k);
    }
    snprintf(want + n, sizeof want - n, "\n");
    ck_assert_msg(strncmp(csv_text, want, strlen(want)) == 0, "CSV header:\n%.*s\nwant:\n%s",
                  (int)(strchr(csv_text, '\n') ? strchr(csv_text, '\n') - csv_text + 1 : 0),
                  csv_text, want);
}

static const char *const POLICIES[3] = {"baseline", "themis", "roundrobin"};
static const char *const INTRAS[2] = {"fifo", "scf"};

/* `-p all` rows 6 and 7 are lp + fifo and lp + scf (after baseline, themis and roundrobin):
 * never slower than baseline + fifo in row 0, since lp keeps the fastest of its candidates and
 * the baseline order is one of them. */
static void expect_lp_rows(const test_csv *c) {
    double base = test_csv_d(c, 0, "time_us");
    for (int i = 6; i < 8; i++) {
        ck_assert_str_eq(test_csv_s(c, i, "policy"), "lp");
        ck_assert_str_eq(test_csv_s(c, i, "intra"), INTRAS[i % 2]);
        ck_assert_msg(test_csv_d(c, i, "time_us") <= base, "lp row %d: %s > baseline %.17g", i,
                      test_csv_s(c, i, "time_us"), base);
    }
}

/* ---- version and help ---- */

START_TEST(version) {
    const char *forms[] = {"--version", "-V", "run --version", "run -V"};
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
        test_cli_out r;
        test_cli(&r, "%s", forms[i]);
        test_expect_ok(&r, forms[i]);
        ck_assert_msg(strncmp(r.out, "themis 0.1.0", 12) == 0, "%s printed '%s'", forms[i], r.out);
        test_cli_free(&r);
    }
}
END_TEST

START_TEST(help) {
    const char *forms[] = {"run --help", "run -h", "--help"};
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
        test_cli_out r;
        test_cli(&r, "%s", forms[i]);
        test_expect_ok(&r, forms[i]);
        ck_assert_msg(strstr(r.out, "xample") != NULL, "%s has no example: %s", forms[i], r.out);
        ck_assert_msg(strstr(r.out, "themis run") != NULL, "%s lacks 'themis run'", forms[i]);
        test_cli_free(&r);
    }
    test_cli_out r;
    test_cli(&r, "run --help");
    const char *opts[] = {"--system", "--collective", "--size",   "--chunks", "--policy", "--intra",
                          "--dims",   "--load-model", "--format", "--output", "--trace"};
    for (size_t i = 0; i < sizeof opts / sizeof opts[0]; i++) {
        ck_assert_msg(strstr(r.out, opts[i]) != NULL, "run --help does not mention %s", opts[i]);
    }
    test_cli_free(&r);
}
END_TEST

/* ---- the default comparison ---- */

/* True when some line of text names this pair (and no other policy). */
static int has_pair_line(const char *text, const char *pol, const char *intra) {
    const char *line = text;
    while (*line) {
        const char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        char buf[1024];
        snprintf(buf, sizeof buf, "%.*s", (int)(len < 1023 ? len : 1023), line);
        int others = 0;
        for (int i = 0; i < 3; i++) {
            if (strcmp(POLICIES[i], pol) != 0 && strstr(buf, POLICIES[i])) {
                others = 1;
            }
        }
        if (!others && strstr(buf, pol) && strstr(buf, intra)) {
            return 1;
        }
        if (!nl) {
            break;
        }
        line = nl + 1;
    }
    return 0;
}

START_TEST(noargs_table) {
    test_cli_out r;
    test_cli(&r, "%s", "");
    test_expect_ok(&r, "themis");
    for (int p = 0; p < 3; p++) {
        for (int q = 0; q < 2; q++) {
            ck_assert_msg(has_pair_line(r.out, POLICIES[p], INTRAS[q]),
                          "no table row for %s/%s in:\n%s", POLICIES[p], INTRAS[q], r.out);
        }
    }
    /* `themis` = `themis run` = `themis run -f table`. */
    test_cli_out r2, r3;
    test_cli(&r2, "run");
    test_cli(&r3, "run -f table");
    test_expect_ok(&r2, "run");
    ck_assert_str_eq(r.out, r2.out);
    ck_assert_str_eq(r.out, r3.out);
    test_cli_free(&r);
    test_cli_free(&r2);
    test_cli_free(&r3);
}
END_TEST

START_TEST(default_csv) {
    test_cli_out r;
    test_cli(&r, "run -f csv");
    test_expect_ok(&r, "run -f csv");
    expect_header(r.out, 3);
    test_csv c;
    test_csv_parse(&c, r.out);
    ck_assert_int_eq(c.nrows, 8);
    expect_lp_rows(&c);
    ck_assert_int_eq(c.ncols, 14 + 4 * 3); /* per dim: name, bytes, busy_us, bw_util */
    /* S = 1 GiB = 1073741824, P = 4*8*16 = 512. Ideal: every order moves 2 S (1 - 1/512)
     * = 2143289344 bytes per NPU; sum of B = 250 + 200 + 50 = 500 bytes/ns, so
     * ideal = 2143289344 / 500 = 4286578.688 ns = 4286.578688 us. */
    const double S = 1073741824.0, total = 2143289344.0, ideal_us = 4286.578688;
    const double B[3] = {250, 200, 50};
    double t_ref = test_csv_d(&c, 0, "time_us");
    for (int i = 0; i < 6; i++) {
        ck_assert_str_eq(test_csv_s(&c, i, "system"), "default-3d");
        ck_assert_str_eq(test_csv_s(&c, i, "type"), "allreduce");
        ck_assert_str_eq(test_csv_s(&c, i, "size_bytes"), "1073741824");
        ck_assert_str_eq(test_csv_s(&c, i, "chunks"), "64");
        ck_assert_str_eq(test_csv_s(&c, i, "dims"), "0;1;2");
        ck_assert_str_eq(test_csv_s(&c, i, "load_model"), "alpha_beta");
        ck_assert_str_eq(test_csv_s(&c, i, "policy"), POLICIES[i / 2]);
        ck_assert_str_eq(test_csv_s(&c, i, "intra"), INTRAS[i % 2]);
        double t = test_csv_d(&c, i, "time_us");
        ck_assert_rel(test_csv_d(&c, i, "ideal_us"), ideal_us);
        ck_assert_msg(t >= ideal_us, "row %d: time %.17g < ideal", i, t);
        ck_assert_rel(test_csv_d(&c, i, "bw_util"), ideal_us / t);
        ck_assert_rel(test_csv_d(&c, i, "speedup"), t_ref / t);
        /* algbw = S / time (bytes/ns = GB/s); busbw = algbw * 2 (512-1)/512. */
        ck_assert_rel(test_csv_d(&c, i, "algbw_GBps"), S / (t * 1000.0));
        ck_assert_rel(test_csv_d(&c, i, "busbw_GBps"), S / (t * 1000.0) * 2.0 * 511.0 / 512.0);
        double sum = 0;
        for (int k = 0; k < 3; k++) {
            char name[64];
            snprintf(name, sizeof name, "dim%d_bytes", k);
            double bytes = test_csv_d(&c, i, name);
            sum += bytes;
            snprintf(name, sizeof name, "dim%d_busy_us", k);
            ck_assert_msg(test_csv_d(&c, i, name) <= t * (1 + 1e-12), "row %d dim %d busy > time",
                          i, k);
            snprintf(name, sizeof name, "dim%d_bw_util", k);
            ck_assert_rel(test_csv_d(&c, i, name), bytes / (B[k] * t * 1000.0));
        }
        ck_assert_rel(sum, total);
    }
    ck_assert_str_eq(test_csv_s(&c, 0, "speedup"), "1");
    /* Baseline (rows 0, 1), c = S/64 = 16777216:
     * dim0 ring 4:   bytes 2*S*3/4 = 1610612736; stage 20*3 + c*3/(4*250) = 50391.648 ns,
     *                128 stages = 6450130.944 ns
     * dim1 fc 8:     m = c/4 = 4194304; bytes 2*(S/4)*7/8 = 469762048;
     *                stage 100*1 + 4194304*7/(8*200) = 18450.08 ns, x128 = 2361610.24 ns
     * dim2 switch16: m = c/32 = 524288 (rhd, s(16)=4, L=8); bytes 2*(S/32)*15/16 = 62914560;
     *                stage 1000*8 + 524288*15/(16*50) = 17830.4 ns, x128 = 2282291.2 ns */
    for (int i = 0; i < 2; i++) {
        ck_assert_rel(test_csv_d(&c, i, "dim0_bytes"), 1610612736.0);
        ck_assert_rel(test_csv_d(&c, i, "dim1_bytes"), 469762048.0);
        ck_assert_rel(test_csv_d(&c, i, "dim2_bytes"), 62914560.0);
        ck_assert_rel(test_csv_d(&c, i, "dim0_busy_us"), 6450.130944);
        ck_assert_rel(test_csv_d(&c, i, "dim1_busy_us"), 2361.61024);
        ck_assert_rel(test_csv_d(&c, i, "dim2_busy_us"), 2282.2912);
        ck_assert(test_csv_d(&c, i, "time_us") >= 6450.130944);
    }
    test_csv_free(&c);
    test_cli_free(&r);
}
END_TEST

START_TEST(pair_selection) {
    test_csv c;
    cli_csv(&c, "-p baseline -q fifo");
    ck_assert_int_eq(c.nrows, 1);
    ck_assert_str_eq(test_csv_s(&c, 0, "policy"), "baseline");
    ck_assert_str_eq(test_csv_s(&c, 0, "intra"), "fifo");
    ck_assert_str_eq(test_csv_s(&c, 0, "speedup"), "1");
    double t_ref = test_csv_d(&c, 0, "time_us");
    test_csv_free(&c);

    cli_csv(&c, "-p themis -q scf");
    ck_assert_int_eq(c.nrows, 1);
    ck_assert_str_eq(test_csv_s(&c, 0, "policy"), "themis");
    ck_assert_str_eq(test_csv_s(&c, 0, "intra"), "scf");
    /* The speedup is still measured against baseline+fifo, which is not printed. */
    ck_assert_rel(test_csv_d(&c, 0, "speedup"), t_ref / test_csv_d(&c, 0, "time_us"));
    test_csv_free(&c);

    cli_csv(&c, "--policy all --intra fifo");
    ck_assert_int_eq(c.nrows, 4);
    ck_assert_str_eq(test_csv_s(&c, 3, "policy"), "lp");
    for (int i = 0; i < 3; i++) {
        ck_assert_str_eq(test_csv_s(&c, i, "policy"), POLICIES[i]);
        ck_assert_str_eq(test_csv_s(&c, i, "intra"), "fifo");
    }
    test_csv_free(&c);

    cli_csv(&c, "-p roundrobin -q all");
    ck_assert_int_eq(c.nrows, 2);
    ck_assert_str_eq(test_csv_s(&c, 0, "intra"), "fifo");
    ck_assert_str_eq(test_csv_s(&c, 1, "intra"), "scf");
    ck_assert_str_eq(test_csv_s(&c, 1, "policy"), "roundrobin");
    test_csv_free(&c);

    cli_csv(&c, "-p themis --load-model bandwidth");
    ck_assert_int_eq(c.nrows, 2);
    ck_assert_str_eq(test_csv_s(&c, 0, "load_model"), "bandwidth");
    test_csv_free(&c);
}
END_TEST

START_TEST(json_format) {
    test_cli_out r;
    test_cli(&r, "run -f json");
    test_expect_ok(&r, "run -f json");
    cJSON *root = cJSON_Parse(r.out);
    ck_assert_msg(root != NULL, "JSON does not parse:\n%s", r.out);
    cJSON *sys = cJSON_GetObjectItemCaseSensitive(root, "system");
    ck_assert_ptr_nonnull(sys);
    ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(sys, "name")->valuestring, "default-3d");
    ck_assert_rel(cJSON_GetObjectItemCaseSensitive(sys, "npus")->valuedouble, 512.0);
    ck_assert_ptr_null(cJSON_GetObjectItemCaseSensitive(sys, "reduce_GBps"));
    cJSON *sdims = cJSON_GetObjectItemCaseSensitive(sys, "dims");
    ck_assert_int_eq(cJSON_GetArraySize(sdims), 3);
    const char *topo[3] = {"ring", "fc", "switch"}, *alg[3] = {"ring", "direct", "rhd"};
    const char *dname[3] = {"package", "node", "pod"};
    const double npus[3] = {4, 8, 16}, bw[3] = {250, 200, 50}, lat[3] = {20, 100, 1000};
    for (int k = 0; k < 3; k++) {
        cJSON *d = cJSON_GetArrayItem(sdims, k);
        ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(d, "name")->valuestring, dname[k]);
        ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(d, "topology")->valuestring, topo[k]);
        ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(d, "algorithm")->valuestring, alg[k]);
        ck_assert_rel(cJSON_GetObjectItemCaseSensitive(d, "npus")->valuedouble, npus[k]);
        ck_assert_rel(cJSON_GetObjectItemCaseSensitive(d, "bw_GBps")->valuedouble, bw[k]);
        ck_assert_rel(cJSON_GetObjectItemCaseSensitive(d, "latency_ns")->valuedouble, lat[k]);
        ck_assert_rel(cJSON_GetObjectItemCaseSensitive(d, "efficiency")->valuedouble, 1.0);
    }
    cJSON *coll = cJSON_GetObjectItemCaseSensitive(root, "collective");
    ck_assert_ptr_nonnull(coll);
    ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(coll, "type")->valuestring, "allreduce");
    ck_assert_rel(cJSON_GetObjectItemCaseSensitive(coll, "size_bytes")->valuedouble, 1073741824.0);
    ck_assert_rel(cJSON_GetObjectItemCaseSensitive(coll, "chunks")->valuedouble, 64.0);
    cJSON *cdims = cJSON_GetObjectItemCaseSensitive(coll, "dims");
    ck_assert_int_eq(cJSON_GetArraySize(cdims), 3);
    for (int k = 0; k < 3; k++) {
        ck_assert_rel(cJSON_GetArrayItem(cdims, k)->valuedouble, (double)k);
    }
    ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(root, "load_model")->valuestring,
                     "alpha_beta");
    cJSON *results = cJSON_GetObjectItemCaseSensitive(root, "results");
    ck_assert_int_eq(cJSON_GetArraySize(results), 8);

    /* The same numbers as the CSV. */
    test_csv c;
    cli_csv(&c, "%s", "");
    const char *keys[] = {"time_us", "ideal_us", "bw_util", "speedup", "algbw_GBps", "busbw_GBps"};
    for (int i = 0; i < 6; i++) {
        cJSON *res = cJSON_GetArrayItem(results, i);
        ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(res, "policy")->valuestring,
                         POLICIES[i / 2]);
        ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(res, "intra")->valuestring,
                         INTRAS[i % 2]);
        for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
            cJSON *v = cJSON_GetObjectItemCaseSensitive(res, keys[k]);
            ck_assert_msg(cJSON_IsNumber(v), "results[%d].%s missing", i, keys[k]);
            ck_assert_rel(v->valuedouble, test_csv_d(&c, i, keys[k]));
        }
        cJSON *dims = cJSON_GetObjectItemCaseSensitive(res, "per_dim");
        ck_assert_int_eq(cJSON_GetArraySize(dims), 3);
        for (int k = 0; k < 3; k++) {
            cJSON *d = cJSON_GetArrayItem(dims, k);
            char name[64];
            ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(d, "name")->valuestring, dname[k]);
            snprintf(name, sizeof name, "dim%d_bytes", k);
            ck_assert_rel(cJSON_GetObjectItemCaseSensitive(d, "bytes")->valuedouble,
                          test_csv_d(&c, i, name));
            snprintf(name, sizeof name, "dim%d_busy_us", k);
            ck_assert_rel(cJSON_GetObjectItemCaseSensitive(d, "busy_us")->valuedouble,
                          test_csv_d(&c, i, name));
            snprintf(name, sizeof name, "dim%d_bw_util", k);
            ck_assert_rel(cJSON_GetObjectItemCaseSensitive(d, "bw_util")->valuedouble,
                          test_csv_d(&c, i, name));
        }
    }
    test_csv_free(&c);
    cJSON_Delete(root);
    test_cli_free(&r);

    /* reduce_GBps appears when the system sets it; --dims shows in collective.dims. */
    test_cli(&r, "run -f json -s '%s' -b 1e6 -n 1", test_dpath("cli_eff.json"));
    test_expect_ok(&r, "json cli_eff");
    root = cJSON_Parse(r.out);
    ck_assert_ptr_nonnull(root);
    sys = cJSON_GetObjectItemCaseSensitive(root, "system");
    ck_assert_rel(cJSON_GetObjectItemCaseSensitive(sys, "reduce_GBps")->valuedouble, 200.0);
    cJSON_Delete(root);
    test_cli_free(&r);
    test_cli(&r, "run -f json -s '%s' --dims 0,2", test_dpath("cli_3d.json"));
    test_expect_ok(&r, "json --dims");
    root = cJSON_Parse(r.out);
    ck_assert_ptr_nonnull(root);
    cdims = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(root, "collective"),
                                             "dims");
    ck_assert_int_eq(cJSON_GetArraySize(cdims), 2);
    ck_assert_rel(cJSON_GetArrayItem(cdims, 0)->valuedouble, 0.0);
    ck_assert_rel(cJSON_GetArrayItem(cdims, 1)->valuedouble, 2.0);
    results = cJSON_GetObjectItemCaseSensitive(root, "results");
    /* a row: the involved dims, and every dim's figures */
    ck_assert_int_eq(cJSON_GetArraySize(
                         cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(results, 0), "dims")),
                     2);
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(
                         cJSON_GetArrayItem(results, 0), "per_dim")),
                     3);
    cJSON_Delete(root);
    test_cli_free(&r);
}
END_TEST

/* ---- output files ---- */

START_TEST(output_file) {
    test_cli_out ref, r;
    test_cli(&ref, "run -f csv -n 8");
    test_expect_ok(&ref, "csv to stdout");
    char *path = test_tmp_file();
    test_cli(&r, "run -f csv -n 8 -o '%s' --force", path);
    test_expect_ok(&r, "-o FILE");
    ck_assert_msg(r.out_len == 0, "-o FILE printed on stdout: %s", r.out);
    char *got = test_slurp(path, NULL);
    ck_assert_ptr_nonnull(got);
    ck_assert_str_eq(got, ref.out);
    free(got);
    test_cli_free(&r);
    unlink(path);
    test_cli(&r, "run -f json --output '%s'", path);
    test_expect_ok(&r, "--output FILE");
    ck_assert_int_eq(r.out_len, 0);
    got = test_slurp(path, NULL);
    cJSON *root = cJSON_Parse(got);
    ck_assert_ptr_nonnull(root);
    cJSON_Delete(root);
    free(got);
    test_cli_free(&r);
    unlink(path);
    free(path);
    /* "-" is stdout. */
    test_cli(&r, "run -f csv -n 8 -o -");
    test_expect_ok(&r, "-o -");
    ck_assert_str_eq(r.out, ref.out);
    test_cli_free(&r);
    test_cli_free(&ref);
}
END_TEST

static const char *const TRACE_HEAD =
    "policy,intra,chunk,stage,op,dim,bytes,ready_us,start_us,end_us\n";

START_TEST(trace_one_chunk) {
    char *path = test_tmp_file();
    test_cli_out r;
    test_cli(&r, "run -s '%s' -b 1e6 -n 1 -p baseline -q fifo -f csv --force --trace '%s'",
             test_dpath("cli_3d.json"), path);
    test_expect_ok(&r, "--trace");
    test_csv res;
    test_csv_parse(&res, r.out);
    ck_assert_int_eq(res.nrows, 1);
    char *text = test_slurp(path, NULL);
    ck_assert_ptr_nonnull(text);
    ck_assert_msg(strncmp(text, TRACE_HEAD, strlen(TRACE_HEAD)) == 0, "trace header: %s", text);
    test_csv t;
    test_csv_parse(&t, text);
    ck_assert_int_eq(t.nrows, 6);
    /* cli_3d: ring 4 @100 GB/s 10 ns; fc 2 @50 100 ns (direct, L=1); switch 8 @25 1000 ns
     * (rhd, s(8)=3, L=6). c = 1e6, baseline RS order 0,1,2 then AG 2,1,0:
     *   RS dim0 m=1e6:    10*3 + 1e6*3/(4*100)        = 7530  [0, 7530]
     *   RS dim1 m=250000: 100 + 250000*1/(2*50)       = 2600  [7530, 10130]
     *   RS dim2 m=125000: 1000*6 + 125000*7/(8*25)    = 10375 [10130, 20505]
     *   AG dim2, dim1, dim0 mirror:                   [20505, 30880] [30880, 33480]
     *                                                 [33480, 41010] */
    const char *op[6] = {"RS", "RS", "RS", "AG", "AG", "AG"};
    const char *dim[6] = {"0", "1", "2", "2", "1", "0"};
    const double m[6] = {1e6, 250000, 125000, 125000, 250000, 1e6};
    const double ends[6] = {7530, 10130, 20505, 30880, 33480, 41010};
    for (int i = 0; i < 6; i++) {
        double start = i == 0 ? 0 : ends[i - 1];
        ck_assert_str_eq(test_csv_s(&t, i, "policy"), "baseline");
        ck_assert_str_eq(test_csv_s(&t, i, "intra"), "fifo");
        ck_assert_str_eq(test_csv_s(&t, i, "chunk"), "0");
        ck_assert_int_eq((int)test_csv_d(&t, i, "stage"), i);
        ck_assert_str_eq(test_csv_s(&t, i, "op"), op[i]);
        ck_assert_str_eq(test_csv_s(&t, i, "dim"), dim[i]);
        /* SPEC §7: the trace carries m, the stage's full-vector size (docs/MODEL.md). */
        ck_assert_rel(test_csv_d(&t, i, "bytes"), m[i]);
        ck_assert_rel(test_csv_d(&t, i, "ready_us"), start / 1000.0);
        ck_assert_rel(test_csv_d(&t, i, "start_us"), start / 1000.0);
        ck_assert_rel(test_csv_d(&t, i, "end_us"), ends[i] / 1000.0);
    }
    ck_assert_rel(test_csv_d(&res, 0, "time_us"), 41.01);
    test_csv_free(&t);
    test_csv_free(&res);
    free(text);
    test_cli_free(&r);
    unlink(path);
    free(path);
}
END_TEST

START_TEST(trace_all_pairs) {
    char *path = test_tmp_file();
    test_cli_out r;
    test_cli(&r, "run -n 4 -f csv --force --trace '%s'", path);
    test_expect_ok(&r, "--trace all pairs");
    test_csv res;
    test_csv_parse(&res, r.out);
    char *text = test_slurp(path, NULL);
    test_csv t;
    test_csv_parse(&t, text);
    /* 8 pairs x 4 chunks x 6 stages (3 RS + 3 AG) = 192 rows, pair by pair; the first 6 pairs
     * (baseline, themis, roundrobin) are checked here, lp's plan is that of the bound's tests. */
    ck_assert_int_eq(t.nrows, 192);
    for (int pair = 0; pair < 6; pair++) {
        double last_start = 0, last_end = 0;
        int rs = 0, ag = 0;
        for (int i = pair * 24; i < pair * 24 + 24; i++) {
            ck_assert_str_eq(test_csv_s(&t, i, "policy"), POLICIES[pair / 2]);
            ck_assert_str_eq(test_csv_s(&t, i, "intra"), INTRAS[pair % 2]);
            double ready = test_csv_d(&t, i, "ready_us"), start = test_csv_d(&t, i, "start_us");
            double end = test_csv_d(&t, i, "end_us");
            ck_assert(ready <= start && start < end);
            ck_assert_msg(start >= last_start, "pair %d row %d: rows not in start order", pair, i);
            last_start = start;
            last_end = end > last_end ? end : last_end;
            rs += strcmp(test_csv_s(&t, i, "op"), "RS") == 0;
            ag += strcmp(test_csv_s(&t, i, "op"), "AG") == 0;
        }
        ck_assert_int_eq(rs, 12);
        ck_assert_int_eq(ag, 12);
        ck_assert_rel(last_end, test_csv_d(&res, pair, "time_us"));
    }
    test_csv_free(&t);
    test_csv_free(&res);
    free(text);
    test_cli_free(&r);
    unlink(path);
    free(path);
}
END_TEST

/* ---- hand-derived numbers through the CLI ---- */

START_TEST(ring4_allreduce) {
    test_csv c;
    cli_csv(&c, "-s '%s' -b 1e6 -n 1", test_dpath("cli_ring4.json"));
    expect_header(c.raw, 1);
    ck_assert_int_eq(c.nrows, 8);
    expect_lp_rows(&c);
    /* ring 4, B = 100 bytes/ns, alpha = 10: RS of m = 1e6 takes 10*3 + 1e6*3/(4*100) = 7530,
     * AG the same: 15060 ns = 15.06 us under every policy (one chunk, one dim).
     * bytes = 2 * 1e6 * 3/4 = 1.5e6; ideal = 1.5e6 / 100 = 15000 ns = 15 us. */
    for (int i = 0; i < 6; i++) {
        ck_assert_str_eq(test_csv_s(&c, i, "system"), "cli-ring4");
        ck_assert_str_eq(test_csv_s(&c, i, "size_bytes"), "1000000");
        ck_assert_str_eq(test_csv_s(&c, i, "chunks"), "1");
        ck_assert_str_eq(test_csv_s(&c, i, "dims"), "0");
        ck_assert_rel(test_csv_d(&c, i, "time_us"), 15.06);
        ck_assert_rel(test_csv_d(&c, i, "ideal_us"), 15.0);
        ck_assert_rel(test_csv_d(&c, i, "bw_util"), 15.0 / 15.06);
        ck_assert_rel(test_csv_d(&c, i, "speedup"), 1.0);
        ck_assert_rel(test_csv_d(&c, i, "algbw_GBps"), 1e6 / 15060.0);
        ck_assert_rel(test_csv_d(&c, i, "busbw_GBps"), 1e6 / 15060.0 * 2.0 * 3.0 / 4.0);
        ck_assert_rel(test_csv_d(&c, i, "dim0_bytes"), 1.5e6);
        ck_assert_rel(test_csv_d(&c, i, "dim0_busy_us"), 15.06);
        ck_assert_rel(test_csv_d(&c, i, "dim0_bw_util"), 1.5e6 / (100.0 * 15060.0));
    }
    test_csv_free(&c);
    /* The same size written with a unit, and the system read from stdin. */
    cli_csv(&c, "-s '%s' -b 1MB -n 1 -p baseline -q fifo", test_dpath("cli_ring4.json"));
    ck_assert_rel(test_csv_d(&c, 0, "time_us"), 15.06);
    test_csv_free(&c);
    cli_csv(&c, "-s - -b 1e6 -n 1 -p themis -q scf < '%s'", test_dpath("cli_ring4.json"));
    ck_assert_int_eq(c.nrows, 1);
    ck_assert_rel(test_csv_d(&c, 0, "time_us"), 15.06);
    test_csv_free(&c);
}
END_TEST

/* --ideal-lat: the ideal plus the collective's latency floor (docs/WORKLOADS.md). The default
 * system (SPEC §2): RS pass 20 * 3 (ring 4, ring: p - 1 hops) + 100 * 1 (fc 8, direct) + 1000
 * * 8 (switch 16, rhd: 2 log2 16) = 8160 ns, an All-Reduce twice: 16320 ns; ideal 4286.578688
 * us (the README's comparison) + 16.32 = 4302.898688 us; baseline + FIFO 6450.130944 us.
 * On cli_ring4.json, 1 chunk of 1e6: ideal 15 us + 2 * 10 * 3 ns = 15.06 us, the time itself. */
START_TEST(ideal_lat_column) {
    test_csv c;
    cli_csv(&c, "-p baseline -q fifo --ideal-lat");
    ck_assert_rel(test_csv_d(&c, 0, "ideal_us"), 4286.578688);
    ck_assert_rel(test_csv_d(&c, 0, "ideal_lat_us"), 4302.898688);
    ck_assert_rel(test_csv_d(&c, 0, "vs_ideal_lat"), 4302.898688 / 6450.130944);
    test_csv_free(&c);
    cli_csv(&c, "-s '%s' -b 1e6 -n 1 -p themis -q scf --ideal-lat", test_dpath("cli_ring4.json"));
    ck_assert_rel(test_csv_d(&c, 0, "ideal_lat_us"), 15.06);
    ck_assert_rel(test_csv_d(&c, 0, "vs_ideal_lat"), 1.0);
    test_csv_free(&c);
    test_cli_out r;
    test_cli(&r, "run -p baseline -q fifo --ideal-lat");
    test_expect_ok(&r, "table");
    ck_assert_msg(strstr(r.out, "ideal with latency floors (plus one chunk's link latencies): "
                                "4302.898688 us") &&
                      strstr(r.out, "vs_ideal_lat"),
                  "%s", r.out);
    test_cli_free(&r);
    test_cli(&r, "run -p baseline -q fifo --ideal-lat -f json");
    test_expect_ok(&r, "json");
    ck_assert_msg(strstr(r.out, "\"latency_floor_us\":\t16.32"), "%s", r.out);
    test_cli_free(&r);
    test_bad("astra-sim preset", "run -s '%s' --ideal-lat", test_dpath("astra_2d.json"));
    /* without the option, the columns are absent */
    cli_csv(&c, "-p baseline -q fifo");
    ck_assert_ptr_null(strstr(c.raw, "ideal_lat"));
    test_csv_free(&c);
}
END_TEST

START_TEST(ring4_chunks) {
    test_csv c;
    /* One dim, FIFO: the server is never idle, so time = 2 C stage(c).
     * C = 4: c = 250000, stage = 30 + 250000*3/400 = 1905 ns; 8 stages = 15240 ns. */
    cli_csv(&c, "-s '%s' -b 1e6 -n 4 -p baseline -q fifo", test_dpath("cli_ring4.json"));
    ck_assert_rel(test_csv_d(&c, 0, "time_us"), 15.24);
    ck_assert_rel(test_csv_d(&c, 0, "dim0_busy_us"), 15.24);
    ck_assert_rel(test_csv_d(&c, 0, "dim0_bytes"), 1.5e6);
    test_csv_free(&c);
    /* C = 1,000,000 (the maximum): c = 1 byte, stage = 30 + 3/400 = 30.0075 ns;
     * 2e6 stages = 60015000 ns = 60015 us. */
    cli_csv(&c, "-s '%s' -b 1e6 -n 1000000 -p baseline -q fifo", test_dpath("cli_ring4.json"));
    ck_assert_str_eq(test_csv_s(&c, 0, "chunks"), "1000000");
    ck_assert_rel(test_csv_d(&c, 0, "time_us"), 60015.0);
    test_csv_free(&c);
}
END_TEST

START_TEST(efficiency_reduce) {
    test_csv c;
    /* cli_eff: ring 4, B = 100 * 0.5 = 50 bytes/ns, alpha 10, reduce 200 bytes/ns.
     * RS 1e6: 10*3 + 1e6*3/(4*50) + 1e6*(3/4)/200 = 30 + 15000 + 3750 = 18780 ns
     * AG 1e6: 30 + 15000 = 15030 ns; total 33810 ns = 33.81 us.
     * ideal = 1.5e6 / 50 = 30000 ns = 30 us. */
    cli_csv(&c, "-s '%s' -b 1e6 -n 1", test_dpath("cli_eff.json"));
    ck_assert_int_eq(c.nrows, 8);
    expect_lp_rows(&c);
    for (int i = 0; i < 6; i++) {
        ck_assert_rel(test_csv_d(&c, i, "time_us"), 33.81);
        ck_assert_rel(test_csv_d(&c, i, "ideal_us"), 30.0);
        ck_assert_rel(test_csv_d(&c, i, "dim0_bw_util"), 1.5e6 / (50.0 * 33810.0));
    }
    test_csv_free(&c);
}
END_TEST

START_TEST(dims_subset) {
    test_csv c;
    cli_csv(&c, "-s '%s' -b 1e6 -n 1 --dims 0,2", test_dpath("cli_3d.json"));
    expect_header(c.raw, 3);
    ck_assert_int_eq(c.nrows, 8);
    expect_lp_rows(&c);
    /* Active dims 0 and 2 (P_a = 4*8 = 32), c = 1e6:
     *   RS dim0 m=1e6:    10*3 + 1e6*3/(4*100)     = 7530
     *   RS dim2 m=250000: 1000*6 + 250000*7/(8*25) = 6000 + 8750 = 14750
     *   AG mirrors: total 2*(7530 + 14750) = 44560 ns = 44.56 us.
     * bytes: dim0 2*1e6*3/4 = 1.5e6; dim2 2*250000*7/8 = 437500; dim1 0.
     * ideal = 1937500 / (100 + 25) = 15500 ns = 15.5 us. */
    for (int i = 0; i < 6; i++) {
        ck_assert_str_eq(test_csv_s(&c, i, "dims"), "0;2");
        ck_assert_rel(test_csv_d(&c, i, "time_us"), 44.56);
        ck_assert_rel(test_csv_d(&c, i, "ideal_us"), 15.5);
        ck_assert_rel(test_csv_d(&c, i, "bw_util"), 15.5 / 44.56);
        ck_assert_rel(test_csv_d(&c, i, "busbw_GBps"), 1e6 / 44560.0 * 2.0 * 31.0 / 32.0);
        ck_assert_rel(test_csv_d(&c, i, "dim0_bytes"), 1.5e6);
        ck_assert_rel(test_csv_d(&c, i, "dim1_bytes"), 0.0);
        ck_assert_rel(test_csv_d(&c, i, "dim2_bytes"), 437500.0);
        ck_assert_rel(test_csv_d(&c, i, "dim0_busy_us"), 15.06);
        ck_assert_rel(test_csv_d(&c, i, "dim1_busy_us"), 0.0);
        ck_assert_rel(test_csv_d(&c, i, "dim2_busy_us"), 29.5);
        ck_assert_rel(test_csv_d(&c, i, "dim1_bw_util"), 0.0);
        ck_assert_rel(test_csv_d(&c, i, "dim2_bw_util"), 437500.0 / (25.0 * 44560.0));
    }
    test_csv_free(&c);
    /* A single dim: --dims 1 on cli_3d, fc 2 direct: 100 + 1e6/(2*50) = 10100 per stage. */
    cli_csv(&c, "-s '%s' -b 1e6 -n 1 --dims 1 -p baseline -q fifo", test_dpath("cli_3d.json"));
    ck_assert_str_eq(test_csv_s(&c, 0, "dims"), "1");
    ck_assert_rel(test_csv_d(&c, 0, "time_us"), 20.2);
    test_csv_free(&c);
}
END_TEST

START_TEST(rs_ag_a2a) {
    test_csv c;
    /* reducescatter of 1e6 over all of cli_3d (P_a = 64), baseline order 0,1,2:
     *   dim0 m=1e6 7530 + dim1 m=250000 2600 + dim2 m=125000 10375 = 20505 ns.
     * bytes 750000 + 125000 + 109375 = 984375 = 1e6 (1 - 1/64); ideal 984375/175 = 5625 ns. */
    cli_csv(&c, "-s '%s' -c reducescatter -b 1e6 -n 1", test_dpath("cli_3d.json"));
    ck_assert_int_eq(c.nrows, 8);
    expect_lp_rows(&c);
    for (int i = 0; i < 6; i++) {
        ck_assert_str_eq(test_csv_s(&c, i, "type"), "reducescatter");
        ck_assert_rel(test_csv_d(&c, i, "time_us"), 20.505);
        ck_assert_rel(test_csv_d(&c, i, "ideal_us"), 5.625);
        ck_assert_rel(test_csv_d(&c, i, "busbw_GBps"), 1e6 / 20505.0 * 63.0 / 64.0);
        ck_assert_rel(test_csv_d(&c, i, "dim0_bytes"), 750000.0);
        ck_assert_rel(test_csv_d(&c, i, "dim1_bytes"), 125000.0);
        ck_assert_rel(test_csv_d(&c, i, "dim2_bytes"), 109375.0);
    }
    test_csv_free(&c);
    /* allgather of output 1e6, baseline order 2,1,0: dim2 m = 1e6/(4*2) = 125000 (10375),
     * dim1 m = 1e6/4 = 250000 (2600), dim0 m = 1e6 (7530): 20505 ns, same bytes. */
    cli_csv(&c, "-s '%s' --collective allgather -b 1e6 -n 1", test_dpath("cli_3d.json"));
    ck_assert_int_eq(c.nrows, 8);
    expect_lp_rows(&c);
    for (int i = 0; i < 6; i++) {
        ck_assert_str_eq(test_csv_s(&c, i, "type"), "allgather");
        ck_assert_rel(test_csv_d(&c, i, "time_us"), 20.505);
        ck_assert_rel(test_csv_d(&c, i, "dim0_bytes"), 750000.0);
        ck_assert_rel(test_csv_d(&c, i, "dim1_bytes"), 125000.0);
        ck_assert_rel(test_csv_d(&c, i, "dim2_bytes"), 109375.0);
    }
    test_csv_free(&c);
    /* reducescatter and allgather with --dims 0,2: 7530 + 14750 = 22280 ns. */
    cli_csv(&c, "-s '%s' -c reducescatter -b 1e6 -n 1 --dims 0,2 -p baseline -q fifo",
            test_dpath("cli_3d.json"));
    ck_assert_rel(test_csv_d(&c, 0, "time_us"), 22.28);
    test_csv_free(&c);
    cli_csv(&c, "-s '%s' -c allgather -b 1e6 -n 1 --dims 2,0 -p themis -q scf",
            test_dpath("cli_3d.json"));
    ck_assert_str_eq(test_csv_s(&c, 0, "dims"), "0;2");
    ck_assert_rel(test_csv_d(&c, 0, "time_us"), 22.28);
    test_csv_free(&c);
    /* alltoall, m = c on every dim: dim0 30 + 1e6*3/400 = 7530; dim1 100 + 1e6/100 = 10100;
     * dim2 6000 + 1e6*7/200 = 41000; one chunk: 58630 ns. */
    cli_csv(&c, "-s '%s' -c alltoall -b 1e6 -n 1 -p baseline -q fifo", test_dpath("cli_3d.json"));
    ck_assert_str_eq(test_csv_s(&c, 0, "type"), "alltoall");
    ck_assert_rel(test_csv_d(&c, 0, "time_us"), 58.63);
    test_csv_free(&c);
}
END_TEST

START_TEST(shipped_systems) {
    const char *files[] = {"default-3d.json",        "torus-2d-homogeneous.json",
                           "homogeneous-4d.json",    "ring-switch-2d.json",
                           "fc-ring-switch-3d.json", "hetero-4d.json"};
    const char *dir = getenv("THEMIS_SRCDIR");
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        test_csv c;
        cli_csv(&c, "-s '%s/models/systems/%s' -n 16", dir ? dir : ".", files[i]);
        ck_assert_int_eq(c.nrows, 8);
        test_csv_free(&c);
    }
    /* models/systems/default-3d.json is the built-in default: identical output. */
    test_cli_out a, b;
    test_cli(&a, "run -f csv -n 16");
    test_cli(&b, "run -f csv -n 16 -s '%s/models/systems/default-3d.json'", dir ? dir : ".");
    test_expect_ok(&b, "default-3d.json");
    ck_assert_str_eq(a.out, b.out);
    test_cli_free(&a);
    test_cli_free(&b);
}
END_TEST

/* ---- determinism ---- */

START_TEST(deterministic) {
    const char *forms[] = {"", "run -f csv", "run -f json -p themis -n 100",
                           "run -f csv -s 'SYS' -n 37 -b 3MiB"};
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
        char args[4096];
        if (strstr(forms[i], "SYS")) {
            snprintf(args, sizeof args, "run -f csv -s '%s' -n 37 -b 3MiB",
                     test_dpath("cli_3d.json"));
        } else {
            snprintf(args, sizeof args, "%s", forms[i]);
        }
        test_cli_out a, b;
        test_cli(&a, "%s", args);
        test_cli(&b, "%s", args);
        test_expect_ok(&a, args);
        ck_assert_int_eq(a.out_len, b.out_len);
        ck_assert_msg(memcmp(a.out, b.out, a.out_len) == 0, "'%s' differs between runs", args);
        test_cli_free(&a);
        test_cli_free(&b);
    }
    char *p1 = test_tmp_file(), *p2 = test_tmp_file();
    test_cli_out a, b;
    test_cli(&a, "run -n 16 --force --trace '%s'", p1);
    test_cli(&b, "run -n 16 --force --trace '%s'", p2);
    char *t1 = test_slurp(p1, NULL), *t2 = test_slurp(p2, NULL);
    ck_assert_str_eq(t1, t2);
    free(t1);
    free(t2);
    test_cli_free(&a);
    test_cli_free(&b);
    unlink(p1);
    unlink(p2);
    free(p1);
    free(p2);
}
END_TEST

/* ---- bad input: exit 2, one line on stderr, nothing on stdout ---- */

START_TEST(bad_system_files) {
    test_bad("/nonexistent/themis-missing.json", "run -s /nonexistent/themis-missing.json");
    test_bad("cli_broken.json", "run -s '%s'", test_dpath("cli_broken.json"));
    test_bad("cli_badtopo.json", "run -s '%s'", test_dpath("cli_badtopo.json"));
    test_bad("topology", "run -s '%s'", test_dpath("cli_badtopo.json"));
    test_bad("cli_ringdirect.json", "run -s '%s'", test_dpath("cli_ringdirect.json"));
    test_bad("dims[1].bw_GBps", "run -s '%s'", test_dpath("cli_badbw.json"));
    test_bad("bw_GBPS", "run -s '%s'", test_dpath("cli_typo.json"));
    test_bad(NULL, "run -s - < '%s'", test_dpath("cli_broken.json"));
    test_bad(NULL, "run -s - < /dev/null");
}
END_TEST

/* Stage or compute times that overflow to infinity are bad input (exit 2, naming the file and
 * the JSON path), not an endless loop: `timeout` turns a hang into exit 124. */
START_TEST(no_hang) {
    static const char *const cases[][3] = {
        /* {command, the file, the path} */
        {"run -n 4 -s tests/data/sys_reduce_tiny.json", "sys_reduce_tiny.json", "reduce_GBps"},
        {"run -n 4 -s tests/data/sys_eff_tiny.json", "sys_eff_tiny.json", "dims[0].efficiency"},
        {"train tests/data/wl_tflops_tiny.json -s tests/data/cli_ring4.json", "wl_tflops_tiny.json",
         "layers[0].forward.flops"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char out[4096];
        int st = test_sh(out, sizeof out, "timeout -k 5 60 \"$THEMIS_BIN\" %s", cases[i][0]);
        ck_assert_msg(st == 2, "%s: exit %d: %s", cases[i][0], st, out);
        ck_assert_msg(strstr(out, cases[i][1]) && strstr(out, cases[i][2]), "%s: %s", cases[i][0],
                      out);
    }
}
END_TEST

/* Every JSON input takes the strict pass: a workload, a sweep spec and an ASTRA-sim system
 * JSON with a number RFC 8259 does not allow, each refused naming the file and the path. */
START_TEST(strict_json_inputs) {
    char *dir = test_tmp_dir();
    TEST_DIR_PATH(wl, dir, "wl.json");
    TEST_DIR_PATH(spec, dir, "spec.json");
    TEST_DIR_PATH(asys, dir, "asys.json");
    static const char wl_text[] =
        "{\"parallelism\": \"data\", \"layers\": [{\"forward\": {\"ns\": 1.}, "
        "\"input_grad\": {\"ns\": 1}, \"weight_grad\": {\"ns\": 1}}]}";
    test_spit(wl, wl_text, strlen(wl_text));
    test_bad("layers[0].forward.ns", "train '%s' -s '%s'", wl, test_dpath("cli_ring4.json"));
    test_bad("wl.json:1:", "train '%s' -s '%s'", wl, test_dpath("cli_ring4.json"));
    static const char spec_text[] = "{\"axes\": {\"chunks\": [1, 02]}}";
    test_spit(spec, spec_text, strlen(spec_text));
    test_bad("axes.chunks[1]", "sweep '%s' --dry-run", spec);
    test_bad("spec.json:1:", "sweep '%s' --dry-run", spec);
    size_t len;
    char *a = test_slurp(test_dpath("astra_sys_3d.json"), &len);
    char *at = strstr(a, "\"endpoint-delay\": 10");
    ck_assert_ptr_nonnull(at);
    memcpy(at + strlen("\"endpoint-delay\": "), "01", 2);
    test_spit(asys, a, len);
    free(a);
    test_bad("endpoint-delay", "import-astra '%s' '%s'", test_dpath("astra_net_3d.yml"), asys);
    test_bad("asys.json:", "import-astra '%s' '%s'", test_dpath("astra_net_3d.yml"), asys);
    test_rm_dir(dir);
}
END_TEST

START_TEST(bad_options) {
    test_bad(NULL, "run -n 0");
    test_bad(NULL, "run -n 1000001");
    test_bad(NULL, "run -n -3");
    test_bad(NULL, "run -n abc");
    test_bad(NULL, "run --chunks 12x");
    test_bad(NULL, "run -b 0");
    test_bad(NULL, "run -b abc");
    test_bad(NULL, "run -b -5MB");
    test_bad(NULL, "run --size 1QB");
    test_bad(NULL, "run --dims 5");
    test_bad(NULL, "run --dims 3");
    test_bad(NULL, "run --dims 0,0");
    test_bad(NULL, "run --dims 0,x");
    test_bad(NULL, "run -s '%s' --dims 1", test_dpath("cli_ring4.json"));
    test_bad(NULL, "run -p bogus");
    test_bad("run: -q: unknown intra-dimension policy 'bogus' (expected fifo, scf or all)",
             "run -q bogus");
    test_bad("train: -q: unknown intra-dimension policy 'bogus'", "train '%s' -q bogus",
             test_dpath("wl_two_layer.json"));
    test_bad("run: -f: unknown format 'bogus' (expected table, json, csv or jsonl)",
             "run -f bogus");
    test_bad("-f: unknown format 'csv,'", "summarize x.csv -f csv,");
    test_bad(NULL, "run -c bogus");
    test_bad(NULL, "run --load-model bogus");
    test_bad(NULL, "run --bogus");
    test_bad(NULL, "--bogus");
    test_bad(NULL, "run -Z");
    test_bad(NULL, "run -n");
    test_bad(NULL, "run -s");
    test_bad(NULL, "frobnicate");
    test_bad(NULL, "run stray-argument");
}
END_TEST

/* README.md's sample of `make run` is exactly what `themis run` prints. */
START_TEST(readme_make_run) {
    char path[4200];
    const char *root = getenv("THEMIS_SRCDIR");
    snprintf(path, sizeof path, "%s/README.md", root ? root : ".");
    char *readme = test_slurp(path, NULL);
    const char *mark = "$ build/themis run\n";
    char *start = strstr(readme, mark);
    ck_assert_msg(start != NULL, "README.md has no '%s'", mark);
    start += strlen(mark);
    char *end = strstr(start, "```\n");
    ck_assert_ptr_nonnull(end);
    *end = '\0';
    test_cli_out r;
    test_cli(&r, "run");
    test_expect_quiet(&r, "run");
    ck_assert_msg(!strcmp(start, r.out), "README.md shows:\n%s\nthemis run prints:\n%s", start,
                  r.out);
    test_cli_free(&r);
    free(readme);
}
END_TEST

/* Asserts that the lines of text from the one starting with `first` up to the next empty line
 * (or the end) form an aligned table: all equally long, each with `ncols` space-separated
 * fields. */
static void expect_aligned(const char *text, const char *first, int ncols) {
    const char *p = strstr(text, first);
    ck_assert_msg(p != NULL, "no line '%s' in:\n%s", first, text);
    size_t width = strcspn(p, "\n");
    int rows = 0;
    while (*p && *p != '\n') {
        size_t len = strcspn(p, "\n");
        ck_assert_msg(len == width, "line %d is %zu wide, the header %zu:\n%s", rows, len, width,
                      text);
        int fields = 0;
        for (size_t i = 0; i < len; i++)
            fields += p[i] != ' ' && (i == 0 || p[i - 1] == ' ');
        ck_assert_msg(fields == ncols, "line %d has %d fields, want %d:\n%s", rows, fields, ncols,
                      text);
        p += len + (p[len] == '\n');
        rows++;
    }
    ck_assert_int_ge(rows, 2);
}

/* The table stays a table: 1000 bytes in 10^6 chunks give values of 15
 * characters (3.124999707e-08), wider than the 14 of a column; a dim name longer than a
 * column; names with a tab, a comma and a newline, shown escaped. */
START_TEST(table_layout) {
    test_cli_out r;
    test_cli(&r, "run -s '%s' -n 1000000 -b 1e3", test_dpath("cli_ctl_names.json"));
    test_expect_quiet(&r, "tiny values");
    expect_aligned(r.out, "policy      intra", 5);
    expect_aligned(strstr(r.out, "per-dim"), "policy      intra", 4);
    ck_assert_msg(strchr(r.out, '\t') == NULL, "a raw tab:\n%s", r.out);
    ck_assert_msg(strstr(r.out, " on ctl\\tnames (2 dims") != NULL, "%s", r.out);
    ck_assert_msg(strstr(r.out, " 0:a,b\\nc 1:a-dimension-name-longer-than-fourteen\n"), "%s",
                  r.out);
    /* intro, ideal, blank, header + 8 rows, blank, title, header + 8 rows: 1 + 1 + 1 + 9 + 1 + 1
     * + 9 = 23 lines: no name added a line */
    int lines = 0;
    for (const char *p = r.out; *p; p++)
        lines += *p == '\n';
    ck_assert_int_eq(lines, 23);
    test_cli_free(&r);
    /* train: the same columns stay apart */
    test_cli(&r, "train '%s' -p baseline -q fifo", wl_path("resnet50.json"));
    test_expect_quiet(&r, "train table");
    expect_aligned(r.out, "policy        intra", 7);
    test_cli_free(&r);
}
END_TEST

/* summarize on a binary file: refused for its first byte that is not UTF-8, the message on one
 * printable line. */
START_TEST(summarize_binary) {
    char *path = test_tmp_file();
    /* a header of the control bytes but NUL and line ends, then DEL, and bytes that are not
     * UTF-8 (a lone continuation byte, 0xff), then one row */
    char data[64];
    size_t n = 0;
    for (int c = 1; c < 0x20; c++)
        if (c != '\n' && c != '\r') data[n++] = (char)c;
    data[n++] = 0x7f;
    data[n++] = (char)0x80;
    data[n++] = (char)0xff;
    memcpy(data + n, "\n1\n", 3);
    n += 3;
    test_spit(path, data, n);
    test_cli_out r;
    test_cli(&r, "summarize '%s'", path);
    test_expect_bad(&r, "summarize binary"); /* exit 2, one line */
    for (size_t i = 0; i + 1 < r.err_len; i++) {
        unsigned char c = (unsigned char)r.err[i];
        ck_assert_msg(c >= 0x20 && c < 0x7f, "byte 0x%02x at %zu in: %s", c, i, r.err);
    }
    ck_assert_msg(strstr(r.err, "line 1: field 1 is not valid UTF-8 (byte 0x80)"), "%s", r.err);
    test_cli_free(&r);
    unlink(path);
    free(path);
}
END_TEST

/* Errors name the file that caused them. */
START_TEST(errors_name_their_file) {
    /* a bad endpoint-delay is the system JSON's fault, not the network YAML's */
    const char *net = test_dpath("astra_net_3d.yml");
    const char *bad_sys = test_dpath("astra_sys_bad_endpoint.json");
    test_cli_out r;
    test_cli(&r, "import-astra '%s' '%s'", net, bad_sys);
    test_expect_bad(&r, "bad endpoint-delay");
    ck_assert_msg(strstr(r.err, bad_sys) != NULL, "does not name %s: %s", bad_sys, r.err);
    ck_assert_msg(strstr(r.err, net) == NULL, "blames the YAML: %s", r.err);
    test_cli_free(&r);
    /* every dim at one NPU: the system file is named */
    test_bad("cli_npus_all1.json: dims: no active dimension", "run -s '%s'",
             test_dpath("cli_npus_all1.json"));
    /* a key holding a control character is shown escaped, never as its raw byte */
    char *key = test_tmp_file();
    const char *json = "{\"name\": \"x\", \"dims\": [{\"na\\u0001me\": \"a\"}]}\n";
    test_spit(key, json, strlen(json));
    test_bad("dims[0].na\\x01me: unknown key", "run -s '%s'", key);
    unlink(key);
    free(key);
    /* what the astra-sim preset does not model: its file is named */
    test_bad("astra_2d_a2a_rhd.json: collective:", "run -s '%s' -c alltoall",
             test_dpath("astra_2d_a2a_rhd.json"));
    test_bad("astra_2d.json: model:", "train '%s' -s '%s'", wl_path("resnet50.json"),
             test_dpath("astra_2d.json"));
}
END_TEST

/* One exit-status table for every command, at the end of its --help (which lists -V too); I/O
 * failures exit 3 from every command, naming the path. */
START_TEST(exit_status_everywhere) {
    const char *cmds[] = {"--help",       "run --help",          "train --help",    "sweep --help",
                          "merge --help", "import-astra --help", "summarize --help"};
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        test_cli_out r;
        test_cli(&r, "%s", cmds[i]);
        test_expect_ok(&r, cmds[i]);
        /* every command takes -V as well, and says so */
        const char *want[] = {"exit status: 0 success; 1 internal error; 2 bad input or usage",
                              "3 I/O\nfailure", "-V, --version"};
        for (int k = 0; k < 3; k++)
            ck_assert_msg(strstr(r.out, want[k]) != NULL, "%s lacks '%s'", cmds[i], want[k]);
        test_cli_free(&r);
    }
    test_fails(3, "/dev/full", "run -o /dev/full");
    test_fails(3, "/dev/full", "sweep '%s' -o /dev/full", test_dpath("sweep_ring4.json"));
    {
        /* the path is named once */
        test_cli_out r;
        test_cli(&r, "sweep '%s' -o /dev/full", test_dpath("sweep_ring4.json"));
        ck_assert_msg(strstr(r.err, "/dev/full: /dev/full") == NULL, "%s", r.err);
        test_cli_free(&r);
    }
    test_fails(3, "/dev/full", "import-astra '%s' -o /dev/full", test_dpath("astra_net_3d.yml"));
    /* a read error (a folder read as a file) */
    test_fails(3, "read error", "run -s '%s'", test_dpath(""));
}
END_TEST

START_TEST(bad_output_paths) {
    /* A folder cannot be made under a regular file (not even by root): an I/O failure, exit 3,
     * naming the path. */
    char *file = test_tmp_file();
    test_fails(3, file, "run -f csv -o '%s/x.csv'", file);
    test_fails(3, file, "run -n 1 --trace '%s/t.csv'", file);
    unlink(file);
    free(file);
}
END_TEST

/* The speedups' reference (baseline + fifo) that the preset refuses, where the pairs asked
 * run: they stand, without a speedup. A switch of 2 NPUs under halvingDoubling (50 bytes/ns,
 * 100 ns, endpoint 10): an All-Reduce of 2 bytes in 1 chunk leaves 1 byte per NPU after its
 * reduce-scatter, so the baseline's one AR phase would send 2 floor(1 / 2) = 0 bytes (ASTRA-sim
 * stops). Themis runs a reduce-scatter and an all-gather phase of 1-byte messages, each
 * ep + floor(2 hops x 100 + 1 / 50) + ep = 10 + 200 + 10 = 220 ns: 440 ns in all (SPEC §9). */
START_TEST(run_without_reference) {
    char *dir = test_tmp_dir();
    const char *sys = test_dpath("astra_sw2_rhd.json");
    test_csv c;
    cli_csv(&c, "-s '%s' -b 2 -n 1 -p themis -q fifo", sys);
    ck_assert_int_eq(c.nrows, 1);
    ck_assert_str_eq(test_csv_s(&c, 0, "time_us"), "0.44");
    ck_assert_str_eq(test_csv_s(&c, 0, "speedup"), "");
    test_csv_free(&c);
    test_cli_out r;
    test_cli(&r, "run -s '%s' -b 2 -n 1 -p themis -q fifo", sys);
    test_expect_quiet(&r, "run");
    ck_assert_ptr_nonnull(strstr(r.out, "0.44 "));
    ck_assert_ptr_null(strstr(r.out, "nan"));
    test_cli_free(&r);
    test_cli(&r, "run -s '%s' -b 2 -n 1 -p themis -q fifo -f json", sys);
    test_expect_quiet(&r, "run");
    ck_assert_ptr_nonnull(strstr(r.out, "\"speedup\":\tnull"));
    test_cli_free(&r);
    /* asked, the reference is refused as before, naming the pair */
    test_bad("baseline + fifo: size: under the astra-sim preset a chunk of 2 B leaves 1 B",
             "run -s '%s' -b 2 -n 1 -p baseline -q fifo", sys);
    /* a sweep's point likewise: its speedup cell is empty */
    char spec[8192];
    snprintf(spec, sizeof spec,
             "{'system': '%s', 'collective': {'type': 'allreduce', 'size': 2, 'chunks': 1},"
             " 'axes': {'policy': ['themis'], 'intra': ['fifo']}}",
             sys);
    test_sweep_csv(&c, dir, spec);
    ck_assert_int_eq(c.nrows, 1);
    ck_assert_str_eq(test_csv_s(&c, 0, "time_us"), "0.44");
    ck_assert_str_eq(test_csv_s(&c, 0, "speedup"), "");
    test_csv_free(&c);
    test_rm_dir(dir);
}
END_TEST

/* The astra-sim preset through the CLI: import ASTRA-sim files, then run them. */
START_TEST(astra_import_and_run) {
    char *out = test_tmp_file();
    unlink(out);
    test_cli_out r;
    test_cli(&r, "import-astra '%s' '%s' -o '%s'", test_dpath("astra_net_3d.yml"),
             test_dpath("astra_sys_3d.json"), out);
    test_expect_ok(&r, "import-astra");
    ck_assert_int_eq((int)r.out_len, 0);
    test_cli_free(&r);
    /* The imported run defaults (16 chunks, themis, scf) give ASTRA-sim's 8518008 ns. */
    test_csv c;
    cli_csv(&c, "-s '%s' -b 1GiB -f csv", out);
    ck_assert_int_eq(c.nrows, 1);
    ck_assert_str_eq(test_csv_s(&c, 0, "policy"), "themis");
    ck_assert_str_eq(test_csv_s(&c, 0, "intra"), "scf");
    ck_assert_str_eq(test_csv_s(&c, 0, "chunks"), "16");
    ck_assert_str_eq(test_csv_s(&c, 0, "time_us"), "8518.008");
    test_csv_free(&c);
    /* Options still win over the imported defaults. */
    cli_csv(&c, "-s '%s' -b 1GiB -p baseline -q fifo -f csv", out);
    ck_assert_str_eq(test_csv_s(&c, 0, "time_us"), "9015.92");
    test_csv_free(&c);
    /* An existing output is not overwritten without --force. */
    test_bad(out, "import-astra '%s' -o '%s'", test_dpath("astra_net_3d.yml"), out);
    unlink(out);
    free(out);
    /* The public regression test: 4 * 29445 ns (see test_astra.c). */
    cli_csv(&c, "-s '%s' -b 1MiB -n 4 -p baseline -q fifo -f csv",
            test_dpath("astra_rt_template.json"));
    ck_assert_str_eq(test_csv_s(&c, 0, "time_us"), "117.78");
    test_csv_free(&c);
    /* An All-Gather's size is what each NPU holds before (ASTRA-sim's 159429 ns, derived in
     * test_astra.c); per-dim algorithms come from the implementation lists (12206 ns). */
    cli_csv(&c, "-s '%s' -c allgather -b 1MiB -n 4 -p baseline -q fifo -f csv",
            test_dpath("astra_4d.json"));
    ck_assert_str_eq(test_csv_s(&c, 0, "time_us"), "159.429");
    test_csv_free(&c);
    out = test_tmp_file();
    unlink(out);
    test_cli(&r, "import-astra '%s' '%s' -o '%s'", test_dpath("astra_net_impl.yml"),
             test_dpath("astra_sys_impl.json"), out);
    test_expect_ok(&r, "import-astra");
    test_cli_free(&r);
    cli_csv(&c, "-s '%s' -b 1MiB -f csv", out);
    ck_assert_str_eq(test_csv_s(&c, 0, "time_us"), "12.206");
    test_csv_free(&c);
    unlink(out);
    free(out);
    test_bad("all-reduce-implementation[1]: \"direct4\"", "import-astra '%s' '%s'",
             test_dpath("astra_net_3d.yml"), test_dpath("astra_sys_window.json"));
    test_bad("YAML syntax error", "import-astra '%s'", test_dpath("astra_net_syntax.yml"));
    test_bad("npus_count has 3 values", "import-astra '%s'", test_dpath("astra_net_mismatch.yml"));
    /* An All-to-All with the ring on both dims (ASTRA-sim's Ring for All_to_All: p (p-1) / 2
     * messages of s/p to the next NPU, each followed by ep; the phase leaves s): c = 262144,
     * dim 0 (ring 4 @ 200 GB/s, 50 ns): net floor(50 + 65536 / 214.7483648) = 355, phase
     * 10 + 6 * 365 = 2200; dim 1 (switch, 2 hops, 50 GB/s, 100 ns): net floor(200 + 1220.703125)
     * = 1420, phase 10 + 6 * 1430 = 8590. Dim 1 is the bottleneck of the 4-chunk pipeline:
     * 2200 + 4 * 8590 = 36560 ns. A dim whose All-to-All is halvingDoubling is refused (ASTRA-sim
     * stops on it). */
    cli_csv(&c, "-s '%s' -c alltoall -b 1MiB -n 4 -p baseline -q fifo -f csv",
            test_dpath("astra_2d.json"));
    ck_assert_str_eq(test_csv_s(&c, 0, "time_us"), "36.56");
    test_csv_free(&c);
    test_bad("and dim 1 runs rhd (dims[1].alltoall)", "run -s '%s' -c alltoall",
             test_dpath("astra_2d_a2a_rhd.json"));
}
END_TEST

/* themis train through the CLI: the hand-traced two-layer workload (see test_train.c). */
START_TEST(train_cli) {
    test_cli_out r;
    test_cli(&r, "train '%s' -s '%s' -p baseline -q fifo -f csv", test_dpath("wl_two_layer.json"),
             test_dpath("cli_ring4.json"));
    test_expect_ok(&r, "train csv");
    test_csv c;
    test_csv_parse(&c, r.out);
    test_cli_free(&r);
    /* baseline+fifo with lifo priority: 49620 ns; compute 6800; exposed 42820. The ideal
     * network is not listed (not requested) but still gives vs_ideal = 49500 / 49620. */
    ck_assert_int_eq(c.nrows, 1);
    ck_assert_str_eq(test_csv_s(&c, 0, "iteration_us"), "49.62");
    ck_assert_str_eq(test_csv_s(&c, 0, "compute_us"), "6.8");
    ck_assert_rel(test_csv_d(&c, 0, "exposed_comm_us"), 42.82);
    ck_assert_str_eq(test_csv_s(&c, 0, "speedup"), "1");
    ck_assert_rel(test_csv_d(&c, 0, "speedup_vs_ideal"), 49500.0 / 49620.0);
    ck_assert_str_eq(test_csv_s(&c, 0, "priority"), "lifo");
    test_csv_free(&c);
    /* -p all -q all: 5 policies x 2 intras + the ideal network. */
    test_cli(&r, "train '%s' -s '%s' -f csv --priority fifo", test_dpath("wl_two_layer.json"),
             test_dpath("cli_ring4.json"));
    test_expect_ok(&r, "train all");
    test_csv_parse(&c, r.out);
    ck_assert_int_eq(c.nrows, 11);
    ck_assert_str_eq(test_csv_s(&c, 10, "policy"), "ideal");
    ck_assert_str_eq(test_csv_s(&c, 0, "iteration_us"), "50.62");
    test_csv_free(&c);
    test_cli_free(&r);
    /* JSON: the shape of themis run's, with each collective of the measured iteration. */
    test_cli(&r, "train '%s' -s '%s' -p themis -q scf -f json", test_dpath("wl_two_layer.json"),
             test_dpath("cli_ring4.json"));
    test_expect_ok(&r, "train json");
    cJSON *root = cJSON_Parse(r.out);
    ck_assert_ptr_nonnull(root);
    cJSON *res = cJSON_GetObjectItem(root, "results");
    ck_assert_int_eq(cJSON_GetArraySize(res), 1);
    cJSON *row = cJSON_GetArrayItem(res, 0);
    ck_assert_str_eq(cJSON_GetObjectItem(row, "policy")->valuestring, "themis");
    ck_assert_int_eq(cJSON_GetObjectItem(row, "collectives")->valueint, 2); /* a count */
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(root, "per_collective")), 2);
    ck_assert_ptr_nonnull(cJSON_GetObjectItem(row, "exposed_comm_us"));
    ck_assert_ptr_nonnull(cJSON_GetObjectItem(row, "speedup_vs_ideal"));
    ck_assert_str_eq(
        cJSON_GetObjectItem(cJSON_GetObjectItem(root, "workload"), "name")->valuestring,
        "two-layer");
    cJSON_Delete(root);
    test_cli_free(&r);
    /* The shipped workloads run on the default system. */
    test_cli(&r, "train '%s' -p baseline -q fifo", wl_path("resnet50.json"));
    test_expect_ok(&r, "train resnet50");
    ck_assert_ptr_nonnull(strstr(r.out, "iteration_us"));
    test_cli_free(&r);
    /* Bad input: exit 2, one line. */
    test_bad("mp_dims", "train '%s' -s '%s'", test_dpath("wl_hybrid.json"),
             test_dpath("cli_ring4.json"));
    test_bad("missing the workload", "train");
    test_bad("--iterations", "train '%s' --iterations 1", test_dpath("wl_two_layer.json"));
    /* each command lists the policies it takes, in th_policy order */
    test_bad("train: -p: unknown policy 'best' (expected baseline, themis, roundrobin, lp, "
             "themis-global, ideal or all)",
             "train '%s' -p best", test_dpath("wl_two_layer.json"));
    test_bad("run: -p: unknown policy 'best' (expected baseline, themis, roundrobin, lp or all)",
             "run -p best");
    /* the training-only policies are named as such by run, not called unknown */
    test_bad("-p: policy 'themis-global' applies to training only (themis train); expected "
             "baseline, themis, roundrobin, lp or all",
             "run -p themis-global");
    test_bad("-p: policy 'ideal' applies to training only", "run -p ideal");
    test_bad("cannot open", "train /nonexistent/w.json");
    test_bad("is a system file, expected a workload here", "train '%s'",
             test_dpath("cli_ring4.json"));
}
END_TEST

Suite *cli_suite(void) {
    Suite *s = suite_create("cli");
    TCase *tc = tcase_create("cli");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, version);
    tcase_add_test(tc, help);
    tcase_add_test(tc, noargs_table);
    tcase_add_test(tc, default_csv);
    tcase_add_test(tc, pair_selection);
    tcase_add_test(tc, json_format);
    tcase_add_test(tc, output_file);
    tcase_add_test(tc, trace_one_chunk);
    tcase_add_test(tc, trace_all_pairs);
    tcase_add_test(tc, ring4_allreduce);
    tcase_add_test(tc, ideal_lat_column);
    tcase_add_test(tc, ring4_chunks);
    tcase_add_test(tc, efficiency_reduce);
    tcase_add_test(tc, dims_subset);
    tcase_add_test(tc, rs_ag_a2a);
    tcase_add_test(tc, shipped_systems);
    tcase_add_test(tc, deterministic);
    tcase_add_test(tc, bad_system_files);
    tcase_add_test(tc, no_hang);
    tcase_add_test(tc, strict_json_inputs);
    tcase_add_test(tc, bad_options);
    tcase_add_test(tc, bad_output_paths);
    tcase_add_test(tc, readme_make_run);
    tcase_add_test(tc, table_layout);
    tcase_add_test(tc, summarize_binary);
    tcase_add_test(tc, errors_name_their_file);
    tcase_add_test(tc, exit_status_everywhere);
    tcase_add_test(tc, astra_import_and_run);
    tcase_add_test(tc, run_without_reference);
    tcase_add_test(tc, train_cli);
    suite_add_tcase(s, tc);
    return s;
}

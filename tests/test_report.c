/* Report tests: table, JSON, CSV and trace written from real th_run_compare results. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_themis.h"
#include "themis/num.h"
#include "themis/themis.h"

static const th_pair ALL_PAIRS[6] = {
    {TH_POLICY_BASELINE, TH_INTRA_FIFO},   {TH_POLICY_BASELINE, TH_INTRA_SCF},
    {TH_POLICY_THEMIS, TH_INTRA_FIFO},     {TH_POLICY_THEMIS, TH_INTRA_SCF},
    {TH_POLICY_ROUNDROBIN, TH_INTRA_FIFO}, {TH_POLICY_ROUNDROBIN, TH_INTRA_SCF},
};
static const char *const POL[6] = {"baseline", "baseline",   "themis",
                                   "themis",   "roundrobin", "roundrobin"};
static const char *const INTRA[6] = {"fifo", "scf", "fifo", "scf", "fifo", "scf"};

/* A system, a collective and the results of comparing pairs on it. */
typedef struct fixture {
    th_system sys;
    th_collective coll;
    th_pair pairs[6];
    th_result res[6];
    th_report rep;
} fixture;

/* 1-D ring 4 @ 100 GB/s, 10 ns, for hand-derived numbers. */
static const char *const RING4 =
    "{\"name\": \"ring4\", \"dims\": [{\"name\": \"r\", \"topology\": \"ring\", \"npus\": 4,"
    " \"bw_GBps\": 100, \"latency_ns\": 10}]}";

/* 3-D system with a reduction rate and an efficiency, to exercise every JSON field. */
static const char *const SYS3 =
    "{\"name\": \"rep3\", \"reduce_GBps\": 400, \"dims\": ["
    "{\"name\": \"a\", \"topology\": \"ring\", \"npus\": 4, \"bw_GBps\": 100,"
    " \"latency_ns\": 10},"
    "{\"name\": \"b\", \"topology\": \"fc\", \"npus\": 2, \"bw_GBps\": 50, \"latency_ns\": 100,"
    " \"efficiency\": 0.8},"
    "{\"name\": \"c\", \"topology\": \"switch\", \"npus\": 8, \"bw_GBps\": 25,"
    " \"latency_ns\": 1000, \"algorithm\": \"ring\"}]}";

static void setup(fixture *f, const char *json, th_coll_type type, double size, int64_t chunks,
                  uint32_t mask, const th_pair *pairs, int npairs, th_load_model model) {
    th_error err = {0};
    memset(f, 0, sizeof *f);
    if (json) {
        int rc = th_system_parse(json, strlen(json), "test", &f->sys, &err);
        ck_assert_msg(rc == 0, "system: %s", err.msg);
    } else {
        th_system_default(&f->sys);
    }
    f->coll.type = type;
    f->coll.size = size;
    f->coll.chunks = chunks;
    f->coll.dims_mask = mask;
    memcpy(f->pairs, pairs, sizeof *pairs * (size_t)npairs);
    th_runner *r = th_runner_create();
    ck_assert_ptr_nonnull(r);
    int rc = th_run_compare(r, &f->sys, &f->coll, f->pairs, npairs, model, NULL, NULL, NULL, f->res,
                            &err);
    ck_assert_msg(rc == 0, "compare: %s", err.msg);
    th_runner_free(r);
    f->rep.sys = &f->sys;
    f->rep.coll = &f->coll;
    f->rep.model = model;
    f->rep.pairs = f->pairs;
    f->rep.results = f->res;
    f->rep.npairs = npairs;
}

typedef int (*report_fn)(FILE *, const th_report *, th_error *);

/* Runs one report function into memory; the caller frees the text. */
static char *render(report_fn fn, const th_report *rep) {
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    ck_assert_ptr_nonnull(out);
    th_error err = {0};
    int rc = fn(out, rep, &err);
    ck_assert_msg(rc == 0, "report failed: %s", err.msg);
    fclose(out);
    ck_assert_ptr_nonnull(buf);
    return buf;
}

/* Splits text into lines in place; returns the line count. Every line must end in '\n'. */
static int lines(char *text, char **l, int max) {
    int n = 0;
    size_t len = strlen(text);
    ck_assert_msg(len > 0 && text[len - 1] == '\n', "output does not end in a newline");
    for (char *p = text; *p;) {
        char *nl = strchr(p, '\n');
        *nl = '\0';
        ck_assert_int_lt(n, max);
        l[n++] = p;
        p = nl + 1;
    }
    return n;
}

static double num(const char *s) {
    char *end;
    double v = strtod(s, &end);
    ck_assert_msg(*s && *end == '\0', "not a number: '%s'", s);
    return v;
}

static void expected_header(char *buf, size_t size, int ndims) {
    size_t n = (size_t)snprintf(buf, size, "%s",
                                "system,type,size_bytes,chunks,dims,load_model,policy,intra,"
                                "time_us,ideal_us,bw_util,speedup,algbw_GBps,busbw_GBps");
    for (int k = 0; k < ndims; k++) {
        n += (size_t)snprintf(buf + n, size - n,
                              ",dim%d_name,dim%d_bytes,dim%d_busy_us,dim%d_bw_util", k, k, k, k);
    }
}

/* Checks a CSV report against the results it was written from. */
static void check_csv(const fixture *f, const char *sysname, const char *type, const char *dims,
                      const char *model) {
    char *text = render(th_report_csv, &f->rep);
    char *l[64], *c[128], head[4096];
    int n = lines(text, l, 64);
    ck_assert_int_eq(n, 1 + f->rep.npairs);
    expected_header(head, sizeof head, f->sys.ndims);
    ck_assert_str_eq(l[0], head);
    for (int i = 0; i < f->rep.npairs; i++) {
        const th_result *r = &f->res[i];
        int w = test_split(l[i + 1], c, 128);
        ck_assert_int_eq(w, 14 + 4 * f->sys.ndims);
        ck_assert_str_eq(c[0], sysname);
        ck_assert_str_eq(c[1], type);
        ck_assert_rel(num(c[2]), f->coll.size);
        ck_assert_rel(num(c[3]), (double)f->coll.chunks);
        ck_assert_str_eq(c[4], dims);
        ck_assert_str_eq(c[5], model);
        ck_assert_str_eq(c[6], th_policy_name(f->pairs[i].policy));
        ck_assert_str_eq(c[7], th_intra_name(f->pairs[i].intra));
        ck_assert_rel(num(c[8]), r->time / 1000.0);
        ck_assert_rel(num(c[9]), r->ideal / 1000.0);
        ck_assert_rel(num(c[10]), r->bw_util);
        ck_assert_rel(num(c[11]), r->speedup);
        ck_assert_rel(num(c[12]), r->algbw);
        ck_assert_rel(num(c[13]), r->busbw);
        for (int k = 0; k < f->sys.ndims; k++) {
            ck_assert_str_eq(c[14 + 4 * k], f->sys.dims[k].name);
            ck_assert_rel(num(c[15 + 4 * k]), r->bytes[k]);
            ck_assert_rel(num(c[16 + 4 * k]), r->busy[k] / 1000.0);
            ck_assert_rel(num(c[17 + 4 * k]), r->dim_util[k]);
        }
    }
    free(text);
}

static cJSON *member(const cJSON *obj, const char *key) {
    cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    ck_assert_msg(v != NULL, "JSON lacks \"%s\"", key);
    return v;
}

static double jnum(const cJSON *obj, const char *key) {
    cJSON *v = member(obj, key);
    ck_assert_msg(cJSON_IsNumber(v), "\"%s\" is not a number", key);
    return v->valuedouble;
}

static const char *jstr(const cJSON *obj, const char *key) {
    cJSON *v = member(obj, key);
    ck_assert_msg(cJSON_IsString(v), "\"%s\" is not a string", key);
    return v->valuestring;
}

/* Checks a JSON report against the system, collective and results it was written from. */
static void check_json(const fixture *f) {
    char *text = render(th_report_json, &f->rep);
    cJSON *root = cJSON_Parse(text);
    ck_assert_msg(root != NULL, "JSON does not parse:\n%s", text);
    ck_assert(cJSON_IsObject(root));

    cJSON *sys = member(root, "system");
    ck_assert_str_eq(jstr(sys, "name"), f->sys.name);
    ck_assert_rel(jnum(sys, "npus"), f->sys.npus);
    if (f->sys.reduce_bw > 0) {
        ck_assert_rel(jnum(sys, "reduce_GBps"), f->sys.reduce_bw);
    } else {
        ck_assert_ptr_null(cJSON_GetObjectItemCaseSensitive(sys, "reduce_GBps"));
    }
    cJSON *sd = member(sys, "dims");
    ck_assert_int_eq(cJSON_GetArraySize(sd), f->sys.ndims);
    for (int k = 0; k < f->sys.ndims; k++) {
        const th_dim *d = &f->sys.dims[k];
        cJSON *o = cJSON_GetArrayItem(sd, k);
        ck_assert_str_eq(jstr(o, "name"), d->name);
        ck_assert_str_eq(jstr(o, "topology"), th_topology_name(d->topology));
        ck_assert_str_eq(jstr(o, "algorithm"), th_algorithm_name(d->algorithm));
        ck_assert_rel(jnum(o, "npus"), (double)d->npus);
        ck_assert_rel(jnum(o, "bw_GBps"), d->bw_GBps);
        ck_assert_rel(jnum(o, "latency_ns"), d->latency);
        ck_assert_rel(jnum(o, "efficiency"), d->efficiency);
    }

    cJSON *coll = member(root, "collective");
    ck_assert_str_eq(jstr(coll, "type"), th_coll_type_name(f->coll.type));
    ck_assert_rel(jnum(coll, "size_bytes"), f->coll.size);
    ck_assert_rel(jnum(coll, "chunks"), (double)f->coll.chunks);
    cJSON *cd = member(coll, "dims");
    int j = 0;
    for (int k = 0; k < f->sys.ndims; k++) {
        if (f->coll.dims_mask == 0 || (f->coll.dims_mask & (1u << k))) {
            ck_assert_rel(cJSON_GetArrayItem(cd, j)->valuedouble, (double)k);
            j++;
        }
    }
    ck_assert_int_eq(cJSON_GetArraySize(cd), j);
    ck_assert_str_eq(jstr(root, "load_model"), th_load_model_name(f->rep.model));

    cJSON *res = member(root, "results");
    ck_assert_int_eq(cJSON_GetArraySize(res), f->rep.npairs);
    for (int i = 0; i < f->rep.npairs; i++) {
        const th_result *r = &f->res[i];
        cJSON *o = cJSON_GetArrayItem(res, i);
        ck_assert_str_eq(jstr(o, "policy"), th_policy_name(f->pairs[i].policy));
        ck_assert_str_eq(jstr(o, "intra"), th_intra_name(f->pairs[i].intra));
        ck_assert_rel(jnum(o, "time_us"), r->time / 1000.0);
        ck_assert_rel(jnum(o, "ideal_us"), r->ideal / 1000.0);
        ck_assert_rel(jnum(o, "bw_util"), r->bw_util);
        ck_assert_rel(jnum(o, "speedup"), r->speedup);
        ck_assert_rel(jnum(o, "algbw_GBps"), r->algbw);
        ck_assert_rel(jnum(o, "busbw_GBps"), r->busbw);
        /* the row names its collective too: the same keys as a CSV record */
        ck_assert_str_eq(jstr(o, "system"), f->sys.name);
        ck_assert_str_eq(jstr(o, "type"), th_coll_type_name(f->coll.type));
        ck_assert_rel(jnum(o, "size_bytes"), f->coll.size);
        ck_assert_rel(jnum(o, "chunks"), (double)f->coll.chunks);
        ck_assert_int_eq(cJSON_GetArraySize(member(o, "dims")), j);
        ck_assert_str_eq(jstr(o, "load_model"), th_load_model_name(f->rep.model));
        cJSON *rd = member(o, "per_dim");
        ck_assert_int_eq(cJSON_GetArraySize(rd), f->sys.ndims);
        for (int k = 0; k < f->sys.ndims; k++) {
            cJSON *d = cJSON_GetArrayItem(rd, k);
            ck_assert_str_eq(jstr(d, "name"), f->sys.dims[k].name);
            ck_assert_rel(jnum(d, "bytes"), r->bytes[k]);
            ck_assert_rel(jnum(d, "busy_us"), r->busy[k] / 1000.0);
            ck_assert_rel(jnum(d, "bw_util"), r->dim_util[k]);
        }
    }
    cJSON_Delete(root);
    free(text);
}

START_TEST(csv_default) {
    fixture f;
    setup(&f, NULL, TH_COLL_ALLREDUCE, 1073741824.0, 64, 0, ALL_PAIRS, 6, TH_LOAD_ALPHA_BETA);
    check_csv(&f, "default-3d", "allreduce", "0;1;2", "alpha_beta");
    /* The pairs come out in the order given. */
    char *text = render(th_report_csv, &f.rep), *l[16], *c[128];
    ck_assert_int_eq(lines(text, l, 16), 7);
    for (int i = 0; i < 6; i++) {
        test_split(l[i + 1], c, 128);
        ck_assert_str_eq(c[6], POL[i]);
        ck_assert_str_eq(c[7], INTRA[i]);
    }
    free(text);
}
END_TEST

START_TEST(csv_hand) {
    fixture f;
    setup(&f, RING4, TH_COLL_ALLREDUCE, 1e6, 1, 0, ALL_PAIRS, 6, TH_LOAD_ALPHA_BETA);
    check_csv(&f, "ring4", "allreduce", "0", "alpha_beta");
    /* RS 10*3 + 1e6*3/(4*100) = 7530 ns, AG the same: 15060 ns = 15.06 us; ideal
     * 1.5e6/100 = 15000 ns = 15 us; speedup 1 (one chunk: every order is the baseline). */
    char *text = render(th_report_csv, &f.rep), *l[16], *c[128];
    ck_assert_int_eq(lines(text, l, 16), 7);
    for (int i = 0; i < 6; i++) {
        test_split(l[i + 1], c, 128);
        ck_assert_str_eq(c[2], "1000000");
        ck_assert_str_eq(c[3], "1");
        ck_assert_rel(num(c[8]), 15.06);
        ck_assert_rel(num(c[9]), 15.0);
        ck_assert_rel(num(c[11]), 1.0);
        ck_assert_rel(num(c[15]), 1.5e6); /* c[14]: dim0_name */
        ck_assert_rel(num(c[16]), 15.06);
    }
    free(text);
}
END_TEST

START_TEST(csv_subset_and_types) {
    fixture f;
    th_pair two[2] = {{TH_POLICY_THEMIS, TH_INTRA_SCF}, {TH_POLICY_BASELINE, TH_INTRA_FIFO}};
    setup(&f, SYS3, TH_COLL_ALLREDUCE, 3e6, 16, (1u << 0) | (1u << 2), two, 2, TH_LOAD_BANDWIDTH);
    check_csv(&f, "rep3", "allreduce", "0;2", "bandwidth");
    /* The inactive dim 1 is printed with zeros. */
    ck_assert_rel(f.res[0].bytes[1], 0.0);
    ck_assert_rel(f.res[1].speedup, 1.0);
    setup(&f, SYS3, TH_COLL_REDUCESCATTER, 1e6, 4, 0, ALL_PAIRS, 6, TH_LOAD_ALPHA_BETA);
    check_csv(&f, "rep3", "reducescatter", "0;1;2", "alpha_beta");
    setup(&f, SYS3, TH_COLL_ALLGATHER, 1e6, 4, (1u << 1) | (1u << 2), ALL_PAIRS, 6,
          TH_LOAD_ALPHA_BETA);
    check_csv(&f, "rep3", "allgather", "1;2", "alpha_beta");
}
END_TEST

START_TEST(json_reports) {
    fixture f;
    setup(&f, NULL, TH_COLL_ALLREDUCE, 1073741824.0, 64, 0, ALL_PAIRS, 6, TH_LOAD_ALPHA_BETA);
    check_json(&f);
    setup(&f, SYS3, TH_COLL_ALLREDUCE, 3e6, 16, (1u << 0) | (1u << 2), ALL_PAIRS, 6,
          TH_LOAD_BANDWIDTH);
    check_json(&f);
    setup(&f, RING4, TH_COLL_ALLGATHER, 1e6, 3, 0, ALL_PAIRS + 3, 1, TH_LOAD_ALPHA_BETA);
    check_json(&f);
}
END_TEST

START_TEST(table_report) {
    fixture f;
    setup(&f, NULL, TH_COLL_ALLREDUCE, 1073741824.0, 64, 0, ALL_PAIRS, 6, TH_LOAD_ALPHA_BETA);
    char *text = render(th_report_table, &f.rep);
    for (int i = 0; i < 6; i++) {
        /* Some line names both the policy and the intra policy of every pair. */
        int found = 0;
        for (char *p = text; *p && !found;) {
            char *nl = strchr(p, '\n');
            size_t len = nl ? (size_t)(nl - p) : strlen(p);
            char line[1024];
            snprintf(line, sizeof line, "%.*s", (int)(len < 1023 ? len : 1023), p);
            int other =
                (i < 2 && (strstr(line, "themis") || strstr(line, "roundrobin"))) ||
                (i >= 2 && i < 4 && (strstr(line, "baseline") || strstr(line, "roundrobin"))) ||
                (i >= 4 && (strstr(line, "baseline") || strstr(line, "themis")));
            found = !other && strstr(line, POL[i]) && strstr(line, INTRA[i]);
            p = nl ? nl + 1 : p + len;
        }
        ck_assert_msg(found, "table has no row for %s/%s:\n%s", POL[i], INTRA[i], text);
    }
    ck_assert_msg(strstr(text, "default-3d") != NULL, "table does not name the system");
    free(text);
}
END_TEST

/* Trace context: the stream, the pairs and the index th_run_compare sets. */
typedef struct trace_ctx {
    FILE *out;
    const th_pair *pairs;
    int cur;
    int64_t rows;
} trace_ctx;

static void trace_cb(void *ctx, const th_stage_rec *rec) {
    trace_ctx *t = ctx;
    th_report_trace_row(t->out, t->pairs[t->cur], rec);
    t->rows++;
}

START_TEST(trace_rows) {
    th_system sys;
    th_error err = {0};
    ck_assert_int_eq(th_system_parse(SYS3, strlen(SYS3), "test", &sys, &err), 0);
    th_collective coll = {TH_COLL_ALLREDUCE, 1e6, 4, 0};
    char *buf = NULL;
    size_t len = 0;
    trace_ctx t = {open_memstream(&buf, &len), ALL_PAIRS, -1, 0};
    ck_assert_ptr_nonnull(t.out);
    th_report_trace_header(t.out);
    th_result res[6];
    th_runner *r = th_runner_create();
    ck_assert_int_eq(th_run_compare(r, &sys, &coll, ALL_PAIRS, 6, TH_LOAD_ALPHA_BETA, trace_cb, &t,
                                    &t.cur, res, &err),
                     0);
    th_runner_free(r);
    fclose(t.out);
    /* 6 pairs x 4 chunks x 6 stages; the reference run is one of the pairs, so it is not
     * traced twice. */
    ck_assert_int_eq(t.rows, 144);
    char *l[256], *c[16];
    int n = lines(buf, l, 256);
    ck_assert_int_eq(n, 145);
    ck_assert_str_eq(l[0], "policy,intra,chunk,stage,op,dim,bytes,ready_us,start_us,end_us");
    for (int pair = 0; pair < 6; pair++) {
        double last_end = 0, prev_start = 0;
        for (int i = 1 + 24 * pair; i < 1 + 24 * (pair + 1); i++) {
            ck_assert_int_eq(test_split(l[i], c, 16), 10);
            ck_assert_str_eq(c[0], POL[pair]);
            ck_assert_str_eq(c[1], INTRA[pair]);
            ck_assert(num(c[2]) >= 0 && num(c[2]) < 4);
            ck_assert(num(c[3]) >= 0 && num(c[3]) < 6);
            ck_assert(strcmp(c[4], "RS") == 0 || strcmp(c[4], "AG") == 0);
            ck_assert(num(c[5]) >= 0 && num(c[5]) < 3);
            double start = num(c[8]), end = num(c[9]);
            ck_assert(num(c[7]) <= start && start < end);
            ck_assert(start >= prev_start);
            prev_start = start;
            last_end = end > last_end ? end : last_end;
        }
        ck_assert_rel(last_end, res[pair].time / 1000.0);
    }
    free(buf);
}
END_TEST

START_TEST(trace_row_format) {
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    th_stage_rec rec = {.chunk = 123456789012LL,
                        .stage = 3,
                        .op = TH_OP_AG,
                        .dim = 2,
                        .m = 1e6,
                        .bytes = 875000.0,
                        .ready = 1234.5,
                        .start = 2000.25,
                        .end = 1e12 / 3.0};
    th_pair pair = {TH_POLICY_ROUNDROBIN, TH_INTRA_SCF};
    th_report_trace_row(out, pair, &rec);
    rec.op = TH_OP_A2A;
    rec.chunk = 0;
    th_report_trace_row(out, pair, &rec);
    fclose(out);
    char *l[4], *c[16];
    ck_assert_int_eq(lines(buf, l, 4), 2);
    ck_assert_int_eq(test_split(l[0], c, 16), 10);
    ck_assert_str_eq(c[0], "roundrobin");
    ck_assert_str_eq(c[1], "scf");
    ck_assert_str_eq(c[2], "123456789012");
    ck_assert_str_eq(c[3], "3");
    ck_assert_str_eq(c[4], "AG");
    ck_assert_str_eq(c[5], "2");
    /* SPEC §7: the trace carries m (1e6), not the bytes one NPU sends (875000). */
    ck_assert(num(c[6]) == 1e6);
    ck_assert_rel(num(c[7]), 1.2345);
    ck_assert_rel(num(c[8]), 2.00025);
    ck_assert_rel(num(c[9]), 1e9 / 3.0);
    ck_assert_int_eq(test_split(l[1], c, 16), 10);
    ck_assert_str_eq(c[2], "0");
    ck_assert_str_eq(c[4], "A2A");
    free(buf);
}
END_TEST

START_TEST(write_failure) {
    FILE *out = fopen("/dev/full", "w");
    if (!out) {
        return; /* no /dev/full on this machine */
    }
    setvbuf(out, NULL, _IONBF, 0);
    fixture f;
    setup(&f, RING4, TH_COLL_ALLREDUCE, 1e6, 1, 0, ALL_PAIRS, 6, TH_LOAD_ALPHA_BETA);
    report_fn fns[3] = {th_report_table, th_report_json, th_report_csv};
    for (int i = 0; i < 3; i++) {
        th_error err = {0};
        clearerr(out);
        int rc = fns[i](out, &f.rep, &err);
        /* an I/O failure (exit 3), not an internal error */
        ck_assert_msg(rc == TH_EIO, "report %d on a full device returned %d", i, rc);
        ck_assert_int_eq(err.code, TH_EIO);
        ck_assert_msg(strstr(err.msg, "No space") != NULL, "%s", err.msg);
    }
    fclose(out);
}
END_TEST

/* th_num_format: "%.15g" when it reads back as the same double, else "%.17g". */
START_TEST(num_text) {
    char b[32];
    static const struct {
        double v;
        const char *text;
    } cases[] = {
        {0.1, "0.1"},                       /* 15 digits read back */
        {1.0 / 3.0, "0.33333333333333331"}, /* 15 threes are 3.3e-16 below it; its ulp is 5.6e-17 */
        {0, "0"},
        {-0.0, "-0"},
        {1073741824, "1073741824"},
        {1e15, "1e+15"}, /* exponent 15 >= precision 15 */
        {123456789012345, "123456789012345"},
        {1e-5, "1e-05"},    /* exponent -5 < -4: exponent style, two digits at least */
        {0.0001, "0.0001"}, /* exponent -4: fixed style */
        {1e300, "1e+300"},
        {5e-324, "4.94065645841247e-324"}, /* the least subnormal: 15 digits suffice */
        {1.7976931348623157e308, "1.7976931348623157e+308"}, /* 1.79769313486232e308 overflows */
        {2.5, "2.5"},
        {-1234.5, "-1234.5"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        ck_assert_str_eq(th_num_format(b, cases[i].v), cases[i].text);
    ck_assert_str_eq(th_num_format(b, INFINITY), "inf");
    /* the definition, against random doubles of every kind (bit patterns, decimals,
     * binary fractions, values next to round ones; odd multiples of 1/4 from 10^15 on, whose
     * 18 digits end in 25 or 75: exactly halfway at the 17th digit, rounded to even; values
     * from 10^17 to 2^128, whose digits come from a division; powers of ten and their
     * neighbours; 16-digit decimals ending in 5, halfway at the 16th digit) */
    uint64_t x = 88172645463325252u;
    for (int i = 0; i < 450000; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        double v;
        switch (i % 9) {
        case 0: memcpy(&v, &x, sizeof v); break;
        case 1: v = (double)(x % 100000000) / pow(10, (double)(x >> 58)); break;
        case 2: v = ldexp((double)(x >> 11), (int)(x % 90) - 70); break;
        case 3: v = nextafter((double)(x % 1000000) / 1000.0, (x >> 63) ? 0 : 1e300); break;
        case 4: v = ldexp((double)(x >> 11 | 1), -2 - (int)(x % 3)); break;
        case 5: v = ldexp((double)(x >> 11), 4 + (int)(x % 72)); break;
        case 6: v = pow(10, (double)((int)(x % 50) - 10)); break;
        case 7: /* 16 digits ending in 5: 17 digits often ending in 50 */
            v = (double)(x % 1000000000000000u * 10 + 5) / pow(10, (double)(x >> 59));
            break;
        default: v = nextafter(pow(10, (double)((int)(x % 50) - 10)), (x >> 63) ? 0 : 1e300); break;
        }
        if (x >> 62 == 3) v = -v;
        if (!isfinite(v)) continue;
        char want[32];
        snprintf(want, sizeof want, "%.15g", v);
        if (strtod(want, NULL) != v) snprintf(want, sizeof want, "%.17g", v);
        ck_assert_str_eq(th_num_format(b, v), want);
    }
}
END_TEST

Suite *report_suite(void) {
    Suite *s = suite_create("report");
    TCase *tc = tcase_create("report");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, num_text);
    tcase_add_test(tc, csv_default);
    tcase_add_test(tc, csv_hand);
    tcase_add_test(tc, csv_subset_and_types);
    tcase_add_test(tc, json_reports);
    tcase_add_test(tc, table_report);
    tcase_add_test(tc, trace_rows);
    tcase_add_test(tc, trace_row_format);
    tcase_add_test(tc, write_failure);
    suite_add_tcase(s, tc);
    return s;
}

/* Check suite for the embedding entry point (api*.c): th_api_call's results, the sweep row
 * callback, errors, and calls from parallel threads. The Python package's tests
 * (tests/python) compare every command with the binary's output. */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "check_themis.h"
#include "themis/api.h"
#include "themis/report.h"

/* One ring dim of p = 2 at 1 GB/s (B = 1 byte/ns), alpha = 10 ns. */
#define RING2                                                                                      \
    "{\"name\": \"ring2\", \"dims\": [{\"topology\": \"ring\", \"npus\": 2, "                      \
    "\"bw_GBps\": 1, \"latency_ns\": 10}]}"

/* Runs command with request, expects status rc, returns the text (caller frees). */
static char *call(const char *command, const char *request, int rc) {
    char *out = NULL;
    int got = th_api_call(command, request, NULL, NULL, &out);
    ck_assert_ptr_nonnull(out);
    ck_assert_msg(got == rc, "%s %s: status %d, expected %d: %s", command, request, got, rc, out);
    return out;
}

/* A 1000-byte All-Reduce in 1 chunk on RING2, baseline + FIFO: RS then AG, each
 * alpha * (p - 1) + m (p - 1) / (p B) = 10 + 1000 / 2 = 510 ns (SPEC §3): 1020 ns = 1.02 us. */
START_TEST(test_api_run_by_hand) {
    char *out = call("run",
                     "{\"system\": " RING2 ", \"size\": 1000, \"chunks\": 1, \"policy\": "
                     "\"baseline\", \"intra\": \"fifo\"}",
                     TH_OK);
    cJSON *root = cJSON_Parse(out);
    ck_assert_ptr_nonnull(root);
    const cJSON *res = cJSON_GetArrayItem(cJSON_GetObjectItem(root, "results"), 0);
    ck_assert_rel(cJSON_GetObjectItem(res, "time_us")->valuedouble, 1.02);
    ck_assert_str_eq(cJSON_GetObjectItem(res, "policy")->valuestring, "baseline");
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(root, "results")), 1);
    cJSON_Delete(root);
    th_api_free(out);
}
END_TEST

/* The result is th_report_json's text for the same comparison, byte for byte. */
START_TEST(test_api_run_is_the_report) {
    char *out = call("run", "{\"chunks\": 8, \"policy\": \"themis\"}", TH_OK);
    th_system sys;
    th_system_default(&sys);
    th_collective coll = {TH_COLL_ALLREDUCE, 1073741824.0, 8, 0};
    th_pair pairs[2] = {{TH_POLICY_THEMIS, TH_INTRA_FIFO}, {TH_POLICY_THEMIS, TH_INTRA_SCF}};
    th_result res[2];
    th_error err = {0};
    th_runner *r = th_runner_create();
    ck_assert_int_eq(
        th_run_compare(r, &sys, &coll, pairs, 2, TH_LOAD_ALPHA_BETA, NULL, NULL, NULL, res, &err),
        TH_OK);
    th_runner_free(r);
    char *want = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&want, &len);
    th_report rep = {&sys, &coll, TH_LOAD_ALPHA_BETA, pairs, res, 2, 0, 0, 0};
    ck_assert_int_eq(th_report_json(f, &rep, &err), TH_OK);
    fclose(f);
    ck_assert_str_eq(out, want);
    free(want);
    th_api_free(out);
}
END_TEST

typedef struct rows {
    int header; /* calls with the header */
    int n;      /* data rows seen */
    int stop_at;
    int64_t sum; /* of the point column */
    int bad;     /* a row not as wide as the header */
    size_t width;
} rows;

static int on_row(void *ctx, size_t nfields, const char *const *fields) {
    rows *r = ctx;
    if (!r->header) {
        r->header = 1;
        r->width = nfields;
        if (strcmp(fields[0], "point")) r->bad = 1;
        return 0;
    }
    if (nfields != r->width) r->bad = 1;
    r->sum += atoll(fields[0]);
    return ++r->n == r->stop_at;
}

/* 3 chunk counts x 2 intras = 6 points 0..5, header first, in order; a stop after 2 rows. */
START_TEST(test_api_sweep_rows) {
    const char *spec = "{\"spec\": {\"name\": \"s\", \"collective\": {\"size\": \"1MiB\"}, "
                       "\"axes\": {\"chunks\": [1, 2, 4], \"intra\": [\"fifo\", \"scf\"]}}, "
                       "\"jobs\": 2}";
    rows r = {0};
    char *out = NULL;
    ck_assert_int_eq(th_api_call("sweep", spec, on_row, &r, &out), TH_OK);
    ck_assert_str_eq(out, "{\n\t\"name\":\t\"s\",\n\t\"points\":\t6,\n\t\"rows\":\t6\n}\n");
    th_api_free(out);
    ck_assert(r.header && !r.bad);
    ck_assert_int_eq(r.n, 6);
    ck_assert_int_eq(r.sum, 0 + 1 + 2 + 3 + 4 + 5);

    rows s = {0};
    s.stop_at = 2;
    ck_assert_int_eq(th_api_call("sweep", spec, on_row, &s, &out), TH_OK);
    ck_assert_int_eq(s.n, 2);                             /* nothing after the stop */
    ck_assert_ptr_nonnull(strstr(out, "\"rows\":\t1\n")); /* the second row stopped it */
    th_api_free(out);

    /* no callback: the rows are only counted */
    out = call("sweep", spec, TH_OK);
    ck_assert_ptr_nonnull(strstr(out, "\"rows\":\t6\n"));
    th_api_free(out);
}
END_TEST

START_TEST(test_api_errors) {
    char *out = call("fly", "{}", TH_EINPUT);
    ck_assert_str_eq(out, "unknown command 'fly' (expected run, train, sweep, optimize, calibrate, "
                          "plot, export-chakra, system, version)");
    th_api_free(out);
    out = call("run", "[1, 2]", TH_EINPUT);
    ck_assert_str_eq(out, "run: request: expected an object, got an array");
    th_api_free(out);
    out = call("run", "{\"chunks\": }", TH_EINPUT);
    ck_assert_msg(!strncmp(out, "run:1:", 6), "%s", out);
    th_api_free(out);
    out = call("run", "{\"sise\": 4096}", TH_EINPUT);
    ck_assert_str_eq(out, "run: sise: unknown key; did you mean \"size\"?");
    th_api_free(out);
    /* the keys of the command's option table, as the command line's --polcy */
    out = call("run", "{\"polcy\": \"themis\"}", TH_EINPUT);
    ck_assert_str_eq(out, "run: polcy: unknown key; did you mean \"policy\"?");
    th_api_free(out);
    out = call("run", "{\"policy\": \"ideal\"}", TH_EINPUT);
    ck_assert_msg(strstr(out, "run: policy: unknown value \"ideal\""), "%s", out);
    th_api_free(out);
    out = call("run", "{\"system\": \"/nonexistent/x.json\"}", TH_EINPUT);
    ck_assert_msg(!strncmp(out, "/nonexistent/x.json: cannot open", 32), "%s", out);
    th_api_free(out);
    out = call("system", "{\"system\": {\"dims\": []}}", TH_EINPUT);
    ck_assert_msg(!strncmp(out, "system: dims", 12), "%s", out);
    th_api_free(out);
    out = call("version", NULL, TH_OK); /* no request: {} */
    ck_assert_str_eq(out, "{\n\t\"version\":\t\"" TH_VERSION "\",\n\t\"api\":\t5\n}\n");
    th_api_free(out);
    th_api_free(NULL);
}
END_TEST

/* One layer of 1 us forward and weight-gradient compute, the gradient a 1 MiB All-Reduce. */
#define WORKLOAD                                                                                   \
    "{\"workload\": {\"name\": \"w\", \"parallelism\": \"data\", \"batch\": 1, "                   \
    "\"layers\": [{\"name\": \"l\", \"forward\": {\"ns\": 1000}, \"input_grad\": {\"ns\": 0}, "    \
    "\"weight_grad\": {\"ns\": 1000, \"collective\": {\"type\": \"allreduce\", "                   \
    "\"size\": \"1MiB\"}}}]}}"

typedef struct job {
    const char *command, *request;
    char *out;
    int rc;
} job;

static void *run_job(void *arg) {
    job *j = arg;
    j->rc = th_api_call(j->command, j->request, NULL, NULL, &j->out);
    return NULL;
}

/* Calls in parallel threads give what the same calls give one after the other. */
START_TEST(test_api_threads) {
    job jobs[6] = {
        {"run", "{\"chunks\": 16}", NULL, 0},
        {"run", "{\"system\": " RING2 ", \"size\": 1000}", NULL, 0},
        {"train", WORKLOAD, NULL, 0},
        {"sweep", "{\"spec\": {\"name\": \"t\", \"axes\": {\"chunks\": [1, 2, 4, 8]}}}", NULL, 0},
        {"run", "{\"chunks\": 0}", NULL, 0},
        {"optimize", "{\"max_evals\": 20}", NULL, 0},
    };
    pthread_t t[6];
    for (int i = 0; i < 6; i++)
        ck_assert_int_eq(pthread_create(&t[i], NULL, run_job, &jobs[i]), 0);
    for (int i = 0; i < 6; i++)
        pthread_join(t[i], NULL);
    for (int i = 0; i < 6; i++) {
        char *alone = NULL;
        int rc = th_api_call(jobs[i].command, jobs[i].request, NULL, NULL, &alone);
        ck_assert_int_eq(jobs[i].rc, rc);
        ck_assert_msg(rc == (i == 4 ? TH_EINPUT : TH_OK), "%s: %s", jobs[i].command, alone);
        ck_assert_str_eq(jobs[i].out, alone);
        th_api_free(alone);
        th_api_free(jobs[i].out);
    }
}
END_TEST

/* The callback as train's and optimize's poll: called with no fields while they compute; a
 * non-zero return ends the call ("interrupted"), zero changes nothing in the result. */
typedef struct poller {
    int polls, stop_at, rows; /* stop_at 0: never */
} poller;

static int on_poll(void *ctx, size_t n, const char *const *fields) {
    poller *p = ctx;
    if (n || fields) p->rows++;
    return ++p->polls == p->stop_at;
}

START_TEST(test_api_poll) {
    const char *dir = getenv("THEMIS_SRCDIR");
    char train[1024], opt[1024];
    snprintf(train, sizeof train,
             "{\"workload\": \"%s/models/workloads/resnet50.json\", \"iterations\": 20, "
             "\"policy\": \"themis\", \"intra\": \"scf\"}",
             dir ? dir : ".");
    snprintf(opt, sizeof opt,
             "{\"workload\": \"%s/models/workloads/resnet50.json\", \"max_evals\": 4}",
             dir ? dir : ".");
    const char *commands[] = {"train", "optimize"}, *requests[] = {train, opt};
    for (int i = 0; i < 2; i++) {
        poller stop = {0, 1, 0}, never = {0, 0, 0};
        char *out = NULL;
        ck_assert_int_eq(th_api_call(commands[i], requests[i], on_poll, &stop, &out), TH_EINTERNAL);
        ck_assert_str_eq(out, "interrupted");
        ck_assert_int_eq(stop.polls, 1);
        th_api_free(out);
        char *alone = call(commands[i], requests[i], TH_OK);
        ck_assert_int_eq(th_api_call(commands[i], requests[i], on_poll, &never, &out), TH_OK);
        ck_assert_str_eq(out, alone);
        ck_assert_msg(never.polls > 0, "%s: never polled", commands[i]);
        ck_assert_int_eq(never.rows + stop.rows, 0);
        th_api_free(out);
        th_api_free(alone);
    }
}
END_TEST

Suite *api_suite(void) {
    Suite *s = suite_create("api");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_api_run_by_hand);
    tcase_add_test(tc, test_api_run_is_the_report);
    tcase_add_test(tc, test_api_sweep_rows);
    tcase_add_test(tc, test_api_errors);
    tcase_add_test(tc, test_api_threads);
    tcase_add_test(tc, test_api_poll);
    suite_add_tcase(s, tc);
    return s;
}

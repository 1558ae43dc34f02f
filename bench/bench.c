/* Benchmarks of the core: evaluations per second of a 4-dim All-Reduce, and a 1,000,000-chunk
 * run's time and peak memory. Prints its figures; the targets are in the issue tracker. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "themis/themis.h"

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* A heterogeneous 4-dim system: ring 4 x fc 8 x switch 8 x switch 4 (1024 NPUs). */
static void system_4d(th_system *sys) {
    static const char *json =
        "{\"name\": \"bench-4d\", \"dims\": ["
        "{\"topology\": \"ring\", \"npus\": 4, \"bw_GBps\": 250, \"latency_ns\": 20},"
        "{\"topology\": \"fc\", \"npus\": 8, \"bw_GBps\": 200, \"latency_ns\": 100},"
        "{\"topology\": \"switch\", \"npus\": 8, \"bw_GBps\": 100, \"latency_ns\": 500},"
        "{\"topology\": \"switch\", \"npus\": 4, \"bw_GBps\": 25, \"latency_ns\": 2000}]}";
    th_error err;
    if (th_system_parse(json, strlen(json), "bench-4d", sys, &err)) {
        fprintf(stderr, "bench: %s\n", err.msg);
        exit(1);
    }
}

static void bench_eval(const th_system *sys, th_runner *r, th_pair pair, const char *label) {
    th_collective coll = {TH_COLL_ALLREDUCE, 1073741824.0, 64, 0};
    th_result res;
    th_error err;
    long n = 0;
    double t0 = now_s(), t;
    do {
        for (int i = 0; i < 200; i++, n++)
            if (th_run_eval(r, sys, &coll, pair, TH_LOAD_ALPHA_BETA, NULL, NULL, &res, &err)) {
                fprintf(stderr, "bench: %s\n", err.msg);
                exit(1);
            }
        t = now_s() - t0;
    } while (t < 1.0);
    printf("%-44s %10.0f evaluations/s  %7.1f ns per stage event  (target >= 20000/s)\n", label,
           (double)n / t, t * 1e9 / ((double)n * (double)res.stages));
}

static void bench_million(const th_system *sys, th_runner *r) {
    th_collective coll = {TH_COLL_ALLREDUCE, 1073741824.0, 1000000, 0};
    th_pair pair = {TH_POLICY_THEMIS, TH_INTRA_SCF};
    th_result res;
    th_error err;
    double t0 = now_s();
    if (th_run_eval(r, sys, &coll, pair, TH_LOAD_ALPHA_BETA, NULL, NULL, &res, &err)) {
        fprintf(stderr, "bench: %s\n", err.msg);
        exit(1);
    }
    double t = now_s() - t0;
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("%-44s %10.3f s  %7.1f ns per stage event  peak RSS %.1f MiB  (target < 3 s, "
           "< 1 GiB)\n",
           "1,000,000 chunks, 4-dim AR, themis+scf", t, t * 1e9 / (double)res.stages,
           (double)ru.ru_maxrss / 1024.0);
}

int main(void) {
    th_system sys;
    system_4d(&sys);
    th_runner *r = th_runner_create();
    if (!r) return 1;
    printf("themis %s benchmarks (one core)\n", TH_VERSION);
    bench_eval(&sys, r, (th_pair){TH_POLICY_THEMIS, TH_INTRA_SCF},
               "4-dim AR 1 GiB, 64 chunks, themis+scf");
    bench_eval(&sys, r, (th_pair){TH_POLICY_BASELINE, TH_INTRA_FIFO},
               "4-dim AR 1 GiB, 64 chunks, baseline+fifo");
    bench_million(&sys, r);
    th_runner_free(r);
    return 0;
}

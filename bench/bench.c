/* Benchmarks of the core: evaluations per second of a 4-dim All-Reduce, and a 1,000,000-chunk
 * run's time and peak memory. Prints its figures; the targets are in the issue tracker. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "themis/sweep.h"
#include "themis/themis.h"
#include "themis/train.h"

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

/* A sweep of 3-dim All-Reduce points with 64 chunks on the default system: 4 policies x
 * intra pairs x bandwidth x size values. */
static const char *sweep_spec =
    "{\"name\": \"bench\", \"collective\": {\"type\": \"allreduce\", \"chunks\": 64},"
    " \"axes\": {\"dims[2].bw_GBps\": {\"from\": 10, \"to\": %d, \"step\": 1},"
    " \"size\": [\"1MiB\", \"64MiB\", \"1GiB\"], \"policy\": [\"baseline\", \"themis\"],"
    " \"intra\": [\"fifo\", \"scf\"]}}";

/* Runs a sweep into /dev/null with `threads`; returns points per second. */
static double run_sweep(int top, int threads, int64_t *points) {
    char json[1024];
    snprintf(json, sizeof json, sweep_spec, top);
    th_sweep *sw;
    th_error err;
    if (th_sweep_parse(json, strlen(json), "bench", ".", &sw, &err)) {
        fprintf(stderr, "bench: %s\n", err.msg);
        exit(1);
    }
    int fd = open("/dev/null", O_WRONLY);
    th_sweep_opts o = {threads, {0, 1}, 0, fd, NULL, NULL, NULL};
    int64_t done;
    double t0 = now_s();
    if (th_sweep_run(sw, &o, &done, &err)) {
        fprintf(stderr, "bench: %s\n", err.msg);
        exit(1);
    }
    double t = now_s() - t0;
    close(fd);
    *points = th_sweep_points(sw);
    th_sweep_free(sw);
    return (double)done / t;
}

static void bench_sweep(void) {
    int64_t n;
    double one = run_sweep(2509, 1, &n); /* 2500 x 3 x 2 x 2 = 30,000 points */
    printf("%-44s %10.0f points/s  (%lld points; target >= 10000/s per core)\n",
           "sweep, 3-dim AR 64 chunks, -j 1", one, (long long)n);
    double two = run_sweep(2509, 2, &n);
    printf("%-44s %10.0f points/s  (%.2fx of -j 1)\n", "sweep, 3-dim AR 64 chunks, -j 2", two,
           two / one);
}

/* A 1,000,000-point sweep in a child process, to read its own peak memory. */
static void bench_sweep_memory(void) {
    double t0 = now_s();
    pid_t pid = fork();
    if (pid == 0) {
        int64_t n;
        run_sweep(83342, 2, &n); /* 83333 x 12 = 999,996 points */
        _exit(0);
    }
    int status;
    struct rusage ru;
    if (pid < 0 || waitpid(pid, &status, 0) < 0 || getrusage(RUSAGE_CHILDREN, &ru) ||
        !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "bench: the sweep child failed\n");
        exit(1);
    }
    printf("%-44s %10.3f s  peak RSS %.1f MiB  (target < 100 MiB)\n",
           "sweep of 999,996 points, -j 2", now_s() - t0, (double)ru.ru_maxrss / 1024.0);
}

/* The astra-sim preset: a 1 GiB, 64-chunk All-Reduce on the reference 3-D system. */
static void bench_astra(th_runner *r) {
    static const char *json =
        "{\"name\": \"astra-3d\", \"model\": \"astra-sim\", \"endpoint_ns\": 10,"
        " \"local_mem_GBps\": 1600, \"dims\": ["
        "{\"topology\": \"ring\", \"npus\": 4, \"bw_GBps\": 200, \"latency_ns\": 50},"
        "{\"topology\": \"fc\", \"npus\": 4, \"bw_GBps\": 100, \"latency_ns\": 100},"
        "{\"topology\": \"switch\", \"npus\": 4, \"bw_GBps\": 50, \"latency_ns\": 100}]}";
    th_system sys;
    th_error err;
    if (th_system_parse(json, strlen(json), "astra-3d", &sys, &err)) {
        fprintf(stderr, "bench: %s\n", err.msg);
        exit(1);
    }
    th_collective coll = {TH_COLL_ALLREDUCE, 1073741824.0, 64, 0};
    th_pair pair = {TH_POLICY_THEMIS, TH_INTRA_SCF};
    th_result res;
    long n = 0;
    double t0 = now_s(), t;
    do {
        for (int i = 0; i < 200; i++, n++)
            if (th_run_eval(r, &sys, &coll, pair, TH_LOAD_ALPHA_BETA, NULL, NULL, &res, &err)) {
                fprintf(stderr, "bench: %s\n", err.msg);
                exit(1);
            }
        t = now_s() - t0;
    } while (t < 1.0);
    printf("%-44s %10.2f us per evaluation (%.0f/s)\n",
           "astra-sim preset, 3-dim AR 1 GiB 64 chunks", t * 1e6 / (double)n, (double)n / t);
}

/* Transformer-1T: every policy pair and the ideal network, one iteration replay each. */
static void bench_train(const th_system *sys) {
    th_workload *wl;
    th_error err;
    if (th_workload_load("models/workloads/transformer-1t.json", &wl, &err)) {
        fprintf(stderr, "bench: %s\n", err.msg);
        exit(1);
    }
    int ncolls = 0;
    double t0 = now_s();
    for (int p = 0; p < 5; p++)
        for (int q = 0; q < 2; q++) {
            if (p == 4 && q == 1) continue;
            th_train_opts o = {0};
            o.policy = (th_policy)p; /* baseline .. themis-global, then the ideal network */
            o.intra = (th_intra)q;
            o.priority = TH_PRIO_LIFO, o.iterations = 3;
            th_train_result r;
            if (th_train_run(sys, wl, &o, NULL, NULL, &r, &err)) {
                fprintf(stderr, "bench: %s\n", err.msg);
                exit(1);
            }
            ncolls = r.ncolls;
            th_train_result_free(&r);
        }
    printf("%-44s %10.3f s  (%d layers, %d collectives per iteration, 3 iterations, 9 runs; "
           "target < 1 s)\n",
           "Transformer-1T, 4-dim, every policy + ideal", now_s() - t0, wl->nlayers, ncolls);
    th_workload_free(wl);
}

int main(void) {
    th_system sys;
    system_4d(&sys);
    printf("themis %s benchmarks\n", TH_VERSION);
    fflush(stdout);
    bench_sweep_memory(); /* first, so the child starts from a small process */
    th_runner *r = th_runner_create();
    if (!r) return 1;
    bench_eval(&sys, r, (th_pair){TH_POLICY_THEMIS, TH_INTRA_SCF},
               "4-dim AR 1 GiB, 64 chunks, themis+scf");
    bench_eval(&sys, r, (th_pair){TH_POLICY_BASELINE, TH_INTRA_FIFO},
               "4-dim AR 1 GiB, 64 chunks, baseline+fifo");
    bench_million(&sys, r);
    bench_sweep();
    bench_astra(r);
    bench_train(&sys);
    th_runner_free(r);
    return 0;
}

/* Benchmarks of the core against its performance targets (docs/PERFORMANCE.md): medians of repeated
 * runs (the machine is shared and noisy), each line flagged met or MISSED, and with --compare FILE
 * a ratio to the same figure saved by an earlier build (--save FILE). Exit status 0 whatever is
 * missed: the figures are for people, not for make check. */
#define _DEFAULT_SOURCE /* wait4: a child's own peak RSS and CPU time */
#include <fcntl.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../src/chakra/chakra.h"
#include "../src/model.h"
#include "chakra/et_def.pb-c.h"
#include "themis/astra1_workload.h"
#include "themis/llm_search.h"
#include "themis/sweep.h"
#include "themis/themis.h"
#include "themis/train.h"

static int runs = 5;    /* repetitions of each figure; BENCH_RUNS overrides */
static int specs_only;  /* --specs: only the sweeps/ figures */
static int train_only;  /* --train: only the training figures */
static int search_only; /* --search: only the LLM search figures */
static FILE *save;      /* --save: "key value" lines */
static char compare[4096];

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double cpu_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void die(const th_error *err) {
    fprintf(stderr, "bench: %s\n", err->msg);
    exit(1);
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* One line: the figure, its target (met when value <= target, or >= when `at_least`), the
 * ratio to the compared build's figure of the same key. */
static void line(const char *key, const char *label, double value, const char *unit, double target,
                 int at_least) {
    int met = at_least ? value >= target : value <= target;
    if (target < 0) /* no target: compared with before only */
        printf("%-58s %12.4g %-12s %-25s", label, value, unit, "(no target)");
    else
        printf("%-58s %12.4g %-12s target %s %-8g %s", label, value, unit,
               at_least ? ">=" : "<=", target, met ? "met   " : "MISSED");
    const char *p = compare;
    size_t k = strlen(key);
    while ((p = strstr(p, key)) != NULL) {
        if ((p == compare || p[-1] == '\n') && p[k] == ' ') {
            double before = strtod(p + k + 1, NULL);
            if (before > 0) printf("  %.2fx of before (%.4g)", value / before, before);
            break;
        }
        p += k;
    }
    printf("\n");
    fflush(stdout);
    if (save) fprintf(save, "%s %.17g\n", key, value);
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
    if (th_system_parse(json, strlen(json), "bench-4d", sys, &err)) die(&err);
}

/* Microseconds of CPU per evaluation of a 1 GiB All-Reduce in `chunks` chunks: the median of
 * `runs` runs of at least 0.2 s each. */
static double eval_us(const th_system *sys, th_runner *r, th_pair pair, int64_t chunks) {
    th_collective coll = {TH_COLL_ALLREDUCE, 1073741824.0, chunks, 0};
    th_result res;
    th_error err;
    double v[64];
    for (int k = 0; k < runs; k++) {
        long n = 0;
        double t0 = cpu_s(), t;
        do {
            for (int i = 0; i < 100; i++, n++)
                if (th_run_eval(r, sys, &coll, pair, TH_LOAD_ALPHA_BETA, NULL, NULL, &res, &err))
                    die(&err);
            t = cpu_s() - t0;
        } while (t < 0.2);
        v[k] = t * 1e6 / (double)n;
    }
    return median(v, runs);
}

/* The what-if tools (docs/WHATIF.md) on the default system (1 GiB All-Reduce, 64 chunks): one
 * bound, one lp evaluation, one optimize of Themis + SCF; CPU ms per call, medians of `runs`. */
static void bench_whatif(th_runner *r) {
    th_system sys;
    th_system_default(&sys);
    th_collective coll = {TH_COLL_ALLREDUCE, 1073741824.0, 64, 0};
    th_opt_opts o = {.pair = {TH_POLICY_THEMIS, TH_INTRA_SCF}};
    static const char *const keys[] = {"bound_ms", "lp_ms", "optimize_ms"};
    static const char *const labels[] = {"bound: default-3d AR 1 GiB, 64 chunks",
                                         "lp+scf evaluation: default-3d AR 1 GiB, 64 chunks",
                                         "optimize themis+scf: default-3d AR 1 GiB, 64 chunks"};
    for (int which = 0; which < 3; which++) {
        double v[64];
        for (int k = 0; k < runs; k++) {
            long n = 0;
            double t0 = cpu_s(), t;
            do {
                th_error err;
                th_bound b;
                th_result res;
                th_opt_result opt;
                int rc = which == 0 ? th_bound_eval(&sys, &coll, TH_BOUND_AUTO, &b, &err)
                         : which == 1
                             ? th_run_eval(r, &sys, &coll, (th_pair){TH_POLICY_LP, TH_INTRA_SCF},
                                           TH_LOAD_ALPHA_BETA, NULL, NULL, &res, &err)
                             : th_opt_bandwidth(&sys, &coll, &o, &opt, &err);
                if (rc) die(&err);
                n++;
                t = cpu_s() - t0;
            } while (t < 0.2);
            v[k] = t * 1e3 / (double)n;
        }
        line(keys[which], labels[which], median(v, runs), "ms", -1, 0);
    }
}

/* Runs fn in a child process; returns its peak RSS in MiB (and the child's CPU seconds). */
static double in_child(void (*fn)(void *), void *arg, double *cpu) {
    pid_t pid = fork();
    if (pid == 0) {
        fn(arg);
        _exit(0);
    }
    int status;
    struct rusage ru;
    if (pid < 0 || wait4(pid, &status, 0, &ru) < 0 || !WIFEXITED(status) ||
        WEXITSTATUS(status) != 0) {
        fprintf(stderr, "bench: a child failed\n");
        exit(1);
    }
    if (cpu)
        *cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
               (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
    return (double)ru.ru_maxrss / 1024.0;
}

static const th_system *million_sys;

static void million(void *arg) {
    th_runner *r = th_runner_create();
    th_collective coll = {TH_COLL_ALLREDUCE, 1073741824.0, 1000000, 0};
    th_result res;
    th_error err;
    (void)arg;
    if (!r || th_run_eval(r, million_sys, &coll, (th_pair){TH_POLICY_THEMIS, TH_INTRA_SCF},
                          TH_LOAD_ALPHA_BETA, NULL, NULL, &res, &err))
        _exit(1);
    th_runner_free(r);
}

static void bench_million(const th_system *sys) {
    double v[64], peak = 0;
    million_sys = sys;
    for (int k = 0; k < runs; k++) {
        double p = in_child(million, NULL, &v[k]);
        if (p > peak) peak = p;
    }
    line("million_s", "1,000,000 chunks, 4-dim AR, themis+scf", median(v, runs), "s CPU", 0.5, 0);
    line("million_mib", "1,000,000 chunks: peak RSS", peak, "MiB", 100, 0);
}

/* The bench spec: 3-dim All-Reduce points with 64 chunks on the default system: bandwidth x
 * size x policy x intra. */
static const char *sweep_spec =
    "{\"name\": \"bench\", \"collective\": {\"type\": \"allreduce\", \"chunks\": 64},"
    " \"axes\": {\"dims[2].bw_GBps\": {\"from\": 10, \"to\": %d, \"step\": 1},"
    " \"size\": [\"1MiB\", \"64MiB\", \"1GiB\"], \"policy\": [\"baseline\", \"themis\"],"
    " \"intra\": [\"fifo\", \"scf\"]}}";

/* Runs a sweep with `threads` into fd; returns the points and the wall and CPU seconds. */
static int64_t run_sweep(const th_sweep *sw, int threads, int fd, double *wall, double *cpu) {
    th_sweep_opts o = {threads, {0, 1}, 0, fd, NULL, NULL, NULL};
    int64_t done;
    th_error err;
    double t0 = now_s(), c0 = cpu_s();
    if (th_sweep_run(sw, &o, &done, &err)) die(&err);
    *wall = now_s() - t0;
    *cpu = cpu_s() - c0;
    return done;
}

/* Bytes of a file, for comparing outputs. */
static char *slurp(int fd, size_t *n) {
    off_t len = lseek(fd, 0, SEEK_END);
    char *p = malloc((size_t)len + 1);
    if (!p || pread(fd, p, (size_t)len, 0) != len) exit(1);
    *n = (size_t)len;
    return p;
}

static void bench_sweep(void) {
    char json[1024];
    snprintf(json, sizeof json, sweep_spec, 1259); /* 1250 x 3 x 2 x 2 = 15,000 points */
    th_sweep *sw;
    th_error err;
    if (th_sweep_parse(json, strlen(json), "bench", ".", &sw, &err)) die(&err);
    double v[64], s[64], wall, cpu;
    int64_t n = 0;
    char path[2][64] = {"/tmp/themis-bench-XXXXXX", "/tmp/themis-bench-XXXXXX"};
    int fd[2] = {mkstemp(path[0]), mkstemp(path[1])};
    if (fd[0] < 0 || fd[1] < 0) exit(1);
    unlink(path[0]), unlink(path[1]);
    for (int k = 0; k < runs; k++) {
        for (int j = 0; j < 2; j++)
            if (ftruncate(fd[j], 0) || lseek(fd[j], 0, SEEK_SET)) exit(1);
        n = run_sweep(sw, 1, fd[0], &wall, &cpu);
        v[k] = (double)n / cpu;
        double wall1 = wall;
        run_sweep(sw, 2, fd[1], &wall, &cpu);
        s[k] = wall1 / wall;
    }
    size_t la, lb;
    char *a = slurp(fd[0], &la), *b = slurp(fd[1], &lb);
    int same = la == lb && memcmp(a, b, la) == 0;
    free(a), free(b);
    close(fd[0]), close(fd[1]);
    char label[128];
    snprintf(label, sizeof label, "sweep, 3-dim AR 64 chunks (%lld points), -j 1", (long long)n);
    line("sweep_pps", label, median(v, runs), "points/CPU-s", 80000, 1);
    line("sweep_j2", "sweep, the same, -j 2 over -j 1 (wall)", median(s, runs), "x", 1.8, 1);
    line("sweep_same", "sweep, -j 1 and -j 2 bytes identical", same, "(1 = yes)", 1, 1);
    th_sweep_free(sw);
}

/* Every spec of sweeps/: the wall-time speedup of -j 2 over -j 1. A spec that runs in under
 * 50 ms is run n times per figure (-j 1 and -j 2 in turn, n from a first -j 1 run), so that
 * each figure is the ratio of at least 50 ms of -j 1 to the same runs at -j 2. */
static void bench_specs(void) {
    glob_t g;
    if (glob("sweeps/*.json", 0, NULL, &g) != 0) {
        printf("(no sweeps/*.json here: run from the source tree)\n");
        return;
    }
    int fd = open("/dev/null", O_WRONLY);
    for (size_t i = 0; i < g.gl_pathc; i++) {
        th_sweep *sw;
        th_error err;
        if (th_sweep_load(g.gl_pathv[i], &sw, &err)) die(&err);
        double v[64], t1[64], w1, w2, cpu;
        run_sweep(sw, 1, fd, &w1, &cpu); /* also warms the caches of the files it reads */
        int n = w1 >= 0.05 ? 1 : w1 > 0.00005 ? (int)(0.05 / w1) + 1 : 1000;
        for (int k = 0; k < runs; k++) {
            double s1 = 0, s2 = 0;
            for (int j = 0; j < n; j++) {
                run_sweep(sw, 1, fd, &w1, &cpu);
                run_sweep(sw, 2, fd, &w2, &cpu);
                s1 += w1, s2 += w2;
            }
            v[k] = s1 / s2;
            t1[k] = s1 / n;
        }
        char key[256], label[256];
        snprintf(key, sizeof key, "spec_j2_%s", th_sweep_name(sw));
        double ratio = median(v, runs);
        snprintf(label, sizeof label, "%s (%lld points, %.2g ms), -j 2 over -j 1", g.gl_pathv[i],
                 (long long)th_sweep_points(sw), median(t1, runs) * 1e3);
        line(key, label, ratio, "x", 1.8, 1);
        th_sweep_free(sw);
    }
    close(fd);
    globfree(&g);
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
    if (th_system_parse(json, strlen(json), "astra-3d", &sys, &err)) die(&err);
    double us = eval_us(&sys, r, (th_pair){TH_POLICY_THEMIS, TH_INTRA_SCF}, 64);
    line("astra_us", "astra-sim preset, 3-dim AR 1 GiB 64 chunks", us, "us", -1, 0);
}

/* ASTRA-sim 1.0's tutorial system (astra-sim/tutorials asplos2023, exercise 3) under the
 * astra-sim-1.0 preset: a 3-D switch 8 x 8 x 8 (512 NPUs), 50 GB/s, 1 ns links, endpoint 10,
 * halvingDoubling. */
static void tutorial_system(th_system *sys) {
    static const char *dim = "{\"topology\": \"switch\", \"npus\": 8, \"bw_GBps\": 50, "
                             "\"latency_ns\": 1, \"links\": 1, \"allreduce\": \"halvingDoubling\"}";
    char json[1024];
    snprintf(json, sizeof json,
             "{\"name\": \"tutorial\", \"model\": \"astra-sim-1.0\", \"endpoint_ns\": 10, "
             "\"boost_mode\": 1, \"dims\": [%s, %s, %s]}",
             dim, dim, dim);
    th_error err;
    if (th_system_parse(json, strlen(json), "tutorial", sys, &err)) die(&err);
}

/* The tutorial's case: a 1 GiB All-Reduce in 64 chunks, Themis + SCF. ASTRA-sim 1.0 takes about
 * 0.3 s for it: the target. Then one ResNet-50 iteration (models/workloads/astra/resnet50.txt,
 * the 1.0 text form of our ResNet-50) replayed through ASTRA-sim 1.0's state machine on the same
 * 512 NPUs, 64 chunks per collective, Themis + FIFO (with SCF the preset refuses it: ties whose
 * order ASTRA-sim's NPUs decide, docs/VALIDATION.md): ASTRA-sim 1.0 takes about 100 s for a
 * ResNet-50 iteration. */
static void bench_astra1(th_runner *r) {
    th_system sys;
    tutorial_system(&sys);
    double us = eval_us(&sys, r, (th_pair){TH_POLICY_THEMIS, TH_INTRA_SCF}, 64);
    line("astra1_tutorial_us", "astra-sim-1.0 preset, tutorial 3-D switch AR 1 GiB 64 chunks", us,
         "us", 300000, 0);
    static const char *path = "models/workloads/astra/resnet50.txt";
    th_a1_workload *wl;
    th_workload *json;
    th_error err;
    if (th_a1_load(path, &wl, &json, &err)) die(&err);
    if (!wl) {
        fprintf(stderr, "bench: %s is not a 1.0 text workload\n", path);
        exit(1);
    }
    th_a1_replay_opts o = {TH_POLICY_THEMIS, TH_INTRA_FIFO, TH_LOAD_ALPHA_BETA, 64, 1, 0,
                           {1, 1, 0},        NULL};
    double v[64];
    for (int k = 0; k < runs; k++) {
        th_a1_replay_result res;
        double t0 = cpu_s();
        if (th_a1_replay(&sys, wl, path, &o, &res, &err)) die(&err);
        v[k] = cpu_s() - t0;
        th_a1_replay_result_free(&res);
    }
    th_a1_free(wl);
    line("astra1_resnet50_s", "astra-sim-1.0 preset, ResNet-50 iteration, 512 NPUs, 64 chunks",
         median(v, runs), "s", 100, 0);
}

/* One length-delimited message of a Chakra trace. */
static void put_msg(FILE *f, const ProtobufCMessage *m) {
    size_t n = protobuf_c_message_get_packed_size(m);
    uint8_t *buf = malloc(n ? n : 1), v[10];
    if (!buf) exit(1);
    protobuf_c_message_pack(m, buf);
    int k = 0;
    for (uint64_t x = n; k == 0 || x; x >>= 7)
        v[k++] = (uint8_t)((x & 0x7f) | (x >> 7 ? 0x80 : 0));
    fwrite(v, 1, (size_t)k, f);
    fwrite(buf, 1, n, f);
    free(buf);
}

/* A ResNet-50-like data-parallel iteration as a Chakra trace of 64 NPUs in dir/resnet50.<k>.et,
 * from models/workloads/resnet50.json: the forward chain, then per layer from the last its
 * weight-gradient compute, the All-Reduce of its gradient and its input-gradient compute, each
 * backward node after the one before (ASTRA-sim's own ResNet-50 example graphs are built so). */
static void write_resnet50(const char *dir) {
    th_workload *wl;
    th_error err;
    if (th_workload_load("models/workloads/resnet50.json", &wl, &err)) die(&err);
    for (int rank = 0; rank < 64; rank++) {
        char path[256];
        snprintf(path, sizeof path, "%s/resnet50.%d.et", dir, rank);
        FILE *f = fopen(path, "wb");
        if (!f) exit(1);
        ChakraProtoMsg__GlobalMetadata md = CHAKRA_PROTO_MSG__GLOBAL_METADATA__INIT;
        md.version = "0.0.4";
        put_msg(f, &md.base);
        uint64_t id = 1000u * (uint64_t)rank, prev = 0;
        for (int pass = 0; pass < 2; pass++)
            for (int i = 0; i < wl->nlayers; i++) {
                int l = pass ? wl->nlayers - 1 - i : i;
                const th_wl_layer *ly = &wl->layers[l];
                for (int ph = 0; ph < (pass ? 3 : 1); ph++) {
                    int phase = pass ? (ph == 0   ? TH_PHASE_WG
                                        : ph == 1 ? -1
                                                  : TH_PHASE_IG)
                                     : TH_PHASE_FWD;
                    ChakraProtoMsg__Node x = CHAKRA_PROTO_MSG__NODE__INIT;
                    ChakraProtoMsg__AttributeProto a[2] = {CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__INIT,
                                                           CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__INIT};
                    ChakraProtoMsg__AttributeProto *ap[2] = {&a[0], &a[1]};
                    const th_wl_coll *c = &ly->ph[TH_PHASE_WG].coll;
                    if (phase < 0 && !c->present) continue;
                    x.id = ++id;
                    x.name = (char *)ly->name; /* protobuf-c does not write it */
                    x.n_data_deps = prev ? 1 : 0;
                    x.data_deps = &prev;
                    if (phase >= 0) {
                        x.type = CHAKRA_PROTO_MSG__NODE_TYPE__COMP_NODE;
                        x.duration_micros = (uint64_t)(ly->ph[phase].ns / 1000 + 0.5);
                    } else {
                        x.type = CHAKRA_PROTO_MSG__NODE_TYPE__COMM_COLL_NODE;
                        a[0].name = "comm_type";
                        a[0].value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT64_VAL;
                        a[0].int64_val = 0; /* ALL_REDUCE */
                        a[1].name = "comm_size";
                        a[1].value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT64_VAL;
                        a[1].int64_val = (int64_t)c->size;
                        x.n_attr = 2, x.attr = ap;
                    }
                    put_msg(f, &x.base);
                    /* the gradient's All-Reduce runs beside the backward pass: the next
                     * compute follows the weight gradient, not the All-Reduce */
                    if (phase != -1) prev = x.id;
                }
            }
        if (fclose(f)) exit(1);
    }
    th_workload_free(wl);
}

/* The replay of a 64-NPU ResNet-50-like Chakra trace (read, every rank compared, replayed once)
 * on a 3-D astra-sim system (Ring 4, FC 4, Switch 4), 16 chunks, Themis + SCF. ASTRA-sim 2.x
 * takes about 12 s and 140 MB for it: the target is 1000 times less, 12 ms. */
static void bench_chakra(void) {
    static const char *json =
        "{\"name\": \"astra-3d\", \"model\": \"astra-sim\", \"endpoint_ns\": 10,"
        " \"local_mem_GBps\": 1600, \"dims\": ["
        "{\"topology\": \"ring\", \"npus\": 4, \"bw_GBps\": 200, \"latency_ns\": 50},"
        "{\"topology\": \"fc\", \"npus\": 4, \"bw_GBps\": 100, \"latency_ns\": 100},"
        "{\"topology\": \"switch\", \"npus\": 4, \"bw_GBps\": 50, \"latency_ns\": 100}]}";
    th_system sys;
    th_error err;
    if (th_system_parse(json, strlen(json), "astra-3d", &sys, &err)) die(&err);
    char dir[] = "/tmp/themis-bench-XXXXXX", prefix[64];
    if (!mkdtemp(dir)) exit(1);
    write_resnet50(dir);
    snprintf(prefix, sizeof prefix, "%s/resnet50", dir);
    th_ck_opts o = {0};
    o.policy = TH_POLICY_THEMIS, o.intra = TH_INTRA_SCF, o.chunks = 16;
    double v[64], ns = 0;
    for (int k = 0; k < runs; k++) {
        double t0 = cpu_s();
        th_ck_trace *tr = NULL;
        if (th_ck_open(prefix, &tr, &err) != 1) die(&err);
        th_ck_result res;
        if (th_ck_replay(&sys, tr, &o, NULL, NULL, &res, &err)) die(&err);
        v[k] = (cpu_s() - t0) * 1000;
        ns = res.finish;
        th_ck_trace_free(tr);
    }
    /* the same trace replayed NPU by NPU, every event of every NPU (the fallback where the
     * replay does not know the NPUs' order, docs/CHAKRA.md): no target, its cost */
    double w[64], ns_npus = 0;
    int nw = runs < 5 ? runs : 5;
    th_ck_trace *tr = NULL;
    if (th_ck_open(prefix, &tr, &err) != 1) die(&err);
    for (int k = 0; k < nw; k++) {
        double t0 = cpu_s();
        th_ck_result res;
        int handled = 0;
        if (th_model_of(&sys)->graph->npus(&sys, tr, &o, NULL, NULL, &res, &handled, &err) ||
            !handled)
            die(&err);
        w[k] = cpu_s() - t0;
        ns_npus = res.finish;
    }
    th_ck_trace_free(tr);
    for (int rank = 0; rank < 64; rank++) {
        char path[128];
        snprintf(path, sizeof path, "%s.%d.et", prefix, rank);
        unlink(path);
    }
    rmdir(dir);
    char label[96];
    snprintf(label, sizeof label, "chakra: ResNet-50 trace, 64 NPUs, read + replay (%.0f us)",
             ns / 1000);
    line("chakra_resnet50_ms", label, median(v, runs), "ms", 12, 0);
    snprintf(label, sizeof label, "chakra: the same replayed NPU by NPU (%.0f us)", ns_npus / 1000);
    line("chakra_resnet50_npus_s", label, median(w, nw), "s", -1, 0);
}

static const th_system *train_sys;
static int train_iterations;

static void train(void *arg) {
    th_workload *wl;
    th_error err;
    (void)arg;
    if (th_workload_load("models/workloads/transformer-1t.json", &wl, &err)) die(&err);
    th_train_opts o = {0};
    o.policy = TH_POLICY_THEMIS, o.intra = TH_INTRA_SCF;
    o.priority = TH_PRIO_LIFO, o.iterations = train_iterations;
    th_train_result r;
    if (th_train_run(train_sys, wl, &o, NULL, NULL, &r, &err)) die(&err);
    th_train_result_free(&r);
    th_workload_free(wl);
}

static void bench_train(const th_system *sys) {
    if (access("models/workloads/transformer-1t.json", R_OK)) {
        printf("(no models/workloads/transformer-1t.json here: run from the source tree)\n");
        return;
    }
    train_sys = sys;
    double v[64], cpu, peak = 0;
    train_iterations = 10;
    for (int k = 0; k < runs; k++) {
        double p = in_child(train, NULL, &v[k]);
        if (p > peak) peak = p;
    }
    line("train10_s", "Transformer-1T, themis+scf, 10 iterations", median(v, runs), "s CPU", -1, 0);
    train_iterations = 1000;
    peak = in_child(train, NULL, &cpu);
    line("train1000_mib", "Transformer-1T, 1000 iterations: peak RSS", peak, "MiB", 50, 0);
}

/* A workload of n identical layers (docs/WORKLOADS.md): every layer computes and ends with a
 * non-blocking All-Reduce of its gradient, so the replay keeps up to n collectives in flight. */
static th_workload *many_layers(int n) {
    static const char layer[] = "{\"name\":\"l%d\",\"forward\":{\"ns\":8000},"
                                "\"input_grad\":{\"ns\":8000},\"weight_grad\":{\"ns\":8000,"
                                "\"collective\":{\"type\":\"allreduce\",\"size\":2e6}}}";
    size_t cap = 128 + (size_t)n * (sizeof layer + 16), len = 0;
    char *json = malloc(cap);
    if (!json) exit(1);
    len += (size_t)snprintf(
        json, cap,
        "{\"name\":\"layers%d\",\"parallelism\":\"data\",\"batch\":32,\"chunks\":4,"
        "\"layers\":[",
        n);
    for (int l = 0; l < n; l++)
        len += (size_t)snprintf(json + len, cap - len, layer, l), json[len++] = ',';
    json[len - 1] = ']', json[len++] = '}';
    th_workload *wl;
    th_error err;
    if (th_workload_parse(json, len, "layers.json", &wl, &err)) die(&err);
    free(json);
    return wl;
}

/* The replay of a training step of 100,000 layers, themis+scf under the default priority: its
 * cost grows as N log N in the collectives and layers (a scan or a copy per event over all of
 * them once made it quadratic: 38 s for 40,000 layers). */
static void bench_train_layers(const th_system *sys) {
    th_workload *wl = many_layers(100000);
    th_train_opts o = {0};
    o.policy = TH_POLICY_THEMIS, o.intra = TH_INTRA_SCF;
    o.priority = TH_PRIO_LIFO, o.iterations = 3;
    double v[64];
    th_error err;
    for (int k = 0; k < runs; k++) {
        th_train_result r;
        double t0 = cpu_s();
        if (th_train_run(sys, wl, &o, NULL, NULL, &r, &err)) die(&err);
        v[k] = cpu_s() - t0;
        th_train_result_free(&r);
    }
    th_workload_free(wl);
    line("train_layers100k_s", "100,000 layers, themis+scf, 3 iterations", median(v, runs), "s", 1,
         0);
}

/* The search over every execution of Megatron's 1T model (128 layers, hidden 25600, 160 heads)
 * on a DGX A100 cluster of 4096 NPUs at its published global batch of 3072 sequences
 * (Narayanan et al. 2021), themis + scf, the best 10 (docs/LLM.md, The search). */
static th_llm_search_result search_res;

static void search_1t(void *arg) {
    th_llm_workload w;
    th_system sys;
    th_run_defaults d;
    th_error err;
    int is_wl;
    (void)arg;
    if (th_llm_load_any("models/llm/megatron-1t.json", &w, &is_wl, &err) ||
        th_run_load_system("models/systems/dgx-a100.json", &sys, &d, &err))
        die(&err);
    th_llm_search_opts o = {0};
    o.base = w.exec;
    o.base.global_batch = 3072;
    o.policy = TH_POLICY_THEMIS, o.intra = TH_INTRA_SCF, o.top = 10;
    if (th_llm_search(&sys, &w.model, &o, &search_res, &err)) die(&err);
}

static void bench_search(void) {
    if (access("models/llm/megatron-1t.json", R_OK) ||
        access("models/systems/dgx-a100.json", R_OK)) {
        printf("(no models/llm/megatron-1t.json or models/systems/dgx-a100.json here: run from "
               "the source tree)\n");
        return;
    }
    double v[64];
    for (int k = 0; k < runs; k++)
        in_child(search_1t, NULL, &v[k]);
    line("search1t_s", "search: Megatron 1T on 4096 NPUs (dgx-a100), batch 3072", median(v, runs),
         "s CPU", 10, 0);
    search_1t(NULL); /* the counts, here */
    line("search1t_enumerated", "search: executions enumerated", search_res.enumerated, "", -1, 0);
    line("search1t_feasible", "search: ... that fit in memory", search_res.feasible, "", -1, 0);
    line("search1t_bounded", "search: ... bounded without the emulator's DP", search_res.bounded,
         "", -1, 0);
    line("search1t_evaluated", "search: ... timed (th_llm_eval)", search_res.evaluated, "", -1, 0);
    th_llm_search_result_free(&search_res);
}

/* --count CASE N: N evaluations of one case and nothing else, for
 * `valgrind --tool=callgrind --toggle-collect=th_run_eval`, whose instruction counts do not
 * vary from run to run as times do (docs/PERFORMANCE.md). */
static int count_case(const char *name, long n) {
    static const struct {
        const char *name;
        th_pair pair;
        int64_t chunks;
    } cases[] = {{"eval64", {TH_POLICY_THEMIS, TH_INTRA_SCF}, 64},
                 {"eval64_fifo", {TH_POLICY_BASELINE, TH_INTRA_FIFO}, 64},
                 {"eval1", {TH_POLICY_THEMIS, TH_INTRA_SCF}, 1},
                 {"million", {TH_POLICY_THEMIS, TH_INTRA_SCF}, 1000000}};
    th_system sys;
    system_4d(&sys);
    th_runner *r = th_runner_create();
    if (!r) return 1;
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        if (strcmp(name, cases[c].name)) continue;
        th_collective coll = {TH_COLL_ALLREDUCE, 1073741824.0, cases[c].chunks, 0};
        th_result res;
        th_error err;
        for (long i = 0; i < n; i++)
            if (th_run_eval(r, &sys, &coll, cases[c].pair, TH_LOAD_ALPHA_BETA, NULL, NULL, &res,
                            &err))
                die(&err);
        printf("%s: %ld evaluations, time %.17g ns\n", name, n, res.time);
        th_runner_free(r);
        return 0;
    }
    if (!strcmp(name, "sweep")) { /* the bench sweep, n values of dims[2].bw_GBps */
        char json[1024];
        snprintf(json, sizeof json, sweep_spec, 10 + (int)n - 1);
        th_sweep *sw;
        th_error err;
        if (th_sweep_parse(json, strlen(json), "bench", ".", &sw, &err)) die(&err);
        int fd = open("/dev/null", O_WRONLY);
        double wall, cpu;
        printf("sweep: %lld points\n", (long long)run_sweep(sw, 1, fd, &wall, &cpu));
        close(fd);
        th_sweep_free(sw);
        th_runner_free(r);
        return 0;
    }
    fprintf(stderr, "bench: --count takes eval64, eval64_fifo, eval1, million or sweep\n");
    th_runner_free(r);
    return 2;
}

int main(int argc, char **argv) {
    if (argc == 4 && !strcmp(argv[1], "--count")) return count_case(argv[2], atol(argv[3]));
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--save") && i + 1 < argc) {
            if (!(save = fopen(argv[++i], "w"))) return 1;
        } else if (!strcmp(argv[i], "--compare") && i + 1 < argc) {
            FILE *f = fopen(argv[++i], "r");
            if (f) {
                size_t n = fread(compare, 1, sizeof compare - 1, f);
                compare[n] = '\0';
                fclose(f);
            }
        } else if (!strcmp(argv[i], "--specs")) {
            specs_only = 1;
        } else if (!strcmp(argv[i], "--train")) {
            train_only = 1;
        } else if (!strcmp(argv[i], "--search")) {
            search_only = 1;
        } else {
            fprintf(stderr, "usage: bench_themis [--save FILE] [--compare FILE] [--specs | --train "
                            "| --search] | "
                            "--count CASE N\n");
            return 2;
        }
    }
    const char *e = getenv("BENCH_RUNS");
    if (e && atoi(e) >= 1 && atoi(e) <= 64) runs = atoi(e);
    th_system sys;
    system_4d(&sys);
    printf("themis %s benchmarks: medians of %d runs, CPU time unless marked wall\n", TH_VERSION,
           runs);
    double load[1];
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    if (getloadavg(load, 1) == 1 && load[0] > 0.5 * (double)cpus)
        printf("load average %.1f on %ld CPUs: the -j 2 wall-time ratios need idle cores and are "
               "not meaningful now\n",
               load[0], cpus);
    if (specs_only) { /* only the -j 2 ratios of sweeps/ */
        bench_specs();
        return 0;
    }
    if (search_only) { /* only the LLM search's figures */
        bench_search();
        return 0;
    }
    if (train_only) { /* only the training replay's figures */
        bench_train(&sys);
        bench_train_layers(&sys);
        return 0;
    }
    th_runner *r = th_runner_create();
    if (!r) return 1;
    double scf = eval_us(&sys, r, (th_pair){TH_POLICY_THEMIS, TH_INTRA_SCF}, 64);
    line("eval64_us", "4-dim AR 1 GiB, 64 chunks, themis+scf", scf, "us", 10, 0);
    line("eval64_fifo_us", "4-dim AR 1 GiB, 64 chunks, baseline+fifo",
         eval_us(&sys, r, (th_pair){TH_POLICY_BASELINE, TH_INTRA_FIFO}, 64), "us", scf, 0);
    line("eval1_us", "4-dim AR 1 GiB, 1 chunk, themis+scf",
         eval_us(&sys, r, (th_pair){TH_POLICY_THEMIS, TH_INTRA_SCF}, 1), "us", 0.3, 0);
    bench_million(&sys);
    bench_sweep();
    bench_specs();
    bench_astra(r);
    bench_astra1(r);
    bench_chakra();
    bench_train(&sys);
    bench_train_layers(&sys);
    bench_whatif(r);
    bench_search();
    th_runner_free(r);
    if (save) fclose(save);
    return 0;
}

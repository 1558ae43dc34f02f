/* Calibration: logs in the exact text format of nccl-tests and rccl-tests (and nccl-tests -J
 * JSON), generated here from known alpha-beta parameters, read back and fitted; every error of
 * the readers and the fit; the calibrate command end to end. */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "check_themis.h"

/* ---- the generator ---- */

/* What a generated log measured: time(m) = a_us + b_us * m (+ noise), sizes 2^kmin .. 2^kmax. */
typedef struct gen {
    const char *program; /* "all_reduce_perf", ...; NULL: an older log that does not name it */
    th_coll_type coll;   /* what the times model (bus bandwidth factor, counts) */
    int nranks;
    double a_us, b_us; /* the line, us and us per byte */
    double noise;      /* relative noise, uniform in [-noise, noise] */
    uint64_t seed;
    int kmin, kmax;
    int rccl;          /* the rccl-tests header (no groups, a version line) */
    int in_place_only; /* rccl-tests -O 0 */
    int per_iter;      /* nccl-tests -I 1: i_min, i_max, i_p99, i_cv% after each #wrong */
    int timestamps;    /* nccl-tests -S 1: a timestamp column at the end */
    int no_footer;     /* a log cut after its rows */
    double ll_below;   /* sizes below this follow another line (a low-latency protocol) */
    double ll_a_us, ll_b_us;
} gen;

/* The fixed pseudo-random sequence of the noise (a 64-bit LCG, Knuth's MMIX constants). */
static double uniform(uint64_t *x) {
    *x = *x * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(*x >> 11) * 0x1p-53;
}

/* nccl-tests' number cells: %W.2f if it fits the width, else %.1f, %.0f, then %.1e. */
static void cell(char *out, int w, double v) {
    char buf[64];
    const char *fmt[] = {"%*.2f", "%*.1f", "%*.0f"};
    for (int i = 0; i < 3; i++) {
        snprintf(buf, sizeof buf, fmt[i], w, v);
        if ((int)strlen(buf) <= w) {
            strcpy(out, buf);
            return;
        }
    }
    snprintf(out, 64, "%*.1e", w, v);
}

static void add(char **p, size_t *n, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(*p, *n, fmt, ap);
    va_end(ap);
    ck_assert(k >= 0 && (size_t)k < *n);
    *p += k, *n -= (size_t)k;
}

/* The text of the log (static buffer). */
static const char *gen_text(const gen *g) {
    static char text[65536];
    char *p = text;
    size_t n = sizeof text;
    uint64_t x = g->seed;
    if (g->program) {
        add(&p, &n, "# nccl-tests version 2.17.6 nccl-headers=22803 nccl-library=22803\n");
        add(&p, &n, "# Collective test starting: %s\n", g->program);
    }
    add(&p, &n,
        "# nThread 1 nGpus %d minBytes %.0f maxBytes %.0f step: 2(factor) warmup iters: 5 "
        "iters: 20 agg iters: 1 validation: 1 graph: 0\n#\n",
        g->nranks, ldexp(1, g->kmin), ldexp(1, g->kmax));
    if (g->rccl) add(&p, &n, "rccl-tests: Version develop:ae3e635\n");
    add(&p, &n, "# Using devices\n");
    for (int r = 0; r < g->nranks; r++) {
        if (g->rccl)
            add(&p, &n,
                "#   Rank %2d Pid %6d on %10s device %2d [0000:%02x:00.0] AMD Instinct MI300X\n", r,
                4100 + r, "node-a", r, 0x10 + r);
        else
            add(&p, &n,
                "#  Rank %2d Group %2d Pid %6d on %10s device %2d [%04x:%02x:%02x] NVIDIA H100 "
                "80GB "
                "HBM3\n",
                r, 0, 4100 + r, "node-a", r, 0, 0x10 + r, 0);
    }
    add(&p, &n, "NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>\n#\n");
    const char *title =
        g->in_place_only ? "in-place" : "out-of-place                       in-place";
    add(&p, &n, "# %10s  %12s  %8s  %6s  %6s           %s          \n", "", "", "", "", "", title);
    add(&p, &n, "# %10s  %12s  %8s  %6s  %6s", "size", "count", "type", "redop", "root");
    for (int s = g->in_place_only; s < 2; s++) {
        add(&p, &n, "  %7s  %6s  %6s  %6s", "time", "algbw", "busbw", "#wrong");
        if (g->per_iter) add(&p, &n, "  %7s  %7s  %7s  %7s", "i_min", "i_max", "i_p99", "i_cv%");
    }
    if (g->timestamps) add(&p, &n, " %19s", "timestamp");
    add(&p, &n, "\n# %10s  %12s  %8s  %6s  %6s", "(B)", "(elements)", "", "", "");
    for (int s = g->in_place_only; s < 2; s++) {
        add(&p, &n, "  %7s  %6s  %6s  %6s", "(us)", "(GB/s)", "(GB/s)", "");
        if (g->per_iter) add(&p, &n, "  %7s  %7s  %7s  %7s", "(us)", "(us)", "(us)", "(%)");
    }
    if (g->timestamps) add(&p, &n, " %19s", "%Y-%m-%d %H:%M:%S");
    add(&p, &n, "\n");
    double q = (g->nranks - 1.0) / g->nranks;
    double factor = g->coll == TH_COLL_ALLREDUCE ? 2 * q : q;
    int rooted = g->coll == TH_COLL_ALLREDUCE || g->coll == TH_COLL_REDUCESCATTER;
    double bus_sum = 0;
    int bus_n = 0;
    for (int k = g->kmin; k <= g->kmax; k++) {
        double m = ldexp(1, k);
        double count = g->coll == TH_COLL_ALLREDUCE ? m / 4 : m / 4 / g->nranks;
        add(&p, &n, "%12.0f  %12.0f  %8s  %6s  %6s", m, count, "float", rooted ? "sum" : "none",
            "-1");
        for (int s = g->in_place_only; s < 2; s++) {
            double t = m < g->ll_below ? g->ll_a_us + g->ll_b_us * m : g->a_us + g->b_us * m;
            t *= 1 + g->noise * (2 * uniform(&x) - 1);
            double algbw = m / 1e9 / (t * 1e-6);
            char ct[64], ca[64], cb[64];
            cell(ct, 7, t), cell(ca, 6, algbw), cell(cb, 6, algbw * factor);
            add(&p, &n, "  %7s  %6s  %6s  %6g", ct, ca, cb, 0.0);
            bus_sum += algbw * factor, bus_n++;
            if (g->per_iter) {
                char c1[64], c2[64];
                cell(c1, 7, 0.97 * t), cell(c2, 7, 1.05 * t);
                add(&p, &n, "  %7s  %7s  %7s  %7s", c1, c2, c2, "   1.20");
            }
        }
        if (g->timestamps) add(&p, &n, "%21s", "2026-01-05 10:00:00");
        add(&p, &n, "\n");
    }
    if (!g->no_footer) {
        add(&p, &n, "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : %g \n#\n",
            bus_sum / bus_n);
        if (g->program) add(&p, &n, "# Collective test concluded: %s\n", g->program);
    }
    return text;
}

static int parse(const char *text, th_cal_log *log, th_error *err) {
    return th_cal_log_parse(text, strlen(text), "x.log", log, err);
}

static th_dim dim_of(th_topology t, th_algorithm a, int64_t p) {
    th_dim d;
    memset(&d, 0, sizeof d);
    d.topology = t, d.algorithm = a, d.npus = p, d.efficiency = 1;
    return d;
}

static th_cal_opts opts(void) {
    th_cal_opts o;
    memset(&o, 0, sizeof o);
    o.tolerance = 0.1;
    return o;
}

/* Fits one generated log on dim d; fails the test on an error. */
static th_cal_fit fit_one(const gen *g, const th_dim *d, const th_cal_opts *o) {
    th_cal_log log;
    th_error err = {0};
    ck_assert_msg(parse(gen_text(g), &log, &err) == 0, "%s", err.msg);
    th_coll_type c;
    ck_assert_msg(th_cal_collective(&log, -1, (int)d->npus, &c, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(c, g->coll);
    th_cal_fit f;
    ck_assert_msg(th_cal_fit_logs(&log, &c, 1, d, o, &f, &err) == 0, "%s", err.msg);
    th_cal_log_free(&log);
    return f;
}

/* The exact case. All-Reduce on a switch dim of p = 8 under rhd: L = 2 s(8) = 6 hops.
 * alpha = 500 ns, B = 28.672 GB/s: a = 2 L alpha = 6000 ns = 6 us and
 * b = 2 (7/8) / 28.672 = 0.06103515625 ns per byte = 2^-14 us per byte, so at the sizes 2^14 ..
 * 2^27 the times 6 + 2^(k-14) us (7, 8, 10, ..., 8198) print exactly with two decimals. */
static const gen exact_ar = {.program = "all_reduce_perf",
                             .coll = TH_COLL_ALLREDUCE,
                             .nranks = 8,
                             .a_us = 6.0,
                             .b_us = 0x1p-14,
                             .seed = 1,
                             .kmin = 14,
                             .kmax = 27};

/* tests/data/calibrate/allreduce-8.log (docs/CALIBRATE.md): All-Reduce on a switch dim of 8
 * under rhd (L = 6), alpha = 700 ns, B = 150 GB/s: a = 2 * 6 * 700 = 8400 ns = 8.4 us,
 * b = 1.75 / 150 ns/B = 1.75 / 150e3 us/B; sizes 1 KiB .. 1 GiB, 2% noise, and below 64 KiB a
 * low-latency protocol's line (5 us + 4 b m) that the model does not follow. */
static const gen sample = {.program = "all_reduce_perf",
                           .coll = TH_COLL_ALLREDUCE,
                           .nranks = 8,
                           .a_us = 8.4,
                           .b_us = 1.75 / 150e3,
                           .noise = 0.02,
                           .seed = 2026,
                           .kmin = 10,
                           .kmax = 30,
                           .ll_below = 65536,
                           .ll_a_us = 5.0,
                           .ll_b_us = 4 * 1.75 / 150e3};

START_TEST(test_exact_recovery) {
    th_dim d = dim_of(TH_TOPO_SWITCH, TH_ALG_RHD, 8);
    th_cal_opts o = opts();
    th_cal_fit f = fit_one(&exact_ar, &d, &o);
    ck_assert_rel(f.alpha_ns, 500.0);
    ck_assert_rel(f.bw, 28.672);
    ck_assert_int_eq(f.nused, 14);
    ck_assert_int_eq(f.nflagged, 0);
    ck_assert_int_eq(f.clamped, 0);
    ck_assert(f.r2 > 1 - 1e-12);
    ck_assert(f.rms_rel < 1e-12);
    /* the first point: 16384 B measured 7 us = 7000 ns, fitted the same */
    ck_assert_int_eq(f.points[0].line, 19); /* after 18 header lines (see test_log_errors) */
    ck_assert_rel(f.points[0].time_ns, 7000.0);
    ck_assert_rel(f.points[0].fit_ns, 7000.0);
    th_cal_fit_free(&f);
}
END_TEST

/* The same line read as a Reduce-Scatter (k = 1): a = L alpha and b = (7/8) / B, so
 * alpha = 6000 / 6 = 1000 ns and B = 0.875 / 0.06103515625 = 14.336 GB/s. */
START_TEST(test_exact_other_collectives) {
    gen g = exact_ar;
    g.program = "reduce_scatter_perf", g.coll = TH_COLL_REDUCESCATTER;
    th_dim d = dim_of(TH_TOPO_SWITCH, TH_ALG_RHD, 8);
    th_cal_opts o = opts();
    th_cal_fit f = fit_one(&g, &d, &o);
    ck_assert_rel(f.alpha_ns, 1000.0);
    ck_assert_rel(f.bw, 14.336);
    th_cal_fit_free(&f);
    /* All-Gather on a ring of 8 (L = 7): alpha = 6000 / 7 ns, B = 14.336 */
    g.program = "all_gather_perf", g.coll = TH_COLL_ALLGATHER;
    d = dim_of(TH_TOPO_RING, TH_ALG_RING, 8);
    f = fit_one(&g, &d, &o);
    ck_assert_rel(f.alpha_ns, 6000.0 / 7);
    ck_assert_rel(f.bw, 14.336);
    th_cal_fit_free(&f);
    /* All-to-All on fc direct (L = 1): alpha = 6000 ns */
    g.program = "alltoall_perf_mpi", g.coll = TH_COLL_ALLTOALL;
    d = dim_of(TH_TOPO_FC, TH_ALG_DIRECT, 8);
    f = fit_one(&g, &d, &o);
    ck_assert_rel(f.alpha_ns, 6000.0);
    ck_assert_rel(f.bw, 14.336);
    th_cal_fit_free(&f);
}
END_TEST

/* Noise. All-Reduce, switch rhd p = 8 (L = 6), alpha = 2000 ns, B = 40 GB/s: a = 24000 ns,
 * b = 1.75 / 40 = 0.04375 ns/B; 21 sizes 2^10 .. 2^30, relative noise eps = 2% plus the
 * printing's rounding (<= 0.005 / 24 us = 0.02%): eps' = 0.0203.
 * Bound: the fit f minimises S = sum ((y - f) / y)^2 and the true line g has
 * S(g) <= n (eps' / (1 - eps'))^2, so every |y - f| / y <= sqrt(21) * 0.0203 / 0.9797 = 0.0950
 * and |f - g| / g <= 0.0950 * 1.0203 + 0.0203 = 0.1172 at every size. At m0 = 2^10
 * (g0 = 24044.8 ns) and m1 = 2^30 (g1 = 47000204.8 ns): |db| (m1 - m0) <= 0.1172 (g0 + g1), so
 * |db| / b <= 0.1172 * 47024249.6 / 46976160 = 0.1173 and B is within 0.1173 / 0.8827 = 13.3%;
 * |da| <= 0.1172 g0 + |db| m0 = 2818.0 + 5.3, so alpha is within 2823.3 / 24000 = 11.8%. */
START_TEST(test_noisy_recovery) {
    gen g = {.program = "all_reduce_perf",
             .coll = TH_COLL_ALLREDUCE,
             .nranks = 8,
             .a_us = 24.0,
             .b_us = 0.04375e-3,
             .noise = 0.02,
             .kmin = 10,
             .kmax = 30};
    th_dim d = dim_of(TH_TOPO_SWITCH, TH_ALG_RHD, 8);
    th_cal_opts o = opts();
    for (uint64_t seed = 1; seed <= 5; seed++) {
        g.seed = seed;
        th_cal_fit f = fit_one(&g, &d, &o);
        ck_assert_msg(fabs(f.alpha_ns - 2000) <= 0.118 * 2000, "seed %d: alpha %g", (int)seed,
                      f.alpha_ns);
        ck_assert_msg(fabs(f.bw - 40) <= 0.133 * 40, "seed %d: B %g", (int)seed, f.bw);
        ck_assert_int_eq(f.nused, 21);
        /* every residual is within the noise band bound above */
        for (int i = 0; i < f.npoints; i++)
            ck_assert(fabs(f.points[i].rel) <= 0.0950);
        th_cal_fit_free(&f);
    }
}
END_TEST

/* The sample log is the generator's output for `sample`, and the fit above 64 KiB recovers its
 * parameters. Bound as in test_noisy_recovery: 15 sizes 2^16 .. 2^30, eps' = 0.02 + 0.005 /
 * 9.16 = 0.0206; |y - f| / y <= sqrt(15) 0.0206 / 0.9794 = 0.0815, |f - g| / g <= 0.0815 *
 * 1.0206 + 0.0206 = 0.1037. g0 = 8400 + 764.6 = 9164.6 ns at 2^16, g1 = 12535397.3 ns at 2^30,
 * b (m1 - m0) = 12526232.7: |db| / b <= 0.1037 * 12544561.9 / 12526232.7 = 0.1039, B within
 * 0.1039 / 0.8961 = 11.6%; |da| <= 0.1037 * 9164.6 + 0.1039 * 764.6 = 1029.8 of 8400: 12.3%. */
START_TEST(test_sample_log) {
    size_t len;
    char *file = test_slurp(test_data("calibrate/allreduce-8.log"), &len);
    ck_assert_str_eq(file, gen_text(&sample));
    free(file);
    th_dim d = dim_of(TH_TOPO_SWITCH, TH_ALG_RHD, 8);
    th_cal_opts o = opts();
    o.min_size = 65536;
    th_cal_fit f = fit_one(&sample, &d, &o);
    ck_assert_int_eq(f.nused, 15);
    ck_assert_msg(fabs(f.alpha_ns - 700) <= 0.123 * 700, "alpha %g", f.alpha_ns);
    ck_assert_msg(fabs(f.bw - 150) <= 0.116 * 150, "B %g", f.bw);
    th_cal_fit_free(&f);
    /* fitted over every size, the low-latency rows (1 KiB: 4.96 us measured against a line
     * near 8.4 us) are flagged */
    o.min_size = 0;
    f = fit_one(&sample, &d, &o);
    ck_assert(f.points[0].flagged && f.points[0].rel < -0.1);
    th_cal_fit_free(&f);
}
END_TEST

/* A reduction cost: the system's reduce_GBps = 100 adds (7/8) m / 100 ns to an All-Reduce.
 * Times generated with b = 0.06103515625 + 0.00875 = 0.06978515625 ns/B must give back
 * B = 28.672 once that term is taken out. */
START_TEST(test_reduce_term) {
    gen g = exact_ar;
    g.b_us = (0x1p-14 * 1e3 + 0.875 / 100) * 1e-3;
    th_dim d = dim_of(TH_TOPO_SWITCH, TH_ALG_RHD, 8);
    th_cal_opts o = opts();
    o.reduce_bw = 100;
    th_cal_fit f = fit_one(&g, &d, &o);
    /* the times now print rounded to 0.01 us: relative error eps <= 0.005 / 7.14 = 7.1e-4 at
     * the smallest; as in test_noisy_recovery, with n = 14, |f - g| / g <= sqrt(14) 7.1e-4 +
     * 7.1e-4 = 3.4e-3, so alpha is within 3.4e-3 * 7.14 / 6 = 4.0e-3 (2 ns) and B within
     * 3.4e-3 * (g0 + g1) / (b (m1 - m0)) = 3.4e-3 (1 + 7e-4) */
    ck_assert_msg(fabs(f.alpha_ns - 500) <= 2, "alpha %g", f.alpha_ns);
    ck_assert_msg(fabs(f.bw - 28.672) / 28.672 <= 3.5e-3, "B %g", f.bw);
    th_cal_fit_free(&f);
}
END_TEST

/* A line through below zero (a = -1 us): the free fit's alpha < 0 is clamped to 0 and 1/B
 * refitted through the origin. */
START_TEST(test_clamped) {
    gen g = exact_ar;
    g.a_us = -1, g.kmin = 15; /* 1, 3, 7, ... us */
    th_dim d = dim_of(TH_TOPO_SWITCH, TH_ALG_RHD, 8);
    th_cal_opts o = opts();
    th_cal_fit f = fit_one(&g, &d, &o);
    ck_assert_int_eq(f.clamped, 1);
    ck_assert(f.alpha_ns == 0);
    ck_assert(f.bw > 0);
    th_cal_fit_free(&f);
}
END_TEST

/* Rows outside --min-size/--max-size are shown but not fitted; the small sizes of a log whose
 * first rows carry an extra 20 us (a protocol regime) are flagged when fitted and leave the
 * fit exact when excluded. */
START_TEST(test_size_range_and_flags) {
    gen g = exact_ar;
    g.kmin = 10; /* 2^10 .. 2^13 lie on the line too: 6.0625, 6.125, 6.25, 6.5 us, but print
                    rounded to 6.06, 6.12 (6.125 -> "6.12" or "6.13"), ...: exclude them */
    const char *text = gen_text(&g);
    /* add 20 us to the first row's out-of-place time: 6.06 -> 26.06 */
    char *t = strdup(text), *row = strstr(t, "\n        1024 ");
    ck_assert_ptr_nonnull(row);
    char *tm = strstr(row, "   6.06 ");
    ck_assert_ptr_nonnull(tm);
    memcpy(tm, "  26.06 ", 8);
    th_cal_log log;
    th_error err = {0};
    ck_assert_msg(parse(t, &log, &err) == 0, "%s", err.msg);
    th_coll_type c = TH_COLL_ALLREDUCE;
    th_dim d = dim_of(TH_TOPO_SWITCH, TH_ALG_RHD, 8);
    th_cal_opts o = opts();
    th_cal_fit f;
    ck_assert(th_cal_fit_logs(&log, &c, 1, &d, &o, &f, &err) == 0);
    ck_assert(f.nflagged >= 1 && f.points[0].flagged);
    th_cal_fit_free(&f);
    o.min_size = 16384;
    ck_assert(th_cal_fit_logs(&log, &c, 1, &d, &o, &f, &err) == 0);
    ck_assert_int_eq(f.nused, 14);
    ck_assert_int_eq(f.points[0].used, 0);
    ck_assert_int_eq(f.nflagged, 0);
    ck_assert_rel(f.alpha_ns, 500.0);
    ck_assert_rel(f.bw, 28.672);
    th_cal_fit_free(&f);
    o.min_size = 0, o.max_size = 1024; /* one size left */
    ck_assert(th_cal_fit_logs(&log, &c, 1, &d, &o, &f, &err) == TH_EINPUT);
    ck_assert(strstr(err.msg, "two different sizes"));
    th_cal_log_free(&log);
    free(t);
}
END_TEST

/* Two logs of one dim fitted together: All-Reduce (k = 2) and All-Gather (k = 1) on the switch
 * dim of the exact case; the All-Gather's line is a = 6 L alpha... = 3 us, b = 2^-15 us/B. */
START_TEST(test_joint_fit) {
    gen ag = exact_ar;
    ag.program = "all_gather_perf", ag.coll = TH_COLL_ALLGATHER;
    ag.a_us = 3.0, ag.b_us = 0x1p-15;
    th_cal_log logs[2];
    th_error err = {0};
    ck_assert(parse(gen_text(&exact_ar), &logs[0], &err) == 0);
    ck_assert(parse(gen_text(&ag), &logs[1], &err) == 0);
    th_coll_type c[2] = {TH_COLL_ALLREDUCE, TH_COLL_ALLGATHER};
    th_dim d = dim_of(TH_TOPO_SWITCH, TH_ALG_RHD, 8);
    th_cal_opts o = opts();
    th_cal_fit f;
    ck_assert_msg(th_cal_fit_logs(logs, c, 2, &d, &o, &f, &err) == 0, "%s", err.msg);
    ck_assert_rel(f.alpha_ns, 500.0);
    ck_assert_rel(f.bw, 28.672);
    ck_assert_int_eq(f.npoints, 28);
    ck_assert_int_eq(f.points[14].log, 1);
    th_cal_fit_free(&f);
    th_cal_log_free(&logs[0]);
    th_cal_log_free(&logs[1]);
}
END_TEST

/* rccl-tests: no groups, a version line without '#', and -O 0 (in-place columns alone). */
START_TEST(test_rccl_in_place_only) {
    gen g = exact_ar;
    g.program = NULL, g.rccl = 1, g.in_place_only = 1;
    th_cal_log log;
    th_error err = {0};
    ck_assert_msg(parse(gen_text(&g), &log, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(log.nranks, 8);
    ck_assert_int_eq(log.has_time[0], 0);
    ck_assert_int_eq(log.has_time[1], 1);
    ck_assert_int_eq(log.coll, -1);
    /* no program: told from busbw / algbw = 2 (7/8) = 1.75, redop sum */
    th_coll_type c;
    ck_assert_msg(th_cal_collective(&log, -1, 8, &c, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(c, TH_COLL_ALLREDUCE);
    th_dim d = dim_of(TH_TOPO_SWITCH, TH_ALG_RHD, 8);
    th_cal_opts o = opts();
    th_cal_fit f;
    ck_assert(th_cal_fit_logs(&log, &c, 1, &d, &o, &f, &err) == TH_EINPUT);
    ck_assert(strstr(err.msg, "no out-of-place times"));
    o.in_place = 1;
    ck_assert(th_cal_fit_logs(&log, &c, 1, &d, &o, &f, &err) == 0);
    ck_assert_rel(f.alpha_ns, 500.0);
    ck_assert_rel(f.bw, 28.672);
    th_cal_fit_free(&f);
    th_cal_log_free(&log);
}
END_TEST

/* Replaces the first occurrence of `from` in text (static copy). */
static const char *edit(const char *text, const char *from, const char *to) {
    static char out[70000];
    const char *at = strstr(text, from);
    ck_assert_msg(at != NULL, "'%s' not in the log", from);
    snprintf(out, sizeof out, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
    return out;
}

/* nccl-tests -I 1 and -S 1 add columns; the old 'error' column is read too. */
START_TEST(test_table_variants) {
    gen g = exact_ar;
    g.per_iter = 1, g.timestamps = 1;
    th_dim d = dim_of(TH_TOPO_SWITCH, TH_ALG_RHD, 8);
    th_cal_opts o = opts();
    th_cal_fit f = fit_one(&g, &d, &o);
    ck_assert_rel(f.alpha_ns, 500.0);
    ck_assert_rel(f.bw, 28.672);
    th_cal_fit_free(&f);
    o.in_place = 1;
    f = fit_one(&g, &d, &o);
    ck_assert_rel(f.alpha_ns, 500.0);
    th_cal_fit_free(&f);
    th_cal_log log;
    th_error err = {0};
    const char *old = edit(gen_text(&exact_ar), "busbw  #wrong", "busbw   error");
    ck_assert_msg(parse(old, &log, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(log.nrows, 14);
    th_cal_log_free(&log);
}
END_TEST

/* Old nccl-tests print the largest numerical error in an `error` column: a small error is a
 * correct result (never a count of wrong ones), one above the type's bound flags the size. */
START_TEST(test_error_column) {
    char old[70000];
    snprintf(old, sizeof old, "%s", edit(gen_text(&exact_ar), "busbw  #wrong", "busbw   error"));
    snprintf(old, sizeof old, "%s", edit(old, "busbw  #wrong", "busbw   error"));
    snprintf(old, sizeof old, "%s", edit(old, "       0     8.00", "   2e-07     8.00"));
    th_cal_log log;
    th_error err = {0};
    ck_assert_msg(parse(old, &log, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(log.max_error, 1);
    th_coll_type c = TH_COLL_ALLREDUCE;
    th_dim d = dim_of(TH_TOPO_SWITCH, TH_ALG_RHD, 8);
    th_cal_opts o = opts();
    th_cal_fit f;
    ck_assert_msg(th_cal_fit_logs(&log, &c, 1, &d, &o, &f, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(f.nwrong, 0);
    ck_assert_rel(f.alpha_ns, 500.0);
    th_cal_fit_free(&f);
    th_cal_log_free(&log);
    /* a large error: the size is flagged, in words that agree with the number */
    ck_assert(parse(edit(old, "   2e-07     8.00", "   5e-01     8.00"), &log, &err) == 0);
    ck_assert_int_eq(th_cal_fit_logs(&log, &c, 1, &d, &o, &f, &err), TH_EINPUT);
    ck_assert_msg(strstr(err.msg, "x.log:20: error = 0.5 exceeds 1e-05, the largest error a "
                                  "float result may have"),
                  "%s", err.msg);
    ck_assert(!strstr(err.msg, "#wrong"));
    o.allow_wrong = 1;
    ck_assert(th_cal_fit_logs(&log, &c, 1, &d, &o, &f, &err) == 0);
    ck_assert_int_eq(f.nwrong, 1);
    th_cal_fit_free(&f);
    th_cal_log_free(&log);
    ck_assert(th_cal_error_bound("double") == 1e-12 && th_cal_error_bound("half") == 1e-2 &&
              th_cal_error_bound("int32") == 0);
}
END_TEST

/* The prefix of `text`'s every line, as a launcher writes it (static buffer). */
static const char *prefixed(const char *text, const char *prefix) {
    static char out[140000];
    size_t k = 0;
    for (const char *s = text; *s;) {
        const char *e = strchr(s, '\n');
        size_t n = e ? (size_t)(e - s + 1) : strlen(s);
        k += (size_t)snprintf(out + k, sizeof out - k, "%s%.*s", prefix, (int)n, s);
        s += n;
    }
    return out;
}

/* Open MPI's --tag-output, srun --label and the like prefix every line: the prefix is told from
 * the table's header line and stripped from the lines that carry it, nothing else. */
START_TEST(test_launcher_prefix) {
    static const char *const prefixes[] = {
        "[1,0]<stdout>:", "[1,0]<stdout>: ", "0: ", " 0: ", "[0] ", "rank0| "};
    th_dim d = dim_of(TH_TOPO_SWITCH, TH_ALG_RHD, 8);
    th_cal_opts o = opts();
    th_error err = {0};
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++) {
        static char text[150000];
        snprintf(text, sizeof text, "%s%s",
                 "[1,3]<stderr>:node-b:17:17 [3] NCCL INFO Bootstrap : Using eth0\n",
                 prefixed(gen_text(&exact_ar), prefixes[i]));
        th_cal_log log;
        ck_assert_msg(parse(text, &log, &err) == 0, "%s: %s", prefixes[i], err.msg);
        ck_assert_int_eq(log.nranks, 8);
        ck_assert_int_eq(log.nrows, 14);
        ck_assert_str_eq(log.program, "all_reduce_perf");
        th_coll_type c = TH_COLL_ALLREDUCE;
        th_cal_fit f;
        ck_assert(th_cal_fit_logs(&log, &c, 1, &d, &o, &f, &err) == 0);
        ck_assert_rel(f.alpha_ns, 500.0);
        th_cal_fit_free(&f);
        th_cal_log_free(&log);
    }
    /* no prefix on the header: a row that starts like a label stays as it is */
    th_cal_log log;
    ck_assert(parse(gen_text(&exact_ar), &log, &err) == 0);
    ck_assert_str_eq(log.prefix, "");
    th_cal_log_free(&log);
}
END_TEST

/* A text log whose first line is a Python dict (or any text starting with '{') is text; JSON
 * is taken only for a whole file of nccl-tests' JSON shape. */
START_TEST(test_brace_text) {
    char text[70000];
    snprintf(text, sizeof text, "{'nodes': 1, 'gpus': 8, 'nccl': '2.4.6'}\n%s",
             gen_text(&exact_ar));
    th_cal_log log;
    th_error err = {0};
    ck_assert_msg(parse(text, &log, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(log.json, 0);
    ck_assert_int_eq(log.nrows, 14);
    th_cal_log_free(&log);
    snprintf(text, sizeof text, "{\"nodes\": 1}\n%s", gen_text(&exact_ar));
    ck_assert_msg(parse(text, &log, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(log.json, 0);
    th_cal_log_free(&log);
    /* neither a log nor whole JSON: the JSON reader's message */
    ck_assert_int_eq(parse("{\"results\": [", &log, &err), TH_EINPUT);
    ck_assert_msg(strstr(err.msg, "x.log:1:"), "%s", err.msg);
}
END_TEST

/* The fit's error on held-out sizes: every other fitted row of each log left out, predicted
 * by a fit to the others; exact data predict exactly, and the fitted range is the used rows'. */
START_TEST(test_holdout) {
    th_dim d = dim_of(TH_TOPO_SWITCH, TH_ALG_RHD, 8);
    th_cal_opts o = opts();
    th_cal_fit f = fit_one(&exact_ar, &d, &o);
    ck_assert_int_eq(f.held[0].n, 7);
    ck_assert(f.held[0].max_rel < 1e-9 && f.held[0].rms_rel <= f.held[0].max_rel);
    ck_assert(f.min_used == 16384 && f.max_used == 134217728);
    int held = 0;
    for (int i = 0; i < f.npoints; i++)
        if (f.points[i].held_out) {
            held++;
            ck_assert_int_eq(i % 2, 1);
            ck_assert(fabs(f.points[i].held_ns - f.points[i].time_ns) < 1e-6 * f.points[i].time_ns);
        }
    ck_assert_int_eq(held, 7);
    th_cal_fit_free(&f);
    gen g = exact_ar;
    g.noise = 0.02;
    o.min_size = 1 << 20;
    f = fit_one(&g, &d, &o);
    ck_assert(f.min_used == 1 << 20);
    ck_assert_int_eq(f.held[0].n, 4); /* 2^20 .. 2^27: 8 rows, 4 held out */
    ck_assert(f.held[0].max_rel > 0 && f.held[0].max_rel < 0.06);
    th_cal_fit_free(&f);
    /* two fitted rows: none left to hold out */
    o.min_size = 1 << 26;
    f = fit_one(&g, &d, &o);
    ck_assert_int_eq(f.held[0].n, 0);
    th_cal_fit_free(&f);
}
END_TEST

START_TEST(test_collective_detection) {
    th_cal_log log;
    th_error err = {0};
    th_coll_type c;
    gen g = exact_ar;
    g.program = NULL, g.coll = TH_COLL_REDUCESCATTER; /* ratio 7/8, redop sum */
    ck_assert(parse(gen_text(&g), &log, &err) == 0);
    ck_assert(th_cal_collective(&log, -1, 8, &c, &err) == 0);
    ck_assert_int_eq(c, TH_COLL_REDUCESCATTER);
    th_cal_log_free(&log);
    /* a log of 8 ranks read as a dim of 2: neither 2 (1/2) nor 1/2 matches 7/8 */
    ck_assert(parse(gen_text(&g), &log, &err) == 0);
    ck_assert_int_eq(th_cal_collective(&log, -1, 2, &c, &err), TH_EINPUT);
    ck_assert(strstr(err.msg, "its busbw / algbw ratio does not tell it"));
    th_cal_log_free(&log);
    g.coll = TH_COLL_ALLGATHER; /* redop none: All-Gather or All-to-All */
    ck_assert(parse(gen_text(&g), &log, &err) == 0);
    ck_assert(th_cal_collective(&log, -1, 8, &c, &err) == TH_EINPUT);
    ck_assert(strstr(err.msg, "give the collective with -c"));
    ck_assert(th_cal_collective(&log, TH_COLL_ALLTOALL, 8, &c, &err) == 0);
    ck_assert_int_eq(c, TH_COLL_ALLTOALL);
    th_cal_log_free(&log);
    g = exact_ar; /* the program named: -c must agree */
    ck_assert(parse(gen_text(&g), &log, &err) == 0);
    ck_assert(th_cal_collective(&log, TH_COLL_ALLGATHER, 8, &c, &err) == TH_EINPUT);
    ck_assert(strstr(err.msg, "the log is of all_reduce_perf, -c says allgather"));
    th_cal_log_free(&log);
    g.program = "broadcast_perf";
    ck_assert(parse(gen_text(&g), &log, &err) == 0);
    ck_assert(th_cal_collective(&log, -1, 8, &c, &err) == TH_EINPUT);
    ck_assert(strstr(err.msg, "broadcast_perf, a test themis does not model"));
    th_cal_log_free(&log);
    ck_assert_int_eq(th_cal_program_coll("all_reduce_perf_mpi"), TH_COLL_ALLREDUCE);
    ck_assert_int_eq(th_cal_program_coll("all_reduce_perfx"), -1);
}
END_TEST

static void parse_fails(const char *text, const char *needle) {
    th_cal_log log;
    th_error err = {0};
    ck_assert_int_eq(parse(text, &log, &err), TH_EINPUT);
    ck_assert_msg(strstr(err.msg, needle) != NULL, "'%s' lacks '%s'", err.msg, needle);
    ck_assert_ptr_null(log.rows);
}

START_TEST(test_log_errors) {
    char *good = strdup(gen_text(&exact_ar)); /* gen_text's buffer is reused below */
    /* the header: lines 1-3 version, program, nThread; "#"; devices 4 + 8 ranks; NCCL INFO;
     * "#"; table title 16, columns 17, units 18; rows 19 .. 32 (2^14 .. 2^27); footer 33 */
    parse_fails("hello\nworld\n", "x.log: not an nccl-tests or rccl-tests log");
    parse_fails("", "in its 0 lines");
    gen g = exact_ar;
    g.no_footer = 1;
    parse_fails(gen_text(&g), "x.log:32: the log ends inside the results table");
    /* a row cut short (the run died mid-line) */
    char cut[70000];
    const char *last = strstr(good, "   134217728 ");
    snprintf(cut, sizeof cut, "%.*s", (int)(last - good) + 60, good);
    parse_fails(cut, "x.log:32: result row cut short");
    /* no rows at all */
    const char *first = strstr(good, "       16384 ");
    const char *footer = strstr(good, "# Out of bounds");
    snprintf(cut, sizeof cut, "%.*s%s", (int)(first - good), good, footer);
    parse_fails(cut, "no result rows after the table header");
    /* sizes backwards (65536 after 131072, not the first size) */
    parse_fails(edit(good, "\n      262144 ", "\n       32768 "),
                "x.log:23: size 32768 after 131072: sizes go backwards");
    /* a second data type (-d all) */
    parse_fails(edit(good, "16384     float", "16384      half"),
                "x.log:21: data type half, op sum after float, sum");
    /* CPU time */
    parse_fails(edit(good, "  time  ", "  cputime  "), "x.log:17: the log reports CPU time");
    /* a cell that is not a number */
    parse_fails(edit(good, "   7.00 ", "   7.0x "),
                "x.log:19: column 6 (time): expected a number, got '7.0x'");
    parse_fails(edit(good, "   7.00 ", "    nan "), "got 'nan'");
    /* a size repeated (trimmed sizes with a rank count that is no power of two) is kept */
    th_cal_log log;
    th_error err = {0};
    ck_assert_msg(parse(edit(good, "\n      131072 ", "\n       65536 "), &log, &err) == 0, "%s",
                  err.msg);
    ck_assert_int_eq(log.nrows, 14);
    ck_assert(log.rows[3].size == 65536);
    th_cal_log_free(&log);
    /* two tables in one file */
    char two[140000];
    snprintf(two, sizeof two, "%s%s", good, good);
    parse_fails(two, "x.log:53: a second results table (the first starts at line 17)");
    /* a header without its columns */
    parse_fails(edit(good, "algbw", "algbx"), "x.log:17: results table header: time column 1");
    parse_fails(edit(good, "  redop", "  redox"), "without its redop column");
    /* a time of 0, a third time column, no time column, too many columns */
    parse_fails(edit(good, "   7.00 ", "   0.00 "),
                "x.log:19: out-of-place time: expected a time > 0 us, got 0");
    parse_fails(edit(good, "#wrong\n", "#wrong     time\n"),
                "x.log:17: results table header with more than two time columns");
    char *once = strdup(edit(good, "  time  ", "  tame  "));
    parse_fails(edit(once, "  time  ", "  tame  "),
                "x.log:17: results table header without its time column");
    free(once);
    char wide[70000];
    snprintf(wide, sizeof wide, "%s", good);
    char *eol = strchr(strstr(wide, "\n       16384 "), '\n');
    eol = strchr(eol + 1, '\n');
    char tail[70000];
    snprintf(tail, sizeof tail, "%s", eol);
    int off = (int)(eol - wide);
    for (int i = 0; i < 60; i++)
        off += snprintf(wide + off, sizeof wide - (size_t)off, " 1");
    snprintf(wide + off, sizeof wide - (size_t)off, "%s", tail);
    parse_fails(wide, "x.log:19: too many columns");
    free(good);
}
END_TEST

START_TEST(test_cycles_and_zero_rows) {
    const char *good = gen_text(&exact_ar);
    /* -N 2: the table again from the first size */
    const char *first = strstr(good, "       16384 ");
    const char *footer = strstr(good, "# Out of bounds");
    char two[70000];
    snprintf(two, sizeof two, "%.*s# Testing 2 cycle.\n%.*s%s", (int)(footer - good), good,
             (int)(footer - first), first, footer); /* rccl-tests' line between cycles */
    th_cal_log log;
    th_error err = {0};
    ck_assert_msg(parse(two, &log, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(log.cycles, 2);
    ck_assert_int_eq(log.nrows, 28);
    th_cal_log_free(&log);
    /* a size trimmed to 0 is counted and dropped */
    ck_assert(parse(edit(good, "       16384          4096", "           0             0"), &log,
                    &err) == 0);
    ck_assert_int_eq(log.rows_zero, 1);
    ck_assert_int_eq(log.nrows, 13);
    th_cal_log_free(&log);
}
END_TEST

START_TEST(test_wrong_rows) {
    const char *bad = edit(gen_text(&exact_ar), "       0     8.00", "       3     8.00");
    th_cal_log log;
    th_error err = {0};
    ck_assert_msg(parse(bad, &log, &err) == 0, "%s", err.msg);
    th_coll_type c = TH_COLL_ALLREDUCE;
    th_dim d = dim_of(TH_TOPO_SWITCH, TH_ALG_RHD, 8);
    th_cal_opts o = opts();
    th_cal_fit f;
    ck_assert_int_eq(th_cal_fit_logs(&log, &c, 1, &d, &o, &f, &err), TH_EINPUT);
    ck_assert_msg(strstr(err.msg, "x.log:20: #wrong = 3"), "%s", err.msg);
    o.allow_wrong = 1;
    ck_assert(th_cal_fit_logs(&log, &c, 1, &d, &o, &f, &err) == 0);
    ck_assert_int_eq(f.nwrong, 1);
    ck_assert_int_eq(f.wrong_line, 20);
    th_cal_fit_free(&f);
    th_cal_log_free(&log);
}
END_TEST

START_TEST(test_fit_errors) {
    th_cal_log log;
    th_error err = {0};
    th_coll_type c = TH_COLL_ALLREDUCE;
    th_cal_opts o = opts();
    th_cal_fit f;
    ck_assert(parse(gen_text(&exact_ar), &log, &err) == 0);
    th_dim one = dim_of(TH_TOPO_SWITCH, TH_ALG_RHD, 1); /* p = 1: L = 2 s(1) = 0 */
    ck_assert_int_eq(th_cal_fit_logs(&log, &c, 1, &one, &o, &f, &err), TH_EINPUT);
    ck_assert(strstr(err.msg, "no link hop"));
    th_cal_log_free(&log);
    /* times that shrink with the size: 1/B < 0 */
    gen g = exact_ar;
    g.a_us = 9000, g.b_us = -0x1p-14;
    ck_assert(parse(gen_text(&g), &log, &err) == 0);
    th_dim d = dim_of(TH_TOPO_SWITCH, TH_ALG_RHD, 8);
    ck_assert_int_eq(th_cal_fit_logs(&log, &c, 1, &d, &o, &f, &err), TH_EINPUT);
    ck_assert(strstr(err.msg, "does not grow with the size"));
    th_cal_log_free(&log);
}
END_TEST

/* Times of 1e-300 us: their weights overflow and the fit has no finite value. */
START_TEST(test_fit_not_finite) {
    const char *text = "# Collective test starting: all_reduce_perf\n"
                       "#  size  count  type  redop  root  time  algbw  busbw  #wrong\n"
                       "   1024    256 float    sum    -1 1e-300   0.21   0.36       0\n"
                       "   2048    512 float    sum    -1 2e-300   0.21   0.36       0\n"
                       "   4096   1024 float    sum    -1 3e-300   0.21   0.36       0\n"
                       "# Out of bounds values : 0 OK\n";
    th_cal_log log;
    th_error err = {0};
    ck_assert_msg(parse(text, &log, &err) == 0, "%s", err.msg);
    th_coll_type c = TH_COLL_ALLREDUCE;
    th_dim d = dim_of(TH_TOPO_SWITCH, TH_ALG_RHD, 8);
    th_cal_opts o = opts();
    th_cal_fit f;
    ck_assert_int_eq(th_cal_fit_logs(&log, &c, 1, &d, &o, &f, &err), TH_EINPUT);
    ck_assert_msg(strstr(err.msg, "x.log: the fit gives no finite latency and bandwidth"), "%s",
                  err.msg);
    th_cal_log_free(&log);
}
END_TEST

START_TEST(test_dim_apply) {
    th_cal_fit f;
    memset(&f, 0, sizeof f);
    f.alpha_ns = 500, f.bw = 40;
    th_error err = {0};
    th_dim d = dim_of(TH_TOPO_SWITCH, TH_ALG_RHD, 8);
    d.bw_GBps = 50, d.latency = 1;
    ck_assert(th_cal_dim_apply(&f, 0, &d, &err) == 0);
    ck_assert(d.latency == 500 && d.bw_GBps == 40 && d.efficiency == 1 && d.bw == 40);
    d.bw_GBps = 50; /* efficiency = 40 / 50 = 0.8 of the nominal 50 */
    ck_assert(th_cal_dim_apply(&f, 1, &d, &err) == 0);
    ck_assert(d.bw_GBps == 50);
    ck_assert_rel(d.efficiency, 0.8);
    ck_assert_rel(d.bw, 40);
    d.bw_GBps = 32; /* 40 / 32 > 1 */
    ck_assert_int_eq(th_cal_dim_apply(&f, 1, &d, &err), TH_EINPUT);
    ck_assert(strstr(err.msg, "exceeds the nominal bw_GBps 32: efficiency 1.25 > 1"));
    d.bw_GBps = 0;
    ck_assert_int_eq(th_cal_dim_apply(&f, 1, &d, &err), TH_EINPUT);
}
END_TEST

/* nccl-tests -J: the same exact line as JSON (times in us, "%lf"). */
static const char *json_log(const char *tail) {
    static char text[8192];
    char *p = text;
    size_t n = sizeof text;
    add(&p, &n,
        "{\"version\": 1, \"start_time\": \"2026-01-05 10:00:00\", \"args\": "
        "[\"/opt/nccl-tests/build/all_reduce_perf\", \"-b\", \"16K\"], \"env\": [], "
        "\"nccl_version\": 22803, \"config\": {\"nthreads\": 1, \"ngpus\": 8, \"devices\": [");
    for (int r = 0; r < 8; r++)
        add(&p, &n, "%s{\"rank\": %d, \"group\": 0, \"pid\": 1, \"hostname\": \"a\"}",
            r ? ", " : "", r);
    add(&p, &n, "]}, \"results\": [");
    for (int k = 14; k <= 27; k++) {
        double m = ldexp(1, k), t = 6 + ldexp(1, k - 14);
        add(&p, &n,
            "%s{\"size\": %.0f, \"count\": %.0f, \"type\": \"float\", \"redop\": \"sum\", "
            "\"root\": \"    -1\", \"out_of_place\": {\"time\": %lf, \"alg_bw\": %lf, "
            "\"bus_bw\": %lf, \"nwrong\": 0.000000}, \"in_place\": {\"time\": %lf, \"alg_bw\": "
            "%lf, \"bus_bw\": %lf, \"nwrong\": null}, \"actual_iterations\": 20, "
            "\"experiment_name\": \"\"}",
            k > 14 ? ", " : "", m, m / 4, t, m / t / 1e3, 1.75 * m / t / 1e3, t, m / t / 1e3,
            1.75 * m / t / 1e3);
    }
    add(&p, &n, "]%s", tail);
    return text;
}

START_TEST(test_json) {
    th_cal_log log;
    th_error err = {0};
    ck_assert_msg(parse(json_log(", \"end_time\": \"x\"}"), &log, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(log.json, 1);
    ck_assert_str_eq(log.program, "all_reduce_perf");
    ck_assert_int_eq(log.coll, TH_COLL_ALLREDUCE);
    ck_assert_int_eq(log.nranks, 8);
    ck_assert_int_eq(log.nrows, 14);
    ck_assert(log.rows[0].wrong[1] < 0); /* null: not checked */
    th_coll_type c = TH_COLL_ALLREDUCE;
    th_dim d = dim_of(TH_TOPO_SWITCH, TH_ALG_RHD, 8);
    th_cal_opts o = opts();
    th_cal_fit f;
    ck_assert(th_cal_fit_logs(&log, &c, 1, &d, &o, &f, &err) == 0);
    ck_assert_rel(f.alpha_ns, 500.0);
    ck_assert_rel(f.bw, 28.672);
    th_cal_fit_free(&f);
    th_cal_log_free(&log);
    /* a run killed while writing: no closing brace */
    parse_fails(json_log(""), "x.log:1:");
    parse_fails("{\"a\": 1}", "not an nccl-tests JSON file (-J): no \"results\" list");
    parse_fails("{\"results\": [1]}", "x.log: results[0]: expected an object");
    parse_fails("{\"results\": [{\"size\": 1.5, \"type\": \"float\", \"redop\": \"sum\"}]}",
                "x.log: results[0]: size: expected a whole number of bytes, got 1.5");
    parse_fails("{\"results\": [{\"size\": 0, \"type\": \"float\", \"redop\": \"sum\"}]}",
                "x.log: results: no result of size > 0");
    parse_fails("{\"results\": [{\"size\": 8, \"out_of_place\": 3}]}",
                "x.log: results[0].out_of_place: expected an object or null, got 3");
    /* a result without the chosen side: null in-place times */
    th_cal_log nul;
    ck_assert(parse("{\"results\": [{\"size\": 8, \"type\": \"float\", \"redop\": \"sum\", "
                    "\"out_of_place\": {\"time\": 5}, \"in_place\": {\"time\": 6}}, "
                    "{\"size\": 16, \"type\": \"float\", \"redop\": \"sum\", "
                    "\"out_of_place\": {\"time\": 7}, \"in_place\": null}]}",
                    &nul, &err) == 0);
    o.in_place = 1;
    ck_assert_int_eq(th_cal_fit_logs(&nul, &c, 1, &d, &o, &f, &err), TH_EINPUT);
    ck_assert_msg(strstr(err.msg, "x.log: results[1]: no in-place time for size 16"), "%s",
                  err.msg);
    th_cal_log_free(&nul);
    parse_fails(edit(json_log("}"), "\"time\": 7.000000", "\"cpu_time\": 7.0"),
                "results[0].out_of_place.cpu_time: the file reports CPU time");
    parse_fails(edit(json_log("}"), "\"size\": 16384", "\"size\": \"16384\""),
                "x.log: results[0].size: expected a finite number, got the string");
    parse_fails(edit(json_log("}"), "\"size\": 65536", "\"size\": 8192"),
                "x.log: results[2]: size 8192 after 32768: sizes go backwards");
}
END_TEST

START_TEST(test_system_files) {
    th_dim d = dim_of(TH_TOPO_SWITCH, TH_ALG_RHD, 8);
    snprintf(d.name, sizeof d.name, "dim0");
    d.latency = 500, d.bw_GBps = 28.671999999999997, d.efficiency = 1;
    char *text;
    th_error err = {0};
    ck_assert(th_cal_system_new(NULL, "fitted", &d, &text, &err) == 0);
    th_system s;
    ck_assert(th_system_parse(text, strlen(text), "new", &s, &err) == 0);
    ck_assert_int_eq(s.ndims, 1);
    ck_assert(s.dims[0].bw_GBps == 28.672); /* rounded to 6 significant digits */
    ck_assert(s.dims[0].latency == 500);
    ck_assert_int_eq(s.dims[0].npus, 8);
    ck_assert_str_eq(s.description, "fitted");
    ck_assert_ptr_null(strstr(text, "efficiency"));
    free(text);
    /* updating dims[1] keeps every other key, the run object and dims[0] */
    const char *sys = "{\"name\": \"hgx\", \"run\": {\"chunks\": 16}, \"dims\": ["
                      "{\"topology\": \"ring\", \"npus\": 4, \"bw_GBps\": 100, \"latency_ns\": 10},"
                      "{\"name\": \"nic\", \"topology\": \"switch\", \"npus\": 8, \"bw_GBps\": 50,"
                      " \"latency_ns\": 900, \"efficiency\": 0.5}]}";
    d.efficiency = 1;
    ck_assert(th_cal_system_update(sys, strlen(sys), "hgx.json", 1, &d, &text, &err) == 0);
    th_run_defaults def;
    ck_assert_msg(th_run_parse_system(text, strlen(text), "out", &s, &def, &err) == 0, "%s",
                  err.msg);
    ck_assert_str_eq(s.name, "hgx");
    ck_assert_int_eq(def.chunks, 16);
    ck_assert(s.dims[0].bw_GBps == 100 && s.dims[0].latency == 10);
    ck_assert_str_eq(s.dims[1].name, "nic");
    ck_assert(s.dims[1].bw_GBps == 28.672 && s.dims[1].latency == 500);
    ck_assert(s.dims[1].efficiency == 1); /* removed */
    free(text);
    d.bw_GBps = 50, d.efficiency = 0.8;
    ck_assert(th_cal_system_update(sys, strlen(sys), "hgx.json", 1, &d, &text, &err) == 0);
    ck_assert(th_system_parse(text, strlen(text), "out", &s, &err) == 0);
    ck_assert(s.dims[1].efficiency == 0.8 && s.dims[1].bw_GBps == 50);
    free(text);
    ck_assert_int_eq(th_cal_system_update(sys, strlen(sys), "hgx.json", 2, &d, &text, &err),
                     TH_EINPUT);
    ck_assert(strstr(err.msg, "hgx.json: dims[2]: no such dim (the system has 2)"));
}
END_TEST

/* ---- the command ---- */

static char *write_log(const char *dir, const char *name, const char *text) {
    static char path[4][4200];
    static int k;
    char *p = path[k++ % 4];
    snprintf(p, sizeof path[0], "%s/%s", dir, name);
    test_spit(p, text, strlen(text));
    return p;
}

START_TEST(test_cli_new_system) {
    char *dir = test_tmp_dir();
    const char *log = write_log(dir, "ar.log", gen_text(&exact_ar));
    test_cli_out r;
    test_cli(&r, "calibrate %s --topology switch -o %s/measured.json", log, dir);
    test_expect_quiet(&r, "calibrate");
    ck_assert(strstr(r.out, "latency_ns  500 +- "));
    ck_assert(strstr(r.out, "bw_GBps     28.672 +- "));
    ck_assert(strstr(r.out, "8 NPUs, rhd algorithm, L = 6 hops; 14 of 14 rows fitted"));
    test_cli_free(&r);
    TEST_DIR_PATH(sys, dir, "measured.json");
    th_system s;
    th_error err = {0};
    ck_assert_msg(th_system_load(sys, &s, &err) == 0, "%s", err.msg);
    ck_assert_str_eq(s.name, "measured");
    ck_assert(s.dims[0].latency == 500 && s.dims[0].bw_GBps == 28.672);
    /* the system runs: an All-Reduce of 1 MiB in 1 chunk on it is
     * 2 * 6 * 500 + 2 * 2^20 * 7/8 / 28.672 = 6000 + 64000 = 70000 ns = 70 us */
    test_cli(&r, "run -s %s -b 1MiB -n 1 -p baseline -q fifo -f csv", sys);
    test_expect_ok(&r, "run on the calibrated system");
    ck_assert_msg(strstr(r.out, ",70,"), "%s", r.out);
    test_cli_free(&r);
    /* the output exists: refused without --force, and never over an input */
    test_bad("exists", "calibrate %s --topology switch -o %s", log, sys);
    test_bad("is also an input", "calibrate %s --topology switch -o %s --force", log, log);
    test_bad("is also another output",
             "calibrate %s --topology switch -o %s/same.svg --plot %s/same.svg", log, dir, dir);
    /* stdout: the system, the report on stderr */
    test_cli(&r, "calibrate %s --topology switch --name lab", log);
    test_expect_ok(&r, "calibrate to stdout");
    ck_assert(strstr(r.out, "\"name\":\t\"lab\""));
    ck_assert(strstr(r.err, "R^2 1.000000"));
    test_cli_free(&r);
    /* --npus must agree with the ranks of the log */
    test_bad("ran on 8 ranks", "calibrate %s --topology switch --npus 4", log);
    /* the sample: rows flagged, named in the report */
    test_cli(&r, "calibrate %s --topology switch -o %s/s.json",
             test_dpath("calibrate/allreduce-8.log"), dir);
    test_expect_quiet(&r, "calibrate the sample");
    ck_assert(strstr(r.out, "1        19             1024           4.96"));
    ck_assert(strstr(r.out, "* does not fit"));
    ck_assert(strstr(r.out,
                     "8 row(s) the model does not fit (|residual| > 10%), sizes 1 KiB to 512 KiB"));
    test_cli_free(&r);
    test_bad("not bandwidth-optimal on a ring", "calibrate %s --topology ring --algorithm rhd",
             log);
    test_rm_dir(dir);
}
END_TEST

/* Runs `themis run -s sys` by default (no -n: the file's "run" says the one chunk the fit
 * assumed) at every size of the log from 64 MiB up: each within 10% of the measured time. */
static void check_predicts(const char *sys, const char *log_path) {
    th_cal_log log;
    th_error err = {0};
    ck_assert_msg(th_cal_log_read(log_path, &log, &err) == 0, "%s", err.msg);
    int checked = 0;
    for (int k = 0; k < log.nrows; k++) {
        const th_cal_row *row = &log.rows[k];
        if (row->size < 64.0 * 1024 * 1024) continue;
        test_cli_out r;
        test_cli(&r, "run -s %s -b %.0f -p baseline -q fifo -f csv", sys, row->size);
        test_expect_ok(&r, "run on the calibrated system");
        test_csv c;
        test_csv_parse(&c, r.out);
        double t = test_csv_d(&c, 0, "time_us");
        ck_assert_msg(fabs(t - row->time_us[0]) <= 0.1 * row->time_us[0],
                      "%s: size %.0f: measured %g us, the run predicts %g us", log_path, row->size,
                      row->time_us[0], t);
        test_csv_free(&c);
        test_cli_free(&r);
        checked++;
    }
    ck_assert_int_ge(checked, 5);
    th_cal_log_free(&log);
}

static const char *const real_logs[] = {"h100-2x8.log", "v100-efa-2x8.log", "a100-2x8-tagged.log"};

/* The three layouts of tests/data/calibrate/README.md (2 x 8 GPUs each), calibrated over the
 * bandwidth-bound sizes as one dim of 16 NPUs, predict every size from 64 MiB up. */
START_TEST(test_cli_real_logs) {
    char *dir = test_tmp_dir();
    for (int i = 0; i < 3; i++) {
        char name[64];
        snprintf(name, sizeof name, "calibrate/%s", real_logs[i]);
        const char *path = test_dpath(name);
        TEST_DIR_PATH(sys, dir, real_logs[i]);
        test_cli_out r;
        test_cli(&r, "calibrate %s --topology switch --min-size 64MiB -o %s.json", path, sys);
        test_expect_quiet(&r, real_logs[i]);
        ck_assert_msg(strstr(r.out, "16 NPUs"), "%s", r.out);
        ck_assert_msg(strstr(r.out, "fitted sizes 64 MiB to "), "%s", r.out);
        /* the error on the sizes held out of a fit to the others, within the acceptance */
        const char *h = strstr(r.out, "held out, log 1: ");
        ck_assert_msg(h && strstr(h, "predicted by a fit to the other sizes within "), "%s", r.out);
        double worst = atof(strstr(h, "within ") + 7);
        ck_assert_msg(worst > 0 && worst < 10, "%s", h);
        test_cli_free(&r);
        char file[4400];
        snprintf(file, sizeof file, "%s.json", sys);
        check_predicts(file, path);
    }
    test_rm_dir(dir);
}
END_TEST

/* Two dims from the logs people have: the node's dim 0 from a single-node log (or the file's
 * values), then the network's dim 1 from a 2 x 8 log with dim 0 held; the 2-dim system then
 * predicts the 2 x 8 log, whatever dim 0 holds (only the sums are determined). */
START_TEST(test_cli_two_dims) {
    char *dir = test_tmp_dir();
    TEST_DIR_PATH(hgx, dir, "hgx.json");
    const char *text = "{\"name\": \"hgx-2x8\", \"dims\": ["
                       "{\"name\": \"node\", \"topology\": \"switch\", \"npus\": 8, "
                       "\"bw_GBps\": 300, \"latency_ns\": 700},"
                       "{\"name\": \"network\", \"topology\": \"switch\", \"npus\": 2, "
                       "\"bw_GBps\": 50, \"latency_ns\": 1000}]}";
    test_spit(hgx, text, strlen(text));
    gen g = exact_ar; /* a single node of 8: 800 ns, 360 GB/s */
    g.a_us = 2 * 6 * 0.8, g.b_us = 2 * 7.0 / 8 / 360e3, g.kmin = 20, g.kmax = 30;
    const char *node = write_log(dir, "node.log", gen_text(&g));
    test_cli_out r;
    test_cli(&r, "calibrate %s -s %s --dim 0 -o %s/step1.json", node, hgx, dir);
    test_expect_quiet(&r, "calibrate the node's dim");
    test_cli_free(&r);
    for (int i = 0; i < 3; i++) {
        char name[64], out[4400];
        snprintf(name, sizeof name, "calibrate/%s", real_logs[i]);
        const char *path = test_dpath(name);
        const char *from[] = {hgx, NULL};
        char step1[4400];
        snprintf(step1, sizeof step1, "%s/step1.json", dir);
        from[1] = step1;
        for (int j = 0; j < 2; j++) {
            snprintf(out, sizeof out, "%s/two-%d-%d.json", dir, i, j);
            test_cli(&r, "calibrate %s -s %s --dim 1 --min-size 64MiB -o %s", path, from[j], out);
            test_expect_quiet(&r, real_logs[i]);
            ck_assert_msg(strstr(r.out, "held at the file's values"), "%s", r.out);
            ck_assert_msg(strstr(r.out, "dim 0 (node): 8 NPUs, latency_ns "), "%s", r.out);
            test_cli_free(&r);
            th_system s;
            th_error err = {0};
            ck_assert_msg(th_system_load(out, &s, &err) == 0, "%s", err.msg);
            ck_assert_int_eq(s.ndims, 2);
            check_predicts(out, path);
        }
    }
    /* a log on neither the dim's NPUs nor them and the dims before it */
    test_bad("and with the dims before it 16", "calibrate %s -s %s --dim 1", node, hgx);
    test_rm_dir(dir);
}
END_TEST

/* --npus-per-node 8 with exact logs. The node: exact_ar, a switch of 8 under rhd (L0 = 6),
 * alpha0 = 500 ns, B0 = 28.672 GB/s. Two nodes (16 ranks), the network a switch of 2 (L1 =
 * 2 log2 2 = 2) with alpha1 = 1000 ns and B1 = 2.048 GB/s = 2048 B/us: in one chunk (the model
 * of docs/CALIBRATE.md, "Several dims")
 *   time = 2 (6 * 0.5 + 2 * 1) us + 2 S [(7/8) / 28672 + (1/16) / 2048] us
 *        = 10 us + S (2^-14 + 2^-14) = 10 + 2^(k-13) us at S = 2^k,
 * which prints exactly. The single-node log fits the node, then the 16-rank log the network
 * with the node held at that fit: both come back. The 16-rank log alone, the node held at its
 * true values (--node-bw, --node-latency), gives the network's too; held at other values, the
 * network's fit differs but the system still predicts the log (only the sums are measured). */
START_TEST(test_cli_npus_per_node) {
    char *dir = test_tmp_dir();
    const char *node = write_log(dir, "node.log", gen_text(&exact_ar));
    gen g = exact_ar;
    g.nranks = 16, g.a_us = 10.0, g.b_us = 0x1p-13;
    const char *two = write_log(dir, "two.log", gen_text(&g));
    TEST_DIR_PATH(out, dir, "hier.json");
    test_cli_out r;
    test_cli(&r, "calibrate %s %s --npus-per-node 8 --topology switch -o %s", two, node, out);
    test_expect_quiet(&r, "calibrate --npus-per-node, two logs");
    ck_assert_msg(strstr(r.out, "stage 1: dim 0 (node) from the single-node log(s)"), "%s", r.out);
    ck_assert_msg(strstr(r.out, "stage 2: dim 1 (network) from the multi-node log(s)"), "%s",
                  r.out);
    ck_assert_msg(strstr(r.out, "dim 0 (node):    latency_ns and bw_GBps measured"), "%s", r.out);
    ck_assert_msg(strstr(r.out, "dim 1 (network): latency_ns and bw_GBps measured"), "%s", r.out);
    test_cli_free(&r);
    th_system s;
    th_error err = {0};
    ck_assert_msg(th_system_load(out, &s, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(s.ndims, 2);
    ck_assert_int_eq(s.dims[0].npus, 8);
    ck_assert_int_eq(s.dims[1].npus, 2);
    ck_assert_rel(s.dims[0].latency, 500.0);
    ck_assert_rel(s.dims[0].bw_GBps, 28.672);
    ck_assert_rel(s.dims[1].latency, 1000.0);
    ck_assert_rel(s.dims[1].bw_GBps, 2.048);
    /* the default run (one chunk, the file's "run") at S = 2^20: 10 + 2^7 = 138 us */
    test_cli(&r, "run -s %s -b 1MiB -p baseline -q fifo -f csv", out);
    test_expect_ok(&r, "run on the two-dim system");
    test_csv c;
    test_csv_parse(&c, r.out);
    ck_assert_rel(test_csv_d(&c, 0, "time_us"), 138.0);
    test_csv_free(&c);
    test_cli_free(&r);
    /* the multi-node log alone, the node held at its true values */
    test_cli(&r,
             "calibrate %s --npus-per-node 8 --topology switch --node-bw 28.672 "
             "--node-latency 500 -f json -o %s --force",
             two, out);
    test_expect_ok(&r, "calibrate --npus-per-node, one log");
    cJSON *doc = cJSON_Parse(r.out); /* the system went to its file, the report to stdout */
    ck_assert_msg(doc != NULL, "%s", r.out);
    cJSON *det = cJSON_GetObjectItemCaseSensitive(doc, "determined");
    ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(det, "node")->valuestring, "assumed");
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(doc, "stages")), 1);
    cJSON_Delete(doc);
    test_cli_free(&r);
    ck_assert_msg(th_system_load(out, &s, &err) == 0, "%s", err.msg);
    ck_assert_rel(s.dims[1].latency, 1000.0);
    ck_assert_rel(s.dims[1].bw_GBps, 2.048);
    /* held at twice the node's bandwidth and no latency: another split, the same sums:
     * latency 2 (0 + 2 a1) = 10 us gives a1 = 2500 ns; (1/8) / B1 = 2^-13 - (7/4) / 57344
     * = 2^-13 - 2^-15 = 3 * 2^-15 us/B gives B1 = 2^15 / 24 B/us = 1.365333 GB/s (6 digits) */
    test_cli(&r, "calibrate %s --npus-per-node 8 --topology switch --node-bw 57.344 -o %s --force",
             two, out);
    test_expect_ok(&r, "calibrate --npus-per-node, another assumption");
    ck_assert_msg(strstr(r.out, "assumed (--node-bw, --node-latency: no single-node log)"), "%s",
                  r.out);
    test_cli_free(&r);
    ck_assert_msg(th_system_load(out, &s, &err) == 0, "%s", err.msg);
    ck_assert_rel(s.dims[1].latency, 2500.0);
    ck_assert_msg(fabs(s.dims[1].bw_GBps - 32768.0 / 24 / 1000) <= 5e-6, "%.9g", s.dims[1].bw_GBps);
    test_cli(&r, "run -s %s -b 1MiB -p baseline -q fifo -f csv", out);
    test_csv_parse(&c, r.out);
    ck_assert_msg(fabs(test_csv_d(&c, 0, "time_us") - 138.0) < 1e-3, "%s", r.out);
    test_csv_free(&c);
    test_cli_free(&r);
    /* the three 2 x 8 layouts, each alone with the node held at an NVLink-like 300 GB/s:
     * the two-dim system predicts every size from 64 MiB up within 10% */
    for (int i = 0; i < 3; i++) {
        char name[64];
        snprintf(name, sizeof name, "calibrate/%s", real_logs[i]);
        test_cli(&r,
                 "calibrate %s --npus-per-node 8 --topology switch --node-bw 300 --min-size "
                 "64MiB -o %s --force",
                 test_dpath(name), out);
        test_expect_quiet(&r, real_logs[i]);
        test_cli_free(&r);
        check_predicts(out, test_dpath(name));
    }
    /* what the logs cannot determine */
    test_bad("a multi-node log alone determines only the sums",
             "calibrate %s --npus-per-node 8 --topology switch", two);
    test_bad("no multi-node log (a multiple of 8 ranks): the network dim is not determined",
             "calibrate %s --npus-per-node 8 --topology switch", node);
    test_bad("expected 4 (one node of --npus-per-node 4) or a multiple of it",
             "calibrate %s %s --npus-per-node 4 --topology switch", two, node);
    test_bad("a single-node log, fits it",
             "calibrate %s %s --npus-per-node 8 --topology switch --node-bw 300", two, node);
    test_bad("not with -s, --dim, --npus",
             "calibrate %s --npus-per-node 8 --topology switch --npus 8", two);
    test_rm_dir(dir);
}
END_TEST

START_TEST(test_cli_update_dim) {
    char *dir = test_tmp_dir();
    const char *log = write_log(dir, "ar.log", gen_text(&exact_ar));
    const char *sys = write_log(dir, "hgx.json",
                                "{\"name\": \"hgx\", \"dims\": ["
                                "{\"topology\": \"ring\", \"npus\": 4, \"bw_GBps\": 100, "
                                "\"latency_ns\": 10},"
                                "{\"topology\": \"switch\", \"npus\": 8, \"bw_GBps\": 35.84, "
                                "\"latency_ns\": 900}]}\n");
    test_cli_out r;
    test_cli(&r, "calibrate --dim 1 -s %s %s -o %s/fitted.json", sys, log, dir);
    test_expect_quiet(&r, "calibrate --dim 1");
    ck_assert(strstr(r.out, "was         latency_ns 900, bw_GBps 35.84, efficiency 1"));
    test_cli_free(&r);
    TEST_DIR_PATH(out, dir, "fitted.json");
    th_system s;
    th_error err = {0};
    ck_assert_msg(th_system_load(out, &s, &err) == 0, "%s", err.msg);
    ck_assert(s.dims[0].latency == 10 && s.dims[1].latency == 500);
    ck_assert(s.dims[1].bw_GBps == 28.672);
    /* efficiency against the file's 35.84 GB/s: 28.672 / 35.84 = 0.8 */
    test_cli(&r, "calibrate --dim 1 -s %s %s --efficiency -o %s --force", sys, log, out);
    test_expect_quiet(&r, "calibrate --efficiency");
    test_cli_free(&r);
    ck_assert(th_system_load(out, &s, &err) == 0);
    ck_assert(s.dims[1].bw_GBps == 35.84 && s.dims[1].efficiency == 0.8);
    test_cli(&r, "run -s %s -b 1GiB --dims 1 -n 1 -p baseline -q fifo", out);
    test_expect_ok(&r, "run on the fitted system");
    test_cli_free(&r);
    /* -f json: the same fit as a JSON report (the dim as it was: 900 ns, 35.84 GB/s; the
     * efficiency 0.8 as above), the system file inside it */
    test_cli(&r, "calibrate --dim 1 -s %s %s --efficiency -o %s --force -f json", sys, log, out);
    test_expect_quiet(&r, "calibrate -f json");
    ck_assert_msg(strstr(r.out, "\"was\":\t{\n\t\t\"latency_ns\":\t900,\n\t\t\"bw_GBps\":\t35.84,"),
                  "%s", r.out);
    ck_assert(strstr(r.out, "\"index\":\t1,") && strstr(r.out, "\"efficiency\":\t0.8"));
    ck_assert(strstr(r.out, "\"system\":\t{\n\t\t\"name\":\t\"hgx\""));
    test_cli_free(&r);
    test_bad("-f: format 'csv' does not apply here (expected table or json)",
             "calibrate --dim 1 -s %s %s -f csv", sys, log);
    test_bad("has 2 dims: give the one to update with --dim", "calibrate -s %s %s", sys, log);
    test_bad("ran on 8 ranks", "calibrate --dim 0 -s %s %s", sys, log);
    test_bad("--dim 2: ", "calibrate --dim 2 -s %s %s", sys, log);
    test_bad("", "calibrate --dim 1 -s %s %s -o %s --force", sys, log, sys);
    test_rm_dir(dir);
}
END_TEST

START_TEST(test_cli_plot) {
    char *dir = test_tmp_dir();
    const char *log = test_dpath("calibrate/allreduce-8.log");
    test_cli_out r;
    test_cli(&r, "calibrate '%s' --topology switch -o %s/s.json --plot %s/fit.png", log, dir, dir);
    test_expect_quiet(&r, "calibrate --plot png");
    test_cli_free(&r);
    TEST_DIR_PATH(png, dir, "fit.png");
    size_t len;
    char *data = test_slurp(png, &len);
    ck_assert(len > 1000 && !memcmp(data, "\x89PNG\r\n", 6));
    free(data);
    test_cli(&r, "calibrate '%s' --topology switch -o %s/s2.json --plot %s/fit.svg", log, dir, dir);
    test_expect_quiet(&r, "calibrate --plot svg");
    test_cli_free(&r);
    TEST_DIR_PATH(svg, dir, "fit.svg");
    data = test_slurp(svg, &len);
    ck_assert(strstr(data, "<svg") && strstr(data, "allreduce-8.log model"));
    free(data);
    /* the plot exists: refused without --force, and the system file is not written either */
    test_bad("exists", "calibrate '%s' --topology switch -o %s/s3.json --plot %s", log, dir, png);
    TEST_DIR_PATH(s3, dir, "s3.json");
    ck_assert(!test_exists(s3));
    test_bad("x.gif: the extension names the format: expected .png, .pdf or .svg",
             "calibrate '%s' --topology switch --plot x.gif", log);
    /* without gnuplot */
    char out[4096];
    int st = test_sh(out, sizeof out,
                     "PATH=/nonexistent \"$THEMIS_BIN\" calibrate '%s' --topology switch -o "
                     "%s/s4.json --plot %s/g.png",
                     log, dir, dir);
    ck_assert_int_eq(st, 2);
    ck_assert_msg(strstr(out, "gnuplot not found; install the Debian package gnuplot-nox"), "%s",
                  out);
    test_rm_dir(dir);
}
END_TEST

START_TEST(test_cli_inputs) {
    char *dir = test_tmp_dir();
    const char *log = write_log(dir, "ar.log", gen_text(&exact_ar));
    test_bad("astra-sim preset: calibrate fits the analytical model", "calibrate %s -s %s", log,
             test_dpath("astra_2d.json"));
    /* a log without its devices: --npus is needed */
    const char *bare = write_log(dir, "bare.log",
                                 "# Collective test starting: all_reduce_perf\n"
                                 "#  size  count  type  redop  root  time  algbw  busbw  #wrong\n"
                                 "  16384   4096 float    sum    -1   7.00   2.34   4.10       0\n"
                                 "  32768   8192 float    sum    -1   8.00   4.10   7.17       0\n"
                                 "# Out of bounds values : 0 OK\n");
    test_bad("bare.log: the log lists 0 rank(s) under '# Using devices': give the dim's NPUs "
             "with --npus",
             "calibrate %s --topology switch", bare);
    /* with --npus: the two sizes give the exact case's line (7 = 6 + 1, 8 = 6 + 2 us) */
    test_cli_out r;
    test_cli(&r, "calibrate %s --topology switch --npus 8", bare);
    test_expect_ok(&r, "--npus");
    ck_assert(strstr(r.err, "latency_ns  500 +- 0"));
    test_cli_free(&r);
    /* #wrong > 0 fitted with --allow-wrong: a warning naming the first row */
    const char *wrong = write_log(
        dir, "wrong.log", edit(gen_text(&exact_ar), "       0     8.00", "       3     8.00"));
    test_bad("wrong.log:20: #wrong = 3", "calibrate %s --topology switch", wrong);
    test_cli(&r, "calibrate %s --topology switch --allow-wrong -o %s/w.json", wrong, dir);
    test_expect_ok(&r, "--allow-wrong");
    ck_assert_msg(strstr(r.err, "themis: warning: 1 row(s) with #wrong > 0 fitted, the first at "),
                  "%s", r.err);
    ck_assert(strstr(r.err, "wrong.log:20"));
    test_cli_free(&r);
    /* a size-0 row first (trimmed sizes): skipped with a note */
    const char *zero = write_log(
        dir, "zero.log",
        edit(gen_text(&exact_ar), "       16384          4096", "           0             0"));
    test_cli(&r, "calibrate %s --topology switch -o %s/z.json", zero, dir);
    test_expect_ok(&r, "size 0");
    ck_assert_msg(strstr(r.err, "zero.log: 1 row(s) of size 0 skipped"), "%s", r.err);
    test_cli_free(&r);
    test_rm_dir(dir);
}
END_TEST

START_TEST(test_cli_usage) {
    test_cli_out r;
    test_cli(&r, "calibrate --help");
    test_expect_quiet(&r, "--help");
    ck_assert(strstr(r.out, "themis calibrate nccl-allreduce.log --topology switch"));
    ck_assert(strstr(r.out, "exit status: 0 success; 1 internal error; 2 bad input or usage"));
    ck_assert(strstr(r.out, "-V, --version"));
    test_cli_free(&r);
    /* a write that fails: exit 3 naming the file */
    test_fails(3, "/dev/full", "calibrate '%s' --topology switch -o /dev/full",
               test_dpath("calibrate/allreduce-8.log"));
    test_bad("expected at least one LOG", "calibrate --topology switch");
    test_bad("expected --topology", "calibrate x.log");
    test_bad("not both", "calibrate x.log --topology ring -s y.json");
    test_bad("unknown collective 'bcast'", "calibrate x.log -c bcast --topology ring");
    test_bad("unknown topology", "calibrate x.log --topology torus");
    test_bad("--npus: expected an integer from 2 to", "calibrate x.log --topology ring --npus 1");
    test_bad("--efficiency on a new system needs", "calibrate x.log --topology ring --efficiency");
    test_bad("--min-size", "calibrate x.log --topology ring --min-size 1XB");
    test_bad("cannot open", "calibrate /nonexistent.log --topology ring --npus 8");
    test_bad("--dim selects a dim of -s", "calibrate x.log --topology ring --dim 1");
    test_bad("--npus, --algorithm, --name and --bw describe a new system",
             "calibrate x.log -s y.json --npus 8");
    test_bad("--bw is the nominal bandwidth of --efficiency",
             "calibrate x.log --topology ring --bw 5");
    test_bad("--bw: expected a number > 0", "calibrate x.log --topology ring --bw -5 --efficiency");
    test_bad("--max-size is below --min-size",
             "calibrate x.log --topology ring --min-size 1MiB --max-size 1KiB");
    test_bad("--tolerance: expected a number > 0", "calibrate x.log --topology ring --tolerance 0");
    test_bad("--dim: expected an integer from 0 to 15", "calibrate x.log -s y.json --dim 16");
    test_bad("unknown algorithm 'tree'", "calibrate x.log --topology ring --algorithm tree");
    test_bad("option '--plot' needs a value", "calibrate x.log --topology ring --plot");
    test_bad("unknown option '--bogus'", "calibrate x.log --topology ring --bogus");
    {
        char many[70 * 8] = "";
        for (int i = 0; i < 65; i++)
            strcat(many, " x.log");
        test_bad("at most 64 logs", "calibrate%s --topology ring", many);
    }
}
END_TEST

Suite *calibrate_suite(void) {
    Suite *s = suite_create("calibrate");
    TCase *t = tcase_create("fit");
    tcase_add_test(t, test_exact_recovery);
    tcase_add_test(t, test_exact_other_collectives);
    tcase_add_test(t, test_noisy_recovery);
    tcase_add_test(t, test_sample_log);
    tcase_add_test(t, test_reduce_term);
    tcase_add_test(t, test_clamped);
    tcase_add_test(t, test_size_range_and_flags);
    tcase_add_test(t, test_joint_fit);
    tcase_add_test(t, test_fit_errors);
    tcase_add_test(t, test_fit_not_finite);
    tcase_add_test(t, test_dim_apply);
    suite_add_tcase(s, t);
    t = tcase_create("logs");
    tcase_add_test(t, test_rccl_in_place_only);
    tcase_add_test(t, test_collective_detection);
    tcase_add_test(t, test_table_variants);
    tcase_add_test(t, test_error_column);
    tcase_add_test(t, test_holdout);
    tcase_add_test(t, test_launcher_prefix);
    tcase_add_test(t, test_brace_text);
    tcase_add_test(t, test_log_errors);
    tcase_add_test(t, test_cycles_and_zero_rows);
    tcase_add_test(t, test_wrong_rows);
    tcase_add_test(t, test_json);
    tcase_add_test(t, test_system_files);
    suite_add_tcase(s, t);
    t = tcase_create("cli");
    tcase_set_timeout(t, 60);
    tcase_add_test(t, test_cli_new_system);
    tcase_add_test(t, test_cli_update_dim);
    tcase_add_test(t, test_cli_real_logs);
    tcase_add_test(t, test_cli_two_dims);
    tcase_add_test(t, test_cli_npus_per_node);
    tcase_add_test(t, test_cli_plot);
    tcase_add_test(t, test_cli_inputs);
    tcase_add_test(t, test_cli_usage);
    suite_add_tcase(s, t);
    return s;
}

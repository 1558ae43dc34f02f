/* Cost model (SPEC §3): the hop table L, s(p), stage time for every cell, and stage bytes. */
#include <stdint.h>
#include <string.h>

#include "check_themis.h"
#include "themis/cost.h"
#include "themis/system.h"

/* A dim built by hand: B = bw_GBps * efficiency bytes/ns, as SPEC §2 defines it. */
static th_dim mkdim(th_topology topo, th_algorithm alg, int64_t p, double bw_GBps, double eff,
                    double alpha) {
    th_dim d;
    memset(&d, 0, sizeof d);
    strcpy(d.name, "test");
    d.topology = topo;
    d.algorithm = alg;
    d.npus = p;
    d.bw_GBps = bw_GBps;
    d.efficiency = eff;
    d.bw = bw_GBps * eff;
    d.latency = alpha;
    return d;
}

/* ---- L (SPEC §3 table) ---- */

typedef struct {
    th_topology topo;
    th_algorithm alg;
    int64_t p;
    double want;
} hop_case;

/* s(8) = 3 (power of two), s(6) = floor(log2 6) + 2 = 2 + 2 = 4, s(2) = 1. */
static const hop_case hop_cases[] = {
    /* ring topology: ring p - 1; direct and rhd are rejected (-1) */
    {TH_TOPO_RING, TH_ALG_RING, 8, 7},    /* 8 - 1 */
    {TH_TOPO_RING, TH_ALG_RING, 6, 5},    /* 6 - 1 */
    {TH_TOPO_RING, TH_ALG_RING, 2, 1},    /* 2 - 1 */
    {TH_TOPO_RING, TH_ALG_DIRECT, 8, -1}, /* error */
    {TH_TOPO_RING, TH_ALG_DIRECT, 6, -1}, /* error */
    {TH_TOPO_RING, TH_ALG_DIRECT, 2, -1}, /* error */
    {TH_TOPO_RING, TH_ALG_RHD, 8, -1},    /* error */
    {TH_TOPO_RING, TH_ALG_RHD, 6, -1},    /* error */
    {TH_TOPO_RING, TH_ALG_RHD, 2, -1},    /* error */
    /* fc: ring p - 1, direct 1, rhd s(p) */
    {TH_TOPO_FC, TH_ALG_RING, 8, 7},    /* 8 - 1 */
    {TH_TOPO_FC, TH_ALG_RING, 6, 5},    /* 6 - 1 */
    {TH_TOPO_FC, TH_ALG_RING, 2, 1},    /* 2 - 1 */
    {TH_TOPO_FC, TH_ALG_DIRECT, 8, 1},  /* 1 */
    {TH_TOPO_FC, TH_ALG_DIRECT, 6, 1},  /* 1 */
    {TH_TOPO_FC, TH_ALG_DIRECT, 2, 1},  /* 1 */
    {TH_TOPO_FC, TH_ALG_RHD, 8, 3},     /* s(8) = log2 8 = 3 */
    {TH_TOPO_FC, TH_ALG_RHD, 6, 4},     /* s(6) = 2 + 2 = 4 */
    {TH_TOPO_FC, TH_ALG_RHD, 2, 1},     /* s(2) = 1 */
    {TH_TOPO_FC, TH_ALG_RHD, 3, 3},     /* s(3) = floor(log2 3) + 2 = 1 + 2 = 3 */
    {TH_TOPO_FC, TH_ALG_RHD, 1000, 11}, /* s(1000) = 9 + 2 = 11 */
    /* switch: ring 2 (p - 1), direct 2, rhd 2 s(p) */
    {TH_TOPO_SWITCH, TH_ALG_RING, 8, 14},   /* 2 * 7 */
    {TH_TOPO_SWITCH, TH_ALG_RING, 6, 10},   /* 2 * 5 */
    {TH_TOPO_SWITCH, TH_ALG_RING, 2, 2},    /* 2 * 1 */
    {TH_TOPO_SWITCH, TH_ALG_DIRECT, 8, 2},  /* 2 */
    {TH_TOPO_SWITCH, TH_ALG_DIRECT, 6, 2},  /* 2 */
    {TH_TOPO_SWITCH, TH_ALG_DIRECT, 2, 2},  /* 2 */
    {TH_TOPO_SWITCH, TH_ALG_RHD, 8, 6},     /* 2 * 3 */
    {TH_TOPO_SWITCH, TH_ALG_RHD, 6, 8},     /* 2 * 4 */
    {TH_TOPO_SWITCH, TH_ALG_RHD, 2, 2},     /* 2 * 1 */
    {TH_TOPO_SWITCH, TH_ALG_RHD, 5, 8},     /* 2 * s(5) = 2 * (2 + 2) */
    {TH_TOPO_SWITCH, TH_ALG_RHD, 1024, 20}, /* 2 * 10 */
    {TH_TOPO_SWITCH, TH_ALG_RING, 16, 30},  /* 2 * 15 */
};

START_TEST(test_hops) {
    const hop_case *c = &hop_cases[_i];
    double got = th_cost_hops(c->topo, c->alg, c->p);
    ck_assert_msg(got == c->want, "L(%s, %s, %lld) = %g, expected %g", th_topology_name(c->topo),
                  th_algorithm_name(c->alg), (long long)c->p, got, c->want);
}
END_TEST

/* ---- s(p) ---- */

typedef struct {
    int64_t p;
    int want;
} log_case;

static const log_case log_cases[] = {
    {1, 0},                /* 1 = 2^0 */
    {2, 1},                /* 2^1 */
    {3, 3},                /* 1 + 2 */
    {4, 2},                /* 2^2 */
    {5, 4},                /* 2 + 2 */
    {6, 4},                /* 2 + 2 */
    {7, 4},                /* 2 + 2 */
    {8, 3},                /* 2^3 */
    {9, 5},                /* 3 + 2 */
    {16, 4},               /* 2^4 */
    {1000, 11},            /* 2^9 = 512 <= 1000 < 1024: 9 + 2 */
    {1024, 10},            /* 2^10 */
    {1099511627776LL, 40}, /* 2^40, the NPU cap */
    {1099511627775LL, 41}, /* 2^40 - 1: 39 + 2 */
    {1099511627777LL, 42}, /* 2^40 + 1: 40 + 2 */
};

START_TEST(test_log_steps) {
    const log_case *c = &log_cases[_i];
    ck_assert_msg(th_cost_log_steps(c->p) == c->want, "s(%lld) = %d, expected %d", (long long)c->p,
                  th_cost_log_steps(c->p), c->want);
}
END_TEST

START_TEST(test_log_steps_beyond_double) {
    /* p that a double cannot hold exactly: s must still be exact on the integer. */
    ck_assert_int_eq(th_cost_log_steps((INT64_C(1) << 53) + 1), 55); /* 53 + 2 */
    ck_assert_int_eq(th_cost_log_steps((INT64_C(1) << 62) - 1), 63); /* 61 + 2 */
}
END_TEST

START_TEST(test_log_steps_top_of_int64) {
    /* The largest int64 values: s is defined for every p >= 1, and must return (no overflow). */
    ck_assert_int_eq(th_cost_log_steps(INT64_C(1) << 62), 62); /* 2^62 */
    ck_assert_int_eq(th_cost_log_steps(INT64_MAX), 64);        /* 2^63 - 1: 62 + 2 */
}
END_TEST

/* ---- stage time ---- */

typedef struct {
    const char *what;
    th_op op;
    th_topology topo;
    th_algorithm alg;
    int64_t p;
    double bw_GBps;
    double eff;
    double alpha;     /* ns */
    double reduce_bw; /* bytes per ns, 0 = free */
    double m;         /* bytes */
    double want;      /* ns */
} time_case;

/* time = alpha L + m (p-1) / (p B) [+ m (p-1)/p / reduce_bw for RS]. */
static const time_case time_cases[] = {
    /* ring/ring p 4, B 250, alpha 20, m 1e6: 20*3 + 1e6*3/(4*250) = 60 + 3000 = 3060 */
    {"ring RS", TH_OP_RS, TH_TOPO_RING, TH_ALG_RING, 4, 250, 1, 20, 0, 1e6, 3060},
    {"ring AG", TH_OP_AG, TH_TOPO_RING, TH_ALG_RING, 4, 250, 1, 20, 0, 1e6, 3060},
    {"ring A2A", TH_OP_A2A, TH_TOPO_RING, TH_ALG_RING, 4, 250, 1, 20, 0, 1e6, 3060},
    /* with reduce_bw 100, RS adds 1e6*3/4/100 = 7500: 3060 + 7500 = 10560 */
    {"ring RS reduce", TH_OP_RS, TH_TOPO_RING, TH_ALG_RING, 4, 250, 1, 20, 100, 1e6, 10560},
    /* AG and A2A do not reduce: still 3060 */
    {"ring AG reduce", TH_OP_AG, TH_TOPO_RING, TH_ALG_RING, 4, 250, 1, 20, 100, 1e6, 3060},
    {"ring A2A reduce", TH_OP_A2A, TH_TOPO_RING, TH_ALG_RING, 4, 250, 1, 20, 100, 1e6, 3060},
    /* fc p 8, B 200, alpha 100, m 8e6: beta term 8e6*7/(8*200) = 56e6/1600 = 35000 */
    /* ring L 7: 700 + 35000 = 35700; direct L 1: 100 + 35000; rhd L s(8) = 3: 300 + 35000 */
    {"fc/ring p8", TH_OP_RS, TH_TOPO_FC, TH_ALG_RING, 8, 200, 1, 100, 0, 8e6, 35700},
    {"fc/direct p8", TH_OP_RS, TH_TOPO_FC, TH_ALG_DIRECT, 8, 200, 1, 100, 0, 8e6, 35100},
    {"fc/rhd p8", TH_OP_AG, TH_TOPO_FC, TH_ALG_RHD, 8, 200, 1, 100, 0, 8e6, 35300},
    /* fc p 6, B 200, alpha 100, m 6e6: beta term 6e6*5/(6*200) = 30e6/1200 = 25000 */
    /* ring L 5: 500 + 25000 = 25500; direct L 1: 100 + 25000; rhd L s(6) = 4: 400 + 25000 */
    {"fc/ring p6", TH_OP_AG, TH_TOPO_FC, TH_ALG_RING, 6, 200, 1, 100, 0, 6e6, 25500},
    {"fc/direct p6", TH_OP_AG, TH_TOPO_FC, TH_ALG_DIRECT, 6, 200, 1, 100, 0, 6e6, 25100},
    {"fc/rhd p6", TH_OP_RS, TH_TOPO_FC, TH_ALG_RHD, 6, 200, 1, 100, 0, 6e6, 25400},
    /* ... with reduce_bw 50: + 6e6*5/6/50 = 100000 -> 125400 */
    {"fc/rhd p6 reduce", TH_OP_RS, TH_TOPO_FC, TH_ALG_RHD, 6, 200, 1, 100, 50, 6e6, 125400},
    /* switch p 16, B 50, alpha 1000, m 16e6: beta term 16e6*15/(16*50) = 240e6/800 = 300000 */
    {"switch/ring p16", TH_OP_RS, TH_TOPO_SWITCH, TH_ALG_RING, 16, 50, 1, 1000, 0, 16e6,
     330000}, /* 2*15*1000 = 30000 + 300000 */
    {"switch/direct p16", TH_OP_AG, TH_TOPO_SWITCH, TH_ALG_DIRECT, 16, 50, 1, 1000, 0, 16e6,
     302000}, /* 2*1000 + 300000 */
    {"switch/rhd p16", TH_OP_RS, TH_TOPO_SWITCH, TH_ALG_RHD, 16, 50, 1, 1000, 0, 16e6,
     308000}, /* 2*4*1000 = 8000 + 300000 */
    /* switch p 6, B 50, alpha 1000, m 6e6: beta term 6e6*5/(6*50) = 30e6/300 = 100000 */
    {"switch/ring p6", TH_OP_AG, TH_TOPO_SWITCH, TH_ALG_RING, 6, 50, 1, 1000, 0, 6e6,
     110000}, /* 2*5*1000 = 10000 + 100000 */
    {"switch/direct p6", TH_OP_RS, TH_TOPO_SWITCH, TH_ALG_DIRECT, 6, 50, 1, 1000, 0, 6e6,
     102000}, /* 2*1000 + 100000 */
    {"switch/rhd p6", TH_OP_AG, TH_TOPO_SWITCH, TH_ALG_RHD, 6, 50, 1, 1000, 0, 6e6,
     108000}, /* 2*4*1000 = 8000 + 100000 */
    /* p 2, B 100, alpha 10, m 1000: beta term 1000*1/(2*100) = 5 */
    {"ring p2", TH_OP_RS, TH_TOPO_RING, TH_ALG_RING, 2, 100, 1, 10, 0, 1000, 15}, /* 10 + 5 */
    {"fc/rhd p2", TH_OP_RS, TH_TOPO_FC, TH_ALG_RHD, 2, 100, 1, 10, 0, 1000, 15},  /* 10 + 5 */
    {"switch/rhd p2", TH_OP_AG, TH_TOPO_SWITCH, TH_ALG_RHD, 2, 100, 1, 10, 0, 1000, 25}, /* 20+5 */
    /* efficiency 0.5 on fc/direct p 8, 200 GB/s -> B = 100: 100 + 8e6*7/(8*100) = 70100 */
    {"fc/direct eff", TH_OP_RS, TH_TOPO_FC, TH_ALG_DIRECT, 8, 200, 0.5, 100, 0, 8e6, 70100},
    /* switch/rhd p 4, 80 GB/s * 0.25 = 20, alpha 50, m 4000, reduce 10:
     * L = 2*2 = 4 -> 200; 4000*3/(4*20) = 150; reduction 4000*3/4/10 = 300 */
    {"switch eff RS", TH_OP_RS, TH_TOPO_SWITCH, TH_ALG_RHD, 4, 80, 0.25, 50, 10, 4000, 650},
    {"switch eff AG", TH_OP_AG, TH_TOPO_SWITCH, TH_ALG_RHD, 4, 80, 0.25, 50, 10, 4000, 350},
    {"switch eff A2A", TH_OP_A2A, TH_TOPO_SWITCH, TH_ALG_RHD, 4, 80, 0.25, 50, 10, 4000, 350},
    /* non-integer m = 1e9/3 on ring p 4, B 250, alpha 20: 60 + (1e9/3)*3/1000 = 1000060 */
    {"fractional m", TH_OP_AG, TH_TOPO_RING, TH_ALG_RING, 4, 250, 1, 20, 0, 1e9 / 3, 1000060},
    /* alpha 0, fc/direct p 5, B 25, m 1000: 1000*4/(5*25) = 4000/125 = 32 */
    {"alpha 0", TH_OP_RS, TH_TOPO_FC, TH_ALG_DIRECT, 5, 25, 1, 0, 0, 1000, 32},
};

START_TEST(test_time) {
    const time_case *c = &time_cases[_i];
    th_dim d = mkdim(c->topo, c->alg, c->p, c->bw_GBps, c->eff, c->alpha);
    double got = th_cost_time(&d, c->reduce_bw, c->op, c->m);
    double tol = 1e-9 * (c->want > 1.0 ? c->want : 1.0);
    ck_assert_msg(fabs(got - c->want) <= tol, "%s: time = %.17g, expected %.17g", c->what, got,
                  c->want);
}
END_TEST

START_TEST(test_time_default_system) {
    /* The first chunk of the §8 default (1 GiB All-Reduce, 1 chunk) on the built-in system.
     * dim 0 ring/ring p 4, B 250, alpha 20, m = 2^30 = 1073741824:
     *   20*3 + 1073741824*3/(4*250) = 60 + 3221225.472 = 3221285.472
     * dim 1 fc/direct p 8, B 200, alpha 100, m = 2^30/4 = 268435456:
     *   100 + 268435456*7/1600 = 100 + 1174405.12 = 1174505.12
     * dim 2 switch/rhd p 16, B 50, alpha 1000, m = 2^30/32 = 33554432:
     *   2*4*1000 + 33554432*15/800 = 8000 + 629145.6 = 637145.6 */
    th_system sys;
    th_system_default(&sys);
    ck_assert_rel(th_cost_time(&sys.dims[0], sys.reduce_bw, TH_OP_RS, 1073741824.0), 3221285.472);
    ck_assert_rel(th_cost_time(&sys.dims[1], sys.reduce_bw, TH_OP_RS, 268435456.0), 1174505.12);
    ck_assert_rel(th_cost_time(&sys.dims[2], sys.reduce_bw, TH_OP_RS, 33554432.0), 637145.6);
    ck_assert_rel(th_cost_time(&sys.dims[2], sys.reduce_bw, TH_OP_AG, 33554432.0), 637145.6);
}
END_TEST

START_TEST(test_time_loaded_system) {
    /* tests/data/sys_full.json: efficiency and reduce_GBps 400 through the loader. */
    th_system sys;
    th_error err = {0};
    ck_assert_msg(th_system_load(test_data("sys_full.json"), &sys, &err) == 0, "%s", err.msg);
    ck_assert_rel(sys.reduce_bw, 400.0);
    /* chip: ring/ring p 2, 300 * 0.5 = 150, alpha 10, m 3e5:
     *   AG 10*1 + 3e5*1/(2*150) = 10 + 1000 = 1010; RS + 3e5*1/2/400 = 375 -> 1385 */
    ck_assert_rel(th_cost_time(&sys.dims[0], sys.reduce_bw, TH_OP_AG, 3e5), 1010.0);
    ck_assert_rel(th_cost_time(&sys.dims[0], sys.reduce_bw, TH_OP_RS, 3e5), 1385.0);
    /* board: fc/rhd p 6, B 120, alpha 50, m 6e5: L = s(6) = 4 -> 200;
     *   6e5*5/(6*120) = 3e6/720; RS + 6e5*5/6/400 = 5e5/400 = 1250 */
    ck_assert_rel(th_cost_time(&sys.dims[1], sys.reduce_bw, TH_OP_AG, 6e5), 200.0 + 3e6 / 720.0);
    ck_assert_rel(th_cost_time(&sys.dims[1], sys.reduce_bw, TH_OP_RS, 6e5),
                  200.0 + 3e6 / 720.0 + 1250.0);
    /* rack: switch/direct p 3, 80 * 0.75 = 60, alpha 500, m 3e5: L = 2 -> 1000;
     *   3e5*2/(3*60) = 6e5/180; RS + 3e5*2/3/400 = 2e5/400 = 500 */
    ck_assert_rel(th_cost_time(&sys.dims[2], sys.reduce_bw, TH_OP_AG, 3e5), 1000.0 + 6e5 / 180.0);
    ck_assert_rel(th_cost_time(&sys.dims[2], sys.reduce_bw, TH_OP_RS, 3e5),
                  1000.0 + 6e5 / 180.0 + 500.0);
    ck_assert_rel(th_cost_time(&sys.dims[2], sys.reduce_bw, TH_OP_A2A, 3e5), 1000.0 + 6e5 / 180.0);
    /* row: fc/ring p 5, B 25, alpha 2000, m 5e4: L = 4 -> 8000; 5e4*4/(5*25) = 1600;
     *   AG 9600; RS + 5e4*4/5/400 = 100 -> 9700 */
    ck_assert_rel(th_cost_time(&sys.dims[3], sys.reduce_bw, TH_OP_AG, 5e4), 9600.0);
    ck_assert_rel(th_cost_time(&sys.dims[3], sys.reduce_bw, TH_OP_RS, 5e4), 9700.0);
}
END_TEST

START_TEST(test_time_linear_in_m) {
    /* Invariant: time(2m) - time(m) = m (p-1)/(pB) (+ RS reduction), the alpha term cancels.
     * fc/rhd p 6, B 200, alpha 100, m 6e6: 25000 per 6e6 bytes; with reduce 50, RS 125000. */
    th_dim d = mkdim(TH_TOPO_FC, TH_ALG_RHD, 6, 200, 1, 100);
    ck_assert_rel(th_cost_time(&d, 0, TH_OP_AG, 12e6) - th_cost_time(&d, 0, TH_OP_AG, 6e6),
                  25000.0);
    ck_assert_rel(th_cost_time(&d, 50, TH_OP_RS, 12e6) - th_cost_time(&d, 50, TH_OP_RS, 6e6),
                  125000.0); /* 25000 + 6e6*5/6/50 = 25000 + 100000 */
}
END_TEST

/* ---- stage bytes ---- */

START_TEST(test_bytes) {
    th_dim d4 = mkdim(TH_TOPO_RING, TH_ALG_RING, 4, 250, 1, 20);
    th_dim d6 = mkdim(TH_TOPO_FC, TH_ALG_RHD, 6, 200, 0.5, 100);
    th_dim d16 = mkdim(TH_TOPO_SWITCH, TH_ALG_DIRECT, 16, 50, 1, 1000);
    th_dim d2 = mkdim(TH_TOPO_SWITCH, TH_ALG_RHD, 2, 1, 1, 0);
    th_dim d1 = mkdim(TH_TOPO_FC, TH_ALG_DIRECT, 1, 100, 1, 5);
    ck_assert_rel(th_cost_bytes(&d4, 1e6), 750000.0);  /* 1e6 * 3/4 */
    ck_assert_rel(th_cost_bytes(&d6, 6e6), 5e6);       /* 6e6 * 5/6; efficiency is irrelevant */
    ck_assert_rel(th_cost_bytes(&d16, 16e6), 15e6);    /* 16e6 * 15/16 */
    ck_assert_rel(th_cost_bytes(&d2, 1000), 500.0);    /* 1000 * 1/2 */
    ck_assert_rel(th_cost_bytes(&d1, 1000), 0.0);      /* p = 1: 1000 * 0/1 */
    ck_assert_rel(th_cost_bytes(&d4, 1e9 / 3), 2.5e8); /* (1e9/3) * 3/4 */
}
END_TEST

START_TEST(test_op_names) {
    ck_assert_str_eq(th_op_name(TH_OP_RS), "RS");
    ck_assert_str_eq(th_op_name(TH_OP_AG), "AG");
    ck_assert_str_eq(th_op_name(TH_OP_A2A), "A2A");
}
END_TEST

/* The latency floor (th_cost_latency_floor) on the default system (SPEC §2): per RS or AG
 * pass 20 * 3 (ring 4: 3 hops) + 100 * 1 (fc 8, direct) + 1000 * 8 (switch 16, rhd: 2 * 4) =
 * 8160 ns; an All-Reduce 16320; the pod switch alone (mask 4) 8000, twice 16000; a dim of one
 * NPU adds nothing. */
START_TEST(test_latency_floor) {
    th_system s;
    th_system_default(&s);
    ck_assert_double_eq(th_cost_latency_floor(&s, 1, 0), 16320);
    ck_assert_double_eq(th_cost_latency_floor(&s, 0, 0), 8160);
    ck_assert_double_eq(th_cost_latency_floor(&s, 0, 7u), 8160);
    ck_assert_double_eq(th_cost_latency_floor(&s, 1, 4u), 16000);
    s.dims[0].npus = 1;
    ck_assert_double_eq(th_cost_latency_floor(&s, 0, 0), 8100);
}
END_TEST

/* A message of 10^6 bytes on the §8 default (ring 4 @ 250 GB/s, 20 ns; fc 8 @ 200, 100; switch
 * 16 @ 50, 1000; NPU r has coordinates r % 4, r / 4 % 8, r / 32): 0 -> 1 one ring hop, 20 +
 * 10^6 / 250 = 4020; 0 -> 3 the shorter way, one hop too; 0 -> 2 two hops, 4040; 0 -> 4 the fc
 * dim, 100 + 5000 = 5100; 1 -> 480 = (0, 0, 15): one ring hop and the switch's two, at the
 * switch's 50 GB/s, 20 + 2000 + 20000 = 22020. No message to itself or past the NPUs. */
START_TEST(test_message) {
    th_system s;
    th_system_default(&s);
    ck_assert_double_eq_tol(th_cost_message(&s, 0, 1, 1e6), 4020, 1e-9);
    ck_assert_double_eq_tol(th_cost_message(&s, 0, 3, 1e6), 4020, 1e-9);
    ck_assert_double_eq_tol(th_cost_message(&s, 0, 2, 1e6), 4040, 1e-9);
    ck_assert_double_eq_tol(th_cost_message(&s, 0, 4, 1e6), 5100, 1e-9);
    ck_assert_double_eq_tol(th_cost_message(&s, 1, 480, 1e6), 22020, 1e-9);
    ck_assert_double_eq_tol(th_cost_message(&s, 480, 1, 1e6), 22020, 1e-9);
    ck_assert_double_eq(th_cost_message(&s, 5, 5, 1e6), -1);
    ck_assert_double_eq(th_cost_message(&s, 0, 512, 1e6), -1);
    ck_assert_double_eq(th_cost_message(&s, -1, 0, 1e6), -1);
}
END_TEST

Suite *cost_suite(void) {
    Suite *s = suite_create("cost");
    TCase *tc = tcase_create("hops");
    tcase_add_loop_test(tc, test_hops, 0, (int)(sizeof hop_cases / sizeof hop_cases[0]));
    tcase_add_loop_test(tc, test_log_steps, 0, (int)(sizeof log_cases / sizeof log_cases[0]));
    tcase_add_test(tc, test_log_steps_beyond_double);
    tcase_add_test(tc, test_log_steps_top_of_int64);
    suite_add_tcase(s, tc);
    tc = tcase_create("time");
    tcase_add_loop_test(tc, test_time, 0, (int)(sizeof time_cases / sizeof time_cases[0]));
    tcase_add_test(tc, test_time_default_system);
    tcase_add_test(tc, test_time_loaded_system);
    tcase_add_test(tc, test_time_linear_in_m);
    tcase_add_test(tc, test_bytes);
    tcase_add_test(tc, test_op_names);
    tcase_add_test(tc, test_latency_floor);
    tcase_add_test(tc, test_message);
    suite_add_tcase(s, tc);
    return s;
}

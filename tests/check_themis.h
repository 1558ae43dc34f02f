/* Shared declarations for the Check test runner: one suite per module, plus the CLI. */
#ifndef CHECK_THEMIS_H
#define CHECK_THEMIS_H

#include <check.h>
#include <math.h>

#include "themis/themis.h"

Suite *units_suite(void);
Suite *system_suite(void);
Suite *cost_suite(void);
Suite *schedule_suite(void);
Suite *emulate_suite(void);
Suite *run_suite(void);
Suite *report_suite(void);
Suite *cli_suite(void);
Suite *sweep_suite(void);
Suite *astra_suite(void);
Suite *train_suite(void);
Suite *workloads_suite(void);
Suite *cli_sweep_suite(void);
Suite *summarize_suite(void);
Suite *figures_suite(void);

/* Relative comparison for hand-derived values: |got - want| <= 1e-9 * max(1, |want|). */
#define ck_assert_rel(got, want)                                                         \
    do {                                                                                 \
        double g_ = (got), w_ = (want);                                                  \
        double tol_ = 1e-9 * (fabs(w_) > 1.0 ? fabs(w_) : 1.0);                           \
        ck_assert_msg(fabs(g_ - w_) <= tol_, "%s = %.17g, expected %.17g", #got, g_, w_); \
    } while (0)

/* Path of a file under tests/data/ (THEMIS_SRCDIR or "."); static buffer, one at a time. */
const char *test_data(const char *name);

/* Appends a dim with its topology's default algorithm (SPEC §2) and efficiency 1. */
void test_add_dim(th_system *s, th_topology topo, int64_t p, double bw, double lat);
/* Names the system "test" and validates it (fills bw and npus); fails the test if invalid. */
void test_finish(th_system *s);
/* The worked example of the reference facts: p = (4, 8, 16), B = (300, 400, 100) GB/s,
 * alpha 0, topologies ring, fc, switch. */
th_system test_ref_system(void);
th_collective test_coll(th_coll_type t, double size, int64_t chunks, uint32_t mask);
/* Asserts two results are bit-identical. */
void test_same_result(const th_result *a, const th_result *b);

#endif

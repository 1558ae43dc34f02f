/* Check suite for the emulator (SPEC §6-§7): hand-traced times and invariants over many runs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_themis.h"
#include "themis/emulate.h"

#define MIB 1048576.0

/* 2-D heterogeneous with latency: ring 8 @ 100 (50 ns), switch 4 @ 25 (500 ns, rhd). */
static th_system hetero2_system(void) {
    th_system s;
    memset(&s, 0, sizeof s);
    test_add_dim(&s, TH_TOPO_RING, 8, 100, 50);
    test_add_dim(&s, TH_TOPO_SWITCH, 4, 25, 500);
    test_finish(&s);
    return s;
}

/* 4-D with a p = 1 dim, efficiency < 1, non-power-of-two p and a reduction cost. */
static th_system odd4_system(void) {
    th_system s;
    memset(&s, 0, sizeof s);
    test_add_dim(&s, TH_TOPO_FC, 2, 200, 10);
    test_add_dim(&s, TH_TOPO_RING, 1, 100, 5);
    test_add_dim(&s, TH_TOPO_SWITCH, 6, 75, 300);
    test_add_dim(&s, TH_TOPO_RING, 3, 40, 30);
    s.dims[2].efficiency = 0.8;
    s.reduce_bw = 500;
    test_finish(&s);
    return s;
}

/* A growable trace. */
typedef struct recbuf {
    th_stage_rec *r;
    size_t n, cap;
} recbuf;

static void rec_cb(void *ctx, const th_stage_rec *rec) {
    recbuf *b = ctx;
    if (b->n == b->cap) {
        b->cap = b->cap ? 2 * b->cap : 256;
        b->r = realloc(b->r, b->cap * sizeof *b->r);
        ck_assert_ptr_nonnull(b->r);
    }
    b->r[b->n++] = *rec;
}

/* Plans and runs one collective; the trace (when b != NULL) is reset first. */
static void run(const th_system *s, th_collective c, th_policy pol, th_load_model lm, th_intra q,
                th_plan *plan, th_emu *emu, recbuf *b, th_result *res) {
    th_error err = {0};
    ck_assert_msg(th_sched_plan(plan, s, &c, pol, lm, &err) == 0, "plan: %s", err.msg);
    if (b) b->n = 0;
    ck_assert_msg(th_emu_run(emu, s, plan, q, b ? rec_cb : NULL, b, res, &err) == 0, "emu: %s",
                  err.msg);
}

/* Convenience: fresh plan and workspace, no trace. */
static th_result run1(const th_system *s, th_collective c, th_policy pol, th_load_model lm,
                      th_intra q) {
    th_plan *plan = th_plan_create();
    th_emu *emu = th_emu_create();
    th_result res;
    ck_assert_ptr_nonnull(plan);
    ck_assert_ptr_nonnull(emu);
    run(s, c, pol, lm, q, plan, emu, NULL, &res);
    th_plan_free(plan);
    th_emu_free(emu);
    return res;
}

/* ---- hand-computed times ---- */

/* Default system, All-Reduce of 1 MiB in 1 chunk, baseline (0,1,2), no reduction cost:
 *  dim0 ring 4 @ 250, 20 ns, L = 3: m = 1048576: 60 + 1048576*3/4/250 = 60 + 3145.728
 *  dim1 fc 8 @ 200, 100 ns, direct L = 1: m = 262144: 100 + 229376/200 = 100 + 1146.88
 *  dim2 switch 16 @ 50, 1000 ns, rhd L = 2 s(16) = 8: m = 32768: 8000 + 30720/50 = 8614.4
 *  RS = 3205.728 + 1246.88 + 8614.4 = 13067.008; AG mirrors: time = 26134.016. */
START_TEST(test_one_chunk_default) {
    th_system s;
    th_system_default(&s);
    th_result r = run1(&s, test_coll(TH_COLL_ALLREDUCE, MIB, 1, 0), TH_POLICY_BASELINE,
                       TH_LOAD_ALPHA_BETA, TH_INTRA_FIFO);
    ck_assert_rel(r.time, 26134.016);
    ck_assert_int_eq(r.stages, 6);
    ck_assert_int_eq(r.ndims, 3);
    ck_assert_rel(r.busy[0], 2 * 3205.728);
    ck_assert_rel(r.busy[1], 2 * 1246.88);
    ck_assert_rel(r.busy[2], 2 * 8614.4);
    ck_assert_rel(r.bytes[0], 2 * 786432.0); /* 2 m (p-1)/p = 2 * 1048576 * 3/4 */
    ck_assert_rel(r.bytes[1], 2 * 229376.0); /* 2 * 262144 * 7/8 */
    ck_assert_rel(r.bytes[2], 2 * 30720.0);  /* 2 * 32768 * 15/16 */
    /* ideal = 2 (786432 + 229376 + 30720) / (250 + 200 + 50) = 2093056 / 500 = 4186.112 */
    ck_assert_rel(r.ideal, 4186.112);
    ck_assert_rel(r.bw_util, 4186.112 / 26134.016);
    ck_assert_rel(r.algbw, MIB / 26134.016);
    ck_assert_rel(r.busbw, MIB / 26134.016 * 2 * 511 / 512);
    ck_assert_rel(r.dim_util[0], 1572864 / (250 * 26134.016));

    /* All-to-All of 1 MiB in 1 chunk, m = c on every dim:
     * 60 + 1048576*3/4/250 = 3205.728; 100 + 917504/200 = 4687.52;
     * 8000 + 983040/50 = 27660.8; total 35554.048 */
    r = run1(&s, test_coll(TH_COLL_ALLTOALL, MIB, 1, 0), TH_POLICY_BASELINE, TH_LOAD_ALPHA_BETA,
             TH_INTRA_FIFO);
    ck_assert_rel(r.time, 35554.048);
    ck_assert_int_eq(r.stages, 3);
}
END_TEST

/* From JSON, with efficiency, reduce_GBps and an explicit algorithm. All-Reduce of 4000 B,
 * 1 chunk: dim0 ring 4, B = 100 * 0.5 = 50, alpha 10, L = 3; dim1 switch 2 @ 50, alpha 30,
 * ring algorithm L = 2 (p-1) = 2; reduce 100 B/ns.
 *  RS dim0 m=4000: 30 + 3000/50 + 3000/100 = 30 + 60 + 30 = 120
 *  RS dim1 m=1000: 60 + 500/50 + 500/100 = 60 + 10 + 5 = 75
 *  AG dim1: 60 + 10 = 70; AG dim0: 30 + 60 = 90; time = 355. */
START_TEST(test_one_chunk_json) {
    const char *json =
        "{\"name\": \"t\", \"reduce_GBps\": 100, \"dims\": ["
        "{\"topology\": \"ring\", \"npus\": 4, \"bw_GBps\": 100, \"efficiency\": 0.5,"
        " \"latency_ns\": 10},"
        "{\"topology\": \"switch\", \"algorithm\": \"ring\", \"npus\": 2, \"bw_GBps\": 50,"
        " \"latency_ns\": 30}]}";
    th_system s;
    th_error err = {0};
    ck_assert_msg(th_system_parse(json, strlen(json), "test", &s, &err) == 0, "%s", err.msg);
    th_result r = run1(&s, test_coll(TH_COLL_ALLREDUCE, 4000, 1, 0), TH_POLICY_BASELINE,
                       TH_LOAD_ALPHA_BETA, TH_INTRA_SCF);
    ck_assert_rel(r.time, 355.0);
    ck_assert_rel(r.busy[0], 210.0);   /* 120 + 90 */
    ck_assert_rel(r.busy[1], 145.0);   /* 75 + 70 */
    ck_assert_rel(r.bytes[0], 6000.0); /* 2 * 4000 * 3/4 */
    ck_assert_rel(r.bytes[1], 1000.0); /* 2 * 1000 * 1/2 */
    ck_assert_rel(r.ideal, 70.0);      /* 7000 / (50 + 50) */
    ck_assert_rel(r.bw_util, 70.0 / 355.0);
    ck_assert_rel(r.algbw, 4000.0 / 355.0);
    ck_assert_rel(r.busbw, 4000.0 / 355.0 * 2 * 7 / 8); /* P_a = 8 */
    ck_assert_rel(r.dim_util[0], 6000.0 / (50 * 355.0));
    ck_assert_rel(r.dim_util[1], 1000.0 / (50 * 355.0));

    /* Reduce-Scatter alone: 120 + 75 = 195; busbw = algbw * 7/8 */
    r = run1(&s, test_coll(TH_COLL_REDUCESCATTER, 4000, 1, 0), TH_POLICY_BASELINE,
             TH_LOAD_ALPHA_BETA, TH_INTRA_FIFO);
    ck_assert_rel(r.time, 195.0);
    ck_assert_rel(r.busbw, 4000.0 / 195.0 * 7 / 8);
    /* All-Gather of output 4000, baseline (1,0): dim1 m = 1000: 70; dim0 m = 4000: 90 */
    r = run1(&s, test_coll(TH_COLL_ALLGATHER, 4000, 1, 0), TH_POLICY_BASELINE, TH_LOAD_ALPHA_BETA,
             TH_INTRA_FIFO);
    ck_assert_rel(r.time, 160.0);
    ck_assert_rel(r.bytes[0], 3000.0);
    ck_assert_rel(r.bytes[1], 500.0);
}
END_TEST

/* One ring of 8 @ 100 GB/s, 50 ns: a stage of c = 2000 takes 50*7 + 2000*7/8/100 = 367.5.
 * The single server is never idle, so C stages take C x 367.5 under either intra policy. */
START_TEST(test_one_dim_c_chunks) {
    th_system s;
    memset(&s, 0, sizeof s);
    test_add_dim(&s, TH_TOPO_RING, 8, 100, 50);
    test_finish(&s);
    for (int q = 0; q < 2; q++) {
        th_result r = run1(&s, test_coll(TH_COLL_REDUCESCATTER, 8000, 4, 0), TH_POLICY_THEMIS,
                           TH_LOAD_ALPHA_BETA, (th_intra)q);
        ck_assert_rel(r.time, 4 * 367.5); /* 1470 */
        ck_assert_rel(r.busy[0], 1470.0);
        r = run1(&s, test_coll(TH_COLL_ALLREDUCE, 8000, 4, 0), TH_POLICY_BASELINE,
                 TH_LOAD_ALPHA_BETA, (th_intra)q);
        ck_assert_rel(r.time, 8 * 367.5); /* 2C stages: 2940 */
        ck_assert_int_eq(r.stages, 8);
        /* 1000 chunks of c = 2: 350 + 2*7/8/100 = 350.0175 each */
        r = run1(&s, test_coll(TH_COLL_ALLGATHER, 2000, 1000, 0), TH_POLICY_ROUNDROBIN,
                 TH_LOAD_ALPHA_BETA, (th_intra)q);
        ck_assert_rel(r.time, 1000 * 350.0175);
    }
}
END_TEST

/* Reference worked example, Reduce-Scatter 64 MiB in 8 chunks. Baseline + FIFO: dim0 runs
 * the 8 chunks back to back (20971.52 each, to 167772.16); the last chunk then takes dim1
 * (4587.52) and dim2 (2457.6): 174817.28. Themis + FIFO: 95846.4 (reference/README.md);
 * dim2 is busy all the time; per-dim bytes = final load x B (alpha 0):
 * 73564.16*300 = 22069248, 88309.76*400 = 35323904, 95846.4*100 = 9584640. */
START_TEST(test_reference_reducescatter) {
    th_system s = test_ref_system();
    th_collective c = test_coll(TH_COLL_REDUCESCATTER, 64 * MIB, 8, 0);
    th_result r = run1(&s, c, TH_POLICY_BASELINE, TH_LOAD_BANDWIDTH, TH_INTRA_FIFO);
    ck_assert_rel(r.time, 174817.28);
    for (int lm = 0; lm < 2; lm++) {
        r = run1(&s, c, TH_POLICY_THEMIS, (th_load_model)lm, TH_INTRA_FIFO);
        ck_assert_rel(r.time, 95846.4);
        ck_assert_rel(r.busy[0], 73564.16);
        ck_assert_rel(r.busy[1], 88309.76);
        ck_assert_rel(r.busy[2], 95846.4);
        ck_assert_rel(r.bytes[0], 22069248.0);
        ck_assert_rel(r.bytes[1], 35323904.0);
        ck_assert_rel(r.bytes[2], 9584640.0);
        ck_assert_rel(r.dim_util[2], 1.0); /* 9584640 / (100 * 95846.4) */
    }
    /* All-Gather baseline (2,1,0): dim2 2457.6, dim1 4587.52, dim0 20971.52 per chunk; dim0
     * starts at 2457.6 + 4587.52 = 7045.12 and never idles: 7045.12 + 8*20971.52 */
    r = run1(&s, test_coll(TH_COLL_ALLGATHER, 64 * MIB, 8, 0), TH_POLICY_BASELINE,
             TH_LOAD_BANDWIDTH, TH_INTRA_FIFO);
    ck_assert_rel(r.time, 174817.28);
}
END_TEST

/* All-Reduce 64 MiB, 8 chunks. Baseline + FIFO: dim0 (20971.52 per stage, 16 stages) never
 * idles: RS of chunks 0-7 to 167772.16; AG of chunks 0-6 were ready earlier (chunk 6's at
 * 146800.64 + 14090.24 = 160890.88), chunk 7's at 181862.4 < 314572.8: time 16*20971.52 =
 * 335544.32. Bytes: 2*S*3/4 = 100663296, 2*S/4*7/8 = 29360128, 2*S/32*15/16 = 3932160;
 * total 133955584 = 2S(1-1/512); ideal = 133955584/800 = 167444.48, bw_util = 511/1024. */
START_TEST(test_reference_allreduce) {
    th_system s = test_ref_system();
    th_collective c = test_coll(TH_COLL_ALLREDUCE, 64 * MIB, 8, 0);
    th_result r = run1(&s, c, TH_POLICY_BASELINE, TH_LOAD_BANDWIDTH, TH_INTRA_FIFO);
    ck_assert_rel(r.time, 335544.32);
    ck_assert_rel(r.bw_util, 0.4990234375);
    ck_assert_rel(r.ideal, 167444.48);
    ck_assert_rel(r.bytes[0], 100663296.0);
    ck_assert_rel(r.bytes[1], 29360128.0);
    ck_assert_rel(r.bytes[2], 3932160.0);
    ck_assert_rel(r.busy[0], 335544.32);
    ck_assert_rel(r.busy[1], 73400.32); /* 16 * 4587.52 */
    ck_assert_rel(r.busy[2], 39321.6);  /* 16 * 2457.6 */
    ck_assert_rel(r.dim_util[0], 1.0);  /* 100663296 / (300 * 335544.32) */
    ck_assert_rel(r.dim_util[1], 0.21875);
    ck_assert_rel(r.dim_util[2], 0.1171875);
    ck_assert_rel(r.algbw, 200.0);                 /* 67108864 / 335544.32 */
    ck_assert_rel(r.busbw, 200.0 * 2 * 511 / 512); /* 399.21875 */
    for (int lm = 0; lm < 2; lm++) {
        r = run1(&s, c, TH_POLICY_THEMIS, (th_load_model)lm, TH_INTRA_FIFO);
        ck_assert_rel(r.time, 254279.68);
        ck_assert_rel(r.bw_util, 167444.48 / 254279.68);
    }
}
END_TEST

/* SCF vs FIFO, hand-traced. p = (2, 2), B = (1, 1), alpha 0, Reduce-Scatter of 24 in 3
 * chunks (c = 8), roundrobin: chunk 0 (0,1), chunk 1 (1,0), chunk 2 (0,1). A stage of
 * m = 8 takes 8/2/1 = 4, of m = 4 takes 2.
 *  t=0: dim0 waits c0s0, c2s0 (both m 8, ready 0): picks c0s0 [0,4]; dim1 c1s0 [0,4].
 *  t=4: c0s1 (dim1, m 4) and c1s1 (dim0, m 4) become ready. dim1: c0s1 [4,6].
 *       dim0 waits c2s0 (m 8, ready 0) and c1s1 (m 4, ready 4):
 *   FIFO: c2s0 [4,8]; c1s1 [8,10]; c2s1 on dim1 [8,10]          -> time 10
 *   SCF:  c1s1 [4,6]; c2s0 [6,10]; c2s1 on dim1 [10,12]         -> time 12
 * bytes: dim0 4 + 4 + 2 = 10, dim1 2 + 4 + 2 = 8 (= 24 * 3/4 = 18); ideal = 18 / 2 = 9. */
static void check_trace_starts(const recbuf *b, const double want[3][2]) {
    ck_assert_uint_eq(b->n, 6);
    for (size_t k = 0; k < b->n; k++) {
        const th_stage_rec *x = &b->r[k];
        ck_assert(x->chunk >= 0 && x->chunk < 3 && x->stage >= 0 && x->stage < 2);
        ck_assert_msg(x->start == want[x->chunk][x->stage],
                      "chunk %lld stage %d starts at %g, expected %g", (long long)x->chunk,
                      x->stage, x->start, want[x->chunk][x->stage]);
    }
}

START_TEST(test_scf_vs_fifo) {
    th_system s;
    memset(&s, 0, sizeof s);
    test_add_dim(&s, TH_TOPO_RING, 2, 1, 0);
    test_add_dim(&s, TH_TOPO_RING, 2, 1, 0);
    test_finish(&s);
    th_collective c = test_coll(TH_COLL_REDUCESCATTER, 24, 3, 0);
    th_plan *plan = th_plan_create();
    th_emu *emu = th_emu_create();
    recbuf b = {0};
    th_result r;

    run(&s, c, TH_POLICY_ROUNDROBIN, TH_LOAD_ALPHA_BETA, TH_INTRA_FIFO, plan, emu, &b, &r);
    ck_assert_rel(r.time, 10.0);
    ck_assert_rel(r.ideal, 9.0);
    ck_assert_rel(r.bw_util, 0.9);
    ck_assert_rel(r.bytes[0], 10.0);
    ck_assert_rel(r.bytes[1], 8.0);
    ck_assert_rel(r.busy[0], 10.0);
    ck_assert_rel(r.busy[1], 8.0);
    static const double fifo[3][2] = {{0, 4}, {0, 8}, {4, 8}};
    check_trace_starts(&b, fifo);

    run(&s, c, TH_POLICY_ROUNDROBIN, TH_LOAD_ALPHA_BETA, TH_INTRA_SCF, plan, emu, &b, &r);
    ck_assert_rel(r.time, 12.0);
    ck_assert_rel(r.bw_util, 0.75);
    ck_assert_rel(r.busy[0], 10.0);
    static const double scf[3][2] = {{0, 4}, {0, 4}, {6, 10}};
    check_trace_starts(&b, scf);

    free(b.r);
    th_plan_free(plan);
    th_emu_free(emu);
}
END_TEST

/* ---- invariants ---- */

static int cmp_start(const void *a, const void *b) {
    const th_stage_rec *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start ? 1 : 0;
}

/* Is a strictly before b in the intra-dimension policy's order (SPEC §6)? */
static int key_less(th_intra q, const th_stage_rec *a, const th_stage_rec *b) {
    if (q == TH_INTRA_SCF && a->m != b->m) return a->m < b->m;
    if (a->ready != b->ready) return a->ready < b->ready;
    return a->chunk < b->chunk;
}

#define CHECK(cond, ...) ck_assert_msg(cond, __VA_ARGS__)
#define NEAR(got, want)  (fabs((got) - (want)) <= 1e-9 * fmax(1.0, fabs(want)))

/* Everything SPEC §6-§7 promises about one run, from its result and its trace. */
static void check_run(const th_system *s, const th_plan *plan, th_intra q, const th_result *r,
                      const recbuf *b, const char *what) {
    int64_t nst = plan->chunks * plan->nstages;
    CHECK(r->stages == nst, "%s: %lld stages, expected %lld", what, (long long)r->stages,
          (long long)nst);
    CHECK((int64_t)b->n == nst, "%s: %zu traced stages, expected %lld", what, b->n, (long long)nst);
    CHECK(r->ndims == s->ndims, "%s: ndims", what);

    /* every (chunk, stage) exactly once, matching the plan and the cost model */
    const th_stage_rec **by = calloc((size_t)nst, sizeof *by);
    ck_assert_ptr_nonnull(by);
    double bytes[TH_MAX_DIMS] = {0}, busy[TH_MAX_DIMS] = {0}, last = 0;
    for (size_t k = 0; k < b->n; k++) {
        const th_stage_rec *x = &b->r[k];
        CHECK(x->chunk >= 0 && x->chunk < plan->chunks && x->stage >= 0 && x->stage < plan->nstages,
              "%s: bad stage id", what);
        int64_t id = x->chunk * plan->nstages + x->stage;
        CHECK(by[id] == NULL, "%s: chunk %lld stage %d traced twice", what, (long long)x->chunk,
              x->stage);
        by[id] = x;
        int dim;
        th_op op;
        double m;
        th_plan_stage(plan, x->chunk, x->stage, &dim, &op, &m);
        CHECK(x->dim == dim && x->op == op && x->m == m, "%s: trace disagrees with the plan", what);
        const th_dim *d = &s->dims[dim];
        CHECK(NEAR(x->bytes, m * (double)(d->npus - 1) / (double)d->npus), "%s: stage bytes", what);
        double t = th_cost_time(d, s->reduce_bw, op, m);
        CHECK(fabs((x->end - x->start) - t) <= 1e-9 * fmax(1.0, x->end),
              "%s: stage takes %.17g, cost model says %.17g", what, x->end - x->start, t);
        CHECK(x->start >= x->ready, "%s: start %.17g before ready %.17g", what, x->start, x->ready);
        CHECK(x->end > x->start, "%s: empty stage", what);
        bytes[dim] += x->bytes;
        busy[dim] += x->end - x->start;
        last = fmax(last, x->end);
    }
    /* chaining: stage 0 is ready at issue (0), stage k+1 exactly when stage k ends */
    for (int64_t i = 0; i < plan->chunks; i++) {
        const th_stage_rec *first = by[i * plan->nstages];
        CHECK(first->ready == 0.0, "%s: chunk %lld ready at %g", what, (long long)i, first->ready);
        for (int j = 1; j < plan->nstages; j++) {
            const th_stage_rec *prev = by[i * plan->nstages + j - 1];
            const th_stage_rec *cur = by[i * plan->nstages + j];
            CHECK(cur->ready == prev->end, "%s: chunk %lld stage %d ready %.17g != %.17g", what,
                  (long long)i, j, cur->ready, prev->end);
        }
    }
    free(by);

    /* per dim: no overlap, no idling while a stage waits, policy order among waiters */
    th_stage_rec *tmp = malloc((b->n + 1) * sizeof *tmp);
    ck_assert_ptr_nonnull(tmp);
    for (int d = 0; d < s->ndims; d++) {
        size_t n = 0;
        for (size_t k = 0; k < b->n; k++)
            if (b->r[k].dim == d) tmp[n++] = b->r[k];
        qsort(tmp, n, sizeof *tmp, cmp_start);
        for (size_t k = 0; k + 1 < n; k++)
            CHECK(tmp[k + 1].start >= tmp[k].end, "%s: dim %d overlaps at %.17g", what, d,
                  tmp[k + 1].start);
        for (size_t k = 0; k < n; k++) {
            const th_stage_rec *x = &tmp[k];
            if (x->start > x->ready) {
                /* the dim must be busy on all of [ready, start): find no idle gap in it */
                double prev_end = 0;
                for (size_t g = 0; g < k; g++) {
                    CHECK(!(prev_end < tmp[g].start && prev_end < x->start &&
                            tmp[g].start > x->ready),
                          "%s: dim %d idle from %.17g while chunk %lld waits", what, d, prev_end,
                          (long long)x->chunk);
                    prev_end = tmp[g].end;
                }
                CHECK(prev_end == x->start, "%s: dim %d idle before %.17g", what, d, x->start);
            }
            /* anything that waited when x was picked must come after x in policy order */
            for (size_t g = k + 1; g < n; g++)
                if (tmp[g].ready <= x->start)
                    CHECK(key_less(q, x, &tmp[g]),
                          "%s: dim %d served chunk %lld stage %d before chunk %lld stage %d", what,
                          d, (long long)x->chunk, x->stage, (long long)tmp[g].chunk, tmp[g].stage);
        }
    }
    free(tmp);

    /* result fields */
    CHECK(NEAR(r->time, last), "%s: time %.17g, last end %.17g", what, r->time, last);
    double total = 0, sum_bw = 0;
    for (int d = 0; d < s->ndims; d++) {
        CHECK(NEAR(r->bytes[d], bytes[d]), "%s: dim %d bytes %.17g, trace %.17g", what, d,
              r->bytes[d], bytes[d]);
        CHECK(NEAR(r->busy[d], busy[d]), "%s: dim %d busy %.17g, trace %.17g", what, d, r->busy[d],
              busy[d]);
        CHECK(r->time >= r->busy[d] * (1 - 1e-12), "%s: time %.17g < busy[%d] %.17g", what, r->time,
              d, r->busy[d]);
        CHECK(NEAR(r->dim_util[d], r->bytes[d] / (s->dims[d].bw * r->time)), "%s: dim %d util",
              what, d);
        total += r->bytes[d];
    }
    for (int k = 0; k < plan->n; k++)
        sum_bw += s->dims[plan->active[k]].bw;
    double S = plan->size, pa = plan->active_npus;
    if (plan->type != TH_COLL_ALLTOALL) {
        double want = S * (1 - 1 / pa) * (plan->type == TH_COLL_ALLREDUCE ? 2 : 1);
        CHECK(NEAR(total, want), "%s: total bytes %.17g, expected %.17g", what, total, want);
        double f = (pa - 1) / pa * (plan->type == TH_COLL_ALLREDUCE ? 2 : 1);
        CHECK(NEAR(r->busbw, S / r->time * f), "%s: busbw", what);
    }
    CHECK(NEAR(r->ideal, total / sum_bw), "%s: ideal %.17g, expected %.17g", what, r->ideal,
          total / sum_bw);
    CHECK(r->time >= r->ideal * (1 - 1e-12), "%s: time %.17g < ideal %.17g", what, r->time,
          r->ideal);
    CHECK(NEAR(r->bw_util, r->ideal / r->time), "%s: bw_util", what);
    CHECK(r->bw_util <= 1 + 1e-12, "%s: bw_util %.17g > 1", what, r->bw_util);
    CHECK(NEAR(r->algbw, S / r->time), "%s: algbw", what);
}

START_TEST(test_invariants) {
    th_system sys[4];
    th_system_default(&sys[0]);
    sys[1] = test_ref_system();
    sys[2] = hetero2_system();
    sys[3] = odd4_system();
    const double sizes[4] = {1024 * MIB, 64 * MIB, 123456789.0, 1e6};
    const th_coll_type types[4] = {TH_COLL_ALLREDUCE, TH_COLL_REDUCESCATTER, TH_COLL_ALLGATHER,
                                   TH_COLL_ALLTOALL};
    const int64_t chunks[4] = {1, 3, 8, 64};
    th_plan *plan = th_plan_create();
    th_emu *emu = th_emu_create();
    recbuf b = {0};
    char what[160];
    int runs = 0;
    for (int si = 0; si < 4; si++)
        for (int ti = 0; ti < 4; ti++)
            for (int ci = 0; ci < 4; ci++)
                for (int pm = 0; pm < 4; pm++) /* baseline, themis x 2 models, roundrobin */
                    for (int q = 0; q < 2; q++) {
                        th_policy pol = pm == 0   ? TH_POLICY_BASELINE
                                        : pm == 3 ? TH_POLICY_ROUNDROBIN
                                                  : TH_POLICY_THEMIS;
                        th_load_model lm = pm == 2 ? TH_LOAD_BANDWIDTH : TH_LOAD_ALPHA_BETA;
                        th_collective c = test_coll(types[ti], sizes[si], chunks[ci], 0);
                        th_result r;
                        run(&sys[si], c, pol, lm, (th_intra)q, plan, emu, &b, &r);
                        snprintf(what, sizeof what, "sys %d %s C=%lld %s/%s/%s", si,
                                 th_coll_type_name(types[ti]), (long long)chunks[ci],
                                 th_policy_name(pol), th_load_model_name(lm),
                                 th_intra_name((th_intra)q));
                        check_run(&sys[si], plan, (th_intra)q, &r, &b, what);
                        runs++;
                    }
    ck_assert_int_eq(runs, 512);
    free(b.r);
    th_plan_free(plan);
    th_emu_free(emu);
}
END_TEST

START_TEST(test_invariants_subset) {
    /* dims {0, 2} of the default system: P_a = 64; dim 1 carries nothing */
    th_system s;
    th_system_default(&s);
    th_plan *plan = th_plan_create();
    th_emu *emu = th_emu_create();
    recbuf b = {0};
    th_result r;
    for (int pol = 0; pol < 3; pol++)
        for (int q = 0; q < 2; q++) {
            run(&s, test_coll(TH_COLL_ALLREDUCE, 256 * MIB, 16, 5), (th_policy)pol,
                TH_LOAD_ALPHA_BETA, (th_intra)q, plan, emu, &b, &r);
            check_run(&s, plan, (th_intra)q, &r, &b, "subset");
            ck_assert(r.bytes[1] == 0.0 && r.busy[1] == 0.0);
            ck_assert_rel(r.bytes[0] + r.bytes[2], 2 * 256 * MIB * 63 / 64);
            ck_assert_rel(r.busbw, r.algbw * 2 * 63 / 64);
            /* ideal = 2 S (1 - 1/64) / (250 + 50) */
            ck_assert_rel(r.ideal, 2 * 256 * MIB * 63 / 64 / 300);
        }
    free(b.r);
    th_plan_free(plan);
    th_emu_free(emu);
}
END_TEST

/* ---- determinism ---- */

static int same_trace(const recbuf *a, const recbuf *b) {
    if (a->n != b->n) return 0;
    for (size_t k = 0; k < a->n; k++) {
        const th_stage_rec *x = &a->r[k], *y = &b->r[k];
        if (x->chunk != y->chunk || x->stage != y->stage || x->op != y->op || x->dim != y->dim ||
            x->m != y->m || x->bytes != y->bytes || x->ready != y->ready || x->start != y->start ||
            x->end != y->end)
            return 0;
    }
    return 1;
}

START_TEST(test_determinism) {
    th_system s;
    th_system_default(&s);
    th_system o = odd4_system();
    th_collective c = test_coll(TH_COLL_ALLREDUCE, 1024 * MIB, 64, 0);
    for (int q = 0; q < 2; q++) {
        th_plan *plan = th_plan_create();
        th_emu *emu = th_emu_create();
        recbuf b1 = {0}, b2 = {0}, b3 = {0};
        th_result r1, r2, r3, big;
        run(&s, c, TH_POLICY_THEMIS, TH_LOAD_ALPHA_BETA, (th_intra)q, plan, emu, &b1, &r1);
        run(&s, c, TH_POLICY_THEMIS, TH_LOAD_ALPHA_BETA, (th_intra)q, plan, emu, &b2, &r2);
        test_same_result(&r1, &r2);
        ck_assert(same_trace(&b1, &b2));
        /* reuse the workspace after a larger run on another system, then a smaller one */
        run(&o, test_coll(TH_COLL_REDUCESCATTER, 1e9, 20000, 0), TH_POLICY_ROUNDROBIN,
            TH_LOAD_ALPHA_BETA, (th_intra)q, plan, emu, NULL, &big);
        run(&o, test_coll(TH_COLL_ALLGATHER, 1e6, 2, 0), TH_POLICY_BASELINE, TH_LOAD_ALPHA_BETA,
            (th_intra)q, plan, emu, NULL, &big);
        run(&s, c, TH_POLICY_THEMIS, TH_LOAD_ALPHA_BETA, (th_intra)q, plan, emu, &b3, &r3);
        test_same_result(&r1, &r3);
        ck_assert(same_trace(&b1, &b3));
        /* a fresh workspace, without a trace, agrees */
        th_result r4 = run1(&s, c, TH_POLICY_THEMIS, TH_LOAD_ALPHA_BETA, (th_intra)q);
        test_same_result(&r1, &r4);
        free(b1.r);
        free(b2.r);
        free(b3.r);
        th_plan_free(plan);
        th_emu_free(emu);
    }
}
END_TEST

/* A plan carries its model's stage rules: issuing it on an emulator reset for a system of the
 * other model is refused, not run with the wrong rules. */
START_TEST(test_plan_model_mismatch) {
    th_system s, a;
    th_system_default(&s);
    th_error err = {0};
    ck_assert_msg(th_system_load(test_data("astra_2d.json"), &a, &err) == TH_OK, "%s", err.msg);
    th_plan *plan = th_plan_create();
    th_emu *emu = th_emu_create();
    th_collective c = test_coll(TH_COLL_ALLREDUCE, 1048576, 4, 0);
    ck_assert_int_eq(th_sched_plan(plan, &a, &c, TH_POLICY_BASELINE, TH_LOAD_ALPHA_BETA, &err),
                     TH_OK);
    th_emu_reset(emu, &s, TH_INTRA_FIFO, TH_PRIO_FIFO, NULL, NULL);
    ck_assert_int_eq(th_emu_issue(emu, plan, 0, NULL, &err), TH_EINTERNAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "astra-sim"));
    th_emu_free(emu);
    th_plan_free(plan);
}
END_TEST

/* A priority key outside 0 .. INT32_MAX is refused (the layer priority packs it above the id). */
START_TEST(test_issue_key_range) {
    th_system s;
    th_system_default(&s);
    th_error err = {0};
    th_plan *plan = th_plan_create();
    th_emu *emu = th_emu_create();
    th_collective c = test_coll(TH_COLL_ALLREDUCE, 1048576, 4, 0);
    ck_assert_int_eq(th_sched_plan(plan, &s, &c, TH_POLICY_BASELINE, TH_LOAD_ALPHA_BETA, &err),
                     TH_OK);
    th_emu_reset(emu, &s, TH_INTRA_FIFO, TH_PRIO_LAYER, NULL, NULL);
    ck_assert_int_eq(th_emu_issue_key(emu, plan, 0, -1, NULL, &err), TH_EINTERNAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "priority key -1"));
    ck_assert_int_eq(th_emu_issue_key(emu, plan, 0, (int64_t)INT32_MAX + 1, NULL, &err),
                     TH_EINTERNAL);
    ck_assert_int_eq(th_emu_issue_key(emu, plan, 0, 7, NULL, &err), TH_OK);
    th_emu_free(emu);
    th_plan_free(plan);
}
END_TEST

START_TEST(test_intra_names) {
    th_intra q;
    ck_assert_int_eq(th_intra_from_name("fifo", &q), 0);
    ck_assert_int_eq(q, TH_INTRA_FIFO);
    ck_assert_int_eq(th_intra_from_name("scf", &q), 0);
    ck_assert_int_eq(q, TH_INTRA_SCF);
    ck_assert_int_eq(th_intra_from_name("lifo", &q), -1);
    ck_assert_str_eq(th_intra_name(TH_INTRA_FIFO), "fifo");
    ck_assert_str_eq(th_intra_name(TH_INTRA_SCF), "scf");
}
END_TEST

/* A system edited by hand past validation: reduce_bw 1e-310 bytes/ns makes an RS stage time
 * m (p-1)/p / 1e-310 (MiB/4 * 3 * 1e310 = 7.9e315 > DBL_MAX) overflow to infinity. The emulator
 * refuses it instead of waiting forever for a server that never ends. */
START_TEST(test_refuses_infinite_stage) {
    th_system s;
    memset(&s, 0, sizeof s);
    test_add_dim(&s, TH_TOPO_RING, 4, 100, 10);
    test_finish(&s);
    s.reduce_bw = 1e-310;
    th_collective c = test_coll(TH_COLL_ALLREDUCE, MIB, 4, 0);
    th_plan *plan = th_plan_create();
    th_emu *emu = th_emu_create();
    th_error err = {0};
    th_result res;
    ck_assert_int_eq(th_sched_plan(plan, &s, &c, TH_POLICY_BASELINE, TH_LOAD_ALPHA_BETA, &err), 0);
    ck_assert_int_eq(th_emu_run(emu, &s, plan, TH_INTRA_FIFO, NULL, NULL, &res, &err), TH_EINPUT);
    ck_assert_msg(strstr(err.msg, "dims[0]") && strstr(err.msg, "inf"), "%s", err.msg);
    /* A NaN time (latency NaN) is refused the same way. */
    s.reduce_bw = 0;
    s.dims[0].latency = NAN;
    ck_assert_int_eq(th_emu_run(emu, &s, plan, TH_INTRA_SCF, NULL, NULL, &res, &err), TH_EINPUT);
    ck_assert_msg(strstr(err.msg, "nan"), "%s", err.msg);
    /* the same with one chunk (its stages added in order) */
    c.chunks = 1;
    ck_assert_int_eq(th_sched_plan(plan, &s, &c, TH_POLICY_BASELINE, TH_LOAD_ALPHA_BETA, &err), 0);
    ck_assert_int_eq(th_emu_run(emu, &s, plan, TH_INTRA_FIFO, NULL, NULL, &res, &err), TH_EINPUT);
    ck_assert_msg(strstr(err.msg, "dims[0]") && strstr(err.msg, "nan"), "%s", err.msg);
    th_emu_free(emu);
    th_plan_free(plan);
}
END_TEST

/* A stop flag ends th_emu_run ("interrupted"); cleared, the same emulator runs to the end. */
START_TEST(test_stop_flag) {
    th_system s = hetero2_system();
    th_collective c = test_coll(TH_COLL_ALLREDUCE, MIB, 64, 0);
    th_plan *plan = th_plan_create();
    th_emu *emu = th_emu_create();
    th_error err = {0};
    th_result res;
    atomic_int stop = 1;
    ck_assert_int_eq(th_sched_plan(plan, &s, &c, TH_POLICY_THEMIS, TH_LOAD_ALPHA_BETA, &err), 0);
    th_emu_set_stop(emu, &stop);
    ck_assert_int_eq(th_emu_run(emu, &s, plan, TH_INTRA_SCF, NULL, NULL, &res, &err), TH_EINTERNAL);
    ck_assert_str_eq(err.msg, "interrupted");
    atomic_store(&stop, 0);
    ck_assert_int_eq(th_emu_run(emu, &s, plan, TH_INTRA_SCF, NULL, NULL, &res, &err), TH_OK);
    ck_assert(res.time > 0);
    /* one chunk too */
    c.chunks = 1;
    ck_assert_int_eq(th_sched_plan(plan, &s, &c, TH_POLICY_THEMIS, TH_LOAD_ALPHA_BETA, &err), 0);
    atomic_store(&stop, 1);
    ck_assert_int_eq(th_emu_run(emu, &s, plan, TH_INTRA_SCF, NULL, NULL, &res, &err), TH_EINTERNAL);
    ck_assert_str_eq(err.msg, "interrupted");
    atomic_store(&stop, 0);
    ck_assert_int_eq(th_emu_run(emu, &s, plan, TH_INTRA_SCF, NULL, NULL, &res, &err), TH_OK);
    ck_assert(res.time > 0);
    th_emu_free(emu);
    th_plan_free(plan);
}
END_TEST

/* Misusing the incremental API is an error, never a crash or a loop. */
START_TEST(test_api_misuse) {
    th_system s = hetero2_system();
    th_collective c = test_coll(TH_COLL_ALLREDUCE, MIB, 4, 0);
    th_plan *plan = th_plan_create();
    th_emu *emu = th_emu_create();
    th_error err = {0};
    th_result res;
    const int *ids;
    int id = -1;
    ck_assert_int_eq(th_sched_plan(plan, &s, &c, TH_POLICY_BASELINE, TH_LOAD_ALPHA_BETA, &err), 0);
    /* before any reset: no system to run on */
    ck_assert_int_eq(th_emu_issue(emu, plan, 0, &id, &err), TH_EINTERNAL);
    ck_assert_msg(strstr(err.msg, "before th_emu_reset"), "%s", err.msg);
    ck_assert(th_emu_next(emu) == INFINITY);
    ck_assert_int_eq(th_emu_step(emu, &err), TH_EINTERNAL);
    ck_assert_int_eq(th_emu_result(emu, 0, &res, &err), TH_EINTERNAL);
    th_emu_reset(emu, &s, TH_INTRA_FIFO, TH_PRIO_FIFO, NULL, NULL);
    /* a step with nothing running */
    ck_assert_int_eq(th_emu_step(emu, &err), TH_EINTERNAL);
    ck_assert_msg(strstr(err.msg, "no stage running"), "%s", err.msg);
    /* the result of an id never issued */
    ck_assert_int_eq(th_emu_result(emu, 0, &res, &err), TH_EINTERNAL);
    ck_assert_int_eq(th_emu_result(emu, -1, &res, &err), TH_EINTERNAL);
    ck_assert_msg(strstr(err.msg, "no collective -1"), "%s", err.msg);
    /* issued at 100 ns: still running, so no result yet */
    ck_assert_int_eq(th_emu_issue(emu, plan, 100, &id, &err), TH_OK);
    ck_assert_int_eq(id, 0);
    ck_assert_int_eq(th_emu_result(emu, 0, &res, &err), TH_EINTERNAL);
    ck_assert_msg(strstr(err.msg, "has not finished"), "%s", err.msg);
    ck_assert_int_eq(th_emu_result(emu, 1, &res, &err), TH_EINTERNAL);
    /* times must not decrease, nor be NaN */
    ck_assert_int_eq(th_emu_issue(emu, plan, 50, &id, &err), TH_EINTERNAL);
    ck_assert_msg(strstr(err.msg, "before now"), "%s", err.msg);
    ck_assert_int_eq(th_emu_issue(emu, plan, NAN, &id, &err), TH_EINTERNAL);
    ck_assert_int_eq(th_emu_issue(emu, plan, INFINITY, &id, &err), TH_EINTERNAL);
    /* the misuse left the run intact: it finishes with the time of a run issued at 0 */
    while (th_emu_next(emu) != INFINITY)
        ck_assert_int_eq(th_emu_step(emu, &err), TH_OK);
    ck_assert_int_eq(th_emu_finished(emu, &ids), 1);
    ck_assert_int_eq(ids[0], 0);
    ck_assert_int_eq(th_emu_result(emu, 0, &res, &err), TH_OK);
    th_result alone;
    ck_assert_int_eq(th_emu_run(emu, &s, plan, TH_INTRA_FIFO, NULL, NULL, &alone, &err), TH_OK);
    ck_assert_rel(res.time, alone.time);
    th_emu_free(emu);
    th_plan_free(plan);
}
END_TEST

/* Released collectives give their records to the next ones: results of the others are
 * unchanged, a released id has no result, and releasing a running or released one fails. */
START_TEST(test_release) {
    th_system s = hetero2_system();
    th_collective c = test_coll(TH_COLL_ALLREDUCE, MIB, 4, 0);
    th_plan *plan = th_plan_create();
    th_emu *emu = th_emu_create();
    th_error err = {0};
    th_result alone, res;
    ck_assert_int_eq(th_sched_plan(plan, &s, &c, TH_POLICY_BASELINE, TH_LOAD_ALPHA_BETA, &err), 0);
    ck_assert_int_eq(th_emu_run(emu, &s, plan, TH_INTRA_FIFO, NULL, NULL, &alone, &err), TH_OK);
    th_emu_reset(emu, &s, TH_INTRA_FIFO, TH_PRIO_FIFO, NULL, NULL);
    /* one collective after another, each alone on the network: each takes alone.time */
    double t = 0;
    for (int k = 0; k < 100; k++) {
        int id;
        ck_assert_int_eq(th_emu_issue(emu, plan, t, &id, &err), TH_OK);
        ck_assert_int_eq(id, k); /* ids count up whatever is released */
        ck_assert_int_eq(th_emu_release(emu, id, &err), TH_EINTERNAL); /* running */
        while (th_emu_next(emu) != INFINITY)
            ck_assert_int_eq(th_emu_step(emu, &err), TH_OK);
        ck_assert_int_eq(th_emu_result(emu, id, &res, &err), TH_OK);
        ck_assert_rel(res.time, alone.time);
        if (k < 99) ck_assert_int_eq(th_emu_release(emu, id, &err), TH_OK);
        t = th_emu_now(emu);
    }
    ck_assert_int_eq(th_emu_result(emu, 98, &res, &err), TH_EINTERNAL);
    ck_assert_msg(strstr(err.msg, "released"), "%s", err.msg);
    ck_assert_int_eq(th_emu_release(emu, 98, &err), TH_EINTERNAL);
    ck_assert_int_eq(th_emu_release(emu, 100, &err), TH_EINTERNAL);
    ck_assert_int_eq(th_emu_result(emu, 99, &res, &err), TH_OK); /* kept: not released */
    th_emu_free(emu);
    th_plan_free(plan);
}
END_TEST

/* ---- th_emu_run's run of one collective alone against issue and step ---- */

/* The general path: reset, issue at 0, step until nothing runs. */
static void run_general(th_emu *emu, const th_system *s, const th_plan *plan, th_intra q,
                        th_result *res) {
    th_error err = {0};
    int id;
    th_emu_reset(emu, s, q, TH_PRIO_FIFO, NULL, NULL);
    ck_assert_msg(th_emu_issue(emu, plan, 0, &id, &err) == TH_OK, "%s", err.msg);
    while (th_emu_next(emu) != INFINITY)
        ck_assert_msg(th_emu_step(emu, &err) == TH_OK, "%s", err.msg);
    ck_assert_msg(th_emu_result(emu, id, res, &err) == TH_OK, "%s", err.msg);
}

static uint64_t lcg(uint64_t *x) {
    *x = *x * 6364136223846793005u + 1442695040888963407u;
    return *x >> 33;
}

/* Random systems (half of them with every dim alike, so that stages of different dims end at
 * the same instant), every collective type, policy and intra policy, 1 to 300 chunks: the
 * results of th_emu_run without a trace (the model's run of one collective alone), with a
 * trace (issue and step inside th_emu_run) and of issue and step by hand are the same
 * doubles. */
START_TEST(test_alone_matches_general) {
    static const int64_t ps[] = {1, 2, 3, 4, 6, 8, 16};
    static const double bws[] = {25, 50, 100, 200, 300, 1e9};
    static const double lats[] = {0, 5, 100, 1000};
    static const int64_t chunks[] = {1, 2, 3, 7, 16, 64, 300};
    static const th_policy pols[] = {TH_POLICY_BASELINE, TH_POLICY_THEMIS, TH_POLICY_ROUNDROBIN,
                                     TH_POLICY_LP};
    uint64_t x = 12345;
    th_plan *plan = th_plan_create();
    th_emu *emu = th_emu_create(), *gen = th_emu_create();
    recbuf b = {0};
    int runs = 0;
    for (int k = 0; k < 400; k++) {
        th_system s;
        memset(&s, 0, sizeof s);
        int nd = 1 + (int)(lcg(&x) % 6), alike = lcg(&x) % 2;
        int64_t p = ps[1 + lcg(&x) % 6];
        double bw = bws[lcg(&x) % 5], lat = lats[lcg(&x) % 4];
        for (int d = 0; d < nd; d++) {
            if (!alike) {
                p = ps[lcg(&x) % 7];
                bw = bws[lcg(&x) % 6];
                lat = lats[lcg(&x) % 4];
            }
            test_add_dim(&s, (th_topology)(lcg(&x) % 3), p, bw, lat);
            if (!alike && lcg(&x) % 4 == 0) s.dims[d].efficiency = 0.8;
        }
        if (lcg(&x) % 3 == 0) s.reduce_bw = 500;
        int active = 0;
        for (int d = 0; d < nd; d++)
            active += s.dims[d].npus > 1;
        if (!active) continue;
        test_finish(&s);
        th_collective c = test_coll((th_coll_type)(lcg(&x) % 4),
                                    (double)(1 + lcg(&x) % 4096) * 4096, chunks[lcg(&x) % 7], 0);
        th_policy pol = pols[lcg(&x) % 4];
        th_load_model lm = lcg(&x) % 2 ? TH_LOAD_BANDWIDTH : TH_LOAD_ALPHA_BETA;
        if (pol == TH_POLICY_LP && c.type == TH_COLL_ALLTOALL) pol = TH_POLICY_BASELINE;
        for (int q = 0; q < 2; q++) {
            th_result fast, traced, general;
            th_error err = {0};
            ck_assert_msg(th_sched_plan(plan, &s, &c, pol, lm, &err) == 0, "plan: %s", err.msg);
            ck_assert_msg(th_emu_run(emu, &s, plan, (th_intra)q, NULL, NULL, &fast, &err) == 0,
                          "%s", err.msg);
            b.n = 0;
            ck_assert_msg(th_emu_run(gen, &s, plan, (th_intra)q, rec_cb, &b, &traced, &err) == 0,
                          "%s", err.msg);
            run_general(gen, &s, plan, (th_intra)q, &general);
            test_same_result(&fast, &traced);
            test_same_result(&fast, &general);
            ck_assert(th_emu_now(emu) == th_emu_now(gen)); /* the end, both ways */
            runs++;
        }
    }
    ck_assert_int_ge(runs, 600);
    free(b.r);
    th_plan_free(plan);
    th_emu_free(emu);
    th_emu_free(gen);
}
END_TEST

/* Stages whose time vanishes against the clock: dim 0 takes 1e12 ns of latency, dim 1 sends
 * one byte at 1e9 GB/s (5e-10 ns, below half an ulp of 1e12, so start + time = start). Stages
 * then end at the instant their chunk's previous stage ended, in several steps at one instant;
 * the result is still that of issue and step, and a failing run leaves the workspace fit for
 * the next. */
START_TEST(test_alone_same_instant) {
    th_system s;
    memset(&s, 0, sizeof s);
    test_add_dim(&s, TH_TOPO_SWITCH, 2, 100, 1e12);
    test_add_dim(&s, TH_TOPO_RING, 2, 1e9, 0);
    test_finish(&s);
    th_plan *plan = th_plan_create();
    th_emu *emu = th_emu_create(), *gen = th_emu_create();
    th_error err = {0};
    for (int q = 0; q < 2; q++)
        for (int pol = 0; pol < 3; pol++) {
            th_collective c = test_coll(TH_COLL_ALLREDUCE, 64, 64, 0);
            th_result fast, general;
            ck_assert_int_eq(th_sched_plan(plan, &s, &c, (th_policy)pol, TH_LOAD_ALPHA_BETA, &err),
                             0);
            ck_assert_int_eq(th_emu_run(emu, &s, plan, (th_intra)q, NULL, NULL, &fast, &err), 0);
            run_general(gen, &s, plan, (th_intra)q, &general);
            test_same_result(&fast, &general);
            /* dim 1's stages: 64 chunks x 2 halves, each 1 x 1/2 / 1e9 = 5e-10 ns */
            ck_assert(fast.busy[1] > 0 && fast.busy[1] < 1e-7);
        }
    th_plan_free(plan);
    th_emu_free(emu);
    th_emu_free(gen);
}
END_TEST

Suite *emulate_suite(void) {
    Suite *s = suite_create("emulate");
    TCase *tc = tcase_create("hand");
    tcase_add_test(tc, test_one_chunk_default);
    tcase_add_test(tc, test_one_chunk_json);
    tcase_add_test(tc, test_one_dim_c_chunks);
    tcase_add_test(tc, test_reference_reducescatter);
    tcase_add_test(tc, test_reference_allreduce);
    tcase_add_test(tc, test_scf_vs_fifo);
    tcase_add_test(tc, test_intra_names);
    tcase_add_test(tc, test_issue_key_range);
    tcase_add_test(tc, test_refuses_infinite_stage);
    tcase_add_test(tc, test_stop_flag);
    tcase_add_test(tc, test_api_misuse);
    suite_add_tcase(s, tc);

    tc = tcase_create("invariants");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_invariants);
    tcase_add_test(tc, test_invariants_subset);
    tcase_add_test(tc, test_determinism);
    tcase_add_test(tc, test_plan_model_mismatch);
    tcase_add_test(tc, test_release);
    tcase_add_test(tc, test_alone_matches_general);
    tcase_add_test(tc, test_alone_same_instant);
    suite_add_tcase(s, tc);
    return s;
}

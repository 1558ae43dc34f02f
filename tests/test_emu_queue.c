/* Check suite for emu_queue.c: the clean model's per-dim queue pops stages in the order SPEC
 * §6 gives (collective priority, then FIFO by ready and chunk or SCF by m, ready, chunk),
 * whatever the internal form (buckets, runs that slide when full, runs turned heaps). */
#include <stdlib.h>

#include "../src/emulate_internal.h"
#include "check_themis.h"

static emu_entry ent(uint32_t coll, double m, double ready, uint32_t chunk) {
    return (emu_entry){.ready = ready, .m = m, .coll = coll, .chunk = chunk};
}

/* The rank of collective coll under fifo or lifo (emu_rank, written out). */
static uint64_t rk(uint32_t coll, int lifo) {
    return lifo ? (uint64_t)(UINT32_MAX - coll) : coll;
}

/* SPEC §6 order, written out independently of the queue. */
static int ref_before(const emu_entry *a, const emu_entry *b, int scf, int lifo) {
    if (a->coll != b->coll) return lifo ? a->coll > b->coll : a->coll < b->coll;
    if (scf && a->m != b->m) return a->m < b->m;
    if (a->ready != b->ready) return a->ready < b->ready;
    return a->chunk < b->chunk;
}

START_TEST(scf_equal_keys) {
    emu_squeue q = {0};
    /* m in {4, 2, 1} MiB-like sizes, equal m with different ready and chunk */
    ck_assert_int_eq(emu_queue_push(&q, ent(0, 4, 0, 0), rk(0, 0), 1), 0);
    ck_assert_int_eq(emu_queue_push(&q, ent(0, 2, 0, 1), rk(0, 0), 1), 0);
    ck_assert_int_eq(emu_queue_push(&q, ent(0, 4, 0, 2), rk(0, 0), 1), 0);
    ck_assert_int_eq(emu_queue_push(&q, ent(0, 2, 5, 3), rk(0, 0), 1), 0);
    ck_assert_int_eq(emu_queue_push(&q, ent(0, 1, 7, 4), rk(0, 0), 1), 0);
    ck_assert_int_eq(emu_queue_push(&q, ent(0, 2, 5, 0 + 5), rk(0, 0), 1), 0);
    ck_assert_int_eq(emu_queue_push(&q, ent(0, 4, 3, 6), rk(0, 0), 1), 0);
    /* smallest m first; equal m by ready, then chunk:
     * (1,7,4) (2,0,1) (2,5,3) (2,5,5) (4,0,0) (4,0,2) (4,3,6) */
    static const uint32_t want[] = {4, 1, 3, 5, 0, 2, 6};
    for (int i = 0; i < 7; i++)
        ck_assert_uint_eq(emu_queue_pop(&q).chunk, want[i]);
    ck_assert_int_eq(q.nb, 0);
    emu_queue_free(&q);
}
END_TEST

START_TEST(fifo_ignores_m_lifo_colls) {
    emu_squeue q = {0};
    /* FIFO: m plays no part; lifo: the newer collective (1) first */
    ck_assert_int_eq(emu_queue_push(&q, ent(0, 1, 0, 0), rk(0, 1), 0), 0);
    ck_assert_int_eq(emu_queue_push(&q, ent(0, 9, 0, 1), rk(0, 1), 0), 0);
    ck_assert_int_eq(emu_queue_push(&q, ent(1, 9, 2, 0), rk(1, 1), 0), 0);
    ck_assert_int_eq(emu_queue_push(&q, ent(0, 1, 1, 2), rk(0, 1), 0), 0);
    ck_assert_int_eq(emu_queue_push(&q, ent(1, 1, 2, 1), rk(1, 1), 0), 0);
    /* coll 1: (ready 2, chunk 0), (2, 1); coll 0: chunks 0, 1 (ready 0), then 2 (ready 1) */
    static const uint32_t coll[] = {1, 1, 0, 0, 0}, chunk[] = {0, 1, 0, 1, 2};
    for (int i = 0; i < 5; i++) {
        emu_entry e = emu_queue_pop(&q);
        ck_assert_uint_eq(e.coll, coll[i]);
        ck_assert_uint_eq(e.chunk, chunk[i]);
    }
    emu_queue_free(&q);
}
END_TEST

START_TEST(run_slides_when_full) {
    emu_queue r = {0};
    /* push two, pop one, many times: the head moves past the capacity (16 at first) and
     * the run slides down instead of growing; the order stays first in, first out */
    uint32_t in = 0, out = 0;
    for (int k = 0; k < 1000; k++) {
        for (int j = 0; j < 1 + k % 2; j++, in++)
            ck_assert_int_eq(emu_run_push(&r, ent(0, 1, (double)in, in)), 0);
        ck_assert_uint_eq(emu_run_pop(&r).chunk, out++);
    }
    ck_assert_int_eq(r.heap, 0);
    ck_assert_uint_le(r.cap, 1024); /* 1500 in, 1000 out: at most 500 waiting */
    while (r.n > r.head)
        ck_assert_uint_eq(emu_run_pop(&r).chunk, out++);
    ck_assert_uint_eq(out, in);
    free(r.e);
}
END_TEST

START_TEST(run_becomes_heap) {
    emu_queue r = {0};
    /* 40 entries in reverse order: each walks back past the whole run, so it turns heap */
    for (int i = 39; i >= 0; i--)
        ck_assert_int_eq(emu_run_push(&r, ent(0, 1, 0, (uint32_t)i)), 0);
    ck_assert_int_eq(r.heap, 1);
    for (uint32_t i = 0; i < 40; i++)
        ck_assert_uint_eq(emu_run_pop(&r).chunk, i);
    ck_assert_int_eq(r.heap, 0); /* empty: a run again */
    free(r.e);
}
END_TEST

/* Random pushes and pops against a brute-force minimum of the SPEC order. */
START_TEST(random_against_reference) {
    srand(13);
    /* 3 collectives: few buckets; 24: many, so emptied ones pile up at the front and move
     * to the spares; 200: hundreds of buckets (a binary search finds a stage's) */
    static const int ncolls[] = {3, 24, 200};
    for (int mode = 0; mode < 12; mode++) {
        int scf = mode & 1, lifo = (mode >> 1) & 1, ncoll = ncolls[mode >> 2];
        emu_squeue q = {0};
        emu_entry ref[600];
        int n = 0;
        uint32_t next_chunk = 0;
        double t = 0;
        for (int k = 0; k < 5000; k++) {
            if (n < 600 && (n == 0 || rand() % 3)) {
                t += rand() % 2; /* ready times never go back, several at one instant */
                emu_entry x =
                    ent((uint32_t)(rand() % ncoll), (double)(1 << (rand() % 4)), t, next_chunk++);
                /* the inline paths and the general ones, in turn */
                ck_assert_int_eq(k % 2 ? emu_queue_put(&q, x, rk(x.coll, lifo), scf)
                                       : emu_queue_push(&q, x, rk(x.coll, lifo), scf),
                                 0);
                ref[n++] = x;
            } else {
                int best = 0;
                for (int i = 1; i < n; i++)
                    if (ref_before(&ref[i], &ref[best], scf, lifo)) best = i;
                emu_entry e = k % 2 ? emu_queue_take(&q) : emu_queue_pop(&q);
                ck_assert_uint_eq(e.chunk, ref[best].chunk);
                ck_assert_uint_eq(q.len, (size_t)n - 1);
                ref[best] = ref[--n];
            }
        }
        emu_queue_free(&q);
    }
}
END_TEST

Suite *emu_queue_suite(void) {
    Suite *s = suite_create("emu_queue");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, scf_equal_keys);
    tcase_add_test(tc, fifo_ignores_m_lifo_colls);
    tcase_add_test(tc, run_slides_when_full);
    tcase_add_test(tc, run_becomes_heap);
    tcase_add_test(tc, random_against_reference);
    suite_add_tcase(s, tc);
    return s;
}

/* Check suite for the sweep's shared reference cache (src/sweep_refs.c): a key is computed
 * by one worker while the others wanting it wait, and no slot is taken from a worker. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../src/sweep_internal.h"
#include "check_themis.h"

/* A spec whose groups change the reference (size, chunks) and do not (policy). */
static th_sweep *spec(void) {
    const char *json =
        "{\"name\": \"refs\", \"axes\": {\"size\": [\"1MiB\", \"1GiB\"],"
        " \"chunks\": {\"from\": 1, \"to\": 4096, \"step\": 1}, \"policy\": [\"baseline\","
        " \"themis\"]}}";
    th_sweep *sw = NULL;
    th_error err = {0};
    ck_assert_msg(th_sweep_parse(json, strlen(json), "refs.json", ".", &sw, &err) == TH_OK, "%s",
                  err.msg);
    return sw;
}

/* The digits of a point. */
static void digits_of(const th_sweep *sw, int64_t point, int64_t *d) {
    sw_digits(sw, point, d);
}

typedef struct waiter {
    sw_refs *refs;
    int64_t digits[8];
    int found, slot;
    sw_ref v;
    atomic_int returned;
} waiter;

static void *wait_for(void *arg) {
    waiter *w = arg;
    w->found = sw_refs_find(w->refs, w->digits, &w->v, &w->slot);
    atomic_store(&w->returned, 1);
    return NULL;
}

/* Starts a thread looking up point's references, then lets it run for `ms`. */
static void start_waiter(waiter *w, pthread_t *t, sw_refs *r, const th_sweep *sw, int64_t point,
                         long ms) {
    *w = (waiter){.refs = r, .slot = -2};
    atomic_init(&w->returned, 0);
    digits_of(sw, point, w->digits);
    ck_assert_int_eq(pthread_create(t, NULL, wait_for, w), 0);
    struct timespec pause = {0, ms * 1000000L};
    nanosleep(&pause, NULL);
}

START_TEST(second_worker_waits_for_the_first) {
    th_sweep *sw = spec();
    sw_refs *r = sw_refs_create(sw);
    int64_t d[8];
    sw_ref v;
    int slot = -2;
    digits_of(sw, 0, d);                                /* 1 MiB, 1 chunk, baseline */
    ck_assert_int_eq(sw_refs_find(r, d, &v, &slot), 0); /* not known: this worker computes it */
    ck_assert_int_ge(slot, 0);
    waiter w;
    pthread_t t;
    start_waiter(&w, &t, r, sw, 1, 50); /* the same size and chunks, themis: the same key */
    ck_assert_msg(!atomic_load(&w.returned), "the second worker did not wait for the first");
    sw_ref got = {123.5, 7, 9};
    sw_refs_keep(r, slot, &got);
    pthread_join(t, NULL);
    ck_assert_int_eq(w.found, 1);
    ck_assert(w.v.base_time == 123.5 && w.v.ideal_time == 7 && w.v.ideal_lat == 9);
    /* Known now: found at once, by any point of the key. */
    ck_assert_int_eq(sw_refs_find(r, d, &v, &slot), 1);
    ck_assert(v.base_time == 123.5);
    sw_refs_free(r);
    th_sweep_free(sw);
}
END_TEST

START_TEST(failure_releases_the_slot) {
    th_sweep *sw = spec();
    sw_refs *r = sw_refs_create(sw);
    int64_t d[8];
    sw_ref v;
    int slot;
    digits_of(sw, 2, d);
    ck_assert_int_eq(sw_refs_find(r, d, &v, &slot), 0);
    waiter w;
    pthread_t t;
    start_waiter(&w, &t, r, sw, 3, 20);
    sw_refs_keep(r, slot, NULL); /* the first worker failed (or was stopped) */
    pthread_join(t, NULL);
    ck_assert_int_eq(w.found, 0); /* the waiter computes it itself, in the same slot */
    ck_assert_int_eq(w.slot, slot);
    sw_refs_keep(r, w.slot, NULL);
    sw_refs_free(r);
    th_sweep_free(sw);
}
END_TEST

/* While a slot is being computed for one key, another key that hashes to it is computed
 * without a slot, and an offer does not overwrite it. */
START_TEST(pending_slot_is_not_taken) {
    th_sweep *sw = spec();
    sw_refs *r = sw_refs_create(sw);
    int64_t a[8], b[8];
    sw_ref v;
    int slot, other = -2;
    digits_of(sw, 0, a);
    ck_assert_int_eq(sw_refs_find(r, a, &v, &slot), 0);
    int64_t p = 2, collided = 0;
    for (; p < th_sweep_points(sw) && !collided; p += 2) {
        digits_of(sw, p, b);
        ck_assert_int_eq(sw_refs_find(r, b, &v, &other), 0);
        if (other < 0)
            collided = p;
        else
            sw_refs_keep(r, other, NULL);
    }
    ck_assert_msg(collided, "no key of %lld shares a slot", (long long)th_sweep_points(sw));
    sw_ref offered = {5, 0, 0};
    digits_of(sw, collided, b);
    sw_refs_offer(r, b, &offered);
    sw_ref mine = {11, 0, 0};
    sw_refs_keep(r, slot, &mine);
    ck_assert_int_eq(sw_refs_find(r, a, &v, &slot), 1);
    ck_assert(v.base_time == 11);
    /* Not pending any more: an offer takes the slot for its key. */
    sw_refs_offer(r, b, &offered);
    ck_assert_int_eq(sw_refs_find(r, b, &v, &other), 1);
    ck_assert(v.base_time == 5);
    sw_refs_free(r);
    th_sweep_free(sw);
}
END_TEST

Suite *sweep_refs_suite(void) {
    Suite *s = suite_create("sweep_refs");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, second_worker_waits_for_the_first);
    tcase_add_test(tc, failure_releases_the_slot);
    tcase_add_test(tc, pending_slot_is_not_taken);
    suite_add_tcase(s, tc);
    return s;
}

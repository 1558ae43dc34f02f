/* Helpers shared by the Check suites: test data paths, hand-built systems, result equality. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_themis.h"

const char *test_data(const char *name) {
    static char buf[4096];
    const char *dir = getenv("THEMIS_SRCDIR");
    snprintf(buf, sizeof buf, "%s/tests/data/%s", dir ? dir : ".", name);
    return buf;
}

void test_add_dim(th_system *s, th_topology topo, int64_t p, double bw, double lat) {
    static const th_algorithm defaults[] = {TH_ALG_RING, TH_ALG_DIRECT, TH_ALG_RHD};
    th_dim *d = &s->dims[s->ndims];
    snprintf(d->name, sizeof d->name, "dim%d", s->ndims);
    d->topology = topo;
    d->algorithm = defaults[topo];
    d->npus = p;
    d->bw_GBps = bw;
    d->efficiency = 1.0;
    d->latency = lat;
    s->ndims++;
}

void test_finish(th_system *s) {
    th_error err = {0};
    snprintf(s->name, sizeof s->name, "test");
    ck_assert_msg(th_system_validate(s, "test", &err) == 0, "validate: %s", err.msg);
}

th_system test_ref_system(void) {
    th_system s;
    memset(&s, 0, sizeof s);
    test_add_dim(&s, TH_TOPO_RING, 4, 300, 0);
    test_add_dim(&s, TH_TOPO_FC, 8, 400, 0);
    test_add_dim(&s, TH_TOPO_SWITCH, 16, 100, 0);
    test_finish(&s);
    return s;
}

th_collective test_coll(th_coll_type t, double size, int64_t chunks, uint32_t mask) {
    th_collective c = {t, size, chunks, mask};
    return c;
}

void test_same_result(const th_result *a, const th_result *b) {
    ck_assert(a->time == b->time);
    ck_assert(a->ideal == b->ideal);
    ck_assert(a->bw_util == b->bw_util);
    ck_assert(a->algbw == b->algbw);
    ck_assert(a->busbw == b->busbw);
    ck_assert_int_eq(a->ndims, b->ndims);
    ck_assert_int_eq(a->stages, b->stages);
    for (int d = 0; d < a->ndims; d++) {
        ck_assert(a->bytes[d] == b->bytes[d]);
        ck_assert(a->busy[d] == b->busy[d]);
        ck_assert(a->dim_util[d] == b->dim_util[d]);
    }
}

/* Fuzz target: ASTRA-sim 2.x's communicator group file (th_ck_groups_parse: a JSON object of
 * group ids and their ranks), then every group placed on the default system and on a system of
 * two dims of 4 (th_ck_group_dims: the dims a group takes whole, or an error naming the group
 * and the dim). */
#include <string.h>

#include "../../src/chakra/chakra.h"
#include "fuzz.h"

/* Every group of g on sys: a mask of dims of sys when accepted, each rank inside it. */
static void place(const th_ck_groups *g, const th_system *sys) {
    for (int k = 0; k < g->n; k++) {
        uint32_t mask = 7;
        th_error err = {0};
        int rc = th_ck_group_dims(g, k, sys, &mask, &err);
        if (rc != TH_OK) {
            fuzz_check_error(rc, err.msg, "groups.json");
            continue;
        }
        FUZZ_CHECK(mask != 0 && mask < (1u << sys->ndims));
        double whole = 1;
        for (int d = 0; d < sys->ndims; d++)
            if ((mask >> d) & 1u) whole *= (double)sys->dims[d].npus;
        FUZZ_CHECK((double)(g->off[k + 1] - g->off[k]) == whole);
    }
}

int th_fuzz_comm_group(const uint8_t *data, size_t size) {
    th_ck_groups *g = NULL;
    th_error err = {0};
    int rc = th_ck_groups_parse((const char *)data, size, "groups.json", &g, &err);
    if (rc != TH_OK) {
        fuzz_check_error(rc, err.msg, "groups.json");
        FUZZ_CHECK(g == NULL);
        return 0;
    }
    FUZZ_CHECK(g->n >= 1 && g->off[0] == 0 && g->off[g->n] == g->nranks);
    for (int k = 0; k < g->n; k++) { /* ids > 0, each once; ranks sorted, each once */
        FUZZ_CHECK(g->id[k] > 0 && th_ck_group_find(g, g->id[k]) == k);
        FUZZ_CHECK(g->off[k + 1] > g->off[k]);
        for (size_t j = g->off[k] + 1; j < g->off[k + 1]; j++)
            FUZZ_CHECK(g->rank[j - 1] < g->rank[j]);
    }
    th_system sys;
    th_system_default(&sys);
    place(g, &sys);
    th_system two;
    two = sys;
    two.ndims = 2;
    two.dims[0].npus = two.dims[1].npus = 4;
    two.npus = 16;
    place(g, &two);
    th_ck_groups_free(g);
    return 0;
}

/* Fuzz target: the ASTRA-sim 1.0 text-workload parser (th_a1_parse), then its conversion to our
 * format and its replay on the default system. */
#include <stdlib.h>

#include "fuzz.h"
#include "themis/astra1_workload.h"

int th_fuzz_astra1_workload(const uint8_t *data, size_t size) {
    th_a1_workload *wl = NULL;
    th_error err = {0};
    int rc = th_a1_parse((const char *)data, size, "fuzz.txt", &wl, &err);
    if (rc != TH_OK) {
        fuzz_check_error(rc, err.msg, "fuzz.txt");
        FUZZ_CHECK(wl == NULL);
        return 0;
    }
    FUZZ_CHECK(wl != NULL && wl->nlayers >= 1);
    th_system sys;
    th_system_default(&sys);
    th_a1_scale scale = {1, 1, 0};
    th_workload *ours = NULL;
    th_buf notes = {0};
    rc = th_a1_convert(wl, &sys, &scale, "fuzz.txt", &ours, &notes, &err);
    if (rc != TH_OK)
        fuzz_check_error(rc, err.msg, "fuzz.txt");
    else
        FUZZ_CHECK(ours != NULL && ours->nlayers >= 1);
    th_workload_free(ours);
    th_buf_free(&notes);
    /* the replay, only for small inputs: its work grows with the layers */
    if (wl->nlayers <= 64) {
        th_a1_replay_opts o = {
            TH_POLICY_THEMIS, TH_INTRA_SCF, TH_LOAD_ALPHA_BETA, 1, 2, 1, scale, NULL};
        th_a1_replay_result r;
        rc = th_a1_replay(&sys, wl, "fuzz.txt", &o, &r, &err);
        if (rc != TH_OK) {
            fuzz_check_error(rc, err.msg, NULL);
        } else {
            FUZZ_CHECK(r.total >= r.compute && r.compute >= 0);
            FUZZ_CHECK(r.exposed == r.total - r.compute);
            FUZZ_CHECK(r.pass_end[0] <= r.pass_end[1] && r.pass_end[1] <= r.total);
            th_a1_replay_result_free(&r);
        }
    }
    th_a1_free(wl);
    return 0;
}

/* Fuzz target: the nccl-tests / rccl-tests log reader (th_cal_log_parse, text and JSON) and the
 * fit on what it accepts. */
#include <math.h>
#include <stdlib.h>

#include "fuzz.h"
#include "themis/calibrate.h"

int th_fuzz_calibrate(const uint8_t *data, size_t size) {
    char *text = fuzz_text(data, size);
    th_cal_log log;
    th_error err = {0};
    int rc = th_cal_log_parse(text, size, "fuzz.log", &log, &err);
    if (rc != TH_OK) {
        fuzz_check_error(rc, err.msg, "fuzz.log");
        FUZZ_CHECK(log.rows == NULL);
        free(text);
        return 0;
    }
    /* what every accepted log promises: rows of size > 0, with a time in a present column */
    FUZZ_CHECK(log.nrows >= 1 && log.cycles >= 1);
    for (int i = 0; i < log.nrows; i++) {
        const th_cal_row *r = &log.rows[i];
        FUZZ_CHECK(r->size >= 1 && r->size == floor(r->size));
        for (int k = 0; k < 2; k++)
            FUZZ_CHECK(r->time_us[k] < 0 || (isfinite(r->time_us[k]) && r->time_us[k] != 0));
    }
    th_coll_type coll;
    if (th_cal_collective(&log, -1, 8, &coll, &err)) {
        fuzz_check_error(err.code, err.msg, "fuzz.log");
        coll = TH_COLL_ALLREDUCE;
    }
    th_dim dim = {.topology = TH_TOPO_SWITCH, .algorithm = TH_ALG_RHD, .npus = 8, .efficiency = 1};
    th_cal_opts o = {.tolerance = 0.1, .allow_wrong = 1, .in_place = !log.has_time[0]};
    th_cal_fit fit;
    rc = th_cal_fit_logs(&log, &coll, 1, &dim, &o, &fit, &err);
    if (rc != TH_OK) {
        fuzz_check_error(rc, err.msg, NULL);
    } else {
        FUZZ_CHECK(isfinite(fit.alpha_ns) && fit.alpha_ns >= 0);
        FUZZ_CHECK(fit.bw > 0);
        FUZZ_CHECK(fit.npoints == log.nrows && fit.nused >= 2);
        FUZZ_CHECK(!(fit.r2 > 1 + 1e-9));
        th_cal_fit_free(&fit);
    }
    th_cal_log_free(&log);
    free(text);
    return 0;
}

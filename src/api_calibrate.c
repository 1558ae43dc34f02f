/* The embedding entry point's "calibrate": the command layer's (src/cmd/cmd_calibrate.c), its
 * request read from JSON through the same option table as `themis calibrate`'s argv; the
 * result is the -f json report (no system file is written). */
#include "api_internal.h"
#include "cmd/cmd.h"
#include "themis/report.h"

int th_api_calibrate(const th_api_req *q, FILE *out, th_error *err) {
    th_calibrate_request r;
    th_calibrate_request_init(&r);
    r.format = TH_FORMAT_JSON;
    th_cmd_io io = {out, NULL, 0, NULL, NULL, NULL, NULL, NULL};
    int rc = th_option_from_json(&th_cmd_calibrate_def, q->root, &r, err);
    if (rc == TH_OK) rc = th_cmd_calibrate(&r, &io, err);
    th_option_free(&th_cmd_calibrate_def, &r);
    return rc;
}

/* The embedding entry point's commands that answer with one report: "run" and "train" (the
 * command layer's, src/cmd/, their requests read through the same option tables as the
 * command line's) and "system". */
#include <stdlib.h>
#include <string.h>

#include "api_internal.h"
#include "cmd/cmd.h"
#include "json.h"
#include "report_internal.h"
#include "themis/astra1_workload.h"
#include "themis/bound.h"
#include "themis/cost.h"
#include "themis/report.h"

int th_api_run(const th_api_req *q, FILE *out, th_error *err) {
    th_run_request r;
    th_run_request_init(&r);
    r.format = TH_FORMAT_JSON;
    th_cmd_io io = {out, NULL, 0, NULL, NULL, NULL};
    int rc = th_option_from_json(&th_cmd_run_def, q->root, &r, err);
    if (rc == TH_OK) rc = th_cmd_run(&r, &io, err);
    th_option_free(&th_cmd_run_def, &r);
    return rc;
}

int th_api_train(const th_api_req *q, FILE *out, th_error *err) {
    th_train_request r;
    th_train_request_init(&r);
    r.format = TH_FORMAT_JSON;
    th_cmd_io io = {out, NULL, 0, NULL, NULL, NULL};
    int rc = th_option_from_json(&th_cmd_train_def, q->root, &r, err);
    if (rc == TH_OK) rc = th_cmd_train(&r, &io, err);
    th_option_free(&th_cmd_train_def, &r);
    return rc;
}

int th_api_system(const th_api_req *q, FILE *out, th_error *err) {
    static const char *const keys[] = {"system", NULL};
    th_system sys;
    th_run_defaults def;
    const char *who;
    if (th_api_keys(q, keys, err) || th_api_load_system(q, &sys, &def, &who, err)) return err->code;
    cJSON *o = th_report_system_json(&sys, -1);
    if (!o) return th_error_set(err, TH_EINTERNAL, "out of memory");
    return th_report_write_json(out, o, err);
}

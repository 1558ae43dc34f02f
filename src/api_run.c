/* The embedding entry point's commands that answer with one report: "run", "train" and
 * "export-chakra" (the command layer's, src/cmd/, their requests read through the same option
 * tables as the command line's) and "system". */
#include <stddef.h>

#include "api_internal.h"
#include "cmd/cmd.h"
#include "report_internal.h"

int th_api_run(const th_api_req *q, FILE *out, th_error *err) {
    th_run_request r;
    th_run_request_init(&r);
    r.format = TH_FORMAT_JSON;
    th_cmd_io io = {out, NULL, 0, NULL, NULL, NULL, NULL, NULL};
    int rc = th_option_from_json(&th_cmd_run_def, q->root, &r, err);
    if (rc == TH_OK) rc = th_cmd_run(&r, &io, err);
    th_option_free(&th_cmd_run_def, &r);
    return rc;
}

int th_api_train(const th_api_req *q, FILE *out, th_error *err) {
    th_train_request r;
    th_train_request_init(&r);
    r.format = TH_FORMAT_JSON;
    th_cmd_io io = {out, NULL, 0, NULL, NULL, NULL, NULL, NULL};
    th_api_poller poller; /* Ctrl-C in the caller ends the replay */
    th_api_poll_io(q, &poller, &io);
    int rc = th_option_from_json(&th_cmd_train_def, q->root, &r, err);
    if (rc == TH_OK) rc = th_cmd_train(&r, &io, err);
    th_option_free(&th_cmd_train_def, &r);
    return rc;
}

int th_api_export_chakra(const th_api_req *q, FILE *out, th_error *err) {
    th_export_chakra_request r;
    th_export_chakra_request_init(&r);
    r.format = TH_FORMAT_JSON;
    th_cmd_io io = {out, NULL, 0, NULL, NULL, NULL, NULL, NULL};
    int rc = th_option_from_json(&th_cmd_export_chakra_def, q->root, &r, err);
    if (rc == TH_OK) rc = th_cmd_export_chakra(&r, &io, err);
    th_option_free(&th_cmd_export_chakra_def, &r);
    return rc;
}

/* "system": the system as run -f json shows it; its one option read by a table, as the
 * commands' are. */
typedef struct system_request {
    th_arg_src system;
    uint64_t given;
} system_request;

static const th_option system_opts[] = {
    TH_ARG_SYSTEM_OPT(offsetof(system_request, system), NULL),
};
static const th_cmd_def system_def = {"system", system_opts, 1, offsetof(system_request, given),
                                      0,        NULL};

int th_api_system(const th_api_req *q, FILE *out, th_error *err) {
    system_request r = {0};
    th_system sys;
    th_run_defaults def;
    const char *who;
    int rc = th_option_from_json(&system_def, q->root, &r, err);
    if (rc == TH_OK) rc = th_cmd_load_system(&r.system, &sys, &def, &who, err);
    th_option_free(&system_def, &r);
    if (rc) return rc;
    cJSON *o = th_report_system_json(&sys, -1);
    if (!o) return th_error_set(err, TH_EINTERNAL, "out of memory");
    return th_report_write_json(out, o, err);
}

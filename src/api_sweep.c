/* The embedding entry point's "sweep": the command layer's (src/cmd/cmd_sweep.c), its request
 * read from JSON through the same option table as `themis sweep`'s argv; the rows go to the
 * caller's row callback, the counts are the result. */
#include "api_internal.h"
#include "cmd/cmd.h"

int th_api_sweep(const th_api_req *q, FILE *out, th_error *err) {
    th_sweep_request r;
    th_sweep_request_init(&r);
    int rc = th_option_from_json(&th_cmd_sweep_def, q->root, &r, err);
    if (rc == TH_OK) rc = th_cmd_sweep_rows(&r, q->row, q->row_ctx, out, err);
    th_option_free(&th_cmd_sweep_def, &r);
    return rc;
}

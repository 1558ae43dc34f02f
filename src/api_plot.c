/* The embedding entry point's "plot": the command layer's (src/cmd/cmd_plot.c), its request
 * read from JSON through the same option table as `themis plot`'s argv; the result names the
 * image and the series drawn. */
#include "api_internal.h"
#include "cmd/cmd.h"

int th_api_plot(const th_api_req *q, FILE *out, th_error *err) {
    th_plot_request r;
    th_plot_request_init(&r);
    th_cmd_io io = {out, NULL, 0, NULL, NULL, NULL, NULL, NULL};
    int rc = th_option_from_json(&th_cmd_plot_def, q->root, &r, err);
    if (rc == TH_OK) rc = th_cmd_plot(&r, &io, err);
    th_option_free(&th_cmd_plot_def, &r);
    return rc;
}

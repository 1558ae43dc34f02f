/* The embedding entry point's "search": the command layer's (src/cmd/cmd_search.c), its request
 * read from JSON through the same option table as `themis search`'s argv. */
#include "api_internal.h"
#include "cmd/cmd.h"
#include "themis/report.h"

int th_api_search(const th_api_req *q, FILE *out, th_error *err) {
    th_search_request r;
    th_search_request_init(&r);
    r.format = TH_FORMAT_JSON;
    th_cmd_io io = {out, NULL, 0, NULL, NULL, NULL, NULL, NULL};
    th_api_poller poller; /* Ctrl-C in the caller ends the search */
    th_api_poll_io(q, &poller, &io);
    int rc = th_option_from_json(&th_cmd_search_def, q->root, &r, err);
    if (rc == TH_OK) rc = th_cmd_search(&r, &io, err);
    th_option_free(&th_cmd_search_def, &r);
    return rc;
}

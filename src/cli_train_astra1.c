/* `themis train` on an ASTRA-sim 1.0 text workload: --comm-scale, --compute-scale and
 * --passes, and the workload converted to our format for our replay (our semantics). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

int cli_a1_option(const char *cmd, int which, const char *arg, cli_a1_opts *a) {
    static const char *const names[] = {"--comm-scale", "--compute-scale", "--passes"};
    a->given = 1;
    if (which == 2) {
        long long v;
        if (cli_parse_int(arg, 1, 100000, &v))
            return cli_usage_error(cmd, "--passes: expected 1 to 100000, got '%s'", arg);
        a->passes = (int)v;
        return CLI_OK;
    }
    char *end;
    errno = 0;
    double v = strtod(arg, &end);
    if (end == arg || *end || errno || !(v > 0) || v > 1e9)
        return cli_usage_error(cmd, "%s: expected a number > 0, got '%s'", names[which], arg);
    if (which == 0)
        a->scale.comm = v;
    else
        a->scale.compute = v;
    return CLI_OK;
}

void cli_print_notes(const th_buf *notes) {
    for (const char *p = notes->p; p && *p;) {
        const char *e = strchr(p, '\n');
        int n = e ? (int)(e - p) : (int)strlen(p);
        fprintf(stderr, "themis: note: %.*s\n", n, p);
        p += n + (e != NULL);
    }
}

int cli_a1_train(const cli_a1_opts *a, const char *path, const th_a1_workload *a1,
                 const th_system *sys, th_workload **wl, th_error *err) {
    *wl = NULL;
    if (a->passes)
        return th_error_set(err, TH_EINPUT,
                            "--passes: ASTRA-sim 1.0's passes replay under the 1.0 preset; on "
                            "system \"%s\" (%s model) the workload replays with our semantics, "
                            "whose steady state --iterations sets",
                            sys->name, th_model_name(sys->model));
    th_buf notes = {0};
    int rc = th_a1_convert(a1, sys, &a->scale, path, wl, &notes, err);
    if (rc == TH_OK) cli_print_notes(&notes);
    th_buf_free(&notes);
    return rc;
}

/* `themis import-astra --workload`'s --comm-scale, --compute-scale and --passes, and the notes
 * of a conversion printed (`themis train` reads the same options through its table). */
#include <errno.h>
#include <math.h>
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

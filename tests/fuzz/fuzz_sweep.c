/* Fuzz target: the sweep-spec parser (th_sweep_parse, which also validates every structural
 * point), then the CSV header and the first and last points' row prefixes. Relative files
 * resolve against the source tree, so seeds name models/systems/... */
#include <stdlib.h>

#include "fuzz.h"
#include "themis/buf.h"
#include "themis/sweep.h"

int th_fuzz_sweep(const uint8_t *data, size_t size) {
    char *text = fuzz_text(data, size);
    th_sweep *sw = NULL;
    th_error err = {0};
    int rc = th_sweep_parse(text, size, "fuzz.json", fuzz_srcdir(), &sw, &err);
    if (rc != TH_OK) {
        fuzz_check_error(rc, err.msg, "fuzz.json");
        FUZZ_CHECK(sw == NULL);
    } else {
        int64_t n = th_sweep_points(sw);
        FUZZ_CHECK(n >= 1 && n <= TH_SWEEP_MAX_POINTS);
        th_buf b = {0};
        FUZZ_CHECK(th_sweep_header(sw, &b, &err) == TH_OK);
        FUZZ_CHECK(th_sweep_prefix(sw, 0, &b, &err) == TH_OK);
        FUZZ_CHECK(th_sweep_prefix(sw, n - 1, &b, &err) == TH_OK);
        th_buf_free(&b);
        th_sweep_free(sw);
    }
    free(text);
    return 0;
}

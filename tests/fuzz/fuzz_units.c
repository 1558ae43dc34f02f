/* Fuzz target: the number parsers of units.h (sizes) and sweep.h (shards), on any text, and
 * th_units_check_size on any 8 bytes taken as a double. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "themis/sweep.h"
#include "themis/units.h"

int th_fuzz_units(const uint8_t *data, size_t size) {
    char *text = fuzz_text(data, size);
    th_error err = {0};
    double bytes = 0;
    int rc = th_units_parse_size(text, "--size", &bytes, &err);
    if (rc != TH_OK)
        fuzz_check_error(rc, err.msg, "--size");
    else /* units.h: >= 1 byte and <= TH_SIZE_MAX */
        FUZZ_CHECK(bytes >= 1 && bytes <= TH_SIZE_MAX);
    th_shard shard;
    rc = th_shard_parse(text, &shard, &err);
    if (rc != TH_OK)
        fuzz_check_error(rc, err.msg, NULL);
    else /* sweep.h: 0 <= K < N */
        FUZZ_CHECK(shard.k >= 0 && shard.k < shard.n);
    if (size == sizeof(double)) {
        double v;
        memcpy(&v, data, sizeof v);
        if (th_units_check_size(v, "size", &err) == TH_OK)
            FUZZ_CHECK(isfinite(v) && v >= 1 && v <= TH_SIZE_MAX);
        else
            fuzz_check_error(err.code, err.msg, "size");
    }
    free(text);
    return 0;
}

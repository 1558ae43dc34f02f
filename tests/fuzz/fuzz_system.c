/* Fuzz target: the system loader (th_system_parse) on any bytes. */
#include <math.h>
#include <stdlib.h>

#include "fuzz.h"
#include "themis/system.h"

int th_fuzz_system(const uint8_t *data, size_t size) {
    char *text = fuzz_text(data, size);
    th_system sys;
    th_error err = {0};
    int rc = th_system_parse(text, size, "fuzz.json", &sys, &err);
    if (rc != TH_OK) {
        fuzz_check_error(rc, err.msg, "fuzz.json");
    } else { /* what every validated system promises (SPEC §2) */
        FUZZ_CHECK(sys.ndims >= 1 && sys.ndims <= TH_MAX_DIMS);
        double npus = 1;
        for (int d = 0; d < sys.ndims; d++) {
            const th_dim *dim = &sys.dims[d];
            FUZZ_CHECK(dim->npus >= 1);
            FUZZ_CHECK(isfinite(dim->bw) && dim->bw > 0);
            FUZZ_CHECK(isfinite(dim->latency) && dim->latency >= 0);
            FUZZ_CHECK(dim->efficiency > 0 && dim->efficiency <= 1);
            npus *= (double)dim->npus;
        }
        FUZZ_CHECK(npus == sys.npus && npus <= TH_MAX_NPUS);
    }
    free(text);
    return 0;
}

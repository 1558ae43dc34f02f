/* Fuzz target: the ASTRA-sim 1.0 importer on any system text, next to a fixed valid network
 * JSON (tests/data/astra1_net_2d.json), under both versions; what it accepts must load. */
#include <stdio.h>

#include "fuzz.h"
#include "themis/astra1.h"

int th_fuzz_astra1_sys(const uint8_t *data, size_t size) {
    static char net[4096];
    if (!net[0]) snprintf(net, sizeof net, "%s/tests/data/astra1_net_2d.json", fuzz_srcdir());
    const char *sys = fuzz_file(1, data, size);
    for (int v = TH_A1_BRANCH; v <= TH_A1_TUTORIAL; v++) {
        char *out = NULL;
        th_error err = {0};
        int rc = th_astra1_import(net, sys, (th_a1_version)v, &out, &err);
        fuzz_check_import(rc, out, err.msg, NULL);
    }
    return 0;
}

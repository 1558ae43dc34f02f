/* Fuzz target: the ASTRA-sim importer on any system JSON, next to a fixed valid network
 * (tests/data/astra_net_3d.yml); what it accepts must load as a system file. */
#include <stdio.h>

#include "fuzz.h"
#include "themis/astra.h"

int th_fuzz_astra_sys(const uint8_t *data, size_t size) {
    static char net[4096];
    if (!net[0]) snprintf(net, sizeof net, "%s/tests/data/astra_net_3d.yml", fuzz_srcdir());
    const char *sys = fuzz_file(1, data, size);
    char *out = NULL;
    const char *note = NULL;
    th_error err = {0};
    int rc = th_astra_import(net, sys, &out, &note, &err);
    fuzz_check_import(rc, out, err.msg, sys);
    return 0;
}

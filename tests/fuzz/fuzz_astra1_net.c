/* Fuzz target: the ASTRA-sim 1.0 importer on any network JSON, next to a fixed valid system
 * text (tests/data/astra1_sys_2d.txt); what it accepts must load as a system file. */
#include <stdio.h>

#include "fuzz.h"
#include "themis/astra1.h"

int th_fuzz_astra1_net(const uint8_t *data, size_t size) {
    static char sys[4096];
    if (!sys[0]) snprintf(sys, sizeof sys, "%s/tests/data/astra1_sys_2d.txt", fuzz_srcdir());
    const char *net = fuzz_file(0, data, size);
    char *out = NULL;
    th_error err = {0};
    int rc = th_astra1_import(net, sys, TH_A1_BRANCH, &out, &err);
    fuzz_check_import(rc, out, err.msg, NULL); /* a bad dim count is blamed on the system */
    return 0;
}

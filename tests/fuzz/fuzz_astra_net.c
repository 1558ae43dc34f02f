/* Fuzz target: the ASTRA-sim importer on any network YAML (no system JSON); whatever it
 * accepts must come out as a system file that th_system_parse accepts. */
#include <stdlib.h>

#include "fuzz.h"
#include "themis/astra.h"

int th_fuzz_astra_net(const uint8_t *data, size_t size) {
    const char *net = fuzz_file(0, data, size);
    char *out = NULL;
    const char *note = NULL;
    th_error err = {0};
    int rc = th_astra_import(net, NULL, &out, &note, &err);
    fuzz_check_import(rc, out, err.msg, net);
    return 0;
}

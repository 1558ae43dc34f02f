/* Fuzz target: the workload loader (th_workload_parse), then its check against the default
 * system. */
#include <stdlib.h>

#include "fuzz.h"
#include "themis/system.h"
#include "themis/workload.h"

int th_fuzz_workload(const uint8_t *data, size_t size) {
    char *text = fuzz_text(data, size);
    th_workload *wl = NULL;
    th_error err = {0};
    int rc = th_workload_parse(text, size, "fuzz.json", &wl, &err);
    if (rc != TH_OK) {
        fuzz_check_error(rc, err.msg, "fuzz.json");
        FUZZ_CHECK(wl == NULL);
    } else {
        FUZZ_CHECK(wl != NULL);
        th_system sys;
        th_system_default(&sys);
        rc = th_workload_check(wl, &sys, "fuzz.json", &err);
        if (rc != TH_OK) fuzz_check_error(rc, err.msg, "fuzz.json");
        th_workload_free(wl);
    }
    free(text);
    return 0;
}

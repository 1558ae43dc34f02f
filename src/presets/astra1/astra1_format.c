/* ASTRA-sim 1.0's text workloads as a workload format (workload_format.h): told by content,
 * parsed into th_a1_workload, converted to our workload as `import-astra --workload` does, or
 * replayed natively under the astra-sim-1.0 preset. */
#include "themis/astra1_workload.h"
#include "workload_format.h"

static int parse(const char *text, size_t len, const char *src, void **out, th_error *err) {
    th_a1_workload *wl = NULL;
    int rc = th_a1_parse(text, len, src, &wl, err);
    *out = wl;
    return rc;
}

static void free_native(void *native) {
    th_a1_free(native);
}

/* scale NULL: ASTRA-sim's defaults, both scales 1 (on the branch). */
static int convert(const void *native, const th_system *sys, const th_wl_scale *scale,
                   const char *src, th_workload **out, th_buf *notes, th_error *err) {
    th_a1_scale s = {scale ? scale->comm : 1, scale ? scale->compute : 1, 0};
    return th_a1_convert(native, sys, &s, src, out, notes, err);
}

/* The astra-sim-1.0 preset replays it with ASTRA-sim 1.0's state machine
 * (astra1_format_replay.c). */
static int native_on(const th_system *sys) {
    return sys->model == TH_MODEL_ASTRA1;
}

int astra1_format_replay(const void *native, const th_system *sys, const char *src,
                         const th_wl_replay *req, th_wl_open_fn open, void *ctx, th_error *err);

const th_wl_format astra1_text_format = {
    .name = "an ASTRA-sim 1.0 text workload",
    .hint = "the command themis train replays it, themis import-astra --workload converts it",
    .plural = "ASTRA-sim 1.0 text workloads",
    .sim = "ASTRA-sim 1.0",
    .model = "astra-sim-1.0",
    .scales = 1,
    .detect = th_a1_is_text,
    .parse = parse,
    .free_native = free_native,
    .convert = convert,
    .native_on = native_on,
    .replay = astra1_format_replay,
};

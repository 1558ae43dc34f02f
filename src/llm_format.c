/* LLM workloads among the workload formats (workload_format.h): told by content (the key
 * "llm"), parsed by llm_read.c; `themis train` evaluates them with their own model
 * (cmd_train_llm.c) rather than converting them to layers. */
#include <stdlib.h>

#include "themis/llm.h"
#include "workload_format.h"

static int parse(const char *text, size_t len, const char *src, void **out, th_error *err) {
    th_llm_workload *w = malloc(sizeof *w);
    if (!w) return th_error_set(err, TH_EINTERNAL, "out of memory");
    int rc = th_llm_parse(text, len, src, w, err);
    if (rc) {
        free(w);
        return rc;
    }
    *out = w;
    return TH_OK;
}

static void free_native(void *native) {
    free(native);
}

static int convert(const void *native, const th_system *sys, const th_wl_scale *scale,
                   const char *src, th_workload **out, th_buf *notes, th_error *err) {
    (void)native, (void)sys, (void)scale, (void)notes;
    *out = NULL;
    return th_error_set(err, TH_EINPUT,
                        "%s: an LLM workload has no layer list to replay; themis train evaluates "
                        "it with its own model",
                        src);
}

const th_wl_format th_llm_wl_format = {
    .name = "an LLM workload",
    .hint = "themis train and workload sweeps (with llm.* axes) read it",
    .plural = "LLM workloads",
    .sim = "themis",
    .model = "analytical",
    .detect = th_llm_detect,
    .parse = parse,
    .free_native = free_native,
    .convert = convert,
};

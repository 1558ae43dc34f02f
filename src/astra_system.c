/* The ASTRA-sim preset's system fields (SPEC §9): endpoint delay and local-memory bandwidth
 * instead of reduce_GBps, ring by default on every topology (halvingDoubling and direct where
 * the preset models them), no efficiency, and GiB-based bandwidths. */
#include "json.h"
#include "system_internal.h"

static const char *const keys[] = {"endpoint_ns", "local_mem_GBps", NULL};

static int parse(const cJSON *root, th_system *sys, const char *src, th_error *err) {
    for (int i = 0; keys[i]; i++)
        if (!cJSON_GetObjectItemCaseSensitive(root, keys[i]))
            return th_error_set(err, TH_EINPUT,
                                "%s: %s: missing (a number is required with \"model\": "
                                "\"astra-sim\")",
                                src, keys[i]);
    if (cJSON_GetObjectItemCaseSensitive(root, "reduce_GBps"))
        return th_error_set(err, TH_EINPUT,
                            "%s: reduce_GBps: not used with \"model\": \"astra-sim\" "
                            "(reductions cost local_mem_GBps there)",
                            src);
    if (th_json_number(root, "endpoint_ns", 0, &sys->endpoint, src, "", err)) return err->code;
    if (th_json_number(root, "local_mem_GBps", 0, &sys->local_mem_GBps, src, "", err))
        return err->code;
    return TH_OK;
}

static int validate(const th_system *sys, const char *src, th_error *err) {
    if (!(sys->endpoint >= 0 && sys->endpoint <= TH_LATENCY_MAX))
        return th_error_set(err, TH_EINPUT,
                            "%s: endpoint_ns: expected a number >= 0 (at most %g), got %.17g", src,
                            TH_LATENCY_MAX, sys->endpoint);
    if (!(sys->local_mem_GBps >= TH_BW_MIN && sys->local_mem_GBps <= TH_BW_MAX))
        return th_error_set(err, TH_EINPUT,
                            "%s: local_mem_GBps: expected a number > 0 (from %g to %g), got "
                            "%.17g",
                            src, TH_BW_MIN, TH_BW_MAX, sys->local_mem_GBps);
    if (sys->reduce_bw != 0)
        return th_error_set(err, TH_EINPUT, "%s: reduce_GBps: not used under the astra-sim preset",
                            src);
    return TH_OK;
}

/* ASTRA-sim reads GB/s as GiB per second. Its halvingDoubling runs log2 p steps and loses
 * data unless p is a power of two. direct on a ring: the time of a phase is a pass over every
 * peer (astra_model.c), so the ring is capped. */
#define DIRECT_RING_MAX 4096

static int dim(th_system *sys, int k, const char *src, th_error *err) {
    th_dim *d = &sys->dims[k];
    if (d->algorithm == TH_ALG_RHD && (d->npus & (d->npus - 1)) != 0)
        return th_error_set(err, TH_EINPUT,
                            "%s: dims[%d].algorithm: rhd (ASTRA-sim's halvingDoubling) needs a "
                            "power-of-two npus under the astra-sim preset, got %lld",
                            src, k, (long long)d->npus);
    if (d->algorithm == TH_ALG_DIRECT && d->topology == TH_TOPO_RING && d->npus > DIRECT_RING_MAX)
        return th_error_set(err, TH_EINPUT,
                            "%s: dims[%d].algorithm: direct on a ring topology of more than %d "
                            "NPUs is not modelled under the astra-sim preset (each phase's time "
                            "takes a pass over every peer), got %lld",
                            src, k, DIRECT_RING_MAX, (long long)d->npus);
    if (d->efficiency != 1)
        return th_error_set(err, TH_EINPUT,
                            "%s: dims[%d].efficiency: not used under the astra-sim "
                            "preset (got %.17g)",
                            src, k, d->efficiency);
    d->bw = d->bw_GBps * 1073741824.0 / 1e9;
    return TH_OK;
}

static const th_algorithm ring_only[] = {TH_ALG_RING, TH_ALG_RING, TH_ALG_RING};

const sys_model sys_astra_model = {keys, ring_only, parse, validate, dim};

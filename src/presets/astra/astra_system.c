/* The ASTRA-sim preset's system fields (SPEC §9): endpoint delay and local-memory bandwidth
 * instead of reduce_GBps, ring by default on every topology (halvingDoubling and direct where
 * the preset models them), no efficiency, and GiB-based bandwidths. */
#include <stdio.h>

#include "astra_preset.h"
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
    if (th_json_number(root, "endpoint_ns", 0, &astra_set(sys)->endpoint, src, "", err))
        return err->code;
    if (th_json_number(root, "local_mem_GBps", 0, &astra_set(sys)->local_mem_GBps, src, "", err))
        return err->code;
    /* ASTRA-sim's collective-optimization: localBWAware (RS down, AG up) or baseline */
    static const char *const opt[] = {"localBWAware", "baseline", NULL};
    int flat = 0;
    if (th_json_enum(root, "collective_optimization", opt, &flat, src, "", err)) return err->code;
    astra_set(sys)->flat = flat;
    double peak = 0;
    if (th_json_number(root, "roofline_TFLOPS", 0, &peak, src, "", err)) return err->code;
    astra_set(sys)->roofline_TFLOPS = peak;
    return TH_OK;
}

static int validate(const th_system *sys, const char *src, th_error *err) {
    if (astra_of(sys)->flat != 0 && astra_of(sys)->flat != 1)
        return th_error_set(err, TH_EINPUT, "%s: collective_optimization: invalid value %d", src,
                            astra_of(sys)->flat);
    if (!(astra_of(sys)->endpoint >= 0 && astra_of(sys)->endpoint <= TH_LATENCY_MAX))
        return th_error_set(err, TH_EINPUT,
                            "%s: endpoint_ns: expected a number >= 0 (at most %g), got %.17g", src,
                            TH_LATENCY_MAX, astra_of(sys)->endpoint);
    if (!(astra_of(sys)->local_mem_GBps >= TH_BW_MIN && astra_of(sys)->local_mem_GBps <= TH_BW_MAX))
        return th_error_set(err, TH_EINPUT,
                            "%s: local_mem_GBps: expected a number > 0 (from %g to %g), got "
                            "%.17g",
                            src, TH_BW_MIN, TH_BW_MAX, astra_of(sys)->local_mem_GBps);
    if (sys->reduce_bw != 0)
        return th_error_set(err, TH_EINPUT, "%s: reduce_GBps: not used under the astra-sim preset",
                            src);
    double peak = astra_of(sys)->roofline_TFLOPS;
    if (!(peak == 0 || (peak > 0 && peak <= 1e9)))
        return th_error_set(err, TH_EINPUT,
                            "%s: roofline_TFLOPS: expected a number > 0 (at most 1e9), or 0 for "
                            "no roofline, got %.17g",
                            src, peak);
    return TH_OK;
}

/* ASTRA-sim reads GB/s as GiB per second. Its halvingDoubling runs log2 p steps and loses
 * data unless p is a power of two. direct on a ring: the time of a phase is a pass over every
 * peer (astra_model.c), so the ring is capped. */
#define DIRECT_RING_MAX 4096

/* Checks the algorithm dim k runs for a collective (field: its key in the dim). */
static int check_alg(const th_dim *d, int k, th_algorithm alg, const char *field, const char *src,
                     th_error *err) {
    if (alg == TH_ALG_RHD && (d->npus & (d->npus - 1)) != 0)
        return th_error_set(err, TH_EINPUT,
                            "%s: dims[%d].%s: rhd (ASTRA-sim's halvingDoubling) needs a "
                            "power-of-two npus under the astra-sim preset, got %lld",
                            src, k, field, (long long)d->npus);
    if (alg == TH_ALG_DIRECT && d->topology == TH_TOPO_RING && d->npus > DIRECT_RING_MAX)
        return th_error_set(err, TH_EINPUT,
                            "%s: dims[%d].%s: direct on a ring topology of more than %d "
                            "NPUs is not modelled under the astra-sim preset (each phase's time "
                            "takes a pass over every peer), got %lld",
                            src, k, field, DIRECT_RING_MAX, (long long)d->npus);
    return TH_OK;
}

static const char *const alg_keys[] = {"reducescatter", "allgather", "alltoall", NULL};

static int dim(th_system *sys, int k, const char *src, th_error *err) {
    th_dim *d = &sys->dims[k];
    if (check_alg(d, k, d->algorithm, "algorithm", src, err)) return err->code;
    for (int c = 0; c < 3; c++) {
        if (astra_of(sys)->alg[c][k] > TH_ALG_RHD + 1)
            return th_error_set(err, TH_EINPUT, "%s: dims[%d].%s: invalid algorithm", src, k,
                                alg_keys[c]);
        if (astra_of(sys)->alg[c][k] &&
            check_alg(d, k, (th_algorithm)(astra_of(sys)->alg[c][k] - 1), alg_keys[c], src, err))
            return err->code;
    }
    if (d->efficiency != 1)
        return th_error_set(err, TH_EINPUT,
                            "%s: dims[%d].efficiency: not used under the astra-sim "
                            "preset (got %.17g)",
                            src, k, d->efficiency);
    d->bw = d->bw_GBps * 1073741824.0 / 1e9;
    return TH_OK;
}

static const th_algorithm ring_only[] = {TH_ALG_RING, TH_ALG_RING, TH_ALG_RING};

/* dims[k].reducescatter and .allgather: the algorithm a Reduce-Scatter and an All-Gather run on
 * the dim (ASTRA-sim's per-collective implementation lists); absent, the dim's algorithm. */
static int parse_dim(const cJSON *d, int k, th_system *sys, const char *src, th_error *err) {
    char path[32];
    snprintf(path, sizeof path, "dims[%d]", k);
    for (int c = 0; c < 3; c++) {
        int alg = -1;
        if (th_json_enum(d, alg_keys[c], th_algorithm_names, &alg, src, path, err))
            return err->code;
        astra_set(sys)->alg[c][k] = (unsigned char)(alg + 1);
    }
    return TH_OK;
}

static const char *const top_keys[] = {"collective_optimization", "roofline_TFLOPS", NULL};

const sys_model astra_sys = {.keys = keys,
                             .shared_keys = top_keys,
                             .dim_keys = alg_keys,
                             .algorithm = ring_only,
                             .parse = parse,
                             .validate = validate,
                             .dim = dim,
                             .parse_dim = parse_dim};

/* The ASTRA-sim 1.0 preset's system fields (docs/VALIDATION.md): its settings at the top level,
 * per dim the links count, the collective implementation of each collective type and the nic
 * and router latencies, and the links-count rules that fix each dim's bandwidth. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "astra1_preset.h"
#include "json.h"
#include "system_internal.h"
#include "themis/str.h"

static const char *const top_keys[] = {"endpoint_ns",
                                       "astra_version",
                                       "collective_optimization",
                                       "scheduling_policy",
                                       "gap_denominator",
                                       "boost_mode",
                                       NULL};
static const char *const dim_keys[] = {
    "links",    "allreduce",      "reducescatter",     "allgather",
    "alltoall", "nic_latency_ns", "router_latency_ns", NULL};
static const char *const versions[] = {"1.0", "tutorial-asplos2023", NULL};
static const char *const optimizations[] = {"baseline", "localBWAware", NULL};
static const char *const policies[] = {"FIFO", "LIFO", NULL};
const char *const th_a1_impl_names[] = {"ring", "halvingDoubling", "direct", NULL};

/* An integer obj[key] in [lo, hi] into *out (unchanged when absent and not required). */
static int integer(const cJSON *obj, const char *key, int required, double lo, double hi, int *out,
                   const char *src, const char *path, th_error *err) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    char p[64], what[96];
    th_json_path(p, sizeof p, path, key);
    if (!v) {
        if (!required) return TH_OK;
        return th_error_set(err, TH_EINPUT, "%s: %s: missing (an integer from %.0f to %.0f)", src,
                            p, lo, hi);
    }
    snprintf(what, sizeof what, "an integer from %.0f to %.0f", lo, hi);
    if (!cJSON_IsNumber(v) || v->valuedouble != floor(v->valuedouble) || v->valuedouble < lo ||
        v->valuedouble > hi)
        return th_json_bad(err, src, p, what, v);
    *out = (int)v->valuedouble;
    return TH_OK;
}

/* An implementation: ring, halvingDoubling, direct or directN (at most N messages at once). */
static int impl_value(const cJSON *v, int *impl, int *window) {
    if (!cJSON_IsString(v)) return -1;
    int i = th_name_find(th_a1_impl_names, v->valuestring);
    if (i >= 0) {
        *impl = i, *window = 0;
        return 0;
    }
    const char *s = v->valuestring;
    if (strncmp(s, "direct", 6) || !s[6] || strlen(s + 6) > 9) return -1;
    for (const char *c = s + 6; *c; c++)
        if (*c < '0' || *c > '9') return -1;
    *window = atoi(s + 6);
    *impl = TH_A1_DIRECT;
    return *window >= 1 ? 0 : -1;
}

static int parse(const cJSON *root, th_system *sys, const char *src, th_error *err) {
    astra1_settings *a = astra1_set(sys);
    memset(a, 0, sizeof *a);
    a->local_bw_aware = 1;
    a->lifo = 1;
    a->gap_denominator = 16;
    a->boost = 1; /* the tutorials' value */
    int v = TH_A1_BRANCH;
    if (th_json_enum(root, "astra_version", versions, &v, src, "", err)) return err->code;
    a->version = (th_a1_version)v;
    v = 1;
    if (th_json_enum(root, "collective_optimization", optimizations, &v, src, "", err))
        return err->code;
    a->local_bw_aware = v;
    v = 1;
    if (th_json_enum(root, "scheduling_policy", policies, &v, src, "", err)) return err->code;
    a->lifo = v;
    if (integer(root, "boost_mode", 0, 0, 1, &a->boost, src, "", err)) return err->code;
    if (cJSON_GetObjectItemCaseSensitive(root, "gap_denominator") && a->version == TH_A1_BRANCH)
        return th_error_set(err, TH_EINPUT,
                            "%s: gap_denominator: only with \"astra_version\": "
                            "\"tutorial-asplos2023\" (the ASTRA-sim-1.0 branch fixes it at 16)",
                            src);
    if (integer(root, "gap_denominator", 0, 1, 1e9, &a->gap_denominator, src, "", err))
        return err->code;
    int ep = 0;
    if (integer(root, "endpoint_ns", 1, 0, 1e9, &ep, src, "", err)) return err->code;
    astra1_set(sys)->endpoint = ep;
    return TH_OK;
}

static int parse_dim(const cJSON *d, int k, th_system *sys, const char *src, th_error *err) {
    char path[32];
    snprintf(path, sizeof path, "dims[%d]", k);
    astra1_settings *a = astra1_set(sys);
    if (cJSON_GetObjectItemCaseSensitive(d, "algorithm"))
        return th_error_set(err, TH_EINPUT,
                            "%s: %s.algorithm: not used with \"model\": \"astra-sim-1.0\" (give "
                            "allreduce, reducescatter, allgather and alltoall: ring, "
                            "halvingDoubling or direct)",
                            src, path);
    if (integer(d, "links", 1, 1, 1e6, &a->links[k], src, path, err)) return err->code;
    int impl[4] = {TH_A1_RING, -1, -1, TH_A1_DIRECT}, window[4] = {0, 0, 0, 0};
    static const char *const types[] = {"allreduce", "reducescatter", "allgather", "alltoall"};
    for (int t = 0; t < 4; t++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(d, types[t]);
        if (v && impl_value(v, &impl[t], &window[t])) {
            char p[64];
            snprintf(p, sizeof p, "%s.%s", path, types[t]);
            return th_json_bad(err, src, p,
                               "ring, halvingDoubling, direct or directN (a window of N >= 1 "
                               "messages)",
                               v);
        }
        if (impl[t] < 0) impl[t] = impl[0], window[t] = window[0]; /* RS, AG: AR's */
    }
    for (int t = 0; t < 4; t++)
        a->impl[t][k] = (th_a1_impl)impl[t], a->window[t][k] = window[t];
    a->nic[k] = a->router[k] = 0;
    if (th_json_number(d, "nic_latency_ns", 0, &a->nic[k], src, path, err) ||
        th_json_number(d, "router_latency_ns", 0, &a->router[k], src, path, err))
        return err->code;
    return TH_OK;
}

static int validate(const th_system *sys, const char *src, th_error *err) {
    const astra1_settings *a = astra1_of(sys);
    if (!(a->endpoint >= 0 && a->endpoint <= 1e9 && a->endpoint == floor(a->endpoint)))
        return th_error_set(err, TH_EINPUT,
                            "%s: endpoint_ns: expected an integer from 0 to 1e9, got %.17g", src,
                            a->endpoint);
    if (sys->reduce_bw != 0)
        return th_error_set(err, TH_EINPUT,
                            "%s: reduce_GBps: not used with \"model\": \"astra-sim-1.0\" (a "
                            "reduction of m bytes costs 3 floor(m / 500000) ns there)",
                            src);
    if ((unsigned)a->version > TH_A1_TUTORIAL || a->gap_denominator < 1 ||
        (a->version == TH_A1_BRANCH && a->gap_denominator != 16))
        return th_error_set(err, TH_EINPUT, "%s: astra_version or gap_denominator out of range",
                            src);
    return TH_OK;
}

/* The links-count rules of ASTRA-sim 1.0's analytical backend: a Ring uses its links rounded
 * down to even, a FullyConnected dim floor(links / (p - 1)) per peer, a Switch all of them;
 * bandwidth GB/s is GiB per second. Themis sees usable links times bw_GBps. */
static int dim(th_system *sys, int k, const char *src, th_error *err) {
    th_dim *d = &sys->dims[k];
    astra1_settings *a = astra1_set(sys);
    int links = a->links[k];
    double p = (double)d->npus, usable = links;
    if (links < 1)
        return th_error_set(err, TH_EINPUT, "%s: dims[%d].links: expected an integer >= 1, got %d",
                            src, k, links);
    if (d->efficiency != 1)
        return th_error_set(err, TH_EINPUT,
                            "%s: dims[%d].efficiency: not used with \"model\": \"astra-sim-1.0\" "
                            "(got %.17g)",
                            src, k, d->efficiency);
    switch (d->topology) {
    case TH_TOPO_RING:
        usable = links - links % 2;
        a->scalar[k] = usable;
        if (usable == 0)
            return th_error_set(err, TH_EINPUT,
                                "%s: dims[%d].links: a Ring uses its links in pairs, and 1 link "
                                "leaves it no bandwidth (ASTRA-sim stops there)",
                                src, k);
        break;
    case TH_TOPO_FC:
        if (d->npus < 2)
            return th_error_set(err, TH_EINPUT,
                                "%s: dims[%d].npus: a FullyConnected dim needs 2 NPUs or more "
                                "(ASTRA-sim divides its links by npus - 1)",
                                src, k);
        a->scalar[k] = floor(links / (p - 1));
        usable = links - fmod(links, p - 1);
        if (a->scalar[k] == 0)
            return th_error_set(err, TH_EINPUT,
                                "%s: dims[%d].links: a FullyConnected dim of %lld NPUs needs at "
                                "least npus - 1 = %lld links (one per peer), got %d",
                                src, k, (long long)d->npus, (long long)d->npus - 1, links);
        break;
    case TH_TOPO_SWITCH: a->scalar[k] = links; break;
    }
    a->greedy_bw[k] = usable * d->bw_GBps;
    d->bw = d->bw_GBps * 1073741824.0 / 1e9 * a->scalar[k];
    int pow2 = d->npus > 0 && (d->npus & (d->npus - 1)) == 0;
    static const char *const types[] = {"allreduce", "reducescatter", "allgather", "alltoall"};
    for (int t = 0; t < 4; t++) {
        th_a1_impl im = a->impl[t][k];
        if ((unsigned)im > TH_A1_DIRECT)
            return th_error_set(err, TH_EINPUT, "%s: dims[%d].%s: unknown implementation", src, k,
                                types[t]);
        if (im == TH_A1_HD && !pow2)
            return th_error_set(err, TH_EINPUT,
                                "%s: dims[%d].%s: halvingDoubling needs a power-of-two number of "
                                "NPUs (ASTRA-sim's partners and step count assume one), got %lld",
                                src, k, types[t], (long long)d->npus);
        if (im == TH_A1_HD && t == 3)
            return th_error_set(err, TH_EINPUT,
                                "%s: dims[%d].alltoall: halvingDoubling has no All-to-All in "
                                "ASTRA-sim 1.0 (it stops there); use ring or direct",
                                src, k);
        int w = a->window[t][k];
        if (w > 0 && w < d->npus - 1 && t == 0)
            return th_error_set(err, TH_EINPUT,
                                "%s: dims[%d].allreduce: direct%d, a window on an All-Reduce, is "
                                "not modelled (its All-Gather round waits on the Reduce-Scatter "
                                "round's messages window by window)",
                                src, k, w);
        if (w > 0 && w < d->npus - 1 && d->topology == TH_TOPO_RING && d->npus > 3)
            return th_error_set(err, TH_EINPUT,
                                "%s: dims[%d].%s: direct%d on a Ring of more than 3 NPUs is not "
                                "modelled (its rounds reach peers at different hop counts)",
                                src, k, types[t], w);
        if (im == TH_A1_DIRECT && t == 0 && d->topology == TH_TOPO_RING && d->npus > 4097)
            return th_error_set(err, TH_EINPUT,
                                "%s: dims[%d].allreduce: direct on a Ring of more than 4097 NPUs "
                                "is not modelled",
                                src, k);
    }
    if (!(a->nic[k] >= 0 && a->nic[k] <= 1e9 && a->router[k] >= 0 && a->router[k] <= 1e9))
        return th_error_set(err, TH_EINPUT,
                            "%s: dims[%d]: nic_latency_ns and router_latency_ns: expected numbers "
                            "from 0 to 1e9",
                            src, k);
    return TH_OK;
}

/* Every dim's default algorithm is ring: the 1.0 implementations are the preset's own fields. */
static const th_algorithm ring_only[] = {TH_ALG_RING, TH_ALG_RING, TH_ALG_RING};
static const char *const no_keys[] = {NULL};

const sys_model astra1_sys = {.keys = no_keys,
                              .shared_keys = top_keys,
                              .dim_keys = dim_keys,
                              .algorithm = ring_only,
                              .parse = parse,
                              .validate = validate,
                              .dim = dim,
                              .parse_dim = parse_dim};

/* ASTRA-sim 1.0 workloads on a system: which dims each collective spans under each
 * parallelism (Workload::decode_involved_dimensions), the logical split of a dim by a
 * Transformer's model group (Sys::break_dimension), and the scaled integers of
 * --comm-scale / --compute-scale. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "astra1_preset.h"
#include "themis/astra1_workload.h"

/* ASTRA-sim's involved-dims vectors have ten entries: dims from the eleventh on never take
 * part. */
#define INVOLVED_DIMS 10

double th_a1_scaled(double v, double scale, int tag) {
    if (tag) {
        /* the tag holds the scales as float: uint64 * float is a float product */
        float f = (float)v * (float)scale;
        return floor((double)f);
    }
    /* the branch reads the scales as float too, then multiplies in double */
    return floor(v * (double)(float)scale);
}

/* The last model-parallel dim of a (split) system for group G: where the running product of
 * npus reaches G; -1 for G = 1 or when it never does. */
static int boundary_of(const th_system *sys, int64_t g) {
    if (g == 1) return -1;
    double all = 1;
    for (int d = 0; d < sys->ndims; d++) {
        all *= (double)sys->dims[d].npus;
        if (all == (double)g) return d;
        if (all > (double)g) return -1;
    }
    return -1;
}

int th_a1_issues(const th_a1_workload *wl, int layer, th_phase p) {
    switch (wl->par) {
    case TH_A1_DATA: return p == TH_PHASE_WG;
    case TH_A1_MICRO: return p == TH_PHASE_WG && layer == 0;
    case TH_A1_HYBRID_DLRM:
    case TH_A1_HYBRID_DLRM_ENHANCED:
        /* every layer's forward All-to-All (only layer 0's spans dims), layer 0's input
         * gradient after layer K + 1's */
        return p == TH_PHASE_WG ||
               (p == TH_PHASE_FWD && wl->layers[layer].ph[p].type == TH_COLL_ALLTOALL) ||
               (p == TH_PHASE_IG && layer == 0 && wl->last_bottom + 1 < wl->nlayers);
    case TH_A1_MODEL: return p == TH_PHASE_FWD || (p == TH_PHASE_IG && layer > 0);
    case TH_A1_DISTRIBUTED_INFERENCE: return p == TH_PHASE_FWD;
    case TH_A1_HYBRID_TRANSFORMER:
    case TH_A1_HYBRID_TRANSFORMER_FWD_IN_BCKWD: return 1;
    case TH_A1_HYBRID_DATA_MODEL:
    case TH_A1_HYBRID_MODEL_DATA:
    case TH_A1_HYBRID_CUSTOMIZED: return p != TH_PHASE_IG || layer > 0;
    }
    return 0;
}

uint32_t th_a1_dims(const th_a1_workload *wl, const th_system *sys, int layer, th_phase phase) {
    int n = sys->ndims < INVOLVED_DIMS ? sys->ndims : INVOLVED_DIMS;
    uint32_t all = (1u << n) - 1u, model = 0, data = all;
    th_a1_parallelism par = wl->par;
    if (par == TH_A1_HYBRID_CUSTOMIZED) {
        /* the layer's own; DLRM's embedding rule belongs to a whole DLRM workload only */
        par = wl->layers[layer].par;
        if (th_a1_dlrm(par)) par = TH_A1_DATA;
    }
    switch (par) {
    case TH_A1_DATA:
    case TH_A1_MICRO:
    case TH_A1_HYBRID_CUSTOMIZED: /* never: a layer's own is another */
        model = 0, data = all;
        break;
    case TH_A1_HYBRID_DLRM:
    case TH_A1_HYBRID_DLRM_ENHANCED:
        if (layer == 0) return all; /* the embedding layer: every dim for every collective */
        model = 0, data = all;
        break;
    case TH_A1_MODEL:
    case TH_A1_DISTRIBUTED_INFERENCE: model = all, data = 0; break;
    case TH_A1_HYBRID_DATA_MODEL: model = 1u & all, data = all & ~1u; break;
    case TH_A1_HYBRID_MODEL_DATA: model = all & ~1u, data = 1u & all; break;
    case TH_A1_HYBRID_TRANSFORMER:
    case TH_A1_HYBRID_TRANSFORMER_FWD_IN_BCKWD: {
        int b = boundary_of(sys, wl->group);
        model = b < 0 ? 0 : ((1u << (b + 1)) - 1u) & all;
        data = all & ~model;
        break;
    }
    }
    return phase == TH_PHASE_WG ? data : model;
}

int th_a1_split(const th_a1_workload *wl, const th_system *sys, const char *source, th_system *out,
                int *split, int *boundary, th_error *err) {
    *out = *sys;
    *split = -1;
    *boundary = -1;
    if (!th_a1_transformer(wl->par) || wl->group == 1) return TH_OK;
    int64_t g = wl->group;
    double all = 1;
    for (int d = 0; d < sys->ndims; d++) {
        int64_t p = sys->dims[d].npus;
        if (all * (double)p < (double)g) {
            all *= (double)p;
            continue;
        }
        if (all * (double)p == (double)g) {
            *boundary = d;
            return TH_OK;
        }
        int64_t below = (int64_t)all, f = g / below;
        if (g % below || p % f)
            return th_error_set(
                err, TH_EINPUT,
                "%s:%d: model_parallel_NPU_group %lld does not divide system \"%s\": "
                "the dims before dims[%d] hold %lld NPUs and dims[%d] (%s) %lld, so "
                "a group of %lld NPUs is not a block of them",
                source, wl->line, (long long)g, sys->name, d, (long long)below, d,
                sys->dims[d].name, (long long)p, (long long)g);
        if (sys->dims[d].topology == TH_TOPO_RING)
            return th_error_set(
                err, TH_EINPUT,
                "%s:%d: model_parallel_NPU_group %lld splits dims[%d] (%s), a ring, "
                "into rings of %lld and %lld NPUs: ASTRA-sim 1.0's logical "
                "sub-rings take other hop counts than a ring, not modelled",
                source, wl->line, (long long)g, d, sys->dims[d].name, (long long)f,
                (long long)(p / f));
        if (sys->ndims == TH_MAX_DIMS)
            return th_error_set(err, TH_EINPUT,
                                "%s:%d: model_parallel_NPU_group %lld splits dims[%d] of a system "
                                "with %d dims already, the most themis holds",
                                source, wl->line, (long long)g, d, TH_MAX_DIMS);
        if (sys->model == TH_MODEL_ASTRA1 && !astra1_of(sys)->boost)
            return th_error_set(err, TH_EINPUT,
                                "%s:%d: model_parallel_NPU_group %lld splits dims[%d] under "
                                "boost_mode 0, which the preset models on one dim only",
                                source, wl->line, (long long)g, d);
        size_t tail = (size_t)(sys->ndims - d);
        memmove(&out->dims[d + 1], &out->dims[d], sizeof out->dims[0] * tail);
        /* the 1.0 preset's per-dim fields: both halves keep the dim's links and their costs
         * (another model's settings are not per dim) */
        if (sys->model == TH_MODEL_ASTRA1) {
            astra1_settings *a = astra1_set(out);
            memmove(&a->links[d + 1], &a->links[d], sizeof a->links[0] * tail);
            memmove(&a->scalar[d + 1], &a->scalar[d], sizeof a->scalar[0] * tail);
            memmove(&a->greedy_bw[d + 1], &a->greedy_bw[d], sizeof a->greedy_bw[0] * tail);
            memmove(&a->nic[d + 1], &a->nic[d], sizeof a->nic[0] * tail);
            memmove(&a->router[d + 1], &a->router[d], sizeof a->router[0] * tail);
            for (int t = 0; t < 4; t++) {
                memmove(&a->impl[t][d + 1], &a->impl[t][d], sizeof a->impl[t][0] * tail);
                memmove(&a->window[t][d + 1], &a->window[t][d], sizeof a->window[t][0] * tail);
            }
        }
        out->ndims = sys->ndims + 1;
        out->dims[d].npus = f;
        out->dims[d + 1].npus = p / f;
        char name[TH_NAME_MAX];
        snprintf(name, sizeof name, "%s", sys->dims[d].name);
        snprintf(out->dims[d].name, sizeof out->dims[d].name, "%.55s.model", name);
        snprintf(out->dims[d + 1].name, sizeof out->dims[d + 1].name, "%.55s.data", name);
        *split = d;
        *boundary = d;
        /* the 1.0 preset derives a FullyConnected dim's bandwidth from its npus: the halves
         * keep the physical dim's, so it is not derived again */
        th_error e;
        if (sys->model != TH_MODEL_ASTRA1 && th_system_validate(out, source, &e))
            return th_error_set(err, TH_EINPUT, "%s: the split system: %s", source, e.msg);
        return TH_OK;
    }
    return th_error_set(err, TH_EINPUT,
                        "%s:%d: model_parallel_NPU_group %lld is more NPUs than system \"%s\" has "
                        "(%.0f)",
                        source, wl->line, (long long)g, sys->name, all);
}

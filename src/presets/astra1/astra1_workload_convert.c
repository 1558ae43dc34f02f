/* ASTRA-sim 1.0 text workloads in our workload format (our semantics): the collectives the
 * state machine issues, on the dims its parallelism gives them, with what our format cannot
 * say listed as notes; and the JSON text of the result (import-astra --workload). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "report_internal.h"
#include "themis/astra1_workload.h"

static void note(th_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(th_buf *b, const char *fmt, ...) {
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line - 1, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if ((size_t)n > sizeof line - 2) n = (int)sizeof line - 2;
    line[n++] = '\n';
    th_buf_add(b, line, (size_t)n); /* a note lost to a full memory loses nothing else */
}

/* How the workload's parallelism maps onto ours; 0 or an error. */
static int shape(const th_a1_workload *wl, const th_system *sys, const char *src, th_workload *out,
                 th_buf *notes, th_error *err) {
    const char *par = th_a1_parallelism_names[wl->par];
    if (wl->par == TH_A1_HYBRID_TRANSFORMER_FWD_IN_BCKWD)
        return th_error_set(err, TH_EINPUT,
                            "%s:%d: HYBRID_TRANSFORMER_FWD_IN_BCKWD recomputes forwards in the "
                            "backward pass, which our workload format cannot say (it replays "
                            "under the astra-sim-1.0 preset)",
                            src, wl->line);
    if ((wl->par == TH_A1_HYBRID_MODEL_DATA || wl->par == TH_A1_HYBRID_TRANSFORMER ||
         wl->par == TH_A1_HYBRID_CUSTOMIZED) &&
        !sys)
        return th_error_set(err, TH_EINPUT,
                            "%s:%d: %s: its model-parallel dims depend on the system's dims: give "
                            "the system (-s SYSTEM.json)",
                            src, wl->line, par);
    if (wl->par == TH_A1_HYBRID_DATA_MODEL) {
        out->hybrid = 1;
        out->mp_dims = 1;
    }
    if (wl->par == TH_A1_HYBRID_TRANSFORMER) {
        th_system split;
        int at, boundary;
        if (th_a1_split(wl, sys, src, &split, &at, &boundary, err)) return err->code;
        if (at >= 0)
            return th_error_set(err, TH_EINPUT,
                                "%s:%d: model_parallel_NPU_group %lld splits dims[%d] (%s) of "
                                "system \"%s\" into two logical dims, which our workload format "
                                "(model-parallel inner dims, whole dims) cannot say",
                                src, wl->line, (long long)wl->group, at, sys->dims[at].name,
                                sys->name);
        if (boundary >= 0 && boundary < sys->ndims - 1) {
            out->hybrid = 1;
            out->mp_dims = boundary + 1;
        }
    }
    /* a system without a data-parallel dim: every collective names its dims */
    if (sys && out->hybrid && out->mp_dims >= sys->ndims) out->hybrid = 0, out->mp_dims = 0;
    if (wl->par == TH_A1_MICRO)
        note(notes, "MICRO: one collective per pass; 'themis run' evaluates a single collective");
    if (wl->par == TH_A1_HYBRID_DLRM_ENHANCED)
        note(
            notes,
            "HYBRID_DLRM_ENHANCED: layer 0's forward All-to-All blocks the next compute (ASTRA-sim "
            "1.0 waits for it at the end of layer %d's forward); its input-gradient All-to-All "
            "is issued at layer 0's input gradient (ASTRA-sim: after layer %d's) and, as there, "
            "waited for only by the next iteration",
            wl->last_bottom, wl->last_bottom + 1);
    if (wl->par == TH_A1_DISTRIBUTED_INFERENCE)
        note(notes, "DISTRIBUTED_INFERENCE: forwards only; the input- and weight-gradient "
                    "computes are 0");
    if (wl->par == TH_A1_HYBRID_DLRM)
        note(notes,
             "HYBRID_DLRM: layer 0's forward All-to-All blocks the next compute (ASTRA-sim 1.0 "
             "waits for it at the end of layer %d's forward); its input-gradient All-to-All is "
             "issued at layer 0's input gradient and blocks its weight gradient (ASTRA-sim issues "
             "it after layer %d's input-gradient compute)",
             wl->last_bottom, wl->last_bottom + 1);
    if (wl->par != TH_A1_DATA && wl->par != TH_A1_MICRO && !th_a1_dlrm(wl->par) &&
        wl->par != TH_A1_DISTRIBUTED_INFERENCE)
        note(notes,
             "%s: input-gradient collectives block the next compute (ASTRA-sim 1.0 waits for "
             "them only after the layer's weight-gradient compute)",
             par);
    return TH_OK;
}

/* Which dims a collective names in our format: the workload's own "all", "mp" or "dp" where
 * they say the same as ASTRA-sim's vectors, else the list of dims the system gives. */
static void dims(const th_a1_workload *wl, const th_workload *out, const th_system *sys, int l,
                 th_phase p, th_wl_coll *c) {
    int par = wl->par, everywhere = par == TH_A1_DATA || par == TH_A1_MICRO ||
                                    th_a1_dlrm(wl->par) || par == TH_A1_MODEL ||
                                    par == TH_A1_DISTRIBUTED_INFERENCE;
    c->sel = TH_SEL_ALL;
    if (out->hybrid) c->sel = p == TH_PHASE_WG ? TH_SEL_DP : TH_SEL_MP;
    if (sys && (sys->ndims > 10 || (!everywhere && !out->hybrid))) {
        c->sel = TH_SEL_LIST;
        c->mask = th_a1_dims(wl, sys, l, p);
    }
}

static const char *const phase_field[TH_NPHASES] = {"forward", "input-grad", "weight-grad"};

/* Layer l's collective of phase p, if the state machine issues it on some dim. */
static int coll(const th_a1_workload *wl, const th_workload *out, const th_system *sys, int l,
                th_phase p, const th_a1_scale *scale, const char *src, th_wl_coll *c,
                th_error *err) {
    const th_a1_phase *ph = &wl->layers[l].ph[p];
    memset(c, 0, sizeof *c);
    if (ph->type == TH_A1_NONE || !th_a1_issues(wl, l, p)) return TH_OK;
    /* one that spans no dim of more than one NPU is not issued (without the system: no dim
     * of ten with two NPUs each, i.e. none the parallelism gives it) */
    th_system ten = {.ndims = 10};
    for (int d = 0; d < 10; d++)
        ten.dims[d].npus = 2;
    const th_system *on = sys ? sys : &ten;
    uint32_t m = th_a1_dims(wl, on, l, p);
    int any = 0;
    for (int d = 0; d < on->ndims; d++)
        any |= ((m >> d) & 1u) && on->dims[d].npus > 1;
    if (!any) return TH_OK;
    double size = th_a1_scaled(ph->size, scale->comm, scale->tag);
    if (size < 1)
        return th_error_set(err, TH_EINPUT,
                            "%s:%d: field %d (%s comm size): ASTRA-sim 1.0 never finishes a "
                            "collective of 0 bytes",
                            src, wl->layers[l].line, 5 + 3 * (int)p, phase_field[p]);
    if (ph->type == TH_COLL_ALLGATHER) {
        /* ASTRA-sim's All-Gather size is each NPU's input, ours the gathered output */
        if (!sys)
            return th_error_set(err, TH_EINPUT,
                                "%s:%d: field %d (%s comm type): an ALLGATHER's size is each "
                                "NPU's input in ASTRA-sim, the gathered output in ours: give the "
                                "system (-s SYSTEM.json) to multiply it by the NPUs of its dims",
                                src, wl->layers[l].line, 4 + 3 * (int)p, phase_field[p]);
        uint32_t m = th_a1_dims(wl, sys, l, p);
        for (int d = 0; d < sys->ndims; d++)
            if ((m >> d) & 1u) size *= (double)sys->dims[d].npus;
    }
    c->present = 1;
    c->type = (th_coll_type)ph->type;
    c->size = size;
    /* ENHANCED never waits for layer 0's input-gradient All-to-All within the pass */
    c->blocking = p != TH_PHASE_WG && !(wl->par == TH_A1_HYBRID_DLRM_ENHANCED && p == TH_PHASE_IG);
    dims(wl, out, sys, l, p, c);
    return TH_OK;
}

/* A layer name unique in the workload (ours requires it): NAME, else NAME.2, NAME.3, ... */
static void unique_name(th_workload *out, int l, const char *name) {
    snprintf(out->layers[l].name, sizeof out->layers[l].name, "%s", name);
    for (int k = 2;; k++) {
        int clash = 0;
        for (int j = 0; j < l && !clash; j++)
            clash = !strcmp(out->layers[j].name, out->layers[l].name);
        if (!clash) return;
        snprintf(out->layers[l].name, sizeof out->layers[l].name, "%.50s.%d", name, k);
    }
}

int th_a1_convert(const th_a1_workload *wl, const th_system *sys, const th_a1_scale *scale,
                  const char *source, th_workload **res, th_buf *notes, th_error *err) {
    *res = NULL;
    th_workload *out = calloc(1, sizeof *out);
    if (!out || !(out->layers = calloc((size_t)wl->nlayers, sizeof *out->layers))) {
        free(out);
        return th_error_set(err, TH_EINTERNAL, "out of memory");
    }
    snprintf(out->name, sizeof out->name, "%s", wl->name);
    snprintf(out->description, sizeof out->description,
             "%s, converted from an ASTRA-sim 1.0 text workload", th_a1_parallelism_names[wl->par]);
    out->batch = 1;
    out->chunks = 64;
    out->nlayers = wl->par == TH_A1_MICRO ? 1 : wl->nlayers;
    int rc = shape(wl, sys, source, out, notes, err), renamed = 0, delays = 0;
    for (int l = 0; rc == TH_OK && l < out->nlayers; l++) {
        const th_a1_layer *a = &wl->layers[l];
        unique_name(out, l, a->name);
        renamed += strcmp(out->layers[l].name, a->name) != 0;
        delays += a->update > 0;
        for (int p = 0; rc == TH_OK && p < TH_NPHASES; p++) {
            th_wl_phase *ph = &out->layers[l].ph[p];
            ph->ns = th_a1_scaled(a->ph[p].cycles, scale->compute, scale->tag);
            /* the state machine skips what it never runs: MICRO's compute, the backward of
             * DISTRIBUTED_INFERENCE, and under DATA and HYBRID_DLRM layer 0's input gradient */
            if (wl->par == TH_A1_MICRO ||
                (wl->par == TH_A1_DISTRIBUTED_INFERENCE && p != TH_PHASE_FWD) ||
                (p == TH_PHASE_IG && l == 0 && (wl->par == TH_A1_DATA || th_a1_dlrm(wl->par))))
                ph->ns = 0;
            rc = coll(wl, out, sys, l, (th_phase)p, scale, source, &ph->coll, err);
        }
    }
    if (rc == TH_OK && renamed)
        note(notes,
             "%d layer names repeat in the file: renamed NAME.2, NAME.3, ... (ours are "
             "unique)",
             renamed);
    if (rc == TH_OK && delays)
        note(notes, "%d layers have an update delay: our format has none, dropped", delays);
    if (rc) {
        th_workload_free(out);
        return rc;
    }
    *res = out;
    return TH_OK;
}

static cJSON *coll_json(const th_wl_coll *c) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "type", th_coll_type_name(c->type));
    cJSON_AddNumberToObject(o, "size", c->size);
    if (c->sel == TH_SEL_LIST) {
        cJSON *d = cJSON_AddArrayToObject(o, "dims");
        for (int k = 0; k < TH_MAX_DIMS; k++)
            if ((c->mask >> k) & 1u) cJSON_AddItemToArray(d, cJSON_CreateNumber(k));
    } else {
        static const char *const sels[] = {"dp", "mp", "all"};
        cJSON_AddStringToObject(o, "dims", sels[c->sel]);
    }
    cJSON_AddBoolToObject(o, "blocking", c->blocking);
    return o;
}

int th_a1_workload_json(const th_workload *wl, char **out, th_error *err) {
    static const char *const phases[] = {"forward", "input_grad", "weight_grad"};
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "name", wl->name);
    cJSON_AddStringToObject(root, "description", wl->description);
    cJSON_AddStringToObject(root, "parallelism", wl->hybrid ? "hybrid" : "data");
    if (wl->hybrid) cJSON_AddNumberToObject(root, "mp_dims", wl->mp_dims);
    cJSON_AddNumberToObject(root, "batch", wl->batch);
    cJSON_AddNumberToObject(root, "chunks", (double)wl->chunks);
    cJSON *layers = cJSON_AddArrayToObject(root, "layers");
    for (int l = 0; l < wl->nlayers; l++) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", wl->layers[l].name);
        for (int p = 0; p < TH_NPHASES; p++) {
            const th_wl_phase *ph = &wl->layers[l].ph[p];
            cJSON *x = cJSON_AddObjectToObject(o, phases[p]);
            cJSON_AddNumberToObject(x, "ns", ph->ns);
            if (ph->coll.present) cJSON_AddItemToObject(x, "collective", coll_json(&ph->coll));
        }
        cJSON_AddItemToArray(layers, o);
    }
    *out = th_report_json_exact(root) ? NULL : cJSON_Print(root); /* 8e+15 would lose cycles */
    cJSON_Delete(root);
    if (!*out) return th_error_set(err, TH_EINTERNAL, "out of memory");
    return TH_OK;
}

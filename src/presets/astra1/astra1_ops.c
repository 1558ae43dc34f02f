/* The ASTRA-sim 1.0 preset (docs/VALIDATION.md) as one model (model.h): single collectives as
 * ASTRA-sim 1.0 runs and reports them; no bound, lp, latency floor, training through our
 * replay, or calibration. */
#include <stdio.h>

#include "astra1_preset.h"
#include "themis/astra1.h"

/* Its implementation lists name a dim's algorithm per collective type ("directN": N at once). */
static void alg_name(const th_system *sys, int k, int type, char *buf, size_t n) {
    int t = (unsigned)type < 4 ? (int)type : 0;
    th_a1_impl im = astra1_of(sys)->impl[t][k];
    int w = astra1_of(sys)->window[t][k];
    if (im == TH_A1_DIRECT && w > 0)
        snprintf(buf, n, "direct%d", w);
    else
        snprintf(buf, n, "%s", (unsigned)im < 3 ? th_a1_impl_names[im] : "?");
}

/* Round-robin is listed only where ASTRA-sim 1.0 rotates over the active dims alone. */
static int lists(const th_system *sys, int p, uint32_t dims_mask) {
    return p != TH_POLICY_ROUNDROBIN || th_astra1_roundrobin_ok(sys, dims_mask);
}

/* As its MICRO workload reports a single collective. */
static void finish(const th_system *sys, int type, double size, th_result *res) {
    th_astra1_micro(sys, (th_coll_type)type, size, res);
}

const th_model_ops astra1_model_ops = {
    .name = "astra-sim-1.0",
    .caps = 0,
    .sys = &astra1_sys,
    .planner = astra1_planner,
    .emu = &astra1_emu,
    .finish = finish,
    .alg_name = alg_name,
    .alg_types = 4,
    .lists = lists,
};

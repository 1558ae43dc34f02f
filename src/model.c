/* Capability questions to a system's model (model.h), answered in one message form: what the
 * model lacks, naming the model, after the caller's file or system. */
#include <stdio.h>

#include "model.h"

int th_model_has(const th_system *sys, unsigned cap) {
    return (th_model_of(sys)->caps & cap) == cap;
}

/* Why a model without the capability cannot do it; %s is the model's name. */
static const struct {
    unsigned cap;
    const char *why;
} lacks[] = {
    {TH_CAP_BOUND, "the bound holds for the analytical model only, not the %s preset (its "
                   "integer sizes and queue rules are not in the program)"},
    {TH_CAP_LP, "policy lp: the analytical model only, not the %s preset"},
    {TH_CAP_IDEAL_LAT, "--ideal-lat: the latency floor is the analytical model's stage latency "
                       "(SPEC §3), and this system uses the %s preset"},
    {TH_CAP_TRAIN, "model: the %s preset runs single collectives here; train workloads on the "
                   "analytical model"},
    {TH_CAP_CALIBRATE, "a system under the %s preset: calibrate fits the analytical model "
                       "(SPEC §3)"},
    {TH_CAP_ANY_COLL, "the %s preset does not run every collective"},
};

int th_model_require(const th_system *sys, unsigned cap, const char *who, th_error *err) {
    const th_model_ops *m = th_model_of(sys);
    unsigned missing = cap & ~m->caps;
    if (!missing) return TH_OK;
    const char *why = "the %s preset cannot do this";
    for (size_t i = 0; i < sizeof lacks / sizeof *lacks; i++)
        if (missing & lacks[i].cap) {
            why = lacks[i].why;
            break;
        }
    char msg[TH_ERROR_MAX];
    snprintf(msg, sizeof msg, why, m->name);
    if (who) return th_error_set(err, TH_EINPUT, "%s: %s", who, msg);
    return th_error_set(err, TH_EINPUT, "%s", msg);
}

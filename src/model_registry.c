/* The registry of plug-ins: one model.h table per th_model and their names, the workload
 * formats besides our JSON (workload_format.h), and the names of the chunking rules (one is
 * spelled after the simulator whose rule it is). The only core file that names a preset;
 * everything else asks the tables. */
#include "model.h"
#include "themis/workload.h"
#include "workload_format.h"

/* The presets' tables (src/presets/NAME/NAME_ops.c). */
extern const th_model_ops astra_model_ops;
extern const th_model_ops astra1_model_ops;
extern const th_wl_format astra1_text_format; /* src/presets/astra1/astra1_format.c */

const th_model_ops *const th_model_table[] = {
    [TH_MODEL_ANALYTICAL] = &th_model_clean,
    [TH_MODEL_ASTRA] = &astra_model_ops,
    [TH_MODEL_ASTRA1] = &astra1_model_ops,
};
_Static_assert(sizeof th_model_table / sizeof *th_model_table == TH_MODEL_COUNT,
               "a table per th_model");
const unsigned th_model_count = TH_MODEL_COUNT;

const char *const th_model_names[] = {"analytical", "astra-sim", "astra-sim-1.0", NULL};

const th_model_ops *th_model_get(th_model m) {
    return (unsigned)m < TH_MODEL_COUNT ? th_model_table[m] : NULL;
}

static const th_wl_format *const formats[] = {&astra1_text_format};

const th_wl_format *th_wl_format_get(int i) {
    return i >= 0 && (size_t)i < sizeof formats / sizeof *formats ? formats[i] : NULL;
}

/* th_chunking in enum order: ours, and every collective in N chunks as ASTRA-sim cuts them. */
const char *const th_chunking_names[] = {"capped", "astra", NULL};

const char *th_model_name(th_model m) {
    return (unsigned)m < TH_MODEL_COUNT ? th_model_names[m] : "?";
}

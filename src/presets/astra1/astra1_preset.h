/* The ASTRA-sim 1.0 preset's parts behind the model interface (model.h): its system-file
 * hooks, its planner and its emulator rules, gathered in astra1_ops.c. */
#ifndef THEMIS_ASTRA1_PRESET_H
#define THEMIS_ASTRA1_PRESET_H

#include "model.h"

extern const struct sys_model astra1_sys; /* astra1_system.c */
/* Its planner for sys (astra1_model.c): the collective-optimization picks the phase list. */
const struct th_plan_model *astra1_planner(const th_system *sys);
extern const struct emu_model astra1_emu;   /* astra1_emulate.c */
extern const th_model_ops astra1_model_ops; /* astra1_ops.c */

#endif

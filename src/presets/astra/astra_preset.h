/* The ASTRA-sim 2.x preset's parts behind the model interface (model.h): its system-file
 * hooks, its planner and its emulator rules, gathered in astra_ops.c. */
#ifndef THEMIS_ASTRA_PRESET_H
#define THEMIS_ASTRA_PRESET_H

#include "model.h"

extern const struct sys_model astra_sys;         /* astra_system.c */
extern const struct th_plan_model astra_planner; /* astra_model.c */
extern const struct emu_model astra_emu;         /* astra_emulate.c */
extern const th_model_ops astra_model_ops;       /* astra_ops.c */

#endif

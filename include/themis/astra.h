/* ASTRA-sim compatibility: importing an ASTRA-sim 2.x analytical network file (YAML) and,
 * optionally, its system JSON into a themis system file under the astra-sim preset (SPEC §9),
 * with the run defaults (chunks, policy, intra) that the system JSON sets. */
#ifndef THEMIS_ASTRA_H
#define THEMIS_ASTRA_H

#include "themis/error.h"

/* Converts network_yml (+ system_json, may be NULL) into the text of a themis system file
 * (*out, NUL-terminated, caller frees). Unmodelled settings (more than one active chunk per
 * dimension, implementations other than ring, ...) are errors, not approximations. When
 * system_json is NULL, *note is set to a sentence about the defaults used (else NULL). */
int th_astra_import(const char *network_yml, const char *system_json, char **out, const char **note,
                    th_error *err);

#endif

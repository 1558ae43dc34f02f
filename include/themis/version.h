/* themis's version, and the versions of the libraries it is built with: from their headers when it
 * was compiled, and as the loaded libraries report them when it runs (for `themis --version`). */
#ifndef THEMIS_VERSION_H
#define THEMIS_VERSION_H

#include "themis/export.h"

#include <stddef.h>

/* This release (the Makefile reads it from this line). */
#define TH_VERSION "0.1.0"

#define TH_NLIBS 5 /* cJSON, GSL, libyaml, GLPK, NLopt */

typedef struct th_lib_version {
    const char *name; /* "cJSON", "GSL", "libyaml", "GLPK", "NLopt" */
    char built[24];   /* from its headers at compile time; "" when they do not say */
    char loaded[24];  /* from the library at run time */
} th_lib_version;

/* Fills the TH_NLIBS entries of out, in the order above. */
TH_API void th_lib_versions(th_lib_version out[TH_NLIBS]);

/* "cJSON 1.7.15, GSL 2.7.1, ..." into buf (n bytes): each library's version, the loaded one
 * with the headers' in parentheses when they differ ("GSL 2.8 (built with 2.7.1)"). */
TH_API void th_lib_versions_line(char *buf, size_t n);

#endif

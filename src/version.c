/* The versions of the libraries themis is built with, from their headers and at run time. */
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <glpk.h>
#include <gsl/gsl_version.h>
#include <nlopt.h>
#include <yaml.h>

#include "themis/version.h"

#define STR_(x) #x
#define STR(x)  STR_(x)

void th_lib_versions(th_lib_version out[TH_NLIBS]) {
    int a, b, c;
    memset(out, 0, sizeof *out * TH_NLIBS);
    out[0].name = "cJSON";
    snprintf(out[0].built, sizeof out[0].built, "%d.%d.%d", CJSON_VERSION_MAJOR,
             CJSON_VERSION_MINOR, CJSON_VERSION_PATCH);
    snprintf(out[0].loaded, sizeof out[0].loaded, "%s", cJSON_Version());
    out[1].name = "GSL";
    snprintf(out[1].built, sizeof out[1].built, "%s", GSL_VERSION);
    snprintf(out[1].loaded, sizeof out[1].loaded, "%s", gsl_version);
    out[2].name = "libyaml"; /* its headers carry no version */
    snprintf(out[2].loaded, sizeof out[2].loaded, "%s", yaml_get_version_string());
    out[3].name = "GLPK";
    snprintf(out[3].built, sizeof out[3].built, "%s.%s", STR(GLP_MAJOR_VERSION),
             STR(GLP_MINOR_VERSION));
    snprintf(out[3].loaded, sizeof out[3].loaded, "%s", glp_version());
    out[4].name = "NLopt"; /* its headers carry no version */
    nlopt_version(&a, &b, &c);
    snprintf(out[4].loaded, sizeof out[4].loaded, "%d.%d.%d", a, b, c);
}

void th_lib_versions_line(char *buf, size_t n) {
    th_lib_version v[TH_NLIBS];
    th_lib_versions(v);
    size_t len = 0;
    buf[0] = '\0';
    for (int i = 0; i < TH_NLIBS && len < n; i++) {
        int differ = v[i].built[0] && strcmp(v[i].built, v[i].loaded);
        int w = snprintf(buf + len, n - len, "%s%s %s", i ? ", " : "", v[i].name, v[i].loaded);
        if (w > 0) len += (size_t)w;
        if (differ && len < n) {
            w = snprintf(buf + len, n - len, " (built with %s)", v[i].built);
            if (w > 0) len += (size_t)w;
        }
    }
}

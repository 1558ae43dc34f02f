/* The run defaults of a system file: its optional "run" object (chunks, policy, intra), read
 * for `themis run` when the loader meets it (a system importer writes one). */
#include <math.h>
#include <string.h>

#include "json.h"
#include "system_internal.h"
#include "themis/run.h"

/* `themis run` evaluates one collective: the policies that plan one on its own. */
#define RUN_POLICIES (TH_POLICY_LAST_SINGLE + 1)

static int read_run(const cJSON *run, void *ctx, const char *src, th_error *err) {
    static const char *const keys[] = {"chunks", "policy", "intra", NULL};
    th_run_defaults *def = ctx;
    if (!cJSON_IsObject(run)) return th_json_bad(err, src, "run", "an object", run);
    if (th_json_check_keys(run, keys, src, "run", err)) return err->code;
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(run, "chunks");
    if (c) {
        if (!cJSON_IsNumber(c) || c->valuedouble < 1 || c->valuedouble > TH_MAX_CHUNKS ||
            c->valuedouble != floor(c->valuedouble))
            return th_json_bad(err, src, "run.chunks", "an integer from 1 to 1000000", c);
        def->chunks = (int64_t)c->valuedouble;
    }
    const char *policies[RUN_POLICIES + 1];
    th_policy_names_first(RUN_POLICIES, policies);
    int v = -1;
    if (th_json_enum(run, "policy", policies, &v, src, "run", err)) return err->code;
    if (v >= 0) def->has_policy = 1, def->policy = (th_policy)v;
    v = -1;
    if (th_json_enum(run, "intra", th_intra_names, &v, src, "run", err)) return err->code;
    if (v >= 0) def->has_intra = 1, def->intra = (th_intra)v;
    return TH_OK;
}

int th_run_parse_system(const char *json, size_t len, const char *source, th_system *sys,
                        th_run_defaults *def, th_error *err) {
    memset(def, 0, sizeof *def);
    return sys_parse(json, len, source, sys, read_run, def, err);
}

int th_run_load_system(const char *path, th_system *sys, th_run_defaults *def, th_error *err) {
    memset(def, 0, sizeof *def);
    return sys_load(path, sys, read_run, def, err);
}

/* What a search starts from: a model file (key "llm_model", models/llm/) or an LLM workload
 * (key "llm"), told by content. A model file is read through the workload reader, as the model
 * of a workload with the format's default execution, so that both are checked by one reader and
 * their errors name the same keys. */
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "themis/llm_search.h"
#include "themis/str.h"

static const char *const model_file_keys[] = {"name", "description", "llm_model", "sources", NULL};

/* The reader names the model's keys "llm.model.KEY" in a workload; in a model file they are
 * "llm_model.KEY". */
static void rename_path(th_error *err, const char *src) {
    size_t n = strlen(src);
    char *p = err->msg;
    if (strncmp(p, src, n) || strncmp(p + n, ": llm.model", 11)) return;
    p[n + 5] = '_';
}

static int parse_model_file(const cJSON *root, const char *source, th_llm_workload *out,
                            th_error *err) {
    if (th_json_check_keys(root, model_file_keys, source, "", err)) return err->code;
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(root, "llm_model");
    if (!m)
        return th_error_set(err, TH_EINPUT, "%s: llm_model: missing (the model's sizes)", source);
    if (!cJSON_IsObject(m)) return th_json_bad(err, source, "llm_model", "a model object", m);
    cJSON *w = cJSON_CreateObject(), *llm = cJSON_AddObjectToObject(w, "llm");
    cJSON *model = cJSON_Duplicate(m, 1);
    int rc = TH_OK;
    if (!w || !llm || !model) {
        cJSON_Delete(model);
        rc = th_error_set(err, TH_EINTERNAL, "out of memory");
    } else {
        cJSON_AddItemToObject(llm, "model", model);
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(root, "name");
        if (!cJSON_GetObjectItemCaseSensitive(m, "name") && cJSON_IsString(name))
            cJSON_AddStringToObject(model, "name", name->valuestring);
        char *text = cJSON_PrintUnformatted(w);
        if (!text) {
            rc = th_error_set(err, TH_EINTERNAL, "out of memory");
        } else {
            rc = th_llm_parse(text, strlen(text), source, out, err);
            if (rc) rename_path(err, source);
            free(text);
        }
    }
    cJSON_Delete(w);
    if (rc == TH_OK) {
        if (!out->model.name[0])
            th_base_name(source, ".json", out->model.name, sizeof out->model.name);
        out->exec.global_batch = 0; /* a model file has none: the search asks for one */
    }
    return rc;
}

int th_llm_parse_any(const char *text, size_t len, const char *source, th_llm_workload *out,
                     int *is_workload, th_error *err) {
    memset(out, 0, sizeof *out);
    *is_workload = 0;
    cJSON *root;
    if (th_json_parse(text, len, source, &root, err)) return err->code;
    int rc;
    if (!cJSON_IsObject(root))
        rc =
            th_json_bad(err, source, "(top level)", "a model file or an LLM workload object", root);
    else if (cJSON_GetObjectItemCaseSensitive(root, "llm"))
        rc = th_llm_parse(text, len, source, out, err), *is_workload = 1;
    else if (cJSON_GetObjectItemCaseSensitive(root, "llm_model"))
        rc = parse_model_file(root, source, out, err);
    else
        rc = th_error_set(err, TH_EINPUT,
                          "%s: (top level): expected a model file (key \"llm_model\") or an LLM "
                          "workload (key \"llm\"), found neither key",
                          source);
    cJSON_Delete(root);
    return rc;
}

int th_llm_load_any(const char *path, th_llm_workload *out, int *is_workload, th_error *err) {
    char *text;
    size_t len;
    if (th_json_read_file(path, &text, &len, err)) return err->code;
    int rc =
        th_llm_parse_any(text, len, strcmp(path, "-") ? path : "<stdin>", out, is_workload, err);
    free(text);
    return rc;
}

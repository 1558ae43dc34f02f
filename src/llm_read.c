/* LLM workload files (docs/LLM.md, The workload format): the model (inline or a model file
 * relative to the workload) and the execution, every key checked, every error naming the file
 * and the key; and the rules an execution must follow for its model. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "themis/llm.h"
#include "themis/str.h"
#include "themis/units.h"
#include "themis/workload.h"

const char *const th_llm_schedule_names[] = {"gpipe", "1f1b", "interleaved", NULL};
const char *const th_llm_recompute_names[] = {"none", "selective", "full", NULL};
const char *const th_llm_sharding_names[] = {"none", "optimizer", "gradients", "weights", NULL};
const char *const th_llm_group_names[] = {"tp", "ep", "pp", "dp", NULL};

/* "sources" and "reference" (where the values come from, the published measurements the file
 * is checked against) are any JSON, unread */
static const char *const top_keys[] = {"name", "description", "llm", "sources", "reference", NULL};
static const char *const model_file_keys[] = {"name", "description", "llm_model", "sources", NULL};
static const char *const model_keys[] = {"layers",    "hidden", "heads", "kv_heads", "ffn",
                                         "gated_ffn", "seq",    "vocab", "moe",      "param_bytes",
                                         "act_bytes", "name",   NULL};
static const char *const moe_keys[] = {"experts", "top_k", "expert_ffn", "every", NULL};
static const char *const exec_keys[] = {"model",
                                        "tp",
                                        "pp",
                                        "dp",
                                        "ep",
                                        "micro_batch",
                                        "global_batch",
                                        "schedule",
                                        "virtual_stages",
                                        "sequence_parallel",
                                        "recompute",
                                        "sharding",
                                        "dp_overlap",
                                        "bucket_bytes",
                                        "optimizer_bytes_per_param",
                                        "grad_bytes",
                                        "chunks",
                                        "mapping",
                                        NULL};

#define INT_MAX_LLM 1e12 /* any count in these files, at most */

/* An optional integer obj[key] in [lo, hi] into *out (left as it is when absent). */
static int integer(const cJSON *o, const char *key, double lo, double hi, int64_t *out,
                   const char *src, const char *path, th_error *err) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!v) return TH_OK;
    char p[128], what[96];
    th_json_path(p, sizeof p, path, key);
    if (!cJSON_IsNumber(v) || v->valuedouble < lo || v->valuedouble > hi ||
        v->valuedouble != floor(v->valuedouble)) {
        snprintf(what, sizeof what, "an integer from %.15g to %.15g", lo, hi);
        return th_json_bad(err, src, p, what, v);
    }
    *out = (int64_t)v->valuedouble;
    return TH_OK;
}

/* An integer count as a double (model sizes). */
static int count(const cJSON *o, const char *key, int required, double *out, const char *src,
                 const char *path, th_error *err) {
    char p[128];
    th_json_path(p, sizeof p, path, key);
    if (!cJSON_GetObjectItemCaseSensitive(o, key)) {
        if (required)
            return th_error_set(err, TH_EINPUT, "%s: %s: missing (an integer >= 1)", src, p);
        return TH_OK;
    }
    int64_t n = 0;
    if (integer(o, key, 1, INT_MAX_LLM, &n, src, path, err)) return err->code;
    *out = (double)n;
    return TH_OK;
}

static int boolean(const cJSON *o, const char *key, int *out, const char *src, const char *path,
                   th_error *err) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!v) return TH_OK;
    char p[128];
    th_json_path(p, sizeof p, path, key);
    if (!cJSON_IsBool(v)) return th_json_bad(err, src, p, "true or false", v);
    *out = cJSON_IsTrue(v);
    return TH_OK;
}

/* bytes per element: 0.5 to 16 */
static int width(const cJSON *o, const char *key, double *out, const char *src, const char *path,
                 th_error *err) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!v) return TH_OK;
    char p[128];
    th_json_path(p, sizeof p, path, key);
    if (!cJSON_IsNumber(v) || !(v->valuedouble >= 0.5 && v->valuedouble <= 16))
        return th_json_bad(err, src, p, "bytes from 0.5 to 16", v);
    *out = v->valuedouble;
    return TH_OK;
}

static int parse_moe(const cJSON *o, th_llm_model *m, const char *src, const char *path,
                     th_error *err) {
    if (!cJSON_IsObject(o)) return th_json_bad(err, src, path, "an object", o);
    if (th_json_check_keys(o, moe_keys, src, path, err)) return err->code;
    m->top_k = 1;
    m->expert_ffn = m->ffn;
    m->moe_every = 1;
    if (count(o, "experts", 1, &m->experts, src, path, err) ||
        count(o, "top_k", 0, &m->top_k, src, path, err) ||
        count(o, "expert_ffn", 0, &m->expert_ffn, src, path, err) ||
        integer(o, "every", 1, INT_MAX_LLM, &m->moe_every, src, path, err))
        return err->code;
    if (m->top_k > m->experts)
        return th_error_set(err, TH_EINPUT,
                            "%s: %s.top_k: %g experts per token, but only %g experts", src, path,
                            m->top_k, m->experts);
    return TH_OK;
}

static int parse_model(const cJSON *o, th_llm_model *m, const char *src, const char *path,
                       th_error *err) {
    if (!cJSON_IsObject(o)) return th_json_bad(err, src, path, "a model object", o);
    if (th_json_check_keys(o, model_keys, src, path, err)) return err->code;
    double layers = 0;
    if (th_json_string(o, "name", m->name, sizeof m->name, src, path, err) ||
        count(o, "layers", 1, &layers, src, path, err) ||
        count(o, "hidden", 1, &m->hidden, src, path, err) ||
        count(o, "heads", 1, &m->heads, src, path, err) ||
        count(o, "seq", 1, &m->seq, src, path, err) ||
        count(o, "vocab", 1, &m->vocab, src, path, err))
        return err->code;
    m->layers = (int64_t)layers;
    m->kv_heads = m->heads;
    m->ffn = 4 * m->hidden;
    m->param_bytes = m->act_bytes = 2;
    if (count(o, "kv_heads", 0, &m->kv_heads, src, path, err) ||
        count(o, "ffn", 0, &m->ffn, src, path, err) ||
        boolean(o, "gated_ffn", &m->gated, src, path, err) ||
        width(o, "param_bytes", &m->param_bytes, src, path, err) ||
        width(o, "act_bytes", &m->act_bytes, src, path, err))
        return err->code;
    char p[128];
    if (fmod(m->hidden, m->heads) != 0) {
        th_json_path(p, sizeof p, path, "heads");
        return th_error_set(err, TH_EINPUT, "%s: %s: %g heads do not divide hidden %g", src, p,
                            m->heads, m->hidden);
    }
    if (m->kv_heads > m->heads || fmod(m->heads, m->kv_heads) != 0) {
        th_json_path(p, sizeof p, path, "kv_heads");
        return th_error_set(err, TH_EINPUT, "%s: %s: expected a divisor of heads (%g), got %g", src,
                            p, m->heads, m->kv_heads);
    }
    const cJSON *moe = cJSON_GetObjectItemCaseSensitive(o, "moe");
    th_json_path(p, sizeof p, path, "moe");
    if (moe && parse_moe(moe, m, src, p, err)) return err->code;
    return TH_OK;
}

/* "model": an object, or a model file's path relative to src's folder. */
static int read_model(const cJSON *v, th_llm_model *m, const char *src, th_error *err) {
    if (!v)
        return th_error_set(err, TH_EINPUT, "%s: llm.model: missing (a model object or file)", src);
    if (cJSON_IsObject(v)) return parse_model(v, m, src, "llm.model", err);
    if (!cJSON_IsString(v) || !v->valuestring[0])
        return th_json_bad(err, src, "llm.model", "a model object or the path of a model file", v);
    const char *rel = v->valuestring, *slash = strrchr(src, '/');
    size_t dlen = rel[0] != '/' && slash && strcmp(src, "<stdin>") ? (size_t)(slash - src) + 1 : 0;
    size_t n = dlen + strlen(rel) + 1;
    char *file = malloc(n), *text = NULL;
    if (!file) return th_error_set(err, TH_EINTERNAL, "out of memory");
    snprintf(file, n, "%.*s%s", (int)dlen, src, rel);
    size_t len;
    cJSON *root = NULL;
    th_error e;
    int rc = th_json_read_file(file, &text, &len, &e);
    if (rc == TH_OK) rc = th_json_parse(text, len, file, &root, &e);
    if (rc == TH_OK && !cJSON_IsObject(root))
        rc = th_json_bad(&e, file, "(top level)", "a model file object", root);
    if (rc == TH_OK && th_json_check_keys(root, model_file_keys, file, "", &e)) rc = e.code;
    if (rc == TH_OK) {
        const cJSON *o = cJSON_GetObjectItemCaseSensitive(root, "llm_model");
        rc = o ? parse_model(o, m, file, "llm_model", &e)
               : th_error_set(&e, TH_EINPUT, "%s: llm_model: missing (the model's sizes)", file);
    }
    if (rc == TH_OK && !m->name[0])
        rc = th_json_string(root, "name", m->name, sizeof m->name, file, "", &e);
    if (rc == TH_OK && !m->name[0]) th_base_name(file, ".json", m->name, sizeof m->name);
    if (rc) th_error_set(err, rc, "%s: llm.model: %s", src, e.msg);
    cJSON_Delete(root);
    free(text);
    free(file);
    return rc;
}

static int parse_mapping(const cJSON *v, th_llm_exec *x, const char *src, th_error *err) {
    if (!v) return TH_OK;
    if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != TH_LLM_GROUPS)
        return th_json_bad(err, src, "llm.mapping",
                           "the four groups \"tp\", \"ep\", \"pp\", \"dp\" in some order, "
                           "innermost first",
                           v);
    int k = 0, seen = 0;
    for (const cJSON *g = v->child; g; g = g->next, k++) {
        char p[48];
        snprintf(p, sizeof p, "llm.mapping[%d]", k);
        int i = 0;
        if (th_json_enum_value(g, th_llm_group_names, &i, src, p, err)) return err->code;
        if (seen & (1 << i))
            return th_error_set(err, TH_EINPUT, "%s: %s: group %s listed twice", src, p,
                                th_llm_group_names[i]);
        seen |= 1 << i;
        x->mapping[k] = i;
    }
    return TH_OK;
}

static int parse_exec(const cJSON *o, th_llm_workload *w, const char *src, th_error *err) {
    th_llm_exec *x = &w->exec;
    const char *path = "llm";
    if (!cJSON_IsObject(o)) return th_json_bad(err, src, path, "an object", o);
    if (th_json_check_keys(o, exec_keys, src, path, err)) return err->code;
    if (read_model(cJSON_GetObjectItemCaseSensitive(o, "model"), &w->model, src, err))
        return err->code;
    *x = (th_llm_exec){.tp = 1,
                       .pp = 1,
                       .dp = 1,
                       .ep = 1,
                       .micro_batch = 1,
                       .global_batch = 0,
                       .schedule = TH_LLM_1F1B,
                       .virtual_stages = 1,
                       .recompute = TH_LLM_RECOMPUTE_NONE,
                       .sharding = TH_LLM_SHARD_NONE,
                       .dp_overlap = 1,
                       .bucket_bytes = TH_BUCKET_DEFAULT,
                       .optimizer_bytes = 12,
                       .grad_bytes = w->model.param_bytes,
                       .chunks = 64,
                       .mapping = {TH_LLM_TP, TH_LLM_EP, TH_LLM_PP, TH_LLM_DP}};
    int s = x->schedule, r = 0, z = 0;
    if (integer(o, "tp", 1, INT_MAX_LLM, &x->tp, src, path, err) ||
        integer(o, "pp", 1, INT_MAX_LLM, &x->pp, src, path, err) ||
        integer(o, "dp", 1, INT_MAX_LLM, &x->dp, src, path, err) ||
        integer(o, "ep", 1, INT_MAX_LLM, &x->ep, src, path, err) ||
        integer(o, "micro_batch", 1, INT_MAX_LLM, &x->micro_batch, src, path, err) ||
        integer(o, "global_batch", 1, INT_MAX_LLM, &x->global_batch, src, path, err) ||
        th_json_enum(o, "schedule", th_llm_schedule_names, &s, src, path, err) ||
        integer(o, "virtual_stages", 1, INT_MAX_LLM, &x->virtual_stages, src, path, err) ||
        boolean(o, "sequence_parallel", &x->sequence_parallel, src, path, err) ||
        th_json_enum(o, "recompute", th_llm_recompute_names, &r, src, path, err) ||
        th_json_enum(o, "sharding", th_llm_sharding_names, &z, src, path, err) ||
        boolean(o, "dp_overlap", &x->dp_overlap, src, path, err) ||
        width(o, "optimizer_bytes_per_param", &x->optimizer_bytes, src, path, err) ||
        width(o, "grad_bytes", &x->grad_bytes, src, path, err) ||
        integer(o, "chunks", 1, TH_MAX_CHUNKS, &x->chunks, src, path, err) ||
        parse_mapping(cJSON_GetObjectItemCaseSensitive(o, "mapping"), x, src, err))
        return err->code;
    x->schedule = (th_llm_schedule)s;
    x->recompute = (th_llm_recompute)r;
    x->sharding = (th_llm_sharding)z;
    const cJSON *b = cJSON_GetObjectItemCaseSensitive(o, "bucket_bytes");
    if (b) {
        th_error e;
        if (cJSON_IsString(b)) {
            if (th_units_parse_size(b->valuestring, "llm.bucket_bytes", &x->bucket_bytes, &e))
                return th_error_set(err, TH_EINPUT, "%s: %s", src, e.msg);
        } else if (cJSON_IsNumber(b) && b->valuedouble == 0) {
            x->bucket_bytes = 0;
        } else if (!cJSON_IsNumber(b) || th_units_check_size(b->valuedouble, "x", &e)) {
            return th_json_bad(err, src, "llm.bucket_bytes",
                               "a size from 1 byte to 1 EiB, or 0 (one collective)", b);
        } else {
            x->bucket_bytes = b->valuedouble;
        }
    }
    if (!x->global_batch) x->global_batch = x->micro_batch * x->dp;
    return th_llm_check(&w->model, x, src, err);
}

int th_llm_check(const th_llm_model *m, const th_llm_exec *x, const char *src, th_error *err) {
    double per = (double)x->micro_batch * (double)x->dp;
    if (fmod((double)x->global_batch, per) != 0)
        return th_error_set(err, TH_EINPUT,
                            "%s: llm.global_batch: %lld is not a multiple of micro_batch * dp = "
                            "%.15g",
                            src, (long long)x->global_batch, per);
    if (fmod(m->heads, (double)x->tp) != 0)
        return th_error_set(err, TH_EINPUT,
                            "%s: llm.tp: %lld does not divide the model's %g attention heads", src,
                            (long long)x->tp, m->heads);
    if (x->virtual_stages > 1 && x->schedule != TH_LLM_INTERLEAVED)
        return th_error_set(err, TH_EINPUT,
                            "%s: llm.virtual_stages: %lld model chunks per device need "
                            "\"schedule\": \"interleaved\"",
                            src, (long long)x->virtual_stages);
    double stages = (double)x->pp * (double)x->virtual_stages;
    if (fmod((double)m->layers, stages) != 0)
        return th_error_set(err, TH_EINPUT,
                            "%s: llm.pp: %lld layers do not split into pp * virtual_stages = %.15g "
                            "equal stages",
                            src, (long long)m->layers, stages);
    double mb = (double)x->global_batch / per;
    if (x->schedule == TH_LLM_INTERLEAVED && fmod(mb, (double)x->pp) != 0)
        return th_error_set(err, TH_EINPUT,
                            "%s: llm.schedule: interleaved needs the micro-batches per pipeline "
                            "(%.15g) to be a multiple of pp (%lld)",
                            src, mb, (long long)x->pp);
    if (m->experts == 0 && (m->top_k > 0 || m->expert_ffn > 0))
        return th_error_set(err, TH_EINPUT,
                            "%s: llm.model.moe: top_k or expert_ffn set, but the model has no "
                            "experts (give moe.experts too)",
                            src);
    if (m->top_k > m->experts)
        return th_error_set(err, TH_EINPUT,
                            "%s: llm.model.moe.top_k: %g experts per token, but only %g experts",
                            src, m->top_k, m->experts);
    if (x->ep > 1 && m->experts == 0)
        return th_error_set(err, TH_EINPUT, "%s: llm.ep: %lld, but the model has no experts", src,
                            (long long)x->ep);
    if (x->dp % x->ep)
        return th_error_set(err, TH_EINPUT,
                            "%s: llm.ep: %lld does not divide dp %lld (experts are sharded over "
                            "part of the data-parallel group)",
                            src, (long long)x->ep, (long long)x->dp);
    if (m->experts > 0 && fmod(m->experts, (double)x->ep) != 0)
        return th_error_set(err, TH_EINPUT, "%s: llm.ep: %lld does not divide the %g experts", src,
                            (long long)x->ep, m->experts);
    double npus = (double)x->tp * (double)x->pp * (double)x->dp;
    if (npus > TH_MAX_NPUS)
        return th_error_set(err, TH_EINPUT, "%s: llm: tp * pp * dp = %.15g NPUs exceed 2^40", src,
                            npus);
    return TH_OK;
}

int th_llm_detect(const char *text, size_t len) {
    /* cheap first: an object that names the key somewhere; then its top level */
    size_t i = 0;
    while (i < len && (text[i] == ' ' || text[i] == '\n' || text[i] == '\r' || text[i] == '\t'))
        i++;
    if (i >= len || text[i] != '{' || !strstr(text, "\"llm\"")) return 0;
    cJSON *root = cJSON_ParseWithLength(text, len);
    int yes = cJSON_IsObject(root) && cJSON_GetObjectItemCaseSensitive(root, "llm");
    cJSON_Delete(root);
    return yes;
}

int th_llm_parse(const char *text, size_t len, const char *source, th_llm_workload *out,
                 th_error *err) {
    memset(out, 0, sizeof *out);
    th_base_name(source, ".json", out->name, sizeof out->name);
    cJSON *root;
    if (th_json_parse(text, len, source, &root, err)) return err->code;
    int rc = TH_OK;
    if (!cJSON_IsObject(root))
        rc = th_json_bad(err, source, "(top level)", "an LLM workload object", root);
    else if (th_json_check_keys(root, top_keys, source, "", err) ||
             th_json_string(root, "name", out->name, sizeof out->name, source, "", err) ||
             th_json_string(root, "description", out->description, sizeof out->description, source,
                            "", err))
        rc = err->code;
    const cJSON *llm = rc ? NULL : cJSON_GetObjectItemCaseSensitive(root, "llm");
    if (rc == TH_OK && !llm)
        rc = th_error_set(err, TH_EINPUT, "%s: llm: missing (the model and its execution)", source);
    if (rc == TH_OK) rc = parse_exec(llm, out, source, err);
    if (rc == TH_OK && !out->model.name[0]) /* an inline model without a name: the workload's */
        snprintf(out->model.name, sizeof out->model.name, "%s", out->name);
    cJSON_Delete(root);
    return rc;
}

int th_llm_load(const char *path, th_llm_workload *out, th_error *err) {
    char *text;
    size_t len;
    if (th_json_read_file(path, &text, &len, err)) return err->code;
    int rc = th_llm_parse(text, len, strcmp(path, "-") ? path : "<stdin>", out, err);
    free(text);
    return rc;
}

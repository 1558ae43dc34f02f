/* Sweep specs: reading the JSON, expanding each axis into its values (lists and ranges),
 * zip groups, the point count, and the up-front validation of every point. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "model.h"
#include "sweep_internal.h"
#include "themis/num.h"
#include "themis/report.h"
#include "themis/str.h"
#include "themis/units.h"

#define BATCH_MAX 1e9 /* samples per NPU, as themis train --batch */

static const char *const top_keys[] = {
    "name",     "description",   "system",     "collective",    "policy",
    "intra",    "load_model",    "axes",       "zip",           "output",
    "workload", "priority",      "iterations", "bound",         "chunking",
    "bucket",   "ideal_latency", "comm_group", "remote_memory", NULL};
static const char *const coll_keys[] = {"type", "size", "chunks", "dims", NULL};
static const char *const range_keys[] = {"from", "to", "step", "times", NULL};
static const char *const run_axes[] = {
    "chunks",      "policy",   "intra",    "size",  "type",     "dims",   "load_model", "system",
    "reduce_GBps", "workload", "priority", "batch", "chunking", "bucket", NULL};
static const char *const field_names[] = {"npus",      "bw_GBps",    "latency_ns", "topology",
                                          "algorithm", "efficiency", NULL};
/* A sweep takes every policy up to themis-global (workload points only), not ideal: every
 * workload row is measured against the ideal network already. */
#define SWEEP_POLICIES TH_POLICY_IDEAL

static char *num_text(double v) {
    char buf[32];
    return th_strdup(th_num_format(buf, v));
}

void th_sweep_free(th_sweep *sw) {
    if (!sw) return;
    for (int a = 0; a < sw->naxes; a++) {
        for (int64_t i = 0; i < sw->axes[a].n; i++) {
            free(sw->axes[a].v[i].text);
            free(sw->axes[a].v[i].file);
        }
        free(sw->axes[a].v);
        free(sw->axes[a].name);
    }
    free(sw->axes);
    free(sw->groups);
    free(sw->systems);
    for (int i = 0; i < sw->nworkloads; i++) {
        th_workload_free(sw->workloads[i]);
        th_workload_close(&sw->natives[i]);
    }
    free(sw->workloads);
    free(sw->natives);
    free(sw->sys_chunks);
    free(sw->llm);
    free(sw->name);
    free(sw->source);
    free(sw->dir);
    free(sw->output);
    free(sw->comm_group);
    free(sw->memory);
    for (int i = 0; i < sw->ninputs; i++)
        free(sw->inputs[i]);
    free(sw->inputs);
    for (int c = 0; c < sw->ncols; c++)
        free(sw->cols[c]);
    free(sw->cols);
    free(sw->numeric);
    free(sw->text);
    free(sw);
}

int64_t th_sweep_points(const th_sweep *sw) {
    return sw->points;
}
const char *th_sweep_spec(const th_sweep *sw, size_t *len) {
    *len = sw->text_len;
    return sw->text;
}

const char *th_sweep_name(const th_sweep *sw) {
    return sw->name;
}
const char *th_sweep_output(const th_sweep *sw) {
    return sw->output;
}
const char *const *th_sweep_inputs(const th_sweep *sw, int *n) {
    *n = sw->ninputs;
    return (const char *const *)sw->inputs;
}

/* Records a file the spec read (taking ownership of file); TH_EINTERNAL when out of memory. */
static int keep_input(th_sweep *sw, char *file, th_error *err) {
    char **p = realloc(sw->inputs, sizeof *p * (size_t)(sw->ninputs + 1));
    if (!p) {
        free(file);
        return th_error_set(err, TH_EINTERNAL, "out of memory");
    }
    sw->inputs = p;
    sw->inputs[sw->ninputs++] = file;
    return TH_OK;
}

/* dir + "/" + path unless path is absolute (or dir is "."). */
static char *resolve(const char *dir, const char *path) {
    if (path[0] == '/' || !strcmp(dir, ".")) return th_strdup(path);
    size_t n = strlen(dir) + strlen(path) + 2;
    char *s = malloc(n);
    if (s) snprintf(s, n, "%s/%s", dir, path);
    return s;
}

/* Parses an axis name into kind (and dim/field for "dims[i].field"). */
static int parse_axis_name(const char *src, const char *name, ax *a, th_error *err) {
    int i = th_name_find(run_axes, name);
    if (i >= 0) {
        static const ax_kind kinds[] = {
            AX_CHUNKS, AX_POLICY, AX_INTRA,    AX_SIZE,     AX_TYPE,  AX_DIMS,     AX_LOAD_MODEL,
            AX_SYSTEM, AX_REDUCE, AX_WORKLOAD, AX_PRIORITY, AX_BATCH, AX_CHUNKING, AX_BUCKET};
        a->kind = kinds[i];
        return TH_OK;
    }
    if (!strncmp(name, "llm.", 4)) {
        char hint[256];
        a->kind = AX_LLM;
        if ((a->dim = sw_llm_field(name + 4, hint, sizeof hint)) >= 0) return TH_OK;
        return th_error_set(err, TH_EINPUT, "%s: axes.%s: unknown LLM axis; %s", src, name, hint);
    }
    int dim = -1, used = 0;
    char field[32] = "";
    if (sscanf(name, "dims[%d].%31[A-Za-z_]%n", &dim, field, &used) == 2 &&
        used == (int)strlen(name)) {
        if (dim < 0 || dim >= TH_MAX_DIMS)
            return th_error_set(err, TH_EINPUT, "%s: axes.%s: dim index must be 0 to %d", src, name,
                                TH_MAX_DIMS - 1);
        int f = th_name_find(field_names, field);
        if (f < 0) {
            char hint[256];
            th_json_suggest(field_names, field, hint, sizeof hint);
            return th_error_set(err, TH_EINPUT, "%s: axes.%s: unknown dim field \"%s\"; %s", src,
                                name, field, hint);
        }
        a->kind = AX_DIM_FIELD;
        a->dim = dim;
        a->field = (dim_field)f;
        return TH_OK;
    }
    char hint[256];
    th_json_suggest(run_axes, name, hint, sizeof hint);
    return th_error_set(err, TH_EINPUT,
                        "%s: axes.%s: unknown axis; %s (or dims[i].npus|bw_GBps|latency_ns|"
                        "topology|algorithm|efficiency)",
                        src, name, hint);
}

int sw_axis_numeric(const ax *a) {
    if (a->kind == AX_LLM) return sw_llm_numeric(a->dim);
    if (a->kind == AX_CHUNKS || a->kind == AX_SIZE || a->kind == AX_REDUCE || a->kind == AX_BATCH ||
        a->kind == AX_BUCKET)
        return 1;
    return a->kind == AX_DIM_FIELD && a->field != F_TOPOLOGY && a->field != F_ALGORITHM;
}

static int is_integer(const ax *a) {
    if (a->kind == AX_LLM) return sw_llm_integer(a->dim);
    return a->kind == AX_CHUNKS || (a->kind == AX_DIM_FIELD && a->field == F_NPUS);
}

/* A numeric value from a JSON number (or, for sizes, a size string). */
static int number_of(const cJSON *v, const ax *a, double *out, const char *src, const char *path,
                     th_error *err) {
    if ((a->kind == AX_SIZE || a->kind == AX_BUCKET) && cJSON_IsString(v)) {
        if (th_units_parse_size(v->valuestring, path, out, err)) {
            char msg[TH_ERROR_MAX];
            snprintf(msg, sizeof msg, "%s", err->msg);
            return th_error_set(err, TH_EINPUT, "%s: %s", src, msg);
        }
        return TH_OK;
    }
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble))
        return th_json_bad(err, src, path, a->kind == AX_SIZE ? "a size" : "a finite number", v);
    *out = v->valuedouble;
    return TH_OK;
}

/* Checks and stores one numeric value. */
static int add_number(ax *a, double x, const char *src, const char *path, th_error *err) {
    if (is_integer(a)) {
        double r = nearbyint(x);
        if (fabs(x - r) > 1e-9 * fabs(r))
            return th_error_set(err, TH_EINPUT, "%s: %s: expected an integer, got %.17g", src, path,
                                x);
        x = r;
        double hi = a->kind == AX_CHUNKS ? TH_MAX_CHUNKS : TH_MAX_NPUS;
        if (a->kind == AX_LLM) hi = 1e12; /* as the workload file's counts */
        if (x < 1 || x > hi)
            return th_error_set(err, TH_EINPUT,
                                "%s: %s: expected an integer from 1 to %.0f, got "
                                "%.17g",
                                src, path, hi, x);
    }
    if ((a->kind == AX_REDUCE || a->kind == AX_BATCH || a->kind == AX_LLM) && !(x > 0))
        return th_error_set(err, TH_EINPUT, "%s: %s: expected a number > 0, got %.17g", src, path,
                            x);
    if (a->kind == AX_BATCH && x > BATCH_MAX) /* the bound of themis train --batch */
        return th_error_set(err, TH_EINPUT, "%s: %s: expected a batch from > 0 to %g, got %.17g",
                            src, path, BATCH_MAX, x);
    if (a->kind == AX_SIZE || (a->kind == AX_BUCKET && x != 0)) { /* bucket 0: none */
        th_error e;
        if (th_units_check_size(x, path, &e))
            return th_error_set(err, TH_EINPUT, "%s: %s", src, e.msg);
    }
    ax_value *v = &a->v[a->n];
    memset(v, 0, sizeof *v);
    v->num = x;
    v->i = is_integer(a) ? (int64_t)x : 0; /* in range: checked above (a double past 2^63 is not) */
    v->text = num_text(x);
    if (!v->text) return th_error_set(err, TH_EINTERNAL, "out of memory");
    a->n++;
    return TH_OK;
}

/* Expands {"from", "to", "step" | "times"}. */
static int expand_range(ax *a, const cJSON *r, const char *src, const char *path, th_error *err) {
    if (!sw_axis_numeric(a))
        return th_error_set(err, TH_EINPUT, "%s: %s: a range needs a numeric axis; give a list",
                            src, path);
    if (th_json_check_keys(r, range_keys, src, path, err)) return err->code;
    const cJSON *jf = cJSON_GetObjectItemCaseSensitive(r, "from");
    const cJSON *jt = cJSON_GetObjectItemCaseSensitive(r, "to");
    const cJSON *js = cJSON_GetObjectItemCaseSensitive(r, "step");
    const cJSON *jx = cJSON_GetObjectItemCaseSensitive(r, "times");
    if (!jf || !jt || (!js == !jx))
        return th_error_set(err, TH_EINPUT,
                            "%s: %s: a range needs \"from\", \"to\" and one of \"step\" or "
                            "\"times\"",
                            src, path);
    double from, to, by;
    char p[200];
    snprintf(p, sizeof p, "%s.from", path);
    if (number_of(jf, a, &from, src, p, err)) return err->code;
    snprintf(p, sizeof p, "%s.to", path);
    if (number_of(jt, a, &to, src, p, err)) return err->code;
    snprintf(p, sizeof p, "%s.%s", path, js ? "step" : "times");
    const cJSON *jb = js ? js : jx;
    if (!cJSON_IsNumber(jb) || !isfinite(jb->valuedouble))
        return th_json_bad(err, src, p, "a finite number", jb);
    by = jb->valuedouble;
    double tol = 1e-9 * fmax(fabs(from), fabs(to));
    int up = to >= from;
    if (js) {
        if (from != to && (by == 0 || (by > 0) != up))
            return th_error_set(err, TH_EINPUT,
                                "%s: %s: a step of %.17g never gets from %.17g "
                                "to %.17g",
                                src, p, by, from, to);
    } else {
        if (from <= 0 || to <= 0)
            return th_error_set(err, TH_EINPUT,
                                "%s: %s: a geometric range needs from > 0 and "
                                "to > 0",
                                src, path);
        if (from != to && (by <= 0 || by == 1 || (by > 1) != up))
            return th_error_set(err, TH_EINPUT,
                                "%s: %s: a factor of %.17g never gets from "
                                "%.17g to %.17g",
                                src, p, by, from, to);
    }
    for (int64_t k = 0;; k++) {
        double x = js ? from + (double)k * by : from * pow(by, (double)k);
        char clean[32]; /* 0.3 - 0.1 is 0.19999999999999998: keep 15 digits, as written */
        snprintf(clean, sizeof clean, "%.15g", x);
        x = strtod(clean, NULL);
        if (fabs(x - to) <= tol) x = to;
        if (up ? x > to : x < to) break;
        if (a->n >= TH_SWEEP_MAX_VALUES)
            return th_error_set(err, TH_EINPUT, "%s: %s: the range has more than %d values", src,
                                path, TH_SWEEP_MAX_VALUES);
        char vp[220];
        snprintf(vp, sizeof vp, "%s[%lld]", path, (long long)k);
        if (add_number(a, x, src, vp, err)) return err->code;
        if (x == to || from == to) break;
    }
    return TH_OK;
}

/* A dims value: "0,2", "all" or [0, 2]. */
static int dims_value(const cJSON *v, uint32_t *mask, char *text, size_t n, const char *src,
                      const char *path, th_error *err) {
    th_error e;
    if (cJSON_IsString(v)) {
        if (th_sched_parse_dims(v->valuestring, TH_MAX_DIMS, mask, &e))
            return th_error_set(err, TH_EINPUT, "%s: %s: %s", src, path, e.msg);
    } else if (cJSON_IsArray(v) && cJSON_GetArraySize(v) > 0) {
        *mask = 0;
        for (const cJSON *d = v->child; d; d = d->next) {
            if (!cJSON_IsNumber(d) || d->valuedouble != floor(d->valuedouble) ||
                d->valuedouble < 0 || d->valuedouble >= TH_MAX_DIMS)
                return th_json_bad(err, src, path, "a list of dim indices", d);
            uint32_t bit = 1u << (int)d->valuedouble;
            if (*mask & bit)
                return th_error_set(err, TH_EINPUT, "%s: %s: dim %d listed twice", src, path,
                                    (int)d->valuedouble);
            *mask |= bit;
        }
    } else {
        return th_json_bad(err, src, path, "a dim list such as \"0,2\" or [0, 2]", v);
    }
    text[0] = '\0';
    if (*mask == 0) snprintf(text, n, "all");
    for (int d = 0; d < TH_MAX_DIMS; d++) {
        if (!((*mask >> d) & 1u)) continue;
        size_t len = strlen(text);
        snprintf(text + len, n - len, "%s%d", len ? ";" : "", d);
    }
    return TH_OK;
}

/* One list element of a non-numeric axis. */
/* Whether the file (readable or not: the loaders say why not) is an LLM workload. */
static int is_llm(const char *file) {
    char *text;
    size_t len;
    th_error e;
    if (th_json_read_file(file, &text, &len, &e)) return 0;
    int yes = th_llm_detect(text, len);
    free(text);
    return yes;
}

/* Loads a workload file (relative to the spec) into sw->workloads, or sw->llm. */
static int add_workload(th_sweep *sw, const char *rel, const char *src, const char *path,
                        th_error *err) {
    th_workload **w = realloc(sw->workloads, sizeof *w * (size_t)(sw->nworkloads + 1));
    if (w) sw->workloads = w;
    th_wl_file *nat = realloc(sw->natives, sizeof *nat * (size_t)(sw->nworkloads + 1));
    if (nat) sw->natives = nat;
    if (!w || !nat) return th_error_set(err, TH_EINTERNAL, "out of memory");
    char *file = resolve(sw->dir, rel);
    if (!file) return th_error_set(err, TH_EINTERNAL, "out of memory");
    th_error e;
    th_wl_file *f = &sw->natives[sw->nworkloads];
    memset(f, 0, sizeof *f);
    sw->workloads[sw->nworkloads] = NULL;
    if (is_llm(file)) { /* one LLM workload, the spec's own, varied by llm.* axes */
        int rc = strcmp(path, "workload")
                     ? th_error_set(&e, TH_EINPUT,
                                    "an LLM workload: give it as the spec's \"workload\" and vary "
                                    "it with llm.* axes")
                 : (sw->llm = malloc(sizeof *sw->llm))
                     ? th_llm_load(file, sw->llm, &e)
                     : th_error_set(&e, TH_EINTERNAL, "out of memory");
        if (keep_input(sw, file, err)) return err->code;
        if (rc) return th_error_set(err, rc, "%s: %s: %s", src, path, e.msg);
        sw->train = 1;
        return TH_OK;
    }
    /* a format that replays itself at every point (a Chakra trace) is kept as it is; our JSON
     * as it parsed; anything else through th_workload_load, which names what it is */
    int rc = th_workload_open(file, f, &e);
    if (rc == TH_OK && !f->format) {
        sw->workloads[sw->nworkloads] = f->wl, f->wl = NULL;
    } else if (rc != TH_OK || !f->format->point) {
        th_workload_close(f);
        rc = th_workload_load(file, &sw->workloads[sw->nworkloads], &e);
    }
    if (keep_input(sw, file, err)) return err->code;
    if (rc) return th_error_set(err, rc, "%s: %s: %s", src, path, e.msg);
    sw->nworkloads++;
    sw->train = 1;
    return TH_OK;
}

static int add_other(th_sweep *sw, ax *a, const cJSON *v, const char *src, const char *path,
                     th_error *err) {
    ax_value *x = &a->v[a->n];
    memset(x, 0, sizeof *x);
    int idx = 0;
    char text[80];
    const char *const *names = NULL, *policies[SWEEP_POLICIES + 1];
    th_policy_names_first(SWEEP_POLICIES, policies);
    switch (a->kind) {
    case AX_POLICY: names = policies; break;
    case AX_INTRA: names = th_intra_names; break;
    case AX_TYPE: names = th_coll_type_names; break;
    case AX_LOAD_MODEL: names = th_load_model_names; break;
    case AX_PRIORITY: names = th_priority_names; break;
    case AX_CHUNKING: names = th_chunking_names; break;
    case AX_DIM_FIELD:
        names = a->field == F_TOPOLOGY ? th_topology_names : th_algorithm_names;
        break;
    case AX_LLM: names = sw_llm_names(a->dim); break;
    default: break;
    }
    if (a->kind == AX_LLM && cJSON_IsBool(v) && names == sw_llm_names(a->dim) &&
        !strcmp(names[0], "false")) { /* a flag: true or false */
        x->i = cJSON_IsTrue(v);
        x->text = th_strdup(names[x->i]);
    } else if (names) {
        if (th_json_enum_value(v, names, &idx, src, path, err)) return err->code;
        x->i = idx;
        x->text = th_strdup(names[idx]);
    } else if (a->kind == AX_DIMS) {
        if (dims_value(v, &x->mask, text, sizeof text, src, path, err)) return err->code;
        x->text = th_strdup(text);
    } else if (a->kind == AX_WORKLOAD) {
        if (!cJSON_IsString(v)) return th_json_bad(err, src, path, "a workload file path", v);
        if (add_workload(sw, v->valuestring, src, path, err)) return err->code;
        x->i = sw->nworkloads - 1;
        const th_wl_file *f = &sw->natives[x->i];
        x->text = th_strdup(sw->workloads[x->i] ? sw->workloads[x->i]->name
                                                : f->format->name_of(f->native));
        x->file = th_strdup(v->valuestring);
    } else { /* AX_SYSTEM */
        if (!cJSON_IsString(v)) return th_json_bad(err, src, path, "a system file path", v);
        char *file = resolve(sw->dir, v->valuestring);
        if (!file) return th_error_set(err, TH_EINTERNAL, "out of memory");
        th_error e;
        th_run_defaults def; /* checked, not used: a sweep sets its own pairs */
        int rc = th_run_load_system(file, &sw->systems[sw->nsystems], &def, &e);
        if (keep_input(sw, file, err)) return err->code;
        if (rc) return th_error_set(err, rc, "%s: %s: %s", src, path, e.msg);
        sw->sys_chunks[sw->nsystems] = def.chunks; /* a replayed trace's chunks */
        x->i = sw->nsystems++;
        x->text = th_strdup(sw->systems[x->i].name);
        x->file = th_strdup(v->valuestring);
    }
    if (!x->text || (SW_HAS_FILE(a) && !x->file))
        return th_error_set(err, TH_EINTERNAL, "out of memory");
    a->n++;
    return TH_OK;
}

static int parse_axis(th_sweep *sw, ax *a, const cJSON *j, const char *src, th_error *err) {
    char path[160];
    snprintf(path, sizeof path, "axes.%s", a->name);
    if (parse_axis_name(src, a->name, a, err)) return err->code;
    if (cJSON_IsObject(j)) {
        a->v = calloc(TH_SWEEP_MAX_VALUES, sizeof *a->v);
        if (!a->v) return th_error_set(err, TH_EINTERNAL, "out of memory");
        if (expand_range(a, j, src, path, err)) return err->code;
        ax_value *shrunk = realloc(a->v, (size_t)(a->n ? a->n : 1) * sizeof *a->v);
        if (shrunk) a->v = shrunk;
    } else if (cJSON_IsArray(j)) {
        int n = cJSON_GetArraySize(j);
        a->v = calloc((size_t)(n ? n : 1), sizeof *a->v);
        if (!a->v) return th_error_set(err, TH_EINTERNAL, "out of memory");
        if (a->kind == AX_SYSTEM) {
            sw->systems = calloc((size_t)(n ? n : 1), sizeof *sw->systems);
            sw->sys_chunks = calloc((size_t)(n ? n : 1), sizeof *sw->sys_chunks);
            if (!sw->systems || !sw->sys_chunks)
                return th_error_set(err, TH_EINTERNAL, "out of memory");
        }
        int k = 0;
        for (const cJSON *v = j->child; v; v = v->next, k++) {
            char vp[200];
            snprintf(vp, sizeof vp, "%s[%d]", path, k);
            if (sw_axis_numeric(a)) {
                double x;
                if (number_of(v, a, &x, src, vp, err)) return err->code;
                if (add_number(a, x, src, vp, err)) return err->code;
            } else if (add_other(sw, a, v, src, vp, err)) {
                return err->code;
            }
        }
    } else {
        return th_json_bad(err, src, path,
                           "a list of values or a range {\"from\", \"to\", "
                           "\"step\"|\"times\"}",
                           j);
    }
    if (a->n == 0) return th_error_set(err, TH_EINPUT, "%s: %s: the axis has no values", src, path);
    return TH_OK;
}

/* The first of the sweep's systems whose model lacks cap, or NULL. */
static const th_system *lacking(const th_sweep *sw, unsigned cap) {
    if (!th_model_has(&sw->base, cap)) return &sw->base;
    for (int i = 0; i < sw->nsystems; i++)
        if (!th_model_has(&sw->systems[i], cap)) return &sw->systems[i];
    return NULL;
}

/* Assigns axes to groups: a zip group is one group; every other axis is its own. */
static int parse_zip(th_sweep *sw, const cJSON *zip, const char *src, th_error *err) {
    int *zip_of = malloc(sizeof(int) * (size_t)(sw->naxes ? sw->naxes : 1));
    if (!zip_of) return th_error_set(err, TH_EINTERNAL, "out of memory");
    for (int a = 0; a < sw->naxes; a++)
        zip_of[a] = -1;
    int rc = TH_OK, z = 0;
    if (zip && !cJSON_IsArray(zip)) rc = th_json_bad(err, src, "zip", "a list of axis lists", zip);
    for (const cJSON *g = zip && rc == TH_OK ? zip->child : NULL; g && rc == TH_OK;
         g = g->next, z++) {
        char path[32];
        snprintf(path, sizeof path, "zip[%d]", z);
        if (!cJSON_IsArray(g) || cJSON_GetArraySize(g) < 2) {
            rc = th_json_bad(err, src, path, "a list of at least two axis names", g);
            break;
        }
        int first = -1;
        for (const cJSON *n = g->child; n && rc == TH_OK; n = n->next) {
            int a = -1;
            if (cJSON_IsString(n))
                for (int i = 0; i < sw->naxes; i++)
                    if (!strcmp(sw->axes[i].name, n->valuestring)) a = i;
            if (a < 0) {
                rc = cJSON_IsString(n) ? th_error_set(err, TH_EINPUT,
                                                      "%s: %s: \"%s\" is not an axis of this "
                                                      "spec",
                                                      src, path, n->valuestring)
                                       : th_json_bad(err, src, path, "axis names", n);
            } else if (zip_of[a] >= 0) {
                rc = th_error_set(err, TH_EINPUT, "%s: %s: axis %s is zipped twice", src, path,
                                  sw->axes[a].name);
            } else if (first >= 0 && sw->axes[a].n != sw->axes[first].n) {
                rc = th_error_set(err, TH_EINPUT,
                                  "%s: %s: zipped axes need as many values: %s "
                                  "has %lld, %s has %lld",
                                  src, path, sw->axes[first].name, (long long)sw->axes[first].n,
                                  sw->axes[a].name, (long long)sw->axes[a].n);
            } else {
                zip_of[a] = z;
                if (first < 0) first = a;
            }
        }
    }
    sw->groups = calloc((size_t)(sw->naxes ? sw->naxes : 1), sizeof *sw->groups);
    if (rc == TH_OK && !sw->groups) rc = th_error_set(err, TH_EINTERNAL, "out of memory");
    for (int a = 0; a < sw->naxes && rc == TH_OK; a++) {
        int g = -1;
        for (int b = 0; b < a && zip_of[a] >= 0; b++)
            if (zip_of[b] == zip_of[a]) g = sw->axes[b].group;
        if (g < 0) {
            g = sw->ngroups++;
            sw->groups[g].len = sw->axes[a].n;
        }
        sw->axes[a].group = g;
        ax_kind k = sw->axes[a].kind;
        if (k == AX_SYSTEM || k == AX_DIM_FIELD || k == AX_REDUCE || k == AX_DIMS ||
            k == AX_WORKLOAD || k == AX_LLM)
            sw->groups[g].structural = 1;
        /* Under a preset the collective's type and chunk size can be invalid. */
        if ((k == AX_TYPE || k == AX_SIZE || k == AX_CHUNKS) && lacking(sw, TH_CAP_ANY_COLL))
            sw->groups[g].structural = 1;
        if (k != AX_POLICY && k != AX_INTRA && k != AX_LOAD_MODEL) sw->groups[g].baseline_key = 1;
    }
    free(zip_of);
    return rc;
}

static int parse_collective(th_sweep *sw, const cJSON *c, const char *src, th_error *err) {
    if (!c) return TH_OK;
    if (!cJSON_IsObject(c)) return th_json_bad(err, src, "collective", "an object", c);
    if (th_json_check_keys(c, coll_keys, src, "collective", err)) return err->code;
    int type = (int)sw->coll.type;
    if (th_json_enum(c, "type", th_coll_type_names, &type, src, "collective", err))
        return err->code;
    sw->coll.type = (th_coll_type)type;
    ax size_axis = {.kind = AX_SIZE};
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(c, "size");
    if (s) {
        if (number_of(s, &size_axis, &sw->coll.size, src, "collective.size", err)) return err->code;
        th_error e;
        if (th_units_check_size(sw->coll.size, "collective.size", &e))
            return th_error_set(err, TH_EINPUT, "%s: %s", src, e.msg);
    }
    const cJSON *n = cJSON_GetObjectItemCaseSensitive(c, "chunks");
    if (n) {
        if (!cJSON_IsNumber(n) || n->valuedouble != floor(n->valuedouble) || n->valuedouble < 1 ||
            n->valuedouble > TH_MAX_CHUNKS)
            return th_json_bad(err, src, "collective.chunks", "an integer from 1 to 1000000", n);
        sw->coll.chunks = (int64_t)n->valuedouble;
    }
    const cJSON *d = cJSON_GetObjectItemCaseSensitive(c, "dims");
    char text[80];
    if (d && dims_value(d, &sw->coll.dims_mask, text, sizeof text, src, "collective.dims", err))
        return err->code;
    return TH_OK;
}

/* A workload sweep replays training: collective axes do not apply, and themis-global and
 * the priority exist only there. */
/* "remote_memory": ASTRA-sim's remote memory JSON for the memory nodes of Chakra traces, read
 * whole (the trace's format parses it at every point). */
static int parse_memory(th_sweep *sw, const cJSON *root, th_error *err) {
    char buf[4096] = "";
    if (th_json_string(root, "remote_memory", buf, sizeof buf, sw->source, "", err))
        return err->code;
    if (!buf[0]) return TH_OK;
    char *file = resolve(sw->dir, buf);
    if (!file) return th_error_set(err, TH_EINTERNAL, "out of memory");
    size_t len;
    th_error e;
    int rc = th_json_read_file(file, &sw->memory, &len, &e);
    sw->memory_src = file;
    if (keep_input(sw, file, err)) return err->code;
    if (rc) return th_error_set(err, rc, "%s: remote_memory: %s", sw->source, e.msg);
    return TH_OK;
}

static int check_train(th_sweep *sw, const cJSON *root, th_error *err) {
    const char *src = sw->source;
    for (int a = 0; a < sw->naxes; a++) {
        const ax *x = &sw->axes[a];
        if (x->kind == AX_CHUNKS) sw->chunks_axis = 1;
        if (x->kind == AX_CHUNKING || x->kind == AX_BUCKET) sw->issued = 1;
        if (sw->train && (x->kind == AX_SIZE || x->kind == AX_TYPE || x->kind == AX_DIMS))
            return th_error_set(err, TH_EINPUT,
                                "%s: axes.%s: does not apply to a workload "
                                "sweep (the workload sets its collectives)",
                                src, x->name);
        if (x->kind == AX_LLM && !sw->llm)
            return th_error_set(err, TH_EINPUT,
                                "%s: axes.%s: only with an LLM workload (the spec's \"workload\")",
                                src, x->name);
        if (sw->llm && (x->kind == AX_PRIORITY || x->kind == AX_BATCH || x->kind == AX_CHUNKING ||
                        x->kind == AX_BUCKET || x->kind == AX_CHUNKS || x->kind == AX_WORKLOAD ||
                        x->kind == AX_LOAD_MODEL))
            return th_error_set(err, TH_EINPUT,
                                "%s: axes.%s: not for an LLM workload (its llm.* axes: llm.chunks, "
                                "llm.bucket_bytes, ...)",
                                src, x->name);
        if (!sw->train && (x->kind == AX_PRIORITY || x->kind == AX_BATCH ||
                           x->kind == AX_CHUNKING || x->kind == AX_BUCKET))
            return th_error_set(err, TH_EINPUT, "%s: axes.%s: only for workload sweeps", src,
                                x->name);
        for (int64_t i = 0; !sw->train && x->kind == AX_POLICY && i < x->n; i++)
            if (x->v[i].i == TH_POLICY_THEMIS_GLOBAL)
                return th_error_set(err, TH_EINPUT,
                                    "%s: axes.policy[%lld]: themis-global only "
                                    "applies to workload sweeps",
                                    src, (long long)i);
    }
    int groups = 0; /* a workload whose format has process groups */
    for (int i = 0; i < sw->nworkloads; i++)
        groups |= sw->natives && sw->natives[i].format && sw->natives[i].format->groups;
    if (sw->comm_group && !groups)
        return th_error_set(err, TH_EINPUT,
                            "%s: comm_group: for Chakra execution traces (their pg_name), and the "
                            "sweep has none",
                            src);
    const cJSON *bound = cJSON_GetObjectItemCaseSensitive(root, "bound");
    if (bound && !cJSON_IsBool(bound))
        return th_json_bad(err, src, "bound", "true or false", bound);
    sw->bound = cJSON_IsTrue(bound);
    if (sw->train && sw->bound)
        return th_error_set(err, TH_EINPUT,
                            "%s: bound: only for collective sweeps (a workload sweep has no "
                            "optimal bound)",
                            src);
    if (sw->train && cJSON_GetObjectItemCaseSensitive(root, "collective"))
        return th_error_set(err, TH_EINPUT,
                            "%s: collective: a workload sweep takes its "
                            "collectives from the workload",
                            src);
    if (sw->llm && (sw->issued || sw->ideal_lat))
        return th_error_set(err, TH_EINPUT, "%s: %s: not for an LLM workload", src,
                            sw->ideal_lat      ? "ideal_latency"
                            : sw->chunking_set ? "chunking"
                                               : "bucket");
    const th_system *floorless = sw->train || !sw->ideal_lat ? NULL : lacking(sw, TH_CAP_IDEAL_LAT);
    if (floorless)
        return th_error_set(err, TH_EINPUT,
                            "%s: ideal_latency: the latency floor is the analytical model's "
                            "(SPEC §3), not the %s preset's",
                            src, th_model_of(floorless)->name);
    if (!sw->train && sw->issued)
        return th_error_set(err, TH_EINPUT, "%s: %s: only for workload sweeps", src,
                            sw->chunking_set ? "chunking" : "bucket");
    int takes = 0; /* a workload whose format takes a remote memory */
    for (int i = 0; i < sw->nworkloads; i++)
        takes |= sw->natives[i].format && sw->natives[i].format->memory;
    if (sw->memory && !takes)
        return th_error_set(err, TH_EINPUT,
                            "%s: remote_memory: for workloads that have memory nodes (Chakra "
                            "execution traces), and the spec names none",
                            src);
    if (!sw->train && sw->pair.policy == TH_POLICY_THEMIS_GLOBAL)
        return th_error_set(err, TH_EINPUT,
                            "%s: policy: themis-global only applies to workload "
                            "sweeps",
                            src);
    return TH_OK;
}

/* "chunking": a rule name; "bucket": a size, 0 (none) or true (25 MiB). */
static int parse_train_keys(th_sweep *sw, const cJSON *root, th_error *err) {
    const char *src = sw->source;
    if (cJSON_GetObjectItemCaseSensitive(root, "chunking")) {
        int rule = 0;
        if (th_json_enum(root, "chunking", th_chunking_names, &rule, src, "", err))
            return err->code;
        sw->chunking = (th_chunking)rule;
        sw->chunking_set = sw->issued = 1;
    }
    const cJSON *il = cJSON_GetObjectItemCaseSensitive(root, "ideal_latency");
    if (il && !cJSON_IsBool(il)) return th_json_bad(err, src, "ideal_latency", "true or false", il);
    sw->ideal_lat = cJSON_IsTrue(il);
    const cJSON *b = cJSON_GetObjectItemCaseSensitive(root, "bucket");
    if (!b) return TH_OK;
    sw->issued = 1;
    ax a = {.kind = AX_BUCKET};
    double x = 0;
    if (cJSON_IsTrue(b)) {
        x = TH_BUCKET_DEFAULT;
    } else if (!cJSON_IsFalse(b)) {
        if (number_of(b, &a, &x, src, "bucket", err)) return err->code;
        th_error e;
        if (x != 0 && th_units_check_size(x, "bucket", &e))
            return th_error_set(err, TH_EINPUT, "%s: %s", src, e.msg);
    }
    sw->bucket = x > 0 ? x : -1;
    return TH_OK;
}

static int parse_spec(th_sweep *sw, const cJSON *root, th_error *err) {
    const char *src = sw->source;
    if (!cJSON_IsObject(root)) return th_json_bad(err, src, "(top level)", "an object", root);
    if (th_json_check_keys(root, top_keys, src, "", err)) return err->code;
    char buf[1024];
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(root, "name");
    if (name && !cJSON_IsString(name)) return th_json_bad(err, src, "name", "a string", name);
    sw->name = th_strdup(name ? name->valuestring : "sweep");
    const cJSON *desc = cJSON_GetObjectItemCaseSensitive(root, "description");
    if (desc && !cJSON_IsString(desc))
        return th_json_bad(err, src, "description", "a string", desc);
    buf[0] = '\0';
    if (th_json_string(root, "system", buf, sizeof buf, src, "", err)) return err->code;
    if (buf[0]) {
        char *file = resolve(sw->dir, buf);
        if (!file) return th_error_set(err, TH_EINTERNAL, "out of memory");
        th_error e;
        th_run_defaults def;
        int rc = th_run_load_system(file, &sw->base, &def, &e);
        if (keep_input(sw, file, err)) return err->code;
        if (rc) return th_error_set(err, rc, "%s: system: %s", src, e.msg);
        sw->base_chunks = def.chunks;
    } else {
        th_system_default(&sw->base);
    }
    if (parse_collective(sw, cJSON_GetObjectItemCaseSensitive(root, "collective"), src, err))
        return err->code;
    buf[0] = '\0';
    if (th_json_string(root, "workload", buf, sizeof buf, src, "", err)) return err->code;
    if (buf[0]) {
        if (add_workload(sw, buf, src, "workload", err)) return err->code;
        sw->workload = 0;
    }
    int pr = (int)sw->priority;
    if (th_json_enum(root, "priority", th_priority_names, &pr, src, "", err)) return err->code;
    sw->priority = (th_priority)pr;
    if (parse_memory(sw, root, err)) return err->code;
    if (parse_train_keys(sw, root, err)) return err->code;
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(root, "iterations");
    if (it) {
        if (!cJSON_IsNumber(it) || it->valuedouble < 2 || it->valuedouble > 1000 ||
            it->valuedouble != floor(it->valuedouble))
            return th_json_bad(err, src, "iterations", "an integer from 2 to 1000", it);
        sw->iterations = (int)it->valuedouble;
    }
    int v = (int)sw->pair.policy;
    const char *policies[SWEEP_POLICIES + 1];
    th_policy_names_first(SWEEP_POLICIES, policies);
    if (th_json_enum(root, "policy", policies, &v, src, "", err)) return err->code;
    sw->pair.policy = (th_policy)v;
    v = (int)sw->pair.intra;
    if (th_json_enum(root, "intra", th_intra_names, &v, src, "", err)) return err->code;
    sw->pair.intra = (th_intra)v;
    v = (int)sw->model;
    if (th_json_enum(root, "load_model", th_load_model_names, &v, src, "", err)) return err->code;
    sw->model = (th_load_model)v;
    buf[0] = '\0';
    if (th_json_string(root, "comm_group", buf, sizeof buf, src, "", err)) return err->code;
    if (buf[0]) { /* a communicator group file for the Chakra traces' process groups */
        char *file = resolve(sw->dir, buf);
        if (!file || !(sw->comm_group = th_strdup(file))) {
            free(file);
            return th_error_set(err, TH_EINTERNAL, "out of memory");
        }
        if (keep_input(sw, file, err)) return err->code;
    }
    buf[0] = '\0';
    if (th_json_string(root, "output", buf, sizeof buf, src, "", err)) return err->code;
    if (buf[0] && !(sw->output = resolve(sw->dir, buf)))
        return th_error_set(err, TH_EINTERNAL, "out of memory");

    const cJSON *axes = cJSON_GetObjectItemCaseSensitive(root, "axes");
    if (axes && !cJSON_IsObject(axes))
        return th_json_bad(err, src, "axes", "an object of axis: values", axes);
    int n = axes ? cJSON_GetArraySize(axes) : 0;
    sw->axes = calloc((size_t)(n ? n : 1), sizeof *sw->axes);
    if (!sw->axes) return th_error_set(err, TH_EINTERNAL, "out of memory");
    for (const cJSON *j = axes ? axes->child : NULL; j; j = j->next) {
        for (int a = 0; a < sw->naxes; a++)
            if (!strcmp(sw->axes[a].name, j->string))
                return th_error_set(err, TH_EINPUT, "%s: axes.%s: duplicate axis", src, j->string);
        ax *a = &sw->axes[sw->naxes++];
        if (!(a->name = th_strdup(j->string)))
            return th_error_set(err, TH_EINTERNAL, "out of memory");
        if (parse_axis(sw, a, j, src, err)) return err->code;
    }
    if (check_train(sw, root, err)) return err->code;
    if (parse_zip(sw, cJSON_GetObjectItemCaseSensitive(root, "zip"), src, err)) return err->code;
    sw->points = 1;
    for (int g = 0; g < sw->ngroups; g++) {
        if ((double)sw->points * (double)sw->groups[g].len > (double)TH_SWEEP_MAX_POINTS)
            return th_error_set(err, TH_EINPUT, "%s: axes: more than %lld points", src,
                                TH_SWEEP_MAX_POINTS);
        sw->points *= sw->groups[g].len;
    }
    sw->maxdims = sw->nsystems ? 0 : sw->base.ndims; /* a system axis replaces the base */
    for (int s = 0; s < sw->nsystems; s++)
        if (sw->systems[s].ndims > sw->maxdims) sw->maxdims = sw->systems[s].ndims;
    return TH_OK;
}

int th_sweep_parse(const char *json, size_t len, const char *source, const char *base_dir,
                   th_sweep **out, th_error *err) {
    *out = NULL;
    th_sweep *sw = calloc(1, sizeof *sw);
    if (!sw) return th_error_set(err, TH_EINTERNAL, "out of memory");
    sw->coll = (th_collective){TH_COLL_ALLREDUCE, 1073741824.0, 64, 0};
    sw->pair = (th_pair){TH_POLICY_THEMIS, TH_INTRA_SCF};
    sw->model = TH_LOAD_ALPHA_BETA;
    sw->workload = -1;
    sw->priority = TH_PRIO_LIFO;
    sw->iterations = 3;
    sw->source = th_strdup(source);
    sw->dir = th_strdup(base_dir);
    if ((sw->text = malloc(len + 1))) {
        memcpy(sw->text, json, len);
        sw->text[len] = '\0';
        sw->text_len = len;
    }
    if (!sw->source || !sw->dir || !sw->text) {
        th_sweep_free(sw);
        return th_error_set(err, TH_EINTERNAL, "out of memory");
    }
    cJSON *root;
    int rc = th_json_parse(json, len, source, &root, err);
    if (rc == TH_OK) {
        rc = parse_spec(sw, root, err);
        cJSON_Delete(root);
    }
    if (rc == TH_OK) rc = th_sweep_validate(sw, err);
    if (rc != TH_OK) {
        th_sweep_free(sw);
        return rc;
    }
    *out = sw;
    return TH_OK;
}

int th_sweep_load(const char *path, th_sweep **out, th_error *err) {
    char *text;
    size_t len;
    *out = NULL;
    if (th_json_read_file(path, &text, &len, err)) return err->code;
    char dir[1024] = ".";
    const char *slash = strrchr(path, '/');
    if (slash && strcmp(path, "-")) {
        size_t n = (size_t)(slash - path);
        if (n == 0) n = 1; /* "/spec.json" */
        if (n >= sizeof dir) n = sizeof dir - 1;
        memcpy(dir, path, n);
        dir[n] = '\0';
    }
    int rc = th_sweep_parse(text, len, strcmp(path, "-") ? path : "<stdin>", dir, out, err);
    free(text);
    return rc;
}

/* Visits the product of the structural groups (the others at their first value). Past
 * VALIDATE_MAX combinations the rest are checked as they run. */
#define VALIDATE_MAX 10000000LL

int th_sweep_validate(const th_sweep *sw, th_error *err) {
    int64_t *d = calloc((size_t)(sw->ngroups ? sw->ngroups : 1), sizeof *d);
    if (!d) return th_error_set(err, TH_EINTERNAL, "out of memory");
    int rc = TH_OK;
    for (int64_t visited = 0; visited < VALIDATE_MAX; visited++) {
        sw_point pt;
        int64_t point = 0;
        for (int g = 0; g < sw->ngroups; g++)
            point = point * sw->groups[g].len + d[g];
        if ((rc = sw_apply(sw, d, point, &pt, err))) break;
        int g = sw->ngroups - 1;
        for (; g >= 0; g--) {
            if (!sw->groups[g].structural) continue;
            if (++d[g] < sw->groups[g].len) break;
            d[g] = 0;
        }
        if (g < 0) break;
    }
    free(d);
    return rc;
}

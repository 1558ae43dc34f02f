/* Importing ASTRA-sim 2.x configurations: the analytical network YAML (read with libyaml) and
 * the system JSON become one themis system file under the astra-sim preset. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "json.h"
#include "themis/astra.h"
#include "themis/run.h"
#include "themis/str.h"
#include "themis/system.h"

#define MAX_KEYS 16

/* One top-level entry of the network file: a scalar or a flow/block list of scalars. */
typedef struct yentry {
    char key[64];
    int line; /* 1-based, for messages */
    int n;    /* list length (1 for a scalar) */
    char item[TH_MAX_DIMS][64];
    char tag[TH_MAX_DIMS][40]; /* "" for a plain scalar with no tag, or !!int / !!float; else
                                * what makes it a string ("!!str", "quoted") */
} yentry;

/* The preset's own fields when no system JSON is given: the values of ASTRA-sim's sample
 * system files. */
#define SAMPLE_ENDPOINT_NS    10
#define SAMPLE_LOCAL_MEM_GBPS 50
#define TEXT_(x)              #x
#define TEXT(x)               TEXT_(x)

static const char sample_note[] =
    "no system JSON given: endpoint_ns " TEXT(SAMPLE_ENDPOINT_NS) " and local_mem_GBps " TEXT(
        SAMPLE_LOCAL_MEM_GBPS) " (the values of ASTRA-sim's sample system files); edit them or "
                               "give SYSTEM.json";

static void add_sample_settings(cJSON *sys) {
    cJSON_AddNumberToObject(sys, "endpoint_ns", SAMPLE_ENDPOINT_NS);
    cJSON_AddNumberToObject(sys, "local_mem_GBps", SAMPLE_LOCAL_MEM_GBPS);
}

static const char *const net_keys[] = {"topology", "npus_count", "bandwidth", "latency", NULL};

/* A value scalar's text, and its tag when that makes it something other than a number. */
static void scalar(const yaml_event_t *ev, char item[64], char tag[40]) {
    static const char core[] = "tag:yaml.org,2002:";
    const char *t = (const char *)ev->data.scalar.tag;
    snprintf(item, 64, "%s", (const char *)ev->data.scalar.value);
    tag[0] = '\0';
    if (t && !strncmp(t, core, sizeof core - 1) &&
        (!strcmp(t + sizeof core - 1, "int") || !strcmp(t + sizeof core - 1, "float")))
        return;
    if (t)
        snprintf(tag, 40, "%s%.36s", strncmp(t, core, sizeof core - 1) ? "" : "!!",
                 strncmp(t, core, sizeof core - 1) ? t : t + sizeof core - 1);
    else if (ev->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
        snprintf(tag, 40, "quoted");
}

/* Reads the top-level mapping of scalars and lists of scalars. */
static int read_yaml(const char *path, yentry *e, int *ne, th_error *err) {
    FILE *f = fopen(path, "rb");
    if (!f) return th_error_set(err, TH_EINPUT, "%s: cannot open: %s", path, strerror(errno));
    yaml_parser_t p;
    yaml_parser_initialize(&p);
    yaml_parser_set_input_file(&p, f);
    int depth = 0, in_seq = 0, rc = TH_OK, done = 0;
    yentry *cur = NULL;
    *ne = 0;
    while (!done && rc == TH_OK) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&p, &ev)) {
            rc = th_error_set(err, TH_EINPUT, "%s:%lu:%lu: YAML syntax error: %s", path,
                              (unsigned long)p.problem_mark.line + 1,
                              (unsigned long)p.problem_mark.column + 1,
                              p.problem ? p.problem : "unknown");
            break;
        }
        int line = (int)ev.start_mark.line + 1;
        switch (ev.type) {
        case YAML_STREAM_END_EVENT: done = 1; break;
        case YAML_MAPPING_START_EVENT:
            if (depth++ > 0)
                rc = th_error_set(err, TH_EINPUT,
                                  "%s:%d: nested mappings are not part of an "
                                  "analytical network file",
                                  path, line);
            break;
        case YAML_MAPPING_END_EVENT: depth--; break;
        case YAML_SEQUENCE_START_EVENT:
            if (!cur || in_seq)
                rc = th_error_set(err, TH_EINPUT, "%s:%d: expected KEY: [values]", path, line);
            in_seq = 1;
            break;
        case YAML_SEQUENCE_END_EVENT:
            in_seq = 0;
            cur = NULL;
            break;
        case YAML_SCALAR_EVENT: {
            const char *v = (const char *)ev.data.scalar.value;
            if (depth != 1) {
                rc = th_error_set(err, TH_EINPUT, "%s:%d: expected a mapping of KEY: [values]",
                                  path, line);
            } else if (!cur) { /* a key */
                if (*ne >= MAX_KEYS) {
                    rc = th_error_set(err, TH_EINPUT, "%s:%d: too many keys", path, line);
                    break;
                }
                for (int i = 0; i < *ne; i++)
                    if (!strcmp(e[i].key, v))
                        rc =
                            th_error_set(err, TH_EINPUT, "%s:%d: %s: duplicate key", path, line, v);
                cur = &e[(*ne)++];
                memset(cur, 0, sizeof *cur);
                snprintf(cur->key, sizeof cur->key, "%s", v);
                cur->line = line;
            } else { /* a value */
                if (cur->n >= TH_MAX_DIMS)
                    rc = th_error_set(err, TH_EINPUT, "%s:%d: %s: more than %d dimensions", path,
                                      line, cur->key, TH_MAX_DIMS);
                else
                    scalar(&ev, cur->item[cur->n], cur->tag[cur->n]), cur->n++;
                if (!in_seq) cur = NULL;
            }
            break;
        }
        default: break;
        }
        yaml_event_delete(&ev);
    }
    yaml_parser_delete(&p);
    fclose(f);
    return rc;
}

static const yentry *find(const yentry *e, int ne, const char *key) {
    for (int i = 0; i < ne; i++)
        if (!strcmp(e[i].key, key)) return &e[i];
    return NULL;
}

/* A decimal number as YAML writes one: [+-] digits [. digits] [(e|E) [+-] digits]. */
static int decimal(const char *s) {
    int digits = 0;
    if (*s == '+' || *s == '-') s++;
    for (; *s >= '0' && *s <= '9'; s++)
        digits++;
    if (*s == '.')
        for (s++; *s >= '0' && *s <= '9'; s++)
            digits++;
    if (!digits) return 0;
    if (*s == 'e' || *s == 'E') {
        s++;
        if (*s == '+' || *s == '-') s++;
        if (!(*s >= '0' && *s <= '9')) return 0;
        while (*s >= '0' && *s <= '9')
            s++;
    }
    return *s == '\0';
}

/* A finite number from a plain YAML scalar (untagged, or tagged !!int or !!float): a quoted or
 * !!str scalar is a string, whatever it reads like. */
static int yaml_number(const char *path, const yentry *y, int i, double *out, th_error *err) {
    if (y->tag[i][0])
        return th_error_set(err, TH_EINPUT,
                            "%s:%d: %s[%d]: expected a number, got the string \"%s\" (%s)", path,
                            y->line, y->key, i, y->item[i], y->tag[i]);
    char *end;
    errno = 0;
    double v = strtod(y->item[i], &end);
    if (!decimal(y->item[i]) || end == y->item[i] || *end || errno || !isfinite(v))
        return th_error_set(err, TH_EINPUT, "%s:%d: %s[%d]: expected a number, got \"%s\"", path,
                            y->line, y->key, i, y->item[i]);
    *out = v;
    return TH_OK;
}

static int network_dims(const char *path, cJSON *dims, int *ndims, th_error *err) {
    yentry e[MAX_KEYS];
    int ne = 0;
    if (read_yaml(path, e, &ne, err)) return err->code;
    for (int i = 0; i < ne; i++)
        if (th_name_find(net_keys, e[i].key) < 0) {
            char hint[256];
            th_json_suggest(net_keys, e[i].key, hint, sizeof hint);
            return th_error_set(err, TH_EINPUT, "%s:%d: %s: not modelled by themis; %s", path,
                                e[i].line, e[i].key, hint);
        }
    const yentry *y[4];
    for (int k = 0; k < 4; k++)
        if (!(y[k] = find(e, ne, net_keys[k])))
            return th_error_set(err, TH_EINPUT,
                                "%s: %s: missing (a list, one value per "
                                "dimension)",
                                path, net_keys[k]);
    int n = y[0]->n;
    for (int k = 1; k < 4; k++)
        if (y[k]->n != n)
            return th_error_set(err, TH_EINPUT,
                                "%s:%d: %s has %d values but topology has %d "
                                "(one per dimension)",
                                path, y[k]->line, y[k]->key, y[k]->n, n);
    static const char *const topo_astra[] = {"Ring", "FullyConnected", "Switch", NULL};
    static const char *const topo_ours[] = {"ring", "fc", "switch"};
    for (int i = 0; i < n; i++) {
        int t = th_name_find(topo_astra, y[0]->item[i]);
        if (t < 0) {
            char hint[256];
            th_json_suggest(topo_astra, y[0]->item[i], hint, sizeof hint);
            return th_error_set(err, TH_EINPUT, "%s:%d: topology[%d]: unknown topology \"%s\"; %s",
                                path, y[0]->line, i, y[0]->item[i], hint);
        }
        double npus = 0, bw = 0, lat = 0;
        if (yaml_number(path, y[1], i, &npus, err) || yaml_number(path, y[2], i, &bw, err) ||
            yaml_number(path, y[3], i, &lat, err))
            return err->code;
        if (npus < 2 || npus != floor(npus) || npus > TH_MAX_NPUS)
            return th_error_set(err, TH_EINPUT,
                                "%s:%d: npus_count[%d]: expected an integer >= 2, "
                                "got %s",
                                path, y[1]->line, i, y[1]->item[i]);
        if (bw <= 0)
            return th_error_set(err, TH_EINPUT,
                                "%s:%d: bandwidth[%d]: expected a number > 0, "
                                "got %s",
                                path, y[2]->line, i, y[2]->item[i]);
        if (lat < 0)
            return th_error_set(err, TH_EINPUT,
                                "%s:%d: latency[%d]: expected a number >= 0, "
                                "got %s",
                                path, y[3]->line, i, y[3]->item[i]);
        cJSON *d = cJSON_CreateObject();
        cJSON_AddStringToObject(d, "topology", topo_ours[t]);
        cJSON_AddNumberToObject(d, "npus", npus);
        cJSON_AddNumberToObject(d, "bw_GBps", bw);
        cJSON_AddNumberToObject(d, "latency_ns", lat);
        cJSON_AddItemToArray(dims, d);
    }
    *ndims = n;
    return TH_OK;
}

/* ASTRA-sim's names of our algorithms, in th_algorithm order (ring, direct, rhd); the other
 * implementations it knows are refused with a reason. */
static const char *const impl_astra[] = {"ring", "direct", "halvingDoubling", NULL};

static int impl_name(const char *src, const char *key, int k, const char *name, th_algorithm *out,
                     th_error *err) {
    int i = th_name_find(impl_astra, name);
    if (i >= 0) {
        *out = (th_algorithm)i;
        return TH_OK;
    }
    const char *why = "unknown implementation (expected ring, halvingDoubling or direct)";
    if (!strncmp(name, "direct", 6))
        why = "a direct window runs fewer messages at once than there are peers, which the "
              "preset does not model (use \"direct\")";
    else if (!strncmp(name, "one", 3))
        why = "one collective over every NPU as a single dim is not modelled";
    else if (!strcmp(name, "doubleBinaryTree"))
        why = "not modelled";
    return th_error_set(err, TH_EINPUT, "%s: %s[%d]: \"%s\": %s", src, key, k, name, why);
}

/* An implementation setting, one entry per dim: a list ["ring", "direct"] (2.x) or the string
 * "ring_direct"; out[k] is dim k's algorithm. */
static int impl_list(const char *src, const char *key, const cJSON *v, int ndims, th_algorithm *out,
                     th_error *err) {
    int n = 0;
    if (cJSON_IsString(v)) {
        char buf[256];
        snprintf(buf, sizeof buf, "%s", v->valuestring);
        char *save = NULL;
        for (char *tok = strtok_r(buf, "_", &save); tok; tok = strtok_r(NULL, "_", &save), n++)
            if (n < ndims && impl_name(src, key, n, tok, &out[n], err)) return err->code;
    } else if (cJSON_IsArray(v)) {
        for (const cJSON *x = v->child; x; x = x->next, n++) {
            if (!cJSON_IsString(x)) {
                char path[96];
                snprintf(path, sizeof path, "%s[%d]", key, n);
                return th_json_bad(err, src, path, "an implementation name", x);
            }
            if (n < ndims && impl_name(src, key, n, x->valuestring, &out[n], err)) return err->code;
        }
    } else {
        return th_json_bad(err, src, key, "a list of implementations, one per dimension", v);
    }
    if (n != ndims)
        return th_error_set(err, TH_EINPUT, "%s: %s: %d entries for %d dimensions", src, key, n,
                            ndims);
    return TH_OK;
}

/* The algorithm of every dim: the all-reduce list sets dims[k].algorithm (ring when absent),
 * used by every phase of an All-Reduce; the reduce-scatter and all-gather lists set
 * dims[k].reducescatter, .allgather and .alltoall where they differ from it (absent, a
 * Reduce-Scatter, All-Gather or All-to-All runs the all-reduce list too). */
static int implementations(const char *src, const cJSON *root, cJSON *dims, int ndims,
                           th_error *err) {
    static const char *const keys[] = {"all-reduce-implementation", "reduce-scatter-implementation",
                                       "all-gather-implementation", "all-to-all-implementation",
                                       NULL};
    static const char *const ours[] = {"algorithm", "reducescatter", "allgather", "alltoall"};
    th_algorithm alg[4][TH_MAX_DIMS];
    int given[4] = {0};
    for (int k = 0; k < ndims; k++)
        alg[0][k] = TH_ALG_RING;
    for (int i = 0; keys[i]; i++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, keys[i]);
        if (v && impl_list(src, keys[i], v, ndims, alg[i], err)) return err->code;
        given[i] = v != NULL;
    }
    int k = 0;
    for (cJSON *d = dims->child; d && k < ndims; d = d->next, k++)
        for (int i = 0; i < 4; i++)
            if (i == 0 ? alg[0][k] != TH_ALG_RING : given[i] && alg[i][k] != alg[0][k])
                cJSON_AddStringToObject(d, ours[i], th_algorithm_name(alg[i][k]));
    return TH_OK;
}

static int system_settings(const char *path, int ndims, cJSON *sys, cJSON *dims, cJSON *run,
                           th_error *err) {
    static const char *const keys[] = {"scheduling-policy",
                                       "endpoint-delay",
                                       "active-chunks-per-dimension",
                                       "preferred-dataset-splits",
                                       "all-reduce-implementation",
                                       "all-gather-implementation",
                                       "reduce-scatter-implementation",
                                       "all-to-all-implementation",
                                       "collective-optimization",
                                       "local-mem-bw",
                                       "boost-mode",
                                       "inter-dimension-scheduling",
                                       "intra-dimension-scheduling",
                                       "roofline-enabled",
                                       "peak-perf",
                                       "trace-enabled",
                                       "replay-only",
                                       NULL};
    char *text;
    size_t len;
    if (th_json_read_file(path, &text, &len, err)) return err->code;
    cJSON *root;
    int rc = th_json_parse(text, len, path, &root, err);
    free(text);
    if (rc) return rc;
    double v;
    const cJSON *x;
    if (!cJSON_IsObject(root)) rc = th_json_bad(err, path, "(top level)", "an object", root);
    if (!rc) rc = th_json_check_keys(root, keys, path, "", err);
    v = 10;
    if (!rc) rc = th_json_number(root, "endpoint-delay", 0, &v, path, "", err);
    if (!rc) cJSON_AddNumberToObject(sys, "endpoint_ns", v);
    v = 0;
    if (!rc) rc = th_json_number(root, "local-mem-bw", 1, &v, path, "", err);
    if (!rc) cJSON_AddNumberToObject(sys, "local_mem_GBps", v);
    v = 1;
    if (!rc) rc = th_json_number(root, "active-chunks-per-dimension", 0, &v, path, "", err);
    if (!rc && v != 1)
        rc = th_error_set(err, TH_EINPUT,
                          "%s: active-chunks-per-dimension: only 1 is modelled, "
                          "got %g",
                          path, v);
    v = 0;
    if (!rc) rc = th_json_number(root, "boost-mode", 0, &v, path, "", err);
    if (!rc && v != 0)
        rc = th_error_set(err, TH_EINPUT, "%s: boost-mode: only 0 is modelled, got %g", path, v);
    if (!rc) rc = implementations(path, root, dims, ndims, err);
    /* ASTRA-sim's values (Sys::initialize_sys); one collective at a time makes them equal here */
    static const char *const sched[] = {"LIFO", "FIFO", "EXPLICIT", NULL};
    int i = 0;
    if (!rc) rc = th_json_enum(root, "scheduling-policy", sched, &i, path, "", err);
    /* ASTRA-sim's values; baseline runs an All-Reduce as an AR phase on every dim */
    static const char *const opt[] = {"localBWAware", "baseline", NULL};
    i = 0;
    if (!rc) rc = th_json_enum(root, "collective-optimization", opt, &i, path, "", err);
    if (!rc && i == 1) cJSON_AddStringToObject(sys, "collective_optimization", "baseline");
    /* roofline-enabled: a compute node of a trace then costs num_ops at the roofline of
     * peak-perf (TFLOPS) and local-mem-bw instead of its duration */
    v = 0;
    if (!rc) rc = th_json_number(root, "roofline-enabled", 0, &v, path, "", err);
    double peak = 0;
    if (!rc) rc = th_json_number(root, "peak-perf", 0, &peak, path, "", err);
    if (!rc && v != 0) {
        if (!(peak > 0))
            rc = th_error_set(err, TH_EINPUT,
                              "%s: peak-perf: roofline-enabled needs a peak performance > 0 "
                              "(TFLOPS), got %g",
                              path, peak);
        else
            cJSON_AddNumberToObject(sys, "roofline_TFLOPS", peak);
    }
    if (!rc && (x = cJSON_GetObjectItemCaseSensitive(root, "preferred-dataset-splits"))) {
        if (!cJSON_IsNumber(x) || x->valuedouble < 1 || x->valuedouble > 1000000 ||
            x->valuedouble != floor(x->valuedouble))
            rc = th_json_bad(err, path, "preferred-dataset-splits", "an integer from 1 to 1000000",
                             x);
        else
            cJSON_AddNumberToObject(run, "chunks", x->valuedouble);
    }
    /* ASTRA-sim's spellings, and the policies they are here */
    static const char *const inter[] = {"baseline", "themis", NULL};
    static const th_policy inter_ours[] = {TH_POLICY_BASELINE, TH_POLICY_THEMIS};
    static const char *const intra_astra[] = {"FIFO", "SCF", NULL};
    static const th_intra intra_ours[] = {TH_INTRA_FIFO, TH_INTRA_SCF};
    i = -1;
    if (!rc) rc = th_json_enum(root, "inter-dimension-scheduling", inter, &i, path, "", err);
    if (!rc && i >= 0) cJSON_AddStringToObject(run, "policy", th_policy_name(inter_ours[i]));
    i = -1;
    if (!rc) rc = th_json_enum(root, "intra-dimension-scheduling", intra_astra, &i, path, "", err);
    if (!rc && i >= 0) cJSON_AddStringToObject(run, "intra", th_intra_name(intra_ours[i]));
    cJSON_Delete(root);
    return rc;
}

/* Checks that a system being imported loads; errors name `file`, the input it came from. */
static int check_loads(const cJSON *sys, const char *file, th_error *err) {
    char *text = cJSON_Print(sys);
    if (!text) return th_error_set(err, TH_EINTERNAL, "out of memory");
    th_system check;
    th_run_defaults def;
    th_error e;
    int rc = th_run_parse_system(text, strlen(text), "after import", &check, &def, &e);
    free(text);
    if (rc) return th_error_set(err, e.code, "%s: %s", file, e.msg);
    return TH_OK;
}

int th_astra_import(const char *network_yml, const char *system_json, char **out, const char **note,
                    th_error *err) {
    *out = NULL;
    *note = NULL;
    cJSON *sys = cJSON_CreateObject();
    char name[TH_NAME_MAX];
    th_base_name(network_yml, NULL, name, sizeof name);
    cJSON_AddStringToObject(sys, "name", name);
    char desc[256];
    snprintf(desc, sizeof desc, "imported from ASTRA-sim %.100s%s%.100s", network_yml,
             system_json ? " and " : "", system_json ? system_json : "");
    cJSON_AddStringToObject(sys, "description", desc);
    cJSON_AddStringToObject(sys, "model", "astra-sim");
    cJSON *run = cJSON_CreateObject();
    cJSON *dims = cJSON_CreateArray();
    int ndims = 0, rc = network_dims(network_yml, dims, &ndims, err);
    if (rc == TH_OK && system_json) { /* the network alone must load, so that an error after
                                       * the settings are added is the system JSON's */
        cJSON *probe = cJSON_Duplicate(sys, 1);
        if (!probe) rc = th_error_set(err, TH_EINTERNAL, "out of memory");
        add_sample_settings(probe);
        cJSON_AddItemToObject(probe, "dims", cJSON_Duplicate(dims, 1));
        if (rc == TH_OK) rc = check_loads(probe, network_yml, err);
        cJSON_Delete(probe);
    }
    if (rc == TH_OK && system_json) {
        rc = system_settings(system_json, ndims, sys, dims, run, err);
    } else if (rc == TH_OK) {
        add_sample_settings(sys);
        *note = sample_note;
    }
    cJSON_AddItemToObject(sys, "dims", dims);
    if (cJSON_GetArraySize(run) > 0)
        cJSON_AddItemToObject(sys, "run", run);
    else
        cJSON_Delete(run);
    if (rc == TH_OK) {
        *out = cJSON_Print(sys);
        if (!*out) rc = th_error_set(err, TH_EINTERNAL, "out of memory");
    }
    /* what we write must load; an error is the last input's (the network loaded alone) */
    if (rc == TH_OK && (rc = check_loads(sys, system_json ? system_json : network_yml, err))) {
        free(*out);
        *out = NULL;
    }
    cJSON_Delete(sys);
    return rc;
}

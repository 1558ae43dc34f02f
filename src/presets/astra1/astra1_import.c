/* Importing ASTRA-sim 1.0 configurations: the analytical network JSON (the short form of the
 * tutorials or the long one with nic, router and hbm keys) and the `key: value` system text
 * become one themis system file under the astra-sim-1.0 preset, with its run defaults. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "json.h"
#include "themis/astra1.h"
#include "themis/run.h"
#include "themis/str.h"
#include "themis/system.h"

int th_astra_detect(const char *network, th_error *err) {
    FILE *f = fopen(network, "rb");
    if (!f)
        return th_error_set(err, TH_EINPUT, "%s: cannot open: %s", network, strerror(errno)), -1;
    int c;
    while ((c = fgetc(f)) != EOF && isspace(c)) {
    }
    int bad = ferror(f), e = errno;
    fclose(f);
    if (bad) /* a folder opens, then fails to read */
        return th_error_set(err, TH_EIO, "%s: read error: %s", network, strerror(e)), -1;
    return c == '{' ? 1 : 2;
}

/* The 1-based line of the first "key" in text (0 when absent): where a JSON error points. */
static int line_of(const char *text, const char *key) {
    char quoted[80];
    snprintf(quoted, sizeof quoted, "\"%s\"", key);
    const char *at = strstr(text, quoted);
    if (!at) return 0;
    int line = 1;
    for (const char *p = text; p < at; p++)
        line += *p == '\n';
    return line;
}

static const char *const net_keys[] = {"topology-name",      "dimensions-count",
                                       "topologies-per-dim", "dimension-type",
                                       "units-count",        "links-count",
                                       "link-latency",       "link-bandwidth",
                                       "nic-latency",        "router-latency",
                                       "hbm-latency",        "hbm-bandwidth",
                                       "hbm-scale",          NULL};

typedef struct net {
    const char *path, *text;
    const cJSON *root;
    int n;
} net;

/* An error naming the network file, the key's line and the key. */
static int net_err(const net *w, const char *key, th_error *err, const char *what) {
    int line = line_of(w->text, key);
    if (line) return th_error_set(err, TH_EINPUT, "%s:%d: %s: %s", w->path, line, key, what);
    return th_error_set(err, TH_EINPUT, "%s: %s: %s", w->path, key, what);
}

/* Array `key` of n numbers into out (integers when `integer`); absent: `def` for each when def
 * is not NaN, else an error. */
static int numbers(const net *w, const char *key, int integer, double lo, double def, double *out,
                   th_error *err) {
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(w->root, key);
    char msg[200];
    if (!a) {
        if (isnan(def)) return net_err(w, key, err, "missing (one value per dimension)");
        for (int i = 0; i < w->n; i++)
            out[i] = def;
        return TH_OK;
    }
    if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) != w->n) {
        snprintf(msg, sizeof msg, "expected a list of %d %s (dimensions-count), found %s%d", w->n,
                 integer ? "integers" : "numbers", cJSON_IsArray(a) ? "" : "no list, ",
                 cJSON_GetArraySize(a));
        return net_err(w, key, err, msg);
    }
    int i = 0;
    for (const cJSON *x = a->child; x; x = x->next, i++) {
        if (!cJSON_IsNumber(x) || !isfinite(x->valuedouble) || x->valuedouble < lo ||
            (integer && x->valuedouble != floor(x->valuedouble))) {
            snprintf(msg, sizeof msg, "entry %d: expected %s >= %g", i,
                     integer ? "an integer" : "a number", lo);
            return net_err(w, key, err, msg);
        }
        out[i] = x->valuedouble;
    }
    return TH_OK;
}

/* The network JSON into dims (cJSON objects of our system file). */
static int network(const char *path, th_a1_version version, cJSON *dims, int *ndims,
                   th_error *err) {
    char *text;
    size_t len;
    if (th_json_read_file(path, &text, &len, err)) return err->code;
    cJSON *root;
    if (th_json_parse(text, len, path, &root, err)) {
        free(text);
        return err->code;
    }
    net w = {path, text, root, 0};
    int rc = TH_OK;
    if (!cJSON_IsObject(root)) rc = th_json_bad(err, path, "(top level)", "an object", root);
    for (const cJSON *k = rc ? NULL : root->child; k && !rc; k = k->next)
        if (th_name_find(net_keys, k->string) < 0) {
            char hint[256], msg[320];
            th_json_suggest(net_keys, k->string, hint, sizeof hint);
            snprintf(msg, sizeof msg, "not a key of ASTRA-sim 1.0's analytical network; %s", hint);
            rc = net_err(&w, k->string, err, msg);
        }
    const cJSON *v;
    if (!rc && (v = cJSON_GetObjectItemCaseSensitive(root, "topology-name")) &&
        !(cJSON_IsString(v) && !strcmp(v->valuestring, "Hierarchical")))
        rc = net_err(&w, "topology-name", err,
                     "expected \"Hierarchical\" (the analytical backend's only topology)");
    v = cJSON_GetObjectItemCaseSensitive(root, "dimensions-count");
    if (!rc && !v) rc = net_err(&w, "dimensions-count", err, "missing");
    if (!rc && (!cJSON_IsNumber(v) || v->valuedouble < 1 || v->valuedouble > TH_MAX_DIMS ||
                v->valuedouble != floor(v->valuedouble)))
        rc = net_err(&w, "dimensions-count", err, "expected an integer from 1 to 16");
    if (!rc) w.n = (int)v->valuedouble;
    static const char *const topo_astra[] = {"Ring", "FullyConnected", "Switch", NULL};
    static const char *const topo_ours[] = {"ring", "fc", "switch"};
    int topo[TH_MAX_DIMS];
    const cJSON *tl = cJSON_GetObjectItemCaseSensitive(root, "topologies-per-dim");
    if (!rc && (!cJSON_IsArray(tl) || cJSON_GetArraySize(tl) != w.n)) {
        char msg[200];
        snprintf(msg, sizeof msg,
                 "expected one of Ring, FullyConnected, Switch per dimension (%d, "
                 "dimensions-count), found %d",
                 w.n, cJSON_IsArray(tl) ? cJSON_GetArraySize(tl) : 0);
        rc = net_err(&w, "topologies-per-dim", err,
                     tl ? msg : "missing (one of Ring, FullyConnected, Switch per dimension)");
    }
    int i = 0;
    for (const cJSON *x = rc ? NULL : tl->child; x && !rc; x = x->next, i++)
        if (!cJSON_IsString(x) || (topo[i] = th_name_find(topo_astra, x->valuestring)) < 0) {
            char msg[200];
            snprintf(msg, sizeof msg, "entry %d: expected Ring, FullyConnected or Switch", i);
            rc = net_err(&w, "topologies-per-dim", err, msg);
        }
    /* dimension-type: the cost model's only (the branch knows T, N, P, PP and stops on a
     * Ring or FullyConnected PP dim; the tag takes any name) */
    const cJSON *dt = cJSON_GetObjectItemCaseSensitive(root, "dimension-type");
    if (!rc && dt && (!cJSON_IsArray(dt) || cJSON_GetArraySize(dt) != w.n))
        rc = net_err(&w, "dimension-type", err, "expected one name per dimension");
    i = 0;
    for (const cJSON *x = rc || !dt ? NULL : dt->child; x && !rc; x = x->next, i++) {
        static const char *const types[] = {"T", "N", "P", "PP", NULL};
        if (!cJSON_IsString(x))
            rc = net_err(&w, "dimension-type", err, "expected strings");
        else if (version == TH_A1_BRANCH && th_name_find(types, x->valuestring) < 0)
            rc = net_err(&w, "dimension-type", err,
                         "expected T, N, P or PP on the ASTRA-sim-1.0 branch");
        else if (version == TH_A1_BRANCH && !strcmp(x->valuestring, "PP") && topo[i] != 2)
            rc = net_err(&w, "dimension-type", err,
                         "PP (inter-pod) on a Ring or FullyConnected dim: the branch stops there");
    }
    double units[TH_MAX_DIMS], links[TH_MAX_DIMS], lat[TH_MAX_DIMS], bw[TH_MAX_DIMS];
    double nic[TH_MAX_DIMS], router[TH_MAX_DIMS], hlat[TH_MAX_DIMS], hbw[TH_MAX_DIMS];
    double hscale[TH_MAX_DIMS];
    if (!rc) rc = numbers(&w, "units-count", 1, 1, NAN, units, err);
    if (!rc) rc = numbers(&w, "links-count", 1, 1, NAN, links, err);
    if (!rc) rc = numbers(&w, "link-latency", 0, 0, NAN, lat, err);
    if (!rc) rc = numbers(&w, "link-bandwidth", 0, 0, NAN, bw, err);
    if (!rc) rc = numbers(&w, "nic-latency", 0, 0, 0, nic, err);
    if (!rc) rc = numbers(&w, "router-latency", 0, 0, 0, router, err);
    if (!rc) rc = numbers(&w, "hbm-latency", 0, 0, 0, hlat, err);
    if (!rc) rc = numbers(&w, "hbm-bandwidth", 0, 0, 1, hbw, err);
    if (!rc) rc = numbers(&w, "hbm-scale", 0, 0, 0, hscale, err);
    for (i = 0; i < w.n && !rc; i++) {
        if (bw[i] <= 0) rc = net_err(&w, "link-bandwidth", err, "expected numbers > 0");
        /* HBM time is the larger of the two only if it can win: then a message's time is
         * fractional, which the preset does not model. It never wins when its latency is below
         * the link's and its bandwidth above the dim's. */
        double hops = topo[i] == 2 ? 2 : 1, l = links[i];
        double scalar = topo[i] == 0   ? l - fmod(l, 2)
                        : topo[i] == 1 ? floor(l / (units[i] - 1))
                                       : l;
        double b = bw[i] * 1073741824.0 / 1e9 * scalar; /* the dim's B (links rules) */
        if (!rc && hscale[i] > 0 &&
            !(floor(hops * lat[i]) - 3 > hscale[i] * hlat[i] && hbw[i] > 0 &&
              1 / b >= hscale[i] / hbw[i]))
            rc = net_err(&w, "hbm-scale", err,
                         "an HBM time that can exceed the network's makes message times "
                         "fractional, which the astra-sim-1.0 preset does not model (set "
                         "hbm-scale to 0)");
    }
    for (i = 0; i < w.n && !rc; i++) {
        cJSON *d = cJSON_CreateObject();
        cJSON_AddStringToObject(d, "topology", topo_ours[topo[i]]);
        cJSON_AddNumberToObject(d, "npus", units[i]);
        cJSON_AddNumberToObject(d, "bw_GBps", bw[i]);
        cJSON_AddNumberToObject(d, "latency_ns", lat[i]);
        cJSON_AddNumberToObject(d, "links", links[i]);
        if (nic[i] > 0) cJSON_AddNumberToObject(d, "nic_latency_ns", nic[i]);
        if (router[i] > 0) cJSON_AddNumberToObject(d, "router_latency_ns", router[i]);
        cJSON_AddItemToArray(dims, d);
    }
    *ndims = w.n;
    cJSON_Delete(root);
    free(text);
    return rc;
}

/* ---- the system text ---- */

typedef struct setting {
    char key[256], value[256];
    int line;
} setting;

#define MAX_SETTINGS 64

/* Reads `key: value` tokens as Sys::initialize_sys does (whitespace-separated, a key then its
 * value), with their lines. */
static int read_settings(const char *path, setting *s, int *n, th_error *err) {
    *n = 0;
    FILE *f = fopen(path, "rb");
    if (!f) return th_error_set(err, TH_EINPUT, "%s: cannot open: %s", path, strerror(errno));
    int line = 1, c, k = 0, rc = TH_OK;
    char tok[256];
    for (;;) {
        while ((c = fgetc(f)) != EOF && isspace(c))
            line += c == '\n';
        if (c == EOF) break;
        int len = 0, tline = line;
        do {
            if (len < 250) tok[len++] = (char)c;
        } while ((c = fgetc(f)) != EOF && !isspace(c));
        tok[len] = '\0';
        if (c == '\n') line++;
        if (k % 2 == 0) {
            if (*n == MAX_SETTINGS) {
                rc = th_error_set(err, TH_EINPUT, "%s:%d: more than %d settings", path, tline,
                                  MAX_SETTINGS);
                break;
            }
            snprintf(s[*n].key, sizeof s[*n].key, "%s", tok);
            s[*n].line = tline;
            s[*n].value[0] = '\0';
        } else {
            snprintf(s[*n].value, sizeof s[*n].value, "%s", tok);
            (*n)++;
        }
        k++;
        if (c == EOF) break;
    }
    if (!rc && ferror(f)) /* a folder opens, then fails to read: not an empty file */
        rc = th_error_set(err, TH_EIO, "%s: read error: %s", path, strerror(errno));
    fclose(f);
    if (!rc && k % 2)
        rc = th_error_set(err, TH_EINPUT, "%s:%d: %s has no value", path, s[*n].line, s[*n].key);
    return rc;
}

static const setting *find(const setting *s, int n, const char *key) {
    for (int i = 0; i < n; i++)
        if (!strcmp(s[i].key, key)) return &s[i];
    return NULL;
}

/* An integer value in [lo, hi]. */
static int integer(const char *path, const setting *s, long lo, long hi, long *out, th_error *err) {
    char *end;
    errno = 0;
    long v = strtol(s->value, &end, 10);
    if (end == s->value || *end || errno || v < lo || v > hi)
        return th_error_set(err, TH_EINPUT, "%s:%d: %s expected an integer from %ld to %ld, got %s",
                            path, s->line, s->key, lo, hi, s->value);
    *out = v;
    return TH_OK;
}

/* One of names (returns the index), or -1 with the error set. */
static int choose(const char *path, const setting *s, const char *const *names, th_error *err) {
    int i = th_name_find(names, s->value);
    if (i < 0) {
        char hint[256];
        th_json_suggest(names, s->value, hint, sizeof hint);
        th_error_set(err, TH_EINPUT, "%s:%d: %s unknown value \"%s\"; %s", path, s->line, s->key,
                     s->value, hint);
    }
    return i;
}

static const char *const sys_keys[] = {"scheduling-policy:",
                                       "all-reduce-implementation:",
                                       "reduce-scatter-implementation:",
                                       "all-gather-implementation:",
                                       "all-to-all-implementation:",
                                       "collective-optimization:",
                                       "endpoint-delay:",
                                       "local-reduction-delay:",
                                       "active-chunks-per-dimension:",
                                       "L:",
                                       "o:",
                                       "g:",
                                       "G:",
                                       "model-shared-bus:",
                                       "preferred-dataset-splits:",
                                       "boost-mode:",
                                       "intra-dimension-scheduling:",
                                       "inter-dimension-scheduling:",
                                       "seprate-log:",
                                       "gap-denominator:",
                                       NULL};

/* An implementation list a_b_c: one of ring, halvingDoubling, direct per dim. */
static int impls(const char *path, const setting *s, int ndims, cJSON *dims, const char *field,
                 th_a1_version version, th_error *err) {
    char buf[256];
    snprintf(buf, sizeof buf, "%s", s->value);
    char *save = NULL;
    int k = 0;
    for (char *t = strtok_r(buf, "_", &save); t; t = strtok_r(NULL, "_", &save), k++) {
        if (k >= ndims)
            return th_error_set(err, TH_EINPUT,
                                "%s:%d: %s more entries than the network's %d dimensions", path,
                                s->line, s->key, ndims);
        int i = th_name_find(th_a1_impl_names, t);
        if (i < 0 && !strncmp(t, "direct", 6) && t[6] >= '0' && t[6] <= '9') {
            /* directN: std::stoi of the 5 (the tag: 10) characters after "direct" */
            char digits[16];
            snprintf(digits, version == TH_A1_BRANCH ? 6 : 11, "%s", t + 6);
            char *end;
            long w = strtol(digits, &end, 10);
            if (*end || w < 1)
                return th_error_set(err, TH_EINPUT,
                                    "%s:%d: %s %s: expected direct followed by a window of 1 or "
                                    "more",
                                    path, s->line, s->key, t);
            char value[32];
            snprintf(value, sizeof value, "direct%ld", w);
            cJSON_AddStringToObject(cJSON_GetArrayItem(dims, k), field, value);
            continue;
        }
        if (i < 0) {
            static const char *const other[] = {"oneRing", "oneDirect", "oneHalvingDoubling",
                                                "doubleBinaryTree", NULL};
            if (th_name_find(other, t) >= 0)
                return th_error_set(err, TH_EINPUT,
                                    "%s:%d: %s %s is not modelled by the astra-sim-1.0 preset "
                                    "(ring, halvingDoubling, direct and directN are)",
                                    path, s->line, s->key, t);
            char hint[256];
            th_json_suggest(th_a1_impl_names, t, hint, sizeof hint);
            return th_error_set(err, TH_EINPUT, "%s:%d: %s unknown implementation \"%s\"; %s", path,
                                s->line, s->key, t, hint);
        }
        cJSON_AddStringToObject(cJSON_GetArrayItem(dims, k), field, th_a1_impl_names[i]);
    }
    if (k != ndims)
        return th_error_set(err, TH_EINPUT,
                            "%s:%d: %s %d entries for the network's %d dimensions (with fewer, "
                            "ASTRA-sim runs that collective on the first %d dims only, which the "
                            "preset does not model: give one per dim)",
                            path, s->line, s->key, k, ndims, k);
    return TH_OK;
}

static int settings(const char *path, th_a1_version version, int ndims, cJSON *sys, cJSON *dims,
                    cJSON *run, th_error *err) {
    setting s[MAX_SETTINGS];
    int n = 0;
    if (read_settings(path, s, &n, err)) return err->code;
    for (int i = 0; i < n; i++) {
        if (version == TH_A1_BRANCH && !strcmp(s[i].key, "gap-denominator:"))
            return th_error_set(err, TH_EINPUT,
                                "%s:%d: gap-denominator: a setting of the tutorial-asplos2023 tag "
                                "only (--astra-version tutorial-asplos2023); the ASTRA-sim-1.0 "
                                "branch stops on it (its denominator is 16)",
                                path, s[i].line);
        if (th_name_find(sys_keys, s[i].key) < 0) {
            char hint[256];
            th_json_suggest(sys_keys, s[i].key, hint, sizeof hint);
            return th_error_set(err, TH_EINPUT, "%s:%d: %s is not a setting of %s; %s", path,
                                s[i].line, s[i].key,
                                version == TH_A1_BRANCH ? "the ASTRA-sim-1.0 branch"
                                                        : "ASTRA-sim 1.0 (tutorial-asplos2023)",
                                hint);
        }
        for (int j = 0; j < i; j++)
            if (!strcmp(s[i].key, s[j].key))
                return th_error_set(err, TH_EINPUT, "%s:%d: %s given twice (first on line %d)",
                                    path, s[i].line, s[i].key, s[j].line);
    }
    static const char *const required[] = {"scheduling-policy:",
                                           "all-reduce-implementation:",
                                           "reduce-scatter-implementation:",
                                           "all-gather-implementation:",
                                           "all-to-all-implementation:",
                                           "collective-optimization:",
                                           NULL};
    const setting *x;
    long v;
    int i;
    static const char *const pol[] = {"LIFO", "FIFO", NULL};
    if ((x = find(s, n, "scheduling-policy:"))) {
        if ((i = choose(path, x, pol, err)) < 0) return err->code;
        cJSON_AddStringToObject(sys, "scheduling_policy", pol[i]);
    }
    static const char *const opt[] = {"localBWAware", "baseline", NULL};
    if ((x = find(s, n, "collective-optimization:"))) {
        if ((i = choose(path, x, opt, err)) < 0) return err->code;
        cJSON_AddStringToObject(sys, "collective_optimization", opt[i]);
    }
    v = 10; /* Sys's communication_delay before the file is read */
    if ((x = find(s, n, "endpoint-delay:")) && integer(path, x, 0, 1000000000, &v, err))
        return err->code;
    cJSON_AddNumberToObject(sys, "endpoint_ns", (double)v);
    v = 1;
    if ((x = find(s, n, "active-chunks-per-dimension:")) &&
        integer(path, x, 1, 1000000000, &v, err))
        return err->code;
    if (v != 1)
        return th_error_set(err, TH_EINPUT,
                            "%s:%d: active-chunks-per-dimension: %ld is not modelled: chunks in "
                            "one dim would run at once without sharing its bandwidth, which no "
                            "network does (only 1 is)",
                            path, x->line, v);
    v = 0;
    if ((x = find(s, n, "boost-mode:")) && integer(path, x, 0, 1, &v, err)) return err->code;
    cJSON_AddNumberToObject(sys, "boost_mode", (double)v);
    v = 0;
    if ((x = find(s, n, "model-shared-bus:")) && integer(path, x, 0, 1, &v, err)) return err->code;
    if (v)
        return th_error_set(err, TH_EINPUT,
                            "%s:%d: model-shared-bus: 1 (the LogGP memory bus) is not modelled",
                            path, x->line);
    if ((x = find(s, n, "gap-denominator:"))) {
        if (integer(path, x, 1, 1000000000, &v, err)) return err->code;
        cJSON_AddNumberToObject(sys, "gap_denominator", (double)v);
    }
    if ((x = find(s, n, "preferred-dataset-splits:"))) {
        if (integer(path, x, 1, TH_MAX_CHUNKS, &v, err)) return err->code;
        cJSON_AddNumberToObject(run, "chunks", (double)v);
    }
    static const char *const fields[] = {"allreduce", "reducescatter", "allgather", "alltoall"};
    static const char *const keys[] = {
        "all-reduce-implementation:", "reduce-scatter-implementation:",
        "all-gather-implementation:", "all-to-all-implementation:"};
    for (int t = 0; t < 4; t++)
        if ((x = find(s, n, keys[t])) && impls(path, x, ndims, dims, fields[t], version, err))
            return err->code;
    static const char *const inter[] = {"baseline",      "ascending",  "themis",
                                        "offlineGreedy", "themisFlex", "offlineGreedyFlex",
                                        "roundRobin",    NULL};
    i = 0;
    if ((x = find(s, n, "inter-dimension-scheduling:")) && (i = choose(path, x, inter, err)) < 0)
        return err->code;
    if (i == 4 || i == 5)
        return th_error_set(err, TH_EINPUT,
                            "%s:%d: inter-dimension-scheduling: %s is not modelled by the "
                            "astra-sim-1.0 preset (baseline, themis and roundRobin are)",
                            path, x->line, x->value);
    cJSON_AddStringToObject(run, "policy", i < 2 ? "baseline" : i < 4 ? "themis" : "roundrobin");
    static const char *const intra[] = {
        "FIFO", "SCF", "smallestFirst", "RG", "lessRemainingPhaseFirst", NULL};
    i = 0;
    if ((x = find(s, n, "intra-dimension-scheduling:")) && (i = choose(path, x, intra, err)) < 0)
        return err->code;
    if (i >= 3)
        return th_error_set(err, TH_EINPUT,
                            "%s:%d: intra-dimension-scheduling: %s is not modelled by the "
                            "astra-sim-1.0 preset (FIFO and SCF are)",
                            path, x->line, x->value);
    cJSON_AddStringToObject(run, "intra", i == 0 ? "fifo" : "scf");
    for (i = 0; required[i]; i++)
        if (!find(s, n, required[i]))
            return th_error_set(err, TH_EINPUT, "%s: %s missing (ASTRA-sim 1.0 stops without it)",
                                path, required[i]);
    return TH_OK;
}

int th_astra1_import(const char *network_json, const char *system_txt, th_a1_version version,
                     char **out, th_error *err) {
    *out = NULL;
    cJSON *sys = cJSON_CreateObject(), *run = cJSON_CreateObject(), *dims = cJSON_CreateArray();
    char name[TH_NAME_MAX], desc[256];
    th_base_name(network_json, ".json", name, sizeof name);
    cJSON_AddStringToObject(sys, "name", name);
    snprintf(desc, sizeof desc, "imported from ASTRA-sim 1.0 %.100s and %.100s", network_json,
             system_txt);
    cJSON_AddStringToObject(sys, "description", desc);
    cJSON_AddStringToObject(sys, "model", "astra-sim-1.0");
    cJSON_AddStringToObject(sys, "astra_version",
                            version == TH_A1_TUTORIAL ? "tutorial-asplos2023" : "1.0");
    int ndims = 0;
    int rc = network(network_json, version, dims, &ndims, err);
    if (rc == TH_OK) rc = settings(system_txt, version, ndims, sys, dims, run, err);
    cJSON_AddItemToObject(sys, "dims", dims);
    cJSON_AddItemToObject(sys, "run", run);
    if (rc == TH_OK && !(*out = cJSON_Print(sys)))
        rc = th_error_set(err, TH_EINTERNAL, "out of memory");
    if (rc == TH_OK) { /* what we write must load: its errors are the inputs' */
        th_system check;
        th_run_defaults def;
        th_error e;
        if (th_run_parse_system(*out, strlen(*out), "after import", &check, &def, &e)) {
            rc = th_error_set(err, e.code, "%s and %s: %s", network_json, system_txt, e.msg);
            free(*out);
            *out = NULL;
        }
    }
    cJSON_Delete(sys);
    return rc;
}

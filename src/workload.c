/* Workload files: reading and validating the layer list, phases and their collectives. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "themis/str.h"
#include "themis/units.h"
#include "themis/workload.h"
#include "workload_format.h"

#define MAX_NS 1e21 /* a phase's compute time, at most (given, or made of flops) */

static const char *const top_keys[] = {
    "name",   "description",     "source", "parallelism", "mp_dims",      "batch", "npu_tflops",
    "chunks", "min_chunk_bytes", "layers", "chunking",    "bucket_bytes", NULL};
static const char *const layer_keys[] = {"name",       "params",      "forward",
                                         "input_grad", "weight_grad", NULL};
static const char *const phase_keys[] = {"ns", "flops", "collective", NULL};
static const char *const coll_keys[] = {"type", "size", "dims", "blocking", "chunks", NULL};
static const char *const phase_names[] = {"forward", "input_grad", "weight_grad", NULL};
static const char *const par_names[] = {"data", "hybrid", NULL};

const char *th_phase_name(th_phase p) {
    return (unsigned)p < 3 ? phase_names[p] : "?";
}

void th_workload_free(th_workload *wl) {
    if (!wl) return;
    free(wl->layers);
    free(wl);
}

static int parse_coll(const cJSON *c, th_wl_coll *out, int phase, const char *src, const char *path,
                      th_error *err) {
    if (!cJSON_IsObject(c)) return th_json_bad(err, src, path, "an object", c);
    if (th_json_check_keys(c, coll_keys, src, path, err)) return err->code;
    memset(out, 0, sizeof *out);
    out->present = 1;
    if (!cJSON_GetObjectItemCaseSensitive(c, "type"))
        return th_error_set(err, TH_EINPUT,
                            "%s: %s.type: missing (allreduce, reducescatter, "
                            "allgather or alltoall)",
                            src, path);
    int t = 0;
    if (th_json_enum(c, "type", th_coll_type_names, &t, src, path, err)) return err->code;
    out->type = (th_coll_type)t;
    char p[256];
    th_json_path(p, sizeof p, path, "size");
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(c, "size");
    if (!s) return th_error_set(err, TH_EINPUT, "%s: %s: missing (bytes)", src, p);
    th_error e;
    if (cJSON_IsString(s)) {
        if (th_units_parse_size(s->valuestring, p, &out->size, &e))
            return th_error_set(err, TH_EINPUT, "%s: %s", src, e.msg);
    } else if (!cJSON_IsNumber(s) || th_units_check_size(s->valuedouble, p, &e)) {
        return th_json_bad(err, src, p, "a size from 1 byte to 1 EiB", s);
    } else {
        out->size = s->valuedouble;
    }
    /* Weight gradients overlap with the rest of backprop by default; the rest block. */
    out->blocking = phase != TH_PHASE_WG;
    const cJSON *b = cJSON_GetObjectItemCaseSensitive(c, "blocking");
    th_json_path(p, sizeof p, path, "blocking");
    if (b && !cJSON_IsBool(b)) return th_json_bad(err, src, p, "true or false", b);
    if (b) out->blocking = cJSON_IsTrue(b);
    const cJSON *n = cJSON_GetObjectItemCaseSensitive(c, "chunks");
    th_json_path(p, sizeof p, path, "chunks");
    if (n) {
        if (!cJSON_IsNumber(n) || n->valuedouble < 1 || n->valuedouble > TH_MAX_CHUNKS ||
            n->valuedouble != floor(n->valuedouble))
            return th_json_bad(err, src, p, "an integer from 1 to 1000000", n);
        out->chunks = (int64_t)n->valuedouble;
    }
    const cJSON *d = cJSON_GetObjectItemCaseSensitive(c, "dims");
    th_json_path(p, sizeof p, path, "dims");
    out->sel = phase == TH_PHASE_WG ? TH_SEL_DP : TH_SEL_ALL;
    if (cJSON_IsString(d)) {
        static const char *const sels[] = {"dp", "mp", "all", NULL};
        int i = 0;
        if (th_json_enum_value(d, sels, &i, src, p, err)) return err->code;
        out->sel = (th_dim_sel)i;
    } else if (cJSON_IsArray(d) && cJSON_GetArraySize(d) > 0) {
        out->sel = TH_SEL_LIST;
        for (const cJSON *x = d->child; x; x = x->next) {
            if (!cJSON_IsNumber(x) || x->valuedouble < 0 || x->valuedouble >= TH_MAX_DIMS ||
                x->valuedouble != floor(x->valuedouble))
                return th_json_bad(err, src, p, "dim indices from 0 to 15", x);
            uint32_t bit = 1u << (int)x->valuedouble;
            if (out->mask & bit)
                return th_error_set(err, TH_EINPUT, "%s: %s: dim %d listed twice", src, p,
                                    (int)x->valuedouble);
            out->mask |= bit;
        }
    } else if (d) {
        return th_json_bad(err, src, p, "\"dp\", \"mp\", \"all\" or a list of dims", d);
    }
    return TH_OK;
}

static int parse_phase(const cJSON *ph, th_wl_phase *out, int phase, double tflops, const char *src,
                       const char *path, th_error *err) {
    if (!ph)
        return th_error_set(err, TH_EINPUT,
                            "%s: %s: missing (every layer needs forward, "
                            "input_grad and weight_grad, each with \"ns\" or \"flops\")",
                            src, path);
    if (!cJSON_IsObject(ph)) return th_json_bad(err, src, path, "an object", ph);
    if (th_json_check_keys(ph, phase_keys, src, path, err)) return err->code;
    const cJSON *ns = cJSON_GetObjectItemCaseSensitive(ph, "ns");
    const cJSON *fl = cJSON_GetObjectItemCaseSensitive(ph, "flops");
    if (!ns == !fl)
        return th_error_set(err, TH_EINPUT,
                            "%s: %s: expected exactly one compute time, \"ns\" "
                            "or \"flops\"",
                            src, path);
    char p[256];
    th_json_path(p, sizeof p, path, ns ? "ns" : "flops");
    const cJSON *v = ns ? ns : fl;
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || v->valuedouble < 0)
        return th_json_bad(err, src, p, "a finite number >= 0", v);
    if (ns && v->valuedouble > MAX_NS) { /* flops are bounded below, as the time they make */
        char what[64];
        snprintf(what, sizeof what, "a time of at most %g ns", MAX_NS);
        return th_json_bad(err, src, p, what, v);
    }
    if (fl && tflops <= 0)
        return th_error_set(err, TH_EINPUT,
                            "%s: %s: \"flops\" needs the top-level "
                            "\"npu_tflops\" to become a time",
                            src, p);
    out->flops = fl ? v->valuedouble : 0;
    out->ns = ns ? v->valuedouble : v->valuedouble / (tflops * 1e3);
    if (!(out->ns <= MAX_NS))
        return th_error_set(err, TH_EINPUT,
                            "%s: %s: flops / (npu_tflops * 1e3) = %g ns, expected at most %g ns "
                            "(npu_tflops %g is too small)",
                            src, p, out->ns, MAX_NS, tflops);
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(ph, "collective");
    th_json_path(p, sizeof p, path, "collective");
    if (c && parse_coll(c, &out->coll, phase, src, p, err)) return err->code;
    return TH_OK;
}

/* "bucket_bytes": a size (0 = no buckets), or true for PyTorch DDP's 25 MiB. */
static int parse_bucket(const cJSON *b, double *out, const char *src, th_error *err) {
    *out = 0;
    if (!b || cJSON_IsFalse(b)) return TH_OK;
    if (cJSON_IsTrue(b)) {
        *out = TH_BUCKET_DEFAULT;
        return TH_OK;
    }
    th_error e;
    if (cJSON_IsString(b)) {
        if (th_units_parse_size(b->valuestring, "bucket_bytes", out, &e))
            return th_error_set(err, TH_EINPUT, "%s: %s", src, e.msg);
        return TH_OK;
    }
    if (cJSON_IsNumber(b) && b->valuedouble == 0) return TH_OK;
    if (!cJSON_IsNumber(b) || th_units_check_size(b->valuedouble, "bucket_bytes", &e))
        return th_json_bad(err, src, "bucket_bytes",
                           "a size from 1 byte to 1 EiB, 0 (no buckets) or true (25 MiB)", b);
    *out = b->valuedouble;
    return TH_OK;
}

/* The layer names seen so far, in an open-addressing table of layer indices (-1: empty) that
 * the next name is looked up in and joins: a check per layer in O(1), not a scan of the
 * layers before it (a workload may have a hundred thousand). Returns the earlier layer named
 * `name`, or -1 (then layer k joins the table). */
static int name_seen(int *names, size_t mask, const th_wl_layer *layers, const char *name, int k) {
    uint32_t h = 2166136261u; /* FNV-1a */
    for (const char *c = name; *c; c++)
        h = (h ^ (uint8_t)*c) * 16777619u;
    size_t i = h & mask;
    for (; names[i] >= 0; i = (i + 1) & mask)
        if (!strcmp(layers[names[i]].name, name)) return names[i];
    names[i] = k;
    return -1;
}

/* Layer k of the list, l. */
static int parse_layer(const cJSON *l, int k, th_workload *wl, int *names, size_t mask,
                       const char *src, th_error *err) {
    char path[48];
    snprintf(path, sizeof path, "layers[%d]", k);
    th_wl_layer *ly = &wl->layers[k];
    if (!cJSON_IsObject(l)) return th_json_bad(err, src, path, "a layer object", l);
    if (th_json_check_keys(l, layer_keys, src, path, err)) return err->code;
    snprintf(ly->name, sizeof ly->name, "layer%d", k);
    if (th_json_string(l, "name", ly->name, sizeof ly->name, src, path, err)) return err->code;
    int j = name_seen(names, mask, wl->layers, ly->name, k);
    if (j >= 0)
        return th_error_set(err, TH_EINPUT,
                            "%s: %s.name: \"%s\" is also layers[%d]'s "
                            "name",
                            src, path, ly->name, j);
    if (th_json_number(l, "params", 0, &ly->params, src, path, err)) return err->code;
    if (ly->params < 0)
        return th_error_set(err, TH_EINPUT, "%s: %s.params: expected >= 0", src, path);
    for (int p = 0; p < TH_NPHASES; p++) {
        char pp[80];
        snprintf(pp, sizeof pp, "%s.%s", path, phase_names[p]);
        if (parse_phase(cJSON_GetObjectItemCaseSensitive(l, phase_names[p]), &ly->ph[p], p,
                        wl->npu_tflops, src, pp, err))
            return err->code;
    }
    return TH_OK;
}

static int parse_workload(const cJSON *root, th_workload *wl, const char *src, th_error *err) {
    if (!cJSON_IsObject(root)) return th_json_bad(err, src, "(top level)", "an object", root);
    if (th_json_expect_kind(root, "a workload", src, err) ||
        th_json_check_keys(root, top_keys, src, "", err))
        return err->code;
    if (th_json_string(root, "name", wl->name, sizeof wl->name, src, "", err)) return err->code;
    if (th_json_string(root, "description", wl->description, sizeof wl->description, src, "", err))
        return err->code;
    char buf[1024];
    if (th_json_string(root, "source", buf, sizeof buf, src, "", err)) return err->code;
    int par = 0;
    if (!cJSON_GetObjectItemCaseSensitive(root, "parallelism"))
        return th_error_set(err, TH_EINPUT, "%s: parallelism: missing (\"data\" or \"hybrid\")",
                            src);
    if (th_json_enum(root, "parallelism", par_names, &par, src, "", err)) return err->code;
    wl->hybrid = par;
    const cJSON *mp = cJSON_GetObjectItemCaseSensitive(root, "mp_dims");
    if (wl->hybrid) {
        if (!mp || !cJSON_IsNumber(mp) || mp->valuedouble < 1 || mp->valuedouble >= TH_MAX_DIMS ||
            mp->valuedouble != floor(mp->valuedouble))
            return mp ? th_json_bad(err, src, "mp_dims",
                                    "an integer >= 1 (the inner dims that "
                                    "are model-parallel)",
                                    mp)
                      : th_error_set(err, TH_EINPUT,
                                     "%s: mp_dims: missing (a hybrid workload "
                                     "names how many inner dims are model-parallel)",
                                     src);
        wl->mp_dims = (int)mp->valuedouble;
    } else if (mp) {
        return th_error_set(err, TH_EINPUT, "%s: mp_dims: only for \"parallelism\": \"hybrid\"",
                            src);
    }
    wl->batch = 1;
    if (th_json_number(root, "batch", 0, &wl->batch, src, "", err)) return err->code;
    if (!(wl->batch > 0)) return th_error_set(err, TH_EINPUT, "%s: batch: expected > 0", src);
    if (th_json_number(root, "npu_tflops", 0, &wl->npu_tflops, src, "", err)) return err->code;
    if (wl->npu_tflops < 0 ||
        (wl->npu_tflops == 0 && cJSON_GetObjectItemCaseSensitive(root, "npu_tflops")))
        return th_error_set(err, TH_EINPUT, "%s: npu_tflops: expected > 0, got %g", src,
                            wl->npu_tflops);
    double chunks = 64;
    if (th_json_number(root, "chunks", 0, &chunks, src, "", err)) return err->code;
    if (chunks < 1 || chunks > TH_MAX_CHUNKS || chunks != floor(chunks))
        return th_error_set(err, TH_EINPUT, "%s: chunks: expected an integer from 1 to 1000000",
                            src);
    wl->chunks = (int64_t)chunks;
    if (th_json_number(root, "min_chunk_bytes", 0, &wl->min_chunk_bytes, src, "", err))
        return err->code;
    if (wl->min_chunk_bytes < 0)
        return th_error_set(err, TH_EINPUT, "%s: min_chunk_bytes: expected a number >= 0", src);
    int rule = TH_CHUNKING_CAPPED;
    if (th_json_enum(root, "chunking", th_chunking_names, &rule, src, "", err)) return err->code;
    wl->chunking = (th_chunking)rule;
    if (parse_bucket(cJSON_GetObjectItemCaseSensitive(root, "bucket_bytes"), &wl->bucket_bytes, src,
                     err))
        return err->code;
    const cJSON *layers = cJSON_GetObjectItemCaseSensitive(root, "layers");
    if (!cJSON_IsArray(layers) || cJSON_GetArraySize(layers) < 1)
        return layers ? th_json_bad(err, src, "layers", "a non-empty list of layers", layers)
                      : th_error_set(err, TH_EINPUT, "%s: layers: missing", src);
    int n = cJSON_GetArraySize(layers);
    wl->layers = calloc((size_t)n, sizeof *wl->layers);
    if (!wl->layers) return th_error_set(err, TH_EINTERNAL, "out of memory");
    size_t size = 2;
    while (size < 2 * (size_t)n)
        size *= 2;
    int *names = malloc(sizeof *names * size);
    if (!names) return th_error_set(err, TH_EINTERNAL, "out of memory");
    memset(names, 0xff, sizeof *names * size); /* -1: empty */
    int k = 0, rc = TH_OK;
    for (const cJSON *l = layers->child; l && rc == TH_OK; l = l->next, k++)
        rc = parse_layer(l, k, wl, names, size - 1, src, err);
    free(names);
    if (rc != TH_OK) return rc;
    wl->nlayers = n;
    return TH_OK;
}

int th_workload_parse(const char *json, size_t len, const char *source, th_workload **out,
                      th_error *err) {
    *out = NULL;
    th_workload *wl = calloc(1, sizeof *wl);
    if (!wl) return th_error_set(err, TH_EINTERNAL, "out of memory");
    th_base_name(source, NULL, wl->name, sizeof wl->name);
    cJSON *root;
    int rc = th_json_parse(json, len, source, &root, err);
    if (rc == TH_OK) {
        rc = parse_workload(root, wl, source, err);
        cJSON_Delete(root);
    }
    if (rc != TH_OK) {
        th_workload_free(wl);
        return rc;
    }
    *out = wl;
    return TH_OK;
}

/* The format of text other than our JSON, or NULL (ours, or nothing known). */
static const th_wl_format *format_of(const char *text, size_t len) {
    const th_wl_format *f;
    for (int i = 0; (f = th_wl_format_get(i)) != NULL; i++)
        if (f->detect(text, len)) return f;
    return NULL;
}

int th_workload_open(const char *path, th_wl_file *out, th_error *err) {
    char *text;
    size_t len;
    memset(out, 0, sizeof *out);
    const th_wl_format *f;
    for (int i = 0; strcmp(path, "-") && (f = th_wl_format_get(i)) != NULL; i++) {
        int r = f->open_path ? f->open_path(path, &out->native, err) : 0;
        if (r < 0) return -r;
        if (r > 0) {
            out->format = f;
            return TH_OK;
        }
    }
    if (th_json_read_file(path, &text, &len, err)) return err->code;
    const char *src = strcmp(path, "-") ? path : "<stdin>";
    f = format_of(text, len);
    int rc = f ? f->parse(text, len, src, &out->native, err)
               : th_workload_parse(text, len, src, &out->wl, err);
    if (rc == TH_OK) out->format = f;
    free(text);
    return rc;
}

void th_workload_close(th_wl_file *f) {
    if (f->native) f->format->free_native(f->native);
    th_workload_free(f->wl);
    memset(f, 0, sizeof *f);
}

int th_workload_load(const char *path, th_workload **out, th_error *err) {
    char *text;
    size_t len;
    *out = NULL;
    if (th_json_read_file(path, &text, &len, err)) return err->code;
    const char *src = strcmp(path, "-") ? path : "<stdin>";
    const th_wl_format *f = format_of(text, len);
    void *native = NULL;
    th_error ignore;
    int rc;
    /* a file of another format (that parses as one) is named, not blamed on JSON syntax */
    if (f && f->parse(text, len, src, &native, &ignore) == TH_OK)
        rc = th_error_set(err, TH_EINPUT, "%s: %s, where a JSON workload is expected: %s", src,
                          f->name, f->hint);
    else
        rc = th_workload_parse(text, len, src, out, err);
    if (native) f->free_native(native);
    free(text);
    return rc;
}

int th_workload_mask(const th_workload *wl, const th_wl_coll *c, const th_system *sys,
                     const char *where, uint32_t *mask, th_error *err) {
    uint32_t all = (1u << sys->ndims) - 1u;
    if (wl->hybrid && wl->mp_dims >= sys->ndims)
        return th_error_set(err, TH_EINPUT,
                            "%s: mp_dims: %d model-parallel dims leave no data-parallel dim on "
                            "system \"%s\" (%d dims)",
                            where, wl->mp_dims, sys->name, sys->ndims);
    uint32_t mp = wl->hybrid ? (1u << wl->mp_dims) - 1u : 0;
    switch (c->sel) {
    case TH_SEL_ALL: *mask = all; break;
    case TH_SEL_DP: *mask = all & ~mp; break;
    case TH_SEL_MP:
        if (!wl->hybrid)
            return th_error_set(err, TH_EINPUT, "%s: dims \"mp\" in a data-parallel workload",
                                where);
        *mask = mp;
        break;
    case TH_SEL_LIST:
        if (c->mask & ~all) {
            int d = 0;
            while (!((c->mask >> d) & 1u) || d < sys->ndims)
                d++;
            return th_error_set(err, TH_EINPUT,
                                "%s: dims: dim %d does not exist (system \"%s\" "
                                "has dims 0..%d)",
                                where, d, sys->name, sys->ndims - 1);
        }
        *mask = c->mask;
        break;
    }
    return TH_OK;
}

int th_workload_check(const th_workload *wl, const th_system *sys, const char *source,
                      th_error *err) {
    for (int l = 0; l < wl->nlayers; l++)
        for (int p = 0; p < TH_NPHASES; p++) {
            const th_wl_coll *c = &wl->layers[l].ph[p].coll;
            if (!c->present) continue;
            char where[256];
            snprintf(where, sizeof where, "%s: layers[%d].%s.collective", source, l,
                     phase_names[p]);
            uint32_t mask = 0;
            if (th_workload_mask(wl, c, sys, where, &mask, err)) return err->code;
            th_collective coll = {c->type, c->size,
                                  th_workload_chunks(wl, c, c->size, 0, wl->chunking), mask};
            th_error e;
            if (th_collective_validate(sys, &coll, &e))
                return th_error_set(err, TH_EINPUT, "%s: %s", where, e.msg);
        }
    return TH_OK;
}

int64_t th_workload_chunks(const th_workload *wl, const th_wl_coll *c, double size, int64_t n,
                           th_chunking rule) {
    if (!n && c->chunks) return c->chunks;
    if (!n) n = wl->chunks;
    if (rule == TH_CHUNKING_CAPPED && wl->min_chunk_bytes > 0) {
        double most = floor(size / wl->min_chunk_bytes);
        if (most < (double)n) n = most < 1 ? 1 : (int64_t)most;
    }
    return n;
}

/* ASTRA-sim 1.0 text workloads in: the header line, the layer count and one line of twelve
 * fields per layer, every bad input an error naming the file, the line and the field. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "themis/astra1_workload.h"
#include "themis/str.h"

const char *const th_a1_parallelism_names[] = {"DATA",
                                               "MODEL",
                                               "HYBRID_DATA_MODEL",
                                               "HYBRID_MODEL_DATA",
                                               "HYBRID_TRANSFORMER",
                                               "HYBRID_DLRM",
                                               "MICRO",
                                               "HYBRID_DLRM_ENHANCED",
                                               "DISTRIBUTED_INFERENCE",
                                               "HYBRID_CUSTOMIZED",
                                               "HYBRID_TRANSFORMER_FWD_IN_BCKWD",
                                               NULL};

/* The collective keywords, in th_coll_type order, then NONE. */
static const char *const types[] = {"ALLREDUCE", "REDUCESCATTER", "ALLGATHER",
                                    "ALLTOALL",  "NONE",          NULL};

#define FIELDS     12
#define MAX_INT    9007199254740992.0 /* 2^53: every integer up to it is exact in a double */
#define MAX_LAYERS 1000000
#define MAX_TOKS   1024 /* a line's fields: the FWD_IN_BCKWD header lists layers */

static const char *const field_names[FIELDS + 1] = {"name",
                                                    "reserved",
                                                    "forward compute",
                                                    "forward comm type",
                                                    "forward comm size",
                                                    "input-grad compute",
                                                    "input-grad comm type",
                                                    "input-grad comm size",
                                                    "weight-grad compute",
                                                    "weight-grad comm type",
                                                    "weight-grad comm size",
                                                    "update delay",
                                                    "layer parallelism"};

int th_a1_is_text(const char *text, size_t len) {
    size_t i = 0;
    if (len >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3)) i = 3; /* a UTF-8 byte-order mark */
    while (i < len && text[i] && strchr(" \t\r\n\f\v", text[i]))
        i++;
    return i < len && text[i] != '{';
}

void th_a1_free(th_a1_workload *wl) {
    if (!wl) return;
    free(wl->layers);
    free(wl);
}

/* One line cut into whitespace-separated tokens (in place). */
typedef struct line {
    int no; /* 1-based */
    char *tok[MAX_TOKS];
    int n; /* tokens; more than MAX_TOKS counts on */
} line;

typedef struct reader {
    char *p, *end;
    int no;
} reader;

/* The next non-blank line, or 0 at the end. */
static int next_line(reader *r, line *l) {
    while (r->p < r->end) {
        char *s = r->p, *e = memchr(s, '\n', (size_t)(r->end - s));
        if (!e) e = r->end;
        r->p = e < r->end ? e + 1 : e;
        r->no++;
        *e = '\0';
        l->no = r->no;
        l->n = 0;
        char *save = NULL;
        for (char *t = strtok_r(s, " \t\r\f\v", &save); t; t = strtok_r(NULL, " \t\r\f\v", &save)) {
            if (l->n < MAX_TOKS) l->tok[l->n] = t;
            l->n++;
        }
        if (l->n > 0) return 1;
    }
    return 0;
}

/* A printable copy of a token for a message. */
static const char *shown(char *buf, size_t n, const char *s) {
    size_t k = 0;
    for (; *s && k + 5 < n; s++) {
        unsigned char c = (unsigned char)*s;
        if (c < 0x20 || c >= 0x7f)
            k += (size_t)snprintf(buf + k, n - k, "\\x%02X", c);
        else
            buf[k++] = (char)c;
    }
    if (*s && k + 4 <= n) memcpy(buf + k, "...", 4), k += 3;
    buf[k < n ? k : n - 1] = '\0';
    return buf;
}

/* A non-negative decimal integer up to 2^53 (or, with neg, any integer of that size). */
static int integer(const char *s, int neg, double *out) {
    const char *q = s;
    if (neg && *q == '-') q++;
    if (!*q) return -1;
    for (const char *c = q; *c; c++)
        if (*c < '0' || *c > '9') return -1;
    /* compared as digits: strtod rounds 2^53 + 1 down to 2^53, which would pass */
    while (q[0] == '0' && q[1])
        q++;
    size_t nd = strlen(q);
    if (nd > 16 || (nd == 16 && strcmp(q, "9007199254740992") > 0)) return -1;
    errno = 0;
    double v = strtod(s, NULL);
    if (errno || v > MAX_INT || v < -MAX_INT) return -1;
    *out = v;
    return 0;
}

static int bad_field(th_error *err, const char *src, const line *l, int f, const char *expected) {
    char b[80];
    return th_error_set(err, TH_EINPUT, "%s:%d: field %d (%s): expected %s, got '%s'", src, l->no,
                        f + 1, field_names[f], expected, shown(b, sizeof b, l->tok[f]));
}

/* A HYBRID_CUSTOMIZED layer's own parallelism: one whose dims need no model group. */
static int layer_par(const line *l, th_a1_layer *ly, const char *src, th_error *err) {
    static const char *const ok[] = {"DATA",
                                     "MODEL",
                                     "HYBRID_DATA_MODEL",
                                     "HYBRID_MODEL_DATA",
                                     "HYBRID_DLRM",
                                     "HYBRID_DLRM_ENHANCED",
                                     "MICRO",
                                     "DISTRIBUTED_INFERENCE",
                                     NULL};
    const char *t = l->tok[FIELDS];
    if (th_name_find(ok, t) < 0)
        return bad_field(err, src, l, FIELDS,
                         !strcmp(t, "HYBRID_TRANSFORMER")
                             ? "a parallelism without a model group (ASTRA-sim splits dims with "
                               "a group of -1 here)"
                             : "DATA, MODEL, HYBRID_DATA_MODEL, HYBRID_MODEL_DATA, HYBRID_DLRM, "
                               "HYBRID_DLRM_ENHANCED, MICRO or DISTRIBUTED_INFERENCE");
    ly->par = (th_a1_parallelism)th_name_find(th_a1_parallelism_names, t);
    return TH_OK;
}

static int parse_layer(const line *l, int custom, th_a1_layer *ly, const char *src, th_error *err) {
    int want = FIELDS + custom;
    if (l->n != want)
        return th_error_set(err, TH_EINPUT,
                            "%s:%d: expected %d fields (name, reserved, then compute, comm type "
                            "and comm size for forward, input gradient and weight gradient, then "
                            "the update delay%s), got %d: %s",
                            src, l->no, want, custom ? " and the layer's parallelism" : "", l->n,
                            l->n < want ? "a field is missing" : "an extra field");
    if (custom && layer_par(l, ly, src, err)) return err->code;
    char b[80];
    if (strlen(l->tok[0]) >= sizeof ly->name)
        return th_error_set(err, TH_EINPUT,
                            "%s:%d: field 1 (name): at most %zu characters, got '%s'", src, l->no,
                            sizeof ly->name - 1, shown(b, sizeof b, l->tok[0]));
    snprintf(ly->name, sizeof ly->name, "%s", l->tok[0]);
    ly->line = l->no;
    double dep;
    if (integer(l->tok[1], 1, &dep)) return bad_field(err, src, l, 1, "an integer");
    for (int p = 0; p < TH_NPHASES; p++) {
        int f = 2 + 3 * p;
        th_a1_phase *ph = &ly->ph[p];
        if (integer(l->tok[f], 0, &ph->cycles))
            return bad_field(err, src, l, f, "a whole number of cycles >= 0 (at most 2^53)");
        int t = th_name_find(types, l->tok[f + 1]);
        if (t < 0) {
            if (!strcmp(l->tok[f + 1], "ALLREDUCEALLTOALL"))
                return th_error_set(err, TH_EINPUT,
                                    "%s:%d: field %d (%s): ALLREDUCEALLTOALL is read by ASTRA-sim "
                                    "1.0 but aborts it when issued (no phase implements it)",
                                    src, l->no, f + 2, field_names[f + 1]);
            return bad_field(err, src, l, f + 1,
                             "ALLREDUCE, REDUCESCATTER, ALLGATHER, ALLTOALL or NONE");
        }
        ph->type = types[t + 1] ? t : TH_A1_NONE;
        if (integer(l->tok[f + 2], 0, &ph->size))
            return bad_field(err, src, l, f + 2, "a whole number of bytes >= 0 (at most 2^53)");
    }
    if (integer(l->tok[11], 0, &ly->update))
        return bad_field(err, src, l, 11, "a whole number of cycles >= 0 (at most 2^53)");
    return TH_OK;
}

/* The header line: the parallelism keyword and its arguments. */
/* 'model_parallel_NPU_group: G' in tokens 1 and 2 of the header. */
static int group(const line *l, th_a1_workload *wl, const char *src, th_error *err) {
    char b[80];
    double v;
    if (strcmp(l->tok[1], "model_parallel_NPU_group:"))
        return th_error_set(err, TH_EINPUT,
                            "%s:%d: %s: expected 'model_parallel_NPU_group:', got '%s'", src, l->no,
                            l->tok[0], shown(b, sizeof b, l->tok[1]));
    if (integer(l->tok[2], 0, &v) || v < 1)
        return th_error_set(err, TH_EINPUT,
                            "%s:%d: model_parallel_NPU_group: expected a whole number of NPUs "
                            ">= 1, got '%s'",
                            src, l->no, shown(b, sizeof b, l->tok[2]));
    wl->group = (int64_t)v;
    return TH_OK;
}

/* A list 'NAME N i1 .. iN' of layer indices at token *at; moves *at past it. */
static int layer_list(const line *l, int *at, const char *name, const char *src, th_error *err) {
    char b[80];
    double n, v;
    if (*at + 1 >= l->n || strcmp(l->tok[*at], name))
        return th_error_set(err, TH_EINPUT,
                            "%s:%d: HYBRID_TRANSFORMER_FWD_IN_BCKWD: expected '%s N' and N "
                            "layers, got '%s'",
                            src, l->no, name, *at < l->n ? shown(b, sizeof b, l->tok[*at]) : "");
    if (integer(l->tok[*at + 1], 0, &n) || *at + 2 + n > l->n)
        return th_error_set(err, TH_EINPUT,
                            "%s:%d: %s expected a count and that many layers, got '%s'", src, l->no,
                            name, shown(b, sizeof b, l->tok[*at + 1]));
    for (int i = 0; i < (int)n; i++)
        if (integer(l->tok[*at + 2 + i], 0, &v))
            return th_error_set(err, TH_EINPUT, "%s:%d: %s expected layer indices >= 0, got '%s'",
                                src, l->no, name, shown(b, sizeof b, l->tok[*at + 2 + i]));
    *at += 2 + (int)n;
    return TH_OK;
}

/* HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: G checkpoints: N ...
 * checkpoint_initiates: M ...: the lists are checked here, set once the layers are read. */
static int fib_header(const line *l, th_a1_workload *wl, const char *src, th_error *err) {
    if (l->n > MAX_TOKS)
        return th_error_set(err, TH_EINPUT, "%s:%d: more than %d fields", src, l->no, MAX_TOKS);
    if (l->n < 3)
        return th_error_set(err, TH_EINPUT,
                            "%s:%d: %s: expected 'model_parallel_NPU_group: G' after the keyword",
                            src, l->no, l->tok[0]);
    if (group(l, wl, src, err)) return err->code;
    int at = 3;
    if (layer_list(l, &at, "checkpoints:", src, err) ||
        layer_list(l, &at, "checkpoint_initiates:", src, err))
        return err->code;
    if (at != l->n)
        return th_error_set(err, TH_EINPUT, "%s:%d: a field after checkpoint_initiates' layers",
                            src, l->no);
    return TH_OK;
}

/* The checkpoint flags of the header's lists; every initiating layer needs a checkpoint below
 * it (ASTRA-sim walks down to one: none reads below layer 0, one at the layer itself
 * recomputes past it). */
static int fib_flags(const line *h, th_a1_workload *wl, const char *src, th_error *err) {
    int at = 3;
    for (int list = 0; list < 2; list++) {
        int n = atoi(h->tok[at + 1]);
        for (int i = 0; i < n; i++) {
            double v = strtod(h->tok[at + 2 + i], NULL);
            if (v >= wl->nlayers)
                return th_error_set(err, TH_EINPUT,
                                    "%s:%d: %s layer %.0f is not a layer (the workload has %d: "
                                    "0 .. %d)",
                                    src, h->no, h->tok[at], v, wl->nlayers, wl->nlayers - 1);
            if (list == 0)
                wl->layers[(int)v].checkpoint = 1;
            else
                wl->layers[(int)v].initiates = 1;
        }
        at += 2 + n;
    }
    for (int a = 0; a < wl->nlayers; a++) {
        if (!wl->layers[a].initiates) continue;
        int c = a;
        while (c >= 0 && !wl->layers[c].checkpoint)
            c--;
        if (c < 0 || c == a)
            return th_error_set(err, TH_EINPUT,
                                "%s:%d: checkpoint_initiates layer %d: %s (ASTRA-sim recomputes "
                                "the forwards from the nearest checkpoint at or below it, up to "
                                "the layer before it)",
                                src, h->no, a,
                                c < 0 ? "no checkpoint at or below it"
                                      : "is a checkpoint itself, so nothing lies between");
    }
    return TH_OK;
}

static int parse_header(const line *l, th_a1_workload *wl, const char *src, th_error *err) {
    char b[80];
    int k = th_name_find(th_a1_parallelism_names, l->tok[0]);
    if (k < 0)
        return th_error_set(err, TH_EINPUT,
                            "%s:%d: parallelism: expected DATA, MODEL, HYBRID_DATA_MODEL, "
                            "HYBRID_MODEL_DATA, HYBRID_TRANSFORMER, HYBRID_DLRM, "
                            "HYBRID_DLRM_ENHANCED, DISTRIBUTED_INFERENCE, HYBRID_CUSTOMIZED, "
                            "HYBRID_TRANSFORMER_FWD_IN_BCKWD or MICRO, got '%s'",
                            src, l->no, shown(b, sizeof b, l->tok[0]));
    wl->par = (th_a1_parallelism)k;
    wl->line = l->no;
    if (k == TH_A1_HYBRID_TRANSFORMER_FWD_IN_BCKWD) return fib_header(l, wl, src, err);
    int dlrm = th_a1_dlrm(wl->par), want = k == TH_A1_HYBRID_TRANSFORMER ? 3 : dlrm ? 2 : 1;
    if (l->n != want) {
        if (k == TH_A1_HYBRID_TRANSFORMER)
            return th_error_set(err, TH_EINPUT,
                                "%s:%d: HYBRID_TRANSFORMER: expected "
                                "'model_parallel_NPU_group: G' after the keyword, got %d fields",
                                src, l->no, l->n - 1);
        if (dlrm)
            return th_error_set(err, TH_EINPUT,
                                "%s:%d: %s: expected the last bottom-MLP layer after the keyword, "
                                "got %d fields",
                                src, l->no, l->tok[0], l->n - 1);
        return th_error_set(err, TH_EINPUT, "%s:%d: %s takes no field after it, got '%s'", src,
                            l->no, l->tok[0], shown(b, sizeof b, l->tok[1]));
    }
    double v;
    if (k == TH_A1_HYBRID_TRANSFORMER) {
        if (group(l, wl, src, err)) return err->code;
    } else if (dlrm) {
        if (integer(l->tok[1], 0, &v) || v >= MAX_LAYERS)
            return th_error_set(err, TH_EINPUT,
                                "%s:%d: %s: the last bottom-MLP layer: expected a layer index >= "
                                "0, got '%s'",
                                src, l->no, l->tok[0], shown(b, sizeof b, l->tok[1]));
        wl->last_bottom = (int)v;
    }
    return TH_OK;
}

/* The layer count and the layers after the header h. */
static int layers(reader *rp, const line *h, th_a1_workload *wl, const char *src, th_error *err) {
    reader r = *rp;
    line l;
    int header = h->no;
    char b[80];
    double n;
    if (!next_line(&r, &l))
        return th_error_set(err, TH_EINPUT, "%s:%d: expected the layer count on the next line", src,
                            header);
    if (l.n != 1 || integer(l.tok[0], 0, &n) || n < 1 || n > MAX_LAYERS)
        return th_error_set(
            err, TH_EINPUT,
            "%s:%d: layer count: expected one whole number from 1 to %d, got '%s'%s", src, l.no,
            MAX_LAYERS, shown(b, sizeof b, l.tok[0]), l.n != 1 ? " and more" : "");
    int count = l.no;
    wl->nlayers = (int)n;
    if (th_a1_dlrm(wl->par) && wl->last_bottom >= wl->nlayers)
        return th_error_set(err, TH_EINPUT,
                            "%s:%d: %s: the last bottom-MLP layer %d is not a layer (the workload "
                            "has %d: 0 .. %d)",
                            src, header, th_a1_parallelism_names[wl->par], wl->last_bottom,
                            wl->nlayers, wl->nlayers - 1);
    wl->layers = calloc((size_t)wl->nlayers, sizeof *wl->layers);
    if (!wl->layers) return th_error_set(err, TH_EINTERNAL, "out of memory");
    for (int i = 0; i < wl->nlayers; i++) {
        if (!next_line(&r, &l))
            return th_error_set(err, TH_EINPUT,
                                "%s: the layer count (line %d) says %d layers, the file has %d",
                                src, count, wl->nlayers, i);
        if (parse_layer(&l, wl->par == TH_A1_HYBRID_CUSTOMIZED, &wl->layers[i], src, err))
            return err->code;
    }
    if (next_line(&r, &l))
        return th_error_set(err, TH_EINPUT,
                            "%s:%d: a line after the %d layers the layer count (line %d) says", src,
                            l.no, wl->nlayers, count);
    if (wl->par == TH_A1_HYBRID_TRANSFORMER_FWD_IN_BCKWD) return fib_flags(h, wl, src, err);
    return TH_OK;
}

static int parse(char *text, size_t len, const char *src, th_a1_workload *wl, th_error *err) {
    reader r = {text, text + len, 0};
    if (len >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3)) r.p += 3;
    if (memchr(text, '\0', len))
        return th_error_set(err, TH_EINPUT, "%s: a NUL byte: not a text workload", src);
    line l;
    if (!next_line(&r, &l))
        return th_error_set(err, TH_EINPUT, "%s: empty: expected the parallelism line", src);
    if (parse_header(&l, wl, src, err)) return err->code;
    line *h = malloc(sizeof *h); /* the header, for FWD_IN_BCKWD's lists */
    if (!h) return th_error_set(err, TH_EINTERNAL, "out of memory");
    *h = l;
    int rc = layers(&r, h, wl, src, err);
    free(h);
    return rc;
}

int th_a1_parse(const char *text, size_t len, const char *source, th_a1_workload **out,
                th_error *err) {
    *out = NULL;
    th_a1_workload *wl = calloc(1, sizeof *wl);
    char *copy = malloc(len + 1);
    if (!wl || !copy) {
        free(wl);
        free(copy);
        return th_error_set(err, TH_EINTERNAL, "out of memory");
    }
    memcpy(copy, text, len);
    copy[len] = '\0';
    th_base_name(source, NULL, wl->name, sizeof wl->name);
    int rc = parse(copy, len, source, wl, err);
    free(copy);
    if (rc) {
        th_a1_free(wl);
        return rc;
    }
    *out = wl;
    return TH_OK;
}

int th_a1_load(const char *path, th_a1_workload **text, th_workload **json, th_error *err) {
    char *buf;
    size_t len;
    *text = NULL;
    *json = NULL;
    if (th_json_read_file(path, &buf, &len, err)) return err->code;
    const char *src = strcmp(path, "-") ? path : "<stdin>";
    int rc = th_a1_is_text(buf, len) ? th_a1_parse(buf, len, src, text, err)
                                     : th_workload_parse(buf, len, src, json, err);
    free(buf);
    return rc;
}

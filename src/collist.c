/* Weighted collective lists: reading and validating the JSON file of themis optimize -l. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "themis/collist.h"
#include "themis/units.h"

static const char *const top_keys[] = {"description", "collectives", NULL};
static const char *const item_keys[] = {"type", "size", "chunks", "dims", "weight", NULL};

static int parse_item(const cJSON *c, th_collist_item *it, const char *src, const char *path,
                      th_error *err) {
    if (!cJSON_IsObject(c)) return th_json_bad(err, src, path, "an object", c);
    if (th_json_check_keys(c, item_keys, src, path, err)) return err->code;
    char p[256];
    memset(it, 0, sizeof *it);
    th_json_path(p, sizeof p, path, "type");
    if (!cJSON_GetObjectItemCaseSensitive(c, "type"))
        return th_error_set(err, TH_EINPUT,
                            "%s: %s: missing (allreduce, reducescatter, allgather or alltoall)",
                            src, p);
    int t = 0;
    if (th_json_enum(c, "type", th_coll_type_names, &t, src, path, err)) return err->code;
    it->coll.type = (th_coll_type)t;

    th_json_path(p, sizeof p, path, "size");
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(c, "size");
    th_error e;
    if (!s)
        return th_error_set(err, TH_EINPUT, "%s: %s: missing (bytes, or a size such as \"64MiB\")",
                            src, p);
    if (cJSON_IsString(s)) {
        if (th_units_parse_size(s->valuestring, p, &it->coll.size, &e))
            return th_error_set(err, TH_EINPUT, "%s: %s", src, e.msg);
    } else if (!cJSON_IsNumber(s) || th_units_check_size(s->valuedouble, p, &e)) {
        return th_json_bad(err, src, p, "a size from 1 byte to 1 EiB", s);
    } else {
        it->coll.size = s->valuedouble;
    }

    th_json_path(p, sizeof p, path, "chunks");
    const cJSON *n = cJSON_GetObjectItemCaseSensitive(c, "chunks");
    if (n) {
        if (!cJSON_IsNumber(n) || n->valuedouble < 1 || n->valuedouble > TH_MAX_CHUNKS ||
            n->valuedouble != floor(n->valuedouble))
            return th_json_bad(err, src, p, "an integer from 1 to 1000000", n);
        it->coll.chunks = (int64_t)n->valuedouble;
    }

    th_json_path(p, sizeof p, path, "dims");
    const cJSON *d = cJSON_GetObjectItemCaseSensitive(c, "dims");
    if (d) {
        if (!cJSON_IsArray(d) || cJSON_GetArraySize(d) == 0)
            return th_json_bad(err, src, p, "a non-empty list of dim indices", d);
        for (const cJSON *x = d->child; x; x = x->next) {
            if (!cJSON_IsNumber(x) || x->valuedouble < 0 || x->valuedouble >= TH_MAX_DIMS ||
                x->valuedouble != floor(x->valuedouble))
                return th_json_bad(err, src, p, "dim indices from 0 to 15", x);
            uint32_t bit = 1u << (int)x->valuedouble;
            if (it->coll.dims_mask & bit)
                return th_error_set(err, TH_EINPUT, "%s: %s: dim %d listed twice", src, p,
                                    (int)x->valuedouble);
            it->coll.dims_mask |= bit;
        }
    }

    it->weight = 1;
    th_json_path(p, sizeof p, path, "weight");
    const cJSON *w = cJSON_GetObjectItemCaseSensitive(c, "weight");
    if (w && (!cJSON_IsNumber(w) || !(w->valuedouble > 0) || w->valuedouble > 1e12))
        return th_json_bad(err, src, p, "a number > 0 and at most 1e12", w);
    if (w) it->weight = w->valuedouble;
    return TH_OK;
}

int th_collist_parse(const char *text, size_t len, const char *src, th_collist *out,
                     th_error *err) {
    memset(out, 0, sizeof *out);
    cJSON *root;
    if (th_json_parse(text, len, src, &root, err)) return err->code;
    int rc = TH_OK;
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(root, "collectives");
    if (!cJSON_IsObject(root)) {
        rc = th_json_bad(err, src, "(top level)", "an object with \"collectives\"", root);
    } else if (th_json_expect_kind(root, "a list of collectives", src, err) ||
               th_json_check_keys(root, top_keys, src, "", err)) {
        rc = err->code;
    } else if (!list) {
        rc = th_error_set(err, TH_EINPUT,
                          "%s: collectives: missing (a list of {\"type\", \"size\", "
                          "\"weight\"} objects)",
                          src);
    } else if (!cJSON_IsArray(list) || cJSON_GetArraySize(list) == 0 ||
               cJSON_GetArraySize(list) > TH_COLLIST_MAX) {
        rc = th_json_bad(err, src, "collectives", "a list of 1 to 4096 collectives", list);
    } else {
        int n = cJSON_GetArraySize(list);
        out->items = calloc((size_t)n, sizeof *out->items);
        if (!out->items) rc = th_error_set(err, TH_EINTERNAL, "out of memory");
        int i = 0;
        for (const cJSON *c = list->child; c && rc == TH_OK; c = c->next, i++) {
            char p[64];
            snprintf(p, sizeof p, "collectives[%d]", i);
            rc = parse_item(c, &out->items[i], src, p, err);
        }
        out->n = i;
    }
    cJSON_Delete(root);
    if (rc) th_collist_free(out);
    return rc;
}

int th_collist_load(const char *path, th_collist *out, th_error *err) {
    memset(out, 0, sizeof *out);
    char *text;
    size_t len;
    if (th_json_read_file(path, &text, &len, err)) return err->code;
    int rc = th_collist_parse(text, len, strcmp(path, "-") ? path : "<stdin>", out, err);
    free(text);
    return rc;
}

int th_collist_check(th_collist *l, const th_system *sys, int64_t chunks, const char *src,
                     th_error *err) {
    for (int i = 0; i < l->n; i++) {
        th_collective *c = &l->items[i].coll;
        if (!c->chunks) c->chunks = chunks;
        th_error e;
        if (th_collective_validate(sys, c, &e))
            return th_error_set(err, e.code, "%s: collectives[%d]: %s", src, i, e.msg);
    }
    return TH_OK;
}

void th_collist_free(th_collist *l) {
    free(l->items);
    memset(l, 0, sizeof *l);
}

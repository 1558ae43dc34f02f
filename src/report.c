/* Results out: the comparison table, JSON and CSV of `themis run`, and the per-stage trace.
 * Numbers are printed with the fewest digits that read back to the same double. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "report_internal.h"
#include "themis/csv.h"
#include "themis/text.h"
#include "themis/units.h"

static uint32_t involved(const th_report *rep) {
    uint32_t all = (1u << rep->sys->ndims) - 1u;
    return rep->coll->dims_mask ? rep->coll->dims_mask : all;
}

int th_report_done(FILE *out, th_error *err) {
    if (fflush(out) != 0 || ferror(out))
        return th_error_set(err, TH_EIO, "write error: %s", strerror(errno ? errno : EIO));
    return TH_OK;
}

/* Table cells: 10 significant digits, within 5e-10 relative of the value. */
static const char *cell(char *buf, double v) {
    snprintf(buf, 32, isnan(v) ? "-" : "%.10g", v);
    return buf;
}

/* " (1 GiB)" when the size is a whole number of a binary unit, else nothing. */
static void pretty_size(char *buf, size_t n, double s) {
    char unit[40];
    if (th_units_size_text(s, unit, sizeof unit))
        snprintf(buf, n, " (%s)", unit);
    else
        buf[0] = '\0';
}

const char *const th_format_names[] = {"table", "json", "csv", "jsonl", NULL};

/* JSON is UTF-8 (RFC 8259) and cJSON copies a string's bytes as they are: a name no input check
 * saw (from argv, from a text workload) has its invalid bytes replaced by U+FFFD, so that no
 * output is ever invalid JSON. 0, or -1 when memory ran out. */
static int repair(char **s) {
    if (!*s || th_text_utf8_bad(*s, strlen(*s)) == strlen(*s)) return 0;
    char *fixed = th_text_utf8_repair(*s);
    if (!fixed) return -1;
    free(*s); /* cJSON's default allocator: malloc */
    *s = fixed;
    return 0;
}

int th_report_json_utf8(cJSON *node) {
    if (!(node->type & cJSON_StringIsConst) && repair(&node->string)) return -1;
    return cJSON_IsString(node) ? repair(&node->valuestring) : 0;
}

/* cJSON prints a number with 15 digits when they read back within DBL_EPSILON, not exactly
 * (0.1 + 0.2 comes out as 0.3): every number of the tree becomes the text th_num_format gives,
 * the fewest digits that read back to the same double, as the CSV has them (a non-finite one,
 * which JSON cannot hold, becomes null, as cJSON prints it). 0, or -1 when memory ran out. */
int th_report_json_exact(cJSON *node) {
    for (; node; node = node->next) {
        if (th_report_json_exact(node->child) || th_report_json_utf8(node)) return -1;
        if (!cJSON_IsNumber(node)) continue;
        double v = node->valuedouble;
        if (!isfinite(v)) {
            node->type = cJSON_NULL;
            continue;
        }
        char buf[32];
        th_num_format(buf, v);
        char *text = malloc(strlen(buf) + 1);
        if (!text) return -1;
        strcpy(text, buf);
        node->type = cJSON_Raw;
        node->valuestring = text;
    }
    return 0;
}

int th_report_write_json(FILE *out, cJSON *root, th_error *err) {
    if (!root) return th_error_set(err, TH_EINTERNAL, "out of memory building JSON");
    char *text = th_report_json_exact(root) ? NULL : cJSON_Print(root);
    cJSON_Delete(root);
    if (!text) return th_error_set(err, TH_EINTERNAL, "out of memory printing JSON");
    fputs(text, out);
    fputc('\n', out);
    cJSON_free(text);
    return th_report_done(out, err);
}

int th_report_write_jsonl(FILE *out, cJSON *root, const char *key, th_error *err) {
    if (!root) return th_error_set(err, TH_EINTERNAL, "out of memory building JSON");
    const cJSON *item;
    int rc = TH_OK;
    if (th_report_json_exact(root))
        rc = th_error_set(err, TH_EINTERNAL, "out of memory printing JSON");
    const cJSON *items = rc ? NULL : cJSON_GetObjectItemCaseSensitive(root, key);
    cJSON_ArrayForEach(item, items) {
        char *text = cJSON_PrintUnformatted(item);
        if (!text) {
            rc = th_error_set(err, TH_EINTERNAL, "out of memory printing JSON");
            break;
        }
        fputs(text, out);
        fputc('\n', out);
        cJSON_free(text);
    }
    cJSON_Delete(root);
    return rc ? rc : th_report_done(out, err);
}

void th_table_col(th_table *t, int width, int left) {
    if (t->ncols >= TH_TABLE_COLS) return;
    t->width[t->ncols] = width;
    t->left[t->ncols++] = left;
}

void th_table_cell(th_table *t, const char *text) {
    int row = t->next / t->ncols, col = t->next % t->ncols;
    t->next++;
    if (row >= TH_TABLE_ROWS) return;
    snprintf(t->cell[row][col], TH_TABLE_CELL, "%s", text);
    int len = (int)strlen(t->cell[row][col]);
    if (len > t->width[col]) t->width[col] = len;
    t->nrows = row + 1;
}

void th_table_print(FILE *out, const th_table *t) {
    for (int r = 0; r < t->nrows; r++) {
        for (int c = 0; c < t->ncols; c++)
            fprintf(out, c ? (t->left[c] ? " %-*s" : " %*s") : (t->left[c] ? "%-*s" : "%*s"),
                    t->width[c], t->cell[r][c]);
        fputc('\n', out);
    }
}

int th_report_table(FILE *out, const th_report *rep, th_error *err) {
    const th_system *sys = rep->sys;
    char a[32], b[32], pretty[48], name[TH_TABLE_CELL];
    pretty_size(pretty, sizeof pretty, rep->coll->size);
    fprintf(out, "%s of %s bytes%s in %lld chunks on %s (%d dims, %s NPUs), load model %s\n",
            th_coll_type_name(rep->coll->type), th_num_format(a, rep->coll->size), pretty,
            (long long)rep->coll->chunks, th_text_escape(name, sizeof name, sys->name), sys->ndims,
            th_num_format(b, sys->npus), th_load_model_name(rep->model));
    if (rep->npairs > 0)
        fprintf(out, "ideal (every involved dim busy all the time): %s us\n",
                cell(a, rep->results[0].ideal / 1000.0));
    if (rep->bound > 0)
        fprintf(out, "bound (no mix of chunk orders is faster): %s us\n",
                cell(a, rep->bound / 1000.0));
    int lat = rep->ideal_lat && rep->npairs > 0;
    if (lat)
        fprintf(out, "ideal with latency floors (plus one chunk's link latencies): %s us\n",
                cell(a, (rep->results[0].ideal + rep->lat_floor) / 1000.0));
    if (rep->npairs > 0 || rep->bound > 0) fputc('\n', out);
    th_table *t = calloc(2, sizeof *t);
    if (!t) return th_error_set(err, TH_EINTERNAL, "out of memory");
    th_table_col(&t[0], 11, 1);
    th_table_col(&t[0], 5, 1);
    for (int k = 0; k < 3 + (rep->bound > 0) + lat; k++)
        th_table_col(&t[0], 14, 0);
    th_table_cell(&t[0], "policy");
    th_table_cell(&t[0], "intra");
    th_table_cell(&t[0], "time_us");
    th_table_cell(&t[0], "bw_util");
    th_table_cell(&t[0], "speedup");
    if (rep->bound > 0) th_table_cell(&t[0], "vs_bound");
    if (lat) th_table_cell(&t[0], "vs_ideal_lat");
    for (int i = 0; i < rep->npairs; i++) {
        const th_result *r = &rep->results[i];
        th_table_cell(&t[0], th_policy_name(rep->pairs[i].policy));
        th_table_cell(&t[0], th_intra_name(rep->pairs[i].intra));
        th_table_cell(&t[0], cell(a, r->time / 1000.0));
        th_table_cell(&t[0], cell(a, r->bw_util));
        th_table_cell(&t[0], cell(a, r->speedup));
        if (rep->bound > 0) th_table_cell(&t[0], cell(a, rep->bound / r->time));
        if (lat) th_table_cell(&t[0], cell(a, (r->ideal + rep->lat_floor) / r->time));
    }
    th_table_print(out, &t[0]);
    fprintf(out, "\nper-dim bw_util (bytes / (B * time)):\n");
    uint32_t mask = involved(rep);
    th_table_col(&t[1], 11, 1);
    th_table_col(&t[1], 5, 1);
    for (int d = 0; d < sys->ndims; d++)
        if ((mask >> d) & 1u) th_table_col(&t[1], 14, 0);
    th_table_cell(&t[1], "policy");
    th_table_cell(&t[1], "intra");
    for (int d = 0; d < sys->ndims; d++) {
        if (!((mask >> d) & 1u)) continue;
        char head[TH_TABLE_CELL];
        snprintf(head, sizeof head, "%d:%s", d,
                 th_text_escape(name, sizeof name, sys->dims[d].name));
        th_table_cell(&t[1], head);
    }
    for (int i = 0; i < rep->npairs; i++) {
        th_table_cell(&t[1], th_policy_name(rep->pairs[i].policy));
        th_table_cell(&t[1], th_intra_name(rep->pairs[i].intra));
        for (int d = 0; d < sys->ndims; d++)
            if ((mask >> d) & 1u) th_table_cell(&t[1], cell(a, rep->results[i].dim_util[d]));
    }
    th_table_print(out, &t[1]);
    free(t);
    return th_report_done(out, err);
}

cJSON *th_report_system_json(const th_system *sys, int type) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", sys->name);
    cJSON_AddNumberToObject(o, "npus", sys->npus);
    if (sys->reduce_bw > 0) cJSON_AddNumberToObject(o, "reduce_GBps", sys->reduce_bw);
    cJSON *dims = cJSON_AddArrayToObject(o, "dims");
    for (int d = 0; d < sys->ndims; d++) {
        const th_dim *x = &sys->dims[d];
        cJSON *j = cJSON_CreateObject();
        cJSON_AddStringToObject(j, "name", x->name);
        cJSON_AddStringToObject(j, "topology", th_topology_name(x->topology));
        th_report_dim_algorithms(j, sys, d, type);
        cJSON_AddNumberToObject(j, "npus", (double)x->npus);
        cJSON_AddNumberToObject(j, "bw_GBps", x->bw_GBps);
        cJSON_AddNumberToObject(j, "latency_ns", x->latency);
        cJSON_AddNumberToObject(j, "efficiency", x->efficiency);
        cJSON_AddItemToArray(dims, j);
    }
    return o;
}

/* A run's result row of pair i: the same keys in JSON, JSONL and (flattened) CSV. */
static cJSON *run_row(const th_report *rep, int i) {
    const th_system *sys = rep->sys;
    const th_result *r = &rep->results[i];
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "system", sys->name);
    cJSON_AddStringToObject(o, "type", th_coll_type_name(rep->coll->type));
    cJSON_AddNumberToObject(o, "size_bytes", rep->coll->size);
    cJSON_AddNumberToObject(o, "chunks", (double)rep->coll->chunks);
    cJSON *cd = cJSON_AddArrayToObject(o, "dims");
    uint32_t mask = involved(rep);
    for (int d = 0; d < sys->ndims; d++)
        if ((mask >> d) & 1u) cJSON_AddItemToArray(cd, cJSON_CreateNumber(d));
    cJSON_AddStringToObject(o, "load_model", th_load_model_name(rep->model));
    cJSON_AddStringToObject(o, "policy", th_policy_name(rep->pairs[i].policy));
    cJSON_AddStringToObject(o, "intra", th_intra_name(rep->pairs[i].intra));
    cJSON_AddNumberToObject(o, "time_us", r->time / 1000.0);
    cJSON_AddNumberToObject(o, "ideal_us", r->ideal / 1000.0);
    cJSON_AddNumberToObject(o, "bw_util", r->bw_util);
    cJSON_AddNumberToObject(o, "speedup", r->speedup);
    cJSON_AddNumberToObject(o, "algbw_GBps", r->algbw);
    cJSON_AddNumberToObject(o, "busbw_GBps", r->busbw);
    if (rep->bound > 0) {
        cJSON_AddNumberToObject(o, "bound_us", rep->bound / 1000.0);
        cJSON_AddNumberToObject(o, "vs_bound", rep->bound / r->time);
    }
    if (rep->ideal_lat) {
        cJSON_AddNumberToObject(o, "ideal_lat_us", (r->ideal + rep->lat_floor) / 1000.0);
        cJSON_AddNumberToObject(o, "vs_ideal_lat", (r->ideal + rep->lat_floor) / r->time);
    }
    cJSON *dims = cJSON_AddArrayToObject(o, "per_dim");
    for (int d = 0; d < sys->ndims; d++) {
        cJSON *j = cJSON_CreateObject();
        cJSON_AddStringToObject(j, "name", sys->dims[d].name);
        cJSON_AddNumberToObject(j, "bytes", r->bytes[d]);
        cJSON_AddNumberToObject(j, "busy_us", r->busy[d] / 1000.0);
        cJSON_AddNumberToObject(j, "bw_util", r->dim_util[d]);
        cJSON_AddItemToArray(dims, j);
    }
    return o;
}

/* The JSON document of a run: the system and the collective in full, then the result rows,
 * which are also the lines of JSONL and, flattened, the records of CSV. */
static cJSON *run_json(const th_report *rep) {
    const th_system *sys = rep->sys;
    cJSON *root = cJSON_CreateObject();
    cJSON_AddItemToObject(root, "system", th_report_system_json(sys, (int)rep->coll->type));
    cJSON *coll = cJSON_AddObjectToObject(root, "collective");
    cJSON_AddStringToObject(coll, "type", th_coll_type_name(rep->coll->type));
    cJSON_AddNumberToObject(coll, "size_bytes", rep->coll->size);
    cJSON_AddNumberToObject(coll, "chunks", (double)rep->coll->chunks);
    cJSON *cd = cJSON_AddArrayToObject(coll, "dims");
    uint32_t mask = involved(rep);
    for (int d = 0; d < sys->ndims; d++)
        if ((mask >> d) & 1u) cJSON_AddItemToArray(cd, cJSON_CreateNumber(d));
    cJSON_AddStringToObject(root, "load_model", th_load_model_name(rep->model));
    if (rep->bound > 0) cJSON_AddNumberToObject(root, "bound_us", rep->bound / 1000.0);
    if (rep->ideal_lat) cJSON_AddNumberToObject(root, "latency_floor_us", rep->lat_floor / 1000.0);
    cJSON *results = cJSON_AddArrayToObject(root, "results");
    for (int i = 0; i < rep->npairs; i++)
        cJSON_AddItemToArray(results, run_row(rep, i));
    return root;
}

int th_report_json(FILE *out, const th_report *rep, th_error *err) {
    return th_report_write_json(out, run_json(rep), err);
}

int th_report_jsonl(FILE *out, const th_report *rep, th_error *err) {
    return th_report_write_jsonl(out, run_json(rep), "results", err);
}

int th_report_write(FILE *out, th_format format, const th_report *rep, th_error *err) {
    switch (format) {
    case TH_FORMAT_TABLE: return th_report_table(out, rep, err);
    case TH_FORMAT_JSON: return th_report_json(out, rep, err);
    case TH_FORMAT_CSV: return th_report_csv(out, rep, err);
    case TH_FORMAT_JSONL: return th_report_jsonl(out, rep, err);
    }
    return th_error_set(err, TH_EINTERNAL, "unknown output format %d", (int)format);
}

int th_report_csv(FILE *out, const th_report *rep, th_error *err) {
    return th_report_write_csv(out, run_json(rep), "results", err);
}

void th_report_trace_header(FILE *out) {
    fputs("policy,intra,chunk,stage,op,dim,bytes,ready_us,start_us,end_us\n", out);
}

int th_report_trace_row(FILE *out, th_pair pair, const th_stage_rec *rec) {
    th_buf b = {0};
    int bad = th_csv_field(&b, th_policy_name(pair.policy));
    bad |= th_csv_field(&b, th_intra_name(pair.intra));
    bad |= th_csv_int(&b, (long long)rec->chunk);
    bad |= th_csv_int(&b, rec->stage);
    bad |= th_csv_field(&b, th_op_name(rec->op));
    bad |= th_csv_int(&b, rec->dim);
    bad |= th_csv_num(&b, rec->m);
    bad |= th_csv_num(&b, rec->ready / 1000.0);
    bad |= th_csv_num(&b, rec->start / 1000.0);
    bad |= th_csv_num(&b, rec->end / 1000.0);
    bad |= th_csv_end(&b);
    if (!bad) th_csv_write(out, &b);
    th_buf_free(&b);
    return bad ? -1 : 0;
}

/* Results out: the comparison table, JSON and CSV of `themis run`, and the per-stage trace.
 * Numbers are printed with the fewest digits that read back to the same double. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "report_internal.h"

const char *th_report_num(char *buf, double v) {
    snprintf(buf, 32, "%.15g", v);
    if (strtod(buf, NULL) != v) snprintf(buf, 32, "%.17g", v);
    return buf;
}

char *th_report_csv_text(const char *s) {
    size_t n = strlen(s);
    char *d = malloc(2 * n + 3), *o = d;
    if (!d) return NULL;
    if (!strpbrk(s, ",\"\r\n")) {
        memcpy(d, s, n + 1);
        return d;
    }
    *o++ = '"';
    for (; *s; s++) {
        if (*s == '"') *o++ = '"';
        *o++ = *s;
    }
    *o++ = '"';
    *o = '\0';
    return d;
}

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
    snprintf(buf, 32, "%.10g", v);
    return buf;
}

/* "1 GiB" style, when the size is a whole number of a binary unit. */
static void pretty_size(char *buf, size_t n, double s) {
    static const char *units[] = {"TiB", "GiB", "MiB", "KiB"};
    double scale = 1099511627776.0;
    for (int i = 0; i < 4; i++, scale /= 1024) {
        if (s >= scale && s / scale == (double)(int64_t)(s / scale)) {
            snprintf(buf, n, " (%.15g %s)", s / scale, units[i]);
            return;
        }
    }
    buf[0] = '\0';
}

int th_report_write_json(FILE *out, cJSON *root, th_error *err) {
    char *text = cJSON_Print(root);
    cJSON_Delete(root);
    if (!text) return th_error_set(err, TH_EINTERNAL, "out of memory printing JSON");
    fputs(text, out);
    fputc('\n', out);
    cJSON_free(text);
    return th_report_done(out, err);
}

int th_report_table(FILE *out, const th_report *rep, th_error *err) {
    const th_system *sys = rep->sys;
    char a[32], b[32], c[32], pretty[48];
    pretty_size(pretty, sizeof pretty, rep->coll->size);
    fprintf(out, "%s of %s bytes%s in %lld chunks on %s (%d dims, %s NPUs), load model %s\n",
            th_coll_type_name(rep->coll->type), th_report_num(a, rep->coll->size), pretty,
            (long long)rep->coll->chunks, sys->name, sys->ndims, th_report_num(b, sys->npus),
            th_load_model_name(rep->model));
    if (rep->npairs > 0)
        fprintf(out, "ideal (every involved dim busy all the time): %s us\n\n",
                cell(a, rep->results[0].ideal / 1000.0));
    fprintf(out, "%-11s %-5s %14s %14s %14s\n", "policy", "intra", "time_us", "bw_util", "speedup");
    for (int i = 0; i < rep->npairs; i++) {
        const th_result *r = &rep->results[i];
        fprintf(out, "%-11s %-5s %14s %14s %14s\n", th_policy_name(rep->pairs[i].policy),
                th_intra_name(rep->pairs[i].intra), cell(a, r->time / 1000.0), cell(b, r->bw_util),
                cell(c, r->speedup));
    }
    fprintf(out, "\nper-dim bw_util (bytes / (B * time)):\n%-11s %-5s", "policy", "intra");
    uint32_t mask = involved(rep);
    for (int d = 0; d < sys->ndims; d++) {
        if (!((mask >> d) & 1u)) continue;
        char head[TH_NAME_MAX + 16];
        snprintf(head, sizeof head, "%d:%s", d, sys->dims[d].name);
        fprintf(out, " %14.14s", head);
    }
    fputc('\n', out);
    for (int i = 0; i < rep->npairs; i++) {
        fprintf(out, "%-11s %-5s", th_policy_name(rep->pairs[i].policy),
                th_intra_name(rep->pairs[i].intra));
        for (int d = 0; d < sys->ndims; d++)
            if ((mask >> d) & 1u) fprintf(out, " %14s", cell(a, rep->results[i].dim_util[d]));
        fputc('\n', out);
    }
    return th_report_done(out, err);
}

cJSON *th_report_system_json(const th_system *sys) {
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
        cJSON_AddStringToObject(j, "algorithm", th_algorithm_name(x->algorithm));
        cJSON_AddNumberToObject(j, "npus", (double)x->npus);
        cJSON_AddNumberToObject(j, "bw_GBps", x->bw_GBps);
        cJSON_AddNumberToObject(j, "latency_ns", x->latency);
        cJSON_AddNumberToObject(j, "efficiency", x->efficiency);
        cJSON_AddItemToArray(dims, j);
    }
    return o;
}

int th_report_json(FILE *out, const th_report *rep, th_error *err) {
    const th_system *sys = rep->sys;
    cJSON *root = cJSON_CreateObject();
    cJSON_AddItemToObject(root, "system", th_report_system_json(sys));
    cJSON *coll = cJSON_AddObjectToObject(root, "collective");
    cJSON_AddStringToObject(coll, "type", th_coll_type_name(rep->coll->type));
    cJSON_AddNumberToObject(coll, "size_bytes", rep->coll->size);
    cJSON_AddNumberToObject(coll, "chunks", (double)rep->coll->chunks);
    cJSON *cd = cJSON_AddArrayToObject(coll, "dims");
    uint32_t mask = involved(rep);
    for (int d = 0; d < sys->ndims; d++)
        if ((mask >> d) & 1u) cJSON_AddItemToArray(cd, cJSON_CreateNumber(d));
    cJSON_AddStringToObject(root, "load_model", th_load_model_name(rep->model));
    cJSON *results = cJSON_AddArrayToObject(root, "results");
    for (int i = 0; i < rep->npairs; i++) {
        const th_result *r = &rep->results[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "policy", th_policy_name(rep->pairs[i].policy));
        cJSON_AddStringToObject(o, "intra", th_intra_name(rep->pairs[i].intra));
        cJSON_AddNumberToObject(o, "time_us", r->time / 1000.0);
        cJSON_AddNumberToObject(o, "ideal_us", r->ideal / 1000.0);
        cJSON_AddNumberToObject(o, "bw_util", r->bw_util);
        cJSON_AddNumberToObject(o, "speedup", r->speedup);
        cJSON_AddNumberToObject(o, "algbw_GBps", r->algbw);
        cJSON_AddNumberToObject(o, "busbw_GBps", r->busbw);
        cJSON *dims = cJSON_AddArrayToObject(o, "dims");
        for (int d = 0; d < sys->ndims; d++) {
            cJSON *j = cJSON_CreateObject();
            cJSON_AddNumberToObject(j, "dim", d);
            cJSON_AddStringToObject(j, "name", sys->dims[d].name);
            cJSON_AddNumberToObject(j, "bytes", r->bytes[d]);
            cJSON_AddNumberToObject(j, "busy_us", r->busy[d] / 1000.0);
            cJSON_AddNumberToObject(j, "bw_util", r->dim_util[d]);
            cJSON_AddItemToArray(dims, j);
        }
        cJSON_AddItemToArray(results, o);
    }
    return th_report_write_json(out, root, err);
}

int th_report_csv(FILE *out, const th_report *rep, th_error *err) {
    const th_system *sys = rep->sys;
    fputs("system,type,size_bytes,chunks,dims,load_model,policy,intra,time_us,ideal_us,bw_util,"
          "speedup,algbw_GBps,busbw_GBps",
          out);
    for (int d = 0; d < sys->ndims; d++)
        fprintf(out, ",dim%d_bytes,dim%d_busy_us,dim%d_bw_util", d, d, d);
    fputc('\n', out);
    char dims[64] = "";
    uint32_t mask = involved(rep);
    for (int d = 0; d < sys->ndims; d++) {
        if (!((mask >> d) & 1u)) continue;
        size_t len = strlen(dims);
        snprintf(dims + len, sizeof dims - len, "%s%d", len ? ";" : "", d);
    }
    char a[32], b[32], c[32], e[32], f[32], g[32], h[32];
    for (int i = 0; i < rep->npairs; i++) {
        const th_result *r = &rep->results[i];
        char *name = th_report_csv_text(sys->name);
        if (!name) return th_error_set(err, TH_EINTERNAL, "out of memory");
        fputs(name, out);
        free(name);
        fprintf(out, ",%s,%s,%lld,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s",
                th_coll_type_name(rep->coll->type), th_report_num(a, rep->coll->size),
                (long long)rep->coll->chunks, dims, th_load_model_name(rep->model),
                th_policy_name(rep->pairs[i].policy), th_intra_name(rep->pairs[i].intra),
                th_report_num(b, r->time / 1000.0), th_report_num(c, r->ideal / 1000.0),
                th_report_num(e, r->bw_util), th_report_num(f, r->speedup),
                th_report_num(g, r->algbw), th_report_num(h, r->busbw));
        for (int d = 0; d < sys->ndims; d++)
            fprintf(out, ",%s,%s,%s", th_report_num(a, r->bytes[d]),
                    th_report_num(b, r->busy[d] / 1000.0), th_report_num(c, r->dim_util[d]));
        fputc('\n', out);
    }
    return th_report_done(out, err);
}

void th_report_trace_header(FILE *out) {
    fputs("policy,intra,chunk,stage,op,dim,bytes,ready_us,start_us,end_us\n", out);
}

void th_report_trace_row(FILE *out, th_pair pair, const th_stage_rec *rec) {
    char a[32], b[32], c[32], d[32];
    fprintf(out, "%s,%s,%lld,%d,%s,%d,%s,%s,%s,%s\n", th_policy_name(pair.policy),
            th_intra_name(pair.intra), (long long)rec->chunk, rec->stage, th_op_name(rec->op),
            rec->dim, th_report_num(a, rec->m), th_report_num(b, rec->ready / 1000.0),
            th_report_num(c, rec->start / 1000.0), th_report_num(d, rec->end / 1000.0));
}

/* `export-chakra`: a workload (any format themis reads) on a system, written as a Chakra
 * execution trace, one file per NPU (PREFIX.<rank>.et) as ASTRA-sim 2.x reads them, and what
 * was written reported as a table or JSON. The command line's `themis export-chakra` and the
 * API's "export-chakra". */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../chakra/chakra_export.h"
#include "../report_internal.h"
#include "../workload_format.h"
#include "cmd.h"
#include "themis/llm.h"
#include "themis/text.h"

#define R(field) offsetof(th_export_chakra_request, field)

static const th_option opts[] = {
    {0, NULL, "workload", TH_ARG_SOURCE, R(workload), .noun = "workload"}, /* the operand */
    TH_ARG_SYSTEM_OPT(R(system), "system JSON (default: built-in default-3d); one file per NPU"),
    {'o', "output", "output", TH_ARG_STRING, R(output), "PREFIX",
     .help = "write PREFIX.0.et .. PREFIX.<NPUs-1>.et (required)"},
    {0, "iterations", "iterations", TH_ARG_INT, R(iterations), "N",
     .help = "iterations in the trace, 1 to 1000 (default 1)", .lo = 1, .hi = 1000},
    {0, "batch", "batch", TH_ARG_NUMBER, R(batch), "B",
     .help = "samples per NPU (default: the workload's), as train", .lo = 0, .hi = 1e9},
    {0, "bucket", "bucket", TH_ARG_SIZE, R(bucket), "SIZE",
     .help = "fuse weight-gradient All-Reduces into DDP buckets, as\ntrain (default the "
             "workload's)",
     .flags = TH_ARG_ONOFF, .lo = TH_BUCKET_DEFAULT},
    {0, "comm-scale", "comm_scale", TH_ARG_NUMBER, R(comm_scale), "X",
     .help = "ASTRA-sim 1.0 text workloads: multiply collective sizes", .lo = 0, .hi = 1e9},
    {0, "compute-scale", "compute_scale", TH_ARG_NUMBER, R(compute_scale), "X",
     .help = "... and compute times (as ASTRA-sim, truncated)", .lo = 0, .hi = 1e9},
    TH_ARG_FORMAT_OPT(R(format), (1u << TH_FORMAT_TABLE) | (1u << TH_FORMAT_JSON),
                      "what was written: {} (default table)"),
    {0, "force", "force", TH_ARG_FLAG, R(force), .help = "replace existing files"},
    TH_ARG_HELP_OPTS,
};

const th_cmd_def th_cmd_export_chakra_def = {"export-chakra", opts, sizeof opts / sizeof opts[0],
                                             R(given),        24,   NULL};

void th_export_chakra_request_init(th_export_chakra_request *r) {
    memset(r, 0, sizeof *r);
    r->iterations = 1;
    r->comm_scale = r->compute_scale = 1;
    r->format = TH_FORMAT_TABLE;
}

/* The workload of the request: our JSON, or another format converted for sys (its notes to
 * io->notes), or an LLM workload (*llm, which has no layers). */
static int load(const th_export_chakra_request *r, const th_system *sys, const th_cmd_io *io,
                th_workload **wl, th_llm_workload **llm, th_error *err) {
    const th_arg_src *w = &r->workload;
    const char *source = w->path ? w->path : "workload";
    const th_cmd_def *d = &th_cmd_export_chakra_def;
    if (!w->path && !th_llm_detect(w->text, strlen(w->text)))
        return th_workload_parse(w->text, strlen(w->text), source, wl, err);
    th_wl_file f = {0};
    int rc = TH_OK;
    if (!w->path) {
        if (!(*llm = malloc(sizeof **llm))) return th_error_set(err, TH_EINTERNAL, "out of memory");
        rc = th_llm_parse(w->text, strlen(w->text), source, *llm, err);
    } else if (th_workload_open(w->path, &f, err)) {
        return err->code;
    } else if (f.format == &th_llm_wl_format) {
        *llm = f.native, f.native = NULL;
    }
    if (*llm) {
        char a[32];
        const char *given = th_option_given(d, r, "batch")           ? "batch"
                            : th_option_given(d, r, "comm_scale")    ? "comm_scale"
                            : th_option_given(d, r, "compute_scale") ? "compute_scale"
                                                                     : NULL;
        if (rc == TH_OK && given)
            rc = th_cmd_usage(err, d, io,
                              "%s is not for an LLM workload (its llm.micro_batch and "
                              "llm.global_batch set the work): %s",
                              th_cmd_name(d, io, given, a, sizeof a), source);
    } else if (!f.format) {
        *wl = f.wl, f.wl = NULL;
        if (th_option_given(&th_cmd_export_chakra_def, r, "comm_scale") ||
            th_option_given(&th_cmd_export_chakra_def, r, "compute_scale")) {
            char a[32], b[32];
            rc = th_cmd_usage(
                err, &th_cmd_export_chakra_def, io,
                "%s and %s are for other formats; %s is our JSON",
                th_cmd_name(&th_cmd_export_chakra_def, io, "comm_scale", a, sizeof a),
                th_cmd_name(&th_cmd_export_chakra_def, io, "compute_scale", b, sizeof b), source);
        }
    } else if (!f.format->convert) {
        rc = th_error_set(err, TH_EINPUT, "%s: %s has no layers to write as a trace", source,
                          f.format->name);
    } else {
        th_buf notes = {0};
        th_wl_scale scale = {r->comm_scale, r->compute_scale};
        rc = f.format->convert(f.native, sys, &scale, source, wl, &notes, err);
        if (rc == TH_OK && io->notes) io->notes("note", &notes);
        th_buf_free(&notes);
    }
    th_workload_close(&f);
    if (rc) {
        th_workload_free(*wl);
        free(*llm);
        *wl = NULL, *llm = NULL;
    }
    return rc;
}

/* What the conversion to Chakra changed, as notes. */
static void notes(const th_chakra_graph *g, const th_cmd_io *io) {
    if (!io->notes || (!g->rounded && !g->sizes_rounded)) return;
    th_buf b = {0};
    char line[512];
    if (g->rounded) {
        int n = snprintf(line, sizeof line,
                         "Chakra's compute times are whole microseconds: %d of %d phase times "
                         "rounded to the nearest (largest change %.3g us)",
                         g->rounded, g->phases, g->worst_ns / 1000);
        if (g->dropped)
            snprintf(line + n, sizeof line - (size_t)n, "; %d under 0.5 us have no node",
                     g->dropped);
        th_buf_add(&b, line, strlen(line));
        th_buf_add(&b, "\n", 1);
    }
    if (g->sizes_rounded) {
        snprintf(line, sizeof line, "%d collective sizes rounded to whole bytes\n",
                 g->sizes_rounded);
        th_buf_add(&b, line, strlen(line));
    }
    io->notes("note", &b);
    th_buf_free(&b);
}

typedef struct counts {
    size_t comp, coll, send, recv;
} counts;

static counts count(const th_chakra_graph *g) {
    counts c = {0, 0, 0, 0};
    for (size_t k = 0; k < g->n; k++)
        switch (g->nodes[k].type) {
        case TH_CHAKRA_COMP_NODE: c.comp++; break;
        case TH_CHAKRA_COMM_SEND_NODE: c.send++; break;
        case TH_CHAKRA_COMM_RECV_NODE: c.recv++; break;
        default: c.coll++;
        }
    return c;
}

/* Files of stage s (every file when there are no stages). */
static int64_t stage_files(const th_chakra_graph *g, int s) {
    if (g->stages <= 1) return g->npus;
    int64_t n = 0;
    for (int64_t r = 0; r < g->npus; r++)
        n += g->stage_of[r] == s;
    return n;
}

/* The stages' files and nodes, as JSON. */
static cJSON *stages_json(const th_chakra_graph *g) {
    cJSON *a = cJSON_CreateArray();
    for (int s = 0; a && s < g->stages; s++) {
        const th_chakra_graph *gs = s ? &g->stage[s - 1] : g;
        counts c = count(gs);
        cJSON *o = cJSON_CreateObject();
        if (!o) continue;
        cJSON_AddNumberToObject(o, "stage", s);
        cJSON_AddNumberToObject(o, "files", (double)stage_files(g, s));
        cJSON_AddNumberToObject(o, "nodes", (double)gs->n);
        cJSON_AddNumberToObject(o, "compute_nodes", (double)c.comp);
        cJSON_AddNumberToObject(o, "collective_nodes", (double)c.coll);
        cJSON_AddNumberToObject(o, "send_nodes", (double)c.send);
        cJSON_AddNumberToObject(o, "recv_nodes", (double)c.recv);
        cJSON_AddNumberToObject(o, "written_compute_us", (double)gs->stage_us);
        cJSON_AddItemToArray(a, o);
    }
    return a;
}

static int report(FILE *out, const th_export_chakra_request *r, const th_system *sys,
                  const th_chakra_graph *g, const counts *c, th_error *err) {
    if (r->format == TH_FORMAT_JSON) {
        cJSON *o = cJSON_CreateObject();
        if (o) {
            cJSON_AddStringToObject(o, "workload", g->name);
            cJSON_AddStringToObject(o, "system", sys->name);
            cJSON_AddStringToObject(o, "prefix", r->output);
            cJSON_AddNumberToObject(o, "files", (double)g->npus);
            cJSON_AddNumberToObject(o, "iterations", g->iterations);
            cJSON_AddNumberToObject(o, "nodes", (double)g->n);
            cJSON_AddNumberToObject(o, "compute_nodes", (double)c->comp);
            cJSON_AddNumberToObject(o, "collective_nodes", (double)c->coll);
            cJSON_AddNumberToObject(o, "send_nodes", (double)c->send);
            cJSON_AddNumberToObject(o, "recv_nodes", (double)c->recv);
            if (g->stages > 1) cJSON_AddItemToObject(o, "stages", stages_json(g));
            cJSON_AddNumberToObject(o, "compute_us", g->compute_ns / 1000);
            cJSON_AddNumberToObject(o, "written_compute_us", (double)g->compute_us);
            cJSON_AddNumberToObject(o, "rounded", g->rounded);
            cJSON_AddNumberToObject(o, "dropped", g->dropped);
            cJSON_AddNumberToObject(o, "max_change_us", g->worst_ns / 1000);
            cJSON_AddNumberToObject(o, "sizes_rounded", g->sizes_rounded);
        }
        return th_report_write_json(out, o, err);
    }
    char wname[256], sname[256], prefix[1024];
    th_text_escape(wname, sizeof wname, g->name);
    th_text_escape(sname, sizeof sname, sys->name);
    th_text_escape(prefix, sizeof prefix, r->output);
    fprintf(out, "%s on %s: %lld files %s.0.et .. %s.%lld.et\n", wname, sname, (long long)g->npus,
            prefix, prefix, (long long)g->npus - 1);
    if (g->stages <= 1)
        fprintf(out, "nodes per file  %zu (%zu compute, %zu collectives), %d iteration%s\n", g->n,
                c->comp, c->coll, g->iterations, g->iterations > 1 ? "s" : "");
    for (int s = 0; g->stages > 1 && s < g->stages; s++) {
        const th_chakra_graph *gs = s ? &g->stage[s - 1] : g;
        counts k = count(gs);
        fprintf(out,
                "stage %-9d %lld file%s of %zu nodes (%zu compute, %zu collectives, %zu sends, "
                "%zu receives), %llu us of compute written\n",
                s, (long long)stage_files(g, s), stage_files(g, s) > 1 ? "s" : "", gs->n, k.comp,
                k.coll, k.send, k.recv, (unsigned long long)gs->stage_us);
    }
    /* the workload's time to the nanosecond (JSON has every digit) */
    fprintf(out, "compute         %.3f us per iteration in the workload, %llu us written%s\n",
            g->compute_ns / 1000, (unsigned long long)g->compute_us,
            g->stages > 1 ? " (the last stage)" : "");
    return th_report_done(out, err);
}

/* Every rank's file; on a failure, the files this call created are removed again (a file it
 * replaced, only with force, stays replaced). With force, the files of higher ranks that a
 * larger set left at the prefix are removed once the new set is written. */
static int write_files(const th_export_chakra_request *r, const th_system *sys,
                       const th_chakra_graph *g, const th_cmd_io *io, th_error *err) {
    size_t n = strlen(r->output) + 32;
    char *path = malloc(n);
    unsigned char *fresh = calloc((size_t)g->npus, 1);
    if (!path || !fresh) {
        free(path);
        free(fresh);
        return th_error_set(err, TH_EINTERNAL, "out of memory");
    }
    const char *inputs[] = {r->workload.path, r->system.path};
    int rc = TH_OK;
    /* every file checked before the first is written */
    for (int64_t k = 0; rc == TH_OK && k < g->npus; k++) {
        snprintf(path, n, "%s.%lld.et", r->output, (long long)k);
        const char *outputs[] = {path};
        struct stat st;
        fresh[k] = stat(path, &st) != 0;
        if (th_output_check(inputs, 2, outputs, 1, err))
            rc = err->code;
        else if (!fresh[k] && !r->force)
            rc = th_error_set(err, TH_EINPUT, "%s: already exists; %s replaces it", path,
                              io->argv ? "--force" : "force");
    }
    /* Files of a larger set at the same prefix (ranks from npus on) would join this set when it
     * is read back (up to the first missing rank): refused, or removed with force once the
     * new set is written. */
    int64_t stale = 0;
    for (int64_t k = g->npus; rc == TH_OK; k++, stale++) {
        snprintf(path, n, "%s.%lld.et", r->output, (long long)k);
        const char *outputs[] = {path};
        struct stat st;
        if (lstat(path, &st) != 0) break;
        if (th_output_check(inputs, 2, outputs, 1, err))
            rc = err->code;
        else if (!S_ISREG(st.st_mode))
            rc = th_error_set(err, TH_EINPUT, "%s: not a file, past the %lld NPUs of the set", path,
                              (long long)g->npus);
        else if (!r->force)
            rc = th_error_set(err, TH_EINPUT,
                              "%s: already exists, a rank past the %lld NPUs of system \"%s\": "
                              "read back, it would join the new set; %s removes it",
                              path, (long long)g->npus, sys->name, io->argv ? "--force" : "force");
    }
    th_cmd_io files = {NULL, io->files, io->argv, NULL, NULL, NULL, NULL, NULL};
    int64_t done = 0;
    for (; rc == TH_OK && done < g->npus; done++) {
        snprintf(path, n, "%s.%lld.et", r->output, (long long)done);
        th_output o;
        if ((rc = th_cmd_out_open(&files, path, r->force, &o, err))) break;
        rc = th_chakra_write(o.f, path, g, sys->name, done, err);
        rc = th_cmd_out_close(&files, &o, rc, err);
    }
    for (int64_t k = g->npus; rc == TH_OK && k < g->npus + stale; k++) {
        snprintf(path, n, "%s.%lld.et", r->output, (long long)k);
        if (unlink(path) && errno != ENOENT)
            rc = th_error_set(err, TH_EIO, "%s: cannot remove: %s", path, strerror(errno));
    }
    if (rc != TH_OK)
        for (int64_t k = 0; k < done; k++)
            if (fresh[k]) {
                snprintf(path, n, "%s.%lld.et", r->output, (long long)k);
                unlink(path);
            }
    free(path);
    free(fresh);
    return rc;
}

/* At most this many files: one per NPU, each checked against the inputs. */
#define MAX_FILES 65536

int th_cmd_export_chakra(const th_export_chakra_request *r, const th_cmd_io *io, th_error *err) {
    const th_cmd_def *d = &th_cmd_export_chakra_def;
    char a[32];
    if (!r->workload.path && !r->workload.text)
        return th_error_set(err, TH_EINPUT,
                            "export-chakra: workload: missing (a file or an object)");
    if (!r->output || !*r->output)
        return th_cmd_usage(err, d, io, "%s PREFIX is required (the files are PREFIX.<rank>.et)",
                            th_cmd_name(d, io, "output", a, sizeof a));
    if (!strcmp(r->output, "-"))
        return th_cmd_usage(err, d, io, "%s: a trace is one file per NPU, not standard output",
                            th_cmd_name(d, io, "output", a, sizeof a));
    th_system sys;
    th_run_defaults def;
    const char *who;
    if (th_cmd_load_system(&r->system, &sys, &def, &who, err)) return err->code;
    int64_t npus = 1;
    for (int k = 0; k < sys.ndims; k++)
        npus *= sys.dims[k].npus;
    if (npus > MAX_FILES)
        return th_error_set(err, TH_EINPUT,
                            "%s: %lld NPUs: a trace has one file per NPU, at most %d",
                            who ? who : "system", (long long)npus, MAX_FILES);
    th_workload *wl = NULL;
    th_llm_workload *llm = NULL;
    if (load(r, &sys, io, &wl, &llm, err)) return err->code;
    th_chakra_graph g;
    int rc;
    if (llm) { /* the bucket as given (-1: off), else the workload's */
        th_chakra_opts o = {(int)r->iterations, 0, r->bucket};
        rc = th_chakra_build_llm(llm, &sys, &o, &g, err);
    } else {
        th_chakra_opts o = {(int)r->iterations, r->batch,
                            r->bucket > 0   ? r->bucket
                            : r->bucket < 0 ? 0
                                            : wl->bucket_bytes};
        rc = th_chakra_build(wl, &sys, &o, &g, err);
    }
    if (rc == TH_OK) rc = write_files(r, &sys, &g, io, err);
    if (rc == TH_OK) {
        counts c = count(&g);
        notes(&g, io);
        th_output out;
        if ((rc = th_cmd_out_open(io, NULL, 0, &out, err)) == TH_OK) {
            rc = report(out.f, r, &sys, &g, &c, err);
            rc = th_cmd_out_close(io, &out, rc, err);
        }
    }
    th_chakra_graph_free(&g);
    th_workload_free(wl);
    free(llm);
    return rc;
}

/* `search`: every valid execution of an LLM on all NPUs of a system, the ones that fit in memory,
 * and the best K by iteration time per policy pair (src/llm_search.c), as a table, JSON, CSV or
 * JSONL. The command line's `themis search` and the API's "search". */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "cmd_search.h"
#include "themis/llm_search.h"
#include "themis/str.h"

#define R(field) offsetof(th_search_request, field)

static const th_option opts[] = {
    {0, NULL, "model", TH_ARG_SOURCE, R(model), .noun = "model"}, /* the operand */
    TH_ARG_SYSTEM_OPT(R(system), "system JSON with an \"npu\" (required)"),
    {'p', "policy", "policy", TH_ARG_CHOICE, R(policy), "P",
     .help = "{}\n(default themis; all: a search per policy)", .noun = "policy",
     .choices = th_policy_names, .flags = TH_ARG_ALL},
    {'q', "intra", "intra", TH_ARG_CHOICE, R(intra), "Q", .help = "{} (default scf)",
     .noun = "intra-dimension policy", .choices = th_intra_names, .flags = TH_ARG_ALL},
    {0, "global-batch", "global_batch", TH_ARG_INT, R(global_batch), "B",
     .help = "sequences per iteration (default: the workload's;\nrequired with a model file)",
     .lo = 1, .hi = 1e12},
    {'k', "top", "top", TH_ARG_INT, R(top), "K",
     .help = "executions reported per pair (default 10)", .lo = 1, .hi = 100000},
    {0, "npus", "npus", TH_ARG_INT, R(npus), "N",
     .help = "NPUs each execution uses (default: all the system's;\nthe groups fill its dims "
             "innermost first)",
     .lo = 1, .hi = 2147483647},
    {0, "fix", "fix", TH_ARG_NAMES, R(fix), "KEYS",
     .help = "keys of a workload's execution the search keeps, e.g.\ntp,pp (tp, pp, dp, ep, "
             "micro_batch, schedule,\nsequence_parallel, recompute, sharding, mapping)",
     .noun = "key", .hi = TH_LLM_KEYS},
    TH_ARG_FORMAT_OPT(R(format), 0,
                      "{} (default table; jsonl: one\nresult object per line, as in json's "
                      "results)"),
    {'o', "output", NULL, TH_ARG_STRING, R(output), "FILE",
     .help = "results file ('-' = stdout, the default)"},
    {0, "force", NULL, TH_ARG_FLAG, R(force), .help = "replace an existing output file"},
    TH_ARG_HELP_OPTS,
};

const th_cmd_def th_cmd_search_def = {"search", opts, sizeof opts / sizeof opts[0],
                                      R(given), 26,   NULL};

void th_search_request_init(th_search_request *r) {
    memset(r, 0, sizeof *r);
    r->policy = TH_POLICY_THEMIS;
    r->intra = TH_INTRA_SCF;
    r->top = 10;
    r->format = TH_FORMAT_TABLE;
}

/* --fix "tp,pp": the keys' bits. */
static int parse_fix(const th_search_request *r, const th_cmd_io *io, unsigned *fixed,
                     th_error *err) {
    *fixed = 0;
    const char *s = r->fix.path;
    char name[32], opt[32];
    while (s && *s) {
        size_t n = strcspn(s, ",");
        snprintf(name, sizeof name, "%.*s", (int)(n < sizeof name ? n : sizeof name - 1), s);
        int k = th_name_find(th_llm_search_key_names, name);
        if (k < 0) {
            int near = th_name_near(th_llm_search_key_names, name);
            char list[160];
            size_t len = 0;
            for (int i = 0; th_llm_search_key_names[i]; i++)
                len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", i ? ", " : "",
                                        th_llm_search_key_names[i]);
            return th_cmd_usage(
                err, &th_cmd_search_def, io, "%s: unknown key '%s'%s%s%s (expected %s)",
                th_cmd_name(&th_cmd_search_def, io, "fix", opt, sizeof opt), name,
                near >= 0 ? "; did you mean '" : "", near >= 0 ? th_llm_search_key_names[near] : "",
                near >= 0 ? "'?" : "", list);
        }
        *fixed |= 1u << k;
        s += n + (s[n] == ',');
    }
    return TH_OK;
}

/* The pairs of -p and -q; the ideal network once (it has no intra-dim queue). */
static int pairs_of(const th_search_request *r, th_pair *pairs) {
    int n = 0;
    for (int p = 0; p < TH_POLICY_COUNT; p++) {
        if (r->policy >= 0 && p != r->policy) continue;
        for (int q = 0; q <= TH_INTRA_SCF; q++) {
            if (r->intra >= 0 && q != r->intra) continue;
            if (p == TH_POLICY_IDEAL && n > 0 && pairs[n - 1].policy == TH_POLICY_IDEAL) continue;
            pairs[n++] = (th_pair){(th_policy)p, (th_intra)q};
        }
    }
    return n;
}

int th_cmd_search(const th_search_request *r, const th_cmd_io *io, th_error *err) {
    const th_cmd_def *d = &th_cmd_search_def;
    const th_arg_src *ms = &r->model;
    char a[32];
    if (!ms->path && !ms->text)
        return th_error_set(err, TH_EINPUT,
                            "search: model: missing (a model file or an LLM workload)");
    if (!r->system.path && !r->system.text)
        return th_cmd_usage(err, d, io, "%s: missing (a system file with an \"npu\")",
                            th_cmd_name(d, io, "system", a, sizeof a));
    const char *inputs[] = {ms->path, r->system.path}, *outputs[] = {r->output};
    if (th_output_check(inputs, 2, outputs, 1, err)) return err->code;
    unsigned fixed;
    if (parse_fix(r, io, &fixed, err)) return err->code;
    th_system sys;
    th_run_defaults def;
    const char *who;
    if (th_cmd_load_system(&r->system, &sys, &def, &who, err)) return err->code;
    if (!sys.npu.present)
        return th_error_set(err, TH_EINPUT,
                            "%s: npu: missing (a search needs the NPU's matrix_tflops, "
                            "vector_tflops, memory_GBps and memory_gib)",
                            who ? who : sys.name);
    th_llm_workload w;
    int is_workload;
    const char *src = ms->path ? (strcmp(ms->path, "-") ? ms->path : "<stdin>") : "model";
    int rc = ms->path ? th_llm_load_any(ms->path, &w, &is_workload, err)
                      : th_llm_parse_any(ms->text, strlen(ms->text), src, &w, &is_workload, err);
    if (rc) return rc;
    if (fixed && !is_workload)
        return th_cmd_usage(err, d, io,
                            "%s: %s is a model file: nothing to keep (give an LLM "
                            "workload, whose execution the keys come from)",
                            th_cmd_name(d, io, "fix", a, sizeof a), src);
    th_llm_search_opts o = {0};
    o.base = w.exec;
    o.fixed = fixed;
    o.top = (int)r->top;
    o.npus = (double)r->npus;
    if (r->npus > sys.npus)
        return th_cmd_usage(err, d, io, "%s: %lld NPUs, but system \"%s\" has %.15g",
                            th_cmd_name(d, io, "npus", a, sizeof a), (long long)r->npus, sys.name,
                            sys.npus);
    o.poll = io->poll, o.poll_ctx = io->poll_ctx;
    if (r->global_batch) o.base.global_batch = r->global_batch;
    if (!o.base.global_batch)
        return th_cmd_usage(err, d, io, "%s: missing (%s is a model file: it has no global batch)",
                            th_cmd_name(d, io, "global_batch", a, sizeof a), src);
    th_pair pairs[2 * TH_POLICY_COUNT];
    th_llm_search_result res[2 * TH_POLICY_COUNT];
    int npairs = pairs_of(r, pairs), n = 0;
    for (; n < npairs; n++) {
        o.policy = pairs[n].policy, o.intra = pairs[n].intra;
        if ((rc = th_llm_search(&sys, &w.model, &o, &res[n], err))) break;
    }
    if (rc == TH_OK) {
        th_output out;
        if ((rc = th_cmd_out_open(io, r->output, r->force, &out, err)) == TH_OK) {
            th_search_report rep = {
                &sys,  &w.model, o.base.global_batch, r->top, o.npus > 0 ? o.npus : sys.npus, n,
                pairs, res};
            rc = th_cmd_search_write(out.f, r->format, &rep, err);
            rc = th_cmd_out_close(io, &out, rc, err);
        }
    }
    for (int i = 0; i < n; i++)
        th_llm_search_result_free(&res[i]);
    return rc;
}

/* `search`'s report: per policy pair, how many executions were enumerated, fit in memory, were
 * bounded and timed, and the best K with their iteration, breakdown, MFU and memory per NPU; as
 * a table, or the result rows of docs/SCHEMA.md (JSON, JSONL, CSV flattened): the workload
 * format's execution keys and `themis train`'s LLM keys. */
#include <stdio.h>

#include "../report_internal.h"
#include "cmd_search.h"
#include "themis/report_llm.h"
#include "themis/text.h"

/* "tp,ep,pp,dp": the mapping, innermost first. */
static const char *mapping(const th_llm_exec *x, char *buf, size_t n) {
    snprintf(buf, n, "%s,%s,%s,%s", th_llm_group_names[x->mapping[0]],
             th_llm_group_names[x->mapping[1]], th_llm_group_names[x->mapping[2]],
             th_llm_group_names[x->mapping[3]]);
    return buf;
}

/* One result row (docs/SCHEMA.md, search): the search, the rank, the execution's keys as the
 * workload format spells them, the iteration and its parts as `themis train`'s LLM rows, the
 * memory per NPU. */
static cJSON *result_json(const th_search_report *rep, const th_pair *pair, int rank,
                          const th_llm_found *f) {
    const th_llm_exec *x = &f->x;
    const th_llm_result *r = &f->r;
    cJSON *o = cJSON_CreateObject(), *map = cJSON_CreateArray(),
          *mem = th_report_llm_memory_json(&r->mem, th_npu_memory_bytes(&rep->sys->npu), r->fits);
    if (!o || !map || !mem) {
        cJSON_Delete(o), cJSON_Delete(map), cJSON_Delete(mem);
        return NULL;
    }
    cJSON_AddStringToObject(o, "model", rep->m->name);
    cJSON_AddStringToObject(o, "system", rep->sys->name);
    cJSON_AddStringToObject(o, "policy", th_policy_name(pair->policy));
    cJSON_AddStringToObject(o, "intra", th_train_intra_name(pair->policy, pair->intra));
    cJSON_AddNumberToObject(o, "rank", rank);
    cJSON_AddNumberToObject(o, "tp", (double)x->tp);
    cJSON_AddNumberToObject(o, "pp", (double)x->pp);
    cJSON_AddNumberToObject(o, "dp", (double)x->dp);
    cJSON_AddNumberToObject(o, "ep", (double)x->ep);
    cJSON_AddNumberToObject(o, "micro_batch", (double)x->micro_batch);
    cJSON_AddNumberToObject(o, "global_batch", (double)x->global_batch);
    cJSON_AddStringToObject(o, "schedule", th_llm_schedule_names[x->schedule]);
    cJSON_AddNumberToObject(o, "virtual_stages", (double)x->virtual_stages);
    cJSON_AddBoolToObject(o, "sequence_parallel", x->sequence_parallel);
    cJSON_AddStringToObject(o, "recompute", th_llm_recompute_names[x->recompute]);
    cJSON_AddStringToObject(o, "sharding", th_llm_sharding_names[x->sharding]);
    for (int k = 0; k < TH_LLM_GROUPS; k++)
        cJSON_AddItemToArray(map, cJSON_CreateString(th_llm_group_names[x->mapping[k]]));
    cJSON_AddItemToObject(o, "mapping", map);
    cJSON_AddNumberToObject(o, "microbatches", r->microbatches);
    cJSON_AddNumberToObject(o, "iteration_us", r->iteration / 1000.0);
    double v[TH_LLM_PARTS];
    th_report_llm_part_values(&r->b, v);
    for (int k = 0; k < TH_LLM_PARTS; k++)
        cJSON_AddNumberToObject(o, th_report_llm_parts[k], v[k] / 1000.0);
    cJSON_AddNumberToObject(o, "mfu", r->mfu);
    cJSON_AddNumberToObject(o, "tflops_per_npu", r->tflops_per_npu);
    cJSON_AddItemToObject(o, "memory", mem);
    return o;
}

static cJSON *report_json(const th_search_report *rep) {
    cJSON *root = cJSON_CreateObject(), *searches = cJSON_CreateArray(),
          *results = cJSON_CreateArray();
    if (!root || !searches || !results) {
        cJSON_Delete(root), cJSON_Delete(searches), cJSON_Delete(results);
        return NULL;
    }
    cJSON_AddItemToObject(root, "system", th_report_llm_system_json(rep->sys));
    cJSON *m = cJSON_AddObjectToObject(root, "model");
    cJSON_AddStringToObject(m, "name", rep->m->name);
    cJSON_AddNumberToObject(m, "params", th_llm_params(rep->m));
    cJSON_AddNumberToObject(m, "flops_per_sequence", 3 * th_llm_flops_fwd(rep->m));
    cJSON_AddNumberToObject(root, "npus", rep->npus);
    cJSON_AddNumberToObject(root, "global_batch", (double)rep->global_batch);
    cJSON_AddNumberToObject(root, "top", (double)rep->top);
    for (int i = 0; i < rep->npairs; i++) {
        const th_llm_search_result *s = &rep->res[i];
        cJSON *o = cJSON_CreateObject();
        if (!o) {
            cJSON_Delete(root), cJSON_Delete(searches), cJSON_Delete(results);
            return NULL;
        }
        cJSON_AddStringToObject(o, "policy", th_policy_name(rep->pairs[i].policy));
        cJSON_AddStringToObject(o, "intra",
                                th_train_intra_name(rep->pairs[i].policy, rep->pairs[i].intra));
        cJSON_AddNumberToObject(o, "enumerated", s->enumerated);
        cJSON_AddNumberToObject(o, "feasible", s->feasible);
        cJSON_AddNumberToObject(o, "bounded", s->bounded);
        cJSON_AddNumberToObject(o, "evaluated", s->evaluated);
        cJSON_AddItemToArray(searches, o);
        for (int k = 0; k < s->n; k++) {
            cJSON *x = result_json(rep, &rep->pairs[i], k + 1, &s->best[k]);
            if (!x) {
                cJSON_Delete(root), cJSON_Delete(searches), cJSON_Delete(results);
                return NULL;
            }
            cJSON_AddItemToArray(results, x);
        }
    }
    cJSON_AddItemToObject(root, "searches", searches);
    cJSON_AddItemToObject(root, "results", results);
    return root;
}

/* "interleaved:4", "1f1b". */
static const char *schedule(const th_llm_exec *x, char *buf, size_t n) {
    if (x->schedule == TH_LLM_INTERLEAVED)
        snprintf(buf, n, "interleaved:%lld", (long long)x->virtual_stages);
    else
        snprintf(buf, n, "%s", th_llm_schedule_names[x->schedule]);
    return buf;
}

static int write_table(FILE *out, const th_search_report *rep, th_error *err) {
    char mname[TH_TABLE_CELL], sname[TH_TABLE_CELL], a[32];
    char b[32];
    fprintf(out, "search: %s on %s NPUs of %s (%s NPUs, %.4g GiB each), global batch %lld\n",
            th_text_escape(mname, sizeof mname, rep->m->name), th_num_format(b, rep->npus),
            th_text_escape(sname, sizeof sname, rep->sys->name), th_num_format(a, rep->sys->npus),
            rep->sys->npu.memory_gib, (long long)rep->global_batch);
    for (int i = 0; i < rep->npairs; i++) {
        const th_llm_search_result *s = &rep->res[i];
        const th_pair *p = &rep->pairs[i];
        fprintf(out,
                "\n%s + %s: %.15g executions, %.15g fit in memory, %.15g bounded, %.15g timed\n",
                th_policy_name(p->policy), th_train_intra_name(p->policy, p->intra), s->enumerated,
                s->feasible, s->bounded, s->evaluated);
        if (!s->n) {
            fputs(s->enumerated ? "  no execution fits in memory\n"
                                : "  no valid execution: tp x pp x dp = the system's NPUs, with tp "
                                  "dividing the heads, pp the layers and dp the global batch "
                                  "(and the keys kept)\n",
                  out);
            continue;
        }
        fprintf(out, "%4s %13s %6s %7s %8s %5s %5s %5s %4s %5s %-14s %-3s %-9s %-9s %s\n", "rank",
                "iteration_s", "mfu", "tflops", "mem_GiB", "tp", "pp", "dp", "ep", "mb", "schedule",
                "sp", "recompute", "sharding", "mapping");
        for (int k = 0; k < s->n; k++) {
            const th_llm_found *f = &s->best[k];
            const th_llm_exec *x = &f->x;
            char sched[32], map[64];
            fprintf(out,
                    "%4d %13.6f %6.4f %7.2f %8.2f %5lld %5lld %5lld %4lld %5lld %-14s %-3s %-9s "
                    "%-9s %s\n",
                    k + 1, f->r.iteration / 1e9, f->r.mfu, f->r.tflops_per_npu,
                    f->r.mem.total / 1073741824.0, (long long)x->tp, (long long)x->pp,
                    (long long)x->dp, (long long)x->ep, (long long)x->micro_batch,
                    schedule(x, sched, sizeof sched), x->sequence_parallel ? "on" : "off",
                    th_llm_recompute_names[x->recompute], th_llm_sharding_names[x->sharding],
                    mapping(x, map, sizeof map));
        }
        fprintf(out, "breakdown, s:\n%4s %9s %9s %9s %9s %9s %9s %9s %9s %9s\n", "rank", "forward",
                "backward", "recompute", "tp", "ep", "bubble", "pp", "dp", "optimizer");
        for (int k = 0; k < s->n; k++) {
            double v[TH_LLM_PARTS];
            th_report_llm_part_values(&s->best[k].r.b, v);
            fprintf(out, "%4d", k + 1);
            for (int j = 0; j < TH_LLM_PARTS; j++)
                fprintf(out, " %9.4f", v[j] / 1e9);
            fputc('\n', out);
        }
    }
    return th_report_done(out, err);
}

int th_cmd_search_write(FILE *out, int format, const th_search_report *rep, th_error *err) {
    switch (format) {
    case TH_FORMAT_TABLE: return write_table(out, rep, err);
    case TH_FORMAT_JSON: return th_report_write_json(out, report_json(rep), err);
    case TH_FORMAT_CSV: return th_report_write_csv(out, report_json(rep), "results", err);
    case TH_FORMAT_JSONL: return th_report_write_jsonl(out, report_json(rep), "results", err);
    }
    return th_error_set(err, TH_EINTERNAL, "unknown output format %d", format);
}

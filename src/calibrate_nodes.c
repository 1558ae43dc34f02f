/* calibrate --npus-per-node: a node dim and a network dim fitted from the logs people have, a
 * single-node log for the node and a multi-node log for the network (docs/CALIBRATE.md, "Several
 * dims"), as two ordinary calibrations of one dim each on a two-dim system made here. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "report_internal.h"
#include "themis/calibrate.h"
#include "themis/str.h"

/* Reads each log once for its ranks and sorts it into n->inner (N ranks) or n->outer (a
 * multiple of N, every one the same). */
static int sort_logs(const th_cal_request *q, th_cal_nodes *n, th_error *err) {
    long long per = q->npus_per_node;
    for (int i = 0; i < q->nlogs; i++) {
        if (!strcmp(q->logs[i], "-"))
            return th_error_set(err, TH_EINPUT,
                                "--npus-per-node reads each log twice: a file, not stdin");
        th_cal_log lg;
        if (th_cal_log_read(q->logs[i], &lg, err)) return err->code;
        long long ranks = lg.nranks;
        th_cal_log_free(&lg);
        if (ranks == per) {
            n->inner[n->ninner++] = q->logs[i];
        } else if (ranks > per && ranks % per == 0 && (!n->nodes || ranks / per == n->nodes)) {
            n->nodes = ranks / per;
            n->outer[n->nouter++] = q->logs[i];
        } else {
            return th_error_set(err, TH_EINPUT,
                                "%s: the test ran on %lld ranks (its '# Using devices' lines): "
                                "expected %lld (one node of --npus-per-node %lld) or a multiple "
                                "of it%s%lld",
                                q->logs[i], ranks, per, per,
                                n->nodes ? " the same as the other multi-node logs', " : "",
                                n->nodes ? n->nodes * per : per * 2);
        }
    }
    if (!n->nouter)
        return th_error_set(err, TH_EINPUT,
                            "--npus-per-node %lld: no multi-node log (a multiple of %lld "
                            "ranks): the network dim is not determined (a single node is one "
                            "dim: calibrate it with --topology alone)",
                            per, per);
    if (n->ninner && (q->node_bw > 0 || q->node_latency > 0))
        return th_error_set(err, TH_EINPUT,
                            "--node-bw and --node-latency hold the node dim when no log "
                            "measures it: %s, a single-node log, fits it",
                            n->inner[0]);
    if (!n->ninner && !(q->node_bw > 0))
        return th_error_set(err, TH_EINPUT,
                            "--npus-per-node %lld: a multi-node log alone determines only the "
                            "sums of the two dims' latency terms and of their bandwidth terms, "
                            "not each dim's: give a single-node log (%lld ranks) too, or the "
                            "node dim's --node-bw (and --node-latency) to hold it at",
                            per, per);
    return TH_OK;
}

/* The two-dim system the stages start from: the node dim at --node-bw and --node-latency (or
 * placeholders that stage 0 replaces), the network dim's placeholders that stage 1 replaces. */
static int make_system(const th_cal_request *q, th_cal_nodes *n, th_error *err) {
    static const char *const topo[] = {"ring", "fc", "switch"};
    static const char *const alg[] = {"ring", "direct", "rhd"};
    cJSON *root = cJSON_CreateObject(), *dims = cJSON_AddArrayToObject(root, "dims");
    if (q->name) cJSON_AddStringToObject(root, "name", q->name);
    char desc[512];
    snprintf(desc, sizeof desc,
             "fitted by themis calibrate --npus-per-node %lld: the node dim %s, the network dim "
             "to %.160s",
             q->npus_per_node, n->ninner ? "to the single-node log(s)" : "held at --node-bw",
             n->outer[0]);
    cJSON_AddStringToObject(root, "description", desc);
    for (int k = 0; k < 2; k++) {
        cJSON *d = cJSON_CreateObject();
        cJSON_AddItemToArray(dims, d);
        cJSON_AddStringToObject(d, "name", k ? "network" : "node");
        cJSON_AddStringToObject(d, "topology", topo[q->topology]);
        if (q->algorithm >= 0) cJSON_AddStringToObject(d, "algorithm", alg[q->algorithm]);
        cJSON_AddNumberToObject(d, "npus", (double)(k ? n->nodes : q->npus_per_node));
        cJSON_AddNumberToObject(d, "bw_GBps", !k && q->node_bw > 0 ? q->node_bw : 1);
        cJSON_AddNumberToObject(d, "latency_ns", !k ? q->node_latency : 0);
    }
    cJSON_AddNumberToObject(cJSON_AddObjectToObject(root, "run"), "chunks", 1);
    n->text = cJSON_Print(root);
    cJSON_Delete(root);
    return n->text ? TH_OK : th_error_set(err, TH_EINTERNAL, "out of memory");
}

int th_cal_run_nodes(const th_cal_request *q, th_cal_nodes *n, th_error *err) {
    memset(n, 0, sizeof *n);
    if (q->system || q->dim >= 0 || q->npus || q->efficiency || q->bw > 0)
        return th_error_set(err, TH_EINPUT,
                            "--npus-per-node makes its own two dims: not with -s, --dim, --npus, "
                            "--efficiency or --bw");
    if (q->topology < 0)
        return th_error_set(err, TH_EINPUT, "--npus-per-node needs the dims' --topology");
    if (q->nlogs < 1 || q->nlogs > TH_CAL_MAX_LOGS)
        return th_error_set(err, TH_EINPUT, "expected 1 to %d logs", TH_CAL_MAX_LOGS);
    if (sort_logs(q, n, err) || make_system(q, n, err)) return err->code;
    const char *text = n->text;
    for (int k = 0; k < 2; k++) {
        if (k == 0 && !n->ninner) continue;
        th_cal_request *s = &n->q[k];
        *s = *q;
        s->logs = k ? n->outer : n->inner;
        s->nlogs = k ? n->nouter : n->ninner;
        s->system = k ? "the network dim of --npus-per-node" : "the node dim of --npus-per-node";
        s->system_text = text;
        s->dim = k;
        s->topology = s->algorithm = -1;
        s->name = NULL;
        s->npus_per_node = 0;
        n->ran[k] = 1;
        if (th_cal_run(s, &n->r[k], err)) return err->code;
        text = n->r[k].out;
    }
    return TH_OK;
}

void th_cal_nodes_free(th_cal_nodes *n) {
    for (int k = 0; k < 2; k++)
        if (n->ran[k]) th_cal_result_free(&n->r[k]);
    free(n->text);
    memset(n, 0, sizeof *n);
}

int th_cal_nodes_report_json(FILE *out, long long per, const th_cal_nodes *n, th_error *err) {
    int inner = n->ran[0];
    cJSON *root = cJSON_CreateObject(), *stages = cJSON_AddArrayToObject(root, "stages");
    cJSON_AddNumberToObject(root, "npus_per_node", (double)per);
    cJSON_AddNumberToObject(root, "nodes", (double)n->nodes);
    for (int k = 0; k < 2; k++)
        if (n->ran[k]) cJSON_AddItemToArray(stages, th_cal_report_tree(&n->q[k], &n->r[k]));
    cJSON *d = cJSON_AddObjectToObject(root, "determined"); /* what the logs measured */
    cJSON_AddStringToObject(d, "node", inner ? "measured" : "assumed");
    cJSON_AddStringToObject(d, "network", inner ? "measured" : "given the node's assumed values");
    cJSON_AddItemToObject(root, "system", cJSON_Parse(n->r[1].out));
    return th_report_write_json(out, root, err);
}

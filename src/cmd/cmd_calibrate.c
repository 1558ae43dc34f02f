/* `calibrate`: one dim's latency and bandwidth fitted to nccl-tests / rccl-tests logs; the
 * system file written (and the plot drawn) only when both succeed, then the report (a table,
 * or JSON as the API returns it). The command line's `themis calibrate` and the API's. */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "themis/calibrate.h"
#include "themis/cost.h"
#include "themis/units.h"

#define R(field) offsetof(th_calibrate_request, field)

static const th_option opts[] = {
    {0, NULL, "logs", TH_ARG_LIST, R(logs), .noun = "log", .hi = TH_CAL_MAX_LOGS}, /* operands */
    TH_ARG_COLLECTIVE_OPT(R(collective), "{} (default: the\ntest the log names)"),
    {0, "topology", "topology", TH_ARG_CHOICE, R(topology), "T", .help = "a new one-dim system: {}",
     .noun = "topology", .choices = th_topology_names},
    {0, "npus", "npus", TH_ARG_INT, R(npus), "N",
     .help = "its NPUs (default: the ranks the log lists)", .lo = 2, .hi = 1099511627776.0},
    {0, "algorithm", "algorithm", TH_ARG_CHOICE, R(algorithm), "A",
     .help = "its algorithm: {} (default: the topology's)", .noun = "algorithm",
     .choices = th_algorithm_names},
    {0, "name", "name", TH_ARG_STRING, R(name), "NAME",
     .help = "its name (default: the output file's name)"},
    {0, "npus-per-node", "npus_per_node", TH_ARG_INT, R(npus_per_node), "N",
     .help = "instead: two dims of --topology, a node of N NPUs and the\nnetwork across the "
             "nodes; logs on N ranks fit the node,\nlogs on a multiple of N the network",
     .lo = 2, .hi = 1099511627776.0},
    {0, "node-bw", "node_bw", TH_ARG_NUMBER, R(node_bw), "GBPS",
     .help = "with --npus-per-node and no single-node log: the node\ndim's bw_GBps, held (an "
             "assumption: not measured)",
     .lo = 0, .hi = 1e9},
    {0, "node-latency", "node_latency", TH_ARG_NUMBER, R(node_latency), "NS",
     .help = "... and its latency_ns (default 0)", .lo = 0, .hi = 1e12},
    {'s', "system", "system", TH_ARG_STRING, R(system), "FILE",
     .help = "update a dim of this system file instead"},
    {0, "dim", "dim", TH_ARG_INT, R(dim), "K",
     .help = "the dim of -s to update (default 0 when it has one dim)", .lo = 0,
     .hi = TH_MAX_DIMS - 1},
    {0, "efficiency", "efficiency", TH_ARG_FLAG, R(efficiency),
     .help = "fit the efficiency against the nominal bw_GBps (the dim's, or\n--bw for a new "
             "system) instead of bw_GBps"},
    {0, "bw", "bw", TH_ARG_NUMBER, R(bw), "GBPS",
     .help = "the nominal bandwidth of a new system's dim, for --efficiency", .lo = 0, .hi = 1e12},
    {0, "in-place", "in_place", TH_ARG_FLAG, R(in_place),
     .help = "fit the in-place times (default: out-of-place)"},
    {0, "min-size", "min_size", TH_ARG_SIZE, R(min_size), "SIZE",
     .help = "fit only the rows of at least this size (e.g. 1MiB)"},
    {0, "max-size", "max_size", TH_ARG_SIZE, R(max_size), "SIZE",
     .help = "fit only the rows of at most this size"},
    {0, "tolerance", "tolerance", TH_ARG_NUMBER, R(tolerance), "F",
     .help = "mark the rows whose relative residual exceeds F (default 0.1)", .lo = 0, .hi = 1e300},
    {0, "allow-wrong", "allow_wrong", TH_ARG_FLAG, R(allow_wrong),
     .help = "fit rows whose #wrong is not 0 (default: an error)"},
    {0, "plot", "plot", TH_ARG_STRING, R(plot), "FILE",
     .help = "measured and fitted time vs size (.png, .pdf or .svg; gnuplot)"},
    TH_ARG_FORMAT_OPT(R(format), 1u << TH_FORMAT_TABLE | 1u << TH_FORMAT_JSON,
                      "the report: table (default) | json (the fit, every row's\nresidual and "
                      "the system, as themis.calibrate returns them)"),
    {'o', "output", NULL, TH_ARG_STRING, R(output), "FILE",
     .help = "the system file ('-' = stdout, the default; the report then\ngoes to stderr)"},
    {0, "force", "force", TH_ARG_FLAG, R(force), .help = "replace an existing OUT.json or plot"},
    TH_ARG_HELP_OPTS,
};

const th_cmd_def th_cmd_calibrate_def = {"calibrate", opts, sizeof opts / sizeof opts[0],
                                         R(given),    22,   NULL};

void th_calibrate_request_init(th_calibrate_request *r) {
    memset(r, 0, sizeof *r);
    r->collective = r->topology = r->algorithm = -1;
    r->dim = -1;
    r->tolerance = 0.1;
    r->format = TH_FORMAT_TABLE;
}

/* The size with a binary unit when it is a whole one (1 KiB, 64 MiB), else bytes. */
static const char *size_text(double b, char *buf, size_t n) {
    th_units_size_text(b, buf, n);
    return buf;
}

/* The report as a table: the dim, the logs, the fit, every row's residual. */
static void report(FILE *f, const th_cal_request *a, const th_cal_result *r) {
    const th_cal_log *logs = r->logs;
    const th_coll_type *colls = r->colls;
    const th_dim *before = &r->before, *dim = &r->fitted;
    const th_cal_fit *fit = &r->fit;
    int nlogs = r->nlogs;
    fprintf(f, "%s dim", th_topology_name(dim->topology));
    if (a->system) fprintf(f, " %d (%s) of %s", r->dim, dim->name, a->system);
    fprintf(f, ": %lld NPUs, %s algorithm, L = %g hops; %d of %d rows fitted (%s)\n",
            (long long)dim->npus, th_algorithm_name(dim->algorithm),
            th_cost_hops(dim->topology, dim->algorithm, dim->npus), fit->nused, fit->npoints,
            a->fit.in_place ? "in-place" : "out-of-place");
    for (int l = 0; l < nlogs; l++)
        fprintf(f, "  log %d: %s, %s%s%s, %d rows\n", l + 1, logs[l].source,
                th_coll_type_name(colls[l]), logs[l].program[0] ? " from " : "", logs[l].program,
                logs[l].nrows);
    int spans = 0;
    for (int l = 0; l < nlogs; l++)
        spans |= logs[l].below > 0;
    if (spans) {
        fprintf(f, "  held at the file's values (a run over several dims tells only the sum of "
                   "their latencies and the sum of their bandwidth terms):\n");
        for (int i = 0; i < r->nbelow; i++)
            fprintf(f, "    dim %d (%s): %lld NPUs, latency_ns %g, bw_GBps %g\n", i,
                    r->below[i].name, (long long)r->below[i].npus, r->below[i].latency,
                    r->below[i].bw);
    }
    fprintf(f, "\nlatency_ns  %.6g +- %.2g%s\n", fit->alpha_ns, fit->alpha_sd,
            fit->clamped ? " (the free fit went below 0)" : "");
    fprintf(f, "bw_GBps     %.6g +- %.2g (effective)\n", fit->bw, fit->bw_sd);
    if (a->efficiency)
        fprintf(f, "efficiency  %.6g of bw_GBps %g\n", dim->efficiency, dim->bw_GBps);
    if (a->system)
        fprintf(f, "was         latency_ns %g, bw_GBps %g, efficiency %g\n", before->latency,
                before->bw_GBps, before->efficiency);
    fprintf(f, "R^2 %.6f (weighted by 1/time^2), rms relative residual %.3g%%\n", fit->r2,
            100 * fit->rms_rel);
    char s1[32], s2[32];
    fprintf(f, "fitted sizes %s to %s%s\n", size_text(fit->min_used, s1, sizeof s1),
            size_text(fit->max_used, s2, sizeof s2),
            a->fit.min_size > 0 || a->fit.max_size > 0 ? " (--min-size, --max-size)"
                                                       : " (every size; --min-size and "
                                                         "--max-size fit a range)");
    for (int l = 0; l < nlogs; l++) {
        const th_cal_held *h = &fit->held[l];
        if (h->n)
            fprintf(f,
                    "held out, log %d: %d size(s), predicted by a fit to the other sizes "
                    "within %.3g%% (rms %.3g%%)\n",
                    l + 1, h->n, 100 * h->max_rel, 100 * h->rms_rel);
        else
            fprintf(f, "held out, log %d: none (too few fitted sizes)\n", l + 1);
    }
    fprintf(f, "\n%-4s %6s %16s %14s %14s %10s\n", "log", "line", "size_bytes", "measured_us",
            "fitted_us", "residual");
    for (int i = 0; i < fit->npoints; i++) {
        const th_cal_point *p = &fit->points[i];
        fprintf(f, "%-4d %6d %16.0f %14.6g %14.6g %+9.2f%%%s%s\n", p->log + 1, p->line, p->size,
                p->time_ns / 1e3, p->fit_ns / 1e3, 100 * p->rel,
                !p->used     ? "  (not fitted)"
                : p->flagged ? "  * does not fit"
                             : "",
                p->held_out ? "  (held out)" : "");
    }
    if (fit->nflagged) {
        double lo = INFINITY, hi = 0;
        for (int i = 0; i < fit->npoints; i++)
            if (fit->points[i].flagged) {
                lo = fmin(lo, fit->points[i].size);
                hi = fmax(hi, fit->points[i].size);
            }
        fprintf(f,
                "\n%d row(s) the model does not fit (|residual| > %g%%), sizes %s to %s (small "
                "sizes: NCCL's low-latency protocols; large: limits the model lacks); "
                "--min-size and --max-size fit a range\n",
                fit->nflagged, 100 * a->fit.tolerance, size_text(lo, s1, sizeof s1),
                size_text(hi, s2, sizeof s2));
    }
}

/* Rows fitted though #wrong > 0, rows of size 0 skipped: a warning and notes. */
static void tell(const th_cal_result *r, const th_cmd_io *io) {
    if (!io->notes) return;
    th_buf b = {0};
    char line[1024];
    if (r->fit.nwrong) {
        const th_cal_log *lg = &r->logs[r->fit.wrong_log];
        snprintf(line, sizeof line, "%d row(s) with %s fitted, the first at %s:%d", r->fit.nwrong,
                 lg->max_error ? "an error above its type's bound" : "#wrong > 0", lg->source,
                 r->fit.wrong_line);
        if (th_buf_add(&b, line, strlen(line)) == 0) io->notes("warning", &b);
    }
    b.len = 0;
    for (int l = 0; l < r->nlogs; l++)
        if (r->logs[l].rows_zero) {
            snprintf(line, sizeof line, "%s: %d row(s) of size 0 skipped\n", r->logs[l].source,
                     r->logs[l].rows_zero);
            th_buf_add(&b, line, strlen(line));
        }
    if (b.len) io->notes("note", &b);
    th_buf_free(&b);
}

/* The library's request from the command's. */
static void cal_request(const th_calibrate_request *r, th_cal_request *q) {
    memset(q, 0, sizeof *q);
    q->logs = r->logs.v;
    q->nlogs = r->logs.n;
    q->coll = r->collective;
    q->system = r->system;
    q->dim = (int)r->dim;
    q->topology = r->topology;
    q->algorithm = r->algorithm;
    q->npus = r->npus;
    q->name = r->name;
    q->efficiency = r->efficiency;
    q->bw = r->bw;
    q->fit.in_place = r->in_place;
    q->fit.allow_wrong = r->allow_wrong;
    q->fit.min_size = r->min_size;
    q->fit.max_size = r->max_size;
    q->fit.tolerance = r->tolerance;
    q->npus_per_node = r->npus_per_node;
    q->node_bw = r->node_bw;
    q->node_latency = r->node_latency;
}

/* The system file and the plot: the system is written (not yet renamed into place) before the
 * plot is drawn, and kept only when both succeed, so a failing one leaves no half of the pair. */
static int write_outputs(const th_calibrate_request *r, const th_cal_result *res,
                         const th_cmd_io *io, th_error *err) {
    if (!r->output) return r->plot ? th_cal_plot(r->plot, r->force, res, io->files, err) : TH_OK;
    th_cmd_io files = {NULL, io->files, io->argv, NULL, NULL, NULL, NULL, NULL};
    th_output o;
    int rc = th_cmd_out_open(&files, r->output, r->force, &o, err);
    if (rc) return rc;
    if (fprintf(o.f, "%s\n", res->out) < 0 || fflush(o.f))
        rc = th_error_set(err, TH_EIO, "write error: %s", strerror(errno));
    if (rc == TH_OK && r->plot) rc = th_cal_plot(r->plot, r->force, res, io->files, err);
    return th_cmd_out_close(&files, &o, rc, err);
}

/* What the logs of --npus-per-node determine, one line per dim. */
static const char *const determined[2][2] = {
    {"assumed (--node-bw, --node-latency: no single-node log)",
     "fitted given the node's assumed values: a multi-node log measures only the sums of the "
     "two dims' latency terms and bandwidth terms, so the split between the dims is the "
     "assumption's"},
    {"measured (the single-node log)",
     "measured (the multi-node log, with the node dim held at its measured values)"}};

/* The report of --npus-per-node: each stage's, then what the logs determine. */
static int report_nodes(FILE *f, int format, long long per, const th_cal_nodes *n, th_error *err) {
    int inner = n->ran[0];
    if (format == TH_FORMAT_JSON) return th_cal_nodes_report_json(f, per, n, err);
    for (int k = 0; k < 2; k++) {
        if (!n->ran[k]) continue;
        fprintf(f, "%sstage %d: dim %d (%s) from the %s log(s)\n\n", k && inner ? "\n" : "",
                k + 1 - !inner, k, k ? "network" : "node", k ? "multi-node" : "single-node");
        report(f, &n->q[k], &n->r[k]);
    }
    fprintf(f, "\nwhat the logs determine (%lld nodes x %lld NPUs):\n", n->nodes, per);
    fprintf(f, "  dim 0 (node):    latency_ns and bw_GBps %s\n", determined[inner][0]);
    fprintf(f, "  dim 1 (network): latency_ns and bw_GBps %s\n", determined[inner][1]);
    return TH_OK;
}

static int calibrate_nodes(const th_calibrate_request *r, const th_cal_request *q,
                           const th_cmd_io *io, th_error *err) {
    th_cal_nodes n;
    int rc = th_cal_run_nodes(q, &n, err);
    th_cal_result res = {0};
    if (rc == TH_OK) { /* the outputs as one calibration's: the system, the network's plot */
        res = n.r[1];
        rc = write_outputs(r, &res, io, err);
    }
    if (rc == TH_OK) {
        FILE *f = r->output && !strcmp(r->output, "-") ? io->aside : NULL;
        th_output o = {0};
        if (!f && (rc = th_cmd_out_open(io, NULL, 0, &o, err)) == TH_OK) f = o.f;
        if (rc == TH_OK && f) rc = report_nodes(f, r->format, q->npus_per_node, &n, err);
        if (o.f) rc = th_cmd_out_close(io, &o, rc, err);
    }
    for (int k = 0; rc == TH_OK && k < 2; k++)
        if (n.ran[k]) tell(&n.r[k], io);
    th_cal_nodes_free(&n);
    return rc;
}

int th_cmd_calibrate(const th_calibrate_request *r, const th_cmd_io *io, th_error *err) {
    const th_cmd_def *d = &th_cmd_calibrate_def;
    if (!r->logs.n && !io->argv) /* the command line's th_cal_request_check says LOG */
        return th_error_set(err, TH_EINPUT, "calibrate: logs: missing (a file or a list of files)");
    th_cal_request q;
    cal_request(r, &q);
    char name[32];
    if (th_cal_request_check(&q, err)) return th_cmd_usage(err, d, io, "%s", err->msg);
    th_plot_format format;
    if (r->plot && th_plot_format_of(r->plot, &format, err))
        return th_cmd_usage(err, d, io, "%s: %s", th_cmd_name(d, io, "plot", name, sizeof name),
                            err->msg);
    const char *outputs[] = {r->output, r->plot};
    if (th_cal_output_check(&q, outputs, 2, err)) return err->code;
    if (q.npus_per_node) return calibrate_nodes(r, &q, io, err);
    th_cal_result res;
    int rc = th_cal_run(&q, &res, err);
    if (rc == TH_OK) rc = write_outputs(r, &res, io, err);
    if (rc == TH_OK) {
        /* the report beside a system written to stdout goes aside (stderr) */
        FILE *f = r->output && !strcmp(r->output, "-") ? io->aside : NULL;
        th_output o = {0};
        if (!f && (rc = th_cmd_out_open(io, NULL, 0, &o, err)) == TH_OK) f = o.f;
        if (rc == TH_OK && f) {
            if (r->format == TH_FORMAT_JSON)
                rc = th_cal_report_json(f, &q, &res, err);
            else
                report(f, &q, &res);
        }
        if (o.f) rc = th_cmd_out_close(io, &o, rc, err);
    }
    if (rc == TH_OK) tell(&res, io);
    th_cal_result_free(&res);
    return rc;
}

/* `themis calibrate`: fit one dim's latency and bandwidth to nccl-tests / rccl-tests logs and
 * write a system file (docs/CALIBRATE.md). */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "themis/units.h"

static void usage(FILE *out) {
    fputs("usage: themis calibrate LOG... --topology T [--npus N] [-o OUT.json]\n"
          "       themis calibrate LOG... -s SYSTEM.json --dim K [-o OUT.json]\n"
          "\n"
          "Fit the latency_ns and bw_GBps (or the efficiency) of one dim to the times that\n"
          "nccl-tests or rccl-tests measured (their text output, or nccl-tests -J JSON), by\n"
          "least squares over the sizes, weighted by relative error. The collective comes from\n"
          "the log (all_reduce_perf, reduce_scatter_perf, all_gather_perf, alltoall_perf) or -c.\n"
          "Writes a new one-dim system, or the system of -s with dim K updated, and prints the\n"
          "fit, R^2 and the residual of every size, marking the sizes the model does not fit.\n"
          "\n"
          "options:\n"
          "  -c, --collective C  allreduce | reducescatter | allgather | alltoall (default: the\n"
          "                      test the log names)\n"
          "      --topology T    a new one-dim system: ring | fc | switch\n"
          "      --npus N        its NPUs (default: the ranks the log lists)\n"
          "      --algorithm A   its algorithm: ring | direct | rhd (default: the topology's)\n"
          "      --name NAME     its name (default: the output file's name)\n"
          "  -s, --system FILE   update a dim of this system file instead\n"
          "      --dim K         the dim of -s to update (default 0 when it has one dim)\n"
          "      --efficiency    fit the efficiency against the nominal bw_GBps (the dim's, or\n"
          "                      --bw for a new system) instead of bw_GBps\n"
          "      --bw GBPS       the nominal bandwidth of a new system's dim, for --efficiency\n"
          "      --in-place      fit the in-place times (default: out-of-place)\n"
          "      --min-size SIZE fit only the rows of at least this size (e.g. 1MiB)\n"
          "      --max-size SIZE fit only the rows of at most this size\n"
          "      --tolerance F   mark the rows whose relative residual exceeds F (default 0.1)\n"
          "      --allow-wrong   fit rows whose #wrong is not 0 (default: an error)\n"
          "      --plot FILE     measured and fitted time vs size (.png, .pdf or .svg; gnuplot)\n"
          "  -f, --format F      the report: table (default) | json (the fit, every row's\n"
          "                      residual and the system, as themis.calibrate returns them)\n"
          "  -o, --output FILE   the system file ('-' = stdout, the default; the report then\n"
          "                      goes to stderr)\n"
          "      --force         replace an existing OUT.json or plot\n"
          "  -h, --help          this text\n"
          "  -V, --version       print the version\n"
          "\n"
          "examples:\n"
          "  themis calibrate nccl-allreduce.log --topology switch --npus 8 -o measured.json\n"
          "  themis calibrate --dim 1 -s hgx.json rccl-ar.log rccl-ag.log -o hgx-fitted.json\n"
          "  themis run -s measured.json -b 1GiB\n" CLI_HELP_EXIT,
          out);
}

typedef struct args {
    th_cal_request q;
    const char *out, *plot;
    int force;
    th_format format;
} args;

static int parse(int argc, char **argv, args *a) {
    static const struct option longs[] = {
        {"collective", required_argument, 0, 'c'},
        {"topology", required_argument, 0, 'T'},
        {"npus", required_argument, 0, 'N'},
        {"algorithm", required_argument, 0, 'A'},
        {"name", required_argument, 0, 'm'},
        {"system", required_argument, 0, 's'},
        {"dim", required_argument, 0, 'd'},
        {"efficiency", no_argument, 0, 'e'},
        {"bw", required_argument, 0, 'B'},
        {"in-place", no_argument, 0, 'i'},
        {"min-size", required_argument, 0, 'l'},
        {"max-size", required_argument, 0, 'u'},
        {"tolerance", required_argument, 0, 't'},
        {"allow-wrong", no_argument, 0, 'w'},
        {"plot", required_argument, 0, 'P'},
        {"output", required_argument, 0, 'o'},
        {"force", no_argument, 0, 'F'},
        {"format", required_argument, 0, 'f'},
        {"help", no_argument, 0, 'h'},
        {"version", no_argument, 0, 'V'},
        {0, 0, 0, 0},
    };
    const char *cmd = "calibrate";
    int c;
    th_error err = {0};
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":c:s:o:f:hV", longs, NULL)) != -1) {
        th_topology topo;
        th_algorithm alg;
        long long v;
        char *end;
        switch (c) {
        case 'c':
            a->q.coll = th_name_find(th_coll_type_names, optarg);
            if (a->q.coll < 0)
                return cli_usage_error(cmd,
                                       "-c: unknown collective '%s' (expected allreduce, "
                                       "reducescatter, allgather or alltoall)",
                                       optarg);
            break;
        case 'T':
            if (th_topology_from_name(optarg, &topo))
                return cli_usage_error(
                    cmd, "--topology: unknown topology '%s' (expected ring, fc or switch)", optarg);
            a->q.topology = (int)topo;
            break;
        case 'A':
            if (th_algorithm_from_name(optarg, &alg))
                return cli_usage_error(
                    cmd, "--algorithm: unknown algorithm '%s' (expected ring, direct or rhd)",
                    optarg);
            a->q.algorithm = (int)alg;
            break;
        case 'N':
            if (cli_parse_int(optarg, 2, 1LL << 40, &a->q.npus))
                return cli_usage_error(cmd, "--npus: expected an integer >= 2, got '%s'", optarg);
            break;
        case 'd':
            if (cli_parse_int(optarg, 0, TH_MAX_DIMS - 1, &v))
                return cli_usage_error(cmd, "--dim: expected a dim index 0 .. %d, got '%s'",
                                       TH_MAX_DIMS - 1, optarg);
            a->q.dim = (int)v;
            break;
        case 'B':
            a->q.bw = strtod(optarg, &end);
            if (end == optarg || *end || !isfinite(a->q.bw) || a->q.bw <= 0)
                return cli_usage_error(cmd, "--bw: expected a bandwidth > 0 in GB/s, got '%s'",
                                       optarg);
            break;
        case 't':
            a->q.fit.tolerance = strtod(optarg, &end);
            if (end == optarg || *end || !(a->q.fit.tolerance > 0) || !isfinite(a->q.fit.tolerance))
                return cli_usage_error(cmd, "--tolerance: expected a number > 0, got '%s'", optarg);
            break;
        case 'l':
        case 'u':
            if (th_units_parse_size(optarg, c == 'l' ? "--min-size" : "--max-size",
                                    c == 'l' ? &a->q.fit.min_size : &a->q.fit.max_size, &err))
                return cli_usage_error(cmd, "%s", err.msg);
            break;
        case 'm': a->q.name = optarg; break;
        case 's': a->q.system = optarg; break;
        case 'e': a->q.efficiency = 1; break;
        case 'i': a->q.fit.in_place = 1; break;
        case 'w': a->q.fit.allow_wrong = 1; break;
        case 'P': a->plot = optarg; break;
        case 'o': a->out = optarg; break;
        case 'F': a->force = 1; break;
        case 'f':
            if (cli_parse_format(cmd, optarg, 1u << TH_FORMAT_TABLE | 1u << TH_FORMAT_JSON,
                                 &a->format))
                return CLI_USAGE;
            break;
        case 'h': usage(stdout); return -1;
        case 'V': cli_version(); return -1;
        case ':': return cli_usage_error(cmd, "option '%s' needs a value", argv[optind - 1]);
        default: return cli_usage_error(cmd, "unknown option '%s'", argv[optind - 1]);
        }
    }
    a->q.logs = (const char *const *)argv + optind;
    a->q.nlogs = argc - optind;
    if (th_cal_request_check(&a->q, &err)) return cli_usage_error(cmd, "%s", err.msg);
    th_plot_format format;
    if (a->plot && th_plot_format_of(a->plot, &format, &err))
        return cli_usage_error(cmd, "--plot: %s", err.msg);
    return 0;
}

/* The size with a binary unit when it is a whole one (1 KiB, 64 MiB), else bytes. */
static const char *size_text(double b, char *buf, size_t n) {
    th_units_size_text(b, buf, n);
    return buf;
}

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
    fprintf(f, "\n%-4s %6s %16s %14s %14s %10s\n", "log", "line", "size_bytes", "measured_us",
            "fitted_us", "residual");
    for (int i = 0; i < fit->npoints; i++) {
        const th_cal_point *p = &fit->points[i];
        fprintf(f, "%-4d %6d %16.0f %14.6g %14.6g %+9.2f%%%s\n", p->log + 1, p->line, p->size,
                p->time_ns / 1e3, p->fit_ns / 1e3, 100 * p->rel,
                !p->used     ? "  (not fitted)"
                : p->flagged ? "  * does not fit"
                             : "");
    }
    if (fit->nflagged) {
        double lo = INFINITY, hi = 0;
        for (int i = 0; i < fit->npoints; i++)
            if (fit->points[i].flagged) {
                lo = fmin(lo, fit->points[i].size);
                hi = fmax(hi, fit->points[i].size);
            }
        char s1[32], s2[32];
        fprintf(f,
                "\n%d row(s) the model does not fit (|residual| > %g%%), sizes %s to %s (small "
                "sizes: NCCL's low-latency protocols; large: limits the model lacks); "
                "--min-size and --max-size fit a range\n",
                fit->nflagged, 100 * a->fit.tolerance, size_text(lo, s1, sizeof s1),
                size_text(hi, s2, sizeof s2));
    }
}

int cli_calibrate(int argc, char **argv) {
    args a;
    memset(&a, 0, sizeof a);
    a.q.coll = a.q.topology = a.q.algorithm = a.q.dim = -1;
    a.out = "-";
    a.q.fit.tolerance = 0.1;
    a.format = TH_FORMAT_TABLE;
    int rc = parse(argc, argv, &a);
    if (rc) return rc < 0 ? CLI_OK : rc;
    th_error err = {0};
    const char *outputs[] = {a.out, a.plot};
    if (th_cal_output_check(&a.q, outputs, 2, &err)) return cli_fail(&err);

    th_cal_result r;
    rc = th_cal_run(&a.q, &r, &err);
    /* the system is written (not yet renamed into place) before the plot is drawn, and kept
     * only when both succeed: a failing one leaves no half of the pair */
    if (rc == TH_OK) {
        th_output o;
        rc = cli_out_open(&o, a.out, a.force ? TH_OUTPUT_FORCE : 0, &err);
        if (rc == TH_OK) {
            if (fprintf(o.f, "%s\n", r.out) < 0 || fflush(o.f))
                rc = th_error_set(&err, TH_EIO, "write error: %s", strerror(errno));
            if (rc == TH_OK && a.plot)
                rc = th_cal_plot(a.plot, a.force, &r, &cli_plot_outputs, &err);
            rc = cli_out_close(&o, rc, &err);
        }
    }
    if (rc == TH_OK) {
        FILE *f = strcmp(a.out, "-") ? stdout : stderr;
        if (a.format == TH_FORMAT_JSON)
            rc = th_cal_report_json(f, &a.q, &r, &err);
        else
            report(f, &a.q, &r);
    }
    if (rc == TH_OK) {
        if (r.fit.nwrong)
            fprintf(stderr,
                    "themis: warning: %d row(s) with #wrong > 0 fitted, the first at %s:%d\n",
                    r.fit.nwrong, r.logs[r.fit.wrong_log].source, r.fit.wrong_line);
        for (int l = 0; l < r.nlogs; l++)
            if (r.logs[l].rows_zero)
                fprintf(stderr, "themis: note: %s: %d row(s) of size 0 skipped\n", r.logs[l].source,
                        r.logs[l].rows_zero);
    }
    th_cal_result_free(&r);
    return rc ? cli_fail(&err) : CLI_OK;
}

/* `themis optimize`: the split of a bandwidth budget over the dims that makes one collective
 * fastest, per policy pair, as a table, JSON or CSV. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "themis/str.h"

static void usage(FILE *out) {
    fprintf(
        out,
        "usage: themis optimize [OPTIONS]\n"
        "\n"
        "Split a bandwidth budget over the dims (each dim's bw_GBps) so that one collective\n"
        "runs fastest under a policy pair: NLopt's COBYLA over the emulator, from three\n"
        "deterministic starts (equal split, the system's split, the baseline's bytes).\n"
        "The constraint: sum of cost x bw_GBps over the varied dims <= budget.\n"
        "\n"
        "options:\n"
        "  -s, --system FILE       system JSON (default: built-in default-3d)\n"
        "  -c, --collective TYPE   allreduce | reducescatter | allgather | alltoall\n"
        "  -b, --size SIZE         collective size (default 1GiB)\n"
        "  -n N                    chunks (default 64)\n"
        "  -w, --workload FILE     instead of one collective: minimise the workload's\n"
        "                          steady-state iteration (themis train's semantics:\n"
        "                          3 iterations, priority lifo, the workload's batch)\n"
        "      --batch B           with -w: samples per NPU (default: the workload's)\n"
        "      --priority R        with -w: between collectives in flight (as themis\n"
        "                          train --priority; default lifo)\n"
        "  -l, --collectives FILE  instead of one collective: minimise the weighted sum of\n"
        "                          the times of a list of collectives (JSON: {\"collectives\":\n"
        "                          [{\"type\", \"size\", \"weight\", \"chunks\", \"dims\"}]};\n"
        "                          chunks default to -n)\n"
        "  -p, --policy P          baseline | themis | roundrobin | lp | all (default themis)\n"
        "  -q, --intra Q           fifo | scf (default scf)\n"
        "      --budget X          budget in cost units (default: the system's own sum, so\n"
        "                          with unit costs its total injection bandwidth, GB/s)\n"
        "      --cost LIST         cost per GB/s of each dim, e.g. 1,1,2 (default all 1)\n"
        "      --dims LIST         the dims whose bandwidth varies (default: every active)\n"
        "      --min X, --max X    bounds of each varied bw_GBps (default 0.001, budget)\n"
        "      --max-evals N       evaluations per start (default 2000)\n"
        "      --objective O       time (default) | perf-per-cost (least time x spent)\n"
        "      --chunks LIST       instead: the best chunk count per policy among LIST\n"
        "                          (e.g. 1,4,16,64; auto = powers of two 1 to 1024; one\n"
        "                          number is -n)\n"
        "  -f, --format F          table | json | csv (default table)\n"
        "                          (progress goes to stderr when it is a terminal)\n"
        "  -o, --output FILE       write results to FILE ('-' = stdout, the default)\n"
        "      --trace FILE        write every evaluated point as CSV (policy, start, eval,\n"
        "                          dimK_bw_GBps, spent, time_us)\n"
        "      --force             replace an existing output or trace file\n"
        "  -h, --help              this text\n"
        "  -V, --version           print the version\n"
        "\n"
        "examples:\n"
        "  themis optimize -s models/systems/default-3d.json -b 1GiB -n 64 -p themis -q scf\n"
        "  themis optimize -p all --budget 600 -f csv\n"
        "  themis optimize -b 256MiB -p all --chunks auto\n"
        "  themis optimize -l models/collectives/llm-step.json -p all\n" CLI_HELP_EXIT);
}

enum {
    OPT_BUDGET = 256,
    OPT_COST,
    OPT_DIMS,
    OPT_MIN,
    OPT_MAX,
    OPT_EVALS,
    OPT_FORCE,
    OPT_CHUNKS,
    OPT_TRACE,
    OPT_OBJECTIVE,
    OPT_BATCH,
    OPT_PRIORITY
};

#define MAX_CHUNK_LIST 64

typedef struct options {
    const char *system, *output, *dims, *cost, *chunks; /* chunks: --chunks LIST */
    const char *workload;                               /* -w FILE */
    const char *list;                                   /* -l FILE */
    const char *trace;                                  /* --trace FILE */
    th_collective coll;
    int policy; /* -1 = all */
    th_intra intra;
    th_opt_opts opt;
    th_format format;
    int force;
    int train_opts; /* --batch or --priority given: they need -w */
    int coll_opts;  /* -c or -b given: they describe one collective, not -w or -l */
} options;

static int parse_num(const char *what, const char *s, double *out) {
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end || !(v > 0) || v > 1e12)
        return cli_usage_error("optimize", "%s: expected a number > 0, got '%s'", what, s);
    *out = v;
    return CLI_OK;
}

static int parse(int argc, char **argv, options *o) {
    static const struct option longs[] = {
        {"system", required_argument, 0, 's'},
        {"collective", required_argument, 0, 'c'},
        {"size", required_argument, 0, 'b'},

        {"policy", required_argument, 0, 'p'},
        {"intra", required_argument, 0, 'q'},
        {"budget", required_argument, 0, OPT_BUDGET},
        {"cost", required_argument, 0, OPT_COST},
        {"dims", required_argument, 0, OPT_DIMS},
        {"min", required_argument, 0, OPT_MIN},
        {"max", required_argument, 0, OPT_MAX},
        {"max-evals", required_argument, 0, OPT_EVALS},
        {"format", required_argument, 0, 'f'},
        {"output", required_argument, 0, 'o'},
        {"force", no_argument, 0, OPT_FORCE},
        {"chunks", required_argument, 0, OPT_CHUNKS},
        {"trace", required_argument, 0, OPT_TRACE},
        {"workload", required_argument, 0, 'w'},
        {"collectives", required_argument, 0, 'l'},
        {"objective", required_argument, 0, OPT_OBJECTIVE},
        {"batch", required_argument, 0, OPT_BATCH},
        {"priority", required_argument, 0, OPT_PRIORITY},
        {"help", no_argument, 0, 'h'},
        {"version", no_argument, 0, 'V'},
        {0, 0, 0, 0},
    };
    th_error err;
    opterr = 0;
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, ":s:c:b:n:p:q:f:o:w:l:hV", longs, NULL)) != -1) {
        switch (c) {
        case 's': o->system = optarg; break;
        case 'w': o->workload = optarg; break;
        case 'l': o->list = optarg; break;
        case 'c':
            if (th_coll_type_from_name(optarg, &o->coll.type))
                return cli_usage_error("optimize", "-c: unknown collective '%s'", optarg);
            o->coll_opts = 1;
            break;
        case 'b':
            if (th_units_parse_size(optarg, "--size", &o->coll.size, &err)) return cli_fail(&err);
            o->coll_opts = 1;
            break;
        case 'n': {
            long long v;
            if (cli_parse_int(optarg, 1, TH_MAX_CHUNKS, &v))
                return cli_usage_error("optimize", "-n: expected an integer from 1 to %d, got '%s'",
                                       TH_MAX_CHUNKS, optarg);
            o->coll.chunks = v;
            break;
        }
        case 'p': {
            th_policy p;
            if (!strcmp(optarg, "all"))
                o->policy = -1;
            else if (th_policy_from_name(optarg, &p) == 0 && p <= TH_POLICY_LAST_SINGLE)
                o->policy = (int)p;
            else
                return cli_usage_error("optimize",
                                       "-p: unknown policy '%s' (expected baseline, themis, "
                                       "roundrobin, lp or all)",
                                       optarg);
            break;
        }
        case 'q':
            if (th_intra_from_name(optarg, &o->intra))
                return cli_usage_error("optimize", "-q: expected fifo or scf, got '%s'", optarg);
            break;
        case OPT_BUDGET:
            if (parse_num("--budget", optarg, &o->opt.budget)) return CLI_USAGE;
            break;
        case OPT_COST: o->cost = optarg; break;
        case OPT_DIMS: o->dims = optarg; break;
        case OPT_MIN:
            if (parse_num("--min", optarg, &o->opt.min_GBps)) return CLI_USAGE;
            break;
        case OPT_MAX:
            if (parse_num("--max", optarg, &o->opt.max_GBps)) return CLI_USAGE;
            break;
        case OPT_EVALS: {
            long long v;
            if (cli_parse_int(optarg, 1, 1000000, &v))
                return cli_usage_error("optimize", "--max-evals: expected 1 to 1000000, got '%s'",
                                       optarg);
            o->opt.max_evals = (int)v;
            break;
        }
        case 'f':
            if (cli_parse_format("optimize", optarg, 0x7u, &o->format)) return CLI_USAGE;
            break;
        case 'o': o->output = optarg; break;
        case OPT_FORCE: o->force = 1; break;
        case OPT_TRACE: o->trace = optarg; break;
        case OPT_OBJECTIVE: {
            int i = th_name_find(th_opt_objective_names, optarg);
            if (i < 0)
                return cli_usage_error(
                    "optimize", "--objective: expected time or perf-per-cost, got '%s'", optarg);
            o->opt.objective = (th_opt_objective)i;
            break;
        }
        case OPT_CHUNKS: { /* one count is -n's; a list or auto asks for the best count */
            long long v;
            if (cli_parse_int(optarg, 1, TH_MAX_CHUNKS, &v) == 0)
                o->coll.chunks = v;
            else
                o->chunks = optarg;
            break;
        }
        case OPT_BATCH:
            if (cli_parse_batch("optimize", optarg, &o->opt.train.batch)) return CLI_USAGE;
            o->train_opts = 1;
            break;
        case OPT_PRIORITY:
            if (th_priority_from_name(optarg, &o->opt.train.priority))
                return cli_usage_error("optimize", "--priority: unknown priority '%s'", optarg);
            o->train_opts = 1;
            break;
        case 'h': usage(stdout); return -1;
        case 'V': cli_version(); return -1;
        case ':': return cli_usage_error("optimize", "option '%s' needs a value", argv[optind - 1]);
        default: return cli_usage_error("optimize", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind < argc) return cli_usage_error("optimize", "unexpected argument '%s'", argv[optind]);
    if (o->train_opts && !o->workload)
        return cli_usage_error("optimize", "--batch and --priority apply to a workload (-w)");
    if (o->coll_opts && (o->workload || o->list))
        return cli_usage_error("optimize", "-c and -b describe one collective: not with %s",
                               o->workload ? "-w (the workload names its collectives)"
                                           : "-l (the list gives each type and size)");
    return CLI_OK;
}

/* "1,1,2": one cost > 0 per dim of the system. */
static int parse_cost(const char *list, int ndims, double *cost) {
    const char *s = list;
    for (int d = 0; d < ndims; d++) {
        char *end;
        cost[d] = strtod(s, &end);
        if (end == s || !(cost[d] > 0) || cost[d] > 1e12 || (*end != ',' && *end != '\0') ||
            (*end == '\0' && d != ndims - 1) || (*end == ',' && d == ndims - 1))
            return cli_usage_error("optimize",
                                   "--cost: expected %d numbers > 0 separated by commas (one "
                                   "per dim), got '%s'",
                                   ndims, list);
        s = end + 1;
    }
    return CLI_OK;
}

/* "1,4,16" or "auto" (1, 2, 4, ..., 1024) into list; returns the count, or -1 (reported). */
static int parse_chunks(const char *text, int64_t *list) {
    int n = 0;
    if (!strcmp(text, "auto")) {
        for (int64_t c = 1; c <= 1024; c *= 2)
            list[n++] = c;
        return n;
    }
    const char *s = text;
    while (n < MAX_CHUNK_LIST) {
        char *end;
        long long v = strtoll(s, &end, 10);
        if (end == s || v < 1 || v > TH_MAX_CHUNKS || (*end != ',' && *end != '\0')) break;
        list[n++] = v;
        if (*end == '\0') return n;
        s = end + 1;
    }
    cli_usage_error("optimize",
                    "--chunks: expected auto or up to %d integers from 1 to %d separated by "
                    "commas, got '%s'",
                    MAX_CHUNK_LIST, TH_MAX_CHUNKS, text);
    return -1;
}

/* --chunks: one row per pair, the best chunk count and its time. */
static int best_chunks(const options *o, const th_system *sys, th_error *err) {
    int64_t list[MAX_CHUNK_LIST];
    int n = parse_chunks(o->chunks, list);
    if (n < 0) return CLI_USAGE;
    th_pair pairs[TH_POLICY_LAST_SINGLE + 1];
    int64_t best[TH_POLICY_LAST_SINGLE + 1];
    double t[TH_POLICY_LAST_SINGLE + 1];
    int npairs = th_opt_pairs(sys, &o->coll, NULL, o->policy, o->intra, pairs);
    for (int i = 0; i < npairs; i++)
        if (th_opt_chunks(sys, &o->coll, pairs[i], TH_LOAD_ALPHA_BETA, list, n, &best[i], &t[i],
                          err))
            return cli_fail(err);
    th_output out;
    int rc = cli_out_open(&out, o->output ? o->output : "-", o->force ? TH_OUTPUT_FORCE : 0, err);
    if (rc) return cli_fail(err);
    th_buf buf = {0};
    int bad = 0;
    char a[32];
    if (o->format == 1) {
        rc = th_report_best_chunks_json(out.f, pairs, best, t, npairs, err);
    } else if (o->format == 2) {
        const char *head[] = {"system", "policy", "intra", "size_bytes", "best_chunks", "time_us"};
        for (size_t k = 0; k < sizeof head / sizeof *head; k++)
            bad |= th_csv_field(&buf, head[k]);
        bad |= th_csv_end(&buf);
        for (int i = 0; i < npairs; i++) {
            bad |= th_csv_field(&buf, sys->name);
            bad |= th_csv_field(&buf, th_policy_name(pairs[i].policy));
            bad |= th_csv_field(&buf, th_intra_name(pairs[i].intra));
            bad |= th_csv_num(&buf, o->coll.size);
            bad |= th_csv_int(&buf, (long long)best[i]);
            bad |= th_csv_num(&buf, t[i] / 1000.0);
            bad |= th_csv_end(&buf);
        }
        if (!bad) th_csv_write(out.f, &buf);
    } else {
        fprintf(out.f, "best chunk count per policy on %s (%s of %.15g bytes)\n", sys->name,
                th_coll_type_name(o->coll.type), o->coll.size);
        for (int i = 0; i < npairs; i++)
            fprintf(out.f, "  %-11s %-5s %8lld chunks  %s us\n", th_policy_name(pairs[i].policy),
                    th_intra_name(pairs[i].intra), (long long)best[i],
                    th_report_num(a, t[i] / 1000.0));
    }
    if (rc == TH_OK && bad) rc = th_error_set(err, TH_EINTERNAL, "out of memory");
    th_buf_free(&buf);
    if (cli_out_close(&out, rc, err)) return cli_fail(err);
    return CLI_OK;
}

/* --trace: one CSV row per evaluated point. */
typedef struct trace_ctx {
    FILE *out;
    int ndims;
    const char *policy;
    long long evals;
    int oom;
    int progress; /* stderr is a terminal: a progress line every 100 points */
} trace_ctx;

static void trace_point(void *ctx, int start, const double *bw, double time, double spent) {
    trace_ctx *t = ctx;
    if (t->progress && t->evals % 100 == 0)
        fprintf(stderr, "\roptimize: %s, start %d of 3, %lld evaluations ", t->policy, start + 1,
                t->evals);
    if (!t->out) {
        t->evals++;
        return;
    }
    th_buf b = {0};
    int bad = th_csv_field(&b, t->policy);
    bad |= th_csv_int(&b, start);
    bad |= th_csv_int(&b, t->evals++);
    for (int d = 0; d < t->ndims; d++)
        bad |= th_csv_num(&b, bw[d]);
    bad |= th_csv_num(&b, spent);
    bad |= th_csv_num(&b, time / 1000.0);
    bad |= th_csv_end(&b);
    if (!bad) th_csv_write(t->out, &b);
    t->oom |= bad;
    th_buf_free(&b);
}

static void print(FILE *out, const options *o, const th_system *sys, const th_pair *pairs,
                  const th_opt_result *res, int n) {
    char a[32], b[32];
    if (o->format == 1) {
        th_error err;
        th_report_optimize_json(out, sys, pairs, res, n, &err); /* errors: on the stream */
        return;
    }
    if (o->format == 2) {
        th_buf buf = {0};
        int bad = 0;
        const char *head[] = {"system",  "policy",        "intra",   "size_bytes", "chunks",
                              "time_us", "start_time_us", "speedup", "spent",      "evaluations"};
        for (size_t k = 0; k < sizeof head / sizeof *head; k++)
            bad |= th_csv_field(&buf, head[k]);
        for (int d = 0; d < sys->ndims; d++) {
            char col[32];
            snprintf(col, sizeof col, "dim%d_bw_GBps", d);
            bad |= th_csv_field(&buf, col);
        }
        bad |= th_csv_end(&buf);
        for (int i = 0; i < n; i++) {
            bad |= th_csv_field(&buf, sys->name);
            bad |= th_csv_field(&buf, th_policy_name(pairs[i].policy));
            bad |= th_csv_field(&buf, th_intra_name(pairs[i].intra));
            if (o->list) { /* several sizes: no one value */
                bad |= th_csv_field(&buf, "");
                bad |= th_csv_field(&buf, "");
            } else {
                bad |= th_csv_num(&buf, o->coll.size);
                bad |= th_csv_int(&buf, (long long)o->coll.chunks);
            }
            bad |= th_csv_num(&buf, res[i].time / 1000.0);
            bad |= th_csv_num(&buf, res[i].start_time / 1000.0);
            bad |= th_csv_num(&buf, res[i].start_time / res[i].time);
            bad |= th_csv_num(&buf, res[i].spent);
            bad |= th_csv_int(&buf, res[i].evals);
            for (int d = 0; d < sys->ndims; d++)
                bad |= th_csv_num(&buf, res[i].bw_GBps[d]);
            bad |= th_csv_end(&buf);
        }
        if (!bad) th_csv_write(out, &buf);
        th_buf_free(&buf);
        return;
    }
    if (o->workload)
        fprintf(out, "steady-state iteration of %s on %s: best split of the bandwidth budget\n\n",
                o->workload, sys->name);
    else if (o->list)
        fprintf(out,
                "weighted sum of the times of the collectives in %s on %s: best split of the "
                "bandwidth budget\n\n",
                o->list, sys->name);
    else
        fprintf(out, "%s of %s bytes in %lld chunks on %s: best split of the bandwidth budget\n\n",
                th_coll_type_name(o->coll.type), th_report_num(a, o->coll.size),
                (long long)o->coll.chunks, sys->name);
    for (int i = 0; i < n; i++) {
        fprintf(out, "%s + %s: %s us (was %s us, %.4gx), %d evaluations, spent %.10g\n",
                th_policy_name(pairs[i].policy), th_intra_name(pairs[i].intra),
                th_report_num(a, res[i].time / 1000.0),
                th_report_num(b, res[i].start_time / 1000.0), res[i].start_time / res[i].time,
                res[i].evals, res[i].spent);
        for (int d = 0; d < sys->ndims; d++)
            fprintf(out, "  dim %d %-10s %14.10g GB/s (was %.10g)\n", d, sys->dims[d].name,
                    res[i].bw_GBps[d], sys->dims[d].bw_GBps);
    }
}

int cli_optimize(int argc, char **argv) {
    options o;
    memset(&o, 0, sizeof o);
    o.coll = (th_collective){TH_COLL_ALLREDUCE, 1073741824.0, 64, 0};
    o.policy = TH_POLICY_THEMIS;
    o.intra = TH_INTRA_SCF;
    o.opt.train.priority = TH_PRIO_LIFO;
    int rc = parse(argc, argv, &o);
    if (rc) return rc < 0 ? CLI_OK : rc;
    th_error err = {0};
    const char *inputs[] = {o.system, o.workload, o.list}, *outputs[] = {o.output};
    if (th_output_check(inputs, 3, outputs, 1, &err)) return cli_fail(&err);
    if (o.list && o.workload)
        return cli_usage_error("optimize", "-l and -w: one objective at a time");
    th_system sys;
    th_run_defaults def;
    if (cli_load_system(o.system, &sys, &def, &err)) return cli_fail(&err);
    if (o.dims && th_sched_parse_dims(o.dims, sys.ndims, &o.opt.vary, &err)) return cli_fail(&err);
    if (o.cost && (rc = parse_cost(o.cost, sys.ndims, o.opt.cost))) return rc;
    if (th_collective_validate(&sys, &o.coll, &err))
        return cli_blame(&err, o.system), cli_fail(&err);
    if (o.chunks) {
        if (o.workload || o.list)
            return cli_usage_error("optimize", "--chunks: one collective only, not with -w or -l");
        if (o.trace)
            return cli_usage_error("optimize", "--trace: no points to trace with --chunks");
        return best_chunks(&o, &sys, &err);
    }
    const char *outs[] = {o.output, o.trace};
    if (th_output_check(inputs, 3, outs, 2, &err)) return cli_fail(&err);
    th_collist list = {0};
    if (o.list) {
        if (th_collist_load(o.list, &list, &err) ||
            th_collist_check(&list, &sys, o.coll.chunks, o.list, &err))
            return th_collist_free(&list), cli_fail(&err);
        o.opt.list = &list;
    }
    th_workload *wl = NULL;
    if (o.workload) {
        if (th_workload_load(o.workload, &wl, &err)) return cli_fail(&err);
        if (sys.model != TH_MODEL_ANALYTICAL)
            th_error_set(&err, TH_EINPUT, "%s: model: workloads run on the analytical model only",
                         o.system);
        else
            th_workload_check(wl, &sys, o.workload, &err);
        if (err.code) return th_workload_free(wl), th_collist_free(&list), cli_fail(&err);
        o.opt.wl = wl;
        o.opt.train.iterations = 3;
        o.opt.train.model = TH_LOAD_ALPHA_BETA;
    }
    th_output trace;
    trace_ctx tc = {NULL, sys.ndims, NULL, 0, 0, isatty(STDERR_FILENO)};
    if (tc.progress) {
        o.opt.point = trace_point;
        o.opt.point_ctx = &tc;
    }
    if (o.trace) {
        if ((rc = cli_out_open(&trace, o.trace, o.force ? TH_OUTPUT_FORCE : 0, &err)))
            return th_workload_free(wl), th_collist_free(&list), cli_fail(&err);
        tc.out = trace.f;
        fputs("policy,start,eval", tc.out);
        for (int d = 0; d < sys.ndims; d++)
            fprintf(tc.out, ",dim%d_bw_GBps", d);
        fputs(",spent,time_us\n", tc.out);
        o.opt.point = trace_point;
        o.opt.point_ctx = &tc;
    }
    th_pair pairs[TH_POLICY_LAST_SINGLE + 1];
    th_opt_result res[TH_POLICY_LAST_SINGLE + 1];
    int npairs = th_opt_pairs(&sys, &o.coll, o.opt.list, o.policy, o.intra, pairs), n = 0;
    for (; n < npairs; n++) {
        o.opt.pair = pairs[n];
        o.opt.model = TH_LOAD_ALPHA_BETA;
        tc.policy = th_policy_name(pairs[n].policy);
        tc.evals = 0;
        if ((rc = th_opt_bandwidth(&sys, &o.coll, &o.opt, &res[n], &err))) break;
    }
    if (tc.progress) fputs("\r\033[K", stderr); /* clear the progress line */
    if (rc == TH_OK && tc.oom) rc = th_error_set(&err, TH_EINTERNAL, "out of memory");
    th_workload_free(wl);
    th_collist_free(&list);
    if (o.trace) rc = cli_out_close(&trace, rc, &err);
    if (rc) return cli_fail(&err);
    th_output out;
    if ((rc = cli_out_open(&out, o.output ? o.output : "-", o.force ? TH_OUTPUT_FORCE : 0, &err)))
        return cli_fail(&err);
    print(out.f, &o, &sys, pairs, res, n);
    if (cli_out_close(&out, TH_OK, &err)) return cli_fail(&err);
    return CLI_OK;
}

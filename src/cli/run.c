/* `themis run`: evaluate one collective on one system under each requested policy pair and
 * print the comparison (table, JSON or CSV), optionally with the per-stage trace. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "themis/cost.h"

static void usage(FILE *out) {
    fprintf(out,
            "usage: themis run [OPTIONS]\n"
            "\n"
            "Evaluate one collective under each inter-dimension policy (baseline, themis,\n"
            "roundrobin, lp) and intra-dimension policy (fifo, scf); speedups are against\n"
            "baseline+fifo on the same system, collective and chunk count.\n"
            "\n"
            "options:\n"
            "  -s, --system FILE       system JSON (default: built-in default-3d, 512 NPUs)\n"
            "  -c, --collective TYPE   allreduce | reducescatter | allgather | alltoall\n"
            "                          (default allreduce)\n"
            "  -b, --size SIZE         collective size: 4096, 1e9, 64MiB, 1GB (default 1GiB)\n"
            "  -n, --chunks N          chunks, 1 to 1000000 (default 64)\n"
            "  -p, --policy P          baseline | themis | roundrobin | lp | all (default all;\n"
            "                          all has lp on the analytical model, <= %d active dims)\n"
            "  -q, --intra Q           fifo | scf | all (default all)\n"
            "      --dims LIST         involved dims, e.g. 0,2 (default: all)\n"
            "      --load-model M      themis load model: alpha_beta | bandwidth\n"
            "                          (default alpha_beta)\n"
            "  -f, --format F          table | json | csv | jsonl (default table; jsonl: one\n"
            "                          result object per line, as in json's results)\n"
            "  -o, --output FILE       write results to FILE ('-' = stdout, the default)\n"
            "      --trace FILE        write the per-stage trace CSV to FILE ('-' = stdout)\n"
            "      --force             replace an existing output or trace file\n"
            "      --bound             add bound_us, the least time any mix of chunk orders can\n"
            "                          reach (a linear program; analytical model, <= %d active\n"
            "                          dims), and vs_bound = bound / time for each result\n"
            "      --ideal-lat         add ideal_lat_us, the ideal plus the collective's latency\n"
            "                          floor (one chunk's link latencies on its critical path;\n"
            "                          analytical model), and vs_ideal_lat = it / time\n"
            "  -h, --help              this text\n"
            "  -V, --version           print the version\n"
            "\n"
            "examples:\n"
            "  themis run\n"
            "  themis run -s models/systems/default-3d.json -b 64MiB -n 16 -p themis -q scf\n"
            "  themis run -c reducescatter --dims 0,2 -f csv -o out.csv --trace "
            "trace.csv\n"
            "  themis run -s models/systems/hetero-4d.json -n 256 --bound\n" CLI_HELP_EXIT,
            TH_BOUND_MAX_DIMS, TH_BOUND_MAX_DIMS);
}

enum { OPT_DIMS = 256, OPT_LOAD_MODEL, OPT_TRACE, OPT_FORCE, OPT_BOUND, OPT_IDEAL_LAT };

typedef struct options {
    const char *system, *dims, *output, *trace;
    th_collective coll;
    int policy, intra; /* -1 = all */
    th_load_model model;
    th_format format;                      /* -f */
    int force;                             /* replace existing output files */
    int bound;                             /* --bound: add the optimal bound */
    int ideal_lat;                         /* --ideal-lat: add the ideal with latency floors */
    int set_chunks, set_policy, set_intra; /* given on the command line */
} options;

static int parse(int argc, char **argv, options *o) {
    static const struct option longs[] = {
        {"system", required_argument, 0, 's'},
        {"collective", required_argument, 0, 'c'},
        {"size", required_argument, 0, 'b'},
        {"chunks", required_argument, 0, 'n'},
        {"policy", required_argument, 0, 'p'},
        {"intra", required_argument, 0, 'q'},
        {"dims", required_argument, 0, OPT_DIMS},
        {"load-model", required_argument, 0, OPT_LOAD_MODEL},
        {"format", required_argument, 0, 'f'},
        {"output", required_argument, 0, 'o'},
        {"trace", required_argument, 0, OPT_TRACE},
        {"force", no_argument, 0, OPT_FORCE},
        {"bound", no_argument, 0, OPT_BOUND},
        {"ideal-lat", no_argument, 0, OPT_IDEAL_LAT},
        {"help", no_argument, 0, 'h'},
        {"version", no_argument, 0, 'V'},
        {0, 0, 0, 0},
    };
    th_error err;
    opterr = 0;
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, ":s:c:b:n:p:q:f:o:hV", longs, NULL)) != -1) {
        switch (c) {
        case 's': o->system = optarg; break;
        case 'c':
            if (th_coll_type_from_name(optarg, &o->coll.type))
                return cli_usage_error("run",
                                       "-c: unknown collective '%s' (expected allreduce, "
                                       "reducescatter, allgather or alltoall)",
                                       optarg);
            break;
        case 'b':
            if (th_units_parse_size(optarg, "--size", &o->coll.size, &err)) return cli_fail(&err);
            break;
        case 'n': {
            long long v;
            if (cli_parse_int(optarg, 1, TH_MAX_CHUNKS, &v))
                return cli_usage_error("run", "-n: expected an integer from 1 to %d, got '%s'",
                                       TH_MAX_CHUNKS, optarg);
            o->coll.chunks = v;
            o->set_chunks = 1;
            break;
        }
        case 'p':
            o->set_policy = 1;
            if (cli_parse_policy("run", optarg, TH_POLICY_LAST_SINGLE + 1, &o->policy))
                return CLI_USAGE;
            break;
        case 'q':
            o->set_intra = 1;
            if (cli_parse_intra("run", optarg, &o->intra)) return CLI_USAGE;
            break;
        case OPT_DIMS: o->dims = optarg; break;
        case OPT_LOAD_MODEL:
            if (th_load_model_from_name(optarg, &o->model))
                return cli_usage_error("run",
                                       "--load-model: unknown model '%s' (expected "
                                       "alpha_beta or bandwidth)",
                                       optarg);
            break;
        case 'f':
            if (cli_parse_format("run", optarg, CLI_FORMATS_ALL, &o->format)) return CLI_USAGE;
            break;
        case 'o': o->output = optarg; break;
        case OPT_TRACE: o->trace = optarg; break;
        case OPT_FORCE: o->force = 1; break;
        case OPT_BOUND: o->bound = 1; break;
        case OPT_IDEAL_LAT: o->ideal_lat = 1; break;
        case 'h': usage(stdout); return -1;
        case 'V': cli_version(); return -1;
        case ':': return cli_usage_error("run", "option '%s' needs a value", argv[optind - 1]);
        default: return cli_usage_error("run", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind < argc) return cli_usage_error("run", "unexpected argument '%s'", argv[optind]);
    if (o->trace && !strcmp(o->trace, "-") && (!o->output || !strcmp(o->output, "-")))
        return cli_usage_error("run", "--trace - needs -o FILE (results and trace cannot both "
                                      "go to stdout)");
    return CLI_OK;
}

typedef struct trace_ctx {
    FILE *out;
    const th_pair *pairs;
    int cur;
    int oom; /* a trace row could not be built */
} trace_ctx;

static void trace_row(void *ctx, const th_stage_rec *rec) {
    trace_ctx *t = ctx;
    if (th_report_trace_row(t->out, t->pairs[t->cur], rec)) t->oom = 1;
}

static int evaluate(const options *o, const th_system *sys, double bound, th_error *err) {
    th_pair pairs[TH_RUN_MAX_PAIRS];
    int npairs = th_run_pairs(sys, o->coll.dims_mask, o->policy, o->intra, pairs);
    th_result results[TH_RUN_MAX_PAIRS];
    /* Both outputs are opened before the work and replace their files only if all went well. */
    int flags = o->force ? TH_OUTPUT_FORCE : 0;
    th_output out, trace;
    int rc = cli_out_open(&out, o->output ? o->output : "-", flags, err);
    if (rc) return rc;
    trace_ctx tc = {NULL, pairs, 0, 0};
    if (o->trace) {
        if ((rc = cli_out_open(&trace, o->trace, flags, err))) return cli_out_close(&out, rc, err);
        tc.out = trace.f;
        th_report_trace_header(tc.out);
    }
    th_runner *runner = th_runner_create();
    if (!runner) rc = th_error_set(err, TH_EINTERNAL, "out of memory");
    if (rc == TH_OK)
        rc = th_run_compare(runner, sys, &o->coll, pairs, npairs, o->model,
                            tc.out ? trace_row : NULL, &tc, &tc.cur, results, err);
    th_runner_free(runner);
    if (rc == TH_OK && tc.oom) rc = th_error_set(err, TH_EINTERNAL, "out of memory");
    if (rc == TH_OK) {
        th_report rep = {
            sys,
            &o->coll,
            o->model,
            pairs,
            results,
            npairs,
            bound,
            o->ideal_lat,
            th_cost_latency_floor(sys, o->coll.type == TH_COLL_ALLREDUCE, o->coll.dims_mask)};
        rc = th_report_write(out.f, o->format, &rep, err);
    }
    if (o->trace) rc = cli_out_close(&trace, rc, err);
    return cli_out_close(&out, rc, err);
}

int cli_run(int argc, char **argv) {
    options o = {0};
    o.coll = (th_collective){TH_COLL_ALLREDUCE, 1073741824.0, 64, 0};
    o.policy = o.intra = -1;
    o.model = TH_LOAD_ALPHA_BETA;
    int rc = parse(argc, argv, &o);
    if (rc) return rc < 0 ? CLI_OK : rc;

    th_error err = {0};
    const char *inputs[] = {o.system}, *outputs[] = {o.output, o.trace};
    if (th_output_check(inputs, 1, outputs, 2, &err)) return cli_fail(&err);
    th_system sys;
    th_run_defaults def;
    if (cli_load_system(o.system, &sys, &def, &err)) return cli_fail(&err);
    /* A system file's "run" defaults (e.g. from import-astra) stand in for absent options. */
    if (!o.set_chunks && def.chunks) o.coll.chunks = def.chunks;
    if (!o.set_policy && def.has_policy) o.policy = (int)def.policy;
    if (!o.set_intra && def.has_intra) o.intra = (int)def.intra;
    if (o.dims && th_sched_parse_dims(o.dims, sys.ndims, &o.coll.dims_mask, &err))
        return cli_fail(&err);
    /* What the options ask of this system (no active dim, a collective the preset does not
     * model): the system file is named. */
    if (th_collective_validate(&sys, &o.coll, &err))
        return cli_blame(&err, o.system), cli_fail(&err);
    th_bound bound = {0};
    /* -p lp, or --bound, where the program does not apply: the reason, naming the file */
    if ((o.bound || (o.policy == TH_POLICY_LP && !th_bound_supported(&sys, o.coll.dims_mask))) &&
        th_bound_eval(&sys, &o.coll, TH_BOUND_AUTO, &bound, &err))
        return cli_blame(&err, o.system), cli_fail(&err);
    if (o.ideal_lat && th_run_check_ideal_lat(&sys, &err))
        return cli_blame(&err, o.system), cli_fail(&err);
    if (evaluate(&o, &sys, bound.time, &err)) return cli_fail(&err);
    return CLI_OK;
}

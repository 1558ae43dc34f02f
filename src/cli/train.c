/* `themis train`: replay a training workload on a system under each policy (and the ideal
 * network) and print the iteration breakdown. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "themis/str.h"
#include "themis/units.h"
#include "themis/workload.h"

static void usage(FILE *out) {
    fputs("usage: themis train WORKLOAD.json|WORKLOAD.txt [OPTIONS]\n"
          "\n"
          "Replay training iterations of a workload (docs/WORKLOADS.md): compute overlapped\n"
          "with its collectives, several collectives in flight sharing the network. Prints the\n"
          "steady-state iteration time, compute, exposed communication and speedups against\n"
          "baseline+fifo and against the ideal network (every collective at the summed\n"
          "bandwidth of its dims).\n"
          "\n"
          "options:\n"
          "  -s, --system FILE       system JSON (default: built-in default-3d)\n"
          "  -p, --policy P          baseline | themis | themis-global | roundrobin | lp | ideal | "
          "all\n"
          "                          (default all: every policy and the ideal network)\n"
          "  -q, --intra Q           fifo | scf | all (default all)\n"
          "      --priority R        fifo | lifo | layer: between collectives in flight, the\n"
          "                          older first, the newer first (default, as ASTRA-sim), or\n"
          "                          the earliest layer first (blocking ones before all)\n"
          "      --iterations N      iterations replayed, 2 to 1000 (default 3)\n"
          "      --batch B           samples per NPU (default: the workload's); scales compute\n"
          "                          and forward/input-gradient collectives\n"
          "  -n, --chunks N          chunks per collective (default: the workload's)\n"
          "      --chunking R        capped | astra: at most N chunks of at least the\n"
          "                          workload's min_chunk_bytes, or every collective in N\n"
          "                          chunks (default the workload's rule; astra with -n)\n"
          "      --bucket SIZE       fuse weight-gradient All-Reduces into DDP buckets of SIZE\n"
          "                          bytes (on = 25MiB, off or 0 = none; default the workload's)\n"
          "      --load-model M      themis load model: alpha_beta | bandwidth\n"
          "      --ideal-lat         add vs_ideal_lat: against the ideal network plus each\n"
          "                          collective's latency floor (the latencies of one chunk's\n"
          "                          stages on its critical path)\n"
          "  -f, --format F          table | json | csv | jsonl (default table; jsonl: one\n"
          "                          result object per line, as in json's results)\n"
          "  -o, --output FILE       results file ('-' = stdout, the default)\n"
          "      --trace FILE        timeline CSV of compute and collectives\n"
          "      --force             replace an existing output or trace file\n"
          "      --comm-scale X      ASTRA-sim 1.0 text workloads: multiply collective sizes\n"
          "      --compute-scale X   ... and compute times (as ASTRA-sim, truncated)\n"
          "      --passes P          ... passes under the astra-sim-1.0 preset (default 1)\n"
          "  -h, --help              this text\n"
          "  -V, --version           print the version\n"
          "\n"
          "A WORKLOAD.txt in ASTRA-sim 1.0's text format (told by content) replays with our\n"
          "semantics on our model, converted as `import-astra --workload` does; under the\n"
          "astra-sim-1.0 preset, ASTRA-sim 1.0's state machine gives total_us, compute_us and\n"
          "exposed_comm_us as ASTRA-sim reports them (-n: the system's run.chunks by default).\n"
          "\n"
          "examples:\n"
          "  themis train models/workloads/resnet50.json\n"
          "  themis train models/workloads/dlrm.json -s models/systems/hetero-4d.json -f "
          "json\n" CLI_HELP_EXIT,
          out);
}

typedef struct topts {
    const char *workload, *system, *output, *trace;
    int policy; /* th_policy, -1 = all */
    int intra;  /* -1 all */
    th_format format;
    int force;     /* replace existing output files */
    int ideal_lat; /* --ideal-lat: the vs_ideal_lat column */
    th_train_opts t;
    cli_a1_opts a1; /* ASTRA-sim 1.0 text workloads: scales, passes */
} topts;

static int parse(int argc, char **argv, topts *o) {
    enum {
        O_PRIO = 256,
        O_ITER,
        O_BATCH,
        O_MODEL,
        O_TRACE,
        O_FORCE,
        O_CHUNKING,
        O_BUCKET,
        O_IDEAL_LAT,
        O_COMM_SCALE,
        O_COMPUTE_SCALE,
        O_PASSES
    };
    static const struct option longs[] = {
        {"system", required_argument, 0, 's'},
        {"policy", required_argument, 0, 'p'},
        {"intra", required_argument, 0, 'q'},
        {"priority", required_argument, 0, O_PRIO},
        {"iterations", required_argument, 0, O_ITER},
        {"batch", required_argument, 0, O_BATCH},
        {"chunks", required_argument, 0, 'n'},
        {"load-model", required_argument, 0, O_MODEL},
        {"chunking", required_argument, 0, O_CHUNKING},
        {"bucket", required_argument, 0, O_BUCKET},
        {"ideal-lat", no_argument, 0, O_IDEAL_LAT},
        {"comm-scale", required_argument, 0, O_COMM_SCALE},
        {"compute-scale", required_argument, 0, O_COMPUTE_SCALE},
        {"passes", required_argument, 0, O_PASSES},
        {"format", required_argument, 0, 'f'},
        {"output", required_argument, 0, 'o'},
        {"trace", required_argument, 0, O_TRACE},
        {"force", no_argument, 0, O_FORCE},
        {"help", no_argument, 0, 'h'},
        {"version", no_argument, 0, 'V'},
        {0, 0, 0, 0},
    };
    opterr = 0;
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, ":s:p:q:n:f:o:hV", longs, NULL)) != -1) {
        long long v;
        switch (c) {
        case 's': o->system = optarg; break;
        case 'p':
            if (cli_parse_policy("train", optarg, TH_POLICY_COUNT, &o->policy)) return CLI_USAGE;
            break;
        case 'q':
            if (cli_parse_intra("train", optarg, &o->intra)) return CLI_USAGE;
            break;
        case O_PRIO:
            if (th_priority_from_name(optarg, &o->t.priority))
                return cli_usage_error(
                    "train", "--priority: expected fifo, lifo or layer, got '%s'", optarg);
            break;
        case O_ITER:
            if (cli_parse_int(optarg, 2, 1000, &v))
                return cli_usage_error("train", "--iterations: expected 2 to 1000, got '%s'",
                                       optarg);
            o->t.iterations = (int)v;
            break;
        case O_BATCH:
            if (cli_parse_batch("train", optarg, &o->t.batch)) return CLI_USAGE;
            break;
        case 'n':
            if (cli_parse_int(optarg, 1, TH_MAX_CHUNKS, &v))
                return cli_usage_error("train", "-n: expected an integer from 1 to %d, got '%s'",
                                       TH_MAX_CHUNKS, optarg);
            o->t.chunks = v;
            break;
        case O_CHUNKING: {
            int i = th_name_find(th_chunking_names, optarg);
            if (i < 0)
                return cli_usage_error("train", "--chunking: expected capped or astra, got '%s'",
                                       optarg);
            o->t.chunking_set = 1;
            o->t.chunking = (th_chunking)i;
            break;
        }
        case O_BUCKET: {
            th_error e;
            double b = 0;
            if (!strcmp(optarg, "on"))
                b = TH_BUCKET_DEFAULT;
            else if (strcmp(optarg, "off") && strcmp(optarg, "0") &&
                     th_units_parse_size(optarg, "--bucket", &b, &e))
                return cli_usage_error("train", "--bucket: expected a size, on or off, got '%s'",
                                       optarg);
            o->t.bucket = b > 0 ? b : -1;
            break;
        }
        case O_MODEL:
            if (th_load_model_from_name(optarg, &o->t.model))
                return cli_usage_error("train",
                                       "--load-model: expected alpha_beta or bandwidth, "
                                       "got '%s'",
                                       optarg);
            break;
        case 'f':
            if (cli_parse_format("train", optarg, CLI_FORMATS_ALL, &o->format)) return CLI_USAGE;
            break;
        case 'o': o->output = optarg; break;
        case O_TRACE: o->trace = optarg; break;
        case O_FORCE: o->force = 1; break;
        case O_IDEAL_LAT: o->ideal_lat = 1; break;
        case O_COMM_SCALE:
        case O_COMPUTE_SCALE:
        case O_PASSES:
            if (cli_a1_option("train", c - O_COMM_SCALE, optarg, &o->a1)) return CLI_USAGE;
            break;
        case 'h': usage(stdout); return -1;
        case 'V': cli_version(); return -1;
        case ':': return cli_usage_error("train", "option '%s' needs a value", argv[optind - 1]);
        default: return cli_usage_error("train", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind >= argc) return cli_usage_error("train", "missing the workload file");
    o->workload = argv[optind++];
    if (optind < argc) return cli_usage_error("train", "unexpected argument '%s'", argv[optind]);
    if (o->trace && !strcmp(o->trace, "-") && (!o->output || !strcmp(o->output, "-")))
        return cli_usage_error("train", "--trace - needs -o FILE");
    return CLI_OK;
}

typedef struct tctx {
    FILE *out;
    const th_workload *wl;
    const th_train_row *rows; /* rows[cur] is being replayed */
    int cur;
    int oom; /* a trace row could not be built */
} tctx;

static void trace_row(void *ctx, const th_train_event *ev) {
    tctx *t = ctx;
    const th_train_row *r = &t->rows[t->cur];
    if (th_report_train_trace_row(t->out, t->wl, r->policy, r->intra, ev)) t->oom = 1;
}

static int evaluate(const topts *o, const th_system *sys, const th_workload *wl, th_error *err) {
    th_train_row rows[TH_TRAIN_MAX_ROWS];
    int nrows = 0, rc = TH_OK;
    /* Both outputs are opened before the work and replace their files only if all went well. */
    int flags = o->force ? TH_OUTPUT_FORCE : 0;
    th_output out, trace;
    if ((rc = cli_out_open(&out, o->output ? o->output : "-", flags, err))) return rc;
    tctx tc = {NULL, wl, rows, 0, 0};
    if (o->trace) {
        if ((rc = cli_out_open(&trace, o->trace, flags, err))) return cli_out_close(&out, rc, err);
        tc.out = trace.f;
        th_report_train_trace_header(tc.out);
    }
    rc = th_train_compare(sys, wl, &o->t, o->policy, o->intra, tc.out ? trace_row : NULL, &tc,
                          &tc.cur, rows, &nrows, err);
    double tl = 0; /* --ideal-lat: the ideal network with every latency floor */
    if (rc == TH_OK && o->ideal_lat) rc = th_train_ideal_lat(sys, wl, &o->t, rows, nrows, &tl, err);
    if (rc == TH_OK && tc.oom) rc = th_error_set(err, TH_EINTERNAL, "out of memory");
    if (rc == TH_OK) {
        th_train_report rep = {sys, wl, &o->t, rows, nrows, tl};
        rc = th_report_train_write(out.f, o->format, &rep, err);
    }
    if (o->trace) rc = cli_out_close(&trace, rc, err);
    rc = cli_out_close(&out, rc, err);
    th_train_rows_free(rows, nrows);
    return rc;
}

int cli_train(int argc, char **argv) {
    topts o = {0};
    o.policy = o.intra = -1;
    o.t.priority = TH_PRIO_LIFO;
    o.t.iterations = 3;
    o.t.model = TH_LOAD_ALPHA_BETA;
    o.a1.scale = (th_a1_scale){1, 1, 0};
    int rc = parse(argc, argv, &o);
    if (rc) return rc < 0 ? CLI_OK : rc;
    th_error err = {0};
    const char *inputs[] = {o.workload, o.system}, *outputs[] = {o.output, o.trace};
    if (th_output_check(inputs, 2, outputs, 2, &err)) return cli_fail(&err);
    th_system sys;
    th_run_defaults def; /* run's; the ASTRA-sim 1.0 replay takes its chunks */
    if (cli_load_system(o.system, &sys, &def, &err)) return cli_fail(&err);
    th_workload *wl;
    th_a1_workload *a1; /* an ASTRA-sim 1.0 text workload, told by content */
    if (th_a1_load(o.workload, &a1, &wl, &err)) return cli_fail(&err);
    if (!a1 && o.a1.given) {
        th_workload_free(wl);
        return cli_usage_error("train",
                               "--comm-scale, --compute-scale and --passes are for "
                               "ASTRA-sim 1.0 text workloads; %s is JSON",
                               o.workload);
    }
    if (a1 && sys.model == TH_MODEL_ASTRA1 && (o.t.bucket || o.t.chunking_set || o.ideal_lat)) {
        th_a1_free(a1);
        th_workload_free(wl);
        return cli_usage_error("train",
                               "--bucket, --chunking and --ideal-lat are for our replay; under "
                               "the astra-sim-1.0 preset %s runs ASTRA-sim 1.0's state machine",
                               o.workload);
    }
    if (a1) {
        cli_a1_run run = {o.output, o.trace, o.format, o.force, o.policy, o.intra, o.t.chunks, &def};
        rc = cli_a1_train(&o.a1, &run, o.workload, a1, &sys, &wl, &err);
        th_a1_free(a1);
        if (rc) return cli_fail(&err);
        if (!wl) return CLI_OK; /* ASTRA-sim 1.0's replay, written */
    }
    if (th_train_check_system(&sys, &err)) rc = cli_blame(&err, o.system);
    if (rc == CLI_OK && th_workload_check(wl, &sys, o.workload, &err)) rc = err.code;
    if (rc) rc = cli_fail(&err);
    if (rc == CLI_OK && evaluate(&o, &sys, wl, &err)) rc = cli_fail(&err);
    th_workload_free(wl);
    return rc;
}

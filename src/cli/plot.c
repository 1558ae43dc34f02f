/* `themis plot`: any two columns of a CSV themis wrote, as lines grouped by other columns, into
 * PNG, PDF or SVG through gnuplot (the data and script in temporary files, the image renamed
 * into place when gnuplot succeeded). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "themis/plot.h"

static void plot_usage(FILE *out) {
    fputs("usage: themis plot CSV --x COLUMN --y COLUMN [OPTIONS] -o OUT.png|OUT.pdf|OUT.svg\n"
          "\n"
          "Draw column y against column x of any CSV themis writes (a sweep, run -f csv,\n"
          "train -f csv, summarize -f csv), one line per distinct value of the --by columns,\n"
          "through gnuplot (Debian package gnuplot-nox). The output's extension picks PNG, PDF\n"
          "or SVG. Axis labels carry the unit the column names end in (time_us: µs, *_GBps:\n"
          "GB/s, size: bytes, *_ns: ns, speedups: x). Points of a line are drawn in x order;\n"
          "rows with an empty x or y (a dim a system lacks) are left out.\n"
          "\n"
          "options:\n"
          "  -x, --x COLUMN      the column on the x axis\n"
          "  -y, --y COLUMN      the column on the y axis\n"
          "  -g, --by COLUMNS    one line per distinct value of these columns, comma separated\n"
          "  -w, --where COL=VALUE  only the rows whose COL is VALUE (repeatable: all hold)\n"
          "      --logx          logarithmic x axis (values > 0)\n"
          "      --logy          logarithmic y axis (values > 0)\n"
          "  -t, --title TEXT    the title (default: y vs x and the --where filters)\n"
          "  -o, --output FILE   the image: .png, .pdf or .svg\n"
          "      --force         replace an existing output\n"
          "  -h, --help          this text\n"
          "  -V, --version       print the version\n"
          "\n"
          "CSV is a file or '-' for stdin.\n"
          "\n"
          "examples:\n"
          "  themis plot out.csv --x size --y speedup --by policy,intra --logx -o speedup.png\n"
          "  themis plot out/ar-speedup-chunks.csv -x chunks -y time_us -g system -w intra=scf "
          "-o t.pdf\n"
          "\n"
          "exit status: 0 success; 1 internal error (gnuplot failed on the script); 2 bad input\n"
          "or usage (an option, a column the CSV lacks, an output that exists or is an input,\n"
          "gnuplot not installed); 3 I/O failure (reading or writing a file failed)\n",
          out);
}

#define MAX_BY    16
#define MAX_WHERE 32

typedef struct plot_opts {
    const char *csv, *output;
    char *bylist; /* --by, split in place */
    const char *by[MAX_BY];
    th_plot_where where[MAX_WHERE];
    th_plot_opts p;
    int force;
} plot_opts;

static int split_by(plot_opts *o, const char *arg) {
    free(o->bylist);
    if (!(o->bylist = th_strdup(arg))) {
        fputs("themis: out of memory\n", stderr);
        return CLI_INTERNAL;
    }
    th_error err = {0};
    if (th_plot_by_parse(o->bylist, o->by, MAX_BY, &o->p.nby, &err))
        return cli_usage_error("plot", "--by: %s", err.msg);
    return CLI_OK;
}

static int parse_plot(int argc, char **argv, plot_opts *o) {
    enum { O_LOGX = 256, O_LOGY, O_FORCE };
    static const struct option longs[] = {
        {"x", required_argument, 0, 'x'},     {"y", required_argument, 0, 'y'},
        {"by", required_argument, 0, 'g'},    {"where", required_argument, 0, 'w'},
        {"logx", no_argument, 0, O_LOGX},     {"logy", no_argument, 0, O_LOGY},
        {"title", required_argument, 0, 't'}, {"output", required_argument, 0, 'o'},
        {"force", no_argument, 0, O_FORCE},   {"help", no_argument, 0, 'h'},
        {"version", no_argument, 0, 'V'},     {0, 0, 0, 0},
    };
    opterr = 0;
    optind = 1;
    int c, rc;
    th_error err;
    while ((c = getopt_long(argc, argv, ":x:y:g:w:t:o:hV", longs, NULL)) != -1) {
        switch (c) {
        case 'x': o->p.x = optarg; break;
        case 'y': o->p.y = optarg; break;
        case 'g':
            if ((rc = split_by(o, optarg))) return rc;
            break;
        case 'w':
            if (o->p.nwhere == MAX_WHERE)
                return cli_usage_error("plot", "--where: more than %d filters", MAX_WHERE);
            if (th_plot_where_parse(optarg, &o->where[o->p.nwhere], &err))
                return cli_usage_error("plot", "%s", err.msg);
            o->p.nwhere++;
            break;
        case O_LOGX: o->p.logx = 1; break;
        case O_LOGY: o->p.logy = 1; break;
        case 't': o->p.title = optarg; break;
        case 'o': o->output = optarg; break;
        case O_FORCE: o->force = 1; break;
        case 'h': plot_usage(stdout); return -1;
        case 'V': cli_version(); return -1;
        case ':': return cli_usage_error("plot", "option '%s' needs a value", argv[optind - 1]);
        default: return cli_usage_error("plot", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind >= argc) return cli_usage_error("plot", "missing the CSV file");
    o->csv = argv[optind++];
    if (optind < argc) return cli_usage_error("plot", "unexpected argument '%s'", argv[optind]);
    if (!o->p.x || !o->p.y) return cli_usage_error("plot", "--x and --y name the two columns");
    if (!o->output) return cli_usage_error("plot", "-o: name the image (.png, .pdf or .svg)");
    if (!strcmp(o->output, "-"))
        return cli_usage_error("plot", "-o: the image goes to a file (.png, .pdf or .svg)");
    o->p.by = o->by;
    o->p.where = o->where;
    return CLI_OK;
}

int cli_plot(int argc, char **argv) {
    plot_opts o;
    memset(&o, 0, sizeof o);
    int rc = parse_plot(argc, argv, &o);
    if (rc) {
        free(o.bylist);
        return rc < 0 ? CLI_OK : rc;
    }
    th_error err = {0};
    th_plot_data d;
    if (th_plot_file(o.csv, o.output, o.force, &o.p, &cli_plot_outputs, &d, &err))
        rc = cli_fail(&err);
    th_plot_free(&d);
    free(o.bylist);
    return rc;
}

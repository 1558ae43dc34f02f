/* `themis summarize`: count, mean, geometric mean, min and max of a CSV column, grouped. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "themis/summarize.h"

static void summarize_usage(FILE *out) {
    fputs("usage: themis summarize CSV [--by COLUMNS] [--metric NAME] [-f text|csv]\n"
          "\n"
          "Summarize one numeric column of a CSV (a sweep's output) per group of rows: count,\n"
          "mean, geometric mean, min and max. Groups are the distinct values of the --by\n"
          "columns, in the order they first appear; without --by, every row is one group.\n"
          "Empty fields of the metric (a dim a system lacks) are skipped; any other value\n"
          "that is not a number is an error. A statistic with no value (or a geometric mean\n"
          "of values <= 0) prints as '-' in text and as an empty field in CSV.\n"
          "\n"
          "options:\n"
          "  -g, --by COLUMNS    grouping columns, comma separated (default: none)\n"
          "  -m, --metric NAME   the column to summarize (default: speedup)\n"
          "  -f, --format F      text | csv (default text)\n"
          "  -h, --help          this text\n"
          "  -V, --version       print the version\n"
          "\n"
          "CSV is a file or '-' for stdin; comma separated, header row first, no quoting.\n"
          "\n"
          "examples:\n"
          "  themis summarize out/ar-bw-util.csv --by policy,intra --metric bw_util\n"
          "  themis summarize out/ar-speedup-chunks.csv --by system,chunks -f csv\n" CLI_HELP_EXIT,
          out);
}

typedef struct summarize_opts {
    const char *csv, *by, *metric;
    int csv_out;
} summarize_opts;

static int parse_summarize(int argc, char **argv, summarize_opts *o) {
    static const struct option longs[] = {
        {"by", required_argument, 0, 'g'},     {"metric", required_argument, 0, 'm'},
        {"format", required_argument, 0, 'f'}, {"help", no_argument, 0, 'h'},
        {"version", no_argument, 0, 'V'},      {0, 0, 0, 0},
    };
    opterr = 0;
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, ":g:m:f:hV", longs, NULL)) != -1) {
        switch (c) {
        case 'g': o->by = optarg; break;
        case 'm':
            if (!*optarg) return cli_usage_error("summarize", "--metric: empty column name");
            o->metric = optarg;
            break;
        case 'f':
            if (!strcmp(optarg, "text")) {
                o->csv_out = 0;
            } else if (!strcmp(optarg, "csv")) {
                o->csv_out = 1;
            } else {
                return cli_usage_error("summarize", "-f: expected text or csv, got '%s'", optarg);
            }
            break;
        case 'h': summarize_usage(stdout); return -1;
        case 'V': printf("themis %s\n", TH_VERSION); return -1;
        case ':':
            return cli_usage_error("summarize", "option '%s' needs a value", argv[optind - 1]);
        default: return cli_usage_error("summarize", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind >= argc) return cli_usage_error("summarize", "missing the CSV file");
    o->csv = argv[optind++];
    if (optind < argc)
        return cli_usage_error("summarize", "unexpected argument '%s'", argv[optind]);
    return CLI_OK;
}

/* Splits the --by list at commas into a new array of pointers into list (modified). */
static int split_by(char *list, char ***cols, size_t *n) {
    *cols = NULL;
    *n = 0;
    if (!list || !*list) return CLI_OK;
    size_t cap = 1;
    for (const char *p = list; *p; p++)
        cap += *p == ',';
    *cols = calloc(cap, sizeof **cols);
    if (!*cols) {
        fprintf(stderr, "themis: out of memory\n");
        return CLI_INTERNAL;
    }
    for (char *tok = list;; tok++) {
        char *c = strchr(tok, ',');
        if (c) *c = '\0';
        if (!*tok) return cli_usage_error("summarize", "--by: empty column name in the list");
        (*cols)[(*n)++] = tok;
        if (!c) break;
        tok = c;
    }
    return CLI_OK;
}

static const char *fmt_text(char *buf, double v) {
    if (isnan(v)) return "-";
    snprintf(buf, 32, "%.10g", v);
    return buf;
}

static const char *fmt_csv(char *buf, double v) {
    return isnan(v) ? "" : th_report_num(buf, v);
}

static void print_csv(const th_summary *s) {
    char b[5][32];
    for (size_t i = 0; i < s->nby; i++)
        printf("%s,", s->by[i]);
    puts("count,mean,gmean,min,max");
    for (size_t g = 0; g < s->ngroups; g++) {
        const th_summary_group *gr = &s->groups[g];
        for (size_t i = 0; i < s->nby; i++)
            printf("%s,", gr->keys[i]);
        printf("%zu,%s,%s,%s,%s\n", gr->count, fmt_csv(b[0], gr->mean), fmt_csv(b[1], gr->gmean),
               fmt_csv(b[2], gr->min), fmt_csv(b[3], gr->max));
    }
}

/* Text: one aligned table; key columns left-aligned, numbers right-aligned. */
static int print_text(const th_summary *s) {
    static const char *stat_names[] = {"count", "mean", "gmean", "min", "max"};
    size_t ncols = s->nby + 5;
    int *w = calloc(ncols, sizeof *w);
    if (!w) {
        fprintf(stderr, "themis: out of memory\n");
        return CLI_INTERNAL;
    }
    char b[32];
    for (size_t i = 0; i < ncols; i++) {
        w[i] = (int)strlen(i < s->nby ? s->by[i] : stat_names[i - s->nby]);
    }
    for (size_t g = 0; g < s->ngroups; g++) {
        const th_summary_group *gr = &s->groups[g];
        double st[4] = {gr->mean, gr->gmean, gr->min, gr->max};
        for (size_t i = 0; i < s->nby; i++) {
            int l = (int)strlen(gr->keys[i]);
            if (l > w[i]) w[i] = l;
        }
        int l = snprintf(b, sizeof b, "%zu", gr->count);
        if (l > w[s->nby]) w[s->nby] = l;
        for (int k = 0; k < 4; k++) {
            l = (int)strlen(fmt_text(b, st[k]));
            if (l > w[s->nby + 1 + k]) w[s->nby + 1 + k] = l;
        }
    }
    printf("# %s over %zu rows\n", s->metric, s->rows);
    for (size_t i = 0; i < ncols; i++) {
        const char *h = i < s->nby ? s->by[i] : stat_names[i - s->nby];
        printf(i < s->nby ? "%-*s" : "%*s", w[i], h);
        fputs(i + 1 < ncols ? "  " : "\n", stdout);
    }
    for (size_t g = 0; g < s->ngroups; g++) {
        const th_summary_group *gr = &s->groups[g];
        double st[4] = {gr->mean, gr->gmean, gr->min, gr->max};
        for (size_t i = 0; i < s->nby; i++)
            printf("%-*s  ", w[i], gr->keys[i]);
        printf("%*zu", w[s->nby], gr->count);
        for (int k = 0; k < 4; k++)
            printf("  %*s", w[s->nby + 1 + k], fmt_text(b, st[k]));
        putchar('\n');
    }
    free(w);
    return CLI_OK;
}

int cli_summarize(int argc, char **argv) {
    summarize_opts o = {.metric = "speedup"};
    int rc = parse_summarize(argc, argv, &o);
    if (rc != CLI_OK) return rc < 0 ? CLI_OK : rc;
    char *bylist = o.by ? strdup(o.by) : NULL;
    if (o.by && !bylist) {
        fprintf(stderr, "themis: out of memory\n");
        return CLI_INTERNAL;
    }
    char **cols = NULL;
    size_t ncols = 0;
    rc = split_by(bylist, &cols, &ncols);
    FILE *in = NULL;
    if (rc == CLI_OK) {
        in = strcmp(o.csv, "-") ? fopen(o.csv, "r") : stdin;
        if (!in) {
            fprintf(stderr, "themis: %s: cannot open: %s\n", o.csv, strerror(errno));
            rc = CLI_USAGE;
        }
    }
    if (rc == CLI_OK) {
        th_summary s;
        th_error err = {0};
        const char *name = strcmp(o.csv, "-") ? o.csv : "<stdin>";
        if (th_summarize(in, name, (const char *const *)cols, ncols, o.metric, &s, &err)) {
            rc = cli_fail(&err);
        } else {
            if (o.csv_out) {
                print_csv(&s);
            } else {
                rc = print_text(&s);
            }
            th_summary_free(&s);
            if (rc == CLI_OK && (fflush(stdout) != 0 || ferror(stdout))) {
                fprintf(stderr, "themis: summarize: cannot write the output\n");
                rc = CLI_INTERNAL;
            }
        }
    }
    if (in && in != stdin) fclose(in);
    free(cols);
    free(bylist);
    return rc;
}

/* `themis summarize`: count, mean, geometric mean, min and max of a CSV column, grouped. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "themis/summarize.h"

static void summarize_usage(FILE *out) {
    fputs("usage: themis summarize CSV [--by COLUMNS] [--metric NAME] [-f FORMAT]\n"
          "       themis summarize CSV --best NAME [--max] [--by COLUMNS] [-f FORMAT]\n"
          "\n"
          "Summarize one numeric column of a CSV (a sweep's output) per group of rows: count,\n"
          "mean, geometric mean, min and max. Groups are the distinct values of the --by\n"
          "columns, in the order they first appear; without --by, every row is one group.\n"
          "Empty fields of the metric (a dim a system lacks) are skipped; any other value\n"
          "that is not a number is an error. A statistic with no value (or a geometric mean\n"
          "of values <= 0) prints as '-' in the table, null in JSON and an empty field in CSV.\n"
          "JSON holds metric, by, rows and groups, each with keys (column: value), count, mean,\n"
          "gmean, min and max; JSONL holds those groups, one object per line. The file is\n"
          "read as it streams: memory grows with the number of groups only.\n"
          "With --best NAME it prints instead, per group, the whole row whose NAME is least\n"
          "(greatest with --max; the first such row on ties): which chunk count, which\n"
          "bandwidth, which policy won. JSON gives each group's keys, line and row (JSONL:\n"
          "one such group per line; CSV: the line, then the row's columns).\n"
          "\n"
          "options:\n",
          out);
    cli_help_options(out, &cli_summarize_def);
    fputs("\n"
          "CSV is a file or '-' for stdin: RFC 4180 (fields may be quoted and hold commas,\n"
          "quotes and line breaks), header row first, LF or CRLF line ends.\n"
          "\n"
          "examples:\n"
          "  themis summarize out/ar-bw-util.csv --by policy,intra --metric bw_util\n"
          "  themis summarize out/ar-speedup-chunks.csv --by system,chunks -f csv\n"
          "  themis summarize out/ar-speedup-chunks.csv --by system,policy,intra --best "
          "time_us\n" CLI_HELP_EXIT,
          out);
}

typedef struct summarize_opts {
    const char *csv, *by, *metric;
    const char *best; /* --best NAME */
    int max;
    int format; /* -f: a th_format, or 4: text (the name table had before) */
    uint64_t given;
} summarize_opts;

#define S(field) offsetof(summarize_opts, field)
static const char *const formats[] = {"table", "json", "csv", "jsonl", "text", NULL};
static const th_option opts[] = {
    {'g', "by", NULL, TH_ARG_STRING, S(by), "COLUMNS",
     .help = "grouping columns, comma separated (default: none)"},
    {'m', "metric", NULL, TH_ARG_STRING, S(metric), "NAME",
     .help = "the column to summarize (default: speedup)"},
    {0, "best", NULL, TH_ARG_STRING, S(best), "NAME",
     .help = "per group, the row that minimises column NAME"},
    {0, "max", NULL, TH_ARG_FLAG, S(max), .help = "with --best: the row that maximises it"},
    {'f', "format", NULL, TH_ARG_CHOICE, S(format), "F",
     .help = "table | json | csv | jsonl (default table; 'text' = table)", .noun = "format",
     .choices = formats, .allowed = 0xfu, .flags = TH_ARG_UNLISTED},
    TH_ARG_HELP_OPTS,
};

const th_cmd_def cli_summarize_def = {"summarize", opts, sizeof opts / sizeof opts[0],
                                      S(given),    22,   NULL};

static int parse_summarize(int argc, char **argv, summarize_opts *o) {
    char *ops[1];
    int nops = 0;
    int rc = cli_args(&cli_summarize_def, argc, argv, o, summarize_usage, ops, 1, &nops);
    if (rc) return rc;
    if (o->metric && !*o->metric)
        return cli_usage_error("summarize", "--metric: empty column name");
    if (o->best && !*o->best) return cli_usage_error("summarize", "--best: empty column name");
    if (!nops) return cli_usage_error("summarize", "missing the CSV file");
    o->csv = ops[0];
    if (o->best && o->metric)
        return cli_usage_error("summarize", "--best NAME names the column: drop --metric");
    if (o->max && !o->best) return cli_usage_error("summarize", "--max needs --best NAME");
    if (o->format == 4) o->format = TH_FORMAT_TABLE;
    if (!o->metric) o->metric = o->best ? o->best : "speedup";
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

int cli_summarize(int argc, char **argv) {
    summarize_opts o = {0};
    int rc = parse_summarize(argc, argv, &o);
    if (rc != CLI_OK) return rc < 0 ? CLI_OK : rc;
    char *bylist = o.by ? th_strdup(o.by) : NULL;
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
        th_best mode = o.max ? TH_BEST_MAX : TH_BEST_MIN;
        const char *const *by = (const char *const *)cols;
        if (o.best ? th_summarize_best(in, name, by, ncols, o.metric, mode, &s, &err)
                   : th_summarize(in, name, by, ncols, o.metric, &s, &err)) {
            rc = cli_fail(&err);
        } else if (o.best) {
            int wrc = th_report_best_write(stdout, (th_format)o.format, &s, mode, &err);
            th_summary_free(&s);
            if (wrc) rc = cli_fail(&err);
        } else {
            int wrc = th_report_summary_write(stdout, (th_format)o.format, &s, &err);
            th_summary_free(&s);
            if (wrc) rc = cli_fail(&err);
        }
    }
    if (in && in != stdin) fclose(in);
    free(cols);
    free(bylist);
    return rc;
}

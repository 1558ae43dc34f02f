/* `plot`: column y of a CSV themis wrote against column x, one line (bars when x is text) per
 * value of the --by columns, drawn by gnuplot into PNG, PDF or SVG. The command line's
 * `themis plot` and the API's "plot" (whose result names the image and the series drawn). */
#include <stddef.h>
#include <string.h>

#include "../report_internal.h"
#include "cmd.h"

#define R(field)  offsetof(th_plot_request, field)
#define MAX_NAMES 32 /* --by columns */

static const th_option opts[] = {
    {0, NULL, "csv", TH_ARG_STRING, R(csv), .noun = "CSV"}, /* the operand */
    {'x', "x", "x", TH_ARG_STRING, R(x), "COLUMN",
     .help = "the column on the x axis (text values: clustered bars)"},
    {'y', "y", "y", TH_ARG_STRING, R(y), "COLUMN", .help = "the column on the y axis"},
    {'g', "by", "by", TH_ARG_NAMES, R(by), "COLUMNS",
     .help = "one line per distinct value of these columns, comma separated", .noun = "column",
     .hi = MAX_NAMES},
    {'w', "where", "where", TH_ARG_PAIRS, R(where), "COLUMN=VALUE",
     .help = "only the rows whose COLUMN is VALUE (repeatable: all hold)", .noun = "column"},
    {0, "logx", "logx", TH_ARG_FLAG, R(logx), .help = "logarithmic x axis (values > 0)"},
    {0, "logy", "logy", TH_ARG_FLAG, R(logy), .help = "logarithmic y axis (values > 0)"},
    {'t', "title", "title", TH_ARG_STRING, R(title), "TEXT",
     .help = "the title (default: y vs x and the --where filters)"},
    {'o', "output", "output", TH_ARG_STRING, R(output), "FILE",
     .help = "the image: .png, .pdf or .svg"},
    {0, "force", "force", TH_ARG_FLAG, R(force), .help = "replace an existing output"},
    TH_ARG_HELP_OPTS,
};

const th_cmd_def th_cmd_plot_def = {"plot", opts, sizeof opts / sizeof opts[0], R(given), 22, NULL};

void th_plot_request_init(th_plot_request *r) {
    memset(r, 0, sizeof *r);
}

/* {"output", "rows", "series"}: what was drawn, for the API. */
static int result(FILE *out, const char *output, const th_plot_data *d, th_error *err) {
    cJSON *o = cJSON_CreateObject(), *names = NULL;
    if (o && cJSON_AddStringToObject(o, "output", output) &&
        cJSON_AddNumberToObject(o, "rows", (double)d->rows))
        names = cJSON_AddArrayToObject(o, "series");
    for (size_t i = 0; names && i < d->nseries; i++)
        if (!cJSON_AddItemToArray(names, cJSON_CreateString(d->series[i].name))) names = NULL;
    if (!names) {
        cJSON_Delete(o);
        return th_error_set(err, TH_EINTERNAL, "out of memory");
    }
    return th_report_write_json(out, o, err);
}

/* The request's required values and the image's place. */
static int check(const th_plot_request *r, const th_cmd_io *io, th_error *err) {
    const th_cmd_def *d = &th_cmd_plot_def;
    char n[32];
    if (!r->csv)
        return th_cmd_usage(err, d, io, "%s: missing (a CSV file)",
                            th_cmd_name(d, io, "csv", n, sizeof n));
    if (!r->x || !r->y)
        return th_cmd_usage(err, d, io, "%s: missing (a column)",
                            th_cmd_name(d, io, r->x ? "y" : "x", n, sizeof n));
    if (!r->output)
        return th_cmd_usage(err, d, io, "%s: missing (the image: .png, .pdf or .svg)",
                            th_cmd_name(d, io, "output", n, sizeof n));
    if (!strcmp(r->output, "-"))
        return th_cmd_usage(err, d, io, "%s: the image goes to a file (.png, .pdf or .svg)",
                            th_cmd_name(d, io, "output", n, sizeof n));
    return TH_OK;
}

int th_cmd_plot(const th_plot_request *r, const th_cmd_io *io, th_error *err) {
    const th_cmd_def *d = &th_cmd_plot_def;
    if (check(r, io, err)) return err->code;
    th_plot_opts p = {r->x, r->y, NULL, 0, NULL, 0, r->logx, r->logy, r->title};
    const char *cols[MAX_NAMES];
    char by[1024];
    if (r->by.path) {
        char n[32];
        snprintf(by, sizeof by, "%s", r->by.path);
        if (th_plot_by_parse(by, cols, MAX_NAMES, &p.nby, err))
            return th_cmd_usage(err, d, io, "%s: %s", th_cmd_name(d, io, "by", n, sizeof n),
                                err->msg);
        p.by = cols;
    }
    th_plot_where w[TH_ARG_MAX_PAIRS];
    for (int i = 0; i < r->where.n; i++)
        w[i].col = r->where.key[i], w[i].value = r->where.value[i];
    p.where = w;
    p.nwhere = (size_t)r->where.n;
    th_plot_data data;
    int rc = th_plot_file(r->csv, r->output, r->force, &p, io->files, &data, err);
    if (rc == TH_OK && io->stream) rc = result(io->stream, r->output, &data, err);
    th_plot_free(&data);
    return rc;
}

/* `themis plot`: the part of drawing any two columns of a CSV that needs no gnuplot: choosing
 * the columns, filtering rows (--where col=value), grouping them into series (--by), axis
 * labels with the unit a column name carries, the terminal an output's extension asks for,
 * and the data file and gnuplot script that draw it. */
#ifndef THEMIS_PLOT_H
#define THEMIS_PLOT_H

#include <stddef.h>
#include <stdio.h>

#include "themis/error.h"
#include "themis/output.h"

#define TH_PLOT_MAX_SERIES 100 /* lines in one plot at most */

typedef enum { TH_PLOT_PNG, TH_PLOT_PDF, TH_PLOT_SVG } th_plot_format;

/* One --where filter: rows whose column `col` holds exactly `value` (as the CSV has it). */
typedef struct th_plot_where {
    const char *col, *value;
} th_plot_where;

typedef struct th_plot_opts {
    const char *x, *y;     /* the columns on the axes */
    const char *const *by; /* nby columns whose values make one series each */
    size_t nby;
    const th_plot_where *where; /* nwhere filters, all must hold */
    size_t nwhere;
    int logx, logy;    /* logarithmic axes (every value must be > 0) */
    const char *title; /* NULL: "<y> vs <x>" and the filters */
} th_plot_opts;

/* One line of the plot: its points, sorted by x (rows with equal x keep their order). */
typedef struct th_plot_series {
    char *name; /* the --by values, ", " between them; the y column without --by */
    size_t n, cap;
    double *x, *y;
} th_plot_series;

typedef struct th_plot_data {
    th_plot_series *series; /* in the order their first row appears */
    size_t nseries;
    size_t rows; /* rows drawn (after the filters, without empty fields) */
    /* x's values when they are text (a policy, a system: the first row's x is not a number),
     * in the order they first appear; each series' x is then an index into them, and the
     * script draws clustered bars, one cluster per category. */
    char **cats;
    size_t ncats;
} th_plot_data;

/* The format an output's extension names (.png, .pdf, .svg; any case); TH_EINPUT otherwise. */
int th_plot_format_of(const char *path, th_plot_format *format, th_error *err);

/* Splits "col=value" at its first '=' (replaced by a NUL) into w, pointing into text;
 * TH_EINPUT when there is no '=' or the column is empty. */
int th_plot_where_parse(char *text, th_plot_where *w, th_error *err);

/* Splits "col1,col2" at its commas (replaced by NULs) into cols (at most max names, pointing
 * into text), *n their count; TH_EINPUT "empty column name in the list" or "more than <max>
 * columns" otherwise. */
int th_plot_by_parse(char *text, const char **cols, size_t max, size_t *n, th_error *err);

/* An axis label from a column name: the unit its suffix carries, underscores as spaces:
 * "time_us" -> "time (µs)", "algbw_GBps" -> "algbw (GB/s)", "size" -> "size (bytes)",
 * "latency_ns" -> "latency (ns)", "speedup" -> "speedup (x)", "bw_util" -> "bw util". */
void th_plot_label(const char *col, char *buf, size_t n);

/* Reads the CSV (header first; `name` in messages) into series. Errors (TH_EINPUT) name the
 * file: a column that is not there (listing those that are), a field of y (or of a numeric x)
 * that is not a finite number (naming its line), a value <= 0 on a log axis, --logx on a text
 * x, more than TH_PLOT_MAX_SERIES
 * series, and no row left to draw. Empty x or y fields (a dim a system lacks) are skipped. */
int th_plot_read(FILE *in, const char *name, const th_plot_opts *o, th_plot_data *d, th_error *err);
void th_plot_free(th_plot_data *d);

/* The data as gnuplot reads it: one block per series ("x y" lines), two blank lines between. */
int th_plot_write_data(FILE *out, const th_plot_data *d, th_error *err);

/* The gnuplot script that draws `data_path` into `out_path` in `format`: terminal, title,
 * labels, log axes, a key titled by the --by columns, one line per series (no two alike in
 * colour, dash and point type), or clustered bars with the categories as x tics when x is
 * text. */
int th_plot_write_script(FILE *out, const th_plot_opts *o, th_plot_format format,
                         const th_plot_data *d, const char *data_path, const char *out_path,
                         th_error *err);

/* How th_plot_draw opens and closes its outputs (the image, the data, the script): close
 * commits on TH_OK and aborts otherwise. NULL: th_output_open, th_output_commit / abort. */
typedef struct th_plot_outputs {
    int (*open)(th_output *o, const char *path, int flags, th_error *err);
    int (*close)(th_output *o, int rc, th_error *err);
} th_plot_outputs;

/* Draws d into `output` (an existing file only with force) through gnuplot: the data and the
 * script in temporary files beside it (always removed), the image renamed into place when
 * gnuplot succeeded. TH_EINPUT when gnuplot is not installed (naming gnuplot-nox),
 * TH_EINTERNAL when it fails, TH_EIO naming the output. */
int th_plot_draw(const char *output, int force, const th_plot_opts *p, th_plot_format format,
                 const th_plot_data *d, const th_plot_outputs *io, th_error *err);

/* `themis plot CSV -o OUTPUT`: the format of output's extension, output checked against the
 * CSV (never drawn over it), the CSV ("-" = stdin) read into d (freed by the caller with
 * th_plot_free either way) and drawn. */
int th_plot_file(const char *csv, const char *output, int force, const th_plot_opts *p,
                 const th_plot_outputs *io, th_plot_data *d, th_error *err);

#endif

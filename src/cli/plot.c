/* `themis plot`: its --help and argv; the command is the library's (src/cmd/cmd_plot.c). */
#include <stdio.h>

#include "cli.h"

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
          "options:\n",
          out);
    cli_help_options(out, &th_cmd_plot_def);
    fputs("\n"
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

int cli_plot(int argc, char **argv) {
    th_plot_request r;
    th_plot_request_init(&r);
    char *ops[1];
    int nops = 0;
    int rc = cli_args(&th_cmd_plot_def, argc, argv, &r, plot_usage, ops, 1, &nops);
    if (rc == CLI_OK && !nops) rc = cli_usage_error("plot", "missing the CSV file");
    if (rc == CLI_OK) {
        r.csv = ops[0];
        th_error err = {0};
        th_cmd_io io = cli_io();
        if (th_cmd_plot(&r, &io, &err)) rc = cli_fail(&err);
    }
    th_option_free(&th_cmd_plot_def, &r);
    return rc < 0 ? CLI_OK : rc;
}

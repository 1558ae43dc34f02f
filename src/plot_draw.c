/* Drawing a plot: the data and the gnuplot script in temporary files beside the image,
 * gnuplot run on them, the image renamed into place when it succeeded; and a CSV file drawn
 * end to end (`themis plot`, th_api_call's "plot"). */
#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "themis/output.h"
#include "themis/plot.h"

extern char **environ;

/* The outputs without a caller's hooks: opened and committed or aborted as they are. */
static int plain_open(th_output *o, const char *path, int flags, th_error *err) {
    return th_output_open(o, path, flags, err);
}

static int plain_close(th_output *o, int rc, th_error *err) {
    if (rc == TH_OK) return th_output_commit(o, err);
    th_output_abort(o);
    return rc;
}

static const th_plot_outputs plain = {plain_open, plain_close};

/* Runs `gnuplot SCRIPT`; TH_EINPUT when gnuplot is not installed, TH_EINTERNAL when it fails. */
static int run_gnuplot(const char *script, th_error *err) {
    char *args[] = {"gnuplot", (char *)script, NULL};
    pid_t pid;
    int e = posix_spawnp(&pid, "gnuplot", NULL, NULL, args, environ);
    if (e == ENOENT)
        return th_error_set(err, TH_EINPUT,
                            "plot: gnuplot not found; install the Debian package gnuplot-nox "
                            "(sudo apt-get install gnuplot-nox, or scripts/install-deps)");
    if (e) return th_error_set(err, TH_EINTERNAL, "plot: cannot start gnuplot: %s", strerror(e));
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR)
            return th_error_set(err, TH_EINTERNAL, "plot: waiting for gnuplot: %s",
                                strerror(errno));
    if (WIFEXITED(st) && WEXITSTATUS(st) == 0) return TH_OK;
    return th_error_set(err, TH_EINTERNAL,
                        "plot: gnuplot failed (%s %d) on the script it was given; a gnuplot "
                        "without the cairo terminals? install gnuplot-nox",
                        WIFEXITED(st) ? "exit" : "signal",
                        WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
}

/* Draws d into output: the data and the script go to temporary files beside the image
 * (removed at the end), gnuplot writes the image's temporary file, renamed into place. */
int th_plot_draw(const char *output, int force, const th_plot_opts *p, th_plot_format format,
                 const th_plot_data *d, const th_plot_outputs *io, th_error *err) {
    if (!io) io = &plain;
    th_output img, data, script;
    size_t n = strlen(output) + 8;
    char *dname = malloc(n), *sname = malloc(n);
    if (!dname || !sname) {
        free(dname);
        free(sname);
        return th_error_set(err, TH_EINTERNAL, "out of memory");
    }
    snprintf(dname, n, "%s.dat", output);
    snprintf(sname, n, "%s.gp", output);
    int rc = io->open(&img, output, force ? TH_OUTPUT_FORCE : 0, err);
    /* the data and the script: temporary files only, whatever <output>.dat and .gp are */
    if (rc == TH_OK && (rc = io->open(&data, dname, TH_OUTPUT_SCRATCH, err)) != TH_OK)
        io->close(&img, rc, err);
    if (rc == TH_OK && (rc = io->open(&script, sname, TH_OUTPUT_SCRATCH, err)) != TH_OK) {
        io->close(&data, rc, err);
        io->close(&img, rc, err);
    }
    if (rc == TH_OK) {
        rc = th_plot_write_data(data.f, d, err);
        if (rc == TH_OK) rc = th_plot_write_script(script.f, p, format, d, data.tmp, img.tmp, err);
        if (rc == TH_EIO) {
            th_error e = *err;
            th_error_set(err, TH_EIO, "%s: %s", output, e.msg);
        }
        if (rc == TH_OK) rc = run_gnuplot(script.tmp, err);
        /* the data and the script are never kept: closed with an error, they are removed */
        th_error ignore;
        io->close(&script, TH_EINTERNAL, &ignore);
        io->close(&data, TH_EINTERNAL, &ignore);
        rc = io->close(&img, rc, err);
    }
    free(dname);
    free(sname);
    return rc;
}

int th_plot_file(const char *csv, const char *output, int force, const th_plot_opts *p,
                 const th_plot_outputs *io, th_plot_data *d, th_error *err) {
    th_plot_format format;
    const char *inputs[] = {csv}, *outputs[] = {output};
    memset(d, 0, sizeof *d);
    if (th_plot_format_of(output, &format, err) || th_output_check(inputs, 1, outputs, 1, err))
        return err->code;
    FILE *in = strcmp(csv, "-") ? fopen(csv, "rb") : stdin;
    if (!in) return th_error_set(err, TH_EINPUT, "%s: cannot open: %s", csv, strerror(errno));
    int rc = th_plot_read(in, strcmp(csv, "-") ? csv : "<stdin>", p, d, err);
    if (in != stdin) fclose(in);
    if (rc == TH_OK) rc = th_plot_draw(output, force, p, format, d, io, err);
    return rc;
}

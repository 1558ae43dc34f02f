/* The helpers every command of the front end shares: failing with an exit status, usage errors,
 * option values, the version line, and outputs removed when a fatal signal arrives. */
#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

int cli_fail(const th_error *err) {
    /* th_error_set escaped what the message quotes from files (keys, fields, names). */
    fprintf(stderr, "themis: %s\n", err->msg);
    return err->code == TH_EINTERNAL ? CLI_INTERNAL : err->code == TH_EIO ? CLI_IO : CLI_USAGE;
}

void cli_version(void) {
    char libs[512];
    th_lib_versions_line(libs, sizeof libs);
    printf("themis %s\nbuilt with %s\n", TH_VERSION, libs);
}

int cli_usage_error(const char *cmd, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "themis: %s: ", cmd);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, " (see 'themis %s --help')\n", cmd);
    va_end(ap);
    return CLI_USAGE;
}

/* Outputs being written, so that a fatal signal removes their temporary files. The handler
 * reads only this table; cli_out_open and cli_out_close change it with those signals blocked. */
#define CLI_MAX_OUT 4
static th_output *volatile live[CLI_MAX_OUT];
static const int fatal_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE};
#define NFATAL ((int)(sizeof fatal_signals / sizeof fatal_signals[0]))

static void on_fatal(int sig) {
    for (int i = 0; i < CLI_MAX_OUT; i++)
        if (live[i] && live[i]->tmp) unlink(live[i]->tmp);
    signal(sig, SIG_DFL);
    raise(sig); /* delivered when the handler returns: the usual death by signal */
}

static void block_fatal(sigset_t *old) {
    sigset_t set;
    sigemptyset(&set);
    for (int i = 0; i < NFATAL; i++)
        sigaddset(&set, fatal_signals[i]);
    sigprocmask(SIG_BLOCK, &set, old);
}

int cli_out_open(th_output *o, const char *path, int flags, th_error *err) {
    sigset_t old;
    block_fatal(&old);
    int rc = th_output_open(o, path, flags, err);
    for (int i = 0; rc == TH_OK && i < CLI_MAX_OUT; i++)
        if (!live[i]) {
            live[i] = o;
            break;
        }
    /* Only where nothing else is installed: the sweep's own handler finishes its file. */
    for (int i = 0; i < NFATAL; i++) {
        struct sigaction sa;
        if (sigaction(fatal_signals[i], NULL, &sa) == 0 && sa.sa_handler == SIG_DFL) {
            sa.sa_handler = on_fatal;
            sigemptyset(&sa.sa_mask);
            sa.sa_flags = 0;
            sigaction(fatal_signals[i], &sa, NULL);
        }
    }
    sigprocmask(SIG_SETMASK, &old, NULL);
    return rc;
}

int cli_out_close(th_output *o, int rc, th_error *err) {
    sigset_t old;
    block_fatal(&old);
    for (int i = 0; i < CLI_MAX_OUT; i++)
        if (live[i] == o) live[i] = NULL;
    const char *name = strcmp(o->path, "-") ? o->path : "standard output";
    if (rc == TH_EIO && o->f && ferror(o->f) && strncmp(err->msg, name, strlen(name))) {
        th_error e = *err; /* a report's write error: name the file (once) */
        th_error_set(err, TH_EIO, "%s: %s", name, e.msg);
    }
    if (rc == TH_OK)
        rc = th_output_commit(o, err);
    else
        th_output_abort(o);
    sigprocmask(SIG_SETMASK, &old, NULL);
    return rc;
}

const th_plot_outputs cli_plot_outputs = {cli_out_open, cli_out_close};
/* A progress line on stderr, rewritten in place; cleared when the work is done (NULL). */
static void progress(const char *line) {
    if (line)
        fprintf(stderr, "\r%s", line);
    else
        fputs("\r\033[K", stderr);
}

/* "themis: KIND: LINE" on stderr for each line. */
static void notes(const char *kind, const th_buf *lines) {
    for (const char *p = lines->p; p && *p;) {
        const char *e = strchr(p, '\n');
        int n = e ? (int)(e - p) : (int)strlen(p);
        fprintf(stderr, "themis: %s: %.*s\n", kind, n, p);
        p += n + (e != NULL);
    }
}

void cli_print_notes(const th_buf *lines) {
    notes("note", lines);
}

th_cmd_io cli_io(void) {
    th_cmd_io io = {NULL, &cli_plot_outputs, 1, progress, notes, stderr, NULL, NULL};
    return io;
}

int cli_stdin_once(const char *cmd, const char *const *paths, const char *const *names, int n) {
    for (int i = 0; i < n; i++)
        for (int k = 0; k < i; k++)
            if (paths[i] && paths[k] && !strcmp(paths[i], "-") && !strcmp(paths[k], "-"))
                return cli_usage_error(cmd,
                                       "%s and %s are both '-': standard input can be read only "
                                       "once",
                                       names[k], names[i]);
    return CLI_OK;
}

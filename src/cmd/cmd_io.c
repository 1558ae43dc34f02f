/* What the commands share: their system input and their outputs (a file replaced only when
 * the command succeeded, or the API's stream), and errors blamed on the input that caused them. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"

int th_cmd_load_system(const th_arg_src *s, th_system *sys, th_run_defaults *def, const char **who,
                       th_error *err) {
    *who = s->path ? s->path : s->text ? "system" : NULL;
    if (s->path) return th_run_load_system(s->path, sys, def, err);
    if (s->text) return th_run_parse_system(s->text, strlen(s->text), "system", sys, def, err);
    th_system_default(sys);
    memset(def, 0, sizeof *def);
    return TH_OK;
}

int th_cmd_blame(th_error *err, const char *who) {
    if (who) {
        th_error e = *err;
        th_error_set(err, e.code, "%s: %s", strcmp(who, "-") ? who : "<stdin>", e.msg);
    }
    return err->code;
}

static int open_default(th_output *o, const char *path, int flags, th_error *err) {
    return th_output_open(o, path, flags, err);
}

static int close_default(th_output *o, int rc, th_error *err) {
    if (rc == TH_OK) return th_output_commit(o, err);
    th_output_abort(o);
    return rc;
}

static const th_plot_outputs plain = {open_default, close_default};

int th_cmd_out_open(const th_cmd_io *io, const char *path, int force, th_output *o, th_error *err) {
    if (!path && io->stream) {
        memset(o, 0, sizeof *o);
        o->path = "-";
        o->f = io->stream;
        return TH_OK;
    }
    const th_plot_outputs *files = io->files ? io->files : &plain;
    return files->open(o, path ? path : "-", force ? TH_OUTPUT_FORCE : 0, err);
}

int th_cmd_out_close(const th_cmd_io *io, th_output *o, int rc, th_error *err) {
    if (io->stream && o->f == io->stream) return rc; /* the caller's stream stays open */
    const th_plot_outputs *files = io->files ? io->files : &plain;
    return files->close(o, rc, err);
}

const char *th_cmd_name(const th_cmd_def *def, const th_cmd_io *io, const char *name, char *buf,
                        size_t n) {
    const th_option *o = th_option_lookup(def, name);
    if (!o)
        snprintf(buf, n, "%s", name);
    else if (!io->argv || (!o->flag && !o->name))
        snprintf(buf, n, "%s", o->key ? o->key : o->name);
    else if (o->flag)
        snprintf(buf, n, "-%c", o->flag);
    else
        snprintf(buf, n, "--%s", o->name);
    return buf;
}

int th_cmd_usage(th_error *err, const th_cmd_def *def, const th_cmd_io *io, const char *fmt, ...) {
    char msg[sizeof err->msg];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (io->argv)
        return th_error_set(err, TH_EINPUT, "%s: %s (see 'themis %s --help')", def->name, msg,
                            def->name);
    return th_error_set(err, TH_EINPUT, "%s: %s", def->name, msg);
}

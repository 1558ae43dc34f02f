/* `train` on a workload of another format than our JSON (workload_format.h): when the
 * system's model replays the format itself, that replay for every asked pair with the format's
 * options (--passes, --comm-scale, --compute-scale, --remote-memory); under another model, the
 * workload converted to our format for our replay (our semantics). */
#include <stdio.h>
#include <stdlib.h>

#include "../json.h"
#include "cmd_train.h"
#include "themis/report.h"

/* The names of the formats' options, as the front end says them. */
static void names(const th_cmd_io *io, char a[][32]) {
    const char *keys[] = {"comm_scale", "compute_scale", "passes"};
    for (int i = 0; i < 3; i++)
        th_cmd_name(&th_cmd_train_def, io, keys[i], a[i], 32);
}

/* What the formats' options are for, in messages: the formats that take them. */
static const char *their_formats(void) {
    const th_wl_format *f;
    for (int i = 0; (f = th_wl_format_get(i)); i++)
        if (f->scales) return f->plural;
    return "other workload formats";
}

const char *th_cmd_memory_formats(void) {
    const th_wl_format *f;
    for (int i = 0; (f = th_wl_format_get(i)); i++)
        if (f->memory) return f->plural;
    return "other workload formats";
}

/* --comm-group for a workload whose format has no process groups. */
static int no_groups(const char *source, const th_cmd_io *io, th_error *err) {
    const th_cmd_def *d = &th_cmd_train_def;
    char a[32];
    const th_wl_format *f;
    const char *who = "Chakra execution traces";
    for (int i = 0; (f = th_wl_format_get(i)); i++)
        if (f->groups) who = f->plural;
    return th_cmd_usage(err, d, io, "%s is for %s; %s has no process groups",
                        th_cmd_name(d, io, "comm_group", a, sizeof a), who, source);
}

int th_cmd_train_format_check(const th_train_request *r, const char *source, const th_cmd_io *io,
                              th_error *err) {
    const th_cmd_def *d = &th_cmd_train_def;
    char m[32];
    if (th_option_given(d, r, "remote_memory"))
        return th_cmd_usage(err, d, io, "%s is for %s; %s is our JSON",
                            th_cmd_name(d, io, "remote_memory", m, sizeof m),
                            th_cmd_memory_formats(), source);
    if (r->comm_group) return no_groups(source, io, err);
    if (!th_option_given(d, r, "comm_scale") && !th_option_given(d, r, "compute_scale") &&
        !th_option_given(d, r, "passes"))
        return TH_OK;
    char n[3][32];
    names(io, n);
    return th_cmd_usage(err, d, io, "%s, %s and %s are for %s; %s is our JSON", n[0], n[1], n[2],
                        their_formats(), source);
}

/* The native replay's outputs: both opened once its options are checked, before the work, and
 * replacing their files only if all went well. */
typedef struct replay_outputs {
    const th_train_request *r;
    const th_cmd_io *io;
    th_cmd_io files; /* the trace's: no result stream */
    th_output out, trace;
    int open; /* 1: out open; 2: both */
} replay_outputs;

static int open_outputs(void *ctx, FILE **out, FILE **trace, th_error *err) {
    replay_outputs *o = ctx;
    int rc = th_cmd_out_open(o->io, o->r->output, o->r->force, &o->out, err);
    if (rc) return rc;
    o->open = 1;
    *out = o->out.f, *trace = NULL;
    if (o->r->trace) {
        if ((rc = th_cmd_out_open(&o->files, o->r->trace, o->r->force, &o->trace, err))) {
            o->open = 0;
            return th_cmd_out_close(o->io, &o->out, rc, err);
        }
        o->open = 2;
        *trace = o->trace.f;
    }
    return TH_OK;
}

static int replay(const th_train_request *r, const th_train_opts *t, const th_run_defaults *def,
                  const char *path, const th_wl_file *f, const th_system *sys, const th_cmd_io *io,
                  th_error *err) {
    th_wl_replay req = {.def = def,
                        .chunks = t->chunks,
                        .passes = (int)r->passes,
                        .scale = {r->comm_scale, r->compute_scale},
                        .policy = r->policy,
                        .intra = r->intra,
                        .format = r->format,
                        .load_model = (int)r->load_model,
                        .priority = (int)r->priority,
                        .comm_group = r->comm_group,
                        .poll = io->poll,
                        .poll_ctx = io->poll_ctx};
    const th_arg_src *m = &r->remote_memory;
    char *text = NULL;
    size_t len;
    if (m->path && th_json_read_file(m->path, &text, &len, err)) return err->code;
    req.memory = m->path ? text : m->text;
    req.memory_src = m->path ? m->path : "remote_memory";
    replay_outputs o = {.r = r, .io = io};
    o.files = (th_cmd_io){NULL, io->files, io->argv, NULL, NULL, NULL, NULL, NULL};
    int rc = f->format->replay(f->native, sys, path, &req, open_outputs, &o, err);
    free(text);
    if (o.open == 2) rc = th_cmd_out_close(&o.files, &o.trace, rc, err);
    if (o.open) rc = th_cmd_out_close(io, &o.out, rc, err);
    return rc;
}

int th_cmd_train_format(const th_train_request *r, const th_train_opts *t,
                        const th_run_defaults *def, const char *path, th_wl_file *f,
                        const th_system *sys, const th_cmd_io *io, th_workload **wl,
                        th_error *err) {
    const th_cmd_def *d = &th_cmd_train_def;
    const th_wl_format *fmt = f->format;
    char a[32], b[32], c[32];
    *wl = NULL;
    if (th_option_given(d, r, "remote_memory") &&
        !(fmt->memory && fmt->native_on && fmt->native_on(sys)))
        return th_cmd_usage(err, d, io, "%s is for %s; %s is %s",
                            th_cmd_name(d, io, "remote_memory", a, sizeof a),
                            th_cmd_memory_formats(), path, fmt->name);
    if (r->comm_group && !fmt->groups) return no_groups(path, io, err);
    if (fmt->native_on && fmt->native_on(sys)) {
        if (t->bucket || t->chunking_set || r->ideal_lat)
            return th_cmd_usage(err, d, io,
                                "%s, %s and %s are for our replay; under the "
                                "%s preset %s runs %s's state machine",
                                th_cmd_name(d, io, "bucket", a, sizeof a),
                                th_cmd_name(d, io, "chunking", b, sizeof b),
                                th_cmd_name(d, io, "ideal_lat", c, sizeof c),
                                th_model_name(sys->model), path, fmt->sim);
        return replay(r, t, def, path, f, sys, io, err);
    }
    if (r->passes)
        return th_error_set(err, TH_EINPUT,
                            "train: %s: %s's passes replay under the %s preset; on system \"%s\" "
                            "(%s model) the workload replays with our semantics, whose steady "
                            "state %s sets",
                            th_cmd_name(d, io, "passes", a, sizeof a), fmt->sim, fmt->model,
                            sys->name, th_model_name(sys->model),
                            th_cmd_name(d, io, "iterations", b, sizeof b));
    th_buf notes = {0};
    th_wl_scale scale = {r->comm_scale, r->compute_scale};
    int rc = fmt->convert(f->native, sys, &scale, path, wl, &notes, err);
    if (rc == TH_OK && io->notes) io->notes("note", &notes);
    th_buf_free(&notes);
    return rc;
}

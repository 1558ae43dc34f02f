/* The command line's half of the option tables (src/cmd/cmd_option.h): argv into a command's
 * request, as getopt_long reads it (operands anywhere, "--" ends the options, -nVALUE and
 * --name=VALUE, a long name shortened to a unique prefix), with "did you mean" for a misspelled
 * option; and the option lines of --help. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "themis/num.h"
#include "themis/str.h"
#include "themis/units.h"

static const char *const *long_names(const th_cmd_def *def, const char **names) {
    int n = 0;
    for (int i = 0; i < def->nopts && n < 63; i++)
        if (def->opts[i].name) names[n++] = def->opts[i].name;
    names[n] = NULL;
    return names;
}

/* The option of a long name (without "--", up to len characters): exact, else the one it is
 * a prefix of; NULL when none or several. */
static const th_option *by_name(const th_cmd_def *def, const char *s, size_t len) {
    const th_option *found = NULL;
    int n = 0;
    for (int i = 0; i < def->nopts; i++) {
        const th_option *o = &def->opts[i];
        if (!o->name || strncmp(o->name, s, len)) continue;
        if (strlen(o->name) == len) return o;
        found = o, n++;
    }
    return n == 1 ? found : NULL;
}

static const th_option *by_flag(const th_cmd_def *def, char c) {
    for (int i = 0; i < def->nopts; i++)
        if (def->opts[i].flag == c) return &def->opts[i];
    return NULL;
}

static int unknown(const th_cmd_def *def, const char *word) {
    const char *names[64];
    if (word[0] == '-' && word[1] == '-') { /* a prefix of several: name them */
        size_t len = strcspn(word + 2, "=");
        char list[512] = "";
        int n = 0;
        for (int i = 0; i < def->nopts; i++) {
            const char *name = def->opts[i].name;
            if (len && name && !strncmp(name, word + 2, len) && strlen(list) + strlen(name) < 480)
                snprintf(list + strlen(list), sizeof list - strlen(list), "%s--%s", n++ ? ", " : "",
                         name);
        }
        if (n > 1)
            return cli_usage_error(def->name, "option '%.*s' is ambiguous (%s)", (int)len + 2, word,
                                   list);
    }
    if (word[0] == '-' && word[1] == '-') {
        char name[64];
        snprintf(name, sizeof name, "%.*s", (int)strcspn(word + 2, "="), word + 2);
        int i = th_name_near(long_names(def, names), name);
        if (i >= 0)
            return cli_usage_error(def->name, "unknown option '%s'; did you mean '--%s'?", word,
                                   names[i]);
    }
    return cli_usage_error(def->name, "unknown option '%s'", word);
}

/* "-n" for an option with a short flag, else "--name": how messages name it. */
static void label(const th_option *o, char *buf, size_t n) {
    if (o->flag)
        snprintf(buf, n, "-%c", o->flag);
    else
        snprintf(buf, n, "--%s", o->name);
}

static int choice(const th_cmd_def *def, const th_option *o, const char *arg, int *out) {
    char flag[40], list[256];
    label(o, flag, sizeof flag);
    int rc = th_option_choice_find(o, arg, out);
    if (rc == 0) return CLI_OK;
    th_option_choice_list(o, list, sizeof list);
    if (rc < 0 || !o->beyond)
        return cli_usage_error(def->name, "%s: unknown %s '%s' (expected %s)", flag, o->noun, arg,
                               list);
    char why[512];
    const char *at = strstr(o->beyond, "{}");
    snprintf(why, sizeof why, "%.*s%s%s", (int)(at ? at - o->beyond : (long)strlen(o->beyond)),
             o->beyond, at ? list : "", at ? at + 2 : "");
    return cli_usage_error(def->name, "%s: %s '%s' %s", flag, o->noun, arg, why);
}

/* An integer in [lo, hi], read as a JSON request's is (th_num_parse, then whole): 0, else -1. */
static int parse_int(const char *s, long long lo, long long hi, long long *out) {
    double v;
    if (th_num_parse(s, &v) || v != floor(v) || v < (double)lo || v > (double)hi) return -1;
    *out = (long long)v;
    return 0;
}

/* A bound as people write it: 1e9 rather than 1e+09. */
static const char *number(char *buf, double v) {
    snprintf(buf, 32, "%g", v);
    char *e = strstr(buf, "e+");
    if (e) {
        char *d = e + 2;
        while (*d == '0' && d[1])
            d++;
        memmove(e + 1, d, strlen(d) + 1);
    }
    return buf;
}

/* One option's value into the request; CLI_OK or the exit status of the message printed. */
static int value(const th_cmd_def *def, const th_option *o, const char *arg, void *req) {
    void *f = (char *)req + o->off;
    char flag[40];
    label(o, flag, sizeof flag);
    switch (o->kind) {
    case TH_ARG_STRING: *(const char **)f = arg; return CLI_OK;
    case TH_ARG_SOURCE:
    case TH_ARG_DIMS: ((th_arg_src *)f)->path = arg; return CLI_OK;
    case TH_ARG_INT: {
        long long v;
        if (parse_int(arg, (long long)o->lo, (long long)o->hi, &v))
            return cli_usage_error(def->name, "%s: expected an integer from %lld to %lld, got '%s'",
                                   flag, (long long)o->lo, (long long)o->hi, arg);
        *(int64_t *)f = v;
        return CLI_OK;
    }
    case TH_ARG_SIZE: {
        th_error err = {0};
        char name[64];
        if (o->flags & TH_ARG_ONOFF) {
            double b = 0;
            snprintf(name, sizeof name, "--%s", o->name);
            if (!strcmp(arg, "on"))
                b = o->lo;
            else if (strcmp(arg, "off") && strcmp(arg, "0") &&
                     th_units_parse_size(arg, name, &b, &err))
                return cli_usage_error(def->name, "%s: expected a size, on or off, got '%s'", flag,
                                       arg);
            *(double *)f = b > 0 ? b : -1;
            return CLI_OK;
        }
        snprintf(name, sizeof name, "--%s", o->name);
        if (th_units_parse_size(arg, name, f, &err))
            return cli_usage_error(def->name, "%s", err.msg);
        return CLI_OK;
    }
    case TH_ARG_NUMBER: {
        double v = 0;
        char lo[32], hi[32];
        if (th_num_parse(arg, &v) || !(v > o->lo) || v > o->hi)
            return cli_usage_error(def->name, "%s: expected a number > %s and at most %s, got '%s'",
                                   flag, number(lo, o->lo), number(hi, o->hi), arg);
        *(double *)f = v;
        return CLI_OK;
    }
    case TH_ARG_CHOICE: return choice(def, o, arg, f);
    case TH_ARG_NUMBERS: ((th_arg_src *)f)->path = arg; return CLI_OK;
    case TH_ARG_LIST: break; /* operands */
    case TH_ARG_NAMES: ((th_arg_src *)f)->path = arg; return CLI_OK;
    case TH_ARG_PAIRS:
        switch (th_arg_pair_add(f, arg)) {
        case 0: return CLI_OK;
        case -1: return cli_usage_error(def->name, "%s: expected %s, got '%s'", flag, o->arg, arg);
        case -2: return cli_usage_error(def->name, "%s: at most %d", flag, TH_ARG_MAX_PAIRS);
        default: return cli_fail(&(th_error){TH_EINTERNAL, "out of memory"});
        }
    case TH_ARG_COUNTS:
        if (th_arg_counts_parse(arg, f))
            return cli_usage_error(def->name,
                                   "%s: expected auto or up to %d integers from 1 to %d "
                                   "separated by commas, got '%s'",
                                   flag, TH_ARG_MAX_COUNTS, TH_MAX_CHUNKS, arg);
        return CLI_OK;
    case TH_ARG_FLAG: *(int *)f = 1; return CLI_OK;
    case TH_ARG_HELP:
    case TH_ARG_VERSION: break;
    }
    return CLI_INTERNAL;
}

/* One option found in word (its value in the word after = or the flag, else the next word). */
static int take(const th_cmd_def *def, const th_option *o, const char *word,
                const char *inline_value, int argc, char **argv, int *i, void *req,
                void (*usage)(FILE *)) {
    if (o->kind == TH_ARG_HELP) {
        usage(stdout);
        return -1;
    }
    if (o->kind == TH_ARG_VERSION) {
        cli_version();
        return -1;
    }
    const char *arg = NULL;
    if (o->kind == TH_ARG_FLAG) {
        if (inline_value)
            return cli_usage_error(def->name, "option '--%s' takes no value", o->name);
    } else if (inline_value) {
        arg = inline_value;
    } else if (*i + 1 < argc) {
        arg = argv[++*i];
    } else {
        return cli_usage_error(def->name, "option '%s' needs a value", word);
    }
    int rc = value(def, o, arg, req);
    if (rc == CLI_OK) th_option_set_given(def, req, (int)(o - def->opts));
    return rc;
}

int cli_args(const th_cmd_def *def, int argc, char **argv, void *req, void (*usage)(FILE *),
             char **ops, int maxops, int *nops) {
    int n = 0, rc = CLI_OK;
    const char *extra = NULL; /* the first operand beyond maxops */
    for (int i = 1; i < argc && rc == CLI_OK; i++) {
        char *w = argv[i];
        if (!strcmp(w, "--")) {
            for (i++; i < argc; i++)
                if (n < maxops)
                    ops[n++] = argv[i];
                else if (!extra)
                    extra = argv[i];
            break;
        }
        if (w[0] != '-' || !w[1]) { /* an operand ("-" is stdin) */
            if (n < maxops)
                ops[n++] = w;
            else if (!extra)
                extra = w;
        } else if (w[1] == '-') {
            const char *eq = strchr(w + 2, '=');
            size_t len = eq ? (size_t)(eq - w - 2) : strlen(w + 2);
            const th_option *o = by_name(def, w + 2, len);
            rc = o ? take(def, o, w, eq ? eq + 1 : NULL, argc, argv, &i, req, usage)
                   : unknown(def, w);
        } else {
            for (const char *c = w + 1; *c && rc == CLI_OK; c++) {
                const th_option *o = by_flag(def, *c);
                if (!o) {
                    char word[3] = {'-', *c, '\0'};
                    rc = unknown(def, c == w + 1 && !c[1] ? w : word);
                } else if (o->kind == TH_ARG_FLAG || o->kind == TH_ARG_HELP ||
                           o->kind == TH_ARG_VERSION) {
                    rc = take(def, o, w, NULL, argc, argv, &i, req, usage);
                } else {
                    char word[3] = {'-', *c, '\0'};
                    rc = take(def, o, word, c[1] ? c + 1 : NULL, argc, argv, &i, req, usage);
                    break;
                }
            }
        }
    }
    if (rc) return rc;
    if (extra) return cli_usage_error(def->name, "unexpected argument '%s'", extra);
    if (nops) *nops = n;
    return CLI_OK;
}

void cli_help_options(FILE *out, const th_cmd_def *def) {
    for (int i = 0; i < def->nopts; i++) {
        const th_option *o = &def->opts[i];
        if (!o->name && !o->flag) continue; /* the API's only */
        char left[96];
        int len = snprintf(
            left, sizeof left, "  %c%c%s%s%s%s%s", o->flag ? '-' : ' ', o->flag ? o->flag : ' ',
            o->flag && o->name ? ", "
            : o->flag          ? ""
                               : "  ",
            o->name ? "--" : "", o->name ? o->name : "", o->arg ? " " : "", o->arg ? o->arg : "");
        if (len < def->help_width) /* else the text starts on the next line */
            fprintf(out, "%s%*s", left, def->help_width - len, "");
        else
            fprintf(out, "%s\n%*s", left, def->help_width, "");
        for (const char *h = o->help; *h; h++) {
            if (h[0] == '{' && h[1] == '}') { /* the choices, "a | b | all" */
                for (int k = 0, shown = 0; o->choices[k]; k++)
                    if (!o->allowed || ((o->allowed >> k) & 1u))
                        fprintf(out, "%s%s", shown++ ? " | " : "", o->choices[k]);
                if (o->flags & TH_ARG_ALL) fputs(" | all", out);
                h++;
            } else if (*h == '\n') {
                fprintf(out, "\n%*s", def->help_width, "");
            } else {
                fputc(*h, out);
            }
        }
        if (o->kind == TH_ARG_NUMBER) { /* the limits the value is checked against */
            char lo[32], hi[32];
            fprintf(out, "\n%*s(a number > %s, at most %s)", def->help_width, "", number(lo, o->lo),
                    number(hi, o->hi));
        }
        fputc('\n', out);
    }
}

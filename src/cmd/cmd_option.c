/* The option tables' generic half in the library: looking options up, what was given, the
 * choices, and the values both front ends parse alike (chunk counts, KEY=VALUE pairs). The
 * JSON reader is cmd_option_json.c, the argv reader the front end's (src/cli/args.c). */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd_option.h"
#include "themis/num.h"
#include "themis/schedule.h"
#include "themis/str.h"

const th_option *th_option_lookup(const th_cmd_def *def, const char *name) {
    for (int i = 0; i < def->nopts; i++) {
        const th_option *o = &def->opts[i];
        if ((o->name && !strcmp(o->name, name)) || (o->key && !strcmp(o->key, name))) return o;
    }
    return NULL;
}

int th_option_given(const th_cmd_def *def, const void *req, const char *name) {
    const th_option *o = th_option_lookup(def, name);
    uint64_t given;
    memcpy(&given, (const char *)req + def->given, sizeof given);
    return o && ((given >> (o - def->opts)) & 1u);
}

void th_option_set_given(const th_cmd_def *def, void *req, int i) {
    uint64_t *given = (uint64_t *)(void *)((char *)req + def->given);
    *given |= (uint64_t)1 << i;
}

static int taken(const th_option *o, int i) {
    return !o->allowed || ((o->allowed >> i) & 1u);
}

void th_option_choice_list(const th_option *o, char *buf, size_t n) {
    const char *names[34];
    int k = 0;
    for (int i = 0; o->choices[i] && k < 32; i++)
        if (taken(o, i)) names[k++] = o->choices[i];
    if (o->flags & TH_ARG_ALL) names[k++] = "all";
    size_t len = 0;
    buf[0] = '\0';
    for (int i = 0; i < k && len < n; i++)
        len += (size_t)snprintf(buf + len, n - len, "%s%s",
                                !i           ? ""
                                : i == k - 1 ? " or "
                                             : ", ",
                                names[i]);
}

int th_option_choice_find(const th_option *o, const char *s, int *out) {
    if ((o->flags & TH_ARG_ALL) && !strcmp(s, "all")) {
        *out = -1;
        return 0;
    }
    int i = th_name_find(o->choices, s);
    if (i < 0) return -1;
    if (!taken(o, i) && !(o->flags & TH_ARG_UNLISTED)) return 1;
    *out = i;
    return 0;
}

/* One count of a list: an integer from 1 to TH_MAX_CHUNKS read as JSON reads it. */
static int one_count(const char *s, size_t len, int64_t *out) {
    char buf[32];
    double v;
    if (len == 0 || len >= sizeof buf) return -1;
    memcpy(buf, s, len);
    buf[len] = '\0';
    if (th_num_parse(buf, &v) || v != floor(v) || v < 1 || v > TH_MAX_CHUNKS) return -1;
    *out = (int64_t)v;
    return 0;
}

int th_arg_counts_parse(const char *text, th_arg_counts *c) {
    c->n = 0;
    if (!strchr(text, ',') && one_count(text, strlen(text), &c->one) == 0) return 0;
    if (!strcmp(text, "auto")) {
        for (int64_t k = 1; k <= 1024; k *= 2)
            c->v[c->n++] = k;
        return 0;
    }
    for (const char *s = text; c->n < TH_ARG_MAX_COUNTS;) {
        size_t len = strcspn(s, ",");
        if (one_count(s, len, &c->v[c->n])) break;
        c->n++;
        if (s[len] == '\0') return 0;
        s += len + 1;
    }
    c->n = 0;
    return -1;
}

int th_arg_pair_add(th_arg_pairs *p, const char *text) {
    const char *eq = strchr(text, '=');
    if (!eq || eq == text) return -1;
    if (p->n == TH_ARG_MAX_PAIRS) return -2;
    char *own = th_strdup(text);
    if (!own) return -3;
    own[eq - text] = '\0';
    p->own[p->n] = own;
    p->key[p->n] = own;
    p->value[p->n++] = own + (eq - text) + 1;
    return 0;
}

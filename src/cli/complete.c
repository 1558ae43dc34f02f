/* The bash completion's questions, answered from the option tables (scripts/themis.bash asks):
 *
 *   themis --complete-commands         the commands, one per line (main.c)
 *   themis --complete-options CMD      CMD's options, -x and --long, one per line
 *   themis --complete-values CMD OPT   the values OPT takes: its choices one per line, FILE
 *                                      for a file name, nothing for a number; exit 1 when OPT
 *                                      takes no value or is unknown
 *
 * Exit 2 when CMD is not a command. Not in --help: only the script asks. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const th_option *find(const th_cmd_def *def, const char *word) {
    for (int i = 0; i < def->nopts; i++) {
        const th_option *o = &def->opts[i];
        if ((word[0] == '-' && word[1] == '-' && o->name && !strcmp(word + 2, o->name)) ||
            (word[0] == '-' && o->flag && word[1] == o->flag && !word[2]))
            return o;
    }
    return NULL;
}

static int values(const th_option *o) {
    switch (o->kind) {
    case TH_ARG_CHOICE:
        for (int k = 0; o->choices[k]; k++)
            if (!o->allowed || ((o->allowed >> k) & 1u)) printf("%s\n", o->choices[k]);
        if (o->flags & TH_ARG_ALL) puts("all");
        return CLI_OK;
    case TH_ARG_SOURCE: puts("FILE"); return CLI_OK;
    case TH_ARG_STRING:
        if (o->arg && (!strcmp(o->arg, "FILE") || !strcmp(o->arg, "SPEC"))) puts("FILE");
        return CLI_OK;
    case TH_ARG_FLAG:
    case TH_ARG_HELP:
    case TH_ARG_VERSION: return 1;
    default: return CLI_OK; /* numbers, sizes, lists: nothing to offer */
    }
}

int cli_complete(int argc, char **argv, const th_cmd_def *def) {
    if (!def) return CLI_USAGE;
    if (!strcmp(argv[1], "--complete-options")) {
        for (int i = 0; i < def->nopts; i++) {
            const th_option *o = &def->opts[i];
            if (o->flag) printf("-%c\n", o->flag);
            if (o->name) printf("--%s\n", o->name);
        }
        return CLI_OK;
    }
    const th_option *o = argc > 3 ? find(def, argv[3]) : NULL;
    return o ? values(o) : 1;
}

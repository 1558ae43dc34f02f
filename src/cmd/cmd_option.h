/* A command's options, declared once: the descriptor table from which the command line's
 * parser, the API's request reader, --help and the bash completion all work, so an option
 * cannot mean one thing on the command line and another in a JSON request. */
#ifndef THEMIS_CMD_OPTION_H
#define THEMIS_CMD_OPTION_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "themis/error.h"

/* What an option's value is, and the type of its field in the request. */
typedef enum th_arg_kind {
    TH_ARG_STRING,  /* const char *: a file name or a word */
    TH_ARG_SOURCE,  /* th_arg_src: a file name; in JSON also an object (its text) */
    TH_ARG_DIMS,    /* th_arg_src: a dim list "0,2"; in JSON also an array [0, 2] */
    TH_ARG_INT,     /* int64_t from lo to hi */
    TH_ARG_SIZE,    /* double: bytes, or a string such as "64MiB" */
    TH_ARG_NUMBER,  /* double, > lo and <= hi */
    TH_ARG_CHOICE,  /* int: an index into choices, or -1 for "all" (TH_ARG_ALL) */
    TH_ARG_FLAG,    /* int: 1 when given (JSON true or false) */
    TH_ARG_NUMBERS, /* th_arg_src: numbers "1,1,2"; in JSON an array [1, 1, 2] (joined) */
    TH_ARG_COUNTS,  /* th_arg_counts: a count, or a list of counts "1,4,16" or "auto" */
    TH_ARG_LIST,    /* th_arg_list: file names (the command line's operands); in JSON one
                       string or a list of them, at most hi */
    TH_ARG_NAMES,   /* th_arg_src: names "a,b"; in JSON also a list ["a", "b"], at most hi */
    TH_ARG_PAIRS,   /* th_arg_pairs: KEY=VALUE, repeatable; in JSON an object of strings */
    TH_ARG_HELP,    /* -h, --help: the command line's only, handled by it */
    TH_ARG_VERSION, /* -V, --version: the same */
} th_arg_kind;

/* th_option flags. */
enum {
    TH_ARG_ALL = 1,      /* a choice also takes "all" (-1) */
    TH_ARG_ONOFF = 2,    /* a size also takes "on" (lo) and "off" or 0 (-1) */
    TH_ARG_UNLISTED = 4, /* a choice also takes the choices beyond allowed, unlisted (aliases) */
};

/* A value that is a file name or, from JSON, text the reader made (an object printed back, a
 * dim list joined); `own` is that text, freed by th_option_free. */
typedef struct th_arg_src {
    const char *path; /* a file name or dim list; NULL when text holds an object or nothing */
    const char *text; /* an object's JSON text (TH_ARG_SOURCE from JSON), else NULL */
    char *own;
} th_arg_src;

/* Several strings: the command line's operands, or a JSON list (own: the array, freed by
 * th_option_free). */
typedef struct th_arg_list {
    const char *const *v;
    int n;
    const char **own;
} th_arg_list;

/* KEY=VALUE pairs, at most TH_ARG_MAX_PAIRS (own: the command line's copies, split at '='). */
#define TH_ARG_MAX_PAIRS 32
typedef struct th_arg_pairs {
    int n;
    const char *key[TH_ARG_MAX_PAIRS], *value[TH_ARG_MAX_PAIRS];
    char *own[TH_ARG_MAX_PAIRS];
} th_arg_pairs;

/* Chunk counts: one (as -n), or a list to choose the best of. */
#define TH_ARG_MAX_COUNTS 64
typedef struct th_arg_counts {
    int64_t one; /* a single count; 0 = none */
    int n;       /* a list's length; 0 = none */
    int64_t v[TH_ARG_MAX_COUNTS];
} th_arg_counts;

typedef struct th_option {
    char flag;                  /* short flag, 0 for none */
    const char *name;           /* long flag without "--"; NULL for a key the command line lacks */
    const char *key;            /* JSON key; NULL for an option the API lacks (outputs, -f) */
    th_arg_kind kind;           /* what the value is */
    size_t off;                 /* offsetof its field in the request */
    const char *arg;            /* its value in --help (FILE, N, SIZE); NULL for a flag */
    const char *help;           /* its --help text; '\n' starts a continuation line */
    const char *noun;           /* what a choice names, in "unknown NOUN 'x'"; a source's object */
    const char *const *choices; /* TH_ARG_CHOICE: the enum's name table (NULL-terminated) */
    unsigned allowed;           /* the choices taken (bit i: choices[i]); 0 = all of them */
    const char *beyond; /* a known but not taken choice: the reason, "{}" = the taken ones */
    int flags;          /* TH_OPT_* */
    double lo, hi;      /* TH_ARG_INT, TH_ARG_NUMBER: the range */
} th_option;

/* A command: its name (in messages), its option table, the request's bit set of the options
 * given (bit i: opts[i]), and the --help layout. */
typedef struct th_cmd_def {
    const char *name;
    const th_option *opts;
    int nopts;
    size_t given;            /* offsetof the request's uint64_t bit set */
    int help_width;          /* the column where --help's option texts start */
    const char *const *keys; /* JSON keys the command reads itself (NULL-terminated) or NULL */
} th_cmd_def;

/* The option of def named `name` (long flag or key), or NULL. */
const th_option *th_option_lookup(const th_cmd_def *def, const char *name);
/* Whether the option `name` was given in req. */
int th_option_given(const th_cmd_def *def, const void *req, const char *name);
/* Marks opts[i] given in req. */
void th_option_set_given(const th_cmd_def *def, void *req, int i);

/* "a, b or c" of the taken choices of o (with "or all" for TH_ARG_ALL) into buf. */
void th_option_choice_list(const th_option *o, char *buf, size_t n);
/* The index of s among the taken choices of o (-1 for "all"): 0 on success, 1 for a known
 * choice not taken, -1 for an unknown one. */
int th_option_choice_find(const th_option *o, const char *s, int *out);

/* Chunk counts from text: one count, "auto" (1, 2, 4, ..., 1024) or a list "1,4,16" of up to
 * TH_ARG_MAX_COUNTS; 0, or -1 when text is none of them. */
int th_arg_counts_parse(const char *text, th_arg_counts *c);

/* Adds "KEY=VALUE" to p (a copy, split at the first '='): 0, -1 without a KEY and '=', -2 when
 * p is full, -3 out of memory. */
int th_arg_pair_add(th_arg_pairs *p, const char *text);

/* The request's fields from a JSON request object: its keys checked (an unknown one names
 * the nearest known one), each value checked by its kind with messages "<cmd>: <key>:
 * expected ..., got ...". Fields of absent keys (or null) stay as they were. */
int th_option_from_json(const th_cmd_def *def, const cJSON *root, void *req, th_error *err);

/* Frees the text the JSON reader made for req. */
void th_option_free(const th_cmd_def *def, void *req);

#endif

/* Reading the text output of nccl-tests and rccl-tests: the header lines ('#'), the devices, the
 * results table (columns found by name in its header) and its footer; the row checks shared with
 * the JSON reader. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "calibrate_internal.h"
#include "json.h"
#include "themis/buf.h"
#include "themis/str.h"

#define MAX_TOKENS 64

/* The test programs themis models, in th_coll_type order. */
static const char *const programs[] = {"all_reduce_perf", "reduce_scatter_perf", "all_gather_perf",
                                       "alltoall_perf", NULL};

int th_cal_program_coll(const char *program) {
    for (int i = 0; programs[i]; i++) {
        size_t n = strlen(programs[i]);
        /* make NAME_SUFFIX=_mpi builds all_reduce_perf_mpi */
        if (!strncmp(program, programs[i], n) && (program[n] == '\0' || program[n] == '_'))
            return i;
    }
    return -1;
}

const char *cal_where(const th_cal_log *log, int line, char *buf, size_t n) {
    if (log->json)
        snprintf(buf, n, "%s: results[%d]", log->source, line);
    else
        snprintf(buf, n, "%s:%d", log->source, line);
    return buf;
}

int cal_add_row(th_cal_log *log, const th_cal_row *row, const char *type, const char *redop,
                th_error *err) {
    char at[300];
    cal_where(log, row->line, at, sizeof at);
    if (!isfinite(row->size) || row->size < 0 || row->size != floor(row->size))
        return th_error_set(err, TH_EINPUT, "%s: size: expected a whole number of bytes, got %g",
                            at, row->size);
    for (int k = 0; k < 2; k++)
        if (row->time_us[k] >= 0 && (!isfinite(row->time_us[k]) || row->time_us[k] == 0))
            return th_error_set(err, TH_EINPUT, "%s: %s time: expected a time > 0 us, got %g", at,
                                k ? "in-place" : "out-of-place", row->time_us[k]);
    int first = log->nrows + log->rows_zero == 0;
    if (first) {
        snprintf(log->type, sizeof log->type, "%s", type);
        snprintf(log->redop, sizeof log->redop, "%s", redop);
        log->first_size = row->size;
        log->cycles = 1;
    } else {
        if (strcmp(type, log->type) || strcmp(redop, log->redop))
            return th_error_set(err, TH_EINPUT,
                                "%s: data type %s, op %s after %s, %s in the rows above (a run "
                                "with -d all or -o all): calibrate reads one type and op, split "
                                "the log",
                                at, type, redop, log->type, log->redop);
        if (row->size < log->last_size) {
            if (row->size != log->first_size)
                return th_error_set(err, TH_EINPUT,
                                    "%s: size %.0f after %.0f: sizes go backwards (only a new "
                                    "cycle, -N, may start again, at the first size %.0f)",
                                    at, row->size, log->last_size, log->first_size);
            log->cycles++;
        }
    }
    log->last_size = row->size;
    if (row->size == 0) { /* a size trimmed to nothing: the time of an empty call */
        log->rows_zero++;
        return TH_OK;
    }
    if (th_grow(&log->rows, &log->cap, (size_t)log->nrows + 1, sizeof *log->rows))
        return th_error_set(err, TH_EINTERNAL, "%s: out of memory", log->source);
    log->rows[log->nrows++] = *row;
    return TH_OK;
}

typedef struct tok {
    const char *p;
    int n;
} tok;

static int split(const char *s, const char *end, tok *t, int max) {
    int k = 0;
    while (s < end) {
        while (s < end && isspace((unsigned char)*s))
            s++;
        if (s == end) break;
        const char *b = s;
        while (s < end && !isspace((unsigned char)*s))
            s++;
        if (k == max) return k + 1; /* more than max: the caller refuses the line */
        t[k].p = b, t[k].n = (int)(s - b), k++;
    }
    return k;
}

static int is(const tok *t, const char *s) {
    return (int)strlen(s) == t->n && !strncmp(t->p, s, (size_t)t->n);
}

static void copy(char *out, size_t n, const tok *t) {
    snprintf(out, n, "%.*s", t->n, t->p);
}

/* A token that is a whole number (digits only). */
static int is_count(const tok *t) {
    for (int i = 0; i < t->n; i++)
        if (!isdigit((unsigned char)t->p[i])) return 0;
    return t->n > 0 && t->n < 20;
}

/* A finite number written the way printf writes %f, %g or %e; 0 when it is one. */
static int number(const tok *t, double *out) {
    char buf[64], *end;
    if (t->n >= (int)sizeof buf) return -1;
    copy(buf, sizeof buf, t);
    if (!isdigit((unsigned char)buf[0]) && !(buf[0] == '-' && isdigit((unsigned char)buf[1])))
        return -1; /* strtod alone would take inf, nan and hex */
    double v = strtod(buf, &end);
    if (*end != '\0' || !isfinite(v)) return -1;
    *out = v;
    return 0;
}

/* Column positions of the results table, from its header line. */
typedef struct cols {
    int size, type, redop;
    int groups;   /* time groups: 1 or 2 */
    int which[2]; /* 0 out-of-place, 1 in-place, per group */
    int time[2], algbw[2], busbw[2], wrong[2];
    int max_error; /* the wrong columns are old nccl-tests' `error` (largest error), no count */
    int need;      /* tokens a row must have */
} cols;

static int find(const tok *t, int n, int from, int to, const char *name) {
    for (int i = from; i < to && i < n; i++)
        if (is(&t[i], name)) return i;
    return -1;
}

/* The header "# size count type redop root time algbw busbw #wrong time ...", tokens after
 * the '#'; prev: the line above ("out-of-place ... in-place", or "in-place" alone). */
static int header(const tok *t, int n, const char *prev, const char *at, cols *c, th_error *err) {
    memset(c, 0, sizeof *c);
    c->size = 0;
    c->type = find(t, n, 0, n, "type");
    c->redop = find(t, n, 0, n, "redop");
    int starts[3], ng = 0;
    for (int i = 0; i < n; i++) {
        if (is(&t[i], "cputime"))
            return th_error_set(err, TH_EINPUT,
                                "%s: the log reports CPU time (nccl-tests -C 1), not the "
                                "collective's time: run the test without -C",
                                at);
        if (is(&t[i], "time")) {
            if (ng == 2)
                return th_error_set(err, TH_EINPUT,
                                    "%s: results table header with more than two time columns", at);
            starts[ng++] = i;
        }
    }
    if (ng == 0 || c->type < 0 || c->redop < 0)
        return th_error_set(err, TH_EINPUT,
                            "%s: results table header without its %s column (expected size, "
                            "count, type, redop, root, time, algbw, busbw, #wrong)",
                            at,
                            ng == 0       ? "time"
                            : c->type < 0 ? "type"
                                          : "redop");
    starts[ng] = n;
    c->groups = ng;
    c->need = c->redop + 1 > c->type + 1 ? c->redop + 1 : c->type + 1;
    for (int g = 0; g < ng; g++) {
        c->time[g] = starts[g];
        c->algbw[g] = find(t, n, starts[g], starts[g + 1], "algbw");
        c->busbw[g] = find(t, n, starts[g], starts[g + 1], "busbw");
        c->wrong[g] = find(t, n, starts[g], starts[g + 1], "#wrong");
        if (c->wrong[g] < 0 && (c->wrong[g] = find(t, n, starts[g], starts[g + 1], "error")) >= 0)
            c->max_error = 1; /* old nccl-tests: the largest numerical error, not a count */
        if (c->algbw[g] < 0 || c->busbw[g] < 0 || c->wrong[g] < 0)
            return th_error_set(err, TH_EINPUT,
                                "%s: results table header: time column %d without its algbw, "
                                "busbw and #wrong columns",
                                at, g + 1);
        int last = c->wrong[g] > c->busbw[g] ? c->wrong[g] : c->busbw[g];
        if (last + 1 > c->need) c->need = last + 1;
    }
    /* rccl-tests -O 0 prints the in-place columns alone, under an "in-place" title */
    int lone_in = prev && strstr(prev, "in-place") && !strstr(prev, "out-of-place");
    c->which[0] = ng == 1 && lone_in ? 1 : 0;
    c->which[1] = 1;
    return TH_OK;
}

static int row_value(const tok *t, int i, const char *name, const char *at, double *v,
                     th_error *err) {
    if (number(&t[i], v) == 0) return TH_OK;
    char got[40];
    copy(got, sizeof got, &t[i]);
    return th_error_set(err, TH_EINPUT, "%s: column %d (%s): expected a number, got '%s'", at,
                        i + 1, name, got);
}

static int data_row(th_cal_log *log, const cols *c, const tok *t, int n, int line, th_error *err) {
    char at[300];
    cal_where(log, line, at, sizeof at);
    if (n < c->need)
        return th_error_set(err, TH_EINPUT,
                            "%s: result row cut short: %d columns, the header has %d "
                            "(truncated log?)",
                            at, n, c->need);
    if (n > MAX_TOKENS) return th_error_set(err, TH_EINPUT, "%s: too many columns", at);
    th_cal_row r;
    memset(&r, 0, sizeof r);
    r.line = line;
    r.time_us[0] = r.time_us[1] = -1;
    r.wrong[0] = r.wrong[1] = -1;
    if (row_value(t, c->size, "size", at, &r.size, err)) return err->code;
    for (int g = 0; g < c->groups; g++) {
        int k = c->which[g];
        double algbw, busbw;
        if (row_value(t, c->time[g], "time", at, &r.time_us[k], err) ||
            row_value(t, c->algbw[g], "algbw", at, &algbw, err) ||
            row_value(t, c->busbw[g], "busbw", at, &busbw, err))
            return err->code;
        if (r.time_us[k] < 0) /* below 0 is how a row says "no time": not the log's to say */
            return th_error_set(err, TH_EINPUT,
                                "%s: column %d (time): expected a time > 0 us, got %g", at,
                                c->time[g] + 1, r.time_us[k]);
        if (g == 0) r.algbw = algbw, r.busbw = busbw;
        if (!is(&t[c->wrong[g]], "N/A") &&
            row_value(t, c->wrong[g], c->max_error ? "error" : "#wrong", at, &r.wrong[k], err))
            return err->code;
        log->has_time[k] = 1;
    }
    char type[16], redop[16];
    copy(type, sizeof type, &t[c->type]);
    copy(redop, sizeof redop, &t[c->redop]);
    return cal_add_row(log, &r, type, redop, err);
}

/* Tokens after a leading '#', or -1 when the line is not a comment. */
static int comment(const char *s, const char *end, tok *t) {
    while (s < end && isspace((unsigned char)*s))
        s++;
    if (s == end || *s != '#') return -1;
    return split(s + 1, end, t, MAX_TOKENS);
}

static int parse_text(const char *text, size_t len, th_cal_log *log, th_error *err) {
    enum { BEFORE, TABLE, AFTER } state = BEFORE;
    const char *s = text, *end = text + len, *prev = NULL;
    char prev_buf[256] = "";
    tok t[MAX_TOKENS + 1];
    cols c;
    int line = 0, header_line = 0, group = -1;
    while (s < end) {
        const char *e = memchr(s, '\n', (size_t)(end - s));
        if (!e) e = end;
        line++;
        int n = comment(s, e, t);
        char at[300];
        cal_where(log, line, at, sizeof at);
        if (n >= 0) {
            if (n >= 3 && is(&t[0], "size") && is(&t[1], "count")) {
                if (state != BEFORE)
                    return th_error_set(err, TH_EINPUT,
                                        "%s: a second results table (the first starts at line "
                                        "%d): calibrate reads one test per log",
                                        at, header_line);
                if (header(t, n > MAX_TOKENS ? MAX_TOKENS : n, prev, at, &c, err)) return err->code;
                state = TABLE, header_line = line;
                log->max_error = c.max_error;
            } else if (n >= 4 && is(&t[0], "Collective") && is(&t[1], "test") &&
                       is(&t[2], "starting:")) {
                copy(log->program, sizeof log->program, &t[3]);
            } else if (state == BEFORE && n >= 2 && is(&t[0], "Rank") && is_count(&t[1])) {
                int g = 0; /* rccl-tests lists no groups */
                if (n >= 4 && is(&t[2], "Group") && is_count(&t[3])) g = atoi(t[3].p);
                if (group < 0) group = g;
                if (g == group) log->nranks++;
            } else if (state == TABLE && n >= 2 &&
                       ((is(&t[0], "Out") && is(&t[1], "of")) ||
                        (is(&t[0], "Avg") && is(&t[1], "bus")))) {
                state = AFTER;
            }
            size_t k = (size_t)(e - s) < sizeof prev_buf ? (size_t)(e - s) : sizeof prev_buf - 1;
            memcpy(prev_buf, s, k);
            prev_buf[k] = '\0';
            prev = prev_buf;
        } else if (state == TABLE) {
            n = split(s, e, t, MAX_TOKENS);
            /* a result row starts with its size; other lines (NCCL INFO/WARN) are skipped */
            if (n > 0 && is_count(&t[0]) && data_row(log, &c, t, n, line, err)) return err->code;
        }
        s = e < end ? e + 1 : end;
    }
    if (state == BEFORE)
        return th_error_set(err, TH_EINPUT,
                            "%s: not an nccl-tests or rccl-tests log: no results table header "
                            "('#  size  count  type  redop  root  time  algbw  busbw  #wrong ...') "
                            "in its %d lines",
                            log->source, line);
    if (log->nrows == 0)
        return th_error_set(err, TH_EINPUT, "%s:%d: no result rows %s the table header",
                            log->source, line, log->rows_zero ? "of size > 0 after" : "after");
    if (state == TABLE)
        return th_error_set(err, TH_EINPUT,
                            "%s:%d: the log ends inside the results table, without its footer "
                            "('# Out of bounds values', '# Avg bus bandwidth'): truncated?",
                            log->source, line);
    return TH_OK;
}

/* ---- the launcher's line prefixes ---- */

/* The kinds of prefix a launcher puts before every line of a rank's output. */
enum { PFX_NONE, PFX_OMPI, PFX_SRUN, PFX_RANK, PFX_LITERAL };

static const char *digits(const char *s, const char *end) {
    const char *b = s;
    while (s < end && isdigit((unsigned char)*s))
        s++;
    return s > b ? s : NULL;
}

/* The end of a prefix of `kind` at the start of s (leading blanks allowed, as srun pads its
 * labels), or NULL when the line does not start with one. */
static const char *prefix_end(int kind, const char *lit, const char *s, const char *end) {
    if (kind == PFX_LITERAL) {
        size_t n = strlen(lit);
        return (size_t)(end - s) >= n && !memcmp(s, lit, n) ? s + n : NULL;
    }
    while (s < end && (*s == ' ' || *s == '\t'))
        s++;
    if (kind == PFX_SRUN) { /* srun --label: "0: ", "12: " */
        s = digits(s, end);
        return s && s < end && *s == ':' ? s + 1 : NULL;
    }
    if (s == end || *s != '[' || !(s = digits(s + 1, end))) return NULL;
    if (kind == PFX_RANK) /* "[0] " */
        return s < end && *s == ']' ? s + 1 : NULL;
    /* Open MPI --tag-output: "[1,0]<stdout>:" (job, rank; stdout or stderr) */
    if (s == end || *s != ',' || !(s = digits(s + 1, end)) || end - s < 3 || s[0] != ']' ||
        s[1] != '<')
        return NULL;
    for (s += 2; s < end && isalpha((unsigned char)*s); s++)
        ;
    return end - s >= 2 && s[0] == '>' && s[1] == ':' ? s + 2 : NULL;
}

/* What stands before the '#' of the results table's header line: the launcher's prefix, told
 * from that one line (so a prefix is stripped only when the table itself carries it, and only
 * the kind it carries). */
static int find_prefix(const char *text, size_t len, char *lit, size_t n) {
    const char *s = text, *end = text + len;
    tok t[4];
    while (s < end) {
        const char *e = memchr(s, '\n', (size_t)(end - s));
        if (!e) e = end;
        const char *h = memchr(s, '#', (size_t)(e - s));
        if (h && split(h + 1, e, t, 3) >= 2 && is(&t[0], "size") && is(&t[1], "count")) {
            const char *b = s, *pe = h;
            while (b < pe && isspace((unsigned char)*b))
                b++;
            while (pe > b && isspace((unsigned char)pe[-1]))
                pe--;
            if (pe == b || (size_t)(pe - b) >= n) return PFX_NONE;
            snprintf(lit, n, "%.*s", (int)(pe - b), b);
            for (int k = PFX_OMPI; k <= PFX_RANK; k++)
                if (prefix_end(k, NULL, b, pe) == pe) return k;
            return PFX_LITERAL;
        }
        s = e < end ? e + 1 : end;
    }
    return PFX_NONE;
}

/* The text with the launcher's prefix removed from every line that has it (lines keep their
 * numbers); *out = NULL when there is none. */
static int strip_prefix(const char *text, size_t len, th_cal_log *log, char **out, size_t *olen,
                        th_error *err) {
    *out = NULL;
    int kind = find_prefix(text, len, log->prefix, sizeof log->prefix);
    if (kind == PFX_NONE) {
        log->prefix[0] = '\0';
        return TH_OK;
    }
    char *p = malloc(len + 1);
    if (!p) return th_error_set(err, TH_EINTERNAL, "%s: out of memory", log->source);
    const char *s = text, *end = text + len;
    size_t k = 0;
    while (s < end) {
        const char *e = memchr(s, '\n', (size_t)(end - s));
        e = e ? e + 1 : end;
        const char *b = prefix_end(kind, log->prefix, s, e);
        if (!b) b = s;
        memcpy(p + k, b, (size_t)(e - b));
        k += (size_t)(e - b);
        s = e;
    }
    p[k] = '\0';
    *out = p, *olen = k;
    return TH_OK;
}

double th_cal_error_bound(const char *type) {
    static const struct {
        const char *type;
        double bound;
    } b[] = {{"half", 1e-2}, {"bfloat16", 1e-2}, {"float", 1e-5}, {"double", 1e-12},
             {"int8", 0},    {"uint8", 0},       {"int32", 0},    {"uint32", 0},
             {"int64", 0},   {"uint64", 0},      {"int", 0},      {"char", 0}};
    for (size_t i = 0; i < sizeof b / sizeof b[0]; i++)
        if (!strcmp(type, b[i].type)) return b[i].bound;
    return 1e-5;
}

/* nccl-tests -J JSON only when the whole file is a JSON object with a "results" list; a text
 * log that starts with '{' (a Python dict of the run's settings on its first line, say) is
 * read as text. A file that is neither, but starts with '{', gets the JSON reader's message
 * (a JSON file cut short, for one). */
static int looks_json(const char *text, size_t len) {
    th_error scratch = {0};
    cJSON *root;
    if (th_json_parse(text, len, "", &root, &scratch)) return 0;
    int yes =
        cJSON_IsObject(root) && cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(root, "results"));
    cJSON_Delete(root);
    return yes;
}

int th_cal_log_parse(const char *text, size_t len, const char *source, th_cal_log *log,
                     th_error *err) {
    memset(log, 0, sizeof *log);
    log->coll = -1;
    snprintf(log->source, sizeof log->source, "%s", source);
    size_t i = 0;
    while (i < len && isspace((unsigned char)text[i]))
        i++;
    int brace = i < len && text[i] == '{';
    int rc;
    if (brace && looks_json(text, len)) {
        log->json = 1;
        rc = cal_parse_json(text, len, log, err);
    } else {
        char *clean;
        size_t clen;
        rc = strip_prefix(text, len, log, &clean, &clen, err);
        if (rc == TH_OK) rc = parse_text(clean ? clean : text, clean ? clen : len, log, err);
        free(clean);
        if (rc && brace && !log->nrows && strstr(err->msg, "no results table header")) {
            log->json = 1; /* neither: say why it is not JSON */
            rc = cal_parse_json(text, len, log, err);
        }
    }
    if (rc == TH_OK && log->program[0]) log->coll = th_cal_program_coll(log->program);
    if (rc) th_cal_log_free(log);
    return rc;
}

int th_cal_log_read(const char *path, th_cal_log *log, th_error *err) {
    char *text;
    size_t len;
    memset(log, 0, sizeof *log);
    if (th_json_read_file(path, &text, &len, err)) return err->code;
    int rc = th_cal_log_parse(text, len, strcmp(path, "-") ? path : "<stdin>", log, err);
    free(text);
    return rc;
}

void th_cal_log_free(th_cal_log *log) {
    free(log->rows);
    log->rows = NULL;
    log->nrows = log->cap = 0;
}

int th_cal_collective(const th_cal_log *log, int given, int npus, th_coll_type *coll,
                      th_error *err) {
    if (log->program[0] && log->coll < 0)
        return th_error_set(err, TH_EINPUT,
                            "%s: the log is of %s, a test themis does not model (expected "
                            "all_reduce_perf, reduce_scatter_perf, all_gather_perf or "
                            "alltoall_perf)",
                            log->source, log->program);
    if (given >= 0 && log->coll >= 0 && given != log->coll)
        return th_error_set(err, TH_EINPUT, "%s: the log is of %s, -c says %s", log->source,
                            log->program, th_coll_type_name((th_coll_type)given));
    if (given >= 0 || log->coll >= 0) {
        *coll = (th_coll_type)(given >= 0 ? given : log->coll);
        return TH_OK;
    }
    /* An older log that does not name its program: All-Reduce's bus bandwidth is 2(n-1)/n of
     * its algorithm bandwidth, the others' (n-1)/n; a redop of none is All-Gather or
     * All-to-All, which nothing in the table tells apart. */
    const th_cal_row *best = NULL;
    for (int i = 0; i < log->nrows; i++)
        if (!best || log->rows[i].busbw > best->busbw) best = &log->rows[i];
    int none = !strcmp(log->redop, "none");
    if (!none && npus > 1 && best && best->algbw >= 1.0) {
        double ratio = best->busbw / best->algbw, q = (npus - 1.0) / npus;
        double tol = 0.01 / best->algbw + 0.01 / best->busbw + 1e-9; /* 2-decimal rounding */
        if (fabs(ratio - 2 * q) <= 2 * q * tol) {
            *coll = TH_COLL_ALLREDUCE;
            return TH_OK;
        }
        if (fabs(ratio - q) <= q * tol) {
            *coll = TH_COLL_REDUCESCATTER;
            return TH_OK;
        }
    }
    return th_error_set(err, TH_EINPUT,
                        "%s: the log does not name its test (no '# Collective test starting' "
                        "line)%s: give the collective with -c",
                        log->source,
                        none ? " and all_gather_perf and alltoall_perf print the same table"
                             : ", and its busbw / algbw ratio does not tell it");
}

/* The strict pass over JSON text that cJSON has already parsed: numbers must follow the
 * grammar of RFC 8259 (cJSON also takes 01, 1. and .5) and strings may not hold a NUL (raw or
 * \u0000, which would cut the C string short) nor a raw control character, and must be valid
 * UTF-8 (a name copied into a JSON output must not make it invalid). Errors name the source,
 * line:column and the JSON path of the value. */
#include <stdio.h>
#include <string.h>

#include "json.h"
#include "themis/text.h"

#define DEPTH 64 /* levels of the path kept for messages; deeper ones are shown as "..." */

typedef struct level {
    int array;    /* 1: an array (index), 0: an object (key) */
    long index;   /* arrays: the element's index */
    char key[64]; /* objects: the member's key (cut to 63 bytes) */
    int want_key; /* objects: the next string is a key */
} level;

typedef struct scan {
    const char *s, *src;
    size_t len, i;
    level lv[DEPTH];
    int depth; /* levels open, may exceed DEPTH */
} scan;

static void path(const scan *c, char *buf, size_t n) {
    size_t used = 0;
    buf[0] = '\0';
    for (int d = 0; d < c->depth && used + 1 < n; d++) {
        int k;
        if (d >= DEPTH)
            k = snprintf(buf + used, n - used, "...");
        else if (c->lv[d].array)
            k = snprintf(buf + used, n - used, "[%ld]", c->lv[d].index);
        else
            k = snprintf(buf + used, n - used, "%s%s", d ? "." : "", c->lv[d].key);
        if (k < 0) break;
        used += (size_t)k < n - used ? (size_t)k : n - used - 1;
        if (d >= DEPTH) break;
    }
    if (!buf[0]) snprintf(buf, n, "(top level)");
}

static int fail(const scan *c, size_t at, const char *what, size_t from, size_t to, th_error *err) {
    int line = 1, col = 1;
    for (size_t i = 0; i < at; i++) {
        if (c->s[i] == '\n')
            line++, col = 1;
        else
            col++;
    }
    char p[256], found[40];
    path(c, p, sizeof p);
    size_t m = 0;
    for (size_t i = from; i < to && m + 5 < sizeof found; i++) {
        unsigned char ch = (unsigned char)c->s[i];
        if (ch >= 0x20 && ch < 0x7f) {
            found[m++] = (char)ch;
        } else {
            snprintf(found + m, sizeof found - m, "\\x%02x", ch);
            m += 4;
        }
    }
    found[m] = '\0';
    return th_error_set(err, TH_EINPUT, "%s:%d:%d: %s: %s, found \"%s%s\"", c->src, line, col, p,
                        what, found, to - from > m ? "..." : "");
}

static int digit(char ch) {
    return ch >= '0' && ch <= '9';
}

/* -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?, followed by a delimiter. */
static int number(scan *c, th_error *err) {
    const char *s = c->s;
    size_t i = c->i, n = c->len, start = i;
    int ok = 1;
    if (i < n && s[i] == '-') i++;
    if (i < n && s[i] == '0') {
        i++;
    } else if (i < n && digit(s[i])) {
        while (i < n && digit(s[i]))
            i++;
    } else {
        ok = 0;
    }
    if (ok && i < n && s[i] == '.') {
        i++;
        if (!(i < n && digit(s[i]))) ok = 0;
        while (i < n && digit(s[i]))
            i++;
    }
    if (ok && i < n && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        if (i < n && (s[i] == '+' || s[i] == '-')) i++;
        if (!(i < n && digit(s[i]))) ok = 0;
        while (i < n && digit(s[i]))
            i++;
    }
    size_t end = i;
    while (end < n && strchr("0123456789+-.eE", s[end]) && s[end])
        end++;
    if (!ok || end != i)
        return fail(c, start,
                    "expected a JSON number (RFC 8259: no leading zero, digits after "
                    "the point and in the exponent)",
                    start, end, err);
    c->i = i;
    return TH_OK;
}

static int hex(char ch) {
    return digit(ch) || (ch >= 'a' && ch <= 'f') || (ch >= 'A' && ch <= 'F');
}

/* A string from its opening quote; a key is kept in the current level for the path. */
static int string(scan *c, th_error *err) {
    const char *s = c->s;
    size_t i = c->i + 1, n = c->len, start = i;
    level *lv = c->depth > 0 && c->depth <= DEPTH ? &c->lv[c->depth - 1] : NULL;
    int key = lv && !lv->array && lv->want_key;
    size_t k = 0;
    while (i < n && s[i] != '"') {
        unsigned char ch = (unsigned char)s[i];
        if (ch < 0x20)
            return fail(c, i,
                        ch ? "a string may not hold a raw control character (escape it)"
                           : "a string may not hold a NUL byte",
                        start, i + 1, err);
        if (ch == '\\') {
            if (i + 5 < n && s[i + 1] == 'u' && hex(s[i + 2]) && hex(s[i + 3]) && hex(s[i + 4]) &&
                hex(s[i + 5]) && !strncmp(s + i + 2, "0000", 4))
                return fail(c, i, "a string may not hold a NUL character (\\u0000)", start, i + 6,
                            err);
            if (key && k + 2 < sizeof lv->key) lv->key[k++] = s[i], lv->key[k++] = s[i + 1];
            i += 2;
            continue;
        }
        if (ch >= 0x80) { /* a whole UTF-8 sequence, or the byte that breaks it */
            size_t run = i + 1;
            while (run < n && run < i + 4 && ((unsigned char)s[run] & 0xc0) == 0x80)
                run++;
            size_t ok = th_text_utf8_bad(s + i, run - i);
            if (ok == 0) return fail(c, i, "a string must be valid UTF-8 (RFC 8259)", i, run, err);
            if (key && k + ok < sizeof lv->key) memcpy(lv->key + k, s + i, ok), k += ok;
            i += ok;
            continue;
        }
        if (key && k + 1 < sizeof lv->key) lv->key[k++] = (char)ch;
        i++;
    }
    if (key) {
        lv->key[k] = '\0';
        lv->want_key = 0;
    }
    c->i = i + 1;
    return TH_OK;
}

int th_json_strict(const char *text, size_t len, const char *source, th_error *err) {
    scan c = {.s = text, .src = source, .len = len};
    while (c.i < c.len) {
        char ch = text[c.i];
        level *lv = c.depth > 0 && c.depth <= DEPTH ? &c.lv[c.depth - 1] : NULL;
        if (ch == '"') {
            if (string(&c, err)) return err->code;
            continue;
        }
        if (ch == '-' || digit(ch)) {
            if (number(&c, err)) return err->code;
            continue;
        }
        if (ch == '{' || ch == '[') {
            if (c.depth < DEPTH) {
                level *nl = &c.lv[c.depth];
                memset(nl, 0, sizeof *nl);
                nl->array = ch == '[';
                nl->want_key = ch == '{';
            }
            c.depth++;
        } else if ((ch == '}' || ch == ']') && c.depth > 0) {
            c.depth--;
        } else if (ch == ',' && lv) {
            if (lv->array)
                lv->index++;
            else
                lv->want_key = 1;
        }
        c.i++;
    }
    return TH_OK;
}

/* Internal helpers for the JSON inputs (system files, sweep specs): reading a file, parsing
 * with line:column errors, and checking keys and values with messages that name the source,
 * the JSON path, what was expected and what was found. */
#ifndef THEMIS_JSON_H
#define THEMIS_JSON_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "themis/error.h"

/* Reads a whole file ("-" = stdin) into a NUL-terminated buffer the caller frees. */
int th_json_read_file(const char *path, char **text, size_t *len, th_error *err);

/* Parses text into *root (caller deletes); errors carry source:line:column. */
int th_json_parse(const char *text, size_t len, const char *source, cJSON **root, th_error *err);

/* The strict pass th_json_parse makes over text cJSON accepted: numbers as RFC 8259 writes them
 * (no 01, 1. or .5) and strings without NUL (raw or \u0000) or raw control characters. */
int th_json_strict(const char *text, size_t len, const char *source, th_error *err);

/* "a, b, c" */
void th_json_join(const char *const *names, char *buf, size_t n);

/* "did you mean \"x\"?" for a close name, else "expected one of: ...". */
void th_json_suggest(const char *const *names, const char *got, char *buf, size_t n);

/* Which of themis's input files root looks like, by the key only that kind has: "a sweep spec"
 * (axes), "a system file" (dims), "a workload" (layers), "a list of collectives"
 * (collectives); NULL when none. */
const char *th_json_kind(const cJSON *root);

/* TH_OK when root is not another kind of input than want (one of th_json_kind's names), else
 * TH_EINPUT saying which kind src is and which was expected. */
int th_json_expect_kind(const cJSON *root, const char *want, const char *src, th_error *err);

/* Error "<src>: <path>: expected <expected>, got <description of v>". */
int th_json_bad(th_error *err, const char *src, const char *path, const char *expected,
                const cJSON *got);

/* Rejects unknown keys (suggesting the nearest known one) and duplicate keys. */
int th_json_check_keys(const cJSON *obj, const char *const *known, const char *src,
                       const char *path, th_error *err);

/* "<path>.<key>", or "<key>" when path is empty. */
void th_json_path(char *buf, size_t n, const char *path, const char *key);

/* Optional (or required) finite number obj[key] into *out. */
int th_json_number(const cJSON *obj, const char *key, int required, double *out, const char *src,
                   const char *path, th_error *err);

/* Optional string obj[key] copied into out (at most n - 1 characters). */
int th_json_string(const cJSON *obj, const char *key, char *out, size_t n, const char *src,
                   const char *path, th_error *err);

/* Optional string obj[key] that must be one of names; its index into *out. */
int th_json_enum(const cJSON *obj, const char *key, const char *const *names, int *out,
                 const char *src, const char *path, th_error *err);

/* A string value v (at `path`) that must be one of names; its index into *out. */
int th_json_enum_value(const cJSON *v, const char *const *names, int *out, const char *src,
                       const char *path, th_error *err);

#endif

/* Small string tools the whole library shares: looking a name up in an enum's name table,
 * copying a string, and a file's base name. One copy of each. */
#ifndef THEMIS_STR_H
#define THEMIS_STR_H

#include <stddef.h>

/* Index of s in a NULL-terminated name table (an enum's names in enum order), or -1. */
int th_name_find(const char *const *names, const char *s);

/* Index of the name nearest to s (case-insensitive edit distance, at most 3 edits and fewer
 * than the name's length), or -1 when none is near: the "did you mean" of JSON keys and
 * values, commands and options. */
int th_name_near(const char *const *names, const char *s);

/* A malloc'd copy of s (NULL when out of memory). */
char *th_strdup(const char *s);

/* path without its folders and extension into out (n bytes, truncated): "dir/x.json" -> "x".
 * With suffix (e.g. ".json"), only that suffix is removed; without (NULL), the last
 * extension, unless the name starts with its only dot. */
void th_base_name(const char *path, const char *suffix, char *out, size_t n);

#endif

/* Printable text: a string from a file (a name, a CSV field) shown in a table or a message with
 * its control characters and invalid UTF-8 escaped, so it can break no line or column. */
#ifndef THEMIS_TEXT_H
#define THEMIS_TEXT_H

#include <stddef.h>

/* Writes s into out (n bytes, NUL-terminated, truncated to fit) with \n, \r, \t and every other
 * byte below 0x20, 0x7f or outside valid UTF-8 as \xHH; valid UTF-8 (and the backslash) is
 * kept, so escaping twice changes nothing. Returns out. */
const char *th_text_escape(char *out, size_t n, const char *s);

/* The offset of the first byte of s[0..n) that is not part of valid UTF-8 (RFC 3629: no
 * overlong form, surrogate or code point above U+10FFFF), or n when all of it is valid. */
size_t th_text_utf8_bad(const char *s, size_t n);

/* A copy of s (malloc'd; NULL when memory ran out) with every byte that is not valid UTF-8
 * replaced by U+FFFD: what a JSON writer puts out for a name no input check saw. */
char *th_text_utf8_repair(const char *s);

#endif

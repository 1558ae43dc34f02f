/* Printable text: a string from a file (a name, a CSV field) shown in a table or a message with
 * its control characters and invalid UTF-8 escaped, so it can break no line or column. */
#ifndef THEMIS_TEXT_H
#define THEMIS_TEXT_H

#include <stddef.h>

/* Writes s into out (n bytes, NUL-terminated, truncated to fit) with \n, \r, \t and every other
 * byte below 0x20, 0x7f or outside valid UTF-8 as \xHH; valid UTF-8 (and the backslash) is
 * kept, so escaping twice changes nothing. Returns out. */
const char *th_text_escape(char *out, size_t n, const char *s);

#endif

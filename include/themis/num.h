/* Numbers as every output prints them (tables, CSV, JSON, plots' data): the shortest of 15 or
 * 17 significant digits that reads back to the same double. Below the report layer and the CSV
 * writer, which both print numbers. */
#ifndef THEMIS_NUM_H
#define THEMIS_NUM_H

#include <stddef.h>

/* Formats v into buf (at least 32 bytes) with the fewest digits, 15 or 17 significant, that
 * read back to the same double. Returns buf. */
const char *th_num_format(char *buf, double v);

/* The length of the number at the start of s in JSON's grammar (RFC 8259: -? (0 | [1-9][0-9]*)
 * (. [0-9]+)? ([eE] [+-]? [0-9]+)?), 0 when none: the one way a number is read from text, on the
 * command line as in a JSON request (no 01, 1., .5, +1, hex, inf or nan). */
size_t th_num_span(const char *s);

/* A whole text that is one such number, finite, into *out: 0, else -1. */
int th_num_parse(const char *s, double *out);

#endif

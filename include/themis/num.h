/* Numbers as every output prints them (tables, CSV, JSON, plots' data): the shortest of 15 or
 * 17 significant digits that reads back to the same double. Below the report layer and the CSV
 * writer, which both print numbers. */
#ifndef THEMIS_NUM_H
#define THEMIS_NUM_H

/* Formats v into buf (at least 32 bytes) with the fewest digits, 15 or 17 significant, that
 * read back to the same double. Returns buf. */
const char *th_num_format(char *buf, double v);

#endif

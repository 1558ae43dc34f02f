/* Weighted lists of collectives: a JSON file naming several collectives, each with a weight,
 * whose weighted sum of times is one objective (themis optimize -l). */
#ifndef THEMIS_COLLIST_H
#define THEMIS_COLLIST_H

#include "themis/schedule.h"

#define TH_COLLIST_MAX 4096 /* collectives in one list */

typedef struct th_collist_item {
    th_collective coll; /* chunks 0: the caller's default */
    double weight;      /* > 0; how often the collective runs per unit of work (default 1) */
} th_collist_item;

typedef struct th_collist {
    th_collist_item *items;
    int n;
} th_collist;

/* Reads `{"collectives": [{"type", "size", "chunks"?, "dims"?, "weight"?}, ...]}` from path
 * ("-" = stdin). Errors name the file and the JSON path. Free with th_collist_free. */
int th_collist_load(const char *path, th_collist *out, th_error *err);

/* The same from text (len bytes) named src in messages. */
int th_collist_parse(const char *text, size_t len, const char *src, th_collist *out, th_error *err);

/* Gives every item without chunks `chunks`, then validates each against sys
 * (th_collective_validate); an error names src and the item's JSON path. */
int th_collist_check(th_collist *l, const th_system *sys, int64_t chunks, const char *src,
                     th_error *err);

/* Frees the items and zeroes l; safe on a zeroed list. */
void th_collist_free(th_collist *l);

#endif

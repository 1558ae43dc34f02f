/* Collectives (SPEC §4): their types and names, and one collective's size, chunk count and
 * involved dims. Below the planner and the bound, which both take a collective; knows nothing
 * of chunk orders. */
#ifndef THEMIS_COLLECTIVE_H
#define THEMIS_COLLECTIVE_H

#include <stdint.h>

#include "themis/error.h"
#include "themis/export.h"
#include "themis/system.h"

#define TH_MAX_CHUNKS 1000000

typedef enum {
    TH_COLL_ALLREDUCE,
    TH_COLL_REDUCESCATTER,
    TH_COLL_ALLGATHER,
    TH_COLL_ALLTOALL,
} th_coll_type;

typedef struct th_collective {
    th_coll_type type;
    double size;        /* S: AR/RS input, AG output, A2A buffer; bytes */
    int64_t chunks;     /* C: 1 .. TH_MAX_CHUNKS */
    uint32_t dims_mask; /* involved dims, bit d for dim d; 0 means all dims */
} th_collective;

/* Checks a collective against a system: size, chunks, involved dims, what the system's model
 * cannot run, at least one active dim. (Defined with the planner, which holds each model's own
 * rules.) */
TH_API int th_collective_validate(const th_system *sys, const th_collective *coll, th_error *err);

/* Names in enum order, NULL-terminated (for parsers and messages). */
TH_API extern const char *const th_coll_type_names[]; /* allreduce, reducescatter, ... */

TH_API const char *th_coll_type_name(th_coll_type t);
TH_API int th_coll_type_from_name(const char *s, th_coll_type *out);

#endif

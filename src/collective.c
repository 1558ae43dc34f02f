/* The collective types' names (SPEC §4), for parsers and messages. */
#include "themis/collective.h"
#include "themis/str.h"

const char *const th_coll_type_names[] = {"allreduce", "reducescatter", "allgather", "alltoall",
                                          NULL};

const char *th_coll_type_name(th_coll_type t) {
    return (unsigned)t < 4 ? th_coll_type_names[t] : "?";
}

int th_coll_type_from_name(const char *s, th_coll_type *out) {
    int i = th_name_find(th_coll_type_names, s);
    if (i >= 0) *out = (th_coll_type)i;
    return i < 0 ? -1 : 0;
}

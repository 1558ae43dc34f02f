/* System files (SPEC §2): the built-in default, valid files with defaults, every loader error. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check_themis.h"
#include "themis/system.h"

/* True when msg contains one of the '|'-separated alternatives (case-sensitive). */
static int has_any(const char *msg, const char *alts) {
    char buf[256];
    const char *p = alts;
    while (*p) {
        const char *bar = strchr(p, '|');
        size_t n = bar ? (size_t)(bar - p) : strlen(p);
        if (n >= sizeof buf) n = sizeof buf - 1;
        memcpy(buf, p, n);
        buf[n] = '\0';
        if (n > 0 && strstr(msg, buf) != NULL) return 1;
        p += n;
        if (*p == '|') p++;
    }
    return 0;
}

/* ---- the built-in default (SPEC §2, §8) ---- */

START_TEST(test_default_system) {
    th_system sys;
    memset(&sys, 0xff, sizeof sys);
    th_system_default(&sys);
    ck_assert_int_eq(sys.ndims, 3);
    /* dim 0: package, ring, 4 NPUs, 250 GB/s = 250 bytes/ns, 20 ns, default algorithm ring */
    ck_assert_str_eq(sys.dims[0].name, "package");
    ck_assert_int_eq(sys.dims[0].topology, TH_TOPO_RING);
    ck_assert_int_eq(sys.dims[0].algorithm, TH_ALG_RING);
    ck_assert_int_eq(sys.dims[0].npus, 4);
    ck_assert_rel(sys.dims[0].bw_GBps, 250.0);
    ck_assert_rel(sys.dims[0].bw, 250.0);
    ck_assert_rel(sys.dims[0].efficiency, 1.0);
    ck_assert_rel(sys.dims[0].latency, 20.0);
    /* dim 1: node, fc, 8 NPUs, 200 GB/s, 100 ns, default algorithm direct */
    ck_assert_str_eq(sys.dims[1].name, "node");
    ck_assert_int_eq(sys.dims[1].topology, TH_TOPO_FC);
    ck_assert_int_eq(sys.dims[1].algorithm, TH_ALG_DIRECT);
    ck_assert_int_eq(sys.dims[1].npus, 8);
    ck_assert_rel(sys.dims[1].bw_GBps, 200.0);
    ck_assert_rel(sys.dims[1].bw, 200.0);
    ck_assert_rel(sys.dims[1].efficiency, 1.0);
    ck_assert_rel(sys.dims[1].latency, 100.0);
    /* dim 2: pod, switch, 16 NPUs, 50 GB/s, 1000 ns, default algorithm rhd */
    ck_assert_str_eq(sys.dims[2].name, "pod");
    ck_assert_int_eq(sys.dims[2].topology, TH_TOPO_SWITCH);
    ck_assert_int_eq(sys.dims[2].algorithm, TH_ALG_RHD);
    ck_assert_int_eq(sys.dims[2].npus, 16);
    ck_assert_rel(sys.dims[2].bw_GBps, 50.0);
    ck_assert_rel(sys.dims[2].bw, 50.0);
    ck_assert_rel(sys.dims[2].efficiency, 1.0);
    ck_assert_rel(sys.dims[2].latency, 1000.0);
    /* P = 4 * 8 * 16 = 512; no reduce_GBps -> reduction is free */
    ck_assert_rel(sys.npus, 512.0);
    ck_assert_rel(sys.reduce_bw, 0.0);
    /* The default passes its own validation. */
    th_error err = {0};
    ck_assert_msg(th_system_validate(&sys, "default", &err) == 0, "%s", err.msg);
}
END_TEST

START_TEST(test_default_file_matches_builtin) {
    /* tests/data/sys_default3d.json is the JSON of SPEC §2: it loads to the built-in values. */
    th_system a, b;
    th_error err = {0};
    th_system_default(&a);
    ck_assert_msg(th_system_load(test_data("sys_default3d.json"), &b, &err) == 0, "%s", err.msg);
    ck_assert_str_eq(b.name, "default-3d");
    ck_assert_int_eq(b.ndims, a.ndims);
    for (int d = 0; d < 3; d++) {
        ck_assert_str_eq(b.dims[d].name, a.dims[d].name);
        ck_assert_int_eq(b.dims[d].topology, a.dims[d].topology);
        ck_assert_int_eq(b.dims[d].algorithm, a.dims[d].algorithm);
        ck_assert_int_eq(b.dims[d].npus, a.dims[d].npus);
        ck_assert_rel(b.dims[d].bw, a.dims[d].bw);
        ck_assert_rel(b.dims[d].latency, a.dims[d].latency);
    }
    ck_assert_rel(b.npus, 512.0); /* 4 * 8 * 16 */
    ck_assert_rel(b.reduce_bw, 0.0);
}
END_TEST

/* ---- valid files ---- */

START_TEST(test_load_full) {
    th_system sys;
    th_error err = {0};
    ck_assert_msg(th_system_load(test_data("sys_full.json"), &sys, &err) == 0, "%s", err.msg);
    ck_assert_str_eq(sys.name, "full-4d");
    ck_assert_str_eq(sys.description, "every optional key set");
    ck_assert_int_eq(sys.ndims, 4);
    /* reduce_GBps 400 -> 400 bytes/ns, not scaled by any dim's efficiency */
    ck_assert_rel(sys.reduce_bw, 400.0);
    /* chip: ring/ring, p 2, 300 GB/s * 0.5 = 150 bytes/ns, 10 ns */
    ck_assert_str_eq(sys.dims[0].name, "chip");
    ck_assert_int_eq(sys.dims[0].topology, TH_TOPO_RING);
    ck_assert_int_eq(sys.dims[0].algorithm, TH_ALG_RING);
    ck_assert_int_eq(sys.dims[0].npus, 2);
    ck_assert_rel(sys.dims[0].bw_GBps, 300.0);
    ck_assert_rel(sys.dims[0].efficiency, 0.5);
    ck_assert_rel(sys.dims[0].bw, 150.0);
    ck_assert_rel(sys.dims[0].latency, 10.0);
    /* board: fc with rhd overriding the default direct; efficiency 1 -> B = 120 */
    ck_assert_int_eq(sys.dims[1].topology, TH_TOPO_FC);
    ck_assert_int_eq(sys.dims[1].algorithm, TH_ALG_RHD);
    ck_assert_int_eq(sys.dims[1].npus, 6);
    ck_assert_rel(sys.dims[1].efficiency, 1.0);
    ck_assert_rel(sys.dims[1].bw, 120.0);
    ck_assert_rel(sys.dims[1].latency, 50.0);
    /* rack: switch with direct overriding rhd; 80 * 0.75 = 60 bytes/ns */
    ck_assert_int_eq(sys.dims[2].topology, TH_TOPO_SWITCH);
    ck_assert_int_eq(sys.dims[2].algorithm, TH_ALG_DIRECT);
    ck_assert_int_eq(sys.dims[2].npus, 3);
    ck_assert_rel(sys.dims[2].bw_GBps, 80.0);
    ck_assert_rel(sys.dims[2].bw, 60.0);
    ck_assert_rel(sys.dims[2].latency, 500.0);
    /* row: fc with ring; efficiency 1 given explicitly; 25 bytes/ns, 2000 ns */
    ck_assert_int_eq(sys.dims[3].topology, TH_TOPO_FC);
    ck_assert_int_eq(sys.dims[3].algorithm, TH_ALG_RING);
    ck_assert_int_eq(sys.dims[3].npus, 5);
    ck_assert_rel(sys.dims[3].bw, 25.0);
    ck_assert_rel(sys.dims[3].latency, 2000.0);
    /* P = 2 * 6 * 3 * 5 = 180 */
    ck_assert_rel(sys.npus, 180.0);
}
END_TEST

START_TEST(test_load_minimal) {
    /* One switch dim, no name, no algorithm, no efficiency, no reduce_GBps. */
    th_system sys;
    th_error err = {0};
    ck_assert_msg(th_system_load(test_data("sys_minimal.json"), &sys, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(sys.ndims, 1);
    ck_assert_int_eq(sys.dims[0].topology, TH_TOPO_SWITCH);
    ck_assert_int_eq(sys.dims[0].algorithm, TH_ALG_RHD); /* switch -> rhd */
    ck_assert_int_eq(sys.dims[0].npus, 32);
    ck_assert_rel(sys.dims[0].efficiency, 1.0);
    ck_assert_rel(sys.dims[0].bw, 12.5);     /* 12.5 GB/s * 1 */
    ck_assert_rel(sys.dims[0].latency, 0.0); /* alpha = 0 is allowed (>= 0) */
    ck_assert_rel(sys.reduce_bw, 0.0);
    ck_assert_rel(sys.npus, 32.0);
    /* Defaults: the system is named after the file, the dim "dim0", no description. */
    ck_assert_msg(strstr(sys.name, "sys_minimal") != NULL, "name \"%s\"", sys.name);
    ck_assert_str_eq(sys.dims[0].name, "dim0");
    ck_assert_str_eq(sys.description, "");
}
END_TEST

START_TEST(test_load_npus_one) {
    /* A dim with p = 1 is valid (it carries no stage). P = 1 * 4 = 4. */
    th_system sys;
    th_error err = {0};
    ck_assert_msg(th_system_load(test_data("sys_npus1.json"), &sys, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(sys.ndims, 2);
    ck_assert_int_eq(sys.dims[0].npus, 1);
    ck_assert_int_eq(sys.dims[1].npus, 4);
    ck_assert_rel(sys.npus, 4.0);
    ck_assert_str_eq(sys.name, "with-trivial-dim");
}
END_TEST

START_TEST(test_parse_defaults_by_topology) {
    /* Default algorithm by topology: ring -> ring, fc -> direct, switch -> rhd. Dim names
     * default to "dimK"; efficiency 0.8 -> B = 100 * 0.8 = 80; reduce_GBps 64 -> 64. */
    static const char json[] =
        "{\"name\": \"t\", \"description\": \"three dims\", \"reduce_GBps\": 64, \"dims\": ["
        "{\"topology\": \"ring\", \"npus\": 3, \"bw_GBps\": 100, \"latency_ns\": 1},"
        "{\"topology\": \"fc\", \"npus\": 5, \"bw_GBps\": 100, \"latency_ns\": 2,"
        " \"efficiency\": 0.8},"
        "{\"topology\": \"switch\", \"npus\": 7, \"bw_GBps\": 10, \"latency_ns\": 3}]}";
    th_system sys;
    th_error err = {0};
    ck_assert_msg(th_system_parse(json, strlen(json), "inline.json", &sys, &err) == 0, "%s",
                  err.msg);
    ck_assert_str_eq(sys.name, "t");
    ck_assert_str_eq(sys.description, "three dims");
    ck_assert_int_eq(sys.ndims, 3);
    ck_assert_int_eq(sys.dims[0].algorithm, TH_ALG_RING);
    ck_assert_int_eq(sys.dims[1].algorithm, TH_ALG_DIRECT);
    ck_assert_int_eq(sys.dims[2].algorithm, TH_ALG_RHD);
    ck_assert_str_eq(sys.dims[0].name, "dim0");
    ck_assert_str_eq(sys.dims[1].name, "dim1");
    ck_assert_str_eq(sys.dims[2].name, "dim2");
    ck_assert_rel(sys.dims[0].bw, 100.0); /* 100 * 1 */
    ck_assert_rel(sys.dims[1].bw_GBps, 100.0);
    ck_assert_rel(sys.dims[1].efficiency, 0.8);
    ck_assert_rel(sys.dims[1].bw, 80.0); /* 100 * 0.8 */
    ck_assert_rel(sys.dims[2].bw, 10.0); /* 10 * 1 */
    ck_assert_rel(sys.dims[2].latency, 3.0);
    ck_assert_rel(sys.reduce_bw, 64.0);
    ck_assert_rel(sys.npus, 105.0); /* 3 * 5 * 7 */
}
END_TEST

START_TEST(test_parse_sixteen_dims) {
    /* 16 dims is the maximum and is accepted; P = 2^16 = 65536. */
    char json[4096];
    size_t n = (size_t)snprintf(json, sizeof json, "{\"dims\": [");
    for (int d = 0; d < 16; d++)
        n += (size_t)snprintf(json + n, sizeof json - n,
                              "%s{\"topology\": \"fc\", \"npus\": 2, \"bw_GBps\": 10, "
                              "\"latency_ns\": 1}",
                              d ? "," : "");
    n += (size_t)snprintf(json + n, sizeof json - n, "]}");
    th_system sys;
    th_error err = {0};
    ck_assert_msg(th_system_parse(json, n, "sixteen.json", &sys, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(sys.ndims, 16);
    ck_assert_rel(sys.npus, 65536.0);
}
END_TEST

START_TEST(test_parse_npus_at_cap) {
    /* P = 2^20 * 2^20 = 2^40 exactly: at the cap, accepted. */
    static const char json[] =
        "{\"dims\": [{\"topology\": \"switch\", \"npus\": 1048576, \"bw_GBps\": 1,"
        " \"latency_ns\": 1}, {\"topology\": \"switch\", \"npus\": 1048576, \"bw_GBps\": 1,"
        " \"latency_ns\": 1}]}";
    th_system sys;
    th_error err = {0};
    ck_assert_msg(th_system_parse(json, strlen(json), "cap.json", &sys, &err) == 0, "%s", err.msg);
    ck_assert_rel(sys.npus, 1099511627776.0);
}
END_TEST

START_TEST(test_validate_recomputes) {
    /* A hand-edited system: validate recomputes bw = bw_GBps * efficiency and P. */
    th_system sys;
    th_error err = {0};
    th_system_default(&sys);
    sys.dims[1].efficiency = 0.5;
    sys.dims[2].npus = 2;
    ck_assert_msg(th_system_validate(&sys, "edited", &err) == 0, "%s", err.msg);
    ck_assert_rel(sys.dims[1].bw, 100.0); /* 200 * 0.5 */
    ck_assert_rel(sys.npus, 64.0);        /* 4 * 8 * 2 */
    /* ... and rejects a bad edit, naming the source and the path. */
    sys.dims[2].bw_GBps = -5.0;
    ck_assert_int_ne(th_system_validate(&sys, "edited", &err), 0);
    ck_assert_int_eq(err.code, TH_EINPUT);
    ck_assert_ptr_nonnull(strstr(err.msg, "edited"));
    ck_assert_ptr_nonnull(strstr(err.msg, "dims[2].bw_GBps"));
    th_system_default(&sys);
    sys.dims[0].algorithm = TH_ALG_DIRECT; /* direct on a ring */
    ck_assert_int_ne(th_system_validate(&sys, "edited", &err), 0);
    ck_assert_int_eq(err.code, TH_EINPUT);
}
END_TEST

START_TEST(test_names) {
    th_topology t;
    th_algorithm a;
    ck_assert_str_eq(th_topology_name(TH_TOPO_RING), "ring");
    ck_assert_str_eq(th_topology_name(TH_TOPO_FC), "fc");
    ck_assert_str_eq(th_topology_name(TH_TOPO_SWITCH), "switch");
    ck_assert_str_eq(th_algorithm_name(TH_ALG_RING), "ring");
    ck_assert_str_eq(th_algorithm_name(TH_ALG_DIRECT), "direct");
    ck_assert_str_eq(th_algorithm_name(TH_ALG_RHD), "rhd");
    ck_assert_int_eq(th_topology_from_name("switch", &t), 0);
    ck_assert_int_eq(t, TH_TOPO_SWITCH);
    ck_assert_int_eq(th_topology_from_name("fc", &t), 0);
    ck_assert_int_eq(t, TH_TOPO_FC);
    ck_assert_int_eq(th_topology_from_name("torus", &t), -1);
    ck_assert_int_eq(th_algorithm_from_name("rhd", &a), 0);
    ck_assert_int_eq(a, TH_ALG_RHD);
    ck_assert_int_eq(th_algorithm_from_name("direct", &a), 0);
    ck_assert_int_eq(a, TH_ALG_DIRECT);
    ck_assert_int_eq(th_algorithm_from_name("tree", &a), -1);
}
END_TEST

/* ---- every error path of the loader ---- */

typedef struct {
    const char *file;  /* under tests/data/; need not exist */
    const char *path;  /* JSON path the message must contain, or NULL */
    const char *hint;  /* what was found: '|'-separated alternatives, or NULL */
    const char *hint2; /* a second required fragment (e.g. the suggested key), or NULL */
} bad_file;

static const bad_file bad_files[] = {
    {"sys_does_not_exist.json", NULL,
     "No such file|no such file|not found|cannot open|"
     "can't open|could not open|open|read",
     NULL},
    {"sys_truncated.json", NULL, "JSON|json|parse|syntax|unexpected|end|line|column", NULL},
    {"sys_toplevel_array.json", NULL, "array", "object"},
    {"sys_no_dims.json", "dims", "missing|required|expected", NULL},
    {"sys_dims_empty.json", "dims", "empty|0|at least|1 to 16|1..16", NULL},
    {"sys_dims_not_array.json", "dims", "object", "array"},
    {"sys_dims_17.json", "dims", "17", NULL},
    {"sys_dim_not_object.json", "dims[1]", "string|\"node\"|node", NULL},
    {"sys_npus_zero.json", "dims[1].npus", "0", NULL},
    {"sys_npus_negative.json", "dims[0].npus", "-4", NULL},
    {"sys_npus_frac.json", "dims[0].npus", "1.5", NULL},
    {"sys_npus_string.json", "dims[0].npus", "four|string", NULL},
    /* 2^21 * 2^21 = 2^42 = 4398046511104 > 2^40 */
    {"sys_npus_product.json", "dims", "2^40|1099511627776|4398046511104|4.398|too many|exceed",
     NULL},
    {"sys_npus_2p64.json", "dims[0].npus",
     "1.8446744073709552e+19|1.84467e+19|1.8446744e+19|"
     "18446744073709551616|integer|2^40|exceed|range|"
     "too large",
     NULL},
    {"sys_bw_negative.json", "dims[2].bw_GBps", "-5", NULL},
    {"sys_bw_zero.json", "dims[0].bw_GBps", "0", NULL},
    {"sys_bw_inf.json", "dims[1].bw_GBps", "inf|Inf|INF|1e999|finite|too large", NULL},
    {"sys_bw_string.json", "dims[0].bw_GBps", "fast|string", NULL},
    {"sys_bw_missing.json", "dims[1].bw_GBps", "missing|required|expected", NULL},
    {"sys_latency_negative.json", "dims[0].latency_ns", "-1", NULL},
    {"sys_latency_missing.json", "dims[0].latency_ns", "missing|required|expected", NULL},
    {"sys_topology_unknown.json", "dims[1].topology", "torus", NULL},
    {"sys_topology_number.json", "dims[0].topology", "3|number", NULL},
    {"sys_algorithm_unknown.json", "dims[2].algorithm", "tree", NULL},
    {"sys_ring_direct.json", "dims[0].algorithm", "direct", NULL},
    {"sys_ring_rhd.json", "dims[0].algorithm", "rhd", NULL},
    {"sys_efficiency_zero.json", "dims[1].efficiency", "0", NULL},
    {"sys_efficiency_big.json", "dims[0].efficiency", "1.5", NULL},
    {"sys_reduce_zero.json", "reduce_GBps", "0", NULL},
    /* unknown keys: the message names the typo and suggests the nearest known key */
    {"sys_unknown_top.json", "reduce_gbps", "reduce_GBps", NULL},
    {"sys_unknown_dim_bw.json", "dims[1]", "bw_gbps", "bw_GBps"},
    {"sys_unknown_dim_topo.json", "dims[0]", "topolgy", "topology"},
    {"sys_duplicate_key.json", "dims[0]", "npus", "duplicate|twice|more than once|repeated|again"},
    {"sys_name_number.json", "name", "5|number", NULL},
};

START_TEST(test_load_bad) {
    const bad_file *c = &bad_files[_i];
    th_system sys;
    th_error err = {0};
    const char *path = test_data(c->file);
    int rc = th_system_load(path, &sys, &err);
    ck_assert_msg(rc != 0, "%s accepted", c->file);
    ck_assert_msg(err.code == TH_EINPUT, "%s: code %d, expected TH_EINPUT", c->file, err.code);
    ck_assert_msg(strstr(err.msg, c->file) != NULL, "%s: file not named: %s", c->file, err.msg);
    if (c->path)
        ck_assert_msg(strstr(err.msg, c->path) != NULL, "%s: path %s not named: %s", c->file,
                      c->path, err.msg);
    if (c->hint)
        ck_assert_msg(has_any(err.msg, c->hint), "%s: none of {%s} in: %s", c->file, c->hint,
                      err.msg);
    if (c->hint2)
        ck_assert_msg(has_any(err.msg, c->hint2), "%s: none of {%s} in: %s", c->file, c->hint2,
                      err.msg);
    ck_assert_ptr_null(strchr(err.msg, '\n')); /* one line */
}
END_TEST

/* Errors through th_system_parse: the `source` argument names the input. */
typedef struct {
    const char *json;
    const char *path;
    const char *hint;
} bad_text;

static const bad_text bad_texts[] = {
    {"", NULL, NULL},                                                 /* empty input */
    {"{\"dims\": [{\"topology\": \"ring\", \"npus\": 4", NULL, NULL}, /* truncated */
    {"42", NULL, "number|42"},                                        /* top level not an object */
    {"\"dims\"", NULL, "string|dims"},                                /* top level a string */
    {"{\"nmae\": \"x\", \"dims\": [{\"topology\": \"ring\", \"npus\": 4, \"bw_GBps\": 1,"
     " \"latency_ns\": 1}]}",
     "nmae", "\"name\"|'name'|`name`| name"}, /* unknown top-level key */
    {"{\"dims\": [{\"topology\": \"ring\", \"npus\": 4, \"bw_GBps\": 1, \"latency_ns\": 1,"
     " \"efficency\": 0.5}]}",
     "dims[0]", "efficency"}, /* unknown dim key */
    {"{\"dims\": [{\"topology\": \"ring\", \"npus\": 4, \"bw_GBps\": 1, \"latency_ns\": 1}],"
     " \"dims\": []}",
     "dims", "duplicate|twice|more than once|repeated|again"}, /* duplicate top-level key */
    {"{\"dims\": [{\"topology\": \"fc\", \"npus\": 4, \"bw_GBps\": 1, \"latency_ns\": 1}],"
     " \"reduce_GBps\": -3}",
     "reduce_GBps", "-3"}, /* negative reduction bandwidth */
    {"{\"dims\": [{\"topology\": \"fc\", \"npus\": 4, \"bw_GBps\": 1, \"latency_ns\": 1,"
     " \"algorithm\": 2}]}",
     "dims[0].algorithm", "2|number"}, /* algorithm of the wrong type */
    {"{\"dims\": [{\"npus\": 4, \"bw_GBps\": 1, \"latency_ns\": 1}]}", "dims[0].topology",
     "missing|required|expected"}, /* missing topology */
    {"{\"dims\": [{\"topology\": \"fc\", \"bw_GBps\": 1, \"latency_ns\": 1}]}", "dims[0].npus",
     "missing|required|expected"}, /* missing npus */
    {"{\"dims\": [{\"topology\": \"fc\", \"npus\": 4, \"bw_GBps\": 1, \"latency_ns\": 1e999}]}",
     "dims[0].latency_ns", "inf|Inf|INF|1e999|finite|too large"}, /* infinite latency */
    {"{\"dims\": [{\"topology\": \"fc\", \"npus\": true, \"bw_GBps\": 1, \"latency_ns\": 1}]}",
     "dims[0].npus", "true|bool"}, /* npus of the wrong type */
    {"{\"dims\": [{\"topology\": \"fc\", \"npus\": 4, \"bw_GBps\": 1, \"latency_ns\": 1,"
     " \"efficiency\": null}]}",
     "dims[0].efficiency", "null"}, /* efficiency null */
    {"{\"dims\": [{\"topology\": \"fc\", \"npus\": 1099511627777, \"bw_GBps\": 1,"
     " \"latency_ns\": 1}]}",
     "dims[0].npus", "1099511627777|2^40|exceed|too many"}, /* one dim of 2^40 + 1 NPUs */
    /* Derived quantities out of range: every stage time would overflow to infinity. */
    {"{\"dims\": [{\"topology\": \"fc\", \"npus\": 4, \"bw_GBps\": 1, \"latency_ns\": 1}],"
     " \"reduce_GBps\": 1e-300}",
     "reduce_GBps", "1e-300"}, /* reduction bandwidth below 1e-6 GB/s */
    {"{\"dims\": [{\"topology\": \"fc\", \"npus\": 4, \"bw_GBps\": 1, \"latency_ns\": 1}],"
     " \"reduce_GBps\": 2e9}",
     "reduce_GBps", "2000000000"}, /* above 1e9 GB/s */
    {"{\"dims\": [{\"topology\": \"fc\", \"npus\": 4, \"bw_GBps\": 100, \"latency_ns\": 1,"
     " \"efficiency\": 1e-320}]}",
     "dims[0].efficiency", "effective bandwidth"}, /* 100 * 1e-320 GB/s, below 1e-6 */
};

START_TEST(test_parse_bad) {
    const bad_text *c = &bad_texts[_i];
    th_system sys;
    th_error err = {0};
    int rc = th_system_parse(c->json, strlen(c->json), "inline.json", &sys, &err);
    ck_assert_msg(rc != 0, "accepted: %s", c->json);
    ck_assert_int_eq(err.code, TH_EINPUT);
    ck_assert_msg(strstr(err.msg, "inline.json") != NULL, "source not named: %s", err.msg);
    if (c->path)
        ck_assert_msg(strstr(err.msg, c->path) != NULL, "path %s not named: %s", c->path, err.msg);
    if (c->hint) ck_assert_msg(has_any(err.msg, c->hint), "none of {%s} in: %s", c->hint, err.msg);
}
END_TEST

/* JSON as RFC 8259 writes it: cJSON alone takes 01, 1. and 4e+ style numbers and cuts a string
 * at a NUL (raw or \u0000); each is refused naming line:column, the JSON path and the text. */
/* An error quoting a key with control characters stays one line: the JSON key "a\nb\u0001"
 * (an escaped line feed and U+0001, both valid JSON) appears as a\nb\x01. Found by the system
 * fuzz target. */
START_TEST(test_error_one_line) {
    const char *json = "{\"a\\nb\\u0001\": 1}";
    th_system sys;
    th_error err = {0};
    ck_assert_int_eq(th_system_parse(json, strlen(json), "keys.json", &sys, &err), TH_EINPUT);
    ck_assert_msg(strchr(err.msg, '\n') == NULL && strchr(err.msg, '\x01') == NULL, "%s", err.msg);
    ck_assert_msg(strstr(err.msg, "keys.json: a\\nb\\x01: unknown key") == err.msg, "%s", err.msg);
}
END_TEST

START_TEST(test_parse_strict_json) {
    static const struct {
        const char *value; /* dims[0].npus, or the name with "name" */
        const char *found;
    } cases[] = {
        {"01", "\"01\""},   {"4.", "\"4.\""}, {"4.e1", "\"4.e1\""},
        {"-04", "\"-04\""}, {"00", "\"00\""}, {"\"a\\u0000b\"", "a\\u0000"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char json[512];
        int name = cases[i].value[0] == '"';
        snprintf(json, sizeof json,
                 "{\"dims\": [{\"topology\": \"fc\", \"npus\": %s, \"bw_GBps\": 1,"
                 " \"latency_ns\": 1%s%s}]}",
                 name ? "4" : cases[i].value, name ? ", \"name\": " : "",
                 name ? cases[i].value : "");
        th_system sys;
        th_error err = {0};
        ck_assert_msg(th_system_parse(json, strlen(json), "strict.json", &sys, &err) == TH_EINPUT,
                      "accepted: %s", json);
        ck_assert_msg(strstr(err.msg, "strict.json:1:") &&
                          strstr(err.msg, name ? "dims[0].name" : "dims[0].npus") &&
                          strstr(err.msg, cases[i].found),
                      "%s: %s", json, err.msg);
    }
    /* a raw NUL byte inside a string (the length is passed: strlen would stop there) */
    static const char raw[] = "{\"name\": \"ab\0c\", \"dims\": [{\"topology\": \"fc\", \"npus\": "
                              "4, \"bw_GBps\": 1, \"latency_ns\": 1}]}";
    th_system sys;
    th_error err = {0};
    ck_assert_int_eq(th_system_parse(raw, sizeof raw - 1, "nul.json", &sys, &err), TH_EINPUT);
    ck_assert_msg(strstr(err.msg, "nul.json:1:") && strstr(err.msg, "name: ") &&
                      strstr(err.msg, "NUL byte"),
                  "%s", err.msg);
    /* a NUL byte after the object is text after it, not its end */
    static const char tail[] = "{\"dims\": [{\"topology\": \"fc\", \"npus\": 4, \"bw_GBps\": 1, "
                               "\"latency_ns\": 1}]}\0{}";
    ck_assert_int_eq(th_system_parse(tail, sizeof tail - 1, "tail.json", &sys, &err), TH_EINPUT);
    ck_assert_msg(strstr(err.msg, "tail.json") && strstr(err.msg, "after the top-level"), "%s",
                  err.msg);
    /* numbers RFC 8259 allows still load: 4, -0.5e+1 style exponents, 0.25, 1E2 */
    static const char ok[] = "{\"reduce_GBps\": 1E2, \"dims\": [{\"topology\": \"fc\", \"npus\": 4,"
                             " \"bw_GBps\": 0.25e1, \"latency_ns\": 0, \"efficiency\": 5e-1}]}";
    ck_assert_msg(th_system_parse(ok, strlen(ok), "ok.json", &sys, &err) == TH_OK, "%s", err.msg);
    ck_assert_rel(sys.reduce_bw, 100.0);
    ck_assert_rel(sys.dims[0].bw, 1.25); /* 2.5 GB/s * 0.5 */
}
END_TEST

START_TEST(test_parse_length_respected) {
    /* Only `len` bytes are parsed: a valid prefix followed by garbage that is not passed. */
    static const char json[] = "{\"dims\": [{\"topology\": \"fc\", \"npus\": 4, \"bw_GBps\": 1,"
                               " \"latency_ns\": 1}]}GARBAGE";
    th_system sys;
    th_error err = {0};
    size_t len = strlen(json) - strlen("GARBAGE");
    ck_assert_msg(th_system_parse(json, len, "prefix.json", &sys, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(sys.dims[0].npus, 4);
}
END_TEST

START_TEST(test_load_stdin) {
    /* Path "-" reads stdin; nothing else in the tests reads stdin, so redirecting it is safe. */
    th_system sys;
    th_error err = {0};
    ck_assert_ptr_nonnull(freopen(test_data("sys_npus1.json"), "r", stdin));
    ck_assert_msg(th_system_load("-", &sys, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(sys.ndims, 2);
    ck_assert_rel(sys.npus, 4.0); /* 1 * 4 */
}
END_TEST

START_TEST(test_parse_trailing_garbage) {
    /* A valid object followed by more text is broken JSON, not a system. */
    static const char json[] = "{\"dims\": [{\"topology\": \"fc\", \"npus\": 4, \"bw_GBps\": 1,"
                               " \"latency_ns\": 1}]} {\"dims\": []}";
    th_system sys;
    th_error err = {0};
    ck_assert_int_ne(th_system_parse(json, strlen(json), "garbage.json", &sys, &err), 0);
    ck_assert_int_eq(err.code, TH_EINPUT);
    ck_assert_ptr_nonnull(strstr(err.msg, "garbage.json"));
}
END_TEST

Suite *system_suite(void) {
    Suite *s = suite_create("system");
    TCase *tc = tcase_create("valid");
    tcase_add_test(tc, test_default_system);
    tcase_add_test(tc, test_default_file_matches_builtin);
    tcase_add_test(tc, test_load_full);
    tcase_add_test(tc, test_load_minimal);
    tcase_add_test(tc, test_load_npus_one);
    tcase_add_test(tc, test_parse_defaults_by_topology);
    tcase_add_test(tc, test_parse_sixteen_dims);
    tcase_add_test(tc, test_parse_npus_at_cap);
    tcase_add_test(tc, test_validate_recomputes);
    tcase_add_test(tc, test_names);
    tcase_add_test(tc, test_parse_length_respected);
    tcase_add_test(tc, test_parse_trailing_garbage);
    tcase_add_test(tc, test_load_stdin);
    suite_add_tcase(s, tc);
    tc = tcase_create("errors");
    tcase_add_loop_test(tc, test_load_bad, 0, (int)(sizeof bad_files / sizeof bad_files[0]));
    tcase_add_loop_test(tc, test_parse_bad, 0, (int)(sizeof bad_texts / sizeof bad_texts[0]));
    tcase_add_test(tc, test_parse_strict_json);
    tcase_add_test(tc, test_error_one_line);
    suite_add_tcase(s, tc);
    return s;
}

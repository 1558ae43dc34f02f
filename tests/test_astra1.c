/* Check suite for the ASTRA-sim 1.0 preset: phase costs derived by hand from ASTRA-sim 1.0's
 * code (ring, halvingDoubling, direct; the links-count rules), the reference and tutorial values
 * to the nanosecond, the queue rules (SCF of the branch and of the tutorial tag), and every
 * refusal of the system file. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "astra1_preset.h"
#include "check_themis.h"
#include "themis/astra1.h"

/* A system from JSON text; the test fails if it does not load. */
static th_system parse(const char *json) {
    th_system s;
    th_error err = {0};
    ck_assert_msg(th_system_parse(json, strlen(json), "a1.json", &s, &err) == TH_OK, "%s", err.msg);
    return s;
}

/* The error message of a system that must not load. */
static const char *refuse(const char *json) {
    static th_error err;
    th_system s;
    memset(&err, 0, sizeof err);
    ck_assert_int_eq(th_system_parse(json, strlen(json), "a1.json", &s, &err), TH_EINPUT);
    return err.msg;
}

/* One dim of `p` NPUs: topology, bandwidth, latency, links and the implementation of AR (RS and
 * AG follow it), as JSON. */
static char *dim(char *buf, const char *topo, int p, double bw, double lat, int links,
                 const char *impl) {
    sprintf(buf,
            "{\"topology\": \"%s\", \"npus\": %d, \"bw_GBps\": %g, \"latency_ns\": %g, "
            "\"links\": %d, \"allreduce\": \"%s\"}",
            topo, p, bw, lat, links, impl);
    return buf;
}

/* A system of one or two dims with endpoint delay e. */
static th_system sys1(const char *d0, int e) {
    char json[1024];
    snprintf(json, sizeof json,
             "{\"model\": \"astra-sim-1.0\", \"endpoint_ns\": %d, \"dims\": [%s]}", e, d0);
    return parse(json);
}

/* The time a single-collective run reports (with the MICRO ns), in ns. */
static double run(const th_system *s, th_coll_type t, double size, int64_t chunks, th_policy p,
                  th_intra q) {
    th_runner *r = th_runner_create();
    th_collective c = {t, size, chunks, 0};
    th_result res;
    th_error err = {0};
    ck_assert_msg(
        th_run_eval(r, s, &c, (th_pair){p, q}, TH_LOAD_ALPHA_BETA, NULL, NULL, &res, &err) == TH_OK,
        "%s", err.msg);
    th_runner_free(r);
    return res.time;
}

#define MIB 1048576.0

/* B = 50 * 2^30 / 1e9 = 53.6870912 bytes/ns on a 1-link Switch, so m / B is exact for m a
 * multiple of 2^20: 2^20 / B = 19531.25. */
START_TEST(reference_checks) {
    char d[256];
    /* 4 NPUs, halvingDoubling RS of 64 MiB: messages 32 MiB (625000 ns) then 16 MiB (312500);
     * the second step reduces 16 MiB: 3 floor(16777216 / 500000) = 3 * 33 = 99;
     * 625000 + 312500 + 99 = 937599, + 1 (MICRO) = 937600 (the reference value). */
    th_system s = sys1(dim(d, "switch", 4, 50, 0, 1, "halvingDoubling"), 0);
    ck_assert_double_eq(
        run(&s, TH_COLL_REDUCESCATTER, 64 * MIB, 1, TH_POLICY_BASELINE, TH_INTRA_FIFO), 937600);
    /* 8 NPUs, ring RS of 64 MiB: 7 steps of 8 MiB (156250 ns) each reducing 8 MiB
     * (3 floor(8388608 / 500000) = 48): 7 (156250 + 48) = 1094086, + 1 = 1094087. */
    s = sys1(dim(d, "switch", 8, 50, 0, 1, "ring"), 0);
    ck_assert_double_eq(
        run(&s, TH_COLL_REDUCESCATTER, 64 * MIB, 1, TH_POLICY_BASELINE, TH_INTRA_FIFO), 1094087);
    /* E = 10 adds (k + 1) E = 80: 1094167. */
    s = sys1(dim(d, "switch", 8, 50, 0, 1, "ring"), 10);
    ck_assert_double_eq(
        run(&s, TH_COLL_REDUCESCATTER, 64 * MIB, 1, TH_POLICY_BASELINE, TH_INTRA_FIFO), 1094167);
    /* 8 NPUs, direct AR of 64 MiB: an RS round and an AG round of 8 MiB messages (156250 ns
     * each), one reduction of 8 MiB (48): 312548, + 1 = 312549. */
    s = sys1(dim(d, "switch", 8, 50, 0, 1, "direct"), 0);
    ck_assert_double_eq(run(&s, TH_COLL_ALLREDUCE, 64 * MIB, 1, TH_POLICY_BASELINE, TH_INTRA_FIFO),
                        312549);
}
END_TEST

/* A size that is not a multiple of the chunk count: chunks of floor(S / C) and one more of the
 * rest. 2 MiB + 1 in 2 chunks on a Switch of 4, ring, L = 0, E = 10: two chunks of 1 MiB, each
 * an RS of 3 steps of 262144 bytes (4882.8125 -> 4882 ns, reductions 3 floor(0.52) = 0):
 * 10 + 3 (4882 + 10) = 14686; then a chunk of 1 byte, whose messages are floor(1/4) = 0 bytes:
 * 10 + 3 * 10 = 40. One dim, so they run one after another: 2 * 14686 + 40 = 29412, + 1. */
START_TEST(last_chunk) {
    char d[256];
    th_system s = sys1(dim(d, "switch", 4, 50, 0, 1, "ring"), 10);
    ck_assert_double_eq(
        run(&s, TH_COLL_REDUCESCATTER, 2 * MIB + 1, 2, TH_POLICY_BASELINE, TH_INTRA_FIFO), 29413);
    ck_assert_double_eq(
        run(&s, TH_COLL_REDUCESCATTER, 2 * MIB + 1, 2, TH_POLICY_THEMIS, TH_INTRA_SCF), 29413);
}
END_TEST

/* The links-count rules and hops, through the phase costs. */
START_TEST(links_and_hops) {
    char d[256];
    double bytes, out;
    /* A Ring of 4 NPUs with 3 links uses 2: B = 25 * 2^30 / 1e9 * 2 = 53.6870912. Ring RS of
     * 4 MiB with L = 100, E = 10: 3 steps of 1 MiB to the next NPU (1 hop):
     * net = floor(floor(100) + 19531.25) = 19631; reduction 3 floor(1048576 / 500000) = 6;
     * T = 10 + 3 (19631 + 6 + 10) = 58951. */
    th_system s = sys1(dim(d, "ring", 4, 25, 100, 3, "ring"), 10);
    ck_assert_double_eq(s.dims[0].bw, 25 * 1073741824.0 / 1e9 * 2);
    ck_assert_double_eq(
        th_astra1_phase(&s, 0, TH_COLL_REDUCESCATTER, TH_OP_RS, 4 * MIB, &bytes, &out), 58951);
    ck_assert_double_eq(bytes, 3 * MIB);
    ck_assert_double_eq(out, MIB);
    /* A FullyConnected dim of 4 NPUs with 7 links gives each peer floor(7 / 3) = 2: the same B.
     * halvingDoubling AG of a 1 MiB input: 1 MiB to the partner 2 away, then 2 MiB to the one 1
     * away, 1 hop each: floor(100 + 19531.25) = 19631, floor(100 + 39062.5) = 39162;
     * T = 10 + (19631 + 10) + (39162 + 10) = 58823; output 4 MiB. */
    s = sys1(dim(d, "fc", 4, 25, 100, 7, "halvingDoubling"), 10);
    ck_assert_double_eq(th_astra1_phase(&s, 0, TH_COLL_ALLGATHER, TH_OP_AG, MIB, &bytes, &out),
                        58823);
    ck_assert_double_eq(out, 4 * MIB);
    ck_assert_double_eq(run(&s, TH_COLL_ALLGATHER, MIB, 1, TH_POLICY_BASELINE, TH_INTRA_FIFO),
                        58824);
    /* Themis sees usable links times bw_GBps: 6 * 25 on that FC dim. */
    ck_assert_double_eq(astra1_of(&s)->greedy_bw[0], 150);
    /* halvingDoubling on a Ring of 8: partners 1, 2 and 4 away are 1, 2 and 4 hops. RS of
     * 8 MiB, L = 1000, E = 0, 2 links of 25 (B = 53.6870912): 4 MiB (78125 ns) over 1 hop,
     * 2 MiB (39062.5) over 2, 1 MiB (19531.25) over 4; reductions of 2 MiB (3 * 4 = 12) and
     * 1 MiB (6): floor(1000 + 78125) + floor(2000 + 39062.5) + floor(4000 + 19531.25)
     * + 12 + 6 = 79125 + 41062 + 23531 + 18 = 143736. */
    s = sys1(dim(d, "ring", 8, 25, 1000, 2, "halvingDoubling"), 0);
    ck_assert_double_eq(
        th_astra1_phase(&s, 0, TH_COLL_REDUCESCATTER, TH_OP_RS, 8 * MIB, &bytes, &out), 143736);
    /* direct on that Ring: the farthest peer is 4 hops away. RS of 8 MiB: 7 messages of 1 MiB,
     * floor(4000 + 19531.25) = 23531, one reduction of 1 MiB (6): 23537. */
    s = parse("{\"model\": \"astra-sim-1.0\", \"endpoint_ns\": 0, \"dims\": [{\"topology\": "
              "\"ring\", \"npus\": 8, \"bw_GBps\": 25, \"latency_ns\": 1000, \"links\": 2, "
              "\"reducescatter\": \"direct\"}]}");
    ck_assert_double_eq(
        th_astra1_phase(&s, 0, TH_COLL_REDUCESCATTER, TH_OP_RS, 8 * MIB, &bytes, &out), 23537);
    ck_assert_double_eq(bytes, 7 * MIB);
    /* direct All-Reduce on a Ring of 8, L = 1, E = 10: the RS round's 1 MiB messages to the peers
     * 1..7 away (1, 2, 3, 4, 3, 2, 1 hops) take 19531 + h ns (19532 .. 19535) and arrive by
     * 10 + 19535 = 19545; each arrival's follow-up comes E + 6 (the reduction) later: 19558 (h 1,
     * twice), 19559, 19559, 19560, 19560, 19561, all after 19545, so the first sends AG message 1
     * and each later one the next: messages to the peers q = 1..7 away leave at 19558, 19558,
     * 19559, 19559, 19560, 19560, 19561 and arrive at + 19532, 19533, 19534, 19535, 19534, 19533,
     * 19532 = 39090, 39091, 39093, 39094, 39094, 39093, 39093; + E = 39104 (the farthest peer's
     * round trip alone would say 3E + 2 * 19535 + 6 = 39106). */
    s = sys1(dim(d, "ring", 8, 25, 1, 2, "direct"), 10);
    ck_assert_double_eq(th_astra1_phase(&s, 0, TH_COLL_ALLREDUCE, TH_OP_AR, 8 * MIB, &bytes, &out),
                        39104);
    ck_assert_double_eq(bytes, 14 * MIB);
    /* L = 1000: the far peers' messages take 1000 ns a hop longer, more than E + the reduction,
     * so every AG message waits for the follow-up at 20 + 23531 + 6 = 23557: 23557 + 23531 + 10
     * = 47098. */
    s = sys1(dim(d, "ring", 8, 25, 1000, 2, "direct"), 10);
    ck_assert_double_eq(th_astra1_phase(&s, 0, TH_COLL_ALLREDUCE, TH_OP_AR, 8 * MIB, &bytes, &out),
                        47098);
    /* A Switch message is two link hops plus twice the nic latency and one router latency,
     * each added in an int: 1-D switch of 2, ring AG of 1 MiB, L = 0.6, nic 0.3, router 0.7,
     * 1 link of 50: floor(floor(2 * 0.6) + 19531.25) = 19532; + 0.6 -> 19532; + 0.7 -> 19532.
     * T = 0 + 19532. */
    s = parse("{\"model\": \"astra-sim-1.0\", \"endpoint_ns\": 0, \"dims\": [{\"topology\": "
              "\"switch\", \"npus\": 2, \"bw_GBps\": 50, \"latency_ns\": 0.6, \"links\": 1, "
              "\"nic_latency_ns\": 0.3, \"router_latency_ns\": 0.7}]}");
    ck_assert_double_eq(th_astra1_phase(&s, 0, TH_COLL_ALLGATHER, TH_OP_AG, MIB, &bytes, &out),
                        19532);
}
END_TEST

/* All-to-All (for workloads): on a Switch of 4 (L = 0, 50 GB/s), 4 MiB in 1 chunk sends messages
 * of 1 MiB (19531.25 -> 19531 ns). direct: all 3 at once, 2E + 19531 = 19551 with E = 10;
 * ring: 4 * 3 / 2 = 6 steps, (6 + 1) E + 6 * 19531 = 117256. + 1 each. */
static th_system two(const char *extra);

/* How long before its end a phase's final event is registered (th_astra1_phase_lag): on a
 * Switch of 4 with E = 10 and an input of 8e6 bytes, a reducing last step gives its local
 * reduction, 3 floor(m / 500000): ring RS m = 8e6 / 4 = 2e6: 12; halvingDoubling RS steps of
 * 4e6 then 2e6 (the second reduces): 12; direct RS (one round of 2e6): 12, direct2 (rounds of
 * 2 and 1 messages: the 2nd, even round does not reduce): E = 10, direct1 (3 rounds): 12.
 * The rest end on a step that does not reduce: E = 10 (AR's last step is an all-gather one,
 * AG, A2A; halvingDoubling RS on 2 NPUs, whose one step is the first). */
START_TEST(phase_lag) {
    th_system s = sys1("{\"topology\": \"switch\", \"npus\": 4, \"bw_GBps\": 50, "
                       "\"latency_ns\": 0, \"links\": 1, \"allreduce\": \"ring\", "
                       "\"reducescatter\": \"ring\", \"allgather\": \"ring\"}",
                       10);
    ck_assert_double_eq(th_astra1_phase_lag(&s, 0, TH_COLL_REDUCESCATTER, TH_OP_RS, 8e6), 12);
    ck_assert_double_eq(th_astra1_phase_lag(&s, 0, TH_COLL_ALLREDUCE, TH_OP_AR, 8e6), 10);
    ck_assert_double_eq(th_astra1_phase_lag(&s, 0, TH_COLL_ALLREDUCE, TH_OP_RS, 8e6), 12);
    ck_assert_double_eq(th_astra1_phase_lag(&s, 0, TH_COLL_ALLGATHER, TH_OP_AG, 8e6), 10);
    ck_assert_double_eq(th_astra1_phase_lag(&s, 0, TH_COLL_ALLTOALL, TH_OP_A2A, 8e6), 10);
    s = sys1("{\"topology\": \"switch\", \"npus\": 4, \"bw_GBps\": 50, \"latency_ns\": 0, "
             "\"links\": 1, \"allreduce\": \"halvingDoubling\"}",
             10);
    ck_assert_double_eq(th_astra1_phase_lag(&s, 0, TH_COLL_REDUCESCATTER, TH_OP_RS, 8e6), 12);
    ck_assert_double_eq(th_astra1_phase_lag(&s, 0, TH_COLL_ALLREDUCE, TH_OP_AG, 8e6), 10);
    s = sys1("{\"topology\": \"switch\", \"npus\": 2, \"bw_GBps\": 50, \"latency_ns\": 0, "
             "\"links\": 1, \"allreduce\": \"halvingDoubling\"}",
             10);
    ck_assert_double_eq(th_astra1_phase_lag(&s, 0, TH_COLL_REDUCESCATTER, TH_OP_RS, 8e6), 10);
    static const char *const impl[] = {"direct", "direct2", "direct1"};
    static const double lag[] = {12, 10, 12};
    for (int i = 0; i < 3; i++) {
        char d[256];
        snprintf(d, sizeof d,
                 "{\"topology\": \"switch\", \"npus\": 4, \"bw_GBps\": 50, \"latency_ns\": 0, "
                 "\"links\": 1, \"reducescatter\": \"%s\"}",
                 impl[i]);
        s = sys1(d, 10);
        ck_assert_double_eq(th_astra1_phase_lag(&s, 0, TH_COLL_REDUCESCATTER, TH_OP_RS, 8e6),
                            lag[i]);
    }
}
END_TEST

START_TEST(alltoall) {
    th_system s = parse("{\"model\": \"astra-sim-1.0\", \"endpoint_ns\": 10, \"dims\": ["
                        "{\"topology\": \"switch\", \"npus\": 4, \"bw_GBps\": 50, "
                        "\"latency_ns\": 0, \"links\": 1}]}");
    ck_assert_double_eq(run(&s, TH_COLL_ALLTOALL, 4 * MIB, 1, TH_POLICY_BASELINE, TH_INTRA_FIFO),
                        19552);
    s = parse("{\"model\": \"astra-sim-1.0\", \"endpoint_ns\": 10, \"dims\": ["
              "{\"topology\": \"switch\", \"npus\": 4, \"bw_GBps\": 50, "
              "\"latency_ns\": 0, \"links\": 1, \"alltoall\": \"ring\"}]}");
    ck_assert_double_eq(run(&s, TH_COLL_ALLTOALL, 4 * MIB, 1, TH_POLICY_THEMIS, TH_INTRA_SCF),
                        117257);
    /* round-robin rotates an All-to-All's dims too: on 2 x Switch 4 (halvingDoubling AR, direct
     * A2A, L 0, E 0), 8 MiB in 2 chunks of 4 MiB, each phase 4 MiB in messages of 1 MiB
     * (19531 ns): c0 dims 0, 1 and c1 dims 1, 0 run side by side: 2 * 19531 = 39062, + 1; the
     * baseline queues c1 behind c0: 3 * 19531 = 58593, + 1. */
    th_system s2 = two("");
    ck_assert_double_eq(run(&s2, TH_COLL_ALLTOALL, 8 * MIB, 2, TH_POLICY_ROUNDROBIN, TH_INTRA_FIFO),
                        39063);
    ck_assert_double_eq(run(&s2, TH_COLL_ALLTOALL, 8 * MIB, 2, TH_POLICY_BASELINE, TH_INTRA_FIFO),
                        58594);
}
END_TEST

/* direct with a window: on a Switch of 8 (L = 0, E = 10, 50 GB/s), direct3 sends the 7 messages
 * in ceil(7 / 3) = 3 rounds, each E after the last round's arrivals; an RS of 8 MiB (messages of
 * 1 MiB, 19531 ns; reductions of 6 after rounds 1 and 3, not 2: the packet counters):
 * 10 + 3 (19531 + 10) + 2 * 6 = 58645; an AG of a 1 MiB input: 10 + 3 (19531 + 10) = 58633.
 * A window on an All-Reduce is refused. */
START_TEST(direct_window) {
    th_system s = parse("{\"model\": \"astra-sim-1.0\", \"endpoint_ns\": 10, \"dims\": ["
                        "{\"topology\": \"switch\", \"npus\": 8, \"bw_GBps\": 50, "
                        "\"latency_ns\": 0, \"links\": 1, \"reducescatter\": \"direct3\", "
                        "\"allgather\": \"direct3\"}]}");
    double bytes, out;
    ck_assert_int_eq(astra1_of(&s)->window[TH_COLL_REDUCESCATTER][0], 3);
    ck_assert_double_eq(
        th_astra1_phase(&s, 0, TH_COLL_REDUCESCATTER, TH_OP_RS, 8 * MIB, &bytes, &out), 58645);
    ck_assert_double_eq(bytes, 7 * MIB);
    ck_assert_double_eq(th_astra1_phase(&s, 0, TH_COLL_ALLGATHER, TH_OP_AG, MIB, &bytes, &out),
                        58633);
    ck_assert_double_eq(out, 8 * MIB);
    /* a window of p - 1 or more is plain direct: 2E + 19531 + 6 */
    s = parse("{\"model\": \"astra-sim-1.0\", \"endpoint_ns\": 10, \"dims\": ["
              "{\"topology\": \"switch\", \"npus\": 8, \"bw_GBps\": 50, "
              "\"latency_ns\": 0, \"links\": 1, \"allreduce\": \"direct9\"}]}");
    ck_assert_double_eq(
        th_astra1_phase(&s, 0, TH_COLL_REDUCESCATTER, TH_OP_RS, 8 * MIB, &bytes, &out), 19557);
    const char *m = refuse("{\"model\": \"astra-sim-1.0\", \"endpoint_ns\": 10, \"dims\": ["
                           "{\"topology\": \"switch\", \"npus\": 8, \"bw_GBps\": 50, "
                           "\"latency_ns\": 0, \"links\": 1, \"allreduce\": \"direct4\"}]}");
    ck_assert_msg(strstr(m, "a window on an All-Reduce"), "%s", m);
    m = refuse("{\"model\": \"astra-sim-1.0\", \"endpoint_ns\": 10, \"dims\": ["
               "{\"topology\": \"ring\", \"npus\": 8, \"bw_GBps\": 50, "
               "\"latency_ns\": 0, \"links\": 2, \"allgather\": \"direct2\"}]}");
    ck_assert_msg(strstr(m, "dims[0].allgather: direct2 on a Ring"), "%s", m);
    m = refuse("{\"model\": \"astra-sim-1.0\", \"endpoint_ns\": 10, \"dims\": ["
               "{\"topology\": \"switch\", \"npus\": 8, \"bw_GBps\": 50, "
               "\"latency_ns\": 0, \"links\": 1, \"allgather\": \"direct0\"}]}");
    ck_assert_msg(strstr(m, "dims[0].allgather: expected ring, halvingDoubling"), "%s", m);
}
END_TEST

/* halvingDoubling All-Reduce: the RS half, then the AG half from 2 floor(m_K / 2). On a switch
 * of 4 (L = 0, E = 0, 50 GB/s) an AR of 3 bytes: RS messages floor(3/2) = 1 and floor(1/2) = 0;
 * the AG half starts at 2 floor(0 / 2) = 0 bytes: 4 messages, each floor(0 + m / B) = 0 ns.
 * An AR of 64 MiB: 32 MiB, 16 MiB (625000, 312500; reduction 99), then 16 MiB, 32 MiB:
 * 1875099. */
START_TEST(hd_allreduce) {
    char d[256];
    double bytes, out;
    th_system s = sys1(dim(d, "switch", 4, 50, 0, 1, "halvingDoubling"), 0);
    ck_assert_double_eq(th_astra1_phase(&s, 0, TH_COLL_ALLREDUCE, TH_OP_AR, 64 * MIB, &bytes, &out),
                        1875099);
    ck_assert_double_eq(bytes, 96 * MIB);
    ck_assert_double_eq(out, 64 * MIB);
    ck_assert_double_eq(th_astra1_phase(&s, 0, TH_COLL_ALLREDUCE, TH_OP_AR, 3, &bytes, &out), 0);
    ck_assert_double_eq(bytes, 1);
}
END_TEST

static const char two_switch4[] =
    "{\"model\": \"astra-sim-1.0\", \"endpoint_ns\": 0, %s\"dims\": ["
    "{\"topology\": \"switch\", \"npus\": 4, \"bw_GBps\": 50, \"latency_ns\": 0, \"links\": 1, "
    "\"allreduce\": \"halvingDoubling\"},"
    "{\"topology\": \"switch\", \"npus\": 4, \"bw_GBps\": 50, \"latency_ns\": 0, \"links\": 1, "
    "\"allreduce\": \"halvingDoubling\"}]}";

static th_system two(const char *extra) {
    char json[1024];
    snprintf(json, sizeof json, two_switch4, extra);
    return parse(json);
}

/* 2 x (Switch 4, 50 GB/s), halvingDoubling, E = 0, 64 MiB in 2 chunks of 32 MiB: phase times
 * RS@0 (32 -> 8 MiB) 312500 + 156250 + 48 = 468798; AR@1 of 8 MiB: 78125 + 39062 + 12 + 39062
 * + 78125 = 234386; AG@0 (8 -> 32 MiB) 156250 + 312500 = 468750.
 * Baseline: c0 RS@0 [0, 468798], c1 RS@0 [468798, 937596], c0 AR@1 [468798, 703184], c0 AG@0
 * waits for dim 0: [937596, 1406346]; c1 AR@1 [937596, 1171982]; c1 AG@0 [1406346, 1875096]:
 * + 1 = 1875097 (the reference value).
 * Themis: c0 falls back to the index order; c1's loads are 24 (dim 0) and 6 (dim 1) MiB, a gap
 * of 18 / (3/4) MiB >= 32 MiB / 16, so it takes dim 1 first. c0 RS@0 and c1 RS@1 [0, 468798];
 * c0 RS@1 and c1 RS@0 (8 -> 2 MiB: 78125 + 39062 + 12) [468798, 585997]; AG@0 / AG@1 of
 * 2 -> 8 MiB (39062 + 78125) [585997, 703184]; AG of 8 -> 32 MiB [703184, 1171934]: 1171935
 * (the reference value). */
START_TEST(two_dims) {
    th_system s = two("");
    ck_assert_double_eq(run(&s, TH_COLL_ALLREDUCE, 64 * MIB, 2, TH_POLICY_BASELINE, TH_INTRA_FIFO),
                        1875097);
    ck_assert_double_eq(run(&s, TH_COLL_ALLREDUCE, 64 * MIB, 2, TH_POLICY_THEMIS, TH_INTRA_FIFO),
                        1171935);
    /* boost-mode 0: the baseline's phases never end at the same ns on two dims, so its time
     * stands; Themis's c0 RS@0 and c1 RS@1 both end at 468798 and c0 moves on into dim 1:
     * refused, naming the dims and the instant. */
    th_system s0 = two("\"boost_mode\": 0, ");
    ck_assert_double_eq(run(&s0, TH_COLL_ALLREDUCE, 64 * MIB, 2, TH_POLICY_BASELINE, TH_INTRA_FIFO),
                        1875097);
    {
        th_runner *r0 = th_runner_create();
        th_collective c0 = {TH_COLL_ALLREDUCE, 64 * MIB, 2, 0};
        th_result res0;
        th_error e0 = {0};
        ck_assert_int_eq(th_run_eval(r0, &s0, &c0, (th_pair){TH_POLICY_THEMIS, TH_INTRA_FIFO},
                                     TH_LOAD_ALPHA_BETA, NULL, NULL, &res0, &e0),
                         TH_EINPUT);
        ck_assert_msg(strstr(e0.msg, "boost_mode: 0, and phases on dims 0 and 1 end at the same "
                                     "ns (468798)"),
                      "%s", e0.msg);
        th_runner_free(r0);
    }
    /* Round-robin: c0 takes dims 0, 1 and c1 dims 1, 0, each the baseline's list (RS, AR on the
     * second, AG back): c0 RS@0 and c1 RS@1 [0, 468798]; the AR phases of 8 MiB [468798,
     * 703184]; the AGs of 8 -> 32 MiB [703184, 1171934]: 1171935. */
    ck_assert_double_eq(
        run(&s, TH_COLL_ALLREDUCE, 64 * MIB, 2, TH_POLICY_ROUNDROBIN, TH_INTRA_FIFO), 1171935);
    /* ... but not with an inactive dim (ASTRA-sim rotates over every dim) */
    th_runner *rr = th_runner_create();
    th_collective c1 = {TH_COLL_ALLREDUCE, 64 * MIB, 2, 1u};
    th_result res;
    th_error err = {0};
    ck_assert_int_eq(th_run_eval(rr, &s, &c1, (th_pair){TH_POLICY_ROUNDROBIN, TH_INTRA_FIFO},
                                 TH_LOAD_ALPHA_BETA, NULL, NULL, &res, &err),
                     TH_EINPUT);
    ck_assert_msg(strstr(err.msg, "policy roundrobin"), "%s", err.msg);
    th_runner_free(rr);
    ck_assert_int_eq(th_astra1_roundrobin_ok(&s, 1u), 0);
    ck_assert_int_eq(th_astra1_roundrobin_ok(&s, 0), 1);
    /* -p all leaves it out there, and keeps it where it holds */
    th_pair pairs[8];
    ck_assert_int_eq(th_run_pairs(&s, 1u, -1, 0, pairs), 2);
    ck_assert_int_eq(th_run_pairs(&s, 0, -1, 0, pairs), 3);
    /* One chunk, localBWAware baseline: RS@0 of 64 MiB (625000 + 312500 + 99 = 937599), AR@1
     * of 16 MiB (156250 + 78125 + 24 + 78125 + 156250 = 468774), AG@0 of 16 MiB (312500 +
     * 625000): 2343873, + 1. */
    ck_assert_double_eq(run(&s, TH_COLL_ALLREDUCE, 64 * MIB, 1, TH_POLICY_BASELINE, TH_INTRA_FIFO),
                        2343874);
    /* collective-optimization baseline: a whole AR phase of 64 MiB on each dim (1875099 each,
     * hd_allreduce): 3750198, + 1. */
    s = two("\"collective_optimization\": \"baseline\", ");
    ck_assert_double_eq(run(&s, TH_COLL_ALLREDUCE, 64 * MIB, 1, TH_POLICY_BASELINE, TH_INTRA_FIFO),
                        3750199);
    /* Reduce-Scatter over both dims: RS@0 of 64 MiB (937599) then RS@1 of 16 MiB (156250 +
     * 78125 + a reduction of 4 MiB, 3 floor(4194304 / 500000) = 24: 234399): 1171998, + 1.
     * All-Gather of a 1 MiB input: AG@1 first (the
     * baseline walks the dims down): 1 MiB and 2 MiB messages (19531 + 39062 = 58593 after
     * truncating 19531.25), then AG@0 of 4 MiB: 4 and 8 MiB (78125 + 156250): 292968, + 1. */
    s = two("");
    ck_assert_double_eq(
        run(&s, TH_COLL_REDUCESCATTER, 64 * MIB, 1, TH_POLICY_BASELINE, TH_INTRA_FIFO), 1171999);
    ck_assert_double_eq(run(&s, TH_COLL_ALLGATHER, MIB, 1, TH_POLICY_BASELINE, TH_INTRA_FIFO),
                        292969);
}
END_TEST

/* The tutorial's exercise 3-1 (a 3-D switch 8 x 8 x 8, 50 GB/s, 1 ns links, endpoint 10,
 * halvingDoubling, 64 splits of 1 GiB, boost-mode 1): its published numbers. */
static th_system tutorial(const char *version) {
    char json[2048], d[256];
    dim(d, "switch", 8, 50, 1, 1, "halvingDoubling");
    snprintf(json, sizeof json,
             "{\"model\": \"astra-sim-1.0\", \"astra_version\": \"%s\", \"endpoint_ns\": 10, "
             "\"boost_mode\": 1, \"dims\": [%s, %s, %s]}",
             version, d, d, d);
    return parse(json);
}

START_TEST(tutorial_exercise_3) {
    double g = 1073741824.0;
    th_system tag = tutorial("tutorial-asplos2023"), branch = tutorial("1.0");
    ck_assert_double_eq(run(&tag, TH_COLL_ALLREDUCE, g, 64, TH_POLICY_BASELINE, TH_INTRA_FIFO),
                        35008129);
    ck_assert_double_eq(run(&tag, TH_COLL_ALLREDUCE, g, 64, TH_POLICY_THEMIS, TH_INTRA_SCF),
                        13635871);
    ck_assert_double_eq(run(&branch, TH_COLL_ALLREDUCE, g, 64, TH_POLICY_BASELINE, TH_INTRA_FIFO),
                        35008129);
    ck_assert_double_eq(run(&branch, TH_COLL_ALLREDUCE, g, 64, TH_POLICY_THEMIS, TH_INTRA_SCF),
                        13866496);
}
END_TEST

/* Two collectives in flight share the dims' lists: with scheduling-policy LIFO the later one's
 * phases go ahead of the earlier one's waiting phases; with FIFO behind them. One Switch of 4,
 * ring, L = 0, E = 0: an RS of 4 MiB in 2 chunks of 2 MiB is 3 steps of 512 KiB (9765.625 ->
 * 9765 ns) each reducing 524288 bytes (3 floor(1.048576) = 3): 3 * 9768 = 29304 per chunk.
 * Collective A (2 chunks) at 0: a0 [0, 29304], a1 waits. B (2 chunks) at 0 too. LIFO: b0, b1
 * go ahead of a1: a1 ends last at 4 * 29304 = 117216, B at 3 * 29304 = 87912. FIFO: A ends at
 * 58608, B at 117216. */
START_TEST(collectives_share_queues) {
    for (int lifo = 0; lifo < 2; lifo++) {
        char json[512];
        snprintf(json, sizeof json,
                 "{\"model\": \"astra-sim-1.0\", \"endpoint_ns\": 0, \"scheduling_policy\": "
                 "\"%s\", \"dims\": [{\"topology\": \"switch\", \"npus\": 4, \"bw_GBps\": 50, "
                 "\"latency_ns\": 0, \"links\": 1}]}",
                 lifo ? "LIFO" : "FIFO");
        th_system s = parse(json);
        th_collective c = {TH_COLL_REDUCESCATTER, 4 * MIB, 2, 0};
        th_plan *pa = th_plan_create(), *pb = th_plan_create();
        th_emu *emu = th_emu_create();
        th_error err = {0};
        ck_assert_int_eq(th_sched_plan(pa, &s, &c, TH_POLICY_BASELINE, TH_LOAD_ALPHA_BETA, &err),
                         TH_OK);
        ck_assert_int_eq(th_sched_plan(pb, &s, &c, TH_POLICY_BASELINE, TH_LOAD_ALPHA_BETA, &err),
                         TH_OK);
        th_emu_reset(emu, &s, TH_INTRA_FIFO, TH_PRIO_FIFO, NULL, NULL);
        int a, b;
        ck_assert_int_eq(th_emu_issue(emu, pa, 0, &a, &err), TH_OK);
        ck_assert_int_eq(th_emu_issue(emu, pb, 0, &b, &err), TH_OK);
        while (th_emu_next(emu) < INFINITY)
            ck_assert_int_eq(th_emu_step(emu, &err), TH_OK);
        th_result ra, rb;
        ck_assert_int_eq(th_emu_result(emu, a, &ra, &err), TH_OK);
        ck_assert_int_eq(th_emu_result(emu, b, &rb, &err), TH_OK);
        ck_assert_double_eq(ra.time, lifo ? 117216 : 58608);
        ck_assert_double_eq(rb.time, lifo ? 87912 : 117216);
        th_emu_free(emu);
        th_plan_free(pa);
        th_plan_free(pb);
    }
}
END_TEST

/* HIGHEST goes ahead of every waiting phase whatever the policy: with FIFO, B issued HIGHEST
 * runs b0, b1 before a1, as under LIFO above (A 117216, B 87912). */
START_TEST(highest_priority) {
    th_system s = parse("{\"model\": \"astra-sim-1.0\", \"endpoint_ns\": 0, "
                        "\"scheduling_policy\": \"FIFO\", \"dims\": [{\"topology\": "
                        "\"switch\", \"npus\": 4, \"bw_GBps\": 50, \"latency_ns\": 0, "
                        "\"links\": 1}]}");
    th_collective c = {TH_COLL_REDUCESCATTER, 4 * MIB, 2, 0};
    th_plan *pa = th_plan_create(), *pb = th_plan_create();
    th_emu *emu = th_emu_create();
    th_error err = {0};
    ck_assert_int_eq(th_sched_plan(pa, &s, &c, TH_POLICY_BASELINE, TH_LOAD_ALPHA_BETA, &err),
                     TH_OK);
    ck_assert_int_eq(th_sched_plan(pb, &s, &c, TH_POLICY_BASELINE, TH_LOAD_ALPHA_BETA, &err),
                     TH_OK);
    th_emu_reset(emu, &s, TH_INTRA_FIFO, TH_PRIO_FIFO, NULL, NULL);
    int a, b;
    ck_assert_int_eq(th_astra1_issue(emu, pa, 0, TH_A1_PRIO_NONE, &a, &err), TH_OK);
    ck_assert_int_eq(th_astra1_issue(emu, pb, 0, TH_A1_PRIO_HIGHEST, &b, &err), TH_OK);
    while (th_emu_next(emu) < INFINITY)
        ck_assert_int_eq(th_emu_step(emu, &err), TH_OK);
    th_result ra, rb;
    ck_assert_int_eq(th_emu_result(emu, a, &ra, &err), TH_OK);
    ck_assert_int_eq(th_emu_result(emu, b, &rb, &err), TH_OK);
    ck_assert_double_eq(ra.time, 117216);
    ck_assert_double_eq(rb.time, 87912);
    /* issuing before now, or on another model's system */
    ck_assert_int_eq(th_astra1_issue(emu, pb, -1, TH_A1_PRIO_NONE, &b, &err), TH_EINTERNAL);
    th_system other;
    th_system_default(&other);
    th_emu_reset(emu, &other, TH_INTRA_FIFO, TH_PRIO_FIFO, NULL, NULL);
    ck_assert_int_eq(th_astra1_issue(emu, pb, 0, TH_A1_PRIO_NONE, &b, &err), TH_EINTERNAL);
    th_emu_free(emu);
    th_plan_free(pa);
    th_plan_free(pb);
}
END_TEST

/* Themis's tracker carried from one collective to the next (same tick): on 2 x Switch 4, a
 * 32 MiB All-Reduce in 1 chunk falls back to the index order and leaves loads 24 (dim 0) and
 * 32 MiB / 4 * 3/4 = 6 (dim 1); the next one sees a gap of 18 / (3/4) MiB = 24 MiB >= 32 MiB / 16
 * and starts on dim 1. A fresh tracker starts on dim 0. */
START_TEST(themis_tracker) {
    th_system s = two("");
    th_collective c = {TH_COLL_ALLREDUCE, 32 * MIB, 1, 0};
    th_plan *plan = th_plan_create();
    th_a1_tracker t;
    th_error err = {0};
    th_astra1_tracker_reset(&t, &s);
    ck_assert_int_eq(th_astra1_plan(plan, &s, &c, TH_POLICY_THEMIS, &t, &err), TH_OK);
    ck_assert_int_eq(th_plan_order(plan, 0)[0], 0);
    ck_assert_double_eq(t.load[0], 24);
    ck_assert_double_eq(t.load[1], 6);
    ck_assert_int_eq(th_astra1_plan(plan, &s, &c, TH_POLICY_THEMIS, &t, &err), TH_OK);
    ck_assert_int_eq(th_plan_order(plan, 0)[0], 1);
    th_astra1_tracker_reset(&t, &s);
    ck_assert_int_eq(th_astra1_plan(plan, &s, &c, TH_POLICY_THEMIS, &t, &err), TH_OK);
    ck_assert_int_eq(th_plan_order(plan, 0)[0], 0);
    th_system other;
    th_system_default(&other);
    ck_assert_int_eq(th_astra1_plan(plan, &other, &c, TH_POLICY_THEMIS, &t, &err), TH_EINTERNAL);
    th_plan_free(plan);
}
END_TEST

/* Reduce-Scatter and All-Gather under Themis, on 2 x Switch 4 (halvingDoubling, L 0, E 0).
 * RS of 64 MiB in 2 chunks: c0 falls back to dims 0, 1 (loads 24, 6); c1 takes 1, 0. c0 RS@0 and
 * c1 RS@1 (32 -> 8 MiB, 468798) [0, 468798]; c0 RS@1 and c1 RS@0 (8 -> 2 MiB, 117199)
 * [468798, 585997]: 585998. The baseline queues c1 behind c0 on dim 0: c1 RS@0 [468798, 937596],
 * c1 RS@1 [937596, 1054795]: 1054796.
 * AG of a 2 MiB input in 2 chunks of 1 MiB: c0's list is reversed (dim 1, dim 0), the gap 0 falls
 * back to the index order, dims 0 then 1 (the baseline's All-Gather walks them down), and each
 * position takes the load of the dim of its index: position 0 (dim 1's entry) 1 * 3 = 3, position
 * 1 (dim 0's) 4 * 3 = 12. c1: sorted and reversed, dim 0 (12) then dim 1 (3): the gap 9 MiB-units
 * / 3 * 2^20 = 3 MiB, divided by dim 0's 4: 786432 >= 1 MiB / 16, so dims 0, 1; loads 15, 15. */
START_TEST(themis_rs_ag) {
    th_system s = two("");
    ck_assert_double_eq(
        run(&s, TH_COLL_REDUCESCATTER, 64 * MIB, 2, TH_POLICY_THEMIS, TH_INTRA_FIFO), 585998);
    ck_assert_double_eq(
        run(&s, TH_COLL_REDUCESCATTER, 64 * MIB, 2, TH_POLICY_BASELINE, TH_INTRA_FIFO), 1054796);
    th_collective c = {TH_COLL_ALLGATHER, 2 * MIB, 2, 0};
    th_plan *plan = th_plan_create();
    th_error err = {0};
    ck_assert_int_eq(th_sched_plan(plan, &s, &c, TH_POLICY_THEMIS, TH_LOAD_ALPHA_BETA, &err),
                     TH_OK);
    for (int i = 0; i < 2; i++) {
        ck_assert_int_eq(th_plan_order(plan, i)[0], 0);
        ck_assert_int_eq(th_plan_order(plan, i)[1], 1);
    }
    ck_assert_double_eq(plan->load[0], 15);
    ck_assert_double_eq(plan->load[1], 15);
    ck_assert_int_eq(th_sched_plan(plan, &s, &c, TH_POLICY_BASELINE, TH_LOAD_ALPHA_BETA, &err),
                     TH_OK);
    ck_assert_int_eq(th_plan_order(plan, 0)[0], 1);
    th_plan_free(plan);
    /* AG@0 of 1 MiB (19531 + 39062 = 58593), AG@1 of 4 MiB (78125 + 156250 = 234375): c0 AG@0
     * [0, 58593], c1 AG@0 [58593, 117186], c0 AG@1 [58593, 292968], c1 AG@1 [292968, 527343]. */
    ck_assert_double_eq(run(&s, TH_COLL_ALLGATHER, 2 * MIB, 2, TH_POLICY_THEMIS, TH_INTRA_FIFO),
                        527344);
}
END_TEST

START_TEST(system_errors) {
    char d[256], json[1024];
    const char *m;
    /* a Ring with 1 link has no bandwidth in ASTRA-sim */
    snprintf(json, sizeof json,
             "{\"model\": \"astra-sim-1.0\", \"endpoint_ns\": 0, \"dims\": [%s]}",
             dim(d, "ring", 4, 50, 0, 1, "ring"));
    m = refuse(json);
    ck_assert_msg(strstr(m, "dims[0].links") && strstr(m, "pairs"), "%s", m);
    /* FullyConnected: fewer links than peers */
    snprintf(json, sizeof json,
             "{\"model\": \"astra-sim-1.0\", \"endpoint_ns\": 0, \"dims\": [%s]}",
             dim(d, "fc", 8, 50, 0, 6, "direct"));
    m = refuse(json);
    ck_assert_msg(strstr(m, "dims[0].links") && strstr(m, "npus - 1 = 7"), "%s", m);
    /* halvingDoubling on 6 NPUs */
    snprintf(json, sizeof json,
             "{\"model\": \"astra-sim-1.0\", \"endpoint_ns\": 0, \"dims\": [%s]}",
             dim(d, "switch", 6, 50, 0, 1, "halvingDoubling"));
    m = refuse(json);
    ck_assert_msg(strstr(m, "dims[0].allreduce") && strstr(m, "power-of-two"), "%s", m);
    /* a key a switch dim of 4 NPUs does not take: an All-to-All or All-Gather implementation it
     * cannot run, the common "algorithm" key, efficiency, an unknown key */
    static const char *const bad_key[][2] = {
        {"\"alltoall\": \"halvingDoubling\"", "dims[0].alltoall"},
        {"\"algorithm\": \"rhd\"", "dims[0].algorithm: not used"},
        {"\"allgather\": \"oneRing\"", "dims[0].allgather"},
        {"\"efficiency\": 0.5", "dims[0].efficiency"},
        {"\"linkz\": 2", "linkz"},
    };
    for (size_t i = 0; i < sizeof bad_key / sizeof *bad_key; i++) {
        snprintf(json, sizeof json,
                 "{\"model\": \"astra-sim-1.0\", \"endpoint_ns\": 0, \"dims\": [{\"topology\": "
                 "\"switch\", \"npus\": 4, \"bw_GBps\": 50, \"latency_ns\": 0, \"links\": 1, %s}]}",
                 bad_key[i][0]);
        m = refuse(json);
        ck_assert_msg(strstr(m, bad_key[i][1]), "%s: %s", bad_key[i][0], m);
    }
    /* a missing links count */
    m = refuse("{\"model\": \"astra-sim-1.0\", \"endpoint_ns\": 0, \"dims\": [{\"topology\": "
               "\"switch\", \"npus\": 4, \"bw_GBps\": 50, \"latency_ns\": 0}]}");
    ck_assert_msg(strstr(m, "dims[0].links: missing"), "%s", m);
    /* a FullyConnected dim of 1 NPU */
    m = refuse("{\"model\": \"astra-sim-1.0\", \"endpoint_ns\": 0, \"dims\": [{\"topology\": "
               "\"fc\", \"npus\": 1, \"bw_GBps\": 50, \"latency_ns\": 0, \"links\": 1}]}");
    ck_assert_msg(strstr(m, "dims[0].npus"), "%s", m);
    /* top level: endpoint missing or fractional, bad settings, reduce_GBps, 2.x fields */
    m = refuse("{\"model\": \"astra-sim-1.0\", \"dims\": [{\"topology\": \"switch\", \"npus\": "
               "4, \"bw_GBps\": 50, \"latency_ns\": 0, \"links\": 1}]}");
    ck_assert_msg(strstr(m, "endpoint_ns: missing"), "%s", m);
    static const char *const bad_top[][2] = {
        {"\"endpoint_ns\": 1.5", "endpoint_ns"},
        {"\"endpoint_ns\": 0, \"scheduling_policy\": \"XYZ\"", "scheduling_policy"},
        {"\"endpoint_ns\": 0, \"collective_optimization\": \"fast\"", "collective_optimization"},
        {"\"endpoint_ns\": 0, \"astra_version\": \"2.0\"", "astra_version"},
        {"\"endpoint_ns\": 0, \"gap_denominator\": 8", "gap_denominator: only with"},
        {"\"endpoint_ns\": 0, \"astra_version\": \"tutorial-asplos2023\", \"gap_denominator\": 0",
         "gap_denominator"},
        {"\"endpoint_ns\": 0, \"boost_mode\": 2", "boost_mode"},
        {"\"endpoint_ns\": 0, \"reduce_GBps\": 5", "reduce_GBps"},
        {"\"endpoint_ns\": 0, \"local_mem_GBps\": 5", "local_mem_GBps"},
    };
    for (size_t i = 0; i < sizeof bad_top / sizeof *bad_top; i++) {
        snprintf(json, sizeof json,
                 "{\"model\": \"astra-sim-1.0\", %s, \"dims\": [{\"topology\": \"switch\", "
                 "\"npus\": 4, \"bw_GBps\": 50, \"latency_ns\": 0, \"links\": 1}]}",
                 bad_top[i][0]);
        m = refuse(json);
        ck_assert_msg(strstr(m, bad_top[i][1]), "%s: %s", bad_top[i][0], m);
    }
    /* the preset's fields in a file of another model are unknown there */
    m = refuse("{\"endpoint_ns\": 0, \"scheduling_policy\": \"LIFO\", \"dims\": [{\"topology\": "
               "\"switch\", \"npus\": 4, \"bw_GBps\": 50, \"latency_ns\": 0}]}");
    ck_assert_msg(strstr(m, "scheduling_policy"), "%s", m);
}
END_TEST

/* What a collective the preset cannot run is refused with. */
START_TEST(collective_errors) {
    char d[256];
    th_system s = sys1(dim(d, "switch", 4, 50, 0, 1, "ring"), 0);
    th_error err = {0};
    th_collective c = {TH_COLL_ALLREDUCE, 2, 4, 0};
    ck_assert_int_eq(th_collective_validate(&s, &c, &err), TH_EINPUT);
    ck_assert_msg(strstr(err.msg, "whole-byte chunks"), "%s", err.msg);
    c = (th_collective){TH_COLL_ALLREDUCE, 1000.5, 1, 0};
    ck_assert_int_eq(th_collective_validate(&s, &c, &err), TH_EINPUT);
    ck_assert_msg(strstr(err.msg, "whole number of bytes"), "%s", err.msg);
    /* a reduction over 2^31 bytes overflows ASTRA-sim's int: a ring RS of 16 GiB on 4 NPUs
     * reduces 4 GiB per step */
    th_runner *r = th_runner_create();
    th_result res;
    c = (th_collective){TH_COLL_REDUCESCATTER, 16.0 * 1073741824.0, 1, 0};
    ck_assert_int_eq(th_run_eval(r, &s, &c, (th_pair){TH_POLICY_BASELINE, TH_INTRA_FIFO},
                                 TH_LOAD_ALPHA_BETA, NULL, NULL, &res, &err),
                     TH_EINPUT);
    ck_assert_msg(strstr(err.msg, "dims[0] (dim0): a message of more than 2^31 ns or a reduction"),
                  "%s", err.msg);
    th_runner_free(r);
    /* training is not this preset's here */
    ck_assert_int_eq(th_train_check_system(&s, &err), TH_EINPUT);
}
END_TEST

/* ---- import-astra of ASTRA-sim 1.0 files ---- */

/* Writes text to dir/name and returns the path (static, one of four). */
static const char *put(const char *dir, const char *name, const char *text) {
    static char paths[4][4200];
    static int k;
    char *p = paths[k++ % 4];
    snprintf(p, 4200, "%s/%s", dir, name);
    test_spit(p, text, strlen(text));
    return p;
}

/* A network of the tutorial's exercise 3 shape (3-D switch 8 x 8 x 8, 1 link of 50 GB/s, 1 ns)
 * and its two system files, written again here by hand. */
static const char tut_net[] =
    "{\n  \"dimensions-count\": 3,\n  \"topologies-per-dim\": [\"Switch\", \"Switch\", "
    "\"Switch\"],\n"
    "  \"units-count\": [8, 8, 8],\n  \"links-count\": [1, 1, 1],\n"
    "  \"link-latency\": [1, 1, 1],\n  \"link-bandwidth\": [50, 50, 50]\n}\n";
static const char tut_sys_head[] =
    "scheduling-policy: LIFO\nendpoint-delay: 10\nactive-chunks-per-dimension: 1\n"
    "preferred-dataset-splits: 64\nboost-mode: 1\n"
    "all-reduce-implementation: halvingDoubling_halvingDoubling_halvingDoubling\n"
    "all-gather-implementation: halvingDoubling_halvingDoubling_halvingDoubling\n"
    "reduce-scatter-implementation: halvingDoubling_halvingDoubling_halvingDoubling\n"
    "all-to-all-implementation: direct_direct_direct\ncollective-optimization: localBWAware\n";

/* time_us of the one row `themis run -s sys -f csv` prints (1 GiB, the file's defaults). */
static double run_file(const char *sys) {
    test_cli_out r;
    test_cli(&r, "run -s %s -f csv", sys);
    test_expect_ok(&r, r.args);
    test_csv c;
    test_csv_parse(&c, r.out);
    ck_assert_int_eq(c.nrows, 1);
    double t = test_csv_d(&c, 0, "time_us");
    test_csv_free(&c);
    test_cli_free(&r);
    return t;
}

START_TEST(import_tutorial) {
    char *dir = test_tmp_dir(), sys[2048], net[4200], base[4200], them[4200];
    snprintf(net, sizeof net, "%s", put(dir, "3d_switch.json", tut_net));
    snprintf(sys, sizeof sys,
             "%sintra-dimension-scheduling: FIFO\ninter-dimension-scheduling: "
             "baseline\n",
             tut_sys_head);
    snprintf(base, sizeof base, "%s", put(dir, "3d_switch_baseline.txt", sys));
    snprintf(sys, sizeof sys,
             "%sintra-dimension-scheduling: SCF\ninter-dimension-scheduling: "
             "themis\n",
             tut_sys_head);
    snprintf(them, sizeof them, "%s", put(dir, "3d_switch_themis.txt", sys));
    test_cli_out r;
    /* the tutorial's published numbers (tag) and the branch's Themis + SCF */
    static const struct {
        const char *sys, *version;
        double us;
    } cases[] = {{"base", "tutorial-asplos2023", 35008.129},
                 {"them", "tutorial-asplos2023", 13635.871},
                 {"base", "1.0", 35008.129},
                 {"them", "1.0", 13866.496},
                 {"them", NULL, 13866.496}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        TEST_DIR_PATH(out, dir, "out.json");
        test_cli(&r, "import-astra %s %s%s%s -o %s --force", net,
                 cases[i].sys[0] == 'b' ? base : them, cases[i].version ? " --astra-version " : "",
                 cases[i].version ? cases[i].version : "", out);
        test_expect_quiet(&r, r.args);
        test_cli_free(&r);
        ck_assert_double_eq(run_file(out), cases[i].us);
    }
    test_rm_dir(dir);
}
END_TEST

/* The long network form: nic and router latencies, an HBM that never beats the network.
 * 1-D Switch of 4, 2 links of 25 GB/s (B = 53.6870912), 100 ns, nic 5, router 20; ring RS of
 * 4 MiB in 1 chunk, endpoint 10: messages of 1 MiB: floor(200 + 19531.25) = 19731, + 2 * 5,
 * + 20 = 19761; reduction 3 floor(1048576 / 500000) = 6; 10 + 3 (19761 + 6 + 10) = 59341,
 * + 1 = 59342 ns. */
START_TEST(import_long_form) {
    char *dir = test_tmp_dir(), net[4200];
    snprintf(net, sizeof net, "%s",
             put(dir, "long.json",
                 "{\"topology-name\": \"Hierarchical\", \"dimensions-count\": 1,\n"
                 "\"topologies-per-dim\": [\"Switch\"], \"dimension-type\": [\"N\"],\n"
                 "\"units-count\": [4], \"links-count\": [2], \"link-latency\": [100],\n"
                 "\"link-bandwidth\": [25], \"nic-latency\": [5], \"router-latency\": [20],\n"
                 "\"hbm-latency\": [10], \"hbm-bandwidth\": [1000], \"hbm-scale\": [1]}\n"));
    const char *sys =
        put(dir, "ring.txt",
            "scheduling-policy: FIFO\nendpoint-delay: 10\npreferred-dataset-splits: 1\n"
            "boost-mode: 0\nall-reduce-implementation: ring\n"
            "all-gather-implementation: ring\nreduce-scatter-implementation: ring\n"
            "all-to-all-implementation: ring\ncollective-optimization: baseline\n"
            "L: 0\no: 0\ng: 0\nG: 0\nlocal-reduction-delay: 1\nseprate-log: 1\n"
            "model-shared-bus: 0\ninter-dimension-scheduling: roundRobin\n");
    TEST_DIR_PATH(out, dir, "out.json");
    test_cli_out r;
    test_cli(&r, "import-astra %s %s -o %s", net, sys, out);
    test_expect_quiet(&r, r.args);
    test_cli_free(&r);
    test_cli(&r, "run -s %s -c reducescatter -b 4MiB -f csv", out);
    test_expect_ok(&r, r.args);
    test_csv c;
    test_csv_parse(&c, r.out);
    ck_assert_double_eq(test_csv_d(&c, 0, "time_us"), 59.342);
    ck_assert_str_eq(test_csv_s(&c, 0, "policy"), "roundrobin");
    ck_assert_str_eq(test_csv_s(&c, 0, "intra"), "fifo");
    test_csv_free(&c);
    test_cli_free(&r);
    test_rm_dir(dir);
}
END_TEST

/* Every refusal of the importer: the file, its line and the key are named. */
START_TEST(import_errors) {
    static const char *const good_sys =
        "scheduling-policy: LIFO\nall-reduce-implementation: ring\nall-gather-implementation: "
        "ring\nreduce-scatter-implementation: ring\nall-to-all-implementation: direct\n"
        "collective-optimization: localBWAware\n";
    static const char *const good_net =
        "{\"dimensions-count\": 1, \"topologies-per-dim\": [\"Switch\"], \"units-count\": [4],\n"
        "\"links-count\": [1], \"link-latency\": [1], \"link-bandwidth\": [50]}\n";
    static const struct {
        const char *net, *sys; /* NULL: the good one */
        int tag;               /* --astra-version tutorial-asplos2023 */
        const char *needle;
    } cases[] = {
        {"{\"dimensions-count\": 1, \"topology\": 1}", NULL, 0, "net.json:1: topology: not a key"},
        {"[1]", NULL, 0, "(top level)"},
        {"{\"dimensions-count\": 1,", NULL, 0, "net.json"},
        {"{\"topology-name\": \"Torus\", \"dimensions-count\": 1}", NULL, 0,
         "topology-name: expected \"Hierarchical\""},
        {"{\"units-count\": [4]}", NULL, 0, "dimensions-count: missing"},
        {"{\"dimensions-count\": 0}", NULL, 0, "dimensions-count: expected an integer from 1"},
        {"{\"dimensions-count\": 1}", NULL, 0, "topologies-per-dim: missing"},
        {"{\"dimensions-count\": 1, \"topologies-per-dim\": [\"Torus\"]}", NULL, 0,
         "topologies-per-dim: entry 0: expected Ring"},
        {"{\"dimensions-count\": 1, \"topologies-per-dim\": [\"Ring\"], \"dimension-type\": "
         "\"N\"}",
         NULL, 0, "dimension-type: expected one name per dimension"},
        {"{\"dimensions-count\": 1, \"topologies-per-dim\": [\"Ring\"], \"dimension-type\": "
         "[\"Node\"]}",
         NULL, 0, "dimension-type: expected T, N, P or PP"},
        {"{\"dimensions-count\": 1, \"topologies-per-dim\": [\"Ring\"], \"dimension-type\": "
         "[\"PP\"]}",
         NULL, 0, "dimension-type: PP (inter-pod) on a Ring"},
        {"{\"dimensions-count\": 1, \"topologies-per-dim\": [\"Ring\"], \"dimension-type\": "
         "[4]}",
         NULL, 1, "dimension-type: expected strings"},
        {"{\"dimensions-count\": 1, \"topologies-per-dim\": [\"Ring\"]}", NULL, 0,
         "units-count: missing"},
        {"{\"dimensions-count\": 1, \"topologies-per-dim\": [\"Ring\"], \"units-count\": [4, 4]}",
         NULL, 0, "units-count: expected a list of 1 integers"},
        {"{\"dimensions-count\": 1, \"topologies-per-dim\": [\"Ring\"], \"units-count\": [4.5]}",
         NULL, 0, "units-count: entry 0: expected an integer >= 1"},
        {"{\"dimensions-count\": 1, \"topologies-per-dim\": [\"Switch\"], \"units-count\": [4],\n"
         "\"links-count\": [1], \"link-latency\": [1], \"link-bandwidth\": [0]}",
         NULL, 0, "net.json:2: link-bandwidth: expected numbers > 0"},
        {"{\"dimensions-count\": 1, \"topologies-per-dim\": [\"Switch\"], \"units-count\": [4],\n"
         "\"links-count\": [1], \"link-latency\": [1], \"link-bandwidth\": [50],\n"
         "\"hbm-latency\": [500], \"hbm-bandwidth\": [370], \"hbm-scale\": [1]}",
         NULL, 0, "net.json:3: hbm-scale: an HBM time that can exceed"},
        /* 20 links of 25 GB/s outrun an HBM of 370 B/ns: large messages are HBM-bound */
        {"{\"dimensions-count\": 1, \"topologies-per-dim\": [\"Switch\"], \"units-count\": [4],\n"
         "\"links-count\": [20], \"link-latency\": [500], \"link-bandwidth\": [25],\n"
         "\"hbm-latency\": [500], \"hbm-bandwidth\": [370], \"hbm-scale\": [1]}",
         NULL, 0, "net.json:3: hbm-scale"},
        /* the system text */
        {NULL, "scheduling-policy: XYZ\n", 0,
         "sys.txt:1: scheduling-policy: unknown value \"XYZ\""},
        {NULL, "scheduling-policy: LIFO\nfoo: 1\n", 0, "sys.txt:2: foo: is not a setting"},
        {NULL, "scheduling-policy: LIFO\nscheduling-policy: FIFO\n", 0,
         "sys.txt:2: scheduling-policy: given twice (first on line 1)"},
        {NULL, "scheduling-policy: LIFO\n", 0, "all-reduce-implementation: missing"},
        {NULL, "scheduling-policy: LIFO\nendpoint-delay:\n", 0, "endpoint-delay: has no value"},
        {NULL, "endpoint-delay: 1.5\n", 0, "sys.txt:1: endpoint-delay: expected an integer"},
        {NULL, "active-chunks-per-dimension: 2\n", 0,
         "sys.txt:1: active-chunks-per-dimension: 2 is not modelled"},
        {NULL, "active-chunks-per-dimension: 0\n", 0, "active-chunks-per-dimension: expected"},
        {NULL, "boost-mode: 2\n", 0, "sys.txt:1: boost-mode: expected an integer from 0 to 1"},
        {NULL, "model-shared-bus: 1\n", 0, "model-shared-bus: 1 (the LogGP memory bus)"},
        {NULL, "gap-denominator: 8\n", 0, "gap-denominator: a setting of the tutorial"},
        {NULL, "gap-denominator: 0\n", 1, "gap-denominator: expected an integer from 1"},
        {NULL, "preferred-dataset-splits: 0\n", 0, "preferred-dataset-splits: expected"},
        {NULL, "collective-optimization: fast\n", 0, "collective-optimization: unknown value"},
        {NULL, "inter-dimension-scheduling: themisFlex\n", 0,
         "inter-dimension-scheduling: themisFlex is not modelled"},
        {NULL, "inter-dimension-scheduling: greedy\n", 0,
         "inter-dimension-scheduling: unknown value"},
        {NULL, "intra-dimension-scheduling: RG\n", 0, "intra-dimension-scheduling: RG is not"},
        {NULL, "intra-dimension-scheduling: LIFO\n", 0, "intra-dimension-scheduling: unknown"},
        {NULL, "all-reduce-implementation: ring_ring\n", 0,
         "all-reduce-implementation: more entries than the network's 1 dimensions"},
        {NULL, "all-reduce-implementation: oneRing\n", 0, "oneRing is not modelled"},
        {"{\"dimensions-count\": 2, \"topologies-per-dim\": [\"Switch\", \"Switch\"],\n"
         "\"units-count\": [4, 4], \"links-count\": [1, 1], \"link-latency\": [1, 1],\n"
         "\"link-bandwidth\": [50, 50]}",
         NULL, 0,
         "all-reduce-implementation: 1 entries for the network's 2 dimensions (with fewer"},
        {NULL, "all-reduce-implementation: direct2\n", 0,
         "direct2, a window on an All-Reduce, is not modelled"},
        {NULL, "reduce-scatter-implementation: direct0\n", 0,
         "sys.txt:1: reduce-scatter-implementation: direct0: expected direct followed by"},
        {NULL, "all-reduce-implementation: doubleBinaryTree\n", 0,
         "doubleBinaryTree is not modelled"},
        {NULL, "all-reduce-implementation: halvingdoubling\n", 0,
         "unknown implementation \"halvingdoubling\"; did you mean \"halvingDoubling\"?"},
    };
    char *dir = test_tmp_dir();
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char net[4200], sys[4200], text[2048];
        snprintf(net, sizeof net, "%s",
                 put(dir, "net.json", cases[i].net ? cases[i].net : good_net));
        /* a bad setting goes first, then the good ones it does not repeat */
        snprintf(text, sizeof text, "%s", cases[i].sys ? cases[i].sys : "");
        if (cases[i].sys) {
            const char *key = cases[i].sys;
            for (const char *l = good_sys; *l;) {
                const char *e = strchr(l, '\n');
                if (strncmp(l, key, (size_t)(strchr(l, ':') - l + 1)) != 0 &&
                    !strstr(cases[i].needle, "missing") && !strstr(cases[i].needle, "twice") &&
                    !strstr(cases[i].needle, "has no value"))
                    strncat(text, l, (size_t)(e - l + 1));
                l = e + 1;
            }
        } else {
            snprintf(text, sizeof text, "%s", good_sys);
        }
        snprintf(sys, sizeof sys, "%s", put(dir, "sys.txt", text));
        char *out = NULL;
        th_error err = {0};
        ck_assert_msg(th_astra1_import(net, sys, cases[i].tag ? TH_A1_TUTORIAL : TH_A1_BRANCH, &out,
                                       &err) == TH_EINPUT,
                      "case %zu (%s) was accepted", i, cases[i].needle);
        ck_assert_msg(strstr(err.msg, cases[i].needle), "case %zu: '%s' lacks '%s'", i, err.msg,
                      cases[i].needle);
        ck_assert_ptr_null(out);
    }
    /* what the preset refuses after import names both files */
    char net[4200], sys[4200];
    snprintf(net, sizeof net, "%s",
             put(dir, "net6.json",
                 "{\"dimensions-count\": 1, \"topologies-per-dim\": [\"Switch\"], "
                 "\"units-count\": [6], \"links-count\": [1], \"link-latency\": [1], "
                 "\"link-bandwidth\": [50]}"));
    snprintf(sys, sizeof sys, "%s",
             put(dir, "hd.txt",
                 "scheduling-policy: LIFO\nall-reduce-implementation: halvingDoubling\n"
                 "all-gather-implementation: ring\nreduce-scatter-implementation: ring\n"
                 "all-to-all-implementation: direct\ncollective-optimization: localBWAware\n"));
    char *out = NULL;
    th_error err = {0};
    ck_assert_int_eq(th_astra1_import(net, sys, TH_A1_BRANCH, &out, &err), TH_EINPUT);
    ck_assert_msg(strstr(err.msg, "net6.json and") && strstr(err.msg, "power-of-two"), "%s",
                  err.msg);
    /* missing files */
    TEST_DIR_PATH(none, dir, "none.json");
    ck_assert_int_eq(th_astra1_import(none, sys, TH_A1_BRANCH, &out, &err), TH_EINPUT);
    ck_assert_int_eq(th_astra1_import(net, none, TH_A1_BRANCH, &out, &err), TH_EINPUT);
    ck_assert_msg(strstr(err.msg, "cannot open"), "%s", err.msg);
    ck_assert_int_eq(th_astra_detect(none, &err), -1);
    /* the command line */
    test_bad("--astra-version: unknown ASTRA-sim version '2.0' (expected 1.0 or "
             "tutorial-asplos2023)",
             "import-astra %s %s --astra-version 2.0", net, sys);
    test_bad("give its system text file too", "import-astra %s", net);
    test_bad("1.0 takes a `key: value` system text file", "import-astra %s %s", net, net);
    test_bad("--astra-version applies to ASTRA-sim 1.0 inputs",
             "import-astra %s --astra-version 1.0", test_dpath("astra_net_3d.yml"));
    test_bad("cannot open", "import-astra %s", none);
    test_rm_dir(dir);
}
END_TEST

/* The dim's "algorithm" field of `themis run -f json`, and its "algorithms" object (NULL when
 * absent: every collective type runs the same one). */
static cJSON *run_dim(const char *sys, const char *type, int k, cJSON **root) {
    test_cli_out r;
    test_cli(&r, "run -s %s -c %s -b 1MiB -n 1 -p baseline -q fifo -f json", sys, type);
    test_expect_ok(&r, "run");
    *root = cJSON_Parse(r.out);
    test_cli_free(&r);
    ck_assert_ptr_nonnull(*root);
    cJSON *dims =
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(*root, "system"), "dims");
    return cJSON_GetArrayItem(dims, k);
}

static const char *str(const cJSON *o, const char *key) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    ck_assert_msg(cJSON_IsString(v), "%s: not a string", key);
    return v->valuestring;
}

/* The report names each dim's real implementation for the collective run (not "ring" for
 * all), as the system file spells it, and every type's when they differ: dim 0 has
 * halvingDoubling AR, ring RS, direct2 AG and the default direct A2A; dim 1 ring for all. */
START_TEST(report_algorithms) {
    char *dir = test_tmp_dir();
    const char *sys = put(dir, "s.json",
                          "{\"model\": \"astra-sim-1.0\", \"endpoint_ns\": 10, \"dims\": ["
                          "{\"topology\": \"switch\", \"npus\": 4, \"bw_GBps\": 50, "
                          "\"latency_ns\": 0, \"links\": 1, \"allreduce\": \"halvingDoubling\", "
                          "\"reducescatter\": \"ring\", \"allgather\": \"direct2\"}, "
                          "{\"topology\": \"switch\", \"npus\": 4, \"bw_GBps\": 50, "
                          "\"latency_ns\": 0, \"links\": 1, \"alltoall\": \"ring\"}]}");
    static const char *const types[] = {"allreduce", "reducescatter", "allgather", "alltoall"};
    static const char *const dim0[] = {"halvingDoubling", "ring", "direct2", "direct"};
    for (int t = 0; t < 4; t++) {
        cJSON *root;
        cJSON *d = run_dim(sys, types[t], 0, &root);
        ck_assert_str_eq(str(d, "algorithm"), dim0[t]);
        cJSON *all = cJSON_GetObjectItemCaseSensitive(d, "algorithms");
        ck_assert_int_eq(cJSON_GetArraySize(all), 4);
        for (int u = 0; u < 4; u++)
            ck_assert_str_eq(str(all, types[u]), dim0[u]);
        cJSON_Delete(root);
        d = run_dim(sys, types[t], 1, &root);
        ck_assert_str_eq(str(d, "algorithm"), "ring");
        ck_assert_ptr_null(cJSON_GetObjectItemCaseSensitive(d, "algorithms"));
        cJSON_Delete(root);
    }
    test_rm_dir(dir);
}
END_TEST

/* ---- vectors measured on ASTRA-sim 1.0 built from its public source ---- */

/* The time in ns that `themis ARGS -f csv` prints in column col (run: time_us, train:
 * total_us); the simulator's `all passes finished at time` holds MICRO's +1 ns, and so does
 * ours. */
static long long cli_ns(const char *col, const char *args) {
    test_cli_out r;
    test_cli(&r, "%s -f csv", args);
    test_expect_quiet(&r, args);
    test_csv c;
    test_csv_parse(&c, r.out);
    ck_assert_int_eq(c.nrows, 1);
    long long ns = llround(test_csv_d(&c, 0, col) * 1000);
    test_csv_free(&c);
    test_cli_free(&r);
    return ns;
}

static long long run_ns(const char *sys, const char *rest) {
    char a[4400];
    snprintf(a, sizeof a, "run -s %s %s", test_dpath(sys), rest);
    return cli_ns("time_us", a);
}

static long long train_ns(const char *wl, const char *sys, const char *rest) {
    char a[8800];
    snprintf(a, sizeof a, "train %s -s %s %s", test_dpath(wl), test_dpath(sys), rest);
    return cli_ns("total_us", a);
}

/* Every All-Reduce phase is made from what the phase before it left, so an All-Gather carries
 * the last RS's output grown by the dims gathered since. Switch 4 (2 links, 150 GB/s, 10 ns,
 * halvingDoubling) x Ring 8 (4 links, 100 GB/s, 40 ns, direct) x FullyConnected 4 (3 links,
 * 50 GB/s, 200 ns, ring) x Switch 2 (1 link, 12.5 GB/s, 2000 ns, halvingDoubling), endpoint
 * 10, boost 1, LIFO, 256 splits, Themis + SCF, MICRO ALLREDUCE 1000000007: the branch build
 * (ASTRA-sim-1.0, 07d5d19, AnalyticalAstra) prints 6806855 (the AG sizes after each dim's own
 * RS gave 6806978). The first All-Reduce of ResNet-50 alone, 37632 bytes in 64 chunks on the
 * tutorial exercise's Switch 8 x 3 (Themis + FIFO): the branch build prints 6218, + 1 for
 * MICRO's cycle = 6219 (was 6241). `themis train` of the MICRO workload plans the same way
 * (the AG sizes after each dim's own RS gave 6806978). */
START_TEST(vec_allgather_chain) {
    ck_assert_int_eq(run_ns("astra1/mixed4d_branch.json", "-b 1000000007"), 6806855);
    ck_assert_int_eq(
        train_ns("astra1/micro_ar1e9p7.txt", "astra1/mixed4d_branch.json", "-p themis -q scf"),
        6806855);
    ck_assert_int_eq(run_ns("astra1/sw888_branch.json", "-b 37632"), 6219);
}
END_TEST

/* The tutorial tag multiplies a collective's size by its float comm-scale, in run too: the
 * mixed 4-dim system above on the tutorial-asplos2023 tag (3ad17ff) prints 6821073 for
 * ALLREDUCE 1000000007 (run as 1000000000; the exact size gave 6822476), and the same for
 * 1000000000. */
START_TEST(vec_tag_float_size) {
    ck_assert_int_eq(run_ns("astra1/mixed4d_tag.json", "-b 1000000007"), 6821073);
    ck_assert_int_eq(run_ns("astra1/mixed4d_tag.json", "-b 1000000000"), 6821073);
}
END_TEST

/* The branch reads --comm-scale as a float too: Switch 2, 1 link of 0.931322574615478515625
 * GB/s (1 byte per ns), no latency, ring, endpoint 10, one split, baseline FIFO, MICRO
 * ALLGATHER 1000000000 with --comm-scale=0.1: the branch build prints 100000022 (100000001
 * bytes), the tag 100000021 (its float product is 100000000). */
START_TEST(vec_float_scales) {
    ck_assert_int_eq(train_ns("astra1/micro_ag1g.txt", "astra1/sw2_slow.json",
                              "-p baseline -q fifo --comm-scale 0.1"),
                     100000022);
    ck_assert_int_eq(train_ns("astra1/micro_ag1g.txt", "astra1/sw2_slow_tag.json",
                              "-p baseline -q fifo --comm-scale 0.1"),
                     100000021);
}
END_TEST

/* Phases ending at one ns move on in the order their last events were registered. Switch 16 x
 * Switch 16, 50 GB/s, 1 ns, halvingDoubling, endpoint 10, boost 1, LIFO, 16 splits, Themis +
 * SCF, MICRO ALLREDUCE 67108864: both builds print 1246985 (dim order gave 1320283 on the
 * branch). FullyConnected 4 x 3 (3 links, 100 GB/s, 10 ns, direct), endpoint 10, 16 splits,
 * Themis + FIFO, ALLREDUCE 67108864: both builds print 155833; a 0-ns reduction after the last
 * message does not count (counting it gives 154820, as dim order does). */
START_TEST(vec_same_ns_order) {
    ck_assert_int_eq(run_ns("astra1/sw16x16_branch.json", "-b 67108864"), 1246985);
    ck_assert_int_eq(run_ns("astra1/fc444_branch.json", "-b 67108864"), 155833);
}
END_TEST

/* Training: only NPU 0 resets Themis's loads, and after a completion wakes the workload it no
 * longer generates first. The tutorial exercise (Switch 8 x 3, 50 GB/s, 1 ns, halvingDoubling,
 * endpoint 10, boost 1, LIFO, 64 splits) with the tutorial's MLP_ModelParallel.txt, Themis +
 * FIFO, one pass: both builds print 1734232 (resetting at every tick gave 1741708). */
START_TEST(vec_train_stale_loads) {
    ck_assert_int_eq(
        train_ns("astra1/mlp_model.txt", "astra1/sw888_branch.json", "-p themis -q fifo"), 1734232);
}
END_TEST

/* After a completion wakes the workload, NPU 0 no longer generates first, and phases that one
 * collective started together and that end at one ns with identical chains move on in the
 * order the NPUs resumed, which the preset does not follow. Switch 4 x 3 (50 GB/s, 1 ns,
 * halvingDoubling), endpoint 10, boost 1, LIFO, the tutorial's MLP_ModelParallel.txt, Themis +
 * SCF, one pass: with 64 splits the branch build prints 409438 (the dim order gives 408964,
 * reversing those ties 409620) and the tag 407556 (the dim order's; reversed 407800): the order
 * decides the result, and the preset replays such runs NPU by NPU, every NPU's events in
 * ASTRA-sim's order (docs/VALIDATION.md, "Every NPU in its order"); with 16 splits both builds
 * print 411274, which either order gives. The tutorial exercise's system with SCF: the branch
 * prints 1737079, the tag 1734729 (the dim order gives 1736608 and 1734552). */
START_TEST(vec_train_resume_order) {
    ck_assert_int_eq(
        train_ns("astra1/mlp_model.txt", "astra1/sw444_scf_branch.json", "-p themis -q scf -n 64"),
        409438);
    ck_assert_int_eq(
        train_ns("astra1/mlp_model.txt", "astra1/sw444_scf_tag.json", "-p themis -q scf -n 64"),
        407556);
    ck_assert_int_eq(
        train_ns("astra1/mlp_model.txt", "astra1/sw888_branch.json", "-p themis -q scf"), 1737079);
    ck_assert_int_eq(
        train_ns("astra1/mlp_model.txt", "astra1/sw444_scf_branch.json", "-p themis -q scf -n 16"),
        411274);
    ck_assert_int_eq(
        train_ns("astra1/mlp_model.txt", "astra1/sw444_scf_tag.json", "-p themis -q scf -n 16"),
        411274);
}
END_TEST

/* Before the first wake the preset has NPU 0 generate first at every tick, but an NPU whose
 * list for a tick was made first (an event registered before the workload's) may plan with the
 * loads the last tick left. ResNet-50 (the tutorial's Resnet50_DataParallel.txt) on the tutorial
 * exercise's system (Switch 8 x 3, 50 GB/s, 1 ns, halvingDoubling, endpoint 10, boost 1, LIFO),
 * Themis + FIFO, 64 splits, one pass: the branch build (ASTRA-sim-1.0, analytical d27635b)
 * prints 2022751; NPU 0 first at every tick gives 2092015, another NPU taking over at line 23's
 * weight-grad All-Reduce (ns 803767, the first tick where the two plan differently) 2091897;
 * the preset, which does not know which, replays it NPU by NPU (2022751; its 512 NPUs take
 * about 6 s and 850 MB that way, too much for this suite: docs/VALIDATION.md). The same
 * workload on Switch 4 x 3 (50 GB/s, 1 ns, halvingDoubling), endpoint 10, boost 1, LIFO, the
 * branch build, Themis + FIFO, 64 splits: 1933307, refused before for the same reason. */
START_TEST(vec_train_npu_order) {
    ck_assert_int_eq(
        train_ns("astra1/resnet50_data.txt", "astra1/sw444_scf_branch.json", "-p themis -q fifo"),
        1933307);
}
END_TEST

/* Where no other NPU can take over from NPU 0 at a tick whose plans differ, the run is not
 * refused: an NPU's workload event of a tick makes its list for that tick, in the order the NPUs
 * ran the tick before, unless one of them registered an event of that tick earlier; and once
 * another NPU plans first, NPU 0 resets the loads after its plans, so the plans differ only
 * where it takes over. The tutorial's DLRM_HybridParallel.txt, one pass, 16 splits, on the
 * tutorial tag (3ad17ff): Switch 8 (200 GB/s, 5 ns, halvingDoubling) x Ring 5 (2 links,
 * 50 GB/s, 100 ns, ring), endpoint 10, boost 1, LIFO: Themis + FIFO 144587, Themis + SCF
 * 144925. (Another NPU planning first at every tick once a phase event has met a workload tick
 * would give 144635 with FIFO; it cannot: at 25174, 32216, 46846 and 50304 the other NPU, if
 * first, has been first since the tick before, and NPU 0's reset came after its plans.) */
START_TEST(vec_train_npu_order_exact) {
    ck_assert_int_eq(
        train_ns("astra1/dlrm_hybrid.txt", "astra1/sw8r5_tag.json", "-p themis -q fifo -n 16"),
        144587);
    ck_assert_int_eq(
        train_ns("astra1/dlrm_hybrid.txt", "astra1/sw8r5_tag.json", "-p themis -q scf -n 16"),
        144925);
}
END_TEST

/* Once a workload tick has met events that some NPUs registered before their workload call,
 * those NPUs may generate a collective before NPUs of lower index, and the phases it starts
 * together move on at one ns in that order, not the dim order. The tutorial's
 * DLRM_HybridParallel.txt, two passes, 16 splits, Themis + SCF, on the tutorial tag (3ad17ff):
 * FullyConnected 4 x 3 (3 links, 100 GB/s, 10 ns, direct), endpoint 10, boost 1, LIFO: its
 * NPUs generate the second pass's collectives as 0, 8, 4, 12, 1, 2, ... and ASTRA-sim prints
 * 102807; the dim order gives 102802, the reversed one 102808: replayed NPU by NPU. */
START_TEST(vec_train_shuffled_ties) {
    ck_assert_int_eq(train_ns("astra1/dlrm_hybrid.txt", "astra1/fc444_tag.json",
                              "-p themis -q scf -n 16 --passes 2"),
                     102807);
}
END_TEST

/* In training too an All-Reduce's All-Gathers carry the last RS's output grown by the dims
 * gathered since. The tutorial's DLRM_HybridParallel.txt, one pass, 64 splits, on the tutorial
 * tag (3ad17ff): FullyConnected 4 x 3 (3 links, 100 GB/s, 10 ns, direct), endpoint 10, boost 1,
 * LIFO, Themis + SCF: 58886 (each dim's RS output gave 58822); Switch 8 (200 GB/s, 5 ns,
 * halvingDoubling) x Ring 5 (2 links, 50 GB/s, 100 ns, ring), Themis + FIFO: 463513 (463514). */
START_TEST(vec_train_allgather_chain) {
    ck_assert_int_eq(
        train_ns("astra1/dlrm_hybrid.txt", "astra1/fc444_tag.json", "-p themis -q scf -n 64"),
        58886);
    ck_assert_int_eq(
        train_ns("astra1/dlrm_hybrid.txt", "astra1/sw8r5_tag.json", "-p themis -q fifo"), 463513);
}
END_TEST

/* A direct All-to-All on a Switch or FullyConnected dim sends its p - 1 messages at one ns and
 * they arrive at one ns, so its end is keyed by its chain E, message, E like any one-line phase:
 * of its phases ending at one ns with another's, the one started first moves on first. Measured
 * on FullyConnected 4 x 3 (3 links, 100 GB/s, 10 ns, direct), endpoint 10, boost 1, LIFO, Themis
 * + SCF, 64 splits. The tag build (tutorial-asplos2023, analytical 4ac1ddb): the tutorial's
 * DLRM_HybridParallel.txt with its two All-to-Alls of 1572864 bytes (dlrm_a2a_1536k.txt) prints
 * 61898 for one pass and 123796 for two (the dim order gave 62367 or 62305 by the NPU that plans
 * first, and was refused). The branch build (ASTRA-sim-1.0, analytical d27635b): the tutorial's
 * DLRM_HybridParallel.txt prints 59954 (the dim order gave 59904); NPU 16 plans first at ns 42492
 * and 46846 there (logged) and NPU 0 again at 50304. The preset refused it (NPU 0 first 59954,
 * another NPU taking over at 50304 60003). Now the All-to-All phases with an E at 39419 that
 * two of NPU 0's rings started as a chunk's next phase (NPU 0 last) make another NPU surely
 * first from 42492 on; NPU 0 may come first again at 50304, and both candidates then plan from
 * loads NPU 0 reset at 46846. */
START_TEST(vec_train_a2a_key) {
    ck_assert_int_eq(
        train_ns("astra1/dlrm_a2a_1536k.txt", "astra1/fc444_tag.json", "-p themis -q scf -n 64"),
        61898);
    ck_assert_int_eq(train_ns("astra1/dlrm_a2a_1536k.txt", "astra1/fc444_tag.json",
                              "-p themis -q scf -n 64 --passes 2"),
                     123796);
    ck_assert_int_eq(
        train_ns("astra1/dlrm_hybrid.txt", "astra1/fc444_branch.json", "-p themis -q scf -n 64"),
        59954);
}
END_TEST

/* A workload event registered before the phase events of its ns made every NPU's list for that
 * ns, in the order the NPUs registered it, and the phases' events of that ns run in that order
 * from then on, not in their chains'. The branch build (ASTRA-sim-1.0, analytical d27635b):
 * FullyConnected 4 x 3 (3 links, 100 GB/s, 10 ns, direct), endpoint 10, boost 1, LIFO, Themis +
 * SCF, 64 splits, one pass, the tutorial's DLRM_HybridParallel.txt with All-to-Alls of 49152
 * bytes (dlrm_a2a_48k.txt): ASTRA-sim prints 59443. The update of MLP_Top_0's weight-grad
 * All-Reduce (done at 38244, due at 39309) meets the E events of three All-to-All phases started
 * at 39299; the dim order of their ties gives 59824, the reversed order 59744: the preset,
 * which does not follow that order, replays it NPU by NPU. */
START_TEST(vec_train_late_lists) {
    ck_assert_int_eq(
        train_ns("astra1/dlrm_a2a_48k.txt", "astra1/fc444_branch.json", "-p themis -q scf -n 64"),
        59443);
}
END_TEST

/* The NPUs of a ring run a direct phase on a FullyConnected dim in a known order: an issue
 * starts it in index order, and the phase a freed dim starts next in the order its NPUs' receive
 * handlers first ran in the phase before (from NPUs 0, 1, 2, 3 of a ring of 4: 1, 0, 2, 3). Where
 * the E after such a start meets a workload tick, another NPU surely made its list for the tick
 * first and plans the next collective. The tutorial's DLRM_HybridParallel.txt with All-to-Alls of
 * 49152 bytes (dlrm_a2a_48k.txt) on FullyConnected 4 x 3 (3 links, 100 GB/s, 10 ns, direct),
 * endpoint 10, boost 1, LIFO, Themis + FIFO, 64 splits: both builds (ASTRA-sim-1.0 branch,
 * analytical d27635b; tutorial-asplos2023 tag, 3ad17ff, analytical 4ac1ddb) print 58071 for one
 * pass (refused before: the E events of two phases at 23382 met a workload tick); with two passes
 * (114609) collectives follow a wake, which the preset does not follow, and it replays the run
 * NPU by NPU. */
/* The same order on a Switch dim, whose peers are all two hops away. The tag build
 * (tutorial-asplos2023, 3ad17ff, analytical 4ac1ddb): Switch 4 x 3 (1 link, 100 GB/s, 10 ns,
 * direct), endpoint 10, boost 1, LIFO, the tutorial's DLRM_HybridParallel.txt, 64 splits, one
 * pass: Themis + SCF 66815 (refused before: NPU 0 first gives 66912), Themis + FIFO 66216. */
START_TEST(vec_train_direct_order_switch) {
    ck_assert_int_eq(
        train_ns("astra1/dlrm_hybrid.txt", "astra1/swd444_tag.json", "-p themis -q scf -n 64"),
        66815);
    ck_assert_int_eq(
        train_ns("astra1/dlrm_hybrid.txt", "astra1/swd444_tag.json", "-p themis -q fifo -n 64"),
        66216);
}
END_TEST

/* The order of a ring's NPUs on halvingDoubling phases is not followed. Each step has every
 * NPU post a send to its partner and then a receive from it (HalvingDoubling::ready), so a
 * pair's handlers run when the later of the two posts, the earlier NPU's first: logged on the tag
 * build below (a line per new event list of NPUs 0-3 in Sys::try_register_event), ring 0 of dim
 * 0 made its lists for 49408 at 49398, after the second step (offset 2) of a Reduce-Scatter, in
 * the order 1, 3, 0, 2, the step's order from 1, 0, 3, 2. But the order the ring starts a phase
 * in drifts with every phase a chunk moves on to and every event another dim registers first;
 * NPU 1 then generates the collective of 50304 first (a line per Sys::generate_collective call).
 * The tag build (tutorial-asplos2023, 3ad17ff, analytical 4ac1ddb): Switch 4 x 3 (1 link,
 * 50 GB/s, 1 ns, halvingDoubling, direct All-to-All), endpoint 10, boost 1, LIFO, the tutorial's
 * DLRM_HybridParallel.txt, Themis + SCF, one pass: 64 splits 92980 (two passes 180593),
 * replayed NPU by NPU (NPU 0
 * first at every tick gives 92997; following the step orders from index order does the same); 16
 * splits 71205, NPU 0 first at every tick (logged), exact. */
START_TEST(vec_train_hd_order) {
    ck_assert_int_eq(
        train_ns("astra1/dlrm_hybrid.txt", "astra1/sw444_scf_tag.json", "-p themis -q scf -n 64"),
        92980);
    ck_assert_int_eq(train_ns("astra1/dlrm_hybrid.txt", "astra1/sw444_scf_tag.json",
                              "-p themis -q scf -n 64 --passes 2"),
                     180593);
    ck_assert_int_eq(
        train_ns("astra1/dlrm_hybrid.txt", "astra1/sw444_scf_tag.json", "-p themis -q scf -n 16"),
        71205);
}
END_TEST

START_TEST(vec_train_direct_order) {
    ck_assert_int_eq(
        train_ns("astra1/dlrm_a2a_48k.txt", "astra1/fc444_branch.json", "-p themis -q fifo -n 64"),
        58071);
    ck_assert_int_eq(
        train_ns("astra1/dlrm_a2a_48k.txt", "astra1/fc444_tag.json", "-p themis -q fifo -n 64"),
        58071);
    ck_assert_int_eq(train_ns("astra1/dlrm_a2a_48k.txt", "astra1/fc444_branch.json",
                              "-p themis -q fifo -n 64 --passes 2"),
                     114609);
}
END_TEST

/* With boost-mode 0 every NPU simulates, and which one generates a collective first after a
 * completion woke the workload is not followed: Ring 4 (2 links, 200 GB/s, 50 ns, ring) x
 * FullyConnected 4 (3 links, 100 GB/s, 100 ns, direct) x Switch 4 (1 link, 50 GB/s, 100 ns,
 * halvingDoubling), endpoint 10, boost-mode 0, LIFO, 16 splits, MLP_ModelParallel.txt, Themis +
 * FIFO: both builds print 369435 (resetting the loads at each tick gives 369333, NPU 0 behind
 * as under boost-mode 1 gives 365174): the preset replays it NPU by NPU. The baseline order has
 * no loads and runs either way. */
START_TEST(vec_train_boost0) {
    ck_assert_int_eq(
        train_ns("astra1/mlp_model.txt", "astra1/mix3_boost0_branch.json", "-p themis -q fifo"),
        369435);
    test_cli_out r;
    test_cli(&r, "train %s -s %s -p baseline -q fifo", test_dpath("astra1/mlp_model.txt"),
             test_dpath("astra1/mix3_boost0_branch.json"));
    test_expect_ok(&r, "baseline under boost-mode 0");
    test_cli_free(&r);
}
END_TEST

Suite *astra1_suite(void) {
    Suite *s = suite_create("astra1");
    TCase *tc = tcase_create("preset");
    tcase_add_test(tc, reference_checks);
    tcase_add_test(tc, last_chunk);
    tcase_add_test(tc, links_and_hops);
    tcase_add_test(tc, hd_allreduce);
    tcase_add_test(tc, alltoall);
    tcase_add_test(tc, phase_lag);
    tcase_add_test(tc, direct_window);
    tcase_add_test(tc, two_dims);
    tcase_add_test(tc, tutorial_exercise_3);
    tcase_add_test(tc, collectives_share_queues);
    tcase_add_test(tc, highest_priority);
    tcase_add_test(tc, themis_tracker);
    tcase_add_test(tc, themis_rs_ag);
    tcase_add_test(tc, system_errors);
    tcase_add_test(tc, collective_errors);
    suite_add_tcase(s, tc);
    tc = tcase_create("import");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, import_tutorial);
    tcase_add_test(tc, import_long_form);
    tcase_add_test(tc, import_errors);
    tcase_add_test(tc, report_algorithms);
    suite_add_tcase(s, tc);
    tc = tcase_create("measured");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, vec_allgather_chain);
    tcase_add_test(tc, vec_tag_float_size);
    tcase_add_test(tc, vec_float_scales);
    tcase_add_test(tc, vec_same_ns_order);
    tcase_add_test(tc, vec_train_stale_loads);
    tcase_add_test(tc, vec_train_resume_order);
    tcase_add_test(tc, vec_train_boost0);
    tcase_add_test(tc, vec_train_npu_order);
    tcase_add_test(tc, vec_train_npu_order_exact);
    tcase_add_test(tc, vec_train_shuffled_ties);
    tcase_add_test(tc, vec_train_allgather_chain);
    tcase_add_test(tc, vec_train_a2a_key);
    tcase_add_test(tc, vec_train_late_lists);
    tcase_add_test(tc, vec_train_direct_order);
    tcase_add_test(tc, vec_train_direct_order_switch);
    tcase_add_test(tc, vec_train_hd_order);
    suite_add_tcase(s, tc);
    return s;
}

/* Check suite for training replays: hand-traced iterations (overlap, blocking, priorities,
 * the ideal network), one collective equal to themis run, and the error paths. */
#include <stdlib.h>
#include <string.h>

#include "check_themis.h"
#include "themis/train.h"

static th_workload *load_wl(const char *name) {
    th_workload *wl;
    th_error err = {0};
    ck_assert_msg(th_workload_load(test_data(name), &wl, &err) == TH_OK, "%s", err.msg);
    return wl;
}

static th_system load_sys(const char *name) {
    th_system s;
    th_error err = {0};
    ck_assert_msg(th_system_load(test_data(name), &s, &err) == TH_OK, "%s", err.msg);
    return s;
}

static th_train_opts opts(th_policy p, th_intra q, th_priority prio) {
    th_train_opts o = {0};
    o.policy = p, o.intra = q, o.priority = prio;
    o.model = TH_LOAD_ALPHA_BETA;
    o.iterations = 3;
    return o;
}

static th_train_result run(const th_system *s, const th_workload *wl, th_train_opts o) {
    th_train_result r;
    th_error err = {0};
    ck_assert_msg(th_train_run(s, wl, &o, NULL, NULL, &r, &err) == TH_OK, "%s", err.msg);
    return r;
}

/* Two data-parallel layers on one ring of 4 (100 GB/s, 10 ns), one chunk per All-Reduce:
 * AR(1e6) = 2 (10*3 + 1e6*3/400) = 2 * 7530; AR(2e6) = 2 * (30 + 15000) = 2 * 15030.
 * Iteration: F0 1000, F1 2000, IG1 1000, WG1 1500 -> AR1, IG0 500, WG0 800 -> AR0.
 * Compute 6800 ns. */
START_TEST(two_layer_lifo) {
    th_system s = load_sys("cli_ring4.json");
    th_workload *wl = load_wl("wl_two_layer.json");
    th_train_result r = run(&s, wl, opts(TH_POLICY_BASELINE, TH_INTRA_FIFO, TH_PRIO_LIFO));
    /* it 0: AR1 issued 5500: RS 5500-20530; AR0 issued 6800 waits. At 20530 lifo prefers
     * AR0 (newer): RS 20530-28060, AG 28060-35590; AR1's AG 35590-50620.
     * it 1 starts when AR0 is done: S1 = 35590; F1 waits for AR1: 50620-52620; IG1 -53620,
     * WG1 -55120 (AR1' issued), IG0 -55620, WG0 -56420 (AR0' issued). AR1' RS 55120-70150,
     * AR0' RS 70150-77680, AG 77680-85210; AR1' AG 85210-100240. S2 = 85210.
     * Iteration = 85210 - 35590 = 49620; exposed = 49620 - 6800 = 42820. */
    ck_assert_rel(r.iteration, 49620);
    ck_assert_rel(r.compute, 6800);
    ck_assert_rel(r.exposed, 42820);
    ck_assert_int_eq(r.ncolls, 2);
    /* In issue order, relative to S1: AR1' 55120-100240, AR0' 56420-85210. */
    ck_assert_int_eq(r.colls[0].layer, 1);
    ck_assert_rel(r.colls[0].issue, 55120 - 35590);
    ck_assert_rel(r.colls[0].end, 100240 - 35590);
    ck_assert_int_eq(r.colls[1].layer, 0);
    ck_assert_rel(r.colls[1].issue, 56420 - 35590);
    ck_assert_rel(r.colls[1].end, 85210 - 35590);
    ck_assert_int_eq(r.colls[1].blocking, 0);
    th_train_result_free(&r);
    th_workload_free(wl);
}
END_TEST

START_TEST(two_layer_fifo) {
    th_system s = load_sys("cli_ring4.json");
    th_workload *wl = load_wl("wl_two_layer.json");
    th_train_result r = run(&s, wl, opts(TH_POLICY_BASELINE, TH_INTRA_FIFO, TH_PRIO_FIFO));
    /* Older first: AR1 5500-35560, AR0 35560-50620 = S1. F0 50620-51620, F1 -53620 (AR1 was
     * done), IG1 -54620, WG1 -56120 (AR1'), IG0 -56620, WG0 -57420 (AR0'). AR1' 56120-86180,
     * AR0' 86180-101240 = S2. Iteration = 101240 - 50620 = 50620. */
    ck_assert_rel(r.iteration, 50620);
    ck_assert_rel(r.exposed, 50620 - 6800);
    th_train_result_free(&r);
    th_workload_free(wl);
}
END_TEST

START_TEST(two_layer_ideal) {
    th_system s = load_sys("cli_ring4.json");
    th_workload *wl = load_wl("wl_two_layer.json");
    th_train_result r = run(&s, wl, opts(TH_POLICY_IDEAL, TH_INTRA_FIFO, TH_PRIO_LIFO));
    /* Ideal: bytes / B, no latency: AR(1e6) = 2e6*3/4 / 100 = 15000, AR(2e6) = 30000, newer
     * first and preemptive. it 0: AR1 5500-6800 (1300 done), AR0 6800-21800, AR1 21800-50500.
     * S1 = 21800 (F0 needs AR0); F1 at 50500-52500, IG1 -53500, WG1 -55000 (AR1'), IG0 -55500,
     * WG0 -56300 (AR0'). AR1' 55000-56300, AR0' 56300-71300 = S2, AR1' 71300-100000.
     * Iteration = 71300 - 21800 = 49500. */
    ck_assert_rel(r.iteration, 49500);
    th_train_result_free(&r);
    th_workload_free(wl);
}
END_TEST

/* wl_rs_ag.json on two rings of 4 (100 GB/s, 10 ns, P = 16), no compute: a blocking RS of
 * S = 1.6e6 over dims [0, 1] in 2 chunks (the collective's own, not the workload's 64), then a
 * blocking AG of S over dim [1] alone in 1 chunk; an iteration is RS + AG.
 * Emulator, baseline: RS chunks of c = 8e5 visit dim 0 (m = c: 3*10 + 8e5*3/400 = 6030) then
 * dim 1 (m = c/4 = 2e5: 30 + 2e5*3/400 = 1530): c0 dim0 0-6030, c1 dim0 6030-12060, c0 dim1
 * 6030-7560, c1 dim1 12060-13590. AG on dim 1, m = S: 30 + 1.6e6*3/400 = 12030.
 * Iteration = 13590 + 12030 = 25620. */
START_TEST(chunks_and_dim_lists) {
    th_system s = load_sys("wl_2d_ring.json");
    th_workload *wl = load_wl("wl_rs_ag.json");
    const th_wl_coll *rs = &wl->layers[0].ph[TH_PHASE_FWD].coll;
    const th_wl_coll *ag = &wl->layers[0].ph[TH_PHASE_IG].coll;
    ck_assert(rs->sel == TH_SEL_LIST && rs->mask == 3u && rs->chunks == 2);
    ck_assert(ag->sel == TH_SEL_LIST && ag->mask == 2u && ag->chunks == 1);
    th_train_result r = run(&s, wl, opts(TH_POLICY_BASELINE, TH_INTRA_FIFO, TH_PRIO_LIFO));
    ck_assert_rel(r.iteration, 25620);
    ck_assert_rel(r.compute, 0);
    ck_assert_int_eq(r.ncolls, 2);
    ck_assert_int_eq(r.colls[0].type, TH_COLL_REDUCESCATTER);
    ck_assert_uint_eq(r.colls[0].mask, 3u);
    ck_assert_rel(r.colls[0].end - r.colls[0].issue, 13590);
    ck_assert_int_eq(r.colls[1].type, TH_COLL_ALLGATHER);
    ck_assert_uint_eq(r.colls[1].mask, 2u);
    ck_assert_rel(r.colls[1].end - r.colls[1].issue, 12030);
    th_train_result_free(&r);
    th_workload_free(wl);
}
END_TEST

/* The ideal network on RS and AG (bytes / summed bandwidth of the collective's dims, no
 * latency): RS over dims [0, 1], P = 16: S (1 - 1/16) / 200 = 1.5e6 / 200 = 7500; AG over dim
 * [1], p = 4: S (1 - 1/4) / 100 = 1.2e6 / 100 = 12000. Iteration = 19500. */
START_TEST(ideal_rs_ag) {
    th_system s = load_sys("wl_2d_ring.json");
    th_workload *wl = load_wl("wl_rs_ag.json");
    th_train_result r = run(&s, wl, opts(TH_POLICY_IDEAL, TH_INTRA_FIFO, TH_PRIO_LIFO));
    ck_assert_rel(r.iteration, 19500);
    ck_assert_int_eq(r.ncolls, 2);
    ck_assert_rel(r.colls[0].end - r.colls[0].issue, 7500);
    ck_assert_rel(r.colls[1].end - r.colls[1].issue, 12000);
    th_train_result_free(&r);
    th_workload_free(wl);
}
END_TEST

/* One blocking collective and no compute: an iteration is exactly that collective, and it
 * equals themis run for every pair (issued at 0 in the first iteration). */
START_TEST(single_collective_equals_run) {
    th_system s;
    th_system_default(&s);
    th_workload *wl = load_wl("wl_single_ar.json");
    th_runner *rr = th_runner_create();
    th_collective c = {TH_COLL_ALLREDUCE, 1073741824.0, 64, 0};
    for (int p = 0; p < 3; p++)
        for (int q = 0; q < 2; q++) {
            th_result want;
            th_error err = {0};
            ck_assert_int_eq(th_run_eval(rr, &s, &c, (th_pair){(th_policy)p, (th_intra)q},
                                         TH_LOAD_ALPHA_BETA, NULL, NULL, &want, &err),
                             TH_OK);
            th_train_opts o = opts((th_policy)p, (th_intra)q, TH_PRIO_LIFO);
            o.iterations = 2;
            th_train_result r = run(&s, wl, o);
            /* S0 = 0, the collective runs 0..T, S1 = T: the period is T exactly. */
            ck_assert_msg(r.iteration == want.time, "pair %d/%d: %.17g vs %.17g", p, q, r.iteration,
                          want.time);
            ck_assert(r.colls[0].end - r.colls[0].issue == want.time);
            th_train_result_free(&r);
        }
    /* The ideal network: the run's ideal time (bytes / summed bandwidth). */
    th_result want;
    th_error err = {0};
    ck_assert_int_eq(th_run_eval(rr, &s, &c, (th_pair){TH_POLICY_BASELINE, TH_INTRA_FIFO},
                                 TH_LOAD_ALPHA_BETA, NULL, NULL, &want, &err),
                     TH_OK);
    th_train_result r = run(&s, wl, opts(TH_POLICY_IDEAL, TH_INTRA_FIFO, TH_PRIO_LIFO));
    ck_assert_rel(r.iteration, want.ideal);
    th_train_result_free(&r);
    th_runner_free(rr);
    th_workload_free(wl);
}
END_TEST

/* Hybrid: the forward All-Reduce over the model-parallel dim 0 blocks the next compute; the
 * weight-gradient All-Reduce runs over the data-parallel dim 1, overlapped. */
START_TEST(hybrid_blocking) {
    th_system s = load_sys("wl_2d_ring.json");
    th_workload *wl = load_wl("wl_hybrid.json");
    th_train_result r = run(&s, wl, opts(TH_POLICY_BASELINE, TH_INTRA_FIFO, TH_PRIO_LIFO));
    /* MP AR(4e5) on dim 0: 2 (30 + 4e5*3/400) = 2 * 3030 = 6060. DP AR(8e5) on dim 1:
     * 2 (30 + 6000) = 12060. it 0: F 0-1000, MP AR 1000-7060 (blocks), IG 7060-8060,
     * WG 8060-9060, DP AR 9060-21120. it 1 waits for it: S1 = 21120; F -22120, MP AR -28180,
     * IG -29180, WG -30180, DP AR 30180-42240 = S2. Iteration = 21120; compute 3000. */
    ck_assert_rel(r.iteration, 21120);
    ck_assert_rel(r.compute, 3000);
    ck_assert_int_eq(r.ncolls, 2);
    ck_assert_int_eq(r.colls[0].mask, 1);
    ck_assert_int_eq(r.colls[0].blocking, 1);
    ck_assert_rel(r.colls[0].end - r.colls[0].issue, 6060);
    ck_assert_int_eq(r.colls[1].mask, 2);
    ck_assert_rel(r.colls[1].end - r.colls[1].issue, 12060);
    th_train_result_free(&r);
    th_workload_free(wl);
}
END_TEST

/* --batch doubles compute and the forward/input-gradient collectives, not the gradients. */
START_TEST(batch_scaling) {
    th_system s = load_sys("wl_2d_ring.json");
    th_workload *wl = load_wl("wl_hybrid.json");
    th_train_opts o = opts(TH_POLICY_BASELINE, TH_INTRA_FIFO, TH_PRIO_LIFO);
    o.batch = 2;
    th_train_result r = run(&s, wl, o);
    /* F 2000, MP AR(8e5) = 12060, IG 2000, WG 2000, DP AR(8e5) 12060:
     * it 0: 0-2000, -14060, -16060, -18060, DP -30120 = S1; period 30120. */
    ck_assert_rel(r.iteration, 30120);
    ck_assert_rel(r.compute, 6000);
    th_train_result_free(&r);
    th_workload_free(wl);
}
END_TEST

START_TEST(deterministic_and_global) {
    th_system s;
    th_system_default(&s);
    th_workload *wl = load_wl("wl_two_layer.json");
    th_train_opts o = opts(TH_POLICY_THEMIS, TH_INTRA_SCF, TH_PRIO_LIFO);
    o.chunks = 16;
    th_train_result a = run(&s, wl, o), b = run(&s, wl, o);
    ck_assert(a.iteration == b.iteration);
    o.policy = TH_POLICY_THEMIS_GLOBAL;
    th_train_result g = run(&s, wl, o);
    ck_assert(g.iteration > 0 && g.iteration >= g.compute);
    th_train_result_free(&a);
    th_train_result_free(&b);
    th_train_result_free(&g);
    th_workload_free(wl);
}
END_TEST

START_TEST(errors) {
    th_system s = load_sys("cli_ring4.json");
    th_workload *wl = load_wl("wl_hybrid.json");
    th_error err = {0};
    /* mp_dims 1 on a 1-dim system leaves no data-parallel dim. */
    ck_assert_int_eq(th_workload_check(wl, &s, "wl_hybrid.json", &err), TH_EINPUT);
    ck_assert_ptr_nonnull(strstr(err.msg, "mp_dims"));
    th_train_result r;
    th_train_opts o = opts(TH_POLICY_BASELINE, TH_INTRA_FIFO, TH_PRIO_LIFO);
    ck_assert_int_eq(th_train_run(&s, wl, &o, NULL, NULL, &r, &err), TH_EINPUT);
    th_workload_free(wl);
    wl = load_wl("wl_two_layer.json");
    o.iterations = 1;
    ck_assert_int_eq(th_train_run(&s, wl, &o, NULL, NULL, &r, &err), TH_EINPUT);
    ck_assert_ptr_nonnull(strstr(err.msg, "iterations"));
    o.iterations = 3;
    th_system astra = load_sys("astra_2d.json");
    /* the preset: the check names the field, a run names the system too */
    ck_assert_int_eq(th_train_check_system(&s, &err), TH_OK);
    ck_assert_int_eq(th_train_check_system(&astra, &err), TH_EINPUT);
    ck_assert_msg(strstr(err.msg, "model: the astra-sim preset runs single collectives here") ==
                      err.msg,
                  "%s", err.msg);
    ck_assert_int_eq(th_train_run(&astra, wl, &o, NULL, NULL, &r, &err), TH_EINPUT);
    ck_assert_msg(strstr(err.msg, "system \"astra-2d\": model: the astra-sim preset") == err.msg,
                  "%s", err.msg);
    /* A collective over a dim the system does not have. */
    static const char *bad =
        "{\"parallelism\": \"data\", \"layers\": [{\"forward\": {\"ns\": 1, \"collective\": "
        "{\"type\": \"allreduce\", \"size\": 100, \"dims\": [3]}}, \"input_grad\": {\"ns\": 1},"
        " \"weight_grad\": {\"ns\": 1}}]}";
    th_workload *w2;
    ck_assert_int_eq(th_workload_parse(bad, strlen(bad), "w.json", &w2, &err), TH_OK);
    ck_assert_int_eq(th_workload_check(w2, &s, "w.json", &err), TH_EINPUT);
    ck_assert_msg(strstr(err.msg, "w.json: layers[0].forward.collective") &&
                      strstr(err.msg, "dim 3 does not exist"),
                  "%s", err.msg);
    th_workload_free(w2);
    th_workload_free(wl);
}
END_TEST

/* A compute time that overflows at the batch scale is bad input, not an endless replay:
 * 1e21 ns at the file's batch 1e-300, replayed at batch 1e10, is 1e21 * 1e310 = inf ns. */
START_TEST(infinite_compute) {
    static const char *json =
        "{\"parallelism\": \"data\", \"batch\": 1e-300, \"layers\": [{\"forward\": {\"ns\": "
        "1e21}, \"input_grad\": {\"ns\": 1}, \"weight_grad\": {\"ns\": 1}}]}";
    th_workload *wl;
    th_error err = {0};
    ck_assert_int_eq(th_workload_parse(json, strlen(json), "big.json", &wl, &err), TH_OK);
    th_system s = load_sys("cli_ring4.json");
    th_train_result r;
    static const th_policy pols[] = {TH_POLICY_BASELINE, TH_POLICY_IDEAL};
    for (int i = 0; i < 2; i++) {
        th_train_opts o = opts(pols[i], TH_INTRA_FIFO, TH_PRIO_LIFO);
        o.batch = 1e10;
        ck_assert_int_eq(th_train_run(&s, wl, &o, NULL, NULL, &r, &err), TH_EINPUT);
        ck_assert_msg(strstr(err.msg, "layers[0].forward") && strstr(err.msg, "finite"), "%s",
                      err.msg);
    }
    th_workload_free(wl);
}
END_TEST

/* A stop flag ends a replay ("interrupted"), on the emulator and on the ideal network. */
START_TEST(stop_flag) {
    th_system s = load_sys("cli_ring4.json");
    th_workload *wl = load_wl("wl_two_layer.json");
    atomic_int stop = 1;
    static const th_policy pols[] = {TH_POLICY_THEMIS, TH_POLICY_IDEAL};
    for (int i = 0; i < 2; i++) {
        th_train_opts o = opts(pols[i], TH_INTRA_FIFO, TH_PRIO_LIFO);
        o.stop = &stop;
        th_train_result r;
        th_error err = {0};
        ck_assert_int_eq(th_train_run(&s, wl, &o, NULL, NULL, &r, &err), TH_EINTERNAL);
        ck_assert_str_eq(err.msg, "interrupted");
    }
    th_workload_free(wl);
}
END_TEST

/* Chunking rules (docs/WORKLOADS.md, Chunks), on a workload of chunks 64 and min_chunk_bytes
 * 1e6: capped gives min(N, max(1, floor(size / 1e6))) chunks, astra N whatever the size; a
 * collective's own chunks (here 2) are used as they are. */
START_TEST(chunking_rules) {
    static const char *json =
        "{\"parallelism\": \"data\", \"chunks\": 64, \"min_chunk_bytes\": 1e6, \"layers\": ["
        "{\"forward\": {\"ns\": 1}, \"input_grad\": {\"ns\": 1}, \"weight_grad\": {\"ns\": 1, "
        "\"collective\": {\"type\": \"allreduce\", \"size\": 5e6}}},"
        "{\"forward\": {\"ns\": 1}, \"input_grad\": {\"ns\": 1}, \"weight_grad\": {\"ns\": 1, "
        "\"collective\": {\"type\": \"allreduce\", \"size\": 5e6, \"chunks\": 2}}}]}";
    th_workload *wl;
    th_error err = {0};
    ck_assert_int_eq(th_workload_parse(json, strlen(json), "c.json", &wl, &err), TH_OK);
    ck_assert_int_eq(wl->chunking, TH_CHUNKING_CAPPED); /* the default */
    const th_wl_coll *c = &wl->layers[0].ph[TH_PHASE_WG].coll;
    const th_wl_coll *own = &wl->layers[1].ph[TH_PHASE_WG].coll;
    /* capped: floor(5e6 / 1e6) = 5 < 64; floor(5e5 / 1e6) = 0 -> 1; astra: 64 */
    ck_assert_int_eq(th_workload_chunks(wl, c, 5e6, 0, TH_CHUNKING_CAPPED), 5);
    ck_assert_int_eq(th_workload_chunks(wl, c, 5e5, 0, TH_CHUNKING_CAPPED), 1);
    ck_assert_int_eq(th_workload_chunks(wl, c, 5e6, 0, TH_CHUNKING_ASTRA), 64);
    ck_assert_int_eq(th_workload_chunks(wl, c, 5e5, 0, TH_CHUNKING_ASTRA), 64);
    /* N = 4 given: capped min(4, 5) = 4; N = 8: min(8, 5) = 5; astra 8 */
    ck_assert_int_eq(th_workload_chunks(wl, c, 5e6, 4, TH_CHUNKING_CAPPED), 4);
    ck_assert_int_eq(th_workload_chunks(wl, c, 5e6, 8, TH_CHUNKING_CAPPED), 5);
    ck_assert_int_eq(th_workload_chunks(wl, c, 5e6, 8, TH_CHUNKING_ASTRA), 8);
    ck_assert_int_eq(th_workload_chunks(wl, own, 5e6, 0, TH_CHUNKING_ASTRA), 2);
    ck_assert_int_eq(th_workload_chunks(wl, own, 5e6, 0, TH_CHUNKING_CAPPED), 2);
    /* the rule a replay uses: the option, else astra with -n, else the workload's */
    th_train_opts o = opts(TH_POLICY_BASELINE, TH_INTRA_FIFO, TH_PRIO_LIFO);
    ck_assert_int_eq(th_train_chunking(wl, &o), TH_CHUNKING_CAPPED);
    o.chunks = 8;
    ck_assert_int_eq(th_train_chunking(wl, &o), TH_CHUNKING_ASTRA);
    o.chunking_set = 1, o.chunking = TH_CHUNKING_CAPPED;
    ck_assert_int_eq(th_train_chunking(wl, &o), TH_CHUNKING_CAPPED);
    th_workload_free(wl);
    static const char *astra = "{\"parallelism\": \"data\", \"chunking\": \"astra\", "
                               "\"layers\": [{\"forward\": {\"ns\": 1}, \"input_grad\": {\"ns\": "
                               "1}, \"weight_grad\": {\"ns\": 1}}]}";
    ck_assert_int_eq(th_workload_parse(astra, strlen(astra), "a.json", &wl, &err), TH_OK);
    ck_assert_int_eq(wl->chunking, TH_CHUNKING_ASTRA);
    th_workload_free(wl);
}
END_TEST

/* One chunk of an All-Reduce on the ring of cli_ring4.json (alpha 10 ns, 3 hops, 100 bytes/ns,
 * p = 4): each of RS and AG takes 30 + S * 3 / 400 = 30 + 0.0075 S ns. */
static double ar_half(double s) {
    return 30 + 0.0075 * s;
}

/* DDP buckets of 2e6 bytes (docs/WORKLOADS.md, Buckets) on wl_bucket.json: layers l0..l3 with
 * weight gradients 0.4e6, 3e6, 0.6e6, 0.6e6 bytes; every forward 1000 ns, input_grad 500,
 * weight_grad 1000 (compute 10000 ns); 1 chunk; baseline + FIFO, lifo priority.
 * Buckets, in backward order (l3 first): l3 opens A (0.6e6 < the first limit, min(1 MiB,
 * 2e6) = 1048576); l2 makes A 1.2e6 >= 1048576: A = {l3, l2} closes, issued at the end of
 * wg l2. l1 (3e6) opens B, already >= 2e6: B = {l1} alone. l0 opens C (0.4e6), closed by the
 * end of the backward pass: C = {l0}, issued at the end of wg l0. Three collectives, not four.
 * A = 2 * 9030 (30 + 9000), B = 2 * 22530, C = 2 * 3030.
 * it 0: F 0-4000; IG3 -4500, WG3 -5500, IG2 -6000, WG2 -7000: A issued, RS 7000-16030;
 * IG1 -7500, WG1 -8500: B issued (waits); IG0 -9000, WG0 -10000: C issued (waits).
 * 16030, lifo (newest first): C RS 16030-19060, C AG 19060-22090; B RS 22090-44620,
 * B AG 44620-67150; A AG 67150-76180.
 * it 1: F0 waits for C: S1 = 22090, F0 -23090; F1 waits for B: 67150-68150; F2 and F3 wait for
 * A: F2 76180-77180, F3 -78180; IG3 -78680, WG3 -79680, IG2 -80180, WG2 -81180: A' issued, RS
 * 81180-90210; IG1 -81680, WG1 -82680: B'; IG0 -83180, WG0 -84180: C'. 90210: C' RS -93240,
 * AG -96270 = S2 (F0 of it 2 needs C'). B' RS 96270-118800, AG -141330; A' AG -150360.
 * Iteration = 96270 - 22090 = 74180, exposed 64180. */
START_TEST(ddp_buckets) {
    ck_assert_double_eq(2 * ar_half(1.2e6), 18060);
    th_system s = load_sys("cli_ring4.json");
    th_workload *wl = load_wl("wl_bucket.json");
    th_train_opts o = opts(TH_POLICY_BASELINE, TH_INTRA_FIFO, TH_PRIO_LIFO);
    o.bucket = 2e6;
    ck_assert_double_eq(th_train_bucket(wl, &o), 2e6);
    th_train_result r = run(&s, wl, o);
    ck_assert_rel(r.iteration, 74180);
    ck_assert_rel(r.compute, 10000);
    ck_assert_rel(r.exposed, 64180);
    ck_assert_int_eq(r.ncolls, 3);
    /* A': layer l2 (it completed A), opened by l3, 2 gradients, 1.2e6 bytes */
    static const int layer[3] = {2, 1, 0}, first[3] = {3, 1, 0}, fused[3] = {2, 1, 1};
    static const double size[3] = {1.2e6, 3e6, 4e5};
    static const double issue[3] = {81180, 82680, 84180}, end[3] = {150360, 141330, 96270};
    for (int i = 0; i < 3; i++) {
        ck_assert_int_eq(r.colls[i].layer, layer[i]);
        ck_assert_int_eq(r.colls[i].first_layer, first[i]);
        ck_assert_int_eq(r.colls[i].fused, fused[i]);
        ck_assert_int_eq(r.colls[i].phase, TH_PHASE_WG);
        ck_assert_rel(r.colls[i].size, size[i]);
        ck_assert_rel(r.colls[i].issue, issue[i] - 22090);
        ck_assert_rel(r.colls[i].end, end[i] - 22090);
    }
    th_train_result_free(&r);
    /* 4e6: A = {l3, l2} as before (first limit 1 MiB); l1 opens B (3e6 < 4e6), l0 joins it
     * (3.4e6 < 4e6) and the backward pass closes it: 2 collectives, B = 3.4e6 at the end of wg
     * l0. Off (< 0): every gradient alone, 4. */
    o.bucket = 4e6;
    r = run(&s, wl, o);
    ck_assert_int_eq(r.ncolls, 2);
    ck_assert_int_eq(r.colls[1].layer, 0);
    ck_assert_int_eq(r.colls[1].first_layer, 1);
    ck_assert_int_eq(r.colls[1].fused, 2);
    ck_assert_rel(r.colls[1].size, 3.4e6);
    th_train_result_free(&r);
    o.bucket = -1;
    r = run(&s, wl, o);
    ck_assert_int_eq(r.ncolls, 4);
    ck_assert_int_eq(r.colls[0].fused, 1);
    th_train_result_free(&r);
    th_workload_free(wl);
}
END_TEST

/* Each dims mask has its own buckets (one DDP process group each): wl_bucket_masks.json on two
 * rings (wl_2d_ring.json), gradients of 0.6e6 bytes: m2 over dim 1, m1 over both dims, m0 over
 * dim 1. Backward order m2, m1, m0: m2 opens A (dim 1); m1 opens B (both dims); m0 joins A,
 * 1.2e6 >= the first limit 1048576: A = {m2, m0}, issued by m0; B = {m1} closes with the pass.
 * The iteration issues B (at wg m1), then A (at wg m0). */
START_TEST(bucket_per_mask) {
    th_system s = load_sys("wl_2d_ring.json");
    th_workload *wl = load_wl("wl_bucket_masks.json");
    th_train_opts o = opts(TH_POLICY_BASELINE, TH_INTRA_FIFO, TH_PRIO_LIFO);
    o.bucket = 2e6;
    th_train_result r = run(&s, wl, o);
    ck_assert_int_eq(r.ncolls, 2);
    ck_assert_int_eq(r.colls[0].layer, 1);
    ck_assert_int_eq(r.colls[0].fused, 1);
    ck_assert_uint_eq(r.colls[0].mask, 3u);
    ck_assert_int_eq(r.colls[1].layer, 0);
    ck_assert_int_eq(r.colls[1].first_layer, 2);
    ck_assert_int_eq(r.colls[1].fused, 2);
    ck_assert_uint_eq(r.colls[1].mask, 2u);
    ck_assert_rel(r.colls[1].size, 1.2e6);
    th_train_result_free(&r);
    th_workload_free(wl);
}
END_TEST

/* A gradient larger than a bucket closes the bucket it joins: bucket 1e6 (first limit
 * min(1 MiB, 1e6) = 1e6): l3 opens A (0.6e6), l2 makes it 1.2e6 >= 1e6: A = {l3, l2}; l1 alone
 * (3e6); l0 alone, closed by the end of the pass. And the workload key: "bucket_bytes": true
 * is DDP's 25 MiB = 26214400, a size string is a size, 0 none; the option wins over it. */
START_TEST(bucket_keys) {
    th_system s = load_sys("cli_ring4.json");
    th_workload *wl = load_wl("wl_bucket.json");
    th_train_opts o = opts(TH_POLICY_BASELINE, TH_INTRA_FIFO, TH_PRIO_LIFO);
    o.bucket = 1e6;
    th_train_result r = run(&s, wl, o);
    ck_assert_int_eq(r.ncolls, 3);
    ck_assert_int_eq(r.colls[0].fused, 2);
    th_train_result_free(&r);
    th_workload_free(wl);
    static const char *fmt = "{\"parallelism\": \"data\", \"bucket_bytes\": %s, \"layers\": "
                             "[{\"forward\": {\"ns\": 1}, \"input_grad\": {\"ns\": 1}, "
                             "\"weight_grad\": {\"ns\": 1}}]}";
    static const char *vals[] = {"true", "\"2MB\"", "0", "false", "1e6"};
    static const double want[] = {26214400, 2e6, 0, 0, 1e6};
    for (int i = 0; i < 5; i++) {
        char json[512];
        snprintf(json, sizeof json, fmt, vals[i]);
        th_error err = {0};
        ck_assert_msg(th_workload_parse(json, strlen(json), "b.json", &wl, &err) == TH_OK, "%s",
                      err.msg);
        ck_assert_double_eq(wl->bucket_bytes, want[i]);
        th_train_opts q = opts(TH_POLICY_BASELINE, TH_INTRA_FIFO, TH_PRIO_LIFO);
        ck_assert_double_eq(th_train_bucket(wl, &q), want[i]);
        q.bucket = -1;
        ck_assert_double_eq(th_train_bucket(wl, &q), 0);
        q.bucket = 5;
        ck_assert_double_eq(th_train_bucket(wl, &q), 5);
        th_workload_free(wl);
    }
}
END_TEST

/* Earliest layer first (--priority layer) on wl_fwd_async.json: two layers whose forwards end
 * with a non-blocking All-Reduce of 1e6 bytes (A0, A1: RS and AG 30 + 7500 = 7530 ns each on
 * cli_ring4.json, 1 chunk); every phase 1000 ns, compute 6000 ns.
 * layer: it 0: A0 RS 1000-8530; A1 issued 2000. At 8530 A0's AG (layer 0) before A1's RS:
 * A0 AG -16060; A1 RS -23590. S1 = 16060 (F0 waits for A0); F0 -17060: A0' issued. At 23590
 * A0' (layer 0) before A1's AG: A0' RS -31120, AG -38650; A1 AG -46180. F1 46180-47180: A1'
 * RS 47180-54710; IG1, WG1, IG0, WG0 -51180 = S2 (A0' done). Iteration 35120.
 * lifo: it 0: A0 RS 1000-8530; A1 RS -16060, AG -23590; A0 AG -31120 = S1. F0 -32120: A0' RS
 * -39650; F1 32120-33120: A1'; ... WG0 -37120. At 39650 A1' (newer): RS -47180, AG -54710;
 * A0' AG -62240 = S2. Iteration 31120.
 * fifo: A0 1000-16060 = S1, A1 -31120; F0 -17060: A0'; F1 31120-32120 (A1 done): A1'; A0'
 * 31120-46180 = S2 (WG0 ended 36120). Iteration 30120. */
START_TEST(layer_priority) {
    th_system s = load_sys("cli_ring4.json");
    th_workload *wl = load_wl("wl_fwd_async.json");
    static const th_priority prio[3] = {TH_PRIO_LAYER, TH_PRIO_LIFO, TH_PRIO_FIFO};
    static const double want[3] = {35120, 31120, 30120};
    for (int i = 0; i < 3; i++) {
        th_train_result r = run(&s, wl, opts(TH_POLICY_BASELINE, TH_INTRA_FIFO, prio[i]));
        ck_assert_rel(r.iteration, want[i]);
        ck_assert_rel(r.compute, 6000);
        th_train_result_free(&r);
    }
    th_workload_free(wl);
    /* In a data-parallel backward pass the newest weight gradient is always the lowest layer
     * in flight, so layer gives lifo's times (wl_two_layer: 49620 ns on the emulator, 49500
     * on the ideal network; hand-traced above). */
    wl = load_wl("wl_two_layer.json");
    th_train_result r = run(&s, wl, opts(TH_POLICY_BASELINE, TH_INTRA_FIFO, TH_PRIO_LAYER));
    ck_assert_rel(r.iteration, 49620);
    th_train_result_free(&r);
    r = run(&s, wl, opts(TH_POLICY_IDEAL, TH_INTRA_FIFO, TH_PRIO_LAYER));
    ck_assert_rel(r.iteration, 49500);
    th_train_result_free(&r);
    th_workload_free(wl);
    th_priority p;
    ck_assert_int_eq(th_priority_from_name("layer", &p), 0);
    ck_assert_int_eq(p, TH_PRIO_LAYER);
    ck_assert_str_eq(th_priority_name(TH_PRIO_LAYER), "layer");
}
END_TEST

/* The ideal network with latency floors (ideal_latency): a collective's bytes move as on the
 * ideal network, then it ends after its latency floor, alpha * L per stage of one chunk on its
 * critical path (RS and AG for an All-Reduce: 2 * 10 * 3 = 60 ns on cli_ring4.json); its dims
 * are free for the others meanwhile.
 * wl_two_layer (two_layer_ideal's trace): AR1 5500-6800 (1300 done); AR0 6800-21800, ends
 * 21860; AR1 resumes 21800, bytes done 50500, ends 50560. S1 = 21860; F0 -22860; F1 50560-
 * 52560, IG1 -53560, WG1 -55060 (AR1'), IG0 -55560, WG0 -56360 (AR0'). AR1' 55060-56360;
 * AR0' 56360-71360, ends 71420 = S2. Iteration 71420 - 21860 = 49560.
 * wl_single_ar (one blocking 1 GiB All-Reduce): 0.015 S + 60 = 16106187.36 ns, exactly the
 * emulator's one-chunk time on one dim (test_cli_train.c train_chunks). */
START_TEST(ideal_latency_floor) {
    th_system s = load_sys("cli_ring4.json");
    th_workload *wl = load_wl("wl_two_layer.json");
    th_train_opts o = opts(TH_POLICY_IDEAL, TH_INTRA_FIFO, TH_PRIO_LIFO);
    o.ideal_latency = 1;
    th_train_result r = run(&s, wl, o);
    ck_assert_rel(r.iteration, 49560);
    ck_assert_rel(r.colls[1].end - r.colls[1].issue, 71420 - 56360);
    th_train_result_free(&r);
    o.ideal_latency = 0; /* the paper's ideal: no latency (two_layer_ideal) */
    r = run(&s, wl, o);
    ck_assert_rel(r.iteration, 49500);
    th_train_result_free(&r);
    th_workload_free(wl);
    wl = load_wl("wl_single_ar.json");
    o.ideal_latency = 1;
    r = run(&s, wl, o);
    ck_assert_rel(r.iteration, 16106187.36);
    th_train_result_free(&r);
    th_train_opts e = opts(TH_POLICY_BASELINE, TH_INTRA_FIFO, TH_PRIO_LIFO);
    e.chunks = 1;
    r = run(&s, wl, e);
    ck_assert_rel(r.iteration, 16106187.36);
    th_train_result_free(&r);
    th_workload_free(wl);
}
END_TEST

Suite *train_suite(void) {
    Suite *s = suite_create("train");
    TCase *tc = tcase_create("train");
    tcase_add_test(tc, two_layer_lifo);
    tcase_add_test(tc, two_layer_fifo);
    tcase_add_test(tc, two_layer_ideal);
    tcase_add_test(tc, chunking_rules);
    tcase_add_test(tc, ddp_buckets);
    tcase_add_test(tc, bucket_keys);
    tcase_add_test(tc, bucket_per_mask);
    tcase_add_test(tc, layer_priority);
    tcase_add_test(tc, ideal_latency_floor);
    tcase_add_test(tc, single_collective_equals_run);
    tcase_add_test(tc, hybrid_blocking);
    tcase_add_test(tc, batch_scaling);
    tcase_add_test(tc, deterministic_and_global);
    tcase_add_test(tc, errors);
    tcase_add_test(tc, infinite_compute);
    tcase_add_test(tc, stop_flag);
    tcase_add_test(tc, chunks_and_dim_lists);
    tcase_add_test(tc, ideal_rs_ag);
    suite_add_tcase(s, tc);
    return s;
}

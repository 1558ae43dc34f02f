/* The search over LLM executions (docs/LLM.md, The search): the executions it enumerates,
 * counted by hand; the memory it drops, derived by hand; its best K against a brute-force loop
 * over th_llm_eval written here (the definition of the answer, not a copy of the search);
 * its order, determinism and errors.
 *
 * The small model (tests/data/llm_model_small.json): L = 2 layers, h = 64, a = 4 heads,
 * f = 4h = 256, s = 128, V = 1000; 2 bytes per parameter and activation. The system
 * (tests/data/search_sys_2d.json): a ring of 4 inside a switch of 4, N = 16 NPUs of 0.001 GiB
 * = 1073741.824 bytes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_themis.h"
#include "themis/llm_search.h"
#include "themis/run.h"

static void load(const char *wl, th_llm_workload *w, th_system *sys) {
    th_error err;
    th_run_defaults d;
    int is_wl;
    ck_assert_msg(th_llm_load_any(test_data(wl), w, &is_wl, &err) == TH_OK, "%s", err.msg);
    ck_assert_msg(th_run_load_system(test_data("search_sys_2d.json"), sys, &d, &err) == TH_OK, "%s",
                  err.msg);
}

static th_llm_search_opts opts_of(const th_llm_workload *w, int64_t batch, int top) {
    th_llm_search_opts o;
    memset(&o, 0, sizeof o);
    o.base = w->exec;
    o.base.global_batch = batch;
    o.policy = TH_POLICY_THEMIS;
    o.intra = TH_INTRA_SCF;
    o.top = top;
    return o;
}

static void search(const th_system *sys, const th_llm_model *m, const th_llm_search_opts *o,
                   th_llm_search_result *r) {
    th_error err;
    ck_assert_msg(th_llm_search(sys, m, o, r, &err) == TH_OK, "%s", err.msg);
}

/* The whole space at global batch B = 16. tp divides N and the 4 heads: 1, 2, 4; pp divides
 * N / tp and the 2 layers: 1, 2; dp = N / (tp pp) divides B. Per (tp, pp, dp): micro-batches
 * (divisors of B / dp) x schedules (pp 1: one; pp 2: gpipe and 1f1b, no interleaving, as
 * L / pp = 1 layer has no v >= 2) x sequence parallelism (tp 1: off only; else 2) x 3
 * recomputations x 4 shardings (every dp >= 2) x the distinct mappings onto ring 4 x switch 4
 * (groups of one NPU take nothing; a group fills the dims innermost first):
 *   (1,1,16): 1 x 1 x 1 x 3 x 4 x 1 (dp over both dims)                        =  12
 *   (1,2,8):  2 x 2 x 1 x 3 x 4 x 2 (pp first: pp 2 of the ring, dp 2 + 4;
 *                                    dp first: dp 4 + 2, pp 2 of the switch)     =  96
 *   (2,1,8):  2 x 1 x 2 x 3 x 4 x 2 (as above with tp)                          =  96
 *   (2,2,4):  3 x 2 x 2 x 3 x 4 x 4 (tp, pp in the ring, dp the switch; tp ring,
 *                                    dp 2 + 2, pp switch; dp ring, tp and pp the
 *                                    switch; pp ring, dp 2 + 2, tp switch: the
 *                                    other two orders repeat a placement)        = 576
 *   (4,1,4):  3 x 1 x 2 x 3 x 4 x 2 (tp ring, dp switch; or the reverse)         = 144
 *   (4,2,2):  4 x 2 x 2 x 3 x 4 x 4 (tp ring, pp and dp switch; pp 2 + tp 2 in
 *                                    the ring, tp 2 + dp 2 in the switch; pp, dp
 *                                    ring, tp switch; dp, tp 2 ring, tp 2, pp
 *                                    switch)                                     = 768
 * 12 + 96 + 96 + 576 + 144 + 768 = 1692. */
START_TEST(search_count) {
    th_llm_workload w;
    th_system sys;
    load("llm_model_small.json", &w, &sys);
    th_llm_search_opts o = opts_of(&w, 16, 1);
    th_llm_search_result r;
    search(&sys, &w.model, &o, &r);
    ck_assert_double_eq(r.enumerated, 1692);
    ck_assert(r.feasible > 0 && r.feasible < r.enumerated); /* the memory drops some */
    ck_assert(r.evaluated >= 1 && r.evaluated <= r.bounded && r.bounded <= r.feasible);
    ck_assert_int_eq(r.n, 1);
    th_llm_search_result_free(&r);
    /* B = 8: dp 16 no longer divides it; (1,2,8), (2,1,8): 1 micro-batch size each,
     * (2,2,4), (4,1,4): 2 (1, 2); (4,2,2): 3 (1, 2, 4):
     * 48 + 48 + 384 + 96 + 576 = 1152 */
    o.base.global_batch = 8;
    search(&sys, &w.model, &o, &r);
    ck_assert_double_eq(r.enumerated, 1152);
    th_llm_search_result_free(&r);
}
END_TEST

/* On 4 of the 16 NPUs (the groups fill the ring of 4, so each (tp, pp, dp) has one placement),
 * B = 16: (tp, pp, dp) = (1,1,4), (1,2,2), (2,1,2), (2,2,1), (4,1,1); micro-batches dividing
 * B / dp: 3, 4, 4, 5, 5; schedules: pp 2: 2; sequence parallelism: tp > 1: 2; 3
 * recomputations; shardings: dp > 1: 4, dp 1: 1:
 *   3 x 1 x 1 x 3 x 4 = 36; 4 x 2 x 1 x 3 x 4 = 96; 4 x 1 x 2 x 3 x 4 = 96;
 *   5 x 2 x 2 x 3 x 1 = 60; 5 x 1 x 2 x 3 x 1 = 30: 318. */
START_TEST(search_count_npus) {
    th_llm_workload w;
    th_system sys;
    load("llm_model_small.json", &w, &sys);
    th_llm_search_opts o = opts_of(&w, 16, 3);
    o.npus = 4;
    th_llm_search_result r;
    search(&sys, &w.model, &o, &r);
    ck_assert_double_eq(r.enumerated, 318);
    for (int i = 0; i < r.n; i++)
        ck_assert_int_eq(r.best[i].x.tp * r.best[i].x.pp * r.best[i].x.dp, 4);
    th_llm_search_result_free(&r);
    th_error err;
    o.npus = 17; /* more than the system has */
    ck_assert_int_eq(th_llm_search(&sys, &w.model, &o, &r, &err), TH_EINPUT);
    ck_assert_msg(strstr(err.msg, "npus: expected an integer from 1 to 16"), "%s", err.msg);
}
END_TEST

/* Expert parallelism: the small model with 4 experts in every layer, tp = pp = 1 kept (dp =
 * 16), B = 16 (one micro-batch size). ep divides dp and the 4 experts: 1, 2, 4; the groups
 * are ep and the rest of dp (dp / ep): ep 1: dp over both dims (1 mapping); ep 2: ep in the
 * ring then dp 2 + 4, or dp 4 + 2 then ep in the switch (2); ep 4: ep ring, dp switch, or the
 * reverse (2): 5 placements x 3 recomputations x 4 shardings = 60. */
START_TEST(search_count_moe) {
    th_llm_workload w;
    th_system sys;
    load("llm_model_small.json", &w, &sys);
    w.model.experts = 4, w.model.top_k = 1, w.model.expert_ffn = 256, w.model.moe_every = 1;
    th_llm_search_opts o = opts_of(&w, 16, 1);
    o.base.tp = o.base.pp = 1;
    o.fixed = 1u << TH_LLM_KEY_TP | 1u << TH_LLM_KEY_PP;
    th_llm_search_result r;
    search(&sys, &w.model, &o, &r);
    ck_assert_double_eq(r.enumerated, 60);
    th_llm_search_result_free(&r);
}
END_TEST

/* tests/data/search_fixed.json keeps tp 1, pp 1, dp 16, micro-batch 1 and the mapping: 3
 * recomputations x 4 shardings = 12. Per NPU (th_llm_memory): parameters d = 2 (16384 +
 * 256 + 32768) + 64000 + 128 = 162944 (layers, embedding, final norm); sharded: d / 16 =
 * 10184.
 *   weights     2 d = 325888, ZeRO-3 20368;
 *   gradients   2 d = 325888, ZeRO-2 and 3 20368;
 *   optimizer  12 d = 1955328, sharded 122208;
 *   W + G + O: none 2607104, optimizer 773984, gradients 468464, weights 162944.
 * Activations of one micro-batch (pp 1), sbh = 128 x 64 = 8192 per layer, 2 layers:
 *   none: (4A + 2) sbh + A (2 + 2) sbh + 2 A s b f + (2A + 1) a s^2 b
 *       = 81920 + 65536 + 131072 + 327680 = 606208, x 2 = 1212416;
 *   selective (no attention core): 606208 - 327680 = 278528, x 2 = 557056;
 *   full (the layer's input): A sbh = 16384, x 2 = 32768.
 * Totals against 1073741.824 bytes:
 *   none:      3819520 1986400 1680880 1375360  (none fit)
 *   selective: 3164160 1331040 1025520  720000  (gradients, weights fit)
 *   full:      2639872  806752  501232  195712  (optimizer, gradients, weights fit)
 * 5 of 12 fit. */
START_TEST(search_memory) {
    th_llm_workload w;
    th_system sys;
    load("search_fixed.json", &w, &sys);
    th_llm_search_opts o = opts_of(&w, 16, 12);
    for (int k = 0; k < TH_LLM_KEYS; k++)
        if (k != TH_LLM_KEY_RECOMPUTE && k != TH_LLM_KEY_SHARDING) o.fixed |= 1u << k;
    th_llm_search_result r;
    search(&sys, &w.model, &o, &r);
    ck_assert_double_eq(r.enumerated, 12);
    ck_assert_double_eq(r.feasible, 5);
    ck_assert_int_eq(r.n, 5); /* K = 12: every feasible one */
    static const double total[3][4] = {{3819520, 1986400, 1680880, 1375360},
                                       {3164160, 1331040, 1025520, 720000},
                                       {2639872, 806752, 501232, 195712}};
    int seen = 0;
    for (int i = 0; i < r.n; i++) {
        const th_llm_exec *x = &r.best[i].x;
        ck_assert_int_eq(x->tp, 1);
        ck_assert_int_eq(x->dp, 16);
        ck_assert_rel(r.best[i].r.mem.total, total[x->recompute][x->sharding]);
        ck_assert(total[x->recompute][x->sharding] <= 1073741.824);
        seen |= 1 << (x->recompute * 4 + x->sharding);
        if (i) ck_assert(r.best[i - 1].r.iteration <= r.best[i].r.iteration);
    }
    ck_assert_int_eq(seen, 1 << 6 | 1 << 7 | 1 << 9 | 1 << 10 | 1 << 11);
    th_llm_search_result_free(&r);
}
END_TEST

/* The answer by definition: every combination of the keys (every ep, every one of the 24 orders of
 * the groups, every schedule whatever pp), valid when th_llm_check and th_llm_map_groups accept it,
 * kept when th_llm_memory fits, timed by th_llm_eval, sorted by (time, key). Equivalent executions
 * are one, the first in the key order standing for them: with pp 1 every schedule runs alike
 * (GPipe), with tp 1 there is nothing to split (sequence parallelism off), with dp 1 nothing to
 * shard (none), and orders of the groups that give the same placement (th_llm_map_groups) are one.
 */
typedef struct brute_row {
    th_llm_exec x;
    th_llm_result r;
} brute_row;

static int cmp_row(const void *a, const void *b) {
    const brute_row *x = a, *y = b;
    if (x->r.iteration != y->r.iteration) return x->r.iteration < y->r.iteration ? -1 : 1;
    return th_llm_exec_cmp(&x->x, &y->x);
}

/* Whether no order of the groups before x's (lexicographically) places them as x's does. */
static int first_order(const th_system *sys, const th_llm_exec *x, const th_llm_map *map) {
    for (int o = 0; o < 256; o++) {
        th_llm_exec y = *x;
        int used = 0;
        for (int k = 0; k < 4; k++) {
            y.mapping[k] = (o >> (2 * (3 - k))) & 3; /* mapping[0] the most significant */
            used |= 1 << y.mapping[k];
        }
        int k = 0;
        while (k < 4 && y.mapping[k] == x->mapping[k])
            k++;
        if (used != 15 || k == 4 || y.mapping[k] > x->mapping[k]) continue; /* not before */
        th_llm_map m2;
        th_error e;
        if (!th_llm_map_groups(sys, &y, &m2, &e) && !memcmp(&m2, map, sizeof m2)) return 0;
    }
    return 1;
}

static brute_row *brute(const th_system *sys, const th_llm_model *m, const th_llm_exec *base,
                        th_policy policy, th_intra intra, int *nrows) {
    int cap = 1024, n = 0;
    brute_row *rows = malloc(sizeof *rows * (size_t)cap);
    th_llm_ctx *ctx = th_llm_ctx_create();
    ck_assert(rows && ctx);
    const int64_t npus = 16, batch = base->global_batch;
    for (int64_t tp = 1; tp <= npus; tp++)
        for (int64_t pp = 1; tp * pp <= npus; pp++) {
            if (npus % (tp * pp)) continue;
            int64_t dp = npus / (tp * pp);
            for (int64_t ep = 1; ep <= dp; ep++)
                for (int64_t mb = 1; mb <= batch; mb++)
                    for (int s = 0; s < 3; s++)
                        for (int64_t v = 1; v <= m->layers; v++)
                            for (int sp = 0; sp < 2; sp++)
                                for (int rc = 0; rc < 3; rc++)
                                    for (int z = 0; z < 4; z++)
                                        for (int o = 0; o < 256; o++) {
                                            th_llm_exec x = *base;
                                            x.tp = tp, x.pp = pp, x.dp = dp, x.ep = ep;
                                            x.micro_batch = mb;
                                            x.schedule = (th_llm_schedule)s;
                                            x.virtual_stages = v;
                                            x.sequence_parallel = sp;
                                            x.recompute = (th_llm_recompute)rc;
                                            x.sharding = (th_llm_sharding)z;
                                            int used = 0;
                                            for (int k = 0; k < 4; k++) {
                                                x.mapping[k] = (o >> (2 * k)) & 3;
                                                used |= 1 << x.mapping[k];
                                            }
                                            /* an order of the four groups; interleaving needs
                                             * v >= 2 (v = 1 is 1F1B) */
                                            if (used != 15 || (s == TH_LLM_INTERLEAVED && v < 2))
                                                continue;
                                            if ((pp == 1 && (s != TH_LLM_GPIPE || v != 1)) ||
                                                (tp == 1 && sp) || (dp == 1 && z))
                                                continue;
                                            th_error e;
                                            th_llm_map map;
                                            if (th_llm_check(m, &x, "", &e) ||
                                                th_llm_map_groups(sys, &x, &map, &e) ||
                                                !first_order(sys, &x, &map))
                                                continue;
                                            th_llm_mem mem;
                                            th_llm_memory(m, &x, &mem);
                                            if (mem.total > sys->npu.memory_gib * 1073741824.0)
                                                continue;
                                            if (n == cap) {
                                                cap *= 2;
                                                rows = realloc(rows, sizeof *rows * (size_t)cap);
                                                ck_assert(rows);
                                            }
                                            rows[n].x = x;
                                            ck_assert_msg(th_llm_eval(ctx, sys, m, &x, policy,
                                                                      intra, &rows[n].r,
                                                                      &e) == TH_OK,
                                                          "%s", e.msg);
                                            n++;
                                        }
        }
    th_llm_ctx_free(ctx);
    qsort(rows, (size_t)n, sizeof *rows, cmp_row);
    *nrows = n;
    return rows;
}

static void brute_vs_search(th_policy policy, th_intra intra, int top, int experts) {
    th_llm_workload w;
    th_system sys;
    load("llm_model_small.json", &w, &sys);
    if (experts) /* every layer of experts, 2 per token, half as wide as the dense ones */
        w.model.experts = experts, w.model.top_k = 2, w.model.expert_ffn = 128,
        w.model.moe_every = 1;
    th_llm_search_opts o = opts_of(&w, 16, top);
    o.policy = policy, o.intra = intra;
    int n;
    brute_row *rows = brute(&sys, &w.model, &o.base, policy, intra, &n);
    th_llm_search_result r;
    search(&sys, &w.model, &o, &r);
    ck_assert_double_eq(r.feasible, n);
    ck_assert_int_eq(r.n, top);
    ck_assert(r.evaluated < r.feasible); /* the bound dropped some unseen */
    int sharded_experts = 0;
    for (int i = 0; i < n; i++)
        sharded_experts |= rows[i].x.ep > 1;
    ck_assert_int_eq(sharded_experts, experts > 0);
    for (int i = 0; i < top; i++) {
        ck_assert_msg(!th_llm_exec_cmp(&r.best[i].x, &rows[i].x), "rank %d differs", i + 1);
        ck_assert_msg(r.best[i].r.iteration == rows[i].r.iteration, "rank %d: %.17g vs %.17g",
                      i + 1, r.best[i].r.iteration, rows[i].r.iteration);
        ck_assert(!memcmp(&r.best[i].r.mem, &rows[i].r.mem, sizeof rows[i].r.mem));
    }
    free(rows);
    th_llm_search_result_free(&r);
}

START_TEST(search_brute_force) {
    brute_vs_search(TH_POLICY_THEMIS, TH_INTRA_SCF, 8, 0);
    brute_vs_search(TH_POLICY_BASELINE, TH_INTRA_FIFO, 3, 0);
    brute_vs_search(TH_POLICY_THEMIS, TH_INTRA_SCF, 8, 4); /* expert parallelism too */
}
END_TEST

/* The same search twice gives the same bytes; K = 1 is the first of K = 20. */
START_TEST(search_deterministic) {
    th_llm_workload w;
    th_system sys;
    load("llm_model_small.json", &w, &sys);
    th_llm_search_opts o = opts_of(&w, 16, 20);
    th_llm_search_result a, b, c;
    search(&sys, &w.model, &o, &a);
    search(&sys, &w.model, &o, &b);
    o.top = 1;
    search(&sys, &w.model, &o, &c);
    ck_assert_int_eq(a.n, 20);
    ck_assert(!memcmp(a.best, b.best, sizeof *a.best * (size_t)a.n));
    ck_assert(!memcmp(&a.best[0], &c.best[0], sizeof c.best[0]));
    for (int i = 1; i < a.n; i++) {
        const th_llm_found *p = &a.best[i - 1], *q = &a.best[i];
        ck_assert(p->r.iteration < q->r.iteration ||
                  (p->r.iteration == q->r.iteration && th_llm_exec_cmp(&p->x, &q->x) < 0));
    }
    th_llm_search_result_free(&a);
    th_llm_search_result_free(&b);
    th_llm_search_result_free(&c);
}
END_TEST

static int stop(void *ctx) {
    (void)ctx;
    return 1;
}

START_TEST(search_errors) {
    th_llm_workload w;
    th_system sys;
    th_error err;
    int is_wl;
    load("llm_model_small.json", &w, &sys);
    ck_assert_str_eq(w.model.name, "small");
    ck_assert_int_eq(w.exec.global_batch, 0); /* a model file has none */
    /* a model file's errors name its keys as the file spells them */
    const char *bad = "{\"llm_model\": {\"layers\": 2, \"hidden\": -64, \"heads\": 4, \"seq\": "
                      "128, \"vocab\": 1000}}";
    ck_assert_int_eq(th_llm_parse_any(bad, strlen(bad), "m.json", &w, &is_wl, &err), TH_EINPUT);
    ck_assert_msg(strstr(err.msg, "m.json: llm_model.hidden: expected an integer"), "%s", err.msg);
    bad = "{\"llm_model\": {}, \"size\": 1}";
    ck_assert_int_eq(th_llm_parse_any(bad, strlen(bad), "m.json", &w, &is_wl, &err), TH_EINPUT);
    ck_assert_msg(strstr(err.msg, "m.json: size: unknown key"), "%s", err.msg);
    bad = "{\"layers\": []}";
    ck_assert_int_eq(th_llm_parse_any(bad, strlen(bad), "m.json", &w, &is_wl, &err), TH_EINPUT);
    ck_assert_msg(strstr(err.msg, "m.json: (top level): expected a model file"), "%s", err.msg);
    ck_assert_int_eq(th_llm_load_any(test_data("llm_small.json"), &w, &is_wl, &err), TH_OK);
    ck_assert_int_eq(is_wl, 1);
    ck_assert_int_eq(w.exec.global_batch, 8);

    load("llm_model_small.json", &w, &sys);
    th_llm_search_opts o = opts_of(&w, 16, 1);
    th_llm_search_result r;
    o.top = 0;
    ck_assert_int_eq(th_llm_search(&sys, &w.model, &o, &r, &err), TH_EINPUT);
    ck_assert_msg(strstr(err.msg, "top"), "%s", err.msg);
    o.top = 1, o.base.global_batch = 0;
    ck_assert_int_eq(th_llm_search(&sys, &w.model, &o, &r, &err), TH_EINPUT);
    ck_assert_msg(strstr(err.msg, "global_batch"), "%s", err.msg);
    o.base.global_batch = 16, o.poll = stop;
    ck_assert_int_eq(th_llm_search(&sys, &w.model, &o, &r, &err), TH_EINTERNAL);
    ck_assert_str_eq(err.msg, "interrupted");
    o.poll = NULL;
    sys.npu.present = 0;
    ck_assert_int_eq(th_llm_search(&sys, &w.model, &o, &r, &err), TH_EINPUT);
    ck_assert_msg(strstr(err.msg, "npu: missing in system \"search-2d\""), "%s", err.msg);
    /* a batch nothing divides into: no execution, not an error */
    sys.npu.present = 1, o.base.global_batch = 3;
    search(&sys, &w.model, &o, &r);
    ck_assert_int_eq(r.n, 0);
    ck_assert_double_eq(r.enumerated, 0);
    th_llm_search_result_free(&r);
}
END_TEST

Suite *search_suite(void) {
    Suite *s = suite_create("search");
    TCase *tc = tcase_create("search");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, search_count);
    tcase_add_test(tc, search_count_npus);
    tcase_add_test(tc, search_count_moe);
    tcase_add_test(tc, search_memory);
    tcase_add_test(tc, search_brute_force);
    tcase_add_test(tc, search_deterministic);
    tcase_add_test(tc, search_errors);
    suite_add_tcase(s, tc);
    return s;
}

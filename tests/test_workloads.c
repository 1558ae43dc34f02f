/* Real workloads (models/workloads, scripts/gen-workloads): totals vs references, loader errors. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_themis.h"
#include "themis/workload.h"

Suite *workloads_suite(void);

#define BYTES_PER_VALUE 2.0 /* fp16 gradients and activations (scripts/gen-workloads) */

/* Loads models/workloads/<name>.json under THEMIS_SRCDIR (or "."); fails the test on error. */
static th_workload *load(const char *name) {
    char path[4096];
    const char *dir = getenv("THEMIS_SRCDIR");
    snprintf(path, sizeof path, "%s/models/workloads/%s.json", dir ? dir : ".", name);
    th_workload *wl = NULL;
    th_error err = {0};
    ck_assert_msg(th_workload_load(path, &wl, &err) == TH_OK, "load %s: %s", path, err.msg);
    ck_assert_ptr_nonnull(wl);
    return wl;
}

static double total_params(const th_workload *wl) {
    double s = 0;
    for (int l = 0; l < wl->nlayers; l++)
        s += wl->layers[l].params;
    return s;
}

static double total_flops(const th_workload *wl, th_phase p) {
    double s = 0;
    for (int l = 0; l < wl->nlayers; l++)
        s += wl->layers[l].ph[p].flops;
    return s;
}

static int count_colls(const th_workload *wl) {
    int n = 0;
    for (int l = 0; l < wl->nlayers; l++)
        for (int p = 0; p < TH_NPHASES; p++)
            n += wl->layers[l].ph[p].coll.present;
    return n;
}

#define ck_assert_within(got, want, rel)                                                           \
    do {                                                                                           \
        double g_ = (got), w_ = (want);                                                            \
        ck_assert_msg(fabs(g_ - w_) <= (rel)*fabs(w_), "%s = %.10g, expected %.10g +- %g%%", #got, \
                      g_, w_, 100.0 * (rel));                                                      \
    } while (0)

/* Every phase is given in FLOPs at 120 TFLOPS: ns = flops / 1.2e5; the backward rule holds
 * (input_grad = forward except the first layer, weight_grad <= forward, 0 without weights). */
static void check_compute(const th_workload *wl) {
    ck_assert(wl->npu_tflops == 120);
    ck_assert_int_eq((int)wl->chunks, 64);
    for (int l = 0; l < wl->nlayers; l++) {
        const th_wl_layer *ly = &wl->layers[l];
        for (int p = 0; p < TH_NPHASES; p++)
            ck_assert_rel(ly->ph[p].ns, ly->ph[p].flops / 1.2e5);
        if (l == 0) ck_assert(ly->ph[TH_PHASE_IG].flops == 0);
        ck_assert(ly->ph[TH_PHASE_WG].flops <= ly->ph[TH_PHASE_FWD].flops);
        if (ly->params == 0) ck_assert(ly->ph[TH_PHASE_WG].flops == 0);
    }
}

/* Data-parallel CNN: one non-blocking weight-gradient All-Reduce per layer over "dp" of
 * params x 2 bytes; nothing else; every phase of a layer costs the same (conv1: no input_grad). */
static void check_data_parallel(const th_workload *wl) {
    ck_assert_int_eq(wl->hybrid, 0);
    ck_assert_int_eq(wl->mp_dims, 0);
    for (int l = 0; l < wl->nlayers; l++) {
        const th_wl_layer *ly = &wl->layers[l];
        const th_wl_coll *c = &ly->ph[TH_PHASE_WG].coll;
        ck_assert(!ly->ph[TH_PHASE_FWD].coll.present);
        ck_assert(!ly->ph[TH_PHASE_IG].coll.present);
        ck_assert_msg(c->present == (ly->params > 0), "%s", ly->name);
        if (!c->present) continue;
        ck_assert_int_eq(c->type, TH_COLL_ALLREDUCE);
        ck_assert_int_eq(c->sel, TH_SEL_DP);
        ck_assert_int_eq(c->blocking, 0);
        ck_assert_rel(c->size, ly->params * BYTES_PER_VALUE);
    }
}

static void check_resnet(const char *name, int nlayers, double params, double gmacs, double tol) {
    th_workload *wl = load(name);
    ck_assert_str_eq(wl->name, name);
    ck_assert_int_eq(wl->nlayers, nlayers);
    ck_assert(wl->batch == 32);
    check_compute(wl);
    check_data_parallel(wl);
    ck_assert_str_eq(wl->layers[0].name, "conv1");
    ck_assert_str_eq(wl->layers[nlayers - 1].name, "fc");
    ck_assert_within(total_params(wl), params, 0.01);
    double fwd = total_flops(wl, TH_PHASE_FWD);
    ck_assert_within(fwd / wl->batch, 2 * gmacs * 1e9, tol);
    for (int l = 1; l < wl->nlayers; l++) {
        const th_wl_layer *ly = &wl->layers[l];
        ck_assert(ly->ph[TH_PHASE_IG].flops == ly->ph[TH_PHASE_FWD].flops);
        ck_assert(ly->ph[TH_PHASE_WG].flops == ly->ph[TH_PHASE_FWD].flops);
    }
    ck_assert_int_eq(count_colls(wl), nlayers);
    th_workload_free(wl);
}

/* ResNet-50: 25.557 M params (torchvision), 4.1 GMACs = 8.2 GFLOPs forward per image. */
START_TEST(test_resnet50) {
    check_resnet("resnet50", 54, 25.557e6, 4.1, 0.03);
}
END_TEST

/* ResNet-152: 60.19 M params, ~11.5 GMACs forward per image. */
START_TEST(test_resnet152) {
    check_resnet("resnet152", 156, 60.19e6, 11.5, 0.05);
}
END_TEST

/* GNMT, 8+8 layers of 1024, vocab 32000: 276.735 M params and 21.11 GFLOPs forward per
 * sentence of 50+50 tokens (docs/WORKLOADS.md). Independent check of the bulk of the FLOPs:
 * 16 LSTM layers' MACs per token 4h(in+h) plus the classifier h x V, on 50 tokens each side. */
START_TEST(test_gnmt) {
    th_workload *wl = load("gnmt");
    ck_assert(wl->batch == 128);
    check_compute(wl);
    check_data_parallel(wl);
    ck_assert_int_eq(wl->nlayers, 20);
    ck_assert_within(total_params(wl), 276.735e6, 0.01);
    double h = 1024, v = 32000, in_h = 4 * h * (h + h), in_2h = 4 * h * (2 * h + h);
    double enc = 2 * in_h + in_2h + 6 * in_h, dec = in_h + 7 * in_2h + h * v;
    double per_sentence = 2 * 50 * (enc + dec);
    double fwd = total_flops(wl, TH_PHASE_FWD) / wl->batch;
    ck_assert_within(fwd, 21.11e9, 0.01);
    ck_assert(fwd > per_sentence && fwd < 1.05 * per_sentence); /* + attention */
    th_workload_free(wl);
}
END_TEST

/* DLRM (MLPerf Terabyte): 24.04 G params (tables 187.8 M rows x 128), 4.82 MFLOPs forward per
 * sample; embeddings All-to-All forward and backward, blocking, over all dims; MLP All-Reduce. */
START_TEST(test_dlrm) {
    th_workload *wl = load("dlrm");
    ck_assert_int_eq(wl->hybrid, 1);
    ck_assert_int_eq(wl->mp_dims, 1);
    ck_assert(wl->batch == 2048);
    check_compute(wl);
    ck_assert_within(total_params(wl), 24.0366e9, 0.01);
    ck_assert_within(total_flops(wl, TH_PHASE_FWD) / wl->batch, 4.82e6, 0.01);
    const th_wl_layer *emb = &wl->layers[0];
    ck_assert_str_eq(emb->name, "embeddings");
    for (int p = TH_PHASE_FWD; p <= TH_PHASE_IG; p++) {
        const th_wl_coll *c = &emb->ph[p].coll;
        ck_assert(c->present);
        ck_assert_int_eq(c->type, TH_COLL_ALLTOALL);
        ck_assert_int_eq(c->sel, TH_SEL_ALL);
        ck_assert_int_eq(c->blocking, 1);
        ck_assert_rel(c->size, 2048.0 * 26 * 128 * BYTES_PER_VALUE);
    }
    ck_assert(!emb->ph[TH_PHASE_WG].coll.present); /* tables are not replicated */
    int allreduces = 0;
    for (int l = 1; l < wl->nlayers; l++) {
        const th_wl_layer *ly = &wl->layers[l];
        const th_wl_coll *c = &ly->ph[TH_PHASE_WG].coll;
        ck_assert(!ly->ph[TH_PHASE_FWD].coll.present && !ly->ph[TH_PHASE_IG].coll.present);
        if (!strcmp(ly->name, "interaction")) {
            ck_assert(!c->present && ly->ph[TH_PHASE_WG].flops == 0 && ly->params == 0);
            continue;
        }
        ck_assert(c->present);
        ck_assert_int_eq(c->type, TH_COLL_ALLREDUCE);
        ck_assert_int_eq(c->sel, TH_SEL_ALL);
        ck_assert_int_eq(c->blocking, 0);
        ck_assert_rel(c->size, ly->params * BYTES_PER_VALUE);
        allreduces++;
    }
    ck_assert_int_eq(allreduces, 8); /* 3 bottom + 5 top linear layers */
    th_workload_free(wl);
}
END_TEST

/* Transformer-1T (Megatron, Narayanan et al. 2021): 1008.0 B params (1.0e12 within 2%);
 * forward FLOPs per sequence 24 s l h^2 (1 + s/(6h)) + 2 s h V, split over MP = 8 NPUs; per
 * block two layers, each with blocking All-Reduces of s x h x 2 bytes over "mp" in forward and
 * input_grad, and a weight-gradient All-Reduce of its 1/8 parameter shard over "dp". */
START_TEST(test_transformer_1t) {
    th_workload *wl = load("transformer-1t");
    ck_assert_int_eq(wl->hybrid, 1);
    ck_assert_int_eq(wl->mp_dims, 1);
    ck_assert(wl->batch == 1);
    check_compute(wl);
    ck_assert_int_eq(wl->nlayers, 2 + 2 * 128);
    double params = total_params(wl);
    ck_assert_within(params, 1.0e12, 0.02);
    ck_assert_within(params, 1008.0e9, 0.001);
    double s = 2048, l = 128, h = 25600, v = 51200, mp = 8;
    double fwd = 24 * s * l * h * h * (1 + s / (6 * h)) + 2 * s * h * v;
    ck_assert_within(total_flops(wl, TH_PHASE_FWD) * mp / wl->batch, fwd, 0.001);
    ck_assert_int_gt(count_colls(wl), 700);
    for (int i = 1; i <= 256; i++) {
        const th_wl_layer *ly = &wl->layers[i];
        ck_assert(strstr(ly->name, i % 2 ? ".attention" : ".mlp"));
        for (int p = TH_PHASE_FWD; p <= TH_PHASE_IG; p++) {
            const th_wl_coll *c = &ly->ph[p].coll;
            ck_assert(c->present && c->type == TH_COLL_ALLREDUCE && c->sel == TH_SEL_MP);
            ck_assert_int_eq(c->blocking, 1);
            ck_assert_rel(c->size, s * h * BYTES_PER_VALUE);
        }
        const th_wl_coll *g = &ly->ph[TH_PHASE_WG].coll;
        ck_assert(g->present && g->type == TH_COLL_ALLREDUCE && g->sel == TH_SEL_DP);
        ck_assert_int_eq(g->blocking, 0);
        ck_assert_within(g->size, ly->params * BYTES_PER_VALUE / mp, 0.001);
    }
    th_workload_free(wl);
}
END_TEST

/* Every real workload fits a 3-D and a 4-D system; a hybrid one cannot run on a 1-D system
 * (its MP dim would leave no data-parallel dim). */
static const char *const all_names[] = {"resnet50", "resnet152", "gnmt", "dlrm", "transformer-1t"};

START_TEST(test_fits_systems) {
    th_workload *wl = load(all_names[_i]);
    th_error err = {0};
    th_system s3 = test_ref_system();
    ck_assert_msg(th_workload_check(wl, &s3, "3d", &err) == TH_OK, "%s", err.msg);
    th_system s4;
    memset(&s4, 0, sizeof s4);
    test_add_dim(&s4, TH_TOPO_RING, 4, 400, 0);
    test_add_dim(&s4, TH_TOPO_FC, 8, 200, 0);
    test_add_dim(&s4, TH_TOPO_RING, 4, 100, 0);
    test_add_dim(&s4, TH_TOPO_SWITCH, 16, 25, 0);
    test_finish(&s4);
    ck_assert_msg(th_workload_check(wl, &s4, "4d", &err) == TH_OK, "%s", err.msg);
    th_system s1;
    memset(&s1, 0, sizeof s1);
    test_add_dim(&s1, TH_TOPO_RING, 8, 100, 0);
    test_finish(&s1);
    int rc = th_workload_check(wl, &s1, "1d", &err);
    if (wl->hybrid) {
        ck_assert_int_eq(rc, TH_EINPUT);
        ck_assert_msg(strstr(err.msg, "mp_dims"), "%s", err.msg);
    } else {
        ck_assert_int_eq(rc, TH_OK);
    }
    th_workload_free(wl);
}
END_TEST

/* ---- loader errors on small inline files: exit code 2 and the JSON path in the message ---- */

#define PH "{\"ns\": 1}"
#define LAYER(name)                                                                                \
    "{\"name\": \"" name "\", \"forward\": " PH ", \"input_grad\": " PH ", \"weight_grad\": " PH "}"

static const struct {
    const char *json;
    const char *path; /* must appear in the message */
    const char *what; /* and so must this */
} bad[] = {
    {"{\"parallelism\": \"data\", \"layers\": [{\"name\": \"a\", \"forward\": {}, "
     "\"input_grad\": " PH ", \"weight_grad\": " PH "}]}",
     "layers[0].forward", "compute time"},
    {"{\"parallelism\": \"data\", \"layers\": [{\"name\": \"a\", \"forward\": " PH ", "
     "\"weight_grad\": " PH "}]}",
     "layers[0].input_grad", "missing"},
    {"{\"parallelism\": \"data\", \"layers\": [" LAYER(
         "a") ", {\"name\": \"b\", \"forward\": " PH
              ", \"input_grad\": {\"ns\": -1}, \"weight_grad\": " PH "}]}",
     "layers[1].input_grad.ns", ">= 0"},
    {"{\"parallelism\": \"data\", \"layers\": [{\"name\": \"a\", \"forward\": {\"ns\": 1e999}, "
     "\"input_grad\": " PH ", \"weight_grad\": " PH "}]}",
     "layers[0].forward.ns", "finite"},
    {"{\"parallelism\": \"data\", \"layers\": [{\"name\": \"a\", \"forward\": " PH ", "
     "\"input_grad\": " PH ", \"weight_grad\": {\"ns\": 1, \"colective\": {}}}]}",
     "layers[0].weight_grad.colective", "unknown key"},
    {"{\"parallelism\": \"data\", \"layerz\": []}", "layerz", "unknown key"},
    {"{\"parallelism\": \"data\", \"layers\": [{\"name\": \"a\", \"forward\": {\"flops\": 1e9}, "
     "\"input_grad\": " PH ", \"weight_grad\": " PH "}]}",
     "layers[0].forward.flops", "npu_tflops"},
    /* 1e9 flops / (1e-300 TFLOPS * 1e3) = 1e306 ns, past the 1e21 ns a phase may take */
    {"{\"parallelism\": \"data\", \"npu_tflops\": 1e-300, \"layers\": [{\"name\": \"a\", "
     "\"forward\": {\"flops\": 1e9}, \"input_grad\": " PH ", \"weight_grad\": " PH "}]}",
     "layers[0].forward.flops", "1e+306 ns"},
    {"{\"parallelism\": \"data\", \"mp_dims\": 1, \"layers\": [" LAYER("a") "]}", "mp_dims",
     "hybrid"},
    {"{\"parallelism\": \"hybrid\", \"layers\": [" LAYER("a") "]}", "mp_dims", "missing"},
    {"{\"parallelism\": \"hybrid\", \"mp_dims\": 0, \"layers\": [" LAYER("a") "]}", "mp_dims",
     ">= 1"},
    {"{\"parallelism\": \"data\", \"layers\": [" LAYER("a") ", " LAYER("a") "]}", "layers[1].name",
     "layers[0]"},
    {"{\"parallelism\": \"data\", \"layers\": []}", "layers", "non-empty"},
    {"{\"parallelism\": \"data\"}", "layers", "missing"},
    {"{\"layers\": [" LAYER("a") "]}", "parallelism", "missing"},
    {"{\"parallelism\": \"model\", \"layers\": [" LAYER("a") "]}", "parallelism", "model"},
    {"{\"parallelism\": \"data\", \"layers\": [{\"name\": \"a\", \"forward\": " PH ", "
     "\"input_grad\": " PH ", \"weight_grad\": {\"ns\": 1, \"collective\": {\"type\": "
     "\"allreduce\"}}}]}",
     "layers[0].weight_grad.collective.size", "missing"},
    {"{\"parallelism\": \"data\", \"layers\": [{\"name\": \"a\", \"forward\": " PH ", "
     "\"input_grad\": " PH ", \"weight_grad\": {\"ns\": 1, \"collective\": {\"type\": "
     "\"allreduce\", \"size\": 64, \"dims\": \"pp\"}}}]}",
     "layers[0].weight_grad.collective.dims", "pp"},
    {"{\"parallelism\": \"data\", \"chunking\": \"ring\", \"layers\": [" LAYER("a") "]}",
     "chunking", "ring"},
    {"{\"parallelism\": \"data\", \"bucket_bytes\": -5, \"layers\": [" LAYER("a") "]}",
     "bucket_bytes", "0 (no buckets) or true"},
    {"{\"parallelism\": \"data\", \"bucket_bytes\": [1], \"layers\": [" LAYER("a") "]}",
     "bucket_bytes", "a size"},
    {"{\"parallelism\": \"data\", \"bucket_bytes\": \"2 parsecs\", \"layers\": [" LAYER("a") "]}",
     "bucket_bytes", "2 parsecs"},
};

START_TEST(test_parse_bad) {
    th_workload *wl = (th_workload *)&wl;
    th_error err = {0};
    const char *json = bad[_i].json;
    int rc = th_workload_parse(json, strlen(json), "inline.json", &wl, &err);
    ck_assert_msg(rc == TH_EINPUT, "case %d: rc %d", _i, rc);
    ck_assert_ptr_null(wl);
    ck_assert_int_eq(err.code, TH_EINPUT);
    ck_assert_msg(strstr(err.msg, "inline.json"), "case %d: %s", _i, err.msg);
    ck_assert_msg(strstr(err.msg, bad[_i].path), "case %d: no \"%s\" in: %s", _i, bad[_i].path,
                  err.msg);
    ck_assert_msg(strstr(err.msg, bad[_i].what), "case %d: no \"%s\" in: %s", _i, bad[_i].what,
                  err.msg);
}
END_TEST

/* "mp" dims in a data-parallel workload parse, but no system can map them. */
START_TEST(test_mp_in_data_workload) {
    const char *json = "{\"parallelism\": \"data\", \"layers\": [{\"name\": \"a\", \"forward\": "
                       "{\"ns\": 1, \"collective\": {\"type\": \"allreduce\", \"size\": 64, "
                       "\"dims\": \"mp\"}}, \"input_grad\": " PH ", \"weight_grad\": " PH "}]}";
    th_workload *wl = NULL;
    th_error err = {0};
    ck_assert_int_eq(th_workload_parse(json, strlen(json), "inline.json", &wl, &err), TH_OK);
    th_system s = test_ref_system();
    ck_assert_int_eq(th_workload_check(wl, &s, "inline.json", &err), TH_EINPUT);
    ck_assert_msg(strstr(err.msg, "layers[0].forward.collective"), "%s", err.msg);
    ck_assert_msg(strstr(err.msg, "\"mp\""), "%s", err.msg);
    th_workload_free(wl);
}
END_TEST

/* A minimal valid file: FLOPs become ns through npu_tflops, defaults of a collective. */
START_TEST(test_parse_minimal) {
    const char *json = "{\"parallelism\": \"data\", \"npu_tflops\": 100, \"layers\": [{\"name\": "
                       "\"a\", \"params\": 10, \"forward\": {\"flops\": 2e6}, \"input_grad\": "
                       "{\"ns\": 0}, \"weight_grad\": {\"flops\": 1e6, \"collective\": "
                       "{\"type\": \"allreduce\", \"size\": \"1KiB\"}}}]}";
    th_workload *wl = NULL;
    th_error err = {0};
    ck_assert_msg(th_workload_parse(json, strlen(json), "dir/mini.json", &wl, &err) == TH_OK, "%s",
                  err.msg);
    ck_assert_str_eq(wl->name, "mini");
    ck_assert_int_eq(wl->nlayers, 1);
    ck_assert(wl->batch == 1);
    ck_assert_rel(wl->layers[0].ph[TH_PHASE_FWD].ns, 20);
    ck_assert_rel(wl->layers[0].ph[TH_PHASE_WG].ns, 10);
    const th_wl_coll *c = &wl->layers[0].ph[TH_PHASE_WG].coll;
    ck_assert(c->present && c->sel == TH_SEL_DP && !c->blocking && c->size == 1024);
    th_workload_free(wl);
}
END_TEST

/* scripts/gen-workloads --format astra-text: ASTRA-sim 1.0 text workloads (docs/WORKLOADS.md,
 * "In ASTRA-sim's format"), the same as the files in models/workloads/astra (no drift).
 * resnet50's conv1 (7x7, 3 -> 64, stride 2, 112 x 112 out, batch 32): 7*7*3*64 * 112*112 * 32
 * = 3776446464 MACs = 7552892928 FLOPs; at 120 TFLOPS 7552892928 / 120e3 = 62940.77 ns =
 * 62941 cycles at 1 GHz (125881.5 -> 125882 at 2 GHz); no input gradient (the first layer);
 * its weight-gradient All-Reduce (9408 weights + 2 * 64 BatchNorm) * 2 = 19072 bytes. */
START_TEST(test_astra_text) {
    char *out = malloc(65536);
    char *dir = test_tmp_dir();
    int rc =
        test_sh(out, 65536,
                "scripts/gen-workloads --format astra-text '%s' >/dev/null && "
                "for f in models/workloads/astra/*.txt; do cmp \"$f\" '%s'/$(basename \"$f\") "
                "|| exit 7; done && ls '%s' | wc -l && head -n 3 '%s'/resnet50.txt && "
                "head -n 2 '%s'/transformer-1t.txt '%s'/dlrm.txt && "
                "awk -F'\\t' 'FNR > 2 && NF != 12 { print \"bad\", FILENAME, FNR }' '%s'/*.txt",
                dir, dir, dir, dir, dir, dir, dir);
    ck_assert_msg(rc == 0, "status %d: %s", rc, out);
    ck_assert_msg(strstr(out, "5\nDATA\n54\nconv1\t-1\t62941\tNONE\t0\t0\tNONE\t0\t62941\tALLREDUCE"
                              "\t19072\t0\n"),
                  "%s", out);
    ck_assert_msg(strstr(out, "HYBRID_TRANSFORMER\tmodel_parallel_NPU_group: 8\n258\n"), "%s", out);
    ck_assert_msg(strstr(out, "HYBRID_DLRM\t3\n10\n"), "%s", out); /* bottom_mlp.2 is layer 3 */
    ck_assert_ptr_null(strstr(out, "bad"));
    rc = test_sh(out, 65536,
                 "scripts/gen-workloads --format astra-text --clock-ghz 2 '%s' >/dev/null && "
                 "sed -n 3p '%s'/resnet50.txt",
                 dir, dir);
    ck_assert_msg(rc == 0 && strstr(out, "conv1\t-1\t125882\tNONE\t0\t0\tNONE\t0\t125882\t"), "%s",
                  out);
    ck_assert_int_ne(test_sh(out, 65536, "scripts/gen-workloads --format yaml '%s'", dir), 0);
    ck_assert_msg(strstr(out, "--format: expected json or astra-text, got 'yaml'"), "%s", out);
    ck_assert_int_ne(test_sh(out, 65536, "scripts/gen-workloads --clock-ghz -1 '%s'", dir), 0);
    ck_assert_msg(strstr(out, "--clock-ghz: expected a number > 0"), "%s", out);
    ck_assert_int_ne(test_sh(out, 65536, "scripts/gen-workloads --bogus"), 0);
    ck_assert_msg(strstr(out, "unknown option '--bogus'"), "%s", out);
    test_rm_dir(dir);
    free(out);
}
END_TEST

/* The files of models/workloads/astra load in themis train (its ASTRA-sim 1.0 text reader) as
 * the JSON workloads they come from: compute_us is the sum of the file's cycles (fields 3, 6
 * and 9; a cycle is a ns), the collectives are as many, and with the same chunking (64 chunks
 * each, as the reader gives) the exposed communication is the JSON's to the ns, the compute
 * differing only by the rounding to whole cycles. On sweeps/e2e-regime/2d-flat-paper.json
 * (8 NPUs in dim 0: Transformer-1T's model-parallel group of 8 is that dim). */
START_TEST(test_astra_text_loads) {
    static const char *const names[] = {"resnet50", "gnmt", "dlrm", "transformer-1t"};
    static const int colls[] = {54, 20, 10, 772};
    char *out = malloc(8192);
    for (int i = 0; i < 4; i++) {
        const char *w = names[i];
        int rc = test_sh(out, 8192,
                         "sys=sweeps/e2e-regime/2d-flat-paper.json; "
                         "\"$THEMIS_BIN\" train models/workloads/astra/%s.txt -s $sys -p baseline "
                         "-q fifo -f csv 2>/dev/null | tail -n 1 | cut -d, -f9,10,13 && "
                         "\"$THEMIS_BIN\" train models/workloads/%s.json -s $sys -p baseline -q "
                         "fifo -n 64 --chunking astra -f csv | tail -n 1 | cut -d, -f10,13 && "
                         "awk 'NR > 2 { c += $3 + $6 + $9 } END { printf \"%%.3f\\n\", c / 1000 }' "
                         "models/workloads/astra/%s.txt",
                         w, w, w);
        ck_assert_msg(rc == 0, "%s: status %d: %s", w, rc, out);
        double compute, exposed, exposed_json, cycles;
        int n, n_json;
        ck_assert_msg(sscanf(out, "%lf,%lf,%d %lf,%d %lf", &compute, &exposed, &n, &exposed_json,
                             &n_json, &cycles) == 6,
                      "%s: %s", w, out);
        ck_assert_msg(fabs(compute - cycles) <= 1e-6 * cycles, "%s: %s", w, out);
        ck_assert_int_eq(n, colls[i]);
        ck_assert_int_eq(n_json, colls[i]);
        if (i != 2) /* DLRM's All-to-Alls are placed as ASTRA-sim places them (reader notes) */
            ck_assert_msg(fabs(exposed - exposed_json) <= 1e-3, "%s: %s", w, out);
    }
    free(out);
}
END_TEST

Suite *workloads_suite(void) {
    Suite *s = suite_create("workloads");
    TCase *tc = tcase_create("real");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_resnet50);
    tcase_add_test(tc, test_resnet152);
    tcase_add_test(tc, test_gnmt);
    tcase_add_test(tc, test_dlrm);
    tcase_add_test(tc, test_transformer_1t);
    tcase_add_test(tc, test_astra_text);
    tcase_add_test(tc, test_astra_text_loads);
    tcase_add_loop_test(tc, test_fits_systems, 0, (int)(sizeof all_names / sizeof all_names[0]));
    suite_add_tcase(s, tc);
    TCase *te = tcase_create("errors");
    tcase_add_loop_test(te, test_parse_bad, 0, (int)(sizeof bad / sizeof bad[0]));
    tcase_add_test(te, test_mp_in_data_workload);
    tcase_add_test(te, test_parse_minimal);
    suite_add_tcase(s, te);
    return s;
}

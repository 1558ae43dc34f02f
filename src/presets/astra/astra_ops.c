/* The ASTRA-sim 2.x preset (SPEC §9) as one model (model.h): single collectives with its
 * integer phase sizes, per-collective algorithms and queue rules; no bound, lp, latency floor,
 * training or calibration. */
#include <stdio.h>

#include "astra_preset.h"
#include "themis/astra.h"

static const th_plan_model *planner(const th_system *sys) {
    (void)sys;
    return &astra_planner;
}

static void alg_name(const th_system *sys, int k, int type, char *buf, size_t n) {
    snprintf(buf, n, "%s", th_algorithm_name(th_astra_algorithm(sys, (th_coll_type)type, k)));
}

/* ASTRA-sim's roofline (Roofline.cc): local-mem-bw in GB/s (10^9 bytes/s), peak-perf in
 * TFLOPS, when the system file enabled it. */
static int roofline(const th_system *sys, double *bw, double *peak) {
    *bw = astra_of(sys)->local_mem_GBps * 1e9;
    *peak = astra_of(sys)->roofline_TFLOPS * 1e12;
    return astra_of(sys)->roofline_TFLOPS > 0;
}

/* A communicator group of part of the system is a ring over its NPUs in ASTRA-sim 2.x
 * (CommunicatorGroup::get_collective_plan: the dim's own algorithm only on a system of one
 * dim, where no group is part of the system and one dim): exactly the dim's collective when
 * the group is one dim's NPUs and that dim runs a ring for the type. */
static int group_dim(const th_system *sys, int type, int dim) {
    return th_astra_algorithm(sys, (th_coll_type)type, dim) == TH_ALG_RING;
}

/* ASTRA-sim 2.x's workload layer (Workload.cc, HardwareResource.cc, OfflineGreedy.cc): one
 * communication node in flight per NPU, a compute node of duration 0 takes 1 ns, its roofline,
 * and its Themis scheduling from rank 0's state, by the NPU that generates a collective first
 * (the order of the NPUs' events that the emulator follows, docs/CHAKRA.md). */
static const th_graph_rules graph = {.serial_comm = 1,
                                     .min_compute = 1,
                                     .themis_carry = 1,
                                     .issue_first = astra_issue_first,
                                     .first_npu = astra_first_npu,
                                     .timed_end = astra_timed_end,
                                     .roofline = roofline,
                                     .message = th_astra_message,
                                     .npus = astra_npus_replay,
                                     .refused_hang = astra_refused_hang,
                                     .group_dim = group_dim};

const th_model_ops astra_model_ops = {
    .name = "astra-sim",
    .caps = 0,
    .sys = &astra_sys,
    .planner = planner,
    .emu = &astra_emu,
    .alg_name = alg_name,
    .alg_types = 3, /* the reports show an All-to-All's algorithm (dims[k].alltoall) nowhere */
    .graph = &graph,
};

#!/usr/bin/env python3
"""Writes the three multi-node fixture logs of tests/data/calibrate/ (README.md there says
what each imitates). Run from the repository's root: python3 tests/data/calibrate/make_logs.py

The times come from a two-level alpha-beta model of a hierarchical All-Reduce on P = 2 nodes x
N = 8 GPUs (a reduce-scatter and an all-gather inside the node on S bytes, the same across the
nodes on S / N bytes; SPEC's one-chunk formulas):

    simple(S) = 2 (L1 a1 + S (N-1)/N / B1) + 2 (L2 a2 + (S/N) (P-1)/P / B2)

and NCCL-like protocol switches at small sizes: LL (a fifth of the latency, a quarter of the
bandwidth) and LL128 (half the latency, 0.6 of the bandwidth); each size takes the fastest of
the three, as NCCL's tuner does. Uniform relative noise of +-2% from a fixed seed. Nothing is
copied from a published log: the layouts (header lines, columns, widths, prefixes) follow the
nccl-tests versions named in README.md."""

import random

N, P = 8, 2


def hops(p):  # rhd on a switch: 2 log2 p
    return 2 * (p.bit_length() - 1)


def model(S, a1, B1, a2, B2):
    lat = 2 * (hops(N) * a1 + hops(P) * a2)  # ns
    bw = 2 * (S * (N - 1) / N / B1 + (S / N) * (P - 1) / P / B2)  # ns (B in bytes/ns)
    return min(lat + bw, lat / 5 + 4 * bw, lat / 2 + bw / 0.6) / 1e3  # us


def cell(w, v):
    for f in ("%*.2f", "%*.1f", "%*.0f"):
        s = f % (w, v)
        if len(s) <= w:
            return s
    return "%*.1e" % (w, v)


def rows(rng, kmin, kmax, params, root, err_col):
    out = []
    for k in range(kmin, kmax + 1):
        S = 2 ** k
        line = "%12d  %12d  %8s  %6s" % (S, S // 4, "float", "sum")
        if root:
            line += "  %6s" % "-1"
        for _ in range(2):
            t = model(S, *params) * (1 + 0.02 * (2 * rng.random() - 1))
            alg = S / 1e3 / t
            line += "  %7s  %6s  %6s" % (cell(7, t), cell(6, alg), cell(6, alg * 2 * 15 / 16))
            line += "  %5s" % ("%.0e" % (1e-7 * (1 + k % 3)) if err_col else "0")
        out.append(line)
    return out


def devices(gpu, hosts, group, pid0, bus):
    out = []
    for r in range(N * P):
        g = "Group %2d " % 0 if group else ""
        out.append("#  Rank %2d %sPid %6d on %10s device %2d [%s] %s" %
                   (r, g, pid0 + r, hosts[r // N], r % N, bus(r % N), gpu))
    return out


def header(root, err_col):
    w = "#wrong" if not err_col else " error"
    cols = "#  %10s  %12s  %8s  %6s" % ("size", "count", "type", "redop")
    units = "#  %10s  %12s  %8s  %6s" % ("(B)", "(elements)", "", "")
    if root:
        cols += "  %6s" % "root"
        units += "  %6s" % ""
    for _ in range(2):
        cols += "  %7s  %6s  %6s  %5s" % ("time", "algbw", "busbw", w)
        units += "  %7s  %6s  %6s  %5s" % ("(us)", "(GB/s)", "(GB/s)", "")
    title = "# %s%s%s" % (" " * (len(cols) - 60), "out-of-place", " " * 23 + "in-place")
    return [title, cols, units]


def h100():
    rng = random.Random(1)
    lines = ["## all_reduce_perf, 2 x 8 H100 (NDR 400G, one NIC per GPU)", "",
             "Run with `srun -N 2 --ntasks-per-node=8 all_reduce_perf -b 8 -e 8G -f 2 -g 1`:",
             "", "```",
             "# nccl-tests version 2.13.9 nccl-headers=21903 nccl-library=21903",
             "# Collective test starting: all_reduce_perf",
             "# nThread 1 nGpus 1 minBytes 8 maxBytes 8589934592 step: 2(factor) warmup iters: 5 "
             "iters: 20 agg iters: 1 validation: 1 graph: 0", "#", "# Using devices"]
    lines += devices("NVIDIA H100 80GB HBM3", ["gpu-a001", "gpu-a002"], True, 20111,
                     lambda d: "0x%02x" % (0x18 + 0x20 * d))
    lines += ["#"] + header(True, False)
    lines += rows(rng, 3, 33, (800, 360, 2500, 45), True, False)
    lines += ["# Out of bounds values : 0 OK", "# Avg bus bandwidth    : 98.3012 ", "#",
              "# Collective test concluded: all_reduce_perf", "#", "```", "",
              "Bus bandwidth levels off near 320 GB/s from 1 GiB on."]
    return lines


def v100():
    rng = random.Random(2)
    lines = ["{'nodes': 2, 'gpus_per_node': 8, 'instance': 'p3dn.24xlarge', 'nccl': '2.4.6', "
             "'fabric': 'efa', 'date': '2019-11-20'}",
             "# nThread 1 nGpus 1 minBytes 8 maxBytes 1073741824 step: 2(factor) warmup iters: 5 "
             "iters: 20 validation: 1", "#", "# Using devices"]
    lines += devices("Tesla V100-SXM2-32GB", ["ip-172-31-9-41", "ip-172-31-7-198"], False, 9301,
                     lambda d: "0x%02x" % (0x16 + d))
    lines += ["ip-172-31-9-41:9301:9301 [0] NCCL INFO NET/OFI Selected Provider is efa",
              "NCCL version 2.4.6+cuda10.0", "#"] + header(False, True)
    lines += rows(rng, 3, 30, (1500, 130, 9000, 1.45), False, True)
    lines += ["# Out of bounds values : 0 OK", "# Avg bus bandwidth    : 2.15307 ", "#"]
    return lines


def a100():
    rng = random.Random(3)
    body = ["# nThread 1 nGpus 1 minBytes 8 maxBytes 4294967296 step: 2(factor) warmup iters: 5 "
            "iters: 20 agg iters: 1 validation: 1", "#", "# Using devices"]
    body += devices("A100-SXM4-40GB", ["dgx-11", "dgx-12"], False, 5510,
                    lambda d: "0x%02x" % (0x07 + 0x10 * d))
    body += ["#"] + header(True, False)
    body += rows(rng, 3, 32, (1000, 230, 4000, 21), True, False)
    body += ["# Out of bounds values : 0 OK", "# Avg bus bandwidth    : 14.8877 ", "#"]
    lines = ["[1,0]<stdout>:" + b for b in body[:3]]
    lines.append("[1,9]<stderr>:dgx-12:5519:5580 [1] NCCL INFO Channel 00 : 9[4b000] -> 10[88000] via P2P/IPC")
    lines += ["[1,0]<stdout>:" + b for b in body[3:]]
    return lines


for name, lines in (("h100-2x8.log", h100()), ("v100-efa-2x8.log", v100()),
                    ("a100-2x8-tagged.log", a100())):
    with open("tests/data/calibrate/" + name, "w") as f:
        f.write("\n".join(lines) + "\n")

#!/usr/bin/env python3
"""What-if study: how many chunks does Themis need? Themis' speedup over the baseline
(baseline + FIFO) against the chunk count of a 1 GiB All-Reduce, on a system with balanced
dims and on two whose dims differ (default-3d: 250, 200, 50 GB/s; hetero-4d), end to end from
Python:

    python3 examples/chunk_speedup.py [--out DIR] [--figure]

Writes DIR/chunk-speedup.csv (every point of the sweep) and DIR/chunk-speedup-answer.csv (per
system and intra policy: the speedup at 1 chunk, the best speedup and its chunk count, the
fewest chunks that reach 95% of the best gain, the worst speedup and its chunk count), prints
the answer, and with --figure draws
DIR/chunk-speedup.png and .pdf with the repository's gnuplot script for this figure
(plots/ar-speedup-chunks.gp, through scripts/plot). Run it from the repository root, with the
package installed (README, "Python") or with PYTHONPATH=python after `make python`."""

import argparse
import os
import subprocess
import sys

import themis

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SYSTEMS = [
    "models/systems/balanced-3d.json",
    "models/systems/default-3d.json",
    "models/systems/hetero-4d.json",
]

# The sweep, as a dict: the same axes as sweeps/ar-speedup-chunks.json on three of its systems.
SPEC = {
    "name": "chunk-speedup",
    "collective": {"type": "allreduce", "size": "1GiB"},
    "axes": {
        "system": SYSTEMS,
        "chunks": {"from": 1, "to": 1024, "times": 2},
        "policy": ["themis"],
        "intra": ["fifo", "scf"],
    },
}


def answer(df):
    """Per (system, intra): speedup at 1 chunk, the best speedup and where, the fewest chunks
    that reach 95% of the best gain over 1 chunk, and the worst speedup and where."""
    rows = []
    for (system, intra), g in df.groupby(["system", "intra"], sort=False):
        g = g.sort_values("chunks")
        first = g["speedup"].iloc[0]
        best = g.loc[g["speedup"].idxmax()]
        enough = g[g["speedup"] - first >= 0.95 * (best["speedup"] - first)]["chunks"].min()
        worst = g.loc[g["speedup"].idxmin()]
        rows.append({"system": system, "intra": intra, "speedup_1_chunk": first,
                     "best_speedup": best["speedup"], "best_chunks": int(best["chunks"]),
                     "chunks_for_95pct": int(enough), "worst_speedup": worst["speedup"],
                     "worst_chunks": int(worst["chunks"])})
    import pandas
    return pandas.DataFrame(rows)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="out/examples", help="folder for the CSV files (and figure)")
    ap.add_argument("--figure", action="store_true", help="draw the figure with gnuplot")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)

    df = themis.sweep(SPEC, base_dir=ROOT, jobs=2)  # one row per point, as themis sweep writes
    points = os.path.join(args.out, "chunk-speedup.csv")
    df.to_csv(points, index=False)
    ans = answer(df)
    ans.to_csv(os.path.join(args.out, "chunk-speedup-answer.csv"), index=False)

    print("Themis speedup over baseline+FIFO, 1 GiB All-Reduce, by chunk count:\n")
    print(ans.to_string(index=False))
    print()
    for r in ans[ans["intra"] == "scf"].itertuples():
        if r.best_speedup <= r.speedup_1_chunk:
            print(f"{r.system}: no gain from more chunks ({r.speedup_1_chunk:.3f}x).")
        else:
            print(f"{r.system}: {r.speedup_1_chunk:.3f}x with 1 chunk, up to "
                  f"{r.best_speedup:.3f}x at {r.best_chunks} chunks; {r.chunks_for_95pct} "
                  f"chunks give 95% of that gain; {r.worst_chunks} chunks give "
                  f"{r.worst_speedup:.3f}x.")
    if args.figure:
        base = os.path.join(args.out, "chunk-speedup")
        subprocess.run([os.path.join(ROOT, "scripts", "plot"),
                        os.path.join(ROOT, "plots", "ar-speedup-chunks.gp"), points, base],
                       check=True)
        print(f"\nfigure: {base}.png, {base}.pdf")
    return 0


if __name__ == "__main__":
    sys.exit(main())

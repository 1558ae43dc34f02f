"""The example study (examples/chunk_speedup.py) runs end to end, and its answer is the one
computed here from the CSV that the themis binary writes for the same sweep."""

import csv
import json
import os
import shutil
import subprocess
import sys

import pytest

from conftest import cli, src


def test_chunk_speedup_study(tmp_path):
    pytest.importorskip("pandas")
    out = tmp_path / "out"
    figure = shutil.which("gnuplot") is not None  # gnuplot-nox: a dependency (make figures)
    p = subprocess.run([sys.executable, src("examples", "chunk_speedup.py"), "--out", str(out)]
                       + (["--figure"] if figure else []),
                       capture_output=True, text=True, cwd=src(), env=dict(os.environ))
    assert p.returncode == 0, p.stderr
    assert "default-3d: 1.000x with 1 chunk, up to 1.451x at 64 chunks" in p.stdout

    # the same sweep through the binary (the spec as a file, paths made absolute)
    sys.path.insert(0, src("examples"))
    import chunk_speedup
    spec = json.loads(json.dumps(chunk_speedup.SPEC))
    spec["axes"]["system"] = [src(s) for s in spec["axes"]["system"]]
    (tmp_path / "spec.json").write_text(json.dumps(spec))
    cli("sweep", str(tmp_path / "spec.json"), "-o", str(tmp_path / "cli.csv"), "--quiet")
    with open(tmp_path / "cli.csv", newline="") as f:
        want = list(csv.DictReader(f))
    with open(out / "chunk-speedup.csv", newline="") as f:
        got = list(csv.DictReader(f))
    assert len(got) == len(want) == 3 * 11 * 2  # systems x chunk counts 1..1024 x intras
    for g, w in zip(got, want):  # the same values (pandas writes floats in shortest form)
        assert g.keys() == w.keys()
        for k in w:
            if k.endswith("_file"):  # the file as each spec names it: relative here, absolute there
                assert os.path.samefile(src(g[k]), w[k])
                continue
            assert g[k] == w[k] or float(g[k]) == float(w[k]), (k, g[k], w[k])

    # the answer, derived from the binary's rows
    expect = {}
    for w in want:
        key = (w["system"], w["intra"])
        expect.setdefault(key, []).append((int(w["chunks"]), float(w["speedup"])))
    with open(out / "chunk-speedup-answer.csv", newline="") as f:
        answer = list(csv.DictReader(f))
    assert [(a["system"], a["intra"]) for a in answer] == list(expect)
    for a in answer:
        pts = sorted(expect[(a["system"], a["intra"])])
        first = pts[0][1]
        best = max(pts, key=lambda c: (c[1], -c[0]))  # ties: the fewest chunks
        worst = min(pts, key=lambda c: (c[1], c[0]))
        enough = min(c for c, s in pts if s - first >= 0.95 * (best[1] - first))
        assert float(a["speedup_1_chunk"]) == first
        assert (int(a["best_chunks"]), float(a["best_speedup"])) == best
        assert (int(a["worst_chunks"]), float(a["worst_speedup"])) == worst
        assert int(a["chunks_for_95pct"]) == enough
    if figure:
        assert (out / "chunk-speedup.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert (out / "chunk-speedup.pdf").read_bytes()[:5] == b"%PDF-"

"""The example notebook (examples/chunk_speedup.ipynb) executes headless with Debian's Jupyter
packages (python3-nbclient, python3-ipykernel, python3-nbformat), and what it prints is what
the themis binary gives for the same sweep and the same what-if runs."""

import json
import os
import sys

import pytest

from conftest import cli, src

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")
pandas = pytest.importorskip("pandas")


def printed(nb):
    return "".join(o.get("text", "") for c in nb.cells if c.cell_type == "code"
                   for o in c.outputs if o.get("output_type") == "stream")


def test_notebook(tmp_path, monkeypatch):
    monkeypatch.setenv("PYDEVD_DISABLE_FILE_VALIDATION", "1")  # the kernel's debugger note
    nb = nbformat.read(src("examples", "chunk_speedup.ipynb"), as_version=4)
    assert all(not c.get("outputs") for c in nb.cells if c.cell_type == "code")  # kept clean
    nbclient.NotebookClient(nb, timeout=120, kernel_name="python3",
                            resources={"metadata": {"path": src("examples")}}).execute()
    out = printed(nb)

    # the answer, from the binary's sweep of the same spec
    sys.path.insert(0, src("examples"))
    import chunk_speedup
    spec = json.loads(json.dumps(chunk_speedup.SPEC))
    spec["axes"]["system"] = [src(s) for s in spec["axes"]["system"]]
    (tmp_path / "spec.json").write_text(json.dumps(spec))
    cli("sweep", str(tmp_path / "spec.json"), "-o", str(tmp_path / "cli.csv"), "--quiet")
    df = pandas.read_csv(tmp_path / "cli.csv")
    ans = chunk_speedup.answer(df)
    for r in ans[ans["intra"] == "scf"].itertuples():
        line = (f"{r.system}: {r.speedup_1_chunk:.3f}x with 1 chunk, up to "
                f"{r.best_speedup:.3f}x at {r.best_chunks} chunks; {r.chunks_for_95pct} chunks "
                "give 95% of that gain")
        assert line in out, (line, out)
    assert "default-3d: 1.000x with 1 chunk, up to 1.451x at 64 chunks" in out

    # the what-if: default-3d as is and with dim 2 twice as fast, through the binary
    with open(src("models", "systems", "default-3d.json")) as f:
        system = json.load(f)
    system["dims"][2]["bw_GBps"] *= 2
    (tmp_path / "faster.json").write_text(json.dumps(system))
    for name, path in (("as is", src("models", "systems", "default-3d.json")),
                       ("dim 2 x2", str(tmp_path / "faster.json"))):
        r = json.loads(cli("run", "-s", path, "-b", "1GiB", "-n", "64", "-p", "all", "-q", "scf",
                           "-f", "json").stdout)
        t = {x["policy"]: x["time_us"] for x in r["results"]}
        line = (f"{name}: 64 chunks, baseline {t['baseline']:.1f} us, themis "
                f"{t['themis']:.1f} us, speedup {t['baseline'] / t['themis']:.3f}x")
        assert line in out, (line, out)

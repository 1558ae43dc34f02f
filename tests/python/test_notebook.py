"""The example notebook (examples/chunk_speedup.ipynb) as a user runs it: the package installed
as README says, in a venv, that venv registered as the Jupyter kernel `themis` with the command
the notebook and docs/PYTHON.md give, and the notebook executed on the kernel its metadata
names, from examples/, with no PYTHONPATH or THEMIS_LIB. Headless, with Debian's Jupyter
packages (python3-nbclient, python3-ipykernel, python3-nbformat); what it prints is what the
themis binary gives for the same sweep and the same what-if runs."""

import json
import os
import subprocess
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


def test_notebook(tmp_path, monkeypatch, readme_install):
    for name in ("PYTHONPATH", "THEMIS_LIB"):  # a user's shell: only the venv provides themis
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("JUPYTER_DATA_DIR", str(tmp_path / "jupyter"))  # stands in for ~/.local
    monkeypatch.setenv("PYDEVD_DISABLE_FILE_VALIDATION", "1")  # the kernel's debugger note
    nb = nbformat.read(src("examples", "chunk_speedup.ipynb"), as_version=4)
    assert all(not c.get("outputs") for c in nb.cells if c.cell_type == "code")  # kept clean
    assert nb.metadata.kernelspec.name == "themis"

    # the kernel step, as the notebook's first cell gives it (.venv being the install's)
    intro = "".join(nb.cells[0].source).replace("\n", " ")
    step = ('.venv/bin/python -m ipykernel install --user --name themis --display-name '
            '"Python 3 (themis)"')
    assert step in intro
    venv_python = str(readme_install)
    subprocess.run([venv_python, "-m", "ipykernel", "install", "--user", "--name", "themis",
                    "--display-name", "Python 3 (themis)"], check=True, capture_output=True)

    # which package the kernel imported, as one more cell (the file is not changed)
    nb.cells.append(nbformat.v4.new_code_cell("print('module', themis.__file__)"))
    nbclient.NotebookClient(nb, timeout=120,
                            resources={"metadata": {"path": src("examples")}}).execute()
    out = printed(nb)
    venv = os.path.dirname(os.path.dirname(venv_python))
    assert f"module {venv}{os.sep}" in out, out

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

"""The package as users install it, offline (no package index): `make python`, then README's
two venv lines; and a wheel that carries the library, built from a copy of python/ that is then
deleted (as `make clean` deletes the build), installed into a fresh venv in another folder,
where it runs with nothing of the source tree loaded."""

import glob
import json
import os
import shlex
import shutil
import subprocess
import sys
import zipfile

import pytest

from conftest import BIN, SRCDIR, src


def clean_env():
    """The environment of a user's shell: no THEMIS_LIB, no PYTHONPATH, no package index."""
    env = {k: v for k, v in os.environ.items() if k not in ("THEMIS_LIB", "PYTHONPATH")}
    env["PIP_NO_INDEX"] = "1"  # nothing may come from the network
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    return env


def make_python(env):
    make = shlex.split(os.environ.get("THEMIS_MAKE") or "make")
    p = subprocess.run(make + ["-s", "-C", SRCDIR, "python"], capture_output=True, text=True,
                       env=env)
    assert p.returncode == 0, p.stdout + p.stderr
    assert os.path.exists(src("python", "themis", "libthemis.so.0"))


def copy_package(root):
    """python/ as a fresh clone has it after `make python`."""
    shutil.copytree(src("python"), root / "python",
                    ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))


# Run by the installed package: where it was loaded from, every file mapped into the process
# (no library of the source tree may be among them), and a run.
PROBE = ("import json, themis\n"
         "maps = sorted({l.split()[-1] for l in open('/proc/self/maps') if '/' in l})\n"
         "print(json.dumps([themis.LIBRARY, themis.__file__, maps,"
         " themis.run(size='64MiB', chunks=8)]))\n")


def probe(python, cwd, env, *forbidden):
    p = subprocess.run([str(python), "-c", PROBE], cwd=cwd, capture_output=True, text=True,
                       env=env)
    assert p.returncode == 0, p.stderr
    library, module, maps, result = json.loads(p.stdout)
    for path in maps:
        for f in forbidden:
            assert not path.startswith(str(f) + os.sep), path
    cli = subprocess.run([BIN, "run", "-b", "64MiB", "-n", "8", "-f", "json"],
                         capture_output=True, text=True, check=True)
    assert result == json.loads(cli.stdout)
    return library, module


def readme_venv(root):
    """`make python`, then README's two lines in root (a copy of python/ there, as a fresh
    clone has it), python3 being this interpreter (Debian's, with python3-venv); the venv's
    python."""
    env = clean_env()
    make_python(env)
    copy_package(root)
    line = (f"{shlex.quote(sys.executable)} -m venv --system-site-packages .venv && "
            ".venv/bin/pip install ./python")
    p = subprocess.run(["sh", "-c", line], cwd=root, capture_output=True, text=True, env=env)
    assert p.returncode == 0, p.stdout + p.stderr
    return root / ".venv" / "bin" / "python"


def test_readme_install(readme_install, tmp_path):
    library, module = probe(readme_install, tmp_path, clean_env(), SRCDIR)
    venv = str(readme_install.parent.parent) + os.sep
    assert module.startswith(venv) and library.startswith(venv)  # the installed copy


def test_wheel_carries_library(tmp_path):
    env = clean_env()
    make_python(env)
    build = tmp_path / "build"
    copy_package(build)
    dist = tmp_path / "dist"
    p = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-index", "--no-build-isolation",
                        "-w", str(dist), str(build / "python")], capture_output=True, text=True,
                       env=env)
    assert p.returncode == 0, p.stdout + p.stderr
    shutil.rmtree(build)  # the build folder and its library are gone
    (wheel,) = glob.glob(str(dist / "themis-*.whl"))
    with zipfile.ZipFile(wheel) as z:  # the library, and the PEP 561 marker for type checkers
        assert {"themis/libthemis.so.0", "themis/py.typed"} <= set(z.namelist())
    assert wheel.endswith("-py3-none-linux_x86_64.whl") or "-none-" in wheel

    venv = tmp_path / "elsewhere" / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)],
                   check=True, env=env)
    p = subprocess.run([str(venv / "bin" / "pip"), "install", "--no-index",
                        "--no-build-isolation", wheel], capture_output=True, text=True, env=env)
    assert p.returncode == 0, p.stdout + p.stderr
    library, module = probe(venv / "bin" / "python", tmp_path / "elsewhere", env, SRCDIR,
                            build)
    assert library == os.path.join(os.path.dirname(module), "libthemis.so.0")
    assert library.startswith(str(venv) + os.sep)

    # THEMIS_LIB still names the library to load
    env["THEMIS_LIB"] = os.path.join(SRCDIR, "build", "libthemis.so.0")
    p = subprocess.run([str(venv / "bin" / "python"), "-c",
                        "import themis; print(themis.LIBRARY)"], capture_output=True, text=True,
                       env=env)
    assert p.returncode == 0 and p.stdout.strip() == env["THEMIS_LIB"], p.stderr


def test_backend_reads_pyproject_without_tomllib():
    """Pythons before 3.11 read pyproject.toml with the backend's own reader: the same table."""
    tomllib = pytest.importorskip("tomllib")
    sys.path.insert(0, src("python", "backend"))
    try:
        import themis_backend
    finally:
        sys.path.pop(0)
    with open(src("python", "pyproject.toml"), encoding="utf-8") as f:
        text = f.read()
    assert themis_backend._toml(text) == tomllib.loads(text)
    assert themis_backend.project()["optional-dependencies"] == {"pandas": ["pandas"]}

"""README's install, offline: `make python`, then the two venv lines on a copy of python/,
with no package index (PIP_NO_INDEX): the installed package, run from another folder, loads
the library make python recorded and gives the binary's results."""

import json
import os
import shlex
import shutil
import subprocess
import sys

from conftest import BIN, SRCDIR, src


def test_make_python_and_venv_install(tmp_path):
    make = shlex.split(os.environ.get("THEMIS_MAKE") or "make")
    env = {k: v for k, v in os.environ.items() if k not in ("THEMIS_LIB", "PYTHONPATH")}
    p = subprocess.run(make + ["-s", "-C", SRCDIR, "python"], capture_output=True, text=True,
                       env=env)
    assert p.returncode == 0, p.stdout + p.stderr
    lib = os.path.join(SRCDIR, "build", "libthemis.so.0")
    with open(src("python", "themis", "_build.py")) as f:
        assert f'LIB = "{lib}"' in f.read()

    root = tmp_path / "clone"  # the package as a fresh clone has it (plus _build.py)
    shutil.copytree(src("python"), root / "python",
                    ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
    env["PIP_NO_INDEX"] = "1"  # nothing may come from the network
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    # README's lines, python3 being this interpreter (Debian's, with python3-venv)
    line = (f"{shlex.quote(sys.executable)} -m venv --system-site-packages .venv && "
            ".venv/bin/pip install --no-build-isolation ./python")
    p = subprocess.run(["sh", "-c", line], cwd=root, capture_output=True, text=True, env=env)
    assert p.returncode == 0, p.stdout + p.stderr

    code = ("import json, themis; print(json.dumps([themis.LIBRARY, themis.__file__, "
            "themis.run(size='64MiB', chunks=8)]))")
    p = subprocess.run([str(root / ".venv" / "bin" / "python"), "-c", code], cwd=tmp_path,
                       capture_output=True, text=True, env=env)
    assert p.returncode == 0, p.stderr
    library, module, result = json.loads(p.stdout)
    assert library == lib
    assert module.startswith(str(root / ".venv"))  # the installed copy, not the source tree
    cli = subprocess.run([BIN, "run", "-b", "64MiB", "-n", "8", "-f", "json"],
                         capture_output=True, text=True, check=True)
    assert result == json.loads(cli.stdout)

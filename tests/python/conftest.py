"""Shared by the Python package's tests: the themis binary and source tree under test (make
check sets THEMIS_BIN, THEMIS_LIB and THEMIS_SRCDIR), and running the command line."""

import json
import os
import subprocess

import pytest

SRCDIR = os.environ.get("THEMIS_SRCDIR") or os.path.abspath(
    os.path.join(os.path.dirname(__file__), "..", ".."))
BIN = os.environ.get("THEMIS_BIN") or os.path.join(SRCDIR, "build", "themis")


def src(*parts):
    """A path in the source tree."""
    return os.path.join(SRCDIR, *parts)


def cli(*args, check=True):
    """Runs the themis binary; its CompletedProcess (text stdout and stderr)."""
    p = subprocess.run([BIN, *args], capture_output=True, text=True, cwd=SRCDIR)
    if check and p.returncode != 0:
        raise AssertionError(f"themis {' '.join(args)}: exit {p.returncode}: {p.stderr}")
    return p


def cli_json(*args):
    return json.loads(cli(*args).stdout)


def cli_error(*args):
    """The message and exit status of a failing command: stderr without "themis: "."""
    p = cli(*args, check=False)
    assert p.returncode != 0, f"themis {' '.join(args)} succeeded"
    line = p.stderr.strip()
    assert line.startswith("themis: ") and "\n" not in line, line
    return line[len("themis: "):], p.returncode


@pytest.fixture(autouse=True)
def in_srcdir(monkeypatch):
    """Relative paths (models/..., sweeps/...) resolve as for the command line."""
    monkeypatch.chdir(SRCDIR)


@pytest.fixture(scope="session")
def readme_install(tmp_path_factory):
    """The package installed as README says (`make python`, then its two venv lines), once for
    the tests that need it (the install's, the notebook's): the venv's python."""
    from test_install import readme_venv
    return readme_venv(tmp_path_factory.mktemp("clone"))

"""The package's build backend (PEP 517 and 660), in the tree so that building needs nothing but
the Python running pip: no setuptools, no wheel package, no network.

The wheel carries the shared library `make python` copies to themis/libthemis.so.0 (the package
loads it from beside its own file), so it is tagged for this platform (py3-none-linux_x86_64:
ctypes, no Python ABI). It links Debian's libcjson, GSL, libyaml, GLPK, NLopt and protobuf-c
dynamically, so those packages must be installed where the wheel is. The metadata is pyproject.toml's
[project] table."""

import base64
import hashlib
import json
import os
import re
import sysconfig
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # python/
PACKAGE = "themis"
LIBRARY = "libthemis.so.0"


def _toml(text):
    """The part of TOML pyproject.toml uses (tables; keys whose value, on one line, is a string
    or a list of strings), for Pythons before 3.11, which have no tomllib."""
    root, table = {}, None
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("["):
            table = root
            for part in line.strip("[]").split("."):
                table = table.setdefault(part.strip(), {})
            continue
        key, eq, value = line.partition("=")
        if not eq or table is None:
            raise ValueError(f"pyproject.toml: cannot read {raw!r}")
        table[key.strip().strip('"')] = json.loads(value.strip())
    return root


def project():
    """pyproject.toml's [project] table."""
    with open(os.path.join(ROOT, "pyproject.toml"), encoding="utf-8") as f:
        text = f.read()
    try:
        import tomllib
    except ImportError:
        return _toml(text)["project"]
    return tomllib.loads(text)["project"]


def _metadata(p):
    lines = ["Metadata-Version: 2.1", f"Name: {p['name']}", f"Version: {p['version']}",
             f"Summary: {p['description']}", f"Requires-Python: {p['requires-python']}"]
    for extra, reqs in sorted(p.get("optional-dependencies", {}).items()):
        lines.append(f"Provides-Extra: {extra}")
        lines += [f'Requires-Dist: {r}; extra == "{extra}"' for r in reqs]
    lines.append("Description-Content-Type: text/markdown")
    with open(os.path.join(ROOT, p["readme"]), encoding="utf-8") as f:
        return "\n".join(lines) + "\n\n" + f.read()


def _tag(pure):
    return "py3-none-" + ("any" if pure else re.sub(r"[-.]", "_", sysconfig.get_platform()))


def _write(wheel_directory, files, pure):
    """A wheel of files ({archive name: bytes}) plus its .dist-info; returns its file name."""
    p = project()
    name, version = p["name"], p["version"]
    tag = _tag(pure)
    info = f"{name}-{version}.dist-info"
    files = dict(files)
    files[f"{info}/METADATA"] = _metadata(p).encode()
    files[f"{info}/WHEEL"] = (f"Wheel-Version: 1.0\nGenerator: themis_backend\n"
                              f"Root-Is-Purelib: {'true' if pure else 'false'}\n"
                              f"Tag: {tag}\n").encode()
    record = []
    for arc, data in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append(f"{arc},sha256={digest},{len(data)}")
    record.append(f"{info}/RECORD,,")
    files[f"{info}/RECORD"] = ("\n".join(record) + "\n").encode()
    wheel = f"{name}-{version}-{tag}.whl"
    with zipfile.ZipFile(os.path.join(wheel_directory, wheel), "w", zipfile.ZIP_DEFLATED) as z:
        for arc, data in files.items():
            zi = zipfile.ZipInfo(arc, (1980, 1, 1, 0, 0, 0))  # the same bytes every build
            zi.external_attr = (0o755 if arc.endswith(LIBRARY) else 0o644) << 16
            zi.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(zi, data)
    return wheel


def _read(path):
    with open(path, "rb") as f:
        return f.read()


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    pkg = os.path.join(ROOT, PACKAGE)
    if not os.path.exists(os.path.join(pkg, LIBRARY)):
        raise RuntimeError(f"{os.path.join(pkg, LIBRARY)} is missing: run `make python` at the "
                           "repository's root first (it builds the library and copies it there)")
    names = sorted(n for n in os.listdir(pkg) if n.endswith(".py") or n in ("py.typed", LIBRARY))
    files = {f"{PACKAGE}/{n}": _read(os.path.join(pkg, n)) for n in names}
    return _write(wheel_directory, files, pure=False)


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    """pip install -e: a .pth file puts python/ on sys.path (the package and its library in
    place: `make python` refreshes the library)."""
    return _write(wheel_directory, {f"_{PACKAGE}_editable.pth": (ROOT + "\n").encode()},
                  pure=False)


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_editable(config_settings=None):
    return []

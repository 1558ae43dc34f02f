"""themis.sweep against `themis sweep`: the same rows, value for value, as a DataFrame or as
a list of dicts; any thread count; a stop from the row callback."""

import csv
import json
import math

import pytest

import themis
from themis import _lib

from conftest import cli, src

SPEC = "sweeps/chunks-vs-policy.json"


def typed(text):
    """A CSV field as the package types it: int, float or str."""
    try:
        return int(text)
    except ValueError:
        try:
            return float(text)
        except ValueError:
            return text


def cli_rows(spec, tmp_path, *args):
    out = tmp_path / "out.csv"
    cli("sweep", spec, "-o", str(out), "--quiet", *args)
    with open(out, newline="") as f:
        rows = list(csv.reader(f))
    return rows[0], [[typed(v) for v in r] for r in rows[1:]]


def test_frame_equals_the_csv(tmp_path):
    pandas = pytest.importorskip("pandas")
    header, rows = cli_rows(SPEC, tmp_path)
    df = themis.sweep(SPEC, jobs=2)
    assert isinstance(df, pandas.DataFrame)
    assert list(df.columns) == header
    assert len(df) == len(rows) == 108  # 9 chunk counts x 2 policies x 2 intras x 3 sizes
    assert str(df["point"].dtype) == "int64" and str(df["time_us"].dtype) == "float64"
    got = [list(r) for r in df.itertuples(index=False)]
    assert got == rows  # every value to the last bit (floats compared exactly)


def test_dicts_and_thread_counts(tmp_path):
    header, rows = cli_rows(SPEC, tmp_path, "-j", "1")
    one = themis.sweep(SPEC, jobs=1, frame=False)
    assert one == [dict(zip(header, r)) for r in rows]
    assert themis.sweep(SPEC, jobs=3, frame=False) == one


def test_shard_and_dict_spec(tmp_path):
    with open(src(SPEC)) as f:
        spec = json.load(f)
    spec["system"] = "models/systems/default-3d.json"  # relative to base_dir
    del spec["output"]
    header, rows = cli_rows(SPEC, tmp_path, "--shard", "1/4")
    got = themis.sweep(spec, shard="1/4", base_dir=src(), frame=False)
    assert got == [dict(zip(header, r)) for r in rows]
    assert [r["point"] for r in got] == list(range(1, 108, 4))


def test_workload_sweep_equals_the_csv(tmp_path):
    spec = tmp_path / "wl.json"
    spec.write_text(json.dumps({
        "name": "wl", "workload": src("models", "workloads", "resnet50.json"),
        "axes": {"policy": ["baseline", "themis"], "batch": [1, 4]}}))
    header, rows = cli_rows(str(spec), tmp_path)
    assert themis.sweep(spec, frame=False) == [dict(zip(header, r)) for r in rows]


def test_each_row_without_keeping_any():
    seen = []
    res = themis.sweep(SPEC, jobs=2, each=seen.append)
    assert res == {"name": "chunks-vs-policy", "points": 108, "rows": 108}
    assert seen == themis.sweep(SPEC, frame=False)
    first = []
    res = themis.sweep(SPEC, each=lambda r: first.append(r) or len(first) == 3)
    assert res["rows"] == 2 and [r["point"] for r in first] == [0, 1, 2]
    assert themis._rows.typed(b"") != themis._rows.typed(b"")  # NaN
    assert [themis._rows.typed(b) for b in (b"-3", b"2.5", b"1e3", b"a;b")] == \
        [-3, 2.5, 1000.0, "a;b"]


def test_without_pandas_a_list_of_dicts():
    import subprocess
    import sys
    code = ("import sys; sys.modules['pandas'] = None\n"  # import pandas fails
            "import themis, json\n"
            "r = themis.sweep('sweeps/chunks-vs-policy.json', jobs=1)\n"
            "print(type(r).__name__, len(r), json.dumps(r[0]))")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=src())
    assert p.returncode == 0, p.stderr
    kind, n, first = p.stdout.split(" ", 2)
    assert (kind, n) == ("list", "108")
    assert json.loads(first) == themis.sweep(SPEC, frame=False)[0]


def test_callback_stops_the_sweep():
    seen = []

    def row(fields):
        seen.append(fields)
        return len(seen) == 6  # header + 5 rows, then stop

    res = json.loads(_lib.call("sweep", {"spec": SPEC, "jobs": 2}, row))
    assert res == {"name": "chunks-vs-policy", "points": 108, "rows": 4}  # the 5th stopped it
    assert len(seen) == 6 and seen[0][0] == b"point"


def test_exception_in_the_callback_is_raised():
    def row(fields):
        if fields[0] == b"3":
            raise KeyboardInterrupt
        return False

    with pytest.raises(KeyboardInterrupt):
        _lib.call("sweep", {"spec": SPEC}, row)


def test_missing_values_and_text_columns():
    # a column whose first value is a number and a later one text is kept as text
    c = themis._rows.Columns()
    c.feed([b"a", b"b", b"c"])
    c.feed([b"1", b"2.5", b""])
    c.feed([b"x", b"3", b"4"])
    assert c.dicts()[0]["a"] == "1" and c.dicts()[1]["a"] == "x"
    assert c.dicts()[1]["b"] == 3.0 and math.isnan(c.dicts()[0]["c"]) and c.dicts()[1]["c"] == 4


def test_ctrl_c_stops_a_long_sweep(tmp_path):
    # SIGINT during a 10^6-point sweep: KeyboardInterrupt comes out of themis.sweep at the next
    # block of rows, long before the sweep would end (about 15 s here); Python's own SIGINT
    # handler is back afterwards
    import signal
    import subprocess
    import sys
    import time
    script = (
        "import sys, themis\n"
        "spec = {'name': 'long', 'collective': {'chunks': 4}, 'axes': {'size': "
        "{'from': 1024, 'to': 1024 * 250000, 'step': 1024}, 'policy': ['baseline', 'themis'], "
        "'intra': ['fifo', 'scf']}}\n"
        "print('started', flush=True)\n"
        "try:\n"
        "    themis.sweep(spec, jobs=1, frame=False)\n"
        "except KeyboardInterrupt:\n"
        "    import signal\n"
        "    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler\n"
        "    print('interrupted', flush=True)\n"
        "    sys.exit(7)\n")
    p = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True,
                         cwd=src())
    assert p.stdout.readline() == "started\n"
    time.sleep(0.5)
    t = time.monotonic()
    p.send_signal(signal.SIGINT)
    out, _ = p.communicate(timeout=60)
    assert p.returncode == 7 and out == "interrupted\n"
    assert time.monotonic() - t < 2.0

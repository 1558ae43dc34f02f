"""A 10^5-point sweep into a DataFrame in bounded memory: the rows stream from the library into
typed columns, so the peak RSS grows by a small multiple of the DataFrame itself, far less than
the rows as Python text (and less than the CSV file the command line writes)."""

import json
import os
import subprocess
import sys

import pytest

from conftest import src

SCRIPT = r"""
import json, resource, sys
import themis

def spec(sizes):
    return {"name": "mem", "system": "models/systems/default-3d.json",
            "collective": {"type": "allreduce", "chunks": 4},
            "axes": {"size": {"from": 1024, "to": 1024 * sizes, "step": 1024},
                     "policy": ["baseline", "themis"], "intra": ["fifo", "scf"]}}

themis.sweep(spec(10), jobs=2)  # pandas, numpy and the library loaded and warmed up
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
df = themis.sweep(spec(25000), jobs=2)
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"rows": len(df), "cols": len(df.columns), "growth_kib": after - before,
                  "frame_kib": int(df.memory_usage(deep=False).sum()) // 1024}))
"""


def test_sweep_of_100000_points_into_a_frame(tmp_path):
    pytest.importorskip("pandas")
    p = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True,
                       cwd=src(), env=dict(os.environ))
    assert p.returncode == 0, p.stderr
    m = json.loads(p.stdout)
    print(m)
    assert m["rows"] == 100000 and m["cols"] == 17
    # 17 columns of 8 bytes (int64, float64, or a pointer to one shared str): 13.3 MB
    assert m["frame_kib"] < 100000 * 17 * 8 // 1024 + 64
    # measured: 13 to 19 MB of growth (from run to run), the columns plus pandas' copy of one
    # dtype's columns into its block at a time. The rows as Python str would be about 94 MB
    # (1.7 million fields of about 55 bytes each), the CSV text the command line writes 22.6 MB.
    assert m["growth_kib"] < 2 * m["frame_kib"], m

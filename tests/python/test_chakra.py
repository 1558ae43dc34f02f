"""Chakra execution traces through the Python API: themis.train and themis.sweep take a trace
set by its prefix, as `themis train` does, with the same numbers."""

import json
import math
import os

import themis
from themis import _lib

from conftest import cli
from test_schema import check, formats


def _varint(v):
    out = b""
    while True:
        b, v = v & 0x7F, v >> 7
        if v:
            out += bytes([b | 0x80])
        else:
            return out + bytes([b])


def _field(n, payload):  # a length-delimited field
    return _varint(n << 3 | 2) + _varint(len(payload)) + payload


def _int(n, v):  # a varint field
    return _varint(n << 3) + _varint(v)


def _node(node_id, node_type, micros=0, data_deps=(), attrs=b""):
    b = _int(1, node_id) if node_id else b""
    b += _field(2, b"n%d" % node_id) + _int(3, node_type)
    if data_deps:
        b += _field(5, b"".join(_varint(d) for d in data_deps))
    if micros:
        b += _int(7, micros)
    return b + attrs


def _attr(name, field, value):
    return _field(10, _field(1, name) + _int(field, value))


def write_trace(prefix, ranks, pg=None):
    """A 5 us compute node, then a 1 MiB All-Reduce (comm_type 0), on every rank; with pg, the
    All-Reduce's pg_name."""
    for k in range(ranks):
        off = 100 * k
        attrs = _attr(b"comm_type", 9, 0) + _attr(b"comm_size", 13, 1 << 20)
        if pg is not None:
            attrs += _field(10, _field(1, b"pg_name") + _field(29, pg))
        nodes = [_node(off + 1, 4, micros=5), _node(off + 2, 7, data_deps=[off + 1], attrs=attrs)]
        with open("%s.%d.et" % (prefix, k), "wb") as f:
            meta = _field(1, b"0.0.4")
            f.write(_varint(len(meta)) + meta)
            for n in nodes:
                f.write(_varint(len(n)) + n)


def test_train_takes_a_trace_prefix(tmp_path):
    prefix = str(tmp_path / "ar")
    write_trace(prefix, 4)
    # tests/data/cli_ring4.json: an All-Reduce of S in C chunks takes 60 C + 0.015 S ns
    # (tests/test_cli_train.c); -n 4, 1 MiB: 240 + 15728.64 = 15968.64, after 5000 of compute
    req = {"workload": prefix, "system": "tests/data/cli_ring4.json", "policy": "baseline",
           "intra": "fifo", "chunks": 4}
    text = _lib.call("train", req)
    assert text == cli("train", prefix, "-s", "tests/data/cli_ring4.json", "-p", "baseline",
                       "-q", "fifo", "-n", "4", "-f", "json").stdout
    r = json.loads(text)
    assert r["workload"]["format"] == "chakra" and r["workload"]["ranks"] == 4
    row = r["results"][0]
    assert abs(row["iteration_us"] - 20.96864) < 1e-9
    assert row["compute_us"] == 5
    assert themis.train(prefix + ".2.et", system="tests/data/cli_ring4.json",
                        policy="baseline", intra="fifo", chunks=4) == r


def test_train_comm_group(tmp_path):
    """comm_group: the communicator group file pg_name names; a group of every NPU runs the
    All-Reduce on every dim, as without a group (20.96864 us, above)."""
    prefix = str(tmp_path / "pg")
    write_trace(prefix, 4, pg=b"1")
    groups = tmp_path / "groups.json"
    groups.write_text('{"1": [0, 1, 2, 3]}')
    r = themis.train(prefix, system="tests/data/cli_ring4.json", policy="baseline",
                     intra="fifo", chunks=4, comm_group=groups)
    assert abs(r["results"][0]["iteration_us"] - 20.96864) < 1e-9
    assert r["workload"]["classes"] == 1 and r["workload"]["class_ranks"] == [[0, 1, 2, 3]]
    try:
        themis.train(prefix, system="tests/data/cli_ring4.json", policy="baseline")
    except themis.Error as e:
        assert "attr pg_name: process group 1: no communicator group file given" in str(e)
    else:
        raise AssertionError("a process group without a group file was replayed")


def test_sweep_takes_a_trace(tmp_path):
    prefix = str(tmp_path / "ar")
    write_trace(prefix, 4)
    spec = {"name": "ck", "system": os.path.abspath("tests/data/cli_ring4.json"),
            "workload": prefix, "axes": {"chunks": [4], "policy": ["baseline"]}}
    rows = themis.sweep(spec, frame=False)
    assert len(rows) == 1
    assert abs(rows[0]["iteration_us"] - 20.96864) < 1e-9
    assert math.isnan(rows[0]["speedup_vs_ideal"])  # a trace has no ideal-network replay


def test_one_schema(tmp_path):
    """The rows carry docs/SCHEMA.md's keys in every format."""
    prefix = str(tmp_path / "ar")
    write_trace(prefix, 4)
    doc, lines, header, records = formats("train", prefix, "-s", "tests/data/cli_ring4.json",
                                          "-n", "4")
    check("train (Chakra trace)", doc["results"], lines, header, records)

"""themis.train and themis.sweep on LLM workloads: the command line's bytes, the memory per NPU
and the breakdown's keys, errors that name the file and the key."""

import json

import pytest

import themis
from themis import _lib

from conftest import cli, src

SYS = "tests/data/llm_sys_2d.json"
WL = "tests/data/llm_small.json"
PARTS = ["forward_us", "backward_us", "recompute_us", "tp_exposed_us", "ep_exposed_us",
         "bubble_us", "pp_exposed_us", "dp_exposed_us", "optimizer_us"]


def test_same_as_cli():
    text = _lib.call("train", {"workload": WL, "system": SYS, "policy": "themis",
                               "schedule": "gpipe", "micro_batch": 2})
    assert text == cli("train", WL, "-s", SYS, "-p", "themis", "--schedule", "gpipe",
                       "--micro-batch", "2", "-f", "json").stdout


def test_memory_and_breakdown():
    r = themis.train(WL, SYS, policy="baseline", intra="fifo")
    # the hand-derived memory of tests/test_llm.c (llm_memory_recompute, recompute none)
    assert r["memory"]["weights"] == 113536
    assert r["memory"]["optimizer"] == 681216
    assert r["memory"]["activations"] == 688128
    assert r["memory"]["total"] == 1596416
    assert r["memory"]["fits"] is True
    row = r["results"][0]
    assert sum(row[k] for k in PARTS) == pytest.approx(row["iteration_us"], rel=1e-12)
    assert 0 < row["mfu"] < 1


def test_inline_workload_and_system():
    with open(src(SYS)) as f:
        sys = json.load(f)
    sys["npu"] = {"matrix_tflops": 100, "vector_tflops": 10, "memory_GBps": 1000,
                  "memory_gib": 1}
    wl = {"name": "inline", "llm": {"model": {"layers": 2, "hidden": 64, "heads": 4,
                                              "seq": 128, "vocab": 1000},
                                    "tp": 2, "pp": 2, "dp": 2, "global_batch": 8}}
    a = themis.train(wl, sys, policy="themis", intra="scf")
    b = themis.train(WL, SYS, policy="themis", intra="scf")
    assert a["results"][0]["iteration_us"] == b["results"][0]["iteration_us"]
    assert a["memory"] == b["memory"]


def test_errors_name_the_key():
    with pytest.raises(themis.Error, match="llm_sys_nonpu.json: npu: missing"):
        themis.train(WL, "tests/data/llm_sys_nonpu.json")
    with pytest.raises(themis.Error, match="iterations is for workloads of layers"):
        themis.train(WL, SYS, iterations=4)
    with pytest.raises(themis.Error, match="llm.tp"):
        themis.train({"llm": {"model": {"layers": 2, "hidden": 64, "heads": 4, "seq": 8,
                                        "vocab": 10}, "tp": 3}}, SYS)


def test_sweep_llm_axes():
    df = themis.sweep("tests/data/llm_sweep.json")
    assert len(df) == 24
    for k in PARTS + ["memory_total", "mfu", "llm.tp"]:
        assert k in df.columns


def test_frame_has_the_csv_columns():
    r = themis.train(WL, SYS, policy="themis", intra="scf")
    df = themis.frame(r)
    csv = cli("train", WL, "-s", SYS, "-p", "themis", "-q", "scf", "-f", "csv").stdout
    header = csv.splitlines()[0].split(",")
    assert list(df.columns) == header
    assert df["memory_total"][0] == 1596416 and df["memory_fits"][0] == 1
    with pytest.raises(themis.Error, match="no collectives list"):
        themis.frame(r, collectives=True)

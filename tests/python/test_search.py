"""themis.search against `themis search -f json`: the same text, byte for byte; its results'
keys; a model file given as a dict; errors raised with the message the command line prints.
The small model and the 16-NPU system of tests/test_llm_search.c (1692 executions at global
batch 16, counted there by hand)."""

import json

import pytest

import themis
from themis import _lib

from conftest import cli, cli_error, src

MODEL = src("tests", "data", "llm_model_small.json")
SYSTEM = src("tests", "data", "search_sys_2d.json")
FIXED = src("tests", "data", "search_fixed.json")


def test_same_as_cli():
    text = _lib.call("search", {"model": MODEL, "system": SYSTEM, "global_batch": 16, "top": 3})
    assert text == cli("search", MODEL, "-s", SYSTEM, "--global-batch", "16", "-k", "3",
                       "-f", "json").stdout
    r = json.loads(text)
    assert r["searches"] == [{"policy": "themis", "intra": "scf", "enumerated": 1692,
                              "feasible": r["searches"][0]["feasible"],
                              "bounded": r["searches"][0]["bounded"],
                              "evaluated": r["searches"][0]["evaluated"]}]
    assert [x["rank"] for x in r["results"]] == [1, 2, 3]
    times = [x["iteration_us"] for x in r["results"]]
    assert times == sorted(times)


def test_result_keys():
    r = themis.search(MODEL, SYSTEM, global_batch=16, top=1)
    x = r["results"][0]
    for key in ("tp", "pp", "dp", "ep", "micro_batch", "global_batch", "schedule",
                "virtual_stages", "sequence_parallel", "recompute", "sharding", "mapping",
                "iteration_us", "forward_us", "backward_us", "recompute_us", "tp_exposed_us",
                "ep_exposed_us", "bubble_us", "pp_exposed_us", "dp_exposed_us", "optimizer_us",
                "mfu", "tflops_per_npu", "memory"):
        assert key in x, key
    assert set(x["memory"]) == {"weights", "gradients", "optimizer", "activations", "total",
                                "capacity", "fits"}
    assert x["memory"]["fits"] and x["memory"]["total"] <= x["memory"]["capacity"]
    assert x["tp"] * x["pp"] * x["dp"] == 16
    assert sorted(x["mapping"]) == ["dp", "ep", "pp", "tp"]
    parts = sum(x[k] for k in x if k.endswith("_us") and k != "iteration_us")
    assert parts == pytest.approx(x["iteration_us"], rel=1e-12)


def test_dict_and_fix():
    with open(MODEL) as f:
        model = json.load(f)
    assert themis.search(model, SYSTEM, global_batch=16, top=2)["results"] == \
        themis.search(MODEL, SYSTEM, global_batch=16, top=2)["results"]
    r = themis.search(FIXED, SYSTEM, top=20,
                      fix=["tp", "pp", "dp", "ep", "micro_batch", "schedule",
                           "sequence_parallel", "mapping"])
    assert (r["searches"][0]["enumerated"], r["searches"][0]["feasible"]) == (12, 5)
    assert len(r["results"]) == 5
    r = themis.search(MODEL, SYSTEM, global_batch=16, npus=4, top=1)
    assert (r["npus"], r["searches"][0]["enumerated"]) == (4, 318)  # tests/test_llm_search.c


def test_errors():
    with pytest.raises(themis.Error) as e:
        themis.search(MODEL, SYSTEM)
    assert "search: global_batch: missing" in str(e.value)
    with pytest.raises(themis.Error) as e:
        themis.search(FIXED, SYSTEM, fix="tq")
    assert "search: fix: unknown key 'tq'; did you mean 'tp'?" in str(e.value)
    with pytest.raises(themis.Error) as e:
        themis.search(MODEL, src("tests", "data", "llm_sys_nonpu.json"), global_batch=16)
    assert "llm_sys_nonpu.json: npu: missing" in str(e.value)
    msg, status = cli_error("search", MODEL, "-s", SYSTEM)
    assert status == 2 and msg.startswith("search: --global-batch: missing")

"""themis.train against `themis train -f json`: the same text, byte for byte."""

import json

import pytest

import themis
from themis import _lib

from conftest import cli, src


def same_as_cli(request, args):
    text = _lib.call("train", request)
    assert text == cli("train", "-f", "json", *args).stdout
    return json.loads(text)


def test_every_policy_and_the_ideal_network():
    r = same_as_cli({"workload": "models/workloads/resnet50.json"},
                    ["models/workloads/resnet50.json"])
    policies = [x["policy"] for x in r["results"]]
    assert "ideal" in policies and "themis-global" in policies


def test_options_as_on_the_command_line():
    same_as_cli({"workload": "models/workloads/gnmt.json",
                 "system": "models/systems/hetero-4d.json", "policy": "themis",
                 "intra": "scf", "priority": "fifo", "iterations": 4, "batch": 0.5,
                 "chunks": 16, "load_model": "bandwidth"},
                ["models/workloads/gnmt.json", "-s", "models/systems/hetero-4d.json", "-p",
                 "themis", "-q", "scf", "--priority", "fifo", "--iterations", "4", "--batch",
                 "0.5", "-n", "16", "--load-model", "bandwidth"])
    for bucket, arg in (("on", "on"), ("off", "off"), (0, "0"), ("8MiB", "8MiB"), (1e6, "1e6")):
        same_as_cli({"workload": "models/workloads/resnet152.json", "policy": "themis",
                     "intra": "scf", "bucket": bucket, "chunking": "astra", "chunks": 8,
                     "priority": "layer"},
                    ["models/workloads/resnet152.json", "-p", "themis", "-q", "scf", "--bucket",
                     arg, "--chunking", "astra", "-n", "8", "--priority", "layer"])
    # a reference that is not one of the rows (baseline+fifo, ideal) is still measured against
    r = same_as_cli({"workload": "models/workloads/dlrm.json", "policy": "roundrobin",
                     "intra": "scf"},
                    ["models/workloads/dlrm.json", "-p", "roundrobin", "-q", "scf"])
    assert len(r["results"]) == 1


def test_keyword_api_and_dicts():
    with open(src("models", "workloads", "resnet50.json")) as f:
        wl = json.load(f)
    with open(src("models", "systems", "default-3d.json")) as f:
        sys = json.load(f)
    a = themis.train(wl, sys, policy="themis", intra="scf", batch=2)
    b = themis.train("models/workloads/resnet50.json", "models/systems/default-3d.json",
                     policy="themis", intra="scf", batch=2)
    c = json.loads(cli("train", "models/workloads/resnet50.json", "-s",
                       "models/systems/default-3d.json", "-p", "themis", "-q", "scf",
                       "--batch", "2", "-f", "json").stdout)
    assert a == b == c


def test_ideal_lat():
    # --ideal-lat: each row against the ideal network with every latency floor
    r = same_as_cli({"workload": "models/workloads/resnet50.json", "policy": "themis",
                     "intra": "scf", "chunks": 8, "ideal_lat": True},
                    ["models/workloads/resnet50.json", "-p", "themis", "-q", "scf", "-n", "8",
                     "--ideal-lat"])
    assert "ideal_lat_iteration_us" in r["workload"]
    assert "speedup_vs_ideal_lat" in r["results"][0]
    assert themis.train("models/workloads/resnet50.json", policy="themis", intra="scf",
                        chunks=8, ideal_lat=True) == r
    assert "speedup_vs_ideal_lat" not in themis.train(
        "models/workloads/resnet50.json", policy="themis", intra="scf")["results"][0]


def test_astra_sim_1_0_text_workloads():
    # Under the astra-sim-1.0 preset, ASTRA-sim 1.0's replay: layer 0's All-Reduce of 1 MiB
    # (29294 ns in one chunk) is issued at 5004 ns, so every pair ends at 34298 ns, and two
    # passes at 68596 (test_astra1_workload.c, cli_train_preset, derives these).
    wl, sys = "tests/data/astra1/data2_ar.txt", "tests/data/astra1/sw4.json"
    r = same_as_cli({"workload": wl, "system": sys}, [wl, "-s", sys])
    assert [x["total_us"] for x in r["results"]] == [34.298] * 4
    r = same_as_cli({"workload": wl, "system": sys, "passes": 2, "policy": "themis",
                     "intra": "scf", "chunks": 1},
                    [wl, "-s", sys, "--passes", "2", "-p", "themis", "-q", "scf", "-n", "1"])
    assert len(r["results"]) == 1
    assert r["results"][0]["total_us"] == 68.596
    assert r["results"][0]["iteration_us"] == 34.298
    # On our model, converted and replayed with our semantics: computes of 1000 ns around an
    # All-Reduce of 1e6 bytes on the ring of 4 (2 (3 x 10 + 1e6 x 3 / 400) = 15060 ns), so a
    # period of 2000 + 15060 ns; compute_scale 2 makes it 4000 + 15060 (cli_train_text).
    wl, sys = "tests/data/astra1/data1.txt", "tests/data/cli_ring4.json"
    r = same_as_cli({"workload": wl, "system": sys, "policy": "baseline", "intra": "fifo",
                     "chunks": 1, "compute_scale": 2},
                    [wl, "-s", sys, "-p", "baseline", "-q", "fifo", "-n", "1",
                     "--compute-scale", "2"])
    assert r["results"][0]["iteration_us"] == 19.06
    r = themis.train(wl, sys, policy="baseline", intra="fifo", chunks=1)
    assert r["results"][0]["iteration_us"] == 17.06


def test_astra_sim_1_0_options_refused_where_they_do_not_apply():
    with pytest.raises(themis.Error, match="comm_scale, compute_scale and passes are for "
                       "ASTRA-sim 1.0 text workloads"):
        themis.train("models/workloads/resnet50.json", passes=2)
    with pytest.raises(themis.Error, match="bucket, chunking and ideal_lat are for our replay"):
        themis.train("tests/data/astra1/data2_ar.txt", "tests/data/astra1/sw4.json",
                     bucket="on")
    with pytest.raises(themis.Error, match="passes: ASTRA-sim 1.0's passes replay under"):
        themis.train("tests/data/astra1/data1.txt", "tests/data/cli_ring4.json", passes=2)
    with pytest.raises(themis.Error, match="policy roundrobin: ASTRA-sim 1.0's replay takes"):
        themis.train("tests/data/astra1/data2_ar.txt", "tests/data/astra1/sw4.json",
                     policy="roundrobin")

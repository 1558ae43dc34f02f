"""themis.train against `themis train -f json`: the same text, byte for byte."""

import json

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

"""themis.optimize against `themis optimize -f json`: the same text, byte for byte (COBYLA from
three deterministic starts: the same input gives the same output)."""

import json

import themis
from themis import _lib

from conftest import cli, cli_error, src


def same_as_cli(request, args):
    text = _lib.call("optimize", request)
    assert text == cli("optimize", "-f", "json", *args).stdout
    return json.loads(text)


def test_one_collective():
    r = same_as_cli({"max_evals": 60}, ["--max-evals", "60"])
    assert [(x["policy"], x["intra"]) for x in r["results"]] == [("themis", "scf")]
    same_as_cli({"system": "models/systems/hetero-4d.json", "size": "256MiB", "chunks": 16,
                 "policy": "all", "intra": "fifo", "budget": 600, "cost": [1, 1, 2, 4],
                 "dims": [1, 2, 3], "min_GBps": 5, "max_GBps": 400, "max_evals": 40,
                 "objective": "perf-per-cost", "collective": "reducescatter"},
                ["-s", "models/systems/hetero-4d.json", "-b", "256MiB", "-n", "16", "-p", "all",
                 "-q", "fifo", "--budget", "600", "--cost", "1,1,2,4", "--dims", "1,2,3",
                 "--min", "5", "--max", "400", "--max-evals", "40", "--objective",
                 "perf-per-cost", "-c", "reducescatter"])


def test_workload_and_list():
    same_as_cli({"workload": "models/workloads/resnet50.json", "batch": 2, "priority": "fifo",
                 "max_evals": 20},
                ["-w", "models/workloads/resnet50.json", "--batch", "2", "--priority", "fifo",
                 "--max-evals", "20"])
    same_as_cli({"collectives": "models/collectives/llm-step.json", "max_evals": 20},
                ["-l", "models/collectives/llm-step.json", "--max-evals", "20"])
    with open(src("models", "collectives", "llm-step.json")) as f:
        lst = json.load(f)
    with open(src("models", "workloads", "resnet50.json")) as f:
        wl = json.load(f)
    assert themis.optimize(collectives=lst, max_evals=20) == \
        themis.optimize(collectives="models/collectives/llm-step.json", max_evals=20)
    assert themis.optimize(workload=wl, max_evals=20) == \
        themis.optimize(workload="models/workloads/resnet50.json", max_evals=20)


def test_best_chunk_count():
    r = same_as_cli({"size": "256MiB", "policy": "all", "chunks": "auto"},
                    ["-b", "256MiB", "-p", "all", "--chunks", "auto"])
    assert [x["policy"] for x in r] == ["baseline", "themis", "roundrobin", "lp"]
    same_as_cli({"system": "models/systems/hetero-4d.json", "size": 1e8, "chunks": [1, 4, 16],
                 "intra": "fifo", "dims": [0, 1]},
                ["-s", "models/systems/hetero-4d.json", "-b", "1e8", "--chunks", "1,4,16",
                 "-q", "fifo", "--dims", "0,1"])
    assert themis.optimize(size="64MiB", chunks=range(1, 9)) == \
        json.loads(cli("optimize", "-b", "64MiB", "--chunks", "1,2,3,4,5,6,7,8", "-f",
                       "json").stdout)


def test_errors():
    def msg(**kw):
        try:
            themis.optimize(**kw)
        except themis.Error as e:
            return str(e)
        raise AssertionError("no error")

    assert msg(workload="models/workloads/resnet50.json",
               collectives="models/collectives/llm-step.json") == \
        "optimize: collectives and workload: one objective at a time"
    assert msg(chunks=[4], workload="models/workloads/resnet50.json") == \
        "optimize: chunks: a list is for one collective, not with workload or collectives"
    assert msg(chunks=[]).startswith(
        'optimize: chunks: expected a count, "auto" or a list of 1 to 64 counts')
    assert msg(chunks=[1, 0]).startswith("optimize: chunks: expected a count")
    assert msg(chunks="most").startswith("optimize: chunks: expected a count")
    assert msg(chunks=0) == "optimize: chunks: expected an integer from 1 to 1000000, got 0"
    assert msg(batch=2) == "optimize: batch and priority apply to a workload"
    assert msg(cost=[1, 1]).startswith(
        "optimize: cost: expected a list of 3 numbers > 0 (one per dim), got")
    assert msg(cost=[1, 0, 1]).startswith("optimize: cost: expected a list of 3 numbers")
    assert msg(intra="all").startswith('optimize: intra: unknown value "all"')
    assert msg(objective="cheap").startswith('optimize: objective: unknown value "cheap"')
    assert msg(budget=-1).startswith("optimize: budget: expected a number > 0")
    assert msg(collectives=3).startswith("optimize: collectives: expected a file name")
    # what the files hold: the command line's messages
    assert msg(collectives="no/such.json") == cli_error("optimize", "-l", "no/such.json")[0]
    assert msg(collectives={"collectives": [{"type": "allreduce"}]}).startswith(
        "collectives: collectives[0]")
    assert msg(budget=1e-9, max_evals=5) == cli_error("optimize", "--budget", "1e-9",
                                                      "--max-evals", "5")[0]

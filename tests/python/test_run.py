"""themis.run and themis.load_system against `themis run -f json`: the same text, byte for
byte, so the same numbers to the last bit."""

import json

import themis
from themis import _lib

from conftest import cli, cli_json, src


def same_as_cli(request, args):
    """The library's JSON for request is the command line's output for args, byte for byte."""
    text = _lib.call("run", request)
    assert text == cli("run", "-f", "json", *args).stdout
    return json.loads(text)


def test_default_comparison():
    # the default comparison of README (1 GiB All-Reduce, 64 chunks, default-3d, every pair)
    r = same_as_cli({}, [])
    assert [(x["policy"], x["intra"]) for x in r["results"]] == [
        ("baseline", "fifo"), ("baseline", "scf"), ("themis", "fifo"), ("themis", "scf"),
        ("roundrobin", "fifo"), ("roundrobin", "scf"), ("lp", "fifo"), ("lp", "scf")]
    assert themis.run() == r


def test_options_as_on_the_command_line():
    sys_file = "models/systems/hetero-4d.json"
    same_as_cli({"system": sys_file, "collective": "reducescatter", "size": "256MiB",
                 "chunks": 32, "policy": "themis", "intra": "scf", "dims": [0, 2]},
                ["-s", sys_file, "-c", "reducescatter", "-b", "256MiB", "-n", "32", "-p",
                 "themis", "-q", "scf", "--dims", "0,2"])
    same_as_cli({"size": 1e9, "chunks": 7, "load_model": "bandwidth", "policy": "all",
                 "intra": "fifo", "bound": True},
                ["-b", "1e9", "-n", "7", "--load-model", "bandwidth", "-p", "all", "-q", "fifo",
                 "--bound"])
    same_as_cli({"collective": "alltoall", "dims": "1,2", "size": 4096},
                ["-c", "alltoall", "--dims", "1,2", "-b", "4096"])


def test_ideal_lat():
    # --ideal-lat: the ideal plus the collective's latency floor, per result
    r = same_as_cli({"size": "1MiB", "chunks": 4, "policy": "themis", "intra": "all",
                     "ideal_lat": True},
                    ["-b", "1MiB", "-n", "4", "-p", "themis", "-q", "all", "--ideal-lat"])
    assert "latency_floor_us" in r and all("vs_ideal_lat" in x for x in r["results"])
    assert themis.run(size="1MiB", chunks=4, policy="themis", intra="all", ideal_lat=True) == r
    same_as_cli({"system": "models/systems/hetero-4d.json", "collective": "alltoall",
                 "dims": [1, 3], "bound": True, "ideal_lat": True},
                ["-s", "models/systems/hetero-4d.json", "-c", "alltoall", "--dims", "1,3",
                 "--bound", "--ideal-lat"])
    assert "vs_ideal_lat" not in themis.run(size="1MiB", ideal_lat=False)["results"][0]


def test_keyword_api_equals_cli():
    r = themis.run("models/systems/default-3d.json", collective="allgather", size="64MiB",
                   chunks=16, policy="baseline", intra="all", dims=range(0, 2), bound=True)
    assert r == cli_json("run", "-f", "json", "-s", "models/systems/default-3d.json", "-c",
                         "allgather", "-b", "64MiB", "-n", "16", "-p", "baseline", "-q", "all",
                         "--dims", "0,1", "--bound")


def test_system_dict_equals_file():
    with open(src("models", "systems", "balanced-3d.json")) as f:
        d = json.load(f)
    assert themis.run(d, chunks=8) == themis.run("models/systems/balanced-3d.json", chunks=8)


def test_run_defaults_of_a_system_file(tmp_path):
    # a system file's "run" object stands in for absent -n, -p, -q, as for themis run
    with open(src("models", "systems", "default-3d.json")) as f:
        d = json.load(f)
    d["run"] = {"chunks": 4, "policy": "themis", "intra": "scf"}
    path = tmp_path / "with-run.json"
    path.write_text(json.dumps(d))
    r = same_as_cli({"system": str(path)}, ["-s", str(path)])
    assert r["collective"]["chunks"] == 4
    assert [(x["policy"], x["intra"]) for x in r["results"]] == [("themis", "scf")]
    # an option given wins over the file's default
    r = same_as_cli({"system": str(path), "chunks": 2}, ["-s", str(path), "-n", "2"])
    assert r["collective"]["chunks"] == 2
    assert themis.run(d, chunks=2) == r  # the dict keeps its "run" object too


def test_load_system():
    s = themis.load_system("models/systems/default-3d.json")
    assert s == cli_json("run", "-f", "json", "-p", "baseline", "-q", "fifo")["system"]
    # defaults filled in: the per-dim algorithm of each topology, efficiency 1
    assert [d["algorithm"] for d in s["dims"]] == ["ring", "direct", "rhd"]
    assert s["npus"] == 4 * 8 * 16
    with open(src("models", "systems", "default-3d.json")) as f:
        assert themis.load_system(json.load(f)) == s  # a dict: the same system
    assert themis.load_system(None)["name"] == "default-3d"  # the built-in default


def test_version_is_the_binary_one():
    assert cli("--version").stdout.split()[1] == themis.version()
    assert themis.__version__ == themis.version()

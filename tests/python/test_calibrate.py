"""themis.calibrate against `themis calibrate -f json`: the same report, byte for byte, and
errors with the command line's messages."""

import json

import pytest

import themis
from themis import _lib

from conftest import cli, cli_error

LOG = "tests/data/calibrate/allreduce-8.log"


def same_as_cli(tmp_path, request, args):
    text = _lib.call("calibrate", request)
    out = tmp_path / "out.json"
    p = cli("calibrate", *args, "-o", str(out), "-f", "json", "--force")
    assert text == p.stdout
    r = json.loads(text)
    with open(out) as f:
        assert r["system"] == json.load(f)  # the system file the command wrote
    return r


def test_new_system(tmp_path):
    r = same_as_cli(tmp_path, {"logs": [LOG], "topology": "switch"},
                    [LOG, "--topology", "switch"])
    assert r["dim"]["npus"] == 8 and r["logs"][0]["collective"] == "allreduce"
    # the file keeps 6 significant digits
    assert r["system"]["dims"][0]["latency_ns"] == float(f"{r['fit']['latency_ns']:.6g}")
    assert r["system"]["dims"][0]["bw_GBps"] == float(f"{r['fit']['bw_GBps']:.6g}")
    assert len(r["points"]) == r["fit"]["rows"]
    # the table report shows the same fit
    table = cli("calibrate", LOG, "--topology", "switch", "-o", str(tmp_path / "t.json")).stdout
    assert f"latency_ns  {r['fit']['latency_ns']:.6g} " in table
    assert f"R^2 {r['fit']['r2']:.6f} " in table
    assert themis.calibrate(LOG, topology="switch") == r


def test_options_and_an_existing_system(tmp_path):
    same_as_cli(tmp_path, {"logs": LOG, "topology": "switch", "npus": 8, "name": "lab",
                           "algorithm": "ring", "in_place": True, "min_size": "64KiB",
                           "max_size": 1 << 28, "tolerance": 0.02, "efficiency": True,
                           "bw": 400, "collective": "allreduce"},
                [LOG, "--topology", "switch", "--npus", "8", "--name", "lab", "--algorithm",
                 "ring", "--in-place", "--min-size", "64KiB", "--max-size", "268435456",
                 "--tolerance", "0.02", "--efficiency", "--bw", "400", "-c", "allreduce"])
    sys_file = tmp_path / "two.json"
    sys_file.write_text(json.dumps({"name": "two", "dims": [
        {"topology": "ring", "npus": 4, "bw_GBps": 50, "latency_ns": 500},
        {"topology": "switch", "npus": 8, "bw_GBps": 100, "latency_ns": 700}]}))
    r = same_as_cli(tmp_path, {"logs": [LOG], "system": str(sys_file), "dim": 1},
                    [LOG, "-s", str(sys_file), "--dim", "1"])
    assert r["was"] == {"latency_ns": 700, "bw_GBps": 100, "efficiency": 1}
    assert r["system"]["dims"][0] == {"topology": "ring", "npus": 4, "bw_GBps": 50,
                                      "latency_ns": 500}
    assert themis.calibrate([LOG], system=sys_file, dim=1) == r


def raised(**kw):
    with pytest.raises(themis.Error) as e:
        themis.calibrate(**kw)
    return str(e.value), e.value.code


def test_errors_as_the_cli(tmp_path):
    assert raised(logs="no/such.log", topology="switch") == \
        cli_error("calibrate", "no/such.log", "--topology", "switch")
    assert raised(logs=LOG, topology="switch", npus=4) == \
        cli_error("calibrate", LOG, "--topology", "switch", "--npus", "4")
    foreign = tmp_path / "foreign.log"
    foreign.write_text("hello\nworld\n")
    assert raised(logs=foreign, topology="switch") == \
        cli_error("calibrate", str(foreign), "--topology", "switch")
    sys_file = tmp_path / "two.json"
    sys_file.write_text(json.dumps({"name": "two", "dims": [
        {"topology": "ring", "npus": 4, "bw_GBps": 50, "latency_ns": 500},
        {"topology": "switch", "npus": 8, "bw_GBps": 100, "latency_ns": 700}]}))
    assert raised(logs=LOG, system=sys_file) == cli_error("calibrate", LOG, "-s", str(sys_file))
    # the combinations of options: the command's message after "calibrate: "
    msg, code = cli_error("calibrate", LOG)
    assert msg == "calibrate: expected --topology (a new system) or -s (update a dim) " \
        "(see 'themis calibrate --help')" and code == 2
    assert raised(logs=LOG) == (msg.replace(" (see 'themis calibrate --help')", ""), 2)
    assert raised(logs=LOG, topology="switch", efficiency=True)[0] == \
        "calibrate: --efficiency on a new system needs its nominal --bw"


@pytest.mark.parametrize("kw, message", [
    ({}, "calibrate: logs: missing (a file or a list of files)"),
    ({"logs": [1]}, "calibrate: logs: expected a log file name or a list of them"),
    ({"logs": LOG, "topology": "torus"}, 'calibrate: topology: unknown value "torus"'),
    ({"logs": LOG, "topology": "ring", "npus": 1},
     "calibrate: npus: expected an integer from 2 to"),
    ({"logs": LOG, "topology": "ring", "tolerance": 0},
     "calibrate: tolerance: expected a number > 0"),
    ({"logs": LOG, "topology": "ring", "min_size": "1XB"}, 'calibrate: min_size: unknown unit'),
    ({"logs": LOG, "topolgy": "ring"}, 'calibrate: topolgy: unknown key; did you mean "topology"?'),
])
def test_bad_requests(kw, message):
    with pytest.raises(themis.Error) as e:
        _lib.call("calibrate", kw)
    assert str(e.value).startswith(message) and e.value.code == 2, str(e.value)


def test_plot(tmp_path):
    # --plot: the same image as the command's (SVG, byte for byte), the same report
    a, b = tmp_path / "cli.svg", tmp_path / "lib.svg"
    cli("calibrate", LOG, "--topology", "switch", "--plot", str(a), "-o", str(tmp_path / "s.json"))
    r = json.loads(_lib.call("calibrate", {"logs": LOG, "topology": "switch", "plot": str(b)}))
    assert a.read_bytes() == b.read_bytes() and r == themis.calibrate(LOG, topology="switch")
    assert raised(logs=LOG, topology="switch", plot=b)[0] == \
        cli_error("calibrate", LOG, "--topology", "switch", "--plot", str(b))[0]
    themis.calibrate(LOG, topology="switch", plot=b, force=True)
    # never over an input: a plot named as the system read (-s) is refused, file untouched
    sys_svg = tmp_path / "sys.svg"
    sys_svg.write_text('{"dims": [{"topology": "switch", "npus": 8}]}')
    msg, code = raised(logs=LOG, system=sys_svg, dim=0, plot=sys_svg)
    assert (msg, code) == cli_error("calibrate", LOG, "-s", str(sys_svg), "--dim", "0",
                                    "--plot", str(sys_svg), "--force")
    assert "is also an input" in msg and code == 2
    assert sys_svg.read_text() == '{"dims": [{"topology": "switch", "npus": 8}]}'
    assert raised(logs=LOG, topology="switch", plot=tmp_path / "x.gif")[0] == \
        cli_error("calibrate", LOG, "--topology", "switch", "--plot",
                  str(tmp_path / "x.gif"))[0].replace("calibrate: --plot: ", "calibrate: plot: ") \
        .replace(" (see 'themis calibrate --help')", "")


def test_limits(tmp_path):
    with pytest.raises(themis.Error) as e:
        themis.calibrate([LOG] * 65, topology="switch")
    assert str(e.value) == "calibrate: logs: at most 64 logs"
    # the plot never goes over an input
    log = tmp_path / "log.svg"
    log.write_bytes(open(LOG, "rb").read())
    msg, code = raised(logs=log, topology="switch", plot=log, force=True)
    assert msg == cli_error("calibrate", str(log), "--topology", "switch", "--plot", str(log),
                            "--force")[0] and code == 2


def test_held_out_and_range():
    """The fitted range and the error on held-out sizes, per log, in the JSON report."""
    r = themis.calibrate("tests/data/calibrate/h100-2x8.log", topology="switch",
                         min_size="64MiB")
    assert r["fit"]["min_size"] == 64 << 20 and r["fit"]["max_size"] == 8 << 30
    h = r["logs"][0]["held_out"]
    assert h["rows"] == 4 and 0 < h["rms_residual"] <= h["max_residual"] < 0.1
    held = [p for p in r["points"] if p["held_out"]]
    assert len(held) == 4 and all("held_out_us" in p for p in held)
    assert r["system"]["run"] == {"chunks": 1}


def test_two_dims_and_prefix(tmp_path):
    """A 2 x 8 log fits the network dim with the node's held; the launcher prefix is named."""
    sys_file = tmp_path / "hgx.json"
    sys_file.write_text(json.dumps({"name": "hgx", "dims": [
        {"name": "node", "topology": "switch", "npus": 8, "bw_GBps": 360, "latency_ns": 800},
        {"name": "network", "topology": "switch", "npus": 2, "bw_GBps": 50,
         "latency_ns": 1000}]}))
    log = "tests/data/calibrate/a100-2x8-tagged.log"
    r = same_as_cli(tmp_path, {"logs": [log], "system": str(sys_file), "dim": 1,
                               "min_size": "64MiB"},
                    [log, "-s", str(sys_file), "--dim", "1", "--min-size", "64MiB"])
    assert r["dim"]["held"] == [{"index": 0, "name": "node", "npus": 8, "latency_ns": 800,
                                 "bw_GBps": 360}]
    assert r["logs"][0]["ranks"] == 16 and r["logs"][0]["held_dims"] == 1
    assert r["logs"][0]["prefix"] == "[1,0]<stdout>:"
    assert r["system"]["dims"][0]["bw_GBps"] == 360 and r["system"]["run"] == {"chunks": 1}


def test_npus_per_node(tmp_path):
    """A 2 x 8 log alone with the node held at --node-bw: two dims, the node's assumed, and the
    same report as the command's."""
    log = "tests/data/calibrate/h100-2x8.log"
    r = themis.calibrate(log, topology="switch", npus_per_node=8, node_bw=300,
                         min_size="64MiB")
    assert r["determined"] == {"node": "assumed", "network": "given the node's assumed values"}
    assert (r["npus_per_node"], r["nodes"]) == (8, 2)
    assert [d["npus"] for d in r["system"]["dims"]] == [8, 2]
    assert r["system"]["dims"][0]["bw_GBps"] == 300 and r["system"]["run"] == {"chunks": 1}
    assert len(r["stages"]) == 1 and r["stages"][0]["dim"]["index"] == 1
    same_as_cli(tmp_path, {"logs": [log], "topology": "switch", "npus_per_node": 8,
                           "node_bw": 300, "min_size": "64MiB"},
                [log, "--topology", "switch", "--npus-per-node", "8", "--node-bw", "300",
                 "--min-size", "64MiB"])

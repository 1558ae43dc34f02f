"""Failures raise themis.Error with the message the command line prints (after "themis: ")
and, as e.code, its exit status; request values are checked with messages naming the key."""

import ctypes
import json

import pytest

import themis
from themis import _lib

from conftest import cli_error, src

BAD_SYSTEM = {"name": "bad", "dims": [
    {"topology": "ring", "npus": 4, "bw_GBps": 10, "latency_ns": 1},
    {"topology": "ring", "npus": 2, "bw_GBps": -5, "latency_ns": 1}]}


def raised(fn, *args, **kw):
    with pytest.raises(themis.Error) as e:
        fn(*args, **kw)
    return str(e.value), e.value.code


def test_bad_system_file_as_the_cli(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(BAD_SYSTEM))
    msg, code = cli_error("run", "-s", str(path))
    assert "dims[1].bw_GBps" in msg and code == 2
    assert raised(themis.run, path) == (msg, code)
    assert raised(themis.load_system, str(path)) == (msg, code)
    assert raised(themis.train, "models/workloads/resnet50.json", path) == \
        cli_error("train", "models/workloads/resnet50.json", "-s", str(path))
    # as a dict, "system" takes the place of the file name
    assert raised(themis.run, BAD_SYSTEM) == (msg.replace(str(path), "system"), 2)


def test_missing_files_as_the_cli():
    assert raised(themis.run, "no/such.json") == cli_error("run", "-s", "no/such.json")
    assert raised(themis.train, "no/such.json") == cli_error("train", "no/such.json")
    assert raised(themis.sweep, "no/such.json") == cli_error("sweep", "no/such.json", "-o",
                                                             "/dev/null")


def test_bad_workload_and_spec_as_the_cli(tmp_path):
    wl = tmp_path / "wl.json"
    wl.write_text('{"name": "w", "layers": [{"name": "l", "forward": {"ns": -1}}]}')
    msg, code = cli_error("train", str(wl))
    assert raised(themis.train, wl) == (msg, code)
    spec = tmp_path / "spec.json"
    spec.write_text('{"name": "s", "axes": {"chunks": [1, 2], "colour": ["red"]}}')
    msg, code = cli_error("sweep", str(spec), "-o", "/dev/null")
    assert "colour" in msg
    assert raised(themis.sweep, spec) == (msg, code)


def test_what_the_options_ask_of_the_system(tmp_path):
    # a system cause the library names only through the file (cli_blame): no active dim
    one = {"name": "x", "dims": [{"topology": "ring", "npus": 1, "bw_GBps": 10, "latency_ns": 1},
                                 {"topology": "ring", "npus": 4, "bw_GBps": 10, "latency_ns": 1}]}
    path = tmp_path / "one.json"
    path.write_text(json.dumps(one))
    msg, code = cli_error("run", "-s", str(path), "--dims", "0")
    assert msg.startswith(str(path) + ": ")
    assert raised(themis.run, path, dims=[0]) == (msg, code)
    assert raised(themis.run, one, dims=[0]) == (msg.replace(str(path), "system"), 2)
    # dims out of range: the message of --dims
    assert raised(themis.run, dims=[5])[0] == cli_error("run", "--dims", "5")[0]


@pytest.mark.parametrize("kw, message", [
    ({"chunks": 0}, "run: chunks: expected an integer from 1 to 1000000, got 0"),
    ({"chunks": 2.5}, "run: chunks: expected an integer from 1 to 1000000, got 2.5"),
    ({"policy": "fastest"}, 'run: policy: unknown value "fastest"'),
    ({"policy": "ideal"}, 'run: policy: unknown value "ideal"'),  # training only
    ({"intra": "lifo"}, 'run: intra: unknown value "lifo"'),
    ({"collective": "broadcast"}, 'run: collective: unknown value "broadcast"'),
    ({"size": "12XB"}, 'run: size: unknown unit in "12XB"'),
    ({"size": "lots"}, "run: size: expected a size such as 4096"),
    ({"size": 0}, "run: size: expected a size of at least 1 byte, got 0"),
    ({"size": [1]}, "run: size: expected a size (bytes, or a string"),
    ({"dims": [0, -1]}, "run: dims: expected a list of dim indices"),
    ({"load_model": "exact"}, 'run: load_model: unknown value "exact"'),
    ({"system": 3}, "run: system: expected a file name or a system object, got 3"),
])
def test_bad_run_options(kw, message):
    msg, code = raised(themis.run, **kw)
    assert msg.startswith(message) and code == 2, msg


def test_bad_requests():
    assert raised(_lib.call, "run", {"chunk": 4}) == \
        ('run: chunk: unknown key; did you mean "chunks"?', 2)
    assert raised(_lib.call, "run", {"bound": 1})[0] == "run: bound: expected true or false, got 1"
    assert raised(_lib.call, "run", [1])[0].startswith("run: request: expected an object")
    assert raised(_lib.call, "draw", {})[0] == \
        "unknown command 'draw' (expected run, train, sweep, optimize, calibrate, plot, " \
        "export-chakra, system, version)"
    assert raised(themis.train, "models/workloads/resnet50.json", iterations=1)[0] == \
        "train: iterations: expected an integer from 2 to 1000, got 1"
    assert raised(themis.train, "models/workloads/resnet50.json", batch=0)[0].startswith(
        "train: batch: expected a number > 0")
    assert raised(themis.train, "models/workloads/resnet50.json", priority="random")[0] \
        .startswith('train: priority: unknown value "random"')
    assert raised(themis.train, "models/workloads/resnet50.json", bucket="huge")[0] \
        .startswith("train: bucket: expected a size such as 4096")
    assert raised(themis.train, "models/workloads/resnet50.json", chunking="even")[0] \
        .startswith('train: chunking: unknown value "even"')
    assert raised(_lib.call, "train", {})[0] == "train: workload: missing (a file or an object)"
    assert raised(themis.train, 5)[0].startswith("train: workload: expected a file name")
    assert raised(themis.sweep, "sweeps/chunks-vs-policy.json", jobs=0)[0] == \
        "sweep: jobs: expected an integer from 1 to 1024, got 0"
    assert raised(themis.sweep, "sweeps/chunks-vs-policy.json", shard="4/4")[0] == \
        cli_error("sweep", "sweeps/chunks-vs-policy.json", "--shard", "4/4")[0]
    assert raised(themis.sweep, 7)[0].startswith("sweep: spec: expected a file name")
    assert raised(_lib.call, "version", {"x": 1})[0].startswith("version: x: unknown key")


def test_malformed_request_text():
    # what json.dumps never writes, straight through the C entry point
    out = ctypes.c_void_p()
    rc = _lib._lib.th_api_call(b"run", b'{"chunks": 4,', _lib.ROW_FN(), None, ctypes.byref(out))
    msg = ctypes.string_at(out.value).decode()
    _lib._lib.th_api_free(out.value)
    assert rc == 2 and msg.startswith("run:1:"), msg
    rc = _lib._lib.th_api_call(None, None, _lib.ROW_FN(), None, ctypes.byref(out))
    msg = ctypes.string_at(out.value).decode()
    _lib._lib.th_api_free(out.value)
    assert rc == 2 and msg.startswith("unknown command '(null)'")
    # no request is {}: the default comparison
    rc = _lib._lib.th_api_call(b"version", None, _lib.ROW_FN(), None, ctypes.byref(out))
    assert rc == 0 and json.loads(ctypes.string_at(out.value))["api"] == 5
    _lib._lib.th_api_free(out.value)


def test_library_not_found(tmp_path):
    import subprocess
    import sys
    p = subprocess.run([sys.executable, "-c", "import themis"], capture_output=True, text=True,
                       env={"THEMIS_LIB": str(tmp_path / "nothing.so"),
                            "PYTHONPATH": src("python")})
    assert p.returncode != 0
    assert "cannot load libthemis: tried " + str(tmp_path / "nothing.so") in p.stderr
    assert "set THEMIS_LIB" in p.stderr


def test_ideal_lat_under_a_preset():
    # the latency floor is the analytical model's: a preset is refused, naming the file
    path = src("tests", "data", "astra_2d.json")
    msg, code = cli_error("run", "-s", path, "--ideal-lat")
    assert msg.startswith(path + ": --ideal-lat: ") and code == 2
    assert raised(themis.run, path, ideal_lat=True) == (msg, code)
    assert raised(_lib.call, "run", {"ideal_lat": "yes"})[0] == \
        'run: ideal_lat: expected true or false, got the string "yes"'
    assert raised(_lib.call, "train", {"workload": "models/workloads/resnet50.json",
                                       "ideal_lat": 1})[0] == \
        "train: ideal_lat: expected true or false, got 1"


NAN, INF = float("nan"), float("inf")
RESNET = "models/workloads/resnet50.json"
LOG = "tests/data/calibrate/allreduce-8.log"


# Every argument the package cannot pass on (NaN or infinity, bytes for a string, a value JSON
# has no form for, a non-dict for a dict, a non-bool for a flag): a themis.Error whose message
# names the command and the argument (and the place inside a dict), never ValueError,
# TypeError or AttributeError.
@pytest.mark.parametrize("fn, args, kw, message", [
    (themis.run, (), {"size": NAN}, "run: size: expected a finite number, got nan"),
    (themis.run, (), {"size": INF}, "run: size: expected a finite number, got inf"),
    (themis.run, (), {"chunks": -INF}, "run: chunks: expected a finite number, got -inf"),
    (themis.run, (), {"policy": b"themis"}, "run: policy: expected a string, got bytes b'themis'"),
    (themis.run, (), {"dims": {0, 1}}, "run: dims: expected a string, a number, a bool, a list "
     "or a dict, got set"),
    (themis.run, (), {"bound": "yes"}, "run: bound: expected True or False, got str 'yes'"),
    (themis.run, ({"name": "x", "dims": [{"topology": "ring", "npus": 2, "bw_GBps": NAN,
                                          "latency_ns": 1}]},), {},
     "system: dims[0].bw_GBps: expected a finite number, got nan"),
    (themis.train, (RESNET,), {"batch": NAN}, "train: batch: expected a finite number, got nan"),
    (themis.train, (RESNET,), {"bucket": INF}, "train: bucket: expected a finite number, got inf"),
    (themis.train, (RESNET,), {"priority": b"fifo"}, "train: priority: expected a string"),
    (themis.train, (RESNET,), {"ideal_lat": None}, "train: ideal_lat: expected True or False"),
    (themis.optimize, (), {"budget": NAN}, "optimize: budget: expected a finite number, got nan"),
    (themis.optimize, (), {"cost": [1, NAN, 1]}, "optimize: cost[1]: expected a finite number"),
    (themis.optimize, (), {"cost": 5}, "optimize: cost: expected a list of numbers, got 5"),
    (themis.optimize, (), {"objective": b"time"}, "optimize: objective: expected a string"),
    (themis.sweep, ({"axes": {"size": [1, INF]}},), {},
     "spec: axes.size[1]: expected a finite number, got inf"),
    (themis.sweep, ("sweeps/chunks-vs-policy.json",), {"jobs": NAN},
     "sweep: jobs: expected a finite number, got nan"),
    (themis.sweep, ("sweeps/chunks-vs-policy.json",), {"each": 5},
     "sweep: each: expected a function, got int"),
    (themis.sweep, ("sweeps/chunks-vs-policy.json",), {"frame": "yes"},
     "sweep: frame: expected True, False or None, got 'yes'"),
    (themis.sweep, ("sweeps/chunks-vs-policy.json",), {"shard": b"1/2"},
     "sweep: shard: expected a string, got bytes"),
    (themis.calibrate, (5,), {}, "calibrate: logs: expected a log file name or a list of them"),
    (themis.calibrate, (LOG,), {"topology": "switch", "tolerance": NAN},
     "calibrate: tolerance: expected a finite number, got nan"),
    (themis.calibrate, (LOG,), {"topology": b"switch"}, "calibrate: topology: expected a string"),
    (themis.calibrate, (LOG,), {"topology": "switch", "efficiency": "no"},
     "calibrate: efficiency: expected True or False"),
    (themis.plot, ("a.csv",), {"x": "a", "y": "b", "output": "a.svg", "where": 5},
     'plot: where: expected a dict {column: value} or "col=value" strings, got int 5'),
    (themis.plot, ("a.csv",), {"x": "a", "y": "b", "output": "a.svg", "where": [1]},
     'plot: where: expected "col=value" strings, got int 1'),
    (themis.plot, ("a.csv",), {"x": "a", "y": "b", "output": "a.svg", "where": {1: "a"}},
     "plot: where: expected string keys, got int 1"),
    (themis.plot, (5,), {"x": "a", "y": "b", "output": "a.svg"},
     "plot: csv: expected a file name or a pandas DataFrame, got int"),
    (themis.plot, ("a.csv",), {"x": b"a", "y": "b", "output": "a.svg"},
     "plot: x: expected a string, got bytes b'a'"),
    (themis.plot, ("a.csv",), {"x": "a", "y": "b", "output": "a.svg", "logx": []},
     "plot: logx: expected True or False"),
    (themis.load_system, (5,), {}, "system: system: expected a file name or a system object"),
])
def test_every_bad_argument_is_an_error(fn, args, kw, message):
    msg, code = raised(fn, *args, **kw)
    assert msg.startswith(message), msg
    assert code == 2


def test_numpy_numbers_pass_as_numbers():
    numpy = pytest.importorskip("numpy")
    assert themis.run(size=numpy.int64(1 << 26), chunks=numpy.int32(8)) == \
        themis.run(size=1 << 26, chunks=8)


def test_a_missing_file_is_an_error_not_oserror():
    """A file that cannot be read (or written) is a themis.Error, with the command line's
    message and exit status, never an OSError."""
    for fn, args in ((themis.run, ("no/such.json",)), (themis.train, ("no/such.json",)),
                     (themis.sweep, ("no/such.json",)), (themis.load_system, ("no/such.json",)),
                     (themis.calibrate, (["no/such.log"],), ),
                     (themis.plot, ("no/such.csv", "a", "b"))):
        kw = {"topology": "switch"} if fn is themis.calibrate else {}
        if fn is themis.plot:
            kw = {"output": "never.svg"}
        with pytest.raises(themis.Error) as e:
            fn(*args, **kw)
        assert not isinstance(e.value, OSError)
        assert "no/such" in str(e.value) and e.value.code == 2, (str(e.value), e.value.code)

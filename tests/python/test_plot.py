"""themis.plot against `themis plot`: the same image (SVG, byte for byte) and the same
errors."""

import json

import pytest

import themis
from themis import _lib

from conftest import cli, cli_error


@pytest.fixture
def csv(tmp_path):
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps({"name": "p", "collective": {"type": "allreduce", "size": "64MiB"},
                                "axes": {"chunks": [1, 4, 16], "policy": ["baseline", "themis"],
                                         "intra": ["fifo", "scf"]}}))
    path = tmp_path / "sweep.csv"
    cli("sweep", str(spec), "-o", str(path))
    return path


def test_same_image_as_the_cli(csv, tmp_path):
    a, b = tmp_path / "cli.svg", tmp_path / "lib.svg"
    cli("plot", str(csv), "--x", "chunks", "--y", "time_us", "--by", "policy", "--where",
        "intra=scf", "--logx", "-t", "T", "-o", str(a))
    r = themis.plot(csv, x="chunks", y="time_us", by="policy", where={"intra": "scf"},
                    logx=True, title="T", output=b)
    assert r == {"output": str(b), "rows": 6, "series": ["baseline", "themis"]}
    assert a.read_bytes() == b.read_bytes()
    # where as "col=value" strings, by as a list, a DataFrame as the CSV
    r2 = _lib.call("plot", {"csv": str(csv), "x": "chunks", "y": "time_us", "by": ["policy"],
                            "where": {"intra": "scf"}, "logx": True, "title": "T",
                            "output": str(b), "force": True})
    assert json.loads(r2)["series"] == ["baseline", "themis"]
    assert a.read_bytes() == b.read_bytes()
    pd = pytest.importorskip("pandas")
    df = pd.read_csv(csv)
    themis.plot(df, x="chunks", y="time_us", by=["policy"], where=["intra=scf"],
                logx=True, title="T", output=b, force=True)
    assert a.read_bytes() == b.read_bytes()


def raised(fn, *args, **kw):
    with pytest.raises(themis.Error) as e:
        fn(*args, **kw)
    return str(e.value), e.value.code


def test_errors_as_the_cli(csv, tmp_path):
    out = tmp_path / "x.png"
    assert raised(themis.plot, csv, x="chunk", y="time_us", output=out) == \
        cli_error("plot", str(csv), "--x", "chunk", "--y", "time_us", "-o", str(out))
    assert raised(themis.plot, csv, x="size", y="time_us", output=tmp_path / "x.gif") == \
        cli_error("plot", str(csv), "--x", "size", "--y", "time_us", "-o",
                  str(tmp_path / "x.gif"))
    assert raised(themis.plot, csv, x="size", y="time_us", output=csv) == \
        cli_error("plot", str(csv), "--x", "size", "--y", "time_us", "-o", str(csv), "--force")
    assert raised(themis.plot, "no/such.csv", x="size", y="time_us", output=out) == \
        cli_error("plot", "no/such.csv", "--x", "size", "--y", "time_us", "-o", str(out))
    assert raised(themis.plot, csv, x="size", y="time_us", where={"intra": "lifo"},
                  output=out) == \
        cli_error("plot", str(csv), "--x", "size", "--y", "time_us", "--where", "intra=lifo",
                  "-o", str(out))
    assert not out.exists()
    # an existing image only with force
    themis.plot(csv, x="chunks", y="time_us", output=out)
    assert raised(themis.plot, csv, x="chunks", y="time_us", output=out) == \
        cli_error("plot", str(csv), "--x", "chunks", "--y", "time_us", "-o", str(out))
    # a text x draws bars, but not on a log axis
    assert raised(themis.plot, csv, x="policy", y="time_us", logx=True, output=out,
                  force=True) == \
        cli_error("plot", str(csv), "--x", "policy", "--y", "time_us", "--logx", "-o", str(out),
                  "--force")


@pytest.mark.parametrize("kw, message", [
    ({"x": "a", "y": "b", "output": "o.png"}, "plot: csv: missing (a CSV file)"),
    ({"csv": "c", "y": "b", "output": "o.png"}, "plot: x: missing (a column)"),
    ({"csv": "c", "x": "a", "y": "b"}, "plot: output: missing (the image"),
    ({"csv": "c", "x": "a", "y": "b", "output": "-"},
     "plot: output: the image goes to a file"),
    ({"csv": "c", "x": "a", "y": "b", "output": "o.png", "by": "a,,b"},
     "plot: by: expected a list of column names"),
    ({"csv": "c", "x": "a", "y": "b", "output": "o.png", "where": ["a=1"]},
     "plot: where: expected an object of column: value"),
    ({"csv": "c", "x": "a", "y": "b", "output": "o.png", "where": {"a": 1}},
     "plot: where: expected an object of column: value"),
    ({"csv": "c", "x": "a", "y": "b", "output": "o.png", "logx": "yes"},
     "plot: logx: expected true or false"),
])
def test_bad_requests(kw, message):
    msg, code = raised(_lib.call, "plot", kw)
    assert msg.startswith(message) and code == 2, msg
    assert raised(themis.plot, "c", x="a", y="b", where=["a"], output="o.png") == \
        ('plot: where: expected col=value, got "a"', 2)


def test_request_limits():
    base = {"csv": "c", "x": "a", "y": "b", "output": "o.png"}
    msg = raised(_lib.call, "plot", dict(base, by=[f"c{i}" for i in range(33)]))[0]
    assert msg.startswith("plot: by: expected a list of column names"), msg
    msg = raised(_lib.call, "plot", dict(base, by="c" * 1024))[0]
    assert msg.startswith("plot: by: expected a list of column names"), msg
    msg = raised(_lib.call, "plot", dict(base, where={f"c{i}": "v" for i in range(33)}))[0]
    assert msg.startswith("plot: where: expected an object of column: value"), msg

"""themis.frame: a run's or a train's report as a DataFrame equals the command's CSV read by
pandas, column for column and value for value."""

import io
import json

import pytest

import themis

from conftest import cli

pandas = pytest.importorskip("pandas")


def csv_frame(*args):
    return pandas.read_csv(io.StringIO(cli(*args, "-f", "csv").stdout),
                           float_precision="round_trip", dtype={"dims": str})


def same(df, want):
    """The columns of the CSV, in its order, with the same values."""
    assert list(df.columns) == list(want.columns)
    pandas.testing.assert_frame_equal(df, want, check_dtype=False, check_exact=True)


@pytest.mark.parametrize("kw, args", [
    ({}, []),
    ({"size": "64MiB", "chunks": 8, "dims": [0, 2], "bound": True, "ideal_lat": True},
     ["-b", "64MiB", "-n", "8", "--dims", "0,2", "--bound", "--ideal-lat"]),
    ({"system": "models/systems/hetero-4d.json", "policy": "themis", "collective": "alltoall"},
     ["-s", "models/systems/hetero-4d.json", "-p", "themis", "-c", "alltoall"]),
])
def test_run_frame_is_the_csv(kw, args):
    df = themis.frame(themis.run(**kw))
    same(df, csv_frame("run", *args))


def test_train_frame_is_the_csv():
    r = themis.train("models/workloads/resnet50.json", batch=4, ideal_lat=True)
    want = csv_frame("train", "models/workloads/resnet50.json", "--batch", "4", "--ideal-lat")
    same(themis.frame(r), want)


def test_train_collectives_frame():
    r = themis.train("models/workloads/resnet50.json", policy="themis", intra="scf")
    df = themis.frame(r, collectives=True)
    colls = r["per_collective"]
    assert len(df) == len(colls) == r["results"][0]["collectives"]
    assert list(df["time_us"]) == [c["time_us"] for c in colls]
    assert list(df["dims"]) == [";".join(map(str, c["dims"])) for c in colls]
    assert set(df["policy"]) == {"themis"} and set(df["workload"]) == {"resnet50"}


@pytest.mark.parametrize("result, kw, message", [
    (5, {}, "frame: result: expected the dict themis.run or themis.train returns, got int"),
    ({"results": []}, {}, "frame: result: expected the dict themis.run or themis.train returns"),
    ("run", {}, "frame: result: expected"),
])
def test_frame_errors(result, kw, message):
    with pytest.raises(themis.Error) as e:
        themis.frame(result, **kw)
    assert str(e.value).startswith(message)


def test_run_has_no_collectives_frame():
    with pytest.raises(themis.Error, match="frame: collectives"):
        themis.frame(json.loads(cli("run", "-f", "json").stdout), collectives=True)

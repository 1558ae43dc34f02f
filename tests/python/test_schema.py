"""One schema per command (docs/SCHEMA.md): the keys of each command's result rows are read from
the tables of docs/SCHEMA.md, and its JSON rows, JSONL lines and CSV records are checked to carry
exactly those keys, the JSONL lines equal to the JSON rows and the CSV records to the rows
flattened by the documented rule (built from the tables' keys, independently of the C code
and of themis.frame)."""

import csv
import io
import json
import re

import pytest

from conftest import cli, src

SYS2 = "models/systems/balanced-2d.json"
WL = "models/workloads/resnet50.json"


def schema():
    """{section: [(key, when)]} from the tables of docs/SCHEMA.md."""
    out, section = {}, None
    for line in open(src("docs", "SCHEMA.md"), encoding="utf-8"):
        if line.startswith("## "):
            section = line[3:].strip()
        elif line.startswith("With `--best NAME`"):
            section = "summarize --best"
        m = re.match(r"\| `([^`]+)`[^|]* \|.*\|([^|]*)\|$", line.rstrip("\n"))
        if section and m and not line.startswith("| key"):
            out.setdefault(section, []).append((m.group(1), m.group(2).strip()))
    return out


SCHEMA = schema()


def record(keys, row):
    """The CSV record docs/SCHEMA.md gives a row, built from its table's keys (not by walking
    the row, as themis.frame's flatten does, so that the two cannot share a mistake): `a.k` is
    column a_k; the members `a[i].k` of a list of objects are columns a{i}_k without `per_`,
    element by element, the members in the table's order; a list of scalars is its values
    joined by ';'; any other key is its own column."""
    out, members = {}, {}
    for key in keys:
        m = re.fullmatch(r"(\w+)\[i\]\.(\w+)", key)
        if m:
            members.setdefault(m.group(1), []).append(m.group(2))
    for key in keys:
        m = re.fullmatch(r"(\w+)\[i\]\.(\w+)", key)
        o = re.fullmatch(r"(\w+)\.(\w+)", key)
        if m and m.group(2) == members[m.group(1)][0]:  # the list's columns, at its first member
            a = m.group(1)
            stem = a[4:] if a.startswith("per_") else a
            for i, x in enumerate(row[a]):
                for k in members[a]:
                    out[f"{stem}{i}_{k}"] = x[k]
        elif o:
            out[f"{o.group(1)}_{o.group(2)}"] = row[o.group(1)][o.group(2)]
        elif not m and isinstance(row[key], list):
            out[key] = ";".join(cell(x) for x in row[key])
        elif not m:
            out[key] = row[key]
    return out


def cell(v):
    if v is None:
        return ""
    if isinstance(v, bool):
        return "1" if v else "0"
    return v if isinstance(v, str) else repr(v)


def row_paths(row):
    """A row's keys as the tables name them: per_dim[i].name for each member of a list of
    objects."""
    paths = []
    for k, v in row.items():
        if isinstance(v, list) and v and isinstance(v[0], dict):
            paths += [f"{k}[i].{m}" for m in v[0] if f"{k}[i].{m}" not in paths]
        elif isinstance(v, dict):
            paths += [f"{k}.{m}" for m in v]
        else:
            paths.append(k)
    return paths


def formats(*args):
    doc = json.loads(cli(*args, "-f", "json").stdout)
    lines = [json.loads(l) for l in cli(*args, "-f", "jsonl").stdout.splitlines()]
    records = list(csv.DictReader(io.StringIO(cli(*args, "-f", "csv").stdout)))
    header = next(csv.reader(io.StringIO(cli(*args, "-f", "csv").stdout)))
    return doc, lines, header, records


def same_values(want, got):
    """A CSV record against a flattened row: the same text for strings, the same double for
    numbers, an empty field for null."""
    assert list(got) == list(want), (list(got), list(want))
    for k, v in want.items():
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            assert float(got[k]) == v, (k, got[k], v)
        else:
            assert got[k] == cell(v), (k, got[k], v)


def check(section, rows, lines, header, records, options=()):
    """The rows carry the documented keys (those whose `when` is empty or among options), in
    the documented order; JSONL = the rows; CSV = the rows flattened."""
    want = [k for k, when in SCHEMA[section] if not when or when in options]
    assert rows, "no rows"
    for r in rows:
        assert row_paths(r) == want, (row_paths(r), want)
    assert lines == rows
    assert header == list(record(want, rows[0]))
    assert len(records) == len(rows)
    for r, rec in zip(rows, records):
        same_values(record(want, r), rec)


@pytest.mark.parametrize("args, options", [
    ([], ()),
    (["-s", SYS2, "-b", "64MiB", "--dims", "1", "--bound", "--ideal-lat"],
     ("`--bound`", "`--ideal-lat`")),
])
def test_run(args, options):
    doc, lines, header, records = formats("run", *args)
    check("run", doc["results"], lines, header, records, options)
    assert header[:5] == ["system", "type", "size_bytes", "chunks", "dims"]
    assert "dim0_busy_us" in header  # per_dim[0].busy_us


@pytest.mark.parametrize("args, options", [
    (["-p", "themis", "-q", "all"], ()),
    (["--ideal-lat", "--bucket", "on"], ("`--ideal-lat`",)),
])
def test_train(args, options):
    doc, lines, header, records = formats("train", WL, *args)
    check("train", doc["results"], lines, header, records, options)
    # collectives is a count in every format; the list is the document's per_collective
    for r in doc["results"]:
        mine = [c for c in doc["per_collective"]
                if (c["policy"], c["intra"]) == (r["policy"], r["intra"])]
        assert r["collectives"] == len(mine) > 0


def test_train_llm():
    args = ("tests/data/llm_small.json", "-s", "tests/data/llm_sys_2d.json")
    doc, lines, header, records = formats("train", *args)
    check("train (LLM workload)", doc["results"], lines, header, records)
    assert doc["memory"] == doc["results"][0]["memory"]
    assert records[0]["memory_fits"] == "1"


def test_search():
    args = ("search", "tests/data/llm_model_small.json", "-s", "tests/data/search_sys_2d.json",
            "--global-batch", "16", "-k", "3", "-p", "themis", "-q", "all")
    doc, lines, header, records = formats(*args)
    check("search", doc["results"], lines, header, records)
    assert [(r["intra"], r["rank"]) for r in doc["results"]] == \
        [("fifo", 1), ("fifo", 2), ("fifo", 3), ("scf", 1), ("scf", 2), ("scf", 3)]
    assert records[0]["mapping"].count(";") == 3


def test_train_astra1():
    # -q fifo: under SCF this run is refused (the order of its NPUs decides ties)
    args = ("tests/data/astra1/mlp_model.txt", "-s", "tests/data/astra1/sw888_branch.json",
            "-q", "fifo")
    doc, lines, header, records = formats("train", *args)
    check("train (ASTRA-sim 1.0 replay)", doc["results"], lines, header, records)


@pytest.mark.parametrize("args", [
    ["--budget", "300", "--max-evals", "20"],
    ["--collectives", "models/collectives/llm-step.json", "--max-evals", "20"],
])
def test_optimize(args):
    doc, lines, header, records = formats("optimize", *args)
    check("optimize", doc["results"], lines, header, records)


def test_optimize_chunks():
    doc, lines, header, records = formats("optimize", "-b", "64MiB", "--chunks", "1,4,16")
    check("optimize --chunks LIST", doc, lines, header, records)


def test_sweep(tmp_path):
    spec = tmp_path / "s.json"
    spec.write_text(json.dumps({
        "collective": {"type": "allreduce", "size": "1MiB", "chunks": 4},
        "axes": {"system": [src(SYS2)], "policy": ["baseline", "themis"]}}))
    cli("sweep", str(spec), "-f", "csv", "-o", str(tmp_path / "s.csv"))
    cli("sweep", str(spec), "-f", "jsonl", "-o", str(tmp_path / "s.jsonl"))
    c = (tmp_path / "s.csv").read_text()
    j = (tmp_path / "s.jsonl").read_text()
    header = next(csv.reader(io.StringIO(c)))
    records = list(csv.DictReader(io.StringIO(c)))
    lines = [json.loads(l) for l in j.splitlines()]
    assert [list(l) for l in lines] == [header] * len(records)
    for line, rec in zip(lines, records):
        same_values(line, rec)
    documented = {k for k, _ in SCHEMA["sweep"]}
    assert {"point", "time_us", "npus"} <= documented
    for k in ("point", "policy", "system", "system_file", "time_us", "busbw_GBps",
              "dim1_busy_us", "npus"):
        assert k in header


@pytest.mark.parametrize("best", [False, True])
def test_summarize(best):
    args = ["summarize", "tests/data/summarize_small.csv", "--by", "system,policy"]
    if best:
        args += ["--best", "speedup"]
    doc = json.loads(cli(*args, "-f", "json").stdout)
    lines = [json.loads(l) for l in cli(*args, "-f", "jsonl").stdout.splitlines()]
    text = cli(*args, "-f", "csv").stdout
    header = next(csv.reader(io.StringIO(text)))
    records = list(csv.DictReader(io.StringIO(text)))
    section = "summarize --best" if best else "summarize"
    want = [k.split(".")[0] + "." if "." in k else k for k, _ in SCHEMA[section]]
    rows = doc["groups"]
    assert lines == rows
    for r in rows:
        assert [k + "." if isinstance(v, dict) else k for k, v in r.items()] == want
    # keys and row flatten to their members' own names; a key of keys is also one of row's
    for r, rec in zip(rows, records):
        flat = {}
        for k, v in r.items():
            for m, y in (v.items() if isinstance(v, dict) else [(k, v)]):
                flat.setdefault(m, y)
        if best:
            flat = {"line": flat.pop("line"), **{m: flat[m] for m in r["row"]}}
        same_values(flat, rec)
    assert len(records) == len(rows)
    assert header == (["line", "point", "system", "policy", "speedup", "note"] if best else
                      ["system", "policy", "count", "mean", "gmean", "min", "max"])


def test_calibrate_points():
    p = cli("calibrate", "tests/data/calibrate/allreduce-8.log", "--topology", "switch",
            "--min-size", "64KiB", "-f", "json")
    doc = json.loads(p.stderr)
    documented = [k for k, _ in SCHEMA["calibrate"]]
    always = [k for k, when in SCHEMA["calibrate"] if not when]
    for pt in doc["points"]:
        assert list(pt) == (documented if pt["held_out"] else always), list(pt)

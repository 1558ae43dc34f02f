"""themis.frame: a run's or a train's report (the dict themis.run or themis.train returns) as a
pandas.DataFrame, one row per policy pair, with the columns of the command's `-f csv`."""

from typing import TYPE_CHECKING, Any, Dict, List

from ._lib import Error

if TYPE_CHECKING:
    import pandas


def _cell(v: Any) -> Any:
    """A list (a collective's dims) as the CSV writes it: "0;1;2"."""
    return ";".join(str(x) for x in v) if isinstance(v, list) else v


def _run_rows(result: Dict[str, Any]) -> List[Dict[str, Any]]:
    head = {"system": result["system"]["name"]}
    head.update({k: _cell(v) for k, v in result["collective"].items()})
    head["load_model"] = result["load_model"]
    # the report's own figures (bound_us, latency_floor_us), on every row as the CSV has them
    extra = {k: v for k, v in result.items()
             if k not in ("system", "collective", "load_model", "results")
             and not isinstance(v, (list, dict))}
    rows = []
    for r in result["results"]:
        row = dict(head)
        row.update({k: v for k, v in r.items() if k != "dims"})
        row.update(extra)
        for d in r.get("dims", []):  # dim0_bytes, dim0_busy_us, dim0_bw_util, dim1_...
            row.update({f"dim{d['dim']}_{k}": v for k, v in d.items() if k not in ("dim", "name")})
        rows.append(row)
    return rows


def _llm_rows(result: Dict[str, Any], collectives: bool) -> List[Dict[str, Any]]:
    """An LLM workload's report: the rows of its CSV, the memory per NPU in memory_* columns
    (memory_fits 1 or 0)."""
    if collectives:
        raise Error("frame: collectives: an LLM workload's report has no collectives list", 2)
    memory = result.get("memory", {})
    rows = []
    for r in result["results"]:
        row = {"workload": result["workload"]["name"], "system": result["system"]["name"]}
        row.update(r)
        for k in ("weights", "gradients", "optimizer", "activations", "total"):
            row["memory_" + k] = memory.get(k)
        row["memory_fits"] = int(bool(memory.get("fits")))
        rows.append(row)
    return rows


def _train_rows(result: Dict[str, Any], collectives: bool) -> List[Dict[str, Any]]:
    w = result["workload"]
    if w.get("kind") == "llm":
        return _llm_rows(result, collectives)
    rows = []
    for r in result["results"]:
        row = {"workload": w["name"], "system": result["system"]["name"],
               "policy": r["policy"], "intra": r["intra"]}
        row.update({k: w[k] for k in ("priority", "iterations", "batch") if k in w})
        if collectives:  # one row per collective of the measured iteration
            for c in r.get("collectives", []):
                rows.append({**row, **{k: _cell(v) for k, v in c.items()}})
            continue
        for k, v in r.items():
            if k not in row:
                row[k] = len(v) if k == "collectives" else v  # the CSV's count
        rows.append(row)
    return rows


def frame(result: Dict[str, Any], collectives: bool = False) -> "pandas.DataFrame":
    """The report of themis.run or themis.train as a pandas.DataFrame: one row per policy pair
    with every column `themis run -f csv` (or `themis train -f csv`) writes, the same values
    (a collective's dims as "0;1;2", per-dim figures as dim0_bytes, dim0_busy_us, ...; a train's
    collectives as their count), plus the figures only the JSON report has (with ideal_lat,
    latency_floor_us), not necessarily in the CSV's column order. collectives=True (train only): one row per collective of the
    measured iteration of each pair instead (layer, phase, type, size_bytes, dims, blocking,
    issue_us, end_us, time_us, after workload, system, policy, intra, priority, iterations,
    batch)."""
    import pandas
    if not isinstance(result, dict) or not isinstance(result.get("results"), list):
        raise Error("frame: result: expected the dict themis.run or themis.train returns, got "
                    f"{type(result).__name__}", 2)
    if "collective" in result:
        if collectives:
            raise Error("frame: collectives: a run's report has no collectives list (a "
                        "train's has)", 2)
        rows = _run_rows(result)
    elif isinstance(result.get("workload"), dict) and "name" in result["workload"]:
        rows = _train_rows(result, collectives)
    else:
        raise Error("frame: result: expected the dict themis.run or themis.train returns (with "
                    '"collective" or "workload"), got one with keys ' + ", ".join(result), 2)
    columns: Dict[str, None] = {}
    for row in rows:  # every row's keys, in first-seen order
        columns.update(dict.fromkeys(row))
    return pandas.DataFrame(rows, columns=list(columns))

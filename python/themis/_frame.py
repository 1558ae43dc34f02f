"""themis.frame: a run's or a train's report (the dict themis.run or themis.train returns) as a
pandas.DataFrame, one row per policy pair, with the columns of the command's `-f csv`."""

from typing import TYPE_CHECKING, Any, Dict, List

from ._lib import Error

if TYPE_CHECKING:
    import pandas


def flatten(row: Dict[str, Any]) -> Dict[str, Any]:
    """A result row as its CSV record (docs/SCHEMA.md): a list of scalars joined by ";" (dims
    "0;1;2"), a list of objects one column per element and member named after the list without
    "per_" (per_dim[1]["busy_us"]: dim1_busy_us), an object's members as name_member, true
    and false as 1 and 0."""
    out: Dict[str, Any] = {}

    def put(name: str, v: Any) -> None:
        if isinstance(v, bool):  # true and false as the CSV writes them: 1 and 0
            out[name] = int(v)
        elif isinstance(v, list) and all(not isinstance(x, (list, dict)) for x in v):
            out[name] = ";".join(str(x) for x in v)
        elif isinstance(v, list):
            stem = name[4:] if name.startswith("per_") else name
            for i, x in enumerate(v):
                for k, y in x.items():
                    put(f"{stem}{i}_{k}", y)
        elif isinstance(v, dict):
            for k, y in v.items():
                put(f"{name}_{k}", y)
        else:
            out[name] = v

    for k, v in row.items():
        put(k, v)
    return out


def _train_collectives(result: Dict[str, Any]) -> List[Dict[str, Any]]:
    rows = []
    by_pair = {(r["policy"], r["intra"]): r for r in result["results"]}
    for c in result.get("per_collective", []):
        r = by_pair[(c["policy"], c["intra"])]
        head = {k: r[k] for k in ("workload", "system", "policy", "intra", "priority",
                                  "iterations", "batch") if k in r}
        rows.append({**head, **flatten(c)})
    return rows


def frame(result: Dict[str, Any], collectives: bool = False) -> "pandas.DataFrame":
    """The report of themis.run or themis.train as a pandas.DataFrame: one row per policy pair
    with the columns `themis run -f csv` (or `themis train -f csv`) writes, in its order and
    with the same values: the report's result rows flattened by the rule of docs/SCHEMA.md (a
    collective's dims as "0;1;2", per-dim figures as dim0_name, dim0_bytes, dim0_busy_us, ...).
    collectives=True (train only): one row per collective of the measured iteration of each
    pair instead (the JSON's per_collective: workload, system, policy, intra, priority,
    iterations, batch, then layer, phase, type, size_bytes, dims, blocking, issue_us, end_us,
    time_us)."""
    import pandas
    if not isinstance(result, dict) or not isinstance(result.get("results"), list):
        raise Error("frame: result: expected the dict themis.run or themis.train returns, got "
                    f"{type(result).__name__}", 2)
    if "collective" in result:
        if collectives:
            raise Error("frame: collectives: a run's report has no collectives list (a "
                        "train's has)", 2)
        rows = [flatten(r) for r in result["results"]]
    elif isinstance(result.get("workload"), dict) and "name" in result["workload"]:
        if collectives and result["workload"].get("kind") == "llm":
            raise Error("frame: collectives: an LLM workload's report has no collectives list", 2)
        rows = (_train_collectives(result) if collectives
                else [flatten(r) for r in result["results"]])
    else:
        raise Error("frame: result: expected the dict themis.run or themis.train returns (with "
                    '"collective" or "workload"), got one with keys ' + ", ".join(result), 2)
    columns: Dict[str, None] = {}
    for row in rows:  # every row's keys, in first-seen order
        columns.update(dict.fromkeys(row))
    return pandas.DataFrame(rows, columns=list(columns))

"""themis in Python: the commands of the `themis` tool, run in-process by libthemis.

    import themis
    r = themis.run("models/systems/default-3d.json", size="64MiB", chunks=16, policy="themis")
    r["results"][0]["time_us"]
    df = themis.sweep("sweeps/chunks-vs-policy.json")          # a pandas.DataFrame
    t = themis.train("models/workloads/resnet50.json", policy="themis", intra="scf")

Every result is what `themis COMMAND -f json` prints (the same report code in the same
library, so the same numbers to the last bit); a sweep's rows are its CSV's rows. Systems,
workloads and sweep specs are file names or the files' content as dicts. A failure raises
themis.Error with the message `themis` prints. The library is the one `make python` recorded,
or the one THEMIS_LIB names.
"""

import json
import os
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Mapping, Optional, Sequence, Union

from ._frame import frame
from ._lib import LIBRARY, Error, call
from ._rows import Columns, typed

__all__ = ["Error", "run", "train", "sweep", "optimize", "search", "calibrate", "plot",
           "load_system", "export_chakra", "version", "frame", "LIBRARY"]

if TYPE_CHECKING:
    import pandas

# The types of the arguments: a file name, or a file's content as a dict (a system, a workload,
# a spec); a size in bytes or as a string such as "64MiB"; dims as a list of indices or "0,2".
FileName = Union[str, bytes, "os.PathLike[str]", "os.PathLike[bytes]"]
Source = Union[FileName, Mapping[str, Any]]
Size = Union[int, float, str]
Dims = Union[Sequence[int], str]
Report = Dict[str, Any]


def _source(value: Any) -> Any:
    """A file name (str, bytes or path-like) as a str; anything else as it is (a dict is the
    file's content, other values are refused by the library with their key named)."""
    if isinstance(value, (str, bytes, os.PathLike)):
        return os.fsdecode(value)
    return value


def _request(**options: Any) -> Dict[str, Any]:
    return {k: v for k, v in options.items() if v is not None}


def _dims(dims: Any) -> Any:
    return list(dims) if isinstance(dims, (list, tuple, range)) else dims


def _flags(command: str, req: Dict[str, Any], **flags: Any) -> None:
    """On/off options: True or False (1 and 0 too), else Error naming the keyword; those on go
    into req as true."""
    for key, on in flags.items():
        try:
            ok = not isinstance(on, (str, bytes)) and on in (True, False)
        except (TypeError, ValueError):  # an object that cannot be compared, such as an array
            ok = False
        if not ok:
            raise Error(f"{command}: {key}: expected True or False, got {type(on).__name__} "
                        f"{on!r}", 2)
        if on:
            req[key] = True


def run(system: Optional[Source] = None, collective: Optional[str] = None,
        size: Optional[Size] = None, chunks: Optional[int] = None, policy: Optional[str] = None,
        intra: Optional[str] = None, dims: Optional[Dims] = None,
        load_model: Optional[str] = None, bound: bool = False, ideal_lat: bool = False) -> Report:
    """`themis run -f json`: one collective under each requested policy pair.

    system: a system file, a dict, or None (the built-in default-3d); collective: "allreduce",
    "reducescatter", "allgather" or "alltoall"; size: bytes or a string such as "64MiB";
    chunks: 1 to 1000000; policy: "baseline", "themis", "roundrobin", "lp" or "all"; intra:
    "fifo", "scf" or "all"; dims: involved dims, e.g. [0, 2]; load_model: "alpha_beta" or
    "bandwidth"; bound: add bound_us and vs_bound; ideal_lat: add ideal_lat_us and vs_ideal_lat
    (the ideal plus the collective's latency floor, analytical model only). Options left at None take the command's
    defaults (and a system file's "run" object). Returns the report as a dict."""
    req = _request(system=_source(system), collective=collective, size=size, chunks=chunks,
                   policy=policy, intra=intra, dims=_dims(dims), load_model=load_model)
    _flags("run", req, bound=bound, ideal_lat=ideal_lat)
    return json.loads(call("run", req))


def train(workload: Source, system: Optional[Source] = None, policy: Optional[str] = None,
          intra: Optional[str] = None, priority: Optional[str] = None,
          iterations: Optional[int] = None, batch: Optional[float] = None,
          chunks: Optional[int] = None, chunking: Optional[str] = None,
          bucket: Optional[Size] = None, load_model: Optional[str] = None,
          ideal_lat: bool = False, comm_scale: Optional[float] = None,
          compute_scale: Optional[float] = None, passes: Optional[int] = None,
          micro_batch: Optional[int] = None, schedule: Optional[str] = None,
          comm_group: Optional[FileName] = None,
          remote_memory: Optional[Source] = None) -> Report:
    """`themis train -f json`: training iterations of a workload (a file or a dict) on a
    system; policy also takes "themis-global" and "ideal", priority "fifo", "lifo" or
    "layer"; iterations 2 to 1000; batch: samples per NPU; chunks per collective; chunking
    "capped" or "astra"; bucket: DDP bucket bytes (or "25MiB"), "on" or "off"; ideal_lat: add
    speedup_vs_ideal_lat (against the ideal network with every latency floor). A file in
    ASTRA-sim 1.0's text format (told by content) replays ASTRA-sim 1.0's state machine on an
    astra-sim-1.0 system (comm_scale, compute_scale, passes as its --comm-scale,
    --compute-scale, --num-passes) and is converted for our replay on any other. A Chakra
    execution trace (the prefix of its <prefix>.<rank>.et files, or one of them) replays as a
    graph on any system, as ASTRA-sim 2.x does under the astra-sim preset (docs/CHAKRA.md);
    comm_group: its communicator group file (process group id -> ranks) that pg_name names;
    remote_memory (a file or a dict: ASTRA-sim 2.x's remote memory configuration) replays
    its memory nodes.

    An LLM workload (the key "llm", docs/LLM.md) runs on a system with an "npu": each result
    holds iteration_us and its parts (forward_us, backward_us, recompute_us, tp_exposed_us,
    ep_exposed_us, bubble_us, pp_exposed_us, dp_exposed_us, optimizer_us), mfu and
    tflops_per_npu; the report's "memory" holds the bytes per NPU (weights, gradients,
    optimizer, activations, total) and whether they fit. chunks, bucket, micro_batch and
    schedule ("gpipe", "1f1b" or "interleaved") override the file."""
    req = _request(workload=_source(workload), system=_source(system), policy=policy,
                   intra=intra, priority=priority, iterations=iterations, batch=batch,
                   chunks=chunks, chunking=chunking, bucket=bucket, load_model=load_model,
                   comm_scale=comm_scale, compute_scale=compute_scale, passes=passes,
                   micro_batch=micro_batch, schedule=schedule,
                   comm_group=None if comm_group is None else os.fsdecode(comm_group),
                   remote_memory=_source(remote_memory))
    _flags("train", req, ideal_lat=ideal_lat)
    return json.loads(call("train", req, interruptible=True))


def export_chakra(workload: Source, output: FileName, system: Optional[Source] = None,
                  iterations: Optional[int] = None, batch: Optional[float] = None,
                  bucket: Optional[Size] = None, comm_scale: Optional[float] = None,
                  compute_scale: Optional[float] = None, force: bool = False) -> Report:
    """`themis export-chakra -f json`: the workload (a file or a dict) on the system written as
    a Chakra execution trace, one file per NPU, output + ".<rank>.et", as ASTRA-sim 2.x reads
    it (docs/CHAKRA.md); iterations 1 to 1000 in the trace; batch and bucket as train's;
    comm_scale and compute_scale for an ASTRA-sim 1.0 text workload; force: replace existing
    files. Returns what was written (files, nodes, compute as written) as a dict."""
    req = _request(workload=_source(workload), system=_source(system),
                   output=os.fsdecode(output), iterations=iterations, batch=batch,
                   bucket=bucket, comm_scale=comm_scale, compute_scale=compute_scale)
    _flags("export_chakra", req, force=force)
    return json.loads(call("export-chakra", req))


def optimize(system: Optional[Source] = None, collective: Optional[str] = None,
             size: Optional[Size] = None, chunks: Union[int, Sequence[int], str, None] = None,
             policy: Optional[str] = None, intra: Optional[str] = None,
             budget: Optional[float] = None, cost: Optional[Sequence[float]] = None,
             dims: Optional[Dims] = None, min_GBps: Optional[float] = None,
             max_GBps: Optional[float] = None, max_evals: Optional[int] = None,
             objective: Optional[str] = None, workload: Optional[Source] = None,
             collectives: Optional[Source] = None, batch: Optional[float] = None,
             priority: Optional[str] = None) -> Union[Report, List[Report]]:
    """`themis optimize -f json`: the split of a bandwidth budget over the dims (each dim's
    bw_GBps) that makes one collective fastest under a policy pair (default themis + scf;
    policy "all" for every one), or the weighted sum of a list of collectives (collectives: a
    file or a dict), or a workload's steady-state iteration (workload: a file or a dict; batch
    and priority as for train). budget: in cost units (default the system's own sum); cost:
    one number per dim; dims: the dims whose bandwidth varies; min_GBps, max_GBps: the bounds
    of each; objective: "time" or "perf-per-cost"; max_evals per start. Returns the report
    as a dict. With chunks a list of counts (or "auto": 1, 2, 4, ..., 1024), as --chunks
    LIST: the best count per pair instead, a list of dicts (policy, intra, best_chunks,
    time_us)."""
    if isinstance(chunks, (list, tuple, range)):
        chunks = list(chunks)
    req = _request(system=_source(system), collective=collective, size=size, chunks=chunks,
                   policy=policy, intra=intra, budget=budget,
                   cost=_dims(cost), dims=_dims(dims),
                   min_GBps=min_GBps, max_GBps=max_GBps, max_evals=max_evals,
                   objective=objective, workload=_source(workload),
                   collectives=_source(collectives), batch=batch, priority=priority)
    return json.loads(call("optimize", req, interruptible=True))


def search(model: Source, system: Source, global_batch: Optional[int] = None,
           top: Optional[int] = None, policy: Optional[str] = None, intra: Optional[str] = None,
           fix: Union[Sequence[str], str, None] = None, npus: Optional[int] = None) -> Report:
    """`themis search -f json`: every valid execution of an LLM (model: a model file of
    models/llm/ or an LLM workload, a file or a dict) on all NPUs of a system (which needs an
    "npu"), those that fit in memory, and the best `top` (default 10) by iteration time per
    policy pair (default themis + scf; "all" for every one). global_batch: sequences per
    iteration (required with a model file; default a workload's); fix: keys of a workload's
    execution the search keeps, e.g. ["tp", "pp"]; npus: NPUs each execution uses (default all
    the system's). Returns the report as a dict: "searches"
    (per pair: enumerated, feasible, bounded, evaluated) and "results" (per pair, best first:
    the execution's keys, iteration_us and its breakdown, mfu, tflops_per_npu, memory)."""
    if isinstance(fix, (list, tuple)):
        fix = list(fix)
    req = _request(model=_source(model), system=_source(system), global_batch=global_batch,
                   top=top, policy=policy, intra=intra, fix=fix, npus=npus)
    return json.loads(call("search", req, interruptible=True))


def calibrate(logs: Union[FileName, Sequence[FileName]], topology: Optional[str] = None,
              npus: Optional[int] = None, system: Optional[FileName] = None,
              dim: Optional[int] = None, collective: Optional[str] = None,
              algorithm: Optional[str] = None, name: Optional[str] = None,
              efficiency: bool = False, bw: Optional[float] = None, in_place: bool = False,
              min_size: Optional[Size] = None, max_size: Optional[Size] = None,
              tolerance: Optional[float] = None, allow_wrong: bool = False,
              plot: Optional[FileName] = None, force: bool = False,
              npus_per_node: Optional[int] = None, node_bw: Optional[float] = None,
              node_latency: Optional[float] = None) -> Report:
    """`themis calibrate -f json`: one dim's latency_ns and bw_GBps (or efficiency) fitted to
    nccl-tests / rccl-tests logs (logs: a file or a list of files). Either a new one-dim
    system (topology "ring", "fc" or "switch"; npus, default the ranks the log lists;
    algorithm; name; bw the nominal bandwidth with efficiency=True) or dim `dim` of the
    system file `system` updated. collective: default the test the log names; in_place: fit
    the in-place times; min_size, max_size: the sizes fitted (bytes or "1MiB"); tolerance:
    the relative residual above which a row is flagged (default 0.1); allow_wrong: fit rows
    with #wrong > 0; plot: an image (.png, .pdf, .svg) of measured and fitted time against
    size, as --plot draws it (an existing one replaced only with force). Returns the report as
    a dict: "fit" (latency_ns, bw_GBps, their standard
    errors, r2, ...), "points" (every row's size, measured_us, fitted_us, residual, fitted,
    flagged), "logs", "dim", "was" (with system) and "system" (the system file's content).
    npus_per_node: instead a system of two dims of `topology`, a node of that many NPUs and the
    network across the nodes: logs on one node's ranks fit the node, logs on several nodes the
    network (with no single-node log, the node is held at node_bw and node_latency); the report
    then has "stages" (one such report per dim fitted), "determined" and "system"."""
    if isinstance(logs, (str, bytes, os.PathLike)):
        logs = [logs]
    if isinstance(logs, (list, tuple)):
        logs = [_source(x) for x in logs]
    req = _request(logs=logs, topology=topology, npus=npus,
                   system=_source(system), dim=dim, collective=collective, algorithm=algorithm,
                   name=name, bw=bw, min_size=min_size, max_size=max_size, tolerance=tolerance,
                   plot=_source(plot), npus_per_node=npus_per_node, node_bw=node_bw,
                   node_latency=node_latency)
    _flags("calibrate", req, efficiency=efficiency, in_place=in_place, allow_wrong=allow_wrong,
           force=force)
    return json.loads(call("calibrate", req))


def _where_value(v: Any) -> str:
    return repr(v) if isinstance(v, float) else str(v)


def plot(csv: Union[FileName, "pandas.DataFrame"], x: str, y: str,
         by: Union[str, Sequence[str], None] = None,
         where: Union[Mapping[str, Any], str, Sequence[str], None] = None, logx: bool = False,
         logy: bool = False, title: Optional[str] = None, output: Optional[FileName] = None,
         force: bool = False) -> Report:
    """`themis plot`: column y against column x of a CSV file (or a pandas DataFrame, such as
    themis.sweep returns, written to a temporary CSV), one line per distinct value of the by
    columns (a list, or "col1,col2"), into output (.png, .pdf or .svg, by gnuplot). where: a
    dict {column: value} or "col=value" strings; only the rows whose column holds the value
    (as the CSV writes it) are drawn. Returns {"output", "rows", "series"} (the lines'
    names)."""
    if isinstance(where, (str, list, tuple)):
        pairs = [where] if isinstance(where, str) else list(where)
        where = {}
        for p in pairs:
            if not isinstance(p, str):
                raise Error(f'plot: where: expected "col=value" strings, got {type(p).__name__} '
                            f"{p!r}", 2)
            col, eq, value = p.partition("=")
            if not eq:
                raise Error(f'plot: where: expected col=value, got "{p}"', 2)
            where[col] = value
    elif isinstance(where, dict):
        where = {k: _where_value(v) for k, v in where.items()}
    elif where is not None:
        raise Error('plot: where: expected a dict {column: value} or "col=value" strings, got '
                    f"{type(where).__name__} {where!r}", 2)
    if isinstance(by, (list, tuple)):
        by = list(by)
    req = _request(x=x, y=y, by=by, where=where, title=title, output=_source(output))
    _flags("plot", req, logx=logx, logy=logy, force=force)
    if isinstance(csv, (str, bytes, os.PathLike)):
        req["csv"] = _source(csv)
        return json.loads(call("plot", req))
    if not hasattr(csv, "to_csv"):
        raise Error("plot: csv: expected a file name or a pandas DataFrame, got "
                    f"{type(csv).__name__}", 2)
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        req["csv"] = os.path.join(tmp, "data.csv")
        csv.to_csv(req["csv"], index=False)
        return json.loads(call("plot", req))


def load_system(system: Source) -> Report:
    """A system file (or dict) loaded and checked: the system as `themis run -f json` shows
    it (name, npus, dims with every field filled in)."""
    return json.loads(call("system", _request(system=_source(system))))


def sweep(spec: Source, jobs: Optional[int] = None, shard: Optional[str] = None,
          base_dir: Optional[FileName] = None, frame: Optional[bool] = None,
          each: Optional[Callable[[Dict[str, Any]], Any]] = None
          ) -> Union["pandas.DataFrame", List[Dict[str, Any]], Report]:
    """`themis sweep`: every point of a spec (a file, or a dict whose relative paths start at
    base_dir, default the working folder), in point order. Returns a pandas.DataFrame when
    pandas is importable (frame=None) or frame=True, else a list of dicts (frame=False). The
    columns are the CSV's; whole numbers are int64, other numbers float64. jobs: threads
    (default every core; the rows are the same for any count); shard: "K/N".

    Rows stream from the library into typed columns: no row is kept as text. With each, a
    function, nothing is kept: each(row) is called with every row as a dict (every value
    typed on its own: int, float, or str) and may return True to stop the sweep; sweep then
    returns {"name", "points", "rows"} (rows: those each took, the stopping one not counted)."""
    req = _request(spec=_source(spec), jobs=jobs, shard=shard,
                   base_dir=_source(base_dir))
    if each is not None and not callable(each):
        raise Error(f"sweep: each: expected a function, got {type(each).__name__}", 2)
    if frame not in (None, True, False) or isinstance(frame, (str, bytes)):
        raise Error(f"sweep: frame: expected True, False or None, got {frame!r}", 2)
    if each is not None:
        names = []

        def feed(fields):
            if not names:
                names.extend(f.decode() for f in fields)
                return False
            return each(dict(zip(names, map(typed, fields))))

        return json.loads(call("sweep", req, feed))
    if frame is None:
        try:
            import pandas  # noqa: F401
            frame = True
        except ImportError:
            frame = False
    cols = Columns()
    call("sweep", req, cols.feed)
    return cols.frame() if frame else cols.dicts()


def version() -> str:
    """The library's version (the `themis --version` number)."""
    return json.loads(call("version", {}))["version"]


__version__ = "0.1.0"

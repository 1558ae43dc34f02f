"""Finding libthemis and calling its embedding entry point (include/themis/api.h)."""

import ctypes
import ctypes.util
import json
import math
import numbers
import os
import signal
import threading
from typing import Any, Callable, List, Optional, Sequence, Tuple

# th_api_row_fn: int (*)(void *ctx, size_t nfields, const char *const *fields)
ROW_FN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t,
                          ctypes.POINTER(ctypes.c_char_p))


class Error(Exception):
    """A themis failure: str(e) is the message `themis` prints after "themis: ", and
    e.code the command line's exit status (2 bad input, 3 I/O failure, 1 internal)."""

    code: int

    def __init__(self, message: str, code: int = 2) -> None:
        super().__init__(message)
        self.code = code


def _candidates() -> List[str]:
    path = os.environ.get("THEMIS_LIB")
    if path:
        return [path]  # asked for this one: no other is tried
    found = []
    # the library a wheel carries (make python copies it here), beside this file
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "libthemis.so.0")
    if os.path.exists(here):
        found.append(here)
    name = ctypes.util.find_library("themis")  # an installed libthemis (make install)
    found.append(name or "libthemis.so.0")
    return found


def _load() -> Tuple[Any, str]:
    tried = []
    for path in _candidates():
        try:
            lib = ctypes.CDLL(path)
        except OSError as e:
            tried.append(f"{path} ({e})")
            continue
        lib.th_api_call.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ROW_FN, ctypes.c_void_p,
                                    ctypes.POINTER(ctypes.c_void_p)]
        lib.th_api_call.restype = ctypes.c_int
        lib.th_api_free.argtypes = [ctypes.c_void_p]
        lib.th_api_free.restype = None
        return lib, path
    raise ImportError("themis: cannot load libthemis: tried " + "; ".join(tried) +
                      " (run `make python`, or set THEMIS_LIB to build/libthemis.so.0)")


_lib, LIBRARY = _load()


# Request keys whose dict value is a file's content: named as the library names them, by the key
# alone ("system: dims[0].bw_GBps: ..."), as a file would be by its name.
CONTENT = ("system", "workload", "spec", "collectives")


def _json(prefix: str, path: str, v: Any) -> Any:
    """v as JSON can hold it, or Error naming where it is (prefix + path): NaN and infinity,
    bytes, and values JSON has no form for are refused here, not left to json.dumps."""
    if v is None or isinstance(v, (bool, str)):
        return v
    if isinstance(v, numbers.Integral):  # numpy's integers too
        return int(v)
    if isinstance(v, numbers.Real):
        f = float(v)
        if not math.isfinite(f):
            raise Error(f"{prefix}{path}: expected a finite number, got {f!r}", 2)
        return f
    if isinstance(v, os.PathLike):
        return os.fsdecode(v)
    if isinstance(v, dict):
        out = {}
        for k, x in v.items():
            if not isinstance(k, str):
                raise Error(f"{prefix}{path}: expected string keys, got {type(k).__name__} {k!r}",
                            2)
            out[k] = _json(prefix, f"{path}.{k}" if path else k, x)
        return out
    if isinstance(v, (list, tuple, range)):
        return [_json(prefix, f"{path}[{i}]", x) for i, x in enumerate(v)]
    if isinstance(v, (bytes, bytearray)):
        raise Error(f"{prefix}{path}: expected a string, got bytes {bytes(v)!r}", 2)
    raise Error(f"{prefix}{path}: expected a string, a number, a bool, a list or a dict, got "
                f"{type(v).__name__}", 2)


def request_text(command: str, request: Any) -> bytes:
    """The request (a dict of keyword arguments) as JSON text; Error naming the argument (and
    the place inside it) that JSON cannot hold."""
    if not isinstance(request, dict):  # the library names it ("request: expected an object")
        return json.dumps(_json(f"{command}: ", "request", request), allow_nan=False).encode()
    out = {}
    for key, v in request.items():
        if key in CONTENT and isinstance(v, dict):
            out[key] = _json(f"{key}: ", "", v)
        else:
            out[key] = _json(f"{command}: ", key, v)
    return json.dumps(out, allow_nan=False).encode()


def call(command: str, request: Any, row: Optional[Callable[[Sequence[bytes]], Any]] = None,
         interruptible: bool = False) -> str:
    """Runs one command (th_api_call): the result's JSON text, or Error with its message.
    row: None, or a function(fields: list of bytes) -> bool (True stops a sweep).
    interruptible: a command that polls the callback while it computes (train, optimize).

    An exception in row stops the sweep and is raised here. Ctrl-C while rows stream, or while
    an interruptible command computes, is turned into a stop too, then KeyboardInterrupt: a
    KeyboardInterrupt raised as the callback is entered could not be caught in it (ctypes would
    print and drop it, losing a row)."""
    out = ctypes.c_void_p()
    failure = []
    state = {"header": False, "rows": 0, "stopped": False}  # what row took, and its stop
    sigint = []

    def on_row(_ctx, n, fields):
        try:
            if sigint:
                raise KeyboardInterrupt
            if n == 0:  # a poll (fields NULL): keep going
                return 0
            stop = bool(row(fields[:n]))
            if stop:
                state["stopped"] = True
            elif state["header"]:  # counted as the library counts: rows taken, not the header
                state["rows"] += 1
            else:
                state["header"] = True
            return 1 if stop else 0
        except BaseException as e:  # KeyboardInterrupt too: stop, re-raised below
            failure.append(e)
            return 1

    polled = row is not None or interruptible
    fn = ROW_FN(on_row) if polled else ROW_FN()
    text = request_text(command, request)
    # While the library calls back, SIGINT only marks the stop (its handler cannot raise inside
    # ctypes); the next call back sees the mark and stops the command.
    swap = (polled and threading.current_thread() is threading.main_thread()
            and signal.getsignal(signal.SIGINT) is signal.default_int_handler)
    if swap:
        signal.signal(signal.SIGINT, lambda signum, frame: sigint.append(signum))
    try:
        rc = _lib.th_api_call(command.encode(), text, fn, None, ctypes.byref(out))
    finally:
        if swap:
            signal.signal(signal.SIGINT, signal.default_int_handler)
    if not out.value:
        raise MemoryError("themis: out of memory")
    try:
        result = ctypes.string_at(out.value).decode()
    finally:
        _lib.th_api_free(out.value)
    if failure:
        raise failure[0]
    if sigint:
        raise KeyboardInterrupt
    if rc != 0:
        raise Error(result, rc)
    if row is not None:
        counts = json.loads(result)
        if counts["rows"] != state["rows"] or (counts["rows"] < counts["points"]
                                               and not state["stopped"]):
            # an exception the callback could not catch (printed by ctypes): never return a
            # sweep with rows missing as if it were whole
            raise Error(f"{command}: stopped after {state['rows']} of {counts['points']} rows by "
                        "an exception in the row callback", 1)
    return result

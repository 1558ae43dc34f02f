"""A sweep's rows, collected as they stream in: one typed column per CSV column (whole numbers
as int64, other numbers as float64, text as shared str objects), so that a million rows cost
8 bytes per value and no row is kept as text."""

import re
from array import array
from typing import Any, Dict, List, Optional, Sequence, Union

_INT = re.compile(rb"-?[0-9]+\Z")
_NAN = float("nan")


def typed(b: bytes) -> Union[int, float, str]:
    """One CSV field (bytes) as a value: int, float (empty: NaN), or str."""
    if _INT.match(b):
        return int(b)
    if not b:
        return _NAN
    try:
        return float(b)
    except ValueError:
        return b.decode()


class Columns:
    """The row callback of a sweep: feed(fields) for the header, then for each row."""

    def __init__(self) -> None:
        self.names: Optional[List[str]] = None
        self.cols: List[Any] = []  # per column: array('q'), array('d') or a list of str
        self.kinds: List[Optional[str]] = []  # 'i', 'd' or 's'
        self.rows = 0
        self._strings: Dict[bytes, str] = {}  # one str object per distinct text

    def _text(self, b: bytes) -> str:
        s = self._strings.get(b)
        if s is None:
            s = self._strings[b] = b.decode()
        return s

    def _widen(self, k: int, to: str) -> None:
        """Column k becomes float ('d') or text ('s'); the values so far are kept (as numbers
        they read back to the same text: integers exactly, floats by repr)."""
        col = self.cols[k]
        if to == "d":
            self.cols[k] = array("d", col)
        else:
            self.cols[k] = [self._text(repr(v).encode() if v == v else b"") for v in col]
        self.kinds[k] = to

    def feed(self, fields: Sequence[bytes]) -> bool:
        if self.names is None:
            self.names = [f.decode() for f in fields]
            self.cols = [None] * len(fields)
            self.kinds = [None] * len(fields)
            return False
        for k, b in enumerate(fields):
            kind = self.kinds[k]
            if kind is None:  # the first row decides, later rows may widen
                if _INT.match(b):
                    kind, col = "i", array("q")
                elif not b:
                    kind, col = "d", array("d")
                else:
                    try:
                        float(b)
                        kind, col = "d", array("d")
                    except ValueError:
                        kind, col = "s", []
                self.kinds[k], self.cols[k] = kind, col
            col = self.cols[k]
            if kind == "i":
                if _INT.match(b):
                    try:
                        col.append(int(b))
                        continue
                    except OverflowError:  # beyond int64: a float column
                        pass
                try:
                    v = float(b) if b else _NAN
                except ValueError:
                    self._widen(k, "s")
                else:
                    self._widen(k, "d")
                    self.cols[k].append(v)
                    continue
            elif kind == "d":
                try:
                    col.append(float(b) if b else _NAN)  # empty: a missing value, as pandas
                    continue
                except ValueError:
                    self._widen(k, "s")
            self.cols[k].append(self._text(b))
        self.rows += 1
        return False

    def frame(self) -> Any:
        """A pandas.DataFrame. The columns are handed over as they are (copy=False): pandas
        copies each dtype's columns into one block, so the peak is the columns plus a block."""
        import numpy
        import pandas
        data = {}
        for name, kind, col in zip(self.names, self.kinds, self.cols):
            if kind == "i":
                data[name] = numpy.frombuffer(col, dtype=numpy.int64)
            elif kind == "d":
                data[name] = numpy.frombuffer(col, dtype=numpy.float64)
            else:
                data[name] = numpy.array(col if col is not None else [], dtype=object)
        return pandas.DataFrame(data, columns=self.names, copy=False)

    def dicts(self) -> List[Dict[str, Any]]:
        """A list of dicts, one per row."""
        return [dict(zip(self.names, values)) for values in zip(*self.cols)]

"""A table's CSV and Parquet files as pandas writes them, without pandas.

``satcp run``, ``satcp validate`` and ``satcp sweep`` write tables of
Python scalars. Importing pandas costs more than the simulations of a
short run or of a sweep of thousands of short runs, so these files are
written from the rows themselves, byte for byte what
``pandas.DataFrame(data).to_csv(index=False)`` and ``.to_parquet(index=False)``
(through pyarrow) write; the data frames are made only when a caller asks
for them. tests/python/test_frame_files.py checks the bytes against pandas
for every column type below.

A table is built the way ``pandas.DataFrame`` builds one from a list of
dicts (columns in the order they first appear; a row without a column
holds NaN) or from a dict of lists, and each column gets the dtype pandas
3 infers for it (``lib.maybe_convert_objects``): all floats -> float64;
all booleans -> bool; integers -> int64 (uint64 when one is 2**63 or
more); integers and floats, or integers with a missing value -> float64;
strings, with or without missing values -> str; anything else (lists, a
mix of strings and numbers, booleans with a missing value) -> object.

CSV (``to_csv``): a float64 value as its shortest repr (numpy's str of a
float64 is Python's repr), a missing value (None, NaN) as an empty field,
anything else with str(), through the csv module (minimal quoting, "\\n"
line ends).

Parquet (``to_parquet``, which is ``pyarrow.Table.from_pandas`` then
``pyarrow.parquet.write_table``): float64 -> double with NaN as null,
int64, uint64, bool, str -> large_string; the schema carries the
``pandas`` metadata that pandas 3 writes (which lets ``pandas.read_parquet``
restore the dtypes); an object column of None only is Arrow's null type. A
table with another object column, or rows without columns, is handed to
pandas, which decides what to write or raises.
"""

from __future__ import annotations

import csv
import functools
import io
import json
import operator
import re
from collections.abc import Mapping, Sequence

from . import _core

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (5 ms)
if TYPE_CHECKING:
    from typing import Any

    Data = Sequence[Mapping[str, Any]] | Mapping[str, Sequence[Any]]

__all__ = ["Frame", "column_dtype", "csv_text", "write_parquet"]

_MISSING = object()  # a row without the column (pandas: NaN)


def _is_na(v: Any) -> bool:
    return v is None or v is _MISSING or (isinstance(v, float) and v != v)


def column_dtype(values: Sequence[Any]) -> str:
    """The dtype pandas infers for a column of these values: float64,
    int64, uint64, bool, str or object."""
    types = set(map(type, values))
    # The common cases first (a sampled series has thousands of rows).
    if values and types <= {float}:
        return "float64"
    if values and types <= {bool}:
        return "bool"
    if values and types <= {str}:
        return "str"
    if values and types <= {int}:
        lo, hi = min(values), max(values)
        if lo >= -(2**63) and hi < 2**63:
            return "int64"
        return "uint64" if lo >= 0 and hi < 2**64 else "object"
    bools = ints = floats = strs = na = other = False
    neg = big = False  # ints < 0; ints >= 2**63 (uint64 at most, else object)
    for v in values:
        if isinstance(v, bool):
            bools = True
        elif isinstance(v, int):
            ints = True
            if v < 0:
                neg = True
                other = other or v < -(2**63)
            elif v >= 2**63:
                big = True
                other = other or v >= 2**64
        elif isinstance(v, float):
            if v != v:
                na = True
            else:
                floats = True
        elif isinstance(v, str):
            strs = True
        elif v is None or v is _MISSING:
            na = True
        else:
            other = True
    numbers = ints or floats
    if other or (neg and big) or (bools and (numbers or strs or na)) or (strs and numbers):
        return "object"
    if strs:
        return "str"
    if floats or (ints and na):
        return "float64"
    if ints:
        return "uint64" if big else "int64"
    return "object"  # only missing values (or none at all)


def _cells(values: Sequence[Any], dtype: str) -> list[str]:
    """The CSV fields of one column of ``dtype``, as pandas writes them."""
    if dtype == "float64":  # NaN -> empty
        if set(map(type, values)) <= {float}:
            return [repr(v) if v == v else "" for v in values]
        return [repr(float(v)) if ok else "" for v, ok in zip(values, _valid(values), strict=True)]
    if dtype == "bool":
        return ["True" if v else "False" for v in values]
    if dtype in ("int64", "uint64") or set(map(type, values)) <= {str}:
        return list(map(str, values))
    # str with missing values, or object: str() of each value, floats as repr, NaN empty
    return ["" if _is_na(v) else repr(v) if isinstance(v, float) else str(v) for v in values]


def _valid(values: Sequence[Any]) -> list[bool]:
    """Which values are not missing (None, NaN, or no value in the row)."""
    return [v is not None and v is not _MISSING and v == v for v in values]


def _all_none(values: Sequence[Any]) -> bool:
    return bool(values) and all(v is None for v in values)


#: What the csv module quotes (minimal quoting, "\n" line ends) or refuses (NUL).
_SPECIAL = re.compile('[,"\r\n\x00]')
_NUMBERS = frozenset({"float64", "int64", "uint64", "bool"})  # never a special character


def _needs_quotes(header: Sequence[str], cells: Sequence[Sequence[str]], dtypes: Any) -> bool:
    """Whether a column name, or a field of a column not of numbers, has a
    character that the csv module quotes or refuses."""
    if _SPECIAL.search("".join(header)):
        return True
    return any(
        _SPECIAL.search("".join(col))
        for col, dt in zip(cells, dtypes, strict=True)
        if dt not in _NUMBERS
    )


def _columns(data: Data) -> dict[str, list]:
    """A table's columns: from a dict of lists, or from a list of row dicts
    (columns in order of first appearance, a missing key as _MISSING)."""
    if isinstance(data, Mapping):
        return {str(k): list(v) for k, v in data.items()}
    if data and data[0] and all(row.keys() == data[0].keys() for row in data):
        # every row has the same columns (a sweep's, a run's tables)
        names = list(data[0])
        if len(names) == 1:
            return {str(names[0]): [row[names[0]] for row in data]}
        columns = zip(*map(operator.itemgetter(*names), data), strict=True)
        return {str(k): list(v) for k, v in zip(names, columns, strict=True)}
    names: dict[str, None] = {}
    for row in data:
        for k in row:
            names.setdefault(k, None)
    return {str(k): [row.get(k, _MISSING) for row in data] for k in names}


class Frame:
    """A table's columns (given as a list of row dicts or a dict of
    columns) with the dtype pandas gives each, for its files."""

    def __init__(self, data: Data) -> None:
        self.data = data
        self.columns = _columns(data)

    @functools.cached_property
    def dtypes(self) -> dict[str, str]:
        return {name: column_dtype(values) for name, values in self.columns.items()}

    def csv_text(self) -> str:
        """``pandas.DataFrame(data).to_csv(index=False)``."""
        if not self.columns:  # a header line, and an empty line per row (rows of no columns)
            return "\n" * (1 + (0 if isinstance(self.data, Mapping) else len(self.data)))
        # A table of numbers (the time series): the same text from the core
        # (ten times faster than the cells below); None for the others.
        text = _core.csv_of_numbers(self.columns)
        if text is not None:
            return text
        cells = [_cells(self.columns[name], dt) for name, dt in self.dtypes.items()]
        header = list(self.columns)
        if len(cells) > 1 and not _needs_quotes(header, cells, self.dtypes.values()):
            # With two columns or more (a lone empty field is quoted) and
            # no field to quote: what the csv module writes, joined here.
            rows = map(",".join, zip(*cells, strict=True))
            return "\n".join([",".join(header), *rows]) + "\n"
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(self.columns)
        w.writerows(zip(*cells, strict=True))
        return buf.getvalue()

    def write_parquet(self, path: str, metadata: Mapping[bytes, bytes] | None = None) -> None:
        """``pandas.DataFrame(data).to_parquet(path, index=False)`` with
        ``metadata`` added to the schema's; without pandas where every
        column has a type below."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        # An object column of None only is Arrow's null type ("empty").
        kinds = {
            n: "empty" if dt == "object" and _all_none(self.columns[n]) else dt
            for n, dt in self.dtypes.items()
        }
        rows_without_columns = not self.columns and not isinstance(self.data, Mapping) and self.data
        if "object" in kinds.values() or rows_without_columns:
            import pandas as pd

            table = pa.Table.from_pandas(pd.DataFrame(self.data), preserve_index=False)
        else:
            arrays = [_arrow_column(self.columns[n], k) for n, k in kinds.items()]
            table = pa.Table.from_arrays(arrays, names=list(self.columns))
            table = table.replace_schema_metadata({b"pandas": _pandas_metadata(kinds)})
        meta = {**(table.schema.metadata or {}), **(metadata or {})}
        pq.write_table(table.replace_schema_metadata(meta), path)


def csv_text(data: Data) -> str:
    """``pandas.DataFrame(data).to_csv(index=False)``, without pandas."""
    return Frame(data).csv_text()


@functools.cache
def _pandas_version() -> str:
    """The installed pandas's version, without importing pandas."""
    from importlib.metadata import version

    return version("pandas")


def write_parquet(data: Data, path: str, metadata: Mapping[bytes, bytes] | None = None) -> None:
    """``pandas.DataFrame(data).to_parquet(path, index=False)`` with
    ``metadata`` added to the schema's, without pandas where it can."""
    Frame(data).write_parquet(path, metadata)


#: Per dtype: the pandas metadata's ``pandas_type`` and ``numpy_type`` that
#: pyarrow writes for a pandas 3 column of it.
_PANDAS_TYPES = {
    "float64": ("float64", "float64"),
    "int64": ("int64", "int64"),
    "uint64": ("uint64", "uint64"),
    "bool": ("bool", "bool"),
    "str": ("object", "str"),
    "empty": ("empty", "object"),
}


def _arrow_column(values: list, dtype: str) -> Any:
    """The Arrow array pyarrow makes of a pandas column of ``dtype``, built
    from its buffers: ``pyarrow.array`` imports pandas, even for a list."""
    import numpy as np
    import pyarrow as pa

    n = len(values)
    if dtype == "empty":
        return pa.Array.from_buffers(pa.null(), n, [None], n)
    if dtype == "bool":  # no missing values (with one: object)
        bits = np.packbits(np.array(values, dtype=bool), bitorder="little")
        return pa.Array.from_buffers(pa.bool_(), n, [None, pa.py_buffer(bits)], 0)
    if dtype in ("int64", "uint64"):  # no missing values (with one: float64)
        numbers = np.array(values, dtype=dtype)
        return pa.Array.from_buffers(getattr(pa, dtype)(), n, [None, pa.py_buffer(numbers)], 0)
    valid = _valid(values)
    nulls = n - sum(valid)
    bitmap = pa.py_buffer(np.packbits(valid, bitorder="little")) if nulls else None
    if dtype == "float64":
        data = np.array([float(v) if ok else 0.0 for v, ok in zip(values, valid, strict=True)])
        return pa.Array.from_buffers(pa.float64(), n, [bitmap, pa.py_buffer(data)], nulls)
    # str
    encoded = [v.encode() if ok else b"" for v, ok in zip(values, valid, strict=True)]
    offsets = np.zeros(n + 1, np.int64)
    np.cumsum([len(e) for e in encoded], out=offsets[1:])
    buffers = [bitmap, pa.py_buffer(offsets), pa.py_buffer(b"".join(encoded))]
    return pa.Array.from_buffers(pa.large_string(), n, buffers, nulls)


def _pandas_metadata(columns: Mapping[str, str]) -> bytes:
    """The ``pandas`` schema metadata of a table of these columns (name ->
    dtype), as pyarrow writes it for a data frame without its index."""
    import pyarrow as pa

    meta = {
        "index_columns": [],
        "column_indexes": [],
        "columns": [
            {
                "name": name,
                "field_name": name,
                "pandas_type": _PANDAS_TYPES[dtype][0],
                "numpy_type": _PANDAS_TYPES[dtype][1],
                "metadata": None,
            }
            for name, dtype in columns.items()
        ],
        "attributes": {},
        "creator": {"library": "pyarrow", "version": pa.__version__},
        "pandas_version": _pandas_version(),
    }
    return json.dumps(meta).encode()

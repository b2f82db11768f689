"""satcp.frame_files writes what pandas' DataFrame(...).to_csv(index=False) and
.to_parquet(index=False) write, byte for byte (satcp run --out and satcp sweep
write their tables without pandas), and infers the dtypes pandas infers."""

from __future__ import annotations

import random
import struct

import pandas as pd
import pytest
from conftest import HTTP

import satcp
from satcp import _core
from satcp.frame_files import column_dtype, csv_text, write_parquet
from satcp.results import TABLES

BIG = 2**63 + 1  # uint64 only
VALUES = [0, 1, -5, 2**40, BIG, -(2**63) - 1, 2**64 + 1, 0.5, 1e-7, 1e16, 123456789.123456789]
VALUES += [-0.0, float("nan"), float("inf"), None, True, False, "a", "b,c", 'q"z', "", "n\nl"]
VALUES += ["r\rr", " ", "t\tab", "é"]
VALUES += [[1, 2.0], {"k": 1}]


def _pandas(data) -> str | None:
    try:
        return pd.DataFrame(data).to_csv(index=False)
    except (ValueError, TypeError):
        return None


def _pandas_parquet(data, path) -> bytes | type:
    try:
        pd.DataFrame(data).to_parquet(path, index=False)
    except Exception as e:  # pandas' and pyarrow's own (ArrowTypeError, ...)
        return type(e)
    return path.read_bytes()


def _ours_parquet(data, path) -> bytes | type:
    try:
        write_parquet(data, path)
    except Exception as e:
        return type(e)
    return path.read_bytes()


def _dtypes(data) -> list[str]:
    """What pandas names the dtype of each column (str for pandas 3's strings)."""
    return [str(t) for t in pd.DataFrame(data).dtypes]


EDGES = [
    [],
    {},
    [{}],
    [{}, {}],
    {"a": []},
    [{"a": None}, {"a": 1}],
    {"a": [None, 1]},
    [{"a": True}, {"b": 2}],
    {"a": [BIG, 0.5]},
    {"a": [BIG, -1]},
    {"a": [BIG, None]},
    {"a": [True, 1.5]},
    {"a": [1, 2.5]},
    {"a": [[1, 2.5], [3]]},
]


@pytest.mark.parametrize("data", EDGES, ids=[repr(d)[:40] for d in EDGES])
def test_edge_cases(data, tmp_path):
    assert csv_text(data) == _pandas(data)
    assert _ours_parquet(data, tmp_path / "a") == _pandas_parquet(data, tmp_path / "b")


def _random_tables(seed: int, n: int):
    rng = random.Random(seed)
    for _ in range(n):
        rows, cols = rng.randint(0, 5), rng.randint(1, 4)
        kinds = [rng.sample(VALUES, rng.randint(1, 3)) for _ in range(cols)]
        if rng.random() < 0.5:
            yield {f"c{j}": [rng.choice(kinds[j]) for _ in range(rows)] for j in range(cols)}
        else:
            yield [
                {f"c{j}": rng.choice(kinds[j]) for j in range(cols) if rng.random() < 0.9}
                for _ in range(rows)
            ]


def test_random_dtypes():
    """column_dtype names pandas' dtype wherever it is one the Parquet
    writer handles itself (object columns go to pandas)."""
    seen = set()
    for data in _random_tables(34, 3000):
        cols = pd.DataFrame(data)
        for name, values in _columns_of(data).items():
            ours, theirs = column_dtype(values), str(cols[name].dtype)
            if ours != "object" or theirs == "object":
                assert ours == theirs, (name, values)
            seen.add(ours)
    assert seen == {"float64", "int64", "uint64", "bool", "str", "object"}


def _columns_of(data):
    from satcp.frame_files import _columns

    return _columns(data)


def test_random_parquet(tmp_path):
    """The same bytes as to_parquet, or the same error, for tables of every
    kind of column; most without pandas (no object column)."""
    own = 0
    for i, data in enumerate(_random_tables(35, 600)):
        a, b = tmp_path / f"{i}a.parquet", tmp_path / f"{i}b.parquet"
        assert _ours_parquet(data, a) == _pandas_parquet(data, b), repr(data)
        own += "object" not in map(column_dtype, _columns_of(data).values())
    assert own > 200


def test_parquet_reads_back(tmp_path):
    """pandas restores the columns' dtypes from the metadata written."""
    data = {"f": [0.5, None], "i": [1, 2], "u": [BIG, 1], "b": [True, False], "s": ["x", None]}
    write_parquet(data, tmp_path / "t.parquet", {b"k": b"v"})
    df = pd.read_parquet(tmp_path / "t.parquet")
    pd.testing.assert_frame_equal(df, pd.DataFrame(data))
    import pyarrow.parquet as pq

    assert pq.read_schema(tmp_path / "t.parquet").metadata[b"k"] == b"v"


def test_random_tables():
    checked = 0
    for data in _random_tables(33, 3000):
        expected = _pandas(data)
        if expected is None:
            continue
        assert csv_text(data) == expected, repr(data)
        checked += 1
    assert checked > 2000


@pytest.mark.parametrize("sample", [0.0, 1.0])
def test_run_tables_match_pandas(tmp_path, sample):
    r = satcp.run(
        HTTP,
        overrides=["duration_s=60"],
        sample_interval_s=sample,
    )
    r.write(tmp_path / "csv", "csv")
    r.write(tmp_path / "parquet", "parquet")
    for name in TABLES:
        text = (tmp_path / "csv" / f"{name}.csv").read_text(encoding="utf-8")
        assert text == getattr(r, name).to_csv(index=False), name
        getattr(r, name).to_parquet(tmp_path / "pandas.parquet", index=False)
        ours = (tmp_path / "parquet" / f"{name}.parquet").read_bytes()
        assert ours == (tmp_path / "pandas.parquet").read_bytes(), name


def _float_of_bits(rng: random.Random) -> float:
    """A float of any exponent and mantissa (NaN drawn again)."""
    x = struct.unpack("<d", rng.getrandbits(64).to_bytes(8, "little"))[0]
    return x if x == x else _float_of_bits(rng)


def test_the_core_writes_floats_as_python_repr():
    """The core's CSV of a table of numbers (``_core.csv_of_numbers``) has
    each float as Python's repr: 200,000 floats of every exponent, the
    boundaries of positional notation, and integers in float64 columns."""
    rng = random.Random(36)
    floats = [_float_of_bits(rng) for _ in range(200_000)]
    floats += [10.0**e for e in range(-8, 20)] + [-(10.0**e) for e in range(-8, 20)]
    floats += [0.0, -0.0, float("inf"), float("-inf"), 5e-324, 1.7976931348623157e308]
    floats += [0.0001, 0.00009999999999999999, 9999999999999998.0, 1e16 - 2, 0.1 + 0.2]
    ints = [rng.randint(-(2**63), 2**63 - 1) for _ in floats]
    text = _core.csv_of_numbers({"x": floats, "n": ints, "i": [*ints[:-1], None]})
    rows = [f"{x!r},{n},{float(n)!r}" for x, n in zip(floats, ints, strict=True)]
    rows[-1] = rows[-1].rsplit(",", 1)[0] + ","
    assert text == "\n".join(["x,n,i", *rows]) + "\n"


@pytest.mark.parametrize(
    "columns",
    [
        {"a": [1.0]},  # one column: a lone empty field is quoted
        {"a": [], "b": []},
        {"a,b": [1.0], "c": [2.0]},
        {'a"': [1.0], "c": [2.0]},
        {"a": [1.0, 2.0], "b": [1.0]},
        {"a": ["x"], "b": [1.0]},
        {"a": [1.0], "b": ["x"]},  # told by its first field, before "a" is converted
        {"a": [1.0, 2.0], "b": [None, "x"]},
        {"a": [True, 1], "b": [1.0]},
        {"a": [True, None], "b": [1.0]},
        {"a": [2**63], "b": [1.0]},
        {"a": [[1]], "b": [1.0]},
    ],
    ids=repr,
)
def test_the_core_leaves_other_tables_to_python(columns):
    assert _core.csv_of_numbers(columns) is None


def test_random_tables_of_numbers_are_the_cores():
    """Of the random tables, the core writes those of numbers, as pandas."""
    numbers = [v for v in VALUES if v is None or type(v) in (int, float, bool)]
    rng = random.Random(37)
    written = 0
    for _ in range(2000):
        rows, cols = rng.randint(1, 6), rng.randint(2, 4)
        kinds = [rng.sample(numbers, rng.randint(1, 3)) for _ in range(cols)]
        data = {f"c{j}": [rng.choice(kinds[j]) for _ in range(rows)] for j in range(cols)}
        expected = _pandas(data)
        ours = _core.csv_of_numbers(_columns_of(data))
        if ours is not None:
            assert ours == expected, repr(data)
            written += 1
        assert csv_text(data) == expected, repr(data)
    assert written > 500

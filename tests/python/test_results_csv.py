"""satcp.results.csv_text writes what pandas' DataFrame(...).to_csv(index=False)
writes, byte for byte (satcp run --out writes its CSV files without pandas)."""

from __future__ import annotations

import random

import pandas as pd
import pytest
from conftest import HTTP

import satcp
from satcp.results import TABLES, csv_text

BIG = 2**63 + 1  # uint64 only
VALUES = [0, 1, -5, 2**40, BIG, -(2**63) - 1, 2**64 + 1, 0.5, 1e-7, 1e16, 123456789.123456789]
VALUES += [-0.0, float("nan"), float("inf"), None, True, False, "a", "b,c", 'q"z', "", "n\nl"]
VALUES += [[1, 2.0], {"k": 1}]


def _pandas(data) -> str | None:
    try:
        return pd.DataFrame(data).to_csv(index=False)
    except (ValueError, TypeError):
        return None


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
def test_edge_cases(data):
    assert csv_text(data) == _pandas(data)


def test_random_tables():
    rng = random.Random(33)
    checked = 0
    for _ in range(3000):
        rows, cols = rng.randint(0, 5), rng.randint(1, 4)
        kinds = [rng.sample(VALUES, rng.randint(1, 3)) for _ in range(cols)]
        if rng.random() < 0.5:
            data = {f"c{j}": [rng.choice(kinds[j]) for _ in range(rows)] for j in range(cols)}
        else:
            data = [
                {f"c{j}": rng.choice(kinds[j]) for j in range(cols) if rng.random() < 0.9}
                for _ in range(rows)
            ]
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
    r.write(tmp_path, "csv")
    for name in TABLES:
        text = (tmp_path / f"{name}.csv").read_text(encoding="utf-8")
        assert text == getattr(r, name).to_csv(index=False), name

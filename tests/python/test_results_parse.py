"""Results parse the core's JSON with orjson when it is long, else with
json.loads: the same objects, types included."""

import json
import subprocess
import sys

import pytest
from conftest import FTP, HTTP

import satcp
from satcp import _core
from satcp import results as results_module
from satcp.results import Results
from satcp.scenario import load, to_json


def _same(a, b):
    """Equal values of the same types, all the way down (1 == 1.0 and
    True == 1 in Python, so equality alone would not tell)."""
    assert type(a) is type(b), (a, b)
    if isinstance(a, dict):
        assert list(a) == list(b)
        for k in a:
            _same(a[k], b[k])
    elif isinstance(a, list):
        assert len(a) == len(b)
        for x, y in zip(a, b, strict=True):
            _same(x, y)
    else:
        assert a == b


@pytest.mark.parametrize(
    "path, overrides",
    [
        (FTP, {"duration_s": 20.0, "sample_interval_s": 0.5}),
        (HTTP, {"duration_s": 30.0}),
    ],
)
def test_results_parse_like_json_loads(monkeypatch, path, overrides):
    # Every text through orjson, as long results are.
    monkeypatch.setattr(results_module, "ORJSON_FROM_CHARS", 0)
    sc = load(path)
    sc.update(overrides)
    text = _core.run_json(to_json(sc))
    r = Results(text)
    _same(r.raw, json.loads(text))
    assert r.raw_json is text


def test_numbers_at_the_edges_parse_alike(monkeypatch):
    monkeypatch.setattr(results_module, "ORJSON_FROM_CHARS", 0)
    # Shortest round-trip floats, subnormals, halves and the largest
    # unsigned counters the core writes.
    text = json.dumps(
        {
            "f": [0.1, 1e-320, 2.5e-308, 1.7976931348623157e308, 123456.789e-3, 0.0, -0.0],
            "i": [0, -1, 2**63 - 1, 2**64 - 1],
            "s": ["", "é", "\\u00e9", None, True, False],
        }
    )
    _same(Results(text).raw, json.loads(text))
    assert satcp.Results is Results


def test_short_results_do_not_import_orjson():
    # A short run's results: json.loads, without orjson's import (its 11 ms
    # would be a tenth of `satcp run`'s whole process).
    code = (
        "import sys, satcp\n"
        "from satcp.results import Results\n"
        'Results(\'{"name": "x", "events": 1}\')\n'
        "assert 'orjson' not in sys.modules, 'orjson imported'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)

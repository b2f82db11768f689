"""tools/pgo_paper_runs.py, the slice of make run's runs in the extension's
PGO training: it must be make run's runs (compare's as `satcp compare`
makes them), every STEP-th, with other seeds. No simulation runs."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

import satcp.compare
from satcp.scenario import load, to_json

TOOL = Path(__file__).resolve().parents[2] / "tools" / "pgo_paper_runs.py"

_spec = importlib.util.spec_from_file_location("pgo_paper_runs", TOOL)
pgo_paper_runs = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(pgo_paper_runs)


class _Stop(Exception):
    pass


@pytest.fixture(scope="module")
def runs() -> list[dict]:
    return pgo_paper_runs.paper_runs()


def test_compares_runs_are_those_satcp_compare_makes(runs, monkeypatch, tmp_path):
    made = []

    def run_many(scenarios, workers=None):
        made.extend(scenarios)
        raise _Stop

    monkeypatch.setattr(satcp.compare, "run_many", run_many)
    with pytest.raises(_Stop):
        satcp.compare.compare(tmp_path / "out")
    assert len(made) == 165
    assert [to_json(load(s)) for s in runs[-len(made) :]] == [to_json(load(s)) for s in made]


def test_every_reproduction_gives_runs(runs):
    names = {load(s)["name"].split("-")[0] for s in runs}
    # Scenario names start with the reproduction's (ADaLR's with the thesis).
    assert {"peach", "tcpr", "slowstart"} <= names
    assert len(runs) > 5000


def test_a_slice_with_seeds_moved(runs, monkeypatch, capsys):
    ran = []
    monkeypatch.setattr(pgo_paper_runs._core, "run_json", ran.append)
    pgo_paper_runs.main(["400"])
    want = runs[200::400]
    assert len(ran) == len(want) > 10
    for text, sc in zip(ran, want, strict=True):
        got, orig = json.loads(text), load(sc)
        assert got["seed"] == orig.get("seed", 1) + pgo_paper_runs.SEED_SHIFT
        assert {**got, "seed": None} == json.loads(to_json({**orig, "seed": None}))
    assert f"pgo: {len(want)} of make run's runs" in capsys.readouterr().err

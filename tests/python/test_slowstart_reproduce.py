"""``satcp reproduce slowstart``: the modified slow-start paper's Table I,
figures and claims (shared/papers/004_...), on satcp's test-bed model
(docs/slowstart.md). The single-connection numbers are deterministic;
the checks are on the reference time (within 2 % of satcp's 50.87 s,
itself within 10 % of the paper's 49.21 s) and on orderings."""

from __future__ import annotations

import csv
from pathlib import Path
from types import SimpleNamespace

import pytest
from conftest import run_cli

from satcp.reproduce import paper_run, slowstart
from satcp.reproduce.paper_run import Keyed, text

ROWS = (
    "reference",
    "iw6",
    "k2",
    "k4",
    "k6",
    "lin10",
    "lin20",
    "lin30",
    "lin50",
    "pw10",
    "pw20",
)


@pytest.fixture(scope="module")
def quick_out(tmp_path_factory) -> tuple[Path, str]:
    out = tmp_path_factory.mktemp("slowstart") / "out"
    p = run_cli("reproduce", "slowstart", "--quick", "--out", out)
    assert p.returncode == 0, p.stderr
    return out, p.stdout


def test_cli_quick_writes_report_claims_tables_and_figures(quick_out):
    out, stdout = quick_out
    assert "claims of the paper hold in satcp" in stdout
    names = {f.name for f in out.iterdir()}
    for f in (
        "report.md",
        "claims.csv",
        "table1_transfer_time.csv",
        "queue_sensitivity.csv",
        "multi_connection_throughput.csv",
    ):
        assert f in names, f
    for fig in ("02", "03", "04", "05", "06", "07", "08"):
        assert any(n.startswith(f"fig{fig}_") and n.endswith(".png") for n in names), fig
    assert all(Path(out, n).stat().st_size > 0 for n in names)
    report = (out / "report.md").read_text()
    assert report.startswith("# satcp vs the modified slow start")
    assert "--quick run" in report
    assert "docs/slowstart.md" in report
    for needle in ("49.21", "71.6", "74.3", "12.65", "74.5"):
        assert needle in report, needle
    with (out / "claims.csv").open() as f:
        claims = list(csv.DictReader(f))
    assert len(claims) >= 20
    assert all(c["reproduced"] in ("yes", "no") for c in claims)
    with (out / "multi_connection_throughput.csv").open() as f:
        ns = {int(r["connections"]) for r in csv.DictReader(f)}
    assert ns == set(slowstart.PAPER.experiments["multi"].quick_axes["connections"]) == {1, 5, 15}


def test_table1_rows_reference_and_orderings(quick_out):
    out, _ = quick_out
    with (out / "table1_transfer_time.csv").open() as f:
        rows = {r["config"]: r for r in csv.DictReader(f)}
    assert tuple(rows) == ROWS
    t = {k: float(r["time_s"]) for k, r in rows.items()}
    gain = {k: float(r["gain_pct"]) for k, r in rows.items() if k != "reference"}
    drops = {k: int(r["queue_drops"]) for k, r in rows.items()}
    assert abs(t["reference"] / 50.87 - 1) <= 0.02, t["reference"]
    assert abs(t["reference"] / 49.21 - 1) <= 0.10
    # Every lossless modified function beats IW=6 alone; K=4 beats K=2.
    assert gain["k4"] > gain["k2"] > gain["iw6"] > 65
    assert all(gain[k] > gain["iw6"] for k in ROWS[2:] if k != "k6")
    # K=6 congests the 64-packet queue, K<=4 does not.
    assert drops["k6"] > 0 and t["k6"] > t["k4"]
    assert all(drops[k] == 0 for k in ROWS if k != "k6")


def test_a_failing_part_leaves_the_output_as_it_was(tmp_path, monkeypatch):
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.txt").write_text("old")
    run_experiment = paper_run.run_experiment

    def boom(paper, spec, *args):
        if spec.name == "multi":  # the second part: the first has written its files
            raise RuntimeError("boom")
        return run_experiment(paper, spec, *args)

    monkeypatch.setattr(paper_run, "run_experiment", boom)
    with pytest.raises(RuntimeError, match="boom"):
        slowstart.reproduce(out, workers=2, quick=True)
    assert sorted(p.name for p in out.iterdir()) == ["keep.txt"]


def test_quick_is_accepted_only_where_it_applies():
    p = run_cli("reproduce", "baseline", "--quick", "--out", "/nonexistent/x")
    assert p.returncode == 2
    assert "slowstart" in p.stderr and len(p.stderr.strip().splitlines()) == 1
    p = run_cli("reproduce", "slowstart", "--workers", "0")
    assert p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1


# The paper's multi-connection findings that satcp does not reproduce
# under the drop-tail reading of the router (report.md, "Figs. 3-8"): on one
# shared FIFO all flows slow-start together and lose together. Strict:
# should one start to hold, the test fails and the reading is to be
# revisited. Under the WFQ reading (per-flow queues) they hold (below).
MULTI_DISAGREEMENTS = (
    "only K=2 gives a permanent gain over the reference",
    "K=2 substantially equivalent to IW=6 except at very low load",
    "Linear 20 efficient for fewer than 15 connections",
    "Linear 20-30-40 very satisfying",
    "only the milder functions (K=2, Linear 20, Linear 20-30-40) keep a gain",
)


def _claim(out, statement):
    with (out / "claims.csv").open() as f:
        return [c for c in csv.DictReader(f) if c["statement"].startswith(statement)]


def test_the_disagreements_are_claims_of_the_report(quick_out):
    out, _ = quick_out
    for statement in MULTI_DISAGREEMENTS:
        assert len(_claim(out, statement)) == 1, statement


@pytest.mark.parametrize("statement", MULTI_DISAGREEMENTS)
@pytest.mark.xfail(
    strict=True, reason="one shared drop-tail queue instead of the test-bed's per-flow queueing"
)
def test_paper_multi_connection_claim(quick_out, statement):
    out, _ = quick_out
    assert _claim(out, statement)[0]["reproduced"] == "yes"


def test_queue_prose_follows_the_runs():
    """The queue-sensitivity text states what the runs show, not a
    conclusion written in advance."""
    queues = (40, 64, 100)
    configs = list(slowstart.PAPER.cases["config"])

    def dependence(vary: set[str]) -> str:
        times = Keyed(((q, c), 10.0 + (q if c in vary else 0)) for c in configs for q in queues)
        drops = Keyed(((q, c), 0) for c in configs for q in queues)
        axes = SimpleNamespace(queue=queues)
        return text(slowstart.PAPER, "queue", "dependence", time_s=times, drops=drops, axes=axes)

    aggressive = slowstart.PAPER.cases["config"]["pw20"]["label"]
    says = dependence({"pw20"})
    assert "has the same time and drops at every queue size" in says
    assert aggressive in says
    says = dependence({"reference"})
    assert "change with the queue" in says
    assert "has the same time" not in says
    assert "so does every other" in dependence(set())


def test_overflow_names_the_configurations_with_drops():
    rows = [
        {"label": "K=4", "queue_drops": 0},
        {"label": "K=6", "queue_drops": 8},
    ]

    def overflow(rows: list[dict]) -> str:
        return text(
            slowstart.PAPER, "single", "overflow", rows=[SimpleNamespace(**r) for r in rows]
        )

    assert overflow(rows) == (
        "Only K=6 (8 drops) overflows the 64-packet queue: it loses segments and recovers."
    )
    two = overflow([{**r, "queue_drops": 3} for r in rows])
    assert "K=4 (3 drops), K=6 (3 drops) overflow" in two
    assert overflow([{**r, "queue_drops": 0} for r in rows]).startswith(
        "No configuration overflows"
    )


# The same findings under the WFQ reading of the router (claims tagged
# "[WFQ] "): each flow has its own 64 packets, so one flow's slow start no
# longer overflows the queue of the others.
WFQ_AGREEMENTS = (
    "K=2 substantially equivalent to IW=6 except at very low load",
    "Linear 20 efficient for fewer than 15 connections",
    "Linear 20-30-40 very satisfying",
)


@pytest.mark.parametrize("statement", WFQ_AGREEMENTS)
def test_the_multi_connection_claims_hold_under_per_flow_queueing(quick_out, statement):
    out, _ = quick_out
    (claim,) = _claim(out, "[WFQ] " + statement)
    assert claim["reproduced"] == "yes", claim


def test_each_multi_connection_claim_is_stated_under_both_router_readings(quick_out):
    out, _ = quick_out
    with (out / "claims.csv").open() as f:
        multi = [c for c in csv.DictReader(f) if c["figure"].startswith("Fig")]
    wfq = [c for c in multi if c["statement"].startswith("[WFQ] ")]
    assert len(wfq) * 2 == len(multi) >= 20
    with (out / "multi_connection_throughput.csv").open() as f:
        routers = {r["router"] for r in csv.DictReader(f)}
    assert routers == {"fifo", "wfq"}
    report = (out / "report.md").read_text()
    assert "| WFQ (per-flow DRR) |" in report and "| drop-tail FIFO |" in report

"""``satcp reproduce tcpr`` and the TCP-R paper's main results
(shared/papers/002_..., Sec. 4; docs/tcpr.md, "Reproduction").

The paper-claim tests run a reduced but real form of the experiments
through the reproductions' shared engine (the Sec. 3 network, 1,000 s flows
shortened to 300 s, 3 seeds, the figures' points that the claims name).
Tolerances are stated with each test; none is fitted to the paper's
numbers.
"""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from conftest import run_cli

from satcp.reproduce import paper_run, tcpr

#: The seeds of the paper-claim tests (the --quick runs use 2).
SEEDS = [1, 2, 3]


def _fig(name: str, xs: tuple[float, ...], **changes) -> dict:
    """Figure ``name`` (an experiment of the data file) at ``xs`` over SEEDS,
    as the run's changes to its spec."""
    return {"name": name, "quick_axes": {"x": list(xs), "seed": SEEDS}, **changes}


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, paper_run.ExperimentView]:
    fig3 = tcpr.PAPER.experiments["fig3"]
    # The Sec. 3 network without any impairment.
    no_reordering = _fig(
        "fig3",
        (0.0,),
        grids=[{**fig3.grids[0], "series": ["sack", "tcpr"]}],
        network={**fig3.network, "bottleneck": {}},
        given={**fig3.given, "fig": "none", "stem": "none"},
    )
    figs = {
        "2": _fig("fig2", (0.3, 0.9, 1.8)),
        "3": _fig("fig3", (0.3, 0.45, 1.5, 1.8)),
        "8": _fig("fig8", (0.2, 1.0)),
        "none": no_reordering,
    }
    out = tmp_path_factory.mktemp("tcpr_runs")
    return {k: paper_run.run_one(tcpr.PAPER, out=out, **f) for k, f in figs.items()}


def _thr(res: paper_run.ExperimentView, key: str, x: float) -> float:
    return res.throughput_kbps[key, x]


OTHERS = ("rntcp-v2", "rntcp-v3", "dsack-ta", "dsack-r", "sack")


@pytest.mark.parametrize("x", (0.3, 0.9, 1.8))
def test_scenario1_tcpr_has_the_highest_throughput_at_every_mean_delay(runs, x):
    """Fig. 2 (reordering and corruption, BER 1e-6): TCP-R's mean
    throughput above every other protocol's, by at least 10 %."""
    best_other = max(_thr(runs["2"], k, x) for k in OTHERS)
    assert _thr(runs["2"], "tcpr", x) > 1.10 * best_other


@pytest.mark.parametrize("x", (1.5, 1.8))
def test_scenario2_tcpr_is_best_at_large_mean_delays(runs, x):
    """Fig. 3 (reordering only) beyond 0.6 s mean delay: TCP-R highest."""
    best_other = max(_thr(runs["3"], k, x) for k in OTHERS)
    assert _thr(runs["3"], "tcpr", x) > best_other


@pytest.mark.xfail(
    strict=True,
    reason="at 0.3 s mean delay satcp's TCP-R is 10-15 % below RN-TCP (the paper: "
    "'slightly less'): its bypass resends every reordered segment (4 % of the data arrives "
    "twice) and cwnd does not grow during the bypass episodes, while RN-TCP waits "
    "3 + cwnd duplicate ACKs and resends nothing (docs/tcpr.md, Reproduction)",
)
def test_scenario2_tcpr_is_within_a_few_percent_of_the_best_at_0_3_s(runs):
    """Fig. 3 at 0.3 s: TCP-R within 5 % of the best protocol."""
    best_other = max(_thr(runs["3"], k, 0.3) for k in OTHERS)
    assert _thr(runs["3"], "tcpr", 0.3) >= 0.95 * best_other


def test_scenario2_tcpr_is_within_a_few_percent_of_the_best_at_0_45_s(runs):
    """Fig. 3 at 0.45 s: TCP-R within 5 % of the best protocol."""
    best_other = max(_thr(runs["3"], k, 0.45) for k in OTHERS)
    assert _thr(runs["3"], "tcpr", 0.45) >= 0.95 * best_other


def test_without_reordering_tcpr_equals_sack(runs):
    """No impairment at all: TCP-R's throughput is SACK's, exactly (no
    duplicate ACK ever asks for the bypass)."""
    assert _thr(runs["none"], "tcpr", 0.0) == _thr(runs["none"], "sack", 0.0)


@pytest.mark.parametrize("x", (0.2, 1.0))
def test_with_congestion_drops_and_no_reordering_tcpr_performs_as_sack(runs, x):
    """Fig. 8's dotted curves: with congestion drops only, EPDNv3 reports
    every drop, TCP-R refuses the bypass and halves as SACK; throughput
    within 5 % (the EPDN pairs the gateway writes into packets shift the
    timing a little; SACK runs without gateways)."""
    tcpr_, sack = (_thr(runs["8"], f"{n}-nodelay", x) for n in ("tcpr", "sack"))
    assert abs(tcpr_ / sack - 1) <= 0.05
    assert runs["8"].fast_retransmit_ratio["tcpr-nodelay", x] > 0


@pytest.mark.parametrize("x", (0.3, 0.45, 1.5, 1.8))
def test_tcpr_fast_retransmit_ratio_is_near_zero_under_pure_reordering(runs, x):
    """Fig. 3: window-reducing fast retransmissions per data packet sent:
    near zero = below 0.003 and at most a tenth of SACK's (about 0.02-0.03
    here). The few left at large delays answer real queue drops (EPDN
    reports them, DN = 0) after timeouts, not reordering."""
    fr = runs["3"].fast_retransmit_ratio
    assert fr["tcpr", x] < 0.003
    assert fr["tcpr", x] <= 0.1 * fr["sack", x]


# --- the reproduction command --------------------------------------------


@pytest.fixture(scope="module")
def quick_out(tmp_path_factory) -> tuple[Path, str]:
    out = tmp_path_factory.mktemp("tcpr") / "out"
    p = run_cli("reproduce", "tcpr", "--quick", "--out", out)
    assert p.returncode == 0, p.stderr
    return out, p.stdout


def test_cli_quick_writes_report_claims_and_every_figure(quick_out):
    out, stdout = quick_out
    assert "claims of the paper hold in satcp" in stdout
    names = {f.name for f in out.iterdir()}
    assert {"report.md", "claims.csv"} <= names
    for n in range(2, 12):
        stems = [n_ for n_ in names if n_.startswith(f"fig{n:02d}_")]
        assert any(s.endswith(".png") for s in stems), n
        assert any(s.endswith(".csv") for s in stems), n
    report = (out / "report.md").read_text()
    assert report.startswith("# satcp vs TCP-R with EPDN")
    assert "--quick run" in report and "docs/tcpr.md" in report
    with (out / "claims.csv").open() as f:
        claims = list(csv.DictReader(f))
    assert len(claims) >= 80
    assert all(c["reproduced"] in ("yes", "no") for c in claims)
    figs = {c["figure"] for c in claims}
    assert figs == {str(n) for n in range(2, 12)}
    with (out / "fig09_fifty_flows.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert {r["series"] for r in rows} == {"TCP-R", "RN-TCP", "DSACK-TA", "DSACK-R", "SACK"}
    assert all(float(r["throughput_kbps"]) > 0 for r in rows)


def test_a_failing_part_leaves_the_output_as_it_was(tmp_path, monkeypatch):
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.txt").write_text("old")

    def boom(*_args):
        raise RuntimeError("boom")

    monkeypatch.setattr(paper_run, "run_experiment", boom)
    with pytest.raises(RuntimeError, match="boom"):
        tcpr.reproduce(out, workers=1, quick=True, parts=["multiflow"])
    assert sorted(p.name for p in out.iterdir()) == ["keep.txt"]


def test_bad_workers_is_one_line_exit_2(tmp_path):
    p = run_cli("reproduce", "tcpr", "--workers", "0", "--out", tmp_path / "o")
    assert p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "o").exists()


# The paper's results that satcp does not reproduce (report.md; docs/tcpr.md,
# "Reproduction", with the causes). Strict: should one start to hold, the test
# fails and the reading is to be revisited.
DISAGREEMENTS = {
    ("5", "TCP-R performs almost similar to RN-TCP at every delay"): (
        "with half the data on a longer path TCP-R is almost always in a bypass episode, "
        "during which cwnd does not grow, and resends every late segment"
    ),
    ("10", "TCP-R outperforms the others at every mean delay"): (
        "beyond 1 s mean delay the -ES senders (RN-TCP-ES, DSACK-TAES) beat TCP-R, whose "
        "RTO, under Karn's rule, stays below the delays and times out"
    ),
    ("11", "TCP-R outperforms the others at every mean delay"): (
        "as Fig. 10, and RN-TCP-ES and DSACK-TA lead at small delays"
    ),
    ("9", "TCP-R outperforms the others for all mean delays 0.3-2.4 s"): (
        "fifty flows through a 300-packet RED queue have windows of a few segments; "
        "reordering rarely reaches three duplicate ACKs and all protocols get the same share"
    ),
}


def _claim(out: Path, fig: str, statement: str) -> dict[str, str]:
    with (out / "claims.csv").open() as f:
        rows = [c for c in csv.DictReader(f) if c["figure"] == fig and c["statement"] == statement]
    assert len(rows) == 1, (fig, statement)
    return rows[0]


@pytest.mark.parametrize(
    ("fig", "statement"),
    [
        pytest.param(fig, st, marks=pytest.mark.xfail(strict=True, reason=why))
        for (fig, st), why in DISAGREEMENTS.items()
    ],
)
def test_paper_claim_that_satcp_does_not_reproduce(quick_out, fig, statement):
    out, _ = quick_out
    assert _claim(out, fig, statement)["reproduced"] == "yes"

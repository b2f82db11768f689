"""End-to-end checks of the TCP-Peach paper's claims (Akyildiz, Morabito,
Palazzo, IEEE/ACM ToN 2001) on the real scenarios of its Sec. V, and of
``satcp reproduce peach``. The runs are the data file's experiments
(``satcp/reproduce/peach/paper.toml``), some with fewer points.

The Sec. V runs are the full ones (N = 20 connections, K = 50, rwnd = 64,
c = 1,300 segments/s, RTT 550 ms, 550 s) with one seed, Figs. 11-12 with the
reproduction's three. Claims satcp does not reproduce are ``xfail(strict=True)``
with the numbers, so that a change that makes them hold is noticed.
"""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from conftest import assert_claims_cite_sources, run_cli

from satcp.reproduce import paper_run, peach

PAPER_GAIN_1E2 = 30.65  # % (Fig. 11)
PAPER_OVERHEAD_1E2 = 17.21  # % (Fig. 12)
RTT_S = 0.55
PLOSS = (1e-5, 2e-5, 5e-5, 1e-4, 2e-4, 5e-4, 1e-3, 2e-3, 5e-3, 1e-2)
PEACH, RENO = "peach-sack", "sack"
GOODPUT = peach.PAPER.experiments["goodput"]


def _run(tmp_path_factory, names, quick=False, **changes) -> dict[str, paper_run.ExperimentView]:
    out = tmp_path_factory.mktemp("peach_runs")
    return paper_run.run_some(peach.PAPER, names, out, quick=quick, **changes)


def _grid(**axes) -> dict:
    """Changes to the goodput experiment: its Fig. 11 grid with ``axes``."""
    return {"grids": [{**GOODPUT.grids[0], **axes}]}


@pytest.fixture(scope="module")
def fig11(tmp_path_factory) -> dict[str, dict]:
    """Fig. 11's ten PLoss values, TCP-Peach and TCP-Reno (both with SACK), the
    reproduction's three seeds: at PLoss <= 1e-4 their means differ by 0.7-1.4%,
    less than seeds differ (seed 1 alone: -0.4% at 5e-5), so one seed's order
    there is noise. Means over the seeds: goodput by (variant, PLoss),
    TCP-Peach's overhead by PLoss."""
    rows = _run(tmp_path_factory, ["goodput"], goodput=_grid())["goodput"].rows
    return {
        "goodput": paper_run.mean_by(rows, "goodput_segments_per_s", "variant", "ploss"),
        "overhead": paper_run.mean_by(rows, "overhead_pct", "ploss", variant=PEACH),
    }


def _gain(g, p: float) -> float:
    return (g[PEACH, p] / g[RENO, p] - 1) * 100


def test_fig11_peach_goodput_exceeds_reno_at_every_ploss(fig11):
    # Sec. V-A: TCP-Peach's goodput is always higher. No tolerance: strictly
    # higher at each of 1e-5 ... 1e-2 (the margin of the three-seed means is
    # 0.7-1.4% at PLoss <= 1e-4, where congestion losses dominate).
    g = fig11["goodput"]
    assert sorted({p for _, p in g}) == sorted(PLOSS)
    for p in PLOSS:
        assert g[PEACH, p] > g[RENO, p], (p, g)
    # and the gap opens with link errors: Reno falls, Peach much less.
    assert g[RENO, 1e-2] < 0.5 * g[RENO, 1e-3]
    assert _gain(g, 1e-2) > _gain(g, 1e-3) > 0


@pytest.mark.xfail(
    strict=True,
    reason="satcp: TCP-Peach +139% at PLoss 1e-2 (952 vs 399 segments/s, seeds 1-3), paper "
    "+30.65%. satcp's TCP-Reno matches the paper's own (19.7 segments/s per connection in "
    "Fig. 20); +30.65% would put TCP-Peach at 26 per connection where Fig. 20 gives it 100 "
    "(reports/peach/report.md, Figs. 11-13)",
)
def test_fig11_gain_at_ploss_1e2_is_the_papers(fig11):
    # Tolerance: the goodput ratio within 15% of the paper's 1.3065.
    g = fig11["goodput"]
    ratio = g[PEACH, 1e-2] / g[RENO, 1e-2]
    assert abs(ratio / (1 + PAPER_GAIN_1E2 / 100) - 1) <= 0.15, ratio


@pytest.mark.xfail(
    strict=True,
    reason="satcp: dummy overhead 26.0% of the data segments at PLoss 1e-2 (20.6% of all "
    "segments sent), paper 17.21%: the overhead is about PLoss x the window at a loss, and "
    "satcp's TCP-Peach runs windows about twice those the paper's goodput implies",
)
def test_fig12_dummy_overhead_at_ploss_1e2_is_the_papers(fig11):
    # Tolerance: within 25% of 17.21% (12.9% to 21.5%), dummies / data segments sent.
    over = fig11["overhead"][1e-2]
    assert abs(over / PAPER_OVERHEAD_1E2 - 1) <= 0.25, over


def test_fig12_overhead_is_largest_at_ploss_1e2_and_bounded(fig11):
    # Fig. 12: the overhead grows with PLoss up to its largest value at 1e-2;
    # it stays a fraction of the data (satcp: 5.7% to 26%).
    over = fig11["overhead"]
    assert max(PLOSS, key=over.__getitem__) == 1e-2
    assert min(over.values()) > 0 and max(over.values()) < 35.0


def test_fig13_reno_goodput_capped_near_620(tmp_path_factory):
    # Fig. 13, PLoss 5e-3: TCP-Reno's goodput stays near 620 packets/s however
    # large c (tolerance 15%); TCP-Peach goes well beyond it.
    changes = _grid(c_seg=[2000.0, 3000.0], ploss=[5e-3], seed=[1])
    rows = _run(tmp_path_factory, ["goodput"], goodput=changes)["goodput"].rows
    g = paper_run.mean_by(rows, "goodput_segments_per_s", "variant", "c_seg")
    for c in (2000.0, 3000.0):
        assert 620 * 0.85 <= g[RENO, c] <= 620 * 1.15, g
        assert g[PEACH, c] > 1.5 * g[RENO, c], g


def test_fig3_sudden_start_reaches_rwnd_in_two_rtts(tmp_path_factory):
    s = _run(tmp_path_factory, ["fig03"])["fig03"].s
    p, r = s["peach"], s["reno"]
    # Sec. III-B: about 2 RTT after the first data segment (tolerance 0.15 RTT);
    # Slow Start from one segment needs about 6.
    assert abs(p.rwnd_reached_rtt - 2.0) <= 0.15
    assert 5.8 <= r.rwnd_reached_rtt <= 6.3
    assert p.extra_segments == 63
    assert p.acked_at(8) > 2 * r.acked_at(8)


@pytest.fixture(scope="module")
def rec(tmp_path_factory) -> dict[str, paper_run.ExperimentView]:
    """Figs. 7 and 9: the episodes and the runs cut for the dummy counters."""
    return _run(tmp_path_factory, ["episodes", "cuts"])


def _dummies(cuts: paper_run.ExperimentView, fig: str) -> tuple[int, int]:
    """Dummies sent and answered in the Peach episode of Fig. ``fig``."""
    before, after = cuts.counters[fig, "detection"], cuts.counters[fig, "after"]
    return after[0] - before[0], after[1] - before[1]


def test_fig7_rapid_recovery_regains_the_window_fast_recovery_halves_it(rec):
    ep = rec["episodes"].ep
    p, r = ep["7", "peach"], ep["7", "newreno"]
    assert p.cwnd0 == 30
    # Sec. IV-A: halved to 15, inflated to about 42 (tolerance 15%), back to
    # 15 when the lost segment is acknowledged about 2 RTT after it was sent.
    for e in (p, r):
        assert e.ssthresh_entry == 15
        assert abs(e.cwnd_max / 42 - 1) <= 0.15
        assert abs(e.end / (2 * RTT_S) - 1) <= 0.15
        assert e.cwnd_after == 15
    # TCP-Peach is back at 30 by t0 + 3 RTT; TCP-Reno has gained at most one segment.
    assert p.cwnd_at(3 * RTT_S) >= 29.5
    assert r.cwnd_at(3 * RTT_S) <= 16.5
    assert _dummies(rec["cuts"], "7") == (30, 30)


def test_fig9_congestion_loss_peach_halves_like_reno(rec):
    ep = rec["episodes"].ep
    p, r = ep["9", "peach"], ep["9", "newreno"]
    # Sec. IV-B: both end the recovery at cwnd0/2 (tolerance 10%) and
    # overlap afterwards (within 2 segments); about half the dummies get
    # through the congested router (30% to 70%).
    for e in (p, r):
        assert abs(e.cwnd_after / e.cwnd0 - 0.5) <= 0.05
    for k in (0.5, 1.0, 2.0, 3.0):
        assert abs(p.cwnd_at(p.end + k * p.srtt_s) - r.cwnd_at(r.end + k * r.srtt_s)) <= 2.0
    sent, answered = _dummies(rec["cuts"], "9")
    assert 0.3 <= answered / sent <= 0.7


@pytest.fixture(scope="module")
def fair(tmp_path_factory) -> dict[str, paper_run.ExperimentView]:
    """Figs. 17, 19 and 20 at PLoss 0 and 1e-2, seed 1 (--quick)."""
    return _run(tmp_path_factory, ["fig17", "fig19", "fig20"], quick=True)


def _phi(view: paper_run.ExperimentView, case: str, ploss: float) -> float:
    return view.at(pair=case, ploss=ploss).phi


def test_fig17_homogeneous_connections_share_fairly(fair):
    # N = 10 TCP-Peach connections: acked_i(t) within 10% of each other.
    a = fair["fig17"].a[10]
    assert a.worst_ratio() <= 1.10
    assert a.final_jain >= 0.99


def test_fig19_peach_raises_satellite_fairness(fair):
    for p in (0.0, 1e-2):
        assert _phi(fair["fig19"], "peach_reno", p) > _phi(fair["fig19"], "reno_reno", p)


def test_fig20_reno_alone_gets_19_7(fair):
    # (Reno) & (Reno) at PLoss 1e-2: r_X = r_Y = 19.7 segments/s (tolerance 15%).
    row = fair["fig20"].at(pair="reno_reno", ploss=1e-2)
    rx, ry = row.r_x_segments_per_s, row.r_y_segments_per_s
    assert abs(rx / 19.7 - 1) <= 0.15 and abs(ry / 19.7 - 1) <= 0.15


@pytest.mark.xfail(
    strict=True,
    reason="satcp at PLoss 1e-2 with M = N = 5: TCP-Reno r_X = 20.3 and TCP-Peach r_Y = "
    "50.7 segments/s beside each other, paper 12.1 and 100: the ten connections use 27% "
    "of the channel, so TCP-Peach cannot take TCP-Reno's share; TCP-Peach alone gets about "
    "52, as each loss at cwnd0 = rwnd stops new data for a whole recovery (rwnd anchored "
    "at the lost segment, Fig. 7)",
)
def test_fig20_reno_and_peach_goodputs_are_the_papers(fair):
    row = fair["fig20"].at(pair="reno_peach", ploss=1e-2)
    rx, ry = row.r_x_segments_per_s, row.r_y_segments_per_s
    assert abs(rx / 12.1 - 1) <= 0.15 and abs(ry / 100.0 - 1) <= 0.15, (rx, ry)


def test_cli_quick_writes_report_csv_and_png(tmp_path):
    out = tmp_path / "peach"
    p = run_cli("reproduce", "peach", "--quick", "--out", out)
    assert p.returncode == 0, p.stderr
    assert "claims of the paper hold in satcp" in p.stdout
    report = (out / "report.md").read_text()
    assert report.startswith("# satcp vs TCP-Peach")
    assert "--quick run" in report
    for needle in ("30.65", "17.2", "620", "12.1", "100.0", "19.7"):
        assert needle in report, needle
    names = {f.name for f in out.iterdir()}
    for fig in ("03", "07", "09", "11", "12", "13", "14", "15", "16", "17", "19", "20"):
        assert any(n.startswith(f"fig{fig}_") and n.endswith(".png") for n in names), fig
    assert sum(n.endswith(".csv") for n in names) >= 9
    with (out / "claims.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert rows and set(rows[0]) >= {"figure", "paper", "satcp", "reproduced"}
    assert all(r["reproduced"] in ("yes", "no") for r in rows)
    # Every claim points to the figure or section that states it.
    assert assert_claims_cite_sources(report) == len(rows)
    assert all(Path(out, n).stat().st_size > 0 for n in names)

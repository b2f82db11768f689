"""End-to-end checks of the TCP-Peach paper's claims (Akyildiz, Morabito,
Palazzo, IEEE/ACM ToN 2001) on the real scenarios of its Sec. V, and of
``satcp reproduce peach``.

The Sec. V runs are the full ones (N = 20 connections, K = 50, rwnd = 64,
c = 1,300 segments/s, RTT 550 ms, 550 s) with one seed, Figs. 11-12 with the
reproduction's three. Claims satcp does not reproduce are ``xfail(strict=True)``
with the numbers, so that a change that makes them hold is noticed.
"""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from conftest import run_cli

from satcp.reproduce.peach import fairness, goodput, recovery, startup
from satcp.reproduce.peach.common import PEACH, PEACH_PLAIN, RENO, RENO_PLAIN, RTT_S

PAPER_GAIN_1E2 = 30.65  # % (Fig. 11)
PAPER_OVERHEAD_1E2 = 17.21  # % (Fig. 12)


@pytest.fixture(scope="module")
def fig11() -> goodput.Curve:
    """Fig. 11's ten PLoss values, TCP-Peach and TCP-Reno (both with SACK), the
    reproduction's three seeds: at PLoss <= 1e-4 their means differ by 0.7-1.4%,
    less than seeds differ (seed 1 alone: -0.4% at 5e-5), so one seed's order
    there is noise."""
    curve, _ = goodput.fig11(goodput.PLOSS, seeds=goodput.SEEDS)
    return curve


def test_fig11_peach_goodput_exceeds_reno_at_every_ploss(fig11):
    # Sec. V-A: TCP-Peach's goodput is always higher. No tolerance: strictly
    # higher at each of 1e-5 ... 1e-2 (the margin of the three-seed means is
    # 0.7-1.4% at PLoss <= 1e-4, where congestion losses dominate).
    assert fig11.x == list(goodput.PLOSS)
    for p in fig11.x:
        assert fig11.at(PEACH, p) > fig11.at(RENO, p), (p, fig11.goodput)
    # and the gap opens with link errors: Reno falls, Peach much less.
    assert fig11.at(RENO, 1e-2) < 0.5 * fig11.at(RENO, 1e-3)
    assert fig11.gain_pct(1e-2) > fig11.gain_pct(1e-3) > 0


@pytest.mark.xfail(
    strict=True,
    reason="satcp: TCP-Peach +139% at PLoss 1e-2 (952 vs 399 segments/s, seeds 1-3), paper "
    "+30.65%. satcp's TCP-Reno matches the paper's own (19.7 segments/s per connection in "
    "Fig. 20); +30.65% would put TCP-Peach at 26 per connection where Fig. 20 gives it 100 "
    "(reports/peach/report.md, Figs. 11-13)",
)
def test_fig11_gain_at_ploss_1e2_is_the_papers(fig11):
    # Tolerance: the goodput ratio within 15% of the paper's 1.3065.
    ratio = fig11.at(PEACH, 1e-2) / fig11.at(RENO, 1e-2)
    assert abs(ratio / (1 + PAPER_GAIN_1E2 / 100) - 1) <= 0.15, ratio


@pytest.mark.xfail(
    strict=True,
    reason="satcp: dummy overhead 26.0% of the data segments at PLoss 1e-2 (20.6% of all "
    "segments sent), paper 17.21%: the overhead is about PLoss x the window at a loss, and "
    "satcp's TCP-Peach runs windows about twice those the paper's goodput implies",
)
def test_fig12_dummy_overhead_at_ploss_1e2_is_the_papers(fig11):
    # Tolerance: within 25% of 17.21% (12.9% to 21.5%), dummies / data segments sent.
    over = fig11.overhead[fig11.x.index(1e-2)]
    assert abs(over / PAPER_OVERHEAD_1E2 - 1) <= 0.25, over


def test_fig12_overhead_is_largest_at_ploss_1e2_and_bounded(fig11):
    # Fig. 12: the overhead grows with PLoss up to its largest value at 1e-2;
    # it stays a fraction of the data (satcp: 5.7% to 26%).
    over = fig11.overhead
    assert max(range(len(over)), key=over.__getitem__) == fig11.x.index(1e-2)
    assert min(over) > 0 and max(over) < 35.0


def test_fig13_reno_goodput_capped_near_620():
    # Fig. 13, PLoss 5e-3: TCP-Reno's goodput stays near 620 packets/s however
    # large c (tolerance 15%); TCP-Peach goes well beyond it.
    curve, _ = goodput.fig13((2000.0, 3000.0), seeds=(1,))
    for c in curve.x:
        assert 620 * 0.85 <= curve.at(RENO, c) <= 620 * 1.15, curve.goodput
        assert curve.at(PEACH, c) > 1.5 * curve.at(RENO, c), curve.goodput


def test_fig3_sudden_start_reaches_rwnd_in_two_rtts():
    runs = startup.compute()
    peach, reno = runs["peach"], runs["reno"]
    # Sec. III-B: about 2 RTT after the first data segment (tolerance 0.15 RTT);
    # Slow Start from one segment needs about 6.
    assert abs(peach.rwnd_reached_rtt - 2.0) <= 0.15
    assert 5.8 <= reno.rwnd_reached_rtt <= 6.3
    assert peach.extra_segments == 63
    assert peach.acked_at(8) > 2 * reno.acked_at(8)


@pytest.fixture(scope="module")
def rec() -> recovery.Recovery:
    return recovery.compute()


def test_fig7_rapid_recovery_regains_the_window_fast_recovery_halves_it(rec):
    p, r = rec.fig7[PEACH_PLAIN], rec.fig7[RENO_PLAIN]
    assert p.cwnd0 == 30
    # Sec. IV-A: halved to 15, inflated to about 42 (tolerance 15%), back to
    # 15 when the lost segment is acknowledged about 2 RTT after it was sent.
    for ep in (p, r):
        assert ep.ssthresh_entry == 15
        assert abs(ep.cwnd_max / 42 - 1) <= 0.15
        assert abs(ep.end / (2 * RTT_S) - 1) <= 0.15
        assert ep.cwnd_after == 15
    # TCP-Peach is back at 30 by t0 + 3 RTT; TCP-Reno has gained at most one segment.
    assert p.cwnd_at(3 * RTT_S) >= 29.5
    assert r.cwnd_at(3 * RTT_S) <= 16.5
    assert p.dummies_sent == 30 and p.dummies_answered == 30


def test_fig9_congestion_loss_peach_halves_like_reno(rec):
    p, r = rec.fig9[PEACH_PLAIN], rec.fig9[RENO_PLAIN]
    # Sec. IV-B: both end the recovery at cwnd0/2 (tolerance 10%) and
    # overlap afterwards (within 2 segments); about half the dummies get
    # through the congested router (30% to 70%).
    for ep in (p, r):
        assert abs(ep.cwnd_after / ep.cwnd0 - 0.5) <= 0.05
    for k in (0.5, 1.0, 2.0, 3.0):
        assert abs(p.cwnd_at(p.end + k * p.srtt_s) - r.cwnd_at(r.end + k * r.srtt_s)) <= 2.0
    assert 0.3 <= p.dummies_answered / p.dummies_sent <= 0.7


@pytest.fixture(scope="module")
def fair() -> fairness.Fairness:
    return fairness.compute(plosses=(0.0, 1e-2), seeds=(1,))


def test_fig17_homogeneous_connections_share_fairly(fair):
    # N = 10 TCP-Peach connections: acked_i(t) within 10% of each other.
    assert fair.fig17.worst_ratio() <= 1.10
    assert fair.fig17.final_jain >= 0.99


def test_fig19_peach_raises_satellite_fairness(fair):
    for p in (0.0, 1e-2):
        assert fairness.phi(fair.fig19[("peach_reno", p)]) > fairness.phi(
            fair.fig19[("reno_reno", p)]
        )


def test_fig20_reno_alone_gets_19_7(fair):
    # (Reno) & (Reno) at PLoss 1e-2: r_X = r_Y = 19.7 segments/s (tolerance 15%).
    rx, ry = fair.fig20[("reno_reno", 1e-2)]
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
    rx, ry = fair.fig20[("reno_peach", 1e-2)]
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
    assert all(Path(out, n).stat().st_size > 0 for n in names)

"""End-to-end checks of TCP-ADaLR thesis claims (Secs. 7.5.3 and 7.5.5) on
the real scenarios, and of the files of the two parts of the reproduction
that test them.

Tolerances are stated per test. A claim satcp does not reproduce is marked
``xfail(strict=True)`` with the numbers, so that a change that makes it
hold is noticed."""

from __future__ import annotations

import csv
import statistics

import pytest

import satcp
from satcp import stats, topology
from satcp.reproduce import adalr
from satcp.reproduce.adalr.functions import lossy_metrics, outcome

SEEDS = (1, 2, 3, 4)
HIGH_BERS = (1e-6, 1e-5)
VARIANTS = ["adalr-sack", "adalr-newreno", "sack", "newreno"]
RTT_LABELS_MS = topology.THESIS_FAIRNESS["rtt_labels_ms"]
#: The fairness scenarios of the data file: receivers' variants, the
#: thesis's throughputs (receiver 0, RTT 500 ms, first) and indices.
MIX = adalr.PAPER.cases["mix"]


@pytest.fixture(scope="module")
def ftp_goodput() -> dict[tuple[bool, float, str], float]:
    """Mean goodput (b/s) over seeds 1-4 of the thesis's 50 MB FTP download
    with errors only (same BER both ways on the satellite link), per
    (delayed ACK, BER, variant)."""
    keys = [
        (da, ber, v, seed)
        for da in (True, False)
        for ber in HIGH_BERS
        for v in VARIANTS
        for seed in SEEDS
    ]
    scs = [
        topology.thesis_network(
            variant=v, delayed_ack=da, satellite_ber=ber, sample_interval_s=0.0, seed=seed
        )
        for da, ber, v, seed in keys
    ]
    results = satcp.run_many(scs)
    per: dict[tuple[bool, float, str], list[float]] = {}
    for (da, ber, v, _), res in zip(keys, results, strict=True):
        assert res.apps_done, f"{v} at BER {ber} did not finish within the 18,000 s run"
        per.setdefault((da, ber, v), []).append(lossy_metrics("ftp", res)["goodput_bps"])
    return {k: statistics.fmean(v) for k, v in per.items()}


@pytest.mark.parametrize("delayed_ack", [True, False], ids=["delack", "no-delack"])
@pytest.mark.parametrize("ber", HIGH_BERS, ids=["ber1e-6", "ber1e-5"])
def test_adalr_sack_has_the_highest_goodput_with_errors(ftp_goodput, ber, delayed_ack):
    # Sec. 7.5.3 (statement s10): under heavy link-error loss TCP-ADaLR SACK
    # holds up best of the four variants. Tolerance: none; the mean
    # over seeds 1-4 must be strictly above each other variant's mean.
    mine = ftp_goodput[(delayed_ack, ber, "adalr-sack")]
    for v in VARIANTS:
        if v != "adalr-sack":
            other = ftp_goodput[(delayed_ack, ber, v)]
            assert mine > other, f"{v}: {other:.0f} b/s >= adalr-sack {mine:.0f} b/s"


@pytest.fixture(scope="module")
def fairness_runs() -> dict[str, list[float]]:
    """Per-connection average throughput (bytes/s) of the three Fig. 7.52
    scenarios, 50 MB per connection, receiver 0 (RTT 500 ms) first."""
    names = list(MIX)
    scs = [topology.thesis_fairness(MIX[n]["variants"]) for n in names]
    results = satcp.run_many(scs)
    for n, r in zip(names, results, strict=True):
        assert r.apps_done, f"{n}: not every download finished"
    return {
        n: outcome(r, MIX[n]["variants"]).throughput_Bps
        for n, r in zip(names, results, strict=True)
    }


def test_index_definitions_reproduce_the_thesis_tables():
    # Eqs. 7.4-7.5 applied to Tables 7.11, 7.12, 7.14 give Tables 7.13, 7.15
    # (to the 4 decimals printed; Table 7.15's max-min 0.7000 is 0.7003).
    for mix in MIX.values():
        assert stats.jain_index(mix["thesis"]) == pytest.approx(mix["jain"], abs=5e-5)
        assert stats.maxmin_fairness(mix["thesis"]) == pytest.approx(mix["maxmin"], abs=5e-4)


def test_adalr_newreno_is_fairer_than_newreno(fairness_runs):
    # Table 7.13: Jain's index 0.9510 (TCP-ADaLR NewReno) > 0.8650 (TCP
    # NewReno). Tolerance: direction only (the runs are deterministic); satcp
    # gives about 0.886 vs 0.857.
    adalr = stats.jain_index(fairness_runs["fairness_adalr_newreno"])
    newreno = stats.jain_index(fairness_runs["fairness_newreno"])
    assert adalr > newreno


def test_newreno_fairness_matches_table_7_12(fairness_runs):
    # The baseline of the fairness topology: each TCP NewReno connection within
    # 10% of Table 7.12 and Jain's index within 0.02 of Table 7.13's 0.8650.
    got = fairness_runs["fairness_newreno"]
    want = MIX["fairness_newreno"]["thesis"]
    for rtt, value, thesis in zip(RTT_LABELS_MS, got, want, strict=True):
        assert value == pytest.approx(thesis, rel=0.10), f"RTT {rtt} ms"
    assert stats.jain_index(got) == pytest.approx(0.8650, abs=0.02)


@pytest.mark.xfail(
    strict=True,
    reason=(
        "satcp's friendliness index is ~0.885 (thesis Table 7.15: 0.9859): with the "
        "per-ACK reading of Algorithm 5.3 the three long-RTT TCP-ADaLR NewReno "
        "connections get ~120-170 kB/s (thesis 177-211 kB/s); their window cannot exceed "
        "rwnd + 0.25 x 60 SMSS = 86,140 B, i.e. <158 kB/s at the 500 ms connection's "
        "546 ms RTT. See adalr_fairness.md."
    ),
)
def test_friendliness_index_above_0_95(fairness_runs):
    # Table 7.15: 0.9859, "close to 1". Tolerance: above 0.95.
    assert stats.jain_index(fairness_runs["friendliness"]) > 0.95


def _read_csv(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


REQUIRED = {"experiment", "variant", "delayed_ack", "parameter", "metric", "satcp", "thesis"}


def test_lossy_quick_reproduce_writes_its_files(tmp_path):
    out = tmp_path / "lossy"
    rep = adalr.reproduce(out, quick=True, parts=["lossy"])
    md = rep.parts[0].section.markdown
    assert md.startswith("## ")
    assert "Fig. 7.28" in md and "Fig. 7.51" in md
    names = {p.name for p in out.iterdir()}
    figs = {n for n in names if n.endswith(".png")}
    assert len(figs) == 24
    assert sorted(f[:7] for f in figs) == [f"fig7_{i}" for i in range(28, 52)]
    assert {"adalr_lossy.csv", "adalr_lossy_claims.csv", "adalr_lossy.md"} <= names
    for f in figs:
        assert (out / f).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # The part's own file has its findings where the report points to the summary.
    assert "<!-- claims:begin -->" in (out / "adalr_lossy.md").read_text()
    assert "(Findings: see the summary at the top.)" in md
    rows = _read_csv(out / "adalr_lossy.csv")
    assert REQUIRED | {"satcp_ci95", "diff_pct"} <= set(rows[0])
    bers = {r["parameter"] for r in rows if r["experiment"] == "error"}
    assert bers == {"ber=1e-07", "ber=1e-05"}
    goodput = [r for r in rows if r["experiment"] == "error" and r["metric"] == "goodput_bps"]
    assert len(goodput) == 4 * 2 * 2 and all(float(r["satcp"]) > 0 for r in goodput)
    claims = _read_csv(out / "adalr_lossy_claims.csv")
    assert claims and all(r["verdict"] for r in claims)


def test_fairness_quick_reproduce_writes_its_files(tmp_path):
    out = tmp_path / "fair"
    rep = adalr.reproduce(out, quick=True, parts=["fairness"])
    md = rep.parts[0].section.markdown
    assert "Table 7.13" in md and "Table 7.15" in md
    names = {p.name for p in out.iterdir()}
    figure = "table7_11-15_fairness_throughput.png"
    assert {"adalr_fairness.csv", "adalr_fairness.md", figure} <= names
    assert (out / figure).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    rows = _read_csv(out / "adalr_fairness.csv")
    assert REQUIRED | {"diff_pct"} <= set(rows[0])
    main = [r for r in rows if r["experiment"] in MIX]
    assert sum(r["metric"] == "avg_throughput_Bps" for r in main) == 18
    assert {r["metric"] for r in main} >= {
        "jain_fairness_index",
        "maxmin_fairness",
        "friendliness_index",
    }

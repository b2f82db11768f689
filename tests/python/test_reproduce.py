"""The thesis baseline reproduction."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from conftest import FTP, SCENARIOS

import satcp
from satcp.reproduce import baseline
from satcp.reproduce.adalr import thesis_values

PACKAGED = Path(satcp.__file__).resolve().parent / "scenarios"


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    return baseline.reproduce(out_dir=tmp_path_factory.mktemp("baseline") / "out")


def test_packaged_scenarios_match_the_checkout():
    names = sorted(p.name for p in PACKAGED.glob("*.toml"))
    assert names == [baseline.FTP_SCENARIO, baseline.HTTP_SCENARIO]
    for name in names:
        assert (PACKAGED / name).read_bytes() == (SCENARIOS / name).read_bytes(), (
            f"python/satcp/scenarios/{name} differs from scenarios/{name}: "
            "cp scenarios/thesis_*.toml python/satcp/scenarios/"
        )


def test_scenario_path_prefers_the_checkout(monkeypatch, tmp_path):
    monkeypatch.delenv("SATCP_SCENARIOS", raising=False)
    assert baseline.scenario_path(baseline.FTP_SCENARIO) == SCENARIOS / baseline.FTP_SCENARIO
    (tmp_path / baseline.FTP_SCENARIO).write_text("x = 1\n")
    monkeypatch.setenv("SATCP_SCENARIOS", str(tmp_path))
    assert baseline.scenario_path(baseline.FTP_SCENARIO) == tmp_path / baseline.FTP_SCENARIO
    with pytest.raises(FileNotFoundError):
        baseline.scenario_path("nope.toml")


def test_window_bound():
    b = baseline.window_bound(satcp.load(FTP))
    assert b.window_bytes == 44 * 1460
    rtt = 2 * (0.010 + 0.250) + 12000 / 10e6 + 12000 / 2.048e6 + 320 / 256e3 + 320 / 10e6
    assert b.rtt_s == pytest.approx(rtt)
    assert b.transfer_s == pytest.approx(50e6 / 64240 * rtt)
    assert b.total_s == pytest.approx(b.transfer_s + rtt)


def test_report(report):
    assert len(report.cells) == 8
    for c in report.cells:
        assert math.isfinite(c.satcp) and c.satcp > 0  # every transfer finished
        # Two transcriptions of the thesis's Tables 7.5 and 7.8, made apart
        # (this one and the ADaLR reproduction's), must agree.
        assert c.thesis == thesis_values.thesis_value(c.table, c.variant, c.delayed_ack)
    ftp = [c for c in report.cells if c.table == "7.5"]
    # an ideal channel: the download is bounded by rwnd per RTT, from above
    for c in ftp:
        assert report.bound.total_s * 0.99 < c.satcp < report.bound.total_s * 1.10
    http = [c for c in report.cells if c.table == "7.8"]
    assert all(c.pages > 20 for c in http)


def test_notes_for_large_differences(report):
    md = report.markdown
    big = [c for c in report.cells if abs(c.diff_pct) > baseline.NOTE_THRESHOLD_PCT]
    assert md.count("slower than that bound") == sum(c.table == "7.5" for c in big)
    for c in big:
        if c.table == "7.5":
            x = (c.thesis / report.bound.total_s - 1) * 100
            assert f"~{x:.0f}% slower than that bound" in md
            # "follows the bound" is said only when satcp is close to it
            vs = abs(c.satcp / report.bound.total_s - 1) * 100
            word = "follows" if vs <= baseline.BOUND_FOLLOW_PCT else "departs from"
            assert f"({c.satcp:.1f} s) {word} the rwnd/RTT bound" in md


def test_files(report):
    names = sorted(Path(p).name for p in report.paths)
    assert names == ["baseline.csv", "baseline.md"]
    assert Path(report.paths[0]).read_text() == report.markdown
    assert report.csv.splitlines()[0] == ",".join(baseline.CSV_COLUMNS)

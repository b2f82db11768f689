"""The thesis baseline reproduction (``satcp reproduce baseline``, data in
``satcp/reproduce/baseline/paper.toml``)."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import pytest
from conftest import FTP, SCENARIOS

import satcp
from satcp.reproduce import adalr, baseline, paper_run
from satcp.topology import window_bound

PACKAGED = Path(satcp.__file__).resolve().parent / "scenarios"
SCENARIO_FILES = ["thesis_ftp.toml", "thesis_http.toml"]


@pytest.fixture(scope="module")
def done(tmp_path_factory):
    return baseline.reproduce(out_dir=tmp_path_factory.mktemp("baseline") / "out")


@pytest.fixture(scope="module")
def rows(done):
    return done.report.parts[0].section and pd.read_csv(
        Path(done.paths[0]).with_name("baseline.csv")
    )


def test_packaged_scenarios_match_the_checkout():
    names = sorted(p.name for p in PACKAGED.glob("*.toml"))
    assert names == SCENARIO_FILES
    tables = baseline.PAPER.cases["table"].values()
    assert sorted(t["scenario"] for t in tables) == SCENARIO_FILES
    for name in names:
        assert (PACKAGED / name).read_bytes() == (SCENARIOS / name).read_bytes(), (
            f"python/satcp/scenarios/{name} differs from scenarios/{name}: "
            "cp scenarios/thesis_*.toml python/satcp/scenarios/"
        )


def test_scenario_path_prefers_the_checkout(monkeypatch, tmp_path):
    monkeypatch.delenv("SATCP_SCENARIOS", raising=False)
    ftp = SCENARIO_FILES[0]
    assert paper_run.scenario_path(ftp) == SCENARIOS / ftp
    (tmp_path / ftp).write_text("x = 1\n")
    monkeypatch.setenv("SATCP_SCENARIOS", str(tmp_path))
    assert paper_run.scenario_path(ftp) == tmp_path / ftp
    with pytest.raises(FileNotFoundError):
        paper_run.scenario_path("nope.toml")


def test_window_bound():
    b = window_bound(satcp.load(FTP))
    assert b.window_bytes == 44 * 1460
    rtt = 2 * (0.010 + 0.250) + 12000 / 10e6 + 12000 / 2.048e6 + 320 / 256e3 + 320 / 10e6
    assert b.rtt_s == pytest.approx(rtt)
    assert b.transfer_s == pytest.approx(50e6 / 64240 * rtt)
    assert b.total_s == pytest.approx(b.transfer_s + rtt)


def test_cells(rows):
    assert len(rows) == 8
    for r in rows.itertuples():
        assert math.isfinite(r.satcp) and r.satcp > 0  # every transfer finished
        # Two transcriptions of the thesis's Tables 7.5 and 7.8, made apart
        # (this one and the ADaLR reproduction's), must agree.
        cells = adalr.PAPER.constants["response_times"][str(r.table)][r.variant]
        assert r.thesis == cells[0 if r.delayed_ack else 1]
    # an ideal channel: the download is bounded by rwnd per RTT, from above
    bound = window_bound(satcp.load(FTP)).total_s
    for t in rows[rows.table == 7.5].satcp:
        assert bound * 0.99 < t < bound * 1.10


def test_notes_for_large_differences(done, rows):
    md = done.markdown
    bound = window_bound(satcp.load(FTP)).total_s
    big = rows[rows.diff_pct.abs() > 10.0]
    ftp = big[big.table == 7.5]
    assert md.count("slower than that bound") == len(ftp)
    for r in ftp.itertuples():
        x = (r.thesis / bound - 1) * 100
        assert f"~{x:.0f}% slower than that bound" in md
        # "follows the bound" is said only when satcp is close to it
        word = "follows" if abs(r.satcp / bound - 1) * 100 <= 5.0 else "departs from"
        assert f"({r.satcp:.1f} s) {word} the rwnd/RTT bound" in md
    assert "mean over the 34 pages of the run" in md


def test_http_notes_follow_the_numbers():
    """Table 7.8's notes (none in the shipped runs) say which way the thesis
    differs."""
    far = [
        paper_run.Row(
            variant=_variant("sack"),
            delayed_ack=True,
            diff=-20.0,
            value=6.0,
            thesis_s=4.9,
        ),
    ]
    notes = paper_run.text(baseline.PAPER, "tables", "http_notes", http_far=far)
    assert notes.startswith("Notes:\n\n- TCP SACK, delayed ACK enabled: diff -20.0%: satcp 6.00 s")
    assert "(the thesis is ~18% faster)" in notes
    assert paper_run.text(baseline.PAPER, "tables", "http_notes", http_far=[]) == ""


def _variant(key: str) -> paper_run.Case:
    return paper_run.Case(key, baseline.PAPER.cases["variant"][key])


def test_files(done):
    names = sorted(Path(p).name for p in done.paths)
    assert names == ["baseline.csv", "baseline.md", "outputs.json"]  # and the list of them
    assert Path(done.paths[1]).read_text() == done.markdown
    head = Path(done.paths[0]).read_text().splitlines()[0]
    assert head == "table,variant,delayed_ack,metric,satcp,thesis,diff_pct"

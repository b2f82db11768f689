"""The reproductions' experiment engine (satcp.reproduce.experiment,
.claims), its registry and the progress bar of runs."""

from __future__ import annotations

import csv
import json
import math
import sys
import types
from pathlib import Path

import pytest
from conftest import FTP, run_cli

import satcp
from satcp import cli, progress
from satcp import reproduce as registry
from satcp.reproduce import experiment, runs
from satcp.reproduce.claims import (
    CLAIMS_CSV,
    CLAIMS_LIST_CSV,
    Claim,
    Tolerance,
    claims_table,
    tally,
)
from satcp.reproduce.experiment import MissingPart, Part, Reproduction, Section, run_jobs
from satcp.reproduce.runs import pool
from satcp.reproduce.tables import write_csv
from satcp.stats import jain_index, maxmin_fairness

SIZES = (100_000, 200_000)


def _fake_part(paper_100k: float) -> Part:
    """Two FTP transfers on the thesis network, written to a CSV file; the
    paper's value for the first is ``paper_100k``."""

    def run(out: Path, workers, quick) -> Section:
        scs = [satcp.load(FTP, [f"apps[0].file_bytes={b}"]) for b in SIZES]
        times = [float(r.transfers["response_time_s"].iloc[0]) for r in run_jobs(scs, workers)]
        write_csv(
            out / "tiny.csv",
            ["file_bytes", "time_s"],
            [{"file_bytes": b, "time_s": t} for b, t in zip(SIZES, times, strict=True)],
        )
        claim = Claim("1", "100 kB in this time", paper_100k, times[0])
        return Section("## Tiny", "## Tiny\n\nbody\n", [claim], runs=len(SIZES))

    return Part("a part", run)


def _render(parts, quick, seconds) -> str:
    return "# Tiny\n\n" + "\n".join(experiment.sections_markdown(parts, seconds))


def _fake(paper_100k: float) -> Reproduction:
    return Reproduction("tiny", {"part": _fake_part(paper_100k)}, _render, "reports/tiny")


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="") as f:
        return list(csv.DictReader(f))


def test_fake_part_writes_csv_claims_and_report(tmp_path):
    exact = satcp.run(FTP, overrides=["apps[0].file_bytes=100000"])
    t = float(exact.transfers["response_time_s"].iloc[0])
    out = tmp_path / "out"
    rep = _fake(t).reproduce(out, workers=2)
    names = sorted(p.name for p in out.iterdir())
    assert names == sorted([CLAIMS_CSV, CLAIMS_LIST_CSV, "outputs.json", "report.md", "tiny.csv"])
    rows = _rows(out / "tiny.csv")
    assert [int(r["file_bytes"]) for r in rows] == list(SIZES)
    assert float(rows[0]["time_s"]) == pytest.approx(t, rel=1e-5)
    assert float(rows[1]["time_s"]) > float(rows[0]["time_s"])
    (claim,) = _rows(out / CLAIMS_CSV)
    assert claim["reproduced"] == "yes" and claim["diff_pct"] == "0.0"
    (listed,) = _rows(out / CLAIMS_LIST_CSV)
    assert (listed["part"], listed["where"], listed["verdict"], listed["counted"]) == (
        "## Tiny",
        "Fig. 1",
        "yes",
        "held",
    )
    assert json.loads((out / "outputs.json").read_text())["quick"] is False
    report = (out / "report.md").read_text()
    assert report == rep.markdown and "| Fig. 1 | 100 kB in this time |" in report
    assert "- a part: 2 runs" in report
    assert [c.reproduced for c in rep.claims] == [True]


def test_claim_outside_tolerance_is_not_held(tmp_path):
    out = tmp_path / "out"
    rep = _fake(1.0).reproduce(out, workers=1)  # no 100 kB transfer over GEO takes 1 s
    (claim,) = _rows(out / CLAIMS_CSV)
    assert claim["reproduced"] == "no" and float(claim["diff_pct"]) > 15
    assert rep.claims[0].reproduced is False
    assert "| no |" in rep.markdown


def test_tolerance_rule():
    pct, pts = Tolerance(), Tolerance(5.0, "pts")
    assert pct.holds(100.0, 115.0) and not pct.holds(100.0, 115.1)
    assert pct.holds(-100.0, -85.0) and pct.holds(0.0, 1.0) is None
    assert pts.holds(70.0, 75.0) and not pts.holds(70.0, 75.1)
    assert pct.holds(1.0, math.nan) is None
    with pytest.raises(ValueError):
        Tolerance(5.0, "bogus")
    c = Claim("7", "x", 10.0, 12.0, tolerance=Tolerance(10.0))
    assert c.verdict == "no" and c.diff_pct == pytest.approx(20.0)
    assert Claim("7", "x", 10.0, 11.5).verdict == "yes"  # the default: 15 %
    assert Claim("7", "x", 10.0, 1.0, holds=True).verdict == "yes"  # a given criterion
    assert Claim("7", "x", None, None).verdict == "n/a"
    assert [Claim(f, "s", 1.0, 1.0).where for f in ("7", "IV-A", "Table I")] == [
        "Fig. 7",
        "Sec. IV-A",
        "Table I",
    ]
    assert claims_table([c])[2].startswith("| Fig. 7 | x | 10.00 | 12.00 | +20% | no |")


def test_ratio_tolerance_is_a_share_of_the_stated_gain_plus_slack():
    """Measure "ratio": |s - p| <= limit % of |p - 1| + slack, s on p's
    side of 1 (TCP-R's "4 % improvement" and "three fold" by one rule)."""
    r = Tolerance(15.0, "ratio", slack=0.05)
    assert r.holds(3.0, 2.66) and r.holds(3.0, 3.34) and not r.holds(3.0, 2.64)
    assert r.holds(1.04, 1.0001) and not r.holds(1.04, 0.999)  # the wrong side of 1
    assert r.holds(1.04, 1.09) and not r.holds(1.04, 1.097)
    assert r.diff_pct(2.0, 3.0) == pytest.approx(50.0)  # of the paper's value, as "pct"
    assert r.describe() == "15% of the improvement + 0.05"
    c = Claim("9", "x", 1.16, 1.0, tolerance=r)
    assert c.verdict == "no" and c.row()["diff_pct"] == "-13.8"
    with pytest.raises(ValueError):
        Tolerance(15.0, "ratio", slack=-1.0)


def test_missing_part_is_an_error_before_anything_runs(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "old.txt").write_text("old")
    with pytest.raises(MissingPart, match="reproduction tiny has no part 'no_such_part'"):
        _fake(1.0).reproduce(out, parts=["part", "no_such_part"])
    assert sorted(p.name for p in out.iterdir()) == ["old.txt"]


def test_failing_part_leaves_the_output_as_it_was(tmp_path):
    out = tmp_path / "out"
    repro = _fake(1.0)
    repro.reproduce(out)
    before = {p.name: p.read_bytes() for p in out.iterdir()}

    def failing(out_dir: Path, workers, quick):
        (out_dir / "x.csv").write_text("x")
        raise RuntimeError("boom")

    broken = Reproduction("tiny", {"part": Part("a part", failing)}, _render, "reports/tiny")
    with pytest.raises(RuntimeError):
        broken.reproduce(out)
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before


def test_every_registered_reproduction_is_on_the_engine():
    for name in registry.REGISTRY:
        mod = registry.load(name)
        assert callable(mod.reproduce) and mod.DEFAULT_OUT
        repro = mod.REPRODUCTION
        assert repro.name == name and repro.parts
        assert all(callable(p.run) for p in repro.parts.values())


def test_cli_lists_the_registry_and_rejects_unknown_names():
    for args in (("reproduce",), ("reproduce", "--list")):
        proc = run_cli(*args)
        assert proc.returncode == 0, proc.stderr
        lines = proc.stdout.splitlines()
        assert [ln.split()[0] for ln in lines] == list(registry.REGISTRY)
    proc = run_cli("reproduce", "nonesuch")
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.splitlines() == [
        "satcp: error: unknown reproduction 'nonesuch' (known: "
        + ", ".join(registry.REGISTRY)
        + ")"
    ]
    proc = run_cli("reproduce", "baseline", "--quick")
    assert proc.returncode == 2 and len(proc.stderr.splitlines()) == 1


def test_cli_missing_part_is_a_one_line_error(tmp_path, monkeypatch, capsys):
    mod = types.ModuleType("satcp.reproduce.broken_test")
    repro = _fake(1.0)
    mod.DEFAULT_OUT = str(tmp_path / "never")
    mod.reproduce = lambda out_dir, workers, quick: repro.reproduce(out_dir, parts=["gone"])
    monkeypatch.setitem(sys.modules, mod.__name__, mod)
    monkeypatch.setitem(registry.REGISTRY, "broken", registry.Entry("broken_test", "test"))
    out = tmp_path / "out"
    assert cli.main(["reproduce", "broken", "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert err == "satcp: error: reproduction tiny has no part 'gone'\n"
    assert not out.exists()


def test_pool_runs_equal_scenarios_once_with_run_manys_results():
    scs = [satcp.load(FTP, [f"apps[0].file_bytes={b}"]) for b in SIZES]
    alone = [r.raw_json for r in satcp.run_many(scs, workers=2)]
    with pool(2, planned=[(scs[1], None), (scs[1], None)]) as p:
        first = run_jobs([scs[1]])  # planned twice: kept for the second take
        both = run_jobs(scs)  # scs[0] was not planned: queued now
        again = run_jobs([scs[1]])  # taken as often as planned: runs anew
    assert p.started == 3
    assert [r.raw_json for r in both] == alone
    assert first[0] is both[1] and again[0] is not first[0]
    assert again[0].raw_json == alone[1]


def test_pool_queues_planned_runs_a_bounded_number_ahead(monkeypatch):
    monkeypatch.setattr(runs, "AHEAD_PER_THREAD", 1)
    scs = [satcp.load(FTP, [f"apps[0].file_bytes={b}"]) for b in (100_000, 200_000, 300_000)]
    alone = [r.raw_json for r in satcp.run_many(scs, workers=1)]
    with pool(1, planned=[(sc, None) for sc in scs]) as p:
        assert p.started == 1  # one ahead, not all three
        first = run_jobs(scs[:1])
        assert p.started == 2
        rest = run_jobs(scs[1:])
        assert p.started == 3
    assert [r.raw_json for r in first + rest] == alone


def test_pool_reports_an_invalid_scenario_by_its_place():
    bad = satcp.load(FTP, ["duration_s=-1"])
    with (
        pytest.raises(satcp.ScenarioError, match="scenario 1"),
        pool(2, planned=[(bad, None)]) as p,
    ):
        run_jobs([satcp.load(FTP), bad])
    assert p.started == 0


@pytest.mark.parametrize("name", ["baseline", "slowstart"])
def test_a_reproduction_asks_for_every_run_it_planned(name, tmp_path, monkeypatch):
    left = []
    close = runs.RunPool.close

    def closing(self, failed=False):
        left.append((self.started, sum(self._planned.values())))
        close(self, failed)

    monkeypatch.setattr(runs.RunPool, "close", closing)
    repro = registry.load(name).REPRODUCTION
    quick = {} if name == "baseline" else {"quick": True}
    repro.reproduce(tmp_path / "out", workers=2, **quick)
    ((started, unasked),) = left
    assert started > 0 and unasked == 0


def test_progress_counts_runs_and_failures():
    assert not progress.enabled()  # off in tests (and when stderr is no terminal)
    sc = satcp.load(FTP, ["apps[0].file_bytes=100000"])
    with progress.runs("test", show=False) as bar:
        satcp.run_many([sc, sc], workers=2)
        with progress.runs("inner", show=False):  # nested: reports to the outer bar
            satcp.run_many([sc], workers=1)
        assert (bar.done, bar.total, bar.failed) == (3, 3, 0)
        progress.add(1)
        progress.finished(ok=False)
        assert (bar.done, bar.total, bar.failed) == (4, 4, 1)
    progress.finished()  # no bar open: nothing happens


def test_one_jain_index():
    assert jain_index([1, 1, 1, 1]) == 1.0
    assert jain_index([1.0, 0.0, 0.0, 0.0]) == 0.25
    assert math.isnan(jain_index([])) and math.isnan(jain_index([0, 0]))
    assert maxmin_fairness([2.0, 4.0]) == 0.5


def test_run_progress_clock_reads_simulated_time_without_changing_results():
    import json
    from concurrent.futures import ThreadPoolExecutor

    from satcp import _core
    from satcp.scenario import to_json

    sc = satcp.load(FTP, ["apps[0].file_bytes=300000"])
    text = to_json(sc)
    clock = _core.SimClock()
    assert clock.now_s() == 0.0
    with ThreadPoolExecutor(1) as pool:
        job = pool.submit(_core.run_json_clocked, text, clock)
        progress.watch_sim_time(job, clock, sc["duration_s"], show=False)
        out = job.result()
    assert out == _core.run_json(text)  # the clock is an observer: bit-identical results
    end = json.loads(out)["end_time_s"]
    assert 0 < clock.now_s() <= end + 1e-9
    watched = satcp._run_watched(sc, text)
    assert watched.transfers.equals(satcp.run(sc).transfers)


def test_verdict_in_words_and_findings_in_the_summary():
    """A claim tested over several points may say its verdict in words
    (holds still decides); a part's findings head the report's summary."""
    c = Claim("7.28", "x better", None, None, holds=False, verdict_text="holds except ties")
    assert c.verdict == "holds except ties" and c.reproduced is False
    assert c.row()["reproduced"] == "holds except ties"
    sec = Section("Part A", "## Part A\n\nbody\n", [Claim("1", "y", 10.0, 10.5)], findings=["f1"])
    md = experiment.summary_markdown([experiment.PartResult("a", "covers A", sec)])
    assert md[:4] == ["**Part A**", "", "- f1", ""]
    assert any("| Fig. 1 | y |" in line for line in md)


def test_tally_counts_held_partly_failed_and_undecided():
    """The overall count of a report (issue 30): a held claim, one in part
    (a change the paper's way, or holding but for statistical ties), one
    that does not hold, one not decided; ``{tally}`` is its line."""
    change = Tolerance(15.0, "change")
    claims = [
        Claim("7", "held", 10.0, 11.0),
        Claim("7", "direction only", -30.0, -5.0, tolerance=change),
        Claim("7", "ties", None, None, holds=False, verdict_text="holds except ties at 1e-9"),
        Claim("7", "no", 10.0, 20.0),
        Claim("7", "n/a", None, None),
    ]
    t = tally(claims)
    assert (t.held, t.partly, t.failed, t.undecided, t.total) == (1, 2, 1, 1, 5)
    assert str(t).startswith("5 claims: 1 hold, 2 hold in part")
    assert str(t).endswith("1 do not hold, 1 not decided")
    assert tally([]).total == 0 and "not decided" not in str(tally([]))

"""A sweep's own metrics (satcp.sweep_metrics): columns of the results
tables aggregated per run, and Python functions of a run's results, as
columns of the runs table, averaged in the summary, drawn by satcp plot,
checked before anything runs, and part of the runs' cache keys."""

from __future__ import annotations

import math

import pandas as pd
import pytest
from conftest import FTP, run_cli

import satcp
from satcp import sweep
from satcp.scenario import ScenarioError
from satcp.sweep_metrics import Metric

GRID = f"""
base = "{FTP}"
seeds = [1, 2]
[set]
"apps[0].file_bytes" = 200000
[axes]
"links[1].ab.errors.ber" = [0.0, 1e-5]
[metrics]
sat_lost = "links.corrupted:sum"
mean_srtt = "flows.srtt_s:mean"
worst_timeouts = "flows.server_timeouts:max"
finished = "transfers.response_time_s:count"
"""


def _same_run(ber: float, seed: int) -> satcp.Results:
    sc = satcp.load(
        FTP, ["apps[0].file_bytes=200000", f"links[1].ab.errors.ber={ber}", f"seed={seed}"]
    )
    return satcp.run(sc)


def test_column_metrics_are_the_aggregates_of_the_same_runs(tmp_path):
    p = tmp_path / "g.toml"
    p.write_text(GRID)
    out = tmp_path / "out"
    proc = run_cli("sweep", p, "--out", out, "--quiet")
    assert proc.returncode == 0, proc.stderr
    runs = pd.read_csv(out / "tables" / "runs.csv")
    assert list(runs.columns[-4:]) == ["sat_lost", "mean_srtt", "worst_timeouts", "finished"]
    for _, row in runs.iterrows():
        r = _same_run(row["links[1].ab.errors.ber"], int(row["seed"]))
        assert row["sat_lost"] == r.links["corrupted"].sum()
        assert row["mean_srtt"] == pytest.approx(r.flows["srtt_s"].mean(), rel=1e-12)
        assert row["worst_timeouts"] == r.flows["server_timeouts"].max()
        assert row["finished"] == r.transfers["response_time_s"].notna().sum()
    assert (runs[runs["links[1].ab.errors.ber"] > 0].sat_lost > 0).all()
    summary = pd.read_csv(out / "tables" / "summary.csv")
    for m in ("sat_lost", "mean_srtt", "worst_timeouts", "finished"):
        assert {f"{m}_mean", f"{m}_ci95", f"{m}_n"} <= set(summary.columns)
    plots = run_cli("plot", out)
    assert plots.returncode == 0, plots.stderr
    assert (out / "plots" / "sat_lost-by-links_1_.ab.errors.ber.png").exists()


def test_python_functions_are_metrics_and_their_code_is_in_the_cache_key(tmp_path):
    sw = sweep.load_sweep(_write(tmp_path, GRID))

    def dupacks(r: satcp.Results) -> float:
        return float(r.flows["server_dupacks_received"].sum())

    res = sweep.run_sweep(sw, tmp_path / "out", progress=False, metrics={"dupacks": dupacks})
    r = _same_run(1e-5, 1)
    at = res.runs[(res.runs["links[1].ab.errors.ber"] == 1e-5) & (res.runs.seed == 1)]
    assert at.dupacks.iloc[0] == r.flows["server_dupacks_received"].sum() > 0
    assert "dupacks_mean" in res.summary.columns

    def dupacks2(r: satcp.Results) -> float:  # another body under another name
        return float(r.flows["server_dupacks_received"].sum() * 2)

    again = sweep.run_sweep(sw, tmp_path / "out", progress=False, metrics={"dupacks": dupacks2})
    assert again.computed == 4 and again.cached == 0
    same = sweep.run_sweep(sw, tmp_path / "out", progress=False, metrics={"dupacks": dupacks2})
    assert same.computed == 0 and same.cached == 4


def test_a_sweep_without_metrics_keeps_its_cache_keys(tmp_path):
    """Built-in metrics only: the keys (and so old caches) are unchanged."""
    plain = sweep.load_sweep(_write(tmp_path, GRID.split("[metrics]")[0]))
    job = next(plain.jobs())
    sc = plain._scenario(job.point) | {"seed": job.seed}
    assert job.key == sweep.run_key(sc)
    with_metrics = sweep.load_sweep(_write(tmp_path, GRID))
    assert next(with_metrics.jobs()).key != job.key


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('x = "links.nope:sum"', "metrics.x: links has no column 'nope'"),
        ('x = "links.queue_drops:median"', "metrics.x: aggregate 'median'"),
        ('x = "queues.queue_drops:sum"', "metrics.x: table 'queues'"),
        ('x = "links.queue_drops"', "metrics.x: 'links.queue_drops' must read \"TABLE.COLUMN"),
        ('goodput_bps = "links.queue_drops:sum"', "metrics.goodput_bps: already a column"),
        ('x = "flows.variant:max"', "metrics.x: flows.variant is not a number"),
    ],
)
def test_bad_metrics_are_refused_in_one_line_and_nothing_is_written(tmp_path, line, message):
    p = _write(tmp_path, GRID.split("[metrics]")[0] + "[metrics]\n" + line + "\n")
    out = tmp_path / "out"
    proc = run_cli("sweep", p, "--out", out, "--quiet")
    assert proc.returncode == 2 and message in proc.stderr, proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    assert not out.exists()
    with pytest.raises(ScenarioError, match="already a column"):
        sweep.run_sweep(
            sweep.load_sweep(_write(tmp_path, GRID)), out, metrics={"seed": lambda r: 0.0}
        )
    assert not out.exists()


def test_metric_rules():
    """Values missing in a row are left out; an absent counter is 0; an
    empty table sums to 0 and has no mean."""
    r = {"flows": [{"srtt_s": None, "server": {"timeouts": 2}}, {"srtt_s": 0.5, "server": {}}]}
    assert Metric("flows", "srtt_s", "mean").value(r) == 0.5
    assert Metric("flows", "srtt_s", "count").value(r) == 1
    assert Metric("flows", "server_timeouts", "sum").value(r) == 2
    assert Metric("flows", "counter_probes", "sum").value(r) == 0
    assert Metric("links", "queue_drops", "sum").value({"links": []}) == 0
    assert math.isnan(Metric("links", "queue_drops", "max").value({"links": []}))
    assert Metric("links", "queue_drops", "sum").fields() == ["links.stats.queue_drops"]
    assert Metric("links", "rate_bps", "sum").fields() == ["links.rate_bps"]


def _write(tmp_path, text: str):
    p = tmp_path / f"s{abs(hash(text))}.toml"
    p.write_text(text)
    return p

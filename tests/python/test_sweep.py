"""Sweeps: a grid run locally or on a Dask cluster, cached and resumable."""

from __future__ import annotations

import math
import random
import subprocess
import threading
import time

import pandas as pd
import pytest
from conftest import FTP, run_cli

from satcp import stats, sweep
from satcp.frame_files import csv_text, write_parquet

GRID = f"""
base = "{FTP}"
seeds = [1, 2]
[set]
"apps[0].file_bytes" = 150000
[axes]
"tcp.variant" = ["sack", "newreno"]
"links[1].ab.errors.ber" = [0.0, 1e-5]
"""


@pytest.fixture
def grid(tmp_path):
    p = tmp_path / "grid.toml"
    p.write_text(GRID)
    return p


def test_cli_sweep_writes_runs_and_summary(tmp_path, grid):
    out = tmp_path / "out"
    proc = run_cli("sweep", grid, "--out", out, "--quiet")
    assert proc.returncode == 0, proc.stderr
    runs = pd.read_parquet(out / "tables" / "runs.parquet")
    assert len(runs) == 2 * 2 * 2
    assert set(runs["tcp.variant"]) == {"sack", "newreno"}
    summary = pd.read_csv(out / "tables" / "summary.csv")
    assert len(summary) == 4 and (summary.runs == 2).all()
    assert (summary.response_time_s_n == 2).all() and (summary.unfinished_runs == 0).all()
    assert (runs.transfers_done == 1).all() and (runs.unfinished_cause == "").all()
    assert "unfinished" not in proc.stderr
    clean = summary[summary["links[1].ab.errors.ber"] == 0.0]
    # Lossless: both seeds give the same time, so the interval is zero.
    assert (clean.response_time_s_ci95 == 0).all()
    lossy = summary[summary["links[1].ab.errors.ber"] == 1e-5]
    assert (lossy.response_time_s_mean > clean.response_time_s_mean.max()).all()


def test_a_run_s_metrics_do_not_need_its_series(grid, monkeypatch):
    """A sweep's run leaves the time series out of its results (the
    thesis scenario samples every second); its metrics are those of the
    full results."""
    import json

    import satcp
    from satcp import _core

    sw = sweep.load_sweep(grid)
    _, _, sc = next(r for r in sw.runs() if r[0]["links[1].ab.errors.ber"] > 0)
    text = sweep.to_json(sc)
    assert sc["sample_interval_s"] > 0
    full = satcp.run(sc)
    assert len(full.raw["flow_series"]["time_s"]) > 3
    summary = json.loads(_core.run_json_summary(text))
    assert summary["flow_series"]["time_s"] == [] and summary["link_series"]["time_s"] == []
    assert summary["events"] == full.events

    def full_results(_text):
        raise AssertionError("a sweep's run asked for its series")

    monkeypatch.setattr(_core, "run_json", full_results)
    row = sweep.run_one(text)
    assert row["events"] == full.events
    assert row["timeouts"] == sum(f["server"]["timeouts"] for f in full.raw["flows"])
    assert row["goodput_bps"] == sum(f["goodput_bps"] for f in full.raw["flows"])


def test_the_core_s_threads_give_run_one_s_rows_and_errors(grid):
    """The local runner's rows (``_core.RowPool`` on its own threads, then
    ``_row_of``) are those of :func:`sweep.run_one`, column metrics and a
    refused scenario's message included."""
    from satcp import ScenarioError, _core
    from satcp.sweep_metrics import parse_metrics

    sw = sweep.load_sweep(grid)
    texts = [j.text for j in sw.jobs()] + [sweep.to_json({**sw.base, "duration_s": -1.0})]
    metrics = parse_metrics({"q": "links.queue_drops:sum", "srtt": "flows.srtt_s:mean"}, [])
    pool = _core.RowPool(2, sweep._fields(metrics))
    pool.submit(list(enumerate(texts)))
    got = {}
    while len(got) < len(texts):
        for i, row, rest, err, _ in pool.take(10.0, len(texts) - len(got)):
            got[i] = err if err is not None else sweep._row_of(row, rest, metrics, {})
    pool.close()
    for i, text in enumerate(texts):
        try:
            want = sweep.run_one(text, metrics=metrics)
        except ScenarioError as e:
            want = str(e)
        assert got[i] == want
    assert "duration_s" in got[len(texts) - 1]


def test_jobs_are_the_runs_serialized(grid, tmp_path):
    """Sweep.jobs writes each seed into its point's JSON: the same texts and
    cache keys as serializing every run's scenario."""
    from satcp.scenario import to_json

    for seeds in ("[1, 2]", f"[0, 7, {sweep._SEED_MARK}, {2**64 - 1}]"):
        p = tmp_path / "g.toml"
        p.write_text(GRID.replace("seeds = [1, 2]", f"seeds = {seeds}"))
        sw = sweep.load_sweep(p)
        jobs = list(sw.jobs())
        runs = list(sw.runs())
        assert len(jobs) == len(runs) == sw.count() == 4 * len(sw.seeds)
        for j, (point, seed, sc) in zip(jobs, runs, strict=True):
            assert (j.point, j.seed) == (point, seed)
            assert j.text == to_json(sc)
            assert j.key == sweep.run_key(sc)
        # The sweep's own metrics are part of the keys.
        p.write_text(p.read_text() + '[metrics]\nq = "links.queue_drops:sum"\n')
        sw = sweep.load_sweep(p)
        for j, (*_, sc) in zip(sw.jobs(), sw.runs(), strict=True):
            assert j.key == sweep.run_key(sc, sw.row_spec()) != sweep.run_key(sc)
    # A scenario that holds the mark's digits: one run at a time, same result.
    p.write_text(GRID.replace("150000", str(sweep._SEED_MARK)))
    sw = sweep.load_sweep(p)
    assert [j.text for j in sw.jobs()] == [to_json(sc) for *_, sc in sw.runs()]


def test_the_cache_of_earlier_versions_is_read(tmp_path, grid):
    """One file per run (before runs.jsonl), and a log line cut short by a
    crash: both resume."""
    import json

    sw = sweep.load_sweep(grid)
    out = tmp_path / "out"
    first = sweep.run_sweep(sw, out, progress=False)
    log = out / "cache" / sweep.CACHE_LOG
    lines = log.read_text().splitlines()
    assert len(lines) == 8
    old = json.loads(lines[0])
    (out / "cache" / f"{old['run']}.json").write_text(json.dumps(old["row"]))
    log.write_text("\n".join(lines[1:5]) + "\n" + lines[5][:20])  # a crash mid-line
    second = sweep.run_sweep(sw, out, progress=False)
    assert (second.computed, second.cached) == (3, 5)
    pd.testing.assert_frame_equal(first.runs, second.runs)
    third = sweep.run_sweep(sw, out, progress=False)
    assert (third.computed, third.cached) == (0, 8)


def test_an_interrupted_sweep_resumes_without_recomputing(tmp_path, grid):
    sw = sweep.load_sweep(grid)
    out = tmp_path / "out"
    first = sweep.run_sweep(sw, out, progress=False, limit=3)
    assert (first.computed, first.cached) == (3, 0)
    second = sweep.run_sweep(sw, out, progress=False)
    assert (second.computed, second.cached) == (5, 3)
    third = sweep.run_sweep(sw, out, progress=False)
    assert (third.computed, third.cached) == (0, 8)
    pd.testing.assert_frame_equal(second.runs, third.runs)


def test_a_dask_cluster_gives_the_same_table(tmp_path, grid):
    from distributed import LocalCluster

    sw = sweep.load_sweep(grid)
    local = sweep.run_sweep(sw, tmp_path / "local", progress=False)
    with LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None
    ) as cluster:
        dask = sweep.run_sweep(
            sw, tmp_path / "dask", scheduler=cluster.scheduler_address, progress=False
        )
    assert dask.failed == []
    pd.testing.assert_frame_equal(local.runs, dask.runs)
    pd.testing.assert_frame_equal(local.summary, dask.summary)


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _start(cmd: list[str], log) -> subprocess.Popen:
    return subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)


def test_the_readme_cluster_commands(tmp_path, grid):
    """The README's "Running a sweep on a cluster", on 127.0.0.1: `dask
    scheduler`, one `dask worker ADDR`, then `satcp sweep --scheduler ADDR`;
    the tables are the local sweep's."""
    import shutil
    import sys
    from pathlib import Path

    dask = shutil.which("dask", path=str(Path(sys.executable).parent)) or shutil.which("dask")
    if dask is None:
        pytest.skip("no dask command")
    port = _free_port()
    addr = f"tcp://127.0.0.1:{port}"
    log = (tmp_path / "dask.log").open("w")
    procs = [
        _start(
            [dask, "scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"], log
        )
    ]
    try:
        procs.append(_start([dask, "worker", addr, "--nthreads", "1", "--no-dashboard"], log))
        proc = subprocess.run(
            [sys.executable, "-m", "satcp.cli", "sweep", grid, "--scheduler", addr],
            capture_output=True,
            text=True,
            cwd=tmp_path,
            timeout=300,
            check=False,
        )
    finally:
        for p in reversed(procs):
            p.terminate()
        for p in reversed(procs):
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait(timeout=30)
        log.close()
    assert proc.returncode == 0, (proc.stderr, (tmp_path / "dask.log").read_text()[-3000:])
    assert "8 runs: 8 computed" in proc.stdout
    local = sweep.run_sweep(sweep.load_sweep(grid), tmp_path / "local", progress=False)
    dask_runs = pd.read_parquet(tmp_path / "sweeps" / "grid" / "tables" / "runs.parquet")
    pd.testing.assert_frame_equal(local.runs, dask_runs)


def test_workers_with_another_satcp_are_refused(tmp_path, grid, monkeypatch):
    """The workers run satcp as installed; this process claims another
    version: the sweep names both on one line and writes nothing."""
    from distributed import LocalCluster

    import satcp
    from satcp import cli

    monkeypatch.setattr(satcp, "__version__", "0.0.0-other")
    out = tmp_path / "out"
    with LocalCluster(
        n_workers=1, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None
    ) as cluster:
        with pytest.raises(sweep.ClusterError) as e:
            sweep.run_sweep(
                sweep.load_sweep(grid), out, scheduler=cluster.scheduler_address, progress=False
            )
        msg = str(e.value)
        assert "\n" not in msg
        assert "satcp 0.0.0-other" in msg
        monkeypatch.undo()
        assert f"runs satcp {satcp.__version__} (commit " in msg
        assert not out.exists()
        # The command line: the same line, exit 2.
        monkeypatch.setattr(satcp, "__version__", "0.0.0-other")
        rc = cli.main(
            [
                "sweep",
                str(grid),
                "--out",
                str(out),
                "--scheduler",
                cluster.scheduler_address,
                "--quiet",
            ]
        )
    assert rc == 2 and not out.exists()


def test_a_worker_killed_mid_sweep_costs_only_its_runs(tmp_path):
    from distributed import LocalCluster

    # Runs of a few tens of ms each, so that the kill lands mid-sweep.
    p = tmp_path / "slow.toml"
    p.write_text(
        GRID.replace("150000", "5000000").replace("seeds = [1, 2]", "seeds = [1, 2, 3, 4, 5]")
    )
    sw = sweep.load_sweep(p)
    out = tmp_path / "out"
    with LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None
    ) as cluster:
        result = {}

        def go():
            result["r"] = sweep.run_sweep(
                sw, out, scheduler=cluster.scheduler_address, progress=False
            )

        t = threading.Thread(target=go)
        t.start()
        deadline = time.time() + 60
        log = out / "cache" / sweep.CACHE_LOG
        while not (log.exists() and log.stat().st_size) and time.time() < deadline:
            time.sleep(0.01)
        worker = next(iter(cluster.workers.values()))
        worker.process.process.kill()
        t.join(timeout=120)
    r = result["r"]
    assert r.failed == []
    assert len(r.runs) == 2 * 2 * 5


def test_bad_sweep_files_are_one_line(tmp_path):
    for text, frag in [
        ("seeds = [1]\n", "base"),
        (f'base = "{FTP}"\nseeds = [-1]\n', "seeds"),
        (f'base = "{FTP}"\n[axes]\n"tcp.variant" = []\n', "axes"),
        (f'base = "{FTP}"\n[axes]\n"tcp.variant" = ["vegas"]\n', "vegas"),
        (f'base = "{FTP}"\ncolour = 1\n', "colour"),
    ]:
        p = tmp_path / "s.toml"
        p.write_text(text)
        proc = run_cli("sweep", p, "--out", tmp_path / "o", "--quiet")
        assert proc.returncode == 2, (text, proc.stderr)
        assert frag in proc.stderr and len(proc.stderr.splitlines()) == 1


@pytest.mark.parametrize(
    ("text", "frags"),
    [
        # issue 31: an axis named seed was overwritten by seeds
        ("seeds = [1, 2, 3]\n[axes]\nseed = [1, 2, 3]\n", ["axes.seed", "use seeds"]),
        ("[set]\nseed = 4\n", ["set.seed", "use seeds"]),
        # a repeated axis value or seed counted one run twice
        (
            '[axes]\n"tcp.variant" = ["sack", "newreno", "sack"]\n',
            ["axes.tcp.variant", "'sack'", "twice"],
        ),
        ("seeds = [1, 2, 1]\n", ["seeds", "1", "twice"]),
        ('[set]\n"tcp.mss" = 1000\n[axes]\n"tcp.mss" = [500, 1000]\n', ["tcp.mss", "[set]"]),
        ("set = 3\n", ["set", "table"]),
        # a grid of millions of points was built in memory
        (
            "seeds = [" + ", ".join(map(str, range(100))) + "]\n[axes]\n"
            '"apps[0].file_bytes" = [' + ", ".join(str(1000 + i) for i in range(2000)) + "]\n",
            ["2000 x 100 = 200000 runs", "100000"],
        ),
    ],
    ids=range(7),
)
def test_sweeps_that_were_silently_wrong_are_refused(tmp_path, text, frags):
    p = tmp_path / "s.toml"
    p.write_text(f'base = "{FTP}"\n' + text)
    with pytest.raises(sweep.ScenarioError) as e:
        sweep.load_sweep(p)
    msg = str(e.value)
    assert "\n" not in msg
    for f in frags:
        assert f in msg, (f, msg)


def test_a_point_s_n_counts_the_values_averaged_not_the_runs():
    """The issue's Hybla point: three runs, one without a response time
    (its download unfinished): the mean is over two values, n says 2, and
    the point counts one unfinished run."""
    nan = float("nan")
    runs = pd.DataFrame(
        {
            "tcp.variant": ["hybla"] * 3,
            "seed": [1, 2, 3],
            **{m: [1.0, 2.0, 3.0] for m in sweep.METRICS},
            "response_time_s": [170.0, 171.4, nan],
            "transfers_done": [1, 1, 0],
            "transfers_aborted": [0, 0, 0],
            "transfers_unfinished": [0, 0, 1],
        }
    ).to_dict("records")
    [s] = sweep.summarize(runs, ["tcp.variant"])
    assert (s["runs"], s["unfinished_runs"]) == (3, 1)
    assert s["response_time_s_n"] == 2 and s["response_time_s_mean"] == pytest.approx(170.7)
    assert s["goodput_bps_n"] == 3


def _pandas_summary(runs: list[dict], axes: list[str], metrics) -> pd.DataFrame:
    """The summary as pandas' groupby makes it (what sweeps wrote before
    their tables were made without pandas)."""
    df = pd.DataFrame(runs)
    groups = df.groupby(axes, dropna=False, sort=False) if axes else [((), df)]
    rows = []
    for key, g in groups:
        key = key if isinstance(key, tuple) else (key,)
        row = dict(zip(axes, key, strict=True))
        row["runs"] = len(g)
        row["unfinished_runs"] = int(
            ((g["transfers_aborted"] + g["transfers_unfinished"]) > 0).sum()
        )
        for m in metrics:
            v = list(g[m].astype(float).dropna())
            mean, half = stats.mean_ci95(v) if v else (math.nan, math.nan)
            row[f"{m}_mean"], row[f"{m}_ci95"], row[f"{m}_n"] = mean, half, len(v)
        rows.append(row)
    return pd.DataFrame(rows)


@pytest.mark.parametrize("seed", range(40))
def test_summary_is_pandas_groupby(seed, tmp_path):
    """summarize gives pandas' groupby summary, to the byte in its CSV and
    Parquet files: axes of integers, of integers and floats, of strings,
    of booleans, with NaN; metrics with missing values."""
    rng = random.Random(seed)
    axis_values = [
        [1, 2, 3],
        [4, 300.0],
        ["newreno", "cubic", "hybla"],
        [True, False],
        [0.0, float("nan"), 1e-5],
    ]
    axes = [f"a{i}" for i in rng.sample(range(len(axis_values)), rng.randint(0, 3))]
    runs = []
    for _ in range(rng.randint(1, 40)):
        run = {a: rng.choice(axis_values[int(a[1:])]) for a in axes}
        run["seed"] = rng.randint(1, 9)
        for m in sweep.METRICS:
            run[m] = rng.choice([rng.uniform(0, 100), rng.randint(0, 5), float("nan")])
        run["transfers_aborted"] = rng.randint(0, 1)
        run["transfers_unfinished"] = rng.randint(0, 1)
        runs.append(run)
    ours = sweep.summarize(runs, axes)
    theirs = _pandas_summary(runs, axes, sweep.METRICS)
    pd.testing.assert_frame_equal(pd.DataFrame(ours), theirs)
    assert csv_text(ours) == theirs.to_csv(index=False)
    write_parquet(ours, tmp_path / "a.parquet")
    theirs.to_parquet(tmp_path / "b.parquet", index=False)
    assert (tmp_path / "a.parquet").read_bytes() == (tmp_path / "b.parquet").read_bytes()


UNFINISHED = f"""
base = "{FTP}"
seeds = [1, 2]
[set]
"apps[0].file_bytes" = 300000
"tcp.max_retransmissions" = 2
"links[1].ab.errors.data_only" = true
[axes]
"duration_s" = [4.0, 300.0]
"links[1].ab.errors.loss" = [0.0, 1.0]
[metrics]
lost = "links.lost:sum"
"""


@pytest.mark.parametrize("where", ["local", "dask"])
def test_unfinished_and_aborted_runs_are_counted_and_flagged(tmp_path, where):
    """A run cut off by its duration and one whose link loses every data
    packet (the server gives up at the retransmission limit): each run says how many
    transfers ended which way and why; their points count them, and the
    command names them (on a Dask cluster too, with the same tables)."""
    p = tmp_path / "u.toml"
    p.write_text(UNFINISHED)
    out = tmp_path / "out"
    if where == "local":
        proc = run_cli("sweep", p, "--out", out, "--quiet")
        assert proc.returncode == 0, proc.stderr
    else:
        from distributed import LocalCluster

        sw = sweep.load_sweep(p)
        local = sweep.run_sweep(sw, tmp_path / "local", progress=False)
        with LocalCluster(
            n_workers=1,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address=None,
        ) as cluster:
            dask = sweep.run_sweep(sw, out, scheduler=cluster.scheduler_address, progress=False)
        pd.testing.assert_frame_equal(local.runs, dask.runs)
        pd.testing.assert_frame_equal(local.summary, dask.summary)
        assert dask.unfinished_points() == local.unfinished_points()
    runs = pd.read_csv(out / "tables" / "runs.csv")
    dead = runs["links[1].ab.errors.loss"] == 1.0
    short = runs["duration_s"] == 4.0
    done = runs[~dead & ~short]
    assert (done.transfers_done == 1).all() and done.response_time_s.notna().all()
    cut = runs[short & ~dead]
    assert (cut.transfers_unfinished == 1).all() and cut.response_time_s.isna().all()
    assert cut.unfinished_cause.str.contains("duration limit").all()
    aborted = runs[dead & ~short]
    assert (aborted.transfers_aborted == 1).all() and (aborted.transfers_done == 0).all()
    assert (aborted.lost > 0).all() and (done.lost == 0).all()  # the sweep's own metric
    assert aborted.unfinished_cause.str.contains(
        r"server gave up at [\d.]+ s after 3 timeouts in a row"
    ).all()
    summary = pd.read_csv(out / "tables" / "summary.csv")
    assert list(summary.unfinished_runs) == [2, 2, 0, 2]
    assert list(summary.response_time_s_n) == [0, 0, 2, 0]
    if where == "local":
        flagged = [ln for ln in proc.stderr.splitlines() if ln.startswith("unfinished: ")]
        assert len(flagged) == 3, proc.stderr
        assert "duration_s=4.0" in flagged[0] and "2 of 2 runs unfinished" in flagged[0]
        assert "2 transfers aborted at the retransmission limit" in flagged[2]


def test_the_worker_check_compares_version_and_commit_not_local_changes(monkeypatch):
    """check_workers against fake workers: another commit or version is
    refused; uncommitted changes and an unknown commit are not."""
    from satcp import provenance

    here = ("1.2.0", "a" * 40)

    class Client:
        def __init__(self, builds):
            self.builds = builds

        def run(self, fn):
            return {f"tcp://10.0.0.{i}:1": b for i, b in enumerate(self.builds)}

    monkeypatch.setattr(sweep, "build", lambda: here)
    ok = [here, ("1.2.0", "a" * 40 + "-dirty"), ("1.2.0", provenance.UNKNOWN)]
    sweep.check_workers(Client(ok))
    for bad, shown in (
        (("1.2.0", "b" * 40), f"runs satcp 1.2.0 (commit {'b' * 40})"),
        (("1.1.0", "a" * 40), "runs satcp 1.1.0"),
    ):
        with pytest.raises(sweep.ClusterError, match=r"worker tcp://10\.0\.0\.1:1 ") as e:
            sweep.check_workers(Client([here, bad]))
        assert shown in str(e.value) and f"this is satcp 1.2.0 (commit {'a' * 40})" in str(e.value)


def test_a_sweep_without_axes_names_its_unfinished_runs(tmp_path):
    """Seeds only (one point, no axes), every run cut off by its duration:
    the command names the point instead of failing."""
    p = tmp_path / "seeds.toml"
    p.write_text(f'base = "{FTP}"\nseeds = [1, 2]\n[set]\n"duration_s" = 1.0\n')
    proc = run_cli("sweep", p, "--out", tmp_path / "out", "--quiet")
    assert proc.returncode == 0, proc.stderr
    assert (
        "the point: 2 of 2 runs unfinished (2 transfers still under way"
        in proc.stdout + proc.stderr
    )

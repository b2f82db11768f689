"""The memory budget, streamed sweeps and a full disk (issue 31 items 2
and 4): a run estimated to need more than ``--max-memory`` (2 GB unless
told) is refused before it starts, in one line naming the fields and the
estimate; a sweep's grid is iterated, never built; a write that fails for
want of space leaves one line and nothing temporary behind."""

from __future__ import annotations

import errno
import io
import os
import time
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest
from conftest import FTP, SMALL_FTP

import satcp
from satcp import cli, sweep

SMALL = [a for o in SMALL_FTP for a in ("--set", o)]


def test_the_estimate_has_its_parts_and_the_default_limit_is_2_gb():
    total, parts = satcp.estimate_memory(FTP)
    assert satcp.DEFAULT_MAX_MEMORY == 2e9
    assert 0 < total < 2e8
    assert total == pytest.approx(sum(b for _, b, _ in parts))
    assert [f for f, _, _ in parts] == [
        "apps[0].files",
        "sample_interval_s",
        "tcp.rcv_buffer, queue_packets, queue_bytes",
    ]


def test_max_memory_is_a_keyword_of_run_validate_and_run_many():
    sc = satcp.load(FTP, SMALL_FTP)
    for call in (
        lambda: satcp.run(sc, max_memory=1e6),
        lambda: satcp.validate(sc, max_memory=1e6),
        lambda: satcp.run_many([sc], max_memory=1e6),
    ):
        with pytest.raises(satcp.ScenarioError, match=r"sample_interval_s: .* 1\.0 MB"):
            call()
    satcp.validate(sc, max_memory=1e9)
    satcp.validate(sc, sample_interval_s=0.002, max_memory=1e12)
    with pytest.raises(satcp.ScenarioError, match=r"memory limit of 2\.0 GB"):
        satcp.validate(sc, sample_interval_s=0.002)


def cli_main(*args, cwd=None):
    err, out = io.StringIO(), io.StringIO()
    here = os.getcwd()
    if cwd is not None:
        os.chdir(cwd)
    try:
        with redirect_stderr(err), redirect_stdout(out):
            code = cli.main([str(a) for a in args])
    finally:
        os.chdir(here)
    return code, out.getvalue(), err.getvalue()


def test_a_larger_limit_lets_a_run_go(tmp_path):
    args = ["run", FTP, *SMALL, "--set", "duration_s=20", "--sample-interval", "0.0002", "-q"]
    code, _, err = cli_main(*args, "--max-memory", "100M")
    assert code == 2 and "sample_interval_s" in err and "memory limit of 100 MB" in err
    code, _, err = cli_main(*args, "--max-memory", "1GB")
    assert code == 0, err


SWEEP = """
base = "{base}"
seeds = [1, 2]
[set]
"apps[0].file_bytes" = 100000
[axes]
"tcp.variant" = ["sack", "newreno"]
"""


def test_a_sweep_refuses_a_run_over_the_limit_before_writing(tmp_path):
    path = tmp_path / "s.toml"
    path.write_text(SWEEP.format(base=FTP))
    out = tmp_path / "out"
    code, _, err = cli_main("sweep", path, "--out", out, "--max-memory", "1M", "-q")
    assert code == 2, err
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("satcp: error: run 0 "), lines
    assert "sample_interval_s" in lines[0] and "1.0 MB" in lines[0]
    assert not out.exists()
    code, _, err = cli_main("sweep", path, "--out", out, "--max-memory", "1G", "-q")
    assert code == 0, err


def test_the_grid_is_iterated_not_built(tmp_path):
    """A grid of 99,000 runs: its count is arithmetic, its first job comes
    at once, and its points are produced one at a time."""
    axis = ", ".join(str(1000 + i) for i in range(495))
    path = tmp_path / "g.toml"
    path.write_text(
        SWEEP.format(base=FTP).replace("seeds = [1, 2]", "seeds = [1, 2, 3, 4, 5]")
        + f'"apps[0].request_bytes" = [{axis}]\n"tcp.mss" = [536, 1000, 1200, 1460]\n'
        + '"tcp.initial_window" = [1, 2, 3, 4, 5]\n'
    )
    sw = sweep.load_sweep(path)
    assert sw.count() == 5 * 2 * 495 * 4 * 5 == 99_000
    t = time.perf_counter()
    points = sw.points()
    assert iter(points) is points
    first = next(sw.jobs())
    assert time.perf_counter() - t < 1.0
    assert first.point == {
        "tcp.variant": "sack",
        "apps[0].request_bytes": 1000,
        "tcp.mss": 536,
        "tcp.initial_window": 1,
    }


def test_a_sweep_keeps_a_few_scenarios_at_once(tmp_path, monkeypatch):
    """The local runner takes jobs from the stream as the core's threads
    take runs: at most QUEUED_PER_WORKER per thread (here 2) are submitted
    and not yet taken back."""
    from satcp import _core

    path = tmp_path / "s.toml"
    path.write_text(SWEEP.format(base=FTP).replace("seeds = [1, 2]", f"seeds = {list(range(40))}"))
    sw = sweep.load_sweep(path)
    real = _core.RowPool
    out = []  # runs submitted and not taken back, at each submission

    class Counted:
        def __init__(self, *args):
            self.pool = real(*args)
            self.out = 0

        def submit(self, runs):
            for _ in runs:
                self.out += 1
                out.append(self.out)
            self.pool.submit(runs)

        def take(self, *args):
            taken = self.pool.take(*args)
            self.out -= len(taken)
            return taken

        def close(self):
            self.pool.close()

    monkeypatch.setattr(_core, "RowPool", Counted)
    monkeypatch.setattr(sweep, "QUEUED_PER_WORKER", 2)
    monkeypatch.setattr(sweep, "MAX_QUEUED_PER_WORKER", 2)
    res = sweep.run_sweep(sw, tmp_path / "out", workers=1, progress=False)
    assert res.computed == 80 and not res.failed
    assert len(out) == 80 and max(out) == 2


def no_space(path):
    return OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))


def test_a_full_disk_is_one_line_and_leaves_nothing(tmp_path, monkeypatch):
    """``satcp run --out --pcap`` whose table write fails with ENOSPC after
    part of the file was written: one line, exit 2, no output folder, no
    temporary folder, no capture."""
    import satcp.results

    real = satcp.results.text_writer

    def full(text):
        write = real(text)

        def w(path):
            if path.endswith("links.csv"):
                with open(path, "w") as f:
                    f.write(text[: len(text) // 2])
                raise no_space(path)
            write(path)

        return w

    monkeypatch.setattr(satcp.results, "text_writer", full)
    work = tmp_path / "work"
    work.mkdir()
    code, _, err = cli_main("run", FTP, *SMALL, "--out", "out", "--pcap", "satellite", cwd=work)
    lines = err.splitlines()
    assert code == 2, err
    assert len(lines) == 1 and lines[0].startswith("satcp: error: cannot write out: "), lines
    assert "No space left on device" in lines[0]
    assert list(work.iterdir()) == []


def test_a_full_disk_in_a_sweep_keeps_the_cache_and_no_temporary(tmp_path, monkeypatch):
    path = tmp_path / "s.toml"
    path.write_text(SWEEP.format(base=FTP))
    out = tmp_path / "out"

    def full(frame, p, metadata):
        Path(p).write_bytes(b"PAR1")
        raise no_space(p)

    monkeypatch.setattr(sweep.Frame, "write_parquet", full)
    code, _, err = cli_main("sweep", path, "--out", out, "-q")
    lines = err.splitlines()
    assert code == 2, err
    assert len(lines) == 1 and "No space left on device" in lines[0], lines
    assert sorted(p.name for p in out.iterdir()) == ["cache"]
    assert sorted(p.name for p in (out / "cache").iterdir()) == ["runs.jsonl"]
    assert len((out / "cache" / "runs.jsonl").read_text().splitlines()) == 4

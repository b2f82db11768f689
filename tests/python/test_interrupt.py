"""Ctrl-C (issue 31 item 4): ``satcp run`` stops within a moment with one
line and exit 130, having written nothing; ``satcp sweep`` stops at once
and keeps every finished run in its cache; nothing temporary is left.
Each test sends SIGINT to a child process, bounded in time."""

from __future__ import annotations

import signal
import subprocess
import sys
import time

import pytest
from conftest import FTP

from satcp import sweep

#: A transfer that goes on for 116 simulated days, without samples: many
#: minutes of wall time (a simulated day takes seconds), so only Ctrl-C
#: ends it within the test.
ENDLESS_SET = ["apps[0].file_bytes=1000000000000000", "duration_s=10000000", "sample_interval_s=0"]
ENDLESS = [a for o in ENDLESS_SET for a in ("--set", o)]
#: Bounds of a test's waits (a loaded machine included), not targets.
START_S = 60.0
STOP_S = 10.0

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")


def _start(args, cwd):
    return subprocess.Popen(
        [sys.executable, "-m", "satcp.cli", *map(str, args)],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _interrupt(proc, started):
    """SIGINT once ``started()`` holds (the run is going on); the process's
    (return code, stderr, seconds from the signal to its end)."""
    deadline = time.monotonic() + START_S
    while not started():
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "never started"
        time.sleep(0.05)
    t0 = time.monotonic()
    proc.send_signal(signal.SIGINT)
    try:
        _, err = proc.communicate(timeout=STOP_S)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        raise AssertionError(f"still running {STOP_S} s after SIGINT") from None
    return proc.returncode, err, time.monotonic() - t0


def _settled(seconds):
    t0 = time.monotonic()
    return lambda: time.monotonic() - t0 > seconds


@pytest.mark.parametrize("pcap", [False, True], ids=["plain", "pcap"])
def test_run_stops_on_ctrl_c_and_writes_nothing(tmp_path, pcap):
    args = ["run", FTP, *ENDLESS, "--out", tmp_path / "out", "--quiet"]
    if pcap:
        args += ["--pcap", "satellite"]
    # The run starts some 0.3 s after the process (imports, the scenario).
    rc, err, lag = _interrupt(_start(args, tmp_path), _settled(1.5))
    assert rc == 130, err
    assert err == "satcp: interrupted\n"
    assert lag < STOP_S
    assert list(tmp_path.iterdir()) == []  # no out, no .satcp-pcap-* folder


def test_sweep_stops_at_once_and_keeps_its_finished_runs(tmp_path):
    """Ten short runs, then two endless ones that hold both workers: Ctrl-C
    stops them at once; the ten are in the cache, and a resume finds them."""
    (tmp_path / "s.toml").write_text(
        f'base = "{FTP}"\n'
        '[set]\n"apps[0].file_bytes" = 1000000000000000\n"sample_interval_s" = 0\n'
        "[axes]\nduration_s = ["
        + ", ".join(str(1 + i) for i in range(10))
        + ", 10000000, 10000001]\n"
    )
    out = tmp_path / "o"
    log = out / "cache" / sweep.CACHE_LOG

    def ten_done():
        return log.exists() and log.read_text().count("\n") >= 10

    proc = _start(["sweep", tmp_path / "s.toml", "--out", out, "--workers", "2", "-q"], tmp_path)
    rc, err, lag = _interrupt(proc, ten_done)
    assert rc == 130, err
    assert err == "satcp: interrupted\n"
    assert lag < STOP_S
    assert log.read_text().count("\n") == 10
    assert sorted(p.name for p in out.iterdir()) == ["cache"]  # no tables, no temporary
    assert sorted(p.name for p in (out / "cache").iterdir()) == [sweep.CACHE_LOG]
    res = sweep.run_sweep(sweep.load_sweep(tmp_path / "s.toml"), out, progress=False, limit=0)
    assert (res.cached, res.computed) == (10, 0)


def test_an_error_beside_a_run_stops_it():
    """Work done in the calling thread while a run goes on (``meanwhile``:
    `satcp run --out` imports what writing needs then) that raises stops
    the run, which is waited for, and its error is raised: the endless run
    does not go on."""
    code = (
        "import sys, time, satcp\n"
        "from satcp.scenario import to_json\n"
        "sc = satcp.load(sys.argv[1], sys.argv[2:])\n"
        "def fail():\n"
        "    time.sleep(0.5)\n"
        "    raise ValueError('meanwhile')\n"
        "try:\n"
        "    satcp._run_resolved(sc, to_json(sc), meanwhile=fail)\n"
        "except ValueError as e:\n"
        "    print(e)\n"
        "import threading\n"
        "for t in threading.enumerate():\n"
        "    if t.name == 'satcp-run':\n"
        f"        t.join({STOP_S})\n"
        "        print('still running' if t.is_alive() else 'stopped')\n"
    )
    p = subprocess.run(
        [sys.executable, "-c", code, str(FTP), *ENDLESS_SET],
        capture_output=True,
        text=True,
        timeout=START_S,
    )
    assert p.stdout.split("\n")[0] == "meanwhile", p.stderr
    assert "still running" not in p.stdout

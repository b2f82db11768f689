"""tools/bench_ab.py, the comparison of two builds of the benchmark, run
against stand-ins for the `summary` binary (shell scripts that answer
`--one` and `--json` as it does), so no Rust build is needed."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TOOL = ROOT / "tools" / "bench_ab.py"


def fake_summary(path: Path, wall_s: str, json_text: str) -> str:
    """A binary whose every scenario has 1,000,000 events and `wall_s`."""
    path.write_text(
        "#!/bin/sh\n"
        'if [ "$1" = --one ]; then echo "$2 1000000 ' + wall_s + ' 100 50"; fi\n'
        'if [ "$1" = --json ]; then echo \'' + json_text + "'; fi\n"
    )
    path.chmod(0o755)
    return str(path)


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(TOOL), *args], capture_output=True, text=True, check=False
    )


def test_reports_ns_per_event_and_the_change(tmp_path):
    old = fake_summary(tmp_path / "old", "0.040", "{}")
    new = fake_summary(tmp_path / "new", "0.030", "{}")
    r = run("--rounds", "2", "--repeat", "1", "--scenarios", "a,c", f"old={old}", f"new={new}")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].startswith("ns per event")
    assert len(lines) == 3, r.stdout
    for scenario, line in zip(["a", "c"], lines[1:], strict=True):
        assert line.split()[0] == scenario
        assert "old 40.0 (40.0) +0.0 %" in line
        assert "new 30.0 (30.0) -25.0 % (-25.0 %)" in line


def test_identical_results_exit_0_and_different_ones_1(tmp_path):
    a = fake_summary(tmp_path / "a", "0.01", '{"x": 1}')
    b = fake_summary(tmp_path / "b", "0.02", '{"x": 1}')
    c = fake_summary(tmp_path / "c", "0.01", '{"x": 2}')
    same = run("--identical", a, b)
    assert same.returncode == 0, same.stdout
    assert "DIFFERENT" not in same.stdout
    differ = run("--identical", a, c)
    assert differ.returncode == 1
    # Every benchmark scenario: a-e, e_1000, e_one, f.
    assert differ.stdout.count("DIFFERENT") == 8
    # Only those named (a build older than a scenario does not know it).
    some = run("--identical", "--scenarios", "a,e_1000", a, c)
    assert some.returncode == 1
    assert [line.split()[:2] for line in some.stdout.splitlines()] == [
        ["a", "DIFFERENT"],
        ["e_1000", "DIFFERENT"],
    ]


def test_an_unknown_scenario_is_refused(tmp_path):
    a = fake_summary(tmp_path / "a", "0.01", "{}")
    r = run("--scenarios", "a,zz", a)
    assert r.returncode == 2
    assert "unknown zz" in r.stderr


def test_a_binary_that_refuses_is_one_line_not_a_traceback(tmp_path):
    old = tmp_path / "old"
    old.write_text('#!/bin/sh\necho "summary: no bench scenario \\"$2\\"" >&2\nexit 2\n')
    old.chmod(0o755)
    r = run("--identical", "--scenarios", "e_one", str(old), str(old))
    assert r.returncode == 2
    assert "Traceback" not in r.stderr
    name = "e_one_app_10000_files"
    assert r.stderr.strip().splitlines() == [
        f'bench_ab: {old} --json {name}: summary: no bench scenario "{name}"'
    ]

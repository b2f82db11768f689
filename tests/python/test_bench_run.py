"""tools/bench_run.py, `make run`'s timing and output check, run with
stand-ins for `satcp` (shell scripts that write a report per step, with a
wall time that changes from run to run), through the Makefile's own
`run-steps`, so no simulation runs."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

from satcp.reproduce import REGISTRY

ROOT = Path(__file__).resolve().parents[2]
TOOL = ROOT / "tools" / "bench_run.py"

_spec = importlib.util.spec_from_file_location("bench_run", TOOL)
bench_run = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench_run)


def fake_satcp(directory: Path, value: str) -> str:
    """A `satcp` that logs its arguments and writes, per step, a report
    holding `value` and its own process id as a wall time."""
    directory.mkdir()
    path = directory / "satcp"
    path.write_text(
        "#!/bin/sh\n"
        f'echo "$@" >> "{directory}/calls"\n'
        'case "$1" in\n'
        '  reproduce) d="reports/$2" ;;\n'
        '  compare) d="reports/compare" ;;\n'
        "  report) printf '<p>total %s.1 s, commit unknown</p>\\n' $$ > reports/index.html;"
        " exit 0 ;;\n"
        "esac\n"
        'mkdir -p "$d"\n'
        f"printf 'value {value}\\nran in %s.2 s\\n' $$ > \"$d/report.md\"\n"
    )
    path.chmod(0o755)
    return str(path)


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(TOOL), *args], capture_output=True, text=True, check=False
    )


def test_masks_hide_wall_times_and_commits_only():
    a = b'12.5 s wall, commit <code>0123456789abcdef0123456789abcdef01234567</code>, "commit": "x"'
    b = b'3 s wall, commit <code>unknown</code>, "commit": "y"'
    assert bench_run.masked(a) == bench_run.masked(b)
    assert bench_run.masked(b"goodput 12.5 Mb/s") != bench_run.masked(b"goodput 12.6 Mb/s")


def test_every_step_of_make_run_runs_and_equal_outputs_pass(tmp_path):
    before = fake_satcp(tmp_path / "before", "1")
    after = fake_satcp(tmp_path / "after", "1")
    out = tmp_path / "bench.json"
    p = run("--rounds", "2", "--json", str(out), f"before={before}", f"after={after}")
    assert p.returncode == 0, p.stdout + p.stderr
    calls = (tmp_path / "before" / "calls").read_text().splitlines()
    steps = {f"reproduce {name}" for name in REGISTRY} | {"compare"}
    # Each round: every reproduction and compare once, then the report.
    assert sorted(calls) == sorted([*steps, "report reports"] * 2)
    report = json.loads(out.read_text())
    assert [(r["round"], r["name"]) for r in report["rounds"]] == [
        (1, "before"),
        (1, "after"),
        (2, "after"),
        (2, "before"),
    ]
    # The pids differ, so the files differ but for their wall times.
    later = report["rounds"][1:]
    assert all(r["identical"] == 0 and r["differ"] == [] for r in later)
    assert all(r["identical_masked"] == len(steps) + 1 for r in later)
    assert set(report["summary"]) == {"before", "after"}


def test_a_moved_output_is_named_and_fails(tmp_path):
    before = fake_satcp(tmp_path / "before", "1")
    after = fake_satcp(tmp_path / "after", "2")
    p = run("--rounds", "1", f"before={before}", f"after={after}")
    assert p.returncode == 1
    assert "differs: compare/report.md" in p.stdout


def test_an_executable_that_is_not_there_is_named(tmp_path):
    p = run(f"before={tmp_path / 'satcp'}")
    assert p.returncode == 2
    assert p.stderr.strip() == f"bench_run: before={tmp_path / 'satcp'}: not an executable file"

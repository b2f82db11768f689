"""tools/flame_fold.py, which trims perf's folded stacks to the event loop
and tabulates them for tools/flamegraph.sh, run on hand-written stacks
(no perf needed)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TOOL = ROOT / "tools" / "flame_fold.py"
LOOP = "satcp_core::sim::Simulation::run"

FOLDED = "\n".join(
    [
        # Outside the loop: process start and reading the scenario.
        "bin;_start;_dl_start 100",
        "bin;_start;main;summary::main;satcp_core::scenario::parse 100",
        # Inside: frames above the loop are cut off.
        f"bin;_start;main;summary::main;{LOOP};at_node;deliver;on_ack 300",
        f"bin;_start;main;summary::main;{LOOP};at_node;offer 200",
        f"bin;_start;main;summary::main;{LOOP};push<satcp_core::sim::Event> 400",
        f"bin;_start;main;summary::main;{LOOP};"
        "push<satcp_core::net::packet::Packet, alloc::alloc::Global> 100",
    ]
)


def run(tmp_path: Path, folded: str) -> tuple[subprocess.CompletedProcess, Path, Path]:
    src, trimmed, table = tmp_path / "all", tmp_path / "loop", tmp_path / "table"
    src.write_text(folded + "\n")
    r = subprocess.run(
        [sys.executable, str(TOOL), str(src), str(trimmed), str(table), "--title", "t"],
        capture_output=True,
        text=True,
        check=False,
    )
    return r, trimmed, table


def test_keeps_the_loop_and_counts_the_rest(tmp_path):
    r, trimmed, table = run(tmp_path, FOLDED)
    assert r.returncode == 0, r.stderr
    lines = trimmed.read_text().splitlines()
    assert len(lines) == 4
    assert all(line.startswith(LOOP) for line in lines)
    assert f"{LOOP};at_node;deliver;on_ack 300" in lines
    text = table.read_text().splitlines()
    assert text[0] == "t"
    # 1,000 ns of loop samples; 200 of 1,200 outside it.
    assert text[1] == (
        "event loop: 0.00 s of CPU time sampled; outside it (start, scenario, benchmark): 16.7%"
    )


def test_inclusive_and_self_shares_group_generic_instances(tmp_path):
    r, _, table = run(tmp_path, FOLDED)
    assert r.returncode == 0, r.stderr
    lines = table.read_text().splitlines()
    assert lines[2] == "    40.0%         the event heap and the timer calendar"
    assert lines[5].split() == ["inclusive", "self", "function", "(inlined", "ones", "included)"]
    rows = {}
    for line in lines[6:]:
        inclusive, own, name = line.split(maxsplit=2)
        rows[name] = (inclusive, own)
    assert rows[LOOP] == ("100.0%", "0.0%")
    assert rows["at_node"] == ("50.0%", "0.0%")
    assert rows["on_ack"] == ("30.0%", "30.0%")
    # Type arguments keep their last name only.
    assert rows["push<Event>"] == ("40.0%", "40.0%")
    assert rows["push<Packet>"] == ("10.0%", "10.0%")


def test_no_sample_in_the_loop_is_an_error(tmp_path):
    r, _, _ = run(tmp_path, "bin;_start;_dl_start 100")
    assert r.returncode != 0
    assert "no sample inside" in r.stderr

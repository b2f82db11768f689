#!/usr/bin/env python3
"""Whole-process time of the `satcp` command (issue 33; docs/performance.md,
"The command line").

  tools/bench_cli.py [--rounds N] [--satcp BIN] [NAME=BIN ...] [--json FILE]

Times what a user waits for, start to exit, of each command below: the
interpreter's own start-up (`python -c pass`, the floor), `satcp --help`,
`satcp validate` and `satcp run` of the thesis FTP download with `--out`
(CSV). Each NAME=BIN is a `satcp` executable (default: this checkout's
.venv/bin/satcp as "satcp"); with two or more (e.g. a worktree of main as
"before") they are run in turn, command by command, their order reversed
every other round, so that a drift of a shared machine's speed hits all
alike. Prints the minimum and median wall time of the rounds per command
and executable, and the simulation's own wall time (the core's, read from
`satcp run`'s summary) beside `satcp run`.

Byte-compiled modules are allowed (PYTHONDONTWRITEBYTECODE is removed from
the environment and a first round is not counted), as they are in an
installed package.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
FTP = REPO / "scenarios" / "thesis_ftp.toml"


def commands(satcp: str, out: str) -> dict[str, list[str]]:
    python = str(Path(satcp).with_name("python"))
    return {
        "python -c pass": [python, "-c", "pass"],
        "satcp --help": [satcp, "--help"],
        "satcp validate": [satcp, "validate", str(FTP)],
        "satcp run --out (CSV)": [satcp, "run", str(FTP), "--out", out],
    }


def timed(argv: list[str], env: dict[str, str]) -> tuple[float, str]:
    t0 = time.perf_counter()
    p = subprocess.run(argv, capture_output=True, text=True, env=env, check=False)
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        sys.exit(f"{' '.join(argv)}: exit status {p.returncode}\n{p.stderr}")
    return wall, p.stdout


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("bins", nargs="*", metavar="NAME=BIN", help="satcp executables to compare")
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    args = ap.parse_args()
    bins = [tuple(b.split("=", 1)) for b in args.bins] or [
        ("satcp", str(REPO / ".venv" / "bin" / "satcp"))
    ]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["SATCP_PROGRESS"] = "0"
    tmp = tempfile.mkdtemp(prefix="satcp-bench-cli-")
    try:
        cmds = {name: commands(b, os.path.join(tmp, name)) for name, b in bins}
        wall: dict[tuple[str, str], list[float]] = {}
        core: dict[str, list[float]] = {name: [] for name, _ in bins}
        for r in range(args.rounds + 1):  # round 0: byte-compiling, caches
            order = bins if r % 2 == 0 else bins[::-1]
            for cmd in cmds[bins[0][0]]:
                for name, _ in order:
                    t, stdout = timed(cmds[name][cmd], env)
                    if r == 0:
                        continue
                    wall.setdefault((cmd, name), []).append(t)
                    m = re.search(r"^wall time ([0-9.]+) s", stdout, re.M)
                    if m:
                        core[name].append(float(m.group(1)))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    print(f"whole-process wall time, ms: minimum (median) of {args.rounds} alternating rounds")
    names = [n for n, _ in bins]
    width = max(len(c) for c in cmds[names[0]])
    print(" " * width + "".join(f"  {n:>18}" for n in names))
    report = {"rounds": args.rounds, "commands": {}}
    for cmd in cmds[names[0]]:
        cells = []
        for n in names:
            xs = wall[(cmd, n)]
            cells.append(f"{1e3 * min(xs):8.1f} ({1e3 * statistics.median(xs):6.1f})")
            report["commands"].setdefault(cmd, {})[n] = {
                "min_s": min(xs),
                "median_s": statistics.median(xs),
            }
        print(f"{cmd:<{width}}" + "".join(f"  {c:>18}" for c in cells))
    for n in names:
        if core[n]:
            xs = core[n]
            print(
                f"{n}: the simulation itself (satcp run's 'wall time'): "
                f"{1e3 * min(xs):.1f} ms ({1e3 * statistics.median(xs):.1f})"
            )
            report.setdefault("core_run_s", {})[n] = {
                "min_s": min(xs),
                "median_s": statistics.median(xs),
            }
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Per-run overhead of sweeps of many short runs (issue 33; docs/performance.md,
"Many short runs").

  tools/bench_sweep.py [--runs N] [--rounds R] [NAME=BIN ...]

A sweep of N runs of the thesis FTP scenario cut to one simulated second
(`duration_s = 1`, seeds 1..N): the sum of the core's own times (each
scenario's JSON through `_core.run_json_summary`, one after another in one
thread: what the runs cost without satcp's Python around them) against
the wall time of the whole `satcp sweep FILE --out DIR --quiet` process
of each NAME=BIN (a `satcp` executable; default this checkout's), run
alternately R times; and the same for `satcp.run_many` over N scenario
dicts (against `_core.run_json`, which it calls). The issue's mark: the
sweep within 2x of the sum of the core times, on the same cores. Each
sweep's CPU time (user + system, all its threads) is shown beside its
wall time: on a shared machine the wall time says more about the others'
load than about the sweep.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
FTP = REPO / "scenarios" / "thesis_ftp.toml"

RUN_MANY = """
import sys, time
import satcp
n = int(sys.argv[1])
sc = satcp.load(sys.argv[2], ["duration_s=1.0"])
scs = [dict(sc, seed=i) for i in range(1, n + 1)]
t = time.perf_counter()
satcp.run_many(scs)
print(time.perf_counter() - t)
"""

CORE = """
import sys, time
from satcp import _core, sweep
jobs = list(sweep.load_sweep(sys.argv[1]).jobs())
summary = full = 0.0
for j in jobs:
    t = time.perf_counter()
    _core.run_json_summary(j.text)
    t1 = time.perf_counter()
    _core.run_json(j.text)
    summary += t1 - t
    full += time.perf_counter() - t1
print(summary, full)
"""


def _children_cpu() -> float:
    """CPU seconds (user + system) of the child processes waited for so far."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("bins", nargs="*", metavar="NAME=BIN")
    ap.add_argument("--runs", type=int, default=10_000)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    bins = [tuple(b.split("=", 1)) for b in args.bins] or [
        ("satcp", str(REPO / ".venv" / "bin" / "satcp"))
    ]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["SATCP_PROGRESS"] = "0"
    tmp = Path(tempfile.mkdtemp(prefix="satcp-bench-sweep-"))
    try:
        sweep_file = tmp / "short.toml"
        seeds = ", ".join(str(i) for i in range(1, args.runs + 1))
        sweep_file.write_text(
            f'base = "{FTP}"\nseeds = [{seeds}]\n[set]\n"duration_s" = 1.0\n', encoding="utf-8"
        )
        python0 = str(Path(bins[0][1]).with_name("python"))
        sweep_wall: dict[str, list[float]] = {n: [] for n, _ in bins}
        sweep_cpu: dict[str, list[float]] = {n: [] for n, _ in bins}
        many_wall: dict[str, list[float]] = {n: [] for n, _ in bins}
        core_summary, core_full = [], []
        for r in range(args.rounds):
            out = subprocess.run(
                [python0, "-c", CORE, str(sweep_file)],
                capture_output=True,
                text=True,
                env=env,
                check=True,
            ).stdout.split()
            core_summary.append(float(out[0]))
            core_full.append(float(out[1]))
            for name, satcp in bins if r % 2 == 0 else bins[::-1]:
                out_dir = tmp / f"out-{name}"
                shutil.rmtree(out_dir, ignore_errors=True)
                c0 = _children_cpu()
                t0 = time.perf_counter()
                subprocess.run(
                    [satcp, "sweep", str(sweep_file), "--out", str(out_dir), "--quiet"],
                    env=env,
                    check=True,
                )
                sweep_wall[name].append(time.perf_counter() - t0)
                sweep_cpu[name].append(_children_cpu() - c0)
                python = str(Path(satcp).with_name("python"))
                p = subprocess.run(
                    [python, "-c", RUN_MANY, str(args.runs), str(FTP)],
                    capture_output=True,
                    text=True,
                    env=env,
                    check=True,
                )
                many_wall[name].append(float(p.stdout.split()[-1]))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    med = statistics.median
    cores = os.cpu_count() or 1
    cs, cf = med(core_summary), med(core_full)
    print(
        f"{args.runs} runs of one simulated second, {cores} cores, median of {args.rounds} rounds"
    )
    print(f"sum of core times: {cs:.2f} s (run_json_summary), {cf:.2f} s (run_json)")
    for name, _ in bins:
        w, m = med(sweep_wall[name]), med(many_wall[name])
        print(
            f"{name}: satcp sweep (whole process) {w:.2f} s = {w / cs:.2f}x the core's sum "
            f"(CPU {med(sweep_cpu[name]):.2f} s), "
            f"{1e6 * (w - cs / cores) / args.runs:.0f} us per run beyond the core on "
            f"{cores} cores; "
            f"run_many {m:.2f} s = {m / cf:.2f}x"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""satcp against ns-3 on the same scenarios, run alternately (`make bench-ns3`).

For each scenario, runs satcp's core (the benchmark binary, one scenario per
process) and the ns-3 counterpart alternately, PAIRS times, one process at a
time, and prints per scenario the median whole-process wall time of each,
their ratio, the median ratio of the run loops alone (satcp_core::run
against Simulator::Run) and each side's peak resident memory.

    (a) the thesis's 50 MB GEO FTP download (tools/ns3/thesis_ftp_ns3.py,
        SACK, delayed ACK) against satcp's a_thesis_ftp_50MB;
    (b) 20 bulk flows on a 10 Mb/s, 250 ms GEO bottleneck for 550 s
        (tools/ns3/twenty_flows_ns3.py) against satcp's b_20_flows_550s.

Usage: bench_vs_ns3.py --ns3-python PY --satcp-bench BIN [--pairs N]
PY is the Python of a virtual environment with the PyPI package ns3; BIN is
the `summary` benchmark executable of satcp-core.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))

SCENARIOS = [
    ("a: thesis FTP 50 MB", "a_thesis_ftp_50MB", ["thesis_ftp_ns3.py", "--variant", "sack"]),
    ("b: 20 flows, 550 s", "b_20_flows_550s", ["twenty_flows_ns3.py"]),
]


def timed(cmd):
    """Runs cmd; returns (wall s, peak RSS MB of that process, stdout)."""
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    out = p.stdout.read()
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        sys.exit(f"failed ({p.returncode}): {' '.join(cmd)}")
    return wall, usage.ru_maxrss / 1024.0, out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ns3-python", required=True)
    ap.add_argument("--satcp-bench", required=True)
    ap.add_argument("--pairs", type=int, default=3)
    ap.add_argument("--only", choices=[s[1] for s in SCENARIOS], action="append")
    args = ap.parse_args(argv)
    rows = []
    for label, satcp_name, ns3_cmd in SCENARIOS:
        if args.only and satcp_name not in args.only:
            continue
        s_wall, s_rss, s_run, n_wall, n_rss, n_run = [], [], [], [], [], []
        for i in range(args.pairs):
            w, m, out = timed([args.satcp_bench, "--one", satcp_name, "1"])
            s_wall.append(w)
            s_rss.append(m)
            s_run.append(float(out.split()[2]))
            w, m, out = timed(
                [args.ns3_python, os.path.join(HERE, ns3_cmd[0]), *ns3_cmd[1:], "--json"]
            )
            n_wall.append(w)
            n_rss.append(m)
            n_run.append(json.loads(out.strip().splitlines()[-1])["wall_run_s"])
            print(
                f"{label} pair {i + 1}: satcp {s_wall[-1]:.2f} s (run {s_run[-1]:.3f} s), "
                f"ns-3 {n_wall[-1]:.1f} s (run {n_run[-1]:.2f} s)",
                flush=True,
            )
        med = statistics.median
        rows.append(
            (
                label,
                med(s_wall),
                med(n_wall),
                med([n / s for n, s in zip(n_wall, s_wall, strict=True)]),
                med([n / s for n, s in zip(n_run, s_run, strict=True)]),
                max(s_rss),
                max(n_rss),
            )
        )
    print()
    print(
        f"{'scenario':<22} {'satcp s':>8} {'ns-3 s':>8} {'ratio':>7} {'run-loop ratio':>15} "
        f"{'satcp MB':>9} {'ns-3 MB':>8}"
    )
    for r in rows:
        print(
            f"{r[0]:<22} {r[1]:>8.2f} {r[2]:>8.1f} {r[3]:>7.0f} {r[4]:>15.0f} "
            f"{r[5]:>9.1f} {r[6]:>8.0f}"
        )
    print(
        f"(median of {args.pairs} alternate pairs; whole-process wall time; ratio = ns-3 / satcp; "
        "the run-loop ratio leaves out ns-3's library loading and satcp's parsing)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""`make bench-beam`: the cost of a GEO beam (satcp.topology.geo_beam,
docs/satellite-access.md, "A GEO beam") as its terminals grow.

  tools/bench_beam.py [--terminals 100,300,1000,3000] [--seconds S] [--repeat N]

Each size runs in a fresh process (so that its peak memory is its own):
the simulation's events, the core's wall time (best of --repeat), events
per second, ns per event, and per terminal the events, the core's time
and the peak resident memory above an interpreter that has imported
satcp and built the scenario. The last column is the core's time per
terminal against the smallest size's: at most about 1 where the cost
grows linearly with the terminals. Speed targets live here, not in tests.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

CHILD = r"""
import json, resource, sys
import satcp
from satcp.topology.beam import geo_beam
n, seconds, repeat = int(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3])
sc = geo_beam(n, duration_s=seconds)
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
best, events = None, None
for _ in range(repeat):
    r = satcp.run(sc)
    best = r.wall_time_s if best is None else min(best, r.wall_time_s)
    events = r.events
    del r
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"events": events, "wall_s": best, "rss_kb": peak - base}))
"""


def measure(n: int, seconds: float, repeat: int) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", CHILD, str(n), str(seconds), str(repeat)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return json.loads(out)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--terminals", default="100,300,1000,3000")
    p.add_argument("--seconds", type=float, default=30.0, help="simulated seconds (default 30)")
    p.add_argument("--repeat", type=int, default=3, help="runs per size, best kept (default 3)")
    a = p.parse_args(argv)
    sizes = [int(x) for x in a.terminals.split(",")]
    print(f"geo_beam, {a.seconds:g} simulated s, best of {a.repeat} runs, one process per size")
    head = (
        "terminals",
        "events",
        "core s",
        "M events/s",
        "ns/event",
        "events/term",
        "us/term",
        "peak MB/term",
        "us/term vs first",
    )
    print(" | ".join(head))
    first = None
    for n in sizes:
        m = measure(n, a.seconds, a.repeat)
        per_term_us = m["wall_s"] / n * 1e6
        first = first or per_term_us
        print(
            " | ".join(
                [
                    f"{n:,}",
                    f"{m['events']:,}",
                    f"{m['wall_s']:.3f}",
                    f"{m['events'] / m['wall_s'] / 1e6:.2f}",
                    f"{m['wall_s'] / m['events'] * 1e9:.1f}",
                    f"{m['events'] / n:,.0f}",
                    f"{per_term_us:,.0f}",
                    f"{m['rss_kb'] / 1024 / n:.3f}",
                    f"{per_term_us / first:.2f}",
                ]
            )
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

#!/usr/bin/env python3
"""Compare builds of the `summary` benchmark (docs/performance.md, "Comparing
two builds").

  tools/bench_ab.py [--rounds N] [--repeat N] [--scenarios a,c,...] NAME=BIN ...
      ns per event of each binary on each scenario, the binaries run in
      turn (their order reversed every other round, so that a drift of the
      machine's speed hits all alike); per binary the minimum and median
      over the rounds and the change against the first binary.

  tools/bench_ab.py --identical [--scenarios a,c,...] BIN_A BIN_B
      whether two builds give byte-identical results (`summary --json`) on
      every benchmark scenario (or those named: a build older than a
      scenario does not know it); exit status 1 if any differs.

A BIN is a copy of the benchmark binary of one build: `make bench` (or
`tools/pgo.sh bench` and `cargo bench --bench summary --no-run`) prints
its path; copy it away before building the next. Only the ratios within
one invocation compare: the same binaries measured half an hour apart
differ by up to 5 % on a shared host.
"""

import argparse
import hashlib
import itertools
import statistics
import subprocess
import sys

SCENARIOS = {
    "a": "a_thesis_ftp_50MB",
    "b": "b_20_flows_550s",
    "c": "c_large_window_60s",
    "d": "d_1000_flows_60s",
    "e": "e_10000_short_flows",
    "e_1000": "e_1000_short_flows",
    "e_one": "e_one_app_10000_files",
    "f": "f_200_paths_10s",
}


def ns_per_event(binary, scenario, repeat):
    """`summary --one`: name, events, best wall time of `repeat` runs, ..."""
    out = subprocess.run(
        [binary, "--one", scenario, str(repeat)], capture_output=True, text=True, check=True
    ).stdout.split()
    return float(out[2]) / int(out[1]) * 1e9


def compare(bins, scenarios, rounds, repeat):
    times = {(s, name): [] for s in scenarios for name, _ in bins}
    for r in range(rounds):
        order = bins if r % 2 == 0 else bins[::-1]
        for s in scenarios:
            for name, binary in order:
                times[(s, name)].append(ns_per_event(binary, SCENARIOS[s], repeat))
    print(f"ns per event: minimum (median) of {rounds} rounds, best of {repeat} runs each")
    for s in scenarios:
        base = None
        cells = []
        for name, _ in bins:
            v = times[(s, name)]
            low, mid = min(v), statistics.median(v)
            base = base or (low, mid)
            change = f"{(low / base[0] - 1) * 100:+.1f} % ({(mid / base[1] - 1) * 100:+.1f} %)"
            cells.append(f"{name} {low:.1f} ({mid:.1f}) {change}")
        print(f"{s:7}" + "   ".join(cells))


def identical(bin_a, bin_b, scenarios):
    same = True
    for s in scenarios:
        scenario = SCENARIOS[s]
        digests = [
            hashlib.sha256(
                subprocess.run([b, "--json", scenario], capture_output=True, check=True).stdout
            ).hexdigest()[:16]
            for b in (bin_a, bin_b)
        ]
        verdict = "same" if digests[0] == digests[1] else "DIFFERENT"
        same &= digests[0] == digests[1]
        print(f"{s:7} {verdict:9} {' '.join(digests)}")
    return same


def main():
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--rounds", type=int, default=9)
    p.add_argument("--repeat", type=int, default=3, help="runs per measurement (the best counts)")
    p.add_argument(
        "--scenarios",
        help="comma-separated, of " + ",".join(SCENARIOS) + " (default: a-e; all with --identical)",
    )
    p.add_argument(
        "--identical", action="store_true", help="compare results, not speed (two binaries)"
    )
    p.add_argument("binaries", nargs="+", metavar="NAME=BIN")
    a = p.parse_args()
    default = ",".join(SCENARIOS) if a.identical else "a,b,c,d,e"
    scenarios = (a.scenarios or default).split(",")
    unknown = [s for s in scenarios if s not in SCENARIOS]
    if unknown:
        p.error(f"--scenarios: unknown {', '.join(unknown)} (known: {', '.join(SCENARIOS)})")
    if a.identical:
        if len(a.binaries) != 2:
            p.error("--identical takes two binaries")
        bin_a, bin_b = (b.split("=", 1)[-1] for b in a.binaries)
        sys.exit(0 if identical(bin_a, bin_b, scenarios) else 1)
    bins = []
    for b in a.binaries:
        name, sep, path = b.partition("=")
        bins.append((name, path) if sep else (b.rsplit("/", 1)[-1], b))
    compare(bins, scenarios, a.rounds, a.repeat)


if __name__ == "__main__":
    try:
        main()
    except subprocess.CalledProcessError as e:
        # A binary refused (a scenario newer than the build, a crash): its
        # own last line of stderr, not a traceback.
        said = e.stderr.decode(errors="replace") if isinstance(e.stderr, bytes) else e.stderr
        lines = (said or "").strip().splitlines()
        # A Rust panic's message is the line after "panicked at".
        after = [b for a, b in itertools.pairwise(lines) if "panicked at" in a]
        why = (after or lines[-1:] or [f"exit status {e.returncode}"])[0]
        print(f"bench_ab: {' '.join(map(str, e.cmd))}: {why}", file=sys.stderr)
        sys.exit(2)

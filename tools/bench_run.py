#!/usr/bin/env python3
"""`make run`'s wall time after the build, and whether its outputs moved
(issue 33; docs/performance.md, "The paper set").

  tools/bench_run.py [--rounds N] [--json FILE] [NAME=BIN ...]

Each round runs `make run`'s steps as `make run` does (the Makefile's
`run-steps`: every reproduction and `compare`, two at a time, longest
first), then `satcp report`, in a directory of its own, with each NAME=BIN
(a `satcp` executable; default this checkout's .venv/bin/satcp as "satcp")
in turn, their order reversed every other round, so that a drift of a
shared machine's speed hits all alike. Prints the wall and processor time
(of every process the round started) of each round, and the minimum and
median per executable.

Every round's `reports/` is compared, file by file, with the first
round's of the first executable: a file must be the same bytes, or the
same once the wall times it reports ("12.3 s") and the commit stamps are
masked. Any other difference is printed and makes the exit status 1. So
two builds compared alternately also show that their outputs are the
same, and one build run twice that its outputs are reproducible.

The extension each executable loads is the one its checkout installed:
`make bench-run` builds this checkout's PGO extension first, as `make run`
does. Byte-compiled modules are allowed (PYTHONDONTWRITEBYTECODE is
removed from the environment), as they are in an installed package.
"""

from __future__ import annotations

import argparse
import filecmp
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

#: What may differ between two runs of the same steps: the wall times the
#: reports quote and the commit that made them.
MASKS = [
    (re.compile(rb"\b\d+(?:\.\d+)? s\b"), b"X s"),
    (re.compile(rb"commit (?:<code>)?(?:[0-9a-f]{40}(?:-dirty)?|unknown)"), b"commit C"),
    (re.compile(rb'"commit": "[^"]*"'), b'"commit": "C"'),
]


def masked(data: bytes) -> bytes:
    for pattern, replacement in MASKS:
        data = pattern.sub(replacement, data)
    return data


def compare_trees(ref: Path, other: Path) -> tuple[int, int, list[str]]:
    """Files byte-identical, identical once masked, and the differing ones
    (present in one tree only included)."""
    ref_files = {p.relative_to(ref) for p in ref.rglob("*") if p.is_file()}
    other_files = {p.relative_to(other) for p in other.rglob("*") if p.is_file()}
    same = same_masked = 0
    differ = [f"{f} (only in one)" for f in sorted(ref_files ^ other_files, key=str)]
    for f in sorted(ref_files & other_files, key=str):
        a, b = ref / f, other / f
        if filecmp.cmp(a, b, shallow=False):
            same += 1
        elif masked(a.read_bytes()) == masked(b.read_bytes()):
            same_masked += 1
        else:
            differ.append(str(f))
    return same, same_masked, differ


def run_round(satcp: str, workdir: Path, env: dict[str, str]) -> tuple[float, float]:
    """`make run`'s steps and the report with `satcp`, in `workdir`: wall
    and processor seconds (every process started, children included)."""
    bindir = str(Path(satcp).parent)
    log = workdir / "make-run.log"
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    with log.open("w") as out:
        for argv in (
            [
                "make",
                "--no-print-directory",
                "-f",
                str(REPO / "Makefile"),
                f"BIN={bindir}",
                "run-steps",
            ],
            [satcp, "report", "reports"],
        ):
            p = subprocess.run(argv, cwd=workdir, env=env, stdout=out, stderr=subprocess.STDOUT)
            if p.returncode != 0:
                tail = log.read_text().splitlines()[-20:]
                sys.exit(f"{' '.join(argv)}: exit status {p.returncode}\n" + "\n".join(tail))
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("bins", nargs="*", metavar="NAME=BIN", help="satcp executables to compare")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    args = ap.parse_args()
    bins = [(n, os.path.abspath(b)) for n, b in (b.split("=", 1) for b in args.bins)] or [
        ("satcp", str(REPO / ".venv" / "bin" / "satcp"))
    ]
    for name, satcp in bins:
        if not os.access(satcp, os.X_OK) or not os.path.isfile(satcp):
            print(f"bench_run: {name}={satcp}: not an executable file", file=sys.stderr)
            return 2
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    tmp = Path(tempfile.mkdtemp(prefix="satcp-bench-run-"))
    rounds: list[dict] = []
    failed = False
    try:
        ref: Path | None = None
        for r in range(args.rounds):
            for name, satcp in bins if r % 2 == 0 else bins[::-1]:
                workdir = tmp / f"{name}-{r + 1}"
                workdir.mkdir()
                wall, cpu = run_round(satcp, workdir, env)
                if ref is None:  # the reference: kept
                    ref = workdir / "reports"
                    same, same_masked, differ = sum(1 for p in ref.rglob("*") if p.is_file()), 0, []
                    outputs = f"the reference ({same} files)"
                else:
                    same, same_masked, differ = compare_trees(ref, workdir / "reports")
                    shutil.rmtree(workdir)
                    outputs = (
                        f"{same} files identical, {same_masked} but for wall times and commit, "
                        f"{len(differ)} differ"
                    )
                rounds.append(
                    {
                        "round": r + 1,
                        "name": name,
                        "wall_s": wall,
                        "cpu_s": cpu,
                        "identical": same,
                        "identical_masked": same_masked,
                        "differ": differ,
                    }
                )
                print(
                    f"round {r + 1} {name}: {wall:.1f} s wall, {cpu:.1f} s CPU; outputs: {outputs}",
                    flush=True,
                )
                for f in differ[:10]:
                    print(f"  differs: {f}")
                failed |= bool(differ)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    print(f"make run after the build, s: minimum (median) of {args.rounds} alternating rounds")
    summary = {}
    for name, _ in bins:
        walls = [x["wall_s"] for x in rounds if x["name"] == name]
        cpus = [x["cpu_s"] for x in rounds if x["name"] == name]
        summary[name] = {
            "wall_min_s": min(walls),
            "wall_median_s": statistics.median(walls),
            "cpu_min_s": min(cpus),
            "cpu_median_s": statistics.median(cpus),
        }
        print(
            f"{name}: {min(walls):.1f} ({statistics.median(walls):.1f}) wall, "
            f"{min(cpus):.1f} ({statistics.median(cpus):.1f}) CPU"
        )
    if args.json:
        report = {"rounds": rounds, "summary": summary}
        Path(args.json).write_text(json.dumps(report, indent=2) + "\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

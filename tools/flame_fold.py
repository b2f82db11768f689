#!/usr/bin/env python3
"""Trim folded stacks to the event loop and say where its time goes.

  tools/flame_fold.py FOLDED TRIMMED TABLE [--title T]

FOLDED is `inferno-collapse-perf` output (one "frame;frame;... count"
line per distinct stack). Only the samples taken inside the event loop
(`Simulation::run`) are kept, with the frames above it cut off, so the
flame graph starts at the loop; the rest (process start, reading the
scenario, the benchmark's own code) is counted in one line of the table.

TABLE gets, for each function (inlined ones included), the share of the
loop's samples in which it is on the stack (inclusive) and at the top of
it (self), the largest first: the text form of the flame graph, which a
closing note can quote (tools/flamegraph.sh, docs/performance.md).
"""

import argparse
import collections
import re

LOOP = "satcp_core::sim::Simulation::run"


def short(frame):
    """A frame's function with its type arguments named briefly
    (`push<satcp_core::sim::Event>` is `push<Event>`,
    `push<satcp_core::net::packet::Packet, alloc::alloc::Global>` is
    `push<Packet>`): inlined frames have no path of their own, and their
    type arguments tell the event heap's `push` from a vector's."""
    head, lt, rest = frame.partition("<")
    if not lt:
        return frame
    rest = re.sub(r",\s*alloc::alloc::Global", "", "<" + rest)
    rest = re.sub(r"(?:[A-Za-z_][A-Za-z0-9_]*::)+", "", rest)
    return head + rest


def read_folded(path):
    with open(path) as f:
        for line in f:
            stack, _, count = line.rstrip("\n").rpartition(" ")
            if stack:
                yield stack.split(";"), int(count)


def trim(stacks):
    """(frames from the loop down, count) of the samples inside the loop;
    the count of all the others."""
    kept, outside = [], 0
    for frames, n in stacks:
        if LOOP in frames:
            kept.append((frames[frames.index(LOOP) :], n))
        else:
            outside += n
    return kept, outside


# Shares of the loop that no single frame shows: a sample counts once in a
# group when any of its frames matches.
GROUPS = {
    # KeyedHeap, TimerCalendar and EventQueue are generic over the event
    # type, and only they are.
    "the event heap and the timer calendar": re.compile(r"<(Entry<)?Event>+$"),
    "page faults": re.compile(r"^exc_page_fault$"),
    "vectors growing (realloc)": re.compile(r"realloc$"),
}


def group_shares(kept):
    counts = dict.fromkeys(GROUPS, 0)
    for frames, n in kept:
        names = [short(f) for f in frames]
        for g, pattern in GROUPS.items():
            if any(pattern.search(f) for f in names):
                counts[g] += n
    return counts


def shares(kept):
    inclusive, own = collections.Counter(), collections.Counter()
    for frames, n in kept:
        for f in {short(f) for f in frames}:
            inclusive[f] += n
        own[short(frames[-1])] += n
    return inclusive, own


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("folded")
    ap.add_argument("trimmed")
    ap.add_argument("table")
    ap.add_argument("--title", default="")
    ap.add_argument("--rows", type=int, default=40)
    args = ap.parse_args()
    kept, outside = trim(read_folded(args.folded))
    total = sum(n for _, n in kept)
    if total == 0:
        raise SystemExit(f"flame_fold: no sample inside {LOOP} in {args.folded}")
    with open(args.trimmed, "w") as f:
        for frames, n in kept:
            f.write(";".join(frames) + f" {n}\n")
    inclusive, own = shares(kept)
    with open(args.table, "w") as f:
        f.write(f"{args.title}\n" if args.title else "")
        # inferno weighs each stack by the samples' period: with perf's
        # cpu-clock event, nanoseconds of CPU time.
        f.write(
            f"event loop: {total / 1e9:.2f} s of CPU time sampled; outside it "
            f"(start, scenario, benchmark): {outside / (total + outside):.1%}\n"
        )
        for g, n in group_shares(kept).items():
            f.write(f"{n / total:9.1%}         {g}\n")
        f.write(f"{'inclusive':>9} {'self':>6}  function (inlined ones included)\n")
        for name, n in inclusive.most_common(args.rows):
            f.write(f"{n / total:9.1%} {own[name] / total:6.1%}  {name}\n")


if __name__ == "__main__":
    main()

"""The whole-scenario fuzzer's long run (``make fuzz-scenarios``): the
property of ``tests/python/scenario_fuzz.py`` on random cases, in process,
for ``--seconds``; prints the cases run and rejected and the rate in cases
per hour. The scenarios are drawn by the same generator as the test
suite's hypothesis slice, from seeded ``random.Random`` streams
(``scenario_fuzz.random_scenario``: hypothesis' own per-draw cost would
cap the rate near 3 x 10^4 cases an hour). A failing case is printed with
its seed and its scenario as JSON, and the run exits 1;
``--replay SEED`` runs that one case again.

    python tools/fuzz_scenarios.py [--seconds 600] [--seed N] [--cli-every 50]

``--cli-every N``: one case in N also goes through ``satcp run --out
--pcap`` in process (exit 0 or 2, one line, no file outside --out).

``make fuzz-scenarios-checked`` runs it on the checked build of the core
(``tools/checked_extension.sh``); the core's file is printed at the start.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sys
import tempfile
import time
import traceback
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "python"))

from scenario_fuzz import check_case, check_cli_case, random_scenario

from satcp import _core


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=600.0)
    ap.add_argument("--seed", type=int, default=None, help="first case's seed (default: random)")
    ap.add_argument("--cli-every", type=int, default=50)
    ap.add_argument("--replay", type=int, default=None, metavar="SEED", help="run one case")
    args = ap.parse_args()
    if args.replay is not None:
        sc = random_scenario(args.replay)
        print(json.dumps(sc, default=repr))
        print(check_case(sc))
        return 0
    counts: Counter[str] = Counter()
    first = args.seed if args.seed is not None else random.randrange(2**48)
    tmp = tempfile.mkdtemp(prefix="satcp-fuzz-")
    print(f"fuzz-scenarios: first seed {first}; core {_core.__file__}", file=sys.stderr, flush=True)
    start = time.perf_counter()
    deadline = start + args.seconds
    failed = None
    case_seed = first
    try:
        while time.perf_counter() < deadline:
            sc = random_scenario(case_seed)
            try:
                counts[check_case(sc)] += 1
                if args.cli_every and case_seed % args.cli_every == 0:
                    counts["cli " + check_cli_case(sc, tmp)] += 1
            except (KeyboardInterrupt, SystemExit):
                raise
            except BaseException:  # pyo3's PanicException, a Rust panic, is not an Exception
                failed = case_seed
                print(f"FAILED: seed {case_seed}", file=sys.stderr)
                traceback.print_exc()
                print(json.dumps(sc, default=repr), file=sys.stderr)
                break
            case_seed += 1
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    elapsed = time.perf_counter() - start
    n = counts["ran"] + counts["rejected"]
    print(
        f"fuzz-scenarios: {n} cases (seeds {first} to {case_seed}) in {elapsed:.0f} s "
        f"({n / elapsed * 3600:,.0f} cases/hour): {counts['ran']} ran, "
        f"{counts['rejected']} rejected; through the CLI: {counts['cli ran']} ran, "
        f"{counts['cli rejected']} rejected; "
        + (f"FAILED at seed {failed}" if failed is not None else "no failure")
    )
    return 1 if failed is not None else 0


if __name__ == "__main__":
    sys.exit(main())

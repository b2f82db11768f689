"""Part of the extension's PGO training (tools/pgo.sh): every STEP-th of
make run's runs, at full length, with other seeds.

The reproductions' ``--quick`` sets, which the training also runs, are
short: their runs spend much of their time in handshakes and slow start.
make run's runs are long and spend it in steady state, loss recovery and
the queues' early drops. This runs a slice of those runs as make run
would (every reproduction's planned runs and compare's, full length), but
with each seed moved by SEED_SHIFT, so that the training is still not the
workload it is measured on (docs/decisions/0012-profile-guided-optimisation.md).

One thread: the instrumented build's counters are shared, and two threads
writing them took longer than one (13.1 against 10.3 s for every 40th run).

    python tools/pgo_paper_runs.py [STEP]
"""

from __future__ import annotations

import sys
import time

from satcp import _core
from satcp.compare import runs as compare_runs
from satcp.reproduce import REGISTRY, load
from satcp.scenario import load as load_scenario
from satcp.scenario import to_json

#: Added to every run's seed: other draws than make run's.
SEED_SHIFT = 1000


def paper_runs() -> list[dict]:
    """make run's runs as scenarios, in order: each reproduction's planned
    runs (all parts, full sets), then compare's."""
    runs = []
    for name in REGISTRY:
        repro = load(name).REPRODUCTION
        if repro.plan is not None:
            runs += [sc for sc, _ in repro.plan(list(repro.parts), False)]
    return runs + [job[3] for job in compare_runs()]


def main(argv: list[str]) -> None:
    step = int(argv[0]) if argv else 20
    texts = []
    for sc in paper_runs()[step // 2 :: step]:
        resolved = load_scenario(sc)
        resolved["seed"] = resolved.get("seed", 1) + SEED_SHIFT
        texts.append(to_json(resolved))
    t = time.perf_counter()
    for text in texts:
        _core.run_json(text)
    print(
        f"pgo: {len(texts)} of make run's runs with other seeds, {time.perf_counter() - t:.1f} s",
        file=sys.stderr,
    )


if __name__ == "__main__":
    main(sys.argv[1:])

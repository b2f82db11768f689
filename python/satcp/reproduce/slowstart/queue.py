"""Queue sensitivity: Table I with router queues of 40, 64 and 100 packets.

The paper treats the routers as a black box; satcp's model chose 64
packets (docs/slowstart.md). This part shows how much Table I depends on
that choice: one connection per configuration, each queue size, gains
against the reference at the same queue size.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..experiment import Experiment, Point, run_experiment
from ..tables import markdown_table
from .claims import Section
from .common import CONFIGS, QUEUE, by_key, gain, outcome, testbed

__all__ = ["EXPERIMENT", "QUEUES", "queue_dependence", "reproduce"]

QUEUES = (40, QUEUE, 100)
CSV = "queue_sensitivity.csv"


def _metrics(point: Point, r: Any) -> dict[str, Any]:
    o = outcome(r, 1)
    return {"time_s": o.time_s, "drops": o.drops}


def _table(measured: list[tuple[Point, Any]]) -> list[dict[str, Any]]:
    """One row per configuration: time, gain against the reference at the
    same queue, and drops, for each queue size."""
    res = {(p["config"], p["queue"]): m for p, m in measured}
    rows = []
    for c in CONFIGS:
        row: dict[str, Any] = {"config": c.key, "label": c.label}
        for q in QUEUES:
            o = res[c.key, q]
            row[f"time_s_q{q}"] = o["time_s"]
            row[f"gain_pct_q{q}"] = gain(o["time_s"], res["reference", q]["time_s"])
            row[f"drops_q{q}"] = o["drops"]
        rows.append(row)
    return rows


#: One connection per configuration of Table I and queue size.
EXPERIMENT = Experiment(
    name="queue_sensitivity",
    csv=CSV,
    grid=[{"config": c.key, "queue": q} for q in QUEUES for c in CONFIGS],
    scenario=lambda p: testbed(by_key(p["config"]), queue=p["queue"]),
    metrics=_metrics,
    table=_table,
)


def reproduce(out: Path, workers: int | None, quick: bool) -> Section:
    done = run_experiment(EXPERIMENT, out, workers)
    rows = done.rows
    res = {
        (c.key, q): {"time_s": r[f"time_s_q{q}"], "drops": r[f"drops_q{q}"]}
        for c, r in zip(CONFIGS, rows, strict=True)
        for q in QUEUES
    }
    table = markdown_table(
        ["configuration", *(f"queue {q}: time (s), gain, drops" for q in QUEUES)],
        [
            [
                r["label"],
                *(
                    f"{r[f'time_s_q{q}']:.2f} s, "
                    + ("-" if c.key == "reference" else f"{r[f'gain_pct_q{q}']:.1f} %")
                    + f", {r[f'drops_q{q}']}"
                    for q in QUEUES
                ),
            ]
            for c, r in zip(CONFIGS, rows, strict=True)
        ],
    )
    md = [
        "## Queue sensitivity: Table I with 40, 64 and 100 packets",
        "",
        f"One connection, the router queue varied (64 is the model's choice); data in `{CSV}`. "
        + queue_dependence(res),
        "",
        *table,
        "",
    ]
    return Section("Queue sensitivity", "\n".join(md), done.claims, done.files, runs=done.runs)


def queue_dependence(res: dict) -> str:
    """What the table shows about the queue, read from the runs (`res`:
    (config key, queue) -> the run's metrics "time_s" and "drops"): whether
    the reference's time and drops are the same at every queue size, and
    which configurations' are not."""

    def same(key: str) -> bool:
        outs = [res[key, q] for q in QUEUES]
        return all(
            o["time_s"] == outs[0]["time_s"] and o["drops"] == outs[0]["drops"] for o in outs
        )

    varying = [c.label for c in CONFIGS if not same(c.key)]
    if same("reference"):
        ref = (
            "The reference (window-limited: 32 kB, about 22 packets in flight) has the same "
            "time and drops at every queue size"
        )
    else:
        ref = "The reference's time or drops change with the queue"
    if not varying:
        return ref + "; so does every other configuration in these runs."
    return (
        f"{ref}; these configurations' depend on it: {', '.join(varying)} (a window "
        "growing by K + 1 segments per ACK arrives at 10 Mb/s into a 2 Mb/s link, so the "
        "queue decides which function overflows it)."
    )

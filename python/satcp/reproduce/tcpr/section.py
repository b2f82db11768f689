"""One part of the reproduction from its table: run the experiments, write
each figure's CSV and PNG, build the claims, and the Markdown section with
every figure's throughput table (mean +- 95 % interval over seeds)."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from pathlib import Path

from ..tables import markdown_table
from .claims import Claim, Section
from .common import SEEDS, SEEDS_QUICK, Experiment, Lookup, run, write_figure

__all__ = ["reproduce_section"]


def _mean_ci(v: tuple[float, float]) -> str:
    return f"{v[0]:.0f}" if math.isnan(v[1]) else f"{v[0]:.0f} +- {v[1]:.0f}"


def reproduce_section(
    title: str,
    intro: str,
    exps: Sequence[Experiment],
    claims: Callable[[dict[str, Lookup], dict[str, tuple[float, ...]]], list[Claim]],
    out: Path,
    workers: int | None,
    quick: bool,
) -> Section:
    res, runs = run(exps, workers, quick)
    files: list[str] = []
    md = [f"## {title}", "", intro, ""]
    for e in exps:
        files += write_figure(out, e, res[e.fig], quick)
        xs = e.grid(quick)
        md += [
            f"**Fig. {e.fig}: {e.title}** (`{e.stem}.png`, data with fast-retransmit and "
            f"timeout ratios in `{e.stem}.csv`). Throughput (kb/s), mean +- 95 % interval "
            f"over {len(SEEDS_QUICK if quick else SEEDS)} seeds; x = {e.xlabel}.",
            "",
            *markdown_table(
                ["series", *(e.xfmt.format(x) for x in xs)],
                [
                    [
                        s.name,
                        *(_mean_ci(res[e.fig][s.name, x].thr) for x in xs),
                    ]
                    for s in e.series
                ],
            ),
            "",
        ]
    lookups = {e.fig: Lookup(res[e.fig], {s.id: s.name for s in e.series}) for e in exps}
    grids = {e.fig: e.grid(quick) for e in exps}
    return Section(title, "\n".join(md), claims(lookups, grids), files, runs)

"""``satcp compare``: every variant on named path presets.

A preset is a path of the topology library (:mod:`satcp.topology.presets`):
a scenario factory taking the variant's TCP settings.
Each variant runs one bulk transfer per seed on each preset; the table
ranks them by mean goodput per preset (with the 95 % interval over seeds),
and per preset one figure shows goodput, RTT and cwnd over time.

Presets:

- ``thesis-geo``: the TCP-ADaLR thesis network (Fig. 7.2): 10 Mb/s access,
  a GEO hop of 2.048 Mb/s down / 256 kb/s up, 250 ms one way, BER 1e-6 on
  the downlink;
- ``peach-geo``: the TCP-Peach paper's Sec. V channel: 10.8 Mb/s, RTT 550
  ms, a 50-segment buffer, link-error loss 1e-3 on data;
- ``starlink``: a bent pipe Paris-London through Starlink's first shell,
  its delay from the orbit per 15 s slot (:mod:`satcp.leo`), 100 Mb/s,
  loss 1e-5;
- ``leo-trace``: a trace-driven LEO path (the bundled, documented trace in
  ``satcp/data``): delay and rate change every 15 s;
- ``starlink-isl``: London-New York over the first shell's +Grid of
  inter-satellite links (uplink, shortest ISL route, downlink, per 15 s
  slot; :mod:`satcp.leo.isl`), 100 Mb/s, loss 1e-5, and a handover outage
  of ``HANDOVER_OUTAGE_S`` in both directions whenever either serving
  satellite changes (an assumption, not a measurement: docs/leo.md).

TCP-R and RN-TCP are left out: they need EPDN gateways on the path (their
paper's network, `satcp reproduce`-style scenarios). Variants use their
defaults with window scaling and a buffer of 4 MB (8 MB
on LEO), SACK where the family has it. The modern variants (CUBIC, Hybla,
Westwood+, BBR) run the ``linux`` stack profile (``tcp.profile``: IW 10,
Linux's RTO, byte counting, HyStart++, quick ACKs, cwnd validation, ...;
docs/profiles.md), the papers' variants the ``rfc`` profile, as the
registry's tables say (``Variant::compared_as``); the ranking names each
configuration's profile. Every bottleneck queue is a strict
priority queue (drop-tail for ordinary traffic; TCP-Peach's low-priority
dummies go last and first to be dropped), because TCP-Peach assumes such
routers (its paper, Sec. III).
"""

from __future__ import annotations

import json
import math
import os
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import _core, manifest, run_many, topology
from ._fsutil import fill_dir_atomically
from .stats import mean_ci95
from .topology import HANDOVER_OUTAGE_S

__all__ = [
    "DEFAULT_OUT",
    "HANDOVER_OUTAGE_S",
    "PRESETS",
    "SECONDS",
    "SEEDS",
    "VARIANTS",
    "compare",
    "runs",
]

DEFAULT_OUT = os.path.join("reports", "compare")
#: A transfer's length, seconds, and the seeds of each point: make run's.
SECONDS = 120.0
SEEDS = (1, 2, 3)

#: (name shown, tcp settings): the configurations the variant registry
#: marks for comparison (`Variant::compared_as`), in registry order.
VARIANTS: tuple[tuple[str, dict[str, Any]], ...] = tuple(
    (label, json.loads(tcp)) for label, tcp in _core.compared_variants()
)


#: name -> (what it is, scenario factory)
PRESETS: dict[str, tuple[str, Callable[[dict[str, Any], float], dict[str, Any]]]] = {
    "thesis-geo": ("thesis GEO (2 Mb/s, 500 ms, BER 1e-6)", topology.thesis_geo),
    "peach-geo": ("TCP-Peach GEO (10.8 Mb/s, 550 ms, loss 1e-3)", topology.peach_geo),
    "starlink": ("Starlink bent pipe Paris-London (orbit, 15 s slots)", topology.starlink),
    "leo-trace": ("trace-driven LEO (rate and delay per 15 s slot)", topology.leo_trace),
    "starlink-isl": (
        "Starlink ISL London-New York (+Grid, 15 s slots, 20 ms handover outages)",
        topology.starlink_isl,
    ),
}


def profile_of(tcp: dict[str, Any]) -> str:
    """The stack profile a configuration runs (``rfc`` unless it says)."""
    return str(tcp.get("profile", "rfc"))


@dataclass
class Row:
    preset: str
    variant: str
    profile: str
    goodput_mbps: float
    ci95_mbps: float
    retransmitted_pct: float
    mean_rtt_ms: float
    rank: int = 0


def runs(
    presets: Sequence[str] = tuple(PRESETS),
    seconds: float = SECONDS,
    seeds: Sequence[int] = SEEDS,
) -> list[tuple[str, str, int, dict[str, Any]]]:
    """The runs :func:`compare` makes, in order: (preset, variant, seed,
    scenario) for every seed of every variant on every preset."""
    jobs = []
    for p in presets:
        factory = PRESETS[p][1]
        base = {name: factory(tcp, seconds) for name, tcp in VARIANTS}
        for name, _ in VARIANTS:
            for seed in seeds:
                jobs.append((p, name, seed, {**base[name], "seed": seed}))
    return jobs


def compare(
    out_dir: str | os.PathLike[str] = DEFAULT_OUT,
    presets: Sequence[str] = tuple(PRESETS),
    seconds: float = SECONDS,
    seeds: Sequence[int] = SEEDS,
    workers: int | None = None,
) -> tuple[list[Row], list[str]]:
    """Runs every variant on every preset and writes ``ranking.csv``,
    ``ranking.md``, ``ranking.png`` (mean goodput with 95 % intervals) and
    one PNG per preset (the first seed over time) into ``out_dir``,
    atomically."""
    for p in presets:
        if p not in PRESETS:
            raise ValueError(f"unknown preset {p!r} (presets: {', '.join(PRESETS)})")
    t0 = time.perf_counter()
    jobs = runs(presets, seconds, seeds)
    results = run_many([j[3] for j in jobs], workers=workers)
    rows: list[Row] = []
    series: dict[tuple[str, str], Any] = {}
    for p in presets:
        for name, tcp in VARIANTS:
            rs = [r for j, r in zip(jobs, results, strict=True) if j[0] == p and j[1] == name]
            g = [r.flows.goodput_bps.iloc[0] / 1e6 for r in rs]
            sent = [r.flows.server_payload_bytes_sent.iloc[0] for r in rs]
            rtx = [r.flows.server_retransmitted_bytes.iloc[0] for r in rs]
            rtts = [r.flow_series.srtt_s.dropna().mean() * 1e3 for r in rs]
            mean, ci = mean_ci95(g)
            rows.append(
                Row(
                    p,
                    name,
                    profile_of(tcp),
                    mean,
                    ci,
                    100 * sum(rtx) / max(1, sum(sent)),
                    statistics.fmean(rtts),
                )
            )
            series[(p, name)] = rs[0].flow_series
    for p in presets:
        ranked = sorted((r for r in rows if r.preset == p), key=lambda r: -r.goodput_mbps)
        for i, r in enumerate(ranked, 1):
            r.rank = i
    rows.sort(key=lambda r: (list(presets).index(r.preset), r.rank))

    from .reproduce.plotstyle import save_png

    def fill(tmp: str) -> None:
        _write_tables(Path(tmp), rows, presets, seconds, seeds, time.perf_counter() - t0)
        with manifest.recording() as drawn:
            save_png(
                _ranking_figure(rows, presets, seeds),
                Path(tmp) / "ranking.png",
                dpi=110,
                caption="mean goodput of each variant on each path over the seeds, "
                "with its 95 % interval",
            )
            for p in presets:
                _plot(Path(tmp) / f"{p}.png", p, series)
        # The list of this run's outputs: a preset's PNG of an earlier run
        # left in the folder is not among them (satcp report shows these).
        manifest.write_manifest(
            tmp,
            kind="compare",
            name="compare",
            title="satcp compare: every variant on every path",
            report="ranking.md",
            figures=[manifest.Figure(f.file, f.caption, "ranking") for f in drawn],
        )

    _, paths = fill_dir_atomically(out_dir, fill)
    return rows, paths


def _write_tables(out: Path, rows, presets, seconds, seeds, wall) -> None:
    import csv

    with open(out / "ranking.csv", "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(
            [
                "preset",
                "rank",
                "variant",
                "profile",
                "goodput_mbps",
                "ci95_mbps",
                "retransmitted_pct",
                "mean_rtt_ms",
            ]
        )
        for r in rows:
            w.writerow(
                [
                    r.preset,
                    r.rank,
                    r.variant,
                    r.profile,
                    f"{r.goodput_mbps:.4f}",
                    f"{r.ci95_mbps:.4f}",
                    f"{r.retransmitted_pct:.3f}",
                    f"{r.mean_rtt_ms:.1f}",
                ]
            )
    md = [
        "# satcp compare: every variant on every path",
        "",
        *_winners(rows, presets),
        "",
        "![mean goodput per variant and path, with 95 % intervals](ranking.png)",
        "",
        f"One bulk transfer of {seconds:.0f} s per variant, preset and seed (seeds "
        f"{', '.join(map(str, seeds))}); goodput is the mean over seeds with its 95 % "
        "interval (Student t, n - 1 degrees of freedom; none with one seed). "
        f"{len(rows) * len(seeds)} runs in {wall:.1f} s. Presets and settings: "
        "`satcp.compare` (docstring). The stack column is the TCP profile each "
        "configuration runs (`tcp.profile`, docs/profiles.md): `linux` (Linux 6.x's "
        "defaults: IW 10, Linux's RTO, byte counting, HyStart++, quick ACKs, cwnd "
        "validation, ...) for the modern variants, `rfc` (the RFCs as the papers ran "
        "them) for the papers' variants.",
        "",
    ]
    for p in presets:
        md += [
            f"## {p}: {PRESETS[p][0]}",
            "",
            "| rank | variant | stack | goodput (Mb/s) | 95 % CI | retransmitted (%) "
            "| mean SRTT (ms) |",
            "|---|---|---|---|---|---|---|",
        ]
        for r in rows:
            if r.preset == p:
                ci = "n/a" if math.isnan(r.ci95_mbps) else f"{r.ci95_mbps:.3f}"
                md.append(
                    f"| {r.rank} | {r.variant} | {r.profile} | {r.goodput_mbps:.3f} | "
                    f"{ci} | {r.retransmitted_pct:.2f} | {r.mean_rtt_ms:.0f} |"
                )
        md += ["", f"![{p}]({p}.png)", ""]
    (out / "ranking.md").write_text("\n".join(md), encoding="utf-8")


def _winners(rows: Sequence[Row], presets: Sequence[str]) -> list[str]:
    """Which variant wins on each path, first: the highest mean goodput,
    and the variants statistically tied with it (their 95 % intervals
    overlap the winner's; none can be told apart with one seed)."""
    md = [
        "## Which variant wins",
        "",
        "| path | wins | goodput (Mb/s) | tied with it (95 % intervals overlap) |",
        "|---|---|---|---|",
    ]
    for p in presets:
        ranked = sorted((r for r in rows if r.preset == p), key=lambda r: r.rank)
        if not ranked:
            continue
        w = ranked[0]
        if math.isnan(w.ci95_mbps):
            ties, ci = "not known (one seed: no interval)", ""
        else:
            tied = [
                r.variant
                for r in ranked[1:]
                if not math.isnan(r.ci95_mbps)
                and w.goodput_mbps - r.goodput_mbps <= w.ci95_mbps + r.ci95_mbps
            ]
            ties, ci = (", ".join(tied) or "none"), f" ± {w.ci95_mbps:.3f}"
        md.append(f"| {p} | {w.variant} | {w.goodput_mbps:.3f}{ci} | {ties} |")
    return md


def _ranking_figure(rows: Sequence[Row], presets: Sequence[str], seeds: Sequence[int]) -> Any:
    """Per path, each variant's mean goodput over the seeds as a bar, in
    rank order, with its 95 % interval as an error bar (none with one
    seed); the variants in their colours of the other figures."""
    from .reproduce.plotstyle import distinct_style, new_figure

    names = [name for name, _ in VARIANTS]
    fig = new_figure((8.0, 0.3 * len(VARIANTS) * len(presets) + 1.2 * len(presets)))
    axes = fig.subplots(len(presets), 1, squeeze=False)[:, 0]
    for ax, p in zip(axes, presets, strict=True):
        ranked = sorted((r for r in rows if r.preset == p), key=lambda r: r.rank)
        ci = [0.0 if math.isnan(r.ci95_mbps) else r.ci95_mbps for r in ranked]
        ax.barh(
            range(len(ranked)),
            [r.goodput_mbps for r in ranked],
            xerr=ci if len(seeds) > 1 else None,
            capsize=3,
            color=[
                distinct_style(names.index(r.variant))[0] if r.variant in names else "grey"
                for r in ranked
            ],
        )
        ax.set_yticks(range(len(ranked)), [r.variant for r in ranked])
        ax.invert_yaxis()  # rank 1 on top
        ax.set_title(f"{p}: {PRESETS[p][0]}", fontsize=9)
        ax.grid(True, axis="x", alpha=0.3)
    how = (
        f"mean over {len(seeds)} seeds with its 95 % interval"
        if len(seeds) > 1
        else "one seed: no interval"
    )
    axes[-1].set_xlabel(f"goodput (Mb/s), {how}")
    return fig


def _plot(path: Path, preset: str, series) -> None:
    from .reproduce.plotstyle import save_png

    save_png(_figure(preset, series), path, dpi=110)


def _figure(preset: str, series) -> Any:
    """Goodput, SRTT and cwnd of every variant over time on ``preset``
    (the first seed); each variant in its own colour and linestyle, the
    same in every figure (:func:`~satcp.reproduce.plotstyle.distinct_style`
    by registry order)."""
    from .reproduce.plotstyle import distinct_style, grid_and_legend, new_figure

    fig = new_figure((8.0, 9.0))
    axes = fig.subplots(3, 1, sharex=True)
    for k, (name, _) in enumerate(VARIANTS):
        color, ls = distinct_style(k)
        style = {"label": name, "linewidth": 1.0, "color": color, "linestyle": ls}
        fs = series[(preset, name)]
        t = fs.time_s.to_numpy()
        delivered = fs.bytes_delivered.to_numpy()
        rate = [0.0] + [
            (delivered[i] - delivered[i - 1]) * 8 / (t[i] - t[i - 1]) / 1e6
            for i in range(1, len(t))
        ]
        axes[0].plot(t, rate, **style)
        axes[1].plot(t, fs.srtt_s.to_numpy() * 1e3, **style)
        axes[2].plot(t, fs.cwnd.to_numpy() / 1e3, **style)
    axes[0].set_ylabel("goodput (Mb/s)")
    axes[1].set_ylabel("SRTT (ms)")
    axes[2].set_ylabel("cwnd (kB)")
    axes[2].set_xlabel("time (s)")
    axes[0].set_title(f"{preset}: {PRESETS[preset][0]}")
    for ax in axes:
        ax.ticklabel_format(axis="y", useOffset=False, style="plain")
        grid_and_legend(ax, legend=ax is axes[0])
    return fig

"""The TCP-R paper's network (Sec. 3), its compared variants and its
figures as experiments of the shared engine
(:mod:`satcp.reproduce.experiment`): a :class:`Figure` is the paper's
figure as data (the impairments of the bottleneck as a function of x, the
x values, the series); :meth:`Figure.experiment` makes it an
:class:`~satcp.reproduce.experiment.Experiment` whose grid is every
(series, x, seed), whose table is the mean and 95 % interval over the
seeds per (series, x), and whose figure plots them with error bars.
Readings: docs/tcpr.md, "Reproduction".

The network: src -10 Mb/s, 1 ms- R1 -1.5 Mb/s, P- R2 -10 Mb/s, 1 ms- dst,
1,500-byte packets (MSS 1,460), RED with ECN marking on every router
queue, queue and maximum window = the bandwidth-delay product (window
scaling), minimum RTO 1 s, one bulk (FTP) flow of 1,000 s. Every
impairment is on the data direction R1 -> R2 (``links[1].ab``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...stats import mean_ci95
from .. import plotstyle
from ..claims import Claim
from ..experiment import Experiment, Measured, Rows, Section, run_experiment
from ..tables import markdown_table

__all__ = [
    "DURATION_S",
    "P_GEO",
    "SEEDS",
    "VARIANTS",
    "Figure",
    "Lookup",
    "Point",
    "Results",
    "SeriesSpec",
    "Variant",
    "figures_section",
    "network",
    "reorder_normal",
    "results",
]

#: Bottleneck rate (b/s), access links (b/s, s), packet and segment sizes.
RATE_BPS = 1.5e6
ACCESS_BPS, ACCESS_DELAY_S = 10e6, 0.001
PACKET, MSS = 1500, 1460
#: GEO one-way propagation delay of the bottleneck (s).
P_GEO = 0.3
#: "The TCP flow lasts 1000 seconds" (Sec. 3); --quick runs 300 s.
DURATION_S, DURATION_QUICK_S = 1000.0, 300.0
SEEDS, SEEDS_QUICK = (1, 2, 3, 4, 5), (1, 2)


@dataclass(frozen=True)
class Variant:
    """A compared protocol: ``tcp.variant``, the EPDN gateway kind at R1
    and R2 (None: plain routers) and the plot style (color, line, marker)."""

    label: str
    tcp: str
    gateway: str | None
    style: plotstyle.Style


#: The paper's protocols (Sec. 3's list and Sec. 4.7). "RN-TCP" alone in
#: the paper's text is RN-TCP (EPDNv2) (Sec. 4.4 names it so); TCP-R runs
#: with EPDNv3, the gateway the paper proposes for it (Sec. 5).
VARIANTS: dict[str, Variant] = {
    "sack": Variant("SACK", "sack", None, ("black", "--", "s")),
    "dsack-r": Variant("DSACK-R", "dsack-r", None, ("tab:gray", "--", "x")),
    "dsack-ta": Variant("DSACK-TA", "dsack-ta", None, ("tab:blue", "-", "^")),
    "dsack-taes": Variant("DSACK-TAES", "dsack-taes", None, ("tab:cyan", ":", "v")),
    "rntcp-v2": Variant("RN-TCP (EPDNv2)", "rntcp", "epdn-v2", ("tab:green", "-", "D")),
    "rntcp-v3": Variant("RN-TCP (EPDNv3)", "rntcp", "epdn-v3", ("tab:olive", "-.", "P")),
    "rntcp-es": Variant("RN-TCP-ES", "rntcp-es", "epdn-v2", ("tab:purple", ":", "*")),
    "tcpr": Variant("TCP-R", "tcpr", "epdn-v3", ("tab:red", "-", "o")),
}


def bdp_bytes(p_s: float) -> float:
    """Bandwidth x round-trip propagation time of the path (bytes)."""
    return RATE_BPS * 2.0 * (p_s + 2 * ACCESS_DELAY_S) / 8.0


def reorder_normal(fraction: float, mean_s: float) -> dict[str, Any]:
    """A fraction of the data packets delayed N(mean, mean/3) truncated to
    [0, 2 mean] (Secs. 4.1, 4.4-4.7; sd = mean / 3 as the paper's y P / 3
    and its 0.6 s / 0.2 s)."""
    return {
        "reorder": {"prob": fraction, "delay": "normal", "mean_s": mean_s, "sd_s": mean_s / 3.0}
    }


def network(
    flows: Sequence[tuple[str, int]],
    sat_ab: dict[str, Any],
    *,
    p_s: float = P_GEO,
    seed: int = 1,
    duration_s: float = DURATION_S,
    queue_packets: int | None = None,
    gateway: str | None = None,
    name: str = "tcpr",
) -> dict[str, Any]:
    """The Sec. 3 network with ``count`` bulk flows of each variant key in
    ``flows`` from src to dst, ``sat_ab`` merged into the data direction of
    the bottleneck. The gateway kind at R1 and R2 is the first variant's
    unless ``gateway`` is given. Several flows start spread over the first
    second (drawn from the seed): identical start times would lock a
    deterministic simulation into phase effects."""
    bdp = bdp_bytes(p_s)
    q = queue_packets or max(4, math.ceil(bdp / PACKET))
    red = {"queue": "red", "queue_packets": q, "red": {"ecn_marking": True}}
    ab = {**red, **sat_ab, "errors": {"data_only": True, **sat_ab.get("errors", {})}}
    kinds = [VARIANTS[k] for k, n in flows for _ in range(n)]
    gw = gateway or kinds[0].gateway
    rng = _starts(seed, len(kinds))
    apps = [
        {"kind": "bulk", "client": "dst", "server": "src", "tcp": {"variant": v.tcp}}
        | ({"start_s": rng[i]} if len(kinds) > 1 else {})
        for i, v in enumerate(kinds)
    ]
    return {
        "name": name,
        "seed": int(seed),
        "duration_s": float(duration_s),
        "stop_when_done": False,
        "nodes": ["src", "R1", "R2", "dst"],
        "links": [
            _link("access", "src", "R1", ACCESS_BPS, ACCESS_DELAY_S, red, red),
            {
                **_link("sat", "R1", "R2", RATE_BPS, p_s, ab, red),
                # A corrupted packet reaches R2, which discards it: EPDNv2
                # records it there (docs/tcpr.md, "EPDN").
                "errors": {"corrupted_reach_next_node": True},
            },
            _link("tail", "R2", "dst", ACCESS_BPS, ACCESS_DELAY_S, red, red),
        ],
        "apps": apps,
        "tcp": {
            "mss": MSS,
            "ecn": True,
            "window_scaling": True,
            "rcv_buffer": int(bdp),
            "dsack": True,
            "min_rto": 1.0,
        },
        "routers": [{"node": n, "kind": gw} for n in ("R1", "R2")] if gw else [],
    }


def _link(name: str, a: str, b: str, rate: float, delay: float, ab: dict, ba: dict) -> dict:
    return {"name": name, "a": a, "b": b, "rate_bps": rate, "delay_s": delay, "ab": ab, "ba": ba}


def _starts(seed: int, n: int) -> list[float]:
    """n start times in [0, 1) s from the seed (a small LCG: the same seed
    gives the same starts on every platform)."""
    x, out = (seed * 2654435761) % 2**32, []
    for _ in range(n):
        x = (1664525 * x + 1013904223) % 2**32
        out.append(round(x / 2**32, 6))
    return out


@dataclass(frozen=True)
class SeriesSpec:
    """A curve of a figure: a variant, and whether the x-dependent
    reordering applies (Fig. 8's "no delay" curves: False)."""

    key: str
    reorder: bool = True
    label: str = ""

    @property
    def name(self) -> str:
        return self.label or VARIANTS[self.key].label

    @property
    def id(self) -> str:
        """How claims name the series: the variant key, "-nodelay" added
        without reordering."""
        return self.key if self.reorder else f"{self.key}-nodelay"


@dataclass(frozen=True)
class Figure:
    """One of the paper's figures as data. ``link(x, reorder)`` gives the
    bottleneck's data direction options at x; ``p_s(x)`` the propagation
    delay. ``mixed``: one run per (x, seed) with ``flows_each`` flows of
    every series, each series' metrics averaged over its flows (Fig. 9)."""

    fig: str
    stem: str
    title: str
    xlabel: str
    xs: tuple[float, ...]
    xs_quick: tuple[float, ...]
    series: tuple[SeriesSpec, ...]
    link: Callable[[float, bool], dict[str, Any]]
    p_s: Callable[[float], float] = lambda x: P_GEO
    xlog: bool = False
    mixed: bool = False
    flows_each: int = 1
    queue_packets: int | None = None
    gateway: str | None = None
    #: How the x values are written in tables ("{:g}").
    xfmt: str = "{:g}"

    def grid(self, quick: bool) -> tuple[float, ...]:
        return self.xs_quick if quick else self.xs

    def experiment(
        self, quick: bool, seeds: Sequence[int] | None = None, duration_s: float | None = None
    ) -> Experiment:
        """The figure as the engine's experiment: a point per (series
        group, x, seed) in that order (a group is one series, or all of them
        when ``mixed``); its CSV ``<stem>.csv`` and its PNG. ``seeds`` and
        ``duration_s`` default to the run's (--quick or full)."""
        seeds = tuple(seeds or (SEEDS_QUICK if quick else SEEDS))
        duration = duration_s or (DURATION_QUICK_S if quick else DURATION_S)
        xs = self.grid(quick)
        groups = [self.series] if self.mixed else [(s,) for s in self.series]
        return Experiment(
            name=f"tcpr-fig{self.fig}",
            csv=f"{self.stem}.csv",
            grid=[
                {"series": g, "x": x, "seed": seed} for g in groups for x in xs for seed in seeds
            ],
            scenario=lambda p: network(
                [(s.key, self.flows_each) for s in p["series"]],
                self.link(p["x"], p["series"][0].reorder),
                p_s=self.p_s(p["x"]),
                seed=p["seed"],
                duration_s=duration,
                queue_packets=self.queue_packets,
                gateway=self.gateway,
                name=f"tcpr-fig{self.fig}",
            ),
            metrics=lambda p, r: _metrics(p["series"], r.flows, duration),
            table=lambda measured: self._table(measured, xs),
            figures=lambda rows, _measured, out: self._draw(results(rows), xs, out),
        )

    def _table(self, measured: Measured, xs: Sequence[float]) -> Rows:
        """One row per (series, x): the seeds, and the mean and 95 % half
        width (Student t over the seeds) of each metric."""
        samples: dict[tuple[str, float], list[tuple[float, ...]]] = {}
        for p, m in measured:
            for name, v in m.items():
                samples.setdefault((name, p["x"]), []).append(v)
        rows = []
        for s in self.series:
            for x in xs:
                vals = samples[s.name, x]
                thr, fr, to, dup = (mean_ci95(list(c)) for c in zip(*vals, strict=True))
                rows.append(
                    {
                        "series": s.name,
                        "x": x,
                        "seeds": len(vals),
                        "throughput_kbps": thr[0],
                        "throughput_ci95": thr[1],
                        "fast_retransmit_ratio": fr[0],
                        "fast_retransmit_ratio_ci95": fr[1],
                        "timeout_ratio": to[0],
                        "timeout_ratio_ci95": to[1],
                        "duplicate_ratio": dup[0],
                        "duplicate_ratio_ci95": dup[1],
                    }
                )
        return rows

    def _draw(self, res: Results, xs: Sequence[float], out: Path) -> list[str]:
        """``<stem>.png``: throughput, fast-retransmit ratio and timeout
        ratio against x, as the paper's figures; 95 % intervals as error
        bars."""
        fig = plotstyle.new_figure((7.0, 9.0))
        axes = fig.subplots(3, 1)
        for ax, (attr, ylabel) in zip(
            axes,
            (
                ("thr", "throughput (kb/s)"),
                ("fr", "fast retransmit ratio"),
                ("to", "timeout ratio"),
            ),
            strict=True,
        ):
            for s in self.series:
                color, ls, marker = VARIANTS[s.key].style
                m = [getattr(res[s.name, x], attr) for x in xs]
                ax.errorbar(
                    xs,
                    [v[0] for v in m],
                    yerr=[0.0 if math.isnan(v[1]) else v[1] for v in m],
                    label=s.name,
                    color=color,
                    linestyle=ls if s.reorder else ":",
                    marker=marker,
                    markersize=4,
                    linewidth=1.2,
                    capsize=2,
                )
            ax.set_ylabel(ylabel)
            ax.set_xlabel(self.xlabel)
            if self.xlog:
                ax.set_xscale("log")
            ax.set_ylim(bottom=0)
            plotstyle.grid_and_legend(ax, attr == "thr")
        axes[0].set_title(
            plotstyle.wrap_title(f"Fig. {self.fig}: {self.title} (satcp)", 80), fontsize=10
        )
        plotstyle.save_png(fig, out / f"{self.stem}.png", 100)
        return [f"{self.stem}.png"]

    def markdown(self, res: Results, quick: bool, seeds: int) -> list[str]:
        """The report's throughput table of the figure (mean +- 95 %
        interval over the seeds)."""
        xs = self.grid(quick)
        return [
            f"**Fig. {self.fig}: {self.title}** (`{self.stem}.png`, data with fast-retransmit "
            f"and timeout ratios in `{self.stem}.csv`). Throughput (kb/s), mean +- 95 % "
            f"interval over {seeds} seeds; x = {self.xlabel}.",
            "",
            *markdown_table(
                ["series", *(self.xfmt.format(x) for x in xs)],
                [[s.name, *(_mean_ci(res[s.name, x].thr) for x in xs)] for s in self.series],
            ),
            "",
        ]


def _mean_ci(v: tuple[float, float]) -> str:
    return f"{v[0]:.0f}" if math.isnan(v[1]) else f"{v[0]:.0f} +- {v[1]:.0f}"


@dataclass
class Point:
    """The mean and 95 % half width (Student t over seeds) of throughput
    (kb/s), fast-retransmit ratio, timeout ratio and duplicate ratio (data
    segments that reached the receiver twice: spurious retransmissions),
    each per data packet sent."""

    thr: tuple[float, float]
    fr: tuple[float, float]
    to: tuple[float, float]
    dup: tuple[float, float]
    n: int


#: {(series name, x): Point} of one figure.
Results = dict[tuple[str, float], Point]


def results(rows: Rows) -> Results:
    """A figure's table (:meth:`Figure._table`) by (series name, x)."""
    return {
        (r["series"], r["x"]): Point(
            (r["throughput_kbps"], r["throughput_ci95"]),
            (r["fast_retransmit_ratio"], r["fast_retransmit_ratio_ci95"]),
            (r["timeout_ratio"], r["timeout_ratio_ci95"]),
            (r["duplicate_ratio"], r["duplicate_ratio_ci95"]),
            r["seeds"],
        )
        for r in rows
    }


def _metrics(
    series: Sequence[SeriesSpec], flows: Any, duration_s: float
) -> dict[str, tuple[float, float, float, float]]:
    """Throughput (kb/s per flow) and the fast-retransmit, timeout and
    duplicate ratios of each series' flows in one run."""
    out = {}
    for s in series:
        mine = flows[flows["variant"] == VARIANTS[s.key].tcp] if len(series) > 1 else flows
        sent = float(mine["server_data_segments_sent"].sum()) or 1.0
        n = len(mine)
        thr = float(mine["client_bytes_delivered"].sum()) * 8 / duration_s / 1000.0 / n
        out[s.name] = (
            thr,
            float(mine["server_fast_retransmits"].sum()) / sent,
            float(mine["server_timeouts"].sum()) / sent,
            float(mine["client_duplicate_segments_received"].sum()) / sent,
        )
    return out


@dataclass
class Lookup:
    """Means of one figure by series id (:attr:`SeriesSpec.id`) and x,
    for claims."""

    res: Results
    names: dict[str, str] = field(default_factory=dict)

    def point(self, sid: str, x: float) -> Point:
        return self.res[self.names[sid], x]

    def thr(self, sid: str, x: float) -> float:
        return self.point(sid, x).thr[0]


def figures_section(
    title: str,
    intro: str,
    figures: Sequence[Figure],
    claims: Callable[[dict[str, Lookup], dict[str, tuple[float, ...]]], list[Claim]],
    out: Path,
    workers: int | None,
    quick: bool,
    after: Callable[[dict[str, Lookup], dict[str, tuple[float, ...]]], str] | None = None,
) -> Section:
    """A part of figures: runs each on the shared engine
    (:func:`~satcp.reproduce.experiment.run_experiment`, which writes its
    CSV and PNG), and returns the part's section with each figure's
    throughput table, then ``after(lookups, grids)`` (prose read from the
    runs) if given, and the claims ``claims(lookups, grids)`` (by figure
    number)."""
    done = [run_experiment(f.experiment(quick), out, workers) for f in figures]
    res = {f.fig: results(d.rows) for f, d in zip(figures, done, strict=True)}
    seeds = len(SEEDS_QUICK if quick else SEEDS)
    md = [f"## {title}", "", intro, ""]
    for f in figures:
        md += f.markdown(res[f.fig], quick, seeds)
    lookups = {f.fig: Lookup(res[f.fig], {s.id: s.name for s in f.series}) for f in figures}
    grids = {f.fig: f.grid(quick) for f in figures}
    if after is not None:
        md += [after(lookups, grids), ""]
    return Section(
        title,
        "\n".join(md),
        claims(lookups, grids),
        [name for d in done for name in d.files],
        sum(d.runs for d in done),
    )

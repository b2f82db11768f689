"""The figures of the ADaLR reproduction, in the shared style of
:mod:`satcp.reproduce.plotstyle` (matplotlib's object API on the Agg canvas:
no pyplot state, safe in threads).

- :func:`plot_lines`: one thesis-style line figure (:class:`Line`,
  :data:`SERIES_STYLE`);
- :func:`figure_set`, :func:`time_series_figures`: a figure per quantity,
  named after the thesis figures (``fig7_NN_<stem>.png``).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from ..plotstyle import (
    DEFAULT_STYLE,
    Style,
    draw_series,
    grid_and_legend,
    new_figure,
    save_png,
    series_styles,
    wrap_title,
)
from .measures import BIN_S

#: Line styles of the thesis figures' series: (color, linestyle, marker).
SERIES_STYLE: dict[str, Style] = series_styles(
    """
    adalr-nodelack  tab:red     -   o
    adalr-delack    tab:blue    -   s
    tcp-nodelack    tab:green   --  ^
    tcp-delack      black       --  v
    adalr-sack      tab:red     -   o
    adalr-newreno   tab:orange  :   s
    sack            tab:blue    --  ^
    newreno         black       -.  v
    """
)


@dataclass
class Line:
    label: str
    x: Sequence[float]
    y: Sequence[float]
    style: str = ""  # a SERIES_STYLE key
    markers: bool = False
    extra: dict[str, Any] = field(default_factory=dict)


def plot_lines(
    path: str | os.PathLike[str],
    title: str,
    xlabel: str,
    ylabel: str,
    lines: Sequence[Line],
    *,
    dpi: int = 100,
    ylim: tuple[float, float] | None = None,
    xlog: bool = False,
) -> Path:
    """Draws one thesis-style figure (white background, grid, legend inside)
    and writes it as PNG."""
    fig = new_figure((7.5, 4.8))
    ax = fig.add_subplot()
    for ln in lines:
        style = SERIES_STYLE.get(ln.style, DEFAULT_STYLE)
        draw_series(ax, ln.x, ln.y, ln.label, style, markers=ln.markers, **ln.extra)
    ax.set_title(wrap_title(title, 90), fontsize=10)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if xlog:
        ax.set_xscale("log")
    if ylim is not None:
        ax.set_ylim(*ylim)
    else:
        ax.set_ylim(bottom=0)
    ax.set_xlim(left=0 if not xlog else None)
    grid_and_legend(ax)
    return save_png(fig, path, dpi)


@dataclass(frozen=True)
class FigureKind:
    """One quantity of a set of figures."""

    column: str  # a rate_series column or an FtpRun attribute
    ylabel: str
    scale: float  # the plotted value is the column's times this
    stem: str  # file name: fig7_NN_<stem>.png
    title: str


#: Satellite link throughput (b/s), in time and over file sizes.
LINK_THROUGHPUT = FigureKind(
    "link_bps",
    "Satellite link throughput (b/s)",
    1.0,
    "link_throughput",
    "Satellite link throughput",
)
#: The four quantities of the thesis's time-series figures (Figs. 7.4-7.15,
#: 7.20-7.27), columns of :func:`satcp.reproduce.adalr.measures.rate_series`.
TIME_SERIES_KINDS = (
    FigureKind("seq_bytes", "Received segment sequence number (bytes)", 1.0, "goodput", "Goodput"),
    FigureKind("tcp_Bps", "TCP throughput (bytes/s)", 1.0, "tcp_throughput", "TCP throughput"),
    LINK_THROUGHPUT,
    FigureKind(
        "util_pct", "Utilization (%)", 1.0, "link_utilization", "Satellite link utilization"
    ),
)


def figure_set(
    out: Path,
    numbers: Sequence[int],
    kinds: Sequence[FigureKind],
    lines: Callable[[FigureKind], list[Line]],
    title_tail: str,
    xlabel: str,
    dpi: int,
    suffix: str = "",
) -> list[str]:
    """One :func:`plot_lines` figure per kind, thesis Fig. 7.``numbers[i]``,
    titled "Fig. 7.NN (satcp): <kind's title><title_tail>"; utilization on a
    0-100% axis. Returns the file names, ``fig7_NN_<stem><suffix>.png``."""
    names = []
    for figno, kind in zip(numbers, kinds, strict=True):
        name = f"fig7_{figno:02d}_{kind.stem}{suffix}.png"
        plot_lines(
            out / name,
            f"Fig. 7.{figno} (satcp): {kind.title}{title_tail}",
            xlabel,
            kind.ylabel,
            lines(kind),
            dpi=dpi,
            ylim=(0, 100) if kind.column == "util_pct" else None,
        )
        names.append(name)
    return names


def extend_series(ser: pd.DataFrame, until: float, bin_s: float = BIN_S) -> pd.DataFrame:
    """The series continued after the run's end until ``until``: rates 0,
    the sequence number flat (as OPNET draws a finished transfer)."""
    if ser.empty:
        return ser
    last = float(ser["time_s"].iloc[-1])
    extra = []
    t = last + bin_s
    while t <= until + 1e-9:
        extra.append(
            {
                "time_s": t,
                "seq_bytes": ser["seq_bytes"].iloc[-1],
                "goodput_Bps": 0.0,
                "tcp_Bps": 0.0,
                "link_bps": 0.0,
                "util_pct": 0.0,
            }
        )
        t += bin_s
    if not extra:
        return ser
    return pd.concat([ser, pd.DataFrame(extra)], ignore_index=True)


def time_series_figures(
    out: Path,
    figs: Sequence[int],
    what: str,
    series: Sequence[tuple[str, str, pd.DataFrame]],
    dpi: int = 100,
    suffix: str = "",
) -> list[str]:
    """Draws the four time-series figures (:data:`TIME_SERIES_KINDS`) of one
    scenario, as the thesis's Figs. 7.4-7.15 and 7.20-7.27: ``figs`` are
    their numbers, ``series`` are (:data:`SERIES_STYLE` key, label,
    ``rate_series`` frame), each drawn until the longest ends. Returns the
    file names, ``fig7_NN_<stem><suffix>.png``."""
    until = max((float(s["time_s"].iloc[-1]) for _, _, s in series if not s.empty), default=0)
    extended = [(key, label, extend_series(ser, until)) for key, label, ser in series]
    return figure_set(
        out,
        figs,
        TIME_SERIES_KINDS,
        lambda kind: [
            Line(label, ext["time_s"], ext[kind.column], style=key) for key, label, ext in extended
        ],
        f", {what}",
        "Simulation time (s)",
        dpi,
        suffix,
    )

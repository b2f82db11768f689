"""The figures' style, shared by the reproductions: matplotlib's object API
on the Agg canvas (no pyplot state, safe in threads), series drawn as
(color, linestyle, marker) with thin lines and small markers, a light grid,
the legend inside, PNG files.

- :func:`series_styles`: a table of series styles from its text;
- :func:`new_figure`: an empty figure that can be saved as PNG;
- :func:`draw_series`: one series on an axis;
- :func:`grid_and_legend`, :func:`wrap_title`, :func:`save_png`;
- :func:`plot`: a figure of stacked :class:`Panel` s of :class:`Series`, the
  series' styles looked up by name in a table.
"""

from __future__ import annotations

import os
import textwrap
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = [
    "DEFAULT_STYLE",
    "LINESTYLES",
    "PALETTE",
    "Panel",
    "Series",
    "Style",
    "byte_unit",
    "distinct_style",
    "draw_series",
    "grid_and_legend",
    "integer_ticks",
    "new_figure",
    "plot",
    "rate_unit",
    "save_png",
    "series_styles",
    "wrap_title",
]

#: (color, linestyle, marker) of a series; color None: matplotlib's cycle.
Style = tuple[str | None, str, str]
#: The style of a series whose key is not in its table.
DEFAULT_STYLE: Style = (None, "-", "o")


#: Distinct colours for a fixed list of series: matplotlib's ten "tab"
#: colours, then black (eleven variants in ``satcp compare``).
PALETTE = (
    "#1f77b4",
    "#ff7f0e",
    "#2ca02c",
    "#d62728",
    "#9467bd",
    "#8c564b",
    "#e377c2",
    "#7f7f7f",
    "#bcbd22",
    "#17becf",
    "#000000",
)
LINESTYLES = ("-", "--", "-.", ":")


def distinct_style(i: int) -> tuple[str, str]:
    """The (colour, linestyle) of series ``i`` of a fixed list (a
    registry's order): a colour of :data:`PALETTE`, solid, then the same
    colours dashed, and so on; no two of the first 44 alike."""
    return PALETTE[i % len(PALETTE)], LINESTYLES[(i // len(PALETTE)) % len(LINESTYLES)]


def rate_unit(largest: float) -> tuple[str, float]:
    """The unit to draw rates (b/s) up to ``largest`` in, and its size:
    Gb/s, Mb/s, kb/s or b/s (not b/s with a 1e7 offset)."""
    for unit, scale in (("Gb/s", 1e9), ("Mb/s", 1e6), ("kb/s", 1e3)):
        if largest >= scale:
            return unit, scale
    return "b/s", 1.0


def byte_unit(largest: float) -> tuple[str, float]:
    """The unit to draw byte counts up to ``largest`` in, and its size:
    GB, MB, kB (decimal) or bytes."""
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if largest >= scale:
            return unit, scale
    return "bytes", 1.0


def integer_ticks(axis: Any) -> None:
    """Whole-number ticks only on ``axis`` (``ax.xaxis``, ``ax.yaxis``): a
    count (connections, packets) has no 2.5."""
    from matplotlib.ticker import MaxNLocator

    axis.set_major_locator(MaxNLocator(integer=True))


def series_styles(table: str) -> dict[str, Style]:
    """Series styles from lines "key color linestyle marker"."""
    rows = (line.split() for line in table.strip().splitlines())
    return {key: (color, ls, marker) for key, color, ls, marker in rows}


def new_figure(figsize: tuple[float, float], dpi: float | None = None) -> Figure:
    """An empty figure on the Agg canvas (``dpi`` None: matplotlib's default)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=figsize, dpi=dpi)
    FigureCanvasAgg(fig)
    return fig


def draw_series(
    ax: Axes,
    x: Sequence[float],
    y: Sequence[float],
    label: str,
    style: Style,
    *,
    markers: bool = False,
    linewidth: float = 1.4,
    yerr: Sequence[float] | None = None,
    markersize: float = 5,
    capsize: float | None = None,
    **extra: Any,
) -> None:
    """One series: line of ``style``, its marker only with ``markers``;
    with ``yerr``, error bars (``capsize``: their caps)."""
    color, ls, marker = style
    line = {
        "label": label,
        "color": color,
        "linestyle": ls,
        "marker": marker if markers else None,
        "linewidth": linewidth,
        "markersize": markersize,
        **extra,
    }
    if yerr is None:
        ax.plot(x, y, **line)
    else:
        ax.errorbar(x, y, yerr=yerr, capsize=capsize, **line)


def grid_and_legend(ax: Axes, legend: bool = True, which: str = "major") -> None:
    ax.grid(True, which=which, alpha=0.3)
    if legend:
        ax.legend(fontsize=8, loc="best")


def wrap_title(title: str, width: int) -> str:
    return "\n".join(textwrap.wrap(title, width))


def save_png(
    fig: Figure, path: str | os.PathLike[str], dpi: int, caption: str | None = None
) -> Path:
    """Lays the figure out tightly and writes it as PNG (creating the
    parent directories); records it, with ``caption`` (default: its
    titles, :func:`satcp.manifest.caption_of`), in the run's list of
    outputs (:mod:`satcp.manifest`)."""
    from .. import manifest

    fig.tight_layout()
    # tight_layout leaves a placeholder layout engine behind, and savefig
    # then draws the whole figure once without rendering before drawing it
    # for real (so that a layout engine sees a renderer): a third of the
    # figures' time in `reproduce tcpr --quick` (cProfile), for a layout
    # already done. Without an engine savefig draws once, the same pixels.
    # (None would mean the rc's engine, so the rc is pinned to none.)
    import matplotlib

    with matplotlib.rc_context(
        {"figure.autolayout": False, "figure.constrained_layout.use": False}
    ):
        fig.set_layout_engine(None)
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(p, dpi=dpi)
    manifest.record_figure(p, caption if caption is not None else manifest.caption_of(fig, p))
    return p


@dataclass
class Series:
    """One line: its label, points and style (a name in the figure's style
    table)."""

    label: str
    x: Sequence[float]
    y: Sequence[float]
    style: str = ""
    markers: bool = False
    linewidth: float = 1.4
    drawstyle: str = "default"
    yerr: Sequence[float] | None = None  # error bars
    markersize: float = 5
    capsize: float | None = None


@dataclass
class Panel:
    xlabel: str
    ylabel: str
    series: Sequence[Series]
    xlog: bool = False
    ylim: tuple[float, float] | None = None
    xlim: tuple[float, float] | None = None
    #: Categorical x axis: the tick labels at x = 0, 1, 2, ...
    xticklabels: Sequence[str] | None = None
    xticks: Sequence[float] | None = None
    legend: bool = True
    hlines: Sequence[tuple[float, str]] = ()
    grid: str = "major"  # or "both" (a log axis' minor grid lines too)


def plot(
    path: str | os.PathLike[str],
    title: str,
    panels: Sequence[Panel],
    styles: Mapping[str, Style],
    *,
    dpi: int = 100,
    width: float = 7.0,
    height: float | None = None,
    title_width: int | None = 80,
    title_size: float = 10,
    figure_dpi: float | None = None,
) -> Path:
    """Draws one figure of stacked panels (like a paper's upper and bottom
    plots) and writes it as PNG: ``width`` x ``height`` inches (default
    3.4 per panel and 0.6 for the title), the title wrapped at
    ``title_width`` characters (None: as it is)."""
    fig = new_figure((width, height or 3.4 * len(panels) + 0.6), figure_dpi)
    axes = fig.subplots(len(panels), 1, squeeze=False)[:, 0]
    for ax, pn in zip(axes, panels, strict=True):
        for s in pn.series:
            style = styles.get(s.style, DEFAULT_STYLE)
            draw_series(
                ax,
                s.x,
                s.y,
                s.label,
                style,
                markers=s.markers,
                linewidth=s.linewidth,
                yerr=s.yerr,
                markersize=s.markersize,
                capsize=s.capsize,
                # (an error bar's line keeps matplotlib's default draw style)
                **({"drawstyle": s.drawstyle} if s.yerr is None else {}),
            )
        for y, label in pn.hlines:
            ax.axhline(y, color="gray", linewidth=0.8, linestyle=":", label=label or None)
        ax.set_xlabel(pn.xlabel)
        ax.set_ylabel(pn.ylabel)
        if pn.xlog:
            ax.set_xscale("log")
        if pn.xticklabels is not None:
            ax.set_xticks(range(len(pn.xticklabels)))
            ax.set_xticklabels(pn.xticklabels)
        if pn.xticks is not None:
            ax.set_xticks(pn.xticks)
        if pn.ylim is not None:
            ax.set_ylim(*pn.ylim)
        else:
            ax.set_ylim(bottom=0)
        if pn.xlim is not None:
            ax.set_xlim(*pn.xlim)
        grid_and_legend(ax, pn.legend and bool(pn.series or pn.hlines), pn.grid)
    axes[0].set_title(
        title if title_width is None else wrap_title(title, title_width), fontsize=title_size
    )
    return save_png(fig, path, dpi)

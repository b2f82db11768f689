"""Figures of the TCP-Peach reproduction drawn like the paper's, in the
shared style of :mod:`satcp.reproduce.plotstyle`: :class:`Series`,
:class:`Panel`, :func:`plot`."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from .. import plotstyle

__all__ = ["STYLE", "Panel", "Series", "plot"]

#: Series styles: (color, linestyle, marker). The paper draws TCP-Peach with
#: solid and TCP-Reno with dashed lines.
STYLE: dict[str, plotstyle.Style] = plotstyle.series_styles(
    """
    peach      tab:red     -   o
    reno       black       --  s
    iiw        tab:blue    :   ^
    faststart  tab:green   -.  v
    peach2     tab:orange  -   D
    reno2      tab:gray    --  x
    """
)


@dataclass
class Series:
    label: str
    x: Sequence[float]
    y: Sequence[float]
    style: str = ""
    markers: bool = False
    linewidth: float = 1.4
    drawstyle: str = "default"


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
    legend: bool = True
    hlines: Sequence[tuple[float, str]] = ()


def plot(
    path: str | os.PathLike[str],
    title: str,
    panels: Sequence[Panel],
    *,
    dpi: int = 100,
    width: float = 7.0,
    panel_height: float = 3.4,
) -> Path:
    """Draws one figure of stacked panels (like the paper's upper/bottom
    plots) and writes it as PNG."""
    fig = plotstyle.new_figure((width, panel_height * len(panels) + 0.6))
    axes = fig.subplots(len(panels), 1, squeeze=False)[:, 0]
    for ax, pn in zip(axes, panels, strict=True):
        for s in pn.series:
            style = STYLE.get(s.style, plotstyle.DEFAULT_STYLE)
            plotstyle.draw_series(
                ax,
                s.x,
                s.y,
                s.label,
                style,
                markers=s.markers,
                linewidth=s.linewidth,
                drawstyle=s.drawstyle,
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
        if pn.ylim is not None:
            ax.set_ylim(*pn.ylim)
        else:
            ax.set_ylim(bottom=0)
        if pn.xlim is not None:
            ax.set_xlim(*pn.xlim)
        plotstyle.grid_and_legend(ax, pn.legend and bool(pn.series or pn.hlines))
    axes[0].set_title(plotstyle.wrap_title(title, 80), fontsize=10)
    return plotstyle.save_png(fig, path, dpi)

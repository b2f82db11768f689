"""The figures' style, shared by the reproductions: matplotlib's object API
on the Agg canvas (no pyplot state, safe in threads), series drawn as
(color, linestyle, marker) with thin lines and small markers, a light grid,
the legend inside, PNG files.

- :func:`series_styles`: a table of series styles from its text;
- :func:`new_figure`: an empty figure that can be saved as PNG;
- :func:`draw_series`: one series on an axis;
- :func:`grid_and_legend`, :func:`wrap_title`, :func:`save_png`.
"""

from __future__ import annotations

import os
import textwrap
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = [
    "DEFAULT_STYLE",
    "Style",
    "draw_series",
    "grid_and_legend",
    "new_figure",
    "save_png",
    "series_styles",
    "wrap_title",
]

#: (color, linestyle, marker) of a series; color None: matplotlib's cycle.
Style = tuple[str | None, str, str]
#: The style of a series whose key is not in its table.
DEFAULT_STYLE: Style = (None, "-", "o")


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
    **extra: Any,
) -> None:
    """One series: line of ``style``, its marker only with ``markers``."""
    color, ls, marker = style
    ax.plot(
        x,
        y,
        label=label,
        color=color,
        linestyle=ls,
        marker=marker if markers else None,
        linewidth=linewidth,
        markersize=5,
        **extra,
    )


def grid_and_legend(ax: Axes, legend: bool = True) -> None:
    ax.grid(True, alpha=0.3)
    if legend:
        ax.legend(fontsize=8, loc="best")


def wrap_title(title: str, width: int) -> str:
    return "\n".join(textwrap.wrap(title, width))


def save_png(fig: Figure, path: str | os.PathLike[str], dpi: int) -> Path:
    """Lays the figure out tightly and writes it as PNG (creating the
    parent directories)."""
    fig.tight_layout()
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(p, dpi=dpi)
    return p

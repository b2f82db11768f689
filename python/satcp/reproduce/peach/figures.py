"""Figures of the TCP-Peach reproduction drawn like the paper's, in the
shared style of :mod:`satcp.reproduce.plotstyle`: :class:`Series`,
:class:`Panel`, :func:`plot` with the paper's series styles."""

from __future__ import annotations

import functools

from .. import plotstyle
from ..plotstyle import Panel, Series

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

#: Draws one figure of stacked panels (:func:`satcp.reproduce.plotstyle.plot`).
plot = functools.partial(plotstyle.plot, styles=STYLE)

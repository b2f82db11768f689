"""Numbers, Markdown tables and CSV files of the ADaLR reproduction.

Every comparison with the thesis is a percentage difference,
(satcp - thesis) / thesis x 100 (:func:`diff_pct`); the thesis's own
improvements (Eqs. 7.2-7.3) are the same formula (:func:`improvement_pct`).
:func:`diff_pct`, :func:`markdown_table` and the CSV helpers are
:mod:`satcp.reproduce.tables`', shared with the other reproductions.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from ..claims import DEFAULT_TOLERANCE
from ..tables import csv_text as csv_text
from ..tables import diff_pct as diff_pct
from ..tables import is_nan as is_nan
from ..tables import markdown_table as markdown_table
from ..tables import write_text as write_text

#: A satcp number "matches" the thesis's within this many percent of it
#: (the reproductions' one default tolerance); differences beyond it are
#: explained in the report.
MATCH_PCT = DEFAULT_TOLERANCE.limit

#: The columns of every table's CSV file.
CSV_COLUMNS = (
    "experiment",
    "variant",
    "delayed_ack",
    "parameter",
    "metric",
    "satcp",
    "thesis",
    "diff_pct",
)
#: The header :func:`rows_csv` writes. Its ninth name, "extend_series", has
#: no field in the rows (a slip of the original code); it is kept so that
#: the files stay as they were.
ROWS_CSV_HEADER = (*CSV_COLUMNS, "extend_series")
#: CSV_COLUMNS with the 95% confidence interval of satcp's mean over seeds.
CI_CSV_COLUMNS = (*CSV_COLUMNS[:6], "satcp_ci95", *CSV_COLUMNS[6:])


# --- percentages -------------------------------------------------------------


def improvement_pct(metric: float, baseline: float) -> float:
    """Thesis Eq. 7.2-7.3: (metric_ADaLR - metric_TCP) / metric_TCP x 100.
    Negative for a shorter response time, positive for a higher rate."""
    return diff_pct(metric, baseline)


# --- text --------------------------------------------------------------------


def span(lo: float, hi: float, digits: int = 0) -> str:
    """'26' when both round alike, else '25-27'."""
    a, b = f"{lo:.{digits}f}", f"{hi:.{digits}f}"
    return a if a == b else f"{a}-{b}"


def fmt_pct(v: float, digits: int = 1, sign: bool = True) -> str:
    if is_nan(v):
        return "n/a"
    return f"{v:+.{digits}f}%" if sign else f"{v:.{digits}f}%"


def cell(satcp: float, thesis: float | None, digits: int = 1) -> str:
    """'419.7 (470.1, -10.7%)': satcp (thesis, diff)."""
    if is_nan(satcp):
        return "unfinished" + (f" ({thesis:g})" if thesis is not None else "")
    if thesis is None:
        return f"{satcp:.{digits}f}"
    return f"{satcp:.{digits}f} ({thesis:g}, {fmt_pct(diff_pct(satcp, thesis))})"


# --- CSV files ---------------------------------------------------------------


def csv_bool(v: bool | None) -> str:
    return "" if v is None else ("true" if v else "false")


@dataclass
class Row:
    """One CSV row (see :data:`CSV_COLUMNS`)."""

    experiment: str
    variant: str
    delayed_ack: bool | None
    parameter: str
    metric: str
    satcp: float
    thesis: float | None
    diff_pct: float | None = None

    def __post_init__(self) -> None:
        if self.diff_pct is None and self.thesis is not None:
            self.diff_pct = diff_pct(self.satcp, self.thesis)

    @property
    def flagged(self) -> bool:
        """The difference to the thesis is beyond :data:`MATCH_PCT`."""
        return (
            self.diff_pct is not None
            and not is_nan(self.diff_pct)
            and (abs(self.diff_pct) > MATCH_PCT)
        )


def rows_csv(rows: Iterable[Row]) -> str:
    return csv_text(
        ROWS_CSV_HEADER,
        (
            [
                r.experiment,
                r.variant,
                csv_bool(r.delayed_ack),
                r.parameter,
                r.metric,
                "" if is_nan(r.satcp) else f"{r.satcp:.6g}",
                "" if r.thesis is None else f"{r.thesis:g}",
                "" if is_nan(r.diff_pct) else f"{r.diff_pct:.2f}",
            ]
            for r in rows
        ),
    )


def write_rows(path: str | os.PathLike[str], rows: Iterable[Row]) -> Path:
    """Writes the rows as a CSV file (:func:`rows_csv`)."""
    return write_text(path, rows_csv(rows))

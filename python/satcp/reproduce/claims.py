"""A paper's claims beside satcp's numbers: one :class:`Claim` type, one
tolerance rule (:class:`Tolerance`) and one renderer (:func:`claims_table`
for the report, :func:`write_claims_csv` for ``claims.csv``).

A claim is a number the paper states (``paper``) or a statement without one
(``paper`` None, ``holds`` given), beside satcp's value computed the same
way. A number holds when satcp is within the claim's :class:`Tolerance` of
it (by default :data:`DEFAULT_TOLERANCE`, 15 % of the paper's value); a
claim whose criterion is not a plain distance ("at most", "about", an
ordering) gives ``holds`` itself and says the criterion in its statement.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .tables import is_nan, markdown_table, write_csv

__all__ = [
    "CLAIMS_CSV",
    "CLAIM_COLUMNS",
    "DEFAULT_TOLERANCE",
    "Claim",
    "Tolerance",
    "claims_table",
    "fmt",
    "write_claims_csv",
]

#: The file every reproduction with claims writes them into.
CLAIMS_CSV = "claims.csv"
#: Its columns.
CLAIM_COLUMNS = ("figure", "statement", "unit", "paper", "satcp", "diff_pct", "reproduced", "note")


@dataclass(frozen=True)
class Tolerance:
    """How far satcp may be from the paper's number for the claim to hold.

    ``measure`` "pct": |satcp - paper| / |paper| x 100 <= ``limit`` (a
    relative difference); "pts": |satcp - paper| <= ``limit`` in the
    claim's own unit (for numbers that are percentages already, such as a
    gain: 5 percentage points)."""

    limit: float = 15.0
    measure: str = "pct"

    def __post_init__(self) -> None:
        if self.measure not in ("pct", "pts"):
            raise ValueError(f"tolerance measure {self.measure!r}: must be 'pct' or 'pts'")
        if not self.limit >= 0:
            raise ValueError(f"tolerance limit {self.limit!r}: must be >= 0")

    def distance(self, paper: float, satcp: float) -> float:
        """satcp's distance to the paper in this tolerance's measure (NaN
        when a number is missing or a relative distance to 0)."""
        if is_nan(paper) or is_nan(satcp):
            return math.nan
        if self.measure == "pts":
            return abs(satcp - paper)
        return abs(satcp - paper) / abs(paper) * 100.0 if paper else math.nan

    def holds(self, paper: float, satcp: float) -> bool | None:
        """Within the tolerance; None when it cannot be decided."""
        d = self.distance(paper, satcp)
        return None if math.isnan(d) else d <= self.limit

    def describe(self) -> str:
        """'15 %', '5 percentage points'."""
        return f"{self.limit:g} %" if self.measure == "pct" else f"{self.limit:g} percentage points"


#: The tolerance of a paper's number unless a claim gives its own.
DEFAULT_TOLERANCE = Tolerance()


def fmt(v: float | None, digits: int = 1, unit: str = "") -> str:
    if is_nan(v):
        return "n/a"
    s = f"{v:.{digits}f}"
    return f"{s} {unit}".strip() if unit else s


@dataclass
class Claim:
    """A number the paper states (``paper``) or a statement without one
    (``paper`` None, ``holds`` given), beside satcp's value computed the
    same way. A number holds within ``tolerance``, or by ``holds`` when it
    is given (e.g. "at most", "about").

    ``figure`` is where the paper says it: "7" (a figure), "IV-A" (a
    section) or a place in full ("Table I", "Fig. 3")."""

    figure: str
    statement: str
    paper: float | None
    satcp: float | None
    unit: str = ""
    holds: bool | None = None
    note: str = ""
    digits: int = 2
    paper_text: str | None = None  # shown instead of the number
    tolerance: Tolerance = field(default=DEFAULT_TOLERANCE)

    @property
    def where(self) -> str:
        """'Fig. 7', 'Sec. IV-A', 'Fig. 3 / Eq. 1', 'Table I'."""
        f = self.figure
        if f[:1].isdigit():
            return "Fig. " + f
        return f if " " in f else "Sec. " + f

    @property
    def diff_pct(self) -> float:
        """(satcp - paper) / |paper| x 100, the column of the tables."""
        if self.paper is None or self.satcp is None or not self.paper:
            return math.nan
        if math.isnan(self.satcp):
            return math.nan
        return (self.satcp - self.paper) / abs(self.paper) * 100.0

    @property
    def reproduced(self) -> bool | None:
        if self.holds is not None:
            return self.holds
        if self.paper is None or self.satcp is None:
            return None
        return self.tolerance.holds(self.paper, self.satcp)

    @property
    def verdict(self) -> str:
        r = self.reproduced
        return "n/a" if r is None else ("yes" if r else "no")

    def value(self, v: float | None) -> str:
        return fmt(v, self.digits, self.unit)

    def paper_value(self) -> str:
        """The paper's number as the report shows it."""
        if self.paper_text:
            return self.paper_text
        return self.value(self.paper) if self.paper is not None else "(no number)"

    def row(self) -> dict[str, Any]:
        return {
            "figure": self.figure,
            "statement": self.statement,
            "unit": self.unit,
            "paper": "" if self.paper is None else f"{self.paper:g}",
            "satcp": "" if self.satcp is None or math.isnan(self.satcp) else f"{self.satcp:.6g}",
            "diff_pct": "" if math.isnan(self.diff_pct) else f"{self.diff_pct:.1f}",
            "reproduced": self.verdict,
            "note": self.note,
        }


def claims_table(claims: Sequence[Claim]) -> list[str]:
    """The report's Markdown table of claims."""
    rows = []
    for c in claims:
        d = math.nan if c.paper_text else c.diff_pct  # a bound or a rough value: no diff
        rows.append(
            [
                c.where,
                c.statement,
                c.paper_value(),
                c.value(c.satcp) if c.satcp is not None else "",
                "" if math.isnan(d) else f"{d:+.0f}%",
                c.verdict,
                c.note,
            ]
        )
    return markdown_table(
        ["Where", "The paper says", "paper", "satcp", "diff", "holds", "note"], rows, "llrrrll"
    )


def write_claims_csv(path: str | Path, claims: Iterable[Claim]) -> Path:
    """``claims.csv``: one row per claim (:data:`CLAIM_COLUMNS`)."""
    return write_csv(path, CLAIM_COLUMNS, [c.row() for c in claims])

"""Claims of the TCP-Peach reproduction: a number or statement of the paper
beside satcp's (:class:`Claim`, :func:`claims_table`), and :class:`Section`,
what each experiment module returns."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..tables import is_nan, markdown_table

__all__ = ["CLAIM_COLUMNS", "TOLERANCE_PCT", "Claim", "Section", "claims_table", "fmt"]

#: A number of the paper is "reproduced" when satcp is within this (percent).
TOLERANCE_PCT = 15.0


def fmt(v: float | None, digits: int = 1, unit: str = "") -> str:
    if is_nan(v):
        return "n/a"
    s = f"{v:.{digits}f}"
    return f"{s} {unit}".strip() if unit else s


@dataclass
class Claim:
    """A number the paper states (``paper``) or a statement without one
    (``paper`` None, ``holds`` given), beside satcp's value computed the
    same way. Numeric claims hold within :data:`TOLERANCE_PCT`, or by
    ``holds`` when it is given (e.g. "at most", "about")."""

    figure: str
    statement: str
    paper: float | None
    satcp: float | None
    unit: str = ""
    holds: bool | None = None
    note: str = ""
    digits: int = 2
    paper_text: str | None = None  # shown instead of the number

    @property
    def where(self) -> str:
        """'Fig. 7', 'Sec. IV-A', 'Fig. 3 / Eq. 1'."""
        return ("Fig. " if self.figure[:1].isdigit() else "Sec. ") + self.figure

    @property
    def diff_pct(self) -> float:
        if self.paper is None or self.satcp is None or not self.paper:
            return math.nan
        if math.isnan(self.satcp):
            return math.nan
        return (self.satcp - self.paper) / abs(self.paper) * 100.0

    @property
    def reproduced(self) -> bool | None:
        if self.holds is not None:
            return self.holds
        d = self.diff_pct
        if math.isnan(d):
            return None
        return abs(d) <= TOLERANCE_PCT

    @property
    def verdict(self) -> str:
        r = self.reproduced
        return "n/a" if r is None else ("yes" if r else "no")

    def value(self, v: float | None) -> str:
        return fmt(v, self.digits, self.unit)

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


CLAIM_COLUMNS = ("figure", "statement", "unit", "paper", "satcp", "diff_pct", "reproduced", "note")


def claims_table(claims: Sequence[Claim]) -> list[str]:
    rows = []
    for c in claims:
        paper = c.paper_text or (c.value(c.paper) if c.paper is not None else "(no number)")
        d = math.nan if c.paper_text else c.diff_pct  # a bound or a rough value: no diff
        rows.append(
            [
                c.where,
                c.statement,
                paper,
                c.value(c.satcp) if c.satcp is not None else "",
                "" if math.isnan(d) else f"{d:+.0f}%",
                c.verdict,
                c.note,
            ]
        )
    return markdown_table(
        ["Where", "The paper says", "paper", "satcp", "diff", "holds", "note"], rows, "llrrrll"
    )


@dataclass
class Section:
    """One experiment group: a Markdown body (starting with a ``##``
    heading), its claims, the files it wrote and how long it took."""

    title: str
    markdown: str
    claims: list[Claim] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    runs: int = 0
    seconds: float = 0.0

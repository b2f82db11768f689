"""A paper's claims beside satcp's numbers: one :class:`Claim` type, one
tolerance rule (:class:`Tolerance`) and one renderer (:func:`claims_table`
for the report, :func:`write_claims_csv` for ``claims.csv``,
:func:`write_claims_list` for ``claims_list.csv``, the audit list that
``tools/claims_doc.py`` turns into the claims tables of ``docs/*-claims.md``).

A claim is a number the paper states (``paper``) or a statement without one
(``paper`` None, ``holds`` given), beside satcp's value computed the same
way. A number holds when satcp is within the claim's :class:`Tolerance` of
it (by default :data:`DEFAULT_TOLERANCE`, 15 % of the paper's value); a
claim whose criterion is not a plain distance ("at most", "about", an
ordering) gives ``holds`` itself and says the criterion in its statement;
one tested over several points may say its verdict in words
(``verdict_text``, e.g. ADaLR's lossy statements over BER ranges).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .tables import diff_pct, is_nan, markdown_table, write_csv

__all__ = [
    "CHANGE_TOLERANCE",
    "CLAIMS_CSV",
    "CLAIMS_LIST_CSV",
    "CLAIM_COLUMNS",
    "CLAIM_LIST_COLUMNS",
    "DEFAULT_TOLERANCE",
    "Claim",
    "Tally",
    "Tolerance",
    "claims_table",
    "counted_as",
    "fmt",
    "tally",
    "write_claims_csv",
    "write_claims_list",
]

#: The file every reproduction with claims writes them into.
CLAIMS_CSV = "claims.csv"
#: Its columns.
CLAIM_COLUMNS = ("figure", "statement", "unit", "paper", "satcp", "diff_pct", "reproduced", "note")
#: The audit list every reproduction writes: every claim the overall count
#: counts (the summary's and the tables'), by part, as the report shows it.
CLAIMS_LIST_CSV = "claims_list.csv"
#: Its columns: ``counted`` is how :func:`tally` counts the row (held,
#: partly, failed, undecided).
CLAIM_LIST_COLUMNS = ("part", "where", "statement", "paper", "satcp", "verdict", "counted")


@dataclass(frozen=True)
class Tolerance:
    """How far satcp may be from the paper's number for the claim to hold.

    ``measure`` "pct": |satcp - paper| / |paper| x 100 <= ``limit`` (a
    relative difference); "pts": |satcp - paper| <= ``limit`` in the
    claim's own unit (for numbers that are percentages already, such as a
    gain: 5 percentage points); "change": both numbers are changes in
    percent, p = (m - m_ref) / m_ref x 100 (ADaLR thesis Eq. 7.2), compared
    as the ratios they state, (1 + p_satcp/100) / (1 + p_paper/100) - 1,
    so that the limit means what it means for plain values, and satcp's
    change must go the paper's way (:meth:`same_direction`: "~1 % shorter"
    does not hold for a time 4 % longer); "ratio": both
    numbers are ratios (n-fold), |satcp - paper| <= ``limit`` % of the
    stated gain |paper - 1| plus ``slack``, and satcp on the paper's side
    of 1 (so that "4 % more" and "three fold" are judged by the same
    rule)."""

    limit: float = 15.0
    measure: str = "pct"
    slack: float = 0.0  # "ratio": an absolute allowance added to the limit

    def __post_init__(self) -> None:
        if self.measure not in ("pct", "pts", "change", "ratio"):
            raise ValueError(
                f"tolerance measure {self.measure!r}: must be 'pct', 'pts', 'change' or 'ratio'"
            )
        if not self.limit >= 0:
            raise ValueError(f"tolerance limit {self.limit!r}: must be >= 0")
        if not self.slack >= 0:
            raise ValueError(f"tolerance slack {self.slack!r}: must be >= 0")

    def diff_pct(self, paper: float, satcp: float) -> float:
        """satcp's signed difference to the paper in percent, the tables'
        ``diff_pct``: of the stated ratio for "change", of the paper's value
        otherwise (NaN when a number is missing or the paper's is 0)."""
        if is_nan(paper) or is_nan(satcp):
            return math.nan
        if self.measure == "change":
            return diff_pct(1 + satcp / 100.0, 1 + paper / 100.0)
        return (satcp - paper) / abs(paper) * 100.0 if paper else math.nan

    def distance(self, paper: float, satcp: float) -> float:
        """satcp's distance to the paper in this tolerance's measure (NaN
        when a number is missing or a relative distance to 0)."""
        if is_nan(paper) or is_nan(satcp):
            return math.nan
        if self.measure in ("pts", "ratio"):
            return abs(satcp - paper)
        if self.measure == "change":
            return abs(self.diff_pct(paper, satcp))
        return abs(satcp - paper) / abs(paper) * 100.0 if paper else math.nan

    def same_direction(self, paper: float, satcp: float) -> bool:
        """For "change": satcp's change goes the paper's way (or is about
        nil); True for the other measures."""
        if self.measure != "change" or is_nan(satcp):
            return True
        return (satcp > 0) == (paper > 0) or abs(satcp) < 0.05

    def holds(self, paper: float, satcp: float) -> bool | None:
        """Within the tolerance; None when it cannot be decided."""
        d = self.distance(paper, satcp)
        if math.isnan(d):
            return None
        if self.measure == "ratio":
            near = d <= self.limit / 100.0 * abs(paper - 1.0) + self.slack
            return near and (satcp > 1.0) == (paper > 1.0)
        if self.measure == "change":  # "x % shorter" needs a shorter time, too
            return d <= self.limit and self.same_direction(paper, satcp)
        return d <= self.limit

    def describe(self) -> str:
        """'15 %', '5 percentage points', '15 % of the stated ratio',
        '15% of the improvement + 0.05'."""
        if self.measure == "pts":
            return f"{self.limit:g} percentage points"
        if self.measure == "ratio":
            return f"{self.limit:g}% of the improvement + {self.slack:g}"
        return f"{self.limit:g} %" + (" of the stated ratio" if self.measure == "change" else "")


#: The tolerance of a paper's number unless a claim gives its own.
DEFAULT_TOLERANCE = Tolerance()
#: The default tolerance for changes in percent (Eq. 7.2 improvements).
CHANGE_TOLERANCE = Tolerance(DEFAULT_TOLERANCE.limit, "change")


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
    implied: float | None = None  # what the paper's own tables give, where its text differs
    # The verdict in words, where a criterion over several points says more
    # than yes or no ("holds except ties within the 95% CI at 1e-6",
    # "direction holds, magnitude differs"); ``holds`` still decides.
    verdict_text: str = ""
    #: The names the data file gave the claim (its ``with`` and ``let``), for
    #: the files that list claims with more than claims.csv's columns.
    data: dict[str, Any] = field(default_factory=dict)

    @property
    def where(self) -> str:
        """'Fig. 7', 'Sec. IV-A', 'Fig. 3 / Eq. 1', 'Table I'."""
        f = self.figure
        if f[:1].isdigit():
            return "Fig. " + f
        return f if " " in f else "Sec. " + f

    @property
    def diff_pct(self) -> float:
        """(satcp - paper) / |paper| x 100 (for changes: of the stated
        ratios, :meth:`Tolerance.diff_pct`), the column of the tables."""
        if self.paper is None or self.satcp is None:
            return math.nan
        return self.tolerance.diff_pct(self.paper, self.satcp)

    @property
    def reproduced(self) -> bool | None:
        if self.holds is not None:
            return self.holds
        if self.paper is None or self.satcp is None:
            return None
        return self.tolerance.holds(self.paper, self.satcp)

    @property
    def verdict(self) -> str:
        """yes, no, n/a, or "direction only": a change outside the tolerance
        that goes the paper's way; ``verdict_text`` when given."""
        if self.verdict_text:
            return self.verdict_text
        r = self.reproduced
        if r is None:
            return "n/a"
        if r:
            return "yes"
        if (
            self.holds is None
            and self.tolerance.measure == "change"
            and self.tolerance.same_direction(self.paper, self.satcp)
        ):
            return "direction only"
        return "no"

    def value(self, v: float | None) -> str:
        if self.tolerance.measure == "change" and not is_nan(v):
            return f"{v:+.{self.digits}f}{self.unit}"
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
    """The report's Markdown table of claims (with a column of what the
    paper's own tables give when a claim has it)."""
    implied = any(c.implied is not None for c in claims)
    rows = []
    for c in claims:
        d = math.nan if c.paper_text else c.diff_pct  # a bound or a rough value: no diff
        row = [c.where, c.statement, c.paper_value()]
        if implied:
            row.append(c.value(c.implied) if c.implied is not None else "")
        row += [
            c.value(c.satcp) if c.satcp is not None else "",
            "" if math.isnan(d) else f"{d:+.0f}%",
            c.verdict,
            c.note,
        ]
        rows.append(row)
    head = ["Where", "The paper says", "paper", *(["paper's tables"] if implied else [])]
    return markdown_table(
        [*head, "satcp", "diff", "holds", "note"], rows, "llr" + "r" * implied + "rrll"
    )


def write_claims_csv(path: str | Path, claims: Iterable[Claim]) -> Path:
    """``claims.csv``: one row per claim (:data:`CLAIM_COLUMNS`)."""
    return write_csv(path, CLAIM_COLUMNS, [c.row() for c in claims])


def write_claims_list(path: str | Path, parts: Iterable[tuple[str, Iterable[Claim]]]) -> Path:
    """``claims_list.csv``: every claim of every part (``(title, claims)``
    pairs, the summary's and the tables' claims), with the paper's and
    satcp's values as the report prints them (:data:`CLAIM_LIST_COLUMNS`)."""
    rows = [
        {
            "part": title,
            "where": c.where,
            "statement": c.statement,
            "paper": c.paper_value(),
            "satcp": c.value(c.satcp) if c.satcp is not None else "",
            "verdict": c.verdict,
            "counted": counted_as(c),
        }
        for title, claims in parts
        for c in claims
    ]
    return write_csv(path, CLAIM_LIST_COLUMNS, rows)


@dataclass(frozen=True)
class Tally:
    """How many claims hold, hold in part, do not hold, and could not be
    decided: the overall count of a report (:func:`tally`)."""

    held: int = 0
    partly: int = 0
    failed: int = 0
    undecided: int = 0

    @property
    def total(self) -> int:
        return self.held + self.partly + self.failed + self.undecided

    def __str__(self) -> str:
        """'130 claims: 80 hold, 30 hold in part (direction only, or except
        statistical ties), 20 do not hold' (and those not decided)."""
        s = (
            f"{self.total} claims: {self.held} hold, {self.partly} hold in part "
            f"(direction only, or except statistical ties), {self.failed} do not hold"
        )
        return s + (f", {self.undecided} not decided" if self.undecided else "")

    def as_dict(self) -> dict[str, int]:
        return {
            "held": self.held,
            "partly": self.partly,
            "failed": self.failed,
            "undecided": self.undecided,
            "total": self.total,
        }


#: How the verdict of a claim held in part begins.
HELD_IN_PART_WORDS = ("direction", "holds except")


def is_partly(c: Claim) -> bool:
    """A claim that does not hold but holds in part: its change goes the
    paper's way ("direction only", "direction holds, magnitude differs") or
    it holds but for statistical ties ("holds except ties ...")."""
    return c.reproduced is False and c.verdict.startswith(HELD_IN_PART_WORDS)


def counted_as(c: Claim) -> str:
    """How :func:`tally` counts the claim: "held" (``reproduced``),
    "partly" (:func:`is_partly`), "failed", or "undecided" (``reproduced``
    None)."""
    r = c.reproduced
    if r is None:
        return "undecided"
    if r:
        v = c.verdict
        if v == "no" or v.startswith((*HELD_IN_PART_WORDS, "does not")):
            # the words and the count must agree: a claim whose verdict
            # reads "direction holds, magnitude differs" is not held
            raise ValueError(
                f"claim {c.where} {c.statement!r}: held, but its verdict reads {c.verdict!r}"
            )
        return "held"
    return "partly" if is_partly(c) else "failed"


def tally(claims: Iterable[Claim]) -> Tally:
    """The claims counted by :func:`counted_as`."""
    n = {"held": 0, "partly": 0, "failed": 0, "undecided": 0}
    for c in claims:
        n[counted_as(c)] += 1
    return Tally(n["held"], n["partly"], n["failed"], n["undecided"])

"""Thesis statements beside satcp's numbers.

- :class:`Claim`: a statement with a number (a percentage the thesis gives
  for a figure or table in its prose), beside satcp's number computed the
  same way, with a verdict;
- :func:`check`: a statement without a number (a trend, an ordering) and
  whether satcp shows it, as the reproductions' one claim type
  (:class:`satcp.reproduce.claims.Claim`);
- :func:`statements_markdown`: the three-column table (thesis says / satcp /
  verdict) of the lossy and fairness sections;
- :data:`CLAIMS_BEGIN` / :data:`CLAIMS_END`: a section puts its one-line
  findings between these two comment lines (:func:`findings_block`); the
  report's summary (:mod:`satcp.reproduce.adalr`) collects them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .. import claims as shared
from .tables import MATCH_PCT, Row, claim_diff_pct, fmt_pct, is_nan, markdown_table

CLAIMS_BEGIN = "<!-- claims:begin -->"
CLAIMS_END = "<!-- claims:end -->"


def findings_block(findings: Iterable[str]) -> list[str]:
    """The findings as Markdown list items between the claims markers."""
    return [CLAIMS_BEGIN, *[f"- {f}" for f in findings], CLAIMS_END]


@dataclass
class Claim:
    """A thesis statement with a number, beside satcp's number computed the
    same way. ``kind`` is "change" (an Eq. 7.2 percentage) or "level"."""

    experiment: str  # e.g. "fig7.4"
    source: str  # e.g. "Fig. 7.4 caption"
    statement: str  # the thesis's words, shortened
    metric: str  # how both numbers are computed
    thesis: float
    satcp: float
    kind: str = "change"
    variant: str = ""
    delayed_ack: bool | None = None
    parameter: str = ""
    implied: float | None = None  # what the thesis's own tables give
    note: str = ""
    unit: str = "%"

    @property
    def diff_pct(self) -> float:
        return claim_diff_pct(self.satcp, self.thesis, self.kind)

    @property
    def same_direction(self) -> bool:
        if self.kind != "change" or is_nan(self.satcp):
            return True
        return (self.satcp > 0) == (self.thesis > 0) or abs(self.satcp) < 0.05

    @property
    def verdict(self) -> str:
        d = self.diff_pct
        if is_nan(d):
            return "n/a"
        if abs(d) <= MATCH_PCT:
            return "yes"
        return "direction only" if self.same_direction and self.kind == "change" else "no"

    def row(self) -> Row:
        return Row(
            self.experiment,
            self.variant,
            self.delayed_ack,
            self.parameter,
            self.metric,
            self.satcp,
            self.thesis,
            self.diff_pct,
        )

    def value(self, v: float | None) -> str:
        if v is None or is_nan(v):
            return "n/a"
        if self.unit == "%":
            return fmt_pct(v, sign=self.kind == "change")
        return f"{v:.3g} {self.unit}".strip()


#: A thesis statement without a number (a trend, an ordering): the
#: reproductions' one claim type (:class:`satcp.reproduce.claims.Claim`) with
#: no numbers and ``holds`` given.
Check = shared.Claim


def check(source: str, statement: str, holds: bool, evidence: str, parameter: str = "") -> Check:
    """A statement without a number and whether satcp shows it, with the
    numbers that decide (``evidence``)."""
    return shared.Claim(
        source, _with_parameter(statement, parameter), None, None, holds=bool(holds), note=evidence
    )


def _with_parameter(statement: str, parameter: str) -> str:
    return statement + (f" ({parameter})" if parameter else "")


def checks_markdown(checks: Sequence[Check]) -> list[str]:
    """The table of statements (the reproductions' one claims table)."""
    return shared.claims_table(checks)


def claims_markdown(claims: Sequence[Claim]) -> list[str]:
    """A Markdown table of claims: source, statement, thesis, the thesis's
    own tables, satcp, difference, verdict."""
    return markdown_table(
        ["Source", "Thesis statement", "thesis", "thesis tables", "satcp", "diff", "reproduced"],
        [
            [
                c.source,
                _with_parameter(c.statement, c.parameter),
                c.value(c.thesis),
                c.value(c.implied) if c.implied is not None else "",
                c.value(c.satcp),
                fmt_pct(c.diff_pct),
                c.verdict,
            ]
            for c in claims
        ],
        "llrrrrl",
    )


def quoted(text: str) -> str:
    return f"\u201c{text}\u201d"


def statements_markdown(rows: Iterable[tuple[str, str, str]]) -> list[str]:
    """A table of (the thesis's words, see :func:`quoted`; satcp's numbers;
    verdict)."""
    return markdown_table(["thesis says", "satcp, computed the same way", "verdict"], rows, "lll")

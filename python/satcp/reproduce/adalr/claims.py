"""Thesis statements beside satcp's numbers.

- :class:`Claim`: a statement with a number (a percentage the thesis gives
  for a figure or table in its prose), beside satcp's number computed the
  same way, with a verdict;
- :func:`check`: a statement without a number (a trend, an ordering) and
  whether satcp shows it, as the reproductions' one claim type
  (:class:`satcp.reproduce.claims.Claim`);
- :data:`CLAIMS_BEGIN` / :data:`CLAIMS_END`: a section puts its one-line
  findings between these two comment lines (:func:`findings_block`); the
  report's summary (:mod:`satcp.reproduce.adalr`) collects them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .. import claims as shared
from ..claims import DEFAULT_TOLERANCE
from .tables import Row

CLAIMS_BEGIN = "<!-- claims:begin -->"
CLAIMS_END = "<!-- claims:end -->"


def findings_block(findings: Iterable[str]) -> list[str]:
    """The findings as Markdown list items between the claims markers."""
    return [CLAIMS_BEGIN, *[f"- {f}" for f in findings], CLAIMS_END]


@dataclass(kw_only=True)
class Claim(shared.Claim):
    """A thesis statement with a number, beside satcp's number computed the
    same way: the reproductions' one claim (its tolerance rule, verdict and
    table), with the columns of the thesis tables' CSV files (experiment,
    variant, delayed ACK, parameter, metric; :meth:`thesis_row`).

    Built as ``Claim(experiment=..., source=..., statement=..., metric=...,
    thesis=..., satcp=..., kind="change"|"level", ...)``: ``kind`` "change"
    is an Eq. 7.2 percentage (:data:`~satcp.reproduce.claims.CHANGE_TOLERANCE`),
    "level" a plain value (the default tolerance)."""

    figure: str = ""
    statement: str = ""
    paper: float | None = None
    satcp: float | None = None
    unit: str = "%"
    digits: int = 1
    experiment: str = ""  # e.g. "fig7.4"
    metric: str = ""  # how both numbers are computed
    variant: str = ""
    delayed_ack: bool | None = None
    parameter: str = ""

    def __init__(
        self,
        *,
        experiment: str,
        source: str,
        statement: str,
        metric: str,
        thesis: float,
        satcp: float,
        kind: str = "change",
        variant: str = "",
        delayed_ack: bool | None = None,
        parameter: str = "",
        implied: float | None = None,
        note: str = "",
        unit: str = "%",
    ) -> None:
        if kind not in ("change", "level"):
            raise ValueError(f"claim kind {kind!r}: must be 'change' or 'level'")
        shown = statement + (f" ({parameter})" if parameter else "")
        super().__init__(
            figure=source,
            statement=shown,
            paper=thesis,
            satcp=satcp,
            unit=unit,
            note=note,
            digits=1,
            tolerance=shared.CHANGE_TOLERANCE if kind == "change" else DEFAULT_TOLERANCE,
            implied=implied,
        )
        self.experiment = experiment
        self.metric = metric
        self.variant = variant
        self.delayed_ack = delayed_ack
        self.parameter = parameter

    # the thesis's names
    @property
    def source(self) -> str:
        return self.figure

    @property
    def thesis(self) -> float:
        return self.paper

    @property
    def kind(self) -> str:
        return "change" if self.tolerance.measure == "change" else "level"

    def thesis_row(self) -> Row:
        """The claim as a row of the thesis tables' CSV files."""
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
    """The table of claims (the reproductions' one claims table, with the
    thesis's own tables beside its text)."""
    return shared.claims_table(claims)


def quoted(text: str) -> str:
    return f"\u201c{text}\u201d"

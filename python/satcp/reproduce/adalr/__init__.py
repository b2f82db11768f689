"""``satcp reproduce adalr``: the TCP-ADaLR thesis experiments.

The thesis (M. Omueti, TCP with adaptive delay and loss response, SFU;
shared/papers/000_...) and its OPNET paper (shared/papers/003_...) are
reproduced in parts, each a module of this package with

    reproduce(out: pathlib.Path, workers: int | None, quick: bool) -> str

that writes its CSV/PNG files into ``out`` and returns a Markdown section:

- :mod:`.ideal`: Table 5.1, Tables 7.5-7.8, Figs. 7.4-7.19;
- :mod:`.congestion`: Tables 7.9-7.10, Figs. 7.20-7.27;
- :mod:`.lossy`: error losses only, congestion and error losses
  (Figs. 7.28-7.51; with :mod:`.lossy_runs`, :mod:`.lossy_claims`,
  :mod:`.lossy_evidence`);
- :mod:`.fairness`: fairness and friendliness (Tables 7.11-7.15).

Shared by the parts: :mod:`.scenarios` (the thesis networks, the variants,
running), :mod:`.measures` (what is read from a run), :mod:`.thesis_values`
(the thesis's numbers), :mod:`.tables` (percentages, Markdown and CSV),
:mod:`.claims` (statements beside satcp's numbers), :mod:`.stats` (means,
confidence intervals, fairness indices) and :mod:`.plots` (figures).

The parts run on the engine of :mod:`satcp.reproduce.experiment`: a part
whose module does not exist is an error; everything, ``report.md``
included, is written into a temporary directory and then moved into the
output directory, so a failing part leaves it as it was.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import replace
from types import ModuleType

from .. import _legacy as experiment
from .._legacy import REPORT as REPORT
from .._legacy import PartResult, Report, Reproduction
from .claims import CLAIMS_BEGIN, CLAIMS_END

DEFAULT_OUT = os.path.join("reports", "adalr")

#: (module in this package, what it covers)
PARTS: tuple[tuple[str, str], ...] = (
    ("ideal", "Ideal channel: Table 5.1, Tables 7.5-7.8, Figs. 7.4-7.19"),
    ("congestion", "Congestion losses only: Tables 7.9-7.10, Figs. 7.20-7.27"),
    ("lossy", "Error losses only, and congestion with error losses (Secs. 7.5.3-7.5.4)"),
    ("fairness", "Fairness and friendliness (Sec. 7.5.5)"),
)

#: A part that ran (the old name of the engine's PartResult here).
Section = PartResult


def load_part(name: str) -> ModuleType:
    """The part's module; :class:`satcp.reproduce.experiment.MissingPart` if
    it does not exist or has no ``reproduce``."""
    return experiment.load_part(__name__, name)


def reproduce(
    out_dir: str | os.PathLike[str] = DEFAULT_OUT,
    workers: int | None = None,
    quick: bool = False,
    parts: Sequence[tuple[str, str]] = PARTS,
) -> Report:
    """Runs every part and writes their files and ``report.md`` into
    ``out_dir``, all or nothing."""
    return experiment.run(
        REPRODUCTION, out_dir, workers, quick, parts, load=lambda name: load_part(name)
    )


def _split_claims(markdown: str) -> tuple[list[str], str]:
    """The findings a section put as list items between CLAIMS_BEGIN and
    CLAIMS_END (the summary shows them), and the section with that block
    replaced by a pointer to the summary."""
    block: list[str] = []
    rest: list[str] = []
    inside = False
    for line in markdown.splitlines():
        if line.strip() == CLAIMS_BEGIN:
            inside = True
            rest.append("(Findings: see the summary at the top.)")
        elif line.strip() == CLAIMS_END:
            inside = False
        elif not inside:
            rest.append(line)
        elif line.strip():
            block.append(line.removeprefix("- "))
    return block, "\n".join(rest)


def _with_findings(p: PartResult) -> PartResult:
    """The part with its findings taken out of its Markdown into
    :attr:`Section.findings <satcp.reproduce.experiment.Section.findings>`."""
    findings, rest = _split_claims(p.section.markdown)
    section = replace(p.section, markdown=rest, findings=[*p.section.findings, *findings])
    return PartResult(p.module, p.covers, section)


def render(sections: Sequence[PartResult], quick: bool, seconds: float = 0.0) -> str:
    md = [
        "# satcp vs the TCP-ADaLR thesis",
        "",
        "M. Omueti, TCP with adaptive delay and loss response (TCP-ADaLR) for broadband GEO "
        "satellite networks, M.A.Sc. thesis, Simon Fraser University (shared/papers/000_...), "
        "Chapters 5 and 7, and its OPNET paper (shared/papers/003_...). Every number below is "
        "computed by satcp from scratch beside the thesis's value; where they differ by more "
        "than 15% the section says why. The thesis's readings that satcp had to choose are in "
        "docs/adalr.md and docs/model.md.",
        "",
        "## How to rerun",
        "",
        "```sh",
        "make setup && . .venv/bin/activate",
        "satcp reproduce adalr --out reports/adalr        # everything (--workers N: threads)",
        "satcp reproduce adalr --quick --out /tmp/adalr   # reduced set, for tests",
        "```",
        "",
        "Each table is also a CSV file (experiment, variant, delayed_ack, parameter, metric, "
        "satcp, thesis, diff_pct; diff = (satcp - thesis) / thesis); figures are PNG files "
        "named after the thesis figures (`fig7_NN_...png`).",
        "",
    ]
    if quick:
        md += [
            "**This is a --quick run**: fewer points (RTTs, file sizes) than the full "
            "reproduction; do not quote it.",
            "",
        ]
    md += ["## Summary: thesis claims vs satcp", ""]
    md += experiment.sections_markdown([_with_findings(s) for s in sections], seconds)
    return "\n".join(md).rstrip("\n") + "\n"


REPRODUCTION = Reproduction(
    "adalr",
    __name__,
    tuple(experiment.Part(*p) for p in PARTS),
    render,
    DEFAULT_OUT,
    claims_csv=False,  # the claims are in each part's CSV files (claims_ideal.csv, ...)
)

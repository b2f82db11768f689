"""``satcp reproduce baseline``: the baseline rows of the TCP-ADaLR thesis,
ideal lossless channel (Tables 7.5 and 7.8, TCP SACK and NewReno, delayed
ACK enabled and disabled: 8 runs), beside the rwnd/RTT bound, as data
(``paper.toml``, the template ``report.md``; the format:
docs/reproductions.md), run by the reproductions' engine
(:mod:`satcp.reproduce.paper_run`). It writes ``baseline.md`` and
``baseline.csv``.

The runs read the shipped scenario files (first found wins, see
:func:`satcp.reproduce.paper_run.scenario_path`): from the directory in
``SATCP_SCENARIOS``; from ``scenarios/`` of the source checkout; from the
copies shipped as package data in ``satcp/scenarios/`` (an installed
wheel; ``tests/python/test_reproduce.py`` checks that they equal the
checkout's: after editing ``scenarios/thesis_*.toml`` copy them,
``cp scenarios/thesis_*.toml python/satcp/scenarios/``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from .. import paper_run
from ..experiment import Report

__all__ = ["DEFAULT_OUT", "PAPER", "REPRODUCTION", "Tables", "reproduce"]

PAPER = paper_run.read(__name__)
REPRODUCTION = paper_run.reproduction(PAPER, __name__)
DEFAULT_OUT = REPRODUCTION.out


@dataclass
class Tables:
    """What ``satcp reproduce baseline`` shows: the text of ``baseline.md``
    (the command prints it whole, not a summary of claims) and the files
    written; ``report`` is the engine's."""

    markdown: str
    paths: list[str]
    report: Report


def reproduce(
    out_dir: str | os.PathLike[str] | None = DEFAULT_OUT, workers: int | None = None
) -> Tables:
    """Runs the 8 scenarios and writes ``baseline.md`` and ``baseline.csv``
    into ``out_dir``, all or nothing."""
    report = REPRODUCTION.reproduce(out_dir, workers)
    return Tables(report.markdown, report.paths, report)

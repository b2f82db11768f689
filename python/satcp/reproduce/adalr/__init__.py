"""``satcp reproduce adalr``: the TCP-ADaLR thesis experiments (M. Omueti,
SFU; shared/papers/000_..., Chapters 5 and 7, and its OPNET paper,
shared/papers/003_...) as data (``paper.toml``: the ideal channel, the
congestion losses, the link errors and the fairness of Chapter 7 as
experiments over the thesis networks of :func:`satcp.topology.thesis_network`
and :func:`satcp.topology.thesis_fairness`; what needs more than a formula
in :mod:`.functions`; the report's template ``report.md``; the format:
docs/reproductions.md; the readings: docs/adalr.md), run by the
reproductions' engine (:mod:`satcp.reproduce.paper_run`)."""

from __future__ import annotations

from .. import paper_run

__all__ = ["DEFAULT_OUT", "PAPER", "REPRODUCTION", "reproduce"]

PAPER = paper_run.read(__name__)
REPRODUCTION = paper_run.reproduction(PAPER, __name__)
DEFAULT_OUT = REPRODUCTION.out

#: Runs every part and writes their files and ``report.md`` into
#: ``out_dir`` (default ``DEFAULT_OUT``), all or nothing.
reproduce = REPRODUCTION.reproduce

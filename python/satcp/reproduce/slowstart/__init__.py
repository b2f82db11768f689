"""``satcp reproduce slowstart``: the experiments of M. Marchese's paper on a
modified TCP slow start over a GEO satellite test-bed, as data
(``paper.toml``, the report's template ``report.md``; the format:
docs/reproductions.md; the readings: docs/slowstart.md), run by the
reproductions' engine (:mod:`satcp.reproduce.paper_run`)."""

from __future__ import annotations

from .. import paper_run

__all__ = ["DEFAULT_OUT", "PAPER", "REPRODUCTION", "reproduce"]

PAPER = paper_run.read(__name__)
REPRODUCTION = paper_run.reproduction(PAPER, __name__)
DEFAULT_OUT = REPRODUCTION.out

#: Runs every part and writes their files, ``claims.csv`` and ``report.md``
#: into ``out_dir`` (default ``DEFAULT_OUT``), all or nothing.
reproduce = REPRODUCTION.reproduce

"""``satcp reproduce kuhn2013``: the headline of N. Kuhn, H.-C. Bui, J.
Lacan, J. Radzik, E. Lochin, "On the trade-off between spectrum efficiency
with dedicated access and short end-to-end transmission delays with random
access in DVB-RCS2" (ACM LCDNet 2013; arXiv:1301.5931), as data
(``paper.toml``, the report's template ``report.md``; the format:
docs/reproductions.md; the model and the readings:
docs/satellite-access.md), run by the reproductions' engine
(:mod:`satcp.reproduce.paper_run`)."""

from __future__ import annotations

from .. import paper_run

__all__ = ["DEFAULT_OUT", "PAPER", "REPRODUCTION", "reproduce"]

PAPER = paper_run.read(__name__)
REPRODUCTION = paper_run.reproduction(PAPER, __name__)
DEFAULT_OUT = REPRODUCTION.out

#: Runs every part and writes their files, ``claims.csv`` and ``report.md``
#: into ``out_dir`` (default ``DEFAULT_OUT``), all or nothing.
reproduce = REPRODUCTION.reproduce

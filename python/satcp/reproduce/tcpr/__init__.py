"""``satcp reproduce tcpr``: the experiments of A. Sathiaseelan's "TCP-R
with EPDN" (IJCNS 2009; shared/papers/002_..., Secs. 3-4, Figs. 2-11), as
data (``paper.toml``: each figure an experiment over the Sec. 3 network of
:func:`satcp.topology.tcpr_network`, its claims by the rules the paper's
words are checked with; the report's template ``report.md``; the format:
docs/reproductions.md; the readings: docs/tcpr.md, "Reproduction"), run by
the reproductions' engine (:mod:`satcp.reproduce.paper_run`)."""

from __future__ import annotations

from .. import paper_run

__all__ = ["DEFAULT_OUT", "PAPER", "REPRODUCTION", "reproduce"]

PAPER = paper_run.read(__name__)
REPRODUCTION = paper_run.reproduction(PAPER, __name__)
DEFAULT_OUT = REPRODUCTION.out

#: Runs every part and writes their files, ``claims.csv`` and ``report.md``
#: into ``out_dir`` (default ``DEFAULT_OUT``), all or nothing.
reproduce = REPRODUCTION.reproduce

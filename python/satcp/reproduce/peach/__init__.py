"""``satcp reproduce peach``: the experiments of "TCP-Peach: A New
Congestion Control Scheme for Satellite IP Networks" (Akyildiz, Morabito,
Palazzo, IEEE/ACM Trans. Networking 9(3), 2001; shared/papers/001_...),
Secs. III-V, Figs. 3-20, as data (``paper.toml``: each figure's runs an
experiment over the Sec. V networks of :func:`satcp.topology.peach_sec5`
and :func:`satcp.topology.peach_hetero`; what needs more than a formula in
:mod:`.functions`; the report's template ``report.md``; the format:
docs/reproductions.md; the readings: docs/peach.md), run by the
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

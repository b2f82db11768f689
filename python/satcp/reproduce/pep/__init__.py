"""``satcp reproduce pep``: end-to-end TCP against a split-connection
proxy at the gateway (RFC 3135, as PEPsal) on a GEO path, for downloads
from 10 kB to 100 MB, with the claims of the literature beside satcp's
numbers, as data (``paper.toml``, the report's template ``report.md``; the
format: docs/reproductions.md; the model and readings:
docs/satellite-access.md, "Performance-enhancing proxies"), run by the
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

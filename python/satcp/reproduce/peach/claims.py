"""The old home of the reproductions' claims, kept as aliases for the
reproductions that import from here: the one :class:`Claim`, its tolerance
and renderer are :mod:`satcp.reproduce.claims`', :class:`Section` is the
engine's (:mod:`satcp.reproduce.experiment`)."""

from __future__ import annotations

from .._legacy import Section
from ..claims import CLAIM_COLUMNS, DEFAULT_TOLERANCE, Claim, claims_table, fmt

__all__ = ["CLAIM_COLUMNS", "TOLERANCE_PCT", "Claim", "Section", "claims_table", "fmt"]

#: The default tolerance's limit (:data:`satcp.reproduce.claims.DEFAULT_TOLERANCE`).
TOLERANCE_PCT = DEFAULT_TOLERANCE.limit

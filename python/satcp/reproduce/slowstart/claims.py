"""The claims of the slow-start reproduction: the reproductions' one
:class:`Claim` (:mod:`satcp.reproduce.claims`, the place given in full:
"Table I", "Fig. 3") with this paper's tolerances: gains within 5
percentage points (:data:`GAIN_TOLERANCE`), times within 10 %
(:data:`TIME_TOLERANCE`)."""

from __future__ import annotations

from ..claims import CLAIM_COLUMNS, Claim, Tolerance, claims_table, fmt
from ..experiment import Section

__all__ = [
    "CLAIM_COLUMNS",
    "GAIN_TOLERANCE",
    "TIME_TOLERANCE",
    "Claim",
    "Section",
    "claims_table",
    "fmt",
]

#: A gain (a percentage already) holds within 5 percentage points.
GAIN_TOLERANCE = Tolerance(5.0, "pts")
#: A transfer time holds within 10 % of the paper's.
TIME_TOLERANCE = Tolerance(10.0, "pct")

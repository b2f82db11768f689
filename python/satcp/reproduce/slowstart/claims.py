"""The claims of the slow-start reproduction: TCP-Peach's :class:`Claim`
(:mod:`satcp.reproduce.peach.claims`) with the place given in full
("Table I", "Fig. 3"). Every claim here states whether it holds
(``holds``): gains within 5 percentage points, times within 10 %."""

from __future__ import annotations

from ..peach import claims as _peach
from ..peach.claims import CLAIM_COLUMNS, Section, claims_table, fmt

__all__ = ["CLAIM_COLUMNS", "Claim", "Section", "claims_table", "fmt"]


class Claim(_peach.Claim):
    @property
    def where(self) -> str:
        return self.figure

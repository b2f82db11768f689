"""The old home of running a reproduction's parts, kept as aliases for the
reproductions that import from here: the engine is
:mod:`satcp.reproduce.experiment` (a missing part is an error there, not a
silent "not available")."""

from __future__ import annotations

from .experiment import REPORT, MissingPart, Report, load_part

__all__ = ["REPORT", "MissingPart", "Report", "load_part"]

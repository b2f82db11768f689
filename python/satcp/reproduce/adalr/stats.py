"""Statistics of the ADaLR reproduction: the mean over seeds with its 95%
confidence interval, and the fairness indices of thesis Eqs. 7.4-7.5 (all
:mod:`satcp.stats`', shared with the other reproductions and sweeps)."""

from __future__ import annotations

from ...stats import T975, jain_index, maxmin_fairness, mean_ci95, t975

__all__ = ["T975", "jain_index", "maxmin_fairness", "mean_ci95", "t975"]

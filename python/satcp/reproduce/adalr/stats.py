"""Statistics of the ADaLR reproduction: the mean over seeds with its 95%
confidence interval, and the fairness indices of thesis Eqs. 7.4-7.5."""

from __future__ import annotations

import math
from collections.abc import Sequence

from ...stats import T975, mean_ci95, t975

__all__ = ["T975", "jain_index", "maxmin_fairness", "mean_ci95", "t975"]


def jain_index(t: Sequence[float]) -> float:
    """Jain's fairness index, thesis Eq. 7.4:
    F = (sum_j t_j)^2 / (n * sum_j t_j^2), between 1/n (unfair) and 1 (fair)."""
    n = len(t)
    sq = sum(x * x for x in t)
    return sum(t) ** 2 / (n * sq) if n and sq else math.nan


def maxmin_fairness(t: Sequence[float]) -> float:
    """Max-min fairness, thesis Eq. 7.5: F = t_min / t_max."""
    return min(t) / max(t) if t and max(t) > 0 else math.nan

"""Statistics shared by the reproductions and sweeps: the mean over seeds
with the half width of its 95 % confidence interval (Student t), and the
fairness indices (Jain's, max-min)."""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence

#: Student t, 97.5% quantile, for 1 ... 10 degrees of freedom.
T975 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228)


def t975(df: int) -> float:
    """Student t 97.5% quantile for ``df`` degrees of freedom (beyond the
    table: 1.96 + 2.4 / df)."""
    return T975[df - 1] if df <= len(T975) else 1.96 + 2.4 / df


def mean_ci95(values: Sequence[float]) -> tuple[float, float]:
    """The mean and the half width of its 95% confidence interval (Student
    t, n - 1 degrees of freedom; NaN for a single value)."""
    mean = statistics.fmean(values)
    ci = math.nan
    if len(values) > 1:
        ci = t975(len(values) - 1) * statistics.stdev(values) / math.sqrt(len(values))
    return mean, ci


def jain_index(t: Sequence[float]) -> float:
    """Jain's fairness index (ADaLR thesis Eq. 7.4, TCP-Peach Sec. V-B):
    F = (sum_j t_j)^2 / (n * sum_j t_j^2), between 1/n (unfair) and 1 (fair);
    NaN for no values or all zero."""
    xs = [float(x) for x in t]
    sq = sum(x * x for x in xs)
    return sum(xs) ** 2 / (len(xs) * sq) if xs and sq else math.nan


def maxmin_fairness(t: Sequence[float]) -> float:
    """Max-min fairness, ADaLR thesis Eq. 7.5: F = t_min / t_max."""
    return min(t) / max(t) if t and max(t) > 0 else math.nan

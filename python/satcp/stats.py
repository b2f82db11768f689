"""Statistics shared by the reproductions and sweeps: the mean over seeds
with the half width of its 95 % confidence interval (Student t)."""

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

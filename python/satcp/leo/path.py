"""What every orbit-driven path gives a link: a one-way delay per sample
time, the serving satellite(s) per sample, and from those the link's
``delay_schedule`` and, for handover outages, its ``errors.loss_schedule``."""

from __future__ import annotations

from collections.abc import Hashable, Iterator
from dataclasses import dataclass

__all__ = ["OrbitPath", "handover_loss_schedule", "sample_times"]


def sample_times(duration_s: float, slot_s: float, sample_s: float) -> Iterator[tuple[float, bool]]:
    """(t, whether a reconfiguration slot starts at t) every ``min(sample_s,
    slot_s)`` seconds from 0 to before ``duration_s``."""
    t = 0.0
    while t < duration_s - 1e-9:
        yield t, abs(t / slot_s - round(t / slot_s)) < 1e-9
        t += min(sample_s, slot_s)


def handover_loss_schedule(
    changes_s: list[float], outage_s: float, duration_s: float
) -> list[list[float]]:
    """``[[t, loss], ...]``: loss 1 for ``outage_s`` from each time in
    ``changes_s``, 0 elsewhere (outages that touch are merged)."""
    if outage_s < 0:
        raise ValueError(f"outage_s: {outage_s} must be >= 0")
    points = [[0.0, 0.0]]
    for t in sorted(changes_s):
        if outage_s == 0 or t >= duration_s:
            continue
        if len(points) > 1 and points[-1][0] >= t:
            points.pop()  # the outage before is still running: extend it
        else:
            if points[-1][0] == t:
                points.pop()  # an outage from t = 0
            points.append([t, 1.0])
        points.append([t + outage_s, 0.0])
    return points


@dataclass
class OrbitPath:
    """One-way delay (s) per sample time (s, from the path's start) and
    what served each sample (a satellite, or the uplink and downlink
    satellites)."""

    times_s: list[float]
    delays_s: list[float]
    serving: list[Hashable]

    def schedule(self) -> list[list[float]]:
        """``[[t, delay_s], ...]`` for a link's ``delay_schedule``."""
        return [[t, d] for t, d in zip(self.times_s, self.delays_s, strict=True)]

    def handovers(self) -> list[float]:
        """Times at which the serving satellite (either, for a path with
        two) changes."""
        return [
            self.times_s[i]
            for i in range(1, len(self.serving))
            if self.serving[i] != self.serving[i - 1]
        ]

    def loss_schedule(self, outage_s: float) -> list[list[float]]:
        """A link's ``errors.loss_schedule`` that drops every packet whose
        transmission ends within ``outage_s`` after a handover."""
        end = self.times_s[-1] + 1.0 if self.times_s else 0.0
        return handover_loss_schedule(self.handovers(), outage_s, end)

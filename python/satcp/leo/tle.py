"""Satellites from TLE sets, propagated with SGP4 (the ``sgp4`` package,
Vallado's implementation of Hoots & Roehrich, Spacetrack Report No. 3,
revised in Vallado et al. 2006, "Revisiting Spacetrack Report #3"), and
ground stations on the WGS 84 ellipsoid, both in SGP4's TEME frame: a
station's Earth-fixed position is turned by the Greenwich mean sidereal
angle (``sgp4.propagation.gstime``; polar motion and the equation of the
equinoxes, tens of metres, are left out). The bent pipe is chosen per slot
as for the Walker shell (:func:`satcp.leo.walker.bent_pipe_over`).

``walker_tles`` writes TLEs for a Walker shell at a given epoch: the
bundled ``satcp/data/starlink_shell1_walker.tle`` is Starlink's first shell
(550 km, 53 degrees, 72 x 22, phasing 1) at 2026-01-01 00:00 UTC, generated
by it because no real Starlink TLEs could be downloaded where satcp was
built. It is a synthetic set: mean elements of a circular shell, no drag
(B* = 0), SGP4 mean motion from Kepler's third law. Real TLEs (e.g.
CelesTrak's ``starlink`` group) load the same way.
"""

from __future__ import annotations

import datetime as dt
import math
import os
from dataclasses import dataclass

import numpy as np

from .path import OrbitPath
from .walker import STARLINK_SHELL1, Shell, bent_pipe_over

__all__ = [
    "WGS84_A_M",
    "WGS84_F",
    "TleSet",
    "load_tles",
    "station_teme",
    "tle_bent_pipe_schedule",
    "walker_tles",
]

WGS84_A_M = 6_378_137.0
WGS84_F = 1 / 298.257_223_563
_JD_UNIX_EPOCH = 2_440_587.5


@dataclass
class TleSet:
    """Named TLEs: ``(name, line1, line2)`` each."""

    entries: list[tuple[str, str, str]]

    @property
    def epoch(self) -> dt.datetime:
        """The newest epoch in the set (UTC)."""
        from sgp4.api import Satrec

        jd = max(
            Satrec.twoline2rv(l1, l2).jdsatepoch + Satrec.twoline2rv(l1, l2).jdsatepochF
            for _, l1, l2 in self.entries
        )
        return _datetime(jd)

    def satrecs(self):
        from sgp4.api import Satrec

        return [Satrec.twoline2rv(l1, l2) for _, l1, l2 in self.entries]

    def positions_teme_m(self, when: dt.datetime) -> np.ndarray:
        """Positions (m, TEME) of every satellite at ``when`` (UTC), (n, 3).
        Raises ValueError if SGP4 fails for one (e.g. decayed)."""
        from sgp4.api import SatrecArray

        jd, fr = _jd(when)
        err, r, _ = SatrecArray(self.satrecs()).sgp4(np.array([jd]), np.array([fr]))
        if np.any(err):
            bad = int(np.flatnonzero(err[:, 0])[0])
            raise ValueError(f"SGP4 error {int(err[bad, 0])} for {self.entries[bad][0]}")
        return r[:, 0, :] * 1e3


def load_tles(path: str | os.PathLike[str]) -> TleSet:
    """Reads a TLE file: three-line (name, line 1, line 2) or two-line
    entries. Raises ValueError naming the line for anything else."""
    with open(path, encoding="utf-8") as f:
        lines = [ln.rstrip() for ln in f if ln.strip()]
    out, i, name = [], 0, None
    while i < len(lines):
        ln = lines[i]
        if ln.startswith("1 ") and i + 1 < len(lines) and lines[i + 1].startswith("2 "):
            out.append((name or ln[2:7].strip(), ln, lines[i + 1]))
            name, i = None, i + 2
        elif name is None and not ln.startswith(("1 ", "2 ")):
            name, i = ln.strip(), i + 1
        else:
            raise ValueError(f"{path}: line {i + 1}: {ln[:30]!r} is not part of a TLE")
    if not out:
        raise ValueError(f"{path}: no TLEs")
    return TleSet(out)


def station_teme(lat_deg: float, lon_deg: float, when: dt.datetime) -> np.ndarray:
    """Position (m, TEME) at ``when`` of a point on the WGS 84 ellipsoid."""
    from sgp4.propagation import gstime

    lat, lon = math.radians(lat_deg), math.radians(lon_deg)
    e2 = WGS84_F * (2 - WGS84_F)
    n = WGS84_A_M / math.sqrt(1 - e2 * math.sin(lat) ** 2)
    x = n * math.cos(lat) * math.cos(lon)
    y = n * math.cos(lat) * math.sin(lon)
    z = n * (1 - e2) * math.sin(lat)
    jd, fr = _jd(when)
    th = gstime(jd + fr)
    return np.array([x * math.cos(th) - y * math.sin(th), x * math.sin(th) + y * math.cos(th), z])


def tle_bent_pipe_schedule(
    tles: TleSet,
    a: tuple[float, float],
    b: tuple[float, float],
    duration_s: float,
    *,
    start: dt.datetime | None = None,
    slot_s: float = 15.0,
    sample_s: float = 1.0,
    min_elevation_deg: float = 25.0,
) -> OrbitPath:
    """The bent-pipe path between ground stations ``a`` and ``b`` ((lat,
    lon), degrees) through the TLE set's satellites, from ``start`` (UTC;
    default the set's epoch) for ``duration_s`` seconds."""
    t0 = start or tles.epoch
    sats = tles.satrecs()
    from sgp4.api import SatrecArray

    arr = SatrecArray(sats)

    def positions(t: float):
        when = t0 + dt.timedelta(seconds=t)
        jd, fr = _jd(when)
        err, r, _ = arr.sgp4(np.array([jd]), np.array([fr]))
        pos = r[:, 0, :] * 1e3
        pos[err[:, 0] != 0] = 0.0  # a failed satellite sits at the centre: never visible
        return pos, station_teme(*a, when), station_teme(*b, when)

    return bent_pipe_over(
        positions, duration_s, slot_s=slot_s, sample_s=sample_s, min_elevation_deg=min_elevation_deg
    )


def _jd(when: dt.datetime) -> tuple[float, float]:
    if when.tzinfo is None:
        when = when.replace(tzinfo=dt.UTC)
    secs = when.timestamp()
    days, frac = divmod(secs, 86_400.0)
    return _JD_UNIX_EPOCH + days, frac / 86_400.0


def _datetime(jd: float) -> dt.datetime:
    return dt.datetime(1970, 1, 1, tzinfo=dt.UTC) + dt.timedelta(days=jd - _JD_UNIX_EPOCH)


def _checksum(line: str) -> int:
    return sum(int(c) if c.isdigit() else (1 if c == "-" else 0) for c in line) % 10


def walker_tles(shell: Shell = STARLINK_SHELL1, epoch: dt.datetime | None = None) -> list[str]:
    """TLE lines (three per satellite) for a Walker-delta shell at
    ``epoch`` (UTC): circular orbits (eccentricity 1e-7), no drag, the
    satellites where :func:`satcp.leo.walker.satellite_positions_eci` puts
    them at t = 0 (right ascension of the node 360 p / P, argument of
    latitude 360 s / S + 360 F p / T degrees)."""
    epoch = epoch or dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
    day = (
        epoch.timetuple().tm_yday
        + (epoch.hour * 3600 + epoch.minute * 60 + epoch.second + epoch.microsecond / 1e6)
        / 86_400.0
    )
    revs_per_day = shell.mean_motion * 86_400.0 / (2 * math.pi)
    out = []
    for p in range(shell.planes):
        for s in range(shell.per_plane):
            k = p * shell.per_plane + s
            num = 90_000 + k
            raan = 360.0 * p / shell.planes
            u = (360.0 * s / shell.per_plane + 360.0 * shell.phasing * p / shell.count) % 360.0
            l1 = (
                f"1 {num:05d}U {epoch.year % 100:02d}001A   {epoch.year % 100:02d}"
                f"{day:012.8f}  .00000000  00000-0  00000-0 0  999"
            )
            l2 = (
                f"2 {num:05d} {shell.inclination_deg:8.4f} {raan:8.4f} 0000001 "
                f"{0.0:8.4f} {u:8.4f} {revs_per_day:11.8f}    1"
            )
            out += [f"WALKER-{p:02d}-{s:02d}", l1 + str(_checksum(l1)), l2 + str(_checksum(l2))]
    return out

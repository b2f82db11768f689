"""Orbit-driven link schedules for LEO paths.

A Walker-delta shell of circular orbits (by default one shell of Starlink's
first generation: 550 km, 53 degrees, 72 planes of 22 satellites) over a
spherical rotating Earth; two ground stations by latitude and longitude; a
bent pipe through one satellite that both see above a minimum elevation,
chosen afresh at each reconfiguration slot (Starlink reconfigures every
15 s) as the one with the highest lower elevation of the two. Within a slot
the delay follows the satellite's motion, sampled every ``sample_s``. The
result is a ``delay_schedule`` for a link direction (``[[t, delay_s], ...]``):
the core gives each packet the delay in force when it is sent, so packets
in flight keep theirs across a slot change.

Geometry only: no atmosphere, processing or queueing in the satellite, no
J2 perturbation (fine over minutes), a spherical Earth of 6371 km.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

__all__ = [
    "EARTH_RADIUS_M",
    "LIGHT_SPEED_M_S",
    "STARLINK_SHELL1",
    "BentPipe",
    "Shell",
    "bent_pipe_schedule",
    "ground_station_eci",
    "satellite_positions_eci",
    "slant_range_m",
]

EARTH_RADIUS_M = 6_371_000.0
LIGHT_SPEED_M_S = 299_792_458.0
MU_EARTH = 3.986_004_418e14  # m^3/s^2
EARTH_ROTATION_RAD_S = 7.292_115_9e-5


@dataclass(frozen=True)
class Shell:
    """A Walker-delta shell i: T/P/F."""

    altitude_m: float
    inclination_deg: float
    planes: int
    per_plane: int
    phasing: int = 1

    @property
    def count(self) -> int:
        return self.planes * self.per_plane

    @property
    def mean_motion(self) -> float:
        a = EARTH_RADIUS_M + self.altitude_m
        return math.sqrt(MU_EARTH / a**3)


#: Starlink's first shell (FCC filing): 550 km, 53 degrees, 72 x 22.
STARLINK_SHELL1 = Shell(altitude_m=550_000.0, inclination_deg=53.0, planes=72, per_plane=22)


def satellite_positions_eci(shell: Shell, t: float) -> np.ndarray:
    """Positions (m) of every satellite at time ``t`` (s), shape (count, 3)."""
    p = np.repeat(np.arange(shell.planes), shell.per_plane)
    s = np.tile(np.arange(shell.per_plane), shell.planes)
    raan = 2 * np.pi * p / shell.planes
    u = (
        2 * np.pi * s / shell.per_plane
        + 2 * np.pi * shell.phasing * p / shell.count
        + shell.mean_motion * t
    )
    inc = math.radians(shell.inclination_deg)
    r = EARTH_RADIUS_M + shell.altitude_m
    x = r * (np.cos(raan) * np.cos(u) - np.sin(raan) * np.sin(u) * math.cos(inc))
    y = r * (np.sin(raan) * np.cos(u) + np.cos(raan) * np.sin(u) * math.cos(inc))
    z = r * np.sin(u) * math.sin(inc)
    return np.stack([x, y, z], axis=1)


def ground_station_eci(lat_deg: float, lon_deg: float, t: float) -> np.ndarray:
    """Position (m) at time ``t`` of a point on the rotating Earth."""
    lat, lon = math.radians(lat_deg), math.radians(lon_deg) + EARTH_ROTATION_RAD_S * t
    return EARTH_RADIUS_M * np.array(
        [math.cos(lat) * math.cos(lon), math.cos(lat) * math.sin(lon), math.sin(lat)]
    )


def _elevations_deg(gs: np.ndarray, sats: np.ndarray) -> np.ndarray:
    d = sats - gs
    up = gs / np.linalg.norm(gs)
    sin_el = (d @ up) / np.linalg.norm(d, axis=1)
    return np.degrees(np.arcsin(np.clip(sin_el, -1.0, 1.0)))


def slant_range_m(altitude_m: float, elevation_deg: float) -> float:
    """Distance from a ground station to a satellite at ``altitude_m`` seen
    at ``elevation_deg`` (law of cosines on the Earth's centre): the check
    of the vector geometry."""
    e = math.radians(elevation_deg)
    r, s = EARTH_RADIUS_M, EARTH_RADIUS_M + altitude_m
    return math.sqrt(s**2 - (r * math.cos(e)) ** 2) - r * math.sin(e)


@dataclass
class BentPipe:
    """A bent-pipe path's schedule: one-way delay per sample time, and the
    serving satellite and elevations per slot."""

    times_s: list[float]
    delays_s: list[float]
    serving: list[int]
    elevations_deg: list[tuple[float, float]]

    def schedule(self) -> list[list[float]]:
        """``[[t, delay_s], ...]`` for a link's ``delay_schedule``."""
        return [[t, d] for t, d in zip(self.times_s, self.delays_s, strict=True)]


def bent_pipe_schedule(
    a: tuple[float, float],
    b: tuple[float, float],
    duration_s: float,
    *,
    shell: Shell = STARLINK_SHELL1,
    slot_s: float = 15.0,
    sample_s: float = 1.0,
    min_elevation_deg: float = 25.0,
    start_s: float = 0.0,
) -> BentPipe:
    """The one-way delay between ground stations ``a`` and ``b`` ((lat,
    lon) in degrees) through one satellite, for ``duration_s`` seconds.
    Raises ValueError for a slot in which no satellite sees both."""
    if slot_s <= 0 or sample_s <= 0 or duration_s <= 0:
        raise ValueError("duration_s, slot_s and sample_s must be positive")
    times, delays, serving, elev = [], [], [], []
    t = 0.0
    sat = -1
    while t < duration_s - 1e-9:
        abs_t = start_s + t
        sats = satellite_positions_eci(shell, abs_t)
        ga, gb = ground_station_eci(*a, abs_t), ground_station_eci(*b, abs_t)
        if abs(t / slot_s - round(t / slot_s)) < 1e-9:
            ea, eb = _elevations_deg(ga, sats), _elevations_deg(gb, sats)
            worst = np.minimum(ea, eb)
            sat = int(np.argmax(worst))
            if worst[sat] < min_elevation_deg:
                raise ValueError(
                    f"no satellite sees both stations above {min_elevation_deg} degrees "
                    f"at t = {abs_t:.0f} s (best {worst[sat]:.1f})"
                )
        pos = sats[sat]
        d = (np.linalg.norm(pos - ga) + np.linalg.norm(pos - gb)) / LIGHT_SPEED_M_S
        times.append(round(t, 9))
        delays.append(float(d))
        serving.append(sat)
        elev.append(
            (float(_elevations_deg(ga, pos[None])[0]), float(_elevations_deg(gb, pos[None])[0]))
        )
        t += min(sample_s, slot_s)
    return BentPipe(times, delays, serving, elev)

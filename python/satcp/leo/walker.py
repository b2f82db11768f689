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
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from .path import OrbitPath, sample_times

__all__ = [
    "EARTH_RADIUS_M",
    "LIGHT_SPEED_M_S",
    "STARLINK_SHELL1",
    "BentPipe",
    "Positions",
    "Shell",
    "bent_pipe_over",
    "bent_pipe_schedule",
    "elevations_deg",
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


def elevations_deg(gs: np.ndarray, sats: np.ndarray) -> np.ndarray:
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
class BentPipe(OrbitPath):
    """A bent-pipe path's schedule: one-way delay per sample time, and the
    serving satellite and elevations per sample."""

    elevations_deg: list[tuple[float, float]] = field(default_factory=list)
    #: Slant range from each station to the serving satellite per sample,
    #: metres (station a, station b).
    ranges_m: list[tuple[float, float]] = field(default_factory=list)


#: positions(t) -> (satellites (n, 3), station a (3,), station b (3,)), metres,
#: one inertial frame.
Positions = Callable[[float], tuple[np.ndarray, np.ndarray, np.ndarray]]


def bent_pipe_over(
    positions: Positions,
    duration_s: float,
    *,
    slot_s: float = 15.0,
    sample_s: float = 1.0,
    min_elevation_deg: float = 25.0,
) -> BentPipe:
    """The bent-pipe path over any constellation given by ``positions``:
    the serving satellite is chosen at each slot start as the one with the
    highest lower elevation of the two stations, and kept for the slot."""
    if slot_s <= 0 or sample_s <= 0 or duration_s <= 0:
        raise ValueError("duration_s, slot_s and sample_s must be positive")
    path = BentPipe([], [], [])
    sat = -1
    for t, new_slot in sample_times(duration_s, slot_s, sample_s):
        sats, ga, gb = positions(t)
        if new_slot:
            ea, eb = elevations_deg(ga, sats), elevations_deg(gb, sats)
            worst = np.minimum(ea, eb)
            sat = int(np.argmax(worst))
            if worst[sat] < min_elevation_deg:
                raise ValueError(
                    f"no satellite sees both stations above {min_elevation_deg} degrees "
                    f"at t = {t:.0f} s (best {worst[sat]:.1f})"
                )
        pos = sats[sat]
        ra, rb = float(np.linalg.norm(pos - ga)), float(np.linalg.norm(pos - gb))
        d = (ra + rb) / LIGHT_SPEED_M_S
        path.times_s.append(round(t, 9))
        path.delays_s.append(float(d))
        path.serving.append(sat)
        path.elevations_deg.append(
            (float(elevations_deg(ga, pos[None])[0]), float(elevations_deg(gb, pos[None])[0]))
        )
        path.ranges_m.append((ra, rb))
    return path


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
    lon) in degrees) through one satellite of a Walker shell, for
    ``duration_s`` seconds. Raises ValueError for a slot in which no
    satellite sees both."""

    def positions(t: float):
        abs_t = start_s + t
        return (
            satellite_positions_eci(shell, abs_t),
            ground_station_eci(*a, abs_t),
            ground_station_eci(*b, abs_t),
        )

    return bent_pipe_over(
        positions,
        duration_s,
        slot_s=slot_s,
        sample_s=sample_s,
        min_elevation_deg=min_elevation_deg,
    )

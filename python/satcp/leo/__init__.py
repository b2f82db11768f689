"""Orbit-driven link schedules for LEO paths.

- :mod:`satcp.leo.walker`: a Walker-delta shell of circular orbits (by
  default Starlink's first shell: 550 km, 53 degrees, 72 planes of 22) over
  a spherical rotating Earth, and the bent pipe through one satellite that
  both ground stations see, chosen afresh per reconfiguration slot
  (Starlink reconfigures every 15 s);
- :mod:`satcp.leo.tle`: the same from TLE sets propagated with SGP4, ground
  stations on the WGS 84 ellipsoid;
- :mod:`satcp.leo.isl`: inter-satellite-link paths on a +Grid between two
  distant stations (uplink, shortest ISL route, downlink), per slot;
- :mod:`satcp.leo.path`: what every path gives a link: its
  ``delay_schedule`` and, for handover outages, an ``errors.loss_schedule``;
- :mod:`satcp.leo.esn0`: a bent-pipe terminal's Es/N0 from its slant range
  and elevation, for a DVB-S2 carrier's ``esn0_schedule``.

Within a slot the delay follows the satellites' motion, sampled every
``sample_s``. The core gives each packet the delay in force when its
transmission ends, so packets in flight keep theirs across a slot change.
Geometry only (the Es/N0 series adds the atmosphere's cosecant-law loss):
no processing or queueing in the satellites.
Readings and sources: docs/leo.md.
"""

from __future__ import annotations

from .esn0 import esn0_db, esn0_schedule
from .isl import IslPath, isl_distances_s, isl_neighbours, isl_path_schedule
from .path import OrbitPath, handover_loss_schedule, sample_times
from .tle import TleSet, load_tles, station_teme, tle_bent_pipe_schedule, walker_tles
from .walker import (
    EARTH_RADIUS_M,
    LIGHT_SPEED_M_S,
    STARLINK_SHELL1,
    BentPipe,
    Shell,
    bent_pipe_over,
    bent_pipe_schedule,
    elevations_deg,
    ground_station_eci,
    satellite_positions_eci,
    slant_range_m,
)

__all__ = [
    "EARTH_RADIUS_M",
    "LIGHT_SPEED_M_S",
    "STARLINK_SHELL1",
    "BentPipe",
    "IslPath",
    "OrbitPath",
    "Shell",
    "TleSet",
    "bent_pipe_over",
    "bent_pipe_schedule",
    "bundled_tles",
    "elevations_deg",
    "esn0_db",
    "esn0_schedule",
    "ground_station_eci",
    "handover_loss_schedule",
    "isl_distances_s",
    "isl_neighbours",
    "isl_path_schedule",
    "load_tles",
    "sample_times",
    "satellite_positions_eci",
    "slant_range_m",
    "station_teme",
    "tle_bent_pipe_schedule",
    "walker_tles",
]


def bundled_tles() -> TleSet:
    """The TLE set shipped with satcp (``satcp/data/starlink_shell1_walker.tle``,
    synthetic: Starlink's first shell as a Walker shell at 2026-01-01
    00:00 UTC; see :mod:`satcp.leo.tle`)."""
    import os
    from importlib import resources

    return load_tles(os.fspath(resources.files("satcp") / "data" / "starlink_shell1_walker.tle"))

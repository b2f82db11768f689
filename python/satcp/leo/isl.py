"""Inter-satellite-link paths on a Walker shell's +Grid: each satellite
links to the one ahead and the one behind in its plane and to the
satellite of the same index in each adjacent plane (four links; the
"+Grid" of Bhattacherjee & Singla, "Network topology design at 27,000
km/hour", CoNEXT 2019, the usual model of Starlink's laser links).

A path between two ground stations is: the uplink to the satellite that
sees station ``a`` highest, the shortest route over the grid by
propagation delay (Dijkstra) to the satellite that sees station ``b``
highest, and the downlink. Serving satellites and the route are chosen at
each slot start and kept for the slot; within it the delay follows the
satellites' motion along that route.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field

import numpy as np

from .path import OrbitPath, sample_times
from .walker import (
    LIGHT_SPEED_M_S,
    STARLINK_SHELL1,
    Shell,
    elevations_deg,
    ground_station_eci,
    satellite_positions_eci,
)

__all__ = ["IslPath", "isl_distances_s", "isl_neighbours", "isl_path_schedule"]


def isl_neighbours(shell: Shell) -> np.ndarray:
    """(count, 4) indices: in-plane ahead, in-plane behind, same index in
    the next plane, same index in the plane before. Satellite k is
    ``plane * per_plane + slot`` as in ``satellite_positions_eci``."""
    p = np.repeat(np.arange(shell.planes), shell.per_plane)
    s = np.tile(np.arange(shell.per_plane), shell.planes)
    n = shell.per_plane
    return np.stack(
        [
            p * n + (s + 1) % n,
            p * n + (s - 1) % n,
            ((p + 1) % shell.planes) * n + s,
            ((p - 1) % shell.planes) * n + s,
        ],
        axis=1,
    )


def isl_distances_s(
    positions: np.ndarray, neighbours: np.ndarray, source: int
) -> tuple[np.ndarray, np.ndarray]:
    """Dijkstra from ``source`` over the grid, edge weight the link's
    length / c: (delay to every satellite, predecessor on its route; -1
    for the source)."""
    count = len(positions)
    lengths = np.linalg.norm(positions[neighbours] - positions[:, None, :], axis=2)
    dist = np.full(count, np.inf)
    prev = np.full(count, -1)
    dist[source] = 0.0
    heap = [(0.0, source)]
    while heap:
        d, u = heapq.heappop(heap)
        if d > dist[u]:
            continue
        for j in range(neighbours.shape[1]):
            v = int(neighbours[u, j])
            nd = d + lengths[u, j] / LIGHT_SPEED_M_S
            if nd < dist[v]:
                dist[v], prev[v] = nd, u
                heapq.heappush(heap, (nd, v))
    return dist, prev


@dataclass
class IslPath(OrbitPath):
    """An ISL path's schedule: ``serving`` holds (uplink satellite,
    downlink satellite) per sample, ``routes`` the satellites in order
    (uplink first) per sample."""

    routes: list[tuple[int, ...]] = field(default_factory=list)


def isl_path_schedule(
    a: tuple[float, float],
    b: tuple[float, float],
    duration_s: float,
    *,
    shell: Shell = STARLINK_SHELL1,
    slot_s: float = 15.0,
    sample_s: float = 1.0,
    min_elevation_deg: float = 25.0,
    start_s: float = 0.0,
) -> IslPath:
    """The one-way delay between ground stations ``a`` and ``b`` ((lat,
    lon), degrees) over the shell's +Grid, for ``duration_s`` seconds.
    Raises ValueError for a slot in which a station sees no satellite
    above ``min_elevation_deg``."""
    if slot_s <= 0 or sample_s <= 0 or duration_s <= 0:
        raise ValueError("duration_s, slot_s and sample_s must be positive")
    grid = isl_neighbours(shell)
    path = IslPath([], [], [])
    route: tuple[int, ...] = ()
    for t, new_slot in sample_times(duration_s, slot_s, sample_s):
        abs_t = start_s + t
        sats = satellite_positions_eci(shell, abs_t)
        ga, gb = ground_station_eci(*a, abs_t), ground_station_eci(*b, abs_t)
        if new_slot:
            ends = []
            for name, g in (("a", ga), ("b", gb)):
                el = elevations_deg(g, sats)
                k = int(np.argmax(el))
                if el[k] < min_elevation_deg:
                    raise ValueError(
                        f"station {name} sees no satellite above {min_elevation_deg} degrees "
                        f"at t = {abs_t:.0f} s (best {el[k]:.1f})"
                    )
                ends.append(k)
            _, prev = isl_distances_s(sats, grid, ends[0])
            hops = [ends[1]]
            while hops[-1] != ends[0]:
                hops.append(int(prev[hops[-1]]))
            route = tuple(reversed(hops))
        pts = sats[list(route)]
        length = (
            np.linalg.norm(pts[0] - ga)
            + np.linalg.norm(np.diff(pts, axis=0), axis=1).sum()
            + np.linalg.norm(pts[-1] - gb)
        )
        path.times_s.append(round(t, 9))
        path.delays_s.append(float(length / LIGHT_SPEED_M_S))
        path.serving.append((route[0], route[-1]))
        path.routes.append(route)
    return path

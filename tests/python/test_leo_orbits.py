"""TLE-driven and ISL paths (satcp.leo.tle, satcp.leo.isl) against
geometry computed independently, and handover outages as packet drops."""

from __future__ import annotations

import datetime as dt
import math
from itertools import pairwise
from pathlib import Path

import numpy as np
import pytest

import satcp
from satcp import leo

PARIS, LONDON, NEW_YORK = (48.85, 2.35), (51.51, -0.13), (40.71, -74.01)


@pytest.fixture(scope="module")
def tles():
    return leo.bundled_tles()


def test_the_bundled_tles_are_the_documented_walker_shell(tles):
    assert len(tles.entries) == 72 * 22
    assert tles.epoch == dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
    # SGP4 puts every satellite at about 550 km (mean elements: a few km off).
    r = np.linalg.norm(tles.positions_teme_m(tles.epoch), axis=1)
    assert np.all(np.abs(r - 6_378_137.0 - 550e3) < 30e3)
    assert leo.walker_tles()[:6] == [x for e in tles.entries[:2] for x in e]


def test_tle_delay_is_slant_range_over_c_by_skyfield(tles):
    """At sample times, the path's delay equals the two slant ranges to
    the serving satellite as skyfield computes them (its own SGP4 call,
    TEME to ITRS, WGS 84 stations), divided by c, within 1 % (in fact far
    closer)."""
    from skyfield.api import EarthSatellite, load, wgs84

    bp = leo.tle_bent_pipe_schedule(tles, PARIS, LONDON, 120.0)
    ts = load.timescale(builtin=True)
    pa, pb = wgs84.latlon(*PARIS), wgs84.latlon(*LONDON)
    for i in range(0, 120, 7):
        name, l1, l2 = tles.entries[bp.serving[i]]
        sat = EarthSatellite(l1, l2, name, ts)
        when = tles.epoch + dt.timedelta(seconds=bp.times_s[i])
        t = ts.from_datetime(when)
        rng = (sat - pa).at(t).distance().m + (sat - pb).at(t).distance().m
        expect = rng / leo.LIGHT_SPEED_M_S
        assert abs(bp.delays_s[i] - expect) / expect < 0.01
        assert abs(bp.delays_s[i] - expect) < 1e-6  # under a microsecond


def test_a_tle_slot_change_moves_the_delay_as_the_geometry_says(tles):
    from skyfield.api import EarthSatellite, load, wgs84

    bp = leo.tle_bent_pipe_schedule(tles, PARIS, LONDON, 120.0)
    changes = bp.handovers()
    assert changes and all(t % 15.0 == 0 for t in changes)
    ts = load.timescale(builtin=True)
    pa, pb = wgs84.latlon(*PARIS), wgs84.latlon(*LONDON)
    t = changes[0]
    i = bp.times_s.index(t)
    when = ts.from_datetime(tles.epoch + dt.timedelta(seconds=t))

    def delay(k):
        sat = EarthSatellite(*tles.entries[k][1:], ts=ts)
        return (
            (sat - pa).at(when).distance().m + (sat - pb).at(when).distance().m
        ) / leo.LIGHT_SPEED_M_S

    old, new = bp.serving[i - 1], bp.serving[i]
    assert old != new
    # The step at the change is the difference of the two satellites' paths
    # at that instant (plus one second of the old one's motion).
    step = bp.delays_s[i] - bp.delays_s[i - 1]
    assert step == pytest.approx(delay(new) - delay(old), abs=2e-5)


def test_isl_neighbours_form_a_plus_grid():
    s = leo.STARLINK_SHELL1
    g = leo.isl_neighbours(s)
    assert g.shape == (s.count, 4)
    for k in (0, 21, 22, 1583):
        for j in g[k]:
            assert k in g[j], "links are symmetric"
    pos = leo.satellite_positions_eci(s, 0.0)
    d = np.linalg.norm(pos[g] - pos[:, None, :], axis=2)
    # In-plane: 2 r sin(pi / 22); cross-plane: much shorter than that.
    r = leo.EARTH_RADIUS_M + s.altitude_m
    assert np.allclose(d[:, :2], 2 * r * math.sin(math.pi / 22), rtol=1e-9)
    assert d[:, 2:].max() < d[:, 0].min()


def test_isl_path_against_geometry():
    s = leo.STARLINK_SHELL1
    p = leo.isl_path_schedule(LONDON, NEW_YORK, 45.0)
    grid = leo.isl_neighbours(s)
    c = leo.LIGHT_SPEED_M_S
    for i in range(0, 45, 4):
        t = p.times_s[i]
        pos = leo.satellite_positions_eci(s, t)
        ga, gb = leo.ground_station_eci(*LONDON, t), leo.ground_station_eci(*NEW_YORK, t)
        route = p.routes[i]
        for u, v in pairwise(route):
            assert v in grid[u], "every hop is a grid link"
        # The delay recomputed from the positions, hop by hop.
        length = np.linalg.norm(pos[route[0]] - ga) + np.linalg.norm(pos[route[-1]] - gb)
        length += sum(np.linalg.norm(pos[u] - pos[v]) for u, v in pairwise(route))
        assert p.delays_s[i] == pytest.approx(length / c, rel=1e-9)
        # Never shorter than the straight chord between the stations.
        assert p.delays_s[i] > np.linalg.norm(ga - gb) / c
        if t % 15.0 == 0:
            # At a slot start the route is a shortest one: no grid link
            # improves any distance (Bellman's condition), and the route's
            # ISL part equals the Dijkstra distance.
            dist, _ = leo.isl_distances_s(pos, grid, route[0])
            w = np.linalg.norm(pos[grid] - pos[:, None, :], axis=2) / c
            assert np.all(dist[grid] <= dist[:, None] + w + 1e-12)
            isl = sum(np.linalg.norm(pos[u] - pos[v]) for u, v in pairwise(route))
            assert dist[route[-1]] == pytest.approx(isl / c, rel=1e-9)
            # Up and down go to the satellites each station sees highest.
            assert route[0] == int(np.argmax(leo.elevations_deg(ga, pos)))
            assert route[-1] == int(np.argmax(leo.elevations_deg(gb, pos)))
    assert p.handovers(), "the serving satellites change within 45 s"
    assert all(t % 15.0 == 0 for t in p.handovers())


def test_handover_loss_schedule():
    assert leo.handover_loss_schedule([15.0, 30.0], 0.05, 60.0) == [
        [0.0, 0.0],
        [15.0, 1.0],
        [15.05, 0.0],
        [30.0, 1.0],
        [30.05, 0.0],
    ]
    # Overlapping outages merge; one from t = 0 replaces the first point.
    assert leo.handover_loss_schedule([0.0, 0.5, 2.0], 1.0, 60.0) == [
        [0.0, 1.0],
        [1.5, 0.0],
        [2.0, 1.0],
        [3.0, 0.0],
    ]
    assert leo.handover_loss_schedule([15.0], 0.0, 60.0) == [[0.0, 0.0]]
    with pytest.raises(ValueError, match="outage_s"):
        leo.handover_loss_schedule([1.0], -1.0, 10.0)


def test_handover_outages_drop_packets_on_the_link():
    """An orbit path with 30 ms outages at each handover: the link loses
    packets (and only on the direction given the schedule); without the
    outages it loses none."""
    bp = leo.bent_pipe_schedule(PARIS, LONDON, 60.0)
    assert len(bp.handovers()) >= 2

    def run(loss_schedule):
        sat = {"a": "gs1", "b": "gs2", "rate_bps": 20e6, "delay_schedule": bp.schedule()}
        if loss_schedule:
            sat["ab"] = {"errors": {"loss_schedule": loss_schedule}}
        return satcp.run(
            {
                "name": "handover",
                "duration_s": 60.0,
                "stop_when_done": False,
                "nodes": ["server", "gs1", "gs2", "client"],
                "links": [
                    {"a": "server", "b": "gs1", "rate_bps": 1e9, "delay_s": 0.0001},
                    sat,
                    {"a": "gs2", "b": "client", "rate_bps": 1e9, "delay_s": 0.0001},
                ],
                "apps": [{"kind": "bulk", "client": "client", "server": "server"}],
                "tcp": {"variant": "sack", "window_scaling": True, "rcv_buffer": 2_000_000},
            }
        )

    with_outages = run(bp.loss_schedule(0.03))
    without = run(None)
    links = with_outages.links.set_index("name")
    lost = links.loc["gs1-gs2:ab", "lost"]
    # A busy 20 Mb/s link: 30 ms is about 50 full packets per outage.
    assert lost >= 20 * len(bp.handovers())
    assert links.loc["gs1-gs2:ba", "lost"] == 0
    assert without.links.lost.sum() == 0
    assert with_outages.flows.server_retransmitted_segments.iloc[0] >= lost


def test_bad_burst_and_schedule_fields_are_one_line_errors(tmp_path):
    from conftest import run_cli

    for setting, field in [
        (
            "links[1].ab.errors.gilbert_elliott={p = 1.5, r = 0.2}",
            "links[1].ab.errors.gilbert_elliott.p: 1.5",
        ),
        ("links[1].errors.gilbert_elliott={p = 0.1}", "links[1].errors.gilbert_elliott"),
        (
            "links[1].errors.gilbert_elliott={p = 0.1, r = 0.1, h = 0.5}",
            "links[1].errors.gilbert_elliott.h",
        ),
        (
            "links[1].errors.loss_schedule=[[0.0, 0.0], [1.0, 2.0]]",
            "links[1].errors.loss_schedule[1][1]: 2",
        ),
    ]:
        out = tmp_path / "out"
        scenario = Path(__file__).parents[2] / "scenarios" / "thesis_ftp.toml"
        proc = run_cli("run", scenario, "--set", setting, "--out", out)
        assert proc.returncode == 2, setting
        assert len(proc.stderr.strip().splitlines()) == 1
        assert field in proc.stderr
        assert not out.exists()

"""Orbit-driven delay (satcp.leo) against geometry, and time-varying links
from a trace file and from an orbit, run end to end."""

from __future__ import annotations

import math

import numpy as np
import pytest

import satcp
from satcp import leo

PARIS, LONDON = (48.85, 2.35), (51.51, -0.13)


def test_the_shell_orbits_with_keplers_period():
    s = leo.STARLINK_SHELL1
    period_min = 2 * math.pi / s.mean_motion / 60
    assert 95.0 < period_min < 96.5  # 550 km: about 95.6 min
    r = np.linalg.norm(leo.satellite_positions_eci(s, 123.0), axis=1)
    assert np.allclose(r, leo.EARTH_RADIUS_M + s.altitude_m)
    assert len(r) == 72 * 22


def test_bent_pipe_delay_is_slant_range_over_c():
    """At every sample the delay equals the two slant ranges, from the law
    of cosines at the elevations seen, divided by c (within 1 %)."""
    bp = leo.bent_pipe_schedule(PARIS, LONDON, 120.0)
    alt = leo.STARLINK_SHELL1.altitude_m
    for d, (ea, eb) in zip(bp.delays_s, bp.elevations_deg, strict=True):
        assert ea >= 25.0 - 5.0 and eb >= 25.0 - 5.0  # chosen above 25, then moves
        expected = (leo.slant_range_m(alt, ea) + leo.slant_range_m(alt, eb)) / leo.LIGHT_SPEED_M_S
        assert abs(d - expected) / expected < 0.01
    # Straight up and back is the lower bound: 2 x 550 km / c = 3.67 ms.
    assert min(bp.delays_s) > 2 * alt / leo.LIGHT_SPEED_M_S


def test_the_serving_satellite_changes_only_at_slot_boundaries():
    bp = leo.bent_pipe_schedule(PARIS, LONDON, 300.0, slot_s=15.0, sample_s=1.0)
    changes = [
        bp.times_s[i] for i in range(1, len(bp.serving)) if bp.serving[i] != bp.serving[i - 1]
    ]
    assert changes, "a handover happens within 5 minutes"
    for t in changes:
        assert t % 15.0 == pytest.approx(0.0, abs=1e-9)
    # At a change the delay moves to the new satellite's geometry: a step,
    # larger than the motion within a second.
    steps = [abs(bp.delays_s[i] - bp.delays_s[i - 1]) for i in range(1, len(bp.delays_s))]
    at_change = [
        abs(bp.delays_s[i] - bp.delays_s[i - 1])
        for i in range(1, len(bp.serving))
        if bp.serving[i] != bp.serving[i - 1]
    ]
    assert max(at_change) > np.median(steps)


def _leo_scenario(schedule):
    return {
        "name": "leo",
        "duration_s": 60.0,
        "stop_when_done": False,
        "sample_interval_s": 1.0,
        "nodes": ["server", "gs1", "gs2", "client"],
        "links": [
            {"a": "server", "b": "gs1", "rate_bps": 1e9, "delay_s": 0.0001},
            {"a": "gs1", "b": "gs2", "rate_bps": 50e6, "delay_schedule": schedule},
            {"a": "gs2", "b": "client", "rate_bps": 1e9, "delay_s": 0.0001},
        ],
        "apps": [{"kind": "bulk", "client": "client", "server": "server"}],
        "tcp": {"variant": "cubic", "rcv_buffer": 30000, "delayed_ack": False},
    }


def test_an_orbit_driven_link_runs_and_its_rtt_follows_the_geometry():
    bp = leo.bent_pipe_schedule(PARIS, LONDON, 60.0)
    r = satcp.run(_leo_scenario(bp.schedule()))
    fs = r.flow_series
    rtt = fs[fs.time_s >= 20.0].srtt_s.mean()
    path = 2 * np.mean(bp.delays_s[20:]) + 4 * 0.0001
    assert rtt == pytest.approx(path, rel=0.15)
    assert r.flows.client_bytes_delivered.iloc[0] > 0


def test_schedules_from_a_trace_file(tmp_path):
    (tmp_path / "delay.csv").write_text("time_s,delay_s\n0,0.02\n10,0.005\n# comment\n30,0.01\n")
    toml = tmp_path / "s.toml"
    toml.write_text(
        'nodes = ["a", "b"]\nduration_s = 40.0\nstop_when_done = false\n'
        "sample_interval_s = 1.0\n"
        '[[links]]\na = "a"\nb = "b"\nrate_bps = 1e7\ndelay_schedule = "delay.csv"\n'
        '[[apps]]\nkind = "bulk"\nclient = "b"\nserver = "a"\n'
        "[tcp]\nrcv_buffer = 8000\ndelayed_ack = false\n"
    )
    sc = satcp.load(toml)
    assert sc["links"][0]["delay_schedule"] == [[0.0, 0.02], [10.0, 0.005], [30.0, 0.01]]
    r = satcp.run(toml)
    fs = r.flow_series
    assert fs[fs.time_s == 9.0].srtt_s.iloc[0] == pytest.approx(0.04, rel=0.05)
    # 10 ms of propagation plus a 1,500-byte serialization at 10 Mb/s.
    assert fs[fs.time_s == 29.0].srtt_s.iloc[0] == pytest.approx(0.0112, rel=0.05)


def test_a_loss_schedule_from_a_file_in_the_errors_table(tmp_path):
    (tmp_path / "outages.csv").write_text("0,0\n5,1\n5.5,0\n")
    toml = tmp_path / "s.toml"
    toml.write_text(
        'nodes = ["a", "b"]\n[[links]]\na = "a"\nb = "b"\nrate_bps = 1e7\n'
        'ab = { errors = { loss = 0.01, loss_schedule = "outages.csv" } }\n'
        '[[apps]]\nkind = "bulk"\nclient = "b"\nserver = "a"\n'
    )
    sc = satcp.load(toml)
    errors = sc["links"][0]["ab"]["errors"]
    assert errors == {"loss": 0.01, "loss_schedule": [[0.0, 0.0], [5.0, 1.0], [5.5, 0.0]]}
    (tmp_path / "outages.csv").write_text("0,0\nfive,1\n")
    with pytest.raises(satcp.ScenarioError, match=r"links\[0\]\.ab\.errors\.loss_schedule.*line 2"):
        satcp.load(toml)


def test_a_bad_trace_file_is_one_line(tmp_path):
    (tmp_path / "bad.csv").write_text("0,0.02\nten,0.1\n")
    toml = tmp_path / "s.toml"
    toml.write_text(
        'nodes = ["a", "b"]\n[[links]]\na = "a"\nb = "b"\nrate_bps = 1e7\n'
        'delay_schedule = "bad.csv"\n[[apps]]\nkind = "bulk"\nclient = "b"\nserver = "a"\n'
    )
    with pytest.raises(satcp.ScenarioError, match=r"links\[0\]\.delay_schedule.*line 2"):
        satcp.load(toml)

"""A LEO terminal's Es/N0 from its slant range and elevation
(satcp.leo.esn0), against hand computation, and as a DVB-S2 carrier's
schedule in a run."""

from __future__ import annotations

import math

import pytest
from conftest import REPO

import satcp
from satcp import leo

PARIS, LONDON = (48.85, 2.35), (51.51, -0.13)
ALT = 550e3


def test_at_zenith_the_budget_s_value_holds():
    assert leo.esn0_db(12.0, ALT, ALT, 90.0) == pytest.approx(12.0)
    assert leo.esn0_db(12.0, ALT, ALT, 90.0, zenith_attenuation_db=0.5) == pytest.approx(12.0)


def test_free_space_loss_and_the_cosecant_law_by_hand():
    # 25 degrees over a 550 km shell: d = 1,123.5 km (law of cosines).
    d = leo.slant_range_m(ALT, 25.0)
    assert d == pytest.approx(1_123.5e3, rel=1e-3)
    spreading = 20 * math.log10(d / ALT)  # 6.20 dB
    assert spreading == pytest.approx(6.20, abs=0.01)
    assert leo.esn0_db(12.0, ALT, d, 25.0) == pytest.approx(12.0 - spreading)
    # 0.3 dB at zenith is 0.3 / sin(25) = 0.71 dB there: 0.41 dB more.
    atm = 0.3 * (1 / math.sin(math.radians(25.0)) - 1)
    assert atm == pytest.approx(0.41, abs=0.01)
    assert leo.esn0_db(12.0, ALT, d, 25.0, 0.3) == pytest.approx(12.0 - spreading - atm)


@pytest.mark.parametrize(
    ("args", "word"),
    [((12.0, ALT, ALT, 4.0), "elevation_deg"), ((12.0, 0.0, ALT, 90.0), "altitude_m")],
)
def test_out_of_range_inputs_are_refused(args, word):
    with pytest.raises(ValueError, match=word):
        leo.esn0_db(*args)
    with pytest.raises(ValueError, match="zenith_attenuation_db"):
        leo.esn0_db(12.0, ALT, ALT, 90.0, -1.0)


@pytest.fixture(scope="module")
def pass_():
    return leo.bent_pipe_schedule(PARIS, LONDON, 120.0)


def test_the_pass_s_ranges_are_its_elevations_geometry(pass_):
    # A circular shell: each sample's range is the law of cosines' at its
    # elevation (the vector geometry against the closed form).
    for (ra, rb), (ea, eb) in zip(pass_.ranges_m, pass_.elevations_deg, strict=True):
        assert ra == pytest.approx(leo.slant_range_m(ALT, ea), rel=1e-6)
        assert rb == pytest.approx(leo.slant_range_m(ALT, eb), rel=1e-6)


def test_the_schedule_follows_the_pass(pass_):
    s = leo.esn0_schedule(pass_, "b", 12.0, ALT, 0.3)
    assert [t for t, _ in s] == pass_.times_s
    for (_, v), r, e in zip(s, pass_.ranges_m, pass_.elevations_deg, strict=True):
        assert v == pytest.approx(leo.esn0_db(12.0, ALT, r[1], e[1], 0.3), abs=0.005)
    # Highest where the satellite is closest.
    best = max(range(len(s)), key=lambda i: s[i][1])
    assert pass_.ranges_m[best][1] == min(r[1] for r in pass_.ranges_m)
    with pytest.raises(ValueError, match="station"):
        leo.esn0_schedule(pass_, "c", 12.0, ALT)


def test_a_carrier_runs_on_the_pass_s_es_n0(pass_):
    """The series is a DVB-S2 carrier's esn0_schedule: the run's frames use
    the MODCODs ACM picks from it; a budget 6 dB poorer carries less."""
    base = satcp.load(REPO / "scenarios" / "examples" / "dvbs2_rain_fade.toml")
    base["duration_s"] = 60.0
    base["apps"][0]["bytes"] = 100_000_000

    def delivered(zenith_db):
        sc = {**base, "links": [dict(link) for link in base["links"]]}
        sat = sc["links"][1]
        sat["ab"] = {**sat["ab"], "dvbs2": {**sat["ab"]["dvbs2"]}}
        sat["ab"]["dvbs2"]["esn0_schedule"] = leo.esn0_schedule(pass_, "b", zenith_db, ALT, 0.3)
        r = satcp.run(sc)
        return r.flows["client_bytes_delivered"].sum()

    good, poor = delivered(12.0), delivered(6.0)
    assert good > 0 and poor > 0
    assert poor < 0.8 * good

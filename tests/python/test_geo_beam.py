"""The GEO beam preset (satcp.topology.geo_beam): a valid scenario of N
terminals behind DVB-S2 and DVB-RCS2 carriers, deterministic, whose runs
serve every terminal and whose work grows with the terminals, not faster
(events, not time: speed targets live in `make bench-beam`)."""

from __future__ import annotations

import json

import pytest

import satcp
from satcp import _core
from satcp.topology import geo_beam, network


def test_the_preset_is_a_valid_scenario_and_the_same_for_the_same_arguments():
    sc = geo_beam(20, seed=3)
    _core.validate_json(json.dumps(sc))
    assert sc == geo_beam(20, seed=3)
    assert sc != geo_beam(20, seed=4)
    assert network("geo_beam", terminals=20, seed=3) == sc
    sat = sc["links"][1]
    assert len(sat["ab"]["dvbs2"]["terminals"]) == 20
    assert len(sat["ba"]["dvbrcs2"]["terminals"]) == 20
    # The return carrier holds return_rate_bps in 188-byte slots.
    rcs2 = sat["ba"]["dvbrcs2"]
    assert rcs2["slots"] * 188 * 8 / rcs2["superframe_s"] == pytest.approx(20e6, rel=0.01)
    esn0 = [t["esn0_db"] for t in sat["ab"]["dvbs2"]["terminals"]]
    assert all(6.0 <= e <= 14.0 for e in esn0)


@pytest.mark.parametrize(
    ("kwargs", "word"),
    [
        ({"terminals": 0}, "terminals"),
        ({"rainy_fraction": 1.5}, "rainy_fraction"),
        ({"esn0_db": (14.0, 6.0)}, "esn0_db"),
    ],
)
def test_bad_arguments_name_themselves(kwargs, word):
    with pytest.raises(ValueError, match=word):
        geo_beam(**{"terminals": 10, **kwargs})


def test_every_terminal_browses_and_the_work_grows_linearly():
    runs = {}
    for n in (10, 40):
        r = satcp.run(geo_beam(n, duration_s=20.0, download_fraction=0.0))
        runs[n] = r
        pages = r.transfers[r.transfers["outcome"] == "done"]
        served = {name.removeprefix("web-") for name in pages["app_name"]}
        assert served == {f"t{i}" for i in range(n)}, "every terminal got a page"
    per_terminal = {n: r.events / n for n, r in runs.items()}
    assert per_terminal[40] < 1.5 * per_terminal[10], per_terminal

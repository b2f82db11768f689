"""The DVB-RCS2 return carrier end to end (docs/satellite-access.md): the
example's uploads wait for dedicated slots one request-to-grant delay per
burst of data, random access skips that wait; the same seed gives the
same collisions; bad settings are one line naming the field and value."""

from __future__ import annotations

import json

import pytest
from conftest import REPO, run_cli

import satcp

EXAMPLE = REPO / "scenarios" / "examples" / "dvbrcs2_access.toml"


def carrier(r):
    return r.raw["links"][3]["dvbrcs2"]


def with_random_access(slots, seed=1, scheme="crdsa"):
    s = satcp.load(EXAMPLE)
    d = s["links"][1]["ba"]["dvbrcs2"]
    d["random_access_slots"] = slots
    d["random_access"] = scheme
    s["seed"] = seed
    return s


def test_random_access_delivers_short_uploads_sooner_than_dama():
    dama = satcp.run(EXAMPLE)
    ra = satcp.run(with_random_access(64))
    assert dama.apps_done and ra.apps_done
    # DAMA: each burst of data waits for its grant, about a GEO round trip
    # (and the 1 s initial RTO fires on the handshake); random access
    # sends in the next superframe.
    dama_s = dama.transfers["response_time_s"].mean()
    ra_s = ra.transfers["response_time_s"].mean()
    assert ra_s < dama_s - 1.0, (ra_s, dama_s)
    assert carrier(dama)["ra_packets"] == 0
    c = carrier(ra)
    assert c["slots_granted"] == 0 and c["vbdc_requests"] == 0
    assert c["ra_packets"] > 0
    assert c["ra_bursts_decoded"] <= c["ra_bursts"]


def test_collisions_are_the_seeds_and_lost_packets_are_repaired():
    # Two terminals uploading at once in slotted ALOHA, each 1,500-byte
    # packet in 8 bursts of 188 bytes: collisions. A packet lost in a
    # collision is lost on the link, and TCP sends it again.
    def scenario(seed):
        s = with_random_access(64, seed, "slotted_aloha")
        s["apps"][1]["start_s"] = 0.0
        return s

    runs = [satcp.run(scenario(seed)) for seed in (3, 3, 4)]
    assert all(r.apps_done for r in runs)
    a, b, c = (carrier(r) for r in runs)
    assert a["ra_packets_lost"] > 0
    assert a == b
    assert a != c
    for r in runs:
        lost = carrier(r)["ra_packets_lost"]
        links = r.links.set_index("name")
        assert links.loc["satellite:ba", "lost"] == lost
        if lost:
            assert r.flows["server_retransmitted_segments"].sum() > 0


@pytest.mark.parametrize(
    "setting, words",
    [
        ("links[satellite].ba.dvbrcs2.slots=0", "links[1].ba.dvbrcs2.slots: 0 must be between 1"),
        (
            "links[satellite].ba.dvbrcs2.replicas=4",
            "links[1].ba.dvbrcs2.replicas: 4 must be between 2 and 3",
        ),
        (
            "links[satellite].ba.dvbrcs2.cra_bps=1e7",
            "links[1].ba.dvbrcs2.cra_bps: 10000000 the terminals'",
        ),
        ("links[satellite].ba.dvbrcs2.terminals[0].node='nowhere'", "nowhere is not a node"),
    ],
)
def test_bad_settings_are_one_line_naming_the_field(tmp_path, setting, words):
    out = tmp_path / "out"
    p = run_cli("run", str(EXAMPLE), "--set", setting, "--out", str(out))
    assert p.returncode == 2, p.stderr
    assert words in p.stderr, p.stderr
    assert len(p.stderr.strip().splitlines()) == 1, p.stderr
    assert not out.exists()


def test_the_results_name_the_carrier_in_the_links_table(tmp_path):
    out = tmp_path / "out"
    p = run_cli("run", str(EXAMPLE), "--out", str(out), "-q")
    assert p.returncode == 0, p.stderr
    results = json.loads((out / "results.json").read_text())
    assert "dvbrcs2" in results["links"][3]
    assert "dvbrcs2" not in results["links"][2]
    r = satcp.Results(results)
    row = r.links.set_index("name").loc["satellite:ba"]
    assert row["dvbrcs2_slots_used"] > 0

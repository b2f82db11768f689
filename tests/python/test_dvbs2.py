"""The DVB-S2 forward carrier end to end (docs/satellite-access.md): a GEO
download through a rain fade slows down during the fade and recovers after
it; the synthetic fade is the seed's; the Es/N0 may come from a CSV file;
bad settings are one line naming the field and value."""

from __future__ import annotations

import json

import pytest
from conftest import REPO, run_cli

import satcp

EXAMPLE = REPO / "scenarios" / "examples" / "dvbs2_rain_fade.toml"


def forward_throughput(r, start_s, end_s):
    """Mean throughput of the carrier (satellite:ab) over [start_s, end_s), b/s."""
    links = r.links.set_index("name")
    link_id = links.loc["satellite:ab", "link"]
    s = r.link_series
    s = s[(s["link"] == link_id) & (s["time_s"] >= start_s) & (s["time_s"] < end_s)]
    return s["throughput_bps"].mean()


def test_throughput_drops_during_the_fade_and_recovers():
    # The example: Es/N0 12 dB, down to 1 dB from 30 s to 40 s, back to
    # 12 dB from 50 s. 2 Mbaud, 1 dB margin: 16APSK 3/4 in clear sky,
    # (48,408 - 80) bits / 16,686 symbols (90 + 180 slots + 11 pilot
    # blocks) = 2.896 b/symbol, 5.79 Mb/s; QPSK 2/5 in the fade,
    # (25,728 - 80) / 33,282 = 0.771 b/symbol, 1.54 Mb/s.
    r = satcp.run(EXAMPLE)
    assert r.apps_done
    clear = forward_throughput(r, 6, 20)
    fade = forward_throughput(r, 32, 40)
    after = forward_throughput(r, 53, 63)
    assert clear == pytest.approx(5.79e6 * 1500 / 1510, rel=0.03)
    assert fade == pytest.approx(1.54e6 * 1500 / 1510, rel=0.03)
    assert after > 0.95 * clear
    carrier = r.raw["links"][2]["dvbs2"]
    assert set(carrier["frames_by_modcod"]) >= {"16APSK 3/4", "QPSK 2/5"}
    # Each step down loses the frames of one loop delay (0.5 s).
    assert carrier["frames_lost"] > 0


def rain_scenario(seed):
    s = satcp.load(EXAMPLE)
    forward = s["links"][1]["ab"]["dvbs2"]
    del forward["esn0_schedule"]
    forward["esn0_db"] = 12.0
    # A strong, fast fade so that a minute shows it (real fades last
    # tens of minutes: beta 2e-4 per second).
    forward["rain"] = {"median_db": 4.0, "sigma": 0.6, "beta_per_s": 0.05}
    s["seed"] = seed
    return s


def test_the_synthetic_fade_is_the_seeds():
    a, b, c = (satcp.run(rain_scenario(seed)) for seed in (7, 7, 8))
    assert json.dumps(a.raw["links"]) == json.dumps(b.raw["links"])
    assert a.raw["links"][2]["dvbs2"] != c.raw["links"][2]["dvbs2"]
    # A fade of 4 dB median costs capacity: below the clear sky's.
    assert forward_throughput(a, 6, 60) < 5.0e6


def with_csv_schedule():
    """The example's text with its Es/N0 series read from esn0.csv."""
    text = EXAMPLE.read_text()
    start = text.index("esn0_schedule = [")
    end = text.index("]\n\n[[apps]]") + 1
    return text[:start] + 'esn0_schedule = "esn0.csv"' + text[end:]


def test_the_esn0_may_be_a_csv_file(tmp_path):
    s = satcp.load(EXAMPLE)
    points = s["links"][1]["ab"]["dvbs2"]["esn0_schedule"]
    (tmp_path / "esn0.csv").write_text(
        "time_s,esn0_db\n" + "".join(f"{t},{v}\n" for t, v in points)
    )
    (tmp_path / "s.toml").write_text(with_csv_schedule())
    from_file = satcp.run(tmp_path / "s.toml")
    inline = satcp.run(EXAMPLE)
    assert json.dumps(from_file.raw["links"]) == json.dumps(inline.raw["links"])


@pytest.mark.parametrize(
    ("override", "words"),
    [
        ('links[1].ab.dvbs2.modcods=["QPSK 7/8"]', ["links[1].ab.dvbs2.modcods[0]", "QPSK 7/8"]),
        ("links[1].ab.dvbs2.margin_db=-1", ["links[1].ab.dvbs2.margin_db", "-1"]),
        ("links[1].ab.dvbs2.frame=long", ["links[1].ab.dvbs2.frame", "long"]),
        ("links[1].ab.dvbs2.esn0_schedule=nofile.csv", ["links[1].ab.dvbs2.esn0_schedule"]),
    ],
)
def test_bad_settings_are_one_line(tmp_path, override, words):
    out = tmp_path / "out"
    p = run_cli("run", EXAMPLE, "--set", override, "--out", out)
    assert p.returncode == 2, p.stderr
    line = p.stderr.strip()
    assert "\n" not in line and line.startswith("satcp: error:"), line
    for w in words:
        assert w in line, line
    assert not out.exists()


def test_a_bad_csv_row_is_named(tmp_path):
    (tmp_path / "esn0.csv").write_text("time_s,esn0_db\n0,12\n10,twelve\n")
    (tmp_path / "s.toml").write_text(with_csv_schedule())
    p = run_cli("run", tmp_path / "s.toml", "--out", tmp_path / "out")
    assert p.returncode == 2
    assert "links[1].ab.dvbs2.esn0_schedule" in p.stderr and "line 3" in p.stderr, p.stderr


def shared_beam(fade_t2):
    """A GEO beam: one DVB-S2 carrier from the gateway to the beam, shared
    by terminals t1 (clear sky, 12 dB) and t2 (12 dB, or the example's
    fade down to 1 dB from 30 s to 50 s), each downloading from its
    server."""
    example = satcp.load(EXAMPLE)
    t2 = {"node": "t2", "esn0_db": 12.0}
    if fade_t2:
        t2 = {"node": "t2", "esn0_schedule": example["links"][1]["ab"]["dvbs2"]["esn0_schedule"]}
    fast = {"rate_bps": 1e9, "delay_s": 0.0}
    return {
        "name": "shared-beam",
        "duration_s": 70.0,
        "sample_interval_s": 1.0,
        "nodes": ["s1", "s2", "gateway", "beam", "t1", "t2"],
        "tcp": {"profile": "linux"},
        "links": [
            {"a": "s1", "b": "gateway", "rate_bps": 100e6, "delay_s": 0.01},
            {"a": "s2", "b": "gateway", "rate_bps": 100e6, "delay_s": 0.01},
            {
                "name": "satellite",
                "a": "gateway",
                "b": "beam",
                "delay_s": 0.25,
                "queue_packets": 300,
                "ba": {"rate_bps": 1e6},
                "ab": {
                    "dvbs2": {
                        "symbol_rate_baud": 2e6,
                        "margin_db": 1.0,
                        "esn0_db": 12.0,
                        "terminals": [{"node": "t1", "esn0_db": 12.0}, t2],
                    }
                },
            },
            {"a": "beam", "b": "t1", **fast},
            {"a": "beam", "b": "t2", **fast},
        ],
        "apps": [
            {"kind": "bulk", "client": "t1", "server": "s1"},
            {"kind": "bulk", "client": "t2", "server": "s2"},
        ],
    }


def terminal_throughput(r, name, start_s, end_s):
    """Mean throughput of the beam-to-terminal link over [start_s, end_s), b/s."""
    links = r.links.set_index("name")
    link_id = links.loc[f"beam-{name}:ab", "link"]
    s = r.link_series
    s = s[(s["link"] == link_id) & (s["time_s"] >= start_s) & (s["time_s"] < end_s)]
    return s["throughput_bps"].mean()


def test_terminals_share_the_carrier_each_with_its_modcod():
    clear = satcp.run(shared_beam(fade_t2=False))
    faded = satcp.run(shared_beam(fade_t2=True))
    # In clear sky the two downloads share the 5.8 Mb/s carrier about
    # equally (round robin over frames of the same MODCOD).
    t1, t2 = (terminal_throughput(clear, t, 10, 60) for t in ("t1", "t2"))
    assert t1 + t2 == pytest.approx(5.75e6, rel=0.05)
    assert t1 == pytest.approx(t2, rel=0.15)
    # t2's fade (QPSK 2/5 at its depth) slows t2 down; t1 keeps its own
    # MODCOD, and its frames alternate with t2's longer ones.
    t2_fade = terminal_throughput(faded, "t2", 32, 40)
    t1_fade = terminal_throughput(faded, "t1", 32, 40)
    assert t2_fade < 0.5 * t2
    assert t1_fade > t2_fade
    carrier = faded.raw["links"][4]["dvbs2"]
    assert carrier["terminals"]["t2"]["frames_lost"] > 0
    assert carrier["terminals"]["t1"]["frames_lost"] == 0
    assert carrier["terminals"]["beam"]["frames"] == 0


def test_a_shared_carrier_needs_drop_tail_queues_and_known_nodes():
    s = shared_beam(fade_t2=False)
    s["links"][2]["ab"]["queue"] = "red"
    with pytest.raises(satcp.ScenarioError, match=r"dvbs2\.terminals.*drop_tail"):
        satcp.run(s)
    s = shared_beam(fade_t2=False)
    s["links"][2]["ab"]["dvbs2"]["terminals"][0]["node"] = "t9"
    with pytest.raises(satcp.ScenarioError, match=r"terminals\[0\]\.node.*t9"):
        satcp.run(s)


def test_a_schedule_file_name_with_a_nul_byte_is_bad_input():
    # Found by the scenario fuzzer: open() raises ValueError on it.
    from satcp.scenario import read_schedule_csv

    with pytest.raises(satcp.ScenarioError, match=r"links\[0\]\.rate_schedule.*NUL"):
        read_schedule_csv("a\0b", "links[0].rate_schedule")

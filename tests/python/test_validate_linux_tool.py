"""The pure parts of `make validate-linux` (tools/validate_linux.py): the
scenarios it builds, its cache keys, its table and the alignment of the
kernel's cwnd series. The emulated runs themselves need root and real time
and are not part of `make test`."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from satcp import _core, emulate

ROOT = Path(__file__).resolve().parents[2]


def _load():
    spec = importlib.util.spec_from_file_location(
        "validate_linux", ROOT / "tools" / "validate_linux.py"
    )
    mod = importlib.util.module_from_spec(spec)
    sys.modules["validate_linux"] = mod
    spec.loader.exec_module(mod)
    return mod


vl = _load()


def _row(path="geo", cc="cubic", seed=1, t_sim=8.0, t_emu=8.0, r_sim=0, r_emu=0):
    return {
        "path": path,
        "cc": cc,
        "seed": seed,
        "time_sim_s": t_sim,
        "time_emu_s": t_emu,
        "goodput_sim_bps": 40e6 / t_sim,
        "goodput_emu_bps": 40e6 / t_emu,
        "retrans_sim": r_sim,
        "retrans_emu": r_emu,
    }


def test_table_has_one_line_per_row_and_flags_differences_above_ten_percent():
    text = vl.table([_row(t_sim=8.24, t_emu=7.72, r_sim=19), _row(cc="bbr", t_sim=9.2, t_emu=8.0)])
    lines = text.splitlines()
    assert len(lines) == 4
    assert lines[2] == (
        "| geo | cubic | 1 | 8.24 s | 7.72 s | - | 1.07 | 4.85 Mb/s | 5.18 Mb/s | 19 | 0 |"
    )
    # 9.2 / 8.0 = 1.15: more than 10 % apart, flagged.
    assert "| 1.15 ** |" in lines[3]
    assert "5.00 Mb/s" in lines[3]


def test_ratio_of_a_zero_time_is_nan():
    assert vl.ratio(1.0, 2.0) == 0.5
    assert vl.ratio(1.0, 0.0) != vl.ratio(1.0, 0.0)


def test_every_path_and_variant_is_a_valid_scenario_for_satcp():
    for path in vl.PATHS:
        for cc in vl.CCS:
            sc = vl.scenario(path, cc, 1)
            _core.validate_json(emulate.to_json(sc))
            assert sc["apps"][0]["tcp"] == {"profile": "linux", "variant": cc}
            assert f"--cc {cc}" in sc["emulate"]["run"][0]["cmd"]
            assert f"--bytes {vl.PATHS[path]['bytes']}" in sc["emulate"]["run"][1]["cmd"]


def test_leo_path_is_the_bundled_example_link_between_server_and_client():
    (link,) = vl.scenario("leo", "cubic", 1)["links"]
    assert (link["a"], link["b"]) == ("server", "client")
    assert link["delay_schedule"][0] == [0.0, 0.012]
    assert any(p == 1.0 for _, p in link["errors"]["loss_schedule"])


def test_only_random_paths_get_several_seeds():
    assert list(vl.seeds_of("geo", 3)) == [1]
    assert list(vl.seeds_of("leo", 3)) == [1]
    assert list(vl.seeds_of("geo-ge", 3)) == [1, 2, 3]
    assert list(vl.seeds_of("geo-ber", 2)) == [1, 2]


def test_cache_key_changes_with_the_scenario_only():
    a = vl.scenario("geo-ge", "reno", 1)
    assert vl.cache_key(a) == vl.cache_key(vl.scenario("geo-ge", "reno", 1))
    assert vl.cache_key(a) != vl.cache_key(vl.scenario("geo-ge", "reno", 2))
    assert vl.cache_key(a) != vl.cache_key(vl.scenario("geo-ge", "bbr", 1))


def test_a_repeat_is_a_run_of_its_own_and_the_first_keeps_the_old_key():
    a = vl.scenario("geo-ge", "cubic", 1)
    assert vl.cache_key(a, 0) == vl.cache_key(a)
    assert len({vl.cache_key(a, k) for k in range(3)}) == 3


def _transfer(t):
    return {"download_time_s": t - 0.6, "handshake_rtt_s": 0.6, "start_s": 1.0}


def test_median_run_of_repeats_and_the_range_in_the_table():
    runs = [(_transfer(t), [], None) for t in (8.68, 7.75, 8.10)]
    transfer, _, _ = vl.median_run(runs)
    assert vl.emulated_time(transfer) == 8.10
    # an even number: the lower middle
    transfer, _, _ = vl.median_run(runs[:2])
    assert vl.emulated_time(transfer) == 7.75
    r = {**_row(t_sim=7.74, t_emu=8.10), "time_emu_min_s": 7.75, "time_emu_max_s": 8.68}
    line = vl.table([{**r, "emu_runs": 3}]).splitlines()[2]
    assert "| 8.10 s | 7.75-8.68 s (3) | 0.96 |" in line


def test_emulated_cwnd_is_timed_from_the_connection_open():
    transfer = {"start_s": 0.85, "handshake_rtt_s": 0.55}
    series = [{"time_s": "1.30", "cwnd": "14480"}, {"time_s": "1.80", "cwnd": "28960"}]
    t, c = vl.emulated_cwnd(transfer, series)
    assert t == pytest.approx([1.0, 1.5])
    assert c == [14480.0, 28960.0]


def test_simulated_rows_and_cwnd_come_from_satcp(tmp_path):
    sc = vl.scenario("geo", "reno", 1)
    sc["apps"][0]["bytes"] = 100_000
    sim = vl.simulated(sc, 0.3)
    assert sc["apps"][0].get("start_s") is None  # the caller's scenario is left alone
    transfer = {"download_time_s": 1.0, "handshake_rtt_s": 0.54}
    series = [{"retransmitted_segments": "2"}]
    r = vl.row("geo", "reno", 1, 100_000, sim, transfer, series)
    assert r["time_emu_s"] == pytest.approx(1.54)
    assert r["retrans_emu"] == 2 and r["retrans_sim"] == 0
    # 100 kB in slow start over a 540 ms round trip: a handshake and 3 to 5 rounds.
    assert 2.0 < r["time_sim_s"] < 3.5
    t, c = vl.simulated_cwnd(sim, 0.3)
    assert t[0] == pytest.approx(0.0) and c[0] == 14600.0
    vl.plot("geo", "reno", [(1, (t, c), (t, c))], tmp_path)
    assert (tmp_path / "cwnd_geo_reno.png").stat().st_size > 0


def test_load_note_gives_the_range_and_says_what_is_missing():
    assert vl.load_note([1.94, 3.5], 2) == (
        "load average (1 minute) at the end of each emulated run: 1.9 to 3.5, on 2 cores\n"
    )
    assert "(1 of 3 runs cached without it)" in vl.load_note([2.0, None, 4.0], 2)
    assert "not recorded" in vl.load_note([None], 2)

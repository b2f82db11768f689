"""The examples gallery (scenarios/examples/): each scenario runs, finishes,
and exercises the feature it shows; the sweep file runs; the pcap example
writes a capture; the gallery's README lists every file."""

from __future__ import annotations

import re

import pytest
from conftest import REPO, run_cli

import satcp

EXAMPLES = REPO / "scenarios" / "examples"


def link(r, name):
    """The totals of a link's two directions."""
    rows = r.links[r.links["name"].str.startswith(f"{name}:")]
    assert len(rows) == 2, f"no link {name}"
    return rows.sum(numeric_only=True)


def check_geo_ftp(r):
    (rt,) = r.transfers["response_time_s"]
    # 1 MB at 2 Mb/s is 4 s; slow start over a 540 ms round trip adds more.
    assert 4.0 < rt < 30.0
    assert r.flows["srtt_s"].iloc[0] > 0.5


def check_leo_schedule(r):
    # The handover outages (loss 1 for 50 ms) lose packets.
    assert link(r, "leo")["lost"] > 0
    assert r.transfers["end_s"].iloc[0] > 30.0  # across both handovers


def check_emulate_leo_cubic(r):
    # Simulated (its [emulate] table left out), the same path as leo_schedule.
    check_leo_schedule(r)


def check_dvbs2_rain_fade(r):
    # ACM followed the fade down and back up; the frames sent in each loop
    # delay after a step down were lost (tests/python/test_dvbs2.py).
    carrier = r.raw["links"][2]["dvbs2"]
    assert len(carrier["frames_by_modcod"]) >= 4
    assert carrier["frames_lost"] > 0


def check_dvbrcs2_access(r):
    # The terminals' uploads went in dedicated slots granted on request
    # (tests/python/test_dvbrcs2.py compares random access).
    carrier = r.raw["links"][3]["dvbrcs2"]
    assert carrier["vbdc_requests"] > 0
    assert carrier["slots_used"] > 0
    assert set(carrier["terminals"]) == {"beam", "t1", "t2"}


def check_isl_path(r):
    # Every hop of the path carried the data.
    for name in ("uplink", "isl1", "isl2", "downlink"):
        assert link(r, name)["tx_packets"] > 10_000, name


def check_gilbert_elliott(r):
    lost = link(r, "satellite")["lost"]
    assert lost > 0
    assert r.flows["server_retransmitted_segments"].sum() >= lost


def check_red_ecn(r):
    assert link(r, "satellite")["ce_marks"] > 0
    assert r.flows["server_ecn_reductions"].sum() > 0
    assert r.flows["server_retransmitted_segments"].sum() == 0  # marks, not drops


def check_priority_peach(r):
    # Dummy segments were sent at low priority and pushed out of the
    # full buffer; the data suffered no more than the random losses.
    assert r.flows["server_extra_segments_sent"].sum() > 100
    assert link(r, "satellite")["queue_drops"] > 0
    assert r.flows["server_retransmitted_segments"].sum() <= link(r, "satellite")["lost"]


def check_link_arq(r):
    sat = link(r, "satellite")
    assert sat["arq_retransmissions"] > 0
    assert sat["corrupted"] == 0  # every corrupted frame recovered


def check_reordering(r):
    assert link(r, "satellite")["reordered"] > 0
    assert r.flows["server_dsacks_received"].sum() > 0
    assert r.flows["server_undos"].sum() > 0  # spurious reductions undone


def check_many_flows(r):
    assert len(r.flows) == 16
    ends = r.transfers["end_s"] - r.transfers["start_s"]
    assert ends.max() < 3 * ends.min()  # no flow starved


def check_web_http(r):
    kinds = r.transfers["kind"].value_counts()
    assert kinds["http"] == 6 and kinds["web"] == 10
    assert r.flows["server_low_priority_data_segments_sent"].sum() > 0  # Fast Start bursts


def check_pep_split(r):
    legs = r.pep.set_index("leg")  # the gateway split the download
    assert legs.loc["client-side", "variant"] == "hybla"
    assert legs.loc["server-side", "bytes_received"] == 1_000_000


def check_ack_filter(r):
    up = r.links[r.links["name"] == "satellite:ba"].iloc[0]
    assert up["acks_filtered"] > 100  # the uplink removed redundant ACKs
    assert up["queue_drops"] == 0
    assert r.transfers["response_time_s"].notna().all()


def check_pcap(r):
    assert link(r, "satellite")["lost"] == 2  # the two drop_seqs
    assert r.flows["server_fast_retransmits"].sum() == 2


def check_trace(r):
    t = r.trace
    assert set(t.kind.astype(str)) == {
        "cwnd", "ssthresh", "rtt", "srtt", "rto", "state", "retx", "queue",
    }  # fmt: skip
    # Both senders overflowed the gateway's buffer and recovered.
    server = t[t.side == "server"]
    assert set(server[server.kind == "state"].conn) == {0, 1}
    gateway = r.links.loc[r.links.name == "satellite:ab", "link"].item()
    assert t[(t.kind == "queue") & (t.link == gateway)].value.max() == 20


def check_variant_families(r):
    ran = set(r.flows["variant"])
    families = satcp._core.variant_families()  # (name, about, recoveries, shorthands)
    found = {name for name, _, _, shorthands in families if ran & {name, *shorthands}}
    assert found == {name for name, *_ in families}


CHECKS = {
    path.stem: globals()[f"check_{path.stem}"]
    for path in sorted(EXAMPLES.glob("*.toml"))
    if path.stem != "sweep"
}


def test_there_are_at_least_a_dozen_examples():
    assert len(CHECKS) >= 12
    assert (EXAMPLES / "sweep.toml").exists()


@pytest.mark.parametrize("name", sorted(CHECKS))
def test_example_runs_and_shows_its_feature(name):
    r = satcp.run(EXAMPLES / f"{name}.toml")
    assert r.apps_done, r.summary()
    assert (r.transfers["outcome"] == "done").all()
    CHECKS[name](r)


def test_the_sweep_example_runs(tmp_path):
    from satcp.sweep import load_sweep, run_sweep

    result = run_sweep(load_sweep(EXAMPLES / "sweep.toml"), tmp_path, progress=False)
    assert not result.failed
    assert len(result.runs) == 12
    assert len(result.summary) == 6
    lossy = result.runs["links[satellite].ab.errors.ber"] > 0
    assert (result.runs[lossy].corrupted > 0).all() and (result.runs[~lossy].corrupted == 0).all()
    assert result.summary.mean_srtt_s_mean.gt(0.5).all()  # a GEO round trip


def test_the_pcap_example_writes_a_capture(tmp_path):
    p = run_cli("run", EXAMPLES / "pcap.toml", "--pcap", "satellite:ab", "--out", tmp_path, "-q")
    assert p.returncode == 0, p.stderr
    data = (tmp_path / "satellite-ab.pcap").read_bytes()
    magic = {0xA1B2C3D4, 0xA1B23C4D}  # pcap, in microseconds or nanoseconds
    assert int.from_bytes(data[:4], "big") in magic or int.from_bytes(data[:4], "little") in magic
    order = "big" if int.from_bytes(data[:4], "big") in magic else "little"
    packets, at = 0, 24
    while at < len(data):  # records: a 16-byte header, then incl_len bytes
        at += 16 + int.from_bytes(data[at + 8 : at + 12], order)
        packets += 1
    assert at == len(data)
    assert packets > 300_000 // 1448  # every data segment


def test_the_trace_script_loads_and_plots_the_trace(tmp_path):
    import subprocess
    import sys

    p = subprocess.run(
        [sys.executable, EXAMPLES / "trace_cwnd.py", tmp_path],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert p.returncode == 0, p.stderr
    assert (tmp_path / "trace.parquet").exists()
    assert (tmp_path / "trace-cwnd-example.png").read_bytes()[:4] == b"\x89PNG"
    assert "seconds in recovery per connection: {0: " in p.stdout


def test_the_gallery_readme_lists_every_example():
    readme = (EXAMPLES / "README.md").read_text()
    listed = set(re.findall(r"\[([a-z0-9_]+\.(?:toml|py))\]", readme))
    assert listed == {p.name for p in [*EXAMPLES.glob("*.toml"), *EXAMPLES.glob("*.py")]}

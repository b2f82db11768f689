"""The helpers of `make validate` (tools/ns3/): the driver's satcp side and
tables, and the pcap reader that finds where two runs diverge. ns-3 itself
is not needed (it is not installed in CI)."""

from __future__ import annotations

import importlib.util
import math
import sys
from pathlib import Path

import pytest

import satcp

ROOT = Path(__file__).resolve().parents[2]
TOOLS = ROOT / "tools" / "ns3"


def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, TOOLS / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


validate_loss = _load("validate_loss")
trace_diff = _load("trace_diff")

DROPS = [14601, 29201]


@pytest.fixture(scope="module")
def capture(tmp_path_factory) -> Path:
    """A 300 kB SACK download on the thesis path with two segments lost once."""
    out = tmp_path_factory.mktemp("cap") / "down.pcap"
    satcp.run(
        ROOT / "scenarios" / "thesis_ftp.toml",
        overrides=[
            "apps[0].file_bytes=300000",
            f"links[1].ab.errors.drop_seqs={DROPS}",
            "sample_interval_s=0",
        ],
        pcap={"satellite:ab": out},
    )
    return out


def test_trace_reader_finds_the_retransmissions(capture):
    sends = trace_diff.data_sends(trace_diff.tcp_segments(capture))
    rtx = [s["seq"] for s in sends if s["rtx"]]
    assert rtx == DROPS
    assert sends[0]["seq"] == 1 and sends[0]["len"] == 1460
    # 300,000 bytes: 205 full segments and one of 700, each sent once, plus 2.
    assert len(sends) == 206 + 2
    assert sum(s["len"] for s in sends if not s["rtx"]) == 300_000


def test_trace_diff_of_a_run_with_itself_finds_no_divergence(capture, capsys):
    assert trace_diff.main([str(capture), str(capture)]) == 0
    assert "no divergence" in capsys.readouterr().out


def test_trace_diff_reports_the_first_difference(capture, tmp_path, capsys):
    other = tmp_path / "other.pcap"
    satcp.run(
        ROOT / "scenarios" / "thesis_ftp.toml",
        overrides=["apps[0].file_bytes=300000", "links[1].ab.errors.drop_seqs=[14601]"],
        pcap={"satellite:ab": other},
    )
    trace_diff.main([str(capture), str(other)])
    out = capsys.readouterr().out
    assert "first divergence" in out
    # The runs differ only in the loss of 29201, which the sender can notice
    # only after that segment has been sent: the first difference is later.
    first = int(next(ln for ln in out.splitlines() if ln.startswith(">>")).split()[1])
    sends = trace_diff.data_sends(trace_diff.tcp_segments(capture))
    sent_29201 = next(i for i, s in enumerate(sends) if s["seq"] == 29201)
    assert first > sent_29201


def test_satcp_side_matches_a_direct_run():
    pt = validate_loss.Point("BER 1e-6", 1e-6, 1000, 1_000_000)
    run = validate_loss.Run(pt, True, 3)
    m = validate_loss.run_satcp(run)
    r = satcp.run(
        ROOT / "scenarios" / "thesis_ftp.toml",
        seed=3,
        overrides=[
            "tcp.variant=sack",
            "tcp.max_rto=60",
            "links[1].ab.errors.ber=1e-6",
            "apps[0].file_bytes=1000000",
        ],
    )
    srv = r.raw["flows"][0]["server"]
    assert m["download_time_s"] == r.raw["transfers"][0]["response_time_s"]
    assert m["retransmitted_segments"] == srv["retransmitted_segments"]
    assert m["timeouts"] == srv["timeouts"]


def test_summary_means_and_differences():
    rows = []
    for seed, (n3, us) in enumerate([(100.0, 110.0), (300.0, 310.0)], start=1):
        row = {"point": "p", "file_bytes": 10, "delack": "on", "seed": seed}
        for key, _ in validate_loss.METRICS:
            row[f"ns3_{key}"] = n3
            row[f"satcp_{key}"] = us
        rows.append(row)
    summary = validate_loss.summarise(rows)
    assert len(summary) == len(validate_loss.METRICS)
    s = summary[0]
    assert (s["ns3_mean"], s["satcp_mean"], s["seeds"]) == (200.0, 210.0, 2)
    assert s["diff_pct"] == pytest.approx(5.0)
    assert "+5.0%" in validate_loss.markdown(summary)
    assert math.isinf(validate_loss.diff_pct(0.0, 1.0))
    assert validate_loss.diff_pct(0.0, 0.0) == 0.0

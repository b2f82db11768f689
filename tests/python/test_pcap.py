"""pcap captures of link directions, read back by tshark as a real
capture: the flow is recognised, retransmissions flagged, SACK blocks
decoded, no checksum errors. tshark comes from the project's setup
(`.ci/run` installs it); where it is missing the test is skipped, unless
SATCP_REQUIRE_TSHARK=1 (set by `.ci/run`) makes that a failure."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest
from conftest import FTP, run_cli

TSHARK = shutil.which("tshark")
if TSHARK is None and os.environ.get("SATCP_REQUIRE_TSHARK") == "1":
    raise RuntimeError("tshark is required (SATCP_REQUIRE_TSHARK=1) but not installed")
needs_tshark = pytest.mark.skipif(TSHARK is None, reason="tshark not installed")

LOSSY = [
    "--set",
    "apps[0].file_bytes=300000",
    "--set",
    "links[1].ab.errors.ber=1e-5",
    "--set",
    "tcp.timestamps=true",
    "--set",
    "tcp.window_scaling=true",
    "--set",
    "tcp.rcv_buffer=200000",
]


def tshark(path, *args):
    p = subprocess.run(
        [TSHARK, "-r", str(path), *args], capture_output=True, text=True, check=True, timeout=60
    )
    return p.stdout


@pytest.fixture(scope="module")
def capture(tmp_path_factory):
    out = tmp_path_factory.mktemp("pcap") / "run"
    proc = run_cli(
        "run",
        FTP,
        *LOSSY,
        "--out",
        out,
        "--pcap",
        "satellite:ab",
        "--pcap",
        "satellite:ba",
        "--quiet",
    )
    assert proc.returncode == 0, proc.stderr
    return out


def test_capture_files_are_written_with_the_results(capture):
    names = {p.name for p in capture.iterdir()}
    assert {"satellite-ab.pcap", "satellite-ba.pcap", "flows.csv"} <= names
    assert not [n for n in os.listdir(capture.parent) if n.startswith(".satcp-pcap-")]


@needs_tshark
def test_tshark_reads_a_lossy_sack_transfer(capture):
    down, up = capture / "satellite-ab.pcap", capture / "satellite-ba.pcap"
    conv = tshark(down, "-q", "-z", "conv,tcp")
    assert "10.0.0.1:40000" in conv and "10.0.0.3:49152" in conv, conv
    rtx = tshark(down, "-Y", "tcp.analysis.retransmission")
    assert len(rtx.splitlines()) > 0, "retransmissions flagged"
    sack = tshark(up, "-Y", "tcp.options.sack_le", "-T", "fields", "-e", "tcp.options.sack_le")
    assert len(sack.splitlines()) > 0, "SACK blocks decoded"
    opts = tshark(
        down,
        "-Y",
        "tcp.flags.syn==1",
        "-T",
        "fields",
        "-e",
        "tcp.options.wscale.shift",
        "-e",
        "tcp.options.timestamp.tsval",
    )
    assert opts.split()[0] == "2", opts  # 200,000 bytes need a shift of 2
    bad = tshark(
        down,
        "-o",
        "tcp.check_checksum:TRUE",
        "-o",
        "ip.check_checksum:TRUE",
        "-Y",
        "tcp.checksum.status==0 || ip.checksum.status==0",
    )
    assert bad == "", "checksum errors"
    n = tshark(down, "-q", "-z", "io,stat,0")
    assert "Frames" in n


def test_bad_pcap_link_is_one_line(tmp_path):
    proc = run_cli(
        "run", FTP, "--set", "apps[0].file_bytes=1000", "--pcap", "moon:ab", "--out", tmp_path / "o"
    )
    assert proc.returncode == 2
    assert "moon" in proc.stderr and len(proc.stderr.splitlines()) == 1
    assert not (tmp_path / "o").exists()

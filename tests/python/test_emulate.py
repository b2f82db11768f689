"""satcp emulate end to end (docs/emulation.md): real hosts in network
namespaces, the relay carrying their packets through the scenario's links,
the bundled workload (satcp-bulk) measuring what it gets.

These need Linux, root, `ip`, `ethtool` and the relay (`make emu`); where
any is missing they are skipped, unless SATCP_REQUIRE_EMULATION=1 (set by
`.ci/run`) makes that a failure. Every test is bounded in time (the
scenario's duration_s ends the relay; every command has a timeout) and in
packets, and checks that nothing it made is left."""

from __future__ import annotations

import csv
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import REPO, run_cli

from satcp import emulate


def _why_not() -> str | None:
    if sys.platform != "linux":
        return "emulation needs Linux"
    if os.geteuid() != 0:
        return "emulation needs root (network namespaces)"
    for tool in ("ip", "ethtool"):
        if shutil.which(tool) is None:
            return f"{tool} not installed"
    try:
        emulate.relay_binary()
    except emulate.EmulationError:
        return "the relay is not built (make emu)"
    # Root in a container may still lack the right to make namespaces.
    probe = f"satcp-probe-{os.getpid()}"
    made = subprocess.run(["ip", "netns", "add", probe], capture_output=True, text=True)
    if made.returncode != 0:
        return f"cannot create a network namespace: {made.stderr.strip()}"
    subprocess.run(["ip", "netns", "del", probe], check=False)
    return None


WHY_NOT = _why_not()
if WHY_NOT and os.environ.get("SATCP_REQUIRE_EMULATION") == "1":
    raise RuntimeError(f"emulation tests required (SATCP_REQUIRE_EMULATION=1): {WHY_NOT}")
needs_emulation = pytest.mark.skipif(WHY_NOT is not None, reason=WHY_NOT or "")

#: A hang guard per emulation, not a speed target.
TIMEOUT_S = 120


def ours() -> list[str]:
    """The namespaces of satcp emulations on this machine."""
    out = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    return [line.split()[0] for line in out.splitlines() if line.startswith(emulate.PREFIX)]


def _owner_alive(netns: str) -> bool:
    """The emulation that made ``netns`` is still running (its controller's
    pid, in the name, is alive): another instance on this machine, not one
    this test left behind."""
    m = emulate._NAME_RE.match(netns)
    return m is not None and emulate._start_time(int(m.group(1))) == int(m.group(2))


@pytest.fixture
def clean():
    """Fails a test that leaves a namespace behind (and removes it). The
    namespaces of emulations still running elsewhere on the machine (their
    controller alive) are not this test's."""
    before = set(ours())
    yield
    left = {n for n in set(ours()) - before if not _owner_alive(n)}
    for netns in left:
        subprocess.run(["ip", "netns", "del", netns], check=False)
    assert not left, f"left behind: {sorted(left)}"


def scenario(tmp: Path, link: str, runs: str, duration_s: float = 30.0) -> Path:
    """A scenario file: hosts server and client joined by `link` (TOML
    fields of one [[links]] entry), with [[emulate.run]] entries `runs`."""
    text = f"""
name = "test"
duration_s = {duration_s}
nodes = ["server", "client"]
[[links]]
name = "sat"
a = "server"
b = "client"
{link}
[[apps]]
kind = "bulk"
client = "client"
server = "server"
bytes = 1000
{runs}
"""
    path = tmp / "scenario.toml"
    path.write_text(text)
    return path


def emulate_cli(*args) -> subprocess.CompletedProcess[str]:
    r = subprocess.run(
        [sys.executable, "-m", "satcp.cli", "emulate", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        check=False,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    return r


def ping_rows(out: Path) -> list[dict[str, float]]:
    with open(out / "ping.csv") as f:
        return [{k: float(v) for k, v in row.items()} for row in csv.DictReader(f)]


PING = """
[[emulate.run]]
host = "server"
cmd = "satcp-bulk echo"
background = true
[[emulate.run]]
host = "client"
cmd = "satcp-bulk ping $SATCP_ADDR_server --count {count} --interval-ms {interval} --out $SATCP_OUT"
"""


@needs_emulation
def test_delay_and_rate_are_those_of_the_link(tmp_path, clean):
    # 10 Mb/s and 20 ms each way; a queue that a download does not fill.
    link = "rate_bps = 10e6\ndelay_s = 0.02\nqueue_packets = 2000"
    runs = (
        PING.format(count=20, interval=20)
        + """
[[emulate.run]]
host = "server"
cmd = "satcp-bulk serve --cc cubic --once --out $SATCP_OUT"
background = true
[[emulate.run]]
host = "client"
cmd = "satcp-bulk get $SATCP_ADDR_server --bytes 4000000 --out $SATCP_OUT"
"""
    )
    out = tmp_path / "out"
    emulate_cli(scenario(tmp_path, link, runs), "--out", out)
    # A probe: 64 bytes of UDP payload, 92 bytes of IP, each way.
    one_way = 0.02 + 92 * 8 / 10e6
    rows = ping_rows(out)
    assert statistics.median(r["one_way_s"] for r in rows) == pytest.approx(one_way, rel=0.02)
    assert statistics.median(r["rtt_s"] for r in rows) == pytest.approx(2 * one_way, rel=0.02)
    # Full segments: 1,448 bytes of payload in 1,500 of IP (timestamps on).
    t = json.loads((out / "transfer.json").read_text())
    assert t["second_half_goodput_bps"] == pytest.approx(10e6 * 1448 / 1500, rel=0.02)
    s = json.loads((out / "emulation.json").read_text())
    assert s["relay"]["unroutable"] == 0 and s["relay"]["socket_drops"] == 0
    with open(out / "flow_series.csv") as f:
        series = list(csv.DictReader(f))
    assert len(series) > 10 and max(int(r["cwnd"]) for r in series) > 14480
    # satcp plot draws the kernel's series as it draws a simulation's.
    r = run_cli("plot", out)
    assert r.returncode == 0, r.stderr
    assert (out / "cwnd.png").exists() and (out / "links.png").exists()
    with open(out / "link_series.csv") as f:
        ab = [r for r in csv.DictReader(f) if r["link"] == "0"]
    # Sampled every 0.1 s; the download kept the link busy for seconds.
    assert len(ab) > 20 and max(float(r["utilization"]) for r in ab) > 0.95


@needs_emulation
def test_an_http_page_over_a_geo_link(tmp_path, clean):
    link = "rate_bps = 2e6\ndelay_s = 0.27\nqueue_packets = 100"
    runs = """
[[emulate.run]]
host = "server"
cmd = "satcp-bulk http-serve --cc cubic"
background = true
[[emulate.run]]
host = "client"
cmd = "satcp-bulk http-get $SATCP_ADDR_server --sizes 50000,10000,10000 --out $SATCP_OUT"
"""
    out = tmp_path / "out"
    emulate_cli(scenario(tmp_path, link, runs), "--out", out)
    h = json.loads((out / "http.json").read_text())
    rtt = 2 * 0.27
    # Each object is a request and its answer: at least a round trip each,
    # the first one's slow start a few more.
    assert [o["bytes"] for o in h["objects"]] == [50000, 10000, 10000]
    assert all(o["time_s"] > rtt for o in h["objects"])
    assert 3 * rtt < h["page_time_s"] < 20 * rtt


def _has_aioquic() -> bool:
    try:
        import aioquic  # noqa: F401
    except ImportError:
        return False
    return True


HAS_AIOQUIC = _has_aioquic()
if not HAS_AIOQUIC and WHY_NOT is None and os.environ.get("SATCP_REQUIRE_EMULATION") == "1":
    raise RuntimeError("aioquic is required (requirements-dev.txt) for the QUIC emulation test")


@needs_emulation
@pytest.mark.skipif(not HAS_AIOQUIC, reason="aioquic not installed")
def test_quic_and_tcp_both_complete_over_a_lossy_geo_path(tmp_path, clean):
    link = "rate_bps = 2e6\ndelay_s = 0.27\nqueue_packets = 100\nab = { errors = { loss = 0.02 } }"
    runs = """
[[emulate.run]]
host = "server"
cmd = "satcp-bulk quic-serve --cc cubic"
background = true
[[emulate.run]]
host = "server"
cmd = "satcp-bulk serve --cc cubic --once"
background = true
[[emulate.run]]
host = "client"
cmd = "satcp-bulk quic-get $SATCP_ADDR_server --bytes 300000 --timeout 60 --out $SATCP_OUT"
[[emulate.run]]
host = "client"
cmd = "satcp-bulk get $SATCP_ADDR_server --bytes 300000 --out $SATCP_OUT"
"""
    out = tmp_path / "out"
    emulate_cli(scenario(tmp_path, link, runs, duration_s=120), "--out", out)
    quic = json.loads((out / "quic_transfer.json").read_text())
    tcp = json.loads((out / "transfer.json").read_text())
    assert quic["bytes"] == tcp["bytes"] == 300_000
    # 300 kB at 2 Mb/s is 1.2 s; both took longer (round trips of 540 ms).
    assert quic["download_time_s"] > 1.2 and tcp["download_time_s"] > 1.2
    s = json.loads((out / "emulation.json").read_text())
    assert next(x for x in s["links"] if x["dir"] == "ab")["lost"] > 0


@needs_emulation
def test_a_delay_schedule_is_seen_by_probes_at_its_time(tmp_path, clean):
    link = "rate_bps = 10e6\ndelay_schedule = [[0.0, 0.01], [2.0, 0.04]]"
    out = tmp_path / "out"
    emulate_cli(scenario(tmp_path, link, PING.format(count=40, interval=100)), "--out", out)
    rows = ping_rows(out)
    assert len(rows) >= 38
    before = [r["rtt_s"] for r in rows if r["time_s"] < 1.95]
    after = [r["rtt_s"] for r in rows if r["time_s"] > 2.05]
    ser = 92 * 8 / 10e6
    assert statistics.median(before) == pytest.approx(2 * (0.01 + ser), rel=0.02)
    assert statistics.median(after) == pytest.approx(2 * (0.04 + ser), rel=0.02)


@needs_emulation
def test_a_gilbert_elliott_link_loses_probes_in_bursts(tmp_path, clean):
    # Only the forward direction loses: every probe lost is a loss there.
    link = (
        "rate_bps = 10e6\ndelay_s = 0.005\n"
        "ba = { errors = { gilbert_elliott = { p = 0.02, r = 0.25 } } }"
    )
    out = tmp_path / "out"
    count = 400
    emulate_cli(
        scenario(tmp_path, link, PING.format(count=count, interval=2)),
        "--out",
        out,
        "--pcap",
        "sat:ba",
    )
    answered = {int(r["seq"]) for r in ping_rows(out)}
    lost = [s for s in range(count) if s not in answered]
    s = json.loads((out / "emulation.json").read_text())
    ba = next(link for link in s["links"] if link["dir"] == "ba")
    assert ba["lost"] == len(lost) > 0
    bursts = sum(1 for s in lost if s - 1 not in lost)
    assert bursts < len(lost), "some losses come in bursts of two or more"
    # The capture holds every frame sent on the lossy direction, lost or not.
    assert s["pcap"][0]["packets"] == ba["tx_packets"] >= count
    assert (out / "sat-ba.pcap").stat().st_size > count * 100


@needs_emulation
def test_sigkill_leaves_nothing_after_cleanup(tmp_path, clean):
    p, mine = start_long_emulation(tmp_path)
    try:
        p.send_signal(signal.SIGKILL)
        p.wait(timeout=10)
    finally:
        if p.poll() is None:
            p.kill()
    assert any(n.startswith(mine) for n in ours()), "a SIGKILL leaves the namespaces"
    r = emulate_cli("--cleanup")
    assert "stale namespaces removed" in r.stdout
    assert not any(n.startswith(mine) for n in ours())
    # The relay died with its controller; the host's command was ended.
    time.sleep(0.5)
    ps = subprocess.run(["ps", "-eo", "pid,args"], capture_output=True, text=True).stdout
    assert mine not in ps and "sleep 61" not in ps, ps


def start_long_emulation(tmp_path: Path) -> tuple[subprocess.Popen[str], str]:
    """An emulation whose command runs for a minute, once it runs; the
    prefix of its namespaces."""
    runs = '[[emulate.run]]\nhost = "client"\ncmd = "sleep 61"\n'
    path = scenario(tmp_path, "rate_bps = 1e6", runs, duration_s=60)
    p = subprocess.Popen(
        [sys.executable, "-m", "satcp.cli", "emulate", str(path), "--out", str(tmp_path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    mine = f"{emulate.PREFIX}{p.pid}-"
    deadline = time.monotonic() + 30
    while (
        "sleep 61"
        not in subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True).stdout
    ):
        assert time.monotonic() < deadline, "the emulation did not start"
        time.sleep(0.1)
    assert len([n for n in ours() if n.startswith(mine)]) == 3
    return p, mine


@needs_emulation
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_ctrl_c_or_sigterm_removes_everything(tmp_path, clean, sig):
    p, mine = start_long_emulation(tmp_path)
    try:
        p.send_signal(sig)
        out, _ = p.communicate(timeout=30)
    finally:
        if p.poll() is None:
            p.kill()
    assert p.returncode == 130, out
    assert not any(n.startswith(mine) for n in ours())
    ps = subprocess.run(["ps", "-eo", "pid,args"], capture_output=True, text=True).stdout
    assert "sleep 61" not in ps and mine not in ps, ps


@needs_emulation
def test_two_instances_do_not_collide(tmp_path, clean):
    runs = PING.format(count=5, interval=50)
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "satcp.cli",
                "emulate",
                str(scenario(d, "rate_bps = 1e6", runs)),
                "--out",
                str(d / "out"),
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        for d in (a, b)
    ]
    for p in procs:
        out, _ = p.communicate(timeout=TIMEOUT_S)
        assert p.returncode == 0, out
    for d in (a, b):
        assert len(ping_rows(d / "out")) == 5


@needs_emulation
def test_a_command_after_dashes_runs_in_a_host_with_one_route_inside_198_18(tmp_path, clean):
    # No [[emulate.run]]: the command after -- is the emulation's.
    path = scenario(tmp_path, "rate_bps = 1e6", "")
    out = tmp_path / "out"
    probe = "ip -4 -o addr show; echo ROUTES; ip -4 route show; echo ALL; ip -o link show"
    emulate_cli(
        path, "--out", out, "--host", "server", "--", "sh", "-c", f"({probe}) > {out}/net.txt"
    )
    text = (out / "net.txt").read_text()
    addrs, rest = text.split("ROUTES")
    routes, links = rest.split("ALL")
    assert "198.18.0.2/24" in addrs and "eth0" in addrs
    assert [r.split()[0] for r in routes.strip().splitlines()] == ["198.18.0.0/24"]
    assert {line.split(":")[1].strip().split("@")[0] for line in links.strip().splitlines()} == {
        "lo",
        "eth0",
    }


@needs_emulation
def test_a_relay_that_does_not_start_leaves_nothing(tmp_path, clean):
    path = scenario(tmp_path, "rate_bps = 1e6", PING.format(count=1, interval=10))
    r = subprocess.run(
        [sys.executable, "-m", "satcp.cli", "emulate", str(path), "--out", str(tmp_path / "o")],
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        env={**os.environ, "SATCP_EMU_BIN": "/bin/false"},
    )
    assert r.returncode == 2 and "the relay did not start" in r.stderr, r.stderr


def test_bad_emulate_tables_are_one_line_errors(tmp_path):
    for runs, field in [
        ('[[emulate.run]]\nhost = "nobody"\ncmd = "true"\n', "emulate.run[0].host"),
        ('[[emulate.run]]\nhost = "client"\n', "emulate.run[0].cmd"),
        ('[emulate]\nhosts = ["client"]\n', "emulate.hosts"),
        ("[emulate]\nspeed = 1\n", "emulate.speed"),
        ("", "nothing to run"),
    ]:
        r = run_cli("emulate", scenario(tmp_path, "rate_bps = 1e6", runs), "--out", tmp_path / "o")
        assert r.returncode == 2, r.stderr
        assert field in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
        assert not (tmp_path / "o").exists()


def test_a_simulation_leaves_the_emulate_table_out(tmp_path):
    runs = '[[emulate.run]]\nhost = "client"\ncmd = "true"\n'
    r = run_cli("run", scenario(tmp_path, "rate_bps = 1e6", runs), "--quiet")
    assert r.returncode == 0, r.stderr
    assert (REPO / "scenarios/examples/emulate_leo_cubic.toml").exists()


def _link_stats(**extra):
    stats = {c: 0 for c in emulate.LINK_COLUMNS if c not in ("link", "name")}
    return {"link": "sat", "dir": "ab", **stats, **extra}


def test_links_csv_has_acks_filtered_only_when_a_link_filtered(tmp_path):
    # No root needed: the table from a summary as the relay writes it.
    series = {c: [] for c in emulate.LINK_SERIES_COLUMNS}
    plain = {"links": [_link_stats(), _link_stats(dir="ba")], "link_series": dict(series)}
    emulate.write_link_tables(plain, str(tmp_path))
    with open(tmp_path / "links.csv") as f:
        assert "acks_filtered" not in next(csv.reader(f))
    filtered = {"links": [_link_stats(), _link_stats(dir="ba", acks_filtered=7)]}
    emulate.write_link_tables({**filtered, "link_series": dict(series)}, str(tmp_path))
    with open(tmp_path / "links.csv") as f:
        rows = list(csv.DictReader(f))
    assert [r["acks_filtered"] for r in rows] == ["0", "7"]
    assert [r["name"] for r in rows] == ["sat:ab", "sat:ba"]

"""Bad input, table-driven: each malformed scenario or command line gives
exit code 2, one line ``satcp: error: ...`` naming the field (or file) and
the value, no traceback, and leaves no output behind."""

from __future__ import annotations

import pytest
from conftest import FTP, SMALL_FTP, run_cli

SMALL = [a for o in SMALL_FTP for a in ("--set", o)]

# (--set overrides on the thesis FTP scenario, fragments the one line must hold)
OVERRIDES = [
    (["tcp.variant=foo"], ["tcp.variant", "foo"]),
    (["tcp.recovery=vegas"], ["tcp.recovery", "vegas"]),
    (["tcp.recovery=newreno"], ["tcp.recovery", "newreno", "sack"]),
    (["tcp.mss=0"], ["tcp.mss", "0"]),
    (["tcp.mss=-1"], ["tcp.mss", "-1"]),
    (["tcp.initial_window=0"], ["tcp.initial_window", "0"]),
    (["tcp.rcv_buffer=70000"], ["tcp.rcv_buffer", "70000", "window_scaling"]),
    (["tcp.rcv_buffer=0"], ["tcp.rcv_buffer", "0"]),
    (["tcp.min_rto=-1"], ["tcp.min_rto", "-1"]),
    (["tcp.min_rto=nan"], ["tcp.min_rto"]),
    (["tcp.max_rto=0.1"], ["tcp.max_rto", "0.1"]),
    (["tcp.delayed_ack=maybe"], ["tcp.delayed_ack", "maybe"]),
    (["tcp.dupack_threshold=0"], ["tcp.dupack_threshold", "0"]),
    (["tcp.adalr.rho_max=4"], ["tcp.adalr", "sack"]),
    (["tcp.variant=adalr", "tcp.adalr.rho_max=-4"], ["tcp.adalr.rho_max", "-4"]),
    (["tcp.variant=slowstart", "tcp.slowstart.function=cubic"], ["tcp.slowstart.function"]),
    (["tcp.variant=slowstart", "tcp.slowstart.k=-2"], ["tcp.slowstart.k", "-2"]),
    (["tcp.colour=red"], ["tcp", "colour"]),
    (["links[0].rate_bps=0"], ["links[0].rate_bps", "0"]),
    (["links[0].rate_bps=-5"], ["links[0].rate_bps", "-5"]),
    (["links[0].delay_s=-0.1"], ["links[0].delay_s", "-0.1"]),
    (["links[0].delay_s=inf"], ["links[0].delay_s"]),
    (["links[1].ber=2"], ["links[1].ber", "2"]),
    (["links[1].ab.ber=-0.1"], ["links[1].ab.ber", "-0.1"]),
    (["links[1].loss=1.5"], ["links[1].loss", "1.5"]),
    (["links[1].duplicate=-1"], ["links[1].duplicate", "-1"]),
    (["links[1].reorder=2"], ["links[1].reorder", "2"]),
    (["links[1].reorder_delay=weird"], ["links[1].reorder_delay", "weird"]),
    (["links[1].queue=fifo"], ["links[1].queue", "fifo"]),
    (["links[1].queue_packets=0"], ["links[1].queue_packets", "0"]),
    (["links[1].ab.rate_bps=-1"], ["links[1].ab.rate_bps", "-1"]),
    (["links[0].a=moon"], ["links[0].a", "moon"]),
    (["links[0].b=server"], ["links[0]", "server"]),
    (["apps[0].client=moon"], ["apps[0].client", "moon"]),
    (["apps[0].kind=ftpx"], ["apps[0].kind", "ftpx"]),
    (["apps[0].file_bytes=-1"], ["apps[0].file_bytes", "-1"]),
    (["apps[0].start_s=-1"], ["apps[0].start_s", "-1"]),
    (["apps[0].tcp.mss=0"], ["apps[0].tcp.mss", "0"]),
    (["duration_s=0"], ["duration_s", "0"]),
    (["duration_s=-5"], ["duration_s", "-5"]),
    (["sample_interval_s=-1"], ["sample_interval_s", "-1"]),
    (["seed=-1"], ["seed", "-1"]),
    (["name=3"], ["name", "3"]),
]


@pytest.mark.parametrize(("overrides", "fragments"), OVERRIDES, ids=lambda v: str(v))
def test_bad_overrides(tmp_path, overrides, fragments):
    out = tmp_path / "out"
    args = ["run", FTP, *SMALL, "--out", out]
    for o in overrides:
        args += ["--set", o]
    _assert_bad(run_cli(*args), fragments)
    assert not out.exists()


BASE = """
name = "x"
nodes = ["server", "client"]
[[links]]
a = "server"
b = "client"
rate_bps = 1e6
delay_s = 0.1
[[apps]]
kind = "ftp"
client = "client"
server = "server"
file_bytes = 1000
"""

# (scenario file text, fragments)
FILES = [
    ("", ["apps"]),
    ("\x00\x01\x02garbage", ["invalid TOML"]),
    (BASE[: len(BASE) // 2], ["apps", "missing"]),
    (BASE[: len(BASE) // 2 + 3], ["invalid TOML"]),
    (
        BASE.replace(
            'nodes = ["server", "client"]', 'nodes = ["server", "client", "moon"]'
        ).replace('client = "client"', 'client = "moon"'),
        ["apps[0]", "moon"],
    ),
    (
        BASE.replace('nodes = ["server", "client"]', 'nodes = ["server", "server", "client"]'),
        ["nodes", "server"],
    ),
    (BASE.replace('nodes = ["server", "client"]', "nodes = []"), ["nodes"]),
    (BASE.replace('nodes = ["server", "client"]\n', ""), ["nodes"]),
    (BASE.split("[[apps]]")[0], ["apps"]),
    (
        BASE + '[[links]]\na = "server"\nb = "client"\nrate_bps = 1e6\ndelay_s = 0.1\n',
        ["links[1]", "server", "client"],
    ),
    (
        BASE.replace("[[links]]", '[[links]]\nname = "l"') + '[[links]]\nname = "l"\na = "client"\n'
        'b = "server2"\nrate_bps = 1e6\ndelay_s = 0.1\n',
        ["links[1]"],
    ),
    (
        BASE + '[[routers]]\nnode = "moon"\nkind = "example-drop-recorder"\n',
        ["routers[0].node", "moon"],
    ),
    (BASE + '[[routers]]\nnode = "server"\nkind = "nope"\n', ["routers[0].kind", "nope"]),
    (BASE + '[[routers]]\nkind = "example-drop-recorder"\n', ["routers[0].node", "missing"]),
    (BASE.replace("file_bytes = 1000", 'file_bytes = "big"'), ["apps[0].file_bytes", "big"]),
    (BASE.replace("rate_bps = 1e6", "rate_bps = nan"), ["links[0].rate_bps"]),
    (BASE.replace("rate_bps = 1e6", "rate_bps = 1e300"), ["links[0].rate_bps"]),
    (BASE + "[tcp]\nmss = 1e12\n", ["tcp.mss"]),
]


@pytest.mark.parametrize(("text", "fragments"), FILES, ids=range(len(FILES)))
def test_bad_scenario_files(tmp_path, text, fragments):
    f = tmp_path / "s.toml"
    f.write_text(text)
    out = tmp_path / "out"
    _assert_bad(run_cli("run", f, "--out", out), fragments)
    assert not out.exists()


def test_unreachable_route(tmp_path):
    """Nodes without a path between an application's hosts."""
    text = BASE.replace('nodes = ["server", "client"]', 'nodes = ["server", "client", "island"]')
    text = text.replace('client = "client"', 'client = "island"')
    f = tmp_path / "s.toml"
    f.write_text(text)
    _assert_bad(run_cli("validate", f), ["apps[0]", "island"])


@pytest.mark.parametrize(
    "args",
    [
        ["run", FTP, "--out", "/proc/satcp-cannot-write-here"],
        ["run", FTP, "--seed", "abc"],
        ["run", FTP, "--format", "xlsx"],
        ["run", FTP, "--sample-interval", "-1"],
        ["validate"],
        ["reproduce", "slowstart", "--workers", "0"],
    ],
    ids=range(6),
)
def test_bad_command_lines(tmp_path, args):
    _assert_bad(run_cli(*args), [])


def _assert_bad(proc, fragments):
    assert proc.returncode == 2, (proc.returncode, proc.stderr[-2000:])
    assert proc.stdout == ""
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("satcp: error: "), lines[0]
    assert "Traceback" not in proc.stderr
    for frag in fragments:
        assert frag in lines[0], (frag, lines[0])


def test_there_are_at_least_forty_cases():
    assert len(OVERRIDES) + len(FILES) + 1 + 6 >= 40

"""Bad input, table-driven: each malformed scenario or command line gives
exit code 2, one line ``satcp: error: ...`` naming the field (or file) and
the value, no traceback, and leaves no output behind."""

from __future__ import annotations

import pytest
from conftest import FTP, SCENARIOS, SMALL_FTP, run_cli

SMALL = [a for o in SMALL_FTP for a in ("--set", o)]
SCENARIOS_DIR = SCENARIOS

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
    # a list where a table belongs (serde reads a struct from its fields in
    # order: `trace = []` ran as the default trace)
    (["trace=[]"], ["trace", "sequence, expected a table"]),
    (['trace=[["cwnd"]]'], ["trace", "sequence, expected a table"]),
    (["tcp.variant=adalr", "tcp.adalr=[]"], ["tcp.adalr", "sequence, expected a table"]),
    (["trace=3"], ["trace", "integer `3`, expected a table"]),
    (["links[0].rate_bps=0"], ["links[0].rate_bps", "0"]),
    (["links[0].rate_bps=-5"], ["links[0].rate_bps", "-5"]),
    (["links[0].delay_s=-0.1"], ["links[0].delay_s", "-0.1"]),
    (["links[0].delay_s=inf"], ["links[0].delay_s"]),
    (["links[1].errors.ber=2"], ["links[1].errors.ber", "2"]),
    (["links[1].ab.errors.ber=-0.1"], ["links[1].ab.errors.ber", "-0.1"]),
    (["links[1].errors.loss=1.5"], ["links[1].errors.loss", "1.5"]),
    (["links[1].errors.duplicate=-1"], ["links[1].errors.duplicate", "-1"]),
    (["links[1].errors.colour=1"], ["links[1].errors.colour", "unknown field"]),
    (["links[1].errors=0.1"], ["links[1].errors", "expected a table"]),
    (["links[1].reorder.prob=2"], ["links[1].reorder.prob", "2"]),
    (["links[1].reorder.delay=weird"], ["links[1].reorder.delay", "weird"]),
    (["links[1].queue=fifo"], ["links[1].queue", "fifo"]),
    (["links[1].queue_packets=0"], ["links[1].queue_packets", "0"]),
    (["links[1].ab.rate_bps=-1"], ["links[1].ab.rate_bps", "-1"]),
    (["links[0].a=moon"], ["links[0].a", "moon"]),
    (["links[0].b=server"], ["links[0]", "server"]),
    (["apps[0].client=moon"], ["apps[0].client", "moon"]),
    (["apps[0].kind=ftpx"], ["apps[0].kind", "ftpx"]),
    (["apps[0].file_bytes=-1"], ["apps[0].file_bytes", "-1"]),
    (["apps[0].file_bytes=1000000000000001"], ["apps[0].file_bytes", "1000000000000001", "1e15"]),
    (["apps[0].start_s=-1"], ["apps[0].start_s", "-1"]),
    (["apps[0].tcp.mss=0"], ["apps[0].tcp.mss", "0"]),
    (["duration_s=0"], ["duration_s", "0"]),
    (["duration_s=-5"], ["duration_s", "-5"]),
    (["sample_interval_s=-1"], ["sample_interval_s", "-1"]),
    (["seed=-1"], ["seed", "-1"]),
    (["name=3"], ["name", "3"]),
    # absurd and non-finite values, wrong types
    (["tcp.max_retransmissions=-1"], ["tcp.max_retransmissions", "-1"]),
    (["tcp.initial_rto=nan"], ["tcp.initial_rto"]),
    (["tcp.initial_ssthresh=-5"], ["tcp.initial_ssthresh", "-5"]),
    (["tcp.mss=[1,2]"], ["tcp.mss"]),
    (["links[1].arq.attempts=-2"], ["links[1].arq.attempts", "-2"]),
    (["links[1].ab.arq.recover_all=true"], ["links[1].ab.arq.recover_all", "arq.attempts"]),
    (["links[1].congestion_loss=3"], ["links[1].congestion_loss", "3"]),
    (["links[1].ab.delay_schedule=[[1.0,0.1],[0.5,0.2]]"], ["links[1].ab.delay_schedule"]),
    (["links[1].ab.delay_schedule=[[0.0,-0.1]]"], ["links[1].ab.delay_schedule"]),
    (["links[1].rate_schedule=[[0.0,0.0]]"], ["links[1].rate_schedule"]),
    (["links[1].queue=red", "links[1].red.min_th=50", "links[1].red.max_th=10"], ["red.max_th"]),
    (["links[1].ab.red.gentle=true"], ["links[1].ab.red", 'queue = "red"']),
    (["links[1].priority.push_out=false"], ["links[1].priority", 'queue = "priority"']),
    (["links[1].reorder.sd_s=-1"], ["links[1].reorder.sd_s", "-1"]),
    (["links[1].errors.gilbert_elliott.p=0.1"], ["links[1].errors.gilbert_elliott", "`r`"]),
    # the flat keys before each link model had its table
    (["links[1].ab.ber=1e-6"], ["links[1].ab.ber", "renamed to errors.ber"]),
    (["links[1].reorder=0.1"], ["links[1].reorder", "renamed to reorder.prob"]),
    (["links[1].arq_attempts=3"], ["links[1].arq_attempts", "write arq = { attempts = ... }"]),
    (["links[1].red_min_th=5"], ["links[1].red_min_th", "renamed to red.min_th"]),
    (["apps[0].tcp.variant=nosuch"], ["apps[0].tcp.variant", "nosuch"]),
    (["apps[0].server=client"], ["apps[0]", "client"]),
    (["duration_s=nan"], ["duration_s"]),
    (["duration_s=1e300"], ["duration_s"]),
    # issue 31: values that panicked the core (a rate rounding to 0 b/s
    # divided by zero; rho_max below 1 made a clamp's min exceed its max)
    (["links[0].rate_bps=0.4"], ["links[0].rate_bps", "0.4", "between 1 and 1e12"]),
    (["links[0].rate_bps=1e-300"], ["links[0].rate_bps", "1e-300"]),
    (["links[1].ab.rate_bps=0.3"], ["links[1].ab.rate_bps", "0.3"]),
    (["links[1].rate_schedule=[[0.0,0.3]]"], ["links[1].rate_schedule[0][1]", "0.3"]),
    (["links[1].rate_schedule=[[0.0,1e6],[5.0,1e-300]]"], ["links[1].rate_schedule[1][1]"]),
    (["tcp.variant=adalr", "tcp.adalr.rho_max=0.5"], ["tcp.adalr.rho_max", "0.5"]),
    # issue 31: absurd values accepted silently
    (["links[0].delay_s=1e300"], ["links[0].delay_s", "1e300"]),
    (["links[0].delay_s=2e6"], ["links[0].delay_s", "2000000"]),
    (["links[1].delay_schedule=[[0.0,1e300]]"], ["links[1].delay_schedule[0][1]"]),
    (["links[1].delay_schedule=[[1e300,0.1]]"], ["links[1].delay_schedule[0][0]"]),
    (["tcp.min_rto=1e300"], ["tcp.min_rto", "1e300"]),
    (["tcp.timer_granularity=1e300"], ["tcp.timer_granularity"]),
    (["links[1].reorder.mean_s=1e300"], ["links[1].reorder.mean_s"]),
    # issue 31: names that end up in file names
    (['links[1].name="../../escape"'], ["links[1].name", "../../escape", "separator"]),
    (['links[1].name="/tmp/abs"'], ["links[1].name", "/tmp/abs"]),
    (['links[1].name=".."'], ["links[1].name", ".."]),
    (['links[1].name="a\\u0000b"'], ["links[1].name", "control"]),
    (['links[1].name="' + "x" * 300 + '"'], ["links[1].name", "128"]),
    (['links[1].name=""'], ["links[1].name", "empty"]),
    (['apps[0].name="../x"'], ["apps[0].name", "../x"]),
    # issue 31: runs that would allocate without bound
    (["sample_interval_s=1e-9"], ["sample_interval_s", "1e-9", "1e7"]),
    # issue 31: the memory budget (2 GB unless --max-memory says otherwise)
    (["sample_interval_s=0.002"], ["sample_interval_s", "samples", "GB", "--max-memory"]),
    (
        ["apps[0].files=1000000", "apps[0].inter_request_s=0", "sample_interval_s=0"],
        ["tcp.rcv_buffer", "packets in flight", "GB", "memory limit of 2.0 GB"],
    ),
]


@pytest.mark.parametrize(("overrides", "fragments"), OVERRIDES, ids=lambda v: str(v))
def test_bad_overrides(tmp_path, overrides, fragments):
    out = tmp_path / "out"
    args = ["run", FTP, *SMALL, "--out", out]
    for o in overrides:
        args += ["--set", o]
    _assert_bad(run_cli(*args, cwd=tmp_path), fragments)
    assert list(tmp_path.iterdir()) == []


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
    # a link from a node to itself (a one-node cycle), a node on no link
    (BASE.replace('b = "client"', 'b = "server"'), ["links[0]", "server"]),
    (BASE.replace("[[links]]", "links = 3\n[[x]]"), ["links"]),
    (BASE.replace("[[apps]]", "[[apps]]\nname = 7"), ["apps[0].name", "7"]),
    (BASE.replace('kind = "ftp"', 'kind = ["ftp"]'), ["apps[0].kind"]),
    (BASE.replace("delay_s = 0.1", 'delay_s = "slow"'), ["links[0].delay_s", "slow"]),
    (BASE + "[tcp]\nvariant = 5\n", ["tcp.variant", "5"]),
    (BASE + '[tcp]\nvariant = "peach"\n[tcp.peach]\nbogus = 1\n', ["tcp.peach", "bogus"]),
    (BASE + '[[routers]]\nnode = "server"\nkind = "epdn-v2"\nextra = 1\n', ["routers[0]", "extra"]),
    (BASE.replace("file_bytes = 1000", "file_bytes = 0"), ["apps[0].file_bytes", "0"]),
    (BASE.replace("file_bytes = 1000", "file_bytes = 1e30"), ["apps[0].file_bytes"]),
    ("seed = 1.5\n" + BASE, ["seed", "1.5"]),
    (BASE.replace('name = "x"', 'name = "x"\nduration_s = -inf'), ["duration_s"]),
    # issue 31: nesting thousands deep was a RecursionError in tomllib
    ("x = " + "[" * 5000 + "]" * 5000 + "\n" + BASE, ["nested 5000 deep"]),
    ("x = " + "{a = " * 3000 + "1" + "}" * 3000 + "\n" + BASE, ["nested 3000 deep"]),
]


@pytest.mark.parametrize(("text", "fragments"), FILES, ids=range(len(FILES)))
def test_bad_scenario_files(tmp_path, text, fragments):
    f = tmp_path / "s.toml"
    f.write_text(text)
    out = tmp_path / "out"
    _assert_bad(run_cli("run", f, "--out", out, cwd=tmp_path), fragments)
    assert [p.name for p in tmp_path.iterdir()] == ["s.toml"]


def test_unreachable_route(tmp_path):
    """Nodes without a path between an application's hosts."""
    text = BASE.replace('nodes = ["server", "client"]', 'nodes = ["server", "client", "island"]')
    text = text.replace('client = "client"', 'client = "island"')
    f = tmp_path / "s.toml"
    f.write_text(text)
    _assert_bad(run_cli("validate", f), ["apps[0]", "island"])


# (command line, fragments); "OUT" is replaced by a path in the test's
# directory, "FILE" by an existing regular file there.
COMMAND_LINES = [
    (["run", FTP, "--out", "/proc/satcp-cannot-write-here"], ["/proc/satcp-cannot-write-here"]),
    (["run", FTP, *SMALL, "--out", "FILE"], ["FILE"]),
    (["run", FTP, "--seed", "abc"], ["--seed", "abc"]),
    (["run", FTP, "--seed", "-3"], ["seed", "-3"]),
    (["run", FTP, "--format", "xlsx"], ["--format", "xlsx"]),
    (["run", FTP, "--sample-interval", "-1"], ["-1"]),
    (["run", FTP, "--set", "tcp.mss"], ["tcp.mss"]),
    (["run", FTP, "--set", "links[9].errors.ber=1e-6"], ["links[9]"]),
    (["run", FTP, *SMALL, "--pcap", "nosuchlink", "--out", "OUT"], ["--pcap", "nosuchlink"]),
    # issue 31: the same capture twice, however named; a tiny sample interval
    (
        ["run", FTP, *SMALL, "--pcap", "satellite", "--pcap", "satellite:ab", "--out", "OUT"],
        ["--pcap satellite:ab", "same capture"],
    ),
    (
        ["run", FTP, *SMALL, "--pcap", "1:ba", "--pcap", "satellite:ba", "--out", "OUT"],
        ["--pcap satellite:ba", "--pcap 1:ba"],
    ),
    (["run", FTP, "--sample-interval", "1e-9", "--out", "OUT"], ["sample_interval_s", "1e-9"]),
    (["run", "OUT/missing.toml"], ["missing.toml"]),
    (["run", SCENARIOS_DIR], [str(SCENARIOS_DIR)]),
    (["validate"], []),
    (["frobnicate"], ["frobnicate"]),
    (["reproduce", "slowstart", "--workers", "0", "--out", "OUT"], ["--workers", "0"]),
    (["reproduce", "nosuchpaper", "--out", "OUT"], ["nosuchpaper"]),
    # issue 31: a capture whose folder cannot be written was a traceback
    (
        ["run", FTP, *SMALL, "--pcap", "satellite", "--out", "/proc/satcp-none/out"],
        ["--pcap", "/proc/satcp-none"],
    ),
    (["run", FTP, "--set", "tcp.mss=" + "[" * 40 + "]" * 40], ["--set", "nested 40 deep"]),
    # issue 31: the memory budget
    (["run", FTP, *SMALL, "--max-memory", "1M", "--out", "OUT"], ["sample_interval_s", "1.0 MB"]),
    (["run", FTP, "--max-memory", "0", "--out", "OUT"], ["--max-memory", "'0'"]),
    (["run", FTP, "--max-memory", "lots", "--out", "OUT"], ["--max-memory", "'lots'"]),
    (["run", FTP, "--max-memory", "nanG", "--out", "OUT"], ["--max-memory", "'nanG'"]),
]


@pytest.mark.parametrize(("args", "fragments"), COMMAND_LINES, ids=range(len(COMMAND_LINES)))
def test_bad_command_lines(tmp_path, args, fragments):
    existing = tmp_path / "a-file"
    existing.write_text("x")

    def sub(a):
        a = str(a)
        return a.replace("OUT", str(tmp_path / "out")).replace("FILE", str(existing))

    args = [sub(a) for a in args]
    _assert_bad(run_cli(*args, cwd=tmp_path), [sub(f) for f in fragments])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-file"]
    assert existing.read_text() == "x"


def _assert_bad(proc, fragments):
    """A user error, which never reaches the CLI's handler of unexpected
    exceptions (exit 70, ``satcp: internal error``)."""
    assert "internal error" not in proc.stderr, proc.stderr
    assert proc.returncode == 2, (proc.returncode, proc.stderr[-2000:])
    assert proc.stdout == ""
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("satcp: error: "), lines[0]
    assert "Traceback" not in proc.stderr
    for frag in fragments:
        assert frag in lines[0], (frag, lines[0])


def test_there_are_at_least_forty_cases():
    """The issue asks for at least 40 malformed inputs; the count is in
    docs/testing.md."""
    count = len(OVERRIDES) + len(FILES) + 1 + len(COMMAND_LINES)
    print(f"{count} malformed scenarios and command lines")
    assert count >= 40

"""``satcp emulate``: real hosts joined by a scenario's links, in real time.

Each end host of the scenario (the clients and servers of its apps, or
``[emulate] hosts``) gets a network namespace with one interface, ``eth0``,
the host end of a veth pair whose other end lies in the emulation's relay
namespace. The relay (``satcp-emu``, crates/satcp-emu) reads every frame a
host sends, carries it through the scenario's links with the simulator's
link and queue models and a real-time clock, and writes it to the
destination host's pair (docs/emulation.md).

Safety rules, kept here:

- addresses only from 198.18.0.0/15 (RFC 2544's benchmarking range), one
  per host, on a /24 that is the only route a host has: nothing is routed
  out, and the relay namespace has no address at all;
- every interface is created inside a namespace this instance made (never
  in the caller's), and the caller's interfaces and routes are never read
  or changed;
- every name starts with ``satcp-emu-<pid>-<start time>-`` of the
  controller, so that instances never collide and the leftovers of one
  killed with SIGKILL are recognised (its process is gone) and removed by
  the next instance or by ``satcp emulate --cleanup``.
"""

from __future__ import annotations

import contextlib
import csv
import dataclasses
import itertools
import json
import os
import re
import select
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable, Sequence
from typing import Any

from . import _core
from .scenario import to_json

__all__ = ["EmulationError", "cleanup_stale", "emulate", "hosts_of"]

#: Every namespace an instance creates is named PREFIX<pid>-<starttime>-<role>.
PREFIX = "satcp-emu-"
_NAME_RE = re.compile(r"^satcp-emu-(\d+)-(\d+)-")
#: The hosts' addresses: 198.18.0.1, 198.18.0.2, ... (inside 198.18.0.0/15).
SUBNET = "198.18.0"
PREFIX_LEN = 24
MAX_HOSTS = 250
#: Offloads that must be off on both ends of a veth pair: otherwise the
#: relay reads frames with partial checksums or merged segments.
OFFLOADS = ("tx", "rx", "gso", "tso", "gro")
#: How long the relay may take to open its sockets, and to write its
#: summary once asked to stop, seconds.
RELAY_START_S = 10.0
RELAY_STOP_S = 10.0
#: The link time series' interval when the scenario sets none, seconds.
DEFAULT_SAMPLE_INTERVAL_S = 0.1
#: How long background commands may take to end by themselves once the
#: others have (a server that serves one download, then writes its
#: results), before they are stopped, seconds.
BACKGROUND_GRACE_S = 5.0


#: Instances made by this process so far: a process may run several.
_instances = itertools.count()


class EmulationError(Exception):
    """A problem with the emulation's input or the machine: one line."""


@dataclasses.dataclass
class Host:
    node: str
    ip: str
    mac: str
    netns: str
    relay_ifname: str


def hosts_of(scenario: dict[str, Any]) -> list[str]:
    """The end hosts: ``[emulate] hosts``, else each app's client and
    server in the order they first appear."""
    emu = scenario.get("emulate", {})
    if "hosts" in emu:
        hosts = emu["hosts"]
        if not isinstance(hosts, list) or not all(isinstance(h, str) for h in hosts):
            raise EmulationError(f"emulate.hosts: {hosts!r} must be a list of node names")
    else:
        hosts = []
        for app in scenario.get("apps", []):
            for role in ("client", "server"):
                if isinstance(app, dict) and app.get(role) not in hosts:
                    hosts.append(app.get(role))
    nodes = scenario.get("nodes", [])
    for h in hosts:
        if h not in nodes:
            raise EmulationError(f"emulate.hosts: {h!r} is no node of the scenario")
    if len(set(hosts)) != len(hosts):
        raise EmulationError(f"emulate.hosts: {hosts!r} names a node twice")
    if not 2 <= len(hosts) <= MAX_HOSTS:
        raise EmulationError(
            f"emulate.hosts: {len(hosts)} hosts; an emulation joins 2 to {MAX_HOSTS}"
        )
    return hosts


@dataclasses.dataclass
class RunCommand:
    host: str
    cmd: str
    background: bool


def commands_of(scenario: dict[str, Any], hosts: Sequence[str]) -> list[RunCommand]:
    """``[[emulate.run]]``: each a host, a shell command and whether it
    runs in the background (started, then stopped when the others end)."""
    out = []
    emu = scenario.get("emulate", {})
    unknown = set(emu) - {"hosts", "run"}
    if unknown:
        raise EmulationError(f"emulate.{sorted(unknown)[0]}: unknown field")
    for i, r in enumerate(emu.get("run", [])):
        where = f"emulate.run[{i}]"
        if not isinstance(r, dict):
            raise EmulationError(f"{where}: must be a table")
        extra = set(r) - {"host", "cmd", "background"}
        if extra:
            raise EmulationError(f"{where}.{sorted(extra)[0]}: unknown field")
        if r.get("host") not in hosts:
            raise EmulationError(f"{where}.host: {r.get('host')!r} is none of the hosts {hosts}")
        if not isinstance(r.get("cmd"), str) or not r["cmd"].strip():
            raise EmulationError(f"{where}.cmd: {r.get('cmd')!r} must be a shell command")
        background = r.get("background", False)
        if not isinstance(background, bool):
            raise EmulationError(f"{where}.background: {background!r} must be true or false")
        out.append(RunCommand(r["host"], r["cmd"], background))
    return out


def _ip(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["ip", *args], capture_output=True, text=True, check=check, timeout=30)


def _in(netns: str, *argv: str) -> None:
    subprocess.run(
        ["ip", "netns", "exec", netns, *argv],
        capture_output=True,
        text=True,
        check=True,
        timeout=30,
    )


def _start_time(pid: int) -> int | None:
    """The start time of process ``pid`` (clock ticks since boot), None when
    there is no such process."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            stat = f.read()
    except OSError:
        return None
    return int(stat.rsplit(")", 1)[1].split()[19])


def _namespaces() -> list[str]:
    out = _ip("netns", "list", check=False).stdout
    return [line.split()[0] for line in out.splitlines() if line.strip()]


def _remove_namespace(netns: str) -> None:
    """Ends what still runs in ``netns``, then removes it (its veth ends go
    with it, and with them their peers)."""
    pids = _ip("netns", "pids", netns, check=False).stdout.split()
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, ValueError):
            os.kill(int(pid), signal.SIGKILL)
    _ip("netns", "del", netns, check=False)


def cleanup_stale() -> list[str]:
    """Removes the namespaces of instances whose controller is gone (killed
    with SIGKILL, or crashed); returns their names."""
    removed = []
    for netns in _namespaces():
        m = _NAME_RE.match(netns)
        if m and _start_time(int(m.group(1))) != int(m.group(2)):
            _remove_namespace(netns)
            removed.append(netns)
    return removed


def relay_binary() -> str:
    """The relay: $SATCP_EMU_BIN, else the workspace's release build, else
    satcp-emu on PATH."""
    env = os.environ.get("SATCP_EMU_BIN")
    if env:
        return env
    here = os.path.dirname(os.path.abspath(__file__))
    built = os.path.join(here, "..", "..", "target", "release", "satcp-emu")
    if os.access(built, os.X_OK):
        return os.path.normpath(built)
    found = shutil.which("satcp-emu")
    if found:
        return found
    raise EmulationError(
        "the relay satcp-emu is not built: run `cargo build --release -p satcp-emu` "
        "(or set SATCP_EMU_BIN)"
    )


def check_machine() -> None:
    if sys.platform != "linux":
        raise EmulationError("satcp emulate needs Linux (network namespaces)")
    if os.geteuid() != 0:
        raise EmulationError("satcp emulate needs root (it creates network namespaces)")
    for tool in ("ip", "ethtool"):
        if shutil.which(tool) is None:
            raise EmulationError(f"satcp emulate needs `{tool}` (apt-get install iproute2 ethtool)")


def _env_name(node: str) -> str:
    return re.sub(r"[^A-Za-z0-9_]", "_", node)


class Emulation:
    """One instance: its namespaces, relay and commands. ``with`` removes
    everything it made, whatever happens inside."""

    def __init__(self, scenario: dict[str, Any], out: str, pcap: Sequence[tuple[str, str]] = ()):
        self.scenario = scenario
        self.out = out
        self.pcap = list(pcap)
        pid = os.getpid()
        self.tag = f"{PREFIX}{pid}-{_start_time(pid)}-{next(_instances)}-"
        self.relay_ns = self.tag + "relay"
        nodes = hosts_of(scenario)
        self.hosts = [
            Host(
                node=n,
                ip=f"{SUBNET}.{i + 1}",
                mac=f"02:53:00:00:{(i + 1) >> 8:02x}:{(i + 1) & 0xFF:02x}",
                netns=f"{self.tag}h{i}",
                relay_ifname=f"h{i}",
            )
            for i, n in enumerate(nodes)
        ]
        self.relay: subprocess.Popen[str] | None = None
        self.t0_ns = 0
        self.children: list[subprocess.Popen[bytes]] = []
        self.made: list[str] = []
        self.work = tempfile.mkdtemp(prefix="satcp-emulate-")

    def host(self, node: str) -> Host:
        return next(h for h in self.hosts if h.node == node)

    # ----- set up -----

    def __enter__(self) -> Emulation:
        try:
            self._make_namespaces()
            self._start_relay()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _make_namespaces(self) -> None:
        for netns in [self.relay_ns] + [h.netns for h in self.hosts]:
            _ip("netns", "add", netns)
            self.made.append(netns)
            _ip("-n", netns, "link", "set", "lo", "up")
            _in(
                netns,
                "sysctl",
                "-q",
                "-w",
                "net.ipv6.conf.all.disable_ipv6=1",
                "net.ipv6.conf.default.disable_ipv6=1",
            )
        for h in self.hosts:
            # Made in the namespaces themselves: nothing appears in the
            # caller's, even for an instant.
            _ip(
                "-n", h.netns, "link", "add", "eth0", "address", h.mac, "type", "veth",
                "peer", "name", h.relay_ifname, "netns", self.relay_ns,
            )  # fmt: skip
            _in(h.netns, "ethtool", "-K", "eth0", *[x for o in OFFLOADS for x in (o, "off")])
            _in(
                self.relay_ns,
                "ethtool",
                "-K",
                h.relay_ifname,
                *[x for o in OFFLOADS for x in (o, "off")],
            )
            _ip("-n", h.netns, "addr", "add", f"{h.ip}/{PREFIX_LEN}", "dev", "eth0")
            _ip("-n", h.netns, "link", "set", "eth0", "up")
            _ip("-n", self.relay_ns, "link", "set", h.relay_ifname, "up")
            for other in self.hosts:
                if other is not h:
                    _ip(
                        "-n", h.netns, "neigh", "replace", other.ip, "lladdr", other.mac,
                        "dev", "eth0", "nud", "permanent",
                    )  # fmt: skip

    def _start_relay(self) -> None:
        sc = {k: v for k, v in self.scenario.items() if k != "emulate"}
        config = {
            "scenario": json.loads(to_json(sc)),
            "hosts": [{"node": h.node, "ip": h.ip, "ifname": h.relay_ifname} for h in self.hosts],
            "pcap": [
                {"link": link, "dir": d, "path": os.path.join(self.work, f"{link}-{d}.pcap")}
                for link, d in self.pcap
            ],
            "summary": os.path.join(self.work, "summary.json"),
            "max_seconds": float(sc.get("duration_s", 18_000.0)),
            "sample_interval_s": float(sc.get("sample_interval_s") or DEFAULT_SAMPLE_INTERVAL_S),
        }
        if os.environ.get("SATCP_EMU_SPIN_US"):
            config["spin_us"] = int(os.environ["SATCP_EMU_SPIN_US"])
        path = os.path.join(self.work, "relay.json")
        with open(path, "w") as f:
            json.dump(config, f)
        self.relay = subprocess.Popen(
            ["ip", "netns", "exec", self.relay_ns, relay_binary(), path],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        assert self.relay.stdout is not None
        started, _, _ = select.select([self.relay.stdout], [], [], RELAY_START_S)
        line = self.relay.stdout.readline() if started else "(no answer)"
        self.t0_ns = time.monotonic_ns()
        if line.strip() != "ready":
            if self.relay.poll() is None:
                self.relay.kill()
            err = self.relay.stderr.read() if self.relay.stderr else ""
            self.relay.wait(timeout=5)
            raise EmulationError(f"the relay did not start: {err.strip() or line.strip()}")

    # ----- commands -----

    def env(self, host: Host) -> dict[str, str]:
        env = dict(os.environ)
        shim = self._shim_dir()
        env["PATH"] = shim + os.pathsep + env.get("PATH", "")
        env["SATCP_HOST"] = host.node
        env["SATCP_OUT"] = self.out
        env["SATCP_T0_NS"] = str(self.t0_ns)
        for h in self.hosts:
            env[f"SATCP_ADDR_{_env_name(h.node)}"] = h.ip
        return env

    def _shim_dir(self) -> str:
        """A directory with ``satcp-bulk`` running this interpreter's
        package, whether or not the package's scripts are installed."""
        d = os.path.join(self.work, "bin")
        if not os.path.isdir(d):
            os.makedirs(d)
            package_root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
            script = os.path.join(d, "satcp-bulk")
            with open(script, "w") as f:
                f.write(
                    "#!/bin/sh\n"
                    f"PYTHONPATH={shlex.quote(package_root)}${{PYTHONPATH:+:$PYTHONPATH}} "
                    f'exec {shlex.quote(sys.executable)} -m satcp.bulk "$@"\n'
                )
            os.chmod(script, 0o755)
        return d

    def start(self, node: str, argv: Sequence[str], *, interactive: bool = False):
        """Starts ``argv`` in host ``node``'s namespace. A non-interactive
        command gets its own session, so that the terminal's Ctrl-C reaches
        the controller only, which then stops everything in order."""
        h = self.host(node)
        p = subprocess.Popen(
            ["ip", "netns", "exec", h.netns, *argv],
            env=self.env(h),
            start_new_session=not interactive,
            stdin=None if interactive else subprocess.DEVNULL,
        )
        self.children.append(p)
        return p

    # ----- tear down -----

    def stop_relay(self) -> dict[str, Any] | None:
        """Asks the relay to stop; its summary, None if it wrote none."""
        r, self.relay = self.relay, None
        if r is None:
            return None
        if r.poll() is None:
            r.send_signal(signal.SIGTERM)
        try:
            r.wait(timeout=RELAY_STOP_S)
        except subprocess.TimeoutExpired:
            r.kill()
            r.wait()
        path = os.path.join(self.work, "summary.json")
        if not os.path.exists(path):
            err = r.stderr.read() if r.stderr else ""
            raise EmulationError(f"the relay ended without a summary: {err.strip()}")
        with open(path) as f:
            return json.load(f)

    def stop_children(self, grace_s: float = 0.0) -> None:
        deadline = time.monotonic() + grace_s
        for p in self.children:
            try:
                p.wait(timeout=max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                break
        for p in self.children:
            if p.poll() is None:
                try:
                    os.killpg(p.pid, signal.SIGTERM)
                except (ProcessLookupError, PermissionError):
                    p.terminate()
        for p in self.children:
            try:
                p.wait(timeout=3)
            except subprocess.TimeoutExpired:
                try:
                    os.killpg(p.pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    p.kill()
                p.wait()
        self.children = []

    def close(self) -> None:
        try:
            self.stop_children()
            if self.relay is not None:
                self.relay.kill()
                self.relay.wait()
                self.relay = None
        finally:
            for netns in reversed(self.made):
                _remove_namespace(netns)
            self.made = []
            shutil.rmtree(self.work, ignore_errors=True)

    def keep_outputs(self) -> list[str]:
        """Moves the captures into the output directory; their paths."""
        kept = []
        for link, d in self.pcap:
            src = os.path.join(self.work, f"{link}-{d}.pcap")
            if os.path.exists(src):
                dst = os.path.join(self.out, f"{link}-{d}.pcap")
                shutil.move(src, dst)
                kept.append(dst)
        return kept


def _raise_interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def emulate(
    scenario: dict[str, Any],
    *,
    out: str,
    pcap: Sequence[tuple[str, str]] = (),
    command: Sequence[str] = (),
    command_host: str | None = None,
    report=print,
) -> dict[str, Any]:
    """Runs the emulation: the ``[[emulate.run]]`` commands (or ``command``
    in ``command_host``, interactively), then the relay's summary, which it
    returns (also written to ``out``/emulation.json)."""
    hosts = hosts_of(scenario)
    runs = commands_of(scenario, hosts)
    if scenario.get("routers"):
        raise EmulationError("routers: router functions are not emulated (the relay forwards only)")
    _core.validate_json(to_json(scenario))
    if command_host is not None and command_host not in hosts:
        raise EmulationError(f"--host: {command_host!r} is none of the hosts {hosts}")
    if not command and not runs:
        raise EmulationError("nothing to run: add [[emulate.run]] entries or `-- COMMAND`")
    for link, d in pcap:
        names = [_link_name(sc_link) for sc_link in scenario.get("links", [])]
        if link not in names or d not in ("ab", "ba"):
            raise EmulationError(f"--pcap: no link direction {link}:{d} (links: {names})")
    check_machine()
    relay_binary()
    os.makedirs(out, exist_ok=True)
    for stale in cleanup_stale():
        report(f"removed a stale namespace: {stale}")
    warning = capacity_warning(scenario)
    if warning:
        report(warning)
    old_term = signal.signal(signal.SIGTERM, _raise_interrupt)
    try:
        with Emulation(scenario, out, pcap) as em:
            report(describe(em))
            failed = _run_commands(em, runs, command, command_host or hosts[0])
            em.stop_children(BACKGROUND_GRACE_S)
            summary = em.stop_relay()
            assert summary is not None
            kept = em.keep_outputs()
            summary["pcap"] = [{**p, "path": q} for p, q in zip(summary["pcap"], kept, strict=True)]
            summary["commands_failed"] = failed
            summary["scenario"] = scenario.get("name", "scenario")
            write_link_tables(summary, out)
            path = os.path.join(out, "emulation.json")
            with open(path + ".tmp", "w") as f:
                json.dump(summary, f, indent=1)
            os.replace(path + ".tmp", path)
            report(summary_text(summary))
            return summary
    finally:
        signal.signal(signal.SIGTERM, old_term)


def bench_file() -> str:
    """Where `make bench-emu` leaves the relay's measured forwarding rate."""
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
    return os.path.join(cache, "satcp", "emu-bench.json")


def fastest_rate_bps(scenario: dict[str, Any]) -> float:
    """The highest rate any link direction of the scenario takes, at any
    time of its schedules."""
    rates = [0.0]
    for link in scenario.get("links", []):
        for table in (link, link.get("ab", {}), link.get("ba", {})):
            if isinstance(table.get("rate_bps"), int | float):
                rates.append(float(table["rate_bps"]))
            for point in table.get("rate_schedule") or []:
                rates.append(float(point[1]))
    return max(rates)


def capacity_warning(scenario: dict[str, Any]) -> str | None:
    """A warning when the scenario's fastest link, in 1,500-byte packets,
    asks for more than 80 % of what `make bench-emu` measured the relay
    forwards (None without a measurement, or within it)."""
    try:
        with open(bench_file()) as f:
            pps = float(json.load(f)["forwarding_pps"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    need = fastest_rate_bps(scenario) / (1500 * 8)
    if need <= 0.8 * pps:
        return None
    return (
        f"warning: a link of this scenario runs at up to {need:,.0f} full-size packets/s; "
        f"the relay was measured to forward {pps:,.0f} (make bench-emu, {bench_file()}): "
        "it may not keep up in real time"
    )


def _link_name(link: dict[str, Any]) -> str:
    return link.get("name") or f"{link.get('a')}-{link.get('b')}"


def _run_commands(
    em: Emulation, runs: list[RunCommand], command: Sequence[str], command_host: str
) -> list[str]:
    """Starts the background commands, runs the others in order; the
    commands that failed (non-zero exit)."""
    failed = []
    foreground = []
    for r in runs:
        p = em.start(r.host, ["sh", "-c", r.cmd])
        if not r.background:
            foreground.append((r, p))
            if p.wait() != 0:
                failed.append(f"{r.host}: {r.cmd} (exit {p.returncode})")
    if command:
        # The terminal's Ctrl-C is the command's (an interactive shell's).
        old = signal.signal(signal.SIGINT, signal.SIG_IGN)
        try:
            p = em.start(command_host, list(command), interactive=True)
            if p.wait() != 0:
                failed.append(f"{command_host}: {shlex.join(command)} (exit {p.returncode})")
        finally:
            signal.signal(signal.SIGINT, old)
    return failed


#: The columns of links.csv: those of `satcp run`'s links table the relay has.
LINK_COLUMNS = (
    "link",
    "name",
    "enqueued_packets",
    "queue_drops",
    "ce_marks",
    "tx_packets",
    "tx_bytes",
    "rx_packets",
    "rx_bytes",
    "corrupted",
    "lost",
    "duplicated",
    "reordered",
    "busy_ns",
    "max_queue_packets",
    "arq_retransmissions",
    "congestion_drops",
)


LINK_SERIES_COLUMNS = (
    "time_s",
    "link",
    "rx_bytes",
    "throughput_bps",
    "utilization",
    "queue_packets",
)


def write_link_tables(summary: dict[str, Any], out: str) -> None:
    """links.csv (one row per link direction, named `<link>:<dir>` as in
    `satcp run`'s table) and link_series.csv (the relay's samples, every
    sample_interval_s: 0.1 s unless the scenario sets one), the tables
    `satcp plot` draws beside the hosts' flow series."""
    rows = [
        {**link, "link": i, "name": f"{link['link']}:{link['dir']}"}
        for i, link in enumerate(summary["links"])
    ]
    # As in `satcp run`'s table: an ACK filter's count only when a link
    # has one (the relay leaves it out of a link's statistics otherwise).
    columns = LINK_COLUMNS
    if any("acks_filtered" in r for r in rows):
        columns += ("acks_filtered",)
    _write_csv(
        os.path.join(out, "links.csv"), columns, ([r.get(c, 0) for c in columns] for r in rows)
    )
    series = summary.pop("link_series")
    samples = zip(*(series[c] for c in LINK_SERIES_COLUMNS), strict=True)
    _write_csv(os.path.join(out, "link_series.csv"), LINK_SERIES_COLUMNS, samples)


def _write_csv(path: str, header: Sequence[str], rows: Iterable[Sequence[Any]]) -> None:
    """A CSV file, written whole or not at all (a temporary file renamed)."""
    with open(path + ".tmp", "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(header)
        w.writerows(rows)
    os.replace(path + ".tmp", path)


def describe(em: Emulation) -> str:
    lines = [f"emulation {em.tag[:-1]}: relay namespace {em.relay_ns}"]
    for h in em.hosts:
        lines.append(f"  host {h.node}: {h.ip}/{PREFIX_LEN} on eth0 in namespace {h.netns}")
    return "\n".join(lines)


def summary_text(s: dict[str, Any]) -> str:
    rows = [("link", "dir", "tx pkts", "rx pkts", "queue drops", "lost", "corrupted", "max queue")]
    for link in s["links"]:
        rows.append(
            (
                link["link"],
                link["dir"],
                str(link["tx_packets"]),
                str(link["rx_packets"]),
                str(link["queue_drops"]),
                str(link["lost"]),
                str(link["corrupted"]),
                str(link["max_queue_packets"]),
            )
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    table = "\n".join(
        "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows
    )
    r = s["relay"]
    lines = [
        f'emulated "{s.get("scenario", "scenario")}" for {s["elapsed_s"]:.1f} s',
        table,
        f"relay: {r['frames_in']} frames in, {r['frames_out']} out; not IPv4 {r['not_ipv4']}, "
        f"unroutable {r['unroutable']}, socket drops {r['socket_drops']}, "
        f"send failures {r['send_failures']}",
        f"relay lateness: p50 {r['lateness_p50_s'] * 1e6:.0f} us, "
        f"p99 {r['lateness_p99_s'] * 1e6:.0f} us, max {r['lateness_max_s'] * 1e6:.0f} us",
    ]
    if r["lateness_p99_s"] > 1e-3 or r["socket_drops"] or r["send_failures"]:
        lines.append(
            "warning: the relay did not keep up with real time (p99 lateness above 1 ms, or "
            "frames dropped outside the models): the links were not emulated faithfully"
        )
    for p in s.get("pcap", []):
        lines.append(f"wrote {p['path']} ({p['packets']} packets)")
    for f in s.get("commands_failed", []):
        lines.append(f"command failed: {f}")
    return "\n".join(lines)

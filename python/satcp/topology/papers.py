"""The papers' networks as scenario dicts, each a named function whose
defaults are the paper's network:

- :func:`thesis_network`: the TCP-ADaLR thesis's hybrid network (Fig. 7.2,
  Tables 7.2-7.4), a GEO bent pipe with one FTP or HTTP client;
- :func:`thesis_fairness`: its six-connection network of Fig. 7.52;
- :func:`peach_sec5`: the TCP-Peach paper's N-flow GEO network (Fig. 10);
- :func:`peach_hetero`: its heterogeneous network of Fig. 18;
- :func:`slowstart_testbed`: the modified slow-start paper's test-bed
  (Sec. III; the scenario of ``crates/satcp-core/tests/slowstart.rs``);
- :func:`tcpr_network`: the TCP-R paper's network (Sec. 3).

Link options are given as the scenario format spells them (:mod:`.links`).
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from typing import Any

from .links import bulk, link, merge_options, scenario
from .shapes import bent_pipe, dumbbell

__all__ = [
    "NS2_RED",
    "PEACH_NETWORK",
    "TCPR_NETWORK",
    "THESIS_FAIRNESS",
    "ns2_red",
    "peach_hetero",
    "peach_rate_bps",
    "peach_sec5",
    "peach_sender_delays",
    "pep_geo",
    "slowstart_testbed",
    "tcpr_bdp_bytes",
    "tcpr_network",
    "tcpr_starts",
    "thesis_fairness",
    "thesis_network",
]

Options = Mapping[str, Any]

# --- the TCP-ADaLR thesis ---------------------------------------------------------


def thesis_network(
    app: str = "ftp",
    *,
    variant: str = "sack",
    delayed_ack: bool = True,
    file_bytes: int = 50_000_000,
    ethernet_delay_s: float = 0.010,
    satellite_delay_s: float = 0.250,
    downlink_bps: float = 2.048e6,
    uplink_bps: float = 256e3,
    gateway_buffer_packets: int | None = None,
    satellite_ber: float | None = None,
    downlink_ber_only: bool = False,
    rwnd_mode: str | None = None,
    sample_interval_s: float = 1.0,
    seed: int = 1,
    duration_s: float | None = None,
    name: str | None = None,
) -> dict[str, Any]:
    """The thesis network of Fig. 7.2: server -- 10 Mb/s Ethernet
    (``ethernet_delay_s`` one way) -- gateway -- bent-pipe GEO link
    (``satellite_delay_s`` one way; ``downlink_bps`` gateway -> client,
    ``uplink_bps`` back) -- client, with one application:

    - ``app="ftp"``: one download of ``file_bytes`` (Table 7.2; 5 h run),
    - ``app="http"``: HTTP/1.1 pages every 30 s for 1,000 s (Table 7.3).

    With the defaults it equals ``scenarios/thesis_ftp.toml`` /
    ``thesis_http.toml`` (a test checks this). ``gateway_buffer_packets``
    limits the gateway's output queue towards the satellite (waiting
    packets); ``satellite_ber`` sets the bit error rate of both satellite
    directions, or of the downlink only with ``downlink_ber_only``;
    ``rwnd_mode`` sets ``tcp.adalr.rwnd_mode``."""
    if app not in ("ftp", "http"):
        raise ValueError(f"app must be 'ftp' or 'http', not {app!r}")
    tcp: dict[str, Any] = {"variant": variant, "delayed_ack": delayed_ack}
    if rwnd_mode is not None:
        tcp["adalr"] = {"rwnd_mode": rwnd_mode}
    ber = None if satellite_ber is None else {"ber": float(satellite_ber)}
    down = {
        "rate_bps": float(downlink_bps),
        "queue_packets": None if gateway_buffer_packets is None else int(gateway_buffer_packets),
        "errors": ber if downlink_ber_only else None,
    }
    links = bent_pipe(
        ["server", "gateway", "client"],
        [
            {"rate_bps": 10e6, "delay_s": float(ethernet_delay_s)},
            {
                "delay_s": float(satellite_delay_s),
                "ab": down,
                "ba": {"rate_bps": float(uplink_bps)},
                "errors": None if downlink_ber_only else ber,
            },
        ],
        names=["ethernet", "satellite"],
    )
    ends = {"client": "client", "server": "server"}
    if app == "ftp":
        application: dict[str, Any] = {"kind": "ftp", **ends, "file_bytes": int(file_bytes)}
        default_duration = 18000.0
    else:
        application = {"kind": "http", **ends, "page_interval_s": 30.0}
        default_duration = 1000.0
    return scenario(
        name or f"thesis-{app}",
        ["server", "gateway", "client"],
        links,
        [application],
        tcp,
        seed=seed,
        duration_s=float(duration_s if duration_s is not None else default_duration),
        sample_interval_s=float(sample_interval_s),
    )


#: The fairness network of Fig. 7.52: the one-way delay of switch_1 ->
#: receiver i (OPNET paper, Fig. 19 text), the thesis's labels of the six
#: connections (2 x that delay), every other link's rate and delay.
THESIS_FAIRNESS = {
    "receiver_delay_s": (0.250, 0.200, 0.150, 0.050, 0.025, 0.0125),
    "rtt_labels_ms": (500, 400, 300, 100, 50, 25),
    "link_bps": 10e6,
    "link_delay_s": 0.005,
    "file_bytes": 50_000_000,
    "duration_s": 18_000.0,
}


def thesis_fairness(
    variants: Sequence[str],
    *,
    file_bytes: int = THESIS_FAIRNESS["file_bytes"],
    adalr: dict[str, Any] | None = None,
    name: str = "adalr-fairness",
) -> dict[str, Any]:
    """The Fig. 7.52 network with one FTP download per server/client pair;
    ``variants[i]`` is the variant of the pair whose receiver link has the
    i-th receiver delay. ``adalr`` overrides ``[tcp.adalr]`` of the
    TCP-ADaLR connections (for sensitivity runs)."""
    f = THESIS_FAIRNESS
    delays = f["receiver_delay_s"]
    if len(variants) != len(delays):
        raise ValueError(f"{len(delays)} variants needed, got {len(variants)}")
    n = len(variants)
    servers = [f"server{i}" for i in range(n)]
    clients = [f"client{i}" for i in range(n)]

    def hop(lname: str, a: str, b: str, delay: float) -> dict[str, Any]:
        return link(a, b, name=lname, rate_bps=f["link_bps"], delay_s=delay)

    links = [hop(f"server{i}-switch0", servers[i], "switch0", f["link_delay_s"]) for i in range(n)]
    links += [
        hop("switch0-gateway0", "switch0", "gateway0", f["link_delay_s"]),
        hop("bottleneck", "gateway0", "gateway1", f["link_delay_s"]),
        hop("gateway1-switch1", "gateway1", "switch1", f["link_delay_s"]),
    ]
    links += [hop(f"switch1-client{i}", "switch1", clients[i], delays[i]) for i in range(n)]
    apps = []
    for i, v in enumerate(variants):
        tcp: dict[str, Any] = {"variant": v}
        if adalr and v.startswith("adalr"):
            tcp["adalr"] = dict(adalr)
        apps.append(
            {
                "kind": "ftp",
                "name": f"ftp{i}-rtt{f['rtt_labels_ms'][i]}ms",
                "client": clients[i],
                "server": servers[i],
                "file_bytes": file_bytes,
                "tcp": tcp,
            }
        )
    return scenario(
        name,
        [*servers, "switch0", "gateway0", "gateway1", "switch1", *clients],
        links,
        apps,
        {"delayed_ack": True},
        seed=1,
        duration_s=f["duration_s"],
        stop_when_done=True,
        sample_interval_s=0.0,
    )


# --- the TCP-Peach paper ------------------------------------------------------------

#: The TCP-Peach paper's Sec. V network: segment payload (its 1,000-byte
#: segments) and header bytes, the round-trip propagation time, the
#: channel's capacity (segments/s), Earth station A's buffer (segments), the
#: receive window (segments), the simulated time (1,000 RTT), the access
#: links (fast and short: the channel is the only bottleneck), the spread
#: of the senders' access delays (:func:`peach_sender_delays`), and Fig.
#: 18's bottleneck delay (terrestrial, one way).
PEACH_NETWORK = {
    "mss": 1000,
    "header_bytes": 40,
    "rtt_s": 0.55,
    "c_seg": 1300.0,
    "k_seg": 50,
    "rwnd_seg": 64,
    "duration_s": 550.0,
    "access_bps": 100e6,
    "access_delay_s": 0.0005,
    "jitter_s": 0.001,
    "bottleneck_delay_s": 0.010,
}


def peach_rate_bps(c_seg: float) -> float:
    """Link rate carrying ``c_seg`` full data packets per second."""
    return float(c_seg) * (PEACH_NETWORK["mss"] + PEACH_NETWORK["header_bytes"]) * 8


def peach_sender_delays(
    n: int, seed: int, jitter_s: float = PEACH_NETWORK["jitter_s"]
) -> list[float]:
    """One-way delays of the ``n`` senders' access links: uniform in
    [0, ``jitter_s``] from ``seed``, or the access delay each when
    ``jitter_s`` is 0.

    Why: with every round-trip time exactly alike and no randomness, a
    drop-tail or priority buffer that is full most of the time drops the
    packets of the same connections round after round (phase effects,
    Floyd and Jacobson 1992): in Fig. 19, moving the satellite delay by
    0.5 ms changed the satellite connections' goodput from 17 to 106
    segments/s. A sub-millisecond spread (the bottleneck's service time is
    0.77 ms) gives every seed a different phase; results are means over
    seeds."""
    if jitter_s <= 0:
        return [PEACH_NETWORK["access_delay_s"]] * n
    rng = random.Random(int(seed))
    return [rng.uniform(0.0, jitter_s) for _ in range(n)]


def _peach_tcp(rwnd_seg: int, initial_window: int, tcp: Mapping[str, Any] | None) -> dict[str, Any]:
    # Sec. II-A: no delayed ACK; Reno starts from one segment.
    return {
        "variant": "sack",
        "mss": PEACH_NETWORK["mss"],
        "rcv_buffer": int(rwnd_seg) * PEACH_NETWORK["mss"],
        "delayed_ack": False,
        "initial_window": int(initial_window),
        **(tcp or {}),
    }


def _peach_app(client: str, server: str, variant: str, app: Options | None) -> dict[str, Any]:
    a = bulk(client, server, **(app or {}))
    a["tcp"] = {"variant": variant, **dict(a.get("tcp", {}))}
    return a


def _access(delay_s: float = PEACH_NETWORK["access_delay_s"]) -> dict[str, Any]:
    return {"rate_bps": PEACH_NETWORK["access_bps"], "delay_s": float(delay_s)}


def _peach_run(name: str, seed: int, duration_s: float, sample_interval_s: float) -> dict[str, Any]:
    """The run settings of every Peach scenario: unlimited transfers from
    t = 0, the run lasts ``duration_s`` whether or not they are done."""
    return {
        "name": name,
        "seed": int(seed),
        "duration_s": float(duration_s),
        "stop_when_done": False,
        "sample_interval_s": float(sample_interval_s),
    }


def peach_sec5(
    variants: Sequence[str],
    *,
    c_seg: float = PEACH_NETWORK["c_seg"],
    k_seg: int = PEACH_NETWORK["k_seg"],
    ploss: float = 0.0,
    rwnd_seg: int = PEACH_NETWORK["rwnd_seg"],
    initial_window: int = 1,
    duration_s: float = PEACH_NETWORK["duration_s"],
    seed: int = 1,
    sample_interval_s: float = 0.0,
    tcp: Options | None = None,
    satellite: Options | None = None,
    app: Options | None = None,
    jitter_s: float | None = None,
    name: str = "peach-sec5",
) -> dict[str, Any]:
    """The network of Fig. 10 with one connection per entry of ``variants``:
    ``sender{i}`` -- A ==satellite== B -- ``receiver{i}``.

    - satellite channel A -> B: ``c_seg`` segments/s, priority queue of
      ``k_seg`` segments (dummies and marked ACKs are low priority; data
      pushes queued dummies out), link-error loss ``ploss`` on every data
      and dummy segment (ACKs are not lost); the return direction is
      error-free with the same rate and queue;
    - access links of 100 Mb/s and 0.5 ms, so the round-trip propagation
      time is 550 ms; with several connections (or ``jitter_s`` given) each
      sender's access delay is drawn from the seed instead
      (:func:`peach_sender_delays`);
    - one bulk transfer (unlimited, from t = 0) per connection, ``rwnd_seg``
      segments of 1,000 bytes of receive window, no delayed ACK, initial
      window ``initial_window``.

    ``tcp`` is merged into the scenario's ``[tcp]`` table, ``satellite``
    (link options) into the satellite link's ``ab`` direction, ``app`` into
    every application (e.g. ``{"bytes": 2_000_000}``)."""
    if jitter_s is None:
        jitter_s = PEACH_NETWORK["jitter_s"] if len(variants) > 1 else 0.0
    delays = peach_sender_delays(len(variants), seed, jitter_s)
    ab = merge_options({"errors": {"loss": float(ploss), "data_only": True}}, satellite or {})
    nodes, links = dumbbell(
        len(variants),
        {
            "rate_bps": peach_rate_bps(c_seg),
            "delay_s": PEACH_NETWORK["rtt_s"] / 2 - 2 * PEACH_NETWORK["access_delay_s"],
            "queue": "priority",
            "queue_packets": int(k_seg),
            "ab": ab,
        },
        left="station_a",
        right="station_b",
        sender="sender{i}",
        receiver="receiver{i}",
        access=lambda i: _access(delays[i]),
        tail=lambda i: _access(),
        bottleneck_name="satellite",
        access_name="up{i}",
        tail_name="down{i}",
        bottleneck_last=True,
    )
    apps = [_peach_app(f"receiver{i}", f"sender{i}", v, app) for i, v in enumerate(variants)]
    return {
        **_peach_run(name, seed, duration_s, sample_interval_s),
        "nodes": nodes,
        "links": links,
        "apps": apps,
        "tcp": _peach_tcp(rwnd_seg, initial_window, tcp),
    }


def peach_hetero(
    x_variant: str,
    y_variant: str,
    *,
    ploss_x: float = 0.0,
    m: int = 5,
    n: int = 5,
    rtt_x_s: float = PEACH_NETWORK["rtt_s"],
    rtt_y_s: float = 0.200,
    c_seg: float = PEACH_NETWORK["c_seg"],
    k_seg: int = PEACH_NETWORK["k_seg"],
    rwnd_seg: int = PEACH_NETWORK["rwnd_seg"],
    duration_s: float = PEACH_NETWORK["duration_s"],
    seed: int = 1,
    sample_interval_s: float = 0.0,
    jitter_s: float = PEACH_NETWORK["jitter_s"],
    name: str = "peach-fig18",
) -> dict[str, Any]:
    """The network of Fig. 18: M connections of type X (``xsender{i}`` ->
    ``xreceiver{i}``) and N of type Y share the bottleneck router A -> router
    B (``c_seg`` segments/s, priority buffer of ``k_seg`` segments, 10 ms).
    Behind B, X goes through a GEO satellite channel (same capacity,
    link-error loss ``ploss_x`` on data and dummies, round-trip time
    ``rtt_x_s`` end to end) and Y through a terrestrial link without errors
    (round-trip time ``rtt_y_s``). Bulk transfers from t = 0, senders'
    access delays from :func:`peach_sender_delays`, as in :func:`peach_sec5`."""
    access = PEACH_NETWORK["access_delay_s"]
    base = 2 * access + PEACH_NETWORK["bottleneck_delay_s"]
    sat_delay = rtt_x_s / 2 - base - access
    ter_delay = rtt_y_s / 2 - base
    if sat_delay <= 0 or ter_delay <= 0:
        raise ValueError("round-trip times too short for the topology")
    channel = {"rate_bps": peach_rate_bps(c_seg), "queue": "priority", "queue_packets": int(k_seg)}
    nodes = ["router_a", "router_b", "station_x"]
    links: list[dict[str, Any]] = [
        link(
            "router_a",
            "router_b",
            name="bottleneck",
            delay_s=PEACH_NETWORK["bottleneck_delay_s"],
            **channel,
        ),
        link(
            "router_b",
            "station_x",
            name="satellite",
            delay_s=sat_delay,
            ab={"errors": {"loss": float(ploss_x), "data_only": True}},
            **channel,
        ),
    ]
    apps = []
    delays = peach_sender_delays(m + n, seed, jitter_s)
    for i in range(m):
        s, r = f"xsender{i}", f"xreceiver{i}"
        nodes += [s, r]
        links.append(link(s, "router_a", name=f"xup{i}", **_access(delays[i])))
        links.append(link("station_x", r, name=f"xdown{i}", **_access()))
        apps.append(_peach_app(r, s, x_variant, None))
    for i in range(n):
        s, r = f"ysender{i}", f"yreceiver{i}"
        nodes += [s, r]
        links.append(link(s, "router_a", name=f"yup{i}", **_access(delays[m + i])))
        links.append(link("router_b", r, name=f"ydown{i}", **_access(ter_delay)))
        apps.append(_peach_app(r, s, y_variant, None))
    return {
        **_peach_run(name, seed, duration_s, sample_interval_s),
        "nodes": nodes,
        "links": links,
        "apps": apps,
        "tcp": _peach_tcp(rwnd_seg, 1, None),
    }


# --- the modified slow-start paper --------------------------------------------------


#: The test-bed router's queue under the weighted-fair-queueing reading
#: (docs/slowstart.md, "The router under several connections"): Cisco IOS's
#: defaults for fair-queue on a serial interface, 64 packets per
#: conversation (the congestive discard threshold) and 1,000 in all (the
#: hold-queue), served by deficit round robin with a one-packet quantum.
SLOWSTART_WFQ_TOTAL_PACKETS = 1000


def slowstart_router(router: str, queue_packets: int) -> Options:
    """The satellite interface's queue settings for one reading of the
    test-bed's router: ``"fifo"``, one drop-tail queue of
    ``queue_packets``; ``"wfq"``, a per-flow queue (DRR) holding at most
    ``queue_packets`` per flow and SLOWSTART_WFQ_TOTAL_PACKETS in all."""
    if router == "fifo":
        return {"queue_packets": queue_packets}
    if router == "wfq":
        return {
            "queue": "drr",
            "drr": {"flow_limit_packets": queue_packets},
            "queue_packets": max(queue_packets, SLOWSTART_WFQ_TOTAL_PACKETS),
        }
    raise ValueError(f"router: {router!r} is not a reading of the test-bed's router (fifo, wfq)")


def slowstart_testbed(
    connections: int = 1,
    queue_packets: int = 64,
    *,
    router: str = "fifo",
    tcp: Options | None = None,
    transfer_bytes: int = 2_800_000,
    duration_s: float = 3000.0,
    sample_interval_s: float | None = None,
    name: str = "slowstart",
) -> dict[str, Any]:
    """The test-bed of Sec. III as satcp models it (docs/slowstart.md): two
    routers r1, r2 joined by a symmetric 2 Mb/s GEO channel (260 ms one
    way) whose queue is the ``router`` reading (:func:`slowstart_router`:
    a drop-tail FIFO of ``queue_packets``, or per-flow fair queueing with
    ``queue_packets`` per flow); per connection a
    sender s{i} on a 10 Mb/s LAN (0.5 ms) to r1 and a receiver c{i} on one
    behind r2, and a bulk transfer of ``transfer_bytes`` (the paper's H =
    2.8 MB), all starting together. Linux-like hosts: timestamps, window
    scaling, a 200 ms minimum RTO, a 10 ms timer, initial ssthresh 1 GB;
    ``tcp`` is merged into that ``[tcp]`` table."""
    lan = {"rate_bps": 10e6, "delay_s": 0.0005}
    nodes, links = dumbbell(
        connections,
        {"rate_bps": 2e6, "delay_s": 0.26, **slowstart_router(router, queue_packets)},
        left="r1",
        right="r2",
        sender="s{i}",
        receiver="c{i}",
        access=lambda i: lan,
        tail=lambda i: lan,
        bottleneck_name="sat",
    )
    apps = [bulk(f"c{i}", f"s{i}", bytes=transfer_bytes) for i in range(connections)]
    host = {
        "variant": "slowstart",
        "window_scaling": True,
        "timestamps": True,
        "initial_ssthresh": 2**30,
        "min_rto": 0.2,
        "timer_granularity": 0.01,
    }
    return scenario(
        name,
        nodes,
        links,
        apps,
        {**host, **(tcp or {})},
        duration_s=duration_s,
        sample_interval_s=sample_interval_s,
    )


# --- the PEP study ---------------------------------------------------------------


def pep_geo(
    file_bytes: int = 1_000_000,
    *,
    variant: str = "newreno",
    satellite_variant: str | None = None,
    split: bool = False,
    down_bps: float = 10e6,
    up_bps: float = 2e6,
    delay_s: float = 0.25,
    queue_packets: int = 500,
    buffer_bytes: int = 8_000_000,
    duration_s: float = 900.0,
    name: str = "pep-geo",
    up_queue: str | None = None,
    up_queue_packets: int | None = None,
) -> dict[str, Any]:
    """A GEO access path for the split-connection study (``satcp reproduce
    pep``, docs/satellite-access.md): server -100 Mb/s, 10 ms- gateway -GEO
    bent pipe, ``delay_s`` one way, ``down_bps`` to the client and
    ``up_bps`` back, a ``queue_packets`` drop-tail queue (about one
    bandwidth-delay product at the defaults)- client, which downloads one
    file of ``file_bytes`` over FTP. Linux hosts (the ``linux`` profile)
    running ``variant`` with ``buffer_bytes`` socket buffers. With
    ``split``, a proxy at the gateway splits the connection and runs
    ``satellite_variant`` (None: the hosts') on the satellite leg, with
    ``buffer_bytes`` per connection and direction. ``up_queue`` and
    ``up_queue_packets`` set the return direction's queue kind and limit
    (None: drop-tail, ``queue_packets``), e.g. ``"ack_filter"``."""
    nodes = ["server", "gateway", "client"]
    up: dict[str, Any] = {"rate_bps": up_bps}
    if up_queue is not None:
        up["queue"] = up_queue
    if up_queue_packets is not None:
        up["queue_packets"] = up_queue_packets
    satellite = {
        "delay_s": delay_s,
        "queue_packets": queue_packets,
        "ab": {"rate_bps": down_bps},
        "ba": up,
    }
    links = bent_pipe(
        nodes, [{"rate_bps": 100e6, "delay_s": 0.010}, satellite], ["ground", "satellite"]
    )
    apps = [{"kind": "ftp", "client": "client", "server": "server", "file_bytes": file_bytes}]
    tcp = {
        "profile": "linux",
        "variant": variant,
        "window_scaling": True,
        "rcv_buffer": buffer_bytes,
    }
    pep = None
    if split:
        proxy: dict[str, Any] = {"node": "gateway", "buffer_bytes": buffer_bytes}
        if satellite_variant is not None:
            proxy["satellite_variant"] = satellite_variant
        pep = [proxy]
    return scenario(name, nodes, links, apps, tcp, duration_s=duration_s, pep=pep)


# --- the TCP-R paper ----------------------------------------------------------------

#: The TCP-R paper's network (Sec. 3): the bottleneck's rate (b/s), the
#: access links' rate and delay, packet and segment sizes, the bottleneck's
#: GEO one-way delay (s) and the flows' duration (s).
TCPR_NETWORK = {
    "rate_bps": 1.5e6,
    "access_bps": 10e6,
    "access_delay_s": 0.001,
    "packet": 1500,
    "mss": 1460,
    "p_s": 0.3,
    "duration_s": 1000.0,
}


def tcpr_bdp_bytes(p_s: float) -> float:
    """Bandwidth x round-trip propagation time of the path (bytes)."""
    return TCPR_NETWORK["rate_bps"] * 2.0 * (p_s + 2 * TCPR_NETWORK["access_delay_s"]) / 8.0


def tcpr_starts(seed: int, n: int) -> list[float]:
    """n start times in [0, 1) s from the seed (a small LCG: the same seed
    gives the same starts on every platform)."""
    x, out = (seed * 2654435761) % 2**32, []
    for _ in range(n):
        x = (1664525 * x + 1013904223) % 2**32
        out.append(round(x / 2**32, 6))
    return out


#: ns-2's RED defaults (tcl/lib/ns-default.tcl of ns-2.1b9 to 2.34, and
#: red.cc's automatic configuration) where the TCP-R paper says nothing
#: beyond "RED, ECN enabled" (docs/tcpr.md, "The ns-2 setting").
NS2_RED = {
    "mean_pktsize": 500,  # Queue/RED mean_pktsize_ (bytes): ptc = rate / (8 x 500)
    "targetdelay_s": 0.005,  # targetdelay_: thresh_ 0 means max(5, ptc x 0.005 / 2)
    "linterm": 10,  # linterm_: max_p = 1 / 10
    "gentle": True,  # gentle_ (true since April 2001)
}


def ns2_red(rate_bps: float, delay_s: float) -> dict[str, Any]:
    """RED's settings as ns-2 configures them itself (thresh_ = maxthresh_ =
    0, q_weight_ = -1: red.cc's ``initialize_params``) for a link of
    ``rate_bps`` and one-way ``delay_s``: min_th = max(5, targetdelay x
    ptc / 2) packets, max_th = 3 min_th, w_q = 1 - exp(-1 / (10 x max(0.1,
    3 (delay + 1 / ptc)) x ptc)), ptc = rate / (8 x mean_pktsize) packets
    per second; max_p = 1 / linterm_; gentle."""
    ptc = rate_bps / (8.0 * NS2_RED["mean_pktsize"])
    min_th = max(5.0, NS2_RED["targetdelay_s"] * ptc / 2.0)
    rtt = max(0.1, 3.0 * (delay_s + 1.0 / ptc))
    return {
        "min_th": round(min_th, 6),
        "max_th": round(3.0 * min_th, 6),
        "max_p": 1.0 / NS2_RED["linterm"],
        "wq": round(1.0 - math.exp(-1.0 / (10.0 * rtt * ptc)), 9),
        "gentle": NS2_RED["gentle"],
    }


def tcpr_network(
    variants: Sequence[str],
    bottleneck: Options,
    *,
    gateway: str | None = None,
    p_s: float = TCPR_NETWORK["p_s"],
    seed: int = 1,
    duration_s: float = TCPR_NETWORK["duration_s"],
    queue_packets: int | None = None,
    tcpr_response: str | None = None,
    name: str = "tcpr",
) -> dict[str, Any]:
    """The Sec. 3 network, src -10 Mb/s, 1 ms- R1 -1.5 Mb/s, ``p_s``- R2
    -10 Mb/s, 1 ms- dst, with one bulk flow per entry of ``variants``
    (``tcp.variant``) from src to dst and EPDN routers of kind ``gateway``
    at R1 and R2 (None: plain routers). Where the paper is silent, ns-2's
    defaults (docs/tcpr.md, "The ns-2 setting"): every router queue is RED
    as ns-2 configures it for the link (:func:`ns2_red`) with ECN marking,
    of the bandwidth-delay product (or ``queue_packets``); the receiver
    acknowledges every segment (``Agent/TCPSink``). The receive buffer is
    one bandwidth-delay product; minimum RTO 1 s, DSACK. TCP-R flows take
    ``[tcp.tcpr] response = tcpr_response`` (None: the default).
    ``bottleneck`` (link options) is merged into the data direction R1 ->
    R2, where pure ACKs are exempt from errors; a corrupted packet reaches
    R2, which discards it (EPDNv2 records it there: docs/tcpr.md, "EPDN").
    Several flows start spread over the first second (drawn from the seed):
    identical start times would lock a deterministic simulation into phase
    effects."""
    bdp = tcpr_bdp_bytes(p_s)
    q = queue_packets or max(4, math.ceil(bdp / TCPR_NETWORK["packet"]))

    def red(rate_bps: float, delay_s: float) -> dict[str, Any]:
        return {
            "queue": "red",
            "queue_packets": q,
            "red": {**ns2_red(rate_bps, delay_s), "ecn_marking": True},
        }

    sat = red(TCPR_NETWORK["rate_bps"], p_s)
    data = merge_options({**sat, "errors": {"data_only": True}}, bottleneck)
    access = {"rate_bps": TCPR_NETWORK["access_bps"], "delay_s": TCPR_NETWORK["access_delay_s"]}
    edge = red(TCPR_NETWORK["access_bps"], TCPR_NETWORK["access_delay_s"])
    starts = tcpr_starts(seed, len(variants))

    def tcp(v: str) -> dict[str, Any]:
        if v == "tcpr" and tcpr_response is not None:
            return {"variant": v, "tcpr": {"response": tcpr_response}}
        return {"variant": v}

    apps = [
        bulk("dst", "src", tcp=tcp(v)) | ({"start_s": starts[i]} if len(variants) > 1 else {})
        for i, v in enumerate(variants)
    ]
    links = bent_pipe(
        ["src", "R1", "R2", "dst"],
        [
            {**access, "ab": edge, "ba": edge},
            {
                "rate_bps": TCPR_NETWORK["rate_bps"],
                "delay_s": p_s,
                "ab": data,
                "ba": sat,
                "errors": {"corrupted_reach_next_node": True},
            },
            {**access, "ab": edge, "ba": edge},
        ],
        names=["access", "sat", "tail"],
    )
    return scenario(
        name,
        ["src", "R1", "R2", "dst"],
        links,
        apps,
        {
            "mss": TCPR_NETWORK["mss"],
            "ecn": True,
            "window_scaling": True,
            "rcv_buffer": int(bdp),
            "dsack": True,
            "min_rto": 1.0,
            "delayed_ack": False,
        },
        seed=int(seed),
        duration_s=float(duration_s),
        stop_when_done=False,
        routers=[{"node": n, "kind": gateway} for n in ("R1", "R2")] if gateway else [],
    )


# --- the DVB-RCS2 access paper (Kuhn et al., LCDNet 2013) ---------------------------

#: The DVB-RCS2 return carrier of ``rcs2_access`` (docs/satellite-access.md,
#: "Reproducing Kuhn et al."): superframes of 26.5 ms, 64 slots of 188
#: bytes over 4 carriers (3.63 Mb/s). satcp's choice: the paper's own
#: carrier parameters were not available.
RCS2_CARRIER = {
    "superframe_s": 0.0265,
    "slots": 64,
    "carriers": 4,
    "slot_payload_bytes": 188,
}


def rcs2_access(
    access: str = "dama",
    terminals: int = 1,
    *,
    app: str = "web",
    segments: int = 10,
    transfers: int = 20,
    think_time_s: float = 2.0,
    duration_s: float = 120.0,
    seed: int = 1,
    name: str = "rcs2",
) -> dict[str, Any]:
    """``terminals`` terminals t{i} behind a beam node upload to a server
    over a GEO DVB-RCS2 return carrier (250 ms each way; the forward link a
    plain 10 Mb/s link): ``access`` "dama" (every slot dedicated, VBDC
    requests) or "ra" (every slot CRDSA, 2 replicas, one packet per
    terminal per superframe). Each terminal runs ``app``: "web", short
    uploads of ``segments`` segments on new connections (``transfers`` of
    them, ``think_time_s`` apart), or "bulk", one unbounded upload. TCP:
    NewReno with SACK, an initial window of 10 segments (RFC 6928), the
    initial RTO of 3 s of RFC 2988."""
    carrier: dict[str, Any] = dict(RCS2_CARRIER)
    if access == "ra":
        carrier |= {"random_access_slots": carrier["slots"], "random_access": "crdsa"}
    elif access != "dama":
        raise ValueError(f"access must be 'dama' or 'ra', not {access!r}")
    nodes = ["server", "gateway", "beam", *(f"t{i}" for i in range(terminals))]
    links: list[dict[str, Any]] = [
        {"name": "ground", "a": "server", "b": "gateway", "rate_bps": 100e6, "delay_s": 0.01},
        {
            "name": "satellite",
            "a": "gateway",
            "b": "beam",
            "delay_s": 0.25,
            "queue_packets": 1000,
            "ab": {"rate_bps": 10e6},
            "ba": {
                "dvbrcs2": carrier | {"terminals": [{"node": f"t{i}"} for i in range(terminals)]}
            },
        },
    ]
    links += [
        {"name": f"t{i}", "a": "beam", "b": f"t{i}", "rate_bps": 100e6, "delay_s": 0.0001}
        for i in range(terminals)
    ]
    if app == "web":
        apps = [
            {
                "kind": "web",
                "client": "server",
                "server": f"t{i}",
                "segments": segments,
                "transfers": transfers,
                "think_time": "fixed",
                "think_time_s": think_time_s,
                # Spread over a second, so that the flows do not start in step.
                "start_s": i / max(terminals, 1),
            }
            for i in range(terminals)
        ]
    else:
        apps = [bulk("server", f"t{i}", start_s=i * 0.1) for i in range(terminals)]
    tcp = {"variant": "sack", "initial_window": 10, "initial_rto": 3.0}
    return scenario(name, nodes, links, apps, tcp, duration_s=duration_s, seed=seed)

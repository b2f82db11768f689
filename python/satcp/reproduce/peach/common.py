"""Shared helpers of the TCP-Peach reproduction (``satcp reproduce peach``).

- :func:`sec5_scenario`: the paper's Sec. V network (Fig. 10) as a scenario
  dict: N senders, Earth station A with a priority buffer of K segments, a
  GEO channel of c segments/s and RTT 550 ms with link-error losses of
  probability PLoss on data and dummy segments, N receivers;
- :func:`hetero_scenario`: the heterogeneous network of Fig. 18 (M satellite
  and N terrestrial connections through one bottleneck A-B);
- :func:`flow_goodputs`, :func:`aggregate_goodput`: goodput in segments/s;
- :func:`mean`;
- from :mod:`.claims`: :class:`Claim`, :func:`claims_table` (a number or
  statement of the paper beside satcp's), :class:`Section` (what each
  experiment module returns), :func:`fmt`;
- from :mod:`.figures`: :class:`Series`, :class:`Panel`, :func:`plot`
  (figures drawn like the paper's);
- from :mod:`satcp.reproduce.tables`: :func:`write_csv`,
  :func:`markdown_table`.

Every experiment module has
``reproduce(out: pathlib.Path, workers: int | None, quick: bool) -> Section``
and writes its CSV and PNG files into ``out``.

Units follow the paper: segments of MSS = 1,000 bytes ("we consider the
segment as the unit of data"), c in segments per second of full-size data
packets (1,040 bytes on the wire, so c = 1,300 segments/s is 10.8 Mb/s),
windows in segments.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ..tables import markdown_table, write_csv
from .claims import CLAIM_COLUMNS, TOLERANCE_PCT, Claim, Section, claims_table, fmt
from .figures import STYLE, Panel, Series, plot

__all__ = [
    "ACCESS_BPS",
    "ACCESS_DELAY_S",
    "CLAIM_COLUMNS",
    "C_SEG",
    "DURATION_S",
    "HEADER_BYTES",
    "JITTER_S",
    "K_SEG",
    "LABEL",
    "MSS",
    "N_FLOWS",
    "PEACH",
    "PEACH_PLAIN",
    "RENO",
    "RENO_PLAIN",
    "RTT_S",
    "RWND_SEG",
    "STYLE",
    "TOLERANCE_PCT",
    "Claim",
    "Panel",
    "Section",
    "Series",
    "aggregate_goodput",
    "claims_table",
    "flow_goodputs",
    "fmt",
    "hetero_scenario",
    "markdown_table",
    "mean",
    "plot",
    "rate_bps",
    "sec5_scenario",
    "sender_delays",
    "write_csv",
]

#: Segment payload (the paper's 1,000-byte TCP segments).
MSS = 1000
#: IP + TCP header bytes of a data packet.
HEADER_BYTES = 40
#: Round-trip propagation time of the GEO path.
RTT_S = 0.55
#: Capacity of the satellite channel (Sec. V), segments/s.
C_SEG = 1300.0
#: Buffer of Earth station A, segments.
K_SEG = 50
#: Receiver window, segments.
RWND_SEG = 64
#: Connections sharing the channel in Sec. V-A.
N_FLOWS = 20
#: Simulated time of every Sec. V experiment (1,000 RTT).
DURATION_S = 550.0
#: Access links between the hosts and the Earth stations / routers: fast
#: and short, so the satellite channel (or A-B) is the only bottleneck.
ACCESS_BPS = 100e6
ACCESS_DELAY_S = 0.0005
#: Sender access delays of multi-connection runs are drawn uniformly in
#: [0, JITTER_S] from the run's seed (mean ACCESS_DELAY_S), see
#: :func:`sender_delays`.
JITTER_S = 0.001

#: Sec. V: "both TCP-Reno and TCP-Peach apply the SACK option" (Reno is
#: NewReno, ref. [22]); Secs. III-IV (Figs. 3, 7, 9) describe the plain
#: algorithms with Fast Recovery's window inflation: no SACK there.
PEACH, RENO = "peach-sack", "sack"
PEACH_PLAIN, RENO_PLAIN = "peach", "newreno"

LABEL = {
    PEACH: "TCP-Peach",
    RENO: "TCP-Reno",
    PEACH_PLAIN: "TCP-Peach",
    RENO_PLAIN: "TCP-Reno",
}


def rate_bps(c_seg: float) -> float:
    """Link rate carrying ``c_seg`` full data packets per second."""
    return float(c_seg) * (MSS + HEADER_BYTES) * 8


def _tcp(rwnd_seg: int, initial_window: int, tcp: Mapping[str, Any] | None) -> dict[str, Any]:
    # Sec. II-A: no delayed ACK; Reno starts from one segment (the paper's
    # IIW baseline sets initial_window = 4 explicitly).
    t: dict[str, Any] = {
        "variant": RENO,
        "mss": MSS,
        "rcv_buffer": int(rwnd_seg) * MSS,
        "delayed_ack": False,
        "initial_window": int(initial_window),
    }
    t.update(tcp or {})
    return t


def _scenario(
    name: str,
    seed: int,
    duration_s: float,
    sample_interval_s: float,
    nodes: list[str],
    links: list[dict[str, Any]],
    apps: list[dict[str, Any]],
    tcp: dict[str, Any],
) -> dict[str, Any]:
    """A scenario dict of unlimited transfers from t = 0 (the run lasts
    ``duration_s`` whether or not they are done)."""
    return {
        "name": name,
        "seed": int(seed),
        "duration_s": float(duration_s),
        "stop_when_done": False,
        "sample_interval_s": float(sample_interval_s),
        "nodes": nodes,
        "links": links,
        "apps": apps,
        "tcp": tcp,
    }


def _app(client: str, server: str, variant: str, app: Mapping[str, Any] | None) -> dict[str, Any]:
    a: dict[str, Any] = {"kind": "bulk", "client": client, "server": server}
    a.update(app or {})
    a["tcp"] = {"variant": variant, **dict(a.get("tcp", {}))}
    return a


def sec5_scenario(
    variants: Sequence[str],
    *,
    c_seg: float = C_SEG,
    k_seg: int = K_SEG,
    ploss: float = 0.0,
    rwnd_seg: int = RWND_SEG,
    initial_window: int = 1,
    duration_s: float = DURATION_S,
    seed: int = 1,
    sample_interval_s: float = 0.0,
    tcp: Mapping[str, Any] | None = None,
    satellite: Mapping[str, Any] | None = None,
    app: Mapping[str, Any] | None = None,
    jitter_s: float | None = None,
    name: str = "peach-sec5",
) -> dict[str, Any]:
    """The network of Fig. 10 with one connection per entry of ``variants``:
    ``sender{i}`` -- A ==satellite== B -- ``receiver{i}``.

    - satellite channel A -> B: ``c_seg`` segments/s, priority queue of
      ``k_seg`` segments (dummies and marked ACKs are low priority; data
      pushes queued dummies out), link-error loss ``ploss`` on every data
      and dummy segment (ACKs are not lost: ``errors.data_only``); the
      return direction is error-free with the same rate and queue;
    - access links of 100 Mb/s and 0.5 ms, so the round-trip propagation
      time is 550 ms; with several connections (or ``jitter_s`` given) each
      sender's access delay is drawn from the seed instead
      (:func:`sender_delays`);
    - one bulk transfer (unlimited, from t = 0) per connection, ``rwnd_seg``
      segments of 1,000 bytes of receive window, no delayed ACK, initial
      window ``initial_window``.

    ``tcp`` is merged into the scenario's ``[tcp]`` table, ``satellite``
    into the satellite link's ``ab`` direction, ``app`` into every
    application (e.g. ``{"bytes": 2_000_000}``)."""
    nodes = ["station_a", "station_b"]
    links: list[dict[str, Any]] = []
    apps = []
    if jitter_s is None:
        jitter_s = JITTER_S if len(variants) > 1 else 0.0
    delays = sender_delays(len(variants), seed, jitter_s)
    for i, v in enumerate(variants):
        s, r = f"sender{i}", f"receiver{i}"
        nodes += [s, r]
        links.append(_access(f"up{i}", s, "station_a", delays[i]))
        links.append(_access(f"down{i}", "station_b", r))
        apps.append(_app(r, s, v, app))
    one_way = RTT_S / 2 - 2 * ACCESS_DELAY_S
    ab: dict[str, Any] = {"errors": {"loss": float(ploss), "data_only": True}}
    for key, value in (satellite or {}).items():
        ab[key] = {**ab[key], **value} if key == "errors" else value
    links.append(
        {
            "name": "satellite",
            "a": "station_a",
            "b": "station_b",
            "rate_bps": rate_bps(c_seg),
            "delay_s": one_way,
            "queue": "priority",
            "queue_packets": int(k_seg),
            "ab": ab,
        }
    )
    return _scenario(
        name,
        seed,
        duration_s,
        sample_interval_s,
        nodes,
        links,
        apps,
        _tcp(rwnd_seg, initial_window, tcp),
    )


def _access(name: str, a: str, b: str, delay_s: float = ACCESS_DELAY_S) -> dict[str, Any]:
    return {"name": name, "a": a, "b": b, "rate_bps": ACCESS_BPS, "delay_s": float(delay_s)}


def sender_delays(n: int, seed: int, jitter_s: float = JITTER_S) -> list[float]:
    """One-way delays of the ``n`` senders' access links: uniform in
    [0, ``jitter_s``] from ``seed`` (mean ``jitter_s / 2``, ACCESS_DELAY_S
    with the default), or ACCESS_DELAY_S each when ``jitter_s`` is 0.

    Why: with every round-trip time exactly alike and no randomness, a
    drop-tail or priority buffer that is full most of the time drops the
    packets of the same connections round after round (phase effects,
    Floyd and Jacobson 1992): in Fig. 19, moving the satellite delay by
    0.5 ms changed the satellite connections' goodput from 17 to 106
    segments/s. A sub-millisecond spread (the bottleneck's service time is
    0.77 ms) gives every seed a different phase; results are means over
    seeds."""
    if jitter_s <= 0:
        return [ACCESS_DELAY_S] * n
    rng = random.Random(int(seed))
    return [rng.uniform(0.0, jitter_s) for _ in range(n)]


#: Fig. 18: one-way delay of the bottleneck A-B (terrestrial).
BOTTLENECK_DELAY_S = 0.010


def hetero_scenario(
    x_variant: str,
    y_variant: str,
    *,
    ploss_x: float = 0.0,
    m: int = 5,
    n: int = 5,
    rtt_x_s: float = RTT_S,
    rtt_y_s: float = 0.200,
    c_seg: float = C_SEG,
    k_seg: int = K_SEG,
    rwnd_seg: int = RWND_SEG,
    duration_s: float = DURATION_S,
    seed: int = 1,
    sample_interval_s: float = 0.0,
    jitter_s: float = JITTER_S,
    name: str = "peach-fig18",
) -> dict[str, Any]:
    """The network of Fig. 18: M connections of type X (``xsender{i}`` ->
    ``xreceiver{i}``) and N of type Y share the bottleneck router A -> router
    B (``c_seg`` segments/s, priority buffer of ``k_seg`` segments, 10 ms).
    Behind B, X goes through a GEO satellite channel (same capacity,
    link-error loss ``ploss_x`` on data and dummies, round-trip time
    ``rtt_x_s`` end to end) and Y through a terrestrial link without errors
    (round-trip time ``rtt_y_s``). Bulk transfers from t = 0, senders'
    access delays from :func:`sender_delays`, as in :func:`sec5_scenario`."""
    base = 2 * ACCESS_DELAY_S + BOTTLENECK_DELAY_S
    sat_delay = rtt_x_s / 2 - base - ACCESS_DELAY_S
    ter_delay = rtt_y_s / 2 - base
    if sat_delay <= 0 or ter_delay <= 0:
        raise ValueError("round-trip times too short for the topology")
    nodes = ["router_a", "router_b", "station_x"]
    links: list[dict[str, Any]] = [
        {
            "name": "bottleneck",
            "a": "router_a",
            "b": "router_b",
            "rate_bps": rate_bps(c_seg),
            "delay_s": BOTTLENECK_DELAY_S,
            "queue": "priority",
            "queue_packets": int(k_seg),
        },
        {
            "name": "satellite",
            "a": "router_b",
            "b": "station_x",
            "rate_bps": rate_bps(c_seg),
            "delay_s": sat_delay,
            "queue": "priority",
            "queue_packets": int(k_seg),
            "ab": {"errors": {"loss": float(ploss_x), "data_only": True}},
        },
    ]
    apps = []
    delays = sender_delays(m + n, seed, jitter_s)
    for i in range(m):
        s, r = f"xsender{i}", f"xreceiver{i}"
        nodes += [s, r]
        links.append(_access(f"xup{i}", s, "router_a", delays[i]))
        links.append(_access(f"xdown{i}", "station_x", r))
        apps.append(_app(r, s, x_variant, None))
    for i in range(n):
        s, r = f"ysender{i}", f"yreceiver{i}"
        nodes += [s, r]
        links.append(_access(f"yup{i}", s, "router_a", delays[m + i]))
        links.append(_access(f"ydown{i}", "router_b", r, ter_delay))
        apps.append(_app(r, s, y_variant, None))
    return _scenario(
        name, seed, duration_s, sample_interval_s, nodes, links, apps, _tcp(rwnd_seg, 1, None)
    )


# --- reading runs --------------------------------------------------------------


def flow_goodputs(res: Any, duration_s: float | None = None) -> list[float]:
    """Goodput of every application's connection in the order of the
    scenario's applications (connections are numbered in the order they
    open), segments/s: original bytes delivered in order to the receiver
    over the simulated time. Applications with several connections get
    their sum."""
    dur = float(duration_s if duration_s is not None else res.end_time_s)
    if res.flows.empty or dur <= 0:
        return []
    per_app = res.flows.groupby("app")["client_bytes_delivered"].sum().sort_index()
    return [float(b) / MSS / dur for b in per_app]


def aggregate_goodput(res: Any, duration_s: float | None = None) -> float:
    """Sum of the connections' goodputs, segments/s."""
    return float(sum(flow_goodputs(res, duration_s)))


def mean(values: Iterable[float]) -> float:
    v = [float(x) for x in values if x is not None and not math.isnan(float(x))]
    return sum(v) / len(v) if v else math.nan

"""The thesis's networks as scenario dicts, what the experiments vary, and
running a batch of scenarios.

- :func:`thesis_scenario`: the thesis network (Fig. 7.2, Tables 7.2-7.4),
  with keyword arguments for what the experiments vary (delays, rates,
  gateway buffer, bit error rate, file size, variant, delayed ACK);
- :func:`fairness_scenario`: the six-connection network of Fig. 7.52
  (Sec. 7.5.5);
- :data:`VARIANTS`, :data:`DELAYED_ACK`, :func:`variant_label`: the four
  TCP variants in the thesis tables' order, their labels, the two delayed
  ACK settings;
- running the parts' grids is the engine's (each part's ``experiment``,
  run by :func:`satcp.reproduce.experiment.measure` or ``run_experiment``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

#: The four variants in the order of the thesis tables, with their labels.
VARIANTS: tuple[tuple[str, str], ...] = (
    ("adalr-sack", "TCP-ADaLR SACK"),
    ("adalr-newreno", "TCP-ADaLR NewReno"),
    ("sack", "TCP SACK"),
    ("newreno", "TCP NewReno"),
)
#: Short labels, for table columns.
SHORT_LABELS = {
    "adalr-sack": "ADaLR SACK",
    "adalr-newreno": "ADaLR NewReno",
    "sack": "SACK",
    "newreno": "NewReno",
}
#: Delayed ACK enabled, disabled: the order of the thesis table columns.
DELAYED_ACK: tuple[bool, ...] = (True, False)


def variant_label(variant: str) -> str:
    """'adalr-sack' -> 'TCP-ADaLR SACK' (unknown names are returned as is)."""
    return dict(VARIANTS).get(variant, variant)


def short_label(variant: str) -> str:
    """'adalr-sack' -> 'ADaLR SACK' (unknown names are returned as is)."""
    return SHORT_LABELS.get(variant, variant)


# --- the thesis network (Fig. 7.2) ---------------------------------------------


def thesis_scenario(
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
    """The thesis network of Fig. 7.2 as a scenario dict: server -- 10 Mb/s
    Ethernet (``ethernet_delay_s`` one way) -- gateway -- bent-pipe GEO link
    (``satellite_delay_s`` one way; ``downlink_bps`` gateway -> client,
    ``uplink_bps`` back) -- client, with one application:

    - ``app="ftp"``: one download of ``file_bytes`` (Table 7.2; 5 h run),
    - ``app="http"``: HTTP/1.1 pages every 30 s for 1,000 s (Table 7.3).

    With the defaults it equals ``scenarios/thesis_ftp.toml`` /
    ``thesis_http.toml`` (a test checks this). ``gateway_buffer_packets``
    limits the gateway's output queue towards the satellite
    (``links[1].ab.queue_packets``, waiting packets); ``satellite_ber`` sets
    the bit error rate of both satellite directions (``links[1].errors.ber``),
    or of the downlink only (``links[1].ab.errors.ber``) with
    ``downlink_ber_only``;
    ``rwnd_mode`` sets ``tcp.adalr.rwnd_mode``.
    """
    if app not in ("ftp", "http"):
        raise ValueError(f"app must be 'ftp' or 'http', not {app!r}")
    tcp: dict[str, Any] = {"variant": variant, "delayed_ack": delayed_ack}
    if rwnd_mode is not None:
        tcp["adalr"] = {"rwnd_mode": rwnd_mode}
    down: dict[str, Any] = {"rate_bps": float(downlink_bps)}
    up: dict[str, Any] = {"rate_bps": float(uplink_bps)}
    if gateway_buffer_packets is not None:
        down["queue_packets"] = int(gateway_buffer_packets)
    satellite: dict[str, Any] = {
        "name": "satellite",
        "a": "gateway",
        "b": "client",
        "delay_s": float(satellite_delay_s),
        "ab": down,
        "ba": up,
    }
    if satellite_ber is not None:
        (down if downlink_ber_only else satellite)["errors"] = {"ber": float(satellite_ber)}
    if app == "ftp":
        application: dict[str, Any] = {
            "kind": "ftp",
            "client": "client",
            "server": "server",
            "file_bytes": int(file_bytes),
        }
        default_duration = 18000.0
    else:
        application = {
            "kind": "http",
            "client": "client",
            "server": "server",
            "page_interval_s": 30.0,
        }
        default_duration = 1000.0
    return {
        "name": name or f"thesis-{app}",
        "seed": seed,
        "duration_s": float(duration_s if duration_s is not None else default_duration),
        "sample_interval_s": float(sample_interval_s),
        "nodes": ["server", "gateway", "client"],
        "tcp": tcp,
        "links": [
            {
                "name": "ethernet",
                "a": "server",
                "b": "gateway",
                "rate_bps": 10e6,
                "delay_s": float(ethernet_delay_s),
            },
            satellite,
        ],
        "apps": [application],
    }


def link_bound_s(sc: dict[str, Any], mss: int = 1460, header: int = 40) -> float:
    """Time to push the (first) FTP app's file through the satellite
    downlink at line rate (full segments of ``mss + header`` bytes), plus
    one RTT of propagation for the handshake and the last segment."""
    app = sc["apps"][0]
    sat = sc["links"][1]
    rate = float(sat["ab"]["rate_bps"])
    segments = math.ceil(int(app["file_bytes"]) / mss)
    prop = 2 * (float(sc["links"][0]["delay_s"]) + float(sat["delay_s"]))
    return segments * (mss + header) * 8 / rate + prop


# --- the fairness network (Fig. 7.52) ------------------------------------------

#: One-way delay of switch_1 -> receiver i (OPNET paper, Fig. 19 text).
RECEIVER_DELAY_S = (0.250, 0.200, 0.150, 0.050, 0.025, 0.0125)
#: The thesis's labels of the six connections, 2 x the receiver link's delay.
RTT_LABELS_MS = (500, 400, 300, 100, 50, 25)
#: Every link of Fig. 7.52: 10 Mb/s, 5 ms one way (but the receivers').
FAIRNESS_LINK_BPS = 10e6
FAIRNESS_LINK_DELAY_S = 0.005
FAIRNESS_FILE_BYTES = 50_000_000
FAIRNESS_DURATION_S = 18_000.0


def fairness_scenario(
    variants: Sequence[str],
    *,
    file_bytes: int = FAIRNESS_FILE_BYTES,
    adalr: dict[str, Any] | None = None,
    name: str = "adalr-fairness",
) -> dict[str, Any]:
    """The Fig. 7.52 network with one FTP download per server/client pair;
    ``variants[i]`` is the variant of the pair whose receiver link has
    ``RECEIVER_DELAY_S[i]``. ``adalr`` overrides ``[tcp.adalr]`` of the
    TCP-ADaLR connections (for sensitivity runs)."""
    if len(variants) != len(RECEIVER_DELAY_S):
        raise ValueError(f"{len(RECEIVER_DELAY_S)} variants needed, got {len(variants)}")
    n = len(variants)
    servers = [f"server{i}" for i in range(n)]
    clients = [f"client{i}" for i in range(n)]

    def link(lname: str, a: str, b: str, delay: float) -> dict[str, Any]:
        return {"name": lname, "a": a, "b": b, "rate_bps": FAIRNESS_LINK_BPS, "delay_s": delay}

    links = [
        link(f"server{i}-switch0", servers[i], "switch0", FAIRNESS_LINK_DELAY_S) for i in range(n)
    ]
    links += [
        link("switch0-gateway0", "switch0", "gateway0", FAIRNESS_LINK_DELAY_S),
        link("bottleneck", "gateway0", "gateway1", FAIRNESS_LINK_DELAY_S),
        link("gateway1-switch1", "gateway1", "switch1", FAIRNESS_LINK_DELAY_S),
    ]
    links += [
        link(f"switch1-client{i}", "switch1", clients[i], RECEIVER_DELAY_S[i]) for i in range(n)
    ]
    apps = []
    for i, v in enumerate(variants):
        tcp: dict[str, Any] = {"variant": v}
        if adalr and v.startswith("adalr"):
            tcp["adalr"] = dict(adalr)
        apps.append(
            {
                "kind": "ftp",
                "name": f"ftp{i}-rtt{RTT_LABELS_MS[i]}ms",
                "client": clients[i],
                "server": servers[i],
                "file_bytes": file_bytes,
                "tcp": tcp,
            }
        )
    return {
        "name": name,
        "seed": 1,
        "duration_s": FAIRNESS_DURATION_S,
        "stop_when_done": True,
        "sample_interval_s": 0.0,
        "nodes": [*servers, "switch0", "gateway0", "gateway1", "switch1", *clients],
        "tcp": {"delayed_ack": True},
        "links": links,
        "apps": apps,
    }

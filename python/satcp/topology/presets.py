"""The paths of ``satcp compare``'s presets: each a function of the
variant's TCP settings and the run's length returning a scenario with one
bulk transfer from ``server`` to ``client`` (docs: :mod:`satcp.compare`).

Every bottleneck queue is a strict priority queue (drop-tail for ordinary
traffic; TCP-Peach's low-priority dummies go last and first to be dropped),
because TCP-Peach assumes such routers (its paper, Sec. III).
"""

from __future__ import annotations

import functools
import os
from collections.abc import Mapping
from importlib import resources
from typing import Any

from .links import bulk, scenario
from .shapes import bent_pipe

__all__ = ["HANDOVER_OUTAGE_S", "leo_trace", "peach_geo", "starlink", "starlink_isl", "thesis_geo"]

Tcp = Mapping[str, Any]

#: Outage at each serving-satellite change on the ``starlink-isl`` path,
#: seconds: an explicit assumption (docs/leo.md), not a measured value.
HANDOVER_OUTAGE_S = 0.02


def _bulk(nodes: list[str], links: list[dict[str, Any]], tcp: Tcp, secs: float) -> dict[str, Any]:
    return scenario(
        "compare",
        nodes,
        links,
        [bulk(nodes[-1], nodes[0])],
        tcp,
        duration_s=secs,
        stop_when_done=False,
        sample_interval_s=1.0,
    )


def thesis_geo(tcp: Tcp, secs: float) -> dict[str, Any]:
    """The TCP-ADaLR thesis network (Fig. 7.2): 10 Mb/s access, a GEO hop
    of 2.048 Mb/s down / 256 kb/s up, 250 ms one way, BER 1e-6 on the
    downlink; window scaling and a 4 MB buffer."""
    nodes = ["server", "gateway", "client"]
    satellite = {
        "delay_s": 0.250,
        "queue_packets": 100,
        "queue": "priority",
        "ab": {"rate_bps": 2.048e6, "errors": {"ber": 1e-6}},
        "ba": {"rate_bps": 256e3},
    }
    links = bent_pipe(nodes, [{"rate_bps": 10e6, "delay_s": 0.010}, satellite])
    return _bulk(nodes, links, {**tcp, "rcv_buffer": 4_000_000, "window_scaling": True}, secs)


def peach_geo(tcp: Tcp, secs: float) -> dict[str, Any]:
    """The TCP-Peach paper's Sec. V channel: 10.8 Mb/s (1,300 segments of
    1,040 bytes per second), RTT 550 ms, a 50-segment buffer, link-error
    loss 1e-3 on data; 1,000-byte segments, window scaling, a 4 MB buffer."""
    nodes = ["server", "station", "client"]
    satellite = {
        "rate_bps": 1300 * 1040 * 8,
        "delay_s": 0.274,
        "queue_packets": 50,
        "queue": "priority",
        "ab": {"errors": {"loss": 1e-3, "data_only": True}},
    }
    links = bent_pipe(nodes, [{"rate_bps": 100e6, "delay_s": 0.001}, satellite])
    tcp = {**tcp, "mss": 1000, "rcv_buffer": 4_000_000, "window_scaling": True}
    return _bulk(nodes, links, tcp, secs)


def _leo(satellite: dict[str, Any], tcp: Tcp, secs: float) -> dict[str, Any]:
    """server -1 Gb/s, 2 ms- gs1 =satellite= gs2 -1 Gb/s, 2 ms- client: a
    500-packet queue and loss 1e-5 on the satellite hop; window scaling and
    an 8 MB buffer."""
    nodes = ["server", "gs1", "gs2", "client"]
    ground = {"rate_bps": 1e9, "delay_s": 0.002}
    sat = {"queue_packets": 500, "queue": "priority", "ab": {"errors": {"loss": 1e-5}}, **satellite}
    links = bent_pipe(nodes, [ground, sat, ground])
    return _bulk(nodes, links, {**tcp, "rcv_buffer": 8_000_000, "window_scaling": True}, secs)


@functools.lru_cache(maxsize=4)
def _paris_london(secs: float) -> list[list[float]]:
    from .. import leo

    return leo.bent_pipe_schedule((48.85, 2.35), (51.51, -0.13), secs).schedule()


def starlink(tcp: Tcp, secs: float) -> dict[str, Any]:
    """A bent pipe Paris-London through Starlink's first shell, its delay
    from the orbit per 15 s slot (:mod:`satcp.leo`), 100 Mb/s."""
    return _leo({"delay_schedule": _paris_london(secs), "rate_bps": 100e6}, tcp, secs)


@functools.lru_cache(maxsize=4)
def _london_new_york(secs: float) -> tuple[list[list[float]], list[list[float]]]:
    from .. import leo

    p = leo.isl_path_schedule((51.51, -0.13), (40.71, -74.01), secs)
    return p.schedule(), p.loss_schedule(HANDOVER_OUTAGE_S)


def starlink_isl(tcp: Tcp, secs: float) -> dict[str, Any]:
    """London-New York over the first shell's +Grid of inter-satellite
    links (uplink, shortest ISL route, downlink, per 15 s slot;
    :mod:`satcp.leo.isl`), 100 Mb/s, and a handover outage of
    :data:`HANDOVER_OUTAGE_S` in both directions whenever either serving
    satellite changes."""
    delay, outages = _london_new_york(secs)
    satellite = {
        "delay_schedule": delay,
        "rate_bps": 100e6,
        "errors": {"loss_schedule": outages},
    }
    return _leo(satellite, tcp, secs)


def _data(name: str) -> str:
    return os.fspath(resources.files("satcp") / "data" / name)


def leo_trace(tcp: Tcp, secs: float) -> dict[str, Any]:
    """A trace-driven LEO path (the bundled, documented trace in
    ``satcp/data``): delay and rate change every 15 s."""
    from ..scenario import read_schedule_csv

    satellite = {
        "delay_schedule": read_schedule_csv(_data("leo_trace_delay.csv")),
        "rate_bps": 100e6,
        "rate_schedule": read_schedule_csv(_data("leo_trace_rate.csv")),
    }
    return _leo(satellite, tcp, secs)

"""The slow-start paper's test-bed (Sec. III) as satcp models it
(docs/slowstart.md; the same scenario as
``crates/satcp-core/tests/slowstart.rs``), its configurations (Table I's
rows) and reading runs.

Two routers r1, r2 joined by a symmetric 2 Mb/s GEO channel (260 ms one
way) with a drop-tail queue of 64 packets; per connection a sender s{i} on
a 10 Mb/s LAN to r1 and a receiver c{i} on a 10 Mb/s LAN behind r2; a
bulk transfer of H = 2.8 MB; Linux-like hosts (timestamps, window
scaling, 200 ms minimum RTO, 10 ms timer); the advertised window is half
the socket buffer ``buf``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import satcp

__all__ = [
    "CONFIGS",
    "KB",
    "QUEUE",
    "Config",
    "H",
    "Outcome",
    "by_key",
    "gain",
    "outcome",
    "testbed",
]

#: Bytes of each transfer (the paper's H = 2.8 Mbytes).
H = 2_800_000
#: Bytes in a kB of the throughputs (kB/s).
KB = 1000.0
#: The model's router queue, packets (Cisco's default congestive discard
#: threshold of fair queueing on serial interfaces of 2 Mb/s or less).
QUEUE = 64
BUF_REF = 64 * 1024
BUF_TUNED = 320 * 1024


@dataclass(frozen=True)
class Config:
    """A row of Table I: initial window, socket buffer (bytes), the
    ``tcp.slowstart`` table, and what the paper states for it."""

    key: str
    label: str
    iw: int
    buf: int
    function: dict[str, Any] = field(default_factory=dict)
    paper_time_s: float | None = None
    paper_gain_pct: float | None = None
    #: how the paper states the gain, when not as an exact number
    paper_gain_text: str | None = None


def _pw(thresholds: Sequence[int]) -> dict[str, Any]:
    return {"function": "piecewise", "thresholds": list(thresholds), "factors": [4, 2, 1]}


REFERENCE = Config("reference", "Reference IW=1, buf=64 kB", 1, BUF_REF, paper_time_s=49.21)
IW6 = Config("iw6", "IW=6, buf=320 kB (K=1)", 6, BUF_TUNED, paper_gain_pct=71.6)

#: Table I's rows, in order.
CONFIGS: tuple[Config, ...] = (
    REFERENCE,
    IW6,
    Config("k2", "K=2", 6, BUF_TUNED, {"function": "constant", "k": 2}, paper_gain_pct=73.1),
    Config(
        "k4",
        "K=4",
        6,
        BUF_TUNED,
        {"function": "constant", "k": 4},
        paper_time_s=12.65,
        paper_gain_pct=74.3,
    ),
    Config(
        "k6",
        "K=6",
        6,
        BUF_TUNED,
        {"function": "constant", "k": 6},
        paper_gain_text="congests the router",
    ),
    *(
        Config(
            f"lin{thr}",
            f"Linear {thr}",
            6,
            BUF_TUNED,
            {"function": "linear", "thr": thr},
            paper_gain_pct=g,
            paper_gain_text=f"about {g:g} %",
        )
        for thr, g in ((10, 72.0), (20, 73.0), (30, 73.0), (50, 74.0))
    ),
    Config(
        "pw10",
        "Linear 10-20-30",
        6,
        BUF_TUNED,
        _pw((10, 20, 30)),
        paper_gain_pct=74.0,
        paper_gain_text="above 74 %",
    ),
    Config("pw20", "Linear 20-30-40", 6, BUF_TUNED, _pw((20, 30, 40)), paper_gain_pct=74.5),
)


def by_key(key: str) -> Config:
    for c in CONFIGS:
        if c.key == key:
            return c
    raise KeyError(key)


def testbed(
    cfg: Config,
    connections: int = 1,
    queue: int = QUEUE,
    sample_interval_s: float | None = None,
) -> dict[str, Any]:
    """The test-bed scenario of ``cfg`` with ``connections`` transfers of
    H bytes starting together."""
    nodes: list[str] = ["r1", "r2"]
    links: list[dict[str, Any]] = [
        {
            "name": "sat",
            "a": "r1",
            "b": "r2",
            "rate_bps": 2e6,
            "delay_s": 0.26,
            "queue_packets": queue,
        }
    ]
    apps = []
    for i in range(connections):
        s, c = f"s{i}", f"c{i}"
        links.append({"a": s, "b": "r1", "rate_bps": 10e6, "delay_s": 0.0005})
        links.append({"a": "r2", "b": c, "rate_bps": 10e6, "delay_s": 0.0005})
        nodes += [s, c]
        apps.append({"kind": "bulk", "client": c, "server": s, "bytes": H})
    sc: dict[str, Any] = {
        "name": f"slowstart-{cfg.key}-n{connections}-q{queue}",
        "duration_s": 3000.0,
        "nodes": nodes,
        "links": links,
        "apps": apps,
        "tcp": {
            "variant": "slowstart",
            "initial_window": cfg.iw,
            "rcv_buffer": cfg.buf // 2,
            "window_scaling": True,
            "timestamps": True,
            "initial_ssthresh": 2**30,
            "min_rto": 0.2,
            "timer_granularity": 0.01,
            "slowstart": dict(cfg.function),
        },
    }
    if sample_interval_s is not None:
        sc["sample_interval_s"] = sample_interval_s
    return sc


@dataclass
class Outcome:
    """A run's transfer time (the last transfer's), its aggregate
    throughput N x H / time, queue drops and retransmissions."""

    connections: int
    time_s: float
    drops: int
    retransmitted: int

    @property
    def throughput_kBps(self) -> float:
        return self.connections * H / self.time_s / KB


def outcome(r: satcp.Results, connections: int) -> Outcome:
    tr = r.transfers
    if len(tr) != connections or tr["response_time_s"].isna().any():
        raise RuntimeError(f"{r.name}: not every transfer completed")
    return Outcome(
        connections,
        float(tr["response_time_s"].max()),
        int(r.links["queue_drops"].sum()),
        int(r.flows["server_retransmitted_segments"].sum()),
    )


def gain(t: float, t_ref: float) -> float:
    """The paper's gain of a transfer time over the reference's, percent."""
    return 100.0 * (1.0 - t / t_ref)

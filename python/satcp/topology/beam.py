"""One GEO beam as operators run it (issue 35, item 4): hundreds to
thousands of terminals behind one satellite beam, each browsing the web
and some downloading files, the forward carrier DVB-S2 with adaptive
coding per terminal, the return carrier DVB-RCS2 with dedicated access
granted on request (DAMA). docs/satellite-access.md, "A GEO beam".

  server --ground-- gateway ==satellite== beam --access-- t0 ... t(N-1)

- The satellite link's forward direction (gateway to beam) is a shared
  DVB-S2 carrier (`dvbs2.terminals`): each terminal its own queue, its own
  clear-sky Es/N0 and its MODCOD; a fraction of them under a rain fade.
- Its return direction (beam to gateway) is a DVB-RCS2 carrier
  (`dvbrcs2.terminals`): superframes of ``superframe_s`` with slots of
  ``slot_payload_bytes``, as many as ``return_rate_bps`` needs; each
  terminal has a constant rate (CRA; default 8 kb/s, an ACK stream's
  floor, or half the return capacity shared by all where that is less)
  and asks for its backlog (VBDC).
- Each terminal browses: pages of ``page_segments`` segments, exponential
  think times of mean ``think_time_s`` (the web application), starting at a
  random time within the first think time; a fraction ``download_fraction``
  of them also downloads ``download_bytes`` once, starting at a random
  time within the first ``download_start_s``.

The spread of Es/N0 over the beam, which terminals are rainy or download,
and the start times are drawn from ``seed`` here (the same arguments give
the same scenario); the rain itself and the think times are the core's
seeded streams.
"""

from __future__ import annotations

import math
import random
from typing import Any

from .links import bulk, link, scenario

#: Bytes of a return slot's payload: an MPEG-2 TS packet's worth, the
#: DVB-RCS2 reference waveforms' 188-byte bursts.
SLOT_PAYLOAD_BYTES = 188


def geo_beam(
    terminals: int = 200,
    *,
    seed: int = 1,
    duration_s: float = 60.0,
    forward_symbol_rate_baud: float = 50e6,
    esn0_db: tuple[float, float] = (6.0, 14.0),
    rainy_fraction: float = 0.1,
    rain: dict[str, float] | None = None,
    return_rate_bps: float = 20e6,
    superframe_s: float = 0.0265,
    return_carriers: int = 8,
    cra_bps: float | None = None,
    queue_packets: int = 100,
    page_segments: int = 20,
    think_time_s: float = 10.0,
    download_fraction: float = 0.1,
    download_bytes: int = 20_000_000,
    download_start_s: float = 30.0,
    variant: str = "cubic",
    sample_interval_s: float = 0.0,
) -> dict[str, Any]:
    """The beam's scenario with ``terminals`` terminals (1 to 10,000)."""
    if not 1 <= terminals <= 10_000:
        raise ValueError(f"terminals: {terminals} must be 1 to 10,000")
    for name, v in (("rainy_fraction", rainy_fraction), ("download_fraction", download_fraction)):
        if not 0.0 <= v <= 1.0:
            raise ValueError(f"{name}: {v} must be within [0, 1]")
    lo, hi = esn0_db
    if lo > hi:
        raise ValueError(f"esn0_db: ({lo}, {hi}) must be (lowest, highest)")
    rng = random.Random(seed)
    names = [f"t{i}" for i in range(terminals)]
    fade = rain or {"median_db": 1.0, "sigma": 1.0}
    forward_terminals = []
    for node in names:
        t: dict[str, Any] = {"node": node, "esn0_db": round(rng.uniform(lo, hi), 2)}
        if rng.random() < rainy_fraction:
            t["rain"] = dict(fade)
        forward_terminals.append(t)
    slots = max(1, math.floor(return_rate_bps * superframe_s / 8 / SLOT_PAYLOAD_BYTES))
    if cra_bps is None:
        cra_bps = min(8e3, 0.5 * return_rate_bps / terminals)
    satellite = link(
        "gateway",
        "beam",
        name="satellite",
        delay_s=0.25,
        queue_packets=queue_packets,
        ab={
            "dvbs2": {
                "symbol_rate_baud": forward_symbol_rate_baud,
                "margin_db": 1.0,
                "esn0_db": hi,
                "terminals": forward_terminals,
            }
        },
        ba={
            "dvbrcs2": {
                "superframe_s": superframe_s,
                "slots": slots,
                "carriers": return_carriers,
                "slot_payload_bytes": SLOT_PAYLOAD_BYTES,
                "cra_bps": cra_bps,
                "vbdc": True,
                "terminals": [{"node": n} for n in names],
            }
        },
    )
    links = [
        link("server", "gateway", name="ground", rate_bps=1e9, delay_s=0.010),
        satellite,
        *(link("beam", n, name=f"access-{n}", rate_bps=100e6, delay_s=0.0001) for n in names),
    ]
    apps: list[dict[str, Any]] = []
    for n in names:
        apps.append(
            {
                "kind": "web",
                "name": f"web-{n}",
                "client": n,
                "server": "server",
                "segments": page_segments,
                "think_time": "exponential",
                "think_time_s": think_time_s,
                "start_s": round(rng.uniform(0.0, think_time_s), 3),
            }
        )
        if rng.random() < download_fraction:
            start = round(rng.uniform(0.0, download_start_s), 3)
            apps.append(
                bulk(n, "server", name=f"download-{n}", bytes=download_bytes, start_s=start)
            )
    return scenario(
        f"geo-beam-{terminals}",
        ["server", "gateway", "beam", *names],
        links,
        apps,
        tcp={"profile": "linux", "variant": variant},
        seed=seed,
        duration_s=duration_s,
        stop_when_done=False,
        sample_interval_s=sample_interval_s,
    )

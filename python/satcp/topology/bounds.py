"""What a path allows, read from a scenario dict: its hops
(:func:`path_hops`), the time of a download limited by the receive window
(:func:`window_bound`) or by the link rate (:func:`link_bound_s`)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

__all__ = ["WindowBound", "link_bound_s", "path_hops", "window_bound"]


def path_hops(sc: dict[str, Any], src: str, dst: str) -> list[tuple[float, float, float]]:
    """(delay_s, rate forward, rate backward) of each link on the path from
    ``src`` to ``dst`` (breadth-first over the links)."""
    adj: dict[str, list[tuple[str, dict[str, Any], bool]]] = {}
    for link in sc["links"]:
        adj.setdefault(link["a"], []).append((link["b"], link, True))
        adj.setdefault(link["b"], []).append((link["a"], link, False))
    prev: dict[str, tuple[str, dict[str, Any], bool] | None] = {src: None}
    todo = [src]
    while todo:
        node = todo.pop(0)
        for nxt, link, forward in adj.get(node, []):
            if nxt not in prev:
                prev[nxt] = (node, link, forward)
                todo.append(nxt)
    if dst not in prev:
        raise ValueError(f"no path from {src} to {dst}")
    hops = []
    node = dst
    while (step := prev[node]) is not None:
        node, link, forward = step
        there, back = ("ab", "ba") if forward else ("ba", "ab")

        def get(d: str, key: str, link: dict[str, Any] = link) -> float:
            return float(link.get(d, {}).get(key, link.get(key, 0.0)))

        hops.append((get(there, "delay_s"), get(there, "rate_bps"), get(back, "rate_bps")))
    return hops[::-1]


@dataclass
class WindowBound:
    """Time to send a file at one receive window per round trip."""

    file_bytes: int
    mss: int
    rwnd: int
    window_bytes: int
    rtt_s: float
    rtt_terms: list[tuple[str, float]]
    handshake_s: float

    @property
    def transfer_s(self) -> float:
        return self.file_bytes / self.window_bytes * self.rtt_s

    @property
    def total_s(self) -> float:
        return self.transfer_s + self.handshake_s


def window_bound(sc: dict[str, Any]) -> WindowBound:
    """The rwnd-limited FTP download time of the (first) app of ``sc``:
    file_bytes / (floor(rwnd / mss) * mss bytes per RTT), with the RTT of a
    full data packet one way and a 40-byte ACK back, plus ~1 RTT handshake."""
    app = sc["apps"][0]
    tcp = {**sc.get("tcp", {}), **app.get("tcp", {})}
    mss = int(tcp.get("mss", 1460))
    rwnd = int(tcp.get("rcv_buffer", 65535))
    header = 40
    hops = path_hops(sc, app["server"], app["client"])
    terms: list[tuple[str, float]] = [
        (
            "propagation 2 x (" + " + ".join(f"{d:g}" for d, _, _ in hops) + ") s",
            2 * sum(d for d, _, _ in hops),
        ),
    ]
    for _, fwd, _ in hops:
        terms.append((f"{mss + header} B at {_rate(fwd)}", (mss + header) * 8 / fwd))
    for _, _, back in hops[::-1]:
        terms.append((f"{header} B at {_rate(back)}", header * 8 / back))
    rtt = sum(v for _, v in terms)
    return WindowBound(
        file_bytes=int(app.get("file_bytes", 50_000_000)),
        mss=mss,
        rwnd=rwnd,
        window_bytes=rwnd // mss * mss,
        rtt_s=rtt,
        rtt_terms=terms,
        handshake_s=rtt,
    )


def _rate(bps: float) -> str:
    if bps >= 1e6:
        return f"{bps / 1e6:g} Mb/s"
    return f"{bps / 1e3:g} kb/s"


def link_bound_s(sc: dict[str, Any], mss: int = 1460, header: int = 40) -> float:
    """Time to push the (first) FTP app's file through the satellite
    downlink (the second link's ``ab``) at line rate (full segments of
    ``mss + header`` bytes), plus one RTT of propagation for the handshake
    and the last segment."""
    app = sc["apps"][0]
    sat = sc["links"][1]
    rate = float(sat["ab"]["rate_bps"])
    segments = math.ceil(int(app["file_bytes"]) / mss)
    prop = 2 * (float(sc["links"][0]["delay_s"]) + float(sat["delay_s"]))
    return segments * (mss + header) * 8 / rate + prop

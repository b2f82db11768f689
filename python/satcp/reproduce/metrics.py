"""What the data files' metrics read from a run (:class:`satcp.Results`):
functions every paper's expressions can call, with the run as ``run``
(``time_s = "= completion_s(run, connections)"``)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

__all__ = [
    "completion_s",
    "delivery_rate",
    "finished",
    "flow_rates",
    "flow_sum",
    "link_stat",
    "mean_response_s",
    "queue_drops",
    "responses",
    "retransmitted_segments",
]


def completion_s(run: Any, transfers: int) -> float:
    """When the last of ``transfers`` bulk transfers completed (its response
    time, the handshake excluded); an error if one did not."""
    tr = run.transfers
    if len(tr) != transfers or tr["response_time_s"].isna().any():
        raise RuntimeError(f"{run.name}: not every transfer completed")
    return float(tr["response_time_s"].max())


def finished(response_time: Any) -> bool:
    """Whether a transfer row's response time is there: neither missing
    nor NaN (what the transfers table's ``dropna`` keeps)."""
    return response_time is not None and response_time == response_time


def queue_drops(run: Any) -> int:
    """Packets dropped by every queue of the network."""
    return int(run.links["queue_drops"].sum())


def link_stat(run: Any, src: str, dst: str, field: str) -> int:
    """A counter of the link direction from node ``src`` to ``dst``
    (``tx_packets``, ``queue_drops``, ...); 0 for a counter the results
    leave out when it is zero (``acks_filtered``)."""
    lk = run.links
    row = lk[(lk["from"] == src) & (lk["to"] == dst)]
    if len(row) != 1:
        raise RuntimeError(f"{run.name}: no one link direction {src} -> {dst}")
    if field not in row.columns:
        return 0
    v = row[field].iloc[0]
    return 0 if v is None or (isinstance(v, float) and math.isnan(v)) else int(v)


def retransmitted_segments(run: Any) -> int:
    """Segments every sender retransmitted."""
    return int(run.flows["server_retransmitted_segments"].sum())


def delivery_rate(run: Any, unit: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """The first connection's bytes delivered to the receiver per sampling
    interval, divided by ``unit`` (e.g. 1,000 for kB/s): (the intervals'
    end times, the rates)."""
    fs = run.flow_series
    fs = fs[fs["conn"] == fs["conn"].min()].sort_values("time_s")
    t = fs["time_s"].to_numpy(dtype=float)
    b = fs["bytes_delivered"].to_numpy(dtype=float)
    return t[1:], np.diff(b) / np.diff(t) / unit


def responses(run: Any, kind: str) -> int:
    """Responses (downloads, pages) of applications of ``kind``."""
    return len(run.response_times(kind))


def mean_response_s(run: Any, kind: str, every: bool = False) -> float:
    """The mean response time of applications of ``kind``; NaN when there
    is none, or (``every``) when one of them did not complete."""
    times = run.response_times(kind)
    total = int((run.transfers["kind"] == kind).sum()) if not run.transfers.empty else 0
    if len(times) == 0 or (every and len(times) < total):
        return math.nan
    return float(times.mean())


def flow_rates(
    run: Any, duration_s: float, variant: str | None = None
) -> tuple[float, float, float, float]:
    """The mean throughput per flow (kb/s over ``duration_s``) of the run's
    flows (of ``tcp.variant`` ``variant`` only, when given) and their fast
    retransmissions, timeouts and duplicate segments received (spurious
    retransmissions), each per data segment sent."""
    # Summed from the results' rows, not the flows table: building a table
    # of some sixty columns cost a millisecond a run, a TCP-R reproduction's
    # 3,000 runs three seconds (sums of integers: the same numbers).
    mine = [f for f in run.raw.get("flows") or [] if not variant or f["variant"] == variant]
    sent = float(flow_sum(mine, "server", "data_segments_sent")) or 1.0
    thr = float(flow_sum(mine, "client", "bytes_delivered")) * 8 / duration_s / 1000.0 / len(mine)
    return (
        thr,
        float(flow_sum(mine, "server", "fast_retransmits")) / sent,
        float(flow_sum(mine, "server", "timeouts")) / sent,
        float(flow_sum(mine, "client", "duplicate_segments_received")) / sent,
    )


def flow_sum(flows: list[dict[str, Any]], side: str, counter: str) -> int:
    """A counter of the ``side`` ("server" or "client") endpoint summed over
    the results' flow rows (the flows table's ``{side}_{counter}`` column
    summed; a missing value counts as 0, as pandas' sum skips it)."""
    return sum((f.get(side) or {}).get(counter) or 0 for f in flows)

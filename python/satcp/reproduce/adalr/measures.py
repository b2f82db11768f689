"""What the experiments read from a run: response times, the satellite
downlink's row, the thesis figures' time series, and :class:`FtpRun` /
:class:`HttpRun`, the numbers of one FTP or HTTP run."""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import pandas as pd

from ...results import Results
from .tables import write_text

#: Averaging interval of the figures and of "up to" peaks: OPNET's collection
#: interval in the thesis runs (App. A: 18,000 s / 3,600 values = 5 s).
BIN_S = 5.0


def ftp_time(res: Results) -> float:
    """Download response time of the run's FTP file (NaN if unfinished)."""
    t = res.response_times("ftp")
    total = int((res.transfers["kind"] == "ftp").sum()) if not res.transfers.empty else 0
    if len(t) == 0 or len(t) < total:
        return math.nan
    return float(t.mean())


def http_page_time(res: Results) -> tuple[float, int]:
    """Mean HTTP page response time over the finished pages, and their number."""
    t = res.response_times("http")
    if len(t) == 0:
        return math.nan, 0
    return float(t.mean()), len(t)


def satellite_link(res: Results) -> pd.Series:
    """The links row of the satellite downlink (gateway -> client)."""
    links = res.links
    hit = links[(links["from"] == "gateway") & (links["to"] == "client")]
    return hit.iloc[0]


def rate_series(res: Results, bin_s: float = BIN_S, conn: int = 0) -> pd.DataFrame:
    """The thesis figures' quantities over time, averaged over ``bin_s``
    (the run's sample interval must divide it): ``time_s`` (end of bin),
    ``seq_bytes`` (received segment sequence number, the client's
    rcv_nxt), ``goodput_Bps`` (original bytes delivered in order to the
    client per second), ``tcp_Bps`` (payload bytes received by the client per second,
    retransmissions included), ``link_bps`` and ``util_pct`` (satellite
    downlink)."""
    fs = res.flow_series
    ls = res.link_series
    if fs.empty or ls.empty:
        return pd.DataFrame(
            columns=["time_s", "seq_bytes", "goodput_Bps", "tcp_Bps", "link_bps", "util_pct"]
        )
    fs = fs[fs["conn"] == conn].set_index("time_s")
    link = satellite_link(res)
    lk = ls[ls["link"] == int(link["link"])].set_index("time_s")
    t_end = min(fs.index.max(), lk.index.max())
    edges = [i * bin_s for i in range(int(t_end // bin_s + 1e-9) + 1)]
    fs = fs.reindex(edges, method="ffill")
    lk = lk.reindex(edges, method="ffill")
    good = fs["bytes_delivered"].astype(float).diff() / bin_s
    tcp = fs["payload_bytes_received"].astype(float).diff() / bin_s
    link_bps = lk["rx_bytes"].astype(float).diff() * 8 / bin_s
    out = pd.DataFrame(
        {
            "time_s": edges,
            "seq_bytes": fs["rcv_nxt"].astype(float).to_numpy(),
            "goodput_Bps": good.fillna(0.0).to_numpy(),
            "tcp_Bps": tcp.fillna(0.0).to_numpy(),
            "link_bps": link_bps.fillna(0.0).to_numpy(),
        }
    )
    out["util_pct"] = out["link_bps"] / float(link["rate_bps"]) * 100.0
    return out


def labelled(series: pd.DataFrame, **labels: Any) -> pd.DataFrame:
    """A copy of ``series`` with the columns ``labels`` in front (for the
    series CSV files)."""
    frame = series.copy()
    for name, value in reversed(labels.items()):
        frame.insert(0, name, value)
    return frame


def write_series(path: str | os.PathLike[str], frames: Sequence[pd.DataFrame]) -> None:
    """Writes :func:`labelled` series frames as one CSV file."""
    write_text(path, pd.concat(frames).to_csv(index=False))


def peak(series: pd.Series) -> float:
    return float(series.max()) if len(series) else math.nan


class FtpRun:
    """What the experiments read from one FTP run."""

    def __init__(self, res: Results) -> None:
        self.res = res
        self.sc: dict[str, Any] = res.scenario or {}
        self.time = ftp_time(res)
        f = res.flows.iloc[0]
        self.goodput_bps = float(f["goodput_bps"])
        self.tcp_bps = float(f["throughput_bps"])
        self.srtt_s = float(f["srtt_s"])
        self.final_cwnd = int(f["final_cwnd"])
        self.retransmissions = int(f["server_retransmitted_segments"])
        self.timeouts = int(f["server_timeouts"])
        sat = satellite_link(res)
        self.link_bps = float(sat["throughput_bps"])
        self.util_pct = float(sat["utilization"]) * 100.0
        self.drops = int(sat["queue_drops"])
        self.max_queue = int(sat["max_queue_packets"])

    @cached_property
    def series(self) -> pd.DataFrame:
        return rate_series(self.res)

    @cached_property
    def mean_flight(self) -> float:
        """Mean sampled flight size away from the first and last 10 s."""
        fs = self.res.flow_series
        if fs.empty or math.isnan(self.time):
            return math.nan
        m = fs[(fs["time_s"] > 10) & (fs["time_s"] < self.time - 10)]
        return float(m["flight_size"].mean()) if len(m) else math.nan


@dataclass
class HttpRun:
    """What the experiments read from one HTTP run."""

    mean: float
    pages: int
    drops: int
    retransmissions: int
    recoveries: int
    timeouts: int

    @classmethod
    def of(cls, res: Results) -> HttpRun:
        mean, pages = http_page_time(res)
        f = res.flows
        return cls(
            mean,
            pages,
            int(satellite_link(res)["queue_drops"]),
            int(f["server_retransmitted_segments"].sum()),
            int(f["server_fast_retransmits"].sum()),
            int(f["server_timeouts"].sum()),
        )

"""What ``paper.toml`` reads from TCP-Peach runs that needs more than a
formula: the start of a connection (:func:`startup`, Fig. 3), one loss
episode (:func:`episode`, Figs. 7 and 9), goodputs in segments/s, web
transfers (:func:`web_run`), acked_i(t) (:func:`acked`, Fig. 17) and the
means over seeds of Figs. 11-13 (:func:`curve`).

Units follow the paper: segments of MSS = 1,000 bytes, time in seconds or
RTTs of 550 ms (:data:`satcp.topology.PEACH_NETWORK`).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ...results import flat_row
from ...stats import jain_index
from ...topology import PEACH_NETWORK, peach_sender_delays
from ..metrics import finished, flow_sum

__all__ = [
    "acked",
    "delay_correlation",
    "dummy_counters",
    "episode",
    "flow_goodputs",
    "jain_index",
    "lossless",
    "mathis",
    "sec5_counters",
    "startup",
    "web_run",
]

MSS = PEACH_NETWORK["mss"]
RTT_S = PEACH_NETWORK["rtt_s"]
RWND_SEG = PEACH_NETWORK["rwnd_seg"]
STEP_S = 0.005  # the time series' sampling interval of Figs. 3, 7 and 9


def _first(t: Sequence[float], values: Sequence[float], at_least: float, after: float) -> float:
    """The first t (after ``after``) with a value of at least ``at_least``."""
    for x, v in zip(t, values, strict=True):
        if x > after and v >= at_least - 1e-9:
            return x
    return math.nan


def _at(t: Sequence[float], values: Sequence[float], when: float) -> float:
    """The value at the first sample at or after ``when``."""
    for x, v in zip(t, values, strict=True):
        if x >= when - 1e-9:
            return v
    return math.nan


# --- Fig. 3: the start of a connection ------------------------------------------------


@dataclass
class Startup:
    """One run of Fig. 3, time in RTT from the first data segment."""

    t_rtt: list[float]
    cwnd: list[float]
    acked: list[float]
    first_data_s: float
    extra_segments: int

    @property
    def rwnd_reached_rtt(self) -> float:
        """When cwnd first reaches rwnd."""
        return _first(self.t_rtt, self.cwnd, RWND_SEG, -math.inf)

    @property
    def full_rate_rtt(self) -> float:
        """When the sender first gets a whole window acknowledged within one
        RTT (rate rwnd/RTT, Eq. 1's B = rwnd x l / RTT): the first t with
        acked(t) - acked(t - RTT) >= rwnd - 1."""
        per_rtt = round(1.0 / (STEP_S / RTT_S))
        for i in range(per_rtt, len(self.t_rtt)):
            if self.acked[i] - self.acked[i - per_rtt] >= RWND_SEG - 1:
                return self.t_rtt[i]
        return math.nan

    def acked_at(self, t_rtt: float) -> float:
        return _at(self.t_rtt, self.acked, t_rtt)

    def until(self, span_rtt: float) -> Startup:
        """The samples up to ``span_rtt`` (a figure's)."""
        n = sum(1 for t in self.t_rtt if t <= span_rtt)
        return Startup(self.t_rtt[:n], self.cwnd[:n], self.acked[:n], self.first_data_s, 0)


def startup(run: Any) -> Startup:
    """cwnd and acked(t), the data segments acknowledged since the first was
    sent, from the last sample before the first data segment (the SYN-ACK
    is one octet: the first data segment left within the next step)."""
    fs = run.flow_series
    i = next(k for k, f in enumerate(fs["flight_size"].to_list()) if f >= MSS)
    times = fs["time_s"].to_list()
    t0 = times[i - 1]
    return Startup(
        [(t - t0) / RTT_S for t in times[i - 1 :]],
        [c / MSS for c in fs["cwnd"].to_list()[i - 1 :]],
        [float(max(0, (u - 1) // MSS)) for u in fs["snd_una"].to_list()[i - 1 :]],
        t0,
        int(run.flows["server_extra_segments_sent"].iloc[0]),
    )


# --- Figs. 7 and 9: one loss episode --------------------------------------------------


@dataclass
class Episode:
    """The first loss-recovery episode of one run (or, ``lossless``, a run
    without the loss), on a time axis where t = 0 is (about) when the lost
    segment was sent."""

    t0_s: float  # absolute time of t = 0
    t: list[float]
    cwnd: list[float]  # segments
    acked: list[float]  # segments acknowledged since t = 0
    detect: float = math.nan  # loss detected, on the t axis
    end: float = math.nan  # recovery over (the lost segment acknowledged)
    cwnd0: float = math.nan  # cwnd just before the detection
    cwnd_entry: float = math.nan  # cwnd at the first sample of the recovery
    ssthresh_entry: float = math.nan
    cwnd_max: float = math.nan  # largest (inflated) cwnd during the recovery
    cwnd_after: float = math.nan  # cwnd at the first sample after the recovery
    srtt_s: float = math.nan
    lost_segment: float = math.nan  # 1 + snd_una / MSS at the detection

    def cwnd_at(self, t: float) -> float:
        return _at(self.t, self.cwnd, t)

    def first_after(self, t: float, at_least: float) -> float:
        return _first(self.t, self.cwnd, at_least, t)

    def cut_s(self, when: str) -> float:
        """When a run cut for the dummy counters ends: one step before the
        detection, or 2 RTT after the recovery (the runs are deterministic)."""
        if when == "detection":
            return self.t0_s + self.detect - STEP_S
        return self.t0_s + self.end + 2 * self.srtt_s

    def window(self, lo: float, hi: float) -> tuple[list[float], list[float], list[float]]:
        """t, cwnd and acked(t) from ``lo`` to ``hi``."""
        keep = [i for i, t in enumerate(self.t) if lo <= t <= hi]
        return tuple([xs[i] for i in keep] for xs in (self.t, self.cwnd, self.acked))

    def deficit(self, lossless: Episode, lo_rtt: float = 4.0, hi_rtt: float = 8.0) -> float:
        """Mean number of segments acknowledged less than the run without
        the loss, ``lo_rtt`` to ``hi_rtt`` RTT after t = 0 (the difference
        swings with the window's bursts, so one instant would not do)."""
        diffs = [
            a - b
            for t, a, b in zip(lossless.t, lossless.acked, self.acked, strict=False)
            if lo_rtt * RTT_S <= t <= hi_rtt * RTT_S
        ]
        return sum(diffs) / len(diffs) if diffs else math.nan

    def gap_growth(self, lossless: Episode) -> float:
        """How fast the gap behind the run without the loss grows, segments
        per RTT: the mean over 6-8 RTT minus the mean over 4-6 RTT, over the
        2 RTT between them."""
        return (self.deficit(lossless, 6.0, 8.0) - self.deficit(lossless, 4.0, 6.0)) / 2.0


def lossless(run: Any, like: Episode) -> Episode:
    """A run without the loss, on the time axis of episode ``like``."""
    fs = run.flow_series
    times, una, t0 = fs["time_s"].to_list(), fs["snd_una"].to_list(), like.t0_s
    a0 = una[next(j for j, t in enumerate(times) if t >= t0)]
    cwnd = [c / MSS for c in fs["cwnd"].to_list()]
    return Episode(t0, [t - t0 for t in times], cwnd, [(u - a0) / MSS for u in una])


def episode(run: Any, peach: bool, lost_seq: int | None = None) -> Episode:
    """The first recovery of a run (``peach``: TCP-Peach's Rapid Recovery):
    t = 0 when the segment ``lost_seq`` was sent (Fig. 7) or, without it,
    one smoothed RTT before the detection (Fig. 9)."""
    fs = run.flow_series
    times = fs["time_s"].to_list()
    cwnd = [c / MSS for c in fs["cwnd"].to_list()]
    una = fs["snd_una"].to_list()
    ss = fs["ssthresh"].to_list()
    phase = fs["cc_phase"].to_list()
    srtt = fs["srtt_s"].to_list()
    k = next(i for i, s in enumerate(ss) if s != ss[0])  # first sample of the recovery
    if lost_seq is not None:
        # The first sample with the lost segment sent: it left in the step before.
        flight = fs["flight_size"].to_list()
        i = next(j for j, (u, f) in enumerate(zip(una, flight, strict=True)) if u + f > lost_seq)
        t0 = times[i] - STEP_S / 2
    else:
        t0 = times[k] - srtt[k]
    if peach:  # cc_phase 3 is Rapid Recovery
        e = next(j for j in range(k, len(times)) if phase[j] != 3)
    else:  # Fast Recovery ends when cwnd is deflated to ssthresh
        e = next(j for j in range(k + 1, len(times)) if cwnd[j] <= ss[j] / MSS + 1e-9)
    a0 = una[next(j for j, t in enumerate(times) if t >= t0)]
    return Episode(
        t0_s=t0,
        t=[t - t0 for t in times],
        cwnd=cwnd,
        acked=[(u - a0) / MSS for u in una],
        detect=times[k] - t0 - STEP_S / 2,
        end=times[e] - t0 - STEP_S / 2,
        cwnd0=cwnd[k - 1],
        cwnd_entry=cwnd[k],
        ssthresh_entry=ss[k] / MSS,
        cwnd_max=max(cwnd[k:e]),
        cwnd_after=cwnd[e],
        srtt_s=srtt[k],
        lost_segment=1 + (una[k] - 1) / MSS,
    )


def dummy_counters(run: Any) -> tuple[int, int]:
    """Dummy segments sent and their (marked) ACKs received so far."""
    f = run.flows.iloc[0]
    return int(f["server_extra_segments_sent"]), int(f["server_marked_acks_received"])


# --- Sec. V: goodput ---------------------------------------------------------------------


def flow_goodputs(run: Any) -> list[float]:
    """Goodput of every application's connection in the scenario's order of
    the applications, segments/s: original bytes delivered in order to the
    receiver over the simulated time."""
    dur = float(run.end_time_s)
    flows = run.raw.get("flows") or []
    if not flows or dur <= 0:
        return []
    # Summed from the results' rows, not the flows table: a web run has a
    # connection per file (thousands), and its table took longer to build
    # than the rest of the reproduction's bookkeeping (sums of integers: the
    # same numbers).
    per_app: dict[int, int] = {}
    for f in flows:
        delivered = (f.get("client") or {}).get("bytes_delivered") or 0
        per_app[f["app"]] = per_app.get(f["app"], 0) + delivered
    return [float(per_app[a]) / MSS / dur for a in sorted(per_app)]


@dataclass
class Counters:
    """One Sec. V run of bulk transfers: aggregate goodput, the senders'
    counters and the satellite channel's."""

    goodput: float  # segments/s, all connections
    data_segments: int
    dummies: int
    retransmissions: int
    timeouts: int
    fast_retransmits: int
    queue_drops: int
    link_losses: int
    utilization: float  # of the satellite channel A -> B

    @property
    def overhead_pct(self) -> float:
        """Dummies per data segment sent, %."""
        return 100.0 * self.dummies / self.data_segments if self.data_segments else math.nan

    @property
    def dummy_share_pct(self) -> float:
        """Dummies among all segments sent, %."""
        total = self.data_segments + self.dummies
        return 100.0 * self.dummies / total if total else math.nan


def sec5_counters(run: Any) -> Counters:
    # From the results' rows, not the flows and links tables (220 runs):
    # the same counters, summed as integers.
    flows = run.raw.get("flows") or []
    sat = flat_row("links", next(lk for lk in run.raw["links"] if lk["name"] == "satellite:ab"))
    return Counters(
        sum(flow_goodputs(run)),
        flow_sum(flows, "server", "data_segments_sent"),
        flow_sum(flows, "server", "extra_segments_sent"),
        flow_sum(flows, "server", "retransmitted_segments"),
        flow_sum(flows, "server", "timeouts"),
        flow_sum(flows, "server", "fast_retransmits"),
        int(sat["queue_drops"]),
        int(sat["lost"] + sat["corrupted"]),
        float(sat["utilization"]),
    )


def mathis(ploss: float) -> float:
    """Mathis et al.: per-connection segments/s of a loss-limited Reno."""
    return min(RWND_SEG / RTT_S, math.sqrt(1.5) / (RTT_S * math.sqrt(ploss)))


# --- Figs. 14-16: web transfers ---------------------------------------------------------


@dataclass
class WebRun:
    transfers: int  # started
    completed: int
    t_avg: float  # mean transfer time of the completed ones, s
    goodput: float  # segments/s delivered, all connections
    transfer_goodput: float  # segments of completed files / their total time


def web_run(run: Any, segments: int) -> WebRun:
    # From the results' rows, not the transfers table (a web run has
    # thousands): the same times, summed in the same order.
    tr = run.raw.get("transfers") or []
    done = [float(t["response_time_s"]) for t in tr if finished(t.get("response_time_s"))]
    total = float(sum(done))
    return WebRun(
        len(tr),
        len(done),
        total / len(done) if len(done) else math.nan,
        sum(flow_goodputs(run)),
        segments * len(done) / total if total else math.nan,
    )


# --- Fig. 17: acked_i(t) ----------------------------------------------------------------


@dataclass
class Acked:
    """acked_i(t): the segments delivered to receiver i by t."""

    times: list[float]
    acked: list[list[float]]  # per connection, per time

    def worst_ratio(self, after_s: float = 10.0) -> float:
        """Largest max_i / min_i of acked_i(t) over the samples after ``after_s``."""
        worst = 1.0
        for j, t in enumerate(self.times):
            vals = [a[j] for a in self.acked]
            if t >= after_s and min(vals) > 0:
                worst = max(worst, max(vals) / min(vals))
        return worst

    @property
    def final(self) -> list[float]:
        return [a[-1] for a in self.acked]

    @property
    def final_jain(self) -> float:
        return jain_index(self.final)

    def rows(self, case: str) -> list[dict[str, Any]]:
        """The CSV rows: case, time and acked_i per connection."""
        return [
            {"case": case, "time_s": t, **{f"conn{i}": a[j] for i, a in enumerate(self.acked)}}
            for j, t in enumerate(self.times)
        ]


def delay_correlation(a: Acked, seed: int = 1) -> float:
    """The correlation between the senders' access delays (drawn from
    ``seed``, :func:`satcp.topology.peach_sender_delays`) and acked_i at
    the end of the run."""
    return statistics.correlation(peach_sender_delays(len(a.acked), seed), a.final)


def acked(run: Any, n: int) -> Acked:
    """acked_i(t) of the run's ``n`` connections, in application order."""
    fs = run.flow_series
    conn_of_app = dict(zip(run.flows["app"], run.flows["conn"], strict=True))
    series = [fs[fs["conn"] == conn_of_app[app]] for app in range(n)]
    return Acked(
        series[-1]["time_s"].to_list(),
        [[b / MSS for b in s["bytes_delivered"].to_list()] for s in series],
    )

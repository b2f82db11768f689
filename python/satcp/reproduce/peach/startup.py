"""TCP-Peach, Sec. III-B and Fig. 3: Sudden Start vs Slow Start.

One connection on the Sec. V network (c = 1,300 segments/s, K = 50, RTT
550 ms, no link errors), rwnd = 64 segments of 1,000 bytes, an unlimited
transfer: ``peach`` (Sudden Start) against ``newreno`` (Slow Start from one
segment, the paper's TCP-Reno) and, for Sec. II-A's Increased Initial
Window, ``newreno`` with ``initial_window = 4`` (RFC 2414/3390 with
1,000-byte segments). The congestion window and acked(t), the number of
data segments acknowledged since the first one was sent, are sampled every
5 ms; time is counted in RTTs from the first data segment (the paper's
t = 0).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._legacy import Experiment, Measured, Point, run_experiment
from .._legacy import measure as measure_runs
from .claims import Claim, Section, fmt
from .common import MSS, PEACH_PLAIN, RENO_PLAIN, RTT_S, RWND_SEG, sec5_scenario
from .figures import Panel, Series, plot

__all__ = ["EXPERIMENT", "STEP_S", "Startup", "measure", "reproduce", "scenarios"]

#: Sampling interval of the time series, seconds.
STEP_S = 0.005
#: RTTs drawn after the first data segment.
SPAN_RTT = 12.0
FIGURE = "fig03_sudden_start.png"
CSV = "fig03_sudden_start.csv"

#: (key, variant, initial window, label, style)
RUNS = (
    ("peach", PEACH_PLAIN, 1, "TCP-Peach (Sudden Start)", "peach"),
    ("reno", RENO_PLAIN, 1, "TCP-Reno (Slow Start)", "reno"),
    ("reno_iiw", RENO_PLAIN, 4, "TCP-Reno, IW = 4 (IIW)", "iiw"),
)


def scenarios() -> list[dict[str, Any]]:
    # The handshake takes 1.5 RTT before the first data segment.
    dur = (SPAN_RTT + 2.0) * RTT_S
    return [
        sec5_scenario(
            [variant],
            initial_window=iw,
            duration_s=dur,
            sample_interval_s=STEP_S,
            name=f"peach-fig3-{key}",
        )
        for key, variant, iw, _, _ in RUNS
    ]


@dataclass
class Startup:
    """One run of Fig. 3, time in RTT from the first data segment."""

    key: str
    label: str
    style: str
    t_rtt: list[float]
    cwnd: list[float]
    acked: list[float]
    first_data_s: float
    extra_segments: int

    def first_time(self, values: list[float], at_least: float) -> float:
        for t, v in zip(self.t_rtt, values, strict=True):
            if v >= at_least - 1e-9:
                return t
        return math.nan

    @property
    def rwnd_reached_rtt(self) -> float:
        """When cwnd first reaches rwnd."""
        return self.first_time(self.cwnd, RWND_SEG)

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
        for t, a in zip(self.t_rtt, self.acked, strict=True):
            if t >= t_rtt - 1e-9:
                return a
        return math.nan


def measure(key: str, label: str, style: str, res: Any) -> Startup:
    fs = res.flow_series
    flight = fs["flight_size"].to_list()
    times = fs["time_s"].to_list()
    # The last sample before a data segment is out (the SYN-ACK is one
    # octet): the first data segment left within the next STEP_S.
    i = next(k for k, f in enumerate(flight) if f >= MSS)
    t0 = times[i - 1]
    t_rtt = [(t - t0) / RTT_S for t in times[i - 1 :]]
    cwnd = [c / MSS for c in fs["cwnd"].to_list()[i - 1 :]]
    acked = [max(0, (u - 1) // MSS) for u in fs["snd_una"].to_list()[i - 1 :]]
    return Startup(
        key,
        label,
        style,
        t_rtt,
        cwnd,
        [float(a) for a in acked],
        t0,
        int(res.flows["server_extra_segments_sent"].iloc[0]),
    )


def compute(workers: int | None = None) -> dict[str, Startup]:
    """The three runs, measured (without writing files)."""
    return _runs(measure_runs(EXPERIMENT, workers))


def _metrics(point: Point, res: Any) -> Startup:
    key, _, _, label, style = RUNS[point["run"]]
    return measure(key, label, style, res)


def _runs(measured: Measured) -> dict[str, Startup]:
    return {s.key: s for _, s in measured}


def _table(measured: Measured) -> list[dict[str, Any]]:
    """cwnd and acked(t) of every run, time in RTT from its first data segment."""
    return [
        {"series": s.key, "time_rtt": t, "cwnd_segments": c, "acked_segments": a}
        for s in _runs(measured).values()
        for t, c, a in zip(s.t_rtt, s.cwnd, s.acked, strict=True)
    ]


def _figures(rows: list[dict[str, Any]], measured: Measured, out: Path) -> list[str]:
    runs = _runs(measured)
    shown = [runs["peach"], runs["reno"]]

    def series(attr: str) -> list[Series]:
        out_ = []
        for s in shown:
            keep = [i for i, t in enumerate(s.t_rtt) if t <= SPAN_RTT]
            out_.append(
                Series(
                    s.label,
                    [s.t_rtt[i] for i in keep],
                    [getattr(s, attr)[i] for i in keep],
                    s.style,
                )
            )
        return out_

    plot(
        out / FIGURE,
        "Fig. 3: TCP-Peach (Sudden Start) and TCP-Reno (Slow Start) at the beginning of a "
        "connection, rwnd = 64 segments (satcp)",
        [
            Panel("Time [RTT]", "cwnd [segments]", series("cwnd"), xlim=(0, SPAN_RTT)),
            Panel("Time [RTT]", "acked(t) [segments]", series("acked"), xlim=(0, SPAN_RTT)),
        ],
    )
    return [FIGURE]


def claims(runs: dict[str, Startup]) -> list[Claim]:
    p, r, iiw = runs["peach"], runs["reno"], runs["reno_iiw"]
    eq1 = 1 + math.log2(RWND_SEG)
    saved = r.full_rate_rtt - iiw.full_rate_rtt
    return [
        Claim(
            "3",
            "Sudden Start: cwnd reaches rwnd = 64 about 2 RTT after the first data segment "
            "(the ACK of the last dummy)",
            2.0,
            p.rwnd_reached_rtt,
            "RTT",
        ),
        Claim(
            "3",
            "Sudden Start sends rwnd - 1 = 63 dummy segments",
            63,
            p.extra_segments,
            "",
            digits=0,
        ),
        Claim(
            "3 / Eq. 1",
            "Slow Start needs RTT (1 + log2 W) to reach a rate of W = 64 segments per RTT",
            eq1,
            r.full_rate_rtt,
            "RTT",
            note="satcp: first time a whole window of 63-64 segments is acknowledged "
            "within one RTT",
        ),
        Claim(
            "3",
            "Sudden Start reaches rwnd much earlier than Slow Start (satcp: cwnd = 64 at "
            f"{fmt(p.rwnd_reached_rtt, 2)} vs {fmt(r.rwnd_reached_rtt, 2)} RTT)",
            None,
            r.rwnd_reached_rtt - p.rwnd_reached_rtt,
            "RTT earlier",
            holds=r.rwnd_reached_rtt - p.rwnd_reached_rtt >= 3.0,
        ),
        Claim(
            "3",
            "Sudden Start delivers data much faster: segments acknowledged 8 RTT after the "
            f"first (satcp: {p.acked_at(8):.0f} vs {r.acked_at(8):.0f})",
            None,
            p.acked_at(8) / r.acked_at(8) if r.acked_at(8) else math.nan,
            "x Reno",
            holds=p.acked_at(8) >= 2 * r.acked_at(8),
        ),
        Claim(
            "II-A",
            "An increased initial window (IW 4) shortens Slow Start by at most 3 RTT",
            3.0,
            saved,
            "RTT",
            holds=0 < saved <= 3.0 + 0.05,
            paper_text="<= 3 RTT",
        ),
    ]


#: Fig. 3: the three runs, their time series, the figure and the claims.
EXPERIMENT = Experiment(
    name="fig03",
    csv=CSV,
    grid=[{"run": i} for i in range(len(RUNS))],
    scenario=lambda p: scenarios()[p["run"]],
    metrics=_metrics,
    table=_table,
    columns=("series", "time_rtt", "cwnd_segments", "acked_segments"),
    claims=lambda rows, measured: claims(_runs(measured)),
    figures=_figures,
)


def reproduce(out: Path, workers: int | None, quick: bool) -> Section:
    del quick  # three short runs either way
    t0 = time.perf_counter()
    done = run_experiment(EXPERIMENT, out, workers)
    runs, cl = _runs(done.measured), done.claims
    p, r, iiw = runs["peach"], runs["reno"], runs["reno_iiw"]
    md = [
        "## Fig. 3: Sudden Start vs Slow Start",
        "",
        "One connection on the Sec. V network without errors, rwnd = 64 segments, "
        f"time series every {STEP_S * 1000:.0f} ms; t = 0 is the first data segment "
        f"({p.first_data_s:.3f} s after the SYN: the handshake), time in RTTs of 550 ms. "
        f"Figure `{FIGURE}`, data `{CSV}` (with the IW = 4 run).",
        "",
        f"TCP-Peach sends its first data segment and 63 dummies tau = RTT/64 apart; their "
        f"ACKs raise cwnd by one each during the second RTT, so cwnd = 64 at "
        f"{fmt(p.rwnd_reached_rtt, 2)} RTT. TCP-Reno doubles cwnd per RTT from one segment "
        f"and reaches 64 at {fmt(r.rwnd_reached_rtt, 2)} RTT; a whole window per RTT is "
        f"acknowledged from {fmt(r.full_rate_rtt, 2)} RTT (Eq. 1: 7 RTT; Table I applies the "
        "same formula to GEO, e.g. 3.91 s = 7.1 RTT for B = 1 Mb/s, 69 segments per RTT, "
        "more than rwnd = 64 allows without window scaling). With IW = 4 "
        f"this happens at {fmt(iiw.full_rate_rtt, 2)} RTT, 2 RTT earlier (log2 4), inside the "
        "paper's bound of 3 RTT. satcp's Reno lets cwnd grow past rwnd in congestion "
        "avoidance (docs/model.md), so its curve keeps rising slowly above 64 where the "
        "sender is in fact limited by rwnd; Peach caps cwnd at rwnd (docs/peach.md, "
        "reading 6).",
        "",
    ]
    return Section(
        "Fig. 3: Sudden Start",
        "\n".join(md),
        cl,
        [FIGURE, CSV],
        runs=done.runs,
        seconds=time.perf_counter() - t0,
    )

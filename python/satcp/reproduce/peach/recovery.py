"""TCP-Peach, Sec. IV and Figs. 7 and 9: one segment loss, caused by a link
error (Rapid Recovery regains the window) or by congestion (it halves the
window like Fast Recovery).

Both figures use one connection on the Sec. V network, no delayed ACK, and
compare ``peach`` with ``newreno`` (the paper's TCP-Reno with Fast
Recovery's window inflation, which Fig. 7's cwnd of 42 shows); time series
every 5 ms.

- Fig. 7 (link error): rwnd = 30 segments, so cwnd = 30 when the 100th data
  segment (sequence number 99,001) is lost once on the satellite channel
  (``drop_seqs``). NewReno starts with ssthresh = rwnd (30 segments): its
  slow start would otherwise push cwnd far above the 30 segments it may
  send (satcp's NewReno does not cap cwnd at rwnd, docs/model.md) and the
  paper's "cwnd = 30 when the segment is lost" would not hold. t = 0 is
  the transmission of the lost segment.
- Fig. 9 (congestion): a real congestion loss at a priority bottleneck that
  carries cwnd0/RTT: c = 40 segments/s and K = 8 segments, so the path
  holds c x RTT + K = 30 segments and the first overflow drops a segment
  when cwnd is about 30-33 (the end-to-end test ``tests/peach.rs`` uses the
  same network). rwnd = 64; NewReno starts with ssthresh = 20 segments so
  that it reaches congestion avoidance without a slow-start overshoot, as
  the paper's Reno does (cwnd 30 before the loss). Which segment is lost
  is decided by the queue, not forced; t = 0 is one smoothed RTT before
  the loss is detected (about when the lost segment was sent).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..experiment import Experiment, Point, measure
from ..tables import write_csv
from .claims import Claim, Section, fmt
from .common import MSS, PEACH_PLAIN, RENO_PLAIN, RTT_S, sec5_scenario
from .figures import Panel, Series, plot

__all__ = ["Episode", "compute", "link_error_cost_text", "overlap_text", "reproduce"]

STEP_S = 0.005
LOST_SEGMENT = 100
LOST_SEQ = 1 + (LOST_SEGMENT - 1) * MSS
FIG7_RWND = 30
FIG9_C, FIG9_K, FIG9_RENO_SSTHRESH = 40.0, 8, 20
FIG7, FIG7_CSV = "fig07_link_error_loss.png", "fig07_link_error_loss.csv"
FIG9, FIG9_CSV = "fig09_congestion_loss.png", "fig09_congestion_loss.csv"
#: The figures show this window around t = 0, seconds.
FIG7_SPAN = (-0.5, 3.0)
FIG9_SPAN = (-0.5, 4.0)


def fig7_scenario(variant: str, drop: bool = True, duration_s: float = 10.0) -> dict[str, Any]:
    tcp = {} if variant.startswith("peach") else {"initial_ssthresh": FIG7_RWND * MSS}
    return sec5_scenario(
        [variant],
        rwnd_seg=FIG7_RWND,
        duration_s=duration_s,
        sample_interval_s=STEP_S,
        tcp=tcp,
        satellite={"errors": {"drop_seqs": [LOST_SEQ]}} if drop else None,
        name=f"peach-fig7-{variant}",
    )


def fig9_scenario(variant: str, duration_s: float = 40.0) -> dict[str, Any]:
    tcp = {} if variant.startswith("peach") else {"initial_ssthresh": FIG9_RENO_SSTHRESH * MSS}
    return sec5_scenario(
        [variant],
        c_seg=FIG9_C,
        k_seg=FIG9_K,
        duration_s=duration_s,
        sample_interval_s=STEP_S,
        tcp=tcp,
        name=f"peach-fig9-{variant}",
    )


@dataclass
class Episode:
    """The first loss-recovery episode of one run, on a time axis where
    t = 0 is (about) when the lost segment was sent."""

    variant: str
    t0_s: float  # absolute time of t = 0
    t: list[float]
    cwnd: list[float]  # segments
    acked: list[float]  # segments acknowledged since t = 0
    detect: float  # loss detected, on the t axis
    end: float  # recovery over (the lost segment acknowledged)
    cwnd0: float  # cwnd just before the detection
    cwnd_entry: float  # cwnd at the first sample of the recovery
    ssthresh_entry: float
    cwnd_max: float  # largest (inflated) cwnd during the recovery
    cwnd_after: float  # cwnd at the first sample after the recovery
    srtt_s: float
    lost_segment: float  # 1 + snd_una / MSS at the detection
    dummies_sent: float = math.nan  # during the episode (Peach)
    dummies_answered: float = math.nan

    def at(self, values: list[float], t: float) -> float:
        for x, v in zip(self.t, values, strict=True):
            if x >= t - 1e-9:
                return v
        return math.nan

    def cwnd_at(self, t: float) -> float:
        return self.at(self.cwnd, t)

    def acked_at(self, t: float) -> float:
        return self.at(self.acked, t)

    def first_after(self, t: float, at_least: float) -> float:
        for x, v in zip(self.t, self.cwnd, strict=True):
            if x > t and v >= at_least - 1e-9:
                return x
        return math.nan


def _episode(variant: str, res: Any, align: str) -> Episode:
    fs = res.flow_series
    times = fs["time_s"].to_list()
    cwnd = [c / MSS for c in fs["cwnd"].to_list()]
    ss = fs["ssthresh"].to_list()
    una = fs["snd_una"].to_list()
    flight = fs["flight_size"].to_list()
    phase = fs["cc_phase"].to_list()
    srtt = fs["srtt_s"].to_list()
    k = next(i for i, s in enumerate(ss) if s != ss[0])  # first sample of the recovery
    if align == "lost_segment":
        # The first sample with the lost segment sent: it left in the step before.
        i = next(j for j, (u, f) in enumerate(zip(una, flight, strict=True)) if u + f > LOST_SEQ)
        t0 = times[i] - STEP_S / 2
    else:
        t0 = times[k] - srtt[k]
    peach = variant.startswith("peach")
    if peach:  # cc_phase 3 is Rapid Recovery
        e = next(j for j in range(k, len(times)) if phase[j] != 3)
    else:  # Fast Recovery ends when cwnd is deflated to ssthresh
        e = next(j for j in range(k + 1, len(times)) if cwnd[j] <= ss[j] / MSS + 1e-9)
    a0 = una[next(j for j, t in enumerate(times) if t >= t0)]
    return Episode(
        variant=variant,
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


def _counters(res: Any) -> tuple[int, int]:
    f = res.flows.iloc[0]
    return int(f["server_extra_segments_sent"]), int(f["server_marked_acks_received"])


@dataclass
class Recovery:
    fig7: dict[str, Episode]
    fig7_noloss: dict[str, Episode]
    fig9: dict[str, Episode]
    runs: int


def _runs_scenario(p: Point) -> dict[str, Any]:
    if p["fig"] == "9":
        return fig9_scenario(p["variant"])
    return fig7_scenario(p["variant"], drop=p["fig"] == "7")


def _runs_metrics(p: Point, res: Any) -> Any:
    """Figs. 7 and 9: the episode; the run without the loss: its series
    (time, snd_una, cwnd), put on the lossy run's time axis afterwards."""
    if p["fig"] == "7":
        return _episode(p["variant"], res, "lost_segment")
    if p["fig"] == "9":
        return _episode(p["variant"], res, "srtt")
    fs = res.flow_series
    return fs["time_s"].to_list(), fs["snd_una"].to_list(), fs["cwnd"].to_list()


#: Figs. 7 and 9 and the Fig. 7 runs without the loss, both variants.
RUNS = Experiment(
    name="recovery",
    csv="",
    grid=[
        {"fig": fig, "variant": v}
        for fig in ("7", "9", "7_noloss")
        for v in (PEACH_PLAIN, RENO_PLAIN)
    ],
    scenario=_runs_scenario,
    metrics=_runs_metrics,
)


def _cuts(fig7: dict[str, Episode], fig9: dict[str, Episode]) -> Experiment:
    """Each Peach episode's run cut at the detection and 2 RTT after the
    recovery (the runs are deterministic): its dummy counters there."""
    grid = []
    for fig, ep in (("7", fig7[PEACH_PLAIN]), ("9", fig9[PEACH_PLAIN])):
        before = ep.t0_s + ep.detect - STEP_S
        after = ep.t0_s + ep.end + 2 * ep.srtt_s
        grid += [{"fig": fig, "duration_s": before}, {"fig": fig, "duration_s": after}]
    make = {"7": fig7_scenario, "9": fig9_scenario}
    return Experiment(
        name="recovery_cuts",
        csv="",
        grid=grid,
        scenario=lambda p: make[p["fig"]](PEACH_PLAIN, duration_s=p["duration_s"]),
        metrics=lambda p, res: _counters(res),
    )


def compute(workers: int | None = None) -> Recovery:
    measured = measure(RUNS, workers)
    got = {(p["fig"], p["variant"]): m for p, m in measured}
    variants = (PEACH_PLAIN, RENO_PLAIN)
    fig7 = {v: got["7", v] for v in variants}
    fig9 = {v: got["9", v] for v in variants}
    # The runs without the loss, on the lossy runs' time axes.
    noloss = {}
    for v in variants:
        ep = fig7[v]
        times, una, cwnd = got["7_noloss", v]
        a0 = una[next(j for j, t in enumerate(times) if t >= ep.t0_s)]
        noloss[v] = Episode(
            v,
            ep.t0_s,
            [t - ep.t0_s for t in times],
            [c / MSS for c in cwnd],
            [(u - a0) / MSS for u in una],
            *([math.nan] * 9),
        )
    # Dummies of each Peach episode: the counters at the detection and 2 RTT
    # after the recovery, from runs cut there.
    cut = [m for _, m in measure(_cuts(fig7, fig9), workers)]
    for j, ep in enumerate((fig7[PEACH_PLAIN], fig9[PEACH_PLAIN])):
        (s0, m0), (s1, m1) = cut[2 * j], cut[2 * j + 1]
        ep.dummies_sent, ep.dummies_answered = s1 - s0, m1 - m0
    return Recovery(fig7, noloss, fig9, len(measured) + len(cut))


def _deficit(ref: Episode, ep: Episode, lo_rtt: float = 4.0, hi_rtt: float = 8.0) -> float:
    """Mean number of segments ``ep`` has acknowledged less than the run
    without the loss, `lo_rtt` to `hi_rtt` (default 4 to 8) RTT after t = 0
    (the difference swings with the window's bursts, so one instant would not
    do)."""
    # Same sampling grid and t = 0 for both runs.
    diffs = [
        a - b
        for t, a, b in zip(ref.t, ref.acked, ep.acked, strict=False)
        if lo_rtt * RTT_S <= t <= hi_rtt * RTT_S
    ]
    return sum(diffs) / len(diffs) if diffs else math.nan


def _gap_growth(ref: Episode, ep: Episode) -> float:
    """How fast the gap behind the run without the loss grows, segments per
    RTT: the mean over 6-8 RTT minus the mean over 4-6 RTT, over the 2 RTT
    between them."""
    return (_deficit(ref, ep, 6.0, 8.0) - _deficit(ref, ep, 4.0, 6.0)) / 2.0


# A gap "no longer grows" when it changes by less than this many segments per
# RTT: the ACK clock's bursts move the 2-RTT means by a fraction of a segment.
GAP_STEADY_SEG_PER_RTT = 1.0


def link_error_cost_text(
    peach_gap: float, peach_growth: float, reno_gap: float, reno_growth: float, cwnd0: float
) -> str:
    """The end of Fig. 7's paragraph on what the link-error loss costs, read
    from the runs: each variant's mean gap behind its run without the loss
    over 4-8 RTT (segments) and how fast it grows (segments per RTT, see
    :func:`_gap_growth`); `cwnd0` is TCP-Peach's cwnd at the loss. Whether a
    gap grows, and whether the cost exceeds the paper's cwnd0/2, follow the
    numbers."""

    def trend(growth: float) -> str:
        if abs(growth) < GAP_STEADY_SEG_PER_RTT:
            return "a gap that no longer grows once its window is back"
        word = "grows" if growth > 0 else "shrinks"
        return f"a gap that still {word} by about {abs(growth):.1f} segments per RTT"

    paper = cwnd0 / 2
    if peach_gap > paper:
        cost = f"link-error losses cost it more than the paper's accounting ({paper:.0f})"
    else:
        cost = f"link-error losses cost it no more than the paper's accounting ({paper:.0f}) here"
    reno = "grows" if reno_growth > 0 else "shrinks"
    return (
        f"{peach_gap:.1f} on average 4-8 RTT after t0, {trend(peach_growth)}, while "
        f"NewReno's gap {reno} by about {abs(reno_growth):.0f} segments per RTT over 4-8 RTT "
        f"({reno_gap:.0f} on average over 4-8 RTT). The paper's cwnd0/2 needs rwnd >= "
        "1.5 cwnd0; a TCP-Peach sender that reaches rwnd in Sudden Start has cwnd0 = rwnd "
        f"whenever the path is not congested, so in satcp {cost}."
    )


def claims7(rec: Recovery) -> list[Claim]:
    p, r = rec.fig7[PEACH_PLAIN], rec.fig7[RENO_PLAIN]
    nl = rec.fig7_noloss
    back_start = p.first_after(p.end, p.cwnd_after + 1)
    back_full = p.first_after(p.end, FIG7_RWND)
    deficit = _deficit(nl[PEACH_PLAIN], p)
    reno_deficit = _deficit(nl[RENO_PLAIN], r)
    return [
        Claim(
            "7", "cwnd when the 100th segment is lost: TCP-Peach", 30, p.cwnd0, "segments", digits=1
        ),
        Claim(
            "7",
            "cwnd when the 100th segment is lost: TCP-Reno",
            30,
            r.cwnd0,
            "segments",
            digits=1,
            note="rwnd = 30 limits the flight to 30",
        ),
        Claim("7", "TCP-Peach detects the loss at t0 + RTT", 0.55, p.detect, "s"),
        Claim("7", "TCP-Reno detects the loss at t0 + RTT", 0.55, r.detect, "s"),
        Claim(
            "7", "cwnd halved at the detection: TCP-Peach", 15, p.cwnd_entry, "segments", digits=1
        ),
        Claim(
            "7",
            "cwnd halved at the detection: TCP-Reno (ssthresh; cwnd = ssthresh + 3)",
            15,
            r.ssthresh_entry,
            "segments",
            digits=1,
        ),
        Claim(
            "7",
            "window inflation during the recovery peaks at 42: TCP-Peach",
            42,
            p.cwnd_max,
            "segments",
            digits=0,
        ),
        Claim(
            "7",
            "window inflation during the recovery peaks at 42: TCP-Reno",
            42,
            r.cwnd_max,
            "segments",
            digits=0,
        ),
        Claim("7", "the lost segment is acknowledged at t0 + 2 RTT: TCP-Peach", 1.1, p.end, "s"),
        Claim("7", "the lost segment is acknowledged at t0 + 2 RTT: TCP-Reno", 1.1, r.end, "s"),
        Claim("7", "cwnd after the recovery: TCP-Peach", 15, p.cwnd_after, "segments", digits=1),
        Claim("7", "cwnd after the recovery: TCP-Reno", 15, r.cwnd_after, "segments", digits=1),
        Claim(
            "7",
            "TCP-Peach's cwnd starts growing with the dummy ACKs at t0 + 2.5 RTT",
            1.375,
            back_start,
            "s",
        ),
        Claim("7", "TCP-Peach's cwnd is back at 30 at t0 + 3 RTT", 1.65, back_full, "s"),
        Claim(
            "7",
            "TCP-Reno's cwnd one RTT after the recovery (congestion avoidance: one "
            "segment per RTT from 15)",
            16,
            r.cwnd_at(r.end + RTT_S),
            "segments",
            digits=1,
        ),
        Claim(
            "IV-A",
            "Rapid Recovery sends n_Dummy = cwnd0 = 30 dummies, all acknowledged "
            "on an uncongested path",
            30,
            p.dummies_sent,
            "dummies",
            digits=0,
            note=f"{p.dummies_answered:.0f} answered",
        ),
        Claim(
            "IV-A",
            "the only cost of a link-error loss is cwnd0/2 = 15 data segments not "
            "sent (TCP-Peach: acked(t) behind a run without the loss, mean over 4-8 RTT "
            "after t0)",
            15,
            deficit,
            "segments",
            digits=1,
            note=f"TCP-Reno is {reno_deficit:.0f} segments behind then, and falling back",
        ),
    ]


# The Fig. 9 curves "overlap" after the recovery when their cwnds, each
# aligned at its own detection, differ by at most this many segments.
OVERLAP_MAX_GAP_SEG = 2.0


def _fig9_gaps(p: Episode, r: Episode) -> list[float]:
    """|cwnd gap| 0.5, 1, 2 and 3 RTT after each recovery, both aligned at
    their own detection."""
    gaps = []
    for dt in (0.5, 1.0, 2.0, 3.0):
        cp = p.cwnd_at(p.end + dt * p.srtt_s)
        cr = r.cwnd_at(r.end + dt * r.srtt_s)
        gaps.append(abs(cp - cr))
    return gaps


def overlap_text(max_gap: float) -> str:
    """Whether the Fig. 9 curves overlap after the recovery, from the largest
    cwnd gap (segments) 0.5-3 RTT after it."""
    if max_gap <= OVERLAP_MAX_GAP_SEG:
        return (
            "the curves overlap after the recovery, as in the paper (largest cwnd gap "
            f"0.5-3 RTT after it: {max_gap:.1f} segments)."
        )
    return (
        "yet the curves do not overlap after the recovery as they do in the paper (largest "
        f"cwnd gap 0.5-3 RTT after it: {max_gap:.1f} segments)."
    )


def claims9(rec: Recovery) -> list[Claim]:
    p, r = rec.fig9[PEACH_PLAIN], rec.fig9[RENO_PLAIN]
    # Overlap after the recovery: both aligned at their detection.
    gaps = _fig9_gaps(p, r)
    frac = p.dummies_answered / p.dummies_sent if p.dummies_sent else math.nan
    return [
        Claim(
            "9",
            "cwnd when the congestion loss happens: TCP-Peach",
            30,
            p.cwnd0,
            "segments",
            digits=1,
            note=f"lost segment {p.lost_segment:.0f} (paper: the 100th)",
        ),
        Claim(
            "9",
            "cwnd when the congestion loss happens: TCP-Reno",
            30,
            r.cwnd0,
            "segments",
            digits=1,
            note=f"lost segment {r.lost_segment:.0f}",
        ),
        Claim(
            "9", "the recovery lasts one RTT: TCP-Peach", 1.0, (p.end - p.detect) / p.srtt_s, "RTT"
        ),
        Claim(
            "9", "the recovery lasts one RTT: TCP-Reno", 1.0, (r.end - r.detect) / r.srtt_s, "RTT"
        ),
        Claim(
            "9", "TCP-Peach ends the recovery with cwnd0/2", 0.5, p.cwnd_after / p.cwnd0, "x cwnd0"
        ),
        Claim(
            "9", "TCP-Reno ends the recovery with cwnd0/2", 0.5, r.cwnd_after / r.cwnd0, "x cwnd0"
        ),
        Claim(
            "IV-B",
            "about half of the cwnd0 dummies reach the receiver (the rest are "
            "dropped at the congested router)",
            0.5,
            frac,
            "of sent",
            note=f"{p.dummies_answered:.0f} of {p.dummies_sent:.0f} answered",
        ),
        Claim(
            "9",
            "TCP-Peach and TCP-Reno overlap after the recovery (largest cwnd gap "
            "0.5-3 RTT after it, each aligned at its own loss)",
            None,
            max(gaps),
            "segments",
            holds=max(gaps) <= OVERLAP_MAX_GAP_SEG,
            digits=1,
        ),
    ]


def _write(
    out: Path,
    fig: str,
    csv: str,
    title: str,
    eps: dict[str, Episode],
    span: tuple[float, float],
    extra: dict[str, Episode] | None = None,
) -> None:
    rows = []
    shown = list(eps.items()) + [(f"{v}-noloss", e) for v, e in (extra or {}).items()]
    for v, e in shown:
        for t, c, a in zip(e.t, e.cwnd, e.acked, strict=True):
            if span[0] - 1 <= t <= span[1] + 1:
                rows.append({"series": v, "time_s": t, "cwnd_segments": c, "acked_segments": a})
    write_csv(out / csv, ("series", "time_s", "cwnd_segments", "acked_segments"), rows)
    styles = {
        PEACH_PLAIN: ("TCP-Peach (Rapid Recovery)", "peach"),
        RENO_PLAIN: ("TCP-Reno (Fast Recovery)", "reno"),
    }

    def series(attr: str) -> list[Series]:
        out_ = []
        for v, e in eps.items():
            keep = [i for i, t in enumerate(e.t) if span[0] <= t <= span[1]]
            label, style = styles[v]
            out_.append(
                Series(label, [e.t[i] for i in keep], [getattr(e, attr)[i] for i in keep], style)
            )
        return out_

    ack_series = series("acked")
    plot(
        out / fig,
        title,
        [
            Panel("Time [s]", "cwnd [segments]", series("cwnd"), xlim=span),
            Panel(
                "Time [s]",
                "acked(t) [segments since t = 0]",
                ack_series,
                xlim=span,
                ylim=(min(0.0, min(min(s.y) for s in ack_series)), None),
            ),
        ],
    )


def reproduce(out: Path, workers: int | None, quick: bool) -> Section:
    del quick  # a handful of short runs either way
    t0 = time.perf_counter()
    rec = compute(workers)
    _write(
        out,
        FIG7,
        FIG7_CSV,
        "Fig. 7: the 100th segment lost to a link error at cwnd = 30, RTT 0.55 s (satcp)",
        rec.fig7,
        FIG7_SPAN,
        rec.fig7_noloss,
    )
    _write(
        out,
        FIG9,
        FIG9_CSV,
        "Fig. 9: a segment lost to congestion at cwnd of about 30 (satcp: c = 40 segments/s, "
        "K = 8)",
        rec.fig9,
        FIG9_SPAN,
    )
    c7, c9 = claims7(rec), claims9(rec)
    p7, r7 = rec.fig7[PEACH_PLAIN], rec.fig7[RENO_PLAIN]
    p9, r9 = rec.fig9[PEACH_PLAIN], rec.fig9[RENO_PLAIN]
    md = [
        "## Figs. 7 and 9: one loss, by a link error or by congestion",
        "",
        "One connection, `peach` vs `newreno` (no SACK: the paper's Secs. III-IV describe "
        "Fast Recovery with window inflation), time series every 5 ms.",
        "",
        "### Fig. 7: link error",
        "",
        f"rwnd = 30 segments; the 100th data segment is lost once on the satellite channel "
        f"(`drop_seqs = [{LOST_SEQ}]`); NewReno starts with ssthresh = 30 segments so that "
        "its cwnd is 30, not far above rwnd, when the segment is lost (satcp's Reno lets "
        "cwnd grow past rwnd in slow start). t = 0 is the transmission of the lost segment. "
        f"Figure `{FIG7}` (cwnd, and segments acknowledged since t = 0), data `{FIG7_CSV}` "
        "(also a TCP-Peach run without the loss).",
        "",
        f"TCP-Peach halves cwnd to {fmt(p7.cwnd_entry, 0)} without Fast Recovery's "
        f"3 extra segments (docs/peach.md, reading 9), so its inflation peaks at "
        f"{fmt(p7.cwnd_max, 0)} where NewReno's (ssthresh + 3 + one per duplicate ACK) peaks "
        f"at {fmt(r7.cwnd_max, 0)}; the paper's 42 is 15 + 27 ACKs. The loss is detected by "
        f"the third duplicate ACK: {fmt(p7.detect, 3)} s after t0 for TCP-Peach, whose "
        f"segments are spaced RTT/30 apart, {fmt(r7.detect, 3)} s for NewReno, whose window "
        "still goes out in slow-start bursts (so TCP-Peach's recovery also ends later). After "
        "the recovery the dummies' ACKs come back: the first 15 only count wdsn down, the next "
        "15 raise cwnd by one each, back to 30 in about a quarter of an RTT; NewReno grows by "
        "one segment per RTT.",
        "",
        "**Why a link-error loss costs TCP-Peach more than cwnd0/2 segments here.** The "
        "paper's walk through Rapid Recovery (Sec. IV-A) lets the sender put new data out "
        "once the inflated cwnd exceeds the segments outstanding, in the second half of the "
        "recovery, with up to 1.5 cwnd0 = 45 segments outstanding above the lost one. A real "
        "sender also obeys the receiver's window, which stays anchored at the lost segment "
        "until it is repaired: with rwnd = 30 = cwnd0 (the window that makes cwnd = 30 at "
        "the loss), satcp's TCP-Peach and NewReno cannot send any new data during the "
        f"recovery (the flight stays at 30, see `{FIG7_CSV}`); the 15 segments the paper "
        "sends in the recovery's second half leave in one burst when the retransmission is "
        "acknowledged, on average a quarter of an RTT (7.5 segment times) late, and that "
        "shift stays in the ACK clock. So TCP-Peach ends up about 15 + 7.5 + 1 "
        "(the retransmission) segments behind a run without the loss: "
        + link_error_cost_text(
            _deficit(rec.fig7_noloss[PEACH_PLAIN], p7),
            _gap_growth(rec.fig7_noloss[PEACH_PLAIN], p7),
            _deficit(rec.fig7_noloss[RENO_PLAIN], r7),
            _gap_growth(rec.fig7_noloss[RENO_PLAIN], r7),
            p7.cwnd0,
        ),
        "",
        "### Fig. 9: congestion",
        "",
        f"A bottleneck of c = {FIG9_C:.0f} segments/s with a priority buffer of K = {FIG9_K} "
        f"segments (the path holds c x RTT + K = {FIG9_C * RTT_S + FIG9_K:.0f} segments), "
        "rwnd = 64; the loss is a real buffer overflow in congestion avoidance (NewReno "
        f"starts with ssthresh = {FIG9_RENO_SSTHRESH} segments to avoid a slow-start "
        "overshoot). The paper forces the 100th segment at cwnd 30; here the queue decides: "
        f"segment {p9.lost_segment:.0f} at cwnd {p9.cwnd0:.1f} (TCP-Peach), "
        f"{r9.lost_segment:.0f} at {r9.cwnd0:.1f} (NewReno). Each curve is aligned so that t = "
        f"0 is one smoothed RTT ({p9.srtt_s:.2f} s with the queue full, the paper's 0.55 s is "
        "the empty path) before its detection. "
        f"Figure `{FIG9}`, data `{FIG9_CSV}`.",
        "",
        f"Rapid Recovery sent {p9.dummies_sent:.0f} dummies into the full buffer; "
        f"{p9.dummies_answered:.0f} were answered, the others pushed out or refused by data. "
        "wdsn = cwnd0/2 absorbs the answered ones' ACKs, so cwnd stays at half, as NewReno's: "
        + overlap_text(max(_fig9_gaps(p9, r9))),
        "",
    ]
    return Section(
        "Figs. 7 and 9: Rapid Recovery",
        "\n".join(md),
        c7 + c9,
        [FIG7, FIG7_CSV, FIG9, FIG9_CSV],
        runs=rec.runs,
        seconds=time.perf_counter() - t0,
    )

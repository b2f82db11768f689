"""TCP-Peach, Sec. V-A and Figs. 14-16: web transfers.

The Sec. V network (N = 20 sender/receiver pairs, K = 50, rwnd = 64,
c = 1,300 segments/s, RTT 550 ms, 550 s, link-error loss PLoss) with one
``web`` application per pair: files of S segments, each over a new
connection; the transfer ends when the sender has every ACK (the server's
FIN acknowledged), and the next one starts after a think time.

- Figs. 14-15: S = 50 segments back to back (no think time): the average
  transfer time t_Avg (client's SYN to the sender's last ACK, handshake
  included) and the goodput (segments delivered per second, summed over the
  20 connections), for ``peach-sack``, ``sack`` (TCP-Reno, IW 1) and
  ``sack`` with the increased initial window of RFC 2414/3390 (IW 4 with
  1,000-byte segments); "SACK in all cases", as the paper says.
- Fig. 16: phi_Peach/FS = goodput of ``peach-sack`` / goodput of
  ``faststart-sack`` (TCP-Reno + Fast Start) for exponential think times of
  mean DT = 1, 5, 10 s with S/DT constant. The paper does not give S; satcp
  uses S = 50 segments at DT = 1 s (Figs. 14-15's size), so S = 250 and 500
  for DT = 5 and 10: 20 x 50 segments/s offered, 77% of c. Goodput here is
  the transfers' own: segments of the completed files / their total
  transfer time (over 550 s the delivered amount is set by the think times,
  not by the variant).

Points are means over seeds (access delays and errors). Fast Start's cache
is per host pair, and every pair has its own nodes (docs/faststart.md).
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ... import variants
from .._legacy import Experiment, Measured, Point, measure, run_experiment
from ..tables import markdown_table
from .claims import Claim, Section, fmt
from .common import N_FLOWS, PEACH, RENO, RTT_S, aggregate_goodput, mean, sec5_scenario
from .figures import Panel, Series, plot

__all__ = ["PLOSS", "available", "compute", "reproduce"]

FASTSTART = "faststart-sack"
S_SEGMENTS = 50
PLOSS: tuple[float, ...] = (1e-5, 1e-4, 1e-3, 5e-3, 1e-2)
QUICK_PLOSS: tuple[float, ...] = (1e-4, 1e-2)
DTS: tuple[float, ...] = (1.0, 5.0, 10.0)
QUICK_DTS: tuple[float, ...] = (1.0, 10.0)
SEEDS: tuple[int, ...] = (1, 2, 3)
QUICK_SEEDS: tuple[int, ...] = (1,)

#: (key, variant, initial window, label, style) of Figs. 14-15.
CASES = (
    ("peach", PEACH, 1, "TCP-Peach", "peach"),
    ("reno", RENO, 1, "TCP-Reno", "reno"),
    ("reno_iiw", RENO, 4, "TCP-Reno, IIW (IW = 4)", "iiw"),
)
FIG14, FIG15, FIG16 = (
    "fig14_web_transfer_time.png",
    "fig15_web_goodput.png",
    "fig16_peach_vs_faststart.png",
)
CSV1415, CSV16 = "fig14_15_web_transfers.csv", "fig16_peach_vs_faststart.csv"


def available() -> bool:
    """Fig. 16 needs the Fast Start variant and the web application."""
    return FASTSTART in variants()


def web_scenario(
    variant: str,
    ploss: float,
    seed: int,
    *,
    segments: int = S_SEGMENTS,
    think_time_s: float = 0.0,
    initial_window: int = 1,
) -> dict[str, Any]:
    return sec5_scenario(
        [variant] * N_FLOWS,
        ploss=ploss,
        seed=seed,
        initial_window=initial_window,
        app={
            "kind": "web",
            "segments": int(segments),
            "think_time_s": float(think_time_s),
            "think_time": "exponential",
        },
        name=f"peach-web-{variant}-iw{initial_window}-p{ploss:g}-dt{think_time_s:g}-s{seed}",
    )


@dataclass
class WebRun:
    transfers: int  # started
    completed: int
    t_avg: float  # mean transfer time of the completed ones, s
    goodput: float  # segments/s delivered, all connections
    transfer_goodput: float  # segments of completed files / their total time

    @staticmethod
    def of(res: Any, segments: int) -> WebRun:
        tr = res.transfers
        done = tr["response_time_s"].dropna().astype(float) if not tr.empty else []
        total = float(sum(done))
        return WebRun(
            len(tr),
            len(done),
            total / len(done) if len(done) else math.nan,
            aggregate_goodput(res),
            segments * len(done) / total if total else math.nan,
        )


@dataclass
class Web:
    # (case, ploss) -> runs over seeds
    fig1415: dict[tuple[str, float], list[WebRun]]
    # (variant, dt, ploss) -> runs over seeds
    fig16: dict[tuple[str, float, float], list[WebRun]]
    runs: int

    def t_avg(self, case: str, p: float) -> float:
        return mean(r.t_avg for r in self.fig1415[(case, p)])

    def goodput(self, case: str, p: float) -> float:
        return mean(r.goodput for r in self.fig1415[(case, p)])

    def t_peach(self, dt: float, p: float) -> float:
        return mean(r.t_avg for r in self.fig16[(PEACH, dt, p)])

    def t_fs(self, dt: float, p: float) -> float:
        return mean(r.t_avg for r in self.fig16[(FASTSTART, dt, p)])

    def phi(self, dt: float, p: float) -> float:
        a = mean(r.transfer_goodput for r in self.fig16[(PEACH, dt, p)])
        b = mean(r.transfer_goodput for r in self.fig16[(FASTSTART, dt, p)])
        return a / b if b else math.nan


#: key -> (variant, initial window) of Figs. 14-15.
CASE = {key: (v, iw) for key, v, iw, _, _ in CASES}
COLUMNS1415 = (
    "case",
    "ploss",
    "seed",
    "segments",
    "transfers",
    "completed",
    "t_avg_s",
    "goodput_segments_per_s",
    "transfer_goodput_segments_per_s",
)
COLUMNS16 = (
    "variant",
    "dt_s",
    "segments",
    "ploss",
    "seed",
    "transfers",
    "completed",
    "t_avg_s",
    "transfer_goodput_segments_per_s",
    "goodput_segments_per_s",
)


def _segments(dt: float) -> int:
    """Fig. 16: S / DT constant."""
    return round(S_SEGMENTS * dt)


def _groups(measured: Measured, *names: str) -> dict[tuple, list[tuple[Point, WebRun]]]:
    """The runs by the point's ``names`` (the seeds in the grid's order)."""
    out: dict[tuple, list[tuple[Point, WebRun]]] = {}
    for p, r in measured:
        out.setdefault(tuple(p[n] for n in names), []).append((p, r))
    return out


def _runs(measured: Measured, *names: str) -> dict[tuple, list[WebRun]]:
    return {k: [r for _, r in v] for k, v in _groups(measured, *names).items()}


def _table1415(measured: Measured) -> list[dict[str, Any]]:
    return [
        {
            "case": case,
            "ploss": p,
            "seed": pt["seed"],
            "segments": S_SEGMENTS,
            "transfers": r.transfers,
            "completed": r.completed,
            "t_avg_s": r.t_avg,
            "goodput_segments_per_s": r.goodput,
            "transfer_goodput_segments_per_s": r.transfer_goodput,
        }
        for (case, p), runs in sorted(_groups(measured, "case", "ploss").items())
        for pt, r in runs
    ]


def _table16(measured: Measured) -> list[dict[str, Any]]:
    return [
        {
            "variant": v,
            "dt_s": dt,
            "segments": _segments(dt),
            "ploss": p,
            "seed": pt["seed"],
            "transfers": r.transfers,
            "completed": r.completed,
            "t_avg_s": r.t_avg,
            "transfer_goodput_segments_per_s": r.transfer_goodput,
            "goodput_segments_per_s": r.goodput,
        }
        for (v, dt, p), runs in sorted(_groups(measured, "variant", "dt_s", "ploss").items())
        for pt, r in runs
    ]


def _web(m1415: Measured, m16: Measured) -> Web:
    return Web(
        _runs(m1415, "case", "ploss"),
        _runs(m16, "variant", "dt_s", "ploss"),
        len(m1415) + len(m16),
    )


def experiment1415(plosses: Sequence[float], seeds: Sequence[int]) -> Experiment:
    """Figs. 14-15: files of S segments, the three cases, every PLoss."""

    def figures(rows: list, measured: Measured, out: Path) -> list[str]:
        _plot1415(_web(measured, []), plosses, out)
        return [FIG14, FIG15]

    return Experiment(
        name="fig14_15",
        csv=CSV1415,
        grid=[
            {"case": key, "ploss": p, "seed": s}
            for p in plosses
            for s in seeds
            for key, *_ in CASES
        ],
        scenario=lambda pt: web_scenario(
            CASE[pt["case"]][0], pt["ploss"], pt["seed"], initial_window=CASE[pt["case"]][1]
        ),
        metrics=lambda pt, res: WebRun.of(res, S_SEGMENTS),
        table=_table1415,
        columns=COLUMNS1415,
        figures=figures,
    )


def experiment16(
    plosses: Sequence[float], dts: Sequence[float], seeds: Sequence[int]
) -> Experiment:
    """Fig. 16: TCP-Peach against Fast Start, S / DT constant."""

    def figures(rows: list, measured: Measured, out: Path) -> list[str]:
        _plot16(_web([], measured), plosses, dts, out)
        return [FIG16]

    return Experiment(
        name="fig16",
        csv=CSV16,
        grid=[
            {"variant": v, "dt_s": dt, "ploss": p, "seed": s}
            for p in plosses
            for s in seeds
            for dt in dts
            for v in (PEACH, FASTSTART)
        ],
        scenario=lambda pt: web_scenario(
            pt["variant"],
            pt["ploss"],
            pt["seed"],
            segments=_segments(pt["dt_s"]),
            think_time_s=pt["dt_s"],
        ),
        metrics=lambda pt, res: WebRun.of(res, _segments(pt["dt_s"])),
        table=_table16,
        columns=COLUMNS16,
        figures=figures,
    )


def compute(
    plosses: Sequence[float] = PLOSS,
    dts: Sequence[float] = DTS,
    seeds: Sequence[int] = SEEDS,
    workers: int | None = None,
    fig16: bool = True,
) -> Web:
    """Every run of Figs. 14-16, measured (without writing files)."""
    m16 = measure(experiment16(plosses, dts, seeds), workers) if fig16 else []
    return _web(measure(experiment1415(plosses, seeds), workers), m16)


def claims(w: Web, plosses: Sequence[float], dts: Sequence[float], fig16: bool) -> list[Claim]:
    faster = [w.t_avg("reno", p) / w.t_avg("peach", p) for p in plosses]
    best = [
        w.goodput("peach", p) / max(w.goodput("reno", p), w.goodput("reno_iiw", p)) for p in plosses
    ]
    lo = min(plosses)
    saved = (w.t_avg("reno", lo) - w.t_avg("reno_iiw", lo)) / RTT_S
    out = [
        Claim(
            "14",
            "TCP-Peach transfers S = 50 segments faster than TCP-Reno, at every PLoss "
            "(Sudden Start is faster than Slow Start)",
            None,
            min(faster),
            "x (smallest t_Reno / t_Peach)",
            holds=all(f > 1 for f in faster),
            note=f"t_Avg at PLoss {lo:g}: Peach {w.t_avg('peach', lo):.2f} s, Reno "
            f"{w.t_avg('reno', lo):.2f} s, IIW {w.t_avg('reno_iiw', lo):.2f} s",
        ),
        Claim(
            "15",
            "TCP-Peach has the highest goodput (against TCP-Reno and TCP-Reno with "
            "IIW), at every PLoss",
            None,
            min(best),
            "x (smallest, vs the better Reno)",
            holds=all(b > 1 for b in best),
        ),
        Claim(
            "II-A",
            f"IIW shortens a transfer by up to 3 RTT (t_Reno - t_IIW, S = 50, PLoss {lo:g})",
            3.0,
            saved,
            "RTT",
            holds=0 < saved <= 3.05,
            paper_text="<= 3 RTT",
        ),
    ]
    if not fig16:
        return out
    phis = {(dt, p): w.phi(dt, p) for dt in dts for p in plosses}
    d0 = min(dts)
    others = [v for (dt, p), v in phis.items() if not (dt == d0 and p == lo)]
    hi = max(plosses)
    out += [
        Claim(
            "16",
            f"DT = {d0:g} s and low PLoss ({lo:g}): TCP-Peach and TCP-Reno + Fast "
            "Start about equal (phi_Peach/FS)",
            1.0,
            phis[(d0, lo)],
            "",
            digits=2,
        ),
        Claim(
            "16",
            "otherwise TCP-Peach's goodput is higher than Fast Start's "
            "(phi > 1 at every other point)",
            None,
            min(others),
            "(smallest phi)",
            holds=all(v > 1 for v in others),
            digits=2,
            note="phi < 1 at "
            + (
                ", ".join(
                    f"DT {dt:g}/PLoss {p:g}"
                    for (dt, p), v in phis.items()
                    if v <= 1 and not (dt == d0 and p == lo)
                )
                or "none"
            ),
        ),
        Claim(
            "16",
            f"phi grows with PLoss (Rapid Recovery), for every DT ({lo:g} to {hi:g})",
            None,
            min(phis[(dt, hi)] / phis[(dt, lo)] for dt in dts),
            "x (smallest phi(hi) / phi(lo))",
            holds=all(phis[(dt, hi)] > phis[(dt, lo)] for dt in dts),
            digits=2,
        ),
        Claim(
            "16",
            "phi grows with DT (Fast Start's cached window goes stale), at every PLoss",
            None,
            min(phis[(max(dts), p)] / phis[(d0, p)] for p in plosses),
            "x (smallest phi(DT max) / phi(DT min))",
            holds=all(
                all(phis[(a, p)] < phis[(b, p)] for a, b in itertools.pairwise(dts))
                for p in plosses
            ),
            digits=2,
        ),
    ]
    return out


def reproduce(out: Path, workers: int | None, quick: bool) -> Section:
    t0 = time.perf_counter()
    plosses = QUICK_PLOSS if quick else PLOSS
    dts = QUICK_DTS if quick else DTS
    seeds = QUICK_SEEDS if quick else SEEDS
    fs = available()
    d1415 = run_experiment(experiment1415(plosses, seeds), out, workers)
    files = [FIG14, FIG15, CSV1415]
    m16: Measured = []
    if fs:
        m16 = run_experiment(experiment16(plosses, dts, seeds), out, workers).measured
        files += [FIG16, CSV16]
    w = _web(d1415.measured, m16)
    cl = claims(w, plosses, dts, fs)
    md = _markdown(w, plosses, dts, seeds, fs)
    return Section(
        "Figs. 14-16: web transfers", md, cl, files, runs=w.runs, seconds=time.perf_counter() - t0
    )


def _plot1415(w: Web, plosses: Sequence[float], out: Path) -> None:
    plot(
        out / FIG14,
        f"Fig. 14: transfers of files of S = {S_SEGMENTS} segments, average "
        "transfer duration (N = 20, SACK in all cases; satcp)",
        [
            Panel(
                "PLoss",
                "t_Avg [s]",
                [
                    Series(label, plosses, [w.t_avg(key, p) for p in plosses], style, markers=True)
                    for key, _, _, label, style in CASES
                ],
                xlog=True,
            )
        ],
    )
    plot(
        out / FIG15,
        f"Fig. 15: transfers of files of S = {S_SEGMENTS} segments, goodput (N = 20; satcp)",
        [
            Panel(
                "PLoss",
                "Goodput [segments/s]",
                [
                    Series(
                        label, plosses, [w.goodput(key, p) for p in plosses], style, markers=True
                    )
                    for key, _, _, label, style in CASES
                ],
                xlog=True,
            )
        ],
    )


def _plot16(w: Web, plosses: Sequence[float], dts: Sequence[float], out: Path) -> None:
    styles = ("peach", "reno", "iiw")
    plot(
        out / FIG16,
        "Fig. 16: phi_Peach/FS, goodput of TCP-Peach / TCP-Reno with Fast "
        "Start, S/DT constant (satcp)",
        [
            Panel(
                "PLoss",
                "phi_Peach/FS",
                [
                    Series(
                        f"DT = {dt:g} s (S = {S_SEGMENTS * dt:g})",
                        plosses,
                        [w.phi(dt, p) for p in plosses],
                        st,
                        markers=True,
                    )
                    for dt, st in zip(dts, styles, strict=False)
                ],
                xlog=True,
                hlines=[(1.0, "")],
            )
        ],
    )


def _markdown(
    w: Web, plosses: Sequence[float], dts: Sequence[float], seeds: Sequence[int], fs: bool
) -> str:
    rows = [
        [
            f"{p:g}",
            *(fmt(w.t_avg(k, p), 2) for k, *_ in CASES),
            *(fmt(w.goodput(k, p), 0) for k, *_ in CASES),
        ]
        for p in plosses
    ]
    lo = min(plosses)
    md = [
        "## Figs. 14-16: web transfers (Sec. V-A)",
        "",
        f"{N_FLOWS} `web` applications on the Fig. 10 network, each sending files of S "
        "segments over new connections (the sender's last ACK ends a transfer). "
        f"Means over seeds {', '.join(map(str, seeds))}. Figures `{FIG14}`, `{FIG15}`"
        + (f", `{FIG16}`" if fs else "")
        + f"; data `{CSV1415}`"
        + (f", `{CSV16}`" if fs else "")
        + ".",
        "",
        f"**Figs. 14-15** (S = {S_SEGMENTS}, back to back; t_Avg in s, goodput in segments/s "
        f"for the {N_FLOWS} connections):",
        "",
        *markdown_table(
            ["PLoss", "t_Avg Peach", "Reno", "Reno IIW", "goodput Peach", "Reno", "Reno IIW"], rows
        ),
        "",
        f"A transfer takes the handshake (1 RTT before the first data segment) and the "
        f"data; at PLoss = {lo:g} TCP-Reno needs {w.t_avg('reno', lo) / RTT_S:.1f} RTT "
        f"(slow start from one segment: 1 + 2 + 4 + 8 + 16 + 19), with IW = 4 "
        f"{w.t_avg('reno_iiw', lo) / RTT_S:.1f} RTT, TCP-Peach "
        f"{w.t_avg('peach', lo) / RTT_S:.1f} RTT (one segment in the first RTT, the other "
        "49 as the dummies' ACKs open cwnd in the second). The paper gives no number for "
        "these figures.",
        "",
    ]
    if not fs:
        md += [
            "**Fig. 16** is not available: this satcp has no TCP Fast Start variant "
            f"(`{FASTSTART}`).",
            "",
        ]
        return "\n".join(md)
    r16 = [[f"{p:g}", *(fmt(w.phi(dt, p), 2) for dt in dts)] for p in plosses]
    d0, d1 = min(dts), max(dts)
    md += [
        f"**Fig. 16** (phi_Peach/FS; S = {S_SEGMENTS} x DT segments, exponential think "
        "times of mean DT):",
        "",
        *markdown_table(["PLoss", *(f"DT = {dt:g} s" for dt in dts)], r16),
        "",
        "Fast Start starts each file from the window the pair's previous connection ended "
        "with and sends that window at once (at low priority, paced over one cached RTT); "
        "TCP-Peach starts every file with Sudden Start, one data segment in the first RTT "
        "and the rest as the dummies' ACKs come back in the second. So with a fresh cache "
        f"and few errors Fast Start is one RTT ahead per file: at DT = {d0:g} s and PLoss "
        f"{lo:g} a {S_SEGMENTS}-segment file takes {w.t_fs(d0, lo) / RTT_S:.1f} RTT with "
        f"Fast Start and {w.t_peach(d0, lo) / RTT_S:.1f} with TCP-Peach (phi = "
        f"{w.phi(d0, lo):.2f}, where the paper has about 1). The paper's explanation of "
        "phi growing with DT is that the cached window goes stale; with S/DT constant the "
        "files also grow with DT, beyond one window of 64 segments, so a one-RTT head "
        f"start counts for less: {S_SEGMENTS * d1:g} segments take "
        f"{w.t_fs(d1, lo) / RTT_S:.1f} RTT with Fast Start and "
        f"{w.t_peach(d1, lo) / RTT_S:.1f} with TCP-Peach (phi = {w.phi(d1, lo):.2f}). "
        "With link errors Rapid Recovery keeps TCP-Peach's window where Fast Start, after "
        "its burst, is TCP-Reno (phi at PLoss "
        f"{max(plosses):g}: "
        + ", ".join(f"{w.phi(dt, max(plosses)):.2f} for DT = {dt:g} s" for dt in dts)
        + "). The paper gives no number for Fig. 16; its trends are in the summary.",
        "",
    ]
    return "\n".join(md)

"""TCP-Peach, Sec. V-B and Figs. 17, 19, 20: fairness.

- Fig. 17 (homogeneous): N = 10 TCP-Peach connections on the Sec. V network
  (K = 50, rwnd = 64, c = 1,300 segments/s, PLoss = 0, RTT 550 ms), 550 s;
  acked_i(t), the segments acknowledged to connection i by time t, sampled
  every second. The paper adds that other parameters give similar results:
  satcp also runs N = 20 (the channel is then congested; with N = 10 the
  ten windows of 64 segments fit in the path).
- Fig. 19 (heterogeneous, Fig. 18): M = 5 satellite connections X (RTT
  550 ms, link-error loss PLoss_X on their GEO channel) and N = 5
  terrestrial connections Y (RTT 200 ms, no errors) share the bottleneck
  A-B (c = 1,300 segments/s, K = 50); fairness phi = r_X / r_Y (Eq. 6),
  with X running TCP-Peach or TCP-Reno and Y TCP-Reno.
- Fig. 20: TCP-Reno (X) and TCP-Peach (Y) connections on the same GEO path
  (the Sec. V network, PLoss on the channel for both): phi_Reno/Peach =
  r_X / r_Y, against all-TCP-Reno. The paper does not give M and N for
  Fig. 20; satcp uses Fig. 19's M = N = 5.

Sec. V's variants: ``peach-sack`` and ``sack`` (both with SACK), Reno from
one segment, no delayed ACK. Goodputs are per connection, segments/s, over
550 s; each point is the mean over the seeds (one run without errors).
"""

from __future__ import annotations

import itertools
import math
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...stats import jain_index
from .._legacy import Experiment, Measured, measure, run_experiment
from .._legacy import Point as ExpPoint
from ..tables import markdown_table
from .claims import Claim, Section, fmt
from .common import (
    MSS,
    PEACH,
    RENO,
    RTT_S,
    flow_goodputs,
    hetero_scenario,
    mean,
    sec5_scenario,
    sender_delays,
)
from .figures import Panel, Series, plot

__all__ = ["PLOSS", "compute", "reproduce"]

PLOSS: tuple[float, ...] = (0.0, 1e-4, 1e-3, 1e-2)
QUICK_PLOSS: tuple[float, ...] = (0.0, 1e-2)
SEEDS: tuple[int, ...] = (1, 2, 3, 4, 5)
QUICK_SEEDS: tuple[int, ...] = (1,)
M = N = 5
FIG17_N = 10
FIG17_STEP_S = 1.0

FIG17, FIG17B = "fig17_fairness_homogeneous.png", "fig17_other_n20.png"
FIG19, FIG20 = "fig19_fairness_satellite_terrestrial.png", "fig20_fairness_reno_peach_geo.png"
CSV17, CSV19, CSV20 = (
    "fig17_acked_per_connection.csv",
    "fig19_fairness.csv",
    "fig20_fairness.csv",
)

# Sec. V-B, Fig. 20 at PLoss_X = PLoss_Y = 1e-2 (segments/s per connection).
PAPER_RX_RENO_PEACH = 12.1
PAPER_RY_RENO_PEACH = 100.0
PAPER_R_RENO_RENO = 19.7


@dataclass
class Acked:
    n: int
    times: list[float]
    acked: list[list[float]]  # per connection, per time

    def worst_ratio(self, after_s: float = 10.0) -> float:
        """Largest max_i / min_i of acked_i(t) over the samples after ``after_s``."""
        worst = 1.0
        for j, t in enumerate(self.times):
            if t < after_s:
                continue
            vals = [a[j] for a in self.acked]
            if min(vals) > 0:
                worst = max(worst, max(vals) / min(vals))
        return worst

    @property
    def final_jain(self) -> float:
        return jain_index([a[-1] for a in self.acked])


def _acked(res: Any, n: int) -> Acked:
    """acked_i(t) = segments delivered to receiver i by t, in application order."""
    fs = res.flow_series
    conn_of_app = dict(zip(res.flows["app"], res.flows["conn"], strict=True))
    acked = []
    times: list[float] = []
    for app in range(n):
        sel = fs[fs["conn"] == conn_of_app[app]]
        acked.append([b / MSS for b in sel["bytes_delivered"].to_list()])
        times = sel["time_s"].to_list()
    return Acked(n, times, acked)


@dataclass
class Fairness:
    fig17: Acked
    fig17_n20: Acked
    reno_n20_jain: float  # TCP-Reno in the N = 20 case, for comparison
    alone_1e2: float  # one TCP-Peach connection alone at PLoss 1e-2 (mean over seeds)
    n20_delay_corr: float  # correlation of sender access delay and acked_i(550 s), N = 20
    # (case, ploss) -> (r_X, r_Y) means over seeds; case "peach_reno" / "reno_reno"
    fig19: dict[tuple[str, float], tuple[float, float]]
    # case "reno_peach" / "reno_reno"
    fig20: dict[tuple[str, float], tuple[float, float]]
    rows19: list[dict[str, Any]]
    rows20: list[dict[str, Any]]
    runs: int


def _scenario17(point: ExpPoint) -> dict[str, Any]:
    run = point["run"]
    if run == "n10":
        return sec5_scenario([PEACH] * FIG17_N, sample_interval_s=FIG17_STEP_S, name="peach-fig17")
    if run == "n20":
        return sec5_scenario([PEACH] * 20, sample_interval_s=FIG17_STEP_S, name="peach-fig17-n20")
    if run == "reno_n20":
        return sec5_scenario([RENO] * 20, name="peach-fig17-n20-reno")
    return sec5_scenario([PEACH], ploss=1e-2, seed=point["seed"], name="peach-alone")


def _metrics17(point: ExpPoint, res: Any) -> Any:
    """n10, n20: acked_i(t); reno_n20: its Jain index; alone: its goodput."""
    run = point["run"]
    if run in ("n10", "n20"):
        return _acked(res, FIG17_N if run == "n10" else 20)
    if run == "reno_n20":
        return jain_index(flow_goodputs(res))
    return flow_goodputs(res)[0]


def _table17(measured: Measured) -> list[dict[str, Any]]:
    got = {p["run"]: m for p, m in measured}
    return [
        {"case": label, "time_s": t, **{f"conn{i}": a.acked[i][j] for i in range(a.n)}}
        for label, a in (("N=10", got["n10"]), ("N=20", got["n20"]))
        for j, t in enumerate(a.times)
    ]


def _figures17(rows: list, measured: Measured, out: Path) -> list[str]:
    got = {p["run"]: m for p, m in measured}
    for path, a, title in (
        (
            FIG17,
            got["n10"],
            f"Fig. 17: acked_i(t) of N = {FIG17_N} TCP-Peach connections "
            "(K = 50, rwnd = 64, c = 1300 segments/s, PLoss = 0, RTT 550 ms; satcp)",
        ),
        (
            FIG17B,
            got["n20"],
            "Fig. 17 with N = 20 TCP-Peach connections (other parameters; satcp)",
        ),
    ):
        plot(
            out / path,
            title,
            [
                Panel(
                    "Time [s]",
                    "acked_i(t) [segments]",
                    [
                        Series(f"connection {i + 1}", a.times, a.acked[i], linewidth=1.0)
                        for i in range(a.n)
                    ],
                    legend=a.n <= 10,
                )
            ],
        )
    return [FIG17, FIG17B]


def experiment17(seeds: Sequence[int]) -> Experiment:
    """Fig. 17 (N = 10 and 20 TCP-Peach connections), TCP-Reno with N = 20
    and one TCP-Peach connection alone at PLoss 1e-2 (for the claims)."""
    return Experiment(
        name="fig17",
        csv=CSV17,
        grid=[
            {"run": "n10"},
            {"run": "n20"},
            {"run": "reno_n20"},
            *({"run": "alone", "seed": s} for s in seeds),
        ],
        scenario=_scenario17,
        metrics=_metrics17,
        table=_table17,
        columns=("case", "time_s", *(f"conn{i}" for i in range(20))),
        figures=_figures17,
    )


def _scenario1920(point: ExpPoint) -> dict[str, Any]:
    p, s = point["ploss"], point["seed"]
    if point["fig"] == "19":
        xv = PEACH if point["case"] == "peach_reno" else RENO
        return hetero_scenario(xv, RENO, ploss_x=p, m=M, n=N, seed=s)
    yv = PEACH if point["case"] == "reno_peach" else RENO
    return sec5_scenario([RENO] * M + [yv] * N, ploss=p, seed=s)


def _table1920(measured: Measured) -> list[dict[str, Any]]:
    rows = []
    for p, g in measured:
        rx, ry = mean(g[:M]), mean(g[M:])
        rows.append(
            {
                "fig": p["fig"],
                "case": p["case"],
                "ploss": p["ploss"],
                "seed": p["seed"],
                "r_x_segments_per_s": rx,
                "r_y_segments_per_s": ry,
                "phi": rx / ry if ry else math.nan,
                **{f"conn{i}": x for i, x in enumerate(g)},
            }
        )
    return rows


def _means(rows: list[dict[str, Any]], fig: str) -> dict[tuple[str, float], tuple[float, float]]:
    """(case, ploss) -> (r_X, r_Y), means over the seeds."""
    per: dict[tuple[str, float], list[tuple[float, float]]] = {}
    for r in rows:
        if r["fig"] == fig:
            per.setdefault((r["case"], r["ploss"]), []).append(
                (r["r_x_segments_per_s"], r["r_y_segments_per_s"])
            )
    return {k: (mean(v[0] for v in vals), mean(v[1] for v in vals)) for k, vals in per.items()}


def experiment1920(plosses: Sequence[float], seeds: Sequence[int]) -> Experiment:
    """Figs. 19-20: M = N = 5 connections X and Y, every PLoss and seed; one
    CSV file per figure."""

    def figures(rows: list, measured: Measured, out: Path) -> list[str]:
        _plot1920(_means(rows, "19"), _means(rows, "20"), plosses, out)
        return [FIG19, FIG20]

    return Experiment(
        name="fig19_20",
        csv={CSV19: lambda r: r["fig"] == "19", CSV20: lambda r: r["fig"] == "20"},
        grid=[
            {"fig": fig, "case": case, "ploss": p, "seed": s}
            for p in plosses
            for s in seeds
            for fig, case in (
                ("19", "peach_reno"),
                ("19", "reno_reno"),
                ("20", "reno_peach"),
                ("20", "reno_reno"),
            )
        ],
        scenario=_scenario1920,
        metrics=lambda p, res: flow_goodputs(res),
        table=_table1920,
        columns=(
            "case",
            "ploss",
            "seed",
            "r_x_segments_per_s",
            "r_y_segments_per_s",
            "phi",
            *(f"conn{i}" for i in range(M + N)),
        ),
        figures=figures,
    )


def _fairness(m17: Measured, rows1920: list[dict[str, Any]], runs: int) -> Fairness:
    got = {p["run"]: m for p, m in m17}
    fig17_n20 = got["n20"]
    return Fairness(
        got["n10"],
        fig17_n20,
        got["reno_n20"],
        mean(m for p, m in m17 if p["run"] == "alone"),
        statistics.correlation(sender_delays(20, 1), [a[-1] for a in fig17_n20.acked]),
        _means(rows1920, "19"),
        _means(rows1920, "20"),
        [r for r in rows1920 if r["fig"] == "19"],
        [r for r in rows1920 if r["fig"] == "20"],
        runs,
    )


def compute(
    plosses: Sequence[float] = PLOSS,
    seeds: Sequence[int] = SEEDS,
    workers: int | None = None,
) -> Fairness:
    """Every run of Figs. 17, 19 and 20, measured (without writing files)."""
    m17 = measure(experiment17(seeds), workers)
    m1920 = measure(experiment1920(plosses, seeds), workers)
    return _fairness(m17, _table1920(m1920), len(m17) + len(m1920))


def phi(pair: tuple[float, float]) -> float:
    return pair[0] / pair[1] if pair[1] else math.nan


def claims(fa: Fairness, plosses: Sequence[float]) -> list[Claim]:
    f17 = fa.fig17
    out = [
        Claim(
            "17",
            f"homogeneous case, N = {FIG17_N}: acked_i(t) about equal for all i at "
            "any t (largest max/min ratio after 10 s)",
            None,
            f17.worst_ratio(),
            "",
            holds=f17.worst_ratio() <= 1.10,
            digits=3,
        ),
        Claim(
            "17",
            f"homogeneous case, N = {FIG17_N}: Jain's index of acked_i(550 s)",
            None,
            f17.final_jain,
            "",
            holds=f17.final_jain >= 0.99,
            digits=4,
        ),
        Claim(
            "17",
            "similar results with other parameters (satcp: N = 20, a congested "
            "channel; Jain's index of acked_i(550 s))",
            None,
            fa.fig17_n20.final_jain,
            "",
            holds=fa.fig17_n20.final_jain >= 0.95,
            digits=4,
            note=f"TCP-Reno in the same network: {fa.reno_n20_jain:.4f}",
        ),
    ]
    pr = [phi(fa.fig19[("peach_reno", p)]) for p in plosses]
    rr = [phi(fa.fig19[("reno_reno", p)]) for p in plosses]
    out.append(
        Claim(
            "19",
            "TCP-Peach on the satellite connections gives a higher fairness "
            "phi = r_X / r_Y than TCP-Reno, at every PLoss_X",
            None,
            min(a - b for a, b in zip(pr, rr, strict=True)),
            "(smallest phi_Peach/Reno - phi_Reno/Reno)",
            holds=all(a > b for a, b in zip(pr, rr, strict=True)),
            digits=3,
            note="phi_Peach/Reno "
            + ", ".join(f"{x:.3f}" for x in pr)
            + "; phi_Reno/Reno "
            + ", ".join(f"{x:.3f}" for x in rr),
        )
    )
    if 1e-2 in plosses:
        rp = fa.fig20[("reno_peach", 1e-2)]
        rrr = fa.fig20[("reno_reno", 1e-2)]
        out += [
            Claim(
                "20",
                "(Reno) & (Peach), PLoss = 1e-2: goodput r_X of a TCP-Reno connection",
                PAPER_RX_RENO_PEACH,
                rp[0],
                "segments/s",
                digits=1,
            ),
            Claim(
                "20",
                "(Reno) & (Peach), PLoss = 1e-2: goodput r_Y of a TCP-Peach connection",
                PAPER_RY_RENO_PEACH,
                rp[1],
                "segments/s",
                digits=1,
            ),
            Claim(
                "20",
                "(Reno) & (Peach), PLoss = 1e-2: phi_Reno/Peach = r_X / r_Y",
                PAPER_RX_RENO_PEACH / PAPER_RY_RENO_PEACH,
                phi(rp),
                "",
                digits=3,
            ),
            Claim(
                "20",
                "(Reno) & (Reno), PLoss = 1e-2: r_X (M = 5 connections)",
                PAPER_R_RENO_RENO,
                rrr[0],
                "segments/s",
                digits=1,
            ),
            Claim(
                "20",
                "(Reno) & (Reno), PLoss = 1e-2: r_Y (N = 5 connections)",
                PAPER_R_RENO_RENO,
                rrr[1],
                "segments/s",
                digits=1,
            ),
            Claim(
                "20",
                "beside TCP-Peach, TCP-Reno loses a little (r_X) while TCP-Peach gains "
                "a lot (r_Y), relative to all TCP-Reno, at PLoss = 1e-2 (paper: -39% vs "
                "+408%)",
                None,
                (rp[1] / rrr[1] - 1) * 100,
                "% r_Y gain",
                holds=(rp[1] / rrr[1] - 1) > 3 * max(0.0, 1 - rp[0] / rrr[0]),
                digits=0,
                note=f"r_X change {(rp[0] / rrr[0] - 1) * 100:+.0f}%",
            ),
        ]
    rr20 = [phi(fa.fig20[("reno_reno", p)]) for p in plosses]
    rp20 = [phi(fa.fig20[("reno_peach", p)]) for p in plosses]
    out += [
        Claim(
            "20",
            "phi_Reno/Reno is about 1 at every PLoss (within 10%)",
            None,
            max(abs(x - 1) for x in rr20),
            "(largest |phi - 1|)",
            holds=all(abs(x - 1) <= 0.10 for x in rr20),
            digits=3,
        ),
        Claim(
            "20",
            "phi_Reno/Peach is much lower than 1 (satcp: below 0.5 at PLoss = "
            "1e-2 and falling as PLoss grows)",
            None,
            rp20[-1],
            f"(at PLoss {plosses[-1]:g})",
            holds=rp20[-1] < 0.5 and all(a >= b - 0.02 for a, b in itertools.pairwise(rp20)),
            digits=3,
            note="phi_Reno/Peach "
            + ", ".join(f"{x:.2f} at {_ticks([p])[0]}" for x, p in zip(rp20, plosses, strict=True)),
        ),
    ]
    return out


def _ticks(plosses: Sequence[float]) -> list[str]:
    return ["0" if p == 0 else f"{p:g}" for p in plosses]


def reproduce(out: Path, workers: int | None, quick: bool) -> Section:
    t0 = time.perf_counter()
    plosses = QUICK_PLOSS if quick else PLOSS
    seeds = QUICK_SEEDS if quick else SEEDS
    d17 = run_experiment(experiment17(seeds), out, workers)
    d1920 = run_experiment(experiment1920(plosses, seeds), out, workers)
    fa = _fairness(d17.measured, d1920.rows, d17.runs + d1920.runs)
    cl = claims(fa, plosses)
    md = _markdown(fa, plosses, seeds, cl)
    return Section(
        "Figs. 17, 19, 20: fairness",
        md,
        cl,
        [FIG17, FIG17B, FIG19, FIG20, CSV17, CSV19, CSV20],
        runs=fa.runs,
        seconds=time.perf_counter() - t0,
    )


def _plot1920(
    fig19: dict[tuple[str, float], tuple[float, float]],
    fig20: dict[tuple[str, float], tuple[float, float]],
    plosses: Sequence[float],
    out: Path,
) -> None:
    xs = list(range(len(plosses)))
    # (file, title, x label, results, ((case, label, style), ...), ylim)
    figures = (
        (
            FIG19,
            "Fig. 19: fairness phi = r_X / r_Y, satellite connections X (RTT 550 "
            "ms, PLoss_X) and terrestrial connections Y (RTT 200 ms), M = N = 5 (satcp)",
            "PLoss_X",
            fig19,
            (
                ("peach_reno", "(Peach) & (Reno): phi_Peach/Reno", "peach"),
                ("reno_reno", "(Reno) & (Reno): phi_Reno/Reno", "reno"),
            ),
            None,
        ),
        (
            FIG20,
            "Fig. 20: fairness phi = r_X / r_Y, TCP-Reno (X) and TCP-Peach (Y) "
            "through the same GEO channel, M = N = 5 (satcp)",
            "PLoss",
            fig20,
            (
                ("reno_peach", "(Reno) & (Peach): phi_Reno/Peach", "peach"),
                ("reno_reno", "(Reno) & (Reno): phi_Reno/Reno", "reno"),
            ),
            (0, 1.2),
        ),
    )
    for name, title, xlabel, results, cases, ylim in figures:
        series = [
            Series(label, xs, [phi(results[(case, p)]) for p in plosses], style, markers=True)
            for case, label, style in cases
        ]
        panel = Panel(xlabel, "Fairness phi", series, xticklabels=_ticks(plosses), ylim=ylim)
        plot(out / name, title, [panel])


def _fig19_text(fa: Fairness, plosses: Sequence[float]) -> list[str]:
    pr = [phi(fa.fig19[("peach_reno", p)]) for p in plosses]
    rr = [phi(fa.fig19[("reno_reno", p)]) for p in plosses]
    ok = all(a > b for a, b in zip(pr, rr, strict=True))
    pairs = ", ".join(f"{a:.3f} vs {b:.3f}" for a, b in zip(pr, rr, strict=True))
    first = (
        f"TCP-Peach on the satellite connections raises phi at every PLoss_X ({pairs}); "
        if ok
        else f"TCP-Peach on the satellite connections does not raise phi at every PLoss_X "
        f"({pairs}); "
    )
    return [
        first + "the paper gives no number. Even without errors a satellite connection gets "
        f"only {pr[0]:.2f} (TCP-Peach) or {rr[0]:.2f} (TCP-Reno) of a terrestrial one's "
        "goodput: its round-trip time is 2.75 times longer, so after each congestion loss "
        "its window regrows 2.75 times slower (the usual bias of window-based congestion "
        "control against long RTTs), while the terrestrial connections, not limited by "
        "rwnd (5 x 64 / 0.2 s = 1,600 segments/s > c), keep the shared buffer full. Link "
        "errors add losses on the satellite side only. TCP-Peach's gain presumably comes "
        "from Sudden Start after timeouts and from the dummies of Rapid Recovery where they "
        "find room; at the full buffer most dummies are dropped (low priority), so the gain "
        "stays modest.",
        "",
    ]


def _phi_rows(
    results: dict[tuple[str, float], tuple[float, float]],
    case_a: str,
    case_b: str,
    plosses: Sequence[float],
) -> list[list[str]]:
    """Table rows of Figs. 19-20: PLoss, then r_X, r_Y and phi of two cases."""
    rows = []
    for p in plosses:
        a, b = results[(case_a, p)], results[(case_b, p)]
        cells = [fmt(a[0], 1), fmt(a[1], 1), fmt(phi(a), 3), fmt(b[0], 1), fmt(b[1], 1)]
        rows.append([_ticks([p])[0], *cells, fmt(phi(b), 3)])
    return rows


def _markdown(fa: Fairness, plosses: Sequence[float], seeds: Sequence[int], cl: list[Claim]) -> str:
    r19 = _phi_rows(fa.fig19, "peach_reno", "reno_reno", plosses)
    r20 = _phi_rows(fa.fig20, "reno_peach", "reno_reno", plosses)
    md = [
        "## Figs. 17, 19, 20: fairness (Sec. V-B)",
        "",
        f"Per-connection goodput in segments/s over 550 s; means over seeds "
        f"{', '.join(map(str, seeds))} (each draws the senders' access delays, 0-1 ms, and "
        f"the link errors; Fig. 17 is seed 1). Figures `{FIG17}` "
        f"(and `{FIG17B}` for N = 20), `{FIG19}`, `{FIG20}`; data `{CSV17}`, `{CSV19}`, "
        f"`{CSV20}` (every connection of every run).",
        "",
        f"**Fig. 17.** With N = {FIG17_N}, the ten windows of 64 segments (64 / 0.55 s = "
        "116 segments/s each, 1,164 in all) fit in the 1,300 segments/s channel: every "
        "connection is limited by its own rwnd, so the curves coincide, as in the paper. "
        f"With N = 20 the channel is congested and the connections do not share it "
        f"evenly: Jain's index {fa.fig17_n20.final_jain:.4f}, acked_i(550 s) from "
        f"{min(a[-1] for a in fa.fig17_n20.acked):.0f} to "
        f"{max(a[-1] for a in fa.fig17_n20.acked):.0f} segments; TCP-Reno in the same "
        f"network has {fa.reno_n20_jain:.4f}, so this is not TCP-Peach's doing. The buffer "
        "(K = 50, against a bandwidth-delay product of 715 segments) is full most of the "
        "time, and in a deterministic simulation whichever connections' packets reach it "
        "just after a departure keep winning the freed places round after round (phase "
        "effects, Floyd and Jacobson 1992): goodput follows the connections' sub-millisecond "
        f"access delays (correlation {fa.n20_delay_corr:+.2f} between a TCP-Peach "
        "sender's access delay and its acked_i(550 s)), not their variant. The usual "
        "remedy, a random per-packet processing delay at the hosts that keeps packet "
        "order, does not exist in satcp "
        "(its `reorder` jitter reorders segments).",
        "",
        "**Fig. 19** (X satellite, RTT 550 ms; Y terrestrial, RTT 200 ms; Y runs TCP-Reno):",
        "",
        *markdown_table(
            [
                "PLoss_X",
                "Peach r_X",
                "Reno r_Y",
                "phi_Peach/Reno",
                "Reno r_X",
                "Reno r_Y",
                "phi_Reno/Reno",
            ],
            r19,
        ),
        "",
        *_fig19_text(fa, plosses),
        "**Fig. 20** (X TCP-Reno, Y TCP-Peach or TCP-Reno, both through the GEO channel "
        "with PLoss):",
        "",
        *markdown_table(
            [
                "PLoss",
                "Reno r_X",
                "Peach r_Y",
                "phi_Reno/Peach",
                "Reno r_X",
                "Reno r_Y",
                "phi_Reno/Reno",
            ],
            r20,
        ),
        "",
    ]
    if 1e-2 in plosses:
        rp = fa.fig20[("reno_peach", 1e-2)]
        rr = fa.fig20[("reno_reno", 1e-2)]
        total = M * rp[0] + N * rp[1]
        md += [
            f"**Why r_X and r_Y differ from 12.1 and 100 at PLoss = 1e-2.** satcp's "
            f"TCP-Reno gets {rr[0]:.1f} segments/s per connection with only TCP-Reno around, "
            f"the paper's 19.7 (Mathis's law: {math.sqrt(1.5) / (RTT_S * 0.1):.1f}). Beside "
            f"TCP-Peach it keeps {rp[0]:.1f}: the ten connections together carry "
            f"{total:.0f} segments/s, {100 * total / 1300:.0f}% of the channel, so there is "
            "no congestion through which TCP-Peach could take TCP-Reno's share; link errors "
            "alone limit TCP-Reno, as they do without TCP-Peach. The paper's r_X falling "
            "from 19.7 to 12.1 suggests that its channel was congested, which 5 x 12.1 + N x 100 "
            "segments/s is not for N = 5: its Fig. 20 probably had more connections than "
            "Fig. 19 (the paper does not say). satcp's TCP-Peach gets "
            f"{rp[1]:.1f} segments/s per connection, about half the paper's 100, and not "
            "for lack of capacity: a single TCP-Peach connection alone on the channel gets "
            f"{fa.alone_1e2:.1f}. A 64-segment window holds a lost segment with probability "
            "0.47 per RTT, and in satcp each loss at cwnd0 = rwnd stops new data for the "
            "whole recovery, about one RTT, because the receiver's window stays anchored at "
            "the lost segment (Fig. 7: such a loss costs more than the paper's cwnd0/2). "
            "Losing about one RTT of data with probability 0.47 per RTT leaves roughly "
            "116 x 0.53 = 61 segments/s of the rwnd rate; the paper's accounting, half an "
            "RTT of data per loss, leaves roughly 116 x 0.77 = 89, near its 100.",
            "",
        ]
    return "\n".join(md)

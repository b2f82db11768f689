"""Figs. 3, 5, 7 and 8: several connections.

N connections (one sender and receiver pair each, the same round-trip
time) start together, each with H = 2.8 MB, through the one drop-tail
queue of the satellite link; the aggregate throughput is N x H / (the time
the last one completes), kB/s, against N.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..experiment import Experiment, Measured, Point, run_experiment
from ..peach.figures import Panel, Series, plot
from ..tables import markdown_table
from .claims import Claim, Section, fmt
from .common import Outcome, by_key, outcome, testbed

__all__ = ["CONNECTIONS", "CONNECTIONS_QUICK", "reproduce"]

CONNECTIONS = (1, 2, 3, 5, 7, 10, 15, 20)
CONNECTIONS_QUICK = (1, 5, 15)
#: Every configuration drawn in a figure here.
KEYS = ("reference", "iw6", "k2", "k4", "lin10", "lin20", "lin30", "lin50", "pw20")
MODIFIED = ("k2", "k4", "lin10", "lin20", "lin30", "lin50", "pw20")
CSV = "multi_connection_throughput.csv"
#: (file stem, title, configurations)
FIGURES = (
    (
        "fig03_multi_k",
        "Fig. 3: throughput vs number of connections, K",
        ("reference", "iw6", "k2", "k4"),
    ),
    (
        "fig05_multi_linear",
        "Fig. 5: throughput vs number of connections, F'' (Linear thr)",
        ("reference", "lin10", "lin20", "lin30", "lin50"),
    ),
    (
        "fig07_multi_piecewise",
        "Fig. 7: throughput vs number of connections, F''' (Linear 20-30-40)",
        ("reference", "iw6", "pw20"),
    ),
    (
        "fig08_multi_best",
        "Fig. 8: throughput vs number of connections, the best of each",
        ("reference", "iw6", "k2", "lin20", "pw20"),
    ),
)
#: "gains": an aggregate throughput above another's by more than this (percent).
GAIN_MARGIN_PCT = 2.0


def _metrics(point: Point, results: Any) -> Outcome:
    return outcome(results, point["connections"])


def _table(measured: Measured) -> list[dict[str, Any]]:
    return [
        {
            "config": p["config"],
            "label": by_key(p["config"]).label,
            "connections": p["connections"],
            "last_completion_s": o.time_s,
            "aggregate_kBps": o.throughput_kBps,
            "queue_drops": o.drops,
            "retransmitted_segments": o.retransmitted,
        }
        for p, o in measured
    ]


def _outcomes(measured: Measured) -> dict[tuple[str, int], Outcome]:
    return {(p["config"], p["connections"]): o for p, o in measured}


def _figures(ns: tuple[int, ...]) -> Callable[[list, Measured, Path], list[str]]:
    """Figs. 3, 5, 7 and 8: aggregate throughput against N, one curve per
    configuration."""

    def draw(rows: list, measured: Measured, out: Path) -> list[str]:
        res = _outcomes(measured)
        files = []
        for stem, title, keys in FIGURES:
            series = [
                Series(
                    by_key(k).label,
                    list(ns),
                    [res[k, n].throughput_kBps for n in ns],
                    "reno" if k == "reference" else "",
                    markers=True,
                )
                for k in keys
            ]
            plot(
                out / f"{stem}.png",
                f"{title} (satcp, H = 2.8 MB each)",
                [Panel("number of connections", "aggregate throughput (kB/s)", series)],
            )
            files.append(f"{stem}.png")
        return files

    return draw


def experiment(ns: tuple[int, ...]) -> Experiment:
    """Every configuration at every N in ``ns``: the CSV, the figures and
    the claims."""
    return Experiment(
        name="multi",
        csv=CSV,
        grid=[{"config": k, "connections": n} for k in KEYS for n in ns],
        scenario=lambda p: testbed(by_key(p["config"]), p["connections"]),
        metrics=_metrics,
        table=_table,
        claims=lambda rows, measured: _claims(_outcomes(measured), ns),
        figures=_figures(ns),
    )


def reproduce(out: Path, workers: int | None, quick: bool) -> Section:
    ns = CONNECTIONS_QUICK if quick else CONNECTIONS
    done = run_experiment(experiment(ns), out, workers)
    res = _outcomes(done.measured)
    files = done.files

    def thr(k: str, n: int) -> float:
        return res[k, n].throughput_kBps

    table = markdown_table(
        ["configuration", *(f"N={n}" for n in ns)],
        [[by_key(k).label, *(f"{thr(k, n):.0f}" for n in ns)] for k in KEYS],
    )
    md = [
        "## Figs. 3, 5, 7, 8: several connections",
        "",
        "Aggregate throughput N x H / (last completion), kB/s (`fig03_multi_k.png`, "
        "`fig05_multi_linear.png`, `fig07_multi_piecewise.png`, `fig08_multi_best.png`; "
        f"data in `{CSV}`, "
        "with queue drops and retransmissions). The connections start together and share "
        "one 64-packet FIFO: satcp has no fair queueing (the test-bed's Cisco routers "
        "probably ran WFQ, which would isolate the flows), so every flow's slow start "
        "overflows the same queue. From N = 5 on, even the reference's windows (5 x 32 kB) "
        "exceed the 133 kB bandwidth-delay product, so every configuration is bounded by the "
        "2 Mb/s channel (about 245 kB/s of payload) and the differences come from the losses "
        "of the synchronized slow starts and from when the last flow finishes (identical "
        "round-trip times, one deterministic run per point); the paper's curves are single "
        "test-bed runs on routers with per-flow queueing. The notes of the claims give "
        "where (which N) and by how much each fails.",
        "",
        *table,
        "",
    ]
    return Section(
        "Figs. 3, 5, 7, 8: several connections",
        "\n".join(md),
        done.claims,
        files,
        runs=done.runs,
    )


def _claims(res: dict[tuple[str, int], Outcome], ns: tuple[int, ...]) -> list[Claim]:
    def thr(k: str, n: int) -> float:
        return res[k, n].throughput_kBps

    def rel(k: str, other: str, n: int) -> float:
        return (thr(k, n) / thr(other, n) - 1) * 100

    def keeps_gain(k: str, over: str = "reference", upto: int | None = None) -> bool:
        return all(thr(k, n) >= thr(over, n) for n in ns if upto is None or n < upto)

    def worst(k: str, over: str = "reference", upto: int | None = None) -> str:
        m = min((n for n in ns if upto is None or n < upto), key=lambda n: rel(k, over, n))
        return f"N={m}: {rel(k, over, m):+.1f} %"

    mild = ("k2", "lin20", "pw20")
    aggressive = ("k4", "lin50")
    high = [n for n in ns if n >= 15]
    mid = [n for n in ns if 7 <= n <= 15]
    best = ("iw6", "k2", "lin20", "pw20")

    def best_plain(n: int) -> float:
        return max(thr("reference", n), thr("iw6", n))

    high_gain = max(
        ((k, n, (thr(k, n) / best_plain(n) - 1) * 100) for k in MODIFIED for n in high),
        key=lambda x: x[2],
    )
    hk, hn, _ = high_gain
    spread = (
        max((max(thr(k, n) for k in best) / min(thr(k, n) for k in best) - 1) * 100 for n in mid)
        if mid
        else float("nan")
    )
    lin_mean = {
        k: sum(thr(k, n) for n in ns) / len(ns) for k in ("lin10", "lin20", "lin30", "lin50")
    }
    return [
        Claim(
            "Fig. 3",
            "only K=2 gives a permanent gain over the reference (K=2 >= reference at every N)",
            None,
            None,
            holds=keeps_gain("k2"),
            note=f"K=2 worst {worst('k2')}; K=4 worst {worst('k4')}",
        ),
        Claim(
            "Fig. 3",
            "K=4 does not keep a gain over the reference at every N",
            None,
            None,
            holds=not keeps_gain("k4"),
            note=f"K=4 worst {worst('k4')}",
        ),
        Claim(
            "Fig. 3",
            "K=2 substantially equivalent to IW=6 except at very low load (within 5 % for N >= 2)",
            None,
            max(abs(rel("k2", "iw6", n)) for n in ns if n >= 2),
            "%",
            holds=all(abs(rel("k2", "iw6", n)) <= 5 for n in ns if n >= 2),
            note="largest difference",
            digits=1,
        ),
        Claim(
            "Fig. 5",
            "Linear 20 efficient for fewer than 15 connections (>= reference for N < 15)",
            None,
            None,
            holds=keeps_gain("lin20", upto=15),
            note=f"worst {worst('lin20', upto=15)}",
        ),
        Claim(
            "Fig. 5",
            "Linear 50 too aggressive (the lowest mean aggregate of the Linear functions)",
            None,
            None,
            holds=min(lin_mean, key=lin_mean.get) == "lin50",
            note=", ".join(f"{by_key(k).label} {v:.0f}" for k, v in lin_mean.items())
            + " kB/s mean",
        ),
        Claim(
            "Fig. 7",
            "Linear 20-30-40 very satisfying (>= reference for N < 15)",
            None,
            None,
            holds=keeps_gain("pw20", upto=15),
            note=f"worst {worst('pw20', upto=15)}",
        ),
        Claim(
            "Figs. 3-7",
            "only the milder functions (K=2, Linear 20, Linear 20-30-40) keep a gain over the "
            "reference at every N; K=4 and Linear 50 do not",
            None,
            None,
            holds=all(keeps_gain(k) for k in mild) and not any(keeps_gain(k) for k in aggressive),
            note="; ".join(f"{by_key(k).label} worst {worst(k)}" for k in (*mild, *aggressive)),
        ),
        Claim(
            "Fig. 8",
            "the best configurations are substantially equivalent for 7 to 15 connections "
            "(IW=6, K=2, Linear 20, Linear 20-30-40 within 5 %)",
            None,
            spread,
            "%",
            holds=spread <= 5,
            note="largest spread over N in 7..15",
            digits=1,
        ),
        Claim(
            "Fig. 8",
            "above about 15 connections no modified version gains (none beats the better of "
            f"reference and IW=6 by more than {GAIN_MARGIN_PCT:g} % at N >= 15)",
            None,
            high_gain[2],
            "%",
            holds=high_gain[2] <= GAIN_MARGIN_PCT,
            note=f"largest: {by_key(hk).label} at N={hn} "
            f"({fmt(thr(hk, hn), 0)} vs {fmt(best_plain(hn), 0)} kB/s)",
            digits=1,
        ),
    ]

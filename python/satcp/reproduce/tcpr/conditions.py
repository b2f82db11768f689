"""Secs. 4.3-4.5, Figs. 6-8: throughput against the propagation delay
(40-400 ms; 7 % of the packets delayed U[0, 4P], BER 1e-7), against the bit
error rate (1e-13 ... 1e-5; 5 % delayed N(0.6 s, 0.2 s), P = 300 ms) and
against the congestion drop rate (0-1 %; 4 % delayed N(0.6 s, 0.2 s), no
corruption, and SACK and TCP-R without reordering)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..claims import Claim
from ..experiment import Section
from .claims import (
    ZERO,
    best,
    bound,
    compare,
    mean_over,
    ratios,
    similar,
    small,
)
from .common import Figure, Lookup, SeriesSpec, figures_section, reorder_normal

__all__ = ["FIGURES", "reproduce"]

FIVE = tuple(SeriesSpec(k) for k in ("tcpr", "rntcp-v2", "dsack-ta", "dsack-r", "sack"))
OTHERS = ("rntcp-v2", "dsack-ta", "dsack-r", "sack")
BERS = tuple(10.0**e for e in range(-13, -4))


def _delay_link(p: float, _reorder: bool) -> dict[str, Any]:
    # 7 % delayed U[0, 4P]: satcp's uniform U[0, 2 mean] with mean 2P.
    return {"reorder": 0.07, "reorder_delay": "uniform", "reorder_delay_mean_s": 2 * p, "ber": 1e-7}


def _ber_link(ber: float, _reorder: bool) -> dict[str, Any]:
    return {**reorder_normal(0.05, 0.6), "ber": ber}


def _drop_link(pct: float, reorder: bool) -> dict[str, Any]:
    d: dict[str, Any] = {"congestion_loss": pct / 100.0}
    return {**reorder_normal(0.04, 0.6), **d} if reorder else d


FIGURES = (
    Figure(
        "6",
        "fig06_throughput_vs_propagation_delay",
        "throughput vs propagation delay (7 % delayed U[0, 4P], BER 1e-7, 1.5 Mb/s)",
        "propagation delay P (s)",
        (0.04, 0.08, 0.12, 0.16, 0.2, 0.3, 0.4),
        (0.08, 0.2, 0.4),
        FIVE,
        _delay_link,
        p_s=lambda p: p,
    ),
    Figure(
        "7",
        "fig07_throughput_vs_ber",
        "throughput vs bit error rate (5 % delayed N(0.6 s, 0.2 s), P = 300 ms)",
        "bit error rate",
        BERS,
        (1e-13, 1e-8, 1e-7, 1e-6, 1e-5),
        FIVE,
        _ber_link,
        xlog=True,
        xfmt="{:.0e}",
    ),
    Figure(
        "8",
        "fig08_throughput_vs_drop_rate",
        "throughput vs congestion drop rate (4 % delayed N(0.6 s, 0.2 s), P = 300 ms, no "
        "corruption; dotted: no reordering)",
        "packet drop rate (%)",
        (0.0, 0.2, 0.4, 0.6, 0.8, 1.0),
        (0.0, 0.2, 0.4, 1.0),
        (
            *FIVE,
            SeriesSpec("sack", False, "SACK (no delay)"),
            SeriesSpec("tcpr", False, "TCP-R (no delay)"),
        ),
        _drop_link,
    ),
)


def _to(p: Any) -> float:
    return p.to[0]


def _fr(p: Any) -> float:
    return p.fr[0]


def claims(lk: dict[str, Lookup], grids: dict[str, tuple[float, ...]]) -> list[Claim]:
    f6, f7, f8 = lk["6"], lk["7"], lk["8"]
    g6, g7, g8 = grids["6"], grids["7"], grids["8"]
    low = [b for b in g7 if b <= 1e-8 * 1.01]
    mid = [b for b in g7 if 1e-7 * 0.99 <= b <= 1e-6 * 1.01]
    hi = g7[-1]
    drops = [x for x in g8 if x > 0]
    c = [
        best(
            "6",
            f6,
            g6,
            OTHERS,
            "TCP-R outperforms the others irrespective of the propagation delay",
        ),
        *ratios(
            "6",
            f6,
            0.08,
            "P = 80 ms",
            [
                ("rntcp-v2", 1.10, "10 % over RN-TCP"),
                ("dsack-ta", 1.20, "20 % over DSACK-TA"),
                ("dsack-r", 1.71, "71 % over DSACK-R"),
                ("sack", 2.0, "two fold over SACK"),
            ],
        ),
        *ratios(
            "6",
            f6,
            0.2,
            "P = 200 ms",
            [
                ("rntcp-v2", 1.5, "50 % over RN-TCP"),
                ("dsack-ta", 1.66, "66 % over DSACK-TA"),
                ("dsack-r", 3.0, "three fold over DSACK-R"),
                ("sack", 4.0, "four times SACK"),
            ],
        ),
        best(
            "7",
            f7,
            [b for b in g7 if b <= 1e-6 * 1.01],
            OTHERS,
            "TCP-R gives the best throughput for BERs 1e-13 to 1e-6",
        ),
        similar(
            "7",
            "at BER 1e-5 all protocols give a similar throughput (each vs TCP-R)",
            [(f7.thr("tcpr", hi), f7.thr(k, hi)) for k in OTHERS],
        ),
        small(
            "7",
            "BER 1e-13 to 1e-8: TCP-R, DSACK-TA, RN-TCP(EPDNv2), DSACK-R have almost "
            "zero timeout ratio (max)",
            max(
                _to(f7.point(k, b))
                for b in low
                for k in ("tcpr", "dsack-ta", "rntcp-v2", "dsack-r")
            ),
        ),
        compare(
            "7",
            "BER 1e-13 to 1e-8: SACK has a larger timeout ratio than the others (mean; "
            "vs the largest other)",
            mean_over(f7, "sack", low, _to),
            max(mean_over(f7, k, low, _to) for k in ("tcpr", "dsack-ta", "rntcp-v2", "dsack-r")),
            True,
        ),
        small(
            "7",
            "BER 1e-7 and 1e-6: TCP-R keeps a zero timeout ratio (max)",
            max(_to(f7.point("tcpr", b)) for b in mid),
        ),
        *[
            compare(
                "7",
                f"BER 1e-7 and 1e-6: {lab} has a larger timeout ratio than TCP-R (mean)",
                mean_over(f7, k, mid, _to),
                mean_over(f7, "tcpr", mid, _to),
                True,
            )
            for k, lab in (
                ("rntcp-v2", "RN-TCP"),
                ("dsack-ta", "DSACK-TA"),
                ("dsack-r", "DSACK-R"),
                ("sack", "SACK"),
            )
        ],
        bound(
            "7",
            "BER 1e-5: every protocol has a large timeout ratio (the smallest, above "
            "the 'zero' bound)",
            min(_to(f7.point(k, hi)) for k in ("tcpr", *OTHERS)),
            ZERO,
            True,
            "per packet",
        ),
        compare(
            "7",
            "RN-TCP(EPDNv2) has a larger fast-retransmit ratio than DSACK-TA (mean)",
            mean_over(f7, "rntcp-v2", g7, _fr),
            mean_over(f7, "dsack-ta", g7, _fr),
            True,
        ),
        compare(
            "7",
            "DSACK-TA has more timeouts than RN-TCP(EPDNv2) (mean timeout ratio)",
            mean_over(f7, "dsack-ta", g7, _to),
            mean_over(f7, "rntcp-v2", g7, _to),
            True,
        ),
        compare(
            "7",
            "RN-TCP(EPDNv2) performs better than DSACK-TA (mean throughput)",
            mean_over(f7, "rntcp-v2", g7, lambda p: p.thr[0]),
            mean_over(f7, "dsack-ta", g7, lambda p: p.thr[0]),
            True,
            "kb/s",
        ),
        small(
            "7",
            "TCP-R has a zero fast-retransmit ratio (max over BERs)",
            max(_fr(f7.point("tcpr", b)) for b in g7),
        ),
        bound(
            "8",
            "the throughput of every protocol reduces considerably with drops "
            "(the largest ratio throughput at 1 % / at 0 %; considerably: below one half)",
            max(
                f8.thr(k, g8[-1]) / f8.thr(k, 0.0)
                for k in ("tcpr", *OTHERS, "sack-nodelay", "tcpr-nodelay")
            ),
            0.5,
            False,
            "x",
        ),
        similar(
            "8",
            "with no reordering TCP-R performs as SACK (every drop rate)",
            [(f8.thr("tcpr-nodelay", x), f8.thr("sack-nodelay", x)) for x in g8],
        ),
        similar(
            "8",
            "with drops TCP-R performs almost similar to DSACK-TA",
            [(f8.thr("tcpr", x), f8.thr("dsack-ta", x)) for x in drops],
        ),
        *[
            compare(
                "8",
                f"below 0.4 % drops RN-TCP achieves more than {lab} (mean over 0 < x < 0.4 %)",
                mean_over(f8, "rntcp-v2", [x for x in drops if x < 0.4], lambda p: p.thr[0]),
                mean_over(f8, k, [x for x in drops if x < 0.4], lambda p: p.thr[0]),
                True,
                "kb/s",
            )
            for k, lab in (("tcpr", "TCP-R"), ("dsack-ta", "DSACK-TA"))
        ],
        similar(
            "8",
            "from 0.4 % on TCP-R, RN-TCP and DSACK-TA are similar",
            [
                (f8.thr("tcpr", x), f8.thr(k, x))
                for x in g8
                if x >= 0.4
                for k in ("rntcp-v2", "dsack-ta")
            ],
        ),
        similar(
            "8",
            "at large drop rates (1 %) all protocols are similar (each vs TCP-R)",
            [(f8.thr("tcpr", g8[-1]), f8.thr(k, g8[-1])) for k in OTHERS],
        ),
    ]
    return c


GAPS = (
    '\n\n**Where satcp differs, and why** (docs/tcpr.md, "Reproduction"). '
    "Figs. 6 and 7 hold in order (TCP-R first at every delay and every BER up to 1e-6; "
    "its timeout ratio stays near zero) with different factors. At BER 1e-5 the protocols "
    "are not similar in satcp: TCP-R still gains, as EPDNv3 lets it resend corrupted "
    "packets without halving. In Fig. 8, SACK and DSACK-R are so slowed by the reordering "
    'alone that congestion drops reduce them little, so "every protocol reduces '
    'considerably" cannot hold; and with drops TCP-R stays below DSACK-TA and RN-TCP '
    "rather than similar to them (not investigated further). Without reordering TCP-R and "
    "SACK are equal within 1 % (every drop is EPDN-reported and TCP-R refuses the bypass: "
    "counter `bypass_refused_dn`)."
)


def reproduce(out: Path, workers: int | None, quick: bool) -> Section:
    return figures_section(
        "Secs. 4.3-4.5: propagation delay, bit error rate, congestion drops (Figs. 6-8)",
        "Fig. 6: P = 40 ... 400 ms (queue and window = that path's bandwidth-delay product), "
        '7 % of the data delayed U[0, 4P], BER 1e-7 (the OCR\'s "107"). Fig. 7: P = 300 ms, '
        "5 % delayed N(0.6 s, 0.2 s), BER 1e-13 ... 1e-5. Fig. 8: P = 300 ms, 4 % delayed "
        "N(0.6 s, 0.2 s), no corruption, each data packet dropped at the bottleneck queue "
        "with probability x (`congestion_loss`, an early drop both EPDN versions record); "
        'the dotted curves have no reordering. "RN-TCP" is RN-TCP (EPDNv2).' + GAPS,
        FIGURES,
        claims,
        out,
        workers,
        quick,
    )

"""The thesis's statements on Figs. 7.28-7.51 (Secs. 7.5.3-7.5.4, prose and
captions), as data, and the one function that tests them on satcp's means
(:func:`evaluate`).

A statement compares variants at some BERs with one of these tests
(:attr:`Statement.kind`); "gain" is Eqs. 7.2-7.3 with the sign such that
positive means the first variant is better:

- ``range``: "X%-Y% better": every gain positive, the smallest and the
  largest within the reproductions' default tolerance (15%) of X and Y;
- ``upto`` / ``point``: "up to X%" / "~X% at one BER": every gain positive,
  the largest within that tolerance of X;
- ``better`` / ``worse``: every gain positive / negative (``most``: at a
  majority of the points);
- ``best``: the variant beats the best of the other three at every BER;
- ``comparable``: every gain within :data:`COMPARABLE_PCT`;
- ``peak``: the largest gain lies at a BER below ``peak_below``;
- ``da_on_better`` / ``da_off_better`` / ``da_comparable``: each variant
  with delayed ACK against itself without;
- ``degrade``: each variant's metric is more than ``high`` % worse than
  its lossless value (congestion) or its value at the lowest BER (errors).

Failures that are statistical ties (the means within their two 95%
confidence intervals) are named as such. A tested statement is the
reproductions' one claim type (:class:`StatementClaim`, a
:class:`satcp.reproduce.claims.Claim` with its verdict in words).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ..claims import DEFAULT_TOLERANCE, Claim
from .lossy_runs import (
    BERS,
    COMPARABLE_PCT,
    FIGURES,
    METRICS,
    TIE_PCT,
    Table,
    fmt_ber,
    gain,
    mean,
)
from .scenarios import VARIANTS, short_label, variant_label
from .tables import fmt_pct


@dataclass(frozen=True)
class Statement:
    figure: str
    experiment: str
    metric: str
    delayed_ack: bool | None  # None: compares delayed ACK enabled with disabled
    text: str  # the thesis's words
    kind: str  # the test, see the module docstring
    pairs: tuple[tuple[str, str], ...] = ()
    bers: tuple[float, ...] = BERS
    low: float | None = None
    high: float | None = None
    variant: str = ""
    most: bool = False  # "for most BER values": a majority of the BERs suffices
    peak_below: float | None = None  # "peak": the largest gain lies at a BER below this
    source: str = "text"


def _says(
    figure: str,
    kind: str,
    compared: tuple[tuple[str, str], ...] | str,
    pct: tuple[float, float] | float | None,
    bers: tuple[float, ...],
    source: str,
    text: str,
    *,
    most: bool = False,
    peak_below: float | None = None,
) -> Statement:
    """A row of :data:`STATEMENTS`: the figure fixes the experiment, the
    metric and the delayed ACK setting (:data:`FIGURES`; the ``da_*`` tests
    compare both settings); ``compared`` are (better, worse) pairs, or for
    ``best`` the one variant; ``pct`` the thesis's (low, high) percentages,
    or its one number ("up to", the ``degrade`` threshold)."""
    experiment, metric, delayed_ack = FIGURES[figure]
    low, high = pct if isinstance(pct, tuple) else (None, pct)
    variant, pairs = (compared, ()) if isinstance(compared, str) else ("", compared)
    return Statement(
        figure,
        experiment,
        metric,
        None if kind.startswith("da_") else delayed_ack,
        text,
        kind,
        pairs,
        bers,
        low,
        high,
        variant,
        most,
        peak_below,
        source,
    )


AS, AN, S, N = "adalr-sack", "adalr-newreno", "sack", "newreno"
# Who is compared: (a, b) pairs, a claimed better than b.
AS_S = ((AS, S),)
AN_N = ((AN, N),)
AS_SN = ((AS, S), (AS, N))
BOTH = ((AS, S), (AN, N))
CROSS = ((AS, S), (AS, N), (AN, S), (AN, N))
ADALR = ((AS, AN),)
ANY_TWO = (*CROSS, (AS, AN), (S, N))
EACH = tuple((v, v) for v, _ in VARIANTS)  # each variant with itself (da_*, degrade)
# The BERs a statement refers to.
ALL = BERS
LOW2 = (1e-9, 1e-8)
LOW3 = (1e-9, 1e-8, 1e-7)
AT_1E6 = (1e-6,)
HIGH = (1e-6, 1e-5)
HIGH3 = (1e-7, 1e-6, 1e-5)

# fmt: off
#: figure, test, compared, thesis %, BERs, source, the thesis's words ("[...]":
#: left out; "(read: ...)": how satcp reads a statement without a number).
STATEMENTS: tuple[Statement, ...] = (
    # ---- Sec. 7.5.3, errors only, FTP
    _says("7.28", "range",         AS_S,    (13, 37), ALL,    "text",
          "TCP-ADaLR SACK shows 13%-37% [...] shorter download response time than TCP SACK with "
          "[...] delayed ACK"),
    _says("7.28", "range",         AN_N,    (5, 26),  ALL,    "text",
          "TCP-ADaLR NewReno exhibits 5%-26% [...] shorter download response time than TCP "
          "NewReno with [...] delayed ACK"),
    _says("7.28", "upto",          AS_S,    37,       ALL,    "caption",
          "TCP-ADaLR SACK exhibits up to 37% shorter download response time than TCP SACK"),
    _says("7.28", "comparable",    ADALR,   None,     LOW2,   "text",
          "TCP-ADaLR SACK and TCP-ADaLR NewReno show similar performance at low BER values"),
    _says("7.28", "better",        ADALR,   None,     HIGH,   "text",
          "at high BER values, TCP-ADaLR SACK exhibits better performance than TCP-ADaLR NewReno"),
    _says("7.29", "range",         AS_S,    (6, 31),  ALL,    "text",
          "TCP-ADaLR SACK shows [...] 6%-31% shorter download response time than TCP SACK [...] "
          "without delayed ACK"),
    _says("7.29", "range",         AN_N,    (2, 26),  ALL,    "text",
          "TCP-ADaLR NewReno exhibits [...] 2%-26% shorter download response time than TCP "
          "NewReno [...] without delayed ACK"),
    _says("7.29", "point",         AS_S,    31,       AT_1E6, "caption",
          "At BER value of 10-6, TCP-ADaLR SACK shows ~31% shorter download response time than "
          "TCP SACK"),
    _says("7.30", "upto",          AS_S,    27,       ALL,    "caption",
          "TCP-ADaLR SACK exhibits up to 27% higher goodput than TCP SACK"),
    _says("7.30", "best",          AS,      None,     HIGH,   "text",
          "TCP-ADaLR SACK is the most robust variant in the presence of heavy losses due to "
          "satellite link errors (read: highest goodput at 10-6 and 10-5)"),
    _says("7.30", "da_on_better",  EACH,    None,     ALL,    "text",
          "For corresponding BERs, TCP variants in scenarios with delayed ACK exhibit better "
          "performance than TCP variants in scenarios without delayed ACK"),
    _says("7.30", "degrade",       EACH,    10,       HIGH3,  "text",
          "the TCP goodput [...] degrade[s] considerably at BERs higher than 10-8 (read: >10% "
          "below its value at 10-9)"),
    _says("7.31", "range",         AS_S,    (7, 46),  ALL,    "caption",
          "TCP-ADaLR SACK shows 7%-46% higher goodput than TCP SACK"),
    _says("7.31", "best",          AS,      None,     HIGH,   "text",
          "TCP-ADaLR SACK is the most robust variant in the presence of heavy losses (read: "
          "highest goodput at 10-6 and 10-5)"),
    _says("7.32", "range",         AS_S,    (16, 61), ALL,    "text",
          "The TCP-ADaLR SACK shows 16%-61% [...] higher throughput than TCP SACK with [...] "
          "delayed ACK"),
    _says("7.32", "range",         AN_N,    (6, 36),  ALL,    "text",
          "TCP-ADaLR NewReno exhibits 6%-36% [...] higher throughput than TCP NewReno with [...] "
          "delayed ACK"),
    _says("7.32", "better",        BOTH,    None,     ALL,    "caption",
          "TCP-ADaLR SACK and TCP-ADaLR NewReno exhibit higher TCP throughputs than TCP SACK and "
          "TCP NewReno, respectively"),
    _says("7.33", "range",         AS_S,    (7, 46),  ALL,    "text",
          "The TCP-ADaLR SACK shows [...] 7%-46% higher throughput than TCP SACK [...] without "
          "delayed ACK"),
    _says("7.33", "range",         AN_N,    (2, 35),  ALL,    "text",
          "TCP-ADaLR NewReno exhibits [...] 2%-35% higher throughput than TCP NewReno [...] "
          "without delayed ACK"),
    _says("7.33", "best",          AS,      None,     ALL,    "caption",
          "For all BER values, TCP-ADaLR SACK exhibits the highest throughput"),
    _says("7.34", "upto",          AS_S,    73,       ALL,    "caption",
          "TCP-ADaLR SACK exhibits up to 73% higher satellite link throughput than TCP SACK"),
    _says("7.35", "best",          AS,      None,     ALL,    "caption",
          "For all BER values, TCP-ADaLR SACK exhibits the highest satellite link throughput"),
    _says("7.36", "comparable",    ADALR,   None,     ALL,    "caption",
          "TCP-ADaLR SACK and TCP-ADaLR NewReno exhibit comparable link utilization [...]"),
    _says("7.36", "better",        CROSS,   None,     ALL,    "caption",
          "[...] higher than TCP SACK and TCP NewReno"),
    _says("7.37", "upto",          BOTH,    46,       ALL,    "caption",
          "TCP-ADaLR variants exhibit up to 46% higher satellite link utilization than TCP SACK "
          "and TCP NewReno"),
    # ---- Sec. 7.5.3, errors only, HTTP
    _says("7.38", "range",         BOTH,    (2, 12),  ALL,    "caption",
          "TCP-ADaLR SACK and TCP-ADaLR NewReno show 2%-12% shorter page response times than TCP "
          "SACK and TCP NewReno"),
    _says("7.38", "peak",          BOTH,    None,     ALL,    "text",
          "For cases with and without delayed ACK, the performance gains by TCP-ADaLR SACK and "
          "TCP-ADaLR NewReno are highest when the BER is lower than 10-6", peak_below=1e-6),
    _says("7.39", "peak",          BOTH,    None,     ALL,    "text",
          "For cases with and without delayed ACK, the performance gains by TCP-ADaLR SACK and "
          "TCP-ADaLR NewReno are highest when the BER is lower than 10-6", peak_below=1e-6),
    _says("7.38", "comparable",    ADALR,   None,     ALL,    "text",
          "Both TCP-ADaLR variants exhibit similar page response times"),
    _says("7.38", "da_off_better", EACH,    None,     LOW3,   "text",
          "When the BER is lower than 10-6, the TCP variants without delayed ACK exhibit better "
          "performance than with delayed ACK"),
    _says("7.38", "da_comparable", EACH,    None,     HIGH,   "text",
          "At BER values higher than 10-7, the four TCP variants show similar page response "
          "times for cases with and without delayed ACK"),
    _says("7.39", "range",         BOTH,    (7, 23),  ALL,    "caption",
          "TCP-ADaLR SACK and TCP-ADaLR NewReno exhibit 7%-23% shorter page response times than "
          "TCP SACK and TCP NewReno"),
    # ---- Sec. 7.5.4, congestion and errors, FTP
    _says("7.40", "better",        CROSS,   None,     HIGH,   "caption",
          "When BER is higher than 10-7, TCP-ADaLR variants exhibit shorter download response "
          "times than TCP SACK and TCP NewReno"),
    _says("7.40", "comparable",    CROSS,   None,     LOW3,   "text",
          "the two TCP-ADaLR variants show comparable FTP download response time with TCP SACK "
          "and TCP NewReno when the BER value is 10-7 and lower"),
    _says("7.40", "upto",          AS_S,    29,       HIGH,   "text",
          "with delayed ACK at BER value of 10-6 and higher, TCP-ADaLR SACK exhibits up to 29% "
          "shorter download response time than TCP SACK"),
    _says("7.41", "range",         AS_S,    (23, 28), HIGH,   "caption",
          "TCP-ADaLR SACK exhibits 23%-28% shorter download response times than TCP SACK (read: "
          "at BER > 10-7, where the text places the gains)"),
    _says("7.41", "better",        AN_N,    None,     ALL,    "text",
          "For the case without delayed ACK, TCP-ADaLR NewReno exhibits shorter download "
          "response time than TCP NewReno"),
    _says("7.42", "range",         AS_SN,   (36, 43), HIGH,   "caption",
          "TCP-ADaLR SACK exhibits 36%-43% higher goodput than TCP SACK and TCP NewReno at BER "
          "higher than 10-7"),
    _says("7.43", "range",         AS_S,    (32, 32), HIGH,   "caption",
          "TCP-ADaLR SACK shows 32% higher goodput than TCP SACK for BER values of 10-6 and 10-5"),
    _says("7.44", "range",         AS_S,    (42, 43), HIGH,   "caption",
          "For BER values higher than 10-7, TCP-ADaLR SACK [...] exhibit[s] 42%-43% [...] higher "
          "throughput than TCP SACK"),
    _says("7.44", "range",         AN_N,    (10, 39), HIGH,   "caption",
          "For BER values higher than 10-7, [...] TCP-ADaLR NewReno exhibit[s] [...] 10%-39% "
          "higher throughput than [...] TCP NewReno"),
    _says("7.45", "range",         AS_S,    (32, 39), HIGH,   "caption",
          "At BER values higher than 10-7, TCP-ADaLR SACK exhibits 32%-39% higher throughput "
          "than TCP SACK"),
    _says("7.46", "comparable",    ANY_TWO, None,     LOW3,   "caption",
          "Satellite link throughput [...] is comparable for all TCP variants at low BER values"),
    _says("7.46", "range",         AS_S,    (57, 86), HIGH,   "caption",
          "TCP-ADaLR SACK shows 57%-86% higher satellite link throughput than TCP SACK with "
          "delayed ACK (read: at BER > 10-7)"),
    _says("7.47", "range",         AS_S,    (51, 79), HIGH,   "caption",
          "TCP-ADaLR SACK shows 51%-79% higher satellite link throughput than TCP SACK (read: at "
          "BER > 10-7)"),
    _says("7.48", "degrade",       EACH,    50,       ALL,    "caption",
          "The satellite link utilization for the four TCP variants is severely reduced because "
          "of the heavy losses (read: below half of the lossless utilization)"),
    _says("7.49", "best",          AS,      None,     HIGH,   "caption",
          "At BER greater than 10-7, TCP-ADaLR SACK exhibits the best performance"),
    # ---- Sec. 7.5.4, congestion and errors, HTTP
    _says("7.50", "best",          AS,      None,     ALL,    "caption",
          "For most BER values, TCP-ADaLR SACK exhibits the best performance", most=True),
    _says("7.50", "upto",          AS_S,    32,       ALL,    "text",
          "TCP-ADaLR SACK shows up to 32% [...] shorter page response times than TCP SACK for "
          "cases with [...] delayed ACK"),
    _says("7.50", "worse",         AN_N,    None,     ALL,    "text",
          "TCP-ADaLR NewReno performs worse than TCP NewReno when the delayed ACK option is "
          "enabled (read: at most BERs)", most=True),
    _says("7.51", "comparable",    ADALR,   None,     ALL,    "caption",
          "TCP-ADaLR SACK and TCP-ADaLR NewReno exhibit comparable performance [...]"),
    _says("7.51", "better",        CROSS,   None,     ALL,    "caption",
          "[...] and outperform both TCP SACK and TCP NewReno"),
    _says("7.51", "upto",          AS_S,    26,       ALL,    "text",
          "TCP-ADaLR SACK shows up to [...] 26% shorter page response times than TCP SACK for "
          "cases [...] without delayed ACK"),
)
# fmt: on


@dataclass(kw_only=True)
class StatementClaim(Claim):
    """A statement tested on satcp's means: the reproductions' one claim
    (:class:`satcp.reproduce.claims.Claim`; ``statement`` the thesis's
    words, ``holds`` and ``verdict_text`` the verdict, ``note`` the gains
    per BER), with the numbers the report and the CSV file show."""

    said: Statement
    bers: tuple[float, ...]
    gains: dict[tuple[str, str, float], float]  # (a, b, ber) -> % (positive: a better)
    low: float
    high: float
    magnitude_ok: bool | None
    why: list[str] = field(default_factory=list)


def _claim(
    c: Statement,
    bers: tuple[float, ...],
    gains: dict[tuple[str, str, float], float],
    low: float,
    high: float,
    verdict: str,
    holds: bool,
    magnitude_ok: bool | None,
    detail: str,
) -> StatementClaim:
    return StatementClaim(
        c.figure,
        c.text,
        None,
        None,
        holds=holds,
        note=detail,
        verdict_text=verdict,
        said=c,
        bers=bers,
        gains=gains,
        low=low,
        high=high,
        magnitude_ok=magnitude_ok,
    )


def _pct(x: float) -> str:
    return fmt_pct(x, sign=False)


def _tie(table: Table, c: Statement, a: str, b: str, da_a: bool, da_b: bool, ber: float) -> bool:
    """The two means differ by less than their two 95% CIs together, or by
    less than TIE_PCT."""
    x = table.get((c.experiment, c.metric, a, da_a, ber))
    y = table.get((c.experiment, c.metric, b, da_b, ber))
    if x is None or y is None or math.isnan(x.mean) or math.isnan(y.mean) or y.mean == 0:
        return False
    if abs(x.mean - y.mean) / abs(y.mean) * 100 < TIE_PCT:
        return True
    cis = [0.0 if math.isnan(z.ci95) else z.ci95 for z in (x, y)]
    return abs(x.mean - y.mean) <= sum(cis)


def evaluate(c: Statement, table: Table, bers: Sequence[float]) -> StatementClaim:
    """Tests one statement on the table (at the BERs of both the statement
    and the plan)."""
    m = METRICS[c.metric]
    use = tuple(b for b in c.bers if b in bers)
    gains: dict[tuple[str, str, float], float] = {}
    ties: dict[tuple[str, str, float], bool] = {}
    da = bool(c.delayed_ack)
    if c.kind in ("da_on_better", "da_off_better", "da_comparable"):
        for v, _ in c.pairs:
            for b in use:
                on = mean(table, c.experiment, c.metric, v, True, b)
                off = mean(table, c.experiment, c.metric, v, False, b)
                k = (f"{v}/on", f"{v}/off", b)
                gains[k] = gain(m, on, off)
                ties[k] = _tie(table, c, v, v, True, False, b)
    elif c.kind == "degrade":
        for v, _ in c.pairs:
            if c.experiment == "congestion_error":
                base = mean(table, "ideal", c.metric, v, da, 0.0)
            else:
                base = mean(table, c.experiment, c.metric, v, da, bers[0])
            for b in use:
                x = mean(table, c.experiment, c.metric, v, da, b)
                gains[(v, "ref", b)] = gain(m, x, base)
    elif c.kind == "best":
        sign = 1.0 if m.higher_is_better else -1.0
        others = [v for v, _ in VARIANTS if v != c.variant]
        for b in use:
            x = mean(table, c.experiment, c.metric, c.variant, da, b)
            best_other = max(
                others, key=lambda o, b=b: sign * mean(table, c.experiment, c.metric, o, da, b)
            )
            y = mean(table, c.experiment, c.metric, best_other, da, b)
            k = (c.variant, best_other, b)
            gains[k] = gain(m, x, y)
            ties[k] = _tie(table, c, c.variant, best_other, da, da, b)
    else:
        for a, bb in c.pairs:
            for b in use:
                x = mean(table, c.experiment, c.metric, a, da, b)
                y = mean(table, c.experiment, c.metric, bb, da, b)
                gains[(a, bb, b)] = gain(m, x, y)
                ties[(a, bb, b)] = _tie(table, c, a, bb, da, da, b)
    vals = [g for g in gains.values() if not math.isnan(g)]
    if not vals:
        return _claim(c, use, gains, math.nan, math.nan, "not evaluated", False, None, "")
    low, high = min(vals), max(vals)
    magnitude_ok: bool | None = None

    def sign_verdict(ok: Callable[[float], bool]) -> tuple[str, bool]:
        """'holds' if every point satisfies ``ok`` (a majority with
        ``most``); failures that are statistical ties are named."""
        bad = [k for k, g in gains.items() if not math.isnan(g) and not ok(g)]
        if c.most:
            if len(bad) * 2 < len(vals):
                return "holds", True
            return "does not hold", False
        if not bad:
            return "holds", True
        if len(bad) == len(vals):
            if all(ties.get(k, False) for k in bad):
                return "does not hold (opposite at every point, within the 95% CI)", False
            return "does not hold", False
        if all(ties.get(k, False) for k in bad):
            where = ", ".join(sorted({fmt_ber(k[2]) for k in bad}, key=lambda t: float(t)))
            return f"holds except ties within the 95% CI at {where}", False
        return "does not hold", False

    if c.kind in ("range", "upto", "point"):
        verdict, holds = sign_verdict(lambda g: g > 0)
        ends = [(high, c.high)] if c.kind != "range" else [(low, c.low), (high, c.high)]
        magnitude_ok = all(t is not None and DEFAULT_TOLERANCE.holds(t, s) is True for s, t in ends)
        if holds and not magnitude_ok:
            verdict = "direction holds, magnitude differs"
        elif not holds and verdict.startswith("holds except"):
            verdict = "direction " + verdict + ("" if magnitude_ok else "; magnitude differs")
    elif c.kind in ("better", "best", "da_on_better"):
        verdict, holds = sign_verdict(lambda g: g > 0)
    elif c.kind in ("worse", "da_off_better"):
        verdict, holds = sign_verdict(lambda g: g < 0)
    elif c.kind in ("comparable", "da_comparable"):
        holds = all(abs(g) <= COMPARABLE_PCT for g in vals)
        verdict = "holds" if holds else "does not hold"
    elif c.kind == "peak":
        limit = c.peak_below if c.peak_below is not None else math.inf
        peaks = {}
        for a, bb in c.pairs:
            pts = {k[2]: g for k, g in gains.items() if k[:2] == (a, bb) and not math.isnan(g)}
            if pts:
                peaks[(a, bb)] = max(pts, key=lambda b: pts[b])
        holds = bool(peaks) and all(b < limit for b in peaks.values())
        verdict = (
            "holds"
            if holds
            else (
                "does not hold (largest at "
                + ", ".join(f"{short_label(a)} {fmt_ber(b)}" for (a, _), b in peaks.items())
                + ")"
            )
        )
    elif c.kind == "degrade":
        thr = c.high if c.high is not None else 10.0
        bad = sorted({k[2] for k, g in gains.items() if not -g > thr})
        holds = not bad
        verdict = (
            "holds"
            if holds
            else f"does not hold at {', '.join(fmt_ber(b) for b in bad)}"
            if len(bad) < len(use)
            else "does not hold"
        )
    else:  # pragma: no cover
        raise ValueError(c.kind)
    detail = _detail(c, gains)
    return _claim(c, use, gains, low, high, verdict, holds, magnitude_ok, detail)


def _detail(c: Statement, gains: dict[tuple[str, str, float], float]) -> str:
    """Per-BER gains, grouped by pair."""
    groups: dict[tuple[str, str], list[str]] = {}
    for (a, b, ber), g in gains.items():
        groups.setdefault((a, b), []).append(f"{fmt_ber(ber)}: {g:+.1f}%")
    parts = []
    for (a, b), items in groups.items():
        if c.kind == "best":
            parts.append(f"vs best other ({variant_label(b)}) " + ", ".join(items))
        elif c.kind == "degrade":
            parts.append(f"{variant_label(a)} " + ", ".join(items))
        elif c.kind.startswith("da_"):
            parts.append(f"{variant_label(a.split('/')[0])} on vs off " + ", ".join(items))
        else:
            parts.append(f"{short_label(a)} vs {short_label(b)} " + ", ".join(items))
    return "; ".join(parts)


def satcp_text(r: StatementClaim) -> str:
    c = r.said
    if math.isnan(r.low):
        return "n/a"
    if c.kind == "range":
        head = f"{_pct(r.low)} to {_pct(r.high)}"
    elif c.kind in ("upto", "point"):
        head = f"up to {_pct(r.high)}"
    elif c.kind in ("comparable", "da_comparable"):
        worst = max(abs(r.low), abs(r.high))
        head = f"largest difference {worst:.1f}% (tolerance {COMPARABLE_PCT:g}%)"
    elif c.kind == "degrade":
        head = f"drops {-r.high:.1f}% to {-r.low:.1f}%"
    elif c.kind == "peak":
        head = f"gains {_pct(r.low)} to {_pct(r.high)}"
    else:
        head = f"margin {_pct(r.low)} to {_pct(r.high)}"
    return f"{head} ({r.note})"


def why_keys(r: StatementClaim) -> list[str]:
    """Which evidence paragraphs explain a claim that does not fully hold."""
    c = r.said
    if r.verdict == "holds":
        return []
    if c.kind.startswith("da_"):
        return ["delayed_ack"]
    keys: list[str] = []
    http = c.metric == "http_page_response_time_s"
    if c.experiment == "congestion_error":
        keys.append("http_buffer" if http else "buffer")
    if c.kind in ("range", "upto", "point") and not r.magnitude_ok:
        # "is False", not "not ...": a NaN end (None) is not "off".
        low_off = (
            c.kind == "range"
            and c.low is not None
            and DEFAULT_TOLERANCE.holds(c.low, r.low) is False
        )
        high_off = c.high is not None and DEFAULT_TOLERANCE.holds(c.high, r.high) is False
        if low_off and any(b <= 1e-8 for b in r.bers):
            keys.append("http" if http else "lossless")
        if high_off:
            if http:
                keys.append("http")
            else:
                if c.metric != "ftp_response_time_s":
                    keys.append("metrics")
                keys.append("high_ber")
    if c.kind == "peak":
        keys.append("http" if http else "high_ber")
    if c.kind == "comparable" and any(
        {a, b} == {AS, AN} and abs(g) > COMPARABLE_PCT for (a, b, _), g in r.gains.items()
    ):
        keys.append("sack_newreno")
    seen: list[str] = []
    for k in keys:
        if k not in seen:
            seen.append(k)
    return seen

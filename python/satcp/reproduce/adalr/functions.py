"""What ``paper.toml`` reads from the TCP-ADaLR thesis's runs that needs
more than a formula: an FTP or HTTP run's numbers (:func:`ftp_run`,
:func:`http_run`) and time series (:func:`rate_series`), the lossy
runs' means over seeds (:func:`cells`) and the test of a statement of
Secs. 7.5.3-7.5.4 on them (:func:`judge`), a fairness run (:func:`outcome`)
and the bar figure of Tables 7.11-7.15 (:func:`fairness_bars`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from itertools import product
from typing import Any, NamedTuple

import pandas as pd

from ...results import flat_row
from ...stats import jain_index, maxmin_fairness, mean_ci95
from ...topology import THESIS_FAIRNESS
from ..claims import DEFAULT_TOLERANCE
from ..metrics import finished, flow_sum
from ..plotstyle import new_figure
from ..tables import diff_pct

__all__ = [
    "Means",
    "cells",
    "csv_gains",
    "direction",
    "ends",
    "extended",
    "fairness_bars",
    "fairness_window",
    "find_statement",
    "fmt_ber",
    "ftp_run",
    "halves",
    "http_run",
    "jain_index",
    "judge",
    "lossy_metrics",
    "maxmin_fairness",
    "outcome",
    "peak",
    "size_metrics",
]

# --- one run ---------------------------------------------------------------------------


def satellite_link(run: Any) -> pd.Series:
    """The links row of the satellite downlink (gateway -> client), with
    the links table's columns."""
    return pd.Series(flat_row("links", satellite_link_row(run)))


def satellite_link_row(run: Any) -> dict[str, Any]:
    """The satellite downlink's row as the results give it (its counters
    under ``stats``): :func:`satellite_link` without building the links
    table."""
    return next(
        link
        for link in run.raw.get("links") or []
        if link.get("from") == "gateway" and link.get("to") == "client"
    )


def rate_series(run: Any, bin_s: float) -> pd.DataFrame:
    """The thesis figures' quantities over time, averaged over ``bin_s``
    (the run's sample interval must divide it): ``time_s`` (end of bin),
    ``seq_bytes`` (the client's rcv_nxt), ``goodput_Bps`` (original bytes
    delivered in order per second), ``tcp_Bps`` (payload bytes received per
    second, retransmissions included), ``link_bps`` and ``util_pct``
    (satellite downlink)."""
    fs, ls = run.flow_series, run.link_series
    fs = fs[fs["conn"] == 0].set_index("time_s")
    link = satellite_link(run)
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


def extended(frames: Sequence[pd.DataFrame], bin_s: float) -> list[pd.DataFrame]:
    """The series each continued until the longest ends: rates 0, the
    sequence number flat (as OPNET draws a finished transfer)."""
    until = max(float(s["time_s"].iloc[-1]) for s in frames)
    out = []
    for ser in frames:
        extra, t = [], float(ser["time_s"].iloc[-1]) + bin_s
        while t <= until + 1e-9:
            extra.append({"time_s": t, "seq_bytes": ser["seq_bytes"].iloc[-1]})
            t += bin_s
        rest = pd.DataFrame(extra).assign(goodput_Bps=0.0, tcp_Bps=0.0, link_bps=0.0, util_pct=0.0)
        out.append(pd.concat([ser, rest], ignore_index=True) if extra else ser)
    return out


def peak(series: pd.Series) -> float:
    return float(series.max()) if len(series) else math.nan


class FtpRun:
    """What the experiments read from one FTP run; its time series averaged
    over ``bin_s``."""

    def __init__(self, run: Any, bin_s: float) -> None:
        self.run, self.sc, self.bin_s = run, run.scenario or {}, bin_s
        t = run.response_times("ftp")
        total = int((run.transfers["kind"] == "ftp").sum()) if not run.transfers.empty else 0
        self.time = math.nan if len(t) == 0 or len(t) < total else float(t.mean())
        f = run.flows.iloc[0]
        self.goodput_bps = float(f["goodput_bps"])
        self.tcp_bps = float(f["throughput_bps"])
        self.srtt_s = float(f["srtt_s"])
        self.final_cwnd = int(f["final_cwnd"])
        self.retransmissions = int(f["server_retransmitted_segments"])
        self.timeouts = int(f["server_timeouts"])
        sat = satellite_link(run)
        self.link_bps = float(sat["throughput_bps"])
        self.util_pct = float(sat["utilization"]) * 100.0
        self.drops = int(sat["queue_drops"])
        self.max_queue = int(sat["max_queue_packets"])

    @cached_property
    def series(self) -> pd.DataFrame:
        return rate_series(self.run, self.bin_s)

    @cached_property
    def mean_flight(self) -> float:
        """Mean sampled flight size away from the first and last 10 s."""
        fs = self.run.flow_series
        if fs.empty or math.isnan(self.time):
            return math.nan
        m = fs[(fs["time_s"] > 10) & (fs["time_s"] < self.time - 10)]
        return float(m["flight_size"].mean()) if len(m) else math.nan


def ftp_run(run: Any, bin_s: float) -> FtpRun:
    return FtpRun(run, bin_s)


def size_metrics(r: FtpRun, mode: str) -> list[tuple[str, float]]:
    """The rows of Figs. 7.16-7.19's CSV file of a run: its metrics, the
    download time only for the cumulative reading (``mode``)."""
    rows = [("ftp_download_response_time_s", r.time)]
    if not mode:
        rows += [
            ("tcp_throughput_Bps", r.tcp_bps / 8),
            ("link_throughput_bps", r.link_bps),
            ("link_utilization_pct", r.util_pct),
        ]
    return rows


def ends(pct: Any, gains: Sequence[float]) -> list[tuple[str | None, float, float]]:
    """A file-size statement beside satcp's gains over the file sizes:
    "X%-Y%" as its smallest and largest gain in size, "up to X%" as the
    largest: (which, the thesis's, satcp's)."""
    if isinstance(pct, list):
        by_size = sorted(gains, key=abs)
        return [("smallest", pct[0], by_size[0]), ("largest", pct[1], by_size[-1])]
    return [(None, pct, max(gains))]


def halves(r: FtpRun) -> tuple[float, float]:
    """The mean TCP throughput (bytes/s) in the first and the second half of
    the transfer (its 5 s means after the first)."""
    ser = r.series
    active = ser[(ser["time_s"] > r.bin_s) & (ser["time_s"] <= r.time)]
    half = len(active) // 2
    return active["tcp_Bps"].iloc[:half].mean(), active["tcp_Bps"].iloc[half:].mean()


@dataclass
class HttpRun:
    """What the experiments read from one HTTP run."""

    mean: float  # page response time, s (NaN: none finished)
    pages: int
    drops: int
    retransmissions: int
    recoveries: int
    timeouts: int


def http_run(run: Any) -> HttpRun:
    t, f = run.response_times("http"), run.flows
    return HttpRun(
        float(t.mean()) if len(t) else math.nan,
        len(t),
        int(satellite_link(run)["queue_drops"]),
        int(f["server_retransmitted_segments"].sum()),
        int(f["server_fast_retransmits"].sum()),
        int(f["server_timeouts"].sum()),
    )


# --- Secs. 7.5.3-7.5.4: the lossy runs --------------------------------------------------


def lossy_metrics(app: str, run: Any) -> dict[str, float]:
    """The metrics of one lossy run (Sec. 7.4), and the counters kept as
    evidence (summed over the run's connections; HTTP: one per page).

    Read from the results' rows, not data frames: the 1,056 lossy runs
    built three tables each, a tenth of the reproduction's CPU time. The
    values are the rows' own and the sums integer sums, so the numbers are
    the tables' (``tests/python/test_flow_sums.py``)."""
    down, flows = flat_row("links", satellite_link_row(run)), run.raw.get("flows") or []
    transfers = run.raw.get("transfers") or []
    out: dict[str, float] = {}
    if app == "ftp":
        rt, f = transfers[0].get("response_time_s"), flows[0]
        out["ftp_response_time_s"] = float(rt) if finished(rt) else math.nan
        out["goodput_bps"] = float(f["goodput_bps"])
        out["tcp_throughput_Bps"] = float(f["throughput_bps"]) / 8.0
        out["link_throughput_bps"] = float(down["throughput_bps"])
        out["link_utilization_pct"] = 100.0 * float(down["utilization"])
        out["ftp_retransmitted_segments"] = float(f["server"]["retransmitted_segments"])
    else:
        # The mean as pandas sums (its summation order), like every other
        # mean of response times here.
        times = run.response_times("http")
        out["http_page_response_time_s"] = float(times.mean()) if len(times) else math.nan
        pages = sum(1 for t in transfers if t.get("kind") == "http")
        out["http_pages_unfinished"] = float(pages - len(times))
    out[f"{app}_timeouts"] = float(flow_sum(flows, "server", "timeouts"))
    out[f"{app}_recovery_episodes"] = float(flow_sum(flows, "server", "fast_retransmits"))
    out[f"{app}_queue_drops"] = float(down["queue_drops"])
    return out


@dataclass
class Cell:
    """Mean over seeds of one metric at one point (NaN with a run that did
    not finish)."""

    mean: float
    ci95: float
    n: int
    unfinished: int = 0


def cells(names: Sequence[str], runs: Sequence[dict[str, float]], done: Sequence[bool]) -> dict:
    """The means over the seeds of the metrics ``names`` (the download
    time's NaN when a download did not finish)."""
    out = {}
    for name in names:
        values = [r[name] for r in runs]
        vals = [v for v in values if not math.isnan(v)]
        unfinished = sum(1 for ok in done if not ok) if name == "ftp_response_time_s" else 0
        if unfinished or not vals:
            out[name] = Cell(math.nan, math.nan, len(values), unfinished)
        else:
            out[name] = Cell(*mean_ci95(vals), len(vals))
    return out


@dataclass
class Judged:
    """A statement tested on the means: the gains per (a, b, BER), positive
    when ``a`` is better (Eqs. 7.2-7.3), the smallest and largest, the
    verdict in words, whether it holds, whether the magnitudes match, the
    gains per BER in words and the evidence paragraphs that explain it."""

    bers: tuple[float, ...]
    gains: dict[tuple[str, str, float], float]
    low: float
    high: float
    verdict: str
    holds: bool
    magnitude_ok: bool | None
    detail: str
    why: list[str] = field(default_factory=list)
    pairs: list[tuple[str, str]] = field(default_factory=list)


class Change(NamedTuple):
    """A relative change (%) of a mean, and where (variant, delayed ACK, BER)."""

    pct: float
    where: str


class Means(dict):
    """The lossy runs' means over seeds (:class:`Cell`) by (experiment,
    metric, variant, delayed ACK, BER), and the comparisons the prose makes
    of them; ``variants`` and ``metrics``: the cases of the data file."""

    def __init__(self, rows: Sequence[Any], variants: Sequence[Any], metrics: Any) -> None:
        super().__init__(
            ((r.experiment.key, k, r.variant.key, r.da, r.ber), c)
            for r in rows
            for k, c in r.cells.items()
        )
        self.variants = [v.key for v in variants]
        self.short = {v.key: v.short for v in variants}
        self.metrics = metrics

    def mean(self, *key: Any) -> float:
        """The mean at (experiment, metric, variant, delayed ACK, BER); NaN
        where nothing was run."""
        c = self.get(key)
        return c.mean if c is not None else math.nan

    def error_bar(self, *key: Any) -> float:
        """The 95 % interval's half width at a point, 0 where there is none."""
        ci = self[key].ci95
        return 0.0 if math.isnan(ci) else ci

    def gain(
        self, exp: str, metric: str, da: bool, ber: float, a: str = "adalr-sack", b: str = "sack"
    ) -> float:
        """``a``'s gain over ``b`` (Eqs. 7.2-7.3, %), positive when ``a`` is
        better: shorter times, higher rates."""
        g = diff_pct(self.mean(exp, metric, a, da, ber), self.mean(exp, metric, b, da, ber))
        return g if self.metrics[metric].higher else -g

    def over_variants(self, exp: str, metric: str, da: bool, ber: float) -> float:
        """The mean over the four variants."""
        total = math.fsum(self.mean(exp, metric, v, da, ber) for v in self.variants)
        return total / len(self.variants)

    def changes(self, metric: str, base: str, other: str, bers: Sequence[float]) -> list[Change]:
        """How much experiment ``other``'s means differ from ``base``'s, at
        each (BER, delayed ACK, variant) where both are numbers."""
        out = []
        for b, da, v in product(bers, (True, False), self.variants):
            x, y = self.mean(base, metric, v, da, b), self.mean(other, metric, v, da, b)
            if x and not math.isnan(x) and not math.isnan(y):
                where = f"{self.short[v]}, delayed ACK {'on' if da else 'off'}, {fmt_ber(b)}"
                out.append(Change((y - x) / x * 100, where))
        return out

    def in_order(self, metrics: Sequence[str]) -> list[tuple[tuple, Cell]]:
        """The means in adalr_lossy.csv's order: by experiment, metric
        (``metrics`` first, in their order, then the counters by name),
        variant, delayed ACK (on first) and BER."""

        def order(k: tuple) -> tuple:
            m = metrics.index(k[1]) if k[1] in metrics else len(metrics)
            return (k[0], m, k[1], self.variants.index(k[2]), not k[3], k[4])

        return sorted(self.items(), key=lambda kc: order(kc[0]))

    def largest_change(self, metric: str, base: str, other: str, bers: Sequence[float]) -> Change:
        """The largest of :meth:`changes` in size (0 if there are none)."""
        found = self.changes(metric, base, other, bers)
        return max([Change(0.0, ""), *found], key=lambda c: abs(c.pct))


def judge(
    s: Any,
    place: tuple[str, str, bool],
    cases: Any,
    table: Means,
    bers: Sequence[float],
    comparable_pct: float,
    tie_pct: float,
) -> Judged:
    """Tests a statement of Secs. 7.5.3-7.5.4 (``s``, a case of
    ``[cases.statement]``: its ``kind``, the variants ``compared`` (a pair
    set of ``[cases.who]``, or for ``best`` one variant), the thesis's
    ``pct`` (low, high) or one number, its BERs (``[cases.ber_set]``),
    ``most``, ``peak_below``; paper.toml says what each kind tests) on the
    means over seeds of its figure's ``place`` (experiment, metric, delayed
    ACK), at the BERs of both the statement and the run. "Comparable" is
    within ``comparable_pct`` %, means within ``tie_pct`` % or their 95 %
    intervals are a tie."""
    compared = cases.who[s.compared].pairs if s.compared in cases.who else s.compared
    pct = s.get("pct")
    low, high = pct if isinstance(pct, list) else (None, pct)
    said = {
        **s.fields,
        "place": place,
        "low": low,
        "high": high,
        "variant": compared if isinstance(compared, str) else "",
        "pairs": [] if isinstance(compared, str) else [tuple(p) for p in compared],
        "most": s.get("most", False),
        "peak_below": s.get("peak_below", math.inf),
        "peak_above": s.get("peak_above", 0.0),
    }
    use = tuple(b for b in cases.ber_set[s.bers].bers if b in bers)
    labels = {v.key: v.label for v in cases.variant}
    higher = cases.metric[place[1]].higher
    points = _points(said, use, higher, table, bers)
    gains = {k: _gain(x, y, higher) for k, x, y in points}
    ties = {k: _tie(x, y, tie_pct) for k, x, y in points if said["kind"] != "degrade"}
    vals = [g for g in gains.values() if not math.isnan(g)]
    if not vals:
        j = Judged(use, gains, math.nan, math.nan, "not evaluated", False, None, "")
    else:
        verdict, holds, magnitude_ok = _verdict(said, gains, ties, use, comparable_pct, table.short)
        detail = _detail(said["kind"], gains, labels, table.short)
        j = Judged(use, gains, min(vals), max(vals), verdict, holds, magnitude_ok, detail)
    j.pairs = said["pairs"]
    j.why = _why(said, j, comparable_pct)
    return j


def find_statement(
    results: Sequence[tuple[Any, Judged]], figure: str, kind: str, pair: Any = None
) -> Any:
    """The first statement tested (``(s, judged)``) on ``figure`` by ``kind``
    (comparing ``pair``), or (None, None)."""
    for s, j in results:
        if s.figure == figure and s.kind == kind and (pair is None or tuple(pair) in j.pairs):
            return s, j
    return None, None


def csv_gains(s: Any, j: Judged) -> list[tuple[str, float, Any]]:
    """A statement's rows of adalr_lossy_claims.csv: (metric suffix, satcp's
    gain, the thesis's percentage)."""
    if s.kind == "range":
        return [("gain_pct_low", j.low, s.pct[0]), ("gain_pct_high", j.high, s.pct[1])]
    if s.kind in ("upto", "point"):
        return [("gain_pct_max", j.high, s.pct)]
    return [("gain_pct_min", j.low, None), ("gain_pct_max", j.high, None)]


Gains = dict[tuple[str, str, float], float]
Point = tuple[tuple[str, str, float], Cell | None, Cell | None]


def _points(
    s: Mapping[str, Any],
    use: Sequence[float],
    higher: bool,
    table: Means,
    bers: Sequence[float],
) -> list[Point]:
    """What a statement compares: per (first, second, BER) the two means."""
    exp, metric, da = s["place"]
    da, kind, variants = bool(da), s["kind"], table.variants

    def cell(v: str, d: bool, b: float, e: str = exp) -> Cell | None:
        return table.get((e, metric, v, d, b))

    def reference(v: str) -> Cell | None:  # lossless (congestion) or the lowest BER
        return cell(v, da, 0.0, "ideal") if exp == "congestion_error" else cell(v, da, bers[0])

    if kind.startswith("da_"):  # each variant with delayed ACK against itself without
        return [
            ((f"{v}/on", f"{v}/off", b), cell(v, True, b), cell(v, False, b))
            for v in variants
            for b in use
        ]
    if kind == "degrade":
        return [((v, "ref", b), cell(v, da, b), reference(v)) for v in variants for b in use]
    if kind == "best":  # against the best of the other three at each BER
        sign, v = (1.0 if higher else -1.0), s["variant"]
        others = [o for o in variants if o != v]
        best = {
            b: max(others, key=lambda o, b=b: sign * table.mean(exp, metric, o, da, b)) for b in use
        }
        return [((v, best[b], b), cell(v, da, b), cell(best[b], da, b)) for b in use]
    return [((a, o, b), cell(a, da, b), cell(o, da, b)) for a, o in s["pairs"] for b in use]


def _gain(x: Cell | None, y: Cell | None, higher: bool) -> float:
    """``x``'s gain over ``y`` (Eqs. 7.2-7.3, %), positive when ``x`` is better."""
    a, b = (math.nan if c is None else c.mean for c in (x, y))
    g = (a - b) / b * 100.0 if b and not math.isnan(a) and not math.isnan(b) else math.nan
    return g if higher else -g


def _tie(x: Cell | None, y: Cell | None, tie_pct: float) -> bool:
    """Whether two means are a statistical tie: closer than ``tie_pct`` % or
    than their two 95 % intervals together."""
    if x is None or y is None or math.isnan(x.mean) or math.isnan(y.mean) or y.mean == 0:
        return False
    if abs(x.mean - y.mean) / abs(y.mean) * 100 < tie_pct:
        return True
    return abs(x.mean - y.mean) <= sum(0.0 if math.isnan(z.ci95) else z.ci95 for z in (x, y))


Verdict = tuple[str, bool, bool | None]


def _verdict(
    s: Mapping[str, Any],
    gains: Gains,
    ties: Mapping[tuple[str, str, float], bool],
    use: Sequence[float],
    comparable_pct: float,
    short: Mapping[str, str],
) -> Verdict:
    """The verdict in words, whether the statement holds and (for a stated
    percentage) whether the magnitudes match."""
    kind = s["kind"]
    if kind in ("range", "upto", "point"):
        return _stated_pct(s, gains, ties)
    if kind in ("better", "best", "da_on_better"):
        return (*_by_sign(s, gains, ties, lambda g: g > 0), None)
    if kind in ("worse", "da_off_better"):
        return (*_by_sign(s, gains, ties, lambda g: g < 0), None)
    if kind in ("comparable", "da_comparable"):
        holds = all(abs(g) <= comparable_pct for g in gains.values() if not math.isnan(g))
        return ("holds" if holds else "does not hold"), holds, None
    if kind == "peak":
        return _peak(s, gains, short)
    return _degrade(s, gains, use)


def _by_sign(
    s: Mapping[str, Any],
    gains: Gains,
    ties: Mapping[tuple[str, str, float], bool],
    ok: Callable[[float], bool],
) -> tuple[str, bool]:
    """'holds' if every gain satisfies ``ok`` (a majority with ``most``);
    failures that are statistical ties are named."""
    n = sum(1 for g in gains.values() if not math.isnan(g))
    bad = [k for k, g in gains.items() if not math.isnan(g) and not ok(g)]
    if s["most"]:
        return ("holds", True) if len(bad) * 2 < n else ("does not hold", False)
    if not bad:
        return "holds", True
    tied = all(ties.get(k, False) for k in bad)
    if len(bad) == n:
        if tied:
            return "does not hold (opposite at every point, within the 95% CI)", False
        return "does not hold", False
    if tied:
        where = ", ".join(sorted({fmt_ber(k[2]) for k in bad}, key=lambda t: float(t)))
        return f"holds except ties within the 95% CI at {where}", False
    return "does not hold", False


def _stated_pct(
    s: Mapping[str, Any], gains: Gains, ties: Mapping[tuple[str, str, float], bool]
) -> Verdict:
    """A range, "up to" or "~" percentage: every gain positive, and the
    ends (the largest; for a range the smallest too) within the default
    tolerance of the thesis's."""
    vals = [g for g in gains.values() if not math.isnan(g)]
    low, high = min(vals), max(vals)
    verdict, holds = _by_sign(s, gains, ties, lambda g: g > 0)
    ends = [(high, s["high"])] if s["kind"] != "range" else [(low, s["low"]), (high, s["high"])]
    magnitude = all(t is not None and DEFAULT_TOLERANCE.holds(t, x) is True for x, t in ends)
    if holds and not magnitude:
        verdict = "direction holds, magnitude differs"
    elif not holds and verdict.startswith("holds except"):
        verdict = "direction " + verdict + ("" if magnitude else "; magnitude differs")
    return verdict, holds, magnitude


def _peak(s: Mapping[str, Any], gains: Gains, short: Mapping[str, str]) -> Verdict:
    """Whether each pair's largest gain lies below ``peak_below`` and at or
    above ``peak_above``."""
    peaks = {}
    for a, o in s["pairs"]:
        pts = {k[2]: g for k, g in gains.items() if k[:2] == (a, o) and not math.isnan(g)}
        if pts:
            peaks[(a, o)] = max(pts, key=lambda b: pts[b])
    holds = bool(peaks) and all(s["peak_above"] <= b < s["peak_below"] for b in peaks.values())
    at = ", ".join(f"{short[a]} {fmt_ber(b)}" for (a, _), b in peaks.items())
    return ("holds" if holds else f"does not hold (largest at {at})"), holds, None


def _degrade(s: Mapping[str, Any], gains: Gains, use: Sequence[float]) -> Verdict:
    """Whether every loss against the reference exceeds the threshold."""
    bad = sorted({k[2] for k, g in gains.items() if not -g > s["high"]})
    if not bad:
        return "holds", True, None
    where = f" at {', '.join(fmt_ber(b) for b in bad)}" if len(bad) < len(use) else ""
    return f"does not hold{where}", False, None


def _why(s: Mapping[str, Any], r: Judged, comparable_pct: float) -> list[str]:
    """The keys of the evidence paragraphs that explain a statement that
    does not fully hold."""
    (exp, metric, _), kind = s["place"], s["kind"]
    http = metric == "http_page_response_time_s"
    if r.verdict == "holds":
        return []
    if kind.startswith("da_"):
        return ["delayed_ack"]
    keys: list[str] = []
    if exp == "congestion_error":
        keys.append("http_buffer" if http else "buffer")
    if kind in ("range", "upto", "point") and not r.magnitude_ok:
        # "is False", not "not ...": a NaN end (None) is not "off".
        low_off = kind == "range" and DEFAULT_TOLERANCE.holds(s["low"], r.low) is False
        high_off = DEFAULT_TOLERANCE.holds(s["high"], r.high) is False
        if low_off and any(b <= 1e-8 for b in r.bers):
            keys.append("http" if http else "lossless")
        if high_off:
            keys += (
                ["http"]
                if http
                else ["high_ber"]
                if metric == "ftp_response_time_s"
                else ["metrics", "high_ber"]
            )
    if kind == "peak":
        keys.append("http" if http else "high_ber")
    if kind == "comparable" and any(
        {a, b} == {"adalr-sack", "adalr-newreno"} and abs(g) > comparable_pct
        for (a, b, _), g in r.gains.items()
    ):
        keys.append("sack_newreno")
    return list(dict.fromkeys(keys))


def _detail(kind: str, gains: Gains, label: Mapping[str, str], names: Mapping[str, str]) -> str:
    """Per-BER gains, grouped by pair."""
    groups: dict[tuple[str, str], list[str]] = {}
    for (a, b, ber), g in gains.items():
        groups.setdefault((a, b), []).append(f"{fmt_ber(ber)}: {g:+.1f}%")
    parts = []
    for (a, b), items in groups.items():
        if kind == "best":
            head = f"vs best other ({label[b]})"
        elif kind == "degrade":
            head = label[a]
        elif kind.startswith("da_"):
            head = f"{label[a.split('/')[0]]} on vs off"
        else:
            head = f"{names[a]} vs {names[b]}"
        parts.append(head + " " + ", ".join(items))
    return "; ".join(parts)


def fmt_ber(b: float) -> str:
    """1e-07 -> '1e-7'."""
    return f"1e{round(math.log10(b))}" if b > 0 else "0"


# --- Sec. 7.5.5: fairness -----------------------------------------------------------------


@dataclass
class Outcome:
    """One fairness run's connections, ordered as the receivers' delays."""

    variants: tuple[str, ...]
    throughput_Bps: list[float]
    duration_s: list[float]
    finished: list[bool]
    retransmissions: int
    max_queue_packets: int

    @property
    def jain(self) -> float:
        return jain_index(self.throughput_Bps)

    @property
    def maxmin(self) -> float:
        return maxmin_fairness(self.throughput_Bps)


def outcome(run: Any, variants: Sequence[str]) -> Outcome:
    """A fairness run: average throughput (payload bytes / the connection's
    own duration, bytes/s) per connection, receiver 0 first; a download
    finished when its transfer has a response time (the run stops at the
    last one, before its connection is closed)."""
    f = run.flows.sort_values("app")
    t = run.transfers
    done = {int(a) for a, rt in zip(t["app"], t["response_time_s"], strict=True) if rt == rt}
    return Outcome(
        tuple(variants),
        [float(x) / 8.0 for x in f["throughput_bps"]],
        [float(x) for x in f["duration_s"]],
        [i in done for i in range(len(variants))],
        int(f["server_retransmitted_segments"].sum()),
        int(run.links["max_queue_packets"].max()),
    )


def direction(thesis: float, satcp: float) -> str:
    """The verdict on a percentage the thesis states: it holds when satcp's
    has its sign and is within the default tolerance of it."""
    if math.isnan(satcp):
        return "not evaluated"
    if (satcp > 0) != (thesis > 0):
        return "does not hold"
    if DEFAULT_TOLERANCE.holds(thesis, satcp):
        return "holds"
    return "direction holds, magnitude differs"


def fairness_window(rwnd: int, mss: int, gain: float, rho_max: float) -> tuple[int, float, float]:
    """The largest window (payload bytes) satcp's per-ACK reading of
    Algorithm 5.3 ever allows (rwnd + ``gain`` x rho x MSS, rho at its bound
    ``rho_max``, in whole segments), the smallest RTT of the 500 ms
    connection, and the throughput bound they make (bytes/s)."""
    window = (rwnd + int(gain * rho_max * mss)) // mss * mss
    f = THESIS_FAIRNESS
    one_way = f["receiver_delay_s"][0] + 4 * f["link_delay_s"]
    rtt = 2 * one_way + 5 * (1500 * 8 + 40 * 8) / f["link_bps"]
    return window, rtt, window / rtt


def fairness_bars(tables: Sequence[tuple[str, Outcome, list[float]]]) -> Any:
    """Tables 7.11, 7.12, 7.14: satcp's and the thesis's throughput per
    connection, 25 ms first, one panel per (title, outcome, thesis values);
    each connection labelled by its RTT and variant."""
    fig = new_figure((13, 4.2), dpi=100)
    axes = fig.subplots(1, 3, sharey=True)
    labels = THESIS_FAIRNESS["rtt_labels_ms"]
    order = list(reversed(range(len(labels))))  # 25 ms first, as the tables
    xs = list(range(len(labels)))
    for ax, (title, o, thesis) in zip(axes, tables, strict=True):
        kinds = ["ADaLR" if v.startswith("adalr") else "NewReno" for v in o.variants]
        ax.bar(
            [x - 0.2 for x in xs], [o.throughput_Bps[i] for i in order], width=0.4, label="satcp"
        )
        ax.bar([x + 0.2 for x in xs], [thesis[i] for i in order], width=0.4, label="thesis")
        ax.set_xticks(xs)
        ax.set_xticklabels([f"{labels[i]}\n{kinds[i]}" for i in order], fontsize=8)
        ax.set_xlabel("RTT (ms)")
        ax.set_title(title, fontsize=9)
        ax.grid(True, axis="y", alpha=0.3)
    axes[0].set_ylabel("Average throughput (bytes/s)")
    axes[0].legend(fontsize=8)
    return fig

"""Shared helpers of the TCP-ADaLR thesis reproductions (``satcp reproduce adalr``).

Stable interface (other reproduction modules may import these):

- :func:`thesis_scenario`: the thesis network (Fig. 7.2, Tables 7.2-7.4) as a
  scenario dict, with keyword arguments for what the experiments vary;
- :data:`VARIANTS`, :data:`DELAYED_ACK`, :func:`variant_label`: the four TCP
  variants in the thesis tables' order and their labels;
- :func:`diff_pct`, :func:`improvement_pct` (thesis Eq. 7.2-7.3),
  :func:`claim_diff_pct`;
- :class:`Row`, :data:`CSV_COLUMNS`, :func:`rows_csv`, :func:`write_text`:
  the CSV layout of every table (experiment, variant, delayed_ack, parameter,
  metric, satcp, thesis, diff_pct);
- :func:`markdown_table`, :func:`cell`, :func:`fmt_pct`: Markdown helpers;
- :class:`Claim`, :func:`claims_markdown`: thesis statements (the percentages
  the thesis gives for its figures in prose) beside satcp's number;
- :func:`ftp_time`, :func:`http_page_time`, :func:`satellite_link`,
  :func:`rate_series`, :func:`peak`: what the experiments read from a run;
- :func:`plot_lines`, :data:`SERIES_STYLE`: the figure style (matplotlib,
  Agg, no pyplot state, safe in threads);
- :data:`CLAIMS_BEGIN` / :data:`CLAIMS_END`: a Markdown section may put its
  one-line findings between these two comment lines; the report's summary
  (``satcp.reproduce.adalr``) collects them.

A reproduction part is a module with
``reproduce(out: pathlib.Path, workers: int | None, quick: bool) -> str``
that writes its CSV/PNG files into ``out`` and returns a Markdown section.
"""

from __future__ import annotations

import csv
import io
import math
import os
import textwrap
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import pandas as pd

from ..results import Results

__all__ = [
    "BIN_S",
    "CLAIMS_BEGIN",
    "CLAIMS_END",
    "CSV_COLUMNS",
    "DELAYED_ACK",
    "FIG_KINDS",
    "NOTE_THRESHOLD_PCT",
    "SERIES_STYLE",
    "VARIANTS",
    "Check",
    "Claim",
    "FtpRun",
    "Line",
    "Row",
    "cell",
    "checks_markdown",
    "claim_diff_pct",
    "claims_markdown",
    "diff_pct",
    "extend_series",
    "fmt_pct",
    "ftp_time",
    "http_page_time",
    "improvement_pct",
    "link_bound_s",
    "markdown_table",
    "peak",
    "plot_lines",
    "rate_series",
    "rows_csv",
    "satellite_link",
    "span",
    "thesis_scenario",
    "time_series_figures",
    "variant_label",
    "write_text",
]

#: The four variants in the order of the thesis tables, with their labels.
VARIANTS: tuple[tuple[str, str], ...] = (
    ("adalr-sack", "TCP-ADaLR SACK"),
    ("adalr-newreno", "TCP-ADaLR NewReno"),
    ("sack", "TCP SACK"),
    ("newreno", "TCP NewReno"),
)
#: Delayed ACK settings in the order of the thesis table columns.
DELAYED_ACK: tuple[tuple[bool, str], ...] = ((True, "enabled"), (False, "disabled"))

#: Differences beyond this (percent) must be explained in the report.
NOTE_THRESHOLD_PCT = 15.0
#: Averaging interval of the figures and of "up to" peaks: OPNET's collection
#: interval in the thesis runs (App. A: 18,000 s / 3,600 values = 5 s).
BIN_S = 5.0

CLAIMS_BEGIN = "<!-- claims:begin -->"
CLAIMS_END = "<!-- claims:end -->"

CSV_COLUMNS = (
    "experiment",
    "variant",
    "delayed_ack",
    "parameter",
    "metric",
    "satcp",
    "thesis",
    "diff_pct",
    "extend_series",
)


def variant_label(variant: str) -> str:
    """'adalr-sack' -> 'TCP-ADaLR SACK' (unknown names are returned as is)."""
    return dict(VARIANTS).get(variant, variant)


# --- the thesis network ------------------------------------------------------


def thesis_scenario(
    app: str = "ftp",
    *,
    variant: str = "sack",
    delayed_ack: bool = True,
    file_bytes: int = 50_000_000,
    ethernet_delay_s: float = 0.010,
    satellite_delay_s: float = 0.250,
    downlink_bps: float = 2.048e6,
    uplink_bps: float = 256e3,
    gateway_buffer_packets: int | None = None,
    satellite_ber: float | None = None,
    rwnd_mode: str | None = None,
    sample_interval_s: float = 1.0,
    seed: int = 1,
    duration_s: float | None = None,
    name: str | None = None,
) -> dict[str, Any]:
    """The thesis network of Fig. 7.2 as a scenario dict: server -- 10 Mb/s
    Ethernet (``ethernet_delay_s`` one way) -- gateway -- bent-pipe GEO link
    (``satellite_delay_s`` one way; ``downlink_bps`` gateway -> client,
    ``uplink_bps`` back) -- client, with one application:

    - ``app="ftp"``: one download of ``file_bytes`` (Table 7.2; 5 h run),
    - ``app="http"``: HTTP/1.1 pages every 30 s for 1,000 s (Table 7.3).

    With the defaults it equals ``scenarios/thesis_ftp.toml`` /
    ``thesis_http.toml`` (a test checks this). ``gateway_buffer_packets``
    limits the gateway's output queue towards the satellite
    (``links[1].ab.queue_packets``, waiting packets); ``satellite_ber`` sets
    the bit error rate of both satellite directions; ``rwnd_mode`` sets
    ``tcp.adalr.rwnd_mode``.
    """
    if app not in ("ftp", "http"):
        raise ValueError(f"app must be 'ftp' or 'http', not {app!r}")
    tcp: dict[str, Any] = {"variant": variant, "delayed_ack": delayed_ack}
    if rwnd_mode is not None:
        tcp["adalr"] = {"rwnd_mode": rwnd_mode}
    down: dict[str, Any] = {"rate_bps": float(downlink_bps)}
    up: dict[str, Any] = {"rate_bps": float(uplink_bps)}
    if gateway_buffer_packets is not None:
        down["queue_packets"] = int(gateway_buffer_packets)
    if satellite_ber is not None:
        down["ber"] = float(satellite_ber)
        up["ber"] = float(satellite_ber)
    if app == "ftp":
        application: dict[str, Any] = {
            "kind": "ftp",
            "client": "client",
            "server": "server",
            "file_bytes": int(file_bytes),
        }
        default_duration = 18000.0
    else:
        application = {
            "kind": "http",
            "client": "client",
            "server": "server",
            "page_interval_s": 30.0,
        }
        default_duration = 1000.0
    return {
        "name": name or f"thesis-{app}",
        "seed": seed,
        "duration_s": float(duration_s if duration_s is not None else default_duration),
        "sample_interval_s": float(sample_interval_s),
        "nodes": ["server", "gateway", "client"],
        "tcp": tcp,
        "links": [
            {
                "name": "ethernet",
                "a": "server",
                "b": "gateway",
                "rate_bps": 10e6,
                "delay_s": float(ethernet_delay_s),
            },
            {
                "name": "satellite",
                "a": "gateway",
                "b": "client",
                "delay_s": float(satellite_delay_s),
                "ab": down,
                "ba": up,
            },
        ],
        "apps": [application],
    }


def link_bound_s(sc: dict[str, Any], mss: int = 1460, header: int = 40) -> float:
    """Time to push the (first) FTP app's file through the satellite
    downlink at line rate (full segments of ``mss + header`` bytes), plus
    one RTT of propagation for the handshake and the last segment."""
    app = sc["apps"][0]
    sat = sc["links"][1]
    rate = float(sat["ab"]["rate_bps"])
    segments = math.ceil(int(app["file_bytes"]) / mss)
    prop = 2 * (float(sc["links"][0]["delay_s"]) + float(sat["delay_s"]))
    return segments * (mss + header) * 8 / rate + prop


# --- numbers -----------------------------------------------------------------


def diff_pct(satcp: float, thesis: float) -> float:
    """(satcp - thesis) / thesis x 100 (NaN when either is missing)."""
    if satcp is None or thesis is None or not thesis or _nan(satcp) or _nan(thesis):
        return math.nan
    return (satcp - thesis) / thesis * 100.0


def improvement_pct(metric: float, baseline: float) -> float:
    """Thesis Eq. 7.2-7.3: (metric_ADaLR - metric_TCP) / metric_TCP x 100.
    Negative for a shorter response time, positive for a higher rate."""
    return diff_pct(metric, baseline)


def claim_diff_pct(satcp: float, thesis: float, kind: str) -> float:
    """How far satcp's number is from a thesis statement, in percent.

    ``kind="change"``: both are Eq. 7.2 percentages p; they are compared as
    the ratios they state, (1 + p_satcp/100) / (1 + p_thesis/100) - 1, so
    that the 15% threshold means the same as for table values (the metric
    of one variant relative to the other differs by that much).
    ``kind="level"``: plain (satcp - thesis) / thesis."""
    if kind == "change":
        if _nan(satcp) or _nan(thesis):
            return math.nan
        return diff_pct(1 + satcp / 100.0, 1 + thesis / 100.0)
    return diff_pct(satcp, thesis)


def span(lo: float, hi: float, digits: int = 0) -> str:
    """'26' when both round alike, else '25-27'."""
    a, b = f"{lo:.{digits}f}", f"{hi:.{digits}f}"
    return a if a == b else f"{a}-{b}"


def fmt_pct(v: float, digits: int = 1, sign: bool = True) -> str:
    if _nan(v):
        return "n/a"
    return f"{v:+.{digits}f}%" if sign else f"{v:.{digits}f}%"


def cell(satcp: float, thesis: float | None, digits: int = 1) -> str:
    """'419.7 (470.1, -10.7%)': satcp (thesis, diff)."""
    if _nan(satcp):
        return "unfinished" + (f" ({thesis:g})" if thesis is not None else "")
    if thesis is None:
        return f"{satcp:.{digits}f}"
    return f"{satcp:.{digits}f} ({thesis:g}, {fmt_pct(diff_pct(satcp, thesis))})"


def _nan(v: Any) -> bool:
    return v is None or (isinstance(v, float) and math.isnan(v))


# --- tables ------------------------------------------------------------------


@dataclass
class Row:
    """One CSV row (see :data:`CSV_COLUMNS`)."""

    experiment: str
    variant: str
    delayed_ack: bool | None
    parameter: str
    metric: str
    satcp: float
    thesis: float | None
    diff_pct: float | None = None

    def __post_init__(self) -> None:
        if self.diff_pct is None and self.thesis is not None:
            self.diff_pct = diff_pct(self.satcp, self.thesis)

    @property
    def flagged(self) -> bool:
        return (
            self.diff_pct is not None
            and not _nan(self.diff_pct)
            and (abs(self.diff_pct) > NOTE_THRESHOLD_PCT)
        )


def rows_csv(rows: Iterable[Row]) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(CSV_COLUMNS)
    for r in rows:
        w.writerow(
            [
                r.experiment,
                r.variant,
                "" if r.delayed_ack is None else ("true" if r.delayed_ack else "false"),
                r.parameter,
                r.metric,
                "" if _nan(r.satcp) else f"{r.satcp:.6g}",
                "" if r.thesis is None else f"{r.thesis:g}",
                "" if _nan(r.diff_pct) else f"{r.diff_pct:.2f}",
            ]
        )
    return buf.getvalue()


def write_text(path: str | os.PathLike[str], text: str) -> Path:
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text, encoding="utf-8")
    return p


def markdown_table(
    headers: Sequence[str], rows: Iterable[Sequence[Any]], align: str | None = None
) -> list[str]:
    """Lines of a Markdown table. ``align`` has one letter per column, "l"
    or "r"; by default the first column is left-aligned, the others right."""
    if align is None:
        align = "l" + "r" * (len(headers) - 1)
    marks = {"l": "---", "r": "---:"}
    out = [
        "| " + " | ".join(headers) + " |",
        "| " + " | ".join(marks[a] for a in align) + " |",
    ]
    for row in rows:
        out.append("| " + " | ".join(str(c).replace("|", "/") for c in row) + " |")
    return out


# --- claims ------------------------------------------------------------------


@dataclass
class Claim:
    """A thesis statement with a number, beside satcp's number computed the
    same way. ``kind`` is "change" (an Eq. 7.2 percentage) or "level"."""

    experiment: str  # e.g. "fig7.4"
    source: str  # e.g. "Fig. 7.4 caption"
    statement: str  # the thesis's words, shortened
    metric: str  # how both numbers are computed
    thesis: float
    satcp: float
    kind: str = "change"
    variant: str = ""
    delayed_ack: bool | None = None
    parameter: str = ""
    implied: float | None = None  # what the thesis's own tables give
    note: str = ""
    unit: str = "%"

    @property
    def diff_pct(self) -> float:
        return claim_diff_pct(self.satcp, self.thesis, self.kind)

    @property
    def same_direction(self) -> bool:
        if self.kind != "change" or _nan(self.satcp):
            return True
        return (self.satcp > 0) == (self.thesis > 0) or abs(self.satcp) < 0.05

    @property
    def verdict(self) -> str:
        d = self.diff_pct
        if _nan(d):
            return "n/a"
        if abs(d) <= NOTE_THRESHOLD_PCT:
            return "yes"
        return "direction only" if self.same_direction and self.kind == "change" else "no"

    def row(self) -> Row:
        return Row(
            self.experiment,
            self.variant,
            self.delayed_ack,
            self.parameter,
            self.metric,
            self.satcp,
            self.thesis,
            self.diff_pct,
        )

    def value(self, v: float | None) -> str:
        if v is None or _nan(v):
            return "n/a"
        if self.unit == "%":
            return fmt_pct(v, sign=self.kind == "change")
        return f"{v:.3g} {self.unit}".strip()


@dataclass
class Check:
    """A thesis statement without a number (a trend or an ordering) and
    whether satcp shows it, with the numbers that decide."""

    source: str
    statement: str
    holds: bool
    evidence: str
    parameter: str = ""


def checks_markdown(checks: Sequence[Check]) -> list[str]:
    return markdown_table(
        ["Source", "Thesis statement", "satcp", "evidence"],
        [
            [
                c.source,
                c.statement + (f" ({c.parameter})" if c.parameter else ""),
                "yes" if c.holds else "no",
                c.evidence,
            ]
            for c in checks
        ],
        "llll",
    )


def claims_markdown(claims: Sequence[Claim]) -> list[str]:
    """A Markdown table of claims: source, statement, thesis, the thesis's
    own tables, satcp, difference, verdict."""
    rows = []
    for c in claims:
        rows.append(
            [
                c.source,
                c.statement + (f" ({c.parameter})" if c.parameter else ""),
                c.value(c.thesis),
                c.value(c.implied) if c.implied is not None else "",
                c.value(c.satcp),
                fmt_pct(c.diff_pct),
                c.verdict,
            ]
        )
    return markdown_table(
        ["Source", "Thesis statement", "thesis", "thesis tables", "satcp", "diff", "reproduced"],
        rows,
        "llrrrrl",
    )


# --- reading a run -----------------------------------------------------------


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


# --- figures -----------------------------------------------------------------

#: Line styles of the thesis figures' series: (color, linestyle, marker).
SERIES_STYLE: dict[str, tuple[str, str, str]] = {
    "adalr-nodelack": ("tab:red", "-", "o"),
    "adalr-delack": ("tab:blue", "-", "s"),
    "tcp-nodelack": ("tab:green", "--", "^"),
    "tcp-delack": ("black", "--", "v"),
    "adalr-sack": ("tab:red", "-", "o"),
    "adalr-newreno": ("tab:orange", ":", "s"),
    "sack": ("tab:blue", "--", "^"),
    "newreno": ("black", "-.", "v"),
}


@dataclass
class Line:
    label: str
    x: Sequence[float]
    y: Sequence[float]
    style: str = ""
    markers: bool = False
    extra: dict[str, Any] = field(default_factory=dict)


def plot_lines(
    path: str | os.PathLike[str],
    title: str,
    xlabel: str,
    ylabel: str,
    lines: Sequence[Line],
    *,
    dpi: int = 100,
    ylim: tuple[float, float] | None = None,
    xlog: bool = False,
) -> Path:
    """Draws one thesis-style figure (white background, grid, legend inside)
    and writes it as PNG. Uses matplotlib's object API with the Agg canvas,
    so it touches no global pyplot state."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(7.5, 4.8))
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    for ln in lines:
        color, ls, marker = SERIES_STYLE.get(ln.style, (None, "-", "o"))
        ax.plot(
            ln.x,
            ln.y,
            label=ln.label,
            color=color,
            linestyle=ls,
            marker=marker if ln.markers else None,
            linewidth=1.4,
            markersize=5,
            **ln.extra,
        )
    ax.set_title("\n".join(textwrap.wrap(title, 90)), fontsize=10)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if xlog:
        ax.set_xscale("log")
    if ylim is not None:
        ax.set_ylim(*ylim)
    else:
        ax.set_ylim(bottom=0)
    ax.set_xlim(left=0 if not xlog else None)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8, loc="best")
    fig.tight_layout()
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(p, dpi=dpi)
    return p


#: (column, y label, scale, file stem, what)
FIG_KINDS = (
    ("seq_bytes", "Received segment sequence number (bytes)", 1.0, "goodput", "Goodput"),
    ("tcp_Bps", "TCP throughput (bytes/s)", 1.0, "tcp_throughput", "TCP throughput"),
    (
        "link_bps",
        "Satellite link throughput (b/s)",
        1.0,
        "link_throughput",
        "Satellite link throughput",
    ),
    ("util_pct", "Utilization (%)", 1.0, "link_utilization", "Satellite link utilization"),
)


def extend_series(ser: pd.DataFrame, until: float, bin_s: float = BIN_S) -> pd.DataFrame:
    """The series continued after the run's end until ``until``: rates 0,
    the sequence number flat (as OPNET draws a finished transfer)."""
    if ser.empty:
        return ser
    last = float(ser["time_s"].iloc[-1])
    extra = []
    t = last + bin_s
    while t <= until + 1e-9:
        extra.append(
            {
                "time_s": t,
                "seq_bytes": ser["seq_bytes"].iloc[-1],
                "goodput_Bps": 0.0,
                "tcp_Bps": 0.0,
                "link_bps": 0.0,
                "util_pct": 0.0,
            }
        )
        t += bin_s
    if not extra:
        return ser
    return pd.concat([ser, pd.DataFrame(extra)], ignore_index=True)


def time_series_figures(
    out: Path,
    figs: Sequence[int],
    what: str,
    series: Sequence[tuple[str, str, pd.DataFrame]],
    dpi: int = 100,
    suffix: str = "",
) -> list[str]:
    """Draws the four time-series figures (goodput, TCP throughput, link
    throughput, link utilization) of one scenario, as the thesis's Figs.
    7.4-7.15 and 7.20-7.27: ``figs`` are their numbers, ``series`` are
    (:data:`SERIES_STYLE` key, label, :func:`rate_series` frame). Returns
    the file names, ``fig7_NN_<what><suffix>.png``."""
    until = max((float(s["time_s"].iloc[-1]) for _, _, s in series if not s.empty), default=0)
    names = []
    for figno, (col, ylabel, _, stem, title) in zip(figs, FIG_KINDS, strict=True):
        lines = []
        for key, label, ser in series:
            ext = extend_series(ser, until)
            lines.append(Line(label, ext["time_s"], ext[col], style=key))
        name = f"fig7_{figno:02d}_{stem}{suffix}.png"
        plot_lines(
            out / name,
            f"Fig. 7.{figno} (satcp): {title}, {what}",
            "Simulation time (s)",
            ylabel,
            lines,
            dpi=dpi,
            ylim=(0, 100) if col == "util_pct" else None,
        )
        names.append(name)
    return names

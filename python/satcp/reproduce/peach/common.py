"""Shared helpers of the TCP-Peach reproduction (``satcp reproduce peach``).

- :func:`sec5_scenario`: the paper's Sec. V network (Fig. 10) as a scenario
  dict: N senders, Earth station A with a priority buffer of K segments, a
  GEO channel of c segments/s and RTT 550 ms with link-error losses of
  probability PLoss on data and dummy segments, N receivers;
- :func:`hetero_scenario`: the heterogeneous network of Fig. 18 (M satellite
  and N terrestrial connections through one bottleneck A-B);
- :func:`flow_goodputs`, :func:`aggregate_goodput`: goodput in segments/s;
- :class:`Claim`, :func:`claims_table`: a number or statement of the paper
  beside satcp's;
- :class:`Section`: what each experiment module returns;
- :class:`Series`, :class:`Panel`, :func:`plot`: figures drawn like the
  paper's (matplotlib object API on the Agg canvas: no pyplot state, safe in
  threads); :func:`write_csv`, :func:`markdown_table`, :func:`mean`.

Every experiment module has
``reproduce(out: pathlib.Path, workers: int | None, quick: bool) -> Section``
and writes its CSV and PNG files into ``out``.

Units follow the paper: segments of MSS = 1,000 bytes ("we consider the
segment as the unit of data"), c in segments per second of full-size data
packets (1,040 bytes on the wire, so c = 1,300 segments/s is 10.8 Mb/s),
windows in segments.
"""

from __future__ import annotations

import csv
import math
import os
import random
import textwrap
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = [
    "ACCESS_BPS",
    "ACCESS_DELAY_S",
    "C_SEG",
    "DURATION_S",
    "HEADER_BYTES",
    "JITTER_S",
    "K_SEG",
    "LABEL",
    "MSS",
    "N_FLOWS",
    "PEACH",
    "PEACH_PLAIN",
    "RENO",
    "RENO_PLAIN",
    "RTT_S",
    "RWND_SEG",
    "STYLE",
    "TOLERANCE_PCT",
    "Claim",
    "Panel",
    "Section",
    "Series",
    "aggregate_goodput",
    "claims_table",
    "flow_goodputs",
    "fmt",
    "hetero_scenario",
    "markdown_table",
    "mean",
    "plot",
    "rate_bps",
    "sec5_scenario",
    "sender_delays",
    "write_csv",
]

#: Segment payload (the paper's 1,000-byte TCP segments).
MSS = 1000
#: IP + TCP header bytes of a data packet.
HEADER_BYTES = 40
#: Round-trip propagation time of the GEO path.
RTT_S = 0.55
#: Capacity of the satellite channel (Sec. V), segments/s.
C_SEG = 1300.0
#: Buffer of Earth station A, segments.
K_SEG = 50
#: Receiver window, segments.
RWND_SEG = 64
#: Connections sharing the channel in Sec. V-A.
N_FLOWS = 20
#: Simulated time of every Sec. V experiment (1,000 RTT).
DURATION_S = 550.0
#: Access links between the hosts and the Earth stations / routers: fast
#: and short, so the satellite channel (or A-B) is the only bottleneck.
ACCESS_BPS = 100e6
ACCESS_DELAY_S = 0.0005
#: Sender access delays of multi-connection runs are drawn uniformly in
#: [0, JITTER_S] from the run's seed (mean ACCESS_DELAY_S), see
#: :func:`sender_delays`.
JITTER_S = 0.001
#: A number of the paper is "reproduced" when satcp is within this (percent).
TOLERANCE_PCT = 15.0

#: Sec. V: "both TCP-Reno and TCP-Peach apply the SACK option" (Reno is
#: NewReno, ref. [22]); Secs. III-IV (Figs. 3, 7, 9) describe the plain
#: algorithms with Fast Recovery's window inflation: no SACK there.
PEACH, RENO = "peach-sack", "sack"
PEACH_PLAIN, RENO_PLAIN = "peach", "newreno"

LABEL = {
    PEACH: "TCP-Peach",
    RENO: "TCP-Reno",
    PEACH_PLAIN: "TCP-Peach",
    RENO_PLAIN: "TCP-Reno",
}

#: Series styles: (color, linestyle, marker). The paper draws TCP-Peach with
#: solid and TCP-Reno with dashed lines.
STYLE: dict[str, tuple[str, str, str]] = {
    "peach": ("tab:red", "-", "o"),
    "reno": ("black", "--", "s"),
    "iiw": ("tab:blue", ":", "^"),
    "faststart": ("tab:green", "-.", "v"),
    "peach2": ("tab:orange", "-", "D"),
    "reno2": ("tab:gray", "--", "x"),
}


def rate_bps(c_seg: float) -> float:
    """Link rate carrying ``c_seg`` full data packets per second."""
    return float(c_seg) * (MSS + HEADER_BYTES) * 8


def _tcp(rwnd_seg: int, initial_window: int, tcp: Mapping[str, Any] | None) -> dict[str, Any]:
    # Sec. II-A: no delayed ACK; Reno starts from one segment (the paper's
    # IIW baseline sets initial_window = 4 explicitly).
    t: dict[str, Any] = {
        "variant": RENO,
        "mss": MSS,
        "rcv_buffer": int(rwnd_seg) * MSS,
        "delayed_ack": False,
        "initial_window": int(initial_window),
    }
    t.update(tcp or {})
    return t


def _app(client: str, server: str, variant: str, app: Mapping[str, Any] | None) -> dict[str, Any]:
    a: dict[str, Any] = {"kind": "bulk", "client": client, "server": server}
    a.update(app or {})
    a["tcp"] = {"variant": variant, **dict(a.get("tcp", {}))}
    return a


def sec5_scenario(
    variants: Sequence[str],
    *,
    c_seg: float = C_SEG,
    k_seg: int = K_SEG,
    ploss: float = 0.0,
    rwnd_seg: int = RWND_SEG,
    initial_window: int = 1,
    duration_s: float = DURATION_S,
    seed: int = 1,
    sample_interval_s: float = 0.0,
    tcp: Mapping[str, Any] | None = None,
    satellite: Mapping[str, Any] | None = None,
    app: Mapping[str, Any] | None = None,
    jitter_s: float | None = None,
    name: str = "peach-sec5",
) -> dict[str, Any]:
    """The network of Fig. 10 with one connection per entry of ``variants``:
    ``sender{i}`` -- A ==satellite== B -- ``receiver{i}``.

    - satellite channel A -> B: ``c_seg`` segments/s, priority queue of
      ``k_seg`` segments (dummies and marked ACKs are low priority; data
      pushes queued dummies out), link-error loss ``ploss`` on every data
      and dummy segment (ACKs are not lost: ``errors_data_only``); the
      return direction is error-free with the same rate and queue;
    - access links of 100 Mb/s and 0.5 ms, so the round-trip propagation
      time is 550 ms; with several connections (or ``jitter_s`` given) each
      sender's access delay is drawn from the seed instead
      (:func:`sender_delays`);
    - one bulk transfer (unlimited, from t = 0) per connection, ``rwnd_seg``
      segments of 1,000 bytes of receive window, no delayed ACK, initial
      window ``initial_window``.

    ``tcp`` is merged into the scenario's ``[tcp]`` table, ``satellite``
    into the satellite link's ``ab`` direction, ``app`` into every
    application (e.g. ``{"bytes": 2_000_000}``)."""
    nodes = ["station_a", "station_b"]
    links: list[dict[str, Any]] = []
    apps = []
    if jitter_s is None:
        jitter_s = JITTER_S if len(variants) > 1 else 0.0
    delays = sender_delays(len(variants), seed, jitter_s)
    for i, v in enumerate(variants):
        s, r = f"sender{i}", f"receiver{i}"
        nodes += [s, r]
        links.append(_access(f"up{i}", s, "station_a", delays[i]))
        links.append(_access(f"down{i}", "station_b", r))
        apps.append(_app(r, s, v, app))
    one_way = RTT_S / 2 - 2 * ACCESS_DELAY_S
    ab: dict[str, Any] = {"loss": float(ploss), "errors_data_only": True}
    ab.update(satellite or {})
    links.append(
        {
            "name": "satellite",
            "a": "station_a",
            "b": "station_b",
            "rate_bps": rate_bps(c_seg),
            "delay_s": one_way,
            "queue": "priority",
            "queue_packets": int(k_seg),
            "ab": ab,
        }
    )
    return {
        "name": name,
        "seed": int(seed),
        "duration_s": float(duration_s),
        "stop_when_done": False,
        "sample_interval_s": float(sample_interval_s),
        "nodes": nodes,
        "links": links,
        "apps": apps,
        "tcp": _tcp(rwnd_seg, initial_window, tcp),
    }


def _access(name: str, a: str, b: str, delay_s: float = ACCESS_DELAY_S) -> dict[str, Any]:
    return {"name": name, "a": a, "b": b, "rate_bps": ACCESS_BPS, "delay_s": float(delay_s)}


def sender_delays(n: int, seed: int, jitter_s: float = JITTER_S) -> list[float]:
    """One-way delays of the ``n`` senders' access links: uniform in
    [0, ``jitter_s``] from ``seed`` (mean ``jitter_s / 2``, ACCESS_DELAY_S
    with the default), or ACCESS_DELAY_S each when ``jitter_s`` is 0.

    Why: with every round-trip time exactly alike and no randomness, a
    drop-tail or priority buffer that is full most of the time drops the
    packets of the same connections round after round (phase effects,
    Floyd and Jacobson 1992): in Fig. 19, moving the satellite delay by
    0.5 ms changed the satellite connections' goodput from 17 to 106
    segments/s. A sub-millisecond spread (the bottleneck's service time is
    0.77 ms) gives every seed a different phase; results are means over
    seeds."""
    if jitter_s <= 0:
        return [ACCESS_DELAY_S] * n
    rng = random.Random(int(seed))
    return [rng.uniform(0.0, jitter_s) for _ in range(n)]


#: Fig. 18: one-way delay of the bottleneck A-B (terrestrial).
BOTTLENECK_DELAY_S = 0.010


def hetero_scenario(
    x_variant: str,
    y_variant: str,
    *,
    ploss_x: float = 0.0,
    m: int = 5,
    n: int = 5,
    rtt_x_s: float = RTT_S,
    rtt_y_s: float = 0.200,
    c_seg: float = C_SEG,
    k_seg: int = K_SEG,
    rwnd_seg: int = RWND_SEG,
    duration_s: float = DURATION_S,
    seed: int = 1,
    sample_interval_s: float = 0.0,
    jitter_s: float = JITTER_S,
    name: str = "peach-fig18",
) -> dict[str, Any]:
    """The network of Fig. 18: M connections of type X (``xsender{i}`` ->
    ``xreceiver{i}``) and N of type Y share the bottleneck router A -> router
    B (``c_seg`` segments/s, priority buffer of ``k_seg`` segments, 10 ms).
    Behind B, X goes through a GEO satellite channel (same capacity,
    link-error loss ``ploss_x`` on data and dummies, round-trip time
    ``rtt_x_s`` end to end) and Y through a terrestrial link without errors
    (round-trip time ``rtt_y_s``). Bulk transfers from t = 0, senders'
    access delays from :func:`sender_delays`, as in :func:`sec5_scenario`."""
    base = 2 * ACCESS_DELAY_S + BOTTLENECK_DELAY_S
    sat_delay = rtt_x_s / 2 - base - ACCESS_DELAY_S
    ter_delay = rtt_y_s / 2 - base
    if sat_delay <= 0 or ter_delay <= 0:
        raise ValueError("round-trip times too short for the topology")
    nodes = ["router_a", "router_b", "station_x"]
    links: list[dict[str, Any]] = [
        {
            "name": "bottleneck",
            "a": "router_a",
            "b": "router_b",
            "rate_bps": rate_bps(c_seg),
            "delay_s": BOTTLENECK_DELAY_S,
            "queue": "priority",
            "queue_packets": int(k_seg),
        },
        {
            "name": "satellite",
            "a": "router_b",
            "b": "station_x",
            "rate_bps": rate_bps(c_seg),
            "delay_s": sat_delay,
            "queue": "priority",
            "queue_packets": int(k_seg),
            "ab": {"loss": float(ploss_x), "errors_data_only": True},
        },
    ]
    apps = []
    delays = sender_delays(m + n, seed, jitter_s)
    for i in range(m):
        s, r = f"xsender{i}", f"xreceiver{i}"
        nodes += [s, r]
        links.append(_access(f"xup{i}", s, "router_a", delays[i]))
        links.append(_access(f"xdown{i}", "station_x", r))
        apps.append(_app(r, s, x_variant, None))
    for i in range(n):
        s, r = f"ysender{i}", f"yreceiver{i}"
        nodes += [s, r]
        links.append(_access(f"yup{i}", s, "router_a", delays[m + i]))
        links.append(_access(f"ydown{i}", "router_b", r, ter_delay))
        apps.append(_app(r, s, y_variant, None))
    return {
        "name": name,
        "seed": int(seed),
        "duration_s": float(duration_s),
        "stop_when_done": False,
        "sample_interval_s": float(sample_interval_s),
        "nodes": nodes,
        "links": links,
        "apps": apps,
        "tcp": _tcp(rwnd_seg, 1, None),
    }


# --- reading runs --------------------------------------------------------------


def flow_goodputs(res: Any, duration_s: float | None = None) -> list[float]:
    """Goodput of every application's connection in the order of the
    scenario's applications (connections are numbered in the order they
    open), segments/s: original bytes delivered in order to the receiver
    over the simulated time. Applications with several connections get
    their sum."""
    dur = float(duration_s if duration_s is not None else res.end_time_s)
    if res.flows.empty or dur <= 0:
        return []
    per_app = res.flows.groupby("app")["client_bytes_delivered"].sum().sort_index()
    return [float(b) / MSS / dur for b in per_app]


def aggregate_goodput(res: Any, duration_s: float | None = None) -> float:
    """Sum of the connections' goodputs, segments/s."""
    return float(sum(flow_goodputs(res, duration_s)))


def mean(values: Iterable[float]) -> float:
    v = [float(x) for x in values if x is not None and not math.isnan(float(x))]
    return sum(v) / len(v) if v else math.nan


def fmt(v: float | None, digits: int = 1, unit: str = "") -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "n/a"
    s = f"{v:.{digits}f}"
    return f"{s} {unit}".strip() if unit else s


# --- claims --------------------------------------------------------------------


@dataclass
class Claim:
    """A number the paper states (``paper``) or a statement without one
    (``paper`` None, ``holds`` given), beside satcp's value computed the
    same way. Numeric claims hold within :data:`TOLERANCE_PCT`, or by
    ``holds`` when it is given (e.g. "at most", "about")."""

    figure: str
    statement: str
    paper: float | None
    satcp: float | None
    unit: str = ""
    holds: bool | None = None
    note: str = ""
    digits: int = 2
    paper_text: str | None = None  # shown instead of the number

    @property
    def where(self) -> str:
        """'Fig. 7', 'Sec. IV-A', 'Fig. 3 / Eq. 1'."""
        return ("Fig. " if self.figure[:1].isdigit() else "Sec. ") + self.figure

    @property
    def diff_pct(self) -> float:
        if self.paper is None or self.satcp is None or not self.paper:
            return math.nan
        if math.isnan(self.satcp):
            return math.nan
        return (self.satcp - self.paper) / abs(self.paper) * 100.0

    @property
    def reproduced(self) -> bool | None:
        if self.holds is not None:
            return self.holds
        d = self.diff_pct
        if math.isnan(d):
            return None
        return abs(d) <= TOLERANCE_PCT

    @property
    def verdict(self) -> str:
        r = self.reproduced
        return "n/a" if r is None else ("yes" if r else "no")

    def value(self, v: float | None) -> str:
        return fmt(v, self.digits, self.unit)

    def row(self) -> dict[str, Any]:
        return {
            "figure": self.figure,
            "statement": self.statement,
            "unit": self.unit,
            "paper": "" if self.paper is None else f"{self.paper:g}",
            "satcp": "" if self.satcp is None or math.isnan(self.satcp) else f"{self.satcp:.6g}",
            "diff_pct": "" if math.isnan(self.diff_pct) else f"{self.diff_pct:.1f}",
            "reproduced": self.verdict,
            "note": self.note,
        }


CLAIM_COLUMNS = ("figure", "statement", "unit", "paper", "satcp", "diff_pct", "reproduced", "note")


def claims_table(claims: Sequence[Claim]) -> list[str]:
    rows = []
    for c in claims:
        paper = c.paper_text or (c.value(c.paper) if c.paper is not None else "(no number)")
        d = math.nan if c.paper_text else c.diff_pct  # a bound or a rough value: no diff
        rows.append(
            [
                c.where,
                c.statement,
                paper,
                c.value(c.satcp) if c.satcp is not None else "",
                "" if math.isnan(d) else f"{d:+.0f}%",
                c.verdict,
                c.note,
            ]
        )
    return markdown_table(
        ["Where", "The paper says", "paper", "satcp", "diff", "holds", "note"], rows, "llrrrll"
    )


@dataclass
class Section:
    """One experiment group: a Markdown body (starting with a ``##``
    heading), its claims, the files it wrote and how long it took."""

    title: str
    markdown: str
    claims: list[Claim] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    runs: int = 0
    seconds: float = 0.0


# --- tables and files ------------------------------------------------------------


def markdown_table(
    headers: Sequence[str], rows: Iterable[Sequence[Any]], align: str | None = None
) -> list[str]:
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


def write_csv(
    path: str | os.PathLike[str], columns: Sequence[str], rows: Iterable[Mapping[str, Any]]
) -> Path:
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    with p.open("w", encoding="utf-8", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(columns), lineterminator="\n")
        w.writeheader()
        for r in rows:
            w.writerow({k: _csv_value(r.get(k, "")) for k in columns})
    return p


def _csv_value(v: Any) -> Any:
    if isinstance(v, float):
        return "" if math.isnan(v) else f"{v:.6g}"
    if isinstance(v, bool):
        return "true" if v else "false"
    return v


# --- figures ---------------------------------------------------------------------


@dataclass
class Series:
    label: str
    x: Sequence[float]
    y: Sequence[float]
    style: str = ""
    markers: bool = False
    linewidth: float = 1.4
    drawstyle: str = "default"


@dataclass
class Panel:
    xlabel: str
    ylabel: str
    series: Sequence[Series]
    xlog: bool = False
    ylim: tuple[float, float] | None = None
    xlim: tuple[float, float] | None = None
    #: Categorical x axis: the tick labels at x = 0, 1, 2, ...
    xticklabels: Sequence[str] | None = None
    legend: bool = True
    hlines: Sequence[tuple[float, str]] = ()


def plot(
    path: str | os.PathLike[str],
    title: str,
    panels: Sequence[Panel],
    *,
    dpi: int = 100,
    width: float = 7.0,
    panel_height: float = 3.4,
) -> Path:
    """Draws one figure of stacked panels (like the paper's upper/bottom
    plots) and writes it as PNG."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, panel_height * len(panels) + 0.6))
    FigureCanvasAgg(fig)
    axes = fig.subplots(len(panels), 1, squeeze=False)[:, 0]
    for ax, pn in zip(axes, panels, strict=True):
        for s in pn.series:
            color, ls, marker = STYLE.get(s.style, (None, "-", "o"))
            ax.plot(
                s.x,
                s.y,
                label=s.label,
                color=color,
                linestyle=ls,
                marker=marker if s.markers else None,
                linewidth=s.linewidth,
                markersize=5,
                drawstyle=s.drawstyle,
            )
        for y, label in pn.hlines:
            ax.axhline(y, color="gray", linewidth=0.8, linestyle=":", label=label or None)
        ax.set_xlabel(pn.xlabel)
        ax.set_ylabel(pn.ylabel)
        if pn.xlog:
            ax.set_xscale("log")
        if pn.xticklabels is not None:
            ax.set_xticks(range(len(pn.xticklabels)))
            ax.set_xticklabels(pn.xticklabels)
        if pn.ylim is not None:
            ax.set_ylim(*pn.ylim)
        else:
            ax.set_ylim(bottom=0)
        if pn.xlim is not None:
            ax.set_xlim(*pn.xlim)
        ax.grid(True, alpha=0.3)
        if pn.legend and (pn.series or pn.hlines):
            ax.legend(fontsize=8, loc="best")
    axes[0].set_title("\n".join(textwrap.wrap(title, 80)), fontsize=10)
    fig.tight_layout()
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(p, dpi=dpi)
    return p

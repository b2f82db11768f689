"""Baseline rows of the TCP-ADaLR thesis, ideal lossless channel.

- Table 7.5: FTP download response time of one 50 MB file
  (``scenarios/thesis_ftp.toml``),
- Table 7.8: HTTP page response time, mean over the pages of the 1000 s run
  (``scenarios/thesis_http.toml``),

for TCP SACK and TCP NewReno with the delayed ACK option enabled and
disabled: 8 runs, in parallel (:func:`satcp.run_many`).

Where the scenario files come from (first found wins):

1. the directory in the environment variable ``SATCP_SCENARIOS``;
2. ``scenarios/`` of the source checkout, found by walking up from this
   package (a checkout, or an editable install such as ``make setup``'s);
3. the copies shipped as package data in ``satcp/scenarios/`` (an installed
   wheel). ``tests/python/test_reproduce.py`` checks that they equal the
   checkout's files; after editing ``scenarios/thesis_*.toml`` copy them:
   ``cp scenarios/thesis_*.toml python/satcp/scenarios/``.
"""

from __future__ import annotations

import csv
import io
import math
import os
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from .. import load, run_many
from .._fsutil import write_files_atomically
from ..results import Results

DEFAULT_OUT = os.path.join("reports", "baseline")
FTP_SCENARIO = "thesis_ftp.toml"
HTTP_SCENARIO = "thesis_http.toml"

VARIANTS = (("sack", "TCP SACK"), ("newreno", "TCP NewReno"))
DELAYED_ACK = ((True, "enabled"), (False, "disabled"))

# (table, variant, delayed_ack) -> thesis value, seconds
THESIS: dict[tuple[str, str, bool], float] = {
    ("7.5", "sack", True): 470.1,
    ("7.5", "sack", False): 463.5,
    ("7.5", "newreno", True): 470.1,
    ("7.5", "newreno", False): 463.5,
    ("7.8", "sack", True): 4.9,
    ("7.8", "sack", False): 4.3,
    ("7.8", "newreno", True): 4.9,
    ("7.8", "newreno", False): 4.3,
}
TABLES = {
    "7.5": ("FTP download response time (s)", "ftp_download_response_time_s", FTP_SCENARIO),
    "7.8": ("HTTP page response time (s)", "http_page_response_time_s", HTTP_SCENARIO),
}
NOTE_THRESHOLD_PCT = 10.0
# A note says satcp "follows" the rwnd/RTT bound only when it is within this
# many percent of it (the bound leaves out slow start, a few percent here).
BOUND_FOLLOW_PCT = 5.0
CSV_COLUMNS = ("table", "variant", "delayed_ack", "metric", "satcp", "thesis", "diff_pct")


def scenario_path(name: str) -> Path:
    """The path of a shipped scenario file (see the module docstring)."""
    env = os.environ.get("SATCP_SCENARIOS")
    if env:
        p = Path(env) / name
        if p.is_file():
            return p
        raise FileNotFoundError(2, "not found (SATCP_SCENARIOS is set)", str(p))
    here = Path(__file__).resolve().parent
    for d in here.parents:
        p = d / "scenarios" / name
        if p.is_file() and (d / "Cargo.toml").is_file():
            return p
    packaged = resources.files("satcp") / "scenarios" / name
    if packaged.is_file():
        return Path(str(packaged))
    raise FileNotFoundError(2, "scenario file not found", f"scenarios/{name}")


@dataclass
class WindowBound:
    """Time to send a file at one receive window per round trip."""

    file_bytes: int
    mss: int
    rwnd: int
    window_bytes: int
    rtt_s: float
    rtt_terms: list[tuple[str, float]]
    handshake_s: float

    @property
    def transfer_s(self) -> float:
        return self.file_bytes / self.window_bytes * self.rtt_s

    @property
    def total_s(self) -> float:
        return self.transfer_s + self.handshake_s


def _path_hops(sc: dict[str, Any], src: str, dst: str) -> list[tuple[float, float, float]]:
    """(delay_s, rate forward, rate backward) of each link on the path from
    ``src`` to ``dst`` (breadth-first over the links)."""
    adj: dict[str, list[tuple[str, dict[str, Any], bool]]] = {}
    for link in sc["links"]:
        adj.setdefault(link["a"], []).append((link["b"], link, True))
        adj.setdefault(link["b"], []).append((link["a"], link, False))
    prev: dict[str, tuple[str, dict[str, Any], bool] | None] = {src: None}
    todo = [src]
    while todo:
        node = todo.pop(0)
        for nxt, link, forward in adj.get(node, []):
            if nxt not in prev:
                prev[nxt] = (node, link, forward)
                todo.append(nxt)
    if dst not in prev:
        raise ValueError(f"no path from {src} to {dst}")
    hops = []
    node = dst
    while (step := prev[node]) is not None:
        node, link, forward = step
        there, back = ("ab", "ba") if forward else ("ba", "ab")

        def get(d: str, key: str, link: dict[str, Any] = link) -> float:
            return float(link.get(d, {}).get(key, link.get(key, 0.0)))

        hops.append((get(there, "delay_s"), get(there, "rate_bps"), get(back, "rate_bps")))
    return hops[::-1]


def window_bound(sc: dict[str, Any]) -> WindowBound:
    """The rwnd-limited FTP download time of the (first) app of ``sc``:
    file_bytes / (floor(rwnd / mss) * mss bytes per RTT), with the RTT of a
    full data packet one way and a 40-byte ACK back, plus ~1 RTT handshake."""
    app = sc["apps"][0]
    tcp = {**sc.get("tcp", {}), **app.get("tcp", {})}
    mss = int(tcp.get("mss", 1460))
    rwnd = int(tcp.get("rcv_buffer", 65535))
    header = 40
    hops = _path_hops(sc, app["server"], app["client"])
    terms: list[tuple[str, float]] = [
        (
            "propagation 2 x (" + " + ".join(f"{d:g}" for d, _, _ in hops) + ") s",
            2 * sum(d for d, _, _ in hops),
        ),
    ]
    for _, fwd, _ in hops:
        terms.append((f"{mss + header} B at {_rate(fwd)}", (mss + header) * 8 / fwd))
    for _, _, back in hops[::-1]:
        terms.append((f"{header} B at {_rate(back)}", header * 8 / back))
    rtt = sum(v for _, v in terms)
    return WindowBound(
        file_bytes=int(app.get("file_bytes", 50_000_000)),
        mss=mss,
        rwnd=rwnd,
        window_bytes=rwnd // mss * mss,
        rtt_s=rtt,
        rtt_terms=terms,
        handshake_s=rtt,
    )


def _rate(bps: float) -> str:
    if bps >= 1e6:
        return f"{bps / 1e6:g} Mb/s"
    return f"{bps / 1e3:g} kb/s"


@dataclass
class Cell:
    table: str
    variant: str
    delayed_ack: bool
    satcp: float
    thesis: float
    pages: int = 0

    @property
    def diff_pct(self) -> float:
        return (self.satcp - self.thesis) / self.thesis * 100.0

    def text(self) -> str:
        if math.isnan(self.satcp):
            return f"unfinished ({self.thesis:g})"
        digits = 1 if self.table == "7.5" else 2
        return f"{self.satcp:.{digits}f} ({self.thesis:g}, {self.diff_pct:+.1f}%)"


@dataclass
class Report:
    cells: list[Cell]
    bound: WindowBound
    markdown: str = ""
    csv: str = ""
    paths: list[str] = field(default_factory=list)


def _value(table: str, res: Results) -> tuple[float, int]:
    kind = "ftp" if table == "7.5" else "http"
    times = res.response_times(kind)
    total = int((res.transfers["kind"] == kind).sum()) if not res.transfers.empty else 0
    if len(times) == 0 or (table == "7.5" and len(times) < total):
        return math.nan, total
    return float(times.mean()), len(times)


def reproduce(
    out_dir: str | os.PathLike[str] | None = DEFAULT_OUT, workers: int | None = None
) -> Report:
    """Runs the 8 baseline scenarios, returns a :class:`Report` and (unless
    ``out_dir`` is None) writes ``baseline.md`` and ``baseline.csv`` there,
    all or nothing."""
    bases = {t: load(scenario_path(TABLES[t][2])) for t in TABLES}
    keys = [(t, v, d) for t in TABLES for v, _ in VARIANTS for d, _ in DELAYED_ACK]
    scenarios = []
    for table, variant, delayed in keys:
        overrides = [f"tcp.variant={variant}", f"tcp.delayed_ack={'true' if delayed else 'false'}"]
        sc = load(bases[table], overrides)
        sc["sample_interval_s"] = 0.0  # no time series needed
        scenarios.append(sc)
    results = run_many(scenarios, workers=workers)
    cells = []
    for (table, variant, delayed), res in zip(keys, results, strict=True):
        value, n = _value(table, res)
        cells.append(Cell(table, variant, delayed, value, THESIS[(table, variant, delayed)], n))
    report = Report(cells=cells, bound=window_bound(bases["7.5"]))
    report.markdown = render_markdown(report)
    report.csv = render_csv(report)
    if out_dir is not None:
        md, text = report.markdown, report.csv
        report.paths = write_files_atomically(
            out_dir,
            {
                "baseline.md": lambda p: Path(p).write_text(md, encoding="utf-8"),
                "baseline.csv": lambda p: Path(p).write_text(text, encoding="utf-8"),
            },
        )
    return report


def render_markdown(report: Report) -> str:
    b = report.bound
    out = [
        "# satcp baseline vs the TCP-ADaLR thesis (ideal lossless channel)",
        "",
        "Cells: satcp (thesis, diff%), diff = (satcp - thesis) / thesis.",
        "",
    ]
    for table, (title, _, scen) in TABLES.items():
        cells = {(c.variant, c.delayed_ack): c for c in report.cells if c.table == table}
        pages = {c.pages for c in cells.values()}
        what = f"`scenarios/{scen}`"
        if table == "7.8":
            what += f", mean over the {'/'.join(str(p) for p in sorted(pages))} pages of the run"
        out += [
            f"## Table {table}: {title}",
            "",
            f"({what})",
            "",
            "| Variant | Delayed ACK enabled | Delayed ACK disabled |",
            "| --- | --- | --- |",
        ]
        for variant, label in VARIANTS:
            row = [cells[(variant, d)].text() for d, _ in DELAYED_ACK]
            out.append(f"| {label} | {' | '.join(row)} |")
        out.append("")
        if table == "7.5":
            out += [
                f"Window-limited prediction: {b.file_bytes:,} B / "
                f"(floor({b.rwnd} / {b.mss}) x {b.mss} = "
                f"{b.window_bytes:,} B per RTT) x RTT {b.rtt_s * 1e3:.1f} ms = "
                f"{b.transfer_s:.1f} s, + ~1 RTT handshake = **{b.total_s:.1f} s**",
                "",
                "RTT = "
                + " + ".join(f"{name} ({v * 1e3:.2f} ms)" for name, v in b.rtt_terms)
                + f" = {b.rtt_s * 1e3:.2f} ms",
                "",
            ]
        notes = [_note(c, b) for c in cells.values() if abs(c.diff_pct) > NOTE_THRESHOLD_PCT]
        if notes:
            out += ["Notes:", ""] + [f"- {n}" for n in notes]
            out += ["", 'See docs/model.md, "Known gaps to the thesis".', ""]
    return "\n".join(out)


def _note(c: Cell, b: WindowBound) -> str:
    label = dict(VARIANTS)[c.variant]
    da = dict(DELAYED_ACK)[c.delayed_ack]
    head = f"{label}, delayed ACK {da}: diff {c.diff_pct:+.1f}%"
    if c.table == "7.5":
        vs_bound = (c.satcp / b.total_s - 1) * 100
        x = (c.thesis / b.total_s - 1) * 100
        follows = "follows" if abs(vs_bound) <= BOUND_FOLLOW_PCT else "departs from"
        side = "slower" if x >= 0 else "faster"
        return (
            f"{head}. satcp ({c.satcp:.1f} s) {follows} the rwnd/RTT bound "
            f"({b.total_s:.1f} s; satcp {vs_bound:+.1f}%), while the thesis's OPNET result "
            f"({c.thesis:g} s) is ~{abs(x):.0f}% {side} than that bound."
        )
    return (
        f"{head}: satcp {c.satcp:.2f} s vs thesis {c.thesis:g} s "
        f"(the thesis is ~{(c.thesis / c.satcp - 1) * 100:.0f}% "
        f"{'slower' if c.thesis > c.satcp else 'faster'})."
    )


def render_csv(report: Report) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(CSV_COLUMNS)
    for c in report.cells:
        metric = TABLES[c.table][1]
        w.writerow(
            [
                c.table,
                c.variant,
                "true" if c.delayed_ack else "false",
                metric,
                "" if math.isnan(c.satcp) else f"{c.satcp:.6f}",
                f"{c.thesis:g}",
                "" if math.isnan(c.satcp) else f"{c.diff_pct:.2f}",
            ]
        )
    return buf.getvalue()

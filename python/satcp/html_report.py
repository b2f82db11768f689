"""``satcp report``: one self-contained static HTML page from the
reproductions, comparisons and sweeps in a folder (``reports/`` by
default, or one such result folder itself).

Per reproduction or comparison: its report (the paper's value beside
satcp's, the claims that hold and those that do not), then every figure
its run wrote that the report does not show, under "All figures", each
with its caption. The figures are taken from the run's list of outputs
(``outputs.json``, :mod:`satcp.manifest`), not from the report's text, so
none is missed and none left over from an earlier run is shown. A folder
written before satcp kept that list shows every PNG in it, with a note
that stale files cannot be told apart. Per sweep: its summary (mean, 95 %
interval and count per point, units scaled) and its plots
(:mod:`satcp.sweep_plot`, drawn for the page).

The header says which satcp built the page (version and commit) and each
section which made its results. Figures are embedded as data URIs, styles
inline, no script: the page opens offline.
"""

from __future__ import annotations

import base64
import contextlib
import csv
import html
import json
import math
import os
import re
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import manifest

__all__ = ["build_report", "write_report"]

#: The report of a folder, first match (a folder without ``outputs.json``).
REPORT_FILES = ("report.md", "ranking.md", "baseline.md")

STYLE = """
body { font-family: system-ui, sans-serif; margin: 0; color: #222; background: #fff; }
header { background: #1d3557; color: #fff; padding: 1em 2em; }
header h1 { margin: 0 0 0.3em 0; font-size: 1.6em; }
header p { margin: 0.2em 0; }
header code { background: #2b4a75; color: #fff; padding: 0 0.3em; border-radius: 3px; }
nav { padding: 0.5em 2em; background: #f1f4f8; border-bottom: 1px solid #ccd; }
nav a { margin-right: 1.2em; color: #1d3557; }
main { padding: 1em 2em; max-width: 1200px; }
section.part { border-top: 2px solid #1d3557; margin-top: 2em; }
p.made { color: #555; font-size: 0.9em; }
div.wide { overflow-x: auto; max-width: 100%; }
table { border-collapse: collapse; margin: 0.6em 0; font-size: 0.88em; }
th, td { border: 1px solid #ccd; padding: 0.25em 0.5em; text-align: left; vertical-align: top; }
th { background: #eef1f6; }
td.num { text-align: right; white-space: nowrap; }
td.yes { background: #e3f4e1; } td.no { background: #fbe3e1; } td.partly { background: #fdf3d7; }
img { max-width: 100%; border: 1px solid #eee; margin: 0.5em 0; }
figure { margin: 1em 0; } figcaption { font-size: 0.9em; color: #333; }
code, pre { background: #f6f8fa; color: #222; } pre { padding: 0.6em; overflow-x: auto; }
.summary td:nth-child(n+3) { text-align: right; }
.note { background: #fdf3d7; padding: 0.4em 0.8em; }
"""


@dataclass
class Part:
    """A section of the page: one reproduction, comparison or sweep."""

    name: str  # its anchor
    title: str
    kind: str  # "reproduction", "compare", "sweep"
    body: str
    claims: dict[str, int] | None = None  # held, partly, failed, total
    figures: int = 0  # figures shown
    made_by: str = ""  # "satcp 0.1.0, commit abc..." or ""
    images: list[str] = field(default_factory=list)  # the files embedded


# --- numbers ---------------------------------------------------------------------------


def _number(v: float, digits: int = 4) -> str:
    """A float rounded for reading: thousands with separators and no
    decimals from 1,000 on, else ``digits`` significant digits."""
    if math.isnan(v):
        return "n/a"
    if math.isinf(v) or v == 0:
        return str(v) if v else "0"
    if abs(v) >= 1000:
        return f"{v:,.0f}"
    return f"{v:.{max(0, digits - 1 - math.floor(math.log10(abs(v))))}f}"


_LONG_FLOAT = re.compile(r"^(-?\d+\.\d{5,})$")


def _round_cells(text: str) -> str:
    """Table cells holding nothing but a float with five decimals or more,
    rounded (:func:`_number`) and aligned right."""

    def repl(m: re.Match[str]) -> str:
        inner = m.group(2).strip()
        if _LONG_FLOAT.match(inner):
            return f'<td{m.group(1)} class="num">{_number(float(inner))}</td>'
        return m.group(0)

    return re.sub(r"<td([^>]*)>([^<]*)</td>", repl, text)


#: How a sweep's metric columns are shown: (name, unit, scale) by the
#: column's suffix; rates and sizes scaled to the largest value.
def _unit(metric: str, values: Sequence[float]) -> tuple[str, float]:
    big = max((abs(v) for v in values if not math.isnan(v)), default=0.0)
    if metric.endswith("_bps"):
        for unit, scale in (("Gb/s", 1e9), ("Mb/s", 1e6), ("kb/s", 1e3)):
            if big >= scale:
                return unit, scale
        return "b/s", 1.0
    if metric.endswith("_bytes"):
        for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
            if big >= scale:
                return unit, scale
        return "B", 1.0
    if metric.endswith("_s"):
        return ("ms", 1e-3) if 0 < big < 1 else ("s", 1.0)
    if metric.endswith("_pct"):
        return "%", 1.0
    return "", 1.0


def _metric_label(metric: str) -> str:
    for suffix in ("_bps", "_bytes", "_s", "_pct"):
        if metric.endswith(suffix):
            metric = metric[: -len(suffix)]
            break
    return metric.replace("_", " ")


# --- figures ---------------------------------------------------------------------------


def _data_uri(p: Path) -> str:
    return "data:image/png;base64," + base64.b64encode(p.read_bytes()).decode("ascii")


def _img(folder: Path, name: str, rel: str, alt: str) -> str:
    return (
        f'<img src="{_data_uri(folder / rel)}" alt="{html.escape(alt)}" '
        f'data-file="{html.escape(name + "/" + rel)}">'
    )


def _embed_report_images(
    text: str, folder: Path, name: str, allowed: set[str] | None
) -> tuple[str, list[str]]:
    """The report's own ``<img>`` tags embedded; a file this run did not
    write (``allowed``: the run's files; None: any that exists) becomes a
    note instead of a broken image. Returns the HTML and the files shown."""
    shown: list[str] = []

    def repl(m: re.Match[str]) -> str:
        tag = m.group(0)
        src = re.search(r'src="([^"]+)"', tag)
        if src is None or src.group(1).startswith("data:"):
            return tag
        rel = html.unescape(src.group(1))
        alt = re.search(r'alt="([^"]*)"', tag)
        ok = (folder / rel).is_file() and (allowed is None or rel in allowed)
        if not ok:
            return f'<span class="note">(figure {html.escape(rel)}: not written by this run)</span>'
        shown.append(rel)
        return _img(folder, name, rel, html.unescape(alt.group(1)) if alt else rel)

    return re.sub(r"<img [^>]*>", repl, text), shown


def _figure(folder: Path, name: str, rel: str, caption: str) -> str:
    return (
        f"<figure>{_img(folder, name, rel, caption)}"
        f"<figcaption>{html.escape(caption)} <code>{html.escape(rel)}</code></figcaption>"
        "</figure>"
    )


def _all_figures(
    folder: Path, name: str, figures: Sequence[manifest.Figure], shown: Sequence[str]
) -> tuple[str, list[str]]:
    """The "All figures" section: the run's figures the report does not
    show, by part, each with its caption."""
    rest = [f for f in figures if f.file not in shown and (folder / f.file).is_file()]
    if not rest:
        return "", []
    out = [
        f'<h2 id="{html.escape(name)}-figures">All figures</h2>',
        f"<p>The {len(rest)} figures of this run that the report above does not show.</p>",
    ]
    part = None
    for f in rest:
        if f.part != part and f.part:
            part = f.part
            out.append(f"<h3>{html.escape(part)}</h3>")
        out.append(_figure(folder, name, f.file, f.caption))
    return "".join(out), [f.file for f in rest]


# --- the parts -------------------------------------------------------------------------


def _markdown(text: str) -> str:
    import markdown

    body = markdown.markdown(text, extensions=["tables", "fenced_code"])
    body = re.sub(r"<table>", '<div class="wide"><table>', body)
    return _round_cells(body.replace("</table>", "</table></div>"))


def _claims_from_csvs(folder: Path) -> dict[str, int]:
    """Claims that hold, hold in part and do not, from the folder's claims
    CSVs (a folder without ``outputs.json``: a ``reproduced`` yes/no
    column, or a ``verdict`` text)."""
    held = failed = partly = 0
    for p in sorted(folder.glob("*claims*.csv")):
        with p.open(encoding="utf-8") as f:
            for row in csv.DictReader(f):
                v = (row.get("reproduced") or row.get("verdict") or "").strip().lower()
                if v in ("yes", "true", "1") or (v.startswith("holds") and "except" not in v):
                    held += 1
                elif v.startswith("direction") or v.startswith("holds except"):
                    partly += 1
                elif v in ("no", "false", "0") or v.startswith("does not hold"):
                    failed += 1
    return {"held": held, "partly": partly, "failed": failed, "total": held + partly + failed}


def _title(text: str, default: str) -> str:
    m = re.search(r"^#\s+(.+)$", text, re.MULTILINE)
    return m.group(1).strip() if m else default


def _made_by(version: Any, commit: Any) -> str:
    if not version and not commit:
        return ""
    return f"satcp {version or '?'}, commit {commit or 'unknown'}"


def _result_part(folder: Path, name: str, doc: dict[str, Any]) -> Part:
    """A reproduction or comparison with its list of outputs."""
    files = set(doc.get("files") or [])
    report = folder / str(doc.get("report") or "report.md")
    text = report.read_text(encoding="utf-8") if report.is_file() else ""
    body, shown = _embed_report_images(_markdown(text), folder, name, files)
    figures = [
        manifest.Figure(str(f.get("file", "")), str(f.get("caption", "")), str(f.get("part", "")))
        for f in doc["figures"]
        if isinstance(f, dict)
    ]
    figures = [f for f in figures if f.file in files]  # this run's files only
    extra, rest = _all_figures(folder, name, figures, shown)
    made = _made_by(doc.get("satcp_version"), doc.get("commit"))
    return Part(
        name,
        str(doc.get("title") or _title(text, name)),
        str(doc.get("kind") or "reproduction"),
        f'<p class="made">Made by {html.escape(made)}.</p>{body}{extra}',
        doc.get("claims") if isinstance(doc.get("claims"), dict) else None,
        len(shown) + len(rest),
        made,
        [*shown, *rest],
    )


def _legacy_part(folder: Path, name: str, report: Path) -> Part:
    """A result folder written before satcp listed its outputs: its
    report, then every other PNG in the folder."""
    text = report.read_text(encoding="utf-8")
    body, shown = _embed_report_images(_markdown(text), folder, name, None)
    pngs = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*.png"))
    figures = [manifest.Figure(p, manifest.caption_of(None, p)) for p in pngs]
    extra, rest = _all_figures(folder, name, figures, shown)
    note = (
        '<p class="note">This folder has no list of its outputs (<code>outputs.json</code>, '
        "which newer satcp runs write): its figures below are every PNG in it, which may "
        "include files of earlier runs. Rerun it to show only its own.</p>"
    )
    kind = "compare" if report.name == "ranking.md" else "reproduction"
    claims = _claims_from_csvs(folder) if kind == "reproduction" else None
    return Part(
        name,
        _title(text, name),
        kind,
        note + body + extra,
        claims,
        len(shown) + len(rest),
        "",
        [*shown, *rest],
    )


def _sweep_part(folder: Path, name: str) -> Part:
    """A sweep: its provenance, its summary per point (mean ± 95 % interval
    and the count of values per metric, units scaled, floats rounded) and
    its plots, drawn for the page."""
    from .sweep_plot import _summary_path, plot_sweep

    path = _summary_path(folder)
    assert path is not None
    import pandas as pd

    summary = pd.read_parquet(path) if path.suffix == ".parquet" else pd.read_csv(path)
    cols = list(summary.columns)
    axes = cols[: cols.index("runs")] if "runs" in cols else []
    metrics = [c[: -len("_mean")] for c in cols if c.endswith("_mean")]
    prov: dict[str, Any] = {}
    with contextlib.suppress(OSError, ValueError):
        prov = json.loads((folder / "tables" / "provenance.json").read_text(encoding="utf-8"))
    made = _made_by(prov.get("satcp_version"), prov.get("commit"))
    units = {m: _unit(m, [float(v) for v in summary[f"{m}_mean"].dropna()]) for m in metrics}
    head = [*axes, "runs", "unfinished runs"] + [
        f"{_metric_label(m)}{f' ({units[m][0]})' if units[m][0] else ''}" for m in metrics
    ]
    rows = []
    for _, r in summary.iterrows():
        cells = [f"<td>{html.escape(str(r[a]))}</td>" for a in axes]
        cells += [f'<td class="num">{int(r["runs"])}</td>' if "runs" in cols else "<td></td>"]
        unfinished = int(r.get("unfinished_runs", 0) or 0)
        cells.append(f'<td class="num{" no" if unfinished else ""}">{unfinished}</td>')
        for m in metrics:
            scale = units[m][1]
            mean, ci = float(r[f"{m}_mean"]), float(r.get(f"{m}_ci95", math.nan))
            n = r.get(f"{m}_n")
            if math.isnan(mean):
                cells.append('<td class="num">n/a</td>')
                continue
            text = _number(mean / scale)
            if not math.isnan(ci):
                text += f" ± {_number(ci / scale, 2)}"
            if n is not None and not (isinstance(n, float) and math.isnan(n)):
                text += f" (n = {int(n)})"
            cells.append(f'<td class="num">{html.escape(text)}</td>')
        rows.append("<tr>" + "".join(cells) + "</tr>")
    table = (
        '<div class="wide"><table><tr>'
        + "".join(f"<th>{html.escape(h)}</th>" for h in head)
        + "</tr>"
        + "".join(rows)
        + "</table></div>"
    )
    figures: list[str] = []
    shown: list[str] = []
    with tempfile.TemporaryDirectory() as tmp, manifest.recording() as drawn:
        with contextlib.suppress(ValueError):  # an empty summary: no plots
            plot_sweep(folder, tmp)
        for f in drawn:
            p = Path(f.file)
            rel = "plots/" + p.name
            figures.append(
                f'<figure><img src="{_data_uri(p)}" alt="{html.escape(f.caption)}" '
                f'data-file="{html.escape(name + "/" + rel)}">'
                f"<figcaption>{html.escape(f.caption)}</figcaption></figure>"
            )
            shown.append(rel)
    seeds = prov.get("seeds")
    intro = (
        f'<p class="made">Made by {html.escape(made or "an unknown satcp")}.</p>'
        f"<p>{len(summary)} points over {html.escape(', '.join(axes) or 'no axis')}"
        f"{f'; seeds {html.escape(str(seeds))}' if seeds else ''}. Per point and metric: the "
        "mean over the runs that have a value, its 95 % interval and the number of values "
        "(n); a point with unfinished runs is marked in red.</p>"
    )
    body = f"<h1>Sweep {html.escape(folder.name)}</h1>{intro}{table}"
    if figures:
        body += f"<h2>Plots</h2>{''.join(figures)}"
    return Part(name, f"Sweep {folder.name}", "sweep", body, None, len(figures), made, shown)


def _part(d: Path, name: str) -> Part | None:
    from .sweep_plot import is_sweep_dir

    doc = manifest.read_manifest(d)
    if doc is not None:
        return _result_part(d, name, doc)
    report = next((d / f for f in REPORT_FILES if (d / f).is_file()), None)
    if report is not None:
        return _legacy_part(d, name, report)
    if is_sweep_dir(d):
        return _sweep_part(d, name)
    return None


def build_report(folder: str | os.PathLike[str]) -> str:
    """The HTML page for every reproduction, comparison and sweep found in
    ``folder`` (one level of subfolders, in name order), or for ``folder``
    itself when it is one."""
    from . import __version__, provenance

    root = Path(folder)
    if not root.is_dir():
        raise FileNotFoundError(f"{root}: not a folder")
    parts: list[Part] = []
    own = _part(root, root.resolve().name or "result")
    if own is not None:
        parts.append(own)
    else:
        for d in sorted(p for p in root.iterdir() if p.is_dir()):
            p = _part(d, d.name)
            if p is not None:
                parts.append(p)
    if not parts:
        raise ValueError(f"{root}: no reproduction, comparison or sweep found")
    nav = " ".join(f'<a href="#{html.escape(p.name)}">{html.escape(p.name)}</a>' for p in parts)
    summary_rows = "".join(_summary_row(p) for p in parts)
    sections = "".join(
        f'<section class="part" id="{html.escape(p.name)}">{p.body}</section>' for p in parts
    )
    made = _made_by_line(parts)
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>satcp report</title><style>{STYLE}</style></head><body>"
        "<header><h1>satcp: the papers' results beside satcp's</h1>"
        f'<p id="built-by">Page built by satcp {html.escape(__version__)}, commit '
        f"<code>{html.escape(provenance.commit())}</code>, from the folder "
        f"<code>{html.escape(str(root))}</code>.</p>"
        f'<p id="made-by">Results made by: {made}.</p></header>'
        f"<nav>{nav}</nav><main>"
        '<h2>Summary</h2><div class="wide"><table class="summary"><tr><th>result</th>'
        "<th>kind</th><th>claims that hold</th><th>hold in part</th>"
        "<th>do not hold</th><th>claims</th><th>figures</th></tr>"
        f"{summary_rows}</table></div>{sections}</main></body></html>\n"
    )


def _made_by_line(parts: Sequence[Part]) -> str:
    """Which satcp made which results: one entry per version and commit,
    naming its results (all of them when one made everything)."""
    by: dict[str, list[str]] = {}
    for p in parts:
        by.setdefault(p.made_by or "not recorded (written before satcp recorded it)", []).append(
            p.name
        )
    if len(by) == 1:
        return html.escape(next(iter(by))) + " (all)"
    return "; ".join(
        f"{html.escape(m)} ({html.escape(', '.join(names))})" for m, names in by.items()
    )


def _summary_row(p: Part) -> str:
    c = p.claims
    if c and c.get("total"):
        counts = (
            f'<td class="yes">{c.get("held", 0)}</td><td class="partly">{c.get("partly", 0)}</td>'
            f'<td class="no">{c.get("failed", 0)}</td><td>{c.get("total", 0)}</td>'
        )
    else:
        counts = "<td></td><td></td><td></td><td>none</td>"
    return (
        f'<tr><td><a href="#{html.escape(p.name)}">{html.escape(p.title)}</a></td>'
        f"<td>{p.kind}</td>{counts}<td>{p.figures}</td></tr>"
    )


def write_report(folder: str | os.PathLike[str], out: str | os.PathLike[str]) -> Path:
    """Builds the page and writes it atomically to ``out``."""
    page = build_report(folder)
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=out.parent, prefix=".tmp-report-")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(page)
    os.chmod(tmp, 0o644)
    os.replace(tmp, out)
    return out

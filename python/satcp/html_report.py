"""``satcp report``: one self-contained static HTML page from the
reproductions, comparisons and sweeps in a folder (``reports/`` by
default): per reproduction its report (the paper's value beside satcp's,
the figures, the claims that hold and those that do not), the comparison
rankings, the sweeps' summary tables, and satcp's version. Figures are
embedded as data URIs, styles inline, no script: the page opens offline.
"""

from __future__ import annotations

import base64
import csv
import html
import os
import re
from dataclasses import dataclass
from pathlib import Path

__all__ = ["build_report", "write_report"]

#: The report of a folder, first match.
REPORT_FILES = ("report.md", "ranking.md", "baseline.md")

STYLE = """
body { font-family: system-ui, sans-serif; margin: 0; color: #222; }
header { background: #1d3557; color: white; padding: 1em 2em; }
header h1 { margin: 0; font-size: 1.6em; }
nav { padding: 0.5em 2em; background: #f1f4f8; border-bottom: 1px solid #ccd; }
nav a { margin-right: 1.2em; color: #1d3557; }
main { padding: 1em 2em; max-width: 1200px; }
section.part { border-top: 2px solid #1d3557; margin-top: 2em; }
table { border-collapse: collapse; margin: 0.6em 0; font-size: 0.88em; }
th, td { border: 1px solid #ccd; padding: 0.25em 0.5em; text-align: left; vertical-align: top; }
th { background: #eef1f6; }
td.yes { background: #e3f4e1; } td.no { background: #fbe3e1; }
img { max-width: 100%; border: 1px solid #eee; margin: 0.5em 0; }
code, pre { background: #f6f8fa; } pre { padding: 0.6em; overflow-x: auto; }
.summary td:nth-child(n+2) { text-align: right; }
"""


@dataclass
class Part:
    name: str
    title: str
    body: str
    held: int
    failed: int
    partly: int = 0


def _claims(folder: Path) -> tuple[int, int, int]:
    """Claims that hold, that do not, and that hold in direction only,
    from the folder's claims CSVs (a ``reproduced`` yes/no column, or a
    ``verdict`` text: "holds...", "does not hold...", "direction holds,
    magnitude differs")."""
    held = failed = partly = 0
    for p in sorted(folder.glob("*claims*.csv")):
        with p.open(encoding="utf-8") as f:
            for row in csv.DictReader(f):
                v = (row.get("reproduced") or row.get("verdict") or "").strip().lower()
                if v in ("yes", "true", "1") or v.startswith("holds"):
                    held += 1
                elif v in ("no", "false", "0") or v.startswith("does not hold"):
                    failed += 1
                elif v.startswith("direction holds"):
                    partly += 1
    return held, failed, partly


def _embed_images(text: str, folder: Path) -> str:
    def repl(m: re.Match[str]) -> str:
        src = html.unescape(m.group(1))
        p = folder / src
        if src.startswith("data:") or not p.is_file():
            return m.group(0)
        data = base64.b64encode(p.read_bytes()).decode("ascii")
        return f'src="data:image/png;base64,{data}"'

    return re.sub(r'src="([^"]+)"', repl, text)


def _markdown(text: str) -> str:
    import markdown

    return markdown.markdown(text, extensions=["tables", "fenced_code"])


def _sweep_part(folder: Path) -> Part | None:
    summary = folder / "tables" / "summary.csv"
    if not summary.is_file():
        return None
    with summary.open(encoding="utf-8") as f:
        rows = list(csv.reader(f))
    head = "".join(f"<th>{html.escape(c)}</th>" for c in rows[0])
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in r) + "</tr>" for r in rows[1:]
    )
    table = f"<table><tr>{head}</tr>{body}</table>"
    return Part(
        folder.name,
        f"Sweep {folder.name}",
        f"<p>Per point: mean and 95 % interval over seeds.</p>{table}",
        0,
        0,
    )


def build_report(folder: str | os.PathLike[str]) -> str:
    """The HTML page for every reproduction, comparison and sweep found in
    ``folder`` (one level of subfolders, in name order)."""
    from . import __version__

    root = Path(folder)
    if not root.is_dir():
        raise FileNotFoundError(f"{root}: not a folder")
    parts: list[Part] = []
    for d in sorted(p for p in root.iterdir() if p.is_dir()):
        md = next((d / f for f in REPORT_FILES if (d / f).is_file()), None)
        if md is None:
            sweep = _sweep_part(d)
            if sweep is not None:
                parts.append(sweep)
            continue
        text = md.read_text(encoding="utf-8")
        m = re.search(r"^#\s+(.+)$", text, re.MULTILINE)
        title = m.group(1).strip() if m else d.name
        held, failed, partly = _claims(d)
        body = _embed_images(_markdown(text), d)
        parts.append(Part(d.name, title, body, held, failed, partly))
    if not parts:
        raise ValueError(f"{root}: no reproduction, comparison or sweep found")
    nav = " ".join(f'<a href="#{p.name}">{html.escape(p.name)}</a>' for p in parts)
    summary_rows = "".join(
        f'<tr><td><a href="#{p.name}">{html.escape(p.title)}</a></td>'
        f'<td class="yes">{p.held}</td><td class="no">{p.failed}</td><td>{p.partly}</td></tr>'
        for p in parts
    )
    sections = "".join(f'<section class="part" id="{p.name}">{p.body}</section>' for p in parts)
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>satcp report</title><style>{STYLE}</style></head><body>"
        f"<header><h1>satcp: the papers' results beside satcp's</h1>"
        f"<p>satcp {html.escape(__version__)} &middot; built from "
        f"<code>{html.escape(root.name)}/</code></p></header>"
        f"<nav>{nav}</nav><main>"
        '<h2>Summary</h2><table class="summary"><tr><th>report</th>'
        "<th>claims that hold</th><th>claims that do not</th>"
        "<th>direction only</th></tr>"
        f"{summary_rows}</table>{sections}</main></body></html>\n"
    )


def write_report(folder: str | os.PathLike[str], out: str | os.PathLike[str]) -> Path:
    """Builds the page and writes it atomically to ``out``."""
    import tempfile

    page = build_report(folder)
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=out.parent, prefix=".tmp-report-")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(page)
    os.chmod(tmp, 0o644)
    os.replace(tmp, out)
    return out

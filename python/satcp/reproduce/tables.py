"""Markdown tables, CSV files and percentage differences of the
reproductions (``satcp reproduce adalr``, ``satcp reproduce peach``)."""

from __future__ import annotations

import csv
import io
import math
import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

__all__ = ["csv_text", "diff_pct", "is_nan", "markdown_table", "write_csv", "write_text"]


def is_nan(v: Any) -> bool:
    """None or a float NaN: a number that is missing."""
    return v is None or (isinstance(v, float) and math.isnan(v))


def diff_pct(value: float, reference: float) -> float:
    """(value - reference) / reference x 100 (NaN when either is missing)."""
    if value is None or reference is None or not reference or is_nan(value) or is_nan(reference):
        return math.nan
    return (value - reference) / reference * 100.0


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


def csv_text(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    """A CSV file's text: the header, then the rows ("\\n" line ends)."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(header)
    w.writerows(rows)
    return buf.getvalue()


def write_text(path: str | os.PathLike[str], text: str) -> Path:
    """Writes ``text`` (UTF-8), creating the parent directories."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text, encoding="utf-8")
    return p


def write_csv(
    path: str | os.PathLike[str],
    columns: Sequence[str],
    rows: Iterable[Mapping[str, Any]],
    header: Sequence[str] | None = None,
) -> Path:
    """A CSV file of ``columns`` from dict rows (missing keys empty): floats
    with 6 significant digits (NaN empty), booleans as true/false, None
    empty; ``header``: the names on the first line, when they are not the
    columns'."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    with p.open("w", encoding="utf-8", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(columns if header is None else header)
        for r in rows:
            w.writerow([_csv_value(r.get(k, "")) for k in columns])
    return p


def _csv_value(v: Any) -> Any:
    if v is None:
        return ""
    if isinstance(v, float):
        return "" if math.isnan(v) else f"{v:.6g}"
    if isinstance(v, bool):
        return "true" if v else "false"
    return v

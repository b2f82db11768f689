"""``satcp reproduce adalr``: the TCP-ADaLR thesis experiments.

The thesis (M. Omueti, TCP with adaptive delay and loss response, SFU;
shared/papers/000_...) and its OPNET paper (shared/papers/003_...) are
reproduced in parts, each a module of this package with

    reproduce(out: pathlib.Path, workers: int | None, quick: bool) -> str

that writes its CSV/PNG files into ``out`` and returns a Markdown section:

- :mod:`.adalr_ideal`: Table 5.1, Tables 7.5-7.8, Figs. 7.4-7.19;
- :mod:`.adalr_congestion`: Tables 7.9-7.10, Figs. 7.20-7.27;
- ``adalr_lossy``: error losses only, congestion and error losses;
- ``adalr_fairness``: fairness and friendliness.

A part whose module does not exist (yet) gets a line saying so. Everything,
``report.md`` included, is written into a temporary directory and then moved
into the output directory (:func:`satcp._fsutil.fill_dir_atomically`): a
failing part leaves the output directory as it was.
"""

from __future__ import annotations

import importlib
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

from .._fsutil import fill_dir_atomically
from .common import CLAIMS_BEGIN, CLAIMS_END

DEFAULT_OUT = os.path.join("reports", "adalr")
REPORT = "report.md"

#: (module in satcp.reproduce, what it covers)
PARTS: tuple[tuple[str, str], ...] = (
    ("adalr_ideal", "Ideal channel: Table 5.1, Tables 7.5-7.8, Figs. 7.4-7.19"),
    ("adalr_congestion", "Congestion losses only: Tables 7.9-7.10, Figs. 7.20-7.27"),
    ("adalr_lossy", "Error losses only, and congestion with error losses (Secs. 7.5.3-7.5.4)"),
    ("adalr_fairness", "Fairness and friendliness (Sec. 7.5.5)"),
)


@dataclass
class Section:
    module: str
    covers: str
    markdown: str | None  # None: the part is not available
    seconds: float = 0.0


@dataclass
class Report:
    markdown: str
    sections: list[Section]
    paths: list[str] = field(default_factory=list)
    seconds: float = 0.0


def load_part(name: str) -> ModuleType | None:
    """The part's module, or None if it does not exist or has no
    ``reproduce``. Errors inside an existing module propagate."""
    full = f"{__package__}.{name}"
    try:
        mod = importlib.import_module(full)
    except ModuleNotFoundError as e:
        if e.name == full:
            return None
        raise
    return mod if callable(getattr(mod, "reproduce", None)) else None


def reproduce(
    out_dir: str | os.PathLike[str] = DEFAULT_OUT,
    workers: int | None = None,
    quick: bool = False,
    parts: Sequence[tuple[str, str]] = PARTS,
) -> Report:
    """Runs every available part and writes their files and ``report.md``
    into ``out_dir``, all or nothing."""
    t0 = time.perf_counter()

    def fill(tmp: str) -> tuple[list[Section], str]:
        sections = []
        for name, covers in parts:
            mod = load_part(name)
            if mod is None:
                sections.append(Section(name, covers, None))
                continue
            t = time.perf_counter()
            md = mod.reproduce(Path(tmp), workers, quick)
            sections.append(Section(name, covers, md, time.perf_counter() - t))
        text = render(sections, quick)
        Path(tmp, REPORT).write_text(text, encoding="utf-8")
        return sections, text

    (sections, text), paths = fill_dir_atomically(out_dir, fill)
    return Report(text, sections, paths, time.perf_counter() - t0)


def _claims_block(markdown: str) -> list[str]:
    """The lines a section put between CLAIMS_BEGIN and CLAIMS_END."""
    lines = markdown.splitlines()
    out: list[str] = []
    inside = False
    for line in lines:
        if line.strip() == CLAIMS_BEGIN:
            inside = True
        elif line.strip() == CLAIMS_END:
            inside = False
        elif inside and line.strip():
            out.append(line)
    return out


def _heading(markdown: str) -> str:
    for line in markdown.splitlines():
        if line.startswith("#"):
            return line.lstrip("#").strip()
    return ""


def render(sections: Sequence[Section], quick: bool) -> str:
    md = [
        "# satcp vs the TCP-ADaLR thesis",
        "",
        "M. Omueti, TCP with adaptive delay and loss response (TCP-ADaLR) for broadband GEO "
        "satellite networks, M.A.Sc. thesis, Simon Fraser University (shared/papers/000_...), "
        "Chapters 5 and 7, and its OPNET paper (shared/papers/003_...). Every number below is "
        "computed by satcp from scratch beside the thesis's value; where they differ by more "
        "than 15% the section says why. The thesis's readings that satcp had to choose are in "
        "docs/adalr.md and docs/model.md.",
        "",
        "## How to rerun",
        "",
        "```sh",
        "make setup && . .venv/bin/activate",
        "satcp reproduce adalr --out reports/adalr        # everything (--workers N: threads)",
        "satcp reproduce adalr --quick --out /tmp/adalr   # reduced set, for tests",
        "```",
        "",
        "Each table is also a CSV file (experiment, variant, delayed_ack, parameter, metric, "
        "satcp, thesis, diff_pct; diff = (satcp - thesis) / thesis); figures are PNG files "
        "named after the thesis figures (`fig7_NN_...png`).",
        "",
    ]
    if quick:
        md += [
            "**This is a --quick run**: fewer points (RTTs, file sizes) than the full "
            "reproduction; do not quote it.",
            "",
        ]
    md += ["## Summary: thesis claims vs satcp", ""]
    for s in sections:
        if s.markdown is None:
            md += [f"- {s.covers}: this part is not available yet (`{s.module}`).", ""]
            continue
        block = _claims_block(s.markdown)
        md.append(f"**{_heading(s.markdown) or s.covers}**")
        md.append("")
        md += block or ["- see its section below."]
        md.append("")
    for s in sections:
        if s.markdown is None:
            md += [
                f"## {s.covers}",
                "",
                f"Not available yet: the module `satcp.reproduce.{s.module}` does not exist.",
                "",
            ]
        else:
            md += [_without_claims_block(s.markdown).rstrip("\n"), ""]
    return "\n".join(md).rstrip("\n") + "\n"


def _without_claims_block(markdown: str) -> str:
    """The section without its claims block (the summary shows it)."""
    out: list[str] = []
    inside = False
    for line in markdown.splitlines():
        if line.strip() == CLAIMS_BEGIN:
            inside = True
            out.append("(Findings: see the summary at the top.)")
        elif line.strip() == CLAIMS_END:
            inside = False
        elif not inside:
            out.append(line)
    return "\n".join(out)

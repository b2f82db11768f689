"""The list of what a command wrote into its output folder:
``outputs.json`` beside the files (a reproduction, ``satcp compare``).

A folder keeps the files of earlier runs that this run did not write again
(:func:`satcp._fsutil.fill_dir_atomically` leaves other names alone), so
the folder's contents do not say what one run made. The manifest does:
every file the run wrote, each figure with its caption and the part that
drew it, the report's file and title, the claims' count and where the
run comes from (satcp's version and commit). ``satcp report`` builds its
page from it (:mod:`satcp.html_report`): every figure, none left over
from another run.

Figures are recorded as they are saved (:func:`satcp.reproduce.plotstyle.save_png`
calls :func:`record_figure`) while a :func:`recording` block is open.
"""

from __future__ import annotations

import contextlib
import contextvars
import json
import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

__all__ = [
    "MANIFEST",
    "Figure",
    "caption_of",
    "read_manifest",
    "record_figure",
    "recording",
    "write_manifest",
]

#: The manifest's file name.
MANIFEST = "outputs.json"
#: Its format version.
FORMAT = 1


@dataclass(frozen=True)
class Figure:
    """A PNG a run wrote: its path (relative to the output folder once
    written), its caption and the part of the run that drew it."""

    file: str
    caption: str
    part: str = ""


_LOG: contextvars.ContextVar[list[Figure] | None] = contextvars.ContextVar(
    "satcp_figures", default=None
)


@contextlib.contextmanager
def recording() -> Iterator[list[Figure]]:
    """Within the block every figure saved (in this thread) is appended to
    the list it yields."""
    log: list[Figure] = []
    token = _LOG.set(log)
    try:
        yield log
    finally:
        _LOG.reset(token)


def record_figure(path: str | os.PathLike[str], caption: str) -> None:
    """Records a saved figure if a :func:`recording` block is open."""
    log = _LOG.get()
    if log is not None:
        log.append(Figure(os.fspath(path), caption))


def caption_of(fig: Any, path: str | os.PathLike[str]) -> str:
    """A figure's caption: its suptitle, else its axes' titles (one line
    each, joined), else its file name as words (``fig`` None: the file
    name)."""
    sup = getattr(fig, "_suptitle", None)
    text = sup.get_text().strip() if sup is not None else ""
    if not text and fig is not None:
        titles = [ax.get_title().strip() for ax in fig.get_axes()]
        text = " / ".join(t for t in titles if t)
    if not text:
        text = Path(path).stem.replace("_", " ").replace("-", " ")
    return " ".join(text.split())


def write_manifest(
    folder: str | os.PathLike[str],
    *,
    kind: str,
    name: str,
    title: str,
    report: str,
    figures: Sequence[Figure],
    claims: Mapping[str, int] | None = None,
    files: Sequence[str] | None = None,
    quick: bool | None = None,
) -> Path:
    """Writes ``outputs.json`` into ``folder``: ``kind`` ("reproduction",
    "compare"), ``name``, whether it was a reduced (``--quick``) run where
    the command has one, the report's ``title`` and file, the figures
    (paths made relative to ``folder``), the claims' count and every file
    in ``folder`` (default: all of them, found by walking it: call this
    last, on the folder the run filled)."""
    from . import __version__, provenance

    root = Path(folder)
    if files is None:
        files = sorted(
            os.path.relpath(os.path.join(d, f), root)
            for d, _, fs in os.walk(root)
            for f in fs
            if f != MANIFEST
        )
    doc = {
        "format": FORMAT,
        "kind": kind,
        "name": name,
        "title": title,
        "report": report,
        "satcp_version": __version__,
        "commit": provenance.commit(),
        "claims": dict(claims) if claims is not None else None,
        **({} if quick is None else {"quick": quick}),
        "figures": [asdict(_relative(f, root)) for f in figures],
        "files": [*files, MANIFEST],
    }
    p = root / MANIFEST
    p.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
    return p


def _relative(f: Figure, root: Path) -> Figure:
    p = Path(f.file)
    if p.is_absolute():
        with contextlib.suppress(ValueError):  # outside the folder: kept as it is
            p = p.resolve().relative_to(root.resolve())
    return Figure(p.as_posix(), f.caption, f.part)


def read_manifest(folder: str | os.PathLike[str]) -> dict[str, Any] | None:
    """The folder's manifest, or None if it has none (or an unreadable one)."""
    p = Path(folder) / MANIFEST
    try:
        doc = json.loads(p.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return doc if isinstance(doc, dict) and isinstance(doc.get("figures"), list) else None

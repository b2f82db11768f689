"""Running a reproduction's parts and writing its report, all or nothing.

A reproduction (``satcp reproduce adalr``, ``satcp reproduce peach``) is a
package with one module per part, each with

    reproduce(out: pathlib.Path, workers: int | None, quick: bool) -> ...

that writes its CSV/PNG files into ``out``. :func:`run_parts` runs the
available parts in order into a temporary directory, has the report
rendered there and then moves everything into the output directory
(:func:`satcp._fsutil.fill_dir_atomically`): a failing part leaves the
output directory as it was.
"""

from __future__ import annotations

import importlib
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any, Generic, TypeVar

from .._fsutil import fill_dir_atomically

__all__ = ["REPORT", "Done", "load_part", "run_parts"]

#: The report's file name in the output directory.
REPORT = "report.md"

T = TypeVar("T")


def load_part(package: str, name: str) -> ModuleType | None:
    """The module ``package.name``, or None if it does not exist or has no
    ``reproduce``. Errors inside an existing module propagate."""
    full = f"{package}.{name}"
    try:
        mod = importlib.import_module(full)
    except ModuleNotFoundError as e:
        if e.name == full:
            return None
        raise
    return mod if callable(getattr(mod, "reproduce", None)) else None


@dataclass
class Done(Generic[T]):
    """What :func:`run_parts` did: one item per part, the report's text, the
    files written and the time it took."""

    items: list[T]
    markdown: str
    paths: list[str]
    seconds: float


def run_parts(
    out_dir: str | os.PathLike[str],
    parts: Sequence[tuple[str, str]],
    load: Callable[[str], ModuleType | None],
    record: Callable[[str, str, Any, float], T],
    render: Callable[[Path, list[T], float], str],
    workers: int | None,
    quick: bool,
) -> Done[T]:
    """Runs every part ``(module, what it covers)`` that ``load`` finds and
    writes its files and ``report.md`` into ``out_dir``, all or nothing.

    ``record(module, covers, result, seconds)`` makes an item of a part
    (``result`` None: the part is not available); ``render(tmp, items,
    t0)`` returns the report's text (it may write more files into ``tmp``;
    ``t0`` is when the run started, :func:`time.perf_counter`)."""
    t0 = time.perf_counter()

    def fill(tmp: str) -> tuple[list[T], str]:
        items = []
        for name, covers in parts:
            mod = load(name)
            if mod is None:
                items.append(record(name, covers, None, 0.0))
                continue
            t = time.perf_counter()
            result = mod.reproduce(Path(tmp), workers, quick)
            items.append(record(name, covers, result, time.perf_counter() - t))
        text = render(Path(tmp), items, t0)
        Path(tmp, REPORT).write_text(text, encoding="utf-8")
        return items, text

    (items, text), paths = fill_dir_atomically(out_dir, fill)
    return Done(items, text, paths, time.perf_counter() - t0)

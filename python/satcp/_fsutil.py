"""Writing a set of output files all-or-nothing."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")

# name -> function that writes the file at the path it is given
Writers = Mapping[str, Callable[[str], None]]


def text_writer(text: str) -> Callable[[str], None]:
    """A writer (see :data:`Writers`) of ``text``, UTF-8."""
    return lambda path: Path(path).write_text(text, encoding="utf-8")


def write_files_atomically(out_dir: str | os.PathLike[str], writers: Writers) -> list[str]:
    """Writes every file into a temporary sibling directory of ``out_dir``
    first, then moves them into place (:func:`fill_dir_atomically`). If any
    writer fails, nothing in ``out_dir`` changes (and a missing ``out_dir``
    is not created). Files of ``out_dir`` with other names are left alone.
    Returns the final paths, in the order of ``writers``."""

    def fill(tmp: str) -> None:
        for name, write in writers.items():
            write(os.path.join(tmp, name))

    fill_dir_atomically(out_dir, fill)
    out = os.path.abspath(os.fspath(out_dir))
    return [os.path.join(out, n) for n in writers]


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def fill_dir_atomically(
    out_dir: str | os.PathLike[str], fill: Callable[[str], T]
) -> tuple[T, list[str]]:
    """``fill(tmp)`` writes any files (subdirectories allowed) into a
    temporary sibling directory of ``out_dir``; they are then moved into
    ``out_dir``: one rename if it does not exist yet (the whole directory
    appears at once), else file by file with ``os.replace``. If ``fill``
    raises, ``out_dir`` is left as it was (a missing one is not created).
    Files of ``out_dir`` with other names are left alone. Returns ``fill``'s
    result and the final paths, sorted."""
    out = os.path.abspath(os.fspath(out_dir))
    if os.path.exists(out) and not os.path.isdir(out):
        raise NotADirectoryError(20, "exists and is not a directory", out)
    parent = os.path.dirname(out)
    os.makedirs(parent, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix=f".{os.path.basename(out)}.tmp-", dir=parent)
    try:
        result = fill(tmp)
        names = sorted(
            os.path.relpath(os.path.join(d, f), tmp) for d, _, files in os.walk(tmp) for f in files
        )
        if not os.path.exists(out):
            try:
                # One rename: the whole directory appears at once.
                os.chmod(tmp, 0o777 & ~_umask())
                os.rename(tmp, out)
                return result, [os.path.join(out, n) for n in names]
            except OSError:
                # Someone created it meanwhile: fall back to file by file.
                os.makedirs(out, exist_ok=True)
        for name in names:
            dest = os.path.join(out, name)
            os.makedirs(os.path.dirname(dest), exist_ok=True)
            os.replace(os.path.join(tmp, name), dest)
        return result, [os.path.join(out, n) for n in names]
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

"""Writing a set of output files all-or-nothing."""

from __future__ import annotations

import os

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (5 ms)
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import TypeVar

    T = TypeVar("T")

    # name -> function that writes the file at the path it is given
    Writers = Mapping[str, Callable[[str], None]]


def text_writer(text: str) -> Callable[[str], None]:
    """A writer (see :data:`Writers`) of ``text``, UTF-8."""

    def write(path: str) -> None:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)

    return write


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


def _mkdtemp(prefix: str, parent: str) -> str:
    """A new private directory ``parent/prefixXXXXXXXX``: what
    ``tempfile.mkdtemp`` does, without its import time (tempfile imports
    shutil and random, about 10 ms, a tenth of ``satcp run``'s budget)."""
    for _ in range(100):
        path = os.path.join(parent, prefix + os.urandom(6).hex())
        try:
            os.mkdir(path, 0o700)
        except FileExistsError:
            continue
        return path
    raise FileExistsError(17, "no unused temporary directory name", os.path.join(parent, prefix))


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
    tmp = _mkdtemp(f".{os.path.basename(out)}.tmp-", parent)
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
            if os.sep in name:  # a subdirectory's file (a top-level one's is out)
                os.makedirs(os.path.dirname(dest), exist_ok=True)
            os.replace(os.path.join(tmp, name), dest)
        return result, [os.path.join(out, n) for n in names]
    finally:
        if os.path.isdir(tmp):  # not renamed into place: what is left of it
            try:
                os.rmdir(tmp)  # empty once its files were moved
            except OSError:
                import shutil  # only here: not every command needs its import time

                shutil.rmtree(tmp, ignore_errors=True)

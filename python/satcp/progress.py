"""Progress bars of the long commands (``satcp reproduce``, ``satcp sweep``,
long ``satcp run``s): tqdm on stderr, only when stderr is a terminal.

A single run shows the simulated time it has reached
(:func:`watch_sim_time`, read from the core's ``SimClock``), once it has
taken more than a second.

:func:`runs` opens a bar of runs (done, failed, left, time left) for a
block of code; :func:`satcp.run_many` reports every run it starts and
finishes to the bar that is open (:func:`add`, :func:`finished`), so a
reproduction's parts, which build their runs as they go, need no code of
their own for it. Without an open bar the two calls do nothing.
"""

from __future__ import annotations

import contextlib
import math
import os
import sys
import threading

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (5 ms)
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any

__all__ = ["add", "enabled", "finished", "runs", "watch_sim_time"]

_lock = threading.Lock()
_bar: _RunsBar | None = None


def enabled(want: bool = True) -> bool:
    """Whether to show a bar: wanted, stderr a terminal and not under pytest
    (or ``SATCP_PROGRESS=0``)."""
    if not want or os.environ.get("SATCP_PROGRESS", "") == "0":
        return False
    if "PYTEST_CURRENT_TEST" in os.environ:
        return False
    return bool(getattr(sys.stderr, "isatty", lambda: False)())


class _RunsBar:
    """A tqdm bar of runs whose total grows as runs are announced; it keeps
    its own counts (a hidden tqdm bar counts nothing)."""

    def __init__(self, desc: str, total: int, show: bool) -> None:
        self.total = total
        self.done = 0
        self.failed = 0
        self.bar: Any = _NoBar()
        if not show:
            return  # counts only: tqdm's import alone takes longer than many runs
        from tqdm import tqdm

        self.bar = tqdm(
            total=total,
            desc=desc,
            unit="run",
            disable=not show,
            leave=False,
            file=sys.stderr,
            bar_format="{desc}: {n_fmt}/{total_fmt} runs done{postfix} [{elapsed}<{remaining}]",
        )
        self._postfix()

    def _postfix(self) -> None:
        left = max(0, self.total - self.done)
        self.bar.set_postfix_str(f"{self.failed} failed, {left} left", refresh=False)

    def add(self, n: int) -> None:
        self.total += n
        self.bar.total = self.total
        self._postfix()
        self.bar.refresh()

    def finished(self, ok: bool, n: int = 1) -> None:
        self.done += n
        self.failed += 0 if ok else n
        self._postfix()
        self.bar.update(n)

    def describe(self, desc: str) -> None:
        self.bar.set_description_str(desc, refresh=False)

    def close(self) -> None:
        self.bar.close()


class _NoBar:
    """What :class:`_RunsBar` calls of a tqdm bar, doing nothing."""

    total = 0

    def set_postfix_str(self, *args: Any, **kwargs: Any) -> None:
        pass

    refresh = update = set_description_str = close = set_postfix_str


@contextlib.contextmanager
def runs(desc: str, total: int = 0, show: bool | None = None) -> Iterator[_RunsBar]:
    """A bar of runs for the block (``show`` None: :func:`enabled`). Bars do
    not nest: inside an open one, this opens none and reports to it."""
    global _bar
    with _lock:
        outer = _bar is not None
        if not outer:
            _bar = _RunsBar(desc, total, enabled() if show is None else show)
        elif total:
            _bar.add(total)
        bar = _bar
    try:
        yield bar
    finally:
        if not outer:
            with _lock:
                _bar = None
            bar.close()


def add(n: int) -> None:
    """``n`` more runs are to be done (nothing without an open bar)."""
    with _lock:
        if _bar is not None:
            _bar.add(n)


def finished(ok: bool = True, n: int = 1) -> None:
    """``n`` runs finished (``ok`` False: they failed)."""
    if n == 0:
        return
    with _lock:
        if _bar is not None:
            _bar.finished(ok, n)


def watch_sim_time(job: Any, clock: Any, until_s: float | None, show: bool = True) -> None:
    """Shows the simulated seconds ``clock.now_s()`` reaches (of ``until_s``)
    until ``job`` (a thread or a future) is done; the bar appears after one
    second, and tqdm is imported only then (a short run does without it)."""
    if _done_within(job, 1.0):
        return
    from tqdm import tqdm

    total = until_s if until_s is not None and math.isfinite(until_s) else None
    with tqdm(
        total=total,
        desc="simulated",
        unit="s",
        disable=not show,
        leave=False,
        file=sys.stderr,
        bar_format="{desc}: {n:.1f}/{total:.0f} s [{elapsed}<{remaining}]"
        if total
        else "{desc}: {n:.1f} s [{elapsed}]",
    ) as bar:
        if show:
            bar.start_t -= 1.0  # the second waited above
        while not _done_within(job, 0.25):
            bar.n = min(clock.now_s(), total) if total else clock.now_s()
            bar.refresh()


def _done_within(job: Any, timeout: float) -> bool:
    """Waits up to ``timeout`` seconds for a thread or a future to finish."""
    if isinstance(job, threading.Thread):
        job.join(timeout)
        return not job.is_alive()
    from concurrent.futures import wait

    return bool(wait([job], timeout=timeout).done)

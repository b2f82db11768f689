"""A reproduction's runs in one pool of threads, each distinct scenario once.

A reproduction's experiments are read one after another: each experiment's
runs, then its table and figures. Run batch by batch (one
:func:`satcp.run_many` per experiment), a core idles while a batch's last
runs end and while its table and figures are drawn, and a scenario that
two experiments share runs twice. :class:`RunPool` instead queues, before
anything runs, every scenario the reproduction's data files give up front
(:meth:`RunPool.plan`; an experiment whose points read an earlier
experiment's results is not among them and is queued when its turn comes),
so that the runs of the next experiments go on while one experiment's
table and figures are drawn (a few per thread ahead: a result is held
until its experiment reads it, and a reproduction's results together would
take gigabytes); and it keys a run by its resolved scenario's JSON (seed
included) and the results fields its experiment reads (``fields``, None:
all), so that equal scenarios run once and share their result. A run
depends on nothing but that JSON, so the results, and every file made from
them, are those of running each experiment on its own.

:func:`pool` makes the pool that :func:`run_jobs` (the engine's one way of
running scenarios) uses within a ``with`` block; outside one, it runs its
batch with :func:`satcp.run_many`.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from .. import ScenarioError, _core, _validate_all, progress

#: The results fields an experiment reads (``satcp.results.picked_fields``);
#: None: the whole results.
Fields = tuple[str, ...] | None

__all__ = ["RunPool", "pool", "run_jobs"]


#: Planned runs queued ahead of what has been asked for, per thread: enough
#: to keep the threads busy while an experiment's figures are drawn.
AHEAD_PER_THREAD = 8


class RunPool:
    """Runs scenarios in ``workers`` threads (None: one per core), each
    distinct resolved scenario once."""

    def __init__(self, workers: int | None = None) -> None:
        n = max(1, workers or os.cpu_count() or 1)
        self._threads = ThreadPoolExecutor(max_workers=n, thread_name_prefix="satcp")
        self._stop = _core.StopFlag()  # Ctrl-C or an error: stops the runs going on
        # Runs are keyed by (resolved scenario JSON, fields).
        self._runs: dict[_Key, Future] = {}
        self._planned: Counter[_Key] = Counter()  # takes announced by plan(), not yet taken
        self._waiting: dict[_Key, dict[str, Any]] = {}  # planned, not yet queued, in order
        self._ahead: set[_Key] = set()  # planned, queued, not yet asked for
        self._max_ahead = AHEAD_PER_THREAD * n
        self.started = 0  # distinct runs queued (each once)

    def plan(self, runs: Iterable[tuple[Any, Fields]]) -> None:
        """Announces runs (scenario, fields) that :meth:`results` will be
        asked for later, in that order; the first are queued at once. A
        scenario that does not resolve or validate is skipped here: asked
        for, it raises there."""
        for sc, fields in runs:
            try:
                resolved, text = _resolved(sc)
                key = (text, fields)
                if key not in self._runs and key not in self._waiting:
                    _core.validate_json(text, None)
            except ScenarioError:
                continue
            self._planned[key] += 1
            if key not in self._runs:
                self._waiting.setdefault(key, resolved)
        self._queue_ahead()

    def results(self, scenarios: Sequence[Any], fields: Fields = None) -> list[Any]:
        """The scenarios' results, in order (as :func:`satcp.run_many`'s:
        every scenario validated before any of them is queued), cut down to
        ``fields`` (None: whole)."""
        resolved = [_resolved(sc) for sc in scenarios]
        keys = [(text, fields) for _, text in resolved]
        _validate_all(
            [text for text, _ in keys], lambda i: f"scenario {i}", skip={t for t, _ in self._runs}
        )
        futures = [self._queue(sc, key) for (sc, _), key in zip(resolved, keys, strict=True)]
        self._ahead.difference_update(keys)
        self._queue_ahead()
        out = [f.result() for f in futures]
        for key in keys:
            self._taken(key)
        return out

    def close(self, failed: bool = False) -> None:
        """Ends the pool: runs planned but never asked for are dropped;
        ``failed`` (an error or Ctrl-C): the runs going on are stopped."""
        if failed:
            self._stop.set()
        self._threads.shutdown(wait=True, cancel_futures=True)

    def _queue_ahead(self) -> None:
        """Queues the next planned runs, up to the bound ahead."""
        while self._waiting and len(self._ahead) < self._max_ahead:
            key = next(iter(self._waiting))
            self._queue(self._waiting[key], key)
            self._ahead.add(key)

    def _queue(self, sc: dict[str, Any], key: _Key) -> Future:
        from .. import _run_counted

        self._waiting.pop(key, None)
        future = self._runs.get(key)
        if future is None:
            progress.add(1)
            text, fields = key
            future = self._threads.submit(_run_counted, sc, text, self._stop, None, fields)
            self._runs[key] = future
            self.started += 1
        return future

    def _taken(self, key: _Key) -> None:
        """A result was handed out: it is kept while a planned take of it
        is still to come, else let go (the memory of the runs' series)."""
        if self._planned[key] > 0:
            self._planned[key] -= 1
        if self._planned[key] == 0:
            self._runs.pop(key, None)
            del self._planned[key]


def _resolved(sc: Any) -> tuple[dict[str, Any], str]:
    """A scenario resolved as :func:`satcp.run_many` resolves it, and its
    JSON (the run's key: it is what the core runs)."""
    from ..scenario import load, to_json

    resolved = load(sc)
    return resolved, to_json(resolved)


#: A run's key in the pool: its resolved scenario's JSON and its fields.
_Key = tuple[str, Fields]

_current: ContextVar[RunPool | None] = ContextVar("satcp_run_pool", default=None)


@contextmanager
def pool(workers: int | None, planned: Iterable[tuple[Any, Fields]] = ()) -> Iterator[RunPool]:
    """A :class:`RunPool` that :func:`run_jobs` uses within the block, with
    the ``planned`` runs (scenario, fields) queued first."""
    p = RunPool(workers)
    token = _current.set(p)
    failed = True
    try:
        p.plan(planned)
        yield p
        failed = False
    finally:
        _current.reset(token)
        p.close(failed)


def run_jobs(
    scenarios: Sequence[Any], workers: int | None = None, fields: Fields = None
) -> list[Any]:
    """Runs the scenarios in parallel (threads, reported to the progress
    bar): their results in the same order. Inside :func:`pool`'s block
    through its pool (``workers`` is the pool's), cut down to ``fields``,
    else whole with :func:`satcp.run_many`."""
    p = _current.get()
    if p is not None:
        return p.results(scenarios, fields)
    from .. import run_many

    return run_many(scenarios, workers=workers)

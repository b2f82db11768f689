"""Sweeps: a grid of runs (parameters x variants x seeds), on all local
cores or on a Dask ``distributed`` cluster, cached and resumable.

A sweep file (TOML)::

    base = "thesis_ftp.toml"          # the scenario, relative to this file
    seeds = [1, 2, 3]
    [set]                              # fixed overrides
    "apps[0].file_bytes" = 1_000_000
    [axes]                             # every combination of these
    "tcp.variant" = ["sack", "newreno", "cubic"]
    "links[1].ab.errors.ber" = [0.0, 1e-6, 1e-5]
    [metrics]                          # the sweep's own (satcp.sweep_metrics)
    sat_lost = "links.corrupted:sum"

Each run is keyed by a hash of its fully resolved scenario (JSON, keys
sorted) and satcp's version; its summary row is appended to
``OUT/cache/runs.jsonl`` as soon as it finishes (one line per run; a line
cut short by a crash is ignored, and the files ``OUT/cache/<key>.json`` of
earlier versions are still read), so an interrupted sweep resumes without
repeating finished runs, and a worker lost mid-sweep costs only its own
runs (Dask reschedules them). On a cluster, every worker must run the
same satcp (version and commit), checked before anything is written
(:func:`check_workers`). Results: ``runs`` (one row per run: the
axes, the seed, the metrics, and what became of its transfers) and
``summary`` (per point: mean and 95 % interval over seeds, Student t, of
each metric with the number of values averaged, and how many runs left
transfers unfinished), as Parquet and CSV, written atomically, with
``provenance.json`` beside them (satcp's version, the commit, the hashes
of the base scenario and of the whole sweep, the seeds, the platform;
also in each Parquet file's schema metadata, ``satcp_provenance``).

A run's ``response_time_s`` is the mean over the transfers that finished,
``transfers_done`` of them; ``transfers_aborted`` (given up at the
retransmission limit) and ``transfers_unfinished`` (still under way at
the duration, in an application with a set amount of work) count the
others, and ``unfinished_cause`` says why in words. A run with either is
*unfinished*: its point's ``unfinished_runs`` counts it, and ``satcp
sweep`` names the point, because its means are over the runs and
transfers that did finish. ``transfers_ongoing`` counts transfers of
open-ended applications (bulk without ``bytes``, http without ``pages``,
web without ``transfers``) still under way at the end: no failure.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import hashlib
import itertools
import json
import math
import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from ._fsutil import fill_dir_atomically
from .frame_files import Frame, column_dtype
from .scenario import ScenarioError, apply_override, load, parse_path, to_json
from .stats import mean_ci95
from .sweep_metrics import Metric, check_name, function_identity, parse_metrics

__all__ = [
    "METRICS",
    "ClusterError",
    "Job",
    "Sweep",
    "check_workers",
    "load_sweep",
    "run_one",
    "run_sweep",
]

#: The metrics of a run's row, averaged per point in the summary.
METRICS = (
    "response_time_s",
    "transfers_done",
    "goodput_bps",
    "retransmitted_segments",
    "fast_retransmits",
    "timeouts",
    "events",
    "end_time_s",
)


#: The columns of the runs table besides the axes and a sweep's own
#: metrics: a metric may not take one of these names.
ROW_COLUMNS = (
    "seed",
    "run",
    *METRICS,
    "transfers_aborted",
    "transfers_unfinished",
    "transfers_ongoing",
    "unfinished_cause",
)

#: The most runs one sweep file may make (axes' sizes times seeds): the
#: grid is checked before anything is built or run.
MAX_RUNS = 100_000


#: What became of a run's transfers (``TransferRow::outcome`` in the
#: core): the runs table's count column of each outcome.
OUTCOME_COLUMNS = {
    "done": "transfers_done",
    "aborted": "transfers_aborted",
    "unfinished": "transfers_unfinished",
    "ongoing": "transfers_ongoing",
}


@dataclass
class Sweep:
    """A grid: the base scenario, fixed overrides, axes and seeds, and the
    sweep's own metrics (:mod:`satcp.sweep_metrics`): columns of the
    results tables, and Python functions of a run's results."""

    base: dict[str, Any]
    axes: dict[str, list[Any]]
    seeds: list[int]
    fixed: dict[str, Any] = field(default_factory=dict)
    metrics: dict[str, Metric] = field(default_factory=dict)
    functions: dict[str, Callable[[Any], float]] = field(default_factory=dict)

    def metric_names(self) -> list[str]:
        return [*self.metrics, *self.functions]

    def row_spec(self) -> str:
        """The sweep's own metrics, as they enter its runs' cache keys
        ("" without any: the keys of a sweep of the built-in metrics)."""
        parts = [f"{n}={m}" for n, m in sorted(self.metrics.items())]
        parts += [f"{n}={function_identity(f)}" for n, f in sorted(self.functions.items())]
        return "\n".join(parts)

    def count(self) -> int:
        """The number of runs: the axes' sizes times the seeds (without
        building the grid)."""
        return len(self.seeds) * math.prod(len(v) for v in self.axes.values())

    def points(self) -> Iterator[dict[str, Any]]:
        """Every combination of the axes' values, in file order, one at a
        time: the grid is never held in memory."""
        keys = list(self.axes)
        for vals in itertools.product(*self.axes.values()):
            yield dict(zip(keys, vals, strict=True))

    def jobs(self) -> Iterator[Job]:
        """Every run, in the order of :meth:`runs`, as (point, seed, cache
        key, scenario JSON), one point at a time (:meth:`point_jobs`)."""
        for point in self.points():
            yield from self.point_jobs(point)

    def point_jobs(self, point: Mapping[str, Any]) -> list[Job]:
        """The runs of one point, one per seed (:class:`_PointRuns`)."""
        runs = _PointRuns(self, point)
        keys = runs.keys(self.seeds)
        return [
            Job(runs.point, seed, key, runs.text(seed))
            for seed, key in zip(self.seeds, keys, strict=True)
        ]

    def _scenario(self, point: Mapping[str, Any]) -> dict[str, Any]:
        sc = json.loads(json.dumps(self.base))
        for k, v in {**self.fixed, **point}.items():
            apply_override(sc, parse_path(k), v)
        return sc

    def runs(self) -> Iterator[tuple[dict[str, Any], int, dict[str, Any]]]:
        """(point, seed, resolved scenario) for every run, one at a time."""
        for point in self.points():
            for seed in self.seeds:
                sc = self._scenario(point)
                sc["seed"] = seed
                yield (point, seed, sc)


class Job(NamedTuple):
    """One run of a sweep."""

    point: dict[str, Any]
    seed: int
    key: str  # run_key of its scenario
    text: str  # its scenario as JSON for the core


# A seed no sweep uses, written into a point's JSON in place of the seed
# (_PointRuns); its digits are checked to occur nowhere else.
_SEED_MARK = 8_364_179_263_540_915_237


class _PointRuns:
    """The runs of one point: its scenario built, checked and serialized
    once, each seed written into its JSON text and into its cache key's
    text: a sweep of thousands of short runs would otherwise spend more
    time copying and serializing scenarios than simulating them (issue
    33)."""

    def __init__(self, sweep: Sweep, point: Mapping[str, Any]) -> None:
        from . import __version__

        self.point = dict(point)
        sc = sweep._scenario(self.point)
        sc["seed"] = _SEED_MARK
        text = to_json(sc)  # checks the values once per point
        sorted_text = _key_text(sc)
        self._spec = sweep.row_spec()
        mark = str(_SEED_MARK)
        self._sc: dict[str, Any] | None = None
        if text.count(mark) == 1 and sorted_text.count(mark) == 1:
            # The text around the seed; the key is _key's hash of the
            # sorted text with the seed in it.
            self._text = text.split(f'"seed": {mark}')
            head, tail = sorted_text.split(f'"seed":{mark}')
            self._key_text = (
                f'{_key_head(__version__)}{head}"seed":',
                tail + _key_tail(self._spec),
            )
        else:  # the mark's digits occur elsewhere in the scenario
            self._sc = sc

    def keys(self, seeds: Sequence[int]) -> list[str]:
        """The runs' cache keys (:func:`run_key`): the text before the seed
        hashed once, a copy of that hash finishing each."""
        if self._sc is not None:
            keys = []
            for seed in seeds:
                self._sc["seed"] = seed
                keys.append(run_key(self._sc, self._spec))
            return keys
        head, tail = self._key_text
        before, after = hashlib.sha256(head.encode()), tail.encode()
        keys = []
        for seed in seeds:
            h = before.copy()
            h.update(b"%d" % seed + after)  # a seed is a whole number (load_sweep)
            keys.append(h.hexdigest()[:24])
        return keys

    def text(self, seed: int) -> str:
        """The run's scenario as JSON for the core."""
        if self._sc is not None:
            self._sc["seed"] = seed
            return to_json(self._sc)
        before, after = self._text
        return f'{before}"seed": {seed}{after}'  # a whole number's JSON


def load_sweep(path: str | os.PathLike[str]) -> Sweep:
    """Reads a sweep file; errors name the field."""
    from .scenario import read_toml

    try:
        doc = read_toml(os.fspath(path))
    except ScenarioError as e:
        raise ScenarioError(f"invalid sweep: {e}") from None
    unknown = set(doc) - {"base", "seeds", "set", "axes", "metrics"}
    if unknown:
        raise ScenarioError(f"invalid sweep: {sorted(unknown)[0]}: unknown field")
    if not isinstance(doc.get("base"), str):
        raise ScenarioError("invalid sweep: base: missing (the scenario file)")
    base = load(os.path.join(os.path.dirname(os.path.abspath(path)), doc["base"]))
    seeds = doc.get("seeds", [1])
    if not (
        isinstance(seeds, list)
        and seeds
        and all(isinstance(s, int) and not isinstance(s, bool) and 0 <= s < 2**64 for s in seeds)
    ):
        raise ScenarioError(
            f"invalid sweep: seeds: {seeds!r} must be a list of whole numbers >= 0 (below 2**64)"
        )
    if len(set(seeds)) != len(seeds):
        dup = next(s for i, s in enumerate(seeds) if s in seeds[:i])
        raise ScenarioError(f"invalid sweep: seeds: {dup} is listed twice")
    axes = doc.get("axes", {})
    if not isinstance(axes, dict) or not all(isinstance(v, list) and v for v in axes.values()):
        raise ScenarioError("invalid sweep: axes: each axis is a non-empty list of values")
    fixed = doc.get("set", {})
    if not isinstance(fixed, dict):
        raise ScenarioError("invalid sweep: set: must be a table of field = value")
    for k in [*axes, *fixed]:
        if k.strip() == "seed":
            where = "axes" if k in axes else "set"
            raise ScenarioError(
                f"invalid sweep: {where}.seed: the seed is set by seeds = [...], "
                "which would overwrite it: use seeds"
            )
        try:
            parse_path(k)
        except ScenarioError as e:
            raise ScenarioError(f"invalid sweep: axes: {e}") from None
    for k, values in axes.items():
        if k in fixed:
            raise ScenarioError(f"invalid sweep: axes.{k}: also in [set] (one or the other)")
        seen = set()
        for v in values:
            key = json.dumps(v, sort_keys=True)
            if key in seen:
                raise ScenarioError(f"invalid sweep: axes.{k}: {v!r} is listed twice")
            seen.add(key)
    metrics = parse_metrics(doc.get("metrics", {}), [*ROW_COLUMNS, *axes])
    sw = Sweep(base=base, axes=axes, seeds=seeds, fixed=fixed, metrics=metrics)
    n = sw.count()
    if n > MAX_RUNS:
        sizes = " x ".join(str(len(v)) for v in [*axes.values(), seeds])
        raise ScenarioError(
            f"invalid sweep: axes: {sizes} = {n} runs, more than {MAX_RUNS} "
            "(split the sweep into several files)"
        )
    return sw


def run_key(scenario: Mapping[str, Any], row_spec: str = "") -> str:
    """The cache key of a run: its resolved scenario, satcp's version and
    the sweep's own metrics (:meth:`Sweep.row_spec`)."""
    return _key(_key_text(scenario), row_spec)


def _key_text(scenario: Mapping[str, Any]) -> str:
    return json.dumps(scenario, sort_keys=True, separators=(",", ":"))


#: The shape of a run's row: part of its cache key, so that a sweep does
#: not take rows of another shape from an older cache. 3: the cache holds
#: the core's row as it came, with the sweep's own metrics (_cache_text).
ROW_FORMAT = 3


def _key(key_text: str, row_spec: str = "") -> str:
    from . import __version__

    text = f"{_key_head(__version__)}{key_text}{_key_tail(row_spec)}"
    return hashlib.sha256(text.encode()).hexdigest()[:24]


def _key_head(version: str) -> str:
    """What a key's hashed text has before the scenario."""
    return f"{version}\nrow {ROW_FORMAT}\n"


def _key_tail(row_spec: str) -> str:
    """What a key's hashed text has after the scenario."""
    return f"\nmetrics\n{row_spec}" if row_spec else ""


def run_one(
    scenario_json: str,
    stop: Any = None,
    max_memory: float | None = None,
    metrics: Mapping[str, Metric] | None = None,
    functions: Mapping[str, Callable[[Any], float]] | None = None,
) -> dict[str, Any]:
    """Runs one scenario and returns its row (called on workers): the
    built-in metrics, what became of its transfers, then the sweep's own
    metrics. The core computes the built-in part (``RunRow``) and returns
    only the fields the sweep's column metrics read: parsing a short run's
    whole results took longer than the run, with the GIL held (issue 33).
    With ``functions``, the whole results without the time series (a
    :class:`satcp.Results` for each function). ``stop``: a
    ``_core.StopFlag`` that interrupts the run (KeyboardInterrupt);
    ``max_memory``: the run's memory limit in bytes (None: the core's
    default, 2 GB)."""
    from . import _core

    metrics = metrics or {}
    functions = functions or {}
    row_json, rest = _core.run_json_row(
        scenario_json, _fields(metrics), bool(functions), stop, max_memory
    )
    return _row_of(row_json, rest, metrics, functions)


def _fields(metrics: Mapping[str, Metric]) -> list[str]:
    """The fields of a run's results that the sweep's column metrics read."""
    return [f for m in metrics.values() for f in m.fields()]


def _row_of(
    row_json: str,
    rest: str,
    metrics: Mapping[str, Metric],
    functions: Mapping[str, Callable[[Any], float]],
) -> dict[str, Any]:
    """A run's row from what the core returns for it (``run_json_row``):
    the built-in metrics, what became of its transfers, then the sweep's
    own metrics."""
    row = finish_row(json.loads(row_json))
    if metrics or functions:
        r = json.loads(rest)
        for name, m in metrics.items():
            row[name] = m.value(r)
    if functions:
        from .results import Results

        res = Results(r)
        for name, fn in functions.items():
            row[name] = float(fn(res))
    return row


#: A run as ``_core.RowPool.take`` gives it: (id, row, rest, error, seconds).
Taken = tuple[int, str | None, str | None, str | None, float]

#: A run handed to the cache and the tables: its key, its row (None if it
#: failed, or if it is to be made of the cache's JSON), its error, and its
#: row as the cache's JSON if already made.
Finished = tuple[str, dict[str, Any] | None, str | None, str | None]


def _cache_text(row_json: str, row: Mapping[str, Any], names: Sequence[str]) -> str:
    """A run's row in the cache, as JSON: the core's row as it came, then
    the sweep's own metrics ``names`` of ``row`` (:func:`_finished` makes
    the table's row of it). Spares encoding the whole row again (json.dumps
    of each row cost a fifth of the core's time of a one-second run)."""
    if not names:
        return row_json
    head = row_json.rstrip()
    assert head.endswith("}"), "the core's row is a JSON object"
    return f"{head[:-1]}, {json.dumps({name: row[name] for name in names})[1:]}"


def _finished(core_row: Mapping[str, Any]) -> dict[str, Any]:
    """:func:`finish_row`, then the sweep's own metrics the row carries
    (:func:`_cache_text`)."""
    row = finish_row(core_row)
    for k, v in core_row.items():
        if k not in row and k != "first_abort":
            row[k] = v
    return row


def _finished_rows(texts: Mapping[str, str]) -> dict[str, dict[str, Any]]:
    """The rows of runs given as the core's rows (JSON), by key: parsed in
    one pass, the table's rows made of them (:func:`_finished`)."""
    parsed = json.loads(f"[{','.join(texts.values())}]")
    return {key: _finished(core) for key, core in zip(texts, parsed, strict=True)}


def finish_row(core_row: Mapping[str, Any]) -> dict[str, Any]:
    """A run's row from the core's ``RunRow``: its numbers, in the runs
    table's order, and why transfers did not finish, in words."""
    row = {k: core_row[k] for k in ROW_NUMBERS}
    if row["response_time_s"] is None:
        row["response_time_s"] = math.nan
    row["unfinished_cause"] = _unfinished_cause(core_row)
    return row


#: The numbers of a run's row (``RunRow`` in the core), in column order.
ROW_NUMBERS = (
    *METRICS,
    "transfers_aborted",
    "transfers_unfinished",
    "transfers_ongoing",
)


def _unfinished_cause(row: Mapping[str, Any]) -> str:
    """Why transfers of a run did not finish, in words ("" if all did)."""
    parts = []
    aborted = row["transfers_aborted"]
    if aborted:
        first = row["first_abort"]
        parts.append(
            f"{aborted} aborted at the retransmission limit (first: conn {first['conn']}, "
            f"{first['side']} gave up at {first['at_s']:.1f} s after "
            f"{first['timeouts']} timeouts in a row)"
        )
    unfinished = row["transfers_unfinished"]
    if unfinished:
        end = row["end_time_s"]
        parts.append(f"{unfinished} still under way at the duration limit ({end:g} s)")
    return "; ".join(parts)


def is_unfinished(row: Mapping[str, Any]) -> bool:
    """A run left transfers aborted or unfinished (open-ended ones aside)."""
    return row["transfers_aborted"] + row["transfers_unfinished"] > 0


CACHE_LOG = "runs.jsonl"


def _read_cache(cache: Path) -> dict[str, dict[str, Any]]:
    """The rows of the runs done: ``runs.jsonl``, and the one file per run
    (``<key>.json``) that earlier versions wrote."""
    rows: dict[str, dict[str, Any]] = {}
    try:
        names = os.listdir(cache)
    except FileNotFoundError:
        return rows
    for name in names:
        if name.endswith(".json") and not name.startswith("."):
            try:
                with open(cache / name, encoding="utf-8") as f:
                    rows[name[: -len(".json")]] = _cached_row(json.load(f))
            except (OSError, ValueError):
                continue
    if CACHE_LOG in names:
        with open(cache / CACHE_LOG, encoding="utf-8") as f:
            for line in f:
                try:
                    entry = json.loads(line)
                    rows[entry["run"]] = _cached_row(entry["row"])
                except (ValueError, KeyError, TypeError):
                    continue  # a line cut short by a crash
    return rows


def _cached_row(row: dict[str, Any]) -> dict[str, Any]:
    """A row of the cache as the tables take it: the core's row
    (:func:`_cache_text`, which has ``first_abort``) made into the table's
    row; a row finished before it was written (a Dask worker's,
    :func:`run_one`), as it is."""
    return _finished(row) if "first_abort" in row else row


def _open_cache_log(cache: Path):
    """``runs.jsonl`` for appending, a line cut short by a crash ended first."""
    path = cache / CACHE_LOG
    f = open(path, "a", encoding="utf-8")  # noqa: SIM115 (closed by run_sweep)
    if f.tell() > 0:
        with open(path, "rb") as r:
            r.seek(-1, os.SEEK_END)
            if r.read(1) != b"\n":
                f.write("\n")
    return f


@dataclass
class SweepResult:
    """A sweep's tables as rows (what its files hold) and, made when first
    asked for, as pandas data frames; how many runs were computed, taken
    from the cache and failed; the files written."""

    run_rows: list[dict[str, Any]]
    summary_rows: list[dict[str, Any]]
    computed: int
    cached: int
    failed: list[str]
    paths: list[str]
    axes: list[str] = field(default_factory=list)

    @functools.cached_property
    def runs(self) -> Any:
        """The runs table (a pandas DataFrame)."""
        import pandas as pd

        return pd.DataFrame(self.run_rows)

    @functools.cached_property
    def summary(self) -> Any:
        """The summary table (a pandas DataFrame)."""
        import pandas as pd

        return pd.DataFrame(self.summary_rows)

    def unfinished_points(self) -> list[str]:
        """One line per point with unfinished runs: which point, how many
        of its runs, why, and over how many values its response time is
        averaged."""
        lines = []
        for p, (_, runs) in zip(self.summary_rows, _groups(self.run_rows, self.axes), strict=True):
            if p["unfinished_runs"] == 0:
                continue
            why = []
            for col, words in (
                ("transfers_aborted", "aborted at the retransmission limit"),
                ("transfers_unfinished", "still under way at the duration limit"),
            ):
                n = sum(int(r[col]) for r in runs)
                if n:
                    why.append(f"{n} transfer{'s' * (n != 1)} {words}")
            point = ", ".join(f"{a}={p[a]}" for a in self.axes) or "the point"
            n = p["response_time_s_n"]
            mean = (
                f"response_time_s is the mean of {n} run{'s' * (n != 1)}' finished transfers"
                if n
                else "no run has a response time"
            )
            lines.append(
                f"{point}: {p['unfinished_runs']} of {p['runs']} runs unfinished "
                f"({'; '.join(why)}); {mean}"
            )
        return lines


def run_sweep(
    sweep: Sweep,
    out_dir: str | os.PathLike[str],
    *,
    workers: int | None = None,
    scheduler: str | None = None,
    progress: bool = True,
    limit: int | None = None,
    max_memory: float | None = None,
    check: Callable[[int, Job], None] | None = None,
    metrics: Mapping[str, str | Callable[[Any], float]] | None = None,
) -> SweepResult:
    """Runs the runs not yet in ``OUT/cache`` (at most ``limit`` of them,
    for tests), then writes the tables. ``metrics``: more of the sweep's
    own metrics (:mod:`satcp.sweep_metrics`), each "TABLE.COLUMN:AGG" or a
    function of a run's :class:`satcp.Results` returning a number; they
    are columns of the runs table and averaged in the summary, and they
    are part of the runs' cache keys. ``scheduler``: the address of a
    Dask distributed scheduler; None runs on the core's own threads
    (``workers`` of them; default one per core), which never take the
    GIL; the cluster's workers must run the same satcp
    (:func:`check_workers`, before anything is written). ``max_memory``:
    each run's memory limit in bytes (None: the core's default, 2 GB).
    ``check(i, job)``, if given, is called with the first run of each
    point (``i`` its index among the runs) before anything is written or
    run: the CLI validates there.

    The grid is streamed: a first pass over the points notes each run's
    point, seed and cache key (and calls ``check``), a second builds the
    scenarios of the runs not in the cache as the workers take them, so
    that at most a few hundred scenario texts are held at once (the keys
    of the first pass are kept, not hashed again)."""
    out = Path(out_dir)
    if metrics:
        sweep = _with_metrics(sweep, metrics)
    with contextlib.ExitStack() as stack:
        client = None
        if scheduler is not None:
            from distributed import Client

            client = stack.enter_context(Client(scheduler))
            check_workers(client)
        return _run_sweep(sweep, out, workers, client, progress, limit, max_memory, check)


def _with_metrics(sweep: Sweep, metrics: Mapping[str, str | Callable[[Any], float]]) -> Sweep:
    """A copy of ``sweep`` with ``metrics`` added (checked as a sweep
    file's ``[metrics]`` are)."""
    taken = [*ROW_COLUMNS, *sweep.axes, *sweep.metric_names()]
    specs = {n: m for n, m in metrics.items() if not callable(m)}
    functions = {n: m for n, m in metrics.items() if callable(m)}
    parsed = parse_metrics(specs, taken)
    for name in functions:
        check_name(name, [*taken, *parsed])
        taken.append(name)
    return dataclasses.replace(
        sweep,
        metrics={**sweep.metrics, **parsed},
        functions={**sweep.functions, **functions},
    )


def _run_sweep(
    sweep: Sweep,
    out: Path,
    workers: int | None,
    client: Any,
    progress: bool,
    limit: int | None,
    max_memory: float | None,
    check: Callable[[int, Job], None] | None,
) -> SweepResult:
    # The Parquet tables need pyarrow (and pandas's version, for their
    # metadata); its import (a tenth of a second) goes on while the core
    # runs the runs.
    _import_soon("pyarrow.parquet", "importlib.metadata")
    cache = out / "cache"
    have = _read_cache(cache)
    cached_before = set(have)
    index: list[tuple[dict[str, Any], int, str]] = []  # (point, seed, key) of every run
    todo_points: set[int] = set()
    n_missing = 0
    seeds = sweep.seeds
    for p, point in enumerate(sweep.points()):
        runs = _PointRuns(sweep, point)
        keys = runs.keys(seeds)
        if check is not None:
            check(len(index), Job(runs.point, seeds[0], keys[0], runs.text(seeds[0])))
        for seed, key in zip(seeds, keys, strict=True):
            index.append((runs.point, seed, key))
            if key not in cached_before:
                n_missing += 1
                todo_points.add(p)
    n_todo = n_missing if limit is None else min(limit, n_missing)

    def todo() -> Iterator[Job]:
        n = 0
        for p, point in enumerate(sweep.points()):
            if p not in todo_points:
                continue
            runs = _PointRuns(sweep, point)
            for point, seed, key in index[p * len(seeds) : (p + 1) * len(seeds)]:
                if key in cached_before:
                    continue
                if n >= n_todo:
                    return
                n += 1
                yield Job(point, seed, key, runs.text(seed))

    cache.mkdir(parents=True, exist_ok=True)
    failed: list[str] = []
    fresh: dict[str, str] = {}  # the core's row (JSON) of each run computed here

    with _open_cache_log(cache) as log:

        def done(results: Sequence[Finished]) -> None:
            lines = []
            for key, row, err, row_text in results:
                if err is not None:
                    failed.append(f"{key}: {err}")
                    continue
                text = json.dumps(row) if row_text is None else row_text
                lines.append(f'{{"run": "{key}", "row": {text}}}\n')
                if row is None:
                    fresh[key] = text  # made into its row with the others, below
                else:
                    have[key] = row
            log.write("".join(lines))
            log.flush()

        settings = _RunSettings(max_memory, sweep.metrics, sweep.functions)
        _execute(todo(), n_todo, done, workers, client, progress, settings)
    have.update(_finished_rows(fresh))
    runs = [
        {**point, "seed": seed, "run": key, **have[key]}
        for point, seed, key in index
        if key in have
    ]
    summary = summarize(runs, list(sweep.axes), [*METRICS, *sweep.metric_names()])

    prov = sweep_provenance(sweep)
    parquet_meta = {PARQUET_PROVENANCE_KEY: json.dumps(prov).encode()}

    def fill(tmp: str) -> None:
        # Without pandas: the bytes of DataFrame.to_csv / to_parquet (frame_files).
        for name, rows in (("runs", runs), ("summary", summary)):
            frame = Frame(rows)
            Path(tmp, f"{name}.csv").write_text(frame.csv_text(), encoding="utf-8")
            frame.write_parquet(os.path.join(tmp, f"{name}.parquet"), parquet_meta)
        Path(tmp, PROVENANCE_FILE).write_text(json.dumps(prov, indent=2) + "\n")

    _, paths = fill_dir_atomically(out / "tables", fill)
    return SweepResult(
        runs,
        summary,
        n_todo - len(failed),
        len(index) - n_missing,
        failed,
        paths,
        list(sweep.axes),
    )


#: The sweep's provenance beside its tables (CSV has no place for it);
#: each Parquet table carries it too, under the schema metadata key
#: ``PARQUET_PROVENANCE_KEY``.
PROVENANCE_FILE = "provenance.json"
PARQUET_PROVENANCE_KEY = b"satcp_provenance"


def sweep_provenance(sweep: Sweep) -> dict[str, Any]:
    """Which satcp, commit, sweep (base scenario, overrides, axes, seeds)
    and platform made the tables (:mod:`satcp.provenance`)."""
    from . import provenance

    doc = {"base": sweep.base, "set": sweep.fixed, "axes": sweep.axes, "seeds": sweep.seeds}
    return provenance.of_sweep(doc)


def summarize(
    runs: Sequence[Mapping[str, Any]], axes: Sequence[str], metrics: Sequence[str] = METRICS
) -> list[dict[str, Any]]:
    """Per point (in the order of their first runs): its axes' values, the
    number of runs and of unfinished runs, then for each metric (the
    built-in ones, then a sweep's own) its mean and 95 % interval over the
    runs that have a value, and how many values that is (``<metric>_n``).
    What ``pandas.DataFrame(runs).groupby(axes, dropna=False, sort=False)``
    gives, an axis's values taking its column's dtype (an axis of integers
    and floats is all floats)."""
    rows = []
    for values, group in _groups(runs, axes):
        row: dict[str, Any] = dict(zip(axes, values, strict=True))
        row["runs"] = len(group)
        row["unfinished_runs"] = sum(
            r["transfers_aborted"] + r["transfers_unfinished"] > 0 for r in group
        )
        for m in metrics:
            # without None and NaN (x != x)
            v = [float(x) for x in [r.get(m) for r in group] if x is not None and x == x]
            mean, half = mean_ci95(v) if v else (math.nan, math.nan)
            row[f"{m}_mean"] = mean
            row[f"{m}_ci95"] = half
            row[f"{m}_n"] = len(v)
        rows.append(row)
    for a in axes:
        if column_dtype([r[a] for r in rows]) == "float64":
            for r in rows:
                r[a] = float(r[a])
    return rows


def _groups(
    runs: Sequence[Mapping[str, Any]], axes: Sequence[str]
) -> list[tuple[tuple, list[Mapping[str, Any]]]]:
    """Each point's axis values (its first run's) and runs, in the order of
    their first runs; NaN is one value, as pandas groups it."""
    if not axes:
        return [((), list(runs))] if runs else []
    groups: dict[tuple, tuple[tuple, list[Mapping[str, Any]]]] = {}
    for r in runs:
        values = tuple(r[a] for a in axes)
        key = tuple(_NAN if _is_missing(v) else v for v in values)
        groups.setdefault(key, (values, []))[1].append(r)
    return list(groups.values())


_NAN = object()  # every NaN (or missing) axis value: one group


def _is_missing(v: Any) -> bool:
    return v is None or (isinstance(v, float) and v != v)


#: Runs queued per local thread at a time, at least and at most
#: (:func:`_queued`): the scenario texts of the runs not yet queued are
#: built as the threads take them.
QUEUED_PER_WORKER = 4
MAX_QUEUED_PER_WORKER = 512

#: Runs handed to a Dask cluster at a time.
DASK_BATCH = 4096


class _RunSettings(NamedTuple):
    """What each run of a sweep is given: its memory limit and the sweep's
    own metrics (:func:`run_one`'s arguments)."""

    max_memory: float | None
    metrics: Mapping[str, Metric]
    functions: Mapping[str, Callable[[Any], float]]


def _execute(
    todo: Iterator[Job],
    n_todo: int,
    done: Callable[[Sequence[Finished]], None],
    workers: int | None,
    client: Any,
    progress: bool,
    settings: _RunSettings,
) -> None:
    """The runs on the core's threads, or on the Dask cluster of
    ``client`` (:func:`run_one` with the sweep's settings bound, a partial
    that pickles, makes each run's row there)."""
    from . import progress as bars

    def finish(key: str, row: dict[str, Any] | None, err: str | None) -> None:
        done([(key, row, err, None)])
        bars.finished(ok=err is None)

    with bars.runs("sweep", n_todo, show=bars.enabled(progress)):
        if client is None:
            _execute_local(todo, n_todo, done, workers, settings)
        else:
            from distributed import as_completed

            run = functools.partial(run_one, **settings._asdict())
            i = 0
            while batch := list(itertools.islice(todo, DASK_BATCH)):
                names = [f"satcp-run-{i + k}-{j.key}" for k, j in enumerate(batch)]
                i += len(batch)
                futs = client.map(run, [j.text for j in batch], key=names, retries=2)
                keys = {f.key: j.key for f, j in zip(futs, batch, strict=True)}
                # Ctrl-C: the runs not finished are cancelled on the
                # cluster; the finished ones are in the cache already.
                with _cancelled_on_interrupt(client, futs):
                    _collect_dask(futs, keys, finish, as_completed)


class ClusterError(Exception):
    """The Dask cluster cannot run this sweep: a worker runs another satcp,
    or cannot import it."""


def build() -> tuple[str, str]:
    """This process's satcp: its version and commit
    (:mod:`satcp.provenance`); run on each worker by :func:`check_workers`."""
    from . import __version__, provenance

    return __version__, provenance.commit()


def _sha(commit: str) -> str:
    return commit.removesuffix("-dirty")


def _build_text(b: Sequence[str]) -> str:
    return f"satcp {b[0]} (commit {b[1]})"


def check_workers(client: Any) -> None:
    """Raises ClusterError unless every worker connected to ``client`` runs
    the same satcp as this process: the same version and, where both
    know it, the same commit (a run's results, and its cache key, depend
    on the build; an ``unknown`` commit, satcp not run from a checkout,
    matches any). Uncommitted changes (``-dirty``) are not compared: the
    check cannot see what they are, and this process finds its commit
    once, so a file edited since would refuse workers of the same
    checkout. Workers that join later are not checked."""
    from .provenance import UNKNOWN

    here = build()
    try:
        there = client.run(build)
    except Exception as e:  # the worker could not import satcp, or died
        raise ClusterError(
            f"--scheduler: a worker cannot run satcp ({type(e).__name__}: {e}); "
            f"install {_build_text(here)} on every worker"
        ) from None
    for addr, b in sorted(there.items()):
        b = tuple(b)
        same_commit = _sha(b[1]) == _sha(here[1]) or UNKNOWN in (b[1], here[1])
        if b[0] != here[0] or not same_commit:
            raise ClusterError(
                f"--scheduler: worker {addr} runs {_build_text(b)}, this is "
                f"{_build_text(here)}; run the same satcp on every worker"
            )


def _execute_local(
    todo: Iterator[Job],
    n_todo: int,
    done: Callable[[Sequence[Finished]], None],
    workers: int | None,
    settings: _RunSettings,
) -> None:
    """The runs on the core's threads (``_core.RowPool``), taken from
    ``todo`` as they free up (at most :func:`_queued` runs at a time); this
    thread turns each run's row from the core into the sweep's row and
    hands it to ``done``. Ctrl-C (KeyboardInterrupt in this thread, between
    its waits of at most WAIT_S) stops the runs going on through their
    flag, drops the ones not started, hands every run that finished to
    ``done`` (so it is in the cache) and raises again."""
    from . import _core
    from . import progress as bars

    n = max(1, min(workers or os.cpu_count() or 1, n_todo or 1))
    limit = _queued(n, n_todo)
    stop = _core.StopFlag()
    metrics, functions = settings.metrics, settings.functions
    own = [*metrics, *functions]  # the sweep's own metrics
    pool = _core.RowPool(n, _fields(metrics), bool(functions), stop, settings.max_memory)
    pending: dict[int, str] = {}  # the key of each run submitted and not yet taken
    ids = itertools.count()

    def handed(taken: Sequence[Taken], keys: Sequence[str]) -> None:
        results = []
        for (_, row_json, rest, err, _), key in zip(taken, keys, strict=True):
            row = text = None
            if err is None and not own:
                text = row_json  # the row is made at the end, all in one pass
            elif err is None:
                try:
                    row = _row_of(row_json, rest, metrics, functions)
                    text = _cache_text(row_json, row, own)
                except Exception as e:  # a metric's own error, reported per run
                    err = str(e)
            results.append((key, row, err, text))
        done(results)
        failed = sum(err is not None for _, _, err, _ in results)
        bars.finished(ok=True, n=len(results) - failed)
        bars.finished(ok=False, n=failed)

    def submit_more() -> None:
        batch = []
        for j in itertools.islice(todo, max(0, limit - len(pending))):
            i = next(ids)
            pending[i] = j.key
            batch.append((i, j.text))
        if batch:
            pool.submit(batch)

    def keys_of(taken: Sequence[Taken]) -> list[str]:
        return [pending.pop(t[0]) for t in taken]

    try:
        submit_more()
        while pending:
            # Half of those queued: the threads keep the other half, and
            # get more before this thread turns the rows taken (else they
            # may run out meanwhile).
            taken = pool.take(WAIT_S, max(1, len(pending) // 2))
            keys = keys_of(taken)
            submit_more()
            handed(taken, keys)
    except KeyboardInterrupt:
        stop.set()
        pool.close()
        taken = pool.take(0)
        handed(taken, keys_of(taken))
        raise
    finally:
        stop.set()
        pool.close()


#: The longest a sweep waits for its runs without looking up (Ctrl-C).
WAIT_S = 0.1


def _queued(workers: int, n_todo: int) -> int:
    """Runs submitted to the core's threads and not yet taken back, at
    most: an eighth of each thread's share of the sweep, between
    QUEUED_PER_WORKER and MAX_QUEUED_PER_WORKER per thread. Enough that the
    threads never wait for this one while it holds the GIL (a switch
    interval is 5 ms, some 70 one-second runs) or waits for a core (with a
    thread per core, it gets a third of one while they run): with 10,000
    one-second runs, 156 per thread left them idle a third of the time.
    Few enough that the scenario texts of a large sweep are not all held
    at once."""
    share = n_todo // (8 * workers)
    return workers * max(QUEUED_PER_WORKER, min(MAX_QUEUED_PER_WORKER, share))


def _import_soon(*modules: str) -> None:
    """Imports ``modules`` in a thread: the runs go on meanwhile on the
    core's threads, which do not need the GIL that an import holds. A
    module that fails to import is left to the code that needs it, which
    imports it again and raises."""
    import importlib
    import threading

    def load() -> None:
        for name in modules:
            try:
                importlib.import_module(name)
            except Exception:
                return

    threading.Thread(target=load, name="satcp-import", daemon=True).start()


@contextlib.contextmanager
def _cancelled_on_interrupt(client: Any, futs: Any) -> Iterator[None]:
    try:
        yield
    except KeyboardInterrupt:
        client.cancel(futs)
        raise


def _collect_dask(futs: Any, keys: dict, finish: Callable, as_completed: Any) -> None:
    """The rows of a Dask sweep's runs, each handed to ``finish`` as it
    arrives."""
    for f in as_completed(futs):
        # result() rather than the status at this moment: a finished result
        # held by a worker that has just died is "lost" until the scheduler
        # has computed it again, and result() waits for that (an error after
        # the retries is raised).
        try:
            row = f.result()
        except Exception as e:  # the run's own error, reported per run
            finish(keys[f.key], None, str(e))
        else:
            finish(keys[f.key], row, None)

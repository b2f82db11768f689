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

Each run is keyed by a hash of its fully resolved scenario (JSON, keys
sorted) and satcp's version; its summary row is stored in
``OUT/cache/<key>.json`` as soon as it finishes, so an interrupted sweep
resumes without repeating finished runs, and a worker lost mid-sweep costs
only its own runs (Dask reschedules them). Results: ``runs`` (one row per
run: the axes, the seed, the metrics) and ``summary`` (per point: mean
and 95 % interval over seeds, Student t), as Parquet and CSV, written
atomically.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import os
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ._fsutil import fill_dir_atomically
from .scenario import ScenarioError, apply_override, load, parse_path, to_json
from .stats import mean_ci95

__all__ = ["METRICS", "Sweep", "load_sweep", "run_one", "run_sweep"]

#: The metrics of a run's summary row.
METRICS = (
    "response_time_s",
    "goodput_bps",
    "retransmitted_segments",
    "fast_retransmits",
    "timeouts",
    "events",
    "end_time_s",
)


#: The most runs one sweep file may make (axes' sizes times seeds): the
#: grid is checked before anything is built or run.
MAX_RUNS = 100_000


@dataclass
class Sweep:
    """A grid: the base scenario, fixed overrides, axes and seeds."""

    base: dict[str, Any]
    axes: dict[str, list[Any]]
    seeds: list[int]
    fixed: dict[str, Any] = field(default_factory=dict)

    def points(self) -> list[dict[str, Any]]:
        """Every combination of the axes' values, in file order."""
        keys = list(self.axes)
        return [
            dict(zip(keys, vals, strict=True)) for vals in itertools.product(*self.axes.values())
        ]

    def runs(self) -> list[tuple[dict[str, Any], int, dict[str, Any]]]:
        """(point, seed, resolved scenario) for every run."""
        out = []
        for point in self.points():
            for seed in self.seeds:
                sc = json.loads(json.dumps(self.base))
                for k, v in {**self.fixed, **point}.items():
                    apply_override(sc, parse_path(k), v)
                sc["seed"] = seed
                out.append((point, seed, sc))
        return out


def load_sweep(path: str | os.PathLike[str]) -> Sweep:
    """Reads a sweep file; errors name the field."""
    import tomllib

    try:
        with open(path, "rb") as f:
            doc = tomllib.load(f)
    except tomllib.TOMLDecodeError as e:
        raise ScenarioError(f"invalid sweep: {path}: invalid TOML: {e}") from None
    unknown = set(doc) - {"base", "seeds", "set", "axes"}
    if unknown:
        raise ScenarioError(f"invalid sweep: {sorted(unknown)[0]}: unknown field")
    if not isinstance(doc.get("base"), str):
        raise ScenarioError("invalid sweep: base: missing (the scenario file)")
    base = load(os.path.join(os.path.dirname(os.path.abspath(path)), doc["base"]))
    seeds = doc.get("seeds", [1])
    if not (
        isinstance(seeds, list) and seeds and all(isinstance(s, int) and s >= 0 for s in seeds)
    ):
        raise ScenarioError(f"invalid sweep: seeds: {seeds!r} must be a list of whole numbers >= 0")
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
    n = len(seeds) * math.prod(len(v) for v in axes.values())
    if n > MAX_RUNS:
        sizes = " x ".join(str(len(v)) for v in [*axes.values(), seeds])
        raise ScenarioError(
            f"invalid sweep: axes: {sizes} = {n} runs, more than {MAX_RUNS} "
            "(split the sweep into several files)"
        )
    return Sweep(base=base, axes=axes, seeds=seeds, fixed=fixed)


def run_key(scenario: Mapping[str, Any]) -> str:
    """The cache key of a run: its resolved scenario and satcp's version."""
    from . import __version__

    text = json.dumps(scenario, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(f"{__version__}\n{text}".encode()).hexdigest()[:24]


def run_one(scenario_json: str) -> dict[str, Any]:
    """Runs one scenario and returns its metrics (called on workers). The
    run's time series, which no metric reads, are left out of its results:
    in a sweep of the thesis scenario (sampled every second), parsing them
    took half as long as the runs, with the GIL held."""
    from . import _core

    r = json.loads(_core.run_json_summary(scenario_json))
    times = [t["response_time_s"] for t in r["transfers"] if t["response_time_s"] is not None]
    flows = r["flows"]
    return {
        "response_time_s": sum(times) / len(times) if times else math.nan,
        "goodput_bps": sum(f["goodput_bps"] for f in flows),
        "retransmitted_segments": sum(f["server"]["retransmitted_segments"] for f in flows),
        "fast_retransmits": sum(f["server"]["fast_retransmits"] for f in flows),
        "timeouts": sum(f["server"]["timeouts"] for f in flows),
        "events": r["events"],
        "end_time_s": r["end_time_s"],
    }


def _write_json_atomically(path: Path, data: Any) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        json.dump(data, f)
    os.replace(tmp, path)


@dataclass
class SweepResult:
    runs: Any  # pandas DataFrame
    summary: Any
    computed: int
    cached: int
    failed: list[str]
    paths: list[str]


def run_sweep(
    sweep: Sweep,
    out_dir: str | os.PathLike[str],
    *,
    workers: int | None = None,
    scheduler: str | None = None,
    progress: bool = True,
    limit: int | None = None,
) -> SweepResult:
    """Runs the runs not yet in ``OUT/cache`` (at most ``limit`` of them,
    for tests), then writes the tables. ``scheduler``: the address of a
    Dask distributed scheduler; None runs on local threads (the core
    releases the GIL, so they use every core)."""
    import pandas as pd

    out = Path(out_dir)
    cache = out / "cache"
    cache.mkdir(parents=True, exist_ok=True)
    jobs = []
    for point, seed, sc in sweep.runs():
        text = to_json(sc)
        jobs.append((point, seed, run_key(sc), text))
    todo = [j for j in jobs if not (cache / f"{j[2]}.json").exists()]
    if limit is not None:
        todo = todo[:limit]
    cached = len(jobs) - len([j for j in jobs if not (cache / f"{j[2]}.json").exists()])
    failed: list[str] = []

    def done(key: str, row: dict[str, Any] | None, err: str | None) -> None:
        if err is not None:
            failed.append(f"{key}: {err}")
        else:
            _write_json_atomically(cache / f"{key}.json", row)

    _execute(todo, done, workers, scheduler, progress)
    rows = []
    for point, seed, key, _ in jobs:
        p = cache / f"{key}.json"
        if p.exists():
            rows.append({**point, "seed": seed, "run": key, **json.loads(p.read_text())})
    runs = pd.DataFrame(rows)
    summary = summarize(runs, list(sweep.axes))

    def fill(tmp: str) -> None:
        for name, df in (("runs", runs), ("summary", summary)):
            df.to_csv(Path(tmp, f"{name}.csv"), index=False)
            df.to_parquet(Path(tmp, f"{name}.parquet"), index=False)

    _, paths = fill_dir_atomically(out / "tables", fill)
    return SweepResult(runs, summary, len(todo) - len(failed), cached, failed, paths)


def summarize(runs: Any, axes: Sequence[str]) -> Any:
    """Per point: number of seeds, mean and 95 % interval of each metric."""
    import pandas as pd

    if runs.empty:
        return pd.DataFrame()
    groups = runs.groupby(list(axes), dropna=False, sort=False) if axes else [((), runs)]
    rows = []
    for key, g in groups:
        key = key if isinstance(key, tuple) else (key,)
        row: dict[str, Any] = dict(zip(axes, key, strict=True))
        row["n"] = len(g)
        for m in METRICS:
            v = list(g[m].astype(float).dropna())
            mean, half = mean_ci95(v) if v else (math.nan, math.nan)
            row[f"{m}_mean"] = mean
            row[f"{m}_ci95"] = half
        rows.append(row)
    return pd.DataFrame(rows)


def _execute(
    todo: list[tuple[Any, int, str, str]],
    done: Callable[[str, dict[str, Any] | None, str | None], None],
    workers: int | None,
    scheduler: str | None,
    progress: bool,
) -> None:
    from . import progress as bars

    def finish(key: str, row: dict[str, Any] | None, err: str | None) -> None:
        done(key, row, err)
        bars.finished(ok=err is None)

    with bars.runs("sweep", len(todo), show=bars.enabled(progress)):
        if scheduler is None:
            from concurrent.futures import ThreadPoolExecutor, as_completed

            n = max(1, min(workers or os.cpu_count() or 1, len(todo) or 1))
            with ThreadPoolExecutor(max_workers=n, thread_name_prefix="satcp-sweep") as pool:
                futs = {pool.submit(run_one, text): key for _, _, key, text in todo}
                for f in as_completed(futs):
                    err = f.exception()
                    finish(futs[f], None if err else f.result(), None if err is None else str(err))
        else:
            from distributed import Client, as_completed

            with Client(scheduler) as client:
                names = [f"satcp-run-{i}-{k}" for i, (_, _, k, _) in enumerate(todo)]
                futs = client.map(run_one, [t for *_, t in todo], key=names, retries=2)
                keys = {f.key: k for f, (_, _, k, _) in zip(futs, todo, strict=True)}
                for f in as_completed(futs):
                    # result() rather than the status at this moment: a
                    # finished result held by a worker that has just died is
                    # "lost" until the scheduler has computed it again, and
                    # result() waits for that (an error after the retries
                    # is raised).
                    try:
                        row = f.result()
                    except Exception as e:  # the run's own error, reported per run
                        finish(keys[f.key], None, str(e))
                    else:
                        finish(keys[f.key], row, None)

"""satcp: a packet-level discrete-event simulator of TCP over satellite links.

>>> import satcp
>>> r = satcp.run("scenarios/thesis_ftp.toml", overrides=["apps[0].file_bytes=200000"])
>>> r.transfers["response_time_s"]          # doctest: +SKIP
>>> print(r.summary())                      # doctest: +SKIP

The simulation runs in the Rust core (``satcp._core``); this package reads
scenarios, applies overrides and turns results into pandas data frames.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from . import _core, progress
from ._core import ScenarioError
from .results import Results
from .scenario import load, to_json

__version__: str = _core.__version__

__all__ = [
    "Results",
    "ScenarioError",
    "__version__",
    "load",
    "run",
    "run_many",
    "to_json",
    "validate",
    "variants",
]

ScenarioLike = str | os.PathLike[str] | Mapping[str, Any]


def variants() -> list[str]:
    """Names of the TCP variants the core knows."""
    return list(_core.variants())


def resolve(
    scenario: ScenarioLike,
    *,
    seed: int | None = None,
    overrides: Iterable[str] = (),
    sample_interval_s: float | None = None,
) -> dict[str, Any]:
    """The scenario as a dict with overrides, ``seed`` and ``sample_interval_s``
    applied (not yet validated by the core)."""
    sc = load(scenario, overrides, seed)
    if sample_interval_s is not None:
        sc["sample_interval_s"] = sample_interval_s
    return sc


def validate(
    scenario: ScenarioLike,
    *,
    seed: int | None = None,
    overrides: Iterable[str] = (),
    sample_interval_s: float | None = None,
) -> dict[str, Any]:
    """Checks a scenario without running it; returns the resolved dict or
    raises ScenarioError."""
    sc = resolve(scenario, seed=seed, overrides=overrides, sample_interval_s=sample_interval_s)
    _core.validate_json(to_json(sc))
    return sc


def _run_resolved(sc: dict[str, Any], text: str) -> Results:
    t0 = time.perf_counter()
    out = _core.run_json(text)
    wall = time.perf_counter() - t0
    return Results(out, scenario=sc, wall_time_s=wall)


def _run_watched(sc: dict[str, Any], text: str) -> Results:
    """:func:`_run_resolved` with a progress bar of simulated time
    (:func:`satcp.progress.watch_sim_time`): the run goes on in a thread while
    this one reads the core's clock."""
    clock = _core.SimClock()
    t0 = time.perf_counter()
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="satcp-run") as pool:
        job = pool.submit(_core.run_json_clocked, text, clock)
        progress.watch_sim_time(job, clock, sc.get("duration_s"))
        out = job.result()
    return Results(out, scenario=sc, wall_time_s=time.perf_counter() - t0)


def run(
    scenario: ScenarioLike,
    *,
    seed: int | None = None,
    overrides: Iterable[str] = (),
    sample_interval_s: float | None = None,
    pcap: Mapping[str, str | os.PathLike[str]] | None = None,
) -> Results:
    """Runs one scenario: a path to a TOML file or a dict in the same shape.
    ``overrides`` are ``"dotted.path[index].field=value"`` strings.
    ``pcap`` maps link directions (``"satellite:ab"``, ``"1:ba"``; the
    direction defaults to ab) to pcap files to write: what was transmitted
    on them, with IPv4/TCP headers (docs/pcap.md)."""
    sc = resolve(scenario, seed=seed, overrides=overrides, sample_interval_s=sample_interval_s)
    if not pcap:
        return _run_resolved(sc, to_json(sc))
    caps = [(link_direction(sc, key), os.fspath(path)) for key, path in pcap.items()]
    t0 = time.perf_counter()
    out, _counts = _core.run_json_capture(to_json(sc), caps)
    return Results(out, scenario=sc, wall_time_s=time.perf_counter() - t0)


def link_direction(scenario: Mapping[str, Any], key: str) -> int:
    """The core's id of a link direction named ``"NAME[:ab|ba]"`` (NAME a
    link's name, ``a-b`` for an unnamed one, or its index)."""
    name, _, d = key.partition(":")
    d = d or "ab"
    if d not in ("ab", "ba"):
        raise ScenarioError(f"invalid pcap link {key!r}: the direction is ab or ba")
    links = scenario.get("links") or []
    for i, link in enumerate(links):
        names = {str(i), str(link.get("name")), f"{link.get('a')}-{link.get('b')}"}
        if name in names:
            return 2 * i + (d == "ba")
    raise ScenarioError(f"invalid pcap link {key!r}: no link named {name!r}")


def run_many(scenarios: Sequence[ScenarioLike], workers: int | None = None) -> list[Results]:
    """Runs several scenarios in threads (the core releases the GIL, so they
    use several cores) and returns their results in the same order. Every
    scenario is validated first: an invalid one raises ScenarioError before
    any run starts."""
    resolved = [load(s) for s in scenarios]
    texts = [to_json(sc) for sc in resolved]
    for i, text in enumerate(texts):
        try:
            _core.validate_json(text)
        except ScenarioError as e:
            if len(texts) == 1:
                raise
            raise ScenarioError(f"scenario {i}: {e}") from None
    if not texts:
        return []
    if workers is None:
        workers = os.cpu_count() or 1
    workers = max(1, min(workers, len(texts)))
    progress.add(len(texts))
    if workers == 1:
        return [_run_counted(sc, t) for sc, t in zip(resolved, texts, strict=True)]
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="satcp") as pool:
        return list(pool.map(_run_counted, resolved, texts))


def _run_counted(sc: dict[str, Any], text: str) -> Results:
    """:func:`_run_resolved`, reported to the open progress bar."""
    try:
        r = _run_resolved(sc, text)
    except BaseException:
        progress.finished(ok=False)
        raise
    progress.finished()
    return r

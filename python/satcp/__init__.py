"""satcp: a packet-level discrete-event simulator of TCP over satellite links.

>>> import satcp
>>> r = satcp.run("scenarios/thesis_ftp.toml", overrides=["apps[0].file_bytes=200000"])
>>> r.transfers["response_time_s"]          # doctest: +SKIP
>>> print(r.summary())                      # doctest: +SKIP

The simulation runs in the Rust core (``satcp._core``); this package reads
scenarios, applies overrides and turns results into pandas data frames.

Importing it loads only the core and the standard library's basics: the
rest (:class:`Results`, :func:`load`, :func:`to_json`, threads, and
pandas, which only data frames need) is imported when first used, so that
the ``satcp`` command starts fast (issue 33).
"""

from __future__ import annotations

import os as _os
import time as _time

from . import _core
from ._core import ScenarioError

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (5 ms)
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence
    from typing import Any

    from .results import Results
    from .scenario import load, to_json

    #: A scenario: a path to a TOML file, or a dict in the same shape.
    ScenarioLike = str | _os.PathLike[str] | Mapping[str, Any]

__version__: str = _core.__version__

# Public names defined in submodules, imported on first access (PEP 562).
_LAZY = {"Results": "results", "load": "scenario", "to_json": "scenario"}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


# The public names are ``__all__`` and the submodules (``satcp.sweep``,
# ``satcp.results``...); everything else starts with "_" (a test checks).


__all__ = [
    "DEFAULT_MAX_MEMORY",
    "Results",
    "ScenarioError",
    "__version__",
    "estimate_memory",
    "load",
    "run",
    "run_many",
    "to_json",
    "validate",
    "variants",
]


def variants() -> list[str]:
    """Names of the TCP variants the core knows."""
    return list(_core.variants())


def _resolve(
    scenario: ScenarioLike,
    *,
    seed: int | None = None,
    overrides: Iterable[str] = (),
    sample_interval_s: float | None = None,
    keep_emulate: bool = False,
) -> dict[str, Any]:
    """The scenario as a dict with overrides, ``seed`` and ``sample_interval_s``
    applied (not yet validated by the core). Its ``[emulate]`` table is
    ``satcp emulate``'s (docs/emulation.md): a simulation leaves it out,
    so that the same file is simulated and emulated."""
    from .scenario import load

    sc = load(scenario, overrides, seed)
    if not keep_emulate:
        sc.pop("emulate", None)
    if sample_interval_s is not None:
        sc["sample_interval_s"] = sample_interval_s
    return sc


#: The memory a run may be estimated to need unless ``max_memory`` says
#: otherwise, bytes (2 GB; ``validate::DEFAULT_MAX_MEMORY_BYTES`` in the core).
DEFAULT_MAX_MEMORY: float = _core.DEFAULT_MAX_MEMORY


def validate(
    scenario: ScenarioLike,
    *,
    seed: int | None = None,
    overrides: Iterable[str] = (),
    sample_interval_s: float | None = None,
    max_memory: float | None = None,
) -> dict[str, Any]:
    """Checks a scenario without running it; returns the resolved dict or
    raises ScenarioError. ``max_memory``: as :func:`run`'s."""
    from .scenario import to_json

    sc = _resolve(scenario, seed=seed, overrides=overrides, sample_interval_s=sample_interval_s)
    _core.validate_json(to_json(sc), max_memory)
    return sc


def estimate_memory(scenario: ScenarioLike) -> tuple[float, list[tuple[str, float, str]]]:
    """What a run of the scenario is estimated to allocate at most, bytes,
    and the parts of it: (fields, bytes, in words). Raises ScenarioError
    for an invalid scenario; the limit is not applied."""
    from .scenario import to_json

    return _core.estimate_memory(to_json(_resolve(scenario)))


def _interruptible(call: Any, watch: Any = None, meanwhile: Any = None) -> Any:
    """``call(stop)`` (a run in the core given the ``_core.StopFlag`` stop)
    in a thread, so that Ctrl-C reaches this one: a run in the core would
    hold the calling thread until it ends, and Python handles a signal only
    between bytecodes. On KeyboardInterrupt the run is stopped through its
    flag (the core reads it every few thousand events: milliseconds),
    waited for, and KeyboardInterrupt raised. ``meanwhile()`` and then
    ``watch(thread)``, if given, are called while the run goes on (work the
    caller would do after it, such as imports; a progress bar); if either
    raises, the run is stopped and waited for too. A plain thread, not
    an executor: ``concurrent.futures`` costs more start-up time than a
    short run takes."""
    import threading

    stop = _core.StopFlag()
    box: dict[str, Any] = {}
    # Waited for rather than the thread: Python 3.11's Thread.join,
    # interrupted by Ctrl-C, may mark a thread that still runs as stopped,
    # and a later join() returns at once; exiting with the run still in
    # the core then aborts the interpreter.
    finished = threading.Event()

    def work() -> None:
        try:
            box["out"] = call(stop)
        except BaseException as e:  # re-raised in the caller's thread
            box["error"] = e
        finally:
            finished.set()

    job = threading.Thread(target=work, name="satcp-run", daemon=True)
    job.start()
    try:
        if meanwhile is not None:
            meanwhile()
        if watch is not None:
            watch(job)
        finished.wait()
    except BaseException:
        stop.set()
        finished.wait()
        raise
    if "error" in box:
        raise box["error"]
    return box["out"]


def _run_resolved(
    sc: dict[str, Any],
    text: str,
    stop: Any = None,
    max_memory: float | None = None,
    fields: Sequence[str] | None = None,
    meanwhile: Any = None,
) -> Results:
    """Runs a resolved scenario; ``stop``, a ``_core.StopFlag``, is given by
    callers that run several in threads (they handle Ctrl-C), else the run
    is :func:`_interruptible`, with ``meanwhile()`` called while it goes on.
    ``fields`` (:func:`satcp.results.picked_fields`; not with a trace): the
    results cut down to them by the core, which then neither writes nor
    this thread parses the rest (a web run's flow rows are megabytes)."""
    trace = _trace_buffer(sc)
    if fields is not None and trace is None:
        picked = list(fields)

        def call(flag: Any) -> str:
            return _core.run_json_fields(text, picked, flag, max_memory)

    else:
        fields = None

        def call(flag: Any) -> str:
            return _core.run_json(text, flag, max_memory, trace)

    t0 = _time.perf_counter()
    if stop is not None:
        out, ended = _timed(call)(stop)
    else:
        out, ended = _interruptible(_timed(call), meanwhile=meanwhile)
    if fields is not None:
        from .results import Results

        return Results(out, scenario=sc, wall_time_s=ended - t0, fields=fields)
    return _results(out, sc, ended - t0, trace)


def _timed(call: Any) -> Any:
    """``call(flag)`` returning its result and the time it ended
    (``time.perf_counter``): the run's wall time, not the time
    :func:`_interruptible`'s ``meanwhile`` may add."""

    def timed(flag: Any) -> tuple[Any, float]:
        out = call(flag)
        return out, _time.perf_counter()

    return timed


def _trace_buffer(sc: Mapping[str, Any]) -> Any:
    """A ``_core.TraceBuffer`` for a scenario whose ``[trace]`` names kinds
    (the run leaves its trace there), else None."""
    trace = sc.get("trace")
    if isinstance(trace, dict) and trace.get("kinds"):
        return _core.TraceBuffer()
    return None


def _results(out: str, sc: dict[str, Any], wall: float, trace: Any) -> Results:
    """The :class:`Results` of a run, with the trace it left in ``trace``."""
    from .results import Results

    columns = trace.take() if trace is not None else None
    return Results(out, scenario=sc, wall_time_s=wall, trace=columns)


def _run_watched(
    sc: dict[str, Any], text: str, max_memory: float | None = None, meanwhile: Any = None
) -> Results:
    """:func:`_run_resolved` with a progress bar of simulated time
    (:func:`satcp.progress.watch_sim_time`): the run goes on in a thread while
    this one calls ``meanwhile()``, then reads the core's clock."""
    from . import progress

    clock = _core.SimClock()
    trace = _trace_buffer(sc)
    t0 = _time.perf_counter()
    out, ended = _interruptible(
        _timed(lambda flag: _core.run_json_clocked(text, clock, flag, max_memory, trace)),
        lambda job: progress.watch_sim_time(job, clock, sc.get("duration_s")),
        meanwhile,
    )
    return _results(out, sc, ended - t0, trace)


def run(
    scenario: ScenarioLike,
    *,
    seed: int | None = None,
    overrides: Iterable[str] = (),
    sample_interval_s: float | None = None,
    pcap: Mapping[str, str | _os.PathLike[str]] | None = None,
    max_memory: float | None = None,
    trace: str | Iterable[str] | None = None,
) -> Results:
    """Runs one scenario: a path to a TOML file or a dict in the same shape.
    ``overrides`` are ``"dotted.path[index].field=value"`` strings.
    ``trace``: trace kinds (``"cwnd,rtt,queue"``, a list, or ``"all"``) to
    record at every change, as the scenario's ``[trace] kinds``
    (docs/traces.md); the rows are the result's ``trace``.
    ``pcap`` maps link directions (``"satellite:ab"``, ``"1:ba"``; the
    direction defaults to ab) to pcap files to write: what was transmitted
    on them, with IPv4/TCP headers (docs/pcap.md). ``max_memory``: a run
    estimated to need more bytes than this is refused with ScenarioError
    before it starts, naming the fields (:func:`estimate_memory`; None:
    :data:`DEFAULT_MAX_MEMORY`, 2 GB)."""
    from .scenario import to_json

    sc = _resolve(scenario, seed=seed, overrides=overrides, sample_interval_s=sample_interval_s)
    if trace is not None:
        _set_trace(sc, trace)
    if not pcap:
        return _run_resolved(sc, to_json(sc), max_memory=max_memory)
    caps = [(_link_direction(sc, key), _os.fspath(path)) for key, path in pcap.items()]
    trace = _trace_buffer(sc)
    t0 = _time.perf_counter()
    text = to_json(sc)
    out, _counts = _interruptible(
        lambda flag: _core.run_json_capture(text, caps, flag, max_memory, trace)
    )
    return _results(out, sc, _time.perf_counter() - t0, trace)


def _set_trace(sc: dict[str, Any], kinds: str | Iterable[str]) -> None:
    """Sets the scenario's ``[trace] kinds`` (its other trace fields kept);
    a name that is no kind is a ScenarioError."""
    from .trace import parse_kinds

    text = kinds if isinstance(kinds, str) else ",".join(kinds)
    try:
        names = parse_kinds(text)
    except ValueError as e:
        raise ScenarioError(f"trace: {e}") from None
    table = sc.get("trace")
    sc["trace"] = {**(table if isinstance(table, dict) else {}), "kinds": names}


def _link_direction(scenario: Mapping[str, Any], key: str) -> int:
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


def run_many(
    scenarios: Sequence[ScenarioLike],
    workers: int | None = None,
    *,
    overrides: Mapping[str, Any] | Iterable[str] = (),
    seeds: Sequence[int] | None = None,
    max_memory: float | None = None,
) -> list[Results]:
    """Runs several scenarios in threads (the core releases the GIL, so they
    use several cores) and returns their results in order. Every run is
    validated first: an invalid one raises ScenarioError before any run
    starts.

    ``overrides`` apply to every scenario, as ``--set`` does: a dict of
    dotted keys and values (``{"tcp.variant": "newreno",
    "links[satellite].ab.errors.ber": 1e-6}``, the values as Python values,
    like a sweep's ``[set]``) or ``"KEY=VALUE"`` strings as :func:`run`
    takes. ``seeds``: each scenario runs once per seed, and the results
    come scenario-major: ``[s0 seed0, s0 seed1, ..., s1 seed0, ...]``;
    None runs each scenario once with its own seed. ``max_memory``: each
    run's limit, as :func:`run`'s."""
    from collections.abc import Mapping

    from . import progress
    from .scenario import apply_override, load, parse_path, to_json

    if isinstance(overrides, str):
        overrides = [overrides]
    if isinstance(overrides, Mapping):
        pairs = [(parse_path(str(k)), v) for k, v in overrides.items()]
        texts_set: list[str] = []
    else:
        pairs = []
        texts_set = list(overrides)
    if seeds is not None:
        if isinstance(seeds, int | str):
            raise TypeError("seeds is a sequence of seeds, e.g. [1, 2, 3]")
        seeds = list(seeds)
    resolved = []
    for s in scenarios:
        base = load(s, texts_set)
        for path, value in pairs:
            apply_override(base, path, value)
        if seeds is None:
            resolved.append(base)
        else:
            resolved.extend(load(base, seed=seed) for seed in seeds)
    texts = [to_json(sc) for sc in resolved]
    _validate_all(texts, lambda i: _run_name(i, seeds), max_memory)
    if not texts:
        return []
    if workers is None:
        workers = _os.cpu_count() or 1
    workers = max(1, min(workers, len(texts)))
    progress.add(len(texts))
    if workers == 1:
        return [
            _run_counted(sc, t, max_memory=max_memory)
            for sc, t in zip(resolved, texts, strict=True)
        ]
    if not any(_trace_buffer(sc) for sc in resolved):
        return _run_pooled(resolved, texts, workers, max_memory, lambda i: _run_name(i, seeds))
    from concurrent.futures import ThreadPoolExecutor

    # Ctrl-C reaches this thread, waiting in map(): the runs going on are
    # stopped through their shared flag and the queued ones dropped.
    stop = _core.StopFlag()
    pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="satcp")
    try:
        return list(
            pool.map(_run_counted, resolved, texts, [stop] * len(texts), [max_memory] * len(texts))
        )
    except BaseException:
        stop.set()
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _run_pooled(
    resolved: Sequence[dict[str, Any]],
    texts: Sequence[str],
    workers: int,
    max_memory: float | None,
    name: Any,
) -> list[Results]:
    """:func:`run_many`'s runs on the core's own threads (``_core.RowPool``,
    as a sweep's), which never take the GIL: this thread only parses each
    run's results while the next ones run (with Python threads, each run
    waited for the GIL to start and to hand its results back). Ctrl-C
    stops the runs going on and drops the rest."""
    from . import progress

    stop = _core.StopFlag()
    pool = _core.RowPool(workers, [], stop=stop, max_memory=max_memory, results=True)
    out: list[Results | None] = [None] * len(texts)
    try:
        pool.submit(list(enumerate(texts)))
        left = len(texts)
        while left:
            for i, results, _, err, wall in pool.take(0.1, max(1, min(left, 64))):
                left -= 1
                if err is not None:  # validated first: the core refused it after all
                    progress.finished(ok=False)
                    raise ScenarioError(f"{name(i)}: {err}" if len(texts) > 1 else err)
                out[i] = _results(results, resolved[i], wall, None)
                progress.finished()
    finally:
        stop.set()
        pool.close()
    return out  # type: ignore[return-value]  # every one filled


def _validate_all(
    texts: Sequence[str],
    name: Any,
    max_memory: float | None = None,
    skip: Any = (),
) -> None:
    """Validates every scenario text (but those in ``skip``, known valid)
    before any of them runs: the first invalid one raises ScenarioError,
    named by ``name(i)`` when there are several."""
    for i, text in enumerate(texts):
        if text in skip:
            continue
        try:
            _core.validate_json(text, max_memory)
        except ScenarioError as e:
            if len(texts) == 1:
                raise
            raise ScenarioError(f"{name(i)}: {e}") from None


def _run_name(i: int, seeds: Sequence[int] | None) -> str:
    """How an error names run ``i`` of :func:`run_many`."""
    if not seeds:
        return f"scenario {i}"
    return f"scenario {i // len(seeds)} seed {seeds[i % len(seeds)]}"


def _run_counted(
    sc: dict[str, Any],
    text: str,
    stop: Any = None,
    max_memory: float | None = None,
    fields: Sequence[str] | None = None,
) -> Results:
    """:func:`_run_resolved`, reported to the open progress bar."""
    from . import progress

    try:
        r = _run_resolved(sc, text, stop, max_memory, fields)
    except BaseException:
        progress.finished(ok=False)
        raise
    progress.finished()
    return r


# Not public (the future import binds ``annotations`` too); see __all__.
del TYPE_CHECKING, annotations

"""The experiment engine of the reproductions: one model, one runner.

A reproduction (``satcp reproduce NAME``, registered in
:data:`satcp.reproduce.REGISTRY`) is a :class:`Reproduction`: its package,
its parts (one module each) and the function that renders its report. :func:`run` runs the parts
in order into a temporary directory with a progress bar
(:mod:`satcp.progress`), writes ``claims.csv`` (every part's claims,
:mod:`.claims`) and ``report.md``, and then moves everything into the
output directory (:func:`satcp._fsutil.fill_dir_atomically`): a failing
part leaves the output directory as it was. A part that does not exist is
an error (:class:`MissingPart`), raised before anything runs.

A part is a module with

    reproduce(out: pathlib.Path, workers: int | None, quick: bool) -> Section | str

(a bare Markdown string is a section without claims). Inside a part, an
experiment that is a grid of runs read into a table is data, an
:class:`Experiment` (scenario factory, grid, metrics, table, the paper's
values with their tolerance, figures), run by :func:`run_experiment`, which
writes its CSV files and figures and returns its claims; a part that writes
its files itself runs its experiment with :func:`measure`. :func:`run_jobs`
runs (key, scenario) pairs (the one job runner under both).
"""

from __future__ import annotations

import importlib
import json
import os
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any, TypeVar

from .. import progress
from .._fsutil import fill_dir_atomically
from .claims import (
    CLAIMS_CSV,
    DEFAULT_TOLERANCE,
    Claim,
    Tolerance,
    claims_table,
    write_claims_csv,
)
from .tables import write_csv

__all__ = [
    "REPORT",
    "Experiment",
    "ExperimentResult",
    "MissingPart",
    "PaperValue",
    "Part",
    "PartResult",
    "Report",
    "Reproduction",
    "Section",
    "load_part",
    "measure",
    "run",
    "run_experiment",
    "run_jobs",
    "sections_markdown",
    "summary_markdown",
]

#: The report's file name in the output directory.
REPORT = "report.md"


class MissingPart(ImportError):
    """A reproduction names a part whose module does not exist (or has no
    ``reproduce``)."""


# --- what a part returns -----------------------------------------------------


@dataclass
class Section:
    """One part's result: a Markdown body (starting with a ``##``
    heading), its claims, its one-line findings for the report's summary,
    the files it wrote, its runs and its time."""

    title: str
    markdown: str
    claims: list[Claim] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    runs: int = 0
    seconds: float = 0.0
    findings: list[str] = field(default_factory=list)

    @classmethod
    def of(cls, result: Section | str) -> Section:
        """A part's result as a Section (a bare string: its Markdown, titled
        by its first heading)."""
        if isinstance(result, Section):
            return result
        if not isinstance(result, str):
            raise TypeError(f"a part returned {type(result).__name__}, not a Section or str")
        title = next((ln.lstrip("#").strip() for ln in result.splitlines() if ln[:1] == "#"), "")
        return cls(title, result)


# --- a reproduction and its parts --------------------------------------------


@dataclass(frozen=True)
class Part:
    """A part of a reproduction: a module of its package and what it covers."""

    module: str
    covers: str


@dataclass
class PartResult:
    """A part that ran: its module, what it covers and its :class:`Section`."""

    module: str
    covers: str
    section: Section

    # the names the ADaLR report used
    @property
    def markdown(self) -> str:
        return self.section.markdown

    @property
    def seconds(self) -> float:
        return self.section.seconds


@dataclass
class Report:
    """What :func:`run` did: one :class:`PartResult` per part, the report's
    text, the files written and the time it took."""

    parts: list[PartResult]
    markdown: str
    paths: list[str]
    seconds: float

    @property
    def claims(self) -> list[Claim]:
        return [c for p in self.parts for c in p.section.claims]

    @property
    def sections(self) -> list[PartResult]:  # the ADaLR name
        return self.parts

    @property
    def items(self) -> list[PartResult]:  # the name of satcp.reproduce.report.Done
        return self.parts


Render = Callable[[Sequence[PartResult], bool, float], str]


@dataclass(frozen=True)
class Reproduction:
    """A reproduction: ``package`` holds one module per part; ``render(parts,
    quick, seconds)`` returns the report's text."""

    name: str
    package: str
    parts: tuple[Part, ...]
    render: Render
    default_out: str = ""
    claims_csv: bool = True  # write claims.csv (every part's claims)
    report_file: str = REPORT
    #: part name -> an object with ``reproduce(out, workers, quick)``, for a
    #: reproduction whose parts are data (:mod:`.paper_run`), not modules
    runners: Mapping[str, Any] | None = None

    @property
    def out(self) -> str:
        return self.default_out or os.path.join("reports", self.name)

    def part(self, name: str) -> Any:
        """Part ``name``'s runner (``reproduce(out, workers, quick)``): its
        data (:attr:`runners`) or its module (:func:`load_part`)."""
        if self.runners is not None:
            if name not in self.runners:
                raise MissingPart(f"reproduction {self.name} has no part {name!r}")
            return self.runners[name]
        return load_part(self.package, name)

    def reproduce(
        self,
        out_dir: str | os.PathLike[str] | None = None,
        workers: int | None = None,
        quick: bool = False,
        parts: Sequence[Part | tuple[str, str]] | None = None,
    ) -> Report:
        """Runs every part (or ``parts``) and writes their files,
        ``claims.csv`` and ``report.md`` into ``out_dir`` (default: the
        reproduction's own), all or nothing: a reproduction package's
        ``reproduce`` (:func:`run`)."""
        return run(self, out_dir, workers, quick, parts)


def load_part(package: str, name: str) -> ModuleType:
    """The module ``package.name``; :class:`MissingPart` if it does not exist
    or has no ``reproduce``. Errors inside an existing module propagate."""
    full = f"{package}.{name}"
    try:
        mod = importlib.import_module(full)
    except ModuleNotFoundError as e:
        if e.name == full:
            raise MissingPart(f"reproduction part {full} does not exist") from None
        raise
    if not callable(getattr(mod, "reproduce", None)):
        raise MissingPart(f"reproduction part {full} has no reproduce()")
    return mod


def _parts(parts: Sequence[Part | tuple[str, str]]) -> list[Part]:
    return [p if isinstance(p, Part) else Part(*p) for p in parts]


def run(
    repro: Reproduction,
    out_dir: str | os.PathLike[str] | None = None,
    workers: int | None = None,
    quick: bool = False,
    parts: Sequence[Part | tuple[str, str]] | None = None,
    load: Callable[[str], ModuleType] | None = None,
) -> Report:
    """Runs the reproduction's parts (or ``parts``) and writes their files,
    ``claims.csv`` and ``report.md`` into ``out_dir``, all or nothing.
    ``load(module)`` finds a part (default :func:`load_part` in the
    reproduction's package)."""
    t0 = time.perf_counter()
    todo = _parts(repro.parts if parts is None else parts)
    find = load or repro.part
    modules = [find(p.module) for p in todo]  # a missing part fails before any run

    def fill(tmp: str) -> tuple[list[PartResult], str]:
        done: list[PartResult] = []
        with progress.runs(f"reproduce {repro.name}") as bar:
            for p, mod in zip(todo, modules, strict=True):
                bar.describe(f"reproduce {repro.name} ({p.module})")
                t = time.perf_counter()
                sec = Section.of(mod.reproduce(Path(tmp), workers, quick))
                sec.seconds = time.perf_counter() - t
                done.append(PartResult(p.module, p.covers, sec))
        if repro.claims_csv:
            write_claims_csv(Path(tmp, CLAIMS_CSV), [c for d in done for c in d.section.claims])
        text = repro.render(done, quick, time.perf_counter() - t0)
        Path(tmp, repro.report_file).write_text(text, encoding="utf-8")
        return done, text

    (done, text), paths = fill_dir_atomically(out_dir or repro.out, fill)
    return Report(done, text, paths, time.perf_counter() - t0)


def summary_markdown(parts: Sequence[PartResult]) -> list[str]:
    """The report's summary: per part with findings or claims, its title,
    its findings (a list) and its claims table."""
    md: list[str] = []
    for p in parts:
        s = p.section
        if s.findings or s.claims:
            md += [f"**{s.title}**", ""]
            if s.findings:
                md += [*[f"- {f}" for f in s.findings], ""]
            if s.claims:
                md += [*claims_table(s.claims), ""]
    return md


def _run_time(p: PartResult) -> str:
    runs = f"{p.section.runs} runs, " if p.section.runs else ""
    return f"- {p.covers}: {runs}{p.section.seconds:.1f} s"


def sections_markdown(parts: Sequence[PartResult], seconds: float) -> list[str]:
    """The report's lines after its summary's introduction: the summary
    (:func:`summary_markdown`), then each part's section, then the run
    time."""
    md = summary_markdown(parts)
    for p in parts:
        md += [p.section.markdown.rstrip("\n"), ""]
    md += [
        "## Run time",
        "",
        *[_run_time(p) for p in parts],
        f"- total {seconds:.1f} s (simulations in threads, `--workers`)",
        "",
    ]
    return md


# --- an experiment as data ---------------------------------------------------

Point = Mapping[str, Any]


@dataclass(frozen=True)
class PaperValue:
    """A number the paper gives for one cell of an experiment's table: the
    row whose columns match ``where``, column ``column``. ``paper_text``
    shows a bound or rough value ("about 72 %") instead of the number."""

    figure: str
    statement: str
    where: Mapping[str, Any]
    column: str
    value: float
    unit: str = ""
    digits: int = 2
    tolerance: Tolerance = DEFAULT_TOLERANCE
    note: str = ""
    paper_text: str | None = None

    def claim(self, rows: Sequence[Mapping[str, Any]]) -> Claim:
        """The claim: the paper's value beside the table's cell."""
        hits = [r for r in rows if all(r.get(k) == v for k, v in self.where.items())]
        if len(hits) != 1:
            raise ValueError(
                f"paper value {self.figure} {self.statement!r}: "
                f"{len(hits)} rows match {dict(self.where)}"
            )
        v = hits[0].get(self.column)
        return Claim(
            self.figure,
            self.statement,
            self.value,
            None if v is None else float(v),
            unit=self.unit,
            digits=self.digits,
            note=self.note,
            paper_text=self.paper_text,
            tolerance=self.tolerance,
        )


Measured = list[tuple[Point, Any]]
Rows = list[dict[str, Any]]


@dataclass(frozen=True)
class Experiment:
    """A paper's experiment as data.

    - ``grid``: the points (dicts of parameters), in the table's order;
    - ``scenario(point)``: the scenario of a point (a dict or a path);
    - ``metrics(point, results)``: what is read from a point's run;
    - ``table(measured)``: the CSV's rows from [(point, metrics)] (default:
      one row per point, its parameters then its metrics); ``columns``: the
      CSV's columns (default: the first row's keys); ``csv`` is the file
      name, or several files of these columns, each with the rows it keeps
      (file name -> ``keep(row)``), when one grid feeds several figures
      ("" for an experiment only run by :func:`measure`, whose part writes
      its files itself);
      ``write_table(path, columns, rows)`` writes each file (default
      :func:`satcp.reproduce.tables.write_csv`);
    - ``paper``: the paper's values, each a :class:`PaperValue` that becomes
      a :class:`Claim` with its tolerance; ``claims(rows, measured)``: the
      claims instead, when some are statements computed from the table;
    - ``figures(rows, measured, out)``: draws the figures into ``out`` and
      returns their file names (optional);
    - ``share_runs``: points whose scenarios are equal share one run (e.g.
      one run of several flows read once per flow's series)."""

    name: str
    csv: str | Mapping[str, Callable[[Mapping[str, Any]], bool]]
    grid: Sequence[Point]
    scenario: Callable[[Point], Any]
    metrics: Callable[[Point, Any], Any]
    table: Callable[[Measured], Rows] | None = None
    columns: Sequence[str] | None = None
    paper: Sequence[PaperValue] = ()
    claims: Callable[[Rows, Measured], list[Claim]] | None = None
    figures: Callable[[Rows, Measured, Path], list[str]] | None = None
    write_table: Callable[[Path, Sequence[str], Rows], Any] = write_csv
    share_runs: bool = False


@dataclass
class ExperimentResult:
    rows: Rows
    measured: Measured
    claims: list[Claim]
    files: list[str]
    runs: int


def _default_table(measured: Measured) -> Rows:
    return [{**p, **m} for p, m in measured]


K = TypeVar("K")


def run_jobs(jobs: Sequence[tuple[K, Any]], workers: int | None = None) -> list[tuple[K, Any]]:
    """Runs the scenarios of (key, scenario) pairs in parallel (threads,
    :func:`satcp.run_many`, which reports to the progress bar); returns
    (key, results) pairs in the same order. The reproductions' one job
    runner."""
    from .. import run_many

    results = run_many([sc for _, sc in jobs], workers=workers)
    return [(key, res) for (key, _), res in zip(jobs, results, strict=True)]


def measure(exp: Experiment, workers: int | None) -> Measured:
    """Runs every point of ``exp`` (:func:`run_jobs`) and reads its metrics,
    without writing anything: [(point, metrics)] in the grid's order."""
    return _measure(exp, workers)[0]


def _measure(exp: Experiment, workers: int | None) -> tuple[Measured, int]:
    """:func:`measure`, and how many runs it took."""
    scenarios = [exp.scenario(p) for p in exp.grid]
    if not exp.share_runs:
        done = run_jobs(list(zip(exp.grid, scenarios, strict=True)), workers)
        return [(p, exp.metrics(p, r)) for p, r in done], len(done)
    keys = [json.dumps(sc, sort_keys=True, default=str) for sc in scenarios]
    unique = dict(zip(keys, scenarios, strict=True))  # equal scenarios: one run
    results = dict(run_jobs(list(unique.items()), workers))
    measured = [(p, exp.metrics(p, results[k])) for p, k in zip(exp.grid, keys, strict=True)]
    return measured, len(results)


def run_experiment(exp: Experiment, out: Path, workers: int | None) -> ExperimentResult:
    """Runs every point of ``exp`` (:func:`measure`), writes its CSV and
    figures into ``out`` and returns the rows and the claims."""
    if not exp.csv:
        raise ValueError(f"experiment {exp.name}: no csv to write (run it with measure)")
    measured, runs = _measure(exp, workers)
    rows = (exp.table or _default_table)(measured)
    if not rows:
        raise ValueError(f"experiment {exp.name}: no rows")
    columns = tuple(exp.columns or rows[0])
    tables = {exp.csv: None} if isinstance(exp.csv, str) else dict(exp.csv)
    for name, keep in tables.items():
        exp.write_table(out / name, columns, rows if keep is None else [r for r in rows if keep(r)])
    files = list(tables)
    if exp.figures is not None:
        files += exp.figures(rows, measured, out)
    claims = [pv.claim(rows) for pv in exp.paper]
    if exp.claims is not None:
        claims += exp.claims(rows, measured)
    return ExperimentResult(rows, measured, claims, files, runs)

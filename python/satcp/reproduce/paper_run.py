"""Running a paper's data file (:mod:`.paper_file`): each experiment a grid
of runs over a named network of :mod:`satcp.topology` (or a scenario file)
read into a table, its CSV files and figures (:mod:`.outputs`); each part
a :class:`~.experiment.Section` with its claims, figures, CSV files,
findings and text; the report a template. :func:`reproduction` gives the
paper's :class:`~.experiment.Reproduction`; a paper's package needs
nothing else.

What the expressions see (docs/reproductions.md, "Scopes"): the paper's
constants, ``tolerance.NAME``, ``cases.SET``, ``quick``, the helpers
(:data:`HELPERS`, :mod:`.metrics`) and the paper's functions module; in an
experiment, its ``with`` names and the experiments of its part before it;
in a point, its parameters (an axis over a case set gives the
:class:`Case`); in a metric, the run as ``run``; in a column, the row's
fields and ``at(**where)``; in a part, each of its experiments by name
(:class:`ExperimentView`; a part of one experiment also has its columns,
metrics, ``rows``, ``table`` and ``axes`` bare), the part's ``let`` names,
``tables.NAME``, ``lists.NAME``, ``texts.NAME`` and ``claims.NAME`` (a
claims table); in a claim, its ``for``, ``with`` and ``let`` names.
:func:`text` renders a part's prose with made-up numbers, :func:`run_one`
runs one experiment (both for tests).
"""

from __future__ import annotations

import importlib
import itertools
import json
import math
import os
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np

from .. import topology
from ..scenario import apply_override, load, parse_path
from ..stats import mean_ci95
from . import metrics
from .claims import DEFAULT_TOLERANCE, Claim, claims_table, tally
from .experiment import Part, PartResult, Reproduction, Section, sections_markdown
from .expressions import DataError, evaluate, names_in
from .outputs import draw_figures, each, each_of, record, write_csvs
from .paper_file import (
    ClaimSpec,
    ExperimentSpec,
    ListSpec,
    PaperFile,
    PartSpec,
    TableSpec,
    TextSpec,
    read_paper,
)
from .runs import Fields, run_jobs
from .tables import diff_pct, is_nan, markdown_table, write_text

__all__ = [
    "Case",
    "ExperimentView",
    "Keyed",
    "Row",
    "read",
    "reproduction",
    "run_one",
    "run_part",
    "run_some",
    "scenario_path",
    "text",
]


# --- the values expressions see ----------------------------------------------------


class Case:
    """A named parameter set of ``[cases.SET]``: equal to (and hashed as)
    its key, so it is the key in tables and lookups; its fields are
    attributes (``config.iw``)."""

    __slots__ = ("fields", "key")

    def __init__(self, key: str, fields: Mapping[str, Any]) -> None:
        self.key, self.fields = key, dict(fields)

    def __getattr__(self, name: str) -> Any:
        if name in self.__slots__:  # not set yet (a copy being made)
            raise AttributeError(name)
        try:
            return self.fields[name]
        except KeyError:
            known = ", ".join(self.fields)
            raise AttributeError(f"case {self.key!r} has no {name!r} (it has {known})") from None

    def get(self, name: str, default: Any = None) -> Any:
        return self.fields.get(name, default)

    def __eq__(self, other: object) -> bool:
        return self.key == (other.key if isinstance(other, Case) else other)

    def __hash__(self) -> int:
        return hash(self.key)

    def __str__(self) -> str:
        return self.key

    def __repr__(self) -> str:
        return f"Case({self.key!r})"

    def __format__(self, spec: str) -> str:
        return format(self.key, spec)


class CaseSet(list):
    """The cases of a set, in the file's order; ``cases.SET['a', 'b']`` are
    some of them."""

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, (int, slice)):
            return super().__getitem__(key)
        if isinstance(key, tuple):
            return [self[k] for k in key]
        for c in self:
            if c == key:
                return c
        raise KeyError(f"no case {key!r} (cases: {', '.join(map(str, self))})")


class Row(dict):
    """A row of an experiment's table; its fields are attributes too
    (``_key``: its point's axis values)."""

    _key: tuple = ()

    def __getattr__(self, name: str) -> Any:
        try:
            return self[name]
        except KeyError:
            raise AttributeError(f"the row has no {name!r} (it has {', '.join(self)})") from None


class Keyed(dict):
    """One column of an experiment by point: keyed by the point's axis
    values (a tuple in the grid's axis order; the value itself for a grid
    of one axis)."""


@dataclass
class ExperimentView:
    """An experiment that ran, as expressions see it: ``rows`` (one per
    point: parameters, metrics, columns), ``axes.NAME`` (an axis' values,
    in the points' order), every column and metric as a :class:`Keyed`
    attribute, ``at(**where)`` (the one row whose fields match)."""

    name: str
    rows: list[Row]
    axes: SimpleNamespace
    columns: dict[str, Keyed]
    runs: int
    given: dict[str, Any]  # its ``with`` names

    def __getattr__(self, name: str) -> Any:
        for names in (self.__dict__["columns"], self.__dict__["given"]):
            if name in names:
                return names[name]
        raise AttributeError(f"experiment {self.name} has no column or name {name!r}")

    def at(self, **where: Any) -> Row:
        return _at(self.rows, where, self.name)


def _at(rows: Sequence[Row], where: Mapping[str, Any], what: str) -> Row:
    hits = [r for r in rows if all(r.get(k) == v for k, v in where.items())]
    if len(hits) != 1:
        raise LookupError(f"{what}: {len(hits)} rows match {dict(where)}")
    return hits[0]


def mean_by(rows: Sequence[Mapping[str, Any]], column: str, *by: str, **where: Any) -> Keyed:
    """The mean of ``column`` over the rows that match ``where``, per value
    of the ``by`` fields (keyed as an experiment's columns), leaving out
    values that are not numbers (NaN: none is), in the rows' order."""
    groups: dict[Any, list[float]] = {}
    for r in rows:
        if all(r[k] == v for k, v in where.items()):
            key = tuple(r[k] for k in by)
            groups.setdefault(key[0] if len(by) == 1 else key, []).append(r[column])
    out = Keyed()
    for key, values in groups.items():
        v = [float(x) for x in values if not is_nan(x)]
        out[key] = sum(v) / len(v) if v else math.nan
    return out


class _Pieces:
    """``texts.NAME``, ``tables.NAME``, ``lists.NAME``: the part's pieces of
    prose, made when a template asks for them, in its scope; called with
    names (``tables.throughput(f=fig2)``), in that scope with those names."""

    def __init__(self, specs: Mapping[str, Any], scope: dict[str, Any], make: Callable) -> None:
        self._specs, self._scope, self._make = specs, scope, make

    def __getattr__(self, name: str) -> _Piece:
        if name not in self._specs:
            raise AttributeError(f"no {name!r} here (there are: {', '.join(self._specs)})")
        return _Piece(self._make, self._specs[name], self._scope)


@dataclass
class _Piece:
    make: Callable[[Any, dict[str, Any]], Any]
    spec: Any
    scope: dict[str, Any]

    def __call__(self, **names: Any) -> Any:
        return self.make(self.spec, {**self.scope, **names})

    def __str__(self) -> str:
        return str(self())

    def __format__(self, spec: str) -> str:
        return format(str(self()), spec)


class ClaimList(list):
    """A claims table of a part: its claims, and as text the Markdown
    table (:func:`~.claims.claims_table`)."""

    def __str__(self) -> str:
        return "\n".join(claims_table(self))

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)


class _ClaimTables:
    """``claims.NAME``: a part's claims table, made (once) when first asked
    for, in the part's scope as it is then."""

    def __init__(self, specs: Sequence[ClaimSpec], scope: dict[str, Any], paper: PaperFile):
        self._specs, self._scope, self._paper, self._made = specs, scope, paper, {}

    def __getattr__(self, name: str) -> ClaimList:
        if name.startswith("_"):
            raise AttributeError(name)
        if name not in self._made:
            if not any(_tables(s, name) for s in self._specs):
                raise AttributeError(f"no claims table {name!r}")
            made = [claims(s, self._scope, self._paper, name) for s in self._specs]
            self._made[name] = ClaimList(c for cs in made for c in cs)
        return self._made[name]


def _tables(spec: ClaimSpec, name: str) -> bool:
    """Whether a claim, or a claim of a group, is in claims table ``name``."""
    return any(_tables(g, name) for g in spec.group) if spec.group else spec.table == name


def render_text(spec: TextSpec, scope: dict[str, Any]) -> str:
    """The alternative of a text that its ``when`` names (after its ``let``)."""
    if spec.let:
        scope = dict(scope)
        for name, e in spec.let.items():
            scope[name] = e(scope)
    which = spec.when(scope) if spec.when else "text"
    if which not in spec.variants:
        raise DataError(f"{spec.when.key}: {which!r} is not one of {', '.join(spec.variants)}")
    return spec.variants[which](scope)


def fixed(v: float | None, digits: int) -> str:
    """A number with ``digits`` decimals; "" for NaN (a CSV cell)."""
    return "" if is_nan(v) else f"{v:.{digits}f}"


def fmt(v: float | None, digits: int = 1, unit: str = "") -> str:
    """A number with ``digits`` decimals (and its unit); "n/a" for NaN."""
    if is_nan(v):
        return "n/a"
    s = f"{v:.{digits}f}"
    return f"{s} {unit}".strip() if unit else s


#: What every expression can call besides the builtins.
HELPERS: dict[str, Any] = {
    **{name: getattr(metrics, name) for name in metrics.__all__},
    "mean": lambda values: sum(values) / len(values),
    "mean_by": mean_by,
    "fmt": fmt,
    "fixed": fixed,
    "diff_pct": diff_pct,
    "claims_table": lambda claims: "\n".join(claims_table(claims)),
    "paragraphs": lambda items: "\n\n".join(str(x) for x in items),
    "padded": lambda values, n: np.concatenate([values, np.zeros(n - len(values))]),
    "arange": np.arange,
    "math": math,
    "mean_ci95": mean_ci95,
    "window_bound": topology.window_bound,
    "link_bound_s": topology.link_bound_s,
    "scenario_file": lambda name: load(scenario_path(name)),
}


# --- a paper's reproduction ----------------------------------------------------------


def read(package: str, file: str = "paper.toml") -> PaperFile:
    """The data file ``file`` of the reproduction package ``package`` (in
    the directory of its ``__init__.py``)."""
    paper = read_paper(Path(importlib.import_module(package).__file__).parent / file)
    paper.package = package
    return paper


def functions_of(paper: PaperFile, package: str = "") -> dict[str, Any]:
    """The public functions (``__all__``) of the paper's functions module
    (in ``package``, default the paper's)."""
    if not paper.functions:
        return {}
    mod = importlib.import_module(f"{package or paper.package}.{paper.functions}")
    return {n: getattr(mod, n) for n in mod.__all__}


def reproduction(paper: PaperFile, package: str) -> Reproduction:
    """The paper's :class:`~.experiment.Reproduction`: a part per
    ``[parts.NAME]``, run by :func:`run_part`, the report rendered from the
    paper's template."""
    functions = functions_of(paper, package)

    def part(spec: PartSpec) -> Part:
        def run(out: Path, workers: int | None, quick: bool) -> Section:
            return run_part(paper, spec, functions, out, workers, quick)

        return Part(spec.covers, run)

    return Reproduction(
        paper.name,
        {name: part(spec) for name, spec in paper.parts.items()},
        lambda parts, quick, seconds: render_report(paper, functions, parts, quick, seconds),
        paper.out,
        claims_csv=paper.claims_csv,
        report_file=paper.report_file,
        plan=lambda parts, quick: planned(paper, functions, parts, quick),
    )


def run_one(
    paper: PaperFile,
    name: str,
    out: Path,
    workers: int | None = None,
    quick: bool = True,
    **changes: Any,
) -> ExperimentView:
    """Runs experiment ``name`` alone (its CSV and figures into ``out``),
    with ``changes`` to its spec (``quick_axes={"x": [0.3]}``, ``network=``,
    ``given=``), and returns it as a part sees it (for tests)."""
    return run_some(paper, [name], out, workers, quick, **{name: changes})[name]


def run_some(
    paper: PaperFile,
    names: Sequence[str],
    out: Path,
    workers: int | None = None,
    quick: bool = True,
    **changes: Mapping[str, Any],
) -> dict[str, ExperimentView]:
    """Runs the experiments ``names`` in order, each seeing the ones before
    it, with ``changes[name]`` to a spec (:func:`run_one`; for tests)."""
    scope = base_scope(paper, functions_of(paper), quick)
    for name in names:
        spec = replace(paper.experiments[name], **changes.get(name, {}))
        scope[name] = run_experiment(paper, spec, scope, out, workers)
    return {name: scope[name] for name in names}


def text(paper: PaperFile, part: str, name: str, quick: bool = False, **given: Any) -> str:
    """Part ``part``'s text ``name`` (``texts.NAME``), or its whole text
    (``name`` "text"), rendered with the names ``given`` instead of runs
    (for tests: the part's ``let`` names that the text does not need, or
    that ``given`` has, are not computed)."""
    spec = paper.parts[part]
    target = spec.text if name == "text" else {**paper.texts, **spec.texts}[name]
    needed = _needed(spec, paper, names_in(target), set(given))
    lets = {k: e for k, e in spec.let.items() if k in needed and k not in given}
    scope = {**base_scope(paper, functions_of(paper), quick), **given}
    scope = part_names(replace(spec, let=lets), scope, paper)
    return spec.text(scope) if name == "text" else str(getattr(scope["texts"], name))


def _needed(spec: PartSpec, paper: PaperFile, names: set[str], given: set[str]) -> set[str]:
    """``names`` and every name the part's lets, texts and tables among
    them use (but those ``given``), to the end."""
    pieces = {**paper.texts, **paper.tables, **paper.lists}
    pieces |= {**spec.let, **spec.texts, **spec.tables, **spec.lists}
    while True:
        used = [names_in(pieces[n]) for n in names if n in pieces and n not in given]
        more = set().union(*used) - names
        if not more:
            return names
        names |= more


def base_scope(paper: PaperFile, functions: Mapping[str, Any], quick: bool) -> dict[str, Any]:
    """The names every expression of the paper sees (constants may be
    expressions of ``quick`` and the constants above them)."""
    scope = {
        **HELPERS,
        **functions,
        "quick": quick,
        "tolerance": SimpleNamespace(**paper.tolerances),
        "cases": SimpleNamespace(
            **{s: CaseSet(Case(k, f) for k, f in cs.items()) for s, cs in paper.cases.items()}
        ),
    }
    for name, value in paper.constants.items():
        scope[name] = evaluate(value, scope)
    return scope


# --- an experiment ---------------------------------------------------------------


def points(
    paper: PaperFile, spec: ExperimentSpec, scope: dict[str, Any], quick: bool
) -> list[dict[str, Any]]:
    """The grid's points (``[point]`` and the axis values; an axis over a
    case set gives its cases): the union of the grids, each point once, in
    the grids' order or sorted by ``order``."""
    out: dict[tuple, dict[str, Any]] = {}
    for grid in spec.grids:
        axes = {}
        for name, values in {**grid, **(spec.quick_axes if quick else {})}.items():
            cases = getattr(scope["cases"], name, None)
            axes[name] = [cases[v] if cases is not None else v for v in evaluate(values, scope)]
        if list(axes) != spec.axes:
            raise DataError(f"experiments.{spec.name}.grid: every grid has the axes {spec.axes}")
        for values in itertools.product(*axes.values()):
            out.setdefault(tuple(values), {**paper.point, **dict(zip(axes, values, strict=True))})
    found = list(out.values())
    if spec.order is not None:
        found.sort(key=lambda p: spec.order({**scope, **p}))
    return found


def scenario(spec: ExperimentSpec, scope: Mapping[str, Any]) -> dict[str, Any]:
    """The scenario of a point: a named network of :mod:`satcp.topology`
    with its arguments, or a scenario file with ``set`` overrides."""
    args = evaluate({k: v for k, v in spec.network.items() if k != "topology"}, scope)
    if "scenario" in args:
        sc = load(scenario_path(args.pop("scenario")))
        for path, value in args.pop("set", {}).items():
            apply_override(sc, parse_path(path), value)
        if args:
            raise DataError(f"experiments.{spec.name}.network: a scenario file takes only 'set'")
        return sc
    name = spec.network["topology"]
    try:
        return topology.network(name, **args)
    except TypeError as e:
        raise DataError(f"experiments.{spec.name}.network: {name}: {e}") from None


def experiment_grid(
    paper: PaperFile, spec: ExperimentSpec, scope: dict[str, Any]
) -> tuple[dict[str, Any], list[dict[str, Any]], list[dict[str, Any]]]:
    """An experiment's scope (``scope`` with its ``given`` names), its
    points and a scenario per point."""
    scope = dict(scope)
    for name, value in spec.given.items():
        scope[name] = evaluate(value, scope)
    grid = points(paper, spec, scope, scope["quick"])
    return scope, grid, [scenario(spec, {**scope, **p}) for p in grid]


def planned(
    paper: PaperFile, functions: Mapping[str, Any], parts: Sequence[str], quick: bool
) -> Iterator[tuple[dict[str, Any], Fields]]:
    """The runs (scenario, results fields) of the parts' experiments, in
    the order they run, as far as the data file gives them before any run:
    an experiment whose given names, points or network read an earlier
    experiment (a name not in scope here: DataError) is left out, and runs
    when its turn comes."""
    for part in parts:
        scope = base_scope(paper, functions, quick)
        for spec in paper.experiments.values():
            if spec.part == part:
                try:
                    scenarios = experiment_grid(paper, spec, scope)[2]
                except DataError:
                    continue
                yield from ((sc, spec.fields) for sc in scenarios)


def run_experiment(
    paper: PaperFile,
    spec: ExperimentSpec,
    scope: dict[str, Any],
    out: Path,
    workers: int | None,
) -> ExperimentView:
    """Runs every point of an experiment (points whose scenarios are equal
    run once), reads its table, writes its CSV files and figures into
    ``out``."""
    scope, grid, scenarios = experiment_grid(paper, spec, scope)
    keys = [json.dumps(sc, sort_keys=True, default=str) for sc in scenarios]
    unique = dict(zip(keys, scenarios, strict=True))  # equal scenarios: one run
    runs = run_jobs(list(unique.values()), workers, spec.fields)
    results = dict(zip(unique, runs, strict=True))
    rows = []
    for p, k in zip(grid, keys, strict=True):
        s = {**scope, **p, "run": results[k]}
        for name, e in spec.metrics.items():  # in order: a metric may use the ones above it
            s[name] = e(s)
        rows.append(Row({**p, **{name: s[name] for name in spec.metrics}}))
    rows, columns = table(spec, rows, scope)
    write_csvs(spec.csv, scope, out, rows, columns)
    axes = {n: tuple(dict.fromkeys(p[n] for p in grid)) for n in spec.axes}
    view = ExperimentView(
        name=spec.name,
        rows=rows,
        axes=SimpleNamespace(**axes),
        columns={
            f: Keyed((_key(r), r[f]) for r in rows if f in r) for f in [*spec.metrics, *columns]
        },
        runs=len(unique),
        given={k: scope[k] for k in spec.given},
    )
    draw_figures(paper.styles, spec.figures, {**scope, **experiment_scope(view)}, out)
    return view


def _key(r: Row) -> Any:
    return r._key[0] if len(r._key) == 1 else r._key


def table(
    spec: ExperimentSpec, rows: list[Row], scope: dict[str, Any]
) -> tuple[list[Row], list[str]]:
    """The experiment's table: a row per point (or, with ``over``, per
    point of the other axes), then its columns computed column by column
    over all rows (a column may read another row's, ``at``); and the
    columns' names (a column per item of a loop expanded)."""
    keys = [n for n in spec.axes if n != spec.over]
    if spec.over:
        groups: dict[tuple, Row] = {}
        for r in rows:
            k = tuple(r[n] for n in keys)
            if k not in groups:
                groups[k] = Row({n: r[n] for n in keys} | {m: [] for m in spec.metrics})
            for m in spec.metrics:
                groups[k][m].append(r[m])
        rows = list(groups.values())
    for r in rows:  # its point, before a column of an axis' name replaces the value
        r._key = tuple(r[n] for n in keys)
    names: list[str] = []
    for col, e in spec.columns.items():
        for r in rows:
            new = record({col: e}, {**scope, **r, "at": lambda **w: _at(rows, w, spec.name)})
            r.update(new)
            names += [n for n in new if n not in names]
    return rows, names


def experiment_scope(v: ExperimentView) -> dict[str, Any]:
    """An experiment's names, bare (its figures; a part of one experiment)."""
    return {**v.given, **v.columns, "rows": v.rows, "axes": v.axes, "at": v.at}


# --- a part: its experiments, claims, figures, files and text ----------------------------


def run_part(
    paper: PaperFile,
    spec: PartSpec,
    functions: Mapping[str, Any],
    out: Path,
    workers: int | None,
    quick: bool,
) -> Section:
    """Runs the part's experiments in order (each sees the ones before it),
    writes their files and the part's, and returns its section: text,
    claims, findings, runs."""
    scope = base_scope(paper, functions, quick)
    views = {}
    t0 = time.perf_counter()
    for e in paper.experiments.values():
        if e.part == spec.name:
            views[e.name] = run_experiment(paper, e, scope, out, workers)
            scope[e.name] = views[e.name]
    if len(views) == 1:
        scope |= experiment_scope(next(iter(views.values())))
    scope["seconds"] = time.perf_counter() - t0  # the experiments' wall time
    scope = part_names(spec, scope, paper)
    draw_figures(paper.styles, spec.figures, scope, out)
    write_csvs(spec.csv, scope, out)
    findings = [f for f in (t(scope) for t in spec.findings) if f]
    scope["findings"] = findings
    for file, names in spec.files.items():
        write_text(
            out / file,
            spec.text(part_names(spec, {**scope, **evaluate(names, scope)}, paper, lets=False)),
        )
    text = spec.text(scope)
    return Section(
        spec.title,
        text,
        [c for cs in spec.claims for c in claims(cs, scope, paper)],
        runs=sum(v.runs for v in views.values()),
        findings=findings,
        table_claims=[c for n in _table_names(spec.claims) for c in getattr(scope["claims"], n)],
    )


def _table_names(specs: Sequence[ClaimSpec]) -> list[str]:
    """The claims tables (``claims.NAME``) the claims and groups name."""
    names: dict[str, None] = {}
    for s in specs:
        for n in _table_names(s.group) if s.group else [s.table]:
            if n:
                names[n] = None
    return list(names)


def part_names(
    spec: PartSpec, scope: dict[str, Any], paper: PaperFile, lets: bool = True
) -> dict[str, Any]:
    """``scope`` with the part's ``let`` names (in order), its claims tables
    and its and the paper's ``tables``, ``lists`` and ``texts``."""
    scope = dict(scope)
    scope["claims"] = _ClaimTables(spec.claims, scope, paper)
    with_pieces(scope, paper, spec.tables, spec.lists, spec.texts)  # the lets may use them
    for name, e in spec.let.items() if lets else ():
        scope[name] = e(scope)
    return scope


def with_pieces(
    scope: dict[str, Any],
    paper: PaperFile,
    tables: Mapping[str, TableSpec],
    lists: Mapping[str, ListSpec],
    texts: Mapping[str, TextSpec],
) -> dict[str, Any]:
    """``scope`` with ``tables``, ``lists`` and ``texts``: the paper's and
    these."""
    scope["texts"] = _Pieces({**paper.texts, **texts}, scope, render_text)
    scope["tables"] = _Pieces({**paper.tables, **tables}, scope, markdown)
    scope["lists"] = _Pieces({**paper.lists, **lists}, scope, markdown_list)
    return scope


def markdown_list(spec: ListSpec, scope: dict[str, Any]) -> str:
    """A list in Markdown, or in a line."""
    items = [spec.item(s) for s in each(spec.items, scope)]
    if spec.sep is not None:
        return spec.sep.join(items)
    return "\n".join(f"- {item}" for item in items)


def markdown(spec: TableSpec, scope: dict[str, Any]) -> str:
    """A table in Markdown."""
    headers: list[str] = []
    for header, _, loop in spec.columns:
        headers += [header(s) for s in each(loop, scope)] if loop else [header(scope)]
    rows = []
    for rs in each(spec.rows, scope):
        row: list[str] = []
        for _, cell, loop in spec.columns:
            row += [cell(s) for s in each(loop, rs)] if loop else [cell(rs)]
        rows.append(row)
    return "\n".join(markdown_table(headers, rows, spec.align))


def claims(
    spec: ClaimSpec,
    scope: dict[str, Any],
    paper: PaperFile,
    table: str = "",
    part: Mapping[str, Any] | None = None,
) -> list[Claim]:
    """The claim (one per combination of its ``for`` loops, each with its
    ``with`` and ``let`` names), or a group's claims, of claims table
    ``table`` ("": the part's own). A claim's ``data``: its names and its
    groups' that the part (``part``, default ``scope``) does not have."""
    if not _tables(spec, table):
        return []
    part = scope if part is None else part
    out = []
    for s in each_of(spec.loops, scope):
        for name, value in spec.given.items():
            s[name] = evaluate(value, s)
        for name, e in spec.let.items():
            s[name] = e(s)
        if spec.group:
            out += [c for g in spec.group for c in claims(g, s, paper, table, part)]
            continue
        paper_value = evaluate(spec.paper, s)
        satcp = evaluate(spec.satcp, s)
        holds = evaluate(spec.holds, s)
        implied = evaluate(spec.implied, s)
        tolerance = paper.tolerances[spec.tolerance] if spec.tolerance else DEFAULT_TOLERANCE
        out.append(
            Claim(
                spec.where(s),
                spec.statement(s),
                None if paper_value is None else float(paper_value),
                None if satcp is None else float(satcp),
                unit=spec.unit(s) if spec.unit else "",
                holds=None if holds is None else bool(holds),
                note=spec.note(s) if spec.note else "",
                digits=spec.digits,
                paper_text=spec.paper_text(s) if spec.paper_text else None,
                tolerance=tolerance,
                implied=None if implied is None else float(implied),
                verdict_text=spec.verdict(s) if spec.verdict else "",
                data={k: v for k, v in s.items() if k not in part or part[k] is not v},
            )
        )
    return out


# --- the report ------------------------------------------------------------------------


def render_report(
    paper: PaperFile,
    functions: Mapping[str, Any],
    parts: Sequence[PartResult],
    quick: bool,
    seconds: float,
) -> str:
    """The report: the paper's template with the parts' sections."""
    scope = base_scope(paper, functions, quick)
    scope |= {
        "claims": [c for p in parts for c in p.section.claims],
        # the overall count, the tables' claims too: str() is its line
        "tally": tally(c for p in parts for c in p.section.every_claim),
        "sections": "\n".join(sections_markdown(parts, seconds, paper.run_counts)),
        "section": SimpleNamespace(**{p.module: p.section.markdown for p in parts}),
        "seconds": seconds,
    }
    for name, e in paper.report_let.items():
        scope[name] = e(scope)
    with_pieces(scope, paper, {}, {}, paper.report_texts)
    return paper.report(scope).rstrip("\n") + "\n"


# --- scenario files ----------------------------------------------------------------------


def scenario_path(name: str) -> Path:
    """The path of a shipped scenario file (first found wins): in the
    directory of the environment variable ``SATCP_SCENARIOS``; in
    ``scenarios/`` of the source checkout (found by walking up from this
    package: a checkout, or an editable install such as ``make setup``'s);
    in the copies shipped as package data in ``satcp/scenarios/`` (an
    installed wheel; ``tests/python/test_reproduce.py`` checks that they
    equal the checkout's: after editing ``scenarios/thesis_*.toml`` copy
    them, ``cp scenarios/thesis_*.toml python/satcp/scenarios/``)."""
    from importlib import resources

    env = os.environ.get("SATCP_SCENARIOS")
    if env:
        p = Path(env) / name
        if p.is_file():
            return p
        raise FileNotFoundError(2, "not found (SATCP_SCENARIOS is set)", str(p))
    here = Path(__file__).resolve().parent
    for d in here.parents:
        p = d / "scenarios" / name
        if p.is_file() and (d / "Cargo.toml").is_file():
            return p
    packaged = resources.files("satcp") / "scenarios" / name
    if packaged.is_file():
        return Path(str(packaged))
    raise FileNotFoundError(2, "scenario file not found", f"scenarios/{name}")

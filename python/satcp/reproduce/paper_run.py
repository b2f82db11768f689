"""Running a paper's data file (:mod:`.paper_file`) on the engine of
:mod:`.experiment`: each experiment becomes an
:class:`~.experiment.Experiment` (its grid over a named network of
:mod:`satcp.topology`, or over a scenario file, its metrics and table, its
figures), each part a section with its claims, tables and text, the report
a template. :func:`reproduction` gives the paper's
:class:`~.experiment.Reproduction`; a paper's package needs nothing else.

What the expressions see (docs/reproductions.md, "Scopes"): the paper's
constants, ``tolerance.NAME``, ``cases.SET``, ``quick``, the helpers
(:data:`HELPERS`, :mod:`.metrics`) and the paper's functions module; in an
experiment, its ``with`` names; in a point, its parameters (an axis over a
case set gives the :class:`Case`); in a metric, the run as ``run``; in a
column, the row's fields and ``at(**where)``; in a part, each of its
experiments by name (:class:`ExperimentView`; a part of one experiment
also has its columns, metrics, ``rows``, ``table`` and ``axes`` bare), the
part's ``let`` names, ``tables.NAME``, ``lists.NAME`` and ``texts.NAME``;
in a claim, its ``for``, ``with`` and ``let`` names. :func:`text` renders
a part's prose with made-up numbers, :func:`run_one` runs one experiment
(both for tests).
"""

from __future__ import annotations

import importlib
import itertools
import math
import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np

from .. import topology
from ..scenario import apply_override, load, parse_path
from ..stats import mean_ci95
from . import metrics, plotstyle
from .claims import DEFAULT_TOLERANCE, Claim
from .experiment import (
    Experiment,
    ExperimentResult,
    Part,
    PartResult,
    Reproduction,
    Section,
    run_experiment,
    sections_markdown,
)
from .expressions import DataError, Template, evaluate, names_in
from .paper_file import (
    ClaimSpec,
    ExperimentSpec,
    FigureSpec,
    ListSpec,
    Loop,
    PaperFile,
    PartSpec,
    TableSpec,
    TextSpec,
    read_paper,
)
from .tables import markdown_table, write_csv

__all__ = [
    "Case",
    "ExperimentView",
    "Keyed",
    "Row",
    "read",
    "reproduction",
    "run_one",
    "run_part",
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
    point: parameters, metrics, columns), ``table`` (the rows as written to
    its CSV file), ``axes.NAME`` (an axis' values), every column and
    metric as a :class:`Keyed` attribute, ``at(**where)`` (the one row
    whose fields match)."""

    name: str
    rows: list[Row]
    table: list[dict[str, Any]]
    axes: SimpleNamespace
    columns: dict[str, Keyed]
    files: list[str]
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
    make: Callable[[Any, dict[str, Any]], str]
    spec: Any
    scope: dict[str, Any]

    def __call__(self, **names: Any) -> str:
        return self.make(self.spec, {**self.scope, **names})

    def __str__(self) -> str:
        return self()

    def __format__(self, spec: str) -> str:
        return format(self(), spec)


def render_text(spec: TextSpec, scope: dict[str, Any]) -> str:
    """The alternative of a text that its ``when`` names."""
    which = spec.when(scope) if spec.when else "text"
    if which not in spec.variants:
        raise DataError(f"{spec.when.key}: {which!r} is not one of {', '.join(spec.variants)}")
    return spec.variants[which](scope)


#: What every expression can call besides the builtins.
HELPERS: dict[str, Any] = {
    **{name: getattr(metrics, name) for name in metrics.__all__},
    "mean": lambda values: sum(values) / len(values),
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
    return read_paper(Path(importlib.import_module(package).__file__).parent / file)


def functions_of(paper: PaperFile, package: str) -> dict[str, Any]:
    """The paper's functions module's public functions (``__all__``)."""
    if not paper.functions:
        return {}
    mod = importlib.import_module(f"{package}.{paper.functions}")
    return {n: getattr(mod, n) for n in mod.__all__}


def reproduction(paper: PaperFile, package: str) -> Reproduction:
    """The paper's :class:`~.experiment.Reproduction`: a part per
    ``[parts.NAME]``, run by :func:`run_part`, the report rendered from the
    paper's template."""
    functions = functions_of(paper, package)

    def runner(spec: PartSpec) -> SimpleNamespace:
        def run(out: Path, workers: int | None, quick: bool) -> Section:
            return run_part(paper, spec, functions, out, workers, quick)

        return SimpleNamespace(reproduce=run)

    return Reproduction(
        paper.name,
        package,
        tuple(Part(name, spec.covers) for name, spec in paper.parts.items()),
        lambda parts, quick, seconds: render_report(paper, functions, parts, quick, seconds),
        paper.out,
        claims_csv=paper.claims_csv,
        report_file=paper.report_file,
        runners={name: runner(spec) for name, spec in paper.parts.items()},
    )


def run_one(
    paper: PaperFile,
    name: str,
    out: Path,
    workers: int | None = None,
    quick: bool = True,
    functions: Mapping[str, Any] | None = None,
    **changes: Any,
) -> ExperimentView:
    """Runs experiment ``name`` alone (its CSV and figures into ``out``),
    with ``changes`` to its spec (``quick_axes={"x": [0.3]}``, ``network=``,
    ``given=``), and returns it as a part sees it (for tests)."""
    spec = replace(paper.experiments[name], **changes)
    return run_spec(paper, spec, base_scope(paper, functions or {}, quick), out, workers, quick)


def run_spec(
    paper: PaperFile,
    spec: ExperimentSpec,
    scope: dict[str, Any],
    out: Path,
    workers: int | None,
    quick: bool,
) -> ExperimentView:
    """Runs an experiment, writes its CSV file and figures into ``out``."""
    exp, axes, names = experiment(paper, spec, scope, quick)
    done = run_experiment(exp, out, workers)
    v = view(spec, done, axes, list(done.files), names)
    v.files += draw_figures(paper, spec.figures, {**names, **experiment_scope(v)}, out)
    return v


def text(paper: PaperFile, part: str, name: str, quick: bool = False, **given: Any) -> str:
    """Part ``part``'s text ``name`` (``texts.NAME``), or its whole text
    (``name`` "text"), rendered with the names ``given`` instead of runs
    (for tests: the part's ``let`` names that the text does not need, or
    that ``given`` has, are not computed)."""
    spec = paper.parts[part]
    target = spec.text if name == "text" else {**paper.texts, **spec.texts}[name]
    needed = _needed(spec, paper, names_in(target), set(given))
    lets = {k: e for k, e in spec.let.items() if k in needed and k not in given}
    scope = part_names(replace(spec, let=lets), {**base_scope(paper, {}, quick), **given}, paper)
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


def _grid(spec: ExperimentSpec, scope: dict[str, Any], quick: bool) -> dict[str, list[Any]]:
    """Each axis' values (cases for an axis over a case set)."""
    axes = {**spec.axes, **(spec.quick_axes if quick else {})}
    out = {}
    for name, values in axes.items():
        values = evaluate(values, scope)
        cases = getattr(scope["cases"], name, None)
        out[name] = [cases[v] if cases is not None else v for v in values]
    return out


def _network(spec: ExperimentSpec, scope: Mapping[str, Any]) -> dict[str, Any]:
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


def experiment(
    paper: PaperFile, spec: ExperimentSpec, scope: dict[str, Any], quick: bool
) -> tuple[Experiment, dict[str, list[Any]], dict[str, Any]]:
    """The spec as the engine's :class:`~.experiment.Experiment`, its axes
    and its scope (``scope`` with its ``with`` names)."""
    scope = dict(scope)
    for name, value in spec.given.items():
        scope[name] = evaluate(value, scope)
    axes = _grid(spec, scope, quick)
    names = list(axes)
    grid = [
        {**paper.point, **dict(zip(names, values, strict=True))}
        for values in itertools.product(*axes.values())
    ]

    def point_scope(p: Mapping[str, Any]) -> dict[str, Any]:
        return {**scope, **p}

    def read(p: Mapping[str, Any], run: Any) -> dict[str, Any]:
        ps = {**point_scope(p), "run": run}
        for k, e in spec.metrics.items():  # in order: a metric may use the ones above it
            ps[k] = e(ps)
        return {k: ps[k] for k in spec.metrics}

    def table(measured: list[tuple[Mapping[str, Any], Any]]) -> list[Row]:
        rows = [Row({**p, **m}) for p, m in measured]
        if spec.over:
            rows = _summarize(rows, [n for n in names if n != spec.over], list(spec.metrics))
        keys = [n for n in names if n != spec.over]
        for r in rows:  # its point, before a column of an axis' name replaces the value
            r._key = tuple(r[n] for n in keys)
        for col, e in spec.columns.items():  # column by column: a column may read another row's
            values = [e({**scope, **r, "at": lambda **w: _at(rows, w, spec.name)}) for r in rows]
            for r, v in zip(rows, values, strict=True):
                r[col] = v
        return rows

    def write_table(path: Path, columns: Sequence[str], rows: list[Row]) -> Path:
        return write_csv(path, *_pivot(spec, columns, rows))

    exp = Experiment(
        name=spec.name,
        csv=Template(spec.csv, f"experiments.{spec.name}.csv")(scope),
        grid=grid,
        scenario=lambda p: _network(spec, point_scope(p)),
        metrics=read,
        table=table,
        columns=tuple(spec.columns),
        write_table=write_table,
        share_runs=True,
    )
    return exp, axes, scope


def _summarize(rows: list[Row], keys: list[str], metrics: list[str]) -> list[Row]:
    """A row per value of the ``keys`` fields (in the order they come):
    those fields, and each metric the list of its values."""
    groups: dict[tuple, Row] = {}
    for r in rows:
        k = tuple(r[n] for n in keys)
        if k not in groups:
            groups[k] = Row({n: r[n] for n in keys} | {m: [] for m in metrics})
        for m in metrics:
            groups[k][m].append(r[m])
    return list(groups.values())


def _pivot(
    spec: ExperimentSpec, columns: Sequence[str], rows: list[Row]
) -> tuple[Sequence[str], list[dict[str, Any]]]:
    """The CSV's columns and rows: the table, or (``csv.pivot``) one row per
    value of ``pivot.rows`` with ``pivot.columns`` repeated per value of
    ``pivot.spread``, named by the ``pivot.name`` template."""
    pv = spec.pivot
    if pv is None:
        return columns, rows
    keep, spread, repeated = list(pv["keep"]), pv["spread"], list(pv["columns"])
    out: dict[Any, dict[str, Any]] = {}
    spreads: list[Any] = []
    for r in rows:
        row = out.setdefault(tuple(r[k] for k in keep), {k: r[k] for k in keep})
        if r[spread] not in spreads:
            spreads.append(r[spread])
        for c in repeated:
            row[pv["name"].format(column=c, **{spread: r[spread]})] = r[c]
    names = [pv["name"].format(column=c, **{spread: s}) for s in spreads for c in repeated]
    return [*keep, *names], list(out.values())


def view(
    spec: ExperimentSpec,
    done: ExperimentResult,
    axes: Mapping[str, list[Any]],
    files: list[str],
    scope: Mapping[str, Any],
) -> ExperimentView:
    def key(r: Row) -> Any:
        return r._key[0] if len(r._key) == 1 else r._key

    fields = [*spec.metrics, *spec.columns]
    return ExperimentView(
        name=spec.name,
        rows=done.rows,
        table=_pivot(spec, tuple(spec.columns), done.rows)[1],
        axes=SimpleNamespace(**{n: tuple(v) for n, v in axes.items()}),
        columns={f: Keyed((key(r), r[f]) for r in done.rows) for f in fields},
        files=files,
        runs=done.runs,
        given={k: scope[k] for k in spec.given},
    )


def experiment_scope(v: ExperimentView) -> dict[str, Any]:
    """An experiment's names, bare (a part of one experiment)."""
    return {
        **v.given,
        **v.columns,
        "rows": v.rows,
        "table": v.table,
        "axes": v.axes,
        "at": v.at,
    }


# --- figures -------------------------------------------------------------------------


def draw_figures(
    paper: PaperFile, specs: Sequence[FigureSpec], scope: dict[str, Any], out: Path
) -> list[str]:
    """Each figure as PNG (and its series as CSV when asked): files written."""
    files = []
    for f in specs:
        fs = dict(scope)
        for name, e in f.let.items():
            fs[name] = e(fs)
        panels = []
        for pn in f.panels:
            series = [
                plotstyle.Series(
                    str(evaluate(pn.series.label, s)),
                    evaluate(pn.series.x, s),
                    evaluate(pn.series.y, s),
                    str(evaluate(pn.series.style, s)),
                    markers=pn.series.markers,
                    linewidth=pn.series.linewidth,
                    drawstyle=pn.series.drawstyle,
                    yerr=evaluate(pn.series.yerr, s),
                    markersize=pn.series.markersize,
                    capsize=pn.series.capsize,
                )
                for s in _each(pn.series.loop, fs)
            ]
            ylim, xlim = evaluate(pn.ylim, fs), evaluate(pn.xlim, fs)
            panels.append(
                plotstyle.Panel(
                    pn.xlabel(fs),
                    pn.ylabel(fs),
                    series,
                    xlog=bool(evaluate(pn.xlog, fs)),
                    ylim=None if ylim is None else tuple(ylim),
                    xlim=None if xlim is None else tuple(xlim),
                    legend=pn.legend,
                )
            )
        if f.csv is not None:
            files.append(_figure_csv(f, panels[0], fs, out))
        name = f.file(fs)
        plotstyle.plot(out / name, f.title(fs), panels, paper.styles, height=f.height)
        files.append(name)
    return files


def _figure_csv(f: FigureSpec, panel: plotstyle.Panel, scope: dict[str, Any], out: Path) -> str:
    """The first panel's series as CSV: the x column, then one column per
    series (named by the ``y`` template with the series' loop names)."""
    items = list(_each(f.panels[0].series.loop, scope))
    cols = [f.csv["y"](s) for s in items]
    x = panel.series[0].x
    rows = [
        {
            f.csv["x"]: float(t),
            **{c: float(s.y[i]) for c, s in zip(cols, panel.series, strict=True)},
        }
        for i, t in enumerate(x)
    ]
    name = f.csv["file"](scope)
    write_csv(out / name, (f.csv["x"], *cols), rows)
    return name


def _each(loop: Loop, scope: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """The scope once per item of ``loop``."""
    for item in loop.items(scope):
        yield {**scope, **loop.bind(item)}


def _each_of(loops: Sequence[Loop], scope: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """The scope once per combination of ``loops`` (nested, first outermost)."""
    if not loops:
        yield dict(scope)
        return
    for s in _each(loops[0], scope):
        yield from _each_of(loops[1:], s)


# --- a part: its experiments, claims and text -------------------------------------------


def run_part(
    paper: PaperFile,
    spec: PartSpec,
    functions: Mapping[str, Any],
    out: Path,
    workers: int | None,
    quick: bool,
) -> Section:
    """Runs the part's experiments (writing their CSV files and figures)
    and returns its section: text, claims, files, runs."""
    scope = base_scope(paper, functions, quick)
    views = {
        e.name: run_spec(paper, e, scope, out, workers, quick)
        for e in paper.experiments.values()
        if e.part == spec.name
    }
    scope |= views
    if len(views) == 1:
        scope |= experiment_scope(next(iter(views.values())))
    part_scope = part_names(spec, scope, paper)
    return Section(
        spec.title,
        spec.text(part_scope),
        [c for cs in spec.claims for c in claims(cs, part_scope, paper)],
        [f for v in views.values() for f in v.files],
        runs=sum(v.runs for v in views.values()),
    )


def part_names(spec: PartSpec, scope: dict[str, Any], paper: PaperFile) -> dict[str, Any]:
    """``scope`` with the part's ``let`` names (in order), and its and the
    paper's ``tables``, ``lists`` and ``texts``."""
    scope = dict(scope)
    for name, e in spec.let.items():
        scope[name] = e(scope)
    return with_pieces(scope, paper, spec.tables, spec.lists, spec.texts)


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
    """A list in Markdown."""
    return "\n".join(f"- {spec.item(s)}" for s in _each(spec.items, scope))


def markdown(spec: TableSpec, scope: dict[str, Any]) -> str:
    """A table in Markdown."""
    headers: list[str] = []
    for header, _, loop in spec.columns:
        headers += [header(s) for s in _each(loop, scope)] if loop else [header(scope)]
    rows = []
    for rs in _each(spec.rows, scope):
        row: list[str] = []
        for _, cell, loop in spec.columns:
            row += [cell(s) for s in _each(loop, rs)] if loop else [cell(rs)]
        rows.append(row)
    return "\n".join(markdown_table(headers, rows, spec.align))


def claims(spec: ClaimSpec, scope: dict[str, Any], paper: PaperFile) -> list[Claim]:
    """The claim (one per combination of its ``for`` loops, each with its
    ``with`` and ``let`` names), or a group's claims."""
    out = []
    for s in _each_of(spec.loops, scope):
        for name, value in spec.given.items():
            s[name] = evaluate(value, s)
        for name, e in spec.let.items():
            s[name] = e(s)
        if spec.group:
            out += [c for g in spec.group for c in claims(g, s, paper)]
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
        "sections": "\n".join(sections_markdown(parts, seconds)),
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

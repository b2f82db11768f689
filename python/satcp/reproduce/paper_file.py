"""A paper's data file (``<paper>/paper.toml``): read and checked into a
:class:`PaperFile`, every expression and template compiled. An unknown or
missing key, a value of the wrong kind or an expression that does not
parse is a :class:`~.expressions.DataError` naming the file and the key.
The format: docs/reproductions.md.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..topology import NETWORKS
from .claims import Tolerance
from .expressions import DataError, Expression, Template, compile_value, is_expression

__all__ = [
    "ClaimSpec",
    "CsvSpec",
    "ExperimentSpec",
    "FigureSpec",
    "ListSpec",
    "Loop",
    "PaperFile",
    "PartSpec",
    "TableSpec",
    "TextSpec",
    "read_paper",
]


@dataclass(frozen=True)
class Loop:
    """``for = "x in expression"`` (or ``"x, y in ..."``): the names bound
    to each item of the expression's value."""

    names: tuple[str, ...]
    items: Expression

    @classmethod
    def parse(cls, text: Any, key: str) -> Loop:
        m = re.fullmatch(r"\s*(\w+(?:\s*,\s*\w+)*)\s+in\s+(.+)", text or "", re.S)
        if not isinstance(text, str) or m is None:
            raise DataError(f"{key}: {text!r} is not 'name in expression'")
        return cls(tuple(n.strip() for n in m[1].split(",")), Expression(m[2], key))

    def bind(self, item: Any) -> dict[str, Any]:
        if len(self.names) == 1:
            return {self.names[0]: item}
        return dict(zip(self.names, item, strict=True))


@dataclass(frozen=True)
class ColumnLoop:
    """A column entry that is one column per item of ``loop``, named by
    its key (a template: ``"conn{i}"``)."""

    loop: Loop
    value: Expression


#: A table's columns: name -> expression, or name template -> ColumnLoop.
Columns = dict[str, "Expression | ColumnLoop"]


@dataclass
class CsvSpec:
    """A CSV file: a row per table row that ``where`` keeps (an
    experiment's) and per item of the loops ``each`` (a part's: its loops
    only); ``columns`` (default: the experiment's); ``header`` (names
    written instead of the columns'); ``pivot``."""

    file: Template
    each: tuple[Loop, ...] = ()
    where: Expression | None = None
    columns: Columns | None = None
    header: Any = None  # a list of names, or an expression giving it
    pivot: dict[str, Any] | None = None


@dataclass
class ClaimSpec:
    """A claim: where the paper says it, the statement, the paper's number
    (or none), satcp's value, and how it holds (a tolerance, or ``holds``);
    ``table``: a claims table of the part's text rather than the part's
    claims."""

    key: str
    where: Template
    statement: Template
    paper: Any = None
    paper_text: Template | None = None
    satcp: Any = None
    holds: Any = None
    unit: Template | None = None
    digits: int = 2
    note: Template | None = None
    tolerance: str = ""
    implied: Any = None
    verdict: Template | None = None
    table: str = ""
    loops: tuple[Loop, ...] = ()
    #: per item of ``loops``: ``with`` names (a rule's defaults, the
    #: claim's values), then ``let`` names (a rule's formulas), in order
    given: dict[str, Any] = field(default_factory=dict)
    let: dict[str, Expression] = field(default_factory=dict)
    #: a group: these claims once per item of ``loops`` (none: a claim)
    group: list[ClaimSpec] = field(default_factory=list)


#: A panel's keys that are values (expressions) and their defaults.
PANEL_VALUES = {
    "xlog": False,
    "ylim": None,
    "xlim": None,
    "hlines": (),
    "xticks": None,
    "xticklabels": None,
}
#: A series' keys that are plain settings and their defaults.
SERIES_SETTINGS = {
    "markers": False,
    "linewidth": 1.4,
    "drawstyle": "default",
    "markersize": 5.0,
    "capsize": None,
}
#: A figure's keys that are values (expressions) and their defaults: its
#: size (inches; height default 3.4 per panel and 0.6), the resolution it is
#: saved at and laid out at (None: matplotlib's default), its title's wrap
#: width (None: as it is) and size.
FIGURE_VALUES = {
    "width": 7.0,
    "height": None,
    "dpi": 100,
    "figure_dpi": None,
    "title_width": 80,
    "title_size": 10,
}


@dataclass
class SeriesSpec:
    """One line of a panel, per item of ``loop``."""

    loop: Loop
    x: Any
    y: Any
    label: Any
    style: Any = ""
    yerr: Any = None  # error bars
    settings: dict[str, Any] = field(default_factory=dict)  # SERIES_SETTINGS


@dataclass
class PanelSpec:
    xlabel: Template
    ylabel: Template
    series: SeriesSpec
    legend: bool = True
    grid: str = "major"  # or "both": minor grid lines too (a log axis)
    values: dict[str, Any] = field(default_factory=dict)  # PANEL_VALUES


@dataclass
class FigureSpec:
    """A PNG figure (one per item of ``loops``): stacked panels, or drawn by
    ``draw`` (an expression giving a matplotlib figure); ``csv`` also
    writes the first panel's series as a CSV file (``{file, x, y}``: the x
    column's name, a template naming each series' column)."""

    key: str
    file: Template
    title: Template | None
    panels: list[PanelSpec]
    loops: tuple[Loop, ...] = ()
    let: dict[str, Expression] = field(default_factory=dict)
    csv: dict[str, Any] | None = None
    draw: Expression | None = None
    values: dict[str, Any] = field(default_factory=dict)  # FIGURE_VALUES


@dataclass
class ExperimentSpec:
    """A grid of runs over a named network, read into a table."""

    name: str
    part: str
    #: the grid: the union of these (each an axis per key), first axis outermost
    grids: list[dict[str, Any]]
    quick_axes: dict[str, Any]
    network: dict[str, Any]
    metrics: dict[str, Expression]
    columns: Columns
    csv: list[CsvSpec] = field(default_factory=list)
    figures: list[FigureSpec] = field(default_factory=list)
    #: a sort key of the points (a union of grids in the table's order)
    order: Expression | None = None
    #: an axis the table summarizes: a row per point of the other axes,
    #: each metric the list of its values over this axis
    over: str = ""
    #: ``with``: names of the experiment (its network, metrics, columns and
    #: figures see them; a part sees them as the experiment's attributes)
    given: dict[str, Any] = field(default_factory=dict)
    #: ``fields``: the results fields its metrics read (dotted paths, the
    #: single values always kept; :func:`satcp.results.picked_fields`): the
    #: core writes only those. None: the whole results.
    fields: tuple[str, ...] | None = None

    @property
    def axes(self) -> list[str]:
        return list(dict.fromkeys(k for g in self.grids for k in g))


@dataclass
class TableSpec:
    """A Markdown table of the report: a row per item of ``rows``, a column
    per entry of ``columns`` (an entry with ``for`` is one per item)."""

    rows: Loop
    columns: list[tuple[Template, Template, Loop | None]]
    align: str | None = None


@dataclass
class ListSpec:
    """A Markdown list of the report: an item per element of ``items``; with
    ``sep``, the items in a line, separated by it (a list in a sentence)."""

    items: Loop
    item: Template
    sep: str | None = None


@dataclass
class TextSpec:
    """Prose with alternatives: ``when`` names the one to render (None: the
    one alternative, "text"), after its own ``let`` names."""

    when: Expression | None
    variants: dict[str, Template]
    let: dict[str, Expression] = field(default_factory=dict)


@dataclass
class PartSpec:
    """A section of the report: its experiments' claims, tables and text,
    its own figures and CSV files, and its one-line findings for the
    report's summary; ``files``: its text also written to files, each
    rendered with some names given."""

    name: str
    covers: str
    title: str
    text: Template
    let: dict[str, Expression] = field(default_factory=dict)
    tables: dict[str, TableSpec] = field(default_factory=dict)
    lists: dict[str, ListSpec] = field(default_factory=dict)
    texts: dict[str, TextSpec] = field(default_factory=dict)
    claims: list[ClaimSpec] = field(default_factory=list)
    figures: list[FigureSpec] = field(default_factory=list)
    csv: list[CsvSpec] = field(default_factory=list)
    findings: list[Template] = field(default_factory=list)
    files: dict[str, dict[str, Any]] = field(default_factory=dict)


@dataclass
class PaperFile:
    """A paper's data file, read and checked."""

    path: Path
    name: str
    out: str
    report: Template
    report_file: str
    run_counts: bool  # the run-time list says each part's runs
    report_let: dict[str, Expression]
    report_texts: dict[str, TextSpec]
    functions: str
    claims_csv: bool
    constants: dict[str, Any]
    tolerances: dict[str, Tolerance]
    styles: dict[str, tuple[str | None, str, str]]
    cases: dict[str, dict[str, dict[str, Any]]]
    point: dict[str, Any]
    network: dict[str, Any]
    experiments: dict[str, ExperimentSpec]
    parts: dict[str, PartSpec]
    #: ``[tables]``, ``[lists]``, ``[texts]``: every part's and the report's
    tables: dict[str, TableSpec] = field(default_factory=dict)
    lists: dict[str, ListSpec] = field(default_factory=dict)
    texts: dict[str, TextSpec] = field(default_factory=dict)
    #: the package it belongs to (where its functions module is)
    package: str = ""


# --- checking a table's keys -------------------------------------------------------


class _Table:
    """A TOML table being read: takes its keys one by one and, at the end,
    says which were not expected."""

    def __init__(self, doc: Any, key: str, path: Path) -> None:
        if not isinstance(doc, Mapping):
            raise DataError(f"{path}: {key}: must be a table, not {type(doc).__name__}")
        self.doc, self.key, self.path, self.taken = doc, key, path, set()

    def where(self, k: str) -> str:
        return f"{self.key}.{k}" if self.key else k

    def at(self, k: str) -> str:
        """The key's full name, with the file's path."""
        return f"{self.path}: {self.where(k)}"

    def error(self, k: str, what: str) -> DataError:
        return DataError(f"{self.at(k)}: {what}")

    def get(self, k: str, kind: type | tuple[type, ...] = object, default: Any = None) -> Any:
        self.taken.add(k)
        if k not in self.doc:
            return default
        v = self.doc[k]
        if not isinstance(v, kind) or (isinstance(v, bool) and kind in (int, float)):
            names = (
                kind.__name__ if isinstance(kind, type) else " or ".join(t.__name__ for t in kind)
            )
            raise self.error(k, f"must be a {names}, not {type(v).__name__} {v!r}")
        return v

    def need(self, k: str, kind: type | tuple[type, ...] = object) -> Any:
        if k not in self.doc:
            raise self.error(k, "missing")
        return self.get(k, kind)

    def table(self, k: str, required: bool = False) -> _Table:
        if required and k not in self.doc:
            raise self.error(k, "missing")
        return _Table(self.get(k, Mapping, {}), self.where(k), self.path)

    def tables(self, k: str) -> list[_Table]:
        """An array of tables (or one table)."""
        v = self.get(k, (list, Mapping), [])
        if isinstance(v, Mapping):
            return [_Table(v, self.where(k), self.path)]
        return [_Table(x, f"{self.where(k)}[{i}]", self.path) for i, x in enumerate(v)]

    def done(self) -> None:
        unknown = [k for k in self.doc if k not in self.taken]
        if unknown:
            known = ", ".join(sorted(self.taken))
            raise self.error(unknown[0], f"unknown key (known here: {known})")

    # compiled values
    def template(self, k: str, required: bool = False) -> Template | None:
        text = self.need(k, str) if required else self.get(k, str)
        return None if text is None else Template(text, self.at(k))

    def value(self, k: str, required: bool = False, default: Any = None) -> Any:
        if k not in self.doc and not required:
            self.taken.add(k)
            return default
        return compile_value(self.need(k), self.at(k))

    def expression(self, k: str, required: bool = False) -> Expression | None:
        v = self.need(k, str) if required else self.get(k, str)
        if v is None:
            return None
        if not is_expression(v):
            raise self.error(k, f"{v!r} must be an expression (a string starting with '=')")
        return Expression(v, self.at(k))

    def expressions(self, k: str) -> dict[str, Expression]:
        t = self.table(k)
        out = {name: t.expression(name, required=True) for name in t.doc}
        t.done()
        return out

    def loop(self, k: str, required: bool = True) -> Loop | None:
        v = self.need(k, str) if required else self.get(k, str)
        return None if v is None else Loop.parse(v, self.at(k))

    def loops(self, k: str) -> tuple[Loop, ...]:
        """``for``: a loop or a list of them (nested, first outermost)."""
        v = self.get(k, (str, list), [])
        return tuple(Loop.parse(x, self.at(k)) for x in ([v] if isinstance(v, str) else v))


# --- reading -----------------------------------------------------------------------


def read_paper(path: str | Path) -> PaperFile:
    """Reads and checks a paper's data file."""
    path = Path(path)
    try:
        with path.open("rb") as f:
            doc = tomllib.load(f)
    except tomllib.TOMLDecodeError as e:
        raise DataError(f"{path}: invalid TOML: {e}") from None
    top = _Table(doc, "", path)
    repro = top.table("reproduction", required=True)
    name = repro.need("name", str)
    report = top.table("report", required=True)
    template = path.parent / report.need("template", str)
    try:
        report_text = template.read_text(encoding="utf-8")
    except OSError as e:
        raise report.error("template", f"cannot read {template}: {e.strerror}") from None
    paper = PaperFile(
        path=path,
        name=name,
        out=repro.get("out", str, f"reports/{name}"),
        report=Template(report_text, str(template)),
        report_file=report.get("file", str, "report.md"),
        run_counts=report.get("run_counts", bool, True),
        report_let=report.expressions("let"),
        report_texts=_texts(report.table("texts")),
        functions=repro.get("functions", str, ""),
        claims_csv=repro.get("claims_csv", bool, True),
        constants=top.value("constants", default={}),
        tolerances=_tolerances(top.table("tolerances")),
        styles=_styles(top.table("styles")),
        cases=_cases(top.table("cases")),
        point=dict(top.get("point", Mapping, {})),
        network=_network(top.table("network"), required=False),
        experiments={},
        parts={},
    )
    repro.done()
    report.done()
    paper.tables, paper.lists, paper.texts = _pieces(top)
    parts = top.table("parts", required=True)
    rules = top.table("rules")
    for k in rules.doc:
        rules.table(k)  # a table (its keys are checked where a claim uses it)
    paper.parts = {k: _part(k, parts.table(k), paper, rules.doc) for k in parts.doc}
    parts.taken |= set(parts.doc)
    experiments = top.table("experiments", required=True)
    for k in experiments.doc:
        key = experiments.where(k)
        table = _with_rule(experiments.get(k, Mapping), rules.doc, key, path)
        paper.experiments[k] = _experiment(k, _Table(table, key, path), paper)
    top.done()
    return paper


def _tolerances(t: _Table) -> dict[str, Tolerance]:
    out = {}
    for k in t.doc:
        spec = t.table(k)
        try:
            out[k] = Tolerance(
                spec.need("limit", (int, float)),
                spec.get("measure", str, "pct"),
                spec.get("slack", (int, float), 0.0),
            )
        except ValueError as e:
            raise t.error(k, str(e)) from None
        spec.done()
    return out


def _styles(t: _Table) -> dict[str, tuple[str | None, str, str]]:
    out = {}
    for k in t.doc:
        v = t.get(k, list)
        if len(v) != 3 or not all(isinstance(x, str) for x in v):
            raise t.error(k, f"{v!r} must be [color, linestyle, marker]")
        out[k] = (v[0] or None, v[1], v[2])
    return out


def _cases(t: _Table) -> dict[str, dict[str, dict[str, Any]]]:
    out = {}
    for set_name in t.doc:
        s = t.table(set_name)
        out[set_name] = {k: dict(s.get(k, Mapping)) for k in s.doc}
    return out


def _network(t: _Table, required: bool = True) -> dict[str, Any]:
    """``{topology, args...}``: the network's name and its arguments, or
    ``{scenario, set}``: a scenario file and overrides (values, expressions
    or templates, evaluated per point)."""
    if required and "topology" not in t.doc:
        raise t.error("topology", "missing (a network of satcp.topology.NETWORKS)")
    out = {"topology": t.get("topology", str)} if "topology" in t.doc else {}
    if out and out["topology"] not in NETWORKS:
        raise t.error("topology", f"{out['topology']!r} is not one of {', '.join(NETWORKS)}")
    for k in t.doc:
        if k != "topology":
            out[k] = _point_value(t.get(k), t.at(k))
    return out


def _point_value(v: Any, key: str) -> Any:
    """A value that may be a template (a string with a field): an
    expression, a template, a table or array of them, or a plain value."""
    if isinstance(v, str) and not is_expression(v) and "{" in v:
        return Template(v, key)
    if isinstance(v, Mapping):
        return {k: _point_value(x, f"{key}.{k}") for k, x in v.items()}
    if isinstance(v, list):
        return [_point_value(x, f"{key}[{i}]") for i, x in enumerate(v)]
    return compile_value(v, key)


def _experiment(name: str, t: _Table, paper: PaperFile) -> ExperimentSpec:
    part = t.need("part", str)
    if part not in paper.parts:
        raise t.error("part", f"{part!r} is not a part (parts: {', '.join(paper.parts)})")
    if "grid" not in t.doc:
        raise t.error("grid", "missing")
    grids = [{k: _axis(g, k, paper) for k in g.doc} for g in t.tables("grid")]
    axes = list(dict.fromkeys(k for g in grids for k in g))
    quick = t.table("quick")
    quick_axes = {}
    for k in quick.doc:
        if k not in axes:
            raise quick.error(k, f"not an axis of the grid ({', '.join(axes)})")
        quick_axes[k] = _axis(quick, k, paper)
    merged = {**paper.network, **_network(t.table("network"), required=False)}
    if "topology" not in merged and "scenario" not in merged:
        raise t.error("network", "no topology or scenario (here or in [network])")
    csv = t.get("csv", (str, list, Mapping), [])
    spec = ExperimentSpec(
        name=name,
        part=part,
        grids=grids,
        quick_axes=quick_axes,
        network=merged,
        metrics=t.expressions("metrics"),
        columns=_columns(t.table("columns")),
        csv=[CsvSpec(Template(csv, t.at("csv")))] if isinstance(csv, str) else _csvs(t, "csv"),
        figures=_figures(t),
        order=t.expression("order"),
        over=t.get("over", str, ""),
        given=t.value("with", default={}),
        fields=_fields(t),
    )
    if spec.over and spec.over not in axes:
        raise t.error("over", f"{spec.over!r} is not an axis of the grid ({', '.join(axes)})")
    t.done()
    return spec


def _fields(t: _Table) -> tuple[str, ...] | None:
    """An experiment's ``fields``: a list of results fields, checked."""
    from ..results import picked_fields

    paths = t.get("fields", list)
    if paths is None:
        return None
    if not paths or not all(isinstance(p, str) for p in paths):
        raise t.error("fields", f"must be a list of field paths (strings), not {paths!r}")
    try:
        return picked_fields(paths)
    except ValueError as e:
        raise t.error("fields", str(e)) from None


def _axis(grid: _Table, k: str, paper: PaperFile) -> Any:
    """An axis' values: a list, or "*" (every case of the case set of that
    name) or an expression."""
    v = grid.get(k, (list, str))
    if v == "*":
        if k not in paper.cases:
            raise grid.error(k, f"'*' needs a case set {k!r} (sets: {', '.join(paper.cases)})")
        return list(paper.cases[k])
    if isinstance(v, str):
        return _point_value(v, grid.at(k))
    if k in paper.cases:
        unknown = [x for x in v if x not in paper.cases[k]]
        if unknown:
            raise grid.error(k, f"{unknown[0]!r} is not a case of {k!r}")
    return v


def _columns(t: _Table) -> Columns:
    """Columns: name -> expression, or a name template -> ``{for, value}``."""
    out: Columns = {}
    for k in t.doc:
        if isinstance(t.doc[k], Mapping):
            c = t.table(k)
            out[k] = ColumnLoop(c.loop("for"), c.expression("value", required=True))
            c.done()
        else:
            out[k] = t.expression(k, required=True)
    t.done()
    return out


def _csvs(t: _Table, k: str) -> list[CsvSpec]:
    out = []
    for c in t.tables(k):
        pivot = None
        if "pivot" in c.doc:
            p = c.table("pivot")
            pivot = {n: p.need(n, kind) for n, kind in _PIVOT.items()}
            p.done()
        out.append(
            CsvSpec(
                file=c.template("file", required=True),
                each=c.loops("for"),
                where=c.expression("where"),
                columns=_columns(c.table("columns")) if "columns" in c.doc else None,
                header=c.value("header"),
                pivot=pivot,
            )
        )
        c.done()
    return out


_PIVOT = {"keep": list, "spread": str, "columns": list, "name": str}


def _figures(t: _Table) -> list[FigureSpec]:
    return [_figure(f.key, f) for f in t.tables("figures")]


def _figure(key: str, t: _Table) -> FigureSpec:
    draw = t.expression("draw")
    spec = FigureSpec(
        key=key,
        file=t.template("file", required=True),
        title=t.template("title", required=draw is None),
        panels=[],
        loops=t.loops("for"),
        let=t.expressions("let"),
        draw=draw,
        values={k: t.value(k, default=v) for k, v in FIGURE_VALUES.items()},
    )
    if draw is None:
        panels = t.tables("panels") if "panels" in t.doc else [t]
        for pt in panels:
            spec.panels.append(_panel(pt))
            if pt is not t:
                pt.done()
    if "csv" in t.doc:
        c = t.table("csv")
        spec.csv = {
            "file": c.template("file", True),
            "x": c.need("x", str),
            "y": c.template("y", True),
        }
        c.done()
    t.done()
    return spec


def _panel(t: _Table) -> PanelSpec:
    series = SeriesSpec(
        loop=t.loop("series"),
        x=t.value("x", required=True),
        y=t.value("y", required=True),
        label=_point_value(t.need("label", str), t.at("label")),
        style=_point_value(t.get("style", str, ""), t.at("style")),
        yerr=t.value("yerr"),
        settings={k: t.get(k, default=v) for k, v in SERIES_SETTINGS.items()},
    )
    return PanelSpec(
        xlabel=t.template("xlabel", required=True),
        ylabel=t.template("ylabel", required=True),
        series=series,
        legend=t.get("legend", bool, True),
        grid=t.get("grid", str, "major"),
        values={k: t.value(k, default=v) for k, v in PANEL_VALUES.items()},
    )


def _part(name: str, t: _Table, paper: PaperFile, rules: Mapping[str, Any]) -> PartSpec:
    spec = PartSpec(
        name=name,
        covers=t.need("covers", str),
        title=t.need("title", str),
        text=t.template("text", required=True),
        let=t.expressions("let"),
        figures=_figures(t),
        csv=_csvs(t, "csv"),
        findings=[Template(f, t.at("findings")) for f in t.get("findings", list, [])],
    )
    files = t.table("files")
    spec.files = {k: files.value(k) for k in files.doc}
    spec.tables, spec.lists, spec.texts = _pieces(t)
    spec.claims = _claims(t, paper.tolerances, rules)
    t.done()
    return spec


def _pieces(t: _Table) -> tuple[dict[str, TableSpec], dict[str, ListSpec], dict[str, TextSpec]]:
    """A table's ``tables``, ``lists`` and ``texts``."""
    tables = t.table("tables")
    lists = t.table("lists")
    listed = {}
    for k in lists.doc:
        lt = lists.table(k)
        item = lt.template("item", required=True)
        listed[k] = ListSpec(lt.loop("items"), item, lt.get("sep", str))
        lt.done()
    return (
        {k: _markdown_table(tables.table(k)) for k in tables.doc},
        listed,
        _texts(t.table("texts")),
    )


def _texts(t: _Table) -> dict[str, TextSpec]:
    """Texts: a template, or a table of its ``let`` names and alternatives
    and ``when`` (or one alternative, ``text``)."""
    out = {}
    for k in t.doc:
        if isinstance(t.doc[k], str):
            out[k] = TextSpec(None, {"text": t.template(k, required=True)})
            continue
        tt = t.table(k)
        let = tt.expressions("let")
        when = tt.expression("when", required="text" not in tt.doc)
        names = [v for v in tt.doc if v not in ("when", "let")]
        out[k] = TextSpec(when, {v: tt.template(v, required=True) for v in names}, let)
        tt.done()
    return out


def _markdown_table(t: _Table) -> TableSpec:
    columns = []
    for ct in t.tables("columns"):
        columns.append(
            (ct.template("header", True), ct.template("cell", True), ct.loop("for", False))
        )
        ct.done()
    spec = TableSpec(rows=t.loop("rows"), columns=columns, align=t.get("align", str))
    t.done()
    return spec


def _claims(
    t: _Table, tolerances: Mapping[str, Tolerance], rules: Mapping[str, Any]
) -> list[ClaimSpec]:
    """A table's ``claims``: claims, or groups of claims (``{for, with,
    claims}``) made once per item of their loops, in order."""
    out = []
    for i, c in enumerate(t.get("claims", list, [])):
        key = f"{t.where('claims')}[{i}]"
        ct = _Table(_with_rule(c, rules, key, t.path), key, t.path)
        if "claims" in ct.doc:
            out.append(
                ClaimSpec(
                    key=f"{t.path}: {key}",
                    where=Template("", key),
                    statement=Template("", key),
                    table=ct.get("table", str, ""),
                    given=ct.value("with", default={}),
                    let=ct.expressions("let"),
                    loops=ct.loops("for"),
                    group=_claims(ct, tolerances, rules),
                )
            )
        else:
            out.append(_claim(ct, tolerances))
        ct.done()
    return out


def _with_rule(table: Any, rules: Mapping[str, Any], key: str, path: Path) -> Any:
    """A table (a claim, an experiment) that names a ``rule``: the
    ``[rules.NAME]`` table's keys, with the table's own over them (tables
    such as ``with``, ``network`` or ``metrics`` merged key by key)."""
    if not isinstance(table, Mapping) or "rule" not in table:
        return table
    name = table["rule"]
    if name not in rules:
        raise DataError(f"{path}: {key}.rule: {name!r} is not a rule ({', '.join(rules)})")
    return _merge(rules[name], {k: v for k, v in table.items() if k != "rule"})


def _merge(base: Mapping[str, Any], over: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for k, v in over.items():
        both = isinstance(v, Mapping) and isinstance(out.get(k), Mapping)
        out[k] = _merge(out[k], v) if both else v
    return out


def _claim(t: _Table, tolerances: Mapping[str, Tolerance]) -> ClaimSpec:
    tolerance = t.get("tolerance", str, "")
    if tolerance and tolerance not in tolerances:
        raise t.error("tolerance", f"{tolerance!r} is not a tolerance ({', '.join(tolerances)})")
    return ClaimSpec(
        key=f"{t.path}: {t.key}",
        where=t.template("where", required=True),
        statement=t.template("statement", required=True),
        paper=t.value("paper"),
        paper_text=t.template("paper_text"),
        satcp=t.value("satcp"),
        holds=t.value("holds"),
        unit=t.template("unit"),
        digits=t.get("digits", int, 2),
        note=t.template("note"),
        tolerance=tolerance,
        implied=t.value("implied"),
        verdict=t.template("verdict"),
        table=t.get("table", str, ""),
        given=t.value("with", default={}),
        let=t.expressions("let"),
        loops=t.loops("for"),
    )

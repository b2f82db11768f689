"""What a paper's data file writes besides its report: CSV files
(:func:`write_csvs`) and PNG figures (:func:`draw_figures`, in the style
of :mod:`.plotstyle`), from the specs of :mod:`.paper_file` and the names
of an experiment or a part."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from . import plotstyle
from .expressions import Template, evaluate
from .paper_file import ColumnLoop, Columns, CsvSpec, FigureSpec, Loop
from .tables import write_csv

__all__ = ["draw_figures", "each", "each_of", "write_csvs"]


def each(loop: Loop, scope: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """The scope once per item of ``loop``."""
    for item in loop.items(scope):
        yield {**scope, **loop.bind(item)}


def each_of(loops: Sequence[Loop], scope: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """The scope once per combination of ``loops`` (nested, first outermost)."""
    if not loops:
        yield dict(scope)
        return
    for s in each(loops[0], scope):
        yield from each_of(loops[1:], s)


def record(columns: Columns, scope: dict[str, Any]) -> dict[str, Any]:
    """A CSV row: each column's value in ``scope`` (a column per item of a
    loop named by its key's template)."""
    out: dict[str, Any] = {}
    for name, e in columns.items():
        if isinstance(e, ColumnLoop):
            named = Template(name, e.value.key)
            out |= {named(s): e.value(s) for s in each(e.loop, scope)}
        else:
            out[name] = e(scope)
    return out


def write_csvs(
    specs: Sequence[CsvSpec],
    scope: dict[str, Any],
    out: Path,
    rows: Sequence[Mapping[str, Any]] | None = None,
    columns: Sequence[str] = (),
) -> list[str]:
    """Writes each CSV file: an experiment's (``rows``, its table, and
    ``columns``, its columns) a row per table row its ``where`` keeps and
    per item of its loops (``columns``: the names of its columns); a
    part's a row per item of its loops. The
    header: the columns' names in the order they first appear (or the
    spec's ``header``)."""
    files = []
    for spec in specs:
        name = spec.file(scope)
        if spec.pivot is not None:
            names, records = pivot(spec.pivot, [r for r in rows if _kept(spec, {**scope, **r})])
        else:
            records = []
            for base in [{**scope, **r} for r in rows] if rows is not None else [scope]:
                if not _kept(spec, base):
                    continue
                for s in each_of(spec.each, base):
                    if spec.columns is None:  # the experiment's columns, as computed
                        records.append({k: s[k] for k in columns if k in s})
                    else:
                        records.append(record(spec.columns, s))
            names = list(dict.fromkeys(k for r in records for k in r))
        write_csv(out / name, names, records, header=evaluate(spec.header, scope))
        files.append(name)
    return files


def _kept(spec: CsvSpec, scope: dict[str, Any]) -> bool:
    return spec.where is None or bool(spec.where(scope))


def pivot(pv: Mapping[str, Any], rows: Sequence[Mapping[str, Any]]) -> tuple[list[str], list]:
    """One row per value of the ``keep`` fields with the ``columns``
    repeated per value of the ``spread`` field, named by the ``name``
    template (``"{column}_q{queue}"``)."""
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


# --- figures -------------------------------------------------------------------------


def draw_figures(
    styles: Mapping[str, plotstyle.Style],
    specs: Sequence[FigureSpec],
    scope: dict[str, Any],
    out: Path,
) -> list[str]:
    """Each figure (one per item of its loops) as PNG, and its series as CSV
    when asked: the files written."""
    files = []
    for f in specs:
        for fs in each_of(f.loops, scope):
            for name, e in f.let.items():
                fs[name] = e(fs)
            values = evaluate(f.values, fs)
            name = f.file(fs)
            if f.draw is not None:  # a figure the paper's functions draw
                plotstyle.save_png(f.draw(fs), out / name, values["dpi"])
                files.append(name)
                continue
            panels = [_panel(pn, fs) for pn in f.panels]
            if f.csv is not None:
                files.append(_figure_csv(f, panels[0], fs, out))
            plotstyle.plot(out / name, f.title(fs), panels, styles, **values)
            files.append(name)
    return files


def _panel(pn: Any, scope: dict[str, Any]) -> plotstyle.Panel:
    s = pn.series
    series = [
        plotstyle.Series(
            str(evaluate(s.label, x)),
            evaluate(s.x, x),
            evaluate(s.y, x),
            str(evaluate(s.style, x)),
            yerr=evaluate(s.yerr, x),
            **s.settings,
        )
        for x in each(s.loop, scope)
    ]
    values = evaluate(pn.values, scope)
    for k in ("xlim", "ylim"):
        values[k] = None if values[k] is None else tuple(values[k])
    return plotstyle.Panel(
        pn.xlabel(scope),
        pn.ylabel(scope),
        series,
        legend=pn.legend,
        grid=pn.grid,
        **{k: v for k, v in values.items() if k != "xlog"},
        xlog=bool(values["xlog"]),
    )


def _figure_csv(f: FigureSpec, panel: plotstyle.Panel, scope: dict[str, Any], out: Path) -> str:
    """The first panel's series as CSV: the x column, then one column per
    series (named by the ``y`` template with the series' loop names)."""
    cols = [f.csv["y"](s) for s in each(f.panels[0].series.loop, scope)]
    rows = [
        {
            f.csv["x"]: float(t),
            **{c: float(s.y[i]) for c, s in zip(cols, panel.series, strict=True)},
        }
        for i, t in enumerate(panel.series[0].x)
    ]
    name = f.csv["file"](scope)
    write_csv(out / name, (f.csv["x"], *cols), rows)
    return name

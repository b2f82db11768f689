"""A sweep's own metrics: any column of a run's ``flows``, ``transfers`` or
``links`` table aggregated over its rows, or a Python function of the
run's :class:`satcp.Results`; each becomes a column of the sweep's
``runs`` table and is averaged per point in ``summary`` like the built-in
metrics (:data:`satcp.sweep.METRICS`).

In a sweep file::

    [metrics]
    queue_drops = "links.queue_drops:sum"       # TABLE.COLUMN:AGGREGATE
    mean_srtt_s = "flows.srtt_s:mean"
    worst_rto_s = "flows.server_timeouts:max"

The columns are those of the DataFrames of the same name
(``Results.flows`` etc.: ``server_*``, ``client_*``, ``counter_*``,
``recovery_*`` for the endpoint's and the variant's counters, the link's
counters beside its settings), checked before any run; the aggregates are
``sum``, ``mean``, ``min``, ``max`` and ``count`` (rows with a value). A
row without a value (an unfinished transfer's response time, a flow
without an RTT sample) is left out, as pandas does; a counter a variant
does not keep counts as 0. From Python, ``run_sweep(..., metrics={"name":
fn})`` adds functions ``fn(results) -> float``; their runs return the
whole results, which costs more per run than columns do.

Columns are read in the core's results cut down to the fields they name
(``_core.run_json_row``), so a sweep of many short runs pays for the
numbers it keeps, not for the whole results.
"""

from __future__ import annotations

import functools
import hashlib
import math
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from .results import SPARSE_FIELDS, flat_row, row_templates
from .scenario import ScenarioError

__all__ = ["AGGREGATES", "TABLES", "Metric", "check_name", "function_identity", "parse_metrics"]

TABLES = ("flows", "transfers", "links")
AGGREGATES = ("sum", "mean", "min", "max", "count")

#: The flows table's nested counters: DataFrame column prefix -> field.
FLOW_PREFIXES = {
    "server_": "server",
    "client_": "client",
    "counter_": "variant_counters",
    "recovery_": "recovery_counters",
}

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


@dataclass(frozen=True)
class Metric:
    """``TABLE.COLUMN:AGGREGATE``: a column of one results table over its
    rows."""

    table: str
    column: str
    aggregate: str

    def __str__(self) -> str:
        return f"{self.table}.{self.column}:{self.aggregate}"

    def path(self) -> tuple[str, ...]:
        """Where the column lives in a row of the core's results."""
        if self.table == "flows":
            for prefix, nested in FLOW_PREFIXES.items():
                if self.column.startswith(prefix):
                    return (nested, self.column[len(prefix) :])
        if self.table == "links" and self.column in _link_counters():
            return ("stats", self.column)
        return (self.column,)

    def fields(self) -> list[str]:
        """The dotted paths the core keeps for this metric."""
        return [".".join((self.table, *self.path()))]

    def value(self, results: Mapping[str, Any]) -> float:
        """The aggregate over the table's rows of ``results`` (the core's
        results, parsed, or cut down to :meth:`fields`)."""
        path = self.path()
        values = []
        for row in results.get(self.table) or []:
            v: Any = row
            for key in path:
                v = v.get(key) if isinstance(v, Mapping) else None
            if v is None and path[0] in SPARSE_FIELDS:
                v = 0
            if v is not None:
                values.append(float(v))
        if self.aggregate == "count":
            return float(len(values))
        if self.aggregate == "sum":
            return math.fsum(values)
        if not values:
            return math.nan
        if self.aggregate == "mean":
            return math.fsum(values) / len(values)
        return min(values) if self.aggregate == "min" else max(values)


@functools.cache
def _link_counters() -> frozenset[str]:
    return frozenset(row_templates()["links"]["stats"])


@functools.cache
def columns(table: str) -> frozenset[str]:
    """The columns every row of ``table`` has, as its DataFrame names them
    (the prefixed counters of ``flows`` aside)."""
    t = row_templates()[table]
    return frozenset(flat_row(table, t) if table in ("flows", "links") else t)


def check_name(name: str, taken: Iterable[str]) -> None:
    """A metric's name: a new column of the runs table."""
    where = f"invalid sweep: metrics.{name}"
    if not _NAME.match(name):
        raise ScenarioError(f"{where}: a metric's name is letters, digits and _")
    if name in set(taken):
        raise ScenarioError(f"{where}: already a column of the runs table")


def parse_metric(name: str, text: Any, taken: Iterable[str]) -> Metric:
    """``text`` ("TABLE.COLUMN:AGGREGATE") as the metric ``name``; errors
    name the field."""
    check_name(name, taken)
    where = f"invalid sweep: metrics.{name}"
    m = re.fullmatch(r"(\w+)\.(\w+):(\w+)", text) if isinstance(text, str) else None
    if m is None:
        raise ScenarioError(f'{where}: {text!r} must read "TABLE.COLUMN:AGGREGATE"')
    table, column, aggregate = m.groups()
    if table not in TABLES:
        raise ScenarioError(f"{where}: table {table!r}: must be one of {', '.join(TABLES)}")
    if aggregate not in AGGREGATES:
        raise ScenarioError(
            f"{where}: aggregate {aggregate!r}: must be one of {', '.join(AGGREGATES)}"
        )
    known = column in columns(table) or (
        table == "flows"
        and any(column.startswith(p) and len(column) > len(p) for p in ("counter_", "recovery_"))
    )
    if not known:
        raise ScenarioError(
            f"{where}: {table} has no column {column!r} "
            f"(columns: {', '.join(sorted(columns(table)))})"
        )
    if column in ("app_name", "variant", "state", "name", "from", "to", "kind", "outcome"):
        raise ScenarioError(f"{where}: {table}.{column} is not a number")
    return Metric(table, column, aggregate)


def parse_metrics(doc: Any, taken: Iterable[str]) -> dict[str, Metric]:
    """A sweep file's ``[metrics]`` table."""
    if not isinstance(doc, Mapping):
        raise ScenarioError('invalid sweep: metrics: must be a table of name = "TABLE.COLUMN:AGG"')
    taken = set(taken)
    out = {}
    for name, text in doc.items():
        out[name] = parse_metric(name, text, taken)
        taken.add(name)
    return out


def function_identity(fn: Callable[..., Any]) -> str:
    """What a metric function contributes to its runs' cache keys: its
    qualified name and a hash of its code (body and constants), so that an
    edited function is not served the rows of the old one."""
    code = getattr(fn, "__code__", None)
    digest = ""
    if code is not None:
        h = hashlib.sha256(code.co_code)
        h.update(repr(code.co_consts).encode())
        digest = h.hexdigest()[:16]
    return f"{getattr(fn, '__module__', '?')}.{getattr(fn, '__qualname__', repr(fn))}#{digest}"

"""Results of one run as pandas data frames, a text summary and files.

The core returns the results as JSON (``crates/satcp-core/src/scenario/
results.rs``). :class:`Results` keeps that text unchanged (``raw_json``),
the parsed dict (``raw``) and turns the tables into data frames:

- ``transfers``: one row per FTP file / HTTP page / bulk transfer,
- ``flows``: one row per TCP connection; the counters of the server (data
  sender) and client (data receiver) endpoints become ``server_*`` and
  ``client_*`` columns, a variant's own counters ``counter_*`` columns,
- ``links``: one row per link direction; the link counters (``stats``)
  become plain columns (``rx_bytes``, ``queue_drops``, ...),
- ``flow_series`` / ``link_series``: the sampled time series (empty when the
  scenario's ``sample_interval_s`` is 0),
- ``stalls``: one row per TCP connection: when it was given up (the
  retransmission limit), the largest RTO a timeout backed off to, the
  longest stretch with data outstanding and no RTT sample,
- ``apps``: one row per application: its transfers by outcome, whether it
  finished, and ``why`` not in words,
- ``trace``: the per-event trace (:mod:`satcp.trace`), when the scenario
  asked for one (``[trace]``, ``satcp run --trace``): one row per change,
  written to ``trace.parquet``;
- ``pep``: with split-connection proxies (``[[pep]]``) only, one row per
  leg of each split connection: the proxy's node, which host the leg
  faces, whether it crosses the satellite, its variant, bytes received and
  sent, retransmissions, the most bytes the proxy buffered for it and how
  often that buffer filled (written to ``pep.csv`` when there is one);
- ``warnings``: one row per pathology (``kind``, ``subject``, ``message``):
  an RTO backed off above 30 s, data outstanding for more than 100
  smoothed RTTs without an RTT sample, a queue that dropped more than 10 %
  of the packets offered to it (``crates/satcp-core/src/scenario/
  diagnosis.rs``).

Results cut down to some fields (``fields``: :func:`picked_fields`, a
paper experiment's ``fields``) hold only those and the single values;
reading a table they leave out raises a KeyError naming them.

pandas is imported when a data frame is first asked for: the summary and
the table files are made from the parsed JSON (:mod:`satcp.frame_files`
writes what pandas' ``to_csv`` and ``to_parquet`` write, byte for byte),
so ``satcp run`` and ``satcp validate`` never load it (a trace, written
as Parquet, goes through pandas).
"""

from __future__ import annotations

import functools
import json
import math
import os
from collections.abc import Mapping, Sequence
from functools import cached_property

from ._fsutil import text_writer, write_files_atomically
from .frame_files import csv_text, write_parquet

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (5 ms)
if TYPE_CHECKING:
    from typing import Any

    import pandas as pd

__all__ = ["FORMATS", "SCALARS", "TABLES", "Results", "flat_row", "picked_fields"]

#: Results JSON at least this long is parsed with orjson (see _parse).
ORJSON_FROM_CHARS = 1 << 20


def _parse(text: str) -> Any:
    """The results JSON as Python objects. orjson gives the same objects
    as ``json.loads`` (its floats are correctly rounded too) in about half
    the time on large results (a reproduction of Peach parses 570 MB), but
    importing it takes some 11 ms, more than ``json.loads`` spends on a
    short run's few kilobytes (``satcp run`` stays under 100 ms)."""
    if len(text) >= ORJSON_FROM_CHARS:
        import orjson

        return orjson.loads(text)
    return json.loads(text)


TABLES = (
    "transfers",
    "flows",
    "links",
    "flow_series",
    "link_series",
    "stalls",
    "apps",
    "warnings",
)
FORMATS = ("csv", "parquet")


#: The results' single values: kept whatever fields the results are cut
#: down to (:func:`picked_fields`).
SCALARS = ("name", "seed", "end_time_s", "events", "apps_done")
#: A flow's counters kept only by some variants or recovery settings (not
#: in the row templates; absent is 0).
SPARSE_FIELDS = ("variant_counters", "recovery_counters")


@functools.cache
def row_templates() -> dict[str, dict[str, Any]]:
    """One row of ``transfers``, ``flows`` and ``links`` with every field
    its row type always has (``_core.result_row_templates``)."""
    from . import _core

    return json.loads(_core.result_row_templates())


def picked_fields(fields: Sequence[str]) -> tuple[str, ...]:
    """The dotted paths of results fields (``"flows.client.bytes_delivered"``,
    ``"transfers.response_time_s"``, ``"end_time_s"``) as the core's
    ``run_json_fields`` cuts results down to them, with :data:`SCALARS`
    added. A ValueError names a path whose table or column the results do
    not have (a counter only some variants keep, under ``variant_counters``
    or ``recovery_counters``, is not checked)."""
    templates = row_templates()
    tops = set(SCALARS) | set(TABLES) | {"pep"}
    for path in fields:
        parts = path.split(".") if isinstance(path, str) else [""]
        if parts[0] not in tops:
            raise ValueError(
                f"{path!r}: the results have no {parts[0]!r} ({', '.join(sorted(tops))})"
            )
        row: Any = templates.get(parts[0])
        for part in parts[1:]:
            if not isinstance(row, dict) or part in SPARSE_FIELDS:
                break
            if part not in row:
                raise ValueError(f"{path!r}: a {parts[0]} row has no {part!r}")
            row = row[part]
    return tuple(dict.fromkeys([*SCALARS, *fields]))


class _Picked(dict):
    """Results cut down to some fields: a top-level name they leave out is
    a KeyError naming them, also through ``get`` (an empty table instead
    would be a silent zero)."""

    def __init__(self, data: Mapping[str, Any], fields: Sequence[str]) -> None:
        super().__init__(data)
        self._tops = {f.split(".")[0] for f in fields}
        self._fields = fields

    def _check(self, key: str) -> None:
        if key not in self._tops:
            raise KeyError(
                f"results field {key!r} was not asked for (fields: {', '.join(self._fields)})"
            )

    def __getitem__(self, key: str) -> Any:
        self._check(key)
        return super().__getitem__(key)

    def get(self, key: str, default: Any = None) -> Any:
        self._check(key)
        return super().get(key, default)


# The nested dicts of the flows' and links' rows, and the column prefix each
# gets in the table.
_NESTED: dict[str, dict[str, str]] = {
    "flows": {
        "server": "server_",
        "client": "client_",
        "variant_counters": "counter_",
        "recovery_counters": "recovery_",
    },
    "links": {"stats": "", "dvbs2": "dvbs2_", "dvbrcs2": "dvbrcs2_"},
}


def flat_row(table: str, row: Mapping[str, Any]) -> dict[str, Any]:
    """One row of the results' ``flows`` or ``links`` as its table has it
    (the nested counters moved into the row), without building the table."""
    return _flatten([row], _NESTED[table])[0]


def _flatten(rows: Sequence[Mapping[str, Any]], nested: Mapping[str, str]) -> list[dict[str, Any]]:
    """Moves the nested dicts of each row (key -> column prefix) into the row."""
    out = []
    for row in rows:
        flat: dict[str, Any] = {}
        for k, v in row.items():
            if k in nested and isinstance(v, Mapping):
                prefix = nested[k]
                for ik, iv in v.items():
                    col = f"{prefix}{ik}"
                    if col in row or col in flat:
                        col = f"{k}_{ik}"
                    flat[col] = iv
            else:
                flat[k] = v
        out.append(flat)
    return out


class Results:
    """The results of one run (see the module docstring)."""

    def __init__(
        self,
        results: str | Mapping[str, Any],
        scenario: Mapping[str, Any] | None = None,
        wall_time_s: float | None = None,
        trace: Mapping[str, Any] | None = None,
        fields: Sequence[str] | None = None,
    ) -> None:
        if isinstance(results, str):
            self.raw_json = results
            self.raw: dict[str, Any] = _parse(results)
        else:
            self.raw = dict(results)
            self.raw_json = json.dumps(self.raw)
        #: The fields the results were cut down to (:func:`picked_fields`;
        #: None: the whole results). Reading a table they leave out is a
        #: KeyError, not an empty table.
        self.fields = tuple(fields) if fields is not None else None
        if self.fields is not None:
            self.raw = _Picked(self.raw, self.fields)
        #: The scenario that was run, overrides and seed applied.
        self.scenario: dict[str, Any] | None = dict(scenario) if scenario is not None else None
        #: Wall-clock seconds of the simulation (not part of the results JSON).
        self.wall_time_s = wall_time_s
        # The trace's columns as the core handed them over (None: no trace).
        self._trace_columns = trace

    # --- scalars -----------------------------------------------------------
    @property
    def name(self) -> str:
        return self.raw.get("name", "")

    @property
    def seed(self) -> int:
        return self.raw.get("seed", 0)

    @property
    def end_time_s(self) -> float:
        return self.raw.get("end_time_s", 0.0)

    @property
    def events(self) -> int:
        return self.raw.get("events", 0)

    @property
    def apps_done(self) -> bool:
        return bool(self.raw.get("apps_done", False))

    @property
    def events_per_s(self) -> float | None:
        if not self.wall_time_s:
            return None
        return self.events / self.wall_time_s

    # --- tables ------------------------------------------------------------
    def _table_data(self, name: str) -> list[dict[str, Any]] | dict[str, Any]:
        """Table ``name`` as pandas takes it: a list of rows (dicts) or a
        dict of columns (the series)."""
        if name == "transfers":
            return self.raw.get("transfers") or []
        if name in _NESTED:
            return _flatten(self.raw.get(name) or [], _NESTED[name])
        if name in ("flow_series", "link_series"):
            return self.raw.get(name) or {}
        if name in ("stalls", "apps", "warnings", "pep"):
            return self.raw.get(name) or []
        raise KeyError(name)

    def _frame(self, name: str) -> pd.DataFrame:
        import pandas as pd

        return pd.DataFrame(self._table_data(name))

    @cached_property
    def transfers(self) -> pd.DataFrame:
        return self._frame("transfers")

    @cached_property
    def flows(self) -> pd.DataFrame:
        return self._frame("flows")

    @cached_property
    def pep(self) -> pd.DataFrame:
        """The legs of the proxies' split connections (empty without ``[[pep]]``)."""
        return self._frame("pep")

    @cached_property
    def links(self) -> pd.DataFrame:
        return self._frame("links")

    @cached_property
    def flow_series(self) -> pd.DataFrame:
        return self._frame("flow_series")

    @cached_property
    def link_series(self) -> pd.DataFrame:
        return self._frame("link_series")

    @cached_property
    def stalls(self) -> pd.DataFrame:
        return self._frame("stalls")

    @cached_property
    def apps(self) -> pd.DataFrame:
        return self._frame("apps")

    @cached_property
    def warnings(self) -> pd.DataFrame:
        return self._frame("warnings")

    @property
    def has_trace(self) -> bool:
        """Whether the run recorded a per-event trace (the scenario's
        ``[trace]`` named kinds)."""
        return self._trace_columns is not None

    @cached_property
    def trace(self) -> pd.DataFrame:
        """The per-event trace: ``time_s``, ``kind``, ``conn``, ``side``,
        ``link``, ``value``, a row per change (:mod:`satcp.trace`; empty
        without a trace)."""
        from .trace import frame

        return frame(self._trace_columns)

    @property
    def trace_truncated_at_s(self) -> float | None:
        """When the trace stopped because it reached ``trace.max_rows``
        (None if it did not, or without a trace)."""
        return (self._trace_columns or {}).get("truncated_at_s")

    def tables(self) -> dict[str, pd.DataFrame]:
        names = TABLES + (("pep",) if self.raw.get("pep") else ())
        return {name: getattr(self, name) for name in names}

    def response_times(self, kind: str | None = None) -> pd.Series:
        """Response times (s) of the finished transfers, optionally of one kind."""
        import pandas as pd

        t = self.transfers
        if t.empty:
            return pd.Series([], dtype=float, name="response_time_s")
        if kind is not None:
            t = t[t["kind"] == kind]
        return t["response_time_s"].dropna().astype(float)

    # --- text --------------------------------------------------------------
    def summary(self, max_transfers: int = 25) -> str:
        """A readable fixed-width summary of the run."""
        r = self.raw
        lines = [
            f"{r.get('name', '?')}: seed {r.get('seed')}, simulated {_num(self.end_time_s, 3)} s, "
            f"{self.events:,} events, {self._ending()}",
        ]
        # Why and what went wrong first: the tables below are long.
        for app in r.get("apps", []):
            if app["why"]:
                lines.append(f"{app['app_name']} ({app['kind']}): {app['why']}")
        for w in r.get("warnings", []):
            lines.append(f"warning: {w['subject']}: {w['message']}")

        transfers = r.get("transfers", [])
        lines += ["", f"Transfers ({len(transfers)})"]
        rows = [
            [
                t["app_name"],
                t["kind"],
                t["index"],
                t["conn"],
                _num(t["start_s"], 3),
                _num(t["end_s"], 3),
                _num(t["response_time_s"], 3),
                f"{t['bytes']:,}",
                t.get("outcome", "-"),
            ]
            for t in transfers[:max_transfers]
        ]
        lines += _table(
            ["app", "kind", "#", "conn", "start s", "end s", "response s", "bytes", "outcome"],
            rows,
            "llrrrrrrl",
        )
        if len(transfers) > max_transfers:
            lines.append(f"... {len(transfers) - max_transfers} more")
        for app, kind, times, total in self._response_stats():
            if total > 1:
                lines.append(
                    f"{app} ({kind}): {len(times)}/{total} finished, response time mean "
                    f"{_num(_mean(times), 3)} s, min {_num(min(times, default=None), 3)} s, "
                    f"max {_num(max(times, default=None), 3)} s"
                )

        flows = r.get("flows", [])
        lines += ["", f"Flows ({len(flows)})"]
        rows = [
            [
                f["conn"],
                f["app_name"],
                f["variant"],
                _num(f["goodput_bps"] / 1e3, 1),
                _num(f["throughput_bps"] / 1e3, 1),
                f["server"]["retransmitted_segments"],
                f["server"]["fast_retransmits"],
                f["server"]["timeouts"],
                _num(f["srtt_s"], 3),
                f["state"],
            ]
            for f in flows[:max_transfers]
        ]
        lines += _table(
            [
                "conn",
                "app",
                "variant",
                "goodput kb/s",
                "thruput kb/s",
                "rtx segs",
                "fast rtx",
                "timeouts",
                "srtt s",
                "state",
            ],
            rows,
            "rllrrrrrrl",
        )
        if len(flows) > max_transfers:
            lines.append(f"... {len(flows) - max_transfers} more")

        legs = r.get("pep", [])
        if legs:
            lines += ["", f"Proxy legs ({len(legs)})"]
            rows = [
                [
                    p["conn"],
                    p["node"],
                    p["leg"],
                    "yes" if p["satellite"] else "no",
                    p["variant"],
                    p["bytes_received"],
                    p["bytes_sent"],
                    p["retransmitted_segments"],
                    p["max_buffered_bytes"],
                    p["buffer_full"],
                ]
                for p in legs[: 2 * max_transfers]
            ]
            lines += _table(
                [
                    "conn",
                    "node",
                    "leg",
                    "satellite",
                    "variant",
                    "bytes in",
                    "bytes out",
                    "rtx segs",
                    "max buffered",
                    "buffer full",
                ],
                rows,
                "rlllrrrrrr",
            )

        links = r.get("links", [])
        lines += ["", f"Links ({len(links)})"]
        rows = [
            [
                lk["name"],
                f"{lk['from']} -> {lk['to']}",
                _num(lk["rate_bps"] / 1e3, 1),
                _num(lk["throughput_bps"] / 1e3, 1),
                _num(100.0 * lk["utilization"], 1),
                lk["stats"].get("queue_drops", 0),
                lk["stats"].get("corrupted", 0) + lk["stats"].get("lost", 0),
            ]
            for lk in links
        ]
        lines += _table(
            ["link", "direction", "rate kb/s", "thruput kb/s", "util %", "q drops", "errors"],
            rows,
            "llrrrrr",
        )
        if self.wall_time_s is not None:
            eps = self.events_per_s
            lines += [
                "",
                f"wall time {self.wall_time_s:.3f} s"
                + (f", {eps / 1e6:.2f} M events/s" if eps else ""),
            ]
        return "\n".join(lines)

    def _ending(self) -> str:
        """How the run ended, for the summary's first line."""
        if self.apps_done:
            return "all apps done"
        apps = self.raw.get("apps", [])
        if apps and all(
            a["finished"] or (a["open_ended"] and not (a["aborted"] or a["unfinished"]))
            for a in apps
        ):
            return "ran for its duration (open-ended apps still going, no failure)"
        return "stopped before all apps were done"

    def _response_stats(self) -> list[tuple[str, str, list[float], int]]:
        kinds: dict[str, str] = {}
        times: dict[str, list[float]] = {}
        totals: dict[str, int] = {}
        for t in self.raw.get("transfers", []):
            app = t["app_name"]
            kinds.setdefault(app, t["kind"])
            totals[app] = totals.get(app, 0) + 1
            done = times.setdefault(app, [])
            if t["response_time_s"] is not None:
                done.append(float(t["response_time_s"]))
        return [(app, kinds[app], times[app], totals[app]) for app in kinds]

    def __repr__(self) -> str:
        # dict.get: a repr of results cut down to some fields must not raise
        return (
            f"<Results {self.name!r} seed={self.seed} end={self.end_time_s:.3f}s "
            f"transfers={len(dict.get(self.raw, 'transfers') or [])} "
            f"flows={len(dict.get(self.raw, 'flows') or [])}>"
        )

    def _repr_html_(self, max_rows: int = 25) -> str:
        """A compact HTML summary for notebooks: how the run ended, why an
        application did not finish and the warnings, then per flow its
        variant, goodput (Mb/s), retransmitted segments and timeouts, and
        per link direction its drops by cause. Every text from the run is
        escaped."""
        from html import escape

        r = self.raw
        out = [
            '<div class="satcp-results">',
            f"<p><b>{escape(str(r.get('name', '?')))}</b>: seed {escape(str(r.get('seed')))}, "
            f"simulated {_num(self.end_time_s, 3)} s, {self.events:,} events, "
            f"{escape(self._ending())}</p>",
        ]
        notes = [
            f"{escape(str(a['app_name']))} ({escape(str(a['kind']))}): {escape(str(a['why']))}"
            for a in r.get("apps", [])
            if a.get("why")
        ]
        notes += [
            f"warning: {escape(str(w['subject']))}: {escape(str(w['message']))}"
            for w in r.get("warnings", [])
        ]
        if notes:
            out.append("<ul>" + "".join(f"<li>{n}</li>" for n in notes) + "</ul>")

        def table(caption: str, head: Sequence[str], rows: list[list[Any]], total: int) -> None:
            out.append(f'<table><caption style="text-align:left">{escape(caption)}</caption>')
            out.append("<tr>" + "".join(f"<th>{escape(h)}</th>" for h in head) + "</tr>")
            for row in rows[:max_rows]:
                out.append("<tr>" + "".join(f"<td>{escape(str(c))}</td>" for c in row) + "</tr>")
            out.append("</table>")
            if total > max_rows:
                out.append(f"<p>... {total - max_rows} more</p>")

        flows = r.get("flows", [])
        table(
            f"Flows ({len(flows)})",
            ["conn", "app", "variant", "goodput Mb/s", "retransmitted segments", "timeouts"],
            [
                [
                    f["conn"],
                    f["app_name"],
                    f["variant"],
                    _num(f["goodput_bps"] / 1e6, 3),
                    f["server"]["retransmitted_segments"],
                    f["server"]["timeouts"],
                ]
                for f in flows
            ],
            len(flows),
        )
        links = r.get("links", [])
        causes = [
            ("queue_drops", "queue"),
            ("congestion_drops", "congestion"),
            ("corrupted", "corrupted"),
            ("lost", "lost"),
        ]
        if any("acks_filtered" in lk["stats"] for lk in links):
            causes.append(("acks_filtered", "ACKs filtered"))
        table(
            f"Links ({len(links)}): drops by cause",
            ["link", "direction", *(label for _, label in causes)],
            [
                [lk["name"], f"{lk['from']} -> {lk['to']}"]
                + [lk["stats"].get(key, 0) for key, _ in causes]
                for lk in links
            ],
            len(links),
        )
        out.append("</div>")
        return "\n".join(out)

    # --- files -------------------------------------------------------------
    @cached_property
    def provenance(self) -> dict[str, Any]:
        """Which satcp, commit, scenario, seed and platform made these
        results (:mod:`satcp.provenance`)."""
        from . import provenance

        return provenance.of_run(self.scenario, self.seed)

    def results_json(self) -> str:
        """``results.json``: the core's JSON (``raw_json``) unchanged, with
        a last key ``provenance`` added. Determinism checks compare
        ``raw_json``, or this file without its provenance."""
        body = self.raw_json.rstrip()
        assert body.endswith("}"), "the results are a JSON object"
        head = body[:-1].rstrip()
        sep = "" if head.endswith("{") else ","
        return f'{head}{sep}"provenance":{json.dumps(self.provenance)}}}'

    def write(self, out_dir: str | os.PathLike[str], fmt: str = "csv") -> list[str]:
        """Writes the tables (``<table>.csv`` or ``<table>.parquet``),
        ``results.json`` (the core's output with its provenance,
        :meth:`results_json`), ``scenario.json`` (the scenario that was
        run) and, with a trace, ``trace.parquet`` (Parquet in either
        format: a trace may have millions of rows) into ``out_dir``, all
        or nothing: the
        files are written into a temporary sibling directory and moved into
        place with ``os.replace``. Returns the paths written."""
        if fmt not in FORMATS:
            raise ValueError(f"unknown format {fmt!r} (one of {', '.join(FORMATS)})")
        writers = {}
        # Only with proxies: a run without one writes what it always did.
        names = TABLES + (("pep",) if self.raw.get("pep") else ())
        for name in names:
            # Without pandas: the bytes of DataFrame.to_csv / to_parquet (frame_files).
            writers[f"{name}.{fmt}"] = _table_writer(self._table_data(name), fmt)
        if self.has_trace:
            trace = self.trace
            writers["trace.parquet"] = lambda path: trace.to_parquet(path, index=False)
        writers["results.json"] = text_writer(self.results_json())
        scenario = json.dumps(self.scenario, indent=2) + "\n" if self.scenario is not None else "{}"
        writers["scenario.json"] = text_writer(scenario)
        return write_files_atomically(out_dir, writers)


def _table_writer(data: Any, fmt: str):
    if fmt == "csv":
        return text_writer(csv_text(data))
    return lambda path: write_parquet(data, path)


def _num(v: float | None, digits: int) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    return f"{v:,.{digits}f}"


def _mean(xs: Sequence[float]) -> float | None:
    return sum(xs) / len(xs) if xs else None


def _table(headers: Sequence[str], rows: Sequence[Sequence[Any]], align: str) -> list[str]:
    """Fixed-width text table; align is one 'l' or 'r' per column."""
    cells = [[str(h) for h in headers]] + [[str(c) for c in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]

    def fmt(row: Sequence[str]) -> str:
        parts = [
            c.ljust(w) if a == "l" else c.rjust(w)
            for c, w, a in zip(row, widths, align, strict=True)
        ]
        return "  ".join(parts).rstrip()

    out = [fmt(cells[0]), "  ".join("-" * w for w in widths)]
    out += [fmt(row) for row in cells[1:]]
    return out

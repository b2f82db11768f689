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
  scenario's ``sample_interval_s`` is 0).
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping, Sequence
from functools import cached_property
from typing import Any

import pandas as pd

from ._fsutil import text_writer, write_files_atomically

__all__ = ["FORMATS", "TABLES", "Results"]

TABLES = ("transfers", "flows", "links", "flow_series", "link_series")
FORMATS = ("csv", "parquet")


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
    ) -> None:
        if isinstance(results, str):
            self.raw_json = results
            self.raw: dict[str, Any] = json.loads(results)
        else:
            self.raw = dict(results)
            self.raw_json = json.dumps(self.raw)
        #: The scenario that was run, overrides and seed applied.
        self.scenario: dict[str, Any] | None = dict(scenario) if scenario is not None else None
        #: Wall-clock seconds of the simulation (not part of the results JSON).
        self.wall_time_s = wall_time_s

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
    @cached_property
    def transfers(self) -> pd.DataFrame:
        return pd.DataFrame(self.raw.get("transfers", []))

    @cached_property
    def flows(self) -> pd.DataFrame:
        rows = _flatten(
            self.raw.get("flows", []),
            {
                "server": "server_",
                "client": "client_",
                "variant_counters": "counter_",
                "recovery_counters": "recovery_",
            },
        )
        return pd.DataFrame(rows)

    @cached_property
    def links(self) -> pd.DataFrame:
        return pd.DataFrame(_flatten(self.raw.get("links", []), {"stats": ""}))

    @cached_property
    def flow_series(self) -> pd.DataFrame:
        return pd.DataFrame(self.raw.get("flow_series", {}))

    @cached_property
    def link_series(self) -> pd.DataFrame:
        return pd.DataFrame(self.raw.get("link_series", {}))

    def tables(self) -> dict[str, pd.DataFrame]:
        return {name: getattr(self, name) for name in TABLES}

    def response_times(self, kind: str | None = None) -> pd.Series:
        """Response times (s) of the finished transfers, optionally of one kind."""
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
            f"{self.events:,} events, "
            + ("all apps done" if self.apps_done else "stopped before all apps were done"),
        ]

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
            ]
            for t in transfers[:max_transfers]
        ]
        lines += _table(
            ["app", "kind", "#", "conn", "start s", "end s", "response s", "bytes"],
            rows,
            "llrrrrrr",
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
        return (
            f"<Results {self.name!r} seed={self.seed} end={self.end_time_s:.3f}s "
            f"transfers={len(self.raw.get('transfers', []))} "
            f"flows={len(self.raw.get('flows', []))}>"
        )

    # --- files -------------------------------------------------------------
    def write(self, out_dir: str | os.PathLike[str], fmt: str = "csv") -> list[str]:
        """Writes the five tables (``<table>.csv`` or ``<table>.parquet``),
        ``results.json`` (the core's output, unchanged) and ``scenario.json``
        (the scenario that was run) into ``out_dir``, all or nothing: the
        files are written into a temporary sibling directory and moved into
        place with ``os.replace``. Returns the paths written."""
        if fmt not in FORMATS:
            raise ValueError(f"unknown format {fmt!r} (one of {', '.join(FORMATS)})")
        writers = {}
        for name in TABLES:
            writers[f"{name}.{fmt}"] = _table_writer(getattr(self, name), fmt)
        writers["results.json"] = text_writer(self.raw_json)
        scenario = json.dumps(self.scenario, indent=2) + "\n" if self.scenario is not None else "{}"
        writers["scenario.json"] = text_writer(scenario)
        return write_files_atomically(out_dir, writers)


def _table_writer(df: pd.DataFrame, fmt: str):
    def write(path: str) -> None:
        if fmt == "csv":
            df.to_csv(path, index=False)
        else:
            df.to_parquet(path, index=False)

    return write


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

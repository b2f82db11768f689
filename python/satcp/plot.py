"""``satcp plot RESULTS_DIR``: the usual pictures of one run, from the
tables ``satcp run --out`` wrote (``flow_series`` and ``link_series``,
CSV or Parquet), as PNG files next to them (or in ``--out``):

- ``cwnd.png``: cwnd and ssthresh per connection;
- ``flight.png``: flight size and pipe;
- ``rtt.png``: smoothed RTT and RTO;
- ``sequence.png``: highest sequence number sent and acknowledged against
  time, the samples in which the sender retransmitted marked with a red
  x (one legend entry for every connection's marks);
- ``links.png``: utilisation and queue length (whole packets) per link
  direction;
- with a per-event trace (``trace.parquet``), ``trace-cwnd.png``,
  ``trace-rtt.png`` and ``trace-queue.png`` (:mod:`satcp.trace_plot`). A
  run with a trace and no time series draws only these.

Connections are drawn up to ``max_flows`` (the first ones), each in its
own colour; byte values in kB, MB or GB as they need, the unit on the
axis (no ``1e7`` offsets).
"""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd

from .reproduce.plotstyle import (
    byte_unit,
    distinct_style,
    grid_and_legend,
    integer_ticks,
    new_figure,
    save_png,
)

__all__ = ["plot_results"]


#: The columns each table must have, all numeric: a table edited by hand
#: or written by something else is refused with the table and column named
#: (not a traceback from deep inside pandas or matplotlib).
COLUMNS = {
    "flow_series": (
        "time_s",
        "conn",
        "cwnd",
        "ssthresh",
        "flight_size",
        "pipe",
        "srtt_s",
        "rto_s",
        "snd_max",
        "snd_una",
    ),
    "link_series": ("time_s", "link", "utilization", "queue_packets"),
    "links": (),
}
#: Read when present (then numeric too).
OPTIONAL_COLUMNS = {"flow_series": ("retransmitted_segments",), "links": ("link",)}


def _trace(d: Path) -> pd.DataFrame | None:
    """``trace.parquet`` of a results directory (None if there is none),
    checked to have the trace's columns."""
    from .trace import COLUMNS

    p = d / "trace.parquet"
    if not p.exists():
        return None
    try:
        df = pd.read_parquet(p)
    except (ValueError, OSError) as e:
        raise ValueError(f"{p}: not a trace satcp wrote: {e}") from None
    for col in COLUMNS:
        if col not in df.columns:
            raise ValueError(f"{p}: no column {col!r} (not a trace satcp wrote)")
    for col in ("time_s", "value"):
        if not pd.api.types.is_numeric_dtype(df[col]):
            raise ValueError(f"{p}: column {col!r} is not numeric")
    return df


def _table(d: Path, name: str) -> pd.DataFrame:
    for ext, read in ((".parquet", pd.read_parquet), (".csv", pd.read_csv)):
        p = d / f"{name}{ext}"
        if p.exists():
            try:
                df = read(p)
            except (ValueError, pd.errors.ParserError) as e:
                raise ValueError(f"{p}: not a table satcp wrote: {e}") from None
            return _checked(df, p, name)
    raise FileNotFoundError(
        f"{d}: no {name}.csv or {name}.parquet (run with --out and a sample interval)"
    )


def _checked(df: pd.DataFrame, p: Path, name: str) -> pd.DataFrame:
    """``df`` if it has the columns plotting reads, numeric; else ValueError."""
    if df.empty and (len(df.columns) == 0 or set(COLUMNS[name]) <= set(df.columns)):
        return df  # an empty series table (or only its header): nothing to draw
    for col in COLUMNS[name]:
        if col not in df.columns:
            raise ValueError(f"{p}: no column {col!r} (not a table satcp wrote)")
    if df.empty:
        return df  # a header only (no sample interval): no values to check
    for col in (*COLUMNS[name], *OPTIONAL_COLUMNS.get(name, ())):
        if col in df.columns and not pd.api.types.is_numeric_dtype(df[col]):
            bad = pd.to_numeric(df[col], errors="coerce").isna() & df[col].notna()
            value = df[col][bad].iloc[0] if bad.any() else df[col].dtype
            raise ValueError(f"{p}: column {col!r}: {value!r} is not a number")
    return df


def _largest(df: pd.DataFrame, columns: list[str]) -> float:
    """The largest absolute value in ``columns`` of ``df`` (0 if none)."""
    m = df[columns].abs().max().max() if not df.empty else 0.0
    return 0.0 if pd.isna(m) else float(m)


def plot_results(
    results_dir: str | os.PathLike[str],
    out_dir: str | os.PathLike[str] | None = None,
    max_flows: int = 8,
) -> list[Path]:
    d = Path(results_dir)
    out = Path(out_dir) if out_dir is not None else d
    trace = _trace(d)
    fs = _table(d, "flow_series")
    ls = _table(d, "link_series")
    if fs.empty and ls.empty and trace is None:
        raise ValueError(
            f"{d}: the time series are empty and there is no trace "
            "(set a sample interval, or run with --trace)"
        )
    links = _table(d, "links")
    conns = sorted(fs.conn.unique())[:max_flows] if not fs.empty else []
    paths = []

    def figure(name, panels, draw):
        fig = new_figure((8.0, 3.0 * len(panels)))
        axes = fig.subplots(len(panels), 1, sharex=True, squeeze=False)[:, 0]
        for ax, (ylabel, fn) in zip(axes, panels, strict=True):
            unit = draw(ax, fn)
            ax.set_ylabel(ylabel.format(unit=unit))
            # Values in their unit (kB, MB), not in bytes with a 1e7 offset.
            ax.ticklabel_format(axis="y", useOffset=False, style="plain")
            grid_and_legend(ax, legend=len(ax.get_lines()) > 0)
        axes[-1].set_xlabel("time (s)")
        paths.append(save_png(fig, out / f"{name}.png", dpi=110))

    def styles(c):
        """Connection ``c``'s colour: its columns differ in linestyle."""
        return distinct_style(conns.index(c))[0]

    def per_conn(columns, in_bytes=True, linestyles=("-", "--")):
        def draw(ax, _):
            unit, scale = "s", 1.0
            if in_bytes:
                unit, scale = byte_unit(_largest(fs[fs.conn.isin(conns)], columns))
            for c in conns:
                g = fs[fs.conn == c]
                for col, ls_ in zip(columns, linestyles, strict=False):
                    ax.plot(
                        g.time_s,
                        g[col] / scale,
                        linestyle=ls_,
                        color=styles(c),
                        linewidth=1.0,
                        label=f"conn {c} {col}",
                    )
            return unit

        return draw

    if conns:
        figure("cwnd", [("{unit}", None)], per_conn(["cwnd", "ssthresh"]))
        figure("flight", [("{unit}", None)], per_conn(["flight_size", "pipe"]))
        figure("rtt", [("seconds", None)], per_conn(["srtt_s", "rto_s"], in_bytes=False))

        def seq(ax, _):
            unit, scale = byte_unit(_largest(fs[fs.conn.isin(conns)], ["snd_max", "snd_una"]))
            marked = False
            for c in conns:
                g = fs[fs.conn == c].reset_index(drop=True)
                color = styles(c)
                ax.plot(
                    g.time_s,
                    g.snd_max / scale,
                    "-",
                    color=color,
                    linewidth=1.0,
                    label=f"conn {c} snd_max",
                )
                ax.plot(
                    g.time_s,
                    g.snd_una / scale,
                    "--",
                    color=color,
                    linewidth=1.0,
                    label=f"conn {c} snd_una",
                )
                if "retransmitted_segments" in g:
                    grew = g.retransmitted_segments.diff().fillna(g.retransmitted_segments) > 0
                    # One legend entry for the marks of every connection.
                    label = None
                    if grew.any() and not marked:
                        label = "retransmission" + (
                            " (x on each connection's snd_una)" if len(conns) > 1 else ""
                        )
                        marked = True
                    ax.plot(
                        g.time_s[grew],
                        g.snd_una[grew] / scale,
                        "x",
                        color="red",
                        markersize=5,
                        label=label,
                    )
            return unit

        figure("sequence", [("sequence number ({unit})", None)], seq)
    if not ls.empty:
        names = dict(zip(links.link, links.name, strict=False)) if "link" in links else {}

        def util(ax, col):
            for k, (link, g) in enumerate(ls.groupby("link")):
                color, ls_ = distinct_style(k)
                ax.plot(
                    g.time_s,
                    g[col],
                    color=color,
                    linestyle=ls_,
                    linewidth=1.0,
                    label=names.get(link, str(link)),
                )
            if col == "queue_packets":
                integer_ticks(ax.yaxis)  # a number of packets
            return None

        figure(
            "links",
            [("utilisation", "utilization"), ("queue (packets)", "queue_packets")],
            lambda ax, col: util(ax, col),
        )
    if trace is not None:
        from .trace_plot import plot_trace

        names = dict(zip(links.link, links.name, strict=False)) if "link" in links else {}
        paths += plot_trace(trace, out, names, max_flows)
    return paths

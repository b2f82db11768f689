"""``satcp plot RESULTS_DIR``: the usual pictures of one run, from the
tables ``satcp run --out`` wrote (``flow_series`` and ``link_series``,
CSV or Parquet), as PNG files next to them (or in ``--out``):

- ``cwnd.png``: cwnd and ssthresh per connection;
- ``flight.png``: flight size and pipe;
- ``rtt.png``: smoothed RTT and RTO;
- ``sequence.png``: highest sequence number sent and acknowledged against
  time, the samples in which the sender retransmitted marked;
- ``links.png``: utilisation and queue length per link direction.

Connections are drawn up to ``max_flows`` (the first ones).
"""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd

from .reproduce.plotstyle import grid_and_legend, new_figure, save_png

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
    if df.empty and len(df.columns) == 0:
        return df  # an empty series table: nothing to draw from it
    for col in COLUMNS[name]:
        if col not in df.columns:
            raise ValueError(f"{p}: no column {col!r} (not a table satcp wrote)")
    for col in (*COLUMNS[name], *OPTIONAL_COLUMNS.get(name, ())):
        if col in df.columns and not pd.api.types.is_numeric_dtype(df[col]):
            bad = pd.to_numeric(df[col], errors="coerce").isna() & df[col].notna()
            value = df[col][bad].iloc[0] if bad.any() else df[col].dtype
            raise ValueError(f"{p}: column {col!r}: {value!r} is not a number")
    return df


def plot_results(
    results_dir: str | os.PathLike[str],
    out_dir: str | os.PathLike[str] | None = None,
    max_flows: int = 8,
) -> list[Path]:
    d = Path(results_dir)
    out = Path(out_dir) if out_dir is not None else d
    fs = _table(d, "flow_series")
    ls = _table(d, "link_series")
    if fs.empty and ls.empty:
        raise ValueError(f"{d}: the time series are empty (set a sample interval)")
    links = _table(d, "links")
    conns = sorted(fs.conn.unique())[:max_flows] if not fs.empty else []
    paths = []

    def figure(name, panels, draw):
        fig = new_figure((8.0, 3.0 * len(panels)))
        axes = fig.subplots(len(panels), 1, sharex=True, squeeze=False)[:, 0]
        for ax, (ylabel, fn) in zip(axes, panels, strict=True):
            draw(ax, fn)
            ax.set_ylabel(ylabel)
            grid_and_legend(ax, legend=len(ax.get_lines()) > 0)
        axes[-1].set_xlabel("time (s)")
        paths.append(save_png(fig, out / f"{name}.png", dpi=110))

    def per_conn(columns, scale=1.0, styles=("-", "--")):
        def draw(ax, _):
            for c in conns:
                g = fs[fs.conn == c]
                for col, ls_ in zip(columns, styles, strict=False):
                    ax.plot(g.time_s, g[col] * scale, ls_, linewidth=1.0, label=f"conn {c} {col}")

        return draw

    if conns:
        figure("cwnd", [("bytes", None)], per_conn(["cwnd", "ssthresh"]))
        figure("flight", [("bytes", None)], per_conn(["flight_size", "pipe"]))
        figure("rtt", [("seconds", None)], per_conn(["srtt_s", "rto_s"]))

        def seq(ax, _):
            for c in conns:
                g = fs[fs.conn == c].reset_index(drop=True)
                ax.plot(g.time_s, g.snd_max, "-", linewidth=1.0, label=f"conn {c} snd_max")
                ax.plot(g.time_s, g.snd_una, "--", linewidth=1.0, label=f"conn {c} snd_una")
                if "retransmitted_segments" in g:
                    grew = g.retransmitted_segments.diff().fillna(g.retransmitted_segments) > 0
                    ax.plot(
                        g.time_s[grew],
                        g.snd_una[grew],
                        "rx",
                        markersize=5,
                        label=f"conn {c} retransmission" if c == conns[0] else None,
                    )

        figure("sequence", [("sequence number", None)], seq)
    if not ls.empty:
        names = dict(zip(links.link, links.name, strict=False)) if "link" in links else {}

        def util(ax, col):
            for link, g in ls.groupby("link"):
                ax.plot(g.time_s, g[col], linewidth=1.0, label=names.get(link, str(link)))

        figure(
            "links",
            [("utilisation", "utilization"), ("queue (packets)", "queue_packets")],
            lambda ax, col: util(ax, col),
        )
    return paths

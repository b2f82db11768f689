"""``satcp plot RESULTS_DIR`` on a run with a per-event trace
(``trace.parquet``, :mod:`satcp.trace`): the changes as steps, as
``tcp_probe`` or ns-3's trace sources show them.

- ``trace-cwnd.png``: cwnd and ssthresh of each connection's data sender
  (the server), then its congestion state and its retransmissions, each
  panel when traced;
- ``trace-rtt.png``: each RTT sample as a dot, the smoothed RTT and the
  RTO as steps;
- ``trace-queue.png``: packets (and bytes) in each link direction's queue
  that ever held one.

A kind that was not traced leaves its panel out; a trace with none of a
figure's kinds draws no figure.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from .reproduce.plotstyle import (
    byte_unit,
    distinct_style,
    grid_and_legend,
    integer_ticks,
    new_figure,
    save_png,
)
from .trace import STATES

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["plot_trace"]

#: ssthresh starts "infinite" in some profiles (a huge number): drawn as a
#: gap, not as a line at 1e19 that flattens everything else.
UNBOUNDED = 2.0**48


def _steps(ax, g: pd.DataFrame, end_s: float, scale: float = 1.0, **style) -> None:
    """``g``'s values as a step line that holds each until the next change,
    the last until ``end_s``."""
    import pandas as pd

    x = pd.concat([g.time_s, pd.Series([max(end_s, g.time_s.max())])], ignore_index=True)
    y = pd.concat([g.value, g.value.iloc[-1:]], ignore_index=True)
    y = y.where(y < UNBOUNDED) / scale
    ax.step(x, y, where="post", linewidth=1.0, **style)


def _plain(ax) -> None:
    """Values in their unit on the axis (kB, MB), not with a 1e7 offset."""
    ax.ticklabel_format(axis="y", useOffset=False, style="plain")


def plot_trace(
    trace: pd.DataFrame,
    out: Path,
    link_names: dict[int, str],
    max_flows: int = 8,
) -> list[Path]:
    """The trace's figures in ``out``; returns their paths."""
    paths: list[Path] = []
    if trace.empty:
        return paths
    end_s = float(trace.time_s.max())
    sender = trace[trace.side == "server"]
    conns = sorted(sender.conn.dropna().unique())[:max_flows]

    def kind(df: pd.DataFrame, k: str) -> pd.DataFrame:
        return df[df.kind == k]

    def figure(name: str, panels: list) -> None:
        if not panels:
            return
        fig = new_figure((8.0, 3.0 * len(panels)))
        axes = fig.subplots(len(panels), 1, sharex=True, squeeze=False)[:, 0]
        for ax, draw in zip(axes, panels, strict=True):
            draw(ax)
            grid_and_legend(ax, legend=len(ax.get_lines()) + len(ax.collections) > 0)
        axes[-1].set_xlabel("time (s)")
        paths.append(save_png(fig, out / f"{name}.png", dpi=110))

    # cwnd, ssthresh, state, retransmissions of each data sender.
    windows = sender[sender.kind.isin(["cwnd", "ssthresh"]) & (sender.value < UNBOUNDED)]
    panels = []
    if not windows.empty:

        def window(ax):
            unit, scale = byte_unit(float(windows.value.max()))
            for i, c in enumerate(conns):
                color = distinct_style(i)[0]
                for k, ls in (("cwnd", "-"), ("ssthresh", "--")):
                    g = kind(sender[sender.conn == c], k)
                    if not g.empty:
                        _steps(
                            ax, g, end_s, scale, color=color, linestyle=ls, label=f"conn {c} {k}"
                        )
            ax.set_ylabel(unit)
            _plain(ax)

        panels.append(window)
    if not kind(sender, "state").empty:

        def state(ax):
            for i, c in enumerate(conns):
                g = kind(sender[sender.conn == c], "state")
                if not g.empty:
                    _steps(ax, g, end_s, color=distinct_style(i)[0], label=f"conn {c}")
            ax.set_yticks(list(STATES), list(STATES.values()))
            ax.set_ylabel("congestion state")

        panels.append(state)
    if not kind(sender, "retx").empty:

        def retx(ax):
            for i, c in enumerate(conns):
                g = kind(sender[sender.conn == c], "retx")
                if not g.empty:
                    _steps(ax, g, end_s, color=distinct_style(i)[0], label=f"conn {c}")
            integer_ticks(ax.yaxis)
            ax.set_ylabel("segments retransmitted")

        panels.append(retx)
    figure("trace-cwnd", panels)

    # RTT samples, smoothed RTT and RTO.
    if not sender[sender.kind.isin(["rtt", "srtt", "rto"])].empty:

        def rtt(ax):
            for i, c in enumerate(conns):
                color = distinct_style(i)[0]
                mine = sender[sender.conn == c]
                g = kind(mine, "rtt")
                if not g.empty:
                    ax.plot(
                        g.time_s, g.value, ".", color=color, markersize=2,
                        label=f"conn {c} RTT sample",
                    )  # fmt: skip
                for k, ls in (("srtt", "-"), ("rto", "--")):
                    g = kind(mine, k)
                    if not g.empty:
                        _steps(ax, g, end_s, color=color, linestyle=ls, label=f"conn {c} {k}")
            ax.set_ylabel("seconds")

        figure("trace-rtt", [rtt])

    # Queues: the link directions whose queue ever held a packet.
    queues = trace[trace.kind.isin(["queue", "queue_bytes"])]
    busy = sorted(queues[queues.value > 0].link.dropna().unique())
    panels = []
    for k, label in (("queue", "queue (packets)"), ("queue_bytes", "queue ({unit})")):
        rows = kind(queues, k)
        if rows.empty or not busy:
            continue

        def queue(ax, rows=rows, label=label, k=k):
            unit, scale = byte_unit(float(rows.value.max())) if k == "queue_bytes" else ("", 1.0)
            for i, link in enumerate(busy):
                g = rows[rows.link == link]
                if not g.empty:
                    color, ls = distinct_style(i)
                    name = link_names.get(int(link), str(link))
                    _steps(ax, g, end_s, scale, color=color, linestyle=ls, label=name)
            if k == "queue":
                integer_ticks(ax.yaxis)
            ax.set_ylabel(label.format(unit=unit))
            _plain(ax)

        panels.append(queue)
    figure("trace-queue", panels)
    return paths

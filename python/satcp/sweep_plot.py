"""``satcp plot SWEEP_DIR``: a sweep's summary (``tables/summary.*``) as
PNG files in ``SWEEP_DIR/plots`` (or ``--out``):

- ``<metric>-by-<axis>.png`` for each metric and each axis: the mean over
  seeds against that axis with its 95 % interval as error bars, one line
  per combination of the other axes; points with unfinished runs (whose
  means are over the runs that finished) drawn hollow;
- ``<metric>-heatmap.png`` for each metric when the sweep has two axes:
  the mean over both.

The metrics drawn are those of :data:`METRICS` that have a value somewhere.
"""

from __future__ import annotations

import math
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING

from .reproduce.plotstyle import (
    distinct_style,
    grid_and_legend,
    integer_ticks,
    new_figure,
    rate_unit,
    save_png,
)

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["METRICS", "is_sweep_dir", "plot_sweep"]

#: The metrics drawn, with their axis labels.
METRICS = {
    "response_time_s": "response time (s)",
    "goodput_bps": "goodput (b/s)",
    "retransmitted_segments": "retransmitted segments",
    "timeouts": "timeouts",
}


def _summary_path(d: Path) -> Path | None:
    for ext in (".parquet", ".csv"):
        p = d / "tables" / f"summary{ext}"
        if p.exists():
            return p
    return None


def is_sweep_dir(path: str | os.PathLike[str]) -> bool:
    """A directory ``satcp sweep`` wrote (it holds ``tables/summary.*``)."""
    return _summary_path(Path(path)) is not None


def _file_part(name: str) -> str:
    """An axis name as part of a file name: ``links[1].ab.errors.ber`` ->
    ``links_1_.ab.errors.ber``."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name)


def _numeric(values: pd.Series) -> bool:
    import pandas as pd

    return pd.api.types.is_numeric_dtype(values) and not pd.api.types.is_bool_dtype(values)


def plot_sweep(
    sweep_dir: str | os.PathLike[str], out_dir: str | os.PathLike[str] | None = None
) -> list[Path]:
    import pandas as pd

    d = Path(sweep_dir)
    path = _summary_path(d)
    if path is None:
        raise FileNotFoundError(f"{d}: no tables/summary.csv or .parquet (not a sweep directory)")
    summary = pd.read_parquet(path) if path.suffix == ".parquet" else pd.read_csv(path)
    if summary.empty:
        raise ValueError(f"{d}: the sweep's summary is empty")
    axes = list(summary.columns[: list(summary.columns).index("runs")])
    out = Path(out_dir) if out_dir is not None else d / "plots"
    paths: list[Path] = []
    for metric, label in {**METRICS, **_own_metrics(summary)}.items():
        mean = summary.get(f"{metric}_mean")
        if mean is None or not mean.notna().any():
            continue
        if metric.endswith("_bps"):  # a rate in kb/s, Mb/s or Gb/s, not b/s with a 1e7 offset
            unit, scale = _rate_unit(float(mean.abs().max()))
            summary = summary.assign(
                **{
                    f"{metric}_mean": summary[f"{metric}_mean"] / scale,
                    f"{metric}_ci95": summary[f"{metric}_ci95"] / scale,
                }
            )
            label = label.replace("(b/s)", f"({unit})")
        for axis in axes:
            paths.append(_lines(summary, axes, axis, metric, label, out))
        if len(axes) == 2:
            paths.append(_heatmap(summary, axes, metric, label, out))
    return paths


_rate_unit = rate_unit


def _own_metrics(summary: pd.DataFrame) -> dict[str, str]:
    """The sweep's own metrics (its ``[metrics]``: the ``<name>_mean``
    columns that are not the built-in metrics'), labelled by their names."""
    from .sweep import METRICS as BUILT_IN

    names = [c.removesuffix("_mean") for c in summary.columns if c.endswith("_mean")]
    return {n: n for n in names if n not in BUILT_IN}


def _lines(
    summary: pd.DataFrame, axes: list[str], axis: str, metric: str, label: str, out: Path
) -> Path:
    others = [a for a in axes if a != axis]
    fig = new_figure((7.0, 4.0))
    ax = fig.subplots()
    numeric = _numeric(summary[axis])
    values = list(dict.fromkeys(summary[axis]))
    groups = summary.groupby(others, sort=False, dropna=False) if others else [((), summary)]
    for k, (key, g) in enumerate(groups):
        key = key if isinstance(key, tuple) else (key,)
        name = ", ".join(f"{a}={v}" for a, v in zip(others, key, strict=True)) or metric
        x = g[axis] if numeric else [values.index(v) for v in g[axis]]
        color, ls = distinct_style(k)
        line = ax.errorbar(
            x,
            g[f"{metric}_mean"],
            yerr=g[f"{metric}_ci95"],
            marker="o",
            capsize=3,
            label=name,
            color=color,
            linestyle=ls,
        )
        cut = g["unfinished_runs"] > 0
        if cut.any():
            ax.plot(
                [xi for xi, c in zip(x, cut, strict=True) if c],
                g.loc[cut, f"{metric}_mean"],
                linestyle="none",
                marker="o",
                markersize=10,
                markerfacecolor="white",
                color=line.lines[0].get_color(),
            )
    if numeric:
        positive = [v for v in values if v > 0]
        if len(positive) >= 2 and max(positive) / min(positive) >= 100:
            if len(positive) == len(values):
                ax.set_xscale("log")
            else:  # a zero among them (a lossless point): linear near zero
                ax.set_xscale("symlog", linthresh=min(positive))
        if ax.get_xscale() == "linear" and all(float(v).is_integer() for v in values):
            integer_ticks(ax.xaxis)  # a count (connections, packets): no 2.5
    else:
        ax.set_xticks(range(len(values)), [str(v) for v in values])
    ax.set_xlabel(axis)
    ax.set_ylabel(f"{label}, mean and 95 % interval")
    ax.ticklabel_format(axis="y", useOffset=False, style="plain")  # no "+4.668" offsets
    if (summary["unfinished_runs"] > 0).any():
        ax.set_title("hollow: points with unfinished runs (means over the finished ones)")
    grid_and_legend(ax, legend=True)
    caption = f"{label} by {axis}: mean over seeds with its 95 % interval" + (
        f", one line per {', '.join(others)}" if others else ""
    )
    return save_png(fig, out / f"{metric}-by-{_file_part(axis)}.png", dpi=110, caption=caption)


def _heatmap(summary: pd.DataFrame, axes: list[str], metric: str, label: str, out: Path) -> Path:
    import pandas as pd

    rows, cols = axes
    table = summary.pivot_table(
        index=rows, columns=cols, values=f"{metric}_mean", sort=False, dropna=False
    )
    fig = new_figure((7.0, 4.5))
    ax = fig.subplots()
    image = ax.imshow(table.to_numpy(dtype=float), aspect="auto", cmap="viridis")
    ax.set_xticks(range(len(table.columns)), [str(c) for c in table.columns])
    ax.set_yticks(range(len(table.index)), [str(i) for i in table.index])
    for (i, j), v in pd.DataFrame(table.to_numpy(dtype=float)).stack().items():
        if not math.isnan(v):
            ax.text(j, i, f"{v:.3g}", ha="center", va="center", color="white", fontsize=8)
    ax.set_xlabel(cols)
    ax.set_ylabel(rows)
    fig.colorbar(image, ax=ax, label=f"{label} (mean)")
    caption = f"{label}: mean over seeds by {rows} and {cols}"
    return save_png(fig, out / f"{metric}-heatmap.png", dpi=110, caption=caption)

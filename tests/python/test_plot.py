"""``satcp plot``: the usual pictures of a run."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from conftest import FTP, run_cli
from matplotlib.colors import to_hex


def test_plot_draws_every_figure(tmp_path):
    out = tmp_path / "run"
    proc = run_cli(
        "run",
        FTP,
        "--set",
        "apps[0].file_bytes=400000",
        "--set",
        "links[1].ab.errors.ber=1e-5",
        "--sample-interval",
        "0.5",
        "--out",
        out,
        "--quiet",
    )
    assert proc.returncode == 0, proc.stderr
    proc = run_cli("plot", out)
    assert proc.returncode == 0, proc.stderr
    for name in ("cwnd", "flight", "rtt", "sequence", "links"):
        assert (out / f"{name}.png").stat().st_size > 5_000, name
    assert "wrote 5 figures" in proc.stdout


def test_plot_of_a_missing_directory_is_one_line(tmp_path):
    proc = run_cli("plot", tmp_path / "nope")
    assert proc.returncode == 2 and len(proc.stderr.splitlines()) == 1


def test_plot_of_a_sweep_draws_lines_over_each_axis_and_a_heatmap(tmp_path):
    """A sweep directory: per metric, the mean with its 95 % interval over
    each axis, and a heatmap over the two axes, in SWEEP_DIR/plots."""
    grid = tmp_path / "g.toml"
    grid.write_text(
        f'base = "{FTP}"\nseeds = [1, 2]\n[set]\n"apps[0].file_bytes" = 100000\n'
        '[axes]\n"tcp.variant" = ["sack", "newreno"]\n'
        '"links[satellite].ab.errors.ber" = [0.0, 1e-6, 1e-4]\n'
    )
    out = tmp_path / "sweep"
    assert run_cli("sweep", grid, "--out", out, "--quiet").returncode == 0
    proc = run_cli("plot", out)
    assert proc.returncode == 0, proc.stderr
    plots = out / "plots"
    for name in (
        "response_time_s-by-tcp.variant",
        "response_time_s-by-links_satellite_.ab.errors.ber",
        "response_time_s-heatmap",
        "goodput_bps-heatmap",
    ):
        assert (plots / f"{name}.png").stat().st_size > 5_000, name
    assert "wrote 12 figures" in proc.stdout


def test_sweep_rates_are_drawn_in_kb_mb_or_gb_per_second():
    from satcp.sweep_plot import _rate_unit

    assert _rate_unit(8_883_785.06) == ("Mb/s", 1e6)
    assert _rate_unit(171_357.8) == ("kb/s", 1e3)
    assert _rate_unit(2.5e9) == ("Gb/s", 1e9)
    assert _rate_unit(12.0) == ("b/s", 1.0)


def _captured(monkeypatch, module):
    """The figures ``module`` saves, by file name, instead of PNG files."""
    figs = {}

    def save(fig, path, dpi, caption=None):
        fig.canvas.draw()  # ticks and offsets as in the PNG
        figs[Path(path).stem] = fig
        return Path(path)

    monkeypatch.setattr(module, "save_png", save)
    return figs


def _styles(ax):
    return [(to_hex(line.get_color()), line.get_linestyle()) for line in ax.get_lines()]


def test_compare_draws_each_variant_in_its_own_colour_and_style():
    """Eleven variants, ten colours in matplotlib's cycle: NewReno and BBR
    were both blue. Each now has its own (colour, linestyle), in registry
    order, the same on every panel."""
    from satcp import compare

    t = np.arange(0.0, 5.0, 1.0)
    frame = pd.DataFrame(
        {"time_s": t, "bytes_delivered": t * 1e6, "srtt_s": 0.03 + 0 * t, "cwnd": 1e5 + t}
    )
    series = {("starlink", name): frame for name, _ in compare.VARIANTS}
    fig = compare._figure("starlink", series)
    for ax in fig.axes:
        styles = _styles(ax)
        assert len(styles) == len(compare.VARIANTS) == len(set(styles)) == 11
        assert styles == _styles(fig.axes[0])
    names = [line.get_label() for line in fig.axes[0].get_lines()]
    assert styles[names.index("NewReno")] != styles[names.index("BBR")]


def _fake_run(d: Path, conns: int = 2) -> Path:
    """Tables as ``satcp run --out`` writes them: two connections with
    sequence numbers in the tens of MB, retransmissions on both."""
    d.mkdir()
    rows = []
    for c in range(conns):
        for i in range(20):
            rows.append(
                {
                    "time_s": float(i),
                    "conn": c,
                    "cwnd": 40_000.0 + 1000 * i,
                    "ssthresh": 65_535.0,
                    "flight_size": 30_000.0,
                    "pipe": 30_000.0,
                    "srtt_s": 0.55,
                    "rto_s": 1.2,
                    "snd_max": 2.0e7 + 1.0e6 * i + c,
                    "snd_una": 2.0e7 + 1.0e6 * i - 5e4,
                    "retransmitted_segments": i // 5,
                }
            )
    pd.DataFrame(rows).to_csv(d / "flow_series.csv", index=False)
    link = [
        {"time_s": float(i), "link": k, "utilization": 0.5, "queue_packets": i % 3}
        for k in range(2)
        for i in range(20)
    ]
    pd.DataFrame(link).to_csv(d / "link_series.csv", index=False)
    pd.DataFrame({"link": [0, 1], "name": ["sat:ab", "sat:ba"]}).to_csv(
        d / "links.csv", index=False
    )
    return d


def test_plot_scales_units_marks_once_and_counts_whole_packets(tmp_path, monkeypatch):
    """`satcp plot`: bytes in kB or MB with the unit on the axis (no 1e7
    offset); one legend entry for the retransmission marks of every
    connection, saying so; a queue in whole packets; each connection in
    its own colour."""
    from satcp import plot

    figs = _captured(monkeypatch, plot)
    plot.plot_results(_fake_run(tmp_path / "r"), tmp_path / "out")
    assert set(figs) == {"cwnd", "flight", "rtt", "sequence", "links"}
    for name, fig in figs.items():
        for ax in fig.axes:
            assert ax.yaxis.get_offset_text().get_text() == "", name
    seq = figs["sequence"].axes[0]
    assert seq.get_ylabel() == "sequence number (MB)"
    assert max(seq.get_yticks()) < 100
    labels = [t.get_text() for t in seq.get_legend().get_texts()]
    marks = [t for t in labels if "retransmission" in t]
    assert marks == ["retransmission (x on each connection's snd_una)"], labels
    assert figs["cwnd"].axes[0].get_ylabel() == "kB"
    colours = {line.get_label(): line.get_color() for line in seq.get_lines()}
    assert colours["conn 0 snd_max"] != colours["conn 1 snd_max"]
    queue = figs["links"].axes[1]
    assert all(float(v).is_integer() for v in queue.get_yticks())


def test_sweep_plot_counts_have_whole_ticks_and_lines_distinct_styles(tmp_path, monkeypatch):
    """An axis of counts (connections: 1, 2, 3) has no 1.5 tick; the lines
    of a sweep plot, one per value of the other axis, differ in colour or
    style even beyond ten."""
    from satcp import sweep_plot

    rows = [
        {
            "apps[0].connections": n,
            "tcp.variant": f"v{k}",
            "runs": 2,
            "unfinished_runs": 0,
            "goodput_bps_mean": 1e7 * n + k,
            "goodput_bps_ci95": 1e5,
            "goodput_bps_n": 2,
        }
        for n in (1, 2, 3)
        for k in range(12)
    ]
    (tmp_path / "s" / "tables").mkdir(parents=True)
    pd.DataFrame(rows).to_csv(tmp_path / "s" / "tables" / "summary.csv", index=False)
    figs = _captured(monkeypatch, sweep_plot)
    sweep_plot.plot_sweep(tmp_path / "s")
    ax = figs["goodput_bps-by-apps_0_.connections"].axes[0]
    assert all(float(v).is_integer() for v in ax.get_xticks())
    assert "Mb/s" in ax.get_ylabel() and ax.yaxis.get_offset_text().get_text() == ""
    styles = [s for s in _styles(ax) if s[1] != "None"]
    assert len(styles) == 12 == len(set(styles))


def test_save_png_lays_out_tightly_and_draws_once(tmp_path):
    """tight_layout leaves a placeholder layout engine, with which savefig
    draws the whole figure twice (once without rendering); save_png
    removes it, so a figure is drawn once, and its layout is still the
    tight one."""
    from satcp.reproduce import plotstyle

    fig = plotstyle.new_figure(figsize=(4, 3))
    ax = fig.add_subplot()
    ax.plot([0, 1, 2], [3, 1, 2], label="a series")
    ax.set_xlabel("a label far from the default margins")
    ax.legend()
    draws = []
    real_draw = fig.draw

    def counted(renderer):
        draws.append(renderer)
        return real_draw(renderer)

    fig.draw = counted
    default_left = fig.subplotpars.left
    path = plotstyle.save_png(fig, tmp_path / "one.png", dpi=50)
    assert path.read_bytes().startswith(b"\x89PNG")
    assert len(draws) == 1
    assert fig.get_layout_engine() is None
    assert fig.subplotpars.left != default_left

"""``satcp plot``: the usual pictures of a run."""

from __future__ import annotations

from conftest import FTP, run_cli


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

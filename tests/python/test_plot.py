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

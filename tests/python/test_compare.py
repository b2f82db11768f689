"""``satcp compare``: every variant on path presets, ranked."""

from __future__ import annotations

import pandas as pd
from conftest import run_cli

from satcp import compare


def test_compare_ranks_every_variant_on_each_preset(tmp_path):
    out = tmp_path / "cmp"
    proc = run_cli(
        "compare",
        "--out",
        out,
        "--preset",
        "starlink",
        "--preset",
        "leo-trace",
        "--seconds",
        "20",
        "--seeds",
        "2",
    )
    assert proc.returncode == 0, proc.stderr
    t = pd.read_csv(out / "ranking.csv")
    assert set(t.preset) == {"starlink", "leo-trace"}
    for _, g in t.groupby("preset"):
        assert sorted(g["rank"]) == list(range(1, len(compare.VARIANTS) + 1))
        assert set(g.variant) == {name for name, _ in compare.VARIANTS}
        # Ranked by goodput.
        assert list(g.sort_values("rank").goodput_mbps) == sorted(g.goodput_mbps, reverse=True)
        assert (g.goodput_mbps >= 0).all()
    assert (out / "starlink.png").stat().st_size > 10_000
    assert "## starlink" in (out / "ranking.md").read_text()
    assert "starlink:" in proc.stdout


def test_compare_bad_input(tmp_path):
    for args in (["--preset", "mars"], ["--seconds", "-1"], ["--seeds", "0"]):
        proc = run_cli("compare", "--out", tmp_path / "x", *args)
        assert proc.returncode == 2
        assert len(proc.stderr.splitlines()) == 1
        assert not (tmp_path / "x").exists()

"""``satcp compare``: every variant on path presets, ranked."""

from __future__ import annotations

import pandas as pd
import pytest
from conftest import run_cli

from satcp import compare, leo


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


def test_the_isl_preset_and_student_t_intervals(tmp_path):
    """starlink-isl runs (with its handover outages dropping packets), and
    each row's interval is Student t's with n - 1 degrees of freedom."""
    import satcp
    from satcp.stats import t975

    rows, _ = compare.compare(tmp_path / "c", presets=["starlink-isl"], seconds=20.0, seeds=(1, 2))
    row = next(r for r in rows if r.variant == "NewReno")
    runs = [
        satcp.run({**compare.PRESETS["starlink-isl"][1]({"variant": "newreno"}, 20.0), "seed": s})
        for s in (1, 2)
    ]
    g = [r.flows.goodput_bps.iloc[0] / 1e6 for r in runs]
    assert row.goodput_mbps == pytest.approx(sum(g) / 2)
    half = t975(1) * abs(g[0] - g[1]) / 2**0.5 / 2**0.5
    assert row.ci95_mbps == pytest.approx(half)
    # The satellite link carries an outage from each handover (packet drops
    # by a loss schedule: tests/python/test_leo_orbits.py).
    sat = compare.PRESETS["starlink-isl"][1]({"variant": "newreno"}, 20.0)["links"][1]
    path = leo.isl_path_schedule((51.51, -0.13), (40.71, -74.01), 20.0)
    assert path.handovers()
    assert sat["errors"]["loss_schedule"] == path.loss_schedule(compare.HANDOVER_OUTAGE_S)
    assert sat["delay_schedule"] == path.schedule()


def test_the_ranking_names_each_configurations_profile(tmp_path):
    rows, _ = compare.compare(tmp_path / "c", presets=["starlink"], seconds=5.0, seeds=(1,))
    by = {r.variant: r.profile for r in rows}
    assert by["CUBIC"] == "linux" and by["NewReno"] == "rfc"
    t = pd.read_csv(tmp_path / "c" / "ranking.csv")
    assert dict(zip(t.variant, t.profile, strict=True)) == by
    assert "| stack |" in (tmp_path / "c" / "ranking.md").read_text()


def test_the_help_names_every_preset():
    from satcp import cli, compare

    assert tuple(cli.COMPARE_PRESETS) == tuple(compare.PRESETS)


def test_a_second_run_lists_only_its_own_figures(tmp_path):
    """Two compare runs with other presets into one folder: the first's PNG
    stays on disk but the second's list of outputs (outputs.json, what
    satcp report shows) has only its own (issue 32)."""
    from satcp import html_report, manifest

    out = tmp_path / "c"
    compare.compare(out, presets=["starlink"], seconds=2.0, seeds=(1,))
    compare.compare(out, presets=["thesis-geo"], seconds=2.0, seeds=(1,))
    assert (out / "starlink.png").exists()
    listed = manifest.read_manifest(out)
    assert listed is not None and listed["kind"] == "compare"
    assert [f["file"] for f in listed["figures"]] == ["ranking.png", "thesis-geo.png"]
    assert "starlink.png" not in listed["files"]
    page = html_report.build_report(out)
    assert 'data-file="c/thesis-geo.png"' in page and "starlink.png" not in page


def test_the_ranking_says_first_which_variant_wins_on_each_path():
    """Per path: the winner, its goodput and the variants whose 95 %
    intervals overlap its (a tie); with one seed the tie is not known."""
    nan = float("nan")
    rows = [
        compare.Row("a", "X", "rfc", 10.0, 0.5, 0.0, 1.0, rank=1),
        compare.Row("a", "Y", "rfc", 9.2, 0.4, 0.0, 1.0, rank=2),  # 0.8 <= 0.9: tied
        compare.Row("a", "Z", "rfc", 8.0, 0.1, 0.0, 1.0, rank=3),
        compare.Row("b", "Y", "rfc", 3.0, nan, 0.0, 1.0, rank=1),
        compare.Row("b", "X", "rfc", 2.0, nan, 0.0, 1.0, rank=2),
    ]
    md = compare._winners(rows, ["a", "b"])
    assert md[0] == "## Which variant wins"
    assert md[4] == "| a | X | 10.000 ± 0.500 | Y |"
    assert md[5] == "| b | Y | 3.000 | not known (one seed: no interval) |"


def test_the_ranking_figure_shows_means_with_their_intervals():
    """ranking.png: per path a bar per variant in rank order, the mean over
    seeds with its 95 % interval as an error bar, in the variant's colour."""
    from matplotlib.colors import to_hex
    from matplotlib.container import BarContainer, ErrorbarContainer

    from satcp.reproduce.plotstyle import distinct_style

    names = [name for name, _ in compare.VARIANTS]
    rows = [
        compare.Row(p, name, "rfc", 10.0 - i, 0.1 * (i + 1), 0.0, 1.0, rank=i + 1)
        for p in ("starlink", "peach-geo")
        for i, name in enumerate(names)
    ]
    fig = compare._ranking_figure(rows, ["starlink", "peach-geo"], seeds=(1, 2, 3))
    assert len(fig.axes) == 2
    for ax in fig.axes:
        (bars,) = [c for c in ax.containers if isinstance(c, BarContainer)]
        assert [round(b.get_width(), 6) for b in bars] == [10.0 - i for i in range(len(names))]
        assert [t.get_text() for t in ax.get_yticklabels()] == names
        (errs,) = [c for c in ax.containers if isinstance(c, ErrorbarContainer)]
        segments = errs.lines[2][0].get_segments()
        assert [round(s[1][0] - s[0][0], 6) for s in segments] == [
            round(0.2 * (i + 1), 6) for i in range(len(names))
        ]
        assert to_hex(bars[names.index("BBR")].get_facecolor()) == distinct_style(10)[0]
    assert "95 % interval" in fig.axes[-1].get_xlabel()

"""``satcp reproduce kuhn2013 --quick``: the report, its CSV files, its
figure and claims; random access saves time on short flows and loses
efficiency and packets under load (docs/satellite-access.md,
"Reproducing Kuhn et al.")."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from conftest import run_cli


@pytest.fixture(scope="module")
def quick_out(tmp_path_factory) -> tuple[Path, str]:
    out = tmp_path_factory.mktemp("kuhn2013") / "out"
    p = run_cli("reproduce", "kuhn2013", "--quick", "--out", out)
    assert p.returncode == 0, p.stderr
    return out, p.stdout


def rows(path: Path) -> list[dict[str, str]]:
    with path.open() as f:
        return list(csv.DictReader(f))


def test_cli_quick_writes_report_claims_tables_and_figure(quick_out):
    out, stdout = quick_out
    assert "claims of the paper hold in satcp" in stdout
    names = {f.name for f in out.iterdir()}
    for f in ("report.md", "claims.csv", "short_flows.csv", "load.csv", "efficiency.png"):
        assert f in names, f
    report = (out / "report.md").read_text()
    assert report.startswith("# satcp vs Kuhn et al.")
    assert "--quick run" in report
    assert "docs/satellite-access.md" in report
    claims = rows(out / "claims.csv")
    assert len(claims) == 3
    assert all(c["reproduced"] in ("yes", "no") for c in claims)


def test_random_access_is_faster_for_short_flows_and_less_efficient_under_load(quick_out):
    out, _ = quick_out
    short = {r["access"]: float(r["response_s"]) for r in rows(out / "short_flows.csv")}
    # At least the SYN-ACK's wait for a grant (a GEO round trip) is saved.
    assert short["ra"] < short["dama"] - 0.4
    load = {(r["access"], int(r["terminals"])): r for r in rows(out / "load.csv")}
    top = max(n for _, n in load)
    assert float(load["ra", top]["efficiency"]) < float(load["dama", top]["efficiency"])
    assert float(load["ra", top]["collision_loss"]) > float(load["ra", 1]["collision_loss"])
    assert float(load["dama", top]["ra_packets"]) == 0

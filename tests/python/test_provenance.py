"""Provenance: the version, commit, hash of what was run, seed and
platform in `satcp --version`, every results.json and a sweep's tables;
nothing in it varies between two runs of the same scenario and seed."""

from __future__ import annotations

import json
import re
import subprocess

import pandas as pd
import pyarrow.parquet as pq
from conftest import FTP, SMALL_FTP, run_cli

from satcp import provenance, sweep

COMMIT = r"(?:[0-9a-f]{40}(?:-dirty)?|unknown)"


def test_version_names_the_commit_and_platform():
    proc = run_cli("--version")
    assert proc.returncode == 0
    assert re.fullmatch(rf"satcp \S+ \(commit {COMMIT}; .+; Python 3\.\d+\.\d+\)\n", proc.stdout)
    # The tests run from a checkout: the commit is known.
    assert "commit unknown" not in proc.stdout


def test_outside_a_satcp_checkout_the_commit_is_unknown(tmp_path):
    assert provenance.commit_of(str(tmp_path)) == "unknown"
    # Another repository is not a satcp checkout either.
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    assert provenance.commit_of(str(tmp_path)) == "unknown"


def test_a_checkout_s_commit_and_dirty_mark(tmp_path):
    """HEAD's commit; `-dirty` when a tracked file differs, not for an
    untracked one; `unknown` before the first commit; found from a
    directory below the top too."""

    def git(*args):
        return subprocess.run(
            ["git", "-C", str(tmp_path), *args], check=True, capture_output=True, text=True
        ).stdout.strip()

    git("init", "-q")
    cargo = tmp_path / "crates" / "satcp-core" / "Cargo.toml"
    cargo.parent.mkdir(parents=True)
    cargo.write_text("[package]\n")
    assert provenance.commit_of(str(tmp_path)) == "unknown"
    git("add", "-A")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "one")
    sha = git("rev-parse", "HEAD")
    assert provenance.commit_of(str(cargo.parent)) == sha
    (tmp_path / "results").mkdir()
    (tmp_path / "results" / "x.csv").write_text("1\n")
    assert provenance.commit_of(str(tmp_path)) == sha
    cargo.write_text("[package]\nname = 'x'\n")
    assert provenance.commit_of(str(tmp_path)) == f"{sha}-dirty"


def test_the_platform_reads_as_platform_platform():
    import platform

    name = provenance.platform_name()
    assert name.endswith(f"; Python {platform.python_version()}")
    # The same words where the processor adds none (Linux: `uname -p` is
    # the machine name, or unknown).
    if platform.processor() in ("", platform.machine()):
        assert name == f"{platform.platform()}; Python {platform.python_version()}"


def test_results_json_is_the_core_s_output_with_its_provenance(tmp_path):
    args = ["run", FTP, *(a for s in SMALL_FTP for a in ("--set", s)), "--seed", "4", "-q"]
    for d in ("a", "b"):
        assert run_cli(*args, "--out", tmp_path / d).returncode == 0
    text = (tmp_path / "a" / "results.json").read_text()
    # Byte for byte the same for the same scenario and seed.
    assert text == (tmp_path / "b" / "results.json").read_text()
    results = json.loads(text)
    prov = results.pop("provenance")
    assert list(json.loads(text))[-1] == "provenance"
    scenario = json.loads((tmp_path / "a" / "scenario.json").read_text())
    assert prov["seed"] == results["seed"] == 4
    assert prov["scenario_sha256"] == provenance.content_hash(scenario)
    assert re.fullmatch(COMMIT, prov["commit"]) and prov["satcp_version"]
    assert "Python" in prov["platform"]


def test_a_sweep_s_tables_carry_its_provenance(tmp_path):
    p = tmp_path / "g.toml"
    p.write_text(
        f'base = "{FTP}"\nseeds = [1, 2]\n[set]\n"apps[0].file_bytes" = 100000\n'
        '[axes]\n"tcp.variant" = ["sack", "newreno"]\n'
    )
    sw = sweep.load_sweep(p)
    r = sweep.run_sweep(sw, tmp_path / "out", progress=False)
    tables = tmp_path / "out" / "tables"
    prov = json.loads((tables / "provenance.json").read_text())
    assert prov["seeds"] == [1, 2]
    assert prov["base_scenario_sha256"] == provenance.content_hash(sw.base)
    meta = pq.read_schema(tables / "runs.parquet").metadata[b"satcp_provenance"]
    assert json.loads(meta) == prov
    # The tables themselves are unchanged by it.
    pd.testing.assert_frame_equal(pd.read_parquet(tables / "runs.parquet"), r.runs)

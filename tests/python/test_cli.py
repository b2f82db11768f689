"""The `satcp` command, run as a subprocess."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pandas as pd
import pytest
from conftest import FTP, SMALL_FTP, run_cli

SMALL = [a for o in SMALL_FTP for a in ("--set", o)]


def assert_bad_input(proc, *fragments: str) -> None:
    assert proc.returncode == 2, proc.stderr
    assert proc.stdout == ""
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("satcp: error: ")
    assert "Traceback" not in proc.stderr
    for f in fragments:
        assert f in lines[0]


@pytest.mark.parametrize(
    ("overrides", "fragments"),
    [
        (["tcp.variant=foo"], ["tcp.variant", '"foo" is not a known variant']),
        (["links[0].rate_bps=-5"], ["links[0].rate_bps", "-5 must be between 1 and 1e12"]),
        (["links[1].errors.ber=2"], ["links[1].errors.ber", "2 must be between 0 and 1"]),
        (["links[1].ab.errors.ber=1.5"], ["links[1].ab.errors.ber", "1.5 must be between 0 and 1"]),
        (["links[1].ab.ber=1e-6"], ["links[1].ab.ber", "write errors = { ber = ... }"]),
        (["links[0].colour=red"], ["links[0]", "unknown field `colour`"]),
        (["apps[0].colour=red"], ["apps[0]", "unknown field `colour`"]),
        (["colour=red"], ["unknown field `colour`"]),
        (["links[7].errors.ber=0"], ["links[7]", "does not exist"]),
        (["novalue"], ["bad --set", "KEY=VALUE"]),
        (["links[x].errors.ber=0"], ["links[x].errors.ber", "'x'", "ethernet, satellite"]),
        (["links[-1].errors.ber=0"], ["bad --set key"]),
        (["duration_s=nan"], ["duration_s", "not a finite number"]),
    ],
)
def test_run_bad_scenario_exits_2_and_writes_nothing(tmp_path, overrides, fragments):
    out = tmp_path / "out"
    args = ["run", FTP, *SMALL, "--out", out]
    for o in overrides:
        args += ["--set", o]
    assert_bad_input(run_cli(*args), *fragments)
    assert not out.exists()


def test_missing_file(tmp_path):
    out = tmp_path / "out"
    proc = run_cli("run", tmp_path / "nope.toml", "--out", out)
    assert_bad_input(proc, "nope.toml", "No such file")
    assert not out.exists()


def test_malformed_toml(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "x"\nnodes = ["a", "b"\nseed = 1\n')
    out = tmp_path / "out"
    proc = run_cli("run", bad, "--out", out)
    assert_bad_input(proc, "bad.toml", "line 3", "invalid TOML")
    assert not out.exists()


def test_failure_leaves_existing_out_dir_empty(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    proc = run_cli("run", FTP, *SMALL, "--set", "tcp.variant=foo", "--out", out)
    assert_bad_input(proc)
    assert list(out.iterdir()) == []


@pytest.mark.parametrize(
    "args",
    [
        [],
        ["bogus"],
        ["run"],
        ["run", str(FTP), "--seed", "abc"],
        ["run", str(FTP), "--format", "xlsx"],
        ["reproduce", "everything"],
    ],
)
def test_usage_errors_are_one_line(args):
    assert_bad_input(run_cli(*args))


def test_out_is_a_file(tmp_path):
    f = tmp_path / "file"
    f.write_text("x")
    assert_bad_input(run_cli("run", FTP, *SMALL, "--out", f), "not a directory")


def test_run_prints_summary(tmp_path):
    proc = run_cli("run", FTP, *SMALL, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "Transfers" in proc.stdout and "Links" in proc.stdout
    assert "wall time" in proc.stdout and "events/s" in proc.stdout
    assert proc.stderr == ""
    assert list(tmp_path.iterdir()) == []  # nothing written without --out


def test_run_out_writes_csv(tmp_path):
    out = tmp_path / "res"
    proc = run_cli(
        "run", FTP, *SMALL, "--seed", "5", "--sample-interval", "0.5", "--out", out, "--quiet"
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == ""
    names = {p.name for p in out.iterdir()}
    for t in ["transfers", "flows", "links", "flow_series", "link_series"]:
        assert f"{t}.csv" in names
    assert {"results.json", "scenario.json"} <= names
    transfers = pd.read_csv(out / "transfers.csv")
    assert transfers.loc[0, "bytes"] == 200_000
    assert transfers["response_time_s"].notna().all()
    scenario = json.loads((out / "scenario.json").read_text())
    assert scenario["seed"] == 5
    assert scenario["sample_interval_s"] == 0.5
    assert json.loads((out / "results.json").read_text())["seed"] == 5


def test_run_out_parquet(tmp_path):
    out = tmp_path / "res"
    proc = run_cli("run", FTP, *SMALL, "--out", out, "--format", "parquet")
    assert proc.returncode == 0, proc.stderr
    flows = pd.read_parquet(out / "flows.parquet")
    assert flows.loc[0, "client_bytes_delivered"] == 200_000
    assert not (out / "flows.csv").exists()
    assert f"wrote {out}" in proc.stdout


def test_validate_and_variants():
    proc = run_cli("validate", FTP, "--set", "tcp.variant=newreno")
    assert proc.returncode == 0, proc.stderr
    assert "ok" in proc.stdout
    assert_bad_input(run_cli("validate", FTP, "--set", "tcp.variant=foo"), "not a known variant")
    proc = run_cli("variants")
    assert proc.returncode == 0
    names = set(re.findall(r"[\w-]+", proc.stdout))
    assert {"reno", "sack", "newreno", "adalr-sack", "peach-sack", "faststart"} <= names
    assert "example-drop-recorder" in names, "router function kinds are listed"
    assert "example" not in proc.stdout.split(), "the worked example is not listed"


def test_reproduce_baseline(tmp_path):
    out = tmp_path / "tmp"
    proc = run_cli("reproduce", "baseline", "--out", out)
    assert proc.returncode == 0, proc.stderr
    md = (out / "baseline.md").read_text()
    assert "Table 7.5" in md and "Table 7.8" in md
    assert md.count("| TCP SACK |") == 2 and md.count("| TCP NewReno |") == 2
    assert "Window-limited prediction" in md
    assert "Table 7.5" in proc.stdout and "Table 7.8" in proc.stdout
    csv = pd.read_csv(out / "baseline.csv")
    assert list(csv.columns) == [
        "table",
        "variant",
        "delayed_ack",
        "metric",
        "satcp",
        "thesis",
        "diff_pct",
    ]
    assert len(csv) == 8
    assert csv["satcp"].notna().all()


@pytest.mark.parametrize("columns", [None, "0", "40", "200", "wide"])
def test_help_is_as_wide_as_shutil_says(monkeypatch, columns):
    """The help's width is read without importing shutil (satcp.cli's
    _Formatter), as ``shutil.get_terminal_size`` reads it."""
    import shutil

    from satcp import cli

    if columns is None:
        monkeypatch.delenv("COLUMNS", raising=False)
    else:
        monkeypatch.setenv("COLUMNS", columns)
    assert cli._terminal_columns() == shutil.get_terminal_size().columns
    import argparse

    ours = cli._Parser(prog="satcp", description="x " * 60)
    theirs = argparse.ArgumentParser(prog="satcp", description="x " * 60)
    for p in (ours, theirs):
        p.add_argument("--out", metavar="DIR", help="where the files go " * 8)
    assert ours.format_help() == theirs.format_help()


def test_argparse_translations_are_remembered_only_while_building(monkeypatch):
    """_build_parser asks gettext once per word (not once per parser) and
    puts argparse's own translation function back; the help is the same
    words as argparse's."""
    import argparse

    from satcp import cli

    asked = []

    def translate(text):
        asked.append(text)
        return text

    monkeypatch.setattr(argparse, "_", translate)
    parser = cli._build_parser()
    assert argparse._ is translate
    assert len(asked) == len(set(asked))
    assert "show this help message and exit" in asked
    assert "show this help message and exit" in parser.format_help()


def test_the_command_exits_with_mains_status_all_frozen(monkeypatch):
    """console() (the satcp command) exits with main()'s status, having
    frozen the objects out of the collector for a cheap shutdown."""
    import gc

    from satcp import cli

    froze = []
    monkeypatch.setattr(cli, "main", lambda: 3)
    monkeypatch.setattr(gc, "freeze", lambda: froze.append(True))
    with pytest.raises(SystemExit) as e:
        cli.console()
    assert e.value.code == 3
    assert froze == [True]


def test_python_m_satcp_is_the_command(tmp_path):
    p = subprocess.run(
        [sys.executable, "-m", "satcp", "validate", str(tmp_path / "missing.toml")],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert p.returncode == 2
    assert p.stderr.count("\n") == 1 and "missing.toml" in p.stderr

"""The command line imports on demand: `satcp --help`, `satcp validate` and
`satcp run --out DIR` (CSV) load neither pandas nor numpy nor matplotlib nor
Dask; `satcp run --format parquet` and `satcp sweep` load pyarrow (and numpy,
which it imports) but not pandas (issue 33; how fast they are is measured by
tools/bench_cli.py and tools/bench_sweep.py, not here)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from conftest import FTP, SMALL_FTP

HEAVY = ("pandas", "numpy", "matplotlib", "dask", "distributed", "pyarrow", "tqdm")

# Runs the command line in a fresh interpreter and prints the heavy modules
# it loaded, as JSON.
PROBE = """
import json, sys
from satcp.cli import main
argv = json.loads(sys.argv[1])
try:
    rc = main(argv)
except SystemExit as e:  # --help
    rc = e.code
heavy = json.loads(sys.argv[2])
loaded = sorted(m for m in sys.modules if m.split(".")[0] in heavy)
print(json.dumps({"rc": rc, "loaded": loaded, "modules": sorted(sys.modules)}))
"""


def _probe(argv: list[str]) -> dict:
    p = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(argv), json.dumps(HEAVY)],
        capture_output=True,
        text=True,
        check=True,
        timeout=600,
    )
    return json.loads(p.stdout.strip().splitlines()[-1])


def test_import_cli_is_light():
    p = subprocess.run(
        [
            sys.executable,
            "-c",
            "import json, sys, satcp.cli, satcp; "
            f"print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in {HEAVY!r})))",
        ],
        capture_output=True,
        text=True,
        check=True,
        timeout=600,
    )
    assert json.loads(p.stdout) == []


@pytest.mark.parametrize(
    "argv",
    [
        ["--help"],
        ["validate", str(FTP)],
        ["variants"],
    ],
    ids=["help", "validate", "variants"],
)
def test_light_commands(argv):
    out = _probe(argv)
    assert out["rc"] == 0
    assert out["loaded"] == []
    # argparse imports shutil (and bz2, lzma) for the terminal's width
    # unless satcp's formatter reads it
    assert "shutil" not in out["modules"]
    # the core reads the scenario's TOML; tomllib would bring typing and
    # datetime (16 ms on a slow host)
    assert {"tomllib", "typing", "datetime"}.isdisjoint(out["modules"])


def test_run_with_csv_out_is_light(tmp_path):
    argv = ["run", str(FTP), "--quiet", "--out", str(tmp_path / "out")]
    for o in SMALL_FTP:
        argv += ["--set", o]
    out = _probe(argv)
    assert out["rc"] == 0
    assert out["loaded"] == []
    assert {"tomllib", "typing", "datetime"}.isdisjoint(out["modules"])
    assert (tmp_path / "out" / "flows.csv").is_file()


def test_run_with_parquet_out_needs_no_pandas(tmp_path):
    argv = ["run", str(FTP), "--quiet", "--format", "parquet", "--out", str(tmp_path / "out")]
    for o in SMALL_FTP:
        argv += ["--set", o]
    out = _probe(argv)
    assert out["rc"] == 0
    assert {m.split(".")[0] for m in out["loaded"]} == {"pyarrow", "numpy"}
    assert (tmp_path / "out" / "flows.parquet").is_file()


def test_sweep_needs_no_pandas(tmp_path):
    sweep = tmp_path / "s.toml"
    sweep.write_text(
        f'base = "{FTP}"\nseeds = [1, 2]\n[set]\n"duration_s" = 1.0\n'
        '[axes]\n"tcp.variant" = ["newreno", "cubic"]\n'
    )
    out = _probe(["sweep", str(sweep), "--quiet", "--out", str(tmp_path / "out")])
    assert out["rc"] == 0
    assert {m.split(".")[0] for m in out["loaded"]} == {"pyarrow", "numpy"}
    assert (tmp_path / "out" / "tables" / "summary.parquet").is_file()


def test_data_frames_still_there(small_ftp):
    import satcp

    r = satcp.run(small_ftp)
    assert len(r.flows) == 1
    assert "pandas" in sys.modules


def test_report_of_reproductions_is_light(tmp_path):
    """A page of reproductions reads their files: no pandas, no matplotlib
    (only a sweep's folder needs them, to draw its plots)."""
    subprocess.run(
        [
            sys.executable,
            "-m",
            "satcp",
            "reproduce",
            "kuhn2013",
            "--quick",
            "--out",
            str(tmp_path / "reports" / "kuhn2013"),
        ],
        capture_output=True,
        check=True,
        timeout=600,
    )
    out = _probe(["report", str(tmp_path / "reports")])
    assert out["rc"] == 0
    assert out["loaded"] == []
    assert "kuhn2013" in (tmp_path / "reports" / "index.html").read_text()

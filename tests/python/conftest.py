"""Shared fixtures of the Python test suite."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

# Property tests in `make test` are fixed slices: the same cases on every
# run and machine (no example database, no deadline on a loaded host); the
# long, random runs are `make fuzz` and `make soak`.
settings.register_profile(
    "fixed",
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=list(HealthCheck),
)
settings.load_profile("fixed")

REPO = Path(__file__).resolve().parents[2]
SCENARIOS = REPO / "scenarios"
FTP = SCENARIOS / "thesis_ftp.toml"
HTTP = SCENARIOS / "thesis_http.toml"

# The thesis network with a small file: a fast run (a few ms) that finishes.
SMALL_FTP = ["apps[0].file_bytes=200000"]


@pytest.fixture
def ftp_path() -> Path:
    return FTP


@pytest.fixture
def small_ftp() -> dict:
    import satcp

    return satcp.load(FTP, SMALL_FTP)


#: A hang guard for one command, not a speed target (speed lives in
#: `make bench`): generous, so that a loaded machine does not fail a test.
CLI_TIMEOUT_S = 1800


def run_cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Runs `python -m satcp.cli ARGS` and returns the finished process."""
    return subprocess.run(
        [sys.executable, "-m", "satcp.cli", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=CLI_TIMEOUT_S,
        check=False,
    )


# Where a claim may say the paper states it: a figure, section, table or
# equation, of the paper or (ADaLR) of its OPNET paper.
SOURCE_REF = r"^(OPNET paper )?(Figs?\.|Sec\.|Table|Eq\.) ?[0-9IVX]"


def claims_rows(report: str) -> list[list[str]]:
    """The rows of every claims table (headed "| Where | The paper says |")
    of a report, as lists of cells."""
    rows: list[list[str]] = []
    lines = report.splitlines()
    for i, line in enumerate(lines):
        if not line.startswith("| Where | The paper says |"):
            continue
        for row in lines[i + 2 :]:
            if not row.startswith("|"):
                break
            rows.append([c.strip() for c in row.strip("|").split("|")])
    return rows


def assert_claims_cite_sources(report: str) -> int:
    """Every claim of the report names where the paper states it (its
    section, figure or table); returns how many claims there are."""
    import re

    rows = claims_rows(report)
    assert rows, "no claims table"
    missing = [r[:2] for r in rows if not re.match(SOURCE_REF, r[0])]
    assert not missing, missing
    return len(rows)

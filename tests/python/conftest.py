"""Shared fixtures of the Python test suite."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

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

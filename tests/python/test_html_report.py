"""``satcp report``: one self-contained HTML page, rendered by headless
Chromium without console errors (Chromium comes from the project's setup;
skipped where it is missing unless SATCP_REQUIRE_BROWSER=1, set by .ci/run)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess

import pytest
from conftest import FTP, run_cli

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
if CHROMIUM is None and os.environ.get("SATCP_REQUIRE_BROWSER") == "1":
    raise RuntimeError("chromium is required (SATCP_REQUIRE_BROWSER=1) but not installed")


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    root = tmp_path_factory.mktemp("rep")
    reports = root / "reports"
    assert (
        run_cli("reproduce", "slowstart", "--quick", "--out", reports / "slowstart").returncode == 0
    )
    assert (
        run_cli(
            "compare", "--quick", "--preset", "starlink", "--out", reports / "compare"
        ).returncode
        == 0
    )
    grid = root / "grid.toml"
    grid.write_text(
        f'base = "{FTP}"\nseeds = [1, 2]\n[set]\n"apps[0].file_bytes" = 100000\n'
        '[axes]\n"tcp.variant" = ["sack", "newreno"]\n'
    )
    assert run_cli("sweep", grid, "--out", reports / "grid", "--quiet").returncode == 0
    proc = run_cli("report", reports)
    assert proc.returncode == 0, proc.stderr
    return reports / "index.html"


def test_the_page_is_self_contained(page):
    text = page.read_text()
    assert text.startswith("<!DOCTYPE html>")
    # Every image inline, nothing fetched from elsewhere.
    srcs = re.findall(r'src="([^"]+)"', text)
    assert srcs and all(s.startswith("data:image/png;base64,") for s in srcs)
    assert "http://" not in text and "https://" not in text
    assert "<script" not in text
    for part in ("slowstart", "compare", "grid"):
        assert f'id="{part}"' in text
    # The claims summary counts what the slow-start reproduction's claims say.
    row = re.search(
        r'satcp vs the modified slow start.*?class="yes">(\d+)</td><td class="no">(\d+)', text
    )
    assert row and int(row.group(1)) > 0 and int(row.group(2)) > 0


@pytest.mark.skipif(CHROMIUM is None, reason="chromium not installed")
def test_chromium_renders_it_without_console_errors(page, tmp_path):
    shot = tmp_path / "report.png"
    proc = subprocess.run(
        [
            CHROMIUM,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--enable-logging=stderr",
            "--v=0",
            f"--screenshot={shot}",
            "--window-size=1280,2000",
            page.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert shot.exists() and shot.stat().st_size > 20_000, proc.stderr[-2000:]
    console = [line for line in proc.stderr.splitlines() if "CONSOLE" in line]
    assert console == [], console


def test_report_of_an_empty_folder_is_one_line(tmp_path):
    proc = run_cli("report", tmp_path)
    assert proc.returncode == 2 and len(proc.stderr.splitlines()) == 1

"""Why a run did not finish and what went wrong, in `satcp run`'s summary
and results.json (the core's `apps` and `warnings`,
crates/satcp-core/src/scenario/diagnosis.rs)."""

from __future__ import annotations

import json
import re

from conftest import FTP, SMALL_FTP, run_cli

# The README's burst-error example: the download is given up.
GE = "links[1].ab.errors.gilbert_elliott={p = 0.001, r = 0.2}"


def test_an_aborted_download_says_why_and_warns_of_its_stall(tmp_path):
    out = tmp_path / "ge"
    proc = run_cli("run", FTP, "--set", GE, "--out", out)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].endswith("stopped before all apps were done")
    assert re.fullmatch(
        r"ftp0 \(ftp\): 1 transfer aborted \(conn 0: the server gave up at [\d.]+ s "
        r"after 7 timeouts in a row, max_retransmissions = 6\)",
        lines[1],
    ), lines[1]
    assert lines[2] == "warning: conn 0 (ftp0): RTO backed off to 64.0 s (above 30 s)"
    assert lines[3].startswith("warning: conn 0 (ftp0): no RTT sample for ")
    results = json.loads((out / "results.json").read_text())
    assert results["apps"][0]["why"] == lines[1].split(": ", 1)[1]
    assert [w["kind"] for w in results["warnings"]] == ["rto_backed_off", "no_rtt_sample"]
    assert "aborted" in (out / "transfers.csv").read_text().splitlines()[1]


def test_an_unbounded_bulk_app_reads_as_no_failure():
    sets = [
        "apps[0]={kind = 'bulk', client = 'client', server = 'server'}",
        "duration_s=30",
    ]
    proc = run_cli("run", FTP, *(a for s in sets for a in ("--set", s)))
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].endswith("ran for its duration (open-ended apps still going, no failure)")
    assert lines[1].startswith("bulk0 (bulk): no set amount of work (bulk without bytes)")
    assert "warning" not in proc.stdout


def test_a_finished_run_has_no_why_and_no_warning():
    proc = run_cli("run", FTP, *(a for s in SMALL_FTP for a in ("--set", s)))
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].endswith("all apps done") and lines[1] == ""

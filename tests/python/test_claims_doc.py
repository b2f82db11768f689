"""tools/claims_doc.py: the claims tables of docs/PAPER-claims.md written
from a full run's claims_list.csv, between the document's markers."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from satcp.reproduce.claims import CLAIM_LIST_COLUMNS
from satcp.reproduce.tables import write_csv

TOOL = Path(__file__).resolve().parents[2] / "tools" / "claims_doc.py"
BEGIN, END = "<!-- claims list: begin -->", "<!-- claims list: end -->"
ROWS = [
    {"part": "Ideal", "where": "Table 7.5", "statement": "a | b", "paper": "-23.0%",
     "satcp": "-7.2%", "verdict": "direction only", "counted": "partly"},
    {"part": "Ideal", "where": "Fig. 7.4", "statement": "x", "paper": "(no number)",
     "satcp": "", "verdict": "yes", "counted": "held"},
    {"part": "Errors", "where": "Fig. 7.28", "statement": "y", "paper": "1.0",
     "satcp": "2.0", "verdict": "no", "counted": "failed"},
]  # fmt: skip


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(TOOL), *args], capture_output=True, text=True)


@pytest.fixture
def case(tmp_path):
    reports = tmp_path / "reports"
    write_csv(reports / "claims_list.csv", CLAIM_LIST_COLUMNS, ROWS)
    manifest = {"commit": "0123456789abcdef", "quick": False}
    (reports / "outputs.json").write_text(json.dumps(manifest))
    doc = tmp_path / "x-claims.md"
    doc.write_text(f"# Hand-written\n\ntext\n\n{BEGIN}\nold\n{END}\n\nafter\n")
    return reports, doc


def test_writes_the_tables_between_the_markers(case):
    reports, doc = case
    r = _run("x", "--reports", str(reports), "--doc", str(doc))
    assert r.returncode == 0, r.stderr
    text = doc.read_text()
    assert text.startswith("# Hand-written\n\ntext\n\n" + BEGIN) and text.endswith(
        END + "\n\nafter\n"
    )
    assert "old" not in text
    assert "(commit 0123456): 3 claims, 1 held, 1 held in part, 1 not held." in text
    assert "### Ideal" in text and "### Errors" in text
    assert "| 1 | Table 7.5 | a \\| b | -23.0% | -7.2% | direction only |" in text
    assert "| 3 | Fig. 7.28 | y | 1.0 | 2.0 | no |" in text
    assert _run("x", "--reports", str(reports), "--doc", str(doc), "--check").returncode == 0


def test_check_fails_on_a_stale_document(case):
    reports, doc = case
    r = _run("x", "--reports", str(reports), "--doc", str(doc), "--check")
    assert r.returncode == 1 and "not current" in r.stdout
    assert "old" in doc.read_text()  # --check writes nothing


def test_a_quick_run_is_refused(case):
    reports, doc = case
    (reports / "outputs.json").write_text(json.dumps({"quick": True}))
    before = doc.read_text()
    r = _run("x", "--reports", str(reports), "--doc", str(doc))
    assert r.returncode == 2 and "not a full run" in r.stderr
    assert doc.read_text() == before


def test_a_document_without_markers_is_refused(case):
    reports, doc = case
    doc.write_text("# no markers\n")
    r = _run("x", "--reports", str(reports), "--doc", str(doc))
    assert r.returncode != 0 and "markers" in r.stderr


def test_a_held_claim_whose_words_say_otherwise_is_an_error():
    from satcp.reproduce.claims import Claim, counted_as, tally

    c = Claim(
        "7.28", "x", None, None, holds=True, verdict_text="direction holds, magnitude differs"
    )
    with pytest.raises(ValueError, match="magnitude differs"):
        tally([c])
    partly = Claim("7.28", "x", None, None, holds=False, verdict_text=c.verdict_text)
    assert counted_as(partly) == "partly"
    assert counted_as(Claim("7", "x", None, None, holds=True, verdict_text="holds")) == "held"

"""Writes the claims tables of a paper's audit list (``docs/PAPER-claims.md``)
from the last full run's ``claims_list.csv`` (``satcp reproduce PAPER``
writes it beside its report: every claim the report's overall count counts,
by part, with its verdict).

The tables sit between two markers in the document, which this tool owns;
the text around them (tolerances, readings, what is not checked) is written
by hand:

    <!-- claims list: begin -->
    ... generated ...
    <!-- claims list: end -->

    python tools/claims_doc.py adalr            # reports/adalr -> docs/adalr-claims.md
    python tools/claims_doc.py adalr --check    # exit 1 if the document is not current
    make claims-docs                            # every paper with markers

Only a full run is a reference: a quick run (``--quick``) is refused, since
its verdicts are not the ones the document states.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from collections import Counter
from pathlib import Path

BEGIN = "<!-- claims list: begin -->"
END = "<!-- claims list: end -->"
ROOT = Path(__file__).resolve().parent.parent
COUNTED = ("held", "partly", "failed", "undecided")


def cell(text: str) -> str:
    """A Markdown table cell: pipes escaped, no line breaks."""
    return text.replace("|", "\\|").replace("\n", " ")


def read_rows(report_dir: Path) -> list[dict[str, str]]:
    with (report_dir / "claims_list.csv").open(encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


def read_manifest(report_dir: Path) -> dict:
    try:
        return json.loads((report_dir / "outputs.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def provenance(m: dict) -> str:
    """'commit 4d99f68' (or 'satcp 0.1.0') from the run's ``outputs.json``."""
    commit = str(m.get("commit") or "")
    return f"commit {commit[:7]}" if commit else f"satcp {m.get('satcp_version', '?')}"


def generated_section(rows: list[dict[str, str]], source: str) -> str:
    """The tables: a count line, then one table per part, rows numbered
    through the document."""
    n = Counter(r["counted"] for r in rows)
    out = [
        BEGIN,
        "",
        f"Written by `tools/claims_doc.py` from `claims_list.csv` of the last full run "
        f"({source}): {len(rows)} claims, {n['held']} held, {n['partly']} held in part, "
        f"{n['failed']} not held"
        + (f", {n['undecided']} not decided" if n["undecided"] else "")
        + ".",
    ]
    part = None
    for i, r in enumerate(rows, 1):
        if r["part"] != part:
            part = r["part"]
            out += [
                "",
                f"### {part}",
                "",
                "| # | where | the paper states (our words) | paper | satcp | verdict |",
                "|---|---|---|---|---|---|",
            ]
        out.append(
            f"| {i} | {cell(r['where'])} | {cell(r['statement'])} | {cell(r['paper'])} "
            f"| {cell(r['satcp'])} | {cell(r['verdict'])} |"
        )
    return "\n".join([*out, "", END])


def replace_section(doc: str, section: str, name: str) -> str:
    begin, end = doc.find(BEGIN), doc.find(END)
    if begin < 0 or end < begin:
        raise SystemExit(f"{name}: no '{BEGIN}' ... '{END}' markers")
    return doc[:begin] + section + doc[end + len(END) :]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("paper", help="adalr, peach, slowstart, tcpr")
    ap.add_argument("--reports", type=Path, help="the run's folder (default reports/PAPER)")
    ap.add_argument("--doc", type=Path, help="the document (default docs/PAPER-claims.md)")
    ap.add_argument("--check", action="store_true", help="exit 1 if the document is not current")
    a = ap.parse_args(argv)
    reports = a.reports or ROOT / "reports" / a.paper
    doc_path = a.doc or ROOT / "docs" / f"{a.paper}-claims.md"
    m = read_manifest(reports)
    if m.get("quick", True):
        print(
            f"{reports}: not a full run (outputs.json says quick, or is missing); "
            "the list states a full run's verdicts",
            file=sys.stderr,
        )
        return 2
    rows = read_rows(reports)
    section = generated_section(rows, provenance(m))
    doc = doc_path.read_text(encoding="utf-8")
    new = replace_section(doc, section, str(doc_path))
    if a.check:
        if new != doc:
            print(f"{doc_path}: not current (run: python tools/claims_doc.py {a.paper})")
            return 1
        return 0
    if new != doc:
        tmp = doc_path.with_suffix(".md.tmp")
        tmp.write_text(new, encoding="utf-8")
        tmp.replace(doc_path)
    print(f"{doc_path}: {len(rows)} claims")
    return 0


if __name__ == "__main__":
    sys.exit(main())

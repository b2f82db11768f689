"""A paper's data file (satcp.reproduce.paper_file, .paper_run,
.expressions): a tiny paper run end to end, and every malformed file an
error that names the file and the key."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from satcp.reproduce import experiment, paper_run
from satcp.reproduce.expressions import DataError, Template
from satcp.reproduce.paper_file import read_paper

# Two small FTP downloads over the thesis network; one number of "the
# paper" (its value given in the test), a table, a figure, prose with
# alternatives and a pivoted CSV.
TINY = """
[reproduction]
name = "tiny"

[report]
template = "report.md"

[report.let]
held = "= [c for c in claims if c.reproduced]"

[constants]
MB = 1e6

[tolerances]
time = { limit = 10.0 }

[cases.size.small]
bytes = 100_000
[cases.size.large]
bytes = 200_000

[network]
topology = "thesis_network"
file_bytes = "= size.bytes"
delayed_ack = "= delayed_ack"
sample_interval_s = 0.0

[experiments.e]
part = "one"
grid = { size = "*", delayed_ack = [true, false] }
quick = { delayed_ack = [true] }
metrics = { time_s = "= mean_response_s(run, 'ftp')" }

[experiments.e.csv]
file = "e.csv"

[experiments.e.csv.pivot]
keep = ["size"]
spread = "delayed_ack"
columns = ["time_s"]
name = "{column}_{delayed_ack}"

[experiments.e.columns]
size = "= size"
delayed_ack = "= delayed_ack"
time_s = "= time_s"
rate = "= size.bytes * 8 / time_s / MB"

[[experiments.e.figures]]
file = "e.png"
title = "time against delayed ACK"
series = "size in cases.size"
x = "= [0, 1][:len(axes.delayed_ack)]"
y = "= [time_s[size, d] for d in axes.delayed_ack]"
label = "{size} ({size.bytes:,} B)"
xlabel = "delayed ACK"
ylabel = "time (s)"

[parts.one]
covers = "the part"
title = "One"
text = '''
## One

{tables.times}

{texts.order}
'''

[parts.one.tables.times]
rows = "r in rows"
columns = [
  { header = "size", cell = "{r.size}" },
  { header = "time (s)", cell = "{r.time_s:.2f}" },
]

[parts.one.texts.order]
when = "= 'yes' if time_s['large', True] > time_s['small', True] else 'no'"
yes = "The large file takes longer."
no = "The large file does not take longer."

[[parts.one.claims]]
where = "Table 1"
statement = "the small file takes {MB / 1e6:g} x its time"
paper = "= paper"
satcp = "= time_s['small', True]"
unit = "s"
tolerance = "time"
"""

REPORT = "# Tiny\n\n{len(held)} of {len(claims)} hold.\n\n{sections}\n"


def write(tmp_path: Path, text: str = TINY, report: str = REPORT) -> Path:
    tmp_path.mkdir(parents=True, exist_ok=True)
    (tmp_path / "report.md").write_text(report)
    p = tmp_path / "paper.toml"
    p.write_text(text)
    return p


def test_a_tiny_paper_runs_end_to_end(tmp_path):
    paper = read_paper(write(tmp_path, TINY.replace('"= paper"', "2.5")))
    repro = paper_run.reproduction(paper, "satcp.reproduce")
    out = tmp_path / "out"
    rep = experiment.run(repro, out, workers=2, quick=True)
    written = sorted(p.name for p in out.iterdir())
    assert written == [
        "claims.csv",
        "claims_list.csv",
        "e.csv",
        "e.png",
        "outputs.json",
        "report.md",
    ]
    with (out / "e.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert [r["size"] for r in rows] == ["small", "large"]
    assert list(rows[0]) == ["size", "time_s_True"]  # --quick: delayed ACK only
    (claim,) = rep.claims
    assert claim.statement == "the small file takes 1 x its time" and claim.paper == 2.5
    assert claim.satcp == pytest.approx(float(rows[0]["time_s_True"]), rel=1e-5)
    md = rep.markdown
    assert md.startswith("# Tiny\n\n")
    assert "The large file takes longer." in md
    assert "| small |" in md and "- the part: 2 runs" in md


CUT = 'fields = ["transfers.response_time_s", "transfers.kind"]\nmetrics = { '


def _run_tiny(tmp_path: Path, text: str) -> Path:
    paper = read_paper(write(tmp_path, text.replace('"= paper"', "2.5")))
    out = tmp_path / "out"
    experiment.run(paper_run.reproduction(paper, "satcp.reproduce"), out, workers=2, quick=True)
    return out


def test_an_experiments_fields_cut_its_results_down_and_leave_its_files_alone(tmp_path):
    """With ``fields`` the core writes only the fields named (and the
    run's single values): the files are the same."""
    paper = read_paper(write(tmp_path / "cut", TINY.replace("metrics = { ", CUT)))
    assert paper.experiments["e"].fields == (
        *("name", "seed", "end_time_s", "events", "apps_done"),
        *("transfers.response_time_s", "transfers.kind"),
    )
    whole = _run_tiny(tmp_path / "whole", TINY) / "e.csv"
    cut = _run_tiny(tmp_path / "cut", TINY.replace("metrics = { ", CUT)) / "e.csv"
    assert cut.read_text() == whole.read_text() and "time_s_True" in cut.read_text()


def test_a_metric_that_reads_a_table_its_fields_leave_out_fails_naming_them(tmp_path):
    """Not an empty table read as zero."""
    text = TINY.replace("metrics = { ", CUT + 'flows = "= len(run.flows)", ')
    with pytest.raises(DataError, match=r"results field 'flows' was not asked for") as e:
        _run_tiny(tmp_path, text)
    assert "transfers.kind" in str(e.value)


def test_prose_alternatives_follow_the_numbers(tmp_path):
    paper = read_paper(write(tmp_path))
    longer = {("large", True): 3.0, ("small", True): 2.0}
    shorter = {("large", True): 1.0, ("small", True): 2.0}
    assert paper_run.text(paper, "one", "order", time_s=longer) == "The large file takes longer."
    assert "does not" in paper_run.text(paper, "one", "order", time_s=shorter)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (("[reproduction]", "[reproductio]"), r"reproduction: missing"),
        (('name = "tiny"', 'name = "tiny"\nnmae = "x"'), r"reproduction\.nmae: unknown key"),
        (('template = "report.md"', 'template = "none.md"'), r"report\.template: cannot read"),
        (("metrics = {", 'csvv = "x"\nmetrics = {'), r"experiments\.e\.csvv: unknown key"),
        (('file = "e.csv"', 'file = "e.csv"\nfiel = 1'), r"experiments\.e\.csv\.fiel: unknown"),
        (('spread = "delayed_ack"', 'sprad = "delayed_ack"'), r"csv\.pivot\.spread: missing"),
        (('part = "one"', 'part = "two"'), r"experiments\.e\.part: 'two' is not a part"),
        (('topology = "thesis_network"', 'topology = "mars"'), r"network\.topology: 'mars'"),
        (('grid = { size = "*"', 'grid = { sizes = "*"'), r"grid\.sizes: '\*' needs a case set"),
        (("quick = { delayed_ack", "quick = { ack"), r"quick\.ack: not an axis of the grid"),
        (('time_s = "= mean_', 'time_s = "mean_'), r"metrics\.time_s: .* must be an expression"),
        (('rate = "= size.bytes * 8', 'rate = "= size.bytes * * 8'), r"columns\.rate: .*not an"),
        (('tolerance = "time"', 'tolerance = "times"'), r"claims\[0\]\.tolerance: 'times' is not"),
        (('statement = "the small', 'statemnt = "the small'), r"claims\[0\]\.statement: missing"),
        (('unit = "s"', "unit = 1"), r"claims\[0\]\.unit: must be a str, not int"),
        (("{r.time_s:.2f}", "{r.time_s:.2f"), r"tables\.times\.columns\[1\]\.cell: a '\{' without"),
        (('series = "size in cases.size"', 'series = "size of cases"'), r"series: .* 'name in"),
        (("limit = 10.0", "limit = -1.0"), r"tolerances\.time: tolerance limit -1\.0"),
        (("[cases.size.small]", "[cases.size.small]\n[[x]]"), r"x: unknown key"),
        (("[report]", "[report\n"), r"invalid TOML"),
        (("metrics = {", 'fields = ["flows.nope"]\nmetrics = {'), r"fields: .*row has no 'nope'"),
        (("metrics = {", 'fields = ["flow"]\nmetrics = {'), r"e\.fields: .*have no 'flow'"),
        (("metrics = {", "fields = []\nmetrics = {"), r"e\.fields: must be a list of field"),
        (("metrics = {", 'fields = "flows"\nmetrics = {'), r"e\.fields: must be a list, not"),
    ],
)
def test_a_malformed_paper_file_names_the_key(tmp_path, change, message):
    old, new = change
    assert old in TINY
    with pytest.raises(DataError, match=message) as e:
        read_paper(write(tmp_path, TINY.replace(old, new, 1)))
    assert str(tmp_path / "paper.toml") in str(e.value) or "report" in str(e.value)


def test_an_expression_that_fails_names_its_key(tmp_path):
    paper = read_paper(write(tmp_path, TINY.replace("time_s['large', True] >", "tme['large'] >")))
    with pytest.raises(DataError, match=r"parts\.one\.texts\.order\.when: .*name 'tme'"):
        paper_run.text(paper, "one", "order", time_s={})


def test_templates():
    scope = {"x": 2.0, "names": ["a", "b"]}
    t = Template("x = {x:.1f}, {', '.join(f'<{n}>' for n in names)} {{literal}}", "k")
    assert t(scope) == "x = 2.0, <a>, <b> {literal}"
    # A paragraph of nothing but fields that renders empty is left out.
    t = Template("first\n\n{'' if x > 1 else 'middle'}\n\nlast", "k")
    assert t(scope) == "first\n\nlast"
    assert t({"x": 0}) == "first\n\nmiddle\n\nlast"
    with pytest.raises(DataError, match="k: a single '}'"):
        Template("a } b", "k")


def test_the_converted_papers_read(tmp_path):
    """Every data file shipped reads and checks (its expressions compile)."""
    root = Path(paper_run.__file__).parent
    files = sorted(root.glob("*/paper.toml"))
    assert {p.parent.name for p in files} >= {"slowstart", "baseline"}
    for p in files:
        assert read_paper(p).name == p.parent.name

"""``satcp report``: one self-contained HTML page, rendered by headless
Chromium without console errors (Chromium comes from the project's setup;
skipped where it is missing unless SATCP_REQUIRE_BROWSER=1, set by .ci/run)."""

from __future__ import annotations

import base64
import html
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import FTP, run_cli

import satcp
from satcp import html_report, manifest, provenance
from satcp.html_report import write_report
from satcp.reproduce.claims import Claim
from satcp.reproduce.experiment import Part, Reproduction, Section, sections_markdown

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
        r'satcp vs the modified slow start.*?class="yes">(\d+)</td>'
        r'<td class="partly">\d+</td><td class="no">(\d+)',
        text,
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


# --- every figure from the runs' lists of outputs (issue 32 item 2) ----------------------


def _png(path: Path, title: str) -> None:
    from satcp.reproduce.plotstyle import new_figure, save_png

    fig = new_figure((3.0, 2.0))
    ax = fig.subplots()
    ax.plot([0, 1], [0, 1])
    ax.set_title(title)
    save_png(fig, path, dpi=40)


def _tiny_reproduction() -> Reproduction:
    """A reproduction without simulations: one part drawing three figures
    (the report shows one), one claim held and one not."""

    def run(out: Path, workers, quick) -> Section:
        for name, title in (("shown", "Fig. 1: shown"), ("a", "Fig. 2: only in the list")):
            _png(out / f"{name}.png", title)
        _png(out / "sub" / "b.png", "Fig. 3: in a subfolder")
        claims = [Claim("1", "held", 10.0, 10.5), Claim("2", "not held", 10.0, 20.0)]
        return Section("Tiny part", "## Tiny part\n\n![Fig. 1](shown.png)\n", claims)

    def render(parts, quick, seconds) -> str:
        return "# Tiny paper\n\n" + "\n".join(sections_markdown(parts, seconds)) + "\n"

    return Reproduction("tiny", {"part": Part("a part", run)}, render, "reports/tiny")


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    """A folder with a reproduction (over a stale PNG of an earlier run), a
    comparison-like result and a sweep, and its page."""
    root = tmp_path_factory.mktemp("small")
    rep = root / "tiny"
    rep.mkdir()
    _png(rep / "stale.png", "a figure of an earlier run")
    _tiny_reproduction().reproduce(rep)
    grid = root / "grid.toml"
    grid.write_text(
        f'base = "{FTP}"\nseeds = [1, 2]\n[set]\n"apps[0].file_bytes" = 100000\n'
        '[axes]\n"tcp.variant" = ["sack", "newreno"]\n'
    )
    assert run_cli("sweep", grid, "--out", root / "grid", "--quiet").returncode == 0
    write_report(root, root / "index.html")
    return root


def _imgs(text: str) -> list[tuple[str, str]]:
    return re.findall(r'<img src="([^"]+)" alt="[^"]*" data-file="([^"]+)"', text)


def test_every_figure_a_run_wrote_is_on_the_page_and_no_stale_one(small):
    text = (small / "index.html").read_text()
    imgs = _imgs(text)
    assert len(imgs) == text.count("<img ")  # every image carries its file
    shown = {f for _, f in imgs}
    listed = manifest.read_manifest(small / "tiny")
    assert listed is not None
    drawn = {f"tiny/{f['file']}" for f in listed["figures"]}
    assert drawn == {"tiny/shown.png", "tiny/a.png", "tiny/sub/b.png"}
    assert drawn <= shown  # every PNG the run wrote
    assert "tiny/stale.png" not in shown and (small / "tiny" / "stale.png").exists()
    # The ones the report does not show, under "All figures", with captions.
    rest = text[text.index('id="tiny-figures"') :]
    assert "Fig. 2: only in the list" in rest and "Fig. 3: in a subfolder" in rest
    assert "Fig. 1: shown" not in rest
    # The sweep's plots, drawn for the page.
    assert any(f.startswith("grid/plots/") for f in shown)
    # Every src is the file it names.
    for src, f in imgs:
        assert src.startswith("data:image/png;base64,")
        data = base64.b64decode(src.split(",", 1)[1])
        assert data.startswith(b"\x89PNG")
        if not f.startswith("grid/plots/"):  # drawn for the page, not kept
            assert data == (small / f).read_bytes(), f


def test_the_header_names_the_version_and_the_commit(small):
    text = (small / "index.html").read_text()
    header = text[text.index("<header>") : text.index("</header>")]
    assert satcp.__version__ in header and provenance.commit() in header
    assert "Results made by: satcp" in header


def test_claims_and_sweep_tables_are_readable(small):
    text = (small / "index.html").read_text()
    row = re.search(
        r'Tiny paper</a></td><td>reproduction</td><td class="yes">(\d+)</td>'
        r'<td class="partly">(\d+)</td><td class="no">(\d+)</td><td>(\d+)</td>',
        text,
    )
    assert row and row.groups() == ("1", "0", "1", "2")
    sweep = text[text.index('id="grid"') :]
    assert "goodput (kb/s)" in sweep and "(n = 2)" in sweep
    assert not re.search(r"\d\.\d{5,}", sweep.split("<h2>Plots</h2>")[0])  # no raw floats
    assert "claims" not in sweep.split("<table>")[0].lower()  # a sweep has none


def test_numbers_are_rounded():
    assert html_report._number(8883785.05909765) == "8,883,785"
    assert html_report._number(12.345678) == "12.35"
    assert html_report._number(0.000123456) == "0.0001235"
    assert html_report._number(float("nan")) == "n/a"
    cell = html_report._round_cells("<td>4.6685933</td><td>4.5</td><td>sack</td>")
    assert cell == '<td class="num">4.669</td><td>4.5</td><td>sack</td>'


def test_a_sweep_folder_alone_gives_a_sweep_section(small):
    text = html_report.build_report(small / "grid")
    assert "Sweep grid" in text and "<h2>Plots</h2>" in text
    assert "claims that hold" in text and "<td>none</td>" in text


# The page checked in the browser: a script added to a copy of it reports
# whether every image loaded and the header's text contrast (WCAG ratio).
CHECK = """<script>
function lum(c) {
  const v = c.match(/[0-9.]+/g).slice(0, 3).map(Number).map(x => x / 255)
    .map(x => x <= 0.03928 ? x / 12.92 : Math.pow((x + 0.055) / 1.055, 2.4));
  return 0.2126 * v[0] + 0.7152 * v[1] + 0.0722 * v[2];
}
function bg(e) {
  for (; e; e = e.parentElement) {
    const c = getComputedStyle(e).backgroundColor;
    if (c && !/rgba\\(.*, 0\\)$/.test(c) && c !== 'transparent') return c;
  }
  return 'rgb(255, 255, 255)';
}
window.addEventListener('load', () => {
  const imgs = Array.from(document.images);
  const bad = imgs.filter(i => !(i.complete && i.naturalWidth > 0)).length;
  let worst = 99;
  for (const e of document.querySelectorAll('header, header *')) {
    const a = lum(getComputedStyle(e).color), b = lum(bg(e));
    worst = Math.min(worst, (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05));
  }
  const p = document.createElement('pre');
  p.id = 'satcp-check';
  p.textContent = JSON.stringify({images: imgs.length, broken: bad, contrast: worst});
  document.body.appendChild(p);
});
</script>"""


@pytest.mark.skipif(
    CHROMIUM is None, reason="chromium not installed (no browser to render the page)"
)
def test_chromium_loads_every_image_and_the_header_is_readable(small, tmp_path):
    page = tmp_path / "page.html"
    page.write_text((small / "index.html").read_text().replace("</body>", CHECK + "</body>"))
    proc = subprocess.run(
        [
            CHROMIUM,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--enable-logging=stderr",
            "--v=0",
            "--virtual-time-budget=10000",
            "--dump-dom",
            page.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    m = re.search(r'<pre id="satcp-check">([^<]*)</pre>', proc.stdout)
    assert m, proc.stderr[-2000:]
    got = json.loads(html.unescape(m.group(1)))
    assert got["images"] == (small / "index.html").read_text().count("<img ")
    assert got["broken"] == 0
    assert got["contrast"] >= 4.5, got  # WCAG AA for text
    console = [line for line in proc.stderr.splitlines() if "CONSOLE" in line]
    assert console == [], console


def test_a_folder_without_a_list_of_outputs_shows_every_png_with_a_note(tmp_path):
    old = tmp_path / "old"
    old.mkdir()
    (old / "report.md").write_text("# Old paper\n\n![one](a.png)\n\n![gone](missing.png)\n")
    _png(old / "a.png", "Fig. A")
    _png(old / "b.png", "Fig. B")
    text = html_report.build_report(tmp_path)
    shown = {f for _, f in _imgs(text)}
    assert shown == {"old/a.png", "old/b.png"}
    assert "outputs.json" in text and "(figure missing.png: not written by this run)" in text

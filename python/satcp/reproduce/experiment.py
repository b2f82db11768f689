"""Running a reproduction's parts into one output directory, all or nothing.

A reproduction (``satcp reproduce NAME``, registered in
:data:`satcp.reproduce.REGISTRY`) is a :class:`Reproduction`: its parts
(each a :class:`Part`, whose ``run(out, workers, quick)`` writes its files
and returns a :class:`Section`) and the function that renders its report.
:func:`run` runs the parts in order into a temporary directory with a
progress bar (:mod:`satcp.progress`), writes ``claims.csv`` (every part's
claims, :mod:`.claims`) and the report, and then moves everything into the
output directory (:func:`satcp._fsutil.fill_dir_atomically`): a failing
part leaves the output directory as it was. The parts' runs go through
one pool (:mod:`.runs`): what the reproduction's ``plan`` gives is queued
before the first part starts. A part that does not exist is
an error (:class:`MissingPart`), raised before anything runs. A paper's
data file becomes a Reproduction in :mod:`.paper_run`.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import manifest, progress
from .._fsutil import fill_dir_atomically
from .claims import (
    CLAIMS_CSV,
    CLAIMS_LIST_CSV,
    Claim,
    claims_table,
    tally,
    write_claims_csv,
    write_claims_list,
)
from .runs import Fields, run_jobs
from .runs import pool as run_pool

__all__ = [
    "MissingPart",
    "Part",
    "PartResult",
    "Report",
    "Reproduction",
    "Section",
    "run",
    "run_jobs",  # from .runs, where it lives
    "sections_markdown",
    "summary_markdown",
]


class MissingPart(KeyError):
    """A reproduction is asked for a part it does not have."""

    def __str__(self) -> str:
        return str(self.args[0])


@dataclass
class Section:
    """One part's result: a Markdown body (starting with a ``##``
    heading), its claims, its one-line findings for the report's summary,
    its runs and its time."""

    title: str
    markdown: str
    claims: list[Claim] = field(default_factory=list)
    runs: int = 0
    seconds: float = 0.0
    findings: list[str] = field(default_factory=list)
    #: The claims of the tables in its text (``claims.NAME``), not in the
    #: summary: with ``claims``, what the report's overall count counts.
    table_claims: list[Claim] = field(default_factory=list)

    @property
    def every_claim(self) -> list[Claim]:
        return [*self.claims, *self.table_claims]


@dataclass(frozen=True)
class Part:
    """A part of a reproduction: what it covers (the run-time line) and what
    runs it: ``run(out, workers, quick) -> Section``."""

    covers: str
    run: Callable[[Path, int | None, bool], Section]


@dataclass
class PartResult:
    """A part that ran: its name, what it covers and its :class:`Section`."""

    module: str
    covers: str
    section: Section


@dataclass
class Report:
    """What :func:`run` did: one :class:`PartResult` per part, the report's
    text, the files written and the time it took."""

    parts: list[PartResult]
    markdown: str
    paths: list[str]
    seconds: float

    @property
    def claims(self) -> list[Claim]:
        return [c for p in self.parts for c in p.section.claims]


Render = Callable[[Sequence[PartResult], bool, float], str]


@dataclass(frozen=True)
class Reproduction:
    """A reproduction: its parts by name, in order, and ``render(parts,
    quick, seconds)``, its report's text."""

    name: str
    parts: Mapping[str, Part]
    render: Render
    out: str
    claims_csv: bool = True  # write claims.csv (every part's claims)
    report_file: str = "report.md"
    #: ``plan(parts, quick)``: the runs (scenario, the results fields read
    #: of it) those parts will make, as far as known before any run; queued
    #: at once in the reproduction's one pool of runs (:mod:`.runs`), so
    #: that one experiment's table and figures are drawn while the next
    #: experiments run.
    plan: Callable[[Sequence[str], bool], Iterable[tuple[Any, Fields]]] | None = None

    def reproduce(
        self,
        out_dir: str | os.PathLike[str] | None = None,
        workers: int | None = None,
        quick: bool = False,
        parts: Sequence[str] | None = None,
    ) -> Report:
        """Runs every part (or ``parts``) and writes their files,
        ``claims.csv`` and the report into ``out_dir`` (default: the
        reproduction's own), all or nothing (:func:`run`)."""
        return run(self, out_dir, workers, quick, parts)


def run(
    repro: Reproduction,
    out_dir: str | os.PathLike[str] | None = None,
    workers: int | None = None,
    quick: bool = False,
    parts: Sequence[str] | None = None,
) -> Report:
    """Runs the reproduction's parts (or ``parts``) and writes their files,
    ``claims.csv`` and the report into ``out_dir``, all or nothing."""
    t0 = time.perf_counter()
    names = list(repro.parts if parts is None else parts)
    missing = [n for n in names if n not in repro.parts]
    if missing:  # before anything runs
        raise MissingPart(f"reproduction {repro.name} has no part {missing[0]!r}")

    def fill(tmp: str) -> tuple[list[PartResult], str]:
        done: list[PartResult] = []
        figures: list[manifest.Figure] = []
        planned = repro.plan(names, quick) if repro.plan is not None else ()
        with progress.runs(f"reproduce {repro.name}") as bar, run_pool(workers, planned):
            for name in names:
                bar.describe(f"reproduce {repro.name} ({name})")
                t = time.perf_counter()
                with manifest.recording() as drawn:
                    section = repro.parts[name].run(Path(tmp), workers, quick)
                section.seconds = time.perf_counter() - t
                done.append(PartResult(name, repro.parts[name].covers, section))
                figures += [manifest.Figure(f.file, f.caption, section.title) for f in drawn]
        if repro.claims_csv:
            write_claims_csv(Path(tmp, CLAIMS_CSV), [c for d in done for c in d.section.claims])
        if any(d.section.every_claim for d in done):
            write_claims_list(
                Path(tmp, CLAIMS_LIST_CSV), [(d.section.title, d.section.every_claim) for d in done]
            )
        text = repro.render(done, quick, time.perf_counter() - t0)
        Path(tmp, repro.report_file).write_text(text, encoding="utf-8")
        _write_manifest(repro, Path(tmp), text, done, figures, quick)
        return done, text

    (done, text), paths = fill_dir_atomically(out_dir or repro.out, fill)
    return Report(done, text, paths, time.perf_counter() - t0)


def _write_manifest(
    repro: Reproduction,
    tmp: Path,
    text: str,
    done: Sequence[PartResult],
    figures: Sequence[manifest.Figure],
    quick: bool,
) -> None:
    """``outputs.json`` (:mod:`satcp.manifest`): every file of this run,
    its figures with their captions and parts (a PNG written otherwise is
    listed with its file name as caption), the claims' count."""
    root = tmp.resolve()
    inside = []  # figures drawn elsewhere (not this run's outputs) are left out
    for f in figures:
        p = Path(f.file).resolve()
        if p.is_relative_to(root):
            inside.append(manifest.Figure(p.relative_to(root).as_posix(), f.caption, f.part))
    listed = {f.file for f in inside}
    others = sorted(
        p.relative_to(tmp).as_posix()
        for p in tmp.rglob("*.png")
        if p.relative_to(tmp).as_posix() not in listed
    )
    title = next((ln[2:].strip() for ln in text.splitlines() if ln.startswith("# ")), repro.name)
    manifest.write_manifest(
        tmp,
        kind="reproduction",
        name=repro.name,
        title=title,
        report=repro.report_file,
        figures=[*inside, *(manifest.Figure(o, manifest.caption_of(None, o)) for o in others)],
        claims=tally(c for d in done for c in d.section.every_claim).as_dict(),
        quick=quick,
    )


def summary_markdown(parts: Sequence[PartResult]) -> list[str]:
    """The report's summary: per part with findings or claims, its title,
    its findings (a list) and its claims table."""
    md: list[str] = []
    for p in parts:
        s = p.section
        if s.findings or s.claims:
            md += [f"**{s.title}**", ""]
            if s.findings:
                md += [*[f"- {f}" for f in s.findings], ""]
            if s.claims:
                md += [*claims_table(s.claims), ""]
    return md


def _run_time(p: PartResult, run_counts: bool) -> str:
    runs = f"{p.section.runs} runs, " if p.section.runs and run_counts else ""
    return f"- {p.covers}: {runs}{p.section.seconds:.1f} s"


def sections_markdown(
    parts: Sequence[PartResult], seconds: float, run_counts: bool = True
) -> list[str]:
    """The report's lines after its summary's introduction: the summary
    (:func:`summary_markdown`), then each part's section, then the run
    time (with each part's runs unless not ``run_counts``)."""
    md = summary_markdown(parts)
    for p in parts:
        md += [p.section.markdown.rstrip("\n"), ""]
    md += [
        "## Run time",
        "",
        *[_run_time(p, run_counts) for p in parts],
        f"- total {seconds:.1f} s (simulations in threads, `--workers`)",
        "",
    ]
    return md

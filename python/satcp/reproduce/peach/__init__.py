"""``satcp reproduce peach``: the experiments of "TCP-Peach: A New Congestion
Control Scheme for Satellite IP Networks" (Akyildiz, Morabito, Palazzo,
IEEE/ACM Trans. Networking 9(3), 2001; shared/papers/001_...), Secs. III-V.

One module per experiment group, each with
``reproduce(out: pathlib.Path, workers: int | None, quick: bool) -> Section``
that writes its CSV and PNG files into ``out``:

- :mod:`.startup`: Fig. 3 (Sudden Start vs Slow Start);
- :mod:`.recovery`: Figs. 7 and 9 (a link-error and a congestion loss);
- :mod:`.goodput`: Figs. 11-13 (goodput vs PLoss, dummy overhead, goodput
  vs link capacity);
- :mod:`.web`: Figs. 14-16 (web transfers; Fig. 16 needs TCP Fast Start);
- :mod:`.fairness`: Figs. 17, 19, 20;
- :mod:`.common`: the Sec. V network builders and reading runs;
- :mod:`.claims`: the paper's numbers beside satcp's; :mod:`.figures`: the
  paper's figures (in the style of :mod:`satcp.reproduce.plotstyle`).

Everything, ``report.md`` included, is written into a temporary directory
and then moved into the output directory
(:func:`satcp.reproduce.experiment.run`): a failing part leaves it as it
was.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from .. import _legacy as experiment
from .._legacy import REPORT, PartResult, Report, Reproduction
from ..claims import CLAIMS_CSV, DEFAULT_TOLERANCE, Claim

__all__ = [
    "CLAIMS_CSV",
    "DEFAULT_OUT",
    "PARTS",
    "REPORT",
    "REPRODUCTION",
    "Report",
    "reproduce",
]

DEFAULT_OUT = os.path.join("reports", "peach")

#: (module in this package, what it covers)
PARTS: tuple[tuple[str, str], ...] = (
    ("startup", "Fig. 3: Sudden Start vs Slow Start"),
    ("recovery", "Figs. 7 and 9: a loss by link error or by congestion"),
    ("goodput", "Figs. 11-13: goodput and dummy overhead"),
    ("web", "Figs. 14-16: web transfers"),
    ("fairness", "Figs. 17, 19, 20: fairness"),
)


def render(parts: Sequence[PartResult], quick: bool, seconds: float) -> str:
    claims: list[Claim] = [c for p in parts for c in p.section.claims]
    numeric = [c for c in claims if c.paper is not None]
    held = [c for c in claims if c.reproduced]
    md = [
        "# satcp vs TCP-Peach",
        "",
        'I. F. Akyildiz, G. Morabito, S. Palazzo, "TCP-Peach: A New Congestion Control '
        'Scheme for Satellite IP Networks", IEEE/ACM Trans. Networking 9(3), 2001 '
        "(shared/papers/001_...), Secs. III-V. Every number and statement the paper gives "
        "in its text for Figs. 3, 7, 9 and 11-20 is put beside satcp's value, computed "
        "from scratch; the figures are drawn with the paper's axes, units and series. "
        "How satcp implements TCP-Peach, and every reading of the paper it had to choose: "
        "docs/peach.md. No constant was tuned to match.",
        "",
        "## How to rerun",
        "",
        "```sh",
        "make setup && . .venv/bin/activate",
        "satcp reproduce peach --out reports/peach        # everything (--workers N: threads)",
        "satcp reproduce peach --quick --out /tmp/peach   # fewer points and seeds, for tests",
        "```",
        "",
        f"Files: one PNG per figure (`figNN_...png`), its data as CSV, and `{CLAIMS_CSV}` "
        "(every claim below: figure, statement, unit, paper, satcp, diff_pct, reproduced).",
        "",
    ]
    if quick:
        md += [
            "**This is a --quick run**: fewer points and seeds than the full reproduction; "
            "do not quote it.",
            "",
        ]
    md += [
        "## The setting (Sec. V)",
        "",
        "N senders -- Earth station A (priority buffer of K segments: dummies and marked "
        "ACKs low priority, data pushes them out) == GEO channel of c segments/s, RTT 550 "
        "ms, link-error loss PLoss on data and dummy segments (not on ACKs) == B -- N "
        "receivers (`common.sec5_scenario`); Fig. 18 adds a terrestrial branch behind a "
        "shared bottleneck (`common.hetero_scenario`). Segments of 1,000 bytes (c = 1,300 "
        "segments/s = 10.8 Mb/s with headers), rwnd = 64 segments, K = 50, N = 20, 550 s "
        "simulated, no delayed ACK (Sec. II-A). Sec. V's TCP-Reno is NewReno and both "
        "variants use SACK (`peach-sack` vs `sack`); Secs. III-IV (Figs. 3, 7, 9) compare "
        "`peach` with `newreno`, whose Fast Recovery inflates cwnd as the paper's Fig. 7 "
        "shows. TCP-Reno starts from one segment. Connections start at t = 0 with "
        "unlimited data; in runs with several connections the senders' access delays are "
        "drawn between 0 and 1 ms from the seed (equal round-trip times lock a "
        "deterministic simulation into phase effects, see Figs. 11 and 17), and points "
        "are means over seeds.",
        "",
        "## Summary: the paper's numbers beside satcp's",
        "",
        f"A number is reproduced when satcp is within {DEFAULT_TOLERANCE.limit:.0f}% of it, a "
        "statement when satcp shows it (the criterion is in the row). "
        f"{len(held)} of {len(claims)} hold; of the {len(numeric)} numbers, "
        f"{sum(1 for c in numeric if c.reproduced)} are reproduced.",
        "",
    ]
    md += experiment.sections_markdown(parts, seconds)
    return "\n".join(md).rstrip("\n") + "\n"


REPRODUCTION = Reproduction(
    "peach",
    __name__,
    tuple(experiment.Part(*p) for p in PARTS),
    render,
    DEFAULT_OUT,
)

#: Runs every part and writes their files, ``claims.csv`` and ``report.md``
#: into ``out_dir`` (default ``DEFAULT_OUT``), all or nothing.
reproduce = REPRODUCTION.reproduce

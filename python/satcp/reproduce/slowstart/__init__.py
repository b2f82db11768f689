"""``satcp reproduce slowstart``: the experiments of M. Marchese's paper on a
modified TCP slow start over a GEO satellite test-bed
(shared/papers/004_...; the functions F' = K, F'' "Linear thr" and F'''
"Linear thr1-thr2-thr3" of Sec. II, the test-bed of Sec. III, the results
of Sec. IV).

One module per part, each with
``reproduce(out: pathlib.Path, workers: int | None, quick: bool) -> Section``
that writes its CSV and PNG files into ``out``:

- :mod:`.single`: Table I and Figs. 2, 4, 6 (one connection);
- :mod:`.multi`: Figs. 3, 5, 7, 8 (several connections);
- :mod:`.queue`: Table I with router queues of 40, 64 and 100 packets;
- :mod:`.common`: the test-bed model and Table I's configurations;
- :mod:`.claims`: the paper's numbers beside satcp's.

Everything, ``report.md`` included, is written into a temporary directory
and then moved into the output directory
(:func:`satcp.reproduce.experiment.run`): a failing part leaves it as it
was. The parts run on the engine of :mod:`satcp.reproduce.experiment`.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from .. import experiment
from ..claims import CLAIMS_CSV
from ..experiment import REPORT, PartResult, Report, Reproduction, sections_markdown
from .claims import GAIN_TOLERANCE, TIME_TOLERANCE

__all__ = ["DEFAULT_OUT", "PARTS", "REPORT", "REPRODUCTION", "Report", "reproduce"]

DEFAULT_OUT = os.path.join("reports", "slowstart")

#: (module in this package, what it covers)
PARTS: tuple[tuple[str, str], ...] = (
    ("single", "Table I and Figs. 2, 4, 6: one connection"),
    ("multi", "Figs. 3, 5, 7, 8: several connections"),
    ("queue", "Queue sensitivity (40, 64, 100 packets)"),
)


def render(parts: Sequence[PartResult], quick: bool, seconds: float) -> str:
    claims = [c for p in parts for c in p.section.claims]
    held = [c for c in claims if c.reproduced]
    md = [
        "# satcp vs the modified slow start over a GEO satellite test-bed",
        "",
        'M. Marchese, "TCP over a GEO satellite link with a modified slow start" '
        "(shared/papers/004_..., OCR-damaged), Secs. II-IV: the slow-start increase "
        "functions F' (constant K), F'' (Linear thr) and F''' (Linear thr1-thr2-thr3) with "
        "IW = 6 and a 320 kB buffer against the reference TCP (IW = 1, 64 kB buffer). Every "
        "number and statement of the paper's text is put beside satcp's value, computed from "
        "scratch; the figures are drawn with the paper's axes and series. How satcp "
        "implements the functions and every reading of the paper it had to choose: "
        "docs/slowstart.md. No constant was tuned to match.",
        "",
        "## How to rerun",
        "",
        "```sh",
        "make setup && . .venv/bin/activate",
        "satcp reproduce slowstart --out reports/slowstart  # everything (--workers N: threads)",
        "satcp reproduce slowstart --quick --out /tmp/ss    # N = 1, 5, 15 only, for tests",
        "```",
        "",
        "Files: `table1_transfer_time.csv`, one PNG per figure (`figNN_...png`) with its data "
        f"as CSV, `queue_sensitivity.csv` and `{CLAIMS_CSV}` (every claim below: figure, "
        "statement, unit, paper, satcp, diff_pct, reproduced, note).",
        "",
    ]
    if quick:
        md += [
            "**This is a --quick run**: the multi-connection figures have N = 1, 5, 15 only; "
            "do not quote it.",
            "",
        ]
    md += [
        "## The setting (Sec. III)",
        "",
        "The test-bed model of docs/slowstart.md (the scenario of "
        "`crates/satcp-core/tests/slowstart.rs`, `slowstart.common.testbed`): two routers "
        "joined by a symmetric 2 Mb/s GEO channel, 260 ms one way (RTT about 0.53 s), no "
        "bit errors; each sender and receiver on its own 10 Mb/s LAN (0.5 ms) to a router; "
        "one bulk transfer of H = 2.8 MB (2,800,000 bytes) per connection, the handshake "
        "excluded from its time. Linux-like hosts: timestamps and window scaling (1,448 "
        "payload bytes per segment), minimum RTO 200 ms, 10 ms timer, delayed ACKs, initial "
        'ssthresh 1 GB, SACK recovery (`tcp.variant = "slowstart"`).',
        "",
        "- **Router queue: drop-tail, 64 packets.** The paper treats the routers as a black "
        "box. Its routers are IP routers with HDLC on 2 Mb/s serial interfaces, where Cisco "
        "IOS defaults to weighted fair queueing with a congestive discard threshold of 64 "
        "messages; one bulk flow sees a 64-packet drop-tail queue. The queue-sensitivity "
        "section shows Table I with 40 and 100. With several connections WFQ would isolate "
        "the flows, satcp's single FIFO does not.",
        "- **Window = buf / 2.** Linux counts packet overhead against the socket buffer "
        "(`tcp_adv_win_scale` = 1: half), so the advertised window is 32 kB for the "
        "reference's 64 kB and 160 kB for 320 kB (above the 133 kB bandwidth-delay product).",
        "- The paper's numbers are single test-bed runs; satcp is deterministic (one run per "
        "point, no seeds).",
        "",
        "## Summary: the paper's numbers beside satcp's",
        "",
        f"Gains hold within {GAIN_TOLERANCE.describe()}, times within "
        f"{TIME_TOLERANCE.describe()}, statements when satcp shows them "
        "(the criterion is in the row). "
        f"{len(held)} of {len(claims)} hold.",
        "",
    ]
    md += sections_markdown(parts, seconds)
    return "\n".join(md).rstrip("\n") + "\n"


REPRODUCTION = Reproduction(
    "slowstart",
    __name__,
    tuple(experiment.Part(*p) for p in PARTS),
    render,
    DEFAULT_OUT,
)

#: Runs every part and writes their files, ``claims.csv`` and ``report.md``
#: into ``out_dir`` (default ``DEFAULT_OUT``), all or nothing.
reproduce = REPRODUCTION.reproduce

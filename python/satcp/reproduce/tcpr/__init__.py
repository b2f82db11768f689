"""``satcp reproduce tcpr``: the experiments of A. Sathiaseelan's "TCP-R
with EPDN" (IJCNS 2009; shared/papers/002_..., Secs. 3-4, Figs. 2-11).

Data-driven, on the shared engine (:mod:`satcp.reproduce.experiment`): each
part module holds a table of :class:`~.common.Figure` rows (the bottleneck's
impairments as a function of x, the grid, the series), each of which is an
:class:`~satcp.reproduce.experiment.Experiment`, and its claims as data;
``reproduce(out, workers, quick) -> Section`` runs a part's figures
(:func:`.common.figures_section`,
:func:`~satcp.reproduce.experiment.run_experiment`):

- :mod:`.linklevel`: Secs. 4.1 and 4.7, Figs. 2, 3, 10, 11;
- :mod:`.multipath`: Sec. 4.2, Figs. 4, 5;
- :mod:`.conditions`: Secs. 4.3-4.5, Figs. 6-8;
- :mod:`.multiflow`: Sec. 4.6, Fig. 9;
- :mod:`.common`: the Sec. 3 network, the variants, the figures as
  experiments;
- :mod:`.claims`: the rules by which the paper's words are checked (the
  shared :class:`~satcp.reproduce.claims.Claim` and
  :class:`~satcp.reproduce.claims.Tolerance`).

Everything, ``report.md`` included, is written into a temporary directory
and then moved into the output directory, all or nothing
(:func:`satcp.reproduce.experiment.run`).
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from .. import experiment
from ..claims import CLAIMS_CSV
from ..experiment import REPORT, PartResult, Report, Reproduction, sections_markdown
from .claims import RATIO, SIMILAR, ZERO
from .common import DURATION_QUICK_S, DURATION_S, SEEDS, SEEDS_QUICK

__all__ = ["DEFAULT_OUT", "PARTS", "REPORT", "REPRODUCTION", "Report", "reproduce"]

DEFAULT_OUT = os.path.join("reports", "tcpr")

#: (module in this package, what it covers)
PARTS: tuple[tuple[str, str], ...] = (
    ("linklevel", "Figs. 2, 3, 10, 11: link-level reordering (Secs. 4.1, 4.7)"),
    ("multipath", "Figs. 4, 5: LEO multipath (Sec. 4.2)"),
    ("conditions", "Figs. 6-8: delay, BER, congestion drops (Secs. 4.3-4.5)"),
    ("multiflow", "Fig. 9: fifty ECN flows (Sec. 4.6)"),
)


def render(parts: Sequence[PartResult], quick: bool, seconds: float) -> str:
    claims = [c for p in parts for c in p.section.claims]
    held = [c for c in claims if c.reproduced]
    seeds = SEEDS_QUICK if quick else SEEDS
    duration = DURATION_QUICK_S if quick else DURATION_S
    md = [
        "# satcp vs TCP-R with EPDN",
        "",
        'A. Sathiaseelan, "Robust TCP (TCP-R) with Explicit Packet Drop Notification (EPDN) '
        'for Satellite Networks", IJCNS 2009 (shared/papers/002_..., OCR), Secs. 3-4, '
        "Figs. 2-11: TCP-R against SACK, DSACK-R, DSACK-TA, DSACK-TAES, RN-TCP (EPDNv2, "
        "EPDNv3) and RN-TCP-ES. Every number and comparison the paper's text states is put "
        "beside satcp's, computed from scratch; the figures plot throughput, fast-retransmit "
        "ratio and timeout ratio as the paper's do. How satcp implements the protocols and "
        "every reading: docs/tcpr.md. No constant was tuned to match.",
        "",
        "## How to rerun",
        "",
        "```sh",
        "make setup && . .venv/bin/activate",
        "satcp reproduce tcpr --out reports/tcpr      # everything (--workers N: threads)",
        "satcp reproduce tcpr --quick --out /tmp/tcpr # fewer points, 2 seeds, 300 s",
        "```",
        "",
        "Files: per figure `figNN_....png` and its data `figNN_....csv` (per series and x: "
        "seeds, throughput in kb/s, fast-retransmit ratio, timeout ratio and duplicate ratio "
        "(data segments that reached the receiver twice, per data segment sent), each with "
        f"its 95 % half width), and `{CLAIMS_CSV}` (every claim below).",
        "",
    ]
    if quick:
        md += [
            "**This is a --quick run** (the claims' points only, 2 seeds, 300 s flows): do "
            "not quote it.",
            "",
        ]
    md += [
        "## The setting (Sec. 3)",
        "",
        "src -10 Mb/s, 1 ms- R1 -1.5 Mb/s, P- R2 -10 Mb/s, 1 ms- dst; 1,500-byte packets "
        "(MSS 1,460); RED with ECN marking on every router queue, the queue equal to the "
        "bandwidth-delay product (76 packets at P = 300 ms) except in Fig. 9 (300 packets); "
        "window scaling with a receive buffer of one bandwidth-delay product (113 kB at "
        "300 ms); SACK with DSACK on every sender, minimum RTO 1 s (the paper's \"one second "
        'minimum RTO"); one bulk (FTP) flow from t = 0, '
        f"{duration:g} s; every point the mean of {len(seeds)} seeds with its 95 % interval "
        "(Student t). All impairments are on the data direction R1 -> R2 (pure ACKs are "
        "exempt: `errors_data_only`); the ACK direction is clean. Reordering is the paper's "
        "delay distributions (`reorder*` link options), corruption a bit error rate on the "
        "same direction; a corrupted packet reaches R2, which discards it (where EPDNv2 "
        "records it). EPDN gateways at R1 and R2: RN-TCP (EPDNv2) and RN-TCP-ES with v2, "
        "RN-TCP (EPDNv3) and TCP-R with v3 (the paper's proposal, Sec. 5); SACK, DSACK-R "
        "and RR-TCP run through plain routers. Throughput is the bytes delivered to the "
        "receiver x 8 / the flow's duration; the fast-retransmit and timeout ratios are "
        "window-reducing fast retransmissions and timeouts per data packet sent (TCP-R's "
        "reordering retransmissions do not count, docs/tcpr.md).",
        "",
        "## Summary: the paper's numbers beside satcp's",
        "",
        "A ratio s of throughputs holds against the paper's p when |s - p| <= "
        f"{RATIO.limit / 100:g} (p - 1) + {RATIO.slack:g} and s is on the same side of 1; "
        f'"similar" and "slightly" are within {SIMILAR:.0%}; "zero" ratios below {ZERO:g} per '
        "data packet; comparisons when satcp's means are ordered as the paper says. "
        f"{len(held)} of {len(claims)} hold.",
        "",
    ]
    md += sections_markdown(parts, seconds)
    return "\n".join(md).rstrip("\n") + "\n"


REPRODUCTION = Reproduction(
    "tcpr",
    __name__,
    tuple(experiment.Part(*p) for p in PARTS),
    render,
    DEFAULT_OUT,
)

#: Runs every part and writes their files, ``claims.csv`` and ``report.md``
#: into ``out_dir`` (default ``DEFAULT_OUT``), all or nothing.
reproduce = REPRODUCTION.reproduce

"""Shared helpers of the TCP-Peach reproduction (``satcp reproduce peach``).

- :func:`sec5_scenario`: the paper's Sec. V network (Fig. 10) as a scenario
  dict: N senders, Earth station A with a priority buffer of K segments, a
  GEO channel of c segments/s and RTT 550 ms with link-error losses of
  probability PLoss on data and dummy segments, N receivers;
- :func:`hetero_scenario`: the heterogeneous network of Fig. 18 (M satellite
  and N terrestrial connections through one bottleneck A-B);
- :func:`flow_goodputs`, :func:`aggregate_goodput`: goodput in segments/s;
- :func:`mean`;
- from :mod:`.claims`: :class:`Claim`, :func:`claims_table` (a number or
  statement of the paper beside satcp's), :class:`Section` (what each
  experiment module returns), :func:`fmt`;
- from :mod:`.figures`: :class:`Series`, :class:`Panel`, :func:`plot`
  (figures drawn like the paper's);
- from :mod:`satcp.reproduce.tables`: :func:`write_csv`,
  :func:`markdown_table`.

Every experiment module has
``reproduce(out: pathlib.Path, workers: int | None, quick: bool) -> Section``
and writes its CSV and PNG files into ``out``.

Units follow the paper: segments of MSS = 1,000 bytes ("we consider the
segment as the unit of data"), c in segments per second of full-size data
packets (1,040 bytes on the wire, so c = 1,300 segments/s is 10.8 Mb/s),
windows in segments.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from ...topology import PEACH_NETWORK, peach_hetero, peach_rate_bps, peach_sec5, peach_sender_delays
from ..tables import markdown_table, write_csv
from .claims import CLAIM_COLUMNS, TOLERANCE_PCT, Claim, Section, claims_table, fmt
from .figures import STYLE, Panel, Series, plot

__all__ = [
    "ACCESS_BPS",
    "ACCESS_DELAY_S",
    "CLAIM_COLUMNS",
    "C_SEG",
    "DURATION_S",
    "HEADER_BYTES",
    "JITTER_S",
    "K_SEG",
    "LABEL",
    "MSS",
    "N_FLOWS",
    "PEACH_NETWORK",
    "PEACH_PLAIN",
    "RENO",
    "RENO_PLAIN",
    "RTT_S",
    "RWND_SEG",
    "STYLE",
    "TOLERANCE_PCT",
    "Claim",
    "Panel",
    "Section",
    "Series",
    "aggregate_goodput",
    "claims_table",
    "flow_goodputs",
    "fmt",
    "hetero_scenario",
    "markdown_table",
    "mean",
    "plot",
    "rate_bps",
    "sec5_scenario",
    "sender_delays",
    "write_csv",
]

#: The Sec. V network's numbers (:data:`satcp.topology.PEACH_NETWORK`): segment
#: payload (the paper's 1,000-byte TCP segments), IP + TCP header bytes of a
#: data packet, round-trip propagation time of the GEO path, capacity of the
#: satellite channel (segments/s), buffer of Earth station A (segments),
#: receiver window (segments), simulated time of every Sec. V experiment
#: (1,000 RTT), the access links (fast and short), and the spread of the
#: senders' access delays in multi-connection runs (:func:`sender_delays`).
MSS = PEACH_NETWORK["mss"]
HEADER_BYTES = PEACH_NETWORK["header_bytes"]
RTT_S = PEACH_NETWORK["rtt_s"]
C_SEG = PEACH_NETWORK["c_seg"]
K_SEG = PEACH_NETWORK["k_seg"]
RWND_SEG = PEACH_NETWORK["rwnd_seg"]
DURATION_S = PEACH_NETWORK["duration_s"]
ACCESS_BPS = PEACH_NETWORK["access_bps"]
ACCESS_DELAY_S = PEACH_NETWORK["access_delay_s"]
JITTER_S = PEACH_NETWORK["jitter_s"]
#: Connections sharing the channel in Sec. V-A.
N_FLOWS = 20

#: Sec. V: "both TCP-Reno and TCP-Peach apply the SACK option" (Reno is
#: NewReno, ref. [22]); Secs. III-IV (Figs. 3, 7, 9) describe the plain
#: algorithms with Fast Recovery's window inflation: no SACK there.
PEACH, RENO = "peach-sack", "sack"
PEACH_PLAIN, RENO_PLAIN = "peach", "newreno"

LABEL = {
    PEACH: "TCP-Peach",
    RENO: "TCP-Reno",
    PEACH_PLAIN: "TCP-Peach",
    RENO_PLAIN: "TCP-Reno",
}


#: The paper's networks: the topology library's (:mod:`satcp.topology.papers`).
rate_bps = peach_rate_bps
sec5_scenario = peach_sec5
hetero_scenario = peach_hetero
sender_delays = peach_sender_delays
#: Fig. 18: one-way delay of the bottleneck A-B (terrestrial).
BOTTLENECK_DELAY_S = PEACH_NETWORK["bottleneck_delay_s"]


# --- reading runs --------------------------------------------------------------


def flow_goodputs(res: Any, duration_s: float | None = None) -> list[float]:
    """Goodput of every application's connection in the order of the
    scenario's applications (connections are numbered in the order they
    open), segments/s: original bytes delivered in order to the receiver
    over the simulated time. Applications with several connections get
    their sum."""
    dur = float(duration_s if duration_s is not None else res.end_time_s)
    if res.flows.empty or dur <= 0:
        return []
    per_app = res.flows.groupby("app")["client_bytes_delivered"].sum().sort_index()
    return [float(b) / MSS / dur for b in per_app]


def aggregate_goodput(res: Any, duration_s: float | None = None) -> float:
    """Sum of the connections' goodputs, segments/s."""
    return float(sum(flow_goodputs(res, duration_s)))


def mean(values: Iterable[float]) -> float:
    v = [float(x) for x in values if x is not None and not math.isnan(float(x))]
    return sum(v) / len(v) if v else math.nan

"""The networks of satcp's experiments, as scenario dicts: one library for
``satcp compare``, the sweeps and every reproduction.

- :mod:`.links`: :func:`link`, :func:`bulk`, :func:`scenario` (a link's
  options as the scenario format has them, one table per model:
  ``errors = {...}``, ``reorder = {...}``, ``red = {...}``);
- :mod:`.shapes`: :func:`bent_pipe` (a chain through a satellite hop) and
  :func:`dumbbell` (N pairs across one bottleneck);
- :mod:`.papers`: the papers' networks (the TCP-ADaLR thesis's, the
  TCP-Peach paper's, the slow-start test-bed, the TCP-R network);
- :mod:`.presets`: the paths of ``satcp compare``;
- :mod:`.beam`: :func:`geo_beam`, one GEO beam of many terminals (DVB-S2
  forward, DVB-RCS2 return, web browsing and downloads);
- :mod:`.bounds`: what a path allows (window- and rate-limited transfer
  times).

:data:`NETWORKS` names the networks a reproduction's data file can use
(``topology = "slowstart_testbed"``); :func:`network` builds one by name.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .beam import geo_beam
from .bounds import WindowBound, link_bound_s, path_hops, window_bound
from .links import bulk, link, link_options, merge_options, scenario
from .papers import (
    PEACH_NETWORK,
    TCPR_NETWORK,
    THESIS_FAIRNESS,
    peach_hetero,
    peach_rate_bps,
    peach_sec5,
    peach_sender_delays,
    pep_geo,
    rcs2_access,
    slowstart_testbed,
    tcpr_bdp_bytes,
    tcpr_network,
    tcpr_starts,
    thesis_fairness,
    thesis_network,
)
from .presets import HANDOVER_OUTAGE_S, leo_trace, peach_geo, starlink, starlink_isl, thesis_geo
from .shapes import bent_pipe, dumbbell

__all__ = [
    "HANDOVER_OUTAGE_S",
    "NETWORKS",
    "PEACH_NETWORK",
    "TCPR_NETWORK",
    "THESIS_FAIRNESS",
    "UnknownNetwork",
    "WindowBound",
    "bent_pipe",
    "bulk",
    "dumbbell",
    "geo_beam",
    "leo_trace",
    "link",
    "link_bound_s",
    "link_options",
    "merge_options",
    "network",
    "path_hops",
    "peach_geo",
    "peach_hetero",
    "peach_rate_bps",
    "peach_sec5",
    "peach_sender_delays",
    "pep_geo",
    "rcs2_access",
    "scenario",
    "slowstart_testbed",
    "starlink",
    "starlink_isl",
    "tcpr_bdp_bytes",
    "tcpr_network",
    "tcpr_starts",
    "thesis_fairness",
    "thesis_geo",
    "thesis_network",
    "window_bound",
]

#: The named networks, by the name a reproduction's data file gives.
NETWORKS: dict[str, Callable[..., dict[str, Any]]] = {
    f.__name__: f
    for f in (
        thesis_network,
        thesis_fairness,
        peach_sec5,
        peach_hetero,
        slowstart_testbed,
        pep_geo,
        tcpr_network,
        thesis_geo,
        peach_geo,
        starlink,
        starlink_isl,
        leo_trace,
        rcs2_access,
        geo_beam,
    )
}


class UnknownNetwork(KeyError):
    """A name that is not in :data:`NETWORKS`."""

    def __str__(self) -> str:
        return str(self.args[0])


def network(which: str, /, **args: Any) -> dict[str, Any]:
    """The scenario of network ``which`` with ``args``."""
    try:
        build = NETWORKS[which]
    except KeyError:
        raise UnknownNetwork(f"unknown network {which!r} (known: {', '.join(NETWORKS)})") from None
    return build(**args)

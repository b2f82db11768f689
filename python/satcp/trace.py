"""Per-event traces (docs/traces.md): the scenario's ``[trace]`` table, or
``satcp run --trace cwnd,rtt,queue``, has the core record every change of
what it names; :class:`satcp.Results` holds the rows as ``trace`` and
``--out`` writes them to ``trace.parquet``.

The table, one row per change, in time order:

- ``time_s``: simulated time, seconds;
- ``kind``: what changed (:data:`KINDS`);
- ``conn`` and ``side`` (``client``/``server``): the endpoint, for a
  connection's kinds (empty for the queue kinds);
- ``link``: the link direction (the ``link`` of the links table), for the
  queue kinds (empty otherwise);
- ``value``: the new value, in the kind's unit (:data:`UNITS`).

The core hands the columns over as arrays (``_core.TraceBuffer``), not in
the results' JSON: a trace may have millions of rows.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from . import _core

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["COLUMNS", "KINDS", "STATES", "UNITS", "frame", "parse_kinds"]

#: The trace kinds, in the core's order.
KINDS: tuple[str, ...] = tuple(_core.trace_kinds())
#: The kinds of a link direction (the others are a connection's).
LINK_KINDS = ("queue", "queue_bytes")
#: Each kind's unit.
UNITS = {
    "cwnd": "bytes",
    "ssthresh": "bytes",
    "rtt": "s",
    "srtt": "s",
    "rto": "s",
    "state": "code",
    "retx": "segments",
    "queue": "packets",
    "queue_bytes": "bytes",
}
#: A ``state`` row's value: Linux's ``tcp_ca_state``.
STATES = {0: "open", 1: "disorder", 2: "recovery", 3: "loss"}
COLUMNS = ("time_s", "kind", "conn", "side", "link", "value")


def parse_kinds(text: str) -> list[str]:
    """``--trace``'s value: kinds separated by commas, or ``all``. A name
    that is no kind is a ValueError naming it and the kinds there are."""
    names = [n.strip() for n in text.split(",") if n.strip()]
    if not names:
        raise ValueError(f"{text!r} names no trace kind ({', '.join(KINDS)}, or all)")
    if names == ["all"]:
        return list(KINDS)
    for n in names:
        if n not in KINDS:
            raise ValueError(f"{n!r} is not a trace kind ({', '.join(KINDS)}, or all)")
    return list(dict.fromkeys(names))


def frame(columns: Mapping[str, Any] | None) -> pd.DataFrame:
    """The trace table from ``_core.TraceBuffer.take()``'s columns (an
    empty table with the columns for None)."""
    import numpy as np
    import pandas as pd

    if columns is None:
        columns = {"time_s": b"", "value": b"", "subject": b"", "kind": b"", "kinds": KINDS}
    time_s = np.frombuffer(columns["time_s"], dtype="<f8")
    value = np.frombuffer(columns["value"], dtype="<f8")
    subject = np.frombuffer(columns["subject"], dtype="<u4").astype(np.int64)
    codes = np.frombuffer(columns["kind"], dtype=np.uint8).astype(np.int16)
    names = list(columns["kinds"])
    kind = pd.Categorical.from_codes(codes, categories=names)
    of_link = np.isin(codes, [names.index(k) for k in LINK_KINDS])
    conn = pd.array(np.where(of_link, 0, subject // 2), dtype="Int32")
    conn[of_link] = pd.NA
    link = pd.array(np.where(of_link, subject, 0), dtype="Int32")
    link[~of_link] = pd.NA
    side = pd.Categorical.from_codes(
        np.where(of_link, -1, subject % 2).astype(np.int8), categories=["client", "server"]
    )
    return pd.DataFrame(
        {
            "time_s": time_s,
            "kind": kind,
            "conn": conn,
            "side": side,
            "link": link,
            "value": value,
        }
    )

"""Links, applications and scenarios as dicts.

A link's options are given as the scenario format spells them: the link's
own fields (``rate_bps``, ``delay_s``, ``queue``, ``queue_packets``,
``queue_bytes``, ``congestion_loss``, the schedules) and one table per
model (``errors = {...}``, ``reorder = {...}``, ``arq = {...}``, the queue
kind's ``red = {...}`` or ``priority = {...}``). They pass through as they
are: the core reads each model's table and checks it, and its errors name
the path where the field was written (``links[1].ab.errors.ber``;
``crates/satcp-core/src/net/link_config.rs``), so no link key is spelled
here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["bulk", "link", "link_options", "merge_options", "scenario"]


def link_options(**options: Any) -> dict[str, Any]:
    """A link's (or one direction's) options as the scenario format has
    them. An option of None is left out, and so is a field of None in a
    table (a table whose fields are all None is left out too)."""
    out: dict[str, Any] = {}
    for key, value in options.items():
        if isinstance(value, Mapping):
            given = {k: v for k, v in value.items() if v is not None}
            value = given if given or not value else None
        if value is not None:
            out[key] = value
    return out


def merge_options(base: Mapping[str, Any], extra: Mapping[str, Any]) -> dict[str, Any]:
    """``base`` with ``extra``'s options over it: tables (``errors``, ...)
    are merged field by field, recursively, any other value is replaced
    (as the core merges a direction's table over the link's)."""
    out = dict(base)
    for key, value in extra.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), Mapping):
            out[key] = merge_options(out[key], value)
        else:
            out[key] = value
    return out


def link(
    a: str,
    b: str,
    *,
    name: str | None = None,
    ab: Mapping[str, Any] | None = None,
    ba: Mapping[str, Any] | None = None,
    **options: Any,
) -> dict[str, Any]:
    """A link between nodes ``a`` and ``b``: ``options`` apply to both
    directions, ``ab`` and ``ba`` to one (both in the spelling of
    :func:`link_options`)."""
    d: dict[str, Any] = {"name": name} if name else {}
    d |= {"a": a, "b": b, **link_options(**options)}
    if ab:
        d["ab"] = link_options(**ab)
    if ba:
        d["ba"] = link_options(**ba)
    return d


def bulk(client: str, server: str, **settings: Any) -> dict[str, Any]:
    """A bulk transfer from ``server`` to ``client`` (unlimited unless
    ``bytes`` is given)."""
    return {"kind": "bulk", "client": client, "server": server, **settings}


def scenario(
    name: str,
    nodes: list[str],
    links: list[dict[str, Any]],
    apps: list[dict[str, Any]],
    tcp: Mapping[str, Any] | None = None,
    **settings: Any,
) -> dict[str, Any]:
    """A scenario dict: its name, run settings (``seed``, ``duration_s``,
    ``stop_when_done``, ``sample_interval_s``, ``routers``, ...), nodes,
    links, applications and ``[tcp]`` table. A setting of None is left
    out (the core's default)."""
    given = {k: v for k, v in settings.items() if v is not None}
    sc: dict[str, Any] = {"name": name, **given, "nodes": nodes, "links": links, "apps": apps}
    if tcp is not None:
        sc["tcp"] = dict(tcp)
    return sc

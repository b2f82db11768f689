"""Links, applications and scenarios as dicts: the one place where the
scenario format's link keys are spelled.

Callers give a link's options as the scenario format's tables (the
spelling it is moving to): ``errors = {ber, loss, duplicate, data_only,
corrupted_reach_next_node, drop_seqs, loss_schedule, gilbert_elliott}``,
``reorder = {prob, delay, mean_s, sd_s}``, ``red = {min_th, max_th, max_p,
wq, gentle}``, ``priority = {push_out}``, ``arq = {attempts,
recover_all}``, and flat ``rate_bps``, ``delay_s``, ``queue``,
``queue_packets``, ``queue_bytes``, ``ecn_marking``, ``congestion_loss``
and the schedules. :func:`link_options` writes them with the keys the core
reads (:data:`TABLE_KEYS`); when the core reads the tables themselves,
that mapping is the only thing to change.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["FLAT_KEYS", "TABLE_KEYS", "bulk", "link", "link_options", "merge_options", "scenario"]

#: A link option given as a table -> {its field: the key the core reads}.
TABLE_KEYS: dict[str, dict[str, str]] = {
    "errors": {
        "ber": "ber",
        "loss": "loss",
        "duplicate": "duplicate",
        "data_only": "errors_data_only",
        "corrupted_reach_next_node": "corrupted_reach_next_node",
        "drop_seqs": "drop_seqs",
        "loss_schedule": "loss_schedule",
        "gilbert_elliott": "gilbert_elliott",
    },
    "reorder": {
        "prob": "reorder",
        "delay": "reorder_delay",
        "mean_s": "reorder_delay_mean_s",
        "sd_s": "reorder_delay_sd_s",
    },
    "red": {
        "min_th": "red_min_th",
        "max_th": "red_max_th",
        "max_p": "red_max_p",
        "wq": "red_wq",
        "gentle": "red_gentle",
    },
    "priority": {"push_out": "priority_push_out"},
    "arq": {"attempts": "arq_attempts", "recover_all": "arq_recover_all"},
}

#: The link options that stay flat.
FLAT_KEYS = (
    "rate_bps",
    "delay_s",
    "queue",
    "queue_packets",
    "queue_bytes",
    "ecn_marking",
    "congestion_loss",
    "delay_schedule",
    "rate_schedule",
)


def link_options(**options: Any) -> dict[str, Any]:
    """A link's (or one direction's) options as the core reads them. An
    option or a field of None is left out; an unknown one is a ValueError
    naming it."""
    out: dict[str, Any] = {}
    for key, value in options.items():
        if value is None:
            continue
        if key in FLAT_KEYS:
            out[key] = value
        elif key in TABLE_KEYS:
            if not isinstance(value, Mapping):
                raise ValueError(f"link option {key}: a table of {', '.join(TABLE_KEYS[key])}")
            for field, v in value.items():
                if field not in TABLE_KEYS[key]:
                    known = ", ".join(TABLE_KEYS[key])
                    raise ValueError(f"link option {key}.{field}: unknown (known: {known})")
                if v is not None:
                    out[TABLE_KEYS[key][field]] = v
        else:
            known = ", ".join([*FLAT_KEYS, *TABLE_KEYS])
            raise ValueError(f"link option {key}: unknown (known: {known})")
    return out


def merge_options(base: Mapping[str, Any], extra: Mapping[str, Any]) -> dict[str, Any]:
    """``base`` with ``extra``'s options over it; tables (``errors``, ...)
    are merged field by field."""
    out = dict(base)
    for key, value in extra.items():
        if key in TABLE_KEYS and isinstance(out.get(key), Mapping):
            out[key] = {**out[key], **value}
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

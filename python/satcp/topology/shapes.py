"""The two shapes most networks here have: a bent pipe (a chain of hops
from a server through one satellite link to a client) and a dumbbell (N
sender/receiver pairs on both sides of one bottleneck)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .links import link

__all__ = ["bent_pipe", "dumbbell"]

Options = Mapping[str, Any]


def bent_pipe(
    nodes: Sequence[str], hops: Sequence[Options], names: Sequence[str | None] | None = None
) -> list[dict[str, Any]]:
    """The links of a chain ``nodes[0] -- hops[0] -- nodes[1] -- ... --
    nodes[-1]``: a server, its ground link, the gateway or ground stations
    and the satellite hop, a client. ``hops[i]`` are the options of the
    link from ``nodes[i]`` to ``nodes[i + 1]`` (:func:`~.links.link`'s
    keywords: ``rate_bps``, ``delay_s``, ``ab``, ``ba``, tables);
    ``names[i]`` its name (None: unnamed)."""
    if len(hops) != len(nodes) - 1:
        raise ValueError(
            f"a chain of {len(nodes)} nodes has {len(nodes) - 1} hops, not {len(hops)}"
        )
    names = names or [None] * len(hops)
    return [
        link(a, b, name=name, **hop)
        for a, b, hop, name in zip(nodes[:-1], nodes[1:], hops, names, strict=True)
    ]


def dumbbell(
    n: int,
    bottleneck: Options,
    *,
    left: str,
    right: str,
    sender: str,
    receiver: str,
    access: Callable[[int], Options],
    tail: Callable[[int], Options],
    bottleneck_name: str | None = None,
    access_name: str | None = None,
    tail_name: str | None = None,
    bottleneck_last: bool = False,
) -> tuple[list[str], list[dict[str, Any]]]:
    """The nodes and links of ``n`` pairs across one bottleneck: sender
    ``i`` (``sender.format(i=i)``) -- ``access(i)`` -- ``left`` ==
    ``bottleneck`` == ``right`` -- ``tail(i)`` -- receiver ``i``. Nodes in
    the order left, right, then each pair; links in the order of the pairs,
    the bottleneck first (or last). ``*_name`` templates name the links."""
    nodes = [left, right]
    pairs: list[dict[str, Any]] = []
    for i in range(n):
        s, r = sender.format(i=i), receiver.format(i=i)
        nodes += [s, r]
        pairs.append(link(s, left, name=_name(access_name, i), **access(i)))
        pairs.append(link(right, r, name=_name(tail_name, i), **tail(i)))
    middle = link(left, right, name=bottleneck_name, **bottleneck)
    return nodes, [*pairs, middle] if bottleneck_last else [middle, *pairs]


def _name(template: str | None, i: int) -> str | None:
    return template.format(i=i) if template else None
